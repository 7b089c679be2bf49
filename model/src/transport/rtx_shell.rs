//! The retransmit queue's cycle shell (`docs/design/sender-rtl.md` §2.5, §3, §4.2,
//! §4.3): the block model [`RetransmitQueue`] of `C` connections with the RTL block
//! `mrnic_rtx`'s latency, handshakes, head-timer bank and scanner. It is the contract
//! the RTL is diffed against cycle by cycle; it adds no transport behaviour of its own.
//!
//! **Operations.** One operation is one input beat ([`RtxInputs`], the flat port view;
//! [`RtxOp`] is the typed view, [`RtxOp::decode`] / [`RtxOp::drive`] convert). Each is
//! applied atomically by [`RtxState::apply`], which calls the model's functions in the
//! requester's order (`requester.rs`: `poll_tx_on`/`transmit`, `cumulative` and the SACK
//! loop of `on_ack`, `declare_lost_on_path`, `fail_path`, `on_timer`, `on_nak`, `fatal`).
//!
//! | code | op | fields | model | result |
//! |---:|---|---|---|---|
//! | 0 | RESET | `s_psn` isn | `RetransmitQueue::new`; head wait invalid, new-data 0 | ok 1 |
//! | 1 | SEND | `s_new`, `s_psn` (retransmission only), `s_path`, `s_ppsn` | new: `push_new` then `on_transmit`; else `on_transmit` of an InFlight or Lost PSN | ok (refused: new and no room or no free record; not new and the PSN neither in flight nor lost; path >= P), `m_psn` the PSN sent, `m_retx` |
//! | 2 | ACK | `s_psn` cum, `s_sack` (bit i = PSN cum + i, the wire's layout; bits >= W ignored) | `ack` of `[base, cum)`, `advance_base(cum)`, then `ack` of each live SACKed PSN | ok (cum not after next; refused: nothing changes), `m_n[p]` in flight acked, `m_l[p]` lost acked (spurious) |
//! | 3 | LDET | `s_path`, `s_ppsn` highest, `s_ldp_valid`/`s_ldp` the path's decrease point | `path_losses(p, highest, cfg_k)` + `mark_lost` each | ok (p < P); two batches split as the requester's `declare_lost_on_path` does (F11): the first ends with the first PSN in path order that passes the decrease point (`!s_ldp_valid` or at/after `s_ldp`), the second is the rest; `m_k`, `m_psn` first, `m_psn2` last of batch 1, `m_k2`, `m_psn3`, `m_psn4` of batch 2 (by distance from the base; 0 when empty) |
//! | 4 | DRAIN | `s_path` | `drain_path` + `mark_lost` each | as LDET |
//! | 5 | QUERY | `s_held` (bit i = slot i, PSN mod W, set = held) | `oldest_lost(held)`, `last_path` | ok (a lost PSN found), `m_psn` it, `m_path` its avoid path; nothing lost: ok 0, `m_psn` 0, `m_path` 0 |
//! | 6 | HEADTMO | - | `mark_lost(base)` if the base is in flight (no deadline check) | ok (fired), `m_psn` the base, `m_path` its path |
//! | 7 | MARKLOST | `s_psn` | `record` + `mark_lost` (RNR NAK) | ok (was in flight), `m_path` |
//! | 8 | ABANDON | `s_psn` from | `ack` of every live PSN at or after `from` (serial) | ok 1, `m_n[p]` in flight released |
//! | 9 | HWAIT | `s_hw_valid`, `s_hw` | head wait copy | ok 1 |
//! | 10 | NEWDATA | `s_nd` | new-data copy | ok 1 |
//! | 11-15 | (none) | - | nothing | ok 0 |
//!
//! Every result also carries the post-operation `m_room` (`has_room`), `m_free`
//! (`has_free_record`) and, for every op but LDET and DRAIN, `m_psn2` = the next PSN.
//! Field widths: `s_conn` is taken mod C (C a power of two: `CONN_BITS` bits), PSNs mod
//! 2^24, `s_path` mod 16, `s_hw` mod 2^31. `m_n`/`m_l` count up to R per path, so the
//! RTL needs log2 R + 1 bits each (5 at R 16, 7 at `tiny`'s R 64; the plan's 5 holds
//! only for R <= 16).
//!
//! **Pipeline** ([`RTX_LATENCY`] 11, [`RTX_APPLY_STAGE`] 6, II 1), exactly as
//! [`crate::sack::SackShell`]: an input transfer (`s_valid && s_ready`) at the edge
//! ending cycle t enters register 1 with `now` of that cycle (the op's send time); the op
//! is applied as it leaves register 6; its result is on the output (`m_valid`) in cycle
//! t + 11. **Global stall**: while `m_valid && !m_ready` (and `rst` low) every register
//! holds and `s_ready` is low.
//!
//! **Reset** (`rst`, synchronous): registers 1..=6 are emptied (those ops are never
//! applied), the result registers 7..=11 are emptied (their ops stay applied), the
//! counters and the scanner (counter, registers, `m_tmo`) are cleared. The head-deadline
//! writes of ops past the apply stage still land at their stage ([`RTX_BANK_STAGE`]),
//! reset or not. **Post-reset sweep**: in the C cycles after the last `rst` cycle the
//! block clears one bank entry per cycle (entry k in the k-th cycle), holds `s_ready` low
//! and keeps the scanner in its reset state; a bank write of an op from before the reset
//! that reaches the bank during the sweep is dropped. So C cycles after a reset every
//! deadline is invalid, whatever the bank held at power-up. Connection state is RAM and is
//! not reset (the shell starts with every connection as after RESET with isn 0 and every
//! deadline invalid; power-up runs RESET each connection once the sweep ends). A cycle with
//! `rst` high never stalls and has `s_ready` low; its outputs are still the registers'
//! (a beat in the output register is presented in the rst cycle and cleared at its edge,
//! as in `SackShell`).
//!
//! **Head timer** (§3). The bank `rx_hd[c]` holds connection c's head deadline
//! ([`RtxState::head_deadline`], the requester's `head_deadline` with `cfg_head_on` for
//! `head_rto_pct != 0` and the HWAIT/NEWDATA copies for `head_wait()`/`has_new_data`). An
//! op's deadline, computed from the state right after it, is written to the bank as the
//! op leaves register [`RTX_BANK_STAGE`] (10), 4 unstalled edges after the apply. The
//! scanner is three registers: at each edge where it is not held, `rd` <- (sc,
//! `rx_hd[sc]`), `sc` <- sc + 1 mod C; `hit` <- rd's connection if rd is valid and
//! `now.after_eq(deadline)` (the `now` of the cycle ending at that edge); `m_tmo` <- hit.
//! A bank read at the edge that writes the same entry gets the old value
//! (read-before-write). The scanner is held (all three registers and `sc`) while
//! `m_tmo_valid && !m_tmo_ready`, except that `rd` re-reads its entry so a held read is
//! never stale. An expired entry fires once per sweep (every C cycles) until an op clears
//! it. Lateness, with `m_tmo_ready` high and `now` counting cycles: an event is on
//! `m_tmo` at most C + 3 cycles after max(deadline, the bank write), never before the
//! deadline (test `head_timer_fires_within_c_plus_3_cycles_never_early_once_per_sweep`).
//!
//! **Counters** (`stat_*`, 32-bit wrapping), counted as a result enters the output
//! register: `send` accepted SENDs, `retx` accepted SENDs with `m_retx`, `acked` sum of
//! ACK `m_n`, `spurious` sum of ACK `m_l`, `lost_path` LDET `m_k + m_k2`, `lost_drain` DRAIN
//! `m_k`, `head` HEADTMOs that fired; `tmo` counts timer events taken (`m_tmo_valid &&
//! m_tmo_ready`).

use super::rtx::{Acked, RetransmitQueue, SlotState};
use super::{seq_add, seq_after, seq_after_eq, seq_dist, SEQ_MASK};
use crate::config::{Config, ConfigError};
use crate::sack::Bitmap;
use crate::time::HwTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Registers from an input transfer to the output register (the latency in cycles).
pub const RTX_LATENCY: usize = 11;
/// The register an op is applied from: it changes the state as it leaves register 6.
pub const RTX_APPLY_STAGE: usize = 6;
/// The register an op's head deadline is written to the bank from (stage C4): 4 edges
/// after the apply.
pub const RTX_BANK_STAGE: usize = 10;
/// Most paths the port widths allow (`s_path`[4]).
pub const RTX_MAX_PATHS: usize = 16;

/// Sizes and constant configuration (`cfg_*`) of one shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtxParams {
    /// C, a power of two.
    pub connections: usize,
    /// P, 1..=16.
    pub paths: usize,
    /// W, a power of two <= 256.
    pub window: u32,
    /// R, a power of two <= W.
    pub records: u32,
    /// `cfg_k`: the reorder threshold K.
    pub reorder_threshold: u32,
    /// `cfg_head_on`: `head_rto_pct != 0`.
    pub head_on: bool,
}

impl RtxParams {
    /// The sizes of a configuration (R = `tx_records()`).
    pub fn from_config(cfg: &Config) -> Result<Self, ConfigError> {
        let t = &cfg.transport;
        let p = Self {
            connections: cfg.connections,
            paths: usize::from(t.paths),
            window: t.window,
            records: t.tx_records(),
            reorder_threshold: t.reorder_threshold,
            head_on: t.head_rto_pct != 0,
        };
        p.validate()?;
        Ok(p)
    }

    /// A named preset of [`Config::preset`] (`core`, `tiny`, ...).
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        Self::from_config(&Config::preset(name)?)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |f: &str, v: String, r: &str| Err(ConfigError::out_of_range(format!("RtxParams.{f}"), v, r));
        if !self.connections.is_power_of_two() {
            return bad("connections", self.connections.to_string(), "a power of two");
        }
        if self.paths == 0 || self.paths > RTX_MAX_PATHS {
            return bad("paths", self.paths.to_string(), "1..=16");
        }
        if !self.window.is_power_of_two() || self.window > 256 {
            return bad("window", self.window.to_string(), "a power of two <= 256");
        }
        if !self.records.is_power_of_two() || self.records > self.window {
            return bad("records", self.records.to_string(), "a power of two <= window");
        }
        Ok(())
    }
}

/// One operation, typed (the fields of §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RtxOp {
    Reset { isn: u32 },
    Send { new: bool, psn: u32, path: u8, path_psn: u32 },
    Ack { cum: u32, sack: Bitmap },
    /// `ldp`: the path's last decrease point from the path table (`last_decrease_psn`
    /// if `decreased_any`, else `None`), to split the detection as the requester does (F11).
    Ldet { path: u8, highest: u32, ldp: Option<u32> },
    Drain { path: u8 },
    Query { held: Bitmap },
    HeadTmo,
    MarkLost { psn: u32 },
    Abandon { from: u32 },
    Hwait { valid: bool, wait: u32 },
    NewData { flag: bool },
    /// Codes 11..=15: no operation (ok 0).
    Undefined(u8),
}

impl RtxOp {
    pub const RESET: u8 = 0;
    pub const SEND: u8 = 1;
    pub const ACK: u8 = 2;
    pub const LDET: u8 = 3;
    pub const DRAIN: u8 = 4;
    pub const QUERY: u8 = 5;
    pub const HEADTMO: u8 = 6;
    pub const MARKLOST: u8 = 7;
    pub const ABANDON: u8 = 8;
    pub const HWAIT: u8 = 9;
    pub const NEWDATA: u8 = 10;

    /// The `s_op` code.
    pub fn code(&self) -> u8 {
        match self {
            RtxOp::Reset { .. } => Self::RESET,
            RtxOp::Send { .. } => Self::SEND,
            RtxOp::Ack { .. } => Self::ACK,
            RtxOp::Ldet { .. } => Self::LDET,
            RtxOp::Drain { .. } => Self::DRAIN,
            RtxOp::Query { .. } => Self::QUERY,
            RtxOp::HeadTmo => Self::HEADTMO,
            RtxOp::MarkLost { .. } => Self::MARKLOST,
            RtxOp::Abandon { .. } => Self::ABANDON,
            RtxOp::Hwait { .. } => Self::HWAIT,
            RtxOp::NewData { .. } => Self::NEWDATA,
            RtxOp::Undefined(c) => *c & 0xF,
        }
    }

    /// The op an input beat carries, with the port widths applied (fields an op does not
    /// use are ignored).
    pub fn decode(i: &RtxInputs) -> RtxOp {
        let psn = i.s_psn & SEQ_MASK;
        let path = i.s_path & 0xF;
        match i.s_op & 0xF {
            Self::RESET => RtxOp::Reset { isn: psn },
            Self::SEND => RtxOp::Send { new: i.s_new, psn, path, path_psn: i.s_ppsn & SEQ_MASK },
            Self::ACK => RtxOp::Ack { cum: psn, sack: i.s_sack },
            Self::LDET => RtxOp::Ldet { path, highest: i.s_ppsn & SEQ_MASK, ldp: i.s_ldp_valid.then_some(i.s_ldp & SEQ_MASK) },
            Self::DRAIN => RtxOp::Drain { path },
            Self::QUERY => RtxOp::Query { held: i.s_held },
            Self::HEADTMO => RtxOp::HeadTmo,
            Self::MARKLOST => RtxOp::MarkLost { psn },
            Self::ABANDON => RtxOp::Abandon { from: psn },
            Self::HWAIT => RtxOp::Hwait { valid: i.s_hw_valid, wait: i.s_hw & 0x7FFF_FFFF },
            Self::NEWDATA => RtxOp::NewData { flag: i.s_nd },
            c => RtxOp::Undefined(c),
        }
    }

    /// Drives the op's input fields (`s_valid` high, the other `s_*` fields 0). `rst`,
    /// `now`, `m_ready` and `m_tmo_ready` are left as they are.
    pub fn drive(&self, conn: u32, i: &mut RtxInputs) {
        *i = RtxInputs { rst: i.rst, now: i.now, m_ready: i.m_ready, m_tmo_ready: i.m_tmo_ready, s_valid: true, s_op: self.code(), s_conn: conn, ..RtxInputs::default() };
        match *self {
            RtxOp::Reset { isn } => i.s_psn = isn,
            RtxOp::Send { new, psn, path, path_psn } => {
                i.s_new = new;
                i.s_psn = psn;
                i.s_path = path;
                i.s_ppsn = path_psn;
            }
            RtxOp::Ack { cum, sack } => {
                i.s_psn = cum;
                i.s_sack = sack;
            }
            RtxOp::Ldet { path, highest, ldp } => {
                i.s_path = path;
                i.s_ppsn = highest;
                i.s_ldp_valid = ldp.is_some();
                i.s_ldp = ldp.unwrap_or(0);
            }
            RtxOp::Drain { path } => i.s_path = path,
            RtxOp::Query { held } => i.s_held = held,
            RtxOp::HeadTmo | RtxOp::Undefined(_) => {}
            RtxOp::MarkLost { psn } => i.s_psn = psn,
            RtxOp::Abandon { from } => i.s_psn = from,
            RtxOp::Hwait { valid, wait } => {
                i.s_hw_valid = valid;
                i.s_hw = wait;
            }
            RtxOp::NewData { flag } => i.s_nd = flag,
        }
    }
}

/// The inputs of one cycle (the §4.2 ports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtxInputs {
    pub rst: bool,
    /// The NIC time counter.
    pub now: u32,
    pub s_valid: bool,
    pub s_op: u8,
    pub s_conn: u32,
    pub s_psn: u32,
    pub s_new: bool,
    pub s_path: u8,
    pub s_ppsn: u32,
    pub s_sack: Bitmap,
    pub s_held: Bitmap,
    pub s_hw_valid: bool,
    pub s_hw: u32,
    pub s_nd: bool,
    /// LDET: the path's decrease point is valid (`decreased_any`) and its PSN (F11).
    pub s_ldp_valid: bool,
    pub s_ldp: u32,
    pub m_ready: bool,
    pub m_tmo_ready: bool,
}

/// One result beat (`m_*` while `m_valid`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtxResult {
    pub op: u8,
    pub conn: u32,
    pub ok: bool,
    pub psn: u32,
    pub psn2: u32,
    pub path: u8,
    pub k: u32,
    /// Per path (first P entries): PSNs in flight acknowledged (ACK) or released (ABANDON).
    pub n: [u16; RTX_MAX_PATHS],
    /// Per path: lost PSNs acknowledged (ACK: spurious losses, credited to their path).
    pub l: [u16; RTX_MAX_PATHS],
    pub room: bool,
    pub free: bool,
    pub retx: bool,
    /// LDET's second batch (F11): its count, first and last PSN (0 when empty); DRAIN: 0.
    pub k2: u32,
    pub psn3: u32,
    pub psn4: u32,
}

/// Status counters (32 bits, wrapping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtxStats {
    pub send: u32,
    pub retx: u32,
    pub acked: u32,
    pub spurious: u32,
    pub lost_path: u32,
    pub lost_drain: u32,
    pub head: u32,
    pub tmo: u32,
}

/// The outputs of one cycle (before its edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtxOutputs {
    pub s_ready: bool,
    /// `Some` while `m_valid`.
    pub m: Option<RtxResult>,
    /// `Some(m_tmo_conn)` while `m_tmo_valid`.
    pub m_tmo: Option<u32>,
    pub stats: RtxStats,
}

/// The state of C connections: what the RAM `rx_word` holds (a [`RetransmitQueue`] and
/// the head-timer copies per connection). [`RtxState::apply`] is the whole behaviour of
/// an op; the shell adds only time.
#[derive(Clone, Debug)]
pub struct RtxState {
    pub params: RtxParams,
    pub queues: Vec<RetransmitQueue>,
    /// HWAIT's copy of the path table's head wait (`None`: not valid).
    pub head_wait: Vec<Option<u32>>,
    /// NEWDATA's copy of `has_new_data`.
    pub new_data: Vec<bool>,
}

impl RtxState {
    /// Every connection as after RESET with isn 0.
    pub fn new(params: RtxParams) -> Self {
        let q = RetransmitQueue::new(params.window, params.records, params.paths, 0);
        Self { params, queues: vec![q; params.connections], head_wait: vec![None; params.connections], new_data: vec![false; params.connections] }
    }

    /// Applies one op of connection `conn` (taken mod C) at send time `now`.
    pub fn apply(&mut self, conn: u32, op: &RtxOp, now: HwTime) -> RtxResult {
        let pr = self.params;
        let conn = conn & (pr.connections as u32 - 1);
        let c = conn as usize;
        let mut r = RtxResult { op: op.code(), conn, ..Default::default() };
        let path_ok = |p: u8| usize::from(p) < pr.paths;
        let mut last_set: Option<(u32, u32)> = None;
        match *op {
            RtxOp::Reset { isn } => {
                self.queues[c] = RetransmitQueue::new(pr.window, pr.records, pr.paths, isn & SEQ_MASK);
                self.head_wait[c] = None;
                self.new_data[c] = false;
                r.ok = true;
            }
            RtxOp::Send { new, psn, path, path_psn } => {
                let q = &mut self.queues[c];
                let sent = if !path_ok(path) {
                    None
                } else if new {
                    (q.has_room() && q.has_free_record()).then(|| q.push_new())
                } else {
                    matches!(q.slot(psn).map(|s| s.state), Some(SlotState::InFlight | SlotState::Lost)).then_some(psn)
                };
                if let Some(psn) = sent {
                    q.on_transmit(psn, path, path_psn & SEQ_MASK, now);
                    r.ok = true;
                    r.psn = psn;
                    r.retx = q.slot(psn).expect("live").retx;
                }
            }
            RtxOp::Ack { cum, sack } => {
                let q = &mut self.queues[c];
                let cum = cum & SEQ_MASK;
                if !seq_after(cum, q.next) {
                    r.ok = true;
                    let count = |a: Acked, r: &mut RtxResult| match a {
                        Acked::Nothing => {}
                        Acked::InFlight { path, .. } => r.n[usize::from(path)] += 1,
                        Acked::WasLost { path } => r.l[usize::from(path)] += 1,
                    };
                    if seq_after(cum, q.base) {
                        let mut psn = q.base;
                        while psn != cum {
                            count(q.ack(psn), &mut r);
                            psn = seq_add(psn, 1);
                        }
                        q.advance_base(cum);
                    }
                    for i in 0..pr.window {
                        let psn = seq_add(cum, i);
                        if sack.get(i as usize) && q.is_live(psn) {
                            count(q.ack(psn), &mut r);
                        }
                    }
                }
            }
            RtxOp::Ldet { path, .. } | RtxOp::Drain { path } if path_ok(path) => {
                let q = &mut self.queues[c];
                let mut v = Vec::new();
                match *op {
                    RtxOp::Ldet { highest, .. } => q.path_losses(usize::from(path), highest & SEQ_MASK, pr.reorder_threshold, &mut v),
                    _ => q.drain_path(usize::from(path), &mut v),
                }
                let base = q.base;
                // F11: the requester's split (`declare_lost_on_path`): the first batch ends
                // with the first PSN, in path order, that passes the decrease point.
                let cut = match *op {
                    RtxOp::Ldet { ldp, .. } => v.iter().position(|&psn| ldp.is_none_or(|d| seq_after_eq(psn, d))).map_or(v.len(), |j| j + 1),
                    _ => v.len(),
                };
                let triple = |part: &[u32]| {
                    part.iter().fold(None, |acc: Option<(u32, u32)>, &psn| {
                        let d = seq_dist(psn, base);
                        Some(match acc {
                            None => (psn, psn),
                            Some((f, l)) => (if d < seq_dist(f, base) { psn } else { f }, if d > seq_dist(l, base) { psn } else { l }),
                        })
                    })
                };
                for &psn in &v {
                    q.mark_lost(psn);
                }
                let (first, last) = triple(&v[..cut]).unwrap_or((0, 0));
                let (first2, last2) = triple(&v[cut..]).unwrap_or((0, 0));
                last_set = Some((first, last));
                r.ok = true;
                r.k = cut as u32;
                r.k2 = (v.len() - cut) as u32;
                r.psn3 = first2;
                r.psn4 = last2;
                r.path = path;
                r.psn = first;
            }
            RtxOp::Ldet { .. } | RtxOp::Drain { .. } => last_set = Some((0, 0)),
            RtxOp::Query { held } => {
                let q = &self.queues[c];
                if let Some(psn) = q.oldest_lost(&held) {
                    r.ok = true;
                    r.psn = psn;
                    r.path = q.last_path(psn).expect("a lost PSN has a path");
                }
            }
            RtxOp::HeadTmo => {
                let q = &mut self.queues[c];
                let base = q.base;
                if let Some(p) = q.record(base).map(|rec| rec.path) {
                    q.mark_lost(base);
                    r.ok = true;
                    r.psn = base;
                    r.path = p;
                }
            }
            RtxOp::MarkLost { psn } => {
                let q = &mut self.queues[c];
                r.psn = psn;
                if let Some(p) = q.record(psn).map(|rec| rec.path) {
                    q.mark_lost(psn);
                    r.ok = true;
                    r.path = p;
                }
            }
            RtxOp::Abandon { from } => {
                let q = &mut self.queues[c];
                let live: Vec<u32> = q.iter().map(|(psn, _)| psn).filter(|&psn| seq_after_eq(psn, from & SEQ_MASK)).collect();
                for psn in live {
                    if let Acked::InFlight { path, .. } = q.ack(psn) {
                        r.n[usize::from(path)] += 1;
                    }
                }
                r.ok = true;
            }
            RtxOp::Hwait { valid, wait } => {
                self.head_wait[c] = valid.then_some(wait & 0x7FFF_FFFF);
                r.ok = true;
            }
            RtxOp::NewData { flag } => {
                self.new_data[c] = flag;
                r.ok = true;
            }
            RtxOp::Undefined(_) => {}
        }
        let q = &self.queues[c];
        r.room = q.has_room();
        r.free = q.has_free_record();
        r.psn2 = match last_set {
            Some((_, l)) => l,
            None => q.next,
        };
        r
    }

    /// Connection `conn`'s head deadline (the requester's `head_deadline`): the base's
    /// send time plus the head wait, while the head timer is on, the wait is valid, the
    /// base is in flight and half the window is used or no new data is left.
    pub fn head_deadline(&self, conn: u32) -> Option<HwTime> {
        let c = (conn & (self.params.connections as u32 - 1)) as usize;
        let q = &self.queues[c];
        if !self.params.head_on || (q.outstanding() < self.params.window / 2 && self.new_data[c]) {
            return None;
        }
        let sent_at = q.record(q.base)?.sent_at;
        let wait = self.head_wait[c]?;
        Some(sent_at.add_ns(u64::from(wait)))
    }
}

/// A head-deadline bank write travelling with its op: (connection, deadline).
type BankWrite = Option<(u32, Option<HwTime>)>;

/// The cycle shell of `mrnic_rtx` (see the module documentation for the contract).
#[derive(Clone, Debug)]
pub struct RtxShell {
    pub state: RtxState,
    /// Registers 1..=6, register 1 at the front: (conn, op, now at the transfer).
    pre: VecDeque<Option<(u32, RtxOp, HwTime)>>,
    /// Registers 7..=11, the output register at the back.
    post: VecDeque<Option<RtxResult>>,
    /// The bank writes of registers 7..=10, register 10 at the back.
    bank_pipe: VecDeque<BankWrite>,
    /// `rx_hd`: the head-deadline bank.
    bank: Vec<Option<HwTime>>,
    sc: u32,
    rd: Option<(u32, Option<HwTime>)>,
    hit: Option<u32>,
    tmo: Option<u32>,
    /// The post-reset sweep: the next bank entry it clears (Some while it runs).
    sweep: Option<u32>,
    stats: RtxStats,
    /// The bank write of the last edge (connection, new entry), if there was one: at most
    /// one per edge (the sweep's clear or an op's deadline). For observers, such as the
    /// transaction-level timer check; the shell itself never reads it.
    pub last_write: Option<(u32, Option<HwTime>)>,
}

impl RtxShell {
    pub fn new(params: RtxParams) -> Result<Self, ConfigError> {
        params.validate()?;
        Ok(Self {
            state: RtxState::new(params),
            pre: std::iter::repeat_n(None, RTX_APPLY_STAGE).collect(),
            post: std::iter::repeat_n(None, RTX_LATENCY - RTX_APPLY_STAGE).collect(),
            bank_pipe: std::iter::repeat_n(None, RTX_BANK_STAGE - RTX_APPLY_STAGE).collect(),
            bank: vec![None; params.connections],
            sc: 0,
            rd: None,
            hit: None,
            tmo: None,
            sweep: None,
            stats: RtxStats::default(),
            last_write: None,
        })
    }

    pub fn latency(&self) -> usize {
        RTX_LATENCY
    }

    /// The bank entry of connection `c` (`rx_hd[c]`), as the scanner reads it.
    pub fn bank(&self, c: usize) -> Option<HwTime> {
        self.bank[c]
    }

    fn stall(&self, i: &RtxInputs) -> bool {
        !i.rst && self.post.back().expect("output register").is_some() && !i.m_ready
    }

    /// The outputs during a cycle with inputs `i` (before its edge).
    pub fn outputs(&self, i: &RtxInputs) -> RtxOutputs {
        RtxOutputs { s_ready: !i.rst && !self.stall(i) && self.sweep.is_none(), m: *self.post.back().expect("output register"), m_tmo: self.tmo, stats: self.stats }
    }

    /// Advances one clock edge with inputs `i`; returns the outputs of the cycle that ended.
    pub fn step(&mut self, i: &RtxInputs) -> RtxOutputs {
        let out = self.outputs(i);
        let now = HwTime(i.now);
        self.last_write = None;
        // The scanner (reads the bank before this edge's write).
        if i.rst || self.sweep.is_some() {
            self.sc = 0;
            self.rd = None;
            self.hit = None;
            self.tmo = None;
        } else if self.tmo.is_some() && !i.m_tmo_ready {
            self.rd = self.rd.map(|(c, _)| (c, self.bank[c as usize]));
        } else {
            if self.tmo.is_some() {
                self.stats.tmo = self.stats.tmo.wrapping_add(1);
            }
            self.tmo = self.hit;
            self.hit = self.rd.and_then(|(c, d)| d.filter(|&d| now.after_eq(d)).map(|_| c));
            self.rd = Some((self.sc, self.bank[self.sc as usize]));
            self.sc = (self.sc + 1) % self.state.params.connections as u32;
        }
        if i.rst {
            self.pre.iter_mut().for_each(|r| *r = None);
            self.post.iter_mut().for_each(|r| *r = None);
            self.stats = RtxStats::default();
            // Ops past the apply stage still write their deadlines.
            self.shift_bank(None);
            self.sweep = Some(0);
            return out;
        }
        let sweeping = self.sweep;
        if let Some(k) = sweeping {
            // The sweep owns the bank's write port: it clears entry k, and a write of an op
            // from before the reset that reaches the bank meanwhile is dropped.
            self.bank[k as usize] = None;
            self.last_write = Some((k, None));
            self.sweep = (k + 1 < self.state.params.connections as u32).then_some(k + 1);
        }
        if !self.stall(i) {
            let applied = self.pre.pop_back().expect("apply stage").map(|(conn, op, t)| {
                let r = self.state.apply(conn, &op, t);
                (r, self.state.head_deadline(r.conn))
            });
            if sweeping.is_some() {
                self.bank_pipe.pop_back();
                self.bank_pipe.push_front(applied.map(|(r, d)| (r.conn, d)));
            } else {
                self.shift_bank(applied.map(|(r, d)| (r.conn, d)));
            }
            self.post.pop_back();
            self.post.push_front(applied.map(|(r, _)| r));
            if let Some(m) = *self.post.back().expect("output register") {
                self.count(&m);
            }
            let beat = (i.s_valid && sweeping.is_none()).then(|| (i.s_conn & (self.state.params.connections as u32 - 1), RtxOp::decode(i), now));
            self.pre.push_front(beat);
        }
        out
    }

    fn shift_bank(&mut self, w: BankWrite) {
        if let Some(Some((c, d))) = self.bank_pipe.pop_back() {
            self.bank[c as usize] = d;
            self.last_write = Some((c, d));
        }
        self.bank_pipe.push_front(w);
    }

    fn count(&mut self, m: &RtxResult) {
        let s = &mut self.stats;
        let sum = |a: &[u16; RTX_MAX_PATHS]| a.iter().map(|&x| u32::from(x)).sum::<u32>();
        match m.op {
            RtxOp::SEND if m.ok => {
                s.send = s.send.wrapping_add(1);
                s.retx = s.retx.wrapping_add(u32::from(m.retx));
            }
            RtxOp::ACK => {
                s.acked = s.acked.wrapping_add(sum(&m.n));
                s.spurious = s.spurious.wrapping_add(sum(&m.l));
            }
            RtxOp::LDET => s.lost_path = s.lost_path.wrapping_add(m.k).wrapping_add(m.k2),
            RtxOp::DRAIN => s.lost_drain = s.lost_drain.wrapping_add(m.k),
            RtxOp::HEADTMO if m.ok => s.head = s.head.wrapping_add(1),
            _ => {}
        }
    }
}
