//! The FPGA crate's errors: one enum, each variant naming what was refused (the block,
//! board, file, tool or option) and why.

use mrnic_model::ConfigError;
use std::path::PathBuf;

/// How to install the flow's tools, quoted by every "tool missing" error.
pub const SETUP_HINT: &str = "run `bash scripts/setup.sh` (it installs the pinned YoWASP tools \
                              into ~/.cache/mrnic-tools), then `source ~/.cache/mrnic-tools/env.sh`";

#[derive(Debug, thiserror::Error)]
pub enum FpgaError {
    #[error("unknown block '{name}': the blocks with an FPGA harness are {known}")]
    UnknownBlock { name: String, known: String },
    /// `mrnic_hdl::tops::block` could not generate the block (or the port-list harness
    /// cannot wrap it).
    #[error("cannot generate block '{block}' for its harness: {reason}")]
    Generate { block: String, reason: String },
    #[error("unknown board '{name}': the boards are {known}")]
    UnknownBoard { name: String, known: String },
    /// A preset name, or a configuration the model refuses (the message names the field).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A `--config` file that cannot be read.
    #[error("cannot read the configuration {path}: {source}")]
    ConfigRead { path: PathBuf, source: std::io::Error },
    /// A `--config` file the model refuses (bad TOML, or a field out of range).
    #[error("{path}: {source}")]
    ConfigFile { path: PathBuf, source: ConfigError },
    #[error("--freq {freq} MHz is not a sensible target: choose 0 < f < 1000")]
    BadFreq { freq: f64 },
    #[error("--seeds {seeds}: the number of placement seeds must be 1 to 100")]
    BadSeeds { seeds: u32 },
    #[error("board '{board}' has {leds} LEDs: the board top supports 7 or 8")]
    BoardLeds { board: String, leds: usize },
    #[error("rust-hdl check of the {board} top failed: {detail}")]
    HdlCheck { board: String, detail: String },
    #[error("`{tool}` not found on PATH nor in ~/.cache/mrnic-tools/venv/bin: {SETUP_HINT}")]
    ToolMissing { tool: String },
    #[error("cannot start {tool}: {source} ({SETUP_HINT})")]
    ToolStart { tool: String, source: std::io::Error },
    #[error("{tool} failed ({status}); full log: {log}\n--- last lines ---\n{tail}")]
    ToolFailed { tool: String, status: String, log: PathBuf, tail: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A tool's output that the flow cannot use (no Fmax in the report, empty bitstream, ...).
    #[error("{path}: {reason}")]
    Output { path: PathBuf, reason: String },
}

impl FpgaError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> FpgaError {
        let path = path.into();
        move |source| FpgaError::Io { path, source }
    }
}
