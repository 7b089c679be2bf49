//! The ACK join of the receive path (issue 12; `docs/design/receiver-rtl.md` 2.7): the block
//! model and the cycle shell of `mrnic_ackjoin`, which puts the SACK engine's cumulative PSN
//! and bitmap into the ACKs the ACK generator decides, so that every ACK carries what the
//! model's responder puts in it (`Responder::send_ack`: `sack.base`, `sack.bitmap` at the
//! moment the ACK is sent).
//!
//! **What it pairs.** The SACK engine's result for every DATA packet (`s_sack`: connection,
//! base after the packet, bitmap relative to that base) goes to this block and, with the
//! packet's class, to the ACK generator. The generator leaves one entry per packet, in the
//! order it took them, and puts each timer ACK between them where its FIFO pop was taken
//! ([`super::ackgen_shell::AckShellAck`]). So:
//! - a packet's entry (`timer` = 0) takes the oldest waiting SACK result: the connection's
//!   state after that packet. The block keeps it as the connection's latest state and, when
//!   the entry is an ACK, the ACK carries it: the responder's state right after the packet
//!   that sent it;
//! - a timer ACK (`timer` = 1) carries the connection's latest state: the state after the
//!   packets taken before its pop, which is what the responder reads when its timer fires.
//!
//! **State.** Per connection the latest `(base, bitmap)`, 24 + W bits (block RAM, zero at
//! power-up; a timer ACK needs a packet of its connection before it, which armed it). A FIFO
//! of [`SACK_FIFO_DEPTH`] SACK results waiting for their entries: the generator holds at most
//! 8 packets between its input and its output (`ackgen_shell::OUT_DEPTH`), so results
//! forked to both never wait on this FIFO in the receive path.
//!
//! **Consistency check.** A packet's entry and the SACK result it takes should name the
//! same connection; when they do not (a wiring or ordering fault upstream) the result is
//! used anyway and `stat_misaligned` counts it.
//!
//! **Timing** ([`ACKJOIN_LATENCY`] 2). Stage A registers the taken entry (and its SACK
//! result); the state RAM is read at the take (write-first: a write made by the entry in A
//! in the same cycle is seen) and written from A. The output register `m` loads from A. **II**
//! 1. `s_sack_ready` = `!rst` and the FIFO not full (at the start of the cycle);
//! `s_gen_ready` = `!rst`, A can move (empty, a packet without ACK, or `m` empty or taken) and
//! (the FIFO not empty or the entry is a timer ACK): combinational from `m_ready` and
//! `s_gen_timer`.
//!
//! **Counters** (`stat_*`, 32-bit wrapping, counted at the take, shown from the next cycle):
//! `acks` (ACKs joined), `timer_acks`, `quiet` (packets that sent no ACK), `misaligned`.
//!
//! **Reset** (`rst`, synchronous): A, `m`, the FIFO and the counters empty; the state RAM
//! keeps its contents.

use super::ackgen::AckOut;
use super::ackgen_shell::AckShellAck;
use crate::sack::Bitmap;
use std::collections::VecDeque;

/// Cycles from an entry's transfer on `s_gen` to its ACK's offer on `m`.
pub const ACKJOIN_LATENCY: u32 = 2;
/// SACK results the block holds waiting for their packets' entries.
pub const SACK_FIFO_DEPTH: usize = 8;

/// The SACK engine's result for one DATA packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackIn {
    pub conn: u32,
    /// The cumulative PSN after the packet (24 bits).
    pub base: u32,
    /// Bit i: PSN `base + i` received (W bits).
    pub bitmap: Bitmap,
}

/// One ACK with the SACK engine's part: everything an ACK frame carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckRecord {
    pub ack: AckOut,
    /// The BTH PSN: the cumulative PSN.
    pub base: u32,
    pub bitmap: Bitmap,
}

/// Counters (`stat_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    pub acks: u64,
    pub timer_acks: u64,
    pub quiet: u64,
    pub misaligned: u64,
}

/// The block model: the latest SACK state of every connection.
#[derive(Clone, Debug)]
pub struct AckJoin {
    last: Vec<(u32, Bitmap)>,
    pub stats: JoinStats,
}

impl AckJoin {
    /// `connections`: a power of two, 2..=65536.
    pub fn new(connections: u32) -> Result<AckJoin, String> {
        if !connections.is_power_of_two() || !(2..=1 << 16).contains(&connections) {
            return Err(format!("connections = {connections} must be a power of two in 2..=65536"));
        }
        Ok(AckJoin { last: vec![(0, Bitmap::default()); connections as usize], stats: JoinStats::default() })
    }

    fn row(&self, conn: u32) -> usize {
        conn as usize & (self.last.len() - 1)
    }

    /// A packet's entry `e` with its SACK result `s`: `s` becomes the latest state of its
    /// connection; the ACK, if the packet sent one, carries it.
    pub fn packet(&mut self, e: &AckShellAck, s: &SackIn) -> Option<AckRecord> {
        if self.row(e.ack.conn) != self.row(s.conn) {
            self.stats.misaligned += 1;
        }
        let r = self.row(s.conn);
        self.last[r] = (s.base, s.bitmap);
        if e.sent {
            self.stats.acks += 1;
            Some(AckRecord { ack: e.ack, base: s.base, bitmap: s.bitmap })
        } else {
            self.stats.quiet += 1;
            None
        }
    }

    /// A timer entry: the ACK carries its connection's latest state.
    pub fn timer(&mut self, e: &AckShellAck) -> Option<AckRecord> {
        if !e.sent {
            return None;
        }
        let (base, bitmap) = self.last[self.row(e.ack.conn)];
        self.stats.acks += 1;
        self.stats.timer_acks += 1;
        Some(AckRecord { ack: e.ack, base, bitmap })
    }
}

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinShellIn {
    pub rst: bool,
    pub s_sack_valid: bool,
    pub s_sack: SackIn,
    pub s_gen_valid: bool,
    pub s_gen: AckShellAck,
    pub m_ready: bool,
}

/// One cycle's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinShellOut {
    pub s_sack_ready: bool,
    pub s_gen_ready: bool,
    pub m: Option<AckRecord>,
    pub stats: JoinStats,
    /// SACK results waiting (at the start of the cycle).
    pub fifo_level: usize,
}

/// The ACK join cycle by cycle: [`AckJoin`] with the RTL's stage, FIFO and handshakes.
#[derive(Clone, Debug)]
pub struct AckJoinShell {
    g: AckJoin,
    fifo: VecDeque<SackIn>,
    /// Stage A: the entry taken in the last cycle (`Some(None)`: one with no ACK).
    a: Option<Option<AckRecord>>,
    m: Option<AckRecord>,
}

impl AckJoinShell {
    pub fn new(connections: u32) -> Result<AckJoinShell, String> {
        Ok(AckJoinShell { g: AckJoin::new(connections)?, fifo: VecDeque::new(), a: None, m: None })
    }

    fn a_moves(&self, m_ready: bool) -> bool {
        match self.a {
            Some(Some(_)) => self.m.is_none() || m_ready,
            _ => true,
        }
    }

    /// The outputs of this cycle (before the clock edge).
    pub fn outputs(&self, i: &JoinShellIn) -> JoinShellOut {
        JoinShellOut {
            s_sack_ready: !i.rst && self.fifo.len() < SACK_FIFO_DEPTH,
            s_gen_ready: !i.rst && self.a_moves(i.m_ready) && (!self.fifo.is_empty() || i.s_gen.ack.timer),
            m: if i.rst { None } else { self.m },
            stats: self.g.stats,
            fifo_level: self.fifo.len(),
        }
    }

    /// One clock cycle: returns this cycle's outputs, then advances the state.
    pub fn step(&mut self, i: &JoinShellIn) -> JoinShellOut {
        let out = self.outputs(i);
        if i.rst {
            self.fifo.clear();
            self.a = None;
            self.m = None;
            self.g.stats = JoinStats::default();
            return out;
        }
        let moves = self.a_moves(i.m_ready);
        if self.m.is_some() && i.m_ready {
            self.m = None;
        }
        if moves {
            if let Some(Some(r)) = self.a.take() {
                self.m = Some(r);
            }
            self.a = None;
        }
        if i.s_gen_valid && out.s_gen_ready {
            let e = i.s_gen;
            self.a = Some(if e.ack.timer {
                self.g.timer(&e)
            } else {
                let s = self.fifo.pop_front().expect("s_gen_ready: a result waits");
                self.g.packet(&e, &s)
            });
        }
        if i.s_sack_valid && out.s_sack_ready {
            self.fifo.push_back(i.s_sack);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bm(x: u64) -> Bitmap {
        Bitmap([x, 0, 0, x << 1])
    }

    fn pkt(conn: u32, sent: bool) -> AckShellAck {
        if sent {
            AckShellAck::sent(AckOut { conn, path: 1, ..AckOut::default() })
        } else {
            AckShellAck::quiet(conn, 1)
        }
    }

    fn tmr(conn: u32) -> AckShellAck {
        AckShellAck::sent(AckOut { conn, path: 2, timer: true, ..AckOut::default() })
    }

    #[test]
    fn a_packets_ack_carries_its_own_result_and_a_timer_ack_the_latest_of_its_connection() {
        let mut g = AckJoin::new(4).unwrap();
        assert_eq!(g.packet(&pkt(1, false), &SackIn { conn: 1, base: 10, bitmap: bm(4) }), None);
        let r = g.packet(&pkt(1, true), &SackIn { conn: 1, base: 11, bitmap: bm(2) }).unwrap();
        assert_eq!((r.base, r.bitmap, r.ack.conn), (11, bm(2), 1));
        assert_eq!(g.packet(&pkt(2, false), &SackIn { conn: 2, base: 70, bitmap: bm(8) }), None);
        assert_eq!(g.packet(&pkt(1, false), &SackIn { conn: 1, base: 12, bitmap: bm(0) }), None);
        let t = g.timer(&tmr(1)).unwrap();
        assert_eq!((t.base, t.bitmap, t.ack.timer), (12, bm(0), true));
        let t = g.timer(&tmr(2)).unwrap();
        assert_eq!((t.base, t.bitmap), (70, bm(8)));
        assert_eq!(g.stats, JoinStats { acks: 3, timer_acks: 2, quiet: 3, misaligned: 0 });
        // a result of another connection is used and counted
        g.packet(&pkt(3, false), &SackIn { conn: 0, base: 5, bitmap: bm(1) });
        assert_eq!(g.stats.misaligned, 1);
        assert_eq!(g.timer(&tmr(0)).unwrap().base, 5);
        assert!(AckJoin::new(3).is_err() && AckJoin::new(1).is_err());
    }

    #[test]
    fn the_shell_waits_for_results_holds_on_a_stalled_sink_and_passes_one_entry_per_cycle() {
        let mut sh = AckJoinShell::new(4).unwrap();
        let idle = JoinShellIn { m_ready: true, ..JoinShellIn::default() };
        // a packet's entry with no result waiting is not taken; a timer entry is
        let o = sh.step(&JoinShellIn { s_gen_valid: true, s_gen: pkt(1, true), ..idle });
        assert!(!o.s_gen_ready && o.s_sack_ready);
        // a result pushed in cycle t is usable from t + 1
        let o = sh.step(&JoinShellIn { s_sack_valid: true, s_sack: SackIn { conn: 1, base: 3, bitmap: bm(1) }, s_gen_valid: true, s_gen: pkt(1, true), ..idle });
        assert!(!o.s_gen_ready);
        let o = sh.step(&JoinShellIn { s_gen_valid: true, s_gen: pkt(1, true), ..idle });
        assert!(o.s_gen_ready && o.m.is_none());
        // latency 2: taken in t, in A in t + 1, offered in t + 2
        let o = sh.step(&JoinShellIn { s_gen_valid: true, s_gen: tmr(1), ..idle });
        assert!(o.s_gen_ready && o.m.is_none());
        let o = sh.step(&idle);
        assert_eq!(o.m.map(|r| (r.base, r.ack.timer)), Some((3, false)));
        // the sink stalls: the timer ACK waits in m, nothing more is taken into A behind a full m
        let stall = JoinShellIn { m_ready: false, ..idle };
        let o = sh.step(&stall);
        assert_eq!(o.m.map(|r| (r.base, r.ack.timer)), Some((3, true)));
        let o = sh.step(&JoinShellIn { s_gen_valid: true, s_gen: tmr(1), ..stall });
        assert!(o.s_gen_ready, "A is empty: it can take");
        let o = sh.step(&JoinShellIn { s_gen_valid: true, s_gen: tmr(1), ..stall });
        assert!(!o.s_gen_ready, "A holds an ACK and m is full");
        let o = sh.step(&idle);
        assert!(o.m.is_some());
        let o = sh.step(&idle);
        assert!(o.m.is_some());
        let o = sh.step(&idle);
        assert!(o.m.is_none());
        assert_eq!(sh.g.stats, JoinStats { acks: 3, timer_acks: 2, quiet: 0, misaligned: 0 });
        // the FIFO fills to its depth and refuses more
        for k in 0..SACK_FIFO_DEPTH as u32 + 2 {
            let o = sh.step(&JoinShellIn { s_sack_valid: true, s_sack: SackIn { conn: 2, base: k, bitmap: bm(0) }, ..idle });
            assert_eq!(o.s_sack_ready, (k as usize) < SACK_FIFO_DEPTH);
        }
        // reset empties it
        sh.step(&JoinShellIn { rst: true, ..idle });
        assert_eq!(sh.outputs(&idle).fifo_level, 0);
    }
}
