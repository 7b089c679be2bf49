//! Property tests of the transport model: under any mix of loss (0-30 %),
//! duplication, reordering (between paths and within a path), delay and route
//! failures, with any path count, MTU, window and initial sequence numbers (the
//! 2^24 wrap included):
//!
//! - every work request completes exactly once, in posting order, successfully;
//! - every SEND is delivered exactly once, in order, with its length;
//! - the responder's memory equals the sender's data byte for byte, and the bytes
//!   after each target stay zero;
//! - nothing is written outside an allocation (the host memory's own count);
//! - the transfer finishes within a bound of simulated time.
//!
//! A quarter of the cases carry every frame through bytes (`wire::encode`, then
//! `wire::decode` at the receiver: the codec in the loop), and a third start MSN
//! and SSN just below their wraps (2^32 and 2^24) so that messages cross them.
//!
//! `PROPTEST_CASES` sets the number of cases (default 400; about a second).

mod common;

use common::*;
use mrnic_model::transport::loopback::{NetConfig, RouteFailure};
use mrnic_model::transport::TransportConfig;
use mrnic_model::wire::DataKind;
use proptest::prelude::*;

/// Simulated time within which every case must finish. The worst case is 30 % loss
/// in both directions with small windows and failing routes: RTO backoff and path
/// probing dominate. Typical cases end in well under a millisecond.
const BOUND_NS: u64 = 2_000_000_000;

/// First MSN and SSN: 0 (the default) or just below their wraps.
fn msn_ssn() -> impl Strategy<Value = (u32, u32)> {
    prop_oneof![2 => Just((0u32, 0u32)), 1 => (u32::MAX - 4..=u32::MAX, 0xFF_FFFCu32..=0xFF_FFFF)]
}

fn seq() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), 0xFF_FF00u32..=0xFF_FFFF, 0u32..=0xFF_FFFF]
}

fn transport() -> impl Strategy<Value = TransportConfig> {
    let cycle = prop_oneof![Just(10u8), Just(1), Just(4), Just(33)];
    // Transmission records per connection: a small pool (4: at most 4 packets in
    // flight, whatever the windows), `core`'s 16, or the default (never binds).
    let tx_pool = prop_oneof![Just(4u32), Just(16), Just(256)];
    (1u8..=16, prop_oneof![Just(256u32), Just(1024), Just(4096)], prop_oneof![Just(32u32), Just(64), Just(256)], 1u32..=4, 1u32..=8, 1u32..=16, cycle, tx_pool)
        .prop_map(|(paths, mtu, window, k, n, cwnd, cycle_ns, tx_pool)| TransportConfig {
            cycle_ns,
            paths,
            mtu,
            window,
            reorder_threshold: k,
            ack_every: n,
            cwnd_init: cwnd,
            cwnd_max: window,
            msg_window: 1 << ((k + n) % 6),
            tx_pool,
            ..Default::default()
        })
}

fn net() -> impl Strategy<Value = NetConfig> {
    let failure = (0u32..8, 0u64..2_000_000, 1u64..3_000_000, any::<bool>());
    (
        0.0f64..0.30,
        prop_oneof![Just(0.0f64), 0.0f64..0.10],
        0u64..3_000,
        0u64..2_000,
        1u32..=8,
        prop::collection::vec(failure, 0..3),
        any::<u64>(),
        prop::bool::weighted(0.25),
        // The hardware time counter at network time 0: 0, or just below its 2^32 wrap
        // (the run crosses it within its first 1 ms), or anywhere.
        prop_oneof![2 => Just(0u32), 1 => u32::MAX - 1_000_000..=u32::MAX, 1 => any::<u32>()],
    )
        .prop_map(|(loss, dup, jitter, spread, routes, fails, seed, through_bytes, time_offset)| {
            let mut failures: Vec<RouteFailure> = fails
                .into_iter()
                .map(|(r, from, len, _)| RouteFailure { route: r % routes, from_ns: from, until_ns: from + len })
                .collect();
            // One route may die for good when another is left.
            if routes > 1 && seed % 3 == 0 {
                failures.push(RouteFailure { route: (seed % u64::from(routes)) as u32, from_ns: 0, until_ns: u64::MAX });
            }
            NetConfig { loss, dup, jitter_ns: jitter, route_spread_ns: spread, routes, failures, seed, through_bytes, time_offset, ..Default::default() }
        })
}

fn workload() -> impl Strategy<Value = Workload> {
    let msg = (prop_oneof![Just(DataKind::Write), Just(DataKind::Send)], prop_oneof![0u64..16, 0u64..20_000, 0u64..300_000]);
    (prop::collection::vec(msg, 1..6), any::<u64>()).prop_map(|(msgs, data_seed)| Workload { msgs, data_seed })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(400),
        max_shrink_iters: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_message_arrives_exactly_once_in_order_with_equal_memory(
        cfg in transport(), net in net(), w in workload(), isn_a in seq(), isn_b in seq(), path_isn in seq(), start in msn_ssn()
    ) {
        let (_, r, v) = run_from(&cfg, net, &w, (isn_a, isn_b, path_isn), start, BOUND_NS);
        prop_assert!(v.is_ok(), "{}", v.unwrap_err());
        prop_assert!(r.end_ns < BOUND_NS);
    }
}
