//! A short run of the SACK engine in rust-hdl's own simulator against the golden model.
//! (The Verilated run in `sack_diff.rs` is the one that tests the generated Verilog; this
//! one checks that rust-hdl's simulation semantics of the same block agree.)

use mrnic_verif::sack::{run_differential, rusthdl::RustHdlSack};

#[test]
fn rust_hdl_simulation_of_the_engine_matches_the_model_cycle_by_cycle() {
    let mut dut = RustHdlSack::<4, 32>::new();
    let rep = run_differential(&mut dut, 11, 4_000, 16, 32).unwrap_or_else(|m| panic!("{m}"));
    assert!(rep.packets_in > 1_000, "{rep:?}");
    assert!(rep.by_class.iter().all(|&n| n > 0), "every class reached: {rep:?}");
}

#[test]
fn rust_hdl_simulation_of_the_256_bit_engine_matches_the_model() {
    let mut dut = RustHdlSack::<4, 256>::new();
    let rep = run_differential(&mut dut, 12, 5_000, 16, 256).unwrap_or_else(|m| panic!("{m}"));
    assert!(rep.packets_in > 1_000 && rep.by_class[0] > 100, "{rep:?}");
}
