//! Random frames for fuzzing, smoke tests and traffic generators.

use super::*;
use crate::sack::Bitmap;
use rand::Rng;

fn path_id<R: Rng>(rng: &mut R) -> u8 {
    rng.gen_range(0..MAX_PATHS)
}

/// A random valid frame ([`Frame::validate`] passes) with a payload of at most
/// `max_payload` bytes (data packets only).
pub fn random_frame<R: Rng>(rng: &mut R, max_payload: usize) -> Frame {
    let eth = EthHeader {
        dst: rng.gen(),
        src: rng.gen(),
        vlan: if rng.gen_bool(0.2) {
            Some(Vlan {
                pcp: rng.gen_range(0..8),
                dei: rng.gen(),
                vid: rng.gen_range(0..4096),
            })
        } else {
            None
        },
    };
    let ip = Ipv4Header {
        dscp: rng.gen_range(0..64),
        ecn: Ecn::from_bits(rng.gen()),
        ident: rng.gen(),
        dont_fragment: rng.gen(),
        ttl: rng.gen(),
        src: rng.gen(),
        dst: rng.gen(),
    };
    let udp = UdpHeader {
        src_port: rng.gen(),
    };
    let bth = Bth {
        solicited: rng.gen(),
        mig_req: rng.gen(),
        pkey: rng.gen(),
        dest_qp: rng.gen::<u32>() & MASK24,
        ack_req: rng.gen(),
        psn: rng.gen::<u32>() & MASK24,
    };
    let body = match rng.gen_range(0..6) {
        0 | 1 => {
            let len = rng.gen_range(0..=max_payload.min(MAX_PAYLOAD));
            let mut payload = vec![0u8; len];
            rng.fill(&mut payload[..]);
            Body::Data {
                kind: if rng.gen() {
                    DataKind::Write
                } else {
                    DataKind::Send
                },
                ext: DataExt {
                    path_id: path_id(rng),
                    path_psn: rng.gen::<u32>() & MASK24,
                    msn: rng.gen(),
                    pkt_offset: rng.gen(),
                    flags: rng.gen(),
                    ssn: rng.gen::<u32>() & MASK24,
                    timestamp: rng.gen(),
                },
                placement: Placement {
                    va: rng.gen(),
                    rkey: rng.gen(),
                },
                payload,
            }
        }
        2 => {
            let mut sack = Bitmap(rng.gen());
            sack.0[0] &= !1;
            Body::Ack(Ack {
                path_id: path_id(rng),
                path_psn: rng.gen::<u32>() & MASK24,
                flags: rng.gen(),
                ecn_ce: rng.gen(),
                ecn_pkts: rng.gen(),
                rate_hint: rng.gen(),
                ts_echo: rng.gen(),
                ack_delay: rng.gen(),
                sack,
            })
        }
        3 => Body::Nak(Nak {
            code: NakCode::from_code(rng.gen_range(1..=5)).unwrap_or(NakCode::BadRkey),
            path_id: path_id(rng),
            rnr_delay_us: rng.gen(),
            msn: rng.gen(),
            cumulative: rng.gen::<u32>() & MASK24,
        }),
        n => {
            let p = Probe {
                path_id: path_id(rng),
                port: rng.gen(),
                seq: rng.gen(),
                timestamp: rng.gen(),
            };
            if n == 4 {
                Body::Probe(p)
            } else {
                Body::ProbeReply(p)
            }
        }
    };
    Frame {
        eth,
        ip,
        udp,
        bth,
        body,
    }
}

/// One blind mutation of a non-empty byte string: 1..=8 bit flips, a burst of random
/// bytes, a truncation, random bytes appended, a range deleted or inserted, or one byte
/// set to an interesting value. Shared by the fuzz smoke tests.
pub fn mutate<R: Rng>(rng: &mut R, b: &mut Vec<u8>) {
    match rng.gen_range(0..7) {
        0 => {
            // 1..=8 bit flips
            for _ in 0..rng.gen_range(1..=8) {
                let i = rng.gen_range(0..b.len());
                b[i] ^= 1 << rng.gen_range(0..8);
            }
        }
        1 => {
            // a burst of random bytes
            let i = rng.gen_range(0..b.len());
            let n = rng.gen_range(1..=16).min(b.len() - i);
            rng.fill(&mut b[i..i + n]);
        }
        2 => {
            let n = rng.gen_range(0..b.len());
            b.truncate(n);
        }
        3 => {
            let n = rng.gen_range(1..64);
            for _ in 0..n {
                b.push(rng.gen());
            }
        }
        4 => {
            // delete a range
            let i = rng.gen_range(0..b.len());
            let n = rng.gen_range(1..=8).min(b.len() - i);
            b.drain(i..i + n);
        }
        5 => {
            // insert a range
            let i = rng.gen_range(0..=b.len());
            let ins: Vec<u8> = (0..rng.gen_range(1..=8)).map(|_| rng.gen()).collect();
            b.splice(i..i, ins);
        }
        _ => {
            // one byte set to an interesting value
            let i = rng.gen_range(0..b.len());
            b[i] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xc0, 0x45][rng.gen_range(0..7)];
        }
    }
}
