//! mrnic on FPGA: board tops with an on-chip stimulus around the SACK engine, and the
//! synthesis / place-and-route flow (YoWASP yosys + nextpnr) that measures them.
//!
//! - [`stim`]: LFSRs, power-on reset, the harness that registers the block's ports.
//! - [`boards`]: ULX3S (ECP5-85F) and iCEBreaker (iCE40 UP5K) tops, config → generics.
//! - [`flow`]: Verilog → yosys → nextpnr → bitstream, and the parsed summary.

pub mod boards;
pub mod flow;
pub mod stim;

/// The block under test: the receiver's SACK bitmap engine.
pub type Dut<const CONN_BITS: usize, const W: usize> = mrnic_hdl::sack::SackEngine<CONN_BITS, W>;

pub use boards::{Board, BOARDS};
pub use flow::{run_flow, FlowOptions, Summary};
