//! Cycle shell of the ACK generator (`mrnic_ackgen`, `hdl/src/ackgen.rs`): the block model
//! [`AckRow`](super::ackgen::AckRow)'s steps and the coalescing FIFO with the RTL's stages,
//! handshakes and priorities. The Verilated RTL is compared with it every cycle
//! (`verif/tests/ackgen_diff.rs`).
//!
//! **Stages.** A (the cycle an operation is taken): one of, in priority order, a pending
//! configuration write, the coalescing FIFO's head when it is due (`after_eq(now, t)`:
//! popped here), a DATA packet from `s`. R0 (+1): its row and connection word are read (the
//! addresses from registers). R (+2): the RAMs' output registers load (read latency 2; the
//! writes of B in this and the last cycle are forwarded into them, so the word is current).
//! B (+3): the row and the connection word are updated and written; an arming pushes
//! `(conn, path, now + T)` on the FIFO unless it holds `fifo_depth` entries (counted at the
//! start of the cycle; the ACK is then sent at once); an ACK goes to C. C (+4): the two
//! 16x16 products of the rate hint (the 32x11 product). D (+5): the hint and the push into
//! the 8-entry output queue (an entry for every ACK and for every DATA packet, [`AckShellAck`]); `m` shows its head from the next cycle. **Latency** 6 (A to
//! `m_valid`). **II** 1: one operation per cycle; a due FIFO entry or a configuration write
//! takes the cycle (`s_ready` low).
//!
//! **Handshakes.** `s_ready = !rst & room & !cfg_pend & !due`, with `room` = the output
//! queue and the operations in R0, R, B, C and D leave a free entry (`len + r0 + r + b + c +
//! d <= 7`), `due` =
//! the FIFO is not empty and its head is due at this cycle's `now` (a combinational path
//! from `now` to `s_ready`). `s_cfg_ready = !rst & !cfg_pend`: a write waits in a one-entry
//! register and takes the next cycle with room.
//!
//! **Reset** (`rst`): the stages, the queues, the FIFO, the pending write and the counters
//! are cleared; the rows and the connection words are data and keep their values (every row
//! is written through `s_cfg` before it is used).

use super::ackgen::{AckGen, AckGenConfig, AckGenStats, AckIn, AckOut};
use crate::time::HwTime;
use std::collections::VecDeque;

/// Cycles from A to B (R0, R): B updates the row and pushes onto the FIFO this many cycles
/// after the operation is taken.
pub const ACKGEN_A_TO_B: u32 = 3;
/// A (row, connection) operation's pipeline latency: A to the cycle `m_valid` shows its ACK
/// (B, then C, D and the output queue's register).
pub const ACKGEN_LATENCY: u32 = ACKGEN_A_TO_B + 3;
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

/// One entry on `m`: an ACK (`ack`: the block model's ACK, its rate hint from the base and
/// CE average at B, which the RTL multiplies out in C and D), or a DATA packet that sent
/// none (`m_ack` = 0: its connection and path, every other field 0). Every DATA packet
/// leaves one entry, in the order the packets were taken, and a timer ACK leaves its entry
/// between them where its pop was taken: so the ACK join, which holds the SACK engine's
/// result for every packet, knows which packets came before each ACK
/// (`docs/design/receiver-rtl.md`, 2.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckShellAck {
    /// `m_ack`: this entry is an ACK.
    pub sent: bool,
    pub ack: AckOut,
}

impl AckShellAck {
    /// An ACK's entry.
    pub fn sent(ack: AckOut) -> AckShellAck {
        AckShellAck { sent: true, ack }
    }

    /// The entry of a DATA packet that sent no ACK.
    pub fn quiet(conn: u32, path: u8) -> AckShellAck {
        AckShellAck { sent: false, ack: AckOut { conn, path, ..AckOut::default() } }
    }
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
    Data(AckIn, HwTime),
    /// A popped FIFO entry and the `now` of its pop.
    Timer((u32, u8, HwTime), HwTime),
    Cfg(AckCfg),
}

/// The ACK generator cycle by cycle: the block model [`AckGen`] with the RTL's stages.
#[derive(Clone, Debug)]
pub struct AckShell {
    pub cfg: AckGenConfig,
    g: AckGen,
    cfg_pend: Option<AckCfg>,
    r0: Option<Op>,
    r: Option<Op>,
    b: Option<Op>,
    c: Option<Option<AckShellAck>>,
    d: Option<Option<AckShellAck>>,
    outq: VecDeque<AckShellAck>,
    /// B pushed onto the FIFO in the last cycle.
    pushed_prev: bool,
    /// Coverage of the RTL's FIFO write forwarding: pops whose next head is the entry pushed
    /// in the cycle before (the RTL writes a pushed word into its RAM one cycle late and
    /// forwards it to the head register; `docs/blocks/ackgen.md`, *Hazards*).
    pub cov_head_just_pushed: u64,
    /// Coverage of the RTL's FIFO read copies 2 and 3: pops in the cycle right after a pop.
    pub cov_pops_back_to_back: u64,
    popped_prev: bool,
    /// The counters as the status outputs show them: B's events two cycles after B (the
    /// RTL registers what to count in B and counts one cycle later).
    stats_out: AckGenStats,
}

impl AckShell {
    pub fn new(cfg: AckGenConfig) -> Result<AckShell, String> {
        Ok(AckShell { cfg, g: AckGen::new(cfg)?, cfg_pend: None, r0: None, r: None, b: None, c: None, d: None, outq: VecDeque::new(), pushed_prev: false, cov_head_just_pushed: 0, cov_pops_back_to_back: 0, popped_prev: false, stats_out: AckGenStats::default() })
    }

    /// The coalescing FIFO's length and its head's deadline, as at the start of the next cycle
    /// (for stimulus that aims at the FIFO's hazards).
    pub fn fifo_state(&self) -> (usize, Option<HwTime>) {
        (self.g.fifo_len(), self.g.fifo_head())
    }

    fn room(&self) -> bool {
        self.outq.len() + usize::from(self.r0.is_some()) + usize::from(self.r.is_some()) + usize::from(self.b.is_some()) + usize::from(self.c.is_some()) + usize::from(self.d.is_some()) < OUT_DEPTH
    }

    /// The outputs of this cycle (before the clock edge).
    pub fn outputs(&self, i: &AckShellIn) -> AckShellOut {
        let now = HwTime(i.now);
        AckShellOut {
            s_ready: !i.rst && self.room() && self.cfg_pend.is_none() && !self.g.timer_due(now),
            s_cfg_ready: !i.rst && self.cfg_pend.is_none(),
            m: if i.rst { None } else { self.outq.front().copied() },
            stats: self.stats_out,
            fifo_level: self.g.fifo_len() as u32,
        }
    }

    /// Stage B: the operation taken `ACKGEN_A_TO_B` cycles ago updates its row and connection
    /// word.
    fn stage_b(&mut self, op: Op) -> Option<AckShellAck> {
        match op {
            Op::Cfg(c) if c.kind == 0 => {
                self.g.set_path(c.conn, c.path, c.data);
                None
            }
            Op::Cfg(c) => {
                self.g.set_conn(c.conn, c.data);
                None
            }
            Op::Timer(e, now) => self.g.fire(e, now).map(AckShellAck::sent),
            Op::Data(d, now) => Some(self.g.data(now, &d).map_or(AckShellAck::quiet(d.conn, d.path), AckShellAck::sent)),
        }
    }

    /// One clock cycle: returns this cycle's outputs, then advances the state.
    pub fn step(&mut self, i: &AckShellIn) -> AckShellOut {
        let out = self.outputs(i);
        if i.rst {
            self.g.reset();
            self.cfg_pend = None;
            self.r0 = None;
            self.r = None;
            self.b = None;
            self.c = None;
            self.d = None;
            self.outq.clear();
            self.pushed_prev = false;
            self.popped_prev = false;
            self.stats_out = AckGenStats::default();
            return out;
        }
        let now = HwTime(i.now);
        let len0 = self.g.fifo_len();
        self.stats_out = self.g.stats;
        // Decided from the state at the start of the cycle.
        let (room, due) = (self.room(), self.g.timer_due(now));
        // The output queue: the head leaves on a transfer; C pushes.
        if out.m.is_some() && i.m_ready {
            self.outq.pop_front();
        }
        if let Some(Some(a)) = self.d.take() {
            self.outq.push_back(a);
        }
        // C: the two 16x16 products registered.
        self.d = self.c.take();
        // B (its FIFO push sees the FIFO as it was at the start of the cycle: A pops below).
        if let Some(op) = self.b.take() {
            self.c = Some(self.stage_b(op));
        }
        let pushed = self.g.fifo_len() > len0;
        // R: the RAMs' output registers load (the writes of B are forwarded into them).
        self.b = self.r.take();
        // R0: the RAMs are read (from the address registers).
        self.r = self.r0.take();
        // A: a pending configuration write, the due FIFO head, or a DATA packet.
        let mut popped = false;
        if room {
            if let Some(c) = self.cfg_pend.take() {
                self.r0 = Some(Op::Cfg(c));
            } else if due {
                // the head seen due at the start of the cycle (B's push goes to the back)
                let e = self.g.pop_due(now).expect("a due head");
                if self.pushed_prev && len0 == 2 {
                    self.cov_head_just_pushed += 1;
                }
                self.cov_pops_back_to_back += u64::from(self.popped_prev);
                popped = true;
                self.r0 = Some(Op::Timer(e, now));
            } else if i.s_valid && out.s_ready {
                self.r0 = Some(Op::Data(i.s, now));
            }
        }
        if i.s_cfg_valid && out.s_cfg_ready {
            self.cfg_pend = Some(i.s_cfg);
        }
        self.pushed_prev = pushed;
        self.popped_prev = popped;
        out
    }
}
