//! # SkidBuffer: valid/ready register slice with a registered ready
//!
//! **Purpose.** Cuts every combinational path of a valid/ready stream (data, valid *and*
//! ready) at full throughput: a 2-entry queue made of an output register and a skid
//! register that catches the one transfer accepted while the output stalls.
//!
//! **Ports.**
//! - `clock`, `rst` (synchronous, active high).
//! - upstream stream `s_valid`, `s_data` (D) in; `s_ready` out.
//! - downstream stream `m_valid`, `m_data` (D) out; `m_ready` in.
//! - parameter `D`: payload width (1..=4096 in practice; any width rust-hdl accepts).
//!
//! **Behaviour** (cycle model, the one `verif/tests/prim_diff.rs` checks): a FIFO of at most
//! two entries. `m_valid` = not empty, `m_data` = the oldest entry; `s_ready` = fewer than two
//! entries, computed at the previous clock edge (a flip-flop output). In each cycle an output
//! transfer (`m_valid & m_ready`) pops and an input transfer (`s_valid & s_ready`) pushes.
//!
//! **Latency** 1 cycle from an input transfer to `m_valid` (when empty). **II** 1: with
//! `m_ready` held high it passes one transfer per cycle indefinitely.
//!
//! **Combinational paths** none: `s_ready`, `m_valid`, `m_data` are flip-flop outputs.
//!
//! **Hazards.** The skid entry is only written while the output register is full and
//! stalled, and drained (into the output register) before any new input is accepted.
//!
//! **Reset** empties the buffer; `s_ready` is low from the edge where `rst` is seen until the
//! edge after it falls. A transfer in a cycle where `rst` is high is dropped (upstream must
//! not rely on it). Payload registers are not reset.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SkidBuffer<const D: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_data: Signal<Out, Bits<D>>,
    pub m_ready: Signal<In, bool>,
    out_valid: DFF<bool>,
    out_data: DFF<Bits<D>>,
    skid_valid: DFF<bool>,
    skid_data: DFF<Bits<D>>,
    ready: DFF<bool>,
    s_fire: Signal<Local, bool>,
    out_free: Signal<Local, bool>,
    skid_next: Signal<Local, bool>,
}

impl<const D: usize> SkidBuffer<D> {
    pub fn new() -> Self {
        Self::default()
    }
}

impl<const D: usize> Logic for SkidBuffer<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_valid, out_data, skid_valid, skid_data, ready);
        self.s_fire.next = self.s_valid.val() & self.ready.q.val();
        // The output register can take a word this cycle: empty, or its word leaves now.
        self.out_free.next = !self.out_valid.q.val() | self.m_ready.val();
        self.skid_next.next = self.skid_valid.q.val();
        if self.out_free.val() {
            if self.skid_valid.q.val() {
                // Drain the skid entry (no input is accepted: ready is low while it is full).
                self.out_valid.d.next = true;
                self.out_data.d.next = self.skid_data.q.val();
                self.skid_next.next = false;
            } else {
                self.out_valid.d.next = self.s_fire.val();
                self.out_data.d.next = self.s_data.val();
            }
        } else if self.s_fire.val() {
            // Output full and stalled: the accepted word waits in the skid register.
            self.skid_data.d.next = self.s_data.val();
            self.skid_next.next = true;
        }
        self.skid_valid.d.next = self.skid_next.val();
        self.ready.d.next = !self.skid_next.val();
        if self.rst.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
            self.ready.d.next = false;
        }
        self.s_ready.next = self.ready.q.val();
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.out_data.q.val();
    }
}
