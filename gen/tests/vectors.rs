//! `mrnic vectors`, end to end through the binary: the JSON Lines format (a header, then one
//! line per cycle with every port), that the lines are the golden model's outputs for the
//! lines' inputs, the `--cycles` bound, and the file handling (directory created, all or
//! nothing, errors that name the path).

use mrnic_model::sack::{Bitmap, SackInputs, SackShell};
use mrnic_model::Config;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mrnic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrnic")).args(args).output().expect("running mrnic")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mrnic-vectors-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn num(v: &Value, port: &str) -> u64 {
    v[port].as_u64().unwrap_or_else(|| panic!("{port} is not a number in {v}"))
}

#[test]
fn vectors_are_a_header_then_one_line_per_cycle_with_every_port_equal_to_the_model() {
    let dir = scratch("format");
    let out = dir.join("not/yet/there/v.jsonl"); // a missing parent directory is created
    let o = mrnic(&["vectors", "--preset", "small", "--seed", "5", "--cycles", "3000", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = lines(&out);
    assert_eq!(v.len(), 1 + 3000, "header + one line per cycle");

    // The header: the block, its ports exactly as the generator reports them, its streams.
    let cfg = Config::preset("small").unwrap();
    let g = mrnic_hdl::tops::sack_engine(&cfg).unwrap();
    let h = &v[0];
    assert_eq!((h["block"].as_str(), h["seed"].as_u64(), h["cycles"].as_u64()), (Some("sack"), Some(5), Some(3000)));
    assert_eq!(h["module"].as_str(), Some(g.module.as_str()));
    assert_eq!(h["latency"].as_u64(), Some(g.latency as u64));
    assert_eq!(h["config"]["connections"].as_u64(), Some(16));
    let ports: Vec<(String, u64, String)> = h["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().into(), p["width"].as_u64().unwrap(), p["direction"].as_str().unwrap().into()))
        .collect();
    let want: Vec<(String, u64, String)> =
        g.ports.iter().map(|p| (p.name.clone(), p.width as u64, mrnic_hdl::tops::dir_name(p.dir).into())).collect();
    assert_eq!(ports, want);
    let streams = h["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2);
    assert_eq!(streams[1]["name"], "m");
    assert_eq!(streams[1]["dir"], "output");
    assert_eq!(streams[1]["payload"].as_array().unwrap().len(), 5);

    // Every cycle: every input but the clock, every output; the m payload only while m_valid.
    let inputs: Vec<&str> = want.iter().filter(|p| p.2 == "input" && p.0 != "clock").map(|p| p.0.as_str()).collect();
    let always: Vec<&str> = want.iter().filter(|p| p.2 == "output" && !p.0.starts_with("m_") || p.0 == "m_valid").map(|p| p.0.as_str()).collect();
    let payload = ["m_conn", "m_psn", "m_class", "m_base", "m_bitmap"];
    let mut model = SackShell::new(16, 256);
    let (mut beats, mut uncommitted) = (0, 0);
    for (k, line) in v[1..].iter().enumerate() {
        let (i, o) = (&line["in"], &line["out"]);
        assert_eq!(i.as_object().unwrap().len(), inputs.len(), "cycle {k}: {i}");
        for p in &inputs {
            assert!(i.get(p).is_some(), "cycle {k}: input {p} missing");
        }
        let valid = num(o, "m_valid") == 1;
        assert_eq!(o.as_object().unwrap().len(), always.len() + if valid { payload.len() } else { 0 }, "cycle {k}: {o}");
        // The line's outputs are the golden model's for the line's inputs.
        let si = SackInputs {
            rst: num(i, "rst") == 1,
            s_valid: num(i, "s_valid") == 1,
            s_conn: num(i, "s_conn") as u32,
            s_psn: num(i, "s_psn") as u32,
            s_clear: num(i, "s_clear") == 1,
            s_commit: num(i, "s_commit") == 1,
            m_ready: num(i, "m_ready") == 1,
        };
        uncommitted += (si.s_valid && !si.s_clear && !si.s_commit) as u64;
        let mo = model.step(&si);
        assert_eq!(num(o, "s_ready") == 1, mo.s_ready, "cycle {k}");
        assert_eq!(
            [num(o, "stat_new"), num(o, "stat_duplicate"), num(o, "stat_out_of_window"), num(o, "stat_cleared")],
            [mo.stats.new as u64, mo.stats.duplicate as u64, mo.stats.out_of_window as u64, mo.stats.cleared as u64],
            "cycle {k}"
        );
        assert_eq!(valid, mo.m.is_some(), "cycle {k}");
        if let Some(m) = mo.m {
            beats += 1;
            assert_eq!(
                [num(o, "m_conn"), num(o, "m_psn"), num(o, "m_class"), num(o, "m_base")],
                [m.conn as u64, m.psn as u64, m.result.class.code() as u64, m.result.base as u64],
                "cycle {k}"
            );
            // 256 bits: a hex string with every digit of the width.
            let hex = o["m_bitmap"].as_str().expect("m_bitmap wider than 64 bits is a hex string");
            assert_eq!(hex, format!("0x{}", m.result.bitmap.to_hex(256)), "cycle {k}");
            assert_eq!(hex.len(), 2 + 64);
        }
    }
    assert!(beats > 1000, "only {beats} output beats in 3000 cycles");
    assert!(uncommitted > 50, "only {uncommitted} uncommitted packets offered in 3000 cycles");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_64_bit_bitmap_is_a_number_and_the_same_seed_gives_the_same_bytes() {
    let dir = scratch("ice40");
    let (a, b, c) = (dir.join("a.jsonl"), dir.join("b.jsonl"), dir.join("c.jsonl"));
    for (p, seed) in [(&a, "9"), (&b, "9"), (&c, "10")] {
        let o = mrnic(&["vectors", "--preset", "ice40", "--seed", seed, "--cycles", "500", "--out", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (ta, tb, tc) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), std::fs::read(&c).unwrap());
    assert_eq!(ta, tb, "same seed, same vectors");
    assert_ne!(ta, tc, "another seed, other vectors");
    let v = lines(&a);
    let beat = v[1..].iter().find(|l| l["out"]["m_valid"] == 1 && l["out"]["m_bitmap"] != 0).expect("a beat with a bitmap");
    let bm = beat["out"]["m_bitmap"].as_u64().expect("a 64-bit port is a JSON number");
    assert_eq!(format!("{bm:016x}"), Bitmap([bm, 0, 0, 0]).to_hex(64));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cycles_above_the_limit_or_zero_are_refused_with_the_reason_and_no_file() {
    let dir = scratch("bound");
    let out = dir.join("v.jsonl");
    for n in ["10000001", "1099511627776", &u64::MAX.to_string(), "0"] {
        let o = mrnic(&["vectors", "--cycles", n, "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "--cycles {n}: an error, not a panic (101): {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("--cycles") && !e.contains("panicked"), "--cycles {n}: {e}");
        if n != "0" {
            assert!(e.contains("limit of 10000000") && e.contains("bytes"), "--cycles {n}: the limit and why: {e}");
        }
        assert!(!out.exists(), "--cycles {n} left a file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_outputs_and_blocks_are_clear_errors_naming_the_path_and_leave_the_old_file_intact() {
    let dir = scratch("errors");
    std::fs::create_dir_all(&dir).unwrap();
    // A parent that is a file.
    let file = dir.join("plain");
    std::fs::write(&file, "x").unwrap();
    let o = mrnic(&["vectors", "--cycles", "10", "--out", file.join("v.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(file.to_str().unwrap()), "names the path: {}", stderr(&o));
    // --out is a directory.
    let o = mrnic(&["vectors", "--cycles", "10", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(dir.to_str().unwrap()) && stderr(&o).contains("directory"), "{}", stderr(&o));
    // An unknown block: refused with the known ones, and an existing output stays as it was.
    let out = dir.join("old.jsonl");
    std::fs::write(&out, "old").unwrap();
    let o = mrnic(&["vectors", "--block", "dma", "--cycles", "10", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("\"dma\"") && stderr(&o).contains("sack"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    // An unknown preset: refused, the old file intact.
    let o = mrnic(&["vectors", "--preset", "nope", "--cycles", "10", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    // A good run replaces it in one rename and leaves no temporary file behind.
    let o = mrnic(&["vectors", "--cycles", "10", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 11);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "temporary file left: {names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
