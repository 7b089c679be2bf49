//! A short run of the SACK engine in rust-hdl's own simulator against the golden model, on
//! the kit. (The Verilated run in `sack_diff.rs` is the one that tests the generated Verilog;
//! this one checks that rust-hdl's simulation semantics of the same block agree.)

use mrnic_model::Config;
use mrnic_verif::blocks::{self, sack::rusthdl::RustHdlFactory};
use mrnic_verif::kit::{run_differential, DeviceFactory, RunOpts, RunReport};

/// Runs the small-preset interface (16 connections) with the given window on rust-hdl.
fn run(window: usize, dev: &dyn DeviceFactory, seed: u64, cycles: u64) -> RunReport {
    let mut cfg = Config::preset("small").unwrap();
    cfg.sack.window = window;
    cfg.transport.window = window as u32;
    cfg.transport.cwnd_max = cfg.transport.cwnd_max.min(window as u32); // cwnd_max <= window
    let spec = blocks::block("sack").unwrap();
    let (_, iface) = spec.generated(&cfg).unwrap();
    let tb = (spec.testbench)(&cfg).unwrap();
    run_differential(tb.as_ref(), &iface.io(), dev, RunOpts::new(seed, cycles)).unwrap_or_else(|f| panic!("{f}"))
}

#[test]
fn rust_hdl_simulation_of_the_engine_matches_the_model_cycle_by_cycle() {
    let rep = run(64, &RustHdlFactory::<4, 64>, 11, 4_000);
    assert!(rep.get("s.transfers") > 1_000, "{rep:?}");
    for c in ["model.New", "model.Duplicate", "model.OutOfWindow", "model.Cleared"] {
        assert!(rep.get(c) > 0, "every class reached: {rep:?}");
    }
}

#[test]
fn rust_hdl_simulation_of_the_256_bit_engine_matches_the_model() {
    let rep = run(256, &RustHdlFactory::<4, 256>, 12, 10_000);
    assert!(rep.get("s.transfers") > 1_000 && rep.get("model.New") > 100, "{rep:?}");
}
