//! Pieces the blocks' seeded stimulus generators share: the reset schedule and the rate of a
//! valid or ready in a phase.

use super::StimOpts;
use rand::rngs::SmallRng;
use rand::Rng;

/// The reset input of a stimulus: `rst` for the first 3 cycles of a power-up run, then (unless
/// `no_resets`) a random reset one cycle in 100 000 (or the rate of [`Resets::one_in`]), 1 to
/// 3 cycles long.
#[derive(Clone, Debug)]
pub struct Resets {
    prologue: u32,
    left: u32,
    random: bool,
    one_in: u32,
    /// Random resets started so far.
    pub count: u64,
}

impl Resets {
    pub fn new(opts: &StimOpts) -> Resets {
        Resets::one_in(opts, 100_000)
    }
    /// Random resets starting one cycle in `one_in` (a block whose reset paths need more of
    /// them than the default gives a run of 10^5 cycles).
    pub fn one_in(opts: &StimOpts, one_in: u32) -> Resets {
        Resets { prologue: if opts.power_up { 3 } else { 0 }, left: 0, random: !opts.no_resets, one_in, count: 0 }
    }
    /// `rst` for the next cycle (draws from `rng` only outside a reset).
    pub fn next(&mut self, rng: &mut SmallRng) -> bool {
        if self.prologue > 0 {
            self.prologue -= 1;
            true
        } else if self.left > 0 {
            self.left -= 1;
            true
        } else if self.random && rng.gen_ratio(1, self.one_in) {
            self.left = rng.gen_range(0..3);
            self.count += 1;
            true
        } else {
            false
        }
    }
}

/// A phase's probability of a valid or ready being high: 1 three times in eight, low (0.05 to
/// 0.3) once, otherwise 0.3 to 1.
pub fn phase_rate(r: &mut SmallRng) -> f64 {
    match r.gen_range(0..8) {
        0..=2 => 1.0,
        3 => r.gen_range(0.05..0.3),
        _ => r.gen_range(0.3..1.0),
    }
}
