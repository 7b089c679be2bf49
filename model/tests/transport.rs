//! Transport model, end to end over the loopback network: named behaviours.

mod common;

use common::*;
use mrnic_model::time::HwTime;
use mrnic_model::transport::loopback::{route_of, NetConfig, RouteFailure};
use mrnic_model::transport::loopback::{Loopback, Report};
use mrnic_model::transport::path::PathState;
use mrnic_model::transport::qp::Out;
use mrnic_model::transport::{Qp, WcStatus, WorkRequest};
use mrnic_model::wire::{Body, DataExt, Frame, NakCode, Placement};
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

fn write_wr(id: u64, len: u64, va: u64, rkey: u32) -> WorkRequest {
    WorkRequest { wr_id: id, kind: Write, len, remote_va: va, rkey, solicited: false, data: Some(vec![0xA5; len as usize].into()) }
}

fn bad_write(rkey: u32, va: u64, len: u64, remote_write: bool) -> (Loopback, Report) {
    let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
    b.register(RKEY, REGION, 1 << 20, remote_write, true).unwrap();
    a.post(write_wr(0, 64 * 1024, REGION, RKEY)).unwrap();
    a.post(write_wr(1, len, va, rkey)).unwrap();
    a.post(write_wr(2, 4096, REGION + (1 << 19), RKEY)).unwrap();
    let mut l = Loopback::new(a, b, NetConfig::default());
    let r = l.run_to_completion(3, 0, 10 * MS);
    (l, r)
}

#[test]
fn a_bad_rkey_completes_with_a_remote_error_flushes_the_rest_and_writes_nothing() {
    let (mut l, r) = bad_write(0x999, REGION, 100, true);
    assert!(r.finished);
    let st: Vec<WcStatus> = r.completions.iter().map(|c| c.status).collect();
    assert_eq!(st, vec![WcStatus::Success, WcStatus::RemoteError(NakCode::BadRkey), WcStatus::Flushed]);
    assert_eq!(l.b.rsp.error, Some((NakCode::BadRkey, 1)), "message 1 refused");
    assert_eq!(l.b.rsp.mem.bytes_written, 64 * 1024, "only the first WRITE was placed");
    assert!(l.a.req.post(write_wr(3, 1, REGION, RKEY)).is_err(), "posting in the error state is refused");
}

#[test]
fn out_of_bounds_and_access_denied_writes_are_refused_with_their_nak() {
    let (l, r) = bad_write(RKEY, REGION + (1 << 20) - 10, 11, true);
    assert_eq!(r.completions[1].status, WcStatus::RemoteError(NakCode::OutOfBounds));
    assert_eq!(l.b.rsp.mem.violations, 0);
    let (l, r) = bad_write(RKEY, REGION, 8, false);
    assert_eq!(r.completions[0].status, WcStatus::RemoteError(NakCode::AccessDenied));
    assert_eq!(l.b.rsp.mem.bytes_written, 0);
}

#[test]
fn a_send_without_a_receive_buffer_is_retried_after_the_rnr_delay_until_one_is_posted() {
    let (mut a, b) = pair(&cfg(), 0, 0, 0, 9);
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
    a.post(WorkRequest { wr_id: 0, kind: Send, len: 10_000, remote_va: 0, rkey: 0, solicited: true, data: Some(data.clone().into()) })
        .unwrap();
    let mut l = Loopback::new(a, b, NetConfig::default());
    assert!(!l.run_until(200_000, |l| !l.completions.is_empty()));
    let naks = l.a.req.stats.rnr_naks;
    assert!(naks >= 5, "retried every ~10 us: {naks} RNR NAKs in 200 us");
    assert_eq!(l.a.req.paths.paths.iter().map(|p| p.strikes).sum::<u32>(), 0, "RNR is not a path event");
    l.b.post_recv(77, RECV, 10_000, true).unwrap();
    let r = l.run_to_completion(1, 1, 10 * MS);
    assert!(r.finished);
    assert_eq!(r.completions[0].status, WcStatus::Success);
    assert_eq!(r.recv_completions[0].wr_id, 77);
    assert_eq!(r.recv_completions[0].bytes, 10_000);
    assert!(r.recv_completions[0].solicited);
    assert_eq!(l.b.rsp.mem.read(RECV, 10_000).unwrap(), &data[..]);
}

#[test]
fn rnr_retry_gives_up_after_the_configured_count() {
    let c = TransportConfig { rnr_retry: 2, ..cfg() };
    let (mut a, b) = pair(&c, 0, 0, 0, 9);
    a.post(WorkRequest { wr_id: 0, kind: Send, len: 100, remote_va: 0, rkey: 0, solicited: false, data: None }).unwrap();
    let mut l = Loopback::new(a, b, NetConfig::default());
    let r = l.run_to_completion(1, 0, 10 * MS);
    assert_eq!(r.completions[0].status, WcStatus::RnrRetryExceeded);
    assert_eq!(l.a.req.stats.rnr_naks, 3);
}

/// A DATA frame from A to B, built by hand.
fn data(a: &Qp, psn: u32, msn: u32, off: u32, last: bool, va: u64, len: usize) -> Frame {
    let ext = DataExt { path_id: 0, path_psn: psn, msn, pkt_offset: off, flags: if last { 1 } else { 0 }, ssn: 0, timestamp: 0 };
    let body = Body::Data { kind: Write, ext, placement: Placement { va, rkey: RKEY }, payload: vec![1; len] };
    a.wrap(Out { psn, ack_req: false, solicited: false, sport: 0xC000, body })
}

fn naks(b: &mut Qp) -> Vec<NakCode> {
    std::iter::from_fn(|| b.poll_tx(HwTime(0))).filter_map(|f| if let Body::Nak(n) = f.body { Some(n.code) } else { None }).collect()
}

#[test]
fn contradicting_message_framing_is_refused_as_an_invalid_request() {
    // Packet offsets beyond the LAST one, a second LAST, and a first PSN that moves.
    for (second, why) in [((5u32, 6u32, false), "offset past LAST"), ((6, 7, true), "a second LAST"), ((9, 1, false), "first PSN moved")] {
        let (a, mut b) = pair(&cfg(), 0, 0, 0, 1);
        b.register(RKEY, REGION, 1 << 20, true, true).unwrap();
        b.on_frame(HwTime(0), &data(&a, 4, 0, 4, true, REGION, 8)); // message 0 = PSNs 0..=4
        assert!(naks(&mut b).is_empty());
        let (psn, off, last) = second;
        b.on_frame(HwTime(0), &data(&a, psn, 0, off, last, REGION, 8));
        assert_eq!(naks(&mut b), vec![NakCode::InvalidRequest], "{why}");
        assert_eq!(b.rsp.mem.bytes_written, 8, "{why}: nothing placed");
    }
}

/// Issue 8: one frame into a fresh connection, PSN = base + 300 (past the 256-PSN
/// window, inside the half-space), right QP, peer and P_Key, panicked the responder
/// (a bitmap index of 300). It is OutOfWindow: not placed, counted, answered by an ACK
/// carrying the unchanged cumulative PSN; the connection then works as before.
#[test]
fn a_data_frame_past_the_window_inside_the_half_space_is_out_of_window_not_a_panic() {
    for (w, isn) in [(256u32, 0u32), (256, 0xFF_FF80), (32, 7), (64, 0xFF_FFFF)] {
        let c = TransportConfig { window: w, cwnd_max: w, ..cfg() };
        let (a, mut b) = pair(&c, isn, 0, 0, 1);
        b.register(RKEY, REGION, 1 << 20, true, true).unwrap();
        let base = b.rsp.sack.base;
        assert_eq!(base, isn);
        for d in [300u32, w, w + 1, (1 << 23) - 1] {
            let psn = (base + d) & 0xFF_FFFF;
            // Through the bytes, as it arrives.
            let bytes = mrnic_model::wire::encode(&data(&a, psn, 0, 0, true, REGION, 8));
            let f = mrnic_model::wire::decode(&bytes).expect("a well-formed frame");
            b.on_frame(HwTime(0), &f);
            let out: Vec<Frame> = std::iter::from_fn(|| b.poll_tx(HwTime(0))).collect();
            assert_eq!(out.len(), 1, "W {w} d {d}: one ACK");
            let Body::Ack(ack) = &out[0].body else { panic!("W {w} d {d}: {:?}", out[0].body) };
            assert_eq!(out[0].bth.psn, base, "cumulative PSN unchanged");
            assert_eq!(ack.flags & mrnic_model::wire::ack_flags::DUPLICATE, 0, "OutOfWindow is not a duplicate");
        }
        assert_eq!(b.rsp.stats.data_out_of_window, 4, "W {w}");
        assert_eq!((b.rsp.stats.data_new, b.rsp.mem.bytes_written, b.rsp.sack.base), (0, 0, base));
        // The in-window packet is still accepted afterwards.
        b.on_frame(HwTime(0), &data(&a, base, 0, 0, true, REGION, 8));
        assert_eq!((b.rsp.stats.data_new, b.rsp.mem.bytes_written), (1, 8), "W {w}");
    }
}

#[test]
fn frames_for_another_qp_peer_or_partition_are_dropped_and_counted() {
    let (a, mut b) = pair(&cfg(), 0, 0, 0, 1);
    b.register(RKEY, REGION, 1 << 20, true, true).unwrap();
    let good = data(&a, 0, 0, 0, true, REGION, 8);
    let mut f = good.clone();
    f.bth.dest_qp ^= 1;
    b.on_frame(HwTime(0), &f);
    let mut f = good.clone();
    f.ip.src = [9, 9, 9, 9];
    b.on_frame(HwTime(0), &f);
    let mut f = good.clone();
    f.bth.pkey = 0x7FFF;
    b.on_frame(HwTime(0), &f);
    let mut f = good;
    if let Body::Data { ext, .. } = &mut f.body {
        ext.path_id = 8;
    }
    b.on_frame(HwTime(0), &f);
    let s = b.stats;
    assert_eq!((s.rx_wrong_qp, s.rx_wrong_peer, s.rx_wrong_pkey, b.rsp.stats.data_bad_path), (1, 1, 1, 1));
    assert_eq!(b.rsp.mem.bytes_written, 0);
    assert!(b.poll_tx(HwTime(0)).is_none(), "no ACK or NAK for a dropped frame");
}

#[test]
fn ecn_marks_shrink_only_the_marked_paths_windows() {
    let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 3);
    b.register(RKEY, REGION, 1 << 24, true, false).unwrap();
    a.post(write_wr(0, 8 << 20, REGION, RKEY)).unwrap();
    let net = NetConfig { routes: 4, ce_routes: vec![2], ..Default::default() };
    let mut l = Loopback::new(a, b, net);
    assert!(l.run_to_completion(1, 0, 100 * MS).finished);
    assert!(l.b.rsp.stats.ce_marked > 0);
    for p in &l.a.req.paths.paths {
        let marked = route_of(0xC000 | p.entropy, 4) == 2;
        assert_eq!(p.stat_ecn_cuts > 0, marked, "{p:?}");
        if marked {
            assert!(p.alpha > 512 && p.cwnd < 4 << 8, "alpha {}/1024 cwnd {}/256", p.alpha, p.cwnd);
        } else {
            assert!(p.cwnd > 16 << 8, "unmarked paths grow: {}/256", p.cwnd);
        }
    }
}

#[test]
fn the_rate_hint_paces_the_sender() {
    let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 3);
    b.register(RKEY, REGION, 1 << 24, true, false).unwrap();
    b.rsp.hint_base = 10_000; // 10 Gb/s (no CE marks here: the hint stays at the base)
    a.post(write_wr(0, 4 << 20, REGION, RKEY)).unwrap();
    let mut l = Loopback::new(a, b, NetConfig::default());
    let r = l.run_to_completion(1, 0, 100 * MS);
    assert!(r.finished);
    let gbps = (4u64 << 23) as f64 / r.end_ns as f64;
    assert!(gbps < 10.5 && gbps > 8.0, "paced to the 10 Gb/s hint: {gbps:.2} Gb/s");
}

#[test]
fn a_thirty_percent_lossy_network_still_delivers_a_large_write_within_bounded_time() {
    let w = Workload { msgs: vec![(Write, 4 << 20), (Send, 100_000)], data_seed: 8 };
    let net = NetConfig { loss: 0.30, dup: 0.02, jitter_ns: 1000, seed: 8, ..Default::default() };
    let (_, r, v) = run(&cfg(), net, &w, (0, 0, 0), 1_000 * MS);
    v.unwrap();
    println!("{} ns, {}", r.end_ns, serde_json::to_string(&r.a_tx).unwrap());
    assert!(r.end_ns < 100 * MS, "{} ns", r.end_ns);
}

#[test]
fn the_head_timer_repairs_a_stuck_window_head_long_before_the_rto() {
    // RTOs of 10 ms: only per-path detection and the head timer can repair losses quickly.
    let slow_rto = TransportConfig { rto_min_ns: 10 * MS, rto_init_ns: 10 * MS, ..cfg() };
    let w = Workload { msgs: vec![(Write, 8 << 20)], data_seed: 12 };
    let net = NetConfig { link_gbps: 400.0, loss: 0.2, seed: 12, ..Default::default() };
    let (l, r, v) = run(&slow_rto, net.clone(), &w, (0, 0, 0), 1_000 * MS);
    v.unwrap();
    assert!(l.a.req.stats.losses_by_head_timer > 0, "{:?}", l.a.req.stats);
    assert!(r.end_ns < 2 * MS, "done in {} ns", r.end_ns);
    let (_, r0, v0) = run(&TransportConfig { head_rto_pct: 0, ..slow_rto }, net, &w, (0, 0, 0), 1_000 * MS);
    v0.unwrap();
    assert!(r0.end_ns > 5 * r.end_ns, "without the head timer: {} ns vs {} ns", r0.end_ns, r.end_ns);
}

/// Configurations are range-checked by `Qp::new` (`model/tests/config_ranges.rs`); the
/// halves built directly from an unchecked one still do not overflow their timers: the
/// responder clamps T = 2^64 − 1 to 2^31 − 1 ns (the longest span its 32-bit hardware
/// time orders), so the ACK deadline is `now + 2^31 − 1` instead of a panic.
#[test]
fn timers_saturate_when_an_unchecked_config_reaches_a_half_directly() {
    use mrnic_model::transport::Responder;
    let c = TransportConfig { ack_timeout_ns: u64::MAX, rto_min_ns: u64::MAX, ack_every: 255, ..cfg() };
    assert!(c.validate().is_err(), "Qp::new refuses it");
    let mut r = Responder::new(&c, 0, 0, 1);
    r.mem.alloc(REGION, 4096, true).unwrap();
    let mr = mrnic_model::transport::placement::MemoryRegion { base: REGION, len: 4096, access: mrnic_model::transport::placement::Access { remote_write: true }, pd: 1 };
    r.mrs.insert(RKEY, mr).unwrap();
    let pl = Placement { va: REGION, rkey: RKEY };
    let ext = |psn: u32, msn: u32| DataExt { path_id: 0, path_psn: psn, msn, pkt_offset: 0, flags: 1, ssn: 0, timestamp: 0 };
    r.on_data(HwTime(1_000), 0, false, false, Write, &ext(0, 0), &pl, &[1; 8], false, 0xC000);
    assert_eq!(r.stats.data_new, 1);
    assert_eq!(r.next_wakeup(), Some(HwTime(1_000).add((1 << 31) - 1)), "the ACK deadline now + T, T clamped");
    // A bad rkey puts the responder in the error state; a later packet of that message
    // meets the NAK rate limit `t + rto_min`, rto_min clamped the same way.
    r.on_data(HwTime(2_000), 1, false, false, Write, &ext(1, 1), &Placement { va: REGION, rkey: 7 }, &[1; 8], false, 0xC000);
    r.on_data(HwTime(3_000), 2, false, false, Write, &ext(2, 1), &pl, &[1; 8], false, 0xC000);
    assert_eq!((r.stats.data_refused, r.stats.data_in_error, r.stats.naks_sent), (1, 1, 1), "one NAK: the next is rate-limited");
}
