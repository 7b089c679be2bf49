//! # `ByteStrobes<B>`: the write strobes of one beat from a checked byte range
//!
//! **Purpose.** The DMA placement unit writes a packet's payload to `[lo, hi)` of host memory
//! on an AXI4 write master whose beats are B bytes wide and B-aligned. Every beat's `wstrb`
//! must enable exactly the bytes of that beat that lie inside the range the packet was
//! checked against: the first and last beats of an unaligned write are partial, every other
//! beat is full, and a beat outside the range enables nothing. This primitive is that rule,
//! alone, so that it can be proven (`verif/formal/byte_strobes.sv`, run by
//! `verif/tests/formal.rs`) and reused by the placement unit.
//!
//! **Ports.**
//! - inputs: `addr` (32: the beat's address; its low log2(B) bits are ignored, the beat is
//!   the aligned one that holds `addr`), `lo` (32: the first byte of the range), `hi` (32:
//!   one past the last byte; `hi <= lo` is the empty range).
//! - outputs: `strb` (B): bit i set exactly when `lo <= base + i < hi`, with `base` = `addr`
//!   with its low log2(B) bits cleared. Addresses are 32-bit unsigned and do not wrap: a
//!   range that would end past 2^32 - 1 is refused before this point (the bounds check).
//!
//! **Latency** 0 (combinational). **II** 1. **Combinational paths** every input to `strb`:
//! two 32-bit compares per byte lane, each against a constant offset of the aligned base
//! (the lane's address is `base | i`: no carry, since base is aligned and i < B).
//!
//! **Hazards, reset** none: no state.

use super::{check_pow2, PrimError};
use rust_hdl::prelude::*;

/// Widest beat the strobe generator builds (bytes): a 512-bit AXI4 data bus.
pub const STROBES_MAX_B: usize = 64;

/// One beat's byte strobes from a byte range (module header above). Combinational.
#[derive(LogicBlock)]
pub struct ByteStrobes<const B: usize> {
    pub addr: Signal<In, Bits<32>>,
    pub lo: Signal<In, Bits<32>>,
    pub hi: Signal<In, Bits<32>>,
    pub strb: Signal<Out, Bits<B>>,
    base: Signal<Local, Bits<32>>,
    lane: Signal<Local, Bits<32>>,
    t: Signal<Local, bool>,
    /// !(B - 1): clears the offset inside the beat
    k_align: Constant<Bits<32>>,
    k_zero: Constant<Bits<B>>,
}

impl<const B: usize> ByteStrobes<B> {
    /// Refuses B outside the powers of two in 1..=64.
    pub fn try_new() -> Result<Self, PrimError> {
        check_pow2("ByteStrobes", "B", B, 1, STROBES_MAX_B, "bytes per beat")?;
        Ok(Self {
            addr: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            strb: Default::default(),
            base: Default::default(),
            lane: Default::default(),
            t: Default::default(),
            k_align: Constant::new((!(B as u64 - 1) & 0xFFFF_FFFF).into()),
            k_zero: Constant::new(0u64.into()),
        })
    }
    /// [`ByteStrobes::try_new`], panicking with the reason.
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const B: usize> Default for ByteStrobes<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize> Logic for ByteStrobes<B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.base.next = self.addr.val() & self.k_align.val();
        self.strb.next = self.k_zero.val();
        self.lane.next = self.base.val();
        self.t.next = false;
        // one lane per byte (a generation-time loop, unrolled in the Verilog); the 1-bit `t`
        // and `bit_cast(..) << i` assemble the word, as in prim::CrcFold
        for i in 0..B {
            self.lane.next = self.base.val() | i.to_bits::<32>();
            self.t.next = (self.lane.val() >= self.lo.val()) & (self.lane.val() < self.hi.val());
            self.strb.next = self.strb.val() | (bit_cast::<B, 1>(self.t.val().into()) << i.to_bits::<8>());
        }
    }
}

/// The plain Rust model of [`ByteStrobes`]: bit i set when `lo <= base + i < hi`.
pub fn byte_strobes_model(b: usize, addr: u32, lo: u32, hi: u32) -> u64 {
    let base = addr & !(b as u32 - 1);
    (0..b).filter(|&i| (lo..hi).contains(&(base + i as u32))).fold(0u64, |s, i| s | 1 << i)
}
