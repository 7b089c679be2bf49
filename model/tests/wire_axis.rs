//! The beat-level reference model of the receive parser (`wire::axis`) against
//! `wire::decode`: at every data width the stream's verdict on a frame is exactly
//! `decode` of its bytes, unless the stream itself is at fault (MacError, BadKeep,
//! TooLong, in that priority); counters equal an independent reference count.

use mrnic_model::wire::axis::{
    keep_mask, to_beats, AxisConfigError, AxisDrop, AxisRx, Beat, DropCounters, Verdict,
    DEFAULT_MAX_FRAME, DROP_NAMES, GOOD_NAMES, WIDTHS,
};
use mrnic_model::wire::gen::{mutate, random_frame};
use mrnic_model::wire::{self, decode, encode, opcode, Body, WireError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

const FRAMES: usize = 100_000;

fn snake(s: &str) -> String {
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                o.push('_');
            }
            o.push(c.to_ascii_lowercase());
        } else {
            o.push(c);
        }
    }
    o
}

/// The counter name of a verdict, derived from the Debug names of the model's types
/// (independently of the model's own index table).
fn ref_name(v: &Verdict) -> String {
    match v {
        Ok(f) => format!(
            "good_{}",
            match f.opcode() {
                opcode::WRITE => "write",
                opcode::SEND => "send",
                opcode::ACK => "ack",
                opcode::NAK => "nak",
                opcode::PROBE => "probe",
                opcode::PROBE_REPLY => "probe_reply",
                o => panic!("decode yielded opcode {o:#x}"),
            }
        ),
        Err(AxisDrop::Wire(WireError::Truncated { layer, .. })) => {
            format!("drop_truncated_{}", snake(&format!("{layer:?}")))
        }
        Err(AxisDrop::Wire(e)) => {
            let d = format!("{e:?}");
            let head: String = d.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            format!("drop_{}", snake(&head))
        }
        Err(d) => format!("drop_{}", snake(&format!("{d:?}"))),
    }
}

#[derive(Default)]
struct RefCount(BTreeMap<String, u64>);

impl RefCount {
    fn add(&mut self, v: &Verdict) {
        *self.0.entry(ref_name(v)).or_default() += 1;
    }
    fn check(&self, c: &DropCounters) {
        for (name, value) in c.list() {
            let want = self.0.get(name).copied().unwrap_or(0) as u32;
            assert_eq!(value, want, "counter {name}");
        }
        for k in self.0.keys() {
            assert!(c.list().iter().any(|(n, _)| n == k), "no counter named {k}");
        }
    }
}

/// What the stream must say about a well-formed stream of these bytes.
fn expected(b: &[u8]) -> Verdict {
    if b.is_empty() {
        Err(AxisDrop::BadKeep)
    } else if b.len() > DEFAULT_MAX_FRAME {
        Err(AxisDrop::TooLong)
    } else {
        decode(b).map_err(AxisDrop::Wire)
    }
}

#[test]
fn widths_other_than_8_16_32_64_bytes_are_refused() {
    for w in [0, 1, 4, 7, 12, 24, 48, 65, 128] {
        assert_eq!(AxisRx::new(w).err(), Some(AxisConfigError::BadWidth(w)));
    }
    for w in WIDTHS {
        assert_eq!(AxisRx::new(w).unwrap().width(), w);
    }
    assert_eq!(AxisRx::with_max_frame(8, 0).err(), Some(AxisConfigError::ZeroMaxFrame));
}

#[test]
fn encoder_frames_back_to_back_decode_as_wire_decode_at_every_width() {
    for w in WIDTHS {
        let mut rng = SmallRng::seed_from_u64(0xa715 + w as u64);
        let mut rx = AxisRx::new(w).unwrap();
        let mut r = RefCount::default();
        let (mut tagged, mut untagged) = (0, 0);
        for _ in 0..FRAMES {
            let f = random_frame(&mut rng, 600);
            let b = encode(&f);
            let v = rx.frame(&b);
            assert_eq!(v, decode(&b).map_err(AxisDrop::Wire));
            assert_eq!(v.as_ref(), Ok(&f), "width {w}");
            if f.eth.vlan.is_some() {
                tagged += 1;
            } else {
                untagged += 1;
            }
            r.add(&v);
        }
        r.check(rx.counters());
        assert!(tagged > FRAMES / 10 && untagged > FRAMES / 2);
        for g in GOOD_NAMES {
            assert!(r.0.get(g).copied().unwrap_or(0) > 1000, "{g} at width {w}");
        }
    }
}

#[test]
fn hostile_frames_get_exactly_decodes_verdict_at_every_width_and_never_panic() {
    for w in WIDTHS {
        let mut rng = SmallRng::seed_from_u64(0x40571e + w as u64);
        let mut rx = AxisRx::new(w).unwrap();
        let mut r = RefCount::default();
        let mut resealed_ok = 0;
        for n in 0..FRAMES {
            let mut b = match n % 4 {
                0 => (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
                1 => {
                    let mut b = encode(&random_frame(&mut rng, 300));
                    let k = rng.gen_range(0..=b.len());
                    b.truncate(k);
                    b
                }
                2 => {
                    let mut b = encode(&random_frame(&mut rng, 300));
                    for _ in 0..rng.gen_range(1..=4) {
                        let i = rng.gen_range(0..b.len());
                        b[i] ^= 1 << rng.gen_range(0..8);
                    }
                    b
                }
                _ => {
                    let mut b = encode(&random_frame(&mut rng, 300));
                    mutate(&mut rng, &mut b);
                    wire::reseal(&mut b);
                    b
                }
            };
            if n % 4 == 3 && decode(&b).is_ok() {
                resealed_ok += 1;
            }
            if rng.gen_bool(0.01) {
                b.clear();
            }
            let v = rx.frame(&b);
            assert_eq!(v, expected(&b), "width {w} frame {b:02x?}");
            r.add(&v);
        }
        r.check(rx.counters());
        // the resealed mutants reach the deep checks: many reasons are hit
        let reasons = r.0.keys().filter(|k| k.starts_with("drop_")).count();
        assert!(reasons >= 18, "only {reasons} reasons at width {w}: {:?}", r.0);
        assert!(resealed_ok > 0);
        assert!(r.0["drop_bad_icrc"] > 0 && r.0["drop_bad_keep"] > 0);
    }
}

#[test]
fn a_frame_truncated_at_every_length_gets_decodes_verdict() {
    let mut rng = SmallRng::seed_from_u64(7);
    for w in WIDTHS {
        let mut rx = AxisRx::new(w).unwrap();
        for _ in 0..6 {
            let b = encode(&random_frame(&mut rng, 100));
            for k in 0..=b.len() {
                assert_eq!(rx.frame(&b[..k]), expected(&b[..k]), "width {w} length {k}");
            }
        }
    }
}

/// Beats of a good frame with one beat changed.
fn good_beats(rng: &mut SmallRng, w: usize) -> (Vec<u8>, Vec<Beat>) {
    let b = encode(&random_frame(rng, 200));
    let beats = to_beats(&b, w);
    (b, beats)
}

fn run(rx: &mut AxisRx, beats: &[Beat]) -> Verdict {
    let mut out = None;
    for (i, b) in beats.iter().enumerate() {
        let v = rx.push(b);
        assert_eq!(v.is_some(), i + 1 == beats.len(), "verdict only at tlast");
        out = v;
    }
    out.unwrap()
}

#[test]
fn tuser_on_any_beat_drops_the_frame_as_mac_error_whatever_its_bytes_and_keep() {
    let mut rng = SmallRng::seed_from_u64(11);
    for w in WIDTHS {
        let mut rx = AxisRx::new(w).unwrap();
        for t in 0..500 {
            let (b, mut beats) = good_beats(&mut rng, w);
            let i = rng.gen_range(0..beats.len());
            beats[i].tuser = true;
            if t % 3 == 1 {
                beats[0].tkeep = 0b1011; // also bad keep: MacError still wins
            }
            if t % 3 == 2 {
                let j = rng.gen_range(0..beats.len());
                beats[j].tdata[0] ^= 0x80; // also bad bytes
            }
            assert_eq!(run(&mut rx, &beats), Err(AxisDrop::MacError));
            // the next frame is not tainted
            assert_eq!(rx.frame(&b), decode(&b).map_err(AxisDrop::Wire));
        }
        assert_eq!(rx.counters().of(&AxisDrop::MacError), 500);
    }
}

#[test]
fn tkeep_with_a_hole_a_short_middle_beat_bits_above_width_or_zero_last_is_bad_keep() {
    let mut rng = SmallRng::seed_from_u64(12);
    for w in WIDTHS {
        let mut rx = AxisRx::new(w).unwrap();
        let mut count = 0;
        for t in 0..400 {
            let (b, mut beats) = good_beats(&mut rng, w);
            let last = beats.len() - 1;
            let i = rng.gen_range(0..beats.len());
            match t % 5 {
                0 => {
                    // a hole: contiguous from 0 except one byte
                    let n = beats[i].tkeep.trailing_ones() as usize;
                    if n < 2 {
                        continue;
                    }
                    let k = rng.gen_range(0..n - 1);
                    beats[i].tkeep &= !(1u64 << k);
                }
                1 => {
                    // a middle beat one byte short (the frame's bytes would be fine)
                    if last == 0 {
                        continue;
                    }
                    let j = rng.gen_range(0..last);
                    beats[j].tkeep = keep_mask(w - 1);
                }
                2 => beats[last].tkeep = 0,
                3 => {
                    // a bit at or above the width
                    if w == 64 {
                        beats[i].tkeep = 1 << 63 | 1; // non-contiguous at 64
                    } else {
                        beats[i].tkeep |= 1u64 << rng.gen_range(w..64);
                    }
                }
                _ => {
                    // keep not starting at byte 0
                    beats[i].tkeep <<= 1;
                    beats[i].tkeep &= keep_mask(w);
                }
            }
            assert_eq!(run(&mut rx, &beats), Err(AxisDrop::BadKeep), "width {w} case {}", t % 5);
            count += 1;
            assert_eq!(rx.frame(&b), decode(&b).map_err(AxisDrop::Wire));
        }
        assert_eq!(rx.counters().of(&AxisDrop::BadKeep), count);
    }
}

#[test]
fn one_beat_frames_at_every_length_up_to_the_width() {
    let mut rng = SmallRng::seed_from_u64(13);
    for w in WIDTHS {
        let mut rx = AxisRx::new(w).unwrap();
        for k in 1..=w {
            let b: Vec<u8> = (0..k).map(|_| rng.gen()).collect();
            let beats = to_beats(&b, w);
            assert_eq!(beats.len(), 1);
            assert_eq!(rx.push(&beats[0]), Some(expected(&b)));
        }
    }
}

/// A DATA frame of at most `len` bytes and within 4 of it (payload + pad grows in steps
/// of 4, so not every length exists); the test sets the maximum to its length.
fn data_frame_of(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    loop {
        let mut f = random_frame(rng, 0);
        if !matches!(f.body, Body::Data { .. }) || f.wire_len() > len {
            continue;
        }
        let p = (len - f.wire_len()) / 4 * 4;
        if let Body::Data { payload, .. } = &mut f.body {
            payload.resize(p, 0xA5);
        }
        let b = encode(&f);
        assert!(b.len() <= len && b.len() + 4 > len, "{} for {len}", b.len());
        return b;
    }
}

#[test]
fn a_frame_of_exactly_the_maximum_is_decoded_one_byte_over_is_too_long() {
    let mut rng = SmallRng::seed_from_u64(14);
    for w in WIDTHS {
        for max in [DEFAULT_MAX_FRAME, 1500, 100] {
            let b = data_frame_of(&mut rng, max);
            let max = b.len();
            let mut rx = AxisRx::with_max_frame(w, max).unwrap();
            let good = rx.frame(&b);
            assert!(good.is_ok(), "width {w} max {max}: {good:?}");
            assert_eq!(good, decode(&b).map_err(AxisDrop::Wire));
            let mut over = b.clone();
            over.push(0);
            // decode would say TrailingBytes; the stream never holds the byte
            assert!(matches!(decode(&over), Err(WireError::TrailingBytes { .. })));
            let mut most = 0;
            for beat in to_beats(&over, w) {
                let v = rx.push(&beat);
                most = most.max(rx.buffered());
                assert!(rx.buffered() <= max);
                if beat.tlast {
                    assert_eq!(v, Some(Err(AxisDrop::TooLong)));
                }
            }
            assert!(most <= max);
            // far over: still bounded, still TooLong; then a good frame again
            let long: Vec<u8> = (0..3 * max + 5).map(|i| i as u8).collect();
            assert_eq!(rx.frame(&long), Err(AxisDrop::TooLong));
            assert_eq!(rx.frame(&b), good);
            assert_eq!(rx.counters().of(&AxisDrop::TooLong), 2);
        }
    }
}

#[test]
fn counters_are_32_bit_wrapping_and_named_as_the_rtl_stat_ports() {
    let mut c = DropCounters::default();
    c.drop[DROP_NAMES.iter().position(|n| *n == "drop_bad_icrc").unwrap()] = u32::MAX;
    c.count(&Err(AxisDrop::Wire(WireError::BadIcrc { found: 1, expected: 2 })));
    assert_eq!(c.of(&AxisDrop::Wire(WireError::BadIcrc { found: 0, expected: 0 })), 0);
    let names: Vec<&str> = c.list().iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), DROP_NAMES.len() + GOOD_NAMES.len());
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "names unique");
    for n in &names {
        assert!(n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{n}");
        assert!(n.starts_with("drop_") || n.starts_with("good_"));
    }
    assert!(names.contains(&"drop_truncated_extension") && names.contains(&"drop_mac_error"));
}

/// A frame cut inside the UDP header (or inside the BTH), with the IPv4 total length and
/// header checksum (and the UDP length, checksum 0) made to agree with what is left, so
/// that IPv4 passes and the first failing check is that layer's truncation.
fn cut_consistently(b: &[u8], keep_after_l4: usize) -> Vec<u8> {
    let mut v = b[..wire::ETH_HLEN + wire::IPV4_HLEN + keep_after_l4].to_vec();
    let l3 = wire::ETH_HLEN;
    let total = (v.len() - l3) as u16;
    v[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
    v[l3 + 10] = 0;
    v[l3 + 11] = 0;
    let c = wire::ipv4::internet_checksum(&v[l3..l3 + 20]);
    v[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
    if keep_after_l4 >= wire::UDP_HLEN {
        v[l3 + 24..l3 + 26].copy_from_slice(&(keep_after_l4 as u16).to_be_bytes());
        v[l3 + 26] = 0;
        v[l3 + 27] = 0;
    }
    v
}

#[test]
fn truncated_udp_and_truncated_bth_are_counted_under_their_own_counters_not_each_others() {
    let mut rng = SmallRng::seed_from_u64(12);
    let mut f = random_frame(&mut rng, 40);
    f.eth.vlan = None;
    let b = encode(&f);
    let mut rx = AxisRx::new(8).unwrap();
    let udp_cut = cut_consistently(&b, 5);
    assert!(matches!(rx.frame(&udp_cut), Err(AxisDrop::Wire(WireError::Truncated { layer: wire::Layer::Udp, .. }))));
    let c = rx.counters().clone();
    assert_eq!((c.of(&AxisDrop::Wire(WireError::Truncated { layer: wire::Layer::Udp, need: 0, have: 0 })), c.drop[3]), (1, 0));
    assert_eq!(c.list().iter().find(|(n, _)| *n == "drop_truncated_udp").unwrap().1, 1);
    assert_eq!(c.list().iter().find(|(n, _)| *n == "drop_truncated_bth").unwrap().1, 0);
    let bth_cut = cut_consistently(&b, wire::UDP_HLEN + 10);
    assert!(matches!(rx.frame(&bth_cut), Err(AxisDrop::Wire(WireError::Truncated { layer: wire::Layer::Bth, .. }))));
    let c = rx.counters();
    assert_eq!(c.list().iter().find(|(n, _)| *n == "drop_truncated_udp").unwrap().1, 1);
    assert_eq!(c.list().iter().find(|(n, _)| *n == "drop_truncated_bth").unwrap().1, 1);
    assert_eq!(c.drop.iter().sum::<u32>(), 2, "nothing else counted: {:?}", c.list());
}
