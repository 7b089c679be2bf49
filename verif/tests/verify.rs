//! `mrnic verify` as a library: a hand-written behavioural Verilog implementation of the SACK
//! engine (verif/fixtures/sack_behavioural.v: plain arrays, latency 2 instead of 4, counters
//! counted at acceptance) passes the transaction-level regression; the same file with one
//! subtle bug fails it with a waveform and a reproducing command; shards merged equal the
//! unsharded run; bad arguments are refused with the reason.

use mrnic_verif::kit::Mutant;
use mrnic_verif::verify::{self, Mode, Shard, VerifyArgs};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sack_behavioural.v")
}

fn tmp(name: &str) -> PathBuf {
    let d = mrnic_verif::vl::target_dir().join("verify-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn args(out: PathBuf) -> VerifyArgs {
    VerifyArgs { block: Some("sack".into()), preset: Some("small".into()), quiet: true, out, ..Default::default() }
}

#[test]
fn a_behavioural_implementation_with_another_latency_passes_in_transaction_mode() {
    let out = tmp("behavioural");
    let a = VerifyArgs { verilog: Some(fixture()), top: Some("sack_behavioural".into()), seeds: Some(2), cycles: Some(40_000), ..args(out.clone()) };
    let passed = verify::run(&a).unwrap_or_else(|e| panic!("{e}"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    println!("{md}");
    assert!(passed, "{md}");
    let r: verify::Report = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(r.results.iter().all(|j| j.mode == "transaction"), "--verilog defaults to transaction mode");
    assert!(r.results.iter().any(|j| j.name.starts_with("directed-")) && r.results.iter().any(|j| j.name.starts_with("power-up-")));
    for j in &r.results {
        assert!(j.counters["s.transfers"] > 5_000 && j.counters["m.transfers"] == j.counters["s.transfers"], "{j:?}");
        assert!(j.counters["idle_checks"] >= 1, "counters compared at least once: {j:?}");
    }
}

#[test]
fn the_behavioural_implementation_fails_cycle_exact_mode_because_its_latency_differs() {
    let out = tmp("behavioural_cycle");
    let a = VerifyArgs { verilog: Some(fixture()), mode: Some(Mode::Cycle), only: Some("random-s1".into()), cycles: Some(5_000), ..args(out.clone()) };
    assert!(!verify::run(&a).unwrap());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    // Its counters count at acceptance, its results come 2 cycles early: the first
    // difference is one or the other.
    assert!(md.contains("cycle-exact mismatch") && (md.contains("stat_new") || md.contains("m_valid")), "{md}");
}

#[test]
fn one_subtle_bug_in_the_behavioural_implementation_fails_with_a_waveform_and_a_reproducing_command() {
    let src = std::fs::read_to_string(fixture()).unwrap();
    // PSN base + W is out of the window; the bug takes it as in the window.
    let bad = Mutant::new("window_edge_off_by_one", "else if (d >= W) n_class = 2'd2;", "else if (d > W) n_class = 2'd2;").apply(&src).unwrap();
    let dir = tmp("behavioural_bug");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sack_behavioural_bug.v");
    std::fs::write(&file, bad).unwrap();
    let out = dir.join("out");
    let a = VerifyArgs { verilog: Some(file), only: Some("random-s1".into()), cycles: Some(200_000), ..args(out.clone()) };
    assert!(!verify::run(&a).unwrap(), "the bug must fail the regression");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    println!("{md}");
    assert!(md.contains("**FAIL**") && md.contains("transaction mismatch"), "{md}");
    assert!(md.contains("m_class") && md.contains(".fst"), "named diff and waveform: {md}");
    assert!(md.contains("reproduce: mrnic verify --block sack --preset small --verilog") && md.contains("--only random-s1"), "{md}");
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let base = VerifyArgs { seeds: Some(2), cycles: Some(20_000), ..args(tmp("unsharded")) };
    assert!(verify::run(&base).unwrap());
    let whole = std::fs::read_to_string(base.out.join("report.json")).unwrap();
    let mut dirs = vec![];
    for k in 1..=3 {
        let a = VerifyArgs { shard: Some(Shard { k, n: 3 }), ..base.clone() };
        let a = VerifyArgs { out: tmp(&format!("shard{k}")), ..a };
        assert!(verify::run(&a).unwrap());
        let s = std::fs::read_to_string(a.out.join("shard.json")).unwrap();
        assert!(s.contains("\"kind\": \"verify\""), "{s}");
        dirs.push(a.out);
    }
    let merged = tmp("merged");
    let r = verify::merge(&dirs, &merged).unwrap();
    assert!(r.passed() && r.jobs_total == 8, "{r:?}");
    assert_eq!(std::fs::read_to_string(merged.join("report.json")).unwrap(), whole);
    // A missing or repeated shard is refused.
    let e = verify::merge(&dirs[..2], &tmp("merged_bad")).unwrap_err();
    assert!(e.to_string().contains("missing shards: 3/3"), "{e}");
    let e = verify::merge(&[dirs[0].clone(), dirs[0].clone(), dirs[1].clone()], &tmp("merged_bad")).unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
}

#[test]
fn bad_arguments_are_refused_with_the_reason() {
    let e = verify::run(&VerifyArgs { block: Some("nope".into()), ..args(tmp("bad")) }).unwrap_err();
    assert!(e.to_string().contains("unknown block \"nope\"") && e.to_string().contains("sack"), "{e}");
    let e = verify::run(&VerifyArgs { only: Some("random-s99".into()), ..args(tmp("bad")) }).unwrap_err();
    assert!(e.to_string().contains("no such job") && e.to_string().contains("random-s1"), "{e}");
    let e = verify::run(&VerifyArgs { preset: Some("huge".into()), ..args(tmp("bad")) }).unwrap_err();
    assert!(e.to_string().contains("huge"), "{e}");
    let e = verify::run(&VerifyArgs { verilog: Some("/nonexistent/x.v".into()), ..args(tmp("bad")) }).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/x.v"), "{e}");
    for s in ["0/3", "4/3", "x", "1/0", "2"] {
        assert!(s.parse::<Shard>().is_err(), "{s}");
    }
    assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { k: 2, n: 4 });
}

#[test]
fn coverage_runs_write_a_per_block_report_with_the_percentages_and_the_uncovered_lines() {
    let out = tmp("coverage");
    // One job keeps the test short (one coverage build); `mrnic verify --coverage` runs the
    // whole default regression the same way.
    let a = VerifyArgs { coverage: true, only: Some("random-s1".into()), cycles: Some(20_000), ..args(out.clone()) };
    assert!(verify::run(&a).unwrap());
    let r: verify::Report = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    println!("{:#?}", r.coverage);
    assert_eq!(r.coverage.len(), 1);
    assert!(r.coverage[0].starts_with("- sack: line ") && r.coverage[0].contains("toggle "), "{:?}", r.coverage);
    let md = std::fs::read_to_string(out.join("coverage/sack/coverage.md")).unwrap();
    assert!(md.contains('%'), "{md}");
    assert!(out.join("coverage/sack/annotated").is_dir() && out.join("coverage/sack/coverage.info").is_file());
}

/// The transaction-level run of a block with a timer stream at `core`: one random job.
fn timer_block_txn(block: &str, verilog: Option<PathBuf>, out: PathBuf) -> (bool, verify::Report, String) {
    let a = VerifyArgs {
        block: Some(block.into()),
        preset: Some("core".into()),
        mode: Some(Mode::Transaction),
        top: verilog.as_ref().map(|_| format!("mrnic_{block}")),
        verilog,
        only: Some("random-s1".into()),
        cycles: Some(150_000),
        quiet: true,
        out: out.clone(),
        ..Default::default()
    };
    let passed = verify::run(&a).unwrap_or_else(|e| panic!("{e}"));
    let r: verify::Report = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    (passed, r, std::fs::read_to_string(out.join("report.md")).unwrap())
}

#[test]
fn the_timer_streams_of_the_retransmit_queue_and_the_path_table_pass_transaction_mode_matched_event_by_event() {
    for block in ["rtx", "path"] {
        let (passed, r, md) = timer_block_txn(block, None, tmp(&format!("txn_{block}")));
        assert!(passed, "{md}");
        let c = &r.results[0].counters;
        // Most events matched one to one; the races settled from the model's history are few.
        let (matched, excused) = (c["m_tmo.events_matched"], c["m_tmo.events_justified"] + c["m_tmo.events_short"]);
        assert!(matched > 10_000 && excused * 100 < matched, "{block}: {c:?}");
        assert!(c["m_tmo.timer_changes"] > 10_000, "{block}: the model reports its deadlines: {c:?}");
    }
}

#[test]
fn a_path_table_whose_path_0_deadlines_fire_early_or_never_fails_transaction_mode_naming_the_timer() {
    let cfg = mrnic_model::Config::preset("core").unwrap();
    let v = mrnic_hdl::tops::block(&cfg, "path").unwrap().verilog;
    let lane0 = "        sc_e = bank_scan$read_data[(0 * 32'h22)+:(34)];\n";
    let cmp = format!("{lane0}        t_d32 = now - sc_e[(32'h0)+:(32)];\n        sc_x = sc_e[32'h21] & ~t_d32[32'h1f];");
    assert_eq!(v.matches(&cmp).count(), 1, "the scanner's lane-0 compare");
    for (name, bad, want) in [
        ("early", format!("{lane0}        t_d32 = now + 32'h100000 - sc_e[(32'h0)+:(32)];\n        sc_x = sc_e[32'h21] & ~t_d32[32'h1f];"), "the device's event"),
        ("never", format!("{lane0}        t_d32 = now - sc_e[(32'h0)+:(32)];\n        sc_x = 1'b0;"), "the model's event"),
    ] {
        let dir = tmp(&format!("txn_path_{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mrnic_path.v");
        std::fs::write(&file, Mutant::new(name, &cmp, &bad).apply(&v).unwrap()).unwrap();
        let (passed, _, md) = timer_block_txn("path", Some(file), dir.join("out"));
        assert!(!passed, "{name}: {md}");
        assert!(md.contains("timer stream m_tmo") && md.contains(want) && (md.contains("m_tmo_rto[0]") || md.contains("m_tmo_probe[0]")), "{name}: {md}");
    }
}
