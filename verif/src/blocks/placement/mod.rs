//! The DMA placement unit's write path (`mrnic_placement`) on the kit: its model cycle shell
//! ([`mrnic_model::transport::placement_wr::WrShell`]) as a [`CycleModel`], its seeded
//! stimulus ([`stimulus`]: command and data sources and an AXI4 write slave), its testbench
//! and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::transport::placement_wr::{WrCmd, WrConfig, WrInputs, WrShell};
use mrnic_model::Config;
use stimulus::PlaceStimulus;

/// Names of the unit's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 14] =
        ["rst", "s_valid", "s_addr", "s_len", "s_base", "s_wlen", "s_tag", "d_valid", "d_data", "m_axi_awready", "m_axi_wready", "m_axi_bvalid", "m_axi_bresp", "m_ready"];
    pub const OUTPUTS: [&str; 23] = [
        "s_ready",
        "d_ready",
        "m_axi_awvalid",
        "m_axi_awaddr",
        "m_axi_awlen",
        "m_axi_awsize",
        "m_axi_awburst",
        "m_axi_wvalid",
        "m_axi_wdata",
        "m_axi_wstrb",
        "m_axi_wlast",
        "m_axi_bready",
        "m_valid",
        "m_tag",
        "m_resp",
        "m_clipped",
        "m_bytes",
        "stat_cmds",
        "stat_bursts",
        "stat_beats",
        "stat_bresp_err",
        "stat_err_cmds",
        "stat_clipped",
    ];
}

/// Input and output indices of the unit's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct PlacePorts {
    pub i: [usize; 14],
    pub o: [usize; 23],
}

impl PlacePorts {
    pub fn resolve(io: &Io) -> Result<PlacePorts, KitError> {
        let mut p = PlacePorts { i: [0; 14], o: [0; 23] };
        for k in 0..14 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..23 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> WrInputs {
        let i = &self.i;
        let mut d = [0u64; 8];
        for (k, w) in v.wide(i[8]).iter().enumerate().take(8) {
            d[k] = *w;
        }
        WrInputs {
            rst: v.bit(i[0]),
            s_valid: v.bit(i[1]),
            s: WrCmd { addr: v.get(i[2]), len: v.get(i[3]) as u32, base: v.get(i[4]), wlen: v.get(i[5]), tag: tag_of(v.wide(i[6])) },
            d_valid: v.bit(i[7]),
            d_data: d,
            aw_ready: v.bit(i[9]),
            w_ready: v.bit(i[10]),
            b_valid: v.bit(i[11]),
            b_resp: v.get(i[12]) as u8,
            m_ready: v.bit(i[13]),
        }
    }
    pub fn write_inputs(&self, s: &WrInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.s_valid as u64);
        v.set(i[2], s.s.addr);
        v.set(i[3], u64::from(s.s.len));
        v.set(i[4], s.s.base);
        v.set(i[5], s.s.wlen);
        v.set_wide(i[6], &tag_words(s.s.tag));
        v.set(i[7], s.d_valid as u64);
        v.set_wide(i[8], &s.d_data);
        v.set(i[9], s.aw_ready as u64);
        v.set(i[10], s.w_ready as u64);
        v.set(i[11], s.b_valid as u64);
        v.set(i[12], u64::from(s.b_resp));
        v.set(i[13], s.m_ready as u64);
    }
}

/// The shell as a [`CycleModel`]; counts what crossed each channel.
pub struct PlaceModel {
    pub shell: WrShell,
    p: PlacePorts,
    max_bursts: u64,
    partial_beats: u64,
    err_done: u64,
    clipped_done: u64,
    stalled_w: u64,
}

impl CycleModel for PlaceModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        let full = if self.shell.cfg.beat_bytes == 64 { u64::MAX } else { (1u64 << self.shell.cfg.beat_bytes) - 1 };
        o.set(p[0], out.s_ready as u64);
        o.set(p[1], out.d_ready as u64);
        o.set(p[2], out.aw.is_some() as u64);
        if let Some(a) = out.aw {
            o.set(p[3], a.addr);
            o.set(p[4], u64::from(a.len));
            o.set(p[5], u64::from(self.shell.cfg.size()));
            o.set(p[6], 1);
            self.max_bursts += (i.aw_ready && u32::from(a.len) + 1 == self.shell.cfg.max_beats) as u64;
        }
        o.set(p[7], out.w.is_some() as u64);
        if let Some(w) = out.w {
            o.set_wide(p[8], &w.data);
            o.set(p[9], w.strb);
            o.set(p[10], w.last as u64);
            self.partial_beats += (i.w_ready && w.strb != full) as u64;
            self.stalled_w += !i.w_ready as u64;
        }
        o.set(p[11], out.b_ready as u64);
        o.set(p[12], out.m.is_some() as u64);
        if let Some(m) = out.m {
            o.set_wide(p[13], &tag_words(m.tag));
            o.set(p[14], u64::from(m.resp));
            o.set(p[15], m.clipped as u64);
            o.set(p[16], u64::from(m.bytes));
            if i.m_ready {
                self.err_done += (m.resp != 0) as u64;
                self.clipped_done += m.clipped as u64;
            }
        }
        let s = out.stats;
        for (k, x) in [s.cmds, s.bursts, s.beats, s.bresp_err, s.err_cmds, s.clipped].into_iter().enumerate() {
            o.set(p[17 + k], u64::from(x));
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("max_bursts".into(), self.max_bursts),
            ("partial_beats".into(), self.partial_beats),
            ("err_completions".into(), self.err_done),
            ("clipped_completions".into(), self.clipped_done),
            ("w_stalled_cycles".into(), self.stalled_w),
        ]
    }
}

/// [`PlaceStimulus`] as a kit [`Stimulus`].
pub struct PlaceStim {
    pub gen: PlaceStimulus,
    p: PlacePorts,
}

impl Stimulus for PlaceStim {
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

/// The write path's testbench (its sizes: `mrnic_hdl::tops::placement_config`).
#[derive(Clone, Debug)]
pub struct PlaceBench {
    pub cfg: WrConfig,
}

impl PlaceBench {
    pub fn new(cfg: &Config) -> Result<PlaceBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(PlaceBench { cfg: mrnic_hdl::tops::placement_config() })
    }
}


impl Testbench for PlaceBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = PlacePorts::resolve(io)?;
        let dw = io.inputs.width(p.i[8]);
        if dw != 8 * self.cfg.beat_bytes as usize {
            return Err(KitError::Interface { block: "placement".into(), reason: format!("d_data is {dw} bits wide, expected 8 x {}", self.cfg.beat_bytes) });
        }
        Ok(Box::new(PlaceModel { shell: WrShell::new(self.cfg), p, max_bursts: 0, partial_beats: 0, err_done: 0, clipped_done: 0, stalled_w: 0 }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("placement", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(PlaceStim { gen: PlaceStimulus::with_opts(seed, self.cfg, opts), p: PlacePorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // the 4 KiB limit off by one beat: a burst that needs one beat more than its page has
    // keeps it and crosses the boundary
    ("burst_crosses_4k_by_one_beat", "le_rp = rb$q <= pgb$q;", "le_rp = rb$q <= pgb$q + k_beat_r;"),
    // the command's last beat gets every lane (the tail mask forgotten)
    ("last_beat_strobe_full", "m_axi_wstrb = strb;", "m_axi_wstrb = strb | {8{(left$q == k_zero8) & fin$q}};"),
    // awlen = beats instead of beats - 1
    ("burst_length_plus_one", "m_axi_awlen = aw_len;", "m_axi_awlen = aw_len + k_one8;"),
    // the checked window's end is not applied (only the command's own end)
    ("window_end_ignored", "hi_w = cm_w$q < cm_e$q;", "hi_w = 1'b0;"),
    // the checked window's base is not applied
    ("window_base_ignored", "lo_a = in_addr > in_base;", "lo_a = 1'b1;"),
    // the 2^A end of the address space is not applied (SEL's select by WIN's registered
    // compares)
    ("top_of_address_space_ignored", "        hi_t = sl_e_top$q;\n        if (sl_hi_w$q) begin\n            hi_t = sl_w_top$q;\n        end", "        hi_t = 1'b0;"),
    // the clipped flag misses a window base above the address (its bytes are still right)
    ("clip_flag_ignores_the_window_base", "o_clip = cm_lenz$q & (~some$q | cm_bga$q | hi_ne_e);", "o_clip = cm_lenz$q & (~some$q | hi_ne_e);"),
    // a non-OKAY bresp is counted but not reported
    ("bresp_error_not_reported", "resp$d = m_axi_bresp;", "resp$d = k_zero2;"),
    // the completion does not wait for the B responses
    ("completion_before_b", "ob$d = ob$q + 32'h1;", "ob$d = ob$q;"),
];

/// A tag (up to 128 bits) as the kit's 64-bit words, least significant first.
pub fn tag_words(t: u128) -> [u64; 2] {
    [t as u64, (t >> 64) as u64]
}

/// The tag in a port's 64-bit words.
pub fn tag_of(w: &[u64]) -> u128 {
    u128::from(w[0]) | w.get(1).map_or(0, |&h| u128::from(h) << 64)
}
