//! Differential test of the path table (`mrnic_path`) on the verification kit: the generated
//! Verilog, Verilated, against the model's cycle shell `PathShell`, with the same seeded
//! stimulus, every output compared every cycle (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths.
//!
//! libtest starts tests in name order (two at a time in CI): the one-hot run, which reuses
//! the `core` model, is named to start after the mutant and power-up tests, so that it does
//! not wait for the `core` build beside the `core` test.

use mrnic_verif::blocks::path;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts, VlFactory};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("path", preset, "path_diff")
}

const OPS: [&str; 14] = ["reset_conn", "reset_path", "select", "psent", "ptmo", "preply", "ackb", "ackp", "loss", "losttmo", "release", "timeout", "fail", "tmochk"];

/// Every op kind and the outcomes that matter were seen at least `min` times (`tmo_min`
/// timer events).
fn assert_covered(r: &RunReport, min: u64, tmo_min: u64) {
    for op in OPS {
        assert!(r.get(&format!("model.{op}")) >= min, "op {op} seen {} times < {min}: {r:?}", r.get(&format!("model.{op}")));
    }
    for k in ["select_data", "select_none", "select_probe_due", "stat_decrease", "stat_ecn_cut", "stat_reroll", "stat_timeout", "hw_changes", "undefined"] {
        assert!(r.get(&format!("model.{k}")) >= min / 10, "{k} seen {} times < {}: {r:?}", r.get(&format!("model.{k}")), min / 10);
    }
    assert!(r.get("model.tmo_events") >= tmo_min, "timer events: {r:?}");
    assert!(r.get("model.stalled_cycles") > 1000, "{r:?}");
}

#[test]
fn core_preset_matches_the_shell_for_a_million_operations_with_backpressure_and_resets() {
    let s = setup("core");
    let dev = s.build("path_core", &s.verilog);
    let reps = s.check(&dev, "path_core", &[1, 2, 3], 600_000, StimOpts::default());
    let ops: u64 = reps.iter().map(|r| r.get("s.transfers")).sum();
    println!("core: {reps:#?}");
    assert!(ops >= 1_000_000, "only {ops} operations");
    let bubbles: u64 = reps.iter().map(|r| r.get("model.bubbles")).sum();
    assert!(bubbles >= 10, "the §2.9 bubble was hit {bubbles} times");
    for r in &reps {
        assert_covered(r, 500, 200);
        assert!(r.get("stim.conn_resets") > 0 && r.get("stim.resets") > 0, "{r:?}");
    }
}

#[test]
fn one_hot_connection_back_to_back_at_core_matches_the_shell() {
    let s = setup("core");
    let dev = s.build("path_core", &s.verilog);
    let reps = s.check(&dev, "path_core_hot", &[4], 200_000, StimOpts { profile: "hot".into(), ..Default::default() });
    assert_covered(&reps[0], 100, 0);
    assert!(reps[0].get("model.bubbles") >= 5, "{:?}", reps[0]);
}

#[test]
fn tiny_preset_with_four_paths_matches_the_shell() {
    let s = setup("tiny");
    let dev = s.build("path_tiny", &s.verilog);
    let reps = s.check(&dev, "path_tiny", &[5], 200_000, StimOpts::default());
    assert_covered(&reps[0], 100, 100);
}

#[test]
fn from_power_up_with_x_unique_state_the_table_matches_the_shell() {
    let s = setup("core");
    let model = s.build_x("path_core_xunique");
    for seed in [6, 7] {
        let dev = VlFactory::power_up(model.clone(), seed);
        let r = &s.check(&dev, "path_core_xunique", &[seed], 100_000, StimOpts { power_up: true, ..Default::default() })[0];
        assert!(r.get("s.transfers") > 10_000, "{r:?}");
    }
}

#[test]
fn every_path_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(path::mutants(), 15, 8, 200_000);
}
