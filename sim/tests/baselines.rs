//! Test plan — the baselines: go-back-N versus selective repeat, exactly-once
//! delivery under loss, goodput under loss, DCQCN and incast.

mod common;
use common::*;

use mrnic_sim::config::{Direction, FailureKind, FailureSpec, FlowPattern, LinkRef, TrafficKind, TrafficSpec};

/// One 2 MiB flow host0 -> host4 whose 1 frame on host0's uplink is dropped at `at_us`.
fn single_loss() -> mrnic_sim::RunConfig {
    let mut c = cfg(leaf_spine(4, 2), pairs(&[[0, 4]], 2 << 20));
    c.failures = vec![FailureSpec {
        at_us: 10.0,
        kind: FailureKind::DropNext,
        link: LinkRef { a: "host0".into(), b: "leaf0".into(), plane: 0, direction: Direction::Forward },
        detect_us: 0.0,
        count: 1,
    }];
    c
}

#[test]
fn go_back_n_resends_everything_after_a_loss_selective_repeat_only_the_loss() {
    let c = single_loss();
    let g = run(&roce(false), &c);
    let s = run(&irn(false), &c);
    assert_exact(&g);
    assert_exact(&s);
    assert_eq!(g.drops.failed, 1);
    assert_eq!(s.drops.failed, 1);
    assert_eq!(s.endpoint_stats.data_retx, 1, "IRN resends just the lost packet");
    assert_eq!(s.endpoint_stats.timeouts, 0);
    // the NAK comes back about one RTT later; everything sent meanwhile is resent
    let in_flight_rtt = (g.base_rtt_ns as f64 / 84.0) as u64;
    assert!(
        g.endpoint_stats.data_retx >= in_flight_rtt / 2,
        "go-back-N resent only {} (about {} were in flight)",
        g.endpoint_stats.data_retx,
        in_flight_rtt
    );
    assert_eq!(g.endpoint_stats.data_sent, 512 + g.endpoint_stats.data_retx);
    assert!(s.completion_ns < g.completion_ns);
}

#[test]
fn both_baselines_deliver_every_byte_exactly_once_under_1pct_loss() {
    let p: Vec<[u32; 2]> = (0..4).map(|h| [h, h + 4]).collect();
    let mut c = cfg(leaf_spine(4, 4), pairs(&p, 1 << 20));
    c.traffic.messages = 3;
    c.fabric.loss = 0.01;
    c.duration_us = 20_000.0;
    for r in [run(&roce(true), &c), run(&irn(true), &c)] {
        assert_exact(&r);
        assert!(r.drops.random > 0);
        assert!(r.endpoint_stats.data_retx > 0);
    }
}

#[test]
fn roce_goodput_at_1pct_loss_is_below_irn_with_an_order_of_magnitude_more_retransmissions() {
    // 1% end-to-end loss (host egress links only). Go-back-N pays about one BDP
    // of retransmissions per loss; IRN pays a 320 µs RTO_high per lost
    // retransmission, which at 400 Gb/s costs it a good part of its advantage.
    let traffic = TrafficSpec { kind: TrafficKind::Flows, pattern: FlowPattern::Shift, messages: 0, ..Default::default() };
    let mut c = cfg(leaf_spine(4, 4), traffic);
    c.fabric.loss = 0.01;
    c.fabric.loss_scope = mrnic_sim::config::LossScope::HostEgress;
    c.duration_us = 1500.0;
    let g = run(&roce(true), &c);
    let s = run(&irn(true), &c);
    assert!(
        g.goodput_gbps < 0.9 * s.goodput_gbps,
        "roce {:.0} Gb/s vs irn {:.0} Gb/s",
        g.goodput_gbps,
        s.goodput_gbps
    );
    assert!(g.endpoint_stats.data_retx > 10 * s.endpoint_stats.data_retx);
    assert!(g.endpoint_stats.data_retx * 3 > g.endpoint_stats.data_sent, "GBN: over a third of the frames are resends");
    // and without loss they are close
    c.fabric.loss = 0.0;
    let g0 = run(&roce(true), &c);
    let s0 = run(&irn(true), &c);
    assert!(g0.goodput_gbps > 0.7 * s0.goodput_gbps, "roce {:.0} irn {:.0}", g0.goodput_gbps, s0.goodput_gbps);
}

#[test]
fn incast_without_congestion_control_fills_the_queue_dcqcn_drains_it() {
    let incast = TrafficSpec {
        kind: TrafficKind::Incast,
        senders: 7,
        receiver: 0,
        messages: 0,
        message_bytes: 1 << 20,
        ..Default::default()
    };
    let mut c = cfg(leaf_spine(4, 2), incast);
    c.duration_us = 1500.0;
    let off = run(&roce(false), &c);
    let on = run(&roce(true), &c);
    assert!(off.drops.buffer > 100, "no CC: {} buffer drops", off.drops.buffer);
    assert!(off.peak_queue_bytes > (1 << 20) - 5000);
    assert_eq!(off.endpoint_stats.cnps_sent, 0);
    assert!(on.endpoint_stats.cnps_sent > 0);
    assert!(on.drops.buffer < off.drops.buffer / 2, "dcqcn {} vs none {}", on.drops.buffer, off.drops.buffer);
    // DCQCN keeps the last-third queue lower than the uncontrolled one
    let tail = |r: &mrnic_sim::RunResult| {
        let q = &r.queue_bins;
        q[q.len() * 2 / 3..].iter().copied().max().unwrap()
    };
    assert!(tail(&on) < tail(&off), "dcqcn tail queue {} vs {}", tail(&on), tail(&off));
}

#[test]
fn irn_bdp_fc_caps_outstanding_packets_and_avoids_drops_for_one_flow() {
    let c = cfg(leaf_spine(4, 2), pairs(&[[0, 4]], 4 << 20));
    let r = run(&irn(false), &c);
    assert_exact(&r);
    assert_eq!(r.drops.total(), 0);
    assert_eq!(r.endpoint_stats.data_retx, 0);
    // one flow alone reaches ~line rate goodput: 4096/(4158+20) of 400 Gb/s, minus one RTT of startup
    let gbps = r.goodput_gbps;
    assert!(gbps > 330.0 && gbps < 392.2, "{gbps}");
}
