//! The payload realigner (`mrnic_realign`) on the kit: its model cycle shell
//! ([`mrnic_model::wire::realign::RealignShell`]) as a [`CycleModel`], its seeded stimulus
//! ([`stimulus`]: command source, frame source, sink), its testbench and its mutants.

pub mod stimulus;

use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::wire::realign::{RealignConfig, RealignInputs, RealignShell};
use mrnic_model::Config;
use stimulus::RealignStimulus;

/// Names of the realigner's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 9] = [
        "rst",
        "s_cmd_valid",
        "s_cmd_off",
        "s_cmd_len",
        "s_cmd_lane",
        "s_axis_tvalid",
        "s_axis_tdata",
        "s_axis_tlast",
        "m_axis_tready",
    ];
    pub const OUTPUTS: [&str; 9] = [
        "s_cmd_ready",
        "s_axis_tready",
        "m_axis_tvalid",
        "m_axis_tdata",
        "m_axis_tlast",
        "stat_cmds",
        "stat_beats",
        "stat_dropped",
        "stat_pad",
    ];
}

/// Input and output indices of the realigner's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct RealignPorts {
    pub i: [usize; 9],
    pub o: [usize; 9],
}

impl RealignPorts {
    pub fn resolve(io: &Io) -> Result<RealignPorts, KitError> {
        let mut p = RealignPorts { i: [0; 9], o: [0; 9] };
        for k in 0..9 {
            p.i[k] = io.input(port::INPUTS[k])?;
            p.o[k] = io.output(port::OUTPUTS[k])?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> RealignInputs {
        let i = &self.i;
        RealignInputs {
            rst: v.bit(i[0]),
            s_cmd_valid: v.bit(i[1]),
            s_cmd_off: v.get(i[2]) as u32,
            s_cmd_len: v.get(i[3]) as u32,
            s_cmd_lane: v.get(i[4]) as u32,
            s_axis_tvalid: v.bit(i[5]),
            s_axis_tdata: v.get(i[6]),
            s_axis_tlast: v.bit(i[7]),
            m_axis_tready: v.bit(i[8]),
        }
    }
    pub fn write_inputs(&self, s: &RealignInputs, v: &mut Values) {
        let i = &self.i;
        v.set(i[0], s.rst as u64);
        v.set(i[1], s.s_cmd_valid as u64);
        v.set(i[2], u64::from(s.s_cmd_off));
        v.set(i[3], u64::from(s.s_cmd_len));
        v.set(i[4], u64::from(s.s_cmd_lane));
        v.set(i[5], s.s_axis_tvalid as u64);
        v.set(i[6], s.s_axis_tdata);
        v.set(i[7], s.s_axis_tlast as u64);
        v.set(i[8], s.m_axis_tready as u64);
    }
}

/// The shell as a [`CycleModel`]; counts what crossed each stream.
pub struct RealignModel {
    pub shell: RealignShell,
    p: RealignPorts,
    cmds_in: u64,
    beats_in: u64,
    frames_in: u64,
    commands_out: u64,
    m_stalled: u64,
    s_held: u64,
}

impl CycleModel for RealignModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_cmd_ready as u64);
        o.set(p[1], out.s_axis_tready as u64);
        o.set(p[2], out.m.is_some() as u64);
        if let Some((d, last)) = out.m {
            o.set(p[3], d);
            o.set(p[4], last as u64);
            if i.m_axis_tready {
                self.commands_out += last as u64;
            } else {
                self.m_stalled += 1;
            }
        }
        self.cmds_in += (i.s_cmd_valid && out.s_cmd_ready) as u64;
        if i.s_axis_tvalid {
            if out.s_axis_tready {
                self.beats_in += 1;
                self.frames_in += i.s_axis_tlast as u64;
            } else {
                self.s_held += 1;
            }
        }
        let s = out.stats;
        for (k, x) in [s.cmds, s.beats, s.dropped, s.pad].into_iter().enumerate() {
            o.set(p[5 + k], u64::from(x));
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("cmds_in".into(), self.cmds_in),
            ("beats_in".into(), self.beats_in),
            ("frames_in".into(), self.frames_in),
            ("payloads_out".into(), self.commands_out),
            ("m_stalled_cycles".into(), self.m_stalled),
            ("s_held_cycles".into(), self.s_held),
        ]
    }
}

/// [`RealignStimulus`] as a kit [`Stimulus`].
pub struct RealignStim {
    pub gen: RealignStimulus,
    p: RealignPorts,
}

impl Stimulus for RealignStim {
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

/// The realigner's testbench (its sizes: `mrnic_hdl::tops::realign_config`).
#[derive(Clone, Debug)]
pub struct RealignBench {
    pub cfg: RealignConfig,
}

impl RealignBench {
    pub fn new(cfg: &Config) -> Result<RealignBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(RealignBench { cfg: mrnic_hdl::tops::realign_config() })
    }
}

impl Testbench for RealignBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = RealignPorts::resolve(io)?;
        let dw = io.inputs.width(p.i[6]);
        if dw != 8 * self.cfg.beat_bytes as usize {
            return Err(KitError::Interface {
                block: "realign".into(),
                reason: format!("s_axis_tdata is {dw} bits wide, expected 8 x {}", self.cfg.beat_bytes),
            });
        }
        Ok(Box::new(RealignModel {
            shell: RealignShell::new(self.cfg),
            p,
            cmds_in: 0,
            beats_in: 0,
            frames_in: 0,
            commands_out: 0,
            m_stalled: 0,
            s_held: 0,
        }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("realign", stimulus::PROFILES, &opts.profile)?;
        Ok(Box::new(RealignStim { gen: RealignStimulus::with_opts(seed, self.cfg, opts), p: RealignPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // the shift off by one byte: every output beat takes the wrong lanes
    ("shift_off_by_one_byte", "w1 = w >> k_eight;", "w1 = w;"),
    // the lane not subtracted: the payload lands at the frame offset's lanes
    ("lane_ignored", "t = ((s_cmd_off) & 9'h1ff) + k_bm1_o - ((s_cmd_lane) & 9'h1ff);", "t = ((s_cmd_off) & 9'h1ff) + k_bm1_o;"),
    // the last beat's rounding lost: a payload that spills into a partial beat loses it
    ("beats_rounded_down", "lsum = ((s_cmd_len) & 17'h1ffff) + ((s_cmd_lane) & 17'h1ffff) + k_bm1_l;", "lsum = ((s_cmd_len) & 17'h1ffff) + ((s_cmd_lane) & 17'h1ffff);"),
    // a discarded frame (len 0) still emits a beat
    ("discard_emits_a_beat", "            pbeats = k_zn;", "            pbeats = lsh[(32'h0)+:(14)];"),
    // prev not cleared at the load: the previous frame's bytes leak into the first beat
    ("prev_not_cleared", "            prev$d = k_zd;", "            prev$d = prev$q;"),
    // no zero beats after tlast: the bytes past the frame repeat the last input beat
    ("no_zero_after_tlast", "            cur = k_zd;", "            cur = s_axis_tdata;"),
    // the output register refilled while full and stalled: a beat is overwritten
    ("output_overrun", "go = on & act$q & (ended$q | s_axis_tvalid) & (~need | ofree);", "go = on & act$q & (ended$q | s_axis_tvalid);"),
    // the frame ends at the payload's last beat: the rest of the frame is taken as the next one
    ("finish_before_tlast", "fin = on & act$q & ended_n & (n_z | (emit & n_one));", "fin = on & act$q & (n_z | (emit & n_one));"),
    // the next command is loaded only when idle: a bubble between frames
    ("no_load_on_finish", "ld = on & pend_v$q & (~act$q | fin);", "ld = on & pend_v$q & ~act$q;"),
    // tlast on the wrong beat
    ("tlast_on_first_beat", "            o_last$d = n_one;", "            o_last$d = n_z;"),
];
