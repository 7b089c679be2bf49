//! UDP header and checksum (IPv4 pseudo-header).

use super::ipv4::{ones_sum, IPPROTO_UDP};
use serde::{Deserialize, Serialize};

pub const UDP_HLEN: usize = 8;
/// IANA port of RoCEv2.
pub const ROCEV2_PORT: u16 = 4791;
/// RoCEv2 source ports are taken from 0xC000..=0xFFFF: the low 14 bits are the
/// path's entropy.
pub const ENTROPY_BASE: u16 = 0xC000;
pub const ENTROPY_MASK: u16 = 0x3FFF;

/// The UDP fields a sender chooses: only the source port (the path's entropy).
/// The destination port is 4791, length and checksum are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UdpHeader {
    pub src_port: u16,
}

impl Default for UdpHeader {
    fn default() -> Self {
        Self {
            src_port: ENTROPY_BASE,
        }
    }
}

impl UdpHeader {
    /// The source port carrying 14 bits of path entropy.
    pub fn from_entropy(entropy: u16) -> Self {
        Self {
            src_port: ENTROPY_BASE | (entropy & ENTROPY_MASK),
        }
    }
    pub fn entropy(&self) -> u16 {
        self.src_port & ENTROPY_MASK
    }
}

/// The UDP checksum over the IPv4 pseudo-header and `udp` (header + data) with the
/// checksum field taken as it is in `udp` (set it to 0 to compute, or leave it to
/// verify: a correct datagram then yields 0). The transmitted value replaces a
/// computed 0 by 0xFFFF (0 means "no checksum").
pub fn udp_checksum_raw(src: [u8; 4], dst: [u8; 4], udp: &[u8]) -> u16 {
    let mut acc = ones_sum(0, &src);
    acc = ones_sum(acc, &dst);
    acc = ones_sum(acc, &[0, IPPROTO_UDP]);
    acc = ones_sum(acc, &(udp.len() as u16).to_be_bytes());
    acc = ones_sum(acc, udp);
    !(acc as u16)
}

/// The value to transmit for `udp` whose checksum field is 0.
pub fn udp_checksum(src: [u8; 4], dst: [u8; 4], udp: &[u8]) -> u16 {
    match udp_checksum_raw(src, dst, udp) {
        0 => 0xFFFF,
        c => c,
    }
}
