//! mrnic on FPGA: each block on a board with an on-chip stimulus (its harness), and the
//! synthesis / place-and-route flow (YoWASP yosys + nextpnr) that measures it.
//!
//! - [`harness`]: what every harness shares (LFSR, power-on reset, LED fold), the
//!   [`harness::BlockHarness`] trait and the block registry [`harness::HARNESSES`]; one file
//!   per block (`harness/sack.rs`).
//! - [`boards`]: ULX3S (ECP5-85F) and iCEBreaker (iCE40 UP5K), and the board top.
//! - [`flow`]: Verilog → yosys → nextpnr (per seed) → bitstream, and the [`flow::Summary`].
//! - [`report`]: parsing the tools' output, the median and the timing verdict, the table.
//! - [`cli`]: `mrnic synth` ([`cli::SynthArgs`], [`cli::main`]).
//! - [`error`]: [`FpgaError`].

pub mod boards;
pub mod cli;
pub mod error;
pub mod flow;
pub mod harness;
pub mod report;
pub mod tools;

pub use boards::{Board, BOARDS};
pub use error::FpgaError;
pub use flow::{run_flow, FlowOptions, Summary};
