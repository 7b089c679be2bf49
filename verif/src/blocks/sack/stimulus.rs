//! Seeded random stimulus for the SACK engine: one generator for the differential test
//! against the Verilated RTL, the rust-hdl simulator run, `mrnic verify`, the cocotb vectors
//! and the benches. (Moved here from `mrnic_model::stimulus`: the model is the semantics only.)
//!
//! Each cycle's inputs mix: in-order runs, loss gaps later filled in any order
//! (retransmission = reordering), duplicates, PSNs behind the base, out-of-window PSNs,
//! fully random PSNs, window-filling sweeps (the base jumps a whole window), connection
//! clears near the 2^24 wrap, resets, and valid/ready backpressure on both sides in phases
//! (full rate, random, long stalls). One data packet in eight is offered uncommitted
//! (`s_commit` = 0: classified, not recorded); an uncommitted packet the flow expected to
//! be new (in order, after a gap, a retransmission, a sweep packet) is sent again soon (at
//! once or after a few packets of its connection), as a sender would after the receiver
//! refused it, so sweeps still end in a whole-window jump.
//!
//! Options ([`StimOpts`]): `power_up` starts with three reset cycles and then clears every
//! connection (the engine's state RAM powers up with anything in it, as FPGA RAM does; the
//! block assumes each connection is cleared before use), `no_resets` drops the random resets
//! (transaction mode), and `profile` picks a directed mix: `hot` (one connection at full
//! rate: every same-connection pipeline hazard, constantly), `backpressure` (the output
//! stalled or the input starved most of the time), `wrap` (frequent clears just below the
//! PSN wrap, so the base and window cross 2^24 - 1 often) or `commit` (half the data
//! packets uncommitted: packets at the base, base-filling sweep packets and retransmissions
//! that must not advance the base, then their committed retries that do).

use crate::kit::StimOpts;
use mrnic_model::sack::{psn_distance, SackInputs, PSN_MASK};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
struct Flow {
    next: u32,
    holes: VecDeque<u32>,
    recent: VecDeque<u32>,
    /// Pending sweep PSNs (sent back-to-back on this connection).
    sweep: VecDeque<u32>,
    /// Fresh PSNs offered uncommitted (not recorded): sent again soon.
    retry: VecDeque<u32>,
}

/// What the generator produced so far, by kind (to show the test covers what it claims).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StimulusMix {
    /// Connections cleared by the power-up prologue.
    pub setup_clears: u64,
    pub cycles: u64,
    pub offered: u64,
    pub in_order: u64,
    pub gaps: u64,
    pub retransmits: u64,
    pub duplicates: u64,
    pub behind: u64,
    pub out_of_window: u64,
    pub random: u64,
    pub sweeps: u64,
    pub clears: u64,
    pub resets: u64,
    /// Data packets offered with `s_commit` = 0.
    pub uncommitted: u64,
}

/// The generator. `next_inputs()` gives the inputs of the next cycle; it must be told
/// whether the previous cycle's offer was taken (`s_ready`), so an offer is held until
/// accepted, as a valid/ready source must.
pub struct SackStimulus {
    rng: SmallRng,
    connections: u32,
    window: u32,
    flows: Vec<Flow>,
    hot: u32,
    held: Option<SackInputs>,
    phase_left: u32,
    p_valid: f64,
    p_ready: f64,
    p_hot: f64,
    reset_left: u32,
    opts: StimOpts,
    /// Power-up prologue: cycles of reset left, then the next connection to clear.
    prologue_rst: u32,
    prologue_conn: Option<u32>,
    pub mix: StimulusMix,
}

/// Directed profiles the stimulus knows (besides the default mix, "").
pub const PROFILES: &[&str] = &["hot", "backpressure", "wrap", "commit"];

/// Probability that a data packet is offered uncommitted: the default mix, the `commit`
/// profile.
pub const P_UNCOMMITTED: f64 = 1.0 / 8.0;
pub const P_UNCOMMITTED_COMMIT_PROFILE: f64 = 0.5;

/// Cycles of reset at the start of a power-up run.
pub const POWER_UP_RESET_CYCLES: u32 = 3;

impl SackStimulus {
    pub fn new(seed: u64, connections: usize, window: usize) -> Self {
        Self::with_opts(seed, connections, window, &StimOpts::default())
    }

    /// A generator with options (power-up prologue, no resets, a directed profile). An
    /// unknown profile is refused by [`crate::kit::check_profile`] before this is called.
    pub fn with_opts(seed: u64, connections: usize, window: usize, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed),
            connections: connections as u32,
            window: window as u32,
            flows: vec![Flow::default(); connections],
            hot: 0,
            held: None,
            phase_left: 0,
            p_valid: 1.0,
            p_ready: 1.0,
            p_hot: 0.5,
            reset_left: 0,
            opts: opts.clone(),
            prologue_rst: if opts.power_up { POWER_UP_RESET_CYCLES } else { 0 },
            prologue_conn: opts.power_up.then_some(0),
            mix: StimulusMix::default(),
        }
    }

    /// Cycles at the start whose outputs come from the power-up state (not compared).
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
        // Full rate half the time: the interesting hazards need back-to-back packets.
        let kind = match self.opts.profile.as_str() {
            "hot" => 0,
            "backpressure" => r.gen_range(4..6),
            _ => r.gen_range(0..6),
        };
        (self.p_valid, self.p_ready) = match kind {
            0 | 1 | 2 => (1.0, 1.0),
            3 => (r.gen_range(0.3..1.0), r.gen_range(0.3..1.0)),
            4 => (1.0, r.gen_range(0.0..0.3)),
            _ => (r.gen_range(0.0..0.5), 1.0),
        };
        self.p_hot = if self.opts.profile == "hot" { 1.0 } else { [0.0, 0.5, 0.9, 1.0][r.gen_range(0..4)] };
        self.hot = r.gen_range(0..self.connections);
    }

    /// The next operation `(conn, psn, clear, commit)`.
    fn pick_op(&mut self) -> (u32, u32, bool, bool) {
        let (conn, psn, clear, fresh) = self.pick_psn();
        if clear {
            return (conn, psn, true, true);
        }
        let p = if self.opts.profile == "commit" { P_UNCOMMITTED_COMMIT_PROFILE } else { P_UNCOMMITTED };
        if !self.rng.gen_bool(p) {
            return (conn, psn, false, true);
        }
        self.mix.uncommitted += 1;
        if fresh {
            // Not recorded: sent again soon, as a sender would after the receiver refused it.
            self.flows[conn as usize].retry.push_back(psn);
        }
        (conn, psn, false, false)
    }

    /// The next operation `(conn, psn, clear, fresh)`; `fresh`: a data packet the flow
    /// expects the engine to record (in order, after a gap, a retransmission, a sweep).
    fn pick_psn(&mut self) -> (u32, u32, bool, bool) {
        let conn = if self.rng.gen_bool(self.p_hot) { self.hot } else { self.rng.gen_range(0..self.connections) };
        let w = self.window;
        let r = &mut self.rng;
        let f = &mut self.flows[conn as usize];
        let m = &mut self.mix;
        if let Some(&p) = f.retry.front() {
            // The retry of an uncommitted packet: mostly at once, always when it holds the
            // window back (the last packet of a sweep: in-order packets would be beyond the
            // window), else after other packets of this connection.
            if psn_distance(f.next, p) >= w - w / 4 || r.gen_bool(0.75) {
                f.retry.pop_front();
                m.retransmits += 1;
                return (conn, p, false, true);
            }
        }
        if let Some(p) = f.sweep.pop_front() {
            return (conn, p, false, true);
        }
        let wrap = self.opts.profile == "wrap";
        let clear_until = if wrap { 30 } else { 4 };
        let mut fresh = true;
        let psn = match r.gen_range(0..1000) {
            x if x <= clear_until => {
                // Clear (connection setup), often just below the PSN wrap.
                let base = if wrap || r.gen_bool(0.5) { (PSN_MASK - r.gen_range(0..3 * w)) & PSN_MASK } else { r.gen::<u32>() & PSN_MASK };
                *f = Flow { next: base, ..Flow::default() };
                m.clears += 1;
                return (conn, base, true, false);
            }
            x if x <= clear_until + 2 && f.retry.is_empty() => {
                // Sweep: send base+1 .. base+w-1, then base: the base jumps a whole window.
                let b = f.next;
                f.sweep = (1..w).map(|d| (b + d) & PSN_MASK).collect();
                f.sweep.push_back(b);
                f.next = (b + w) & PSN_MASK;
                f.holes.clear();
                m.sweeps += 1;
                f.sweep.pop_front().unwrap()
            }
            7..=59 => {
                // Loss gap: skip a few PSNs (now and then up to w/2), retransmitted later.
                let k = if r.gen_bool(0.05) { r.gen_range(1..=(w / 2).max(1)) } else { r.gen_range(1..=3) };
                for d in 0..k {
                    if f.holes.len() < 512 {
                        f.holes.push_back((f.next + d) & PSN_MASK);
                    }
                }
                f.next = (f.next + k) & PSN_MASK;
                m.gaps += 1;
                let p = f.next;
                f.next = (f.next + 1) & PSN_MASK;
                p
            }
            60..=339 if !f.holes.is_empty() => {
                // Retransmission of a hole: in random order, but the oldest first once it
                // holds the window back (as a sender's RTO would), so the base keeps moving.
                let oldest_far = psn_distance(f.next, f.holes[0]) >= w - w / 4;
                let i = if oldest_far { 0 } else { r.gen_range(0..f.holes.len()) };
                m.retransmits += 1;
                f.holes.remove(i).unwrap()
            }
            340..=399 if !f.recent.is_empty() => {
                m.duplicates += 1;
                fresh = false;
                f.recent[r.gen_range(0..f.recent.len())]
            }
            400..=424 => {
                m.behind += 1;
                fresh = false;
                f.next.wrapping_sub(r.gen_range(w..4 * w)) & PSN_MASK
            }
            425..=449 => {
                m.out_of_window += 1;
                fresh = false;
                let ahead = if r.gen_bool(0.5) { r.gen_range(w..2 * w) } else { r.gen_range(w..(1 << 23)) };
                (f.next + ahead) & PSN_MASK
            }
            450..=459 => {
                m.random += 1;
                fresh = false;
                r.gen::<u32>() & PSN_MASK
            }
            _ => {
                m.in_order += 1;
                let p = f.next;
                f.next = (f.next + 1) & PSN_MASK;
                p
            }
        };
        if f.recent.len() >= 8 {
            f.recent.pop_front();
        }
        f.recent.push_back(psn);
        (conn, psn, false, fresh)
    }

    /// Inputs for the next cycle. `taken` says whether the previous cycle's offer (if any)
    /// was transferred (`s_valid && s_ready`).
    pub fn next_inputs(&mut self, taken: bool) -> SackInputs {
        self.mix.cycles += 1;
        if taken && self.prologue_conn.is_none() {
            self.held = None;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if self.prologue_rst > 0 {
            self.prologue_rst -= 1;
            return SackInputs { rst: true, m_ready: true, ..Default::default() };
        }
        if let Some(c) = self.prologue_conn {
            // Power-up: clear connection c (held until taken), then the next one.
            let c = if taken && self.held.is_some() { c + 1 } else { c };
            if taken {
                self.held = None;
            }
            if c < self.connections {
                self.prologue_conn = Some(c);
                let i = SackInputs { s_valid: true, s_conn: c, s_psn: self.rng.gen::<u32>() & PSN_MASK, s_clear: true, s_commit: true, m_ready: true, rst: false };
                let i = self.held.unwrap_or(i);
                if self.held.is_none() {
                    self.mix.setup_clears += 1;
                }
                self.held = Some(i);
                return i;
            }
            self.prologue_conn = None;
            self.held = None;
        }
        if !self.opts.no_resets && self.reset_left == 0 && self.rng.gen_range(0..50_000) == 0 {
            self.reset_left = self.rng.gen_range(1..4);
            self.mix.resets += 1;
        }
        let rst = self.reset_left > 0;
        if rst {
            self.reset_left -= 1;
        }
        let m_ready = self.rng.gen_bool(self.p_ready);
        let mut i = match self.held {
            Some(h) => h,
            None if self.rng.gen_bool(self.p_valid) => {
                let (conn, psn, clear, commit) = self.pick_op();
                self.mix.offered += 1;
                SackInputs { s_valid: true, s_conn: conn, s_psn: psn, s_clear: clear, s_commit: commit, ..Default::default() }
            }
            None => SackInputs {
                s_conn: self.rng.gen_range(0..self.connections),
                s_psn: self.rng.gen::<u32>() & PSN_MASK,
                s_clear: self.rng.gen(),
                s_commit: self.rng.gen(),
                ..Default::default()
            },
        };
        if i.s_valid {
            self.held = Some(i);
        }
        i.rst = rst;
        i.m_ready = m_ready;
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrnic_model::sack::{Class, SackShell};

    #[test]
    fn stimulus_reaches_every_class_and_every_hazard_kind() {
        let mut stim = SackStimulus::new(1, 16, 256);
        let mut sh = SackShell::new(16, 256);
        let mut taken = false;
        let mut seen = [0u64; 4];
        let mut jumps = 0;
        for _ in 0..200_000 {
            let i = stim.next_inputs(taken);
            let o = sh.step(&i);
            taken = i.s_valid && o.s_ready;
            if let (Some(m), true) = (o.m, i.m_ready) {
                seen[m.result.class.code() as usize] += 1;
                if m.result.class == Class::New && psn_distance(m.result.base, m.psn) == 256 {
                    jumps += 1;
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "classes seen {seen:?}");
        assert!(jumps > 0, "a full-window advance happened");
        let m = &stim.mix;
        assert!(m.gaps > 0 && m.retransmits > 0 && m.duplicates > 0 && m.behind > 0 && m.out_of_window > 0);
        assert!(m.sweeps > 0 && m.clears > 0 && m.resets > 0, "{m:?}");
        let data = m.offered - m.clears;
        assert!(m.uncommitted * 10 > data && m.uncommitted * 7 < data, "about one data packet in eight uncommitted: {m:?}");
    }

    #[test]
    fn an_offer_is_held_until_taken() {
        let mut stim = SackStimulus::new(7, 4, 64);
        let mut prev: Option<SackInputs> = None;
        for k in 0..10_000 {
            let taken = k % 3 == 0;
            let i = stim.next_inputs(taken);
            if let Some(p) = prev {
                if p.s_valid && !taken {
                    assert!(i.s_valid && (i.s_conn, i.s_psn, i.s_clear, i.s_commit) == (p.s_conn, p.s_psn, p.s_clear, p.s_commit));
                }
            }
            prev = Some(i);
        }
    }

    #[test]
    fn junk_inputs_while_invalid_randomize_commit_and_power_up_clears_commit() {
        let mut stim = SackStimulus::with_opts(3, 8, 64, &StimOpts { power_up: true, ..Default::default() });
        let (mut junk, mut junk_uncommitted, mut clears) = (0, 0, 0);
        for k in 0..20_000 {
            let i = stim.next_inputs(k % 2 == 0);
            if stim.prologue_conn.is_some() && i.s_valid {
                clears += 1;
                assert!(i.s_clear && i.s_commit, "a power-up clear is committed: {i:?}");
            }
            if !i.s_valid && !i.rst {
                junk += 1;
                junk_uncommitted += !i.s_commit as u64;
            }
        }
        assert!(clears >= 8);
        assert!(junk_uncommitted > junk / 4 && junk_uncommitted < 3 * junk / 4, "{junk_uncommitted} of {junk}");
    }

    /// The `commit` profile, applied op by op to the functional model: half the data packets
    /// are uncommitted, among them packets at the base (new, base unchanged) and base-filling
    /// packets after a run (a committed one would advance the base over the run), and their
    /// committed retries then do advance the base; the flows keep moving.
    #[test]
    fn the_commit_profile_offers_uncommitted_packets_at_the_base_and_their_committed_retries_advance_it() {
        let (conns, w) = (16usize, 256usize);
        let mut stim = SackStimulus::with_opts(5, conns, w, &StimOpts { no_resets: true, profile: "commit".into(), ..Default::default() });
        let mut e = mrnic_model::sack::SackEngine::new(conns, w);
        let (mut data, mut at_base, mut held_runs, mut jumps, mut full_jumps) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for _ in 0..300_000 {
            let i = stim.next_inputs(true);
            if !i.s_valid || i.rst {
                continue;
            }
            let before = e.conns[i.s_conn as usize];
            let r = e.apply(mrnic_model::sack::SackOp { conn: i.s_conn, psn: i.s_psn, clear: i.s_clear, commit: i.s_commit });
            if i.s_clear {
                continue;
            }
            data += 1;
            let base_packet = r.class == Class::New && i.s_psn == before.base;
            match (base_packet, i.s_commit) {
                (true, false) => {
                    at_base += 1;
                    held_runs += before.bitmap.get(1) as u64;
                    assert_eq!(e.conns[i.s_conn as usize], before, "an uncommitted packet changed the state: {i:?}");
                }
                (true, true) => {
                    jumps += (psn_distance(r.base, before.base) > 1) as u64;
                    full_jumps += (psn_distance(r.base, before.base) == w as u32) as u64;
                }
                _ => {}
            }
        }
        let m = &stim.mix;
        println!("data {data} at_base {at_base} held_runs {held_runs} jumps {jumps} full_jumps {full_jumps} {m:?}");
        assert!(m.uncommitted * 5 > data * 2 && m.uncommitted * 5 < data * 3, "half the data packets uncommitted: {m:?}");
        assert!(at_base > 10_000 && held_runs > 1_000, "uncommitted packets at the base, some before a run: {at_base} {held_runs}");
        assert!(jumps > 1_000 && full_jumps > 0, "committed retries advance the base over runs: {jumps} {full_jumps}");
    }
}
