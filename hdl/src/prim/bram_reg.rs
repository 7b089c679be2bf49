//! # BlockRamReg: block RAM with a read latency of 2, an output register and forwarding
//!
//! **Purpose.** [`super::BlockRam`] with its word registered once more, so that a loop that
//! starts from the word starts from a flip-flop and not from the block RAM's clock-to-out
//! (5.6 ns on an ECP5 DP16KD, most of a 100 MHz cycle). The writes the extra cycle would
//! miss are forwarded into the output register, so the word is as current as with
//! [`super::BlockRam`].
//!
//! **Ports.**
//! - `clock`; `ce`: the output register loads (the owner's pipeline advances).
//! - write port: `write_enable`, `write_address` (ADDR), `write_data` (D).
//! - read port: `read_address` (ADDR) in; `read_data` (D) out: the output register.
//! - parameters `D` (word width) and `ADDR` (address width: 2^ADDR words).
//!
//! **Latency** 2. In a cycle with `ce`, the output register loads the word at the
//! `read_address` of the *previous* cycle, as it is after this cycle's write: a write in the
//! previous cycle (forwarded by the inner [`super::BlockRam`], write-first) and a write in
//! this cycle (compared with the registered address, its data muxed into the register) are
//! both forwarded. Without `ce` the register holds its word, and a write to the held word's
//! address is forwarded into it. So an owner whose pipeline stalls presents, in the cycle
//! before each advance, the address of the word it is about to load (the op that will move
//! into the register's stage); the RAM is read again each cycle and misses nothing.
//! **II** 1 on both ports.
//!
//! **Combinational paths** none to `read_data`. `write_data` -> the output register's D input
//! through one 2:1 mux (a loop through the word closes at a flip-flop); the RAM's output goes
//! through two 2:1 muxes to the same input.
//!
//! **Reset** none: the contents and the output register are data.

use super::BlockRam;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BlockRamReg<const D: usize, const ADDR: usize> {
    pub clock: Signal<In, Clock>,
    pub ce: Signal<In, bool>,
    pub write_enable: Signal<In, bool>,
    pub write_address: Signal<In, Bits<ADDR>>,
    pub write_data: Signal<In, Bits<D>>,
    pub read_address: Signal<In, Bits<ADDR>>,
    pub read_data: Signal<Out, Bits<D>>,
    // stage 1: the RAM with last cycle's write forwarded (write-first)
    ram: BlockRam<D, ADDR>,
    ra: DFF<Bits<ADDR>>,
    // stage 2: the output register and the address of its word
    word: DFF<Bits<D>>,
    word_a: DFF<Bits<ADDR>>,
}

impl<const D: usize, const ADDR: usize> BlockRamReg<D, ADDR> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A RAM whose power-up contents are `init` ([`BlockRam::with_init`]: an `initial`
    /// block in the generated Verilog, loaded with the bitstream).
    pub fn with_init(init: std::collections::BTreeMap<Bits<ADDR>, Bits<D>>) -> Self {
        Self { ram: BlockRam::with_init(init), ..Self::default() }
    }
}

impl<const D: usize, const ADDR: usize> Logic for BlockRamReg<D, ADDR> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ra, word, word_a);
        // stage 1: [`super::BlockRam`] gives the word at last cycle's address, with last
        // cycle's write forwarded
        self.ram.clock.next = self.clock.val();
        self.ram.read_address.next = self.read_address.val();
        self.ram.write_enable.next = self.write_enable.val();
        self.ram.write_address.next = self.write_address.val();
        self.ram.write_data.next = self.write_data.val();
        self.ra.d.next = self.read_address.val();
        // stage 2: the output register, with this cycle's write forwarded
        if self.ce.val() {
            self.word_a.d.next = self.ra.q.val();
            self.word.d.next = self.ram.read_data.val();
            if self.write_enable.val() & (self.write_address.val() == self.ra.q.val()) {
                self.word.d.next = self.write_data.val();
            }
        } else if self.write_enable.val() & (self.write_address.val() == self.word_a.q.val()) {
            self.word.d.next = self.write_data.val();
        }
        self.read_data.next = self.word.q.val();
    }
}
