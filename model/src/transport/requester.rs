//! Requester: the sending half of a connection end (`docs/protocol.md` §6.1-§6.9).
//!
//! Work requests (WRITE, SEND) are segmented into MTU packets with consecutive PSNs.
//! [`Requester::poll_tx_on`] sends, in this order: a due path probe, the oldest lost PSN
//! (on a path other than the one it was lost on when another can send), new data.
//! Each packet goes on the next path in round-robin order that has window room
//! ([`PathTable::select`]). ACKs acknowledge cumulatively and selectively, give an
//! RTT and an ECN sample for their path, and drive per-path loss detection: a packet
//! is lost when the responder has seen a path PSN `K` beyond it on the same path.
//! Each path's RTO is the backstop for tail losses and dead routes; repeated losses
//! or timeouts fail the path (new entropy, probe). A work request completes when all
//! its PSNs are acknowledged, in posting order.
//!
//! What is stored where (per PSN, per transmission record, per path, per message) is
//! in [`super::rtx`]'s header and `docs/protocol.md` §6.1: a PSN's message and packet
//! offset are derived from the message table ([`msg_of`]), the RNR hold is per message,
//! and at most `tx_records()` PSNs are in flight or lost (`TxStats::blocked_tx_pool`).

use super::path::{PathState, PathTable, Plane};
use super::qp::Out;
use super::rtx::{Acked, RetransmitQueue, SlotState};
use super::{seq_add, seq_after, seq_dist, InvariantError, TransportConfig, TransportError};
use crate::sack::Bitmap;
use crate::time::{earliest, HwTime};
use crate::wire::{data_flags, Ack, Body, DataExt, DataKind, Nak, NakCode, Placement, Probe};
use crate::wire::{DATA_HDRS_LEN, ETH_HLEN, L3_OVERHEAD};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// A WRITE or SEND posted by the application.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkRequest {
    pub wr_id: u64,
    pub kind: DataKind,
    /// Bytes to send.
    pub len: u64,
    /// WRITE: destination in the responder's region `rkey`. SEND: ignored.
    pub remote_va: u64,
    pub rkey: u32,
    /// Set SE on the last packet.
    pub solicited: bool,
    /// The bytes (`len` of them); `None` sends zeros without storing them (simulator).
    pub data: Option<Arc<[u8]>>,
}

/// How a work request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WcStatus {
    Success,
    /// Fatal NAK for this message (BadRkey, OutOfBounds, AccessDenied, InvalidRequest).
    RemoteError(NakCode),
    /// NoRecvBuffer more than `rnr_retry` times.
    RnrRetryExceeded,
    /// Not executed: the connection went to the error state before it completed.
    Flushed,
}

/// A requester completion, in posting order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    pub wr_id: u64,
    pub msn: u32,
    pub status: WcStatus,
    pub bytes: u64,
}

/// Requester counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxStats {
    pub data_sent: u64,
    pub retransmissions: u64,
    pub payload_bytes_sent: u64,
    pub acks: u64,
    pub acks_ignored: u64,
    pub naks: u64,
    pub rnr_naks: u64,
    pub losses_by_path: u64,
    pub losses_by_timeout: u64,
    /// The window head retransmitted by the head timer.
    pub losses_by_head_timer: u64,
    pub spurious_losses: u64,
    pub path_failures: u64,
    pub probes_sent: u64,
    /// PROBE_REPLY frames received.
    pub probe_replies: u64,
    pub completions: u64,
    /// `poll_tx` found data to send but the PSN window was full / no path had
    /// window room / the rate hint's bucket was empty.
    pub blocked_window: u64,
    pub blocked_paths: u64,
    pub blocked_tokens: u64,
    /// `poll_tx` had nothing to start: `msg_window` messages were uncompleted and
    /// more work requests waited in the send queue.
    pub blocked_msg_window: u64,
    /// `poll_tx` had new data to send but every transmission record was in use
    /// (`tx_records()` PSNs in flight or lost; a retransmission reuses its PSN's record).
    pub blocked_tx_pool: u64,
}

/// Token bucket (rate hint, §6.9): tokens are bytes in Q.10 fixed point.
pub const TOKEN_FRAC: u32 = 10;
/// Rate hints are clamped to 2^20 − 1 Mbit/s (about 1 Tbit/s) so the per-ns refill
/// `step` fits 35 bits.
pub const RATE_MAX_MBPS: u32 = (1 << 20) - 1;
/// `round(2^27 / 8000)`: bytes per ns = Mbit/s / 8000 = Mbit/s × 16777 / 2^27 (the
/// constant reciprocal; 1.3e-5 low).
pub const RECIP_8000: u64 = 16_777;
/// `step` is bytes/ns in Q.27; a refill `(dt × step) >> 17` is Q.10 bytes.
const STEP_TO_TOKEN_SHIFT: u32 = 27 - TOKEN_FRAC;
/// The refill interval is saturated at 2^28 ns: at the lowest rate (1 Mbit/s) that is
/// more than the bucket's whole range (−1 to +2 frames), so saturating changes nothing.
/// A bucket below its depth also has a deadline `tokens_at + 2^28` in the requester's
/// timer (it is full by then), so `now − tokens_at` is never taken across more than
/// 2^31 ns of the wrapping time counter.
pub const TOKEN_DT_MAX: u64 = 1 << 28;

/// A row of the message table (at most `msg_window` per connection). What the
/// retransmit queue needs of it: `first_psn` (24 bits), `npkts` and `segmented` (32
/// each: packet offsets are 32 bits on the wire), the RNR hold `not_before` (32 + a
/// valid bit) and `rnr_naks` (3). The MSN is kept here for the model's convenience; the
/// hardware table is a ring indexed by MSN (the oldest MSN is one register).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TxMsg {
    wr: WorkRequest,
    msn: u32,
    ssn: u32,
    npkts: u32,
    /// Packets given a PSN so far.
    segmented: u32,
    first_psn: u32,
    /// NoRecvBuffer NAKs so far (3 bits, saturating at 7).
    rnr_naks: u8,
    /// RNR hold (§3.2): the message's lost PSNs are not retransmitted before this
    /// time; `None` = the valid bit clear. Cleared by the requester's timer when it
    /// ends ([`Requester::on_timer`]), so a stale time is never compared across the
    /// 2^32 wrap.
    not_before: Option<HwTime>,
}

/// The message and the packet offset of live PSN `psn`, from the message table: the
/// message whose segmented packets `[first_psn, first_psn + segmented)` contain it.
/// The retransmit queue stores neither. The hardware compares `psn` with the
/// `msg_window` rows at once: with `last_psn = first_psn + segmented - 1` and `d =
/// last_psn - psn` (24-bit serial), a row hits when `d < min(segmented, W)`, and the
/// offset is `segmented - 1 - d`. Measured back from the last packet given a PSN, the
/// offset is exact even for a message of more than 2^24 packets: live PSNs are less
/// than W apart.
fn msg_of(msgs: &VecDeque<TxMsg>, window: u32, psn: u32) -> Option<(usize, u32)> {
    msgs.iter().enumerate().find_map(|(k, m)| {
        if m.segmented == 0 {
            return None;
        }
        let last = seq_add(m.first_psn, m.segmented - 1);
        let d = super::seq_dist(last, psn);
        (d < m.segmented.min(window)).then(|| (k, m.segmented - 1 - d))
    })
}

/// The requester half of a connection end.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Requester {
    cfg: TransportConfig,
    pub rtx: RetransmitQueue,
    pub paths: PathTable,
    /// Posted, not yet completed, oldest first: the NIC's message table, at most
    /// `msg_window` entries.
    msgs: VecDeque<TxMsg>,
    /// Posted beyond the message window (the host's send queue, outside the NIC):
    /// moved to `msgs` as messages complete.
    pending: VecDeque<TxMsg>,
    msg_window: u32,
    /// Index in `msgs` of the message being segmented.
    seg: usize,
    next_msn: u32,
    next_ssn: u32,
    /// Last rate hint received, Mbit/s (0 = none), and its token bucket: bytes in
    /// Q.10 (a 27-bit signed register in the RTL), refilled by `step = min(rate,
    /// RATE_MAX_MBPS) × RECIP_8000` (bytes/ns, Q.27) per ns since `tokens_at`.
    pub rate_hint: u32,
    tokens: i64,
    token_step: u64,
    tokens_at: HwTime,
    /// A fatal NAK for this MSN: earlier messages still complete, this one completes
    /// with the status, later ones are flushed.
    pub fatal: Option<(u32, WcStatus)>,
    /// The fatal completion was delivered: the connection is in the error state.
    pub error: bool,
    last_now: HwTime,
    /// Per path, packets acknowledged by the ACK being processed: in flight / declared
    /// lost. Applied to the path table once per path at the end of the ACK
    /// ([`PathTable::on_acked`], a batch update).
    acked_inflight: [u32; 16],
    acked_lost: [u32; 16],
    completions: Vec<Completion>,
    scratch: Vec<u32>,
    pub stats: TxStats,
}

/// The DATA/PROBE timestamp: the time counter itself (1 ns, mod 2^32).
fn ts32(now: HwTime) -> u32 {
    now.0
}

impl Requester {
    pub fn new(cfg: &TransportConfig, isn: u32, path_isn: u32, seed: u64) -> Self {
        Self {
            cfg: cfg.clone(),
            rtx: RetransmitQueue::new(cfg.window, cfg.tx_records(), cfg.paths as usize, isn & super::SEQ_MASK),
            paths: PathTable::new(cfg, seed, path_isn),
            msgs: VecDeque::new(),
            pending: VecDeque::new(),
            msg_window: cfg.msg_window,
            seg: 0,
            next_msn: 0,
            next_ssn: 0,
            rate_hint: 0,
            tokens: 0,
            token_step: 0,
            tokens_at: HwTime(0),
            fatal: None,
            error: false,
            last_now: HwTime(0),
            acked_inflight: [0; 16],
            acked_lost: [0; 16],
            completions: Vec::new(),
            scratch: Vec::new(),
            stats: TxStats::default(),
        }
    }

    /// Posts a work request; refused (with the reason) in the error state or when the
    /// data does not match the length.
    pub fn post(&mut self, wr: WorkRequest) -> Result<u32, TransportError> {
        if self.error || self.fatal.is_some() {
            return Err(TransportError::ErrorState);
        }
        if let Some(d) = &wr.data {
            if d.len() as u64 != wr.len {
                return Err(TransportError::DataLength { wr_id: wr.wr_id, data: d.len() as u64, len: wr.len });
            }
        }
        // The responder's completion unit counts a message's packets in 24 bits and its
        // bytes in 32 (`transport::cmpl`): a message is below 4 GiB and 2^24 - 1 packets.
        let npkts = wr.len.div_ceil(u64::from(self.cfg.mtu)).max(1);
        if npkts >= 1 << 24 || wr.len > u64::from(u32::MAX) {
            return Err(TransportError::TooLong { wr_id: wr.wr_id, len: wr.len });
        }
        let msn = self.next_msn;
        self.next_msn = self.next_msn.wrapping_add(1);
        let ssn = if wr.kind == DataKind::Send {
            let s = self.next_ssn;
            self.next_ssn = seq_add(s, 1);
            s
        } else {
            0
        };
        let m = TxMsg { wr, msn, ssn, npkts: npkts as u32, segmented: 0, first_psn: 0, rnr_naks: 0, not_before: None };
        if self.msgs.len() < self.msg_window as usize {
            self.msgs.push_back(m);
        } else {
            self.pending.push_back(m);
        }
        Ok(msn)
    }

    /// The MSN and SSN of the first work request (both ends agree on them at setup;
    /// default 0). Only before the first work request.
    pub fn set_initial_msn_ssn(&mut self, msn: u32, ssn: u32) -> Result<(), TransportError> {
        if !self.msgs.is_empty() || !self.pending.is_empty() || self.next_msn != 0 || self.next_ssn != 0 || self.stats.data_sent != 0 {
            return Err(TransportError::AlreadyStarted);
        }
        self.next_msn = msn;
        self.next_ssn = ssn & super::SEQ_MASK;
        Ok(())
    }

    /// Completed work requests since the last call, in posting order.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }
    /// Work requests posted and not completed (in the message window or waiting).
    pub fn outstanding(&self) -> usize {
        self.msgs.len() + self.pending.len()
    }
    /// Messages in the NIC's message table (at most `msg_window`).
    pub fn messages_in_window(&self) -> usize {
        self.msgs.len()
    }
    /// The cumulative PSN: every PSN before it is acknowledged.
    pub fn cum_psn(&self) -> u32 {
        self.rtx.base
    }
    pub fn next_psn(&self) -> u32 {
        self.rtx.next
    }

    fn has_new_data(&self) -> bool {
        self.seg < self.msgs.len()
    }

    /// Bucket depth: two full-MTU frames, Q.10 bytes.
    fn token_depth(&self) -> i64 {
        i64::from(2 * self.cfg.max_data_frame()) << TOKEN_FRAC
    }

    /// Refill since `tokens_at`: `min(tokens + ((dt × step) >> 17), depth)`, with `dt`
    /// saturated at [`TOKEN_DT_MAX`] (a 28x35-bit product: one 36x36 sysDSP slice,
    /// four MULT18X18D, per packet; no division).
    fn refill(&mut self, now: HwTime) {
        if self.rate_hint != 0 {
            let dt = u64::from(now.since(self.tokens_at)).min(TOKEN_DT_MAX);
            let add = ((dt * self.token_step) >> STEP_TO_TOKEN_SHIFT) as i64;
            self.tokens = (self.tokens + add).min(self.token_depth());
        }
        self.tokens_at = now;
    }

    /// Nanoseconds from `tokens_at` until the bucket is positive again (the model's
    /// wake-up; the RTL does not compute it, its scheduler re-checks the connection).
    fn tokens_positive_after(&self) -> u64 {
        let need = (-self.tokens).max(0) as u64 + 1;
        (need << STEP_TO_TOKEN_SHIFT).div_ceil(self.token_step)
    }

    /// The next frame to send now, on NIC plane `plane` only (its paths) when given.
    pub fn poll_tx_on(&mut self, now: HwTime, plane: Option<Plane>) -> Option<Out> {
        self.last_now = now;
        let on = |p: usize| plane.is_none_or(|pl| pl.has(p));
        if let Some(p) = (0..self.paths.len()).find(|&p| self.paths.paths[p].probe_due && on(p)) {
            let seq = self.paths.on_probe_sent(p, now);
            self.stats.probes_sent += 1;
            let port = 0xC000 | self.paths.paths[p].entropy;
            let probe = Probe { path_id: p as u8, port, seq, timestamp: ts32(now) };
            return Some(Out { psn: self.rtx.next, ack_req: false, solicited: false, sport: port, body: Body::Probe(probe) });
        }
        if self.error {
            return None;
        }
        if self.rate_hint != 0 {
            self.refill(now);
            if self.tokens <= 0 {
                if self.rtx.lost_count() > 0 || self.has_new_data() {
                    self.stats.blocked_tokens += 1;
                }
                return None;
            }
        }
        if let Some(psn) = self.oldest_lost(now) {
            // A lost PSN kept its transmission record (M1): the retransmission reuses
            // it and needs no free one.
            let avoid = self.rtx.last_path(psn).map(usize::from);
            let Some(p) = self.paths.select(avoid, plane) else {
                self.stats.blocked_paths += 1;
                return None;
            };
            self.stats.retransmissions += 1;
            return Some(self.transmit(psn, p, now));
        }
        if !self.has_new_data() {
            if !self.pending.is_empty() {
                self.stats.blocked_msg_window += 1;
            }
            return None;
        }
        if self.fatal.is_some_and(|(m, _)| self.msn_at_or_after(self.msgs[self.seg].msn, m)) {
            return None;
        }
        if !self.rtx.has_room() {
            self.stats.blocked_window += 1;
            return None;
        }
        if !self.rtx.has_free_record() {
            self.stats.blocked_tx_pool += 1;
            return None;
        }
        let Some(p) = self.paths.select(None, plane) else {
            self.stats.blocked_paths += 1;
            return None;
        };
        let m = &mut self.msgs[self.seg];
        let off = m.segmented;
        let psn = self.rtx.push_new();
        if off == 0 {
            m.first_psn = psn;
        }
        m.segmented += 1;
        if m.segmented == m.npkts {
            self.seg += 1;
        }
        Some(self.transmit(psn, p, now))
    }

    fn transmit(&mut self, psn: u32, p: usize, now: HwTime) -> Out {
        let path_psn = self.paths.on_send(p, now);
        self.rtx.on_transmit(psn, p as u8, path_psn, now);
        let retx = self.rtx.slot(psn).expect("live").retx;
        let (k, pkt_offset) = msg_of(&self.msgs, self.cfg.window, psn).expect("a live PSN belongs to a message of the table");
        let m = &self.msgs[k];
        let mtu = u64::from(self.cfg.mtu);
        let start = u64::from(pkt_offset) * mtu;
        let end = (start + mtu).min(m.wr.len);
        let payload = match &m.wr.data {
            Some(d) => d[start as usize..end as usize].to_vec(),
            None => vec![0; (end - start) as usize],
        };
        let last = pkt_offset + 1 == m.npkts;
        let mut flags = 0;
        if last {
            flags |= data_flags::LAST;
        }
        if retx {
            flags |= data_flags::RETX;
        }
        let ext = DataExt {
            path_id: p as u8,
            path_psn,
            msn: m.msn,
            pkt_offset,
            flags,
            ssn: m.ssn,
            timestamp: ts32(now),
        };
        let placement = match m.wr.kind {
            DataKind::Write => Placement { va: m.wr.remote_va.wrapping_add(start), rkey: m.wr.rkey },
            DataKind::Send => Placement { va: start, rkey: 0 },
        };
        self.stats.data_sent += 1;
        self.stats.payload_bytes_sent += payload.len() as u64;
        if self.rate_hint != 0 {
            let n = payload.len();
            self.tokens -= ((ETH_HLEN + L3_OVERHEAD + DATA_HDRS_LEN + n + (4 - n % 4) % 4) as i64) << TOKEN_FRAC;
        }
        let body = Body::Data { kind: m.wr.kind, ext, placement, payload };
        Out { psn, ack_req: last || retx, solicited: last && m.wr.solicited, sport: 0xC000 | self.paths.paths[p].entropy, body }
    }

    fn acked(&mut self, psn: u32) {
        match self.rtx.ack(psn) {
            Acked::Nothing => {}
            Acked::InFlight { path, .. } => self.acked_inflight[path as usize] += 1,
            Acked::WasLost { path } => {
                self.stats.spurious_losses += 1;
                self.acked_lost[path as usize] += 1;
            }
        }
    }

    /// One path-table write per path the ACK acknowledged packets on (at `now`: an ACK
    /// of new data restarts the path's retransmission timer).
    fn flush_acked(&mut self, now: HwTime) {
        for p in 0..self.paths.len() {
            let (n, l) = (self.acked_inflight[p], self.acked_lost[p]);
            if n != 0 || l != 0 {
                self.paths.on_acked(p, n, l, now);
                self.acked_inflight[p] = 0;
                self.acked_lost[p] = 0;
            }
        }
    }

    /// Applies a cumulative PSN `c` (from an ACK or a NAK). False: `c` is after the
    /// next PSN (a corrupt or foreign acknowledgement).
    fn cumulative(&mut self, c: u32) -> bool {
        if seq_after(c, self.rtx.next) {
            return false;
        }
        if seq_after(c, self.rtx.base) {
            let mut psn = self.rtx.base;
            while psn != c {
                self.acked(psn);
                psn = seq_add(psn, 1);
            }
            self.rtx.advance_base(c);
        }
        true
    }

    fn declare_lost(&mut self, psn: u32, by_timeout: bool) {
        let Some(p) = self.rtx.record(psn).map(|r| r.path as usize) else { return };
        self.rtx.mark_lost(psn);
        if by_timeout {
            self.stats.losses_by_timeout += 1;
            self.paths.on_lost_by_timeout(p);
        } else {
            self.stats.losses_by_path += 1;
            if self.paths.on_lost(p, psn, self.rtx.next) {
                self.fail_path(p);
            }
        }
    }

    /// Per-path loss detection's PSNs `psns` (in flight on `p`, head first: a prefix
    /// of its list, all in `[cum, next)`) are declared lost: each is marked lost in the
    /// retransmit queue and the path table takes them in batches
    /// ([`PathTable::on_lost_batch`], one row write per batch). The effect is exactly
    /// that of declaring them lost one at a time, in order ([`PathTable::on_lost`] per
    /// PSN, the path failed as soon as a call returns true): only the first PSN that
    /// passes the path's last decrease point ([`PathTable::loss_decreases`]) can
    /// strike, so the PSNs up to and including it form the first batch and the rest
    /// the second. If that strike fails the path, the failure drains the path before
    /// the second batch, whose PSNs are then no longer in flight and are skipped (one
    /// at a time they were skipped too), so they count as drained, not as path losses.
    fn declare_lost_on_path(&mut self, p: usize, psns: &[u32]) {
        let next = self.rtx.next;
        let cut = psns.iter().position(|&psn| self.paths.loss_decreases(p, psn)).map_or(psns.len(), |j| j + 1);
        for part in [&psns[..cut], &psns[cut..]] {
            let base = self.rtx.base;
            let (mut k, mut first, mut last) = (0u32, 0u32, 0u32);
            for &psn in part {
                // A PSN no longer in flight (drained by a failure) is skipped.
                if self.rtx.record(psn).is_none() {
                    continue;
                }
                self.rtx.mark_lost(psn);
                self.stats.losses_by_path += 1;
                let d = seq_dist(psn, base);
                if k == 0 || d < seq_dist(first, base) {
                    first = psn;
                }
                if k == 0 || d > seq_dist(last, base) {
                    last = psn;
                }
                k += 1;
            }
            if self.paths.on_lost_batch(p, k, first, last, next) {
                self.fail_path(p);
            }
        }
    }

    fn fail_path(&mut self, p: usize) {
        if matches!(self.paths.paths[p].state, PathState::Failed | PathState::Probing) {
            return;
        }
        self.stats.path_failures += 1;
        let mut v = std::mem::take(&mut self.scratch);
        v.clear();
        self.rtx.drain_path(p, &mut v);
        for &psn in &v {
            self.rtx.mark_lost(psn);
            self.stats.losses_by_timeout += 1;
        }
        self.scratch = v;
        self.paths.fail(p);
    }

    /// An ACK (BTH PSN = cumulative PSN `c`).
    pub fn on_ack(&mut self, now: HwTime, c: u32, a: &Ack) {
        self.last_now = now;
        self.stats.acks += 1;
        if self.error || !self.cumulative(c) {
            self.stats.acks_ignored += 1;
            return;
        }
        self.set_rate_hint(now, a.rate_hint);
        // Selective acknowledgements: the bitmap is relative to c (bit 0 is c itself).
        for (w, &word) in a.sack.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = w as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                let psn = seq_add(c, i);
                if i < self.cfg.window && self.rtx.is_live(psn) {
                    self.acked(psn);
                }
            }
        }
        self.flush_acked(now);
        let p = a.path_id as usize;
        if p < self.paths.len() {
            let sample = ts32(now).wrapping_sub(a.ts_echo).wrapping_sub(a.ack_delay);
            if sample < 1 << 31 {
                self.paths.on_rtt(p, sample);
            }
            let (cum, next) = (self.rtx.base, self.rtx.next);
            self.paths.on_ecn(p, a.ecn_ce, a.ecn_pkts, cum, next);
            if self.paths.on_ack_path_psn(p, a.path_psn) {
                let mut v = std::mem::take(&mut self.scratch);
                v.clear();
                self.rtx.path_losses(p, a.path_psn, self.cfg.reorder_threshold, &mut v);
                self.declare_lost_on_path(p, &v);
                self.scratch = v;
            }
        }
        self.complete();
    }

    /// A rate hint from an ACK: a new rate starts a full bucket, a changed one
    /// refills at the old rate first; `step` is recomputed only when the hint
    /// changes (a 20x15-bit multiply).
    fn set_rate_hint(&mut self, now: HwTime, h: u32) {
        if h != 0 && self.rate_hint == 0 {
            self.tokens = self.token_depth();
            self.tokens_at = now;
        } else if h != self.rate_hint {
            self.refill(now);
        }
        self.rate_hint = h;
        self.token_step = u64::from(h.min(RATE_MAX_MBPS)) * RECIP_8000;
    }

    /// A NAK for PSN `psn`.
    pub fn on_nak(&mut self, now: HwTime, psn: u32, n: &Nak) {
        self.last_now = now;
        self.stats.naks += 1;
        if self.error || !self.cumulative(n.cumulative) {
            return;
        }
        self.flush_acked(now);
        let Some(s) = self.rtx.slot(psn) else {
            self.complete();
            return;
        };
        let Some((k, _)) = msg_of(&self.msgs, self.cfg.window, psn) else {
            self.complete();
            return;
        };
        if n.code == NakCode::NoRecvBuffer {
            self.stats.rnr_naks += 1;
            // The hold is the message's: its lost PSNs (this one and any other) wait.
            let hold = Some(now.add_ns(u64::from(n.rnr_delay_us) * 1000));
            match s.state {
                SlotState::InFlight => {
                    // Not a congestion or path event: release the window share only.
                    if let Some(p) = self.rtx.record(psn).map(|r| r.path as usize) {
                        self.paths.release(p);
                    }
                    self.rtx.mark_lost(psn);
                    self.msgs[k].not_before = hold;
                }
                SlotState::Lost => self.msgs[k].not_before = hold,
                _ => {}
            }
            if let Some(m) = self.msgs.get_mut(k) {
                // A 3-bit saturating count: it is only compared with rnr_retry < 7.
                m.rnr_naks = (m.rnr_naks + 1).min(7);
                if self.cfg.rnr_retry < 7 && m.rnr_naks > self.cfg.rnr_retry {
                    self.fatal(k, WcStatus::RnrRetryExceeded);
                }
            }
        } else {
            self.fatal(k, WcStatus::RemoteError(n.code));
        }
        self.complete();
    }

    /// `a` is message `b` or a later one (relative to the oldest outstanding message).
    fn msn_at_or_after(&self, a: u32, b: u32) -> bool {
        let f = self.msgs.front().map_or(0, |m| m.msn);
        a.wrapping_sub(f) >= b.wrapping_sub(f)
    }

    /// A fatal error for message `k` (index in `msgs`): its PSNs and those of later
    /// messages are abandoned (no retransmission, no timeout); earlier messages go on
    /// and complete; then `k` completes with `status` and the rest are flushed.
    fn fatal(&mut self, k: usize, status: WcStatus) {
        let Some(msn) = self.msgs.get(k).map(|m| m.msn) else { return };
        if self.fatal.is_some_and(|(m, _)| self.msn_at_or_after(msn, m)) {
            return;
        }
        self.fatal = Some((msn, status));
        let live: Vec<(u32, u32)> = self
            .rtx
            .iter()
            .filter_map(|(psn, _)| msg_of(&self.msgs, self.cfg.window, psn).map(|(j, _)| (psn, self.msgs[j].msn)))
            .collect();
        for (psn, m) in live {
            if self.msn_at_or_after(m, msn) {
                if let Acked::InFlight { path, .. } = self.rtx.ack(psn) {
                    self.paths.release(path as usize);
                }
            }
        }
    }

    fn acked_through(&self, m: &TxMsg) -> bool {
        m.segmented == m.npkts && seq_after(self.rtx.base, seq_add(m.first_psn, m.npkts - 1))
    }

    /// A PROBE_REPLY.
    pub fn on_probe_reply(&mut self, now: HwTime, r: &Probe) {
        self.last_now = now;
        self.stats.probe_replies += 1;
        let p = r.path_id as usize;
        if p < self.paths.len() {
            self.paths.on_probe_reply(p, r.seq, r.port, now);
        }
    }

    fn complete(&mut self) {
        while let Some(m) = self.msgs.front() {
            if let Some((_, status)) = self.fatal.filter(|&(f, _)| f == m.msn) {
                let all = std::mem::take(&mut self.msgs).into_iter().chain(std::mem::take(&mut self.pending));
                for (i, m) in all.enumerate() {
                    let st = if i == 0 { status } else { WcStatus::Flushed };
                    self.completions.push(Completion { wr_id: m.wr.wr_id, msn: m.msn, status: st, bytes: m.wr.len });
                    self.stats.completions += 1;
                }
                self.seg = 0;
                self.error = true;
                return;
            }
            if self.seg == 0 || !self.acked_through(m) {
                break;
            }
            let m = self.msgs.pop_front().expect("front");
            self.seg -= 1;
            self.completions.push(Completion { wr_id: m.wr.wr_id, msn: m.msn, status: WcStatus::Success, bytes: m.wr.len });
            self.stats.completions += 1;
            // A message left the window: the oldest waiting work request enters it.
            if let Some(w) = self.pending.pop_front() {
                self.msgs.push_back(w);
            }
        }
    }

    /// The earliest time [`Requester::on_timer`] has work: a path RTO, a probe
    /// interval, the end of an RNR hold, or tokens for a rate-limited packet.
    pub fn next_wakeup(&self) -> Option<HwTime> {
        let mut t: Option<HwTime> = None;
        let mut at = |x: HwTime| t = earliest(t, Some(x));
        for p in 0..self.paths.len() {
            if let Some(d) = self.path_deadline(p) {
                at(d);
            }
            if let Some(d) = self.paths.probe_deadline(p) {
                at(d);
            }
        }
        if let Some(r) = self.next_release() {
            at(r);
        }
        if let Some(d) = self.head_deadline() {
            at(d);
        }
        if self.rate_hint != 0 && self.tokens <= 0 && (self.rtx.lost_count() > 0 || self.has_new_data()) {
            at(self.tokens_at.add_ns(self.tokens_positive_after()));
        }
        if self.rate_hint != 0 && self.tokens < self.token_depth() {
            at(self.tokens_at.add_ns(TOKEN_DT_MAX));
        }
        t
    }

    /// The oldest lost PSN whose message is not under an RNR hold at `now`.
    fn oldest_lost(&self, now: HwTime) -> Option<u32> {
        self.rtx.oldest_lost(&self.held_mask(now))
    }

    /// The RNR-held PSNs at `now` as the W-bit mask [`RetransmitQueue::oldest_lost`]
    /// takes: bit `psn mod W` is set for each live PSN whose message (the first row of
    /// the message table containing it, as [`msg_of`] finds it) has a hold not yet
    /// ended at `now`. Built from the message table's rows: each row with segmented
    /// packets covers its last `min(segmented, W)` PSNs; a row claims the live ones no
    /// earlier row claimed, and a held row sets their bits. Empty (no work) when no
    /// row has a hold's valid bit set.
    fn held_mask(&self, now: HwTime) -> Bitmap {
        let mut held = Bitmap::default();
        if !self.msgs.iter().any(|m| m.not_before.is_some()) {
            return held;
        }
        let w = self.cfg.window;
        let mut claimed = Bitmap::default();
        for m in &self.msgs {
            if m.segmented == 0 {
                continue;
            }
            let on = m.not_before.is_some_and(|t| !now.after_eq(t));
            let last = seq_add(m.first_psn, m.segmented - 1);
            for d in 0..m.segmented.min(w) {
                let psn = seq_add(last, super::SEQ_MASK + 1 - d);
                if !self.rtx.is_live(psn) {
                    continue;
                }
                let i = (psn & (w - 1)) as usize;
                if claimed.get(i) {
                    continue;
                }
                claimed.set(i);
                if on {
                    held.set(i);
                }
            }
        }
        held
    }

    /// The earliest RNR hold of the message table still valid (the hold timer: at most
    /// `msg_window` deadlines with valid bits). A hold that has ended but is still valid
    /// is reported too (the timer then fires at once and clears it).
    fn next_release(&self) -> Option<HwTime> {
        self.msgs.iter().fold(None, |t, m| earliest(t, m.not_before))
    }

    /// Clears the RNR holds that have ended at `now` (their valid bits).
    fn release_expired(&mut self, now: HwTime) {
        for m in &mut self.msgs {
            if m.not_before.is_some_and(|t| now.after_eq(t)) {
                m.not_before = None;
            }
        }
    }

    /// The head timer (§6.5): the oldest outstanding PSN blocks the whole PSN window
    /// (and, at the end of the data, completion), so while it is in flight and half
    /// the window is used or nothing new is left to send, it is sent again after
    /// `head_rto_pct` % of the largest path RTT, without any path penalty.
    fn head_deadline(&self) -> Option<HwTime> {
        if self.cfg.head_rto_pct == 0 || (self.rtx.outstanding() < self.cfg.window / 2 && self.has_new_data()) {
            return None;
        }
        let sent_at = self.rtx.record(self.rtx.base)?.sent_at;
        let wait = self.paths.head_wait()?;
        Some(sent_at.add_ns(wait))
    }

    /// The RTO deadline of path `p`: the path's retransmission timer (M2, RFC 6298:
    /// started at a send while not running, restarted by an ACK of new data, stopped at
    /// inflight 0) plus its RTO ([`PathTable::rto_deadline`]).
    fn path_deadline(&self, p: usize) -> Option<HwTime> {
        self.paths.rto_deadline(p)
    }

    /// Path RTOs (every packet in flight on the path declared lost, one strike, window
    /// to the minimum, RTO doubled) and probe intervals.
    pub fn on_timer(&mut self, now: HwTime) {
        self.last_now = now;
        if self.rate_hint != 0 {
            self.refill(now);
        }
        self.release_expired(now);
        if self.head_deadline().is_some_and(|d| now.after_eq(d)) {
            let psn = self.rtx.base;
            let path = self.rtx.record(psn).map(|r| r.path as usize).expect("head is in flight");
            self.rtx.mark_lost(psn);
            self.paths.release(path);
            self.stats.losses_by_head_timer += 1;
        }
        for p in 0..self.paths.len() {
            if self.path_deadline(p).is_some_and(|d| now.after_eq(d)) {
                // M2: the timer is the path's, not a packet's: on expiry everything in
                // flight on p is declared lost (a drain), which also stops the timer.
                let mut v = std::mem::take(&mut self.scratch);
                v.clear();
                self.rtx.drain_path(p, &mut v);
                for &psn in &v {
                    self.declare_lost(psn, true);
                }
                self.scratch = v;
                let struck_out = self.paths.on_timeout(p, self.rtx.next);
                if struck_out || self.cfg.fail_on_timeout {
                    self.fail_path(p);
                }
            }
            if self.paths.probe_deadline(p).is_some_and(|d| now.after_eq(d)) {
                self.paths.on_probe_timeout(p);
            }
        }
    }

    /// The bookkeeping invariants: each path's `inflight` equals the PSNs in flight on
    /// it, the lost set equals the PSNs in state Lost, the window is respected, and
    /// completed messages' PSNs are behind the cumulative PSN. Tests call it.
    pub fn check_invariants(&self) -> Result<(), InvariantError> {
        // First the retransmit queue's structure: every record on exactly one list (a
        // path's or the free list), every PSN in flight pointing at a record that points
        // back at it, the counts; the lists hold exactly the PSNs in flight.
        self.rtx.check_lists().map_err(InvariantError::TxLists)?;
        let mut inflight = vec![0u32; self.paths.len()];
        let mut lost = 0;
        for (psn, s) in self.rtx.iter() {
            match s.state {
                SlotState::InFlight => match self.rtx.record(psn) {
                    Some(r) if (r.path as usize) < inflight.len() => inflight[r.path as usize] += 1,
                    _ => return Err(InvariantError::TxLists(format!("psn {psn} in flight without a valid record"))),
                },
                SlotState::Lost => lost += 1,
                _ => {}
            }
        }
        for (p, x) in self.paths.paths.iter().enumerate() {
            if x.inflight != inflight[p] {
                return Err(InvariantError::Inflight { path: p, counted: x.inflight, actual: inflight[p] });
            }
            // M2: the path's retransmission timer runs exactly while it has packets in
            // flight (started at a send, stopped at inflight 0).
            if x.rto_running != (x.inflight > 0) {
                return Err(InvariantError::PathSummary(format!("path {p}: rto_running {} with {} in flight", x.rto_running, x.inflight)));
            }
        }
        if lost != self.rtx.lost_count() {
            return Err(InvariantError::LostSet { set: self.rtx.lost_count(), slots: lost });
        }
        if self.rtx.outstanding() > self.cfg.window {
            return Err(InvariantError::Window { outstanding: self.rtx.outstanding(), window: self.cfg.window });
        }
        // The path table's summary equals the one recomputed from its rows.
        self.paths.check_summary().map_err(|e| InvariantError::PathSummary(e.to_string()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: fn(u32) -> HwTime = HwTime;

    fn wr(id: u64, len: u64) -> WorkRequest {
        WorkRequest { wr_id: id, kind: DataKind::Write, len, remote_va: 0, rkey: 1, solicited: false, data: None }
    }

    /// Sends everything `poll_tx_on` gives now; returns the DATA PSNs.
    fn drain(r: &mut Requester, now: HwTime) -> Vec<u32> {
        let mut v = vec![];
        while let Some(o) = r.poll_tx_on(now, None) {
            if matches!(o.body, Body::Data { .. }) {
                v.push(o.psn);
            }
        }
        v
    }

    /// Sends everything `poll_tx_on` gives now; returns the DATA frames.
    fn drain_out(r: &mut Requester, now: HwTime) -> Vec<Out> {
        let mut v = vec![];
        while let Some(o) = r.poll_tx_on(now, None) {
            if matches!(o.body, Body::Data { .. }) {
                v.push(o);
            }
        }
        v
    }

    fn ext_of(o: &Out) -> DataExt {
        match &o.body {
            Body::Data { ext, .. } => *ext,
            _ => panic!("not DATA"),
        }
    }

    #[test]
    fn a_tx_pool_of_4_sends_4_packets_blocks_and_resumes_when_an_ack_frees_records() {
        let cfg = TransportConfig { paths: 4, cwnd_init: 64, cwnd_max: 64, tx_pool: 4, ..Default::default() };
        assert_eq!(cfg.tx_records(), 4);
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.post(wr(0, 10 * 4096)).unwrap();
        assert_eq!(drain(&mut r, T(1000)), vec![0, 1, 2, 3]);
        assert!(r.stats.blocked_tx_pool > 0, "blocked by the pool");
        assert_eq!(r.stats.blocked_window + r.stats.blocked_paths, 0, "not by the window or the paths");
        assert!(r.rtx.has_room() && r.rtx.free_records() == 0);
        let blocked = r.stats.blocked_tx_pool;
        assert!(drain(&mut r, T(1100)).is_empty());
        assert_eq!(r.stats.blocked_tx_pool, blocked + 1);
        r.check_invariants().unwrap();
        // An ACK of PSNs 0 and 1 returns two records: two more packets go.
        let ack = Ack { path_id: 0, path_psn: 0, ts_echo: 1000, ..Default::default() };
        r.on_ack(T(2000), 2, &ack);
        assert_eq!(r.rtx.free_records(), 2);
        assert_eq!(drain(&mut r, T(2000)), vec![4, 5]);
        r.check_invariants().unwrap();
        // A loss keeps its record (M1), and the retransmission reuses it before new data.
        r.declare_lost(3, true);
        assert_eq!(r.rtx.free_records(), 0);
        let out = drain_out(&mut r, T(3000));
        assert_eq!(out.iter().map(|o| o.psn).collect::<Vec<_>>(), vec![3]);
        assert!(out[0].ack_req && ext_of(&out[0]).flags & data_flags::RETX != 0, "the retransmitted bit: RETX and AckReq");
        assert_eq!(r.rtx.free_records(), 0);
        r.check_invariants().unwrap();
        // Everything acknowledged: the rest goes, the pool is whole again at the end.
        let mut next = 6;
        while r.outstanding() > 0 {
            r.on_ack(T(4000 + next), r.next_psn(), &ack);
            let sent = drain(&mut r, T(4000 + next));
            assert!(sent.len() <= 4);
            next += sent.len() as u32;
            r.check_invariants().unwrap();
        }
        assert_eq!(next, 10);
        assert_eq!(r.rtx.free_records(), 4);
    }

    /// M1: a lost PSN keeps its transmission record, so its retransmission goes out
    /// with every record taken, and new data cannot take the record while it waits. A
    /// pool of 4, PSNs 0-3 in flight; an RNR NAK makes PSN 1 lost and held for 10 us.
    /// While it is held no new PSN goes out (its record is pinned: before M1 the loss
    /// returned it and PSN 4 took it); when the hold ends PSN 1 is retransmitted with
    /// no free record (before M1 that was blocked until an ACK freed one).
    #[test]
    fn a_retransmission_goes_out_with_every_record_taken() {
        let cfg = TransportConfig { paths: 2, cwnd_init: 64, cwnd_max: 64, tx_pool: 4, head_rto_pct: 0, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.post(WorkRequest { kind: DataKind::Send, ..wr(0, 8 * 4096) }).unwrap();
        assert_eq!(drain(&mut r, T(0)), vec![0, 1, 2, 3]);
        assert_eq!(r.rtx.free_records(), 0);
        let nak = Nak { code: NakCode::NoRecvBuffer, path_id: 1, rnr_delay_us: 10, msn: 0, cumulative: 0 };
        r.on_nak(T(1000), 1, &nak);
        assert_eq!(r.rtx.slot(1).unwrap().state, SlotState::Lost);
        assert_eq!(r.rtx.free_records(), 0, "the lost PSN keeps its record");
        assert_eq!(r.rtx.last_path(1), Some(1), "the path it was lost on, read from its record");
        let blocked = r.stats.blocked_tx_pool;
        assert!(drain(&mut r, T(2000)).is_empty(), "no new PSN while PSN 1 waits on its record");
        assert_eq!(r.stats.blocked_tx_pool, blocked + 1);
        r.check_invariants().unwrap();
        r.on_timer(T(11_000));
        let out = drain_out(&mut r, T(11_000));
        assert_eq!(out.iter().map(|o| o.psn).collect::<Vec<_>>(), vec![1], "the retransmission, with no free record");
        assert!(ext_of(&out[0]).flags & data_flags::RETX != 0);
        assert_eq!(ext_of(&out[0]).path_id, 0, "avoiding path 1, where it was lost");
        assert_eq!((r.rtx.free_records(), r.stats.blocked_tx_pool), (0, blocked + 2));
        r.check_invariants().unwrap();
    }

    /// M2 at the requester: one path, PSN 0 sent at 1 us, PSN 1 at 2 us, PSN 2 at 30 us.
    /// The ACK of PSN 0 at 10 us restarts the path's timer: the deadline is 10 us +
    /// rto (before M2 it was PSN 1's send time + rto, 52 us). At the deadline every
    /// packet in flight on the path is declared lost, PSN 2 too although it was sent
    /// only 30 us before (before M2 only the packets older than the rto went); the timer
    /// stops with nothing in flight, and the next send starts it again.
    #[test]
    fn a_path_rto_restarts_on_an_ack_of_new_data_and_its_expiry_drains_the_path() {
        let cfg = TransportConfig { paths: 1, cwnd_init: 16, head_rto_pct: 0, fail_on_timeout: false, fail_threshold: 255, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        for (id, t) in [(0, 1000), (1, 2000), (2, 30_000)] {
            r.post(wr(id, 100)).unwrap();
            assert_eq!(drain(&mut r, T(t)), vec![id as u32]);
        }
        assert_eq!(r.next_wakeup(), Some(T(1000).add_ns(cfg.rto_init_ns)), "started by the first send");
        let ack = Ack { path_id: 0, path_psn: 0, ts_echo: 9000, ..Default::default() };
        r.on_ack(T(10_000), 1, &ack);
        let rto = r.paths.rto(0);
        assert_eq!(rto, cfg.rto_min_ns, "a 1 us sample: the rto is rto_min (50 us)");
        assert_eq!(r.next_wakeup(), Some(T(10_000).add_ns(rto)), "restarted by the ACK of PSN 0, not PSN 1's send time + rto");
        r.on_timer(T(10_000).add_ns(rto - 1));
        assert_eq!(r.stats.losses_by_timeout, 0, "1 ns early");
        r.on_timer(T(10_000).add_ns(rto));
        assert_eq!(r.stats.losses_by_timeout, 2, "PSNs 1 and 2: the whole path, not only the packets older than the rto");
        assert_eq!(r.rtx.slot(2).unwrap().state, SlotState::Lost);
        assert_eq!((r.paths.paths[0].inflight, r.paths.paths[0].rto_running), (0, false));
        assert_eq!(r.paths.paths[0].state, PathState::Suspect);
        assert_eq!(r.next_wakeup(), None, "stopped: nothing in flight");
        r.check_invariants().unwrap();
        // The retransmission (one: the timeout set the window to cwnd_min) starts it.
        let t = T(100_000);
        assert_eq!(drain(&mut r, t), vec![1]);
        assert_eq!(r.next_wakeup(), Some(t.add_ns(r.paths.rto(0))));
        r.check_invariants().unwrap();
    }

    #[test]
    fn a_leaked_or_misdirected_record_is_an_invariant_error() {
        let cfg = TransportConfig { paths: 2, tx_pool: 4, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.post(wr(0, 3 * 4096)).unwrap();
        assert_eq!(drain(&mut r, T(0)).len(), 3);
        r.check_invariants().unwrap();
        for how in [0, 1] {
            let mut bad = r.clone();
            bad.rtx.corrupt(how);
            assert!(matches!(bad.check_invariants(), Err(InvariantError::TxLists(_))), "corruption {how}");
        }
    }

    /// The message and packet offset of a PSN are derived from the message table (no
    /// per-PSN copy): across message boundaries, the 2^24 PSN wrap and the 2^32 MSN
    /// wrap, first transmissions and retransmissions carry what was segmented.
    #[test]
    fn the_msn_and_offset_derived_per_psn_equal_what_was_sent_across_messages_and_the_psn_wrap() {
        let cfg = TransportConfig { paths: 4, mtu: 256, window: 32, cwnd_init: 32, cwnd_max: 32, msg_window: 4, ..Default::default() };
        let isn = super::super::SEQ_MASK - 20;
        let mut r = Requester::new(&cfg, isn, 0, 1);
        let msn0 = u32::MAX - 3;
        r.set_initial_msn_ssn(msn0, 0).unwrap();
        let lens = [0u64, 256, 257, 1000, 3000, 256 * 12 + 1, 5, 2048, 256 * 40, 7, 513];
        // What each PSN must carry: (MSN, offset), in PSN order from the ISN.
        let mut want = vec![];
        for (i, &len) in lens.iter().enumerate() {
            r.post(wr(i as u64, len)).unwrap();
            for off in 0..len.div_ceil(256).max(1) as u32 {
                want.push((msn0.wrapping_add(i as u32), off));
            }
        }
        let at = |psn: u32| want[super::super::seq_dist(psn, isn) as usize];
        let ack = Ack { path_id: 0, path_psn: 0, ts_echo: 0, ..Default::default() };
        let (mut t, mut sent, mut round) = (1000u32, 0usize, 0u32);
        while r.outstanding() > 0 {
            for o in drain_out(&mut r, T(t)) {
                let e = ext_of(&o);
                assert_eq!((e.msn, e.pkt_offset), at(o.psn), "psn {}", o.psn);
                assert_eq!(e.flags & data_flags::LAST != 0, want.get(super::super::seq_dist(o.psn, isn) as usize + 1).is_none_or(|n| n.1 == 0));
                sent += 1;
            }
            // Every live PSN maps to what it was sent with.
            for (psn, _) in r.rtx.iter() {
                let (k, off) = msg_of(&r.msgs, cfg.window, psn).expect("live PSN in a message");
                assert_eq!((r.msgs[k].msn, off), at(psn), "psn {psn}");
            }
            // Lose one in flight now and then (retransmissions keep MSN and offset),
            // acknowledge part of the window.
            round += 1;
            let victim = r.rtx.iter().filter(|(_, s)| s.state == SlotState::InFlight).nth(round as usize % 3).map(|(psn, _)| psn);
            if let Some(psn) = victim {
                r.declare_lost(psn, true);
            }
            let c = seq_add(r.cum_psn(), (r.rtx.outstanding() / 2).max(1).min(r.rtx.outstanding()));
            let base_lost = r.rtx.slot(r.cum_psn()).is_some_and(|s| s.state == SlotState::Lost);
            if !base_lost {
                r.on_ack(T(t), c, &ack);
            }
            t += 1000;
            assert!(round < 1000);
        }
        assert!(sent > want.len(), "retransmissions were checked too");
        assert!(super::super::seq_after(r.next_psn(), super::super::SEQ_MASK - 20) && r.next_psn() < 1000, "the PSN wrapped");
    }

    #[test]
    fn the_offset_is_exact_for_a_message_of_more_than_2_24_packets() {
        let m = |msn: u32, first_psn: u32, segmented: u32| TxMsg {
            wr: wr(0, 0),
            msn,
            ssn: 0,
            npkts: u32::MAX,
            segmented,
            first_psn,
            rnr_naks: 0,
            not_before: None,
        };
        let big = (1 << 24) + 100;
        let msgs: VecDeque<TxMsg> = [m(8, 4, big), m(9, 104, 3)].into();
        // Message 8 started at PSN 4; its last packet (offset 2^24 + 99) has PSN
        // 4 + 2^24 + 99 = 103 (mod 2^24); message 9 follows from 104.
        assert_eq!(msg_of(&msgs, 256, 103), Some((0, big - 1)));
        assert_eq!(msg_of(&msgs, 256, seq_add(103, super::super::SEQ_MASK - 254)), Some((0, big - 256)), "W - 1 back from the last");
        assert_eq!(msg_of(&msgs, 256, 104), Some((1, 0)));
        assert_eq!(msg_of(&msgs, 256, 106), Some((1, 2)));
        assert_eq!(msg_of(&msgs, 256, 107), None, "not segmented yet");
    }

    /// An RNR NAK holds its message's lost PSNs (the NAKed one and any other lost PSN
    /// of that message) for the NAK's delay; other messages' lost PSNs go at once.
    #[test]
    fn an_rnr_hold_delays_only_its_message() {
        let cfg = TransportConfig { paths: 2, head_rto_pct: 0, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        for id in 0..2 {
            r.post(WorkRequest { kind: DataKind::Send, ..wr(id, 2 * 4096) }).unwrap();
        }
        assert_eq!(drain(&mut r, T(0)), vec![0, 1, 2, 3], "message 0: PSNs 0, 1; message 1: PSNs 2, 3");
        let nak = Nak { code: NakCode::NoRecvBuffer, path_id: 0, rnr_delay_us: 10, msn: 0, cumulative: 0 };
        r.on_nak(T(1000), 0, &nak);
        assert_eq!(r.msgs[0].not_before, Some(T(11_000)));
        assert_eq!(r.msgs[1].not_before, None);
        r.declare_lost(1, true);
        r.declare_lost(2, true);
        assert_eq!(r.rtx.lost_count(), 3);
        assert_eq!(r.next_wakeup(), Some(T(11_000)));
        assert_eq!(drain(&mut r, T(2000)), vec![2], "message 1 is not held");
        assert!(drain(&mut r, T(10_990)).is_empty(), "message 0's PSNs 0 and 1 wait");
        r.on_timer(T(11_000));
        assert_eq!(r.msgs[0].not_before, None, "the hold's valid bit is cleared when it ends");
        assert_eq!(drain(&mut r, T(11_000)), vec![0, 1]);
        assert_eq!(r.next_wakeup(), Some(T(0).add_ns(cfg.rto_init_ns)), "only the path RTO is left");
        r.check_invariants().unwrap();
    }

    #[test]
    fn message_window_full_later_work_requests_wait_until_a_message_completes() {
        let cfg = TransportConfig { paths: 4, cwnd_init: 64, cwnd_max: 64, msg_window: 16, ..Default::default() };
        let mw = cfg.msg_window;
        let mut r = Requester::new(&cfg, 0, 0, 1);
        let n = u64::from(mw) + 8;
        for id in 0..n {
            assert_eq!(r.post(wr(id, 100)).unwrap(), id as u32, "MSNs follow posting order");
        }
        assert_eq!(r.outstanding() as u64, n);
        assert_eq!(r.messages_in_window(), mw as usize);
        let sent = drain(&mut r, T(1000));
        assert_eq!(sent.len(), mw as usize, "one packet per message, only msg_window messages start");
        assert!(r.stats.blocked_msg_window > 0);
        assert!(r.rtx.has_room(), "the PSN window is not what stops it");
        // Acknowledge the first three messages (PSNs 0..3): three more start.
        let ack = Ack { path_id: 0, path_psn: 0, ts_echo: 1000, ..Default::default() };
        r.on_ack(T(2000), 3, &ack);
        assert_eq!(r.take_completions().iter().map(|c| c.wr_id).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(r.messages_in_window(), mw as usize);
        assert_eq!(drain(&mut r, T(2000)), vec![mw, mw + 1, mw + 2]);
        r.check_invariants().unwrap();
        // Everything acknowledged: all complete, in order.
        r.on_ack(T(3000), mw + 3, &ack);
        let _ = drain(&mut r, T(3000));
        r.on_ack(T(4000), n as u32, &ack);
        let c = r.take_completions();
        assert_eq!(c.len() as u64, n - 3);
        assert!(c.windows(2).all(|w| w[0].msn + 1 == w[1].msn));
        assert_eq!(r.outstanding(), 0);
    }

    #[test]
    fn a_fatal_nak_flushes_the_waiting_work_requests_too() {
        let cfg = TransportConfig { paths: 2, ..Default::default() };
        let mw = cfg.msg_window as usize;
        let mut r = Requester::new(&cfg, 0, 0, 1);
        for id in 0..(mw as u64 + 2) {
            r.post(wr(id, 100)).unwrap();
        }
        let _ = drain(&mut r, T(0));
        let nak = Nak { code: NakCode::BadRkey, path_id: 0, rnr_delay_us: 0, msn: 0, cumulative: 0 };
        r.on_nak(T(100), 0, &nak);
        let c = r.take_completions();
        assert_eq!(c.len(), mw + 2);
        assert_eq!(c[0].status, WcStatus::RemoteError(NakCode::BadRkey));
        assert!(c[1..].iter().all(|c| c.status == WcStatus::Flushed));
        assert_eq!(r.outstanding(), 0);
    }

    #[test]
    fn the_token_bucket_refills_by_a_constant_reciprocal_in_q10_bytes() {
        let cfg = TransportConfig { paths: 2, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.set_rate_hint(T(0), 8000); // 1 byte/ns
        assert_eq!(r.tokens, r.token_depth(), "a new rate starts with a full bucket");
        r.tokens = -(5000 << TOKEN_FRAC);
        r.refill(T(1000));
        // 1000 ns × 8000 × 16777 >> 17 = 1023.99 bytes (exact: 1024) in Q.10, floor.
        assert_eq!(r.tokens, -(5000 << TOKEN_FRAC) + ((1000 * 8000 * RECIP_8000) >> 17) as i64);
        assert_eq!(((1000 * 8000 * RECIP_8000) >> 17) as i64, 1_023_986);
        // The wake-up is the first ns at which the bucket is positive.
        let t = r.tokens_positive_after() as u32;
        let mut probe = r.clone();
        probe.refill(T(1000 + t));
        assert!(probe.tokens > 0);
        let mut probe = r.clone();
        probe.refill(T(1000 + t - 1));
        assert!(probe.tokens <= 0);
        // A long idle period fills the bucket even at 1 Mbit/s.
        r.set_rate_hint(T(2000), 1);
        r.tokens = -(i64::from(cfg.max_data_frame()) << TOKEN_FRAC);
        r.refill(T(2000 + (1 << 30)));
        assert_eq!(r.tokens, r.token_depth());
        // Hints above the clamp refill like the clamp.
        r.set_rate_hint(T(3000), u32::MAX);
        assert_eq!(r.token_step, u64::from(RATE_MAX_MBPS) * RECIP_8000);
    }

    /// Every requester timer across the 2^32 wrap of the time counter: a path RTO, the
    /// head timer, an RNR hold, a probe interval and the token bucket, each started a
    /// little before the wrap and due after it.
    #[test]
    fn timers_fire_on_time_across_the_time_counter_wrap() {
        let cfg = TransportConfig { paths: 2, head_rto_pct: 0, ..Default::default() };
        let start = T(u32::MAX - 20_000);
        // Path RTO (rto_init before any RTT sample).
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.post(wr(0, 100)).unwrap();
        assert_eq!(drain(&mut r, start), vec![0]);
        let due = start.add_ns(cfg.rto_init_ns);
        assert!(due.0 < start.0, "the deadline is past the wrap");
        assert_eq!(r.next_wakeup(), Some(due));
        r.on_timer(due.add(u32::MAX)); // 1 ns early
        assert_eq!(r.stats.losses_by_timeout, 0);
        r.on_timer(due);
        assert_eq!(r.stats.losses_by_timeout, 1, "the RTO fired at its deadline, after the wrap");
        r.check_invariants().unwrap();
        // The path failed (fail_on_timeout): a probe, and its interval across the wrap.
        let p = r.rtx.last_path(0).unwrap() as usize;
        assert_eq!(r.paths.paths[p].state, PathState::Failed);
        let t0 = T(u32::MAX - 10);
        let o = r.poll_tx_on(t0, None).unwrap();
        assert!(matches!(o.body, Body::Probe(_)));
        let pd = r.paths.probe_deadline(p).unwrap();
        assert!(pd.0 < t0.0);
        r.on_timer(pd.add(u32::MAX));
        assert!(!r.paths.paths[p].probe_due);
        r.on_timer(pd);
        assert!(r.paths.paths[p].probe_due, "probe interval expired after the wrap");

        // Head timer: on, with an RTT sample of 10 us, head sent just before the wrap.
        let cfg = TransportConfig { paths: 2, head_rto_pct: 200, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.paths.on_rtt(0, 10_000);
        r.post(wr(0, 100)).unwrap();
        assert_eq!(drain(&mut r, start), vec![0]);
        let hd = start.add_ns(20_000 + cfg.ack_timeout_ns);
        assert!(hd.0 < start.0);
        assert_eq!(r.next_wakeup(), Some(hd));
        r.on_timer(hd.add(u32::MAX));
        assert_eq!(r.stats.losses_by_head_timer, 0);
        r.on_timer(hd);
        assert_eq!(r.stats.losses_by_head_timer, 1);

        // RNR hold of 10 us from just before the wrap.
        let cfg = TransportConfig { paths: 2, head_rto_pct: 0, ..Default::default() };
        let mut r = Requester::new(&cfg, 0, 0, 1);
        r.post(WorkRequest { kind: DataKind::Send, ..wr(0, 100) }).unwrap();
        assert_eq!(drain(&mut r, start), vec![0]);
        let t1 = T(u32::MAX - 5000);
        let nak = Nak { code: NakCode::NoRecvBuffer, path_id: 0, rnr_delay_us: 10, msn: 0, cumulative: 0 };
        r.on_nak(t1, 0, &nak);
        let until = t1.add(10_000);
        assert_eq!(r.next_wakeup(), Some(until));
        assert!(drain(&mut r, until.add(u32::MAX)).is_empty(), "held until after the wrap");
        r.on_timer(until);
        assert_eq!(r.msgs[0].not_before, None, "the hold's valid bit is cleared when it ends");
        assert_eq!(drain(&mut r, until), vec![0]);
        // Token bucket: 1 byte/ns, drained just before the wrap.
        let mut r = Requester::new(&cfg, 0, 0, 1);
        for id in 0..4 {
            r.post(wr(id, 4096)).unwrap();
        }
        let t2 = T(u32::MAX - 100);
        r.set_rate_hint(t2, 8000);
        assert_eq!(drain(&mut r, t2).len(), 2, "the bucket holds two frames");
        assert_eq!(r.tokens, 0);
        r.tokens = -(4000 << TOKEN_FRAC); // 4000 bytes short: about 4 us at 1 byte/ns
        let w = r.next_wakeup().unwrap();
        assert_eq!(w, t2.add(r.tokens_positive_after() as u32));
        assert!(w.0 < t2.0, "positive again after the wrap");
        assert!(drain(&mut r, w.add(u32::MAX)).is_empty());
        assert_eq!(drain(&mut r, w).len(), 1);
        r.check_invariants().unwrap();
    }

    /// A random run of one requester: posts, sends, ACKs with random cumulative PSNs,
    /// SACK bits, paths and path PSNs, RNR NAKs, timer expiries. `hook` sees the
    /// requester before every event.
    fn random_run(cfg: &TransportConfig, seed: u64, steps: u32, mut hook: impl FnMut(&mut Requester, HwTime, &Ack)) {
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut r_ = |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % m.max(1)) as u32
        };
        let mut r = Requester::new(cfg, super::super::SEQ_MASK - 300 + r_(600), r_(1 << 24), seed);
        let mut now = 1000u32;
        let mut id = 0u64;
        for _ in 0..steps {
            now += 1 + r_(3000);
            if r.outstanding() < 6 {
                r.post(WorkRequest { kind: DataKind::Send, ..wr(id, u64::from(1 + r_(8)) * 4096) }).unwrap();
                id += 1;
            }
            let p = r_(u64::from(cfg.paths)) as usize;
            let npp = r.paths.paths[p].next_path_psn;
            let mut sack = Bitmap::default();
            for i in 1..cfg.window as usize {
                if r_(3) == 0 {
                    sack.set(i);
                }
            }
            let back = if r_(4) == 0 { r_(1 << 24) } else { 1 + r_(12) };
            let a = Ack { path_id: p as u8, path_psn: seq_add(npp, super::super::SEQ_MASK + 1 - back), ts_echo: now - r_(500), sack, ..Default::default() };
            hook(&mut r, HwTime(now), &a);
            match r_(10) {
                0..=3 => {
                    drain(&mut r, HwTime(now));
                }
                4..=6 => {
                    let c = seq_add(r.cum_psn(), r_(u64::from(r.rtx.outstanding() / 3 + 1)));
                    r.on_ack(HwTime(now), c, &a);
                }
                7 => {
                    let live: Vec<u32> = r.rtx.iter().map(|(psn, _)| psn).collect();
                    if !live.is_empty() {
                        let psn = live[r_(live.len() as u64) as usize];
                        let nak = Nak { code: NakCode::NoRecvBuffer, path_id: p as u8, rnr_delay_us: 1 + r_(20) as u16, msn: 0, cumulative: r.cum_psn() };
                        r.on_nak(HwTime(now), psn, &nak);
                    }
                }
                8 => {
                    let inflight: Vec<u32> = r.rtx.iter().filter(|(_, s)| s.state == SlotState::InFlight).map(|(psn, _)| psn).collect();
                    if !inflight.is_empty() {
                        r.declare_lost(inflight[r_(inflight.len() as u64) as usize], true);
                    }
                }
                _ => {
                    now += r_(200_000);
                    r.on_timer(HwTime(now));
                }
            }
            r.check_invariants().unwrap();
        }
    }

    /// Per-path loss detection's PSNs declared lost as path-table batches
    /// (`declare_lost_on_path`) leave the requester exactly as declaring them lost one
    /// by one (the former code: `declare_lost(psn, false)` per PSN), stats, path rows
    /// and retransmit queue included, from random states, with failures in the middle
    /// of a batch and decreases with PSNs after them both exercised.
    #[test]
    fn loss_batches_leave_the_requester_as_per_psn_losses_do() {
        let (mut checked, mut mid_fail, mut mid_decrease) = (0, 0, 0);
        for seed in 0..60u64 {
            for fail_threshold in [1, 2, 3] {
                let cfg = TransportConfig { paths: 4, window: 64, cwnd_init: 4, cwnd_max: 64, msg_window: 8, fail_threshold, rnr_retry: 7, head_rto_pct: 0, reorder_threshold: 2, ..Default::default() };
                random_run(&cfg, seed, 300, |r, _, a| {
                    let p = a.path_id as usize;
                    let mut v = vec![];
                    r.rtx.path_losses(p, a.path_psn, cfg.reorder_threshold, &mut v);
                    if v.is_empty() {
                        return;
                    }
                    let mut one = r.clone();
                    for (i, &psn) in v.iter().enumerate() {
                        let (f, d) = (one.stats.path_failures, one.paths.paths[p].strikes);
                        one.declare_lost(psn, false);
                        if i + 1 < v.len() && one.stats.path_failures > f {
                            mid_fail += 1;
                        }
                        if i + 1 < v.len() && one.paths.paths[p].strikes > d && one.stats.path_failures == f {
                            mid_decrease += 1;
                        }
                    }
                    let mut batch = r.clone();
                    batch.declare_lost_on_path(p, &v);
                    assert_eq!(serde_json::to_string(&batch).unwrap(), serde_json::to_string(&one).unwrap(), "seed {seed}, psns {v:?}");
                    checked += 1;
                });
            }
        }
        assert!(checked > 500 && mid_fail > 20 && mid_decrease > 20, "checked {checked}, mid-batch failures {mid_fail}, mid-batch decreases {mid_decrease}");
    }

    /// F11: the rtx shell's LDET, given the path's decrease point, returns the two
    /// batches `declare_lost_on_path` makes. Driving LDET, then LOSS (batch 1), then
    /// either (the path failed) the failure with batch 2 counted as drained, or LOSS
    /// (batch 2), leaves the requester exactly as `declare_lost_on_path` does, from the
    /// same random states as the batch test, with splits and mid-batch failures exercised.
    #[test]
    fn rtx_shell_ldet_with_the_decrease_point_gives_the_requesters_two_loss_batches() {
        use crate::transport::rtx_shell::{RtxOp, RtxParams, RtxState};
        let (mut checked, mut split, mut failed) = (0, 0, 0);
        for seed in 0..60u64 {
            for fail_threshold in [1, 2, 3] {
                let cfg = TransportConfig { paths: 4, window: 64, cwnd_init: 4, cwnd_max: 64, msg_window: 8, fail_threshold, rnr_retry: 7, head_rto_pct: 0, reorder_threshold: 2, ..Default::default() };
                random_run(&cfg, seed, 300, |r, _, a| {
                    let p = a.path_id as usize;
                    let mut v = vec![];
                    r.rtx.path_losses(p, a.path_psn, cfg.reorder_threshold, &mut v);
                    if v.is_empty() {
                        return;
                    }
                    let mut want = r.clone();
                    want.declare_lost_on_path(p, &v);
                    let mut got = r.clone();
                    let params = RtxParams { connections: 1, paths: 4, window: cfg.window, records: cfg.tx_records(), reorder_threshold: cfg.reorder_threshold, head_on: false };
                    let mut st = RtxState::new(params);
                    st.queues[0] = got.rtx.clone();
                    let row = &got.paths.paths[p];
                    let ldp = row.decreased_any.then_some(row.last_decrease_psn);
                    let m = st.apply(0, &RtxOp::Ldet { path: p as u8, highest: a.path_psn, ldp }, HwTime(0));
                    assert_eq!(m.k + m.k2, v.len() as u32);
                    got.rtx = st.queues[0].clone();
                    let next = got.rtx.next;
                    got.stats.losses_by_path += u64::from(m.k);
                    if got.paths.on_lost_batch(p, m.k, m.psn, m.psn2, next) {
                        // The path fails (DRAIN + FAIL): batch 2 was already marked lost by
                        // LDET, so it counts as drained, as the requester's drain counts it.
                        got.stats.losses_by_timeout += u64::from(m.k2);
                        got.fail_path(p);
                        failed += usize::from(m.k2 > 0);
                    } else {
                        got.stats.losses_by_path += u64::from(m.k2);
                        if got.paths.on_lost_batch(p, m.k2, m.psn3, m.psn4, next) {
                            got.fail_path(p);
                        }
                    }
                    split += usize::from(m.k2 > 0);
                    // `scratch` is a reused buffer, not state.
                    got.scratch.clear();
                    want.scratch.clear();
                    assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap(), "seed {seed}, psns {v:?}");
                    checked += 1;
                });
            }
        }
        assert!(checked > 500 && split > 50 && failed > 20, "checked {checked}, split {split}, failed mid-detection {failed}");
    }

    /// The held mask built from the message table gives `oldest_lost` the result of
    /// the former per-PSN predicate (`msg_of` then the message's hold) at every time,
    /// from random states with RNR holds, windows 32 and 256, across the PSN wrap.
    #[test]
    fn held_mask_query_equals_the_former_per_psn_hold_predicate() {
        let (mut checked, mut held_mattered) = (0, 0);
        for seed in 0..40u64 {
            for window in [32, 256] {
                let cfg = TransportConfig { paths: 2, window, cwnd_init: 8, cwnd_max: 32, msg_window: 4, rnr_retry: 7, ..Default::default() };
                random_run(&cfg, seed, 300, |r, now, _| {
                    for dt in [0, 5_000, 20_000, 100_000] {
                        let now = now.add_ns(dt);
                        let any_hold = r.msgs.iter().any(|m| m.not_before.is_some());
                        let held = |psn: u32| {
                            any_hold
                                && msg_of(&r.msgs, r.cfg.window, psn).and_then(|(k, _)| r.msgs[k].not_before).is_some_and(|t| !now.after_eq(t))
                        };
                        let want = r.rtx.oldest_lost_by(held);
                        assert_eq!(r.oldest_lost(now), want, "seed {seed} window {window}");
                        checked += 1;
                        if want != r.rtx.oldest_lost_by(|_| false) {
                            held_mattered += 1;
                        }
                    }
                });
            }
        }
        assert!(checked > 1000 && held_mattered > 50, "checked {checked}, a hold changed the answer {held_mattered} times");
    }
}
