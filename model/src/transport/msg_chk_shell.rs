//! # The message checks' cycle shell (the timing the RTL block is to have; RTL not built)
//!
//! The block model [`MsgChk`] is the function; this shell is the hardware's schedule around
//! it, as `docs/design/receiver-rtl.md` §2.8 item 8 plans it: a packet is checked before
//! the SACK engine, and it is *resolved* (recorded or not, as the engine finds it new and
//! commits it) several cycles later, while later packets are already being checked. A
//! packet is decided in **two worlds**, none / all of the unresolved packets of its
//! connection recorded, and waits when they disagree.
//!
//! **Ports** (one cycle of [`MsgShellIn`] / [`MsgShellOut`]).
//! - `s_valid`/`s_ready` with the packet (`s_*` = [`MsgPkt`]).
//! - `m_valid`/`m_ready` with `m_verdict` ([`MsgVerdict`]), in packet order.
//! - `r_valid`/`r_ready` with `r_rec`: the resolution of the oldest packet sent on `m` and
//!   not yet resolved (one per packet, in order; `r_rec` = recorded: the engine committed
//!   it as new; ignored unless its verdict was `Ok`).
//! - `o_valid`/`o_ready` with `o_conn`, `o_msn`: a connection (re)starts. Taken only when no
//!   packet is in the block (none being checked, none unresolved); the block is then busy
//!   for `msg_window` cycles (the rows cleared one per cycle). `o_valid` has priority:
//!   `s_ready` is low while it is high.
//! - status: the counters of [`MsgShellStats`].
//!
//! **Timing.** A packet taken in cycle t is read (row and connection word, block RAM with an
//! output register) and decided in cycle t + 2 (EVAL) from registered state only: the
//! rows and frontiers as written up to cycle t + 1 and the unresolved packets at the start
//! of t + 2. Decided, it joins the unresolved list at the end of t + 2 and is offered on
//! `m` from t + 3 (**latency 3**). EVAL holds its packet (and the one behind it, and
//! `s_ready` goes low) while the list is full ([`MsgChkShell::new`]'s `depth`) or the two
//! worlds disagree; the held packet is evaluated again every cycle against the rows and the
//! list as they are then. A resolution taken in cycle x writes its row and frontier at the
//! end of x. **II** 1.
//!
//! **World 1, as the hardware computes it** (a safe approximation of "all recorded"; every
//! approximation can only make a packet wait, never decide it differently):
//! - the shape: the packet is consistent with the row and, one by one, with each
//!   unresolved `Ok` packet of its message (equal kind, first PSN, SSN; offsets against a
//!   LAST's; a LAST not below any offset);
//! - the frontier could pass the packet's message only if that message is complete in world
//!   1 (the row's accepted count plus the unresolved `Ok` packets of the message reach the
//!   LAST offset + 1, the LAST from the row or one of them): then the packet waits;
//! - a packet W or more from the frontier in world 0 waits when it is less than W +
//!   msg_window ahead, and one beyond the message window (a good offset) when it is less
//!   than 2 msg_window ahead (world 1's frontier is at most msg_window further on);
//! - nothing waits when no unresolved `Ok` packet of its connection exists (the worlds are
//!   one).

use super::msg_chk::{MsgChk, MsgPkt, MsgShape, MsgVerdict};
use std::collections::VecDeque;

/// Cycles from a packet's transfer on `s` to its verdict's offer on `m`, when nothing waits.
pub const MSG_LATENCY: u32 = 3;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgShellIn {
    pub rst: bool,
    pub s_valid: bool,
    pub s: MsgPkt,
    pub m_ready: bool,
    pub r_valid: bool,
    pub r_rec: bool,
    pub o_valid: bool,
    pub o_conn: u32,
    pub o_msn: u32,
}

/// One cycle's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgShellOut {
    pub s_ready: bool,
    pub m: Option<MsgVerdict>,
    pub r_ready: bool,
    pub o_ready: bool,
}

/// The block's counters (32-bit wrapping in hardware).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgShellStats {
    /// Verdicts decided, by kind.
    pub ok: u64,
    pub far: u64,
    pub beyond: u64,
    pub invalid: u64,
    /// Cycles a packet waited in EVAL because the two worlds disagreed.
    pub waits: u64,
    /// Packets recorded (resolved with `r_rec` and an `Ok` verdict).
    pub recorded: u64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    p: MsgPkt,
    v: MsgVerdict,
    sent: bool,
}

/// The cycle shell.
#[derive(Clone, Debug)]
pub struct MsgChkShell {
    pub g: MsgChk,
    window: u32,
    depth: usize,
    /// The packet taken last cycle (reading), and the one in EVAL.
    wait: Option<MsgPkt>,
    eval: Option<MsgPkt>,
    /// Decided packets, oldest first: sent on `m` or not, not yet resolved.
    list: VecDeque<Entry>,
    /// Cycles left of an open's row clearing.
    busy: u32,
    pub stats: MsgShellStats,
}

impl MsgChkShell {
    /// `depth`: how many decided packets may be unresolved at once (the SACK engine's
    /// latency and the stages around it), 1..=64.
    pub fn new(connections: u32, msg_window: u32, window: u32, depth: usize) -> Result<MsgChkShell, String> {
        if !(1..=64).contains(&depth) {
            return Err(format!("depth = {depth} must be in 1..=64"));
        }
        Ok(MsgChkShell { g: MsgChk::new(connections, msg_window, window)?, window, depth, wait: None, eval: None, list: VecDeque::new(), busy: 0, stats: MsgShellStats::default() })
    }

    /// The decision for the packet in EVAL from the state at the start of the cycle: its
    /// verdict, or `None` (it waits: the worlds disagree).
    fn decide(&self, b: &MsgPkt) -> Option<MsgVerdict> {
        let v0 = self.g.check(b);
        let mw = self.g.msg_window();
        let k = b.msn.wrapping_sub(self.g.next_msn(b.conn));
        let same_conn: Vec<&MsgPkt> = self.list.iter().filter(|e| e.v == MsgVerdict::Ok && e.p.conn == b.conn).map(|e| &e.p).collect();
        if same_conn.is_empty() {
            return Some(v0);
        }
        // World 1's frontier is at most msg_window further on: a packet W or more ahead,
        // or beyond the message window, may be nearer there.
        if k >= self.window {
            return if u64::from(k) < u64::from(self.window) + u64::from(mw) { None } else { Some(v0) };
        }
        if k >= mw {
            return if v0 == MsgVerdict::Beyond && k < 2 * mw { None } else { Some(v0) };
        }
        let same_msg: Vec<&MsgPkt> = same_conn.into_iter().filter(|p| p.msn == b.msn).collect();
        let row = self.g.row(b.conn, b.msn);
        let count = row.accepted + same_msg.len() as u32;
        let end = row.last_offset.or(same_msg.iter().find(|p| p.last).map(|p| p.off));
        if end.is_some_and(|l| count > l) {
            return None; // the frontier might pass the packet's message in world 1
        }
        // each unresolved packet of the message as the row it alone would record
        let shape1 = same_msg.iter().all(|p| MsgShape::default().recorded(p).consistent(b));
        if v0 == MsgVerdict::Ok && !shape1 {
            return None;
        }
        Some(v0)
    }

    /// The outputs of this cycle for `i` (a function of the registers, and of `o_valid` for
    /// `s_ready`).
    pub fn outputs(&self, i: &MsgShellIn) -> MsgShellOut {
        if i.rst {
            return MsgShellOut::default();
        }
        let idle = self.wait.is_none() && self.eval.is_none() && self.list.is_empty() && self.busy == 0;
        let eval_moves = match &self.eval {
            None => true,
            Some(b) => self.list.len() < self.depth && self.decide(b).is_some(),
        };
        let s_ready = self.busy == 0 && !i.o_valid && (self.wait.is_none() || eval_moves);
        let m = self.list.iter().find(|e| !e.sent).map(|e| e.v);
        let r_ready = self.list.front().is_some_and(|e| e.sent);
        MsgShellOut { s_ready, m, r_ready, o_ready: idle }
    }

    /// One clock edge.
    pub fn step(&mut self, i: &MsgShellIn) -> MsgShellOut {
        let o = self.outputs(i);
        if i.rst {
            self.wait = None;
            self.eval = None;
            self.list.clear();
            self.busy = 0;
            self.stats = MsgShellStats::default();
            return o;
        }
        // EVAL's decision, from the state at the start of the cycle.
        let room = self.list.len() < self.depth;
        let decision = self.eval.map(|b| (b, if room { self.decide(&b) } else { None }));
        // The verdict on m, and the resolution of the oldest sent packet (its row and
        // frontier written at the end of the cycle).
        if o.m.is_some() && i.m_ready {
            self.list.iter_mut().find(|e| !e.sent).expect("m_valid").sent = true;
        }
        if i.r_valid && o.r_ready {
            let e = self.list.pop_front().expect("r_ready");
            if i.r_rec && e.v == MsgVerdict::Ok {
                self.g.record(&e.p);
                self.stats.recorded += 1;
            }
        }
        let eval_moves = match decision {
            None => true,
            Some((b, Some(v))) => {
                self.list.push_back(Entry { p: b, v, sent: false });
                match v {
                    MsgVerdict::Ok => self.stats.ok += 1,
                    MsgVerdict::FarMsn => self.stats.far += 1,
                    MsgVerdict::Beyond => self.stats.beyond += 1,
                    MsgVerdict::Invalid => self.stats.invalid += 1,
                }
                true
            }
            Some((_, None)) => {
                if room {
                    self.stats.waits += 1;
                }
                false
            }
        };
        if eval_moves {
            self.eval = self.wait.take();
        }
        if i.s_valid && o.s_ready {
            self.wait = Some(i.s);
        }
        // An open: the connection's rows cleared over msg_window cycles.
        if self.busy > 0 {
            self.busy -= 1;
        } else if i.o_valid && o.o_ready {
            self.g.open(i.o_conn, i.o_msn);
            self.busy = self.g.msg_window();
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A resolver standing in for the SACK engine: every verdict sent on `m` comes back on
    /// `r` `delay` cycles later (or later, under random stalls), recorded with probability
    /// `p_rec`.
    struct Harness {
        sh: MsgChkShell,
        func: MsgChk,
        sent: VecDeque<(u64, MsgPkt, MsgVerdict)>,
        taken: VecDeque<MsgPkt>,
        cycle: u64,
        resolved: u64,
    }

    impl Harness {
        fn new(conns: u32, mw: u32, w: u32, depth: usize) -> Harness {
            let sh = MsgChkShell::new(conns, mw, w, depth).unwrap();
            let func = MsgChk::new(conns, mw, w).unwrap();
            Harness { sh, func, sent: VecDeque::new(), taken: VecDeque::new(), cycle: 0, resolved: 0 }
        }

        /// One cycle; checks every resolved verdict against the functional model with every
        /// earlier packet resolved. Returns the outputs.
        fn cycle(&mut self, s: Option<MsgPkt>, m_ready: bool, r_go: bool, rec: bool, delay: u64, open: Option<(u32, u32)>) -> MsgShellOut {
            let r_valid = r_go && self.sent.front().is_some_and(|&(c, _, _)| self.cycle >= c + delay);
            let i = MsgShellIn { rst: false, s_valid: s.is_some(), s: s.unwrap_or_default(), m_ready, r_valid, r_rec: rec, o_valid: open.is_some(), o_conn: open.map_or(0, |o| o.0), o_msn: open.map_or(0, |o| o.1) };
            let o = self.sh.step(&i);
            if i.s_valid && o.s_ready {
                self.taken.push_back(i.s);
            }
            if let (Some(v), true) = (o.m, m_ready) {
                let p = self.taken.pop_front().expect("a verdict for a packet taken");
                self.sent.push_back((self.cycle, p, v));
            }
            if r_valid && o.r_ready {
                let (_, p, v) = self.sent.pop_front().unwrap();
                assert_eq!(v, self.func.check(&p), "cycle {}: {p:?} decided {v:?}, the function says otherwise", self.cycle);
                if rec && v == MsgVerdict::Ok {
                    self.func.record(&p);
                }
                self.resolved += 1;
            }
            if i.o_valid && o.o_ready {
                assert!(self.sent.is_empty() && self.taken.is_empty(), "an open only when the block is empty");
                self.func.open(i.o_conn, i.o_msn);
            }
            self.cycle += 1;
            o
        }
    }

    fn hostile(rng: &mut SmallRng, h: &Harness, conns: u32) -> MsgPkt {
        let conn = rng.gen_range(0..conns);
        let d = h.func.next_msn(conn);
        let msn = match rng.gen_range(0..20) {
            0 => rng.gen(),
            1 => d.wrapping_add(rng.gen_range(0..40)),
            2 => d.wrapping_sub(rng.gen_range(1..4)),
            3..=10 => d, // the head message: its completion moves the frontier
            _ => d.wrapping_add(rng.gen_range(0..6)),
        };
        let first = (msn.wrapping_mul(4) & 0xFF_FFFF).wrapping_add(u32::from(rng.gen_bool(0.05)));
        let off = if rng.gen_bool(0.01) { MAX_OFF_TEST + rng.gen_range(0..3) } else { rng.gen_range(0..4) };
        MsgPkt { conn, psn: first.wrapping_add(off) & 0xFF_FFFF, msn, off, last: rng.gen_bool(0.3), send: rng.gen_bool(0.05), ssn: rng.gen_range(0..2) }
    }

    const MAX_OFF_TEST: u32 = crate::transport::msg_chk::MAX_PKT_OFFSET;

    /// Every verdict the shell decides, however many packets of its connection are
    /// unresolved, is the functional model's verdict with every earlier packet resolved:
    /// a hostile mix on 4 connections (MSNs around, behind and far from the frontier, wrong
    /// first PSNs, kinds and SSNs, impossible offsets), random backpressure on `m`,
    /// resolutions 9 or more cycles late, 80 % recorded, opens now and then.
    #[test]
    fn every_decided_verdict_is_the_functional_models_after_every_earlier_packet_resolved() {
        for seed in 0..6 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut h = Harness::new(4, 4, 16, 12);
            for c in 0..4 {
                h.sh.g.open(c, c * 1000);
                h.func.open(c, c * 1000);
            }
            let mut pending: Option<MsgPkt> = None;
            for _ in 0..60_000 {
                if pending.is_none() && rng.gen_bool(0.9) {
                    pending = Some(hostile(&mut rng, &h, 4));
                }
                let open = rng.gen_bool(0.0005).then(|| (rng.gen_range(0..4), rng.gen()));
                let o = h.cycle(pending, rng.gen_bool(0.8), rng.gen_bool(0.9), rng.gen_bool(0.8), 9, open);
                if o.s_ready && !open.is_some() {
                    pending = None;
                }
            }
            for _ in 0..200 {
                h.cycle(None, true, true, true, 9, None);
            }
            let st = h.sh.stats;
            assert!(h.sent.is_empty() && h.taken.is_empty(), "seed {seed}: every packet resolved (no hang)");
            assert!(h.resolved > 15_000 && st.waits > 100 && st.ok > 5_000 && st.invalid > 1000 && st.far > 100 && st.beyond > 100, "seed {seed}: the mix reaches every verdict and waits: {st:?}, {} resolved", h.resolved);
        }
    }

    /// A legitimate stream never waits and runs at one packet per cycle: 4 connections,
    /// messages of 1 to 6 packets whose packets arrive in any order (multipath), a message
    /// started only after the one `msg_window` before it was recorded (the requester's
    /// window: its ACK leaves after that), every packet new and resolved 9 cycles after its
    /// verdict, `m` never stalled.
    #[test]
    fn a_legitimate_stream_never_waits_and_takes_a_packet_every_cycle() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut h = Harness::new(4, 4, 16, 12);
        // Per connection: the packets of the messages started, not yet sent (shuffled).
        let mut next_msn = [0u32; 4];
        let mut psn = [0u32; 4];
        let mut queue: Vec<Vec<MsgPkt>> = vec![vec![]; 4];
        let (mut taken, mut offered) = (0u64, 0u64);
        for _ in 0..50_000 {
            let c = rng.gen_range(0..4usize);
            if queue[c].len() < 6 && next_msn[c] < h.func.next_msn(c as u32) + 4 {
                let n = rng.gen_range(1..=6);
                let mut msg: Vec<MsgPkt> = (0..n).map(|off| MsgPkt { conn: c as u32, psn: (psn[c] + off) & 0xFF_FFFF, msn: next_msn[c], off, last: off == n - 1, send: false, ssn: 0 }).collect();
                for j in (1..msg.len()).rev() {
                    msg.swap(j, rng.gen_range(0..=j));
                }
                queue[c].extend(msg);
                next_msn[c] += 1;
                psn[c] += n;
            }
            let s = (0..4).map(|k| (c + k) % 4).find(|&k| !queue[k].is_empty()).map(|k| queue[k][0]);
            let o = h.cycle(s, true, true, true, 9, None);
            if let Some(p) = s {
                offered += 1;
                assert!(o.s_ready, "cycle {}: a legitimate packet must be taken at once", h.cycle);
                taken += 1;
                queue[p.conn as usize].remove(0);
            }
        }
        assert_eq!(h.sh.stats.waits, 0);
        assert_eq!((taken, h.sh.stats.invalid, h.sh.stats.far, h.sh.stats.beyond), (offered, 0, 0, 0));
        assert!(taken > 40_000, "{taken}");
    }

    /// Latency 3 from the take to the verdict; the list of decided, unresolved packets is
    /// bounded by `depth` (then `s_ready` falls), and frees a place per resolution; an open
    /// waits for an empty block and keeps `s_ready` low for `msg_window` cycles.
    #[test]
    fn latency_three_the_list_bounds_the_packets_and_an_open_waits_for_an_empty_block() {
        let mut h = Harness::new(2, 4, 16, 4);
        let p = |off| MsgPkt { conn: 1, psn: off, msn: 0, off, last: false, send: false, ssn: 0 };
        let o = h.cycle(Some(p(0)), true, false, false, 0, None);
        assert!(o.s_ready && o.m.is_none());
        assert!(h.cycle(None, true, false, false, 0, None).m.is_none());
        assert!(h.cycle(None, true, false, false, 0, None).m.is_none());
        assert_eq!(h.cycle(None, true, false, false, 0, None).m, Some(MsgVerdict::Ok), "offered at t + 3");
        // Three more fill the list of 4 (no resolution comes); the fifth waits in EVAL,
        // the sixth in the read stage, and the seventh is refused.
        let mut ready = vec![];
        for off in 1..=8 {
            ready.push(h.cycle(Some(p(off)), true, false, false, 0, None).s_ready);
        }
        assert_eq!(h.taken.len() + h.sent.len(), 6);
        assert!(!ready[7], "s_ready low once the list, EVAL and the read stage are full: {ready:?}");
        let o = h.cycle(None, true, false, false, 0, Some((0, 9)));
        assert!(!o.o_ready, "an open waits while packets are in the block");
        for _ in 0..20 {
            h.cycle(None, true, true, true, 0, None);
        }
        assert_eq!(h.sh.stats.ok, 6);
        let o = h.cycle(None, true, true, true, 0, Some((0, 9)));
        assert!(o.o_ready);
        let busy: Vec<bool> = (0..6).map(|_| h.cycle(Some(p(9)), true, true, true, 0, None).s_ready).collect();
        assert_eq!(busy, vec![false, false, false, false, true, true], "msg_window = 4 cycles of clearing, then a packet a cycle");
        assert_eq!(h.func.next_msn(0), 9);
    }
}
