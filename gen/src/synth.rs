//! `mrnic synth`: a thin wrapper over the FPGA flow in the `mrnic-fpga` crate.
//!
//! Writes `OUT/<board>/` (top.v, logs, report.json, bitstream, summary.json) and prints the
//! resource / Fmax table and the critical path. See docs/synthesis.md.

use anyhow::Result;
use std::path::Path;

/// Runs the flow for `board` (`ulx3s` or `icebreaker`) with `preset` (default: the board's),
/// nextpnr target `freq_mhz` (default: the board's) and nextpnr `seed` (default 1).
pub fn run(
    board: &str,
    preset: Option<&str>,
    out: &Path,
    freq_mhz: Option<f64>,
    seed: Option<u32>,
) -> Result<()> {
    mrnic_fpga::flow::run(board, preset, out, freq_mhz, seed).map(|_| ())
}
