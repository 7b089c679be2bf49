//! The connection checks (`mrnic_conn_chk`) on the kit: the model cycle shell
//! ([`mrnic_model::transport::conn_chk_shell::ConnChkShell`]) as a [`CycleModel`], the
//! seeded stimulus (every row written first, then config writes racing requests aimed at
//! the rows: the right QPN, a stale or forged tag, a closed row, another peer, another
//! P_Key, a path id at or past P; result backpressure, rare resets) and the mutants.
//!
//! Stimulus. A shadow [`ConnChkShell`] is stepped with every cycle's inputs, so the
//! generator knows what the table holds and which offers were taken (a request is held
//! until taken). Rows come from a small hot set per phase, so config writes hit rows that
//! requests in flight have read (`stim.rewrites_in_flight`). Options: `power_up` holds
//! reset for three cycles; the table is written row by row before the first request (the
//! RAM powers up undefined); `no_resets` drops the random resets; profile `edge` rewrites
//! a hot row every cycle while requests read it.

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::transport::conn_chk_shell::{ConnCfg, ConnChkConfig, ConnChkInputs, ConnChkShell, ConnReq, ConnRow};
use mrnic_model::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["edge"];

/// Names of the unit's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 14] =
        ["rst", "s_cfg_valid", "s_cfg_conn", "s_cfg_live", "s_cfg_tag", "s_cfg_peer", "s_cfg_pkey", "s_valid", "s_qpn", "s_src", "s_pkey", "s_path", "s_tag", "m_ready"];
    pub const OUTPUTS: [&str; 13] = [
        "s_cfg_ready",
        "s_ready",
        "m_valid",
        "m_tag",
        "m_ok",
        "m_reason",
        "m_conn",
        "stat_ok",
        "stat_wrong_qp",
        "stat_wrong_peer",
        "stat_wrong_pkey",
        "stat_bad_path",
        "stat_cfg_writes",
    ];
}

/// Input and output indices of the unit's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct ConnPorts {
    pub i: [usize; 14],
    pub o: [usize; 13],
}

impl ConnPorts {
    pub fn resolve(io: &Io) -> Result<ConnPorts, KitError> {
        let mut p = ConnPorts { i: [0; 14], o: [0; 13] };
        for (k, n) in port::INPUTS.iter().enumerate() {
            p.i[k] = io.input(n)?;
        }
        for (k, n) in port::OUTPUTS.iter().enumerate() {
            p.o[k] = io.output(n)?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> ConnChkInputs {
        let g = |k: usize| v.get(self.i[k]);
        ConnChkInputs {
            rst: g(0) != 0,
            cfg_valid: g(1) != 0,
            cfg: ConnCfg { conn: g(2) as u32, row: ConnRow { live: g(3) != 0, tag: g(4) as u32, peer: g(5) as u32, pkey: g(6) as u16 } },
            s_valid: g(7) != 0,
            s: ConnReq { qpn: g(8) as u32, src: g(9) as u32, pkey: g(10) as u16, path: g(11) as u8, tag: g(12) as u8 },
            m_ready: g(13) != 0,
        }
    }
    pub fn write_inputs(&self, s: &ConnChkInputs, v: &mut Values) {
        for (k, x) in input_values(s).into_iter().enumerate() {
            v.set(self.i[k], x);
        }
    }
}

/// The values of the unit's inputs in [`port::INPUTS`] order.
pub fn input_values(s: &ConnChkInputs) -> [u64; 14] {
    let (c, r) = (&s.cfg, &s.s);
    [
        s.rst as u64,
        s.cfg_valid as u64,
        u64::from(c.conn),
        c.row.live as u64,
        u64::from(c.row.tag),
        u64::from(c.row.peer),
        u64::from(c.row.pkey),
        s.s_valid as u64,
        u64::from(r.qpn),
        u64::from(r.src),
        u64::from(r.pkey),
        u64::from(r.path),
        u64::from(r.tag),
        s.m_ready as u64,
    ]
}

/// The shell as a [`CycleModel`]; counts the results transferred by outcome.
pub struct ConnModel {
    pub shell: ConnChkShell,
    p: ConnPorts,
    by_reason: [u64; 5],
    stalled: u64,
}

impl CycleModel for ConnModel {
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
            o.set(p[5], u64::from(m.reason));
            o.set(p[6], u64::from(m.conn));
            if i.m_ready {
                self.by_reason[usize::from(m.reason).min(4)] += 1;
            } else {
                self.stalled += 1;
            }
        }
        for (k, (_, x)) in out.stats.list().into_iter().enumerate() {
            o.set(p[7 + k], u64::from(x));
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let n = &self.by_reason;
        vec![
            ("ok".into(), n[0]),
            ("wrong_qp".into(), n[1]),
            ("wrong_peer".into(), n[2]),
            ("wrong_pkey".into(), n[3]),
            ("bad_path".into(), n[4]),
            ("m_stalled_cycles".into(), self.stalled),
        ]
    }
}

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default)]
pub struct ConnMix {
    pub cycles: u64,
    pub resets: u64,
    pub requests: u64,
    pub init_writes: u64,
    pub cfg_writes: u64,
    pub rewrites_in_flight: u64,
    pub stale_tag: u64,
    pub closed_row: u64,
    pub other_peer: u64,
    pub other_pkey: u64,
    pub path_at_p: u64,
    pub path_past_p: u64,
}

impl ConnMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("requests", self.requests),
            ("init_writes", self.init_writes),
            ("cfg_writes", self.cfg_writes),
            ("rewrites_in_flight", self.rewrites_in_flight),
            ("stale_tag", self.stale_tag),
            ("closed_row", self.closed_row),
            ("other_peer", self.other_peer),
            ("other_pkey", self.other_pkey),
            ("path_at_p", self.path_at_p),
            ("path_past_p", self.path_past_p),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The seeded generator.
pub struct ConnStimulus {
    rng: SmallRng,
    cfg: ConnChkConfig,
    shadow: ConnChkShell,
    held: Option<ConnReq>,
    /// Rows read by requests transferred whose result was not.
    in_flight: VecDeque<u32>,
    /// Rows still to write in the initial pass.
    init: VecDeque<u32>,
    hot: Vec<u32>,
    phase_left: u32,
    p_s: f64,
    p_cfg: f64,
    p_m: f64,
    reset_left: u32,
    prologue_rst: u32,
    tag: u8,
    /// Peers and P_Keys the rows are written with: full-width values (every bit toggles),
    /// one of each redrawn now and then.
    peers: [u32; 3],
    pkeys: [u16; 3],
    opts: StimOpts,
    pub mix: ConnMix,
}

impl ConnStimulus {
    pub fn with_opts(seed: u64, cfg: ConnChkConfig, opts: &StimOpts) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x434f_4e4e);
        let peers = [rng.gen(), rng.gen(), !0];
        let pkeys = [0xffff, rng.gen(), rng.gen()];
        Self {
            rng,
            cfg,
            shadow: ConnChkShell::new(cfg),
            held: None,
            in_flight: VecDeque::new(),
            init: (0..cfg.connections).collect(),
            hot: vec![],
            phase_left: 0,
            p_s: 1.0,
            p_cfg: 0.0,
            p_m: 1.0,
            reset_left: 0,
            prologue_rst: if opts.power_up { 3 } else { 0 },
            tag: 0,
            peers,
            pkeys,
            opts: opts.clone(),
            mix: ConnMix::default(),
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
        self.p_cfg = if self.opts.profile == "edge" { 1.0 } else { [0.0, 0.02, 0.1, 0.4][r.gen_range(0..4)] };
        let nh = [1, 2, 4, 16][r.gen_range(0..4)];
        self.hot = (0..nh).map(|_| r.gen_range(0..c.connections)).collect();
        if r.gen_bool(0.3) {
            self.peers[r.gen_range(0..3)] = r.gen();
            self.pkeys[r.gen_range(1..3)] = r.gen();
        }
    }

    fn row_write(&mut self, conn: u32) -> ConnCfg {
        let r = &mut self.rng;
        let tmask = (1u32 << self.cfg.tag_bits()) - 1;
        let old = self.shadow.rows[conn as usize].tag;
        // mostly the next tag (a connection reopened), now and then any
        let tag = if r.gen_bool(0.7) { old.wrapping_add(1) & tmask } else { r.gen::<u32>() & tmask };
        ConnCfg { conn, row: ConnRow { live: r.gen_bool(0.85), tag, peer: self.peers[r.gen_range(0..3)], pkey: self.pkeys[r.gen_range(0..3)] } }
    }

    fn make_req(&mut self) -> ConnReq {
        let c = self.cfg;
        let r = &mut self.rng;
        let conn = if r.gen_bool(0.85) { self.hot[r.gen_range(0..self.hot.len())] } else { r.gen_range(0..c.connections) };
        let row = self.shadow.rows[conn as usize];
        let tmask = (1u32 << c.tag_bits()) - 1;
        let mut tag = row.tag;
        if r.gen_bool(0.1) {
            tag = match r.gen_range(0..3) {
                0 => tag.wrapping_sub(1),
                1 => tag.wrapping_add(1),
                _ => tag ^ (1 << r.gen_range(0..c.tag_bits())),
            } & tmask;
            self.mix.stale_tag += 1;
        }
        self.mix.closed_row += !row.live as u64;
        let mut src = row.peer;
        if r.gen_bool(0.1) {
            src = if r.gen_bool(0.5) { src ^ (1 << r.gen_range(0..32)) } else { self.peers[r.gen_range(0..3)] };
            self.mix.other_peer += (src != row.peer) as u64;
        }
        let mut pkey = row.pkey;
        if r.gen_bool(0.1) {
            pkey = if r.gen_bool(0.5) { pkey ^ (1 << r.gen_range(0..16)) } else { self.pkeys[r.gen_range(0..3)] };
            self.mix.other_pkey += (pkey != row.pkey) as u64;
        }
        let p = c.paths as u8;
        let path = match r.gen_range(0..20) {
            0 => p.min(15),
            1 => r.gen_range(p.min(15)..16),
            2 => p - 1,
            _ => r.gen_range(0..p),
        };
        self.mix.path_at_p += (u32::from(path) == c.paths) as u64;
        self.mix.path_past_p += (u32::from(path) > c.paths) as u64;
        self.tag = self.tag.wrapping_add(1);
        ConnReq { qpn: (tag << c.conn_bits()) | conn, src, pkey, path, tag: self.tag }
    }

    pub fn next_inputs(&mut self) -> ConnChkInputs {
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
        let (mut cfg_valid, mut cfg) = (false, ConnCfg::default());
        let initialising = !self.init.is_empty();
        if !rst {
            if let Some(row) = self.init.pop_front() {
                cfg_valid = true;
                cfg = self.row_write(row);
                self.mix.init_writes += 1;
            } else if self.rng.gen_bool(self.p_cfg) {
                cfg_valid = true;
                let conn = if self.rng.gen_bool(0.8) { self.hot[self.rng.gen_range(0..self.hot.len())] } else { self.rng.gen_range(0..self.cfg.connections) };
                cfg = self.row_write(conn);
            }
        }
        if self.held.is_none() && !initialising && self.rng.gen_bool(self.p_s) {
            self.held = Some(self.make_req());
        }
        let i = ConnChkInputs { rst, cfg_valid, cfg, s_valid: self.held.is_some(), s: self.held.unwrap_or_default(), m_ready: self.rng.gen_bool(self.p_m) };
        let o = self.shadow.step(&i);
        if rst {
            self.in_flight.clear();
            return i;
        }
        if o.m.is_some() && i.m_ready {
            self.in_flight.pop_front();
        }
        if cfg_valid && !initialising {
            self.mix.cfg_writes += 1;
            self.mix.rewrites_in_flight += self.in_flight.contains(&cfg.conn) as u64;
        }
        if i.s_valid && o.s_ready {
            self.in_flight.push_back(i.s.qpn & (self.cfg.connections - 1));
            self.held = None;
            self.mix.requests += 1;
        }
        i
    }
}

/// [`ConnStimulus`] as a kit [`Stimulus`].
pub struct ConnStim {
    pub gen: ConnStimulus,
    p: ConnPorts,
}

impl Stimulus for ConnStim {
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
pub struct ConnBench {
    pub cfg: ConnChkConfig,
}

impl ConnBench {
    pub fn new(cfg: &Config) -> Result<ConnBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(ConnBench { cfg: mrnic_hdl::tops::conn_chk_config(cfg).map_err(|e| KitError::Config(e.to_string()))? })
    }
}

impl Testbench for ConnBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = ConnPorts::resolve(io)?;
        Ok(Box::new(ConnModel { shell: ConnChkShell::new(self.cfg), p, by_reason: [0; 5], stalled: 0 }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("conn_chk", PROFILES, &opts.profile)?;
        Ok(Box::new(ConnStim { gen: ConnStimulus::with_opts(seed, self.cfg, opts), p: ConnPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // the row's open bit ignored: a closed connection's frames reach its state
    ("closed_row_accepted", "if (~|b_live$q | (b_rtag$q != b_qtag$q)) begin", "if ((b_rtag$q != b_qtag$q)) begin"),
    // the QPN's tag ignored: a stale or forged QPN reaches the row's connection
    ("tag_ignored", "if (~|b_live$q | (b_rtag$q != b_qtag$q)) begin", "if (~|b_live$q) begin"),
    // the source address not checked
    ("peer_ignored", "else if (b_peer$q != b_src$q) begin", "else if (1'b0) begin"),
    // the P_Key not checked
    ("pkey_ignored", "else if (b_rpkey$q != b_pkey$q) begin", "else if (1'b0) begin"),
    // path id < P off by one: path P passes
    ("path_bound_off_by_one", "a_pok$d = ((s_path) & 5'h1f) < k_paths;", "a_pok$d = ((s_path) & 5'h1f) <= k_paths;"),
    // peer before QP: the wrong reason for a frame failing both
    (
        "peer_checked_before_qp",
        "if (~|b_live$q | (b_rtag$q != b_qtag$q)) begin\n            d_reason = k_n1;",
        "if (b_peer$q != b_src$q) begin\n            d_reason = k_n2;\n        end\n        else if (~|b_live$q | (b_rtag$q != b_qtag$q)) begin\n            d_reason = k_n1;",
    ),
    // a stalled request re-reads the table instead of holding its row (a rewrite moves it)
    ("stale_row_after_rewrite", "a_fresh$d = en;", "a_fresh$d = 1'b1;"),
    // the tag taken from the wrong QPN bits (one too few shifted out)
    ("tag_from_the_wrong_bits", "q_hi = s_qpn >> k_c;", "q_hi = s_qpn >> (k_c - 8'h1);"),
    // a result dropped when the output is not ready (no hold)
    ("result_not_held", "en = on & (~o_v$q | m_ready);", "en = on;"),
];
