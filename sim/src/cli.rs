//! `mrnic sim SCENARIO.toml [--ci] [--out DIR] [--quiet]`: runs a scenario with the
//! mrnic transport (the golden model) and the baselines, shows progress on stderr,
//! prints the markdown table and writes CSV, markdown and SVG files.

use crate::mrnic::MrnicFactory;
use crate::output::write_all;
use crate::scenario::{run_scenario, Scenario};
use crate::SimError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs the scenario file; returns the files written.
pub fn run_file(path: &Path, ci: bool, out: &Path, quiet: bool) -> Result<Vec<PathBuf>, SimError> {
    let sc = Scenario::load(path, ci)?;
    let mrnic = MrnicFactory { cfg: sc.mrnic.clone() };
    let mut last_label = String::new();
    let mut last_print = std::time::Instant::now();
    let mut progress = |p: &crate::Progress| {
        if quiet {
            return;
        }
        let new_run = p.label != last_label;
        if !new_run && last_print.elapsed().as_millis() < 250 && p.sim_ns < p.end_ns {
            return;
        }
        last_print = std::time::Instant::now();
        if new_run {
            if !last_label.is_empty() {
                eprintln!();
            }
            last_label = p.label.to_string();
        }
        let pct = 100.0 * p.sim_ns as f64 / p.end_ns.max(1) as f64;
        eprint!(
            "\r{:<44} {:>6.1}% sim {:>9.1} µs  {:>7.2} M events  {:>6.1} s   ",
            p.label,
            pct,
            p.sim_ns as f64 / 1000.0,
            p.events as f64 / 1e6,
            p.wall_s
        );
        let _ = std::io::stderr().flush();
    };
    let res = run_scenario(&sc, Some(&mrnic), &mut progress)?;
    if !quiet {
        eprintln!();
    }
    let files = write_all(&res, out)?;
    print!("{}", crate::output::to_markdown(&res));
    Ok(files)
}
