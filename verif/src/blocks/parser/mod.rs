//! The receive frame parser on the kit: its model cycle shell
//! (`mrnic_model::wire::parser_shell::ParserShell`) as a [`CycleModel`], its seeded stimulus
//! ([`stimulus`]), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::wire::axis::{DROP_NAMES, GOOD_NAMES};
use mrnic_model::wire::parser_shell::{ParserInputs, ParserShell};
use mrnic_model::Config;
use stimulus::ParserStimulus;

/// Input ports, in [`ParserPorts::i`] order.
pub const INPUTS: [&str; 8] = ["rst", "s_axis_tvalid", "s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "s_axis_tuser", "m_hdr_ready", "m_vrd_ready"];
/// The record's fields, in `m_hdr_<field>` port order.
pub use mrnic_model::wire::parser_shell::RECORD;

#[derive(Clone, Debug)]
pub struct ParserPorts {
    i: [usize; 8],
    tready: usize,
    valid: usize,
    vrd_valid: usize,
    vrd_keep: usize,
    rec: [usize; 20],
    stat: Vec<usize>,
    last: usize,
}

impl ParserPorts {
    pub fn resolve(io: &Io) -> Result<ParserPorts, KitError> {
        let mut i = [0; 8];
        for (k, n) in INPUTS.iter().enumerate() {
            i[k] = io.input(n)?;
        }
        let mut rec = [0; 20];
        for (k, n) in RECORD.iter().enumerate() {
            rec[k] = io.output(&format!("m_hdr_{n}"))?;
        }
        let stat = DROP_NAMES.iter().chain(GOOD_NAMES.iter()).map(|n| io.output(&format!("stat_{n}"))).collect::<Result<_, _>>()?;
        Ok(ParserPorts {
            i,
            tready: io.output("s_axis_tready")?,
            valid: io.output("m_hdr_valid")?,
            vrd_valid: io.output("m_vrd_valid")?,
            vrd_keep: io.output("m_vrd_keep")?,
            rec,
            stat,
            last: io.output("stat_last_verdict")?,
        })
    }
    pub fn read_inputs(&self, v: &Values) -> ParserInputs {
        let i = &self.i;
        ParserInputs {
            rst: v.bit(i[0]),
            tvalid: v.bit(i[1]),
            tdata: v.get(i[2]),
            tkeep: v.get(i[3]) as u8,
            tlast: v.bit(i[4]),
            tuser: v.bit(i[5]),
            m_hdr_ready: v.bit(i[6]),
            m_vrd_ready: v.bit(i[7]),
        }
    }
    pub fn write_inputs(&self, s: &ParserInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.tvalid as u64);
        v.set(i[2], s.tdata);
        v.set(i[3], s.tkeep as u64);
        v.set(i[4], s.tlast as u64);
        v.set(i[5], s.tuser as u64);
        v.set(i[6], s.m_hdr_ready as u64);
        v.set(i[7], s.m_vrd_ready as u64);
    }
}

/// The shell as a [`CycleModel`].
pub struct ParserModel {
    pub shell: ParserShell,
    p: ParserPorts,
    records: u64,
    verdicts: u64,
    kept: u64,
    blocked: u64,
    last: Vec<(&'static str, u32)>,
}

impl CycleModel for ParserModel {
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p;
        o.set(p.tready, out.tready as u64);
        o.set(p.valid, out.m_hdr.is_some() as u64);
        if let Some(r) = out.m_hdr {
            for (k, x) in r.fields().into_iter().enumerate() {
                o.set(p.rec[k], x);
            }
            self.records += i.m_hdr_ready as u64;
        }
        o.set(p.vrd_valid, out.m_vrd.is_some() as u64);
        if let Some(keep) = out.m_vrd {
            o.set(p.vrd_keep, keep as u64);
            self.verdicts += i.m_vrd_ready as u64;
            self.kept += (i.m_vrd_ready && keep) as u64;
        }
        for (k, (_, x)) in out.counters.list().iter().enumerate() {
            o.set(p.stat[k], *x as u64);
        }
        o.set(p.last, out.last_verdict as u64);
        self.blocked += (!out.tready && !i.rst) as u64;
        self.last = out.counters.list();
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self.last.iter().map(|(n, x)| (n.to_string(), *x as u64)).collect();
        v.push(("frames".into(), self.shell.frames()));
        v.push(("records".into(), self.records));
        v.push(("verdicts".into(), self.verdicts));
        v.push(("verdicts_keep".into(), self.kept));
        v.push(("blocked_cycles".into(), self.blocked));
        v
    }
}

pub struct ParserStim {
    pub gen: ParserStimulus,
    p: ParserPorts,
}

impl Stimulus for ParserStim {
    fn next(&mut self, taken: &[bool], v: &mut Values) {
        let i = self.gen.next_inputs(taken.first().copied().unwrap_or(false));
        self.p.write_inputs(&i, v);
    }
    /// The outputs before the first reset edge are power-up state.
    fn settle_cycles(&self) -> u64 {
        1
    }
    fn counters(&self) -> Vec<(String, u64)> {
        let m = &self.gen.mix;
        [
            ("frames", m.frames),
            ("good", m.good),
            ("mutated", m.mutated),
            ("resealed", m.resealed),
            ("truncated", m.truncated),
            ("field", m.field),
            ("bad_keep", m.bad_keep),
            ("tuser", m.tuser),
            ("max_len", m.max_len),
            ("too_long", m.too_long),
            ("truncated_consistent", m.truncated_consistent),
            ("icrc", m.icrc),
            ("idle_cycles", m.idle_cycles),
            ("stall_cycles", m.stall_cycles),
            ("vrd_stall_cycles", m.vrd_stall_cycles),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The parser's testbench (the configuration does not change the parser).
#[derive(Clone, Debug, Default)]
pub struct ParserBench;

impl ParserBench {
    pub fn new(cfg: &Config) -> Result<ParserBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(ParserBench)
    }
}

impl Testbench for ParserBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        Ok(Box::new(ParserModel { shell: ParserShell::new(), p: ParserPorts::resolve(io)?, records: 0, verdicts: 0, kept: 0, blocked: 0, last: vec![] }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("parser", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(ParserStim { gen: ParserStimulus::new(seed, &opts.profile, opts.power_up), p: ParserPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(&[
        // handshakes
        ("tready_ignores_a_waiting_record", "ready_i = ~rst & ~(o_valid$q & ~m_hdr_ready) &", "ready_i = ~rst &"),
        ("record_dropped_when_not_ready", "if (o_valid$q & m_hdr_ready) begin", "if (o_valid$q) begin"),
        // the record's P_Key read from the wrong bytes of the BTH (bytes swapped)
        ("pkey_bytes_swapped", "x_pkey = (((hdr_norm[(32'h160)+:(8)]) & 16'hffff) << 32'h8) | ((hdr_norm[(32'h168)+:(8)]) & 16'hffff);", "x_pkey = (((hdr_norm[(32'h168)+:(8)]) & 16'hffff) << 32'h8) | ((hdr_norm[(32'h160)+:(8)]) & 16'hffff);"),
        // the verdict FIFO
        ("tready_ignores_a_full_verdict_fifo", "& (vq_n$q < k_vq_room);", ";"),
        ("verdict_popped_when_not_ready", "vq_pop = (vq_n$q != k_z4) & m_vrd_ready;", "vq_pop = vq_n$q != k_z4;"),
        ("verdict_keeps_a_frame_whose_icrc_failed", "vq_keep = good_pre & crc_ok & f4_dpay$q;", "vq_keep = good_pre & f4_dpay$q;"),
        ("verdict_keeps_an_empty_data_frame", "& (f3_r_length$q != k_z32b);", ";"),
        // stream-level checks and their priority
        ("zero_tkeep_on_the_last_beat_accepted", "keep_ok = contig & (n != k_n0);", "keep_ok = contig;"),
        ("too_long_off_by_one", "(rem$q[(32'h0)+:(4)] < n)", "(rem$q[(32'h0)+:(4)] <= n)"),
        ("mac_error_loses_its_priority", "code_a = k_c25;", "code_a = k_c26;"),
        // header parsing
        ("vlan_tag_not_normalised", "hdr_norm = hdr_wide >> 32'h20;", "hdr_norm = hdr_wide;"),
        ("short_tagged_frame_not_truncated", "c_tr_eth = (f1_n$q < k_14n) | (hdr_tag & (f1_n$q < k_18n));", "c_tr_eth = f1_n$q < k_14n;"),
        ("trailing_bytes_not_checked", "c_trail = f2_x_total$q < f2_rem3$q;", "c_trail = 1'b0;"),
        ("truncated_udp_counted_as_truncated_bth", "code_b = k_c3;", "code_b = k_c4;"),
        ("udp_length_compared_with_the_wrong_count", "c_ulen = f2_x_ulen$q != f2_rem4$q;", "c_ulen = f2_x_ulen$q != f2_rem3$q;"),
        ("nak_path_id_read_from_the_code_byte", "pid = f2_x_b1$q;", "pid = f2_x_b0$q;"),
        ("data_pad_expected_as_length_mod_4", "d_wpad = k_z2 - f2_x_len$q[(32'h0)+:(2)];", "d_wpad = f2_x_len$q[(32'h0)+:(2)];"),
        ("sack_bit_0_read_one_bit_off", "x_sack0 = hdr_norm[32'h348];", "x_sack0 = hdr_norm[32'h349];"),
        // checksums
        ("zero_udp_checksum_not_exempt", "udp_bad = f4_c_ucs_nz$q & ~s4_udp_ok$q;", "udp_bad = ~s4_udp_ok$q;"),
        ("udp_pseudo_header_length_wrong_when_tagged", "u_sel = ct$q;", "u_sel = cu$q;"),
        ("icrc_resv8a_not_masked_when_tagged", "if (is_b5 & tg$q) begin", "if (1'b0) begin"),
        ("icrc_not_checked", "crc_ok = icrc$m_valid & (icrc$m_crc == k_residue);", "crc_ok = icrc$m_valid;"),
        // the checksums' byte enables and first-beat flag, registered one beat ahead
        ("ipv4_sum_keeps_the_vlan_tci", "ipsum$s_add = ip_add;", "ipsum$s_add = k_z16;"),
        ("udp_sum_start_ignores_the_vlan_tag", "udk$d = k_uk3t;", "udk$d = k_uk3u;"),
        ("checksums_not_restarted_after_a_last_beat", "at_b0$d = s_axis_tlast;", "at_b0$d = 1'b0;"),
    ])
}
