//! Test plan — `mrnic sim --seeds` and `mrnic compare` through the binary: `--seeds 2`
//! writes `seed-1/`, `seed-2/` and the summary; a bad list and `--seeds` with `--shard` are
//! refused (exit 1 / usage error); `compare` of a directory with itself exits 0 with nothing
//! flagged, and `--fail-on-worse` exits 1 when the after goodput is lower by more than the
//! spread (exit 0 without the flag).

use std::path::Path;
use std::process::{Command, Output};

/// A four-host leaf-spine scenario that runs in well under a second (shared with the
/// other crate's seeds test).
const TINY: &str = include_str!("../../sim/tests/fixtures/seeds_tiny.toml");

fn mrnic(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrnic")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `dir` with every goodput in the per-seed CSVs scaled by `f`.
fn scaled_copy(from: &Path, to: &Path, f: f64) {
    for k in 1..=2 {
        let (a, b) = (from.join(format!("seed-{k}")), to.join(format!("seed-{k}")));
        std::fs::create_dir_all(&b).unwrap();
        let csv = std::fs::read_to_string(a.join("tiny.csv")).unwrap();
        let mut lines = csv.lines();
        let head = lines.next().unwrap();
        let g = head.split(',').position(|c| c == "goodput_gbps").unwrap();
        let mut out = format!("{head}\n");
        for l in lines {
            let mut v: Vec<String> = l.split(',').map(String::from).collect();
            v[g] = format!("{:.3}", v[g].parse::<f64>().unwrap() * f);
            out += &(v.join(",") + "\n");
        }
        std::fs::write(b.join("tiny.csv"), out).unwrap();
    }
}

#[test]
fn seeds_and_compare_through_the_binary() {
    let d = std::env::temp_dir().join(format!("mrnic-cli-seeds-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    let sc = d.join("tiny.toml");
    std::fs::write(&sc, TINY).unwrap();
    let a = d.join("a");
    let o = mrnic(&["sim".as_ref(), sc.as_os_str(), "--seeds".as_ref(), "2".as_ref(), "--quiet".as_ref(), "--out".as_ref(), a.as_os_str()]);
    assert!(o.status.success(), "{}", text(&o));
    for f in ["seed-1/tiny.csv", "seed-2/tiny.csv", "seed-2/tiny.md", "tiny.seeds.csv", "tiny.seeds.md"] {
        assert!(a.join(f).is_file(), "{f} missing: {}", text(&o));
    }
    assert!(text(&o).contains("## tiny over seeds"), "{}", text(&o));

    let bad = mrnic(&["sim".as_ref(), sc.as_os_str(), "--seeds".as_ref(), "1,x".as_ref(), "--out".as_ref(), d.join("bad").as_os_str()]);
    assert!(!bad.status.success() && text(&bad).contains("\"x\" is not a whole number"), "{}", text(&bad));
    let both = mrnic(&["sim".as_ref(), sc.as_os_str(), "--seeds".as_ref(), "2".as_ref(), "--shard".as_ref(), "1/2".as_ref()]);
    assert!(!both.status.success() && text(&both).contains("cannot be used with"), "{}", text(&both));

    let same = mrnic(&["compare".as_ref(), a.as_os_str(), a.as_os_str(), "--fail-on-worse".as_ref()]);
    assert!(same.status.success(), "{}", text(&same));
    assert!(text(&same).contains("**0 flagged WORSE**"), "{}", text(&same));

    let worse = d.join("worse");
    scaled_copy(&a, &worse, 0.5);
    let report = d.join("cmp.md");
    let o = mrnic(&["compare".as_ref(), a.as_os_str(), worse.as_os_str(), "--out".as_ref(), report.as_os_str()]);
    assert!(o.status.success(), "without --fail-on-worse: exit 0: {}", text(&o));
    let md = std::fs::read_to_string(&report).unwrap();
    assert!(md.contains("| **WORSE** |") && md.contains("goodput_gbps"), "{md}");
    let o = mrnic(&["compare".as_ref(), a.as_os_str(), worse.as_os_str(), "--fail-on-worse".as_ref()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("flagged WORSE"), "{}", text(&o));
    std::fs::remove_dir_all(&d).ok();
}
