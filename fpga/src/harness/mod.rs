//! Block harnesses: each block of the design on a board, driven by on-chip stimulus.
//!
//! A harness registers every input and every output of its block (so the block's own
//! register-to-register paths are what place and route times), drives the inputs from
//! LFSRs after a power-on reset, and folds every output into 8 LED bits (so synthesis cannot
//! remove anything). It has one clock input `clock` and one output `leds: Bits<8>`; the board
//! top ([`crate::boards::BoardTop`]) puts it on a board's clock pin and LEDs.
//!
//! This module holds what every harness shares: [`Lfsr32`], [`PowerOnReset`], [`LedFold`]
//! (a per-cycle 32-bit fold of the outputs, accumulated onto the LEDs), the
//! [`BlockHarness`] trait, and the registry [`HARNESSES`] (block name → harness). Adding a
//! block is one file here (`harness/<block>.rs`, like [`sack`]) plus one row in
//! [`HARNESSES`], or one row on the port-list harness ([`generic`]: any generated block,
//! from its port list, with LFSR-driven inputs and folded outputs). Everything is plain rust-hdl (`#[hdl_gen]`), so the Verilog the flow times is
//! the Verilog rust-hdl generates.

pub mod generic;
pub mod sack;

use crate::boards::Board;
use crate::error::FpgaError;
use mrnic_model::Config;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// A block's harness as the board top sees it: a rust-hdl block with a clock input and 8
/// LED bits out. The accessors exist because a generic board top cannot name its harness's
/// fields; the board top connects exactly these two signals.
pub trait BlockHarness: Block {
    /// The harness clock input (the board clock drives it).
    fn clock(&mut self) -> &mut Signal<In, Clock>;
    /// The folded outputs, one bit per LED.
    fn leds(&self) -> &Signal<Out, Bits<8>>;
}

/// One row of the block registry: what the flow needs to know about a block.
#[derive(Clone, Copy, Debug)]
pub struct HarnessEntry {
    /// The block name (as in `mrnic_hdl::tops::BLOCKS` and `mrnic gen --block`).
    pub name: &'static str,
    /// One line for listings and the summary.
    pub description: &'static str,
    /// The Verilog of `board`'s top around this block's harness, sized by `config`.
    pub board_verilog: fn(&Board, &Config) -> Result<String, FpgaError>,
    /// The block's sizes in `config` (for the summary), e.g. connections and window.
    pub parameters: fn(&Config) -> BTreeMap<String, u64>,
    /// Operations (packets) the block accepts per cycle at full rate: Mpps = Fmax × this.
    pub ops_per_cycle: f64,
}

/// The block registry: every block with an FPGA harness.
pub const HARNESSES: &[HarnessEntry] = &[sack::ENTRY, generic::RTX, generic::PARSER, generic::PLACEMENT, generic::PATH, generic::PLACE_CHK, generic::FBUF, generic::REALIGN, generic::ACKGEN, generic::CONN_CHK, generic::ACKJOIN, generic::CMPL];

const _: () = assert!(HARNESSES.len() == 1 + generic::ENTRIES.len());

/// The harness of the block `name`; an unknown name is refused with the list of blocks.
pub fn harness(name: &str) -> Result<&'static HarnessEntry, FpgaError> {
    HARNESSES.iter().find(|h| h.name == name).ok_or_else(|| FpgaError::UnknownBlock {
        name: name.to_string(),
        known: HARNESSES.iter().map(|h| h.name).collect::<Vec<_>>().join(", "),
    })
}

/// A 32-bit Fibonacci LFSR, x^32 + x^22 + x^2 + x + 1 (maximal length), one step a cycle.
/// `rst` loads the (non-zero) seed.
#[derive(LogicBlock)]
pub struct Lfsr32 {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub out: Signal<Out, Bits<32>>,
    state: DFF<Bits<32>>,
    seed: Constant<Bits<32>>,
    feedback: Signal<Local, bool>,
}

impl Lfsr32 {
    /// Panics on a zero seed (an all-zero LFSR never leaves zero): seeds are constants
    /// written in the harness source, so this is a programming error.
    pub fn new(seed: u32) -> Self {
        assert!(seed != 0, "an LFSR seed must be non-zero");
        Self {
            clock: Default::default(),
            rst: Default::default(),
            out: Default::default(),
            state: Default::default(),
            seed: Constant::new((seed as u64).into()),
            feedback: Default::default(),
        }
    }
}

impl Logic for Lfsr32 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.out.next = self.state.q.val();
        self.feedback.next = self.state.q.val().get_bit(31)
            ^ self.state.q.val().get_bit(21)
            ^ self.state.q.val().get_bit(1)
            ^ self.state.q.val().get_bit(0);
        if self.rst.val() {
            self.state.d.next = self.seed.val();
        } else if self.feedback.val() {
            self.state.d.next = (self.state.q.val() << 1) | 1;
        } else {
            self.state.d.next = self.state.q.val() << 1;
        }
    }
}

/// Power-on reset: `rst` is high for the first 16 cycles after configuration (the FPGA
/// initialises every flip-flop to 0), then low for ever.
#[derive(LogicBlock, Default)]
pub struct PowerOnReset {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<Out, bool>,
    count: DFF<Bits<4>>,
    done: DFF<bool>,
}

impl Logic for PowerOnReset {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, done);
        self.rst.next = !self.done.q.val();
        if self.count.q.val() != 15 {
            self.count.d.next = self.count.q.val() + 1;
        }
        self.done.d.next = self.count.q.val() == 15;
    }
}

/// The LED end of every harness: `word` (the block's registered outputs XOR-folded to 32
/// bits by the harness, one word a cycle) is accumulated into a rotating 32-bit register,
/// whose four bytes are XORed onto the 8 LEDs (registered). Every input bit reaches a LED.
#[derive(LogicBlock, Default)]
pub struct LedFold {
    pub clock: Signal<In, Clock>,
    pub word: Signal<In, Bits<32>>,
    pub leds: Signal<Out, Bits<8>>,
    acc: DFF<Bits<32>>,
    led_r: DFF<Bits<8>>,
}

impl Logic for LedFold {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, led_r);
        self.leds.next = self.led_r.q.val();
        self.acc.d.next = ((self.acc.q.val() << 1) | (self.acc.q.val() >> 31)) ^ self.word.val();
        self.led_r.d.next = bit_cast::<8, 32>(
            self.acc.q.val()
                ^ (self.acc.q.val() >> 8)
                ^ (self.acc.q.val() >> 16)
                ^ (self.acc.q.val() >> 24),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LFSR in rust-hdl's simulator: after reset it starts at the seed and follows the
    /// polynomial (checked against a plain software LFSR for 1000 steps) and never repeats
    /// within them.
    #[test]
    fn lfsr32_follows_its_polynomial_from_the_seed() {
        let mut l = Lfsr32::new(0xACE1_2468);
        l.connect_all();
        // Drive the block by hand: rst for one clock, then free-running.
        let step = |l: &mut Lfsr32, rst: bool| {
            l.rst.next = rst;
            l.clock.next = Clock::from(false);
            assert!(simulate(l, 100), "the LFSR did not settle");
            l.clock.next = Clock::from(true);
            assert!(simulate(l, 100), "the LFSR did not settle");
        };
        step(&mut l, true);
        assert_eq!(l.out.val(), Bits::<32>::from(0xACE1_2468u64), "reset loads the seed");
        let mut sw: u32 = 0xACE1_2468;
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000 {
            step(&mut l, false);
            let fb = ((sw >> 31) ^ (sw >> 21) ^ (sw >> 1) ^ sw) & 1;
            sw = (sw << 1) | fb;
            assert_eq!(l.out.val(), Bits::<32>::from(sw as u64), "step {i}");
            assert!(seen.insert(sw), "the LFSR repeated a state within 1000 steps");
        }
    }

    #[test]
    fn an_unknown_block_is_refused_with_the_known_blocks() {
        let e = harness("dma").unwrap_err().to_string();
        assert!(e.contains("'dma'") && e.contains("sack"), "{e}");
        assert_eq!(harness("sack").unwrap().name, "sack");
    }
}
