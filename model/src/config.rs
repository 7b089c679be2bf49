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
    /// Number of connections (queue pairs) whose state lives in block RAM: one of
    /// [`SACK_CONNECTIONS`] (16, 64, 256, 1024, 4096).
    pub connections: usize,
    /// Window width in PSNs: the bitmap covers `[base, base + window)`; one of
    /// [`SACK_WINDOWS`] (32, 64, 128, 256).
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
    /// `connections` one of [`SACK_CONNECTIONS`], `window` one of [`SACK_WINDOWS`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !SACK_CONNECTIONS.contains(&self.connections) {
            return Err(ConfigError::out_of_range(
                "sack.connections",
                self.connections,
                format!("not supported: choose one of {SACK_CONNECTIONS:?} (a power of two: it is the block RAM depth)"),
            ));
        }
        if !SACK_WINDOWS.contains(&self.window) {
            return Err(ConfigError::out_of_range(
                "sack.window",
                self.window,
                format!("not supported: choose one of {SACK_WINDOWS:?} (a power of two, at most 256 bits)"),
            ));
        }
        Ok(())
    }
}

/// The whole configuration of one generated design.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The configuration's name (a preset name, or the file's own): 1..=64 characters
    /// of `[A-Za-z0-9_-]` ([`validate_name`]).
    pub name: String,
    #[serde(default)]
    pub sack: SackConfig,
    /// The transport's parameters (`docs/protocol.md` §5); `transport.window` is the
    /// SACK window and must equal `sack.window`.
    #[serde(default)]
    pub transport: crate::transport::TransportConfig,
}

/// A refused configuration: the offending field (its TOML path, e.g. `sack.window`)
/// and the reason. `Display` reads `invalid configuration: <field> = <value>: <reason>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A value outside the field's documented range.
    #[error("invalid configuration: {field} = {value}: {reason}")]
    OutOfRange { field: String, value: String, reason: String },
    /// A field that contradicts another one, or a limit of whatever builds from it
    /// (e.g. an RTL generic the hardware does not support).
    #[error("invalid configuration: {field}: {reason}")]
    Invalid { field: String, reason: String },
    /// The TOML text does not parse into a configuration (`field`: the key when the
    /// parser names one, else `toml`).
    #[error("invalid configuration: TOML: {reason}")]
    Toml { field: String, reason: String },
}

impl ConfigError {
    /// A value of `field` outside its range.
    pub fn out_of_range(field: impl Into<String>, value: impl fmt::Display, reason: impl Into<String>) -> Self {
        ConfigError::OutOfRange { field: field.into(), value: value.to_string(), reason: reason.into() }
    }
    /// `field` is refused for `reason` (the constructor for call sites outside the
    /// model that used to build `ConfigError(String)`).
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigError::Invalid { field: field.into(), reason: reason.into() }
    }
    /// The offending field.
    pub fn field(&self) -> &str {
        match self {
            ConfigError::OutOfRange { field, .. } | ConfigError::Invalid { field, .. } | ConfigError::Toml { field, .. } => field,
        }
    }
    /// The reason, without the field.
    pub fn reason(&self) -> &str {
        match self {
            ConfigError::OutOfRange { reason, .. } | ConfigError::Invalid { reason, .. } | ConfigError::Toml { reason, .. } => reason,
        }
    }
}

/// Longest configuration name (it names output files and is written into generated
/// Verilog headers).
pub const MAX_NAME_LEN: usize = 64;

/// A configuration name: 1..=64 characters of `[A-Za-z0-9_-]` (the same charset as a
/// simulator scenario name). Anything else could break out of the Verilog comment
/// the name is written into, or out of a file name.
pub fn validate_name(name: &str) -> Result<(), ConfigError> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(ConfigError::out_of_range("name", format!("{name:?}"), format!("must be 1..={MAX_NAME_LEN} characters long")));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
        return Err(ConfigError::out_of_range("name", format!("{name:?}"), format!("{c:?} is not allowed: use only [A-Za-z0-9_-]")));
    }
    Ok(())
}

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
            _ => return Err(ConfigError::out_of_range("preset", format!("{name:?}"), format!("no such preset: the presets are {PRESETS:?}"))),
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
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let reason = e.message().to_string();
            // serde names an unknown or missing key in backquotes.
            let field = reason.split('`').nth(1).unwrap_or("toml").to_string();
            ConfigError::Toml { field, reason: e.to_string() }
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serializes")
    }

    /// The name ([`validate_name`]), every field's range, and that the two windows agree.
    pub fn validate(&self) -> Result<(), ConfigError> {
        validate_name(&self.name)?;
        self.sack.validate()?;
        self.transport.validate()?;
        if self.transport.window as usize != self.sack.window {
            return Err(ConfigError::out_of_range(
                "transport.window",
                self.transport.window,
                format!("differs from sack.window = {}: they are the same window (the SACK bitmap width)", self.sack.window),
            ));
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
    fn invalid_configs_are_refused_naming_the_field_and_the_reason() {
        let cases = [
            ("name='x'\n[sack]\nconnections=1000\nwindow=256\n", "sack.connections", "invalid configuration: sack.connections = 1000: not supported"),
            ("name='x'\n[sack]\nconnections=1024\nwindow=512\n", "sack.window", "sack.window = 512"),
            ("name='x'\n[sack]\nconnections=1024\nwindow=256\nbogus=1\n", "bogus", "bogus"),
            ("name='x'\n[sack]\nconnections=1024\nwindow=64\n", "transport.window", "differs from sack.window"),
            ("name='x'\n[transport]\npaths=20\n", "transport.paths", "transport.paths = 20: must be 1..=16"),
            ("name='x\\nmodule evil; endmodule'\n", "name", "is not allowed"),
        ];
        for (text, field, msg) in cases {
            let e = Config::from_toml(text).unwrap_err();
            assert_eq!(e.field(), field, "{e}");
            assert!(e.to_string().contains(msg), "{e} lacks {msg:?}");
        }
        let e = Config::preset("nope").unwrap_err();
        assert_eq!(e.field(), "preset");
        assert!(e.to_string().contains("presets"), "{e}");
        let e = ConfigError::invalid("SackEngine.W", "must be one of [32, 64, 128, 256]");
        assert_eq!(e.to_string(), "invalid configuration: SackEngine.W: must be one of [32, 64, 128, 256]");
    }
}
