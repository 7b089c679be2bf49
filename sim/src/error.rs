//! [`SimError`]: every way the simulator refuses a configuration or fails a run, each
//! naming what is wrong: the configuration field (`topology.k`, `fabric.mtu`, ...), the
//! sweep point, the scenario file, or the path of the file or directory that could not be
//! read or written. Messages are complete on their own (`Display` includes the cause), so
//! callers print them as they are.

use std::path::PathBuf;

/// A refused configuration or a failed run, with the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// A configuration value is out of range or inconsistent.
    #[error("invalid {field}: {reason}")]
    Invalid {
        /// The offending field, e.g. `fabric.mtu` or `traffic.receiver`.
        field: String,
        /// Why it is refused.
        reason: String,
    },
    /// The scenario text is not TOML.
    #[error("scenario is not valid TOML: {0}")]
    Toml(String),
    /// The scenario does not match the schema (unknown key, wrong type); the message names
    /// the key.
    #[error("invalid scenario: {0}")]
    Schema(String),
    /// The `[mrnic]` table is refused by the model.
    #[error("invalid mrnic: {0}")]
    Mrnic(mrnic_model::config::ConfigError),
    /// One sweep point expands to an invalid run.
    #[error("sweep point {point}: {error}")]
    SweepPoint {
        /// The point's label (`loss=1% planes=4`).
        point: String,
        /// What is wrong with it.
        error: Box<SimError>,
    },
    /// An error in a scenario file.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The scenario file.
        path: PathBuf,
        /// What is wrong with it.
        error: Box<SimError>,
    },
    /// A file or directory could not be read, created or written.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// `read`, `create`, `write`, `rename`, ...
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// A scenario lists `mrnic` but the caller supplied no mrnic transport.
    #[error("scenario {scenario} lists transport \"mrnic\" but no mrnic transport was supplied to run_scenario")]
    NoMrnicTransport {
        /// The scenario's name.
        scenario: String,
    },
    /// A plot could not be drawn or written.
    #[error("plot {}: {reason}", path.display())]
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// The plotting library's reason.
        reason: String,
    },
    /// Sharding: a bad `--shard K/N`, or shards that cannot be merged.
    #[error(transparent)]
    Shard(#[from] crate::shard::ShardError),
}

impl SimError {
    /// `field`: what is wrong with it.
    pub fn invalid(field: &str, why: impl std::fmt::Display) -> SimError {
        SimError::Invalid { field: field.to_string(), reason: why.to_string() }
    }

    /// The configuration field this error is about (`fabric.mtu`, `sweep`, ...), looking
    /// through sweep-point and file context; `None` for errors that are not about a field.
    pub fn field(&self) -> Option<&str> {
        match self {
            SimError::Invalid { field, .. } => Some(field),
            SimError::Mrnic(_) => Some("mrnic"),
            SimError::SweepPoint { error, .. } | SimError::InFile { error, .. } => error.field(),
            _ => None,
        }
    }

    /// An I/O error on `path` while trying to `action` it.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, error: std::io::Error) -> SimError {
        SimError::Io { action, path: path.into(), error }
    }
}
