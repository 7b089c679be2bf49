//! Differential test of the DMA placement unit's write path (`mrnic_placement`) on the
//! verification kit: the generated Verilog, Verilated, against the model's cycle shell
//! `WrShell`, with the same seeded stimulus (command and data sources, an AXI4 write slave
//! with random AW/W/B backpressure and bresp errors), every output compared every cycle
//! (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::placement;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup() -> DiffBench {
    let s = DiffBench::new("placement", "core", "placement_diff");
    // the Verilog under test, for reading (mutant patterns, waveforms)
    std::fs::write(std::env::temp_dir().join("mrnic_placement.v"), &s.verilog).ok();
    s
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport) {
    for (k, min) in [
        ("stim.edge_4k", 200),
        ("stim.crossing_4k", 100),
        ("stim.one_byte", 80),
        ("stim.max_len", 5),
        ("stim.zero_len", 20),
        ("stim.clipped", 50),
        ("stim.near_top", 20),
        ("stim.b_errors", 50),
        ("stim.resets", 1),
        ("model.max_bursts", 50),
        ("model.partial_beats", 1000),
        ("model.err_completions", 20),
        ("model.clipped_completions", 20),
        ("model.w_stalled_cycles", 1000),
        ("m.transfers", 800),
    ] {
        assert!(r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn placement_matches_the_shell_for_a_million_cycles_with_axi_backpressure_bresp_errors_and_resets() {
    let s = setup();
    let dev = s.build("placement", &s.verilog);
    let reps = s.check(&dev, "placement", &[1, 2], 600_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(r);
    }
}

#[test]
fn placement_matches_on_4k_edges_and_one_byte_writes_and_on_max_length_writes() {
    let s = setup();
    let dev = s.build("placement", &s.verilog);
    let e = s.check(&dev, "placement_edge", &[3], 200_000, StimOpts { profile: "edge".into(), ..Default::default() });
    assert!(e[0].get("stim.edge_4k") > 300 && e[0].get("stim.one_byte") > 300 && e[0].get("stim.crossing_4k") > 100, "{e:#?}");
    let l = s.check(&dev, "placement_long", &[4], 200_000, StimOpts { profile: "long".into(), ..Default::default() });
    assert!(l[0].get("stim.max_len") >= 5 && l[0].get("model.max_bursts") > 100, "{l:#?}");
    let p = s.check(&dev, "placement_power_up", &[5], 50_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("m.transfers") > 10, "{p:#?}");
}

#[test]
fn every_placement_mutant_is_caught_by_the_differential_test() {
    let s = setup();
    s.mutants(placement::mutants(), 3, 6, 300_000);
}
