//! Configurations: serde (TOML) structs with named presets.
//!
//! A configuration names every size the hardware is generated with. Invalid
//! configurations are refused by [`Config::validate`] with the reason.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Connection counts the RTL is generated for (RAM depth is a power of two).
pub const SACK_CONNECTIONS: &[usize] = &[16, 64, 256, 1024, 4096];
/// Window widths the RTL is generated for (bits of the SACK bitmap).
pub const SACK_WINDOWS: &[usize] = &[32, 64, 128, 256];

/// Receiver SACK bitmap engine sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SackConfig {
    /// Number of connections (queue pairs) whose state lives in block RAM.
    pub connections: usize,
    /// Window width in PSNs: the bitmap covers `[base, base + window)`.
    pub window: usize,
}

impl Default for SackConfig {
    fn default() -> Self {
        Self { connections: 1024, window: 256 }
    }
}

impl SackConfig {
    /// log2 of the connection count: the connection id width.
    pub fn conn_bits(&self) -> usize {
        self.connections.trailing_zeros() as usize
    }
    /// log2 of the window: the slot width.
    pub fn window_bits(&self) -> usize {
        self.window.trailing_zeros() as usize
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !SACK_CONNECTIONS.contains(&self.connections) {
            return Err(ConfigError(format!(
                "sack.connections = {} is not supported: choose one of {:?} (a power of two: it is the block RAM depth)",
                self.connections, SACK_CONNECTIONS
            )));
        }
        if !SACK_WINDOWS.contains(&self.window) {
            return Err(ConfigError(format!(
                "sack.window = {} is not supported: choose one of {:?} (a power of two, at most 256 bits)",
                self.window, SACK_WINDOWS
            )));
        }
        Ok(())
    }
}

/// The whole configuration of one generated design.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The configuration's name (a preset name, or the file's own).
    pub name: String,
    #[serde(default)]
    pub sack: SackConfig,
    /// The transport's parameters (`docs/protocol.md` §5); `transport.window` is the
    /// SACK window and must equal `sack.window`.
    #[serde(default)]
    pub transport: crate::transport::TransportConfig,
}

/// A refused configuration, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}", self.0)
    }
}
impl std::error::Error for ConfigError {}

/// Names of the built-in presets.
pub const PRESETS: &[&str] = &["default", "ice40", "small"];

impl Config {
    /// A named preset:
    /// - `default`: 1024 connections, 256-bit window (ECP5 and larger);
    /// - `ice40`: 256 connections, 64-bit window (fits an iCE40 UP5K);
    /// - `small`: 16 connections, 256-bit window (fast tests: many same-connection hazards).
    pub fn preset(name: &str) -> Result<Config, ConfigError> {
        let sack = match name {
            "default" => SackConfig { connections: 1024, window: 256 },
            "ice40" => SackConfig { connections: 256, window: 64 },
            "small" => SackConfig { connections: 16, window: 256 },
            _ => {
                return Err(ConfigError(format!(
                    "no preset named '{name}': the presets are {PRESETS:?}"
                )))
            }
        };
        let transport = crate::transport::TransportConfig {
            window: sack.window as u32,
            cwnd_max: sack.window as u32,
            ..Default::default()
        };
        Ok(Config { name: name.to_string(), sack, transport })
    }

    /// Parses a TOML configuration and validates it.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| ConfigError(format!("TOML: {e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serializes")
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        self.sack.validate()?;
        self.transport.validate()?;
        if self.transport.window as usize != self.sack.window {
            return Err(ConfigError(format!(
                "transport.window = {} differs from sack.window = {}: they are the same window (the SACK bitmap width)",
                self.transport.window, self.sack.window
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_round_trips_through_toml() {
        for p in PRESETS {
            let c = Config::preset(p).unwrap();
            c.validate().unwrap();
            assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
        }
    }

    #[test]
    fn invalid_configs_are_refused_with_the_reason() {
        let e = Config::from_toml("name='x'\n[sack]\nconnections=1000\nwindow=256\n").unwrap_err();
        assert!(e.0.contains("connections = 1000"), "{e}");
        let e = Config::from_toml("name='x'\n[sack]\nconnections=1024\nwindow=512\n").unwrap_err();
        assert!(e.0.contains("window = 512"), "{e}");
        let e = Config::from_toml("name='x'\n[sack]\nconnections=1024\nwindow=256\nbogus=1\n").unwrap_err();
        assert!(e.0.contains("bogus"), "{e}");
        assert!(Config::preset("nope").unwrap_err().0.contains("presets"));
        let e = Config::from_toml("name='x'\n[sack]\nconnections=1024\nwindow=64\n").unwrap_err();
        assert!(e.0.contains("differs from sack.window"), "{e}");
        let e = Config::from_toml("name='x'\n[transport]\npaths=20\n").unwrap_err();
        assert!(e.0.contains("paths = 20"), "{e}");
    }
}
