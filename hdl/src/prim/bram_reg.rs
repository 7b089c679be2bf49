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
//! **Combinational paths** none to `read_data`. Into the output register's D input the RAM's
//! word goes through **one** 2:1 mux (RAM or forwarded word), whose select and other input
//! are formed beside it: the forwarded word is this cycle's `write_data` (a write to the
//! word being loaded, or, without `ce`, to the word held) or last cycle's (registered, with
//! its hit flag); the register's enable is `ce` or a write to the held word. So the path from
//! the block RAM's clock-to-out (5.6 ns on an ECP5 DP16KD) to the register is one LUT, and a
//! loop through `write_data` closes at a flip-flop.
//!
//! **Reset** none: the contents and the output register are data.

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
    // stage 1: the RAM, the read address, and last cycle's write if it hit that address
    mem: RAM<Bits<D>, ADDR>,
    ra: DFF<Bits<ADDR>>,
    fwd_hit: DFF<bool>,
    fwd_data: DFF<Bits<D>>,
    // stage 2: the output register and the address of its word
    word: DFF<Bits<D>>,
    word_a: DFF<Bits<ADDR>>,
    // stage 2's select: a write this cycle to the word being loaded (`ce`) or held
    now_hit: Signal<Local, bool>,
    // the register takes the forwarded word, not the RAM's
    use_fwd: Signal<Local, bool>,
    // the forwarded word: this cycle's write data or last cycle's
    fwd: Signal<Local, Bits<D>>,
}

impl<const D: usize, const ADDR: usize> BlockRamReg<D, ADDR> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A RAM whose power-up contents are `init` (as [`super::BlockRam::with_init`]: an `initial`
    /// block in the generated Verilog, loaded with the bitstream).
    pub fn with_init(init: std::collections::BTreeMap<Bits<ADDR>, Bits<D>>) -> Self {
        Self { mem: RAM::new(init), ..Self::default() }
    }
}

impl<const D: usize, const ADDR: usize> Logic for BlockRamReg<D, ADDR> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ra, fwd_hit, fwd_data, word, word_a);
        // stage 1: the RAM read at this cycle's address; last cycle's write to it is
        // registered beside it (write-first, as [`super::BlockRam`])
        self.mem.read_clock.next = self.clock.val();
        self.mem.write_clock.next = self.clock.val();
        self.mem.read_address.next = self.read_address.val();
        self.mem.write_address.next = self.write_address.val();
        self.mem.write_data.next = self.write_data.val();
        self.mem.write_enable.next = self.write_enable.val();
        self.ra.d.next = self.read_address.val();
        self.fwd_hit.d.next = self.write_enable.val() & (self.write_address.val() == self.read_address.val());
        self.fwd_data.d.next = self.write_data.val();
        // stage 2: with `ce` the register loads the word at `ra` (this cycle's write to it,
        // else last cycle's, else the RAM's); without it, it holds its word unless this cycle
        // writes it. One 2:1 mux on the RAM's path; the rest is select logic beside it.
        self.now_hit.next = self.write_enable.val() & (self.write_address.val() == self.word_a.q.val());
        if self.ce.val() {
            self.now_hit.next = self.write_enable.val() & (self.write_address.val() == self.ra.q.val());
        }
        self.use_fwd.next = !self.ce.val() | self.now_hit.val() | self.fwd_hit.q.val();
        self.fwd.next = self.write_data.val();
        if self.ce.val() & !self.now_hit.val() {
            self.fwd.next = self.fwd_data.q.val();
        }
        if self.ce.val() {
            self.word_a.d.next = self.ra.q.val();
        }
        if self.ce.val() | self.now_hit.val() {
            self.word.d.next = self.mem.read_data.val();
            if self.use_fwd.val() {
                self.word.d.next = self.fwd.val();
            }
        }
        self.read_data.next = self.word.q.val();
    }
}
