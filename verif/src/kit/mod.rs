//! The verification kit: one differential harness for every block.
//!
//! A block brings three things: its golden model's cycle shell as a [`CycleModel`] (inputs
//! and outputs by signal name, one `step` per clock), a seeded [`Stimulus`], and its
//! interface (the manifest's ports and streams, [`Interface`]). The kit binds the interface to
//! any implementation (the Verilated generated Verilog, another Verilog file, rust-hdl's own
//! simulator: a [`Device`]) and runs them side by side: [`run_differential`] compares every
//! output every cycle (stream payloads only while their valid is high) and stops at the first
//! mismatch with the seed, the cycle, the inputs and a named-signal diff, then re-runs with an
//! FST of the cycles before it; [`run_transaction`] compares only what a second
//! implementation must agree on (same results in the same order on every output stream,
//! handshakes obeyed, status counters when idle). [`Mutant`]s (one deliberate bug each, whose
//! pattern must occur exactly once) prove the harness can fail.

pub mod device;
pub mod diff;
pub mod iface;
pub mod mutant;
pub mod signals;
pub mod stim;
pub mod testing;
pub mod txn;

pub use device::{Device, DeviceFactory, SimOpener, VlDevice, VlFactory};
pub use diff::{run_differential, Failure, Mismatch, Progress, RunOpts, RunReport};
pub use iface::{infer_streams, Interface, Io, StreamIdx, StreamSpec, TimerSpec};
pub use mutant::{check_mutants, schema, Caught, Mutant, MutantError, Schema, SCHEMA_PLUSARG};
pub use signals::{Layout, Sig, Values};
pub use testing::DiffBench;
pub use txn::{match_timer_events, run_transaction, timer_keys, DeviceClock, TimerHistory};

use std::path::PathBuf;

/// Errors of the kit (setting up a run; a failed comparison is a [`Mismatch`]).
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    #[error("block {block}: interface: {reason}")]
    Interface { block: String, reason: String },
    #[error("binding {what}: {reason}")]
    Binding { what: String, reason: String },
    #[error(transparent)]
    Bridge(#[from] crate::vl::BridgeError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("{0}")]
    Unsupported(String),
}

/// A block's golden model with the RTL's timing: one call per clock cycle.
pub trait CycleModel {
    /// Writes into `o` the outputs during a cycle whose inputs are `i` (before the rising
    /// edge), then advances one edge. `i` and `o` use the [`Io`]'s layouts.
    fn step(&mut self, i: &Values, o: &mut Values);
    /// What the model saw, for the run report (e.g. results by class).
    fn counters(&self) -> Vec<(String, u64)> {
        vec![]
    }
    /// The changes the last `step` made to the model's timers (transaction mode's timer
    /// check, [`txn`]): one [`TimerChange`] per timer whose deadline was set, moved or
    /// cleared. A model without timer streams, or one whose timer events must match
    /// the device's within the slack alone, reports none.
    fn timer_changes(&mut self, _out: &mut Vec<TimerChange>) {}
}

/// One change of a model timer in the last cycle: the timer of timer stream `stream` whose
/// event would carry `payload` (output port index, value; the stream's payload ports, with
/// one bit set in a set port, [`iface::TimerSpec::sets`]) is now `due` as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerChange {
    pub stream: &'static str,
    pub payload: Vec<(usize, u64)>,
    pub due: TimerDue,
}

/// When a changed model timer is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerDue {
    /// Disarmed.
    Off,
    /// Once the time input `port` (an input index; a `sampled` port of an input stream, such
    /// as `now`) reaches `deadline` (serial arithmetic at the port's width). The run converts
    /// it into a cycle with the time the DEVICE was given, cycle by cycle: a model that takes
    /// its ops late sees their (sampled) times, so its own time input steps back and forth,
    /// and only the device's input says when the deadline is reached.
    AtTime { port: usize, deadline: u64 },
}

/// A seeded input generator.
pub trait Stimulus {
    /// Writes the inputs of the next cycle into `i`. `taken[k]` says whether input stream
    /// `k`'s offer in the previous cycle was transferred (valid && ready), so an offer can be
    /// held until it is, as a valid/ready source must.
    fn next(&mut self, taken: &[bool], i: &mut Values);
    /// Cycles at the start whose outputs are not compared (power-up: the outputs before the
    /// first reset edge come from random state).
    fn settle_cycles(&self) -> u64 {
        0
    }
    /// What it generated, by kind (to show a run covers what it claims).
    fn counters(&self) -> Vec<(String, u64)> {
        vec![]
    }
}

/// Refuses a directed profile that `block`'s stimulus does not know (`known`); the empty
/// profile (the random mix) is always accepted.
pub fn check_profile(block: &str, known: &[&str], profile: &str) -> Result<(), KitError> {
    if profile.is_empty() || known.contains(&profile) {
        Ok(())
    } else {
        Err(KitError::Config(format!("{block} stimulus: unknown profile {profile:?} (known: {})", known.join(", "))))
    }
}

/// Stimulus options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StimOpts {
    /// Power-up run: hold reset for the first cycles, then set up every piece of state the
    /// block relies on (the SACK engine: clear every connection) before the random traffic.
    pub power_up: bool,
    /// No resets after the start (transaction mode: a reset's effect on in-flight work
    /// depends on the implementation's latency).
    pub no_resets: bool,
    /// A directed profile by name (block-defined; empty = the default random mix).
    pub profile: String,
}

/// What a block's differential test needs: its model and its stimulus, for one configuration.
pub trait Testbench: Sync {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError>;
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError>;
}
