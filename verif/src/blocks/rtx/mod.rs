//! The retransmit queue (`mrnic_rtx`) on the kit: its model cycle shell
//! ([`mrnic_model::transport::rtx_shell::RtxShell`]) as a [`CycleModel`], its seeded
//! stimulus ([`stimulus`]), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, TimerChange, TimerDue, Values};
use mrnic_model::sack::Bitmap;
use mrnic_model::transport::rtx_shell::{RtxInputs, RtxParams, RtxShell, RTX_MAX_PATHS};
use mrnic_model::Config;
use stimulus::RtxStimulus;

/// Width of one per-path count in `m_n` / `m_l` (the RTL's `COUNT_BITS`).
pub const COUNT_BITS: usize = 9;

/// Names of the queue's ports (as the manifest lists them).
pub mod port {
    pub const INPUTS: [&str; 18] = [
        "rst", "now", "s_valid", "s_op", "s_conn", "s_psn", "s_new", "s_path", "s_ppsn", "s_sack", "s_held", "s_hw_valid", "s_hw", "s_nd", "s_ldp_valid", "s_ldp", "m_ready",
        "m_tmo_ready",
    ];
    pub const OUTPUTS: [&str; 27] = [
        "s_ready", "m_valid", "m_op", "m_conn", "m_ok", "m_psn", "m_psn2", "m_path", "m_k", "m_k2", "m_psn3", "m_psn4", "m_n", "m_l", "m_room", "m_free", "m_retx",
        "m_tmo_valid", "m_tmo_conn", "stat_send", "stat_retx", "stat_acked", "stat_spurious", "stat_lost_path", "stat_lost_drain", "stat_head", "stat_tmo",
    ];
}

/// Input and output indices of the queue's ports in an [`Io`] (clock excluded).
#[derive(Clone, Copy, Debug)]
pub struct RtxPorts {
    pub i: [usize; 18],
    pub o: [usize; 27],
}

impl RtxPorts {
    pub fn resolve(io: &Io) -> Result<RtxPorts, KitError> {
        let mut p = RtxPorts { i: [0; 18], o: [0; 27] };
        for k in 0..18 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..27 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    fn bitmap(v: &Values, i: usize) -> Bitmap {
        let mut b = Bitmap::default();
        for (k, w) in v.wide(i).iter().enumerate().take(4) {
            b.0[k] = *w;
        }
        b
    }
    pub fn read_inputs(&self, v: &Values) -> RtxInputs {
        let i = &self.i;
        RtxInputs {
            rst: v.bit(i[0]),
            now: v.get(i[1]) as u32,
            s_valid: v.bit(i[2]),
            s_op: v.get(i[3]) as u8,
            s_conn: v.get(i[4]) as u32,
            s_psn: v.get(i[5]) as u32,
            s_new: v.bit(i[6]),
            s_path: v.get(i[7]) as u8,
            s_ppsn: v.get(i[8]) as u32,
            s_sack: Self::bitmap(v, i[9]),
            s_held: Self::bitmap(v, i[10]),
            s_hw_valid: v.bit(i[11]),
            s_hw: v.get(i[12]) as u32,
            s_nd: v.bit(i[13]),
            s_ldp_valid: v.bit(i[14]),
            s_ldp: v.get(i[15]) as u32,
            m_ready: v.bit(i[16]),
            m_tmo_ready: v.bit(i[17]),
        }
    }
    pub fn write_inputs(&self, s: &RtxInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.now as u64);
        v.set(i[2], s.s_valid as u64);
        v.set(i[3], s.s_op as u64);
        v.set(i[4], s.s_conn as u64);
        v.set(i[5], s.s_psn as u64);
        v.set(i[6], s.s_new as u64);
        v.set(i[7], s.s_path as u64);
        v.set(i[8], s.s_ppsn as u64);
        v.set_wide(i[9], &s.s_sack.0);
        v.set_wide(i[10], &s.s_held.0);
        v.set(i[11], s.s_hw_valid as u64);
        v.set(i[12], s.s_hw as u64);
        v.set(i[13], s.s_nd as u64);
        v.set(i[14], s.s_ldp_valid as u64);
        v.set(i[15], s.s_ldp as u64);
        v.set(i[16], s.m_ready as u64);
        v.set(i[17], s.m_tmo_ready as u64);
    }
}

/// Packs per-path counts into the `m_n` / `m_l` layout (path p in bits 9p..9p+9).
pub fn pack_counts(c: &[u16; RTX_MAX_PATHS], paths: usize) -> [u64; 3] {
    let mut w = [0u64; 3];
    for (p, &n) in c.iter().enumerate().take(paths) {
        let bit = p * COUNT_BITS;
        let v = u128::from(n & 0x1FF) << (bit % 64);
        w[bit / 64] |= v as u64;
        if bit / 64 + 1 < 3 {
            w[bit / 64 + 1] |= (v >> 64) as u64;
        }
    }
    w
}

/// The golden model's cycle shell as a [`CycleModel`]; counts results by op.
pub struct RtxModel {
    pub shell: RtxShell,
    p: RtxPorts,
    paths: usize,
    by_op: [u64; 16],
    ok: u64,
    tmo: u64,
    stalled: u64,
}

impl RtxModel {
    pub fn new(io: &Io, params: RtxParams) -> Result<RtxModel, KitError> {
        let p = RtxPorts::resolve(io)?;
        let nw = io.outputs.width(p.o[12]);
        if nw != COUNT_BITS * params.paths {
            return Err(KitError::Interface { block: "rtx".into(), reason: format!("m_n is {nw} bits wide, expected {} x {}", COUNT_BITS, params.paths) });
        }
        let shell = RtxShell::new(params).map_err(|e| KitError::Config(e.to_string()))?;
        Ok(RtxModel { shell, p, paths: params.paths, by_op: [0; 16], ok: 0, tmo: 0, stalled: 0 })
    }
}

impl CycleModel for RtxModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_ready as u64);
        o.set(p[1], out.m.is_some() as u64);
        if let Some(m) = out.m {
            o.set(p[2], m.op as u64);
            o.set(p[3], m.conn as u64);
            o.set(p[4], m.ok as u64);
            o.set(p[5], m.psn as u64);
            o.set(p[6], m.psn2 as u64);
            o.set(p[7], m.path as u64);
            o.set(p[8], m.k as u64);
            o.set(p[9], m.k2 as u64);
            o.set(p[10], m.psn3 as u64);
            o.set(p[11], m.psn4 as u64);
            o.set_wide(p[12], &pack_counts(&m.n, self.paths));
            o.set_wide(p[13], &pack_counts(&m.l, self.paths));
            o.set(p[14], m.room as u64);
            o.set(p[15], m.free as u64);
            o.set(p[16], m.retx as u64);
            if i.m_ready {
                self.by_op[usize::from(m.op & 15)] += 1;
                self.ok += m.ok as u64;
            }
        }
        o.set(p[17], out.m_tmo.is_some() as u64);
        if let Some(c) = out.m_tmo {
            o.set(p[18], c as u64);
            self.tmo += i.m_tmo_ready as u64;
        }
        let s = out.stats;
        for (k, x) in [s.send, s.retx, s.acked, s.spurious, s.lost_path, s.lost_drain, s.head, s.tmo].into_iter().enumerate() {
            o.set(p[19 + k], x as u64);
        }
        self.stalled += !out.s_ready as u64;
    }
    /// The head-deadline bank write of the last edge: connection c's timer is due once the
    /// time input `now` reaches the deadline, or disarmed.
    fn timer_changes(&mut self, out: &mut Vec<TimerChange>) {
        if let Some((c, d)) = self.shell.last_write {
            let due = d.map_or(TimerDue::Off, |d| TimerDue::AtTime { port: self.p.i[1], deadline: u64::from(d.0) });
            out.push(TimerChange { stream: "m_tmo", payload: vec![(self.p.o[18], u64::from(c))], due });
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let names = ["reset", "send", "ack", "ldet", "drain", "query", "headtmo", "marklost", "abandon", "hwait", "newdata"];
        let mut v: Vec<(String, u64)> = names.iter().enumerate().map(|(k, n)| (n.to_string(), self.by_op[k])).collect();
        v.push(("undefined".into(), self.by_op[11..].iter().sum()));
        v.push(("ok".into(), self.ok));
        v.push(("tmo_events".into(), self.tmo));
        v.push(("stalled_cycles".into(), self.stalled));
        v
    }
}

/// [`RtxStimulus`] as a kit [`Stimulus`].
pub struct RtxStim {
    pub gen: RtxStimulus,
    p: RtxPorts,
}

impl Stimulus for RtxStim {
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

/// The retransmit queue's testbench for one configuration.
#[derive(Clone, Debug)]
pub struct RtxBench {
    pub params: RtxParams,
}

impl RtxBench {
    pub fn new(cfg: &Config) -> Result<RtxBench, KitError> {
        Ok(RtxBench { params: RtxParams::from_config(cfg).map_err(|e| KitError::Config(e.to_string()))? })
    }
}


impl Testbench for RtxBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        Ok(Box::new(RtxModel::new(io, self.params)?))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("rtx", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(RtxStim { gen: RtxStimulus::with_opts(seed, self.params, opts), p: RtxPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    ("held_pipeline_does_not_reread_the_next_ops_connection", "ram_base$read_address = i4_c$q;", "ram_base$read_address = i3_c$q;"),
    ("no_global_stall", "stall = o11_v$q & ~m_ready & ~rst;", "stall = 1'b0;"),
    ("state_written_during_a_stall", "w_v$d = i6_v$q & adv;", "w_v$d = i6_v$q;"),
    ("new_send_ignores_the_free_record_check", "free0 = alloc != k_ones_r;", "free0 = 1'b1;"),
    ("send_accepts_any_path", "path_ok = u_path < k_p;", "path_ok = 1'b1;"),
    ("cumulative_ack_never_moves_the_base", "if (cum_adv) begin\n                n_base = u_psn;", "if (1'b0) begin\n                n_base = u_psn;"),
    ("ack_past_next_accepted", "g_k0 = ~((g_a0 != k_zero24) & (g_a0 < k_half24));", "g_k0 = 1'b1;"),
    ("reorder_threshold_off_by_one", "g_ppk = g_ppsn - k_k;", "g_ppk = g_ppsn - 24'h2;"),
    ("ldet_decrease_point_always_invalid", "g_ldpv = i5_f$q[32'h5a];", "g_ldpv = 1'b0;"),
    ("new_send_does_not_advance_next", "n_next = next + k_one24;", "n_next = next;"),
    ("retransmission_not_flagged", "r_retx = send_ok;", "r_retx = 1'b0;"),
    ("retransmission_keeps_the_lost_flag", "n_lost = (lost | v_los) & ~v_rel & ~v_wr;", "n_lost = (lost | v_los) & ~v_rel;"),
    ("head_deadline_ignores_new_data_and_half_window", "hd_v = k_head_on & ~(r9_fl$q[32'h6] & r9_nnd$q) & r9_fl$q[32'h5] & r9_nhw$q[32'h1f];", "hd_v = k_head_on & r9_fl$q[32'h5] & r9_nhw$q[32'h1f];"),
    ("head_deadline_written_one_register_early", "bank$write_address = b10_c$q;", "bank$write_address = b9_c$q;"),
    ("held_scanner_read_goes_stale", "sc_addr = rd_c$q;", "sc_addr = sc$q;"),
    ("timer_fires_on_an_invalid_deadline", "hit_v$d = rd_v$q & bank$read_data[32'h20] &", "hit_v$d = rd_v$q &"),
    ("abandon_releases_nothing", "v_rel = v_ab;", "v_rel = k_zero_r;"),
    ("headtmo_marks_nothing_lost", "v_los = v_basem;", "v_los = k_zero_r;"),
    ("retx_counter_never_counts", "c_retx$d = c_retx$q + 32'h1;", "c_retx$d = c_retx$q;"),
    ("op_1_ahead_write_not_forwarded_into_register_6", "g_fwd = fw1$q & i6_v$q;", "g_fwd = 1'b0;"),
    ("op_2_ahead_write_not_forwarded_into_stage_5", "fw2$d = adv & i6_v$q & (i6_c$q == i4_c$q);", "fw2$d = 1'b0;"),
    ("predicates_not_patched_for_the_record_the_op_1_ahead_wrote", "w1 = a1_wr$q;", "w1 = k_zero_r;"),
    ("op_level_predicates_miss_a_base_the_op_1_ahead_moved", "a1_badv$d = (u_op == k_op_ack) & ack_ok & cum_adv;", "a1_badv$d = 1'b0;"),
    ("window_tests_miss_the_base_the_op_2_ahead_wrote", "g_e_psn = p7_nbase$q - g_psn;", "g_e_psn = ram_base$read_data - g_psn;"),
    ("ldet_marks_nothing_lost", "v_los = v_ld;", "v_los = k_zero_r;"),
    ("stage_a_registers_the_first_record_of_a_batch_as_its_last", "q8_ol1$d = t_ol1;", "q8_ol1$d = t_of1;"),
    ("stage_b_oldest_lost_distance_not_taken_from_the_base", "b_qd = (b_o - x_base8) & k_wm8;", "b_qd = b_o & k_wm8;"),
    ("op_level_predicates_miss_a_next_the_op_1_ahead_moved", "a1_ninc$d = (u_op == k_op_send) & u_new & send_ok;", "a1_ninc$d = 1'b0;"),
    ("head_wait_valid_bit_dropped", "n_hw = (((u_hwv) & 32'hffffffff) << 32'h1f) | ((u_hw) & 32'hffffffff);", "n_hw = ((u_hw) & 32'hffffffff);"),
];
