//! `mrnic vectors --block parser|rtx`, `--rtl DIR`, `--no-resets` and `mrnic frames`, end to
//! end through the binary: the files' format, that every vector line is the kit model's
//! output for that line's inputs, the settle field, and that every frame's verdict and
//! record are the reference model's.

use mrnic_model::wire::axis::{drop_index, good_index, AxisRx, Beat, DROP_NAMES, GOOD_NAMES};
use mrnic_model::wire::parser_shell::{verdict_code, HdrRecord};
use mrnic_model::Config;
use mrnic_verif::kit::{Interface, Values};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mrnic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrnic")).args(args).output().expect("running mrnic")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mrnic-blocks-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

fn set(v: &mut Values, k: usize, x: &Value) {
    match x {
        Value::Number(n) => v.set(k, n.as_u64().unwrap()),
        Value::String(s) => {
            let h = s.strip_prefix("0x").expect("a 0x hex string");
            let words: Vec<u64> = (0..h.len().div_ceil(16))
                .map(|w| {
                    let end = h.len() - 16 * w;
                    u64::from_str_radix(&h[end.saturating_sub(16)..end], 16).unwrap()
                })
                .collect();
            v.set_wide(k, &words);
        }
        _ => panic!("{x} is neither a number nor a hex string"),
    }
}

/// Writes the vectors of `block` and checks them: the header (block, module, settle, ports of
/// the generated module), every input every cycle, and every output equal to the kit model's
/// for the line's inputs (stream payloads present exactly when their valid is 1). Returns the
/// lines.
fn check_block(block: &str, preset: &str, seed: &str, cycles: usize, extra: &[&str]) -> Vec<Value> {
    let dir = scratch(&format!("{block}-{seed}"));
    let out = dir.join("v.jsonl");
    let mut args = vec!["vectors", "--block", block, "--preset", preset, "--seed", seed, "--cycles"];
    let n = cycles.to_string();
    args.push(&n);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    ok(&mrnic(&args));
    let v = lines(&out);
    assert_eq!(v.len(), 1 + cycles);
    let cfg = Config::preset(preset).unwrap();
    let g = mrnic_hdl::tops::block(&cfg, block).unwrap();
    let h = &v[0];
    assert_eq!(h["block"].as_str(), Some(block));
    assert_eq!(h["module"].as_str(), Some(g.module.as_str()));
    assert_eq!(h["latency"].as_u64(), Some(g.latency as u64));
    assert_eq!(h["settle"].as_u64(), Some(1), "power-up: the outputs before the first reset edge are not compared");
    let ports: Vec<(String, u64)> = h["ports"].as_array().unwrap().iter().map(|p| (p["name"].as_str().unwrap().into(), p["width"].as_u64().unwrap())).collect();
    let want: Vec<(String, u64)> = g.ports.iter().map(|p| (p.name.clone(), p.width as u64)).collect();
    assert_eq!(ports, want);
    assert_eq!(v[1]["in"]["rst"], 1, "the power-up prologue starts in reset");

    let io = Interface::from_generated(block, &g).unwrap().io();
    let spec = mrnic_verif::blocks::block(block).unwrap();
    let mut model = (spec.testbench)(&cfg).unwrap().model(&io).unwrap();
    let (mut i, mut o) = (Values::new(&io.inputs), Values::new(&io.outputs));
    let mut beats = 0;
    for (c, line) in v[1..].iter().enumerate() {
        for k in 0..io.inputs.len() {
            let name = io.inputs.name(k);
            set(&mut i, k, line["in"].get(name).unwrap_or_else(|| panic!("cycle {c}: input {name} missing")));
        }
        model.step(&i, &mut o);
        for k in 0..io.outputs.len() {
            let name = io.outputs.name(k);
            let shown = line["out"].get(name);
            let gated_off = matches!(io.gate[k], Some(g) if !o.bit(g));
            if gated_off {
                assert!(shown.is_none(), "cycle {c}: {name} present while its valid is 0");
                continue;
            }
            let mut want = Values::new(&io.outputs);
            set(&mut want, k, shown.unwrap_or_else(|| panic!("cycle {c}: output {name} missing")));
            assert!(want.same(&o, k), "cycle {c}: {name} is {} in the file, the model says {}", want.show(k), o.show(k));
        }
        beats += io.out_streams.iter().filter(|s| o.bit(s.valid)).count();
    }
    assert!(beats > 0, "no output beat in {cycles} cycles");
    let _ = std::fs::remove_dir_all(&dir);
    v
}

#[test]
fn parser_vectors_are_the_kit_models_outputs_with_one_settle_cycle() {
    let v = check_block("parser", "small", "3", 3000, &[]);
    let records = v[1..].iter().filter(|l| l["out"]["m_hdr_valid"] == 1).count();
    assert!(records > 5, "{records} record cycles");
}

#[test]
fn rtx_vectors_are_the_kit_models_outputs_and_no_resets_drops_the_random_resets() {
    let v = check_block("rtx", "tiny", "4", 3000, &[]);
    assert!(v[1..].iter().any(|l| l["out"]["m_tmo_valid"] == 1) || v[1..].iter().any(|l| l["out"]["m_valid"] == 1));
    let v = check_block("rtx", "tiny", "5", 3000, &["--no-resets"]);
    let first_free = v[1..].iter().position(|l| l["in"]["rst"] == 0).unwrap();
    assert!(v[1 + first_free..].iter().all(|l| l["in"]["rst"] == 0), "a reset after the prologue with --no-resets");
    // The post-reset sweep: s_ready low for C = 16 cycles after the prologue's reset.
    let low = v[1 + first_free..].iter().take_while(|l| l["out"]["s_ready"] == 0).count();
    assert_eq!(low, 16, "the sweep after reset");
}

#[test]
fn rtl_writes_the_blocks_verilog_and_a_manifest_of_just_it() {
    let dir = scratch("rtl");
    for (block, preset) in [("rtx", "tiny"), ("parser", "small"), ("sack", "small")] {
        let d = dir.join(block);
        ok(&mrnic(&["vectors", "--block", block, "--preset", preset, "--rtl", d.to_str().unwrap()]));
        let g = mrnic_hdl::tops::block(&Config::preset(preset).unwrap(), block).unwrap();
        assert_eq!(std::fs::read_to_string(d.join(&g.file)).unwrap(), g.verilog, "{block}: the Verilog as generated");
        let m: Value = serde_json::from_str(&std::fs::read_to_string(d.join("manifest.json")).unwrap()).unwrap();
        let blocks = m["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0]["block"].as_str(), blocks[0]["module"].as_str(), blocks[0]["file"].as_str()), (Some(block), Some(g.module.as_str()), Some(g.file.as_str())));
        assert_eq!(blocks[0]["ports"].as_array().unwrap().len(), g.ports.len());
        // The kit reads it back (the cocotb runner's manifest shape).
        Interface::from_manifest(&m, block).unwrap();
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
    // Neither --out nor --rtl: refused; --no-resets on sack: refused.
    let o = mrnic(&["vectors", "--block", "rtx", "--preset", "tiny"]);
    assert!(!o.status.success());
    let o = mrnic(&["vectors", "--block", "sack", "--no-resets", "--cycles", "10", "--out", dir.join("s.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--no-resets"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn beats_of(f: &Value) -> Vec<Beat> {
    let data: Vec<u8> = {
        let h = f["data"].as_str().unwrap();
        (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap()).collect()
    };
    let keep = f["keep"].as_array().unwrap();
    let user = f["user"].as_array().unwrap();
    assert_eq!(data.len(), 8 * keep.len());
    assert_eq!(keep.len(), user.len());
    (0..keep.len())
        .map(|k| Beat { tdata: data[8 * k..8 * k + 8].to_vec(), tkeep: keep[k].as_u64().unwrap(), tlast: k + 1 == keep.len(), tuser: user[k] == 1 })
        .collect()
}

/// Every frame of a list through a fresh reference receiver: the verdict, code and record
/// the file states, and the list's counters.
fn check_list(frames: &[Value], counters: &Value) {
    let mut rx = AxisRx::new(8).unwrap();
    for f in frames {
        let mut v = None;
        for b in beats_of(f) {
            v = rx.push(&b);
        }
        let v = v.unwrap();
        let name = match &v {
            Ok(_) => "good",
            Err(d) => DROP_NAMES[drop_index(d)],
        };
        assert_eq!(f["verdict"].as_str(), Some(name), "{}", f["name"]);
        assert_eq!(f["code"].as_u64(), Some(verdict_code(&v) as u64));
        // the frame buffer keeps exactly the good WRITE / SEND frames with a payload
        let keep = matches!(&v, Ok(fr) if (fr.opcode() == mrnic_model::wire::opcode::WRITE || fr.opcode() == mrnic_model::wire::opcode::SEND) && HdrRecord::of(fr).length > 0);
        assert_eq!(f["vrd_keep"].as_u64(), Some(keep as u64), "{}: vrd_keep", f["name"]);
        match &v {
            Ok(fr) => {
                let r = HdrRecord::of(fr);
                assert_eq!(f["record"]["psn"].as_u64(), Some(r.psn as u64));
                assert_eq!(f["record"]["dest_qp"].as_u64(), Some(r.dest_qp as u64));
                assert_eq!(f["record"]["va"].as_u64(), Some(r.va));
                assert_eq!(f["record"]["opcode"].as_u64(), Some(r.opcode as u64));
                assert!(f["intent"].as_str().is_none_or(|i| i == GOOD_NAMES[good_index(fr.opcode()).unwrap()]), "{}", f["name"]);
            }
            Err(_) => {
                assert!(f["record"].is_null());
                assert!(f["intent"].as_str().is_none_or(|i| i == name), "{}", f["name"]);
            }
        }
    }
    for (n, x) in rx.counters().list() {
        assert_eq!(counters[n].as_u64(), Some(x as u64), "counter {n}");
    }
}

#[test]
fn frames_carry_the_reference_models_verdicts_and_cover_every_drop_reason() {
    let dir = scratch("frames");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    ok(&mrnic(&["frames", "--seed", "2", "--random", "80", "--out", a.to_str().unwrap()]));
    ok(&mrnic(&["frames", "--seed", "2", "--random", "80", "--out", b.to_str().unwrap()]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "same seed, same frames");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let directed = doc["directed"].as_array().unwrap();
    let random = doc["random"].as_array().unwrap();
    assert_eq!(random.len(), 80);
    check_list(directed, &doc["counters_directed"]);
    check_list(random, &doc["counters_random"]);
    // The directed list provokes every drop reason and every good opcode.
    for n in DROP_NAMES {
        assert!(directed.iter().any(|f| f["verdict"] == n), "no directed frame for {n}");
    }
    for n in GOOD_NAMES {
        assert!(directed.iter().any(|f| f["intent"] == n && f["verdict"] == "good"), "no directed {n}");
    }
    assert!(directed.iter().all(|f| f["intent"].is_string()));
    for (kept, what) in [(1, "kept"), (0, "refused")] {
        assert!(directed.iter().any(|f| f["verdict"] == "good" && f["vrd_keep"] == kept), "no good directed frame the buffer {what}");
    }
    let good = random.iter().filter(|f| f["verdict"] == "good").count();
    assert!(good > 10 && good < 70, "{good} of 80 random frames good");
    // --random above the limit: refused, no file.
    let c = dir.join("c.json");
    let o = mrnic(&["frames", "--random", "100001", "--out", c.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("limit"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!c.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
