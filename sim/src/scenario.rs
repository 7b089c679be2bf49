//! Scenario files: one TOML file describes a network, a workload, the
//! transports to compare and the parameters to sweep; [`run_scenario`] runs
//! every (sweep point x transport) combination.
//!
//! ```toml
//! name = "loss_sweep"
//! duration_us = 2000
//! transports = ["mrnic", "roce", "irn"]
//! [topology]            # crate::config::TopologySpec
//! kind = "leaf_spine"
//! [fabric]              # crate::config::FabricSpec
//! link_gbps = 400
//! [traffic]             # crate::config::TrafficSpec
//! kind = "flows"
//! messages = 0
//! [sweep]
//! loss = [0.0, 0.0001, 0.001, 0.01, 0.05, 0.1]
//! [ci]                  # merged over the file when running the small (CI) variant
//! duration_us = 200
//! ```
//!
//! Unknown keys are refused (typos do not silently become defaults), and every
//! sweep point is validated before anything runs.

use serde::{Deserialize, Serialize};

use crate::baseline::irn::IrnConfig;
use crate::baseline::roce::RoceConfig;
use crate::baseline::{IrnFactory, RoceFactory};
use crate::config::{FabricSpec, FailureSpec, TopologySpec, TrafficSpec};
use crate::engine::{Progress, RunConfig, RunResult};
use crate::transport::Transport;
use crate::SimError;

/// A transport to compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// The mrnic transport (its factory is supplied by the caller of [`run_scenario`]).
    Mrnic,
    /// RoCEv2-style go-back-N ([`crate::baseline::roce`]).
    Roce,
    /// IRN as written in the paper ([`crate::baseline::irn`], `[irn]`).
    Irn,
    /// RoCEv2 with a re-NAK interval and DCQCN rescaled for the link rate (`[roce_fair]`,
    /// default [`RoceConfig::fair`]).
    RoceRenak,
    /// [`TransportKind::RoceRenak`] over a lossless fabric: PFC pause frames on every
    /// link (`[fabric.pfc]`, forced on for this transport only).
    RocePfc,
    /// IRN with mrnic's window, lost-retransmission re-detection and rescaled timers
    /// (`[irn_fair]`, default [`IrnConfig::fair`]).
    IrnFair,
    /// UET-style sprayed selective repeat: per-packet entropy, SACK bitmap, no per-path
    /// state (`[spray]`, default [`IrnConfig::spray`]).
    Spray,
    /// mrnic with `paths = 1` and the same initial connection window ([`one_path`]; the
    /// `[mrnic]` table otherwise): the difference to `mrnic` is multipath alone.
    #[serde(rename = "mrnic_1path")]
    Mrnic1Path,
}

impl TransportKind {
    /// Name used in result tables.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Mrnic => "mrnic",
            TransportKind::Roce => "roce",
            TransportKind::Irn => "irn",
            TransportKind::RoceRenak => "roce_renak",
            TransportKind::RocePfc => "roce_pfc",
            TransportKind::IrnFair => "irn_fair",
            TransportKind::Spray => "spray",
            TransportKind::Mrnic1Path => "mrnic_1path",
        }
    }
}

/// mrnic's configuration with one path: `paths = 1`, and the one path's initial window
/// the connection's initial window of `cfg` (`paths x cwnd_init`, at most `cwnd_max` and
/// `window`), so that the run differs from `cfg`'s in the number of paths only, not in
/// a smaller start (16 packets on one path take ~240 RTTs of additive increase to
/// open to the 256-PSN window).
pub fn one_path(cfg: &mrnic_model::transport::TransportConfig) -> mrnic_model::transport::TransportConfig {
    let init = (cfg.cwnd_init * u32::from(cfg.paths)).min(cfg.cwnd_max).min(cfg.window);
    mrnic_model::transport::TransportConfig { paths: 1, cwnd_init: init, ..cfg.clone() }
}

/// The transports a scenario's runs use, built once per scenario.
struct Factories<'a> {
    roce: RoceFactory,
    roce_fair: RoceFactory,
    irn: IrnFactory,
    irn_fair: IrnFactory,
    spray: IrnFactory,
    mrnic1: Option<crate::mrnic::MrnicFactory>,
    mrnic: Option<&'a (dyn Transport + Sync)>,
}

impl<'a> Factories<'a> {
    fn new(sc: &Scenario, mrnic: Option<&'a (dyn Transport + Sync)>) -> Factories<'a> {
        Factories {
            roce: RoceFactory { cfg: sc.roce.clone() },
            roce_fair: RoceFactory { cfg: sc.roce_fair.clone() },
            irn: IrnFactory { cfg: sc.irn.clone() },
            irn_fair: IrnFactory { cfg: sc.irn_fair.clone() },
            spray: IrnFactory { cfg: sc.spray.clone() },
            mrnic1: sc.transports.contains(&TransportKind::Mrnic1Path).then(|| crate::mrnic::MrnicFactory { cfg: one_path(&sc.mrnic) }),
            mrnic,
        }
    }

    fn get(&self, k: TransportKind) -> &(dyn Transport + Sync) {
        match k {
            TransportKind::Roce => &self.roce,
            TransportKind::RoceRenak | TransportKind::RocePfc => &self.roce_fair,
            TransportKind::Irn => &self.irn,
            TransportKind::IrnFair => &self.irn_fair,
            TransportKind::Spray => &self.spray,
            TransportKind::Mrnic1Path => self.mrnic1.as_ref().expect("built when listed"),
            TransportKind::Mrnic => self.mrnic.expect("checked before running"),
        }
    }
}

/// Values to sweep; an empty list keeps the scenario's own value. Runs are
/// the cartesian product, in the order loss, message_bytes, planes,
/// conns_per_pair, rate_hint (last varies fastest).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sweep {
    /// `fabric.loss` values.
    pub loss: Vec<f64>,
    /// `traffic.message_bytes` values.
    pub message_bytes: Vec<u64>,
    /// `topology.planes` values.
    pub planes: Vec<u8>,
    /// `traffic.conns_per_pair` values.
    pub conns_per_pair: Vec<u32>,
    /// `rate_hint` values.
    pub rate_hint: Vec<bool>,
}

/// One combination of swept values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Per-link loss.
    pub loss: f64,
    /// Message / buffer size.
    pub message_bytes: u64,
    /// Planes.
    pub planes: u8,
    /// Connections per host pair.
    pub conns_per_pair: u32,
    /// Receiver rate hint.
    pub rate_hint: bool,
}

/// Names of the sweep axes, in product order.
pub const AXES: [&str; 5] = ["loss", "message_bytes", "planes", "conns_per_pair", "rate_hint"];

impl Point {
    /// Value of axis `name` (see [`AXES`]) as a number.
    pub fn axis(&self, name: &str) -> f64 {
        match name {
            "loss" => self.loss,
            "message_bytes" => self.message_bytes as f64,
            "planes" => self.planes as f64,
            "conns_per_pair" => self.conns_per_pair as f64,
            "rate_hint" => self.rate_hint as u8 as f64,
            _ => f64::NAN,
        }
    }

    /// Value of axis `name` formatted for tables.
    pub fn axis_label(&self, name: &str) -> String {
        match name {
            "loss" => format!("{}%", self.loss * 100.0),
            "message_bytes" => human_bytes(self.message_bytes),
            "rate_hint" => (if self.rate_hint { "on" } else { "off" }).to_string(),
            _ => format!("{}", self.axis(name)),
        }
    }
}

/// `4 KiB`, `64 MiB`, `1500 B`.
pub fn human_bytes(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 && b.is_multiple_of(1 << 10) {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// A scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name (used for output file names).
    pub name: String,
    /// What the experiment shows.
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Simulated time limit per run, µs.
    pub duration_us: f64,
    /// Goodput-over-time bin, µs.
    #[serde(default = "ten")]
    pub bin_us: f64,
    /// Transports to compare (each runs every sweep point).
    pub transports: Vec<TransportKind>,
    /// Topology.
    #[serde(default)]
    pub topology: TopologySpec,
    /// Physical fabric.
    #[serde(default)]
    pub fabric: FabricSpec,
    /// Workload.
    pub traffic: TrafficSpec,
    /// Timed link events.
    #[serde(default)]
    pub failures: Vec<FailureSpec>,
    /// Parameters to sweep.
    #[serde(default)]
    pub sweep: Sweep,
    /// Receiver rate hint (when not swept).
    #[serde(default)]
    pub rate_hint: bool,
    /// RoCE baseline parameters.
    #[serde(default)]
    pub roce: RoceConfig,
    /// IRN baseline parameters (the paper as written unless changed).
    #[serde(default)]
    pub irn: IrnConfig,
    /// Parameters of `roce_renak` and `roce_pfc`.
    #[serde(default = "RoceConfig::fair")]
    pub roce_fair: RoceConfig,
    /// Parameters of `irn_fair`.
    #[serde(default = "IrnConfig::fair")]
    pub irn_fair: IrnConfig,
    /// Parameters of `spray`.
    #[serde(default = "IrnConfig::spray")]
    pub spray: IrnConfig,
    /// mrnic transport parameters (`[transport]` of docs/protocol.md §5; `mtu` comes
    /// from the fabric).
    #[serde(default)]
    pub mrnic: mrnic_model::transport::TransportConfig,
    /// Event limit per run (0 = none).
    #[serde(default)]
    pub max_events: u64,
}

fn one_u64() -> u64 {
    1
}
fn ten() -> f64 {
    10.0
}

/// Most runs one scenario may expand to.
pub const MAX_RUNS: usize = 10_000;

fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

impl Scenario {
    /// Parse and validate a scenario. With `ci`, the optional `[ci]` table is
    /// merged over the file first (tables merge key by key, other values replace).
    pub fn from_toml_str(text: &str, ci: bool) -> Result<Scenario, SimError> {
        let mut t: toml::Table = text.parse().map_err(|e: toml::de::Error| SimError::Toml(e.to_string()))?;
        let over = t.remove("ci");
        if ci {
            if let Some(o) = over {
                let o = o.as_table().ok_or_else(|| SimError::invalid("ci", "must be a table"))?.clone();
                merge(&mut t, &o);
            }
        }
        let sc: Scenario = toml::Value::Table(t).try_into().map_err(|e| SimError::Schema(e.to_string()))?;
        sc.validate()?;
        Ok(sc)
    }

    /// Read, parse and validate a scenario file.
    pub fn load(path: &std::path::Path, ci: bool) -> Result<Scenario, SimError> {
        let text = std::fs::read_to_string(path).map_err(|e| SimError::io("read", path, e))?;
        Scenario::from_toml_str(&text, ci).map_err(|e| SimError::InFile { path: path.to_path_buf(), error: Box::new(e) })
    }

    /// Refuse bad scenarios, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(SimError::invalid("name", format!("{:?} must be non-empty [A-Za-z0-9_-]", self.name)));
        }
        if self.transports.is_empty() {
            return Err(SimError::invalid("transports", "list at least one of mrnic, mrnic_1path, roce, roce_renak, roce_pfc, irn, irn_fair, spray"));
        }
        let mut t = self.transports.clone();
        t.sort();
        t.dedup();
        if t.len() != self.transports.len() {
            return Err(SimError::invalid("transports", "lists a transport twice"));
        }
        self.roce.validate()?;
        self.irn.validate()?;
        self.roce_fair.validate()?;
        self.irn_fair.validate()?;
        self.spray.validate()?;
        self.mrnic.validate().map_err(SimError::Mrnic)?;
        let points = self.points();
        if points.len() * self.transports.len() > MAX_RUNS {
            return Err(SimError::invalid("sweep", format!("expands to more than {MAX_RUNS} runs")));
        }
        for p in &points {
            self.run_config(p, "").validate().map_err(|e| match self.point_label(p) {
                point if point.is_empty() => e, // nothing swept: the scenario itself is wrong
                point => SimError::SweepPoint { point, error: Box::new(e) },
            })?;
        }
        Ok(())
    }

    /// Every sweep point, in product order.
    pub fn points(&self) -> Vec<Point> {
        fn or<T: Clone>(v: &[T], d: T) -> Vec<T> {
            if v.is_empty() {
                vec![d]
            } else {
                v.to_vec()
            }
        }
        let mut out = Vec::new();
        for &loss in &or(&self.sweep.loss, self.fabric.loss) {
            for &message_bytes in &or(&self.sweep.message_bytes, self.traffic.message_bytes) {
                for &planes in &or(&self.sweep.planes, self.topology.planes) {
                    for &conns_per_pair in &or(&self.sweep.conns_per_pair, self.traffic.conns_per_pair) {
                        for &rate_hint in &or(&self.sweep.rate_hint, self.rate_hint) {
                            out.push(Point { loss, message_bytes, planes, conns_per_pair, rate_hint });
                        }
                    }
                }
            }
        }
        out
    }

    /// Axes with more than one value.
    pub fn swept_axes(&self) -> Vec<&'static str> {
        let n = [
            self.sweep.loss.len(),
            self.sweep.message_bytes.len(),
            self.sweep.planes.len(),
            self.sweep.conns_per_pair.len(),
            self.sweep.rate_hint.len(),
        ];
        AXES.iter().zip(n).filter(|(_, n)| *n > 1).map(|(a, _)| *a).collect()
    }

    /// `loss=1% planes=4` over the swept axes.
    pub fn point_label(&self, p: &Point) -> String {
        let v: Vec<String> = self.swept_axes().iter().map(|a| format!("{a}={}", p.axis_label(a))).collect();
        v.join(" ")
    }

    /// The run configuration of one sweep point for transport `k` (`roce_pfc` turns
    /// PFC on; every other transport runs [`Scenario::run_config`]).
    pub fn run_config_for(&self, p: &Point, k: TransportKind, label: &str) -> RunConfig {
        let mut c = self.run_config(p, label);
        if k == TransportKind::RocePfc {
            c.fabric.pfc.enabled = true;
        }
        c
    }

    /// The run configuration of one sweep point.
    pub fn run_config(&self, p: &Point, label: &str) -> RunConfig {
        let mut topology = self.topology.clone();
        topology.planes = p.planes;
        let mut fabric = self.fabric.clone();
        fabric.loss = p.loss;
        let mut traffic = self.traffic.clone();
        traffic.message_bytes = p.message_bytes;
        traffic.conns_per_pair = p.conns_per_pair;
        RunConfig {
            label: label.to_string(),
            topology,
            fabric,
            traffic,
            failures: self.failures.clone(),
            duration_us: self.duration_us,
            bin_us: self.bin_us,
            seed: self.seed,
            rate_hint: p.rate_hint,
            max_events: self.max_events,
        }
    }
}

/// One run of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Sweep point.
    pub point: Point,
    /// Measurements (the transport name is `result.transport`).
    pub result: RunResult,
}

/// Everything a scenario produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Results {
    /// Scenario name.
    pub name: String,
    /// Scenario description.
    pub description: String,
    /// Swept axes (more than one value), in product order.
    pub axes: Vec<String>,
    /// Runs, point-major, transports in scenario order.
    pub records: Vec<Record>,
}

/// Every run of a scenario in order: `(point index, point, transport, label)`. Labels
/// number the runs of the whole scenario, so a shard's runs carry the same labels as
/// in the unsharded run.
fn runs(sc: &Scenario) -> Vec<(usize, Point, TransportKind, String)> {
    let points = sc.points();
    let total = points.len() * sc.transports.len();
    let mut v = Vec::with_capacity(total);
    for (i, p) in points.iter().enumerate() {
        for &k in &sc.transports {
            let label = format!("[{}/{}] {} {}", v.len() + 1, total, k.name(), sc.point_label(p));
            v.push((i, *p, k, label.trim_end().to_string()));
        }
    }
    v
}

fn check_mrnic(sc: &Scenario, supplied: bool) -> Result<(), SimError> {
    sc.validate()?;
    if sc.transports.contains(&TransportKind::Mrnic) && !supplied {
        return Err(SimError::NoMrnicTransport { scenario: sc.name.clone() });
    }
    Ok(())
}

pub(crate) fn results(sc: &Scenario, records: Vec<Record>) -> Results {
    Results {
        name: sc.name.clone(),
        description: sc.description.clone(),
        axes: sc.swept_axes().iter().map(|s| s.to_string()).collect(),
        records,
    }
}

/// Run every sweep point with every transport of `sc`. `mrnic` supplies the
/// mrnic transport; a scenario listing `mrnic` without one is refused before
/// anything runs. `progress` receives reports from every run.
pub fn run_scenario(
    sc: &Scenario,
    mrnic: Option<&dyn Transport>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Results, SimError> {
    check_mrnic(sc, mrnic.is_some())?;
    // `dyn Transport` without `Sync`: run the mrnic transport outside the factory table.
    let f = Factories::new(sc, None);
    let mut records = Vec::new();
    for (_, p, k, label) in runs(sc) {
        let cfg = sc.run_config_for(&p, k, &label);
        let mut result = match k {
            TransportKind::Mrnic => mrnic.expect("checked above").run(&cfg, progress)?,
            _ => f.get(k).run(&cfg, progress)?,
        };
        result.transport = k.name().to_string();
        records.push(Record { point: p, result });
    }
    Ok(results(sc, records))
}

/// [`run_scenario`] on `jobs` threads: the runs are independent and each is
/// deterministic, so the results are identical to the sequential ones, in the same
/// order. `progress` is called from the worker threads (serialized).
pub fn run_scenario_parallel(
    sc: &Scenario,
    mrnic: Option<&(dyn Transport + Sync)>,
    jobs: usize,
    progress: &mut (dyn FnMut(&Progress) + Send),
) -> Result<Results, SimError> {
    let all: Vec<usize> = (0..sc.points().len()).collect();
    run_points_parallel(sc, mrnic, jobs, &all, progress)
}

/// [`run_scenario_parallel`] restricted to the sweep points whose indices (in
/// [`Scenario::points`] order) are listed in `points`: every transport runs each of them,
/// and the records come in point order, exactly as in the whole scenario's results (a
/// shard's share, see [`crate::shard`]). An index past the last point is refused.
pub fn run_points_parallel(
    sc: &Scenario,
    mrnic: Option<&(dyn Transport + Sync)>,
    jobs: usize,
    points: &[usize],
    progress: &mut (dyn FnMut(&Progress) + Send),
) -> Result<Results, SimError> {
    check_mrnic(sc, mrnic.is_some())?;
    let n = sc.points().len();
    if let Some(&bad) = points.iter().find(|&&i| i >= n) {
        return Err(SimError::invalid("points", format!("index {bad} >= {n} sweep points")));
    }
    let f = Factories::new(sc, mrnic);
    let mut wanted = vec![false; n];
    for &i in points {
        wanted[i] = true;
    }
    let list: Vec<_> = runs(sc).into_iter().filter(|r| wanted[r.0]).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<RunResult, SimError>>>> =
        list.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let progress = std::sync::Mutex::new(progress);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, list.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((_, p, k, label)) = list.get(i) else { break };
                let t = f.get(*k);
                let cfg = sc.run_config_for(p, *k, label);
                let r = t.run(&cfg, &mut |x: &Progress| (progress.lock().expect("progress"))(x));
                *slots[i].lock().expect("slot") = Some(r);
            });
        }
    });
    let mut records = Vec::with_capacity(list.len());
    for ((_, p, k, _), slot) in list.iter().zip(slots) {
        let mut result = slot.into_inner().expect("slot").expect("every run ran")?;
        result.transport = k.name().to_string();
        records.push(Record { point: *p, result });
    }
    Ok(results(sc, records))
}
