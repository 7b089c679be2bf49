//! # Receive frame buffer (`mrnic_fbuf`)
//!
//! **Purpose.** Store and forward between the MAC's AXI4-Stream and the placement path
//! (issue 12, `docs/design/receiver-rtl.md` §2.2): every beat of a frame is written into
//! block RAM as it arrives; nothing of a frame leaves before the parser's verdict on it,
//! taken after the frame's last beat. A kept frame is read out whole, in arrival order; a
//! refused one is skipped by the read side (its space returns as the read pointer passes
//! it), so a bad frame never reaches placement or AXI. Semantics: the model cycle shell
//! `mrnic_model::wire::fbuf::FbufShell`, diffed cycle by cycle.
//!
//! **Ports** (D = 8·B data bits, A1 = AW + 1 pointer bits).
//! - global: `clock`, `rst` (synchronous).
//! - beat stream in: `s_axis_tvalid`/`s_axis_tready`, `s_axis_tdata` (D), `s_axis_tkeep`
//!   (B), `s_axis_tlast`; `s_axis_tready` is `!space_n`, a register (1: no room for a beat
//!   or a descriptor), gated only by `rst`.
//! - verdict stream in: `s_vrd_valid`/`s_vrd_ready`, `s_vrd_keep` (1: release the frame).
//!   One verdict per frame, in frame order, taken only after the frame's last beat.
//! - beat stream out: `m_axis_tvalid`/`m_axis_tready`, `m_axis_tdata` (D), `m_axis_tkeep`
//!   (B: all ones but on a frame's last beat, which carries the frame's `s_axis_tkeep` at
//!   `s_axis_tlast`), `m_axis_tlast`.
//! - status: `stat_frames` (last beats taken), `stat_kept` (last beats sent),
//!   `stat_refused` (verdicts taken that refuse their frame), `stat_too_long` (frames
//!   longer than `max_beats`, at their last beat); 32-bit, wrapping. Transaction counts
//!   only: the same in any implementation, whatever its timing.
//! - sizes: const generics `D`, `B`, `AW` (2^AW beats of RAM), `A1`, `FL` (2^FL frame
//!   descriptors), `F1` = FL + 1, `NF` = 2^FL, `DW` = A1 + B + 1 (a descriptor word);
//!   `max_beats` a localparam (`k_maxb`); checked by [`Fbuf::try_new`].
//!
//! **State.** The beat RAM (`mem`, 2^AW x D, registered read: DP16KD / SB_RAM40_4K); the
//! write and read pointers `wp`, `rp` (A1 bits: the extra bit tells full from empty); the
//! current frame's beat count `fb` and overflow flag `fo`; the descriptor ring in two equal
//! copies (`dsc_a`, `dsc_b`, each 2^FL words of DW bits: the pointer of the frame's last
//! stored beat (end - 1), its last `tkeep`, overflow; LUT RAM) and a verdict bit per
//! descriptor (`vk`); the frame counters `ne` (ended), `nj` (judged), `nr` (retired); the
//! reads in flight (`r_*` in the RAM's read register, `o_*` in its output register) and a
//! 4-entry output queue (`q*`, head `qh`, tail `qt`, count `qn`).
//!
//! **Pipeline.** Write side, cycle t: a beat taken with `fb < max_beats` is written at `wp`;
//! at `s_axis_tlast` the descriptor is written at `ne` into both copies. Read side, cycle t,
//! from registers: when `nr != nj` the head frame's descriptor decides: refused (verdict 0 or
//! overflow) -> `rp` := end, `nr` + 1; kept and `qn + r_v + o_v < 4` -> `mem` read at `rp`,
//! `rp` + 1, and on the frame's last beat `nr` + 1. Cycle t + 1: the RAM word goes into the
//! output register `o_*` (a plain register after the RAM's read port, which yosys can pack
//! into the DP16KD's own output register); cycle t + 2: it lands in the queue.
//! **Latency** 4 from a verdict transfer to its frame's first beat on `m_axis`
//! (`FBUF_LATENCY`). **II** 1 on both streams; kept frames leave back to back; a refused
//! frame costs the read side one cycle.
//!
//! **Combinational paths.** `rst` -> every valid and ready output; `m_axis_tready` -> the
//! queue's pop only (not to any ready). `space_n` comes from the registers' differences
//! (`wp - rp`, `ne - nr`) and this cycle's write (a select at the end): space freed in cycle
//! t reaches `s_axis_tready` in t + 2, and no path runs from the read side's decision to
//! `s_axis_tready`. The read side's loop: the head descriptor (`dsc_a`'s word, or `dsc_b`'s
//! after a retirement: a 2:1 mux on a registered select) -> the A1-bit equality `rp == last`
//! (no carry chain) -> `retire` -> the `nr`, `rp` and `retired` registers. The descriptor
//! RAMs are read at `nr` and `nr + 1` from registers, so no decision reaches a RAM address.
//!
//! **Hazards.** `dsc_a` read at `nr` and `dsc_b` at `nr + 1` in cycle t give, in t + 1, the
//! word at the `nr` of t + 1 whether or not t retired a frame: no bubble between frames. A
//! descriptor written in t at an address read in t is forwarded (`BlockRam`'s write-first
//! bypass). The read pointer never reaches the write pointer's slot (only judged frames are
//! read), so the beat RAM needs no bypass. A verdict of cycle t is seen by the read side in
//! t + 1.
//!
//! **Reset** (`rst`): pointers, frame counters, the current frame, the reads in flight, the
//! queue and the counters are cleared; the RAMs, the descriptor words and the queue's data
//! are data and keep their contents (none is read before it is written again).

use crate::prim::BlockRam;
use mrnic_model::config::ConfigError;
use mrnic_model::wire::fbuf::FbufConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Fbuf<
    const D: usize,
    const B: usize,
    const AW: usize,
    const A1: usize,
    const FL: usize,
    const F1: usize,
    const NF: usize,
    const DW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<D>>,
    pub s_axis_tkeep: Signal<In, Bits<B>>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_vrd_valid: Signal<In, bool>,
    pub s_vrd_keep: Signal<In, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_vrd_ready: Signal<Out, bool>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tkeep: Signal<Out, Bits<B>>,
    pub m_axis_tlast: Signal<Out, bool>,
    pub stat_frames: Signal<Out, Bits<32>>,
    pub stat_kept: Signal<Out, Bits<32>>,
    pub stat_refused: Signal<Out, Bits<32>>,
    pub stat_too_long: Signal<Out, Bits<32>>,
    mem: RAM<Bits<D>, AW>,
    dsc_a: BlockRam<DW, FL>,
    dsc_b: BlockRam<DW, FL>,
    retired: DFF<bool>,
    wp: DFF<Bits<A1>>,
    rp: DFF<Bits<A1>>,
    fb: DFF<Bits<A1>>,
    fo: DFF<bool>,
    space_n: DFF<bool>,
    ne: DFF<Bits<F1>>,
    nj: DFF<Bits<F1>>,
    nr: DFF<Bits<F1>>,
    vk: DFF<Bits<NF>>,
    r_v: DFF<bool>,
    r_last: DFF<bool>,
    r_keep: DFF<Bits<B>>,
    o_v: DFF<bool>,
    o_last: DFF<bool>,
    o_keep: DFF<Bits<B>>,
    o_data: DFF<Bits<D>>,
    q0_data: DFF<Bits<D>>,
    q1_data: DFF<Bits<D>>,
    q2_data: DFF<Bits<D>>,
    q3_data: DFF<Bits<D>>,
    q0_keep: DFF<Bits<B>>,
    q1_keep: DFF<Bits<B>>,
    q2_keep: DFF<Bits<B>>,
    q3_keep: DFF<Bits<B>>,
    q0_last: DFF<bool>,
    q1_last: DFF<bool>,
    q2_last: DFF<bool>,
    q3_last: DFF<bool>,
    qh: DFF<Bits<2>>,
    qt: DFF<Bits<2>>,
    qn: DFF<Bits<3>>,
    c_frames: DFF<Bits<32>>,
    c_kept: DFF<Bits<32>>,
    c_refused: DFF<Bits<32>>,
    c_too_long: DFF<Bits<32>>,
    on: Signal<Local, bool>,
    s_rdy: Signal<Local, bool>,
    s_hs: Signal<Local, bool>,
    v_hs: Signal<Local, bool>,
    m_v: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    occ: Signal<Local, Bits<A1>>,
    held: Signal<Local, Bits<F1>>,
    have: Signal<Local, bool>,
    d_lastp: Signal<Local, Bits<A1>>,
    d_end: Signal<Local, Bits<A1>>,
    w_lastp: Signal<Local, Bits<A1>>,
    d_keep: Signal<Local, Bits<B>>,
    d_over: Signal<Local, bool>,
    h_keep: Signal<Local, bool>,
    q_room: Signal<Local, bool>,
    skip: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    rp1: Signal<Local, Bits<A1>>,
    i_last: Signal<Local, bool>,
    retire: Signal<Local, bool>,
    nr_n: Signal<Local, Bits<F1>>,
    nr1: Signal<Local, Bits<FL>>,
    vk_bit: Signal<Local, Bits<NF>>,
    d_word: Signal<Local, Bits<DW>>,
    d_shk: Signal<Local, Bits<DW>>,
    d_sho: Signal<Local, Bits<DW>>,
    w_word: Signal<Local, Bits<DW>>,
    fits: Signal<Local, bool>,
    w_en: Signal<Local, bool>,
    wp_n: Signal<Local, Bits<A1>>,
    fo_n: Signal<Local, bool>,
    ends: Signal<Local, bool>,
    ne_n: Signal<Local, Bits<F1>>,
    k_depth: Constant<Bits<A1>>,
    k_nf: Constant<Bits<F1>>,
    k_depth_m1: Constant<Bits<A1>>,
    k_nf_m1: Constant<Bits<F1>>,
    k_maxb: Constant<Bits<A1>>,
    k_four: Constant<Bits<3>>,
    k_ones: Constant<Bits<B>>,
    k_sh_keep: Constant<Bits<8>>,
    k_sh_over: Constant<Bits<8>>,
    k_za: Constant<Bits<A1>>,
    k_one_a: Constant<Bits<A1>>,
    k_one_f: Constant<Bits<F1>>,
    k_one_fl: Constant<Bits<FL>>,
    k_one_nf: Constant<Bits<NF>>,
    k_zf: Constant<Bits<F1>>,
    k_z2: Constant<Bits<2>>,
    k_z3: Constant<Bits<3>>,
    k_z32: Constant<Bits<32>>,
}

impl<
        const D: usize,
        const B: usize,
        const AW: usize,
        const A1: usize,
        const FL: usize,
        const F1: usize,
        const NF: usize,
        const DW: usize,
    > Fbuf<D, B, AW, A1, FL, F1, NF, DW>
{
    /// The buffer for `cfg`; refused when the const generics do not match it.
    pub fn try_new(cfg: &FbufConfig) -> Result<Self, ConfigError> {
        let mismatch = |f: &str, want: usize, got: usize| {
            Err(ConfigError::invalid(
                format!("Fbuf.{f}"),
                format!("the generic is {got}, the configuration says {want}"),
            ))
        };
        let b = cfg.beat_bytes as usize;
        for (f, want, got) in [
            ("D", 8 * b, D),
            ("B", b, B),
            ("AW", cfg.depth_log2 as usize, AW),
            ("A1", cfg.depth_log2 as usize + 1, A1),
            ("FL", cfg.frames_log2 as usize, FL),
            ("F1", cfg.frames_log2 as usize + 1, F1),
            ("NF", cfg.frames() as usize, NF),
            ("DW", cfg.depth_log2 as usize + 1 + b + 1, DW),
        ] {
            if want != got {
                return mismatch(f, want, got);
            }
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_vrd_valid: Default::default(),
            s_vrd_keep: Default::default(),
            m_axis_tready: Default::default(),
            s_axis_tready: Default::default(),
            s_vrd_ready: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            stat_frames: Default::default(),
            stat_kept: Default::default(),
            stat_refused: Default::default(),
            stat_too_long: Default::default(),
            mem: Default::default(),
            dsc_a: Default::default(),
            dsc_b: Default::default(),
            retired: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            fb: Default::default(),
            fo: Default::default(),
            space_n: Default::default(),
            ne: Default::default(),
            nj: Default::default(),
            nr: Default::default(),
            vk: Default::default(),
            r_v: Default::default(),
            r_last: Default::default(),
            r_keep: Default::default(),
            o_v: Default::default(),
            o_last: Default::default(),
            o_keep: Default::default(),
            o_data: Default::default(),
            q0_data: Default::default(),
            q1_data: Default::default(),
            q2_data: Default::default(),
            q3_data: Default::default(),
            q0_keep: Default::default(),
            q1_keep: Default::default(),
            q2_keep: Default::default(),
            q3_keep: Default::default(),
            q0_last: Default::default(),
            q1_last: Default::default(),
            q2_last: Default::default(),
            q3_last: Default::default(),
            qh: Default::default(),
            qt: Default::default(),
            qn: Default::default(),
            c_frames: Default::default(),
            c_kept: Default::default(),
            c_refused: Default::default(),
            c_too_long: Default::default(),
            on: Default::default(),
            s_rdy: Default::default(),
            s_hs: Default::default(),
            v_hs: Default::default(),
            m_v: Default::default(),
            pop: Default::default(),
            occ: Default::default(),
            held: Default::default(),
            have: Default::default(),
            d_lastp: Default::default(),
            d_end: Default::default(),
            w_lastp: Default::default(),
            d_keep: Default::default(),
            d_over: Default::default(),
            h_keep: Default::default(),
            q_room: Default::default(),
            skip: Default::default(),
            issue: Default::default(),
            rp1: Default::default(),
            i_last: Default::default(),
            retire: Default::default(),
            nr_n: Default::default(),
            nr1: Default::default(),
            vk_bit: Default::default(),
            d_word: Default::default(),
            d_shk: Default::default(),
            d_sho: Default::default(),
            w_word: Default::default(),
            fits: Default::default(),
            w_en: Default::default(),
            wp_n: Default::default(),
            fo_n: Default::default(),
            ends: Default::default(),
            ne_n: Default::default(),
            k_depth: Constant::new((1u64 << AW).to_bits()),
            k_nf: Constant::new((NF as u64).to_bits()),
            k_depth_m1: Constant::new(((1u64 << AW) - 1).to_bits()),
            k_nf_m1: Constant::new((NF as u64 - 1).to_bits()),
            k_maxb: Constant::new(u64::from(cfg.max_beats).to_bits()),
            k_four: Constant::new(4u64.to_bits()),
            k_ones: Constant::new(u64::from(cfg.keep_mask()).to_bits()),
            k_sh_keep: Constant::new((A1 as u64).to_bits()),
            k_sh_over: Constant::new(((A1 + B) as u64).to_bits()),
            k_za: Constant::new(0u64.to_bits()),
            k_one_a: Constant::new(1u64.to_bits()),
            k_one_f: Constant::new(1u64.to_bits()),
            k_one_fl: Constant::new(1u64.to_bits()),
            k_one_nf: Constant::new(1u64.to_bits()),
            k_zf: Constant::new(0u64.to_bits()),
            k_z2: Constant::new(0u64.to_bits()),
            k_z3: Constant::new(0u64.to_bits()),
            k_z32: Constant::new(0u64.to_bits()),
        })
    }
}

impl<
        const D: usize,
        const B: usize,
        const AW: usize,
        const A1: usize,
        const FL: usize,
        const F1: usize,
        const NF: usize,
        const DW: usize,
    > Logic for Fbuf<D, B, AW, A1, FL, F1, NF, DW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, retired, wp, rp, fb, fo, space_n, ne, nj, nr, vk, r_v, r_last, r_keep,
            o_v, o_last, o_keep, o_data, q0_data, q1_data, q2_data, q3_data, q0_keep, q1_keep,
            q2_keep, q3_keep, q0_last, q1_last, q2_last, q3_last, qh, qt, qn, c_frames, c_kept,
            c_refused, c_too_long
        );
        self.mem.read_clock.next = self.clock.val();
        self.mem.write_clock.next = self.clock.val();
        self.dsc_a.clock.next = self.clock.val();
        self.dsc_b.clock.next = self.clock.val();
        // ---- handshakes
        self.on.next = !self.rst.val();
        self.s_rdy.next = self.on.val() & !self.space_n.q.val();
        self.s_axis_tready.next = self.s_rdy.val();
        self.s_hs.next = self.s_axis_tvalid.val() & self.s_rdy.val();
        self.s_vrd_ready.next = self.on.val() & (self.ne.q.val() != self.nj.q.val());
        self.v_hs.next =
            self.s_vrd_valid.val() & self.on.val() & (self.ne.q.val() != self.nj.q.val());
        self.m_v.next = self.on.val() & self.qn.q.val().any();
        self.pop.next = self.m_v.val() & self.m_axis_tready.val();
        // ---- read side: the head frame's descriptor decides
        self.have.next = self.on.val() & (self.nr.q.val() != self.nj.q.val());
        // the head's descriptor: both copies of the ring are read every cycle from registers,
        // `dsc_a` at `nr`, `dsc_b` at `nr + 1`; a retirement in the previous cycle (`retired`)
        // selects `dsc_b`'s word, which is then the word at the new `nr`. So no decision of
        // this cycle reaches a RAM address.
        self.d_word.next = self.dsc_a.read_data.val();
        if self.retired.q.val() {
            self.d_word.next = self.dsc_b.read_data.val();
        }
        self.d_lastp.next = self.d_word.val().get_bits::<A1>(0);
        self.d_end.next = self.d_lastp.val() + self.k_one_a.val();
        self.d_shk.next = self.d_word.val() >> self.k_sh_keep.val();
        self.d_keep.next = self.d_shk.val().get_bits::<B>(0);
        self.d_sho.next = self.d_word.val() >> self.k_sh_over.val();
        self.d_over.next = self.d_sho.val().get_bit(0);
        self.h_keep.next = self
            .vk
            .q
            .val()
            .get_bit(self.nr.q.val().get_bits::<FL>(0).index())
            & !self.d_over.val();
        self.q_room.next = (self.qn.q.val()
            + bit_cast::<3, 1>(self.r_v.q.val().into())
            + bit_cast::<3, 1>(self.o_v.q.val().into()))
            < self.k_four.val();
        self.skip.next = self.have.val() & !self.h_keep.val();
        self.issue.next = self.have.val() & self.h_keep.val() & self.q_room.val();
        self.rp1.next = self.rp.q.val() + self.k_one_a.val();
        self.i_last.next = self.rp.q.val() == self.d_lastp.val();
        self.retire.next = self.skip.val() | (self.issue.val() & self.i_last.val());
        self.rp.d.next = self.rp.q.val();
        if self.skip.val() {
            self.rp.d.next = self.d_end.val();
        }
        if self.issue.val() {
            self.rp.d.next = self.rp1.val();
        }
        self.nr_n.next = self.nr.q.val();
        if self.retire.val() {
            self.nr_n.next = self.nr.q.val() + self.k_one_f.val();
        }
        if self.rst.val() {
            self.nr_n.next = self.k_zf.val();
        }
        self.nr.d.next = self.nr_n.val();
        self.retired.d.next = self.retire.val() & !self.rst.val();
        self.nr1.next = self.nr.q.val().get_bits::<FL>(0) + self.k_one_fl.val();
        self.dsc_a.read_address.next = self.nr.q.val().get_bits::<FL>(0);
        self.dsc_b.read_address.next = self.nr1.val();
        self.mem.read_address.next = self.rp.q.val().get_bits::<AW>(0);
        self.r_v.d.next = self.issue.val();
        self.r_last.d.next = self.i_last.val();
        self.r_keep.d.next = self.k_ones.val();
        if self.i_last.val() {
            self.r_keep.d.next = self.d_keep.val();
        }
        // ---- output queue: 4 entries, head qh, tail qt, count qn
        self.m_axis_tvalid.next = self.m_v.val();
        self.m_axis_tdata.next = self.q0_data.q.val();
        self.m_axis_tkeep.next = self.q0_keep.q.val();
        self.m_axis_tlast.next = self.q0_last.q.val();
        match self.qh.q.val().index() {
            1 => {
                self.m_axis_tdata.next = self.q1_data.q.val();
                self.m_axis_tkeep.next = self.q1_keep.q.val();
                self.m_axis_tlast.next = self.q1_last.q.val();
            }
            2 => {
                self.m_axis_tdata.next = self.q2_data.q.val();
                self.m_axis_tkeep.next = self.q2_keep.q.val();
                self.m_axis_tlast.next = self.q2_last.q.val();
            }
            3 => {
                self.m_axis_tdata.next = self.q3_data.q.val();
                self.m_axis_tkeep.next = self.q3_keep.q.val();
                self.m_axis_tlast.next = self.q3_last.q.val();
            }
            _ => {}
        }
        // the RAM's word into its output register (DP16KD OUTREG), then into the queue
        self.o_data.d.next = self.mem.read_data.val();
        self.o_v.d.next = self.r_v.q.val();
        self.o_last.d.next = self.r_last.q.val();
        self.o_keep.d.next = self.r_keep.q.val();
        if self.o_v.q.val() {
            match self.qt.q.val().index() {
                0 => {
                    self.q0_data.d.next = self.o_data.q.val();
                    self.q0_keep.d.next = self.o_keep.q.val();
                    self.q0_last.d.next = self.o_last.q.val();
                }
                1 => {
                    self.q1_data.d.next = self.o_data.q.val();
                    self.q1_keep.d.next = self.o_keep.q.val();
                    self.q1_last.d.next = self.o_last.q.val();
                }
                2 => {
                    self.q2_data.d.next = self.o_data.q.val();
                    self.q2_keep.d.next = self.o_keep.q.val();
                    self.q2_last.d.next = self.o_last.q.val();
                }
                _ => {
                    self.q3_data.d.next = self.o_data.q.val();
                    self.q3_keep.d.next = self.o_keep.q.val();
                    self.q3_last.d.next = self.o_last.q.val();
                }
            }
        }
        self.qt.d.next = self.qt.q.val() + bit_cast::<2, 1>(self.o_v.q.val().into());
        self.qh.d.next = self.qh.q.val() + bit_cast::<2, 1>(self.pop.val().into());
        self.qn.d.next = self.qn.q.val() + bit_cast::<3, 1>(self.o_v.q.val().into())
            - bit_cast::<3, 1>(self.pop.val().into());
        // ---- write side
        self.fits.next = self.fb.q.val() < self.k_maxb.val();
        self.w_en.next = self.s_hs.val() & self.fits.val();
        self.mem.write_enable.next = self.w_en.val();
        self.mem.write_address.next = self.wp.q.val().get_bits::<AW>(0);
        self.mem.write_data.next = self.s_axis_tdata.val();
        self.wp_n.next = self.wp.q.val() + bit_cast::<A1, 1>(self.w_en.val().into());
        self.wp.d.next = self.wp_n.val();
        self.fo_n.next = self.fo.q.val() | (self.s_hs.val() & !self.fits.val());
        self.fb.d.next = self.fb.q.val() + bit_cast::<A1, 1>(self.w_en.val().into());
        self.fo.d.next = self.fo_n.val();
        self.ends.next = self.s_hs.val() & self.s_axis_tlast.val();
        self.dsc_a.write_enable.next = self.ends.val();
        self.dsc_a.write_address.next = self.ne.q.val().get_bits::<FL>(0);
        self.dsc_b.write_enable.next = self.ends.val();
        self.dsc_b.write_address.next = self.ne.q.val().get_bits::<FL>(0);
        // the descriptor holds the pointer of the frame's last stored beat (end - 1), so the
        // read side finds a frame's last beat by an equality, not an add in its loop
        // (at `s_axis_tlast` `w_en` = `fits`: the pointer before the beat if it is stored, the one
        // before that if not, both from registers and selected at the end)
        self.w_lastp.next = self.wp.q.val() - self.k_one_a.val();
        if self.fits.val() {
            self.w_lastp.next = self.wp.q.val();
        }
        self.w_word.next = bit_cast::<DW, A1>(self.w_lastp.val())
            | (bit_cast::<DW, B>(self.s_axis_tkeep.val()) << self.k_sh_keep.val())
            | (bit_cast::<DW, 1>(self.fo_n.val().into()) << self.k_sh_over.val());
        self.dsc_a.write_data.next = self.w_word.val();
        self.dsc_b.write_data.next = self.w_word.val();
        self.ne_n.next = self.ne.q.val() + bit_cast::<F1, 1>(self.ends.val().into());
        self.ne.d.next = self.ne_n.val();
        if self.ends.val() {
            self.fb.d.next = self.k_za.val();
            self.fo.d.next = false;
        }
        // room for a beat and a descriptor next cycle, against the read side's pointers at
        // the start of this one (what it frees now is seen a cycle later)
        // (the differences from the registers, the cycle's write as a select at the end)
        self.occ.next = self.wp.q.val() - self.rp.q.val();
        self.held.next = self.ne.q.val() - self.nr.q.val();
        self.space_n.d.next = (self.occ.val() == self.k_depth.val())
            | (self.w_en.val() & (self.occ.val() == self.k_depth_m1.val()))
            | (self.held.val() == self.k_nf.val())
            | (self.ends.val() & (self.held.val() == self.k_nf_m1.val()));
        // ---- verdicts
        self.vk_bit.next = self.k_one_nf.val() << self.nj.q.val().get_bits::<FL>(0);
        if self.v_hs.val() {
            if self.s_vrd_keep.val() {
                self.vk.d.next = self.vk.q.val() | self.vk_bit.val();
            } else {
                self.vk.d.next = self.vk.q.val() & !self.vk_bit.val();
            }
            self.nj.d.next = self.nj.q.val() + self.k_one_f.val();
        }
        // ---- counters
        if self.ends.val() {
            self.c_frames.d.next = self.c_frames.q.val() + 1;
        }
        if self.ends.val() & self.fo_n.val() {
            self.c_too_long.d.next = self.c_too_long.q.val() + 1;
        }
        if self.pop.val() & self.m_axis_tlast.val() {
            self.c_kept.d.next = self.c_kept.q.val() + 1;
        }
        if self.v_hs.val() & !self.s_vrd_keep.val() {
            self.c_refused.d.next = self.c_refused.q.val() + 1;
        }
        self.stat_frames.next = self.c_frames.q.val();
        self.stat_kept.next = self.c_kept.q.val();
        self.stat_refused.next = self.c_refused.q.val();
        self.stat_too_long.next = self.c_too_long.q.val();
        // ---- reset: control state only
        if self.rst.val() {
            self.wp.d.next = self.k_za.val();
            self.rp.d.next = self.k_za.val();
            self.fb.d.next = self.k_za.val();
            self.fo.d.next = false;
            self.space_n.d.next = false;
            self.ne.d.next = self.k_zf.val();
            self.nj.d.next = self.k_zf.val();
            self.r_v.d.next = false;
            self.o_v.d.next = false;
            self.qh.d.next = self.k_z2.val();
            self.qt.d.next = self.k_z2.val();
            self.qn.d.next = self.k_z3.val();
            self.c_frames.d.next = self.k_z32.val();
            self.c_kept.d.next = self.k_z32.val();
            self.c_refused.d.next = self.k_z32.val();
            self.c_too_long.d.next = self.k_z32.val();
        }
    }
}

/// The buffer's type for each supported size (`with_fbuf!(cfg, F => ...)` binds `F`).
#[macro_export]
macro_rules! with_fbuf {
    ($cfg:expr, $t:ident => $body:expr) => {{
        let c: &mrnic_model::wire::fbuf::FbufConfig = $cfg;
        match (c.beat_bytes, c.depth_log2, c.frames_log2) {
            (8, 11, 4) => {
                type $t = $crate::fbuf::Fbuf<64, 8, 11, 12, 4, 5, 16, 21>;
                Ok($body)
            }
            (b, d, f) => Err($crate::tops::GenError::Config(mrnic_model::config::ConfigError::invalid(
                "FbufConfig",
                format!("no generated size for beat_bytes {b}, depth_log2 {d}, frames_log2 {f} (generated: 8/11/4; add the row to with_fbuf!)"),
            ))),
        }
    }};
}
