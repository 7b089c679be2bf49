//! Run configuration: [`RunConfig`] is one complete simulation (topology, fabric,
//! workload, timed link events, duration, goodput bin width, seed, receiver rate hint and
//! an optional event limit). [`RunConfig::validate`] refuses bad values before anything is
//! built, naming the offending field: the topology, fabric, workload and failure specs
//! check themselves, failure links must resolve in the built topology, the duration must
//! be in (0, 1e9] µs and the bin width must give at most [`MAX_BINS`] bins.

use crate::config::{FabricSpec, FailureSpec, TopologySpec, TrafficSpec};
use crate::topology::Topology;
use crate::SimError;

/// One complete simulation: network, workload, time limits.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Label for progress and results.
    pub label: String,
    /// Topology.
    pub topology: TopologySpec,
    /// Physical fabric.
    pub fabric: FabricSpec,
    /// Workload.
    pub traffic: TrafficSpec,
    /// Timed link events.
    pub failures: Vec<FailureSpec>,
    /// Simulated time limit, µs (the run also stops when a finite workload completes).
    pub duration_us: f64,
    /// Width of goodput-over-time bins, µs.
    pub bin_us: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Tell endpoints the host load (receiver rate hint).
    pub rate_hint: bool,
    /// Stop after this many events (0 = no limit).
    pub max_events: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            label: String::new(),
            topology: TopologySpec::default(),
            fabric: FabricSpec::default(),
            traffic: TrafficSpec::default(),
            failures: Vec::new(),
            duration_us: 1000.0,
            bin_us: 10.0,
            seed: 1,
            rate_hint: false,
            max_events: 0,
        }
    }
}

/// Most bins a run may ask for.
pub const MAX_BINS: f64 = 100_000.0;

impl RunConfig {
    /// Refuse bad values, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        self.topology.validate()?;
        self.fabric.validate()?;
        self.traffic.validate(self.topology.hosts())?;
        for f in &self.failures {
            f.validate()?;
        }
        if !self.failures.is_empty() || !self.fabric.link_loss.is_empty() {
            let t = Topology::build(&self.topology, &self.fabric, self.seed)?;
            for f in &self.failures {
                t.resolve(&f.link)?;
            }
        }
        if !(self.duration_us.is_finite() && self.duration_us > 0.0 && self.duration_us <= 1e9) {
            return Err(SimError::invalid("duration_us", format!("{} is not in (0, 1e9]", self.duration_us)));
        }
        if !(self.bin_us.is_finite() && self.bin_us > 0.0) || self.duration_us / self.bin_us > MAX_BINS {
            return Err(SimError::invalid(
                "bin_us",
                format!("{} must be > 0 and give at most {MAX_BINS} bins over duration_us", self.bin_us),
            ));
        }
        Ok(())
    }
}
