//! The receiver's SACK bitmap engine: golden model.
//!
//! # Semantics (one source of truth for the RTL, the docs and the transport model)
//! Per connection the engine keeps a base PSN (24 bits, wrapping) and a bitmap of the
//! PSNs received in `[base, base + window)`. For each data packet `(connection, psn)`,
//! with `d = (psn - base) mod 2^24`:
//! - `d >= 2^23` (the PSN is behind the base in serial arithmetic): [`Class::Duplicate`];
//! - `window <= d < 2^23`: [`Class::OutOfWindow`], nothing changes;
//! - bit `d` already set: [`Class::Duplicate`], nothing changes;
//! - otherwise [`Class::New`]: bit `d` is set, then the base advances over the run of
//!   received PSNs starting at the base (so bit 0 of the bitmap, the base itself, is
//!   always 0 afterwards: that invariant is what lets the RTL start the run at the
//!   packet's own slot).
//!
//! A data operation carries a commit flag (`s_commit`, [`SackOp::commit`]): committed, it
//! is classified and recorded as above; uncommitted, it is classified exactly the same way
//! but not recorded: the connection's base and bitmap do not change, and the output shows
//! that unchanged state. This is the receiver's classify-then-commit interface: a new packet
//! the message or placement checks refuse leaves the SACK state unchanged (protocol §6.10,
//! §6.11), so the receiver passes its verdict, computed from the header, as `s_commit`.
//!
//! A clear operation sets `base = psn` and empties the bitmap ([`Class::Cleared`]); it
//! is how a connection is set up. A clear always applies (its commit flag is ignored). The
//! output of every operation is the classification, the base after the operation and the
//! bitmap relative to that base (bit `i` = PSN `base + i` received), which is what an ACK
//! carries.
//!
//! [`SackShell`] wraps these functions in the RTL's cycle behaviour: a pipeline of
//! [`SACK_LATENCY`] registers with the operation applied in register [`SACK_APPLY_STAGE`],
//! initiation interval 1, one global stall.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// PSNs are 24 bits, as in the InfiniBand base transport header.
pub const PSN_BITS: u32 = 24;
pub const PSN_MASK: u32 = (1 << PSN_BITS) - 1;
/// Half the PSN space: distances at or above this are "behind".
pub const PSN_HALF: u32 = 1 << (PSN_BITS - 1);
/// Largest supported window (bits of [`Bitmap`]).
pub const MAX_WINDOW: usize = 256;

/// What the engine concluded about one operation. The discriminant is the 2-bit
/// `m_class` code of the RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Class {
    New = 0,
    Duplicate = 1,
    OutOfWindow = 2,
    Cleared = 3,
}

impl Class {
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn from_code(c: u8) -> Option<Class> {
        Some(match c {
            0 => Class::New,
            1 => Class::Duplicate,
            2 => Class::OutOfWindow,
            3 => Class::Cleared,
            _ => return None,
        })
    }
}

/// A bitmap of up to 256 bits, little-endian words (bit `i` is word `i/64`, bit `i%64`).
///
/// Every accessor is total: bits at or beyond [`MAX_WINDOW`] do not exist, read as 0
/// and cannot be set, so no index (a distance computed from a hostile PSN included)
/// can panic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bitmap(pub [u64; 4]);

impl Bitmap {
    /// Bit `i`; `false` for `i >= 256`.
    pub fn get(&self, i: usize) -> bool {
        i < MAX_WINDOW && self.0[i / 64] >> (i % 64) & 1 == 1
    }
    /// Sets bit `i`; returns `false` (and changes nothing) for `i >= 256`.
    pub fn set(&mut self, i: usize) -> bool {
        if i >= MAX_WINDOW {
            return false;
        }
        self.0[i / 64] |= 1 << (i % 64);
        true
    }
    /// Number of consecutive set bits starting at bit 0.
    pub fn trailing_ones(&self) -> usize {
        let mut n = 0;
        for w in self.0 {
            let t = w.trailing_ones() as usize;
            n += t;
            if t < 64 {
                break;
            }
        }
        n
    }
    /// Logical shift towards bit 0 by `n` (0..=256).
    pub fn shift_down(&mut self, n: usize) {
        if n >= 256 {
            self.0 = [0; 4];
            return;
        }
        let (words, bits) = (n / 64, n % 64);
        let mut out = [0u64; 4];
        for (i, o) in out.iter_mut().enumerate() {
            let lo = self.0.get(i + words).copied().unwrap_or(0);
            let hi = self.0.get(i + words + 1).copied().unwrap_or(0);
            *o = if bits == 0 { lo } else { (lo >> bits) | (hi << (64 - bits)) };
        }
        self.0 = out;
    }
    /// The bitmap as 32-bit words, least significant first (Verilator's VlWide layout);
    /// `bits` is clamped to 256.
    pub fn to_u32_words(&self, bits: usize) -> Vec<u32> {
        (0..bits.min(MAX_WINDOW).div_ceil(32)).map(|i| (self.0[i / 2] >> (32 * (i % 2))) as u32).collect()
    }
    pub fn from_u32_words(words: &[u32]) -> Bitmap {
        let mut b = Bitmap::default();
        for (i, w) in words.iter().enumerate().take(8) {
            b.0[i / 2] |= (*w as u64) << (32 * (i % 2));
        }
        b
    }
    /// Big-endian hex, `bits/4` digits (as Verilog prints it); `bits` is clamped to 256.
    pub fn to_hex(&self, bits: usize) -> String {
        let mut s = String::new();
        for i in (0..bits.min(MAX_WINDOW).div_ceil(4)).rev() {
            let nib = (self.0[i / 16] >> (4 * (i % 16))) & 0xF;
            s.push(char::from_digit(nib as u32, 16).unwrap());
        }
        s
    }
    pub fn count_ones(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// One connection's receive state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackState {
    /// Lowest PSN not yet received (24 bits).
    pub base: u32,
    /// Bit `i`: PSN `base + i` received. Bit 0 is always 0.
    pub bitmap: Bitmap,
}

/// The result of one operation, as the engine outputs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackResult {
    pub class: Class,
    /// Base after the operation.
    pub base: u32,
    /// Bitmap relative to the new base.
    pub bitmap: Bitmap,
}

/// `(a - b) mod 2^24`.
pub fn psn_distance(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b) & PSN_MASK
}

impl SackState {
    /// The class [`SackState::receive`] gives `psn` in a window of `window` bits
    /// (clamped to [`MAX_WINDOW`]), without changing anything: the one classification
    /// the engine, the responder and the docs share.
    pub fn classify(&self, psn: u32, window: usize) -> Class {
        let d = psn_distance(psn & PSN_MASK, self.base);
        if d >= PSN_HALF {
            Class::Duplicate
        } else if d as usize >= window.min(MAX_WINDOW) {
            Class::OutOfWindow
        } else if self.bitmap.get(d as usize) {
            Class::Duplicate
        } else {
            Class::New
        }
    }

    /// Classifies and records the data packet `psn` in a window of `window` bits
    /// (clamped to [`MAX_WINDOW`]; the configurations only use powers of two).
    pub fn receive(&mut self, psn: u32, window: usize) -> SackResult {
        let window = window.min(MAX_WINDOW);
        let psn = psn & PSN_MASK;
        let d = psn_distance(psn, self.base);
        let class = self.classify(psn, window);
        if class == Class::New {
            self.bitmap.set(d as usize);
            let run = self.bitmap.trailing_ones().min(window);
            self.bitmap.shift_down(run);
            self.base = (self.base + run as u32) & PSN_MASK;
        }
        SackResult { class, base: self.base, bitmap: self.bitmap }
    }

    /// Connection setup: the next expected PSN is `psn`, nothing received.
    pub fn clear(&mut self, psn: u32) -> SackResult {
        *self = SackState { base: psn & PSN_MASK, bitmap: Bitmap::default() };
        SackResult { class: Class::Cleared, base: self.base, bitmap: self.bitmap }
    }
}

/// One operation offered to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackOp {
    pub conn: u32,
    pub psn: u32,
    /// Clear the connection (setup) instead of receiving a packet.
    pub clear: bool,
    /// Record a data packet (`true`) or only classify it (`false`: base and bitmap do not
    /// change). Ignored for a clear. Absent in serialized form: `true`.
    #[serde(default = "committed")]
    pub commit: bool,
}

fn committed() -> bool {
    true
}

/// The engine's state for every connection: the functional model.
#[derive(Clone, Debug)]
pub struct SackEngine {
    pub window: usize,
    pub conns: Vec<SackState>,
}

impl SackEngine {
    /// All connections start at base 0 with an empty bitmap (the RTL's RAM powers up zeroed).
    pub fn new(connections: usize, window: usize) -> Self {
        assert!(window.is_power_of_two() && window <= MAX_WINDOW, "window {window}");
        assert!(connections > 0, "a SACK engine has at least one connection");
        Self { window, conns: vec![SackState::default(); connections] }
    }
    /// One operation. The connection id is taken modulo the connection count (the
    /// RTL's `s_conn` has `log2(connections)` bits: it sees the low bits only).
    pub fn apply(&mut self, op: SackOp) -> SackResult {
        let n = self.conns.len();
        let st = &mut self.conns[op.conn as usize % n];
        if op.clear {
            st.clear(op.psn)
        } else if op.commit {
            st.receive(op.psn, self.window)
        } else {
            SackResult { class: st.classify(op.psn, self.window), base: st.base, bitmap: st.bitmap }
        }
    }
}

/// Inputs of the engine in one clock cycle (sampled at the rising edge).
///
/// `Default` is an idle cycle with every input low except `s_commit`, which is high: a
/// data packet offered as `SackInputs { s_valid: true, ..Default::default() }` is
/// recorded, as every packet was before `s_commit` existed. (Serialized inputs without
/// `s_commit` read it as 1 for the same reason.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackInputs {
    pub rst: bool,
    pub s_valid: bool,
    pub s_conn: u32,
    pub s_psn: u32,
    pub s_clear: bool,
    /// 1 = record the data packet, 0 = only classify it (ignored for a clear).
    #[serde(default = "committed")]
    pub s_commit: bool,
    pub m_ready: bool,
}

impl Default for SackInputs {
    fn default() -> Self {
        Self { rst: false, s_valid: false, s_conn: 0, s_psn: 0, s_clear: false, s_commit: true, m_ready: false }
    }
}

/// One output beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackOutput {
    pub conn: u32,
    pub psn: u32,
    pub result: SackResult,
}

/// Status counters (32 bits, wrapping), counted as results reach the output register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackStats {
    pub new: u32,
    pub duplicate: u32,
    pub out_of_window: u32,
    pub cleared: u32,
}

/// Outputs of the engine in one cycle (before the edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SackOutputs {
    pub s_ready: bool,
    /// `Some` when `m_valid`.
    pub m: Option<SackOutput>,
    pub stats: SackStats,
}

/// Registers from an input transfer to the output register, i.e. the latency in cycles:
/// an operation taken at the edge ending cycle t is on the output (`m_valid`) in cycle
/// t + `SACK_LATENCY`.
pub const SACK_LATENCY: usize = 9;

/// The register an operation is applied to the connection state from: the operation
/// changes the state as it moves out of pipeline register `SACK_APPLY_STAGE` (the first
/// input register is 1). Registers `1..=SACK_APPLY_STAGE` hold operations not yet applied,
/// registers `SACK_APPLY_STAGE + 1..=SACK_LATENCY` hold results (the last one is the
/// output register). Today's RTL (`mrnic_hdl::sack`): R0, R, P1, P2 and L (the loop)
/// before the apply; W, C, C2 and the output register after it.
pub const SACK_APPLY_STAGE: usize = 5;

/// The cycle shell: the functional model with the RTL's latency and handshakes.
///
/// Pipeline of `latency` registers: an input transfer in cycle t enters register 1; the
/// operation is applied to the state ([`SackEngine::apply`]) as it moves out of register
/// `apply_stage`; its result reaches the output register (register `latency`, `m_valid`)
/// in cycle t + `latency`. [`SackShell::new`] builds the RTL's pipeline ([`SACK_LATENCY`],
/// [`SACK_APPLY_STAGE`]). All registers advance together unless the output holds a beat
/// that is not taken (`m_valid && !m_ready`): then everything holds and `s_ready` is low.
/// `rst` empties every register (an operation not yet applied is dropped and never
/// applied; a result already applied is dropped but its effect on the state stays) and
/// clears the counters, but not the connection state (RAM holds data, not control).
#[derive(Clone, Debug)]
pub struct SackShell {
    pub engine: SackEngine,
    latency: usize,
    apply_stage: usize,
    /// Registers 1..=apply_stage, register 1 at the front: operations not yet applied.
    pre: VecDeque<Option<SackOp>>,
    /// Registers apply_stage+1..=latency, the output register at the back: results.
    post: VecDeque<Option<SackOutput>>,
    stats: SackStats,
}

impl SackShell {
    /// The RTL's pipeline: [`SACK_LATENCY`] registers, applied from [`SACK_APPLY_STAGE`].
    pub fn new(connections: usize, window: usize) -> Self {
        Self::with_pipeline(connections, window, SACK_LATENCY, SACK_APPLY_STAGE).expect("SACK_LATENCY and SACK_APPLY_STAGE describe a valid pipeline")
    }

    /// A shell with `latency` registers whose operations are applied as they leave register
    /// `apply_stage`. Refuses `apply_stage` = 0 (the operation must be registered before it
    /// is applied) and `apply_stage` >= `latency` (the result needs a register after the
    /// apply: the output register).
    pub fn with_pipeline(connections: usize, window: usize, latency: usize, apply_stage: usize) -> Result<Self, ConfigError> {
        if apply_stage == 0 || apply_stage >= latency {
            return Err(ConfigError::OutOfRange {
                field: "SackShell.apply_stage".into(),
                value: apply_stage.to_string(),
                reason: format!("must be 1..={} for a latency of {latency} (registered before the apply, the output register after it)", latency.saturating_sub(1)),
            });
        }
        Ok(Self {
            engine: SackEngine::new(connections, window),
            latency,
            apply_stage,
            pre: std::iter::repeat_n(None, apply_stage).collect(),
            post: std::iter::repeat_n(None, latency - apply_stage).collect(),
            stats: SackStats::default(),
        })
    }

    /// Cycles from an input transfer to its result on the output.
    pub fn latency(&self) -> usize {
        self.latency
    }

    /// The register the operations are applied from (the first input register is 1).
    pub fn apply_stage(&self) -> usize {
        self.apply_stage
    }

    fn out(&self) -> Option<SackOutput> {
        *self.post.back().expect("the output register")
    }

    fn stall(&self, i: &SackInputs) -> bool {
        self.out().is_some() && !i.m_ready
    }

    /// The outputs during a cycle with inputs `i` (before the clock edge).
    pub fn outputs(&self, i: &SackInputs) -> SackOutputs {
        SackOutputs { s_ready: !i.rst && !self.stall(i), m: self.out(), stats: self.stats }
    }

    /// Advances one clock edge with inputs `i`. Returns the outputs of the cycle that ended.
    pub fn step(&mut self, i: &SackInputs) -> SackOutputs {
        let out = self.outputs(i);
        if i.rst {
            self.pre.iter_mut().for_each(|r| *r = None);
            self.post.iter_mut().for_each(|r| *r = None);
            self.stats = SackStats::default();
        } else if !self.stall(i) {
            let applied = self.pre.pop_back().expect("apply_stage >= 1").map(|op| SackOutput { conn: op.conn, psn: op.psn, result: self.engine.apply(op) });
            self.post.pop_back();
            self.post.push_front(applied);
            if let Some(m) = self.out() {
                let s = &mut self.stats;
                let ctr = match m.result.class {
                    Class::New => &mut s.new,
                    Class::Duplicate => &mut s.duplicate,
                    Class::OutOfWindow => &mut s.out_of_window,
                    Class::Cleared => &mut s.cleared,
                };
                *ctr = ctr.wrapping_add(1);
            }
            self.pre.push_front(i.s_valid.then_some(SackOp { conn: i.s_conn, psn: i.s_psn & PSN_MASK, clear: i.s_clear, commit: i.s_commit }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(st: &mut SackState, psn: u32) -> Class {
        st.receive(psn, 256).class
    }

    #[test]
    fn in_order_packets_advance_the_base_one_by_one() {
        let mut st = SackState::default();
        for p in 0..1000 {
            assert_eq!(rx(&mut st, p), Class::New);
            assert_eq!(st.base, p + 1);
            assert_eq!(st.bitmap, Bitmap::default());
        }
    }

    #[test]
    fn a_gap_holds_the_base_and_filling_it_advances_over_the_run() {
        let mut st = SackState::default();
        for p in [1, 2, 3, 5] {
            assert_eq!(rx(&mut st, p), Class::New);
        }
        assert_eq!(st.base, 0);
        assert_eq!(st.bitmap.0[0], 0b101110);
        assert_eq!(rx(&mut st, 0), Class::New);
        assert_eq!(st.base, 4);
        assert_eq!(st.bitmap.0[0], 0b10);
    }

    #[test]
    fn duplicates_below_base_and_already_set_bits_change_nothing() {
        let mut st = SackState::default();
        rx(&mut st, 0);
        rx(&mut st, 7);
        let before = st;
        assert_eq!(rx(&mut st, 0), Class::Duplicate);
        assert_eq!(rx(&mut st, 7), Class::Duplicate);
        assert_eq!(rx(&mut st, PSN_MASK), Class::Duplicate, "psn just below base after wrap");
        assert_eq!(st, before);
    }

    #[test]
    fn out_of_window_is_at_or_beyond_base_plus_window_up_to_half_the_space() {
        let mut st = SackState::default();
        assert_eq!(rx(&mut st, 255), Class::New);
        assert_eq!(rx(&mut st, 256), Class::OutOfWindow);
        assert_eq!(rx(&mut st, PSN_HALF - 1), Class::OutOfWindow);
        assert_eq!(rx(&mut st, PSN_HALF), Class::Duplicate);
        assert_eq!(st.base, 0);
    }

    #[test]
    fn a_full_window_advances_the_base_by_the_whole_window() {
        let mut st = SackState { base: PSN_MASK - 100, bitmap: Bitmap::default() };
        for d in 1..256 {
            assert_eq!(rx(&mut st, (PSN_MASK - 100 + d) & PSN_MASK), Class::New);
        }
        assert_eq!(st.bitmap.count_ones(), 255);
        assert_eq!(rx(&mut st, PSN_MASK - 100), Class::New);
        assert_eq!(st.base, (PSN_MASK - 100 + 256) & PSN_MASK, "wraps at 2^24");
        assert_eq!(st.bitmap, Bitmap::default());
    }

    #[test]
    fn narrow_windows_classify_by_their_own_width() {
        let mut st = SackState::default();
        assert_eq!(st.receive(63, 64).class, Class::New);
        assert_eq!(st.receive(64, 64).class, Class::OutOfWindow);
    }

    #[test]
    fn clear_sets_the_base_and_empties_the_bitmap() {
        let mut st = SackState::default();
        rx(&mut st, 3);
        let r = st.clear(0xABCDEF);
        assert_eq!(r.class, Class::Cleared);
        assert_eq!(st, SackState { base: 0xABCDEF, bitmap: Bitmap::default() });
    }

    #[test]
    fn bitmap_helpers_agree_with_bit_by_bit_definitions() {
        let mut b = Bitmap([u64::MAX, 0b1011, 0, 1 << 63]);
        assert_eq!(b.trailing_ones(), 66);
        let orig = b;
        b.shift_down(70);
        for i in 0..256 {
            assert_eq!(b.get(i), i + 70 < 256 && orig.get(i + 70), "bit {i}");
        }
        assert_eq!(Bitmap::from_u32_words(&orig.to_u32_words(256)), orig);
        assert_eq!(Bitmap([0x1f, 0, 0, 0]).to_hex(8), "1f");
    }

    #[test]
    fn bitmap_accessors_are_total_beyond_256_bits() {
        let mut b = Bitmap::default();
        for i in [256, 300, 1 << 23, usize::MAX] {
            assert!(!b.get(i), "bit {i} does not exist");
            assert!(!b.set(i), "bit {i} cannot be set");
        }
        assert_eq!(b, Bitmap::default());
        assert!(b.set(255) && b.get(255));
        assert_eq!(b.to_u32_words(4096).len(), 8);
        assert_eq!(b.to_hex(1024).len(), 64);
    }

    #[test]
    fn classify_agrees_with_receive_and_never_indexes_past_the_window() {
        let mut st = SackState { base: 10, bitmap: Bitmap::default() };
        st.receive(12, 64);
        for d in [0u32, 1, 2, 63, 64, 255, 256, 300, PSN_HALF - 1, PSN_HALF, PSN_MASK] {
            let psn = (10 + d) & PSN_MASK;
            for w in [32, 64, 256, 1024] {
                let want = st.classify(psn, w);
                assert_eq!(st.clone().receive(psn, w).class, want, "d {d} w {w}");
            }
        }
        assert_eq!(st.classify(10 + 300, 256), Class::OutOfWindow);
        assert_eq!(st.classify(12, 64), Class::Duplicate);
    }

    fn op(conn: u32, psn: u32, clear: bool, commit: bool) -> SackOp {
        SackOp { conn, psn, clear, commit }
    }

    #[test]
    fn an_uncommitted_new_packet_is_classified_new_and_changes_nothing() {
        let mut e = SackEngine::new(4, 256);
        e.apply(op(1, 3, false, true));
        let before = e.conns[1];
        let r = e.apply(op(1, 5, false, false));
        assert_eq!(r, SackResult { class: Class::New, base: 0, bitmap: before.bitmap });
        assert_eq!(e.conns[1], before, "bit 5 not recorded");
        assert_eq!(e.apply(op(1, 5, false, false)).class, Class::New, "still new: it was never recorded");
        assert_eq!(e.apply(op(1, 5, false, true)).class, Class::New);
        assert_eq!(e.apply(op(1, 5, false, true)).class, Class::Duplicate, "recorded once committed");
    }

    #[test]
    fn an_uncommitted_packet_at_the_base_does_not_advance_it_and_the_committed_one_does() {
        let mut e = SackEngine::new(2, 64);
        for p in 1..4 {
            e.apply(op(0, p, false, true));
        }
        let r = e.apply(op(0, 0, false, false));
        assert_eq!((r.class, r.base, r.bitmap.0[0]), (Class::New, 0, 0b1110), "the output shows the unchanged state");
        assert_eq!(e.conns[0], SackState { base: 0, bitmap: Bitmap([0b1110, 0, 0, 0]) });
        let r = e.apply(op(0, 0, false, true));
        assert_eq!((r.class, r.base, r.bitmap), (Class::New, 4, Bitmap::default()), "the run 0..=3 is passed");
    }

    #[test]
    fn uncommitted_duplicates_and_out_of_window_packets_get_the_committed_class() {
        let mut st = SackState { base: 100, bitmap: Bitmap::default() };
        st.receive(102, 64);
        for psn in [0, 99, 100, 101, 102, 163, 164, 100 + PSN_HALF - 1, 100 + PSN_HALF] {
            let mut e = SackEngine { window: 64, conns: vec![st] };
            let r = e.apply(op(0, psn, false, false));
            assert_eq!(r, SackResult { class: st.classify(psn, 64), base: st.base, bitmap: st.bitmap }, "psn {psn}");
            assert_eq!(e.conns[0], st, "psn {psn} changed the state");
        }
    }

    #[test]
    fn an_uncommitted_clear_still_clears() {
        let mut e = SackEngine::new(2, 256);
        e.apply(op(1, 7, false, true));
        let r = e.apply(op(1, 0x123456, true, false));
        assert_eq!(r, SackResult { class: Class::Cleared, base: 0x123456, bitmap: Bitmap::default() });
        assert_eq!(e.conns[1], SackState { base: 0x123456, bitmap: Bitmap::default() });
    }

    #[test]
    fn an_op_serialized_without_commit_is_committed() {
        let o: SackOp = serde_json::from_str(r#"{"conn":1,"psn":2,"clear":false}"#).unwrap();
        assert_eq!(o, op(1, 2, false, true));
        let o: SackOp = serde_json::from_str(r#"{"conn":1,"psn":2,"clear":false,"commit":false}"#).unwrap();
        assert!(!o.commit);
        let i: SackInputs = serde_json::from_str(r#"{"rst":false,"s_valid":true,"s_conn":0,"s_psn":0,"s_clear":false,"m_ready":true}"#).unwrap();
        assert!(i.s_commit);
        assert!(SackInputs::default().s_commit && !SackInputs::default().s_valid);
    }

    #[test]
    fn shell_outputs_after_its_latency_and_holds_everything_on_backpressure() {
        let mut sh = SackShell::new(4, 256);
        assert_eq!((sh.latency(), sh.apply_stage()), (SACK_LATENCY, SACK_APPLY_STAGE));
        let go = SackInputs { s_valid: true, s_conn: 1, s_psn: 0, m_ready: true, ..Default::default() };
        for _ in 0..SACK_LATENCY {
            assert!(sh.step(&go).m.is_none());
        }
        let idle_ready = SackInputs { m_ready: true, ..Default::default() };
        let o = sh.outputs(&idle_ready);
        assert_eq!(o.m.unwrap().result.base, 1, "first packet out after SACK_LATENCY edges");
        // Backpressure: the output beat holds and s_ready drops.
        let blocked = SackInputs { m_ready: false, ..go };
        let o1 = sh.step(&blocked);
        assert!(!o1.s_ready);
        assert_eq!(sh.outputs(&blocked).m, o1.m);
    }

    #[test]
    fn an_uncommitted_input_comes_out_classified_and_leaves_the_state() {
        let mut sh = SackShell::new(2, 64);
        let pkt = |psn, commit| SackInputs { s_valid: true, s_psn: psn, s_commit: commit, m_ready: true, ..Default::default() };
        let idle = SackInputs { m_ready: true, ..Default::default() };
        let mut outs = vec![];
        for i in [pkt(0, false), pkt(0, false), pkt(0, true), pkt(0, false)].iter().chain(std::iter::repeat_n(&idle, SACK_LATENCY)) {
            outs.extend(sh.step(i).m.map(|m| (m.result.class, m.result.base)));
        }
        assert_eq!(outs, [(Class::New, 0), (Class::New, 0), (Class::New, 1), (Class::Duplicate, 1)]);
        assert_eq!(sh.outputs(&idle).stats, SackStats { new: 3, duplicate: 1, ..Default::default() });
    }

    /// A shell of `latency` registers applying from `apply_stage`: results come out after
    /// `latency` edges; a reset drops an operation still in register `apply_stage` (never
    /// applied) but keeps the state change of one in register `apply_stage + 1` (applied;
    /// only its result is dropped); backpressure holds every register.
    fn check_pipeline(latency: usize, apply_stage: usize) {
        let ctx = format!("pipeline ({latency}, {apply_stage})");
        let shell = || SackShell::with_pipeline(4, 64, latency, apply_stage).unwrap();
        let pkt = |conn| SackInputs { s_valid: true, s_conn: conn, s_psn: 0, m_ready: true, ..Default::default() };
        let idle = SackInputs { m_ready: true, ..Default::default() };

        // Latency: the result is on the output after exactly `latency` edges.
        let mut sh = shell();
        assert_eq!(sh.latency(), latency);
        sh.step(&pkt(1));
        let edges = (1..=latency + 2).find(|_| sh.step(&idle).m.is_some()).unwrap();
        assert_eq!(edges, latency, "{ctx}: edges to the output");

        // Reset: A (conn 2) is in register apply_stage + 1, B (conn 1) in register apply_stage.
        let mut sh = shell();
        sh.step(&pkt(2));
        sh.step(&pkt(1));
        for _ in 1..apply_stage {
            sh.step(&idle);
        }
        let rst = SackInputs { rst: true, m_ready: true, ..Default::default() };
        sh.step(&rst);
        for _ in 0..latency + 2 {
            let o = sh.step(&idle);
            assert!(o.m.is_none() && o.stats == SackStats::default(), "{ctx}: reset dropped every result and the counters");
        }
        assert_eq!(sh.engine.conns[2].base, 1, "{ctx}: the op past the apply stage changed the state");
        assert_eq!(sh.engine.conns[1].base, 0, "{ctx}: the op in the apply stage was never applied");

        // Backpressure: with the output held, nothing moves and nothing is applied.
        let mut sh = shell();
        for c in 0..latency as u32 {
            sh.step(&pkt(c % 4));
        }
        let blocked = SackInputs { m_ready: false, ..pkt(3) };
        let held = sh.outputs(&blocked);
        assert!(held.m.is_some() && !held.s_ready, "{ctx}");
        let state = sh.engine.conns.clone();
        for _ in 0..10 {
            assert_eq!(sh.step(&blocked), held, "{ctx}: held");
        }
        assert_eq!(sh.engine.conns, state, "{ctx}: nothing applied while stalled");
        let mut seen = 0;
        for _ in 0..latency + 2 {
            seen += sh.step(&idle).m.is_some() as usize;
        }
        assert_eq!(seen, latency, "{ctx}: every held op came out once");
    }

    #[test]
    fn the_rtl_pipeline_and_a_deeper_one_have_their_latency_and_reset_at_the_apply_stage() {
        check_pipeline(SACK_LATENCY, SACK_APPLY_STAGE);
        check_pipeline(4, 2);
        check_pipeline(7, 4);
        check_pipeline(2, 1);
        check_pipeline(5, 4);
    }

    #[test]
    fn a_pipeline_without_a_register_before_or_after_the_apply_is_refused() {
        for (l, a) in [(4, 0), (4, 4), (4, 5), (1, 1), (0, 0)] {
            let e = SackShell::with_pipeline(4, 64, l, a).unwrap_err();
            assert_eq!(e.field(), "SackShell.apply_stage", "({l}, {a})");
        }
        assert!(SackShell::with_pipeline(4, 64, 7, 4).is_ok());
    }
}
