//! The regression's results: one [`JobResult`] per job, a [`Report`] per run (written as
//! `report.json` and `report.md`), and shards: `--shard K/N` writes `shard.json` (`{"kind":
//! "verify", ...}`) with its share of the results, and [`merge`] joins the shards of one plan
//! into exactly the report one machine would have written.

use super::VerifyError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobResult {
    /// Position in the plan (shards are cut by it).
    pub index: usize,
    pub block: String,
    /// `random-s1`, `directed-hot-s1001`, `power-up-s2001`.
    pub name: String,
    pub mode: String,
    pub seed: u64,
    pub cycles: u64,
    pub passed: bool,
    pub counters: BTreeMap<String, u64>,
    /// The failure report (mismatch with its waveform and reproducing command, or the error).
    pub failure: Option<String>,
}

/// What a run of `mrnic verify` checked and found (no timings or host paths: equal runs give
/// equal reports, shards merged give the unsharded report).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub kind: String,
    /// What was verified: the plan's description (blocks, configuration, implementation, mode,
    /// sizes). Shards of one plan share it.
    pub plan: String,
    pub jobs_total: usize,
    pub results: Vec<JobResult>,
    /// Coverage summary lines per block, if `--coverage` ran.
    #[serde(default)]
    pub coverage: Vec<String>,
}

/// A shard's file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardFile {
    pub kind: String,
    pub shard: [usize; 2],
    pub plan: String,
    pub jobs_total: usize,
    pub results: Vec<JobResult>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.results.len() == self.jobs_total && self.results.iter().all(|r| r.passed)
    }

    /// The report as markdown: a table of jobs and every failure in full.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let ok = self.results.iter().filter(|r| r.passed).count();
        let _ = writeln!(s, "# mrnic verify\n\n{}\n\n**{}**: {ok} of {} jobs passed.\n", self.plan, if self.passed() { "PASS" } else { "FAIL" }, self.jobs_total);
        let _ = writeln!(s, "| block | job | mode | seed | cycles | result | transfers |");
        let _ = writeln!(s, "|---|---|---|---:|---:|---|---|");
        for r in &self.results {
            let xfers: Vec<String> = r.counters.iter().filter(|(k, _)| k.ends_with(".transfers")).map(|(k, v)| format!("{}={v}", k.trim_end_matches(".transfers"))).collect();
            let _ = writeln!(s, "| {} | {} | {} | {} | {} | {} | {} |", r.block, r.name, r.mode, r.seed, r.cycles, if r.passed { "pass" } else { "FAIL" }, xfers.join(" "));
        }
        for r in self.results.iter().filter(|r| !r.passed) {
            let _ = writeln!(s, "\n## {} {}: FAIL\n\n```\n{}\n```", r.block, r.name, r.failure.as_deref().unwrap_or("(no detail)"));
        }
        if !self.coverage.is_empty() {
            let _ = writeln!(s, "\n## Coverage\n");
            for c in &self.coverage {
                let _ = writeln!(s, "{c}");
            }
        }
        s
    }

    /// Writes `report.json` and `report.md` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), VerifyError> {
        mkdir(dir)?;
        write(&dir.join("report.json"), &(serde_json::to_string_pretty(self).expect("report serialises") + "\n"))?;
        write(&dir.join("report.md"), &self.to_markdown())
    }
}

pub(crate) fn mkdir(dir: &Path) -> Result<(), VerifyError> {
    std::fs::create_dir_all(dir).map_err(|e| VerifyError::Io { path: dir.to_path_buf(), source: e })
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), VerifyError> {
    std::fs::write(path, text).map_err(|e| VerifyError::Io { path: path.to_path_buf(), source: e })
}

/// Joins the `shard.json` of every directory in `dirs` (the shards 1..N of one plan, each
/// exactly once) into the report one machine would have written, and writes it into `out`.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Report, VerifyError> {
    let bad = |m: String| VerifyError::Shard(m);
    if dirs.is_empty() {
        return Err(bad("no shard directories given".into()));
    }
    let mut shards: Vec<(PathBuf, ShardFile)> = vec![];
    for d in dirs {
        let p = d.join("shard.json");
        let text = std::fs::read_to_string(&p).map_err(|e| VerifyError::Io { path: p.clone(), source: e })?;
        let f: ShardFile = serde_json::from_str(&text).map_err(|e| bad(format!("{}: {e}", p.display())))?;
        if f.kind != "verify" {
            return Err(bad(format!("{}: kind {:?}, not \"verify\"", p.display(), f.kind)));
        }
        shards.push((p, f));
    }
    let (p0, f0) = (shards[0].0.clone(), shards[0].1.clone());
    let n = f0.shard[1];
    for (p, f) in &shards {
        if f.plan != f0.plan || f.jobs_total != f0.jobs_total || f.shard[1] != n {
            return Err(bad(format!("{} and {} are shards of different runs (plan, job count or N differ)", p0.display(), p.display())));
        }
    }
    let mut seen = vec![false; n + 1];
    for (p, f) in &shards {
        let k = f.shard[0];
        if k == 0 || k > n {
            return Err(bad(format!("{}: shard {k}/{n} out of range", p.display())));
        }
        if seen[k] {
            return Err(bad(format!("shard {k}/{n} given twice ({})", p.display())));
        }
        seen[k] = true;
    }
    let missing: Vec<String> = (1..=n).filter(|&k| !seen[k]).map(|k| format!("{k}/{n}")).collect();
    if !missing.is_empty() {
        return Err(bad(format!("missing shards: {}", missing.join(", "))));
    }
    let mut results: Vec<JobResult> = shards.into_iter().flat_map(|(_, f)| f.results).collect();
    results.sort_by_key(|r| r.index);
    let r = Report { kind: "verify".into(), plan: f0.plan.clone(), jobs_total: f0.jobs_total, results, coverage: vec![] };
    if r.results.len() != r.jobs_total || r.results.iter().enumerate().any(|(i, j)| j.index != i) {
        return Err(bad(format!("the shards hold {} results for a plan of {} jobs", r.results.len(), r.jobs_total)));
    }
    r.write(out)?;
    Ok(r)
}
