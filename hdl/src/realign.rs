//! # Payload realigner (`mrnic_realign`)
//!
//! **Purpose.** Between the frame buffer (`mrnic_fbuf`, whole kept frames) and the DMA
//! placement unit's data input (`mrnic_placement`'s `d`, lane-aligned beats): for each frame
//! one command says where its payload is (`off`, `len`) and the lane of the host address it
//! goes to (`lane` = address mod B); the block drops the frame's headers and trailer and
//! shifts the payload so that each byte sits in the lane of its host address (issue 12,
//! `docs/blocks/realign.md`). Semantics: the model cycle shell
//! `mrnic_model::wire::realign::RealignShell`, diffed cycle by cycle; its function is
//! `realign()`.
//!
//! **Ports** (D = 8·B data bits).
//! - global: `clock`, `rst` (synchronous).
//! - command in: `s_cmd_valid`/`s_cmd_ready`, `s_cmd_off` (OW: the payload's first byte in
//!   the frame), `s_cmd_len` (L: payload bytes, 0 = discard the frame), `s_cmd_lane` (BL =
//!   log2 B); `s_cmd_ready` = `!pend_v`, a register.
//! - frame in: `s_axis_tvalid`/`s_axis_tready`, `s_axis_tdata` (D), `s_axis_tlast` (no
//!   `tkeep`: the command gives the lengths).
//! - payload out: `m_axis_tvalid`/`m_axis_tready`, `m_axis_tdata` (D, lane i = the byte of
//!   host address beat + i), `m_axis_tlast` (the command's last beat).
//! - status: `stat_cmds` (frames finished), `stat_beats` (output beats transferred),
//!   `stat_dropped` (commands with `len == 0`), `stat_pad` (output beats emitted after
//!   their frame's `tlast`); 32-bit, wrapping.
//! - sizes: const generics `D`, `B`, `BL`, `D2` = 2·D, `OW`, `O1` = OW + 1, `QW` = OW + 1 - BL
//!   (skip counter), `L`, `L1` = L + 1, `NW` = L + 1 - BL (beat counter); checked by
//!   [`Realign::try_new`] against the model's `RealignConfig`.
//!
//! **Pipeline.** Cycle of a command transfer: its plan (`t = off + B - 1 - lane`; skip =
//! `t >> BL`, shift = `t mod B`, beats = `(len + lane + B - 1) >> BL` or 0) is computed from
//! the ports and stored in `pend` (two adders off the engine's loop). The engine loads it
//! when idle or in the cycle its frame finishes, clearing `prev`. Each engine cycle: `go` =
//! a beat (input, or zero after `tlast`) and, when an output is due, room in the output
//! register; an output beat is `({cur, prev} >> 8) >> 8·shift`, a byte-granular 8:1 mux
//! per output byte (3 LUT levels at B = 8), into the output register.
//! **Latency** 1: an output beat leaves in the cycle after the input beat that completes
//! it. **II** 1 beat per cycle in and out; frames of 2 beats or more back to back when the
//! next command waits in `pend`.
//!
//! **Combinational paths.** `m_axis_tready` -> `s_axis_tready` (the output register refills
//! in the cycle it empties) and `rst` -> every valid and ready output. None from
//! `s_axis_tvalid` or `s_cmd_valid` to a ready. The engine's loop: `a_skip` (QW bits) and
//! `a_n` (NW bits) zero tests -> `need` -> `go` -> the decrements and `fin` -> `ld`; the
//! data path (`s_axis_tdata` -> mux -> `o_data`) is not in a loop.
//!
//! **Hazards.** The command register is filled only when empty, so a load and a transfer
//! never meet in one cycle. A load in the cycle a frame finishes wins over that cycle's
//! `prev` update.
//!
//! **Reset** (`rst`): `pend_v`, `act`, `ended`, `o_v` and the counters cleared; the plan
//! registers, `prev` and the output data keep their values (data: each is written before
//! it is read again).

use mrnic_model::config::ConfigError;
use mrnic_model::wire::realign::RealignConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Realign<
    const D: usize,
    const B: usize,
    const BL: usize,
    const D2: usize,
    const OW: usize,
    const O1: usize,
    const QW: usize,
    const L: usize,
    const L1: usize,
    const NW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_cmd_valid: Signal<In, bool>,
    pub s_cmd_off: Signal<In, Bits<OW>>,
    pub s_cmd_len: Signal<In, Bits<L>>,
    pub s_cmd_lane: Signal<In, Bits<BL>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<D>>,
    pub s_axis_tlast: Signal<In, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub s_cmd_ready: Signal<Out, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tlast: Signal<Out, bool>,
    pub stat_cmds: Signal<Out, Bits<32>>,
    pub stat_beats: Signal<Out, Bits<32>>,
    pub stat_dropped: Signal<Out, Bits<32>>,
    pub stat_pad: Signal<Out, Bits<32>>,
    pend_v: DFF<bool>,
    p_skip: DFF<Bits<QW>>,
    p_shift: DFF<Bits<BL>>,
    p_n: DFF<Bits<NW>>,
    act: DFF<bool>,
    ended: DFF<bool>,
    a_skip: DFF<Bits<QW>>,
    a_shift: DFF<Bits<BL>>,
    a_n: DFF<Bits<NW>>,
    prev: DFF<Bits<D>>,
    o_v: DFF<bool>,
    o_data: DFF<Bits<D>>,
    o_last: DFF<bool>,
    c_cmds: DFF<Bits<32>>,
    c_beats: DFF<Bits<32>>,
    c_dropped: DFF<Bits<32>>,
    c_pad: DFF<Bits<32>>,
    on: Signal<Local, bool>,
    acc: Signal<Local, bool>,
    t: Signal<Local, Bits<O1>>,
    lsum: Signal<Local, Bits<L1>>,
    lsh: Signal<Local, Bits<L1>>,
    tsh: Signal<Local, Bits<O1>>,
    pbeats: Signal<Local, Bits<NW>>,
    len_z: Signal<Local, bool>,
    skip_z: Signal<Local, bool>,
    n_z: Signal<Local, bool>,
    n_one: Signal<Local, bool>,
    need: Signal<Local, bool>,
    ofree: Signal<Local, bool>,
    sready: Signal<Local, bool>,
    take: Signal<Local, bool>,
    go: Signal<Local, bool>,
    emit: Signal<Local, bool>,
    cur: Signal<Local, Bits<D>>,
    w: Signal<Local, Bits<D2>>,
    w1: Signal<Local, Bits<D2>>,
    sh: Signal<Local, Bits<8>>,
    w2: Signal<Local, Bits<D2>>,
    ended_n: Signal<Local, bool>,
    fin: Signal<Local, bool>,
    ld: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    k_bm1_o: Constant<Bits<O1>>,
    k_bm1_l: Constant<Bits<L1>>,
    k_bl: Constant<Bits<8>>,
    k_d: Constant<Bits<8>>,
    k_eight: Constant<Bits<8>>,
    k_three: Constant<Bits<8>>,
    k_zq: Constant<Bits<QW>>,
    k_oneq: Constant<Bits<QW>>,
    k_zn: Constant<Bits<NW>>,
    k_onen: Constant<Bits<NW>>,
    k_zl: Constant<Bits<L>>,
    k_zd: Constant<Bits<D>>,
    k_z32: Constant<Bits<32>>,
}

impl<
        const D: usize,
        const B: usize,
        const BL: usize,
        const D2: usize,
        const OW: usize,
        const O1: usize,
        const QW: usize,
        const L: usize,
        const L1: usize,
        const NW: usize,
    > Realign<D, B, BL, D2, OW, O1, QW, L, L1, NW>
{
    /// The realigner for `cfg`; refused when the const generics do not match it.
    pub fn try_new(cfg: &RealignConfig) -> Result<Self, ConfigError> {
        let b = cfg.beat_bytes as usize;
        for (f, want, got) in [
            ("D", 8 * b, D),
            ("B", b, B),
            ("BL", cfg.lane_bits() as usize, BL),
            ("D2", 16 * b, D2),
            ("OW", cfg.off_bits as usize, OW),
            ("O1", cfg.off_bits as usize + 1, O1),
            ("QW", cfg.skip_bits() as usize, QW),
            ("L", cfg.len_bits as usize, L),
            ("L1", cfg.len_bits as usize + 1, L1),
            ("NW", cfg.beats_bits() as usize, NW),
        ] {
            if want != got {
                return Err(ConfigError::invalid(format!("Realign.{f}"), format!("the generic is {got}, the configuration says {want}")));
            }
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_cmd_valid: Default::default(),
            s_cmd_off: Default::default(),
            s_cmd_len: Default::default(),
            s_cmd_lane: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tlast: Default::default(),
            m_axis_tready: Default::default(),
            s_cmd_ready: Default::default(),
            s_axis_tready: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tlast: Default::default(),
            stat_cmds: Default::default(),
            stat_beats: Default::default(),
            stat_dropped: Default::default(),
            stat_pad: Default::default(),
            pend_v: Default::default(),
            p_skip: Default::default(),
            p_shift: Default::default(),
            p_n: Default::default(),
            act: Default::default(),
            ended: Default::default(),
            a_skip: Default::default(),
            a_shift: Default::default(),
            a_n: Default::default(),
            prev: Default::default(),
            o_v: Default::default(),
            o_data: Default::default(),
            o_last: Default::default(),
            c_cmds: Default::default(),
            c_beats: Default::default(),
            c_dropped: Default::default(),
            c_pad: Default::default(),
            on: Default::default(),
            acc: Default::default(),
            t: Default::default(),
            lsum: Default::default(),
            lsh: Default::default(),
            tsh: Default::default(),
            pbeats: Default::default(),
            len_z: Default::default(),
            skip_z: Default::default(),
            n_z: Default::default(),
            n_one: Default::default(),
            need: Default::default(),
            ofree: Default::default(),
            sready: Default::default(),
            take: Default::default(),
            go: Default::default(),
            emit: Default::default(),
            cur: Default::default(),
            w: Default::default(),
            w1: Default::default(),
            sh: Default::default(),
            w2: Default::default(),
            ended_n: Default::default(),
            fin: Default::default(),
            ld: Default::default(),
            pop: Default::default(),
            k_bm1_o: Constant::new((B as u64 - 1).to_bits()),
            k_bm1_l: Constant::new((B as u64 - 1).to_bits()),
            k_bl: Constant::new((BL as u64).to_bits()),
            k_d: Constant::new((D as u64).to_bits()),
            k_eight: Constant::new(8u64.to_bits()),
            k_three: Constant::new(3u64.to_bits()),
            k_zq: Constant::new(0u64.to_bits()),
            k_oneq: Constant::new(1u64.to_bits()),
            k_zn: Constant::new(0u64.to_bits()),
            k_onen: Constant::new(1u64.to_bits()),
            k_zl: Constant::new(0u64.to_bits()),
            k_zd: Constant::new(0u64.to_bits()),
            k_z32: Constant::new(0u64.to_bits()),
        })
    }
}

impl<
        const D: usize,
        const B: usize,
        const BL: usize,
        const D2: usize,
        const OW: usize,
        const O1: usize,
        const QW: usize,
        const L: usize,
        const L1: usize,
        const NW: usize,
    > Logic for Realign<D, B, BL, D2, OW, O1, QW, L, L1, NW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, pend_v, p_skip, p_shift, p_n, act, ended, a_skip, a_shift, a_n, prev,
            o_v, o_data, o_last, c_cmds, c_beats, c_dropped, c_pad
        );
        // ---- command register: the plan computed at the transfer
        self.on.next = !self.rst.val();
        self.s_cmd_ready.next = self.on.val() & !self.pend_v.q.val();
        self.acc.next = self.s_cmd_valid.val() & self.on.val() & !self.pend_v.q.val();
        self.t.next = bit_cast::<O1, OW>(self.s_cmd_off.val()) + self.k_bm1_o.val()
            - bit_cast::<O1, BL>(self.s_cmd_lane.val());
        self.lsum.next = bit_cast::<L1, L>(self.s_cmd_len.val())
            + bit_cast::<L1, BL>(self.s_cmd_lane.val())
            + self.k_bm1_l.val();
        self.len_z.next = self.s_cmd_len.val() == self.k_zl.val();
        self.lsh.next = self.lsum.val() >> self.k_bl.val();
        self.pbeats.next = self.lsh.val().get_bits::<NW>(0);
        if self.len_z.val() {
            self.pbeats.next = self.k_zn.val();
        }
        self.tsh.next = self.t.val() >> self.k_bl.val();
        if self.acc.val() {
            self.p_skip.d.next = self.tsh.val().get_bits::<QW>(0);
            self.p_shift.d.next = self.t.val().get_bits::<BL>(0);
            self.p_n.d.next = self.pbeats.val();
        }
        // ---- engine
        self.skip_z.next = self.a_skip.q.val() == self.k_zq.val();
        self.n_z.next = self.a_n.q.val() == self.k_zn.val();
        self.n_one.next = self.a_n.q.val() == self.k_onen.val();
        self.need.next = self.skip_z.val() & !self.n_z.val();
        self.ofree.next = !self.o_v.q.val() | self.m_axis_tready.val();
        self.sready.next = self.on.val()
            & self.act.q.val()
            & !self.ended.q.val()
            & (!self.need.val() | self.ofree.val());
        self.s_axis_tready.next = self.sready.val();
        self.take.next = self.sready.val() & self.s_axis_tvalid.val();
        self.go.next = self.on.val()
            & self.act.q.val()
            & (self.ended.q.val() | self.s_axis_tvalid.val())
            & (!self.need.val() | self.ofree.val());
        self.emit.next = self.go.val() & self.need.val();
        // the beat: the input's, or zero once the frame's tlast is taken
        self.cur.next = self.s_axis_tdata.val();
        if self.ended.q.val() {
            self.cur.next = self.k_zd.val();
        }
        // {cur, prev} >> 8, then >> 8·shift: byte lane i of the output is byte shift + 1 + i
        self.w.next = (bit_cast::<D2, D>(self.cur.val()) << self.k_d.val())
            | bit_cast::<D2, D>(self.prev.q.val());
        self.w1.next = self.w.val() >> self.k_eight.val();
        self.sh.next = bit_cast::<8, BL>(self.a_shift.q.val()) << self.k_three.val();
        self.w2.next = self.w1.val() >> self.sh.val();
        if self.go.val() {
            self.prev.d.next = self.cur.val();
        }
        if self.go.val() & !self.skip_z.val() {
            self.a_skip.d.next = self.a_skip.q.val() - self.k_oneq.val();
        }
        if self.emit.val() {
            self.a_n.d.next = self.a_n.q.val() - self.k_onen.val();
            self.o_data.d.next = self.w2.val().get_bits::<D>(0);
            self.o_last.d.next = self.n_one.val();
        }
        self.ended_n.next = self.ended.q.val() | (self.take.val() & self.s_axis_tlast.val());
        self.ended.d.next = self.ended_n.val();
        // the frame finishes when, after this cycle, its tlast is taken and no beat is due
        self.fin.next = self.on.val()
            & self.act.q.val()
            & self.ended_n.val()
            & (self.n_z.val() | (self.emit.val() & self.n_one.val()));
        self.ld.next = self.on.val() & self.pend_v.q.val() & (!self.act.q.val() | self.fin.val());
        self.act.d.next = self.ld.val() | (self.act.q.val() & !self.fin.val());
        self.pend_v.d.next = (self.pend_v.q.val() & !self.ld.val()) | self.acc.val();
        if self.ld.val() {
            self.a_skip.d.next = self.p_skip.q.val();
            self.a_shift.d.next = self.p_shift.q.val();
            self.a_n.d.next = self.p_n.q.val();
            self.prev.d.next = self.k_zd.val();
            self.ended.d.next = false;
        }
        // ---- output register
        self.o_v.d.next = self.emit.val() | (self.o_v.q.val() & !self.m_axis_tready.val());
        self.pop.next = self.on.val() & self.o_v.q.val() & self.m_axis_tready.val();
        self.m_axis_tvalid.next = self.on.val() & self.o_v.q.val();
        self.m_axis_tdata.next = self.o_data.q.val();
        self.m_axis_tlast.next = self.o_last.q.val();
        // ---- counters
        if self.fin.val() {
            self.c_cmds.d.next = self.c_cmds.q.val() + 1;
        }
        if self.pop.val() {
            self.c_beats.d.next = self.c_beats.q.val() + 1;
        }
        if self.acc.val() & self.len_z.val() {
            self.c_dropped.d.next = self.c_dropped.q.val() + 1;
        }
        if self.emit.val() & self.ended.q.val() {
            self.c_pad.d.next = self.c_pad.q.val() + 1;
        }
        self.stat_cmds.next = self.c_cmds.q.val();
        self.stat_beats.next = self.c_beats.q.val();
        self.stat_dropped.next = self.c_dropped.q.val();
        self.stat_pad.next = self.c_pad.q.val();
        // ---- reset: control state only
        if self.rst.val() {
            self.pend_v.d.next = false;
            self.act.d.next = false;
            self.ended.d.next = false;
            self.o_v.d.next = false;
            self.c_cmds.d.next = self.k_z32.val();
            self.c_beats.d.next = self.k_z32.val();
            self.c_dropped.d.next = self.k_z32.val();
            self.c_pad.d.next = self.k_z32.val();
        }
    }
}

/// The realigner's type for each supported size (`with_realign!(cfg, R => ...)` binds `R`).
#[macro_export]
macro_rules! with_realign {
    ($cfg:expr, $t:ident => $body:expr) => {{
        let c: &mrnic_model::wire::realign::RealignConfig = $cfg;
        match (c.beat_bytes, c.off_bits, c.len_bits) {
            (8, 8, 16) => {
                type $t = $crate::realign::Realign<64, 8, 3, 128, 8, 9, 6, 16, 17, 14>;
                Ok($body)
            }
            (b, o, l) => Err($crate::tops::GenError::Config(mrnic_model::config::ConfigError::invalid(
                "RealignConfig",
                format!("no generated size for beat_bytes {b}, off_bits {o}, len_bits {l} (generated: 8/8/16; add the row to with_realign!)"),
            ))),
        }
    }};
}
