//! Test plan — scenario files: every file in `sim/scenarios` parses and
//! validates (full size and CI variant), bad values are refused with the
//! reason, and a CI-sized scenario runs and writes CSV, markdown and SVG.

use std::path::PathBuf;

use mrnic_sim::output::write_all;
use mrnic_sim::{run_scenario, Scenario};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_scenario_file_parses_and_validates_full_and_ci() {
    let v = files();
    assert!(v.len() >= 5, "expected the five experiments, found {v:?}");
    for p in &v {
        let full = Scenario::load(p, false).unwrap_or_else(|e| panic!("{e}"));
        let ci = Scenario::load(p, true).unwrap_or_else(|e| panic!("{e}"));
        assert!(!full.transports.is_empty());
        assert!(ci.points().len() <= full.points().len());
    }
    let names: Vec<String> = v.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    for want in ["loss_sweep", "path_failure", "incast", "collectives", "multiplane"] {
        assert!(names.iter().any(|n| n.contains(want)), "missing a {want} scenario in {names:?}");
    }
}

const BASE: &str = r#"
name = "t"
duration_us = 100
transports = ["roce"]
[traffic]
kind = "flows"
"#;

fn refused(extra: &str, needle: &str) {
    // put `extra` keys at the top level or in a table, by prefixing it when it names a table
    let text = if extra.starts_with('[') { format!("{BASE}{extra}") } else { format!("{extra}\n{BASE}") };
    let err = Scenario::from_toml_str(&text, false).expect_err(extra);
    assert!(err.to_string().contains(needle), "{extra:?}: error {err:?} does not mention {needle:?}");
}

#[test]
fn bad_values_are_refused_with_the_reason() {
    Scenario::from_toml_str(BASE, false).expect("the base is valid");
    refused("[topology]\nplanes = 9", "planes");
    refused("[topology]\nplanes = 0", "planes");
    refused("[topology]\nkind = \"fat_tree\"\nk = 3", "k");
    refused("[fabric]\nloss = 1.0", "fabric.loss");
    refused("[fabric]\nlink_gbps = 0", "link_gbps");
    refused("[fabric]\nbuffer_bytes = 1000", "buffer_bytes");
    refused("[fabric.ecn]\nkmin_bytes = 10\nkmax_bytes = 5", "kmin_bytes");
    refused("[fabric]\nlinkgbps = 400", "linkgbps");
    refused("[sweep]\nloss = [0.0, -0.1]", "loss");
    refused("[sweep]\nplanes = [1, 16]", "planes");
    refused("[roce]\nrto_us = 0", "rto_us");
    refused("[irn]\nrto_low_us = 500\nrto_high_us = 100", "rto_high_us");
    refused("[irn.dcqcn]\ng = 2.0", "dcqcn.g");
    refused("duration_us2 = 5", "duration_us2");
    let t = |body: &str| format!("name = \"t\"\nduration_us = 100\ntransports = [\"roce\"]\n{body}");
    let bad = |body: &str, needle: &str| {
        let err = Scenario::from_toml_str(&t(body), false).expect_err(body);
        assert!(err.to_string().contains(needle), "{body:?}: {err:?} lacks {needle:?}");
    };
    bad("[traffic]\nkind = \"incast\"\nsenders = 16", "senders");
    bad("[traffic]\nkind = \"incast\"\nreceiver = 99", "receiver");
    bad("[traffic]\nkind = \"flows\"\npattern = \"explicit\"\npairs = [[0, 0]]", "pairs");
    bad("[traffic]\nkind = \"flows\"\nmessage_bytes = 0", "message_bytes");
    bad("[traffic]\nkind = \"all_reduce\"\nhosts = 1", "hosts");
    bad("transports2 = []\n[traffic]\nkind = \"flows\"", "transports2");
    bad(
        "[traffic]\nkind = \"flows\"\n[[failures]]\nat_us = 1\nkind = \"blackhole\"\nlink = { a = \"leaf0\", b = \"leaf1\" }",
        "not adjacent",
    );
    bad(
        "[traffic]\nkind = \"flows\"\n[[failures]]\nat_us = 1\nkind = \"down\"\nlink = { a = \"leaf0\", b = \"spine99\" }",
        "spine99",
    );
    let err = Scenario::from_toml_str("name = \"t\"\nduration_us = 100\ntransports = []\n[traffic]\nkind = \"flows\"", false)
        .unwrap_err();
    assert_eq!(err.field(), Some("transports"), "{err}");
}

#[test]
fn ci_table_overrides_the_file() {
    let text = format!("{BASE}[ci]\nduration_us = 5\n[ci.topology]\nspines = 2\n");
    let full = Scenario::from_toml_str(&text, false).unwrap();
    let ci = Scenario::from_toml_str(&text, true).unwrap();
    assert_eq!(full.duration_us, 100.0);
    assert_eq!(ci.duration_us, 5.0);
    assert_eq!(ci.topology.spines, 2);
    assert_eq!(ci.topology.hosts_per_leaf, full.topology.hosts_per_leaf, "untouched keys keep their value");
}

#[test]
fn a_ci_scenario_runs_and_writes_csv_markdown_and_svg() {
    let sc = Scenario::load(&dir().join("loss_sweep.toml"), true).unwrap();
    let sc = Scenario { transports: sc.transports.into_iter().filter(|t| t.name() != "mrnic").collect(), ..sc };
    let mut reports = 0;
    let res = run_scenario(&sc, None, &mut |_| reports += 1).unwrap();
    assert!(reports >= res.records.len(), "at least a final report per run");
    assert_eq!(res.records.len(), sc.points().len() * sc.transports.len());
    let out = std::env::temp_dir().join(format!("mrnic-sim-test-{}", std::process::id()));
    let files = write_all(&res, &out).unwrap();
    let csv = std::fs::read_to_string(out.join("loss_sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), res.records.len() + 1);
    assert!(csv.starts_with("transport,loss,"));
    let md = std::fs::read_to_string(out.join("loss_sweep.md")).unwrap();
    assert!(md.contains("| loss | transport |"));
    let svg = std::fs::read_to_string(out.join("loss_sweep.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("roce") && svg.contains("irn"));
    assert!(files.iter().any(|f| f.ends_with("loss_sweep-time.svg")));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn refusals_are_typed_and_name_the_offending_field_or_file() {
    let err = Scenario::from_toml_str(&format!("{BASE}[fabric]\nmtu = 10"), false).unwrap_err();
    assert!(matches!(err, mrnic_sim::SimError::Invalid { .. }), "{err:?}");
    assert_eq!(err.field(), Some("fabric.mtu"), "{err}");
    // a bad sweep value is reported at its sweep point, still naming the field
    let err = Scenario::from_toml_str(&format!("{BASE}[sweep]\nplanes = [1, 16]"), false).unwrap_err();
    assert!(matches!(err, mrnic_sim::SimError::SweepPoint { .. }), "{err:?}");
    assert_eq!(err.field(), Some("topology.planes"), "{err}");
    assert!(err.to_string().contains("planes=16"), "{err}");
    // an unreadable scenario names its path
    let missing = dir().join("no-such-scenario.toml");
    let err = Scenario::load(&missing, false).unwrap_err();
    assert!(matches!(err, mrnic_sim::SimError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("no-such-scenario.toml"), "{err}");
}
