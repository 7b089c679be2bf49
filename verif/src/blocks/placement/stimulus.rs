//! Seeded random stimulus for the DMA placement unit's write path: the command source, the
//! data source and an AXI4 write slave (AW/W ready, B responses) around `mrnic_placement`.
//!
//! A shadow [`WrShell`] is stepped with every cycle's inputs, so the generator knows which
//! offers were taken and when a burst's last W beat was transferred: the slave answers a
//! burst with a B only after that (AXI4), in order, with a random delay, holding `bvalid`
//! until it is taken, with `bresp` OKAY or (in error phases) SLVERR / DECERR / EXOKAY.
//!
//! Commands: 4 KiB edge addresses (ending or starting within a few bytes of a boundary,
//! crossing one or several), 1-byte writes at every lane, the longest command (2^L - 1
//! bytes), zero-length ones, random lengths at random (sometimes unaligned, sometimes
//! near 2^64) addresses; windows mostly the checked one around the command, sometimes
//! partial, disjoint, or reaching past 2^64 (clipped). Every valid and ready goes through
//! phases (full rate, random, long stalls); rare random resets.
//!
//! Options: `power_up` holds reset for three cycles (outputs not compared in the first);
//! `no_resets` drops the random resets; profile `edge` sends only 4 KiB edge and 1-byte
//! commands, `long` only max-length commands.

use crate::kit::stim::{phase_rate, Resets};
use crate::kit::StimOpts;
use mrnic_model::transport::placement_wr::{plan, WrCmd, WrConfig, WrInputs, WrShell, PAGE_BYTES};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub const PROFILES: &[&str] = &["edge", "long"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceMix {
    pub cycles: u64,
    pub resets: u64,
    pub cmds: u64,
    pub edge_4k: u64,
    pub crossing_4k: u64,
    pub one_byte: u64,
    pub max_len: u64,
    pub zero_len: u64,
    pub clipped: u64,
    pub near_top: u64,
    pub max_bursts: u64,
    pub b_errors: u64,
    pub b_okay: u64,
}

impl PlaceMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("cmds", self.cmds),
            ("edge_4k", self.edge_4k),
            ("crossing_4k", self.crossing_4k),
            ("one_byte", self.one_byte),
            ("max_len", self.max_len),
            ("zero_len", self.zero_len),
            ("clipped", self.clipped),
            ("near_top", self.near_top),
            ("max_bursts", self.max_bursts),
            ("b_errors", self.b_errors),
            ("b_okay", self.b_okay),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct PlaceStimulus {
    rng: SmallRng,
    cfg: WrConfig,
    shadow: WrShell,
    held_s: Option<WrCmd>,
    held_d: Option<[u64; 8]>,
    /// Bursts whose last W beat was taken and whose B was not yet offered.
    b_due: u32,
    /// The B offered (held until taken).
    b_cur: Option<u8>,
    tag: u8,
    phase_left: u32,
    p_s: f64,
    p_d: f64,
    p_aw: f64,
    p_w: f64,
    p_b: f64,
    p_m: f64,
    p_err: f64,
    resets: Resets,
    opts: StimOpts,
    pub mix: PlaceMix,
}

impl PlaceStimulus {
    pub fn with_opts(seed: u64, cfg: WrConfig, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed ^ 0x504C_4143),
            cfg,
            shadow: WrShell::new(cfg),
            held_s: None,
            held_d: None,
            b_due: 0,
            b_cur: None,
            tag: 0,
            phase_left: 0,
            p_s: 1.0,
            p_d: 1.0,
            p_aw: 1.0,
            p_w: 1.0,
            p_b: 1.0,
            p_m: 1.0,
            p_err: 0.0,
            resets: Resets::new(opts),
            opts: opts.clone(),
            mix: PlaceMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        (self.p_s, self.p_d, self.p_aw, self.p_w, self.p_b, self.p_m) = (phase_rate(r), phase_rate(r), phase_rate(r), phase_rate(r), phase_rate(r), phase_rate(r));
        self.p_err = [0.0, 0.0, 0.02, 0.3, 1.0][r.gen_range(0..5)];
    }

    fn make_cmd(&mut self) -> WrCmd {
        let r = &mut self.rng;
        let lmax = (1u64 << self.cfg.len_bits) - 1;
        let b = u64::from(self.cfg.beat_bytes);
        let page = r.gen_range(1u64..1 << 40) * PAGE_BYTES;
        let kind = match self.opts.profile.as_str() {
            "edge" => r.gen_range(0..2),
            "long" => 2,
            _ => r.gen_range(0..100),
        };
        let (addr, len) = match kind {
            // 4 KiB edge: start just before a boundary, or end exactly at / just past one
            0 | 3..=24 => {
                self.mix.edge_4k += 1;
                match r.gen_range(0..4) {
                    0 => (page - r.gen_range(1..=2 * b), r.gen_range(1..=4 * b) as u32),
                    1 => {
                        let len = r.gen_range(1..600);
                        (page - len + r.gen_range(0..2), len as u32)
                    }
                    2 => (page - r.gen_range(1..64), r.gen_range(4096..9000) as u32),
                    _ => (page + r.gen_range(0..b), r.gen_range(1..300) as u32),
                }
            }
            // one byte, any lane, sometimes at a page's last byte
            1 | 25..=34 => {
                self.mix.one_byte += 1;
                (if r.gen_bool(0.2) { page - 1 } else { r.gen::<u64>() >> r.gen_range(0..40) }, 1)
            }
            // the longest command
            2 | 35 => {
                self.mix.max_len += 1;
                (page + r.gen_range(0..2 * b) - r.gen_range(0..b), lmax as u32)
            }
            36..=38 => {
                self.mix.zero_len += 1;
                (r.gen::<u64>() >> 8, 0)
            }
            39..=43 => {
                self.mix.near_top += 1;
                (u64::MAX - r.gen_range(0..9000), r.gen_range(1..5000))
            }
            _ => {
                let len = if r.gen_bool(0.9) { r.gen_range(1..1500) } else { r.gen_range(1..=lmax.min(8192)) } as u32;
                (r.gen::<u64>() >> r.gen_range(0..48), len)
            }
        };
        // the window: the checked one around the command, or not
        let end = u128::from(addr) + u128::from(len);
        let (base, wlen) = match r.gen_range(0..20) {
            0 => (addr.wrapping_add(r.gen_range(0..=u64::from(len) + 8)), r.gen_range(0..=u64::from(len) + 16)),
            1 => (addr.wrapping_sub(r.gen_range(0..64)), r.gen_range(0..=u64::from(len))),
            2 => (r.gen(), r.gen()),
            3 => (addr.wrapping_sub(r.gen_range(0..4096)), u64::MAX - r.gen_range(0..4096)),
            _ => {
                let base = addr - r.gen_range(0..=addr.min(8192));
                let wlen = (end - u128::from(base)) as u64;
                (base, wlen.saturating_add(r.gen_range(0..64)))
            }
        };
        self.tag = self.tag.wrapping_add(1);
        // a tag over all the port's bits (no extra draw: the command sequence stays the same)
        let tag = (u128::from(self.tag) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) >> (128 - mrnic_hdl::tops::PLACEMENT_TAG_BITS);
        let c = WrCmd { addr, len, base, wlen, tag };
        let p = plan(&self.cfg, &c);
        self.mix.cmds += 1;
        self.mix.clipped += p.clipped as u64;
        self.mix.crossing_4k += p.bursts.windows(2).any(|w| w[1].addr % PAGE_BYTES == 0 && w[0].addr / PAGE_BYTES != w[1].addr / PAGE_BYTES) as u64;
        self.mix.max_bursts += p.bursts.iter().filter(|b| b.beats == self.cfg.max_beats).count() as u64;
        c
    }

    /// The inputs of the next cycle (the shadow shell tells what the block takes).
    pub fn next_inputs(&mut self) -> WrInputs {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        if self.held_s.is_none() && self.rng.gen_bool(self.p_s) {
            self.held_s = Some(self.make_cmd());
        }
        if self.held_d.is_none() && self.rng.gen_bool(self.p_d) {
            let mut d = [0u64; 8];
            for w in d.iter_mut().take((self.cfg.beat_bytes as usize).div_ceil(8)) {
                *w = self.rng.gen();
            }
            self.held_d = Some(d);
        }
        if self.b_cur.is_none() && self.b_due > 0 && self.rng.gen_bool(self.p_b) {
            let resp = if self.rng.gen_bool(self.p_err) { [2, 3, 2, 3, 1][self.rng.gen_range(0..5)] } else { 0 };
            self.b_cur = Some(resp);
        }
        let i = WrInputs {
            rst,
            s_valid: self.held_s.is_some(),
            s: self.held_s.unwrap_or_default(),
            d_valid: self.held_d.is_some(),
            d_data: self.held_d.unwrap_or_default(),
            aw_ready: self.rng.gen_bool(self.p_aw),
            w_ready: self.rng.gen_bool(self.p_w),
            b_valid: self.b_cur.is_some(),
            b_resp: self.b_cur.unwrap_or(0),
            m_ready: self.rng.gen_bool(self.p_m),
        };
        let o = self.shadow.step(&i);
        if rst {
            // the slave is reset with the unit: its pending responses are dropped
            self.b_due = 0;
            self.b_cur = None;
            return i;
        }
        if i.s_valid && o.s_ready {
            self.held_s = None;
        }
        if i.d_valid && o.d_ready {
            self.held_d = None;
        }
        if let Some(w) = o.w {
            if i.w_ready && w.last {
                self.b_due += 1;
            }
        }
        if i.b_valid && o.b_ready {
            if i.b_resp != 0 {
                self.mix.b_errors += 1;
            } else {
                self.mix.b_okay += 1;
            }
            self.b_due -= 1;
            self.b_cur = None;
        }
        i
    }
}
