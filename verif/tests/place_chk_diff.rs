//! Differential test of the DMA placement unit's checks (`mrnic_place_chk`) on the
//! verification kit: the generated Verilog, Verilated, against the model's cycle shell
//! `ChkShell` (whose decision is `placement::check` on the rows each request read), with
//! the same seeded stimulus (every table row written, then config writes racing requests
//! aimed at region and receive-buffer edges, result backpressure, resets), every output
//! compared every cycle (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::place_chk;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    let s = DiffBench::new("place_chk", preset, "place_chk_diff");
    std::fs::write(std::env::temp_dir().join(format!("mrnic_place_chk_{preset}.v")), &s.verilog).ok();
    s
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport, scale: u64) {
    for (k, min) in [
        ("model.ok", 1000),
        ("model.bad_rkey", 1000),
        ("model.out_of_bounds", 1000),
        ("model.access_denied", 200),
        ("model.no_rbuf", 200),
        ("model.invalid", 200),
        ("model.m_stalled_cycles", 1000),
        ("stim.ok_write", 200),
        ("stim.ok_send", 200),
        ("stim.rewrites_in_flight", 200),
        ("stim.va_at_base", 1000),
        ("stim.end_at_bound", 1000),
        ("stim.end_past", 1000),
        ("stim.len_mtu", 1000),
        ("stim.len_mtu1", 1000),
        ("stim.zero_len", 1000),
        ("stim.stale_tag", 500),
        ("stim.other_pd", 500),
        ("stim.near_top", 500),
        ("stim.resets", 1),
    ] {
        let min = min * scale / 10;
        assert!(r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn place_chk_matches_the_shell_for_a_million_requests_at_core_with_rewrites_backpressure_and_resets() {
    let s = setup("core");
    let dev = s.build("place_chk", &s.verilog);
    let reps = s.check(&dev, "place_chk", &[1, 2], 900_000, StimOpts::default());
    println!("{reps:#?}");
    let reqs: u64 = reps.iter().map(|r| r.get("stim.requests")).sum();
    assert!(reqs >= 1_000_000, "only {reqs} requests");
    for r in &reps {
        assert_covered(r, 10);
    }
}

#[test]
fn place_chk_matches_at_tiny_on_edges_and_from_power_up() {
    let s = setup("tiny");
    let dev = s.build("place_chk_tiny", &s.verilog);
    let t = s.check(&dev, "place_chk_tiny", &[3], 300_000, StimOpts::default());
    assert_covered(&t[0], 3);
    let e = s.check(&dev, "place_chk_edge", &[4], 100_000, StimOpts { profile: "edge".into(), ..Default::default() });
    assert!(e[0].get("stim.rewrites_in_flight") > 1000 && e[0].get("stim.end_past") > 1000, "{e:#?}");
    let c = setup("core");
    let x = c.build_x("place_chk_power_up");
    let dev = mrnic_verif::kit::VlFactory::power_up(x, 5);
    let p = c.check(&dev, "place_chk_power_up", &[5], 60_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("model.ok") > 100 && p[0].get("stim.init_writes") > 1000, "{p:#?}");
}

#[test]
fn every_place_chk_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(place_chk::mutants(), 10, 6, 100_000);
}
