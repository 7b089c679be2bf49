//! The SACK bitmap engine's FPGA harness (`mrnic_hdl::sack::SackEngine`): registered
//! inputs driven by two LFSRs after a power-on reset, registered outputs folded onto the LEDs.
//!
//! [`ENTRY`] is its row in the block registry ([`super::HARNESSES`]); [`board_verilog`]
//! sizes it from a configuration through `mrnic_hdl::sack_generics!` (the engine's one
//! config-to-generics table).

use super::{BlockHarness, HarnessEntry, LedFold, Lfsr32, PowerOnReset};
use crate::boards::Board;
use crate::error::FpgaError;
use mrnic_hdl::sack::SackEngine;
use mrnic_model::{Config, ConfigError};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The SACK engine's row in the block registry.
pub const ENTRY: HarnessEntry = HarnessEntry {
    name: "sack",
    description: "receiver SACK bitmap engine (mrnic_hdl::sack::SackEngine)",
    board_verilog,
    parameters,
    ops_per_cycle: 1.0,
};

/// The Verilog of `board`'s top around a SACK harness sized by `config` (its
/// `connections` and `sack.window`).
pub fn board_verilog(board: &Board, config: &Config) -> Result<String, FpgaError> {
    config.validate()?;
    mrnic_hdl::sack_generics!(config, C, W => {
        board.verilog(SackHarness::<C, W>::try_new()?)
    })?
}

/// The sizes the summary reports.
pub fn parameters(config: &Config) -> BTreeMap<String, u64> {
    BTreeMap::from([
        ("connections".to_string(), config.connections as u64),
        ("window".to_string(), config.sack.window as u64),
    ])
}

/// The SACK engine wrapped in its stimulus. `CONN_BITS`/`W` are the engine's.
///
/// Stimulus (all registered, AXI-stream correct: an op is held while `s_ready` is low):
/// - `cnt` counts accepted ops. Most ops go round-robin over 16 connections
///   (`conn = {cnt[CONN_BITS+11:16], cnt[3:0]}`) with `psn = cnt >> 4`, i.e. in order per
///   connection; the connection group changes every 65536 ops.
/// - LFSR A picks a PSN offset: 10/16 in order, 2/16 duplicates (1..4 back), 2/16 gaps
///   (1..16 ahead), 1/16 out of window (256..511 ahead), 1/16 far behind (2^23 + r: behind
///   in serial arithmetic). 1/16 of the ops use a random connection instead, 1/16 are clears
///   (`base := psn`). LFSR A also drives `s_commit`: 7/8 of the ops are committed, 1/8 only
///   classified (a clear ignores it).
/// - LFSR B drives `s_valid` (7/8) and `m_ready` (3/4).
///
/// Outputs: every output of the block is registered and XOR-folded into 32 bits a cycle;
/// [`LedFold`] accumulates that word onto the 8 LEDs, so nothing is removed.
#[derive(LogicBlock)]
pub struct SackHarness<const CONN_BITS: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub leds: Signal<Out, Bits<8>>,
    por: PowerOnReset,
    lfsr_a: Lfsr32,
    lfsr_b: Lfsr32,
    pub dut: SackEngine<CONN_BITS, W>,
    // op generator
    cnt: DFF<Bits<32>>,
    cnt1: DFF<Bits<32>>,
    fire: Signal<Local, bool>,
    load: Signal<Local, bool>,
    base: Signal<Local, Bits<32>>,
    base_psn: Signal<Local, Bits<24>>,
    conn_rr: Signal<Local, Bits<32>>,
    sel: Signal<Local, Bits<4>>,
    psn_off: Signal<Local, Bits<24>>,
    // registered inputs of the block
    s_valid: DFF<bool>,
    s_conn: DFF<Bits<CONN_BITS>>,
    s_psn: DFF<Bits<24>>,
    s_clear: DFF<bool>,
    s_commit: DFF<bool>,
    m_ready: DFF<bool>,
    // registered outputs of the block
    r_s_ready: DFF<bool>,
    r_m_valid: DFF<bool>,
    r_m_conn: DFF<Bits<CONN_BITS>>,
    r_m_psn: DFF<Bits<24>>,
    r_m_class: DFF<Bits<2>>,
    r_m_base: DFF<Bits<24>>,
    r_m_bitmap: DFF<Bits<W>>,
    r_stat_new: DFF<Bits<32>>,
    r_stat_duplicate: DFF<Bits<32>>,
    r_stat_out_of_window: DFF<Bits<32>>,
    r_stat_cleared: DFF<Bits<32>>,
    // output fold
    f1: Signal<Local, Bits<W>>,
    f2: Signal<Local, Bits<W>>,
    f3: Signal<Local, Bits<W>>,
    fold: DFF<Bits<32>>,
    led_fold: LedFold,
}

impl<const CONN_BITS: usize, const W: usize> SackHarness<CONN_BITS, W> {
    /// Refuses what the engine refuses (`SackEngine::try_new`); the output fold handles
    /// every supported window (32..=256 bits).
    pub fn try_new() -> Result<Self, ConfigError> {
        let dut = SackEngine::<CONN_BITS, W>::try_new()?;
        Ok(Self {
            clock: Default::default(),
            leds: Default::default(),
            por: Default::default(),
            lfsr_a: Lfsr32::new(0xACE1_2468),
            lfsr_b: Lfsr32::new(0x1357_9BDF),
            dut,
            cnt: Default::default(),
            cnt1: Default::default(),
            fire: Default::default(),
            load: Default::default(),
            base: Default::default(),
            base_psn: Default::default(),
            conn_rr: Default::default(),
            sel: Default::default(),
            psn_off: Default::default(),
            s_valid: Default::default(),
            s_conn: Default::default(),
            s_psn: Default::default(),
            s_clear: Default::default(),
            s_commit: Default::default(),
            m_ready: Default::default(),
            r_s_ready: Default::default(),
            r_m_valid: Default::default(),
            r_m_conn: Default::default(),
            r_m_psn: Default::default(),
            r_m_class: Default::default(),
            r_m_base: Default::default(),
            r_m_bitmap: Default::default(),
            r_stat_new: Default::default(),
            r_stat_duplicate: Default::default(),
            r_stat_out_of_window: Default::default(),
            r_stat_cleared: Default::default(),
            f1: Default::default(),
            f2: Default::default(),
            f3: Default::default(),
            fold: Default::default(),
            led_fold: Default::default(),
        })
    }
}

impl<const CONN_BITS: usize, const W: usize> BlockHarness for SackHarness<CONN_BITS, W> {
    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn leds(&self) -> &Signal<Out, Bits<8>> {
        &self.leds
    }
}

impl<const CONN_BITS: usize, const W: usize> Logic for SackHarness<CONN_BITS, W> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, por, lfsr_a, lfsr_b, led_fold);
        self.lfsr_a.rst.next = self.por.rst.val();
        self.lfsr_b.rst.next = self.por.rst.val();
        self.dut.clock.next = self.clock.val();
        self.dut.rst.next = self.por.rst.val();
        dff_setup!(
            self, clock, cnt, cnt1, s_valid, s_conn, s_psn, s_clear, s_commit, m_ready, r_s_ready,
            r_m_valid, r_m_conn, r_m_psn, r_m_class, r_m_base, r_m_bitmap, r_stat_new,
            r_stat_duplicate, r_stat_out_of_window, r_stat_cleared, fold
        );

        // --- op generator ---
        self.fire.next = self.s_valid.q.val() && self.dut.s_ready.val();
        self.load.next = !self.s_valid.q.val() || self.dut.s_ready.val();
        // The op being built is number cnt+1 when the current (valid) one is consumed,
        // number cnt when the current slot is a bubble.
        if self.s_valid.q.val() {
            self.base.next = self.cnt1.q.val();
        } else {
            self.base.next = self.cnt.q.val();
        }
        self.base_psn.next = bit_cast::<24, 32>(self.base.val() >> 4);
        self.conn_rr.next = (self.base.val() & 0xF) | ((self.base.val() >> 16) << 4);
        self.sel.next = self.lfsr_a.out.val().get_bits::<4>(0);
        if self.sel.val() < 10 {
            self.psn_off.next = 0.into();
        } else if self.sel.val() < 12 {
            self.psn_off.next =
                bits::<24>(0xFF_FFFF) - bit_cast::<24, 2>(self.lfsr_a.out.val().get_bits::<2>(4));
        } else if self.sel.val() < 14 {
            self.psn_off.next =
                bit_cast::<24, 4>(self.lfsr_a.out.val().get_bits::<4>(4)) + 1;
        } else if self.sel.val() == 14 {
            self.psn_off.next =
                bit_cast::<24, 8>(self.lfsr_a.out.val().get_bits::<8>(4)) + 0x100;
        } else {
            self.psn_off.next =
                bit_cast::<24, 20>(self.lfsr_a.out.val().get_bits::<20>(4)) | 0x80_0000;
        }
        if self.fire.val() {
            self.cnt.d.next = self.cnt1.q.val();
            self.cnt1.d.next = self.cnt1.q.val() + 1;
        }
        if self.load.val() {
            self.s_valid.d.next = self.lfsr_b.out.val().get_bits::<3>(0) != 0;
            self.s_clear.d.next = self.lfsr_a.out.val().get_bits::<4>(24) == 0;
            self.s_commit.d.next = self.lfsr_a.out.val().get_bits::<3>(28) != 0;
            if self.lfsr_a.out.val().get_bits::<4>(20) == 0 {
                self.s_conn.d.next = bit_cast::<CONN_BITS, 32>(self.lfsr_b.out.val() >> 8);
            } else {
                self.s_conn.d.next = bit_cast::<CONN_BITS, 32>(self.conn_rr.val());
            }
            if self.lfsr_a.out.val().get_bits::<4>(24) == 0 {
                self.s_psn.d.next = self.base_psn.val();
            } else {
                self.s_psn.d.next = self.base_psn.val() + self.psn_off.val();
            }
        }
        self.m_ready.d.next = self.lfsr_b.out.val().get_bit(12) || self.lfsr_b.out.val().get_bit(17);
        if self.por.rst.val() {
            self.s_valid.d.next = false;
            self.cnt.d.next = 0.into();
            self.cnt1.d.next = 1.into();
        }

        // --- the block under test, between registers ---
        self.dut.s_valid.next = self.s_valid.q.val();
        self.dut.s_conn.next = self.s_conn.q.val();
        self.dut.s_psn.next = self.s_psn.q.val();
        self.dut.s_clear.next = self.s_clear.q.val();
        self.dut.s_commit.next = self.s_commit.q.val();
        self.dut.m_ready.next = self.m_ready.q.val();
        self.r_s_ready.d.next = self.dut.s_ready.val();
        self.r_m_valid.d.next = self.dut.m_valid.val();
        self.r_m_conn.d.next = self.dut.m_conn.val();
        self.r_m_psn.d.next = self.dut.m_psn.val();
        self.r_m_class.d.next = self.dut.m_class.val();
        self.r_m_base.d.next = self.dut.m_base.val();
        self.r_m_bitmap.d.next = self.dut.m_bitmap.val();
        self.r_stat_new.d.next = self.dut.stat_new.val();
        self.r_stat_duplicate.d.next = self.dut.stat_duplicate.val();
        self.r_stat_out_of_window.d.next = self.dut.stat_out_of_window.val();
        self.r_stat_cleared.d.next = self.dut.stat_cleared.val();

        // --- fold every output onto the LEDs ---
        // Halving XOR folds: the low 32 bits of f3 are the XOR of all 32-bit slices.
        self.f1.next = self.r_m_bitmap.q.val() ^ (self.r_m_bitmap.q.val() >> 128);
        self.f2.next = self.f1.val() ^ (self.f1.val() >> 64);
        self.f3.next = self.f2.val() ^ (self.f2.val() >> 32);
        self.fold.d.next = bit_cast::<32, W>(self.f3.val())
            ^ bit_cast::<32, 24>(self.r_m_psn.q.val())
            ^ (bit_cast::<32, 24>(self.r_m_base.q.val()) << 8)
            ^ (bit_cast::<32, CONN_BITS>(self.r_m_conn.q.val()) << 13)
            ^ (bit_cast::<32, 2>(self.r_m_class.q.val()) << 29)
            ^ (bit_cast::<32, 1>(self.r_m_valid.q.val().into()) << 31)
            ^ (bit_cast::<32, 1>(self.r_s_ready.q.val().into()) << 27)
            ^ self.r_stat_new.q.val()
            ^ (self.r_stat_duplicate.q.val() << 1)
            ^ (self.r_stat_duplicate.q.val() >> 31)
            ^ (self.r_stat_out_of_window.q.val() >> 1)
            ^ (self.r_stat_out_of_window.q.val() << 31)
            ^ (self.r_stat_cleared.q.val() << 2)
            ^ (self.r_stat_cleared.q.val() >> 30);
        self.led_fold.word.next = self.fold.q.val();
        self.leds.next = self.led_fold.leds.val();
    }
}
