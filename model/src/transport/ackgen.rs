//! The responder's ACK generator (`docs/protocol.md` §6.10), in the form the hardware
//! keeps it: one row per (connection, path) ([`AckRow`]), one CE average per connection,
//! and one ACK coalescing FIFO per NIC ([`AckGen`]).
//!
//! [`AckRow`] is the per-path state and its three steps (path PSN bookkeeping, the ACK
//! decision, building an ACK); the [`Responder`](super::responder::Responder) runs them for
//! its own paths, so the connection-level model and this block model share every line of
//! the decision. [`AckGen`] is the NIC-level block the RTL (`mrnic_ackgen`) implements: it
//! takes the packet's class from the SACK engine and the message checks ([`AckClass`]) and
//! produces the ACK's own fields ([`AckOut`]; the BTH PSN and the SACK bitmap are the SACK
//! engine's and are joined where the ACK frame is built). Its FIFO keeps stale entries as
//! the hardware does (the responder drops them at once; the ACKs are the same, see
//! `protocol.md` §6.10 and the test `the_shared_fifo_fires_the_acks_of_per_connection_fifos`).
//!
//! **Widths.** `expected`, `highest`: 24-bit path PSNs; `pending`, `ce`: 8 bits (`N` <=
//! 255 and `ce <= pending`, and `pending` is reset when it reaches `N`); `newest_ts`: 32;
//! `newest_arrival` and the deadline: 32-bit hardware time; `sport`: 16. The CE average is
//! Q0.10 in 11 bits ([`ce_avg_next`]); the rate hint is derived from it and the connection's
//! base `B` when an ACK is built ([`rate_hint_of`]), so it is not state.

use super::{seq_add, seq_after, seq_after_eq, SEQ_MASK};
use crate::time::HwTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// ACK flags (`wire::ack_flags`), repeated here by value for the block's ports.
pub use crate::wire::ack_flags;

/// One in Q0.10: the CE average of a connection whose every packet is marked tends to it.
pub const CE_ONE: u16 = 1 << 10;

/// The CE average after one more DATA packet (`docs/protocol.md` §6.10):
/// `ce_avg + (((ce ? 1024 : 0) - ce_avg) >> 2)`, a signed 12-bit difference shifted with
/// floor (arithmetic shift). From 0 it rises to at most 1021 under constant marking (the
/// step `(1024 - a) >> 2` is 0 from 1021 on) and falls back to exactly 0 without marks
/// (`-1 >> 2 = -1`), so it stays in 0..=1021 ⊂ 11 bits.
#[inline]
pub fn ce_avg_next(ce_avg: u16, ce: bool) -> u16 {
    let target = if ce { i32::from(CE_ONE) } else { 0 };
    let a = i32::from(ce_avg);
    (a + ((target - a) >> 2)) as u16
}

/// The rate hint for host share `hint_base` (Mbit/s, 32 bits; 0 = no hint) and CE average
/// `ce_avg` (Q0.10): 0 when `hint_base` is 0, else `max(hint_base - ((hint_base * ce_avg)
/// >> 11), 1)` — `hint_base · (1 - ce_avg/2048)`, the product floored, so the hint is
/// rounded up to the Mbit/s. The 32x11 multiply is two MULT18X18D on ECP5 (`hint_base` low
/// 18 bits and high 14 bits, each times the 11-bit average, summed with a shift of 18).
#[inline]
pub fn rate_hint_of(hint_base: u32, ce_avg: u16) -> u32 {
    if hint_base == 0 {
        return 0;
    }
    let cut = (u64::from(hint_base) * u64::from(ce_avg)) >> 11;
    (hint_base - cut as u32).max(1)
}

/// One (connection, path) row: 24 + 24 + 8 + 8 + 32 + 32 + 1 + 32 + 16 = 177 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckRow {
    /// The next path PSN expected (24 bits).
    pub expected: u32,
    /// The highest path PSN seen (24 bits).
    pub highest: u32,
    /// DATA packets since the last ACK on this path.
    pub pending: u8,
    /// Of them, CE-marked.
    pub ce: u8,
    /// The newest packet's timestamp (echoed).
    pub newest_ts: u32,
    /// When the newest packet arrived (for the ACK's `ack_delay`).
    pub newest_arrival: HwTime,
    /// The ACK coalescing deadline (valid bit + 32-bit time).
    pub ack_due: Option<HwTime>,
    /// The newest packet's UDP source port (the ACK takes the reverse route).
    pub sport: u16,
}

/// What [`AckRow::decide`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckDecision {
    /// Send an ACK now with these flags ([`AckRow::take`]).
    Send(u8),
    /// The path was armed: push `(connection, path, deadline)` on the coalescing FIFO.
    Arm(HwTime),
    /// Counted; an earlier arming covers it.
    Wait,
}

/// The fields of an ACK this block owns (`wire::Ack` without the SACK bitmap; the BTH PSN
/// is the SACK engine's cumulative PSN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckFields {
    pub path_psn: u32,
    pub flags: u8,
    pub ecn_ce: u8,
    pub ecn_pkts: u8,
    pub ts_echo: u32,
    pub ack_delay: u32,
    pub sport: u16,
}

impl AckRow {
    /// A path's row at connection setup: `expected` = the path ISN, `highest` = ISN − 1.
    pub fn new(path_isn: u32) -> AckRow {
        AckRow {
            expected: path_isn & SEQ_MASK,
            highest: seq_add(path_isn, SEQ_MASK),
            pending: 0,
            ce: 0,
            newest_ts: 0,
            newest_arrival: HwTime(0),
            ack_due: None,
            sport: 0,
        }
    }

    /// Path PSN bookkeeping for every DATA packet on a valid path (also one that will be
    /// refused: its path PSN was used). Returns whether path PSNs were skipped (a gap).
    pub fn path_psn_seen(&mut self, path_psn: u32, sport: u16) -> bool {
        let gap = seq_after(path_psn, self.expected);
        if seq_after_eq(path_psn, self.expected) {
            self.expected = seq_add(path_psn, 1);
        }
        if seq_after(path_psn, self.highest) {
            self.highest = path_psn;
        }
        self.sport = sport;
        gap
    }

    /// The ACK decision for a packet that reached it (new and accepted, duplicate or out of
    /// window): count it, then send at once when `flags` is not 0 or the packet is not new
    /// (`immediate`) or `ack_every` packets are pending; else arm the path if it is not.
    pub fn decide(&mut self, now: HwTime, ce: bool, ts: u32, flags: u8, immediate: bool, ack_every: u32, ack_timeout: u32) -> AckDecision {
        self.pending += 1;
        self.ce += u8::from(ce);
        self.newest_ts = ts;
        self.newest_arrival = now;
        if flags != 0 || immediate || u32::from(self.pending) >= ack_every {
            AckDecision::Send(flags)
        } else if self.ack_due.is_none() {
            let due = now.add(ack_timeout);
            self.ack_due = Some(due);
            AckDecision::Arm(due)
        } else {
            AckDecision::Wait
        }
    }

    /// Builds the ACK and clears the counters and the deadline.
    pub fn take(&mut self, flags: u8, now: HwTime) -> AckFields {
        let a = AckFields {
            path_psn: self.highest,
            flags,
            ecn_ce: self.ce,
            ecn_pkts: self.pending,
            ts_echo: self.newest_ts,
            ack_delay: now.since(self.newest_arrival),
            sport: self.sport,
        };
        self.pending = 0;
        self.ce = 0;
        self.ack_due = None;
        a
    }
}

/// How a DATA packet left the responder's checks, as the ACK generator sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AckClass {
    /// Refused (NAK'd), dropped beyond the message window, or in the connection's error
    /// state: path PSN bookkeeping only, no ACK counters.
    Refused,
    /// New and accepted.
    New,
    /// A duplicate (ACK at once, DUPLICATE flag).
    Duplicate,
    /// Out of window (ACK at once, no flag).
    OutOfWindow,
}

impl AckClass {
    pub const ALL: [AckClass; 4] = [AckClass::Refused, AckClass::New, AckClass::Duplicate, AckClass::OutOfWindow];
    /// The 2-bit code on the block's `s_class` port.
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn from_code(c: u8) -> AckClass {
        Self::ALL[usize::from(c & 3)]
    }
}

/// One DATA packet into the ACK generator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckIn {
    pub conn: u32,
    pub path: u8,
    pub path_psn: u32,
    /// [`AckClass::code`].
    pub class: u8,
    /// The BTH A bit.
    pub ack_req: bool,
    /// The packet was CE-marked.
    pub ce: bool,
    /// The MPETH timestamp.
    pub ts: u32,
    pub sport: u16,
}

/// One ACK out of the ACK generator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckOut {
    pub conn: u32,
    pub path: u8,
    pub fields: AckFields,
    pub rate_hint: u32,
    /// Sent by the coalescing timer (else by a DATA packet: the SACK engine's result for
    /// that packet is the one to join).
    pub timer: bool,
}

/// The ACK generator's configuration (constant while it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckGenConfig {
    pub connections: u32,
    /// Paths per connection, 1..=16 (`path` below it).
    pub paths: u8,
    /// `N`, 1..=255.
    pub ack_every: u32,
    /// `T` in ns, 1..2^31.
    pub ack_timeout: u32,
    /// Entries of the coalescing FIFO.
    pub fifo_depth: u32,
}

impl AckGenConfig {
    /// Refuses what the hardware cannot hold, with the reason.
    pub fn validate(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections > 1 << 16 {
            return Err(format!("connections = {} must be 1..=65536", self.connections));
        }
        if self.paths == 0 || self.paths > 16 {
            return Err(format!("paths = {} must be 1..=16 (the 4-bit path id)", self.paths));
        }
        if self.ack_every == 0 || self.ack_every > 255 {
            return Err(format!("ack_every = {} must be 1..=255 (the ACK's 8-bit packet count)", self.ack_every));
        }
        if self.ack_timeout == 0 || self.ack_timeout >= 1 << 31 {
            return Err(format!("ack_timeout = {} ns must be 1..2^31", self.ack_timeout));
        }
        if self.fifo_depth == 0 {
            return Err("fifo_depth must be at least 1".into());
        }
        Ok(())
    }
}

/// The ACK generator's counters (`stat_` ports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckGenStats {
    /// DATA packets whose path id is not below `paths`: no change.
    pub bad_path: u64,
    pub path_gaps: u64,
    pub acks_now: u64,
    pub acks_timer: u64,
    /// FIFO pops whose path had already sent its ACK.
    pub stale_pops: u64,
    /// Armings that found the FIFO full and sent the ACK at once instead.
    pub fifo_full: u64,
}

/// The NIC-level ACK generator: rows `conn << path_bits | path` (the RTL's address:
/// connection and path bits side by side, the paths rounded up to a power of two, at least
/// 2), CE averages and rate-hint bases per connection, and the shared coalescing FIFO of
/// `(conn, path, deadline)` in push order. The cycle shell (`ackgen_shell::AckShell`) runs
/// its operations with the RTL's timing.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AckGen {
    pub cfg: AckGenConfig,
    path_bits: u32,
    rows: Vec<AckRow>,
    pub ce_avg: Vec<u16>,
    pub hint_base: Vec<u32>,
    fifo: VecDeque<(u32, u8, HwTime)>,
    pub stats: AckGenStats,
}

impl AckGen {
    /// Every row as a connection with path ISN 0 would start.
    pub fn new(cfg: AckGenConfig) -> Result<AckGen, String> {
        cfg.validate()?;
        let n = cfg.connections as usize;
        let path_bits = u32::from(cfg.paths).next_power_of_two().trailing_zeros().max(1);
        Ok(AckGen {
            cfg,
            path_bits,
            rows: vec![AckRow::new(0); n << path_bits],
            ce_avg: vec![0; n],
            hint_base: vec![0; n],
            fifo: VecDeque::new(),
            stats: AckGenStats::default(),
        })
    }

    fn idx(&self, conn: u32, path: u8) -> usize {
        ((conn as usize) << self.path_bits) | usize::from(path)
    }

    pub fn row(&self, conn: u32, path: u8) -> &AckRow {
        &self.rows[self.idx(conn, path)]
    }

    /// Reset: the FIFO and the counters cleared; the rows, CE averages and bases are data.
    pub fn reset(&mut self) {
        self.fifo.clear();
        self.stats = AckGenStats::default();
    }

    /// Entries in the coalescing FIFO, stale ones included.
    pub fn fifo_len(&self) -> usize {
        self.fifo.len()
    }

    /// The head's deadline.
    pub fn fifo_head(&self) -> Option<HwTime> {
        self.fifo.front().map(|e| e.2)
    }

    /// Configuration write: path `path` of `conn` starts over at `path_isn` (its deadline,
    /// if any, is dropped: its FIFO entry becomes stale).
    pub fn set_path(&mut self, conn: u32, path: u8, path_isn: u32) {
        let i = self.idx(conn, path & ((1 << self.path_bits) - 1) as u8);
        self.rows[i] = AckRow::new(path_isn & SEQ_MASK);
    }

    /// Configuration write: the connection's rate-hint base (Mbit/s; 0 = no hint), and its
    /// CE average back to 0.
    pub fn set_conn(&mut self, conn: u32, hint_base: u32) {
        self.hint_base[conn as usize] = hint_base;
        self.ce_avg[conn as usize] = 0;
    }

    fn out(&self, conn: u32, path: u8, fields: AckFields, timer: bool) -> AckOut {
        let c = conn as usize;
        AckOut { conn, path, fields, rate_hint: rate_hint_of(self.hint_base[c], self.ce_avg[c]), timer }
    }

    /// One DATA packet; `Some` = the ACK it sends at once.
    pub fn data(&mut self, now: HwTime, d: &AckIn) -> Option<AckOut> {
        if d.path >= self.cfg.paths {
            self.stats.bad_path += 1;
            return None;
        }
        let c = d.conn as usize;
        let i = self.idx(d.conn, d.path);
        let gap = self.rows[i].path_psn_seen(d.path_psn & SEQ_MASK, d.sport);
        self.stats.path_gaps += u64::from(gap);
        let class = AckClass::from_code(d.class);
        if class == AckClass::Refused {
            return None;
        }
        self.ce_avg[c] = ce_avg_next(self.ce_avg[c], d.ce);
        let flags = (if gap { ack_flags::PATH_GAP } else { 0 })
            | (if d.ack_req { ack_flags::ACK_REQ } else { 0 })
            | (if class == AckClass::Duplicate { ack_flags::DUPLICATE } else { 0 });
        let dec = self.rows[i].decide(now, d.ce, d.ts, flags, class != AckClass::New, self.cfg.ack_every, self.cfg.ack_timeout);
        let send = match dec {
            AckDecision::Send(f) => Some(f),
            AckDecision::Arm(_) if self.fifo.len() >= self.cfg.fifo_depth as usize => {
                // No room to arm: the ACK goes now (never later than the model's); `take`
                // drops the deadline.
                self.stats.fifo_full += 1;
                Some(0)
            }
            AckDecision::Arm(due) => {
                self.fifo.push_back((d.conn, d.path, due));
                None
            }
            AckDecision::Wait => None,
        }?;
        self.stats.acks_now += 1;
        let f = self.rows[i].take(send, now);
        Some(self.out(d.conn, d.path, f, false))
    }

    /// Whether the FIFO's head is due at `now` (the hardware compares it every cycle).
    pub fn timer_due(&self, now: HwTime) -> bool {
        self.fifo.front().is_some_and(|e| now.after_eq(e.2))
    }

    /// One timer step: pops the head if it is due; `Some` = its path was still armed with
    /// that deadline and sends its ACK now (else the entry was stale).
    pub fn timer(&mut self, now: HwTime) -> Option<AckOut> {
        let e = self.pop_due(now)?;
        self.fire(e, now)
    }

    /// The FIFO's head `(conn, path, deadline)`, popped, if it is due at `now`.
    pub fn pop_due(&mut self, now: HwTime) -> Option<(u32, u8, HwTime)> {
        if self.timer_due(now) {
            self.fifo.pop_front()
        } else {
            None
        }
    }

    /// A popped FIFO entry checked against its row (the hardware pops in one stage and
    /// reads the row later): `Some` = the path was still armed with that deadline and sends
    /// its ACK at `now`, else the entry was stale.
    pub fn fire(&mut self, (conn, path, t): (u32, u8, HwTime), now: HwTime) -> Option<AckOut> {
        let i = self.idx(conn, path);
        if self.rows[i].ack_due != Some(t) {
            self.stats.stale_pops += 1;
            return None;
        }
        self.stats.acks_timer += 1;
        let f = self.rows[i].take(0, now);
        Some(self.out(conn, path, f, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn ce_average_stays_in_11_bits_reaches_0_and_saturates_at_1021() {
        for a in 0..=CE_ONE {
            for ce in [false, true] {
                let n = ce_avg_next(a, ce);
                assert!(n <= CE_ONE, "{a} {ce} -> {n}");
                // The step is floor((target - a) / 4) exactly.
                let t = if ce { 1024 } else { 0 };
                assert_eq!(i32::from(n), i32::from(a) + (t - i32::from(a)).div_euclid(4));
            }
        }
        let mut a = 0;
        for _ in 0..100 {
            a = ce_avg_next(a, true);
        }
        assert_eq!(a, 1021, "constant marking");
        for _ in 0..100 {
            a = ce_avg_next(a, false);
        }
        assert_eq!(a, 0, "no marks: back to exactly 0");
        // Gain 1/4: one marked packet from 0 is a quarter.
        assert_eq!(ce_avg_next(0, true), 256);
        assert_eq!(ce_avg_next(256, false), 192);
    }

    #[test]
    fn rate_hint_is_the_base_scaled_by_one_minus_half_the_ce_average_at_least_1_and_0_without_a_base() {
        assert_eq!(rate_hint_of(0, 0), 0);
        assert_eq!(rate_hint_of(0, 1021), 0);
        assert_eq!(rate_hint_of(10_000, 0), 10_000);
        assert_eq!(rate_hint_of(10_000, 1024), 5_000);
        assert_eq!(rate_hint_of(10_000, 256), 8_750);
        assert_eq!(rate_hint_of(10_001, 1024), 5_001, "the cut is floored: the hint rounds up");
        assert_eq!(rate_hint_of(1, 1021), 1);
        assert_eq!(rate_hint_of(u32::MAX, 1021), u32::MAX - ((u64::from(u32::MAX) * 1021) >> 11) as u32, "no overflow");
        for base in [1u32, 2, 3, 7, 1000, 99_999, u32::MAX] {
            for a in 0..=CE_ONE {
                let h = rate_hint_of(base, a);
                assert!((1..=base).contains(&h));
                // The cut floor(base * a / 2048) is at most base / 2, so the floor of 1 never binds.
                assert_eq!(u64::from(base - h), (u64::from(base) * u64::from(a)) / 2048);
            }
        }
    }

    fn cfg(connections: u32, fifo_depth: u32) -> AckGenConfig {
        AckGenConfig { connections, paths: 4, ack_every: 3, ack_timeout: 200, fifo_depth }
    }

    #[test]
    fn a_gap_on_a_path_is_acked_at_once_and_in_order_packets_are_coalesced_every_n() {
        let mut g = AckGen::new(cfg(2, 64)).unwrap();
        let d = |psn| AckIn { conn: 1, path: 2, path_psn: psn, class: AckClass::New.code(), ts: psn * 10, sport: 7, ..AckIn::default() };
        assert_eq!(g.data(HwTime(0), &d(0)), None, "armed");
        assert_eq!(g.fifo_len(), 1);
        assert_eq!(g.data(HwTime(1), &d(1)), None);
        let a = g.data(HwTime(2), &d(2)).expect("the third packet");
        assert_eq!((a.fields.path_psn, a.fields.ecn_pkts, a.fields.flags, a.fields.ts_echo, a.fields.sport), (2, 3, 0, 20, 7));
        let a = g.data(HwTime(3), &d(5)).expect("a gap");
        assert_eq!((a.fields.path_psn, a.fields.ecn_pkts, a.fields.flags), (5, 1, ack_flags::PATH_GAP));
        // The entry armed at 0 is stale: its pop at 200 sends nothing.
        assert!(!g.timer_due(HwTime(199)));
        assert_eq!(g.timer(HwTime(200)), None);
        assert_eq!(g.stats.stale_pops, 1);
    }

    #[test]
    fn an_armed_path_is_acked_by_the_timer_at_its_deadline_with_the_delay_since_the_newest_packet() {
        let mut g = AckGen::new(cfg(1, 64)).unwrap();
        g.set_conn(0, 10_000);
        let d = AckIn { conn: 0, path: 1, path_psn: 0, class: AckClass::New.code(), ce: true, ts: 99, sport: 3, ..AckIn::default() };
        assert_eq!(g.data(HwTime(u32::MAX - 50), &d), None);
        let d2 = AckIn { path_psn: 1, ce: false, ts: 100, ..d };
        assert_eq!(g.data(HwTime(u32::MAX - 10), &d2), None);
        let due = HwTime(u32::MAX - 50).add(200);
        assert!(!g.timer_due(HwTime(due.0 - 1)));
        let a = g.timer(due).expect("due across the time wrap");
        assert!(a.timer);
        assert_eq!((a.fields.ecn_ce, a.fields.ecn_pkts, a.fields.ts_echo, a.fields.ack_delay), (1, 2, 100, 160));
        assert_eq!(a.rate_hint, rate_hint_of(10_000, ce_avg_next(256, false)));
        assert_eq!(g.fifo_len(), 0);
    }

    #[test]
    fn refused_packets_move_the_path_psns_only_and_bad_paths_nothing() {
        let mut g = AckGen::new(cfg(1, 64)).unwrap();
        let d = AckIn { conn: 0, path: 0, path_psn: 4, class: AckClass::Refused.code(), ce: true, ..AckIn::default() };
        assert_eq!(g.data(HwTime(0), &d), None);
        assert_eq!((g.row(0, 0).expected, g.row(0, 0).highest, g.row(0, 0).pending), (5, 4, 0));
        assert_eq!((g.ce_avg[0], g.fifo_len(), g.stats.path_gaps), (0, 0, 1));
        let before = *g.row(0, 0);
        assert_eq!(g.data(HwTime(1), &AckIn { path: 4, ..d }), None, "path 4 of 4");
        assert_eq!((g.stats.bad_path, *g.row(0, 0)), (1, before));
    }

    #[test]
    fn a_full_fifo_sends_the_ack_at_once_instead_of_arming() {
        let mut g = AckGen::new(cfg(4, 2)).unwrap();
        for c in 0..2 {
            assert_eq!(g.data(HwTime(c), &AckIn { conn: c, class: AckClass::New.code(), ..AckIn::default() }), None);
        }
        let a = g.data(HwTime(5), &AckIn { conn: 2, class: AckClass::New.code(), ..AckIn::default() }).expect("no room");
        assert_eq!((a.conn, a.fields.ecn_pkts, a.fields.flags, g.stats.fifo_full), (2, 1, 0, 1));
        assert_eq!(g.row(2, 0).ack_due, None);
    }

    /// The reference the hardware FIFO must match: the responder's per-connection FIFOs,
    /// which drop an entry as soon as its path ACKs early (responder.rs), driven at one
    /// event per cycle.
    #[test]
    fn the_shared_fifo_fires_the_acks_of_per_connection_fifos() {
        let mut total = AckGenStats::default();
        for seed in 0..21u64 {
            // Busy, medium and sparse traffic: the sparse runs are where the timer fires.
            let load = [0.5, 0.05, 0.01][seed as usize % 3];
            let mut rng = SmallRng::seed_from_u64(seed);
            let c = cfg(3, 1 << 20);
            let mut g = AckGen::new(c).unwrap();
            let mut rows = vec![AckRow::new(0); 3 * 16];
            let mut fifos: Vec<VecDeque<(u8, HwTime)>> = vec![VecDeque::new(); 3];
            let mut psn = [[0u32; 4]; 3];
            let mut now = HwTime(rng.gen());
            // One step per cycle of `cycle_ns` (constant per run).
            let step = rng.gen_range(1..=5);
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for _ in 0..20_000 {
                now = now.add(step);
                // At most one event per cycle, the timer first (the hardware's priority).
                if g.timer_due(now) {
                    got.extend(g.timer(now));
                } else if rng.gen_bool(load) {
                    let (cn, p) = (rng.gen_range(0..3u32), rng.gen_range(0..4u8));
                    let pp = &mut psn[cn as usize][usize::from(p)];
                    *pp = (*pp + if rng.gen_bool(0.1) { 2 } else { 1 }) & SEQ_MASK;
                    let class = if rng.gen_bool(0.85) { AckClass::New } else { AckClass::ALL[rng.gen_range(0..4)] };
                    let d = AckIn { conn: cn, path: p, path_psn: *pp, class: class.code(), ack_req: rng.gen_bool(0.02), ce: rng.gen_bool(0.3), ts: rng.gen(), sport: rng.gen() };
                    got.extend(g.data(now, &d));
                    // The responder's steps.
                    let r = &mut rows[cn as usize * 16 + usize::from(p)];
                    let gap = r.path_psn_seen(d.path_psn, d.sport);
                    if class != AckClass::Refused {
                        let flags = (if gap { ack_flags::PATH_GAP } else { 0 })
                            | (if d.ack_req { ack_flags::ACK_REQ } else { 0 })
                            | (if class == AckClass::Duplicate { ack_flags::DUPLICATE } else { 0 });
                        match r.decide(now, d.ce, d.ts, flags, class != AckClass::New, c.ack_every, c.ack_timeout) {
                            AckDecision::Send(f) => {
                                if let Some(t) = r.ack_due {
                                    fifos[cn as usize].retain(|&e| e != (p, t));
                                }
                                want.push((cn, p, r.take(f, now)));
                            }
                            AckDecision::Arm(t) => fifos[cn as usize].push_back((p, t)),
                            AckDecision::Wait => {}
                        }
                    }
                }
                for (cn, f) in fifos.iter_mut().enumerate() {
                    while let Some(&(p, t)) = f.front() {
                        if !now.after_eq(t) {
                            break;
                        }
                        f.pop_front();
                        want.push((cn as u32, p, rows[cn * 16 + usize::from(p)].take(0, now)));
                    }
                }
            }
            let got: Vec<_> = got.iter().map(|a| (a.conn, a.path, a.fields)).collect();
            // The shared FIFO pops one entry per cycle in push order; the per-connection
            // ones pop in the same cycles (deadlines are distinct: one push per cycle).
            assert_eq!(got.len(), want.len(), "seed {seed}");
            assert_eq!(got, want, "seed {seed}");
            total.acks_timer += g.stats.acks_timer;
            total.stale_pops += g.stats.stale_pops;
            total.acks_now += g.stats.acks_now;
        }
        println!("{total:?}");
        assert!(total.acks_timer > 1000 && total.stale_pops > 1000 && total.acks_now > 10_000, "{total:?}");
    }
}
