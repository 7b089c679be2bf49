// PLACEHOLDER (lead): helper owning the FPGA flow replaces this whole file.
use anyhow::{bail, Result};
use std::path::Path;
pub fn run(board: &str, _preset: Option<&str>, _out: &Path, _freq: Option<f64>, _seed: Option<u32>) -> Result<()> {
    bail!("synth for board {board}: flow not built yet")
}
