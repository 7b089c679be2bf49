//! The SACK engine's differential harness: one seeded stimulus into the golden model's
//! cycle shell and into a device under test (the Verilated RTL, or rust-hdl's own
//! simulator), outputs compared every cycle.

use mrnic_model::sack::{Bitmap, Class, SackInputs, SackOutput, SackOutputs, SackResult, SackShell, SackStats};
use mrnic_model::stimulus::{SackStimulus, StimulusMix};
use std::fmt;

/// A device under test: sets the inputs for one cycle, returns the outputs seen during that
/// cycle (before the rising edge), then clocks the edge.
pub trait SackDut {
    fn cycle(&mut self, i: &SackInputs) -> SackOutputs;
}

/// The first difference between the model and the device.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub seed: u64,
    pub cycle: u64,
    pub inputs: SackInputs,
    pub model: SackOutputs,
    pub rtl: SackOutputs,
    pub what: Vec<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "SACK engine mismatch: seed {} cycle {}", self.seed, self.cycle)?;
        writeln!(f, "  inputs: {:?}", self.inputs)?;
        for w in &self.what {
            writeln!(f, "  {w}")?;
        }
        Ok(())
    }
}

/// What one run did.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub cycles: u64,
    pub packets_in: u64,
    pub results_out: u64,
    pub by_class: [u64; 4],
    pub stalled_cycles: u64,
    pub mix: StimulusMix,
}

fn fmt_out(m: &Option<SackOutput>, window: usize) -> String {
    match m {
        None => "m_valid=0".into(),
        Some(o) => format!(
            "m_conn={} m_psn={:#08x} m_class={:?} m_base={:#08x} m_bitmap={}",
            o.conn,
            o.psn,
            o.result.class,
            o.result.base,
            o.result.bitmap.to_hex(window)
        ),
    }
}

/// Compares one cycle's outputs. Payload outputs are compared only while `m_valid`.
pub fn compare(model: &SackOutputs, rtl: &SackOutputs, window: usize) -> Vec<String> {
    let mut what = vec![];
    if model.s_ready != rtl.s_ready {
        what.push(format!("s_ready: model {} rtl {}", model.s_ready, rtl.s_ready));
    }
    if model.m != rtl.m {
        what.push(format!("model: {}", fmt_out(&model.m, window)));
        what.push(format!("rtl:   {}", fmt_out(&rtl.m, window)));
    }
    if model.stats != rtl.stats {
        what.push(format!("stats: model {:?} rtl {:?}", model.stats, rtl.stats));
    }
    what
}

/// Runs `cycles` cycles of seeded stimulus into the model and `dut`; stops at the first
/// mismatch.
pub fn run_differential(
    dut: &mut dyn SackDut,
    seed: u64,
    cycles: u64,
    connections: usize,
    window: usize,
) -> Result<RunReport, Box<Mismatch>> {
    let mut stim = SackStimulus::new(seed, connections, window);
    let mut model = SackShell::new(connections, window);
    let mut rep = RunReport::default();
    let mut taken = false;
    for cycle in 0..cycles {
        let i = stim.next_inputs(taken);
        let want = model.step(&i);
        let got = dut.cycle(&i);
        let what = compare(&want, &got, window);
        if !what.is_empty() {
            return Err(Box::new(Mismatch { seed, cycle, inputs: i, model: want, rtl: got, what }));
        }
        taken = i.s_valid && want.s_ready;
        rep.packets_in += taken as u64;
        if let (Some(m), true) = (want.m, i.m_ready) {
            rep.results_out += 1;
            rep.by_class[m.result.class.code() as usize] += 1;
        }
        rep.stalled_cycles += !want.s_ready as u64;
    }
    rep.cycles = cycles;
    rep.mix = stim.mix.clone();
    Ok(rep)
}

/// Builds the model's view of the output port values.
#[allow(clippy::too_many_arguments)]
pub fn outputs_from_ports(
    s_ready: bool,
    m_valid: bool,
    m_conn: u64,
    m_psn: u64,
    m_class: u64,
    m_base: u64,
    m_bitmap: Bitmap,
    stats: [u64; 4],
) -> SackOutputs {
    SackOutputs {
        s_ready,
        m: m_valid.then(|| SackOutput {
            conn: m_conn as u32,
            psn: m_psn as u32,
            result: SackResult {
                class: Class::from_code(m_class as u8).expect("2-bit class"),
                base: m_base as u32,
                bitmap: m_bitmap,
            },
        }),
        stats: SackStats {
            new: stats[0] as u32,
            duplicate: stats[1] as u32,
            out_of_window: stats[2] as u32,
            cleared: stats[3] as u32,
        },
    }
}

/// rust-hdl's own simulator as a device under test (slow: for short runs).
pub mod rusthdl {
    use super::*;
    use mrnic_hdl::sack::SackEngine;
    use rust_hdl::prelude::*;

    pub struct RustHdlSack<const C: usize, const W: usize> {
        pub uut: SackEngine<C, W>,
    }

    impl<const C: usize, const W: usize> RustHdlSack<C, W> {
        pub fn new() -> Self {
            let mut uut = SackEngine::<C, W>::new();
            uut.connect_all();
            uut.clock.next = Clock::from(false);
            simulate(&mut uut, 100);
            Self { uut }
        }
    }

    impl<const C: usize, const W: usize> Default for RustHdlSack<C, W> {
        fn default() -> Self {
            Self::new()
        }
    }

    fn bitmap<const W: usize>(b: Bits<W>) -> Bitmap {
        let mut out = Bitmap::default();
        for k in 0..W {
            if b.get_bit(k) {
                out.set(k);
            }
        }
        out
    }

    impl<const C: usize, const W: usize> SackDut for RustHdlSack<C, W> {
        fn cycle(&mut self, i: &SackInputs) -> SackOutputs {
            let u = &mut self.uut;
            u.rst.next = i.rst;
            u.s_valid.next = i.s_valid;
            u.s_conn.next = (i.s_conn as u64).into();
            u.s_psn.next = (i.s_psn as u64).into();
            u.s_clear.next = i.s_clear;
            u.m_ready.next = i.m_ready;
            assert!(simulate(u, 1000), "rust-hdl simulation did not settle");
            let o = outputs_from_ports(
                u.s_ready.val(),
                u.m_valid.val(),
                u.m_conn.val().to_u64(),
                u.m_psn.val().to_u64(),
                u.m_class.val().to_u64(),
                u.m_base.val().to_u64(),
                bitmap(u.m_bitmap.val()),
                [
                    u.stat_new.val().to_u64(),
                    u.stat_duplicate.val().to_u64(),
                    u.stat_out_of_window.val().to_u64(),
                    u.stat_cleared.val().to_u64(),
                ],
            );
            u.clock.next = Clock::from(true);
            assert!(simulate(u, 1000), "rust-hdl simulation did not settle");
            u.clock.next = Clock::from(false);
            assert!(simulate(u, 1000), "rust-hdl simulation did not settle");
            o
        }
    }
}

/// The Verilated RTL as a device under test.
pub mod verilated {
    use super::*;
    use crate::vl::{BuildOpts, Model, Port, Sim};
    use mrnic_model::Config;

    /// Port handles, resolved once against the manifest.
    struct Ports {
        clock: Port,
        rst: Port,
        s_valid: Port,
        s_conn: Port,
        s_psn: Port,
        s_clear: Port,
        m_ready: Port,
        s_ready: Port,
        m_valid: Port,
        m_conn: Port,
        m_psn: Port,
        m_class: Port,
        m_base: Port,
        m_bitmap: Port,
        stats: [Port; 4],
    }

    pub struct VlSack {
        pub sim: Sim,
        p: Ports,
        words: Vec<u32>,
    }

    /// Builds (or takes from the cache) the Verilated model of `verilog` (the SACK engine's
    /// generated Verilog, possibly mutated by a test) for the ports of `cfg`'s engine.
    pub fn build(label: &str, cfg: &Config, verilog: &str) -> Model {
        let t = mrnic_hdl::tops::sack_engine(cfg).unwrap_or_else(|e| panic!("{e}"));
        Model::build(label, verilog, &t.ports, &BuildOpts::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    impl VlSack {
        pub fn new(sim: Sim) -> Self {
            let g = |n: &str| sim.port(n).unwrap_or_else(|e| panic!("{e}"));
            let p = Ports {
                clock: g("clock"),
                rst: g("rst"),
                s_valid: g("s_valid"),
                s_conn: g("s_conn"),
                s_psn: g("s_psn"),
                s_clear: g("s_clear"),
                m_ready: g("m_ready"),
                s_ready: g("s_ready"),
                m_valid: g("m_valid"),
                m_conn: g("m_conn"),
                m_psn: g("m_psn"),
                m_class: g("m_class"),
                m_base: g("m_base"),
                m_bitmap: g("m_bitmap"),
                stats: [g("stat_new"), g("stat_duplicate"), g("stat_out_of_window"), g("stat_cleared")],
            };
            let words = vec![0; p.m_bitmap.width().div_ceil(32)];
            let mut s = Self { sim, p, words };
            s.sim.set(&s.p.clock, 0);
            s.sim.eval();
            s
        }
    }

    impl SackDut for VlSack {
        fn cycle(&mut self, i: &SackInputs) -> SackOutputs {
            let (s, p) = (&mut self.sim, &self.p);
            s.set(&p.rst, i.rst as u64);
            s.set(&p.s_valid, i.s_valid as u64);
            s.set(&p.s_conn, i.s_conn as u64);
            s.set(&p.s_psn, i.s_psn as u64);
            s.set(&p.s_clear, i.s_clear as u64);
            s.set(&p.m_ready, i.m_ready as u64);
            s.set(&p.clock, 0);
            s.eval();
            let m_valid = s.get(&p.m_valid) == 1;
            let bitmap = if m_valid {
                s.get_wide_into(&p.m_bitmap, &mut self.words);
                Bitmap::from_u32_words(&self.words)
            } else {
                Bitmap::default()
            };
            let o = outputs_from_ports(
                s.get(&p.s_ready) == 1,
                m_valid,
                s.get(&p.m_conn),
                s.get(&p.m_psn),
                s.get(&p.m_class),
                s.get(&p.m_base),
                bitmap,
                [s.get(&p.stats[0]), s.get(&p.stats[1]), s.get(&p.stats[2]), s.get(&p.stats[3])],
            );
            s.set(&p.clock, 1);
            s.eval();
            o
        }
    }

    /// Runs the differential test on a Verilated model; on a mismatch, re-runs the same seed
    /// with an FST trace of the cycles before it and panics with the seed, the cycle, the
    /// inputs, the differing outputs and the waveform's path.
    pub fn check(model: &Model, label: &str, seed: u64, cycles: u64, cfg: &Config) -> RunReport {
        let (c, w) = (cfg.sack.connections, cfg.sack.window);
        let mut dut = VlSack::new(model.sim().unwrap_or_else(|e| panic!("{e}")));
        match run_differential(&mut dut, seed, cycles, c, w) {
            Ok(r) => r,
            Err(m) => {
                let wave = crate::vl::waves_dir().join(format!("{label}-seed{seed}.fst"));
                let traced = trace_rerun(model, &wave, &m, c, w);
                panic!("{m}  waveform: {traced}\n  re-run: MRNIC_SEED={seed} (see verif/tests/sack_diff.rs)");
            }
        }
    }

    /// A device that opens a trace at a given cycle.
    struct TraceFrom {
        dut: VlSack,
        cycle: u64,
        start: u64,
        path: std::path::PathBuf,
    }
    impl SackDut for TraceFrom {
        fn cycle(&mut self, i: &SackInputs) -> SackOutputs {
            if self.cycle == self.start {
                let _ = self.dut.sim.trace_to(&self.path);
            }
            self.cycle += 1;
            self.dut.cycle(i)
        }
    }

    fn trace_rerun(model: &Model, wave: &std::path::Path, m: &Mismatch, c: usize, w: usize) -> String {
        let Ok(sim) = model.sim() else { return "(no waveform: model could not be re-instantiated)".into() };
        let mut dut = TraceFrom { dut: VlSack::new(sim), cycle: 0, start: m.cycle.saturating_sub(2000), path: wave.into() };
        let _ = run_differential(&mut dut, m.seed, m.cycle + 8, c, w);
        dut.dut.sim.close_trace();
        format!("{} (cycles {}..={}; time = 2 x cycle)", wave.display(), dut.start, m.cycle + 7)
    }
}
