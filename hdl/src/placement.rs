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
//!   `s_wlen` (A), `s_tag` (T: carried to the completion untouched; in the receive path the
//!   fields of the completion unit's `Done` op, so that the completion *is* that op).
//! - data stream in: `d_valid`/`d_ready`, `d_data` (D): one beat per W beat, already
//!   lane-aligned (lane i is the byte of address beat + i; the realigner is upstream).
//! - AXI4 AW: `m_axi_awvalid`/`m_axi_awready`, `m_axi_awaddr` (A, B-aligned),
//!   `m_axi_awlen` (8), `m_axi_awsize` (3, = log2 B), `m_axi_awburst` (2, = INCR).
//!   (`awid`, `awcache`, `awprot`, `awlock`, `awqos` are constants to tie off at integration.)
//! - AXI4 W: `m_axi_wvalid`/`m_axi_wready`, `m_axi_wdata` (D), `m_axi_wstrb` (B), `m_axi_wlast`.
//! - AXI4 B: `m_axi_bvalid`/`m_axi_bready`, `m_axi_bresp` (2).
//! - completion stream out: `m_valid`/`m_ready`, `m_tag` (T), `m_resp` (2: first non-OKAY
//!   bresp, 0 if none), `m_clipped`, `m_bytes` (L, bytes enabled).
//! - status: `stat_cmds`, `stat_bursts`, `stat_beats`, `stat_bresp_err`, `stat_err_cmds`,
//!   `stat_clipped` (32-bit, wrapping).
//! - sizes: const generics `A`, `A1` = A + 1, `L`, `R` = max(L + 1, 14), `B`, `D`, `T` (tag
//!   bits, 1..=128); `max_beats` a constant
//!   (localparams `k_maxb_m1`, `k_mb_r`), given to [`PlacementWr::try_new`].
//!
//! **FSM.** IDLE (`s_ready`) -> WIN (the window's compares) -> SEL (the window's selects)
//! -> AW (one burst's address) -> W (its beats) -> AW ... -> DRAIN (completion once every
//! burst's B has arrived) -> IDLE; SEL goes to DRAIN directly when nothing is written. The
//! window is computed in A + 1 bits (no wrap) in three steps: at the command's transfer its
//! two sums `addr + len`, `base + wlen` and the compares that need no sum (`cm_*`), in WIN
//! the compares of those registers (one carry chain each, in parallel, into `sl_*`), in SEL
//! the selects by those flags, held in `lo`/`hi` (the strobes' bounds);
//! the burst state is `cur` (the next burst's start, B-aligned), `rb` (bytes from `cur` to
//! `hi`) and `pgb` (bytes from `cur` to its 4 KiB page's end), both R bits, and `fin` (the
//! burst in W is the command's last); `baddr` is the current beat's aligned address, `left`
//! its burst's beats left minus one, `ob` the bursts whose B is outstanding and `ob_nz`
//! the flag `ob != 0` in its own register (so that `bready` and the drain's `m_valid` are
//! not a 32-bit compare; until 2026-12-07 they were, 99.14 MHz with the 95-bit tag).
//!
//! **Latency** 6 for a one-beat write with the B response in the cycle after its W beat
//! (`WR_LATENCY`); 3 for an empty command. **II**: one command at a time (the next is
//! accepted in the cycle after the completion's transfer); one WIN and one SEL cycle per
//! command, then per burst one AW cycle and one cycle per beat: a burst of n beats takes
//! n + 1 cycles with every ready high.
//!
//! **Combinational paths.** `d_valid -> m_axi_wvalid`, `m_axi_wready -> d_ready`,
//! `d_data -> m_axi_wdata` (the data passes through); `rst` -> every valid and ready
//! output (all low during `rst`). Every other output is a function of registers only. The
//! burst needs no carry chain after a compare: its length is the smallest of `rb`, `pgb` and
//! `max_beats`·B, decided by three R-bit compares of registers in parallel (`pgb` and
//! `max_beats`·B are multiples of B, so comparing bytes compares beats), and awlen and every
//! next value (`cur`: the next page or `cur` + `max_beats`·B in the page; `rb`, `pgb`) are
//! one of candidates computed beside the compares from the same registers. The initial `rb`
//! and `pgb` are selected in SEL from six and two R-bit candidates taken in parallel (from
//! the `cm_*` registers), by the window's registered flags. The window itself is split at two
//! registers: the transfer's cycle holds the two sums, WIN only the compares of registers
//! (`w < e`, `e > base`, `w > addr`, `e > 2^A`, `w > 2^A`), which it registers (`sl_*`), and
//! SEL only the selects (`lo`, `hi`, `in_some`, `rb`, `pgb`, the next state) from those
//! flags, so no select follows a compare of address width in one cycle. The completion's
//! `m_bytes` (`hi - lo`, 16 bits) and `m_clipped` are read from registers in DRAIN. Until
//! 2026-12-04 the burst was five 65-bit carry chains in series (41.5 MHz on ECP5), until
//! 2026-12-06 a 9-bit difference, two minimums and an add (49 MHz), until 2026-12-07 WIN
//! compared and selected in one cycle (97.6 MHz); now 111.6 MHz (docs/blocks/placement.md).
//!
//! **Hazards.** None: one command at a time, no state kept across commands but the
//! counters. The AXI rules the unit relies on from the slave: a B only after its burst's
//! last W (the unit accepts a B whenever one is outstanding).
//!
//! **Reset** (`rst`): IDLE, `ob` 0, `ob_nz` 0, counters 0; a burst in flight is forgotten (reset the
//! AXI slave with it). The command and window registers (and WIN's flags `sl_*`) are data, not cleared.

use mrnic_model::config::ConfigError;
use mrnic_model::transport::placement_wr::WrConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PlacementWr<const A: usize, const A1: usize, const L: usize, const R: usize, const B: usize, const D: usize, const T: usize> {
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
    pub s_tag: Signal<In, Bits<T>>,
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
    pub m_tag: Signal<Out, Bits<T>>,
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
    st: DFF<Bits<3>>,
    tag: DFF<Bits<T>>,
    lo: DFF<Bits<A1>>,
    hi: DFF<Bits<A1>>,
    cur: DFF<Bits<A1>>,
    baddr: DFF<Bits<A1>>,
    left: DFF<Bits<8>>,
    rb: DFF<Bits<R>>,
    pgb: DFF<Bits<R>>,
    fin: DFF<bool>,
    // the command as taken (its window's sums and the compares that need no sum)
    cm_a: DFF<Bits<A1>>,
    cm_b: DFF<Bits<A1>>,
    cm_e: DFF<Bits<A1>>,
    cm_w: DFF<Bits<A1>>,
    cm_loa: DFF<bool>,
    cm_bga: DFF<bool>,
    cm_lenz: DFF<bool>,
    cm_wlenz: DFF<bool>,
    // WIN's compares of the cm_* registers, registered for SEL's selects
    sl_hi_w: DFF<bool>,
    sl_e_top: DFF<bool>,
    sl_w_top: DFF<bool>,
    sl_e_gt_b: DFF<bool>,
    sl_w_gt_a: DFF<bool>,
    ob: DFF<Bits<32>>,
    /// `ob != 0`, kept as its own register (set with each AW, cleared by the B that takes
    /// `ob` from 1 to 0) so that the drain's `m_valid` and `bready` are not a 32-bit compare.
    ob_nz: DFF<Bit>,
    resp: DFF<Bits<2>>,
    some: DFF<bool>,
    c_cmds: DFF<Bits<32>>,
    c_bursts: DFF<Bits<32>>,
    c_beats: DFF<Bits<32>>,
    c_bresp_err: DFF<Bits<32>>,
    c_err_cmds: DFF<Bits<32>>,
    c_clipped: DFF<Bits<32>>,
    // ---- command window: the sums and sum-free compares at the transfer (in_addr .. in_wend,
    // lo_a, b_gt_a, len_nz, wlen_nz), the compares in WIN from the cm_* registers, the selects in SEL
    in_addr: Signal<Local, Bits<A1>>,
    in_end: Signal<Local, Bits<A1>>,
    in_base: Signal<Local, Bits<A1>>,
    in_wend: Signal<Local, Bits<A1>>,
    in_lo: Signal<Local, Bits<A1>>,
    in_hi: Signal<Local, Bits<A1>>,
    in_some: Signal<Local, bool>,
    // the completion's byte count and clipped flag, from registers
    o_diff: Signal<Local, Bits<L>>,
    o_bytes: Signal<Local, Bits<L>>,
    hi_ne_e: Signal<Local, bool>,
    o_clip: Signal<Local, bool>,
    b_gt_a: Signal<Local, bool>,
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
    // the burst state's initial values, six candidates in parallel (hi - lo aligned)
    a_al: Signal<Local, Bits<R>>,
    b_al: Signal<Local, Bits<R>>,
    e_r: Signal<Local, Bits<R>>,
    w_r: Signal<Local, Bits<R>>,
    r_ea: Signal<Local, Bits<R>>,
    r_eb: Signal<Local, Bits<R>>,
    r_wa: Signal<Local, Bits<R>>,
    r_wb: Signal<Local, Bits<R>>,
    r_ta: Signal<Local, Bits<R>>,
    r_tb: Signal<Local, Bits<R>>,
    in_rb: Signal<Local, Bits<R>>,
    pg_a: Signal<Local, Bits<R>>,
    pg_b: Signal<Local, Bits<R>>,
    in_pgb: Signal<Local, Bits<R>>,
    // ---- the burst of `cur`: three candidates (to hi, to the page end, max_beats)
    le_rp: Signal<Local, bool>,
    le_rm: Signal<Local, bool>,
    le_pm: Signal<Local, bool>,
    f_rem: Signal<Local, bool>,
    f_pg: Signal<Local, bool>,
    rb_m1: Signal<Local, Bits<R>>,
    pg_m1: Signal<Local, Bits<R>>,
    rb_sh: Signal<Local, Bits<R>>,
    pg_sh: Signal<Local, Bits<R>>,
    aw_len: Signal<Local, Bits<8>>,
    rb_pg: Signal<Local, Bits<R>>,
    rb_mx: Signal<Local, Bits<R>>,
    pg_mx: Signal<Local, Bits<R>>,
    pgc: Signal<Local, Bits<A1>>,
    pgc1: Signal<Local, Bits<A1>>,
    off12: Signal<Local, Bits<12>>,
    cur_mx: Signal<Local, Bits<A1>>,
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
    k_idle: Constant<Bits<3>>,
    k_aw: Constant<Bits<3>>,
    k_w: Constant<Bits<3>>,
    k_drain: Constant<Bits<3>>,
    k_win: Constant<Bits<3>>,
    k_sel: Constant<Bits<3>>,
    k_top: Constant<Bits<A1>>,
    k_below: Constant<Bits<A1>>,
    k_align: Constant<Bits<A1>>,
    k_page: Constant<Bits<A1>>,
    k_npmask: Constant<Bits<A1>>,
    k_zero_a1: Constant<Bits<A1>>,
    k_zero_a: Constant<Bits<A>>,
    k_lg: Constant<Bits<8>>,
    k_one: Constant<Bits<A1>>,
    k_zero_l: Constant<Bits<L>>,
    k_zero_b: Constant<Bits<B>>,
    k_one8: Constant<Bits<8>>,
    k_zero8: Constant<Bits<8>>,
    k_maxb_m1: Constant<Bits<8>>,
    k_align_r: Constant<Bits<R>>,
    k_top_r: Constant<Bits<R>>,
    k_page_r: Constant<Bits<R>>,
    k_pmask_r: Constant<Bits<R>>,
    k_mb_r: Constant<Bits<R>>,
    k_mb12: Constant<Bits<12>>,
    k_beat_r: Constant<Bits<R>>,
    k_one_r: Constant<Bits<R>>,
    k_zero32: Constant<Bits<32>>,
    k_one32: Constant<Bits<32>>,
    k_zero2: Constant<Bits<2>>,
    k_size: Constant<Bits<3>>,
    k_incr: Constant<Bits<2>>,
}

impl<const A: usize, const A1: usize, const L: usize, const R: usize, const B: usize, const D: usize, const T: usize> PlacementWr<A, A1, L, R, B, D, T> {
    /// The unit for `cfg`; refused when the const generics do not match it
    /// (`A` = addr_bits, `A1` = A + 1, `L` = len_bits, `R` = max(L + 1, 14) (the burst
    /// arithmetic: bytes to `hi` from an aligned address, bytes to the page end),
    /// `B` = beat_bytes, `D` = 8 B, `T` = tag bits in 1..=128, the model's `u128` tag).
    pub fn try_new(cfg: &WrConfig) -> Result<Self, ConfigError> {
        if !(1..=128).contains(&T) {
            return Err(ConfigError::invalid("PlacementWr.T", format!("tag width {T}: must be 1..=128 (the model's tag is a u128)")));
        }
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
        if R != (L + 1).max(14) {
            return mismatch("R", (L + 1).max(14), R);
        }
        if B != cfg.beat_bytes as usize {
            return mismatch("B", cfg.beat_bytes as usize, B);
        }
        if D != 8 * B {
            return mismatch("D", 8 * B, D);
        }
        let c = |v: u64| Constant::new(Bits::<A1>::from(v));
        // the max_beats limit in bytes; at 4096 or more the page limit always comes first
        let mb = (u64::from(cfg.max_beats) * B as u64).min(4096);
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
            rb: Default::default(),
            pgb: Default::default(),
            fin: Default::default(),
            cm_a: Default::default(),
            cm_b: Default::default(),
            cm_e: Default::default(),
            cm_w: Default::default(),
            cm_loa: Default::default(),
            cm_bga: Default::default(),
            cm_lenz: Default::default(),
            cm_wlenz: Default::default(),
            sl_hi_w: Default::default(),
            sl_e_top: Default::default(),
            sl_w_top: Default::default(),
            sl_e_gt_b: Default::default(),
            sl_w_gt_a: Default::default(),
            ob: Default::default(),
            ob_nz: Default::default(),
            resp: Default::default(),
            some: Default::default(),
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
            in_some: Default::default(),
            o_diff: Default::default(),
            o_bytes: Default::default(),
            hi_ne_e: Default::default(),
            o_clip: Default::default(),
            b_gt_a: Default::default(),
            lo_a: Default::default(),
            hi_w: Default::default(),
            hi_t: Default::default(),
            e_top: Default::default(),
            w_top: Default::default(),
            e_gt_b: Default::default(),
            w_gt_a: Default::default(),
            len_nz: Default::default(),
            wlen_nz: Default::default(),
            a_al: Default::default(),
            b_al: Default::default(),
            e_r: Default::default(),
            w_r: Default::default(),
            r_ea: Default::default(),
            r_eb: Default::default(),
            r_wa: Default::default(),
            r_wb: Default::default(),
            r_ta: Default::default(),
            r_tb: Default::default(),
            in_rb: Default::default(),
            pg_a: Default::default(),
            pg_b: Default::default(),
            in_pgb: Default::default(),
            le_rp: Default::default(),
            le_rm: Default::default(),
            le_pm: Default::default(),
            f_rem: Default::default(),
            f_pg: Default::default(),
            rb_m1: Default::default(),
            pg_m1: Default::default(),
            rb_sh: Default::default(),
            pg_sh: Default::default(),
            aw_len: Default::default(),
            rb_pg: Default::default(),
            rb_mx: Default::default(),
            pg_mx: Default::default(),
            pgc: Default::default(),
            pgc1: Default::default(),
            off12: Default::default(),
            cur_mx: Default::default(),
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
            k_win: Constant::new(4u64.into()),
            k_sel: Constant::new(5u64.into()),
            k_top: Constant::new(Bits::<A1>::default().replace_bit(A, true)),
            k_below: Constant::new(!Bits::<A1>::default().replace_bit(A, true)),
            k_align: Constant::new(!Bits::<A1>::from(B as u64 - 1)),
            k_page: c(4096),
            k_npmask: Constant::new(!Bits::<A1>::from(4095u64)),
            k_zero_a1: c(0),
            k_zero_a: Constant::new(0u64.into()),
            k_lg: Constant::new(u64::from(cfg.size()).into()),
            k_one: c(1),
            k_zero_l: Constant::new(0u64.into()),
            k_zero_b: Constant::new(0u64.into()),
            k_one8: Constant::new(1u64.into()),
            k_zero8: Constant::new(0u64.into()),
            k_maxb_m1: Constant::new(u64::from(cfg.max_beats - 1).into()),
            k_align_r: Constant::new(!Bits::<R>::from(B as u64 - 1)),
            k_top_r: Constant::new(Bits::<A1>::default().replace_bit(A, true).get_bits::<R>(0)),
            k_page_r: Constant::new(4096u64.into()),
            k_pmask_r: Constant::new(4095u64.into()),
            k_mb_r: Constant::new(mb.into()),
            k_mb12: Constant::new((mb & 4095).into()),
            k_beat_r: Constant::new((B as u64).into()),
            k_one_r: Constant::new(1u64.into()),
            k_zero32: Constant::new(0u64.into()),
            k_one32: Constant::new(1u64.into()),
            k_zero2: Constant::new(0u64.into()),
            k_size: Constant::new(u64::from(cfg.size()).into()),
            k_incr: Constant::new(1u64.into()),
        })
    }
}

impl<const A: usize, const A1: usize, const L: usize, const R: usize, const B: usize, const D: usize, const T: usize> Logic for PlacementWr<A, A1, L, R, B, D, T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, tag, lo, hi, cur, baddr, left, rb, pgb, fin, cm_a, cm_b, cm_e, cm_w, cm_loa, cm_bga, cm_lenz, cm_wlenz, sl_hi_w, sl_e_top, sl_w_top, sl_e_gt_b, sl_w_gt_a, ob, ob_nz, resp, some, c_cmds, c_bursts, c_beats, c_bresp_err, c_err_cmds, c_clipped);
        // ---- the command's window, in A + 1 bits (nothing wraps)
        self.in_addr.next = bit_cast::<A1, A>(self.s_addr.val());
        self.in_base.next = bit_cast::<A1, A>(self.s_base.val());
        self.in_end.next = self.in_addr.val() + bit_cast::<A1, L>(self.s_len.val());
        self.in_wend.next = self.in_base.val() + bit_cast::<A1, A>(self.s_wlen.val());
        // At the transfer: the window's two sums and the compares that need no sum, each one
        // carry chain, registered (cm_*); the rest of the window is taken in WIN from them.
        self.lo_a.next = self.in_addr.val() > self.in_base.val();
        self.len_nz.next = self.s_len.val() != self.k_zero_l.val();
        self.wlen_nz.next = self.s_wlen.val() != self.k_zero_a.val();
        self.b_gt_a.next = self.in_base.val() > self.in_addr.val();
        // ---- in WIN, from the registered command: every compare the window needs
        // (lo = max(addr, base), hi = min(e, w, 2^A)), each one carry chain on registers, in
        // parallel, into the sl_* registers; nothing is selected by them in WIN. x > 2^A is
        // bit A and a non-zero rest (both sums are below 2^(A+1)); e > addr is len != 0,
        // w > base is wlen != 0, and 2^A is above both addr and base.
        self.hi_w.next = self.cm_w.q.val() < self.cm_e.q.val();
        self.e_top.next = ((self.cm_e.q.val() & self.k_top.val()) != self.k_zero_a1.val()) & ((self.cm_e.q.val() & self.k_below.val()) != self.k_zero_a1.val());
        self.w_top.next = ((self.cm_w.q.val() & self.k_top.val()) != self.k_zero_a1.val()) & ((self.cm_w.q.val() & self.k_below.val()) != self.k_zero_a1.val());
        self.e_gt_b.next = self.cm_e.q.val() > self.cm_b.q.val();
        self.w_gt_a.next = self.cm_w.q.val() > self.cm_a.q.val();
        // ---- in SEL, from WIN's registered compares: the selects of lo, hi and in_some
        self.hi_t.next = self.sl_e_top.q.val();
        if self.sl_hi_w.q.val() {
            self.hi_t.next = self.sl_w_top.q.val();
        }
        self.in_lo.next = self.cm_b.q.val();
        if self.cm_loa.q.val() {
            self.in_lo.next = self.cm_a.q.val();
        }
        self.in_hi.next = self.cm_e.q.val();
        if self.sl_hi_w.q.val() {
            self.in_hi.next = self.cm_w.q.val();
        }
        if self.hi_t.val() {
            self.in_hi.next = self.k_top.val();
        }
        self.in_some.next = true;
        if !self.hi_t.val() {
            if self.sl_hi_w.q.val() {
                self.in_some.next = self.cm_wlenz.q.val();
                if self.cm_loa.q.val() {
                    self.in_some.next = self.sl_w_gt_a.q.val();
                }
            } else {
                self.in_some.next = self.sl_e_gt_b.q.val();
                if self.cm_loa.q.val() {
                    self.in_some.next = self.cm_lenz.q.val();
                }
            }
        }
        // ---- the burst state at the command: rb = hi - (lo aligned down to B), the bytes
        // from the first burst's start to hi (1 ..= 2^L - 1 + B - 1 < 2^R when the command
        // writes something), and pgb = 4096 - (lo aligned mod 4096), the bytes to the page
        // end. Both are exact in R bits, so R-bit differences of the operands' low bits give
        // them: six candidates for rb (hi: end e, window end w, 2^A; lo: addr or base) and two
        // for pgb, in parallel (from the cm_* registers, which hold through WIN and SEL),
        // selected in SEL by the window's registered flags.
        self.a_al.next = self.cm_a.q.val().get_bits::<R>(0) & self.k_align_r.val();
        self.b_al.next = self.cm_b.q.val().get_bits::<R>(0) & self.k_align_r.val();
        self.e_r.next = self.cm_e.q.val().get_bits::<R>(0);
        self.w_r.next = self.cm_w.q.val().get_bits::<R>(0);
        self.r_ea.next = self.e_r.val() - self.a_al.val();
        self.r_eb.next = self.e_r.val() - self.b_al.val();
        self.r_wa.next = self.w_r.val() - self.a_al.val();
        self.r_wb.next = self.w_r.val() - self.b_al.val();
        self.r_ta.next = self.k_top_r.val() - self.a_al.val();
        self.r_tb.next = self.k_top_r.val() - self.b_al.val();
        if self.hi_t.val() {
            self.in_rb.next = self.r_tb.val();
            if self.cm_loa.q.val() {
                self.in_rb.next = self.r_ta.val();
            }
        } else if self.sl_hi_w.q.val() {
            self.in_rb.next = self.r_wb.val();
            if self.cm_loa.q.val() {
                self.in_rb.next = self.r_wa.val();
            }
        } else {
            self.in_rb.next = self.r_eb.val();
            if self.cm_loa.q.val() {
                self.in_rb.next = self.r_ea.val();
            }
        }
        self.pg_a.next = self.k_page_r.val() - (self.a_al.val() & self.k_pmask_r.val());
        self.pg_b.next = self.k_page_r.val() - (self.b_al.val() & self.k_pmask_r.val());
        self.in_pgb.next = self.pg_b.val();
        if self.cm_loa.q.val() {
            self.in_pgb.next = self.pg_a.val();
        }
        // ---- the burst at `cur` (B-aligned; meaningful in AW, where rb >= 1): the smallest
        // of rb, pgb and max_beats B (mb) in bytes. pgb and mb are multiples of B, so
        // ceil(rb / B) <= pgb / B iff rb <= pgb: three R-bit compares of registers, in
        // parallel. Every result is one of three candidates prepared beside them, so no
        // carry chain follows the compares:
        //   to hi (f_rem, the command's last burst): ceil(rb / B) beats, awlen (rb - 1) >> lg;
        //   to the page end (f_pg): pgb / B beats, next cur the next page, rb - pgb, pgb 4096;
        //   max_beats (else, so pgb > mb): next cur + mb in the page, rb - mb, pgb - mb.
        self.le_rp.next = self.rb.q.val() <= self.pgb.q.val();
        self.le_rm.next = self.rb.q.val() <= self.k_mb_r.val();
        self.le_pm.next = self.pgb.q.val() <= self.k_mb_r.val();
        self.f_rem.next = self.le_rp.val() & self.le_rm.val();
        self.f_pg.next = !self.f_rem.val() & self.le_pm.val();
        self.rb_m1.next = self.rb.q.val() - self.k_one_r.val();
        self.pg_m1.next = self.pgb.q.val() - self.k_beat_r.val();
        self.rb_sh.next = self.rb_m1.val() >> self.k_lg.val();
        self.pg_sh.next = self.pg_m1.val() >> self.k_lg.val();
        self.aw_len.next = self.k_maxb_m1.val();
        if self.f_pg.val() {
            self.aw_len.next = self.pg_sh.val().get_bits::<8>(0);
        }
        if self.f_rem.val() {
            self.aw_len.next = self.rb_sh.val().get_bits::<8>(0);
        }
        self.rb_pg.next = self.rb.q.val() - self.pgb.q.val();
        self.rb_mx.next = self.rb.q.val() - self.k_mb_r.val();
        self.pg_mx.next = self.pgb.q.val() - self.k_mb_r.val();
        self.pgc.next = self.cur.q.val() & self.k_npmask.val();
        self.pgc1.next = self.pgc.val() + self.k_page.val();
        self.off12.next = self.cur.q.val().get_bits::<12>(0) + self.k_mb12.val();
        self.cur_mx.next = self.pgc.val() | bit_cast::<A1, 12>(self.off12.val());
        // ---- the completion's bytes and clipped flag, from the registers SEL wrote (read in
        // DRAIN only, so nothing of them is in SEL's cycle): bytes = hi - lo when something is
        // written (< 2^L: the low L bits of the difference); clipped (bytes != len): hi <= e
        // and lo >= addr, so bytes = len iff something is written, lo = addr (base <= addr)
        // and hi = e.
        self.o_diff.next = self.hi.q.val().get_bits::<L>(0) - self.lo.q.val().get_bits::<L>(0);
        self.o_bytes.next = self.k_zero_l.val();
        if self.some.q.val() {
            self.o_bytes.next = self.o_diff.val();
        }
        self.hi_ne_e.next = self.hi.q.val() != self.cm_e.q.val();
        self.o_clip.next = self.cm_lenz.q.val() & (!self.some.q.val() | self.cm_bga.q.val() | self.hi_ne_e.val());
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
        self.b_rdy.next = self.on.val() & self.ob_nz.q.val();
        self.b_hs.next = self.b_rdy.val() & self.m_axi_bvalid.val();
        self.m_v.next = self.on.val() & (self.st.q.val() == self.k_drain.val()) & !self.ob_nz.q.val();
        // ---- outputs
        self.s_ready.next = self.on.val() & (self.st.q.val() == self.k_idle.val());
        self.d_ready.next = self.w_in.val() & self.m_axi_wready.val();
        self.m_axi_awvalid.next = self.aw_v.val();
        self.m_axi_awaddr.next = self.cur.q.val().get_bits::<A>(0);
        self.m_axi_awlen.next = self.aw_len.val();
        self.m_axi_awsize.next = self.k_size.val();
        self.m_axi_awburst.next = self.k_incr.val();
        self.m_axi_wvalid.next = self.w_in.val() & self.d_valid.val();
        self.m_axi_wdata.next = self.d_data.val();
        self.m_axi_wstrb.next = self.strb.val();
        self.m_axi_wlast.next = self.left.q.val() == self.k_zero8.val();
        self.m_axi_bready.next = self.b_rdy.val();
        self.m_valid.next = self.m_v.val();
        self.m_tag.next = self.tag.q.val();
        self.m_resp.next = self.resp.q.val();
        self.m_clipped.next = self.o_clip.val();
        self.m_bytes.next = self.o_bytes.val();
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
                if self.ob.q.val() == self.k_one32.val() {
                    self.ob_nz.d.next = false;
                }
            }
        }
        // ---- the FSM
        if self.st.q.val() == self.k_idle.val() {
            if self.s_valid.val() {
                self.tag.d.next = self.s_tag.val();
                self.cm_a.d.next = self.in_addr.val();
                self.cm_b.d.next = self.in_base.val();
                self.cm_e.d.next = self.in_end.val();
                self.cm_w.d.next = self.in_wend.val();
                self.cm_loa.d.next = self.lo_a.val();
                self.cm_bga.d.next = self.b_gt_a.val();
                self.cm_lenz.d.next = self.len_nz.val();
                self.cm_wlenz.d.next = self.wlen_nz.val();
                self.resp.d.next = self.k_zero2.val();
                self.st.d.next = self.k_win.val();
            }
        } else if self.st.q.val() == self.k_win.val() {
            self.sl_hi_w.d.next = self.hi_w.val();
            self.sl_e_top.d.next = self.e_top.val();
            self.sl_w_top.d.next = self.w_top.val();
            self.sl_e_gt_b.d.next = self.e_gt_b.val();
            self.sl_w_gt_a.d.next = self.w_gt_a.val();
            self.st.d.next = self.k_sel.val();
        } else if self.st.q.val() == self.k_sel.val() {
            self.lo.d.next = self.in_lo.val();
            self.hi.d.next = self.in_hi.val();
            self.cur.d.next = self.in_lo.val() & self.k_align.val();
            self.rb.d.next = self.in_rb.val();
            self.pgb.d.next = self.in_pgb.val();
            self.some.d.next = self.in_some.val();
            self.st.d.next = self.k_drain.val();
            if self.in_some.val() {
                self.st.d.next = self.k_aw.val();
            }
        } else if self.st.q.val() == self.k_aw.val() {
            if self.m_axi_awready.val() {
                if !self.b_hs.val() {
                    self.ob.d.next = self.ob.q.val() + 1;
                    self.ob_nz.d.next = true;
                }
                self.c_bursts.d.next = self.c_bursts.q.val() + 1;
                self.baddr.d.next = self.cur.q.val();
                self.left.d.next = self.aw_len.val();
                self.fin.d.next = self.f_rem.val();
                if self.f_pg.val() {
                    self.cur.d.next = self.pgc1.val();
                    self.rb.d.next = self.rb_pg.val();
                    self.pgb.d.next = self.k_page_r.val();
                } else {
                    self.cur.d.next = self.cur_mx.val();
                    self.rb.d.next = self.rb_mx.val();
                    self.pgb.d.next = self.pg_mx.val();
                }
                self.st.d.next = self.k_w.val();
            }
        } else if self.st.q.val() == self.k_w.val() {
            if self.w_hs.val() {
                self.c_beats.d.next = self.c_beats.q.val() + 1;
                self.baddr.d.next = self.baddr.q.val() + (self.k_one.val() << self.k_lg.val());
                self.left.d.next = self.left.q.val() - self.k_one8.val();
                if self.left.q.val() == self.k_zero8.val() {
                    self.st.d.next = self.k_aw.val();
                    if self.fin.q.val() {
                        self.st.d.next = self.k_drain.val();
                    }
                }
            }
        } else if self.m_v.val() & self.m_ready.val() {
            self.c_cmds.d.next = self.c_cmds.q.val() + 1;
            if self.resp.q.val() != self.k_zero2.val() {
                self.c_err_cmds.d.next = self.c_err_cmds.q.val() + 1;
            }
            if self.o_clip.val() {
                self.c_clipped.d.next = self.c_clipped.q.val() + 1;
            }
            self.st.d.next = self.k_idle.val();
        }
        if self.rst.val() {
            self.st.d.next = self.k_idle.val();
            self.ob.d.next = self.k_zero32.val();
            self.ob_nz.d.next = false;
            self.c_cmds.d.next = self.k_zero32.val();
            self.c_bursts.d.next = self.k_zero32.val();
            self.c_beats.d.next = self.k_zero32.val();
            self.c_bresp_err.d.next = self.k_zero32.val();
            self.c_err_cmds.d.next = self.k_zero32.val();
            self.c_clipped.d.next = self.k_zero32.val();
        }
    }
}
