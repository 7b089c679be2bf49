//! Cycle shell of the ACK generator (`mrnic_ackgen`, `hdl/src/ackgen.rs`): the block model
//! [`AckRow`](super::ackgen::AckRow)'s steps and the coalescing FIFO with the RTL's stages,
//! handshakes and priorities. The Verilated RTL is compared with it every cycle
//! (`verif/tests/ackgen_diff.rs`).
//!
//! **Stages.** A (the cycle an operation is taken): one of, in priority order, a pending
//! configuration write, the coalescing FIFO's head when it is due (`after_eq(now, t)`:
//! popped here), a DATA packet from `s`; its row and connection word are read. R (+1): the
//! RAMs' output registers load (read latency 2; the writes of B in this and the last cycle
//! are forwarded into them, so the word is current). B (+2): the
//! row and the connection word are updated and written; an arming pushes `(conn, path, now
//! + T)` on the FIFO unless it holds `fifo_depth` entries (counted at the start of the
//! cycle; the ACK is then sent at once); an ACK goes to C. C (+3): the two 16x16 products
//! of the rate hint (the 32x11 product). D (+4): the hint and the push into the 8-entry
//! output queue; `m` shows its head from the next cycle. **Latency** 5 (A to `m_valid`). **II** 1: one operation per cycle; a due
//! FIFO entry or a configuration write takes the cycle (`s_ready` low).
//!
//! **Handshakes.** `s_ready = !rst & room & !cfg_pend & !due`, with `room` = the output
//! queue and the operations in R, B, C and D leave a free entry (`len + r + b + c + d <= 7`), `due` =
//! the FIFO is not empty and its head is due at this cycle's `now` (a combinational path
//! from `now` to `s_ready`). `s_cfg_ready = !rst & !cfg_pend`: a write waits in a one-entry
//! register and takes the next cycle with room.
//!
//! **Reset** (`rst`): the stages, the queues, the FIFO, the pending write and the counters
//! are cleared; the rows and the connection words are data and keep their values (every row
//! is written through `s_cfg` before it is used).

use super::ackgen::{ack_flags, ce_avg_next, rate_hint_of, AckClass, AckDecision, AckFields, AckGenConfig, AckGenStats, AckRow};
use super::SEQ_MASK;
use crate::time::HwTime;
use std::collections::VecDeque;

/// A (row, connection) operation's pipeline latency: A to the cycle `m_valid` shows its ACK.
pub const ACKGEN_LATENCY: u32 = 5;
/// Entries of the output queue.
pub const OUT_DEPTH: usize = 8;

/// A configuration write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckCfg {
    /// 0: path `path` of `conn` starts over at path ISN `data` (24 bits); 1: `conn`'s rate
    /// hint base is `data` and its CE average 0.
    pub kind: u8,
    pub conn: u32,
    pub path: u8,
    pub data: u32,
}

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckShellIn {
    pub rst: bool,
    /// The NIC's 32-bit time (ns).
    pub now: u32,
    pub s_valid: bool,
    pub s: super::ackgen::AckIn,
    pub s_cfg_valid: bool,
    pub s_cfg: AckCfg,
    pub m_ready: bool,
}

/// One ACK on `m`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckShellAck {
    pub conn: u32,
    pub path: u8,
    pub fields: AckFields,
    pub rate_hint: u32,
    pub timer: bool,
}

/// One cycle's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckShellOut {
    pub s_ready: bool,
    pub s_cfg_ready: bool,
    pub m: Option<AckShellAck>,
    pub stats: AckGenStats,
    /// Entries in the coalescing FIFO (`stat_fifo_level`).
    pub fifo_level: u32,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Data(super::ackgen::AckIn, HwTime),
    Timer(u32, u8, HwTime, HwTime),
    Cfg(AckCfg),
}

/// An ACK in C, before its rate hint.
#[derive(Clone, Copy, Debug)]
struct Pending {
    ack: AckShellAck,
    hint_base: u32,
    ce_avg: u16,
}

/// The ACK generator cycle by cycle.
#[derive(Clone, Debug)]
pub struct AckShell {
    pub cfg: AckGenConfig,
    /// log2 of the rows per connection (paths rounded up to a power of two).
    path_bits: u32,
    rows: Vec<AckRow>,
    ce_avg: Vec<u16>,
    hint_base: Vec<u32>,
    fifo: VecDeque<(u32, u8, HwTime)>,
    cfg_pend: Option<AckCfg>,
    r: Option<Op>,
    b: Option<Op>,
    c: Option<Option<Pending>>,
    d: Option<Option<Pending>>,
    outq: VecDeque<AckShellAck>,
    stats: AckGenStats,
}

impl AckShell {
    pub fn new(cfg: AckGenConfig) -> Result<AckShell, String> {
        cfg.validate()?;
        let path_bits = u32::from(cfg.paths).next_power_of_two().trailing_zeros();
        let n = cfg.connections as usize;
        Ok(AckShell {
            cfg,
            path_bits,
            rows: vec![AckRow::new(0); n << path_bits],
            ce_avg: vec![0; n],
            hint_base: vec![0; n],
            fifo: VecDeque::new(),
            cfg_pend: None,
            r: None,
            b: None,
            c: None,
            d: None,
            outq: VecDeque::new(),
            stats: AckGenStats::default(),
        })
    }

    fn idx(&self, conn: u32, path: u8) -> usize {
        ((conn as usize) << self.path_bits) | usize::from(path)
    }

    fn due(&self, now: HwTime) -> bool {
        self.fifo.front().is_some_and(|e| now.after_eq(e.2))
    }

    fn room(&self) -> bool {
        self.outq.len() + usize::from(self.r.is_some()) + usize::from(self.b.is_some()) + usize::from(self.c.is_some()) + usize::from(self.d.is_some()) < OUT_DEPTH
    }

    /// The outputs of this cycle (before the clock edge).
    pub fn outputs(&self, i: &AckShellIn) -> AckShellOut {
        let now = HwTime(i.now);
        AckShellOut {
            s_ready: !i.rst && self.room() && self.cfg_pend.is_none() && !self.due(now),
            s_cfg_ready: !i.rst && self.cfg_pend.is_none(),
            m: if i.rst { None } else { self.outq.front().copied() },
            stats: self.stats,
            fifo_level: self.fifo.len() as u32,
        }
    }

    /// Stage B: the operation taken last cycle updates its row and connection word.
    fn stage_b(&mut self, op: Op) -> Option<Pending> {
        match op {
            Op::Cfg(c) => {
                let conn = c.conn % self.cfg.connections;
                if c.kind == 0 {
                    let i = self.idx(conn, c.path & ((1 << self.path_bits) - 1) as u8);
                    self.rows[i] = AckRow::new(c.data & SEQ_MASK);
                } else {
                    self.hint_base[conn as usize] = c.data;
                    self.ce_avg[conn as usize] = 0;
                }
                None
            }
            Op::Timer(conn, path, t, now) => {
                let i = self.idx(conn, path);
                if self.rows[i].ack_due != Some(t) {
                    self.stats.stale_pops += 1;
                    return None;
                }
                self.stats.acks_timer += 1;
                let fields = self.rows[i].take(0, now);
                let c = conn as usize;
                Some(Pending { ack: AckShellAck { conn, path, fields, rate_hint: 0, timer: true }, hint_base: self.hint_base[c], ce_avg: self.ce_avg[c] })
            }
            Op::Data(d, now) => {
                if d.path >= self.cfg.paths {
                    self.stats.bad_path += 1;
                    return None;
                }
                let i = self.idx(d.conn, d.path);
                let c = d.conn as usize;
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
                let send = match self.rows[i].decide(now, d.ce, d.ts, flags, class != AckClass::New, self.cfg.ack_every, self.cfg.ack_timeout) {
                    AckDecision::Send(f) => Some(f),
                    AckDecision::Arm(_) if self.fifo.len() >= self.cfg.fifo_depth as usize => {
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
                let fields = self.rows[i].take(send, now);
                Some(Pending { ack: AckShellAck { conn: d.conn, path: d.path, fields, rate_hint: 0, timer: false }, hint_base: self.hint_base[c], ce_avg: self.ce_avg[c] })
            }
        }
    }

    /// One clock cycle: returns this cycle's outputs, then advances the state.
    pub fn step(&mut self, i: &AckShellIn) -> AckShellOut {
        let out = self.outputs(i);
        if i.rst {
            self.fifo.clear();
            self.cfg_pend = None;
            self.r = None;
            self.b = None;
            self.c = None;
            self.d = None;
            self.outq.clear();
            self.stats = AckGenStats::default();
            return out;
        }
        let now = HwTime(i.now);
        // Decided from the state at the start of the cycle.
        let (room, due) = (self.room(), self.due(now));
        // The output queue: the head leaves on a transfer; C pushes.
        if out.m.is_some() && i.m_ready {
            self.outq.pop_front();
        }
        if let Some(Some(p)) = self.d.take() {
            self.outq.push_back(AckShellAck { rate_hint: rate_hint_of(p.hint_base, p.ce_avg), ..p.ack });
        }
        // C: the two 16x16 products registered.
        self.d = self.c.take();
        // B (its FIFO push sees the FIFO as it was at the start of the cycle: A pops below).
        if let Some(op) = self.b.take() {
            self.c = Some(self.stage_b(op));
        }
        // R: the RAMs' output registers load (the writes of B are forwarded into them).
        self.b = self.r.take();
        // A: a pending configuration write, the due FIFO head, or a DATA packet.
        if room {
            if let Some(c) = self.cfg_pend.take() {
                self.r = Some(Op::Cfg(c));
            } else if due {
                let (conn, path, t) = self.fifo.pop_front().expect("a due head");
                self.r = Some(Op::Timer(conn, path, t, now));
            } else if i.s_valid && out.s_ready {
                self.r = Some(Op::Data(i.s, now));
            }
        }
        if i.s_cfg_valid && out.s_cfg_ready {
            self.cfg_pend = Some(i.s_cfg);
        }
        out
    }
}
