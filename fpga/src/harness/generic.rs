//! The port-list harness: any block of `mrnic_hdl::tops::block` on a board, from the
//! Verilog and port list that `mrnic gen` emits, without a harness of its own.
//!
//! **Why not rust-hdl.** A rust-hdl harness must name its block's fields (`#[hdl_gen]` cannot
//! reach the fields of a generic block, which is why [`crate::boards::BoardTop`] already
//! writes its `hdl()` by hand), so each rust-hdl harness is one file per block
//! ([`super::sack`]). This one is written from the block's [`Generated`] port list instead,
//! so every block gets the same harness the day it is generated. What it adds around the
//! block is only test scaffolding (flip-flops, one LFSR, an XOR fold); the block's own
//! Verilog is exactly the text `mrnic gen` writes, unchanged, so the flow times what ships.
//!
//! **What it is** (module [`TOP_MODULE`], ports `clk` and `led[LEDS-1:0]`, like every board
//! top):
//! - a power-on reset: `rst` high for the first 16 cycles (flip-flops start at 0), then low;
//!   it drives the block's `rst` input;
//! - one 32-bit LFSR ([`super::Lfsr32`]'s polynomial and seed) shifted into a register
//!   chain 32 bits a cycle: every other input bit of the block is one flip-flop of the
//!   chain, so no input is constant and every input path starts at a register;
//! - every output registered, the registers XOR-folded in 32-bit slices (groups of 8 slices
//!   a registered stage, then the groups), accumulated into a rotating 32-bit register whose
//!   four bytes are XORed onto the LEDs ([`super::LedFold`]'s rule): every output bit
//!   reaches a LED, so synthesis removes nothing.
//!
//! The stimulus is random, not protocol-correct (a valid may drop while ready is low):
//! place and route times the logic whatever the inputs, and a random input cannot be
//! propagated as a constant. Functional stimulus belongs to the differential tests.

use super::HarnessEntry;
use crate::boards::{Board, TOP_MODULE};
use crate::error::FpgaError;
use mrnic_hdl::ports::PortDir;
use mrnic_hdl::tops::Generated;
use mrnic_model::Config;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The generated block `name` of `config`, or the reason it cannot be generated.
pub fn generated(name: &str, config: &Config) -> Result<Generated, FpgaError> {
    config.validate()?;
    mrnic_hdl::tops::block(config, name).map_err(|e| FpgaError::Generate { block: name.to_string(), reason: e.to_string() })
}

/// The Verilog of `board`'s top around block `name` of `config`: the harness module
/// followed by the block's generated Verilog.
pub fn board_verilog(name: &str, board: &Board, config: &Config) -> Result<String, FpgaError> {
    let g = generated(name, config)?;
    Ok(harness_verilog(&g, board.leds)? + "\n" + &g.verilog)
}

/// The block's parameters as `mrnic gen` reports them (the summary's sizes).
pub fn parameters(name: &str, config: &Config) -> BTreeMap<String, u64> {
    generated(name, config).map(|g| g.params).unwrap_or_default()
}

/// The harness module around `g` (see the module documentation), `leds` LED bits.
pub fn harness_verilog(g: &Generated, leds: usize) -> Result<String, FpgaError> {
    if !(1..=32).contains(&leds) {
        return Err(FpgaError::BoardLeds { board: format!("(harness of {})", g.name), leds });
    }
    let clock = g.ports.iter().find(|p| p.name == "clock" && p.dir == PortDir::In);
    if clock.is_none() {
        return Err(FpgaError::Generate { block: g.name.clone(), reason: "no `clock` input".into() });
    }
    if let Some(p) = g.ports.iter().find(|p| p.dir == PortDir::InOut) {
        return Err(FpgaError::Generate { block: g.name.clone(), reason: format!("inout port `{}`: the harness drives inputs and folds outputs only", p.name) });
    }
    let ins: Vec<_> = g.ports.iter().filter(|p| p.dir == PortDir::In && p.name != "clock" && p.name != "rst").collect();
    let outs: Vec<_> = g.ports.iter().filter(|p| p.dir == PortDir::Out).collect();
    let has_rst = g.ports.iter().any(|p| p.name == "rst" && p.dir == PortDir::In);
    let ni: usize = ins.iter().map(|p| p.width).sum::<usize>().max(1);
    // The chain is a whole number of 32-bit words, at least one.
    let chain = ni.div_ceil(32) * 32;
    let no: usize = outs.iter().map(|p| p.width).sum::<usize>().max(1);
    let slices = no.div_ceil(32);
    let groups = slices.div_ceil(8);

    let mut v = String::new();
    let w = &mut v;
    let _ = writeln!(w, "// Port-list harness of `{}` (mrnic-fpga harness::generic): {ni} input bits from an LFSR chain, {no} output bits folded onto {leds} LEDs.", g.module);
    let _ = writeln!(w, "module {TOP_MODULE}(clk, led);");
    let _ = writeln!(w, "  input wire clk;");
    let _ = writeln!(w, "  output reg [{}:0] led;", leds - 1);
    let _ = writeln!(w, "  // power-on reset: high for 16 cycles");
    let _ = writeln!(w, "  reg [3:0] por_count = 4'd0;");
    let _ = writeln!(w, "  reg por_done = 1'b0;");
    let _ = writeln!(w, "  wire rst = !por_done;");
    let _ = writeln!(w, "  always @(posedge clk) begin");
    let _ = writeln!(w, "    if (por_count != 4'd15) por_count <= por_count + 4'd1;");
    let _ = writeln!(w, "    por_done <= por_count == 4'd15;");
    let _ = writeln!(w, "  end");
    let _ = writeln!(w, "  // LFSR x^32 + x^22 + x^2 + x + 1 and the input chain, 32 bits a cycle");
    let _ = writeln!(w, "  reg [31:0] lfsr = 32'h0;");
    let _ = writeln!(w, "  reg [{}:0] chain = {chain}'h0;", chain - 1);
    let _ = writeln!(w, "  always @(posedge clk) begin");
    let _ = writeln!(w, "    if (rst) lfsr <= 32'hACE12468;");
    let _ = writeln!(w, "    else lfsr <= {{lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]}};");
    if chain == 32 {
        let _ = writeln!(w, "    chain <= lfsr;");
    } else {
        let _ = writeln!(w, "    chain <= {{chain[{}:0], lfsr}};", chain - 33);
    }
    let _ = writeln!(w, "  end");
    let _ = writeln!(w, "  // the block's outputs and their registers");
    for p in &outs {
        let _ = writeln!(w, "  wire [{}:0] o_{};", p.width - 1, sanitize(&p.name));
    }
    let _ = writeln!(w, "  reg [{}:0] oreg = {no}'h0;", no - 1);
    let cat: Vec<String> = outs.iter().rev().map(|p| format!("o_{}", sanitize(&p.name))).collect();
    let _ = writeln!(w, "  always @(posedge clk) oreg <= {{{}}};", if cat.is_empty() { "1'b0".to_string() } else { cat.join(", ") });
    let _ = writeln!(w, "  // fold: 32-bit slices XORed in groups of 8 (registered), then the groups");
    let _ = writeln!(w, "  wire [{}:0] opad = {{{}'h0, oreg}};", slices * 32 - 1, slices * 32 - no + 1);
    for k in 0..groups {
        let terms: Vec<String> = (k * 8..((k + 1) * 8).min(slices)).map(|s| format!("opad[{}:{}]", s * 32 + 31, s * 32)).collect();
        let _ = writeln!(w, "  reg [31:0] grp{k} = 32'h0;");
        let _ = writeln!(w, "  always @(posedge clk) grp{k} <= {};", terms.join(" ^ "));
    }
    let gterms: Vec<String> = (0..groups).map(|k| format!("grp{k}")).collect();
    let _ = writeln!(w, "  reg [31:0] acc = 32'h0;");
    let _ = writeln!(w, "  always @(posedge clk) acc <= {{acc[30:0], acc[31]}} ^ {};", gterms.join(" ^ "));
    let _ = writeln!(w, "  wire [7:0] acc8 = acc[7:0] ^ acc[15:8] ^ acc[23:16] ^ acc[31:24];");
    let led_src = if leds <= 8 { format!("acc8[{}:0]", leds - 1) } else { format!("acc[{}:0]", leds - 1) };
    let _ = writeln!(w, "  initial led = {leds}'h0;");
    let _ = writeln!(w, "  always @(posedge clk) led <= {led_src};");
    let _ = writeln!(w, "  // the block");
    let _ = writeln!(w, "  {} dut (", g.module);
    let mut conns = vec![".clock(clk)".to_string()];
    if has_rst {
        conns.push(".rst(rst)".to_string());
    }
    let mut off = 0;
    for p in &ins {
        conns.push(format!(".{}(chain[{}:{}])", p.name, off + p.width - 1, off));
        off += p.width;
    }
    for p in &outs {
        conns.push(format!(".{}(o_{})", p.name, sanitize(&p.name)));
    }
    let _ = writeln!(w, "    {}", conns.join(",\n    "));
    let _ = writeln!(w, "  );");
    let _ = writeln!(w, "endmodule");
    Ok(v)
}

/// A port name as part of a local wire name (rust-hdl's `iface$signal` names keep their
/// `$` in the port connection, which Verilog allows after the first character).
fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// Declares a [`HarnessEntry`] `$entry` for block `$name` on the port-list harness.
macro_rules! port_list_entry {
    ($entry:ident, $name:literal, $desc:literal, $ops:expr) => {
        pub const $entry: HarnessEntry = HarnessEntry {
            name: $name,
            description: $desc,
            board_verilog: {
                fn f(b: &Board, c: &Config) -> Result<String, FpgaError> {
                    board_verilog($name, b, c)
                }
                f
            },
            parameters: {
                fn f(c: &Config) -> BTreeMap<String, u64> {
                    parameters($name, c)
                }
                f
            },
            ops_per_cycle: $ops,
        };
    };
}

/// Every block on the port-list harness (each also a row of [`super::HARNESSES`]).
pub const ENTRIES: &[HarnessEntry] = &[RTX, PARSER, PLACEMENT, PATH, PLACE_CHK, FBUF, REALIGN, ACKGEN, CONN_CHK, ACKJOIN, CMPL];

port_list_entry!(RTX, "rtx", "sender retransmit queue (mrnic_rtx), port-list harness", 1.0);
port_list_entry!(PARSER, "parser", "receive frame parser (mrnic_parser, 64-bit AXI4-Stream beats), port-list harness", 1.0);
port_list_entry!(PLACEMENT, "placement", "DMA placement unit write path (mrnic_placement), port-list harness", 1.0);
port_list_entry!(PATH, "path", "sender path table (mrnic_path), port-list harness", 1.0);
port_list_entry!(PLACE_CHK, "place_chk", "DMA placement unit checks (mrnic_place_chk), port-list harness", 1.0);
port_list_entry!(FBUF, "fbuf", "receive frame buffer (mrnic_fbuf, 64-bit beats, store and forward), port-list harness", 1.0);
port_list_entry!(REALIGN, "realign", "payload realigner (mrnic_realign, 64-bit beats, frame to lane-aligned payload), port-list harness", 1.0);
port_list_entry!(CONN_CHK, "conn_chk", "connection checks (mrnic_conn_chk, destination QP -> connection, peer, P_Key, path id), port-list harness", 1.0);
port_list_entry!(ACKJOIN, "ackjoin", "ACK join (mrnic_ackjoin, the SACK engine's cumulative PSN and bitmap into the ACK generator's ACKs), port-list harness", 1.0);
port_list_entry!(CMPL, "cmpl", "completion unit (mrnic_cmpl, message progress at the write responses, completions in message order), port-list harness", 1.0);
port_list_entry!(ACKGEN, "ackgen", "responder ACK generator (mrnic_ackgen, ACK decision and coalescing FIFO), port-list harness", 1.0);
