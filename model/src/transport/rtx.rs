//! Retransmit queue: the requester's record of every PSN in `[cum_psn, next_psn)`
//! (`docs/protocol.md` §6.1-§6.6). This is the block model of the hardware
//! retransmit queue, and it stores exactly what the hardware stores:
//!
//! **Per PSN** (W entries per connection, indexed `psn mod W`; the PSN window
//! guarantees that no two live PSNs share an entry), `2 + 1 + log2 R` bits:
//!
//! | field | bits | |
//! |---|---|---|
//! | `state` | 2 | Free (allocated, not sent) / InFlight / Lost / Acked |
//! | `retx` | 1 | transmitted before: a later transmission is a retransmission (MPETH RETX, BTH AckReq) |
//! | `ptr` | log2 R | InFlight or Lost: the index of its transmission record (a Lost PSN keeps the record of its last transmission: its `path` is the path it was lost on, which the retransmission avoids and a spurious loss credits); otherwise unused |
//!
//! **Per transmission record** (R = `tx_records()` = `min(tx_pool, W)` per
//! connection), `log2 W + log2 P + 24 + 32 + 1 + 2·log2 R` bits: one PSN in flight or
//! lost, with its last transmission.
//!
//! | field | bits | |
//! |---|---|---|
//! | `psn_off` | log2 W | its PSN's offset in the window (`psn mod W`; the PSN is recovered from the base) |
//! | `path` | log2 P | the path it was sent on |
//! | `path_psn` | 24 | its path PSN (per-path loss detection) |
//! | `sent_at` | 32 | hardware time of the transmission (head timer) |
//! | `lost` | 1 | its PSN is Lost: the record is on no path list (the hardware's per-record lost mask) |
//! | `prev`, `next` | log2 R each | the per-path transmission-order list (doubly linked, records in flight only); `next` also links the free list |
//!
//! **Per path** (P per connection): `head`, `tail` (log2 R each) and a valid bit (the
//! list is not empty): `2·log2 R + 1` bits. The list ends are known from `head` and
//! `tail`, so the links need no nil value.
//!
//! **Per connection**: `base` (= cum PSN, 24), `next` (next PSN, 24), the lost bitmap
//! (W bits: state == Lost, kept as one register row so the oldest lost PSN is found
//! from the base like the SACK engine's run detection), `lost_count` (log2 W + 1), the
//! free list's head (log2 R) and length (log2 R + 1).
//!
//! Nothing else is stored per PSN: the message and the packet offset of a PSN are
//! derived from the requester's message table (at most `msg_window` rows, each with its
//! first PSN and packet count: [`super::requester`]'s `msg_of`), and the RNR hold is per
//! message (an RNR NAK is for a SEND message: the message's lost PSNs wait, §3.2).
//!
//! **Transmission records.** A record is taken from the connection's free list when a
//! new PSN is first transmitted and returned when the PSN is acknowledged, or abandoned
//! (fatal NAK, cumulative acknowledgement). A PSN declared lost (per-path loss, RTO,
//! head timer, RNR NAK, drain on a path failure) **keeps its record** (issue 11, M1):
//! the record leaves its path's list and gets its `lost` flag, and the retransmission
//! reuses it (new path, path PSN and send time, back on a list). So a retransmission
//! never needs a free record, and R bounds the PSNs in flight **or lost** per
//! connection: the requester sends no new PSN while no record is free
//! (`TxStats::blocked_tx_pool`); an RNR-held lost PSN pins its record while it waits.
//! With R = W (the default `tx_pool = 256`) that never binds beyond the PSN window:
//! every record is held by a live PSN and a new PSN is not live yet. For `core` (W =
//! 256, `tx_pool = 16`) this cuts the per-connection state from W × (65 + 16) bits to
//! W × 7 + 16 × 76.
//!
//! **The per-path lists cannot overflow, by construction**: a list entry *is* a
//! record, a record is on exactly one list (a path's or the free list), and there are R
//! of them. No list ever holds a stale entry: a record leaves its path's list (from
//! anywhere in it: that is what `prev` is for) as soon as its transmission is
//! acknowledged, declared lost or freed; a lost record is on no list (and not free)
//! until it is retransmitted, acknowledged or freed. The singly linked pool with lazily skipped
//! stale entries, like the FIFOs it replaced, is *not* bounded: an entry that became
//! stale behind a packet still in flight stays until that packet leaves the head (test
//! `the_lists_never_hold_more_than_the_records_where_lazy_fifos_would`).
//! [`RetransmitQueue::check_lists`] checks all of it.

use super::{seq_add, seq_after_eq, seq_dist};
use crate::sack::Bitmap;
use crate::time::HwTime;
use serde::{Deserialize, Serialize};

/// State of one PSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SlotState {
    /// Not in `[cum_psn, next_psn)`, or allocated and not yet sent.
    Free,
    /// Sent, neither acknowledged nor declared lost: it holds a transmission record on
    /// its path's list.
    InFlight,
    /// Declared lost, waiting for retransmission: it keeps the record of its last
    /// transmission (lost flag set, on no list).
    Lost,
    /// Acknowledged selectively (SACK bitmap) above the cumulative PSN.
    Acked,
}

/// One PSN's entry: everything the hardware keeps per PSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub state: SlotState,
    /// Transmitted before: the next transmission is a retransmission.
    pub retx: bool,
    /// InFlight, Lost: index of its transmission record (for Lost, the record of its
    /// last transmission: its path is the one it was lost on). Free, Acked: unused (0).
    ptr: u8,
}

const FREE: Slot = Slot { state: SlotState::Free, retx: false, ptr: 0 };

/// One PSN in flight or lost: its last transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxRecord {
    /// `psn mod W`.
    pub psn_off: u8,
    pub path: u8,
    pub path_psn: u32,
    pub sent_at: HwTime,
    /// The PSN is Lost: the record is on no path list.
    pub lost: bool,
    prev: u8,
    next: u8,
}

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
    /// The transmission records.
    recs: Vec<TxRecord>,
    /// Per path: first and last record of its list (`None`: the valid bit clear).
    head: Vec<Option<u8>>,
    tail: Vec<Option<u8>>,
    /// The free list (singly linked through `next`): its first record and length.
    free_head: u8,
    free_count: u32,
}

impl RetransmitQueue {
    /// A queue of `window` PSNs with `records` transmission records (both powers of
    /// two, `records <= window <= 256`) for `paths` paths.
    pub fn new(window: u32, records: u32, paths: usize, isn: u32) -> Self {
        assert!(window.is_power_of_two() && window <= 256);
        assert!(records.is_power_of_two() && records <= window);
        assert!(paths <= 256);
        let recs = (0..records)
            .map(|i| TxRecord { psn_off: 0, path: 0, path_psn: 0, sent_at: HwTime(0), lost: false, prev: 0, next: ((i + 1) % records) as u8 })
            .collect();
        Self {
            window,
            base: isn,
            next: isn,
            slots: vec![FREE; window as usize],
            lost: vec![0; (window as usize).div_ceil(64)],
            lost_count: 0,
            recs,
            head: vec![None; paths],
            tail: vec![None; paths],
            free_head: 0,
            free_count: records,
        }
    }

    /// Transmission records per connection (R).
    pub fn records(&self) -> u32 {
        self.recs.len() as u32
    }
    /// Records on the free list.
    pub fn free_records(&self) -> u32 {
        self.free_count
    }
    /// A record is free: a new PSN may be transmitted (a retransmission reuses the
    /// lost PSN's own record and needs none).
    pub fn has_free_record(&self) -> bool {
        self.free_count > 0
    }

    fn take_record(&mut self) -> u8 {
        assert!(self.free_count > 0, "no free transmission record");
        let r = self.free_head;
        self.free_head = self.recs[r as usize].next;
        self.free_count -= 1;
        r
    }

    fn put_record(&mut self, r: u8) {
        self.recs[r as usize].next = self.free_head;
        self.free_head = r;
        self.free_count += 1;
    }

    /// Appends record `r` at the tail of its path's list.
    fn link(&mut self, r: u8) {
        let p = self.recs[r as usize].path as usize;
        match self.tail[p] {
            None => self.head[p] = Some(r),
            Some(t) => {
                self.recs[t as usize].next = r;
                self.recs[r as usize].prev = t;
            }
        }
        self.tail[p] = Some(r);
    }

    /// Removes record `r` from its path's list (anywhere in it). The ends are known
    /// from `head`/`tail`, so a link at an end is never read and needs no nil value.
    fn unlink(&mut self, r: u8) {
        let p = self.recs[r as usize].path as usize;
        let TxRecord { prev, next, .. } = self.recs[r as usize];
        match (self.head[p] == Some(r), self.tail[p] == Some(r)) {
            (true, true) => {
                self.head[p] = None;
                self.tail[p] = None;
            }
            (true, false) => self.head[p] = Some(next),
            (false, true) => self.tail[p] = Some(prev),
            (false, false) => {
                self.recs[prev as usize].next = next;
                self.recs[next as usize].prev = prev;
            }
        }
    }

    /// Ends the transmission held by record `r` (in flight): off its list, back to the
    /// free list.
    fn release(&mut self, r: u8) {
        self.unlink(r);
        self.put_record(r);
    }

    /// Records on the lists of all paths (= the PSNs in flight; at most R).
    pub fn linked(&self) -> usize {
        (0..self.head.len()).map(|p| self.path_list(p).count()).sum()
    }

    /// The records of path `p`'s list, head first.
    fn path_list(&self, p: usize) -> impl Iterator<Item = u8> + '_ {
        let (mut cur, tail) = (self.head[p], self.tail[p]);
        std::iter::from_fn(move || {
            let r = cur?;
            cur = if Some(r) == tail { None } else { Some(self.recs[r as usize].next) };
            Some(r)
        })
    }

    /// The records and lists are consistent: every record is on exactly one list (a
    /// path's, or the free list) or held by exactly one Lost PSN; each path's list is a
    /// well-formed doubly linked list of records on that path in increasing path PSN
    /// order, lost flag clear, each pointing at a live InFlight PSN whose entry points
    /// back at it; every InFlight PSN holds a listed record; every Lost PSN holds a
    /// record with the lost flag set that points back at it and is on no list; the free
    /// list has `free_count` records; PSNs outside the window are Free.
    pub fn check_lists(&self) -> Result<(), String> {
        let n = self.recs.len();
        // 0: not seen; 1: on a path list; 2: on the free list; 3: held by a Lost PSN.
        let mut seen = vec![0u8; n];
        let mut listed = 0usize;
        for p in 0..self.head.len() {
            if self.head[p].is_some() != self.tail[p].is_some() {
                return Err(format!("path {p}: head {:?} but tail {:?}", self.head[p], self.tail[p]));
            }
            let Some(mut r) = self.head[p] else { continue };
            let mut prev: Option<u8> = None;
            let mut last_pp: Option<u32> = None;
            loop {
                let i = r as usize;
                if i >= n {
                    return Err(format!("path {p}: record index {r} out of range"));
                }
                if seen[i] != 0 {
                    return Err(format!("record {r} twice on the lists"));
                }
                seen[i] = 1;
                listed += 1;
                let rec = &self.recs[i];
                if rec.path as usize != p {
                    return Err(format!("path {p}: record {r} says path {}", rec.path));
                }
                if rec.lost {
                    return Err(format!("path {p}: record {r} on the list with its lost flag set"));
                }
                if let Some(pr) = prev {
                    if rec.prev != pr {
                        return Err(format!("path {p}: record {r} prev {} should be {pr}", rec.prev));
                    }
                }
                let psn = self.psn_of(rec.psn_off);
                let s = self.slots[rec.psn_off as usize];
                if !self.is_live(psn) || s.state != SlotState::InFlight || s.ptr != r {
                    return Err(format!("path {p}: record {r} is for psn {psn}, which is {:?} with record {}", s.state, s.ptr));
                }
                if last_pp.is_some_and(|q| !super::seq_after(rec.path_psn, q)) {
                    return Err(format!("path {p}: path PSNs out of order at record {r}"));
                }
                last_pp = Some(rec.path_psn);
                prev = Some(r);
                if Some(r) == self.tail[p] {
                    break;
                }
                r = rec.next;
            }
        }
        let mut lost_held = 0usize;
        for k in 0..self.outstanding() {
            let psn = seq_add(self.base, k);
            let s = self.slots[self.idx(psn)];
            if s.state != SlotState::Lost {
                continue;
            }
            let i = s.ptr as usize;
            if i >= n || seen[i] != 0 {
                return Err(format!("psn {psn} lost with record {i}, out of range or also on a list or another lost PSN"));
            }
            let rec = &self.recs[i];
            if !rec.lost || usize::from(rec.psn_off) != self.idx(psn) || usize::from(rec.path) >= self.head.len() {
                return Err(format!("psn {psn} lost with record {i}: lost flag {}, slot {}, path {}", rec.lost, rec.psn_off, rec.path));
            }
            seen[i] = 3;
            lost_held += 1;
        }
        let mut r = self.free_head;
        for k in 0..self.free_count {
            let i = r as usize;
            if i >= n || seen[i] != 0 {
                return Err(format!("free list entry {k}: record {r} out of range or already on a list"));
            }
            seen[i] = 2;
            r = self.recs[i].next;
        }
        if let Some(i) = seen.iter().position(|&x| x == 0) {
            return Err(format!("record {i} is on no list (leaked)"));
        }
        let mut in_flight = 0usize;
        for k in 0..self.window {
            let psn = seq_add(self.base, k);
            let s = self.slots[self.idx(psn)];
            if k >= self.outstanding() {
                if s.state != SlotState::Free {
                    return Err(format!("psn {psn} outside the window is {:?}", s.state));
                }
            } else if s.state == SlotState::InFlight {
                in_flight += 1;
                if seen.get(s.ptr as usize) != Some(&1) {
                    return Err(format!("psn {psn} in flight with record {} on no path list", s.ptr));
                }
            }
        }
        if in_flight != listed || listed + lost_held + self.free_count as usize != n {
            return Err(format!("{in_flight} PSNs in flight, {listed} records listed, {lost_held} held by lost PSNs, {} free of {n}", self.free_count));
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
    /// The entry of a live PSN.
    pub fn slot(&self, psn: u32) -> Option<Slot> {
        self.is_live(psn).then(|| self.slots[self.idx(psn)])
    }
    /// The transmission record of a live PSN in flight.
    pub fn record(&self, psn: u32) -> Option<&TxRecord> {
        let s = self.slot(psn)?;
        if s.state == SlotState::InFlight {
            self.recs.get(s.ptr as usize)
        } else {
            None
        }
    }
    /// The path a live PSN was last sent on, while it is in flight or lost.
    pub fn last_path(&self, psn: u32) -> Option<u8> {
        let s = self.slot(psn)?;
        match s.state {
            SlotState::InFlight | SlotState::Lost => self.recs.get(s.ptr as usize).map(|r| r.path),
            _ => None,
        }
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

    /// Allocates the next PSN (its message and offset are the requester's: derived
    /// from the message table, not stored here).
    pub fn push_new(&mut self) -> u32 {
        assert!(self.has_room(), "retransmit queue full");
        let psn = self.next;
        let i = self.idx(psn);
        self.slots[i] = FREE;
        self.next = seq_add(psn, 1);
        psn
    }

    /// Records a transmission of `psn` and links its record at the tail of the path's
    /// list. A first transmission (Free) takes a free record (the caller checked
    /// [`RetransmitQueue::has_free_record`]); a retransmission of a Lost PSN reuses the
    /// record the PSN kept (lost flag cleared) and needs no free record. (An InFlight
    /// PSN, which the requester never retransmits, also keeps its record: it is
    /// unlinked and appended again.)
    pub fn on_transmit(&mut self, psn: u32, path: u8, path_psn: u32, now: HwTime) {
        debug_assert!(self.is_live(psn));
        let i = self.idx(psn);
        let s = self.slots[i];
        self.set_lost_bit(i, false);
        let r = match s.state {
            SlotState::InFlight => {
                self.unlink(s.ptr);
                s.ptr
            }
            SlotState::Lost => s.ptr,
            SlotState::Free | SlotState::Acked => self.take_record(),
        };
        let rec = &mut self.recs[r as usize];
        rec.psn_off = i as u8;
        rec.path = path;
        rec.path_psn = path_psn;
        rec.sent_at = now;
        rec.lost = false;
        self.link(r);
        self.slots[i] = Slot { state: SlotState::InFlight, retx: s.retx || s.state != SlotState::Free, ptr: r };
    }

    /// Selective or cumulative acknowledgement of one live PSN.
    pub fn ack(&mut self, psn: u32) -> Acked {
        if !self.is_live(psn) {
            return Acked::Nothing;
        }
        let i = self.idx(psn);
        let s = self.slots[i];
        let r = match s.state {
            SlotState::InFlight => {
                let rec = self.recs[s.ptr as usize];
                self.release(s.ptr);
                Acked::InFlight { path: rec.path, sent_at: rec.sent_at }
            }
            SlotState::Lost => {
                let path = self.recs[s.ptr as usize].path;
                self.free_lost(s.ptr);
                Acked::WasLost { path }
            }
            // Free: allocated, never sent (cannot be acknowledged by an honest peer).
            SlotState::Acked | SlotState::Free => return Acked::Nothing,
        };
        self.set_lost_bit(i, false);
        self.slots[i] = Slot { state: SlotState::Acked, retx: s.retx, ptr: 0 };
        r
    }

    /// Moves the base to `new_base` (a cumulative acknowledgement; the caller
    /// [`RetransmitQueue::ack`]s the PSNs passed over first) and frees their entries
    /// (and the record of any still in flight or lost).
    pub fn advance_base(&mut self, new_base: u32) {
        debug_assert!(seq_dist(new_base, self.base) <= self.outstanding());
        while self.base != new_base {
            let i = self.idx(self.base);
            self.set_lost_bit(i, false);
            let s = self.slots[i];
            match s.state {
                SlotState::InFlight => self.release(s.ptr),
                SlotState::Lost => self.free_lost(s.ptr),
                SlotState::Free | SlotState::Acked => {}
            }
            self.slots[i] = FREE;
            self.base = seq_add(self.base, 1);
        }
    }

    /// Declares a PSN in flight (or already lost) lost. It **keeps its record** (M1):
    /// the record leaves its path's list (out of the per-path order: per-path loss
    /// detection, drains and the path's count no longer see it) and gets its lost
    /// flag; its `path` stays the path it was lost on. Nothing returns to the free
    /// list: [`RetransmitQueue::on_transmit`] reuses the record, and
    /// [`RetransmitQueue::ack`] or [`RetransmitQueue::advance_base`] frees it.
    pub fn mark_lost(&mut self, psn: u32) {
        debug_assert!(self.is_live(psn));
        let i = self.idx(psn);
        let s = self.slots[i];
        match s.state {
            SlotState::InFlight => {
                self.unlink(s.ptr);
                self.recs[s.ptr as usize].lost = true;
            }
            SlotState::Lost => {}
            st => {
                debug_assert!(false, "mark_lost of a {st:?} PSN");
                return;
            }
        }
        self.slots[i] = Slot { state: SlotState::Lost, retx: s.retx, ptr: s.ptr };
        self.set_lost_bit(i, true);
    }

    /// Frees the record `r` a Lost PSN held (it is on no list): lost flag cleared, back
    /// to the free list.
    fn free_lost(&mut self, r: u8) {
        self.recs[r as usize].lost = false;
        self.put_record(r);
    }

    /// The oldest lost PSN not held back by `held`, a W-bit mask indexed like the
    /// queue's own lost bitmap: bit `i` (word `i / 64`, bit `i % 64`) stands for the
    /// live PSN in slot `i`, the one with `psn mod W == i`; a set bit means that PSN is
    /// held back (its message is under an RNR hold now) and is skipped. Bits of slots
    /// with no live PSN and bits at or beyond W are never read. The scan is the former
    /// one (a closure `held(psn)`), step for step, with the closure replaced by the
    /// mask's bit: the lost bitmap is read a word at a time from the base, each lost
    /// PSN found is tested against the mask.
    ///
    /// An empty word skips to the next word boundary or to the ring's end (slot W),
    /// whichever comes first, so for W < 64 the scan wraps to slot 0 like any other
    /// (before this was fixed, a W = 32 queue with the base in slot 20 never found a
    /// lost PSN in slot 3).
    pub fn oldest_lost(&self, held: &Bitmap) -> Option<u32> {
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
                // Skip to the next word boundary or the ring's end, whichever is first.
                let step = ((64 - i % 64) as u32).min(self.window - i as u32);
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
            if !held.get(self.idx(psn)) {
                return Some(psn);
            }
            k += 1;
            psn = seq_add(psn, 1);
        }
        None
    }

    /// The former `oldest_lost` (a predicate instead of the mask; with the W < 64 wrap
    /// fix): the oldest lost PSN for which `held` is false. The requester's tests use it
    /// as the reference for the mask it builds.
    #[cfg(test)]
    pub(crate) fn oldest_lost_by(&self, mut held: impl FnMut(u32) -> bool) -> Option<u32> {
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
                // Skip to the next word boundary or the ring's end, whichever is first.
                let step = ((64 - i % 64) as u32).min(self.window - i as u32);
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
            if !held(psn) {
                return Some(psn);
            }
            k += 1;
            psn = seq_add(psn, 1);
        }
        None
    }

    /// The oldest packet in flight on path `p` (its list's head): `(path PSN, PSN,
    /// sent_at)`.
    pub fn oldest_on_path(&self, p: usize) -> Option<(u32, u32, HwTime)> {
        self.head[p].map(|h| {
            let r = &self.recs[h as usize];
            (r.path_psn, self.psn_of(r.psn_off), r.sent_at)
        })
    }

    /// The live PSN whose window offset is `off`.
    fn psn_of(&self, off: u8) -> u32 {
        seq_add(self.base, u32::from(off).wrapping_sub(self.base) & (self.window - 1))
    }

    /// Per-path loss detection: every packet in flight on `p` with `path_psn + k <=
    /// highest` (serial), from the head of its list, in path order. The caller
    /// declares them lost ([`RetransmitQueue::mark_lost`] unlinks them).
    pub fn path_losses(&self, p: usize, highest: u32, k: u32, out: &mut Vec<u32>) {
        for r in self.path_list(p) {
            let rec = &self.recs[r as usize];
            if !seq_after_eq(highest, seq_add(rec.path_psn, k)) {
                break;
            }
            out.push(self.psn_of(rec.psn_off));
        }
    }

    /// Every packet in flight on `p` (path failure), in path order.
    pub fn drain_path(&self, p: usize, out: &mut Vec<u32>) {
        out.extend(self.path_list(p).map(|r| self.psn_of(self.recs[r as usize].psn_off)));
    }

    /// Test hook: breaks the bookkeeping the way a hardware bug would. `0`: a record
    /// leaks (the free list forgets one); `1`: the oldest PSN in flight points at
    /// another record.
    #[cfg(test)]
    pub(crate) fn corrupt(&mut self, how: u8) {
        match how {
            0 => self.free_count -= 1,
            _ => {
                let i = (0..self.outstanding()).map(|k| self.idx(seq_add(self.base, k))).find(|&i| self.slots[i].state == SlotState::InFlight).expect("a PSN in flight");
                self.slots[i].ptr = (self.slots[i].ptr + 1) % self.recs.len() as u8;
            }
        }
    }

    /// Iterates the live PSNs with their entries, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Slot)> + '_ {
        (0..self.outstanding()).map(move |k| {
            let psn = seq_add(self.base, k);
            (psn, self.slots[self.idx(psn)])
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
        let mut q = RetransmitQueue::new(4, 4, 1, isn);
        let psns: Vec<u32> = (0..4).map(|_| q.push_new()).collect();
        assert_eq!(psns, vec![SEQ_MASK - 2, SEQ_MASK - 1, SEQ_MASK, 0]);
        assert!(!q.has_room());
        for (k, &psn) in psns.iter().enumerate() {
            q.on_transmit(psn, 0, k as u32, T(10));
        }
        q.check_lists().unwrap();
        assert_eq!(q.ack(psns[0]), Acked::InFlight { path: 0, sent_at: T(10) });
        assert_eq!(q.ack(psns[0]), Acked::Nothing, "a PSN is acknowledged once");
        q.advance_base(psns[1]);
        assert!(q.has_room() && !q.is_live(psns[0]));
        assert_eq!(q.push_new(), 1);
        q.check_lists().unwrap();
    }

    #[test]
    fn the_oldest_lost_psn_is_retransmitted_first_skipping_held_ones() {
        let mut q = RetransmitQueue::new(256, 256, 1, 100);
        for k in 0..200 {
            let psn = q.push_new();
            q.on_transmit(psn, 0, k, T(0));
        }
        q.mark_lost(290);
        q.mark_lost(170);
        q.mark_lost(230);
        let none = Bitmap::default();
        let mut held = Bitmap::default();
        held.set(170); // slot 170 mod W (W = 256)
        assert_eq!(q.oldest_lost(&held), Some(230), "170 is held back (its message's RNR hold)");
        assert_eq!(q.oldest_lost(&none), Some(170));
        assert_eq!(q.oldest_lost(&Bitmap([u64::MAX; 4])), None);
        q.on_transmit(170, 0, 999, T(600));
        assert!(q.slot(170).unwrap().retx, "a transmission after the first is a retransmission");
        assert!(!q.slot(171).unwrap().retx);
        assert_eq!(q.ack(230), Acked::WasLost { path: 0 });
        assert_eq!(q.oldest_lost(&none), Some(290));
        assert_eq!(q.lost_count(), 1);
        q.check_lists().unwrap();
    }

    #[test]
    fn per_path_loss_detection_looks_only_at_the_head_and_skips_stale_entries() {
        let mut q = RetransmitQueue::new(64, 64, 2, 0);
        for k in 0..6 {
            let psn = q.push_new();
            q.on_transmit(psn, (k % 2) as u8, k / 2, T(0));
        }
        // path 0 carries psn 0, 2, 4 at path PSN 0, 1, 2.
        q.ack(2);
        let mut out = vec![];
        q.path_losses(0, 4, 3, &mut out);
        assert_eq!(out, vec![0], "path PSN 0 + 3 <= 4; path PSN 1 (psn 2) was acknowledged and unlinked");
        q.mark_lost(0);
        assert_eq!(q.last_path(0), Some(0), "a lost PSN remembers the path it was lost on");
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

    /// A transmission holds a record from its (re)transmission until it is
    /// acknowledged, declared lost or freed with the base; with no free record the
    /// caller may not transmit. `check_lists` catches a leaked or doubly used record.
    #[test]
    fn a_record_is_held_per_transmission_and_returned_on_ack_loss_and_base() {
        let mut q = RetransmitQueue::new(16, 4, 2, 0);
        assert_eq!((q.records(), q.free_records()), (4, 4));
        for k in 0..4 {
            let psn = q.push_new();
            q.on_transmit(psn, (k % 2) as u8, k / 2, T(k));
        }
        assert!(!q.has_free_record() && q.has_room(), "four packets in flight: the pool, not the window, is full");
        q.check_lists().unwrap();
        assert_eq!(q.record(3).map(|r| (r.path, r.path_psn, r.sent_at, r.psn_off)), Some((1, 1, T(3), 3)));
        // An acknowledgement above the base returns a record.
        assert_eq!(q.ack(2), Acked::InFlight { path: 0, sent_at: T(2) });
        assert_eq!(q.free_records(), 1);
        // A loss keeps its record (off its path's list, lost flag set); the new PSN takes
        // the free one, the retransmission reuses the lost PSN's own.
        let r1 = q.slots[1].ptr;
        q.mark_lost(1);
        assert_eq!((q.free_records(), q.record(1), q.last_path(1)), (1, None, Some(1)));
        assert!(q.recs[r1 as usize].lost && q.slots[1].ptr == r1);
        q.check_lists().unwrap();
        let psn = q.push_new();
        q.on_transmit(psn, 0, 2, T(9));
        assert!(!q.has_free_record());
        q.on_transmit(1, 0, 3, T(10));
        assert_eq!(q.slots[1].ptr, r1);
        assert!(!q.has_free_record());
        q.check_lists().unwrap();
        // The base passing PSNs still in flight frees their records.
        q.advance_base(4);
        assert_eq!(q.free_records(), 3);
        assert_eq!(q.linked(), 1);
        q.check_lists().unwrap();
        // Corruptions are caught.
        let mut bad = q.clone();
        bad.free_count -= 1;
        assert!(bad.check_lists().unwrap_err().contains("leaked"));
        let mut bad = q.clone();
        bad.slots[4].ptr ^= 1;
        assert!(bad.check_lists().is_err());
        let mut bad = q.clone();
        bad.free_head = q.slots[4].ptr;
        assert!(bad.check_lists().is_err());
    }

    /// M1: `mark_lost` keeps the record (lost flag, off the per-path order, not free);
    /// `on_transmit` of the lost PSN reuses it with no free record; `ack` and
    /// `advance_base` free a lost PSN's record. R = 2, both records taken.
    #[test]
    fn a_lost_psn_keeps_its_record_and_its_retransmission_needs_no_free_one() {
        let mut q = RetransmitQueue::new(8, 2, 2, 0);
        for k in 0..2 {
            let psn = q.push_new();
            q.on_transmit(psn, 0, k, T(k));
        }
        let r0 = q.slots[0].ptr;
        q.mark_lost(0);
        assert!(!q.has_free_record(), "every record taken: the lost PSN holds one");
        assert!(q.recs[r0 as usize].lost && q.record(0).is_none() && q.last_path(0) == Some(0));
        assert_eq!(q.oldest_on_path(0), Some((1, 1, T(1))), "out of the path's order");
        let mut v = vec![];
        q.drain_path(0, &mut v);
        assert_eq!(v, vec![1], "a drain no longer sees it");
        q.check_lists().unwrap();
        q.on_transmit(0, 1, 0, T(5));
        assert_eq!(q.slots[0].ptr, r0, "the retransmission reuses the record");
        assert_eq!(q.record(0).map(|r| (r.path, r.path_psn, r.sent_at, r.lost)), Some((1, 0, T(5), false)));
        q.check_lists().unwrap();
        // A spurious loss: the ACK of a lost PSN frees its record.
        q.mark_lost(1);
        assert_eq!(q.ack(1), Acked::WasLost { path: 0 });
        assert_eq!(q.free_records(), 1);
        q.check_lists().unwrap();
        // The base passing a lost PSN frees its record too.
        q.mark_lost(0);
        assert_eq!(q.free_records(), 1);
        q.advance_base(2);
        assert_eq!(q.free_records(), 2);
        q.check_lists().unwrap();
        // A lost record on a list, or freed while its PSN is lost, is caught.
        let psn = q.push_new();
        q.on_transmit(psn, 0, 2, T(6));
        q.mark_lost(psn);
        let mut bad = q.clone();
        bad.recs[bad.slots[2].ptr as usize].lost = false;
        assert!(bad.check_lists().is_err());
        let mut bad = q.clone();
        let r = bad.slots[2].ptr;
        bad.put_record(r);
        assert!(bad.check_lists().is_err());
    }

    /// The worst case for the per-path lists: the whole pool in flight on one path,
    /// the packets behind its head acknowledged or declared lost and retransmitted on
    /// other paths, over and over, while the head stays in flight (its ACKs lost), and
    /// the window refilled as the base moves. The lists never hold more than the R
    /// records (they hold exactly the PSNs in flight); lazily cleaned FIFOs, which keep
    /// an entry per transmission until it reaches its FIFO's head, would exceed W.
    #[test]
    fn the_lists_never_hold_more_than_the_records_where_lazy_fifos_would() {
        const W: u32 = 64;
        let mut q = RetransmitQueue::new(W, W, 4, 0);
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
                let psn = q.push_new();
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
                        q.mark_lost(psn);
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
                    if q.record(psn).is_some_and(|r| r.path as usize == p && r.path_psn == x) {
                        break;
                    }
                    f.pop_front();
                }
            }
            lazy_max = lazy_max.max(fifo.iter().map(|f| f.len()).sum::<usize>());
            q.check_lists().unwrap();
            let in_flight = q.iter().filter(|(_, s)| s.state == SlotState::InFlight).count();
            assert_eq!(q.linked(), in_flight, "round {round}: the lists hold exactly the PSNs in flight");
            assert_eq!(q.linked() + q.free_records() as usize, W as usize, "round {round}: every record on a list");
        }
        assert!(lazy_max > W as usize, "lazy FIFOs would have held {lazy_max} entries (W = {W})");
    }

    use proptest::prelude::*;

    /// A 32-PSN window (the smallest the config allows) with the base in slot 20: a lost
    /// PSN in slot 3 (the ring wrapped) is found. The scan once skipped an empty word to
    /// slot 64 instead of the ring's end and missed it.
    #[test]
    fn oldest_lost_wraps_the_ring_below_64_psns() {
        let mut q = RetransmitQueue::new(32, 32, 2, 0);
        for _ in 0..20 {
            let psn = q.push_new();
            q.on_transmit(psn, 0, psn, T(0));
            q.ack(psn);
            q.advance_base(seq_add(psn, 1));
        }
        assert_eq!(q.base, 20);
        for k in 0..16u32 {
            let psn = q.push_new();
            q.on_transmit(psn, (k % 2) as u8, psn, T(0));
        }
        q.mark_lost(35);
        assert_eq!(q.oldest_lost(&Bitmap::default()), Some(35));
        let mut held = Bitmap::default();
        held.set(3);
        assert_eq!(q.oldest_lost(&held), None);
        q.mark_lost(22);
        assert_eq!(q.oldest_lost(&held), Some(22));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// `oldest_lost(&mask)` is the first live PSN, in PSN order from the base, that
        /// is lost and whose slot's mask bit is clear, for every window size (32..=256),
        /// base slot (the ring's wrap), PSN wrap, lost set and held set; mask bits of
        /// slots not live and bits at or beyond W change nothing.
        #[test]
        fn oldest_lost_is_the_first_lost_unheld_psn_from_the_base(
            wlog in 5u32..=8,
            isn_near_wrap in any::<bool>(),
            isn in 0u32..=SEQ_MASK,
            shift in 0u32..600,
            outstanding_pick in 0u32..=256,
            lost_bits in any::<[u64; 4]>(),
            held_bits in any::<[u64; 4]>(),
            junk in any::<[u64; 4]>(),
        ) {
            let w = 1u32 << wlog;
            let isn = if isn_near_wrap { seq_add(SEQ_MASK, isn % 700).wrapping_sub(350) & SEQ_MASK } else { isn };
            let mut q = RetransmitQueue::new(w, w, 2, isn);
            // Move the base by `shift` (any base slot), then fill `outstanding` PSNs.
            for _ in 0..shift {
                let psn = q.push_new();
                q.on_transmit(psn, 0, psn, T(0));
                q.ack(psn);
                q.advance_base(seq_add(psn, 1));
            }
            let n = outstanding_pick % (w + 1);
            for k in 0..n {
                let psn = q.push_new();
                q.on_transmit(psn, (k % 2) as u8, psn, T(0));
            }
            let live: Vec<u32> = q.iter().map(|(psn, _)| psn).collect();
            for (k, &psn) in live.iter().enumerate() {
                if lost_bits[k / 64] >> (k % 64) & 1 == 1 {
                    q.mark_lost(psn);
                }
            }
            // Held: live PSNs chosen by held_bits (by offset from the base); the mask
            // gets their slots, plus junk in the slots of no live PSN and beyond W.
            let is_held = |psn: u32| {
                let k = seq_dist(psn, q.base) as usize;
                held_bits[k / 64] >> (k % 64) & 1 == 1
            };
            let mut mask = Bitmap::default();
            let mut live_slots = Bitmap::default();
            for &psn in &live {
                live_slots.set(q.idx(psn));
                if is_held(psn) {
                    mask.set(q.idx(psn));
                }
            }
            for i in 0..256 {
                if (i >= w as usize || !live_slots.get(i)) && junk[i / 64] >> (i % 64) & 1 == 1 {
                    mask.set(i);
                }
            }
            let want = live.iter().copied().find(|&psn| q.slot(psn).is_some_and(|x| x.state == SlotState::Lost) && !is_held(psn));
            prop_assert_eq!(q.oldest_lost(&mask), want);
        }
    }
}
