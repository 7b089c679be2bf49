//! # Path table (sender side, `mrnic_path`)
//!
//! **Purpose.** Per connection and path the requester's path state (`docs/design/sender-rtl.md`
//! §1.1): entropy, state (OK / SUSPECT / FAILED / PROBING), next path PSN, window (Q9.8) and
//! additive-increase counter, packets in flight, RTT estimator, DCTCP alpha and its ECN
//! accumulators, highest acknowledged path PSN, strikes, decrease point, RTO backoff, probe
//! state and the retransmission timer; per connection the round-robin pointer and the entropy
//! LFSR. The operations of §2.2 (RESET_CONN, RESET_PATH, SELECT, PSENT, PTMO, PREPLY, ACKB,
//! ACKP, LOSS, LOSTTMO, RELEASE, TIMEOUT, FAIL, TMOCHK), the deadline bank `pt_dl` and its
//! scanner (§3). Semantics: the model cycle shell
//! `mrnic_model::transport::path_shell::PathShell`, diffed cycle by cycle.
//!
//! **Ports.**
//! - inputs: `clock`, `rst` (synchronous), `now` (32, the NIC time counter); stream
//!   `s_valid`/`s_ready`, `s_op` (4), `s_conn` (`CONN_BITS`), `s_path` (4), `s_n` (9),
//!   `s_nl` (9), `s_rtt_valid`, `s_rtt` (32), `s_ce` (8), `s_pkts` (8), `s_cum` (24),
//!   `s_next` (24), `s_ppsn` (24), `s_first` (24), `s_last` (24), `s_avoid_valid`, `s_avoid`
//!   (4), `s_plane` (P), `s_seq` (32), `s_port` (16), `s_seed` (16); `m_ready`, `m_tmo_ready`.
//! - outputs: stream `m_valid`/`m_ready` with `m_op` (4), `m_conn`, `m_path` (4), `m_kind`
//!   (2), `m_ppsn` (24), `m_port` (16), `m_seq` (32), `m_flag`, `m_tmo_hit` (2), `m_hw_valid`,
//!   `m_hw_on`, `m_hw_wait` (31); timer stream `m_tmo_valid`/`m_tmo_ready` with
//!   `m_tmo_conn`, `m_tmo_rto` (P), `m_tmo_probe` (P).
//! - config: the transport configuration's [`PathConsts`] as constants (a [`PathCfg`]
//!   sub-block of localparams: `beta_q8`, `head_q8`, g, the windows in Q9.8, the RTO bounds,
//!   the ACK timeout, `fail_threshold`, `max_probes`); sizes as const generics (`CONN_BITS`,
//!   `P`, and the derived word widths `WB` = 24 + 315·P, `EW` = 56·P, `BW` = 34·P).
//! - status: `stat_select`, `stat_select_none`, `stat_probe_due`, `stat_lost`,
//!   `stat_decrease`, `stat_ecn_cut`, `stat_timeout`, `stat_reroll`, `stat_tmo` (32-bit,
//!   wrapping).
//!
//! **Latency** 25 ([`PATH_LATENCY`]); as the shell sees it, an op is applied as it leaves
//! register 3 (the RTL finishes its state changes by register 15, in the same order, which
//! no output can tell apart); **II** 1, back to back on one connection and one path
//! included, except the §2.9 bubble (below).
//!
//! **Pipeline** (`docs/design/sender-rtl.md` §2.3, in part; `docs/blocks/path.md`, *Pipeline*):
//! - registers 1-3: the input beat.
//! - register 3, **E** (a loop, key: the connection): the ECN accumulators `pt_ecn` (per path
//!   ce_acc 16, pkt_acc 16, alpha_window_end 24), read from register 2 through a write-first
//!   [`BlockRam`] (a held register 3 re-reads). An ACKP adds its marks and packets
//!   (saturating at 65535) and tests the window close (`cum` at or after the window end); a
//!   close zeroes the sums and moves the end to `next`; RESET_PATH zeroes the row. Written as
//!   the op leaves register 3.
//! - registers 4-14, **D1-D11**: the ECN fraction `floor((ce << 10) / pkts)`, one restoring
//!   step a register (bit-exact with `ecn_fraction_q10`), beside the beat (400 bits a register).
//! - register 15, **apply** (a loop, key: the connection): the connection word (rr, LFSR,
//!   zmax and P rows of 315 bits) from a [`BlockRamReg`] (read latency 2: read from
//!   register 13, or 14 when the cycle before held; its output register loads as the
//!   pipeline advances, with the writes of the two ops ahead forwarded), so the loop starts
//!   at a flip-flop. A path op updates the row of its own path `u_p`
//!   (on_acked, RTT, alpha from the quotient and the cut as a 16 x 16 product, loss decrease,
//!   strikes, probes, entropy); a SELECT summarises the P rows, selects `p_eff` and moves
//!   only that row's inflight, next path PSN and rto start. Written as the op leaves
//!   register 15.
//! - registers 16-19, after the loop: 16 -> 17 the srtt maximum after the op and rto's base;
//!   17 -> 18 the head wait before and after (two 16 x 16 products each) and rto backed
//!   off; 18 -> 19 the deadline and TMOCHK's hits, written into the result.
//! - registers 16-25: the result (512-bit words: the 256-bit result and the fields above;
//!   two lines, 16-17 and 18-25, so that the §2.9 bubble can enter 18); the bank write
//!   travels with it and lands as the op leaves register 24.
//!
//! The loops left are E and the apply's two paths (the row of `u_p`: the row mux, on_acked,
//! alpha, the product, the decrease and the write; SELECT: the summary, the selection and
//! the lane update). The plan's further split of the apply (Al, X, S, Y in their own
//! memories) is not done.
//!
//! **The §2.9 bubble.** When register 17 holds an ACKP or LOSS on the (connection, path) of
//! register 18 and register 18's op multiplied (a LOSS that decreased, an ACKP that cut),
//! registers 1-17 hold and a bubble enters 18 (`s_ready` low that cycle), as the shell says.
//!
//! **Deadline bank and scanner.** `pt_dl` is one word of P entries (valid, probe kind, 32-bit
//! deadline) per connection, kept twice: a write-first copy read for the read-modify-write of
//! one entry (from register 23 / 24), and a raw copy the scanner reads (read-before-write).
//! The scanner is three registers: each unheld edge `rd` <- (sc, `pt_dl[sc]`), `hit` <- rd's
//! expired RTO and probe masks, `m_tmo` <- hit; held while `m_tmo_valid && !m_tmo_ready`
//! (rd re-reads its connection).
//!
//! **Combinational paths.** `m_ready -> s_ready`, `m_ready -> RAM addresses / write
//! enables`, `rst -> s_ready`. No path from `s_*` to `m_*`.
//!
//! **Hazards.** None left to the user: E reads through a write-first RAM and the apply
//! through an output register with forwarding, so an op sees the writes of the ops ahead of
//! it, the one just ahead included, and every earlier write has landed before the read. Ops of a connection between its RESET_CONN and its P RESET_PATHs, and a
//! RESET_PATH outside such a sequence, are undefined (the shell's contract).
//!
//! **Reset** empties registers 1-3 (never applied) and the result valid bits of 4-25, clears
//! counters and scanner. Ops in registers 4-15 were applied as the shell sees it, so they
//! keep moving under `rst` (apply valid bits `pv`, kept; result valid bits `pr`, cleared) and
//! make their state changes at 15; bank writes of ops past register 3 still land. The state and
//! the bank are RAM and are not reset; their power-up contents (an `initial` block) are the
//! shell's: every connection as `PathTable::new(cfg, 0, 0)`, every deadline invalid.

use crate::prim::{BlockRam, BlockRamReg};
use mrnic_model::config::ConfigError;
use mrnic_model::transport::path::{PathConsts, PathTable};
use mrnic_model::transport::path_shell::PATH_MAX_PATHS;
pub use mrnic_model::transport::path_shell::PATH_LATENCY;
use mrnic_model::transport::TransportConfig;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Bits of one row in the state word.
pub const ROW_BITS: usize = 315;
/// Bits of one path's ECN accumulators in the `pt_ecn` word (ce_acc 16, pkt_acc 16,
/// alpha_window_end 24).
pub const ECN_BITS: usize = 56;
/// Bits of the per-connection part at the bottom of the state word (rr, LFSR, zmax).
pub const CONN_PART_BITS: usize = 24;
/// Bits of one deadline entry (deadline 32, probe kind, valid).
pub const DL_BITS: usize = 34;

/// The configuration constants as a sub-block of localparams (outputs driven by constants).
#[derive(LogicBlock)]
pub struct PathCfg {
    pub beta: Signal<Out, Bits<9>>,
    pub head: Signal<Out, Bits<15>>,
    pub g: Signal<Out, Bits<4>>,
    pub cmin: Signal<Out, Bits<17>>,
    pub cinit: Signal<Out, Bits<17>>,
    pub cmax: Signal<Out, Bits<17>>,
    pub rto_min: Signal<Out, Bits<32>>,
    pub rto_max: Signal<Out, Bits<32>>,
    pub rto_init: Signal<Out, Bits<32>>,
    pub ack: Signal<Out, Bits<32>>,
    pub ft: Signal<Out, Bits<8>>,
    pub mp: Signal<Out, Bits<9>>,
    pub np: Signal<Out, Bits<5>>,
    pub pm1: Signal<Out, Bits<4>>,
    pub pmask: Signal<Out, Bits<16>>,
    k_beta: Constant<Bits<9>>,
    k_head: Constant<Bits<15>>,
    k_g: Constant<Bits<4>>,
    k_cmin: Constant<Bits<17>>,
    k_cinit: Constant<Bits<17>>,
    k_cmax: Constant<Bits<17>>,
    k_rto_min: Constant<Bits<32>>,
    k_rto_max: Constant<Bits<32>>,
    k_rto_init: Constant<Bits<32>>,
    k_ack: Constant<Bits<32>>,
    k_ft: Constant<Bits<8>>,
    k_mp: Constant<Bits<9>>,
    k_np: Constant<Bits<5>>,
    k_pm1: Constant<Bits<4>>,
    k_pmask: Constant<Bits<16>>,
}

impl PathCfg {
    /// The constants of `k` for `p` paths; refuses values the port widths cannot hold.
    pub fn try_new(k: &PathConsts, p: usize) -> Result<Self, ConfigError> {
        let bad = |what: &str, v: u64| Err(ConfigError::invalid("transport", format!("PathCfg: {what} = {v} does not fit the path table's width")));
        if k.beta_q8 > 256 {
            return bad("beta_q8", k.beta_q8.into());
        }
        if k.head_q8 >= 1 << 15 {
            return bad("head_q8", k.head_q8.into());
        }
        if k.g > 15 {
            return bad("g", k.g.into());
        }
        if k.cwnd_max_q8 >= 1 << 17 {
            return bad("cwnd_max_q8", k.cwnd_max_q8.into());
        }
        for (n, v) in [("rto_min", k.rto_min_ns), ("rto_max", k.rto_max_ns), ("rto_init", k.rto_init_ns), ("ack_timeout", k.ack_timeout_ns)] {
            if v >= 1 << 31 {
                return bad(n, v);
            }
        }
        if k.fail_threshold > 255 || k.max_probes > 256 {
            return bad("fail_threshold / max_probes", u64::from(k.fail_threshold.max(k.max_probes)));
        }
        if !(1..=PATH_MAX_PATHS).contains(&p) {
            return bad("paths", p as u64);
        }
        Ok(Self {
            beta: Default::default(),
            head: Default::default(),
            g: Default::default(),
            cmin: Default::default(),
            cinit: Default::default(),
            cmax: Default::default(),
            rto_min: Default::default(),
            rto_max: Default::default(),
            rto_init: Default::default(),
            ack: Default::default(),
            ft: Default::default(),
            mp: Default::default(),
            np: Default::default(),
            pm1: Default::default(),
            pmask: Default::default(),
            k_beta: Constant::new(u64::from(k.beta_q8).into()),
            k_head: Constant::new(u64::from(k.head_q8).into()),
            k_g: Constant::new(u64::from(k.g).into()),
            k_cmin: Constant::new(u64::from(k.cwnd_min_q8).into()),
            k_cinit: Constant::new(u64::from(k.cwnd_init_q8).into()),
            k_cmax: Constant::new(u64::from(k.cwnd_max_q8).into()),
            k_rto_min: Constant::new(k.rto_min_ns.into()),
            k_rto_max: Constant::new(k.rto_max_ns.into()),
            k_rto_init: Constant::new(k.rto_init_ns.into()),
            k_ack: Constant::new(k.ack_timeout_ns.into()),
            k_ft: Constant::new(u64::from(k.fail_threshold).into()),
            k_mp: Constant::new(u64::from(k.max_probes).into()),
            k_np: Constant::new((p as u64).into()),
            k_pm1: Constant::new(((p - 1) as u64).into()),
            k_pmask: Constant::new(((1u64 << p) - 1).into()),
        })
    }
}

impl Default for PathCfg {
    fn default() -> Self {
        Self::try_new(&PathConsts::new(&TransportConfig::default()), 8).expect("the default transport configuration fits")
    }
}

impl Logic for PathCfg {
    #[hdl_gen]
    fn update(&mut self) {
        self.beta.next = self.k_beta.val();
        self.head.next = self.k_head.val();
        self.g.next = self.k_g.val();
        self.cmin.next = self.k_cmin.val();
        self.cinit.next = self.k_cinit.val();
        self.cmax.next = self.k_cmax.val();
        self.rto_min.next = self.k_rto_min.val();
        self.rto_max.next = self.k_rto_max.val();
        self.rto_init.next = self.k_rto_init.val();
        self.ack.next = self.k_ack.val();
        self.ft.next = self.k_ft.val();
        self.mp.next = self.k_mp.val();
        self.np.next = self.k_np.val();
        self.pm1.next = self.k_pm1.val();
        self.pmask.next = self.k_pmask.val();
    }
}

#[derive(LogicBlock)]
pub struct PathTableRtl<const CONN_BITS: usize, const P: usize, const WB: usize, const EW: usize, const BW: usize> {
    // ---- inputs
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub now: Signal<In, Bits<32>>,
    pub s_valid: Signal<In, bool>,
    pub s_op: Signal<In, Bits<4>>,
    pub s_conn: Signal<In, Bits<CONN_BITS>>,
    pub s_path: Signal<In, Bits<4>>,
    pub s_n: Signal<In, Bits<9>>,
    pub s_nl: Signal<In, Bits<9>>,
    pub s_rtt_valid: Signal<In, bool>,
    pub s_rtt: Signal<In, Bits<32>>,
    pub s_ce: Signal<In, Bits<8>>,
    pub s_pkts: Signal<In, Bits<8>>,
    pub s_cum: Signal<In, Bits<24>>,
    pub s_next: Signal<In, Bits<24>>,
    pub s_ppsn: Signal<In, Bits<24>>,
    pub s_first: Signal<In, Bits<24>>,
    pub s_last: Signal<In, Bits<24>>,
    pub s_avoid_valid: Signal<In, bool>,
    pub s_avoid: Signal<In, Bits<4>>,
    pub s_plane: Signal<In, Bits<P>>,
    pub s_seq: Signal<In, Bits<32>>,
    pub s_port: Signal<In, Bits<16>>,
    pub s_seed: Signal<In, Bits<16>>,
    pub m_ready: Signal<In, bool>,
    pub m_tmo_ready: Signal<In, bool>,
    // ---- outputs
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_op: Signal<Out, Bits<4>>,
    pub m_conn: Signal<Out, Bits<CONN_BITS>>,
    pub m_path: Signal<Out, Bits<4>>,
    pub m_kind: Signal<Out, Bits<2>>,
    pub m_ppsn: Signal<Out, Bits<24>>,
    pub m_port: Signal<Out, Bits<16>>,
    pub m_seq: Signal<Out, Bits<32>>,
    pub m_flag: Signal<Out, bool>,
    pub m_tmo_hit: Signal<Out, Bits<2>>,
    pub m_hw_valid: Signal<Out, bool>,
    pub m_hw_on: Signal<Out, bool>,
    pub m_hw_wait: Signal<Out, Bits<31>>,
    pub m_tmo_valid: Signal<Out, bool>,
    pub m_tmo_conn: Signal<Out, Bits<CONN_BITS>>,
    pub m_tmo_rto: Signal<Out, Bits<P>>,
    pub m_tmo_probe: Signal<Out, Bits<P>>,
    // ---- status
    pub stat_select: Signal<Out, Bits<32>>,
    pub stat_select_none: Signal<Out, Bits<32>>,
    pub stat_probe_due: Signal<Out, Bits<32>>,
    pub stat_lost: Signal<Out, Bits<32>>,
    pub stat_decrease: Signal<Out, Bits<32>>,
    pub stat_ecn_cut: Signal<Out, Bits<32>>,
    pub stat_timeout: Signal<Out, Bits<32>>,
    pub stat_reroll: Signal<Out, Bits<32>>,
    pub stat_tmo: Signal<Out, Bits<32>>,
    // ---- configuration, memories
    ram_st: BlockRamReg<WB, CONN_BITS>,
    ram_ecn: BlockRam<EW, CONN_BITS>,
    bank_rmw: BlockRam<BW, CONN_BITS>,
    bank_scan: RAM<Bits<BW>, CONN_BITS>,
    // ---- input registers 1..=3
    in_f: Signal<Local, Bits<320>>,
    i1_v: DFF<bool>,
    i1_c: DFF<Bits<CONN_BITS>>,
    i1_f: DFF<Bits<320>>,
    i2_v: DFF<bool>,
    i2_c: DFF<Bits<CONN_BITS>>,
    i2_f: DFF<Bits<320>>,
    i3_v: DFF<bool>,
    i3_c: DFF<Bits<CONN_BITS>>,
    i3_f: DFF<Bits<320>>,
    // ---- register 3: E, the ECN accumulators (`pt_ecn`)
    e_op: Signal<Local, Bits<4>>,
    e_p: Signal<Local, Bits<4>>,
    e_ce: Signal<Local, Bits<8>>,
    e_pkts: Signal<Local, Bits<8>>,
    e_cum: Signal<Local, Bits<24>>,
    e_next: Signal<Local, Bits<24>>,
    e_pok: Signal<Local, bool>,
    e_wr: Signal<Local, bool>,
    e_word: Signal<Local, Bits<EW>>,
    e_row: Signal<Local, Bits<56>>,
    e_cea: Signal<Local, Bits<16>>,
    e_pka: Signal<Local, Bits<16>>,
    e_awe: Signal<Local, Bits<24>>,
    e_cs: Signal<Local, Bits<16>>,
    e_ps: Signal<Local, Bits<16>>,
    e_nrow: Signal<Local, Bits<56>>,
    e_nword: Signal<Local, Bits<EW>>,
    e_m: Signal<Local, Bits<EW>>,
    e_r: Signal<Local, Bits<EW>>,
    e_i: Signal<Local, Bits<4>>,
    // ---- registers 4..=15: the beat, E's results and the divider (400 bits a register),
    // apply valids (`pv`, kept through `rst`) and result valids (`pr`)
    line_p: DFF<Bits<4800>>,
    pv: DFF<Bits<12>>,
    pr: DFF<Bits<12>>,
    p_in: Signal<Local, Bits<400>>,
    p_inv: Signal<Local, bool>,
    p_next: Signal<Local, Bits<4800>>,
    p_st: Signal<Local, Bits<400>>,
    p_div: Signal<Local, Bits<4800>>,
    r13c: Signal<Local, Bits<CONN_BITS>>,
    r14c: Signal<Local, Bits<CONN_BITS>>,
    r15: Signal<Local, Bits<400>>,
    // ---- result lines: registers 16..=17 and 18..=25 (512 bits a register: the 256-bit
    // result and the after-the-loop fields of 16..=18), result valids
    line_a: DFF<Bits<1024>>,
    line_b: DFF<Bits<4096>>,
    rv_a: DFF<Bits<2>>,
    rv_b: DFF<Bits<8>>,
    // ---- counters
    c_select: DFF<Bits<32>>,
    c_none: DFF<Bits<32>>,
    c_pdue: DFF<Bits<32>>,
    c_lost: DFF<Bits<32>>,
    c_dec: DFF<Bits<32>>,
    c_cut: DFF<Bits<32>>,
    c_tmo_op: DFF<Bits<32>>,
    c_reroll: DFF<Bits<32>>,
    c_tmo: DFF<Bits<32>>,
    // ---- scanner
    sc: DFF<Bits<CONN_BITS>>,
    rd_v: DFF<bool>,
    rd_c: DFF<Bits<CONN_BITS>>,
    hit_v: DFF<bool>,
    hit_c: DFF<Bits<CONN_BITS>>,
    hit_r: DFF<Bits<P>>,
    hit_p: DFF<Bits<P>>,
    tmo_v: DFF<bool>,
    tmo_c: DFF<Bits<CONN_BITS>>,
    tmo_r: DFF<Bits<P>>,
    tmo_p: DFF<Bits<P>>,
    sc_held: Signal<Local, bool>,
    sc_e: Signal<Local, Bits<34>>,
    sc_x: Signal<Local, bool>,
    sc_r: Signal<Local, Bits<P>>,
    sc_p: Signal<Local, Bits<P>>,
    sc_oh: Signal<Local, Bits<P>>,
    // ---- control
    stall: Signal<Local, bool>,
    bubble: Signal<Local, bool>,
    adv: Signal<Local, bool>,
    madv: Signal<Local, bool>,
    badv: Signal<Local, bool>,
    r17: Signal<Local, Bits<512>>,
    r18: Signal<Local, Bits<512>>,
    r23: Signal<Local, Bits<512>>,
    r24: Signal<Local, Bits<512>>,
    r25: Signal<Local, Bits<512>>,
    // ---- apply stage: the op's fields
    u_op: Signal<Local, Bits<4>>,
    u_c: Signal<Local, Bits<CONN_BITS>>,
    u_cea: Signal<Local, Bits<16>>,
    u_pka: Signal<Local, Bits<16>>,
    u_close: Signal<Local, bool>,
    u_q: Signal<Local, Bits<11>>,
    mu_a: Signal<Local, Bits<16>>,
    mu_b: Signal<Local, Bits<16>>,
    mu_p: Signal<Local, Bits<32>>,
    mb_a: Signal<Local, Bits<16>>,
    mb_b: Signal<Local, Bits<16>>,
    mb_p: Signal<Local, Bits<32>>,
    u_p: Signal<Local, Bits<4>>,
    u_n: Signal<Local, Bits<9>>,
    u_nl: Signal<Local, Bits<9>>,
    u_rttv: Signal<Local, bool>,
    u_rtt: Signal<Local, Bits<32>>,
    u_cum: Signal<Local, Bits<24>>,
    u_next: Signal<Local, Bits<24>>,
    u_ppsn: Signal<Local, Bits<24>>,
    u_first: Signal<Local, Bits<24>>,
    u_last: Signal<Local, Bits<24>>,
    u_avv: Signal<Local, bool>,
    u_av: Signal<Local, Bits<4>>,
    u_plane: Signal<Local, Bits<16>>,
    u_seq: Signal<Local, Bits<32>>,
    u_port: Signal<Local, Bits<16>>,
    u_seed: Signal<Local, Bits<16>>,
    u_now: Signal<Local, Bits<32>>,
    is_rc: Signal<Local, bool>,
    is_rp: Signal<Local, bool>,
    is_sel: Signal<Local, bool>,
    is_psent: Signal<Local, bool>,
    is_ptmo: Signal<Local, bool>,
    is_prep: Signal<Local, bool>,
    is_ackb: Signal<Local, bool>,
    is_ackp: Signal<Local, bool>,
    is_loss: Signal<Local, bool>,
    is_ltmo: Signal<Local, bool>,
    is_rel: Signal<Local, bool>,
    is_tmo: Signal<Local, bool>,
    is_fail: Signal<Local, bool>,
    is_chk: Signal<Local, bool>,
    is_pop: Signal<Local, bool>,
    p_ok: Signal<Local, bool>,
    // ---- the connection word
    word: Signal<Local, Bits<WB>>,
    w_rr: Signal<Local, Bits<4>>,
    w_lfsr: Signal<Local, Bits<16>>,
    w_zmax: Signal<Local, bool>,
    // ---- summary over the rows
    t_row: Signal<Local, Bits<315>>,
    t_st: Signal<Local, Bits<2>>,
    t_cw: Signal<Local, Bits<17>>,
    t_w: Signal<Local, Bits<9>>,
    t_inf: Signal<Local, Bits<9>>,
    t_srtt: Signal<Local, Bits<31>>,
    t_i: Signal<Local, Bits<4>>,
    t_oh: Signal<Local, Bits<16>>,
    t_b: Signal<Local, bool>,
    s_elig: Signal<Local, Bits<16>>,
    s_okm: Signal<Local, Bits<16>>,
    s_pdue: Signal<Local, Bits<16>>,
    m_old: Signal<Local, Bits<31>>,
    // ---- selection
    mask: Signal<Local, Bits<16>>,
    pd: Signal<Local, Bits<16>>,
    pd_f: Signal<Local, bool>,
    pd_i: Signal<Local, Bits<4>>,
    start: Signal<Local, Bits<4>>,
    abit: Signal<Local, Bits<16>>,
    cand: Signal<Local, Bits<16>>,
    m1: Signal<Local, Bits<16>>,
    m2: Signal<Local, Bits<16>>,
    f1h: Signal<Local, bool>,
    f1hi: Signal<Local, Bits<4>>,
    f1l: Signal<Local, bool>,
    f1li: Signal<Local, Bits<4>>,
    f2h: Signal<Local, bool>,
    f2hi: Signal<Local, Bits<4>>,
    f2l: Signal<Local, bool>,
    f2li: Signal<Local, Bits<4>>,
    sel_f: Signal<Local, bool>,
    sel_i: Signal<Local, Bits<4>>,
    kind: Signal<Local, Bits<2>>,
    p_eff: Signal<Local, Bits<4>>,
    srow: Signal<Local, Bits<315>>,
    s_npp: Signal<Local, Bits<24>>,
    s_inf: Signal<Local, Bits<9>>,
    s_rs: Signal<Local, Bits<32>>,
    s_npp1: Signal<Local, Bits<24>>,
    s_inf1: Signal<Local, Bits<9>>,
    s_nrs: Signal<Local, Bits<32>>,
    s_nrow: Signal<Local, Bits<315>>,
    o_e: Signal<Local, Bits<14>>,
    o_st: Signal<Local, Bits<2>>,
    o_inf: Signal<Local, Bits<9>>,
    o_srtt: Signal<Local, Bits<31>>,
    o_rv: Signal<Local, Bits<30>>,
    o_bo: Signal<Local, Bits<5>>,
    o_psent: Signal<Local, Bits<32>>,
    o_rs: Signal<Local, Bits<32>>,
    o_pdue: Signal<Local, bool>,
    sel_data: Signal<Local, bool>,
    has_row: Signal<Local, bool>,
    // ---- the row, old
    row: Signal<Local, Bits<315>>,
    r_e: Signal<Local, Bits<14>>,
    r_st: Signal<Local, Bits<2>>,
    r_npp: Signal<Local, Bits<24>>,
    r_cw: Signal<Local, Bits<17>>,
    r_cnt: Signal<Local, Bits<9>>,
    r_inf: Signal<Local, Bits<9>>,
    r_srtt: Signal<Local, Bits<31>>,
    r_rv: Signal<Local, Bits<30>>,
    r_al: Signal<Local, Bits<11>>,
    r_hap: Signal<Local, Bits<24>>,
    r_aany: Signal<Local, bool>,
    r_strk: Signal<Local, Bits<8>>,
    r_ldp: Signal<Local, Bits<24>>,
    r_dany: Signal<Local, bool>,
    r_bo: Signal<Local, Bits<5>>,
    r_pseq: Signal<Local, Bits<32>>,
    r_psent: Signal<Local, Bits<32>>,
    r_ptr: Signal<Local, Bits<8>>,
    r_pdue: Signal<Local, bool>,
    r_rs: Signal<Local, Bits<32>>,
    r_win: Signal<Local, Bits<9>>,
    // ---- the row, new
    n_e: Signal<Local, Bits<14>>,
    n_st: Signal<Local, Bits<2>>,
    n_npp: Signal<Local, Bits<24>>,
    n_cw: Signal<Local, Bits<17>>,
    n_cnt: Signal<Local, Bits<9>>,
    n_inf: Signal<Local, Bits<9>>,
    n_srtt: Signal<Local, Bits<31>>,
    n_rv: Signal<Local, Bits<30>>,
    n_al: Signal<Local, Bits<11>>,
    n_hap: Signal<Local, Bits<24>>,
    n_aany: Signal<Local, bool>,
    n_strk: Signal<Local, Bits<8>>,
    n_ldp: Signal<Local, Bits<24>>,
    n_dany: Signal<Local, bool>,
    n_bo: Signal<Local, Bits<5>>,
    n_pseq: Signal<Local, Bits<32>>,
    n_psent: Signal<Local, Bits<32>>,
    n_ptr: Signal<Local, Bits<8>>,
    n_pdue: Signal<Local, bool>,
    n_rs: Signal<Local, Bits<32>>,
    n_row: Signal<Local, Bits<315>>,
    n_rr: Signal<Local, Bits<4>>,
    n_lfsr: Signal<Local, Bits<16>>,
    n_zmax: Signal<Local, bool>,
    n_word: Signal<Local, Bits<WB>>,
    // ---- helpers
    lf_step: Signal<Local, Bits<16>>,
    en_f: Signal<Local, Bits<10>>,
    en_e: Signal<Local, Bits<14>>,
    a_cnt10: Signal<Local, Bits<10>>,
    a_w10: Signal<Local, Bits<10>>,
    a_cw: Signal<Local, Bits<17>>,
    a_cnt: Signal<Local, Bits<9>>,
    a_inf: Signal<Local, Bits<9>>,
    a_cwu: Signal<Local, Bits<18>>,
    a_w2: Signal<Local, Bits<9>>,
    a_c2: Signal<Local, Bits<10>>,
    rt_in: Signal<Local, Bits<32>>,
    rt_s: Signal<Local, Bits<32>>,
    rt_err: Signal<Local, Bits<32>>,
    rt_s8: Signal<Local, Bits<32>>,
    rt_f8: Signal<Local, Bits<32>>,
    rt_f4: Signal<Local, Bits<32>>,
    rt_v4: Signal<Local, Bits<32>>,
    ec_cem: Signal<Local, Bits<8>>,
    ec_cea: Signal<Local, Bits<17>>,
    ec_pka: Signal<Local, Bits<17>>,
    ec_close: Signal<Local, bool>,
    dv_r: Signal<Local, Bits<18>>,
    dv_d: Signal<Local, Bits<18>>,
    dv_q: Signal<Local, Bits<11>>,
    dv_b: Signal<Local, bool>,
    ec_al: Signal<Local, Bits<11>>,
    ec_cutok: Signal<Local, bool>,
    mu_cut: Signal<Local, Bits<17>>,
    mb_cw: Signal<Local, Bits<17>>,
    sw_cw: Signal<Local, Bits<17>>,
    sw_cnt_in: Signal<Local, Bits<9>>,
    sw_w: Signal<Local, Bits<9>>,
    sw_cnt: Signal<Local, Bits<9>>,
    st_strk: Signal<Local, Bits<8>>,
    st_st: Signal<Local, Bits<2>>,
    st_fail: Signal<Local, bool>,
    ls_dec: Signal<Local, bool>,
    g_last: Signal<Local, Bits<24>>,
    // 24-bit sequence distances (own signals: inside a Verilog comparison with a 32-bit
    // literal a subtraction is evaluated at 32 bits and does not wrap mod 2^24)
    d_close: Signal<Local, Bits<24>>,
    d_cut: Signal<Local, Bits<24>>,
    d_first: Signal<Local, Bits<24>>,
    d_last: Signal<Local, Bits<24>>,
    d_hap: Signal<Local, Bits<24>>,
    d_sent: Signal<Local, Bits<24>>,
    f_flag: Signal<Local, bool>,
    f_seq: Signal<Local, Bits<32>>,
    f_ppsn: Signal<Local, Bits<24>>,
    f_mult: Signal<Local, bool>,
    f_dec: Signal<Local, bool>,
    f_cut: Signal<Local, bool>,
    f_reroll: Signal<Local, bool>,
    f_lost: Signal<Local, Bits<9>>,
    f_hit: Signal<Local, Bits<2>>,
    f_keyv: Signal<Local, bool>,
    // ---- rto, deadline
    rto_b: Signal<Local, Bits<32>>,
    rto_s: Signal<Local, Bits<64>>,
    rto: Signal<Local, Bits<32>>,
    dl_rv: Signal<Local, bool>,
    dl_pv: Signal<Local, bool>,
    dl_d: Signal<Local, Bits<32>>,
    // ---- head wait
    m_new: Signal<Local, Bits<31>>,
    hm: Signal<Local, Bits<31>>,
    hw_acc: Signal<Local, Bits<48>>,
    hw_sum: Signal<Local, Bits<48>>,
    hw_o_on: Signal<Local, bool>,
    hw_o_w: Signal<Local, Bits<31>>,
    hw_n_on: Signal<Local, bool>,
    hw_n_w: Signal<Local, Bits<31>>,
    hw_v: Signal<Local, bool>,
    // ---- result packing, bank write
    res: Signal<Local, Bits<512>>,
    r16: Signal<Local, Bits<512>>,
    n17: Signal<Local, Bits<512>>,
    n18: Signal<Local, Bits<512>>,
    n19: Signal<Local, Bits<512>>,
    dl_base: Signal<Local, Bits<32>>,
    m_oth: Signal<Local, Bits<31>>,
    u_poh: Signal<Local, Bits<16>>,
    m_same: Signal<Local, bool>,
    hx_l: Signal<Local, Bits<16>>,
    hx_h: Signal<Local, Bits<16>>,
    hh: Signal<Local, Bits<16>>,
    hp1: Signal<Local, Bits<32>>,
    hp2: Signal<Local, Bits<32>>,
    bk_e: Signal<Local, Bits<34>>,
    bk_w: Signal<Local, Bits<BW>>,
    bk_m: Signal<Local, Bits<BW>>,
    bk_s: Signal<Local, Bits<BW>>,
    w_m: Signal<Local, Bits<WB>>,
    w_r: Signal<Local, Bits<WB>>,
    e_lost: Signal<Local, Bits<32>>,
    // ---- constants (as locals: rust-hdl's Constant has no Default)
    k_taps: Constant<Bits<16>>,
    k_c000: Constant<Bits<16>>,
    k_one16: Constant<Bits<16>>,
    k_m24w: Constant<Bits<WB>>,
    k_ones315: Constant<Bits<315>>,
    k_m34: Constant<Bits<34>>,
    k_ones56: Constant<Bits<56>>,
    k_selm: Constant<Bits<315>>,
    k_mdiv: Constant<Bits<4800>>,
    t_d32: Signal<Local, Bits<32>>,
    en_f1: Signal<Local, Bits<10>>,
    dl_rh: Signal<Local, bool>,
    dl_ph: Signal<Local, bool>,
    dl_any: Signal<Local, bool>,
    n_port: Signal<Local, Bits<16>>,
    // ---- constants (localparams): the configuration's, and every integer literal of the
    // logic at its exact width (`l_c<width>_<value>`; rust-hdl writes a bare literal as 32'h..)
    kc_beta: Constant<Bits<9>>,
    kc_head: Constant<Bits<15>>,
    kc_g: Constant<Bits<4>>,
    kc_cmin: Constant<Bits<17>>,
    kc_cinit: Constant<Bits<17>>,
    kc_cmax: Constant<Bits<17>>,
    kc_rto_min: Constant<Bits<32>>,
    kc_rto_max: Constant<Bits<32>>,
    kc_rto_init: Constant<Bits<32>>,
    kc_ack: Constant<Bits<32>>,
    kc_ft: Constant<Bits<8>>,
    kc_mp: Constant<Bits<9>>,
    kc_np: Constant<Bits<5>>,
    kc_pm1: Constant<Bits<4>>,
    kc_pmask: Constant<Bits<16>>,
    l_c2_0: Constant<Bits<2>>,
    l_c2_1: Constant<Bits<2>>,
    l_c2_2: Constant<Bits<2>>,
    l_c2_3: Constant<Bits<2>>,
    l_c4_0: Constant<Bits<4>>,
    l_c4_1: Constant<Bits<4>>,
    l_c4_2: Constant<Bits<4>>,
    l_c4_3: Constant<Bits<4>>,
    l_c4_4: Constant<Bits<4>>,
    l_c4_5: Constant<Bits<4>>,
    l_c4_6: Constant<Bits<4>>,
    l_c4_7: Constant<Bits<4>>,
    l_c4_8: Constant<Bits<4>>,
    l_c4_9: Constant<Bits<4>>,
    l_c4_10: Constant<Bits<4>>,
    l_c4_11: Constant<Bits<4>>,
    l_c4_12: Constant<Bits<4>>,
    l_c4_13: Constant<Bits<4>>,
    l_c4_14: Constant<Bits<4>>,
    l_c5_0: Constant<Bits<5>>,
    l_c5_1: Constant<Bits<5>>,
    l_c5_31: Constant<Bits<5>>,
    l_c8_0: Constant<Bits<8>>,
    l_c8_1: Constant<Bits<8>>,
    l_c8_255: Constant<Bits<8>>,
    l_c9_0: Constant<Bits<9>>,
    l_c9_1: Constant<Bits<9>>,
    l_c10_1: Constant<Bits<10>>,
    l_c11_1024: Constant<Bits<11>>,
    l_c12_0: Constant<Bits<12>>,
    l_c56_0: Constant<Bits<56>>,
    l_c4800_0: Constant<Bits<4800>>,
    l_c15_0: Constant<Bits<15>>,
    l_c16_0: Constant<Bits<16>>,
    l_c16_1: Constant<Bits<16>>,
    l_c17_65535: Constant<Bits<17>>,
    l_c18_256: Constant<Bits<18>>,
    l_c24_0: Constant<Bits<24>>,
    l_c24_1: Constant<Bits<24>>,
    l_c30_0: Constant<Bits<30>>,
    l_c31_0: Constant<Bits<31>>,
    l_c31_2147483647: Constant<Bits<31>>,
    l_c32_0: Constant<Bits<32>>,
    l_c32_1: Constant<Bits<32>>,
    l_c32_268435455: Constant<Bits<32>>,
    l_c48_2147483647: Constant<Bits<48>>,
    l_c512_0: Constant<Bits<512>>,
    k_m256: Constant<Bits<512>>,
    l_c315_0: Constant<Bits<315>>,
    l_cconn_bits_0: Constant<Bits<CONN_BITS>>,
    l_cconn_bits_1: Constant<Bits<CONN_BITS>>,
    l_cp_0: Constant<Bits<P>>,
    l_cp_1: Constant<Bits<P>>,
}

/// The state word of one connection as the model's table gives it (the RAM's power-up
/// contents and the tests' decoder use the same layout).
pub fn encode_table(t: &PathTable) -> Vec<u64> {
    let p = t.paths.len();
    let bits = CONN_PART_BITS + ROW_BITS * p;
    let mut w = vec![0u64; bits.div_ceil(64)];
    put_bits(&mut w, 0, 4, u64::from(t.summary.rr));
    put_bits(&mut w, 4, 16, u64::from(t.lfsr()));
    for (i, x) in t.paths.iter().enumerate() {
        let o = CONN_PART_BITS + i * ROW_BITS;
        let st = match x.state {
            mrnic_model::transport::path::PathState::Ok => 0,
            mrnic_model::transport::path::PathState::Suspect => 1,
            mrnic_model::transport::path::PathState::Failed => 2,
            mrnic_model::transport::path::PathState::Probing => 3,
        };
        for (off, width, v) in [
            (0, 14, u64::from(x.entropy)),
            (14, 2, st),
            (16, 24, u64::from(x.next_path_psn)),
            (40, 17, u64::from(x.cwnd)),
            (57, 9, u64::from(x.cwnd_cnt)),
            (66, 9, u64::from(x.inflight)),
            (75, 31, u64::from(x.srtt8)),
            (106, 30, u64::from(x.rttvar4)),
            (136, 11, u64::from(x.alpha)),
            (147, 24, u64::from(x.highest_acked_path_psn)),
            (171, 1, u64::from(x.acked_any)),
            (172, 8, u64::from(x.strikes.min(255))),
            (180, 24, u64::from(x.last_decrease_psn)),
            (204, 1, u64::from(x.decreased_any)),
            (205, 5, u64::from(x.backoff_exp)),
            (210, 32, u64::from(x.probe_seq)),
            (242, 32, u64::from(x.probe_sent_at.0)),
            (274, 8, u64::from(x.probe_tries)),
            (282, 1, u64::from(x.probe_due)),
            (283, 32, u64::from(x.rto_start.0)),
        ] {
            put_bits(&mut w, o + off, width, v);
        }
    }
    w
}

/// The `pt_ecn` word of one connection (P x [ce_acc 16, pkt_acc 16, alpha_window_end 24]).
pub fn encode_ecn(t: &PathTable) -> Vec<u64> {
    let mut w = vec![0u64; (ECN_BITS * t.paths.len()).div_ceil(64)];
    for (i, x) in t.paths.iter().enumerate() {
        for (off, width, v) in [(0, 16, u64::from(x.ce_acc)), (16, 16, u64::from(x.pkt_acc)), (32, 24, u64::from(x.alpha_window_end))] {
            put_bits(&mut w, i * ECN_BITS + off, width, v);
        }
    }
    w
}

/// Writes the low `width` bits of `v` at bit `off` of the little-endian word `w`.
fn put_bits(w: &mut [u64], off: usize, width: usize, v: u64) {
    for b in 0..width {
        if v >> b & 1 == 1 {
            w[(off + b) / 64] |= 1 << ((off + b) % 64);
        }
    }
}

fn bits_of<const N: usize>(words: &[u64]) -> Bits<N> {
    let mut b: Bits<N> = 0.into();
    for i in (0..N).rev() {
        let bit = words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
        b = (b << 1) | Bits::<N>::from(u64::from(bit));
    }
    b
}

impl<const CONN_BITS: usize, const P: usize, const WB: usize, const EW: usize, const BW: usize> PathTableRtl<CONN_BITS, P, WB, EW, BW> {
    /// The table for the transport configuration `cfg` (P = `cfg.paths`); refuses
    /// inconsistent generics and constants that do not fit.
    pub fn try_new(cfg: &TransportConfig) -> Result<Self, ConfigError> {
        let ok = (1..=PATH_MAX_PATHS).contains(&P) && usize::from(cfg.paths) == P && WB == CONN_PART_BITS + ROW_BITS * P && EW == ECN_BITS * P && BW == DL_BITS * P && (1..=16).contains(&CONN_BITS);
        if !ok {
            return Err(ConfigError::invalid("transport", format!("PathTableRtl: inconsistent sizes CONN_BITS={CONN_BITS} P={P} WB={WB} EW={EW} BW={BW} (paths {})", cfg.paths)));
        }
        let k = PathConsts::new(cfg);
        let kc = PathCfg::try_new(&k, P)?;
        // Power-up contents: every connection as PathTable::new(cfg, 0, 0), no deadline.
        let w: Bits<WB> = bits_of(&encode_table(&PathTable::new(cfg, 0, 0)));
        let e: Bits<EW> = bits_of(&encode_ecn(&PathTable::new(cfg, 0, 0)));
        // the divider's fields (r 18, q 11 at 369..398) of each of registers 4..=15
        let mut mdiv = Bits::<4800>::from(0u64);
        for j in 0..12 {
            mdiv = mdiv | (Bits::<4800>::from(0x1FFF_FFFFu64) << ((j * 400 + 369) as u64));
        }
        let c = 1usize << CONN_BITS;
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_valid: Default::default(),
            s_op: Default::default(),
            s_conn: Default::default(),
            s_path: Default::default(),
            s_n: Default::default(),
            s_nl: Default::default(),
            s_rtt_valid: Default::default(),
            s_rtt: Default::default(),
            s_ce: Default::default(),
            s_pkts: Default::default(),
            s_cum: Default::default(),
            s_next: Default::default(),
            s_ppsn: Default::default(),
            s_first: Default::default(),
            s_last: Default::default(),
            s_avoid_valid: Default::default(),
            s_avoid: Default::default(),
            s_plane: Default::default(),
            s_seq: Default::default(),
            s_port: Default::default(),
            s_seed: Default::default(),
            m_ready: Default::default(),
            m_tmo_ready: Default::default(),
            s_ready: Default::default(),
            m_valid: Default::default(),
            m_op: Default::default(),
            m_conn: Default::default(),
            m_path: Default::default(),
            m_kind: Default::default(),
            m_ppsn: Default::default(),
            m_port: Default::default(),
            m_seq: Default::default(),
            m_flag: Default::default(),
            m_tmo_hit: Default::default(),
            m_hw_valid: Default::default(),
            m_hw_on: Default::default(),
            m_hw_wait: Default::default(),
            m_tmo_valid: Default::default(),
            m_tmo_conn: Default::default(),
            m_tmo_rto: Default::default(),
            m_tmo_probe: Default::default(),
            stat_select: Default::default(),
            stat_select_none: Default::default(),
            stat_probe_due: Default::default(),
            stat_lost: Default::default(),
            stat_decrease: Default::default(),
            stat_ecn_cut: Default::default(),
            stat_timeout: Default::default(),
            stat_reroll: Default::default(),
            stat_tmo: Default::default(),
            ram_st: BlockRamReg::with_init((0..c).map(|a| (Bits::<CONN_BITS>::from(a as u64), w)).collect()),
            bank_rmw: BlockRam::with_init((0..c).map(|a| (Bits::<CONN_BITS>::from(a as u64), 0.into())).collect()),
            bank_scan: RAM::new((0..c).map(|a| (Bits::<CONN_BITS>::from(a as u64), 0.into())).collect::<BTreeMap<_, _>>()),
            ram_ecn: BlockRam::with_init((0..c).map(|a| (Bits::<CONN_BITS>::from(a as u64), e)).collect()),
            in_f: Default::default(),
            i1_v: Default::default(),
            i1_c: Default::default(),
            i1_f: Default::default(),
            i2_v: Default::default(),
            i2_c: Default::default(),
            i2_f: Default::default(),
            i3_v: Default::default(),
            i3_c: Default::default(),
            i3_f: Default::default(),
            e_op: Default::default(),
            e_p: Default::default(),
            e_ce: Default::default(),
            e_pkts: Default::default(),
            e_cum: Default::default(),
            e_next: Default::default(),
            e_pok: Default::default(),
            e_wr: Default::default(),
            e_word: Default::default(),
            e_row: Default::default(),
            e_cea: Default::default(),
            e_pka: Default::default(),
            e_awe: Default::default(),
            e_cs: Default::default(),
            e_ps: Default::default(),
            e_nrow: Default::default(),
            e_nword: Default::default(),
            e_m: Default::default(),
            e_r: Default::default(),
            e_i: Default::default(),
            line_p: Default::default(),
            pv: Default::default(),
            pr: Default::default(),
            p_in: Default::default(),
            p_inv: Default::default(),
            p_next: Default::default(),
            p_st: Default::default(),
            p_div: Default::default(),
            r13c: Default::default(),
            r14c: Default::default(),
            r15: Default::default(),
            line_a: Default::default(),
            line_b: Default::default(),
            rv_a: Default::default(),
            rv_b: Default::default(),
            c_select: Default::default(),
            c_none: Default::default(),
            c_pdue: Default::default(),
            c_lost: Default::default(),
            c_dec: Default::default(),
            c_cut: Default::default(),
            c_tmo_op: Default::default(),
            c_reroll: Default::default(),
            c_tmo: Default::default(),
            sc: Default::default(),
            rd_v: Default::default(),
            rd_c: Default::default(),
            hit_v: Default::default(),
            hit_c: Default::default(),
            hit_r: Default::default(),
            hit_p: Default::default(),
            tmo_v: Default::default(),
            tmo_c: Default::default(),
            tmo_r: Default::default(),
            tmo_p: Default::default(),
            sc_held: Default::default(),
            sc_e: Default::default(),
            sc_x: Default::default(),
            sc_r: Default::default(),
            sc_p: Default::default(),
            sc_oh: Default::default(),
            stall: Default::default(),
            bubble: Default::default(),
            adv: Default::default(),
            madv: Default::default(),
            badv: Default::default(),
            r17: Default::default(),
            r18: Default::default(),
            r23: Default::default(),
            r24: Default::default(),
            r25: Default::default(),
            u_op: Default::default(),
            u_c: Default::default(),
            u_cea: Default::default(),
            u_pka: Default::default(),
            u_close: Default::default(),
            u_q: Default::default(),
            mu_a: Default::default(),
            mu_b: Default::default(),
            mu_p: Default::default(),
            mb_a: Default::default(),
            mb_b: Default::default(),
            mb_p: Default::default(),
            u_p: Default::default(),
            u_n: Default::default(),
            u_nl: Default::default(),
            u_rttv: Default::default(),
            u_rtt: Default::default(),
            u_cum: Default::default(),
            u_next: Default::default(),
            u_ppsn: Default::default(),
            u_first: Default::default(),
            u_last: Default::default(),
            u_avv: Default::default(),
            u_av: Default::default(),
            u_plane: Default::default(),
            u_seq: Default::default(),
            u_port: Default::default(),
            u_seed: Default::default(),
            u_now: Default::default(),
            is_rc: Default::default(),
            is_rp: Default::default(),
            is_sel: Default::default(),
            is_psent: Default::default(),
            is_ptmo: Default::default(),
            is_prep: Default::default(),
            is_ackb: Default::default(),
            is_ackp: Default::default(),
            is_loss: Default::default(),
            is_ltmo: Default::default(),
            is_rel: Default::default(),
            is_tmo: Default::default(),
            is_fail: Default::default(),
            is_chk: Default::default(),
            is_pop: Default::default(),
            p_ok: Default::default(),
            word: Default::default(),
            w_rr: Default::default(),
            w_lfsr: Default::default(),
            w_zmax: Default::default(),
            t_row: Default::default(),
            t_st: Default::default(),
            t_cw: Default::default(),
            t_w: Default::default(),
            t_inf: Default::default(),
            t_srtt: Default::default(),
            t_i: Default::default(),
            t_oh: Default::default(),
            t_b: Default::default(),
            s_elig: Default::default(),
            s_okm: Default::default(),
            s_pdue: Default::default(),
            m_old: Default::default(),
            mask: Default::default(),
            pd: Default::default(),
            pd_f: Default::default(),
            pd_i: Default::default(),
            start: Default::default(),
            abit: Default::default(),
            cand: Default::default(),
            m1: Default::default(),
            m2: Default::default(),
            f1h: Default::default(),
            f1hi: Default::default(),
            f1l: Default::default(),
            f1li: Default::default(),
            f2h: Default::default(),
            f2hi: Default::default(),
            f2l: Default::default(),
            f2li: Default::default(),
            sel_f: Default::default(),
            sel_i: Default::default(),
            kind: Default::default(),
            p_eff: Default::default(),
            srow: Default::default(),
            s_npp: Default::default(),
            s_inf: Default::default(),
            s_rs: Default::default(),
            s_npp1: Default::default(),
            s_inf1: Default::default(),
            s_nrs: Default::default(),
            s_nrow: Default::default(),
            o_e: Default::default(),
            o_st: Default::default(),
            o_inf: Default::default(),
            o_srtt: Default::default(),
            o_rv: Default::default(),
            o_bo: Default::default(),
            o_psent: Default::default(),
            o_rs: Default::default(),
            o_pdue: Default::default(),
            sel_data: Default::default(),
            has_row: Default::default(),
            row: Default::default(),
            r_e: Default::default(),
            r_st: Default::default(),
            r_npp: Default::default(),
            r_cw: Default::default(),
            r_cnt: Default::default(),
            r_inf: Default::default(),
            r_srtt: Default::default(),
            r_rv: Default::default(),
            r_al: Default::default(),
            r_hap: Default::default(),
            r_aany: Default::default(),
            r_strk: Default::default(),
            r_ldp: Default::default(),
            r_dany: Default::default(),
            r_bo: Default::default(),
            r_pseq: Default::default(),
            r_psent: Default::default(),
            r_ptr: Default::default(),
            r_pdue: Default::default(),
            r_rs: Default::default(),
            r_win: Default::default(),
            n_e: Default::default(),
            n_st: Default::default(),
            n_npp: Default::default(),
            n_cw: Default::default(),
            n_cnt: Default::default(),
            n_inf: Default::default(),
            n_srtt: Default::default(),
            n_rv: Default::default(),
            n_al: Default::default(),
            n_hap: Default::default(),
            n_aany: Default::default(),
            n_strk: Default::default(),
            n_ldp: Default::default(),
            n_dany: Default::default(),
            n_bo: Default::default(),
            n_pseq: Default::default(),
            n_psent: Default::default(),
            n_ptr: Default::default(),
            n_pdue: Default::default(),
            n_rs: Default::default(),
            n_row: Default::default(),
            n_rr: Default::default(),
            n_lfsr: Default::default(),
            n_zmax: Default::default(),
            n_word: Default::default(),
            lf_step: Default::default(),
            en_f: Default::default(),
            en_e: Default::default(),
            a_cnt10: Default::default(),
            a_w10: Default::default(),
            a_cw: Default::default(),
            a_cnt: Default::default(),
            a_inf: Default::default(),
            a_cwu: Default::default(),
            a_w2: Default::default(),
            a_c2: Default::default(),
            rt_in: Default::default(),
            rt_s: Default::default(),
            rt_err: Default::default(),
            rt_s8: Default::default(),
            rt_f8: Default::default(),
            rt_f4: Default::default(),
            rt_v4: Default::default(),
            ec_cem: Default::default(),
            ec_cea: Default::default(),
            ec_pka: Default::default(),
            ec_close: Default::default(),
            dv_r: Default::default(),
            dv_d: Default::default(),
            dv_q: Default::default(),
            dv_b: Default::default(),
            ec_al: Default::default(),
            ec_cutok: Default::default(),
            mu_cut: Default::default(),
            mb_cw: Default::default(),
            sw_cw: Default::default(),
            sw_cnt_in: Default::default(),
            sw_w: Default::default(),
            sw_cnt: Default::default(),
            st_strk: Default::default(),
            st_st: Default::default(),
            st_fail: Default::default(),
            ls_dec: Default::default(),
            g_last: Default::default(),
            d_close: Default::default(),
            d_cut: Default::default(),
            d_first: Default::default(),
            d_last: Default::default(),
            d_hap: Default::default(),
            d_sent: Default::default(),
            f_flag: Default::default(),
            f_seq: Default::default(),
            f_ppsn: Default::default(),
            f_mult: Default::default(),
            f_dec: Default::default(),
            f_cut: Default::default(),
            f_reroll: Default::default(),
            f_lost: Default::default(),
            f_hit: Default::default(),
            f_keyv: Default::default(),
            rto_b: Default::default(),
            rto_s: Default::default(),
            rto: Default::default(),
            dl_rv: Default::default(),
            dl_pv: Default::default(),
            dl_d: Default::default(),
            m_new: Default::default(),
            hm: Default::default(),
            hw_acc: Default::default(),
            hw_sum: Default::default(),
            hw_o_on: Default::default(),
            hw_o_w: Default::default(),
            hw_n_on: Default::default(),
            hw_n_w: Default::default(),
            hw_v: Default::default(),
            res: Default::default(),
            r16: Default::default(),
            n17: Default::default(),
            n18: Default::default(),
            n19: Default::default(),
            dl_base: Default::default(),
            m_oth: Default::default(),
            u_poh: Default::default(),
            m_same: Default::default(),
            hx_l: Default::default(),
            hx_h: Default::default(),
            hh: Default::default(),
            hp1: Default::default(),
            hp2: Default::default(),
            bk_e: Default::default(),
            bk_w: Default::default(),
            bk_m: Default::default(),
            bk_s: Default::default(),
            w_m: Default::default(),
            w_r: Default::default(),
            e_lost: Default::default(),
            k_taps: Constant::new(Bits::<16>::from(0xB400u64)),
            k_c000: Constant::new(Bits::<16>::from(0xC000u64)),
            k_one16: Constant::new(Bits::<16>::from(1u64)),
            k_m24w: Constant::new(Bits::<WB>::from(0xFF_FFFFu64)),
            k_ones315: Constant::new(!Bits::<315>::from(0u64)),
            k_m34: Constant::new(!Bits::<34>::from(0u64)),
            k_ones56: Constant::new(!Bits::<56>::from(0u64)),
            k_selm: Constant::new((Bits::<315>::from(0xFF_FFFFu64) << 16u64) | (Bits::<315>::from(0x1FFu64) << 66u64) | (Bits::<315>::from(0xFFFF_FFFFu64) << 283u64)),
            k_mdiv: Constant::new(mdiv),
            t_d32: Default::default(),
            en_f1: Default::default(),
            dl_rh: Default::default(),
            dl_ph: Default::default(),
            dl_any: Default::default(),
            n_port: Default::default(),
            kc_beta: kc.k_beta.clone(),
            kc_head: kc.k_head.clone(),
            kc_g: kc.k_g.clone(),
            kc_cmin: kc.k_cmin.clone(),
            kc_cinit: kc.k_cinit.clone(),
            kc_cmax: kc.k_cmax.clone(),
            kc_rto_min: kc.k_rto_min.clone(),
            kc_rto_max: kc.k_rto_max.clone(),
            kc_rto_init: kc.k_rto_init.clone(),
            kc_ack: kc.k_ack.clone(),
            kc_ft: kc.k_ft.clone(),
            kc_mp: kc.k_mp.clone(),
            kc_np: kc.k_np.clone(),
            kc_pm1: kc.k_pm1.clone(),
            kc_pmask: kc.k_pmask.clone(),
            l_c2_0: Constant::new(Bits::<2>::from(0u64)),
            l_c2_1: Constant::new(Bits::<2>::from(1u64)),
            l_c2_2: Constant::new(Bits::<2>::from(2u64)),
            l_c2_3: Constant::new(Bits::<2>::from(3u64)),
            l_c4_0: Constant::new(Bits::<4>::from(0u64)),
            l_c4_1: Constant::new(Bits::<4>::from(1u64)),
            l_c4_2: Constant::new(Bits::<4>::from(2u64)),
            l_c4_3: Constant::new(Bits::<4>::from(3u64)),
            l_c4_4: Constant::new(Bits::<4>::from(4u64)),
            l_c4_5: Constant::new(Bits::<4>::from(5u64)),
            l_c4_6: Constant::new(Bits::<4>::from(6u64)),
            l_c4_7: Constant::new(Bits::<4>::from(7u64)),
            l_c4_8: Constant::new(Bits::<4>::from(8u64)),
            l_c4_9: Constant::new(Bits::<4>::from(9u64)),
            l_c4_10: Constant::new(Bits::<4>::from(10u64)),
            l_c4_11: Constant::new(Bits::<4>::from(11u64)),
            l_c4_12: Constant::new(Bits::<4>::from(12u64)),
            l_c4_13: Constant::new(Bits::<4>::from(13u64)),
            l_c4_14: Constant::new(Bits::<4>::from(14u64)),
            l_c5_0: Constant::new(Bits::<5>::from(0u64)),
            l_c5_1: Constant::new(Bits::<5>::from(1u64)),
            l_c5_31: Constant::new(Bits::<5>::from(31u64)),
            l_c8_0: Constant::new(Bits::<8>::from(0u64)),
            l_c8_1: Constant::new(Bits::<8>::from(1u64)),
            l_c8_255: Constant::new(Bits::<8>::from(255u64)),
            l_c9_0: Constant::new(Bits::<9>::from(0u64)),
            l_c9_1: Constant::new(Bits::<9>::from(1u64)),
            l_c10_1: Constant::new(Bits::<10>::from(1u64)),
            l_c11_1024: Constant::new(Bits::<11>::from(1024u64)),
            l_c12_0: Constant::new(Bits::<12>::from(0u64)),
            l_c56_0: Constant::new(Bits::<56>::from(0u64)),
            l_c4800_0: Constant::new(Bits::<4800>::from(0u64)),
            l_c15_0: Constant::new(Bits::<15>::from(0u64)),
            l_c16_0: Constant::new(Bits::<16>::from(0u64)),
            l_c16_1: Constant::new(Bits::<16>::from(1u64)),
            l_c17_65535: Constant::new(Bits::<17>::from(65535u64)),
            l_c18_256: Constant::new(Bits::<18>::from(256u64)),
            l_c24_0: Constant::new(Bits::<24>::from(0u64)),
            l_c24_1: Constant::new(Bits::<24>::from(1u64)),
            l_c30_0: Constant::new(Bits::<30>::from(0u64)),
            l_c31_0: Constant::new(Bits::<31>::from(0u64)),
            l_c31_2147483647: Constant::new(Bits::<31>::from(2147483647u64)),
            l_c32_0: Constant::new(Bits::<32>::from(0u64)),
            l_c32_1: Constant::new(Bits::<32>::from(1u64)),
            l_c32_268435455: Constant::new(Bits::<32>::from(268435455u64)),
            l_c48_2147483647: Constant::new(Bits::<48>::from(2147483647u64)),
            l_c512_0: Constant::new(Bits::<512>::from(0u64)),
            k_m256: Constant::new(!Bits::<512>::from(0u64) >> 256u64),
            l_c315_0: Constant::new(Bits::<315>::from(0u64)),
            l_cconn_bits_0: Constant::new(Bits::<CONN_BITS>::from(0u64)),
            l_cconn_bits_1: Constant::new(Bits::<CONN_BITS>::from(1u64)),
            l_cp_0: Constant::new(Bits::<P>::from(0u64)),
            l_cp_1: Constant::new(Bits::<P>::from(1u64)),
        })
    }
}

impl<const CONN_BITS: usize, const P: usize, const WB: usize, const EW: usize, const BW: usize> Logic for PathTableRtl<CONN_BITS, P, WB, EW, BW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram_ecn.clock.next = self.clock.val();
        self.bank_rmw.clock.next = self.clock.val();
        self.bank_scan.read_clock.next = self.clock.val();
        self.bank_scan.write_clock.next = self.clock.val();
        dff_setup!(
            self, clock, i1_v, i1_c, i1_f, i2_v, i2_c, i2_f, i3_v, i3_c, i3_f, line_p, pv, pr, line_a, line_b, rv_a, rv_b, c_select, c_none, c_pdue, c_lost, c_dec, c_cut, c_tmo_op, c_reroll,
            c_tmo, sc, rd_v, rd_c, hit_v, hit_c, hit_r, hit_p, tmo_v, tmo_c, tmo_r, tmo_p
        );


        // ================= control: global stall, the §2.9 bubble
        self.r16.next = self.line_a.q.val().get_bits::<512>(0);
        self.r17.next = self.line_a.q.val().get_bits::<512>(512);
        self.r18.next = self.line_b.q.val().get_bits::<512>(0);
        self.r23.next = self.line_b.q.val().get_bits::<512>(2560);
        self.r24.next = self.line_b.q.val().get_bits::<512>(3072);
        self.r25.next = self.line_b.q.val().get_bits::<512>(3584);
        self.stall.next = self.rv_b.q.val().get_bit(7) & !self.m_ready.val() & !self.rst.val();
        self.bubble.next = !self.rst.val()
            & !self.stall.val()
            & self.rv_a.q.val().get_bit(1)
            & self.rv_b.q.val().get_bit(0)
            & ((self.r17.val().get_bits::<4>(1) == self.l_c4_7.val()) | (self.r17.val().get_bits::<4>(1) == self.l_c4_8.val()))
            & self.r17.val().get_bit(135)
            & self.r18.val().get_bit(135)
            & (self.r17.val().get_bits::<20>(5) == self.r18.val().get_bits::<20>(5))
            & self.r18.val().get_bit(136);
        self.adv.next = !self.rst.val() & !self.stall.val() & !self.bubble.val();
        // registers 4..=17 also advance under `rst`: their ops were applied, as the shell
        // sees it, as they left register 3
        self.madv.next = !self.stall.val() & !self.bubble.val();
        self.badv.next = self.rst.val() | !self.stall.val();
        self.s_ready.next = self.adv.val();

        // ================= registers 1..=3: the input beat, packed
        // in_f: op 0..4, path 4..8, n 8..17, nl 17..26, rttv 26, rtt 27..59, ce 59..67,
        // pkts 67..75, cum 75..99, next 99..123, ppsn 123..147, first 147..171, last 171..195,
        // avv 195, av 196..200, plane 200..216, seq 216..248, port 248..264, seed 264..280,
        // now 280..312
        self.in_f.next = bit_cast::<320, 4>(self.s_op.val())
            | (bit_cast::<320, 4>(self.s_path.val()) << 4)
            | (bit_cast::<320, 9>(self.s_n.val()) << 8)
            | (bit_cast::<320, 9>(self.s_nl.val()) << 17)
            | (bit_cast::<320, 1>(self.s_rtt_valid.val().into()) << 26)
            | (bit_cast::<320, 32>(self.s_rtt.val()) << 27)
            | (bit_cast::<320, 8>(self.s_ce.val()) << 59)
            | (bit_cast::<320, 8>(self.s_pkts.val()) << 67)
            | (bit_cast::<320, 24>(self.s_cum.val()) << 75)
            | (bit_cast::<320, 24>(self.s_next.val()) << 99)
            | (bit_cast::<320, 24>(self.s_ppsn.val()) << 123)
            | (bit_cast::<320, 24>(self.s_first.val()) << 147)
            | (bit_cast::<320, 24>(self.s_last.val()) << 171)
            | (bit_cast::<320, 1>(self.s_avoid_valid.val().into()) << 195)
            | (bit_cast::<320, 4>(self.s_avoid.val()) << 196)
            | (bit_cast::<320, P>(self.s_plane.val()) << 200)
            | (bit_cast::<320, 32>(self.s_seq.val()) << 216)
            | (bit_cast::<320, 16>(self.s_port.val()) << 248)
            | (bit_cast::<320, 16>(self.s_seed.val()) << 264)
            | (bit_cast::<320, 32>(self.now.val()) << 280);
        if self.rst.val() {
            self.i1_v.d.next = false;
            self.i2_v.d.next = false;
            self.i3_v.d.next = false;
        }
        if self.adv.val() {
            self.i1_v.d.next = self.s_valid.val();
            self.i1_c.d.next = self.s_conn.val();
            self.i1_f.d.next = self.in_f.val();
            self.i2_v.d.next = self.i1_v.q.val();
            self.i2_c.d.next = self.i1_c.q.val();
            self.i2_f.d.next = self.i1_f.q.val();
            self.i3_v.d.next = self.i2_v.q.val();
            self.i3_c.d.next = self.i2_c.q.val();
            self.i3_f.d.next = self.i2_f.q.val();
        }

        // ================= register 3: E, the ECN accumulators' loop. `pt_ecn` is read from
        // register 2 (a held register 3 re-reads); written as the op leaves register 3
        self.ram_ecn.read_address.next = self.i3_c.q.val();
        if self.adv.val() {
            self.ram_ecn.read_address.next = self.i2_c.q.val();
        }
        self.e_op.next = self.i3_f.q.val().get_bits::<4>(0);
        self.e_p.next = self.i3_f.q.val().get_bits::<4>(4);
        self.e_ce.next = self.i3_f.q.val().get_bits::<8>(59);
        self.e_pkts.next = self.i3_f.q.val().get_bits::<8>(67);
        self.e_cum.next = self.i3_f.q.val().get_bits::<24>(75);
        self.e_next.next = self.i3_f.q.val().get_bits::<24>(99);
        self.e_pok.next = bit_cast::<5, 4>(self.e_p.val()) < self.kc_np.val();
        self.e_word.next = self.ram_ecn.read_data.val();
        self.e_row.next = self.l_c56_0.val();
        self.e_i.next = self.l_c4_0.val();
        for i in 0..P {
            if self.e_i.val() == self.e_p.val() {
                self.e_row.next = self.e_word.val().get_bits::<56>(i * 56);
            }
            self.e_i.next = self.e_i.val() + self.l_c4_1.val();
        }
        self.e_cea.next = self.e_row.val().get_bits::<16>(0);
        self.e_pka.next = self.e_row.val().get_bits::<16>(16);
        self.e_awe.next = self.e_row.val().get_bits::<24>(32);
        // ACKP: accumulate (saturating), window close when cum is at or after the window end
        self.ec_cem.next = self.e_ce.val();
        if self.e_ce.val() > self.e_pkts.val() {
            self.ec_cem.next = self.e_pkts.val();
        }
        self.ec_cea.next = bit_cast::<17, 16>(self.e_cea.val()) + bit_cast::<17, 8>(self.ec_cem.val());
        if self.ec_cea.val() > self.l_c17_65535.val() {
            self.ec_cea.next = self.l_c17_65535.val();
        }
        self.ec_pka.next = bit_cast::<17, 16>(self.e_pka.val()) + bit_cast::<17, 8>(self.e_pkts.val());
        if self.ec_pka.val() > self.l_c17_65535.val() {
            self.ec_pka.next = self.l_c17_65535.val();
        }
        self.e_cs.next = self.ec_cea.val().get_bits::<16>(0);
        self.e_ps.next = self.ec_pka.val().get_bits::<16>(0);
        self.d_close.next = self.e_cum.val() - self.e_awe.val();
        self.ec_close.next = !self.d_close.val().get_bit(23);
        self.e_nrow.next = self.e_row.val();
        self.e_wr.next = false;
        if (self.e_op.val() == self.l_c4_1.val()) & self.e_pok.val() {
            self.e_nrow.next = self.l_c56_0.val();
            self.e_wr.next = true;
        }
        if (self.e_op.val() == self.l_c4_7.val()) & self.e_pok.val() {
            self.e_nrow.next = bit_cast::<56, 16>(self.e_cs.val()) | (bit_cast::<56, 16>(self.e_ps.val()) << 16) | (bit_cast::<56, 24>(self.e_awe.val()) << 32);
            if self.ec_close.val() {
                self.e_nrow.next = bit_cast::<56, 24>(self.e_next.val()) << 32;
            }
            self.e_wr.next = true;
        }
        self.e_nword.next = self.e_word.val();
        self.e_m.next = bit_cast::<EW, 56>(self.k_ones56.val());
        self.e_r.next = bit_cast::<EW, 56>(self.e_nrow.val());
        self.e_i.next = self.l_c4_0.val();
        for _i in 0..P {
            if self.e_i.val() == self.e_p.val() {
                self.e_nword.next = (self.e_word.val() & !self.e_m.val()) | self.e_r.val();
            }
            self.e_m.next = self.e_m.val() << 56;
            self.e_r.next = self.e_r.val() << 56;
            self.e_i.next = self.e_i.val() + self.l_c4_1.val();
        }
        self.ram_ecn.write_enable.next = self.adv.val() & self.i3_v.q.val() & self.e_wr.val();
        self.ram_ecn.write_address.next = self.i3_c.q.val();
        self.ram_ecn.write_data.next = self.e_nword.val();

        // ================= registers 4..=15: the beat and E's results travel; the divider
        // floor((cea << 10) / pka) takes one restoring step a register (register 4 holds
        // r = cea, q = 0; register 4 + k holds k steps; r is kept shifted for the next step).
        // Layout: beat 0..320, conn 320..336, cea 336..352, pka 352..368, close 368,
        // r 369..387, q 387..398
        self.p_inv.next = self.i3_v.q.val() & !self.rst.val();
        self.p_in.next = bit_cast::<400, 320>(self.i3_f.q.val())
            | (bit_cast::<400, CONN_BITS>(self.i3_c.q.val()) << 320)
            | (bit_cast::<400, 16>(self.e_cs.val()) << 336)
            | (bit_cast::<400, 16>(self.e_ps.val()) << 352)
            | (bit_cast::<400, 1>(self.ec_close.val().into()) << 368)
            | (bit_cast::<400, 16>(self.e_cs.val()) << 369);
        self.p_next.next = ((self.line_p.q.val() << 400) & !self.k_mdiv.val()) | bit_cast::<4800, 400>(self.p_in.val());
        self.p_div.next = self.l_c4800_0.val();
        for j in 0..11 {
            self.p_st.next = self.line_p.q.val().get_bits::<400>(j * 400);
            self.dv_d.next = bit_cast::<18, 16>(self.p_st.val().get_bits::<16>(352));
            self.dv_r.next = self.p_st.val().get_bits::<18>(369);
            self.dv_b.next = self.dv_r.val() >= self.dv_d.val();
            if self.dv_b.val() {
                self.dv_r.next = self.dv_r.val() - self.dv_d.val();
            }
            self.dv_r.next = self.dv_r.val() << 1;
            self.dv_q.next = (self.p_st.val().get_bits::<11>(387) << 1) | bit_cast::<11, 1>(self.dv_b.val().into());
            // register 5 + j's (r, q): added at register 15's place, moved down a register a step
            self.p_div.next = (self.p_div.val() >> 400) | (bit_cast::<4800, 18>(self.dv_r.val()) << 4769) | (bit_cast::<4800, 11>(self.dv_q.val()) << 4787);
        }
        self.p_next.next = self.p_next.val() | self.p_div.val();
        if self.madv.val() {
            self.line_p.d.next = self.p_next.val();
            self.pv.d.next = (self.pv.q.val() << 1) | bit_cast::<12, 1>(self.p_inv.val().into());
            self.pr.d.next = (self.pr.q.val() << 1) | bit_cast::<12, 1>(self.p_inv.val().into());
        }
        if self.rst.val() {
            self.pr.d.next = self.l_c12_0.val();
        }
        self.r13c.next = self.line_p.q.val().get_bits::<CONN_BITS>(3920);
        self.r14c.next = self.line_p.q.val().get_bits::<CONN_BITS>(4320);
        self.r15.next = self.line_p.q.val().get_bits::<400>(4400);

        // ================= state read (read latency 2, `BlockRamReg`): the output register
        // loads, as the pipeline advances, the word of the op moving into register 15, read
        // a cycle earlier: from register 13 if that cycle advanced too, else from 14
        self.ram_st.clock.next = self.clock.val();
        self.ram_st.ce.next = self.madv.val();
        self.ram_st.read_address.next = self.r14c.val();
        if self.madv.val() {
            self.ram_st.read_address.next = self.r13c.val();
        }

        // ================= register 15: apply
        self.u_c.next = self.r15.val().get_bits::<CONN_BITS>(320);
        self.u_cea.next = self.r15.val().get_bits::<16>(336);
        self.u_pka.next = self.r15.val().get_bits::<16>(352);
        self.u_close.next = self.r15.val().get_bit(368);
        self.u_q.next = self.r15.val().get_bits::<11>(387);
        self.u_op.next = self.r15.val().get_bits::<4>(0);
        self.u_p.next = self.r15.val().get_bits::<4>(4);
        self.u_n.next = self.r15.val().get_bits::<9>(8);
        self.u_nl.next = self.r15.val().get_bits::<9>(17);
        self.u_rttv.next = self.r15.val().get_bit(26);
        self.u_rtt.next = self.r15.val().get_bits::<32>(27);
        self.u_cum.next = self.r15.val().get_bits::<24>(75);
        self.u_next.next = self.r15.val().get_bits::<24>(99);
        self.u_ppsn.next = self.r15.val().get_bits::<24>(123);
        self.u_first.next = self.r15.val().get_bits::<24>(147);
        self.u_last.next = self.r15.val().get_bits::<24>(171);
        self.u_avv.next = self.r15.val().get_bit(195);
        self.u_av.next = self.r15.val().get_bits::<4>(196);
        self.u_plane.next = self.r15.val().get_bits::<16>(200);
        self.u_seq.next = self.r15.val().get_bits::<32>(216);
        self.u_port.next = self.r15.val().get_bits::<16>(248);
        self.u_seed.next = self.r15.val().get_bits::<16>(264);
        self.u_now.next = self.r15.val().get_bits::<32>(280);
        self.is_rc.next = self.u_op.val() == self.l_c4_0.val();
        self.is_rp.next = self.u_op.val() == self.l_c4_1.val();
        self.is_sel.next = self.u_op.val() == self.l_c4_2.val();
        self.is_psent.next = self.u_op.val() == self.l_c4_3.val();
        self.is_ptmo.next = self.u_op.val() == self.l_c4_4.val();
        self.is_prep.next = self.u_op.val() == self.l_c4_5.val();
        self.is_ackb.next = self.u_op.val() == self.l_c4_6.val();
        self.is_ackp.next = self.u_op.val() == self.l_c4_7.val();
        self.is_loss.next = self.u_op.val() == self.l_c4_8.val();
        self.is_ltmo.next = self.u_op.val() == self.l_c4_9.val();
        self.is_rel.next = self.u_op.val() == self.l_c4_10.val();
        self.is_tmo.next = self.u_op.val() == self.l_c4_11.val();
        self.is_fail.next = self.u_op.val() == self.l_c4_12.val();
        self.is_chk.next = self.u_op.val() == self.l_c4_13.val();
        self.p_ok.next = bit_cast::<5, 4>(self.u_p.val()) < self.kc_np.val();
        // a path op (codes 1, 3..=13) on a path that exists
        self.is_pop.next = !self.is_rc.val() & !self.is_sel.val() & (self.u_op.val() < self.l_c4_14.val()) & self.p_ok.val();

        self.word.next = self.ram_st.read_data.val();
        self.w_rr.next = self.word.val().get_bits::<4>(0);
        self.w_lfsr.next = self.word.val().get_bits::<16>(4);
        self.w_zmax.next = self.word.val().get_bit(20);

        // ---- summary over the rows: eligible, OK, probe due, srtt8 maximum
        self.s_elig.next = self.l_c16_0.val();
        self.s_okm.next = self.l_c16_0.val();
        self.s_pdue.next = self.l_c16_0.val();
        self.m_old.next = self.l_c31_0.val();
        self.m_oth.next = self.l_c31_0.val();
        self.u_poh.next = self.l_c16_1.val() << self.u_p.val();
        self.t_oh.next = self.l_c16_1.val();
        for i in 0..P {
            self.t_row.next = self.word.val().get_bits::<315>(i * 315 + 24);
            self.t_st.next = self.t_row.val().get_bits::<2>(14);
            self.t_cw.next = self.t_row.val().get_bits::<17>(40);
            self.t_inf.next = self.t_row.val().get_bits::<9>(66);
            self.t_srtt.next = self.t_row.val().get_bits::<31>(75);
            self.t_w.next = self.t_cw.val().get_bits::<9>(8);
            if self.t_w.val() == self.l_c9_0.val() {
                self.t_w.next = self.l_c9_1.val();
            }
            if !self.t_st.val().get_bit(1) & (self.t_inf.val() < self.t_w.val()) {
                self.s_elig.next = self.s_elig.val() | self.t_oh.val();
            }
            if self.t_st.val() == self.l_c2_0.val() {
                self.s_okm.next = self.s_okm.val() | self.t_oh.val();
            }
            if self.t_row.val().get_bit(282) {
                self.s_pdue.next = self.s_pdue.val() | self.t_oh.val();
            }
            if self.t_srtt.val() > self.m_old.val() {
                self.m_old.next = self.t_srtt.val();
            }
            if !(self.t_oh.val() & self.u_poh.val()).any() & (self.t_srtt.val() > self.m_oth.val()) {
                self.m_oth.next = self.t_srtt.val();
            }
            self.t_oh.next = self.t_oh.val() << 1;
        }

        // ---- SELECT: probe due first (row order), else round robin from rr + 1
        self.mask.next = self.u_plane.val() & self.kc_pmask.val();
        self.pd.next = self.s_pdue.val() & self.mask.val();
        self.start.next = self.w_rr.val() + self.l_c4_1.val();
        if self.w_rr.val() == self.kc_pm1.val() {
            self.start.next = self.l_c4_0.val();
        }
        self.abit.next = (self.k_one16.val() << self.u_av.val()) & self.kc_pmask.val();
        self.cand.next = self.s_elig.val() & self.mask.val();
        self.m1.next = self.cand.val();
        if self.u_avv.val() {
            self.m1.next = self.cand.val() & self.s_okm.val() & !self.abit.val();
        }
        self.m2.next = self.cand.val() & !self.s_okm.val() & !self.abit.val();
        self.pd_f.next = false;
        self.pd_i.next = self.l_c4_0.val();
        self.f1h.next = false;
        self.f1hi.next = self.l_c4_0.val();
        self.f1l.next = false;
        self.f1li.next = self.l_c4_0.val();
        self.f2h.next = false;
        self.f2hi.next = self.l_c4_0.val();
        self.f2l.next = false;
        self.f2li.next = self.l_c4_0.val();
        self.t_i.next = self.l_c4_0.val();
        self.t_oh.next = self.l_c16_1.val();
        for _i in 0..P {
            self.t_b.next = (self.pd.val() & self.t_oh.val()).any();
            if self.t_b.val() & !self.pd_f.val() {
                self.pd_f.next = true;
                self.pd_i.next = self.t_i.val();
            }
            self.t_b.next = (self.m1.val() & self.t_oh.val()).any();
            if self.t_b.val() & !self.f1l.val() {
                self.f1l.next = true;
                self.f1li.next = self.t_i.val();
            }
            if self.t_b.val() & !self.f1h.val() & (self.t_i.val() >= self.start.val()) {
                self.f1h.next = true;
                self.f1hi.next = self.t_i.val();
            }
            self.t_b.next = (self.m2.val() & self.t_oh.val()).any();
            if self.t_b.val() & !self.f2l.val() {
                self.f2l.next = true;
                self.f2li.next = self.t_i.val();
            }
            if self.t_b.val() & !self.f2h.val() & (self.t_i.val() >= self.start.val()) {
                self.f2h.next = true;
                self.f2hi.next = self.t_i.val();
            }
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
            self.t_oh.next = self.t_oh.val() << 1;
        }
        self.sel_f.next = false;
        self.sel_i.next = self.l_c4_0.val();
        if self.f1l.val() {
            self.sel_f.next = true;
            self.sel_i.next = self.f1li.val();
            if self.f1h.val() {
                self.sel_i.next = self.f1hi.val();
            }
        } else if self.u_avv.val() & self.f2l.val() {
            self.sel_f.next = true;
            self.sel_i.next = self.f2li.val();
            if self.f2h.val() {
                self.sel_i.next = self.f2hi.val();
            }
        } else if self.u_avv.val() & (self.cand.val() & self.abit.val()).any() {
            self.sel_f.next = true;
            self.sel_i.next = self.u_av.val();
        }
        self.kind.next = self.l_c2_0.val();
        self.p_eff.next = self.u_p.val();
        if self.is_sel.val() {
            self.p_eff.next = self.l_c4_0.val();
            if self.pd_f.val() {
                self.kind.next = self.l_c2_2.val();
                self.p_eff.next = self.pd_i.val();
            } else if self.sel_f.val() {
                self.kind.next = self.l_c2_1.val();
                self.p_eff.next = self.sel_i.val();
            }
        }
        self.has_row.next = self.is_pop.val() | (self.is_sel.val() & (self.kind.val() != self.l_c2_0.val()));

        // a path op's row (u_p; `is_pop`, RESET_PATH included): the read-modify-write of
        // everything but SELECT; a SELECT's row (p_eff, after the selection) only has
        // inflight, next path PSN and rto start moved
        self.sel_data.next = self.is_sel.val() & (self.kind.val() == self.l_c2_1.val());

        // ---- SELECT: the row of p_eff, its lane update, its fields for the outputs
        self.srow.next = self.l_c315_0.val();
        self.t_i.next = self.l_c4_0.val();
        for i in 0..P {
            if self.t_i.val() == self.p_eff.val() {
                self.srow.next = self.word.val().get_bits::<315>(i * 315 + 24);
            }
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
        }
        self.s_npp.next = self.srow.val().get_bits::<24>(16);
        self.s_inf.next = self.srow.val().get_bits::<9>(66);
        self.s_rs.next = self.srow.val().get_bits::<32>(283);
        self.s_npp1.next = self.s_npp.val() + self.l_c24_1.val();
        self.s_inf1.next = self.s_inf.val() + self.l_c9_1.val();
        self.s_nrs.next = self.s_rs.val();
        if self.s_inf.val() == self.l_c9_0.val() {
            self.s_nrs.next = self.u_now.val();
        }
        self.s_nrow.next = (self.srow.val() & !self.k_selm.val())
            | (bit_cast::<315, 24>(self.s_npp1.val()) << 16)
            | (bit_cast::<315, 9>(self.s_inf1.val()) << 66)
            | (bit_cast::<315, 32>(self.s_nrs.val()) << 283);

        // ---- the row of u_p
        self.row.next = self.l_c315_0.val();
        self.t_i.next = self.l_c4_0.val();
        for i in 0..P {
            if self.t_i.val() == self.u_p.val() {
                self.row.next = self.word.val().get_bits::<315>(i * 315 + 24);
            }
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
        }
        self.r_e.next = self.row.val().get_bits::<14>(0);
        self.r_st.next = self.row.val().get_bits::<2>(14);
        self.r_npp.next = self.row.val().get_bits::<24>(16);
        self.r_cw.next = self.row.val().get_bits::<17>(40);
        self.r_cnt.next = self.row.val().get_bits::<9>(57);
        self.r_inf.next = self.row.val().get_bits::<9>(66);
        self.r_srtt.next = self.row.val().get_bits::<31>(75);
        self.r_rv.next = self.row.val().get_bits::<30>(106);
        self.r_al.next = self.row.val().get_bits::<11>(136);
        self.r_hap.next = self.row.val().get_bits::<24>(147);
        self.r_aany.next = self.row.val().get_bit(171);
        self.r_strk.next = self.row.val().get_bits::<8>(172);
        self.r_ldp.next = self.row.val().get_bits::<24>(180);
        self.r_dany.next = self.row.val().get_bit(204);
        self.r_bo.next = self.row.val().get_bits::<5>(205);
        self.r_pseq.next = self.row.val().get_bits::<32>(210);
        self.r_psent.next = self.row.val().get_bits::<32>(242);
        self.r_ptr.next = self.row.val().get_bits::<8>(274);
        self.r_pdue.next = self.row.val().get_bit(282);
        self.r_rs.next = self.row.val().get_bits::<32>(283);
        self.r_win.next = self.r_cw.val().get_bits::<9>(8);
        if self.r_win.val() == self.l_c9_0.val() {
            self.r_win.next = self.l_c9_1.val();
        }

        // ---- the entropy LFSR: one step and the draw for u_p (M4)
        self.lf_step.next = self.w_lfsr.val() >> 1;
        if self.w_lfsr.val().get_bit(0) {
            self.lf_step.next = (self.w_lfsr.val() >> 1) ^ self.k_taps.val();
        }
        self.en_f.next = self.lf_step.val().get_bits::<10>(6);
        self.en_e.next = (bit_cast::<14, 10>(self.en_f.val()) << 4) | bit_cast::<14, 4>(self.u_p.val());
        self.en_f1.next = self.en_f.val() + self.l_c10_1.val();
        if (self.en_e.val() == self.r_e.val()) & !self.is_rp.val() {
            self.en_e.next = (bit_cast::<14, 10>(self.en_f1.val()) << 4) | bit_cast::<14, 4>(self.u_p.val());
        }

        // ---- on_acked (ACKB, ACKP)
        self.a_cw.next = self.r_cw.val();
        self.a_cnt.next = self.r_cnt.val();
        self.a_inf.next = self.r_inf.val();
        self.a_cnt10.next = bit_cast::<10, 9>(self.r_cnt.val()) + bit_cast::<10, 9>(self.u_n.val());
        self.a_w10.next = bit_cast::<10, 9>(self.r_win.val());
        self.a_cwu.next = bit_cast::<18, 17>(self.r_cw.val()) + self.l_c18_256.val();
        if self.a_cwu.val() > bit_cast::<18, 17>(self.kc_cmax.val()) {
            self.a_cwu.next = bit_cast::<18, 17>(self.kc_cmax.val());
        }
        self.a_w2.next = self.a_cwu.val().get_bits::<9>(8);
        if self.a_w2.val() == self.l_c9_0.val() {
            self.a_w2.next = self.l_c9_1.val();
        }
        self.a_c2.next = self.a_cnt10.val() - self.a_w10.val();
        if self.a_c2.val() > bit_cast::<10, 9>(self.a_w2.val() - self.l_c9_1.val()) {
            self.a_c2.next = bit_cast::<10, 9>(self.a_w2.val() - self.l_c9_1.val());
        }
        if self.u_n.val() != self.l_c9_0.val() {
            self.a_inf.next = self.l_c9_0.val();
            if self.r_inf.val() >= self.u_n.val() {
                self.a_inf.next = self.r_inf.val() - self.u_n.val();
            }
            self.a_cnt.next = self.a_cnt10.val().get_bits::<9>(0);
            if self.a_cnt10.val() >= self.a_w10.val() {
                self.a_cw.next = self.a_cwu.val().get_bits::<17>(0);
                self.a_cnt.next = self.a_c2.val().get_bits::<9>(0);
            }
        }

        // ---- RTT sample: ACKP's, or PREPLY's now - probe_sent_at; clamped 1..=2^28-1
        self.rt_in.next = self.u_rtt.val();
        if self.is_prep.val() {
            self.rt_in.next = self.u_now.val() - self.r_psent.val();
        }
        self.rt_s.next = self.rt_in.val();
        if self.rt_in.val() == self.l_c32_0.val() {
            self.rt_s.next = self.l_c32_1.val();
        }
        if self.rt_in.val() > self.l_c32_268435455.val() {
            self.rt_s.next = self.l_c32_268435455.val();
        }
        self.rt_err.next = (bit_cast::<32, 31>(self.r_srtt.val()) >> 3) - self.rt_s.val();
        if (bit_cast::<32, 31>(self.r_srtt.val()) >> 3) < self.rt_s.val() {
            self.rt_err.next = self.rt_s.val() - (bit_cast::<32, 31>(self.r_srtt.val()) >> 3);
        }
        self.rt_f8.next = self.rt_s.val() << 3;
        self.rt_f4.next = self.rt_s.val() << 1;
        self.rt_s8.next = self.rt_s.val() << 3;
        self.rt_v4.next = self.rt_s.val() << 1;
        if self.r_srtt.val() != self.l_c31_0.val() {
            self.rt_s8.next = bit_cast::<32, 31>(self.r_srtt.val()) - (bit_cast::<32, 31>(self.r_srtt.val()) >> 3) + self.rt_s.val();
            self.rt_v4.next = bit_cast::<32, 30>(self.r_rv.val()) - (bit_cast::<32, 30>(self.r_rv.val()) >> 2) + self.rt_err.val();
        }

        // ---- ECN (ACKP): alpha and the cut, from E's window close and the divider's quotient
        self.ec_al.next = self.r_al.val() - (self.r_al.val() >> self.kc_g.val()) + (self.u_q.val() >> self.kc_g.val());
        self.d_cut.next = self.u_cum.val() - self.r_ldp.val();
        self.ec_cutok.next = self.u_close.val() & (self.u_pka.val() != self.l_c16_0.val()) & (self.u_cea.val() != self.l_c16_0.val()) & (!self.r_dany.val() | !self.d_cut.val().get_bit(23));
        // cut = (cwnd * alpha') >> 11, on the window after on_acked: cwnd's low 16 bits times
        // alpha' (a MULT18X18D), plus alpha' << 16 when cwnd's bit 16 is set
        self.mu_a.next = self.a_cw.val().get_bits::<16>(0);
        self.mu_b.next = bit_cast::<16, 11>(self.ec_al.val());
        self.mu_p.next = self.mu_a.val() * self.mu_b.val();
        self.mu_cut.next = self.mu_p.val().get_bits::<17>(11);
        if self.a_cw.val().get_bit(16) {
            // (p + (alpha' << 16)) >> 11 = (p >> 11) + (alpha' << 5): the low bits are zero
            self.mu_cut.next = self.mu_p.val().get_bits::<17>(11) + (bit_cast::<17, 11>(self.ec_al.val()) << 5);
        }
        // loss decrease: (cwnd * beta_q8) >> 8, the same split
        self.mb_a.next = self.r_cw.val().get_bits::<16>(0);
        self.mb_b.next = bit_cast::<16, 9>(self.kc_beta.val());
        self.mb_p.next = self.mb_a.val() * self.mb_b.val();
        self.mb_cw.next = self.mb_p.val().get_bits::<17>(8);
        if self.r_cw.val().get_bit(16) {
            self.mb_cw.next = self.mb_p.val().get_bits::<17>(8) + (bit_cast::<17, 9>(self.kc_beta.val()) << 8);
        }
        if self.mb_cw.val() < self.kc_cmin.val() {
            self.mb_cw.next = self.kc_cmin.val();
        }
        // the decrease the op makes (ECN cut, LOSS, TIMEOUT) and the counter clamp
        self.sw_cw.next = self.kc_cmin.val();
        self.sw_cnt_in.next = self.r_cnt.val();
        if self.is_ackp.val() {
            self.sw_cw.next = self.a_cw.val() - self.mu_cut.val();
            if self.sw_cw.val() < self.kc_cmin.val() {
                self.sw_cw.next = self.kc_cmin.val();
            }
            self.sw_cnt_in.next = self.a_cnt.val();
        }
        if self.is_loss.val() {
            self.sw_cw.next = self.mb_cw.val();
        }
        self.sw_w.next = self.sw_cw.val().get_bits::<9>(8);
        if self.sw_w.val() == self.l_c9_0.val() {
            self.sw_w.next = self.l_c9_1.val();
        }
        self.sw_cnt.next = self.sw_cnt_in.val();
        if self.sw_cnt_in.val() > self.sw_w.val() - self.l_c9_1.val() {
            self.sw_cnt.next = self.sw_w.val() - self.l_c9_1.val();
        }
        // a strike (LOSS with a decrease, TIMEOUT)
        self.st_strk.next = self.r_strk.val() + self.l_c8_1.val();
        if self.r_strk.val() == self.l_c8_255.val() {
            self.st_strk.next = self.l_c8_255.val();
        }
        self.st_st.next = self.r_st.val();
        if self.r_st.val() == self.l_c2_0.val() {
            self.st_st.next = self.l_c2_1.val();
        }
        self.st_fail.next = self.st_strk.val() >= self.kc_ft.val();
        self.d_first.next = self.u_first.val() - self.r_ldp.val();
        self.d_last.next = self.u_last.val() - self.r_ldp.val();
        self.ls_dec.next = (self.u_n.val() != self.l_c9_0.val()) & (!self.r_dany.val() | !self.d_first.val().get_bit(23) | !self.d_last.val().get_bit(23));
        self.g_last.next = self.r_npp.val() - self.l_c24_1.val();
        self.d_hap.next = self.u_ppsn.val() - self.r_hap.val();
        self.d_sent.next = self.g_last.val() - self.u_ppsn.val();

        // ---- the new row (defaults: unchanged)
        self.n_e.next = self.r_e.val();
        self.n_st.next = self.r_st.val();
        self.n_npp.next = self.r_npp.val();
        self.n_cw.next = self.r_cw.val();
        self.n_cnt.next = self.r_cnt.val();
        self.n_inf.next = self.r_inf.val();
        self.n_srtt.next = self.r_srtt.val();
        self.n_rv.next = self.r_rv.val();
        self.n_al.next = self.r_al.val();
        self.n_hap.next = self.r_hap.val();
        self.n_aany.next = self.r_aany.val();
        self.n_strk.next = self.r_strk.val();
        self.n_ldp.next = self.r_ldp.val();
        self.n_dany.next = self.r_dany.val();
        self.n_bo.next = self.r_bo.val();
        self.n_pseq.next = self.r_pseq.val();
        self.n_psent.next = self.r_psent.val();
        self.n_ptr.next = self.r_ptr.val();
        self.n_pdue.next = self.r_pdue.val();
        self.n_rs.next = self.r_rs.val();
        self.n_rr.next = self.w_rr.val();
        self.n_lfsr.next = self.w_lfsr.val();
        self.n_zmax.next = false;
        self.f_flag.next = false;
        self.f_seq.next = self.l_c32_0.val();
        self.f_ppsn.next = self.l_c24_0.val();
        self.f_dec.next = false;
        self.f_cut.next = false;
        self.f_reroll.next = false;
        self.f_lost.next = self.l_c9_0.val();
        self.f_hit.next = self.l_c2_0.val();

        if self.is_rc.val() {
            self.n_lfsr.next = self.u_seed.val();
            if self.u_seed.val() == self.l_c16_0.val() {
                self.n_lfsr.next = self.l_c16_1.val();
            }
            self.n_rr.next = self.kc_pm1.val();
            self.n_zmax.next = true;
        }
        if self.is_rp.val() & self.p_ok.val() {
            self.n_zmax.next = self.w_zmax.val();
            self.n_lfsr.next = self.lf_step.val();
            self.n_e.next = self.en_e.val();
            self.n_st.next = self.l_c2_0.val();
            self.n_npp.next = self.u_ppsn.val();
            self.n_cw.next = self.kc_cinit.val();
            self.n_cnt.next = self.l_c9_0.val();
            self.n_inf.next = self.l_c9_0.val();
            self.n_srtt.next = self.l_c31_0.val();
            self.n_rv.next = self.l_c30_0.val();
            self.n_al.next = self.l_c11_1024.val();
            self.n_hap.next = self.l_c24_0.val();
            self.n_aany.next = false;
            self.n_strk.next = self.l_c8_0.val();
            self.n_ldp.next = self.l_c24_0.val();
            self.n_dany.next = false;
            self.n_bo.next = self.l_c5_0.val();
            self.n_pseq.next = self.l_c32_0.val();
            self.n_psent.next = self.l_c32_0.val();
            self.n_ptr.next = self.l_c8_0.val();
            self.n_pdue.next = false;
            self.n_rs.next = self.l_c32_0.val();
        }
        if self.is_rp.val() & !self.p_ok.val() {
            self.n_zmax.next = self.w_zmax.val();
        }
        if self.sel_data.val() {
            self.n_rr.next = self.p_eff.val();
            self.f_ppsn.next = self.s_npp.val();
        }
        if self.is_pop.val() {
            if self.is_psent.val() {
                self.n_st.next = self.l_c2_3.val();
                self.n_pseq.next = self.r_pseq.val() + self.l_c32_1.val();
                self.n_psent.next = self.u_now.val();
                self.n_pdue.next = false;
                self.f_seq.next = self.r_pseq.val() + self.l_c32_1.val();
            }
            if self.is_ptmo.val() {
                self.n_pdue.next = true;
                self.n_ptr.next = self.r_ptr.val() + self.l_c8_1.val();
                if (bit_cast::<9, 8>(self.r_ptr.val()) + self.l_c9_1.val()) >= self.kc_mp.val() {
                    self.n_lfsr.next = self.lf_step.val();
                    self.n_e.next = self.en_e.val();
                    self.n_ptr.next = self.l_c8_0.val();
                    self.f_reroll.next = true;
                    self.f_flag.next = true;
                }
            }
            if self.is_prep.val() {
                if (self.r_st.val() == self.l_c2_3.val()) & !self.r_pdue.val() & (self.u_seq.val() == self.r_pseq.val()) & (self.u_port.val() == (bit_cast::<16, 14>(self.r_e.val()) | self.k_c000.val())) {
                    self.f_flag.next = true;
                    self.n_st.next = self.l_c2_0.val();
                    self.n_strk.next = self.l_c8_0.val();
                    self.n_bo.next = self.l_c5_0.val();
                    self.n_cw.next = self.kc_cinit.val();
                    self.n_cnt.next = self.l_c9_0.val();
                    self.n_inf.next = self.l_c9_0.val();
                    self.n_srtt.next = self.rt_f8.val().get_bits::<31>(0);
                    self.n_rv.next = self.rt_f4.val().get_bits::<30>(0);
                    self.n_dany.next = false;
                }
            }
            if (self.is_ackb.val() | self.is_ackp.val()) & ((self.u_n.val() != self.l_c9_0.val()) | (self.u_nl.val() != self.l_c9_0.val())) {
                self.n_inf.next = self.a_inf.val();
                self.n_cw.next = self.a_cw.val();
                self.n_cnt.next = self.a_cnt.val();
                if self.u_n.val() != self.l_c9_0.val() {
                    self.n_rs.next = self.u_now.val();
                }
                if !self.r_st.val().get_bit(1) {
                    self.n_strk.next = self.l_c8_0.val();
                    self.n_bo.next = self.l_c5_0.val();
                    self.n_st.next = self.l_c2_0.val();
                }
            }
            if self.is_ackp.val() {
                if self.u_rttv.val() {
                    self.n_srtt.next = self.rt_s8.val().get_bits::<31>(0);
                    self.n_rv.next = self.rt_v4.val().get_bits::<30>(0);
                }
                if self.u_close.val() {
                    if self.u_pka.val() != self.l_c16_0.val() {
                        self.n_al.next = self.ec_al.val();
                    }
                    if self.ec_cutok.val() {
                        self.n_cw.next = self.sw_cw.val();
                        self.n_cnt.next = self.sw_cnt.val();
                        self.n_dany.next = true;
                        self.n_ldp.next = self.u_next.val();
                        self.f_cut.next = true;
                    }
                }
                if (!self.r_aany.val() | !self.d_hap.val().get_bit(23)) & !self.d_sent.val().get_bit(23) {
                    self.n_aany.next = true;
                    self.n_hap.next = self.u_ppsn.val();
                    self.f_flag.next = true;
                }
            }
            if self.is_loss.val() {
                self.f_lost.next = self.u_n.val();
                if self.u_n.val() != self.l_c9_0.val() {
                    self.n_inf.next = self.l_c9_0.val();
                    if self.r_inf.val() >= self.u_n.val() {
                        self.n_inf.next = self.r_inf.val() - self.u_n.val();
                    }
                    if self.ls_dec.val() {
                        self.f_dec.next = true;
                        self.n_dany.next = true;
                        self.n_ldp.next = self.u_next.val();
                        self.n_cw.next = self.sw_cw.val();
                        self.n_cnt.next = self.sw_cnt.val();
                        self.n_strk.next = self.st_strk.val();
                        self.n_st.next = self.st_st.val();
                        self.f_flag.next = self.st_fail.val();
                    }
                }
            }
            if self.is_ltmo.val() | self.is_rel.val() {
                self.n_inf.next = self.l_c9_0.val();
                if self.r_inf.val() >= self.u_n.val() {
                    self.n_inf.next = self.r_inf.val() - self.u_n.val();
                }
            }
            if self.is_ltmo.val() {
                self.f_lost.next = self.u_n.val();
            }
            if self.is_tmo.val() {
                self.n_cw.next = self.sw_cw.val();
                self.n_cnt.next = self.sw_cnt.val();
                self.n_dany.next = true;
                self.n_ldp.next = self.u_next.val();
                self.n_bo.next = self.r_bo.val() + self.l_c5_1.val();
                if self.r_bo.val() == self.l_c5_31.val() {
                    self.n_bo.next = self.l_c5_31.val();
                }
                self.n_strk.next = self.st_strk.val();
                self.n_st.next = self.st_st.val();
                self.f_flag.next = self.st_fail.val();
            }
            if self.is_fail.val() {
                self.n_lfsr.next = self.lf_step.val();
                self.n_e.next = self.en_e.val();
                self.n_st.next = self.l_c2_2.val();
                self.n_inf.next = self.l_c9_0.val();
                self.n_ptr.next = self.l_c8_0.val();
                self.n_pdue.next = true;
                self.f_reroll.next = true;
            }
        }
        self.f_mult.next = self.f_cut.val() | self.f_dec.val();
        self.f_keyv.next = self.is_pop.val();

        // ---- the row after the op, for the outputs and the deadline: a SELECT's (p_eff) or
        // the path op's (u_p)
        self.o_e.next = self.n_e.val();
        self.o_st.next = self.n_st.val();
        self.o_inf.next = self.n_inf.val();
        self.o_srtt.next = self.n_srtt.val();
        self.o_rv.next = self.n_rv.val();
        self.o_bo.next = self.n_bo.val();
        self.o_psent.next = self.n_psent.val();
        self.o_rs.next = self.n_rs.val();
        self.o_pdue.next = self.n_pdue.val();
        if self.is_sel.val() {
            self.o_e.next = self.srow.val().get_bits::<14>(0);
            self.o_st.next = self.srow.val().get_bits::<2>(14);
            self.o_inf.next = self.s_inf.val();
            self.o_srtt.next = self.srow.val().get_bits::<31>(75);
            self.o_rv.next = self.srow.val().get_bits::<30>(106);
            self.o_bo.next = self.srow.val().get_bits::<5>(205);
            self.o_psent.next = self.srow.val().get_bits::<32>(242);
            self.o_rs.next = self.s_rs.val();
            self.o_pdue.next = self.srow.val().get_bit(282);
            if self.sel_data.val() {
                self.o_inf.next = self.s_inf1.val();
                self.o_rs.next = self.s_nrs.val();
            }
        }
        // ---- the row's deadline: its kind and base here; rto(p) and the sum in registers
        // 16..=18 (below)
        self.dl_rv.next = (self.o_inf.val() != self.l_c9_0.val()) & !self.o_st.val().get_bit(1);
        self.dl_pv.next = (self.o_st.val() == self.l_c2_3.val()) & !self.o_pdue.val();
        self.dl_base.next = self.o_rs.val();
        if self.dl_pv.val() {
            self.dl_base.next = self.o_psent.val();
        }

        self.n_port.next = bit_cast::<16, 14>(self.o_e.val()) | self.k_c000.val();
        self.dl_any.next = self.dl_rv.val() | self.dl_pv.val();
        // ---- the new word
        self.n_row.next = bit_cast::<315, 14>(self.n_e.val())
            | (bit_cast::<315, 2>(self.n_st.val()) << 14)
            | (bit_cast::<315, 24>(self.n_npp.val()) << 16)
            | (bit_cast::<315, 17>(self.n_cw.val()) << 40)
            | (bit_cast::<315, 9>(self.n_cnt.val()) << 57)
            | (bit_cast::<315, 9>(self.n_inf.val()) << 66)
            | (bit_cast::<315, 31>(self.n_srtt.val()) << 75)
            | (bit_cast::<315, 30>(self.n_rv.val()) << 106)
            | (bit_cast::<315, 11>(self.n_al.val()) << 136)
            | (bit_cast::<315, 24>(self.n_hap.val()) << 147)
            | (bit_cast::<315, 1>(self.n_aany.val().into()) << 171)
            | (bit_cast::<315, 8>(self.n_strk.val()) << 172)
            | (bit_cast::<315, 24>(self.n_ldp.val()) << 180)
            | (bit_cast::<315, 1>(self.n_dany.val().into()) << 204)
            | (bit_cast::<315, 5>(self.n_bo.val()) << 205)
            | (bit_cast::<315, 32>(self.n_pseq.val()) << 210)
            | (bit_cast::<315, 32>(self.n_psent.val()) << 242)
            | (bit_cast::<315, 8>(self.n_ptr.val()) << 274)
            | (bit_cast::<315, 1>(self.n_pdue.val().into()) << 282)
            | (bit_cast::<315, 32>(self.n_rs.val()) << 283);
        self.n_word.next = (self.word.val() & !self.k_m24w.val())
            | bit_cast::<WB, 4>(self.n_rr.val())
            | (bit_cast::<WB, 16>(self.n_lfsr.val()) << 4)
            | (bit_cast::<WB, 1>(self.n_zmax.val().into()) << 20);
        self.t_i.next = self.l_c4_0.val();
        self.w_m.next = bit_cast::<WB, 315>(self.k_ones315.val()) << 24;
        self.w_r.next = bit_cast::<WB, 315>(self.n_row.val()) << 24;
        for _i in 0..P {
            if self.is_pop.val() & (self.t_i.val() == self.u_p.val()) {
                self.n_word.next = (self.n_word.val() & !self.w_m.val()) | self.w_r.val();
            }
            self.w_m.next = self.w_m.val() << 315;
            self.w_r.next = self.w_r.val() << 315;
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
        }
        self.t_i.next = self.l_c4_0.val();
        self.w_m.next = bit_cast::<WB, 315>(self.k_ones315.val()) << 24;
        self.w_r.next = bit_cast::<WB, 315>(self.s_nrow.val()) << 24;
        for _i in 0..P {
            if self.sel_data.val() & (self.t_i.val() == self.p_eff.val()) {
                self.n_word.next = (self.n_word.val() & !self.w_m.val()) | self.w_r.val();
            }
            self.w_m.next = self.w_m.val() << 315;
            self.w_r.next = self.w_r.val() << 315;
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
        }
        self.ram_st.write_enable.next = self.madv.val() & self.pv.q.val().get_bit(11);
        self.ram_st.write_address.next = self.u_c.val();
        self.ram_st.write_data.next = self.n_word.val();

        // ---- head wait: the srtt maximum before (m_old) and, after, the maximum of the other
        // rows and the op's new srtt (only an op on its own path u_p changes an srtt); the
        // products in registers 16..=17 (below)
        self.m_same.next = self.is_sel.val() | !self.has_row.val();

        // ---- the result (register 16's input)
        // res: op 1..5, conn 5..21, path 21..25, kind 25..27, ppsn 27..51, port 51..67,
        // seq 67..99, flag 99, hit 100..102, hwv 102, hwon 103, hww 104..135, keyv 135,
        // mult 136, lost 137..146, dec 146, cut 147, reroll 148, bank: valid 149, conn
        // 150..166, path 166..170, dl valid 170, kind 171, deadline 172..204
        self.res.next = (bit_cast::<512, 4>(self.u_op.val()) << 1)
            | (bit_cast::<512, CONN_BITS>(self.u_c.val()) << 5)
            | (bit_cast::<512, 1>(self.f_keyv.val().into()) << 135)
            | (bit_cast::<512, 1>(self.f_mult.val().into()) << 136)
            | (bit_cast::<512, 9>(self.f_lost.val()) << 137)
            | (bit_cast::<512, 1>(self.f_dec.val().into()) << 146)
            | (bit_cast::<512, 1>(self.f_cut.val().into()) << 147)
            | (bit_cast::<512, 1>(self.f_reroll.val().into()) << 148)
            | (bit_cast::<512, 2>(self.kind.val()) << 25)
            | (bit_cast::<512, 24>(self.f_ppsn.val()) << 27)
            | (bit_cast::<512, 32>(self.f_seq.val()) << 67)
            | (bit_cast::<512, 1>(self.f_flag.val().into()) << 99)
            | (bit_cast::<512, 31>(self.m_old.val()) << 256)
            | (bit_cast::<512, 31>(self.m_oth.val()) << 287)
            | (bit_cast::<512, 31>(self.o_srtt.val()) << 318)
            | (bit_cast::<512, 1>(self.m_same.val().into()) << 349)
            | (bit_cast::<512, 1>(self.w_zmax.val().into()) << 350)
            | (bit_cast::<512, 1>(self.n_zmax.val().into()) << 351)
            | (bit_cast::<512, 1>(self.is_rp.val().into()) << 352)
            | (bit_cast::<512, 30>(self.o_rv.val()) << 353)
            | (bit_cast::<512, 5>(self.o_bo.val()) << 383)
            | (bit_cast::<512, 32>(self.dl_base.val()) << 388)
            | (bit_cast::<512, 32>(self.u_now.val()) << 420)
            | (bit_cast::<512, 1>(self.dl_rv.val().into()) << 453)
            | (bit_cast::<512, 1>(self.dl_pv.val().into()) << 454);
        if self.is_chk.val() & self.is_pop.val() {
            self.res.next = self.res.val() | (bit_cast::<512, 1>(self.is_chk.val().into()) << 452);
        }
        if self.has_row.val() {
            self.res.next = self.res.val()
                | (bit_cast::<512, 4>(self.p_eff.val()) << 21)
                | (bit_cast::<512, 16>(self.n_port.val()) << 51);
            if !self.is_chk.val() {
                self.res.next = self.res.val()
                    | (bit_cast::<512, 1>(self.has_row.val().into()) << 149)
                    | (bit_cast::<512, CONN_BITS>(self.u_c.val()) << 150)
                    | (bit_cast::<512, 4>(self.p_eff.val()) << 166)
                    | (bit_cast::<512, 1>(self.dl_any.val().into()) << 170)
                    | (bit_cast::<512, 1>(self.dl_pv.val().into()) << 171);
            }
        }
        if !self.pv.q.val().get_bit(11) {
            self.res.next = self.l_c512_0.val();
        }

        // ================= registers 16..=19: what the apply's result needs after the loop.
        // Register 16 holds the raw fields (bits 256..455), 17 the head-wait maxima and rto's
        // base, 18 the head wait and the backed-off rto, 19 the deadline and TMOCHK's hits.
        // 16 -> 17: the srtt maximum after the op; rto's base (srtt8 / 8 + rttvar4, clamped)
        self.m_new.next = self.r16.val().get_bits::<31>(256);
        if !self.r16.val().get_bit(349) {
            self.m_new.next = self.r16.val().get_bits::<31>(287);
            if self.r16.val().get_bits::<31>(318) > self.r16.val().get_bits::<31>(287) {
                self.m_new.next = self.r16.val().get_bits::<31>(318);
            }
        }
        self.hm.next = self.r16.val().get_bits::<31>(256);
        if self.r16.val().get_bit(350) {
            self.hm.next = self.l_c31_0.val();
        }
        if self.r16.val().get_bit(351) {
            self.m_new.next = self.l_c31_0.val();
        }
        self.rto_b.next = self.kc_rto_init.val();
        if self.r16.val().get_bits::<31>(318) != self.l_c31_0.val() {
            self.rto_b.next = (bit_cast::<32, 31>(self.r16.val().get_bits::<31>(318)) >> 3) + bit_cast::<32, 30>(self.r16.val().get_bits::<30>(353));
            if self.rto_b.val() < self.kc_rto_min.val() {
                self.rto_b.next = self.kc_rto_min.val();
            }
            if self.rto_b.val() > self.kc_rto_max.val() {
                self.rto_b.next = self.kc_rto_max.val();
            }
        }
        // register 17: hm old 256..287, hm new 287..318, rto base 318..350, backoff 350..355,
        // deadline base 355..387, now 387..419, TMOCHK 419, RTO kind 420, probe kind 421,
        // RESET_PATH 422
        self.n17.next = (self.r16.val() & self.k_m256.val())
            | (bit_cast::<512, 31>(self.hm.val()) << 256)
            | (bit_cast::<512, 31>(self.m_new.val()) << 287)
            | (bit_cast::<512, 32>(self.rto_b.val()) << 318)
            | (bit_cast::<512, 5>(self.r16.val().get_bits::<5>(383)) << 350)
            | (bit_cast::<512, 32>(self.r16.val().get_bits::<32>(388)) << 355)
            | (bit_cast::<512, 32>(self.r16.val().get_bits::<32>(420)) << 387)
            | (bit_cast::<512, 3>(self.r16.val().get_bits::<3>(452)) << 419)
            | (bit_cast::<512, 1>(self.r16.val().get_bit(352).into()) << 422);
        // 17 -> 18: the head wait before and after, ((max / 8) * head_q8 >> 8) + ack timeout
        // (the 28 x 15 products as two 16 x 16 each, MULT18X18D), and rto backed off
        self.hh.next = bit_cast::<16, 15>(self.kc_head.val());
        self.hm.next = self.r17.val().get_bits::<31>(256);
        self.hx_l.next = self.hm.val().get_bits::<16>(3);
        self.hx_h.next = bit_cast::<16, 12>(self.hm.val().get_bits::<12>(19));
        self.hp1.next = self.hx_l.val() * self.hh.val();
        self.hp2.next = self.hx_h.val() * self.hh.val();
        self.hw_acc.next = bit_cast::<48, 32>(self.hp1.val()) + (bit_cast::<48, 32>(self.hp2.val()) << 16);
        self.hw_sum.next = (self.hw_acc.val() >> 8) + bit_cast::<48, 32>(self.kc_ack.val());
        self.hw_o_on.next = (self.kc_head.val() != self.l_c15_0.val()) & (self.hm.val() != self.l_c31_0.val());
        self.hw_o_w.next = self.hw_sum.val().get_bits::<31>(0);
        if self.hw_sum.val() > self.l_c48_2147483647.val() {
            self.hw_o_w.next = self.l_c31_2147483647.val();
        }
        self.hm.next = self.r17.val().get_bits::<31>(287);
        self.hx_l.next = self.hm.val().get_bits::<16>(3);
        self.hx_h.next = bit_cast::<16, 12>(self.hm.val().get_bits::<12>(19));
        self.hp1.next = self.hx_l.val() * self.hh.val();
        self.hp2.next = self.hx_h.val() * self.hh.val();
        self.hw_acc.next = bit_cast::<48, 32>(self.hp1.val()) + (bit_cast::<48, 32>(self.hp2.val()) << 16);
        self.hw_sum.next = (self.hw_acc.val() >> 8) + bit_cast::<48, 32>(self.kc_ack.val());
        self.hw_n_on.next = (self.kc_head.val() != self.l_c15_0.val()) & (self.hm.val() != self.l_c31_0.val());
        self.hw_n_w.next = self.hw_sum.val().get_bits::<31>(0);
        if self.hw_sum.val() > self.l_c48_2147483647.val() {
            self.hw_n_w.next = self.l_c31_2147483647.val();
        }
        self.hw_v.next = (self.hw_o_on.val() != self.hw_n_on.val()) | (self.hw_o_on.val() & self.hw_n_on.val() & (self.hw_o_w.val() != self.hw_n_w.val()));
        if self.r17.val().get_bit(422) {
            self.hw_v.next = false;
        }
        if !self.hw_v.val() {
            self.hw_n_on.next = false;
            self.hw_n_w.next = self.l_c31_0.val();
        }
        if !self.hw_n_on.val() {
            self.hw_n_w.next = self.l_c31_0.val();
        }
        self.rto_s.next = bit_cast::<64, 32>(self.r17.val().get_bits::<32>(318)) << self.r17.val().get_bits::<5>(350);
        self.rto.next = self.rto_s.val().get_bits::<32>(0);
        if self.rto_s.val() > bit_cast::<64, 32>(self.kc_rto_max.val()) {
            self.rto.next = self.kc_rto_max.val();
        }
        // register 18: rto 256..288, deadline base 288..320, now 320..352, TMOCHK, RTO kind,
        // probe kind 352..355; the head wait in the result (102, 103, 104..135)
        self.n18.next = (self.r17.val() & self.k_m256.val())
            | (bit_cast::<512, 1>(self.hw_v.val().into()) << 102)
            | (bit_cast::<512, 1>(self.hw_n_on.val().into()) << 103)
            | (bit_cast::<512, 31>(self.hw_n_w.val()) << 104)
            | (bit_cast::<512, 32>(self.rto.val()) << 256)
            | (bit_cast::<512, 64>(self.r17.val().get_bits::<64>(355)) << 288)
            | (bit_cast::<512, 3>(self.r17.val().get_bits::<3>(419)) << 352);
        // 18 -> 19: the deadline, TMOCHK's hits at the op's now
        self.dl_d.next = self.r18.val().get_bits::<32>(288) + self.r18.val().get_bits::<32>(256);
        self.t_d32.next = self.r18.val().get_bits::<32>(320) - self.dl_d.val();
        self.dl_rh.next = self.r18.val().get_bit(353) & !self.t_d32.val().get_bit(31);
        self.dl_ph.next = self.r18.val().get_bit(354) & !self.t_d32.val().get_bit(31);
        self.f_hit.next = self.l_c2_0.val();
        if self.r18.val().get_bit(352) {
            self.f_hit.next = bit_cast::<2, 1>(self.dl_rh.val().into()) | (bit_cast::<2, 1>(self.dl_ph.val().into()) << 1);
        }
        self.n19.next = (self.r18.val() & self.k_m256.val()) | (bit_cast::<512, 2>(self.f_hit.val()) << 100);
        if self.r18.val().get_bit(149) {
            self.n19.next = self.n19.val() | (bit_cast::<512, 32>(self.dl_d.val()) << 172);
        }

        // ================= registers 16..=25
        if self.rst.val() {
            self.line_a.d.next = bit_cast::<1024, 512>(self.res.val()) | (bit_cast::<1024, 512>(self.n17.val()) << 512);
            self.line_b.d.next = (self.line_b.q.val() << 512) | (bit_cast::<4096, 512>(self.n19.val()) << 512) | bit_cast::<4096, 512>(self.n18.val());
            self.rv_a.d.next = self.l_c2_0.val();
            self.rv_b.d.next = self.l_c8_0.val();
        } else if self.bubble.val() {
            self.line_b.d.next = (self.line_b.q.val() << 512) | (bit_cast::<4096, 512>(self.n19.val()) << 512);
            self.rv_b.d.next = self.rv_b.q.val() << 1;
        } else if !self.stall.val() {
            self.line_a.d.next = bit_cast::<1024, 512>(self.res.val()) | (bit_cast::<1024, 512>(self.n17.val()) << 512);
            self.line_b.d.next = (self.line_b.q.val() << 512) | (bit_cast::<4096, 512>(self.n19.val()) << 512) | bit_cast::<4096, 512>(self.n18.val());
            self.rv_a.d.next = (self.rv_a.q.val() << 1) | bit_cast::<2, 1>(self.pr.q.val().get_bit(11).into());
            self.rv_b.d.next = (self.rv_b.q.val() << 1) | bit_cast::<8, 1>(self.rv_a.q.val().get_bit(1).into());
        }

        // ---- the output register
        self.m_valid.next = self.rv_b.q.val().get_bit(7);
        self.m_op.next = self.r25.val().get_bits::<4>(1);
        self.m_conn.next = self.r25.val().get_bits::<CONN_BITS>(5);
        self.m_path.next = self.r25.val().get_bits::<4>(21);
        self.m_kind.next = self.r25.val().get_bits::<2>(25);
        self.m_ppsn.next = self.r25.val().get_bits::<24>(27);
        self.m_port.next = self.r25.val().get_bits::<16>(51);
        self.m_seq.next = self.r25.val().get_bits::<32>(67);
        self.m_flag.next = self.r25.val().get_bit(99);
        self.m_tmo_hit.next = self.r25.val().get_bits::<2>(100);
        self.m_hw_valid.next = self.r25.val().get_bit(102);
        self.m_hw_on.next = self.r25.val().get_bit(103);
        self.m_hw_wait.next = self.r25.val().get_bits::<31>(104);
        if !self.rv_b.q.val().get_bit(7) {
            self.m_op.next = self.l_c4_0.val();
            self.m_conn.next = self.l_cconn_bits_0.val();
            self.m_path.next = self.l_c4_0.val();
            self.m_kind.next = self.l_c2_0.val();
            self.m_ppsn.next = self.l_c24_0.val();
            self.m_port.next = self.l_c16_0.val();
            self.m_seq.next = self.l_c32_0.val();
            self.m_flag.next = false;
            self.m_tmo_hit.next = self.l_c2_0.val();
            self.m_hw_valid.next = false;
            self.m_hw_on.next = false;
            self.m_hw_wait.next = self.l_c31_0.val();
        }

        // ---- counters: as a result enters the output register (from register 24)
        self.e_lost.next = bit_cast::<32, 9>(self.r24.val().get_bits::<9>(137));
        if self.rst.val() {
            self.c_select.d.next = self.l_c32_0.val();
            self.c_none.d.next = self.l_c32_0.val();
            self.c_pdue.d.next = self.l_c32_0.val();
            self.c_lost.d.next = self.l_c32_0.val();
            self.c_dec.d.next = self.l_c32_0.val();
            self.c_cut.d.next = self.l_c32_0.val();
            self.c_tmo_op.d.next = self.l_c32_0.val();
            self.c_reroll.d.next = self.l_c32_0.val();
        } else if !self.stall.val() & self.rv_b.q.val().get_bit(6) {
            if self.r24.val().get_bits::<4>(1) == self.l_c4_2.val() {
                if self.r24.val().get_bits::<2>(25) == self.l_c2_1.val() {
                    self.c_select.d.next = self.c_select.q.val() + self.l_c32_1.val();
                }
                if self.r24.val().get_bits::<2>(25) == self.l_c2_0.val() {
                    self.c_none.d.next = self.c_none.q.val() + self.l_c32_1.val();
                }
                if self.r24.val().get_bits::<2>(25) == self.l_c2_2.val() {
                    self.c_pdue.d.next = self.c_pdue.q.val() + self.l_c32_1.val();
                }
            }
            self.c_lost.d.next = self.c_lost.q.val() + self.e_lost.val();
            if self.r24.val().get_bit(146) {
                self.c_dec.d.next = self.c_dec.q.val() + self.l_c32_1.val();
            }
            if self.r24.val().get_bit(147) {
                self.c_cut.d.next = self.c_cut.q.val() + self.l_c32_1.val();
            }
            if (self.r24.val().get_bits::<4>(1) == self.l_c4_11.val()) & self.r24.val().get_bit(135) {
                self.c_tmo_op.d.next = self.c_tmo_op.q.val() + self.l_c32_1.val();
            }
            if self.r24.val().get_bit(148) {
                self.c_reroll.d.next = self.c_reroll.q.val() + self.l_c32_1.val();
            }
        }
        self.stat_select.next = self.c_select.q.val();
        self.stat_select_none.next = self.c_none.q.val();
        self.stat_probe_due.next = self.c_pdue.q.val();
        self.stat_lost.next = self.c_lost.q.val();
        self.stat_decrease.next = self.c_dec.q.val();
        self.stat_ecn_cut.next = self.c_cut.q.val();
        self.stat_timeout.next = self.c_tmo_op.q.val();
        self.stat_reroll.next = self.c_reroll.q.val();
        self.stat_tmo.next = self.c_tmo.q.val();

        // ================= the deadline bank: entry (conn, p) written as the op leaves 24
        self.bank_rmw.read_address.next = self.r24.val().get_bits::<CONN_BITS>(150);
        if self.badv.val() {
            self.bank_rmw.read_address.next = self.r23.val().get_bits::<CONN_BITS>(150);
        }
        self.bk_e.next = bit_cast::<34, 32>(self.r24.val().get_bits::<32>(172)) | (bit_cast::<34, 1>(self.r24.val().get_bit(171).into()) << 32) | (bit_cast::<34, 1>(self.r24.val().get_bit(170).into()) << 33);
        self.bk_w.next = self.bank_rmw.read_data.val();
        self.t_i.next = self.l_c4_0.val();
        self.bk_m.next = bit_cast::<BW, 34>(self.k_m34.val());
        self.bk_s.next = bit_cast::<BW, 34>(self.bk_e.val());
        for _i in 0..P {
            if self.t_i.val() == self.r24.val().get_bits::<4>(166) {
                self.bk_w.next = (self.bk_w.val() & !self.bk_m.val()) | self.bk_s.val();
            }
            self.bk_m.next = self.bk_m.val() << 34;
            self.bk_s.next = self.bk_s.val() << 34;
            self.t_i.next = self.t_i.val() + self.l_c4_1.val();
        }
        self.bank_rmw.write_enable.next = self.badv.val() & self.r24.val().get_bit(149);
        self.bank_rmw.write_address.next = self.r24.val().get_bits::<CONN_BITS>(150);
        self.bank_rmw.write_data.next = self.bk_w.val();
        self.bank_scan.write_enable.next = self.badv.val() & self.r24.val().get_bit(149);
        self.bank_scan.write_address.next = self.r24.val().get_bits::<CONN_BITS>(150);
        self.bank_scan.write_data.next = self.bk_w.val();

        // ================= the scanner
        self.sc_held.next = self.tmo_v.q.val() & !self.m_tmo_ready.val();
        self.bank_scan.read_address.next = self.sc.q.val();
        if self.sc_held.val() {
            self.bank_scan.read_address.next = self.rd_c.q.val();
        }
        self.sc_r.next = self.l_cp_0.val();
        self.sc_p.next = self.l_cp_0.val();
        self.sc_oh.next = self.l_cp_1.val();
        for i in 0..P {
            self.sc_e.next = self.bank_scan.read_data.val().get_bits::<34>(i * 34);
            self.t_d32.next = self.now.val() - self.sc_e.val().get_bits::<32>(0);
            self.sc_x.next = self.sc_e.val().get_bit(33) & !self.t_d32.val().get_bit(31);
            if self.sc_x.val() & !self.sc_e.val().get_bit(32) {
                self.sc_r.next = self.sc_r.val() | self.sc_oh.val();
            }
            if self.sc_x.val() & self.sc_e.val().get_bit(32) {
                self.sc_p.next = self.sc_p.val() | self.sc_oh.val();
            }
            self.sc_oh.next = self.sc_oh.val() << 1;
        }
        if self.rst.val() {
            self.sc.d.next = self.l_cconn_bits_0.val();
            self.rd_v.d.next = false;
            self.hit_v.d.next = false;
            self.tmo_v.d.next = false;
            self.c_tmo.d.next = self.l_c32_0.val();
        } else if !self.sc_held.val() {
            if self.tmo_v.q.val() {
                self.c_tmo.d.next = self.c_tmo.q.val() + self.l_c32_1.val();
            }
            self.tmo_v.d.next = self.hit_v.q.val();
            self.tmo_c.d.next = self.hit_c.q.val();
            self.tmo_r.d.next = self.hit_r.q.val();
            self.tmo_p.d.next = self.hit_p.q.val();
            self.hit_v.d.next = self.rd_v.q.val() & (self.sc_r.val() | self.sc_p.val()).any();
            self.hit_c.d.next = self.rd_c.q.val();
            self.hit_r.d.next = self.sc_r.val();
            self.hit_p.d.next = self.sc_p.val();
            self.rd_v.d.next = true;
            self.rd_c.d.next = self.sc.q.val();
            self.sc.d.next = self.sc.q.val() + self.l_cconn_bits_1.val();
        }
        self.m_tmo_valid.next = self.tmo_v.q.val();
        self.m_tmo_conn.next = self.tmo_c.q.val();
        self.m_tmo_rto.next = self.tmo_r.q.val();
        self.m_tmo_probe.next = self.tmo_p.q.val();
        if !self.tmo_v.q.val() {
            self.m_tmo_conn.next = self.l_cconn_bits_0.val();
            self.m_tmo_rto.next = self.l_cp_0.val();
            self.m_tmo_probe.next = self.l_cp_0.val();
        }
    }
}

/// Runs `$body` with `$ty` bound to the path table's type for the sizes of `$cfg`
/// (connections, paths): the instances the presets need.
#[macro_export]
macro_rules! with_path_table {
    ($cfg:expr, $ty:ident => $body:expr) => {{
        let cfg: &$crate::mrnic_model::Config = $cfg;
        match (cfg.connections, usize::from(cfg.transport.paths)) {
            (256, 8) => {
                type $ty = $crate::path::PathTableRtl<8, 8, 2544, 448, 272>;
                Ok($body)
            }
            (16, 4) => {
                type $ty = $crate::path::PathTableRtl<4, 4, 1284, 224, 136>;
                Ok($body)
            }
            (1024, 8) => {
                type $ty = $crate::path::PathTableRtl<10, 8, 2544, 448, 272>;
                Ok($body)
            }
            (16, 8) => {
                type $ty = $crate::path::PathTableRtl<4, 8, 2544, 448, 272>;
                Ok($body)
            }
            (c, p) => Err($crate::mrnic_model::config::ConfigError::invalid("transport", format!("PathTableRtl: (connections {c}, paths {p}) has no generated instance"))),
        }
    }};
}

#[cfg(test)]
mod tests {
    use mrnic_model::config::Config;

    #[test]
    fn every_preset_generates_a_path_module_with_the_shells_latency() {
        for p in ["core", "tiny"] {
            let g = crate::tops::block(&Config::preset(p).unwrap(), "path").unwrap_or_else(|e| panic!("{p}: {e}"));
            assert_eq!(g.latency, mrnic_model::transport::path_shell::PATH_LATENCY as u32);
            assert!(g.verilog.contains("module mrnic_path"));
        }
    }

    #[test]
    fn a_configuration_without_an_instance_is_refused_naming_its_sizes() {
        let mut c = Config::preset("core").unwrap();
        c.transport.paths = 3;
        let e = crate::tops::block(&c, "path").unwrap_err().to_string();
        assert!(e.contains("paths 3"), "{e}");
    }
}
