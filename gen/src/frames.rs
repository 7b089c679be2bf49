//! `mrnic frames`: frames for the frame parser's directed and randomized cocotb tests
//! (`verif/cocotb/parser/test_parser.py`), each with the golden model's verdict.
//!
//! Every frame is built by the model (`mrnic_model::wire`: the encoder, then one field made
//! illegal, a truncation, a `tkeep`/`tuser` fault, ...) and split into 64-bit AXI4-Stream beats
//! (`to_beats`, then the fault). The expectation is what the beat-level reference model
//! (`AxisRx`, the one the parser's cycle shell wraps) says of exactly those beats: `good`
//! with the header record, or the drop counter it increments. A directed frame also names
//! the verdict it was built for (`intent`), and the command refuses to write a set in which
//! the model disagrees with an intent: the directed test then really covers each reason.
//!
//! JSON document:
//! `{"generator", "seed", "bytes_per_beat", "latency", "verdict_none", "drop_names",
//!   "good_names", "record_fields", "directed": [FRAME...], "random": [FRAME...],
//!   "counters_directed": {name: n}, "counters_random": {name: n}}` where
//! `FRAME = {"name", "intent", "data", "keep", "user", "verdict", "code", "record", "vrd_keep"}`:
//! `data` is the hex of every beat's 8 bytes (byte 0 first on the wire, bytes a `tkeep`
//! excludes included), `keep` and `user` one `tkeep` / `tuser` per beat, `verdict` "good" or a
//! counter name of `drop_names` (`stat_<verdict>` counts it), `code` the `stat_last_verdict`
//! after it, `record` the `m_hdr_<field>` values of a good frame (else null), `vrd_keep` its
//! verdict on `m_vrd` for the frame buffer (`vrd_keep`: 1 for a good WRITE / SEND with a
//! payload, else 0). The counters
//! are each list's totals from reset (`stat_<name>`), the directed and the random list each
//! starting from reset.

use anyhow::{bail, ensure, Result};
use mrnic_model::wire::axis::{keep_mask, to_beats, AxisRx, Beat, DEFAULT_MAX_FRAME, DROP_NAMES, GOOD_NAMES};
use mrnic_model::wire::gen::{mutate, random_frame};
use mrnic_model::wire::parser_shell::{verdict_code, vrd_keep, HdrRecord, PARSER_BYTES, PARSER_LATENCY, VERDICT_NONE};
use mrnic_model::wire::{encode, opcode, reseal};
use mrnic_verif::blocks::parser::stimulus::fix_lengths;
use mrnic_verif::blocks::parser::RECORD;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The largest `--random` accepted (a frame is ~0.5 KB of JSON and ~30 cycles of simulation).
pub const MAX_RANDOM: usize = 100_000;

/// `mrnic frames`: model-built parser frames and their expected verdicts (JSON).
#[derive(clap::Args, Clone)]
pub struct FramesArgs {
    /// Seed of the frames' random fields and of the random list.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of random frames (valid, hostile, truncated, tkeep/tuser faults) after the
    /// directed ones (0 ..= 100000).
    #[arg(long, default_value_t = 200)]
    pub random: usize,
    /// Output file (JSON); its directory is created if missing.
    #[arg(long)]
    pub out: PathBuf,
}

/// One frame as beats, with what it was built to provoke.
struct Built {
    name: String,
    intent: Option<&'static str>,
    beats: Vec<Beat>,
}

fn l3_of(b: &[u8]) -> usize {
    if b.len() > 13 && b[12] == 0x81 && b[13] == 0 {
        18
    } else {
        14
    }
}

/// A valid encoded frame from `rng` whose opcode is `op` (and, if `tagged` is given, with or
/// without a VLAN tag).
fn good_bytes(rng: &mut SmallRng, op: u8, tagged: Option<bool>, max_payload: usize) -> Vec<u8> {
    for _ in 0..100_000 {
        let f = random_frame(rng, max_payload);
        if f.opcode() == op && tagged.is_none_or(|t| f.eth.vlan.is_some() == t) {
            return encode(&f);
        }
    }
    unreachable!("random_frame never gave opcode {op:#x}")
}

fn plain(name: &str, intent: &'static str, bytes: &[u8]) -> Built {
    Built { name: name.into(), intent: Some(intent), beats: to_beats(bytes, PARSER_BYTES) }
}

/// `bytes` with `edit` applied and the checksums resealed.
fn resealed(name: &str, intent: &'static str, mut bytes: Vec<u8>, edit: impl FnOnce(&mut Vec<u8>, usize)) -> Built {
    let l3 = l3_of(&bytes);
    edit(&mut bytes, l3);
    assert!(reseal(&mut bytes), "{name}: reseal refused");
    plain(name, intent, &bytes)
}

/// The directed set: one good frame per opcode (tagged and untagged, a long one), then one
/// frame per drop reason the stream can provoke with a single fault.
fn directed(rng: &mut SmallRng) -> Vec<Built> {
    use opcode::*;
    let mut v = vec![];
    for (n, op) in [("write", WRITE), ("send", SEND), ("ack", ACK), ("nak", NAK), ("probe", PROBE), ("probe_reply", PROBE_REPLY)] {
        let intent = GOOD_NAMES.iter().find(|g| **g == format!("good_{n}")).expect("a good name");
        v.push(plain(&format!("good {n}"), intent, &good_bytes(rng, op, Some(false), 64)));
        v.push(plain(&format!("good {n}, VLAN-tagged"), intent, &good_bytes(rng, op, Some(true), 64)));
    }
    v.push(plain("good write, 1500-byte payload", "good_write", &good_bytes(rng, WRITE, Some(false), 1500)));
    let data = |rng: &mut SmallRng| good_bytes(rng, WRITE, Some(false), 64);
    let ack = |rng: &mut SmallRng| good_bytes(rng, ACK, Some(false), 64);
    let nak = |rng: &mut SmallRng| good_bytes(rng, NAK, Some(false), 64);

    v.push(plain("truncated in the Ethernet header (10 bytes)", "drop_truncated_ethernet", &data(rng)[..10]));
    v.push(plain("truncated in the IPv4 header (30 bytes)", "drop_truncated_ipv4", &data(rng)[..30]));
    for (name, intent, keep) in [
        ("cut in the UDP header, IPv4 length consistent", "drop_truncated_udp", 20 + 4),
        ("cut in the BTH, lengths consistent", "drop_truncated_bth", 28 + 6),
        ("cut in the data extension headers, lengths consistent", "drop_truncated_extension", 28 + 12 + 10),
    ] {
        let mut b = data(rng);
        let l3 = l3_of(&b);
        b.truncate(l3 + keep);
        fix_lengths(&mut b);
        reseal(&mut b); // the ICRC of what is left, where there is room for one (else a no-op)
        v.push(plain(name, intent, &b));
    }
    v.push(resealed("IPv4 total length 10", "drop_bad_ip_total_length", data(rng), |b, l3| {
        b[l3 + 2] = 0;
        b[l3 + 3] = 10;
    }));
    let mut b = data(rng);
    b[12] = 0x86;
    b[13] = 0xdd;
    v.push(plain("IPv6 ethertype", "drop_bad_ethertype", &b));
    v.push(resealed("IP version 6", "drop_bad_ip_version", data(rng), |b, l3| b[l3] = 0x65));
    v.push(resealed("IPv4 header length 6 (options)", "drop_bad_ip_header_length", data(rng), |b, l3| b[l3] = 0x46));
    let mut b = data(rng);
    let l3 = l3_of(&b);
    b[l3 + 10] ^= 0x01;
    v.push(plain("IPv4 header checksum off by one bit", "drop_bad_ip_checksum", &b));
    v.push(resealed("more-fragments flag set", "drop_fragmented", data(rng), |b, l3| b[l3 + 6] |= 0x20));
    v.push(resealed("IP protocol TCP", "drop_not_udp", data(rng), |b, l3| b[l3 + 9] = 6));
    v.push(resealed("UDP destination port 4792", "drop_wrong_udp_port", data(rng), |b, l3| b[l3 + 23] ^= 0x03));
    v.push(resealed("UDP length 4 bytes short", "drop_udp_length_mismatch", data(rng), |b, l3| {
        let u = u16::from_be_bytes([b[l3 + 24], b[l3 + 25]]) - 4;
        b[l3 + 24..l3 + 26].copy_from_slice(&u.to_be_bytes());
    }));
    let mut b = data(rng);
    let l3 = l3_of(&b);
    b[l3 + 27] ^= 0x10;
    v.push(plain("UDP checksum off by one bit", "drop_bad_udp_checksum", &b));
    let mut b = data(rng);
    let (n, l3) = (b.len(), l3_of(&b));
    b[l3 + 26] = 0; // UDP checksum 0 (not checked): it covers the ICRC
    b[l3 + 27] = 0;
    b[n - 1] ^= 0x80;
    v.push(plain("ICRC off by one bit (UDP checksum 0)", "drop_bad_icrc", &b));
    v.push(resealed("BTH transport version 1", "drop_bad_transport_version", data(rng), |b, l3| b[l3 + 29] |= 0x01));
    v.push(resealed("opcode 0x55", "drop_unknown_opcode", data(rng), |b, l3| b[l3 + 28] = 0x55));
    v.push(resealed("data path id 16", "drop_bad_path_id", data(rng), |b, l3| b[l3 + 40] = 16));
    v.push(resealed("pad count 3 on an ACK", "drop_bad_pad_count", ack(rng), |b, l3| b[l3 + 29] |= 0x30));
    v.push(resealed("NAK code 0xee", "drop_bad_nak_code", nak(rng), |b, l3| b[l3 + 40] = 0xee));
    // An ACK with its SACK bit 0 set: the bit whose setting the model reports as such.
    let a = ack(rng);
    let l3 = l3_of(&a);
    let sack0 = (0..8 * (a.len() - l3 - 28 - 4)).find_map(|bit| {
        let mut b = a.clone();
        b[l3 + 40 + bit / 8] ^= 1 << (bit % 8);
        reseal(&mut b);
        let mut rx = AxisRx::new(PARSER_BYTES).expect("width 8");
        matches!(rx.frame(&b), Err(mrnic_model::wire::axis::AxisDrop::Wire(mrnic_model::wire::WireError::SackBaseBitSet))).then_some(b)
    });
    v.push(plain("ACK with SACK bit 0 (the cumulative PSN) set", "drop_sack_base_bit_set", &sack0.expect("an ACK bit that is SACK bit 0")));
    // A data packet whose PLETH length says one byte more than it carries.
    v.push(resealed("data length field one more than the payload", "drop_length_mismatch", data(rng), |b, l3| {
        let o = l3 + 28 + 12 + 32;
        let n = u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]).wrapping_add(4);
        b[o..o + 4].copy_from_slice(&n.to_be_bytes());
    }));
    let mut b = data(rng);
    b.extend_from_slice(&[0; 4]);
    v.push(plain("4 bytes after the IPv4 datagram", "drop_trailing_bytes", &b));
    // Stream-level faults.
    let mut f = plain("tuser on beat 2 of a good frame", "drop_mac_error", &data(rng));
    f.beats[2].tuser = true;
    v.push(f);
    let mut f = plain("tuser and a tkeep hole (the MAC error wins)", "drop_mac_error", &data(rng));
    f.beats[1].tuser = true;
    f.beats[3].tkeep = 0b1011_0111;
    v.push(f);
    let mut f = plain("tkeep hole 0b10110111 on beat 3", "drop_bad_keep", &data(rng));
    f.beats[3].tkeep = 0b1011_0111;
    v.push(f);
    let mut f = plain("tkeep 0x0f on a beat that is not the last", "drop_bad_keep", &data(rng));
    f.beats[1].tkeep = keep_mask(4);
    v.push(f);
    let mut f = plain("tkeep 0 on the last beat", "drop_bad_keep", &data(rng));
    f.beats.last_mut().expect("a beat").tkeep = 0;
    v.push(f);
    v.push(plain("empty frame (one beat, tkeep 0)", "drop_bad_keep", &[]));
    let mut b = data(rng);
    b.resize(DEFAULT_MAX_FRAME + 5, 0x5a);
    v.push(plain("9221 bytes (over the 9216-byte maximum)", "drop_too_long", &b));
    v.push(plain("a good ACK after the long frame", "good_ack", &ack(rng)));
    v
}

/// A random frame: valid, or hostile (mutated, resealed or not, truncated), with rare
/// `tkeep`/`tuser` faults; garbage in the bytes the last beat's `tkeep` excludes.
fn random(rng: &mut SmallRng, k: usize) -> Built {
    let max_payload = if rng.gen_bool(0.1) { 400 } else { 100 };
    let mut b = encode(&random_frame(rng, max_payload));
    match rng.gen_range(0..10) {
        0..=4 => {}
        5 | 6 => {
            mutate(rng, &mut b);
            if !b.is_empty() && rng.gen_bool(0.5) {
                reseal(&mut b);
            }
        }
        7 => {
            let n = rng.gen_range(0..b.len().min(100));
            b.truncate(n);
        }
        _ => {
            let l3 = l3_of(&b);
            let i = rng.gen_range(0..b.len().min(l3 + 60));
            b[i] ^= 1 << rng.gen_range(0..8);
            reseal(&mut b);
        }
    }
    let mut beats = to_beats(&b, PARSER_BYTES);
    if let Some(last) = beats.last_mut() {
        let n = last.tkeep.trailing_ones() as usize;
        for x in last.tdata.iter_mut().skip(n) {
            *x = rng.gen();
        }
    }
    if rng.gen_bool(0.03) {
        let i = rng.gen_range(0..beats.len());
        beats[i].tuser = true;
    }
    if rng.gen_bool(0.03) {
        let i = rng.gen_range(0..beats.len());
        beats[i].tkeep = 0b0111_0111;
    }
    Built { name: format!("random {k}"), intent: None, beats }
}

fn record_json(r: &HdrRecord) -> Value {
    Value::Object(RECORD.iter().zip(r.fields()).map(|(n, x)| (n.to_string(), json!(x))).collect())
}

/// The frames of one list through a fresh reference receiver: their JSON and the counters.
fn judge(list: &[Built]) -> Result<(Vec<Value>, Value)> {
    let mut rx = AxisRx::new(PARSER_BYTES).expect("width 8");
    let mut out = vec![];
    for f in list {
        let mut verdict = None;
        for b in &f.beats {
            verdict = rx.push(b);
        }
        let v = verdict.expect("the last beat has tlast");
        let name = match &v {
            Ok(fr) => GOOD_NAMES[mrnic_model::wire::axis::good_index(fr.opcode()).expect("an mrnic opcode")],
            Err(d) => DROP_NAMES[mrnic_model::wire::axis::drop_index(d)],
        };
        if let Some(want) = f.intent {
            if want != name {
                bail!("frame {:?} was built for {want} but the model says {name} ({v:?}): fix the frame", f.name);
            }
        }
        let data: String = f.beats.iter().flat_map(|b| b.tdata.iter()).map(|x| format!("{x:02x}")).collect();
        out.push(json!({
            "name": f.name,
            "intent": f.intent,
            "data": data,
            "keep": f.beats.iter().map(|b| b.tkeep).collect::<Vec<_>>(),
            "user": f.beats.iter().map(|b| b.tuser as u8).collect::<Vec<_>>(),
            "verdict": if v.is_ok() { "good" } else { name },
            "code": verdict_code(&v),
            "record": v.as_ref().ok().map(|fr| record_json(&HdrRecord::of(fr))),
            "vrd_keep": vrd_keep(&v) as u8,
        }));
    }
    let counters = Value::Object(rx.counters().list().into_iter().map(|(n, x)| (n.to_string(), json!(x))).collect());
    Ok((out, counters))
}

/// The whole document.
pub fn document(seed: u64, n_random: usize) -> Result<Value> {
    ensure!(n_random <= MAX_RANDOM, "--random {n_random} is above the limit of {MAX_RANDOM}");
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xf7a3_e500);
    let d = directed(&mut rng);
    let r: Vec<Built> = (0..n_random).map(|k| random(&mut rng, k)).collect();
    let (dj, dc) = judge(&d)?;
    let (rj, rc) = judge(&r)?;
    Ok(json!({
        "generator": mrnic_hdl::tops::GENERATOR,
        "seed": seed,
        "bytes_per_beat": PARSER_BYTES,
        "latency": PARSER_LATENCY,
        "verdict_none": VERDICT_NONE,
        "drop_names": DROP_NAMES,
        "good_names": GOOD_NAMES,
        "record_fields": RECORD,
        "directed": dj,
        "random": rj,
        "counters_directed": dc,
        "counters_random": rc,
    }))
}

/// Runs `mrnic frames`.
pub fn run(a: &FramesArgs) -> Result<()> {
    let doc = document(a.seed, a.random)?;
    let text = serde_json::to_string(&doc)? + "\n";
    crate::vectors::write_atomically(&a.out, |w| Ok(w.write_all(text.as_bytes())?))?;
    println!(
        "wrote {} directed and {} random frames (seed {}) to {}",
        doc["directed"].as_array().map_or(0, |x| x.len()),
        a.random,
        a.seed,
        a.out.display()
    );
    Ok(())
}
