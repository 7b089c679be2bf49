//! Stateful hostile-input test of the transport model: 10^6 hostile frames
//! (`MRNIC_HOSTILE_FRAMES` changes the count, `MRNIC_HOSTILE_SEED` the seed) into fresh connections, again and
//! again, interleaved with the connections' real traffic over a lossy, duplicating,
//! reordering link, and kept running after the last completion.
//!
//! Every episode is a new pair of ends with a random configuration (paths, MTU,
//! window, ACK coalescing), initial PSNs and path PSNs at and around the 2^24 wrap,
//! and in half of them MSN and SSN starting just below their wraps (2^32, 2^24). Each
//! responder has three adjacent regions (writable, read-only, another protection
//! domain) and adjacent receive buffers, so a write that strays from the region its
//! key selected lands in another allocation instead of outside all of them.
//!
//! Hostile frames are aimed at every edge: DATA PSNs at base − 1, base, base + W − 1,
//! base + W, base + 2^23 ± 1 and around; MSNs and SSNs around the next ones and the
//! window; payload lengths 0, MTU, MTU + 1; addresses at the first and last byte of
//! each region and one past; valid, read-only, foreign and unknown rkeys; path ids
//! in and out of range; ACK/NAK cumulative PSNs around the requester's window; wrong
//! QP, peer and P_Key. Half go in as typed frames, half as bytes through
//! `wire::decode`, most of those mutated first (some resealed so the deeper checks
//! are reached). Late duplicates of real frames are replayed throughout.
//!
//! Asserted: nothing panics; every DMA write lies inside the region (or receive
//! buffer) that the packet's own key (or SSN) selected, not merely inside some
//! allocation; the books balance (every received frame is counted exactly once,
//! every transmitted one too, bytes placed = bytes written); no work request and no
//! receive buffer completes twice, requester completions stay in posting order, and
//! nothing new completes from late duplicates after a clean finish; the requester's
//! invariants hold. Each receive-path counter, NAK code, completion status and
//! decoder error kind is reached at least a stated floor of times; the totals are
//! printed (`--nocapture`).

mod common;

use mrnic_model::time::HwTime;
use common::addr;
use mrnic_model::transport::{Qp, QpSetup, TransportConfig, WcStatus, WorkRequest};
use mrnic_model::transport::qp::Out;
use mrnic_model::wire::{self, data_flags, Ack, Body, DataExt, DataKind, Ecn, Frame, Nak, NakCode, Placement, Probe};
use mrnic_model::sack::Bitmap;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashSet};

const MASK: u32 = 0xFF_FFFF;
const HALF: u32 = 1 << 23;
const K_OK: u32 = 0xab01;
const K_RO: u32 = 0xab02;
const K_PD: u32 = 0xab03;
const MR: u64 = 0x7f00_0000_0000;
const RECV: u64 = 0x7e00_0000_0000;

/// One of the values, uniformly (evaluated first, so they may draw from `rng` too).
macro_rules! pick {
    ($rng:expr; $($x:expr),+ $(,)?) => {{
        let xs = [$($x),+];
        let i = $rng.gen_range(0..xs.len());
        xs[i]
    }};
}

/// Totals over the run.
#[derive(Default)]
struct Tally {
    hostile: u64,
    typed: u64,
    as_bytes: u64,
    decoded: u64,
    real: u64,
    late_duplicates: u64,
    after_last_completion: u64,
    episodes: u64,
    clean_finishes: u64,
    checked_writes: u64,
    wire_errors: BTreeMap<String, u64>,
    naks: BTreeMap<String, u64>,
    wc: BTreeMap<String, u64>,
    /// Every counter of `QpStats`, `TxStats`, `RxStats`, summed over both ends of every episode.
    counters: BTreeMap<String, u64>,
}

impl Tally {
    fn add_stats(&mut self, q: &Qp) {
        for (prefix, v) in [
            ("qp.", serde_json::to_value(q.stats).unwrap()),
            ("req.", serde_json::to_value(q.req.stats).unwrap()),
            ("rsp.", serde_json::to_value(q.rsp.stats).unwrap()),
        ] {
            for (k, x) in v.as_object().unwrap() {
                *self.counters.entry(format!("{prefix}{k}")).or_default() += x.as_u64().unwrap();
            }
        }
    }
}

/// The host range the DMA may write for this DATA frame: the region its rkey selects
/// (WRITE, same protection domain) or the receive buffer its SSN selects (SEND).
fn target(q: &Qp, f: &Frame) -> Option<(u64, u64)> {
    let Body::Data { kind, ext, placement, .. } = &f.body else { return None };
    match kind {
        DataKind::Write => q.rsp.mrs.lookup(placement.rkey).filter(|m| m.pd == q.rsp.pd).map(|m| (m.base, m.base + m.len)),
        DataKind::Send => q.rsp.rq.get(ext.ssn).map(|b| (b.addr, b.addr + b.len)),
    }
}

/// Delivers a decoded frame and checks the write it caused, if any.
fn deliver(q: &mut Qp, now: u64, f: &Frame, t: &mut Tally) {
    let region = target(q, f);
    let before = q.rsp.mem.writes;
    q.on_frame(HwTime(now as u32), f);
    let n = q.rsp.mem.writes - before;
    assert!(n <= 1, "one frame, {n} writes");
    if n == 1 {
        let (a, len) = q.rsp.mem.last_write.unwrap();
        let (lo, hi) = region.unwrap_or_else(|| panic!("a write at {a:#x} for a frame whose key selects nothing: {f:?}"));
        assert!(a >= lo && a + len <= hi, "write [{a:#x}, +{len}) outside its region [{lo:#x}, {hi:#x}): {f:?}");
        t.checked_writes += 1;
    }
    assert_eq!(q.rsp.mem.violations, 0);
}

fn kind_name(e: &wire::WireError) -> String {
    format!("{e:?}").chars().take_while(|c| c.is_alphanumeric()).collect()
}

/// Offset of the BTH in an untagged frame (Ethernet 14 + IPv4 20 + UDP 8).
const BTH_AT: usize = 42;

/// Mutations of an encoded frame; returns whether to reseal it (recompute checksums
/// and ICRC) so that the decoder's deeper checks are reached.
fn mutate(rng: &mut SmallRng, b: &mut Vec<u8>) -> bool {
    match rng.gen_range(0..9) {
        6 | 7 => {
            // One bit of the BTH or what follows (opcode, pad count, path id, SACK bit 0,
            // NAK code, lengths), resealed.
            let i = rng.gen_range(BTH_AT..b.len() - 4);
            b[i] ^= 1 << rng.gen_range(0..8);
            return true;
        }
        8 => {
            // UDP checksum off (legal): a changed bit is the ICRC's alone to catch.
            b[BTH_AT - 2] = 0;
            b[BTH_AT - 1] = 0;
            let i = rng.gen_range(BTH_AT..b.len());
            b[i] ^= 1 << rng.gen_range(0..8);
            return false;
        }
        0 | 1 => {
            // One header byte (Ethernet .. extension headers) set to a random or edge value.
            let i = rng.gen_range(0..b.len().min(96));
            b[i] = if rng.gen_bool(0.5) { rng.gen() } else { pick!(rng; 0, 0xff, 0x7f, 0x80, 1, 0x10, 0x45, 0x11) };
        }
        2 => {
            for _ in 0..rng.gen_range(1..=4) {
                let i = rng.gen_range(0..b.len());
                b[i] ^= 1 << rng.gen_range(0..8);
            }
        }
        3 => {
            let n = rng.gen_range(0..b.len());
            b.truncate(n);
        }
        4 => {
            for _ in 0..rng.gen_range(1..8) {
                b.push(rng.gen());
            }
        }
        _ => {
            let i = rng.gen_range(0..b.len());
            let n = rng.gen_range(1..=8).min(b.len() - i);
            b.drain(i..i + n);
        }
    }
    rng.gen_bool(0.5)
}

/// A hostile frame for `to`, sent (as far as the headers say) by `from`.
fn hostile(rng: &mut SmallRng, to: &Qp, from: &Qp, now: u64) -> Frame {
    let cfg = &to.cfg;
    let w = cfg.window;
    let paths = u32::from(cfg.paths);
    let path = |rng: &mut SmallRng| if rng.gen_bool(0.95) || paths == 16 { rng.gen_range(0..paths) as u8 } else { rng.gen_range(paths..16) as u8 };
    let mut ce = false;
    let out = match rng.gen_range(0..100) {
        0..=59 => {
            let base = to.rsp.sack.base;
            let psn = pick!(rng; 
                base.wrapping_sub(1),
                base,
                base + 1,
                base + w - 1,
                base + w,
                base + w + 1,
                base + HALF - 1,
                base + HALF,
                base + HALF + 1,
                base + rng.gen_range(0..w),
                base + rng.gen_range(0..w),
                (base + rng.gen_range(0..600)).wrapping_sub(300),
                rng.gen(),
            ) & MASK;
            let nm = to.rsp.next_msn;
            let msn = pick!(rng; nm.wrapping_sub(1), nm, nm, nm.wrapping_add(1), nm.wrapping_add(2), nm.wrapping_add(w - 1), nm.wrapping_add(w), nm.wrapping_add(rng.gen_range(0..4)), rng.gen());
            let hs = to.rsp.rq.head_ssn;
            let ssn = pick!(rng; hs.wrapping_sub(1), hs, hs, hs + 1, hs + 2, rng.gen()) & MASK;
            let pkt_offset = pick!(rng; 0, 0, 1, psn.wrapping_sub(base) & MASK, rng.gen_range(0..8), u32::MAX, rng.gen());
            let mut flags = 0;
            if rng.gen_bool(0.5) {
                flags |= data_flags::LAST;
            }
            if rng.gen_bool(0.1) {
                flags |= data_flags::RETX;
            }
            if rng.gen_bool(0.02) {
                flags |= 0x80;
            }
            let mtu = cfg.mtu as usize;
            // Half are plausible (inside the region, at most the MTU, the key that
            // grants the write) so that the deep paths are taken; half aim at the edges.
            let plausible = rng.gen_bool(0.5);
            let plen = if plausible { rng.gen_range(0..=mtu) } else { pick!(rng; 0, 1, 4, mtu - 1, mtu, mtu, mtu + 1, rng.gen_range(0..=mtu)) };
            let kind = if rng.gen_bool(0.6) { DataKind::Write } else { DataKind::Send };
            let rkey = if plausible { K_OK } else { pick!(rng; K_OK, K_OK, K_RO, K_PD, 0, rng.gen()) };
            let p = plen as u64;
            let va = match kind {
                DataKind::Write => {
                    let (b, l) = to.rsp.mrs.lookup(rkey).map_or((MR, 4096), |m| (m.base, m.len));
                    if plausible {
                        b + rng.gen_range(0..=l.saturating_sub(p))
                    } else {
                        pick!(rng; b.wrapping_sub(1), b, (b + l).wrapping_sub(p), (b + l + 1).wrapping_sub(p), b + l, b + rng.gen_range(0..l), u64::MAX - rng.gen_range(0..8), rng.gen())
                    }
                }
                DataKind::Send => {
                    let l = to.rsp.rq.get(ssn).map_or(64, |b| b.len);
                    if plausible {
                        rng.gen_range(0..=l.saturating_sub(p))
                    } else {
                        pick!(rng; 0, l.wrapping_sub(p), (l + 1).wrapping_sub(p), l, rng.gen_range(0..l), u64::MAX, rng.gen())
                    }
                }
            };
            let p_id = path(rng);
            let sender_pp = from.req.paths.paths.get(p_id as usize).map_or(0, |x| x.next_path_psn);
            let path_psn = pick!(rng; sender_pp, sender_pp.wrapping_sub(1), sender_pp + 1, sender_pp + rng.gen_range(0..8), rng.gen()) & MASK;
            let ext = DataExt { path_id: p_id, path_psn, msn, pkt_offset, flags, ssn, timestamp: (now as u32).wrapping_sub(rng.gen_range(0..4000)) };
            ce = rng.gen_bool(0.1);
            let body = Body::Data { kind, ext, placement: Placement { va, rkey }, payload: vec![0x5a; plen] };
            Out { psn, ack_req: rng.gen_bool(0.1), solicited: rng.gen_bool(0.2), sport: 0xC000 | rng.gen_range(0..0x4000), body }
        }
        60..=79 => {
            let c = to.req.cum_psn();
            let out_n = to.req.next_psn().wrapping_sub(c) & MASK;
            let psn = pick!(rng; c.wrapping_sub(1), c, c + 1, c + out_n, c + out_n + 1, c + rng.gen_range(0..=out_n), c + w, c + HALF, rng.gen()) & MASK;
            let mut sack = match rng.gen_range(0..4) {
                0 => Bitmap::default(),
                1 => Bitmap([u64::MAX; 4]),
                _ => Bitmap([rng.gen(), rng.gen(), rng.gen(), rng.gen()]),
            };
            if rng.gen_bool(0.97) {
                sack.0[0] &= !1; // else bit 0 set: only the bytes path can carry it (SackBaseBitSet)
            }
            let p_id = path(rng);
            let pp = to.req.paths.paths.get(p_id as usize).map_or(0, |x| x.next_path_psn);
            let ack = Ack {
                path_id: p_id,
                path_psn: pick!(rng; pp.wrapping_sub(1), pp.wrapping_sub(2), pp, pp.wrapping_sub(rng.gen_range(0..16)), rng.gen()) & MASK,
                flags: rng.gen_range(0..8),
                ecn_ce: rng.gen(),
                ecn_pkts: rng.gen(),
                rate_hint: pick!(rng; 0, 0, 0, 1, 100, 100_000, u32::MAX, rng.gen()),
                ts_echo: pick!(rng; (now as u32).wrapping_sub(rng.gen_range(0..20_000)), now as u32, rng.gen()),
                ack_delay: pick!(rng; 0, rng.gen_range(0..2000), rng.gen()),
                sack,
            };
            Out { psn, ack_req: false, solicited: false, sport: rng.gen(), body: Body::Ack(ack) }
        }
        80..=89 => {
            let c = to.req.cum_psn();
            let out_n = to.req.next_psn().wrapping_sub(c) & MASK;
            let code = pick!(rng; NakCode::BadRkey, NakCode::OutOfBounds, NakCode::AccessDenied, NakCode::NoRecvBuffer, NakCode::NoRecvBuffer, NakCode::InvalidRequest);
            let nak = Nak {
                code,
                path_id: path(rng),
                rnr_delay_us: pick!(rng; 0, 1, 10, u16::MAX),
                msn: rng.gen(),
                cumulative: pick!(rng; c, c, c.wrapping_sub(1), c + 1, c + out_n, rng.gen()) & MASK,
            };
            let psn = pick!(rng; c, c + rng.gen_range(0..=out_n), c.wrapping_sub(1), rng.gen()) & MASK;
            Out { psn, ack_req: false, solicited: false, sport: rng.gen(), body: Body::Nak(nak) }
        }
        _ => {
            let p = Probe { path_id: path(rng), port: 0xC000 | rng.gen_range(0..0x4000), seq: rng.gen_range(0..4), timestamp: now as u32 };
            let body = if rng.gen_bool(0.5) { Body::Probe(p) } else { Body::ProbeReply(p) };
            Out { psn: rng.gen::<u32>() & MASK, ack_req: false, solicited: false, sport: p.port, body }
        }
    };
    let mut f = from.wrap(out);
    if ce {
        f.ip.ecn = Ecn::Ce;
    }
    match rng.gen_range(0..100) {
        0..=1 => f.bth.dest_qp ^= 1 + rng.gen_range(0..0xFF),
        2..=3 => f.ip.src = [10, 9, 9, rng.gen()],
        4..=5 => f.bth.pkey = rng.gen_range(1..0x7FFF),
        _ => {}
    }
    f
}

/// The books of one end (after its output was drained): every frame received is
/// counted exactly once, every frame sent too; bytes placed = bytes written.
fn check_books(q: &Qp) {
    let (s, r, t) = (q.stats, q.rsp.stats, q.req.stats);
    let data = r.data_bad_path + r.data_in_error + r.data_new + r.data_refused + r.data_duplicate + r.data_out_of_window + r.data_beyond_msg_window;
    assert_eq!(
        s.rx_frames,
        s.rx_wrong_qp + s.rx_wrong_peer + s.rx_wrong_pkey + data + t.acks + t.naks + r.probes_answered + t.probe_replies,
        "received frames: {s:?} {r:?} {t:?}"
    );
    assert_eq!(s.tx_frames, r.acks_sent + r.naks_sent + r.probes_answered + t.data_sent + t.probes_sent, "sent frames: {s:?} {r:?} {t:?}");
    assert_eq!(r.bytes_placed, q.rsp.mem.bytes_written);
    assert_eq!(r.data_new, q.rsp.mem.writes, "every accepted packet is written once");
    assert_eq!(q.rsp.mem.violations, 0);
    q.req.check_invariants().unwrap();
}

struct End {
    posted: Vec<u64>,
    done: Vec<u64>,
    recv_done: HashSet<u64>,
}

fn take(q: &mut Qp, e: &mut End, t: &mut Tally) -> bool {
    let mut any = false;
    for c in q.take_completions() {
        any = true;
        assert!(!e.done.contains(&c.wr_id), "work request {} completed twice", c.wr_id);
        assert_eq!(Some(&c.wr_id), e.posted.get(e.done.len()), "completions in posting order");
        e.done.push(c.wr_id);
        let k = match c.status {
            WcStatus::RemoteError(code) => format!("RemoteError({code:?})"),
            s => format!("{s:?}"),
        };
        *t.wc.entry(k).or_default() += 1;
    }
    for c in q.take_recv_completions() {
        any = true;
        assert!(e.recv_done.insert(c.wr_id), "receive buffer {} completed twice", c.wr_id);
    }
    any
}

/// One fresh connection: at most `budget` hostile frames. A responder in the error
/// state (after a fatal NAK) refuses the rest of the connection's messages early, so
/// the episode ends `ERROR_TAIL` frames after the first one got there (the refusals
/// are exercised, and the next connection reaches deep again).
const ERROR_TAIL: u64 = 150;
fn episode(rng: &mut SmallRng, t: &mut Tally, budget: u64) -> u64 {
    let window = pick!(rng; 32u32, 64, 256);
    let mtu = pick!(rng; 64u32, 128, 256, 1024);
    let cfg = TransportConfig {
        paths: pick!(rng; 1u8, 2, 4, 8, 16),
        mtu,
        window,
        cwnd_max: window,
        cwnd_init: rng.gen_range(1..=16),
        ack_every: rng.gen_range(1..=8),
        reorder_threshold: rng.gen_range(1..=3),
        rnr_retry: pick!(rng; 2u8, 7),
        // Short timers: path RTOs, failures and probes happen within an episode.
        rto_min_ns: 2_000,
        rto_init_ns: pick!(rng; 2_000, 10_000, 50_000),
        fail_on_timeout: rng.gen_bool(0.5),
        ..Default::default()
    };
    let seq = |rng: &mut SmallRng| pick!(rng; 0, MASK, MASK - rng.gen_range(0..300), rng.gen::<u32>() & MASK);
    let (ia, ib, ip) = (seq(rng), seq(rng), seq(rng));
    let mk = |local, remote, isn, peer_isn, seed| Qp::new(&cfg, QpSetup { local, remote, isn, peer_isn, path_isn: ip, pd: 1, seed }).unwrap();
    let mut a = mk(addr(1), addr(2), ia, ib, rng.gen());
    let mut b = mk(addr(2), addr(1), ib, ia, rng.gen());
    if rng.gen_bool(0.5) {
        let msn = u32::MAX - rng.gen_range(0..3);
        let ssn = MASK - rng.gen_range(0..2);
        a.set_initial_msn_ssn(msn, ssn).unwrap();
        b.set_initial_msn_ssn(msn, ssn).unwrap();
    }
    // Adjacent regions and receive buffers in both ends.
    let l_ok = u64::from(mtu) * rng.gen_range(2..6);
    let l_ro = u64::from(mtu);
    let buf = u64::from(mtu) * 2;
    let nbufs = rng.gen_range(0..4u64);
    for q in [&mut a, &mut b] {
        q.register(K_OK, MR, l_ok, true, false).unwrap();
        q.register(K_RO, MR + l_ok, l_ro, false, false).unwrap();
        q.register_in(K_PD, MR + l_ok + l_ro, l_ro, true, false, 2).unwrap();
        for i in 0..nbufs {
            q.post_recv(1000 + i, RECV + i * buf, buf, false).unwrap();
        }
    }
    // A -> B and B -> A: WRITEs (one ending on the region's last byte) and SENDs.
    let mut ends = [End { posted: vec![], done: vec![], recv_done: HashSet::new() }, End { posted: vec![], done: vec![], recv_done: HashSet::new() }];
    for (qi, q) in [&mut a, &mut b].into_iter().enumerate() {
        for id in 0..rng.gen_range(1..4u64) {
            let (kind, len, va) = if rng.gen_bool(0.6) {
                let len = rng.gen_range(0..=l_ok);
                (DataKind::Write, len, MR + l_ok - len)
            } else {
                (DataKind::Send, rng.gen_range(0..=buf), 0)
            };
            q.post(WorkRequest { wr_id: id, kind, len, remote_va: va, rkey: K_OK, solicited: false, data: None }).unwrap();
            ends[qi].posted.push(id);
        }
    }
    let mut now = 0u64;
    let mut net: Vec<(u64, bool, Frame)> = Vec::new();
    let mut history: Vec<(bool, Frame)> = Vec::new();
    let mut fed = 0u64;
    let mut finished = false;
    let mut steps = 0u64;
    let mut error_since: Option<u64> = None;
    while fed < budget && error_since.is_none_or(|e| fed < e + ERROR_TAIL) {
        if error_since.is_none() && (a.rsp.error.is_some() || b.rsp.error.is_some()) {
            error_since = Some(fed);
        }
        steps += 1;
        now += rng.gen_range(0..1500);
        for q in [&mut a, &mut b] {
            if q.next_wakeup().is_some_and(|w| HwTime(now as u32).after_eq(w)) {
                q.on_timer(HwTime(now as u32));
            }
        }
        // Real traffic: 3 % loss, 3 % duplicated, 0-3 µs of delay (reordering).
        for (to_b, q) in [(true, &mut a), (false, &mut b)] {
            for _ in 0..8 {
                let Some(f) = q.poll_tx(HwTime(now as u32)) else { break };
                if let Body::Nak(n) = &f.body {
                    *t.naks.entry(format!("{:?}", n.code)).or_default() += 1;
                }
                if rng.gen_bool(0.03) {
                    continue;
                }
                if rng.gen_bool(0.03) {
                    net.push((now + rng.gen_range(0..3000), to_b, f.clone()));
                }
                if history.len() < 64 {
                    history.push((to_b, f.clone()));
                } else {
                    let i = rng.gen_range(0..64);
                    history[i] = (to_b, f.clone());
                }
                net.push((now + rng.gen_range(0..3000), to_b, f));
            }
        }
        let mut i = 0;
        while i < net.len() {
            if net[i].0 <= now {
                let (_, to_b, f) = net.swap_remove(i);
                t.real += 1;
                deliver(if to_b { &mut b } else { &mut a }, now, &f, t);
            } else {
                i += 1;
            }
        }
        // Hostile frames.
        for _ in 0..rng.gen_range(1..=4) {
            fed += 1;
            t.hostile += 1;
            if finished {
                t.after_last_completion += 1;
            }
            let to_b = rng.gen_bool(0.5);
            let f = if rng.gen_bool(0.05) && !history.is_empty() {
                t.late_duplicates += 1;
                let (tb, f) = history[rng.gen_range(0..history.len())].clone();
                deliver(if tb { &mut b } else { &mut a }, now, &f, t);
                continue;
            } else if to_b {
                hostile(rng, &b, &a, now)
            } else {
                hostile(rng, &a, &b, now)
            };
            let q = if to_b { &mut b } else { &mut a };
            // Typed: only a frame the decoder could have produced.
            if rng.gen_bool(0.5) && f.validate().is_ok() {
                t.typed += 1;
                deliver(q, now, &f, t);
            } else {
                t.as_bytes += 1;
                let mut bytes = wire::encode(&f);
                if rng.gen_bool(0.7) && mutate(rng, &mut bytes) {
                    wire::reseal(&mut bytes);
                }
                match wire::decode(&bytes) {
                    Ok(g) => {
                        t.decoded += 1;
                        deliver(q, now, &g, t);
                    }
                    Err(e) => *t.wire_errors.entry(kind_name(&e)).or_default() += 1,
                }
            }
        }
        let mut new = false;
        for (qi, q) in [&mut a, &mut b].into_iter().enumerate() {
            new |= take(q, &mut ends[qi], t);
        }
        if finished {
            assert!(!new, "a completion after every work request and receive buffer completed (late duplicate?)");
        }
        let all_done = ends.iter().all(|e| e.done.len() == e.posted.len());
        let bufs_done = ends.iter().all(|e| e.recv_done.len() as u64 == nbufs);
        if !finished && all_done && bufs_done {
            finished = true;
            t.clean_finishes += 1;
        }
        if steps.is_multiple_of(64) {
            a.req.check_invariants().unwrap();
            b.req.check_invariants().unwrap();
        }
    }
    // Drain the outputs (nothing delivered) and close the books.
    for (qi, q) in [&mut a, &mut b].into_iter().enumerate() {
        while let Some(f) = q.poll_tx(HwTime(now as u32)) {
            if let Body::Nak(n) = &f.body {
                *t.naks.entry(format!("{:?}", n.code)).or_default() += 1;
            }
        }
        take(q, &mut ends[qi], t);
        check_books(q);
        assert_eq!(q.req.stats.completions, ends[qi].done.len() as u64, "every completion counted once");
        t.add_stats(q);
    }
    t.episodes += 1;
    fed
}

#[test]
fn hostile_frames_into_fresh_connections_never_panic_never_stray_from_their_region_and_keep_the_books() {
    let frames: u64 = std::env::var("MRNIC_HOSTILE_FRAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let seed = std::env::var("MRNIC_HOSTILE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x6d72_6e69_6338u64);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut t = Tally::default();
    let start = std::time::Instant::now();
    while t.hostile < frames {
        let budget = rng.gen_range(500..3000).min(frames - t.hostile);
        episode(&mut rng, &mut t, budget);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "hostile {} (typed {}, bytes {}, decoded {}), late duplicates {}, real {}, episodes {} ({} finished cleanly), after last completion {}, checked writes {}, {:.1} s",
        t.hostile, t.typed, t.as_bytes, t.decoded, t.late_duplicates, t.real, t.episodes, t.clean_finishes, t.after_last_completion, t.checked_writes, secs
    );
    println!("counters: {:?}", t.counters);
    println!("NAK codes sent: {:?}", t.naks);
    println!("completion statuses: {:?}", t.wc);
    println!("decoder errors: {:?}", t.wire_errors);

    // Floors, for the default 10^6 frames (scaled for other counts).
    let scale = |n: u64| n * frames / 1_000_000;
    let get = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    let counter_floors: &[(&str, u64)] = &[
        ("qp.rx_wrong_qp", 5_000),
        ("qp.rx_wrong_peer", 5_000),
        ("qp.rx_wrong_pkey", 5_000),
        ("rsp.data_new", 20_000),
        ("rsp.data_duplicate", 20_000),
        ("rsp.data_out_of_window", 15_000),
        ("rsp.data_bad_path", 5_000),
        ("rsp.data_in_error", 100_000),
        ("rsp.data_refused", 15_000),
        ("rsp.path_gaps", 40_000),
        ("rsp.ce_marked", 3_000),
        ("rsp.acks_sent", 50_000),
        ("rsp.naks_sent", 15_000),
        ("rsp.probes_answered", 10_000),
        ("rsp.bytes_placed", 4_000_000),
        ("rsp.messages_completed", 5_000),
        ("req.acks", 100_000),
        ("req.acks_ignored", 40_000),
        ("req.naks", 40_000),
        ("req.rnr_naks", 1_500),
        ("req.probe_replies", 20_000),
        ("req.completions", 8_000),
        ("req.losses_by_path", 500),
        ("req.losses_by_timeout", 500),
        ("req.path_failures", 500),
        ("req.probes_sent", 500),
    ];
    let mut short = vec![];
    for &(k, floor) in counter_floors {
        if get(&t.counters, k) < scale(floor) {
            short.push(format!("{k} = {} < {}", get(&t.counters, k), scale(floor)));
        }
    }
    for code in ["BadRkey", "OutOfBounds", "AccessDenied", "NoRecvBuffer", "InvalidRequest"] {
        if get(&t.naks, code) < scale(400) {
            short.push(format!("NAK {code} = {} < {}", get(&t.naks, code), scale(400)));
        }
    }
    for st in ["Success", "Flushed", "RnrRetryExceeded", "RemoteError(BadRkey)", "RemoteError(OutOfBounds)", "RemoteError(AccessDenied)", "RemoteError(InvalidRequest)"] {
        if get(&t.wc, st) < scale(50) {
            short.push(format!("completion {st} = {} < {}", get(&t.wc, st), scale(50)));
        }
    }
    let kinds = [
        "Truncated", "BadEthertype", "BadIpVersion", "BadIpHeaderLength", "BadIpTotalLength", "TrailingBytes", "BadIpChecksum",
        "Fragmented", "NotUdp", "WrongUdpPort", "UdpLengthMismatch", "BadUdpChecksum", "BadIcrc", "BadTransportVersion",
        "UnknownOpcode", "LengthMismatch", "BadPadCount", "BadPathId", "SackBaseBitSet", "BadNakCode",
    ];
    for k in kinds {
        if get(&t.wire_errors, k) < scale(100) {
            short.push(format!("decoder error {k} = {} < {}", get(&t.wire_errors, k), scale(100)));
        }
    }
    assert!(t.after_last_completion >= scale(100_000), "ran on after the last completion: {}", t.after_last_completion);
    assert!(t.late_duplicates >= scale(20_000) && t.checked_writes >= scale(20_000));
    assert!(short.is_empty(), "not reached often enough:\n{}", short.join("\n"));
}
