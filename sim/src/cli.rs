//! `mrnic sim SCENARIO.toml [--ci] [--out DIR] [--quiet] [--shard K/N]`: runs a scenario
//! with the mrnic transport (the golden model) and the baselines, one run per core at a
//! time, shows progress on stderr, prints the markdown table and writes CSV, markdown and
//! SVG files. `--out` is checked (created, writable) before any run starts. With
//! `--shard K/N` it runs only that shard's sweep points ([`crate::shard`]) and also
//! writes `shard.json`, which `mrnic merge` joins with the other shards.

use crate::mrnic::MrnicFactory;
use crate::output::{check_out_dir, write_all};
use crate::scenario::{run_points_parallel, Scenario};
use crate::shard::{Shard, ShardFile};
use crate::SimError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the scenario file (or its `shard`'s share of sweep points); returns the files
/// written.
pub fn run_file(path: &Path, ci: bool, out: &Path, quiet: bool, shard: Option<Shard>) -> Result<Vec<PathBuf>, SimError> {
    let sc = Scenario::load(path, ci)?;
    check_out_dir(out)?;
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
    let res = run_points_parallel(&sc, Some(&mrnic), jobs, &points, &mut progress)?;
    if !quiet {
        eprintln!("\n{total} runs in {:.1} s", t0.elapsed().as_secs_f64());
    }
    let mut files = Vec::new();
    if !res.records.is_empty() {
        files = write_all(&res, out)?;
        print!("{}", crate::output::to_markdown(&res));
    } else if !quiet {
        eprintln!("this shard has no sweep points (N is larger than the {npoints} points): only shard.json is written");
    }
    if let Some(s) = shard {
        files.push(ShardFile::new(&sc, ci, s, &res).write(out)?);
    }
    Ok(files)
}
