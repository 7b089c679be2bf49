//! Retransmit queue: the requester's record of every PSN in `[cum_psn, next_psn)`
//! (`docs/protocol.md` §6.1-§6.6). This is the block model of the hardware
//! retransmit queue:
//!
//! - a ring of W slots indexed by `psn mod W` (the PSN window guarantees that no two
//!   live PSNs share a slot): state, path, path PSN, send time, message and offset;
//! - a W-bit *lost* bitmap over the slots: the next retransmission is the oldest lost
//!   PSN, found from the base like the SACK engine's run detection;
//! - one FIFO per path of `(path PSN, PSN)` in transmission order: packets on one
//!   path stay in order, so per-path loss detection and the per-path timeout only
//!   ever look at a FIFO's head. Entries whose slot has moved on (acknowledged,
//!   declared lost, retransmitted elsewhere) are skipped when they reach the head.

use super::{seq_add, seq_after_eq, seq_dist};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// State of one PSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SlotState {
    /// Not in `[cum_psn, next_psn)`.
    Free,
    /// Sent, neither acknowledged nor declared lost.
    InFlight,
    /// Declared lost, waiting for retransmission.
    Lost,
    /// Acknowledged selectively (SACK bitmap) above the cumulative PSN.
    Acked,
}

/// One PSN's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub state: SlotState,
    /// Path and path PSN of the latest transmission.
    pub path: u8,
    pub path_psn: u32,
    pub sent_at: u64,
    /// Message (MSN) and packet offset in it.
    pub msn: u32,
    pub pkt_offset: u32,
    /// A lost PSN is not retransmitted before this time (RNR delay).
    pub not_before: u64,
    /// Transmissions so far.
    pub tx_count: u16,
}

const FREE: Slot = Slot {
    state: SlotState::Free,
    path: 0,
    path_psn: 0,
    sent_at: 0,
    msn: 0,
    pkt_offset: 0,
    not_before: 0,
    tx_count: 0,
};

/// What [`RetransmitQueue::ack`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acked {
    /// Not live or already acknowledged: nothing to do.
    Nothing,
    /// Was in flight on this path.
    InFlight { path: u8, sent_at: u64 },
    /// Had been declared lost (a spurious loss); last sent on this path.
    WasLost { path: u8 },
}

/// The retransmit queue of one connection.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RetransmitQueue {
    window: u32,
    /// Oldest live PSN (the requester's cumulative PSN).
    pub base: u32,
    /// Next new PSN.
    pub next: u32,
    slots: Vec<Slot>,
    lost: Vec<u64>,
    lost_count: u32,
    fifo: Vec<VecDeque<(u32, u32)>>,
}

impl RetransmitQueue {
    pub fn new(window: u32, paths: usize, isn: u32) -> Self {
        assert!(window.is_power_of_two() && window <= 256);
        Self {
            window,
            base: isn,
            next: isn,
            slots: vec![FREE; window as usize],
            lost: vec![0; (window as usize).div_ceil(64)],
            lost_count: 0,
            fifo: vec![VecDeque::new(); paths],
        }
    }

    fn idx(&self, psn: u32) -> usize {
        (psn & (self.window - 1)) as usize
    }
    /// `psn` is in `[base, next)`.
    pub fn is_live(&self, psn: u32) -> bool {
        seq_dist(psn, self.base) < seq_dist(self.next, self.base)
    }
    /// PSNs in `[base, next)`.
    pub fn outstanding(&self) -> u32 {
        seq_dist(self.next, self.base)
    }
    /// The window has room for a new PSN.
    pub fn has_room(&self) -> bool {
        self.outstanding() < self.window
    }
    pub fn slot(&self, psn: u32) -> Option<&Slot> {
        self.is_live(psn).then(|| &self.slots[self.idx(psn)])
    }
    pub fn lost_count(&self) -> u32 {
        self.lost_count
    }

    fn set_lost_bit(&mut self, i: usize, on: bool) {
        let (w, b) = (i / 64, i % 64);
        let was = self.lost[w] >> b & 1 == 1;
        if on && !was {
            self.lost[w] |= 1 << b;
            self.lost_count += 1;
        } else if !on && was {
            self.lost[w] &= !(1 << b);
            self.lost_count -= 1;
        }
    }

    /// Allocates the next PSN for packet `pkt_offset` of message `msn`.
    pub fn push_new(&mut self, msn: u32, pkt_offset: u32) -> u32 {
        assert!(self.has_room(), "retransmit queue full");
        let psn = self.next;
        let i = self.idx(psn);
        self.slots[i] = Slot { msn, pkt_offset, ..FREE };
        self.next = seq_add(psn, 1);
        psn
    }

    /// Records a transmission (first or retransmission) of `psn`.
    pub fn on_transmit(&mut self, psn: u32, path: u8, path_psn: u32, now: u64) {
        debug_assert!(self.is_live(psn));
        let i = self.idx(psn);
        self.set_lost_bit(i, false);
        let s = &mut self.slots[i];
        s.state = SlotState::InFlight;
        s.path = path;
        s.path_psn = path_psn;
        s.sent_at = now;
        s.tx_count = s.tx_count.saturating_add(1);
        self.fifo[path as usize].push_back((path_psn, psn));
    }

    /// Selective or cumulative acknowledgement of one live PSN.
    pub fn ack(&mut self, psn: u32) -> Acked {
        if !self.is_live(psn) {
            return Acked::Nothing;
        }
        let i = self.idx(psn);
        let s = self.slots[i];
        let r = match s.state {
            SlotState::InFlight => Acked::InFlight { path: s.path, sent_at: s.sent_at },
            SlotState::Lost => Acked::WasLost { path: s.path },
            // Free: allocated, never sent (cannot be acknowledged by an honest peer).
            SlotState::Acked | SlotState::Free => return Acked::Nothing,
        };
        self.set_lost_bit(i, false);
        self.slots[i].state = SlotState::Acked;
        r
    }

    /// Moves the base to `new_base` (a cumulative acknowledgement; the caller
    /// [`RetransmitQueue::ack`]s the PSNs passed over first) and frees their slots.
    pub fn advance_base(&mut self, new_base: u32) {
        debug_assert!(seq_dist(new_base, self.base) <= self.outstanding());
        while self.base != new_base {
            let i = self.idx(self.base);
            self.set_lost_bit(i, false);
            self.slots[i] = FREE;
            self.base = seq_add(self.base, 1);
        }
    }

    /// Declares an in-flight PSN lost; `not_before` delays its retransmission.
    pub fn mark_lost(&mut self, psn: u32, not_before: u64) {
        let i = self.idx(psn);
        debug_assert!(self.is_live(psn));
        self.slots[i].state = SlotState::Lost;
        self.slots[i].not_before = not_before;
        self.set_lost_bit(i, true);
    }

    /// The oldest lost PSN that may be retransmitted at `now`.
    pub fn oldest_lost(&self, now: u64) -> Option<u32> {
        if self.lost_count == 0 {
            return None;
        }
        let n = self.outstanding();
        let mut psn = self.base;
        let mut k = 0;
        while k < n {
            let i = self.idx(psn);
            let word = self.lost[i / 64] >> (i % 64);
            if word == 0 {
                // Skip to the next word boundary (or the ring's end).
                let step = (64 - i % 64) as u32;
                k += step;
                psn = seq_add(psn, step);
                continue;
            }
            let tz = word.trailing_zeros();
            k += tz;
            if k >= n {
                break;
            }
            psn = seq_add(psn, tz);
            if self.slots[self.idx(psn)].not_before <= now {
                return Some(psn);
            }
            k += 1;
            psn = seq_add(psn, 1);
        }
        None
    }

    /// Earliest `not_before` of a lost PSN still held back, if any (only the lost
    /// set's bits are visited: the requester asks after every event).
    pub fn next_release(&self, now: u64) -> Option<u64> {
        let mut t: Option<u64> = None;
        for (w, &word) in self.lost.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let s = &self.slots[w * 64 + bits.trailing_zeros() as usize];
                bits &= bits - 1;
                if s.not_before > now {
                    t = Some(t.map_or(s.not_before, |x| x.min(s.not_before)));
                }
            }
        }
        t
    }

    /// The slot of FIFO entry `(pp, psn)` of path `p`, if that transmission is still
    /// in flight (not acknowledged, declared lost or sent again since).
    fn in_flight(&self, p: usize, pp: u32, psn: u32) -> Option<&Slot> {
        let s = &self.slots[self.idx(psn)];
        (self.is_live(psn) && s.state == SlotState::InFlight && s.path as usize == p && s.path_psn == pp).then_some(s)
    }

    /// The oldest packet still in flight on path `p`: `(path PSN, PSN, sent_at)`.
    /// Pops stale FIFO entries on the way.
    pub fn oldest_on_path(&mut self, p: usize) -> Option<(u32, u32, u64)> {
        loop {
            let &(pp, psn) = self.fifo[p].front()?;
            if let Some(s) = self.in_flight(p, pp, psn) {
                return Some((pp, psn, s.sent_at));
            }
            self.fifo[p].pop_front();
        }
    }

    /// Send time of the oldest packet still in flight on path `p`, without popping.
    pub fn peek_oldest_on_path(&self, p: usize) -> Option<u64> {
        self.fifo[p].iter().find_map(|&(pp, psn)| self.in_flight(p, pp, psn).map(|s| s.sent_at))
    }

    /// Pops the head of path `p`'s FIFO (after [`RetransmitQueue::oldest_on_path`]).
    pub fn pop_path_head(&mut self, p: usize) {
        self.fifo[p].pop_front();
    }

    /// Per-path loss detection: every packet in flight on `p` with
    /// `path_psn + k <= highest` (serial) is lost. Returns them in path order.
    pub fn path_losses(&mut self, p: usize, highest: u32, k: u32, out: &mut Vec<u32>) {
        while let Some((pp, psn, _)) = self.oldest_on_path(p) {
            if !seq_after_eq(highest, seq_add(pp, k)) {
                break;
            }
            self.fifo[p].pop_front();
            out.push(psn);
        }
    }

    /// Every packet in flight on `p` (path failure), in path order.
    pub fn drain_path(&mut self, p: usize, out: &mut Vec<u32>) {
        while let Some((_, psn, _)) = self.oldest_on_path(p) {
            self.fifo[p].pop_front();
            out.push(psn);
        }
    }

    /// Iterates the live PSNs with their slots, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Slot)> + '_ {
        (0..self.outstanding()).map(move |k| {
            let psn = seq_add(self.base, k);
            (psn, &self.slots[self.idx(psn)])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::SEQ_MASK;

    #[test]
    fn slots_follow_the_window_across_the_psn_wrap() {
        let isn = SEQ_MASK - 2;
        let mut q = RetransmitQueue::new(4, 1, isn);
        let psns: Vec<u32> = (0..4).map(|k| q.push_new(0, k)).collect();
        assert_eq!(psns, vec![SEQ_MASK - 2, SEQ_MASK - 1, SEQ_MASK, 0]);
        assert!(!q.has_room());
        for (k, &psn) in psns.iter().enumerate() {
            q.on_transmit(psn, 0, k as u32, 10);
        }
        assert_eq!(q.ack(psns[0]), Acked::InFlight { path: 0, sent_at: 10 });
        assert_eq!(q.ack(psns[0]), Acked::Nothing, "a PSN is acknowledged once");
        q.advance_base(psns[1]);
        assert!(q.has_room() && !q.is_live(psns[0]));
        assert_eq!(q.push_new(1, 0), 1);
    }

    #[test]
    fn the_oldest_lost_psn_is_retransmitted_first_and_rnr_holds_are_honoured() {
        let mut q = RetransmitQueue::new(256, 1, 100);
        for k in 0..200 {
            let psn = q.push_new(0, k);
            q.on_transmit(psn, 0, k, 0);
        }
        q.mark_lost(290, 0);
        q.mark_lost(170, 500);
        q.mark_lost(230, 0);
        assert_eq!(q.oldest_lost(0), Some(230), "170 is held back until t=500");
        assert_eq!(q.next_release(0), Some(500));
        assert_eq!(q.oldest_lost(500), Some(170));
        q.on_transmit(170, 0, 999, 600);
        assert_eq!(q.ack(230), Acked::WasLost { path: 0 });
        assert_eq!(q.oldest_lost(600), Some(290));
        assert_eq!(q.lost_count(), 1);
    }

    #[test]
    fn per_path_loss_detection_looks_only_at_the_head_and_skips_stale_entries() {
        let mut q = RetransmitQueue::new(64, 2, 0);
        for k in 0..6 {
            let psn = q.push_new(0, k);
            q.on_transmit(psn, (k % 2) as u8, k / 2, 0);
        }
        // path 0 carries psn 0, 2, 4 at path PSN 0, 1, 2.
        q.ack(2);
        let mut out = vec![];
        q.path_losses(0, 4, 3, &mut out);
        assert_eq!(out, vec![0], "path PSN 0 + 3 <= 4; path PSN 1 (psn 2) was acknowledged");
        out.clear();
        q.path_losses(0, 4, 3, &mut out);
        assert!(out.is_empty());
        q.mark_lost(0, 0);
        q.on_transmit(0, 1, 3, 5);
        assert_eq!(q.oldest_on_path(1), Some((0, 1, 0)));
        q.drain_path(1, &mut out);
        assert_eq!(out, vec![1, 3, 5, 0]);
    }
}
