//! `verilator --lint-only -Wall` on the generated Verilog of every preset, with the reviewed
//! waivers in verif/lint/waivers.vlt and nothing else.

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

fn lint(preset: &str, waive: bool) -> (bool, String) {
    let t = mrnic_hdl::tops::sack_engine(&Config::preset(preset).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("mrnic-lint-{preset}-{waive}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = dir.join("sack_engine.v");
    std::fs::write(&v, &t.verilog).unwrap();
    let mut cmd = verilator_command().unwrap_or_else(|e| panic!("{e}"));
    cmd.args(["--lint-only", "-Wall", "--top-module", "top"]);
    if waive {
        cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/lint/waivers.vlt"));
    }
    let out = cmd.arg(&v).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn generated_verilog_is_lint_clean_with_the_reviewed_waivers() {
    for p in mrnic_model::config::PRESETS {
        let (ok, log) = lint(p, true);
        assert!(ok && !log.contains("%Warning"), "preset {p}:\n{log}");
    }
}

#[test]
fn the_waivers_are_needed_without_them_lint_fails_on_exactly_the_waived_rules() {
    let (ok, log) = lint("default", false);
    assert!(!ok, "lint without waivers passed: the waiver file is stale");
    for line in log.lines().filter(|l| l.starts_with("%Warning")) {
        assert!(
            line.contains("DECLFILENAME") || (line.contains("WIDTHEXPAND") && line.contains("REDOR generates 1 bits")),
            "unwaived kind of warning: {line}"
        );
    }
}
