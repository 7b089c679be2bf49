//! Differential test of the receive frame parser on the verification kit: the generated
//! Verilog, Verilated, against the model cycle shell (`wire::parser_shell::ParserShell`,
//! which wraps the beat-level reference model `wire::axis::AxisRx`), with the same seeded
//! stimulus, every output compared every cycle.
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths.

use mrnic_model::wire::axis::DROP_NAMES;
use mrnic_model::Config;
use mrnic_verif::blocks::{self, parser};
use mrnic_verif::kit::{check_mutants, run_differential, Interface, Io, RunOpts, RunReport, StimOpts, Testbench, VlFactory};
use mrnic_verif::vl::{BuildOpts, Model};

fn scale() -> u64 {
    std::env::var("MRNIC_DIFF_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

struct Setup {
    verilog: String,
    iface: Interface,
    io: Io,
    tb: Box<dyn Testbench>,
}

fn setup() -> Setup {
    let cfg = Config::preset("default").unwrap();
    let spec = blocks::block("parser").unwrap();
    let (g, iface) = spec.generated(&cfg).unwrap();
    let io = iface.io();
    let tb = (spec.testbench)(&cfg).unwrap();
    Setup { verilog: g.verilog, iface, io, tb }
}

fn build(s: &Setup, label: &str, verilog: &str) -> VlFactory {
    VlFactory::new(Model::build(label, verilog, &s.iface.ports, &BuildOpts::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn check(s: &Setup, dev: &VlFactory, label: &str, seeds: &[u64], cycles: u64, stim: StimOpts) -> Vec<RunReport> {
    let mut seeds = seeds.to_vec();
    if let Some(x) = std::env::var("MRNIC_SEED").ok().and_then(|x| x.parse().ok()) {
        seeds.push(x);
    }
    seeds
        .iter()
        .map(|&seed| {
            let repro = format!("MRNIC_SEED={seed} cargo test -p mrnic-verif --test parser_diff ({label})");
            let opts = RunOpts::new(seed, cycles * scale()).label(label).repro(repro).stim(stim.clone());
            run_differential(s.tb.as_ref(), &s.io, dev, opts).unwrap_or_else(|f| panic!("{f}"))
        })
        .collect()
}

#[test]
fn the_parser_matches_the_model_cycle_by_cycle_on_100k_good_and_hostile_frames_with_backpressure() {
    let s = setup();
    let dev = build(&s, "parser", &s.verilog);
    let reps = check(&s, &dev, "parser", &[1, 2], 1_300_000, StimOpts::default());
    let frames: u64 = reps.iter().map(|r| r.get("model.frames")).sum();
    println!("parser: {reps:#?}");
    assert!(frames >= 100_000, "only {frames} frames compared");
    for r in &reps {
        // every drop reason and every good opcode is exercised, and the handshakes too
        for n in DROP_NAMES {
            assert!(r.get(&format!("model.{n}")) > 0, "seed {}: no frame dropped as {n}: {r:#?}", r.seed);
        }
        for n in ["good_write", "good_send", "good_ack", "good_nak", "good_probe", "good_probe_reply"] {
            assert!(r.get(&format!("model.{n}")) > 100, "seed {}: too few {n}", r.seed);
        }
        assert!(r.get("model.blocked_cycles") > 1000 && r.get("stim.idle_cycles") > 1000, "{r:#?}");
        assert_eq!(r.get("model.records"), r.get("m_hdr.transfers"));
    }
}

#[test]
fn good_frames_back_to_back_with_no_idle_cycle_match_and_every_one_yields_a_record() {
    let s = setup();
    let dev = build(&s, "parser", &s.verilog);
    let r = &check(&s, &dev, "parser_b2b", &[7], 300_000, StimOpts { profile: "good_back_to_back".into(), ..Default::default() })[0];
    let good: u64 = ["good_write", "good_send", "good_ack", "good_nak", "good_probe", "good_probe_reply"].iter().map(|n| r.get(&format!("model.{n}"))).sum();
    assert!(good > 5_000 && r.get("stim.idle_cycles") == 0, "{r:#?}");
    assert!(r.get("m_hdr.transfers") + 1 >= good, "{r:#?}");
}

#[test]
fn heavy_backpressure_and_mostly_hostile_frames_match() {
    let s = setup();
    let dev = build(&s, "parser", &s.verilog);
    for p in ["hostile", "backpressure"] {
        let r = &check(&s, &dev, &format!("parser_{p}"), &[11], 300_000, StimOpts { profile: p.into(), ..Default::default() })[0];
        assert!(r.get("model.frames") > 5_000, "{r:#?}");
    }
}

/// Each mutant is the generated Verilog with one deliberate bug; the differential test must
/// catch every one.
#[test]
fn deliberately_broken_parser_variants_are_caught() {
    let s = setup();
    let mutants = parser::mutants();
    assert!(mutants.len() >= 10, "{} mutants", mutants.len());
    let caught = check_mutants(&s.verilog, &mutants, |m, bad| {
        let dev = build(&s, &format!("parser_mutant_{}", m.name), bad);
        run_differential(s.tb.as_ref(), &s.io, &dev, RunOpts::new(5, 600_000).label(format!("parser_mutant_{}", m.name)))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    for c in &caught {
        println!("mutant {}: caught at cycle {}: {}", c.name, c.cycle, c.headline);
    }
    assert_eq!(caught.len(), mutants.len());
}
