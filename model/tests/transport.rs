//! Transport model, end to end over the loopback network: named behaviours.

mod common;

use common::*;
use mrnic_model::transport::loopback::{route_of, NetConfig, RouteFailure};
use mrnic_model::transport::path::PathState;
use mrnic_model::transport::TransportConfig;
use mrnic_model::wire::DataKind::{Send, Write};

const MS: u64 = 1_000_000;

fn cfg() -> TransportConfig {
    TransportConfig::default()
}

#[test]
fn a_write_and_a_send_arrive_intact_on_a_clean_network() {
    let w = Workload { msgs: vec![(Write, 100_000), (Send, 9_000), (Write, 0), (Send, 1)], data_seed: 1 };
    let net = NetConfig { through_bytes: true, ..Default::default() };
    let (_, r, v) = run(&cfg(), net, &w, (0, 0, 0), 10 * MS);
    v.unwrap();
    assert_eq!(r.a_tx.retransmissions, 0);
    assert_eq!(r.b_rx.data_duplicate, 0);
    assert_eq!(r.a_tx.data_sent, 25 + 3 + 1 + 1);
}

#[test]
fn packets_are_sprayed_round_robin_over_all_paths() {
    let w = Workload { msgs: vec![(Write, 64 * 4096)], data_seed: 2 };
    let (l, _, v) = run(&cfg(), NetConfig::default(), &w, (0, 0, 0), 10 * MS);
    v.unwrap();
    let sent: Vec<u64> = l.a.req.paths.paths.iter().map(|p| p.stat_sent).collect();
    assert_eq!(sent, vec![8; 8]);
}

#[test]
fn a_lost_packet_is_retransmitted_once_on_another_path_and_nothing_else_is_resent() {
    let w = Workload { msgs: vec![(Write, 200 * 4096)], data_seed: 3 };
    // Drop exactly one data frame: route failure for a short window on one route.
    let net = NetConfig { loss: 0.01, seed: 11, ..Default::default() };
    let (_, r, v) = run(&cfg(), net, &w, (0, 0, 0), 10 * MS);
    v.unwrap();
    assert!(r.net.lost > 0);
    assert!(r.a_tx.retransmissions > 0);
    assert!(
        r.a_tx.retransmissions <= r.net.lost + r.a_tx.spurious_losses + 2,
        "selective: retransmissions {} for {} lost frames",
        r.a_tx.retransmissions,
        r.net.lost
    );
}

#[test]
fn psn_and_path_psn_wrap_around_2_pow_24() {
    let w = Workload { msgs: vec![(Write, 600 * 256), (Send, 3000)], data_seed: 4 };
    let c = TransportConfig { mtu: 256, paths: 4, ..cfg() };
    let isn = (0xFF_FFFF - 100, 0xFF_FFF0, 0xFF_FFFF - 30);
    let net = NetConfig { loss: 0.05, jitter_ns: 500, seed: 5, ..Default::default() };
    let (l, _, v) = run(&c, net, &w, isn, 50 * MS);
    v.unwrap();
    assert!(l.a.req.cum_psn() < 1000, "the PSN wrapped: {}", l.a.req.cum_psn());
    assert!(l.a.req.paths.paths.iter().all(|p| p.next_path_psn < 1000), "every path PSN wrapped");
}

#[test]
fn a_dead_route_fails_its_paths_which_are_rerolled_and_probed_back() {
    let w = Workload { msgs: vec![(Write, 2000 * 4096)], data_seed: 6 };
    let net = NetConfig {
        routes: 4,
        failures: vec![RouteFailure { route: 1, from_ns: 100_000, until_ns: u64::MAX }],
        ..Default::default()
    };
    let (l, r, v) = run(&cfg(), net, &w, (0, 0, 0), 100 * MS);
    v.unwrap();
    assert!(r.a_tx.path_failures > 0, "{:?}", r.a_tx);
    assert!(r.a_tx.probes_sent > 0);
    let rerolls: u64 = l.a.req.paths.paths.iter().map(|p| p.stat_rerolls).sum();
    assert!(rerolls > 0);
    for p in &l.a.req.paths.paths {
        let on_dead_route = route_of(0xC000 | p.entropy, 4) == 1;
        assert!(!(on_dead_route && p.state == PathState::Ok), "an OK path on the dead route: {p:?}");
    }
    println!("{}", serde_json::to_string(&r.a_tx).unwrap());
    println!("end {} ns; states {:?}", r.end_ns, l.a.req.paths.paths.iter().map(|p| (p.state, route_of(0xC000 | p.entropy, 4))).collect::<Vec<_>>());
}
