//! Differential test of the ACK join (`mrnic_ackjoin`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `AckJoinShell`, with the
//! same seeded stimulus (packets' SACK results and the generator's entries for them, ACKs
//! and quiet ones, timer ACKs between them and right behind a packet of their connection,
//! the SACK stream filling the FIFO or lagging behind the entries, misaligned results, sink
//! stalls, resets), every output compared every cycle (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::ackjoin;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("ackjoin", preset, "ackjoin_diff")
}

/// What a run must have covered to count (`scale` tenths of the full floors).
fn assert_covered(r: &RunReport, scale: u64) {
    for (k, min) in [
        ("stim.packets", 100_000),
        ("stim.sent", 30_000),
        ("stim.quiet", 30_000),
        ("stim.timers", 10_000),
        ("stim.timer_behind_packet", 1_000),
        ("stim.misaligned", 100),
        ("stim.resets", 1),
        ("model.acks_out", 30_000),
        ("model.timer_acks_out", 10_000),
        ("model.m_stalled_cycles", 20_000),
        ("model.fifo_full_cycles", 10_000),
        ("model.gen_waits", 10_000),
    ] {
        let min = min * scale / 10;
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn ackjoin_matches_the_shell_for_a_million_entries_at_core_with_timers_stalls_a_full_fifo_and_resets() {
    let s = setup("core");
    let dev = s.build("ackjoin", &s.verilog);
    let reps = s.check(&dev, "ackjoin", &[1, 2], 900_000, StimOpts::default());
    println!("{reps:#?}");
    let entries: u64 = reps.iter().map(|r| r.get("stim.packets") + r.get("stim.timers")).sum();
    assert!(entries >= 1_000_000, "only {entries} entries");
    for r in &reps {
        assert_covered(r, 10);
    }
}

#[test]
fn ackjoin_matches_at_tiny_on_timers_right_behind_their_packets_and_from_power_up() {
    let s = setup("tiny");
    let dev = s.build("ackjoin_tiny", &s.verilog);
    let t = s.check(&dev, "ackjoin_tiny", &[3], 300_000, StimOpts::default());
    assert_covered(&t[0], 3);
    let h = s.check(&dev, "ackjoin_hazard", &[4], 100_000, StimOpts { profile: "hazard".into(), ..Default::default() });
    assert!(h[0].get("stim.timer_behind_packet") > 5_000, "{h:#?}");
    let c = setup("core");
    let x = c.build_x("ackjoin_power_up");
    let dev = mrnic_verif::kit::VlFactory::power_up(x, 5);
    let p = c.check(&dev, "ackjoin_power_up", &[5], 60_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("model.acks_out") > 1_000, "{p:#?}");
}

#[test]
fn every_ackjoin_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(ackjoin::mutants(), 11, 6, 100_000);
}
