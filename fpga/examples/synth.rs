//! `cargo run --release -p mrnic-fpga --example synth -- BOARD [PRESET] [OUT] [FREQ] [SEED]`:
//! the same flow as `mrnic synth`, without the command line crate.
fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let board = a.first().map(String::as_str).unwrap_or("ulx3s");
    let preset = a.get(1).map(String::as_str).filter(|p| *p != "-");
    let out = std::path::PathBuf::from(a.get(2).map(String::as_str).unwrap_or("target/synth"));
    let freq = a.get(3).map(|f| f.parse()).transpose()?;
    let seed = a.get(4).map(|s| s.parse()).transpose()?;
    mrnic_fpga::flow::run(board, preset, &out, freq, seed)?;
    Ok(())
}
