//! The board tops generate Verilog that yosys accepts (no latches, no undriven wires, no
//! implicit declarations), and bad requests are refused with the reason.

use mrnic_fpga::boards::{top_verilog, Board};
use mrnic_model::Config;
use rust_hdl::prelude::*;

/// rust-hdl's `yosys_validate` runs `yosys` from PATH: add the setup script's venv.
fn yosys_on_path() {
    if mrnic_fpga::flow::find_tool("yosys").is_err() {
        panic!("no `yosys` on PATH nor in ~/.cache/mrnic-tools/venv/bin: run `bash scripts/setup.sh`");
    }
    let yosys = mrnic_fpga::flow::find_tool("yosys").unwrap();
    let dir = yosys.parent().unwrap().to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<_> = std::env::split_paths(&path).collect();
    if !dirs.contains(&dir) {
        dirs.insert(0, dir);
        std::env::set_var("PATH", std::env::join_paths(dirs).unwrap());
    }
    if std::env::var_os("YOWASP_CACHE_DIR").is_none() {
        let cache = yosys.parent().unwrap().join("../../yowasp-cache");
        if cache.is_dir() {
            std::env::set_var("YOWASP_CACHE_DIR", cache);
        }
    }
}

fn validate(board: &str, preset: &str) {
    yosys_on_path();
    let b = Board::by_name(board).unwrap();
    let v = top_verilog(&b, &Config::preset(preset).unwrap()).unwrap();
    assert!(v.contains("module top"), "no module top");
    let port = if b.name == "ulx3s" { "clk_25mhz" } else { "clk" };
    assert!(v.contains(port), "the top has no {port} port");
    if let Err(e) = yosys_validate(&format!("fpga_top_{board}_{preset}"), &v) {
        panic!("yosys rejects the {board}/{preset} top: {e:?}");
    }
}

#[test]
fn ulx3s_top_passes_yosys_validate() {
    validate("ulx3s", "default");
}

#[test]
fn icebreaker_top_passes_yosys_validate() {
    validate("icebreaker", "ice40");
}

#[test]
fn unsupported_requests_are_refused_with_the_reason() {
    let e = Board::by_name("arty").unwrap_err().to_string();
    assert!(e.contains("ulx3s") && e.contains("icebreaker"), "{e}");
    let mut c = Config::preset("default").unwrap();
    c.sack.connections = 4096;
    let e = top_verilog(&Board::by_name("ulx3s").unwrap(), &c).unwrap_err().to_string();
    assert!(e.contains("4096") && e.contains("no FPGA top"), "{e}");
    c.sack.connections = 1000;
    let e = top_verilog(&Board::by_name("ulx3s").unwrap(), &c).unwrap_err().to_string();
    assert!(e.contains("1000"), "{e}");
}

/// Icarus runs the generated ULX3S top (stimulus + engine) for 20k cycles: the stimulus must
/// produce every classification (new, duplicate, out of window, cleared).
#[test]
fn the_stimulus_exercises_every_class() {
    let Ok(iverilog) = which("iverilog") else {
        panic!("iverilog not found: run `bash scripts/setup.sh` (it installs Debian's iverilog)");
    };
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-stim-sim");
    std::fs::create_dir_all(&dir).unwrap();
    let v = top_verilog(&Board::by_name("ulx3s").unwrap(), &Config::preset("default").unwrap()).unwrap();
    std::fs::write(dir.join("top.v"), v).unwrap();
    std::fs::write(
        dir.join("tb.v"),
        r#"`timescale 1ns/1ps
module tb;
  reg clk = 0;
  wire [7:0] led;
  top u(.clk_25mhz(clk), .led(led));
  always #5 clk = ~clk;
  initial begin
    #200000;
    $display("STATS %0d %0d %0d %0d", u.harness.dut$stat_new, u.harness.dut$stat_duplicate,
             u.harness.dut$stat_out_of_window, u.harness.dut$stat_cleared);
    $finish;
  end
endmodule
"#,
    )
    .unwrap();
    let st = std::process::Command::new(iverilog)
        .current_dir(&dir)
        .args(["-g2012", "-o", "sim", "tb.v", "top.v"])
        .status()
        .unwrap();
    assert!(st.success(), "iverilog failed in {}", dir.display());
    let out = std::process::Command::new(which("vvp").unwrap())
        .current_dir(&dir)
        .args(["-n", "sim"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("STATS")).unwrap_or_else(|| panic!("no STATS in {text}"));
    let n: Vec<u64> = line.split_whitespace().skip(1).map(|x| x.parse().expect(line)).collect();
    println!("20k cycles: new {} duplicate {} out-of-window {} cleared {}", n[0], n[1], n[2], n[3]);
    for (name, c) in ["new", "duplicate", "out of window", "cleared"].iter().zip(&n) {
        assert!(*c > 50, "the stimulus produced only {c} '{name}' in 20k cycles: {line}");
    }
    assert!(n.iter().sum::<u64>() > 10_000, "too few operations: {line}");
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).ok_or(())
}
