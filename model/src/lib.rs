//! mrnic golden model: pure Rust, the single source of truth for behaviour.
//!
//! Block models are plain functions over plain state ([`sack::SackState`]) plus
//! a thin cycle shell ([`sack::SackShell`]) with the RTL's latency and handshakes.

pub mod budget;
pub mod config;
pub mod sack;
pub mod time;
pub mod transport;
pub mod wire;

pub use config::{Config, ConfigError, SackConfig};
