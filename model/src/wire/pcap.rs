//! Classic libpcap files (not pcapng): nanosecond timestamps, link type Ethernet.
//!
//! File header (24 bytes, little-endian): magic `0xA1B23C4D` (nanosecond
//! resolution), version 2.4, thiszone 0, sigfigs 0, snaplen, link type 1. Each
//! record: seconds, nanoseconds, captured length, original length (4 bytes each,
//! little-endian), then the frame without FCS.

use std::io::{self, Write};

pub const MAGIC_NS: u32 = 0xA1B2_3C4D;
pub const MAGIC_US: u32 = 0xA1B2_C3D4;
pub const LINKTYPE_ETHERNET: u32 = 1;
pub const SNAPLEN: u32 = 262_144;

pub struct PcapWriter<W: Write> {
    out: W,
    frames: usize,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(Self { out, frames: 0 })
    }

    /// Appends one frame captured at `t_ns` (model time in ns since the epoch of
    /// the capture). Frames longer than the snap length are cut to it.
    pub fn write(&mut self, t_ns: u64, frame: &[u8]) -> io::Result<()> {
        let cap = frame.len().min(SNAPLEN as usize);
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(cap as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&frame[..cap])?;
        self.frames += 1;
        Ok(())
    }

    pub fn frames(&self) -> usize {
        self.frames
    }

    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Why a byte string is not a classic pcap file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PcapError {
    #[error("short pcap header ({have} of 24 bytes)")]
    ShortHeader { have: usize },
    #[error("bad magic {magic:#x}")]
    BadMagic { magic: u32 },
    #[error("short record header at byte {at}")]
    ShortRecordHeader { at: usize },
    #[error("short record at byte {at}: {need} bytes captured, {have} present")]
    ShortRecord { at: usize, need: usize, have: usize },
}

/// One record read back: timestamp in ns and the captured bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub t_ns: u64,
    pub data: Vec<u8>,
}

/// Reads a classic pcap file (either byte order, µs or ns magic, any link type is
/// reported). Returns the link type and the records.
pub fn read(b: &[u8]) -> Result<(u32, Vec<Record>), PcapError> {
    if b.len() < 24 {
        return Err(PcapError::ShortHeader { have: b.len() });
    }
    let magic_le = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let (le, ns) = match magic_le {
        MAGIC_NS => (true, true),
        MAGIC_US => (true, false),
        m if m.swap_bytes() == MAGIC_NS => (false, true),
        m if m.swap_bytes() == MAGIC_US => (false, false),
        m => return Err(PcapError::BadMagic { magic: m }),
    };
    let rd = |o: usize| {
        let x = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        }
    };
    let linktype = rd(20);
    let mut at = 24;
    let mut recs = Vec::new();
    while at < b.len() {
        if b.len() - at < 16 {
            return Err(PcapError::ShortRecordHeader { at });
        }
        let (sec, frac, cap) = (rd(at), rd(at + 4), rd(at + 8) as usize);
        at += 16;
        if b.len() - at < cap {
            return Err(PcapError::ShortRecord { at, need: cap, have: b.len() - at });
        }
        let t_ns = u64::from(sec) * 1_000_000_000 + u64::from(frac) * if ns { 1 } else { 1000 };
        recs.push(Record {
            t_ns,
            data: b[at..at + cap].to_vec(),
        });
        at += cap;
    }
    Ok((linktype, recs))
}
