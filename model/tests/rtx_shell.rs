//! The retransmit queue's cycle shell (`RtxShell`) against direct calls of the model
//! functions (`RetransmitQueue`, in the requester's order), and its timing contract:
//! latency, II 1, backpressure, reset, refusals and the head timer's lateness.

use mrnic_model::sack::Bitmap;
use mrnic_model::time::HwTime;
use mrnic_model::transport::rtx::{Acked, RetransmitQueue, SlotState};
use mrnic_model::transport::rtx_shell::{RtxInputs, RtxOp, RtxParams, RtxResult, RtxShell, RtxStats, RTX_LATENCY};
use mrnic_model::transport::{seq_add, seq_after, seq_after_eq, seq_dist, SEQ_MASK};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The reference: one `RetransmitQueue` per connection and the head-timer copies, each
/// op written out as the requester calls the model (not through `RtxState`).
struct Ref {
    p: RtxParams,
    q: Vec<RetransmitQueue>,
    hw: Vec<Option<u32>>,
    nd: Vec<bool>,
}

impl Ref {
    fn new(p: RtxParams) -> Self {
        Ref { p, q: (0..p.connections).map(|_| RetransmitQueue::new(p.window, p.records, p.paths, 0)).collect(), hw: vec![None; p.connections], nd: vec![false; p.connections] }
    }

    fn apply(&mut self, conn: u32, op: &RtxOp, now: HwTime) -> RtxResult {
        let p = self.p;
        let c = conn as usize;
        let mut r = RtxResult { op: op.code(), conn, ..Default::default() };
        let mut psn2 = None;
        let q = &mut self.q[c];
        match *op {
            RtxOp::Reset { isn } => {
                *q = RetransmitQueue::new(p.window, p.records, p.paths, isn);
                self.hw[c] = None;
                self.nd[c] = false;
                r.ok = true;
            }
            RtxOp::Send { new, psn, path, path_psn } => {
                if usize::from(path) < p.paths {
                    // poll_tx_on: a new PSN needs room and a free record; a retransmission
                    // is of a lost (or, F8, in-flight) PSN.
                    let psn = if new {
                        if q.has_room() && q.has_free_record() {
                            Some(q.push_new())
                        } else {
                            None
                        }
                    } else {
                        q.slot(psn).filter(|s| s.state == SlotState::Lost || s.state == SlotState::InFlight).map(|_| psn)
                    };
                    if let Some(psn) = psn {
                        q.on_transmit(psn, path, path_psn, now);
                        r.ok = true;
                        r.psn = psn;
                        r.retx = q.slot(psn).unwrap().retx;
                    }
                }
            }
            RtxOp::Ack { cum, sack } => {
                // requester `cumulative` then the SACK loop of `on_ack`.
                if !seq_after(cum, q.next) {
                    r.ok = true;
                    let tally = |a: Acked, r: &mut RtxResult| match a {
                        Acked::InFlight { path, .. } => r.n[path as usize] += 1,
                        Acked::WasLost { path } => r.l[path as usize] += 1,
                        Acked::Nothing => {}
                    };
                    if seq_after(cum, q.base) {
                        let mut psn = q.base;
                        while psn != cum {
                            tally(q.ack(psn), &mut r);
                            psn = seq_add(psn, 1);
                        }
                        q.advance_base(cum);
                    }
                    for (w, &word) in sack.0.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let i = w as u32 * 64 + bits.trailing_zeros();
                            bits &= bits - 1;
                            let psn = seq_add(cum, i);
                            if i < p.window && q.is_live(psn) {
                                tally(q.ack(psn), &mut r);
                            }
                        }
                    }
                }
            }
            RtxOp::Ldet { path, .. } | RtxOp::Drain { path } => {
                if usize::from(path) < p.paths {
                    let mut v = Vec::new();
                    if let RtxOp::Ldet { highest, .. } = *op {
                        q.path_losses(path as usize, highest, p.reorder_threshold, &mut v);
                    } else {
                        q.drain_path(path as usize, &mut v);
                    }
                    for &psn in &v {
                        q.mark_lost(psn);
                    }
                    // F11: declare_lost_on_path's two batches, split after the first PSN (path
                    // order) the path table's `loss_decreases` would accept.
                    let mut cut = v.len();
                    if let RtxOp::Ldet { ldp, .. } = *op {
                        for (j, &x) in v.iter().enumerate() {
                            if ldp.is_none() || seq_after_eq(x, ldp.unwrap()) {
                                cut = j + 1;
                                break;
                            }
                        }
                    }
                    let base = q.base;
                    let (a, b) = v.split_at(cut);
                    r.ok = true;
                    r.k = a.len() as u32;
                    r.k2 = b.len() as u32;
                    r.path = path;
                    r.psn = a.iter().copied().min_by_key(|&x| seq_dist(x, base)).unwrap_or(0);
                    psn2 = Some(a.iter().copied().max_by_key(|&x| seq_dist(x, base)).unwrap_or(0));
                    r.psn3 = b.iter().copied().min_by_key(|&x| seq_dist(x, base)).unwrap_or(0);
                    r.psn4 = b.iter().copied().max_by_key(|&x| seq_dist(x, base)).unwrap_or(0);
                } else {
                    psn2 = Some(0);
                }
            }
            RtxOp::Query { held } => {
                if let Some(psn) = q.oldest_lost(&held) {
                    r.ok = true;
                    r.psn = psn;
                    r.path = q.last_path(psn).unwrap();
                }
            }
            RtxOp::HeadTmo => {
                // on_timer's head-timer branch, without the deadline check.
                let psn = q.base;
                if let Some(path) = q.record(psn).map(|x| x.path) {
                    q.mark_lost(psn);
                    r.ok = true;
                    r.psn = psn;
                    r.path = path;
                }
            }
            RtxOp::MarkLost { psn } => {
                // on_nak, RNR, InFlight.
                r.psn = psn;
                if let Some(path) = q.record(psn).map(|x| x.path) {
                    q.mark_lost(psn);
                    r.ok = true;
                    r.path = path;
                }
            }
            RtxOp::Abandon { from } => {
                let live: Vec<u32> = q.iter().map(|(x, _)| x).collect();
                for psn in live.into_iter().filter(|&x| seq_after_eq(x, from)) {
                    if let Acked::InFlight { path, .. } = q.ack(psn) {
                        r.n[path as usize] += 1;
                    }
                }
                r.ok = true;
            }
            RtxOp::Hwait { valid, wait } => {
                self.hw[c] = valid.then_some(wait);
                r.ok = true;
            }
            RtxOp::NewData { flag } => {
                self.nd[c] = flag;
                r.ok = true;
            }
            RtxOp::Undefined(_) => {}
        }
        let q = &self.q[c];
        r.room = q.has_room();
        r.free = q.has_free_record();
        r.psn2 = psn2.unwrap_or(q.next);
        r
    }

    /// The requester's `head_deadline`.
    fn head_deadline(&self, c: usize) -> Option<HwTime> {
        let q = &self.q[c];
        if !self.p.head_on || (q.outstanding() < self.p.window / 2 && self.nd[c]) {
            return None;
        }
        Some(q.record(q.base)?.sent_at.add_ns(u64::from(self.hw[c]?)))
    }
}

/// Random, mostly plausible ops: the generator peeks at the reference (live and lost
/// PSNs, next path PSNs) so that most ops do something, with some nonsense mixed in.
struct Gen {
    rng: SmallRng,
    p: RtxParams,
    /// Per (connection, path): the next path PSN.
    ppsn: Vec<Vec<u32>>,
    /// Connections used: a few, so the same connection comes back to back often.
    hot: u32,
}

impl Gen {
    fn new(p: RtxParams, seed: u64, hot: u32) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed);
        let ppsn = (0..p.connections).map(|_| (0..p.paths).map(|_| rng.gen::<u32>() & SEQ_MASK).collect()).collect();
        Gen { rng, p, ppsn, hot: hot.min(p.connections as u32) }
    }

    fn op(&mut self, r: &Ref) -> (u32, RtxOp) {
        let rng = &mut self.rng;
        let c = if rng.gen_bool(0.1) { rng.gen_range(0..self.p.connections as u32) } else { rng.gen_range(0..self.hot) };
        let q = &r.q[c as usize];
        let w = self.p.window;
        let out = q.outstanding();
        let live = |rng: &mut SmallRng| if out == 0 { rng.gen::<u32>() & SEQ_MASK } else { seq_add(q.base, rng.gen_range(0..out)) };
        let path = if rng.gen_bool(0.02) { rng.gen_range(0..16u8) } else { rng.gen_range(0..self.p.paths as u8) };
        let next_ppsn = |g: &mut Vec<Vec<u32>>, p: u8| {
            let pp = g[c as usize].get(p as usize).copied().unwrap_or(0);
            if let Some(x) = g[c as usize].get_mut(p as usize) {
                *x = seq_add(*x, 1);
            }
            pp
        };
        let op = match rng.gen_range(0..100) {
            0 => RtxOp::Reset { isn: rng.gen::<u32>() & SEQ_MASK },
            1..=34 => RtxOp::Send { new: true, psn: 0, path, path_psn: next_ppsn(&mut self.ppsn, path) },
            35..=44 => {
                let lost = q.iter().filter(|(_, s)| s.state == SlotState::Lost).map(|(x, _)| x).nth(rng.gen_range(0..4));
                let psn = lost.unwrap_or_else(|| live(rng));
                RtxOp::Send { new: false, psn, path, path_psn: next_ppsn(&mut self.ppsn, path) }
            }
            45..=59 => {
                let cum = match rng.gen_range(0..10) {
                    0 => rng.gen::<u32>() & SEQ_MASK,
                    1..=3 => q.base,
                    _ => seq_add(q.base, rng.gen_range(0..=out)),
                };
                let mut sack = Bitmap::default();
                for _ in 0..rng.gen_range(0..8) {
                    sack.set(rng.gen_range(0..w as usize));
                }
                if rng.gen_bool(0.05) {
                    sack = Bitmap([rng.gen(), rng.gen(), rng.gen(), rng.gen()]);
                }
                // The newest live PSN (bit W - 1 when the window is full from cum).
                let top = seq_dist(seq_add(q.next, SEQ_MASK), cum);
                if out > 0 && top < w && rng.gen_bool(0.3) {
                    sack.set(top as usize);
                }
                RtxOp::Ack { cum, sack }
            }
            60..=67 => {
                let pp = self.ppsn[c as usize].get(path as usize).copied().unwrap_or(0);
                // The decrease point: none, or a PSN around the window (often inside it).
                let ldp = match rng.gen_range(0..4) {
                    0 => None,
                    1 => Some(rng.gen::<u32>() & SEQ_MASK),
                    _ => Some(seq_add(q.base, rng.gen_range(0..=out + 1))),
                };
                RtxOp::Ldet { path, highest: seq_add(pp, SEQ_MASK + 1 - rng.gen_range(0..8)), ldp }
            }
            68..=70 => RtxOp::Drain { path },
            71..=82 => {
                let mut held = Bitmap::default();
                if rng.gen_bool(0.5) {
                    for _ in 0..rng.gen_range(0..6) {
                        held.set(rng.gen_range(0..w as usize));
                    }
                }
                RtxOp::Query { held }
            }
            83..=86 => RtxOp::HeadTmo,
            87..=90 => RtxOp::MarkLost { psn: live(rng) },
            91 => RtxOp::Abandon { from: if rng.gen_bool(0.8) { live(rng) } else { rng.gen::<u32>() & SEQ_MASK } },
            92..=95 => RtxOp::Hwait { valid: rng.gen_bool(0.8), wait: rng.gen_range(0..4000) },
            96..=98 => RtxOp::NewData { flag: rng.gen() },
            _ => RtxOp::Undefined(rng.gen_range(11..16)),
        };
        (c, op)
    }
}

struct Run {
    /// Results taken from the output, in order, with the cycle they were taken in.
    got: Vec<(RtxResult, u64)>,
    /// The ops taken from the input, with their transfer cycle and `now`.
    sent: Vec<(u32, RtxOp, u64, HwTime)>,
    shell: RtxShell,
    reference: Ref,
    stats: RtxStats,
}

/// Drives `ops` random ops through a shell with `s_valid` high with probability
/// `valid_p` and `m_ready` with `ready_p`; the generator sees the reference after every
/// accepted op (the reference is applied in input order, which is the apply order). It
/// checks every cycle that a stalled output holds and that `s_ready` is low exactly
/// when the output holds a beat that is not taken.
fn run(p: RtxParams, ops: usize, seed: u64, hot: u32, valid_p: f64, ready_p: f64) -> Run {
    let mut shell = RtxShell::new(p).unwrap();
    let mut reference = Ref::new(p);
    let mut gen = Gen::new(p, seed, hot);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let (mut got, mut sent) = (Vec::new(), Vec::new());
    let mut expect = Vec::new();
    let mut pending: Option<(u32, RtxOp)> = None;
    let mut prev_out: Option<(RtxResult, bool)> = None;
    let mut cycle = 0u64;
    let mut stats = RtxStats::default();
    while got.len() < ops {
        let mut i = RtxInputs { now: (cycle as u32).wrapping_mul(3).wrapping_add(seed as u32), m_ready: rng.gen_bool(ready_p), m_tmo_ready: true, ..Default::default() };
        if sent.len() < ops && (pending.is_some() || rng.gen_bool(valid_p)) {
            let (c, op) = *pending.get_or_insert_with(|| gen.op(&reference));
            op.drive(c, &mut i);
        }
        let o = shell.step(&i);
        if let Some((m, false)) = prev_out {
            assert_eq!(o.m, Some(m), "cycle {cycle}: a result not taken must hold");
        }
        assert_eq!(o.s_ready, o.m.is_none() || i.m_ready, "cycle {cycle}: s_ready is low exactly during a stall");
        if i.s_valid && o.s_ready {
            let (c, op) = pending.take().unwrap();
            let now = HwTime(i.now);
            sent.push((c, op, cycle, now));
            expect.push(reference.apply(c, &op, now));
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
    let results: Vec<RtxResult> = got.iter().map(|g| g.0).collect();
    assert_eq!(results.len(), expect.len(), "every op accepted has exactly one result");
    for (k, (g, e)) in results.iter().zip(&expect).enumerate() {
        assert_eq!(g, e, "result {k} ({:?} on conn {})", sent[k].1, sent[k].0);
    }
    Run { got, sent, shell, reference, stats }
}

fn params(name: &str, connections: usize) -> RtxParams {
    let mut p = RtxParams::preset(name).unwrap();
    p.connections = connections;
    p
}

/// After the run: every connection's queue, head-timer bank entry and the counters
/// equal the reference's.
fn check_end_state(r: &Run) {
    let p = r.reference.p;
    for c in 0..p.connections {
        let (a, b) = (&r.shell.state.queues[c], &r.reference.q[c]);
        assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap(), "connection {c}: queue state");
        a.check_lists().unwrap();
        assert_eq!(r.shell.bank(c), r.reference.head_deadline(c), "connection {c}: head deadline bank");
    }
    let mut s = RtxStats::default();
    for (m, _) in &r.got {
        let sum = |a: &[u16; 16]| a.iter().map(|&x| u32::from(x)).sum::<u32>();
        match m.op {
            RtxOp::SEND if m.ok => {
                s.send += 1;
                s.retx += u32::from(m.retx);
            }
            RtxOp::ACK => {
                s.acked += sum(&m.n);
                s.spurious += sum(&m.l);
            }
            RtxOp::LDET => s.lost_path += m.k + m.k2,
            RtxOp::DRAIN => s.lost_drain += m.k,
            RtxOp::HEADTMO if m.ok => s.head += 1,
            _ => {}
        }
    }
    s.tmo = r.stats.tmo;
    assert_eq!(r.stats, s, "stat_* counters");
}

/// How often each op did something (so a test cannot pass on a stream of refusals).
fn assert_coverage(r: &Run) {
    let mut ok = [0usize; 16];
    for (m, _) in &r.got {
        ok[m.op as usize] += usize::from(m.ok);
    }
    for code in 0..=10 {
        assert!(ok[code] > 0, "op {code} never succeeded: {ok:?}");
    }
    let lost_found: u32 = r.got.iter().filter(|(m, _)| m.op == RtxOp::LDET).map(|(m, _)| m.k + m.k2).sum();
    let split = r.got.iter().filter(|(m, _)| m.op == RtxOp::LDET && m.k2 > 0).count();
    assert!(split > 50, "LDETs with a second batch: {split}");
    let retx = r.got.iter().filter(|(m, _)| m.op == RtxOp::SEND && m.retx).count();
    let spurious: u32 = r.got.iter().filter(|(m, _)| m.op == RtxOp::ACK).map(|(m, _)| m.l.iter().map(|&x| u32::from(x)).sum::<u32>()).sum();
    let refused = r.got.iter().filter(|(m, _)| m.op == RtxOp::SEND && !m.ok).count();
    assert!(lost_found > 100 && retx > 100 && spurious > 10 && refused > 10, "LDET lost {lost_found}, retransmissions {retx}, spurious {spurious}, refused SENDs {refused}");
}

#[test]
fn shell_results_equal_direct_model_calls_on_random_streams_core() {
    // core sizes (W 256, R 16, P 8), 32 connections, 4 of them hot: back to back on the
    // same connection most of the time.
    let r = run(params("core", 32), 100_000, 1, 4, 1.0, 1.0);
    check_end_state(&r);
    assert_coverage(&r);
}

#[test]
fn shell_results_equal_direct_model_calls_on_random_streams_tiny() {
    // tiny (C 16, W 64, R 64 = W, P 4): the window, not the records, bounds the sends.
    let r = run(RtxParams::preset("tiny").unwrap(), 100_000, 2, 16, 1.0, 1.0);
    check_end_state(&r);
    assert_coverage(&r);
}

#[test]
fn shell_results_equal_direct_model_calls_with_one_connection_back_to_back() {
    let r = run(params("core", 256), 30_000, 3, 1, 1.0, 1.0);
    check_end_state(&r);
}

#[test]
fn latency_is_exactly_11_and_one_op_per_cycle_with_m_ready_high() {
    let r = run(params("core", 16), 5_000, 4, 16, 1.0, 1.0);
    assert_eq!(RTX_LATENCY, 11);
    assert_eq!(r.sent.len(), r.got.len());
    for (k, ((_, _, t_in, _), (_, t_out))) in r.sent.iter().zip(&r.got).enumerate() {
        assert_eq!(*t_in, k as u64, "op {k}: accepted in cycle {t_in}, not back to back (II 1)");
        assert_eq!(t_out - t_in, 11, "op {k}: latency");
    }
}

#[test]
fn backpressure_holds_everything_no_op_lost_or_duplicated_results_in_order() {
    // `run` asserts the results, in order and one per op, equal the reference, that a
    // stalled output holds and that s_ready is low exactly during a stall.
    for (seed, vp, rp) in [(5, 1.0, 0.5), (6, 0.7, 0.3), (7, 0.3, 0.9), (8, 1.0, 0.05)] {
        let r = run(params("core", 16), 20_000, seed, 3, vp, rp);
        check_end_state(&r);
        let stalls = r.got.windows(2).filter(|w| w[1].1 > w[0].1 + 1).count();
        assert!(stalls > 100, "seed {seed}: only {stalls} gaps in the output");
    }
}

#[test]
fn reset_drops_ops_before_the_apply_stage_and_the_results_after_it() {
    let p = params("core", 4);
    for rst_at in [12u64, 15, 20] {
        let mut sh = RtxShell::new(p).unwrap();
        let mut out = Vec::new();
        let mut accepted = Vec::new();
        // An HWAIT and a NEWDATA arm the head timer; then new SENDs, one per cycle.
        let ops: Vec<RtxOp> = [RtxOp::Hwait { valid: true, wait: 500 }, RtxOp::NewData { flag: false }]
            .into_iter()
            .chain((0..40).map(|k| RtxOp::Send { new: true, psn: 0, path: 0, path_psn: k }))
            .collect();
        let mut it = ops.iter();
        for cycle in 0..rst_at + 30 {
            let mut i = RtxInputs { now: 1000 + cycle as u32, m_ready: true, m_tmo_ready: true, rst: cycle == rst_at, ..Default::default() };
            if cycle < rst_at {
                it.next().unwrap().drive(0, &mut i);
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
                assert_eq!(o.stats, RtxStats::default(), "rst clears the counters");
            }
        }
        // Ops accepted in cycles t <= rst_at - 7 were applied (they left register 6 before
        // the rst edge); those of cycles rst_at - 6 ..= rst_at - 1 were dropped.
        let applied = accepted.iter().filter(|&&t| t + 7 <= rst_at).count();
        let sends_applied = applied.saturating_sub(2) as u32;
        assert_eq!(sh.state.queues[0].outstanding(), sends_applied, "rst at {rst_at}");
        // Only results already in the output register in the rst cycle came out (the
        // register is cleared at the rst edge, as in SackShell): ops accepted up to cycle
        // rst_at - 11.
        assert!(out.iter().all(|&(_, t)| t <= rst_at), "rst at {rst_at}: a result came out after rst");
        assert_eq!(out.len() as u64, rst_at - 10, "rst at {rst_at}: results output");
        // The post-reset sweep cleared every deadline, the one the applied ops wrote
        // during rst included (base sent at now 1000 + 2, wait 500).
        assert_eq!(sh.bank(0), None, "rst at {rst_at}: bank after the sweep");
        assert!(sends_applied == 0 || sh.state.head_deadline(0) == Some(HwTime(1002 + 500)), "the state keeps its deadline");
        // The 30 cycles after rst covered the sweep (C = 4); the shell takes ops again.
        let mut i = RtxInputs { m_ready: true, ..Default::default() };
        RtxOp::Query { held: Bitmap::default() }.drive(0, &mut i);
        assert!(sh.step(&i).s_ready);
    }
}

#[test]
fn after_reset_s_ready_is_low_for_c_cycles_while_the_sweep_clears_every_deadline() {
    // tiny: C = 16. Arm every connection's head timer, then reset: the sweep holds s_ready
    // low for exactly C cycles after the rst cycle, the scanner fires nothing meanwhile or
    // after (every deadline is gone), and an op offered during the sweep is not taken.
    let p = RtxParams::preset("tiny").unwrap();
    let c_n = p.connections as u32;
    let mut sh = RtxShell::new(p).unwrap();
    let mut t = 0u32;
    for c in 0..c_n {
        for op in [RtxOp::Send { new: true, psn: 0, path: 0, path_psn: 0 }, RtxOp::NewData { flag: false }, RtxOp::Hwait { valid: true, wait: 1 }] {
            let mut i = RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() };
            op.drive(c, &mut i);
            assert!(sh.step(&i).s_ready);
            t += 1;
        }
    }
    for _ in 0..20 {
        sh.step(&RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() });
        t += 1;
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c).is_some()), "armed");
    sh.step(&RtxInputs { now: t, rst: true, m_ready: true, m_tmo_ready: true, ..Default::default() });
    t += 1;
    let mut low = 0;
    let mut events = 0;
    for k in 0..3 * c_n {
        let mut i = RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() };
        if k < c_n {
            // Offered during the sweep: never taken (a taken QUERY would re-arm its timer).
            RtxOp::Query { held: Bitmap::default() }.drive(k, &mut i);
        }
        let o = sh.step(&i);
        if !o.s_ready {
            assert_eq!(low, k, "s_ready is low only in the cycles right after rst");
            low += 1;
        }
        events += u32::from(o.m_tmo.is_some());
        if k == c_n / 2 {
            assert!(sh.bank(0).is_none() && sh.bank(c_n as usize - 1).is_some(), "the sweep clears entry k in its k-th cycle");
        }
        t += 1;
    }
    assert_eq!(low, c_n, "s_ready low for C cycles");
    assert_eq!(events, 0, "no deadline survives the reset");
    assert!((0..c_n as usize).all(|c| sh.bank(c).is_none()));
}

#[test]
fn a_new_send_is_refused_when_no_record_is_free_or_the_window_is_full() {
    for (name, limit, by_records) in [("core", 16u32, true), ("tiny", 64, false)] {
        let p = params(name, 2);
        let mut sh = RtxShell::new(p).unwrap();
        let mut results = Vec::new();
        let mut ops: Vec<RtxOp> = (0..=limit).map(|k| RtxOp::Send { new: true, psn: 0, path: (k % p.paths as u32) as u8, path_psn: k }).collect();
        // A SACK of the newest PSN (for tiny bit W - 1: the window is full from cum), then a
        // cumulative ACK of PSN 0.
        let mut top = Bitmap::default();
        top.set(limit as usize - 1);
        ops.push(RtxOp::Ack { cum: 0, sack: top });
        ops.push(RtxOp::Ack { cum: 1, sack: Bitmap::default() });
        ops.push(RtxOp::Send { new: true, psn: 0, path: 0, path_psn: 100 });
        for cycle in 0..ops.len() as u32 + 12 {
            let mut i = RtxInputs { now: cycle, m_ready: true, ..Default::default() };
            if let Some(op) = ops.get(cycle as usize) {
                op.drive(1, &mut i);
            }
            if let Some(m) = sh.step(&i).m {
                results.push(m);
            }
        }
        assert_eq!(results.len(), ops.len());
        for (k, m) in results[..limit as usize].iter().enumerate() {
            assert!(m.ok && m.psn == k as u32, "{name}: send {k}");
        }
        let refused = &results[limit as usize];
        assert!(!refused.ok, "{name}: send {limit} must be refused");
        assert!(!refused.free, "{name}: no record is free");
        assert_eq!(refused.room, by_records, "{name}: the window is full only when R = W");
        assert_eq!(sh.state.queues[1].outstanding(), limit, "{name}: a refused SEND allocates nothing");
        let sack = &results[limit as usize + 1];
        assert!(sack.ok && sack.n.iter().sum::<u16>() == 1 && sack.free, "{name}: the newest PSN SACKed frees its record");
        assert_eq!(sack.room, by_records, "{name}: a SACK does not move the base");
        let ack = &results[limit as usize + 2];
        assert!(ack.ok && ack.n.iter().sum::<u16>() == 1 && ack.free && ack.room);
        let again = &results[limit as usize + 3];
        assert!(again.ok && again.psn == limit, "{name}: after an ACK the next new SEND is taken");
    }
}

#[test]
fn head_timer_fires_within_c_plus_3_cycles_never_early_once_per_sweep() {
    // Full size (core, C = 256), across the wrap of `now`: every connection gets a head
    // deadline (RESET, SEND, NEWDATA 0, HWAIT), spread over two sweeps.
    let p = RtxParams::preset("core").unwrap();
    let c_n = p.connections as u64;
    let t0 = u32::MAX - 700; // now = t0 + cycle wraps 2^32 during the run
    let mut rng = SmallRng::seed_from_u64(9);
    let mut ops = Vec::new();
    for c in 0..p.connections as u32 {
        ops.push((c, RtxOp::Reset { isn: rng.gen::<u32>() & SEQ_MASK }));
        ops.push((c, RtxOp::Send { new: true, psn: 0, path: (c % 8) as u8, path_psn: 0 }));
        ops.push((c, RtxOp::NewData { flag: false }));
        ops.push((c, RtxOp::Hwait { valid: true, wait: rng.gen_range(0..2 * c_n as u32) }));
    }
    let mut sh = RtxShell::new(p).unwrap();
    let mut deadline = vec![None; p.connections];
    let mut written = vec![0u64; p.connections]; // first cycle the bank holds it
    let mut events: Vec<Vec<u64>> = vec![Vec::new(); p.connections];
    let end = ops.len() as u64 + 6 * c_n;
    for cycle in 0..end {
        let now = t0.wrapping_add(cycle as u32);
        let mut i = RtxInputs { now, m_ready: true, m_tmo_ready: true, ..Default::default() };
        if let Some((c, op)) = ops.get(cycle as usize) {
            op.drive(*c, &mut i);
            if let RtxOp::Hwait { wait, .. } = op {
                let sent = HwTime(now.wrapping_sub(2));
                deadline[*c as usize] = Some(sent.add(*wait));
                written[*c as usize] = cycle + 11; // written at edge cycle + 10, read from edge cycle + 11
            }
        }
        let o = sh.step(&i);
        for c in 0..p.connections {
            if deadline[c].is_some() && cycle + 2 == written[c] {
                assert_eq!(sh.bank(c), None, "conn {c}: not written before edge t + 10");
            }
            if deadline[c].is_some() && cycle + 1 == written[c] {
                assert_eq!(sh.bank(c), deadline[c], "conn {c}: the bank is written at edge t + 10 (4 after the apply)");
            }
        }
        if let Some(c) = o.m_tmo {
            events[c as usize].push(cycle);
        }
    }
    let mut worst = 0;
    for c in 0..p.connections {
        let d = deadline[c].unwrap();
        let due = (0..end).find(|&t| HwTime(t0.wrapping_add(t as u32)).after_eq(d)).unwrap().max(written[c]);
        let ev = &events[c];
        assert!(!ev.is_empty(), "conn {c}: never fired");
        let late = ev[0].checked_sub(due).unwrap_or_else(|| panic!("conn {c}: fired at {} before it was due at {due}", ev[0]));
        assert!(late <= c_n + 3, "conn {c}: {late} cycles late");
        worst = worst.max(late);
        for w in ev.windows(2) {
            assert_eq!(w[1] - w[0], c_n, "conn {c}: fires exactly once per sweep");
        }
    }
    assert!(worst >= c_n - 8, "the worst case was exercised: {worst}");
    eprintln!("head timer: worst lateness {worst} cycles of the bound {}", c_n + 3);
}

#[test]
fn head_timer_stops_after_headtmo_and_holds_events_under_m_tmo_ready_low() {
    let p = params("tiny", 16);
    let mut sh = RtxShell::new(p).unwrap();
    let ops = [(3u32, RtxOp::Send { new: true, psn: 0, path: 1, path_psn: 7 }), (3, RtxOp::NewData { flag: false }), (3, RtxOp::Hwait { valid: true, wait: 10 })];
    let mut rng = SmallRng::seed_from_u64(10);
    let mut taken = Vec::new();
    let mut held_cycles = 0;
    let mut prev: Option<(u32, bool)> = None;
    for cycle in 0..400u32 {
        let mut i = RtxInputs { now: cycle, m_ready: true, m_tmo_ready: rng.gen_bool(0.3), ..Default::default() };
        if let Some((c, op)) = ops.get(cycle as usize) {
            op.drive(*c, &mut i);
        }
        if cycle == 200 {
            RtxOp::HeadTmo.drive(3, &mut i);
        }
        let o = sh.step(&i);
        if let Some((c, false)) = prev {
            assert_eq!(o.m_tmo, Some(c), "cycle {cycle}: an event not taken holds");
            held_cycles += 1;
        }
        prev = o.m_tmo.map(|c| (c, i.m_tmo_ready));
        if let (Some(c), true) = (o.m_tmo, i.m_tmo_ready) {
            assert_eq!(c, 3);
            taken.push(cycle);
        }
        if cycle == 200 + 11 {
            let m = o.m.expect("HEADTMO result");
            assert!(m.ok && m.path == 1 && m.psn == 0);
        }
    }
    assert!(taken.len() > 5 && held_cycles > 5, "{} events, {held_cycles} held cycles", taken.len());
    assert_eq!(sh.outputs(&RtxInputs::default()).stats.tmo, taken.len() as u32, "stat_tmo counts the events taken");
    // HEADTMO at cycle 200 marks the base lost; its bank write lands at edge 210, after
    // which only what is already in the scanner's hit and m_tmo registers can still fire
    // (the read register re-reads while held).
    let after = taken.iter().filter(|&&t| t > 210).count();
    assert!(after <= 2, "fired {after} times after HEADTMO's bank write: {taken:?}");
    assert!(taken.iter().any(|&t| t > 150), "fired until HEADTMO: {taken:?}");
    assert!(sh.bank(3).is_none());
}

#[test]
fn decode_and_drive_are_inverse_on_every_op() {
    let p = params("core", 256);
    let mut g = Gen::new(p, 11, 256);
    let r = Ref::new(p);
    for _ in 0..10_000 {
        let (c, op) = g.op(&r);
        let mut i = RtxInputs::default();
        op.drive(c, &mut i);
        assert_eq!(RtxOp::decode(&i), op);
        assert_eq!(i.s_conn, c);
    }
}

#[test]
fn scanner_rereads_while_held_and_fires_nothing_after_a_reset_until_rearmed() {
    // tiny: C = 16, every connection armed and expired.
    let p = RtxParams::preset("tiny").unwrap();
    let c_n = p.connections as u32;
    let mut sh = RtxShell::new(p).unwrap();
    let mut ops = Vec::new();
    for c in 0..c_n {
        ops.push((c, RtxOp::Send { new: true, psn: 0, path: 0, path_psn: 0 }));
        ops.push((c, RtxOp::NewData { flag: false }));
        ops.push((c, RtxOp::Hwait { valid: true, wait: 1 }));
    }
    let arm_end = ops.len() as u32 + 12;
    // Hold m_tmo_ready low from cycle `hold`; while held, HEADTMO every connection (their
    // bank entries clear); then release.
    let hold = arm_end + 40;
    let clear_end = hold + 1 + c_n;
    let release = clear_end + 12;
    let mut events = Vec::new();
    for cycle in 0..release + 3 * c_n {
        let mut i = RtxInputs { now: cycle, m_ready: true, m_tmo_ready: !(hold..release).contains(&cycle), ..Default::default() };
        if let Some((c, op)) = ops.get(cycle as usize) {
            op.drive(*c, &mut i);
        } else if (hold + 1..clear_end).contains(&cycle) {
            RtxOp::HeadTmo.drive(cycle - hold - 1, &mut i);
        }
        let o = sh.step(&i);
        if let (Some(c), true) = (o.m_tmo, i.m_tmo_ready) {
            events.push((cycle, c));
        }
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c).is_none()));
    let before: Vec<_> = events.iter().filter(|e| e.0 < hold).collect();
    assert!(before.len() >= 30, "every armed connection fired before the hold: {}", before.len());
    // After the release only the m_tmo and hit registers' events come out: the read
    // register re-read its (now cleared) entry while held.
    let after: Vec<_> = events.iter().filter(|e| e.0 >= release).collect();
    assert_eq!(after.len(), 2, "events after the release: {after:?}");
    assert_eq!((after[0].0, after[1].0), (release, release + 1));

    // Re-arm every connection, then reset: the post-reset sweep clears every entry and
    // keeps the scanner reset, so nothing fires; after the sweep the scanner restarts at
    // connection 0: an entry armed then fires within C + 3 cycles of its bank write.
    let mut t = release + 3 * c_n;
    for c in 0..c_n {
        let mut i = RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() };
        RtxOp::Send { new: false, psn: 0, path: 0, path_psn: 1 }.drive(c, &mut i);
        assert!(sh.step(&i).m.is_none_or(|m| m.ok));
        t += 1;
    }
    for _ in 0..40 {
        sh.step(&RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() });
        t += 1;
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c).is_some()), "re-armed");
    for k in 0..=c_n {
        let o = sh.step(&RtxInputs { now: t, rst: k == 0, m_ready: true, m_tmo_ready: true, ..Default::default() });
        if k > 0 {
            assert!(o.m_tmo.is_none() && !o.s_ready, "cycle {k} of the sweep");
        }
        t += 1;
    }
    assert!((0..c_n as usize).all(|c| sh.bank(c).is_none()), "the sweep cleared every entry");
    // The sweep is over: arm connection 5 (its deadline, 1 cycle after the send, is past
    // when the bank write lands 10 cycles after the transfer).
    let start = t;
    let mut first = None;
    for k in 0..(3 * c_n) {
        let mut i = RtxInputs { now: t, m_ready: true, m_tmo_ready: true, ..Default::default() };
        if k == 0 {
            RtxOp::Send { new: false, psn: 0, path: 0, path_psn: 2 }.drive(5, &mut i);
            assert!(sh.step(&i).s_ready, "s_ready is back after C cycles");
        } else if let Some(c) = sh.step(&i).m_tmo {
            first.get_or_insert((t - start, c));
        }
        t += 1;
    }
    let (at, c) = first.expect("the armed connection fired");
    assert_eq!(c, 5);
    assert!(at <= 10 + c_n + 3, "fired {at} cycles after its transfer (bank write at 10, bound C + 3 after it)");
}
