//! Seeded random stimulus for the receive frame buffer (`mrnic_fbuf`): a frame source on
//! `s_axis` (AXI4-Stream beats), the parser's verdicts on `s_vrd` (one per frame, in order, some
//! offered before the frame has ended, which the block must not take), and a sink's
//! `m_axis_tready`.
//!
//! A shadow [`FbufShell`] is stepped with every cycle's inputs, so the generator knows which
//! offers were taken (a valid/ready source holds its offer until it is).
//!
//! Frames: one beat (often), short, medium, exactly `max_beats`, and longer than that (the
//! buffer must drop them and store no beat past `max_beats`); `tkeep` on the beats before
//! the last sometimes not all ones (the output's is), the last beat's any value. Verdicts:
//! phases of all keep, all refuse and mixed. Every valid and ready goes through phases
//! (full rate, random, long stalls of `m_axis_tready` that fill the RAM or the 16 descriptors);
//! rare random resets.
//!
//! Options: `power_up` holds reset for three cycles (outputs not compared in the first);
//! `no_resets` drops the random resets; profile `full` stalls the sink most of the time
//! with small frames (the RAM and the descriptor ring full, the stream held back), `long`
//! sends only frames of `max_beats` - 2 .. `max_beats` + 40 beats.

use crate::kit::stim::{phase_rate, Resets};
use crate::kit::StimOpts;
use mrnic_model::wire::fbuf::{FbufConfig, FbufInputs, FbufShell};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["full", "long"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FbufMix {
    pub cycles: u64,
    pub resets: u64,
    pub frames: u64,
    pub one_beat: u64,
    pub max_len: u64,
    pub too_long: u64,
    pub verdict_keep: u64,
    pub verdict_refuse: u64,
    pub early_verdicts: u64,
    pub ram_full: u64,
    pub ring_full: u64,
    pub partial_keep_inside: u64,
}

impl FbufMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("frames", self.frames),
            ("one_beat", self.one_beat),
            ("max_len", self.max_len),
            ("too_long", self.too_long),
            ("verdict_keep", self.verdict_keep),
            ("verdict_refuse", self.verdict_refuse),
            ("early_verdicts", self.early_verdicts),
            ("ram_full", self.ram_full),
            ("ring_full", self.ring_full),
            ("partial_keep_inside", self.partial_keep_inside),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct FbufStimulus {
    rng: SmallRng,
    cfg: FbufConfig,
    shadow: FbufShell,
    /// Beats of the frame being sent: (data, keep, last), front first.
    frame: VecDeque<(u64, u8, bool)>,
    /// Verdicts not yet taken, in frame order (one per frame generated).
    verdicts: VecDeque<bool>,
    /// Frames whose last beat was taken and whose verdict was not.
    ended: u64,
    phase_left: u32,
    p_s: f64,
    p_v: f64,
    p_m: f64,
    p_keep: f64,
    resets: Resets,
    opts: StimOpts,
    pub mix: FbufMix,
}

impl FbufStimulus {
    pub fn with_opts(seed: u64, cfg: FbufConfig, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed ^ 0x4642_5546),
            cfg,
            shadow: FbufShell::new(cfg),
            frame: VecDeque::new(),
            verdicts: VecDeque::new(),
            ended: 0,
            phase_left: 0,
            p_s: 1.0,
            p_v: 1.0,
            p_m: 1.0,
            p_keep: 0.7,
            resets: Resets::new(opts),
            opts: opts.clone(),
            mix: FbufMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..4000);
        (self.p_s, self.p_v, self.p_m) = (phase_rate(r), phase_rate(r), phase_rate(r));
        // long sink stalls: the RAM (or the descriptor ring) fills and holds `s_axis` back
        if self.opts.profile == "full" {
            self.p_m = if r.gen_bool(0.7) {
                0.0
            } else {
                r.gen_range(0.1..1.0)
            };
        } else if r.gen_ratio(1, 10) {
            self.p_m = 0.0;
            self.phase_left = r.gen_range(1000..6000);
        }
        self.p_keep = [1.0, 0.0, 0.5, 0.8, 0.95][r.gen_range(0..5)];
    }

    fn make_frame(&mut self) {
        let r = &mut self.rng;
        let max = self.cfg.max_beats as usize;
        let kind = match self.opts.profile.as_str() {
            "long" => 2 + r.gen_range(0..2),
            "full" => [0, 32][r.gen_range(0..2)],
            _ => r.gen_range(0..100),
        };
        let len = match kind {
            0 | 10..=29 => 1,
            2 | 4..=5 => r.gen_range(max.saturating_sub(2).max(1)..=max),
            3 | 30..=31 => r.gen_range(max + 1..=max + 40),
            1 | 6..=9 => r.gen_range(13..=max),
            32..=79 => r.gen_range(2..=12),
            _ => {
                let top = if r.gen_bool(0.8) { 64 } else { max.min(400) };
                r.gen_range(2..=top)
            }
        };
        self.mix.frames += 1;
        self.mix.one_beat += (len == 1) as u64;
        self.mix.max_len += (len == max) as u64;
        self.mix.too_long += (len > max) as u64;
        let full = self.cfg.keep_mask();
        for k in 0..len {
            let last = k + 1 == len;
            let keep = if last {
                if r.gen_bool(0.5) {
                    ((1u16 << r.gen_range(1..=self.cfg.beat_bytes)) - 1) as u8
                } else {
                    r.gen::<u8>() & full
                }
            } else if r.gen_ratio(1, 50) {
                self.mix.partial_keep_inside += 1;
                r.gen::<u8>() & full
            } else {
                full
            };
            self.frame
                .push_back((r.gen::<u64>() & self.cfg.data_mask(), keep, last));
        }
        let keep = r.gen_bool(self.p_keep);
        self.verdicts.push_back(keep);
    }

    /// The inputs of the next cycle (the shadow shell tells what the block takes).
    pub fn next_inputs(&mut self) -> FbufInputs {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        if self.frame.is_empty() && self.rng.gen_bool(self.p_s) {
            self.make_frame();
        }
        let beat = self.frame.front().copied();
        let s_axis_tvalid = beat.is_some() && self.rng.gen_bool(self.p_s);
        let (d, k, l) = beat.unwrap_or_default();
        let v_valid = !self.verdicts.is_empty() && self.rng.gen_bool(self.p_v);
        let i = FbufInputs {
            rst,
            s_axis_tvalid,
            s_axis_tdata: if s_axis_tvalid { d } else { self.rng.gen() },
            s_axis_tkeep: if s_axis_tvalid {
                k
            } else {
                self.rng.gen::<u8>() & self.cfg.keep_mask()
            },
            s_axis_tlast: if s_axis_tvalid { l } else { self.rng.gen() },
            s_vrd_valid: v_valid,
            s_vrd_keep: if v_valid {
                self.verdicts[0]
            } else {
                self.rng.gen()
            },
            m_axis_tready: self.rng.gen_bool(self.p_m),
        };
        if !rst {
            self.mix.ram_full += (self.shadow.occupancy() == self.cfg.depth()) as u64;
            self.mix.ring_full += (self.shadow.frames_held() == self.cfg.frames()) as u64;
            self.mix.early_verdicts += (v_valid && self.ended == 0) as u64;
        }
        let o = self.shadow.step(&i);
        if rst {
            // the source restarts with the block: the frame in progress and every verdict
            // not taken are abandoned
            self.frame.clear();
            self.verdicts.clear();
            self.ended = 0;
            return i;
        }
        if i.s_axis_tvalid && o.s_axis_tready {
            self.frame.pop_front();
            if l {
                self.ended += 1;
            }
        }
        if i.s_vrd_valid && o.s_vrd_ready {
            let keep = self.verdicts.pop_front().expect("a verdict was offered");
            self.ended -= 1;
            if keep {
                self.mix.verdict_keep += 1;
            } else {
                self.mix.verdict_refuse += 1;
            }
        }
        i
    }
}
