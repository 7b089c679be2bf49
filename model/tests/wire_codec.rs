//! Wire format: round trips (proptest) and one test per decode error.

use mrnic_model::sack::Bitmap;
use mrnic_model::wire::*;
use proptest::prelude::*;

// ---------------------------------------------------------------- strategies

prop_compose! {
    fn eth()(dst in any::<[u8; 6]>(), src in any::<[u8; 6]>(), tag in any::<bool>(),
             pcp in 0u8..8, dei in any::<bool>(), vid in 0u16..4096) -> EthHeader {
        EthHeader { dst, src, vlan: tag.then_some(Vlan { pcp, dei, vid }) }
    }
}

prop_compose! {
    fn ip()(dscp in 0u8..64, ecn in 0u8..4, ident in any::<u16>(), df in any::<bool>(),
            ttl in any::<u8>(), src in any::<[u8; 4]>(), dst in any::<[u8; 4]>()) -> Ipv4Header {
        Ipv4Header { dscp, ecn: Ecn::from_bits(ecn), ident, dont_fragment: df, ttl, src, dst }
    }
}

prop_compose! {
    fn bth()(se in any::<bool>(), m in any::<bool>(), pkey in any::<u16>(), qp in 0u32..=MASK24,
             a in any::<bool>(), psn in 0u32..=MASK24) -> Bth {
        Bth { solicited: se, mig_req: m, pkey, dest_qp: qp, ack_req: a, psn }
    }
}

fn body() -> impl Strategy<Value = Body> {
    let path = 0u8..MAX_PATHS;
    let data = (
        any::<bool>(),
        (
            path.clone(),
            0u32..=MASK24,
            any::<u32>(),
            any::<u32>(),
            any::<u8>(),
            0u32..=MASK24,
            any::<u32>(),
        ),
        any::<u64>(),
        any::<u32>(),
        prop::collection::vec(any::<u8>(), 0..1100),
    )
        .prop_map(
            |(
                w,
                (path_id, path_psn, msn, pkt_offset, flags, ssn, timestamp),
                va,
                rkey,
                payload,
            )| Body::Data {
                kind: if w { DataKind::Write } else { DataKind::Send },
                ext: DataExt {
                    path_id,
                    path_psn,
                    msn,
                    pkt_offset,
                    flags,
                    ssn,
                    timestamp,
                },
                placement: Placement { va, rkey },
                payload,
            },
        );
    let ack = (
        (
            path.clone(),
            0u32..=MASK24,
            any::<u8>(),
            any::<u8>(),
            any::<u8>(),
        ),
        (any::<u32>(), any::<u32>(), any::<u32>(), any::<[u64; 4]>()),
    )
        .prop_map(
            |(
                (path_id, path_psn, flags, ecn_ce, ecn_pkts),
                (rate_hint, ts_echo, ack_delay, mut w),
            )| {
                w[0] &= !1;
                Body::Ack(Ack {
                    path_id,
                    path_psn,
                    flags,
                    ecn_ce,
                    ecn_pkts,
                    rate_hint,
                    ts_echo,
                    ack_delay,
                    sack: Bitmap(w),
                })
            },
        );
    let nak = (
        1u8..=6,
        path.clone(),
        any::<u16>(),
        any::<u32>(),
        0u32..=MASK24,
    )
        .prop_map(|(c, path_id, rnr_delay_us, msn, cumulative)| {
            Body::Nak(Nak {
                code: NakCode::from_code(c).unwrap(),
                path_id,
                rnr_delay_us,
                msn,
                cumulative,
            })
        });
    let probe = (
        any::<bool>(),
        path,
        any::<u16>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(reply, path_id, port, seq, timestamp)| {
            let p = Probe {
                path_id,
                port,
                seq,
                timestamp,
            };
            if reply {
                Body::ProbeReply(p)
            } else {
                Body::Probe(p)
            }
        });
    prop_oneof![3 => data, 2 => ack, 1 => nak, 1 => probe]
}

prop_compose! {
    fn frame()(eth in eth(), ip in ip(), port in any::<u16>(), bth in bth(), body in body()) -> Frame {
        Frame { eth, ip, udp: UdpHeader { src_port: port }, bth, body }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn round_trip(f in frame()) {
        prop_assert_eq!(f.validate(), Ok(()));
        let b = encode(&f);
        prop_assert_eq!(b.len(), f.wire_len());
        prop_assert!(b.len() >= 60, "every mrnic frame is at least the Ethernet minimum");
        prop_assert_eq!(decode(&b), Ok(f.clone()));
        // and bytes -> frame -> bytes is the identity on encoder output
        prop_assert_eq!(encode(&decode(&b).unwrap()), b);
    }

    /// The ICRC is invariant under the fields routers may change.
    #[test]
    fn icrc_ignores_variant_fields(f in frame(), ttl in any::<u8>(), ecn in 0u8..4, dscp in 0u8..64) {
        let a = encode(&f);
        let mut g = f.clone();
        g.ip.ttl = ttl;
        g.ip.ecn = Ecn::from_bits(ecn);
        g.ip.dscp = dscp;
        let b = encode(&g);
        prop_assert_eq!(&a[a.len() - 4..], &b[b.len() - 4..]);
    }

    /// Any single bit flip anywhere is detected, or yields a frame whose
    /// ICRC-covered content is unchanged.
    #[test]
    fn single_bit_flips_never_alter_content(f in frame(), pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut b = encode(&f);
        let i = pos.index(b.len());
        b[i] ^= 1 << bit;
        if let Ok(g) = decode(&b) {
            prop_assert_eq!(&g.body, &f.body);
            prop_assert_eq!(g.bth.psn, f.bth.psn);
            prop_assert_eq!(g.bth.dest_qp, f.bth.dest_qp);
        }
    }
}

// ------------------------------------------------------------------ fixtures

fn data_frame(len: usize) -> Frame {
    Frame::new(
        Bth {
            dest_qp: 0x34,
            psn: 0x00ab_cdef,
            ack_req: true,
            ..Bth::default()
        },
        Body::Data {
            kind: DataKind::Write,
            ext: DataExt {
                path_id: 5,
                path_psn: 77,
                msn: 3,
                pkt_offset: 2,
                flags: data_flags::LAST,
                ssn: 0x0a0b0c,
                timestamp: 99,
            },
            placement: Placement {
                va: 0x1234_5678_9abc,
                rkey: 0xfeed,
            },
            payload: (0..len).map(|i| i as u8).collect(),
        },
    )
}

fn ack_frame() -> Frame {
    let mut sack = Bitmap::default();
    sack.set(3);
    sack.set(255);
    Frame::new(
        Bth {
            dest_qp: 0x12,
            psn: 1000,
            ..Bth::default()
        },
        Body::Ack(Ack {
            path_id: 1,
            path_psn: 9,
            flags: ack_flags::PATH_GAP,
            ecn_ce: 1,
            ecn_pkts: 4,
            rate_hint: 100_000,
            ts_echo: 5,
            ack_delay: 6,
            sack,
        }),
    )
}

fn nak_frame() -> Frame {
    Frame::new(
        Bth {
            dest_qp: 0x12,
            psn: 1000,
            ..Bth::default()
        },
        Body::Nak(Nak {
            code: NakCode::OutOfBounds,
            path_id: 2,
            rnr_delay_us: 0,
            msn: 7,
            cumulative: 990,
        }),
    )
}

/// Ethernet header length of the fixtures (untagged).
const L3: usize = ETH_HLEN;
const L4: usize = L3 + IPV4_HLEN;
const BTH_AT: usize = L4 + UDP_HLEN;
const BODY_AT: usize = BTH_AT + BTH_LEN;

fn resealed(mut b: Vec<u8>) -> Vec<u8> {
    assert!(reseal(&mut b));
    b
}

// ------------------------------------------------------------- golden bytes

#[test]
fn data_frame_layout() {
    let b = encode(&data_frame(5));
    // Ethernet
    assert_eq!(&b[12..14], &[0x08, 0x00]);
    // IPv4: version/IHL, TOS = DSCP 26 << 2 | ECT(0), total length, DF, TTL, UDP
    let total = IPV4_HLEN + UDP_HLEN + BTH_LEN + MPETH_LEN + PLETH_LEN + 8 + ICRC_LEN;
    assert_eq!(b[L3], 0x45);
    assert_eq!(b[L3 + 1], 26 << 2 | 0b10);
    assert_eq!(&b[L3 + 2..L3 + 4], &(total as u16).to_be_bytes());
    assert_eq!(&b[L3 + 6..L3 + 8], &[0x40, 0x00]);
    assert_eq!(b[L3 + 9], 17);
    // UDP
    assert_eq!(&b[L4 + 2..L4 + 4], &4791u16.to_be_bytes());
    assert_eq!(
        &b[L4 + 4..L4 + 6],
        &((total - IPV4_HLEN) as u16).to_be_bytes()
    );
    // BTH: opcode, SE|M|pad|tver, pkey, resv8a, QP, A|resv7, PSN
    assert_eq!(
        &b[BTH_AT..BODY_AT],
        &[0xC0, 0x70, 0xff, 0xff, 0, 0, 0, 0x34, 0x80, 0xab, 0xcd, 0xef]
    );
    // MPETH
    assert_eq!(
        &b[BODY_AT..BODY_AT + MPETH_LEN],
        &[5, 0, 0, 77, 0, 0, 0, 3, 0, 0, 0, 2, 1, 0x0a, 0x0b, 0x0c, 0, 0, 0, 99]
    );
    // PLETH
    let p = BODY_AT + MPETH_LEN;
    assert_eq!(
        &b[p..p + 16],
        &[0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0, 0, 0xfe, 0xed, 0, 0, 0, 5]
    );
    // payload, 3 pad bytes, ICRC
    assert_eq!(&b[p + 16..p + 24], &[0, 1, 2, 3, 4, 0, 0, 0]);
    assert_eq!(b.len(), p + 24 + ICRC_LEN);
    let icrc = icrc_ipv4(&b[L3..b.len() - 4]).unwrap();
    assert_eq!(&b[b.len() - 4..], &icrc.to_le_bytes());
}

#[test]
fn ack_sack_layout() {
    let b = encode(&ack_frame());
    assert_eq!(b[BTH_AT], opcode::ACK);
    let s = BODY_AT + 20;
    // 256-bit big-endian number: bit 255 is the MSB of the first byte, bit 3 in the last
    assert_eq!(b[s], 0x80);
    assert_eq!(b[s + 31], 0x08);
    assert!(b[s + 1..s + 31].iter().all(|&x| x == 0));
    assert_eq!(b.len(), BODY_AT + ACK_LEN + ICRC_LEN);
}

#[test]
fn vlan_tag_round_trip() {
    let mut f = data_frame(3);
    f.eth.vlan = Some(Vlan {
        pcp: 3,
        dei: false,
        vid: 100,
    });
    let b = encode(&f);
    assert_eq!(&b[12..16], &[0x81, 0x00, 0x60, 100]);
    assert_eq!(decode(&b), Ok(f));
}

#[test]
fn zero_udp_checksum_is_accepted() {
    let mut b = encode(&nak_frame());
    b[L4 + 6] = 0;
    b[L4 + 7] = 0;
    assert_eq!(decode(&b), Ok(nak_frame()));
}

// ------------------------------------------------------- each error, caught

#[test]
fn truncated_at_every_layer() {
    let b = encode(&data_frame(8));
    assert!(matches!(
        decode(&b[..10]),
        Err(WireError::Truncated {
            layer: Layer::Ethernet,
            ..
        })
    ));
    assert!(matches!(
        decode(&b[..L3 + 10]),
        Err(WireError::Truncated {
            layer: Layer::Ipv4,
            ..
        })
    ));
    // cut short of the IPv4 total length
    assert!(matches!(
        decode(&b[..b.len() - 1]),
        Err(WireError::Truncated {
            layer: Layer::Ipv4,
            ..
        })
    ));
    // consistent lengths but too short for UDP / BTH+ICRC / the data headers
    for (keep, layer) in [
        (4, Layer::Udp),
        (UDP_HLEN + 8, Layer::Bth),
        (UDP_HLEN + BTH_LEN + 10, Layer::Extension),
    ] {
        let mut c = b[..L4 + keep].to_vec();
        let total = (IPV4_HLEN + keep) as u16;
        c[L3 + 2..L3 + 4].copy_from_slice(&total.to_be_bytes());
        if keep >= UDP_HLEN {
            c[L4 + 4..L4 + 6].copy_from_slice(&(keep as u16).to_be_bytes());
        }
        let c = if keep >= UDP_HLEN + BTH_LEN {
            resealed(c)
        } else {
            resealed_ip_only(c)
        };
        match decode(&c) {
            Err(WireError::Truncated { layer: l, .. }) => assert_eq!(l, layer, "keep {keep}"),
            other => panic!("keep {keep}: {other:?}"),
        }
    }
    // every prefix of a valid frame is rejected without a panic
    for n in 0..b.len() {
        assert!(decode(&b[..n]).is_err(), "prefix {n}");
    }
}

fn resealed_ip_only(mut b: Vec<u8>) -> Vec<u8> {
    b[L3 + 10] = 0;
    b[L3 + 11] = 0;
    let c = ipv4::internet_checksum(&b[L3..L4]);
    b[L3 + 10..L3 + 12].copy_from_slice(&c.to_be_bytes());
    if b.len() >= L4 + UDP_HLEN {
        b[L4 + 6] = 0;
        b[L4 + 7] = 0;
    }
    b
}

#[test]
fn bad_ethertype() {
    let mut b = encode(&data_frame(4));
    b[12..14].copy_from_slice(&0x86ddu16.to_be_bytes());
    assert_eq!(decode(&b), Err(WireError::BadEthertype(0x86dd)));
}

#[test]
fn bad_ip_version_and_ihl() {
    let mut b = encode(&data_frame(4));
    b[L3] = 0x65;
    assert_eq!(decode(&b), Err(WireError::BadIpVersion(6)));
    let mut b = encode(&data_frame(4));
    b[L3] = 0x46;
    assert_eq!(decode(&b), Err(WireError::BadIpHeaderLength(6)));
}

#[test]
fn bad_ip_total_length_and_trailing_bytes() {
    let mut b = encode(&data_frame(4));
    b[L3 + 2..L3 + 4].copy_from_slice(&19u16.to_be_bytes());
    assert!(matches!(
        decode(&b),
        Err(WireError::BadIpTotalLength { total: 19, .. })
    ));
    let mut b = encode(&data_frame(4));
    b.extend_from_slice(&[0, 0]);
    assert_eq!(decode(&b), Err(WireError::TrailingBytes { extra: 2 }));
}

#[test]
fn bad_ip_checksum() {
    let mut b = encode(&data_frame(4));
    b[L3 + 8] ^= 0x01; // TTL: not covered by the ICRC, covered by the header checksum
    assert!(matches!(decode(&b), Err(WireError::BadIpChecksum { .. })));
}

#[test]
fn fragments_and_not_udp() {
    let mut b = encode(&data_frame(4));
    b[L3 + 6] |= 0x20; // MF
    assert_eq!(decode(&resealed(b)), Err(WireError::Fragmented));
    let mut b = encode(&data_frame(4));
    b[L3 + 9] = 6;
    assert_eq!(decode(&resealed_ip_only(b)), Err(WireError::NotUdp(6)));
}

#[test]
fn wrong_port_and_udp_length() {
    let mut b = encode(&data_frame(4));
    b[L4 + 2..L4 + 4].copy_from_slice(&4790u16.to_be_bytes());
    assert_eq!(decode(&b), Err(WireError::WrongUdpPort(4790)));
    let mut b = encode(&data_frame(4));
    let l = u16::from_be_bytes([b[L4 + 4], b[L4 + 5]]);
    b[L4 + 4..L4 + 6].copy_from_slice(&(l - 4).to_be_bytes());
    assert!(matches!(
        decode(&b),
        Err(WireError::UdpLengthMismatch { .. })
    ));
}

#[test]
fn bad_udp_checksum() {
    let f = data_frame(4);
    let mut b = encode(&f);
    let good = u16::from_be_bytes([b[L4 + 6], b[L4 + 7]]);
    b[L4 + 6] ^= 0x10;
    match decode(&b) {
        Err(WireError::BadUdpChecksum { expected, .. }) => assert_eq!(expected, good),
        other => panic!("{other:?}"),
    }
}

#[test]
fn payload_bit_flip_is_bad_icrc() {
    let f = data_frame(64);
    let mut b = encode(&f);
    b[BODY_AT + DATA_HDRS_LEN + 10] ^= 0x04;
    // fix the UDP checksum so that only the ICRC can tell
    let mut zeroed = b.clone();
    zeroed[L4 + 6] = 0;
    zeroed[L4 + 7] = 0;
    let c = udp::udp_checksum(f.ip.src, f.ip.dst, &zeroed[L4..]);
    b[L4 + 6..L4 + 8].copy_from_slice(&c.to_be_bytes());
    assert!(matches!(decode(&b), Err(WireError::BadIcrc { .. })));
    // also with the UDP checksum off (0): the ICRC alone catches it
    b[L4 + 6] = 0;
    b[L4 + 7] = 0;
    assert!(matches!(decode(&b), Err(WireError::BadIcrc { .. })));
}

#[test]
fn variant_fields_do_not_break_icrc() {
    // routers rewrite TTL and ECN (CE marking) and fix the IPv4 checksum; BTH byte 4 is masked too
    let f = data_frame(16);
    let mut b = encode(&f);
    b[L3 + 1] |= 0b11; // CE
    b[L3 + 8] -= 1; // TTL
    b[BTH_AT + 4] = 0x40; // BECN
    b[L3 + 10] = 0;
    b[L3 + 11] = 0;
    let c = ipv4::internet_checksum(&b[L3..L4]);
    b[L3 + 10..L3 + 12].copy_from_slice(&c.to_be_bytes());
    b[L4 + 6] = 0; // a switch that rewrites would also have to fix or zero the UDP checksum
    b[L4 + 7] = 0;
    let g = decode(&b).expect("ICRC invariant under TTL, ECN, BTH resv8a");
    assert_eq!(g.ip.ecn, Ecn::Ce);
    assert_eq!(g.body, f.body);
}

#[test]
fn bad_transport_version() {
    let mut b = encode(&data_frame(4));
    b[BTH_AT + 1] |= 0x01;
    assert_eq!(decode(&resealed(b)), Err(WireError::BadTransportVersion(1)));
}

#[test]
fn unknown_opcodes() {
    // every opcode outside the six mrnic ones, standard RoCE ones included
    let known = [
        opcode::WRITE,
        opcode::SEND,
        opcode::ACK,
        opcode::NAK,
        opcode::PROBE,
        opcode::PROBE_REPLY,
    ];
    for op in 0..=255u8 {
        if known.contains(&op) {
            continue;
        }
        let mut b = encode(&nak_frame());
        b[BTH_AT] = op;
        assert_eq!(decode(&resealed(b)), Err(WireError::UnknownOpcode(op)));
    }
}

#[test]
fn data_length_mismatch_and_pad() {
    // placement length disagrees with the bytes present
    let mut b = encode(&data_frame(8));
    let lf = BODY_AT + MPETH_LEN + 12;
    b[lf + 3] = 12;
    assert!(matches!(
        decode(&resealed(b)),
        Err(WireError::LengthMismatch { opcode: 0xC0, .. })
    ));
    // pad count wrong: length 7 with pad 0 over 8 bytes
    let mut b = encode(&data_frame(8));
    b[lf + 3] = 7;
    b[BTH_AT + 1] = (b[BTH_AT + 1] & !0x30) | (1 << 4);
    assert_eq!(
        decode(&resealed(b.clone())),
        Ok(data_frame(7)),
        "length 7 + pad 1 is the encoding of 7 bytes"
    );
    let mut b = encode(&data_frame(8));
    b[lf + 3] = 6;
    b[BTH_AT + 1] = (b[BTH_AT + 1] & !0x30) | (2 << 4);
    assert_eq!(decode(&resealed(b)), Ok(data_frame(6)));
    let mut b = encode(&data_frame(8));
    b[lf + 3] = 5;
    b[BTH_AT + 1] = (b[BTH_AT + 1] & !0x30) | (3 << 4);
    assert_eq!(decode(&resealed(b)), Ok(data_frame(5)));
    // a pad count with a length that needs none
    let mut b = encode(&data_frame(4));
    b.splice(b.len() - 4..b.len() - 4, [0u8; 4]);
    fix_lengths(&mut b, 4);
    b[BODY_AT + MPETH_LEN + 15] = 4;
    b[BTH_AT + 1] = (b[BTH_AT + 1] & !0x30) | (3 << 4);
    // 4 + 3 != 8 bytes present
    assert!(matches!(
        decode(&resealed(b)),
        Err(WireError::LengthMismatch { .. })
    ));
    let mut b = encode(&data_frame(8));
    b[lf + 3] = 4;
    b[BTH_AT + 1] = (b[BTH_AT + 1] & !0x30) | (3 << 4);
    // 4 + 3 != 8 -> length mismatch; 5 + 3 = 8 would need pad 3: legal
    assert!(matches!(
        decode(&resealed(b)),
        Err(WireError::LengthMismatch { .. })
    ));
    // length 4 declared with pad 0 over 8 bytes of which 4 are "pad": mismatch
    let mut b = encode(&data_frame(4));
    b[BTH_AT + 1] |= 1 << 4; // pad 1 on a 4-byte payload: 4 + 1 != 4
    assert!(matches!(
        decode(&resealed(b)),
        Err(WireError::LengthMismatch { .. })
    ));
}

/// Grows IPv4 total length and UDP length by `by` bytes.
fn fix_lengths(b: &mut [u8], by: u16) {
    let t = u16::from_be_bytes([b[L3 + 2], b[L3 + 3]]) + by;
    b[L3 + 2..L3 + 4].copy_from_slice(&t.to_be_bytes());
    let u = u16::from_be_bytes([b[L4 + 4], b[L4 + 5]]) + by;
    b[L4 + 4..L4 + 6].copy_from_slice(&u.to_be_bytes());
}

#[test]
fn bad_pad_count() {
    // 7 payload bytes without their pad byte: length and bytes agree, pad 0 != 1
    let mut b = encode(&data_frame(7));
    let n = b.len();
    b.remove(n - 5);
    fix_lengths_down(&mut b, 1);
    b[BTH_AT + 1] &= !0x30;
    assert_eq!(
        decode(&resealed(b)),
        Err(WireError::BadPadCount {
            opcode: opcode::WRITE,
            found: 0,
            expected: 1
        })
    );
    // a fixed-size opcode with a nonzero pad count
    let mut b = encode(&ack_frame());
    b[BTH_AT + 1] |= 2 << 4;
    assert_eq!(
        decode(&resealed(b)),
        Err(WireError::BadPadCount {
            opcode: opcode::ACK,
            found: 2,
            expected: 0
        })
    );
}

#[test]
fn fixed_bodies_wrong_length() {
    for f in [ack_frame(), nak_frame()] {
        let op = f.opcode();
        let mut b = encode(&f);
        b.splice(b.len() - 4..b.len() - 4, [0u8; 4]);
        fix_lengths(&mut b, 4);
        assert!(
            matches!(decode(&resealed(b)), Err(WireError::LengthMismatch { opcode, .. }) if opcode == op)
        );
        let mut b = encode(&f);
        let n = b.len();
        b.drain(n - 8..n - 4);
        fix_lengths_down(&mut b, 4);
        assert!(matches!(
            decode(&resealed(b)),
            Err(WireError::Truncated {
                layer: Layer::Extension,
                ..
            })
        ));
    }
}

fn fix_lengths_down(b: &mut [u8], by: u16) {
    let t = u16::from_be_bytes([b[L3 + 2], b[L3 + 3]]) - by;
    b[L3 + 2..L3 + 4].copy_from_slice(&t.to_be_bytes());
    let u = u16::from_be_bytes([b[L4 + 4], b[L4 + 5]]) - by;
    b[L4 + 4..L4 + 6].copy_from_slice(&u.to_be_bytes());
}

#[test]
fn bad_path_id() {
    let mut f = data_frame(4);
    if let Body::Data { ext, .. } = &mut f.body {
        ext.path_id = 16;
    }
    assert!(f.validate().is_err());
    assert_eq!(decode(&encode(&f)), Err(WireError::BadPathId(16)));
    for body in [ack_frame().body, nak_frame().body] {
        let mut b = encode(&Frame::new(Bth::default(), body));
        let at = if b[BTH_AT] == opcode::NAK {
            BODY_AT + 1
        } else {
            BODY_AT
        };
        b[at] = 200;
        assert_eq!(decode(&resealed(b)), Err(WireError::BadPathId(200)));
    }
}

#[test]
fn sack_base_bit_and_nak_code() {
    let mut f = ack_frame();
    if let Body::Ack(a) = &mut f.body {
        a.sack.set(0);
    }
    assert!(f.validate().is_err());
    assert_eq!(decode(&encode(&f)), Err(WireError::SackBaseBitSet));
    for code in [0u8, 7, 0x80, 0xff] {
        let mut b = encode(&nak_frame());
        b[BODY_AT] = code;
        assert_eq!(decode(&resealed(b)), Err(WireError::BadNakCode(code)));
    }
}

#[test]
fn reserved_bits_are_ignored() {
    let f = data_frame(4);
    let mut b = encode(&f);
    b[BTH_AT + 8] |= 0x7f; // resv7
    b[BODY_AT + 12] |= 0x80; // MPETH reserved flag bit: carried, otherwise ignored
    let mut g = decode(&resealed(b)).unwrap();
    if let Body::Data { ext, .. } = &mut g.body {
        assert_eq!(ext.flags, data_flags::LAST | 0x80);
        ext.flags &= !0x80;
    }
    assert_eq!(g, f);
    let mut b = encode(&nak_frame());
    b[BODY_AT + 8] = 0xff; // reserved top byte of the cumulative PSN
    g = decode(&resealed(b)).unwrap();
    assert_eq!(g, nak_frame());
}
