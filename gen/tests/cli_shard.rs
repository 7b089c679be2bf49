//! Test plan — `mrnic sim --shard K/N` + `mrnic merge` through the binary, as separate
//! processes the way a Slurm array or a CI matrix runs them: the four shards of the
//! loss sweep's `[ci]` variant (6 points: 2 + 2 + 1 + 1), merged, give the same files as
//! the unsharded run, byte for byte except the CSV's wall-clock column (`wall_s`, each
//! run's own measured time), which is the shards' own value.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&std::ffi::OsStr]) {
    let o = Command::new(env!("CARGO_BIN_EXE_mrnic")).args(args).output().unwrap();
    assert!(o.status.success(), "mrnic {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "shard.json")
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// The CSV's rows without the last column (`wall_s`).
fn without_wall(csv: &[u8]) -> Vec<String> {
    let s = String::from_utf8(csv.to_vec()).unwrap();
    s.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect()
}

#[test]
fn four_shards_merged_equal_the_unsharded_run() {
    let d = std::env::temp_dir().join(format!("mrnic-cli-shard-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    let sc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim/scenarios/loss_sweep.toml");
    let one = d.join("one");
    run(&[&*"sim".as_ref(), sc.as_os_str(), "--ci".as_ref(), "--quiet".as_ref(), "--out".as_ref(), one.as_os_str()]);
    let mut shards = Vec::new();
    for k in 1..=4 {
        let dir = d.join(format!("shard-{k}"));
        let spec = format!("{k}/4");
        run(&["sim".as_ref(), sc.as_os_str(), "--ci".as_ref(), "--quiet".as_ref(), "--shard".as_ref(), spec.as_ref(), "--out".as_ref(), dir.as_os_str()]);
        let sj: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("shard.json")).unwrap()).unwrap();
        assert_eq!(sj["kind"], "sim");
        assert_eq!(sj["scenario"], "loss_sweep");
        assert_eq!(sj["shard"]["index"], k);
        assert_eq!(sj["points"].as_array().unwrap().len(), if k <= 2 { 2 } else { 1 }, "{spec}");
        shards.push(dir);
    }
    let merged = d.join("merged");
    let mut args: Vec<&std::ffi::OsStr> = vec!["merge".as_ref(), "--out".as_ref(), merged.as_os_str()];
    // any order
    for s in shards.iter().rev() {
        args.push(s.as_os_str());
    }
    run(&args);
    let (mut a, b) = (files(&one), files(&merged));
    // The per-flow goodput series (`NAME-flows.csv/.svg`, runs of at most 8 connections) come
    // from the run's own per-flow bins, which shard files do not carry: an unsharded run
    // writes them, a merge cannot (sim/README.md). Everything else must be equal.
    let per_flow = |n: &str| n.ends_with("-flows.csv") || n.ends_with("-flows.svg");
    assert_eq!(a.iter().filter(|x| per_flow(&x.0)).count(), 2, "the unsharded run writes its per-flow series");
    assert!(!b.iter().any(|x| per_flow(&x.0)), "a merge writes no per-flow series");
    a.retain(|x| !per_flow(&x.0));
    assert_eq!(a.iter().map(|x| &x.0).collect::<Vec<_>>(), b.iter().map(|x| &x.0).collect::<Vec<_>>());
    assert!(a.len() >= 5, "{:?}", a.iter().map(|x| &x.0).collect::<Vec<_>>());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        if name == "loss_sweep.csv" {
            assert_eq!(without_wall(x), without_wall(y), "{name} differs beyond wall_s");
        } else {
            assert!(x == y, "{name} differs between the unsharded run and the merged shards");
        }
    }
    // the merged wall_s values are the shards' own: every merged row is a row of a shard's CSV
    let shard_rows: Vec<String> =
        shards.iter().flat_map(|s| String::from_utf8(std::fs::read(s.join("loss_sweep.csv")).unwrap()).unwrap().lines().map(String::from).collect::<Vec<_>>()).collect();
    for row in String::from_utf8(std::fs::read(merged.join("loss_sweep.csv")).unwrap()).unwrap().lines() {
        assert!(shard_rows.iter().any(|r| r == row), "merged row not from a shard: {row}");
    }
    std::fs::remove_dir_all(&d).ok();
}
