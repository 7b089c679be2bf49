//! # SACK bitmap engine (receiver side)
//!
//! **Purpose.** For every data packet `(connection, PSN)` the engine classifies it as new,
//! duplicate or out of window, records it (when committed) in the connection's W-bit SACK
//! bitmap, advances the connection's base PSN over the run of received PSNs, and outputs the
//! classification, the new base and the bitmap relative to that base (what an ACK carries).
//! A clear operation sets a connection up (base = PSN, empty bitmap). Semantics: the golden
//! model `mrnic_model::sack` (this block is checked against it cycle by cycle).
//!
//! **Ports.**
//! - inputs: `clock`, `rst` (synchronous, active high); stream `s_valid`/`s_ready`,
//!   `s_conn` (`CONN_BITS`), `s_psn` (24), `s_clear` (1 = clear the connection to base
//!   `s_psn`), `s_commit` (classify-then-commit: 1 = record the packet if it is new; 0 = only
//!   classify it, the state does not change; ignored by a clear); `m_ready`.
//! - outputs: stream `m_valid`/`m_ready`, `m_conn`, `m_psn` (echo of the operation),
//!   `m_class` (2: 0 new, 1 duplicate, 2 out of window, 3 cleared), `m_base` (24: base after
//!   the operation), `m_bitmap` (`W`: bit i = PSN `m_base + i` received; bit 0 is always 0).
//! - config: `CONN_BITS` (connections = 2^CONN_BITS, the block RAM depth), `W` (window width,
//!   32/64/128/256) as const generics.
//! - status: `stat_new`, `stat_duplicate`, `stat_out_of_window`, `stat_cleared` (32-bit,
//!   wrapping; counted as results enter the output register).
//!
//! **Latency** 9 cycles from an input transfer to `m_valid` ([`LATENCY`]); an operation's
//! effect on the state is final when it leaves stage L, the 5th register ([`APPLY_STAGE`]).
//! **Initiation interval** 1, including back-to-back packets of the same connection (no
//! stall: forwarding and speculation, below).
//!
//! **State encoding.** Per connection: the base (24 bits) and a *lap-parity* bitmap `par`
//! (W bits, slot = PSN mod W): a received PSN p writes `par[slot] = !lap(p)`, lap(p) =
//! PSN bit log2(W); PSN x of the window is received iff `par[slot(x)] != lap(x)`. Advancing
//! the base clears nothing (the passed slots flip meaning with the lap), so a packet is one
//! bit write and the base advance is a pure function of the bitmap: it can be computed
//! before the loop. A clear writes the pattern that reads "nothing received" from the new
//! base. The RAM powering up zeroed reads as base 0, nothing received.
//!
//! **Pipeline** (the one-cycle loop carries only the base and a few flags).
//! - A: accept; the RAM read is issued at `s_conn`.
//! - R0: the RAM word arrives (block RAM output), registered as is.
//! - R: merge the three writes the read missed (stages C, D, E, newest first) and patch in the
//!   bit of the op 4 ahead (in W); the base also takes the op in W. Then the received
//!   bitmap relative to this packet's window, and the search vector: not received, with the
//!   packet's own slot and the slot of every in-flight op of the same connection (3, 2 and 1
//!   ahead: c, a, b) that may mark its PSN received forced to "received". A clear among them
//!   empties the state. Connection compares are made one stage earlier (R0) and registered.
//! - P1, P2: [`crate::prim::SegSearch`] finds the first not-received slot after the packet's
//!   own (16-bit segments, registered summaries) -> E1, the base the packet would advance to.
//!   P2 resolves candidates c and a (their write enables are known by then): an in-flight op
//!   that marks its slot's PSN *not* received (it was passed by the base) makes that PSN a
//!   candidate for the advance; the nearer of c and a is kept.
//! - L (the loop): the base before the op is the forwarded result of the op 1 ahead (same
//!   connection) or the merged one; window test, PSN == base and the duplicate test against
//!   it (b resolved with its write enable, one cycle old), the classification, and the new
//!   base: the packet's PSN (clear), min(E1, candidate, b) when the packet fills the hole at
//!   the base and is committed, else unchanged. The window test has no carry chain: "in the
//!   base's block at or after its slot, or in the next block before it" (two equalities on
//!   the bits above the slot, one 8-bit compare); with PSN == base and three selects it is
//!   the loop. The 24-bit `psn - base` is computed too, but only for the class (behind the
//!   base = duplicate), which leaves the loop.
//! - W: write the packet's bit (or a clear's pattern) into the bitmap before the op (the op 1
//!   ahead forwarded from C, else the merged word); the received bitmap relative to the new base.
//! - C, C2: the RAM is written from registers (C); the circular bitmap is rotated to the
//!   base in two registered halves (low 4 bits of the amount in C, high 4 in C2;
//!   [`crate::prim::RotateRight`]). O: the output register.
//!
//! **Combinational paths.** `m_ready -> s_ready` (global stall), `m_ready -> RAM read
//! address` (a stalled R0 re-reads its connection) and `m_ready -> RAM write enable`. No path
//! from `s_*` to `m_*`.
//!
//! **Hazards.** A RAM word misses the writes of the 3 ops in C, D, E (merged at R) and the
//! ops 4 to 1 ahead; the op 4 ahead is patched at R, the op 3 ahead is merged into the bitmap at
//! P2 and the base at P1, the op 2 ahead at L (bitmap) and P2 (base), the op 1 ahead is
//! forwarded in L (base) and W (bitmap). For the search the ops 3, 2, 1 ahead are speculated
//! (forced "received" when they may mark their slot's PSN received; resolved exactly by their
//! write enables in P2 and L). During a stall nothing moves and nothing is written. A read
//! colliding with a write to the same address is never used (the write is merged), so block
//! RAMs without read-during-write guarantees are fine (`-no-rw-check`).
//!
//! **Reset** clears the valid bits of R0..L (those ops are dropped, never applied), of the
//! output path and the counters. The writes of ops already applied (W, C, D, E) complete.
//! Connection state (RAM) is data and is not reset: clear each connection at setup.
//! During reset `s_ready` is low.

use crate::prim::{mask, RotateRight, SegSearch};
use mrnic_model::config::ConfigError;
use rust_hdl::prelude::*;

/// Classification codes on `m_class` (the same as `mrnic_model::sack::Class`).
pub const CLASS_NEW: u64 = 0;
pub const CLASS_DUPLICATE: u64 = 1;
pub const CLASS_OUT_OF_WINDOW: u64 = 2;
pub const CLASS_CLEARED: u64 = 3;

/// Registers from an input transfer to the output register.
pub const LATENCY: usize = 9;
/// The register an operation leaves when its effect on the connection state is final
/// (counting the first input register as 1): ops before it are dropped by a reset.
pub const APPLY_STAGE: usize = 5;

#[derive(LogicBlock)]
pub struct SackEngine<const CONN_BITS: usize, const W: usize> {
    // ---- inputs
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_conn: Signal<In, Bits<CONN_BITS>>,
    pub s_psn: Signal<In, Bits<24>>,
    pub s_clear: Signal<In, bool>,
    pub s_commit: Signal<In, bool>,
    pub m_ready: Signal<In, bool>,
    // ---- outputs
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_conn: Signal<Out, Bits<CONN_BITS>>,
    pub m_psn: Signal<Out, Bits<24>>,
    pub m_class: Signal<Out, Bits<2>>,
    pub m_base: Signal<Out, Bits<24>>,
    pub m_bitmap: Signal<Out, Bits<W>>,
    // ---- status
    pub stat_new: Signal<Out, Bits<32>>,
    pub stat_duplicate: Signal<Out, Bits<32>>,
    pub stat_out_of_window: Signal<Out, Bits<32>>,
    pub stat_cleared: Signal<Out, Bits<32>>,
    // ---- connection state: base PSN and the lap-parity bitmap
    ram_base: RAM<Bits<24>, CONN_BITS>,
    ram_par: RAM<Bits<W>, CONN_BITS>,
    // ---- stage R0: the RAM read is in flight
    r0_valid: DFF<bool>,
    r0_conn: DFF<Bits<CONN_BITS>>,
    r0_psn: DFF<Bits<24>>,
    r0_clear: DFF<bool>,
    r0_commit: DFF<bool>,
    // ---- stage R: the RAM word (registered), merge, forced search vector
    r_valid: DFF<bool>,
    r_conn: DFF<Bits<CONN_BITS>>,
    r_psn: DFF<Bits<24>>,
    r_clear: DFF<bool>,
    r_commit: DFF<bool>,
    r_par_rd: DFF<Bits<W>>,
    r_base_rd: DFF<Bits<24>>,
    /// Same connection as the write in stage C / D / E (the last three RAM writes).
    r_hf1: DFF<bool>,
    r_hf2: DFF<bool>,
    r_hf3: DFF<bool>,
    /// Same connection as the op 4 ahead (stage W: patched in), 3 ahead (c), 2 ahead (a),
    /// 1 ahead (b): the last three are the ops in flight around the loop.
    r_sm4: DFF<bool>,
    r_smc: DFF<bool>,
    r_sma: DFF<bool>,
    r_smb: DFF<bool>,
    /// The packet's slot one-hot, "slot and above" thermometer and lap bit (decoded at R0).
    r_oh: DFF<Bits<W>>,
    r_ge: DFF<Bits<W>>,
    r_lap: DFF<bool>,
    /// The in-flight ops c, a, b against this packet (computed at R0; see stage R).
    r_kill: DFF<bool>,
    r_ec: DFF<bool>,
    r_ea: DFF<bool>,
    r_eb: DFF<bool>,
    r_wc: DFF<bool>,
    r_wa: DFF<bool>,
    r_wb: DFF<bool>,
    r_eqc: DFF<bool>,
    r_eqa: DFF<bool>,
    r_eqb: DFF<bool>,
    r_ssc: DFF<bool>,
    r_ssa: DFF<bool>,
    r_ssb: DFF<bool>,
    r_ss_ca: DFF<bool>,
    r_ss_cb: DFF<bool>,
    r_ss_ab: DFF<bool>,
    r_xc: DFF<Bits<24>>,
    r_xa: DFF<Bits<24>>,
    r_xb: DFF<Bits<24>>,
    r_kc: DFF<Bits<9>>,
    r_ka: DFF<Bits<9>>,
    r_kb: DFF<Bits<9>>,
    // ---- stage P1: search stage 1
    p1_valid: DFF<bool>,
    p1_conn: DFF<Bits<CONN_BITS>>,
    p1_psn: DFF<Bits<24>>,
    p1_clear: DFF<bool>,
    p1_commit: DFF<bool>,
    p1_oh: DFF<Bits<W>>,
    p1_ge: DFF<Bits<W>>,
    p1_lap: DFF<bool>,
    p1_z: DFF<Bits<W>>,
    p1_rel: DFF<Bits<W>>,
    p1_vpar: DFF<Bits<W>>,
    p1_base: DFF<Bits<24>>,
    p1_smc: DFF<bool>,
    p1_sma: DFF<bool>,
    p1_smb: DFF<bool>,
    p1_ec: DFF<bool>,
    p1_ea: DFF<bool>,
    p1_eb: DFF<bool>,
    p1_wc: DFF<bool>,
    p1_wa: DFF<bool>,
    p1_wb: DFF<bool>,
    p1_eqc: DFF<bool>,
    p1_eqa: DFF<bool>,
    p1_eqb: DFF<bool>,
    p1_ssc: DFF<bool>,
    p1_ssa: DFF<bool>,
    p1_ssb: DFF<bool>,
    p1_ss_ca: DFF<bool>,
    p1_ss_cb: DFF<bool>,
    p1_ss_ab: DFF<bool>,
    p1_xc: DFF<Bits<24>>,
    p1_xa: DFF<Bits<24>>,
    p1_xb: DFF<Bits<24>>,
    p1_kc: DFF<Bits<9>>,
    p1_ka: DFF<Bits<9>>,
    p1_kb: DFF<Bits<9>>,
    // ---- stage P2: search stage 2, candidates c and a resolved
    p2_valid: DFF<bool>,
    p2_conn: DFF<Bits<CONN_BITS>>,
    p2_psn: DFF<Bits<24>>,
    p2_clear: DFF<bool>,
    p2_commit: DFF<bool>,
    p2_oh: DFF<Bits<W>>,
    p2_lap: DFF<bool>,
    p2_vpar: DFF<Bits<W>>,
    p2_base: DFF<Bits<24>>,
    p2_sma: DFF<bool>,
    p2_smb: DFF<bool>,
    p2_smc: DFF<bool>,
    p2_ec: DFF<bool>,
    p2_ea: DFF<bool>,
    p2_eb: DFF<bool>,
    p2_wc: DFF<bool>,
    p2_wa: DFF<bool>,
    p2_wb: DFF<bool>,
    p2_eqc: DFF<bool>,
    p2_eqa: DFF<bool>,
    p2_eqb: DFF<bool>,
    p2_ssc: DFF<bool>,
    p2_ssa: DFF<bool>,
    p2_ssb: DFF<bool>,
    p2_ss_ca: DFF<bool>,
    p2_ss_cb: DFF<bool>,
    p2_ss_ab: DFF<bool>,
    p2_xc: DFF<Bits<24>>,
    p2_xa: DFF<Bits<24>>,
    p2_xb: DFF<Bits<24>>,
    p2_kc: DFF<Bits<9>>,
    p2_ka: DFF<Bits<9>>,
    p2_kb: DFF<Bits<9>>,
    p2_rc: DFF<bool>,
    p2_ra: DFF<bool>,
    p2_rb: DFF<bool>,
    p2_rq: DFF<bool>,
    // ---- stage L: the one-cycle loop (base, classification)
    l_valid: DFF<bool>,
    l_conn: DFF<Bits<CONN_BITS>>,
    l_psn: DFF<Bits<24>>,
    /// `l_psn - W`: the PSN with its block number (the bits above the slot) decremented
    l_psn_m1: DFF<Bits<24>>,
    l_clear: DFF<bool>,
    l_commit: DFF<bool>,
    l_oh: DFF<Bits<W>>,
    l_lap: DFF<bool>,
    l_vpar: DFF<Bits<W>>,
    l_base_pre: DFF<Bits<24>>,
    l_sma: DFF<bool>,
    l_smb: DFF<bool>,
    l_eb: DFF<bool>,
    l_wb: DFF<bool>,
    l_eqb: DFF<bool>,
    l_ssb: DFF<bool>,
    l_xb: DFF<Bits<24>>,
    l_kb: DFF<Bits<9>>,
    l_vb_pre: DFF<bool>,
    l_hit_pre: DFF<bool>,
    l_cand_ca: DFF<bool>,
    l_x_ca: DFF<Bits<24>>,
    l_k_ca: DFF<Bits<9>>,
    l_ca_lt_b: DFF<bool>,
    l_e1: DFF<Bits<24>>,
    l_k1: DFF<Bits<9>>,
    // ---- stage W: the op after the loop; the bitmap write (PW)
    w_valid: DFF<bool>,
    w_ovalid: DFF<bool>,
    w_conn: DFF<Bits<CONN_BITS>>,
    w_psn: DFF<Bits<24>>,
    w_clear: DFF<bool>,
    w_class: DFF<Bits<2>>,
    w_base: DFF<Bits<24>>,
    w_we: DFF<bool>,
    w_fwd: DFF<bool>,
    w_oh: DFF<Bits<W>>,
    w_ge: DFF<Bits<W>>,
    w_lap: DFF<bool>,
    w_parpre: DFF<Bits<W>>,
    // ---- stage C: the state after the op (RAM write source) and the circular bitmap
    c_valid: DFF<bool>,
    c_wvalid: DFF<bool>,
    c_conn: DFF<Bits<CONN_BITS>>,
    c_psn: DFF<Bits<24>>,
    c_class: DFF<Bits<2>>,
    c_base: DFF<Bits<24>>,
    c_par: DFF<Bits<W>>,
    c_recv: DFF<Bits<W>>,
    c_we: DFF<bool>,
    // ---- stage C2: the bitmap rotated by the base's low 4 bits
    c2_valid: DFF<bool>,
    c2_conn: DFF<Bits<CONN_BITS>>,
    c2_psn: DFF<Bits<24>>,
    c2_class: DFF<Bits<2>>,
    c2_base: DFF<Bits<24>>,
    c2_recv: DFF<Bits<W>>,
    // ---- stages D, E: the two writes before (merged at R)
    d_wvalid: DFF<bool>,
    d_conn: DFF<Bits<CONN_BITS>>,
    d_par: DFF<Bits<W>>,
    d_base: DFF<Bits<24>>,
    e_wvalid: DFF<bool>,
    e_conn: DFF<Bits<CONN_BITS>>,
    e_par: DFF<Bits<W>>,
    e_base: DFF<Bits<24>>,
    // ---- output register
    o_valid: DFF<bool>,
    o_conn: DFF<Bits<CONN_BITS>>,
    o_psn: DFF<Bits<24>>,
    o_class: DFF<Bits<2>>,
    o_base: DFF<Bits<24>>,
    o_bitmap: DFF<Bits<W>>,
    o_stat_new: DFF<Bits<32>>,
    o_stat_dup: DFF<Bits<32>>,
    o_stat_oow: DFF<Bits<32>>,
    o_stat_clr: DFF<Bits<32>>,
    // ---- combinational intermediates
    stall: Signal<Local, bool>,
    // stage R0
    q_s: Signal<Local, Bits<24>>,
    q_hi: Signal<Local, Bits<24>>,
    q_hi_inc: Signal<Local, Bits<24>>,
    n_smc: Signal<Local, bool>,
    n_sma: Signal<Local, bool>,
    n_smb: Signal<Local, bool>,
    // stage R
    r_lq: Signal<Local, Bits<W>>,
    mg_par: Signal<Local, Bits<W>>,
    mg_base: Signal<Local, Bits<24>>,
    w_lq: Signal<Local, Bits<W>>,
    v_par: Signal<Local, Bits<W>>,
    kill: Signal<Local, bool>,
    ec: Signal<Local, bool>,
    ea: Signal<Local, bool>,
    eb: Signal<Local, bool>,
    sc: Signal<Local, Bits<24>>,
    sa: Signal<Local, Bits<24>>,
    sb: Signal<Local, Bits<24>>,
    ltc: Signal<Local, bool>,
    lta: Signal<Local, bool>,
    ltb: Signal<Local, bool>,
    xc: Signal<Local, Bits<24>>,
    xa: Signal<Local, Bits<24>>,
    xb: Signal<Local, Bits<24>>,
    wc: Signal<Local, bool>,
    wa: Signal<Local, bool>,
    wb: Signal<Local, bool>,
    kc: Signal<Local, Bits<9>>,
    ka: Signal<Local, Bits<9>>,
    kb: Signal<Local, Bits<9>>,
    rel: Signal<Local, Bits<W>>,
    fc: Signal<Local, Bits<W>>,
    fa: Signal<Local, Bits<W>>,
    fb: Signal<Local, Bits<W>>,
    forced: Signal<Local, Bits<W>>,
    // stage P2
    s2_s: Signal<Local, Bits<24>>,
    s2_hi: Signal<Local, Bits<24>>,
    s2_hi_inc: Signal<Local, Bits<24>>,
    s2_far: Signal<Local, bool>,
    s2_pos: Signal<Local, Bits<24>>,
    val_c: Signal<Local, bool>,
    cand_c: Signal<Local, bool>,
    val_a: Signal<Local, bool>,
    cand_a: Signal<Local, bool>,
    take_c: Signal<Local, bool>,
    base_pre: Signal<Local, Bits<24>>,
    // stage L
    d_fwd: Signal<Local, Bits<24>>,
    hi_eq: Signal<Local, bool>,
    hi_eq_m1: Signal<Local, bool>,
    lo_ge: Signal<Local, bool>,
    iw: Signal<Local, bool>,
    isb: Signal<Local, bool>,
    neg: Signal<Local, bool>,
    hit: Signal<Local, bool>,
    val_b: Signal<Local, bool>,
    cand_b: Signal<Local, bool>,
    take_ca: Signal<Local, bool>,
    take_b: Signal<Local, bool>,
    adv_to: Signal<Local, Bits<24>>,
    base_in: Signal<Local, Bits<24>>,
    we: Signal<Local, bool>,
    adv: Signal<Local, bool>,
    l_class: Signal<Local, Bits<2>>,
    new_base: Signal<Local, Bits<24>>,
    // stage W
    pb: Signal<Local, Bits<W>>,
    pa: Signal<Local, Bits<W>>,
    b_s: Signal<Local, Bits<24>>,
    b_ge: Signal<Local, Bits<W>>,
    b_lap: Signal<Local, bool>,
    b_l: Signal<Local, Bits<W>>,
    // ---- primitives: the segmented search (P1 -> P2) and the output rotator
    search: SegSearch<W>,
    out_rot_lo: RotateRight<W>,
    out_rot_hi: RotateRight<W>,
    // ---- constants (localparams)
    k_class_new: Constant<Bits<2>>,
    k_class_duplicate: Constant<Bits<2>>,
    k_class_out_of_window: Constant<Bits<2>>,
    k_class_cleared: Constant<Bits<2>>,
    k_one: Constant<Bits<W>>,
    k_ones: Constant<Bits<W>>,
    k_zero: Constant<Bits<W>>,
    k_window: Constant<Bits<24>>,
    k_slot_mask: Constant<Bits<24>>,
    k_hi_mask: Constant<Bits<24>>,
    k_slot_mask8: Constant<Bits<8>>,
    k_half: Constant<Bits<24>>,
}

impl<const CONN_BITS: usize, const W: usize> SackEngine<CONN_BITS, W> {
    /// Refuses a window that is not 32, 64, 128 or 256 bits, or a connection count outside
    /// 2^4..=2^12.
    pub fn try_new() -> Result<Self, ConfigError> {
        if !mrnic_model::config::SACK_WINDOWS.contains(&W) {
            return Err(ConfigError::invalid("sack.window", format!("SackEngine: window W = {W} must be one of {:?}", mrnic_model::config::SACK_WINDOWS)));
        }
        if !(4..=12).contains(&CONN_BITS) {
            return Err(ConfigError::invalid("connections", format!("SackEngine: CONN_BITS = {CONN_BITS} must be in 4..=12")));
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_conn: Default::default(),
            s_psn: Default::default(),
            s_clear: Default::default(),
            s_commit: Default::default(),
            m_ready: Default::default(),
            s_ready: Default::default(),
            m_valid: Default::default(),
            m_conn: Default::default(),
            m_psn: Default::default(),
            m_class: Default::default(),
            m_base: Default::default(),
            m_bitmap: Default::default(),
            stat_new: Default::default(),
            stat_duplicate: Default::default(),
            stat_out_of_window: Default::default(),
            stat_cleared: Default::default(),
            ram_base: Default::default(),
            ram_par: Default::default(),
            r0_valid: Default::default(),
            r0_conn: Default::default(),
            r0_psn: Default::default(),
            r0_clear: Default::default(),
            r0_commit: Default::default(),
            r_valid: Default::default(),
            r_conn: Default::default(),
            r_psn: Default::default(),
            r_clear: Default::default(),
            r_commit: Default::default(),
            r_par_rd: Default::default(),
            r_base_rd: Default::default(),
            r_hf1: Default::default(),
            r_hf2: Default::default(),
            r_hf3: Default::default(),
            r_sm4: Default::default(),
            r_smc: Default::default(),
            r_sma: Default::default(),
            r_smb: Default::default(),
            r_oh: Default::default(),
            r_ge: Default::default(),
            r_lap: Default::default(),
            r_kill: Default::default(),
            r_ec: Default::default(),
            r_ea: Default::default(),
            r_eb: Default::default(),
            r_wc: Default::default(),
            r_wa: Default::default(),
            r_wb: Default::default(),
            r_eqc: Default::default(),
            r_eqa: Default::default(),
            r_eqb: Default::default(),
            r_ssc: Default::default(),
            r_ssa: Default::default(),
            r_ssb: Default::default(),
            r_ss_ca: Default::default(),
            r_ss_cb: Default::default(),
            r_ss_ab: Default::default(),
            r_xc: Default::default(),
            r_xa: Default::default(),
            r_xb: Default::default(),
            r_kc: Default::default(),
            r_ka: Default::default(),
            r_kb: Default::default(),
            p1_valid: Default::default(),
            p1_conn: Default::default(),
            p1_psn: Default::default(),
            p1_clear: Default::default(),
            p1_commit: Default::default(),
            p1_oh: Default::default(),
            p1_ge: Default::default(),
            p1_lap: Default::default(),
            p1_z: Default::default(),
            p1_rel: Default::default(),
            p1_vpar: Default::default(),
            p1_base: Default::default(),
            p1_smc: Default::default(),
            p1_sma: Default::default(),
            p1_smb: Default::default(),
            p1_ec: Default::default(),
            p1_ea: Default::default(),
            p1_eb: Default::default(),
            p1_wc: Default::default(),
            p1_wa: Default::default(),
            p1_wb: Default::default(),
            p1_eqc: Default::default(),
            p1_eqa: Default::default(),
            p1_eqb: Default::default(),
            p1_ssc: Default::default(),
            p1_ssa: Default::default(),
            p1_ssb: Default::default(),
            p1_ss_ca: Default::default(),
            p1_ss_cb: Default::default(),
            p1_ss_ab: Default::default(),
            p1_xc: Default::default(),
            p1_xa: Default::default(),
            p1_xb: Default::default(),
            p1_kc: Default::default(),
            p1_ka: Default::default(),
            p1_kb: Default::default(),
            p2_valid: Default::default(),
            p2_conn: Default::default(),
            p2_psn: Default::default(),
            p2_clear: Default::default(),
            p2_commit: Default::default(),
            p2_oh: Default::default(),
            p2_lap: Default::default(),
            p2_vpar: Default::default(),
            p2_base: Default::default(),
            p2_sma: Default::default(),
            p2_smb: Default::default(),
            p2_smc: Default::default(),
            p2_ec: Default::default(),
            p2_ea: Default::default(),
            p2_eb: Default::default(),
            p2_wc: Default::default(),
            p2_wa: Default::default(),
            p2_wb: Default::default(),
            p2_eqc: Default::default(),
            p2_eqa: Default::default(),
            p2_eqb: Default::default(),
            p2_ssc: Default::default(),
            p2_ssa: Default::default(),
            p2_ssb: Default::default(),
            p2_ss_ca: Default::default(),
            p2_ss_cb: Default::default(),
            p2_ss_ab: Default::default(),
            p2_xc: Default::default(),
            p2_xa: Default::default(),
            p2_xb: Default::default(),
            p2_kc: Default::default(),
            p2_ka: Default::default(),
            p2_kb: Default::default(),
            p2_rc: Default::default(),
            p2_ra: Default::default(),
            p2_rb: Default::default(),
            p2_rq: Default::default(),
            l_valid: Default::default(),
            l_conn: Default::default(),
            l_psn: Default::default(),
            l_psn_m1: Default::default(),
            l_clear: Default::default(),
            l_commit: Default::default(),
            l_oh: Default::default(),
            l_lap: Default::default(),
            l_vpar: Default::default(),
            l_base_pre: Default::default(),
            l_sma: Default::default(),
            l_smb: Default::default(),
            l_eb: Default::default(),
            l_wb: Default::default(),
            l_eqb: Default::default(),
            l_ssb: Default::default(),
            l_xb: Default::default(),
            l_kb: Default::default(),
            l_vb_pre: Default::default(),
            l_hit_pre: Default::default(),
            l_cand_ca: Default::default(),
            l_x_ca: Default::default(),
            l_k_ca: Default::default(),
            l_ca_lt_b: Default::default(),
            l_e1: Default::default(),
            l_k1: Default::default(),
            w_valid: Default::default(),
            w_ovalid: Default::default(),
            w_conn: Default::default(),
            w_psn: Default::default(),
            w_clear: Default::default(),
            w_class: Default::default(),
            w_base: Default::default(),
            w_we: Default::default(),
            w_fwd: Default::default(),
            w_oh: Default::default(),
            w_ge: Default::default(),
            w_lap: Default::default(),
            w_parpre: Default::default(),
            c_valid: Default::default(),
            c_wvalid: Default::default(),
            c_conn: Default::default(),
            c_psn: Default::default(),
            c_class: Default::default(),
            c_base: Default::default(),
            c_par: Default::default(),
            c_recv: Default::default(),
            c_we: Default::default(),
            c2_valid: Default::default(),
            c2_conn: Default::default(),
            c2_psn: Default::default(),
            c2_class: Default::default(),
            c2_base: Default::default(),
            c2_recv: Default::default(),
            d_wvalid: Default::default(),
            d_conn: Default::default(),
            d_par: Default::default(),
            d_base: Default::default(),
            e_wvalid: Default::default(),
            e_conn: Default::default(),
            e_par: Default::default(),
            e_base: Default::default(),
            o_valid: Default::default(),
            o_conn: Default::default(),
            o_psn: Default::default(),
            o_class: Default::default(),
            o_base: Default::default(),
            o_bitmap: Default::default(),
            o_stat_new: Default::default(),
            o_stat_dup: Default::default(),
            o_stat_oow: Default::default(),
            o_stat_clr: Default::default(),
            stall: Default::default(),
            q_s: Default::default(),
            r_lq: Default::default(),
            q_hi: Default::default(),
            q_hi_inc: Default::default(),
            n_smc: Default::default(),
            n_sma: Default::default(),
            n_smb: Default::default(),
            mg_par: Default::default(),
            mg_base: Default::default(),
            w_lq: Default::default(),
            v_par: Default::default(),
            kill: Default::default(),
            ec: Default::default(),
            ea: Default::default(),
            eb: Default::default(),
            sc: Default::default(),
            sa: Default::default(),
            sb: Default::default(),
            ltc: Default::default(),
            lta: Default::default(),
            ltb: Default::default(),
            xc: Default::default(),
            xa: Default::default(),
            xb: Default::default(),
            wc: Default::default(),
            wa: Default::default(),
            wb: Default::default(),
            kc: Default::default(),
            ka: Default::default(),
            kb: Default::default(),
            rel: Default::default(),
            fc: Default::default(),
            fa: Default::default(),
            fb: Default::default(),
            forced: Default::default(),
            s2_s: Default::default(),
            s2_hi: Default::default(),
            s2_hi_inc: Default::default(),
            s2_far: Default::default(),
            s2_pos: Default::default(),
            val_c: Default::default(),
            cand_c: Default::default(),
            val_a: Default::default(),
            cand_a: Default::default(),
            take_c: Default::default(),
            base_pre: Default::default(),
            d_fwd: Default::default(),
            hi_eq: Default::default(),
            hi_eq_m1: Default::default(),
            lo_ge: Default::default(),
            iw: Default::default(),
            isb: Default::default(),
            neg: Default::default(),
            hit: Default::default(),
            val_b: Default::default(),
            cand_b: Default::default(),
            take_ca: Default::default(),
            take_b: Default::default(),
            adv_to: Default::default(),
            base_in: Default::default(),
            we: Default::default(),
            adv: Default::default(),
            l_class: Default::default(),
            new_base: Default::default(),
            pb: Default::default(),
            pa: Default::default(),
            b_s: Default::default(),
            b_ge: Default::default(),
            b_lap: Default::default(),
            b_l: Default::default(),
            search: SegSearch::new(),
            out_rot_lo: RotateRight::new(),
            out_rot_hi: RotateRight::new(),
            k_class_new: Constant::new(CLASS_NEW.into()),
            k_class_duplicate: Constant::new(CLASS_DUPLICATE.into()),
            k_class_out_of_window: Constant::new(CLASS_OUT_OF_WINDOW.into()),
            k_class_cleared: Constant::new(CLASS_CLEARED.into()),
            k_one: mask::<W>(|i| i == 0),
            k_ones: mask::<W>(|_| true),
            k_zero: mask::<W>(|_| false),
            k_window: Constant::new((W as u64).into()),
            k_slot_mask: Constant::new(((W - 1) as u64).into()),
            k_hi_mask: Constant::new((0xFF_FFFFu64 & !((W - 1) as u64)).into()),
            k_slot_mask8: Constant::new(((W - 1) as u64).into()),
            k_half: Constant::new((1u64 << 23).into()),
        })
    }

    /// Panics with the reason on illegal parameters (see [`Self::try_new`]).
    pub fn new() -> Self {
        Self::try_new().unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<const CONN_BITS: usize, const W: usize> Default for SackEngine<CONN_BITS, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CONN_BITS: usize, const W: usize> Logic for SackEngine<CONN_BITS, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // ================= defaults: clocks, registers hold, then the logic
        self.ram_base.read_clock.next = self.clock.val();
        self.ram_base.write_clock.next = self.clock.val();
        self.ram_par.read_clock.next = self.clock.val();
        self.ram_par.write_clock.next = self.clock.val();
        self.search.clock.next = self.clock.val();
        dff_setup!(
            self, clock, r0_valid, r0_conn, r0_psn, r0_clear, r0_commit, r_valid, r_conn, r_psn, r_clear, r_commit, r_par_rd, r_base_rd, r_hf1, r_hf2, r_hf3, r_sm4,
            r_smc, r_sma, r_smb, r_oh, r_ge, r_lap, r_kill, r_ec, r_ea, r_eb, r_wc, r_wa, r_wb, r_eqc, r_eqa, r_eqb, r_ssc, r_ssa, r_ssb, r_ss_ca, r_ss_cb, r_ss_ab, r_xc, r_xa, r_xb, r_kc, r_ka, r_kb, p1_valid, p1_conn, p1_psn, p1_clear, p1_commit, p1_oh, p1_ge, p1_lap, p1_z, p1_rel, p1_vpar, p1_base, p1_smc, p1_sma, p1_smb, p1_ec,
            p1_ea, p1_eb, p1_wc, p1_wa, p1_wb, p1_eqc, p1_eqa, p1_eqb, p1_ssc, p1_ssa, p1_ssb, p1_ss_ca, p1_ss_cb, p1_ss_ab, p1_xc, p1_xa, p1_xb, p1_kc, p1_ka, p1_kb,
            p2_valid, p2_conn, p2_psn, p2_clear, p2_commit, p2_oh, p2_lap, p2_vpar, p2_base, p2_sma, p2_smb, p2_smc, p2_ec, p2_ea, p2_eb, p2_wc, p2_wa, p2_wb,
            p2_eqc, p2_eqa, p2_eqb, p2_ssc, p2_ssa, p2_ssb, p2_ss_ca, p2_ss_cb, p2_ss_ab, p2_xc, p2_xa, p2_xb, p2_kc, p2_ka, p2_kb, p2_rc, p2_ra, p2_rb, p2_rq,
            l_valid, l_conn, l_psn, l_psn_m1, l_clear, l_commit, l_oh, l_lap, l_vpar, l_base_pre, l_sma, l_smb, l_eb, l_wb, l_eqb, l_ssb, l_xb, l_kb, l_vb_pre,
            l_hit_pre, l_cand_ca, l_x_ca, l_k_ca, l_ca_lt_b, l_e1, l_k1, w_valid, w_ovalid, w_conn, w_psn, w_clear, w_class, w_base,
            w_we, w_fwd, w_oh, w_ge, w_lap, w_parpre, c_valid, c_wvalid, c_conn, c_psn, c_class, c_base, c_par, c_recv, c_we, c2_valid, c2_conn, c2_psn, c2_class, c2_base, c2_recv, d_wvalid, d_conn, d_par, d_base,
            e_wvalid, e_conn, e_par, e_base, o_valid, o_conn, o_psn, o_class, o_base, o_bitmap, o_stat_new, o_stat_dup, o_stat_oow, o_stat_clr
        );

        // ================= global stall; stage A: accept, issue the RAM read
        self.stall.next = self.o_valid.q.val() & !self.m_ready.val();
        self.s_ready.next = !self.stall.val() & !self.rst.val();
        self.ram_base.read_address.next = self.s_conn.val();
        self.ram_par.read_address.next = self.s_conn.val();
        if self.stall.val() {
            // A stalled R0 re-reads its connection (nothing is written during a stall).
            self.ram_base.read_address.next = self.r0_conn.q.val();
            self.ram_par.read_address.next = self.r0_conn.q.val();
        }
        self.search.en.next = !self.stall.val();

        // ================= stage R0: decode the packet's slot; relate it to the ops ahead
        // (c = 3 ahead, in P2 now; a = 2 ahead, in P1; b = 1 ahead, in R), registered for R.
        // Each in-flight op's slot seen from this packet's window: x* is the PSN in
        // [psn, psn + W) with that slot, k* its order key {wrapped, slot}, w* "the op's PSN is
        // x*" (its write would mark x* received; otherwise it marks x* not received). A clear
        // among them empties the state (kill); an op before such a clear does not count (e*).
        self.q_s.next = self.r0_psn.q.val() & self.k_slot_mask.val();
        self.q_hi.next = self.r0_psn.q.val() & self.k_hi_mask.val();
        self.q_hi_inc.next = self.q_hi.val() + self.k_window.val();
        self.n_smc.next = self.p2_valid.q.val() & (self.p2_conn.q.val() == self.r0_conn.q.val());
        self.n_sma.next = self.p1_valid.q.val() & (self.p1_conn.q.val() == self.r0_conn.q.val());
        self.n_smb.next = self.r_valid.q.val() & (self.r_conn.q.val() == self.r0_conn.q.val());
        self.kill.next = (self.n_smc.val() & self.p2_clear.q.val()) | (self.n_sma.val() & self.p1_clear.q.val()) | (self.n_smb.val() & self.r_clear.q.val());
        self.eb.next = self.n_smb.val() & !self.r_clear.q.val();
        self.ea.next = self.n_sma.val() & !self.p1_clear.q.val() & !(self.n_smb.val() & self.r_clear.q.val());
        self.ec.next = self.n_smc.val() & !self.p2_clear.q.val() & !(self.n_sma.val() & self.p1_clear.q.val()) & !(self.n_smb.val() & self.r_clear.q.val());
        self.sc.next = self.p2_psn.q.val() & self.k_slot_mask.val();
        self.sa.next = self.p1_psn.q.val() & self.k_slot_mask.val();
        self.sb.next = self.r_psn.q.val() & self.k_slot_mask.val();
        self.ltc.next = self.sc.val() < self.q_s.val();
        self.lta.next = self.sa.val() < self.q_s.val();
        self.ltb.next = self.sb.val() < self.q_s.val();
        self.xc.next = self.q_hi.val() | self.sc.val();
        if self.ltc.val() {
            self.xc.next = self.q_hi_inc.val() | self.sc.val();
        }
        self.xa.next = self.q_hi.val() | self.sa.val();
        if self.lta.val() {
            self.xa.next = self.q_hi_inc.val() | self.sa.val();
        }
        self.xb.next = self.q_hi.val() | self.sb.val();
        if self.ltb.val() {
            self.xb.next = self.q_hi_inc.val() | self.sb.val();
        }
        self.wc.next = self.p2_psn.q.val() == self.xc.val();
        self.wa.next = self.p1_psn.q.val() == self.xa.val();
        self.wb.next = self.r_psn.q.val() == self.xb.val();
        self.kc.next = bit_cast::<9, 8>(self.sc.val().get_bits::<8>(0)) | (bit_cast::<9, 1>(self.ltc.val().into()) << 8);
        self.ka.next = bit_cast::<9, 8>(self.sa.val().get_bits::<8>(0)) | (bit_cast::<9, 1>(self.lta.val().into()) << 8);
        self.kb.next = bit_cast::<9, 8>(self.sb.val().get_bits::<8>(0)) | (bit_cast::<9, 1>(self.ltb.val().into()) << 8);

        // ================= stage R: merge the RAM word, build the search vector
        // The lap pattern of the window [psn, psn + W) in slot order.
        self.r_lq.next = !self.r_ge.q.val();
        if self.r_lap.q.val() {
            self.r_lq.next = self.r_ge.q.val();
        }
        // The RAM word misses the writes of stages C, D, E (newest first); the base also
        // misses the op in stage W, whose base is final.
        self.mg_par.next = self.r_par_rd.q.val();
        if self.r_hf1.q.val() {
            self.mg_par.next = self.c_par.q.val();
        } else if self.r_hf2.q.val() {
            self.mg_par.next = self.d_par.q.val();
        } else if self.r_hf3.q.val() {
            self.mg_par.next = self.e_par.q.val();
        }
        self.mg_base.next = self.r_base_rd.q.val();
        if self.r_sm4.q.val() {
            self.mg_base.next = self.w_base.q.val();
        } else if self.r_hf1.q.val() {
            self.mg_base.next = self.c_base.q.val();
        } else if self.r_hf2.q.val() {
            self.mg_base.next = self.d_base.q.val();
        } else if self.r_hf3.q.val() {
            self.mg_base.next = self.e_base.q.val();
        }
        // The op in stage W (4 ahead) is patched in: one bit written, or a clear's pattern.
        self.w_lq.next = !self.w_ge.q.val();
        if self.w_lap.q.val() {
            self.w_lq.next = self.w_ge.q.val();
        }
        self.v_par.next = self.mg_par.val();
        if self.r_sm4.q.val() & self.w_clear.q.val() {
            self.v_par.next = self.w_lq.val();
        } else if self.r_sm4.q.val() & self.w_we.q.val() {
            if self.w_lap.q.val() {
                self.v_par.next = self.mg_par.val() & !self.w_oh.q.val();
            } else {
                self.v_par.next = self.mg_par.val() | self.w_oh.q.val();
            }
        }
        // Received, relative to this packet's window (bit i: the PSN of slot i in
        // [psn, psn + W)); then the search vector: not received and not forced. Forced to
        // "received": the packet's own slot and every in-flight op (c in L, a in P2, b in P1
        // now) that may mark its x* received.
        self.rel.next = self.v_par.val() ^ self.r_lq.val();
        if self.r_kill.q.val() {
            self.rel.next = self.k_zero.val();
        }
        self.fc.next = self.k_zero.val();
        if self.r_ec.q.val() & self.r_wc.q.val() {
            self.fc.next = self.l_oh.q.val();
        }
        self.fa.next = self.k_zero.val();
        if self.r_ea.q.val() & self.r_wa.q.val() {
            self.fa.next = self.p2_oh.q.val();
        }
        self.fb.next = self.k_zero.val();
        if self.r_eb.q.val() & self.r_wb.q.val() {
            self.fb.next = self.p1_oh.q.val();
        }
        self.forced.next = self.r_oh.q.val() | self.fc.val() | self.fa.val() | self.fb.val();

        // ================= stage P1: search stage 1 (in SegSearch); received bits of the
        // candidate slots and of the packet's own slot
        self.search.a.next = self.p1_z.q.val();
        self.search.from.next = self.p1_ge.q.val();

        // ================= stage P2: search stage 2 -> E1; candidates c and a resolved
        self.s2_s.next = self.p2_psn.q.val() & self.k_slot_mask.val();
        self.s2_hi.next = self.p2_psn.q.val() & self.k_hi_mask.val();
        self.s2_hi_inc.next = self.s2_hi.val() + self.k_window.val();
        // First not-received PSN after the packet: the found slot, in the next block when the
        // search wrapped; no zero at all means the whole window (psn + W).
        self.s2_far.next = self.search.wrapped.val() | !self.search.found.val();
        self.s2_pos.next = self.s2_s.val();
        if self.search.found.val() {
            self.s2_pos.next = bit_cast::<24, 8>(self.search.index.val());
        }
        // c (in stage C now: its write enable is known) and a (in stage W).
        self.val_c.next = self.p2_rc.q.val();
        if self.c_we.q.val() {
            self.val_c.next = self.p2_wc.q.val();
        }
        self.cand_c.next = !self.val_c.val() & self.p2_ec.q.val() & !self.p2_ssc.q.val() & !(self.p2_ss_ca.q.val() & self.p2_ea.q.val()) & !(self.p2_ss_cb.q.val() & self.p2_eb.q.val());
        self.val_a.next = self.p2_ra.q.val();
        if self.w_we.q.val() {
            self.val_a.next = self.p2_wa.q.val();
        } else if self.p2_ss_ca.q.val() & self.p2_ec.q.val() & self.c_we.q.val() {
            self.val_a.next = self.p2_wc.q.val();
        }
        self.cand_a.next = !self.val_a.val() & self.p2_ea.q.val() & !self.p2_ssa.q.val() & !(self.p2_ss_ab.q.val() & self.p2_eb.q.val());
        self.take_c.next = self.cand_c.val() & (!self.cand_a.val() | (self.p2_kc.q.val() < self.p2_ka.q.val()));
        // The base before this op, as far as known now (the op 1 ahead is still in L).
        self.base_pre.next = self.p2_base.q.val();
        if self.p2_sma.q.val() {
            self.base_pre.next = self.w_base.q.val();
        }

        // ================= stage L: the loop. Only the base (24 bits) and a few flags go
        // round it; every wide quantity was prepared in R..P2.
        // No subtraction in the loop: PSN p is in the window [base, base + W) iff p is in the
        // base's block at or after its slot, or in the next block before its slot (block = the
        // bits above the slot; `l_psn_m1` holds p's block number minus one, prepared in P2).
        // Two equalities and one 8-bit compare instead of a 24-bit carry chain. The difference
        // itself is only needed for `neg` (the class), which leaves the loop.
        self.base_in.next = self.l_base_pre.q.val();
        if self.l_smb.q.val() {
            self.base_in.next = self.w_base.q.val();
        }
        self.d_fwd.next = self.l_psn.q.val() - self.base_in.val();
        // behind the base in serial arithmetic: the difference's sign bit, as a compare (every
        // bit of `d_fwd` read, so the lint has no unused bits to report)
        self.neg.next = self.d_fwd.val() >= self.k_half.val();
        self.hi_eq.next = !((self.l_psn.q.val() ^ self.base_in.val()) & self.k_hi_mask.val()).any();
        self.hi_eq_m1.next = !((self.l_psn_m1.q.val() ^ self.base_in.val()) & self.k_hi_mask.val()).any();
        self.lo_ge.next = (self.l_psn.q.val().get_bits::<8>(0) & self.k_slot_mask8.val()) >= (self.base_in.val().get_bits::<8>(0) & self.k_slot_mask8.val());
        self.iw.next = (self.hi_eq.val() & self.lo_ge.val()) | (self.hi_eq_m1.val() & !self.lo_ge.val());
        self.isb.next = self.l_psn.q.val() == self.base_in.val();
        // b (1 ahead, in stage W now): its write enable resolves the last candidate.
        self.hit.next = self.l_hit_pre.q.val();
        if self.l_ssb.q.val() & self.l_eb.q.val() & self.w_we.q.val() {
            self.hit.next = self.l_eqb.q.val();
        }
        self.val_b.next = self.l_vb_pre.q.val();
        if self.w_we.q.val() {
            self.val_b.next = self.l_wb.q.val();
        }
        self.cand_b.next = !self.val_b.val() & self.l_eb.q.val() & !self.l_ssb.q.val();
        self.take_ca.next = self.l_cand_ca.q.val() & (self.l_k_ca.q.val() < self.l_k1.q.val()) & (!self.cand_b.val() | self.l_ca_lt_b.q.val());
        self.take_b.next = self.cand_b.val() & (self.l_kb.q.val() < self.l_k1.q.val()) & (!self.l_cand_ca.q.val() | !self.l_ca_lt_b.q.val());
        self.adv_to.next = self.l_e1.q.val();
        if self.take_ca.val() {
            self.adv_to.next = self.l_x_ca.q.val();
        } else if self.take_b.val() {
            self.adv_to.next = self.l_xb.q.val();
        }
        self.we.next = self.iw.val() & self.l_commit.q.val() & !self.l_clear.q.val();
        self.adv.next = self.iw.val() & self.isb.val() & !self.hit.val() & self.l_commit.q.val() & !self.l_clear.q.val();
        self.l_class.next = self.k_class_new.val();
        if self.l_clear.q.val() {
            self.l_class.next = self.k_class_cleared.val();
        } else if self.neg.val() {
            self.l_class.next = self.k_class_duplicate.val();
        } else if !self.iw.val() {
            self.l_class.next = self.k_class_out_of_window.val();
        } else if self.hit.val() {
            self.l_class.next = self.k_class_duplicate.val();
        }
        self.new_base.next = self.base_in.val();
        if self.l_clear.q.val() {
            self.new_base.next = self.l_psn.q.val();
        } else if self.adv.val() {
            self.new_base.next = self.adv_to.val();
        }

        // ================= stage W: write the packet's bit into the lap-parity bitmap;
        // the received bitmap relative to the new base (circular) for the output
        self.pb.next = self.w_parpre.q.val();
        if self.w_fwd.q.val() {
            self.pb.next = self.c_par.q.val();
        }
        self.pa.next = self.pb.val();
        if self.w_clear.q.val() {
            self.pa.next = self.w_lq.val();
        } else if self.w_we.q.val() {
            if self.w_lap.q.val() {
                self.pa.next = self.pb.val() & !self.w_oh.q.val();
            } else {
                self.pa.next = self.pb.val() | self.w_oh.q.val();
            }
        }
        self.b_s.next = self.w_base.q.val() & self.k_slot_mask.val();
        self.b_ge.next = self.k_ones.val() << self.b_s.val();
        self.b_lap.next = (self.w_base.q.val() & self.k_window.val()).any();
        self.b_l.next = !self.b_ge.val();
        if self.b_lap.val() {
            self.b_l.next = self.b_ge.val();
        }

        // ================= stage C: the RAM write (one cycle after W, from registers)
        self.ram_base.write_address.next = self.c_conn.q.val();
        self.ram_par.write_address.next = self.c_conn.q.val();
        self.ram_base.write_data.next = self.c_base.q.val();
        self.ram_par.write_data.next = self.c_par.q.val();
        self.ram_base.write_enable.next = self.c_wvalid.q.val() & !self.stall.val();
        self.ram_par.write_enable.next = self.c_wvalid.q.val() & !self.stall.val();
        // Rotate to the base in two registered halves: the base's low 4 bits in C, the
        // high 4 bits in C2 (one 256-bit barrel rotator is too deep for one cycle).
        self.out_rot_lo.a.next = self.c_recv.q.val();
        self.out_rot_lo.amount.next = bit_cast::<8, 4>(self.c_base.q.val().get_bits::<4>(0));
        self.out_rot_hi.a.next = self.c2_recv.q.val();
        self.out_rot_hi.amount.next = bit_cast::<8, 4>(self.c2_base.q.val().get_bits::<4>(4)) << 4;

        // ================= the pipeline advances together unless stalled
        if !self.stall.val() {
            // A -> R0
            self.r0_valid.d.next = self.s_valid.val();
            self.r0_conn.d.next = self.s_conn.val();
            self.r0_psn.d.next = self.s_psn.val();
            self.r0_clear.d.next = self.s_clear.val();
            self.r0_commit.d.next = self.s_commit.val();
            // R0 -> R: the RAM word, and where this op stands against the ops ahead of it
            // (compared one stage early, on the stage each will be in next cycle).
            self.r_valid.d.next = self.r0_valid.q.val();
            self.r_conn.d.next = self.r0_conn.q.val();
            self.r_psn.d.next = self.r0_psn.q.val();
            self.r_clear.d.next = self.r0_clear.q.val();
            self.r_commit.d.next = self.r0_commit.q.val();
            self.r_par_rd.d.next = self.ram_par.read_data.val();
            self.r_base_rd.d.next = self.ram_base.read_data.val();
            self.r_hf1.d.next = self.w_valid.q.val() & (self.w_conn.q.val() == self.r0_conn.q.val());
            self.r_hf2.d.next = self.c_wvalid.q.val() & (self.c_conn.q.val() == self.r0_conn.q.val());
            self.r_hf3.d.next = self.d_wvalid.q.val() & (self.d_conn.q.val() == self.r0_conn.q.val());
            self.r_sm4.d.next = self.l_valid.q.val() & (self.l_conn.q.val() == self.r0_conn.q.val());
            self.r_smc.d.next = self.n_smc.val();
            self.r_sma.d.next = self.n_sma.val();
            self.r_smb.d.next = self.n_smb.val();
            self.r_oh.d.next = self.k_one.val() << self.q_s.val();
            self.r_ge.d.next = self.k_ones.val() << self.q_s.val();
            self.r_lap.d.next = (self.r0_psn.q.val() & self.k_window.val()).any();
            self.r_kill.d.next = self.kill.val();
            self.r_ec.d.next = self.ec.val();
            self.r_ea.d.next = self.ea.val();
            self.r_eb.d.next = self.eb.val();
            self.r_wc.d.next = self.wc.val();
            self.r_wa.d.next = self.wa.val();
            self.r_wb.d.next = self.wb.val();
            self.r_eqc.d.next = self.p2_psn.q.val() == self.r0_psn.q.val();
            self.r_eqa.d.next = self.p1_psn.q.val() == self.r0_psn.q.val();
            self.r_eqb.d.next = self.r_psn.q.val() == self.r0_psn.q.val();
            self.r_ssc.d.next = self.sc.val() == self.q_s.val();
            self.r_ssa.d.next = self.sa.val() == self.q_s.val();
            self.r_ssb.d.next = self.sb.val() == self.q_s.val();
            self.r_ss_ca.d.next = self.sc.val() == self.sa.val();
            self.r_ss_cb.d.next = self.sc.val() == self.sb.val();
            self.r_ss_ab.d.next = self.sa.val() == self.sb.val();
            self.r_xc.d.next = self.xc.val();
            self.r_xa.d.next = self.xa.val();
            self.r_xb.d.next = self.xb.val();
            self.r_kc.d.next = self.kc.val();
            self.r_ka.d.next = self.ka.val();
            self.r_kb.d.next = self.kb.val();
            // R -> P1
            self.p1_valid.d.next = self.r_valid.q.val();
            self.p1_conn.d.next = self.r_conn.q.val();
            self.p1_psn.d.next = self.r_psn.q.val();
            self.p1_clear.d.next = self.r_clear.q.val();
            self.p1_commit.d.next = self.r_commit.q.val();
            self.p1_oh.d.next = self.r_oh.q.val();
            self.p1_ge.d.next = self.r_ge.q.val();
            self.p1_lap.d.next = self.r_lap.q.val();
            self.p1_z.d.next = !(self.rel.val() | self.forced.val());
            self.p1_rel.d.next = self.rel.val();
            self.p1_vpar.d.next = self.v_par.val();
            self.p1_base.d.next = self.mg_base.val();
            self.p1_smc.d.next = self.r_smc.q.val();
            self.p1_sma.d.next = self.r_sma.q.val();
            self.p1_smb.d.next = self.r_smb.q.val();
            self.p1_ec.d.next = self.r_ec.q.val();
            self.p1_ea.d.next = self.r_ea.q.val();
            self.p1_eb.d.next = self.r_eb.q.val();
            self.p1_wc.d.next = self.r_wc.q.val();
            self.p1_wa.d.next = self.r_wa.q.val();
            self.p1_wb.d.next = self.r_wb.q.val();
            self.p1_eqc.d.next = self.r_eqc.q.val();
            self.p1_eqa.d.next = self.r_eqa.q.val();
            self.p1_eqb.d.next = self.r_eqb.q.val();
            self.p1_ssc.d.next = self.r_ssc.q.val();
            self.p1_ssa.d.next = self.r_ssa.q.val();
            self.p1_ssb.d.next = self.r_ssb.q.val();
            self.p1_ss_ca.d.next = self.r_ss_ca.q.val();
            self.p1_ss_cb.d.next = self.r_ss_cb.q.val();
            self.p1_ss_ab.d.next = self.r_ss_ab.q.val();
            self.p1_xc.d.next = self.r_xc.q.val();
            self.p1_xa.d.next = self.r_xa.q.val();
            self.p1_xb.d.next = self.r_xb.q.val();
            self.p1_kc.d.next = self.r_kc.q.val();
            self.p1_ka.d.next = self.r_ka.q.val();
            self.p1_kb.d.next = self.r_kb.q.val();
            // P1 -> P2 (the search summaries load inside SegSearch)
            self.p2_valid.d.next = self.p1_valid.q.val();
            self.p2_conn.d.next = self.p1_conn.q.val();
            self.p2_psn.d.next = self.p1_psn.q.val();
            self.p2_clear.d.next = self.p1_clear.q.val();
            self.p2_commit.d.next = self.p1_commit.q.val();
            self.p2_oh.d.next = self.p1_oh.q.val();
            self.p2_lap.d.next = self.p1_lap.q.val();
            self.p2_vpar.d.next = self.p1_vpar.q.val();
            // the op 3 ahead (now in W) has its final base
            self.p2_base.d.next = self.p1_base.q.val();
            if self.p1_smc.q.val() {
                self.p2_base.d.next = self.w_base.q.val();
            }
            self.p2_sma.d.next = self.p1_sma.q.val();
            self.p2_smb.d.next = self.p1_smb.q.val();
            self.p2_smc.d.next = self.p1_smc.q.val();
            self.p2_ec.d.next = self.p1_ec.q.val();
            self.p2_ea.d.next = self.p1_ea.q.val();
            self.p2_eb.d.next = self.p1_eb.q.val();
            self.p2_wc.d.next = self.p1_wc.q.val();
            self.p2_wa.d.next = self.p1_wa.q.val();
            self.p2_wb.d.next = self.p1_wb.q.val();
            self.p2_eqc.d.next = self.p1_eqc.q.val();
            self.p2_eqa.d.next = self.p1_eqa.q.val();
            self.p2_eqb.d.next = self.p1_eqb.q.val();
            self.p2_ssc.d.next = self.p1_ssc.q.val();
            self.p2_ssa.d.next = self.p1_ssa.q.val();
            self.p2_ssb.d.next = self.p1_ssb.q.val();
            self.p2_ss_ca.d.next = self.p1_ss_ca.q.val();
            self.p2_ss_cb.d.next = self.p1_ss_cb.q.val();
            self.p2_ss_ab.d.next = self.p1_ss_ab.q.val();
            self.p2_xc.d.next = self.p1_xc.q.val();
            self.p2_xa.d.next = self.p1_xa.q.val();
            self.p2_xb.d.next = self.p1_xb.q.val();
            self.p2_kc.d.next = self.p1_kc.q.val();
            self.p2_ka.d.next = self.p1_ka.q.val();
            self.p2_kb.d.next = self.p1_kb.q.val();
            // received bits (from the state before c) of the candidates' slots and our own:
            // c is in W, a in L, b in P2 this cycle
            self.p2_rc.d.next = (self.p1_rel.q.val() & self.w_oh.q.val()).any();
            self.p2_ra.d.next = (self.p1_rel.q.val() & self.l_oh.q.val()).any();
            self.p2_rb.d.next = (self.p1_rel.q.val() & self.p2_oh.q.val()).any();
            self.p2_rq.d.next = (self.p1_rel.q.val() & self.p1_oh.q.val()).any();
            // P2 -> L
            self.l_valid.d.next = self.p2_valid.q.val();
            self.l_conn.d.next = self.p2_conn.q.val();
            self.l_psn.d.next = self.p2_psn.q.val();
            self.l_psn_m1.d.next = self.p2_psn.q.val() - self.k_window.val();
            self.l_clear.d.next = self.p2_clear.q.val();
            self.l_commit.d.next = self.p2_commit.q.val();
            self.l_oh.d.next = self.p2_oh.q.val();
            self.l_lap.d.next = self.p2_lap.q.val();
            // the bitmap: the op 3 ahead (now in C) has written
            self.l_vpar.d.next = self.p2_vpar.q.val();
            if self.p2_smc.q.val() {
                self.l_vpar.d.next = self.c_par.q.val();
            }
            self.l_base_pre.d.next = self.base_pre.val();
            self.l_sma.d.next = self.p2_sma.q.val();
            self.l_smb.d.next = self.p2_smb.q.val();
            self.l_eb.d.next = self.p2_eb.q.val();
            self.l_wb.d.next = self.p2_wb.q.val();
            self.l_eqb.d.next = self.p2_eqb.q.val();
            self.l_ssb.d.next = self.p2_ssb.q.val();
            self.l_xb.d.next = self.p2_xb.q.val();
            self.l_kb.d.next = self.p2_kb.q.val();
            self.l_vb_pre.d.next = self.p2_rb.q.val();
            if self.p2_ss_ab.q.val() & self.p2_ea.q.val() & self.w_we.q.val() {
                self.l_vb_pre.d.next = self.p2_wa.q.val();
            } else if self.p2_ss_cb.q.val() & self.p2_ec.q.val() & self.c_we.q.val() {
                self.l_vb_pre.d.next = self.p2_wc.q.val();
            }
            self.l_hit_pre.d.next = self.p2_rq.q.val();
            if self.p2_ssa.q.val() & self.p2_ea.q.val() & self.w_we.q.val() {
                self.l_hit_pre.d.next = self.p2_eqa.q.val();
            } else if self.p2_ssc.q.val() & self.p2_ec.q.val() & self.c_we.q.val() {
                self.l_hit_pre.d.next = self.p2_eqc.q.val();
            }
            self.l_cand_ca.d.next = self.cand_c.val() | self.cand_a.val();
            self.l_x_ca.d.next = self.p2_xa.q.val();
            self.l_k_ca.d.next = self.p2_ka.q.val();
            self.l_ca_lt_b.d.next = self.p2_ka.q.val() < self.p2_kb.q.val();
            if self.take_c.val() {
                self.l_x_ca.d.next = self.p2_xc.q.val();
                self.l_k_ca.d.next = self.p2_kc.q.val();
                self.l_ca_lt_b.d.next = self.p2_kc.q.val() < self.p2_kb.q.val();
            }
            self.l_e1.d.next = self.s2_hi.val() | self.s2_pos.val();
            if self.s2_far.val() {
                self.l_e1.d.next = self.s2_hi_inc.val() | self.s2_pos.val();
            }
            self.l_k1.d.next = bit_cast::<9, 8>(self.s2_pos.val().get_bits::<8>(0)) | (bit_cast::<9, 1>(self.s2_far.val().into()) << 8);
            // L -> W: the op is applied (its effect on the state is final from here on)
            self.w_valid.d.next = self.l_valid.q.val() & !self.rst.val();
            self.w_ovalid.d.next = self.l_valid.q.val() & !self.rst.val();
            self.w_conn.d.next = self.l_conn.q.val();
            self.w_psn.d.next = self.l_psn.q.val();
            self.w_clear.d.next = self.l_clear.q.val();
            self.w_class.d.next = self.l_class.val();
            self.w_base.d.next = self.new_base.val();
            self.w_we.d.next = self.we.val() & self.l_valid.q.val() & !self.rst.val();
            self.w_fwd.d.next = self.l_smb.q.val();
            self.w_oh.d.next = self.l_oh.q.val();
            // decoded again from the PSN rather than carried from R0 (W flip-flops per stage)
            self.w_ge.d.next = self.k_ones.val() << (self.l_psn.q.val() & self.k_slot_mask.val());
            self.w_lap.d.next = self.l_lap.q.val();
            // the bitmap before this op, but for the op 1 ahead (forwarded in W): the op 2
            // ahead (now in C) has written
            self.w_parpre.d.next = self.l_vpar.q.val();
            if self.l_sma.q.val() {
                self.w_parpre.d.next = self.c_par.q.val();
            }
            // W -> C
            self.c_valid.d.next = self.w_ovalid.q.val();
            self.c_wvalid.d.next = self.w_valid.q.val();
            self.c_conn.d.next = self.w_conn.q.val();
            self.c_psn.d.next = self.w_psn.q.val();
            self.c_class.d.next = self.w_class.q.val();
            self.c_base.d.next = self.w_base.q.val();
            self.c_par.d.next = self.pa.val();
            self.c_recv.d.next = self.pa.val() ^ self.b_l.val();
            self.c_we.d.next = self.w_we.q.val();
            // C -> D -> E (the writes a RAM read can miss)
            self.d_wvalid.d.next = self.c_wvalid.q.val();
            self.d_conn.d.next = self.c_conn.q.val();
            self.d_par.d.next = self.c_par.q.val();
            self.d_base.d.next = self.c_base.q.val();
            self.e_wvalid.d.next = self.d_wvalid.q.val();
            self.e_conn.d.next = self.d_conn.q.val();
            self.e_par.d.next = self.d_par.q.val();
            self.e_base.d.next = self.d_base.q.val();
            // C -> C2 -> output: rotate to the base, count
            self.c2_valid.d.next = self.c_valid.q.val();
            self.c2_conn.d.next = self.c_conn.q.val();
            self.c2_psn.d.next = self.c_psn.q.val();
            self.c2_class.d.next = self.c_class.q.val();
            self.c2_base.d.next = self.c_base.q.val();
            self.c2_recv.d.next = self.out_rot_lo.y.val();
            self.o_valid.d.next = self.c2_valid.q.val();
            self.o_conn.d.next = self.c2_conn.q.val();
            self.o_psn.d.next = self.c2_psn.q.val();
            self.o_class.d.next = self.c2_class.q.val();
            self.o_base.d.next = self.c2_base.q.val();
            self.o_bitmap.d.next = self.out_rot_hi.y.val();
            if self.c2_valid.q.val() {
                if self.c2_class.q.val() == self.k_class_new.val() {
                    self.o_stat_new.d.next = self.o_stat_new.q.val() + 1;
                }
                if self.c2_class.q.val() == self.k_class_duplicate.val() {
                    self.o_stat_dup.d.next = self.o_stat_dup.q.val() + 1;
                }
                if self.c2_class.q.val() == self.k_class_out_of_window.val() {
                    self.o_stat_oow.d.next = self.o_stat_oow.q.val() + 1;
                }
                if self.c2_class.q.val() == self.k_class_cleared.val() {
                    self.o_stat_clr.d.next = self.o_stat_clr.q.val() + 1;
                }
            }
        }

        // ================= reset: control state only. Ops not yet applied (R0..L) are
        // dropped and no result leaves; the writes of applied ops (W, C, D, E) complete.
        if self.rst.val() {
            self.r0_valid.d.next = false;
            self.r_valid.d.next = false;
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
            self.l_valid.d.next = false;
            self.w_ovalid.d.next = false;
            self.c_valid.d.next = false;
            self.c2_valid.d.next = false;
            self.o_valid.d.next = false;
            self.o_stat_new.d.next = 0.into();
            self.o_stat_dup.d.next = 0.into();
            self.o_stat_oow.d.next = 0.into();
            self.o_stat_clr.d.next = 0.into();
        }

        // ================= outputs
        self.m_valid.next = self.o_valid.q.val();
        self.m_conn.next = self.o_conn.q.val();
        self.m_psn.next = self.o_psn.q.val();
        self.m_class.next = self.o_class.q.val();
        self.m_base.next = self.o_base.q.val();
        self.m_bitmap.next = self.o_bitmap.q.val();
        self.stat_new.next = self.o_stat_new.q.val();
        self.stat_duplicate.next = self.o_stat_dup.q.val();
        self.stat_out_of_window.next = self.o_stat_oow.q.val();
        self.stat_cleared.next = self.o_stat_clr.q.val();
    }
}

/// The SACK engine's config-to-generics table: the one place a configuration's sizes (the
/// top-level `connections` and `sack.window`) become const generics; gen, verif and fpga all
/// dispatch through it. The presets' sizes always have a row. Every other (connections,
/// window) pair of `mrnic_model::config::CONNECTIONS` x `SACK_WINDOWS` has one with the
/// `all-sizes` cargo feature (each instance is the whole engine monomorphised, about 18 s of
/// unoptimised compile time per crate that dispatches; all 20 doubled the CI's build time).
/// A crate that invokes this macro must declare `all-sizes = ["mrnic-hdl/all-sizes"]`: the
/// rows' `cfg` is evaluated in the invoking crate. Takes the whole `&Config`; binds `$c` (CONN_BITS) and `$w` (W) as
/// `const` items for `$body`, which evaluates to `Ok($body)`; an unsupported pair is refused
/// with the reason naming the field.
///
/// ```ignore
/// let verilog = mrnic_hdl::sack_generics!(&cfg, C, W => make::<SackEngine<C, W>>())?;
/// ```
#[macro_export]
macro_rules! sack_generics {
    ($cfg:expr, $c:ident, $w:ident => $body:expr) => {{
        let cfg: &$crate::mrnic_model::Config = $cfg;
        macro_rules! __sack_row {
            ($cb:literal, $wb:literal) => {{
                #[allow(non_upper_case_globals, dead_code)]
                const $c: usize = $cb;
                #[allow(non_upper_case_globals, dead_code)]
                const $w: usize = $wb;
                Ok($body)
            }};
        }
        match (cfg.connections, cfg.sack.window) {
            // the presets' sizes: always compiled
            (16, 64) => __sack_row!(4, 64),
            (16, 256) => __sack_row!(4, 256),
            (256, 64) => __sack_row!(8, 64),
            (256, 256) => __sack_row!(8, 256),
            (1024, 256) => __sack_row!(10, 256),
            #[cfg(feature = "all-sizes")]
            (16, 32) => __sack_row!(4, 32),
            #[cfg(feature = "all-sizes")]
            (16, 128) => __sack_row!(4, 128),
            #[cfg(feature = "all-sizes")]
            (64, 32) => __sack_row!(6, 32),
            #[cfg(feature = "all-sizes")]
            (64, 64) => __sack_row!(6, 64),
            #[cfg(feature = "all-sizes")]
            (64, 128) => __sack_row!(6, 128),
            #[cfg(feature = "all-sizes")]
            (64, 256) => __sack_row!(6, 256),
            #[cfg(feature = "all-sizes")]
            (256, 32) => __sack_row!(8, 32),
            #[cfg(feature = "all-sizes")]
            (256, 128) => __sack_row!(8, 128),
            #[cfg(feature = "all-sizes")]
            (1024, 32) => __sack_row!(10, 32),
            #[cfg(feature = "all-sizes")]
            (1024, 64) => __sack_row!(10, 64),
            #[cfg(feature = "all-sizes")]
            (1024, 128) => __sack_row!(10, 128),
            #[cfg(feature = "all-sizes")]
            (4096, 32) => __sack_row!(12, 32),
            #[cfg(feature = "all-sizes")]
            (4096, 64) => __sack_row!(12, 64),
            #[cfg(feature = "all-sizes")]
            (4096, 128) => __sack_row!(12, 128),
            #[cfg(feature = "all-sizes")]
            (4096, 256) => __sack_row!(12, 256),
            _ => cfg.validate_sizes().and_then(|_| Err($crate::mrnic_model::ConfigError::invalid("sack", format!(
                "no SackEngine instance for {} connections x {} bits in this build: only the presets' sizes are \
                 compiled by default (each instance costs minutes of compile time); rebuild with \
                 `--features all-sizes` for every valid size", cfg.connections, cfg.sack.window)))),
        }
    }};
}

/// Calls `$body` with `$ty` bound to the `SackEngine` type of the configuration (through
/// [`sack_generics!`]).
#[macro_export]
macro_rules! with_sack_engine {
    ($cfg:expr, $ty:ident => $body:expr) => {
        $crate::sack_generics!($cfg, __C, __W => {
            type $ty = $crate::sack::SackEngine<__C, __W>;
            $body
        })
    };
}

#[cfg(test)]
mod tests {
    use mrnic_model::config::{Config, CONNECTIONS, PRESETS, SACK_WINDOWS};
    use mrnic_model::SackConfig;

    fn dispatch(c: &Config) -> Result<(usize, usize), mrnic_model::ConfigError> {
        crate::sack_generics!(c, C, W => (C, W))
    }

    fn sized(connections: usize, window: usize) -> Config {
        Config { connections, sack: SackConfig { window }, ..Config::preset("default").unwrap() }
    }

    /// With `all-sizes` every valid pair dispatches to its own generics; without it, the
    /// presets' pairs do and every other valid pair is refused naming the feature.
    #[test]
    fn every_valid_connections_window_pair_dispatches_or_names_the_feature() {
        let preset_sizes: Vec<(usize, usize)> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).map(|c| (c.connections, c.sack.window)).collect();
        let (mut built, mut refused) = (0, 0);
        for &connections in CONNECTIONS {
            for &window in SACK_WINDOWS {
                let c = sized(connections, window);
                c.validate_sizes().unwrap();
                match dispatch(&c) {
                    Ok(g) => {
                        assert_eq!(g, (connections.trailing_zeros() as usize, window), "{connections} x {window}");
                        built += 1;
                    }
                    Err(e) => {
                        assert!(!cfg!(feature = "all-sizes") && !preset_sizes.contains(&(connections, window)), "{connections} x {window}: {e}");
                        assert!(e.to_string().contains("--features all-sizes"), "{e}");
                        refused += 1;
                    }
                }
            }
        }
        assert_eq!(built + refused, CONNECTIONS.len() * SACK_WINDOWS.len());
        if cfg!(feature = "all-sizes") {
            assert_eq!(refused, 0);
        } else {
            assert!(refused > 0 && built >= 5, "{built} built, {refused} refused");
        }
    }

    #[test]
    fn every_preset_dispatches_and_builds_its_engine() {
        for p in PRESETS {
            let cfg = Config::preset(p).unwrap();
            let (c, w) = dispatch(&cfg).unwrap();
            assert_eq!((1usize << c, w), (cfg.connections, cfg.sack.window), "preset {p}");
            crate::with_sack_engine!(&cfg, E => E::try_new().map(|_| ())).unwrap().unwrap();
        }
    }

    #[test]
    fn the_rtl_pipeline_constants_are_the_model_shells() {
        assert_eq!((super::LATENCY, super::APPLY_STAGE), (mrnic_model::sack::SACK_LATENCY, mrnic_model::sack::SACK_APPLY_STAGE));
    }

    #[test]
    fn an_unsupported_pair_is_refused_with_the_reason() {
        let e = dispatch(&sized(1000, 256)).unwrap_err();
        assert_eq!(e.field(), "connections", "{e}");
        assert!(e.to_string().contains("connections = 1000: not supported"), "{e}");
        let e = dispatch(&sized(1024, 512)).unwrap_err().to_string();
        assert!(e.contains("sack.window = 512: not supported"), "{e}");
    }
}
