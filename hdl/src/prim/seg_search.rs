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
//! three LUT levels).
//!
//! **Structure** (the vector is never searched as a whole in one cycle):
//! - stage 1 (before the register), for `a` and for `a & from` independently: per 16-bit
//!   segment, a segmented prefix-OR (4 shift-OR steps that never cross a segment boundary)
//!   gives "any bit set" at the segment's top bit and the one-hot of the segment's first set
//!   bit; its 4-bit index is four 8-input OR reductions of that one-hot (the positions whose
//!   bit k is set). A generation-time loop over the S = W / 16 segments gathers them into
//!   16-bit vectors (bit i = segment i). Still in stage 1, a prefix-OR over the 16 "any"
//!   bits (shifts 1, 2, 4, 8) gives the first segment with a set bit as a one-hot (`sel`),
//!   its number (`seg`, four 8-input ORs) and "some bit set" (`found`). Registered per
//!   vector: `sel` (16), `seg` (4), `found` (1) and the 4 index bits of every segment (4 x 16).
//! - stage 2 (after the register): each of the 4 low index bits is one 16-input AND-OR of
//!   `sel` with that bit's segment vector, below the registered `seg`; the `a & from` pass
//!   wins, the `a` pass is the wrap (a 2:1 select on the registered `found`). About three
//!   LUT levels.
//! - below W = 256 the summary bits S..15 are constant 0 (yosys removes them; Verilator's
//!   toggle coverage counts them). Every bit of every vector carries information at W = 256.
//!
//! **Combinational paths.** none from the inputs to the outputs (`en`, `a`, `from` only reach
//! the register). **Hazards** none. **Reset** none (the register holds data only).

use super::{check_pow2, mask, PrimError};
use rust_hdl::prelude::*;

/// Segments of 16 bits the summary register holds at most (W = 256).
pub const SEG_MAX: usize = 16;

#[derive(LogicBlock)]
pub struct SegSearch<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub en: Signal<In, bool>,
    pub a: Signal<In, Bits<W>>,
    pub from: Signal<In, Bits<W>>,
    pub found: Signal<Out, bool>,
    pub wrapped: Signal<Out, bool>,
    pub index: Signal<Out, Bits<8>>,
    // ---- stage 1: segmented prefix-OR of `a` (px) and `a & from` (ph)
    px: SegPrefixOr<W>,
    ph: SegPrefixOr<W>,
    /// One-hot of each segment's first set bit.
    xf: Signal<Local, Bits<W>>,
    hf: Signal<Local, Bits<W>>,
    // ---- the per-segment summaries, gathered (bit i = segment i) through one segment's bit
    t_seg: Signal<Local, bool>,
    g_xany: Signal<Local, Bits<SEG_MAX>>,
    g_hany: Signal<Local, Bits<SEG_MAX>>,
    g_xi0: Signal<Local, Bits<SEG_MAX>>,
    g_xi1: Signal<Local, Bits<SEG_MAX>>,
    g_xi2: Signal<Local, Bits<SEG_MAX>>,
    g_xi3: Signal<Local, Bits<SEG_MAX>>,
    g_hi0: Signal<Local, Bits<SEG_MAX>>,
    g_hi1: Signal<Local, Bits<SEG_MAX>>,
    g_hi2: Signal<Local, Bits<SEG_MAX>>,
    g_hi3: Signal<Local, Bits<SEG_MAX>>,
    // ---- stage 1, continued: the first segment with a set bit (prefix-OR over the 16
    // gathered "any" bits), its one-hot and its number
    xr1: Signal<Local, Bits<SEG_MAX>>,
    xr2: Signal<Local, Bits<SEG_MAX>>,
    xr3: Signal<Local, Bits<SEG_MAX>>,
    xr4: Signal<Local, Bits<SEG_MAX>>,
    hr1: Signal<Local, Bits<SEG_MAX>>,
    hr2: Signal<Local, Bits<SEG_MAX>>,
    hr3: Signal<Local, Bits<SEG_MAX>>,
    hr4: Signal<Local, Bits<SEG_MAX>>,
    g_xsel: Signal<Local, Bits<SEG_MAX>>,
    g_hsel: Signal<Local, Bits<SEG_MAX>>,
    g_xseg: Signal<Local, Bits<4>>,
    g_hseg: Signal<Local, Bits<4>>,
    // ---- the summary register: per vector the first segment's one-hot (`sel`), its number
    // (`seg`), "some bit set" (`found`) and every segment's 4 index bits (`i0..i3`)
    s_xsel: DFF<Bits<SEG_MAX>>,
    s_hsel: DFF<Bits<SEG_MAX>>,
    s_xseg: DFF<Bits<4>>,
    s_hseg: DFF<Bits<4>>,
    s_xfound: DFF<bool>,
    s_hfound: DFF<bool>,
    s_xi0: DFF<Bits<SEG_MAX>>,
    s_xi1: DFF<Bits<SEG_MAX>>,
    s_xi2: DFF<Bits<SEG_MAX>>,
    s_xi3: DFF<Bits<SEG_MAX>>,
    s_hi0: DFF<Bits<SEG_MAX>>,
    s_hi1: DFF<Bits<SEG_MAX>>,
    s_hi2: DFF<Bits<SEG_MAX>>,
    s_hi3: DFF<Bits<SEG_MAX>>,
    // ---- stage 2: the first segment's index bits (one-hot AND-OR) and the pass select
    x_index: Signal<Local, Bits<8>>,
    h_index: Signal<Local, Bits<8>>,
    // ---- constants
    /// Bit i set where i mod 16 >= 1 (a shift by one stays inside the segment).
    k_in1: Constant<Bits<W>>,
    /// Bit i of 16 set where bit k of i is set: picks a segment's positions (stage 1) or
    /// segment numbers (stage 2) whose bit k is 1.
    k_b0: Constant<Bits<SEG_MAX>>,
    k_b1: Constant<Bits<SEG_MAX>>,
    k_b2: Constant<Bits<SEG_MAX>>,
    k_b3: Constant<Bits<SEG_MAX>>,
    k_zero: Constant<Bits<SEG_MAX>>,
}

impl<const W: usize> SegSearch<W> {
    /// Refuses a W that is not a power of two in 32..=256.
    pub fn try_new() -> Result<Self, PrimError> {
        check_pow2("SegSearch", "W", W, 32, 256, "16-bit segments, at most 16 of them")?;
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
            xf: Default::default(),
            hf: Default::default(),
            t_seg: Default::default(),
            g_xany: Default::default(),
            g_hany: Default::default(),
            g_xi0: Default::default(),
            g_xi1: Default::default(),
            g_xi2: Default::default(),
            g_xi3: Default::default(),
            g_hi0: Default::default(),
            g_hi1: Default::default(),
            g_hi2: Default::default(),
            g_hi3: Default::default(),
            xr1: Default::default(),
            xr2: Default::default(),
            xr3: Default::default(),
            xr4: Default::default(),
            hr1: Default::default(),
            hr2: Default::default(),
            hr3: Default::default(),
            hr4: Default::default(),
            g_xsel: Default::default(),
            g_hsel: Default::default(),
            g_xseg: Default::default(),
            g_hseg: Default::default(),
            s_xsel: Default::default(),
            s_hsel: Default::default(),
            s_xseg: Default::default(),
            s_hseg: Default::default(),
            s_xfound: Default::default(),
            s_hfound: Default::default(),
            s_xi0: Default::default(),
            s_xi1: Default::default(),
            s_xi2: Default::default(),
            s_xi3: Default::default(),
            s_hi0: Default::default(),
            s_hi1: Default::default(),
            s_hi2: Default::default(),
            s_hi3: Default::default(),
            x_index: Default::default(),
            h_index: Default::default(),
            k_in1: mask::<W>(|i| i % 16 >= 1),
            k_b0: mask::<SEG_MAX>(|i| i & 1 != 0),
            k_b1: mask::<SEG_MAX>(|i| i & 2 != 0),
            k_b2: mask::<SEG_MAX>(|i| i & 4 != 0),
            k_b3: mask::<SEG_MAX>(|i| i & 8 != 0),
            k_zero: mask::<SEG_MAX>(|_| false),
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
        dff_setup!(self, clock, s_xsel, s_hsel, s_xseg, s_hseg, s_xfound, s_hfound, s_xi0, s_xi1, s_xi2, s_xi3, s_hi0, s_hi1, s_hi2, s_hi3);
        // ---- stage 1: segmented prefix-OR (inclusive) of a and of a & from
        self.px.a.next = self.a.val();
        self.ph.a.next = self.a.val() & self.from.val();
        // First set bit of each segment: set, and nothing set below it in the segment.
        self.xf.next = self.a.val() & !((self.px.y.val() << 1) & self.k_in1.val());
        self.hf.next = (self.a.val() & self.from.val()) & !((self.ph.y.val() << 1) & self.k_in1.val());
        // Gather per segment (a generation-time loop over the W / 16 segments, unrolled in
        // the Verilog): "any" is the segmented prefix's top bit; index bit k is the OR of the
        // first-one one-hot over the positions whose bit k is set. Each bit goes through the
        // 1-bit `t_seg` and `bit_cast(..) << i` because rust-hdl's `set_bit` statement does not
        // compile (its translation builds a String where an expression is expected) and
        // `replace_bit` emits a 1-bit shift that fails the width lint; `i.to_bits::<8>()` is
        // the loop index as a shift amount (`Bits` shifts by `Bits`; the translation emits `i`).
        self.g_xany.next = self.k_zero.val();
        self.g_hany.next = self.k_zero.val();
        self.g_xi0.next = self.k_zero.val();
        self.g_xi1.next = self.k_zero.val();
        self.g_xi2.next = self.k_zero.val();
        self.g_xi3.next = self.k_zero.val();
        self.g_hi0.next = self.k_zero.val();
        self.g_hi1.next = self.k_zero.val();
        self.g_hi2.next = self.k_zero.val();
        self.g_hi3.next = self.k_zero.val();
        for i in 0..(W / 16) {
            self.t_seg.next = self.px.y.val().get_bit(i * 16 + 15);
            self.g_xany.next = self.g_xany.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = self.ph.y.val().get_bit(i * 16 + 15);
            self.g_hany.next = self.g_hany.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.xf.val().get_bits::<16>(i * 16) & self.k_b0.val()).any();
            self.g_xi0.next = self.g_xi0.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.xf.val().get_bits::<16>(i * 16) & self.k_b1.val()).any();
            self.g_xi1.next = self.g_xi1.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.xf.val().get_bits::<16>(i * 16) & self.k_b2.val()).any();
            self.g_xi2.next = self.g_xi2.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.xf.val().get_bits::<16>(i * 16) & self.k_b3.val()).any();
            self.g_xi3.next = self.g_xi3.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.hf.val().get_bits::<16>(i * 16) & self.k_b0.val()).any();
            self.g_hi0.next = self.g_hi0.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.hf.val().get_bits::<16>(i * 16) & self.k_b1.val()).any();
            self.g_hi1.next = self.g_hi1.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.hf.val().get_bits::<16>(i * 16) & self.k_b2.val()).any();
            self.g_hi2.next = self.g_hi2.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
            self.t_seg.next = (self.hf.val().get_bits::<16>(i * 16) & self.k_b3.val()).any();
            self.g_hi3.next = self.g_hi3.val() | (bit_cast::<SEG_MAX, 1>(self.t_seg.val().into()) << i.to_bits::<8>());
        }
        // The first segment with a set bit: prefix-OR over the 16 "any" bits (shifts 1, 2,
        // 4, 8), the one-hot of its lowest set bit, and that bit's number (4 8-input ORs).
        self.xr1.next = self.g_xany.val() | (self.g_xany.val() << 1);
        self.xr2.next = self.xr1.val() | (self.xr1.val() << 2);
        self.xr3.next = self.xr2.val() | (self.xr2.val() << 4);
        self.xr4.next = self.xr3.val() | (self.xr3.val() << 8);
        self.hr1.next = self.g_hany.val() | (self.g_hany.val() << 1);
        self.hr2.next = self.hr1.val() | (self.hr1.val() << 2);
        self.hr3.next = self.hr2.val() | (self.hr2.val() << 4);
        self.hr4.next = self.hr3.val() | (self.hr3.val() << 8);
        self.g_xsel.next = self.g_xany.val() & !(self.xr4.val() << 1);
        self.g_hsel.next = self.g_hany.val() & !(self.hr4.val() << 1);
        self.g_xseg.next = bit_cast::<4, 1>((self.g_xsel.val() & self.k_b0.val()).any().into())
            | (bit_cast::<4, 1>((self.g_xsel.val() & self.k_b1.val()).any().into()) << 1)
            | (bit_cast::<4, 1>((self.g_xsel.val() & self.k_b2.val()).any().into()) << 2)
            | (bit_cast::<4, 1>((self.g_xsel.val() & self.k_b3.val()).any().into()) << 3);
        self.g_hseg.next = bit_cast::<4, 1>((self.g_hsel.val() & self.k_b0.val()).any().into())
            | (bit_cast::<4, 1>((self.g_hsel.val() & self.k_b1.val()).any().into()) << 1)
            | (bit_cast::<4, 1>((self.g_hsel.val() & self.k_b2.val()).any().into()) << 2)
            | (bit_cast::<4, 1>((self.g_hsel.val() & self.k_b3.val()).any().into()) << 3);
        if self.en.val() {
            self.s_xsel.d.next = self.g_xsel.val();
            self.s_hsel.d.next = self.g_hsel.val();
            self.s_xseg.d.next = self.g_xseg.val();
            self.s_hseg.d.next = self.g_hseg.val();
            self.s_xfound.d.next = self.g_xany.val().any();
            self.s_hfound.d.next = self.g_hany.val().any();
            self.s_xi0.d.next = self.g_xi0.val();
            self.s_xi1.d.next = self.g_xi1.val();
            self.s_xi2.d.next = self.g_xi2.val();
            self.s_xi3.d.next = self.g_xi3.val();
            self.s_hi0.d.next = self.g_hi0.val();
            self.s_hi1.d.next = self.g_hi1.val();
            self.s_hi2.d.next = self.g_hi2.val();
            self.s_hi3.d.next = self.g_hi3.val();
        }
        // ---- stage 2: the first segment's 4 index bits (a 16-input AND-OR each) below its
        // number; the `a & from` pass wins, the `a` pass is the wrap.
        self.x_index.next = bit_cast::<8, 1>((self.s_xsel.q.val() & self.s_xi0.q.val()).any().into())
            | (bit_cast::<8, 1>((self.s_xsel.q.val() & self.s_xi1.q.val()).any().into()) << 1)
            | (bit_cast::<8, 1>((self.s_xsel.q.val() & self.s_xi2.q.val()).any().into()) << 2)
            | (bit_cast::<8, 1>((self.s_xsel.q.val() & self.s_xi3.q.val()).any().into()) << 3)
            | (bit_cast::<8, 4>(self.s_xseg.q.val()) << 4);
        self.h_index.next = bit_cast::<8, 1>((self.s_hsel.q.val() & self.s_hi0.q.val()).any().into())
            | (bit_cast::<8, 1>((self.s_hsel.q.val() & self.s_hi1.q.val()).any().into()) << 1)
            | (bit_cast::<8, 1>((self.s_hsel.q.val() & self.s_hi2.q.val()).any().into()) << 2)
            | (bit_cast::<8, 1>((self.s_hsel.q.val() & self.s_hi3.q.val()).any().into()) << 3)
            | (bit_cast::<8, 4>(self.s_hseg.q.val()) << 4);
        self.found.next = self.s_hfound.q.val() | self.s_xfound.q.val();
        self.wrapped.next = !self.s_hfound.q.val();
        self.index.next = self.x_index.val();
        if self.s_hfound.q.val() {
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
