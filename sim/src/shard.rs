//! Sharding a sweep over machines: `mrnic sim SCENARIO --shard K/N` runs a deterministic
//! share of the scenario's sweep points (point `i`, 0-based in [`Scenario::points`]
//! order, belongs to shard `i % N + 1`; K is 1-based like Slurm's `SLURM_ARRAY_TASK_ID`
//! for `--array=1-N`), writes the usual outputs for that share and a [`SHARD_FILE`]
//! ([`ShardFile`]: the scenario as run, the shard, the points it ran and every run's
//! [`RunResult`]). [`merge`] reads the shard directories, refuses a missing, duplicate or
//! mismatched shard with the reason, and writes the CSV, markdown and SVG files one
//! machine running the whole sweep would have written: every run is a pure function of
//! its configuration and seed, so only the wall-clock column (`wall_s`) of the CSV can
//! differ from an unsharded run, and it is each run's own measured wall time.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::engine::RunResult;
use crate::scenario::{results, Point, Record, Results, Scenario};
use crate::SimError;

/// Name of the shard description every shard directory holds.
pub const SHARD_FILE: &str = "shard.json";
/// [`ShardFile::kind`] of simulator shards (`mrnic merge` dispatches on it).
pub const KIND: &str = "sim";
/// Version of the [`ShardFile`] format.
pub const VERSION: u32 = 1;

/// Why a shard specification or a set of shards is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// `--shard` is not `K/N` with 1 <= K <= N.
    #[error("invalid --shard {spec:?}: {reason}")]
    Spec {
        /// What was given.
        spec: String,
        /// Why it is refused.
        reason: String,
    },
    /// `merge` was given no directories.
    #[error("no shard directories given")]
    NoShards,
    /// A directory has no shard file.
    #[error("{} is not a shard directory: {} is missing ({error})", dir.display(), dir.join(SHARD_FILE).display())]
    NotAShard {
        /// The directory.
        dir: PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// A shard file cannot be used (not JSON, wrong kind or version, inconsistent).
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The shard file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A shard does not belong with the first one.
    #[error("{} does not match {}: {reason}", path.display(), first.display())]
    Mismatch {
        /// The odd shard file.
        path: PathBuf,
        /// The first shard file given, which the others are compared with.
        first: PathBuf,
        /// What differs.
        reason: String,
    },
    /// The same shard was given twice.
    #[error("shard {shard} is given twice: {} and {}", first.display(), second.display())]
    Duplicate {
        /// The shard.
        shard: Shard,
        /// Its first directory.
        first: PathBuf,
        /// Its second directory.
        second: PathBuf,
    },
    /// Some shards are missing.
    #[error("missing shard(s) {} of {count} (given: {})", list(missing), list(given))]
    Missing {
        /// N.
        count: usize,
        /// The K not given.
        missing: Vec<usize>,
        /// The K given.
        given: Vec<usize>,
    },
}

fn list(v: &[usize]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// Shard `index` of `count` (1-based: `1/4` .. `4/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// K, 1-based.
    pub index: usize,
    /// N.
    pub count: usize,
}

/// Most shards a sweep may be split into.
pub const MAX_SHARDS: usize = 100_000;

impl Shard {
    /// Shard `index` of `count`, refused unless 1 <= index <= count <= [`MAX_SHARDS`].
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        let bad = |reason: String| Err(ShardError::Spec { spec: format!("{index}/{count}"), reason });
        if count == 0 || count > MAX_SHARDS {
            return bad(format!("N = {count} is not in 1..={MAX_SHARDS}"));
        }
        if index == 0 || index > count {
            return bad(format!("K = {index} is not in 1..={count} (K is 1-based)"));
        }
        Ok(Shard { index, count })
    }

    /// Does this shard run sweep point `point` (0-based)?
    pub fn owns(&self, point: usize) -> bool {
        point % self.count == self.index - 1
    }

    /// The sweep points (0-based) this shard runs out of `total`.
    pub fn points(&self, total: usize) -> Vec<usize> {
        (0..total).filter(|&i| self.owns(i)).collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, e.g. `2/4`.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = |reason: &str| ShardError::Spec { spec: s.to_string(), reason: reason.to_string() };
        let (k, n) = s.split_once('/').ok_or_else(|| bad("expected K/N, e.g. 2/4"))?;
        let k: usize = k.trim().parse().map_err(|_| bad("K is not a whole number"))?;
        let n: usize = n.trim().parse().map_err(|_| bad("N is not a whole number"))?;
        Shard::new(k, n).map_err(|e| match e {
            ShardError::Spec { reason, .. } => ShardError::Spec { spec: s.to_string(), reason },
            e => e,
        })
    }
}

/// The runs of one sweep point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The point's index in [`Scenario::points`] order.
    pub index: usize,
    /// The swept values.
    pub point: Point,
    /// One result per transport, in the scenario's transport order. Serialized without
    /// the per-link counters and per-flow bins ([`RunResult::links`],
    /// [`RunResult::flow_bins`]), which no output uses.
    pub runs: Vec<RunResult>,
}

/// `shard.json`: what one shard ran and measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardFile {
    /// Always [`KIND`] (`"sim"`).
    pub kind: String,
    /// [`VERSION`].
    pub version: u32,
    /// The scenario's name.
    pub scenario: String,
    /// The scenario's small `[ci]` variant was run.
    pub ci: bool,
    /// Which shard this is.
    pub shard: Shard,
    /// Sweep points of the whole scenario.
    pub total_points: usize,
    /// The points (0-based) this shard ran.
    pub points: Vec<usize>,
    /// The scenario as run (after merging `[ci]`): shards of different files or settings
    /// are refused.
    pub config: serde_json::Value,
    /// Per-point results, in point order.
    pub results: Vec<PointResult>,
}

impl ShardFile {
    /// The shard file of `res` (the results of `shard`'s points of `sc`).
    pub fn new(sc: &Scenario, ci: bool, shard: Shard, res: &Results) -> ShardFile {
        let total = sc.points().len();
        let points = shard.points(total);
        let per = sc.transports.len();
        let all = sc.points();
        let results = points
            .iter()
            .enumerate()
            .map(|(j, &i)| PointResult {
                index: i,
                point: all[i],
                runs: res.records[j * per..(j + 1) * per].iter().map(|r| r.result.clone()).collect(),
            })
            .collect();
        ShardFile {
            kind: KIND.to_string(),
            version: VERSION,
            scenario: sc.name.clone(),
            ci,
            shard,
            total_points: total,
            points,
            config: serde_json::to_value(sc).expect("a scenario serializes"),
            results,
        }
    }

    /// Write it as `dir/shard.json`; returns the path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, SimError> {
        let p = dir.join(SHARD_FILE);
        let text = serde_json::to_string(self).expect("a shard file serializes");
        std::fs::write(&p, text + "\n").map_err(|e| SimError::io("write", &p, e))?;
        Ok(p)
    }

    /// Read `dir/shard.json`, refusing anything but a well-formed sim shard.
    pub fn read(dir: &Path) -> Result<ShardFile, ShardError> {
        let path = dir.join(SHARD_FILE);
        let text =
            std::fs::read_to_string(&path).map_err(|error| ShardError::NotAShard { dir: dir.to_path_buf(), error })?;
        let bad = |reason: String| ShardError::Invalid { path: path.clone(), reason };
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        match v.get("kind").and_then(|k| k.as_str()) {
            Some(KIND) => {}
            Some(k) => return Err(bad(format!("a {k:?} shard, not a {KIND:?} one"))),
            None => return Err(bad("no \"kind\"".into())),
        }
        let f: ShardFile = serde_json::from_value(v).map_err(|e| bad(format!("not a sim shard file: {e}")))?;
        if f.version != VERSION {
            return Err(bad(format!("format version {} (this build reads {VERSION})", f.version)));
        }
        Shard::new(f.shard.index, f.shard.count).map_err(|e| bad(e.to_string()))?;
        if f.points != f.shard.points(f.total_points) {
            return Err(bad(format!(
                "lists points {:?}, but shard {} of {} points is {:?}",
                f.points,
                f.shard,
                f.total_points,
                f.shard.points(f.total_points)
            )));
        }
        let idx: Vec<usize> = f.results.iter().map(|r| r.index).collect();
        if idx != f.points {
            return Err(bad(format!("has results for points {idx:?}, expected {:?}", f.points)));
        }
        Ok(f)
    }
}

/// The scenario and results a set of shard directories add up to, checked: every shard
/// 1..=N present once, all of the same scenario file, settings and N, every point's runs
/// there for every transport.
pub fn collect(dirs: &[PathBuf]) -> Result<(Scenario, Results), SimError> {
    if dirs.is_empty() {
        return Err(ShardError::NoShards.into());
    }
    let mut files = Vec::with_capacity(dirs.len());
    for d in dirs {
        files.push((d.join(SHARD_FILE), ShardFile::read(d)?));
    }
    let (first_path, first) = &files[0];
    let sc: Scenario = serde_json::from_value(first.config.clone())
        .map_err(|e| ShardError::Invalid { path: first_path.clone(), reason: format!("its scenario does not parse: {e}") })?;
    sc.validate().map_err(|e| ShardError::Invalid { path: first_path.clone(), reason: format!("its scenario is refused: {e}") })?;
    let points = sc.points();
    let mut by_index: BTreeMap<usize, &(PathBuf, ShardFile)> = BTreeMap::new();
    for f in &files {
        let (path, s) = f;
        let mismatch = |reason: String| ShardError::Mismatch { path: path.clone(), first: first_path.clone(), reason };
        if s.scenario != first.scenario {
            return Err(mismatch(format!("scenario {:?}, not {:?}", s.scenario, first.scenario)).into());
        }
        if s.ci != first.ci {
            return Err(mismatch(format!("ci = {} (the [ci] variant), not {}", s.ci, first.ci)).into());
        }
        if s.shard.count != first.shard.count {
            return Err(mismatch(format!("shard {} of a {}-way split, not {}", s.shard, s.shard.count, first.shard.count)).into());
        }
        if s.config != first.config || s.total_points != points.len() {
            return Err(mismatch("the scenario's contents differ (edited between runs?)".into()).into());
        }
        if let Some(prev) = by_index.insert(s.shard.index, f) {
            return Err(ShardError::Duplicate { shard: s.shard, first: parent(&prev.0), second: parent(path) }.into());
        }
    }
    let count = first.shard.count;
    let missing: Vec<usize> = (1..=count).filter(|k| !by_index.contains_key(k)).collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing { count, missing, given: by_index.keys().copied().collect() }.into());
    }
    let mut slots: Vec<Option<(&PathBuf, &PointResult)>> = vec![None; points.len()];
    for (path, s) in by_index.values().copied() {
        for r in &s.results {
            slots[r.index] = Some((path, r));
        }
    }
    let mut records = Vec::with_capacity(points.len() * sc.transports.len());
    for (i, slot) in slots.into_iter().enumerate() {
        let (path, r) = slot.expect("every shard present, and each lists its own points");
        let bad = |reason: String| ShardError::Invalid { path: path.clone(), reason };
        if r.point != points[i] {
            return Err(bad(format!("point {i} is {:?}, the scenario says {:?}", r.point, points[i])).into());
        }
        let names: Vec<&str> = r.runs.iter().map(|x| x.transport.as_str()).collect();
        let want: Vec<&str> = sc.transports.iter().map(|t| t.name()).collect();
        if names != want {
            return Err(bad(format!("point {i} has runs of {names:?}, the scenario lists {want:?}")).into());
        }
        for result in &r.runs {
            records.push(Record { point: r.point, result: result.clone() });
        }
    }
    let res = results(&sc, records);
    Ok((sc, res))
}

fn parent(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Join shard directories into the CSV, markdown and SVG files one machine running the
/// whole sweep writes (see the module docs), in `out` (created if needed). Refuses a
/// missing, duplicate or mismatched shard with the reason, before writing anything.
/// Returns the files written.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, SimError> {
    let (_, res) = collect(dirs)?;
    crate::output::check_out_dir(out)?;
    crate::output::write_all(&res, out)
}
