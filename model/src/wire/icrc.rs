//! CRC-32 and the RoCEv2 invariant CRC (ICRC).
//!
//! The CRC is the IEEE 802.3 / zlib CRC-32: reflected polynomial `0xEDB88320`,
//! initial value `0xFFFFFFFF`, final complement. The ICRC of a RoCEv2-over-IPv4
//! packet is that CRC over
//!
//! ```text
//! 8 bytes 0xFF (the masked LRH that IPv4 lacks)
//! IPv4 header with TOS = 0xFF, TTL = 0xFF, header checksum = 0xFFFF
//! UDP header with checksum = 0xFFFF
//! BTH with byte 4 (FECN/BECN/resv, "resv8a") = 0xFF
//! every following header, the payload and the pad bytes
//! ```
//!
//! and it is transmitted least significant byte first (`crc.to_le_bytes()`), like
//! an Ethernet FCS. The CRC state after the eight 0xFF bytes is `0xDEBB20E3`
//! (uncomplemented), which is the constant hardware seeds with.

/// Byte-at-a-time table for the reflected polynomial 0xEDB88320.
const TABLE: [u32; 256] = make_table();

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// A running CRC-32 (state is kept uncomplemented, as hardware keeps it).
#[derive(Clone, Copy, Debug)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32 {
    pub const fn new() -> Self {
        Self { state: 0xFFFF_FFFF }
    }
    /// Starts from a raw (uncomplemented) state, e.g. [`ICRC_SEED`].
    pub const fn from_state(state: u32) -> Self {
        Self { state }
    }
    pub fn state(&self) -> u32 {
        self.state
    }
    pub fn update(&mut self, data: &[u8]) {
        let mut c = self.state;
        for &b in data {
            c = TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
        }
        self.state = c;
    }
    /// The CRC value (complemented state).
    pub fn finish(&self) -> u32 {
        !self.state
    }
}

/// CRC-32 of `data` (zlib's `crc32`).
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(data);
    c.finish()
}

/// Raw CRC state after `0xFFFFFFFF` and eight 0xFF bytes.
pub const ICRC_SEED: u32 = 0xDEBB_20E3;

/// Offset of the masked BTH byte (FECN, BECN, reserved) within the BTH.
pub const BTH_RESV8A: usize = 4;

/// ICRC of a RoCEv2 IPv4 packet. `l3` runs from the first byte of the IPv4 header
/// to the last pad byte (the ICRC itself excluded). Returns `None` when `l3` is too
/// short to hold the IPv4 header (with its IHL), the UDP header and a BTH.
pub fn icrc_ipv4(l3: &[u8]) -> Option<u32> {
    let ihl = (*l3.first()? & 0x0F) as usize * 4;
    if ihl < 20 {
        return None;
    }
    let masked_len = ihl + 8 + 12;
    if l3.len() < masked_len {
        return None;
    }
    let mut hdr = [0u8; 60 + 8 + 12];
    let hdr = &mut hdr[..masked_len];
    hdr.copy_from_slice(&l3[..masked_len]);
    hdr[1] = 0xFF; // TOS (DSCP + ECN)
    hdr[8] = 0xFF; // TTL
    hdr[10] = 0xFF; // header checksum
    hdr[11] = 0xFF;
    hdr[ihl + 6] = 0xFF; // UDP checksum
    hdr[ihl + 7] = 0xFF;
    hdr[ihl + 8 + BTH_RESV8A] = 0xFF;
    let mut c = Crc32::from_state(ICRC_SEED);
    c.update(hdr);
    c.update(&l3[masked_len..]);
    Some(c.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn seed_is_eight_ff_bytes() {
        let mut c = Crc32::new();
        c.update(&[0xFF; 8]);
        assert_eq!(c.state(), ICRC_SEED);
    }

    /// A CNP captured from a ConnectX-4 Lx (public capture, also used by scapy's
    /// RoCE tests): the ICRC bytes on the wire are `82 fd 00 2a`. Its BTH byte 4 has
    /// BECN set and the IPv4 TOS is 0xC2: both masked.
    #[test]
    fn connectx_cnp_golden() {
        let hex = "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161\
                   0a0011010a001201000012b700280000\
                   8100ffff400001180000000000000000\
                   00000000000000000000000082fd002a";
        let b: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let l3 = &b[14..b.len() - 4];
        let icrc = icrc_ipv4(l3).unwrap();
        assert_eq!(icrc.to_le_bytes(), [0x82, 0xfd, 0x00, 0x2a]);
    }
}
