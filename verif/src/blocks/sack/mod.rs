//! The SACK bitmap engine on the kit: its model cycle shell as a [`CycleModel`], its seeded
//! stimulus ([`stimulus`]), its testbench, its mutants, and rust-hdl's own simulator of the
//! engine as a [`Device`] (for the short rust-hdl agreement run).

pub mod rusthdl;
pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::sack::{Class, SackInputs, SackShell};
use mrnic_model::Config;
use stimulus::SackStimulus;

/// Names of the engine's ports (as the manifest lists them).
pub mod port {
    pub const INPUTS: [&str; 7] = ["rst", "s_valid", "s_conn", "s_psn", "s_clear", "s_commit", "m_ready"];
    pub const OUTPUTS: [&str; 11] =
        ["s_ready", "m_valid", "m_conn", "m_psn", "m_class", "m_base", "m_bitmap", "stat_new", "stat_duplicate", "stat_out_of_window", "stat_cleared"];
}

/// Input and output indices of the engine's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct SackPorts {
    pub i: [usize; 7],
    pub o: [usize; 11],
}

impl SackPorts {
    pub fn resolve(io: &Io) -> Result<SackPorts, KitError> {
        let mut p = SackPorts { i: [0; 7], o: [0; 11] };
        for (k, n) in port::INPUTS.iter().enumerate() {
            p.i[k] = io.input(n)?;
        }
        for (k, n) in port::OUTPUTS.iter().enumerate() {
            p.o[k] = io.output(n)?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> SackInputs {
        let i = &self.i;
        SackInputs {
            rst: v.bit(i[0]),
            s_valid: v.bit(i[1]),
            s_conn: v.get(i[2]) as u32,
            s_psn: v.get(i[3]) as u32,
            s_clear: v.bit(i[4]),
            s_commit: v.bit(i[5]),
            m_ready: v.bit(i[6]),
        }
    }
    pub fn write_inputs(&self, s: &SackInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.s_valid as u64);
        v.set(i[2], s.s_conn as u64);
        v.set(i[3], s.s_psn as u64);
        v.set(i[4], s.s_clear as u64);
        v.set(i[5], s.s_commit as u64);
        v.set(i[6], s.m_ready as u64);
    }
}

/// The golden model's cycle shell as a [`CycleModel`]; counts results by class.
pub struct SackModel {
    pub shell: SackShell,
    p: SackPorts,
    by_class: [u64; 4],
    stalled: u64,
}

impl SackModel {
    pub fn new(io: &Io, connections: usize, window: usize) -> Result<SackModel, KitError> {
        let p = SackPorts::resolve(io)?;
        let bw = io.outputs.width(p.o[6]);
        if bw != window {
            return Err(KitError::Interface { block: "sack".into(), reason: format!("m_bitmap is {bw} bits wide, the configuration's window is {window}") });
        }
        Ok(SackModel { shell: SackShell::new(connections, window), p, by_class: [0; 4], stalled: 0 })
    }
}

impl CycleModel for SackModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_ready as u64);
        o.set(p[1], out.m.is_some() as u64);
        if let Some(m) = out.m {
            o.set(p[2], m.conn as u64);
            o.set(p[3], m.psn as u64);
            o.set(p[4], m.result.class.code() as u64);
            o.set(p[5], m.result.base as u64);
            o.set_wide(p[6], &m.result.bitmap.0);
            if i.m_ready {
                self.by_class[m.result.class.code() as usize] += 1;
            }
        }
        let s = out.stats;
        o.set(p[7], s.new as u64);
        o.set(p[8], s.duplicate as u64);
        o.set(p[9], s.out_of_window as u64);
        o.set(p[10], s.cleared as u64);
        self.stalled += !out.s_ready as u64;
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> =
            [Class::New, Class::Duplicate, Class::OutOfWindow, Class::Cleared].iter().map(|c| (format!("{c:?}"), self.by_class[c.code() as usize])).collect();
        v.push(("stalled_cycles".into(), self.stalled));
        v
    }
}

/// [`SackStimulus`] as a kit [`Stimulus`].
pub struct SackStim {
    pub gen: SackStimulus,
    p: SackPorts,
}

impl Stimulus for SackStim {
    #[inline]
    fn next(&mut self, taken: &[bool], v: &mut Values) {
        let i = self.gen.next_inputs(taken.first().copied().unwrap_or(false));
        self.p.write_inputs(&i, v);
    }
    fn settle_cycles(&self) -> u64 {
        self.gen.settle_cycles()
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let m = &self.gen.mix;
        [
            ("offered", m.offered),
            ("in_order", m.in_order),
            ("gaps", m.gaps),
            ("retransmits", m.retransmits),
            ("duplicates", m.duplicates),
            ("behind", m.behind),
            ("out_of_window", m.out_of_window),
            ("random", m.random),
            ("sweeps", m.sweeps),
            ("clears", m.clears),
            ("setup_clears", m.setup_clears),
            ("uncommitted", m.uncommitted),
            ("resets", m.resets),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The SACK engine's testbench for one configuration.
#[derive(Clone, Debug)]
pub struct SackBench {
    pub connections: usize,
    pub window: usize,
}

impl SackBench {
    pub fn new(cfg: &Config) -> Result<SackBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(SackBench { connections: cfg.connections, window: cfg.sack.window })
    }
}


impl Testbench for SackBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        Ok(Box::new(SackModel::new(io, self.connections, self.window)?))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("sack", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(SackStim { gen: SackStimulus::with_opts(seed, self.connections, self.window, opts), p: SackPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(&[
        // the three RAM writes a read misses, merged at R (newest first)
        ("no_merge_of_the_write_in_stage_c", "r_hf1$d = w_valid$q & (w_conn$q == r0_conn$q);", "r_hf1$d = 1'b0;"),
        ("no_merge_of_the_write_in_stage_d", "r_hf2$d = c_wvalid$q & (c_conn$q == r0_conn$q);", "r_hf2$d = 1'b0;"),
        ("no_merge_of_the_write_in_stage_e", "r_hf3$d = d_wvalid$q & (d_conn$q == r0_conn$q);", "r_hf3$d = 1'b0;"),
        // the op 4 ahead: base merged and bit patched at R
        ("no_merge_or_patch_of_the_op_4_ahead", "r_sm4$d = l_valid$q & (l_conn$q == r0_conn$q);", "r_sm4$d = 1'b0;"),
        ("patch_of_the_op_4_ahead_drops_its_bit", "v_par = mg_par | w_oh$q;", "v_par = mg_par;"),
        // the op 3 ahead: base merged at P1, bitmap at P2; the op 2 ahead: base at P2, bitmap at L
        ("no_base_merge_of_the_op_3_ahead", "p2_base$d = w_base$q;", "p2_base$d = p1_base$q;"),
        ("no_bitmap_merge_of_the_op_3_ahead", "l_vpar$d = c_par$q;", "l_vpar$d = p2_vpar$q;"),
        ("no_base_merge_of_the_op_2_ahead", "base_pre = w_base$q;", "base_pre = p2_base$q;"),
        ("no_bitmap_merge_of_the_op_2_ahead", "w_parpre$d = c_par$q;", "w_parpre$d = l_vpar$q;"),
        // the op 1 ahead: the loop's base forwarding and the bitmap write's forwarding
        ("no_base_forwarding_in_the_loop", "base_in = w_base$q;", "base_in = l_base_pre$q;"),
        ("no_bitmap_forwarding_in_the_write", "pb = c_par$q;", "pb = w_parpre$q;"),
        // speculation over the in-flight ops (3, 2, 1 ahead) and its resolution
        ("an_in_flight_clear_does_not_empty_the_state", "kill = (n_smc & p2_clear$q) | (n_sma & p1_clear$q) | (n_smb & r_clear$q);", "kill = 1'b0;"),
        ("slot_of_the_op_3_ahead_not_forced", "fc = l_oh$q;", "fc = k_zero;"),
        ("slot_of_the_op_1_ahead_not_forced", "fb = p1_oh$q;", "fb = k_zero;"),
        ("candidate_c_never_taken", "cand_c = ~val_c & p2_ec$q & ~p2_ssc$q & ~(p2_ss_ca$q & p2_ea$q) & ~(p2_ss_cb$q & p2_eb$q);", "cand_c = 1'b0;"),
        ("candidate_b_never_taken", "cand_b = ~val_b & l_eb$q & ~l_ssb$q;", "cand_b = 1'b0;"),
        ("nearer_candidate_not_chosen", "take_c = cand_c & (~cand_a | (p2_kc$q < p2_ka$q));", "take_c = cand_c;"),
        ("duplicate_test_ignores_the_write_of_the_op_1_ahead", "hit = l_eqb$q;", "hit = l_hit_pre$q;"),
        // arithmetic
        ("search_wrap_does_not_step_the_block", "l_e1$d = s2_hi_inc | s2_pos;", "l_e1$d = s2_hi | s2_pos;"),
        ("received_test_ignores_the_lap", "rel = v_par ^ r_lq;", "rel = v_par;"),
        ("window_test_off_by_one_in_the_loop", "lo_ge = (l_psn$q[(32'h0)+:(8)] & k_slot_mask8) >= (base_in", "lo_ge = (l_psn$q[(32'h0)+:(8)] & k_slot_mask8) > (base_in"),
        ("window_test_misses_the_next_block", "iw = (hi_eq & lo_ge) | (hi_eq_m1 & ~lo_ge);", "iw = hi_eq & lo_ge;"),
        ("behind_the_base_not_told_from_beyond_the_window", "neg = d_fwd >= k_half;", "neg = 1'b0;"),
        // commit gating
        ("uncommitted_packet_sets_its_bit", "we = iw & l_commit$q & ~l_clear$q;", "we = iw & ~l_clear$q;"),
        ("uncommitted_packet_advances_the_base", "adv = iw & isb & ~hit & l_commit$q & ~l_clear$q;", "adv = iw & isb & ~hit & ~l_clear$q;"),
        // stalls
        ("stalled_stage_does_not_reread", "ram_base$read_address = r0_conn$q;", "ram_base$read_address = s_conn;"),
    ])
}

/// The read-during-write variant of the generated Verilog: both state RAMs return garbage
/// (the inverted word) when a read and a write hit the same address in one cycle (what
/// `-no-rw-check` allows yosys to build). The engine must never use such a read.
pub fn rw_garbage() -> Mutant {
    Mutant::new(
        "read_during_write_returns_garbage",
        "read_data <= mem[read_address];",
        "read_data <= (write_enable && write_address == read_address) ? ~mem[read_address] : mem[read_address];",
    )
}

/// Applies [`rw_garbage`] to both RAMs (its pattern occurs once per RAM: exactly twice).
pub fn apply_rw_garbage(verilog: &str) -> Result<String, crate::kit::MutantError> {
    let m = rw_garbage();
    let count = verilog.matches(&m.from).count();
    if count != 2 {
        return Err(crate::kit::MutantError::Pattern { name: m.name, count, from: m.from });
    }
    Ok(verilog.replace(&m.from, &m.to))
}
