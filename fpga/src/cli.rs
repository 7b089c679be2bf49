//! `mrnic synth`: the command line's arguments ([`SynthArgs`]) and entry point ([`main`]).
//!
//! `mrnic synth --block NAME --board B [--preset P | --config F] [--freq MHZ] [--seed S |
//! --seeds N] [--out DIR]` puts the block's harness on the board, runs the flow and prints
//! the resource / Fmax table, whether the target was met, and the critical path.

use crate::error::FpgaError;
use crate::flow::{run_flow, FlowOptions, Summary};
use crate::harness::harness;
use crate::{report, Board};
use mrnic_model::Config;
use std::path::PathBuf;

/// The arguments of `mrnic synth`.
#[derive(clap::Args, Clone, Debug)]
pub struct SynthArgs {
    /// The block to put on the board (blocks with an FPGA harness: sack, rtx, parser, placement, path, place_chk, fbuf, realign, ackgen, conn_chk, ackjoin, cmpl).
    #[arg(long)]
    pub block: String,
    /// ulx3s (ECP5-85F) or icebreaker (iCE40 UP5K).
    #[arg(long)]
    pub board: String,
    /// A named preset (default: the board's own: ulx3s `default`, icebreaker `ice40`).
    #[arg(long, conflicts_with = "config")]
    pub preset: Option<String>,
    /// A TOML configuration file instead of a preset.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Target frequency for place and route, MHz (default: the board's goal, ulx3s 100,
    /// icebreaker 30).
    #[arg(long)]
    pub freq: Option<f64>,
    /// One nextpnr placement seed (default 1).
    #[arg(long, conflicts_with = "seeds")]
    pub seed: Option<u32>,
    /// Run seeds 1..=N and report the median Fmax (the figure of merit uses 3).
    #[arg(long)]
    pub seeds: Option<u32>,
    /// Output root: the flow writes OUT/<block>/<board>/.
    #[arg(long, default_value = "build/synth")]
    pub out: PathBuf,
}

/// The configuration `--preset` / `--config` name (the board's preset when neither is given).
pub fn load_config(args: &SynthArgs, board: &Board) -> Result<Config, FpgaError> {
    match (&args.preset, &args.config) {
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|source| FpgaError::ConfigRead { path: path.clone(), source })?;
            Config::from_toml(&text)
                .map_err(|source| FpgaError::ConfigFile { path: path.clone(), source })
        }
        (Some(p), None) => Ok(Config::preset(p)?),
        (None, None) => Ok(Config::preset(board.default_preset)?),
    }
}

/// Checks every argument (block, board, configuration, target, seeds) and builds the flow's
/// options, without running anything: every refusal names what was refused and why.
pub fn options(args: &SynthArgs) -> Result<FlowOptions, FpgaError> {
    let block = harness(&args.block)?;
    let board = Board::by_name(&args.board)?;
    let config = load_config(args, &board)?;
    let seeds = match (args.seed, args.seeds) {
        (_, Some(n)) if !(1..=100).contains(&n) => return Err(FpgaError::BadSeeds { seeds: n }),
        (_, Some(n)) => (1..=n).collect(),
        (Some(s), None) => vec![s],
        (None, None) => vec![1],
    };
    let opts = FlowOptions {
        block,
        board,
        config,
        out: args.out.clone(),
        freq_mhz: args.freq,
        seeds,
        synth_flags: None,
        verbose: true,
    };
    opts.target_mhz()?;
    Ok(opts)
}

/// What `mrnic synth` prints: the table, the verdict, the critical path and the bitstream.
pub fn render(s: &Summary) -> String {
    let mut out = report::table(std::slice::from_ref(s));
    out += &format!("\n{}\n", s.timing);
    out += &format!(
        "critical path, seed {} ({:.2} ns logic, {:.2} ns routing):\n",
        s.median_seed, s.critical_path_logic_ns, s.critical_path_routing_ns
    );
    for l in &s.critical_path {
        out += &format!("  {l}\n");
    }
    out += &format!("bitstream: {}\n", s.bitstream);
    out
}

/// `mrnic synth`: runs the flow and prints the result. Missing timing is a result, not an
/// error (the summary says NOT MET); bad arguments and failing tools are errors.
pub fn main(args: SynthArgs) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let s = run_flow(&opts)?;
    print!("{}", render(&s));
    Ok(())
}
