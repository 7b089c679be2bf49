//! `mrnic`: the mrnic command line.
//!
//! - `mrnic gen [--preset NAME | --config FILE] [--block NAME] --out DIR`: the Verilog of
//!   every block (or one), one file each, and a JSON manifest listing them (ports,
//!   parameters, latency); written all together or not at all.
//! - `mrnic synth --board ulx3s|icebreaker`: bitstream and synthesis report.
//! - `mrnic vectors`: cycle-by-cycle test vectors from the golden model (for cocotb);
//!   `--rtl DIR` also writes the block's Verilog and manifest.
//! - `mrnic frames`: model-built parser frames (valid and malformed) with their expected
//!   verdicts and header records, as JSON (for cocotb).
//! - `mrnic pcap --out FILE [--trace FILE]`: a pcap of an mrnic exchange (open it in
//!   Wireshark or tshark), and optionally the same frames as JSON lines.
//! - `mrnic sim SCENARIO [--ci] [--out DIR] [--shard K/N | --seeds LIST]`: a
//!   network-simulator sweep, one shard of it, or the sweep once per seed with the mean and
//!   spread of every metric.
//! - `mrnic compare BEFORE_DIR AFTER_DIR [--out FILE] [--fail-on-worse]`: two sets of
//!   simulator results side by side, regressions beyond the seeds' spread flagged.
//! - `mrnic merge --out DIR SHARD_DIR...`: joins shards into the outputs one machine writes.
//! - `mrnic presets`: the named configurations.
//! - `mrnic budget [--preset P | --config F] [--device D] [--json]`: every block's memories
//!   mapped onto the ECP5-85F and iCE40 UP5K block RAMs; exits 1 with the reason when the
//!   configuration fits no device (or not `--device`).
//!
//! Every I/O error names the file or directory it is about.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use mrnic_model::Config;
use std::path::{Path, PathBuf};

mod frames;
mod synth;
mod vectors;

#[derive(Parser)]
#[command(name = "mrnic", version, about = "mrnic: a multipath, loss-tolerant RDMA NIC transport in rust-hdl")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
struct ConfigArgs {
    /// A named preset (see `mrnic presets`).
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// A TOML configuration file.
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write the Verilog of every block of the configuration and a JSON manifest listing
    /// them (all files or none).
    Gen {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Only this block (the manifest then lists just it).
        #[arg(long)]
        block: Option<String>,
        /// Output directory.
        #[arg(long, default_value = "build/verilog")]
        out: PathBuf,
    },
    /// Synthesize a block's FPGA harness on a board to a bitstream and report LUTs, FFs,
    /// BRAMs, Fmax and whether the target frequency was met.
    Synth(mrnic_fpga::cli::SynthArgs),
    /// Write a block's cycle-by-cycle vectors from the golden model (JSON Lines, streamed;
    /// at most 10^7 cycles).
    Vectors(vectors::VectorsArgs),
    /// Write frames for the frame parser (valid and malformed, built by the model), with
    /// the model's verdict (accepted with its header record, or the drop reason) as JSON.
    Frames(frames::FramesArgs),
    /// Write a pcap of a simulated mrnic exchange (RoCEv2 framing, UDP 4791): the transport
    /// model over a lossy network with a congested and a dying route: data on four paths,
    /// losses and their selective retransmissions, ACKs with SACK bitmaps and ECN echoes, a
    /// failed path probed on a new entropy, and a NAK for a bad rkey.
    Pcap {
        #[arg(long)]
        out: PathBuf,
        /// Seed of the network's loss and of the path entropies.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write every frame as JSON lines (time, sender, dropped, typed frame); must
        /// not be the --out file. Both files are written, or neither.
        #[arg(long)]
        trace: Option<PathBuf>,
    },
    /// Run a network-simulator scenario (sim/scenarios/*.toml): mrnic (the golden model)
    /// side by side with RoCEv2 go-back-N and IRN; writes CSV, markdown and SVG.
    Sim {
        /// The scenario file.
        scenario: PathBuf,
        /// Run the scenario's small [ci] variant.
        #[arg(long)]
        ci: bool,
        /// Output directory.
        #[arg(long, default_value = "build/sim")]
        out: PathBuf,
        /// No progress on stderr.
        #[arg(long)]
        quiet: bool,
        /// Run only shard K of N (1-based, K = 1..N) of the sweep points and write
        /// `shard.json` beside the results; join the shards with `mrnic merge`.
        #[arg(long, value_name = "K/N", conflicts_with = "seeds")]
        shard: Option<mrnic_sim::shard::Shard>,
        /// Run the whole scenario once per seed (its `seed` replaced): `5` = seeds 1..=5,
        /// `1,2,3` = those (`7,` = just 7). Each seed's outputs go to `OUT/seed-K/`; the
        /// mean, sample std dev, min, max and n of every metric to `OUT/NAME.seeds.csv`/`.md`.
        #[arg(long, value_name = "LIST")]
        seeds: Option<mrnic_sim::seeds::SeedList>,
    },
    /// Compare two simulator result directories (`sim --seeds` outputs, per-seed
    /// `seed-K/NAME.csv` directories, or single runs; searched 4 levels deep, matched by
    /// relative path and name): a markdown table per scenario of mean ± sd before and after,
    /// the delta and a WORSE flag when the after mean is worse by more than the larger
    /// spread (max - min over the seeds).
    Compare {
        /// The results before the change.
        before: PathBuf,
        /// The results after the change.
        after: PathBuf,
        /// Also write the markdown to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Exit with status 1 when any result is flagged WORSE.
        #[arg(long)]
        fail_on_worse: bool,
        /// Also require a flagged change to exceed this percentage of the before mean
        /// (default 0: the spread alone decides).
        #[arg(long, value_name = "PCT", default_value_t = 0.0)]
        tolerance: f64,
    },
    /// Run a block's verification suite (differential, directed, power-up) against its
    /// generated Verilog, or any Verilog implementing its interface (`--verilog FILE --top M`).
    Verify(mrnic_verif::verify::VerifyArgs),
    /// Join the shard directories written by `sim --shard K/N` or `verify --shard K/N`
    /// (every K once) into the files one machine running everything writes.
    Merge {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// The shard directories (each holds a shard.json).
        #[arg(required = true, value_name = "SHARD_DIR")]
        dirs: Vec<PathBuf>,
    },
    /// List the named presets with their parameters.
    Presets,
    /// Print a block's mutants (the deliberate bugs in its generated Verilog that its
    /// differential test must catch) as a JSON array of {name, from, to}: `from` occurs once
    /// in the block's Verilog and is replaced by `to`. The cocotb tests take theirs from here.
    Mutants {
        #[arg(long)]
        block: String,
    },
    /// The block-RAM budget of a configuration: every block's memories (depth, width, bits
    /// per connection) mapped onto ECP5-85F DP16KD and iCE40 UP5K EBR + SPRAM, totals
    /// against each device (docs/budget.md). Exits 1 with the reason when it fits no device,
    /// or not the `--device` given.
    Budget {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// The device it must fit: ecp5-85f or up5k (default: any of them).
        #[arg(long)]
        device: Option<String>,
        /// Print JSON instead of markdown.
        #[arg(long)]
        json: bool,
        /// Print every preset's totals instead (the tables of docs/budget.md).
        #[arg(long, conflicts_with_all = ["json", "device"])]
        summary: bool,
    },
}

/// `mrnic budget`: prints the budget; an error naming the device(s) and the shortfall when
/// `cfg` does not fit `device` (or any device).
fn budget(cfg: &Config, device: Option<&str>, json: bool) -> Result<()> {
    use mrnic_model::budget::{Budget, DEVICES};
    if let Some(d) = device {
        if !DEVICES.iter().any(|x| x.key == d) {
            let keys: Vec<&str> = DEVICES.iter().map(|d| d.key).collect();
            bail!("unknown device {d:?}: the devices are {}", keys.join(", "));
        }
    }
    let b = Budget::of(cfg);
    if json {
        println!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        print!("{}", b.to_markdown());
    }
    match device {
        Some(d) => {
            let f = b.on(d);
            if !f.fits {
                bail!("configuration {:?} {}", cfg.name, f.reason);
            }
        }
        None => {
            if !b.fits.iter().any(|f| f.fits) {
                let why: Vec<&str> = b.fits.iter().map(|f| f.reason.as_str()).collect();
                bail!("configuration {:?} fits no device: {}", cfg.name, why.join("; "));
            }
        }
    }
    Ok(())
}

fn load_config(a: &ConfigArgs) -> Result<Config> {
    Ok(match (&a.preset, &a.config) {
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            Config::from_toml(&text).with_context(|| format!("in {}", path.display()))?
        }
        (Some(p), None) => Config::preset(p)?,
        (None, None) => Config::preset("default")?,
    })
}

/// The manifest entry of one generated block and its file name. The one place that maps
/// `mrnic_hdl::tops::Generated` to the manifest (PLAN.md: `block`, `module`, `file`,
/// `latency`, `parameters`, `ports`; `streams` once `Generated` describes them).
fn manifest_entry(t: &mrnic_hdl::tops::Generated) -> (String, serde_json::Value) {
    let file = t.file.clone();
    let entry = serde_json::json!({
        "block": t.name,
        "module": t.module,
        "file": file,
        "latency": t.latency,
        "parameters": t.params,
        "ports": t.ports.iter().map(|p| serde_json::json!({
            "name": p.name, "width": p.width, "direction": mrnic_hdl::tops::dir_name(p.dir)
        })).collect::<Vec<_>>(),
        "globals": t.globals,
        "streams": t.streams.iter().map(|st| {
            let mut s = serde_json::json!({
                "name": st.name, "dir": mrnic_hdl::tops::dir_name(st.dir), "valid": st.valid,
                "ready": st.ready, "payload": st.payload,
            });
            if let Some(tm) = &st.timer {
                s["timer"] = serde_json::json!({ "lateness": tm.lateness, "counter": tm.counter });
                if !tm.sets.is_empty() {
                    s["timer"]["sets"] = serde_json::json!(tm.sets);
                }
            }
            if !st.sampled.is_empty() {
                s["sampled"] = serde_json::json!(st.sampled);
            }
            s
        }).collect::<Vec<_>>(),
    });
    (file, entry)
}

/// `mrnic gen`: every block of `cfg` (or only `block`) and `manifest.json`, all into
/// `out` together or not at all.
fn gen(cfg: &Config, out: &Path, block: Option<&str>) -> Result<()> {
    // one block: any of NAMED_BLOCKS (the receive-path blocks too); an unknown name is
    // refused with the list
    let blocks: Vec<_> = match block {
        None => mrnic_hdl::tops::generate_all(cfg)?,
        Some(b) => vec![mrnic_hdl::tops::block(cfg, b)?],
    };
    let mut files = Vec::new();
    let mut list = Vec::new();
    for t in &blocks {
        let (file, entry) = manifest_entry(t);
        files.push((out.join(file), t.verilog.clone().into_bytes()));
        list.push(entry);
    }
    let manifest = serde_json::json!({
        "generator": mrnic_hdl::tops::GENERATOR,
        "config": cfg,
        "blocks": list,
    });
    files.push((out.join("manifest.json"), (serde_json::to_string_pretty(&manifest)? + "\n").into_bytes()));
    write_all_or_nothing(&files)?;
    for (p, _) in &files {
        println!("wrote {}", p.display());
    }
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Gen { cfg, block, out } => gen(&load_config(&cfg)?, &out, block.as_deref()),
        Cmd::Synth(args) => synth::run(args),
        Cmd::Vectors(a) => vectors::run(&a),
        Cmd::Frames(a) => frames::run(&a),
        Cmd::Pcap { out, seed, trace } => pcap(&out, seed, trace.as_deref()),
        Cmd::Sim { scenario, ci, out, quiet, shard, seeds } => {
            let files = match seeds {
                Some(s) => mrnic_sim::cli::run_file_seeds(&scenario, ci, &out, quiet, &s.0)?,
                None => mrnic_sim::cli::run_file(&scenario, ci, &out, quiet, shard)?,
            };
            for f in files {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
        Cmd::Compare { before, after, out, fail_on_worse, tolerance } => {
            if !(tolerance >= 0.0 && tolerance.is_finite()) {
                bail!("--tolerance {tolerance}: must be a percentage >= 0");
            }
            let report = mrnic_sim::seeds::compare_dirs_tol(&before, &after, tolerance / 100.0)?;
            let md = report.to_markdown();
            print!("{md}");
            if let Some(o) = &out {
                write_all_or_nothing(&[(o.clone(), md.into_bytes())])?;
                eprintln!("wrote {}", o.display());
            }
            let worse = report.worse().len();
            if fail_on_worse && worse > 0 {
                bail!("{worse} result(s) flagged WORSE (after worse than before by more than the seeds' spread)");
            }
            Ok(())
        }
        Cmd::Verify(args) => {
            if mrnic_verif::verify::main(args)? {
                Ok(())
            } else {
                Err(anyhow::anyhow!("verification failed: the failing jobs are in the report under --out (and above, without --quiet)"))
            }
        }
        Cmd::Merge { out, dirs } => merge(&out, &dirs),
        Cmd::Budget { summary: true, .. } => {
            print!("{}", mrnic_model::budget::summary_markdown());
            Ok(())
        }
        Cmd::Budget { cfg, device, json, .. } => budget(&load_config(&cfg)?, device.as_deref(), json),
        Cmd::Mutants { block } => {
            let spec = mrnic_verif::blocks::block(&block)?;
            let rows: Vec<_> = (spec.mutants)().into_iter().map(|m| serde_json::json!({ "name": m.name, "from": m.from, "to": m.to })).collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
            Ok(())
        }
        Cmd::Presets => {
            for (p, purpose) in mrnic_model::config::PRESET_PURPOSE {
                let c = Config::preset(p)?;
                println!("{p:8} connections={:<5} paths={:<2} window={:<3}  {purpose}", c.connections, c.transport.paths, c.sack.window);
            }
            Ok(())
        }
    }
}

/// Stack of the thread the CLI runs on: building and generating the SACK engine (a rust-hdl
/// struct of ~280 signals) in an unoptimised build needs more than the main thread's 8 MiB.
const STACK_BYTES: usize = 256 << 20;

fn main() {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new().name("mrnic".into()).stack_size(STACK_BYTES).spawn(move || run(cli));
    let result = match worker {
        Ok(h) => h.join().unwrap_or_else(|_| std::process::exit(101)),
        Err(e) => Err(anyhow::anyhow!("cannot start the worker thread: {e}")),
    };
    if let Err(e) = result {
        eprintln!("mrnic: error: {e:#}");
        std::process::exit(1);
    }
}

/// Writes every `(path, bytes)` or none of them: each file is first written into a
/// temporary directory beside its target (`.mrnic-staging-PID` in the target's directory,
/// created if needed, so the rename stays on one file system), then all are renamed into
/// place in order (put the file that vouches for the others, like a manifest, last). On
/// any error the staged files are removed and nothing is left at the targets; the error
/// names the file.
fn write_all_or_nothing(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let mut stages: Vec<PathBuf> = Vec::new();
    let res = stage_and_rename(files, &mut stages);
    for d in &stages {
        let _ = std::fs::remove_dir_all(d);
    }
    res
}

fn stage_and_rename(files: &[(PathBuf, Vec<u8>)], stages: &mut Vec<PathBuf>) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for (i, (target, bytes)) in files.iter().enumerate() {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if target.is_dir() {
            bail!("cannot write {}: it is a directory", target.display());
        }
        if let Some(f) = dir.ancestors().find(|a| !a.as_os_str().is_empty() && a.exists() && !a.is_dir()) {
            bail!("cannot write {}: {} is not a directory", target.display(), f.display());
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot write {}: creating {}", target.display(), dir.display()))?;
        let stage = dir.join(format!(".mrnic-staging-{}", std::process::id()));
        if !stages.contains(&stage) {
            let _ = std::fs::remove_dir_all(&stage);
            std::fs::create_dir(&stage)
                .with_context(|| format!("cannot write {}: creating {}", target.display(), stage.display()))?;
            stages.push(stage.clone());
        }
        let name = target.file_name().with_context(|| format!("cannot write {}: not a file name", target.display()))?;
        let tmp = stage.join(format!("{i}-{}", name.to_string_lossy()));
        std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {} (staged as {})", target.display(), tmp.display()))?;
        staged.push((tmp, target));
    }
    for (tmp, target) in staged {
        std::fs::rename(&tmp, target).with_context(|| format!("cannot write {}: renaming {} into place", target.display(), tmp.display()))?;
    }
    Ok(())
}

/// `p` made absolute with symbolic links, `.` and `..` resolved, for comparing two
/// output paths that may not exist yet: the deepest existing ancestor is canonicalised
/// and the rest appended lexically.
fn canonical_target(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
    for anc in abs.ancestors() {
        if let Ok(mut c) = anc.canonicalize() {
            for comp in abs.strip_prefix(anc).unwrap_or(Path::new("")).components() {
                match comp {
                    std::path::Component::ParentDir => {
                        c.pop();
                    }
                    std::path::Component::Normal(n) => c.push(n),
                    _ => {}
                }
            }
            return c;
        }
    }
    abs
}

/// `mrnic pcap`: the exchange's pcap at `out` and, with `trace`, its frames as JSON lines;
/// both files or neither.
fn pcap(out: &Path, seed: u64, trace: Option<&Path>) -> Result<()> {
    if let Some(t) = trace {
        if canonical_target(t) == canonical_target(out) {
            bail!(
                "--trace {} is the same file as --out {}: the trace would overwrite the pcap; give it another name",
                t.display(),
                out.display()
            );
        }
    }
    let (frames, report) = mrnic_model::transport::exchange::exchange(seed);
    let mut pcap = Vec::new();
    let n = mrnic_model::transport::exchange::write_pcap(&mut pcap, &frames)?;
    let mut files = vec![(out.to_path_buf(), pcap)];
    if let Some(t) = trace {
        let mut w = Vec::new();
        for c in &frames {
            serde_json::to_writer(&mut w, c)?;
            w.push(b'\n');
        }
        files.push((t.to_path_buf(), w));
    }
    write_all_or_nothing(&files)?;
    println!(
        "wrote {n} frames to {} ({} dropped by the network, {} retransmissions, {} path failures, seed {seed})",
        out.display(),
        frames.iter().filter(|c| c.dropped).count(),
        report.a_tx.retransmissions,
        report.a_tx.path_failures
    );
    if let Some(t) = trace {
        println!("wrote the same frames as JSON lines to {}", t.display());
    }
    Ok(())
}

/// The `kind` of the shard in `dir` (`sim` or `verify`).
fn shard_kind(dir: &Path) -> Result<String> {
    let path = dir.join("shard.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{} is not a shard directory: cannot read {}", dir.display(), path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    match v.get("kind").and_then(|k| k.as_str()) {
        Some(k) => Ok(k.to_string()),
        None => bail!("{}: no \"kind\" (expected \"sim\" or \"verify\")", path.display()),
    }
}

/// `mrnic merge`: dispatches on the shards' `kind`.
fn merge(out: &Path, dirs: &[PathBuf]) -> Result<()> {
    let mut kinds = Vec::with_capacity(dirs.len());
    for d in dirs {
        kinds.push(shard_kind(d)?);
    }
    if let Some(i) = kinds.iter().position(|k| *k != kinds[0]) {
        bail!(
            "cannot merge shards of different kinds: {} is {:?}, {} is {:?}",
            dirs[0].display(),
            kinds[0],
            dirs[i].display(),
            kinds[i]
        );
    }
    match kinds[0].as_str() {
        "sim" => {
            for f in mrnic_sim::shard::merge(dirs, out)? {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
        "verify" => {
            let report = mrnic_verif::verify::merge(dirs, out)?;
            print!("{}", report.to_markdown());
            println!("wrote {} and {}", out.join("report.md").display(), out.join("report.json").display());
            if report.passed() {
                Ok(())
            } else {
                bail!("the merged verification report has failures")
            }
        }
        k => bail!("{}: unknown shard kind {k:?} (expected \"sim\" or \"verify\")", dirs[0].join("shard.json").display()),
    }
}
