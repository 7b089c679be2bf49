//! Transmission records (`transport.tx_pool`): a connection has at most
//! `tx_records() = min(tx_pool, window)` packets in flight, and the records never leak.

mod common;

use common::*;
use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::TransportConfig;
use mrnic_model::wire::DataKind;

/// A long lossy run (10 % loss both ways, duplicates, reordering, a route failing for
/// a while) with small pools: after every event the requester's invariants hold (every
/// record on exactly one list, every in-flight PSN on its record), in-flight packets
/// never exceed the pool and reach it; at the end every record is free again.
#[test]
fn the_pool_never_leaks_over_a_long_lossy_loopback_run() {
    for (tx_pool, seed) in [(4u32, 1u64), (16, 2), (1, 3)] {
        let cfg = TransportConfig { paths: 4, window: 64, cwnd_init: 16, cwnd_max: 64, tx_pool, ..Default::default() };
        let net = NetConfig {
            loss: 0.10,
            dup: 0.02,
            jitter_ns: 1_500,
            seed,
            failures: vec![mrnic_model::transport::loopback::RouteFailure { route: 1, from_ns: 100_000, until_ns: 600_000 }],
            ..Default::default()
        };
        let msgs: Vec<(DataKind, u64)> = (0..150).map(|i| (if i % 3 == 0 { DataKind::Send } else { DataKind::Write }, 1 + (i * 7919) % 60_000)).collect();
        let w = Workload { msgs, data_seed: seed };
        let (mut a, mut b) = pair(&cfg, 0xFF_FF00, 77, 5, seed);
        let e = post(&mut a, &mut b, &w);
        let mut l = Loopback::new(a, b, net);
        let mut max_in_flight = 0;
        let records = l.a.req.rtx.records();
        assert_eq!(records, tx_pool);
        let done = l.run_until(20_000_000_000, |l| {
            let rtx = &l.a.req.rtx;
            l.a.req.check_invariants().unwrap();
            let in_flight = rtx.records() - rtx.free_records();
            assert!(in_flight <= records);
            max_in_flight = max_in_flight.max(in_flight);
            l.completions.len() >= e.targets.len() && l.recv_completions.len() >= e.sends
        });
        assert!(done, "tx_pool {tx_pool}: did not finish");
        let r = l.run_to_completion(e.targets.len(), e.sends, u64::MAX);
        check(&l, &r, &e).unwrap();
        assert!(r.net.lost > 100, "tx_pool {tx_pool}: a lossy run ({} lost)", r.net.lost);
        assert_eq!(max_in_flight, records, "tx_pool {tx_pool}: the pool was used up");
        assert!(r.a_tx.blocked_tx_pool > 0, "tx_pool {tx_pool}: and bound");
        assert_eq!(l.a.req.rtx.free_records(), records, "tx_pool {tx_pool}: every record returned");
        assert_eq!(l.b.req.rtx.free_records(), l.b.req.rtx.records());
    }
}

/// The default pool (256 records, at least W) never binds: the same run with
/// `tx_pool = W` and `tx_pool = 256` is identical, and is never blocked by the pool.
#[test]
fn a_pool_of_w_records_never_binds() {
    let w = Workload { msgs: (0..20).map(|i| (DataKind::Write, 50_000 + i * 1000)).collect(), data_seed: 9 };
    let mut ends = vec![];
    for tx_pool in [64u32, 256] {
        let cfg = TransportConfig { paths: 4, window: 64, cwnd_init: 64, cwnd_max: 64, tx_pool, ..Default::default() };
        let net = NetConfig { loss: 0.05, jitter_ns: 500, seed: 4, ..Default::default() };
        let (l, r, v) = run(&cfg, net, &w, (0, 0, 0), 5_000_000_000);
        v.unwrap();
        assert_eq!(r.a_tx.blocked_tx_pool, 0);
        assert_eq!(l.a.req.rtx.free_records(), 64);
        ends.push((r.end_ns, r.a_tx, r.net));
    }
    assert_eq!(ends[0], ends[1]);
}
