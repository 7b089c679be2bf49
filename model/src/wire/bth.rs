//! InfiniBand base transport header (BTH) as RoCEv2 carries it, and mrnic's opcodes.

use serde::{Deserialize, Serialize};

pub const BTH_LEN: usize = 12;
/// 24-bit fields (PSN, destination QP).
pub const MASK24: u32 = 0x00FF_FFFF;
/// The only transport header version defined.
pub const TVER: u8 = 0;
/// The default partition key (full member of the default partition).
pub const DEFAULT_PKEY: u16 = 0xFFFF;

/// mrnic opcodes, all in the manufacturer-specific range 0xC0..=0xFF.
pub mod opcode {
    /// RDMA WRITE data: placed at the placement header's (rkey, VA).
    pub const WRITE: u8 = 0xC0;
    /// SEND data: placed at offset VA of the posted receive buffer matched by MSN.
    pub const SEND: u8 = 0xC1;
    pub const ACK: u8 = 0xC2;
    pub const NAK: u8 = 0xC3;
    pub const PROBE: u8 = 0xC4;
    pub const PROBE_REPLY: u8 = 0xC5;
}

/// The BTH fields a sender chooses. Opcode and pad count are derived from the
/// body, TVer is 0, the reserved bits are sent as 0 and ignored on receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bth {
    /// SE: solicited event (data packets: the last packet of a message whose
    /// completion the requester wants to wake the responder).
    pub solicited: bool,
    /// M: migration request; mrnic sends 1 (no APM state machine: "migrated").
    pub mig_req: bool,
    pub pkey: u16,
    /// 24 bits.
    pub dest_qp: u32,
    /// A: acknowledge request.
    pub ack_req: bool,
    /// 24 bits.
    pub psn: u32,
}

impl Default for Bth {
    fn default() -> Self {
        Self {
            solicited: false,
            mig_req: true,
            pkey: DEFAULT_PKEY,
            dest_qp: 0,
            ack_req: false,
            psn: 0,
        }
    }
}

impl Bth {
    pub fn write(&self, opcode: u8, pad: u8, out: &mut Vec<u8>) {
        out.push(opcode);
        out.push(
            (u8::from(self.solicited) << 7)
                | (u8::from(self.mig_req) << 6)
                | ((pad & 3) << 4)
                | TVER,
        );
        out.extend_from_slice(&self.pkey.to_be_bytes());
        out.extend_from_slice(&(self.dest_qp & MASK24).to_be_bytes());
        out.extend_from_slice(
            &((u32::from(self.ack_req) << 31) | (self.psn & MASK24)).to_be_bytes(),
        );
    }

    /// Splits a 12-byte BTH into (opcode, pad count, tver, fields). The reserved
    /// bits (byte 4, byte 8 bits 6..0) are ignored.
    pub fn parse(b: &[u8; BTH_LEN]) -> (u8, u8, u8, Bth) {
        let w1 = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
        let w2 = u32::from_be_bytes([b[8], b[9], b[10], b[11]]);
        (
            b[0],
            (b[1] >> 4) & 3,
            b[1] & 0x0F,
            Bth {
                solicited: b[1] & 0x80 != 0,
                mig_req: b[1] & 0x40 != 0,
                pkey: u16::from_be_bytes([b[2], b[3]]),
                dest_qp: w1 & MASK24,
                ack_req: w2 >> 31 == 1,
                psn: w2 & MASK24,
            },
        )
    }
}
