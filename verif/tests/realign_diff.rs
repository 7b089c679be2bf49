//! Differential test of the payload realigner (`mrnic_realign`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `RealignShell`, with the
//! same seeded stimulus (commands at every lane and offset, discards, payloads ending at the
//! frame's last byte, starting before the frame, reaching past it, up to the maximum length;
//! frames of 1 to 1152 beats; the command source, the frame source and the sink stalling in
//! random and long runs; rare resets), every output compared every cycle
//! (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::realign;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup() -> DiffBench {
    DiffBench::new("realign", "core", "realign_diff")
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport, mins: &[(&str, u64)]) {
    for (k, min) in mins {
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= *min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn realign_matches_the_shell_for_a_million_cycles_at_every_lane_with_backpressure_discards_and_resets() {
    let s = setup();
    let dev = s.build("realign", &s.verilog);
    let reps = s.check(&dev, "realign", &[1, 2], 600_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(
            r,
            &[
                ("stim.frames", 8_000),
                ("stim.one_beat", 300),
                ("stim.discard", 300),
                ("stim.before_frame", 200),
                ("stim.past_frame", 800),
                ("stim.at_end", 300),
                ("stim.max_len", 2),
                ("stim.lanes_seen", 8),
                ("stim.resets", 1),
                ("model.payloads_out", 7_000),
                ("model.m_stalled_cycles", 10_000),
                ("model.s_held_cycles", 10_000),
                ("m_axis.transfers", 100_000),
            ],
        );
    }
}

#[test]
fn realign_matches_on_corner_commands_on_jumbo_frames_and_from_power_up() {
    let s = setup();
    let dev = s.build("realign", &s.verilog);
    let e = &s.check(&dev, "realign_edge", &[3], 200_000, StimOpts { profile: "edge".into(), ..Default::default() })[0];
    assert_covered(e, &[("stim.frames", 2_500), ("stim.before_frame", 200), ("stim.at_end", 200), ("stim.discard", 200), ("model.payloads_out", 2_000)]);
    let l = &s.check(&dev, "realign_long", &[4], 200_000, StimOpts { profile: "long".into(), ..Default::default() })[0];
    assert_covered(l, &[("stim.frames", 150), ("model.payloads_out", 100), ("m_axis.transfers", 50_000)]);
    println!("{e:#?} {l:#?}");
    let p = &s.check(&dev, "realign_power_up", &[5], 50_000, StimOpts { power_up: true, ..Default::default() })[0];
    println!("{p:#?}");
    assert_covered(p, &[("m_axis.transfers", 5_000)]);
}

#[test]
fn every_realign_mutant_is_caught_by_the_differential_test() {
    let s = setup();
    s.mutants(realign::mutants(), 10, 6, 300_000);
}
