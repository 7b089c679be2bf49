//! Seeded random stimulus for the ACK generator (`mrnic_ackgen`): the NIC's time on `now`,
//! a DATA source on `s`, a configuration source on `s_cfg` and the ACK sink's `m_ready`.
//!
//! A shadow [`AckShell`] is stepped with every cycle's inputs, so the generator knows which
//! offers were taken (a valid/ready source holds its offer until it is).
//!
//! After every reset (and at the start) the configuration source writes every row of a
//! small set of active connections (connection 0, the last one and random others) and their
//! rate-hint bases; DATA uses only those rows. DATA packets: per (connection, path) mostly
//! the next path PSN, some skipping 1 to 3 (a gap), some repeating or going back (a
//! reordered or duplicated packet), some far (a PSN across the 24-bit wrap); classes new,
//! duplicate, out of window and refused; the A bit; CE marks in runs; paths at or past the
//! configured count. Mid-run configuration writes restart a path (its FIFO entry goes
//! stale) or change a connection's hint base. Time advances by `cycle_ns` per cycle, stands
//! still in some phases (armings pile up in the FIFO until it is full) and, rarely, jumps
//! (many deadlines due at once). Valid and ready rates go through phases
//! (full, random, sparse enough for the coalescing timer to fire, long sink stalls); rare
//! random resets.
//!
//! Options: `power_up` holds reset for three cycles; `no_resets` drops the random resets;
//! profile `timer` sends sparse traffic on many rows (most ACKs from the coalescing FIFO, time
//! jumps more often); profile `burst` sends back-to-back packets on one or two rows (the
//! write-first forwarding, `N` reached every few cycles, the FIFO full).

use crate::kit::stim::{phase_rate, Resets};
use crate::kit::StimOpts;
use mrnic_model::transport::ackgen::{AckClass, AckGenConfig, AckIn};
use mrnic_model::transport::ackgen_shell::{AckCfg, AckShell, AckShellIn, ACKGEN_A_TO_B};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["timer", "burst"];

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AckMix {
    pub cycles: u64,
    pub resets: u64,
    pub packets: u64,
    pub new: u64,
    pub duplicate: u64,
    pub out_of_window: u64,
    pub refused: u64,
    pub gaps_sent: u64,
    pub behind: u64,
    pub far: u64,
    pub bad_path: u64,
    pub cfg_writes: u64,
    pub mid_run_cfg: u64,
    pub time_jumps: u64,
    pub frozen_cycles: u64,
    pub coarse_cycles: u64,
    pub edge_cycles: u64,
    pub edge_packets: u64,
}

impl AckMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("packets", self.packets),
            ("new", self.new),
            ("duplicate", self.duplicate),
            ("out_of_window", self.out_of_window),
            ("refused", self.refused),
            ("gaps_sent", self.gaps_sent),
            ("behind", self.behind),
            ("far", self.far),
            ("bad_path", self.bad_path),
            ("cfg_writes", self.cfg_writes),
            ("mid_run_cfg", self.mid_run_cfg),
            ("time_jumps", self.time_jumps),
            ("frozen_cycles", self.frozen_cycles),
            ("coarse_cycles", self.coarse_cycles),
            ("edge_cycles", self.edge_cycles),
            ("edge_packets", self.edge_packets),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

pub struct AckStimulus {
    rng: SmallRng,
    cfg: AckGenConfig,
    cycle_ns: u32,
    shadow: AckShell,
    /// Rows per connection (2^PB).
    rows: u8,
    active: Vec<u32>,
    /// The next path PSN to send, per (active index, path).
    psn: Vec<u32>,
    now: u32,
    cfgq: VecDeque<AckCfg>,
    data: Option<AckIn>,
    phase_left: u32,
    p_s: f64,
    p_m: f64,
    p_ce: f64,
    /// Time stands still in this phase (`now` not advanced: armings pile up in the FIFO).
    frozen: bool,
    /// Time advances in steps of this many cycles (a coarse time counter): the paths armed
    /// within one step share their deadline and fall due together, the FIFO's pops run
    /// back to back with the pushes of the packets taken just before.
    tick: u32,
    /// Packets aimed at the FIFO's edge: with one entry in the FIFO, a packet that arms
    /// another row is taken so that its push lands in the cycle before the head falls due
    /// (the pop then makes the new entry the head the cycle after its push).
    edge: bool,
    resets: Resets,
    opts: StimOpts,
    pub mix: AckMix,
}

impl AckStimulus {
    pub fn with_opts(seed: u64, cfg: AckGenConfig, cycle_ns: u32, opts: &StimOpts) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x4143_4b47);
        let n = cfg.connections;
        let k = match opts.profile.as_str() {
            "burst" => 2,
            "timer" => 6,
            _ => 4,
        }
        .min(n as usize);
        let mut active = vec![0, n - 1];
        while active.len() < k {
            let c = rng.gen_range(0..n);
            if !active.contains(&c) {
                active.push(c);
            }
        }
        active.truncate(k);
        let rows = u32::from(cfg.paths).next_power_of_two().max(2) as u8;
        let now = rng.gen();
        Self {
            rng,
            cfg,
            cycle_ns,
            shadow: AckShell::new(cfg).expect("a valid configuration"),
            rows,
            psn: vec![0; active.len() * usize::from(rows)],
            active,
            now,
            cfgq: VecDeque::new(),
            data: None,
            phase_left: 0,
            p_s: 1.0,
            p_m: 1.0,
            p_ce: 0.2,
            frozen: false,
            tick: 1,
            edge: false,
            resets: Resets::new(opts),
            opts: opts.clone(),
            mix: AckMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    /// Every row of the active connections and their hint bases, in the configuration queue.
    fn init_rows(&mut self) {
        self.cfgq.clear();
        self.data = None;
        for a in 0..self.active.len() {
            let conn = self.active[a];
            let hb = match self.rng.gen_range(0..4) {
                0 => 0,
                1 => u32::MAX,
                _ => self.rng.gen_range(1..100_000),
            };
            self.cfgq.push_back(AckCfg { kind: 1, conn, path: 0, data: hb });
            for p in 0..self.rows {
                let isn = if self.rng.gen_bool(0.2) { 0xFF_FFFF - self.rng.gen_range(0..8) } else { self.rng.gen::<u32>() & 0xFF_FFFF };
                self.psn[a * usize::from(self.rows) + usize::from(p)] = isn;
                self.cfgq.push_back(AckCfg { kind: 0, conn, path: p, data: isn | (self.rng.gen::<u32>() & 0xFF00_0000) });
            }
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        (self.p_s, self.p_m) = (phase_rate(r), phase_rate(r));
        self.p_ce = [0.0, 0.05, 0.3, 1.0][r.gen_range(0..4)];
        if self.opts.profile == "timer" {
            // rows see a packet less often than every T: most ACKs are the timer's
            self.p_s = r.gen_range(0.01..0.2);
        } else if r.gen_ratio(1, 6) {
            // sparse: the coalescing timer fires between packets
            self.p_s = r.gen_range(0.001..0.05);
        }
        // time stands still now and then (a NIC whose time counter is held): the FIFO fills
        // with armings, stale ones included, up to its depth
        self.frozen = r.gen_ratio(1, if self.opts.profile == "burst" { 4 } else { 15 });
        self.tick = if r.gen_ratio(1, 4) { r.gen_range(2..=16) } else { 1 };
        self.edge = self.opts.profile != "burst" && r.gen_ratio(1, 5);
        if self.edge {
            (self.frozen, self.tick) = (false, 1);
        }
        if r.gen_ratio(1, 12) {
            // a long stall of the sink
            self.p_m = 0.0;
            self.phase_left = r.gen_range(200..2000);
        }
    }

    fn make_packet(&mut self) -> AckIn {
        let r = &mut self.rng;
        let a = r.gen_range(0..self.active.len());
        let conn = self.active[a];
        let paths = u32::from(self.cfg.paths);
        let path = if self.opts.profile == "burst" { r.gen_range(0..2.min(paths)) as u8 } else if paths < 16 && r.gen_ratio(1, 40) {
            self.mix.bad_path += 1;
            r.gen_range(paths..16) as u8
        } else {
            r.gen_range(0..paths) as u8
        };
        let slot = a * usize::from(self.rows) + usize::from(path & (self.rows - 1));
        let next = self.psn[slot];
        let path_psn = match r.gen_range(0..40) {
            0..=2 => {
                self.mix.gaps_sent += 1;
                (next + r.gen_range(1..=3)) & 0xFF_FFFF
            }
            3 | 4 => {
                self.mix.behind += 1;
                next.wrapping_sub(r.gen_range(1..=4)) & 0xFF_FFFF
            }
            5 => {
                self.mix.far += 1;
                next.wrapping_add(r.gen_range(1 << 22..1 << 24)) & 0xFF_FFFF
            }
            _ => next,
        };
        if path < self.cfg.paths && path_psn.wrapping_sub(next) & 0x80_0000 == 0 {
            self.psn[slot] = (path_psn + 1) & 0xFF_FFFF;
        }
        let class = match r.gen_range(0..20) {
            0..=1 => AckClass::Duplicate,
            2 => AckClass::OutOfWindow,
            3..=5 => AckClass::Refused,
            _ => AckClass::New,
        };
        AckIn {
            conn,
            path,
            path_psn,
            class: class.code(),
            ack_req: r.gen_ratio(1, 30),
            ce: r.gen_bool(self.p_ce),
            ts: r.gen(),
            sport: if r.gen_bool(0.9) { 0xC000 | u16::from(path) } else { r.gen() },
        }
    }

    /// An edge phase's packet (see `edge`): an empty FIFO gets an arming packet now and
    /// then; a FIFO of one entry whose head falls due one cycle after B (time advances
    /// `cycle_ns` per cycle in this phase) gets a packet that arms another row, taken now and
    /// pushed in B. An offered packet stays offered until it is taken.
    fn edge_packet(&mut self) {
        if self.data.is_some() {
            return;
        }
        let (len, head) = self.shadow.fifo_state();
        if len == 0 && self.rng.gen_ratio(1, 8) {
            self.data = Some(self.make_packet());
        } else if let (1, Some(t)) = (len, head) {
            let ahead = t.0.wrapping_sub(self.now);
            let b = ACKGEN_A_TO_B;
            if ahead > b * self.cycle_ns && ahead <= (b + 1) * self.cycle_ns {
                // in order, new, no A bit (it arms its row unless that row is the head's)
                let r = &mut self.rng;
                let a = r.gen_range(0..self.active.len());
                let path = r.gen_range(0..u32::from(self.cfg.paths)) as u8;
                let slot = a * usize::from(self.rows) + usize::from(path & (self.rows - 1));
                let path_psn = self.psn[slot];
                self.psn[slot] = (path_psn + 1) & 0xFF_FFFF;
                self.data = Some(AckIn {
                    conn: self.active[a],
                    path,
                    path_psn,
                    class: AckClass::New.code(),
                    ack_req: false,
                    ce: r.gen_bool(self.p_ce),
                    ts: r.gen(),
                    sport: 0xC000 | u16::from(path),
                });
                self.mix.edge_packets += 1;
            }
        }
    }

    /// The inputs of the next cycle (the shadow shell tells what the block takes).
    pub fn next_inputs(&mut self) -> AckShellIn {
        if self.mix.cycles == 0 {
            self.init_rows();
        }
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        // time: one cycle, rarely a jump (deadlines pile up)
        let jump = if self.opts.profile == "timer" { 2_000 } else { 20_000 };
        if self.frozen {
            self.mix.frozen_cycles += 1;
        } else if self.tick > 1 {
            self.mix.coarse_cycles += 1;
            if self.mix.cycles % u64::from(self.tick) == 0 {
                self.now = self.now.wrapping_add(self.cycle_ns * self.tick);
            }
        } else {
            self.now = self.now.wrapping_add(self.cycle_ns);
        }
        if self.rng.gen_ratio(1, jump) {
            self.now = self.now.wrapping_add(self.rng.gen_range(1..=2 * self.cfg.ack_timeout));
            self.mix.time_jumps += 1;
        }
        let init = !self.cfgq.is_empty() && self.data.is_none();
        if !init {
            if self.rng.gen_ratio(1, 3000) {
                // a mid-run write: a path restarts, or a connection's hint base changes
                let a = self.rng.gen_range(0..self.active.len());
                let conn = self.active[a];
                let c = if self.rng.gen_bool(0.5) {
                    let p = self.rng.gen_range(0..self.rows);
                    let isn = self.rng.gen::<u32>() & 0xFF_FFFF;
                    self.psn[a * usize::from(self.rows) + usize::from(p)] = isn;
                    AckCfg { kind: 0, conn, path: p, data: isn }
                } else {
                    AckCfg { kind: 1, conn, path: self.rng.gen(), data: self.rng.gen() }
                };
                self.cfgq.push_back(c);
                self.mix.mid_run_cfg += 1;
            }
            if self.edge {
                self.mix.edge_cycles += 1;
                self.edge_packet();
            } else if self.data.is_none() && self.rng.gen_bool(self.p_s) {
                self.data = Some(self.make_packet());
            }
        }
        let r = &mut self.rng;
        let cfg = self.cfgq.front().copied();
        let idle = AckIn { conn: r.gen_range(0..self.cfg.connections), path: r.gen::<u8>() & 15, path_psn: r.gen::<u32>() & 0xFF_FFFF, class: r.gen::<u8>() & 3, ack_req: r.gen(), ce: r.gen(), ts: r.gen(), sport: r.gen() };
        let icfg = AckCfg { kind: r.gen::<u8>() & 1, conn: r.gen_range(0..self.cfg.connections), path: r.gen::<u8>() & 15, data: r.gen() };
        let i = AckShellIn {
            rst,
            now: self.now,
            s_valid: self.data.is_some(),
            s: self.data.unwrap_or(idle),
            s_cfg_valid: cfg.is_some(),
            s_cfg: cfg.unwrap_or(icfg),
            m_ready: r.gen_bool(self.p_m),
        };
        let o = self.shadow.step(&i);
        if rst {
            // the sources restart with the block: the rows are written again
            self.init_rows();
            return i;
        }
        if i.s_cfg_valid && o.s_cfg_ready {
            self.cfgq.pop_front();
            self.mix.cfg_writes += 1;
        }
        if i.s_valid && o.s_ready {
            let d = self.data.take().expect("offered");
            self.mix.packets += 1;
            match AckClass::from_code(d.class) {
                AckClass::New => self.mix.new += 1,
                AckClass::Duplicate => self.mix.duplicate += 1,
                AckClass::OutOfWindow => self.mix.out_of_window += 1,
                AckClass::Refused => self.mix.refused += 1,
            }
        }
        i
    }
}
