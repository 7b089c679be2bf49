//! # OnesSum: the Internet checksum's one's-complement sum at the stream width
//!
//! **Purpose.** The receive path checks the IPv4 header checksum and the UDP checksum
//! (`docs/protocol.md` §2.2, §2.3, RFC 1071 / RFC 768) on the fly, one beat per cycle. This
//! primitive is the sum both are made of: the one's-complement sum of a message's
//! big-endian 16-bit words, of the bytes its `s_keep` enables (a byte not kept counts as 0),
//! plus one extra word per message (`s_add`, for the UDP pseudo-header's protocol and
//! length). It equals the model's `mrnic_model::wire::ipv4::ones_sum` (folded, not
//! complemented: a right IPv4 header sums to 0xFFFF).
//!
//! **How.** The sum is byte-order independent (RFC 1071 §2(B)): the D/16 16-bit lanes are
//! accumulated as they lie in the beat (byte 0 low) and the result is byte-swapped once at
//! the end. The loop is one 16-bit end-around-carry add per lane, all lanes in parallel (two
//! 16-bit carry chains deep, whatever D). After the last beat, a tail sums the lanes and the
//! extra word as plain integers (stage 1), then folds the carries back twice (stages 2, 3).
//!
//! **Ports** (`OnesSum<D, K>`, K = D/8).
//! - inputs: `clock`, `rst` (synchronous, active high); `s_valid`, `s_first` (this beat
//!   starts a message: the lanes start from 0), `s_last` (this beat ends it), `s_data` (D),
//!   `s_keep` (K: byte i of the beat counts when bit i is set; any pattern), `s_add` (16: a
//!   big-endian word added once, with the last beat).
//! - outputs: `m_valid` (one cycle per message), `m_sum` (16: the folded sum).
//! - no ready: a beat every cycle; the owner stalls upstream.
//!
//! **Latency** 3 cycles from the last beat to `m_valid`. **II** 1 beat per cycle, messages back
//! to back (one-beat messages included).
//!
//! **Combinational paths** none from inputs to outputs. The tail's stage 1 is a chain of D/16
//! adds (3 at D = 64): it is outside the loop, and the widths above 64 are generated for
//! wider parsers whose Fmax is measured separately.
//!
//! **Hazards** none: the tail holds its own copy of the lanes.
//!
//! **Reset** clears the tail's valid bits; the lanes are data, loaded at `s_first`.

use super::{check_pow2, PrimError};
use rust_hdl::prelude::*;

/// Widest data word [`OnesSum`] accepts (bits).
pub const ONES_SUM_MAX_D: usize = 512;

/// The plain Rust model: [`mrnic_model::wire::ipv4::ones_sum`] of the kept bytes (others 0),
/// then the extra word.
pub fn ones_sum_model(bytes: &[u8], keep: &[bool], add: u16) -> u16 {
    let kept: Vec<u8> = bytes.iter().zip(keep).map(|(&b, &k)| if k { b } else { 0 }).collect();
    let s = mrnic_model::wire::ipv4::ones_sum(0, &kept);
    mrnic_model::wire::ipv4::ones_sum(s, &add.to_be_bytes()) as u16
}

#[derive(LogicBlock)]
pub struct OnesSum<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_first: Signal<In, bool>,
    pub s_last: Signal<In, bool>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_keep: Signal<In, Bits<K>>,
    pub s_add: Signal<In, Bits<16>>,
    pub m_valid: Signal<Out, bool>,
    pub m_sum: Signal<Out, Bits<16>>,
    // the loop: D/16 lanes of 16 bits, end-around carry
    lanes: DFF<Bits<D>>,
    masked: Signal<Local, Bits<D>>,
    base: Signal<Local, Bits<D>>,
    next: Signal<Local, Bits<D>>,
    t8: Signal<Local, Bits<8>>,
    ta: Signal<Local, Bits<16>>,
    tb: Signal<Local, Bits<16>>,
    t17: Signal<Local, Bits<17>>,
    t16: Signal<Local, Bits<16>>,
    // tail
    t1_valid: DFF<bool>,
    t1_lanes: DFF<Bits<D>>,
    t1_add: DFF<Bits<16>>,
    red: Signal<Local, Bits<32>>,
    t2_valid: DFF<bool>,
    t2_sum: DFF<Bits<32>>,
    fold1: Signal<Local, Bits<32>>,
    t3_valid: DFF<bool>,
    t3_sum: DFF<Bits<32>>,
    fold2: Signal<Local, Bits<16>>,
    k_zero: Constant<Bits<D>>,
    k_zero8: Constant<Bits<8>>,
    k_lo16: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize> OnesSum<D, K> {
    /// Refuses D outside the powers of two in 16..=512 and K != D/8.
    pub fn try_new() -> Result<Self, PrimError> {
        check_pow2("OnesSum", "D", D, 16, ONES_SUM_MAX_D, "whole 16-bit words")?;
        if K * 8 != D {
            return Err(PrimError::Parameter { prim: "OnesSum", field: "K", value: K, reason: format!("must be D / 8 = {}", D / 8) });
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_first: Default::default(),
            s_last: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_add: Default::default(),
            m_valid: Default::default(),
            m_sum: Default::default(),
            lanes: Default::default(),
            masked: Default::default(),
            base: Default::default(),
            next: Default::default(),
            t8: Default::default(),
            ta: Default::default(),
            tb: Default::default(),
            t17: Default::default(),
            t16: Default::default(),
            t1_valid: Default::default(),
            t1_lanes: Default::default(),
            t1_add: Default::default(),
            red: Default::default(),
            t2_valid: Default::default(),
            t2_sum: Default::default(),
            fold1: Default::default(),
            t3_valid: Default::default(),
            t3_sum: Default::default(),
            fold2: Default::default(),
            k_zero: Constant::new(Bits::<D>::default()),
            k_zero8: Constant::new(0u64.into()),
            k_lo16: Constant::new(0xFFFFu64.into()),
        })
    }
    /// [`OnesSum::try_new`], panicking with the reason.
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
    /// Cycles from a message's last beat to its `m_valid`.
    pub const fn latency() -> usize {
        3
    }
}

impl<const D: usize, const K: usize> Default for OnesSum<D, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const K: usize> Logic for OnesSum<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lanes, t1_valid, t1_lanes, t1_add, t2_valid, t2_sum, t3_valid, t3_sum);
        // ---- the beat with the bytes not kept zeroed (generation-time loop over the K bytes;
        // each byte through the 8-bit `t8` and `bit_cast(..) << 8 j`, see prim::SegSearch)
        self.masked.next = self.k_zero.val();
        for j in 0..K {
            self.t8.next = self.s_data.val().get_bits::<8>(j * 8);
            if !self.s_keep.val().get_bit(j) {
                self.t8.next = self.k_zero8.val();
            }
            self.masked.next = self.masked.val() | (bit_cast::<D, 8>(self.t8.val()) << (j * 8).to_bits::<16>());
        }
        // ---- the loop: every lane + its word, the carry out added back in (end-around)
        self.base.next = self.lanes.q.val();
        if self.s_first.val() {
            self.base.next = self.k_zero.val();
        }
        self.next.next = self.k_zero.val();
        for i in 0..(D / 16) {
            // (bit_cast evaluates its argument as Rust: the loop index goes through locals)
            self.ta.next = self.base.val().get_bits::<16>(i * 16);
            self.tb.next = self.masked.val().get_bits::<16>(i * 16);
            self.t17.next = bit_cast::<17, 16>(self.ta.val()) + bit_cast::<17, 16>(self.tb.val());
            self.t16.next = self.t17.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.t17.val().get_bit(16).into());
            self.next.next = self.next.val() | (bit_cast::<D, 16>(self.t16.val()) << (i * 16).to_bits::<16>());
        }
        if self.s_valid.val() {
            self.lanes.d.next = self.next.val();
        }
        // ---- tail 1: the message's lanes and its extra word (byte-swapped into lane order)
        self.t1_valid.d.next = self.s_valid.val() & self.s_last.val();
        self.t1_lanes.d.next = self.next.val();
        self.t1_add.d.next = (self.s_add.val() >> 8) | (self.s_add.val() << 8);
        // ---- tail 2: the plain sum of the lanes (at most D/16 + 1 words: < 2^22)
        self.red.next = bit_cast::<32, 16>(self.t1_add.q.val());
        for i in 0..(D / 16) {
            self.ta.next = self.t1_lanes.q.val().get_bits::<16>(i * 16);
            self.red.next = self.red.val() + bit_cast::<32, 16>(self.ta.val());
        }
        self.t2_valid.d.next = self.t1_valid.q.val();
        self.t2_sum.d.next = self.red.val();
        // ---- tail 3 and out: fold the carries back twice (the result is 0 only for an all-zero
        // message, as the model's running fold), then swap back to big-endian
        self.fold1.next = (self.t2_sum.q.val() & self.k_lo16.val()) + (self.t2_sum.q.val() >> 16);
        self.t3_valid.d.next = self.t2_valid.q.val();
        self.t3_sum.d.next = self.fold1.val();
        self.fold2.next = self.t3_sum.q.val().get_bits::<16>(0) + self.t3_sum.q.val().get_bits::<16>(16);
        self.m_valid.next = self.t3_valid.q.val();
        self.m_sum.next = (self.fold2.val() >> 8) | (self.fold2.val() << 8);
        // ---- reset: the tail's valid bits only
        if self.rst.val() {
            self.t1_valid.d.next = false;
            self.t2_valid.d.next = false;
            self.t3_valid.d.next = false;
        }
    }
}
