//! The responder's bounded tables (issue 9, `docs/protocol.md` §6.10-6.12): the
//! memory-region table's tag check, the posted receive queue's depth, the message
//! window, and a DMA write error. Each test drives two real connection ends over the
//! loopback network (or one responder directly) and checks what was written.

mod common;

use common::*;
use mrnic_model::time::HwTime;
use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::placement::{Access, Bresp, MemoryRegion};
use mrnic_model::transport::{RecvStatus, Responder, TransportConfig, TransportError, WcStatus, WorkRequest};
use mrnic_model::wire::DataKind::{Send, Write};
use mrnic_model::wire::{Body, DataExt, NakCode, Placement};

const MS: u64 = 1_000_000;

/// A lossless network whose routes all have the same delay: packets arrive in the order
/// they were sent, whatever paths (entropies, so routes) they took. The tests that assert
/// what was placed before an error need that order; with the default per-route delay
/// spread it depended on which routes the entropy draws happened to pick.
fn in_order() -> NetConfig {
    NetConfig { route_spread_ns: 0, ..NetConfig::default() }
}

fn cfg() -> TransportConfig {
    TransportConfig::default()
}

fn write_wr(id: u64, len: u64, va: u64, rkey: u32) -> WorkRequest {
    WorkRequest { wr_id: id, kind: Write, len, remote_va: va, rkey, solicited: false, data: Some(vec![0xA5; len as usize].into()) }
}

fn region(base: u64, len: u64) -> MemoryRegion {
    MemoryRegion { base, len, access: Access { remote_write: true }, pd: 1 }
}

/// A key whose row was re-registered under another tag (stale), and keys nobody
/// registered that select a valid row (forged): NAK BadRkey, nothing written, the
/// message completes with the remote error and the later one is flushed.
#[test]
fn a_stale_or_forged_rkey_fails_the_tag_check_with_bad_rkey_and_writes_nothing() {
    let (_, probe) = pair(&cfg(), 0, 0, 0, 1);
    let t = &probe.rsp.mrs;
    let old = t.rkey(0x1234, 77);
    let new = t.rkey(0x1235, 77);
    for (why, key) in [("stale", old), ("forged: same row, tag 0", t.rkey(0, 77)), ("forged: same row, tag + 2", t.rkey(0x1236, 77))] {
        let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
        b.register(old, REGION, 1 << 20, true, true).unwrap();
        // Re-registration: the old key leaves the row, the new one takes it (same memory).
        assert!(b.rsp.deregister(old).is_some());
        b.rsp.mrs.insert(new, region(REGION, 1 << 20)).unwrap();
        a.post(write_wr(0, 8192, REGION, new)).unwrap();
        a.post(write_wr(1, 4096, REGION + 65536, key)).unwrap();
        a.post(write_wr(2, 4096, REGION + 131072, new)).unwrap();
        let mut l = Loopback::new(a, b, in_order());
        let r = l.run_to_completion(3, 0, 10 * MS);
        assert!(r.finished, "{why}");
        let st: Vec<WcStatus> = r.completions.iter().map(|c| c.status).collect();
        assert_eq!(st, vec![WcStatus::Success, WcStatus::RemoteError(NakCode::BadRkey), WcStatus::Flushed], "{why}");
        assert_eq!(l.b.rsp.error, Some((NakCode::BadRkey, 1)), "{why}");
        assert_eq!(l.b.rsp.mem.bytes_written, 8192, "{why}: only message 0 was placed");
        assert!(l.b.rsp.mem.read(REGION + 65536, 4096).unwrap().iter().all(|&x| x == 0), "{why}");
        assert_eq!(l.b.rsp.mem.violations, 0);
    }
}

/// `register` refuses a key whose row holds another key, says which, and allocates
/// nothing (the same memory can then be registered under a free row).
#[test]
fn register_refuses_a_taken_row_and_allocates_nothing() {
    let (_, mut b) = pair(&cfg(), 0, 0, 0, 9);
    let (k1, k2) = (b.rsp.mrs.rkey(1, 5), b.rsp.mrs.rkey(2, 5));
    b.register(k1, REGION, 4096, true, true).unwrap();
    let e = b.register(k2, REGION + 4096, 4096, true, true).unwrap_err();
    assert_eq!(e, TransportError::MrRowTaken { rkey: k2, index: 5, holder: k1, entries: b.rsp.mrs.entries() });
    assert!(e.to_string().contains(&format!("{k1:#x}")), "{e}");
    assert_eq!(b.register(k1, REGION + 8192, 4096, true, true), Err(TransportError::RkeyInUse { rkey: k1 }));
    b.register(b.rsp.mrs.rkey(2, 6), REGION + 4096, 4096, true, true).expect("the refused call allocated nothing");
}

/// `rq_depth` buffers can be posted; one more is refused (RecvQueueFull) and allocates
/// nothing; a SEND consuming a buffer makes room for one.
#[test]
fn the_receive_queue_refuses_a_buffer_beyond_rq_depth_until_a_send_consumes_one() {
    let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
    let depth = b.rsp.rq.depth;
    assert_eq!(depth, 64);
    for i in 0..u64::from(depth) {
        b.post_recv(1000 + i, RECV + i * 4096, 4096, true).unwrap();
    }
    let extra = RECV + u64::from(depth) * 4096;
    assert_eq!(b.post_recv(2000, extra, 4096, true), Err(TransportError::RecvQueueFull { depth }));
    assert!(!b.rsp.mem.contains(extra, 1), "the refused buffer allocated nothing");
    a.post(WorkRequest { wr_id: 0, kind: Send, len: 100, remote_va: 0, rkey: 0, solicited: false, data: Some(vec![7; 100].into()) }).unwrap();
    let mut l = Loopback::new(a, b, NetConfig::default());
    let r = l.run_to_completion(1, 1, 10 * MS);
    assert!(r.finished);
    assert_eq!((r.recv_completions[0].wr_id, r.recv_completions[0].status), (1000, RecvStatus::Success));
    l.b.post_recv(2000, extra, 4096, true).expect("room for one");
    assert_eq!(l.b.post_recv(2001, extra + 4096, 4096, true), Err(TransportError::RecvQueueFull { depth }));
}

fn ext(path_psn: u32, msn: u32, pkt_offset: u32, last: bool) -> DataExt {
    DataExt { path_id: 0, path_psn, msn, pkt_offset, flags: u8::from(last), ssn: 0, timestamp: 0 }
}

fn drain(r: &mut Responder) -> Vec<Body> {
    std::iter::from_fn(|| r.poll_tx_on(None)).map(|o| o.body).collect()
}

/// The responder tracks `msg_window` messages from the next one to complete: a new
/// packet of a message `msg_window` or more ahead is dropped without an answer
/// (nothing placed, no SACK bit, no NAK, no ACK) and counted; once the oldest message
/// completes, the same packet is accepted.
#[test]
fn a_packet_msg_window_messages_ahead_is_dropped_and_counted_until_the_window_moves() {
    let mut r = Responder::new(&cfg(), 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    let mw = r.msg_window;
    assert_eq!(mw, 32);
    let pl = |i: u64| Placement { va: REGION + i * 64, rkey: RKEY };
    // Message 0 is PSNs 0..=1; PSN 0 is missing, so message 0 stays the next to complete.
    r.on_data(HwTime(100), 1, false, false, Write, &ext(1, 0, 1, true), &pl(1), &[1; 8], false, 0xC000);
    // Message mw - 1 (the last one tracked) is accepted.
    r.on_data(HwTime(200), 2, false, false, Write, &ext(2, mw - 1, 0, true), &pl(2), &[2; 8], false, 0xC000);
    assert_eq!((r.stats.data_new, r.stats.data_beyond_msg_window), (2, 0));
    drain(&mut r);
    // Message mw: no room.
    let (base, bitmap, writes, wake) = (r.sack.base, r.sack.bitmap, r.mem.writes, r.next_wakeup());
    r.on_data(HwTime(300), 3, true, false, Write, &ext(3, mw, 0, true), &pl(3), &[3; 8], false, 0xC000);
    assert_eq!((r.stats.data_new, r.stats.data_beyond_msg_window, r.stats.data_refused), (2, 1, 0));
    assert_eq!((r.sack.base, r.sack.bitmap, r.mem.writes), (base, bitmap, writes), "no SACK bit, nothing written");
    assert_eq!(drain(&mut r), vec![], "no NAK, no ACK (even with the A bit)");
    assert_eq!(r.next_wakeup(), wake, "no ACK timer started");
    assert!(r.error.is_none(), "not an error");
    // A duplicate of a far message is still only a duplicate (no message tracking needed).
    r.on_data(HwTime(350), 2, false, false, Write, &ext(4, mw + 5, 0, true), &pl(2), &[2; 8], false, 0xC000);
    assert_eq!(r.stats.data_duplicate, 1);
    // PSN 0 completes message 0: the window moves by one and message mw fits.
    r.on_data(HwTime(400), 0, false, false, Write, &ext(5, 0, 0, false), &pl(0), &[0; 8], false, 0xC000);
    assert_eq!(r.next_msn, 1);
    r.on_data(HwTime(500), 3, false, false, Write, &ext(6, mw, 0, true), &pl(3), &[3; 8], false, 0xC000);
    assert_eq!((r.stats.data_new, r.stats.data_beyond_msg_window), (4, 1));
    assert_eq!(r.mem.read(REGION + 3 * 64, 8).unwrap(), &[3; 8]);
    // Every DATA packet is counted once.
    let s = r.stats;
    assert_eq!(s.data_new + s.data_refused + s.data_duplicate + s.data_out_of_window + s.data_bad_path + s.data_in_error + s.data_beyond_msg_window, 6);
}

/// A WRITE packet whose DMA write is answered SLVERR: NAK RemoteOpError, the message
/// completes at the requester with that remote error and the later one is flushed;
/// the failing bytes are not stored, the earlier message is placed and complete.
#[test]
fn a_dma_write_error_completes_the_write_with_a_remote_operational_error() {
    for resp in [Bresp::SlvErr, Bresp::DecErr] {
        let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
        b.register(RKEY, REGION, 1 << 20, true, true).unwrap();
        let bad = REGION + 65536 + 4096;
        b.rsp.mem.inject_write_error(bad, 4096, resp);
        a.post(write_wr(0, 8192, REGION, RKEY)).unwrap();
        a.post(write_wr(1, 3 * 4096, REGION + 65536, RKEY)).unwrap();
        a.post(write_wr(2, 4096, REGION + 131072, RKEY)).unwrap();
        let mut l = Loopback::new(a, b, NetConfig::default());
        let r = l.run_to_completion(3, 0, 10 * MS);
        assert!(r.finished);
        let st: Vec<WcStatus> = r.completions.iter().map(|c| c.status).collect();
        assert_eq!(st, vec![WcStatus::Success, WcStatus::RemoteError(NakCode::RemoteOpError), WcStatus::Flushed]);
        let m = &l.b.rsp.mem;
        assert_eq!(l.b.rsp.error, Some((NakCode::RemoteOpError, 1)));
        assert!(m.write_errors >= 1 && m.violations == 0);
        assert!(m.read(bad, 4096).unwrap().iter().all(|&x| x == 0), "the failed write stored nothing");
        assert!(m.read(REGION, 8192).unwrap().iter().all(|&x| x == 0xA5), "message 0 placed");
        assert!(m.read(REGION + 131072, 4096).unwrap().iter().all(|&x| x == 0), "message 2 never placed");
        assert_eq!(l.b.rsp.stats.messages_completed, 1);
    }
}

/// A SEND whose DMA write fails: NAK RemoteOpError (the requester's completion has that
/// remote error) and its receive buffer completes with `RecvStatus::WriteError`, in
/// message order after the earlier SEND's successful completion.
#[test]
fn a_dma_write_error_on_a_send_completes_both_sides_with_an_error() {
    let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
    b.post_recv(1000, RECV, 8192, true).unwrap();
    b.post_recv(1001, RECV + 8192, 8192, true).unwrap();
    b.rsp.mem.inject_write_error(RECV + 8192 + 4096, 16, Bresp::SlvErr);
    let send = |id, len: u64| WorkRequest { wr_id: id, kind: Send, len, remote_va: 0, rkey: 0, solicited: true, data: Some(vec![0x5A; len as usize].into()) };
    a.post(send(0, 6000)).unwrap();
    a.post(send(1, 6000)).unwrap();
    let mut l = Loopback::new(a, b, in_order());
    let r = l.run_to_completion(2, 2, 10 * MS);
    assert!(r.finished);
    let st: Vec<WcStatus> = r.completions.iter().map(|c| c.status).collect();
    assert_eq!(st, vec![WcStatus::Success, WcStatus::RemoteError(NakCode::RemoteOpError)]);
    let rc: Vec<(u64, u32, RecvStatus)> = r.recv_completions.iter().map(|c| (c.wr_id, c.msn, c.status)).collect();
    assert_eq!(rc, vec![(1000, 0, RecvStatus::Success), (1001, 1, RecvStatus::WriteError)]);
    assert_eq!(r.recv_completions[0].bytes, 6000);
    assert_eq!(r.recv_completions[1].bytes, 4096, "the first packet was placed before the failure");
    assert!(l.b.rsp.rq.bufs.is_empty(), "both buffers consumed");
    assert_eq!(l.b.rsp.mem.violations, 0);
}

/// A write that fails after its packet was committed (the SACK engine commits at the
/// header decision, the write answers later): its message is fatal (NAK RemoteOpError),
/// the bit stays in the SACK state, and nothing the responder sends from then on covers
/// the failed PSN: not the packet's own ACK, not the ACKs of an earlier message's later
/// packets, not the NAKs, not a PROBE_REPLY. The earlier message still completes.
#[test]
fn a_write_failing_after_its_commit_is_never_covered_by_what_the_responder_sends() {
    let mut r = Responder::new(&cfg(), 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    r.mem.inject_write_error(REGION + 65536, 4096, Bresp::SlvErr);
    // Message 0: PSNs 0 and 1 (4 KiB each at REGION); message 1: PSNs 2 and 3 at
    // REGION + 64 KiB, PSN 2's write fails. Every packet asks for an ACK (A bit).
    let ext = |pp: u32, msn: u32, off: u32, last: bool| DataExt { path_id: 0, path_psn: pp, msn, pkt_offset: off, flags: u8::from(last), ssn: 0, timestamp: 0 };
    let sent = |r: &mut Responder, psn: u32, msn: u32, off: u32, last: bool, va: u64| {
        r.on_data(HwTime(1000 + psn), psn, true, false, Write, &ext(psn, msn, off, last), &Placement { va, rkey: RKEY }, &[7; 4096], false, 0xC000);
        std::iter::from_fn(|| r.poll_tx_on(None)).map(|o| (o.psn, o.body)).collect::<Vec<_>>()
    };
    let ack_of = |out: &[(u32, Body)]| -> Vec<(u32, u32)> {
        out.iter().filter_map(|(psn, b)| if let Body::Ack(a) = b { Some((*psn, a.sack.0[0] as u32)) } else { None }).collect()
    };
    let out = sent(&mut r, 0, 0, 0, false, REGION);
    assert_eq!(ack_of(&out), vec![(1, 0)], "PSN 0 acknowledged");
    let out = sent(&mut r, 2, 1, 0, false, REGION + 65536);
    assert!(matches!(out[0].1, Body::Nak(n) if n.code == NakCode::RemoteOpError && n.msn == 1 && n.cumulative == 1), "{out:?}");
    assert_eq!(ack_of(&out), vec![(1, 0)], "the failed PSN 2 is committed (bit 1 of base 1) but its own ACK clears it");
    assert_eq!((r.sack.base, r.sack.bitmap.get(1)), (1, true), "the SACK state holds the commit");
    assert_eq!(r.error, Some((NakCode::RemoteOpError, 1)));
    let out = sent(&mut r, 1, 0, 1, true, REGION + 4096);
    assert_eq!(r.sack.base, 3, "PSNs 0-2 committed");
    assert_eq!(ack_of(&out), vec![(2, 0)], "message 0's last ACK stops below PSN 2");
    assert_eq!(r.stats.messages_completed, 1, "message 0 completes");
    let out = sent(&mut r, 3, 1, 1, true, REGION + 65536 + 4096);
    assert!(ack_of(&out).is_empty(), "message 1 is in error: no ACK");
    assert_eq!(r.reported(), (2, Default::default()));
    let probe = mrnic_model::wire::Probe { path_id: 0, port: 0xC000, seq: 1, timestamp: 0 };
    r.on_probe(&probe, 0xC000);
    assert_eq!(r.poll_tx_on(None).map(|o| o.psn), Some(2), "the PROBE_REPLY's cumulative PSN is clipped too");
    let s = r.stats;
    assert_eq!((s.data_new, s.write_errors, s.data_in_error, s.messages_completed), (3, 1, 1, 1));
    assert_eq!(s.bytes_placed, 2 * 4096, "the failed write counts no bytes");
}

fn ext_on(path_id: u8, path_psn: u32, msn: u32, last: bool) -> DataExt {
    DataExt { path_id, path_psn, msn, pkt_offset: 0, flags: u8::from(last), ssn: 0, timestamp: 0 }
}

fn acks(r: &mut Responder) -> Vec<(u8, u8, u32)> {
    drain(r).into_iter().filter_map(|b| if let Body::Ack(a) = b { Some((a.path_id, a.ecn_pkts, a.ack_delay)) } else { None }).collect()
}

/// The ACK coalescing deadline is 32-bit hardware time: armed just before the counter
/// wraps, it fires T later on the other side of the wrap, not at once (a plain `now >=
/// due` would fire it 2^32 − T ns early) and not never.
#[test]
fn the_ack_coalescing_deadline_fires_t_later_across_the_time_counter_wrap() {
    let c = cfg();
    let t = c.ack_timeout_ns as u32;
    let mut r = Responder::new(&c, 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    let t0 = HwTime(u32::MAX - 500);
    r.on_data(t0, 0, false, false, Write, &ext_on(0, 0, 0, true), &Placement { va: REGION, rkey: RKEY }, &[1; 8], false, 0xC000);
    assert!(acks(&mut r).is_empty(), "coalesced");
    let due = t0.add(t);
    assert_eq!(due, HwTime(t - 501), "wrapped");
    assert_eq!(r.next_wakeup(), Some(due));
    for early in [t0, t0.add(400), HwTime(0), due.add(u32::MAX)] {
        r.on_timer(early);
        assert!(acks(&mut r).is_empty(), "not yet at {early:?}");
    }
    r.on_timer(due);
    assert_eq!(acks(&mut r), vec![(0, 1, t)], "one ACK, ack_delay T across the wrap");
    assert_eq!((r.next_wakeup(), r.ack_fifo_len()), (None, 0));
}

/// The FIFO: deadlines fire in arming order (not path order); an ACK sent early (by
/// count) retires its entry, so a later arming of the same path fires at its own
/// deadline, not the stale one.
#[test]
fn the_ack_fifo_fires_in_arming_order_and_an_early_ack_retires_its_entry() {
    let c = cfg();
    let (t, n) = (c.ack_timeout_ns as u32, c.ack_every);
    let mut r = Responder::new(&c, 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    let pl = Placement { va: REGION, rkey: RKEY };
    let mut psn = 0;
    let mut pp = [0u32; 8];
    let mut data = |r: &mut Responder, now: HwTime, path: u8| {
        r.on_data(now, psn, false, false, Write, &ext_on(path, pp[path as usize], psn, true), &pl, &[1; 8], false, 0xC000);
        psn += 1;
        pp[path as usize] += 1;
    };
    let t0 = HwTime(5_000);
    data(&mut r, t0, 3); // path 3 armed first
    data(&mut r, t0.add(10), 1); // then path 1
    data(&mut r, t0.add(20), 5); // then path 5 ...
    for k in 1..n {
        data(&mut r, t0.add(20 + k), 5); // ... which reaches N at once: an early ACK
    }
    assert_eq!(acks(&mut r), vec![(5, n as u8, 0)]);
    assert_eq!(r.ack_fifo_len(), 2, "path 5's entry retired");
    data(&mut r, t0.add(1_000), 5); // path 5 armed again: due at t0 + 1000 + T
    assert_eq!(r.ack_fifo_len(), 3);
    r.on_timer(t0.add(t + 10));
    assert_eq!(acks(&mut r), vec![(3, 1, t + 10), (1, 1, t)], "arming order: path 3 then path 1");
    r.on_timer(t0.add(t + 20));
    assert!(acks(&mut r).is_empty(), "path 5's stale deadline fires nothing");
    assert_eq!(r.next_wakeup(), Some(t0.add(1_000 + t)));
    r.on_timer(t0.add(1_000 + t));
    assert_eq!(acks(&mut r), vec![(5, 1, t)]);
    assert_eq!(r.next_wakeup(), None);
}

/// The message checks measure from the decision frontier (`Responder::decision_msn`),
/// moved at the header decision over the messages whose packets were all accepted. While
/// every write succeeds it is the completion unit's written frontier after every packet.
/// A write that fails on a message's last accepted packet leaves the message decided
/// complete but never written complete: the decision frontier then passes it, and the later
/// messages already decided complete behind it (at most `msg_window`), and stops; every
/// message after the failed one is in error.
#[test]
fn the_decision_frontier_is_the_written_one_until_a_write_fails_and_then_runs_ahead() {
    let mut r = Responder::new(&cfg(), 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    r.mem.inject_write_error(REGION + 5 * 4096, 16, Bresp::SlvErr);
    let pl = |i: u64| Placement { va: REGION + i * 4096, rkey: RKEY };
    // Messages 0 and 1 have two packets each, sent out of order (second packet first);
    // message 2's first packet (PSN 4) is written, then message 3 (PSN 6) arrives whole.
    let order = [(1, 0, 1, true), (0, 0, 0, false), (3, 1, 1, true), (2, 1, 0, false), (4, 2, 0, false), (6, 3, 0, true)];
    let mut frontiers = vec![];
    for (i, &(psn, msn, off, last)) in order.iter().enumerate() {
        r.on_data(HwTime(100 + i as u32), psn, false, false, Write, &ext(i as u32, msn, off, last), &pl(u64::from(psn)), &[1; 64], false, 0xC000);
        frontiers.push((r.decision_msn(), r.next_msn));
    }
    assert_eq!(frontiers, vec![(0, 0), (1, 1), (1, 1), (2, 2), (2, 2), (2, 2)], "equal while every write succeeds");
    // PSN 5 completes message 2 at the decision; its write fails, so message 2 is fatal
    // and never written complete.
    r.on_data(HwTime(200), 5, false, false, Write, &ext(6, 2, 1, true), &pl(5), &[1; 64], false, 0xC000);
    assert_eq!(r.error, Some((NakCode::RemoteOpError, 2)));
    assert_eq!((r.decision_msn(), r.next_msn), (4, 2), "the decision frontier passes message 2 and message 3 behind it");
    // Message 4 is in error, so the frontier goes no further.
    r.on_data(HwTime(300), 7, false, false, Write, &ext(7, 4, 0, true), &pl(7), &[1; 64], false, 0xC000);
    assert_eq!((r.decision_msn(), r.next_msn, r.stats.data_in_error), (4, 2, 1));
    assert_eq!((r.stats.data_new, r.stats.write_errors, r.stats.messages_completed), (7, 1, 2));
}

/// A packet refused for a message that is already complete (every offset up to its LAST
/// accepted) makes that message fatal; the frontiers then move past it when the earlier
/// message completes, and the error is not forgotten: a later message is in error. (Its
/// distance measured from a moving frontier would wrap: the serial-number compare
/// `at_or_after` needs no base.)
#[test]
fn a_fatal_message_the_frontier_has_passed_still_puts_every_later_message_in_error() {
    let mut r = Responder::new(&cfg(), 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    let pl = |i: u64| Placement { va: REGION + i * 4096, rkey: RKEY };
    // Message 0 = PSN 0 (missing for now); message 1 = PSN 1, complete.
    r.on_data(HwTime(100), 1, false, false, Write, &ext(0, 1, 0, true), &pl(1), &[1; 64], false, 0xC000);
    // A packet of message 1 past its LAST offset: NAK InvalidRequest, message 1 fatal.
    r.on_data(HwTime(200), 2, false, false, Write, &ext(1, 1, 1, true), &pl(2), &[2; 64], false, 0xC000);
    assert_eq!(r.error, Some((NakCode::InvalidRequest, 1)));
    // PSN 0 completes message 0; message 1 is complete too: both frontiers pass it.
    r.on_data(HwTime(300), 0, false, false, Write, &ext(2, 0, 0, true), &pl(0), &[3; 64], false, 0xC000);
    assert_eq!((r.decision_msn(), r.next_msn), (2, 2));
    // Message 2 is after the fatal message: in error, not placed.
    let writes = r.mem.writes;
    r.on_data(HwTime(400), 3, false, false, Write, &ext(3, 2, 0, true), &pl(3), &[4; 64], false, 0xC000);
    assert_eq!((r.stats.data_in_error, r.mem.writes), (1, writes), "in error, nothing written");
    assert!(mrnic_model::transport::responder::at_or_after(2, 1) && !mrnic_model::transport::responder::at_or_after(0, 1));
    assert!(mrnic_model::transport::responder::at_or_after(5, u32::MAX - 2), "across the 2^32 wrap");
}

/// A packet whose offset no message can have (2^24 - 1 or more: a message is below 2^24 - 1
/// packets) is refused with NAK InvalidRequest and makes its message fatal; a packet of a
/// message outside the window of the decision frontier is refused the same way but fails
/// no message (there is none to fail).
#[test]
fn an_impossible_offset_is_fatal_and_a_message_outside_the_window_is_refused_without_state() {
    use mrnic_model::transport::responder::MAX_PKT_OFFSET;
    let mut r = Responder::new(&cfg(), 0, 0, 1);
    r.register(RKEY, region(REGION, 1 << 20), true).unwrap();
    let pl = Placement { va: REGION, rkey: RKEY };
    let w = cfg().window;
    r.on_data(HwTime(100), 0, false, false, Write, &ext(0, w, 0, true), &pl, &[1; 64], false, 0xC000);
    assert!(matches!(drain(&mut r)[..], [Body::Nak(n)] if n.code == NakCode::InvalidRequest && n.msn == w));
    assert_eq!((r.stats.data_refused, r.error), (1, None), "answered, no message failed");
    // The offset check: MAX_PKT_OFFSET is accepted as an offset, one more is not.
    let psn = |off: u32| 5u32.wrapping_add(off) & 0xFF_FFFF;
    r.on_data(HwTime(200), psn(MAX_PKT_OFFSET), false, false, Write, &ext(1, 1, MAX_PKT_OFFSET, false), &pl, &[1; 64], false, 0xC000);
    assert_eq!((r.stats.data_refused, r.error), (1, None), "{:?}", r.stats);
    r.on_data(HwTime(300), psn(MAX_PKT_OFFSET + 1), false, false, Write, &ext(2, 2, MAX_PKT_OFFSET + 1, false), &pl, &[1; 64], false, 0xC000);
    assert_eq!((r.stats.data_refused, r.error), (2, Some((NakCode::InvalidRequest, 2))));
}
