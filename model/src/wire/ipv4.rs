//! IPv4 header (no options) and the Internet checksum.

use super::eth::need;
use super::{Layer, WireError};
use serde::{Deserialize, Serialize};

pub const IPV4_HLEN: usize = 20;
pub const IPPROTO_UDP: u8 = 17;

/// The two ECN bits of the TOS byte (RFC 3168).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Ecn {
    NotEct = 0b00,
    Ect1 = 0b01,
    #[default]
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn from_bits(b: u8) -> Ecn {
        match b & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

/// The IPv4 fields a sender chooses. Version (4), IHL (5), total length, protocol
/// (17) and header checksum are computed by the encoder; the reserved flag and
/// MF are 0, fragment offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ipv4Header {
    /// 6 bits: traffic class.
    pub dscp: u8,
    pub ecn: Ecn,
    pub ident: u16,
    pub dont_fragment: bool,
    pub ttl: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

impl Default for Ipv4Header {
    fn default() -> Self {
        Self {
            dscp: 26,
            ecn: Ecn::Ect0,
            ident: 0,
            dont_fragment: true,
            ttl: 64,
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
        }
    }
}

/// One's-complement sum of big-endian 16-bit words (odd tail padded with 0),
/// folded to 16 bits, not complemented.
pub fn ones_sum(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc
}

/// The Internet checksum (RFC 1071) of `data`.
pub fn internet_checksum(data: &[u8]) -> u16 {
    !(ones_sum(0, data) as u16)
}

impl Ipv4Header {
    /// Writes the header for a datagram of `total_len` bytes, checksum included.
    pub fn write(&self, total_len: u16, out: &mut Vec<u8>) {
        let start = out.len();
        out.push(0x45);
        out.push((self.dscp << 2) | self.ecn as u8);
        out.extend_from_slice(&total_len.to_be_bytes());
        out.extend_from_slice(&self.ident.to_be_bytes());
        out.extend_from_slice(&(if self.dont_fragment { 0x4000u16 } else { 0 }).to_be_bytes());
        out.push(self.ttl);
        out.push(IPPROTO_UDP);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
        let c = internet_checksum(&out[start..start + IPV4_HLEN]);
        out[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());
    }

    /// Parses and checks the header at the start of `b` (the rest of the frame).
    /// Returns the header and the total length, which is checked against `b.len()`.
    pub fn parse(b: &[u8]) -> Result<(Ipv4Header, usize), WireError> {
        need(b, IPV4_HLEN, Layer::Ipv4)?;
        let version = b[0] >> 4;
        if version != 4 {
            return Err(WireError::BadIpVersion(version));
        }
        let ihl = b[0] & 0x0F;
        if ihl != 5 {
            return Err(WireError::BadIpHeaderLength(ihl));
        }
        let total = usize::from(u16::from_be_bytes([b[2], b[3]]));
        if total < IPV4_HLEN {
            return Err(WireError::BadIpTotalLength {
                total,
                available: b.len(),
            });
        }
        if total > b.len() {
            return Err(WireError::Truncated {
                layer: Layer::Ipv4,
                need: total,
                have: b.len(),
            });
        }
        if total < b.len() {
            return Err(WireError::TrailingBytes {
                extra: b.len() - total,
            });
        }
        let found = u16::from_be_bytes([b[10], b[11]]);
        if ones_sum(0, &b[..IPV4_HLEN]) != 0xFFFF {
            let mut h = [0u8; IPV4_HLEN];
            h.copy_from_slice(&b[..IPV4_HLEN]);
            h[10] = 0;
            h[11] = 0;
            return Err(WireError::BadIpChecksum {
                found,
                expected: internet_checksum(&h),
            });
        }
        let flags_frag = u16::from_be_bytes([b[6], b[7]]);
        if flags_frag & 0x3FFF != 0 {
            return Err(WireError::Fragmented);
        }
        if b[9] != IPPROTO_UDP {
            return Err(WireError::NotUdp(b[9]));
        }
        let mut src = [0u8; 4];
        let mut dst = [0u8; 4];
        src.copy_from_slice(&b[12..16]);
        dst.copy_from_slice(&b[16..20]);
        Ok((
            Ipv4Header {
                dscp: b[1] >> 2,
                ecn: Ecn::from_bits(b[1]),
                ident: u16::from_be_bytes([b[4], b[5]]),
                dont_fragment: flags_frag & 0x4000 != 0,
                ttl: b[8],
                src,
                dst,
            },
            total,
        ))
    }
}
