//! `mrnic sim SCENARIO.toml [--ci] [--out DIR] [--quiet]`: runs a scenario with the
//! mrnic transport (the golden model) and the baselines, one run per core at a time,
//! shows progress on stderr, prints the markdown table and writes CSV, markdown and
//! SVG files.

use crate::mrnic::MrnicFactory;
use crate::output::write_all;
use crate::scenario::{run_scenario_parallel, Scenario};
use crate::SimError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the scenario file; returns the files written.
pub fn run_file(path: &Path, ci: bool, out: &Path, quiet: bool) -> Result<Vec<PathBuf>, SimError> {
    let sc = Scenario::load(path, ci)?;
    let mrnic = MrnicFactory { cfg: sc.mrnic.clone() };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let total = sc.points().len() * sc.transports.len();
    if !quiet {
        eprintln!("{}: {total} runs on {jobs} threads", sc.name);
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
    let res = run_scenario_parallel(&sc, Some(&mrnic), jobs, &mut progress)?;
    if !quiet {
        eprintln!("\n{total} runs in {:.1} s", t0.elapsed().as_secs_f64());
    }
    let files = write_all(&res, out)?;
    print!("{}", crate::output::to_markdown(&res));
    Ok(files)
}
