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
//!   outside the loop, so the next message starts on the next cycle.
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

use super::PrimError;
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
    if !(8..=CRC_MAX_D).contains(&d) || !d.is_power_of_two() {
        return Err(PrimError::Parameter {
            prim,
            field: "D",
            value: d,
            reason: format!("must be a power of two in 8..={CRC_MAX_D} (whole bytes)"),
        });
    }
    Ok(())
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
    // tail stages for chunks of 32, 16, 8, 4, 2, 1 bytes (k = 5..0); stage k folds its
    // chunk when bit k of n is set. A stage whose chunk is not below D/8 never folds
    // (n < D/8) and is bypassed, not registered: latency 1 + log2(D/8) for every D.
    f5: CrcFold<D>,
    f4: CrcFold<D>,
    f3: CrcFold<D>,
    f2: CrcFold<D>,
    f1: CrcFold<D>,
    f0: CrcFold<D>,
    o5_crc: Signal<Local, Bits<32>>,
    o5_data: Signal<Local, Bits<D>>,
    o4_crc: Signal<Local, Bits<32>>,
    o4_data: Signal<Local, Bits<D>>,
    o3_crc: Signal<Local, Bits<32>>,
    o3_data: Signal<Local, Bits<D>>,
    o2_crc: Signal<Local, Bits<32>>,
    o2_data: Signal<Local, Bits<D>>,
    o1_crc: Signal<Local, Bits<32>>,
    o1_data: Signal<Local, Bits<D>>,
    o0_crc: Signal<Local, Bits<32>>,
    // the input of each stage: its predecessor's register, or (bypassed) its output
    i4_valid: Signal<Local, bool>,
    i4_crc: Signal<Local, Bits<32>>,
    i4_data: Signal<Local, Bits<D>>,
    i4_n: Signal<Local, Bits<8>>,
    i3_valid: Signal<Local, bool>,
    i3_crc: Signal<Local, Bits<32>>,
    i3_data: Signal<Local, Bits<D>>,
    i3_n: Signal<Local, Bits<8>>,
    i2_valid: Signal<Local, bool>,
    i2_crc: Signal<Local, Bits<32>>,
    i2_data: Signal<Local, Bits<D>>,
    i2_n: Signal<Local, Bits<8>>,
    i1_valid: Signal<Local, bool>,
    i1_crc: Signal<Local, Bits<32>>,
    i1_data: Signal<Local, Bits<D>>,
    i1_n: Signal<Local, Bits<8>>,
    i0_valid: Signal<Local, bool>,
    i0_crc: Signal<Local, Bits<32>>,
    i0_data: Signal<Local, Bits<D>>,
    i0_n: Signal<Local, bool>,
    r5_valid: DFF<bool>,
    r5_crc: DFF<Bits<32>>,
    r5_data: DFF<Bits<D>>,
    r5_n: DFF<Bits<8>>,
    r4_valid: DFF<bool>,
    r4_crc: DFF<Bits<32>>,
    r4_data: DFF<Bits<D>>,
    r4_n: DFF<Bits<8>>,
    r3_valid: DFF<bool>,
    r3_crc: DFF<Bits<32>>,
    r3_data: DFF<Bits<D>>,
    r3_n: DFF<Bits<8>>,
    r2_valid: DFF<bool>,
    r2_crc: DFF<Bits<32>>,
    r2_data: DFF<Bits<D>>,
    r2_n: DFF<Bits<8>>,
    r1_valid: DFF<bool>,
    r1_crc: DFF<Bits<32>>,
    r1_data: DFF<Bits<D>>,
    r1_n: DFF<Bits<8>>,
    r0_valid: DFF<bool>,
    r0_crc: DFF<Bits<32>>,
    k_init: Constant<Bits<32>>,
    k_zero8: Constant<Bits<8>>,
    /// D/8, the bytes of a full beat
    k_full: Constant<Bits<8>>,
    /// D/8 - 1: n = bytes mod D/8
    k_nmask: Constant<Bits<8>>,
    /// whether stage k exists (its chunk is below D/8)
    k_use5: Constant<bool>,
    k_use4: Constant<bool>,
    k_use3: Constant<bool>,
    k_use2: Constant<bool>,
    k_use1: Constant<bool>,
    k_use0: Constant<bool>,
    /// stage k's chunk in bits (the data shift after a fold)
    k_sh5: Constant<Bits<16>>,
    k_sh4: Constant<Bits<16>>,
    k_sh3: Constant<Bits<16>>,
    k_sh2: Constant<Bits<16>>,
    k_sh1: Constant<Bits<16>>,
}

impl<const D: usize> Crc32Stream<D> {
    /// An engine whose messages start from the raw register `init`; refuses D outside the
    /// powers of two in 8..=512.
    pub fn try_new(init: u32) -> Result<Self, PrimError> {
        check_crc_width("Crc32Stream", D)?;
        let beat = D / 8;
        let used = |k: usize| (1usize << k) < beat;
        let fold = |k: usize| CrcFold::<D>::new(if used(k) { 1 << k } else { 0 });
        let b = |v: bool| Constant::new(v);
        let sh = |k: usize| Constant::new(((8usize << k) as u64).into());
        debug_assert!(TAIL_STAGES == 6);
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
            f5: fold(5),
            f4: fold(4),
            f3: fold(3),
            f2: fold(2),
            f1: fold(1),
            f0: fold(0),
            o5_crc: Default::default(),
            o5_data: Default::default(),
            o4_crc: Default::default(),
            o4_data: Default::default(),
            o3_crc: Default::default(),
            o3_data: Default::default(),
            o2_crc: Default::default(),
            o2_data: Default::default(),
            o1_crc: Default::default(),
            o1_data: Default::default(),
            o0_crc: Default::default(),
            i4_valid: Default::default(),
            i4_crc: Default::default(),
            i4_data: Default::default(),
            i4_n: Default::default(),
            i3_valid: Default::default(),
            i3_crc: Default::default(),
            i3_data: Default::default(),
            i3_n: Default::default(),
            i2_valid: Default::default(),
            i2_crc: Default::default(),
            i2_data: Default::default(),
            i2_n: Default::default(),
            i1_valid: Default::default(),
            i1_crc: Default::default(),
            i1_data: Default::default(),
            i1_n: Default::default(),
            i0_valid: Default::default(),
            i0_crc: Default::default(),
            i0_data: Default::default(),
            i0_n: Default::default(),
            r5_valid: Default::default(),
            r5_crc: Default::default(),
            r5_data: Default::default(),
            r5_n: Default::default(),
            r4_valid: Default::default(),
            r4_crc: Default::default(),
            r4_data: Default::default(),
            r4_n: Default::default(),
            r3_valid: Default::default(),
            r3_crc: Default::default(),
            r3_data: Default::default(),
            r3_n: Default::default(),
            r2_valid: Default::default(),
            r2_crc: Default::default(),
            r2_data: Default::default(),
            r2_n: Default::default(),
            r1_valid: Default::default(),
            r1_crc: Default::default(),
            r1_data: Default::default(),
            r1_n: Default::default(),
            r0_valid: Default::default(),
            r0_crc: Default::default(),
            k_init: Constant::new((init as u64).into()),
            k_zero8: Constant::new(0u64.into()),
            k_full: Constant::new((beat as u64).into()),
            k_nmask: Constant::new(((beat - 1) as u64).into()),
            k_use5: b(used(5)),
            k_use4: b(used(4)),
            k_use3: b(used(3)),
            k_use2: b(used(2)),
            k_use1: b(used(1)),
            k_use0: b(used(0)),
            k_sh5: sh(5),
            k_sh4: sh(4),
            k_sh3: sh(3),
            k_sh2: sh(2),
            k_sh1: sh(1),
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
        dff_setup!(
            self, clock, crc, t0_valid, t0_crc, t0_data, t0_n, r5_valid, r5_crc, r5_data, r5_n, r4_valid, r4_crc, r4_data,
            r4_n, r3_valid, r3_crc, r3_data, r3_n, r2_valid, r2_crc, r2_data, r2_n, r1_valid, r1_crc, r1_data, r1_n, r0_valid,
            r0_crc
        );
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
        // ---- stage 5 (32 bytes)
        self.f5.state.next = self.t0_crc.q.val();
        self.f5.data.next = self.t0_data.q.val();
        self.o5_crc.next = self.t0_crc.q.val();
        self.o5_data.next = self.t0_data.q.val();
        if self.t0_n.q.val().get_bit(5) {
            self.o5_crc.next = self.f5.y.val();
            self.o5_data.next = self.t0_data.q.val() >> self.k_sh5.val();
        }
        self.r5_valid.d.next = self.t0_valid.q.val();
        self.r5_crc.d.next = self.o5_crc.val();
        self.r5_data.d.next = self.o5_data.val();
        self.r5_n.d.next = self.t0_n.q.val();
        self.i4_valid.next = self.t0_valid.q.val();
        self.i4_crc.next = self.o5_crc.val();
        self.i4_data.next = self.o5_data.val();
        self.i4_n.next = self.t0_n.q.val();
        if self.k_use5.val() {
            self.i4_valid.next = self.r5_valid.q.val();
            self.i4_crc.next = self.r5_crc.q.val();
            self.i4_data.next = self.r5_data.q.val();
            self.i4_n.next = self.r5_n.q.val();
        }
        // ---- stage 4 (16 bytes)
        self.f4.state.next = self.i4_crc.val();
        self.f4.data.next = self.i4_data.val();
        self.o4_crc.next = self.i4_crc.val();
        self.o4_data.next = self.i4_data.val();
        if self.i4_n.val().get_bit(4) {
            self.o4_crc.next = self.f4.y.val();
            self.o4_data.next = self.i4_data.val() >> self.k_sh4.val();
        }
        self.r4_valid.d.next = self.i4_valid.val();
        self.r4_crc.d.next = self.o4_crc.val();
        self.r4_data.d.next = self.o4_data.val();
        self.r4_n.d.next = self.i4_n.val();
        self.i3_valid.next = self.i4_valid.val();
        self.i3_crc.next = self.o4_crc.val();
        self.i3_data.next = self.o4_data.val();
        self.i3_n.next = self.i4_n.val();
        if self.k_use4.val() {
            self.i3_valid.next = self.r4_valid.q.val();
            self.i3_crc.next = self.r4_crc.q.val();
            self.i3_data.next = self.r4_data.q.val();
            self.i3_n.next = self.r4_n.q.val();
        }
        // ---- stage 3 (8 bytes)
        self.f3.state.next = self.i3_crc.val();
        self.f3.data.next = self.i3_data.val();
        self.o3_crc.next = self.i3_crc.val();
        self.o3_data.next = self.i3_data.val();
        if self.i3_n.val().get_bit(3) {
            self.o3_crc.next = self.f3.y.val();
            self.o3_data.next = self.i3_data.val() >> self.k_sh3.val();
        }
        self.r3_valid.d.next = self.i3_valid.val();
        self.r3_crc.d.next = self.o3_crc.val();
        self.r3_data.d.next = self.o3_data.val();
        self.r3_n.d.next = self.i3_n.val();
        self.i2_valid.next = self.i3_valid.val();
        self.i2_crc.next = self.o3_crc.val();
        self.i2_data.next = self.o3_data.val();
        self.i2_n.next = self.i3_n.val();
        if self.k_use3.val() {
            self.i2_valid.next = self.r3_valid.q.val();
            self.i2_crc.next = self.r3_crc.q.val();
            self.i2_data.next = self.r3_data.q.val();
            self.i2_n.next = self.r3_n.q.val();
        }
        // ---- stage 2 (4 bytes)
        self.f2.state.next = self.i2_crc.val();
        self.f2.data.next = self.i2_data.val();
        self.o2_crc.next = self.i2_crc.val();
        self.o2_data.next = self.i2_data.val();
        if self.i2_n.val().get_bit(2) {
            self.o2_crc.next = self.f2.y.val();
            self.o2_data.next = self.i2_data.val() >> self.k_sh2.val();
        }
        self.r2_valid.d.next = self.i2_valid.val();
        self.r2_crc.d.next = self.o2_crc.val();
        self.r2_data.d.next = self.o2_data.val();
        self.r2_n.d.next = self.i2_n.val();
        self.i1_valid.next = self.i2_valid.val();
        self.i1_crc.next = self.o2_crc.val();
        self.i1_data.next = self.o2_data.val();
        self.i1_n.next = self.i2_n.val();
        if self.k_use2.val() {
            self.i1_valid.next = self.r2_valid.q.val();
            self.i1_crc.next = self.r2_crc.q.val();
            self.i1_data.next = self.r2_data.q.val();
            self.i1_n.next = self.r2_n.q.val();
        }
        // ---- stage 1 (2 bytes)
        self.f1.state.next = self.i1_crc.val();
        self.f1.data.next = self.i1_data.val();
        self.o1_crc.next = self.i1_crc.val();
        self.o1_data.next = self.i1_data.val();
        if self.i1_n.val().get_bit(1) {
            self.o1_crc.next = self.f1.y.val();
            self.o1_data.next = self.i1_data.val() >> self.k_sh1.val();
        }
        self.r1_valid.d.next = self.i1_valid.val();
        self.r1_crc.d.next = self.o1_crc.val();
        self.r1_data.d.next = self.o1_data.val();
        self.r1_n.d.next = self.i1_n.val();
        self.i0_valid.next = self.i1_valid.val();
        self.i0_crc.next = self.o1_crc.val();
        self.i0_data.next = self.o1_data.val();
        self.i0_n.next = self.i1_n.val().get_bit(0);
        if self.k_use1.val() {
            self.i0_valid.next = self.r1_valid.q.val();
            self.i0_crc.next = self.r1_crc.q.val();
            self.i0_data.next = self.r1_data.q.val();
            self.i0_n.next = self.r1_n.q.val().get_bit(0);
        }
        // ---- stage 0 (1 byte), then the output
        self.f0.state.next = self.i0_crc.val();
        self.f0.data.next = self.i0_data.val();
        self.o0_crc.next = self.i0_crc.val();
        if self.i0_n.val() {
            self.o0_crc.next = self.f0.y.val();
        }
        self.r0_valid.d.next = self.i0_valid.val();
        self.r0_crc.d.next = self.o0_crc.val();
        self.m_valid.next = self.i0_valid.val();
        self.m_crc.next = self.o0_crc.val();
        if self.k_use0.val() {
            self.m_valid.next = self.r0_valid.q.val();
            self.m_crc.next = self.r0_crc.q.val();
        }
        // ---- reset: the tail's valid bits (control), never the CRC registers (data)
        if self.rst.val() {
            self.t0_valid.d.next = false;
            self.r5_valid.d.next = false;
            self.r4_valid.d.next = false;
            self.r3_valid.d.next = false;
            self.r2_valid.d.next = false;
            self.r1_valid.d.next = false;
            self.r0_valid.d.next = false;
        }
    }
}
