//! Test plan — the fabric: ECMP, ECN, tail drop, random loss, blackholes,
//! link failure with rerouting, multi-plane and fat-tree topologies.

mod common;
use common::*;

use mrnic_sim::config::{
    Direction, EcnSpec, FailureKind, FailureSpec, FlowPattern, LinkRef, TopoKind, TopologySpec, TrafficKind,
    TrafficSpec,
};
use mrnic_sim::topology::{ecmp_hash, pick, FlowKey, Topology};

fn uplinks_of_leaf0(r: &mrnic_sim::RunResult) -> Vec<&mrnic_sim::engine::LinkReport> {
    r.links.iter().filter(|l| l.name.starts_with("leaf0->spine")).collect()
}

#[test]
fn ecmp_hash_spreads_source_ports_evenly_over_8_spines() {
    let t = Topology::build(&leaf_spine(8, 8), &Default::default(), 42).unwrap();
    let mut count = [0u32; 8];
    for sport in 0..16_000u16 {
        let path = t.trace(0, 8, 49152 + sport, 0);
        let spine = t.links[path[1] as usize].dst;
        count[(spine - t.find_node("spine0", 0).unwrap()) as usize] += 1;
    }
    for c in count {
        assert!((1800..2200).contains(&c), "uneven ECMP: {count:?}");
    }
    // different switches use different salts: the same tuple does not always pick the same index
    let k = FlowKey::udp(0, 8, 50000);
    let picks: Vec<usize> = (0..16).map(|s| pick(ecmp_hash(s, &k), 8)).collect();
    assert!(picks.iter().any(|&p| p != picks[0]));
}

#[test]
fn a_sprayed_flow_uses_every_spine_and_a_qp_uses_one() {
    // 64 single-path QPs from leaf0 to leaf1: every uplink carries some of them
    let mut c = cfg(leaf_spine(8, 8), pairs(&[[0, 8]], 64 * 1024));
    c.traffic.conns_per_pair = 64;
    let r = run(&irn(false), &c);
    assert_exact(&r);
    let up = uplinks_of_leaf0(&r);
    assert_eq!(up.len(), 8);
    for l in &up {
        assert!(l.tx_frames > 0, "{} unused by 64 QPs", l.name);
    }
    // one QP: exactly one uplink carries data
    let r = run(&irn(false), &cfg(leaf_spine(8, 8), pairs(&[[0, 8]], 256 * 1024)));
    let used = uplinks_of_leaf0(&r).iter().filter(|l| l.tx_frames > 0).count();
    assert_eq!(used, 1);
}

#[test]
fn ecn_marks_only_above_the_threshold() {
    let e = EcnSpec { kmin_bytes: 1000, kmax_bytes: 1000, ..Default::default() };
    assert_eq!(e.mark_probability(1000), 0.0);
    assert_eq!(e.mark_probability(1001), 1.0);
    let red = EcnSpec { kmin_bytes: 100, kmax_bytes: 300, pmax: 0.5, ..Default::default() };
    assert_eq!(red.mark_probability(100), 0.0);
    assert!((red.mark_probability(200) - 0.25).abs() < 1e-12);
    assert_eq!(red.mark_probability(301), 1.0);

    // an uncongested single flow is never marked
    let r = run(&roce(false), &cfg(leaf_spine(4, 2), pairs(&[[0, 4]], 1 << 20)));
    assert_eq!(r.ecn_marks, 0);
    assert!(r.peak_queue_bytes < 10_000);

    // 4 -> 1 incast: queues exceed 64 KiB; marks with K = 64 KiB, none with K = buffer
    let incast = TrafficSpec { kind: TrafficKind::Incast, senders: 4, receiver: 0, message_bytes: 256 * 1024, ..Default::default() };
    let mut c = cfg(leaf_spine(4, 2), incast);
    c.fabric.buffer_bytes = 4 << 20;
    c.fabric.ecn = EcnSpec { kmin_bytes: 64 << 10, kmax_bytes: 64 << 10, ..Default::default() };
    let marked = run(&roce(false), &c);
    assert!(marked.peak_queue_bytes > 64 << 10);
    assert!(marked.ecn_marks > 0);
    c.fabric.ecn = EcnSpec { kmin_bytes: 4 << 20, kmax_bytes: 4 << 20, ..Default::default() };
    let unmarked = run(&roce(false), &c);
    assert!(unmarked.peak_queue_bytes > 64 << 10);
    assert_eq!(unmarked.ecn_marks, 0);
}

#[test]
fn tail_drop_at_the_buffer_size_without_congestion_control() {
    let incast = TrafficSpec { kind: TrafficKind::Incast, senders: 7, receiver: 0, message_bytes: 1 << 20, ..Default::default() };
    let mut c = cfg(leaf_spine(4, 2), incast);
    c.fabric.buffer_bytes = 256 * 1024;
    let r = run(&roce(false), &c);
    assert!(r.drops.buffer > 0, "7 line-rate senders into one port must overflow 256 KiB");
    assert!(r.peak_queue_bytes <= 256 * 1024);
    assert!(r.peak_queue_bytes > 256 * 1024 - 4200, "queue never reached the buffer: {}", r.peak_queue_bytes);
    assert_eq!(r.peak_queue_link, "leaf0->host0");
    assert_exact(&r);
}

#[test]
fn random_loss_matches_the_configured_rate() {
    let mut c = cfg(leaf_spine(4, 2), pairs(&[[0, 4]], 4 << 20));
    c.fabric.loss = 0.01;
    c.duration_us = 50_000.0;
    let r = run(&irn(false), &c);
    let frames: u64 = r.links.iter().map(|l| l.tx_frames).sum();
    let rate = r.drops.random as f64 / frames as f64;
    assert!((0.008..0.012).contains(&rate), "observed loss {rate}");
    assert_eq!(r.drops.buffer + r.drops.failed, 0);
    assert_exact(&r);
    // host-egress scope: only the two host uplinks are lossy
    c.fabric.loss_scope = mrnic_sim::config::LossScope::HostEgress;
    let r = run(&irn(false), &c);
    for l in &r.links {
        let lossy = l.name == "host0->leaf0" || l.name == "host4->leaf1";
        assert_eq!(l.drops.random > 0, lossy, "{}", l.name);
    }
}

fn blackhole_cfg(kind: FailureKind) -> mrnic_sim::RunConfig {
    let p: Vec<[u32; 2]> = (0..8).map(|h| [h, h + 8]).collect();
    let mut c = cfg(leaf_spine(8, 4), pairs(&p, 256 * 1024));
    c.seed = 3;
    c.failures = vec![FailureSpec {
        at_us: 0.0,
        kind,
        link: LinkRef { a: "leaf0".into(), b: "spine1".into(), plane: 0, direction: Direction::Both },
        detect_us: 20.0,
        count: 1,
    }];
    c
}

#[test]
fn a_blackholed_link_drops_only_the_flows_hashed_onto_it() {
    let c = blackhole_cfg(FailureKind::Blackhole);
    let r = run(&irn(false), &c);
    let t = Topology::build(&c.topology, &c.fabric, c.seed).unwrap();
    let bad: Vec<u32> = t.resolve(&c.failures[0].link).unwrap();
    let (mut hit, mut spared) = (0, 0);
    for f in &r.flows {
        let fwd = t.trace(f.src, f.dst, f.sport, f.plane);
        if fwd.iter().any(|l| bad.contains(l)) {
            hit += 1;
            assert_eq!(f.delivered_bytes, 0, "flow {}->{} crosses the blackhole", f.src, f.dst);
        } else {
            spared += 1;
            assert_eq!(Some(f.delivered_bytes), f.expected_bytes, "flow {}->{} avoids it", f.src, f.dst);
        }
    }
    assert!(hit > 0 && spared > 0, "seed must put flows on both sides (hit {hit}, spared {spared})");
    assert!(r.drops.failed > 0);
    assert!(!r.completed);
}

#[test]
fn a_down_link_is_routed_around_after_the_detection_delay() {
    let r = run(&irn(false), &blackhole_cfg(FailureKind::Down));
    assert_exact(&r);
    assert!(r.drops.failed > 0, "frames sent before detection are lost");
    assert!(r.endpoint_stats.timeouts > 0, "single-path flows recover by timeout after the reroute");
    // recovery: blackhole for 30 µs then back; everything completes
    let mut c = blackhole_cfg(FailureKind::Blackhole);
    let mut rec = c.failures[0].clone();
    rec.kind = FailureKind::Recover;
    rec.at_us = 30.0;
    c.failures.push(rec);
    let r = run(&irn(false), &c);
    assert_exact(&r);
    assert!(r.drops.failed > 0);
}

#[test]
fn multi_plane_4_and_8_spread_qps_over_all_planes() {
    for planes in [4u8, 8] {
        let topo = TopologySpec { planes, ..leaf_spine(4, 2) };
        let traffic = TrafficSpec {
            kind: TrafficKind::Flows,
            pattern: FlowPattern::Shift,
            conns_per_pair: 32,
            message_bytes: 64 * 1024,
            ..Default::default()
        };
        let r = run(&roce(false), &cfg(topo, traffic));
        assert_exact(&r);
        for p in 0..planes {
            let bytes: u64 = r.links.iter().filter(|l| l.plane == p && l.name.starts_with("host")).map(|l| l.tx_bytes).sum();
            assert!(bytes > 0, "plane {p} of {planes} unused");
        }
        for f in &r.flows {
            assert!(f.plane < planes);
        }
    }
}

#[test]
fn fat_tree_all_to_all_completes_and_crosses_the_core() {
    let topo = TopologySpec { kind: TopoKind::FatTree, k: 4, ..Default::default() };
    let traffic = TrafficSpec { kind: TrafficKind::AllToAll, message_bytes: 256 * 1024, ..Default::default() };
    let r = run(&irn(true), &cfg(topo, traffic));
    assert_exact(&r);
    assert_eq!(r.flows.len(), 16 * 15);
    let core_frames: u64 = r.links.iter().filter(|l| l.name.starts_with("core")).map(|l| l.tx_frames).sum();
    assert!(core_frames > 0);
    // 6 hops: 2 x (2 x 500 + 4 x 1000) ns of wire + serialization of 6 data frames and 6 ACKs
    // (a byte is 20 ps at 400 Gb/s)
    let ps = 2 * 5_000_000 + 6 * ((4096 + 62 + 20) * 20 + (66 + 20) * 20);
    assert_eq!(r.base_rtt_ns, (ps as u64).div_ceil(1000));
}
