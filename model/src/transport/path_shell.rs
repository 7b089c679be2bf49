//! The path table's cycle shell (`docs/design/sender-rtl.md` §2.2, §2.3, §2.9, §3, §4.1,
//! §4.3): the block model [`PathTable`] of `C` connections with the RTL block
//! `mrnic_path`'s latency, handshakes, the §2.9 one-cycle bubble, the deadline bank
//! `pt_dl` and its scanner. It is the contract the RTL is diffed against cycle by cycle;
//! it adds no transport behaviour of its own.
//!
//! **Operations.** One operation is one input beat ([`PathInputs`], the flat port view;
//! [`PathOp`] is the typed view, [`PathOp::decode`] / [`PathOp::drive`] convert). Each is
//! applied atomically by [`PathTables::apply`], which calls the model's functions in the
//! requester's order (`requester.rs`: `poll_tx_on`/`transmit`, `on_ack`/`flush_acked`,
//! `declare_lost_on_path`, `declare_lost`, `fail_path`, `on_timer`, `on_nak`,
//! `on_probe_reply`). `p` is `s_path`; an op naming a path `p >= P` does nothing.
//!
//! | code | op | fields | model | result |
//! |---:|---|---|---|---|
//! | 0 | RESET_CONN | `s_seed` | `reset_conn(s_seed)` (`lfsr_seed` of a 16-bit value is the value, 0 → 1) | - |
//! | 1 | RESET_PATH | `s_ppsn` path ISN | `reset_row(p, isn)`; only on a row that RESET_CONN left without entropy, else nothing (see Reset) | port |
//! | 2 | SELECT | `s_avoid_valid`, `s_avoid`, `s_plane` (bit p: path p allowed) | the first allowed path with `probe_due` (row order): kind PROBE_DUE, nothing changes; else `select_masked(avoid, plane)` then `on_send(p, now)`: kind DATA; else kind NONE | kind, path, path PSN (DATA), port |
//! | 3 | PSENT | - | `on_probe_sent(p, now)` | seq, port |
//! | 4 | PTMO | - | `on_probe_timeout(p)` | flag = entropy re-rolled, port |
//! | 5 | PREPLY | `s_seq`, `s_port` | `on_probe_reply(p, seq, port, now)` | flag = accepted |
//! | 6 | ACKB | `s_n`, `s_nl` | `on_acked(p, n, nl, now)` (a path the ACK does not name) | - |
//! | 7 | ACKP | `s_n`, `s_nl`, `s_rtt_valid`, `s_rtt`, `s_ce`, `s_pkts`, `s_cum`, `s_next`, `s_ppsn` | `on_acked(p, n, nl, now)`, `on_rtt(p, rtt)` if valid, `on_ecn(p, ce, pkts, cum, next)`, `on_ack_path_psn(p, ppsn)` | flag = fresh (run LDET) |
//! | 8 | LOSS | `s_n` k, `s_first`, `s_last`, `s_next` | `on_lost_batch(p, k, first, last, next)` | flag = fail (strikes reached) |
//! | 9 | LOSTTMO | `s_n` k | k x `on_lost_by_timeout(p)` | - |
//! | 10 | RELEASE | `s_n` | n x `release(p)` | - |
//! | 11 | TIMEOUT | `s_next` | `on_timeout(p, next)` | flag = struck out |
//! | 12 | FAIL | - | `fail(p)` (unguarded: the requester's `fail_path` skips FAILED/PROBING paths) | port |
//! | 13 | TMOCHK | - | read only: `rto_deadline(p)` / `probe_deadline(p)` expired at the op's `now` | `tmo_hit` bit 0 RTO, bit 1 probe |
//! | 14-15 | (none) | - | nothing | - |
//!
//! Every result with a path (`p < P`; SELECT: DATA or PROBE_DUE) carries `m_path` and the
//! row's port `0xC000 | entropy` after the op; otherwise both are 0. `m_ppsn`, `m_seq`,
//! `m_flag`, `m_tmo_hit` are 0 where the table gives no meaning. **Head wait**: when an op
//! changes the connection's `head_wait()` (compared before and after the op), the result
//! carries `m_hw_valid` 1, `m_hw_on` = the wait exists, `m_hw_wait` = it (else 0): the
//! requester forwards it to the rtx as HWAIT. Field widths: `s_conn` mod C (C a power of
//! two), `s_path`/`s_avoid` mod 16, `s_n`/`s_nl` mod 2^9, PSNs mod 2^24, `s_plane`
//! masked to P bits.
//!
//! **Pipeline** ([`PATH_LATENCY`] 25, [`PATH_APPLY_STAGE`] 3, II 1), as
//! [`crate::transport::rtx_shell::RtxShell`]: an input transfer (`s_valid && s_ready`) at
//! the edge ending cycle t enters register 1 with `now` of that cycle (the op's time); the
//! op is applied as it leaves register 3; its result is on the output in cycle t + 25
//! unless a bubble intervened. **Global stall**: while `m_valid && !m_ready` (and `rst`
//! low) every register holds and `s_ready` is low.
//!
//! **The §2.9 bubble** (two multiplications of one path back to back). An op *multiplies*
//! when it was applied and it is a LOSS that decreased the window (`loss_decreases` of
//! `first` or `last` before it, `k > 0`) or an ACKP whose `on_ecn` cut the window. When,
//! at an edge without stall or `rst`, register 17 (X) holds an ACKP or LOSS (by op code:
//! the "can multiply" flag is the type, not the outcome) with the same (connection, path)
//! as register 18, and register 18's op multiplied, registers 1..=17 hold, register 18
//! takes a bubble and registers 18..=25 advance; `s_ready` is low in that cycle. So the
//! op in register 17 and every op behind it (all connections) come out one cycle later;
//! the output shows one empty cycle. The bubble is not needed
//! for correctness in an atomic-apply shell (the state is already exact); it is modelled
//! because the RTL's product for op N is taken from op N-1's input window (§2.10), so the
//! result timing the RTL will show is this one.
//!
//! **Reset** (`rst`, synchronous): registers 1..=3 are emptied (never applied), the
//! result registers 4..=25 are emptied (their ops stay applied), counters and scanner
//! are cleared. Bank writes of ops past the apply stage still land at their stage. The
//! connections' rows and the bank are RAM and are not reset (the shell starts with every
//! connection as `PathTable::new(cfg, 0, 0)` and every deadline invalid). A connection
//! is reset by RESET_CONN then one RESET_PATH per path (P + 1 beats); other ops of that
//! connection between them are undefined, and a RESET_PATH outside such a sequence (the
//! row still has an entropy) is undefined for the RTL: the shell ignores it, and the kit
//! stimulus must not drive it. A cycle with `rst` high never stalls and has `s_ready`
//! low; its outputs are still the registers'.
//!
//! **Timers** (§3). The bank `pt_dl[p][c]` holds path p's deadline: the RTO deadline
//! (`rto_deadline`, M2: `rto_start + rto(p)`) or the probe deadline (`probe_deadline`;
//! the two never coexist: OK/SUSPECT vs PROBING). An op with a row (p < P; SELECT with
//! DATA or PROBE_DUE; not TMOCHK) writes that row's deadline, computed right after the
//! op, as the op leaves register [`PATH_BANK_STAGE`] (24, stage T3); other rows'
//! deadlines cannot change (sender-rtl §5.1 M2 finding (b)). RESET_CONN, TMOCHK, SELECT
//! NONE and undefined codes write nothing. The scanner is three registers, as the rtx's:
//! at each edge where it is not held, `rd` <- (sc, `pt_dl[0..P)[sc]`), sc <- sc + 1 mod
//! C; `hit` <- rd's connection with the masks of its expired entries (`now.after_eq(d)`,
//! RTO and probe separately) if any; `m_tmo` <- hit. A read at the edge that writes the
//! same entry gets the old value. While `m_tmo_valid && !m_tmo_ready` the scanner holds,
//! except that `rd` re-reads its connection's entries. An expired entry fires once per
//! sweep until an op clears it. Lateness with `m_tmo_ready` high: at most C + 3 cycles
//! after max(deadline, the bank write), never before the deadline.
//!
//! **Counters** (`stat_*`, 32-bit wrapping), counted as a result enters the output
//! register: `select` SELECTs with DATA, `select_none` with NONE, `probe_due` with
//! PROBE_DUE, `lost` the k of LOSS and LOSTTMO, `decrease` LOSSes that decreased,
//! `ecn_cut` ACKPs that cut, `timeout` TIMEOUTs, `reroll` FAILs and PTMOs that re-rolled
//! the entropy; `tmo` counts timer events taken.

use super::path::{PathTable, ENTROPY_NONE};
use super::{TransportConfig, SEQ_MASK};
use crate::config::{Config, ConfigError};
use crate::time::HwTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Registers from an input transfer to the output register (the latency in cycles).
pub const PATH_LATENCY: usize = 25;
/// The register an op is applied from.
pub const PATH_APPLY_STAGE: usize = 3;
/// The register an op's deadline is written to the bank from (stage T3).
pub const PATH_BANK_STAGE: usize = 24;
/// The register of the X loop, where the §2.9 bubble is decided.
pub const PATH_X_STAGE: usize = 17;
/// Most paths the port widths allow.
pub const PATH_MAX_PATHS: usize = 16;

/// SELECT's `m_kind`.
pub const KIND_NONE: u8 = 0;
pub const KIND_DATA: u8 = 1;
pub const KIND_PROBE_DUE: u8 = 2;

/// Sizes and configuration of one shell (the `cfg_*` ports are the transport
/// configuration's [`super::path::PathConsts`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathParams {
    /// C, a power of two.
    pub connections: usize,
    /// The transport configuration (P = `paths`, 1..=16).
    pub transport: TransportConfig,
}

impl PathParams {
    pub fn from_config(cfg: &Config) -> Result<Self, ConfigError> {
        let p = Self { connections: cfg.connections, transport: cfg.transport.clone() };
        p.validate()?;
        Ok(p)
    }

    /// A named preset of [`Config::preset`].
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        Self::from_config(&Config::preset(name)?)
    }

    pub fn paths(&self) -> usize {
        usize::from(self.transport.paths)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.connections.is_power_of_two() {
            return Err(ConfigError::out_of_range("PathParams.connections", self.connections.to_string(), "a power of two"));
        }
        if self.paths() == 0 || self.paths() > PATH_MAX_PATHS {
            return Err(ConfigError::out_of_range("PathParams.transport.paths", self.paths().to_string(), "1..=16"));
        }
        Ok(())
    }
}

/// One operation, typed (the fields of §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathOp {
    ResetConn { seed: u16 },
    ResetPath { path: u8, isn: u32 },
    Select { avoid: Option<u8>, plane: u16 },
    Psent { path: u8 },
    Ptmo { path: u8 },
    Preply { path: u8, seq: u32, port: u16 },
    AckB { path: u8, n: u32, nl: u32 },
    AckP { path: u8, n: u32, nl: u32, rtt: Option<u32>, ce: u8, pkts: u8, cum: u32, next: u32, ppsn: u32 },
    Loss { path: u8, k: u32, first: u32, last: u32, next: u32 },
    LostTmo { path: u8, k: u32 },
    Release { path: u8, n: u32 },
    Timeout { path: u8, next: u32 },
    Fail { path: u8 },
    TmoChk { path: u8 },
    /// Codes 14 and 15: no operation.
    Undefined(u8),
}

impl PathOp {
    pub const RESET_CONN: u8 = 0;
    pub const RESET_PATH: u8 = 1;
    pub const SELECT: u8 = 2;
    pub const PSENT: u8 = 3;
    pub const PTMO: u8 = 4;
    pub const PREPLY: u8 = 5;
    pub const ACKB: u8 = 6;
    pub const ACKP: u8 = 7;
    pub const LOSS: u8 = 8;
    pub const LOSTTMO: u8 = 9;
    pub const RELEASE: u8 = 10;
    pub const TIMEOUT: u8 = 11;
    pub const FAIL: u8 = 12;
    pub const TMOCHK: u8 = 13;

    pub fn code(&self) -> u8 {
        match self {
            PathOp::ResetConn { .. } => Self::RESET_CONN,
            PathOp::ResetPath { .. } => Self::RESET_PATH,
            PathOp::Select { .. } => Self::SELECT,
            PathOp::Psent { .. } => Self::PSENT,
            PathOp::Ptmo { .. } => Self::PTMO,
            PathOp::Preply { .. } => Self::PREPLY,
            PathOp::AckB { .. } => Self::ACKB,
            PathOp::AckP { .. } => Self::ACKP,
            PathOp::Loss { .. } => Self::LOSS,
            PathOp::LostTmo { .. } => Self::LOSTTMO,
            PathOp::Release { .. } => Self::RELEASE,
            PathOp::Timeout { .. } => Self::TIMEOUT,
            PathOp::Fail { .. } => Self::FAIL,
            PathOp::TmoChk { .. } => Self::TMOCHK,
            PathOp::Undefined(c) => *c & 0xF,
        }
    }

    /// The path the op names (SELECT and RESET_CONN: none).
    pub fn path(&self) -> Option<u8> {
        match *self {
            PathOp::ResetPath { path, .. }
            | PathOp::Psent { path }
            | PathOp::Ptmo { path }
            | PathOp::Preply { path, .. }
            | PathOp::AckB { path, .. }
            | PathOp::AckP { path, .. }
            | PathOp::Loss { path, .. }
            | PathOp::LostTmo { path, .. }
            | PathOp::Release { path, .. }
            | PathOp::Timeout { path, .. }
            | PathOp::Fail { path }
            | PathOp::TmoChk { path } => Some(path),
            _ => None,
        }
    }

    /// The op an input beat carries, with the port widths applied.
    pub fn decode(i: &PathInputs) -> PathOp {
        let path = i.s_path & 0xF;
        let n = i.s_n & 0x1FF;
        let nl = i.s_nl & 0x1FF;
        let m = |x: u32| x & SEQ_MASK;
        match i.s_op & 0xF {
            Self::RESET_CONN => PathOp::ResetConn { seed: i.s_seed },
            Self::RESET_PATH => PathOp::ResetPath { path, isn: m(i.s_ppsn) },
            Self::SELECT => PathOp::Select { avoid: i.s_avoid_valid.then_some(i.s_avoid & 0xF), plane: i.s_plane },
            Self::PSENT => PathOp::Psent { path },
            Self::PTMO => PathOp::Ptmo { path },
            Self::PREPLY => PathOp::Preply { path, seq: i.s_seq, port: i.s_port },
            Self::ACKB => PathOp::AckB { path, n, nl },
            Self::ACKP => PathOp::AckP { path, n, nl, rtt: i.s_rtt_valid.then_some(i.s_rtt), ce: i.s_ce, pkts: i.s_pkts, cum: m(i.s_cum), next: m(i.s_next), ppsn: m(i.s_ppsn) },
            Self::LOSS => PathOp::Loss { path, k: n, first: m(i.s_first), last: m(i.s_last), next: m(i.s_next) },
            Self::LOSTTMO => PathOp::LostTmo { path, k: n },
            Self::RELEASE => PathOp::Release { path, n },
            Self::TIMEOUT => PathOp::Timeout { path, next: m(i.s_next) },
            Self::FAIL => PathOp::Fail { path },
            Self::TMOCHK => PathOp::TmoChk { path },
            c => PathOp::Undefined(c),
        }
    }

    /// Drives the op's input fields (`s_valid` high, other `s_*` 0); `rst`, `now`,
    /// `m_ready` and `m_tmo_ready` are kept.
    pub fn drive(&self, conn: u32, i: &mut PathInputs) {
        *i = PathInputs { rst: i.rst, now: i.now, m_ready: i.m_ready, m_tmo_ready: i.m_tmo_ready, s_valid: true, s_op: self.code(), s_conn: conn, ..PathInputs::default() };
        if let Some(p) = self.path() {
            i.s_path = p;
        }
        match *self {
            PathOp::ResetConn { seed } => i.s_seed = seed,
            PathOp::ResetPath { isn, .. } => i.s_ppsn = isn,
            PathOp::Select { avoid, plane } => {
                i.s_avoid_valid = avoid.is_some();
                i.s_avoid = avoid.unwrap_or(0);
                i.s_plane = plane;
            }
            PathOp::Preply { seq, port, .. } => {
                i.s_seq = seq;
                i.s_port = port;
            }
            PathOp::AckB { n, nl, .. } => {
                i.s_n = n;
                i.s_nl = nl;
            }
            PathOp::AckP { n, nl, rtt, ce, pkts, cum, next, ppsn, .. } => {
                i.s_n = n;
                i.s_nl = nl;
                i.s_rtt_valid = rtt.is_some();
                i.s_rtt = rtt.unwrap_or(0);
                i.s_ce = ce;
                i.s_pkts = pkts;
                i.s_cum = cum;
                i.s_next = next;
                i.s_ppsn = ppsn;
            }
            PathOp::Loss { k, first, last, next, .. } => {
                i.s_n = k;
                i.s_first = first;
                i.s_last = last;
                i.s_next = next;
            }
            PathOp::LostTmo { k, .. } => i.s_n = k,
            PathOp::Release { n, .. } => i.s_n = n,
            PathOp::Timeout { next, .. } => i.s_next = next,
            _ => {}
        }
    }
}

/// The inputs of one cycle (the §4.1 ports; `cfg_*` are the params).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathInputs {
    pub rst: bool,
    pub now: u32,
    pub s_valid: bool,
    pub s_op: u8,
    pub s_conn: u32,
    pub s_path: u8,
    pub s_n: u32,
    pub s_nl: u32,
    pub s_rtt_valid: bool,
    pub s_rtt: u32,
    pub s_ce: u8,
    pub s_pkts: u8,
    pub s_cum: u32,
    pub s_next: u32,
    pub s_ppsn: u32,
    pub s_first: u32,
    pub s_last: u32,
    pub s_avoid_valid: bool,
    pub s_avoid: u8,
    pub s_plane: u16,
    pub s_seq: u32,
    pub s_port: u16,
    pub s_seed: u16,
    pub m_ready: bool,
    pub m_tmo_ready: bool,
}

/// One result beat (`m_*` while `m_valid`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathResult {
    pub op: u8,
    pub conn: u32,
    pub path: u8,
    pub kind: u8,
    pub ppsn: u32,
    pub port: u16,
    pub seq: u32,
    pub flag: bool,
    pub tmo_hit: u8,
    pub hw_valid: bool,
    pub hw_on: bool,
    pub hw_wait: u32,
}

/// A timer event (`m_tmo_*` while `m_tmo_valid`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathTmo {
    pub conn: u32,
    /// Bit p: path p's RTO expired.
    pub rto: u16,
    /// Bit p: path p's probe interval expired.
    pub probe: u16,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathStats {
    pub select: u32,
    pub select_none: u32,
    pub probe_due: u32,
    pub lost: u32,
    pub decrease: u32,
    pub ecn_cut: u32,
    pub timeout: u32,
    pub reroll: u32,
    pub tmo: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathOutputs {
    pub s_ready: bool,
    pub m: Option<PathResult>,
    pub m_tmo: Option<PathTmo>,
    pub stats: PathStats,
}

/// A deadline entry of `pt_dl`: (deadline, is a probe deadline).
pub type Deadline = Option<(HwTime, bool)>;

/// What an applied op carries down the pipeline besides its result: the §2.9 key and
/// flags, and what the counters count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub r: PathResult,
    /// (connection, path) of a path op with p < P.
    pub key: Option<(u32, u8)>,
    /// The op multiplied (LOSS with decrease, ACKP with an ECN cut).
    pub mult: bool,
    /// Losses counted (LOSS, LOSTTMO k).
    pub lost: u32,
    pub decrease: bool,
    pub cut: bool,
    pub reroll: bool,
    /// The bank write: (connection, path, deadline).
    pub bank: Option<(u32, u8, Deadline)>,
}

/// The path tables of C connections (the RAMs `pt_*`). [`PathTables::apply`] is the
/// whole behaviour of an op; the shell adds only time.
#[derive(Clone, Debug)]
pub struct PathTables {
    pub params: PathParams,
    pub tables: Vec<PathTable>,
}

impl PathTables {
    /// Every connection as `PathTable::new(cfg, 0, 0)`.
    pub fn new(params: PathParams) -> Self {
        let t = PathTable::new(&params.transport, 0, 0);
        Self { tables: vec![t; params.connections], params }
    }

    /// Row p's `pt_dl` entry: its RTO or probe deadline.
    pub fn deadline(&self, conn: u32, p: usize) -> Deadline {
        let t = &self.tables[(conn & (self.params.connections as u32 - 1)) as usize];
        t.rto_deadline(p).map(|d| (d, false)).or(t.probe_deadline(p).map(|d| (d, true)))
    }

    /// Applies one op of connection `conn` (mod C) at time `now`.
    pub fn apply(&mut self, conn: u32, op: &PathOp, now: HwTime) -> Applied {
        let np = self.params.paths();
        let conn = conn & (self.params.connections as u32 - 1);
        let c = conn as usize;
        let t = &mut self.tables[c];
        let hw_before = t.head_wait();
        let mut a = Applied { r: PathResult { op: op.code(), conn, ..Default::default() }, ..Default::default() };
        let mut row: Option<usize> = None;
        let port = |t: &PathTable, p: usize| 0xC000 | t.paths[p].entropy;
        match *op {
            PathOp::ResetConn { seed } => t.reset_conn(u64::from(seed)),
            PathOp::Select { avoid, plane } => {
                let mask = plane & ((1u32 << np) - 1) as u16;
                if let Some(p) = (0..np).find(|&p| t.paths[p].probe_due && mask >> p & 1 == 1) {
                    a.r.kind = KIND_PROBE_DUE;
                    row = Some(p);
                } else if let Some(p) = t.select_masked(avoid.map(usize::from), mask) {
                    a.r.kind = KIND_DATA;
                    a.r.ppsn = t.on_send(p, now);
                    row = Some(p);
                }
            }
            PathOp::Undefined(_) => {}
            _ => {
                let p = usize::from(op.path().expect("a path op"));
                if p < np {
                    row = Some(p);
                    a.key = Some((conn, p as u8));
                    match *op {
                        PathOp::ResetPath { isn, .. } => {
                            if t.paths[p].entropy == ENTROPY_NONE {
                                t.reset_row(p, isn);
                            }
                        }
                        PathOp::Psent { .. } => a.r.seq = t.on_probe_sent(p, now),
                        PathOp::Ptmo { .. } => {
                            let before = t.paths[p].stat_rerolls;
                            t.on_probe_timeout(p);
                            a.reroll = t.paths[p].stat_rerolls != before;
                            a.r.flag = a.reroll;
                        }
                        PathOp::Preply { seq, port, .. } => a.r.flag = t.on_probe_reply(p, seq, port, now),
                        PathOp::AckB { n, nl, .. } => t.on_acked(p, n, nl, now),
                        PathOp::AckP { n, nl, rtt, ce, pkts, cum, next, ppsn, .. } => {
                            t.on_acked(p, n, nl, now);
                            if let Some(s) = rtt {
                                t.on_rtt(p, s);
                            }
                            let cuts = t.paths[p].stat_ecn_cuts;
                            t.on_ecn(p, ce, pkts, cum, next);
                            a.cut = t.paths[p].stat_ecn_cuts != cuts;
                            a.mult = a.cut;
                            a.r.flag = t.on_ack_path_psn(p, ppsn);
                        }
                        PathOp::Loss { k, first, last, next, .. } => {
                            a.decrease = k > 0 && (t.loss_decreases(p, first) || t.loss_decreases(p, last));
                            a.mult = a.decrease;
                            a.lost = k;
                            a.r.flag = t.on_lost_batch(p, k, first, last, next);
                        }
                        PathOp::LostTmo { k, .. } => {
                            for _ in 0..k {
                                t.on_lost_by_timeout(p);
                            }
                            a.lost = k;
                        }
                        PathOp::Release { n, .. } => {
                            for _ in 0..n {
                                t.release(p);
                            }
                        }
                        PathOp::Timeout { next, .. } => a.r.flag = t.on_timeout(p, next),
                        PathOp::Fail { .. } => {
                            t.fail(p);
                            a.reroll = true;
                        }
                        PathOp::TmoChk { .. } => {
                            let hit = |d: Option<HwTime>| d.is_some_and(|d| now.after_eq(d));
                            a.r.tmo_hit = u8::from(hit(t.rto_deadline(p))) | u8::from(hit(t.probe_deadline(p))) << 1;
                        }
                        _ => unreachable!(),
                    }
                }
            }
        }
        let t = &self.tables[c];
        if let Some(p) = row {
            a.r.path = p as u8;
            a.r.port = port(t, p);
            if op.code() != PathOp::TMOCHK {
                a.bank = Some((conn, p as u8, self.deadline(conn, p)));
            }
        }
        let hw = t.head_wait();
        if hw != hw_before {
            a.r.hw_valid = true;
            a.r.hw_on = hw.is_some();
            a.r.hw_wait = hw.unwrap_or(0) as u32;
        }
        a
    }
}

/// The cycle shell of `mrnic_path` (see the module documentation for the contract).
#[derive(Clone, Debug)]
pub struct PathShell {
    pub state: PathTables,
    /// Registers 1..=3, register 1 at the front.
    pre: VecDeque<Option<(u32, PathOp, HwTime)>>,
    /// Registers 4..=25, the output register at the back.
    post: VecDeque<Option<Applied>>,
    /// The bank writes of registers 4..=24 (they survive `rst`).
    bank_pipe: VecDeque<Option<(u32, u8, Deadline)>>,
    /// `pt_dl`, index c * P + p.
    bank: Vec<Deadline>,
    sc: u32,
    rd: Option<(u32, [Deadline; PATH_MAX_PATHS])>,
    hit: Option<PathTmo>,
    tmo: Option<PathTmo>,
    stats: PathStats,
    /// Bubbles inserted (§2.9), for tests.
    pub bubbles: u64,
    /// The bank write of the last edge, (connection, path, entry), at most one per edge.
    /// For observers, such as the transaction-level timer check; the shell never reads it.
    pub last_write: Option<(u32, u8, Deadline)>,
}

/// Index of register `r` (4..=25) in `post` / `bank_pipe`.
const fn post_ix(r: usize) -> usize {
    r - PATH_APPLY_STAGE - 1
}

impl PathShell {
    pub fn new(params: PathParams) -> Result<Self, ConfigError> {
        params.validate()?;
        let n = params.connections * params.paths();
        Ok(Self {
            state: PathTables::new(params),
            pre: std::iter::repeat_n(None, PATH_APPLY_STAGE).collect(),
            post: std::iter::repeat_n(None, PATH_LATENCY - PATH_APPLY_STAGE).collect(),
            bank_pipe: std::iter::repeat_n(None, PATH_BANK_STAGE - PATH_APPLY_STAGE).collect(),
            bank: vec![None; n],
            sc: 0,
            rd: None,
            hit: None,
            tmo: None,
            stats: PathStats::default(),
            bubbles: 0,
            last_write: None,
        })
    }

    pub fn latency(&self) -> usize {
        PATH_LATENCY
    }

    /// The bank entry `pt_dl[p][c]`.
    pub fn bank(&self, c: usize, p: usize) -> Deadline {
        self.bank[c * self.state.params.paths() + p]
    }

    fn stall(&self, i: &PathInputs) -> bool {
        !i.rst && self.post.back().expect("output register").is_some() && !i.m_ready
    }

    /// The §2.9 bubble: register 17 holds an ACKP or LOSS on the (c, p) of register 18,
    /// whose op multiplied.
    fn bubble(&self, i: &PathInputs) -> bool {
        if i.rst || self.stall(i) {
            return false;
        }
        match (self.post[post_ix(PATH_X_STAGE)], self.post[post_ix(PATH_X_STAGE + 1)]) {
            (Some(x), Some(y)) => matches!(x.r.op, PathOp::ACKP | PathOp::LOSS) && x.key.is_some() && x.key == y.key && y.mult,
            _ => false,
        }
    }

    pub fn outputs(&self, i: &PathInputs) -> PathOutputs {
        PathOutputs { s_ready: !i.rst && !self.stall(i) && !self.bubble(i), m: self.post.back().expect("output register").map(|a| a.r), m_tmo: self.tmo, stats: self.stats }
    }

    fn read_conn(&self, c: u32) -> [Deadline; PATH_MAX_PATHS] {
        let np = self.state.params.paths();
        let mut d = [None; PATH_MAX_PATHS];
        d[..np].copy_from_slice(&self.bank[c as usize * np..(c as usize + 1) * np]);
        d
    }

    /// Advances one clock edge with inputs `i`; returns the outputs of the cycle that ended.
    pub fn step(&mut self, i: &PathInputs) -> PathOutputs {
        let out = self.outputs(i);
        let now = HwTime(i.now);
        let np = self.state.params.paths();
        self.last_write = None;
        if i.rst {
            self.sc = 0;
            self.rd = None;
            self.hit = None;
            self.tmo = None;
        } else if self.tmo.is_some() && !i.m_tmo_ready {
            self.rd = self.rd.map(|(c, _)| (c, self.read_conn(c)));
        } else {
            if self.tmo.is_some() {
                self.stats.tmo = self.stats.tmo.wrapping_add(1);
            }
            self.tmo = self.hit;
            self.hit = self.rd.and_then(|(c, d)| {
                let (mut rto, mut probe) = (0u16, 0u16);
                for (p, e) in d[..np].iter().enumerate() {
                    if let Some((t, pr)) = *e {
                        if now.after_eq(t) {
                            if pr {
                                probe |= 1 << p;
                            } else {
                                rto |= 1 << p;
                            }
                        }
                    }
                }
                (rto | probe != 0).then_some(PathTmo { conn: c, rto, probe })
            });
            self.rd = Some((self.sc, self.read_conn(self.sc)));
            self.sc = (self.sc + 1) % self.state.params.connections as u32;
        }
        if i.rst {
            self.pre.iter_mut().for_each(|r| *r = None);
            self.post.iter_mut().for_each(|r| *r = None);
            self.stats = PathStats::default();
            self.shift_bank(None);
        } else if self.bubble(i) {
            self.bubbles += 1;
            // Registers 1..=17 hold; 18..=25 advance with a bubble into 18.
            self.land_bank_write();
            self.bank_pipe.insert(post_ix(PATH_X_STAGE + 1), None);
            self.post.pop_back();
            self.post.insert(post_ix(PATH_X_STAGE + 1), None);
            if let Some(a) = *self.post.back().expect("output register") {
                self.count(&a);
            }
        } else if !self.stall(i) {
            let applied = self.pre.pop_back().expect("apply stage").map(|(conn, op, t)| self.state.apply(conn, &op, t));
            self.shift_bank(applied.and_then(|a| a.bank));
            self.post.pop_back();
            self.post.push_front(applied);
            if let Some(a) = *self.post.back().expect("output register") {
                self.count(&a);
            }
            let beat = i.s_valid.then(|| (i.s_conn & (self.state.params.connections as u32 - 1), PathOp::decode(i), now));
            self.pre.push_front(beat);
        }
        out
    }

    fn shift_bank(&mut self, w: Option<(u32, u8, Deadline)>) {
        self.land_bank_write();
        self.bank_pipe.push_front(w);
    }

    /// The write of register 24 (the end of `bank_pipe`) lands in the bank.
    fn land_bank_write(&mut self) {
        if let Some(Some((c, p, d))) = self.bank_pipe.pop_back() {
            self.bank[c as usize * self.state.params.paths() + usize::from(p)] = d;
            self.last_write = Some((c, p, d));
        }
    }

    fn count(&mut self, a: &Applied) {
        let s = &mut self.stats;
        let inc = |x: &mut u32, b: bool| *x = x.wrapping_add(u32::from(b));
        if a.r.op == PathOp::SELECT {
            inc(&mut s.select, a.r.kind == KIND_DATA);
            inc(&mut s.select_none, a.r.kind == KIND_NONE);
            inc(&mut s.probe_due, a.r.kind == KIND_PROBE_DUE);
        }
        s.lost = s.lost.wrapping_add(a.lost);
        inc(&mut s.decrease, a.decrease);
        inc(&mut s.ecn_cut, a.cut);
        inc(&mut s.timeout, a.r.op == PathOp::TIMEOUT && a.key.is_some());
        inc(&mut s.reroll, a.reroll);
    }
}
