//! Differential test of the DMA placement unit's write path (`mrnic_placement`) on the
//! verification kit: the generated Verilog, Verilated, against the model's cycle shell
//! `WrShell`, with the same seeded stimulus (command and data sources, an AXI4 write slave
//! with random AW/W/B backpressure and bresp errors), every output compared every cycle
//! (`mrnic_verif::kit::run_differential`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_model::Config;
use mrnic_verif::blocks::{self, placement};
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
    let cfg = Config::preset("core").unwrap();
    let spec = blocks::block("placement").unwrap();
    let (g, iface) = spec.generated(&cfg).unwrap();
    let io = iface.io();
    let tb = (spec.testbench)(&cfg).unwrap();
    // the Verilog under test, for reading (mutant patterns, waveforms)
    std::fs::write(std::env::temp_dir().join("mrnic_placement.v"), &g.verilog).ok();
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
            let repro = format!("MRNIC_SEED={seed} cargo test -p mrnic-verif --test placement_diff ({label})");
            let opts = RunOpts::new(seed, cycles * scale()).label(label).repro(repro).stim(stim.clone());
            run_differential(s.tb.as_ref(), &s.io, dev, opts).unwrap_or_else(|f| panic!("{f}"))
        })
        .collect()
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport) {
    for (k, min) in [
        ("stim.edge_4k", 200),
        ("stim.crossing_4k", 100),
        ("stim.one_byte", 100),
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
        ("m.transfers", 1000),
    ] {
        assert!(r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn placement_matches_the_shell_for_a_million_cycles_with_axi_backpressure_bresp_errors_and_resets() {
    let s = setup();
    let dev = build(&s, "placement", &s.verilog);
    let reps = check(&s, &dev, "placement", &[1, 2], 600_000, StimOpts::default());
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
    let dev = build(&s, "placement", &s.verilog);
    let e = check(&s, &dev, "placement_edge", &[3], 200_000, StimOpts { profile: "edge".into(), ..Default::default() });
    assert!(e[0].get("stim.edge_4k") > 300 && e[0].get("stim.one_byte") > 300 && e[0].get("stim.crossing_4k") > 100, "{e:#?}");
    let l = check(&s, &dev, "placement_long", &[4], 200_000, StimOpts { profile: "long".into(), ..Default::default() });
    assert!(l[0].get("stim.max_len") >= 5 && l[0].get("model.max_bursts") > 100, "{l:#?}");
    let p = check(&s, &dev, "placement_power_up", &[5], 50_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("m.transfers") > 10, "{p:#?}");
}

#[test]
fn every_placement_mutant_is_caught_by_the_differential_test() {
    let s = setup();
    let only = std::env::var("MRNIC_MUTANT").ok();
    let mutants: Vec<_> = placement::mutants().into_iter().filter(|m| only.as_deref().is_none_or(|o| m.name == o)).collect();
    assert!(only.is_some() || mutants.len() >= 3, "{} mutants", mutants.len());
    let caught = check_mutants(&s.verilog, &mutants, |m, bad| {
        let dev = build(&s, &format!("placement_mutant_{}", m.name), bad);
        run_differential(s.tb.as_ref(), &s.io, &dev, RunOpts::new(6, 300_000).label(format!("placement_mutant_{}", m.name)))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    for c in &caught {
        println!("mutant {}: caught at cycle {}: {}", c.name, c.cycle, c.headline);
    }
    assert_eq!(caught.len(), mutants.len());
}
