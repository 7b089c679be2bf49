//! # FirstZero: thermometer-to-binary encoder (index of the first zero)
//!
//! **Purpose.** For a thermometer `t` (ones in bits 0..p, zeros from bit p on, 0 <= p <= W),
//! `index` = p when p < W (the first zero's index, = the number of ones). When p = W (no
//! zero) `index` is unspecified: the caller tells that case apart itself, typically with an
//! AND reduction of the tree's *input* computed beside the tree (as the SACK engine does),
//! which is shallower than testing the tree's output. Feed it
//! [`super::PrefixAnd`]'s output to get the first zero of any vector.
//!
//! **Ports.**
//! - input `t` (W): a thermometer. Inputs that are not thermometers give an unspecified
//!   (but deterministic) index: the encoder looks only at the 1 -> 0 steps.
//! - output `index` (N).
//! - parameters `W` (a power of two in 2..=256) and `N` (index width, log2(W)..=64: wide
//!   enough for W - 1; a wider N lets the caller OR the index into a wider word).
//!
//! **Latency** 0 (combinational). **II** 1. **Depth** one AND of three terms, then an OR
//! reduction over W/2 bits per output bit (log-depth OR trees): bit j of the index is set by
//! a 1 -> 0 step at a position a with a = 2^j - 1 (mod 2^(j+1)), between a and a + 2^j
//! (`t & !(t >> 2^j) & therm_j`, a step past bit W - 1 reads as a zero).
//!
//! **Combinational paths.** `t -> index`. **Hazards** none. **Reset** none.

use super::{check_tree_width, mask, PrimError};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FirstZero<const W: usize, const N: usize> {
    pub t: Signal<In, Bits<W>>,
    pub index: Signal<Out, Bits<N>>,
    k_therm0: Constant<Bits<W>>,
    k_therm1: Constant<Bits<W>>,
    k_therm2: Constant<Bits<W>>,
    k_therm3: Constant<Bits<W>>,
    k_therm4: Constant<Bits<W>>,
    k_therm5: Constant<Bits<W>>,
    k_therm6: Constant<Bits<W>>,
    k_therm7: Constant<Bits<W>>,
}

impl<const W: usize, const N: usize> FirstZero<W, N> {
    /// Refuses a W that is not a power of two in 2..=256, or an N too narrow for W - 1 or
    /// wider than 64.
    pub fn try_new() -> Result<Self, PrimError> {
        check_tree_width("FirstZero", W)?;
        let need = W.trailing_zeros() as usize;
        if !(need..=64).contains(&N) {
            return Err(PrimError::Parameter {
                prim: "FirstZero",
                field: "N",
                value: N,
                reason: format!("the index width must be in {need}..=64 for W = {W}"),
            });
        }
        let therm = |j: u32| mask::<W>(move |i| i % (2usize << j) == (1usize << j) - 1);
        Ok(Self {
            t: Default::default(),
            index: Default::default(),
            k_therm0: therm(0),
            k_therm1: therm(1),
            k_therm2: therm(2),
            k_therm3: therm(3),
            k_therm4: therm(4),
            k_therm5: therm(5),
            k_therm6: therm(6),
            k_therm7: therm(7),
        })
    }

    /// Panics with the reason on illegal parameters (see [`Self::try_new`]).
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const W: usize, const N: usize> Default for FirstZero<W, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const N: usize> Logic for FirstZero<W, N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.index.next = bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 1) & self.k_therm0.val()).any().into())
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 2) & self.k_therm1.val()).any().into()) << 1)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 4) & self.k_therm2.val()).any().into()) << 2)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 8) & self.k_therm3.val()).any().into()) << 3)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 16) & self.k_therm4.val()).any().into()) << 4)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 32) & self.k_therm5.val()).any().into()) << 5)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 64) & self.k_therm6.val()).any().into()) << 6)
            | (bit_cast::<N, 1>((self.t.val() & !(self.t.val() >> 128) & self.k_therm7.val()).any().into()) << 7);
    }
}
