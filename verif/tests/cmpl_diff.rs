//! Differential test of the completion unit (`mrnic_cmpl`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `CmplShell`, with the same
//! seeded stimulus (each message's write responses once, in random order within and across
//! messages, SENDs and WRITEs, failed writes, fatal refusals, stray responses, reopened
//! connections, walks over several complete messages, sink stalls, resets), every output
//! compared every cycle (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::cmpl;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("cmpl", preset, "cmpl_diff")
}

/// What a run must have covered to count (`scale` tenths of the full floors).
fn assert_covered(r: &RunReport, scale: u64) {
    for (k, min) in [
        ("stim.ops", 200_000),
        ("stim.dones", 150_000),
        ("stim.errors", 200),
        ("stim.fatals", 100),
        ("stim.opens", 300),
        ("stim.strays", 100),
        ("stim.multi_walks", 1_000),
        ("stim.resets", 1),
        ("model.records_out", 30_000),
        ("model.write_error_records_out", 50),
        ("model.msgs", 50_000),
        ("model.m_stalled_cycles", 20_000),
    ] {
        let min = min * scale / 10;
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn cmpl_matches_the_shell_for_a_million_ops_at_core_with_errors_reopens_stalls_and_resets() {
    let s = setup("core");
    let dev = s.build("cmpl", &s.verilog);
    let reps = s.check(&dev, "cmpl", &[1, 2], 2_600_000, StimOpts::default());
    println!("{reps:#?}");
    let ops: u64 = reps.iter().map(|r| r.get("stim.ops")).sum();
    assert!(ops >= 1_000_000, "only {ops} ops");
    for r in &reps {
        assert_covered(r, 10);
    }
}

#[test]
fn cmpl_matches_at_tiny_on_long_walks_and_from_power_up() {
    let s = setup("tiny");
    let dev = s.build("cmpl_tiny", &s.verilog);
    let t = s.check(&dev, "cmpl_tiny", &[3], 400_000, StimOpts::default());
    assert_covered(&t[0], 3);
    let w = s.check(&dev, "cmpl_walks", &[4], 150_000, StimOpts { profile: "walks".into(), ..Default::default() });
    assert!(w[0].get("stim.multi_walks") > 2_000 && w[0].get("model.msgs") > 10_000, "{w:#?}");
    let c = setup("core");
    let x = c.build_x("cmpl_power_up");
    let dev = mrnic_verif::kit::VlFactory::power_up(x, 5);
    let p = c.check(&dev, "cmpl_power_up", &[5], 60_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("model.records_out") > 1_000, "{p:#?}");
}

#[test]
fn every_cmpl_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(cmpl::mutants(), 15, 6, 300_000);
}
