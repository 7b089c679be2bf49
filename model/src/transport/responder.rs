//! Responder: the receiving half of a connection end (`docs/protocol.md` §6.10-§6.12).
//!
//! For each DATA packet, in this order: path PSN gap bookkeeping, classification by
//! the SACK state (new / duplicate / out of window), for a new packet the message and
//! placement checks ([`placement::check`]), then two steps as the hardware splits them:
//! at the header decision the SACK commit and the message's shape (kind, first PSN,
//! SSN, last offset), at the write's response the message's progress (packets, bytes)
//! and the in-order completions; last the ACK decision (immediately on a path gap, a
//! BTH A bit, a duplicate or an out-of-window PSN; otherwise every N packets or T ns
//! per path). Completions of SEND messages are delivered in MSN order, exactly once,
//! never before the last write of their message answered OKAY. A write that fails
//! after its commit makes its message fatal, and nothing sent afterwards covers its
//! PSN ([`Responder::reported`]; `docs/design/receiver-rtl.md` §2.8).
//!
//! The message checks measure from the *decision frontier* ([`Responder::decision_msn`]),
//! moved at the header decision over the messages whose packets were all accepted, not
//! from the completion unit's `next_msn`, which hardware learns only at the write
//! responses; the two are equal after every packet while every write succeeds. The error
//! state is compared in serial arithmetic with no base ([`at_or_after`]).

use super::ackgen::{AckDecision, AckRow};
use super::cmpl::{Cmpl, CmplOp, CmplOut, CmplStatus, WrDone};
use super::msg_chk::{MsgChk, MsgPkt, MsgVerdict};
use super::path::Plane;
use super::placement::{self, DmaError, HostMemory, MemoryRegion, MrTable, PlacementRequest, RecvBuffer, RecvQueue};
use super::qp::Out;
use super::{TransportConfig, TransportError, MAX_TIME_NS};
use crate::time::HwTime;
use crate::sack::{psn_distance, Bitmap, Class, SackState, MAX_WINDOW};
use crate::wire::{ack_flags, Ack, Body, DataExt, DataKind, Nak, NakCode, Placement, Probe};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Status of a receive completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecvStatus {
    /// Every packet of the SEND was placed.
    #[default]
    Success,
    /// A DMA write of the SEND's data failed (AXI `bresp` SLVERR/DECERR): the buffer's
    /// contents are undefined, `bytes` counts the bytes placed before the failure; the
    /// requester got NAK RemoteOpError and the connection is in the error state.
    WriteError,
}

/// A SEND delivered to the application, in message order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecvCompletion {
    /// The receive buffer's work request id.
    pub wr_id: u64,
    pub ssn: u32,
    pub msn: u32,
    pub bytes: u64,
    pub solicited: bool,
    #[serde(default)]
    pub status: RecvStatus,
}

/// Why [`Responder::accept`] did not accept a new packet.
enum Refusal {
    /// Answer with this NAK.
    Nak(NakCode),
    /// The MSN is `msg_window` or more ahead of the decision frontier: no room to track
    /// it. Dropped without an answer and counted.
    BeyondMsgWindow,
    /// The MSN is W or more from the decision frontier: NAK InvalidRequest, but no
    /// message fails (there is none to fail).
    FarMsn,
}

pub use super::ackgen::{ce_avg_next, rate_hint_of, CE_ONE};

/// Message `msn` is the fatal message `emsn` or a later one: a serial-number compare on
/// 32-bit MSNs (`msn - emsn` below 2^31; hardware: the sign bit of one subtract). It
/// needs no base, so it holds after the frontiers moved past a fatal message that was
/// already complete (a hostile packet refused for a complete message, or a failed write
/// decided complete); measured from a moving frontier, that distance would wrap and the
/// error would be forgotten.
pub fn at_or_after(msn: u32, emsn: u32) -> bool {
    msn.wrapping_sub(emsn) < 1 << 31
}

/// Responder counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxStats {
    pub data_new: u64,
    pub data_duplicate: u64,
    pub data_out_of_window: u64,
    pub data_bad_path: u64,
    pub data_in_error: u64,
    /// New (not yet received) packets refused by the message or placement checks
    /// (§6.11), answered by a NAK. Every DATA packet the responder sees is counted in
    /// exactly one of `data_bad_path`, `data_in_error`, `data_new`, `data_refused`,
    /// `data_duplicate`, `data_out_of_window`, `data_beyond_msg_window`.
    pub data_refused: u64,
    /// New packets of a message `msg_window` or more ahead of the next one to complete
    /// (a compliant requester never sends one): dropped, no NAK, no ACK (§6.11).
    #[serde(default)]
    pub data_beyond_msg_window: u64,
    pub path_gaps: u64,
    pub ce_marked: u64,
    pub acks_sent: u64,
    pub naks_sent: u64,
    pub probes_answered: u64,
    pub bytes_placed: u64,
    pub messages_completed: u64,
    /// Committed new packets whose DMA write failed (`bresp` SLVERR/DECERR; also
    /// counted in `data_new`): each makes its message fatal.
    #[serde(default)]
    pub write_errors: u64,
}

pub use super::msg_chk::MAX_PKT_OFFSET;

/// The responder half of a connection end.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Responder {
    cfg: TransportConfig,
    pub sack: SackState,
    paths: Vec<AckRow>,
    /// The message checks, one connection: the rows of the messages from the decision
    /// frontier on ([`Responder::decision_msn`]), a ring of `msg_window`. The frontier
    /// equals `next_msn`, the completion unit's written frontier, after every packet while
    /// every write succeeds (`docs/design/receiver-rtl.md` §2.8 item 8).
    mc: MsgChk,
    /// The messages' progress and the in-order completions: the completion unit's own
    /// model (`mrnic_cmpl`), one connection.
    cmpl: Cmpl,
    /// Messages tracked at once (`msg_window`).
    pub msg_window: u32,
    /// MSN of the next message to complete (the completion unit's, moved at the write
    /// responses).
    pub next_msn: u32,
    pub pd: u32,
    pub mrs: MrTable,
    pub rq: RecvQueue,
    pub mem: HostMemory,
    /// Fatal NAK sent for message `.1`: nothing of that message or later ones is
    /// placed (earlier messages still complete).
    pub error: Option<(NakCode, u32)>,
    /// The first PSN whose DMA write failed (its bit is committed): what the responder
    /// sends is clipped below it ([`Responder::reported`]).
    #[serde(default)]
    clip_psn: Option<u32>,
    /// When the last fatal NAK was sent (the rate limit of one per `rto_min`).
    last_error_nak: Option<HwTime>,
    /// `T` (`ack_timeout_ns`) and `rto_min` as hardware durations, below 2^31 ns
    /// (`TransportConfig::validate` guarantees it; an unchecked configuration given to
    /// [`Responder::new`] directly is clamped to 2^31 − 1).
    ack_timeout: u32,
    nak_holdoff: u32,
    /// The ACK coalescing FIFO (§6.10): `(path, deadline)` in push order, which is
    /// deadline order (every entry is `push time + T`). It holds the live entries: an
    /// entry whose path sent its ACK early is stale in hardware (its pop does nothing)
    /// and is dropped here at once, which changes no ACK.
    ack_fifo: VecDeque<(u8, HwTime)>,
    /// The host's share for this connection (e.g. ingress bandwidth / active
    /// connections), Mbit/s; 0 = no rate hint. Each ACK carries [`Responder::rate_hint`].
    pub hint_base: u32,
    /// EWMA (gain 1/4) of the CE-marked fraction of DATA packets, Q0.10 (0..=1024,
    /// 11 bits; [`ce_avg_next`]).
    pub ce_avg: u16,
    out: VecDeque<Out>,
    completions: Vec<RecvCompletion>,
    pub stats: RxStats,
    /// When `Some`, every op given to the completion unit, in order, from the `Open` that
    /// set it to the first MSN ([`Responder::record_cmpl_ops`]): the transport's own
    /// traffic, which `verif/tests/cmpl_diff.rs` replays into the RTL.
    #[serde(skip)]
    pub cmpl_ops: Option<Vec<CmplOp>>,
}

impl Responder {
    /// `peer_isn`: the requester's initial PSN; `path_isn`: its initial path PSN.
    pub fn new(cfg: &TransportConfig, peer_isn: u32, path_isn: u32, pd: u32) -> Self {
        let mut sack = SackState::default();
        sack.clear(peer_isn);
        let p = AckRow::new(path_isn);
        Self {
            cfg: cfg.clone(),
            sack,
            paths: vec![p; cfg.paths as usize],
            mc: Self::open_mc(cfg, 0),
            cmpl: Self::open_cmpl(cfg.msg_window, 0),
            msg_window: cfg.msg_window,
            next_msn: 0,
            pd,
            mrs: MrTable::new(cfg.mr_entries),
            rq: RecvQueue::new(cfg.rq_depth),
            mem: HostMemory::default(),
            error: None,
            clip_psn: None,
            cmpl_ops: None,
            last_error_nak: None,
            ack_timeout: cfg.ack_timeout_ns.min(MAX_TIME_NS) as u32,
            nak_holdoff: cfg.rto_min_ns.min(MAX_TIME_NS) as u32,
            ack_fifo: VecDeque::new(),
            hint_base: 0,
            ce_avg: 0,
            out: VecDeque::new(),
            completions: Vec::new(),
            stats: RxStats::default(),
        }
    }

    /// The MSN of the first message and the SSN of the first SEND (both ends agree on
    /// them at setup; default 0). Only before the first packet or receive buffer.
    pub fn set_initial_msn_ssn(&mut self, msn: u32, ssn: u32) -> Result<(), TransportError> {
        let s = &self.stats;
        if !self.rq.bufs.is_empty() || self.next_msn != 0 || self.rq.head_ssn != 0 || s.data_new + s.data_refused != 0 {
            return Err(TransportError::AlreadyStarted);
        }
        self.next_msn = msn;
        self.mc = Self::open_mc(&self.cfg, msn);
        self.cmpl = Self::open_cmpl(self.msg_window, msn);
        if let Some(l) = &mut self.cmpl_ops {
            *l = vec![CmplOp::Open { conn: 0, msn }];
        }
        self.rq.head_ssn = ssn & super::SEQ_MASK;
        Ok(())
    }

    /// Allocates `mr`'s host memory (zeroed; `backed = false` stores no bytes) and
    /// registers it under `rkey`. Refused, with nothing allocated, when the key's row
    /// of the memory-region table is taken ([`MrTable::insert`]).
    pub fn register(&mut self, rkey: u32, mr: MemoryRegion, backed: bool) -> Result<(), TransportError> {
        self.mrs.vacant(rkey)?;
        self.mem.alloc(mr.base, mr.len, backed)?;
        self.mrs.insert(rkey, mr)
    }

    /// Deregisters `rkey` (its row becomes free; the host memory stays allocated).
    pub fn deregister(&mut self, rkey: u32) -> Option<MemoryRegion> {
        self.mrs.remove(rkey)
    }

    /// Posts a receive buffer for the next SEND; refused when `rq_depth` are posted
    /// ([`TransportError::RecvQueueFull`]).
    pub fn post_recv(&mut self, b: RecvBuffer) -> Result<(), TransportError> {
        self.rq.post(b)
    }

    /// Allocates the buffer's host memory (zeroed; `backed = false` stores no bytes) and
    /// posts it; refused with nothing allocated when the receive queue is full.
    pub fn alloc_and_post_recv(&mut self, b: RecvBuffer, backed: bool) -> Result<(), TransportError> {
        self.rq.has_room()?;
        self.mem.alloc(b.addr, b.len, backed)?;
        self.rq.post(b)
    }

    /// The rate hint an ACK built now carries, Mbit/s (0 = none): `hint_base` scaled by
    /// the CE marks this connection sees, `max(hint_base - ((hint_base * ce_avg) >> 11), 1)`
    /// ([`rate_hint_of`]); derived when the ACK is built, so it is not state.
    pub fn rate_hint(&self) -> u32 {
        rate_hint_of(self.hint_base, self.ce_avg)
    }

    /// Delivered SEND completions since the last call.
    pub fn take_completions(&mut self) -> Vec<RecvCompletion> {
        std::mem::take(&mut self.completions)
    }

    /// Next ACK/NAK/PROBE_REPLY to send, for NIC plane `plane` only (that of its path
    /// id) when given.
    pub fn poll_tx_on(&mut self, plane: Option<Plane>) -> Option<Out> {
        let Some(pl) = plane else { return self.out.pop_front() };
        let i = self.out.iter().position(|o| pl.has(o.body.path_id() as usize))?;
        self.out.remove(i)
    }

    /// Earliest ACK timer: the head of the ACK coalescing FIFO.
    pub fn next_wakeup(&self) -> Option<HwTime> {
        self.ack_fifo.front().map(|&(_, t)| t)
    }

    /// Sends the ACKs whose coalescing timer expired, in FIFO (= deadline) order: the
    /// hardware pops the head while `now` is at or after its deadline.
    pub fn on_timer(&mut self, now: HwTime) {
        while let Some(&(p, t)) = self.ack_fifo.front() {
            if !now.after_eq(t) {
                break;
            }
            debug_assert_eq!(self.paths[p as usize].ack_due, Some(t), "only live entries are kept");
            self.send_ack(p as usize, 0, now);
        }
    }

    /// Entries in the ACK coalescing FIFO (at most one per path).
    pub fn ack_fifo_len(&self) -> usize {
        self.ack_fifo.len()
    }

    /// A DATA packet for this connection (it passed the frame and connection checks).
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        now: HwTime,
        psn: u32,
        ack_req: bool,
        solicited: bool,
        kind: DataKind,
        ext: &DataExt,
        pl: &Placement,
        payload: &[u8],
        ce: bool,
        sport: u16,
    ) {
        let p = ext.path_id as usize;
        if p >= self.paths.len() {
            self.stats.data_bad_path += 1;
            return;
        }
        // Path PSN bookkeeping (also for packets that will be refused: the path PSN was used).
        let gap = self.paths[p].path_psn_seen(ext.path_psn, sport);
        if gap {
            self.stats.path_gaps += 1;
        }

        if let Some((code, emsn)) = self.error {
            if at_or_after(ext.msn, emsn) {
                self.stats.data_in_error += 1;
                // `since` is mod 2^32: after 2^32 ns of silence a NAK may wait up to rto_min once.
                if self.last_error_nak.is_none_or(|t| now.since(t) >= self.nak_holdoff) {
                    self.last_error_nak = Some(now);
                    self.send_nak(psn, code, p, ext.msn, sport);
                }
                return;
            }
        }

        // One classification, the SACK engine's own (a PSN past the window but inside
        // the half-space is OutOfWindow, never a bitmap index).
        let class = self.sack.classify(psn, self.cfg.window as usize);
        let new = class == Class::New;
        let mut flags = 0;
        if new {
            match self.accept(psn, solicited, kind, ext, pl, payload) {
                Ok(true) => {}
                Ok(false) => {
                    // The write failed after the commit: the fatal NAK at once (hardware:
                    // at `bresp`), then this packet's ACK decision as for any new packet
                    // (its ACK, clipped, does not cover the PSN).
                    self.send_nak(psn, NakCode::RemoteOpError, p, ext.msn, sport);
                    self.last_error_nak = Some(now);
                }
                Err(Refusal::BeyondMsgWindow) => {
                    self.stats.data_beyond_msg_window += 1;
                    return;
                }
                Err(Refusal::FarMsn) => {
                    // No message to fail: only the answer.
                    self.stats.data_refused += 1;
                    self.send_nak(psn, NakCode::InvalidRequest, p, ext.msn, sport);
                    return;
                }
                Err(Refusal::Nak(code)) => {
                    self.stats.data_refused += 1;
                    self.send_nak(psn, code, p, ext.msn, sport);
                    if code != NakCode::NoRecvBuffer {
                        self.fatal(code, ext.msn);
                        let out = self.cmpl_apply(CmplOp::Fatal { conn: 0, msn: ext.msn });
                        self.deliver(out);
                        self.last_error_nak = Some(now);
                    }
                    return;
                }
            }
        } else if class == Class::Duplicate {
            self.stats.data_duplicate += 1;
            flags |= ack_flags::DUPLICATE;
        } else {
            self.stats.data_out_of_window += 1;
        }

        self.ce_avg = ce_avg_next(self.ce_avg, ce);
        if ce {
            self.stats.ce_marked += 1;
        }
        if gap {
            flags |= ack_flags::PATH_GAP;
        }
        if ack_req {
            flags |= ack_flags::ACK_REQ;
        }
        match self.paths[p].decide(now, ce, ext.timestamp, flags, !new, self.cfg.ack_every, self.ack_timeout) {
            AckDecision::Send(f) => self.send_ack(p, f, now),
            AckDecision::Arm(due) => self.ack_fifo.push_back((p as u8, due)),
            AckDecision::Wait => {}
        }
    }

    /// Checks, records and places a new packet; `Err` = the NAK to send, or a drop.
    fn accept(
        &mut self,
        psn: u32,
        solicited: bool,
        kind: DataKind,
        ext: &DataExt,
        pl: &Placement,
        payload: &[u8],
    ) -> Result<bool, Refusal> {
        let nak = Refusal::Nak;
        let send = kind == DataKind::Send;
        // The message checks (`msg_chk`): within a window of the decision frontier,
        // consistent with its earlier packets (kind, first PSN, SSN, LAST), its offset one
        // a message can have.
        let mp = MsgPkt { conn: 0, psn, msn: ext.msn, off: ext.pkt_offset, last: ext.last(), send, ssn: ext.ssn };
        match self.mc.check(&mp) {
            MsgVerdict::Ok => {}
            MsgVerdict::FarMsn => return Err(Refusal::FarMsn),
            MsgVerdict::Beyond => return Err(Refusal::BeyondMsgWindow),
            MsgVerdict::Invalid => return Err(nak(NakCode::InvalidRequest)),
        }
        let req = PlacementRequest { kind, va: pl.va, rkey: pl.rkey, len: payload.len() as u32, ssn: ext.ssn };
        let addr = placement::check(&req, self.cfg.mtu, self.pd, &self.mrs, &self.rq).map_err(nak)?;

        // Step 1, the header decision: the checks passed, so the SACK bit is committed
        // and the message's shape is recorded (hardware: the SACK engine's commit and the
        // ring row's shape write, in packet order, before the write is issued).
        self.sack.receive(psn, self.cfg.window as usize);
        self.stats.data_new += 1;
        self.mc.record(&mp);
        // Step 2, the write's response (hardware: `bresp`, in write order, later): the
        // message's progress and the in-order completions on OKAY; an error is fatal.
        let ok = match self.mem.write(addr, payload) {
            Ok(()) => true,
            Err(DmaError::Bresp { .. }) => false,
            Err(DmaError::Outside(_)) => true, // counted by HostMemory::violations (a model bug)
        };
        let done = WrDone { conn: 0, msn: ext.msn, len: payload.len() as u32, offset: ext.pkt_offset, last: ext.last(), send, ssn: ext.ssn, solicited, ok };
        self.placed(psn, &done);
        self.check_frontiers();
        Ok(ok)
    }

    /// The write of a committed packet answered (`d.ok`: OKAY): the completion unit
    /// counts the packet and its bytes in the message's row and completes what is complete,
    /// in order. An error (SLVERR/DECERR) makes the message fatal, as a refused check
    /// does (NAK RemoteOpError, later messages not placed, a SEND's buffer completes with
    /// [`RecvStatus::WriteError`] when it is the head), and from then on no ACK, NAK or
    /// PROBE_REPLY covers the PSN: [`Responder::reported`] clips them below it (its bit
    /// is already in the SACK state, committed at the decision).
    fn placed(&mut self, psn: u32, d: &WrDone) {
        if d.ok {
            self.stats.bytes_placed += u64::from(d.len);
        } else {
            self.stats.write_errors += 1;
            let before = |a: u32, b: u32| psn_distance(b, a).wrapping_sub(1) < (1 << 23) - 1;
            if self.clip_psn.is_none_or(|c| before(psn, c)) {
                self.clip_psn = Some(psn);
            }
            self.fatal(NakCode::RemoteOpError, d.msn);
        }
        let out = self.cmpl_apply(CmplOp::Done(*d));
        self.deliver(out);
    }

    /// The decision frontier moved over the leading rows decided complete when the packet
    /// was recorded ([`MsgChk::record`]). While every write succeeds it is the completion
    /// unit's written frontier `next_msn` (the model's step is atomic: the write answered
    /// before this). A failed write's message can be decided complete and never written
    /// complete: the decision frontier then passes it and the messages decided complete
    /// behind it, at most `msg_window` ahead of the written one, and goes no further (every
    /// later message is in error: [`at_or_after`] the fatal message).
    fn check_frontiers(&self) {
        let (d, w) = (self.mc.next_msn(0), self.next_msn);
        let ahead = d.wrapping_sub(w);
        debug_assert!(ahead == 0 || (self.stats.write_errors > 0 && ahead <= self.mc.msg_window()), "the decision frontier {d} and the written one {w} differ without a write error, or by more than msg_window");
    }

    /// The decision frontier (the message checks' `d_next_msn`): the message checks measure
    /// from it.
    pub fn decision_msn(&self) -> u32 {
        self.mc.next_msn(0)
    }

    /// Message `msn` is fatal with `code` when it is earlier than the fatal message so far
    /// (a serial-number compare, [`at_or_after`]), or there is none.
    fn fatal(&mut self, code: NakCode, msn: u32) {
        let earlier = |e: u32| !at_or_after(msn, e);
        if self.error.is_none_or(|(_, e)| earlier(e)) {
            self.error = Some((code, msn));
        }
    }

    /// The cumulative PSN and bitmap an ACK, NAK or PROBE_REPLY carries: the SACK state,
    /// clipped below the first PSN whose write failed (none: the state itself). Nothing
    /// the responder sends after a write error covers that PSN or a later one, so the
    /// requester never completes its message (hardware: the ACK output waits for the
    /// responses of the writes decided before it, and clips the same way).
    pub fn reported(&self) -> (u32, Bitmap) {
        let Some(c) = self.clip_psn else { return (self.sack.base, self.sack.bitmap) };
        let d = psn_distance(c, self.sack.base) as usize;
        if d >= MAX_WINDOW {
            return (c, Bitmap::default()); // the base moved past it
        }
        let mut b = self.sack.bitmap;
        for i in d..MAX_WINDOW {
            b.0[i / 64] &= !(1 << (i % 64));
        }
        (self.sack.base, b)
    }

    /// The completion unit's records: each SEND's receive buffer consumed and its
    /// completion delivered; the message rows the unit completed leave the shape ring.
    fn deliver(&mut self, out: Vec<CmplOut>) {
        for c in out {
            if let Some(b) = self.rq.consume(c.ssn) {
                let status = match c.status {
                    CmplStatus::Success => RecvStatus::Success,
                    CmplStatus::WriteError => RecvStatus::WriteError,
                };
                self.completions.push(RecvCompletion { wr_id: b.wr_id, ssn: c.ssn, msn: c.msn, bytes: u64::from(c.bytes), solicited: c.solicited, status });
            }
        }
        let next = self.cmpl.conn(0).next_msn;
        while self.next_msn != next {
            self.stats.messages_completed += 1;
            self.next_msn = self.next_msn.wrapping_add(1);
        }
    }

    /// Starts recording the ops the completion unit is given ([`Responder::cmpl_ops`]),
    /// from an `Open` at the next MSN. Only before the first DATA packet: the rows of
    /// messages in progress would not be in the log.
    pub fn record_cmpl_ops(&mut self) -> Result<(), TransportError> {
        let s = &self.stats;
        if s.data_new + s.data_refused != 0 {
            return Err(TransportError::AlreadyStarted);
        }
        self.cmpl_ops = Some(vec![CmplOp::Open { conn: 0, msn: self.next_msn }]);
        Ok(())
    }

    /// The completion unit's step on `op`, recorded when [`Responder::cmpl_ops`] is on.
    fn cmpl_apply(&mut self, op: CmplOp) -> Vec<CmplOut> {
        if let Some(l) = &mut self.cmpl_ops {
            l.push(op);
        }
        self.cmpl.apply(&op)
    }

    fn open_mc(cfg: &TransportConfig, msn: u32) -> MsgChk {
        // A validated configuration is taken as it is; an unchecked one is brought into
        // the block's ranges.
        let w = cfg.window.clamp(1, 1 << 23);
        let mut mw = cfg.msg_window.clamp(1, 256).next_power_of_two();
        while mw > w {
            mw /= 2;
        }
        let mut c = MsgChk::new(1, mw, w).expect("sizes brought into the block's ranges");
        c.open(0, msn);
        c
    }

    fn open_cmpl(msg_window: u32, msn: u32) -> Cmpl {
        let mut c = Cmpl::new(1, msg_window.clamp(1, 256).next_power_of_two()).expect("a power of two in 1..=256");
        c.apply(&CmplOp::Open { conn: 0, msn });
        c
    }

    /// A PROBE: answered at once on the probe's own source port.
    pub fn on_probe(&mut self, probe: &Probe, sport: u16) {
        self.stats.probes_answered += 1;
        self.out.push_back(Out {
            psn: self.reported().0,
            ack_req: false,
            solicited: false,
            sport,
            body: Body::ProbeReply(*probe),
        });
    }

    fn send_ack(&mut self, p: usize, flags: u8, now: HwTime) {
        let rate_hint = self.rate_hint();
        let (cumulative, sack) = self.reported();
        let due = self.paths[p].ack_due;
        let f = self.paths[p].take(flags, now);
        let ack = Ack {
            path_id: p as u8,
            path_psn: f.path_psn,
            flags: f.flags,
            ecn_ce: f.ecn_ce,
            ecn_pkts: f.ecn_pkts,
            rate_hint,
            ts_echo: f.ts_echo,
            ack_delay: f.ack_delay,
            sack,
        };
        if let Some(t) = due {
            // The FIFO entry of this deadline: the head when the timer fired, else stale.
            let i = self.ack_fifo.iter().position(|&e| e == (p as u8, t)).expect("an armed path has its FIFO entry");
            self.ack_fifo.remove(i);
        }
        self.stats.acks_sent += 1;
        self.out.push_back(Out { psn: cumulative, ack_req: false, solicited: false, sport: f.sport, body: Body::Ack(ack) });
    }

    fn send_nak(&mut self, psn: u32, code: NakCode, p: usize, msn: u32, sport: u16) {
        self.stats.naks_sent += 1;
        let rnr = if code == NakCode::NoRecvBuffer { self.cfg.rnr_delay_us } else { 0 };
        self.out.push_back(Out {
            psn,
            ack_req: false,
            solicited: false,
            sport,
            body: Body::Nak(Nak { code, path_id: p as u8, rnr_delay_us: rnr, msn, cumulative: self.reported().0 }),
        });
    }
}
