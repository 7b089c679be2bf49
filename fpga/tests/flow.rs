//! The FPGA flow end to end: rust-hdl → yosys → nextpnr → bitstream, summary parsed.
//!
//! `ecp5_flow` is the one CI runs (ULX3S, default preset: 1024 connections, 256-bit window;
//! ~3-5 min on 2 cores). `ice40_flow` (~1 min) is `#[ignore]`d to keep CI short:
//! `cargo test --release -p mrnic-fpga --test flow -- --ignored`.
//! `MRNIC_FPGA_TEST_PRESET` picks another preset for the ECP5 test (e.g. `ice40`, ~1 min).

use mrnic_fpga::flow::{run_flow, FlowOptions, Summary};
use std::path::PathBuf;
use std::sync::Mutex;

/// One heavy flow at a time (2 cores).
static HEAVY: Mutex<()> = Mutex::new(());

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-flow")
}

fn run(board: &str, preset: Option<&str>) -> Summary {
    let _g = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let opts = FlowOptions::new(board, preset, &out_dir()).unwrap();
    let s = match run_flow(&opts) {
        Ok(s) => s,
        Err(e) => panic!("{board} flow failed: {e:#}"),
    };
    println!("{}", mrnic_fpga::flow::table(std::slice::from_ref(&s)));
    let dir = out_dir().join(board);
    assert!(s.luts > 0, "no LUTs parsed: {s:?}");
    assert!(s.ffs > 0, "no FFs parsed: {s:?}");
    assert!(s.brams > 0, "no block RAM: the connection state must be in BRAM: {s:?}");
    assert!(s.fmax_mhz > 0.0, "no Fmax parsed: {s:?}");
    assert!(!s.critical_path.is_empty(), "no critical path parsed");
    let bit = std::fs::metadata(&s.bitstream).expect("bitstream exists");
    assert!(bit.len() > 0, "empty bitstream {}", s.bitstream);
    let written: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(written.fmax_mhz, s.fmax_mhz);
    for f in ["top.v", "yosys.log", "nextpnr.log", "report.json", "critical_path.txt"] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    s
}

#[test]
fn ecp5_flow() {
    let preset = std::env::var("MRNIC_FPGA_TEST_PRESET").ok();
    let s = run("ulx3s", preset.as_deref());
    assert!(s.utilization.contains_key("TRELLIS_COMB"));
    assert!(s.bitstream.ends_with(".bit"));
}

#[test]
#[ignore = "iCE40 flow (~1 min); run with --ignored"]
fn ice40_flow() {
    let s = run("icebreaker", None);
    assert_eq!((s.connections, s.window), (256, 64));
    assert!(s.utilization.contains_key("ICESTORM_LC"));
    assert!(s.bitstream.ends_with(".bin"));
}

#[test]
fn a_missing_tool_is_reported_with_the_setup_hint() {
    let e = mrnic_fpga::flow::find_tool("yowasp-no-such-tool").unwrap_err().to_string();
    assert!(e.contains("scripts/setup.sh"), "{e}");
}
