//! Verilator bridge: Verilog → Verilator C++ → shared library → Rust.
//!
//! One source of truth: the port list ([`PortInfo`], from `mrnic_hdl::ports::top_ports` or a
//! manifest). From it we generate a small `extern "C"` C++ shim that hands Rust a pointer to
//! every port's storage, so a simulation step is one FFI call (`eval`) and port reads/writes are
//! plain memory accesses. See `docs/verilator-bridge.md` for the conventions (clock/sample, trace
//! times, cache, top detection). The parts, one concern each:
//!
//! | module | concern |
//! |---|---|
//! | [`tool`] | finding Verilator (PATH, the pinned venv) |
//! | [`top`] | the top module of a Verilog source (the one nobody instantiates) |
//! | [`shim`] | the generated C++ shim, Verilator's C++ names, the port-list check against `Vtop.h` |
//! | [`cache`] | cache key, directories, per-key locking, shared runtime objects |
//! | [`build`] | [`BuildOpts`], running verilator and the C++ compile, [`Model::build`] |
//! | [`runtime`] | [`Model`], [`Sim`], [`Port`], [`SimOpts`]: eval, wide ports, traces, seeds |
//! | [`coverage`] | merging coverage `.dat` files into an annotated report with percentages |
//!
//! ```ignore
//! let ports = top_ports(&uut);
//! let model = Model::build("acc", &generate_verilog(&uut), &ports, &BuildOpts::default())?;
//! let mut sim = model.sim()?;
//! let (clk, en, q) = (sim.port("clock")?, sim.port("en")?, sim.port("q")?);
//! sim.set(&en, 1);
//! sim.tick(&clk);          // inputs set before tick are sampled at its rising edge
//! let v = sim.get(&q);     // outputs read after tick show the state after that edge
//! ```

pub mod build;
pub mod cache;
pub mod coverage;
pub mod runtime;
pub mod shim;
pub mod tool;
pub mod top;

pub use build::{verilator_flags, BuildOpts, VERILATOR_FLAGS};
pub use cache::{default_cache_root, target_dir, waves_dir};
pub use mrnic_hdl::ports::{PortDir, PortInfo};
pub use coverage::{CoverageReport, Uncovered, UncoveredKind};
pub use runtime::{write_note, Model, Port, Sim, SimOpts};
pub use shim::{generate_shim, verilator_cpp_name, Storage};
pub use tool::{verilator, Verilator};
pub use top::{find_top, verilog_modules};

/// Bumped whenever the shim's C ABI or the build recipe changes (part of the cache key).
pub(crate) const BRIDGE_ABI: u32 = 3;
/// Name of the shared library inside a cache entry.
pub(crate) const SO_NAME: &str = "libvltop.so";

/// Everything that can go wrong in the bridge. `Display` gives a complete, actionable message.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// Verilator (or another tool) is not installed where we look; the message says where we
    /// looked and how to install it.
    #[error("{0}")]
    ToolNotFound(String),
    /// A build step failed; `output` holds the interesting part of the tool's output.
    #[error("verilator bridge: {step} failed\n  command: {command}\n--- output ---\n{output}")]
    Build {
        step: String,
        command: String,
        output: String,
    },
    /// The port list does not match the Verilog, or is malformed.
    #[error("verilator bridge: port list mismatch: {0}")]
    Manifest(String),
    /// `Sim::port` was asked for a name that is not a top-level port.
    #[error("verilator bridge: no top-level port named {name:?}; ports are: {}", available.join(", "))]
    NoSuchPort {
        name: String,
        available: Vec<String>,
    },
    /// The top module could not be determined (none, several candidates, or not defined).
    #[error("verilator bridge: top module: {0}")]
    Top(String),
    /// The shared library could not be loaded or lacks a symbol.
    #[error("verilator bridge: cannot load model: {0}")]
    Load(String),
    /// Trace file problem.
    #[error("verilator bridge: trace: {0}")]
    Trace(String),
    /// A simulation option is invalid (`field` names it).
    #[error("verilator bridge: invalid simulation option {field}: {reason}")]
    SimOption { field: &'static str, reason: String },
    /// Coverage was asked of a model without it, or a coverage file is missing or malformed.
    #[error("verilator bridge: coverage: {0}")]
    Coverage(String),
    /// A file or directory operation failed; `what` names the operation and the path.
    #[error("verilator bridge: {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

/// `map_err` helper: an I/O error with the operation and path it concerns.
pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BridgeError {
    let what = what.into();
    move |source| BridgeError::Io { what, source }
}
