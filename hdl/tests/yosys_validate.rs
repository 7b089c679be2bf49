//! Yosys on the generated Verilog of every block and every primitive: no latches, no
//! undriven wires, no implicit declarations, hierarchy complete (rust-hdl's own `check_all`
//! does not catch latches). The same checks as rust-hdl's `yosys_validate`, which hard-codes
//! the top module `top`; here the top is the block's own module (`mrnic_sack`).
//! Needs `yosys` on PATH (`bash scripts/setup.sh` installs a wrapper for YoWASP's).

use mrnic_hdl::prim::{BlockRam, BlockRamReg, ByteStrobes, Crc32Stream, CrcFold, FirstZero, OnesSum, PrefixAnd, RotateRight, SkidBuffer};
use mrnic_model::Config;
use rust_hdl::prelude::*;
use std::process::Command;

/// Runs `read -vlog95; hierarchy -check -top MODULE; proc` and fails on what
/// rust-hdl's `yosys_validate` fails on.
fn validate(label: &str, module: &str, verilog: &str) {
    let dir = std::env::temp_dir().join(format!("mrnic-yosys-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("design.v"), verilog).unwrap();
    let out = Command::new("yosys")
        .current_dir(&dir)
        .arg("-p")
        .arg(format!("read -vlog95 design.v; hierarchy -check -top {module}; proc"))
        .output()
        .unwrap_or_else(|e| panic!("running yosys (run `source ~/.cache/mrnic-tools/env.sh`): {e}"));
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for bad in ["Re-definition of", "implicitly declared", "Latch inferred", "is used but has no driver"] {
        assert!(!stdout.contains(bad), "{label}: yosys reports `{bad}`:\n{stdout}");
    }
    assert!(
        out.status.success() && stdout.contains("End of script."),
        "{label}: yosys failed:\n{stdout}\n{stderr}"
    );
}

/// The SACK engine of `preset`. (The other blocks have their own tests below, each at a
/// W = 256 and, where it changes the RTL, a W = 64 preset: a yosys run of `mrnic_rtx` takes
/// over a minute, so no block is validated twice at the same sizes.)
fn sack(preset: &str) {
    let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "sack").unwrap();
    validate(&format!("sack_{preset}"), &t.module, &t.verilog);
}

#[test]
fn every_block_of_tops_blocks_has_a_yosys_validate_test_here() {
    for b in mrnic_hdl::tops::BLOCKS {
        assert!(["sack", "parser", "rtx", "placement", "path", "place_chk"].contains(b), "block {b} is in tops::BLOCKS but not validated in this file");
    }
}

fn prim<U: Block>(mut uut: U, name: &str) {
    uut.connect_all();
    let module = format!("mrnic_prim_{name}");
    validate(name, &module, &mrnic_hdl::verilog::generate(&uut, &module).unwrap());
}

#[test]
fn sack_engine_default_passes_yosys_validate() {
    sack("default");
}

#[test]
fn sack_engine_ice40_passes_yosys_validate() {
    sack("ice40");
}

#[test]
fn parser_passes_yosys_validate_with_no_latch_and_every_wire_driven() {
    let g = mrnic_hdl::tops::block(&Config::preset("default").unwrap(), "parser").unwrap();
    validate("parser", &g.module, &g.verilog);
}

/// The retransmit queue at `core` (16 records, the pairwise variant) and at `tiny` (64, the
/// walk): two tests, so that the two longest yosys runs of this file (about 1 and 2 minutes)
/// run side by side.
fn rtx(preset: &str) {
    let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "rtx").unwrap();
    validate(&format!("rtx_{preset}"), &t.module, &t.verilog);
}

#[test]
fn retransmit_queue_core_passes_yosys_validate() {
    rtx("core");
}

#[test]
fn retransmit_queue_tiny_passes_yosys_validate() {
    rtx("tiny");
}

#[test]
fn placement_write_path_passes_yosys_validate() {
    let t = mrnic_hdl::tops::block(&Config::preset("core").unwrap(), "placement").unwrap();
    validate("placement", &t.module, &t.verilog);
}

#[test]
fn receive_frame_buffer_passes_yosys_validate() {
    let t = mrnic_hdl::tops::block(&Config::preset("core").unwrap(), "fbuf").unwrap();
    std::fs::write(std::env::temp_dir().join("mrnic_fbuf.v"), &t.verilog).unwrap();
    validate("fbuf", &t.module, &t.verilog);
}

#[test]
fn payload_realigner_passes_yosys_validate() {
    let t = mrnic_hdl::tops::block(&Config::preset("core").unwrap(), "realign").unwrap();
    std::fs::write(std::env::temp_dir().join("mrnic_realign.v"), &t.verilog).unwrap();
    validate("realign", &t.module, &t.verilog);
}

#[test]
fn connection_checks_pass_yosys_validate() {
    for preset in ["core", "tiny"] {
        let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "conn_chk").unwrap();
        std::fs::write(std::env::temp_dir().join(format!("mrnic_conn_chk_{preset}.v")), &t.verilog).unwrap();
        validate("conn_chk", &t.module, &t.verilog);
    }
}

#[test]
fn ack_join_passes_yosys_validate() {
    for preset in ["core", "tiny"] {
        let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "ackjoin").unwrap();
        validate("ackjoin", &t.module, &t.verilog);
    }
}

#[test]
fn completion_unit_passes_yosys_validate() {
    for preset in ["core", "tiny"] {
        let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "cmpl").unwrap();
        validate("cmpl", &t.module, &t.verilog);
    }
}

#[test]
fn ack_generator_passes_yosys_validate() {
    for preset in ["core", "tiny"] {
        let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "ackgen").unwrap();
        std::fs::write(std::env::temp_dir().join(format!("mrnic_ackgen_{preset}.v")), &t.verilog).unwrap();
        validate("ackgen", &t.module, &t.verilog);
    }
}

/// The path table at the `tiny` preset (P = 4, 16 connections): the RTL is the same
/// generator at every preset, only P and C change, and `core` (P = 8) costs twice the time.
#[test]
fn path_table_tiny_passes_yosys_validate() {
    let t = mrnic_hdl::tops::block(&Config::preset("tiny").unwrap(), "path").unwrap();
    validate("path_tiny", &t.module, &t.verilog);
}

#[test]
fn place_chk_passes_yosys_validate_at_core_and_tiny() {
    for preset in ["core", "tiny"] {
        let t = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), "place_chk").unwrap();
        validate(&format!("place_chk_{preset}"), &t.module, &t.verilog);
    }
}

#[test]
fn primitives_pass_yosys_validate() {
    prim(PrefixAnd::<256>::new(), "prefix_and256");
    prim(PrefixAnd::<8>::new(), "prefix_and8");
    prim(FirstZero::<256, 24>::new(), "first_zero256");
    prim(FirstZero::<32, 5>::new(), "first_zero32");
    prim(RotateRight::<256>::new(), "rotate256");
    prim(RotateRight::<2>::new(), "rotate2");
    prim(SkidBuffer::<40>::new(), "skid40");
    prim(BlockRam::<40, 10>::new(), "bram40x1024");
    prim(BlockRamReg::<40, 10>::new(), "bramreg40x1024");
    prim(CrcFold::<64>::new(8), "crcfold64");
    prim(Crc32Stream::<64>::new(0xDEBB_20E3), "crcstream64");
    prim(Crc32Stream::<512>::new(0xDEBB_20E3), "crcstream512");
    prim(OnesSum::<64, 8>::new(), "onessum64");
    prim(OnesSum::<512, 64>::new(), "onessum512");
    prim(ByteStrobes::<8>::new(), "strobes8");
    prim(ByteStrobes::<64>::new(), "strobes64");
}

#[test]
fn the_check_catches_a_latch() {
    // A proof the check can fail: a combinational signal assigned on one branch only.
    let v = "module mrnic_latchy(input a, input b, output reg y);\nalways @(*) begin\n  if (a) y = b;\nend\nendmodule\n";
    let r = std::panic::catch_unwind(|| validate("latchy", "mrnic_latchy", v));
    let msg = *r.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("Latch inferred"), "{msg}");
}
