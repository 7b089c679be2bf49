//! # PrefixAnd: Kogge-Stone prefix-AND tree
//!
//! **Purpose.** `y[i] = a[0] & a[1] & ... & a[i]`: the run of ones from bit 0 upward, as a
//! thermometer (ones below the first zero of `a`, zeros from it on). Used for "how far does
//! the run of received PSNs reach" in the SACK engine, with [`super::FirstZero`] after it.
//!
//! **Ports.**
//! - input `a` (W).
//! - output `y` (W): the prefix AND of `a`.
//! - parameter `W`: a power of two in 2..=256 (refused otherwise by [`PrefixAnd::try_new`]).
//!
//! **Latency** 0 (combinational). **II** 1. **Depth** log2(W) levels of one 2-input AND
//! (plus an OR with a constant, folded away): level k combines spans of 2^k
//! (`l_k = l_{k-1} & ((l_{k-1} << 2^(k-1)) | low_k)`, `low_k` = the bits below 2^(k-1), whose
//! span is already complete). Eight levels are written out; those with a span >= W are the
//! identity (their shift is all zeros, their `low` all ones) and vanish in synthesis.
//!
//! **Combinational paths.** `a -> y`. **Hazards** none (no state). **Reset** none.

use super::{check_tree_width, mask, PrimError};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PrefixAnd<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub y: Signal<Out, Bits<W>>,
    l1: Signal<Local, Bits<W>>,
    l2: Signal<Local, Bits<W>>,
    l3: Signal<Local, Bits<W>>,
    l4: Signal<Local, Bits<W>>,
    l5: Signal<Local, Bits<W>>,
    l6: Signal<Local, Bits<W>>,
    l7: Signal<Local, Bits<W>>,
    l8: Signal<Local, Bits<W>>,
    k_low0: Constant<Bits<W>>,
    k_low1: Constant<Bits<W>>,
    k_low2: Constant<Bits<W>>,
    k_low3: Constant<Bits<W>>,
    k_low4: Constant<Bits<W>>,
    k_low5: Constant<Bits<W>>,
    k_low6: Constant<Bits<W>>,
    k_low7: Constant<Bits<W>>,
}

impl<const W: usize> PrefixAnd<W> {
    /// Refuses a W that is not a power of two in 2..=256.
    pub fn try_new() -> Result<Self, PrimError> {
        check_tree_width("PrefixAnd", W)?;
        let low = |span: usize| mask::<W>(move |i| i < span);
        Ok(Self {
            a: Default::default(),
            y: Default::default(),
            l1: Default::default(),
            l2: Default::default(),
            l3: Default::default(),
            l4: Default::default(),
            l5: Default::default(),
            l6: Default::default(),
            l7: Default::default(),
            l8: Default::default(),
            k_low0: low(1),
            k_low1: low(2),
            k_low2: low(4),
            k_low3: low(8),
            k_low4: low(16),
            k_low5: low(32),
            k_low6: low(64),
            k_low7: low(128),
        })
    }

    /// Panics with the reason on an illegal W (see [`Self::try_new`]).
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const W: usize> Default for PrefixAnd<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for PrefixAnd<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.l1.next = self.a.val() & ((self.a.val() << 1) | self.k_low0.val());
        self.l2.next = self.l1.val() & ((self.l1.val() << 2) | self.k_low1.val());
        self.l3.next = self.l2.val() & ((self.l2.val() << 4) | self.k_low2.val());
        self.l4.next = self.l3.val() & ((self.l3.val() << 8) | self.k_low3.val());
        self.l5.next = self.l4.val() & ((self.l4.val() << 16) | self.k_low4.val());
        self.l6.next = self.l5.val() & ((self.l5.val() << 32) | self.k_low5.val());
        self.l7.next = self.l6.val() & ((self.l6.val() << 64) | self.k_low6.val());
        self.l8.next = self.l7.val() & ((self.l7.val() << 128) | self.k_low7.val());
        self.y.next = self.l8.val();
    }
}
