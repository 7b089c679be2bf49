//! Board tops: the [`Harness`] on a board's clock pin and LEDs.
//!
//! - ULX3S: LFE5U-85F-6BG381 (CABGA381), 25 MHz `clk_25mhz` on G2, LEDs B2 C2 C1 D2 D1 E2 E1 H3
//!   (`constraints/ulx3s.lpf`).
//! - iCEBreaker: iCE40UP5K-SG48, 12 MHz clock on pin 35, the two board LEDs (11, 37) and the
//!   five LEDs of the PMOD 2 break-off (27 25 21 23 26), pins from YosysHQ icestorm
//!   `examples/icebreaker/icebreaker.pcf` (`constraints/icebreaker.pcf`).
//!
//! The board clock drives the design directly (no PLL): the flow reports the Fmax that
//! place and route achieves, which is the figure of merit.

use crate::stim::Harness;
use anyhow::{bail, Result};
use mrnic_model::Config;
use rust_hdl::prelude::*;

/// ULX3S top: `clk_25mhz` in, `led[7:0]` out.
#[derive(LogicBlock)]
pub struct Ulx3sTop<const CONN_BITS: usize, const W: usize> {
    pub clk_25mhz: Signal<In, Clock>,
    pub led: Signal<Out, Bits<8>>,
    pub harness: Harness<CONN_BITS, W>,
}

impl<const CONN_BITS: usize, const W: usize> Ulx3sTop<CONN_BITS, W> {
    pub fn new() -> Self {
        Self { clk_25mhz: Default::default(), led: Default::default(), harness: Harness::new() }
    }
}

impl<const CONN_BITS: usize, const W: usize> Default for Ulx3sTop<CONN_BITS, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CONN_BITS: usize, const W: usize> Logic for Ulx3sTop<CONN_BITS, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.harness.clock.next = self.clk_25mhz.val();
        self.led.next = self.harness.leds.val();
    }
}

/// iCEBreaker top: `clk` (12 MHz) in, `led[6:0]` out (LEDR_N, LEDG_N, PMOD2 LED1..LED5).
#[derive(LogicBlock)]
pub struct IcebreakerTop<const CONN_BITS: usize, const W: usize> {
    pub clk: Signal<In, Clock>,
    pub led: Signal<Out, Bits<7>>,
    pub harness: Harness<CONN_BITS, W>,
}

impl<const CONN_BITS: usize, const W: usize> IcebreakerTop<CONN_BITS, W> {
    pub fn new() -> Self {
        Self { clk: Default::default(), led: Default::default(), harness: Harness::new() }
    }
}

impl<const CONN_BITS: usize, const W: usize> Default for IcebreakerTop<CONN_BITS, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CONN_BITS: usize, const W: usize> Logic for IcebreakerTop<CONN_BITS, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.harness.clock.next = self.clk.val();
        self.led.next = bit_cast::<7, 8>(self.harness.leds.val());
    }
}

/// FPGA family (which yosys / nextpnr / packer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Ecp5,
    Ice40,
}

/// A supported board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Board {
    pub name: &'static str,
    pub family: Family,
    /// Human-readable device name.
    pub device: &'static str,
    /// nextpnr device/package arguments.
    pub pnr_args: &'static [&'static str],
    /// The preset used when none is given.
    pub default_preset: &'static str,
    /// Default Fmax target handed to nextpnr (`--freq`), MHz.
    pub default_freq_mhz: f64,
    /// The board's oscillator, MHz (for information).
    pub clock_mhz: f64,
    /// Constraint file name under `constraints/`, and its text.
    pub constraints_name: &'static str,
    pub constraints: &'static str,
}

pub const ULX3S: Board = Board {
    name: "ulx3s",
    family: Family::Ecp5,
    device: "LFE5U-85F-6BG381C (ECP5-85F, CABGA381, speed 6)",
    pnr_args: &["--85k", "--package", "CABGA381", "--speed", "6"],
    default_preset: "default",
    default_freq_mhz: 100.0,
    clock_mhz: 25.0,
    constraints_name: "ulx3s.lpf",
    constraints: include_str!("../../constraints/ulx3s.lpf"),
};

pub const ICEBREAKER: Board = Board {
    name: "icebreaker",
    family: Family::Ice40,
    device: "iCE40UP5K-SG48",
    pnr_args: &["--up5k", "--package", "sg48"],
    default_preset: "ice40",
    default_freq_mhz: 30.0,
    clock_mhz: 12.0,
    constraints_name: "icebreaker.pcf",
    constraints: include_str!("../../constraints/icebreaker.pcf"),
};

pub const BOARDS: &[Board] = &[ULX3S, ICEBREAKER];

impl Board {
    pub fn by_name(name: &str) -> Result<Board> {
        match BOARDS.iter().find(|b| b.name.eq_ignore_ascii_case(name)) {
            Some(b) => Ok(*b),
            None => bail!(
                "unknown board '{name}': the boards are {}",
                BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

fn verilog_of<B: Block>(mut top: B) -> Result<String> {
    top.connect_all();
    if let Err(e) = check_all(&top) {
        bail!("rust-hdl check of the top failed: {e:?}");
    }
    Ok(generate_verilog(&top))
}

/// The Verilog (module `top`) of `board`'s top around a SACK engine sized by `config`.
pub fn top_verilog(board: &Board, config: &Config) -> Result<String> {
    config.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    mrnic_hdl::sack_generics!(&config.sack, C, W => match board.family {
        Family::Ecp5 => verilog_of(Ulx3sTop::<C, W>::new()),
        Family::Ice40 => verilog_of(IcebreakerTop::<C, W>::new()),
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?
}
