//! Test plan — the `mrnic` command line as a new user meets it (runs the built binary):
//! - `gen` writes every block of the configuration and one manifest listing them (key
//!   `blocks`), `--block NAME` picks one, an unknown name is refused listing the blocks;
//! - `gen` is all-or-nothing: when the manifest cannot be written no `.v` is left either;
//! - I/O errors name the path (provoked with an output path under a regular file, since
//!   tests may run as root, where a read-only directory does not stop writes);
//! - `pcap --trace` equal to `--out` (however spelled) is refused, `--trace`'s parent
//!   directory is created, and a failing `--trace` leaves no pcap and prints no "wrote";
//! - `sim --out` is checked before any run starts;
//! - `sim --shard` is validated; `merge` refuses a non-shard directory and a `verify`
//!   shard with a clear reason;
//! - `verify` against another implementation exits 0 when it complies (transaction mode)
//!   and 1 with the diff, the waveform and the reproducing command when it does not;
//! - `presets` lists every preset; `budget` exits 0 when the configuration fits and 1 naming
//!   the device and the shortfall when it does not (`--json`, `--summary`, unknown device).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mrnic(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mrnic"));
    for a in args {
        c.arg(a);
    }
    c.output().unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mrnic-cli-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Names in `dir` (sorted), to check nothing else was left behind (no staging directory).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn gen_writes_every_block_and_one_manifest_listing_them_and_block_picks_one() {
    let d = tmp("gen");
    let out = d.join("all");
    let o = mrnic(&[&"gen", &"--preset", &"small", &"--out", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&out);
    assert!(m.get("tops").is_none(), "the manifest's key is `blocks`");
    let blocks = m["blocks"].as_array().expect("a `blocks` list");
    assert!(!blocks.is_empty());
    let mut want = vec!["manifest.json".to_string()];
    for b in blocks {
        for key in ["block", "module", "file", "latency", "parameters", "ports"] {
            assert!(b.get(key).is_some(), "manifest entry lacks {key}: {b}");
        }
        let file = b["file"].as_str().unwrap();
        let v = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(v.contains(&format!("module {}", b["module"].as_str().unwrap())), "{file} lacks its module");
        want.push(file.to_string());
    }
    want.sort();
    assert_eq!(names(&out), want, "exactly the blocks and the manifest, nothing staged left over");

    // --block NAME: just that block
    let first = blocks[0]["block"].as_str().unwrap().to_string();
    let one = d.join("one");
    let o = mrnic(&[&"gen", &"--preset", &"small", &"--block", &first, &"--out", &one]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m1 = manifest(&one);
    assert_eq!(m1["blocks"].as_array().unwrap().len(), 1);
    assert_eq!(m1["blocks"][0]["block"], first.as_str());

    // an unknown block is refused, listing the blocks, and nothing is written
    let none = d.join("none");
    let o = mrnic(&[&"gen", &"--preset", &"small", &"--block", &"no_such_block", &"--out", &none]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("unknown block \"no_such_block\"") && e.contains(&first), "{e}");
    assert!(!none.exists(), "a refused gen created {}", none.display());

    // a receive-path block, generated one at a time, by name
    let rx = d.join("rx");
    let o = mrnic(&[&"gen", &"--preset", &"core", &"--block", &"ackgen", &"--out", &rx]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&rx);
    assert_eq!(m["blocks"].as_array().unwrap().len(), 1);
    assert_eq!(m["blocks"][0]["block"], "ackgen");
    let v = std::fs::read_to_string(rx.join("mrnic_ackgen.v")).unwrap();
    assert!(v.contains("module mrnic_ackgen("), "{}", &v[..200.min(v.len())]);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn gen_never_leaves_verilog_without_its_manifest() {
    let d = tmp("gen-partial");
    let out = d.join("out");
    // the manifest cannot be written: a directory is in its way
    std::fs::create_dir_all(out.join("manifest.json")).unwrap();
    let o = mrnic(&[&"gen", &"--preset", &"small", &"--out", &out]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains(&out.join("manifest.json").display().to_string()), "the error names the manifest: {e}");
    assert_eq!(names(&out), vec!["manifest.json"], "a .v was written without its manifest (or a staging dir left)");
    assert!(!stdout(&o).contains("wrote"), "{}", stdout(&o));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn io_errors_name_the_path() {
    let d = tmp("io");
    let file = d.join("a-regular-file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("sub");
    for args in [
        vec!["gen", "--preset", "small", "--out"],
        vec!["pcap", "--out"],
        vec!["sim", "../sim/scenarios/loss_sweep.toml", "--ci", "--out"],
    ] {
        let target = if args[0] == "pcap" { under.join("x.pcap") } else { under.clone() };
        let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|s| s as &dyn AsRef<std::ffi::OsStr>).collect();
        a.push(&target);
        let o = mrnic(&a);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(&under.display().to_string()), "{args:?}: the error does not name the path: {e}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn pcap_refuses_trace_equal_to_out_creates_its_dir_and_writes_both_or_neither() {
    let d = tmp("pcap");
    // the same file, spelled differently
    let out = d.join("x.pcap");
    let same = d.join("sub").join("..").join(".").join("x.pcap");
    let o = mrnic(&[&"pcap", &"--out", &out, &"--trace", &same]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("same file"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing is written when refused");

    // --trace's parent directory is created
    let trace = d.join("deep").join("er").join("x.jsonl");
    let o = mrnic(&[&"pcap", &"--out", &out, &"--trace", &trace]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata(&out).unwrap().len() > 24);
    let lines = std::fs::read_to_string(&trace).unwrap().lines().count();
    assert!(lines >= 10, "{lines} trace lines");
    assert_eq!(names(&d), vec!["deep", "x.pcap"], "no staging directory left");

    // a --trace that cannot be written: no pcap, no "wrote"
    let blocker = d.join("blocker");
    std::fs::write(&blocker, "x").unwrap();
    let out2 = d.join("y.pcap");
    let o = mrnic(&[&"pcap", &"--out", &out2, &"--trace", &blocker.join("t.jsonl")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains(&blocker.display().to_string()), "{}", stderr(&o));
    assert!(!out2.exists(), "the pcap was written though --trace failed");
    assert!(!stdout(&o).contains("wrote"), "{}", stdout(&o));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn sim_checks_out_before_any_run() {
    let d = tmp("sim-out");
    let file = d.join("f");
    std::fs::write(&file, "x").unwrap();
    // the full-size fat-tree sweep takes minutes; refused in well under a second
    let t = std::time::Instant::now();
    let o = mrnic(&[&"sim", &"../sim/scenarios/loss_sweep_fattree.toml", &"--out", &file.join("out")]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains(&file.join("out").display().to_string()), "{e}");
    assert!(!e.contains("runs on"), "runs started before --out was checked: {e}");
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn sim_shard_and_merge_refuse_bad_input_with_the_reason() {
    let d = tmp("shard-args");
    for bad in ["0/4", "5/4", "4", "x/4"] {
        let o = mrnic(&[&"sim", &"../sim/scenarios/loss_sweep.toml", &"--ci", &"--shard", &bad, &"--out", &d]);
        assert!(!o.status.success(), "{bad}");
        assert!(stderr(&o).contains(bad), "{bad}: {}", stderr(&o));
    }
    // not a shard directory
    let o = mrnic(&[&"merge", &"--out", &d.join("m"), &d.join("nothing")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a shard directory") && stderr(&o).contains("nothing"), "{}", stderr(&o));
    // a verify shard goes to mrnic verify's merge, which refuses a malformed one naming the file
    let v = d.join("v1");
    std::fs::create_dir_all(&v).unwrap();
    std::fs::write(v.join("shard.json"), r#"{"kind": "verify"}"#).unwrap();
    let o = mrnic(&[&"merge", &"--out", &d.join("m"), &v]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("v1/shard.json") && stderr(&o).contains("missing field"), "{}", stderr(&o));
    // shards of different kinds
    let s = d.join("s1");
    std::fs::create_dir_all(&s).unwrap();
    std::fs::write(s.join("shard.json"), r#"{"kind": "sim"}"#).unwrap();
    let o = mrnic(&[&"merge", &"--out", &d.join("m"), &s, &v]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("different kinds"), "{}", stderr(&o));
    assert!(!d.join("m").exists());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn verify_passes_a_compliant_implementation_and_exits_1_with_the_reproducing_command_otherwise() {
    let d = tmp("verify");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../verif/fixtures/sack_behavioural.v");
    // latency 2 (the generated engine has 4): transaction mode accepts it
    let o = mrnic(&[&"verify", &"--block", &"sack", &"--preset", &"small", &"--verilog", &fixture, &"--only", &"random-s1", &"--cycles", &"20000", &"--out", &d.join("txn")]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("PASS: 1 of 1 jobs passed"), "{}", stdout(&o));
    assert!(d.join("txn/report.md").is_file() && d.join("txn/report.json").is_file());
    // cycle-exact mode does not: exit 1, the named diff, the waveform and the command
    let o = mrnic(&[&"verify", &"--block", &"sack", &"--preset", &"small", &"--verilog", &fixture, &"--mode", &"cycle", &"--only", &"random-s1", &"--cycles", &"20000", &"--out", &d.join("cyc")]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("cycle-exact mismatch: seed 1") && out.contains("waveform: ") && out.contains("reproduce: mrnic verify --block sack"), "{out}");
    assert!(stderr(&o).contains("verification failed"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).ok();
}

/// `mrnic presets` lists every preset with its sizes and purpose; `mrnic budget` prints the
/// budget and exits 0 when the configuration fits, 1 naming the device and the shortfall when
/// it does not; `--json` is the same budget as JSON; an unknown device is refused.
#[test]
fn presets_and_budget_name_every_preset_and_refuse_what_does_not_fit() {
    let o = mrnic(&[&"presets"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for p in mrnic_model::config::PRESETS {
        let c = mrnic_model::Config::preset(p).unwrap();
        let line = stdout(&o).lines().find(|l| l.starts_with(&format!("{p} "))).unwrap_or_else(|| panic!("{p} not listed")).to_string();
        assert!(line.contains(&format!("connections={}", c.connections)) && line.contains(&format!("paths={}", c.transport.paths)), "{line}");
    }

    let o = mrnic(&[&"budget", &"--preset", &"tiny", &"--device", &"up5k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| iCE40 UP5K |") && stdout(&o).contains("| sack | bitmap |"), "{}", stdout(&o));

    let o = mrnic(&[&"budget", &"--preset", &"core", &"--device", &"ecp5-85f"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = mrnic(&[&"budget", &"--preset", &"core", &"--device", &"up5k"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("configuration \"core\" does not fit iCE40 UP5K") && e.contains("EBR of 30") && e.contains("short"), "{e}");

    let o = mrnic(&[&"budget", &"--preset", &"default"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("fits no device"), "{}", stderr(&o));

    let o = mrnic(&[&"budget", &"--preset", &"tiny", &"--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["config"], "tiny");
    assert_eq!(v["sizes"]["connections"], 16);
    assert!(v["fits"].as_array().unwrap().iter().any(|f| f["device"]["key"] == "up5k" && f["fits"] == true));

    let o = mrnic(&[&"budget", &"--summary"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), mrnic_model::budget::summary_markdown());

    let o = mrnic(&[&"budget", &"--preset", &"tiny", &"--device", &"xc7"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unknown device \"xc7\": the devices are ecp5-85f, up5k") && stdout(&o).is_empty(), "{}", stderr(&o));
}

/// `mrnic mutants` prints every kit mutant of a block as JSON (name, from, to), each pattern
/// occurring once in the block's generated Verilog (what the cocotb mutant tests apply), and
/// refuses an unknown block naming the known ones.
#[test]
fn mutants_lists_a_blocks_kit_mutants_whose_patterns_occur_once_and_refuses_unknown_blocks() {
    let o = mrnic(&[&"mutants", &"--block", &"placement"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = rows.as_array().unwrap();
    let want = mrnic_verif::blocks::block("placement").unwrap();
    assert_eq!(rows.len(), (want.mutants)().len());
    let dir = tmp("mutants-rtl");
    let g = mrnic(&[&"vectors", &"--block", &"placement", &"--preset", &"core", &"--cycles", &"1", &"--out", &dir.join("v.jsonl"), &"--rtl", &dir]);
    assert!(g.status.success(), "{}", stderr(&g));
    let v = std::fs::read_to_string(dir.join("mrnic_placement.v")).unwrap();
    for m in rows {
        let (name, from, to) = (m["name"].as_str().unwrap(), m["from"].as_str().unwrap(), m["to"].as_str().unwrap());
        assert_eq!(v.matches(from).count(), 1, "{name}: {from:?}");
        assert_ne!(from, to, "{name}");
    }
    assert!(rows.iter().any(|m| m["name"] == "burst_crosses_4k_by_one_beat"));
    let bad = mrnic(&[&"mutants", &"--block", &"nope"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("unknown block \"nope\"") && stderr(&bad).contains("placement"), "{}", stderr(&bad));
}
