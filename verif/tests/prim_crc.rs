//! The CRC-32 primitives (`mrnic_hdl::prim::{CrcFold, Crc32Stream}`) as generated Verilog
//! under Verilator, against the golden model's CRC (`mrnic_model::wire::icrc`): one beat at
//! every byte count, messages of every length at the stream widths the parser is generated
//! at (64 and 512 bits), back to back and with gaps, through resets; and the ICRC residue
//! the parser's check relies on, against the model's ICRC of real mrnic frames.
//!
//! Run: source ~/.cache/mrnic-tools/env.sh && cargo test -p mrnic-verif --test prim_crc

use mrnic_hdl::ports::top_ports;
use mrnic_hdl::prim::{crc_fold_model, Crc32Stream, CrcFold, CrcTailStage};
use mrnic_model::wire::icrc::{icrc_ipv4, Crc32, ICRC_SEED};
use mrnic_verif::vl::{BuildOpts, Model, Port, Sim};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

fn build<U: Block>(mut uut: U, label: &str) -> Model {
    uut.connect_all();
    let module = format!("mrnic_{label}");
    let verilog = mrnic_hdl::verilog::generate(&uut, &module).unwrap_or_else(|e| panic!("{e}"));
    Model::build(label, &verilog, &top_ports(&uut), &BuildOpts::untraced()).unwrap_or_else(|e| panic!("{e}"))
}

/// Bytes as the little-endian u32 words of a D-bit port (byte 0 = bits 7..0).
fn words(bytes: &[u8], d: usize) -> Vec<u32> {
    let mut w = vec![0u32; d.div_ceil(32)];
    for (i, &b) in bytes.iter().enumerate() {
        w[i / 4] |= (b as u32) << (8 * (i % 4));
    }
    w
}

/// The results a streaming primitive owes: (cycle at which its `m_valid` must be high, the
/// value its result port must show then), oldest first.
#[derive(Default)]
struct Due {
    q: VecDeque<(u64, u64)>,
    done: usize,
}

impl Due {
    /// Evaluates this cycle and asserts `valid` is high exactly when a result is due, with
    /// `value` equal to it.
    fn check(&mut self, sim: &mut Sim, cycle: u64, valid: &Port, value: &Port) {
        sim.eval();
        let v = sim.get(valid) == 1;
        match self.q.front() {
            Some(&(at, x)) if at == cycle => {
                assert!(v, "cycle {cycle}: m_valid expected");
                assert_eq!(sim.get(value), x, "cycle {cycle}: result");
                self.q.pop_front();
                self.done += 1;
            }
            _ => assert!(!v, "cycle {cycle}: m_valid without a message due"),
        }
    }
    /// A reset in `cycle` drops every result due after it.
    fn reset(&mut self, cycle: u64) {
        self.q.retain(|&(at, _)| at <= cycle);
    }
}

/// One `CrcFold<D>` of `bytes` bytes against the model on `n` random (state, beat) pairs,
/// junk in the ignored bytes included.
fn check_fold<const D: usize>(bytes: usize, n: usize, seed: u64) {
    let m = build(CrcFold::<D>::new(bytes), &format!("prim_crcfold{D}_{bytes}"));
    let mut sim = m.sim().unwrap();
    let (state, data, y) = (sim.port("state").unwrap(), sim.port("data").unwrap(), sim.port("y").unwrap());
    let mut rng = SmallRng::seed_from_u64(seed);
    for k in 0..n {
        let s: u32 = if k == 0 { 0 } else { rng.gen() };
        let beat: Vec<u8> = (0..D / 8).map(|_| rng.gen()).collect();
        sim.set(&state, s as u64);
        sim.set_wide(&data, &words(&beat, D));
        sim.eval();
        assert_eq!(sim.get(&y) as u32, crc_fold_model(s, &beat[..bytes]), "CrcFold<{D}>({bytes} bytes) of {s:08x}, {beat:02x?}");
    }
}

#[test]
fn a_one_beat_fold_equals_the_models_crc_register_for_every_byte_count_at_64_bits() {
    for bytes in 0..=8 {
        check_fold::<64>(bytes, 2_000, bytes as u64);
    }
}

#[test]
fn a_one_beat_fold_equals_the_models_crc_register_at_8_and_512_bits() {
    check_fold::<8>(1, 2_000, 20);
    check_fold::<512>(64, 2_000, 21);
    check_fold::<512>(17, 500, 22);
}

#[test]
fn the_fold_refuses_widths_that_are_not_whole_power_of_two_bytes_and_too_many_bytes() {
    let e = CrcFold::<48>::try_new(1).err().unwrap().to_string();
    assert_eq!(e, "CrcFold: parameter D = 48 is not supported: must be a power of two in 8..=512 (whole bytes)");
    assert!(CrcFold::<1024>::try_new(1).is_err());
    let e = CrcFold::<64>::try_new(9).err().unwrap().to_string();
    assert_eq!(e, "CrcFold: parameter bytes = 9 is not supported: at most D / 8 = 8");
    assert!(Crc32Stream::<4>::try_new(0).is_err());
    // the tail stage shares the width check and refuses chunks of 256 bytes and more
    let e = CrcTailStage::<24>::try_new(0).err().unwrap().to_string();
    assert_eq!(e, "CrcTailStage: parameter D = 24 is not supported: must be a power of two in 8..=512 (whole bytes)");
    let e = CrcTailStage::<64>::try_new(8).err().unwrap().to_string();
    assert_eq!(e, "CrcTailStage: parameter k = 8 is not supported: chunks of 2^k bytes, k < 8");
}

/// Drives `Crc32Stream<D>` with `msgs` random messages (lengths 1..=max_len, every length
/// mod D/8 reached), beats back to back or with random idle cycles, and a reset now and then
/// between or inside messages; asserts every m_valid cycle against the model and that each
/// completed message's result comes exactly `latency` cycles after its last beat.
fn check_stream<const D: usize>(init: u32, msgs: usize, max_len: usize, seed: u64) -> (usize, usize) {
    check_stream_on::<D>(build(Crc32Stream::<D>::new(init), &format!("prim_crcstream{D}")), init, msgs, max_len, seed)
}

/// [`check_stream`] on a model built already (a mutant's).
fn check_stream_on<const D: usize>(m: Model, init: u32, msgs: usize, max_len: usize, seed: u64) -> (usize, usize) {
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, rst, s_valid, s_first, s_last, s_data, s_bytes, m_valid, m_crc) = (
        p("clock"),
        p("rst"),
        p("s_valid"),
        p("s_first"),
        p("s_last"),
        p("s_data"),
        p("s_bytes"),
        p("m_valid"),
        p("m_crc"),
    );
    let lat = Crc32Stream::<D>::latency();
    let beat = D / 8;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut due = Due::default();
    let (mut cycle, mut resets) = (0u64, 0usize);
    sim.set(&rst, 1);
    sim.ticks(&clock, 2);
    sim.set(&rst, 0);
    for k in 0..msgs {
        let len = if k < 4 * beat { 1 + k % (2 * beat) } else { rng.gen_range(1..=max_len) };
        let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let cut = rng.gen_bool(0.02); // a reset inside this message
        let nbeats = len.div_ceil(beat);
        let cut_at = rng.gen_range(0..nbeats);
        for b in 0..nbeats {
            while rng.gen_bool(0.2) {
                sim.set(&s_valid, 0);
                sim.set_wide(&s_data, &words(&(0..beat).map(|_| rng.gen()).collect::<Vec<u8>>(), D));
                due.check(&mut sim, cycle, &m_valid, &m_crc);
                sim.tick(&clock);
                cycle += 1;
            }
            let chunk = &msg[b * beat..(b * beat + beat).min(len)];
            let last = b + 1 == nbeats;
            let mut padded = chunk.to_vec();
            padded.extend((chunk.len()..beat).map(|_| rng.gen::<u8>())); // junk beyond the bytes
            sim.set(&s_valid, 1);
            sim.set(&s_first, (b == 0) as u64);
            sim.set(&s_last, last as u64);
            sim.set(&s_bytes, chunk.len() as u64);
            sim.set_wide(&s_data, &words(&padded, D));
            let reset_now = cut && b == cut_at;
            sim.set(&rst, reset_now as u64);
            due.check(&mut sim, cycle, &m_valid, &m_crc);
            if reset_now {
                // the reset drops every result still in the tail (and this message)
                due.reset(cycle);
                resets += 1;
            } else if last {
                due.q.push_back((cycle + lat as u64, crc_fold_model(init, &msg) as u64));
            }
            sim.tick(&clock);
            cycle += 1;
            sim.set(&rst, 0);
            if reset_now {
                break; // the rest of a cut message is not sent
            }
        }
    }
    sim.set(&s_valid, 0);
    for _ in 0..lat + 2 {
        due.check(&mut sim, cycle, &m_valid, &m_crc);
        sim.tick(&clock);
        cycle += 1;
    }
    assert!(due.q.is_empty(), "results never came: {:?}", due.q);
    (due.done, resets)
}

#[test]
fn the_stream_engine_gives_the_models_crc_of_every_message_length_at_64_bits_back_to_back() {
    let (done, resets) = check_stream::<64>(0xFFFF_FFFF, 20_000, 200, 1);
    assert!(done > 19_000 && resets > 100, "{done} messages, {resets} resets");
}

/// The stream test can fail: a tail stage that folds its 4-byte chunk but does not shift it
/// out of the data (so the 2- and 1-byte stages fold the same bytes again) is caught. The
/// mutation is made in the generated Verilog of stage `t2` alone.
#[test]
fn a_tail_stage_that_does_not_shift_its_chunk_out_is_caught_by_the_stream_test() {
    let mut uut = Crc32Stream::<64>::new(0xFFFF_FFFF);
    uut.connect_all();
    let module = "mrnic_prim_crcstream64_mut";
    let verilog = mrnic_hdl::verilog::generate(&uut, module).unwrap_or_else(|e| panic!("{e}"));
    let start = verilog.find(&format!("module {module}$t2(")).expect("stage t2's module");
    let end = start + verilog[start..].find("endmodule").expect("its end");
    let (pat, with) = ("o_data = s_data >> k_sh;", "o_data = s_data;");
    assert_eq!(verilog[start..end].matches(pat).count(), 1, "the shift occurs once in t2");
    let mutated = format!("{}{}{}", &verilog[..start], verilog[start..end].replacen(pat, with, 1), &verilog[end..]);
    let m = Model::build("prim_crcstream64_mut", &mutated, &top_ports(&uut), &BuildOpts::untraced()).unwrap_or_else(|e| panic!("{e}"));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_stream_on::<64>(m, 0xFFFF_FFFF, 2_000, 64, 7)));
    let msg = r.err().map(|e| e.downcast_ref::<String>().cloned().unwrap_or_default()).expect("the mutant must fail the stream test");
    assert!(msg.contains("result"), "it fails on a result, not on timing: {msg}");
}

#[test]
fn the_stream_engine_with_the_icrc_seed_gives_the_models_register_at_512_bits() {
    let (done, _) = check_stream::<512>(ICRC_SEED, 3_000, 400, 2);
    assert!(done > 2_800, "{done}");
}

#[test]
fn the_stream_engine_at_8_bits_has_no_tail_stage_and_latency_1() {
    assert_eq!(Crc32Stream::<8>::latency(), 1);
    assert_eq!(Crc32Stream::<64>::latency(), 4);
    assert_eq!(Crc32Stream::<512>::latency(), 7);
    check_stream::<8>(0xFFFF_FFFF, 2_000, 40, 3);
}

/// The check the parser makes instead of locating the ICRC: the raw register after the
/// ICRC-covered bytes *followed by the four ICRC bytes as sent* is the constant 0xDEBB20E3
/// (the CRC-32 residue), and any other four bytes give another value. Proven on the model's
/// ICRC of random RoCEv2-shaped packets (so it holds for every frame the model seals).
#[test]
fn the_icrc_is_right_exactly_when_the_register_after_it_is_the_residue() {
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..5_000 {
        let n = rng.gen_range(40..300);
        let mut l3: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        l3[0] = 0x45; // IPv4, IHL 5
        let icrc = icrc_ipv4(&l3).unwrap();
        // The register over the masked pseudo-packet: icrc_ipv4's own masking, re-done here
        // byte for byte as the parser does it (TOS, TTL, checksums, BTH byte 4 to 0xFF).
        let mut masked = l3.clone();
        for i in [1, 8, 10, 11, 26, 27, 32] {
            masked[i] = 0xFF;
        }
        let mut c = Crc32::from_state(ICRC_SEED);
        c.update(&masked);
        assert_eq!(!c.state(), icrc, "the masking above is the model's");
        c.update(&icrc.to_le_bytes());
        assert_eq!(c.state(), 0xDEBB_20E3, "residue of a right ICRC");
        let mut bad = icrc.to_le_bytes();
        bad[rng.gen_range(0..4)] ^= 1 << rng.gen_range(0..8);
        let mut c2 = Crc32::from_state(ICRC_SEED);
        c2.update(&masked);
        c2.update(&bad);
        assert_ne!(c2.state(), 0xDEBB_20E3, "a wrong ICRC never gives the residue");
    }
}

// ---- OnesSum: the Internet checksum's sum (same file: the receive path's checksum primitives)

/// Drives `OnesSum<D, K>` with `msgs` random messages (random byte enables, runs of idle
/// cycles, back to back, resets inside messages) and checks every m_valid cycle against
/// the model's `ones_sum`, exactly `latency` cycles after each last beat.
fn check_ones_sum<const D: usize, const K: usize>(msgs: usize, max_beats: usize, seed: u64) -> usize {
    use mrnic_hdl::prim::OnesSum;
    check_ones_sum_on::<D, K>(build(OnesSum::<D, K>::new(), &format!("prim_onessum{D}")), msgs, max_beats, seed)
}

/// [`check_ones_sum`] on a model built already (a mutant's).
fn check_ones_sum_on<const D: usize, const K: usize>(m: Model, msgs: usize, max_beats: usize, seed: u64) -> usize {
    use mrnic_hdl::prim::{ones_sum_model, OnesSum};
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, rst, s_valid, s_first, s_last, s_data, s_keep, s_add, m_valid, m_sum) = (
        p("clock"),
        p("rst"),
        p("s_valid"),
        p("s_first"),
        p("s_last"),
        p("s_data"),
        p("s_keep"),
        p("s_add"),
        p("m_valid"),
        p("m_sum"),
    );
    let lat = OnesSum::<D, K>::latency() as u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut due = Due::default();
    let mut cycle = 0u64;
    sim.set(&rst, 1);
    sim.ticks(&clock, 2);
    sim.set(&rst, 0);
    for k in 0..msgs {
        let nbeats = rng.gen_range(1..=max_beats);
        // keep patterns: all, none, a contiguous range (the parser's), random; all-0xFF data
        // now and then so the sum wraps many times
        let style = rng.gen_range(0..4);
        let ones = rng.gen_bool(0.1);
        let add: u16 = if k % 3 == 0 { 0 } else { rng.gen() };
        let (mut bytes, mut keep) = (vec![], vec![]);
        let cut = rng.gen_bool(0.02).then(|| rng.gen_range(0..nbeats));
        for b in 0..nbeats {
            while rng.gen_bool(0.2) {
                sim.set(&s_valid, 0);
                due.check(&mut sim, cycle, &m_valid, &m_sum);
                sim.tick(&clock);
                cycle += 1;
            }
            let beat: Vec<u8> = (0..K).map(|_| if ones { 0xFF } else { rng.gen() }).collect();
            let (lo, hi) = (rng.gen_range(0..=K), rng.gen_range(0..=K));
            let kb: Vec<bool> = (0..K)
                .map(|i| match style {
                    0 => true,
                    1 => k % 7 != 0,
                    2 => i >= lo.min(hi) && i < lo.max(hi),
                    _ => rng.gen_bool(0.5),
                })
                .collect();
            let mut kw = 0u64;
            for (i, &x) in kb.iter().enumerate() {
                kw |= (x as u64) << i;
            }
            bytes.extend_from_slice(&beat);
            keep.extend_from_slice(&kb);
            let last = b + 1 == nbeats;
            sim.set(&s_valid, 1);
            sim.set(&s_first, (b == 0) as u64);
            sim.set(&s_last, last as u64);
            sim.set_wide(&s_data, &words(&beat, D));
            sim.set(&s_keep, kw);
            sim.set(&s_add, add as u64);
            let reset_now = cut == Some(b);
            sim.set(&rst, reset_now as u64);
            due.check(&mut sim, cycle, &m_valid, &m_sum);
            if reset_now {
                due.reset(cycle);
            } else if last {
                due.q.push_back((cycle + lat, ones_sum_model(&bytes, &keep, add) as u64));
            }
            sim.tick(&clock);
            cycle += 1;
            sim.set(&rst, 0);
            if reset_now {
                break;
            }
        }
    }
    sim.set(&s_valid, 0);
    for _ in 0..lat + 2 {
        due.check(&mut sim, cycle, &m_valid, &m_sum);
        sim.tick(&clock);
        cycle += 1;
    }
    assert!(due.q.is_empty(), "results never came: {:?}", due.q);
    due.done
}

#[test]
fn the_ones_sum_equals_the_models_internet_checksum_sum_at_64_bits_with_any_byte_enables() {
    assert!(check_ones_sum::<64, 8>(20_000, 40, 31) > 19_000);
}

#[test]
fn the_ones_sum_equals_the_models_at_16_and_512_bits() {
    assert!(check_ones_sum::<16, 2>(5_000, 60, 32) > 4_800);
    assert!(check_ones_sum::<512, 64>(2_000, 20, 33) > 1_900);
}

/// The OnesSum test can fail: a loop that drops one pending carry (lane 0's high byte, the
/// end-around carry kept for the next beat), or a tail that leaves out that carry of the last
/// beat, is caught. The mutations are made in the generated Verilog.
#[test]
fn a_ones_sum_that_drops_a_pending_end_around_carry_is_caught_by_its_test() {
    use mrnic_hdl::prim::OnesSum;
    let mut uut = OnesSum::<64, 8>::new();
    uut.connect_all();
    let module = "mrnic_prim_onessum64_mut";
    let verilog = mrnic_hdl::verilog::generate(&uut, module).unwrap_or_else(|e| panic!("{e}"));
    for (k, (pat, with)) in [("cb = basec[32'h2 * 0 + 32'h1];", "cb = 1'b0;"), ("ch = t1_carries$q[32'h2 * 0 + 32'h1];", "ch = 1'b0;")].into_iter().enumerate() {
        assert_eq!(verilog.matches(pat).count(), 1, "{pat} occurs once");
        let mutated = verilog.replacen(pat, with, 1);
        let label = format!("prim_onessum64_mut{k}");
        let m = Model::build(&label, &mutated, &top_ports(&uut), &BuildOpts::untraced()).unwrap_or_else(|e| panic!("{e}"));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_ones_sum_on::<64, 8>(m, 2_000, 40, 9)));
        let msg = r.err().map(|e| e.downcast_ref::<String>().cloned().unwrap_or_default()).expect("the mutant must fail the sum test");
        assert!(msg.contains("result"), "it fails on a result, not on timing: {msg}");
    }
}

#[test]
fn the_ones_sum_checks_a_real_ipv4_header_and_refuses_bad_widths() {
    use mrnic_hdl::prim::{ones_sum_model, OnesSum};
    // a header the model writes sums to 0xFFFF (its checksum is right)
    let mut h = vec![];
    mrnic_model::wire::ipv4::Ipv4Header::default().write(96, &mut h);
    assert_eq!(ones_sum_model(&h, &[true; 20], 0), 0xFFFF);
    let e = OnesSum::<64, 4>::try_new().err().unwrap().to_string();
    assert_eq!(e, "OnesSum: parameter K = 4 is not supported: must be D / 8 = 8");
    assert!(OnesSum::<8, 1>::try_new().is_err());
}
