//! Seeded random stimulus for the retransmit queue.
//!
//! A shadow [`RtxState`] is updated as each op is offered-and-taken (ops apply in issue
//! order), so the generator can aim: SENDs of new PSNs on random paths with a strictly
//! increasing path PSN per (connection, path) (the requester's order, which LDET's
//! per-record compare relies on: `docs/design/sender-rtl.md` §2.5), retransmissions of
//! lost or in-flight PSNs, ACKs with a cumulative PSN anywhere in `[base, next]` (and
//! sometimes behind the base or past next: refused) and random SACK bitmaps, LDETs around
//! the path's highest PSN with and without a decrease point, DRAINs, QUERYs with random held
//! masks, HEADTMOs, MARKLOSTs, ABANDONs, head waits short enough for the head timer to fire,
//! new-data flags, RESETs and undefined codes. A few connections are hot (back-to-back
//! same-connection hazards); `m_ready`, `m_tmo_ready` and `s_valid` go through phases
//! (full rate, random, long stalls); random resets; `now` counts cycles from a seeded start
//! near the 2^32 wrap for some seeds.
//!
//! Options: `power_up` holds reset for three cycles then RESETs every connection;
//! `no_resets` drops the random resets; profile `hot` uses one connection only.

use crate::kit::StimOpts;
use mrnic_model::sack::Bitmap;
use mrnic_model::time::HwTime;
use mrnic_model::transport::rtx::SlotState;
use mrnic_model::transport::rtx_shell::{RtxInputs, RtxOp, RtxParams, RtxState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub const PROFILES: &[&str] = &["hot"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtxMix {
    pub cycles: u64,
    pub offered: u64,
    pub setup_resets: u64,
    pub resets: u64,
    pub send_new: u64,
    pub send_retx: u64,
    pub acks: u64,
    pub ldets: u64,
    pub ldets_with_ldp: u64,
    pub drains: u64,
    pub queries: u64,
    pub others: u64,
}

impl RtxMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("offered", self.offered),
            ("setup_resets", self.setup_resets),
            ("resets", self.resets),
            ("send_new", self.send_new),
            ("send_retx", self.send_retx),
            ("acks", self.acks),
            ("ldets", self.ldets),
            ("ldets_with_ldp", self.ldets_with_ldp),
            ("drains", self.drains),
            ("queries", self.queries),
            ("others", self.others),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct RtxStimulus {
    rng: SmallRng,
    params: RtxParams,
    shadow: RtxState,
    /// Next path PSN per (connection, path).
    ppsn: Vec<Vec<u32>>,
    hot: Vec<u32>,
    held: Option<(u32, RtxOp)>,
    cur: RtxInputs,
    phase_left: u32,
    p_valid: f64,
    p_ready: f64,
    p_tmo_ready: f64,
    p_hot: f64,
    reset_left: u32,
    opts: StimOpts,
    prologue_rst: u32,
    prologue_conn: u32,
    pub mix: RtxMix,
}

impl RtxStimulus {
    pub fn with_opts(seed: u64, params: RtxParams, opts: &StimOpts) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5254_5800);
        let c = params.connections;
        let hot = (0..4).map(|_| rng.gen_range(0..c as u32)).collect();
        let now = if seed % 2 == 0 { u32::MAX - rng.gen_range(0..200_000) } else { rng.gen() };
        let cur = RtxInputs { now, m_ready: true, m_tmo_ready: true, ..Default::default() };
        let ppsn = (0..c).map(|_| (0..16).map(|_| rng.gen_range(0..1u32 << 24)).collect()).collect();
        Self {
            rng,
            params,
            shadow: RtxState::new(params),
            ppsn,
            hot,
            held: None,
            cur,
            phase_left: 0,
            p_valid: 1.0,
            p_ready: 1.0,
            p_tmo_ready: 1.0,
            p_hot: 0.7,
            reset_left: 0,
            opts: opts.clone(),
            prologue_rst: if opts.power_up { 3 } else { 0 },
            prologue_conn: if opts.power_up { 0 } else { c as u32 },
            mix: RtxMix::default(),
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

    fn random_bitmap(&mut self, density: f64) -> Bitmap {
        let mut b = Bitmap::default();
        for i in 0..self.params.window as usize {
            if self.rng.gen_bool(density) {
                b.set(i);
            }
        }
        b
    }

    /// A PSN of connection c: mostly live, sometimes around the window's edges.
    fn psn_near(&mut self, c: usize) -> u32 {
        let q = &self.shadow.queues[c];
        let n = q.outstanding();
        let off: i64 = match self.rng.gen_range(0..10) {
            0 => -(self.rng.gen_range(1..40) as i64),
            1 => n as i64 + self.rng.gen_range(0..40) as i64,
            _ => self.rng.gen_range(0..=n) as i64,
        };
        (q.base as i64 + off).rem_euclid(1 << 24) as u32
    }

    fn make_op(&mut self, c: u32) -> RtxOp {
        let ci = c as usize;
        let pr = self.params;
        let path = if self.rng.gen_bool(0.03) { self.rng.gen_range(0..16) } else { self.rng.gen_range(0..pr.paths as u8) };
        let x = self.rng.gen_range(0..1000);
        let q = &self.shadow.queues[ci];
        match x {
            0..=339 => {
                let full = !q.has_room() || !q.has_free_record();
                if full && self.rng.gen_bool(0.8) {
                    return self.make_ack(ci);
                }
                self.mix.send_new += 1;
                RtxOp::Send { new: true, psn: self.rng.gen(), path, path_psn: self.next_ppsn(ci, path) }
            }
            340..=459 => {
                // retransmit: a lost PSN mostly, else any PSN near the window
                let lost: Vec<u32> = q.iter().filter(|(_, s)| s.state == SlotState::Lost).map(|(p, _)| p).collect();
                let psn = if !lost.is_empty() && self.rng.gen_bool(0.8) { lost[self.rng.gen_range(0..lost.len())] } else { self.psn_near(ci) };
                self.mix.send_retx += 1;
                RtxOp::Send { new: false, psn, path, path_psn: self.next_ppsn(ci, path) }
            }
            460..=649 => self.make_ack(ci),
            650..=739 => {
                self.mix.ldets += 1;
                let p = usize::from(path) & 15;
                let top = self.ppsn[ci][p];
                let highest = (top as i64 + self.rng.gen_range(-6..6)).rem_euclid(1 << 24) as u32;
                let ldp = if self.rng.gen_bool(0.6) {
                    self.mix.ldets_with_ldp += 1;
                    Some(self.psn_near(ci))
                } else {
                    None
                };
                RtxOp::Ldet { path, highest, ldp }
            }
            740..=769 => {
                self.mix.drains += 1;
                RtxOp::Drain { path }
            }
            770..=839 => {
                self.mix.queries += 1;
                let d = [0.0, 0.1, 0.5, 0.9][self.rng.gen_range(0..4)];
                RtxOp::Query { held: self.random_bitmap(d) }
            }
            _ => {
                self.mix.others += 1;
                match x {
                    840..=879 => RtxOp::HeadTmo,
                    880..=919 => RtxOp::MarkLost { psn: self.psn_near(ci) },
                    920..=929 => RtxOp::Abandon { from: self.psn_near(ci) },
                    930..=959 => RtxOp::Hwait { valid: self.rng.gen_bool(0.8), wait: if self.rng.gen_bool(0.9) { self.rng.gen_range(0..3000) } else { self.rng.gen() } },
                    960..=984 => RtxOp::NewData { flag: self.rng.gen_bool(0.5) },
                    985..=994 => {
                        self.mix.resets += 1;
                        RtxOp::Reset { isn: if self.rng.gen_bool(0.3) { (1 << 24) - self.rng.gen_range(1..300) } else { self.rng.gen_range(0..1 << 24) } }
                    }
                    _ => RtxOp::Undefined(self.rng.gen_range(11..16)),
                }
            }
        }
    }

    fn next_ppsn(&mut self, c: usize, path: u8) -> u32 {
        let p = usize::from(path) & 15;
        let v = self.ppsn[c][p];
        self.ppsn[c][p] = (v + self.rng.gen_range(1..3)) & 0xFF_FFFF;
        v
    }

    fn make_ack(&mut self, c: usize) -> RtxOp {
        self.mix.acks += 1;
        let q = &self.shadow.queues[c];
        let n = q.outstanding();
        let cum = match self.rng.gen_range(0..10) {
            0 => self.psn_near(c),
            1 => q.base,
            2 => q.next,
            _ => (q.base + self.rng.gen_range(0..=n.min(8))) & 0xFF_FFFF,
        };
        let d = [0.0, 0.05, 0.3, 0.8][self.rng.gen_range(0..4)];
        RtxOp::Ack { cum, sack: self.random_bitmap(d) }
    }

    /// The inputs of the next cycle; `taken`: the previous cycle's offer was transferred.
    pub fn next_inputs(&mut self, taken: bool) -> RtxInputs {
        self.mix.cycles += 1;
        let now = self.cur.now.wrapping_add(1);
        if taken && !self.cur.rst {
            if let Some((c, op)) = self.held.take() {
                self.shadow.apply(c, &op, HwTime(self.cur.now));
            }
        }
        // power-up prologue
        if self.prologue_rst > 0 {
            self.prologue_rst -= 1;
            self.cur = RtxInputs { rst: true, now, m_ready: true, m_tmo_ready: true, ..Default::default() };
            return self.cur;
        }
        if self.prologue_conn < self.params.connections as u32 {
            if self.held.is_none() {
                let c = self.prologue_conn;
                self.prologue_conn += 1;
                self.mix.setup_resets += 1;
                self.held = Some((c, RtxOp::Reset { isn: self.rng.gen_range(0..1 << 24) }));
            }
            let (c, op) = self.held.unwrap();
            let mut i = RtxInputs { now, m_ready: true, m_tmo_ready: true, ..Default::default() };
            op.drive(c, &mut i);
            self.cur = i;
            return i;
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
        let m_ready = self.rng.gen_bool(self.p_ready);
        let m_tmo_ready = self.rng.gen_bool(self.p_tmo_ready);
        if self.held.is_none() && self.rng.gen_bool(self.p_valid) {
            let c = self.conn();
            let op = self.make_op(c);
            self.held = Some((c, op));
            self.mix.offered += 1;
        }
        let mut i = RtxInputs { now, m_ready, m_tmo_ready, ..Default::default() };
        if let Some((c, op)) = self.held {
            op.drive(c, &mut i);
            i.rst = rst;
        } else {
            i.rst = rst;
        }
        i.m_ready = m_ready;
        i.m_tmo_ready = m_tmo_ready;
        i.now = now;
        self.cur = i;
        i
    }
}
