//! Fuzz smoke test: 10^5 random and mutated inputs into `wire::decode`.
//!
//! - Nothing panics (the test would fail).
//! - A blindly mutated valid frame (bit flips, byte overwrites, truncation,
//!   extension, splicing) never decodes to a frame whose ICRC-covered content
//!   differs from the original: only the Ethernet header and the IPv4 fields
//!   RoCEv2 leaves outside the ICRC (TOS, TTL) may differ. Half of these frames
//!   have the UDP checksum off, so that the ICRC alone has to catch the change.
//! - A mutated frame that is resealed (checksums and ICRC recomputed, so that the
//!   decoder's deeper checks are reached) either fails with a typed error or is a
//!   valid frame that re-encodes to itself.

use mrnic_model::wire::{self, decode, encode, gen::{mutate, random_frame}, Frame};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const INPUTS: usize = 100_000;

/// The content the ICRC (and IPv4/UDP checksums) protect.
fn covered(f: &Frame) -> Frame {
    let mut g = f.clone();
    g.eth = wire::EthHeader::default();
    g.ip.ttl = 0;
    g.ip.dscp = 0;
    g.ip.ecn = wire::Ecn::NotEct;
    g
}

#[test]
fn decode_survives_1e5_inputs() {
    let mut rng = SmallRng::seed_from_u64(0x006d_726e_6963);
    let mut stats = [0usize; 4]; // ok-unchanged, rejected, resealed-ok, random-ok
    let mut errors = std::collections::BTreeMap::<String, usize>::new();
    for n in 0..INPUTS {
        match n % 4 {
            0 => {
                // random bytes, sometimes behind a valid-looking prefix
                let len = rng.gen_range(0..300);
                let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                if rng.gen_bool(0.5) {
                    let f = random_frame(&mut rng, 64);
                    let e = encode(&f);
                    let k = rng.gen_range(0..e.len());
                    b.splice(0..0, e[..k].iter().copied());
                }
                match decode(&b) {
                    Ok(f) => {
                        stats[3] += 1;
                        assert_eq!(decode(&encode(&f)), Ok(f));
                    }
                    Err(e) => *errors.entry(kind(&e)).or_default() += 1,
                }
            }
            1 | 2 => {
                let f = random_frame(&mut rng, 1500);
                let mut b = encode(&f);
                if rng.gen_bool(0.5) {
                    // UDP checksum off (legal for RoCEv2 over IPv4): the ICRC alone guards
                    let at = f.eth.len() + wire::IPV4_HLEN + 6;
                    b[at] = 0;
                    b[at + 1] = 0;
                }
                let orig = b.clone();
                mutate(&mut rng, &mut b);
                if rng.gen_bool(0.3) && !b.is_empty() {
                    mutate(&mut rng, &mut b);
                }
                if b.is_empty() {
                    continue;
                }
                match decode(&b) {
                    Ok(g) => {
                        stats[0] += 1;
                        assert_eq!(
                            covered(&g),
                            covered(&f),
                            "mutation altered covered content unnoticed:\n{orig:02x?}\n{b:02x?}"
                        );
                    }
                    Err(e) => {
                        stats[1] += 1;
                        *errors.entry(kind(&e)).or_default() += 1;
                    }
                }
            }
            _ => {
                // structured: mutate, then fix checksums so deeper checks are reached
                let f = random_frame(&mut rng, 300);
                let mut b = encode(&f);
                mutate(&mut rng, &mut b);
                if wire::reseal(&mut b) {
                    match decode(&b) {
                        Ok(g) => {
                            stats[2] += 1;
                            assert_eq!(decode(&encode(&g)).as_ref(), Ok(&g));
                        }
                        Err(e) => *errors.entry(kind(&e)).or_default() += 1,
                    }
                }
            }
        }
    }
    eprintln!(
        "unchanged-ok {} rejected {} resealed-ok {} random-ok {}",
        stats[0], stats[1], stats[2], stats[3]
    );
    eprintln!("errors seen: {errors:?}");
    // the mutations reach every layer's checks
    for k in [
        "Truncated",
        "BadEthertype",
        "BadIpVersion",
        "BadIpHeaderLength",
        "BadIpChecksum",
        "TrailingBytes",
        "UdpLengthMismatch",
        "BadUdpChecksum",
        "BadIcrc",
        "UnknownOpcode",
        "LengthMismatch",
        "BadPathId",
    ] {
        assert!(errors.contains_key(k), "no input reached {k}: {errors:?}");
    }
}

fn kind(e: &wire::WireError) -> String {
    let s = format!("{e:?}");
    s.split(['(', ' ', '{']).next().unwrap_or("").to_string()
}
