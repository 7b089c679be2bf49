//! Seeds and before/after comparisons.
//!
//! A run is a pure function of its configuration and seed (`seed` in the scenario): the
//! seed salts every switch's ECMP hash, derives every connection's seed (mrnic's path
//! entropies and ISNs, a baseline QP's UDP source port and plane) and seeds the fabric's
//! random draws (random loss, probabilistic ECN marking). Running a scenario over several
//! seeds therefore measures how much of a result is the luck of one seed: the spread across
//! seeds is the simulator's noise.
//!
//! * [`SeedList`]: `--seeds 1,2,3` (those seeds) or `--seeds 5` (seeds 1..=5).
//! * [`Stats`]: mean, sample standard deviation, min, max and count of one metric.
//! * [`Summary`]: per (sweep point, transport, metric) the [`Stats`] over the seeds, built
//!   from the per-seed CSVs `mrnic sim` writes ([`Summary::from_seed_csvs`]), written as
//!   `NAME.seeds.csv` and `NAME.seeds.md` ([`Summary::to_csv`], [`Summary::to_markdown`])
//!   and read back ([`Summary::from_csv`]).
//! * [`find_sets`] finds result sets in a directory tree (`DIR/seed-K/NAME.csv`,
//!   `DIR/NAME.seeds.csv`, or a single run's `DIR/NAME.csv`), and [`compare_dirs`] /
//!   [`compare`] put two trees side by side ([`Comparison`], [`Flag`]).
//!
//! **The flag rule.** Each metric has a direction ([`Better`]): goodput, % of line rate,
//! Jain's index and "completed" are better higher; completion time, convergence time, peak
//! queue, buffer / blackhole / no-route drops, retransmissions and timeouts are better lower;
//! the rest (ECN marks, CNPs, data frames sent, random drops, the ratio to RoCE) are shown but
//! never flagged. A result is [`Flag::Worse`] when the after mean is worse than the before
//! mean by more than the larger of the two spreads (max − min over the seeds), and
//! [`Flag::Better`] when it is better by more than that. With a spread of 0 (a metric the seed
//! does not move) any change in the bad direction is flagged.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::SimError;

/// Most seeds one `--seeds` may name.
pub const MAX_SEEDS: usize = 1000;

/// Why a seed list, a result file or a comparison is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeedsError {
    /// `--seeds` is not `N` or a comma-separated list of distinct seeds.
    #[error("invalid --seeds {spec:?}: {reason}")]
    Spec {
        /// What was given.
        spec: String,
        /// Why it is refused.
        reason: String,
    },
    /// A result file cannot be read or parsed.
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A directory holds no results.
    #[error("no results under {}: expected DIR/seed-K/NAME.csv, DIR/NAME.seeds.csv or DIR/NAME.csv", dir.display())]
    NoResults {
        /// The directory.
        dir: PathBuf,
    },
    /// The two trees share no result set.
    #[error("{} and {} have no scenario in common (before: {}; after: {})", before.display(), after.display(), names(b_names), names(a_names))]
    NothingInCommon {
        /// The before directory.
        before: PathBuf,
        /// The after directory.
        after: PathBuf,
        /// Sets found before.
        b_names: Vec<String>,
        /// Sets found after.
        a_names: Vec<String>,
    },
    /// A simulator error (running the scenario, writing its files).
    #[error(transparent)]
    Sim(#[from] SimError),
}

fn names(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The seeds of `--seeds`: distinct, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedList(pub Vec<u64>);

/// `N` (seeds 1..=N, N in 1..=[`MAX_SEEDS`]) or `A,B,C` (those seeds, distinct, at most
/// [`MAX_SEEDS`]; a single seed is written `A,`).
pub fn parse_seeds(spec: &str) -> Result<Vec<u64>, SeedsError> {
    let bad = |reason: String| SeedsError::Spec { spec: spec.to_string(), reason };
    let s = spec.trim();
    if s.is_empty() {
        return Err(bad("empty: give N (seeds 1..=N) or a list like 1,2,3".into()));
    }
    if !s.contains(',') {
        let n: usize = s.parse().map_err(|_| bad(format!("{s:?} is not a whole number (give N for seeds 1..=N, or a list like 1,2,3)")))?;
        if n == 0 || n > MAX_SEEDS {
            return Err(bad(format!("N = {n} is not in 1..={MAX_SEEDS}")));
        }
        return Ok((1..=n as u64).collect());
    }
    let mut seeds = Vec::new();
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            if i == parts.len() - 1 && i > 0 {
                continue; // "7," = just seed 7
            }
            return Err(bad("an empty entry in the list".into()));
        }
        let k: u64 = p.parse().map_err(|_| bad(format!("{p:?} is not a whole number")))?;
        if seeds.contains(&k) {
            return Err(bad(format!("seed {k} is listed twice")));
        }
        seeds.push(k);
    }
    if seeds.len() > MAX_SEEDS {
        return Err(bad(format!("{} seeds, at most {MAX_SEEDS}", seeds.len())));
    }
    Ok(seeds)
}

impl FromStr for SeedList {
    type Err = SeedsError;
    fn from_str(s: &str) -> Result<SeedList, SeedsError> {
        parse_seeds(s).map(SeedList)
    }
}

/// Mean, sample standard deviation (n − 1 in the denominator; 0 for one value), min, max
/// and count of a metric over seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (0 when n = 1).
    pub sd: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Stats {
    /// The statistics of `v`, or `None` when it is empty.
    pub fn of(v: &[f64]) -> Option<Stats> {
        if v.is_empty() {
            return None;
        }
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 { (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Stats { n, mean, sd, min, max })
    }

    /// Half-width of the 95 % confidence interval of the mean: `t(0.975, n − 1) sd / √n`
    /// (Student's t; 0 for one value).
    pub fn ci95(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        t975(self.n - 1) * self.sd / (self.n as f64).sqrt()
    }

    /// max − min: the spread the flag rule uses.
    pub fn range(&self) -> f64 {
        self.max - self.min
    }
}

/// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (table to
/// 30, then the normal 1.96 approached as 1.96 + 2.4 / df).
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
        2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// Which direction of a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Higher is better (goodput).
    Higher,
    /// Lower is better (completion time, drops, timeouts, queue).
    Lower,
    /// Shown, never flagged.
    Neither,
}

/// The metrics summarized, as the per-run CSV names them, with their direction. Columns not
/// listed (flow count, line rate, events, wall time) are not results.
pub const METRICS: [(&str, Better); 17] = [
    ("completed", Better::Higher),
    ("completion_us", Better::Lower),
    ("goodput_gbps", Better::Higher),
    ("pct_line_rate", Better::Higher),
    ("rel_to_roce", Better::Neither),
    ("jain", Better::Higher),
    ("convergence_rtts", Better::Lower),
    ("peak_queue_bytes", Better::Lower),
    ("drops_buffer", Better::Lower),
    ("drops_random", Better::Neither),
    ("drops_failed", Better::Lower),
    ("drops_no_route", Better::Lower),
    ("ecn_marks", Better::Neither),
    ("data_sent", Better::Neither),
    ("data_retx", Better::Lower),
    ("timeouts", Better::Lower),
    ("cnps", Better::Neither),
];

/// The direction of `metric` ([`Better::Neither`] for one not in [`METRICS`]).
pub fn better(metric: &str) -> Better {
    METRICS.iter().find(|m| m.0 == metric).map_or(Better::Neither, |m| m.1)
}

/// The sweep-point columns of the per-run CSV.
pub const POINT_COLS: [&str; 5] = ["loss", "message_bytes", "planes", "conns_per_pair", "rate_hint"];

/// A sweep point as the CSV writes it: `(column, value)` for each point column present.
pub type PointKey = Vec<(String, String)>;

/// One row of a [`Summary`].
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// The sweep point.
    pub point: PointKey,
    /// The transport.
    pub transport: String,
    /// The metric (a CSV column name).
    pub metric: String,
    /// Over the seeds that have a value (an empty cell, e.g. the completion time of a run
    /// that did not complete, is left out).
    pub stats: Stats,
}

/// A scenario's results over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The scenario's name.
    pub name: String,
    /// The seeds (empty when read from a `.seeds.csv`, which does not list them).
    pub seeds: Vec<u64>,
    /// Point-major (first-seen order), then transport, then [`METRICS`] order.
    pub rows: Vec<SummaryRow>,
}

/// A parsed per-run CSV: header and rows.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn parse_csv(text: &str, path: &Path) -> Result<Csv, SeedsError> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines
        .next()
        .ok_or_else(|| SeedsError::File { path: path.to_path_buf(), reason: "empty".into() })?
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for (i, l) in lines.enumerate() {
        let r: Vec<String> = l.split(',').map(|s| s.trim().to_string()).collect();
        if r.len() != header.len() {
            return Err(SeedsError::File {
                path: path.to_path_buf(),
                reason: format!("line {} has {} fields, the header {}", i + 2, r.len(), header.len()),
            });
        }
        rows.push(r);
    }
    Ok(Csv { header, rows })
}

fn value(cell: &str) -> Option<f64> {
    match cell {
        "" => None,
        "true" => Some(1.0),
        "false" => Some(0.0),
        s => s.parse().ok(),
    }
}

impl Summary {
    /// The summary of per-seed run CSVs (`mrnic sim`'s `NAME.csv`), `(seed, path, text)`.
    pub fn from_seed_csvs(name: &str, seeds: &[(u64, PathBuf, String)]) -> Result<Summary, SeedsError> {
        // (point, transport) in first-seen order -> metric -> values
        let mut keys: Vec<(PointKey, String)> = Vec::new();
        let mut vals: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        let mut present = [false; METRICS.len()];
        for (_, path, text) in seeds {
            let csv = parse_csv(text, path)?;
            let col = |c: &str| csv.header.iter().position(|h| h == c);
            let t = col("transport")
                .ok_or_else(|| SeedsError::File { path: path.clone(), reason: "no \"transport\" column: not a run CSV".into() })?;
            let pcols: Vec<(usize, &str)> = POINT_COLS.iter().filter_map(|c| col(c).map(|i| (i, *c))).collect();
            let mcols: Vec<(usize, usize)> = METRICS.iter().enumerate().filter_map(|(m, (c, _))| col(c).map(|i| (m, i))).collect();
            for r in &csv.rows {
                let key = (pcols.iter().map(|&(i, c)| (c.to_string(), r[i].clone())).collect::<PointKey>(), r[t].clone());
                let k = match keys.iter().position(|x| *x == key) {
                    Some(k) => k,
                    None => {
                        keys.push(key);
                        keys.len() - 1
                    }
                };
                for &(m, i) in &mcols {
                    present[m] = true;
                    let v = vals.entry((k, m)).or_default();
                    if let Some(x) = value(&r[i]) {
                        v.push(x);
                    } else if !r[i].is_empty() {
                        return Err(SeedsError::File {
                            path: path.clone(),
                            reason: format!("{} = {:?} is not a number", METRICS[m].0, r[i]),
                        });
                    }
                }
            }
        }
        let mut rows = Vec::new();
        for (k, (point, transport)) in keys.iter().enumerate() {
            for (m, (metric, _)) in METRICS.iter().enumerate() {
                if !present[m] {
                    continue;
                }
                if let Some(stats) = vals.get(&(k, m)).and_then(|v| Stats::of(v)) {
                    rows.push(SummaryRow { point: point.clone(), transport: transport.clone(), metric: metric.to_string(), stats });
                }
            }
        }
        Ok(Summary { name: name.to_string(), seeds: seeds.iter().map(|s| s.0).collect(), rows })
    }

    /// `NAME.seeds.csv`: `<point columns>,transport,metric,mean,sd,min,max,n`, one row per
    /// (point, transport, metric) with a value (numbers in Rust's shortest round-trip form).
    pub fn to_csv(&self) -> String {
        let pcols: Vec<String> = self.rows.first().map(|r| r.point.iter().map(|p| p.0.clone()).collect()).unwrap_or_default();
        let mut s = String::new();
        for c in &pcols {
            let _ = write!(s, "{c},");
        }
        s.push_str("transport,metric,mean,sd,min,max,n,ci95\n");
        for r in &self.rows {
            for p in &r.point {
                let _ = write!(s, "{},", p.1);
            }
            let st = &r.stats;
            let _ = writeln!(s, "{},{},{},{},{},{},{},{}", r.transport, r.metric, st.mean, st.sd, st.min, st.max, st.n, st.ci95());
        }
        s
    }

    /// Read a `NAME.seeds.csv` back.
    pub fn from_csv(name: &str, path: &Path, text: &str) -> Result<Summary, SeedsError> {
        let csv = parse_csv(text, path)?;
        let bad = |reason: String| SeedsError::File { path: path.to_path_buf(), reason };
        let col = |c: &str| csv.header.iter().position(|h| h == c).ok_or_else(|| bad(format!("no {c:?} column: not a .seeds.csv")));
        let (t, m, mean, sd, min, max, n) = (col("transport")?, col("metric")?, col("mean")?, col("sd")?, col("min")?, col("max")?, col("n")?);
        let pcols: Vec<(usize, &str)> = POINT_COLS.iter().filter_map(|c| csv.header.iter().position(|h| h == c).map(|i| (i, *c))).collect();
        let mut rows = Vec::new();
        for (i, r) in csv.rows.iter().enumerate() {
            let num = |j: usize| r[j].parse::<f64>().map_err(|_| bad(format!("line {}: {:?} is not a number", i + 2, r[j])));
            rows.push(SummaryRow {
                point: pcols.iter().map(|&(j, c)| (c.to_string(), r[j].clone())).collect(),
                transport: r[t].clone(),
                metric: r[m].clone(),
                stats: Stats {
                    n: r[n].parse().map_err(|_| bad(format!("line {}: n = {:?}", i + 2, r[n])))?,
                    mean: num(mean)?,
                    sd: num(sd)?,
                    min: num(min)?,
                    max: num(max)?,
                },
            });
        }
        Ok(Summary { name: name.to_string(), seeds: Vec::new(), rows })
    }

    /// `NAME.seeds.svg`: `metric` (mean over the seeds) against the first swept axis, one
    /// line per transport, with 95 % confidence-interval error bars.
    pub fn plot_svg(&self, metric: &str, path: &Path) -> Result<(), SimError> {
        use plotters::prelude::*;
        let perr = |e: &dyn std::fmt::Debug| SimError::Plot { path: path.to_path_buf(), reason: format!("{e:?}") };
        let swept = self.swept();
        let Some(axis) = swept.first().cloned() else {
            return Err(SimError::Plot { path: path.to_path_buf(), reason: "nothing is swept".into() });
        };
        let rows: Vec<&SummaryRow> = self.rows.iter().filter(|r| r.metric == metric).collect();
        let xv = |r: &SummaryRow| r.point.iter().find(|p| p.0 == axis).map(|p| p.1.clone()).unwrap_or_default();
        let mut xs: Vec<String> = Vec::new();
        let mut series: Vec<(String, Vec<(f64, f64, f64)>)> = Vec::new();
        for r in &rows {
            let x = xv(r);
            if !xs.contains(&x) {
                xs.push(x.clone());
            }
            let others: Vec<String> = swept.iter().skip(1).filter_map(|a| r.point.iter().find(|p| &p.0 == a).map(|p| format!("{a}={}", p.1))).collect();
            let name = if others.is_empty() { r.transport.clone() } else { format!("{} {}", r.transport, others.join(" ")) };
            let i = xs.iter().position(|v| *v == x).unwrap_or(0) as f64;
            let pt = (i, r.stats.mean, r.stats.ci95());
            match series.iter_mut().find(|s| s.0 == name) {
                Some(s) => s.1.push(pt),
                None => series.push((name, vec![pt])),
            }
        }
        let hi = series.iter().flat_map(|s| s.1.iter().map(|p| p.1 + p.2)).fold(1.0f64, f64::max) * 1.1;
        let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| perr(&e))?;
        let n = self.rows.first().map_or(0, |r| r.stats.n);
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: {metric} vs {axis}, mean over {n} seeds ± 95 % CI", self.name), ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.3f64..(xs.len() as f64 - 0.7), 0f64..hi)
            .map_err(|e| perr(&e))?;
        let xl = xs.clone();
        let xfmt = move |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < xl.len() {
                xl[i as usize].clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_labels(xs.len().max(2) * 4)
            .x_label_formatter(&xfmt)
            .x_desc(axis.as_str())
            .y_desc(metric)
            .draw()
            .map_err(|e| perr(&e))?;
        let k = series.len().max(1) as f64;
        for (i, (name, pts)) in series.iter().enumerate() {
            let c = Palette99::pick(i).to_rgba();
            // spread the series a little along x so the error bars do not overlap
            let dx = 0.25 * (i as f64 / k - 0.5);
            let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0 + dx, p.1)).collect();
            chart
                .draw_series(LineSeries::new(line.clone(), c.stroke_width(2)))
                .map_err(|e| perr(&e))?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
            // error bars drawn as paths: a vertical line from mean - ci to mean + ci with caps
            let w = 0.04;
            let bars = pts.iter().flat_map(|p| {
                let (x, lo, hi) = (p.0 + dx, p.1 - p.2, p.1 + p.2);
                [
                    PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(1)),
                    PathElement::new(vec![(x - w, lo), (x + w, lo)], c.stroke_width(1)),
                    PathElement::new(vec![(x - w, hi), (x + w, hi)], c.stroke_width(1)),
                ]
            });
            chart.draw_series(bars).map_err(|e| perr(&e))?;
            chart.draw_series(line.iter().map(|&q| Circle::new(q, 3, c.filled()))).map_err(|e| perr(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| perr(&e))?;
        root.present().map_err(|e| perr(&e))
    }

    /// The point columns whose value differs between rows (the swept axes).
    fn swept(&self) -> Vec<String> {
        swept_of(self.rows.iter().map(|r| &r.point))
    }

    /// `NAME.seeds.md`: per (point, transport, metric) mean ± sd, min..max and n; metrics
    /// that are 0 in every run of a (point, transport) are left out.
    pub fn to_markdown(&self, ci: bool) -> String {
        let mut s = format!("## {} over seeds\n\n", self.name);
        if !self.seeds.is_empty() {
            let l: Vec<String> = self.seeds.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(
                s,
                "{} variant, seeds {}; sd is the sample standard deviation, ±95 % the half-width of the 95 % confidence interval of the mean (Student's t, n − 1 degrees of freedom); metrics that are 0 in every run are left out.\n",
                if ci { "CI" } else { "Full-size" },
                l.join(", ")
            );
        }
        let swept = self.swept();
        s.push_str("| point | transport | metric | mean ± sd | ±95 % | min .. max | n |\n|---|---|---|---|---|---|---|\n");
        for r in &self.rows {
            let st = &r.stats;
            if st.min == 0.0 && st.max == 0.0 {
                continue;
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} ± {} | {} | {} .. {} | {} |",
                point_label(&r.point, &swept),
                r.transport,
                r.metric,
                num(st.mean),
                num(st.sd),
                num(st.ci95()),
                num(st.min),
                num(st.max),
                st.n
            );
        }
        s
    }
}

fn swept_of<'a>(points: impl Iterator<Item = &'a PointKey> + Clone) -> Vec<String> {
    let mut out = Vec::new();
    for c in POINT_COLS {
        let mut seen: Vec<&str> = Vec::new();
        for p in points.clone() {
            if let Some((_, v)) = p.iter().find(|x| x.0 == c) {
                if !seen.contains(&v.as_str()) {
                    seen.push(v);
                }
            }
        }
        if seen.len() > 1 {
            out.push(c.to_string());
        }
    }
    out
}

/// `loss=1% planes=4` over the swept columns (`-` when nothing is swept).
fn point_label(p: &PointKey, swept: &[String]) -> String {
    let v: Vec<String> = p
        .iter()
        .filter(|(c, _)| swept.contains(c))
        .map(|(c, v)| match (c.as_str(), v.parse::<f64>()) {
            ("loss", Ok(x)) => format!("loss={}%", x * 100.0),
            ("message_bytes", Ok(x)) => format!("msg={}", crate::scenario::human_bytes(x as u64)),
            ("rate_hint", _) => format!("hint={}", if v == "true" { "on" } else { "off" }),
            ("conns_per_pair", _) => format!("conns={v}"),
            _ => format!("{c}={v}"),
        })
        .collect();
    if v.is_empty() {
        "-".into()
    } else {
        v.join(" ")
    }
}

/// A number for a table: 4 significant digits, no exponent for ordinary magnitudes.
pub fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x == x.round() && x.abs() < 1e9 {
        return format!("{x:.0}");
    }
    let mag = x.abs().log10().floor() as i32;
    let dec = (3 - mag).clamp(0, 6) as usize;
    format!("{x:.dec$}")
}

/// How a result set is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `DIR/seed-K/NAME.csv` for each seed.
    PerSeed(Vec<(u64, PathBuf)>),
    /// `DIR/NAME.seeds.csv`.
    Summary(PathBuf),
    /// `DIR/NAME.csv`: one run (one seed, unknown).
    Single(PathBuf),
}

/// One scenario's results found by [`find_sets`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultSet {
    /// `REL/NAME`: the directory relative to the searched root and the scenario name (just
    /// `REL` when the directory is named after the scenario, as in `ci/loss_sweep`).
    pub key: String,
    /// The scenario name.
    pub name: String,
    /// Where its numbers are.
    pub source: Source,
}

impl ResultSet {
    /// Its [`Summary`] (recomputed from the per-seed CSVs when there are some).
    pub fn load(&self) -> Result<Summary, SeedsError> {
        let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| SeedsError::File { path: p.to_path_buf(), reason: e.to_string() });
        match &self.source {
            Source::PerSeed(v) => {
                let mut texts = Vec::new();
                for (k, p) in v {
                    texts.push((*k, p.clone(), read(p)?));
                }
                Summary::from_seed_csvs(&self.name, &texts)
            }
            Source::Summary(p) => Summary::from_csv(&self.name, p, &read(p)?),
            Source::Single(p) => Summary::from_seed_csvs(&self.name, &[(0, p.clone(), read(p)?)]),
        }
    }
}

fn seed_dir(name: &str) -> Option<u64> {
    name.strip_prefix("seed-")?.parse().ok()
}

fn run_csv_name(file: &str) -> Option<&str> {
    let stem = file.strip_suffix(".csv")?;
    (!stem.ends_with("-timeseries") && !stem.ends_with(".seeds")).then_some(stem)
}

fn list_dir(dir: &Path) -> Result<Vec<(String, PathBuf, bool)>, SeedsError> {
    let rd = std::fs::read_dir(dir).map_err(|e| SeedsError::File { path: dir.to_path_buf(), reason: e.to_string() })?;
    let mut v = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        v.push((name, p.clone(), p.is_dir()));
    }
    v.sort();
    Ok(v)
}

/// Every result set under `root` (up to 4 directories deep), sorted by key. In one
/// directory, per-seed runs (`seed-K/NAME.csv`) win over `NAME.seeds.csv`, which wins over a
/// single run's `NAME.csv`; `seed-K` directories are not searched further.
pub fn find_sets(root: &Path) -> Result<Vec<ResultSet>, SeedsError> {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<ResultSet>) -> Result<(), SeedsError> {
        let entries = list_dir(dir)?;
        let rel = dir.strip_prefix(root).unwrap_or(Path::new("")).to_string_lossy().into_owned();
        let last = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let key = |name: &str| match rel.as_str() {
            "" => name.to_string(),
            r if last == name => r.to_string(),
            r => format!("{r}/{name}"),
        };
        let mut per_seed: BTreeMap<String, Vec<(u64, PathBuf)>> = BTreeMap::new();
        for (n, p, is_dir) in &entries {
            if let (Some(k), true) = (seed_dir(n), *is_dir) {
                for (f, fp, d) in list_dir(p)? {
                    if let (Some(stem), false) = (run_csv_name(&f), d) {
                        per_seed.entry(stem.to_string()).or_default().push((k, fp));
                    }
                }
            }
        }
        let mut here: BTreeMap<String, Source> = BTreeMap::new();
        for (name, mut v) in per_seed {
            v.sort();
            here.insert(name, Source::PerSeed(v));
        }
        for (n, p, is_dir) in &entries {
            if *is_dir {
                continue;
            }
            if let Some(stem) = n.strip_suffix(".seeds.csv") {
                here.entry(stem.to_string()).or_insert_with(|| Source::Summary(p.clone()));
            }
        }
        for (n, p, is_dir) in &entries {
            if let (Some(stem), false) = (run_csv_name(n), *is_dir) {
                here.entry(stem.to_string()).or_insert_with(|| Source::Single(p.clone()));
            }
        }
        for (name, source) in here {
            out.push(ResultSet { key: key(&name), name, source });
        }
        if depth < 4 {
            for (n, p, is_dir) in &entries {
                if *is_dir && seed_dir(n).is_none() && !n.starts_with('.') {
                    walk(root, p, depth + 1, out)?;
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, root, 0, &mut out)?;
    if out.is_empty() {
        return Err(SeedsError::NoResults { dir: root.to_path_buf() });
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(out)
}

/// Is a difference a regression?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// Not flagged: within the spread, equal, one side missing, or a [`Better::Neither`]
    /// metric.
    None,
    /// After is worse than before by more than the larger spread.
    Worse,
    /// After is better than before by more than the larger spread.
    Better,
}

/// The flag of one metric (see the module docs for the rule).
pub fn flag(metric: &str, before: &Stats, after: &Stats) -> Flag {
    flag_tol(metric, before, after, 0.0)
}

/// [`flag`] with a tolerance: the threshold is the larger of the two spreads and
/// `tolerance` (a fraction, 0.01 = 1 %) of |before mean|. `flag` is `tolerance` 0.
pub fn flag_tol(metric: &str, before: &Stats, after: &Stats, tolerance: f64) -> Flag {
    let worse_by = match better(metric) {
        Better::Higher => before.mean - after.mean,
        Better::Lower => after.mean - before.mean,
        Better::Neither => return Flag::None,
    };
    let spread = before.range().max(after.range()).max(tolerance * before.mean.abs());
    if worse_by > spread {
        Flag::Worse
    } else if -worse_by > spread {
        Flag::Better
    } else {
        Flag::None
    }
}

/// One (point, transport, metric) before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// The sweep point.
    pub point: PointKey,
    /// The transport.
    pub transport: String,
    /// The metric.
    pub metric: String,
    /// Before, if it has the metric.
    pub before: Option<Stats>,
    /// After, if it has the metric.
    pub after: Option<Stats>,
    /// The flag.
    pub flag: Flag,
}

/// One scenario before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The result set key (`REL/NAME`).
    pub key: String,
    /// Rows in the before order, then rows only after has.
    pub rows: Vec<CompareRow>,
}

impl Comparison {
    /// Rows flagged [`Flag::Worse`].
    pub fn worse(&self) -> impl Iterator<Item = &CompareRow> {
        self.rows.iter().filter(|r| r.flag == Flag::Worse)
    }

    /// The scenario's headline metric, as `mrnic sim`'s table picks it: the completion time
    /// when every run (before) completed its workload, the goodput otherwise.
    pub fn headline(&self) -> &'static str {
        let done: Vec<&CompareRow> = self.rows.iter().filter(|r| r.metric == "completed").collect();
        if !done.is_empty() && done.iter().all(|r| r.before.is_some_and(|b| b.min == 1.0)) {
            "completion_us"
        } else {
            "goodput_gbps"
        }
    }
}

/// `before` and `after` side by side ([`flag`]).
pub fn compare(key: &str, before: &Summary, after: &Summary) -> Comparison {
    compare_tol(key, before, after, 0.0)
}

/// [`compare`] with a tolerance ([`flag_tol`]).
pub fn compare_tol(key: &str, before: &Summary, after: &Summary, tolerance: f64) -> Comparison {
    let k = |r: &SummaryRow| (r.point.clone(), r.transport.clone(), r.metric.clone());
    let amap: BTreeMap<_, &SummaryRow> = after.rows.iter().map(|r| (k(r), r)).collect();
    let bkeys: std::collections::BTreeSet<_> = before.rows.iter().map(k).collect();
    let mut rows = Vec::new();
    for b in &before.rows {
        let a = amap.get(&k(b)).map(|r| r.stats);
        let flag = a.map_or(Flag::None, |a| flag_tol(&b.metric, &b.stats, &a, tolerance));
        rows.push(CompareRow { point: b.point.clone(), transport: b.transport.clone(), metric: b.metric.clone(), before: Some(b.stats), after: a, flag });
    }
    for a in &after.rows {
        if !bkeys.contains(&k(a)) {
            rows.push(CompareRow { point: a.point.clone(), transport: a.transport.clone(), metric: a.metric.clone(), before: None, after: Some(a.stats), flag: Flag::None });
        }
    }
    Comparison { key: key.to_string(), rows }
}

/// Everything `mrnic compare` found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The before directory.
    pub before: PathBuf,
    /// The after directory.
    pub after: PathBuf,
    /// Scenarios in both, by key.
    pub comparisons: Vec<Comparison>,
    /// Keys only before has.
    pub only_before: Vec<String>,
    /// Keys only after has.
    pub only_after: Vec<String>,
    /// The tolerance the flags used (a fraction; 0 = the spread alone).
    pub tolerance: f64,
}

/// Find the result sets of both trees ([`find_sets`]), match them by key (`REL/NAME`; when
/// the keys differ, by name if the name is unique on both sides) and compare each pair.
pub fn compare_dirs(before: &Path, after: &Path) -> Result<Report, SeedsError> {
    compare_dirs_tol(before, after, 0.0)
}

/// [`compare_dirs`] with a tolerance ([`flag_tol`]; a fraction, 0.01 = 1 %).
pub fn compare_dirs_tol(before: &Path, after: &Path, tolerance: f64) -> Result<Report, SeedsError> {
    let bs = find_sets(before)?;
    let as_ = find_sets(after)?;
    let mut comparisons = Vec::new();
    let mut used_after = vec![false; as_.len()];
    let mut only_before = Vec::new();
    let unique = |v: &[ResultSet], name: &str| v.iter().filter(|s| s.name == name).count() == 1;
    for b in &bs {
        let j = as_.iter().position(|a| a.key == b.key).or_else(|| {
            (unique(&bs, &b.name) && unique(&as_, &b.name)).then(|| as_.iter().position(|a| a.name == b.name)).flatten()
        });
        match j {
            Some(j) if !used_after[j] => {
                used_after[j] = true;
                comparisons.push(compare_tol(&b.key, &b.load()?, &as_[j].load()?, tolerance));
            }
            _ => only_before.push(b.key.clone()),
        }
    }
    let only_after: Vec<String> = as_.iter().zip(&used_after).filter(|(_, u)| !**u).map(|(a, _)| a.key.clone()).collect();
    if comparisons.is_empty() {
        return Err(SeedsError::NothingInCommon {
            before: before.to_path_buf(),
            after: after.to_path_buf(),
            b_names: bs.iter().map(|s| s.key.clone()).collect(),
            a_names: as_.iter().map(|s| s.key.clone()).collect(),
        });
    }
    Ok(Report { before: before.to_path_buf(), after: after.to_path_buf(), comparisons, only_before, only_after, tolerance })
}

fn ms(s: &Option<Stats>) -> String {
    match s {
        Some(s) if s.n > 1 => format!("{} ± {} (n={})", num(s.mean), num(s.sd), s.n),
        Some(s) => format!("{} (n=1)", num(s.mean)),
        None => "–".into(),
    }
}

fn delta(r: &CompareRow) -> String {
    match (r.before, r.after) {
        (Some(b), Some(a)) => {
            let d = a.mean - b.mean;
            let sign = if d > 0.0 { "+" } else { "" };
            if b.mean != 0.0 && d != 0.0 {
                format!("{sign}{} ({sign}{:.1} %)", num(d), 100.0 * d / b.mean.abs())
            } else {
                format!("{sign}{}", num(d))
            }
        }
        _ => "–".into(),
    }
}

impl Report {
    /// Every row flagged [`Flag::Worse`], with its scenario key.
    pub fn worse(&self) -> Vec<(&str, &CompareRow)> {
        self.comparisons.iter().flat_map(|c| c.worse().map(move |r| (c.key.as_str(), r))).collect()
    }

    /// The markdown: the rule, the flagged rows, then one table per scenario. Rows whose
    /// metric is 0 in every run on both sides are left out.
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("# Before and after\n\n");
        let _ = writeln!(s, "Before: `{}`; after: `{}`.\n", self.before.display(), self.after.display());
        s.push_str(
            "Each cell is the mean ± the sample standard deviation over the seeds (n = seeds with a value). \
             `WORSE`: the after mean is worse than the before mean by more than the larger of the two spreads \
             (max − min over the seeds); `better`: better by more than that. Higher is better for goodput, % of line \
             rate, Jain's index and completed; lower is better for completion time, convergence time, peak queue, \
             buffer / blackhole / no-route drops, retransmissions and timeouts; ECN marks, CNPs, frames sent, random \
             drops and the ratio to RoCE are never flagged. Rows that are 0 in every run on both sides are left out.\n\n",
        );
        if self.tolerance > 0.0 {
            let _ = writeln!(
                s,
                "Tolerance {} %: a change is flagged only when it is also larger than {} % of the before mean.\n",
                self.tolerance * 100.0,
                self.tolerance * 100.0
            );
        }
        let worse = self.worse();
        let nbetter: usize = self.comparisons.iter().map(|c| c.rows.iter().filter(|r| r.flag == Flag::Better).count()).sum();
        let _ = writeln!(s, "**{} flagged WORSE**, {nbetter} better, over {} scenario(s).\n", worse.len(), self.comparisons.len());
        if !self.only_before.is_empty() {
            let _ = writeln!(s, "Only before (not compared): {}.\n", self.only_before.join(", "));
        }
        if !self.only_after.is_empty() {
            let _ = writeln!(s, "Only after (not compared): {}.\n", self.only_after.join(", "));
        }
        let head = "| point | transport | metric | before | after | delta | flag |\n|---|---|---|---|---|---|---|\n";
        let row = |s: &mut String, r: &CompareRow, swept: &[String], prefix: &str| {
            let f = match r.flag {
                Flag::Worse => "**WORSE**",
                Flag::Better => "better",
                Flag::None => "",
            };
            let _ = writeln!(
                s,
                "| {prefix}{} | {} | {} | {} | {} | {} | {f} |",
                point_label(&r.point, swept),
                r.transport,
                r.metric,
                ms(&r.before),
                ms(&r.after),
                delta(r)
            );
        };
        s.push_str("## Headline metric of every scenario\n\n");
        s.push_str("Completion time (µs) when every run completes its workload, else goodput (Gb/s).\n\n");
        s.push_str(head);
        for c in &self.comparisons {
            let swept = swept_of(c.rows.iter().map(|r| &r.point));
            let m = c.headline();
            for r in c.rows.iter().filter(|r| r.metric == m) {
                row(&mut s, r, &swept, &format!("{}: ", c.key));
            }
        }
        s.push('\n');
        if !worse.is_empty() {
            s.push_str("## Flagged WORSE\n\n");
            s.push_str(head);
            for c in &self.comparisons {
                let swept = swept_of(c.rows.iter().map(|r| &r.point));
                for r in c.worse() {
                    row(&mut s, r, &swept, &format!("{}: ", c.key));
                }
            }
            s.push('\n');
        }
        for c in &self.comparisons {
            let _ = writeln!(s, "## {}\n", c.key);
            let swept = swept_of(c.rows.iter().map(|r| &r.point));
            s.push_str(head);
            for r in &c.rows {
                let zero = |x: &Option<Stats>| x.is_none_or(|x| x.min == 0.0 && x.max == 0.0);
                if zero(&r.before) && zero(&r.after) {
                    continue;
                }
                row(&mut s, r, &swept, "");
            }
            s.push('\n');
        }
        s
    }
}
