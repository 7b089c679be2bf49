//! The receive frame buffer (`mrnic_fbuf`) on the kit: its model cycle shell
//! ([`mrnic_model::wire::fbuf::FbufShell`]) as a [`CycleModel`], its seeded stimulus
//! ([`stimulus`]: frame source, verdict source, sink), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::wire::fbuf::{FbufConfig, FbufInputs, FbufShell};
use mrnic_model::Config;
use stimulus::FbufStimulus;

/// Names of the buffer's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 8] = [
        "rst",
        "s_axis_tvalid",
        "s_axis_tdata",
        "s_axis_tkeep",
        "s_axis_tlast",
        "s_vrd_valid",
        "s_vrd_keep",
        "m_axis_tready",
    ];
    pub const OUTPUTS: [&str; 10] = [
        "s_axis_tready",
        "s_vrd_ready",
        "m_axis_tvalid",
        "m_axis_tdata",
        "m_axis_tkeep",
        "m_axis_tlast",
        "stat_frames",
        "stat_kept",
        "stat_refused",
        "stat_too_long",
    ];
}

/// Input and output indices of the buffer's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct FbufPorts {
    pub i: [usize; 8],
    pub o: [usize; 10],
}

impl FbufPorts {
    pub fn resolve(io: &Io) -> Result<FbufPorts, KitError> {
        let mut p = FbufPorts {
            i: [0; 8],
            o: [0; 10],
        };
        for k in 0..8 {
            p.i[k] = io.input(port::INPUTS[k])?;
        }
        for k in 0..10 {
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> FbufInputs {
        let i = &self.i;
        FbufInputs {
            rst: v.bit(i[0]),
            s_axis_tvalid: v.bit(i[1]),
            s_axis_tdata: v.get(i[2]),
            s_axis_tkeep: v.get(i[3]) as u8,
            s_axis_tlast: v.bit(i[4]),
            s_vrd_valid: v.bit(i[5]),
            s_vrd_keep: v.bit(i[6]),
            m_axis_tready: v.bit(i[7]),
        }
    }
    pub fn write_inputs(&self, s: &FbufInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.s_axis_tvalid as u64);
        v.set(i[2], s.s_axis_tdata);
        v.set(i[3], u64::from(s.s_axis_tkeep));
        v.set(i[4], s.s_axis_tlast as u64);
        v.set(i[5], s.s_vrd_valid as u64);
        v.set(i[6], s.s_vrd_keep as u64);
        v.set(i[7], s.m_axis_tready as u64);
    }
}

/// The shell as a [`CycleModel`]; counts what crossed each stream.
pub struct FbufModel {
    pub shell: FbufShell,
    p: FbufPorts,
    beats_out: u64,
    frames_out: u64,
    m_stalled: u64,
    back_to_back: u64,
    last_out: bool,
}

impl CycleModel for FbufModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_axis_tready as u64);
        o.set(p[1], out.s_vrd_ready as u64);
        o.set(p[2], out.m.is_some() as u64);
        let mut moved = false;
        if let Some(b) = out.m {
            o.set(p[3], b.data);
            o.set(p[4], u64::from(b.keep));
            o.set(p[5], b.last as u64);
            if i.m_axis_tready {
                moved = true;
                self.beats_out += 1;
                self.frames_out += b.last as u64;
                // a frame's first beat in the cycle after the previous frame's last
                self.back_to_back += self.last_out as u64;
                self.last_out = b.last;
            } else {
                self.m_stalled += 1;
            }
        }
        if !moved {
            self.last_out = false;
        }
        let s = out.stats;
        for (k, x) in [s.frames, s.kept, s.refused, s.too_long]
            .into_iter()
            .enumerate()
        {
            o.set(p[6 + k], u64::from(x));
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("beats_out".into(), self.beats_out),
            ("frames_out".into(), self.frames_out),
            ("m_stalled_cycles".into(), self.m_stalled),
            ("frames_back_to_back".into(), self.back_to_back),
        ]
    }
}

/// [`FbufStimulus`] as a kit [`Stimulus`].
pub struct FbufStim {
    pub gen: FbufStimulus,
    p: FbufPorts,
}

impl Stimulus for FbufStim {
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

/// The buffer's testbench (its sizes: `mrnic_hdl::tops::fbuf_config`).
#[derive(Clone, Debug)]
pub struct FbufBench {
    pub cfg: FbufConfig,
}

impl FbufBench {
    pub fn new(cfg: &Config) -> Result<FbufBench, KitError> {
        cfg.validate()
            .map_err(|e| KitError::Config(e.to_string()))?;
        Ok(FbufBench {
            cfg: mrnic_hdl::tops::fbuf_config(),
        })
    }
}


impl Testbench for FbufBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = FbufPorts::resolve(io)?;
        let dw = io.inputs.width(p.i[2]);
        if dw != 8 * self.cfg.beat_bytes as usize {
            return Err(KitError::Interface {
                block: "fbuf".into(),
                reason: format!(
                    "s_axis_tdata is {dw} bits wide, expected 8 x {}",
                    self.cfg.beat_bytes
                ),
            });
        }
        Ok(Box::new(FbufModel {
            shell: FbufShell::new(self.cfg),
            p,
            beats_out: 0,
            frames_out: 0,
            m_stalled: 0,
            back_to_back: 0,
            last_out: false,
        }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("fbuf", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(FbufStim {
            gen: FbufStimulus::with_opts(seed, self.cfg, opts),
            p: FbufPorts::resolve(io)?,
        }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // the beat written in this cycle is not counted against the space: the RAM overflows
    (
        "ram_full_misses_the_beat_in_flight",
        "(w_en & (occ == k_depth_m1))",
        "1'b0",
    ),
    // the descriptor ring's limit forgotten: a 17th frame overwrites a live descriptor
    (
        "descriptor_ring_never_full",
        "(held == k_nf) | (ends & (held == k_nf_m1))",
        "1'b0",
    ),
    // the overflow flag is ignored: a too-long frame is released, truncated
    (
        "too_long_frame_released",
        "h_keep = vk$q[nr$q[(32'h0)+:(4)]] & ~d_over;",
        "h_keep = vk$q[nr$q[(32'h0)+:(4)]];",
    ),
    // the length limit off by one: a frame of max_beats + 1 beats is stored whole
    (
        "length_limit_off_by_one",
        "fits = fb$q < k_maxb;",
        "fits = fb$q <= k_maxb;",
    ),
    // a refused frame is not skipped: the read pointer stays and its beats leave as the next frame's
    (
        "refused_frame_not_skipped",
        "            rp$d = d_end;",
        "            rp$d = rp$q;",
    ),
    // the last beat's keep is not carried: every beat leaves with all lanes
    (
        "last_keep_lost",
        "            r_keep$d = d_keep;",
        "            r_keep$d = k_ones;",
    ),
    // the output queue's limit one too high: a fifth beat overwrites the head
    (
        "output_queue_overrun",
        "q_room = (qn$q + ((r_v$q) & 3'h7) + ((o_v$q) & 3'h7)) < k_four;",
        "q_room = (qn$q + ((r_v$q) & 3'h7) + ((o_v$q) & 3'h7)) <= k_four;",
    ),
    // a verdict is taken in the cycle its frame's last beat arrives (before the descriptor is written)
    (
        "verdict_before_its_frame_ends",
        "s_vrd_ready = on & (ne$q != nj$q);",
        "s_vrd_ready = on;",
    ),
];
