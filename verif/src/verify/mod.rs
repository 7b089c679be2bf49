//! `mrnic verify`: a block's whole regression as a product. It runs the block's differential
//! jobs (several seeds of the random mix, each directed profile, and power-up runs on a model
//! with random initial state) against the generated Verilog, or against any Verilog file that
//! implements the block's interface (`--verilog FILE --top MODULE`: the ports and streams of
//! the manifest), cycle-exact (every output every cycle) or transaction-level (same results
//! in the same order on every stream, any latency, handshakes obeyed, counters compared when
//! idle). It prints progress and a clear report, writes `report.json`/`report.md` (or, with
//! `--shard K/N`, its share of the jobs and `shard.json`) into `--out`, and on a failure
//! names the waveform and the command that reproduces it. The `mrnic` binary wires
//! [`VerifyArgs`] and [`main`] as its `verify` subcommand.

mod report;

pub use report::{merge, JobResult, Report, ShardFile};

use crate::blocks::{self, BlockSpec, Sizes};
use crate::kit::{self, DeviceFactory, Failure, Interface, KitError, Progress, RunOpts, StimOpts, VlFactory};
use crate::vl::{BuildOpts, Model};
use mrnic_model::Config;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

/// Errors of `mrnic verify` before or around the runs (a failing job is a result, not an error).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("mrnic verify: {0}")]
    Args(String),
    #[error("mrnic verify: {0}")]
    Config(String),
    #[error("mrnic verify: {0}")]
    Kit(#[from] KitError),
    #[error("mrnic verify: {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("mrnic verify: shards: {0}")]
    Shard(String),
}

/// Comparison mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Every output every cycle (our own generated Verilog).
    Cycle,
    /// Same results in the same order on every output stream, any latency (another
    /// implementation of the interface).
    Transaction,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Cycle => "cycle",
            Mode::Transaction => "transaction",
        }
    }
}

/// `K/N`: the K-th of N shards, K from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s:?}: expected K/N with 1 <= K <= N (e.g. 2/4)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

/// `mrnic verify` arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct VerifyArgs {
    /// The block to verify (`mrnic verify --all` for every block).
    #[arg(long, required_unless_present = "all")]
    pub block: Option<String>,
    /// Verify this Verilog file instead of the generated Verilog (it must implement the
    /// block's interface: the ports and streams of the manifest).
    #[arg(long, value_name = "FILE")]
    pub verilog: Option<PathBuf>,
    /// Top module of --verilog (default: the one module no other module instantiates).
    #[arg(long, value_name = "MODULE", requires = "verilog")]
    pub top: Option<String>,
    /// Configuration preset (default: "default").
    #[arg(long, conflicts_with = "config")]
    pub preset: Option<String>,
    /// Configuration file (TOML).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Seeds of the random mix (default: the block's CI size, or its full size with --all).
    #[arg(long)]
    pub seeds: Option<u64>,
    /// Cycles of every job.
    #[arg(long)]
    pub cycles: Option<u64>,
    /// Build the coverage model and write the per-block coverage report.
    #[arg(long)]
    pub coverage: bool,
    /// cycle (default for the generated Verilog) or transaction (default with --verilog).
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Every block at its full size.
    #[arg(long, conflicts_with = "block")]
    pub all: bool,
    /// Run only the K-th of N deterministic shares of the jobs and write shard.json.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Run only the job of this name (as the report names it: random-s1, directed-hot-s1001,
    /// power-up-s2001); used by the reproducing command a failure prints.
    #[arg(long, value_name = "JOB")]
    pub only: Option<String>,
    /// Report directory.
    #[arg(long, default_value = "build/verify")]
    pub out: PathBuf,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

impl Default for VerifyArgs {
    fn default() -> Self {
        VerifyArgs {
            block: None,
            verilog: None,
            top: None,
            preset: None,
            config: None,
            seeds: None,
            cycles: None,
            coverage: false,
            mode: None,
            all: false,
            shard: None,
            only: None,
            out: PathBuf::from("build/verify"),
            quiet: false,
        }
    }
}

/// One run of a block's stimulus against the implementation.
#[derive(Clone, Debug)]
pub struct Job {
    pub index: usize,
    pub block: &'static str,
    pub name: String,
    pub seed: u64,
    pub cycles: u64,
    pub stim: StimOpts,
}

/// One block's part of a plan.
pub struct BlockPlan {
    pub spec: &'static BlockSpec,
    pub cfg: Config,
    pub iface: Interface,
    /// The Verilog under test and where it came from.
    pub verilog: String,
    pub source: String,
    pub top: Option<String>,
    pub mode: Mode,
}

/// Everything a run will do: blocks and their jobs, in order.
pub struct Plan {
    pub blocks: Vec<BlockPlan>,
    pub jobs: Vec<Job>,
    /// A description that identifies the plan (shards of one plan share it).
    pub desc: String,
}

fn load_config(args: &VerifyArgs) -> Result<(Config, String), VerifyError> {
    match (&args.config, &args.preset) {
        (Some(p), _) => {
            let text = std::fs::read_to_string(p).map_err(|e| VerifyError::Io { path: p.clone(), source: e })?;
            let cfg = Config::from_toml(&text).map_err(|e| VerifyError::Config(format!("{}: {e}", p.display())))?;
            Ok((cfg, format!("--config {}", p.display())))
        }
        (None, p) => {
            let name = p.as_deref().unwrap_or("default");
            let cfg = Config::preset(name).map_err(|e| VerifyError::Config(e.to_string()))?;
            Ok((cfg, format!("--preset {name}")))
        }
    }
}

/// The jobs of one block at the given sizes: the random mix on `seeds` seeds (1, 2, ...),
/// each directed profile once (seeds 1001, ...), and the power-up runs (seeds 2001, ...).
pub fn block_jobs(spec: &'static BlockSpec, sizes: &Sizes, cycles: Option<u64>, first_index: usize) -> Vec<Job> {
    let mut v = vec![];
    let mut push = |name: String, seed: u64, n: u64, stim: StimOpts| {
        v.push(Job { index: first_index + v.len(), block: spec.name, name, seed, cycles: cycles.unwrap_or(n), stim });
    };
    for s in 1..=sizes.seeds {
        push(format!("random-s{s}"), s, sizes.cycles, StimOpts::default());
    }
    for (k, p) in spec.directed.iter().enumerate() {
        let seed = 1001 + k as u64;
        push(format!("directed-{p}-s{seed}"), seed, sizes.directed_cycles, StimOpts { profile: p.to_string(), ..Default::default() });
    }
    for s in 0..sizes.power_up_seeds {
        let seed = 2001 + s;
        push(format!("power-up-s{seed}"), seed, sizes.power_up_cycles, StimOpts { power_up: true, ..Default::default() });
    }
    v
}

impl Plan {
    /// Resolves the arguments: configuration, blocks, the Verilog under test, jobs.
    pub fn new(args: &VerifyArgs) -> Result<Plan, VerifyError> {
        let (cfg, cfg_arg) = load_config(args)?;
        let specs: Vec<&'static BlockSpec> = if args.all {
            if args.verilog.is_some() {
                return Err(VerifyError::Args("--all verifies the generated Verilog of every block; --verilog needs --block".into()));
            }
            blocks::BLOCKS.iter().collect()
        } else {
            let name = args.block.as_deref().ok_or_else(|| VerifyError::Args("--block NAME or --all is required".into()))?;
            vec![blocks::block(name)?]
        };
        if args.seeds == Some(0) || args.cycles == Some(0) {
            return Err(VerifyError::Args("--seeds and --cycles must be at least 1".into()));
        }
        let mut blocks_v = vec![];
        let mut jobs = vec![];
        let mut desc = vec![];
        for spec in specs {
            let (g, iface) = spec.generated(&cfg)?;
            let (verilog, source, top) = match &args.verilog {
                Some(p) => {
                    let text = std::fs::read_to_string(p).map_err(|e| VerifyError::Io { path: p.clone(), source: e })?;
                    (text, p.display().to_string(), args.top.clone())
                }
                None => (g.verilog.clone(), format!("generated {}", g.module), None),
            };
            let mode = args.mode.unwrap_or(if args.verilog.is_some() { Mode::Transaction } else { Mode::Cycle });
            let mut sizes = if args.all { spec.full } else { spec.ci };
            if let Some(n) = args.seeds {
                sizes.seeds = n;
            }
            let mut js = block_jobs(spec, &sizes, args.cycles, jobs.len());
            if let Some(only) = &args.only {
                js.retain(|j| &j.name == only);
                if js.is_empty() {
                    let names: Vec<String> = block_jobs(spec, &sizes, None, 0).into_iter().map(|j| j.name).collect();
                    return Err(VerifyError::Args(format!("--only {only}: no such job of block {} (jobs: {})", spec.name, names.join(", "))));
                }
                js[0].index = jobs.len();
            }
            desc.push(format!(
                "block {} ({}) {cfg_arg}, {}{}, {} mode, {} jobs",
                spec.name,
                cfg.name,
                source,
                top.as_deref().map(|t| format!(" top {t}")).unwrap_or_default(),
                mode.name(),
                js.len()
            ));
            jobs.extend(js);
            blocks_v.push(BlockPlan { spec, cfg: cfg.clone(), iface, verilog, source, top, mode });
        }
        Ok(Plan { blocks: blocks_v, jobs, desc: desc.join("; ") })
    }

    /// The command that re-runs one job of this plan.
    pub fn repro(&self, args: &VerifyArgs, job: &Job) -> String {
        let b = self.blocks.iter().find(|b| b.spec.name == job.block).expect("job of a planned block");
        let mut s = format!("mrnic verify --block {}", job.block);
        match (&args.config, &args.preset) {
            (Some(p), _) => s += &format!(" --config {}", p.display()),
            (None, Some(p)) => s += &format!(" --preset {p}"),
            _ => {}
        }
        if let Some(v) = &args.verilog {
            s += &format!(" --verilog {}", v.display());
        }
        if let Some(t) = &b.top {
            s += &format!(" --top {t}");
        }
        s += &format!(" --mode {} --only {} --cycles {}", b.mode.name(), job.name, job.cycles);
        s
    }
}

/// Builds (or takes from the cache) the Verilated model of a planned block.
fn build_model(b: &BlockPlan, what: &str, opts: BuildOpts) -> Result<Model, VerifyError> {
    let label = format!("verify_{}_{}_{what}", b.spec.name, b.cfg.name);
    let opts = BuildOpts { top: b.top.clone(), ..opts };
    Ok(Model::build(&label, &b.verilog, &b.iface.ports, &opts).map_err(KitError::from)?)
}

/// Runs one job on a device from `dev`.
pub fn run_job(plan: &Plan, args: &VerifyArgs, job: &Job, dev: &dyn DeviceFactory) -> Result<JobResult, VerifyError> {
    let b = plan.blocks.iter().find(|b| b.spec.name == job.block).expect("job of a planned block");
    let tb = (b.spec.testbench)(&b.cfg)?;
    let io = b.iface.io();
    let t0 = Instant::now();
    let mut last = Instant::now();
    let quiet = args.quiet;
    let name = format!("{} {}", job.block, job.name);
    let mut cb = |p: Progress| {
        if !quiet && last.elapsed().as_secs_f64() > 2.0 {
            last = Instant::now();
            eprintln!("  {name}: {} / {} cycles ({:.0} k cycles/s)", p.cycle, p.cycles, p.cycle as f64 / t0.elapsed().as_secs_f64() / 1e3);
        }
    };
    let mut opts = RunOpts::new(job.seed, job.cycles)
        .label(format!("verify-{}-{}-{}", job.block, b.cfg.name, job.name))
        .repro(plan.repro(args, job))
        .stim(job.stim.clone())
        .progress(&mut cb);
    if args.coverage {
        opts.coverage = Some(coverage_dir(args, b).join(format!("{}.dat", job.name)));
    }
    let r = match b.mode {
        Mode::Cycle => kit::run_differential(tb.as_ref(), &io, dev, opts),
        Mode::Transaction => kit::run_transaction(tb.as_ref(), &io, dev, opts),
    };
    let (passed, counters, failure) = match r {
        Ok(rep) => (true, rep.counters, None),
        Err(Failure::Mismatch(m)) => (false, Default::default(), Some(m.to_string())),
        Err(Failure::Kit(e)) => return Err(e.into()),
    };
    Ok(JobResult { index: job.index, block: job.block.to_string(), name: job.name.clone(), mode: b.mode.name().into(), seed: job.seed, cycles: job.cycles, passed, counters, failure })
}

fn print_result(r: &JobResult, secs: f64) {
    if r.passed {
        let xfers: Vec<String> = r.counters.iter().filter(|(k, _)| k.ends_with(".transfers")).map(|(k, v)| format!("{}={v}", k.trim_end_matches(".transfers"))).collect();
        println!("  pass  {} {} ({} cycles, {}, {:.1} s)", r.block, r.name, r.cycles, xfers.join(" "), secs);
    } else {
        println!("  FAIL  {} {} ({} cycles)\n{}", r.block, r.name, r.cycles, r.failure.as_deref().unwrap_or(""));
    }
}

/// Runs a plan (or the share `shard` of its jobs) and returns the results in plan order.
pub fn run_plan(plan: &Plan, args: &VerifyArgs) -> Result<Vec<JobResult>, VerifyError> {
    let mine = |j: &Job| args.shard.is_none_or(|s| j.index % s.n == s.k - 1);
    let mut results = vec![];
    for b in &plan.blocks {
        let jobs: Vec<&Job> = plan.jobs.iter().filter(|j| j.block == b.spec.name && mine(j)).collect();
        if jobs.is_empty() {
            continue;
        }
        let mut plain: Option<VlFactory> = None;
        let mut xmodel: Option<Model> = None;
        for job in jobs {
            let power_up_dev;
            let dev: &dyn DeviceFactory = if job.stim.power_up {
                // Power-up: the x-unique model, random initial state from the job's seed.
                let m = match xmodel.take() {
                    Some(m) => m,
                    None => build_model(b, "xunique", BuildOpts { x_unique: true, coverage: args.coverage, ..BuildOpts::untraced() })?,
                };
                xmodel = Some(m.clone());
                power_up_dev = VlFactory::power_up(m, job.seed);
                &power_up_dev
            } else {
                match &mut plain {
                Some(f) => f,
                None => {
                    let t = Instant::now();
                    let m = build_model(b, "zero", BuildOpts { coverage: args.coverage, ..BuildOpts::untraced() })?;
                    if !args.quiet {
                        eprintln!("  {}: model {} ({:.1} s{})", b.spec.name, b.source, t.elapsed().as_secs_f64(), if m.was_cached() { ", cached" } else { "" });
                    }
                    plain.insert(VlFactory::new(m))
                }
                }
            };
            let t = Instant::now();
            let r = run_job(plan, args, job, dev)?;
            if !args.quiet {
                print_result(&r, t.elapsed().as_secs_f64());
            }
            results.push(r);
        }
    }
    Ok(results)
}

fn coverage_dir(args: &VerifyArgs, b: &BlockPlan) -> PathBuf {
    args.out.join("coverage").join(b.spec.name)
}

/// Merges the jobs' coverage of every block into its report (`<out>/coverage/<block>/`:
/// `coverage.md` with the percentage table and the uncovered lines, `annotated/`,
/// `coverage.info`); returns one summary line per block.
fn coverage_reports(plan: &Plan, args: &VerifyArgs, results: &[JobResult]) -> Result<Vec<String>, VerifyError> {
    let mut lines = vec![];
    for b in &plan.blocks {
        let dir = coverage_dir(args, b);
        let dats: Vec<PathBuf> = results.iter().filter(|r| r.block == b.spec.name).map(|r| dir.join(format!("{}.dat", r.name))).filter(|p| p.is_file()).collect();
        if dats.is_empty() {
            continue;
        }
        let file = dir.join(format!("{}.v", b.iface.module));
        report::write(&file, &b.verilog)?;
        let rep = crate::vl::coverage::report(&dats, &file, &dir).map_err(KitError::from)?;
        report::write(&dir.join("coverage.md"), &rep.to_markdown())?;
        lines.push(format!(
            "- {}: line {:.1} % ({}/{}), toggle {:.1} % ({}/{}), toggle without the stat_* counters {:.1} % ({}/{}), {} uncovered points; report {}",
            b.spec.name,
            rep.line_pct,
            rep.lines_hit,
            rep.lines_total,
            rep.toggle_pct,
            rep.toggles_hit,
            rep.toggles_total,
            rep.toggle_pct_no_counters,
            rep.toggles_hit - rep.counter_toggles_hit,
            rep.toggles_total - rep.counter_toggles_total,
            rep.uncovered.len(),
            dir.join("coverage.md").display()
        ));
    }
    Ok(lines)
}

/// `mrnic verify`: runs the plan, prints the report, writes it (or the shard) into `--out`.
/// `Ok(true)` when every job passed.
pub fn main(args: VerifyArgs) -> anyhow::Result<bool> {
    Ok(run(&args)?)
}

/// [`main`] with a typed error.
pub fn run(args: &VerifyArgs) -> Result<bool, VerifyError> {
    let plan = Plan::new(args)?;
    if !args.quiet {
        println!("mrnic verify: {}", plan.desc);
    }
    let results = run_plan(&plan, args)?;
    let passed = results.iter().all(|r| r.passed);
    let coverage = if args.coverage { coverage_reports(&plan, args, &results)? } else { vec![] };
    for c in &coverage {
        println!("mrnic verify: coverage {c}");
    }
    let out: &Path = &args.out;
    report::mkdir(out)?;
    match args.shard {
        Some(s) => {
            let f = ShardFile { kind: "verify".into(), shard: [s.k, s.n], plan: plan.desc.clone(), jobs_total: plan.jobs.len(), results };
            let path = out.join("shard.json");
            report::write(&path, &(serde_json::to_string_pretty(&f).expect("shard serialises") + "\n"))?;
            println!("mrnic verify: shard {}/{}: {} jobs, {}; wrote {}", s.k, s.n, f.results.len(), if passed { "all passed" } else { "FAILURES" }, path.display());
        }
        None => {
            let r = Report { kind: "verify".into(), plan: plan.desc.clone(), jobs_total: plan.jobs.len(), results, coverage };
            r.write(out)?;
            let ok = r.results.iter().filter(|j| j.passed).count();
            println!("mrnic verify: {}: {ok} of {} jobs passed; report {}", if passed { "PASS" } else { "FAIL" }, r.jobs_total, out.join("report.md").display());
        }
    }
    Ok(passed)
}
