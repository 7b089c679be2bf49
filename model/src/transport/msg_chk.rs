//! # The message checks (the block model; the RTL block is planned, not built)
//!
//! **Purpose.** At the header decision, every new DATA packet is checked against the
//! message it claims (`docs/protocol.md` §6.11): its MSN inside the window of the
//! connection's *decision frontier*, its offset one a message can have, and its kind, first
//! PSN, SSN and offsets consistent with the packets of the message accepted before. A packet
//! the SACK engine then commits as new is *recorded*: its message's shape is written and its
//! accepted-packet count goes up, and the frontier moves over the messages whose packets
//! have all been accepted. The completion unit ([`super::cmpl`]) counts what was *written*;
//! this block counts what was *decided*, so its frontier runs ahead of the completion unit's
//! by the writes in flight and equals it in the model, whose step is atomic, while every
//! write succeeds (`docs/design/receiver-rtl.md` §2.8 item 8).
//!
//! **Operations** (the functions of the block):
//! - [`MsgChk::check`]: the verdict for a packet, changing nothing;
//! - [`MsgChk::record`]: a packet that passed and that the SACK engine committed as new;
//! - [`MsgChk::open`]: a connection (re)starts at a message, every row of it cleared.
//!
//! **State.** Per connection the frontier `d_next_msn` (32 bits) and `msg_window` rows
//! (row `MSN mod msg_window`) of the message's shape: known 1, SEND 1, first PSN 24, SSN 24,
//! LAST offset 24 + valid 1, highest offset 24, accepted packets 24 (the row's *decided
//! complete* bit is derived from the last two and can be stored beside them).
//!
//! In hardware the check comes before the SACK engine (its verdict is part of the engine's
//! `s_commit`) and the record 9 cycles later, after the engine's class; how a packet is
//! checked while earlier packets of its connection are between the two is the plan's "two
//! worlds" (receiver-rtl §2.8 item 8). The model here is the contract that plan is held to:
//! the verdict of [`MsgChk::check`] after every earlier packet was recorded or not.

use super::cmpl::OFF_MASK;
use super::seq_dist;
use serde::{Deserialize, Serialize};

/// The highest packet offset a message may have: a message is at most 2^24 - 1 packets
/// (`TransportError::TooLong`), so offsets are at most 2^24 - 2 and a row's 24-bit counts
/// and end offset are exact. A packet with a higher offset is refused (NAK InvalidRequest).
pub const MAX_PKT_OFFSET: u32 = OFF_MASK - 1;

/// What the checks need of a DATA packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgPkt {
    pub conn: u32,
    /// The packet's PSN (24 bits).
    pub psn: u32,
    pub msn: u32,
    /// The packet's offset in its message, in packets.
    pub off: u32,
    /// The message's LAST packet.
    pub last: bool,
    /// A SEND (else a WRITE).
    pub send: bool,
    /// The SEND sequence number (24 bits; compared for SENDs only).
    pub ssn: u32,
}

/// The verdict of [`MsgChk::check`], in the order the checks are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MsgVerdict {
    /// The packet may be accepted (the placement checks still apply).
    Ok,
    /// The MSN is W or more messages from the frontier: no outstanding PSN can belong to it.
    /// NAK InvalidRequest; no message fails (there is none to fail).
    FarMsn,
    /// The MSN is `msg_window` or more messages from the frontier: no row to track it.
    /// Dropped without an answer and counted (a compliant requester never sends one).
    Beyond,
    /// An offset no message can have, or inconsistent with the message's earlier packets
    /// (kind, first PSN, SSN, LAST offset, highest offset): NAK InvalidRequest, the message
    /// fails.
    Invalid,
}

/// A message's row: its shape, checked and written at the header decision, and the count of
/// its packets accepted there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgShape {
    pub known: bool,
    pub send: bool,
    pub first_psn: u32,
    pub ssn: u32,
    pub last_offset: Option<u32>,
    pub max_offset: u32,
    /// Packets accepted, mod 2^24 (exact: each accepted packet has its own offset, at most
    /// [`MAX_PKT_OFFSET`]).
    pub accepted: u32,
}

impl MsgShape {
    /// Decided complete: the LAST offset is known and every packet up to it was accepted.
    pub fn decided_complete(&self) -> bool {
        self.last_offset.is_some_and(|l| self.accepted == (l + 1) & OFF_MASK)
    }

    /// The row after `p` is recorded in it: the shape taken from `p` if the row knew none,
    /// the highest offset, the LAST offset, one more accepted packet.
    pub fn recorded(&self, p: &MsgPkt) -> MsgShape {
        let mut m = if self.known { *self } else { MsgShape { known: true, send: p.send, first_psn: seq_dist(p.psn, p.off), ssn: p.ssn, ..MsgShape::default() } };
        m.max_offset = m.max_offset.max(p.off);
        if p.last {
            m.last_offset = Some(p.off);
        }
        m.accepted = (m.accepted + 1) & OFF_MASK;
        m
    }

    /// `p` is consistent with the packets recorded in this row.
    pub fn consistent(&self, p: &MsgPkt) -> bool {
        if !self.known {
            return true;
        }
        let first = seq_dist(p.psn, p.off);
        if self.send != p.send || self.first_psn != first || (p.send && self.ssn != p.ssn) {
            return false;
        }
        if let Some(l) = self.last_offset {
            if p.off > l || (p.last && p.off != l) {
                return false;
            }
        }
        !(p.last && p.off < self.max_offset)
    }
}

/// The block model: every connection's frontier and rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MsgChk {
    window: u32,
    msg_window: u32,
    rows: Vec<MsgShape>,
    next: Vec<u32>,
}

impl MsgChk {
    /// `connections` in 1..=65536, `msg_window` a power of two in 1..=256 (so that row
    /// `MSN mod msg_window` is a ring across the 2^32 wrap) and at most `window` (the SACK
    /// window W, in 1..=2^23).
    pub fn new(connections: u32, msg_window: u32, window: u32) -> Result<MsgChk, String> {
        if connections == 0 || connections > 1 << 16 {
            return Err(format!("connections = {connections} must be in 1..=65536"));
        }
        if window == 0 || window > 1 << 23 {
            return Err(format!("window = {window} must be in 1..=2^23"));
        }
        if !msg_window.is_power_of_two() || msg_window > 256 || msg_window > window {
            return Err(format!("msg_window = {msg_window} must be a power of two in 1..=256 and at most the window {window}"));
        }
        Ok(MsgChk { window, msg_window, rows: vec![MsgShape::default(); (connections * msg_window) as usize], next: vec![0; connections as usize] })
    }

    pub fn msg_window(&self) -> u32 {
        self.msg_window
    }

    /// The decision frontier of `conn`: the first message not decided complete.
    pub fn next_msn(&self, conn: u32) -> u32 {
        self.next[conn as usize]
    }

    fn row_index(&self, conn: u32, msn: u32) -> usize {
        (conn * self.msg_window + msn % self.msg_window) as usize
    }

    /// The row of message `msn` of `conn` (meaningful inside the window).
    pub fn row(&self, conn: u32, msn: u32) -> &MsgShape {
        &self.rows[self.row_index(conn, msn)]
    }

    /// `conn` (re)starts at message `msn`: its frontier set, its rows cleared.
    pub fn open(&mut self, conn: u32, msn: u32) {
        self.next[conn as usize] = msn;
        let b = (conn * self.msg_window) as usize;
        self.rows[b..b + self.msg_window as usize].fill(MsgShape::default());
    }

    /// The verdict for `p`; changes nothing.
    pub fn check(&self, p: &MsgPkt) -> MsgVerdict {
        let k = p.msn.wrapping_sub(self.next_msn(p.conn));
        if k >= self.window {
            MsgVerdict::FarMsn
        } else if p.off > MAX_PKT_OFFSET {
            MsgVerdict::Invalid
        } else if k >= self.msg_window {
            MsgVerdict::Beyond
        } else if !self.row(p.conn, p.msn).consistent(p) {
            MsgVerdict::Invalid
        } else {
            MsgVerdict::Ok
        }
    }

    /// `p` (whose [`MsgChk::check`] was `Ok`) was committed as new: its message's shape and
    /// accepted count are written, and the frontier moves over the leading rows decided
    /// complete, each cleared for the message `msg_window` later. Returns how many messages
    /// the frontier moved over.
    pub fn record(&mut self, p: &MsgPkt) -> u32 {
        debug_assert_eq!(self.check(p), MsgVerdict::Ok, "only a packet that passed is recorded");
        let i = self.row_index(p.conn, p.msn);
        self.rows[i] = self.rows[i].recorded(p);
        let mut moved = 0;
        loop {
            let n = self.next_msn(p.conn);
            let j = self.row_index(p.conn, n);
            if !self.rows[j].decided_complete() {
                break;
            }
            self.rows[j] = MsgShape::default();
            self.next[p.conn as usize] = n.wrapping_add(1);
            moved += 1;
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(msn: u32, psn: u32, off: u32, last: bool) -> MsgPkt {
        MsgPkt { conn: 1, psn, msn, off, last, send: false, ssn: 0 }
    }

    /// The verdicts in their order: far MSN before an impossible offset before the message
    /// window before the shape; each shape rule refuses what it must.
    #[test]
    fn each_check_refuses_what_it_must_in_the_order_of_the_protocol() {
        let mut c = MsgChk::new(4, 4, 16).unwrap();
        c.open(1, 100);
        assert_eq!(c.check(&pkt(100 + 16, 0, MAX_PKT_OFFSET + 1, false)), MsgVerdict::FarMsn);
        assert_eq!(c.check(&pkt(99, 0, 0, false)), MsgVerdict::FarMsn, "behind the frontier");
        assert_eq!(c.check(&pkt(104, 0, MAX_PKT_OFFSET + 1, false)), MsgVerdict::Invalid);
        assert_eq!(c.check(&pkt(104, 0, 0, false)), MsgVerdict::Beyond);
        assert_eq!(c.check(&pkt(103, 0, MAX_PKT_OFFSET, false)), MsgVerdict::Ok);
        // Message 101: PSNs 10..=12 (offsets 0..=2), the LAST at offset 2.
        c.record(&pkt(101, 11, 1, false));
        assert_eq!(c.check(&pkt(101, 10, 0, false)), MsgVerdict::Ok);
        assert_eq!(c.check(&pkt(101, 11, 0, false)), MsgVerdict::Invalid, "another first PSN");
        assert_eq!(c.check(&MsgPkt { send: true, ..pkt(101, 10, 0, false) }), MsgVerdict::Invalid, "another kind");
        assert_eq!(c.check(&pkt(101, 10, 0, true)), MsgVerdict::Invalid, "a LAST below the highest offset");
        c.record(&pkt(101, 12, 2, true));
        assert_eq!(c.check(&pkt(101, 13, 3, false)), MsgVerdict::Invalid, "past the LAST");
        assert_eq!(c.check(&pkt(101, 11, 1, true)), MsgVerdict::Invalid, "a second LAST elsewhere");
        let mut s = MsgChk::new(4, 4, 16).unwrap();
        s.open(1, 0);
        let send = |ssn| MsgPkt { conn: 1, psn: 5, msn: 0, off: 0, last: false, send: true, ssn };
        s.record(&send(7));
        assert_eq!(s.check(&MsgPkt { psn: 6, off: 1, ..send(8) }), MsgVerdict::Invalid, "another SSN");
        assert_eq!(s.check(&MsgPkt { psn: 6, off: 1, ..send(7) }), MsgVerdict::Ok);
    }

    /// The frontier moves over the leading complete messages only (a complete message
    /// behind an incomplete one waits), their rows are cleared for the message
    /// `msg_window` later, and the window moves with it.
    #[test]
    fn the_frontier_moves_over_the_leading_complete_messages_and_frees_their_rows() {
        let mut c = MsgChk::new(2, 4, 16).unwrap();
        c.open(1, u32::MAX - 1);
        let m0 = u32::MAX - 1;
        assert_eq!(c.record(&pkt(m0.wrapping_add(1), 2, 0, true)), 0, "message 1 complete, message 0 not");
        assert_eq!(c.check(&pkt(m0.wrapping_add(4), 3, 0, true)), MsgVerdict::Beyond);
        assert_eq!(c.record(&pkt(m0, 1, 1, true)), 0, "message 0 has one of two");
        assert_eq!(c.record(&pkt(m0, 0, 0, false)), 2, "both move, across the 2^32 wrap");
        assert_eq!(c.next_msn(1), 0);
        assert_eq!(*c.row(1, m0), MsgShape::default(), "row freed");
        assert_eq!(c.check(&pkt(m0.wrapping_add(4), 3, 0, true)), MsgVerdict::Ok, "the row of message 0 serves message 4");
        assert_eq!(c.next_msn(0), 0, "the other connection untouched");
    }

    /// The hardware plan's claim (receiver-rtl §2.8 item 8, "two worlds"): a packet B
    /// checked while the packets before it are still unresolved (each will be recorded or
    /// not, as the SACK engine finds it new or not) gets the same verdict whatever is
    /// recorded when world 0 (none recorded) and world 1 (all recorded) agree. Checked by
    /// brute force: a hostile mix of packets on one connection, up to 6 unresolved ahead of
    /// each, every subset of them recorded. Also counts how often the worlds disagree (the
    /// plan's stalls) for a legitimate in-order stream: never.
    #[test]
    fn when_the_two_extreme_worlds_agree_every_world_gives_that_verdict() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(12);
        let (mut decided, mut stalls, mut checked_worlds) = (0u64, 0u64, 0u64);
        for _run in 0..40 {
            let mut mc = MsgChk::new(1, 4, 16).unwrap();
            mc.open(0, rng.gen_range(0..u32::MAX));
            let mut fly: Vec<MsgPkt> = vec![]; // decided Ok, not yet resolved
            for _ in 0..3000 {
                let d = mc.next_msn(0);
                let msn = d.wrapping_add(rng.gen_range(0..6)).wrapping_sub(rng.gen_range(0..2));
                let first = (msn.wrapping_mul(4) & 0xFF_FFFF).wrapping_add(u32::from(rng.gen_bool(0.1)));
                let off = rng.gen_range(0..4);
                let b = MsgPkt { conn: 0, psn: (first + off) & 0xFF_FFFF, msn, off, last: rng.gen_bool(0.3), send: rng.gen_bool(0.1), ssn: rng.gen_range(0..2) };
                let world = |set: u32| {
                    let mut m = mc.clone();
                    for (i, p) in fly.iter().enumerate() {
                        if set >> i & 1 == 1 {
                            assert_eq!(m.check(p), MsgVerdict::Ok, "a decided packet stays Ok in every world");
                            m.record(p);
                        }
                    }
                    m.check(&b)
                };
                let all = (1u32 << fly.len()) - 1;
                let (w0, w1) = (world(0), world(all));
                if w0 == w1 {
                    decided += 1;
                    for set in 0..=all {
                        assert_eq!(world(set), w0, "subset {set:b} of {} in flight", fly.len());
                        checked_worlds += 1;
                    }
                    if w0 == MsgVerdict::Ok {
                        fly.push(b);
                    }
                } else {
                    stalls += 1;
                }
                // Resolve the oldest in-flight packets (recorded when the engine finds them
                // new) until at most 6 remain, or all of them on a stall.
                let keep = if w0 == w1 { rng.gen_range(0..=6) } else { 0 };
                while fly.len() > keep {
                    let p = fly.remove(0);
                    if rng.gen_bool(0.8) {
                        mc.record(&p);
                    }
                }
            }
        }
        assert!(decided > 100_000 && stalls > 50, "the mix reaches both cases: {decided} decided, {stalls} stalls");
        assert!(checked_worlds > decided, "{checked_worlds}");
        // A legitimate stream: messages of 1..=5 packets in order, every packet new, six
        // unresolved ahead of each check; the requester starts message m only after
        // message m - msg_window completed (its ACK left after its last packet was
        // recorded): the worlds always agree.
        let mut mc = MsgChk::new(1, 4, 16).unwrap();
        mc.open(0, 0);
        let (mut fly, mut psn): (Vec<MsgPkt>, u32) = (vec![], 0);
        for msn in 0..2000u32 {
            while fly.first().is_some_and(|p| p.msn + 4 <= msn) {
                mc.record(&fly.remove(0));
            }
            let n = rng.gen_range(1..=5);
            for off in 0..n {
                let b = MsgPkt { conn: 0, psn: psn + off, msn, off, last: off == n - 1, send: false, ssn: 0 };
                let mut w1 = mc.clone();
                fly.iter().for_each(|p| {
                    w1.record(p);
                });
                assert_eq!((mc.check(&b), w1.check(&b)), (MsgVerdict::Ok, MsgVerdict::Ok), "message {msn} offset {off}");
                fly.push(b);
                if fly.len() > 6 {
                    mc.record(&fly.remove(0));
                }
            }
            psn += n;
        }
    }

    #[test]
    fn new_refuses_illegal_sizes_with_the_reason() {
        assert!(MsgChk::new(0, 4, 16).unwrap_err().contains("connections"));
        assert!(MsgChk::new(4, 32, 16).unwrap_err().contains("at most the window"));
        assert!(MsgChk::new(4, 0, 16).unwrap_err().contains("msg_window"));
        assert!(MsgChk::new(4, 12, 16).unwrap_err().contains("power of two"));
        assert!(MsgChk::new(4, 4, 0).unwrap_err().contains("window"));
    }
}
