//! Configurations: serde (TOML) structs with named presets.
//!
//! A configuration names every size the hardware is generated with. Invalid
//! configurations are refused by [`Config::validate`] with the reason.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Connection counts the RTL is generated for (every per-connection table's depth: a
/// power of two). The one connection-count key is the top-level `connections`.
pub const CONNECTIONS: &[usize] = &[16, 64, 256, 1024, 4096];
/// Default connection count (the `default` preset's).
pub const DEFAULT_CONNECTIONS: usize = 1024;
/// Window widths the RTL is generated for (bits of the SACK bitmap).
pub const SACK_WINDOWS: &[usize] = &[32, 64, 128, 256];

/// Receiver SACK bitmap engine sizes. (Its depth, the connection count, is the
/// configuration's top-level [`Config::connections`], shared by every block.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SackConfig {
    /// Window width in PSNs: the bitmap covers `[base, base + window)`; one of
    /// [`SACK_WINDOWS`] (32, 64, 128, 256).
    pub window: usize,
}

impl Default for SackConfig {
    fn default() -> Self {
        Self { window: 256 }
    }
}

impl SackConfig {
    /// log2 of the window: the slot width.
    pub fn window_bits(&self) -> usize {
        self.window.trailing_zeros() as usize
    }
    /// `window` one of [`SACK_WINDOWS`].
    pub fn validate(&self) -> Result<(), ConfigError> {
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
    /// Connections (queue pairs) the NIC holds state for, in every block (SACK engine,
    /// path table, retransmit queue, message tracking, tables): one of [`CONNECTIONS`]
    /// (16, 64, 256, 1024, 4096; a power of two, the depth of every per-connection RAM).
    /// TOML: top-level `connections = 256`.
    #[serde(default = "default_connections")]
    pub connections: usize,
    #[serde(default)]
    pub sack: SackConfig,
    /// The transport's parameters (`docs/protocol.md` §5); `transport.window` is the
    /// SACK window and must equal `sack.window`.
    #[serde(default)]
    pub transport: crate::transport::TransportConfig,
}

fn default_connections() -> usize {
    DEFAULT_CONNECTIONS
}

/// `connections` one of [`CONNECTIONS`], refused naming the field `connections`.
pub fn validate_connections(connections: usize) -> Result<(), ConfigError> {
    if !CONNECTIONS.contains(&connections) {
        return Err(ConfigError::out_of_range(
            "connections",
            connections,
            format!("not supported: choose one of {CONNECTIONS:?} (a power of two: it is the depth of every per-connection block RAM)"),
        ));
    }
    Ok(())
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
pub const PRESETS: &[&str] = &["default", "core", "tiny", "ice40", "small"];

/// One line per preset: what it is for (`mrnic presets`, README, `docs/budget.md`).
pub const PRESET_PURPOSE: &[(&str, &str)] = &[
    ("default", "1024 connections x 8 paths, W = 256: the reference size (larger than an ECP5-85F holds, see docs/budget.md)"),
    ("core", "256 connections x 8 paths, W = 256: the target for the whole NIC on an ECP5-85F (does not fit yet at the PLAN9 state widths, see docs/budget.md)"),
    ("tiny", "16 connections x 4 paths, W = 64, 33 ns cycle: the whole NIC on an iCE40 UP5K"),
    ("ice40", "256 connections, W = 64: the SACK engine alone on an iCE40 UP5K (synthesis benchmark)"),
    ("small", "16 connections, W = 256: fast tests with many same-connection hazards"),
];

impl Config {
    /// A named preset ([`PRESETS`], [`PRESET_PURPOSE`]):
    /// - `default`: 1024 connections, 8 paths, 256-bit window (the reference size);
    /// - `core`: 256 connections, 8 paths, 256-bit window, 8 messages in flight, 8 posted
    ///   receive buffers per connection, 256 memory regions: the target for the whole NIC on
    ///   an ECP5-85F (`docs/budget.md`: it does not fit yet at the PLAN9 state widths);
    /// - `tiny`: 16 connections, 4 paths, 64-bit window, 8 messages, 8 receive buffers, 64
    ///   memory regions, a 33 ns cycle (30 MHz): the whole NIC fits an iCE40 UP5K;
    /// - `ice40`: 256 connections, 64-bit window (the SACK engine alone on an iCE40 UP5K);
    /// - `small`: 16 connections, 256-bit window (fast tests: many same-connection hazards).
    pub fn preset(name: &str) -> Result<Config, ConfigError> {
        // (connections, window, paths, msg_window, rq_depth, mr_entries, cycle_ns)
        type Row = (usize, usize, u8, u32, u32, u32, u8);
        let (connections, window, paths, msg_window, rq_depth, mr_entries, cycle_ns): Row = match name {
            "default" => (1024, 256, 8, 32, 64, 1024, 10),
            "core" => (256, 256, 8, 8, 8, 256, 10),
            "tiny" => (16, 64, 4, 8, 8, 64, 33),
            "ice40" => (256, 64, 8, 32, 64, 1024, 10),
            "small" => (16, 256, 8, 32, 64, 1024, 10),
            _ => return Err(ConfigError::out_of_range("preset", format!("{name:?}"), format!("no such preset: the presets are {PRESETS:?}"))),
        };
        let transport = crate::transport::TransportConfig {
            paths,
            window: window as u32,
            cwnd_max: window as u32,
            msg_window,
            rq_depth,
            mr_entries,
            cycle_ns,
            ..Default::default()
        };
        Ok(Config { name: name.to_string(), connections, sack: SackConfig { window }, transport })
    }

    /// log2 of the connection count: the connection id width.
    pub fn conn_bits(&self) -> usize {
        self.connections.trailing_zeros() as usize
    }

    /// The sizes the generated RTL depends on: `connections` ([`validate_connections`])
    /// and the SACK window ([`SackConfig::validate`]).
    pub fn validate_sizes(&self) -> Result<(), ConfigError> {
        validate_connections(self.connections)?;
        self.sack.validate()
    }

    /// Parses a TOML configuration and validates it.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let reason = e.message().to_string();
            // serde names an unknown or missing key in backquotes.
            let field = reason.split('`').nth(1).unwrap_or("toml").to_string();
            let mut reason = e.to_string();
            if field == "connections" && reason.contains("unknown field") {
                reason.push_str("\n(the connection count is the top-level key `connections = N`, shared by every block; `[sack] connections` is gone)");
            }
            ConfigError::Toml { field, reason }
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
        self.validate_sizes()?;
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
            assert!(c.to_toml().contains(&format!("\nconnections = {}\n", c.connections)), "{}", c.to_toml());
        }
        let purposes: Vec<&str> = PRESET_PURPOSE.iter().map(|(p, _)| *p).collect();
        assert_eq!(purposes, PRESETS, "every preset has its one-line purpose, in order");
        let sizes = |p: &str| {
            let c = Config::preset(p).unwrap();
            (c.connections, c.transport.paths, c.sack.window)
        };
        assert_eq!(sizes("core"), (256, 8, 256));
        assert_eq!(sizes("tiny"), (16, 4, 64));
        assert_eq!(sizes("default"), (1024, 8, 256));
        assert_eq!(Config::preset("tiny").unwrap().transport.cycle_ns, 33);
        assert_eq!(Config::preset("default").unwrap().transport, crate::transport::TransportConfig::default());
    }

    #[test]
    fn connections_is_one_top_level_key_and_a_missing_one_is_the_default() {
        let c = Config::from_toml("name = 'x'\nconnections = 256\n").unwrap();
        assert_eq!((c.connections, c.conn_bits()), (256, 8));
        assert_eq!(Config::from_toml("name = 'x'\n").unwrap().connections, DEFAULT_CONNECTIONS);
    }

    #[test]
    fn invalid_configs_are_refused_naming_the_field_and_the_reason() {
        let cases = [
            ("name='x'\nconnections=1000\n[sack]\nwindow=256\n", "connections", "invalid configuration: connections = 1000: not supported"),
            ("name='x'\nconnections=1024\n[sack]\nwindow=512\n", "sack.window", "sack.window = 512"),
            ("name='x'\nconnections=1024\n[sack]\nwindow=256\nbogus=1\n", "bogus", "bogus"),
            ("name='x'\nconnections=1024\n[sack]\nwindow=64\n", "transport.window", "differs from sack.window"),
            ("name='x'\n[sack]\nconnections=1024\nwindow=256\n", "connections", "top-level key `connections"),
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
