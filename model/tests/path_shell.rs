//! The path table's cycle shell (`PathShell`) against direct calls of the model
//! functions (`PathTable`, in the requester's order), and its timing contract: latency,
//! II 1, the §2.9 bubble, backpressure, reset, "no path has room", failure and re-probe,
//! and the RTO / probe timers' lateness at `core`'s full size across the wrap of `now`.

use mrnic_model::time::HwTime;
use mrnic_model::transport::path::{PathState, PathTable, ENTROPY_NONE};
use mrnic_model::transport::path_shell::{PathInputs, PathOp, PathParams, PathResult, PathShell, PathStats, KIND_DATA, KIND_NONE, KIND_PROBE_DUE, PATH_LATENCY};
use mrnic_model::transport::{seq_add, SEQ_MASK};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The reference: one `PathTable` per connection, each op written out as the requester
/// calls the model (not through `PathTables`).
struct Ref {
    p: PathParams,
    t: Vec<PathTable>,
}

/// What the counters count per op, from the reference.
#[derive(Default, Clone, Copy)]
struct Extra {
    lost: u32,
    decrease: bool,
    cut: bool,
    reroll: bool,
}

impl Ref {
    fn new(p: PathParams) -> Self {
        let t = vec![PathTable::new(&p.transport, 0, 0); p.connections];
        Ref { p, t }
    }

    fn dl(&self, c: usize, p: usize) -> Option<(HwTime, bool)> {
        let t = &self.t[c];
        if let Some(d) = t.rto_deadline(p) {
            return Some((d, false));
        }
        t.probe_deadline(p).map(|d| (d, true))
    }

    fn apply(&mut self, conn: u32, op: &PathOp, now: HwTime) -> (PathResult, Extra) {
        let np = self.p.paths();
        let t = &mut self.t[conn as usize];
        let hw0 = t.head_wait();
        let mut r = PathResult { op: op.code(), conn, ..Default::default() };
        let mut x = Extra::default();
        let mut row = None;
        match *op {
            PathOp::ResetConn { seed } => t.reset_conn(u64::from(seed)),
            PathOp::Select { avoid, plane } => {
                // poll_tx_on: a probe due first (F9: reported, sent by PSENT), then select + on_send.
                let on = |p: usize| plane >> p & 1 == 1;
                if let Some(p) = (0..np).find(|&p| t.paths[p].probe_due && on(p)) {
                    r.kind = KIND_PROBE_DUE;
                    row = Some(p);
                } else if let Some(p) = t.select_masked(avoid.map(usize::from), plane & ((1 << np) - 1)) {
                    r.kind = KIND_DATA;
                    r.ppsn = t.on_send(p, now);
                    row = Some(p);
                }
            }
            PathOp::Undefined(_) => {}
            _ => {
                let p = usize::from(op.path().unwrap());
                if p < np {
                    row = Some(p);
                    match *op {
                        PathOp::ResetPath { isn, .. } => {
                            if t.paths[p].entropy == ENTROPY_NONE {
                                t.reset_row(p, isn);
                            }
                        }
                        PathOp::Psent { .. } => r.seq = t.on_probe_sent(p, now),
                        PathOp::Ptmo { .. } => {
                            let e = t.paths[p].stat_rerolls;
                            t.on_probe_timeout(p);
                            x.reroll = t.paths[p].stat_rerolls > e;
                            r.flag = x.reroll;
                        }
                        PathOp::Preply { seq, port, .. } => r.flag = t.on_probe_reply(p, seq, port, now),
                        PathOp::AckB { n, nl, .. } => t.on_acked(p, n, nl, now),
                        PathOp::AckP { n, nl, rtt, ce, pkts, cum, next, ppsn, .. } => {
                            // on_ack: flush_acked (this path's share), on_rtt, on_ecn, the gate.
                            t.on_acked(p, n, nl, now);
                            if let Some(s) = rtt {
                                t.on_rtt(p, s);
                            }
                            let cuts = t.paths[p].stat_ecn_cuts;
                            t.on_ecn(p, ce, pkts, cum, next);
                            x.cut = t.paths[p].stat_ecn_cuts > cuts;
                            r.flag = t.on_ack_path_psn(p, ppsn);
                        }
                        PathOp::Loss { k, first, last, next, .. } => {
                            // The window and strikes before, to see whether it decreased.
                            let (cw, st, ld, da) = (t.paths[p].cwnd, t.paths[p].strikes, t.paths[p].last_decrease_psn, t.paths[p].decreased_any);
                            r.flag = t.on_lost_batch(p, k, first, last, next);
                            let y = &t.paths[p];
                            x.decrease = y.strikes != st || (y.decreased_any, y.last_decrease_psn) != (da, ld) || (k > 0 && y.cwnd != cw && y.strikes > st);
                            x.lost = k;
                        }
                        PathOp::LostTmo { k, .. } => {
                            for _ in 0..k {
                                t.on_lost_by_timeout(p);
                            }
                            x.lost = k;
                        }
                        PathOp::Release { n, .. } => {
                            for _ in 0..n {
                                t.release(p);
                            }
                        }
                        PathOp::Timeout { next, .. } => r.flag = t.on_timeout(p, next),
                        PathOp::Fail { .. } => {
                            t.fail(p);
                            x.reroll = true;
                        }
                        PathOp::TmoChk { .. } => {
                            let hit = |d: Option<HwTime>| d.is_some_and(|d| now.after_eq(d));
                            r.tmo_hit = u8::from(hit(t.rto_deadline(p))) | u8::from(hit(t.probe_deadline(p))) << 1;
                        }
                        _ => unreachable!(),
                    }
                }
            }
        }
        if let Some(p) = row {
            r.path = p as u8;
            r.port = 0xC000 | t.paths[p].entropy;
        }
        let hw = t.head_wait();
        if hw != hw0 {
            r.hw_valid = true;
            r.hw_on = hw.is_some();
            r.hw_wait = hw.unwrap_or(0) as u32;
        }
        (r, x)
    }
}

/// Random, mostly plausible ops: the generator peeks at the reference (rows, probe
/// sequence numbers, path PSNs) so most ops do something; resets are whole sequences
/// (RESET_CONN then RESET_PATH x P, consecutive beats).
struct Gen {
    rng: SmallRng,
    p: PathParams,
    hot: u32,
    hot_paths: u8,
    next: Vec<u32>,
    queue: Vec<(u32, PathOp)>,
}

impl Gen {
    fn new(p: PathParams, seed: u64, hot: u32, hot_paths: u8) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed);
        let next = (0..p.connections).map(|_| rng.gen::<u32>() & SEQ_MASK).collect();
        Gen { rng, hot: hot.min(p.connections as u32), hot_paths: hot_paths.min(p.paths() as u8), p, next, queue: Vec::new() }
    }

    fn op(&mut self, r: &Ref) -> (u32, PathOp) {
        if !self.queue.is_empty() {
            return self.queue.remove(0);
        }
        let np = self.p.paths();
        let rng = &mut self.rng;
        let c = if rng.gen_bool(0.1) { rng.gen_range(0..self.p.connections as u32) } else { rng.gen_range(0..self.hot) };
        let path = if rng.gen_bool(0.02) { rng.gen_range(0..16u8) } else { rng.gen_range(0..self.hot_paths) };
        let t = &r.t[c as usize];
        let row = t.paths.get(usize::from(path));
        let inflight = row.map_or(0, |x| x.inflight);
        let nx = self.next[c as usize];
        let rpsn = |rng: &mut SmallRng| rng.gen::<u32>() & SEQ_MASK;
        let op = match rng.gen_range(0..100) {
            0 => {
                let seed = if rng.gen_bool(0.1) { 0 } else { rng.gen() };
                let isn = rpsn(rng);
                self.queue = (0..np as u8).map(|p| (c, PathOp::ResetPath { path: p, isn })).collect();
                PathOp::ResetConn { seed }
            }
            1..=25 => {
                self.next[c as usize] = seq_add(nx, 1);
                let avoid = rng.gen_bool(0.3).then(|| rng.gen_range(0..np as u8 + 1));
                let plane = if rng.gen_bool(0.8) { 0xFFFF } else { rng.gen::<u16>() };
                PathOp::Select { avoid, plane }
            }
            26..=33 => PathOp::AckB { path, n: rng.gen_range(0..=inflight + 1), nl: rng.gen_range(0..2) },
            34..=50 => {
                let pkts = rng.gen_range(0..8u8);
                let pp = row.map_or(0, |x| x.next_path_psn);
                let ppsn = if rng.gen_bool(0.9) { seq_add(pp, SEQ_MASK + 1 - rng.gen_range(0..6)) } else { rpsn(rng) };
                PathOp::AckP {
                    path,
                    n: rng.gen_range(0..=inflight.min(4)),
                    nl: rng.gen_range(0..2),
                    rtt: rng.gen_bool(0.7).then(|| rng.gen_range(0..300_000)),
                    ce: if rng.gen_bool(0.3) { rng.gen_range(0..=pkts) } else { 0 },
                    pkts,
                    cum: seq_add(nx, SEQ_MASK + 1 - rng.gen_range(0..40)),
                    next: nx,
                    ppsn,
                }
            }
            51..=62 => {
                let ld = row.map_or(0, |x| x.last_decrease_psn);
                let first = if rng.gen_bool(0.4) { seq_add(ld, rng.gen_range(0..3)) } else { seq_add(nx, SEQ_MASK + 1 - rng.gen_range(1..60)) };
                let next = if rng.gen_bool(0.5) { seq_add(first, rng.gen_range(1..20)) } else { nx };
                PathOp::Loss { path, k: rng.gen_range(0..=inflight.min(3) + 1), first, last: seq_add(first, rng.gen_range(0..4)), next }
            }
            63..=65 => PathOp::LostTmo { path, k: rng.gen_range(0..=inflight + 1) },
            66..=68 => PathOp::Release { path, n: rng.gen_range(0..=inflight + 1) },
            69..=72 => PathOp::Timeout { path, next: nx },
            73..=75 => PathOp::Fail { path },
            76..=81 => {
                // A PSENT on a path with a probe due, if any.
                let due = (0..np).find(|&p| t.paths[p].probe_due).map_or(path, |p| p as u8);
                PathOp::Psent { path: due }
            }
            82..=84 => PathOp::Ptmo { path },
            85..=92 => {
                let probing = (0..np).find(|&p| t.paths[p].state == PathState::Probing).map_or(path, |p| p as u8);
                let (seq, port) = t.paths.get(usize::from(probing)).map_or((0, 0), |x| (x.probe_seq, 0xC000 | x.entropy));
                let seq = if rng.gen_bool(0.85) { seq } else { seq.wrapping_add(1) };
                PathOp::Preply { path: probing, seq, port }
            }
            93..=97 => PathOp::TmoChk { path },
            _ => PathOp::Undefined(rng.gen_range(14..16)),
        };
        (c, op)
    }
}

struct Run {
    got: Vec<(PathResult, u64)>,
    sent: Vec<(u32, PathOp, u64)>,
    /// Cycles with a §2.9 bubble.
    bubbles: Vec<u64>,
    shell: PathShell,
    reference: Ref,
    extra: Vec<Extra>,
    stats: PathStats,
}

/// Drives `ops` random ops through a shell (`s_valid` with probability `valid_p`,
/// `m_ready` with `ready_p`); the reference is applied in input order. Checks every
/// cycle that a stalled output holds and that `s_ready` is low exactly during a stall
/// or a §2.9 bubble.
fn run(p: PathParams, ops: usize, seed: u64, hot: u32, hot_paths: u8, valid_p: f64, ready_p: f64) -> Run {
    let mut shell = PathShell::new(p.clone()).unwrap();
    let mut reference = Ref::new(p.clone());
    let mut gen = Gen::new(p, seed, hot, hot_paths);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let (mut got, mut sent, mut bubbles) = (Vec::new(), Vec::new(), Vec::new());
    let (mut expect, mut extra) = (Vec::new(), Vec::new());
    let mut pending: Option<(u32, PathOp)> = None;
    let mut prev_out: Option<(PathResult, bool)> = None;
    let mut cycle = 0u64;
    let mut stats = PathStats::default();
    while got.len() < ops {
        let mut i = PathInputs { now: (cycle as u32).wrapping_mul(97).wrapping_add(seed as u32), m_ready: rng.gen_bool(ready_p), m_tmo_ready: true, ..Default::default() };
        if sent.len() < ops && (pending.is_some() || rng.gen_bool(valid_p)) {
            let (c, op) = *pending.get_or_insert_with(|| gen.op(&reference));
            op.drive(c, &mut i);
        }
        let b0 = shell.bubbles;
        let o = shell.step(&i);
        let bubble = shell.bubbles != b0;
        if bubble {
            bubbles.push(cycle);
        }
        if let Some((m, false)) = prev_out {
            assert_eq!(o.m, Some(m), "cycle {cycle}: a result not taken must hold");
        }
        assert_eq!(o.s_ready, (o.m.is_none() || i.m_ready) && !bubble, "cycle {cycle}: s_ready is low exactly during a stall or a bubble");
        if i.s_valid && o.s_ready {
            let (c, op) = pending.take().unwrap();
            sent.push((c, op, cycle));
            let (r, x) = reference.apply(c, &op, HwTime(i.now));
            expect.push(r);
            extra.push(x);
        }
        if let Some(m) = o.m {
            if i.m_ready {
                got.push((m, cycle));
            }
            prev_out = Some((m, i.m_ready));
        } else {
            prev_out = None;
        }
        stats = o.stats;
        cycle += 1;
        assert!(cycle < 100 * ops as u64 + 1000, "no progress");
    }
    assert_eq!(got.len(), expect.len(), "every op accepted has exactly one result");
    for (k, (g, e)) in got.iter().zip(&expect).enumerate() {
        assert_eq!(g.0, *e, "result {k} ({:?} on conn {})", sent[k].1, sent[k].0);
    }
    // Let the last bank writes land.
    for _ in 0..PATH_LATENCY + 2 {
        shell.step(&PathInputs { m_ready: true, m_tmo_ready: true, ..Default::default() });
    }
    Run { got, sent, bubbles, shell, reference, extra, stats }
}

fn params(name: &str, connections: usize) -> PathParams {
    let mut p = PathParams::preset(name).unwrap();
    p.connections = connections;
    p
}

/// After the run: every connection's table and every `pt_dl` entry equal the
/// reference's, and the counters equal the sums over the results.
fn check_end_state(r: &Run) {
    let p = &r.reference.p;
    for c in 0..p.connections {
        assert_eq!(r.shell.state.tables[c], r.reference.t[c], "connection {c}: table");
        for q in 0..p.paths() {
            assert_eq!(r.shell.bank(c, q), r.reference.dl(c, q), "connection {c} path {q}: pt_dl");
        }
    }
    let mut s = PathStats::default();
    for ((m, _), x) in r.got.iter().zip(&r.extra) {
        if m.op == PathOp::SELECT {
            s.select += u32::from(m.kind == KIND_DATA);
            s.select_none += u32::from(m.kind == KIND_NONE);
            s.probe_due += u32::from(m.kind == KIND_PROBE_DUE);
        }
        s.lost += x.lost;
        s.decrease += u32::from(x.decrease);
        s.ecn_cut += u32::from(x.cut);
        s.timeout += u32::from(m.op == PathOp::TIMEOUT && (m.port != 0));
        s.reroll += u32::from(x.reroll);
    }
    s.tmo = r.stats.tmo;
    assert_eq!(r.stats, s, "stat_* counters");
}

/// Every op did something, and the interesting outcomes happened.
fn assert_coverage(r: &Run) {
    let n = |f: &dyn Fn(&PathResult) -> bool| r.got.iter().filter(|(m, _)| f(m)).count();
    let kinds = [KIND_NONE, KIND_DATA, KIND_PROBE_DUE].map(|k| n(&|m| m.op == PathOp::SELECT && m.kind == k));
    let flags = [PathOp::PTMO, PathOp::PREPLY, PathOp::ACKP, PathOp::LOSS, PathOp::TIMEOUT].map(|op| n(&|m| m.op == op && m.flag));
    let hits = n(&|m| m.tmo_hit != 0);
    let hw = n(&|m| m.hw_valid);
    let cuts = r.extra.iter().filter(|x| x.cut).count();
    let decs = r.extra.iter().filter(|x| x.decrease).count();
    let resets = n(&|m| m.op == PathOp::RESET_CONN);
    eprintln!("kinds {kinds:?} flags {flags:?} tmo hits {hits} hw {hw} cuts {cuts} decreases {decs} resets {resets} bubbles {}", r.bubbles.len());
    assert!(kinds.iter().all(|&k| k > 50), "SELECT kinds {kinds:?}");
    assert!(flags.iter().all(|&k| k > 20), "flags {flags:?}");
    assert!(hits > 10 && hw > 50 && cuts > 20 && decs > 50 && resets > 50 && r.bubbles.len() > 5);
}

#[test]
fn shell_results_equal_direct_model_calls_on_random_streams_core() {
    // core (P 8), 32 connections, 4 of them hot: the same connection back to back most
    // of the time, the same path often.
    let r = run(params("core", 32), 100_000, 1, 4, 8, 1.0, 1.0);
    check_end_state(&r);
    assert_coverage(&r);
}

#[test]
fn shell_results_equal_direct_model_calls_on_random_streams_tiny() {
    // tiny (C 16, P 4): every connection.
    let r = run(PathParams::preset("tiny").unwrap(), 100_000, 2, 16, 4, 1.0, 1.0);
    check_end_state(&r);
    assert_coverage(&r);
}

#[test]
fn shell_results_equal_direct_model_calls_with_one_connection_and_one_path_back_to_back() {
    let r = run(params("core", 256), 30_000, 3, 1, 1, 1.0, 1.0);
    check_end_state(&r);
    assert!(r.bubbles.len() > 20, "same path back to back: {} bubbles", r.bubbles.len());
}

#[test]
fn latency_is_exactly_25_and_one_op_per_cycle_with_m_ready_high() {
    // Every op is accepted in the cycle after the previous one except in a bubble cycle,
    // and its latency is 25 plus the bubbles while it was in registers 1..=17.
    let r = run(params("core", 16), 20_000, 4, 16, 8, 1.0, 1.0);
    assert_eq!(PATH_LATENCY, 25);
    let mut expect_in = 0u64;
    for (k, ((_, _, t_in), (_, t_out))) in r.sent.iter().zip(&r.got).enumerate() {
        while r.bubbles.binary_search(&expect_in).is_ok() {
            expect_in += 1;
        }
        assert_eq!(*t_in, expect_in, "op {k}: accepted in cycle {t_in} (II 1 but for bubbles)");
        expect_in += 1;
        // A bubble delays the ops in registers 1..=17 (it is at most 8 registers from the end).
        let b = r.bubbles.iter().filter(|&&c| c > *t_in && c + 8 <= *t_out).count() as u64;
        assert_eq!(t_out - t_in, 25 + b, "op {k}: latency");
    }
    let plain = r.sent.iter().zip(&r.got).filter(|((_, _, a), (_, b))| b - a == 25).count();
    assert!(plain > 15_000 && !r.bubbles.is_empty(), "{plain} at 25, {} bubbles", r.bubbles.len());
}

#[test]
fn backpressure_holds_everything_no_op_lost_or_duplicated_results_in_order() {
    for (seed, vp, rp) in [(5, 1.0, 0.5), (6, 0.7, 0.3), (7, 0.3, 0.9), (8, 1.0, 0.05)] {
        let r = run(params("core", 16), 20_000, seed, 3, 4, vp, rp);
        check_end_state(&r);
        let gaps = r.got.windows(2).filter(|w| w[1].1 > w[0].1 + 1).count();
        assert!(gaps > 100, "seed {seed}: only {gaps} gaps in the output");
    }
}

/// Drives `ops` (connection, op), one per cycle while `s_ready`, with `m_ready` high;
/// returns (result, transfer cycle, output cycle) per op.
fn drive(sh: &mut PathShell, ops: &[(u32, PathOp)], t0: u32) -> Vec<(PathResult, u64, u64)> {
    let mut sent = Vec::new();
    let mut out = Vec::new();
    let mut k = 0;
    let mut cycle = 0u64;
    while out.len() < ops.len() {
        let mut i = PathInputs { now: t0.wrapping_add(cycle as u32), m_ready: true, m_tmo_ready: true, ..Default::default() };
        if let Some((c, op)) = ops.get(k) {
            op.drive(*c, &mut i);
        }
        let o = sh.step(&i);
        if i.s_valid && o.s_ready {
            sent.push(cycle);
            k += 1;
        }
        if let Some(m) = o.m {
            out.push((m, sent[out.len()], cycle));
        }
        cycle += 1;
        assert!(cycle < 10_000);
    }
    out
}

#[test]
fn two_multiplications_of_one_path_back_to_back_take_one_bubble_cycle() {
    let p = params("core", 4);
    let loss = |path, first, next| PathOp::Loss { path, k: 1, first, last: first, next };
    // Each case: a LOSS that decreases on (0, 0), then the op under test, then an ACKB.
    // The second LOSS at `first` = the first's `next` decreases again.
    let cases: [(&str, (u32, PathOp), bool); 6] = [
        ("LOSS then decreasing LOSS, same path", (0, loss(0, 10, 20)), true),
        ("LOSS then LOSS that cannot decrease, same path (the type decides)", (0, loss(0, 5, 20)), true),
        ("LOSS then ACKP, same path", (0, PathOp::AckP { path: 0, n: 0, nl: 0, rtt: None, ce: 0, pkts: 0, cum: 0, next: 0, ppsn: 0 }), true),
        ("LOSS then LOSS on another path", (0, loss(1, 10, 20)), false),
        ("LOSS then LOSS on another connection", (1, loss(0, 10, 20)), false),
        ("LOSS then ACKB (cannot multiply), same path", (0, PathOp::AckB { path: 0, n: 1, nl: 0 }), false),
    ];
    for (name, second, bubble) in cases {
        let mut sh = PathShell::new(p.clone()).unwrap();
        let pre: Vec<(u32, PathOp)> = (0..4).map(|_| (0, PathOp::Select { avoid: None, plane: 1 })).chain((0..4).map(|_| (1, PathOp::Select { avoid: None, plane: 1 }))).collect();
        drive(&mut sh, &pre, 0);
        let ops = [(0, loss(0, 0, 10)), second, (2, PathOp::AckB { path: 3, n: 0, nl: 0 })];
        let out = drive(&mut sh, &ops, 100);
        let lat: Vec<u64> = out.iter().map(|&(_, a, b)| b - a).collect();
        let ins: Vec<u64> = out.iter().map(|&(_, a, _)| a).collect();
        if bubble {
            // The bubble is at X: the ops in registers 1..=17 (the second and third) wait one
            // cycle, the first (register 18) does not.
            assert_eq!(lat, [25, 26, 26], "{name}: latencies");
            assert_eq!(ins, [0, 1, 2], "{name}: the second op was accepted; the bubble is at X");
            assert_eq!((out[1].2 - out[0].2, out[2].2 - out[1].2), (2, 1), "{name}: one empty output cycle");
            assert_eq!(sh.bubbles, 1, "{name}");
        } else {
            assert_eq!(lat, [25, 25, 25], "{name}: latencies");
            assert_eq!(sh.bubbles, 0, "{name}");
        }
    }
    // The bubble holds s_ready low in its cycle: an op offered then waits one cycle.
    let mut sh = PathShell::new(p).unwrap();
    drive(&mut sh, &(0..4).map(|_| (0, PathOp::Select { avoid: None, plane: 1 })).collect::<Vec<_>>(), 0);
    let ops: Vec<(u32, PathOp)> = [(0, loss(0, 0, 10)), (0, loss(0, 10, 20))].into_iter().chain((0..20).map(|k| (3, PathOp::TmoChk { path: (k % 8) as u8 }))).collect();
    let out = drive(&mut sh, &ops, 0);
    let ins: Vec<u64> = out.iter().map(|&(_, a, _)| a).collect();
    // Ops 0 and 1 at cycles 0 and 1 reach X (register 17) in cycles 16 and 17; the bubble
    // is decided in cycle 17, when op 17 is offered: it waits one cycle.
    assert_eq!(&ins[..18], &(0..18).collect::<Vec<u64>>()[..]);
    assert_eq!(ins[18], 19, "the op offered in the bubble cycle is taken one cycle later");
}

#[test]
fn reset_drops_ops_before_the_apply_stage_and_the_results_after_it() {
    let p = params("core", 4);
    for rst_at in [20u64, 27, 35] {
        let mut sh = PathShell::new(p.clone()).unwrap();
        let mut out = Vec::new();
        let mut accepted = Vec::new();
        for cycle in 0..rst_at + 40 {
            let mut i = PathInputs { now: 1000 + cycle as u32, m_ready: true, m_tmo_ready: true, rst: cycle == rst_at, ..Default::default() };
            if cycle < rst_at {
                PathOp::Select { avoid: None, plane: 0xFF }.drive(0, &mut i);
            }
            let o = sh.step(&i);
            if i.rst {
                assert!(!o.s_ready, "s_ready is low during rst");
            }
            if o.s_ready && i.s_valid {
                accepted.push(cycle);
            }
            if let Some(m) = o.m {
                out.push((m, cycle));
            }
            if cycle == rst_at + 1 {
                assert_eq!(o.stats, PathStats::default(), "rst clears the counters");
            }
        }
        // Applied: the ops that left register 3 before the rst edge (accepted at t <= rst_at - 4).
        let applied = accepted.iter().filter(|&&t| t + 4 <= rst_at).count() as u32;
        let inflight: u32 = sh.state.tables[0].paths.iter().map(|x| x.inflight).sum();
        assert_eq!(inflight, applied.min(8 * 16), "rst at {rst_at}: ops applied");
        assert!(out.iter().all(|&(_, t)| t <= rst_at), "rst at {rst_at}: a result came out after rst");
        assert_eq!(out.len() as u64, rst_at.saturating_sub(24), "rst at {rst_at}: results output");
        // Applied ops past the apply stage still wrote their deadlines (all 8 paths sent
        // on once the 8th op was applied; the 8th's write lands 21 edges after its apply).
        if applied >= 8 {
            for q in 0..8 {
                assert_eq!(sh.bank(0, q), sh.state.deadline(0, q), "rst at {rst_at}: pt_dl[{q}]");
            }
        }
        let mut i = PathInputs { m_ready: true, ..Default::default() };
        PathOp::TmoChk { path: 0 }.drive(0, &mut i);
        assert!(sh.step(&i).s_ready, "takes ops again after rst");
    }
}

#[test]
fn a_connection_reset_of_p_plus_1_beats_equals_a_new_table_and_restores_the_paths() {
    let p = params("core", 4);
    let mut sh = PathShell::new(p.clone()).unwrap();
    // Dirty connection 2, then reset it with seed s and path ISN i.
    let mut ops: Vec<(u32, PathOp)> = (0..30).map(|k| (2, PathOp::Select { avoid: None, plane: 0xFF ^ (1 << (k % 8)) })).collect();
    ops.push((2, PathOp::Fail { path: 3 }));
    ops.push((2, PathOp::Timeout { path: 1, next: 5 }));
    let (seed, isn) = (0xBEEFu16, 0x123456u32);
    ops.push((2, PathOp::ResetConn { seed }));
    ops.extend((0..8).map(|q| (2, PathOp::ResetPath { path: q, isn })));
    let out = drive(&mut sh, &ops, 0);
    let want = PathTable::new(&p.transport, u64::from(seed), isn);
    assert_eq!(sh.state.tables[2], want, "RESET_CONN + 8 RESET_PATH = PathTable::new");
    for (q, (m, _, _)) in out[out.len() - 8..].iter().enumerate() {
        assert_eq!(m.port, 0xC000 | want.paths[q].entropy, "RESET_PATH {q} reports the new port");
    }
    // The pt_dl entries of the reset rows are cleared (no timer runs).
    for q in 0..8 {
        assert_eq!(sh.bank(2, q), None);
    }
    // A RESET_PATH outside a reset sequence is ignored by the shell (undefined for the RTL).
    let before = sh.state.tables[2].clone();
    drive(&mut sh, &[(2, PathOp::ResetPath { path: 0, isn: 7 })], 0);
    assert_eq!(sh.state.tables[2], before);
}

#[test]
fn select_answers_no_path_has_room_without_hanging() {
    // tiny: 4 paths of cwnd_init packets each. SELECT until every window is full: the next
    // SELECT answers NONE at latency 25, like any other; an ACK opens one path again.
    let p = PathParams::preset("tiny").unwrap();
    let w = p.transport.cwnd_init;
    let mut sh = PathShell::new(p).unwrap();
    let n = 4 * w as usize + 3;
    let mut ops: Vec<(u32, PathOp)> = (0..n).map(|_| (5, PathOp::Select { avoid: None, plane: 0xF })).collect();
    ops.push((5, PathOp::Select { avoid: None, plane: 0 }));
    ops.push((5, PathOp::AckB { path: 2, n: 1, nl: 0 }));
    ops.push((5, PathOp::Select { avoid: Some(2), plane: 0xF }));
    ops.push((5, PathOp::Select { avoid: Some(2), plane: 0xF }));
    let out = drive(&mut sh, &ops, 0);
    assert!(out.iter().all(|&(_, a, b)| b - a == 25), "every SELECT answers at latency 25");
    let data = out[..n].iter().filter(|(m, _, _)| m.kind == KIND_DATA).count();
    assert_eq!(data, 4 * w as usize, "the windows hold {w} each");
    assert!(out[4 * w as usize..n + 1].iter().all(|(m, _, _)| m.kind == KIND_NONE && m.path == 0 && m.port == 0), "no path has room: NONE");
    assert_eq!(out[n + 2].0.kind, KIND_DATA);
    assert_eq!(out[n + 2].0.path, 2, "the avoided path is taken when it is the only one with room");
    assert_eq!(out[n + 3].0.kind, KIND_NONE);
    let s = sh.outputs(&PathInputs::default()).stats;
    assert_eq!((s.select, s.select_none), (4 * w + 1, 5));
}

#[test]
fn a_failed_path_gets_fresh_entropy_and_is_probed_back() {
    let mut p = params("core", 2);
    p.transport.max_probes = 2;
    let mut sh = PathShell::new(p.clone()).unwrap();
    let ports0: Vec<u16> = (0..8).map(|q| 0xC000 | sh.state.tables[1].paths[q].entropy).collect();
    let r = drive(&mut sh, &[(1, PathOp::Fail { path: 5 }), (1, PathOp::Select { avoid: None, plane: 0xFF })], 0);
    let port = r[0].0.port;
    assert!(port != ports0[5] && !ports0.contains(&port), "fresh entropy: {port:#x} vs {ports0:x?}");
    assert_eq!((r[1].0.kind, r[1].0.path, r[1].0.port), (KIND_PROBE_DUE, 5, port), "SELECT reports the probe due first");
    // A plane without path 5 sends data instead.
    let r = drive(&mut sh, &[(1, PathOp::Select { avoid: None, plane: 0xFF & !(1 << 5) })], 0);
    assert_eq!(r[0].0.kind, KIND_DATA);
    assert_ne!(r[0].0.path, 5);
    // The probe goes out; it times out once (max_probes 2: same entropy), then again
    // (re-rolled); the reply on the current port is accepted.
    let r = drive(&mut sh, &[(1, PathOp::Psent { path: 5 }), (1, PathOp::Ptmo { path: 5 }), (1, PathOp::Psent { path: 5 }), (1, PathOp::Ptmo { path: 5 })], 0);
    assert_eq!((r[0].0.seq, r[0].0.port), (1, port));
    assert!(!r[1].0.flag && r[1].0.port == port, "first probe timeout keeps the entropy");
    let port2 = r[3].0.port;
    assert!(r[3].0.flag && port2 != port, "second re-rolls");
    let r = drive(&mut sh, &[(1, PathOp::Psent { path: 5 }), (1, PathOp::Preply { path: 5, seq: 3, port }), (1, PathOp::Preply { path: 5, seq: 3, port: port2 }), (1, PathOp::Select { avoid: None, plane: 1 << 5 })], 1000);
    assert_eq!(r[0].0.seq, 3);
    assert!(!r[1].0.flag, "a reply on the old port is refused");
    assert!(r[2].0.flag, "the reply on the current port is accepted");
    let x = &sh.state.tables[1].paths[5];
    assert_eq!((x.state, x.cwnd), (PathState::Ok, p.transport.cwnd_init << 8), "OK again at cwnd_init (M3)");
    assert_eq!((r[3].0.kind, r[3].0.path, r[3].0.port), (KIND_DATA, 5, port2), "data on the probed-back path");
    let s = sh.outputs(&PathInputs::default()).stats;
    assert_eq!((s.reroll, s.probe_due), (2, 1));
}

#[test]
fn rto_and_probe_timers_fire_within_c_plus_3_cycles_never_early_at_core_full_size_across_the_now_wrap() {
    // core: C 256 x P 8 = 2048 deadlines. Even paths: a DATA SELECT starts the RTO and an
    // RTT sample sets rto = 3 s (rto_min 1); odd paths: an RTT sample, FAIL and PSENT
    // arm the probe deadline (probe_sent_at + rto). Spread over about two sweeps.
    let mut p = PathParams::preset("core").unwrap();
    p.transport.rto_min_ns = 1;
    p.transport.rto_init_ns = 100_000;
    let (c_n, np) = (p.connections as u64, p.paths());
    let t0 = u32::MAX - 3000;
    let mut rng = SmallRng::seed_from_u64(9);
    let mut ops = Vec::new();
    for c in 0..c_n as u32 {
        for q in 0..np as u8 {
            let rtt = PathOp::AckP { path: q, n: 0, nl: 0, rtt: Some(rng.gen_range(1..(c_n as u32 * 2 / 3))), ce: 0, pkts: 0, cum: 0, next: 0, ppsn: 0 };
            if q % 2 == 0 {
                ops.push((c, PathOp::Select { avoid: None, plane: 1 << q }));
                ops.push((c, rtt));
            } else {
                ops.push((c, rtt));
                ops.push((c, PathOp::Fail { path: q }));
                ops.push((c, PathOp::Psent { path: q }));
            }
        }
    }
    let mut sh = PathShell::new(p).unwrap();
    // The last op of (c, q): its transfer cycle (no stall and no bubble in this stream).
    let mut last = vec![0u64; c_n as usize * np];
    for (k, (c, op)) in ops.iter().enumerate() {
        let q = op.path().unwrap_or_else(|| if let PathOp::Select { plane, .. } = op { plane.trailing_zeros() as u8 } else { 0 });
        last[*c as usize * np + usize::from(q)] = k as u64;
    }
    let end = ops.len() as u64 + 6 * c_n;
    let mut events: Vec<Vec<(u64, bool)>> = vec![Vec::new(); c_n as usize * np];
    let mut deadline = vec![None; c_n as usize * np];
    for cycle in 0..end {
        let now = t0.wrapping_add(cycle as u32);
        let mut i = PathInputs { now, m_ready: true, m_tmo_ready: true, ..Default::default() };
        if let Some((c, op)) = ops.get(cycle as usize) {
            op.drive(*c, &mut i);
        }
        let o = sh.step(&i);
        assert!(o.s_ready);
        for (e, &t) in last.iter().enumerate() {
            let (c, q) = (e / np, e % np);
            if cycle == t + 24 {
                // Written at edge t + 24 (21 after the apply), from the state after the op.
                deadline[e] = sh.state.deadline(c as u32, q);
                assert!(deadline[e].is_some_and(|(_, pr)| pr == (q % 2 == 1)), "({c}, {q}) armed: {:?}", deadline[e]);
                assert_eq!(sh.bank(c, q), deadline[e], "({c}, {q}): written at edge t + 24");
            }
            if cycle + 1 == t + 24 {
                assert_ne!(sh.bank(c, q), sh.state.deadline(c as u32, q), "({c}, {q}): not written before edge t + 24");
            }
        }
        if let Some(m) = o.m_tmo {
            for q in 0..np {
                for (mask, pr) in [(m.rto, false), (m.probe, true)] {
                    if mask >> q & 1 == 1 {
                        events[m.conn as usize * np + q].push((cycle, pr));
                    }
                }
            }
        }
    }
    let mut worst = 0;
    for e in 0..c_n as usize * np {
        let (d, pr) = deadline[e].unwrap();
        let written = last[e] + 25;
        let due = (0..end).find(|&t| HwTime(t0.wrapping_add(t as u32)).after_eq(d)).unwrap().max(written);
        let ev = &events[e];
        assert!(!ev.is_empty(), "({}, {}): never fired", e / np, e % np);
        assert!(ev.iter().all(|&(_, p)| p == pr), "RTO and probe events on their own masks");
        // Exactly: the first read of the entry (at the edge of a cycle k = c mod C, from the
        // edge after the write on) whose compare (with `now` of cycle k + 1) finds it
        // expired puts it on m_tmo in cycle k + 3.
        let c = (e / np) as u64;
        let k = (written..end).find(|&k| k % c_n == c && HwTime(t0.wrapping_add(k as u32 + 1)).after_eq(d)).unwrap();
        assert_eq!(ev[0].0, k + 3, "({}, {}): the first event's cycle", e / np, e % np);
        let late = ev[0].0.checked_sub(due).unwrap_or_else(|| panic!("({}, {}): fired at {} before due {due}", e / np, e % np, ev[0].0));
        assert!(late <= c_n + 3, "({}, {}): {late} cycles late", e / np, e % np);
        worst = worst.max(late);
        for w in ev.windows(2) {
            assert_eq!(w[1].0 - w[0].0, c_n, "once per sweep");
        }
    }
    assert!(worst >= c_n - 8, "the worst case was exercised: {worst}");
    eprintln!("path timers: worst lateness {worst} cycles of the bound {}", c_n + 3);
}

#[test]
fn tmochk_reports_the_exact_expiry_at_its_now_and_holds_events_under_m_tmo_ready_low() {
    let mut p = params("tiny", 16);
    p.transport.rto_min_ns = 1;
    p.transport.rto_init_ns = 40;
    let mut sh = PathShell::new(p).unwrap();
    // A send on (3, 1) at now 0 (cycle 0): deadline 40. TMOCHK at now 39 and 40.
    let mut rng = SmallRng::seed_from_u64(10);
    let (mut taken, mut held, mut hits) = (Vec::new(), 0, Vec::new());
    let mut prev = None;
    for cycle in 0..300u32 {
        let mut i = PathInputs { now: cycle, m_ready: true, m_tmo_ready: rng.gen_bool(0.3), ..Default::default() };
        match cycle {
            0 => PathOp::Select { avoid: None, plane: 1 << 1 }.drive(3, &mut i),
            39 | 40 => PathOp::TmoChk { path: 1 }.drive(3, &mut i),
            200 => PathOp::AckB { path: 1, n: 1, nl: 0 }.drive(3, &mut i),
            _ => {}
        }
        let o = sh.step(&i);
        if let Some(m) = o.m {
            if m.op == PathOp::TMOCHK {
                hits.push(m.tmo_hit);
            }
        }
        if let Some((m, false)) = prev {
            assert_eq!(o.m_tmo, Some(m), "cycle {cycle}: an event not taken holds");
            held += 1;
        }
        prev = o.m_tmo.map(|m| (m, i.m_tmo_ready));
        if let (Some(m), true) = (o.m_tmo, i.m_tmo_ready) {
            assert_eq!((m.conn, m.rto, m.probe), (3, 2, 0));
            taken.push(cycle);
        }
    }
    assert_eq!(hits, [0, 1], "TMOCHK: not expired at 39, expired at 40");
    assert!(taken.len() > 3 && held > 3, "{} events, {held} held", taken.len());
    assert_eq!(sh.outputs(&PathInputs::default()).stats.tmo, taken.len() as u32);
    // The ACK at 200 empties the path (timer stopped): written at edge 224; at most the
    // scanner's hit and m_tmo registers fire after it.
    assert!(taken.iter().filter(|&&t| t > 224).count() <= 2, "{taken:?}");
    assert!(taken.iter().any(|&t| t > 150));
    assert_eq!(sh.bank(3, 1), None);
}

#[test]
fn decode_and_drive_are_inverse_on_every_op() {
    let p = params("core", 256);
    let mut g = Gen::new(p.clone(), 11, 256, 8);
    let r = Ref::new(p);
    for _ in 0..20_000 {
        let (c, op) = g.op(&r);
        let mut i = PathInputs::default();
        op.drive(c, &mut i);
        assert_eq!(PathOp::decode(&i), op);
        assert_eq!(i.s_conn, c);
    }
}

#[test]
fn scanner_rereads_while_held_and_restarts_from_connection_0_after_reset() {
    // tiny: C 16. Every connection's path 0 sends at about now 0 with rto 40: all expire.
    let mut p = PathParams::preset("tiny").unwrap();
    p.transport.rto_min_ns = 1;
    p.transport.rto_init_ns = 40;
    let c_n = p.connections as u32;
    let mut sh = PathShell::new(p).unwrap();
    let arm_end = c_n + 30;
    // Hold m_tmo_ready low from `hold`; while held, an ACK empties every path 0 (timer
    // stopped, entry cleared 25 cycles later); then release.
    let hold = arm_end + 40;
    let clear_end = hold + 1 + c_n;
    let release = clear_end + 30;
    let mut events = Vec::new();
    for cycle in 0..release + 3 * c_n {
        let mut i = PathInputs { now: cycle, m_ready: true, m_tmo_ready: !(hold..release).contains(&cycle), ..Default::default() };
        if cycle < c_n {
            PathOp::Select { avoid: None, plane: 1 }.drive(cycle, &mut i);
        } else if (hold + 1..clear_end).contains(&cycle) {
            PathOp::AckB { path: 0, n: 1, nl: 0 }.drive(cycle - hold - 1, &mut i);
        }
        let o = sh.step(&i);
        if let (Some(m), true) = (o.m_tmo, i.m_tmo_ready) {
            events.push((cycle, m.conn));
        }
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c, 0).is_none()));
    assert!(events.iter().filter(|e| e.0 < hold).count() >= 30, "every armed connection fired before the hold");
    // After the release only the m_tmo and hit registers' events come out: the read
    // register re-read its (now cleared) entry while held.
    let after: Vec<_> = events.iter().filter(|e| e.0 >= release).collect();
    assert_eq!(after.len(), 2, "events after the release: {after:?}");
    assert_eq!((after[0].0, after[1].0), (release, release + 1));
    // Re-arm, then reset: the scanner restarts at connection 0 with empty registers, so
    // the first event is connection 0's, 4 cycles after the rst cycle.
    let mut t = release + 3 * c_n;
    for c in 0..c_n {
        let mut i = PathInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() };
        PathOp::Select { avoid: None, plane: 1 }.drive(c, &mut i);
        sh.step(&i);
        t += 1;
    }
    for _ in 0..100 {
        sh.step(&PathInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() });
        t += 1;
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c, 0).is_some()), "re-armed");
    let rst_at = t;
    let mut first = None;
    for k in 0..10 {
        let o = sh.step(&PathInputs { now: t, rst: k == 0, m_ready: true, m_tmo_ready: true, ..Default::default() });
        if k > 0 && first.is_none() {
            first = o.m_tmo.map(|m| (t - rst_at, m.conn));
        }
        t += 1;
    }
    assert_eq!(first, Some((4, 0)), "first event after rst: (cycles after the rst cycle, connection)");
}
