//! Differential test of the SACK engine on the verification kit: the generated Verilog,
//! Verilated, against the golden model's cycle shell, with the same seeded stimulus, every
//! output compared every cycle (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths.
//! A mismatch prints the seed, the cycle, the inputs and a named-signal diff, writes an FST
//! waveform under target/waves/, and prints the command that reproduces it.

use mrnic_verif::blocks::sack;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts, VlFactory};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("sack", preset, "sack_diff")
}

/// Power-up runs: each seed starts the x-unique model from random initial state (registers
/// and both state RAMs), resets it and clears every connection (the stimulus's power-up
/// prologue), then runs the random mix, compared every cycle from the first reset edge.
fn power_up(s: &DiffBench, label: &str, seeds: &[u64], cycles: u64) -> Vec<RunReport> {
    let model = s.build_x(label);
    seeds
        .iter()
        .map(|&seed| {
            let dev = VlFactory::power_up(model.clone(), seed);
            let r = &s.check(&dev, label, &[seed], cycles, StimOpts { power_up: true, ..Default::default() })[0];
            assert_eq!(r.get("stim.setup_clears"), s.cfg.connections as u64, "{r:?}");
            assert!(r.get("s.transfers") > cycles / 4, "{r:?}");
            r.clone()
        })
        .collect()
}

fn classes(r: &RunReport) -> [u64; 4] {
    ["model.New", "model.Duplicate", "model.OutOfWindow", "model.Cleared"].map(|k| r.get(k))
}

#[test]
fn default_preset_matches_the_model_for_a_million_packets_with_backpressure_and_resets() {
    let s = setup("default");
    let dev = s.build("sack_default", &s.verilog);
    let reps = s.check(&dev, "sack_default", &[1, 2], 1_000_000, StimOpts::default());
    let packets: u64 = reps.iter().map(|r| r.get("s.transfers")).sum();
    println!("default: {reps:#?}");
    assert!(packets >= 1_000_000, "only {packets} packets");
    for r in &reps {
        assert!(classes(r).iter().all(|&n| n > 1000), "every class exercised: {:?}", classes(r));
        assert!(r.get("model.stalled_cycles") > 1000 && r.get("stim.resets") > 0 && r.get("stim.sweeps") > 0 && r.get("stim.clears") > 0, "{r:?}");
        assert!(r.get("stim.uncommitted") > 1000, "uncommitted packets offered: {r:?}");
    }
}

#[test]
fn small_preset_with_16_connections_matches_under_constant_same_connection_hazards() {
    let s = setup("small");
    let dev = s.build("sack_small", &s.verilog);
    let reps = s.check(&dev, "sack_small", &[3], 400_000, StimOpts::default());
    assert!(reps[0].get("s.transfers") > 200_000, "{:?}", reps[0]);
}

#[test]
fn ice40_preset_with_a_64_bit_window_matches_the_model() {
    let s = setup("ice40");
    let dev = s.build("sack_ice40", &s.verilog);
    let reps = s.check(&dev, "sack_ice40", &[4], 300_000, StimOpts::default());
    assert!(classes(&reps[0]).iter().all(|&n| n > 100), "{:?}", classes(&reps[0]));
}

#[test]
fn from_random_power_up_state_the_engine_matches_once_every_connection_is_cleared() {
    let s = setup("small");
    power_up(&s, "sack_small_xunique", &[41, 42, 43], 100_000);
}

#[test]
fn default_and_ice40_presets_match_from_random_power_up_state() {
    for preset in ["default", "ice40"] {
        let s = setup(preset);
        power_up(&s, &format!("sack_{preset}_xunique"), &[44], 40_000);
    }
}

/// The x-unique model really starts from random state: a packet into a connection that was
/// never cleared reads the state RAM's power-up contents, and its result differs between
/// two seeds (so the power-up runs above test something, and the clears they start with are
/// needed).
#[test]
fn random_power_up_state_differs_between_seeds_until_the_connection_is_cleared() {
    use mrnic_verif::kit::{DeviceFactory, Values};
    let s = setup("small");
    let model = s.build_x("sack_small_xunique");
    let io = &s.io;
    let (rst, valid, conn, psn, clear, commit, ready) = ["rst", "s_valid", "s_conn", "s_psn", "s_clear", "s_commit", "m_ready"].map(|n| io.input(n).unwrap()).into();
    let (m_valid, m_base, m_bitmap) = (io.output("m_valid").unwrap(), io.output("m_base").unwrap(), io.output("m_bitmap").unwrap());
    // One packet (PSN 5 on connection 3), optionally after clearing connection 3 at PSN 0.
    let result = |seed: u64, cleared: bool| {
        let dev = VlFactory::power_up(model.clone(), seed);
        let mut d = dev.open(io).unwrap();
        let (mut i, mut o) = (Values::new(&io.inputs), Values::new(&io.outputs));
        i.set(ready, 1);
        i.set(commit, 1);
        i.set(rst, 1);
        d.cycle(&i, &mut o);
        i.set(rst, 0);
        i.set(conn, 3);
        if cleared {
            (i.set(valid, 1), i.set(clear, 1), i.set(psn, 0));
            d.cycle(&i, &mut o);
        }
        (i.set(valid, 1), i.set(clear, 0), i.set(psn, 5));
        d.cycle(&i, &mut o);
        i.set(valid, 0);
        let mut seen = vec![];
        for _ in 0..mrnic_hdl::sack::LATENCY + 4 {
            d.cycle(&i, &mut o);
            if o.bit(m_valid) {
                seen.push((o.get(m_base), o.show(m_bitmap)));
            }
        }
        assert_eq!(seen.len(), 1 + cleared as usize, "seed {seed}: one result per operation within the latency: {seen:?}");
        seen
    };
    assert_ne!(result(1, false), result(2, false), "an uncleared connection's result depends on the power-up state");
    assert_eq!(result(1, true), result(2, true), "a cleared one does not");
}

#[test]
fn every_directed_profile_matches_the_model() {
    let s = setup("small");
    let dev = s.build("sack_small", &s.verilog);
    for p in sack::stimulus::PROFILES {
        let r = &s.check(&dev, &format!("sack_small_{p}"), &[31], 60_000, StimOpts { profile: p.to_string(), ..Default::default() })[0];
        println!("{p}: {r:?}");
        assert!(r.get("s.transfers") > 5_000, "{p}: {r:?}");
    }
}

/// The `commit` profile (half the data packets uncommitted: at the base, in sweeps, as
/// base-filling retransmissions, each retried until committed) on the small preset: the RTL
/// classifies an uncommitted packet as the model does and never records it (a recorded one
/// would change the next result of its connection: a base that moved, a duplicate instead
/// of new).
#[test]
fn uncommitted_packets_are_classified_but_never_recorded() {
    let s = setup("small");
    let dev = s.build("sack_small", &s.verilog);
    let r = &s.check(&dev, "sack_small_commit", &[32], 200_000, StimOpts { profile: "commit".into(), ..Default::default() })[0];
    println!("commit: {r:?}");
    assert!(classes(r).iter().all(|&n| n > 100), "every class exercised: {:?}", classes(r));
    assert!(r.get("stim.uncommitted") > 1000 && r.get("stim.sweeps") > 0, "{r:?}");
}

/// Each mutant is the generated Verilog with one deliberate bug; the differential test must
/// catch every one (and the mutation must apply to exactly one place).
#[test]
fn deliberately_broken_rtl_variants_are_caught() {
    // The tiny preset (16 connections, W = 64): every pattern is width-independent, and its
    // 64-bit words Verilate and compile about twice as fast as W = 256, once per mutant.
    let s = setup("tiny");
    assert_eq!(sack::mutants().len(), 26);
    s.mutants(sack::mutants(), 26, 5, 300_000);
}

/// The FPGA flow tells yosys (`-no-rw-check`) that a read and a write of the same RAM address
/// in one cycle may return anything. That is safe only if the engine never uses such a read:
/// here both RAMs return garbage (the inverted word) on a same-address collision, and the
/// engine must still match the model exactly. (Collisions are constant in the stimulus: in a
/// full-rate run on one connection, packet n's write lands as packet n+3's read is issued.)
#[test]
fn read_during_write_collisions_never_reach_the_outputs() {
    let s = setup("small");
    let bad = sack::apply_rw_garbage(&s.verilog).unwrap_or_else(|e| panic!("{e}"));
    let dev = s.build("sack_small_rw_garbage", &bad);
    for r in s.check(&dev, "sack_small_rw_garbage", &[21, 22], 300_000, StimOpts::default()) {
        assert!(r.get("s.transfers") > 150_000, "{r:?}");
    }
}
