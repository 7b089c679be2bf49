//! # DMA placement unit, write path (`mrnic_placement`)
//!
//! **Purpose.** Turns one checked write command (address, length, and the window
//! `[base, base + wlen)` the packet was checked against by the responder's key and bounds
//! checks) into AXI4 INCR write bursts on an AXI4 write master: bursts of at most
//! `max_beats` (<= 256) beats that never cross a 4 KiB boundary, `wstrb` partial on the
//! unaligned first and last beats, and **no byte enabled outside the checked window**: the
//! bytes written are `[lo, hi) = [max(addr, base), min(addr + len, base + wlen, 2^A))`
//! (a command outside its window is clipped to it and flagged). The B responses are
//! counted; the first non-OKAY one is reported in the completion. Semantics: the model
//! cycle shell `mrnic_model::transport::placement_wr::WrShell`, diffed cycle by cycle.
//!
//! **Ports** (A address bits, L length bits, B beat bytes, D = 8 B data bits).
//! - global: `clock`, `rst` (synchronous).
//! - command stream in: `s_valid`/`s_ready`, `s_addr` (A), `s_len` (L), `s_base` (A),
//!   `s_wlen` (A), `s_tag` (8).
//! - data stream in: `d_valid`/`d_ready`, `d_data` (D): one beat per W beat, already
//!   lane-aligned (lane i is the byte of address beat + i; the realigner is upstream).
//! - AXI4 AW: `m_axi_awvalid`/`m_axi_awready`, `m_axi_awaddr` (A, B-aligned),
//!   `m_axi_awlen` (8), `m_axi_awsize` (3, = log2 B), `m_axi_awburst` (2, = INCR).
//!   (`awid`, `awcache`, `awprot`, `awlock`, `awqos` are constants to tie off at integration.)
//! - AXI4 W: `m_axi_wvalid`/`m_axi_wready`, `m_axi_wdata` (D), `m_axi_wstrb` (B), `m_axi_wlast`.
//! - AXI4 B: `m_axi_bvalid`/`m_axi_bready`, `m_axi_bresp` (2).
//! - completion stream out: `m_valid`/`m_ready`, `m_tag` (8), `m_resp` (2: first non-OKAY
//!   bresp, 0 if none), `m_clipped`, `m_bytes` (L, bytes enabled).
//! - status: `stat_cmds`, `stat_bursts`, `stat_beats`, `stat_bresp_err`, `stat_err_cmds`,
//!   `stat_clipped` (32-bit, wrapping).
//! - sizes: const generics `A`, `A1` = A + 1, `L`, `B`, `D`; `max_beats` a constant
//!   (localparam `k_maxb`), given to [`PlacementWr::try_new`].
//!
//! **FSM.** IDLE (`s_ready`) -> AW (one burst's address) -> W (its beats) -> AW ... ->
//! DRAIN (completion once every burst's B has arrived) -> IDLE. The window is computed at
//! the command's transfer in A + 1 bits (no wrap) and held in `lo`/`hi`; `cur` is the next
//! burst's start, `baddr` the current beat's aligned address, `left` its burst's beats left,
//! `ob` the bursts whose B is outstanding.
//!
//! **Latency** 4 for a one-beat write with the B response in the cycle after its W beat
//! (`WR_LATENCY`); 1 for an empty command. **II**: one command at a time (the next is
//! accepted in the cycle after the completion's transfer); per burst one AW cycle, then one
//! cycle per beat: a burst of n beats takes n + 1 cycles with every ready high.
//!
//! **Combinational paths.** `d_valid -> m_axi_wvalid`, `m_axi_wready -> d_ready`,
//! `d_data -> m_axi_wdata` (the data passes through); `rst` -> every valid and ready
//! output (all low during `rst`). Every other output is a function of registers only. The
//! burst length needs no A + 1 bit arithmetic in series: the beats to `hi` are a 9-bit
//! difference of the beat indices plus two equalities of their upper parts (one against an
//! incrementer beside it), then two 13-bit minimums; the next `cur` is a 13-bit add inside
//! the 4 KiB page and a select of the page or the next page (both prepared from `cur`).
//! Until 2026-12-04 this was the worst path (five 65-bit carry chains in series, 41.5 MHz
//! on ECP5).
//!
//! **Hazards.** None: one command at a time, no state kept across commands but the
//! counters. The AXI rules the unit relies on from the slave: a B only after its burst's
//! last W (the unit accepts a B whenever one is outstanding).
//!
//! **Reset** (`rst`): IDLE, `ob` 0, counters 0; a burst in flight is forgotten (reset the
//! AXI slave with it).

use mrnic_model::config::ConfigError;
use mrnic_model::transport::placement_wr::WrConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PlacementWr<const A: usize, const A1: usize, const L: usize, const B: usize, const D: usize> {
    // ---- global
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    // ---- command stream
    pub s_valid: Signal<In, bool>,
    pub s_ready: Signal<Out, bool>,
    pub s_addr: Signal<In, Bits<A>>,
    pub s_len: Signal<In, Bits<L>>,
    pub s_base: Signal<In, Bits<A>>,
    pub s_wlen: Signal<In, Bits<A>>,
    pub s_tag: Signal<In, Bits<8>>,
    // ---- data stream
    pub d_valid: Signal<In, bool>,
    pub d_ready: Signal<Out, bool>,
    pub d_data: Signal<In, Bits<D>>,
    // ---- AXI4 AW
    pub m_axi_awvalid: Signal<Out, bool>,
    pub m_axi_awready: Signal<In, bool>,
    pub m_axi_awaddr: Signal<Out, Bits<A>>,
    pub m_axi_awlen: Signal<Out, Bits<8>>,
    pub m_axi_awsize: Signal<Out, Bits<3>>,
    pub m_axi_awburst: Signal<Out, Bits<2>>,
    // ---- AXI4 W
    pub m_axi_wvalid: Signal<Out, bool>,
    pub m_axi_wready: Signal<In, bool>,
    pub m_axi_wdata: Signal<Out, Bits<D>>,
    pub m_axi_wstrb: Signal<Out, Bits<B>>,
    pub m_axi_wlast: Signal<Out, bool>,
    // ---- AXI4 B
    pub m_axi_bvalid: Signal<In, bool>,
    pub m_axi_bready: Signal<Out, bool>,
    pub m_axi_bresp: Signal<In, Bits<2>>,
    // ---- completion stream
    pub m_valid: Signal<Out, bool>,
    pub m_ready: Signal<In, bool>,
    pub m_tag: Signal<Out, Bits<8>>,
    pub m_resp: Signal<Out, Bits<2>>,
    pub m_clipped: Signal<Out, bool>,
    pub m_bytes: Signal<Out, Bits<L>>,
    // ---- status
    pub stat_cmds: Signal<Out, Bits<32>>,
    pub stat_bursts: Signal<Out, Bits<32>>,
    pub stat_beats: Signal<Out, Bits<32>>,
    pub stat_bresp_err: Signal<Out, Bits<32>>,
    pub stat_err_cmds: Signal<Out, Bits<32>>,
    pub stat_clipped: Signal<Out, Bits<32>>,
    // ---- registers
    st: DFF<Bits<2>>,
    tag: DFF<Bits<8>>,
    lo: DFF<Bits<A1>>,
    hi: DFF<Bits<A1>>,
    cur: DFF<Bits<A1>>,
    baddr: DFF<Bits<A1>>,
    left: DFF<Bits<9>>,
    ob: DFF<Bits<32>>,
    resp: DFF<Bits<2>>,
    bytes: DFF<Bits<L>>,
    clipped: DFF<bool>,
    c_cmds: DFF<Bits<32>>,
    c_bursts: DFF<Bits<32>>,
    c_beats: DFF<Bits<32>>,
    c_bresp_err: DFF<Bits<32>>,
    c_err_cmds: DFF<Bits<32>>,
    c_clipped: DFF<Bits<32>>,
    // ---- command window (combinational, at the transfer)
    in_addr: Signal<Local, Bits<A1>>,
    in_end: Signal<Local, Bits<A1>>,
    in_base: Signal<Local, Bits<A1>>,
    in_wend: Signal<Local, Bits<A1>>,
    in_lo: Signal<Local, Bits<A1>>,
    in_hi: Signal<Local, Bits<A1>>,
    in_diff: Signal<Local, Bits<L>>,
    in_bytes: Signal<Local, Bits<L>>,
    in_some: Signal<Local, bool>,
    // the window's candidates, compared in parallel (hi: end e, window end w or 2^A; lo:
    // addr or base)
    lo_a: Signal<Local, bool>,
    hi_w: Signal<Local, bool>,
    hi_t: Signal<Local, bool>,
    e_top: Signal<Local, bool>,
    w_top: Signal<Local, bool>,
    e_gt_b: Signal<Local, bool>,
    w_gt_a: Signal<Local, bool>,
    len_nz: Signal<Local, bool>,
    wlen_nz: Signal<Local, bool>,
    a_l: Signal<Local, Bits<L>>,
    b_l: Signal<Local, Bits<L>>,
    e_l: Signal<Local, Bits<L>>,
    w_l: Signal<Local, Bits<L>>,
    d_eb: Signal<Local, Bits<L>>,
    d_wa: Signal<Local, Bits<L>>,
    d_ta: Signal<Local, Bits<L>>,
    d_tb: Signal<Local, Bits<L>>,
    // ---- the burst of `cur`
    ab: Signal<Local, Bits<A1>>,
    hb: Signal<Local, Bits<A1>>,
    cb: Signal<Local, Bits<A1>>,
    hu: Signal<Local, Bits<A1>>,
    cu: Signal<Local, Bits<A1>>,
    cu1: Signal<Local, Bits<A1>>,
    e0: Signal<Local, bool>,
    e1: Signal<Local, bool>,
    tail: Signal<Local, bool>,
    hb9: Signal<Local, Bits<9>>,
    cb9: Signal<Local, Bits<9>>,
    sl: Signal<Local, Bits<11>>,
    sl0: Signal<Local, Bits<11>>,
    ab13: Signal<Local, Bits<13>>,
    n_left: Signal<Local, Bits<13>>,
    n_page: Signal<Local, Bits<13>>,
    n: Signal<Local, Bits<13>>,
    n_m1: Signal<Local, Bits<8>>,
    nx: Signal<Local, Bits<13>>,
    nx12: Signal<Local, Bits<12>>,
    pg: Signal<Local, Bits<A1>>,
    pg1: Signal<Local, Bits<A1>>,
    cur_nx: Signal<Local, Bits<A1>>,
    // ---- the beat of `baddr`
    lane: Signal<Local, Bits<A1>>,
    t: Signal<Local, bool>,
    strb: Signal<Local, Bits<B>>,
    // ---- handshakes
    on: Signal<Local, bool>,
    aw_v: Signal<Local, bool>,
    w_in: Signal<Local, bool>,
    w_hs: Signal<Local, bool>,
    b_rdy: Signal<Local, bool>,
    b_hs: Signal<Local, bool>,
    m_v: Signal<Local, bool>,
    // ---- constants
    k_idle: Constant<Bits<2>>,
    k_aw: Constant<Bits<2>>,
    k_w: Constant<Bits<2>>,
    k_drain: Constant<Bits<2>>,
    k_top: Constant<Bits<A1>>,
    k_below: Constant<Bits<A1>>,
    k_align: Constant<Bits<A1>>,
    k_page: Constant<Bits<A1>>,
    k_npmask: Constant<Bits<A1>>,
    k_bmask: Constant<Bits<A1>>,
    k_zero_a1: Constant<Bits<A1>>,
    k_zero_a: Constant<Bits<A>>,
    k_page13: Constant<Bits<13>>,
    k_pmask13: Constant<Bits<13>>,
    k_maxb: Constant<Bits<13>>,
    k_big: Constant<Bits<13>>,
    k_512: Constant<Bits<11>>,
    k_nine: Constant<Bits<8>>,
    k_lg: Constant<Bits<8>>,
    k_one: Constant<Bits<A1>>,
    k_one8: Constant<Bits<8>>,
    k_zero_l: Constant<Bits<L>>,
    k_zero_b: Constant<Bits<B>>,
    k_one9: Constant<Bits<9>>,
    k_zero32: Constant<Bits<32>>,
    k_zero2: Constant<Bits<2>>,
    k_size: Constant<Bits<3>>,
    k_incr: Constant<Bits<2>>,
}

impl<const A: usize, const A1: usize, const L: usize, const B: usize, const D: usize> PlacementWr<A, A1, L, B, D> {
    /// The unit for `cfg`; refused when the const generics do not match it
    /// (`A` = addr_bits, `A1` = A + 1, `L` = len_bits, `B` = beat_bytes, `D` = 8 B).
    pub fn try_new(cfg: &WrConfig) -> Result<Self, ConfigError> {
        let mismatch = |f: &str, want: usize, got: usize| Err(ConfigError::invalid(format!("PlacementWr.{f}"), format!("the generic is {got}, the configuration says {want}")));
        if A != cfg.addr_bits as usize {
            return mismatch("A", cfg.addr_bits as usize, A);
        }
        if A1 != A + 1 {
            return mismatch("A1", A + 1, A1);
        }
        if L != cfg.len_bits as usize {
            return mismatch("L", cfg.len_bits as usize, L);
        }
        if B != cfg.beat_bytes as usize {
            return mismatch("B", cfg.beat_bytes as usize, B);
        }
        if D != 8 * B {
            return mismatch("D", 8 * B, D);
        }
        let c = |v: u64| Constant::new(Bits::<A1>::from(v));
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_addr: Default::default(),
            s_len: Default::default(),
            s_base: Default::default(),
            s_wlen: Default::default(),
            s_tag: Default::default(),
            d_valid: Default::default(),
            d_ready: Default::default(),
            d_data: Default::default(),
            m_axi_awvalid: Default::default(),
            m_axi_awready: Default::default(),
            m_axi_awaddr: Default::default(),
            m_axi_awlen: Default::default(),
            m_axi_awsize: Default::default(),
            m_axi_awburst: Default::default(),
            m_axi_wvalid: Default::default(),
            m_axi_wready: Default::default(),
            m_axi_wdata: Default::default(),
            m_axi_wstrb: Default::default(),
            m_axi_wlast: Default::default(),
            m_axi_bvalid: Default::default(),
            m_axi_bready: Default::default(),
            m_axi_bresp: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_tag: Default::default(),
            m_resp: Default::default(),
            m_clipped: Default::default(),
            m_bytes: Default::default(),
            stat_cmds: Default::default(),
            stat_bursts: Default::default(),
            stat_beats: Default::default(),
            stat_bresp_err: Default::default(),
            stat_err_cmds: Default::default(),
            stat_clipped: Default::default(),
            st: Default::default(),
            tag: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            cur: Default::default(),
            baddr: Default::default(),
            left: Default::default(),
            ob: Default::default(),
            resp: Default::default(),
            bytes: Default::default(),
            clipped: Default::default(),
            c_cmds: Default::default(),
            c_bursts: Default::default(),
            c_beats: Default::default(),
            c_bresp_err: Default::default(),
            c_err_cmds: Default::default(),
            c_clipped: Default::default(),
            in_addr: Default::default(),
            in_end: Default::default(),
            in_base: Default::default(),
            in_wend: Default::default(),
            in_lo: Default::default(),
            in_hi: Default::default(),
            in_diff: Default::default(),
            in_bytes: Default::default(),
            in_some: Default::default(),
            lo_a: Default::default(),
            hi_w: Default::default(),
            hi_t: Default::default(),
            e_top: Default::default(),
            w_top: Default::default(),
            e_gt_b: Default::default(),
            w_gt_a: Default::default(),
            len_nz: Default::default(),
            wlen_nz: Default::default(),
            a_l: Default::default(),
            b_l: Default::default(),
            e_l: Default::default(),
            w_l: Default::default(),
            d_eb: Default::default(),
            d_wa: Default::default(),
            d_ta: Default::default(),
            d_tb: Default::default(),
            ab: Default::default(),
            hb: Default::default(),
            cb: Default::default(),
            hu: Default::default(),
            cu: Default::default(),
            cu1: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            tail: Default::default(),
            hb9: Default::default(),
            cb9: Default::default(),
            sl: Default::default(),
            sl0: Default::default(),
            ab13: Default::default(),
            n_left: Default::default(),
            n_page: Default::default(),
            n: Default::default(),
            n_m1: Default::default(),
            nx: Default::default(),
            nx12: Default::default(),
            pg: Default::default(),
            pg1: Default::default(),
            cur_nx: Default::default(),
            lane: Default::default(),
            t: Default::default(),
            strb: Default::default(),
            on: Default::default(),
            aw_v: Default::default(),
            w_in: Default::default(),
            w_hs: Default::default(),
            b_rdy: Default::default(),
            b_hs: Default::default(),
            m_v: Default::default(),
            k_idle: Constant::new(0u64.into()),
            k_aw: Constant::new(1u64.into()),
            k_w: Constant::new(2u64.into()),
            k_drain: Constant::new(3u64.into()),
            k_top: Constant::new(Bits::<A1>::default().replace_bit(A, true)),
            k_below: Constant::new(!Bits::<A1>::default().replace_bit(A, true)),
            k_align: Constant::new(!Bits::<A1>::from(B as u64 - 1)),
            k_page: c(4096),
            k_npmask: Constant::new(!Bits::<A1>::from(4095u64)),
            k_bmask: c(B as u64 - 1),
            k_zero_a1: c(0),
            k_zero_a: Constant::new(0u64.into()),
            k_page13: Constant::new(4096u64.into()),
            k_pmask13: Constant::new(4095u64.into()),
            k_maxb: Constant::new(u64::from(cfg.max_beats).into()),
            k_big: Constant::new(1023u64.into()),
            k_512: Constant::new(512u64.into()),
            k_nine: Constant::new(9u64.into()),
            k_lg: Constant::new(u64::from(cfg.size()).into()),
            k_one: c(1),
            k_one8: Constant::new(1u64.into()),
            k_zero_l: Constant::new(0u64.into()),
            k_zero_b: Constant::new(0u64.into()),
            k_one9: Constant::new(1u64.into()),
            k_zero32: Constant::new(0u64.into()),
            k_zero2: Constant::new(0u64.into()),
            k_size: Constant::new(u64::from(cfg.size()).into()),
            k_incr: Constant::new(1u64.into()),
        })
    }
}

impl<const A: usize, const A1: usize, const L: usize, const B: usize, const D: usize> Logic for PlacementWr<A, A1, L, B, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, tag, lo, hi, cur, baddr, left, ob, resp, bytes, clipped, c_cmds, c_bursts, c_beats, c_bresp_err, c_err_cmds, c_clipped);
        // ---- the command's window, in A + 1 bits (nothing wraps)
        self.in_addr.next = bit_cast::<A1, A>(self.s_addr.val());
        self.in_base.next = bit_cast::<A1, A>(self.s_base.val());
        self.in_end.next = self.in_addr.val() + bit_cast::<A1, L>(self.s_len.val());
        self.in_wend.next = self.in_base.val() + bit_cast::<A1, A>(self.s_wlen.val());
        // lo = max(addr, base), hi = min(e, w, 2^A): every compare the selections and
        // `in_some` need is taken in parallel from the inputs and the two sums (at most an
        // add and a compare in series), then selected. x > 2^A is bit A and a non-zero rest
        // (both sums are below 2^(A+1)); e > addr is len != 0, w > base is wlen != 0, and
        // 2^A is above both addr and base.
        self.lo_a.next = self.in_addr.val() > self.in_base.val();
        self.hi_w.next = self.in_wend.val() < self.in_end.val();
        self.e_top.next = ((self.in_end.val() & self.k_top.val()) != self.k_zero_a1.val()) & ((self.in_end.val() & self.k_below.val()) != self.k_zero_a1.val());
        self.w_top.next = ((self.in_wend.val() & self.k_top.val()) != self.k_zero_a1.val()) & ((self.in_wend.val() & self.k_below.val()) != self.k_zero_a1.val());
        self.hi_t.next = self.e_top.val();
        if self.hi_w.val() {
            self.hi_t.next = self.w_top.val();
        }
        self.in_lo.next = self.in_base.val();
        if self.lo_a.val() {
            self.in_lo.next = self.in_addr.val();
        }
        self.in_hi.next = self.in_end.val();
        if self.hi_w.val() {
            self.in_hi.next = self.in_wend.val();
        }
        if self.hi_t.val() {
            self.in_hi.next = self.k_top.val();
        }
        self.e_gt_b.next = self.in_end.val() > self.in_base.val();
        self.w_gt_a.next = self.in_wend.val() > self.in_addr.val();
        self.len_nz.next = self.s_len.val() != self.k_zero_l.val();
        self.wlen_nz.next = self.s_wlen.val() != self.k_zero_a.val();
        self.in_some.next = true;
        if !self.hi_t.val() {
            if self.hi_w.val() {
                self.in_some.next = self.wlen_nz.val();
                if self.lo_a.val() {
                    self.in_some.next = self.w_gt_a.val();
                }
            } else {
                self.in_some.next = self.e_gt_b.val();
                if self.lo_a.val() {
                    self.in_some.next = self.len_nz.val();
                }
            }
        }
        // bytes < 2^L: the low L bits of the difference are the difference; each operand's
        // low L bits are selected by the same flags (2^A's are zero, L <= A)
        self.a_l.next = self.s_addr.val().get_bits::<L>(0);
        self.b_l.next = self.s_base.val().get_bits::<L>(0);
        self.e_l.next = self.in_end.val().get_bits::<L>(0);
        self.w_l.next = self.in_wend.val().get_bits::<L>(0);
        self.d_eb.next = self.e_l.val() - self.b_l.val();
        self.d_wa.next = self.w_l.val() - self.a_l.val();
        self.d_ta.next = self.k_zero_l.val() - self.a_l.val();
        self.d_tb.next = self.k_zero_l.val() - self.b_l.val();
        if self.hi_t.val() {
            self.in_diff.next = self.d_tb.val();
            if self.lo_a.val() {
                self.in_diff.next = self.d_ta.val();
            }
        } else if self.hi_w.val() {
            self.in_diff.next = self.s_wlen.val().get_bits::<L>(0);
            if self.lo_a.val() {
                self.in_diff.next = self.d_wa.val();
            }
        } else {
            self.in_diff.next = self.d_eb.val();
            if self.lo_a.val() {
                self.in_diff.next = self.s_len.val();
            }
        }
        self.in_bytes.next = self.k_zero_l.val();
        if self.in_some.val() {
            self.in_bytes.next = self.in_diff.val();
        }
        // ---- the burst starting at `cur`: min(beats to hi, beats to the 4 KiB page end, max)
        // Beats to hi = (hi >> lg) - (ab >> lg) + tail (tail: hi not beat-aligned), needed
        // only up to 512 (max_beats <= 256): the parts above the low 9 beat-index bits are
        // compared (equal, or hi's one more: an incrementer beside the compare, not in
        // series), the low 9 bits subtracted in 11 bits; otherwise "more than 512" (k_big).
        // Meaningful in AW, where cur < hi.
        self.ab.next = self.cur.q.val() & self.k_align.val();
        self.hb.next = self.hi.q.val() >> self.k_lg.val();
        self.cb.next = self.ab.val() >> self.k_lg.val();
        self.hu.next = self.hb.val() >> self.k_nine.val();
        self.cu.next = self.cb.val() >> self.k_nine.val();
        self.cu1.next = self.cu.val() + self.k_one.val();
        self.e0.next = self.hu.val() == self.cu.val();
        self.e1.next = self.hu.val() == self.cu1.val();
        self.tail.next = (self.hi.q.val() & self.k_bmask.val()) != self.k_zero_a1.val();
        self.hb9.next = self.hb.val().get_bits::<9>(0);
        self.cb9.next = self.cb.val().get_bits::<9>(0);
        self.sl.next = bit_cast::<11, 9>(self.hb9.val()) + self.k_512.val() - bit_cast::<11, 9>(self.cb9.val()) + bit_cast::<11, 1>(self.tail.val().into());
        self.sl0.next = self.sl.val() - self.k_512.val();
        self.n_left.next = self.k_big.val();
        if self.e0.val() {
            self.n_left.next = bit_cast::<13, 11>(self.sl0.val());
        }
        if self.e1.val() {
            self.n_left.next = bit_cast::<13, 11>(self.sl.val());
        }
        self.ab13.next = self.ab.val().get_bits::<13>(0) & self.k_pmask13.val();
        self.n_page.next = (self.k_page13.val() - self.ab13.val()) >> self.k_lg.val();
        self.n.next = self.n_left.val();
        if self.n_page.val() < self.n.val() {
            self.n.next = self.n_page.val();
        }
        if self.k_maxb.val() < self.n.val() {
            self.n.next = self.k_maxb.val();
        }
        // 1 <= n <= 256: awlen = (n mod 256) - 1 mod 256
        self.n_m1.next = self.n.val().get_bits::<8>(0) - self.k_one8.val();
        // the next burst's start ab + n B, inside the page or at its end (n B <= 4096 - the
        // offset): a 13-bit add, and the page or the next page (prepared beside it)
        self.nx.next = self.ab13.val() + (self.n.val() << self.k_lg.val());
        self.nx12.next = self.nx.val().get_bits::<12>(0);
        self.pg.next = self.ab.val() & self.k_npmask.val();
        self.pg1.next = self.pg.val() + self.k_page.val();
        self.cur_nx.next = self.pg.val() | bit_cast::<A1, 12>(self.nx12.val());
        if self.nx.val().get_bit(12) {
            self.cur_nx.next = self.pg1.val() | bit_cast::<A1, 12>(self.nx12.val());
        }
        // ---- the strobes of the beat at `baddr`: lane i iff lo <= baddr + i < hi
        self.strb.next = self.k_zero_b.val();
        self.lane.next = self.baddr.q.val();
        self.t.next = false;
        for i in 0..B {
            self.lane.next = self.baddr.q.val() | i.to_bits::<A1>();
            self.t.next = (self.lane.val() >= self.lo.q.val()) & (self.lane.val() < self.hi.q.val());
            self.strb.next = self.strb.val() | (bit_cast::<B, 1>(self.t.val().into()) << i.to_bits::<8>());
        }
        // ---- handshakes (every valid and ready is low during rst)
        self.on.next = !self.rst.val();
        self.aw_v.next = self.on.val() & (self.st.q.val() == self.k_aw.val());
        self.w_in.next = self.on.val() & (self.st.q.val() == self.k_w.val());
        self.w_hs.next = self.w_in.val() & self.d_valid.val() & self.m_axi_wready.val();
        self.b_rdy.next = self.on.val() & (self.ob.q.val() != self.k_zero32.val());
        self.b_hs.next = self.b_rdy.val() & self.m_axi_bvalid.val();
        self.m_v.next = self.on.val() & (self.st.q.val() == self.k_drain.val()) & (self.ob.q.val() == self.k_zero32.val());
        // ---- outputs
        self.s_ready.next = self.on.val() & (self.st.q.val() == self.k_idle.val());
        self.d_ready.next = self.w_in.val() & self.m_axi_wready.val();
        self.m_axi_awvalid.next = self.aw_v.val();
        self.m_axi_awaddr.next = self.ab.val().get_bits::<A>(0);
        self.m_axi_awlen.next = self.n_m1.val();
        self.m_axi_awsize.next = self.k_size.val();
        self.m_axi_awburst.next = self.k_incr.val();
        self.m_axi_wvalid.next = self.w_in.val() & self.d_valid.val();
        self.m_axi_wdata.next = self.d_data.val();
        self.m_axi_wstrb.next = self.strb.val();
        self.m_axi_wlast.next = self.left.q.val() == self.k_one9.val();
        self.m_axi_bready.next = self.b_rdy.val();
        self.m_valid.next = self.m_v.val();
        self.m_tag.next = self.tag.q.val();
        self.m_resp.next = self.resp.q.val();
        self.m_clipped.next = self.clipped.q.val();
        self.m_bytes.next = self.bytes.q.val();
        self.stat_cmds.next = self.c_cmds.q.val();
        self.stat_bursts.next = self.c_bursts.q.val();
        self.stat_beats.next = self.c_beats.q.val();
        self.stat_bresp_err.next = self.c_bresp_err.q.val();
        self.stat_err_cmds.next = self.c_err_cmds.q.val();
        self.stat_clipped.next = self.c_clipped.q.val();
        // ---- B responses, in any state
        if self.b_hs.val() {
            if self.m_axi_bresp.val() != self.k_zero2.val() {
                self.c_bresp_err.d.next = self.c_bresp_err.q.val() + 1;
                if self.resp.q.val() == self.k_zero2.val() {
                    self.resp.d.next = self.m_axi_bresp.val();
                }
            }
            if !self.aw_v.val() | !self.m_axi_awready.val() {
                self.ob.d.next = self.ob.q.val() - 1;
            }
        }
        // ---- the FSM
        if self.st.q.val() == self.k_idle.val() {
            if self.s_valid.val() {
                self.tag.d.next = self.s_tag.val();
                self.lo.d.next = self.in_lo.val();
                self.hi.d.next = self.in_hi.val();
                self.cur.d.next = self.in_lo.val();
                self.bytes.d.next = self.in_bytes.val();
                self.clipped.d.next = self.in_bytes.val() != self.s_len.val();
                self.resp.d.next = self.k_zero2.val();
                self.st.d.next = self.k_drain.val();
                if self.in_some.val() {
                    self.st.d.next = self.k_aw.val();
                }
            }
        } else if self.st.q.val() == self.k_aw.val() {
            if self.m_axi_awready.val() {
                if !self.b_hs.val() {
                    self.ob.d.next = self.ob.q.val() + 1;
                }
                self.c_bursts.d.next = self.c_bursts.q.val() + 1;
                self.baddr.d.next = self.ab.val();
                self.left.d.next = self.n.val().get_bits::<9>(0);
                self.cur.d.next = self.cur_nx.val();
                self.st.d.next = self.k_w.val();
            }
        } else if self.st.q.val() == self.k_w.val() {
            if self.w_hs.val() {
                self.c_beats.d.next = self.c_beats.q.val() + 1;
                self.baddr.d.next = self.baddr.q.val() + (self.k_one.val() << self.k_lg.val());
                self.left.d.next = self.left.q.val() - self.k_one9.val();
                if self.left.q.val() == self.k_one9.val() {
                    self.st.d.next = self.k_aw.val();
                    if self.cur.q.val() >= self.hi.q.val() {
                        self.st.d.next = self.k_drain.val();
                    }
                }
            }
        } else if self.m_v.val() & self.m_ready.val() {
            self.c_cmds.d.next = self.c_cmds.q.val() + 1;
            if self.resp.q.val() != self.k_zero2.val() {
                self.c_err_cmds.d.next = self.c_err_cmds.q.val() + 1;
            }
            if self.clipped.q.val() {
                self.c_clipped.d.next = self.c_clipped.q.val() + 1;
            }
            self.st.d.next = self.k_idle.val();
        }
        if self.rst.val() {
            self.st.d.next = self.k_idle.val();
            self.ob.d.next = self.k_zero32.val();
            self.c_cmds.d.next = self.k_zero32.val();
            self.c_bursts.d.next = self.k_zero32.val();
            self.c_beats.d.next = self.k_zero32.val();
            self.c_bresp_err.d.next = self.k_zero32.val();
            self.c_err_cmds.d.next = self.k_zero32.val();
            self.c_clipped.d.next = self.k_zero32.val();
        }
    }
}
