//! The ACK generator (`mrnic_ackgen`) on the kit: its model cycle shell
//! ([`mrnic_model::transport::ackgen_shell::AckShell`]) as a [`CycleModel`], its seeded
//! stimulus ([`stimulus`]), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::transport::ackgen::{AckGenConfig, AckIn};
use mrnic_model::transport::ackgen_shell::{AckCfg, AckShell, AckShellAck, AckShellIn};
use mrnic_model::Config;
use stimulus::AckStimulus;

/// Names of the ACK generator's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 17] = [
        "rst", "now", "s_valid", "s_conn", "s_path", "s_path_psn", "s_class", "s_ack_req", "s_ce", "s_ts", "s_sport", "s_cfg_valid", "s_cfg_kind", "s_cfg_conn",
        "s_cfg_path", "s_cfg_data", "m_ready",
    ];
    pub const OUTPUTS: [&str; 22] = [
        "s_ready",
        "s_cfg_ready",
        "m_valid",
        "m_conn",
        "m_path",
        "m_path_psn",
        "m_flags",
        "m_ecn_ce",
        "m_ecn_pkts",
        "m_rate_hint",
        "m_ts_echo",
        "m_ack_delay",
        "m_sport",
        "m_timer",
        "m_ack",
        "stat_bad_path",
        "stat_path_gaps",
        "stat_acks_now",
        "stat_acks_timer",
        "stat_stale_pops",
        "stat_fifo_full",
        "stat_fifo_level",
    ];
}

/// Input and output indices of the ACK generator's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct AckPorts {
    pub i: [usize; 17],
    pub o: [usize; 22],
}

impl AckPorts {
    pub fn resolve(io: &Io) -> Result<AckPorts, KitError> {
        let mut p = AckPorts { i: [0; 17], o: [0; 22] };
        for k in 0..17 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..22 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> AckShellIn {
        let i = &self.i;
        AckShellIn {
            rst: v.bit(i[0]),
            now: v.get(i[1]) as u32,
            s_valid: v.bit(i[2]),
            s: AckIn {
                conn: v.get(i[3]) as u32,
                path: v.get(i[4]) as u8,
                path_psn: v.get(i[5]) as u32,
                class: v.get(i[6]) as u8,
                ack_req: v.bit(i[7]),
                ce: v.bit(i[8]),
                ts: v.get(i[9]) as u32,
                sport: v.get(i[10]) as u16,
            },
            s_cfg_valid: v.bit(i[11]),
            s_cfg: AckCfg { kind: v.get(i[12]) as u8, conn: v.get(i[13]) as u32, path: v.get(i[14]) as u8, data: v.get(i[15]) as u32 },
            m_ready: v.bit(i[16]),
        }
    }
    pub fn write_inputs(&self, s: &AckShellIn, v: &mut Values) {
        for (k, x) in input_values(s).into_iter().enumerate() {
            v.set(self.i[k], x);
        }
    }
}

/// The values of the ACK generator's inputs in [`port::INPUTS`] order.
pub fn input_values(s: &AckShellIn) -> [u64; 17] {
    [
        s.rst as u64,
        u64::from(s.now),
        s.s_valid as u64,
        u64::from(s.s.conn),
        u64::from(s.s.path),
        u64::from(s.s.path_psn),
        u64::from(s.s.class),
        s.s.ack_req as u64,
        s.s.ce as u64,
        u64::from(s.s.ts),
        u64::from(s.s.sport),
        s.s_cfg_valid as u64,
        u64::from(s.s_cfg.kind),
        u64::from(s.s_cfg.conn),
        u64::from(s.s_cfg.path),
        u64::from(s.s_cfg.data),
        s.m_ready as u64,
    ]
}

/// The values of an entry's ports `m_conn` ..= `m_ack` ([`port::OUTPUTS`] 3..15).
pub fn ack_values(e: &AckShellAck) -> [u64; 12] {
    let a = &e.ack;
    let f = &a.fields;
    [
        u64::from(a.conn),
        u64::from(a.path),
        u64::from(f.path_psn),
        u64::from(f.flags),
        u64::from(f.ecn_ce),
        u64::from(f.ecn_pkts),
        u64::from(a.rate_hint),
        u64::from(f.ts_echo),
        u64::from(f.ack_delay),
        u64::from(f.sport),
        a.timer as u64,
        e.sent as u64,
    ]
}

/// The shell as a [`CycleModel`]; counts what crossed each stream.
pub struct AckModel {
    pub shell: AckShell,
    p: AckPorts,
    packets_in: u64,
    cfg_in: u64,
    acks_out: u64,
    /// Entries of DATA packets that sent no ACK.
    quiet_out: u64,
    timer_acks_out: u64,
    m_stalled: u64,
    s_held: u64,
    fifo_max: u64,
    /// The shell's counters summed over resets: (last seen, total) per counter.
    sums: [(u64, u64); 6],
}

impl CycleModel for AckModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_ready as u64);
        o.set(p[1], out.s_cfg_ready as u64);
        o.set(p[2], out.m.is_some() as u64);
        if let Some(a) = out.m {
            for (k, x) in ack_values(&a).into_iter().enumerate() {
                o.set(p[3 + k], x);
            }
            if i.m_ready {
                self.acks_out += a.sent as u64;
                self.quiet_out += !a.sent as u64;
                self.timer_acks_out += a.ack.timer as u64;
            } else {
                self.m_stalled += 1;
            }
        }
        self.cfg_in += (i.s_cfg_valid && out.s_cfg_ready) as u64;
        if i.s_valid {
            if out.s_ready {
                self.packets_in += 1;
            } else {
                self.s_held += 1;
            }
        }
        let s = out.stats;
        for (k, x) in [s.bad_path, s.path_gaps, s.acks_now, s.acks_timer, s.stale_pops, s.fifo_full].into_iter().enumerate() {
            o.set(p[15 + k], x & 0xFFFF_FFFF);
            let (last, total) = &mut self.sums[k];
            *total += if x >= *last { x - *last } else { x };
            *last = x;
        }
        o.set(p[21], u64::from(out.fifo_level));
        self.fifo_max = self.fifo_max.max(u64::from(out.fifo_level));
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("packets_in".into(), self.packets_in),
            ("cfg_in".into(), self.cfg_in),
            ("acks_out".into(), self.acks_out),
            ("quiet_out".into(), self.quiet_out),
            ("timer_acks_out".into(), self.timer_acks_out),
            ("m_stalled_cycles".into(), self.m_stalled),
            ("s_held_cycles".into(), self.s_held),
            ("fifo_max".into(), self.fifo_max),
            ("bad_path".into(), self.sums[0].1),
            ("path_gaps".into(), self.sums[1].1),
            ("stale_pops".into(), self.sums[4].1),
            ("fifo_full".into(), self.sums[5].1),
            ("head_just_pushed".into(), self.shell.cov_head_just_pushed),
            ("pops_back_to_back".into(), self.shell.cov_pops_back_to_back),
        ]
    }
}

/// [`AckStimulus`] as a kit [`Stimulus`].
pub struct AckStim {
    pub gen: AckStimulus,
    p: AckPorts,
}

impl Stimulus for AckStim {
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

/// The ACK generator's testbench (its sizes: `mrnic_hdl::tops::ackgen_config`).
#[derive(Clone, Debug)]
pub struct AckBench {
    pub cfg: AckGenConfig,
    pub cycle_ns: u32,
}

impl AckBench {
    pub fn new(cfg: &Config) -> Result<AckBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        let c = mrnic_hdl::tops::ackgen_config(cfg).map_err(|e| KitError::Config(e.to_string()))?;
        Ok(AckBench { cfg: c, cycle_ns: u32::from(cfg.transport.cycle_ns) })
    }
}

impl Testbench for AckBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = AckPorts::resolve(io)?;
        let cw = io.inputs.width(p.i[3]);
        if 1usize << cw != self.cfg.connections as usize {
            return Err(KitError::Interface { block: "ackgen".into(), reason: format!("s_conn is {cw} bits wide, expected log2({})", self.cfg.connections) });
        }
        Ok(Box::new(AckModel {
            shell: AckShell::new(self.cfg).map_err(KitError::Config)?,
            p,
            packets_in: 0,
            cfg_in: 0,
            acks_out: 0,
            quiet_out: 0,
            timer_acks_out: 0,
            m_stalled: 0,
            s_held: 0,
            fifo_max: 0,
            sums: [(0, 0); 6],
        }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("ackgen", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(AckStim { gen: AckStimulus::with_opts(seed, self.cfg, self.cycle_ns, opts), p: AckPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

/// The mutants of the small build (`hdl/src/ackgen.rs`, *Small build*: a clock of 20 ns or
/// more, the `tiny` preset), whose code is dead at `core`: applied to the `tiny` Verilog.
pub fn small_mutants() -> Vec<Mutant> {
    Mutant::table(SMALL_MUTANTS)
}

const SMALL_MUTANTS: &[(&str, &str, &str)] = &[
    // the word after the head, pushed in the last cycle (its write is in this one), is not
    // taken from W: the pop loads the RAM's stale word into the head
    ("small_fifo_write_not_forwarded", "                    hd$d = wf_data$q;", "                    hd$d = ram_f1$read_data;"),
    // the FIFO copy read at `rp + 1` of this cycle, not of the next: a pop's next head is the
    // word it popped
    ("small_fifo_read_not_ahead", "            f_rn = ra1 + k_ofb;", "            f_rn = ra1;"),
    // the output queue's RAM read at this cycle's head, not the next one's: after a transfer
    // `m` shows the entry that left
    ("small_queue_read_not_ahead", "            o_rpn = o_rp$q + k_q1;", "            o_rpn = o_rp$q;"),
    // the head's age from its two halves without the low half's borrow: due up to 2^16 ns early
    ("small_age_borrow_ignored", "            age_s = age_h1[32'hf];", "            age_s = age_h0[32'hf];"),
    // the gap test on the selected row without the compare for inequality: the expected
    // path PSN counts as skipped
    ("small_gap_on_the_expected_psn", "gap_s = (b_psn$q != r_exp) & ~d_exp_s[32'h17];", "gap_s = ~d_exp_s[32'h17];"),
];

const MUTANTS: &[(&str, &str, &str)] = &[
    // a DATA packet that sends no ACK leaves no entry (the ACK join would pair the next
    // ACK with the wrong packet's SACK result)
    ("quiet_packet_leaves_no_entry", "c_push = d_v$q & (d_ack$q | d_op$q);", "c_push = d_v$q & d_ack$q;"),
    // a packet with a bad path id leaves no entry
    ("bad_path_packet_leaves_no_entry", "c_op$d = b_v$q & (b_kind$q == k_c0);", "c_op$d = is_data;"),
    // a quiet entry shows the fields of the ACK it did not send
    ("quiet_entry_shows_its_fields", "        if (m_ack) begin", "        if (1'b1) begin"),
    // a gap taken for in order: the path PSN equal to the expected one counts as skipped
    ("gap_on_the_expected_psn", "gap_r = (b_psn$q != ram_row$read_data[(32'h0)+:(24)]) & ~d_exp_r[32'h17];", "gap_r = ~d_exp_r[32'h17];"),
    // the expected path PSN not advanced past a packet ahead of it
    ("expected_not_advanced", "            n_exp = b_psn$q + k_o24;", "            n_exp = r_exp;"),
    // the highest path PSN also follows a packet behind it
    ("highest_goes_back", "if (|d_hi & ~d_hi[32'h17]) begin", "if (|d_hi) begin"),
    // N reached one packet late
    ("ack_every_off_by_one", "nth_r = (ram_row$read_data[(32'h30)+:(8)] >= k_nth)", "nth_r = (ram_row$read_data[(32'h30)+:(8)] > k_nth)"),
    // an out-of-window packet coalesced instead of acknowledged at once
    ("out_of_window_coalesced", "nodec = (b_class$q != k_c1) |", "nodec = (b_class$q == k_c2) |"),
    // a stale FIFO entry sends an ACK (the deadline not compared)
    ("stale_entry_fires", "live_r = ram_row$read_data[32'h80] & (ram_row$read_data[(32'h81)+:(32)] == b_t$q);", "live_r = ram_row$read_data[32'h80];"),
    // the deadline compared strictly: the head pops one cycle after `now` reaches it
    ("timer_fires_a_cycle_late", "due = ~lvl_z & ~age[32'h1f];", "due = ~lvl_z & ~age[32'h1f] & (|age);"),
    // the CE average's shift loses its sign: a falling average jumps
    ("ce_average_unsigned_shift", "            ca_sh = (ca_diff >> 32'h2) | k_c00;", "            ca_sh = ca_diff >> 32'h2;"),
    // a timer ACK's delay measured from the deadline's cycle, not the newest arrival
    ("timer_ack_delay_zero", "            c_delay$d = b_now$q - r_arr;", "            c_delay$d = k_z32;"),
    // the output queue does not count a push and a pop in the same cycle as no change
    ("queue_count_lost_on_push_and_pop", "            o_cnt$d = o_cnt$q - k_o3;", "            o_cnt$d = o_cnt$q - k_o3 - k_o3;"),
    // the A bit flag lands on the DUPLICATE bit
    ("ack_req_flag_on_the_wrong_bit", "(((b_ack_req$q) & 8'hff) << 32'h2)", "(((b_ack_req$q) & 8'hff) << 32'h1)"),
    // a full FIFO pushed anyway: the oldest entry is overwritten, its path never times out
    ("full_fifo_pushed", "push = counted & arm & ~full;", "push = counted & arm;"),
    // the word after the head, pushed in the last cycle (its RAM write is in this one), is not
    // taken from W: the pop loads the stale RAM word into the head
    ("fifo_write_not_forwarded", "        wf_next = wf_we$q & (wf_addr$q == ra1);", "        wf_next = 1'b0;"),
    // the pop two cycles before is forgotten: a pop one cycle after a pop-less cycle that
    // followed a pop takes copy 1, which read the word that has since been popped
    ("pop_two_cycles_ago_ignored", "            if (pop_q$q ^ pop_qq$q) begin", "            if (pop_q$q) begin"),
    // a pop after two pops in a row takes copy 2 (one word short) instead of copy 3
    ("third_pop_in_a_row_reads_copy_2", "            if (pop_q$q & pop_qq$q) begin", "            if (1'b0) begin"),
    // the full check does not count the push in W (its count moves one cycle after B): a
    // push into a FIFO that has just become full
    ("full_check_misses_the_push_in_flight", "full = (f_cnt$q >= k_depth) | ((f_cnt$q == k_depth1) & wf_we$q);", "full = f_cnt$q >= k_depth;"),
    // the rate hint is the base (the CE cut forgotten)
    ("rate_hint_without_the_cut", "hint = d_hb$q - prod_sh[(32'h0)+:(32)];", "hint = d_hb$q;"),
];
