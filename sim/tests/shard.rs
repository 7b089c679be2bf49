//! Test plan — sharding (`mrnic sim --shard K/N`, `mrnic merge`): `K/N` is parsed and
//! bad values refused with the reason; the N shards partition the sweep points; shard
//! files written from one run's results merge into byte-identical outputs (every file,
//! `wall_s` included); a missing, duplicated or mismatched shard is refused, naming it.
//! (gen/tests/cli_shard.rs runs the shards as separate processes through the binary.)

use std::path::{Path, PathBuf};

use mrnic_sim::output::write_all;
use mrnic_sim::scenario::{run_points_parallel, Results};
use mrnic_sim::shard::{merge, Shard, ShardError, ShardFile};
use mrnic_sim::{Scenario, SimError};

const TINY: &str = r#"
name = "tiny"
duration_us = 60
transports = ["roce", "irn"]
[topology]
hosts_per_leaf = 2
leaves = 2
spines = 2
[traffic]
kind = "flows"
message_bytes = 65536
[sweep]
loss = [0.0, 0.01, 0.02, 0.05, 0.1]
"#;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mrnic-shard-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

#[test]
fn shard_specs_parse_and_bad_ones_are_refused_with_the_reason() {
    assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { index: 2, count: 4 });
    assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
    for (bad, why) in [("0/4", "1-based"), ("5/4", "not in 1..=4"), ("1/0", "N = 0"), ("3", "K/N"), ("a/4", "K is not"), ("1/x", "N is not")] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert!(matches!(e, ShardError::Spec { .. }), "{e:?}");
        assert!(e.to_string().contains(bad) && e.to_string().contains(why), "{bad}: {e}");
    }
}

#[test]
fn the_shards_partition_the_sweep_points() {
    for total in [0, 1, 5, 17] {
        for n in 1..=6 {
            let mut seen = vec![0; total];
            for k in 1..=n {
                for p in Shard::new(k, n).unwrap().points(total) {
                    seen[p] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "total {total}, N {n}: {seen:?}");
        }
    }
}

fn run(sc: &Scenario, points: &[usize]) -> Results {
    run_points_parallel(sc, None, 2, points, &mut |_| {}).unwrap()
}

/// Writes shard `k/n` of `whole` (one run's results) into `dir`.
fn write_shard(sc: &Scenario, whole: &Results, k: usize, n: usize, dir: &Path) {
    let s = Shard::new(k, n).unwrap();
    let per = sc.transports.len();
    let mut part = whole.clone();
    part.records = s.points(sc.points().len()).iter().flat_map(|&i| whole.records[i * per..(i + 1) * per].to_vec()).collect();
    std::fs::create_dir_all(dir).unwrap();
    ShardFile::new(sc, false, s, &part).write(dir).unwrap();
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn merged_shards_write_byte_identical_outputs_and_bad_sets_are_refused() {
    let sc = Scenario::from_toml_str(TINY, false).unwrap();
    let whole = run(&sc, &(0..5).collect::<Vec<_>>());
    // a shard's own run gives the same records as the whole run's (labels included)
    let s2 = Shard::new(2, 3).unwrap().points(5);
    let part = run(&sc, &s2);
    let fp = |r: &Results| r.records.iter().map(|x| x.result.fingerprint()).collect::<Vec<_>>();
    assert_eq!(fp(&part), s2.iter().flat_map(|&i| fp(&whole)[2 * i..2 * i + 2].to_vec()).collect::<Vec<_>>());

    let base = tmp("merge");
    let one = base.join("one");
    write_all(&whole, &one).unwrap();
    let shards: Vec<PathBuf> = (1..=3).map(|k| base.join(format!("s{k}"))).collect();
    for (k, d) in shards.iter().enumerate() {
        write_shard(&sc, &whole, k + 1, 3, d);
    }
    // given in any order
    let merged = base.join("merged");
    let given = vec![shards[2].clone(), shards[0].clone(), shards[1].clone()];
    let written = merge(&given, &merged).unwrap();
    assert_eq!(written.len(), 7, "{written:?}"); // csv, timeseries csv, md, sweep svg, time svg, fct csv, counters csv
    assert_eq!(files(&merged), files(&one), "merged outputs differ from the one-machine outputs");

    let refused = |dirs: &[PathBuf], needles: &[&str]| {
        let out = base.join("refused");
        let e = merge(dirs, &out).unwrap_err();
        assert!(matches!(e, SimError::Shard(_)), "{e:?}");
        for n in needles {
            assert!(e.to_string().contains(n), "{e} lacks {n:?}");
        }
        assert!(!out.exists(), "a refused merge wrote {}", out.display());
    };
    refused(&shards[..2], &["missing shard(s) 3 of 3", "given: 1, 2"]);
    refused(&[shards[0].clone(), shards[1].clone(), shards[1].clone(), shards[2].clone()], &["shard 2/3 is given twice", "s2"]);
    refused(&[shards[0].clone(), base.join("nothing-here")], &["nothing-here", "not a shard directory"]);
    refused(&[], &["no shard directories"]);
    // a shard of a 2-way split does not belong with a 3-way one
    let other = base.join("two-way");
    write_shard(&sc, &whole, 1, 2, &other);
    refused(&[shards[0].clone(), other.clone()], &["two-way", "2-way split"]);
    // a shard of an edited scenario
    let edited = Scenario::from_toml_str(&TINY.replace("duration_us = 60", "duration_us = 61"), false).unwrap();
    let ed = base.join("edited");
    write_shard(&edited, &whole, 3, 3, &ed);
    refused(&[shards[0].clone(), shards[1].clone(), ed], &["edited", "contents differ"]);
    // a verify shard is not a sim shard
    let v = base.join("verify");
    std::fs::create_dir_all(&v).unwrap();
    std::fs::write(v.join("shard.json"), r#"{"kind":"verify"}"#).unwrap();
    refused(&[v], &["\"verify\" shard"]);
    std::fs::remove_dir_all(&base).ok();
}
