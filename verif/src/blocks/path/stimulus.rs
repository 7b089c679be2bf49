//! Seeded random stimulus for the path table.
//!
//! A shadow [`PathTables`] is updated as each op is offered-and-taken (ops apply in issue
//! order), so the generator can aim: SELECTs with and without an avoided path and with
//! random planes; ACKPs whose cumulative PSN sits around the ECN window end (so windows
//! close, the divider runs and windows are cut) with RTT samples, CE marks and path PSNs
//! around the highest acknowledged and the next path PSN; LOSS batches that keep the
//! model's rule (every PSN of the batch on an arc [first, last] before `next`, shorter than
//! 2^23) with the decrease point around the arc; LOSTTMO, RELEASE, TIMEOUT, FAIL, PSENT,
//! PTMO, PREPLY (mostly answering the outstanding probe), TMOCHK, ops on paths `>= P` and
//! undefined codes. A connection is reset only by RESET_CONN followed by P RESET_PATHs in
//! path order, nothing else of that connection in between (the shell's defined use); a
//! sequence cut by `rst` (its last beats still in registers 1..=3) is started again.
//! A few connections are hot and the same path comes back to back often (forwarding and
//! the §2.9 bubble); `m_ready`, `m_tmo_ready` and `s_valid` go through phases; random
//! resets; `now` advances by 1 to ~2000 ns a cycle (phases), from a seeded start, near the
//! 2^32 wrap for some seeds, so RTO and probe deadlines expire.
//!
//! Options: `power_up` holds reset for three cycles first; `no_resets` drops the random
//! resets; profile `hot` uses one connection only.

use crate::kit::StimOpts;
use mrnic_model::time::HwTime;
use mrnic_model::transport::path::PathState;
use mrnic_model::transport::path_shell::{PathInputs, PathOp, PathParams, PathTables};
use mrnic_model::transport::SEQ_MASK;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["hot"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathMix {
    pub cycles: u64,
    pub offered: u64,
    pub resets: u64,
    pub conn_resets: u64,
    pub restarted: u64,
    pub selects: u64,
    pub ackps: u64,
    pub losses: u64,
    pub probes: u64,
    pub others: u64,
}

impl PathMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("offered", self.offered),
            ("resets", self.resets),
            ("conn_resets", self.conn_resets),
            ("restarted", self.restarted),
            ("selects", self.selects),
            ("ackps", self.ackps),
            ("losses", self.losses),
            ("probes", self.probes),
            ("others", self.others),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct PathStimulus {
    rng: SmallRng,
    params: PathParams,
    shadow: PathTables,
    hot: Vec<u32>,
    held: Option<(u32, PathOp)>,
    /// The reset sequence being issued: (connection, next beat: 0 = RESET_CONN, 1 + p).
    seq: Option<(u32, usize, u16, u32)>,
    /// Connections of the last three taken beats that were reset beats.
    recent: VecDeque<Option<u32>>,
    last: (u32, u8),
    cur: PathInputs,
    phase_left: u32,
    p_valid: f64,
    p_ready: f64,
    p_tmo_ready: f64,
    p_hot: f64,
    step_max: u32,
    reset_left: u32,
    opts: StimOpts,
    prologue_rst: u32,
    pub mix: PathMix,
}

impl PathStimulus {
    pub fn with_opts(seed: u64, params: PathParams, opts: &StimOpts) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5041_5448);
        let c = params.connections;
        let hot = (0..4).map(|_| rng.gen_range(0..c as u32)).collect();
        let now = if seed % 2 == 0 { u32::MAX - rng.gen_range(0..2_000_000) } else { rng.gen() };
        let cur = PathInputs { now, m_ready: true, m_tmo_ready: true, ..Default::default() };
        Self {
            rng,
            shadow: PathTables::new(params.clone()),
            params,
            hot,
            held: None,
            seq: None,
            recent: VecDeque::from(vec![None; 3]),
            last: (0, 0),
            cur,
            phase_left: 0,
            p_valid: 1.0,
            p_ready: 1.0,
            p_tmo_ready: 1.0,
            p_hot: 0.7,
            step_max: 1,
            reset_left: 0,
            opts: opts.clone(),
            prologue_rst: if opts.power_up { 3 } else { 0 },
            mix: PathMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        if self.opts.power_up {
            1
        } else {
            0
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..2000);
        (self.p_valid, self.p_ready) = match r.gen_range(0..6) {
            0 | 1 => (1.0, 1.0),
            2 => (r.gen_range(0.2..1.0), r.gen_range(0.2..1.0)),
            3 => (1.0, 0.1),
            4 => (0.3, 1.0),
            _ => (1.0, r.gen_range(0.5..1.0)),
        };
        self.p_tmo_ready = if r.gen_bool(0.7) { 1.0 } else { r.gen_range(0.0..1.0) };
        self.p_hot = if self.opts.profile == "hot" { 1.0 } else { r.gen_range(0.3..0.95) };
        self.step_max = [1, 20, 300, 2000][r.gen_range(0..4)];
    }

    fn conn(&mut self) -> u32 {
        if self.opts.profile == "hot" {
            return self.hot[0];
        }
        if self.rng.gen_bool(self.p_hot) {
            self.hot[self.rng.gen_range(0..self.hot.len())]
        } else {
            self.rng.gen_range(0..self.params.connections as u32)
        }
    }

    fn paths(&self) -> u8 {
        self.params.paths() as u8
    }

    fn path(&mut self, c: u32) -> u8 {
        if self.rng.gen_bool(0.03) {
            return self.rng.gen_range(0..16);
        }
        if self.last.0 == c && self.rng.gen_bool(0.4) {
            return self.last.1;
        }
        self.rng.gen_range(0..self.paths())
    }

    fn near(&mut self, x: u32, below: u32, above: u32) -> u32 {
        (i64::from(x) + self.rng.gen_range(-(i64::from(below))..=i64::from(above))).rem_euclid(1 << 24) as u32
    }

    fn small(&mut self, max: u32) -> u32 {
        match self.rng.gen_range(0..10) {
            0 => 0,
            1 => self.rng.gen_range(0..512),
            _ => self.rng.gen_range(0..=max),
        }
    }

    fn make_op(&mut self, c: u32) -> PathOp {
        let p = self.path(c);
        let np = self.paths();
        let pi = usize::from(p);
        let row = (pi < usize::from(np)).then(|| self.shadow.tables[c as usize].paths[pi].clone());
        // one connection in four (not in the one-hot profile) is congested and healthy: only
        // SELECT, ACKs (some packets ECN-marked, windows of several ACKs), RELEASE and
        // TMOCHK, no loss, timeout or failure. Its window is set by additive increase and the
        // ECN cut alone, and SELECTs fill it, so alpha, the divider and the product show in
        // which paths have room (elsewhere losses pin the window at its minimum)
        let congested = c % 4 == 1 && self.opts.profile != "hot";
        let x = if congested {
            match self.rng.gen_range(0..100) {
                0..=44 => 0,
                45..=84 => 250,
                85..=89 => 450,
                90..=94 => 680,
                _ => 940,
            }
        } else {
            self.rng.gen_range(0..1000)
        };
        match x {
            0..=249 => {
                self.mix.selects += 1;
                let all = ((1u32 << np) - 1) as u16;
                let plane = if self.rng.gen_bool(0.8) { all } else { self.rng.gen::<u16>() & all };
                let avoid = self.rng.gen_bool(0.3).then(|| if self.rng.gen_bool(0.9) { self.rng.gen_range(0..np) } else { self.rng.gen_range(0..16) });
                PathOp::Select { avoid, plane }
            }
            250..=449 => {
                self.mix.ackps += 1;
                let (inf, awe, hap, npp) = row.as_ref().map_or((0, 0, 0, 0), |r| (r.inflight, r.alpha_window_end, r.highest_acked_path_psn, r.next_path_psn));
                let n = if congested { self.rng.gen_range(0..3) } else { self.small(inf.min(8) + 1) };
                let nl = if self.rng.gen_bool(0.2) { self.rng.gen_range(0..3) } else { 0 };
                let rtt = self.rng.gen_bool(0.7).then(|| match self.rng.gen_range(0..10) {
                    0 => 0,
                    1 => self.rng.gen(),
                    _ => self.rng.gen_range(1_000..400_000),
                });
                let pkts: u8 = self.rng.gen_range(0..9);
                // the congested class: a window spans several ACKs, some of them marked
                // (and now and then one more mark than packets, which the model clamps)
                let ce: u8 = if congested {
                    if self.rng.gen_bool(0.3) { self.rng.gen_range(0..=pkts + 1) } else { 0 }
                } else if self.rng.gen_bool(0.5) {
                    0
                } else {
                    self.rng.gen_range(0..=pkts.saturating_add(1))
                };
                // a jump: anywhere, or to the far edge of the serial-number half from the
                // window end (awe + 2^23 - 2 ..= awe + 2^23 + 1: a close just inside, none just
                // outside; it crosses the 24-bit wrap whenever awe >= 2^23)
                let cum = match self.rng.gen_range(0..20) {
                    0 => self.rng.gen::<u32>() & SEQ_MASK,
                    1 => (awe + (1 << 23) + self.rng.gen_range(0..4) - 2) & SEQ_MASK,
                    _ if congested => self.near(awe, 12, 2),
                    _ => self.near(awe, 3, 6),
                };
                let next = self.near(cum, 0, 30);
                let ppsn = match self.rng.gen_range(0..4) {
                    0 => self.rng.gen::<u32>() & SEQ_MASK,
                    1 => self.near(hap, 3, 3),
                    _ => self.near(npp, 4, 1),
                };
                PathOp::AckP { path: p, n, nl, rtt, ce, pkts, cum, next, ppsn }
            }
            450..=529 => {
                let inf = row.as_ref().map_or(0, |r| r.inflight);
                let n = self.small(inf.min(8) + 1);
                PathOp::AckB { path: p, n, nl: if self.rng.gen_bool(0.4) { self.rng.gen_range(0..3) } else { 0 } }
            }
            530..=639 => {
                self.mix.losses += 1;
                let ldp = row.as_ref().map_or(0, |r| r.last_decrease_psn);
                let k = match self.rng.gen_range(0..10) {
                    0 => 0,
                    1 => self.rng.gen_range(0..512),
                    _ => self.rng.gen_range(1..5),
                };
                let next = if self.rng.gen_bool(0.1) { self.rng.gen::<u32>() & SEQ_MASK } else { self.near(ldp, 5, 60) };
                let d1 = if self.rng.gen_bool(0.05) { self.rng.gen_range(1..=1u32 << 23) } else { self.rng.gen_range(1..50) };
                let d2 = self.rng.gen_range(1..=d1);
                let first = (next + (1 << 24) - d1) & SEQ_MASK;
                let last = (next + (1 << 24) - d2) & SEQ_MASK;
                PathOp::Loss { path: p, k, first, last, next }
            }
            640..=679 => PathOp::LostTmo { path: p, k: self.small(3) },
            680..=719 => PathOp::Release { path: p, n: self.small(3) },
            720..=769 => PathOp::Timeout { path: p, next: self.rng.gen::<u32>() & SEQ_MASK },
            770..=799 => PathOp::Fail { path: p },
            800..=849 => {
                self.mix.probes += 1;
                PathOp::Psent { path: p }
            }
            850..=889 => {
                self.mix.probes += 1;
                PathOp::Ptmo { path: p }
            }
            890..=939 => {
                self.mix.probes += 1;
                let (seq, port) = row.as_ref().map_or((0, 0), |r| (r.probe_seq, 0xC000 | r.entropy));
                let probing = row.as_ref().is_some_and(|r| r.state == PathState::Probing);
                if probing && self.rng.gen_bool(0.8) {
                    PathOp::Preply { path: p, seq, port }
                } else {
                    PathOp::Preply { path: p, seq: if self.rng.gen_bool(0.5) { seq } else { self.rng.gen() }, port: if self.rng.gen_bool(0.5) { port } else { self.rng.gen() } }
                }
            }
            940..=979 => PathOp::TmoChk { path: p },
            980..=989 => PathOp::Undefined(self.rng.gen_range(14..16)),
            _ => PathOp::Undefined(255),
        }
    }

    /// The next beat of the reset sequence in progress, if any.
    fn seq_beat(&mut self) -> Option<(u32, PathOp)> {
        let (c, k, seed, isn) = self.seq?;
        if k == 0 {
            Some((c, PathOp::ResetConn { seed }))
        } else {
            Some((c, PathOp::ResetPath { path: (k - 1) as u8, isn }))
        }
    }

    fn start_seq(&mut self, c: u32) {
        let seed = if self.rng.gen_bool(0.1) { 0 } else { self.rng.gen() };
        let isn = if self.rng.gen_bool(0.3) { (1 << 24) - self.rng.gen_range(1..300) } else { self.rng.gen_range(0..1 << 24) };
        self.seq = Some((c, 0, seed, isn));
    }

    /// The inputs of the next cycle; `taken`: the previous cycle's offer was transferred.
    pub fn next_inputs(&mut self, taken: bool) -> PathInputs {
        self.mix.cycles += 1;
        let step = if self.step_max <= 1 { 1 } else { self.rng.gen_range(1..=self.step_max) };
        let now = self.cur.now.wrapping_add(step);
        let took = taken && !self.cur.rst;
        if took {
            if let Some((c, op)) = self.held.take() {
                self.shadow.apply(c, &op, HwTime(self.cur.now));
                let reset_beat = matches!(op, PathOp::ResetConn { .. } | PathOp::ResetPath { .. });
                self.recent.pop_front();
                self.recent.push_back(reset_beat.then_some(c));
                self.last = (c, op.path().unwrap_or(0));
                if let Some((sc, k, seed, isn)) = self.seq {
                    if reset_beat && sc == c {
                        self.seq = if k == usize::from(self.paths()) { None } else { Some((sc, k + 1, seed, isn)) };
                    }
                }
            }
        }
        if self.prologue_rst > 0 {
            self.prologue_rst -= 1;
            self.cur = PathInputs { rst: true, now, m_ready: true, m_tmo_ready: true, ..Default::default() };
            return self.cur;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let mut rst = false;
        if self.reset_left > 0 {
            self.reset_left -= 1;
            rst = true;
        } else if !self.opts.no_resets && self.rng.gen_ratio(1, 30_000) {
            self.reset_left = self.rng.gen_range(0..3);
            rst = true;
            self.mix.resets += 1;
        }
        if rst {
            // Beats in registers 1..=3 are dropped: a reset sequence among the last three
            // taken beats (or in progress) is started again, from RESET_CONN.
            let cut = self.seq.map(|s| s.0).or_else(|| self.recent.iter().flatten().last().copied());
            if let Some(c) = cut {
                self.mix.restarted += 1;
                self.start_seq(c);
                if matches!(self.held, Some((hc, _)) if hc == c) || self.held.is_some() {
                    self.held = None;
                }
            }
            self.recent = VecDeque::from(vec![None; 3]);
        }
        let m_ready = self.rng.gen_bool(self.p_ready);
        let m_tmo_ready = self.rng.gen_bool(self.p_tmo_ready);
        if self.held.is_none() && !rst && self.rng.gen_bool(self.p_valid) {
            if self.seq.is_none() && self.rng.gen_ratio(1, 150) {
                let c = self.conn();
                self.mix.conn_resets += 1;
                self.start_seq(c);
            }
            let beat = match self.seq_beat() {
                Some(b) => Some(b),
                None => {
                    let c = self.conn();
                    let op = self.make_op(c);
                    (!matches!(op, PathOp::Undefined(255))).then_some((c, op))
                }
            };
            if let Some((c, op)) = beat {
                if !matches!(op, PathOp::ResetConn { .. } | PathOp::ResetPath { .. } | PathOp::Select { .. } | PathOp::AckP { .. } | PathOp::Loss { .. }) {
                    self.mix.others += 1;
                }
                self.held = Some((c, op));
                self.mix.offered += 1;
            }
        }
        let mut i = PathInputs { now, m_ready, m_tmo_ready, ..Default::default() };
        if let Some((c, op)) = self.held {
            op.drive(c, &mut i);
        }
        i.rst = rst;
        i.m_ready = m_ready;
        i.m_tmo_ready = m_tmo_ready;
        i.now = now;
        self.cur = i;
        i
    }
}
