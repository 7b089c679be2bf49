//! # SACK bitmap engine (receiver side)
//!
//! **Purpose.** For every data packet `(connection, PSN)` the engine classifies it as new,
//! duplicate or out of window, records it in the connection's 256-bit SACK bitmap, advances
//! the connection's base PSN over the run of received PSNs, and outputs the classification,
//! the new base and the bitmap relative to that base (what an ACK carries). A clear
//! operation sets a connection up (base = PSN, empty bitmap). Semantics: the golden model
//! `mrnic_model::sack` (this block is checked against it cycle by cycle).
//!
//! **Ports.**
//! - inputs: `clock`, `rst` (synchronous, active high); stream `s_valid`/`s_ready`,
//!   `s_conn` (`CONN_BITS`), `s_psn` (24), `s_clear` (1 = clear the connection to base `s_psn`);
//!   `m_ready`.
//! - outputs: stream `m_valid`/`m_ready`, `m_conn`, `m_psn` (echo of the operation),
//!   `m_class` (2: 0 new, 1 duplicate, 2 out of window, 3 cleared), `m_base` (24: base after
//!   the operation), `m_bitmap` (`W`: bit i = PSN `m_base + i` received; bit 0 is always 0).
//! - config: `CONN_BITS` (connections = 2^CONN_BITS, the block RAM depth), `W` (window width,
//!   32/64/128/256) as const generics.
//! - status: `stat_new`, `stat_duplicate`, `stat_out_of_window`, `stat_cleared` (32-bit,
//!   wrapping; counted as results enter the output register).
//!
//! **Latency** 4 cycles from an input transfer to `m_valid`. **Initiation interval** 1,
//! including back-to-back packets of the same connection (no stall: forwarding).
//!
//! **Pipeline** (wide read-modify-write, pipelined around a one-cycle loop).
//! - A (input): the RAM read is issued at `s_conn`.
//! - R (RAM read): the RAM word arrives; the last two writes (`fw_*`, `fw2_*`), which may be
//!   missing from it, are merged in here, a stage early. The slot one-hot and the "slot and above"
//!   thermometer (PSN only) are registered, and the loop's forwarding select `b_fwd` is
//!   precomputed as one flip-flop.
//! - B (the loop): state = merged read word, or the write B made the cycle before (2:1 mux,
//!   select = flip-flop). Bit set, run detection (two Kogge-Stone prefix-AND trees,
//!   [`crate::prim::PrefixAnd`]), first-zero encoders ([`crate::prim::FirstZero`]), base advance; the 24-bit window test, PSN == base and the base's
//!   upper-bits increment run beside the trees and only drive the final selects. The result
//!   goes to the register `fw_*`; the RAM is written from `fw_*` one cycle later, so the block
//!   RAMs' inputs are off the loop. The bitmap is circular (slot = PSN mod W): no
//!   shifter in the loop.
//! - C -> output: rotate the circular bitmap to the new base (log-depth barrel
//!   rotator, [`crate::prim::RotateRight`]).
//!
//! **Combinational paths.** `m_ready -> s_ready` (global stall) and `m_ready -> RAM read
//! address` (a stalled stage R re-reads its connection). No path from `s_*` to `m_*`.
//!
//! **Hazards.** A RAM word can miss the three most recent results: the two before its R
//! stage (merged at R from `fw_*`/`fw2_*`, the newer first) and the one computed while it is
//! in R (forwarded by `b_fwd`). Merging a result that already reached the RAM is harmless:
//! it is the last write to that connection. While stalled, R re-reads its connection each cycle (no writes happen during a
//! stall), so the held word stays fresh.
//!
//! **Reset** clears the valid bits, the forwarding register's valid bit and the counters.
//! Connection state (RAM) is data and is not reset: clear each connection at setup. The RAM
//! powers up zeroed on FPGAs (base 0, empty bitmap), which is what the model assumes.
//! During reset `s_ready` is low and nothing is written.

use crate::prim::{mask, FirstZero, PrefixAnd, RotateRight};
use mrnic_model::config::ConfigError;
use rust_hdl::prelude::*;

/// Classification codes on `m_class` (the same as `mrnic_model::sack::Class`).
pub const CLASS_NEW: u64 = 0;
pub const CLASS_DUPLICATE: u64 = 1;
pub const CLASS_OUT_OF_WINDOW: u64 = 2;
pub const CLASS_CLEARED: u64 = 3;

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
    // ---- connection state
    ram_base: RAM<Bits<24>, CONN_BITS>,
    ram_bitmap: RAM<Bits<W>, CONN_BITS>,
    // ---- stage R registers (RAM read in flight)
    r_valid: DFF<bool>,
    r_conn: DFF<Bits<CONN_BITS>>,
    r_psn: DFF<Bits<24>>,
    r_clear: DFF<bool>,
    r_commit: DFF<bool>,
    // ---- stage B registers
    b_valid: DFF<bool>,
    b_conn: DFF<Bits<CONN_BITS>>,
    b_psn: DFF<Bits<24>>,
    b_clear: DFF<bool>,
    b_commit: DFF<bool>,
    b_onehot: DFF<Bits<W>>,
    b_ge: DFF<Bits<W>>,
    b_gt: DFF<Bits<W>>,
    b_psn_hi_prev: DFF<Bits<24>>,
    b_fwd: DFF<bool>,
    b_base_rd: DFF<Bits<24>>,
    b_bitmap_rd: DFF<Bits<W>>,
    // ---- forwarding register: the last write
    fw_valid: DFF<bool>,
    fw_conn: DFF<Bits<CONN_BITS>>,
    fw_base: DFF<Bits<24>>,
    fw_bitmap: DFF<Bits<W>>,
    // ---- the write before the last one, and the RAM write (one cycle after the loop)
    fw2_valid: DFF<bool>,
    fw2_conn: DFF<Bits<CONN_BITS>>,
    fw2_base: DFF<Bits<24>>,
    fw2_bitmap: DFF<Bits<W>>,
    fw_we: DFF<bool>,
    // ---- stage C registers (bitmap still circular)
    c_valid: DFF<bool>,
    c_conn: DFF<Bits<CONN_BITS>>,
    c_psn: DFF<Bits<24>>,
    c_class: DFF<Bits<2>>,
    c_base: DFF<Bits<24>>,
    c_bitmap: DFF<Bits<W>>,
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
    b_fire: Signal<Local, bool>,
    r_slot: Signal<Local, Bits<24>>,
    r_fw_hit: Signal<Local, bool>,
    r_fw2_hit: Signal<Local, bool>,
    base_hi: Signal<Local, Bits<24>>,
    base_hi_next: Signal<Local, Bits<24>>,
    cur_base: Signal<Local, Bits<24>>,
    cur_bitmap: Signal<Local, Bits<W>>,
    diff: Signal<Local, Bits<24>>,
    is_base: Signal<Local, bool>,
    in_win: Signal<Local, bool>,
    cls_in_win: Signal<Local, bool>,
    same_hi: Signal<Local, bool>,
    prev_hi: Signal<Local, bool>,
    low_le: Signal<Local, bool>,
    hit: Signal<Local, bool>,
    b_class: Signal<Local, Bits<2>>,
    set_bm: Signal<Local, Bits<W>>,
    run_y: Signal<Local, Bits<W>>,
    all_hi: Signal<Local, bool>,
    full: Signal<Local, bool>,
    run_mask: Signal<Local, Bits<W>>,
    b_slot: Signal<Local, Bits<24>>,
    p_index: Signal<Local, Bits<24>>,
    adv_base: Signal<Local, Bits<24>>,
    new_base: Signal<Local, Bits<24>>,
    new_bitmap: Signal<Local, Bits<W>>,
    // ---- primitives: the loop's two run trees and encoders, the output rotator
    /// Run from the packet's slot upward (bits below the slot forced to 1).
    run_hi: PrefixAnd<W>,
    /// Run from slot 0 (the wrap-around part).
    run_lo: PrefixAnd<W>,
    enc_hi: FirstZero<W, 24>,
    enc_lo: FirstZero<W, 24>,
    out_rot: RotateRight<W>,
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
            ram_bitmap: Default::default(),
            r_valid: Default::default(),
            r_conn: Default::default(),
            r_psn: Default::default(),
            r_clear: Default::default(),
            r_commit: Default::default(),
            b_valid: Default::default(),
            b_conn: Default::default(),
            b_psn: Default::default(),
            b_clear: Default::default(),
            b_commit: Default::default(),
            b_onehot: Default::default(),
            b_ge: Default::default(),
            b_gt: Default::default(),
            b_psn_hi_prev: Default::default(),
            b_fwd: Default::default(),
            b_base_rd: Default::default(),
            b_bitmap_rd: Default::default(),
            fw_valid: Default::default(),
            fw_conn: Default::default(),
            fw_base: Default::default(),
            fw_bitmap: Default::default(),
            fw2_valid: Default::default(),
            fw2_conn: Default::default(),
            fw2_base: Default::default(),
            fw2_bitmap: Default::default(),
            fw_we: Default::default(),
            c_valid: Default::default(),
            c_conn: Default::default(),
            c_psn: Default::default(),
            c_class: Default::default(),
            c_base: Default::default(),
            c_bitmap: Default::default(),
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
            b_fire: Default::default(),
            r_slot: Default::default(),
            r_fw_hit: Default::default(),
            r_fw2_hit: Default::default(),
            base_hi: Default::default(),
            base_hi_next: Default::default(),
            cur_base: Default::default(),
            cur_bitmap: Default::default(),
            diff: Default::default(),
            is_base: Default::default(),
            in_win: Default::default(),
            cls_in_win: Default::default(),
            same_hi: Default::default(),
            prev_hi: Default::default(),
            low_le: Default::default(),
            hit: Default::default(),
            b_class: Default::default(),
            set_bm: Default::default(),
            run_y: Default::default(),
            all_hi: Default::default(),
            full: Default::default(),
            run_mask: Default::default(),
            b_slot: Default::default(),
            p_index: Default::default(),
            adv_base: Default::default(),
            new_base: Default::default(),
            new_bitmap: Default::default(),
            run_hi: PrefixAnd::new(),
            run_lo: PrefixAnd::new(),
            enc_hi: FirstZero::new(),
            enc_lo: FirstZero::new(),
            out_rot: RotateRight::new(),
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
        // ---------------- defaults: clocks, registers hold, locals zero
        self.ram_base.read_clock.next = self.clock.val();
        self.ram_base.write_clock.next = self.clock.val();
        self.ram_bitmap.read_clock.next = self.clock.val();
        self.ram_bitmap.write_clock.next = self.clock.val();
        dff_setup!(
            self, clock, r_valid, r_conn, r_psn, r_clear, r_commit, b_commit, b_base_rd, b_bitmap_rd, b_valid, b_conn, b_psn, b_clear, b_onehot, b_ge, b_gt, b_psn_hi_prev, b_fwd, fw_valid, fw_conn,
            fw_base, fw_bitmap, fw2_valid, fw2_conn, fw2_base, fw2_bitmap, fw_we, c_valid, c_conn, c_psn, c_class, c_base, c_bitmap, o_valid, o_conn,
            o_psn, o_class, o_base, o_bitmap, o_stat_new, o_stat_dup, o_stat_oow, o_stat_clr
        );

        // ---------------- stage A: accept, issue the RAM read, precompute PSN masks
        self.stall.next = self.o_valid.q.val() & !self.m_ready.val();
        self.s_ready.next = !self.stall.val() & !self.rst.val();
        self.b_fire.next = self.b_valid.q.val() & !self.stall.val() & !self.rst.val();
        self.ram_base.read_address.next = self.s_conn.val();
        self.ram_bitmap.read_address.next = self.s_conn.val();
        if self.stall.val() {
            self.ram_base.read_address.next = self.r_conn.q.val();
            self.ram_bitmap.read_address.next = self.r_conn.q.val();
        }

        // ---------------- stage R: the RAM word arrives; merge the last write into it
        // (the write of the cycle before may be missing from the read); the write B makes
        // in this same cycle is forwarded next cycle through `b_fwd`.
        self.r_slot.next = self.r_psn.q.val() & self.k_slot_mask.val();
        self.r_fw_hit.next = self.fw_valid.q.val() & (self.fw_conn.q.val() == self.r_conn.q.val());
        self.r_fw2_hit.next = self.fw2_valid.q.val() & (self.fw2_conn.q.val() == self.r_conn.q.val());

        // ---------------- stage B: read-modify-write of the connection state
        self.cur_base.next = self.b_base_rd.q.val();
        self.cur_bitmap.next = self.b_bitmap_rd.q.val();
        if self.b_fwd.q.val() {
            self.cur_base.next = self.fw_base.q.val();
            self.cur_bitmap.next = self.fw_bitmap.q.val();
        }
        self.diff.next = self.b_psn.q.val() - self.cur_base.val();
        self.b_slot.next = self.b_psn.q.val() & self.k_slot_mask.val();
        self.base_hi.next = self.cur_base.val() & self.k_hi_mask.val();
        self.is_base.next = self.b_psn.q.val() == self.cur_base.val();
        // In window (0 <= PSN - base < W) without a 24-bit subtraction on the loop: the PSN is
        // in the base's W-aligned block at or above the base's slot, or in the next block
        // below it (the PSN's block minus one is precomputed at R).
        self.same_hi.next = self.base_hi.val() == (self.b_psn.q.val() & self.k_hi_mask.val());
        self.prev_hi.next = self.base_hi.val() == self.b_psn_hi_prev.q.val();
        self.low_le.next = (self.cur_base.val() & self.k_slot_mask.val()) <= self.b_slot.val();
        self.in_win.next = (self.same_hi.val() & self.low_le.val()) | (self.prev_hi.val() & !self.low_le.val());
        // The classification (off the loop: it only goes to stage C) uses the plain distance.
        self.cls_in_win.next = self.diff.val() < self.k_window.val();
        self.hit.next = (self.cur_bitmap.val() & self.b_onehot.q.val()).any();
        self.b_class.next = self.k_class_new.val();
        if self.b_clear.q.val() {
            self.b_class.next = self.k_class_cleared.val();
        } else if self.diff.val().get_bit(23) {
            self.b_class.next = self.k_class_duplicate.val();
        } else if !self.cls_in_win.val() {
            self.b_class.next = self.k_class_out_of_window.val();
        } else if self.hit.val() {
            self.b_class.next = self.k_class_duplicate.val();
        }
        // Set the packet's bit unconditionally; whether the result is kept (in window) is a
        // select at the end, so the 24-bit window test runs beside the trees, not before them.
        self.set_bm.next = self.cur_bitmap.val() | self.b_onehot.q.val();
        // Run from the packet's slot upward: prefix-AND of the bitmap with the slots below
        // forced to 1 (run_hi), and from slot 0 for the wrap-around part (run_lo): two
        // Kogge-Stone trees (prim::PrefixAnd), each followed by its first-zero encoder.
        // (cur | onehot | below-slot) == (cur | not-above-slot): one level, the mux folded in.
        self.run_y.next = self.cur_bitmap.val() | !self.b_gt.q.val();
        self.run_hi.a.next = self.run_y.val();
        self.run_lo.a.next = self.set_bm.val();
        self.all_hi.next = self.run_y.val().all();
        self.full.next = self.set_bm.val().all();
        self.run_mask.next = self.run_hi.y.val() & self.b_ge.q.val();
        if self.all_hi.val() {
            self.run_mask.next = (self.run_hi.y.val() & self.b_ge.q.val()) | (self.run_lo.y.val() & !self.b_ge.q.val());
        }
        // The trees' outputs are thermometers (ones below the first zero): their counts are
        // the first zero's index, encoded directly (prim::FirstZero), and selected last.
        self.enc_hi.t.next = self.run_hi.y.val();
        self.enc_lo.t.next = self.run_lo.y.val();
        self.p_index.next = self.enc_hi.index.val();
        if self.full.val() {
            self.p_index.next = self.b_slot.val();
        } else if self.all_hi.val() {
            self.p_index.next = self.enc_lo.index.val();
        }
        // The base's slot bits become the first zero's index; the bits above step by one
        // window when the run wrapped (the increment is computed beside the trees).
        self.base_hi_next.next = self.base_hi.val() + self.k_window.val();
        self.adv_base.next = self.base_hi.val() | self.p_index.val();
        if self.all_hi.val() {
            self.adv_base.next = self.base_hi_next.val() | self.p_index.val();
        }
        self.new_base.next = self.cur_base.val();
        self.new_bitmap.next = self.set_bm.val();
        if self.b_clear.q.val() {
            self.new_base.next = self.b_psn.q.val();
            self.new_bitmap.next = self.k_zero.val();
        } else if !self.b_commit.q.val() {
            self.new_bitmap.next = self.cur_bitmap.val();
        } else if self.is_base.val() {
            self.new_base.next = self.adv_base.val();
            self.new_bitmap.next = self.set_bm.val() & !self.run_mask.val();
        } else if !self.in_win.val() {
            self.new_bitmap.next = self.cur_bitmap.val();
        }
        // Remember the write (the loop's register); the RAM is written from that register one
        // cycle later, so the block RAMs' inputs are not on the loop. The two writes a read can
        // then miss are merged at stage R from fw_* and fw2_*.
        self.ram_base.write_address.next = self.fw_conn.q.val();
        self.ram_bitmap.write_address.next = self.fw_conn.q.val();
        self.ram_base.write_data.next = self.fw_base.q.val();
        self.ram_bitmap.write_data.next = self.fw_bitmap.q.val();
        self.ram_base.write_enable.next = self.fw_we.q.val();
        self.ram_bitmap.write_enable.next = self.fw_we.q.val();
        self.fw_we.d.next = self.b_fire.val();
        if self.b_fire.val() {
            self.fw2_valid.d.next = self.fw_valid.q.val();
            self.fw2_conn.d.next = self.fw_conn.q.val();
            self.fw2_base.d.next = self.fw_base.q.val();
            self.fw2_bitmap.d.next = self.fw_bitmap.q.val();
            self.fw_valid.d.next = true;
            self.fw_conn.d.next = self.b_conn.q.val();
            self.fw_base.d.next = self.new_base.val();
            self.fw_bitmap.d.next = self.new_bitmap.val();
        }

        // ---------------- stage C -> output: rotate to the base, count
        self.out_rot.a.next = self.c_bitmap.q.val();
        // The base's slot: its low bits (the rotator takes the amount mod W).
        self.out_rot.amount.next = self.c_base.q.val().get_bits::<8>(0);
        if !self.stall.val() {
            // A -> R
            self.r_valid.d.next = self.s_valid.val();
            self.r_conn.d.next = self.s_conn.val();
            self.r_psn.d.next = self.s_psn.val();
            self.r_clear.d.next = self.s_clear.val();
            self.r_commit.d.next = self.s_commit.val();
            // R -> B
            self.b_valid.d.next = self.r_valid.q.val();
            self.b_conn.d.next = self.r_conn.q.val();
            self.b_psn.d.next = self.r_psn.q.val();
            self.b_clear.d.next = self.r_clear.q.val();
            self.b_commit.d.next = self.r_commit.q.val();
            self.b_onehot.d.next = self.k_one.val() << self.r_slot.val();
            self.b_ge.d.next = self.k_ones.val() << self.r_slot.val();
            self.b_gt.d.next = (self.k_ones.val() << self.r_slot.val()) << 1;
            self.b_psn_hi_prev.d.next = (self.r_psn.q.val() & self.k_hi_mask.val()) - self.k_window.val();
            self.b_base_rd.d.next = self.ram_base.read_data.val();
            self.b_bitmap_rd.d.next = self.ram_bitmap.read_data.val();
            if self.r_fw_hit.val() {
                self.b_base_rd.d.next = self.fw_base.q.val();
                self.b_bitmap_rd.d.next = self.fw_bitmap.q.val();
            } else if self.r_fw2_hit.val() {
                self.b_base_rd.d.next = self.fw2_base.q.val();
                self.b_bitmap_rd.d.next = self.fw2_bitmap.q.val();
            }
            self.b_fwd.d.next = self.b_valid.q.val() & (self.b_conn.q.val() == self.r_conn.q.val());
            // B -> C
            self.c_valid.d.next = self.b_valid.q.val();
            self.c_conn.d.next = self.b_conn.q.val();
            self.c_psn.d.next = self.b_psn.q.val();
            self.c_class.d.next = self.b_class.val();
            self.c_base.d.next = self.new_base.val();
            self.c_bitmap.d.next = self.new_bitmap.val();
            // C -> output
            self.o_valid.d.next = self.c_valid.q.val();
            self.o_conn.d.next = self.c_conn.q.val();
            self.o_psn.d.next = self.c_psn.q.val();
            self.o_class.d.next = self.c_class.q.val();
            self.o_base.d.next = self.c_base.q.val();
            self.o_bitmap.d.next = self.out_rot.y.val();
            if self.c_valid.q.val() {
                if self.c_class.q.val() == self.k_class_new.val() {
                    self.o_stat_new.d.next = self.o_stat_new.q.val() + 1;
                }
                if self.c_class.q.val() == self.k_class_duplicate.val() {
                    self.o_stat_dup.d.next = self.o_stat_dup.q.val() + 1;
                }
                if self.c_class.q.val() == self.k_class_out_of_window.val() {
                    self.o_stat_oow.d.next = self.o_stat_oow.q.val() + 1;
                }
                if self.c_class.q.val() == self.k_class_cleared.val() {
                    self.o_stat_clr.d.next = self.o_stat_clr.q.val() + 1;
                }
            }
        }

        // ---------------- reset: control state only
        if self.rst.val() {
            self.r_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.o_valid.d.next = false;
            self.fw_valid.d.next = false;
            self.fw2_valid.d.next = false;
            self.o_stat_new.d.next = 0.into();
            self.o_stat_dup.d.next = 0.into();
            self.o_stat_oow.d.next = 0.into();
            self.o_stat_clr.d.next = 0.into();
        }

        // ---------------- outputs
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
/// top-level `connections` and `sack.window`) become const generics. Every (connections,
/// window) pair of `mrnic_model::config::CONNECTIONS` x `SACK_WINDOWS` has a row, so every
/// valid configuration (every preset among them) has an instance; gen, verif and fpga all
/// dispatch through it. Takes the whole `&Config`; binds `$c` (CONN_BITS) and `$w` (W) as
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
            (16, 32) => __sack_row!(4, 32),
            (16, 64) => __sack_row!(4, 64),
            (16, 128) => __sack_row!(4, 128),
            (16, 256) => __sack_row!(4, 256),
            (64, 32) => __sack_row!(6, 32),
            (64, 64) => __sack_row!(6, 64),
            (64, 128) => __sack_row!(6, 128),
            (64, 256) => __sack_row!(6, 256),
            (256, 32) => __sack_row!(8, 32),
            (256, 64) => __sack_row!(8, 64),
            (256, 128) => __sack_row!(8, 128),
            (256, 256) => __sack_row!(8, 256),
            (1024, 32) => __sack_row!(10, 32),
            (1024, 64) => __sack_row!(10, 64),
            (1024, 128) => __sack_row!(10, 128),
            (1024, 256) => __sack_row!(10, 256),
            (4096, 32) => __sack_row!(12, 32),
            (4096, 64) => __sack_row!(12, 64),
            (4096, 128) => __sack_row!(12, 128),
            (4096, 256) => __sack_row!(12, 256),
            _ => cfg.validate_sizes().and_then(|_| Err($crate::mrnic_model::ConfigError::invalid("sack", format!(
                "no SackEngine instance for {} connections x {} bits", cfg.connections, cfg.sack.window)))),
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

    #[test]
    fn every_valid_connections_window_pair_dispatches_to_its_own_generics() {
        let mut n = 0;
        for &connections in CONNECTIONS {
            for &window in SACK_WINDOWS {
                let c = sized(connections, window);
                c.validate_sizes().unwrap();
                assert_eq!(dispatch(&c).ok(), Some((connections.trailing_zeros() as usize, window)), "{connections} x {window}");
                n += 1;
            }
        }
        assert_eq!(n, CONNECTIONS.len() * SACK_WINDOWS.len());
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
    fn an_unsupported_pair_is_refused_with_the_reason() {
        let e = dispatch(&sized(1000, 256)).unwrap_err();
        assert_eq!(e.field(), "connections", "{e}");
        assert!(e.to_string().contains("connections = 1000: not supported"), "{e}");
        let e = dispatch(&sized(1024, 512)).unwrap_err().to_string();
        assert!(e.contains("sack.window = 512: not supported"), "{e}");
    }
}
