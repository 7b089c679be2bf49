//! The path table (`mrnic_path`) on the kit: its model cycle shell
//! ([`mrnic_model::transport::path_shell::PathShell`]) as a [`CycleModel`], its seeded
//! stimulus ([`stimulus`]), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, TimerChange, TimerDue, Values};
use mrnic_model::transport::path_shell::{PathInputs, PathOp, PathParams, PathShell, KIND_DATA, KIND_NONE, KIND_PROBE_DUE};
use mrnic_model::Config;
use stimulus::PathStimulus;

/// Names of the table's ports (as the manifest lists them).
pub mod port {
    pub const INPUTS: [&str; 25] = [
        "rst", "now", "s_valid", "s_op", "s_conn", "s_path", "s_n", "s_nl", "s_rtt_valid", "s_rtt", "s_ce", "s_pkts", "s_cum", "s_next", "s_ppsn", "s_first", "s_last", "s_avoid_valid",
        "s_avoid", "s_plane", "s_seq", "s_port", "s_seed", "m_ready", "m_tmo_ready",
    ];
    pub const OUTPUTS: [&str; 27] = [
        "s_ready", "m_valid", "m_op", "m_conn", "m_path", "m_kind", "m_ppsn", "m_port", "m_seq", "m_flag", "m_tmo_hit", "m_hw_valid", "m_hw_on", "m_hw_wait", "m_tmo_valid", "m_tmo_conn",
        "m_tmo_rto", "m_tmo_probe", "stat_select", "stat_select_none", "stat_probe_due", "stat_lost", "stat_decrease", "stat_ecn_cut", "stat_timeout", "stat_reroll", "stat_tmo",
    ];
}

/// Input and output indices of the table's ports in an [`Io`] (clock excluded).
#[derive(Clone, Copy, Debug)]
pub struct PathPorts {
    pub i: [usize; 25],
    pub o: [usize; 27],
}

impl PathPorts {
    pub fn resolve(io: &Io) -> Result<PathPorts, KitError> {
        let mut p = PathPorts { i: [0; 25], o: [0; 27] };
        for k in 0..25 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..27 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> PathInputs {
        let i = &self.i;
        PathInputs {
            rst: v.bit(i[0]),
            now: v.get(i[1]) as u32,
            s_valid: v.bit(i[2]),
            s_op: v.get(i[3]) as u8,
            s_conn: v.get(i[4]) as u32,
            s_path: v.get(i[5]) as u8,
            s_n: v.get(i[6]) as u32,
            s_nl: v.get(i[7]) as u32,
            s_rtt_valid: v.bit(i[8]),
            s_rtt: v.get(i[9]) as u32,
            s_ce: v.get(i[10]) as u8,
            s_pkts: v.get(i[11]) as u8,
            s_cum: v.get(i[12]) as u32,
            s_next: v.get(i[13]) as u32,
            s_ppsn: v.get(i[14]) as u32,
            s_first: v.get(i[15]) as u32,
            s_last: v.get(i[16]) as u32,
            s_avoid_valid: v.bit(i[17]),
            s_avoid: v.get(i[18]) as u8,
            s_plane: v.get(i[19]) as u16,
            s_seq: v.get(i[20]) as u32,
            s_port: v.get(i[21]) as u16,
            s_seed: v.get(i[22]) as u16,
            m_ready: v.bit(i[23]),
            m_tmo_ready: v.bit(i[24]),
        }
    }
    pub fn write_inputs(&self, s: &PathInputs, v: &mut Values) {
        let i = &self.i;
        for (k, x) in [
            s.rst as u64,
            s.now as u64,
            s.s_valid as u64,
            s.s_op as u64,
            s.s_conn as u64,
            s.s_path as u64,
            s.s_n as u64,
            s.s_nl as u64,
            s.s_rtt_valid as u64,
            s.s_rtt as u64,
            s.s_ce as u64,
            s.s_pkts as u64,
            s.s_cum as u64,
            s.s_next as u64,
            s.s_ppsn as u64,
            s.s_first as u64,
            s.s_last as u64,
            s.s_avoid_valid as u64,
            s.s_avoid as u64,
            s.s_plane as u64,
            s.s_seq as u64,
            s.s_port as u64,
            s.s_seed as u64,
            s.m_ready as u64,
            s.m_tmo_ready as u64,
        ]
        .into_iter()
        .enumerate()
        {
            v.set(i[k], x);
        }
    }
}

/// The golden model's cycle shell as a [`CycleModel`]; counts results by op and outcome.
pub struct PathModel {
    pub shell: PathShell,
    p: PathPorts,
    by_op: [u64; 16],
    sel: [u64; 3],
    flags: u64,
    hw: u64,
    tmo: u64,
    tmo_probe: u64,
    stalled: u64,
}

impl PathModel {
    pub fn new(io: &Io, params: PathParams) -> Result<PathModel, KitError> {
        let p = PathPorts::resolve(io)?;
        let w = io.outputs.width(p.o[16]);
        if w != params.paths() {
            return Err(KitError::Interface { block: "path".into(), reason: format!("m_tmo_rto is {w} bits wide, expected P = {}", params.paths()) });
        }
        let shell = PathShell::new(params).map_err(|e| KitError::Config(e.to_string()))?;
        Ok(PathModel { shell, p, by_op: [0; 16], sel: [0; 3], flags: 0, hw: 0, tmo: 0, tmo_probe: 0, stalled: 0 })
    }
}

impl CycleModel for PathModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_ready as u64);
        o.set(p[1], out.m.is_some() as u64);
        let m = out.m.unwrap_or_default();
        for (k, x) in [m.op as u64, m.conn as u64, m.path as u64, m.kind as u64, m.ppsn as u64, m.port as u64, m.seq as u64, m.flag as u64, m.tmo_hit as u64, m.hw_valid as u64, m.hw_on as u64, m.hw_wait as u64]
            .into_iter()
            .enumerate()
        {
            o.set(p[2 + k], x);
        }
        if out.m.is_some() && i.m_ready {
            self.by_op[usize::from(m.op & 15)] += 1;
            if m.op == PathOp::SELECT {
                self.sel[usize::from(m.kind.min(2))] += 1;
            }
            self.flags += m.flag as u64;
            self.hw += m.hw_valid as u64;
        }
        o.set(p[14], out.m_tmo.is_some() as u64);
        let t = out.m_tmo.unwrap_or_default();
        o.set(p[15], t.conn as u64);
        o.set(p[16], t.rto as u64);
        o.set(p[17], t.probe as u64);
        if out.m_tmo.is_some() && i.m_tmo_ready {
            self.tmo += 1;
            self.tmo_probe += (t.probe != 0) as u64;
        }
        let s = out.stats;
        for (k, x) in [s.select, s.select_none, s.probe_due, s.lost, s.decrease, s.ecn_cut, s.timeout, s.reroll, s.tmo].into_iter().enumerate() {
            o.set(p[18 + k], x as u64);
        }
        self.stalled += !out.s_ready as u64;
    }
    /// The deadline-bank write of the last edge: row (c, p) holds one deadline, an RTO or a
    /// probe one, so both of its timers change (`m_tmo_rto` bit p and `m_tmo_probe` bit p
    /// are two timers of the set-valued stream): the one it holds is due once the time input
    /// `now` reaches it, the other is disarmed.
    fn timer_changes(&mut self, out: &mut Vec<TimerChange>) {
        if let Some((c, p, d)) = self.shell.last_write {
            for (port, probe) in [(self.p.o[16], false), (self.p.o[17], true)] {
                let due = match d {
                    Some((t, pr)) if pr == probe => TimerDue::AtTime { port: self.p.i[1], deadline: u64::from(t.0) },
                    _ => TimerDue::Off,
                };
                out.push(TimerChange { stream: "m_tmo", payload: vec![(self.p.o[15], u64::from(c)), (port, 1 << p)], due });
            }
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let names = ["reset_conn", "reset_path", "select", "psent", "ptmo", "preply", "ackb", "ackp", "loss", "losttmo", "release", "timeout", "fail", "tmochk"];
        let mut v: Vec<(String, u64)> = names.iter().enumerate().map(|(k, n)| (n.to_string(), self.by_op[k])).collect();
        v.push(("undefined".into(), self.by_op[14..].iter().sum()));
        v.push(("select_data".into(), self.sel[usize::from(KIND_DATA)]));
        v.push(("select_none".into(), self.sel[usize::from(KIND_NONE)]));
        v.push(("select_probe_due".into(), self.sel[usize::from(KIND_PROBE_DUE)]));
        v.push(("flags".into(), self.flags));
        v.push(("hw_changes".into(), self.hw));
        v.push(("tmo_events".into(), self.tmo));
        v.push(("tmo_probe_events".into(), self.tmo_probe));
        v.push(("bubbles".into(), self.shell.bubbles));
        v.push(("stalled_cycles".into(), self.stalled));
        let s = self.shell.outputs(&PathInputs::default()).stats;
        v.push(("stat_decrease".into(), u64::from(s.decrease)));
        v.push(("stat_ecn_cut".into(), u64::from(s.ecn_cut)));
        v.push(("stat_reroll".into(), u64::from(s.reroll)));
        v.push(("stat_timeout".into(), u64::from(s.timeout)));
        v
    }
}

/// [`PathStimulus`] as a kit [`Stimulus`].
pub struct PathStim {
    pub gen: PathStimulus,
    p: PathPorts,
}

impl Stimulus for PathStim {
    #[inline]
    fn next(&mut self, taken: &[bool], v: &mut Values) {
        let i = self.gen.next_inputs(taken.first().copied().unwrap_or(false));
        self.p.write_inputs(&i, v);
    }
    fn settle_cycles(&self) -> u64 {
        self.gen.settle_cycles()
    }
    fn counters(&self) -> Vec<(String, u64)> {
        self.gen.mix.counters()
    }
}

/// The path table's testbench for one configuration.
#[derive(Clone, Debug)]
pub struct PathBench {
    pub params: PathParams,
}

impl PathBench {
    pub fn new(cfg: &Config) -> Result<PathBench, KitError> {
        Ok(PathBench { params: PathParams::from_config(cfg).map_err(|e| KitError::Config(e.to_string()))? })
    }
}


impl Testbench for PathBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        Ok(Box::new(PathModel::new(io, self.params.clone())?))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("path", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(PathStim { gen: PathStimulus::with_opts(seed, self.params.clone(), opts), p: PathPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    ("probe_timeout_rerolls_one_try_late", "+ l_c9_1) >= kc_mp) begin", "+ l_c9_1) >= 9'h2) begin"),
    ("path_fails_one_strike_early", "st_fail = st_strk >= kc_ft;", "st_fail = st_strk + 8'h1 >= kc_ft;"),
    ("loss_ignores_the_decrease_point", "ls_dec = (u_n != l_c9_0) & (~r_dany | ~d_first[32'h17] | ~d_last[32'h17]);", "ls_dec = (u_n != l_c9_0);"),
    ("ecn_cut_ignores_the_decrease_point", "ec_cutok = u_close & (u_pka != l_c16_0) & (u_cea != l_c16_0) & (~r_dany | ~d_cut[32'h17]);", "ec_cutok = u_close & (u_pka != l_c16_0) & (u_cea != l_c16_0);"),
    ("ecn_window_close_compared_at_32_bits", "ec_close = ~d_close[32'h17];", "ec_close = (e_cum - e_awe) < 32'h800000;"),
    ("rto_not_clamped_to_minimum", "            if (rto_b < kc_rto_min) begin", "            if (1'b0) begin"),
    ("backoff_not_clamped_to_maximum", "        if (rto_s > ((kc_rto_max) & 64'hffffffffffffffff)) begin", "        if (1'b0) begin"),
    ("scanner_ignores_timer_backpressure", "sc_held = tmo_v$q & ~m_tmo_ready;", "sc_held = 1'b0;"),
    ("no_bubble", "        bubble = ~rst & ~stall &", "        bubble = 1'b0 & ~rst & ~stall &"),
    ("no_global_stall", "        stall = rv_b$q[32'h7] & ~m_ready & ~rst;", "        stall = 1'b0;"),
    ("reset_does_not_empty_the_result_line", "            rv_a$d = l_c2_0;\n            rv_b$d = l_c8_0;", "            rv_a$d = rv_a$q;\n            rv_b$d = l_c8_0;"),
    ("decrease_counter_counts_nothing", "                c_dec$d = c_dec$q + l_c32_1;", "                c_dec$d = c_dec$q;"),
    ("reroll_counter_counts_nothing", "                c_reroll$d = c_reroll$q + l_c32_1;", "                c_reroll$d = c_reroll$q;"),
    ("select_round_robin_starts_at_the_last_path", "        start = w_rr + l_c4_1;", "        start = w_rr;"),
    ("ack_path_psn_accepts_beyond_sent", "if ((~r_aany | ~d_hap[32'h17]) & ~d_sent[32'h17]) begin", "if (~r_aany | ~d_hap[32'h17]) begin"),
    ("probe_reply_ignores_the_port", "(u_seq == r_pseq) & (u_port == (((r_e) & 16'hffff) | k_c000))) begin", "(u_seq == r_pseq)) begin"),
    ("timeout_backoff_does_not_grow", "                n_bo = r_bo + l_c5_1;", "                n_bo = r_bo;"),
    ("send_does_not_start_the_rto", "        if (s_inf == l_c9_0) begin\n            s_nrs = u_now;", "        if (1'b0) begin\n            s_nrs = u_now;"),
    ("reset_drops_the_ops_past_register_3", "            pr$d = l_c12_0;\n", "            pr$d = l_c12_0;\n            pv$d = l_c12_0;\n"),
    ("held_apply_stage_reads_the_next_connection", "ram_st$read_address = r14c;", "ram_st$read_address = r13c;"),
    ("held_ecn_stage_reads_the_next_connection", "        ram_ecn$read_address = i3_c$q;", "        ram_ecn$read_address = i2_c$q;"),
    ("fourth_divider_step_does_not_subtract", "p_st = line_p$q[(3 * 32'h190)+:(400)];\n        dv_d = ((p_st[(32'h160)+:(16)]) & 18'h3ffff);\n        dv_r = p_st[(32'h171)+:(18)];\n        dv_b = dv_r >= dv_d;\n        if (dv_b) begin\n            dv_r = dv_r - dv_d;\n        end", "p_st = line_p$q[(3 * 32'h190)+:(400)];\n        dv_d = ((p_st[(32'h160)+:(16)]) & 18'h3ffff);\n        dv_r = p_st[(32'h171)+:(18)];\n        dv_b = dv_r >= dv_d;\n        if (dv_b) begin\n            dv_r = dv_r;\n        end"),
    ("deadline_bank_rmw_copy_never_written", "bank_rmw$write_enable = badv & r24[32'h95];", "bank_rmw$write_enable = 1'b0;"),
];
