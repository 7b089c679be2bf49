//! The DMA placement unit's checks (`mrnic_place_chk`) on the kit: its model cycle shell
//! ([`mrnic_model::transport::place_chk_shell::ChkShell`]) as a [`CycleModel`], its seeded
//! stimulus (every table row written first, then random config writes racing requests aimed
//! at the rows' edges, result backpressure, rare resets) and its mutants.
//!
//! Stimulus. A shadow [`ChkShell`] is stepped with every cycle's inputs, so the generator
//! knows what the tables hold (to aim requests at a region's or a receive buffer's edges,
//! use stale tags and other protection domains) and which offers were taken (a request is
//! held until taken). Rows and connections come from a small hot set per phase, so config
//! writes hit rows that requests in flight have read (`stim.rewrites_in_flight`).
//! Options: `power_up` holds reset for three cycles (the first cycle's outputs are not
//! compared); the tables are written row by row before the first request in every run (the
//! RAMs power up undefined); `no_resets` drops the random resets; profile `edge` aims every
//! request at an edge with config writes at full rate.

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::transport::place_chk_shell::{CfgWrite, ChkConfig, ChkInputs, ChkReq, ChkShell};
use mrnic_model::transport::SEQ_MASK;
use mrnic_model::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["edge"];

/// Names of the unit's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 22] = [
        "rst",
        "s_cfg_valid",
        "s_cfg_table",
        "s_cfg_row",
        "s_cfg_key",
        "s_cfg_live",
        "s_cfg_write",
        "s_cfg_pd",
        "s_cfg_base",
        "s_cfg_len",
        "s_cfg_head",
        "s_cfg_count",
        "s_valid",
        "s_conn",
        "s_pd",
        "s_send",
        "s_va",
        "s_rkey",
        "s_len",
        "s_ssn",
        "s_tag",
        "m_ready",
    ];
    pub const OUTPUTS: [&str; 18] = [
        "s_cfg_ready",
        "s_ready",
        "m_valid",
        "m_tag",
        "m_ok",
        "m_nak",
        "m_addr",
        "m_base",
        "m_wlen",
        "m_len",
        "stat_ok",
        "stat_bad_rkey",
        "stat_out_of_bounds",
        "stat_access_denied",
        "stat_no_rbuf",
        "stat_invalid",
        "stat_cfg_writes",
        "stat_cfg_refused",
    ];
}

/// Input and output indices of the unit's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct ChkPorts {
    pub i: [usize; 22],
    pub o: [usize; 18],
}

impl ChkPorts {
    pub fn resolve(io: &Io) -> Result<ChkPorts, KitError> {
        let mut p = ChkPorts { i: [0; 22], o: [0; 18] };
        for k in 0..22 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..18 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> ChkInputs {
        let g = |k: usize| v.get(self.i[k]);
        ChkInputs {
            rst: g(0) != 0,
            cfg_valid: g(1) != 0,
            cfg: CfgWrite {
                table: g(2) as u8,
                row: g(3) as u32,
                key: g(4) as u32,
                valid: g(5) != 0,
                write: g(6) != 0,
                pd: g(7) as u32,
                base: g(8),
                len: g(9),
                head: g(10) as u32,
                count: g(11) as u32,
            },
            s_valid: g(12) != 0,
            s: ChkReq { conn: g(13) as u32, pd: g(14) as u32, send: g(15) != 0, va: g(16), rkey: g(17) as u32, len: g(18) as u32, ssn: g(19) as u32, tag: g(20) as u8 },
            m_ready: g(21) != 0,
        }
    }
    pub fn write_inputs(&self, s: &ChkInputs, v: &mut Values) {
        let vals = input_values(s);
        for (k, x) in vals.into_iter().enumerate() {
            v.set(self.i[k], x);
        }
    }
}

/// The values of the unit's inputs in [`port::INPUTS`] order.
pub fn input_values(s: &ChkInputs) -> [u64; 22] {
    let c = &s.cfg;
    let r = &s.s;
    [
        s.rst as u64,
        s.cfg_valid as u64,
        u64::from(c.table),
        u64::from(c.row),
        u64::from(c.key),
        c.valid as u64,
        c.write as u64,
        u64::from(c.pd),
        c.base,
        c.len,
        u64::from(c.head),
        u64::from(c.count),
        s.s_valid as u64,
        u64::from(r.conn),
        u64::from(r.pd),
        r.send as u64,
        r.va,
        u64::from(r.rkey),
        u64::from(r.len),
        u64::from(r.ssn),
        u64::from(r.tag),
        s.m_ready as u64,
    ]
}

/// The shell as a [`CycleModel`]; counts the results transferred by outcome.
pub struct ChkModel {
    pub shell: ChkShell,
    p: ChkPorts,
    naks: [u64; 6],
    stalled: u64,
}

impl CycleModel for ChkModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.cfg_ready as u64);
        o.set(p[1], out.s_ready as u64);
        o.set(p[2], out.m.is_some() as u64);
        if let Some(m) = out.m {
            o.set(p[3], u64::from(m.tag));
            o.set(p[4], m.ok as u64);
            o.set(p[5], u64::from(m.nak));
            o.set(p[6], m.addr);
            o.set(p[7], m.base);
            o.set(p[8], m.wlen);
            o.set(p[9], u64::from(m.len));
            if i.m_ready {
                self.naks[usize::from(m.nak).min(5)] += 1;
            } else {
                self.stalled += 1;
            }
        }
        let s = out.stats;
        for (k, x) in [s.ok, s.bad_rkey, s.out_of_bounds, s.access_denied, s.no_rbuf, s.invalid, s.cfg_writes, s.cfg_refused].into_iter().enumerate() {
            o.set(p[10 + k], u64::from(x));
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let n = &self.naks;
        vec![
            ("ok".into(), n[0]),
            ("bad_rkey".into(), n[1]),
            ("out_of_bounds".into(), n[2]),
            ("access_denied".into(), n[3]),
            ("no_rbuf".into(), n[4]),
            ("invalid".into(), n[5]),
            ("m_stalled_cycles".into(), self.stalled),
        ]
    }
}

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default)]
pub struct ChkMix {
    pub cycles: u64,
    pub resets: u64,
    pub requests: u64,
    pub init_writes: u64,
    pub cfg_writes: u64,
    pub rewrites_in_flight: u64,
    pub ok_write: u64,
    pub ok_send: u64,
    pub va_at_base: u64,
    pub end_at_bound: u64,
    pub end_past: u64,
    pub len_mtu: u64,
    pub len_mtu1: u64,
    pub zero_len: u64,
    pub stale_tag: u64,
    pub other_pd: u64,
    pub near_top: u64,
}

impl ChkMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("requests", self.requests),
            ("init_writes", self.init_writes),
            ("cfg_writes", self.cfg_writes),
            ("rewrites_in_flight", self.rewrites_in_flight),
            ("ok_write", self.ok_write),
            ("ok_send", self.ok_send),
            ("va_at_base", self.va_at_base),
            ("end_at_bound", self.end_at_bound),
            ("end_past", self.end_past),
            ("len_mtu", self.len_mtu),
            ("len_mtu1", self.len_mtu1),
            ("zero_len", self.zero_len),
            ("stale_tag", self.stale_tag),
            ("other_pd", self.other_pd),
            ("near_top", self.near_top),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The seeded generator.
pub struct ChkStimulus {
    rng: SmallRng,
    cfg: ChkConfig,
    shadow: ChkShell,
    held: Option<ChkReq>,
    /// Requests transferred whose result was not: (MR row, RB row, conn) each read.
    in_flight: VecDeque<(u32, u32, u32, bool)>,
    /// Rows still to write in the initial pass: (table, row).
    init: VecDeque<(u8, u32)>,
    hot_rows: Vec<u32>,
    hot_conns: Vec<u32>,
    phase_left: u32,
    p_s: f64,
    p_cfg: f64,
    p_m: f64,
    reset_left: u32,
    prologue_rst: u32,
    tag: u8,
    /// The protection domains and key tags regions are written with: full-width values (so
    /// every bit of the PD and key paths toggles), one of each redrawn now and then.
    pds: [u32; 3],
    tags: [u32; 4],
    opts: StimOpts,
    pub mix: ChkMix,
}

impl ChkStimulus {
    pub fn with_opts(seed: u64, cfg: ChkConfig, opts: &StimOpts) -> Self {
        let mut init = VecDeque::new();
        init.extend((0..cfg.mr_entries).map(|r| (0u8, r)));
        init.extend((0..cfg.connections * cfg.rq_depth).map(|r| (1u8, r)));
        init.extend((0..cfg.connections).map(|r| (2u8, r)));
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x4348_4B00);
        let pds = [0, rng.gen(), rng.gen()];
        let tags = [0, 1, rng.gen::<u32>() >> cfg.idx_bits(), rng.gen::<u32>() >> cfg.idx_bits()];
        Self {
            rng,
            cfg,
            shadow: ChkShell::new(cfg),
            held: None,
            in_flight: VecDeque::new(),
            init,
            hot_rows: vec![],
            hot_conns: vec![],
            phase_left: 0,
            p_s: 1.0,
            p_cfg: 0.0,
            p_m: 1.0,
            reset_left: 0,
            prologue_rst: if opts.power_up { 3 } else { 0 },
            tag: 0,
            pds,
            tags,
            opts: opts.clone(),
            mix: ChkMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn new_phase(&mut self) {
        let c = self.cfg;
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        let mut p = || match r.gen_range(0..8) {
            0..=3 => 1.0,
            4 => r.gen_range(0.05..0.3),
            _ => r.gen_range(0.3..1.0),
        };
        (self.p_s, self.p_m) = (p(), p());
        self.p_cfg = [0.0, 0.02, 0.1, 0.4, 1.0][r.gen_range(0..5)];
        if self.opts.profile == "edge" {
            self.p_cfg = 1.0;
        }
        let nh = [1, 2, 4, 16][r.gen_range(0..4)];
        self.hot_rows = (0..nh).map(|_| r.gen_range(0..c.mr_entries)).collect();
        self.hot_conns = (0..nh).map(|_| r.gen_range(0..c.connections)).collect();
        if r.gen_bool(0.3) {
            self.pds[r.gen_range(1..3)] = r.gen();
            self.tags[r.gen_range(2..4)] = r.gen::<u32>() >> c.idx_bits();
        }
    }

    fn addr(r: &mut SmallRng) -> u64 {
        match r.gen_range(0..6) {
            0 => u64::MAX - r.gen_range(0..0x3000),
            1 => r.gen_range(0..0x10000),
            _ => r.gen::<u64>() >> r.gen_range(0..40),
        }
    }

    fn region_len(r: &mut SmallRng, mtu: u32) -> u64 {
        match r.gen_range(0..8) {
            0 => 0,
            1 => r.gen_range(1..64),
            2 => u64::from(mtu),
            3 => u64::from(mtu) - 1,
            4 => u64::MAX - r.gen_range(0..3),
            _ => r.gen_range(0..1 << 20),
        }
    }

    fn mr_write(&mut self, row: u32) -> CfgWrite {
        let r = &mut self.rng;
        let tag = self.tags[r.gen_range(0..4)];
        CfgWrite {
            table: 0,
            key: (tag << self.cfg.idx_bits()) | row,
            valid: r.gen_bool(0.85),
            write: r.gen_bool(0.85),
            pd: self.pds[r.gen_range(0..3)],
            base: Self::addr(r),
            len: Self::region_len(r, self.cfg.mtu),
            row: r.gen(),
            ..Default::default()
        }
    }

    fn rb_write(&mut self, row: u32) -> CfgWrite {
        let r = &mut self.rng;
        CfgWrite { table: 1, row, base: Self::addr(r), len: Self::region_len(r, self.cfg.mtu), key: r.gen(), ..Default::default() }
    }

    fn rq_write(&mut self, conn: u32) -> CfgWrite {
        let r = &mut self.rng;
        let head = if r.gen_bool(0.2) { SEQ_MASK - r.gen_range(0..4) } else { r.gen_range(0..64) };
        let count = match r.gen_range(0..100) {
            0..=1 => self.cfg.rq_depth + 1 + r.gen_range(0..3),
            2 => r.gen_range(self.cfg.rq_depth + 1..=0xffff),
            _ => r.gen_range(0..=self.cfg.rq_depth),
        };
        CfgWrite { table: 2, row: conn, head, count, ..Default::default() }
    }

    fn random_write(&mut self) -> CfgWrite {
        let c = self.cfg;
        let row = self.hot_rows[self.rng.gen_range(0..self.hot_rows.len())];
        let conn = self.hot_conns[self.rng.gen_range(0..self.hot_conns.len())];
        match self.rng.gen_range(0..10) {
            0..=4 => {
                let row = if self.rng.gen_bool(0.8) { row } else { self.rng.gen_range(0..c.mr_entries) };
                self.mr_write(row)
            }
            5..=7 => {
                let slot = self.rng.gen_range(0..c.rq_depth);
                self.rb_write(conn << c.slot_bits() | slot)
            }
            8 => self.rq_write(conn),
            _ => CfgWrite { table: 3, ..self.rb_write(0) },
        }
    }

    fn make_req(&mut self) -> ChkReq {
        let c = self.cfg;
        let sh = &self.shadow;
        let r = &mut self.rng;
        let row = if r.gen_bool(0.85) { self.hot_rows[r.gen_range(0..self.hot_rows.len())] } else { r.gen_range(0..c.mr_entries) };
        let conn = if r.gen_bool(0.85) { self.hot_conns[r.gen_range(0..self.hot_conns.len())] } else { r.gen_range(0..c.connections) };
        let mr = sh.mr[row as usize];
        let (head, count) = sh.rq[conn as usize];
        let send = r.gen_bool(0.4);
        let ssn = match r.gen_range(0..8) {
            0 => head.wrapping_sub(1),
            1 => head.wrapping_add(count),
            2 => r.gen(),
            _ => head.wrapping_add(r.gen_range(0..count.max(1))),
        } & SEQ_MASK;
        let mut rkey = if mr.valid || r.gen_bool(0.5) { mr.key } else { self.tags[r.gen_range(0..4)] << c.idx_bits() | row };
        let mut pd = mr.pd;
        if !send && r.gen_bool(0.08) {
            rkey ^= 1 << (c.idx_bits() + r.gen_range(0..2));
            self.mix.stale_tag += 1;
        }
        if r.gen_bool(0.08) {
            let others: Vec<u32> = self.pds.iter().copied().filter(|&x| x != pd).collect();
            pd = others[r.gen_range(0..others.len())];
            self.mix.other_pd += !send as u64;
        }
        let (lo, wl) = if send { (0, sh.rb[(conn << c.slot_bits() | (ssn & (c.rq_depth - 1))) as usize].1) } else { (mr.base, mr.len) };
        let len = match r.gen_range(0..10) {
            0 => 0,
            1 => c.mtu,
            2 => c.mtu + 1,
            3 => r.gen_range(c.mtu..1 << 16),
            4 => 1,
            _ => r.gen_range(1..=c.mtu.min(wl.max(1).min(u64::from(c.mtu)) as u32)),
        };
        let end = lo.wrapping_add(wl);
        let va = match if self.opts.profile == "edge" { r.gen_range(0..4) } else { r.gen_range(0..8) } {
            0 => {
                self.mix.va_at_base += 1;
                lo
            }
            1 => {
                self.mix.end_at_bound += 1;
                end.wrapping_sub(u64::from(len))
            }
            2 => {
                self.mix.end_past += 1;
                end.wrapping_sub(u64::from(len)).wrapping_add(1)
            }
            3 => lo.wrapping_sub(1),
            4 => {
                self.mix.near_top += 1;
                u64::MAX - r.gen_range(0..0x2000)
            }
            5 => r.gen(),
            _ => lo.wrapping_add(r.gen_range(0..wl.max(1).min(1 << 20))),
        };
        self.mix.len_mtu += (len == c.mtu) as u64;
        self.mix.len_mtu1 += (len == c.mtu + 1) as u64;
        self.mix.zero_len += (len == 0) as u64;
        self.tag = self.tag.wrapping_add(1);
        ChkReq { conn, pd, send, va, rkey, len, ssn, tag: self.tag }
    }

    pub fn next_inputs(&mut self) -> ChkInputs {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let mut rst = false;
        if self.prologue_rst > 0 {
            self.prologue_rst -= 1;
            rst = true;
        } else if self.reset_left > 0 {
            self.reset_left -= 1;
            rst = true;
        } else if !self.opts.no_resets && self.init.is_empty() && self.rng.gen_ratio(1, 50_000) {
            self.reset_left = self.rng.gen_range(0..3);
            rst = true;
            self.mix.resets += 1;
        }
        let c = self.cfg;
        let (mut cfg_valid, mut cfg) = (false, CfgWrite::default());
        let initialising = !self.init.is_empty();
        if !rst {
            if let Some((t, row)) = self.init.pop_front() {
                cfg_valid = true;
                cfg = match t {
                    0 => self.mr_write(row),
                    1 => self.rb_write(row),
                    _ => CfgWrite { count: self.rng.gen_range(0..=c.rq_depth), ..self.rq_write(row) },
                };
                self.mix.init_writes += 1;
            } else if self.rng.gen_bool(self.p_cfg) {
                cfg_valid = true;
                cfg = self.random_write();
            }
        }
        if self.held.is_none() && !initialising && self.rng.gen_bool(self.p_s) {
            self.held = Some(self.make_req());
        }
        let i = ChkInputs { rst, cfg_valid, cfg, s_valid: self.held.is_some(), s: self.held.unwrap_or_default(), m_ready: self.rng.gen_bool(self.p_m) };
        let o = self.shadow.step(&i);
        if rst {
            self.in_flight.clear();
            return i;
        }
        if let (Some(m), true) = (o.m, i.m_ready) {
            let send = self.in_flight.pop_front().is_some_and(|f| f.3);
            if m.ok {
                *(if send { &mut self.mix.ok_send } else { &mut self.mix.ok_write }) += 1;
            }
        }
        if cfg_valid && !initialising {
            let w = &i.cfg;
            let hit = self.in_flight.iter().any(|&(mr, rb, conn, _)| match w.table {
                0 => w.key & (c.mr_entries - 1) == mr,
                1 => w.row & (c.connections * c.rq_depth - 1) == rb,
                2 => w.row & (c.connections - 1) == conn,
                _ => false,
            });
            self.mix.cfg_writes += 1;
            self.mix.rewrites_in_flight += hit as u64;
        }
        if i.s_valid && o.s_ready {
            let r = self.shadow.masked(&i.s);
            self.in_flight.push_back((r.rkey & (c.mr_entries - 1), r.conn << c.slot_bits() | (r.ssn & (c.rq_depth - 1)), r.conn, r.send));
            self.held = None;
            self.mix.requests += 1;
        }
        i
    }
}

/// [`ChkStimulus`] as a kit [`Stimulus`].
pub struct ChkStim {
    pub gen: ChkStimulus,
    p: ChkPorts,
}

impl Stimulus for ChkStim {
    #[inline]
    fn next(&mut self, _taken: &[bool], v: &mut Values) {
        let i = self.gen.next_inputs();
        self.p.write_inputs(&i, v);
    }
    fn settle_cycles(&self) -> u64 {
        self.gen.settle_cycles()
    }
    fn counters(&self) -> Vec<(String, u64)> {
        self.gen.mix.counters()
    }
}

/// The check unit's testbench at one configuration.
#[derive(Clone, Debug)]
pub struct ChkBench {
    pub cfg: ChkConfig,
}

impl ChkBench {
    pub fn new(cfg: &Config) -> Result<ChkBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(ChkBench { cfg: mrnic_hdl::tops::place_chk_config(cfg).map_err(|e| KitError::Config(e.to_string()))? })
    }
}


impl Testbench for ChkBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = ChkPorts::resolve(io)?;
        Ok(Box::new(ChkModel { shell: ChkShell::new(self.cfg), p, naks: [0; 6], stalled: 0 }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("place_chk", PROFILES, &opts.profile)?;
        Ok(Box::new(ChkStim { gen: ChkStimulus::with_opts(seed, self.cfg, opts), p: ChkPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // the region's end bound off by one: a write ending one byte past it passes
    ("region_end_off_by_one", "hi_ok = r_end$q <= r_bend$q;", "hi_ok = r_end$q <= r_bend$q + 65'h1;"),
    // the region's start bound not checked
    ("region_start_ignored", "lo_ok = b_va$q >= b_mr_base$q;", "lo_ok = 1'b1;"),
    // the protection domain ignored
    ("pd_ignored", "(b_mr_pd$q == b_pd$q)", "1'b1"),
    // the key's tag ignored: only the row index selects the region (stale keys pass)
    ("tag_ignored", "(b_mr_key$q == b_rkey$q)", "1'b1"),
    // the remote write right ignored
    ("rights_ignored", "else if (~r_write$q) begin", "else if (1'b0) begin"),
    // the row's valid bit ignored
    ("valid_ignored", "hit = |b_mr_live$q &", "hit = 1'b1 &"),
    // len > mtu off by one: a request of mtu bytes is refused
    ("mtu_off_by_one", "a_big$d = s_len > k_mtu;", "a_big$d = s_len >= k_mtu;"),
    // the receive buffer's end off by one
    ("rbuf_end_off_by_one", "s_fit = b_end$q <= ", "s_fit = b_end$q < "),
    // the receive queue's count not checked: a SEND with no posted buffer lands in a stale one
    ("rq_count_ignored", "have = k_sub < ((b_rq_count$q) & 24'hffffff);", "have = 1'b1;"),
    // a stalled request re-reads the tables instead of holding its rows (a rewrite moves its window)
    ("stale_window_after_rewrite", "a_fresh$d = en;", "a_fresh$d = 1'b1;"),
    // a refused receive-queue write (count > rq_depth) is written anyway (its count RAM)
    ("rq_count_write_unchecked", "ram_rq_count$write_enable = cfg_hs & (s_cfg_table == k_t2) & cnt_ok;", "ram_rq_count$write_enable = cfg_hs & (s_cfg_table == k_t2);"),
    // a SEND's address not offset by the buffer's
    ("send_addr_not_offset", "s_addr = b_rb_addr$q + b_va$q;", "s_addr = b_va$q;"),
];
