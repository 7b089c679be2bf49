//! Seeded random stimulus for the SACK engine: one generator for the differential test
//! against the Verilated RTL, the rust-hdl simulator run, the cocotb vectors and the benches.
//!
//! Each cycle's inputs mix: in-order runs, loss gaps later filled in any order
//! (retransmission = reordering), duplicates, PSNs behind the base, out-of-window PSNs,
//! fully random PSNs, window-filling sweeps (the base jumps a whole window), connection
//! clears near the 2^24 wrap, resets, and valid/ready backpressure on both sides in phases
//! (full rate, random, long stalls).

use crate::sack::{SackInputs, PSN_MASK};
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
}

/// What the generator produced so far, by kind (to show the test covers what it claims).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StimulusMix {
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
    pub mix: StimulusMix,
}

impl SackStimulus {
    pub fn new(seed: u64, connections: usize, window: usize) -> Self {
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
            mix: StimulusMix::default(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..2000);
        // Full rate half the time: the interesting hazards need back-to-back packets.
        (self.p_valid, self.p_ready) = match r.gen_range(0..6) {
            0 | 1 | 2 => (1.0, 1.0),
            3 => (r.gen_range(0.3..1.0), r.gen_range(0.3..1.0)),
            4 => (1.0, r.gen_range(0.0..0.3)),
            _ => (r.gen_range(0.0..0.5), 1.0),
        };
        self.p_hot = [0.0, 0.5, 0.9, 1.0][r.gen_range(0..4)];
        self.hot = r.gen_range(0..self.connections);
    }

    fn pick_op(&mut self) -> (u32, u32, bool) {
        let conn = if self.rng.gen_bool(self.p_hot) { self.hot } else { self.rng.gen_range(0..self.connections) };
        let w = self.window;
        let r = &mut self.rng;
        let f = &mut self.flows[conn as usize];
        let m = &mut self.mix;
        if let Some(p) = f.sweep.pop_front() {
            return (conn, p, false);
        }
        let psn = match r.gen_range(0..1000) {
            0..=4 => {
                // Clear (connection setup), often just below the PSN wrap.
                let base = if r.gen_bool(0.5) { (PSN_MASK - r.gen_range(0..3 * w)) & PSN_MASK } else { r.gen::<u32>() & PSN_MASK };
                *f = Flow { next: base, ..Flow::default() };
                m.clears += 1;
                return (conn, base, true);
            }
            5..=6 => {
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
                let oldest_far = crate::sack::psn_distance(f.next, f.holes[0]) >= w - w / 4;
                let i = if oldest_far { 0 } else { r.gen_range(0..f.holes.len()) };
                m.retransmits += 1;
                f.holes.remove(i).unwrap()
            }
            340..=399 if !f.recent.is_empty() => {
                m.duplicates += 1;
                f.recent[r.gen_range(0..f.recent.len())]
            }
            400..=424 => {
                m.behind += 1;
                f.next.wrapping_sub(r.gen_range(w..4 * w)) & PSN_MASK
            }
            425..=449 => {
                m.out_of_window += 1;
                let ahead = if r.gen_bool(0.5) { r.gen_range(w..2 * w) } else { r.gen_range(w..(1 << 23)) };
                (f.next + ahead) & PSN_MASK
            }
            450..=459 => {
                m.random += 1;
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
        (conn, psn, false)
    }

    /// Inputs for the next cycle. `taken` says whether the previous cycle's offer (if any)
    /// was transferred (`s_valid && s_ready`).
    pub fn next_inputs(&mut self, taken: bool) -> SackInputs {
        self.mix.cycles += 1;
        if taken {
            self.held = None;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if self.reset_left == 0 && self.rng.gen_range(0..50_000) == 0 {
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
                let (conn, psn, clear) = self.pick_op();
                self.mix.offered += 1;
                SackInputs { s_valid: true, s_conn: conn, s_psn: psn, s_clear: clear, ..Default::default() }
            }
            None => SackInputs {
                s_conn: self.rng.gen_range(0..self.connections),
                s_psn: self.rng.gen::<u32>() & PSN_MASK,
                s_clear: self.rng.gen(),
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
    use crate::sack::{Class, SackShell};

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
                if m.result.class == Class::New && crate::sack::psn_distance(m.result.base, m.psn) == 256 {
                    jumps += 1;
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "classes seen {seen:?}");
        assert!(jumps > 0, "a full-window advance happened");
        let m = &stim.mix;
        assert!(m.gaps > 0 && m.retransmits > 0 && m.duplicates > 0 && m.behind > 0 && m.out_of_window > 0);
        assert!(m.sweeps > 0 && m.clears > 0 && m.resets > 0, "{m:?}");
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
                    assert!(i.s_valid && (i.s_conn, i.s_psn, i.s_clear) == (p.s_conn, p.s_psn, p.s_clear));
                }
            }
            prev = Some(i);
        }
    }
}
