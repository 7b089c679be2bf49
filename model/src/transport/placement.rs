//! DMA placement unit: the responder's memory-region table, posted receive buffers,
//! the key and bounds checks, and the host memory it writes (`docs/protocol.md`
//! §6.11). This is the block model of the hardware DMA placement unit: [`check`]
//! is its decision for one packet, [`HostMemory::write`] its DMA write.
//!
//! [`HostMemory`] is deliberately independent of the checks: it knows only which
//! address ranges the host allocated, and counts any write that is not entirely
//! inside one allocation as a violation (and does not perform it). The property
//! tests assert that the count stays 0.

use super::TransportError;
use crate::wire::{DataKind, NakCode};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Remote access rights of a memory region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub remote_write: bool,
}

/// A registered memory region: `[base, base + len)` of host memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRegion {
    pub base: u64,
    pub len: u64,
    pub access: Access,
    /// Protection domain: only connections of the same domain may use the rkey.
    pub pd: u32,
}

/// The memory-region table: `mr_entries` rows (a power of two, a block RAM), one
/// region per row. An rkey is `tag << idx_bits | index` with `idx_bits =
/// log2(mr_entries)`: the low bits select the row, the row stores the whole key, and a
/// lookup compares it, so a stale key (its row re-registered under another tag) or a
/// forged one fails the tag check (BadRkey) instead of reaching another region.
///
/// Only the valid rows are stored (the model of a block RAM whose other rows have the
/// valid bit clear); [`MrTable::lookup`] reads exactly one row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MrTable {
    idx_bits: u32,
    /// row index -> (the whole rkey stored in it, its region).
    rows: BTreeMap<u32, (u32, MemoryRegion)>,
}

impl Default for MrTable {
    fn default() -> Self {
        Self::new(super::TransportConfig::default().mr_entries)
    }
}

impl MrTable {
    /// An empty table of `entries` rows (a power of two, 2..=2^31).
    pub fn new(entries: u32) -> Self {
        assert!(entries.is_power_of_two() && entries >= 2, "mr_entries must be a power of two >= 2, not {entries}");
        Self { idx_bits: entries.trailing_zeros(), rows: BTreeMap::new() }
    }
    /// Rows of the table (`mr_entries`).
    pub fn entries(&self) -> u32 {
        1 << self.idx_bits
    }
    /// Index bits of an rkey (`log2(mr_entries)`); the other `32 - idx_bits` are the tag.
    pub fn idx_bits(&self) -> u32 {
        self.idx_bits
    }
    /// The row an rkey selects.
    pub fn index(&self, rkey: u32) -> u32 {
        rkey & (self.entries() - 1)
    }
    /// An rkey's tag.
    pub fn tag(&self, rkey: u32) -> u32 {
        rkey >> self.idx_bits
    }
    /// The rkey of row `index` with tag `tag` (both masked to their widths).
    pub fn rkey(&self, tag: u32, index: u32) -> u32 {
        (tag.checked_shl(self.idx_bits).unwrap_or(0)) | (index & (self.entries() - 1))
    }
    /// The region of `rkey`: reads row `index(rkey)` and compares the whole key.
    pub fn lookup(&self, rkey: u32) -> Option<&MemoryRegion> {
        match self.rows.get(&self.index(rkey)) {
            Some((k, mr)) if *k == rkey => Some(mr),
            _ => None,
        }
    }
    /// Registers `mr` under `rkey`; refused when its row holds a key (the same one:
    /// [`TransportError::RkeyInUse`]; another: [`TransportError::MrRowTaken`]).
    pub fn insert(&mut self, rkey: u32, mr: MemoryRegion) -> Result<(), TransportError> {
        self.vacant(rkey)?;
        self.rows.insert(self.index(rkey), (rkey, mr));
        Ok(())
    }
    /// `Ok` when [`MrTable::insert`] of `rkey` would succeed (its row is free).
    pub fn vacant(&self, rkey: u32) -> Result<(), TransportError> {
        let index = self.index(rkey);
        match self.rows.get(&index) {
            None => Ok(()),
            Some(&(holder, _)) if holder == rkey => Err(TransportError::RkeyInUse { rkey }),
            Some(&(holder, _)) => Err(TransportError::MrRowTaken { rkey, index, holder, entries: self.entries() }),
        }
    }
    /// Deregisters `rkey` (the row is freed only if it holds exactly this key).
    pub fn remove(&mut self, rkey: u32) -> Option<MemoryRegion> {
        let index = self.index(rkey);
        if self.rows.get(&index).is_some_and(|(k, _)| *k == rkey) {
            return self.rows.remove(&index).map(|(_, mr)| mr);
        }
        None
    }
    /// Valid rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// The registered `(rkey, region)` pairs, by row.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &MemoryRegion)> {
        self.rows.values().map(|(k, mr)| (*k, mr))
    }
}

/// A posted receive buffer (SEND target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecvBuffer {
    pub wr_id: u64,
    pub addr: u64,
    pub len: u64,
}

/// Posted receive buffers, consumed in order: the SSN-th SEND of the connection
/// lands in the SSN-th posted buffer. At most `depth` (`rq_depth`, a power of two)
/// are posted at once: in hardware a ring of `depth` rows per connection, row
/// `ssn mod depth`, with the head SSN and a count.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecvQueue {
    /// SSN of `bufs[0]`.
    pub head_ssn: u32,
    pub bufs: VecDeque<RecvBuffer>,
    /// Most buffers posted at once.
    pub depth: u32,
}

impl Default for RecvQueue {
    fn default() -> Self {
        Self::new(super::TransportConfig::default().rq_depth)
    }
}

impl RecvQueue {
    /// An empty queue of at most `depth` buffers.
    pub fn new(depth: u32) -> Self {
        Self { head_ssn: 0, bufs: VecDeque::new(), depth }
    }
    /// Posts `b` for the next SEND; refused when `depth` buffers are posted.
    pub fn post(&mut self, b: RecvBuffer) -> Result<(), TransportError> {
        self.has_room()?;
        self.bufs.push_back(b);
        Ok(())
    }
    /// `Ok` when [`RecvQueue::post`] would succeed.
    pub fn has_room(&self) -> Result<(), TransportError> {
        if self.bufs.len() >= self.depth as usize {
            return Err(TransportError::RecvQueueFull { depth: self.depth });
        }
        Ok(())
    }
    pub fn get(&self, ssn: u32) -> Option<&RecvBuffer> {
        let k = ssn.wrapping_sub(self.head_ssn) & super::SEQ_MASK;
        self.bufs.get(k as usize)
    }
    /// Consumes the head buffer if it is `ssn`'s.
    pub fn consume(&mut self, ssn: u32) -> Option<RecvBuffer> {
        if ssn & super::SEQ_MASK != self.head_ssn {
            return None;
        }
        self.head_ssn = super::seq_add(self.head_ssn, 1);
        self.bufs.pop_front()
    }
}

/// What one DATA packet asks of the placement unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementRequest {
    pub kind: DataKind,
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
    pub ssn: u32,
}

/// The key, rights and bounds checks of §6.11: the host address to write, or the NAK.
pub fn check(r: &PlacementRequest, mtu: u32, pd: u32, mrs: &MrTable, rq: &RecvQueue) -> Result<u64, NakCode> {
    if r.len > mtu {
        return Err(NakCode::InvalidRequest);
    }
    let end = u128::from(r.va) + u128::from(r.len);
    match r.kind {
        DataKind::Write => {
            let mr = match mrs.lookup(r.rkey) {
                Some(mr) if mr.pd == pd => mr,
                _ => return Err(NakCode::BadRkey),
            };
            if !mr.access.remote_write {
                return Err(NakCode::AccessDenied);
            }
            if r.va < mr.base || end > u128::from(mr.base) + u128::from(mr.len) {
                return Err(NakCode::OutOfBounds);
            }
            Ok(r.va)
        }
        DataKind::Send => {
            let rb = rq.get(r.ssn).ok_or(NakCode::NoRecvBuffer)?;
            if end > u128::from(rb.len) {
                return Err(NakCode::OutOfBounds);
            }
            // mod 2^64: a buffer reaching past 2^64 cannot be allocated, but the table may
            // say so; the check must answer, not overflow (the RTL's 64-bit adder)
            Ok(rb.addr.wrapping_add(r.va))
        }
    }
}

/// A write that was not inside one allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemViolation {
    pub addr: u64,
    pub len: u64,
}

/// An AXI write response other than OKAY.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bresp {
    /// `bresp = 0b10`: the slave refused the write.
    SlvErr,
    /// `bresp = 0b11`: no slave at the address.
    DecErr,
}

/// Why a DMA write failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaError {
    /// Not inside one allocation: the checks let through a write they must not have
    /// (a model bug; counted in [`HostMemory::violations`]).
    Outside(MemViolation),
    /// The host answered the write with an error (an injected fault, [`HostMemory::inject_write_error`]).
    Bresp { addr: u64, len: u64, resp: Bresp },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Segment {
    len: u64,
    /// `None`: a virtual allocation (bounds are checked, bytes are not stored; the
    /// network simulator's large transfers).
    data: Option<Vec<u8>>,
}

/// The host's memory as the DMA engine sees it: allocations at fixed addresses.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HostMemory {
    segs: BTreeMap<u64, Segment>,
    /// Writes refused because they were not inside one allocation.
    pub violations: u64,
    pub bytes_written: u64,
    /// Writes performed, and the last one (`addr`, `len`): tests check each write
    /// against the region the packet's key selected.
    #[serde(default)]
    pub writes: u64,
    #[serde(default)]
    pub last_write: Option<(u64, u64)>,
    /// Injected faults: a write touching `[base, base + len)` gets `bresp` = the given
    /// error and stores nothing.
    #[serde(default)]
    pub error_ranges: Vec<(u64, u64, Bresp)>,
    /// Writes answered with an error response.
    #[serde(default)]
    pub write_errors: u64,
}

impl HostMemory {
    /// Allocates `[base, base + len)`, zero-filled; `backed = false` stores no bytes.
    pub fn alloc(&mut self, base: u64, len: u64, backed: bool) -> Result<(), TransportError> {
        if len == 0 || base.checked_add(len).is_none() {
            return Err(TransportError::EmptyAllocation { base, len });
        }
        if let Some((&b, s)) = self.segs.range(..base + len).next_back() {
            if b + s.len > base {
                return Err(TransportError::Overlap { base, len, other: b, other_len: s.len });
            }
        }
        self.segs.insert(base, Segment { len, data: backed.then(|| vec![0; len as usize]) });
        Ok(())
    }

    /// `[addr, addr + len)` lies inside one allocation.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        match self.segs.range(..=addr).next_back() {
            Some((&b, s)) => u128::from(addr) + u128::from(len) <= u128::from(b) + u128::from(s.len),
            None => false,
        }
    }

    /// From now on, a write of at least one byte inside `[base, base + len)` is
    /// answered with `resp` (AXI `bresp` SLVERR or DECERR) and stores nothing.
    pub fn inject_write_error(&mut self, base: u64, len: u64, resp: Bresp) {
        self.error_ranges.push((base, len, resp));
    }

    /// The DMA write; refused and counted when not inside one allocation, or answered
    /// with an error when it touches an injected error range (a zero-length write is
    /// no bus transaction and never fails that way).
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), DmaError> {
        let len = bytes.len() as u64;
        if !self.contains(addr, len) {
            self.violations += 1;
            return Err(DmaError::Outside(MemViolation { addr, len }));
        }
        let end = u128::from(addr) + u128::from(len);
        if let Some(&(_, _, resp)) =
            self.error_ranges.iter().find(|&&(b, l, _)| len > 0 && u128::from(addr) < u128::from(b) + u128::from(l) && u128::from(b) < end)
        {
            self.write_errors += 1;
            return Err(DmaError::Bresp { addr, len, resp });
        }
        let (&b, s) = self.segs.range_mut(..=addr).next_back().expect("contains() found it");
        if let Some(d) = &mut s.data {
            let o = (addr - b) as usize;
            d[o..o + bytes.len()].copy_from_slice(bytes);
        }
        self.bytes_written += len;
        self.writes += 1;
        self.last_write = Some((addr, len));
        Ok(())
    }

    /// Bytes of a backed allocation (`None` if not inside one, or virtual).
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        if !self.contains(addr, len) {
            return None;
        }
        let (&b, s) = self.segs.range(..=addr).next_back()?;
        let o = (addr - b) as usize;
        s.data.as_ref().map(|d| &d[o..o + len as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (MrTable, RecvQueue) {
        let mut mrs = MrTable::default();
        mrs.insert(7, MemoryRegion { base: 0x1000, len: 0x100, access: Access { remote_write: true }, pd: 1 }).unwrap();
        mrs.insert(8, MemoryRegion { base: 0x2000, len: 0x100, access: Access { remote_write: false }, pd: 1 }).unwrap();
        mrs.insert(9, MemoryRegion { base: 0x3000, len: 0x100, access: Access { remote_write: true }, pd: 2 }).unwrap();
        let mut rq = RecvQueue::new(4);
        rq.head_ssn = 5;
        rq.post(RecvBuffer { wr_id: 1, addr: 0x8000, len: 64 }).unwrap();
        (mrs, rq)
    }
    fn w(va: u64, rkey: u32, len: u32) -> PlacementRequest {
        PlacementRequest { kind: DataKind::Write, va, rkey, len, ssn: 0 }
    }

    #[test]
    fn write_checks_key_domain_rights_and_bounds() {
        let (mrs, rq) = setup();
        assert_eq!(check(&w(0x1000, 7, 0x100), 4096, 1, &mrs, &rq), Ok(0x1000));
        assert_eq!(check(&w(0x10FF, 7, 2), 4096, 1, &mrs, &rq), Err(NakCode::OutOfBounds));
        assert_eq!(check(&w(0xFFF, 7, 1), 4096, 1, &mrs, &rq), Err(NakCode::OutOfBounds));
        assert_eq!(check(&w(u64::MAX, 7, 4), 4096, 1, &mrs, &rq), Err(NakCode::OutOfBounds), "no overflow");
        assert_eq!(check(&w(0x1000, 6, 4), 4096, 1, &mrs, &rq), Err(NakCode::BadRkey));
        assert_eq!(check(&w(0x1000, 7 | 1 << 10, 4), 4096, 1, &mrs, &rq), Err(NakCode::BadRkey), "row 7, another tag");
        assert_eq!(check(&w(0x3000, 9, 4), 4096, 1, &mrs, &rq), Err(NakCode::BadRkey), "other domain");
        assert_eq!(check(&w(0x2000, 8, 4), 4096, 1, &mrs, &rq), Err(NakCode::AccessDenied));
        assert_eq!(check(&w(0x1000, 7, 4097), 4096, 1, &mrs, &rq), Err(NakCode::InvalidRequest));
    }

    #[test]
    fn mr_table_rows_are_selected_by_the_index_and_checked_by_the_whole_key() {
        let mr = |base| MemoryRegion { base, len: 0x100, access: Access { remote_write: true }, pd: 1 };
        let mut t = MrTable::new(16);
        assert_eq!((t.entries(), t.idx_bits()), (16, 4));
        let k = t.rkey(0xABC, 5);
        assert_eq!((k, t.index(k), t.tag(k)), (0xABC5, 5, 0xABC));
        assert_eq!(t.rkey(u32::MAX, 0x25), 0xFFFF_FFF5, "tag and index masked to their widths");
        t.insert(k, mr(0x1000)).unwrap();
        assert_eq!(t.lookup(k).map(|m| m.base), Some(0x1000));
        // Same row, other tag: refused, with the holder named.
        let e = t.insert(t.rkey(1, 5), mr(0x2000)).unwrap_err();
        assert_eq!(e, TransportError::MrRowTaken { rkey: 0x15, index: 5, holder: k, entries: 16 });
        assert!(e.to_string().contains("row 5"), "{e}");
        assert_eq!(t.insert(k, mr(0x2000)), Err(TransportError::RkeyInUse { rkey: k }));
        // Forged keys: same row, other tags; another row.
        for f in [t.rkey(0, 5), t.rkey(0xABD, 5), t.rkey(0xABC, 6), k ^ 0x8000_0000] {
            assert_eq!(t.lookup(f), None, "{f:#x}");
        }
        // Only the exact key frees its row; a re-registered row refuses the stale key.
        assert_eq!(t.remove(t.rkey(7, 5)), None);
        assert_eq!(t.remove(k).map(|m| m.base), Some(0x1000));
        let k2 = t.rkey(0xABD, 5);
        t.insert(k2, mr(0x3000)).unwrap();
        assert_eq!(t.lookup(k), None, "stale key");
        assert_eq!(t.lookup(k2).map(|m| m.base), Some(0x3000));
        assert_eq!(t.len(), 1);
        // Every row of a full table is usable.
        let mut t = MrTable::new(16);
        for i in 0..16 {
            t.insert(t.rkey(i * 3, i), mr(0x1000 * u64::from(i))).unwrap();
        }
        assert!(matches!(t.insert(t.rkey(99, 15), mr(0)), Err(TransportError::MrRowTaken { index: 15, .. })));
        assert_eq!(t.iter().map(|(k, _)| t.index(k)).collect::<Vec<_>>(), (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn send_lands_in_the_ssn_th_posted_buffer_within_its_length() {
        let (mrs, rq) = setup();
        let s = |va, len, ssn| PlacementRequest { kind: DataKind::Send, va, rkey: 0, len, ssn };
        assert_eq!(check(&s(16, 48, 5), 4096, 1, &mrs, &rq), Ok(0x8010));
        assert_eq!(check(&s(16, 49, 5), 4096, 1, &mrs, &rq), Err(NakCode::OutOfBounds));
        assert_eq!(check(&s(0, 4, 6), 4096, 1, &mrs, &rq), Err(NakCode::NoRecvBuffer));
        assert_eq!(check(&s(0, 4, 4), 4096, 1, &mrs, &rq), Err(NakCode::NoRecvBuffer));
    }

    #[test]
    fn a_send_into_a_buffer_near_the_top_of_the_address_space_wraps_its_address_instead_of_overflowing() {
        let mrs = MrTable::default();
        let mut rq = RecvQueue::new(4);
        rq.post(RecvBuffer { wr_id: 1, addr: u64::MAX - 3, len: 64 }).unwrap();
        let s = PlacementRequest { kind: DataKind::Send, va: 8, rkey: 0, len: 4, ssn: 0 };
        assert_eq!(check(&s, 4096, 1, &mrs, &rq), Ok(4));
    }

    #[test]
    fn host_memory_refuses_and_counts_writes_outside_its_allocations() {
        let mut m = HostMemory::default();
        m.alloc(0x1000, 16, true).unwrap();
        assert!(m.alloc(0x100F, 4, true).is_err(), "overlap refused");
        m.write(0x1004, &[1, 2, 3]).unwrap();
        assert_eq!(m.read(0x1003, 5).unwrap(), &[0, 1, 2, 3, 0]);
        assert!(m.write(0x100E, &[1, 2, 3]).is_err());
        assert!(m.write(0xFFF, &[1]).is_err());
        assert_eq!(m.violations, 2);
        assert_eq!(m.read(0x1000, 16).unwrap().iter().filter(|&&b| b != 0).count(), 3, "refused writes wrote nothing");
    }

    #[test]
    fn an_injected_error_range_answers_writes_touching_it_with_its_bresp_and_stores_nothing() {
        let mut m = HostMemory::default();
        m.alloc(0x1000, 64, true).unwrap();
        m.inject_write_error(0x1010, 8, Bresp::SlvErr);
        m.inject_write_error(0x1030, 1, Bresp::DecErr);
        m.write(0x1000, &[1; 16]).unwrap();
        assert_eq!(m.write(0x100F, &[2; 2]), Err(DmaError::Bresp { addr: 0x100F, len: 2, resp: Bresp::SlvErr }), "overlaps the start");
        assert_eq!(m.write(0x1017, &[2]), Err(DmaError::Bresp { addr: 0x1017, len: 1, resp: Bresp::SlvErr }), "last byte");
        m.write(0x1018, &[3; 8]).unwrap();
        assert!(matches!(m.write(0x1020, &[4; 32]), Err(DmaError::Bresp { resp: Bresp::DecErr, .. })));
        m.write(0x1010, &[]).unwrap();
        assert_eq!((m.write_errors, m.writes, m.violations), (3, 3, 0));
        assert_eq!(m.read(0x100F, 10).unwrap(), &[1, 0, 0, 0, 0, 0, 0, 0, 0, 3], "failed writes stored nothing");
        assert!(matches!(m.write(0x2000, &[1]), Err(DmaError::Outside(_))), "outside is still a violation");
    }

    #[test]
    fn the_receive_queue_holds_at_most_depth_buffers() {
        let b = |i| RecvBuffer { wr_id: i, addr: 0x1000 * i, len: 16 };
        let mut rq = RecvQueue::new(4);
        for i in 0..4 {
            rq.post(b(i)).unwrap();
        }
        assert_eq!(rq.post(b(4)), Err(TransportError::RecvQueueFull { depth: 4 }));
        assert_eq!(rq.consume(0), Some(b(0)));
        rq.post(b(4)).unwrap();
        assert_eq!((rq.get(4), rq.get(5)), (Some(&b(4)), None));
        assert_eq!(RecvQueue::default().depth, super::super::TransportConfig::default().rq_depth);
    }
}
