//! Retransmit queue: the requester's record of every PSN in `[cum_psn, next_psn)`
//! (`docs/protocol.md` §6.1-§6.6). This is the block model of the hardware
//! retransmit queue:
//!
//! - a ring of W slots indexed by `psn mod W` (the PSN window guarantees that no two
//!   live PSNs share a slot): state, path, path PSN, send time, message and offset;
//! - a W-bit *lost* bitmap over the slots: the next retransmission is the oldest lost
//!   PSN, found from the base like the SACK engine's run detection;
//! - per path, the PSNs in flight on it in transmission order: packets on one path
//!   stay in order, so per-path loss detection and the per-path timeout only ever
//!   look at a list's head.
//!
//! The transmission-order lists share one pool of W entries per connection: the slot
//! ring itself. Each slot has a `prev` and a `next` pointer (log2 W bits each, plus a
//! nil value) and each path a head and a tail; a slot is on its path's list exactly
//! while its PSN is in flight, so it is linked at the tail when it is (re)transmitted
//! and unlinked (from anywhere in the list: that is what `prev` is for) as soon as it
//! is acknowledged, declared lost or freed.
//!
//! **The pool cannot overflow, by construction**: a list entry *is* a slot, a slot is
//! on at most one list, and the PSN window holds at most W live PSNs, so the lists hold
//! at most W entries together however packets are acknowledged, lost, retransmitted or
//! moved between paths. No free list is needed (a slot's entry is free exactly when
//! its PSN is not in flight), and no list ever holds a stale entry. The cost is the
//! same as a singly linked pool with a free list (two log2 W fields per entry: slot
//! index and next there, prev and next here); the singly linked pool with lazily
//! skipped stale entries, like the FIFOs it replaces, is *not* bounded by W: an entry
//! that became stale behind a packet still in flight stays until that packet leaves
//! the head (test `the_lists_never_hold_more_than_w_entries_where_lazy_fifos_would`).

use super::{seq_add, seq_after_eq, seq_dist};
use crate::time::HwTime;
use serde::{Deserialize, Serialize};

/// The nil pointer of the transmission-order lists.
pub const NIL: u16 = u16::MAX;

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
    /// Hardware time of the latest transmission.
    pub sent_at: HwTime,
    /// Message (MSN) and packet offset in it.
    pub msn: u32,
    pub pkt_offset: u32,
    /// A lost PSN is not retransmitted before this time (RNR delay); `None` (the
    /// valid bit clear) = no hold. Cleared by [`RetransmitQueue::release_expired`]
    /// when the hold ends, so a stale time is never compared across the wrap.
    pub not_before: Option<HwTime>,
    /// Transmissions so far.
    pub tx_count: u16,
}

const FREE: Slot = Slot {
    state: SlotState::Free,
    path: 0,
    path_psn: 0,
    sent_at: HwTime(0),
    msn: 0,
    pkt_offset: 0,
    not_before: None,
    tx_count: 0,
};

/// What [`RetransmitQueue::ack`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acked {
    /// Not live or already acknowledged: nothing to do.
    Nothing,
    /// Was in flight on this path.
    InFlight { path: u8, sent_at: HwTime },
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
    /// Transmission-order lists: per slot `prev`/`next`, per path `head`/`tail`.
    prev: Vec<u16>,
    next_ptr: Vec<u16>,
    head: Vec<u16>,
    tail: Vec<u16>,
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
            prev: vec![NIL; window as usize],
            next_ptr: vec![NIL; window as usize],
            head: vec![NIL; paths],
            tail: vec![NIL; paths],
        }
    }

    /// Appends slot `i` at the tail of path `p`'s list.
    fn link(&mut self, p: usize, i: usize) {
        let t = self.tail[p];
        self.prev[i] = t;
        self.next_ptr[i] = NIL;
        if t == NIL {
            self.head[p] = i as u16;
        } else {
            self.next_ptr[t as usize] = i as u16;
        }
        self.tail[p] = i as u16;
    }

    /// Removes slot `i` (in flight, so on its path's list) from the list.
    fn unlink(&mut self, i: usize) {
        let p = self.slots[i].path as usize;
        let (pr, nx) = (self.prev[i], self.next_ptr[i]);
        if pr == NIL {
            self.head[p] = nx;
        } else {
            self.next_ptr[pr as usize] = nx;
        }
        if nx == NIL {
            self.tail[p] = pr;
        } else {
            self.prev[nx as usize] = pr;
        }
        self.prev[i] = NIL;
        self.next_ptr[i] = NIL;
    }

    /// Entries on the lists of all paths (at most W: see the module comment).
    pub fn linked(&self) -> usize {
        (0..self.head.len()).map(|p| self.path_list(p).count()).sum()
    }

    /// The slots of path `p`'s list, head first.
    fn path_list(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        let mut i = self.head[p];
        std::iter::from_fn(move || {
            (i != NIL).then(|| {
                let k = i as usize;
                i = self.next_ptr[k];
                k
            })
        })
    }

    /// The lists are consistent: each is a well-formed doubly linked list of slots in
    /// flight on its path in increasing path PSN order, and every slot in flight is on
    /// its path's list exactly once.
    pub fn check_lists(&self) -> Result<(), String> {
        let mut seen = vec![false; self.slots.len()];
        for p in 0..self.head.len() {
            let mut prev = NIL;
            let mut last_pp: Option<u32> = None;
            for i in self.path_list(p) {
                if seen[i] {
                    return Err(format!("slot {i} twice on the lists"));
                }
                seen[i] = true;
                let s = &self.slots[i];
                if s.state != SlotState::InFlight || s.path as usize != p {
                    return Err(format!("path {p}: slot {i} is {:?} on path {}", s.state, s.path));
                }
                if self.prev[i] != prev {
                    return Err(format!("path {p}: slot {i} prev {} should be {prev}", self.prev[i]));
                }
                if last_pp.is_some_and(|q| !super::seq_after(s.path_psn, q)) {
                    return Err(format!("path {p}: path PSNs out of order at slot {i}"));
                }
                last_pp = Some(s.path_psn);
                prev = i as u16;
            }
            if self.tail[p] != prev {
                return Err(format!("path {p}: tail {} should be {prev}", self.tail[p]));
            }
        }
        for (psn, s) in self.iter() {
            if s.state == SlotState::InFlight && !seen[self.idx(psn)] {
                return Err(format!("psn {psn} in flight but on no list"));
            }
        }
        Ok(())
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
    pub fn on_transmit(&mut self, psn: u32, path: u8, path_psn: u32, now: HwTime) {
        debug_assert!(self.is_live(psn));
        let i = self.idx(psn);
        self.set_lost_bit(i, false);
        if self.slots[i].state == SlotState::InFlight {
            self.unlink(i);
        }
        let s = &mut self.slots[i];
        s.state = SlotState::InFlight;
        s.path = path;
        s.path_psn = path_psn;
        s.sent_at = now;
        s.not_before = None;
        s.tx_count = s.tx_count.saturating_add(1);
        self.link(path as usize, i);
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
        if s.state == SlotState::InFlight {
            self.unlink(i);
        }
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
            if self.slots[i].state == SlotState::InFlight {
                self.unlink(i);
            }
            self.slots[i] = FREE;
            self.base = seq_add(self.base, 1);
        }
    }

    /// Declares an in-flight PSN lost; `not_before` delays its retransmission.
    pub fn mark_lost(&mut self, psn: u32, not_before: Option<HwTime>) {
        let i = self.idx(psn);
        debug_assert!(self.is_live(psn));
        if self.slots[i].state == SlotState::InFlight {
            self.unlink(i);
        }
        self.slots[i].state = SlotState::Lost;
        self.slots[i].not_before = not_before;
        self.set_lost_bit(i, true);
    }

    /// The oldest lost PSN that may be retransmitted at `now`.
    pub fn oldest_lost(&self, now: HwTime) -> Option<u32> {
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
            if self.slots[self.idx(psn)].not_before.is_none_or(|t| now.after_eq(t)) {
                return Some(psn);
            }
            k += 1;
            psn = seq_add(psn, 1);
        }
        None
    }

    /// Earliest `not_before` of a lost PSN still held back, if any (only the lost
    /// set's bits are visited: the requester asks after every event).
    pub fn next_release(&self, now: HwTime) -> Option<HwTime> {
        let mut t: Option<HwTime> = None;
        for (w, &word) in self.lost.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let s = &self.slots[w * 64 + bits.trailing_zeros() as usize];
                bits &= bits - 1;
                if let Some(nb) = s.not_before.filter(|&nb| nb.after(now)) {
                    t = crate::time::earliest(t, Some(nb));
                }
            }
        }
        t
    }

    /// Clears the holds that have ended at `now` (the RNR hold timer's expiry: the
    /// requester calls it from its timer, which [`RetransmitQueue::next_release`]
    /// schedules).
    pub fn release_expired(&mut self, now: HwTime) {
        for w in 0..self.lost.len() {
            let mut bits = self.lost[w];
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.slots[i].not_before.is_some_and(|t| now.after_eq(t)) {
                    self.slots[i].not_before = None;
                }
            }
        }
    }

    /// The oldest packet in flight on path `p` (its list's head): `(path PSN, PSN,
    /// sent_at)`.
    pub fn oldest_on_path(&self, p: usize) -> Option<(u32, u32, HwTime)> {
        let h = self.head[p];
        (h != NIL).then(|| {
            let s = &self.slots[h as usize];
            (s.path_psn, self.psn_of(h as usize), s.sent_at)
        })
    }

    /// Send time of the oldest packet in flight on path `p`.
    pub fn peek_oldest_on_path(&self, p: usize) -> Option<HwTime> {
        self.oldest_on_path(p).map(|(_, _, t)| t)
    }

    /// The live PSN whose slot is `i`.
    fn psn_of(&self, i: usize) -> u32 {
        seq_add(self.base, (i as u32).wrapping_sub(self.base) & (self.window - 1))
    }

    /// Per-path loss detection: every packet in flight on `p` with `path_psn + k <=
    /// highest` (serial), from the head of its list, in path order. The caller
    /// declares them lost ([`RetransmitQueue::mark_lost`] unlinks them).
    pub fn path_losses(&self, p: usize, highest: u32, k: u32, out: &mut Vec<u32>) {
        for i in self.path_list(p) {
            if !seq_after_eq(highest, seq_add(self.slots[i].path_psn, k)) {
                break;
            }
            out.push(self.psn_of(i));
        }
    }

    /// Every packet in flight on `p` (path failure), in path order.
    pub fn drain_path(&self, p: usize, out: &mut Vec<u32>) {
        out.extend(self.path_list(p).map(|i| self.psn_of(i)));
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
    const T: fn(u32) -> HwTime = HwTime;

    #[test]
    fn slots_follow_the_window_across_the_psn_wrap() {
        let isn = SEQ_MASK - 2;
        let mut q = RetransmitQueue::new(4, 1, isn);
        let psns: Vec<u32> = (0..4).map(|k| q.push_new(0, k)).collect();
        assert_eq!(psns, vec![SEQ_MASK - 2, SEQ_MASK - 1, SEQ_MASK, 0]);
        assert!(!q.has_room());
        for (k, &psn) in psns.iter().enumerate() {
            q.on_transmit(psn, 0, k as u32, T(10));
        }
        assert_eq!(q.ack(psns[0]), Acked::InFlight { path: 0, sent_at: T(10) });
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
            q.on_transmit(psn, 0, k, T(0));
        }
        q.mark_lost(290, None);
        q.mark_lost(170, Some(T(500)));
        q.mark_lost(230, None);
        assert_eq!(q.oldest_lost(T(0)), Some(230), "170 is held back until t=500");
        assert_eq!(q.next_release(T(0)), Some(T(500)));
        assert_eq!(q.oldest_lost(T(500)), Some(170));
        q.on_transmit(170, 0, 999, T(600));
        assert_eq!(q.ack(230), Acked::WasLost { path: 0 });
        assert_eq!(q.oldest_lost(T(600)), Some(290));
        assert_eq!(q.lost_count(), 1);
    }

    #[test]
    fn per_path_loss_detection_looks_only_at_the_head_and_skips_stale_entries() {
        let mut q = RetransmitQueue::new(64, 2, 0);
        for k in 0..6 {
            let psn = q.push_new(0, k);
            q.on_transmit(psn, (k % 2) as u8, k / 2, T(0));
        }
        // path 0 carries psn 0, 2, 4 at path PSN 0, 1, 2.
        q.ack(2);
        let mut out = vec![];
        q.path_losses(0, 4, 3, &mut out);
        assert_eq!(out, vec![0], "path PSN 0 + 3 <= 4; path PSN 1 (psn 2) was acknowledged and unlinked");
        q.mark_lost(0, None);
        out.clear();
        q.path_losses(0, 4, 3, &mut out);
        assert!(out.is_empty());
        assert_eq!(q.oldest_on_path(0), Some((2, 4, T(0))));
        q.on_transmit(0, 1, 3, T(5));
        q.check_lists().unwrap();
        assert_eq!(q.oldest_on_path(1), Some((0, 1, T(0))));
        q.drain_path(1, &mut out);
        assert_eq!(out, vec![1, 3, 5, 0]);
    }

    /// The worst case for the shared pool: the whole window in flight on one path,
    /// the packets behind its head acknowledged or declared lost and retransmitted on
    /// other paths, over and over, while the head stays in flight (its ACKs lost), and
    /// the window refilled as the base moves. The lists never hold more than W entries
    /// (they hold exactly the PSNs in flight); lazily cleaned FIFOs, which keep an
    /// entry per transmission until it reaches its FIFO's head, would exceed W.
    #[test]
    fn the_lists_never_hold_more_than_w_entries_where_lazy_fifos_would() {
        const W: u32 = 64;
        let mut q = RetransmitQueue::new(W, 4, 0);
        let mut pp = [0u32; 4];
        // Lazy FIFOs: per path, (path PSN, PSN) per transmission, popped only at the head.
        let mut fifo: Vec<std::collections::VecDeque<(u32, u32)>> = vec![Default::default(); 4];
        let mut lazy_max = 0;
        let mut send = |q: &mut RetransmitQueue, fifo: &mut Vec<std::collections::VecDeque<(u32, u32)>>, psn: u32, p: usize| {
            q.on_transmit(psn, p as u8, pp[p], T(0));
            fifo[p].push_back((pp[p], psn));
            pp[p] += 1;
        };
        let mut rng = 3u64;
        for round in 0..200u32 {
            // Fill the window; new PSNs go to path 0 first, then spread.
            while q.has_room() {
                let psn = q.push_new(0, 0);
                send(&mut q, &mut fifo, psn, if round == 0 { 0 } else { (psn % 4) as usize });
            }
            // Behind the base (kept in flight on path 0): acknowledge some, lose and
            // retransmit the others elsewhere.
            let live: Vec<u32> = q.iter().map(|(p, _)| p).skip(1).collect();
            for psn in live {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                match rng >> 62 {
                    0 | 1 => {
                        q.ack(psn);
                    }
                    2 if q.slot(psn).unwrap().state == SlotState::InFlight => {
                        q.mark_lost(psn, None);
                        send(&mut q, &mut fifo, psn, 1 + (rng >> 40) as usize % 3);
                    }
                    _ => {}
                }
            }
            // The acknowledged run after the base's successor slides the window by
            // acknowledging everything but the base, then moving the base by one
            // every few rounds (the head of path 0 is finally acknowledged).
            if round % 4 == 3 {
                let b = q.base;
                q.ack(b);
                let mut nb = seq_add(b, 1);
                while q.is_live(nb) && q.slot(nb).unwrap().state == SlotState::Acked {
                    nb = seq_add(nb, 1);
                }
                q.advance_base(nb);
            }
            // Lazy FIFOs drop stale entries only at their heads.
            for (p, f) in fifo.iter_mut().enumerate() {
                while let Some(&(x, psn)) = f.front() {
                    let s = q.slot(psn);
                    if s.is_some_and(|s| s.state == SlotState::InFlight && s.path as usize == p && s.path_psn == x) {
                        break;
                    }
                    f.pop_front();
                }
            }
            lazy_max = lazy_max.max(fifo.iter().map(|f| f.len()).sum::<usize>());
            q.check_lists().unwrap();
            let in_flight = q.iter().filter(|(_, s)| s.state == SlotState::InFlight).count();
            assert_eq!(q.linked(), in_flight, "round {round}: the lists hold exactly the PSNs in flight");
            assert!(q.linked() <= W as usize);
        }
        assert!(lazy_max > W as usize, "lazy FIFOs would have held {lazy_max} entries (W = {W})");
    }
}
