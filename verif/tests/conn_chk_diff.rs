//! Differential test of the connection checks (`mrnic_conn_chk`) on the verification kit:
//! the generated Verilog, Verilated, against the model's cycle shell `ConnChkShell` (whose
//! decision is `check_conn` on the row each request read), with the same seeded stimulus
//! (every row written, then config writes racing requests with stale tags, closed rows,
//! other peers and P_Keys and path ids at and past P, result backpressure, resets), every
//! output compared every cycle (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::conn_chk;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    let s = DiffBench::new("conn_chk", preset, "conn_chk_diff");
    std::fs::write(std::env::temp_dir().join(format!("mrnic_conn_chk_{preset}.v")), &s.verilog).ok();
    s
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport, scale: u64) {
    for (k, min) in [
        ("model.ok", 5000),
        ("model.wrong_qp", 2000),
        ("model.wrong_peer", 1000),
        ("model.wrong_pkey", 1000),
        ("model.bad_path", 1000),
        ("model.m_stalled_cycles", 1000),
        ("stim.rewrites_in_flight", 200),
        ("stim.stale_tag", 1000),
        ("stim.closed_row", 1000),
        ("stim.other_peer", 1000),
        ("stim.other_pkey", 1000),
        ("stim.path_at_p", 500),
        ("stim.path_past_p", 500),
        ("stim.resets", 1),
    ] {
        let min = min * scale / 10;
        assert!(r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn conn_chk_matches_the_shell_for_a_million_requests_at_core_with_rewrites_backpressure_and_resets() {
    let s = setup("core");
    let dev = s.build("conn_chk", &s.verilog);
    let reps = s.check(&dev, "conn_chk", &[1, 2], 900_000, StimOpts::default());
    println!("{reps:#?}");
    let reqs: u64 = reps.iter().map(|r| r.get("stim.requests")).sum();
    assert!(reqs >= 1_000_000, "only {reqs} requests");
    for r in &reps {
        assert_covered(r, 10);
    }
}

#[test]
fn conn_chk_matches_at_tiny_on_rewrites_every_cycle_and_from_power_up() {
    let s = setup("tiny");
    let dev = s.build("conn_chk_tiny", &s.verilog);
    let t = s.check(&dev, "conn_chk_tiny", &[3], 300_000, StimOpts::default());
    assert_covered(&t[0], 3);
    let e = s.check(&dev, "conn_chk_edge", &[4], 100_000, StimOpts { profile: "edge".into(), ..Default::default() });
    assert!(e[0].get("stim.rewrites_in_flight") > 5000, "{e:#?}");
    let c = setup("core");
    let x = c.build_x("conn_chk_power_up");
    let dev = mrnic_verif::kit::VlFactory::power_up(x, 5);
    let p = c.check(&dev, "conn_chk_power_up", &[5], 60_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("model.ok") > 1000 && p[0].get("stim.init_writes") == 256, "{p:#?}");
}

#[test]
fn every_conn_chk_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(conn_chk::mutants(), 9, 6, 100_000);
}
