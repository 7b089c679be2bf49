//! # BlockRam: block RAM with a registered read and write forwarding
//!
//! **Purpose.** A simple dual-port RAM of 2^ADDR words of D bits (one write port, one read
//! port, one clock) that FPGA tools map to block RAM (DP16KD on ECP5, SB_RAM40_4K on
//! iCE40), with a bypass so that a read sees the write made in the same cycle.
//!
//! **Ports.**
//! - `clock`.
//! - write port: `write_enable`, `write_address` (ADDR), `write_data` (D).
//! - read port: `read_address` (ADDR) in; `read_data` (D) out, one cycle later.
//! - parameters `D` (word width) and `ADDR` (address width: 2^ADDR words).
//!
//! **Latency** 1: `read_data` in cycle t+1 is the word at `read_address` of cycle t.
//! **II** 1 on both ports.
//!
//! **Read-during-write contract (write-first).** A read of address A in cycle t returns
//! the word as it is *after* cycle t's write: if cycle t writes A, `read_data` is that new
//! word (the write in flight is forwarded: registered hit flag and data, a 2:1 mux after the
//! RAM's output register); otherwise it is the stored word, which includes every earlier
//! write. The raw RAM output is never used on a same-address collision, so the RAM may be
//! synthesised with any read-during-write behaviour (yosys `-no-rw-check` is safe).
//!
//! **Combinational paths** none from inputs to `read_data` (all through registers; the mux
//! after them is driven by flip-flops).
//!
//! **Reset** none: the contents are data. The RAM has no initial contents in the Verilog;
//! FPGAs power block RAM up zeroed, simulators as their X policy says: write before reading.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BlockRam<const D: usize, const ADDR: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, bool>,
    pub write_address: Signal<In, Bits<ADDR>>,
    pub write_data: Signal<In, Bits<D>>,
    pub read_address: Signal<In, Bits<ADDR>>,
    pub read_data: Signal<Out, Bits<D>>,
    mem: RAM<Bits<D>, ADDR>,
    fwd_hit: DFF<bool>,
    fwd_data: DFF<Bits<D>>,
}

impl<const D: usize, const ADDR: usize> BlockRam<D, ADDR> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A RAM whose power-up contents are `init` (address -> word; absent words are 0 in
    /// rust-hdl's simulator and X in the Verilog): an `initial` block in the generated
    /// Verilog, which FPGA tools load into the block RAM with the bitstream.
    pub fn with_init(init: std::collections::BTreeMap<Bits<ADDR>, Bits<D>>) -> Self {
        Self { mem: RAM::new(init), ..Self::default() }
    }
}

impl<const D: usize, const ADDR: usize> Logic for BlockRam<D, ADDR> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fwd_hit, fwd_data);
        self.mem.read_clock.next = self.clock.val();
        self.mem.write_clock.next = self.clock.val();
        self.mem.read_address.next = self.read_address.val();
        self.mem.write_address.next = self.write_address.val();
        self.mem.write_data.next = self.write_data.val();
        self.mem.write_enable.next = self.write_enable.val();
        self.fwd_hit.d.next = self.write_enable.val() & (self.write_address.val() == self.read_address.val());
        self.fwd_data.d.next = self.write_data.val();
        self.read_data.next = self.mem.read_data.val();
        if self.fwd_hit.q.val() {
            self.read_data.next = self.fwd_data.q.val();
        }
    }
}
