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
    let reps = s.check(&dev, "ackgen", &[1, 2], 600_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(r, &[("stim.packets", 1)]);
    }
}
