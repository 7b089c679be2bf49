//! Ethernet II header, optionally with one IEEE 802.1Q tag.

use super::{Layer, WireError};
use serde::{Deserialize, Serialize};

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// Untagged header length.
pub const ETH_HLEN: usize = 14;
/// Length of one 802.1Q tag.
pub const VLAN_HLEN: usize = 4;

/// An 802.1Q tag: priority code point (PFC class), drop eligible, VLAN id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Vlan {
    /// 3 bits.
    pub pcp: u8,
    pub dei: bool,
    /// 12 bits.
    pub vid: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EthHeader {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub vlan: Option<Vlan>,
}

impl Default for EthHeader {
    fn default() -> Self {
        Self {
            dst: [0x02, 0, 0, 0, 0, 2],
            src: [0x02, 0, 0, 0, 0, 1],
            vlan: None,
        }
    }
}

impl EthHeader {
    pub fn len(&self) -> usize {
        ETH_HLEN + if self.vlan.is_some() { VLAN_HLEN } else { 0 }
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&self.src);
        if let Some(v) = self.vlan {
            out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
            let tci = (u16::from(v.pcp & 7) << 13) | (u16::from(v.dei) << 12) | (v.vid & 0x0FFF);
            out.extend_from_slice(&tci.to_be_bytes());
        }
        out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    }
    /// Parses the header; returns it and its length.
    pub fn parse(b: &[u8]) -> Result<(EthHeader, usize), WireError> {
        need(b, ETH_HLEN, Layer::Ethernet)?;
        let mut dst = [0u8; 6];
        let mut src = [0u8; 6];
        dst.copy_from_slice(&b[0..6]);
        src.copy_from_slice(&b[6..12]);
        let mut ethertype = u16::from_be_bytes([b[12], b[13]]);
        let mut len = ETH_HLEN;
        let mut vlan = None;
        if ethertype == ETHERTYPE_VLAN {
            need(b, ETH_HLEN + VLAN_HLEN, Layer::Ethernet)?;
            let tci = u16::from_be_bytes([b[14], b[15]]);
            vlan = Some(Vlan {
                pcp: (tci >> 13) as u8,
                dei: tci >> 12 & 1 == 1,
                vid: tci & 0x0FFF,
            });
            ethertype = u16::from_be_bytes([b[16], b[17]]);
            len += VLAN_HLEN;
        }
        if ethertype != ETHERTYPE_IPV4 {
            return Err(WireError::BadEthertype(ethertype));
        }
        Ok((EthHeader { dst, src, vlan }, len))
    }
}

pub(crate) fn need(b: &[u8], n: usize, layer: Layer) -> Result<(), WireError> {
    if b.len() < n {
        Err(WireError::Truncated {
            layer,
            need: n,
            have: b.len(),
        })
    } else {
        Ok(())
    }
}
