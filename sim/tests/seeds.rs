//! Test plan — seeds and before/after comparisons (`mrnic sim --seeds`, `mrnic compare`):
//! `--seeds` lists parse (`5` = 1..=5, `1,2,3`, `7,`) and bad ones are refused with the
//! reason; mean, sample std dev, min and max on known numbers; the summary of per-seed CSVs
//! and its `.seeds.csv` round trip; `compare` flags a worse result (in each metric's bad
//! direction) and not an equal one, nor one within the spread, nor a never-flagged metric;
//! `run_file_seeds` on a tiny scenario writes `seed-K/` per seed and a summary whose spread
//! is that of the seeds, and comparing the directory with itself flags nothing.

use std::path::{Path, PathBuf};

use mrnic_sim::seeds::{compare, compare_dirs, find_sets, flag, flag_tol, parse_seeds, Flag, SeedsError, Source, Stats, Summary};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mrnic-seeds-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

#[test]
fn seed_lists_parse_and_bad_ones_are_refused_with_the_reason() {
    assert_eq!(parse_seeds("5").unwrap(), vec![1, 2, 3, 4, 5]);
    assert_eq!(parse_seeds("1").unwrap(), vec![1]);
    assert_eq!(parse_seeds("1,2,3").unwrap(), vec![1, 2, 3]);
    assert_eq!(parse_seeds(" 9, 4 ,17").unwrap(), vec![9, 4, 17]);
    assert_eq!(parse_seeds("7,").unwrap(), vec![7]);
    assert_eq!("3".parse::<mrnic_sim::seeds::SeedList>().unwrap().0, vec![1, 2, 3]);
    for (bad, why) in [
        ("", "empty"),
        ("0", "N = 0"),
        ("1001", "not in 1..=1000"),
        ("x", "not a whole number"),
        ("-3", "not a whole number"),
        ("1,,2", "empty entry"),
        (",1", "empty entry"),
        ("1,2,1", "listed twice"),
        ("1,b", "\"b\" is not a whole number"),
        ("1.5", "not a whole number"),
    ] {
        let e = parse_seeds(bad).unwrap_err();
        assert!(matches!(e, SeedsError::Spec { .. }), "{e:?}");
        assert!(e.to_string().contains(why), "{bad:?}: {e}");
    }
}

#[test]
fn stats_on_known_numbers() {
    let s = Stats::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
    assert_eq!(s.n, 8);
    assert_eq!(s.mean, 5.0);
    assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12, "{}", s.sd); // sample sd: n - 1
    assert_eq!((s.min, s.max, s.range()), (2.0, 9.0, 7.0));
    let one = Stats::of(&[3.5]).unwrap();
    assert_eq!((one.n, one.mean, one.sd, one.min, one.max), (1, 3.5, 0.0, 3.5, 3.5));
    let same = Stats::of(&[1.25; 5]).unwrap();
    assert_eq!((same.mean, same.sd, same.range()), (1.25, 0.0, 0.0));
    assert!(Stats::of(&[]).is_none());
}

const HEAD: &str = "transport,loss,message_bytes,planes,conns_per_pair,rate_hint,flows,completed,completion_us,goodput_gbps,line_rate_gbps,pct_line_rate,rel_to_roce,jain,convergence_rtts,peak_queue_bytes,drops_buffer,drops_random,drops_failed,drops_no_route,ecn_marks,data_sent,data_retx,timeouts,cnps,events,wall_s";

/// A per-run CSV with one mrnic row at each loss in `goodput` (loss, goodput, timeouts).
fn csv(rows: &[(f64, f64, u64)]) -> String {
    let mut s = format!("{HEAD}\n");
    for (loss, g, to) in rows {
        s += &format!("mrnic,{loss},65536,1,1,false,4,false,,{g:.3},400.0,50.00,,0.9990,,1000,0,3,0,0,7,100,5,{to},0,12345,0.5\n");
    }
    s
}

fn summary(name: &str, seeds: &[&[(f64, f64, u64)]]) -> Summary {
    let v: Vec<(u64, PathBuf, String)> =
        seeds.iter().enumerate().map(|(i, r)| (i as u64 + 1, PathBuf::from(format!("seed-{}/x.csv", i + 1)), csv(r))).collect();
    Summary::from_seed_csvs(name, &v).unwrap()
}

#[test]
fn a_summary_has_mean_and_spread_per_point_transport_metric_and_round_trips() {
    let s = summary("x", &[&[(0.0, 100.0, 1), (0.01, 50.0, 2)], &[(0.0, 110.0, 1), (0.01, 60.0, 4)], &[(0.0, 120.0, 1), (0.01, 70.0, 6)]]);
    let g: Vec<_> = s.rows.iter().filter(|r| r.metric == "goodput_gbps").collect();
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].point[0], ("loss".to_string(), "0".to_string()));
    assert_eq!((g[0].stats.mean, g[0].stats.sd, g[0].stats.min, g[0].stats.max, g[0].stats.n), (110.0, 10.0, 100.0, 120.0, 3));
    assert_eq!((g[1].stats.mean, g[1].stats.min, g[1].stats.max), (60.0, 50.0, 70.0));
    let t = s.rows.iter().find(|r| r.metric == "timeouts" && r.point[0].1 == "0.01").unwrap();
    assert_eq!((t.stats.mean, t.stats.sd), (4.0, 2.0));
    // "completed" = false counts as 0; an empty completion time is no value (no row).
    assert!(s.rows.iter().any(|r| r.metric == "completed" && r.stats.max == 0.0));
    assert!(!s.rows.iter().any(|r| r.metric == "completion_us" || r.metric == "wall_s" || r.metric == "events"));
    let back = Summary::from_csv("x", Path::new("x.seeds.csv"), &s.to_csv()).unwrap();
    assert_eq!(back.rows, s.rows);
    let md = s.to_markdown(true);
    // ±95 %: t(0.975, 2) = 4.303, 4.303 x 10 / sqrt(3) = 24.84
    assert!(md.contains("| loss=1% | mrnic | goodput_gbps | 60 ± 10 | 24.84 | 50 .. 70 | 3 |"), "{md}");
    assert!((g[1].stats.ci95() - 4.303 * 10.0 / 3f64.sqrt()).abs() < 1e-9);
    assert!(s.to_csv().lines().next().unwrap().ends_with(",n,ci95"));
    assert!(!md.contains("drops_buffer"), "all-zero metrics are left out: {md}");
}

#[test]
fn compare_flags_a_worse_result_and_not_an_equal_one() {
    let before = summary("x", &[&[(0.0, 100.0, 1)], &[(0.0, 104.0, 1)], &[(0.0, 102.0, 1)]]);
    // Equal: nothing flagged.
    let same = compare("x", &before, &before);
    assert!(same.rows.iter().all(|r| r.flag == Flag::None), "{:?}", same.rows);
    // Goodput lower by more than the spread (4): WORSE; timeouts higher with spread 0: WORSE.
    let after = summary("x", &[&[(0.0, 96.0, 2)], &[(0.0, 97.0, 2)], &[(0.0, 98.0, 2)]]);
    let c = compare("x", &before, &after);
    let f = |m: &str| c.rows.iter().find(|r| r.metric == m).unwrap().flag;
    assert_eq!(f("goodput_gbps"), Flag::Worse);
    assert_eq!(f("pct_line_rate"), Flag::None, "equal");
    assert_eq!(f("timeouts"), Flag::Worse);
    assert_eq!(c.worse().count(), 2);
    // Lower by less than the spread: not flagged.
    let near = summary("x", &[&[(0.0, 99.0, 1)], &[(0.0, 100.0, 1)], &[(0.0, 101.0, 1)]]);
    assert_eq!(compare("x", &before, &near).worse().count(), 0);
    // Better by more than the spread: "better", not WORSE.
    let good = summary("x", &[&[(0.0, 150.0, 0)], &[(0.0, 151.0, 0)], &[(0.0, 152.0, 0)]]);
    let g = compare("x", &before, &good);
    assert_eq!(g.worse().count(), 0);
    assert_eq!(g.rows.iter().find(|r| r.metric == "goodput_gbps").unwrap().flag, Flag::Better);
    assert_eq!(g.rows.iter().find(|r| r.metric == "timeouts").unwrap().flag, Flag::Better);
    // Direction per metric; never-flagged metrics.
    let s = |v: &[f64]| Stats::of(v).unwrap();
    assert_eq!(flag("completion_us", &s(&[10.0, 11.0]), &s(&[13.0, 13.5])), Flag::Worse);
    assert_eq!(flag("completion_us", &s(&[13.0, 13.5]), &s(&[10.0, 11.0])), Flag::Better);
    assert_eq!(flag("peak_queue_bytes", &s(&[1.0]), &s(&[2.0])), Flag::Worse);
    assert_eq!(flag("jain", &s(&[0.99]), &s(&[0.98])), Flag::Worse);
    assert_eq!(flag("ecn_marks", &s(&[1.0]), &s(&[1000.0])), Flag::None);
    assert_eq!(flag("goodput_gbps", &s(&[5.0, 5.0]), &s(&[5.0, 5.0])), Flag::None);
    // A tolerance raises the threshold to a fraction of the before mean.
    assert_eq!(flag("completion_us", &s(&[100.0]), &s(&[100.5])), Flag::Worse);
    assert_eq!(flag_tol("completion_us", &s(&[100.0]), &s(&[100.5]), 0.01), Flag::None);
    assert_eq!(flag_tol("completion_us", &s(&[100.0]), &s(&[102.0]), 0.01), Flag::Worse);
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn compare_dirs_reads_per_seed_directories_and_seed_summaries() {
    let root = tmp("dirs");
    // before: per-seed runs (the layout of runs made with `seed = K` copies of the file)
    for (k, g) in [(1, 100.0), (2, 104.0), (3, 102.0)] {
        write(&root.join(format!("before/ci/x/seed-{k}/x.csv")), &csv(&[(0.0, g, 1)]));
        write(&root.join(format!("before/ci/x/seed-{k}/x-timeseries.csv")), "run,transport,point,t_us,goodput_gbps\n");
    }
    // after: only the summary `sim --seeds` writes
    let after = summary("x", &[&[(0.0, 90.0, 1)], &[(0.0, 91.0, 1)], &[(0.0, 92.0, 1)]]);
    write(&root.join("after/ci/x/x.seeds.csv"), &after.to_csv());
    let sets = find_sets(&root.join("before")).unwrap();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].key, "ci/x");
    assert!(matches!(&sets[0].source, Source::PerSeed(v) if v.len() == 3));
    let r = compare_dirs(&root.join("before"), &root.join("after")).unwrap();
    assert_eq!(r.comparisons.len(), 1);
    assert_eq!(r.worse().len(), 1);
    let md = r.to_markdown();
    assert!(md.contains("**1 flagged WORSE**"), "{md}");
    assert_eq!(r.comparisons[0].headline(), "goodput_gbps", "the runs did not complete");
    assert!(md.contains("## Headline metric of every scenario"), "{md}");
    assert!(md.contains("| ci/x: - | mrnic | goodput_gbps | 102 ± 2 (n=3) | 91 ± 1 (n=3) | -11 (-10.8 %) | **WORSE** |"), "{md}");
    // A directory compared with itself flags nothing; nothing in common is an error.
    assert_eq!(compare_dirs(&root.join("before"), &root.join("before")).unwrap().worse().len(), 0);
    write(&root.join("other/y/seed-1/y.csv"), &csv(&[(0.0, 1.0, 0)]));
    write(&root.join("other/z/seed-1/z.csv"), &csv(&[(0.0, 1.0, 0)]));
    let e = compare_dirs(&root.join("before"), &root.join("other")).unwrap_err();
    assert!(matches!(e, SeedsError::NothingInCommon { .. }), "{e}");
    std::fs::create_dir_all(root.join("empty")).unwrap();
    assert!(matches!(find_sets(&root.join("empty")).unwrap_err(), SeedsError::NoResults { .. }));
    std::fs::remove_dir_all(&root).ok();
}

/// A four-host leaf-spine scenario that runs in well under a second (shared with the
/// other crate's seeds test).
const TINY: &str = include_str!("fixtures/seeds_tiny.toml");

#[test]
fn run_file_seeds_writes_each_seed_and_the_summary() {
    let root = tmp("run");
    let file = root.join("tiny.toml");
    write(&file, TINY);
    let out = root.join("out");
    let files = mrnic_sim::cli::run_file_seeds(&file, false, &out, true, &[1, 2, 3]).unwrap();
    for k in 1..=3 {
        assert!(out.join(format!("seed-{k}/tiny.csv")).is_file());
        assert!(files.contains(&out.join(format!("seed-{k}/tiny.md"))));
    }
    assert!(files.contains(&out.join("tiny.seeds.csv")) && files.contains(&out.join("tiny.seeds.md")));
    // Seed 1 is exactly the scenario's own run.
    let single = root.join("single");
    mrnic_sim::cli::run_file(&file, false, &single, true, None).unwrap();
    let strip = |t: String| t.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect::<Vec<_>>(); // wall_s
    assert_eq!(
        strip(std::fs::read_to_string(single.join("tiny.csv")).unwrap()),
        strip(std::fs::read_to_string(out.join("seed-1/tiny.csv")).unwrap())
    );
    let s = Summary::from_csv("tiny", &out.join("tiny.seeds.csv"), &std::fs::read_to_string(out.join("tiny.seeds.csv")).unwrap()).unwrap();
    assert!(s.rows.iter().filter(|r| r.metric == "goodput_gbps").all(|r| r.stats.n == 3));
    // At 5 % loss the random drops depend on the seed.
    let d = s.rows.iter().find(|r| r.metric == "drops_random" && r.point[0].1 == "0.05" && r.transport == "roce").unwrap();
    assert!(d.stats.range() > 0.0, "{:?}", d.stats);
    assert_eq!(compare_dirs(&out, &out).unwrap().worse().len(), 0);
    std::fs::remove_dir_all(&root).ok();
}
