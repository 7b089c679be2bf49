//! Test plan — determinism: a run is a pure function of its configuration and seed.

mod common;
use common::*;

use mrnic_sim::config::{TrafficKind, TrafficSpec};

fn lossy() -> mrnic_sim::RunConfig {
    let t = TrafficSpec { kind: TrafficKind::Flows, messages: 0, ..Default::default() };
    let mut c = cfg(leaf_spine(4, 4), t);
    c.fabric.loss = 0.01;
    c.duration_us = 300.0;
    c
}

#[test]
fn same_seed_gives_identical_results() {
    let c = lossy();
    for _ in 0..2 {
        let a = run(&roce(true), &c);
        let b = run(&roce(true), &c);
        assert_eq!(a.fingerprint(), b.fingerprint());
        let a = run(&irn(true), &c);
        let b = run(&irn(true), &c);
        assert_eq!(a.fingerprint(), b.fingerprint());
    }
}

#[test]
fn different_seed_gives_different_results() {
    let c = lossy();
    let mut d = c.clone();
    d.seed = 2;
    let a = run(&irn(true), &c);
    let b = run(&irn(true), &d);
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.drops.random, b.drops.random);
}

#[test]
fn a_scenario_run_on_two_threads_equals_the_sequential_run_with_mrnic_too() {
    use mrnic_sim::mrnic::MrnicFactory;
    use mrnic_sim::scenario::{run_scenario, run_scenario_parallel, Scenario};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join("loss_sweep.toml");
    let sc = Scenario::load(&path, true).unwrap();
    let f = MrnicFactory { cfg: sc.mrnic.clone() };
    let seq = run_scenario(&sc, Some(&f), &mut |_| {}).unwrap();
    let mut finished = 0;
    let par = run_scenario_parallel(&sc, Some(&f), 2, &mut |p| finished += p.finished as usize).unwrap();
    assert_eq!(finished, seq.records.len(), "one final report per run");
    assert_eq!(seq.records.len(), par.records.len());
    for (a, b) in seq.records.iter().zip(&par.records) {
        assert_eq!(a.point, b.point);
        assert_eq!(a.result.fingerprint(), b.result.fingerprint());
    }
}
