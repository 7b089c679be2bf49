//! Differential test of the receive frame buffer (`mrnic_fbuf`) on the verification kit:
//! the generated Verilog, Verilated, against the model's cycle shell `FbufShell`, with the
//! same seeded stimulus (frames of 1 to `max_beats` + 40 beats, verdicts that keep or
//! refuse them, some offered before their frame has ended, a sink with random and long
//! stalls, rare resets), every output compared every cycle (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::fbuf;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup() -> DiffBench {
    let s = DiffBench::new("fbuf", "core", "fbuf_diff");
    std::fs::write(std::env::temp_dir().join("mrnic_fbuf.v"), &s.verilog).ok();
    s
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport) {
    for (k, min) in [
        ("stim.frames", 2_000),
        ("stim.one_beat", 400),
        ("stim.max_len", 15),
        ("stim.too_long", 40),
        ("stim.verdict_keep", 1_000),
        ("stim.verdict_refuse", 500),
        ("stim.early_verdicts", 1_000),
        ("stim.ram_full", 1_000),
        ("stim.ring_full", 1_000),
        ("stim.partial_keep_inside", 1_000),
        ("stim.resets", 1),
        ("model.frames_out", 1_000),
        ("model.frames_back_to_back", 500),
        ("model.m_stalled_cycles", 10_000),
        ("m_axis.transfers", 100_000),
    ] {
        assert!(
            std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= min,
            "{k} = {} < {min}: {r:#?}",
            r.get(k)
        );
    }
}

#[test]
fn fbuf_matches_the_shell_for_a_million_cycles_with_backpressure_refused_and_too_long_frames_and_resets(
) {
    let s = setup();
    let dev = s.build("fbuf", &s.verilog);
    let reps = s.check(&dev, "fbuf", &[1, 2], 600_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(r);
    }
}

#[test]
fn fbuf_matches_with_the_ram_and_the_descriptor_ring_full_and_with_frames_at_the_length_limit() {
    let s = setup();
    let dev = s.build("fbuf", &s.verilog);
    let f = s.check(
        &dev,
        "fbuf_full",
        &[3],
        200_000,
        StimOpts {
            profile: "full".into(),
            ..Default::default()
        },
    );
    assert!(
        f[0].get("stim.ring_full") > 10_000
            && f[0].get("stim.frames") > 3_000
            && f[0].get("model.frames_out") > 500,
        "{f:#?}"
    );
    let l = s.check(
        &dev,
        "fbuf_long",
        &[4],
        200_000,
        StimOpts {
            profile: "long".into(),
            ..Default::default()
        },
    );
    assert!(
        l[0].get("stim.max_len") >= 10
            && l[0].get("stim.too_long") >= 20
            && l[0].get("stim.ram_full") >= 1_000
            && l[0].get("model.frames_out") >= 20,
        "{l:#?}"
    );
    let p = s.check(
        &dev,
        "fbuf_power_up",
        &[5],
        50_000,
        StimOpts {
            power_up: true,
            ..Default::default()
        },
    );
    assert!(p[0].get("m_axis.transfers") > 1_000, "{p:#?}");
}

#[test]
fn every_fbuf_mutant_is_caught_by_the_differential_test() {
    let s = setup();
    s.mutants(fbuf::mutants(), 6, 6, 300_000);
}
