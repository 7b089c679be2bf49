//! Devices under test. A [`Device`] takes one cycle's inputs, returns the outputs seen during
//! that cycle (before the rising edge), then clocks the edge. [`VlDevice`] binds an
//! [`Io`](super::Io) to a Verilated model by port name (every input and output of the
//! interface must exist with the same width, or the binding fails naming it); a
//! [`DeviceFactory`] opens fresh devices, traced or not, so the harness can re-run a failing
//! seed with a waveform.

use super::{Io, KitError, Values};
use crate::vl::{Model, Port, PortDir, Sim};
use std::path::Path;
use std::sync::OnceLock;

/// One implementation being clocked.
pub trait Device {
    /// Sets the inputs `i`, evaluates, writes the outputs during the cycle into `o`, then
    /// clocks one rising edge.
    fn cycle(&mut self, i: &Values, o: &mut Values);
    /// Starts an FST trace into `path` from the next cycle on.
    fn trace_to(&mut self, path: &Path) -> Result<(), KitError> {
        Err(KitError::Unsupported(format!("this device cannot trace into {}", path.display())))
    }
    /// Closes the trace, if one is open.
    fn close_trace(&mut self) {}
    /// Writes the coverage counts so far (a model built with coverage).
    fn write_coverage(&mut self, path: &Path) -> Result<(), KitError> {
        Err(KitError::Unsupported(format!("this device has no coverage to write into {}", path.display())))
    }
}

/// Opens devices of one implementation.
pub trait DeviceFactory {
    fn open(&self, io: &Io) -> Result<Box<dyn Device>, KitError>;
    /// A fresh device for the traced re-run of a failing seed: one that computes what
    /// [`open`](DeviceFactory::open)'s devices compute and whose [`Device::trace_to`] works
    /// (when [`can_trace`](DeviceFactory::can_trace)).
    fn open_traced(&self, io: &Io) -> Result<Box<dyn Device>, KitError> {
        self.open(io)
    }
    /// Whether [`open_traced`](DeviceFactory::open_traced)'s devices can trace.
    fn can_trace(&self) -> bool {
        false
    }
    /// For reports: what the implementation is.
    fn describe(&self) -> String;
}

/// A Verilated model bound to an interface.
pub struct VlDevice {
    pub sim: Sim,
    clock: Port,
    ins: Vec<(usize, Port)>,
    outs: Vec<(usize, Port)>,
    words: Vec<u32>,
}

impl VlDevice {
    /// Binds `sim` to `io`: resolves every input (and the clock) and every output by name.
    pub fn bind(mut sim: Sim, io: &Io) -> Result<VlDevice, KitError> {
        let what = format!("{} to the Verilated model", io.iface.block);
        let bad = |reason: String| KitError::Binding { what: what.clone(), reason };
        let port = |sim: &Sim, name: &str, width: usize, dir: PortDir| -> Result<Port, KitError> {
            let p = sim.port(name).map_err(|e| bad(e.to_string()))?;
            if p.width() != width || p.dir() != dir {
                return Err(bad(format!("port {name}: the model has {:?} {} bits, the interface {:?} {} bits", p.dir(), p.width(), dir, width)));
            }
            Ok(p)
        };
        let clock = port(&sim, &io.iface.clock, 1, PortDir::In)?;
        let ins = (0..io.inputs.len()).map(|k| Ok((k, port(&sim, io.inputs.name(k), io.inputs.width(k), PortDir::In)?))).collect::<Result<Vec<_>, KitError>>()?;
        let outs = (0..io.outputs.len()).map(|k| Ok((k, port(&sim, io.outputs.name(k), io.outputs.width(k), PortDir::Out)?))).collect::<Result<Vec<_>, KitError>>()?;
        let maxw = io.inputs.sigs().iter().chain(io.outputs.sigs()).map(|s| s.width).max().unwrap_or(1);
        sim.set(&clock, 0);
        sim.eval();
        Ok(VlDevice { sim, clock, ins, outs, words: vec![0; maxw.div_ceil(32)] })
    }
}

impl Device for VlDevice {
    #[inline]
    fn cycle(&mut self, i: &Values, o: &mut Values) {
        let s = &mut self.sim;
        for (k, p) in &self.ins {
            if p.width() <= 64 {
                s.set(p, i.get(*k));
            } else {
                let n = p.width().div_ceil(32);
                i.u32_words_into(*k, &mut self.words[..n]);
                s.set_wide(p, &self.words[..n]);
            }
        }
        s.set(&self.clock, 0);
        s.eval();
        for (k, p) in &self.outs {
            if p.width() <= 64 {
                o.set(*k, s.get(p));
            } else {
                let n = p.width().div_ceil(32);
                s.get_wide_into(p, &mut self.words[..n]);
                o.set_u32_words(*k, &self.words[..n]);
            }
        }
        s.set(&self.clock, 1);
        s.eval();
    }
    fn trace_to(&mut self, path: &Path) -> Result<(), KitError> {
        Ok(self.sim.trace_to(path)?)
    }
    fn close_trace(&mut self) {
        self.sim.close_trace();
    }
    fn write_coverage(&mut self, path: &Path) -> Result<(), KitError> {
        Ok(self.sim.write_coverage(path)?)
    }
}

/// How a [`VlFactory`] makes a fresh simulation of its model (e.g. with run-time options
/// such as a power-up seed).
pub type SimOpener = Box<dyn Fn(&Model) -> Result<Sim, crate::vl::BridgeError> + Send + Sync>;

/// Opens [`VlDevice`]s on one built model. The traced re-run of a failing seed runs on the
/// model itself when it has FST tracing compiled in, else on [`Model::traced`], built the first
/// time a re-run asks for it (the tests build without tracing: [`BuildOpts::untraced`]);
/// [`without_waves`](VlFactory::without_waves) turns that off (mutants, which are meant to
/// fail).
///
/// [`BuildOpts::untraced`]: crate::vl::BuildOpts::untraced
pub struct VlFactory {
    pub model: Model,
    opener: Option<SimOpener>,
    retrace: bool,
    traced: OnceLock<Result<Model, String>>,
}

impl VlFactory {
    /// Devices on `model.sim()`.
    pub fn new(model: Model) -> VlFactory {
        VlFactory { model, opener: None, retrace: true, traced: OnceLock::new() }
    }
    /// No traced rebuild for a failing seed: a model without tracing then reports no
    /// waveform (a mutant's run, which is expected to fail, need not build one).
    pub fn without_waves(mut self) -> VlFactory {
        self.retrace = false;
        self
    }
    fn sim_of(&self, m: &Model) -> Result<crate::vl::Sim, crate::vl::BridgeError> {
        match &self.opener {
            Some(f) => f(m),
            None => m.sim(),
        }
    }
    /// Power-up devices: `model` must be built with `BuildOpts::x_unique`; every device starts
    /// from random initial state chosen at run time from `seed` (`+verilator+seed+N
    /// +verilator+rand+reset+2`), the same for each device of this factory.
    pub fn power_up(model: Model, seed: u64) -> VlFactory {
        let opts = crate::vl::SimOpts { seed: Some(seed.clamp(1, (1 << 31) - 1)), rand_reset: true, plusargs: vec![] };
        VlFactory::with_opener(model, Box::new(move |m: &Model| m.sim_with(&opts)))
    }
    /// Devices on simulations made by `opener` (every device, including the traced re-run,
    /// gets the same run-time options, so a failing run reproduces).
    pub fn with_opener(model: Model, opener: SimOpener) -> VlFactory {
        VlFactory { opener: Some(opener), ..VlFactory::new(model) }
    }
}

impl DeviceFactory for VlFactory {
    fn open(&self, io: &Io) -> Result<Box<dyn Device>, KitError> {
        Ok(Box::new(VlDevice::bind(self.sim_of(&self.model)?, io)?))
    }
    fn open_traced(&self, io: &Io) -> Result<Box<dyn Device>, KitError> {
        if self.model.has_trace() || !self.retrace {
            return self.open(io);
        }
        let traced = self.traced.get_or_init(|| {
            eprintln!("building {} with FST tracing for the waveform of the failing seed", self.model.name());
            self.model.traced().map_err(|e| e.to_string())
        });
        let m = traced.as_ref().map_err(|e| KitError::Unsupported(format!("the traced build of {} failed: {e}", self.model.name())))?;
        Ok(Box::new(VlDevice::bind(self.sim_of(m)?, io)?))
    }
    fn can_trace(&self) -> bool {
        self.model.has_trace() || self.retrace
    }
    fn describe(&self) -> String {
        format!("Verilated {}", self.model.name())
    }
}
