//! Differential test of the ACK generator (`mrnic_ackgen`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `AckShell`, with the same
//! seeded stimulus (in-order, gapped, reordered and far path PSNs on the rows of a few
//! connections; new, duplicate, out-of-window and refused packets; the A bit; CE marks in
//! runs; bad path ids; configuration writes at start, after resets and mid-run; time
//! advancing per cycle with rare jumps; the DATA source, the configuration source and the
//! ACK sink stalling in random and long runs; rare resets), every output compared every
//! cycle (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::ackgen;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("ackgen", preset, "ackgen_diff")
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport, mins: &[(&str, u64)]) {
    for (k, min) in mins {
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= *min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn ackgen_matches_the_shell_for_a_million_cycles_with_gaps_duplicates_timers_backpressure_and_resets() {
    let s = setup("core");
    let dev = s.build("ackgen", &s.verilog);
    let reps = s.check(&dev, "ackgen", &[1, 2], 700_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(
            r,
            &[
                ("stim.packets", 200_000),
                ("stim.new", 130_000),
                ("stim.duplicate", 20_000),
                ("stim.out_of_window", 10_000),
                ("stim.refused", 30_000),
                ("stim.gaps_sent", 15_000),
                ("stim.behind", 10_000),
                ("stim.far", 5_000),
                ("stim.bad_path", 5_000),
                ("stim.mid_run_cfg", 100),
                ("stim.time_jumps", 10),
                ("stim.resets", 1),
                ("model.timer_acks_out", 12_000),
                ("model.m_stalled_cycles", 50_000),
                ("model.s_held_cycles", 50_000),
                ("model.fifo_max", 40),
                ("model.fifo_full", 100),
                ("stim.frozen_cycles", 5_000),
                ("m.transfers", 60_000),
                ("stim.coarse_cycles", 50_000),
                ("stim.edge_packets", 200),
                ("model.head_just_pushed", 200),
                ("model.pops_back_to_back", 5_000),
            ],
        );
    }
}

#[test]
fn ackgen_matches_on_timer_heavy_and_back_to_back_traffic_at_tiny_and_core_and_from_power_up() {
    for preset in ["core", "tiny"] {
        let s = setup(preset);
        let dev = s.build(&format!("ackgen_{preset}"), &s.verilog);
        let t = &s.check(&dev, &format!("ackgen_timer_{preset}"), &[3], 200_000, StimOpts { profile: "timer".into(), ..Default::default() })[0];
        assert_covered(t, &[("model.timer_acks_out", 6_000), ("model.stale_pops", 100), ("stim.time_jumps", 50)]);
        let b = &s.check(&dev, &format!("ackgen_burst_{preset}"), &[4], 200_000, StimOpts { profile: "burst".into(), ..Default::default() })[0];
        assert_covered(b, &[("stim.packets", 70_000), ("m.transfers", 20_000), ("model.stale_pops", 10_000), ("stim.frozen_cycles", 20_000), ("model.fifo_full", 100)]);
        let p = &s.check(&dev, &format!("ackgen_power_up_{preset}"), &[5], 50_000, StimOpts { power_up: true, ..Default::default() })[0];
        assert_covered(p, &[("m.transfers", 3_000)]);
        println!("{preset}: {t:#?} {b:#?} {p:#?}");
    }
}

#[test]
fn every_ackgen_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(ackgen::mutants(), 10, 6, 300_000);
}

/// The small build's own logic (dead at `core`), mutated in the `tiny` Verilog.
#[test]
fn every_small_build_mutant_is_caught_at_tiny() {
    let s = setup("tiny");
    s.mutants(ackgen::small_mutants(), 4, 6, 300_000);
}
