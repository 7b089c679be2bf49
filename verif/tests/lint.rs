//! `verilator --lint-only -Wall` on the generated Verilog of every block of every preset, in
//! its own file (`mrnic_<block>.v`, top module `mrnic_<block>`), with the reviewed waivers in
//! verif/lint/waivers.vlt and nothing else.

use mrnic_model::Config;
use std::process::Command;

fn verilator_command() -> Result<Command, String> {
    let v = mrnic_verif::vl::verilator().map_err(|e| e.to_string())?;
    let mut c = Command::new(&v.bin);
    if let Some(r) = &v.root {
        c.env("VERILATOR_ROOT", r);
    }
    Ok(c)
}

/// Lints every block of `preset`; returns (all passed, the combined log).
fn lint(preset: &str, waive: bool) -> (bool, String) {
    let blocks = mrnic_hdl::tops::generate_all(&Config::preset(preset).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("mrnic-lint-{preset}-{waive}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut ok, mut log) = (true, String::new());
    for t in &blocks {
        let v = dir.join(&t.file);
        std::fs::write(&v, &t.verilog).unwrap();
        let mut cmd = verilator_command().unwrap_or_else(|e| panic!("{e}"));
        cmd.args(["--lint-only", "-Wall", "--top-module", &t.module]);
        if waive {
            cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lint/waivers.vlt"));
        }
        let out = cmd.arg(&v).output().unwrap();
        ok &= out.status.success();
        log.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
    (ok, log)
}

/// Every block of every preset (the SACK engine, the parser, the retransmit queue at W = 64
/// and W = 256, the placement check unit), each in its own file, with the reviewed waivers.
/// The presets are linted side by side, one thread each: the retransmit queue at `default`
/// and `small` (256 records) takes Verilator about a minute each, the rest seconds.
#[test]
fn generated_verilog_is_lint_clean_with_the_reviewed_waivers() {
    let results: Vec<(&str, (bool, String))> = std::thread::scope(|s| {
        let jobs: Vec<_> = mrnic_model::config::PRESETS.iter().map(|&p| (p, s.spawn(move || lint(p, true)))).collect();
        jobs.into_iter().map(|(p, j)| (p, j.join().expect("lint thread"))).collect()
    });
    for (p, (ok, log)) in results {
        assert!(ok && !log.contains("%Warning"), "preset {p}:\n{log}");
    }
}

/// The DMA placement unit's write path (`tops::block(cfg, "placement")`, not yet in
/// `tops::BLOCKS`), in its own file `mrnic_placement.v`, with the reviewed waivers: no
/// warning at all (WIDTH included).
#[test]
fn placement_generated_verilog_is_lint_clean() {
    let t = mrnic_hdl::tops::block(&Config::preset("core").unwrap(), "placement").unwrap();
    let dir = std::env::temp_dir().join(format!("mrnic-lint-placement-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = dir.join(&t.file);
    std::fs::write(&v, &t.verilog).unwrap();
    let mut cmd = verilator_command().unwrap_or_else(|e| panic!("{e}"));
    cmd.args(["--lint-only", "-Wall", "--top-module", &t.module]);
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lint/waivers.vlt"));
    let out = cmd.arg(&v).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !log.contains("%Warning"), "{log}");
}

/// Lints one primitive's generated Verilog (top `mrnic_prim_<name>`) with the waivers.
fn lint_prim<U: rust_hdl::prelude::Block>(mut uut: U, name: &str) -> (bool, String) {
    uut.connect_all();
    let module = format!("mrnic_prim_{name}");
    let verilog = mrnic_hdl::verilog::generate(&uut, &module).unwrap();
    let v = std::env::temp_dir().join(format!("{module}-{}.v", std::process::id()));
    std::fs::write(&v, verilog).unwrap();
    let mut cmd = verilator_command().unwrap_or_else(|e| panic!("{e}"));
    cmd.args(["--lint-only", "-Wall", "-Wno-DECLFILENAME", "--top-module", &module]);
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lint/waivers.vlt"));
    let out = cmd.arg(&v).output().unwrap();
    std::fs::remove_file(&v).ok();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_byte_strobe_primitive_of_the_placement_unit_is_lint_clean_at_every_axi_width() {
    use mrnic_hdl::prim::ByteStrobes;
    for (ok, log) in [
        lint_prim(ByteStrobes::<8>::new(), "strobes8"),
        lint_prim(ByteStrobes::<16>::new(), "strobes16"),
        lint_prim(ByteStrobes::<32>::new(), "strobes32"),
        lint_prim(ByteStrobes::<64>::new(), "strobes64"),
    ] {
        assert!(ok && !log.contains("%Warning"), "{log}");
    }
}

#[test]
fn the_checksum_primitives_of_the_receive_path_are_lint_clean_at_every_parser_width() {
    use mrnic_hdl::prim::{Crc32Stream, OnesSum};
    for (ok, log) in [
        lint_prim(Crc32Stream::<64>::new(0xDEBB_20E3), "crcstream64"),
        lint_prim(Crc32Stream::<128>::new(0xDEBB_20E3), "crcstream128"),
        lint_prim(Crc32Stream::<256>::new(0xDEBB_20E3), "crcstream256"),
        lint_prim(Crc32Stream::<512>::new(0xDEBB_20E3), "crcstream512"),
        lint_prim(OnesSum::<64, 8>::new(), "onessum64"),
        lint_prim(OnesSum::<128, 16>::new(), "onessum128"),
        lint_prim(OnesSum::<256, 32>::new(), "onessum256"),
        lint_prim(OnesSum::<512, 64>::new(), "onessum512"),
    ] {
        assert!(ok && !log.contains("%Warning"), "{log}");
    }
}

#[test]
fn the_waivers_are_needed_without_them_lint_fails_on_exactly_the_waived_rules() {
    // `core` (16 records: the retransmit queue's pairwise variant, so the walk's temporaries
    // are the unused ones) lints in a third of `default`'s time (256 records, the walk).
    let (ok, log) = lint("core", false);
    assert!(!ok, "lint without waivers passed: the waiver file is stale");
    let warnings: Vec<&str> = log.lines().filter(|l| l.starts_with("%Warning")).collect();
    for line in &warnings {
        let declfilename_of_a_submodule = line.contains("DECLFILENAME") && line.contains("MODULE name: 'mrnic_") && line.contains('$');
        let widening_bit_cast = line.contains("WIDTHEXPAND") && line.contains("Operator AND expects") && line.contains("bits on the LHS, but LHS's");
        let parser_header_bytes_not_read = line.contains("UNUSEDSIGNAL") && line.contains("mrnic_parser.v") && line.contains("'hdr_norm'");
        let ram_array_hides_instance = line.contains("VARHIDDEN") && line.contains("'mem'");
        let path_fields_not_read = line.contains("UNUSEDSIGNAL")
            && line.contains("mrnic_path.v")
            && ["d_close", "d_cut", "d_first", "d_last", "d_hap", "d_sent", "t_d32", "r18", "r23", "r24", "r25", "t_row", "t_cw", "rt_s8", "rt_f8", "rt_f4", "rt_v4"]
                .iter()
                .any(|n| line.contains(&format!("not used: '{n}'")));
        let rtx_other_search_variant = line.contains("UNUSEDSIGNAL")
            && line.contains("mrnic_rtx.v")
            && ["c_v1", "c_v2", "c_vq", "cut_key", "has_pass", "u_ppk", "t_key", "bt_f1", "bt_f2", "bt_l1", "bt_l2", "bt_q", "t_di", "t_ohj", "t_ohi", "g_pi", "g_pj", "g_ohl", "t_lt", "g_dd", "g_pd", "g_key", "l_di", "l_dj", "l_ohl"]
                .iter()
                .any(|n| line.contains(&format!("not used: '{n}'")));
        assert!(
            declfilename_of_a_submodule || widening_bit_cast || parser_header_bytes_not_read || ram_array_hides_instance || path_fields_not_read || rtx_other_search_variant,
            "unwaived kind of warning: {line}"
        );
    }
    // The top module itself matches its file name: no DECLFILENAME for it.
    assert!(
        !warnings.iter().any(|l| l.contains("DECLFILENAME") && l.contains("MODULE name: 'mrnic_sack'")),
        "the top module's name must match its file:\n{log}"
    );
}
