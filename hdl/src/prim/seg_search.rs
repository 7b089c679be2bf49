//! # SegSearch: pipelined circular "first one at or after a start position", in 16-bit segments
//!
//! **Purpose.** For a W-bit vector `a` and a start position given as its thermometer `from`
//! (`from[i] = 1` for `i >= start`), find the first set bit of `a` in circular order from
//! `start`: the lowest set bit at or above `start`, else (the search wraps) the lowest set
//! bit below it. Used by the SACK engine (the first PSN not yet received after the packet's
//! own slot: where the base advances to) and meant for the retransmit queue's oldest-lost
//! search (the first lost PSN at or after the acknowledged base).
//!
//! **Ports.**
//! - inputs: `clock`; `en` (stage enable: the summary register loads when high, holds when
//!   low, e.g. during a pipeline stall); `a` (W); `from` (W, a thermometer: ones from the
//!   start position upward).
//! - outputs (from the summary register, combinational): `found` (some bit of `a` was set),
//!   `wrapped` (the first set bit is below the start: only found in the wrap-around pass),
//!   `index` (8 bits: the first set bit's position; 0 when `!found`).
//! - parameter `W`: a power of two in 32..=256 (refused otherwise by [`SegSearch::try_new`]).
//!
//! **Latency** 1: `a`/`from` sampled at a clock edge (with `en`) give `found`/`wrapped`/`index`
//! in the following cycle. **II** 1. The caller registers the outputs (the tail is about
//! five LUT levels).
//!
//! **Structure** (the vector is never searched as a whole in one cycle):
//! - stage 1 (before the register), for `a` and for `a & from` independently: per 16-bit
//!   segment, a segmented prefix-OR (4 shift-OR steps that never cross a segment boundary)
//!   gives "any bit set" at the segment's top bit and the one-hot of the segment's first set
//!   bit; its 4-bit index is four masked OR reductions. Registered: per segment `any` and the
//!   4-bit index, for both vectors (only the segments' top bits of each W-bit register carry
//!   information; the others are constant 0 and vanish in synthesis).
//! - stage 2 (after the register): a prefix-OR across the W/16 segment summaries (shifts of
//!   16, 32, 64, 128) picks the first segment with a set bit, then one-hot AND-OR selects its
//!   index and encodes the segment number. The `a & from` pass wins; the `a` pass is the wrap.
//!
//! **Combinational paths.** none from the inputs to the outputs (`en`, `a`, `from` only reach
//! the register). **Hazards** none. **Reset** none (the register holds data only).

use super::{mask, PrimError};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SegSearch<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub en: Signal<In, bool>,
    pub a: Signal<In, Bits<W>>,
    pub from: Signal<In, Bits<W>>,
    pub found: Signal<Out, bool>,
    pub wrapped: Signal<Out, bool>,
    pub index: Signal<Out, Bits<8>>,
    // ---- stage 1: segmented prefix-OR of `a` (px) and `a & from` (ph); the index bits are
    // segment ORs of (first one & bit-k mask), read at the segment tops (pxk/phk)
    px: SegPrefixOr<W>,
    ph: SegPrefixOr<W>,
    px0: SegPrefixOr<W>,
    px1: SegPrefixOr<W>,
    px2: SegPrefixOr<W>,
    px3: SegPrefixOr<W>,
    ph0: SegPrefixOr<W>,
    ph1: SegPrefixOr<W>,
    ph2: SegPrefixOr<W>,
    ph3: SegPrefixOr<W>,
    /// One-hot of each segment's first set bit.
    xf: Signal<Local, Bits<W>>,
    hf: Signal<Local, Bits<W>>,
    // ---- the summary register (segment top bits only)
    s_xany: DFF<Bits<W>>,
    s_hany: DFF<Bits<W>>,
    s_xi0: DFF<Bits<W>>,
    s_xi1: DFF<Bits<W>>,
    s_xi2: DFF<Bits<W>>,
    s_xi3: DFF<Bits<W>>,
    s_hi0: DFF<Bits<W>>,
    s_hi1: DFF<Bits<W>>,
    s_hi2: DFF<Bits<W>>,
    s_hi3: DFF<Bits<W>>,
    // ---- stage 2: first segment with a set bit
    xq1: Signal<Local, Bits<W>>,
    xq2: Signal<Local, Bits<W>>,
    xq3: Signal<Local, Bits<W>>,
    xq4: Signal<Local, Bits<W>>,
    hq1: Signal<Local, Bits<W>>,
    hq2: Signal<Local, Bits<W>>,
    hq3: Signal<Local, Bits<W>>,
    hq4: Signal<Local, Bits<W>>,
    xsel: Signal<Local, Bits<W>>,
    hsel: Signal<Local, Bits<W>>,
    x_index: Signal<Local, Bits<8>>,
    h_index: Signal<Local, Bits<8>>,
    // ---- constants
    /// Bit i set where i mod 16 >= 1 (a shift by one stays inside the segment).
    k_in1: Constant<Bits<W>>,
    /// The top bit of every segment.
    k_top: Constant<Bits<W>>,
    /// Bit i set where bit k of (i mod 16) is set.
    k_m0: Constant<Bits<W>>,
    k_m1: Constant<Bits<W>>,
    k_m2: Constant<Bits<W>>,
    k_m3: Constant<Bits<W>>,
    /// Top bits of the segments whose number has bit j set.
    k_s0: Constant<Bits<W>>,
    k_s1: Constant<Bits<W>>,
    k_s2: Constant<Bits<W>>,
    k_s3: Constant<Bits<W>>,
}

impl<const W: usize> SegSearch<W> {
    /// Refuses a W that is not a power of two in 32..=256.
    pub fn try_new() -> Result<Self, PrimError> {
        if !(32..=256).contains(&W) || !W.is_power_of_two() {
            return Err(PrimError::Parameter { prim: "SegSearch", field: "W", value: W, reason: "must be a power of two in 32..=256 (16-bit segments, at most 16 of them)".into() });
        }
        let top = |i: usize| i % 16 == 15;
        Ok(Self {
            clock: Default::default(),
            en: Default::default(),
            a: Default::default(),
            from: Default::default(),
            found: Default::default(),
            wrapped: Default::default(),
            index: Default::default(),
            px: SegPrefixOr::new(),
            ph: SegPrefixOr::new(),
            px0: SegPrefixOr::new(),
            px1: SegPrefixOr::new(),
            px2: SegPrefixOr::new(),
            px3: SegPrefixOr::new(),
            ph0: SegPrefixOr::new(),
            ph1: SegPrefixOr::new(),
            ph2: SegPrefixOr::new(),
            ph3: SegPrefixOr::new(),
            xf: Default::default(),
            hf: Default::default(),
            s_xany: Default::default(),
            s_hany: Default::default(),
            s_xi0: Default::default(),
            s_xi1: Default::default(),
            s_xi2: Default::default(),
            s_xi3: Default::default(),
            s_hi0: Default::default(),
            s_hi1: Default::default(),
            s_hi2: Default::default(),
            s_hi3: Default::default(),
            xq1: Default::default(),
            xq2: Default::default(),
            xq3: Default::default(),
            xq4: Default::default(),
            hq1: Default::default(),
            hq2: Default::default(),
            hq3: Default::default(),
            hq4: Default::default(),
            xsel: Default::default(),
            hsel: Default::default(),
            x_index: Default::default(),
            h_index: Default::default(),
            k_in1: mask::<W>(|i| i % 16 >= 1),
            k_top: mask::<W>(top),
            k_m0: mask::<W>(|i| i % 16 & 1 != 0),
            k_m1: mask::<W>(|i| i % 16 & 2 != 0),
            k_m2: mask::<W>(|i| i % 16 & 4 != 0),
            k_m3: mask::<W>(|i| i % 16 & 8 != 0),
            k_s0: mask::<W>(move |i| top(i) && (i / 16) & 1 != 0),
            k_s1: mask::<W>(move |i| top(i) && (i / 16) & 2 != 0),
            k_s2: mask::<W>(move |i| top(i) && (i / 16) & 4 != 0),
            k_s3: mask::<W>(move |i| top(i) && (i / 16) & 8 != 0),
        })
    }

    /// Panics with the reason on an illegal W (see [`Self::try_new`]).
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const W: usize> Default for SegSearch<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for SegSearch<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s_xany, s_hany, s_xi0, s_xi1, s_xi2, s_xi3, s_hi0, s_hi1, s_hi2, s_hi3);
        // ---- stage 1: segmented prefix-OR (inclusive) of a and of a & from
        self.px.a.next = self.a.val();
        self.ph.a.next = self.a.val() & self.from.val();
        // First set bit of each segment: set, and nothing set below it in the segment.
        self.xf.next = self.a.val() & !((self.px.y.val() << 1) & self.k_in1.val());
        self.hf.next = (self.a.val() & self.from.val()) & !((self.ph.y.val() << 1) & self.k_in1.val());
        // Index bit k of a segment: the segment OR of (first one & bit-k mask), which the
        // segmented prefix puts on the segment's top bit.
        self.px0.a.next = self.xf.val() & self.k_m0.val();
        self.px1.a.next = self.xf.val() & self.k_m1.val();
        self.px2.a.next = self.xf.val() & self.k_m2.val();
        self.px3.a.next = self.xf.val() & self.k_m3.val();
        self.ph0.a.next = self.hf.val() & self.k_m0.val();
        self.ph1.a.next = self.hf.val() & self.k_m1.val();
        self.ph2.a.next = self.hf.val() & self.k_m2.val();
        self.ph3.a.next = self.hf.val() & self.k_m3.val();
        if self.en.val() {
            self.s_xany.d.next = self.px.y.val() & self.k_top.val();
            self.s_hany.d.next = self.ph.y.val() & self.k_top.val();
            self.s_xi0.d.next = self.px0.y.val() & self.k_top.val();
            self.s_xi1.d.next = self.px1.y.val() & self.k_top.val();
            self.s_xi2.d.next = self.px2.y.val() & self.k_top.val();
            self.s_xi3.d.next = self.px3.y.val() & self.k_top.val();
            self.s_hi0.d.next = self.ph0.y.val() & self.k_top.val();
            self.s_hi1.d.next = self.ph1.y.val() & self.k_top.val();
            self.s_hi2.d.next = self.ph2.y.val() & self.k_top.val();
            self.s_hi3.d.next = self.ph3.y.val() & self.k_top.val();
        }
        // ---- stage 2: the first segment with a set bit (prefix-OR over segment tops)
        self.xq1.next = self.s_xany.q.val() | (self.s_xany.q.val() << 16);
        self.xq2.next = self.xq1.val() | (self.xq1.val() << 32);
        self.xq3.next = self.xq2.val() | (self.xq2.val() << 64);
        self.xq4.next = self.xq3.val() | (self.xq3.val() << 128);
        self.hq1.next = self.s_hany.q.val() | (self.s_hany.q.val() << 16);
        self.hq2.next = self.hq1.val() | (self.hq1.val() << 32);
        self.hq3.next = self.hq2.val() | (self.hq2.val() << 64);
        self.hq4.next = self.hq3.val() | (self.hq3.val() << 128);
        self.xsel.next = self.s_xany.q.val() & !(self.xq4.val() << 16);
        self.hsel.next = self.s_hany.q.val() & !(self.hq4.val() << 16);
        self.x_index.next = bit_cast::<8, 1>((self.xsel.val() & self.s_xi0.q.val()).any().into())
            | (bit_cast::<8, 1>((self.xsel.val() & self.s_xi1.q.val()).any().into()) << 1)
            | (bit_cast::<8, 1>((self.xsel.val() & self.s_xi2.q.val()).any().into()) << 2)
            | (bit_cast::<8, 1>((self.xsel.val() & self.s_xi3.q.val()).any().into()) << 3)
            | (bit_cast::<8, 1>((self.xsel.val() & self.k_s0.val()).any().into()) << 4)
            | (bit_cast::<8, 1>((self.xsel.val() & self.k_s1.val()).any().into()) << 5)
            | (bit_cast::<8, 1>((self.xsel.val() & self.k_s2.val()).any().into()) << 6)
            | (bit_cast::<8, 1>((self.xsel.val() & self.k_s3.val()).any().into()) << 7);
        self.h_index.next = bit_cast::<8, 1>((self.hsel.val() & self.s_hi0.q.val()).any().into())
            | (bit_cast::<8, 1>((self.hsel.val() & self.s_hi1.q.val()).any().into()) << 1)
            | (bit_cast::<8, 1>((self.hsel.val() & self.s_hi2.q.val()).any().into()) << 2)
            | (bit_cast::<8, 1>((self.hsel.val() & self.s_hi3.q.val()).any().into()) << 3)
            | (bit_cast::<8, 1>((self.hsel.val() & self.k_s0.val()).any().into()) << 4)
            | (bit_cast::<8, 1>((self.hsel.val() & self.k_s1.val()).any().into()) << 5)
            | (bit_cast::<8, 1>((self.hsel.val() & self.k_s2.val()).any().into()) << 6)
            | (bit_cast::<8, 1>((self.hsel.val() & self.k_s3.val()).any().into()) << 7);
        self.found.next = self.s_hany.q.val().any() | self.s_xany.q.val().any();
        self.wrapped.next = !self.s_hany.q.val().any();
        self.index.next = self.x_index.val();
        if self.s_hany.q.val().any() {
            self.index.next = self.h_index.val();
        }
    }
}

/// Inclusive prefix-OR inside each 16-bit segment (`y[i]` = OR of `a` from the segment's
/// first bit to `i`; the top bit of a segment is the segment's OR): four shift-OR steps whose
/// shifts never cross a segment boundary. Combinational; part of [`SegSearch`].
#[derive(LogicBlock)]
pub struct SegPrefixOr<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub y: Signal<Out, Bits<W>>,
    l1: Signal<Local, Bits<W>>,
    l2: Signal<Local, Bits<W>>,
    l4: Signal<Local, Bits<W>>,
    k_in1: Constant<Bits<W>>,
    k_in2: Constant<Bits<W>>,
    k_in4: Constant<Bits<W>>,
    k_in8: Constant<Bits<W>>,
}

impl<const W: usize> SegPrefixOr<W> {
    pub fn new() -> Self {
        Self {
            a: Default::default(),
            y: Default::default(),
            l1: Default::default(),
            l2: Default::default(),
            l4: Default::default(),
            k_in1: mask::<W>(|i| i % 16 >= 1),
            k_in2: mask::<W>(|i| i % 16 >= 2),
            k_in4: mask::<W>(|i| i % 16 >= 4),
            k_in8: mask::<W>(|i| i % 16 >= 8),
        }
    }
}

impl<const W: usize> Default for SegPrefixOr<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for SegPrefixOr<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.l1.next = self.a.val() | ((self.a.val() << 1) & self.k_in1.val());
        self.l2.next = self.l1.val() | ((self.l1.val() << 2) & self.k_in2.val());
        self.l4.next = self.l2.val() | ((self.l2.val() << 4) & self.k_in4.val());
        self.y.next = self.l4.val() | ((self.l4.val() << 8) & self.k_in8.val());
    }
}
