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
//! the end. The loop adds every byte of the beat to its byte of the lanes, all bytes in
//! parallel, and keeps each byte's carry out as a separate bit: the next beat's add of the
//! lane's other byte takes it as its carry in (the low byte's carry goes into the high byte,
//! the high byte's goes around into the low byte: the end-around carry, one beat later). The
//! loop is therefore one 8-bit carry chain deep, whatever D, and starts from registers. A lane
//! of bytes `lo`, `hi` with pending carries `c_lo`, `c_hi` stands for
//! `lo + 2^8 hi + 2^8 c_lo + c_hi`, which is congruent to the lane's one's-complement sum
//! modulo 0xFFFF (2^16 = 1) and is 0 only while every word was 0. After the last beat, a tail
//! sums the lanes, their pending carries at those weights (counted, then packed into one word)
//! and the extra word as plain integers (stage 1), then folds the carries back twice (stages 2,
//! 3).
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
//! **Combinational paths** none from inputs to outputs. The tail's stage 2 counts the pending
//! carries (two counts of D/16 bits) and sums D/16 + 2 words (Yosys maps it as one
//! multi-operand adder): it is outside the loop, and the widths above 64 are generated for
//! wider parsers whose Fmax is measured separately.
//!
//! **Hazards** none: the tail holds its own copy of the lanes.
//!
//! **Reset** clears the tail's valid bits; the lanes and their pending carries are data,
//! loaded at `s_first`.

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
    // the loop: D/16 lanes of 16 bits, each byte with its pending carry (bit j of `carries`
    // for byte j: lane i's low byte 2i, its high byte 2i + 1)
    lanes: DFF<Bits<D>>,
    carries: DFF<Bits<K>>,
    masked: Signal<Local, Bits<D>>,
    base: Signal<Local, Bits<D>>,
    basec: Signal<Local, Bits<K>>,
    next: Signal<Local, Bits<D>>,
    nextc: Signal<Local, Bits<K>>,
    t8: Signal<Local, Bits<8>>,
    ta: Signal<Local, Bits<16>>,
    tb: Signal<Local, Bits<16>>,
    t9: Signal<Local, Bits<9>>,
    tc: Signal<Local, Bits<K>>,
    cb: Signal<Local, bool>,
    ch: Signal<Local, bool>,
    pc_lo: Signal<Local, Bits<8>>,
    pc_hi: Signal<Local, Bits<8>>,
    // tail
    t1_valid: DFF<bool>,
    t1_lanes: DFF<Bits<D>>,
    t1_carries: DFF<Bits<K>>,
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
    k_zerok: Constant<Bits<K>>,
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
            carries: Default::default(),
            masked: Default::default(),
            base: Default::default(),
            basec: Default::default(),
            next: Default::default(),
            nextc: Default::default(),
            t8: Default::default(),
            ta: Default::default(),
            tb: Default::default(),
            t9: Default::default(),
            tc: Default::default(),
            cb: Default::default(),
            ch: Default::default(),
            pc_lo: Default::default(),
            pc_hi: Default::default(),
            t1_valid: Default::default(),
            t1_lanes: Default::default(),
            t1_carries: Default::default(),
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
            k_zerok: Constant::new(Bits::<K>::default()),
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
        dff_setup!(self, clock, lanes, carries, t1_valid, t1_lanes, t1_carries, t1_add, t2_valid, t2_sum, t3_valid, t3_sum);
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
        // ---- the loop: every byte + its byte of the beat + the pending carry of the lane's other
        // byte (the previous beat's carry out, as the add's carry in: one 8-bit carry chain);
        // the carry out is kept for the next beat
        self.base.next = self.lanes.q.val();
        self.basec.next = self.carries.q.val();
        if self.s_first.val() {
            self.base.next = self.k_zero.val();
            self.basec.next = self.k_zerok.val();
        }
        self.next.next = self.k_zero.val();
        self.nextc.next = self.k_zerok.val();
        for i in 0..(D / 16) {
            // (bit_cast evaluates its argument as Rust: the loop index goes through locals)
            // low byte of lane i: its carry in is the high byte's pending carry (end-around)
            self.ta.next = self.base.val().get_bits::<16>(i * 16);
            self.tb.next = self.masked.val().get_bits::<16>(i * 16);
            self.cb.next = self.basec.val().get_bit(2 * i + 1);
            self.t9.next = bit_cast::<9, 8>(self.ta.val().get_bits::<8>(0)) + bit_cast::<9, 8>(self.tb.val().get_bits::<8>(0)) + bit_cast::<9, 1>(self.cb.val().into());
            self.next.next = self.next.val() | (bit_cast::<D, 8>(self.t9.val().get_bits::<8>(0)) << (i * 16).to_bits::<16>());
            self.tc.next = bit_cast::<K, 1>(self.t9.val().get_bit(8).into());
            self.nextc.next = self.nextc.val() | (self.tc.val() << (2 * i).to_bits::<16>());
            // high byte of lane i: its carry in is the low byte's pending carry
            self.cb.next = self.basec.val().get_bit(2 * i);
            self.t9.next = bit_cast::<9, 8>(self.ta.val().get_bits::<8>(8)) + bit_cast::<9, 8>(self.tb.val().get_bits::<8>(8)) + bit_cast::<9, 1>(self.cb.val().into());
            self.next.next = self.next.val() | (bit_cast::<D, 8>(self.t9.val().get_bits::<8>(0)) << (i * 16 + 8).to_bits::<16>());
            self.tc.next = bit_cast::<K, 1>(self.t9.val().get_bit(8).into());
            self.nextc.next = self.nextc.val() | (self.tc.val() << (2 * i + 1).to_bits::<16>());
        }
        if self.s_valid.val() {
            self.lanes.d.next = self.next.val();
            self.carries.d.next = self.nextc.val();
        }
        // ---- tail 1: the message's lanes and its extra word (byte-swapped into lane order)
        self.t1_valid.d.next = self.s_valid.val() & self.s_last.val();
        self.t1_lanes.d.next = self.next.val();
        self.t1_carries.d.next = self.nextc.val();
        self.t1_add.d.next = (self.s_add.val() >> 8) | (self.s_add.val() << 8);
        // ---- tail 2: the plain sum of the lanes and their pending carries, each at its weight
        // modulo 0xFFFF (a low byte's carry 2^8, a high byte's 2^16 = 1). The carries are
        // counted first (two counts of D/16 bits, < 2^8 each, one LUT level at D = 64) and
        // enter as one word `pc_lo << 8 | pc_hi`, so the sum is of D/16 + 2 words (< 2^22)
        self.pc_lo.next = self.k_zero8.val();
        self.pc_hi.next = self.k_zero8.val();
        for i in 0..(D / 16) {
            self.cb.next = self.t1_carries.q.val().get_bit(2 * i);
            self.ch.next = self.t1_carries.q.val().get_bit(2 * i + 1);
            self.pc_lo.next = self.pc_lo.val() + bit_cast::<8, 1>(self.cb.val().into());
            self.pc_hi.next = self.pc_hi.val() + bit_cast::<8, 1>(self.ch.val().into());
        }
        self.red.next = bit_cast::<32, 16>(self.t1_add.q.val()) + (bit_cast::<32, 8>(self.pc_lo.val()) << 8) + bit_cast::<32, 8>(self.pc_hi.val());
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
