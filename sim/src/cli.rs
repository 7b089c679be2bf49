//! `mrnic sim SCENARIO.toml [--ci] [--out DIR] [--quiet] [--shard K/N | --seeds LIST]`:
//! runs a scenario with the mrnic transport (the golden model) and the baselines, one run
//! per core at a time, shows progress on stderr, prints the markdown table and writes CSV,
//! markdown and SVG files. `--out` is checked (created, writable) before any run starts.
//! With `--shard K/N` it runs only that shard's sweep points ([`crate::shard`]) and also
//! writes `shard.json`, which `mrnic merge` joins with the other shards. With `--seeds`
//! ([`run_file_seeds`]) it runs the whole scenario once per seed into `DIR/seed-K/` and
//! writes the summary over the seeds, `DIR/NAME.seeds.csv` and `.md` ([`crate::seeds`]).

use crate::mrnic::MrnicFactory;
use crate::output::{check_out_dir, write_all};
use crate::scenario::{run_points_parallel, Scenario};
use crate::seeds::{SeedsError, Summary};
use crate::shard::{Shard, ShardFile};
use crate::SimError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the scenario file (or its `shard`'s share of sweep points); returns the files
/// written.
pub fn run_file(path: &Path, ci: bool, out: &Path, quiet: bool, shard: Option<Shard>) -> Result<Vec<PathBuf>, SimError> {
    let sc = Scenario::load(path, ci)?;
    check_out_dir(out)?;
    let (files, md) = run_loaded(&sc, ci, out, quiet, shard)?;
    print!("{md}");
    Ok(files)
}

/// Runs the scenario file once per seed (the file's `seed` replaced by each of `seeds`;
/// every sweep point x transport, on all cores), writing each seed's usual outputs into
/// `out/seed-K/`, then `out/NAME.seeds.csv` and `out/NAME.seeds.md`: per (point, transport,
/// metric) the mean, sample standard deviation, min, max and count over the seeds, computed
/// from the per-seed CSVs ([`crate::seeds::Summary`]). Prints the `.seeds.md` table;
/// returns the files written.
pub fn run_file_seeds(path: &Path, ci: bool, out: &Path, quiet: bool, seeds: &[u64]) -> Result<Vec<PathBuf>, SeedsError> {
    if seeds.is_empty() {
        return Err(SeedsError::Spec { spec: String::new(), reason: "no seeds".into() });
    }
    let base = Scenario::load(path, ci)?;
    check_out_dir(out)?;
    let mut files = Vec::new();
    let mut csvs = Vec::new();
    for (i, &k) in seeds.iter().enumerate() {
        let sc = Scenario { seed: k, ..base.clone() };
        let dir = out.join(format!("seed-{k}"));
        check_out_dir(&dir)?;
        if !quiet {
            eprintln!("seed {k} ({} of {})", i + 1, seeds.len());
        }
        let (f, _) = run_loaded(&sc, ci, &dir, quiet, None)?;
        files.extend(f);
        let csv = dir.join(format!("{}.csv", sc.name));
        let text = std::fs::read_to_string(&csv).map_err(|e| SimError::io("read", &csv, e))?;
        csvs.push((k, csv, text));
    }
    let summary = Summary::from_seed_csvs(&base.name, &csvs)?;
    let md = summary.to_markdown(ci);
    for (name, text) in [(format!("{}.seeds.csv", base.name), summary.to_csv()), (format!("{}.seeds.md", base.name), md.clone())] {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| SimError::io("write", &p, e))?;
        files.push(p);
    }
    // the main metric of `crate::output::Metric`: completion time when every run completed
    let all_done = summary.rows.iter().filter(|r| r.metric == "completed").all(|r| r.stats.min == 1.0);
    let metric = if all_done { "completion_us" } else { "pct_line_rate" };
    if !base.swept_axes().is_empty() {
        let p = out.join(format!("{}.seeds.svg", base.name));
        summary.plot_svg(metric, &p)?;
        files.push(p);
    }
    print!("{md}");
    Ok(files)
}

/// Runs a loaded scenario (or its `shard`'s share) into `out` (already checked); returns
/// the files written and the markdown table (empty when the shard has no points).
fn run_loaded(sc: &Scenario, ci: bool, out: &Path, quiet: bool, shard: Option<Shard>) -> Result<(Vec<PathBuf>, String), SimError> {
    let mrnic = MrnicFactory { cfg: sc.mrnic.clone() };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let npoints = sc.points().len();
    let points: Vec<usize> = match shard {
        Some(s) => s.points(npoints),
        None => (0..npoints).collect(),
    };
    let total = points.len() * sc.transports.len();
    if !quiet {
        match shard {
            Some(s) => eprintln!(
                "{} shard {s}: {} of {npoints} sweep points, {total} runs on {jobs} threads",
                sc.name,
                points.len()
            ),
            None => eprintln!("{}: {total} runs on {jobs} threads", sc.name),
        }
    }
    let t0 = std::time::Instant::now();
    let mut last_print = std::time::Instant::now();
    let mut finished = 0usize;
    let mut progress = |p: &crate::Progress| {
        if quiet {
            return;
        }
        let done = p.finished;
        if done {
            finished += 1;
        }
        if !done && last_print.elapsed().as_millis() < 250 {
            return;
        }
        last_print = std::time::Instant::now();
        let pct = 100.0 * p.sim_ns as f64 / p.end_ns.max(1) as f64;
        eprint!(
            "\r{finished:>3}/{total} runs done, {:>6.1} s | {:<44} {:>6.1}% sim {:>9.1} µs {:>7.2} M events   ",
            t0.elapsed().as_secs_f64(),
            p.label,
            pct,
            p.sim_ns as f64 / 1000.0,
            p.events as f64 / 1e6,
        );
        let _ = std::io::stderr().flush();
    };
    let res = run_points_parallel(sc, Some(&mrnic), jobs, &points, &mut progress)?;
    if !quiet {
        eprintln!("\n{total} runs in {:.1} s", t0.elapsed().as_secs_f64());
    }
    let mut files = Vec::new();
    let mut md = String::new();
    if !res.records.is_empty() {
        files = write_all(&res, out)?;
        if shard.is_none() {
            files.extend(crate::output::write_flow_series(&res, out)?);
        }
        md = crate::output::to_markdown(&res);
    } else if !quiet {
        eprintln!("this shard has no sweep points (N is larger than the {npoints} points): only shard.json is written");
    }
    if let Some(s) = shard {
        files.push(ShardFile::new(sc, ci, s, &res).write(out)?);
    }
    Ok((files, md))
}
