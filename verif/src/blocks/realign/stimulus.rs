//! Seeded random stimulus for the payload realigner (`mrnic_realign`): a command source on
//! `s_cmd` (one command per frame, in frame order), a frame source on `s_axis` and a sink's
//! `m_axis_tready`.
//!
//! A shadow [`RealignShell`] is stepped with every cycle's inputs, so the generator knows
//! which offers were taken (a valid/ready source holds its offer until it is).
//!
//! Frames: mostly 8 to 40 beats (a header stack and a small payload), some of one beat, some
//! of up to 160. Commands: a payload inside its frame at a realistic header offset (42 to
//! 110 bytes) or anywhere (0 to 255), to every lane; the payload ending exactly at the
//! frame's last byte; `len = 0` (discard); `off < lane` (the first beat's low lanes before
//! the frame); commands longer than their frame (padding after `tlast`), rarely up to the
//! 65 535-byte maximum. Every valid and ready goes through phases (full rate, random, long
//! stalls); rare random resets. Idle inputs carry random values.
//!
//! Options: `power_up` holds reset for three cycles; `no_resets` drops the random resets;
//! profile `edge` draws only corner commands (offsets 0..=8 and 247..=255, lengths 1..=17,
//! every lane, `off + len` at the frame's end, `len = 0`, the maximum length) on short frames;
//! `long` sends jumbo frames (up to 1152 beats) with payloads of up to 9000 bytes.

use crate::kit::stim::{phase_rate, Resets};
use crate::kit::StimOpts;
use mrnic_model::wire::realign::{Cmd, RealignConfig, RealignInputs, RealignShell};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["edge", "long"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RealignMix {
    pub cycles: u64,
    pub resets: u64,
    pub frames: u64,
    pub one_beat: u64,
    pub discard: u64,
    pub before_frame: u64,
    pub past_frame: u64,
    pub at_end: u64,
    pub max_len: u64,
    pub lanes_seen: u64,
}

impl RealignMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("frames", self.frames),
            ("one_beat", self.one_beat),
            ("discard", self.discard),
            ("before_frame", self.before_frame),
            ("past_frame", self.past_frame),
            ("at_end", self.at_end),
            ("max_len", self.max_len),
            ("lanes_seen", self.lanes_seen.count_ones() as u64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct RealignStimulus {
    rng: SmallRng,
    cfg: RealignConfig,
    shadow: RealignShell,
    /// Beats of frames not yet taken: (data, last), front first.
    beats: VecDeque<(u64, bool)>,
    /// Commands not yet taken, in frame order.
    cmds: VecDeque<Cmd>,
    phase_left: u32,
    p_c: f64,
    p_s: f64,
    p_m: f64,
    resets: Resets,
    opts: StimOpts,
    pub mix: RealignMix,
}

impl RealignStimulus {
    pub fn with_opts(seed: u64, cfg: RealignConfig, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed ^ 0x5245_414c),
            cfg,
            shadow: RealignShell::new(cfg),
            beats: VecDeque::new(),
            cmds: VecDeque::new(),
            phase_left: 0,
            p_c: 1.0,
            p_s: 1.0,
            p_m: 1.0,
            resets: Resets::new(opts),
            opts: opts.clone(),
            mix: RealignMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        (self.p_c, self.p_s, self.p_m) = (phase_rate(r), phase_rate(r), phase_rate(r));
        if r.gen_ratio(1, 12) {
            // a long stall of the sink (or of the commands): the frame source is held back
            if r.gen_bool(0.5) {
                self.p_m = 0.0;
            } else {
                self.p_c = 0.0;
            }
            self.phase_left = r.gen_range(200..2000);
        }
    }

    fn make_frame(&mut self) {
        let r = &mut self.rng;
        let b = self.cfg.beat_bytes;
        let max_off = (1u32 << self.cfg.off_bits) - 1;
        let max_len = (1u32 << self.cfg.len_bits) - 1;
        let nb: u32 = match self.opts.profile.as_str() {
            "edge" => r.gen_range(1..=40),
            "long" => r.gen_range(100..=1152),
            _ => match r.gen_range(0..20) {
                0 => 1,
                1 => r.gen_range(40..=160),
                _ => r.gen_range(8..=40),
            },
        };
        let bytes = nb * b;
        let lane = r.gen_range(0..b);
        let kind = if self.opts.profile == "edge" { r.gen_range(10..20) } else { r.gen_range(0..20) };
        let mut c = match kind {
            // a realistic header offset, the payload inside the frame
            0..=9 => {
                let off = r.gen_range(42..=110).min(bytes - 1);
                Cmd { off, len: r.gen_range(1..=bytes - off), lane }
            }
            // any offset, payload inside when it fits
            10 | 11 => {
                let off = r.gen_range(0..=max_off.min(bytes - 1));
                Cmd { off, len: r.gen_range(1..=(bytes - off).min(max_len)), lane }
            }
            // the payload ends exactly at the frame's last byte
            12 => {
                let off = r.gen_range(0..=max_off.min(bytes - 1));
                Cmd { off, len: bytes - off, lane }
            }
            // discard
            13 => Cmd { off: r.gen_range(0..=max_off), len: 0, lane },
            // an offset below the lane: the first beat starts before the frame
            14 => {
                let lane = r.gen_range(1..b);
                Cmd { off: r.gen_range(0..lane), len: r.gen_range(1..=17), lane }
            }
            // edge offsets and short lengths
            15 | 16 => {
                let off = if r.gen_bool(0.5) { r.gen_range(0..=8) } else { r.gen_range(max_off - 8..=max_off) };
                Cmd { off, len: r.gen_range(1..=17), lane }
            }
            // longer than the frame
            17 | 18 => Cmd { off: r.gen_range(0..=max_off), len: bytes + r.gen_range(1..200), lane },
            // the longest payloads (up to 8192 beats of padding: rare)
            _ => {
                if r.gen_ratio(1, 30) {
                    // the maximum, or a long payload (2048..8192 beats: the counters' top bits)
                    let len = if r.gen_bool(0.5) { max_len } else { r.gen_range(max_len / 4..max_len) };
                    Cmd { off: r.gen_range(0..=max_off), len, lane }
                } else {
                    Cmd { off: r.gen_range(0..=max_off), len: r.gen_range(1..=bytes.min(max_len)), lane }
                }
            }
        };
        if self.opts.profile == "long" && r.gen_bool(0.8) {
            let off = r.gen_range(42..=110);
            c = Cmd { off, len: r.gen_range(1..=(bytes - off).min(9000)), lane };
        }
        self.mix.frames += 1;
        self.mix.one_beat += (nb == 1) as u64;
        self.mix.discard += (c.len == 0) as u64;
        self.mix.before_frame += (c.len > 0 && c.off < c.lane) as u64;
        self.mix.past_frame += (c.off + c.len > bytes) as u64;
        self.mix.at_end += (c.len > 0 && c.off + c.len == bytes) as u64;
        self.mix.max_len += (c.len == max_len) as u64;
        self.mix.lanes_seen |= 1 << c.lane;
        for k in 0..nb {
            self.beats.push_back((r.gen::<u64>() & self.cfg.data_mask(), k + 1 == nb));
        }
        self.cmds.push_back(c);
    }

    /// The inputs of the next cycle (the shadow shell tells what the block takes).
    pub fn next_inputs(&mut self) -> RealignInputs {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        // keep a few frames ahead so commands can run ahead of their frames' beats
        while self.cmds.len() < 3 {
            self.make_frame();
        }
        let r = &mut self.rng;
        let c = self.cmds.front().copied().filter(|_| r.gen_bool(self.p_c));
        let beat = self.beats.front().copied().filter(|_| r.gen_bool(self.p_s));
        let i = RealignInputs {
            rst,
            s_cmd_valid: c.is_some(),
            s_cmd_off: c.map_or_else(|| r.gen::<u32>() & ((1 << self.cfg.off_bits) - 1), |c| c.off),
            s_cmd_len: c.map_or_else(|| r.gen::<u32>() & ((1 << self.cfg.len_bits) - 1), |c| c.len),
            s_cmd_lane: c.map_or_else(|| r.gen_range(0..self.cfg.beat_bytes), |c| c.lane),
            s_axis_tvalid: beat.is_some(),
            s_axis_tdata: beat.map_or_else(|| r.gen::<u64>() & self.cfg.data_mask(), |b| b.0),
            s_axis_tlast: beat.map_or_else(|| r.gen(), |b| b.1),
            m_axis_tready: r.gen_bool(self.p_m),
        };
        let o = self.shadow.step(&i);
        if rst {
            // the sources restart with the block: every command and beat not taken is
            // abandoned
            self.cmds.clear();
            self.beats.clear();
            return i;
        }
        if i.s_cmd_valid && o.s_cmd_ready {
            self.cmds.pop_front();
        }
        if i.s_axis_tvalid && o.s_axis_tready {
            self.beats.pop_front();
        }
        i
    }
}
