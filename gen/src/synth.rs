//! `mrnic synth`: the FPGA flow's command line lives in the fpga crate (`mrnic_fpga::cli`).
pub use mrnic_fpga::cli::main as run;
