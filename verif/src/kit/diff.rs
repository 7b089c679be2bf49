//! The cycle-exact differential run: one seeded stimulus into the block's model and into a
//! device, every output compared every cycle (stream payloads only while their valid is
//! high). The first mismatch stops the run; it is reported with the seed, the cycle, the
//! inputs and a named-signal diff, and the same seed is re-run on a fresh device with an FST
//! of the cycles before it (and a few after), so the report names a waveform and the command
//! that reproduces it.

use super::{Device, DeviceFactory, Io, KitError, StimOpts, Testbench, Values};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// Progress of a long run, given to the callback every 2^16 cycles.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub seed: u64,
    pub cycle: u64,
    pub cycles: u64,
}

/// How to run.
pub struct RunOpts<'a> {
    pub seed: u64,
    pub cycles: u64,
    pub stim: StimOpts,
    /// Waveform file stem: `<wave_dir>/<label>-seed<seed>.fst`.
    pub label: String,
    /// The command that reproduces this run, printed on failure.
    pub repro: String,
    /// Cycles of waveform before the mismatch.
    pub trace_before: u64,
    /// Where waveforms go (default `crate::vl::waves_dir()`).
    pub wave_dir: Option<PathBuf>,
    /// Write the device's coverage counts here after the run (pass or fail).
    pub coverage: Option<PathBuf>,
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
}

impl<'a> RunOpts<'a> {
    pub fn new(seed: u64, cycles: u64) -> RunOpts<'a> {
        RunOpts { seed, cycles, stim: StimOpts::default(), label: "run".into(), repro: String::new(), trace_before: 2000, wave_dir: None, coverage: None, progress: None }
    }
    pub fn label(mut self, l: impl Into<String>) -> Self {
        self.label = l.into();
        self
    }
    pub fn repro(mut self, r: impl Into<String>) -> Self {
        self.repro = r.into();
        self
    }
    pub fn stim(mut self, s: StimOpts) -> Self {
        self.stim = s;
        self
    }
    pub fn progress(mut self, p: &'a mut dyn FnMut(Progress)) -> Self {
        self.progress = Some(p);
        self
    }
    pub(crate) fn wave_path(&self) -> PathBuf {
        let dir = self.wave_dir.clone().unwrap_or_else(crate::vl::waves_dir);
        let stem: String = self.label.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
        dir.join(format!("{stem}-seed{}.fst", self.seed))
    }
}

/// What a passing run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    pub seed: u64,
    pub cycles: u64,
    /// Transfers per stream (`s`, `m`), then the model's and the stimulus's counters.
    pub counters: BTreeMap<String, u64>,
}

impl RunReport {
    /// A counter by name (0 if absent).
    pub fn get(&self, key: &str) -> u64 {
        self.counters.get(key).copied().unwrap_or(0)
    }
}

/// The first difference between the model and the device.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub block: String,
    /// "cycle-exact" or "transaction".
    pub mode: String,
    pub seed: u64,
    pub cycle: u64,
    /// What went wrong, in one line.
    pub headline: String,
    /// The inputs of that cycle, by name.
    pub inputs: Vec<(String, String)>,
    /// Differing signals: name, expected (model), device.
    pub diff: Vec<(String, String, String)>,
    /// The waveform of the re-run, and which cycles it holds.
    pub wave: Option<String>,
    pub repro: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} mismatch: seed {}, cycle {}: {}", self.block, self.mode, self.seed, self.cycle, self.headline)?;
        let ins: Vec<String> = self.inputs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        writeln!(f, "  inputs: {}", ins.join(" "))?;
        if !self.diff.is_empty() {
            let w = self.diff.iter().map(|d| d.0.len()).max().unwrap_or(6).max(6);
            writeln!(f, "  {:w$}  {:>20}  {:>20}", "signal", "model", "device")?;
            for (n, m, d) in &self.diff {
                writeln!(f, "  {n:w$}  {m:>20}  {d:>20}")?;
            }
        }
        match &self.wave {
            Some(w) => writeln!(f, "  waveform: {w}")?,
            None => writeln!(f, "  waveform: none (the device cannot trace)")?,
        }
        if !self.repro.is_empty() {
            write!(f, "  reproduce: {}", self.repro)?;
        }
        Ok(())
    }
}

/// Why a run did not pass.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("{0}")]
    Mismatch(Box<Mismatch>),
    #[error(transparent)]
    Kit(#[from] KitError),
}

impl Failure {
    pub fn mismatch(&self) -> Option<&Mismatch> {
        match self {
            Failure::Mismatch(m) => Some(m),
            Failure::Kit(_) => None,
        }
    }
}

/// Whether every compared output agrees.
#[inline]
pub(crate) fn outputs_agree(io: &Io, want: &Values, got: &Values) -> bool {
    (0..io.outputs.len()).all(|o| match io.gate[o] {
        Some(g) if !want.bit(g) => true,
        _ => want.same(got, o),
    })
}

/// The named differences of one cycle (stream payloads only while the model's valid is high).
pub(crate) fn named_diff(io: &Io, want: &Values, got: &Values) -> Vec<(String, String, String)> {
    (0..io.outputs.len())
        .filter(|&o| !matches!(io.gate[o], Some(g) if !want.bit(g)) && !want.same(got, o))
        .map(|o| (io.outputs.name(o).to_string(), want.show(o), got.show(o)))
        .collect()
}

struct Stop {
    cycle: u64,
    inputs: Values,
    want: Values,
    got: Values,
}

/// Runs `cycles` cycles in lock step. With `trace = Some((start, path))` the device traces
/// from cycle `start`; with `stop` false the run goes on past mismatches (for the traced
/// re-run, so the waveform shows a few cycles after the first one).
#[allow(clippy::too_many_arguments)]
fn lockstep(
    tb: &dyn Testbench,
    io: &Io,
    dev: &mut dyn Device,
    opts: &RunOpts,
    cycles: u64,
    trace: Option<(u64, &std::path::Path)>,
    stop: bool,
    mut progress: Option<&mut (dyn FnMut(Progress) + '_)>,
) -> Result<Result<RunReport, Stop>, KitError> {
    let mut model = tb.model(io)?;
    let mut stim = tb.stimulus(io, opts.seed, &opts.stim)?;
    let settle = stim.settle_cycles();
    let (mut i, mut want, mut got) = (Values::new(&io.inputs), Values::new(&io.outputs), Values::new(&io.outputs));
    let mut taken = vec![false; io.in_streams.len()];
    let mut xfers_in = vec![0u64; io.in_streams.len()];
    let mut beats_out = vec![0u64; io.out_streams.len()];
    let mut first: Option<Stop> = None;
    for c in 0..cycles {
        stim.next(&taken, &mut i);
        model.step(&i, &mut want);
        if let Some((start, path)) = trace {
            if c == start {
                dev.trace_to(path)?;
            }
        }
        dev.cycle(&i, &mut got);
        if c >= settle && first.is_none() && !outputs_agree(io, &want, &got) {
            first = Some(Stop { cycle: c, inputs: i.clone(), want: want.clone(), got: got.clone() });
            if stop {
                break;
            }
        }
        for (k, s) in io.in_streams.iter().enumerate() {
            taken[k] = i.bit(s.valid) && want.bit(s.ready);
            xfers_in[k] += taken[k] as u64;
        }
        for (k, s) in io.out_streams.iter().enumerate() {
            beats_out[k] += (want.bit(s.valid) && i.bit(s.ready)) as u64;
        }
        if c & 0xffff == 0xffff {
            if let Some(p) = progress.as_deref_mut() {
                p(Progress { seed: opts.seed, cycle: c + 1, cycles });
            }
        }
    }
    if trace.is_some() {
        dev.close_trace();
    }
    if let Some(s) = first {
        return Ok(Err(s));
    }
    let mut counters = BTreeMap::new();
    for (k, s) in io.in_streams.iter().enumerate() {
        counters.insert(format!("{}.transfers", s.name), xfers_in[k]);
    }
    for (k, s) in io.out_streams.iter().enumerate() {
        counters.insert(format!("{}.transfers", s.name), beats_out[k]);
    }
    for (k, v) in model.counters() {
        counters.insert(format!("model.{k}"), v);
    }
    for (k, v) in stim.counters() {
        counters.insert(format!("stim.{k}"), v);
    }
    Ok(Ok(RunReport { seed: opts.seed, cycles, counters }))
}

/// After a failure at `cycle`: re-runs the same seed on a fresh device with an FST from
/// `opts.trace_before` cycles before it to 8 after (`rerun(device, trace_start, path, end)`,
/// the mode's own loop), and describes the waveform for the report; `None` when the device
/// cannot trace. Shared by the cycle-exact and the transaction modes.
pub(crate) fn traced_rerun<T, E: fmt::Display>(
    dev: &dyn DeviceFactory,
    io: &Io,
    opts: &RunOpts,
    cycle: u64,
    rerun: impl FnOnce(&mut dyn Device, u64, &std::path::Path, u64) -> Result<T, E>,
) -> Result<Option<String>, KitError> {
    if !dev.can_trace() {
        return Ok(None);
    }
    let path = opts.wave_path();
    let start = cycle.saturating_sub(opts.trace_before);
    let end = cycle + 8;
    let mut d = match dev.open_traced(io) {
        Ok(d) => d,
        Err(e) => return Ok(Some(format!("(no waveform: {e})"))),
    };
    Ok(Some(match rerun(d.as_mut(), start, &path, end) {
        Ok(_) => format!("{} (cycles {start}..{end}; time = 2 x cycle)", path.display()),
        Err(e) => format!("(the traced re-run failed: {e})"),
    }))
}

/// Runs `opts.cycles` cycles of the block's seeded stimulus into its model and into a device
/// from `dev`, comparing every output every cycle. On a mismatch: re-runs the same seed on a
/// fresh device with an FST from `trace_before` cycles before it, and returns the
/// [`Mismatch`] (seed, cycle, inputs, named diff, waveform, reproducing command).
pub fn run_differential(tb: &dyn Testbench, io: &Io, dev: &dyn DeviceFactory, mut opts: RunOpts) -> Result<RunReport, Failure> {
    let mut d = dev.open(io)?;
    let cycles = opts.cycles;
    let mut progress = opts.progress.take();
    let r = lockstep(tb, io, d.as_mut(), &opts, cycles, None, true, progress.as_deref_mut())?;
    if let Some(p) = &opts.coverage {
        d.write_coverage(p)?;
    }
    drop(d);
    let stop = match r {
        Ok(rep) => return Ok(rep),
        Err(s) => s,
    };
    let wave = traced_rerun(dev, io, &opts, stop.cycle, |d, start, path, end| {
        lockstep(tb, io, d, &opts, end, Some((start, path)), false, None)
    })?;
    let diff = named_diff(io, &stop.want, &stop.got);
    let names: Vec<&str> = diff.iter().map(|d| d.0.as_str()).collect();
    Err(Failure::Mismatch(Box::new(Mismatch {
        block: io.iface.block.clone(),
        mode: "cycle-exact".into(),
        seed: opts.seed,
        cycle: stop.cycle,
        headline: format!("{} differ{}", names.join(", "), if names.len() == 1 { "s" } else { "" }),
        inputs: stop.inputs.named(),
        diff,
        wave,
        repro: opts.repro.clone(),
    })))
}
