//! # RotateRight: log-depth barrel rotator
//!
//! **Purpose.** `y = a` rotated right by `amount mod W`: `y[i] = a[(i + amount) mod W]`.
//! The SACK engine keeps its bitmap circular (slot = PSN mod W) and rotates it to the base
//! only on the way out.
//!
//! **Ports.**
//! - inputs `a` (W), `amount` (8; bits at and above log2(W) are ignored).
//! - output `y` (W).
//! - parameter `W`: a power of two in 2..=256 (refused otherwise by [`RotateRight::try_new`]).
//!
//! **Latency** 0 (combinational). **II** 1. **Depth** log2(W) stages of a 2:1 mux, stage k
//! rotating by 2^k when `amount[k]` is set. Eight stages are written out; those with
//! 2^k >= W are disabled by a constant and vanish in synthesis.
//!
//! **Combinational paths.** `a -> y`, `amount -> y`. **Hazards** none. **Reset** none.

use super::{check_tree_width, PrimError};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RotateRight<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub amount: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<W>>,
    r1: Signal<Local, Bits<W>>,
    r2: Signal<Local, Bits<W>>,
    r3: Signal<Local, Bits<W>>,
    r4: Signal<Local, Bits<W>>,
    r5: Signal<Local, Bits<W>>,
    r6: Signal<Local, Bits<W>>,
    r7: Signal<Local, Bits<W>>,
    r8: Signal<Local, Bits<W>>,
    // stage k is enabled when 2^k < W; its left shift (the wrapped part) is W - 2^k.
    k_en: Constant<Bits<8>>,
    k_back0: Constant<Bits<9>>,
    k_back1: Constant<Bits<9>>,
    k_back2: Constant<Bits<9>>,
    k_back3: Constant<Bits<9>>,
    k_back4: Constant<Bits<9>>,
    k_back5: Constant<Bits<9>>,
    k_back6: Constant<Bits<9>>,
    k_back7: Constant<Bits<9>>,
    amt: Signal<Local, Bits<8>>,
}

impl<const W: usize> RotateRight<W> {
    /// Refuses a W that is not a power of two in 2..=256.
    pub fn try_new() -> Result<Self, PrimError> {
        check_tree_width("RotateRight", W)?;
        let back = |k: usize| Constant::new(Bits::<9>::from((W - ((1usize << k) % W)) as u64 % W as u64));
        Ok(Self {
            a: Default::default(),
            amount: Default::default(),
            y: Default::default(),
            r1: Default::default(),
            r2: Default::default(),
            r3: Default::default(),
            r4: Default::default(),
            r5: Default::default(),
            r6: Default::default(),
            r7: Default::default(),
            r8: Default::default(),
            k_en: Constant::new(Bits::<8>::from(((W - 1) & 0xff) as u64)),
            k_back0: back(0),
            k_back1: back(1),
            k_back2: back(2),
            k_back3: back(3),
            k_back4: back(4),
            k_back5: back(5),
            k_back6: back(6),
            k_back7: back(7),
            amt: Default::default(),
        })
    }

    /// Panics with the reason on an illegal W (see [`Self::try_new`]).
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const W: usize> Default for RotateRight<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for RotateRight<W> {
    #[hdl_gen]
    fn update(&mut self) {
        // amount mod W (W - 1 is the mask of the enabled stages).
        self.amt.next = self.amount.val() & self.k_en.val();
        self.r1.next = self.a.val();
        if self.amt.val().get_bit(0) {
            self.r1.next = (self.a.val() >> 1) | (self.a.val() << self.k_back0.val());
        }
        self.r2.next = self.r1.val();
        if self.amt.val().get_bit(1) {
            self.r2.next = (self.r1.val() >> 2) | (self.r1.val() << self.k_back1.val());
        }
        self.r3.next = self.r2.val();
        if self.amt.val().get_bit(2) {
            self.r3.next = (self.r2.val() >> 4) | (self.r2.val() << self.k_back2.val());
        }
        self.r4.next = self.r3.val();
        if self.amt.val().get_bit(3) {
            self.r4.next = (self.r3.val() >> 8) | (self.r3.val() << self.k_back3.val());
        }
        self.r5.next = self.r4.val();
        if self.amt.val().get_bit(4) {
            self.r5.next = (self.r4.val() >> 16) | (self.r4.val() << self.k_back4.val());
        }
        self.r6.next = self.r5.val();
        if self.amt.val().get_bit(5) {
            self.r6.next = (self.r5.val() >> 32) | (self.r5.val() << self.k_back5.val());
        }
        self.r7.next = self.r6.val();
        if self.amt.val().get_bit(6) {
            self.r7.next = (self.r6.val() >> 64) | (self.r6.val() << self.k_back6.val());
        }
        self.r8.next = self.r7.val();
        if self.amt.val().get_bit(7) {
            self.r8.next = (self.r7.val() >> 128) | (self.r7.val() << self.k_back7.val());
        }
        self.y.next = self.r8.val();
    }
}
