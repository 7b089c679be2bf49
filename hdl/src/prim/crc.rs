//! # CRC-32 at the stream width: `CrcFold` (one beat, combinational) and `Crc32Stream`
//!
//! **Purpose.** The receive path checks the RoCEv2 ICRC (`docs/protocol.md` §2.8) of every
//! frame on the fly, at the AXI4-Stream data width D (64 bits by default; 128, 256 and 512
//! generated too). These are the two pieces it is built from:
//!
//! - [`CrcFold`]`<D>`: the raw (uncomplemented) CRC-32 register after `bytes` bytes of a
//!   D-bit word, `y = fold(state, data)`, as one XOR matrix: output bit j is the parity of
//!   `state & MS[j]` xor the parity of `data & MD[j]`. The matrices are computed at
//!   generation time from the golden model's own CRC ([`mrnic_model::wire::icrc::Crc32`],
//!   reflected polynomial 0xEDB88320), by linearity: column i is the register after the
//!   bytes when only input bit i is set. Byte 0 of `data` (bits 7..0) is folded first, as
//!   AXI4-Stream orders bytes; bytes `bytes..D/8` are ignored (`bytes` = 0 is the identity).
//! - [`Crc32Stream`]`<D>`: a message's CRC register, one beat per cycle, back to back. Full
//!   beats fold in one cycle (the loop: one `CrcFold<D>`, 32 parities of up to D + 32 bits,
//!   log4 depth); a partial last beat (n < D/8 bytes) goes through a tail pipeline of one
//!   stage per set bit of n, largest chunk first (D/16, ..., 2, 1 bytes: log2(D/8) stages),
//!   outside the loop, so the next message starts on the next cycle. Each chunk stage but
//!   the last is one [`CrcTailStage`]`<D>` (fold 2^k bytes when bit k of n is set, shift
//!   them out, register; bypassed when its chunk is not below D/8).
//!
//! **Ports of `Crc32Stream<D>`.**
//! - inputs: `clock`, `rst` (synchronous, active high); `s_valid`, `s_first` (this beat starts
//!   a message: the register is loaded with the init value before the fold), `s_last` (this
//!   beat ends it), `s_data` (D), `s_bytes` (8: bytes of this beat, 1..=D/8; only a last beat
//!   may be partial, an earlier beat is folded whole whatever it says).
//! - outputs: `m_valid` (one cycle per message), `m_crc` (32: the raw register after the
//!   message, i.e. before the final complement).
//! - config: the init value, a constructor argument ([`Crc32Stream::new`]): 0xFFFFFFFF for
//!   a plain CRC-32, [`mrnic_model::wire::icrc::ICRC_SEED`] for the ICRC (the register after
//!   the 8 bytes of 0xFF that stand in for the LRH).
//! - no ready: the engine takes a beat every cycle; the stream's owner stalls upstream.
//!
//! **Latency** `1 + log2(D/8)` cycles from the last beat to `m_valid` (D = 64: 4), whether or
//! not the last beat is full. **II** 1 beat per cycle, messages back to back (a message may
//! start in the cycle after the previous one's last beat, and be one beat long).
//!
//! **Combinational paths** none from inputs to outputs; the one-cycle loop is the state
//! register through one `CrcFold<D>` and the `s_first` select.
//!
//! **Hazards** none: the tail stages carry their own copy of the register, so a message's
//! tail and the next message's beats never share state.
//!
//! **Reset** clears the tail pipeline's valid bits (no `m_valid` from a message cut by the
//! reset); the CRC register is data and is not reset (every message loads it at `s_first`).
//! A message whose first beat was not marked `s_first` folds onto whatever the register holds.
//!
//! The ICRC is checked by the residue: the register after the covered bytes *and* the four
//! received ICRC bytes equals a constant (0xDEBB20E3) exactly when the ICRC is right, so the
//! parser never has to find where the ICRC starts before `tlast` (`verif/tests/prim_diff.rs`
//! proves the constant against the model).

use super::{check_pow2, PrimError};
use mrnic_model::wire::icrc::Crc32;
use rust_hdl::prelude::*;

/// Widest data word the CRC primitives accept (bits).
pub const CRC_MAX_D: usize = 512;
/// Stride of one output bit's data mask in [`CrcFold`]'s packed constant (= [`CRC_MAX_D`]:
/// the macro cannot emit a const generic in an offset, so the stride is a literal).
const MD_STRIDE: usize = 512;
/// Tail stages built: chunk sizes 32, 16, 8, 4, 2, 1 bytes (enough for D = 512).
const TAIL_STAGES: usize = 6;

fn check_crc_width(prim: &'static str, d: usize) -> Result<(), PrimError> {
    check_pow2(prim, "D", d, 8, CRC_MAX_D, "whole bytes")
}

/// The raw CRC-32 register after folding `bytes` bytes of `data` (byte 0 first) into `state`:
/// the plain Rust model of [`CrcFold`], and what its matrices are computed from.
pub fn crc_fold_model(state: u32, data: &[u8]) -> u32 {
    let mut c = Crc32::from_state(state);
    c.update(data);
    c.state()
}

/// One beat of CRC-32 as an XOR matrix (module header above). Combinational.
#[derive(LogicBlock)]
pub struct CrcFold<const D: usize> {
    pub state: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<D>>,
    pub y: Signal<Out, Bits<32>>,
    t: Signal<Local, bool>,
    /// bit 32 j + i: state bit i feeds y[j]
    k_ms: Constant<Bits<1024>>,
    /// bit 512 j + i: data bit i feeds y[j]
    k_md: Constant<Bits<16384>>,
    k_zero: Constant<Bits<32>>,
}

impl<const D: usize> CrcFold<D> {
    /// A fold of the first `bytes` bytes of a D-bit word; refuses D outside the powers of two
    /// in 8..=512 and `bytes` > D/8.
    pub fn try_new(bytes: usize) -> Result<Self, PrimError> {
        check_crc_width("CrcFold", D)?;
        if bytes > D / 8 {
            return Err(PrimError::Parameter {
                prim: "CrcFold",
                field: "bytes",
                value: bytes,
                reason: format!("at most D / 8 = {}", D / 8),
            });
        }
        let mut ms = Bits::<1024>::default();
        let mut md = Bits::<16384>::default();
        let zeros = vec![0u8; bytes];
        for i in 0..32 {
            let y = crc_fold_model(1 << i, &zeros);
            for j in 0..32 {
                if y >> j & 1 == 1 {
                    ms = ms.replace_bit(32 * j + i, true);
                }
            }
        }
        for i in 0..8 * bytes {
            let mut d = vec![0u8; bytes];
            d[i / 8] = 1 << (i % 8);
            let y = crc_fold_model(0, &d);
            for j in 0..32 {
                if y >> j & 1 == 1 {
                    md = md.replace_bit(MD_STRIDE * j + i, true);
                }
            }
        }
        Ok(Self {
            state: Default::default(),
            data: Default::default(),
            y: Default::default(),
            t: Default::default(),
            k_ms: Constant::new(ms),
            k_md: Constant::new(md),
            k_zero: Constant::new(0u64.into()),
        })
    }
    /// [`CrcFold::try_new`], panicking with the reason.
    pub fn new(bytes: usize) -> Self {
        Self::try_new(bytes).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const D: usize> Logic for CrcFold<D> {
    #[hdl_gen]
    fn update(&mut self) {
        // One parity per output bit (a generation-time loop, unrolled in the Verilog); the
        // 1-bit `t` and `bit_cast(..) << j` assemble the word (rust-hdl's `set_bit` statement
        // does not compile in hdl_gen; see prim::SegSearch).
        self.y.next = self.k_zero.val();
        for j in 0..32 {
            self.t.next = (self.state.val() & self.k_ms.val().get_bits::<32>(j * 32)).xor()
                ^ (self.data.val() & self.k_md.val().get_bits::<D>(j * 512)).xor();
            self.y.next = self.y.val() | (bit_cast::<32, 1>(self.t.val().into()) << j.to_bits::<8>());
        }
    }
}

/// One stage of [`Crc32Stream`]'s tail: folds a chunk of 2^k bytes into the register when
/// bit k of `s_n` is set (and shifts the chunk out of the data), then registers the result,
/// or passes it through combinationally when the stage is not used (its chunk is not below
/// D/8, so bit k of n < D/8 is never set). Latency 1 when used, 0 when bypassed; II 1.
/// Reset clears the valid bit only.
#[derive(LogicBlock)]
pub struct CrcTailStage<const D: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_crc: Signal<In, Bits<32>>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_n: Signal<In, Bits<8>>,
    pub m_valid: Signal<Out, bool>,
    pub m_crc: Signal<Out, Bits<32>>,
    pub m_data: Signal<Out, Bits<D>>,
    pub m_n: Signal<Out, Bits<8>>,
    fold: CrcFold<D>,
    o_crc: Signal<Local, Bits<32>>,
    o_data: Signal<Local, Bits<D>>,
    r_valid: DFF<bool>,
    r_crc: DFF<Bits<32>>,
    r_data: DFF<Bits<D>>,
    r_n: DFF<Bits<8>>,
    /// 1 << k: the bit of n that selects this stage's fold
    k_bit: Constant<Bits<8>>,
    /// the chunk in bits (the data shift after a fold)
    k_sh: Constant<Bits<16>>,
    /// whether the stage exists (its chunk is below D/8)
    k_used: Constant<bool>,
}

impl<const D: usize> CrcTailStage<D> {
    /// The stage for chunks of 2^k bytes (k < 8); refuses D outside the powers of two in
    /// 8..=512 and k >= 8.
    pub fn try_new(k: usize) -> Result<Self, PrimError> {
        check_crc_width("CrcTailStage", D)?;
        if k >= 8 {
            return Err(PrimError::Parameter { prim: "CrcTailStage", field: "k", value: k, reason: "chunks of 2^k bytes, k < 8".into() });
        }
        let used = (1usize << k) < D / 8;
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_crc: Default::default(),
            s_data: Default::default(),
            s_n: Default::default(),
            m_valid: Default::default(),
            m_crc: Default::default(),
            m_data: Default::default(),
            m_n: Default::default(),
            fold: CrcFold::new(if used { 1 << k } else { 0 }),
            o_crc: Default::default(),
            o_data: Default::default(),
            r_valid: Default::default(),
            r_crc: Default::default(),
            r_data: Default::default(),
            r_n: Default::default(),
            k_bit: Constant::new(((1u64 << k) as u64).into()),
            k_sh: Constant::new(((8u64 << k) as u64).into()),
            k_used: Constant::new(used),
        })
    }
    /// [`CrcTailStage::try_new`], panicking with the reason.
    pub fn new(k: usize) -> Self {
        Self::try_new(k).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const D: usize> Logic for CrcTailStage<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_valid, r_crc, r_data, r_n);
        self.fold.state.next = self.s_crc.val();
        self.fold.data.next = self.s_data.val();
        self.o_crc.next = self.s_crc.val();
        self.o_data.next = self.s_data.val();
        // a mask, not get_bit(k): the whole of n is read (lint) and k stays a constant
        if (self.s_n.val() & self.k_bit.val()).any() {
            self.o_crc.next = self.fold.y.val();
            self.o_data.next = self.s_data.val() >> self.k_sh.val();
        }
        self.r_valid.d.next = self.s_valid.val();
        self.r_crc.d.next = self.o_crc.val();
        self.r_data.d.next = self.o_data.val();
        self.r_n.d.next = self.s_n.val();
        self.m_valid.next = self.s_valid.val();
        self.m_crc.next = self.o_crc.val();
        self.m_data.next = self.o_data.val();
        self.m_n.next = self.s_n.val();
        if self.k_used.val() {
            self.m_valid.next = self.r_valid.q.val();
            self.m_crc.next = self.r_crc.q.val();
            self.m_data.next = self.r_data.q.val();
            self.m_n.next = self.r_n.q.val();
        }
        // reset: the valid bit (control), never the register (data)
        if self.rst.val() {
            self.r_valid.d.next = false;
        }
    }
}

/// A message's CRC-32 register at one beat per cycle (module header above).
#[derive(LogicBlock)]
pub struct Crc32Stream<const D: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_first: Signal<In, bool>,
    pub s_last: Signal<In, bool>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_bytes: Signal<In, Bits<8>>,
    pub m_valid: Signal<Out, bool>,
    pub m_crc: Signal<Out, Bits<32>>,
    // the loop
    crc: DFF<Bits<32>>,
    full: CrcFold<D>,
    base: Signal<Local, Bits<32>>,
    // tail stage 0: the message's register before its partial last beat, the beat, n
    t0_valid: DFF<bool>,
    t0_crc: DFF<Bits<32>>,
    t0_data: DFF<Bits<D>>,
    t0_n: DFF<Bits<8>>,
    // tail stages for chunks of 32, 16, 8, 4, 2 bytes (k = 5..1), largest first, then 1; a stage
    // whose chunk is not below D/8 is bypassed, not registered: latency 1 + log2(D/8)
    t5: CrcTailStage<D>,
    t4: CrcTailStage<D>,
    t3: CrcTailStage<D>,
    t2: CrcTailStage<D>,
    t1: CrcTailStage<D>,
    // the 1-byte stage, inline: nothing after it reads its data or n (a sub-block's unread
    // outputs would be unused wires in this module)
    f0: CrcFold<D>,
    o0_crc: Signal<Local, Bits<32>>,
    r0_valid: DFF<bool>,
    r0_crc: DFF<Bits<32>>,
    k_bit0: Constant<Bits<8>>,
    k_use0: Constant<bool>,
    k_init: Constant<Bits<32>>,
    k_zero8: Constant<Bits<8>>,
    /// D/8, the bytes of a full beat
    k_full: Constant<Bits<8>>,
    /// D/8 - 1: n = bytes mod D/8
    k_nmask: Constant<Bits<8>>,
}

impl<const D: usize> Crc32Stream<D> {
    /// An engine whose messages start from the raw register `init`; refuses D outside the
    /// powers of two in 8..=512.
    pub fn try_new(init: u32) -> Result<Self, PrimError> {
        check_crc_width("Crc32Stream", D)?;
        let beat = D / 8;
        debug_assert!(TAIL_STAGES == 6 && (1 << (TAIL_STAGES - 1)) == CRC_MAX_D / 16);
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_first: Default::default(),
            s_last: Default::default(),
            s_data: Default::default(),
            s_bytes: Default::default(),
            m_valid: Default::default(),
            m_crc: Default::default(),
            crc: Default::default(),
            full: CrcFold::new(beat),
            base: Default::default(),
            t0_valid: Default::default(),
            t0_crc: Default::default(),
            t0_data: Default::default(),
            t0_n: Default::default(),
            t5: CrcTailStage::try_new(5)?,
            t4: CrcTailStage::try_new(4)?,
            t3: CrcTailStage::try_new(3)?,
            t2: CrcTailStage::try_new(2)?,
            t1: CrcTailStage::try_new(1)?,
            f0: CrcFold::new(if beat > 1 { 1 } else { 0 }),
            o0_crc: Default::default(),
            r0_valid: Default::default(),
            r0_crc: Default::default(),
            k_bit0: Constant::new(1u64.into()),
            k_use0: Constant::new(beat > 1),
            k_init: Constant::new((init as u64).into()),
            k_zero8: Constant::new(0u64.into()),
            k_full: Constant::new((beat as u64).into()),
            k_nmask: Constant::new(((beat - 1) as u64).into()),
        })
    }
    /// [`Crc32Stream::try_new`], panicking with the reason.
    pub fn new(init: u32) -> Self {
        Self::try_new(init).unwrap_or_else(|e| panic!("{e}"))
    }
    /// Cycles from a message's last beat to its `m_valid`.
    pub const fn latency() -> usize {
        1 + (D / 8).trailing_zeros() as usize
    }
}

impl<const D: usize> Logic for Crc32Stream<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc, t0_valid, t0_crc, t0_data, t0_n, r0_valid, r0_crc);
        clock!(self, clock, t5, t4, t3, t2, t1);
        // ---- the loop: one full-beat fold
        self.base.next = self.crc.q.val();
        if self.s_first.val() {
            self.base.next = self.k_init.val();
        }
        self.full.state.next = self.base.val();
        self.full.data.next = self.s_data.val();
        if self.s_valid.val() & !self.s_last.val() {
            self.crc.d.next = self.full.y.val();
        }
        // ---- tail stage 0: a last beat enters with its register (folded when full) and n
        self.t0_valid.d.next = self.s_valid.val() & self.s_last.val();
        self.t0_data.d.next = self.s_data.val();
        self.t0_n.d.next = self.s_bytes.val() & self.k_nmask.val();
        self.t0_crc.d.next = self.base.val();
        if self.s_bytes.val() == self.k_full.val() {
            self.t0_crc.d.next = self.full.y.val();
            self.t0_n.d.next = self.k_zero8.val();
        }
        // ---- the chunk stages, 32 bytes down to 2, each fed by the one before
        self.t5.rst.next = self.rst.val();
        self.t5.s_valid.next = self.t0_valid.q.val();
        self.t5.s_crc.next = self.t0_crc.q.val();
        self.t5.s_data.next = self.t0_data.q.val();
        self.t5.s_n.next = self.t0_n.q.val();
        self.t4.rst.next = self.rst.val();
        self.t4.s_valid.next = self.t5.m_valid.val();
        self.t4.s_crc.next = self.t5.m_crc.val();
        self.t4.s_data.next = self.t5.m_data.val();
        self.t4.s_n.next = self.t5.m_n.val();
        self.t3.rst.next = self.rst.val();
        self.t3.s_valid.next = self.t4.m_valid.val();
        self.t3.s_crc.next = self.t4.m_crc.val();
        self.t3.s_data.next = self.t4.m_data.val();
        self.t3.s_n.next = self.t4.m_n.val();
        self.t2.rst.next = self.rst.val();
        self.t2.s_valid.next = self.t3.m_valid.val();
        self.t2.s_crc.next = self.t3.m_crc.val();
        self.t2.s_data.next = self.t3.m_data.val();
        self.t2.s_n.next = self.t3.m_n.val();
        self.t1.rst.next = self.rst.val();
        self.t1.s_valid.next = self.t2.m_valid.val();
        self.t1.s_crc.next = self.t2.m_crc.val();
        self.t1.s_data.next = self.t2.m_data.val();
        self.t1.s_n.next = self.t2.m_n.val();
        // ---- the 1-byte stage, then the output
        self.f0.state.next = self.t1.m_crc.val();
        self.f0.data.next = self.t1.m_data.val();
        self.o0_crc.next = self.t1.m_crc.val();
        if (self.t1.m_n.val() & self.k_bit0.val()).any() {
            self.o0_crc.next = self.f0.y.val();
        }
        self.r0_valid.d.next = self.t1.m_valid.val();
        self.r0_crc.d.next = self.o0_crc.val();
        self.m_valid.next = self.t1.m_valid.val();
        self.m_crc.next = self.o0_crc.val();
        if self.k_use0.val() {
            self.m_valid.next = self.r0_valid.q.val();
            self.m_crc.next = self.r0_crc.q.val();
        }
        // ---- reset: the tail's valid bits (control), never the CRC registers (data)
        if self.rst.val() {
            self.t0_valid.d.next = false;
            self.r0_valid.d.next = false;
        }
    }
}
