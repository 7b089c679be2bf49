//! The board tops generate Verilog that yosys accepts (no latches, no undriven wires, no
//! implicit declarations) for every block, preset and board, and the SACK harness's
//! stimulus reaches every classification.

use mrnic_fpga::boards::{Board, BOARDS, TOP_MODULE};
use mrnic_fpga::harness::{generic, harness, HARNESSES};
use mrnic_model::config::PRESETS;
use mrnic_model::Config;
use rust_hdl::prelude::*;

/// rust-hdl's `yosys_validate` runs `yosys` from PATH: add the setup script's venv.
fn yosys_on_path() {
    if mrnic_fpga::tools::find_tool("yosys").is_err() {
        panic!("no `yosys` on PATH nor in ~/.cache/mrnic-tools/venv/bin: run `bash scripts/setup.sh`");
    }
    let yosys = mrnic_fpga::tools::find_tool("yosys").unwrap();
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

/// Every rust-hdl harness, in every preset, on every board: rust-hdl generates the board
/// top (the harness sized through the block's config-to-generics table) and yosys accepts it.
/// (The port-list harness wraps Verilog that `yosys_validate` already checks per size class;
/// its own text is checked at `tiny` by the test after this one.)
#[test]
fn every_preset_harness_passes_yosys_validate() {
    yosys_on_path();
    for h in HARNESSES.iter().filter(|h| !generic::ENTRIES.iter().any(|e| e.name == h.name)) {
        for preset in PRESETS {
            let cfg = Config::preset(preset).unwrap();
            for b in BOARDS {
                let t = std::time::Instant::now();
                let v = (h.board_verilog)(b, &cfg)
                    .unwrap_or_else(|e| panic!("{}/{preset}/{}: {e}", h.name, b.name));
                assert!(v.contains(&format!("module {TOP_MODULE}(")), "no module {TOP_MODULE}");
                let decl = |dir: &str, end: &str| {
                    v.lines().any(|l| l.trim_start().starts_with(dir) && l.trim_end().ends_with(end))
                };
                assert!(decl("input wire", " clk;"), "the {} top has no clk input", b.name);
                let led = format!(" [{}:0] led;", b.leds - 1);
                assert!(decl("output reg", &led), "the {} top has no {}-bit led output", b.name, b.leds);
                if let Err(e) = yosys_validate(&format!("fpga_{}_{preset}_{}", h.name, b.name), &v) {
                    panic!("yosys rejects the {}/{preset}/{} top: {e:?}", h.name, b.name);
                }
                println!("{}/{preset}/{}: {:.1} s", h.name, b.name, t.elapsed().as_secs_f64());
            }
        }
    }
}

/// A configuration the block has no instance for is refused by the registry with the reason
/// (the model's message names the field).
#[test]
fn an_unsupported_configuration_is_refused_with_the_field() {
    let sack = harness("sack").unwrap();
    let mut c = Config::preset("default").unwrap();
    c.connections = 1000;
    let e = (sack.board_verilog)(&BOARDS[0], &c).unwrap_err().to_string();
    assert!(e.contains("connections = 1000") && !e.contains("sack.connections"), "{e}");
}

/// Icarus runs the generated ULX3S top (stimulus + engine) for 20k cycles: the stimulus must
/// produce every classification (new, duplicate, out of window, cleared) and offer
/// uncommitted data packets (`s_commit` low, about 1 in 8).
#[test]
fn the_stimulus_exercises_every_class() {
    let Ok(iverilog) = which("iverilog") else {
        panic!("iverilog not found: run `bash scripts/setup.sh` (it installs Debian's iverilog)");
    };
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fpga-stim-sim");
    std::fs::create_dir_all(&dir).unwrap();
    let sack = harness("sack").unwrap();
    let v = (sack.board_verilog)(&Board::by_name("ulx3s").unwrap(), &Config::preset("default").unwrap())
        .unwrap();
    std::fs::write(dir.join("top.v"), v).unwrap();
    std::fs::write(
        dir.join("tb.v"),
        r#"`timescale 1ns/1ps
module tb;
  reg clk = 0;
  wire [7:0] led;
  top u(.clk(clk), .led(led));
  always #5 clk = ~clk;
  integer taken = 0, uncommitted = 0;
  always @(posedge clk) if (u.harness.dut$s_valid && u.harness.dut$s_ready && !u.harness.dut$s_clear) begin
    taken = taken + 1;
    if (!u.harness.dut$s_commit) uncommitted = uncommitted + 1;
  end
  initial begin
    #200000;
    $display("STATS %0d %0d %0d %0d", u.harness.dut$stat_new, u.harness.dut$stat_duplicate,
             u.harness.dut$stat_out_of_window, u.harness.dut$stat_cleared);
    $display("COMMIT %0d %0d", taken, uncommitted);
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
    let line = text.lines().find(|l| l.starts_with("COMMIT")).unwrap_or_else(|| panic!("no COMMIT in {text}"));
    let c: Vec<u64> = line.split_whitespace().skip(1).map(|x| x.parse().expect(line)).collect();
    println!("data packets taken {}, uncommitted {}", c[0], c[1]);
    assert!(c[1] * 12 > c[0] && c[1] * 6 < c[0], "about 1 in 8 data packets uncommitted: {line}");
}

/// The port-list harness of every block it serves, at `tiny` on both boards: yosys accepts
/// the top (for rtx, path, place_chk and conn_chk the harness around a stand-in with the block's
/// ports, see below), and Icarus runs the ULX3S top for 3000 cycles: every input bit of the
/// block takes both values after the reset, the block's registered outputs change, and the
/// LEDs show more than one value (outputs reach them). Not simulated: the rtx and the path
/// table (Icarus takes minutes per thousand cycles of their one-stage apply logic; the rtx's
/// cocotb runs on Verilator for the same reason), the placement checks, the connection
/// checks and the ACK generator (their table RAMs have no initial contents, so Icarus reads
/// X, which the fold's accumulator then keeps for ever; the FPGA and Verilator start them at
/// 0: the ACK generator's small build, which `tiny` selects, reads its output queue from
/// block RAM straight into `m_*`). The harness text is the same function of the port list
/// for every block.
#[test]
fn the_port_list_harness_drives_every_input_and_folds_the_outputs_onto_the_leds() {
    yosys_on_path();
    let iverilog = which("iverilog").unwrap_or_else(|_| panic!("iverilog not found: run `bash scripts/setup.sh`"));
    let cfg = Config::preset("tiny").unwrap();
    let simulated = |name: &str| !["rtx", "path", "place_chk", "conn_chk", "ackgen"].contains(&name);
    for h in generic::ENTRIES {
        let g = generic::generated(h.name, &cfg).unwrap();
        for b in BOARDS {
            let v = (h.board_verilog)(b, &cfg).unwrap_or_else(|e| panic!("{}/{}: {e}", h.name, b.name));
            assert!(v.contains(&format!("module {TOP_MODULE}(")), "no module {TOP_MODULE}");
            // The three large blocks: their Verilog is validated on its own (hdl's
            // yosys_validate test, about a minute each for the rtx at `tiny`), so here the
            // harness goes through yosys around a stand-in with the block's port list.
            let checked = if simulated(h.name) {
                v
            } else {
                let harness = generic::harness_verilog(&g, b.leds).unwrap();
                assert_eq!(v, format!("{harness}\n{}", g.verilog), "{}: the top is the harness followed by the block", h.name);
                format!("{harness}\n{}", stand_in(&g))
            };
            if let Err(e) = yosys_validate(&format!("fpga_pl_{}_{}", h.name, b.name), &checked) {
                panic!("yosys rejects the port-list top of {} on {}: {e:?}", h.name, b.name);
            }
        }
        if !simulated(h.name) {
            continue;
        }
        let ni: usize = g.ports.iter().filter(|p| p.dir == mrnic_hdl::ports::PortDir::In && p.name != "clock" && p.name != "rst").map(|p| p.width).sum();
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fpga-pl-{}", h.name));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("top.v"), (h.board_verilog)(&Board::by_name("ulx3s").unwrap(), &cfg).unwrap()).unwrap();
        std::fs::write(
            dir.join("tb.v"),
            format!(
                r#"`timescale 1ns/1ps
module tb;
  reg clk = 0;
  wire [7:0] led;
  top u(.clk(clk), .led(led));
  always #5 clk = ~clk;
  reg [{m}:0] ones = 0, zeros = 0;
  reg [{m}:0] last_o; integer o_changes = 0, led_changes = 0, n = 0; reg [7:0] last_led;
  always @(posedge clk) begin
    n = n + 1;
    if (n > 40) begin
      ones = ones | u.chain[{m}:0];
      zeros = zeros | ~u.chain[{m}:0];
      if (u.oreg !== last_o) o_changes = o_changes + 1;
      if (led !== last_led) led_changes = led_changes + 1;
    end
    last_o = u.oreg; last_led = led;
  end
  initial begin
    #30000;
    $display("TOGGLE %0d %0d", (&ones) && (&zeros), {ni});
    $display("CHANGES %0d %0d", o_changes, led_changes);
    $finish;
  end
endmodule
"#,
                m = ni - 1
            ),
        )
        .unwrap();
        let st = std::process::Command::new(&iverilog).current_dir(&dir).args(["-g2012", "-o", "sim", "tb.v", "top.v"]).status().unwrap();
        assert!(st.success(), "iverilog failed in {}", dir.display());
        let out = std::process::Command::new(which("vvp").unwrap()).current_dir(&dir).args(["-n", "sim"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let nums = |tag: &str| -> Vec<u64> {
            let line = text.lines().find(|l| l.starts_with(tag)).unwrap_or_else(|| panic!("{}: no {tag} in {text}", h.name));
            line.split_whitespace().skip(1).map(|x| x.parse().expect(line)).collect()
        };
        let (t, c) = (nums("TOGGLE"), nums("CHANGES"));
        println!("{}: {ni} input bits, all toggled: {}; output register changed {} times, LEDs {} times in 3000 cycles", h.name, t[0] == 1, c[0], c[1]);
        assert_eq!(t[0], 1, "{}: an input bit of the block stayed constant", h.name);
        assert!(c[0] > 100, "{}: the block's outputs changed only {} times", h.name, c[0]);
        assert!(c[1] > 100, "{}: the LEDs changed only {} times", h.name, c[1]);
    }
}

/// A module with `g`'s name and port list whose outputs are 0: what the harness instantiates,
/// without the block's logic (`hierarchy -check` still matches every port by name and width).
fn stand_in(g: &mrnic_hdl::tops::Generated) -> String {
    use mrnic_hdl::ports::PortDir;
    let names: Vec<&str> = g.ports.iter().map(|p| p.name.as_str()).collect();
    let mut v = format!("module {}({});\n", g.module, names.join(", "));
    for p in &g.ports {
        v += &format!("  {} wire [{}:0] {};\n", mrnic_hdl::tops::dir_name(p.dir), p.width - 1, p.name);
        if p.dir == PortDir::Out {
            v += &format!("  assign {} = {}'d0;\n", p.name, p.width);
        }
    }
    v + "endmodule\n"
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).ok_or(())
}
