//! mrnic's transport headers after the BTH: the data extension header (MPETH), the
//! placement header (PLETH), and the ACK, NAK and PROBE bodies. All fields are
//! big-endian. Offsets are from the first byte after the BTH.

use crate::sack::Bitmap;
use serde::{Deserialize, Serialize};

/// Paths per connection the wire format can name (path id 0..=15).
pub const MAX_PATHS: u8 = 16;

/// MPETH: multipath extended transport header, first in every WRITE/SEND packet.
///
/// | off | width | field |
/// |----:|------:|-------|
/// | 0 | 8 | path id (< 16) |
/// | 1 | 24 | path PSN |
/// | 4 | 32 | message sequence number (MSN) |
/// | 8 | 32 | packet offset within the message (packet index, 0 = first) |
/// | 12 | 8 | flags: bit 0 LAST, bit 1 RETX, bits 7..2 reserved |
/// | 13 | 24 | SSN: SEND sequence number (receive queue index); 0 in a WRITE |
/// | 16 | 32 | transmit timestamp (ns, mod 2^32) |
pub const MPETH_LEN: usize = 20;
/// PLETH: placement header, second in every WRITE/SEND packet.
///
/// | off | width | field |
/// |----:|------:|-------|
/// | 0 | 64 | virtual address of this packet's first payload byte (SEND: byte offset in the message) |
/// | 8 | 32 | rkey (SEND: 0, ignored) |
/// | 12 | 32 | length: this packet's payload bytes, pad excluded |
pub const PLETH_LEN: usize = 16;
/// Headers of a data packet after the BTH.
pub const DATA_HDRS_LEN: usize = MPETH_LEN + PLETH_LEN;
/// ACK body (MACK): 20 bytes of fields + the 256-bit SACK bitmap.
pub const ACK_LEN: usize = 52;
/// NAK body.
pub const NAK_LEN: usize = 12;
/// PROBE and PROBE_REPLY body.
pub const PROBE_LEN: usize = 12;
/// Bytes of the SACK bitmap (256 bits).
pub const SACK_BYTES: usize = 32;

/// MPETH flag bits.
pub mod data_flags {
    /// The last packet of its message.
    pub const LAST: u8 = 0x01;
    /// A retransmission (informational: statistics and traces).
    pub const RETX: u8 = 0x02;
    pub const RESERVED: u8 = !(LAST | RETX);
}

/// ACK flag bits.
pub mod ack_flags {
    /// Sent at once because the triggering packet revealed a path PSN gap.
    pub const PATH_GAP: u8 = 0x01;
    /// Triggered by a duplicate data packet.
    pub const DUPLICATE: u8 = 0x02;
    /// Answers a data packet with the BTH A bit.
    pub const ACK_REQ: u8 = 0x04;
    pub const RESERVED: u8 = !(PATH_GAP | DUPLICATE | ACK_REQ);
}

/// WRITE or SEND (the BTH opcode of a data packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DataKind {
    Write,
    Send,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DataExt {
    pub path_id: u8,
    /// 24 bits.
    pub path_psn: u32,
    pub msn: u32,
    pub pkt_offset: u32,
    /// [`data_flags`]; reserved bits are carried as received.
    pub flags: u8,
    /// SEND sequence number (24 bits): which posted receive buffer a SEND
    /// consumes. Sent as 0 and ignored in a WRITE.
    pub ssn: u32,
    pub timestamp: u32,
}

impl DataExt {
    pub fn last(&self) -> bool {
        self.flags & data_flags::LAST != 0
    }
    pub fn retx(&self) -> bool {
        self.flags & data_flags::RETX != 0
    }
}

/// Placement header without its length field, which is the payload's length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    pub va: u64,
    pub rkey: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ack {
    /// Path of the data packet that triggered this ACK.
    pub path_id: u8,
    /// Highest path PSN received on that path (24 bits).
    pub path_psn: u32,
    /// [`ack_flags`]; reserved bits are carried as received.
    pub flags: u8,
    /// CE-marked data packets received on `path_id` since the previous ACK that
    /// named `path_id` (saturates at 255).
    pub ecn_ce: u8,
    /// Data packets received on `path_id` over the same interval (saturates).
    pub ecn_pkts: u8,
    /// The receiver's rate hint for this connection in Mbit/s; 0 = no limit.
    pub rate_hint: u32,
    /// The MPETH timestamp of the triggering data packet.
    pub ts_echo: u32,
    /// ns between receipt of the triggering packet and this ACK's transmission.
    pub ack_delay: u32,
    /// Bit `i`: PSN `cumulative + i` received (cumulative = the BTH PSN). Bit 0 is 0.
    pub sack: Bitmap,
}

/// NAK syndromes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum NakCode {
    /// The rkey names no region, or a region of another protection domain / QP.
    BadRkey = 1,
    /// `[va, va + length)` is not inside the region (SEND: not inside the
    /// receive buffer).
    OutOfBounds = 2,
    /// The region does not grant remote write.
    AccessDenied = 3,
    /// SEND with no posted receive buffer for its MSN (receiver not ready).
    NoRecvBuffer = 4,
    /// Malformed request: payload above the MTU, a packet offset or LAST flag that
    /// contradicts earlier packets of the message.
    InvalidRequest = 5,
    /// The responder could not place the data: its DMA write failed (AXI `bresp`
    /// SLVERR or DECERR). Fatal, like codes 1-3 and 5 (remote operational error).
    RemoteOpError = 6,
}

impl NakCode {
    pub fn from_code(c: u8) -> Option<NakCode> {
        Some(match c {
            1 => NakCode::BadRkey,
            2 => NakCode::OutOfBounds,
            3 => NakCode::AccessDenied,
            4 => NakCode::NoRecvBuffer,
            5 => NakCode::InvalidRequest,
            6 => NakCode::RemoteOpError,
            _ => return None,
        })
    }
    /// Only [`NakCode::NoRecvBuffer`] is retried; every other code is fatal for the
    /// message (completion with error, QP to the error state).
    pub fn is_retryable(self) -> bool {
        self == NakCode::NoRecvBuffer
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Nak {
    pub code: NakCode,
    /// Path the offending packet arrived on.
    pub path_id: u8,
    /// NoRecvBuffer: µs to wait before retrying; 0 for the other codes.
    pub rnr_delay_us: u16,
    /// MSN of the offending message.
    pub msn: u32,
    /// The receiver's cumulative PSN (24 bits): the NAK also acknowledges.
    pub cumulative: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Probe {
    pub path_id: u8,
    /// The UDP source port under test (PROBE: its own; PROBE_REPLY: copied from
    /// the PROBE it answers).
    pub port: u16,
    pub seq: u32,
    /// PROBE: transmit time; PROBE_REPLY: the PROBE's, echoed.
    pub timestamp: u32,
}

pub(crate) fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
pub(crate) fn be24(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([0, b[o], b[o + 1], b[o + 2]])
}
pub(crate) fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn put_id24(out: &mut Vec<u8>, id: u8, v24: u32) {
    out.extend_from_slice(&((u32::from(id) << 24) | (v24 & 0x00FF_FFFF)).to_be_bytes());
}

impl DataExt {
    pub fn write(&self, out: &mut Vec<u8>) {
        put_id24(out, self.path_id, self.path_psn);
        out.extend_from_slice(&self.msn.to_be_bytes());
        out.extend_from_slice(&self.pkt_offset.to_be_bytes());
        out.extend_from_slice(
            &((u32::from(self.flags) << 24) | (self.ssn & 0x00FF_FFFF)).to_be_bytes(),
        );
        out.extend_from_slice(&self.timestamp.to_be_bytes());
    }
    /// `b` holds at least [`MPETH_LEN`] bytes.
    pub fn parse(b: &[u8]) -> DataExt {
        DataExt {
            path_id: b[0],
            path_psn: be24(b, 1),
            msn: be32(b, 4),
            pkt_offset: be32(b, 8),
            flags: b[12],
            ssn: be24(b, 13),
            timestamp: be32(b, 16),
        }
    }
}

impl Placement {
    pub fn write(&self, len: u32, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.va.to_be_bytes());
        out.extend_from_slice(&self.rkey.to_be_bytes());
        out.extend_from_slice(&len.to_be_bytes());
    }
    /// `b` holds at least [`PLETH_LEN`] bytes; returns the header and its length field.
    pub fn parse(b: &[u8]) -> (Placement, u32) {
        let mut va = [0u8; 8];
        va.copy_from_slice(&b[0..8]);
        (
            Placement {
                va: u64::from_be_bytes(va),
                rkey: be32(b, 8),
            },
            be32(b, 12),
        )
    }
}

/// The bitmap as a 256-bit big-endian number: byte 0 holds bits 255..248, byte 31
/// holds bits 7..0 (bit 0, the cumulative PSN itself, is the LSB of byte 31).
pub fn sack_to_bytes(s: &Bitmap) -> [u8; SACK_BYTES] {
    let mut out = [0u8; SACK_BYTES];
    for (w, word) in s.0.iter().enumerate() {
        // word 3 (bits 255..192) goes first
        out[(3 - w) * 8..(4 - w) * 8].copy_from_slice(&word.to_be_bytes());
    }
    out
}

pub fn sack_from_bytes(b: &[u8]) -> Bitmap {
    let mut s = Bitmap::default();
    for w in 0..4 {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[(3 - w) * 8..(4 - w) * 8]);
        s.0[w] = u64::from_be_bytes(x);
    }
    s
}

impl Ack {
    pub fn write(&self, out: &mut Vec<u8>) {
        put_id24(out, self.path_id, self.path_psn);
        out.extend_from_slice(&[self.flags, self.ecn_ce, self.ecn_pkts, 0]);
        out.extend_from_slice(&self.rate_hint.to_be_bytes());
        out.extend_from_slice(&self.ts_echo.to_be_bytes());
        out.extend_from_slice(&self.ack_delay.to_be_bytes());
        out.extend_from_slice(&sack_to_bytes(&self.sack));
    }
    /// `b` holds at least [`ACK_LEN`] bytes.
    pub fn parse(b: &[u8]) -> Ack {
        Ack {
            path_id: b[0],
            path_psn: be24(b, 1),
            flags: b[4],
            ecn_ce: b[5],
            ecn_pkts: b[6],
            rate_hint: be32(b, 8),
            ts_echo: be32(b, 12),
            ack_delay: be32(b, 16),
            sack: sack_from_bytes(&b[20..52]),
        }
    }
}

impl Nak {
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.code as u8);
        out.push(self.path_id);
        out.extend_from_slice(&self.rnr_delay_us.to_be_bytes());
        out.extend_from_slice(&self.msn.to_be_bytes());
        out.extend_from_slice(&(self.cumulative & 0x00FF_FFFF).to_be_bytes());
    }
}

impl Probe {
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.path_id);
        out.push(0);
        out.extend_from_slice(&self.port.to_be_bytes());
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.timestamp.to_be_bytes());
    }
    /// `b` holds at least [`PROBE_LEN`] bytes.
    pub fn parse(b: &[u8]) -> Probe {
        Probe {
            path_id: b[0],
            port: be16(b, 2),
            seq: be32(b, 4),
            timestamp: be32(b, 8),
        }
    }
}
