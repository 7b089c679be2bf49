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
