//! `mrnic`: the mrnic command line.
//!
//! - `mrnic gen [--preset NAME | --config FILE] --out DIR`: the Verilog of every top, one
//!   file each, and a JSON manifest (ports, parameters).
//! - `mrnic synth --board ulx3s|icebreaker`: bitstream and synthesis report.
//! - `mrnic vectors`: cycle-by-cycle test vectors from the golden model (for cocotb).
//! - `mrnic pcap --out FILE`: a pcap of an mrnic exchange (open it in Wireshark or tshark).
//! - `mrnic presets`: the named configurations.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use mrnic_model::Config;
use std::path::{Path, PathBuf};

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
    /// Write the Verilog of every top and a JSON manifest.
    Gen {
        #[command(flatten)]
        cfg: ConfigArgs,
        /// Output directory.
        #[arg(long, default_value = "build/verilog")]
        out: PathBuf,
    },
    /// Synthesize a board top to a bitstream and report LUTs, FFs, BRAMs and Fmax.
    Synth {
        /// ulx3s (ECP5-85F) or icebreaker (iCE40 UP5K).
        #[arg(long)]
        board: String,
        /// Preset of the block under test (default: the board's own).
        #[arg(long)]
        preset: Option<String>,
        #[arg(long, default_value = "build/synth")]
        out: PathBuf,
        /// Target frequency for place and route, MHz.
        #[arg(long)]
        freq: Option<f64>,
        /// nextpnr seed.
        #[arg(long)]
        seed: Option<u32>,
    },
    /// Write a block's cycle-by-cycle vectors from the golden model (JSON Lines, streamed;
    /// at most 10^7 cycles).
    Vectors(vectors::VectorsArgs),
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
        /// Also write every frame as JSON lines (time, sender, dropped, typed frame).
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
    },
    /// List the named presets with their parameters.
    Presets,
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

fn gen(cfg: &Config, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let tops = mrnic_hdl::tops::generate_all(cfg)?;
    let mut manifest = serde_json::Map::new();
    manifest.insert("generator".into(), mrnic_hdl::tops::GENERATOR.into());
    manifest.insert("config".into(), serde_json::to_value(cfg)?);
    let mut list = vec![];
    for t in &tops {
        let file = format!("{}.v", t.name);
        std::fs::write(out.join(&file), &t.verilog)?;
        list.push(serde_json::json!({
            "name": t.name,
            "file": file,
            "module": t.module,
            "latency": t.latency,
            "parameters": t.params,
            "ports": t.ports.iter().map(|p| serde_json::json!({
                "name": p.name, "width": p.width, "direction": mrnic_hdl::tops::dir_name(p.dir)
            })).collect::<Vec<_>>(),
        }));
        println!("wrote {}", out.join(&file).display());
    }
    manifest.insert("tops".into(), list.into());
    let mpath = out.join("manifest.json");
    std::fs::write(&mpath, serde_json::to_string_pretty(&manifest)? + "\n")?;
    println!("wrote {}", mpath.display());
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Gen { cfg, out } => gen(&load_config(&cfg)?, &out),
        Cmd::Synth { board, preset, out, freq, seed } => synth::run(&board, preset.as_deref(), &out, freq, seed),
        Cmd::Vectors(a) => vectors::run(&a),
        Cmd::Pcap { out, seed, trace } => {
            if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            }
            let f = std::fs::File::create(&out).with_context(|| format!("creating {}", out.display()))?;
            let (frames, report) = mrnic_model::transport::exchange::exchange(seed);
            let n = mrnic_model::transport::exchange::write_pcap(std::io::BufWriter::new(f), &frames)?;
            println!(
                "wrote {n} frames to {} ({} dropped by the network, {} retransmissions, {} path failures, seed {seed})",
                out.display(),
                frames.iter().filter(|c| c.dropped).count(),
                report.a_tx.retransmissions,
                report.a_tx.path_failures
            );
            if let Some(t) = trace {
                let mut w = std::io::BufWriter::new(std::fs::File::create(&t).with_context(|| format!("creating {}", t.display()))?);
                for c in &frames {
                    serde_json::to_writer(&mut w, c)?;
                    std::io::Write::write_all(&mut w, b"\n")?;
                }
                println!("wrote the same frames as JSON lines to {}", t.display());
            }
            Ok(())
        }
        Cmd::Sim { scenario, ci, out, quiet } => {
            let files = mrnic_sim::cli::run_file(&scenario, ci, &out, quiet).map_err(|e| anyhow::anyhow!("{e}"))?;
            for f in files {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
        Cmd::Presets => {
            for p in mrnic_model::config::PRESETS {
                let c = Config::preset(p)?;
                println!("{p:8} connections={:5} window={}", c.sack.connections, c.sack.window);
            }
            Ok(())
        }
    }
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("mrnic: error: {e:#}");
        std::process::exit(1);
    }
}
