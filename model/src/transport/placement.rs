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

/// rkey -> region.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MrTable {
    pub regions: BTreeMap<u32, MemoryRegion>,
}

/// A posted receive buffer (SEND target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecvBuffer {
    pub wr_id: u64,
    pub addr: u64,
    pub len: u64,
}

/// Posted receive buffers, consumed in order: the SSN-th SEND of the connection
/// lands in the SSN-th posted buffer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RecvQueue {
    /// SSN of `bufs[0]`.
    pub head_ssn: u32,
    pub bufs: VecDeque<RecvBuffer>,
}

impl RecvQueue {
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
            let mr = match mrs.regions.get(&r.rkey) {
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
            Ok(rb.addr + r.va)
        }
    }
}

/// A write that was not inside one allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemViolation {
    pub addr: u64,
    pub len: u64,
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

    /// The DMA write; refused and counted when not inside one allocation.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemViolation> {
        let len = bytes.len() as u64;
        if !self.contains(addr, len) {
            self.violations += 1;
            return Err(MemViolation { addr, len });
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
        mrs.regions.insert(7, MemoryRegion { base: 0x1000, len: 0x100, access: Access { remote_write: true }, pd: 1 });
        mrs.regions.insert(8, MemoryRegion { base: 0x2000, len: 0x100, access: Access { remote_write: false }, pd: 1 });
        mrs.regions.insert(9, MemoryRegion { base: 0x3000, len: 0x100, access: Access { remote_write: true }, pd: 2 });
        let mut rq = RecvQueue { head_ssn: 5, bufs: VecDeque::new() };
        rq.bufs.push_back(RecvBuffer { wr_id: 1, addr: 0x8000, len: 64 });
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
        assert_eq!(check(&w(0x3000, 9, 4), 4096, 1, &mrs, &rq), Err(NakCode::BadRkey), "other domain");
        assert_eq!(check(&w(0x2000, 8, 4), 4096, 1, &mrs, &rq), Err(NakCode::AccessDenied));
        assert_eq!(check(&w(0x1000, 7, 4097), 4096, 1, &mrs, &rq), Err(NakCode::InvalidRequest));
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
}
