//! The completion unit of the receive path (issue 12; `docs/design/receiver-rtl.md` 2.8):
//! the block model and the cycle shell of `mrnic_cmpl`, which counts each message's
//! progress at its writes' responses and completes the messages **in message order,
//! exactly once, never before every byte of the message was written** (its last `bresp`).
//!
//! **Where it stands.** The header path checks each new packet against its message's
//! *shape* (kind, first PSN, SSN, last offset) and commits it; the placement unit writes its
//! payload; the AXI write responses come back in write order. Each response, with the tag
//! the write carried (connection, MSN, length, packet offset, LAST, SEND, SSN, SE), is one
//! [`CmplOp::Done`] here. The header path's fatal refusals (`docs/protocol.md` §6.11) come
//! as [`CmplOp::Fatal`], and a connection starts with [`CmplOp::Open`]. The model's
//! responder ([`super::Responder`]) calls these same functions, so the block model is the
//! responder's own bookkeeping, not a copy of it.
//!
//! **State.** Per connection and message row (`msg_window` rows, row `MSN mod msg_window`):
//! packets written 24, bytes 32, last offset 24 + valid, SEND, SSN 24, SE (107 bits; the
//! RTL stores one derived bit more, *complete*, for its timing). Per connection: next MSN
//! 32, the fatal message (valid + MSN 32) and the failed SEND's SSN (valid + 24): 90 bits.
//!
//! **Semantics.**
//! - `Done` with OKAY, of message `k = msn - next_msn < msg_window`: the row counts the
//!   packet and its bytes; a LAST packet gives the last offset and SE. A row is complete
//!   when its last offset is known and `packets == last offset + 1` (the header path's
//!   checks make each offset one PSN, committed once). When the head row (k = 0) becomes
//!   complete, the walk completes it and every complete row behind it, in order: a SEND
//!   gives a [`CmplOut`] (status Success), a WRITE none; each row is cleared and the next
//!   MSN moves on.
//! - `Done` with an error response: the message becomes the connection's fatal message if
//!   it is earlier than the current one (or there is none); a SEND remembers its SSN. When
//!   the fatal message is the head (every earlier message complete), a failed SEND's
//!   buffer completes at once with [`CmplStatus::WriteError`] and the bytes written before
//!   the failure; otherwise the walk that reaches it does. Counted in `write_errors`.
//! - `Fatal` (a refused check): the same, with no SSN (nothing to complete).
//! - `Done` of a message outside `0 <= k < msg_window` (no row: the header path never
//!   sends one) changes nothing and is counted in `stray`.
//! - `Open`: the connection's next MSN, no fatal message, every row cleared.
//!
//! **Ports** (the cycle shell [`CmplShell`], as the RTL): three op inputs, each its own
//! valid/ready stream, taken by a fixed-priority arbiter one op at a time: `s_wr` (a write's
//! completion, the placement unit's completion stream as it is: tag, bytes, `bresp`; the
//! `Done` op is [`WrDone::from_tag`]), then `s_fatal` (connection, MSN), then `s_open`
//! (connection, MSN). [`Cmpl::apply`] is the function of the ops in the order taken.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmplOp {
    /// A write's response with its tag.
    Done(WrDone),
    /// A fatal refusal at the header path of a packet of message `msn`.
    Fatal { conn: u32, msn: u32 },
    /// A connection (re)starts at message `msn`.
    Open { conn: u32, msn: u32 },
}

impl CmplOp {
    pub fn conn(&self) -> u32 {
        match *self {
            CmplOp::Done(d) => d.conn,
            CmplOp::Fatal { conn, .. } | CmplOp::Open { conn, .. } => conn,
        }
    }
}

/// A write's response and the tag its write carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrDone {
    pub conn: u32,
    pub msn: u32,
    /// Payload bytes (16 bits).
    pub len: u32,
    /// The packet's offset in its message (24 bits).
    pub offset: u32,
    pub last: bool,
    pub send: bool,
    /// The SEND's SSN (24 bits).
    pub ssn: u32,
    pub solicited: bool,
    /// `bresp` OKAY.
    pub ok: bool,
}

/// Bits of [`WrDone::tag`]: connection 12 (up to 4096, the largest configuration), MSN 32,
/// offset 24, LAST, SEND, SSN 24, SE. The placement unit's tag is this wide
/// (`hdl::tops::PLACEMENT_TAG_BITS`), so that a write's completion is its `Done` op.
pub const WR_TAG_BITS: u32 = 95;

impl WrDone {
    /// The fields the header path knows at the decision, packed as the placement unit's
    /// tag, least significant first: connection 12, MSN 32, offset 24 (masked to 24),
    /// LAST, SEND, SSN 24, SE.
    pub fn tag(&self) -> u128 {
        u128::from(self.conn & 0xfff)
            | u128::from(self.msn) << 12
            | u128::from(self.offset & 0xff_ffff) << 44
            | u128::from(self.last) << 68
            | u128::from(self.send) << 69
            | u128::from(self.ssn & 0xff_ffff) << 70
            | u128::from(self.solicited) << 94
    }

    /// The op of a write's completion: its `tag` (as [`WrDone::tag`] packed it), the bytes
    /// written and whether every response was OKAY.
    pub fn from_tag(tag: u128, len: u32, ok: bool) -> WrDone {
        let f = |at: u32, bits: u32| ((tag >> at) & ((1u128 << bits) - 1)) as u32;
        WrDone {
            conn: f(0, 12),
            msn: f(12, 32),
            len,
            offset: f(44, 24),
            last: f(68, 1) == 1,
            send: f(69, 1) == 1,
            ssn: f(70, 24),
            solicited: f(94, 1) == 1,
            ok,
        }
    }
}

/// A completion's status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmplStatus {
    #[default]
    Success,
    WriteError,
}

/// A SEND's receive completion (the host finds its buffer's `wr_id` by SSN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmplOut {
    pub conn: u32,
    pub msn: u32,
    pub ssn: u32,
    pub bytes: u32,
    pub solicited: bool,
    pub status: CmplStatus,
}

/// Counters (`stat_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmplStats {
    /// Messages completed (SEND and WRITE).
    pub msgs: u64,
    /// Completion records out (SENDs: Success and WriteError).
    pub cmpls: u64,
    pub write_errors: u64,
    pub stray: u64,
}

/// One message row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgRow {
    pub packets: u32,
    pub bytes: u32,
    pub last: Option<u32>,
    pub send: bool,
    pub ssn: u32,
    pub solicited: bool,
}

pub const OFF_MASK: u32 = 0xFF_FFFF;

impl MsgRow {
    /// Every packet written: the last offset known and `packets == last + 1` (24 bits).
    pub fn complete(&self) -> bool {
        self.last.is_some_and(|l| self.packets == (l + 1) & OFF_MASK)
    }
    /// The row after an OKAY response of `d`.
    pub fn written(&self, d: &WrDone) -> MsgRow {
        MsgRow {
            packets: (self.packets + 1) & OFF_MASK,
            bytes: self.bytes.wrapping_add(d.len & 0xFFFF),
            last: if d.last { Some(d.offset & OFF_MASK) } else { self.last },
            send: d.send,
            ssn: d.ssn & OFF_MASK,
            solicited: if d.last { d.solicited } else { self.solicited },
        }
    }
}

/// A connection's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnCmpl {
    pub next_msn: u32,
    /// The fatal message: nothing from it on completes.
    pub fatal: Option<u32>,
    /// Its SSN when it is a SEND whose write failed (its buffer completes with an error).
    pub failed_ssn: Option<u32>,
}

impl ConnCmpl {
    /// `msn` is before the fatal message (or there is none).
    pub fn before_fatal(&self, msn: u32) -> bool {
        self.fatal.is_none_or(|e| msn.wrapping_sub(self.next_msn) < e.wrapping_sub(self.next_msn))
    }
}

/// The block model: every connection's rows and state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cmpl {
    msg_window: u32,
    rows: Vec<MsgRow>,
    conns: Vec<ConnCmpl>,
    pub stats: CmplStats,
}

impl Cmpl {
    /// `connections`: a power of two, 1..=65536; `msg_window`: a power of two, 1..=256.
    pub fn new(connections: u32, msg_window: u32) -> Result<Cmpl, String> {
        if !connections.is_power_of_two() || connections > 1 << 16 {
            return Err(format!("connections = {connections} must be a power of two in 1..=65536"));
        }
        if !msg_window.is_power_of_two() || msg_window > 256 {
            return Err(format!("msg_window = {msg_window} must be a power of two in 1..=256"));
        }
        Ok(Cmpl {
            msg_window,
            rows: vec![MsgRow::default(); (connections * msg_window) as usize],
            conns: vec![ConnCmpl::default(); connections as usize],
            stats: CmplStats::default(),
        })
    }

    pub fn msg_window(&self) -> u32 {
        self.msg_window
    }

    fn c(&self, conn: u32) -> usize {
        conn as usize & (self.conns.len() - 1)
    }

    /// The row index of message `msn` of `conn`.
    pub fn row_index(&self, conn: u32, msn: u32) -> usize {
        self.c(conn) * self.msg_window as usize + (msn & (self.msg_window - 1)) as usize
    }

    pub fn conn(&self, conn: u32) -> &ConnCmpl {
        &self.conns[self.c(conn)]
    }

    pub fn row(&self, conn: u32, msn: u32) -> &MsgRow {
        &self.rows[self.row_index(conn, msn)]
    }

    /// One operation; its completions in order.
    pub fn apply(&mut self, op: &CmplOp) -> Vec<CmplOut> {
        let mut out = Vec::new();
        match *op {
            CmplOp::Open { conn, msn } => {
                let c = self.c(conn);
                self.conns[c] = ConnCmpl { next_msn: msn, fatal: None, failed_ssn: None };
                let mw = self.msg_window as usize;
                self.rows[c * mw..(c + 1) * mw].fill(MsgRow::default());
            }
            CmplOp::Fatal { conn, msn } => {
                let c = self.c(conn);
                if self.conns[c].before_fatal(msn) {
                    self.conns[c].fatal = Some(msn);
                    self.conns[c].failed_ssn = None;
                }
            }
            CmplOp::Done(d) => {
                let c = self.c(d.conn);
                let k = d.msn.wrapping_sub(self.conns[c].next_msn);
                if k >= self.msg_window {
                    self.stats.stray += 1;
                    return out;
                }
                let ri = self.row_index(d.conn, d.msn);
                if d.ok {
                    self.rows[ri] = self.rows[ri].written(&d);
                    if k == 0 {
                        self.walk(d.conn, &mut out);
                    }
                } else {
                    self.stats.write_errors += 1;
                    if self.conns[c].before_fatal(d.msn) {
                        self.conns[c].fatal = Some(d.msn);
                        self.conns[c].failed_ssn = d.send.then_some(d.ssn & OFF_MASK);
                        if k == 0 {
                            self.failed_send(d.conn, &mut out);
                        }
                    }
                }
            }
        }
        out
    }

    /// Completes the head message and every complete one behind it, then a failed SEND at
    /// the head.
    fn walk(&mut self, conn: u32, out: &mut Vec<CmplOut>) {
        let c = self.c(conn);
        loop {
            let ri = self.row_index(conn, self.conns[c].next_msn);
            let r = self.rows[ri];
            if !r.complete() {
                break;
            }
            if r.send {
                self.stats.cmpls += 1;
                out.push(CmplOut { conn: c as u32, msn: self.conns[c].next_msn, ssn: r.ssn, bytes: r.bytes, solicited: r.solicited, status: CmplStatus::Success });
            }
            self.stats.msgs += 1;
            self.rows[ri] = MsgRow::default();
            self.conns[c].next_msn = self.conns[c].next_msn.wrapping_add(1);
        }
        self.failed_send(conn, out);
    }

    /// The failed SEND's completion when its message is the head.
    fn failed_send(&mut self, conn: u32, out: &mut Vec<CmplOut>) {
        let c = self.c(conn);
        let s = self.conns[c];
        if let (Some(e), Some(ssn)) = (s.fatal, s.failed_ssn) {
            if e == s.next_msn {
                let bytes = self.rows[self.row_index(conn, e)].bytes;
                self.stats.cmpls += 1;
                out.push(CmplOut { conn: c as u32, msn: e, ssn, bytes, solicited: false, status: CmplStatus::WriteError });
                self.conns[c].failed_ssn = None;
            }
        }
    }
}

/// Cycles from an op's transfer to its first completion's offer on `m`.
pub const CMPL_LATENCY: u32 = 4;

/// One cycle's inputs: the three op ports as the RTL has them (each a valid and its fields;
/// the fields of a port whose valid is low are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmplShellIn {
    pub rst: bool,
    /// A write's completion, the placement unit's `m_*` stream: `s_wr_tag` as
    /// [`WrDone::tag`] packs it ([`WR_TAG_BITS`] bits), `s_wr_bytes` the bytes written (16
    /// bits), `s_wr_resp` its `bresp` (2 bits; OKAY = 0, anything else an error).
    pub s_wr_valid: bool,
    pub s_wr_tag: u128,
    pub s_wr_bytes: u32,
    pub s_wr_resp: u8,
    /// A fatal refusal at the header path.
    pub s_fatal_valid: bool,
    pub s_fatal_conn: u32,
    pub s_fatal_msn: u32,
    /// A connection's (re)start.
    pub s_open_valid: bool,
    pub s_open_conn: u32,
    pub s_open_msn: u32,
    pub m_ready: bool,
}

/// `s_wr_resp` of a failed write that [`CmplShellIn::offer`] drives (AXI SLVERR).
pub const RESP_SLVERR: u8 = 2;

impl CmplShellIn {
    /// The `Done` op of the write port: [`WrDone::from_tag`] of its tag, bytes (16 bits) and
    /// `resp == 0`, exactly the RTL's wiring.
    pub fn wr_op(&self) -> CmplOp {
        CmplOp::Done(WrDone::from_tag(self.s_wr_tag & ((1u128 << WR_TAG_BITS) - 1), self.s_wr_bytes & 0xFFFF, self.s_wr_resp & 3 == 0))
    }

    pub fn fatal_op(&self) -> CmplOp {
        CmplOp::Fatal { conn: self.s_fatal_conn, msn: self.s_fatal_msn }
    }

    pub fn open_op(&self) -> CmplOp {
        CmplOp::Open { conn: self.s_open_conn, msn: self.s_open_msn }
    }

    /// Offers `op` on its port: that port's valid high and its fields set (a failed write's
    /// `bresp` is [`RESP_SLVERR`]); the other ports unchanged.
    pub fn offer(&mut self, op: &CmplOp) {
        match *op {
            CmplOp::Done(d) => {
                self.s_wr_valid = true;
                self.s_wr_tag = d.tag();
                self.s_wr_bytes = d.len & 0xFFFF;
                self.s_wr_resp = if d.ok { 0 } else { RESP_SLVERR };
            }
            CmplOp::Fatal { conn, msn } => {
                self.s_fatal_valid = true;
                (self.s_fatal_conn, self.s_fatal_msn) = (conn, msn);
            }
            CmplOp::Open { conn, msn } => {
                self.s_open_valid = true;
                (self.s_open_conn, self.s_open_msn) = (conn, msn);
            }
        }
    }

    /// Inputs with `op` offered on its port (nothing else valid).
    pub fn with_op(rst: bool, op: Option<&CmplOp>, m_ready: bool) -> CmplShellIn {
        let mut i = CmplShellIn { rst, m_ready, ..CmplShellIn::default() };
        if let Some(op) = op {
            i.offer(op);
        }
        i
    }
}

/// Which input port an op came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmplPort {
    Wr,
    Fatal,
    Open,
}

/// One cycle's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmplShellOut {
    /// The arbiter's grants: at most one is high, the port whose op is taken in this cycle
    /// (`s_wr_valid` first, then `s_fatal_valid`, then `s_open_valid`, when the unit can take
    /// an op).
    pub s_wr_ready: bool,
    pub s_fatal_ready: bool,
    pub s_open_ready: bool,
    pub m: Option<CmplOut>,
    pub stats: CmplStats,
}

impl CmplShellOut {
    /// The port taken in this cycle (the one whose ready is high; its valid is then high).
    pub fn taken_port(&self) -> Option<CmplPort> {
        if self.s_wr_ready {
            Some(CmplPort::Wr)
        } else if self.s_fatal_ready {
            Some(CmplPort::Fatal)
        } else if self.s_open_ready {
            Some(CmplPort::Open)
        } else {
            None
        }
    }

    /// The op taken in this cycle from inputs `i`.
    pub fn taken(&self, i: &CmplShellIn) -> Option<CmplOp> {
        self.taken_port().map(|p| match p {
            CmplPort::Wr => i.wr_op(),
            CmplPort::Fatal => i.fatal_op(),
            CmplPort::Open => i.open_op(),
        })
    }
}

/// The shell's states (the RTL's `st`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Idle,
    /// The op taken in the last cycle: its row and connection on their way out of the RAMs'
    /// output registers.
    Wait(CmplOp),
    /// The words read: the sums and compares registered.
    Read(CmplOp),
    /// The op read in the last cycle: its row's and connection's write.
    Exec(CmplOp),
    /// The walk of `conn`: the row's read on its way (the RAM's two cycles).
    WalkWait(u32),
    /// The walk of `conn`: its head row read.
    Walk(u32),
    /// Clearing row `j` of an opening connection.
    Clear { conn: u32, msn: u32, j: u32 },
}

/// The completion unit cycle by cycle: [`Cmpl`]'s steps with the RTL's states, one row
/// per cycle, one output register, and the fixed-priority arbiter of its three input ports
/// (a write's completion `s_wr`, then a fatal refusal `s_fatal`, then an open `s_open`: one
/// op per take, only the taken port's ready high; [`CmplShell::outputs`]).
///
/// Timing (the RAMs have output registers: a word two cycles after its address): an op
/// is taken in cycle t (the unit idle and the output register free or taken); t + 2
/// registers what its row and connection give (the sums and compares); t + 3 executes it
/// (the row's and the connection's write; a completion or a failed SEND's record goes into
/// the output register, offered from t + 4); an OKAY that completes the head goes on
/// walking: a step every two cycles from t + 5, each complete row's SEND one record (a step,
/// SEND or WRITE, that finds the output register full tries again two cycles later);
/// `Open` clears one row per cycle from t + 1 (msg_window cycles). So **II** 4 for an op
/// that completes nothing, 4 + 2 per further message it completes, 1 + msg_window for
/// `Open`.
#[derive(Clone, Debug)]
pub struct CmplShell {
    pub g: Cmpl,
    st: St,
    o: Option<CmplOut>,
}

impl CmplShell {
    /// `connections` at most 4096: the write tag's connection field is 12 bits.
    pub fn new(connections: u32, msg_window: u32) -> Result<CmplShell, String> {
        if connections > 1 << 12 {
            return Err(format!("connections = {connections}: the write tag carries 12 bits of connection (at most 4096)"));
        }
        Ok(CmplShell { g: Cmpl::new(connections, msg_window)?, st: St::Idle, o: None })
    }

    /// The outputs of the cycle, before its edge. The arbiter: the unit can take an op when
    /// not in reset, idle and its output register empty or taken in this cycle; then the
    /// write port is taken if valid, else the fatal port if valid, else the open port if
    /// valid, and only the taken port's ready is high.
    pub fn outputs(&self, i: &CmplShellIn) -> CmplShellOut {
        let can = !i.rst && self.st == St::Idle && (self.o.is_none() || i.m_ready);
        CmplShellOut {
            s_wr_ready: can && i.s_wr_valid,
            s_fatal_ready: can && !i.s_wr_valid && i.s_fatal_valid,
            s_open_ready: can && !i.s_wr_valid && !i.s_fatal_valid && i.s_open_valid,
            m: if i.rst { None } else { self.o },
            stats: self.g.stats,
        }
    }

    /// The shell is idle (no op in flight).
    pub fn idle(&self) -> bool {
        self.st == St::Idle
    }

    pub fn step(&mut self, i: &CmplShellIn) -> CmplShellOut {
        let out = self.outputs(i);
        if i.rst {
            self.st = St::Idle;
            self.o = None;
            self.g.stats = CmplStats::default();
            return out;
        }
        let o_free = self.o.is_none() || i.m_ready;
        if self.o.is_some() && i.m_ready {
            self.o = None;
        }
        match self.st {
            St::Idle => {
                if let Some(op) = out.taken(i) {
                    self.st = match op {
                        CmplOp::Open { conn, msn } => St::Clear { conn, msn, j: 0 },
                        op => St::Wait(op),
                    };
                }
            }
            St::Wait(op) => self.st = St::Read(op),
            St::Read(op) => self.st = St::Exec(op),
            St::WalkWait(conn) => self.st = St::Walk(conn),
            St::Exec(op) => {
                // One step of the model: the op's row update and at most one record; an
                // OKAY completing the head continues as a walk.
                let conn = op.conn();
                let c = self.g.c(conn);
                let before = self.g.conns[c].next_msn;
                let k = match op {
                    CmplOp::Done(d) => d.msn.wrapping_sub(before),
                    _ => u32::MAX,
                };
                match op {
                    CmplOp::Done(d) if d.ok && k < self.g.msg_window => {
                        let ri = self.g.row_index(conn, d.msn);
                        let r = self.g.rows[ri].written(&d);
                        if k == 0 && r.complete() {
                            if r.send {
                                self.g.stats.cmpls += 1;
                                self.o = Some(CmplOut { conn: c as u32, msn: before, ssn: r.ssn, bytes: r.bytes, solicited: r.solicited, status: CmplStatus::Success });
                            }
                            self.g.stats.msgs += 1;
                            self.g.rows[ri] = MsgRow::default();
                            self.g.conns[c].next_msn = before.wrapping_add(1);
                            self.st = St::WalkWait(conn);
                        } else {
                            self.g.rows[ri] = r;
                            self.st = St::Idle;
                        }
                    }
                    _ => {
                        let mut v = Vec::new();
                        v.extend(self.g.apply(&op));
                        debug_assert!(v.len() <= 1);
                        self.o = self.o.or(v.first().copied());
                        self.st = St::Idle;
                    }
                }
            }
            St::Walk(conn) => {
                let c = self.g.c(conn);
                let s = self.g.conns[c];
                let ri = self.g.row_index(conn, s.next_msn);
                let r = self.g.rows[ri];
                if r.complete() {
                    // a step waits while the output register is full, whether or not its
                    // row leaves a record (so the next row's read address never depends on
                    // the row read: the RTL's walk loop stays off the RAM's output)
                    if o_free {
                        if r.send {
                            self.g.stats.cmpls += 1;
                            self.o = Some(CmplOut { conn: c as u32, msn: s.next_msn, ssn: r.ssn, bytes: r.bytes, solicited: r.solicited, status: CmplStatus::Success });
                        }
                        self.g.stats.msgs += 1;
                        self.g.rows[ri] = MsgRow::default();
                        self.g.conns[c].next_msn = s.next_msn.wrapping_add(1);
                    }
                    self.st = St::WalkWait(conn);
                } else if s.failed_ssn.is_some() && s.fatal == Some(s.next_msn) {
                    if o_free {
                        let mut v = Vec::new();
                        self.g.failed_send(conn, &mut v);
                        self.o = v.first().copied();
                        self.st = St::Idle;
                    } else {
                        self.st = St::WalkWait(conn);
                    }
                } else {
                    self.st = St::Idle;
                }
            }
            St::Clear { conn, msn, j } => {
                let c = self.g.c(conn);
                if j == 0 {
                    self.g.conns[c] = ConnCmpl { next_msn: msn, fatal: None, failed_ssn: None };
                }
                let ri = self.g.row_index(conn, j);
                self.g.rows[ri] = MsgRow::default();
                self.st = if j + 1 == self.g.msg_window { St::Idle } else { St::Clear { conn, msn, j: j + 1 } };
            }
        }
        out
    }
}

/// Drives a shell with `ops` (sink always ready) until idle, one op offered at a time on
/// its port (so they are taken in order); its records in order.
pub fn run_shell(sh: &mut CmplShell, ops: &[CmplOp]) -> Vec<CmplOut> {
    let mut q: VecDeque<CmplOp> = ops.iter().copied().collect();
    let mut out = Vec::new();
    let mut idle_cycles = 0;
    while idle_cycles < 3 {
        let i = CmplShellIn::with_op(false, q.front(), true);
        let o = sh.step(&i);
        if let Some(r) = o.m {
            out.push(r);
        }
        if o.taken(&i).is_some() {
            q.pop_front();
        }
        idle_cycles = if q.is_empty() && sh.idle() && o.m.is_none() { idle_cycles + 1 } else { 0 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(conn: u32, msn: u32, offset: u32, last: bool, send: bool, ok: bool) -> CmplOp {
        CmplOp::Done(WrDone { conn, msn, len: 100 + offset, offset, last, send, ssn: 40 + msn, solicited: last, ok })
    }

    #[test]
    fn messages_complete_in_order_once_each_and_only_after_every_write() {
        let mut g = Cmpl::new(4, 4).unwrap();
        g.apply(&CmplOp::Open { conn: 1, msn: 7 });
        // message 8 (SEND, 2 packets) completes first but waits for 7 (WRITE, 1 packet)
        assert!(g.apply(&done(1, 8, 1, true, true, true)).is_empty());
        assert!(g.apply(&done(1, 8, 0, false, true, true)).is_empty());
        assert_eq!(g.conn(1).next_msn, 7);
        // message 7's write: 7 completes (a WRITE: no record), then 8
        let out = g.apply(&done(1, 7, 0, true, false, true));
        assert_eq!(out, vec![CmplOut { conn: 1, msn: 8, ssn: 48, bytes: 201, solicited: true, status: CmplStatus::Success }]);
        assert_eq!((g.conn(1).next_msn, g.stats.msgs, g.stats.cmpls), (9, 2, 1));
        assert_eq!(*g.row(1, 7), MsgRow::default(), "rows cleared");
        // a message 4 ahead has no row: stray
        assert!(g.apply(&done(1, 13, 0, true, true, true)).is_empty());
        assert_eq!(g.stats.stray, 1);
    }

    #[test]
    fn a_failed_send_completes_with_an_error_in_order_and_later_messages_never() {
        let mut g = Cmpl::new(2, 4).unwrap();
        g.apply(&CmplOp::Open { conn: 0, msn: 0 });
        assert!(g.apply(&done(0, 1, 0, false, true, true)).is_empty());
        assert!(g.apply(&done(0, 1, 1, true, true, false)).is_empty(), "message 0 not complete yet");
        assert!(g.apply(&done(0, 2, 0, true, true, true)).is_empty());
        let out = g.apply(&done(0, 0, 0, true, true, true));
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].msn, out[0].status), (0, CmplStatus::Success));
        assert_eq!((out[1].msn, out[1].ssn, out[1].bytes, out[1].status), (1, 41, 100, CmplStatus::WriteError));
        assert_eq!(g.conn(0).next_msn, 1, "the failed message never completes");
        // an earlier fatal refusal replaces a later failed SEND (nothing to complete)
        let mut g = Cmpl::new(2, 4).unwrap();
        g.apply(&done(0, 2, 0, true, true, false));
        g.apply(&CmplOp::Fatal { conn: 0, msn: 1 });
        assert_eq!(*g.conn(0), ConnCmpl { next_msn: 0, fatal: Some(1), failed_ssn: None });
        assert!(g.apply(&done(0, 0, 0, true, true, true)).len() == 1);
        // a failed SEND at the head completes at once
        let out = g.apply(&done(1, 0, 0, false, true, false));
        assert_eq!(out[0].status, CmplStatus::WriteError);
        assert!(Cmpl::new(3, 4).is_err() && Cmpl::new(4, 3).is_err() && Cmpl::new(4, 512).is_err());
    }

    #[test]
    fn the_shell_gives_the_models_records_in_order_on_random_ops_and_holds_a_stalled_walk() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        for (conns, mw) in [(4u32, 4u32), (2, 1), (8, 8)] {
            let mut g = Cmpl::new(conns, mw).unwrap();
            let mut sh = CmplShell::new(conns, mw).unwrap();
            let mut ops = Vec::new();
            for c in 0..conns {
                ops.push(CmplOp::Open { conn: c, msn: rng.gen() });
            }
            let mut want = Vec::new();
            for op in &ops {
                want.extend(g.apply(op));
            }
            // per connection: the messages of the window, each the offsets not yet written
            let mut plan: Vec<std::collections::BTreeMap<u32, (Vec<u32>, u32, bool)>> = vec![Default::default(); conns as usize];
            for _ in 0..20_000 {
                let conn = rng.gen_range(0..conns);
                let base = g.conn(conn).next_msn;
                let pl = &mut plan[conn as usize];
                pl.retain(|&m, _| m.wrapping_sub(base) < mw);
                let op = match rng.gen_range(0..200) {
                    0 => CmplOp::Fatal { conn, msn: base.wrapping_add(rng.gen_range(0..mw + 1)) },
                    1 => {
                        pl.clear();
                        CmplOp::Open { conn, msn: rng.gen() }
                    }
                    2 => CmplOp::Done(WrDone { conn, msn: base.wrapping_add(mw + rng.gen_range(0..mw)), len: 1, offset: 0, last: true, send: true, ssn: 1, solicited: false, ok: true }),
                    _ => {
                        let msn = base.wrapping_add(rng.gen_range(0..mw));
                        let e = pl.entry(msn).or_insert_with(|| {
                            let n = rng.gen_range(1..4);
                            let mut offs: Vec<u32> = (0..n).collect();
                            for i in (1..offs.len()).rev() {
                                offs.swap(i, rng.gen_range(0..=i));
                            }
                            (offs, n, rng.gen())
                        });
                        match e.0.pop() {
                            None => continue,
                            Some(off) => CmplOp::Done(WrDone { conn, msn, len: rng.gen_range(0..5000), offset: off, last: off + 1 == e.1, send: e.2, ssn: msn ^ 0x5a5a, solicited: rng.gen(), ok: rng.gen_ratio(499, 500) }),
                        }
                    }
                };
                want.extend(g.apply(&op));
                ops.push(op);
            }
            let got = run_shell(&mut sh, &ops);
            assert_eq!(got, want, "conns {conns} mw {mw}");
            assert_eq!(sh.g.stats, g.stats);
            assert!(g.stats.msgs > 1000 && g.stats.cmpls > 300, "{:?}", g.stats);
        }
        // a stalled sink holds the walk; nothing is lost
        let mut sh = CmplShell::new(2, 4).unwrap();
        let ops = [done(0, 1, 0, true, true, true), done(0, 2, 0, true, true, true), done(0, 0, 0, true, true, true)];
        let mut got = Vec::new();
        let mut q: VecDeque<CmplOp> = ops.into_iter().collect();
        for t in 0..40 {
            let i = CmplShellIn::with_op(false, q.front(), t % 7 == 6);
            let o = sh.step(&i);
            if let (Some(r), true) = (o.m, i.m_ready) {
                got.push(r.msn);
            }
            if o.taken(&i).is_some() {
                q.pop_front();
            }
        }
        assert_eq!(got, vec![0, 1, 2]);
    }

    #[test]
    fn the_arbiter_takes_wr_then_fatal_then_open_and_readies_only_the_taken_port() {
        use CmplPort::*;
        // every combination of valids, idle: the grant is the first valid port in priority
        // order, and no other ready is high; none under reset, none with a record waiting
        // and m_ready low
        let mut sh = CmplShell::new(4, 4).unwrap();
        let mut all = CmplShellIn { m_ready: true, ..CmplShellIn::default() };
        for op in [done(1, 0, 0, true, true, true), CmplOp::Fatal { conn: 2, msn: 5 }, CmplOp::Open { conn: 3, msn: 9 }] {
            all.offer(&op);
        }
        for mask in 0..8u8 {
            let i = CmplShellIn { s_wr_valid: mask & 1 != 0, s_fatal_valid: mask & 2 != 0, s_open_valid: mask & 4 != 0, ..all };
            let o = sh.outputs(&i);
            let want = [(1, Wr), (2, Fatal), (4, Open)].into_iter().find(|&(b, _)| mask & b != 0).map(|x| x.1);
            assert_eq!(o.taken_port(), want, "valids {mask:03b}");
            assert_eq!((o.s_wr_ready, o.s_fatal_ready, o.s_open_ready), (want == Some(Wr), want == Some(Fatal), want == Some(Open)), "valids {mask:03b}");
            assert_eq!(sh.outputs(&CmplShellIn { rst: true, ..i }).taken_port(), None);
        }
        // all three valid from the start, each source moving on when taken: every write, then
        // every fatal refusal, then every open; none taken while the unit is busy; the records
        // are the model's for that order. The write of message 0 (conn 1) completes and its
        // record waits with m_ready low: nothing is taken until it goes.
        let wrs = [done(1, 1, 0, true, true, true), done(1, 0, 0, true, true, true), done(0, 0, 0, true, false, false)];
        let fatals = [CmplOp::Fatal { conn: 0, msn: 3 }, CmplOp::Fatal { conn: 1, msn: 2 }];
        let opens = [CmplOp::Open { conn: 2, msn: 7 }, CmplOp::Open { conn: 1, msn: 0 }];
        let mut qs: [VecDeque<CmplOp>; 3] = [wrs.into(), fatals.into(), opens.into()];
        let mut taken = Vec::new();
        let mut got = Vec::new();
        let mut held = 0;
        for t in 0..200 {
            let mut i = CmplShellIn { m_ready: !(8..20).contains(&t), ..CmplShellIn::default() };
            for q in &qs {
                if let Some(op) = q.front() {
                    i.offer(op);
                }
            }
            let busy = !sh.idle();
            let o = sh.step(&i);
            if let Some(r) = o.m.filter(|_| i.m_ready) {
                got.push(r);
            }
            match o.taken_port() {
                Some(p) => {
                    assert!(!busy, "cycle {t}: {p:?} taken while busy");
                    let k = p as usize;
                    assert_eq!(o.taken(&i), qs[k].front().copied());
                    taken.push(qs[k].pop_front().unwrap());
                }
                None => held += (o.m.is_some() && !i.m_ready && qs.iter().any(|q| !q.is_empty())) as u32,
            }
        }
        assert!(held >= 5, "a waiting record held the takes back for {held} cycles");
        let want_order: Vec<CmplOp> = wrs.iter().chain(&fatals).chain(&opens).copied().collect();
        assert_eq!(taken, want_order);
        let mut g = Cmpl::new(4, 4).unwrap();
        let want: Vec<CmplOut> = want_order.iter().flat_map(|op| g.apply(op)).collect();
        assert_eq!(want.len(), 2);
        assert_eq!((got, sh.g.stats, sh.g.conn(1).next_msn), (want, g.stats, 0));
        // the write port's op is the tag unpacked: OKAY only for bresp 0
        for resp in 0..4u8 {
            let d = WrDone { conn: 4095, msn: 0xdead_beef, len: 0xffff, offset: 0xab_cdef, last: true, send: false, ssn: 0x12_3456, solicited: true, ok: resp == 0 };
            let i = CmplShellIn { s_wr_tag: d.tag(), s_wr_bytes: d.len, s_wr_resp: resp, ..CmplShellIn::default() };
            assert_eq!(i.wr_op(), CmplOp::Done(d));
        }
        assert!(CmplShell::new(4096, 4).is_ok() && CmplShell::new(8192, 4).is_err(), "the tag's connection field is 12 bits");
    }

    #[test]
    fn on_random_sources_each_take_is_the_first_valid_port_and_the_records_are_the_models_in_take_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(12);
        let (conns, mw) = (4u32, 4u32);
        let mut sh = CmplShell::new(conns, mw).unwrap();
        let mut qs: [VecDeque<CmplOp>; 3] = Default::default();
        let mut taken = Vec::new();
        let mut got = Vec::new();
        let (mut all_three, mut fatal_waits, mut open_waits) = (0, 0, 0);
        let mut plan_msn = [0u32; 4];
        for c in 0..conns {
            qs[2].push_back(CmplOp::Open { conn: c, msn: 0 });
        }
        let mut p = [1.0f64; 4];
        for t in 0..60_000u32 {
            if t % 500 == 0 {
                p = [rng.gen_range(0.2..1.0), rng.gen_range(0.2..1.0), rng.gen_range(0.2..1.0), rng.gen_range(0.3..1.0)];
            }
            // the sources: one-packet messages in MSN order per connection (so most complete),
            // now and then a fatal refusal or an open
            if qs[0].len() < 2 {
                let c = rng.gen_range(0..conns);
                let msn = plan_msn[c as usize];
                plan_msn[c as usize] += 1;
                qs[0].push_back(CmplOp::Done(WrDone { conn: c, msn, len: rng.gen_range(0..100), offset: 0, last: true, send: rng.gen(), ssn: msn, solicited: false, ok: rng.gen_ratio(99, 100) }));
            }
            if rng.gen_ratio(1, 60) {
                qs[1].push_back(CmplOp::Fatal { conn: rng.gen_range(0..conns), msn: rng.gen() });
            }
            if rng.gen_ratio(1, 120) {
                let c = rng.gen_range(0..conns);
                plan_msn[c as usize] = rng.gen();
                qs[2].push_back(CmplOp::Open { conn: c, msn: plan_msn[c as usize] });
            }
            let mut i = CmplShellIn { m_ready: rng.gen_bool(p[3]), ..CmplShellIn::default() };
            for (k, q) in qs.iter().enumerate() {
                if let (Some(op), true) = (q.front(), rng.gen_bool(p[k])) {
                    i.offer(op);
                }
            }
            // a payload with its valid low is anything
            if !i.s_fatal_valid {
                (i.s_fatal_conn, i.s_fatal_msn) = (rng.gen(), rng.gen());
            }
            let can = sh.idle() && (sh.outputs(&i).m.is_none() || i.m_ready);
            let o = sh.step(&i);
            if let Some(r) = o.m.filter(|_| i.m_ready) {
                got.push(r);
            }
            let valids = [i.s_wr_valid, i.s_fatal_valid, i.s_open_valid];
            let first = valids.iter().position(|&v| v).filter(|_| can);
            assert_eq!(o.taken_port().map(|p| p as usize), first, "cycle {t}: valids {valids:?}, can take {can}");
            if let Some(k) = first {
                all_three += valids.iter().all(|&v| v) as u32;
                fatal_waits += (k == 0 && valids[1]) as u32;
                open_waits += (k < 2 && valids[2]) as u32;
                taken.push(qs[k].pop_front().unwrap());
            }
        }
        let mut g = Cmpl::new(conns, mw).unwrap();
        let want: Vec<CmplOut> = taken.iter().flat_map(|op| g.apply(op)).collect();
        assert_eq!(got[..], want[..got.len()], "the records differ from the model's in take order");
        assert!(want.len() - got.len() <= 1, "{} records, {} out", want.len(), got.len());
        assert!(g.stats.msgs > 3_000 && all_three > 100 && fatal_waits > 300 && open_waits > 300, "msgs {} all three {all_three} fatal waits {fatal_waits} open waits {open_waits}", g.stats.msgs);
    }

    #[test]
    fn a_done_op_survives_the_placement_tag_and_fills_its_bits() {
        use rand::{Rng, SeedableRng};
        let mut r = rand::rngs::SmallRng::seed_from_u64(95);
        let mut seen = 0u128;
        for _ in 0..10_000 {
            let d = WrDone {
                conn: r.gen_range(0..4096),
                msn: r.gen(),
                len: r.gen_range(0..65536),
                offset: r.gen_range(0..1 << 24),
                last: r.gen(),
                send: r.gen(),
                ssn: r.gen_range(0..1 << 24),
                solicited: r.gen(),
                ok: r.gen(),
            };
            let t = d.tag();
            assert!(t >> WR_TAG_BITS == 0, "{t:#x} wider than {WR_TAG_BITS} bits");
            assert_eq!(WrDone::from_tag(t, d.len, d.ok), d);
            seen |= t;
        }
        assert_eq!(seen, (1u128 << WR_TAG_BITS) - 1, "every tag bit carries a field");
    }
}
