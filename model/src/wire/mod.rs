//! The mrnic wire format: typed frames, [`encode`] and [`decode`].
//!
//! A frame is Ethernet II (optionally one 802.1Q tag) / IPv4 (no options) / UDP to
//! port 4791 / BTH / mrnic body / ICRC. `docs/protocol.md` is the byte-by-byte
//! specification; this module is its executable form. [`decode`] never panics: any
//! byte string yields a [`Frame`] or a [`WireError`] naming the first check that
//! failed, in this order: Ethernet, IPv4 (version, IHL, lengths, header checksum,
//! fragmentation, protocol), UDP (port, length, checksum), ICRC, BTH (version,
//! opcode, pad), body (length, path id, SACK bit 0, NAK code).
//!
//! Values that a typed field can hold but the wire cannot (a PSN above 24 bits, a
//! DSCP above 63) are truncated to the field's width by [`encode`];
//! [`Frame::validate`] reports them.

pub mod axis;
pub mod bth;
pub mod eth;
pub mod ext;
pub mod fbuf;
pub mod gen;
pub mod icrc;
pub mod ipv4;
pub mod parser_shell;
pub mod realign;
pub mod pcap;
pub mod udp;

pub use bth::{opcode, Bth, BTH_LEN, DEFAULT_PKEY, MASK24};
pub use eth::{EthHeader, Vlan, ETHERTYPE_IPV4, ETHERTYPE_VLAN, ETH_HLEN, VLAN_HLEN};
pub use ext::{
    ack_flags, data_flags, Ack, DataExt, DataKind, Nak, NakCode, Placement, Probe, ACK_LEN,
    DATA_HDRS_LEN, MAX_PATHS, MPETH_LEN, NAK_LEN, PLETH_LEN, PROBE_LEN,
};
pub use icrc::{crc32, icrc_ipv4};
pub use ipv4::{Ecn, Ipv4Header, IPV4_HLEN};
pub use udp::{UdpHeader, ROCEV2_PORT, UDP_HLEN};

use serde::{Deserialize, Serialize};
use std::fmt;

/// ICRC bytes at the end of every packet.
pub const ICRC_LEN: usize = 4;
/// Bytes from the IPv4 header through the BTH plus the ICRC: the per-packet
/// overhead above Ethernet common to every opcode.
pub const L3_OVERHEAD: usize = IPV4_HLEN + UDP_HLEN + BTH_LEN + ICRC_LEN;
/// Largest payload a data packet can carry (IPv4 total length is 16 bits).
pub const MAX_PAYLOAD: usize = 65535 - L3_OVERHEAD - DATA_HDRS_LEN - 3;

/// The protocol layer at which a frame was found too short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Layer {
    Ethernet,
    Ipv4,
    Udp,
    Bth,
    /// The mrnic headers after the BTH (MPETH + PLETH, ACK, NAK, PROBE body).
    Extension,
}

/// Why a byte string is not a valid mrnic frame. Each variant is one check of
/// `docs/protocol.md` §"Receive checks"; a receiver drops the frame and counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WireError {
    /// Fewer bytes than the layer's header (or, for IPv4, than its total length).
    Truncated {
        layer: Layer,
        need: usize,
        have: usize,
    },
    /// Ethertype (after at most one 802.1Q tag) is not IPv4.
    BadEthertype(u16),
    BadIpVersion(u8),
    /// IHL other than 5 (IPv4 options are not accepted).
    BadIpHeaderLength(u8),
    /// IPv4 total length below 20.
    BadIpTotalLength {
        total: usize,
        available: usize,
    },
    /// Bytes after the IPv4 datagram (mrnic frames are never padded: all are >= 60 bytes).
    TrailingBytes {
        extra: usize,
    },
    BadIpChecksum {
        found: u16,
        expected: u16,
    },
    /// MF set or a fragment offset: mrnic packets are never fragmented.
    Fragmented,
    /// IPv4 protocol is not 17.
    NotUdp(u8),
    /// UDP destination port is not 4791.
    WrongUdpPort(u16),
    /// UDP length differs from the IPv4 payload length.
    UdpLengthMismatch {
        udp: usize,
        ip_payload: usize,
    },
    BadUdpChecksum {
        found: u16,
        expected: u16,
    },
    /// ICRC as received vs as computed (both as the little-endian value on the wire).
    BadIcrc {
        found: u32,
        expected: u32,
    },
    /// BTH TVer is not 0.
    BadTransportVersion(u8),
    /// BTH opcode is not an mrnic opcode.
    UnknownOpcode(u8),
    /// Body length does not match what the opcode (and for data, the placement
    /// header's length field and the pad count) implies.
    LengthMismatch {
        opcode: u8,
        expected: usize,
        actual: usize,
    },
    /// BTH pad count is not `(4 - len % 4) % 4` for data, or not 0 for the rest.
    BadPadCount {
        opcode: u8,
        found: u8,
        expected: u8,
    },
    /// Path id >= 16.
    BadPathId(u8),
    /// ACK whose SACK bit 0 (the cumulative PSN itself) is set.
    SackBaseBitSet,
    /// NAK code not defined.
    BadNakCode(u8),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for WireError {}

/// A typed frame the encoder cannot represent faithfully ([`Frame::validate`]): the
/// fields out of range, each named.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("frame not encodable: {}", problems.join(", "))]
pub struct InvalidFrame {
    pub problems: Vec<&'static str>,
}

/// What follows the BTH; it determines the opcode.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Body {
    /// WRITE or SEND data: MPETH, PLETH (its length field = `payload.len()`), payload.
    Data {
        kind: DataKind,
        ext: DataExt,
        placement: Placement,
        payload: Vec<u8>,
    },
    Ack(Ack),
    Nak(Nak),
    Probe(Probe),
    ProbeReply(Probe),
}

impl Body {
    pub fn opcode(&self) -> u8 {
        match self {
            Body::Data {
                kind: DataKind::Write,
                ..
            } => opcode::WRITE,
            Body::Data {
                kind: DataKind::Send,
                ..
            } => opcode::SEND,
            Body::Ack(_) => opcode::ACK,
            Body::Nak(_) => opcode::NAK,
            Body::Probe(_) => opcode::PROBE,
            Body::ProbeReply(_) => opcode::PROBE_REPLY,
        }
    }
    /// BTH pad count: payload bytes to the next multiple of 4.
    pub fn pad(&self) -> u8 {
        match self {
            Body::Data { payload, .. } => ((4 - payload.len() % 4) % 4) as u8,
            _ => 0,
        }
    }
    /// Bytes after the BTH, pad included, ICRC excluded.
    pub fn len(&self) -> usize {
        match self {
            Body::Data { payload, .. } => DATA_HDRS_LEN + payload.len() + self.pad() as usize,
            Body::Ack(_) => ACK_LEN,
            Body::Nak(_) => NAK_LEN,
            Body::Probe(_) | Body::ProbeReply(_) => PROBE_LEN,
        }
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    /// The path id every body carries.
    pub fn path_id(&self) -> u8 {
        match self {
            Body::Data { ext, .. } => ext.path_id,
            Body::Ack(a) => a.path_id,
            Body::Nak(n) => n.path_id,
            Body::Probe(p) | Body::ProbeReply(p) => p.path_id,
        }
    }
}

/// One mrnic packet as it is on the wire, minus what the encoder computes
/// (lengths, checksums, ICRC, opcode, pad count, constant fields).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    pub eth: EthHeader,
    pub ip: Ipv4Header,
    pub udp: UdpHeader,
    pub bth: Bth,
    pub body: Body,
}

impl Frame {
    /// A frame with default addresses around `bth` and `body`.
    pub fn new(bth: Bth, body: Body) -> Frame {
        Frame {
            eth: EthHeader::default(),
            ip: Ipv4Header::default(),
            udp: UdpHeader::default(),
            bth,
            body,
        }
    }
    pub fn opcode(&self) -> u8 {
        self.body.opcode()
    }
    /// Bytes of the encoded frame.
    pub fn wire_len(&self) -> usize {
        self.eth.len() + L3_OVERHEAD + self.body.len()
    }
    /// Reports values the encoder would truncate, and anything [`decode`] would
    /// refuse (path id >= 16, SACK bit 0 set, a payload too long for IPv4).
    pub fn validate(&self) -> Result<(), InvalidFrame> {
        let mut bad = Vec::new();
        if let Some(v) = self.eth.vlan {
            if v.pcp > 7 || v.vid > 0x0FFF {
                bad.push("vlan pcp > 7 or vid > 4095");
            }
        }
        if self.ip.dscp > 63 {
            bad.push("dscp > 63");
        }
        if self.bth.dest_qp > MASK24 || self.bth.psn > MASK24 {
            bad.push("BTH dest QP or PSN above 24 bits");
        }
        if self.body.path_id() >= MAX_PATHS {
            bad.push("path id >= 16");
        }
        match &self.body {
            Body::Data { ext, payload, .. } => {
                if ext.path_psn > MASK24 || ext.ssn > MASK24 {
                    bad.push("path PSN or SSN above 24 bits");
                }
                if payload.len() > MAX_PAYLOAD {
                    bad.push("payload too long for IPv4");
                }
            }
            Body::Ack(a) => {
                if a.path_psn > MASK24 {
                    bad.push("path PSN above 24 bits");
                }
                if a.sack.get(0) {
                    bad.push("SACK bit 0 set");
                }
            }
            Body::Nak(n) => {
                if n.cumulative > MASK24 {
                    bad.push("NAK cumulative PSN above 24 bits");
                }
            }
            Body::Probe(_) | Body::ProbeReply(_) => {}
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(InvalidFrame { problems: bad })
        }
    }
}

/// Encodes a frame: IPv4 total length and header checksum, UDP length and
/// checksum, BTH opcode and pad count, pad bytes (0) and ICRC are filled in.
pub fn encode(f: &Frame) -> Vec<u8> {
    let mut out = Vec::with_capacity(f.wire_len());
    f.eth.write(&mut out);
    let l3 = out.len();
    let udp_len = UDP_HLEN + BTH_LEN + f.body.len() + ICRC_LEN;
    f.ip.write((IPV4_HLEN + udp_len) as u16, &mut out);
    let l4 = out.len();
    out.extend_from_slice(&f.udp.src_port.to_be_bytes());
    out.extend_from_slice(&ROCEV2_PORT.to_be_bytes());
    out.extend_from_slice(&(udp_len as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    let pad = f.body.pad();
    f.bth.write(f.body.opcode(), pad, &mut out);
    match &f.body {
        Body::Data {
            ext,
            placement,
            payload,
            ..
        } => {
            ext.write(&mut out);
            placement.write(payload.len() as u32, &mut out);
            out.extend_from_slice(payload);
            out.extend(std::iter::repeat_n(0, pad as usize));
        }
        Body::Ack(a) => a.write(&mut out),
        Body::Nak(n) => n.write(&mut out),
        Body::Probe(p) | Body::ProbeReply(p) => p.write(&mut out),
    }
    let icrc = icrc_ipv4(&out[l3..]).unwrap_or(0);
    out.extend_from_slice(&icrc.to_le_bytes());
    let c = udp::udp_checksum(f.ip.src, f.ip.dst, &out[l4..]);
    out[l4 + 6..l4 + 8].copy_from_slice(&c.to_be_bytes());
    out
}

/// Recomputes the IPv4 header checksum, the ICRC and the UDP checksum of an
/// encoded frame in place, trusting its Ethernet header, IHL and lengths as they
/// are (it checks nothing else). For tests that build frames with one field
/// illegal and everything else consistent. Does nothing (returns false) when the
/// buffer is too short for the lengths it claims.
pub fn reseal(buf: &mut [u8]) -> bool {
    if buf.len() < ETH_HLEN {
        return false;
    }
    let tagged = buf[12..14] == ETHERTYPE_VLAN.to_be_bytes();
    let l3 = if tagged {
        ETH_HLEN + VLAN_HLEN
    } else {
        ETH_HLEN
    };
    if buf.len() < l3 + IPV4_HLEN {
        return false;
    }
    let ihl = usize::from(buf[l3] & 0x0F) * 4;
    let l4 = l3 + ihl;
    if ihl < IPV4_HLEN || buf.len() < l4 + UDP_HLEN + BTH_LEN + ICRC_LEN {
        return false;
    }
    buf[l3 + 10] = 0;
    buf[l3 + 11] = 0;
    let c = ipv4::internet_checksum(&buf[l3..l4]);
    buf[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
    let end = buf.len();
    let Some(icrc) = icrc_ipv4(&buf[l3..end - ICRC_LEN]) else {
        return false;
    };
    buf[end - ICRC_LEN..].copy_from_slice(&icrc.to_le_bytes());
    let mut src = [0u8; 4];
    let mut dst = [0u8; 4];
    src.copy_from_slice(&buf[l3 + 12..l3 + 16]);
    dst.copy_from_slice(&buf[l3 + 16..l3 + 20]);
    buf[l4 + 6] = 0;
    buf[l4 + 7] = 0;
    let c = udp::udp_checksum(src, dst, &buf[l4..]);
    buf[l4 + 6..l4 + 8].copy_from_slice(&c.to_be_bytes());
    true
}

/// Decodes and checks one Ethernet frame (no FCS).
pub fn decode(b: &[u8]) -> Result<Frame, WireError> {
    let (eth, l3) = EthHeader::parse(b)?;
    let (ip, _total) = Ipv4Header::parse(&b[l3..])?;
    let l4 = l3 + IPV4_HLEN;
    let udp_bytes = &b[l4..];
    eth::need(udp_bytes, UDP_HLEN, Layer::Udp)?;
    let src_port = ext::be16(udp_bytes, 0);
    let dst_port = ext::be16(udp_bytes, 2);
    let udp_len = usize::from(ext::be16(udp_bytes, 4));
    let udp_csum = ext::be16(udp_bytes, 6);
    if dst_port != ROCEV2_PORT {
        return Err(WireError::WrongUdpPort(dst_port));
    }
    if udp_len != udp_bytes.len() {
        return Err(WireError::UdpLengthMismatch {
            udp: udp_len,
            ip_payload: udp_bytes.len(),
        });
    }
    if udp_csum != 0 && udp::udp_checksum_raw(ip.src, ip.dst, udp_bytes) != 0 {
        let mut zeroed = udp_bytes.to_vec();
        zeroed[6] = 0;
        zeroed[7] = 0;
        let expected = udp::udp_checksum(ip.src, ip.dst, &zeroed);
        return Err(WireError::BadUdpChecksum {
            found: udp_csum,
            expected,
        });
    }
    let l5 = &udp_bytes[UDP_HLEN..];
    eth::need(l5, BTH_LEN + ICRC_LEN, Layer::Bth)?;
    let icrc_at = b.len() - ICRC_LEN;
    let found = u32::from_le_bytes([b[icrc_at], b[icrc_at + 1], b[icrc_at + 2], b[icrc_at + 3]]);
    let expected = icrc_ipv4(&b[l3..icrc_at]).unwrap_or(!found);
    if found != expected {
        return Err(WireError::BadIcrc { found, expected });
    }
    let mut bth_bytes = [0u8; BTH_LEN];
    bth_bytes.copy_from_slice(&l5[..BTH_LEN]);
    let (op, pad, tver, bth) = Bth::parse(&bth_bytes);
    if tver != bth::TVER {
        return Err(WireError::BadTransportVersion(tver));
    }
    let body_bytes = &l5[BTH_LEN..l5.len() - ICRC_LEN];
    let fixed = |len: usize| -> Result<&[u8], WireError> {
        if body_bytes.len() < len {
            return Err(WireError::Truncated {
                layer: Layer::Extension,
                need: len,
                have: body_bytes.len(),
            });
        }
        if body_bytes.len() != len {
            return Err(WireError::LengthMismatch {
                opcode: op,
                expected: len,
                actual: body_bytes.len(),
            });
        }
        if pad != 0 {
            return Err(WireError::BadPadCount {
                opcode: op,
                found: pad,
                expected: 0,
            });
        }
        Ok(body_bytes)
    };
    let check_path = |id: u8| {
        if id >= MAX_PATHS {
            Err(WireError::BadPathId(id))
        } else {
            Ok(())
        }
    };
    let body = match op {
        opcode::WRITE | opcode::SEND => {
            if body_bytes.len() < DATA_HDRS_LEN {
                return Err(WireError::Truncated {
                    layer: Layer::Extension,
                    need: DATA_HDRS_LEN,
                    have: body_bytes.len(),
                });
            }
            let ext = DataExt::parse(&body_bytes[..MPETH_LEN]);
            let (placement, len) = Placement::parse(&body_bytes[MPETH_LEN..DATA_HDRS_LEN]);
            let area = &body_bytes[DATA_HDRS_LEN..];
            let expected = DATA_HDRS_LEN as u64 + u64::from(len) + u64::from(pad);
            if expected != area.len() as u64 + DATA_HDRS_LEN as u64 {
                return Err(WireError::LengthMismatch {
                    opcode: op,
                    expected: usize::try_from(expected).unwrap_or(usize::MAX),
                    actual: body_bytes.len(),
                });
            }
            let want_pad = ((4 - len % 4) % 4) as u8;
            if pad != want_pad {
                return Err(WireError::BadPadCount {
                    opcode: op,
                    found: pad,
                    expected: want_pad,
                });
            }
            check_path(ext.path_id)?;
            let kind = if op == opcode::WRITE {
                DataKind::Write
            } else {
                DataKind::Send
            };
            Body::Data {
                kind,
                ext,
                placement,
                payload: area[..len as usize].to_vec(),
            }
        }
        opcode::ACK => {
            let a = Ack::parse(fixed(ACK_LEN)?);
            check_path(a.path_id)?;
            if a.sack.get(0) {
                return Err(WireError::SackBaseBitSet);
            }
            Body::Ack(a)
        }
        opcode::NAK => {
            let n = fixed(NAK_LEN)?;
            check_path(n[1])?;
            let code = NakCode::from_code(n[0]).ok_or(WireError::BadNakCode(n[0]))?;
            Body::Nak(Nak {
                code,
                path_id: n[1],
                rnr_delay_us: ext::be16(n, 2),
                msn: ext::be32(n, 4),
                cumulative: ext::be24(n, 9),
            })
        }
        opcode::PROBE | opcode::PROBE_REPLY => {
            let p = Probe::parse(fixed(PROBE_LEN)?);
            check_path(p.path_id)?;
            if op == opcode::PROBE {
                Body::Probe(p)
            } else {
                Body::ProbeReply(p)
            }
        }
        other => return Err(WireError::UnknownOpcode(other)),
    };
    Ok(Frame {
        eth,
        ip,
        udp: UdpHeader { src_port },
        bth,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Frame {
        Frame::new(
            Bth {
                dest_qp: 0x11,
                psn: 5,
                ..Bth::default()
            },
            Body::Data {
                kind: DataKind::Write,
                ext: DataExt {
                    path_id: 3,
                    path_psn: 9,
                    msn: 1,
                    pkt_offset: 0,
                    flags: data_flags::LAST,
                    ssn: 0,
                    timestamp: 7,
                },
                placement: Placement {
                    va: 0x1000,
                    rkey: 0x42,
                },
                payload: (0..len as u8).collect(),
            },
        )
    }

    #[test]
    fn data_round_trip_all_pads() {
        for len in 0..9 {
            let f = data(len);
            let b = encode(&f);
            assert_eq!(b.len(), f.wire_len());
            assert_eq!(decode(&b), Ok(f));
        }
    }
}
