//! Test plan — workloads and metrics: ring all-reduce, all-to-all, incast
//! fairness, unlimited flows and goodput bins.

mod common;
use common::*;

use mrnic_sim::config::{TrafficKind, TrafficSpec};
use mrnic_sim::engine::jain;
use mrnic_sim::topology::Topology;

#[test]
fn ring_all_reduce_takes_2n_minus_2_dependent_steps() {
    let n = 8u64;
    let size = 8u64 << 20;
    let t = TrafficSpec { kind: TrafficKind::AllReduce, hosts: 8, message_bytes: size, ..Default::default() };
    let r = run(&irn(true), &cfg(leaf_spine(4, 4), t));
    assert_exact(&r);
    assert_eq!(r.flows.len(), 8);
    let chunk = size / n;
    for f in &r.flows {
        assert_eq!(f.expected_bytes, Some(2 * (n - 1) * chunk));
        assert_eq!(f.dst, (f.src + 1) % 8);
    }
    // each step is at least one chunk at line rate (4096-byte payloads, 4178 bytes on the wire)
    let step_ns = chunk as f64 / 4096.0 * 4178.0 * 8.0 / 400.0;
    let done = r.completion_ns.unwrap() as f64;
    assert!(done >= 14.0 * step_ns, "{done} < 14 steps of {step_ns}");
    assert!(done < 14.0 * step_ns * 3.0 + 200_000.0);
    let last = r.flows.iter().filter_map(|f| f.fct_ns).max().unwrap();
    assert_eq!(Some(last), r.completion_ns, "completion is the last host");
}

#[test]
fn all_to_all_completion_grows_with_message_size() {
    let mut prev = 0;
    for size in [64u64 << 10, 1 << 20, 4 << 20] {
        let t = TrafficSpec { kind: TrafficKind::AllToAll, hosts: 8, message_bytes: size, ..Default::default() };
        let r = run(&roce(true), &cfg(leaf_spine(4, 4), t));
        assert_exact(&r);
        let c = r.completion_ns.unwrap();
        assert!(c > prev, "{size}: {c} <= {prev}");
        prev = c;
    }
}

#[test]
fn incast_is_fair_and_jain_is_computed_over_flows() {
    assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
    assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    let t = TrafficSpec { kind: TrafficKind::Incast, senders: 6, receiver: 7, message_bytes: 512 << 10, ..Default::default() };
    let r = run(&irn(true), &cfg(leaf_spine(4, 2), t));
    assert_exact(&r);
    assert!(r.jain > 0.8, "jain {}", r.jain);
    assert!(r.flows.iter().all(|f| f.dst == 7 && f.src != 7));
    assert!(r.peak_queue_link.ends_with("host7"));
}

#[test]
fn unlimited_flows_run_to_the_time_limit_and_bins_add_up() {
    let mut t = pairs(&[[0, 2], [1, 3]], 256 << 10);
    t.messages = 0;
    let mut c = cfg(leaf_spine(2, 2), t);
    c.duration_us = 300.0;
    c.bin_us = 10.0;
    let r = run(&irn(false), &c);
    assert!(!r.completed);
    assert_eq!(r.end_ns, 300_000);
    let from_bins: f64 = r.goodput_bins_gbps.iter().map(|g| g * 10_000.0 / 8.0).sum();
    assert!((from_bins - r.delivered_bytes as f64).abs() < 1.0);
    // two one-way flows leaf0 -> leaf1 on distinct spines run at ~line rate
    // (392.2 Gb/s of goodput = 4096/4178 of 400) once the first RTT is over
    let t = Topology::build(&c.topology, &c.fabric, c.seed).unwrap();
    let paths: Vec<Vec<u32>> = r.flows.iter().map(|f| t.trace(f.src, f.dst, f.sport, f.plane)).collect();
    let expect = if paths[0][1] == paths[1][1] { 392.2 } else { 2.0 * 392.2 };
    let mid = r.goodput_bins_gbps[10];
    assert!(mid > 0.97 * expect && mid < 1.01 * expect, "{mid} vs {expect} (bins count whole frames)");
}
