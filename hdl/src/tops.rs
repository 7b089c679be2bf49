//! The generated blocks of a configuration: Verilog text, port list, streams and parameters.
//!
//! `mrnic gen` writes these files; the Verilator differential tests, cocotb and the
//! synthesis flow all consume this same output, so what is tested is what is shipped.
//! Block `<b>` becomes module `mrnic_<b>` (submodules `mrnic_<b>$<field>`) in file
//! `mrnic_<b>.v`.

use crate::ports::{top_ports, PortDir, PortInfo};
use crate::verilog::VerilogError;
use mrnic_model::config::{Config, ConfigError};
use rust_hdl::prelude::Block;
use std::collections::BTreeMap;

/// The generator's version, written into every file header.
pub const GENERATOR: &str = concat!("mrnic-gen ", env!("CARGO_PKG_VERSION"));

/// The license of the generated Verilog (the workspace's), as an SPDX identifier.
pub const SPDX: &str = "Apache-2.0";

/// Every block a configuration generates, by name (`mrnic gen` without `--block`).
pub const BLOCKS: &[&str] = &["sack", "parser", "rtx", "place_chk", "path"];

/// Every block [`block`] generates by name: [`BLOCKS`] and the receive-path blocks that are
/// generated one at a time (`mrnic gen --block`, `mrnic vectors`, `mrnic synth`).
pub const NAMED_BLOCKS: &[&str] = &["sack", "parser", "rtx", "place_chk", "path", "placement", "fbuf", "realign", "ackgen", "conn_chk", "ackjoin", "cmpl"];

/// Longest configuration name written into a header (longer ones are cut, marked `...`).
pub const MAX_HEADER_NAME: usize = 64;

/// Why a block could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// `block(cfg, name)` was asked for a block that does not exist.
    #[error("unknown block {name:?}: the blocks are {}", NAMED_BLOCKS.join(", "))]
    UnknownBlock { name: String },
    /// The configuration was refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// rust-hdl could not generate the Verilog.
    #[error(transparent)]
    Verilog(#[from] VerilogError),
}

/// A valid/ready stream of a block's interface: which ports carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamInfo {
    /// Stream name (the ports' prefix: `s`, `m`).
    pub name: String,
    /// `In`: the block receives it (`valid` and payload are inputs, `ready` an output);
    /// `Out`: the block sends it.
    pub dir: PortDir,
    pub valid: String,
    pub ready: String,
    /// The payload ports, meaningful only in a cycle where `valid` is 1.
    pub payload: Vec<String>,
    /// A timer stream: its events come from timers, not from input transfers.
    pub timer: Option<TimerInfo>,
    /// Input stream only: declared globals (inputs outside every stream) that each transfer
    /// samples as part of itself, such as the NIC time `now` that becomes the op's time. A
    /// transaction-level comparison hands the model these values as they were at the
    /// device's transfer, not at the (later) cycle the model takes it.
    pub sampled: Vec<String>,
}

/// What a timer stream promises: an event is offered at most `lateness` cycles after the
/// moment it became due (with its ready high), never before; `counter` (a `stat_*` port)
/// counts its transfers since reset. A transaction-level comparison matches such events by
/// payload within a tolerance instead of in order (`verif/src/kit/txn.rs`). `sets`: payload
/// ports that carry a set of timers, one bit each (the path table's masks of expired
/// deadlines): such an event is as many events as bits set, each matched on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerInfo {
    pub lateness: u32,
    pub counter: Option<String>,
    pub sets: Vec<String>,
}

/// One generated block.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The block's name (`sack`).
    pub name: String,
    /// Verilog module name of its top (`mrnic_sack`).
    pub module: String,
    /// File name the Verilog is written to (`mrnic_sack.v`).
    pub file: String,
    /// The Verilog, with a header naming the license, the configuration and the generator.
    pub verilog: String,
    pub ports: Vec<PortInfo>,
    pub params: BTreeMap<String, u64>,
    /// Cycles from an input transfer to the output.
    pub latency: u32,
    /// The valid/ready streams; every other port is a global or a `stat_*` counter.
    pub streams: Vec<StreamInfo>,
    /// The ports outside every stream that are not `stat_*` counters: `clock`, `rst`, and
    /// a block's own (the rtx's NIC time `now`).
    pub globals: Vec<String>,
}

impl Generated {
    /// Declares more global ports (outside every stream, not counters) than `clock` and `rst`.
    fn with_globals(mut self, more: &[&str]) -> Generated {
        self.globals.extend(more.iter().map(|s| s.to_string()));
        self
    }
}

/// `name` reduced to `[A-Za-z0-9_.-]` (anything else becomes `_`) and at most
/// [`MAX_HEADER_NAME`] characters (a longer name is cut and ends in `...`): safe inside a
/// Verilog comment and a quoted string, whatever the configuration file said.
pub fn header_safe(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' })
        .collect();
    if clean.chars().count() > MAX_HEADER_NAME {
        let mut cut: String = clean.chars().take(MAX_HEADER_NAME - 3).collect();
        cut.push_str("...");
        cut
    } else {
        clean
    }
}

fn header(block: &str, module: &str, cfg: &Config, params: &BTreeMap<String, u64>) -> String {
    let mut h = format!(
        "// SPDX-License-Identifier: {SPDX}\n// {module}: generated by {GENERATOR} from rust-hdl; do not edit.\n// configuration \"{}\":",
        header_safe(&cfg.name)
    );
    for (k, v) in params {
        h.push_str(&format!(" {k}={v}"));
    }
    h.push_str(&format!(
        "\n// block `{block}`, module `{module}`; ports, streams and parameters in the JSON manifest beside this file.\n"
    ));
    h
}

/// A block's [`Generated`]: its file is `<module>.v`, and its Verilog is `verilog` under the
/// header naming the block, the configuration and `params`.
#[allow(clippy::too_many_arguments)]
fn assemble(
    name: &str,
    module: &str,
    cfg: &Config,
    verilog: String,
    ports: Vec<PortInfo>,
    params: BTreeMap<String, u64>,
    latency: u32,
    streams: Vec<StreamInfo>,
) -> Generated {
    Generated {
        name: name.into(),
        module: module.into(),
        file: format!("{module}.v"),
        verilog: format!("{}{}", header(name, module, cfg, &params), verilog),
        ports,
        params,
        latency,
        streams,
        globals: vec!["clock".into(), "rst".into()],
    }
}

fn stream(name: &str, dir: PortDir, payload: &[&str]) -> StreamInfo {
    StreamInfo {
        name: name.into(),
        dir,
        valid: format!("{name}_valid"),
        ready: format!("{name}_ready"),
        payload: payload.iter().map(|p| format!("{name}_{p}")).collect(),
        timer: None,
        sampled: vec![],
    }
}

/// The SACK engine (block `sack`) of `cfg`.
fn sack(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_sack";
    let (verilog, ports) = crate::with_sack_engine!(cfg, E => {
        let mut uut = E::try_new()?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("connections".to_string(), cfg.connections as u64),
        ("conn_bits".to_string(), cfg.conn_bits() as u64),
        ("window".to_string(), cfg.sack.window as u64),
        ("psn_bits".to_string(), 24),
    ]);
    Ok(assemble("sack", module, cfg, verilog, ports, params, mrnic_model::sack::SACK_LATENCY as u32, vec![
            stream("s", PortDir::In, &["conn", "psn", "clear", "commit"]),
            stream("m", PortDir::Out, &["conn", "psn", "class", "base", "bitmap"]),
        ]))
}

/// The receive frame parser (block `parser`): 64-bit AXI4-Stream, no parameters (the
/// configuration is validated but does not change it).
fn parser(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_parser";
    let mut uut = crate::parser::Parser::new();
    uut.connect_all();
    let verilog = crate::verilog::generate(&uut, module)?;
    let ports = top_ports(&uut);
    let params = BTreeMap::from([("data_bits".to_string(), 64), ("max_frame".to_string(), 9216)]);
    let hdr: Vec<String> = ports.iter().filter(|p| p.name.starts_with("m_hdr_") && p.name != "m_hdr_valid" && p.name != "m_hdr_ready").map(|p| p.name.clone()).collect();
    Ok(assemble("parser", module, cfg, verilog, ports, params, crate::parser::LATENCY as u32, vec![
            StreamInfo {
                name: "s_axis".into(),
                dir: PortDir::In,
                valid: "s_axis_tvalid".into(),
                ready: "s_axis_tready".into(),
                payload: ["s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "s_axis_tuser"].iter().map(|s| s.to_string()).collect(),
                timer: None,
                sampled: vec![],
            },
            StreamInfo { name: "m_hdr".into(), dir: PortDir::Out, valid: "m_hdr_valid".into(), ready: "m_hdr_ready".into(), payload: hdr, timer: None, sampled: vec![] },
            stream("m_vrd", PortDir::Out, &["keep"]),
        ]))
}

/// The retransmit queue (block `rtx`) of `cfg`.
fn rtx(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_rtx";
    let t = &cfg.transport;
    let k = crate::rtx::RtxConsts { reorder_threshold: t.reorder_threshold, head_on: t.head_rto_pct != 0 };
    let (verilog, ports) = crate::with_retx_queue!(cfg, Q => {
        let mut uut = Q::try_new(k)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("connections".to_string(), cfg.connections as u64),
        ("conn_bits".to_string(), cfg.conn_bits() as u64),
        ("window".to_string(), u64::from(t.window)),
        ("paths".to_string(), u64::from(t.paths)),
        ("records".to_string(), u64::from(t.tx_records())),
        ("reorder_threshold".to_string(), u64::from(t.reorder_threshold)),
        ("head_on".to_string(), u64::from(t.head_rto_pct != 0)),
    ]);
    Ok(assemble("rtx", module, cfg, verilog, ports, params, mrnic_model::transport::rtx_shell::RTX_LATENCY as u32, vec![
            // `now` is the op's time: sampled with the transfer.
            StreamInfo { sampled: vec!["now".into()], ..stream("s", PortDir::In, &["op", "conn", "psn", "new", "path", "ppsn", "sack", "held", "hw_valid", "hw", "nd", "ldp_valid", "ldp"]) },
            stream("m", PortDir::Out, &["op", "conn", "ok", "psn", "psn2", "path", "k", "k2", "psn3", "psn4", "n", "l", "room", "free", "retx"]),
            // The head timer: due at its deadline, on m_tmo within C + 3 cycles
            // (mrnic_model::transport::rtx_shell, "Head timer").
            StreamInfo {
                timer: Some(TimerInfo { lateness: cfg.connections as u32 + 3, counter: Some("stat_tmo".into()), sets: vec![] }),
                ..stream("m_tmo", PortDir::Out, &["conn"])
            },
        ])
    .with_globals(&["now"]))
}

/// The path table (block `path`) of `cfg`.
fn path(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_path";
    let t = &cfg.transport;
    let (verilog, ports) = crate::with_path_table!(cfg, T => {
        let mut uut = T::try_new(t)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("connections".to_string(), cfg.connections as u64),
        ("conn_bits".to_string(), cfg.conn_bits() as u64),
        ("paths".to_string(), u64::from(t.paths)),
    ]);
    Ok(assemble("path", module, cfg, verilog, ports, params, mrnic_model::transport::path_shell::PATH_LATENCY as u32, vec![
            // `now` is the op's time: sampled with the transfer.
            StreamInfo {
                sampled: vec!["now".into()],
                ..stream("s", PortDir::In, &[
                    "op", "conn", "path", "n", "nl", "rtt_valid", "rtt", "ce", "pkts", "cum", "next", "ppsn", "first", "last", "avoid_valid", "avoid", "plane", "seq", "port", "seed",
                ])
            },
            stream("m", PortDir::Out, &["op", "conn", "path", "kind", "ppsn", "port", "seq", "flag", "tmo_hit", "hw_valid", "hw_on", "hw_wait"]),
            // The path deadlines: due at their deadline, on m_tmo within C + 3 cycles
            // (mrnic_model::transport::path_shell, "Timers").
            StreamInfo {
                // One timer per (path, kind): the masks are sets of expired deadlines.
                timer: Some(TimerInfo { lateness: cfg.connections as u32 + 3, counter: Some("stat_tmo".into()), sets: vec!["m_tmo_rto".into(), "m_tmo_probe".into()] }),
                ..stream("m_tmo", PortDir::Out, &["conn", "rto", "probe"])
            },
        ])
    .with_globals(&["now"]))
}

/// Sizes of the DMA placement unit's write path (block `placement`): 64-bit AXI4 data
/// (B = 8 bytes), bursts of up to 256 beats, 64-bit addresses, 16-bit lengths.
pub fn placement_config() -> mrnic_model::transport::placement_wr::WrConfig {
    mrnic_model::transport::placement_wr::WrConfig::new(8, 256).expect("the placement unit's sizes are legal")
}

/// The placement unit's tag width: the fields of the completion unit's `Done` op that the
/// header path knows at the decision (`WrDone::tag`: connection 12, MSN 32, offset 24,
/// LAST, SEND, SSN 24, SE), so that a write's completion is that op
/// (`docs/design/receiver-rtl.md` 2.8, item 7).
pub const PLACEMENT_TAG_BITS: usize = mrnic_model::transport::cmpl::WR_TAG_BITS as usize;

/// The DMA placement unit's write path (block `placement`); the configuration is validated
/// but does not change it (its sizes are [`placement_config`]).
fn placement(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_placement";
    let w = placement_config();
    let mut uut = crate::placement::PlacementWr::<64, 65, 16, 17, 8, 64, PLACEMENT_TAG_BITS>::try_new(&w)?;
    uut.connect_all();
    let verilog = crate::verilog::generate(&uut, module)?;
    let ports = top_ports(&uut);
    let params = BTreeMap::from([
        ("beat_bytes".to_string(), u64::from(w.beat_bytes)),
        ("max_beats".to_string(), u64::from(w.max_beats)),
        ("addr_bits".to_string(), u64::from(w.addr_bits)),
        ("len_bits".to_string(), u64::from(w.len_bits)),
    ]);
    let axi = |name: &str, dir: PortDir, valid: &str, ready: &str, payload: &[&str]| StreamInfo {
        name: name.into(),
        dir,
        valid: valid.into(),
        ready: ready.into(),
        payload: payload.iter().map(|p| p.to_string()).collect(),
        timer: None,
        sampled: vec![],
    };
    Ok(assemble("placement", module, cfg, verilog, ports, params, mrnic_model::transport::placement_wr::WR_LATENCY as u32, vec![
            stream("s", PortDir::In, &["addr", "len", "base", "wlen", "tag"]),
            stream("d", PortDir::In, &["data"]),
            axi("m_axi_aw", PortDir::Out, "m_axi_awvalid", "m_axi_awready", &["m_axi_awaddr", "m_axi_awlen", "m_axi_awsize", "m_axi_awburst"]),
            axi("m_axi_w", PortDir::Out, "m_axi_wvalid", "m_axi_wready", &["m_axi_wdata", "m_axi_wstrb", "m_axi_wlast"]),
            axi("m_axi_b", PortDir::In, "m_axi_bvalid", "m_axi_bready", &["m_axi_bresp"]),
            stream("m", PortDir::Out, &["tag", "resp", "clipped", "bytes"]),
        ]))
}

/// Sizes of the receive frame buffer (block `fbuf`): 64-bit beats, 2^11 beats of RAM (16 KiB,
/// one 9216-byte frame draining while the next arrives), frames up to the parser's
/// `max_frame` (9216 bytes, 1152 beats), 16 frame descriptors.
pub fn fbuf_config() -> mrnic_model::wire::fbuf::FbufConfig {
    let max_beats = mrnic_model::wire::axis::DEFAULT_MAX_FRAME.div_ceil(8) as u32;
    mrnic_model::wire::fbuf::FbufConfig::new(8, 11, max_beats, 4).expect("the frame buffer's sizes are legal")
}

/// The receive frame buffer (block `fbuf`); the configuration is validated but does not
/// change it (its sizes are [`fbuf_config`]).
fn fbuf(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_fbuf";
    let c = fbuf_config();
    let axis = |name: &str, dir: PortDir| StreamInfo {
        name: name.into(),
        dir,
        valid: format!("{name}_tvalid"),
        ready: format!("{name}_tready"),
        payload: ["tdata", "tkeep", "tlast"].iter().map(|p| format!("{name}_{p}")).collect(),
        timer: None,
        sampled: vec![],
    };
    let (verilog, ports) = crate::with_fbuf!(&c, F => {
        let mut uut = F::try_new(&c)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("beat_bytes".to_string(), u64::from(c.beat_bytes)),
        ("depth_beats".to_string(), u64::from(c.depth())),
        ("max_beats".to_string(), u64::from(c.max_beats)),
        ("frames".to_string(), u64::from(c.frames())),
    ]);
    Ok(assemble("fbuf", module, cfg, verilog, ports, params, mrnic_model::wire::fbuf::FBUF_LATENCY as u32, vec![
        axis("s_axis", PortDir::In),
        stream("s_vrd", PortDir::In, &["keep"]),
        axis("m_axis", PortDir::Out),
    ]))
}

/// Sizes of the payload realigner (block `realign`): 64-bit beats (the frame buffer's and
/// placement's), payload offsets up to 255 bytes (the longest header stack, VLAN included,
/// is far below), payloads up to 65 535 bytes (placement's `L`).
pub fn realign_config() -> mrnic_model::wire::realign::RealignConfig {
    mrnic_model::wire::realign::RealignConfig::new(8, 8, 16).expect("the realigner's sizes are legal")
}

/// The payload realigner (block `realign`); the configuration is validated but does not
/// change it (its sizes are [`realign_config`]).
fn realign(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_realign";
    let c = realign_config();
    let axis = |name: &str, dir: PortDir| StreamInfo {
        name: name.into(),
        dir,
        valid: format!("{name}_tvalid"),
        ready: format!("{name}_tready"),
        payload: ["tdata", "tlast"].iter().map(|p| format!("{name}_{p}")).collect(),
        timer: None,
        sampled: vec![],
    };
    let (verilog, ports) = crate::with_realign!(&c, R => {
        let mut uut = R::try_new(&c)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("beat_bytes".to_string(), u64::from(c.beat_bytes)),
        ("off_bits".to_string(), u64::from(c.off_bits)),
        ("len_bits".to_string(), u64::from(c.len_bits)),
    ]);
    Ok(assemble("realign", module, cfg, verilog, ports, params, mrnic_model::wire::realign::REALIGN_LATENCY as u32, vec![
        stream("s_cmd", PortDir::In, &["off", "len", "lane"]),
        axis("s_axis", PortDir::In),
        axis("m_axis", PortDir::Out),
    ]))
}

/// The sizes of the placement check unit (block `place_chk`) of `cfg`.
pub fn place_chk_config(cfg: &Config) -> Result<mrnic_model::transport::place_chk_shell::ChkConfig, ConfigError> {
    mrnic_model::transport::place_chk_shell::ChkConfig::new(&cfg.transport, cfg.connections as u32)
}

/// Sizes of the connection checks (block `conn_chk`) of `cfg`.
pub fn conn_chk_config(cfg: &Config) -> Result<mrnic_model::transport::conn_chk_shell::ConnChkConfig, ConfigError> {
    mrnic_model::transport::conn_chk_shell::ConnChkConfig::new(&cfg.transport, cfg.connections as u32)
}

/// The connection checks (block `conn_chk`: destination QP -> connection, peer, P_Key,
/// path id) of `cfg`.
fn conn_chk(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_conn_chk";
    let c = conn_chk_config(cfg)?;
    let (verilog, ports) = crate::with_conn_chk!(&c, Q => {
        let mut uut = Q::try_new(&c)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([("connections".to_string(), u64::from(c.connections)), ("paths".to_string(), u64::from(c.paths))]);
    Ok(assemble("conn_chk", module, cfg, verilog, ports, params, mrnic_model::transport::conn_chk_shell::CONN_CHK_LATENCY as u32, vec![
        stream("s_cfg", PortDir::In, &["conn", "live", "tag", "peer", "pkey"]),
        stream("s", PortDir::In, &["qpn", "src", "pkey", "path", "tag"]),
        stream("m", PortDir::Out, &["tag", "ok", "reason", "conn"]),
    ]))
}

/// The ACK join (block `ackjoin`: the SACK engine's cumulative PSN and bitmap joined into
/// the ACK generator's ACKs) of `cfg`.
fn ackjoin(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_ackjoin";
    let (verilog, ports) = crate::with_ackjoin!(cfg.connections, cfg.sack.window, J => {
        let mut uut = J::try_new(cfg.connections, cfg.sack.window)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([("connections".to_string(), cfg.connections as u64), ("window".to_string(), cfg.sack.window as u64)]);
    Ok(assemble("ackjoin", module, cfg, verilog, ports, params, mrnic_model::transport::ackjoin::ACKJOIN_LATENCY, vec![
        stream("s_sack", PortDir::In, &["conn", "base", "bitmap"]),
        stream("s_gen", PortDir::In, &["conn", "path", "path_psn", "flags", "ecn_ce", "ecn_pkts", "rate_hint", "ts_echo", "ack_delay", "sport", "timer", "ack"]),
        stream("m", PortDir::Out, &["conn", "path", "base", "bitmap", "path_psn", "flags", "ecn_ce", "ecn_pkts", "rate_hint", "ts_echo", "ack_delay", "sport", "timer"]),
    ]))
}

/// The completion unit (block `cmpl`: each message's progress at its writes' responses,
/// completions in message order) of `cfg`.
fn cmpl(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_cmpl";
    let mw = cfg.transport.msg_window as usize;
    let (verilog, ports) = crate::with_cmpl!(cfg.connections, mw, C => {
        let mut uut = C::try_new(cfg.connections, mw)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([("connections".to_string(), cfg.connections as u64), ("msg_window".to_string(), mw as u64)]);
    Ok(assemble("cmpl", module, cfg, verilog, ports, params, mrnic_model::transport::cmpl::CMPL_LATENCY, vec![
        stream("s_wr", PortDir::In, &["tag", "bytes", "resp"]),
        stream("s_fatal", PortDir::In, &["conn", "msn"]),
        stream("s_open", PortDir::In, &["conn", "msn"]),
        stream("m", PortDir::Out, &["conn", "msn", "ssn", "bytes", "solicited", "status"]),
    ]))
}

/// The DMA placement unit's checks (block `place_chk`) of `cfg`.
fn place_chk(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_place_chk";
    let c = place_chk_config(cfg)?;
    let (verilog, ports) = crate::with_place_chk!(&c, Q => {
        let mut uut = Q::try_new(&c)?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("mr_entries".to_string(), u64::from(c.mr_entries)),
        ("connections".to_string(), u64::from(c.connections)),
        ("rq_depth".to_string(), u64::from(c.rq_depth)),
        ("mtu".to_string(), u64::from(c.mtu)),
    ]);
    Ok(assemble("place_chk", module, cfg, verilog, ports, params, mrnic_model::transport::place_chk_shell::CHK_LATENCY as u32, vec![
        stream("s_cfg", PortDir::In, &["table", "row", "key", "live", "write", "pd", "base", "len", "head", "count"]),
        stream("s", PortDir::In, &["conn", "pd", "send", "va", "rkey", "len", "ssn", "tag"]),
        stream("m", PortDir::Out, &["tag", "ok", "nak", "addr", "base", "wlen", "len"]),
    ]))
}

/// Sizes of the ACK generator (block `ackgen`) of `cfg`: its connections and paths, `N` and
/// `T` from the transport configuration, and a coalescing FIFO of `ceil(T / cycle_ns)`
/// entries rounded up to a power of two (`docs/protocol.md` §6.10: a FIFO popped on time
/// never holds more).
pub fn ackgen_config(cfg: &Config) -> Result<mrnic_model::transport::ackgen::AckGenConfig, ConfigError> {
    let t = &cfg.transport;
    let timeout = u32::try_from(t.ack_timeout_ns).map_err(|_| ConfigError::invalid("ack_timeout_ns", "below 2^31 ns"))?;
    let depth = timeout.div_ceil(u32::from(t.cycle_ns)).next_power_of_two().max(2);
    let c = mrnic_model::transport::ackgen::AckGenConfig {
        connections: cfg.connections as u32,
        paths: t.paths,
        ack_every: t.ack_every,
        ack_timeout: timeout,
        fifo_depth: depth,
    };
    c.validate().map_err(|e| ConfigError::invalid("ackgen", e))?;
    Ok(c)
}

/// The ACK generator (block `ackgen`) of `cfg`.
fn ackgen(cfg: &Config) -> Result<Generated, GenError> {
    cfg.validate()?;
    let module = "mrnic_ackgen";
    let c = ackgen_config(cfg)?;
    let (verilog, ports) = crate::with_ackgen!(&c, A => {
        // a slow clock (`tiny`'s 33 ns) takes the small structure: the same cycles, less logic
        let mut uut = A::try_new_with(&c, crate::ackgen::ackgen_small(cfg.transport.cycle_ns))?;
        uut.connect_all();
        (crate::verilog::generate(&uut, module)?, top_ports(&uut))
    })?;
    let params = BTreeMap::from([
        ("connections".to_string(), u64::from(c.connections)),
        ("paths".to_string(), u64::from(c.paths)),
        ("ack_every".to_string(), u64::from(c.ack_every)),
        ("ack_timeout".to_string(), u64::from(c.ack_timeout)),
        ("fifo_depth".to_string(), u64::from(c.fifo_depth)),
    ]);
    Ok(assemble("ackgen", module, cfg, verilog, ports, params, mrnic_model::transport::ackgen_shell::ACKGEN_LATENCY, vec![
        stream("s_cfg", PortDir::In, &["kind", "conn", "path", "data"]),
        // `now` is the packet's arrival time: sampled with the transfer.
        StreamInfo { sampled: vec!["now".into()], ..stream("s", PortDir::In, &["conn", "path", "path_psn", "class", "ack_req", "ce", "ts", "sport"]) },
        stream("m", PortDir::Out, &["conn", "path", "path_psn", "flags", "ecn_ce", "ecn_pkts", "rate_hint", "ts_echo", "ack_delay", "sport", "timer", "ack"]),
    ])
    .with_globals(&["now"]))
}

/// One block of `cfg` by name (one of [`NAMED_BLOCKS`]); an unknown name is refused with the list.
pub fn block(cfg: &Config, name: &str) -> Result<Generated, GenError> {
    match name {
        "sack" => sack(cfg),
        "parser" => parser(cfg),
        "rtx" => rtx(cfg),
        "path" => path(cfg),
        "placement" => placement(cfg),
        "fbuf" => fbuf(cfg),
        "realign" => realign(cfg),
        "place_chk" => place_chk(cfg),
        "ackgen" => ackgen(cfg),
        "conn_chk" => conn_chk(cfg),
        "ackjoin" => ackjoin(cfg),
        "cmpl" => cmpl(cfg),
        _ => Err(GenError::UnknownBlock { name: name.to_owned() }),
    }
}

/// The SACK engine of `cfg` (`block(cfg, "sack")`; kept for the callers written before
/// [`block`]).
pub fn sack_engine(cfg: &Config) -> Result<Generated, GenError> {
    block(cfg, "sack")
}

/// Every block of a configuration, in [`BLOCKS`] order.
pub fn generate_all(cfg: &Config) -> Result<Vec<Generated>, GenError> {
    BLOCKS.iter().map(|b| block(cfg, b)).collect()
}

/// Direction as the manifest spells it.
pub fn dir_name(d: PortDir) -> &'static str {
    match d {
        PortDir::In => "input",
        PortDir::Out => "output",
        PortDir::InOut => "inout",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrnic_model::config::PRESETS;

    fn has_word(v: &str, word: &str) -> bool {
        v.match_indices(word).any(|(i, _)| {
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
            !ident(v[..i].chars().next_back()) && !ident(v[i + word.len()..].chars().next())
        })
    }

    #[test]
    fn every_block_is_named_mrnic_block_in_its_module_file_and_submodules_and_top_is_gone() {
        let cfg = Config::preset("small").unwrap();
        for g in generate_all(&cfg).unwrap() {
            assert_eq!(g.module, format!("mrnic_{}", g.name));
            assert_eq!(g.file, format!("mrnic_{}.v", g.name));
            assert!(g.verilog.contains(&format!("\nmodule {}(", g.module)));
            let subs = g.verilog.matches(&format!("\nmodule {}$", g.module)).count();
            let all = g.verilog.matches("\nmodule ").count();
            assert!(subs > 0 && subs + 1 == all, "{subs} submodules of {all} modules");
            assert!(!g.verilog.contains("top$"), "a `top$` submodule is left");
            assert!(!has_word(&g.verilog, "top"), "the word `top` is left");
        }
    }

    #[test]
    fn the_header_starts_with_the_spdx_line_and_names_the_configuration() {
        let g = block(&Config::preset("ice40").unwrap(), "sack").unwrap();
        let mut lines = g.verilog.lines();
        assert_eq!(lines.next(), Some("// SPDX-License-Identifier: Apache-2.0"));
        assert!(lines.next().unwrap().starts_with("// mrnic_sack: generated by mrnic-gen"));
        assert!(g.verilog.contains("configuration \"ice40\": conn_bits=8 connections=256 psn_bits=24 window=64\n"));
    }

    #[test]
    fn a_hostile_configuration_name_cannot_leave_the_header_comment() {
        // header() directly: the model may refuse such names itself (defence in depth).
        let mut cfg = Config::preset("small").unwrap();
        cfg.name = "x\"\nmodule evil(); endmodule\n// ".into();
        let h = header("sack", "mrnic_sack", &cfg, &BTreeMap::new());
        assert_eq!(h.lines().count(), 4, "{h}");
        assert!(!h.contains("evil()"));
        assert!(h.contains("configuration \"x__module_evil____endmodule____\":"), "{h}");
        cfg.name = "n".repeat(10_000);
        let h = header("sack", "mrnic_sack", &cfg, &BTreeMap::new());
        assert!(h.contains(&format!("\"{}...\"", "n".repeat(MAX_HEADER_NAME - 3))), "{h}");
        assert_eq!(header_safe("ok-1.2_x"), "ok-1.2_x");
        assert_eq!(header_safe("\u{fc}n\u{ef}"), "_n_");
    }

    #[test]
    fn an_unknown_block_is_refused_naming_the_known_ones() {
        let e = block(&Config::preset("small").unwrap(), "sacks").unwrap_err().to_string();
        assert_eq!(e, "unknown block \"sacks\": the blocks are sack, parser, rtx, place_chk, path, placement, fbuf, realign, ackgen, conn_chk, ackjoin, cmpl");
    }

    #[test]
    fn streams_cover_every_port_except_clock_reset_and_counters_with_the_right_directions() {
        for p in PRESETS {
            for g in generate_all(&Config::preset(p).unwrap()).unwrap() {
                let dir = |n: &str| g.ports.iter().find(|x| x.name == n).unwrap_or_else(|| panic!("no port {n}")).dir;
                let mut seen = std::collections::BTreeSet::new();
                for s in &g.streams {
                    let flip = if s.dir == PortDir::In { PortDir::Out } else { PortDir::In };
                    assert_eq!(dir(&s.valid), s.dir, "{}", s.valid);
                    assert_eq!(dir(&s.ready), flip, "{}", s.ready);
                    for x in &s.payload {
                        assert_eq!(dir(x), s.dir, "{x}");
                    }
                    for n in s.payload.iter().chain([&s.valid, &s.ready]) {
                        assert!(seen.insert(n.clone()), "{n} in two streams");
                    }
                }
                for x in &g.ports {
                    // The block's declared globals and its counters are outside every stream.
                    let other = g.globals.contains(&x.name) || x.name.starts_with("stat_");
                    assert!(seen.contains(&x.name) != other, "{}: port {} must be in exactly one stream or be a declared global ({:?}) or stat_*", g.name, x.name, g.globals);
                }
            }
        }
    }

    #[test]
    fn placement_is_generated_by_name_outside_blocks_with_every_port_in_one_stream() {
        assert!(!BLOCKS.contains(&"placement"), "placement is not in tops::BLOCKS yet");
        let g = block(&Config::preset("small").unwrap(), "placement").unwrap();
        assert_eq!((g.module.as_str(), g.file.as_str()), ("mrnic_placement", "mrnic_placement.v"));
        assert!(g.verilog.contains("\nmodule mrnic_placement("));
        assert!(!has_word(&g.verilog, "top"), "the word `top` is left");
        let dir = |n: &str| g.ports.iter().find(|x| x.name == n).unwrap_or_else(|| panic!("no port {n}")).dir;
        let mut seen = std::collections::BTreeSet::new();
        for s in &g.streams {
            let flip = if s.dir == PortDir::In { PortDir::Out } else { PortDir::In };
            assert_eq!(dir(&s.valid), s.dir, "{}", s.valid);
            assert_eq!(dir(&s.ready), flip, "{}", s.ready);
            for n in s.payload.iter().chain([&s.valid, &s.ready]) {
                assert!(seen.insert(n.clone()), "{n} in two streams");
            }
        }
        for x in &g.ports {
            let other = g.globals.contains(&x.name) || x.name.starts_with("stat_");
            assert!(seen.contains(&x.name) != other, "port {}", x.name);
        }
        for n in &g.globals {
            assert!(g.ports.iter().any(|x| &x.name == n), "declared global {n} is not a port");
        }
        let w = |n: &str| g.ports.iter().find(|x| x.name == n).unwrap().width;
        assert_eq!((w("m_axi_awaddr"), w("m_axi_wdata"), w("m_axi_wstrb"), w("s_len")), (64, 64, 8, 16));
        assert!(g.verilog.contains("configuration \"small\": addr_bits=64 beat_bytes=8 len_bits=16 max_beats=256\n"), "{}", &g.verilog[..400]);
    }

    #[test]
    fn an_invalid_configuration_is_refused_before_generation() {
        let mut cfg = Config::preset("small").unwrap();
        cfg.sack.window = 48;
        let e = generate_all(&cfg).unwrap_err().to_string();
        assert!(e.contains("sack.window = 48: not supported"), "{e}");
    }
}
