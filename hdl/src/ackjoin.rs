//! # ACK join (`mrnic_ackjoin`, issue 12)
//!
//! **Purpose.** Puts the SACK engine's cumulative PSN and bitmap into the ACKs the ACK
//! generator (`mrnic_ackgen`) decides, so that every ACK leaves with what the model's
//! responder puts in it: an ACK a packet sent carries the connection's state right after
//! that packet, a timer ACK the state after the packets before its FIFO pop. The generator
//! leaves one entry per DATA packet (`m_ack` = 0 when the packet sent no ACK) in the order
//! it took them, with its timer ACKs between them; the SACK engine's result for every packet
//! that went to the generator comes here too (`s_sack`), in the same order. A packet's entry
//! takes the oldest waiting result, which becomes the connection's latest state (a block
//! RAM row); a timer ACK reads that row. Semantics: the block model
//! `mrnic_model::transport::ackjoin::AckJoin` and the cycle shell `AckJoinShell`, against
//! which the generated Verilog is compared every cycle (`verif/tests/ackjoin_diff.rs`);
//! `docs/blocks/ackjoin.md`.
//!
//! **Ports** (CB = connection bits, W = SACK window bits).
//! - inputs: `clock`, `rst` (synchronous, active high); SACK results `s_sack_valid`/
//!   `s_sack_ready` with `s_sack_conn` (CB), `s_sack_base` (24, the cumulative PSN after the
//!   packet), `s_sack_bitmap` (W); generator entries `s_gen_valid`/`s_gen_ready` with
//!   `s_gen_conn` (CB), `s_gen_path` (4), `s_gen_path_psn` (24), `s_gen_flags`,
//!   `s_gen_ecn_ce`, `s_gen_ecn_pkts` (8 each), `s_gen_rate_hint`, `s_gen_ts_echo`,
//!   `s_gen_ack_delay` (32 each), `s_gen_sport` (16), `s_gen_timer`, `s_gen_ack` (the
//!   generator's `m_*`); `m_ready`.
//! - outputs: ACKs `m_valid`/`m_ready` with `m_conn`, `m_path`, `m_base` (24: the BTH PSN),
//!   `m_bitmap` (W), `m_path_psn`, `m_flags`, `m_ecn_ce`, `m_ecn_pkts`, `m_rate_hint`,
//!   `m_ts_echo`, `m_ack_delay`, `m_sport`, `m_timer` (the generator's fields).
//! - config: const generics CB, W (and LW = 24 + W, FW = CB + 24 + W), checked by
//!   [`AckJoin::try_new`].
//! - status: `stat_acks`, `stat_timer_acks`, `stat_quiet` (packets that sent no ACK),
//!   `stat_misaligned` (a packet's entry whose SACK result names another connection: an
//!   upstream fault; the result is used), 32-bit wrapping, counted at the take and shown
//!   from the next cycle; `stat_fifo_level` (4: results waiting).
//!
//! **State.** The state RAM (`prim::BlockRam`, write-first), 2^CB rows of LW = 24 + W bits
//! (the latest base and bitmap; zero at power-up); a FIFO of 8 SACK results of FW bits in
//! flip-flops (the generator holds at most 8 packets, so in the receive path the fork to
//! both never waits on it).
//!
//! **Pipeline.** Cycle t: an entry is taken (`s_gen`), with the FIFO's head if it is a
//! packet's; the state RAM is read at `s_gen_conn` (a held stage A re-reads its own row).
//! Stage A (t + 1): the entry, and its SACK result, in registers; a packet's result is
//! written into its connection's row from A (every cycle A holds it); an ACK moves to the
//! output register `o_*` with the result it carries: the packet's own, or for a timer ACK
//! the RAM's word (write-first: the write of the packet in A in cycle t is in it). t + 2:
//! `m_valid`. **Latency** 2, **II** 1. `s_gen_ready` = `!rst & a_moves & (head | timer)`,
//! `a_moves` = A empty, or A holds a packet without ACK, or `o` empty or taken;
//! `s_sack_ready` = `!rst &` FIFO not full (a register).
//!
//! ```text
//! cycle      0       1       2       3
//! s_gen      P(c)    T(c)
//! RAM read   c       c                      T reads c in 1 while P writes c from A: forwarded
//! stage A            P       T
//! RAM write          P
//! m                          ack(P)  ack(T)  both carry P's result
//! ```
//!
//! **Combinational paths.** `m_ready` -> `s_gen_ready` and the RAM's read address;
//! `s_gen_timer` -> `s_gen_ready` (a timer ACK needs no SACK result: without this a timer ACK
//! would wait for a packet); `s_gen_valid` -> the counters' enables. None to `m_*`.
//!
//! **Hazards.** A timer ACK taken in the cycle a packet of its connection sits in A: the RAM
//! forwards A's write to the read (`BlockRam`'s write-first contract). While A holds a timer
//! ACK (the output stalled) nothing behind it is taken, so its re-read row can only change
//! by writes made before it.
//!
//! **Reset** holds `m_valid` and both readies low while `rst` is high and clears A's and
//! the output's valid bits, the FIFO pointers and count and the
//! counters; the state RAM is data and keeps its rows.

use crate::prim::BlockRam;
use mrnic_model::config::ConfigError;
use rust_hdl::prelude::*;

/// Width of the generator's ACK fields carried as one word (path PSN 24, flags 8, ECN CE 8,
/// ECN packets 8, rate hint 32, timestamp echo 32, ACK delay 32, source port 16).
pub const FIELDS_W: usize = 160;

#[derive(LogicBlock)]
pub struct AckJoin<const CB: usize, const W: usize, const LW: usize, const FW: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_sack_valid: Signal<In, bool>,
    pub s_sack_conn: Signal<In, Bits<CB>>,
    pub s_sack_base: Signal<In, Bits<24>>,
    pub s_sack_bitmap: Signal<In, Bits<W>>,
    pub s_gen_valid: Signal<In, bool>,
    pub s_gen_conn: Signal<In, Bits<CB>>,
    pub s_gen_path: Signal<In, Bits<4>>,
    pub s_gen_path_psn: Signal<In, Bits<24>>,
    pub s_gen_flags: Signal<In, Bits<8>>,
    pub s_gen_ecn_ce: Signal<In, Bits<8>>,
    pub s_gen_ecn_pkts: Signal<In, Bits<8>>,
    pub s_gen_rate_hint: Signal<In, Bits<32>>,
    pub s_gen_ts_echo: Signal<In, Bits<32>>,
    pub s_gen_ack_delay: Signal<In, Bits<32>>,
    pub s_gen_sport: Signal<In, Bits<16>>,
    pub s_gen_timer: Signal<In, bool>,
    pub s_gen_ack: Signal<In, bool>,
    pub m_ready: Signal<In, bool>,
    pub s_sack_ready: Signal<Out, bool>,
    pub s_gen_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_conn: Signal<Out, Bits<CB>>,
    pub m_path: Signal<Out, Bits<4>>,
    pub m_base: Signal<Out, Bits<24>>,
    pub m_bitmap: Signal<Out, Bits<W>>,
    pub m_path_psn: Signal<Out, Bits<24>>,
    pub m_flags: Signal<Out, Bits<8>>,
    pub m_ecn_ce: Signal<Out, Bits<8>>,
    pub m_ecn_pkts: Signal<Out, Bits<8>>,
    pub m_rate_hint: Signal<Out, Bits<32>>,
    pub m_ts_echo: Signal<Out, Bits<32>>,
    pub m_ack_delay: Signal<Out, Bits<32>>,
    pub m_sport: Signal<Out, Bits<16>>,
    pub m_timer: Signal<Out, bool>,
    pub stat_acks: Signal<Out, Bits<32>>,
    pub stat_timer_acks: Signal<Out, Bits<32>>,
    pub stat_quiet: Signal<Out, Bits<32>>,
    pub stat_misaligned: Signal<Out, Bits<32>>,
    pub stat_fifo_level: Signal<Out, Bits<4>>,
    ram: BlockRam<LW, CB>,
    f_e0: DFF<Bits<FW>>,
    f_e1: DFF<Bits<FW>>,
    f_e2: DFF<Bits<FW>>,
    f_e3: DFF<Bits<FW>>,
    f_e4: DFF<Bits<FW>>,
    f_e5: DFF<Bits<FW>>,
    f_e6: DFF<Bits<FW>>,
    f_e7: DFF<Bits<FW>>,
    f_wp: DFF<Bits<3>>,
    f_rp: DFF<Bits<3>>,
    f_cnt: DFF<Bits<4>>,
    a_v: DFF<bool>,
    a_ack: DFF<bool>,
    a_timer: DFF<bool>,
    a_conn: DFF<Bits<CB>>,
    a_path: DFF<Bits<4>>,
    a_fields: DFF<Bits<FIELDS_W>>,
    a_sconn: DFF<Bits<CB>>,
    a_state: DFF<Bits<LW>>,
    o_v: DFF<bool>,
    o_conn: DFF<Bits<CB>>,
    o_path: DFF<Bits<4>>,
    o_fields: DFF<Bits<FIELDS_W>>,
    o_state: DFF<Bits<LW>>,
    o_timer: DFF<bool>,
    n_acks: DFF<Bits<32>>,
    n_tmr: DFF<Bits<32>>,
    n_quiet: DFF<Bits<32>>,
    n_mis: DFF<Bits<32>>,
    head: Signal<Local, Bits<FW>>,
    head_conn: Signal<Local, Bits<CB>>,
    head_sh: Signal<Local, Bits<FW>>,
    o_sh: Signal<Local, Bits<LW>>,
    entry: Signal<Local, Bits<FW>>,
    gen_fields: Signal<Local, Bits<FIELDS_W>>,
    a_moves: Signal<Local, bool>,
    nonempty: Signal<Local, bool>,
    take: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    push: Signal<Local, bool>,
    a_out: Signal<Local, bool>,
    raddr: Signal<Local, Bits<CB>>,
    k_sh_conn: Constant<Bits<16>>,
    k_sh_base: Constant<Bits<16>>,
    k_q0: Constant<Bits<3>>,
    k_q1: Constant<Bits<3>>,
    k_q2: Constant<Bits<3>>,
    k_q3: Constant<Bits<3>>,
    k_q4: Constant<Bits<3>>,
    k_q5: Constant<Bits<3>>,
    k_q6: Constant<Bits<3>>,
    k_q7: Constant<Bits<3>>,
    k_c1: Constant<Bits<4>>,
    k_c0: Constant<Bits<4>>,
    k_one: Constant<Bits<32>>,
    k_z32: Constant<Bits<32>>,
}

/// The generics (CB, W) of `connections` and a SACK window of `window` bits.
pub fn ackjoin_bits(connections: usize, window: usize) -> (usize, usize) {
    (connections.trailing_zeros() as usize, window)
}

impl<const CB: usize, const W: usize, const LW: usize, const FW: usize> AckJoin<CB, W, LW, FW> {
    /// The block for `connections` connections and a `window`-bit SACK window; refused when
    /// the generics do not match them, or `connections` is not a power of two in
    /// 2..=65536, or the window is not 32, 64, 128 or 256.
    pub fn try_new(connections: usize, window: usize) -> Result<Self, ConfigError> {
        if !connections.is_power_of_two() || !(2..=1 << 16).contains(&connections) {
            return Err(ConfigError::invalid("ackjoin", format!("connections = {connections} must be a power of two in 2..=65536")));
        }
        if ![32, 64, 128, 256].contains(&window) {
            return Err(ConfigError::invalid("ackjoin", format!("window = {window} must be 32, 64, 128 or 256")));
        }
        let (cb, w) = ackjoin_bits(connections, window);
        for (f, want, got) in [("CB", cb, CB), ("W", w, W), ("LW", 24 + w, LW), ("FW", cb + 24 + w, FW)] {
            if want != got {
                return Err(ConfigError::invalid(format!("AckJoin.{f}"), format!("the generic is {got}, the configuration says {want}")));
            }
        }
        let q = |v: u64| Constant::new(Bits::<3>::from(v));
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_sack_valid: Default::default(),
            s_sack_conn: Default::default(),
            s_sack_base: Default::default(),
            s_sack_bitmap: Default::default(),
            s_gen_valid: Default::default(),
            s_gen_conn: Default::default(),
            s_gen_path: Default::default(),
            s_gen_path_psn: Default::default(),
            s_gen_flags: Default::default(),
            s_gen_ecn_ce: Default::default(),
            s_gen_ecn_pkts: Default::default(),
            s_gen_rate_hint: Default::default(),
            s_gen_ts_echo: Default::default(),
            s_gen_ack_delay: Default::default(),
            s_gen_sport: Default::default(),
            s_gen_timer: Default::default(),
            s_gen_ack: Default::default(),
            m_ready: Default::default(),
            s_sack_ready: Default::default(),
            s_gen_ready: Default::default(),
            m_valid: Default::default(),
            m_conn: Default::default(),
            m_path: Default::default(),
            m_base: Default::default(),
            m_bitmap: Default::default(),
            m_path_psn: Default::default(),
            m_flags: Default::default(),
            m_ecn_ce: Default::default(),
            m_ecn_pkts: Default::default(),
            m_rate_hint: Default::default(),
            m_ts_echo: Default::default(),
            m_ack_delay: Default::default(),
            m_sport: Default::default(),
            m_timer: Default::default(),
            stat_acks: Default::default(),
            stat_timer_acks: Default::default(),
            stat_quiet: Default::default(),
            stat_misaligned: Default::default(),
            stat_fifo_level: Default::default(),
            // zeroed at power-up, as FPGA block RAM is (simulators would start from X)
            ram: BlockRam::with_init((0..1u64 << CB).map(|a| (Bits::<CB>::from(a), Bits::<LW>::default())).collect()),
            f_e0: Default::default(),
            f_e1: Default::default(),
            f_e2: Default::default(),
            f_e3: Default::default(),
            f_e4: Default::default(),
            f_e5: Default::default(),
            f_e6: Default::default(),
            f_e7: Default::default(),
            f_wp: Default::default(),
            f_rp: Default::default(),
            f_cnt: Default::default(),
            a_v: Default::default(),
            a_ack: Default::default(),
            a_timer: Default::default(),
            a_conn: Default::default(),
            a_path: Default::default(),
            a_fields: Default::default(),
            a_sconn: Default::default(),
            a_state: Default::default(),
            o_v: Default::default(),
            o_conn: Default::default(),
            o_path: Default::default(),
            o_fields: Default::default(),
            o_state: Default::default(),
            o_timer: Default::default(),
            n_acks: Default::default(),
            n_tmr: Default::default(),
            n_quiet: Default::default(),
            n_mis: Default::default(),
            head: Default::default(),
            head_conn: Default::default(),
            head_sh: Default::default(),
            o_sh: Default::default(),
            entry: Default::default(),
            gen_fields: Default::default(),
            a_moves: Default::default(),
            nonempty: Default::default(),
            take: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            a_out: Default::default(),
            raddr: Default::default(),
            k_sh_conn: Constant::new(Bits::<16>::from(LW as u64)),
            k_sh_base: Constant::new(Bits::<16>::from(W as u64)),
            k_q0: q(0),
            k_q1: q(1),
            k_q2: q(2),
            k_q3: q(3),
            k_q4: q(4),
            k_q5: q(5),
            k_q6: q(6),
            k_q7: q(7),
            k_c1: Constant::new(Bits::<4>::from(1u64)),
            k_c0: Constant::new(Bits::<4>::from(0u64)),
            k_one: Constant::new(Bits::<32>::from(1u64)),
            k_z32: Constant::new(Bits::<32>::from(0u64)),
        })
    }
}

impl<const CB: usize, const W: usize, const LW: usize, const FW: usize> Logic for AckJoin<CB, W, LW, FW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, f_e0, f_e1, f_e2, f_e3, f_e4, f_e5, f_e6, f_e7, f_wp, f_rp, f_cnt, a_v, a_ack, a_timer, a_conn, a_path, a_fields, a_sconn, a_state, o_v, o_conn, o_path, o_fields,
            o_state, o_timer, n_acks, n_tmr, n_quiet, n_mis
        );
        self.ram.clock.next = self.clock.val();
        // ---- the FIFO's head (an FW-bit word: bitmap, base, connection from bit 0 up)
        self.head.next = self.f_e0.q.val();
        if self.f_rp.q.val() == self.k_q1.val() {
            self.head.next = self.f_e1.q.val();
        }
        if self.f_rp.q.val() == self.k_q2.val() {
            self.head.next = self.f_e2.q.val();
        }
        if self.f_rp.q.val() == self.k_q3.val() {
            self.head.next = self.f_e3.q.val();
        }
        if self.f_rp.q.val() == self.k_q4.val() {
            self.head.next = self.f_e4.q.val();
        }
        if self.f_rp.q.val() == self.k_q5.val() {
            self.head.next = self.f_e5.q.val();
        }
        if self.f_rp.q.val() == self.k_q6.val() {
            self.head.next = self.f_e6.q.val();
        }
        if self.f_rp.q.val() == self.k_q7.val() {
            self.head.next = self.f_e7.q.val();
        }
        self.head_sh.next = self.head.val() >> self.k_sh_conn.val();
        self.head_conn.next = self.head_sh.val().get_bits::<CB>(0);
        self.nonempty.next = self.f_cnt.q.val().any();
        // ---- handshakes: A moves when it is empty, holds no ACK, or the output can take it
        self.a_moves.next = !self.a_v.q.val() | !self.a_ack.q.val() | !self.o_v.q.val() | self.m_ready.val();
        self.s_gen_ready.next = !self.rst.val() & self.a_moves.val() & (self.nonempty.val() | self.s_gen_timer.val());
        self.s_sack_ready.next = !self.rst.val() & !self.f_cnt.q.val().get_bit(3);
        self.take.next = self.s_gen_valid.val() & self.s_gen_ready.val();
        self.pop.next = self.take.val() & !self.s_gen_timer.val();
        self.push.next = self.s_sack_valid.val() & self.s_sack_ready.val();
        // ---- the FIFO: push at the write pointer, pop at the read pointer
        self.entry.next = bit_cast::<FW, W>(self.s_sack_bitmap.val())
            | (bit_cast::<FW, 24>(self.s_sack_base.val()) << self.k_sh_base.val())
            | (bit_cast::<FW, CB>(self.s_sack_conn.val()) << self.k_sh_conn.val());
        self.f_e0.d.next = self.f_e0.q.val();
        self.f_e1.d.next = self.f_e1.q.val();
        self.f_e2.d.next = self.f_e2.q.val();
        self.f_e3.d.next = self.f_e3.q.val();
        self.f_e4.d.next = self.f_e4.q.val();
        self.f_e5.d.next = self.f_e5.q.val();
        self.f_e6.d.next = self.f_e6.q.val();
        self.f_e7.d.next = self.f_e7.q.val();
        if self.push.val() {
            if self.f_wp.q.val() == self.k_q0.val() {
                self.f_e0.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q1.val() {
                self.f_e1.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q2.val() {
                self.f_e2.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q3.val() {
                self.f_e3.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q4.val() {
                self.f_e4.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q5.val() {
                self.f_e5.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q6.val() {
                self.f_e6.d.next = self.entry.val();
            }
            if self.f_wp.q.val() == self.k_q7.val() {
                self.f_e7.d.next = self.entry.val();
            }
        }
        self.f_wp.d.next = self.f_wp.q.val() + bit_cast::<3, 1>(self.push.val().into());
        self.f_rp.d.next = self.f_rp.q.val() + bit_cast::<3, 1>(self.pop.val().into());
        self.f_cnt.d.next = self.f_cnt.q.val();
        if self.push.val() & !self.pop.val() {
            self.f_cnt.d.next = self.f_cnt.q.val() + self.k_c1.val();
        }
        if self.pop.val() & !self.push.val() {
            self.f_cnt.d.next = self.f_cnt.q.val() - self.k_c1.val();
        }
        self.stat_fifo_level.next = self.f_cnt.q.val();
        // ---- the state RAM: read at the entry taken (A held: its own row again), written
        // from A while it holds a packet's result
        // (one assignment to the RAM's address: a default overridden in the same block would
        // glitch the sub-module's input, and Icarus then loops between the two blocks)
        self.raddr.next = self.a_conn.q.val();
        if self.a_moves.val() {
            self.raddr.next = self.s_gen_conn.val();
        }
        self.ram.read_address.next = self.raddr.val();
        self.ram.write_enable.next = self.a_v.q.val() & !self.a_timer.q.val();
        self.ram.write_address.next = self.a_sconn.q.val();
        self.ram.write_data.next = self.a_state.q.val();
        // ---- stage A
        self.gen_fields.next = bit_cast::<FIELDS_W, 24>(self.s_gen_path_psn.val())
            | (bit_cast::<FIELDS_W, 8>(self.s_gen_flags.val()) << 24)
            | (bit_cast::<FIELDS_W, 8>(self.s_gen_ecn_ce.val()) << 32)
            | (bit_cast::<FIELDS_W, 8>(self.s_gen_ecn_pkts.val()) << 40)
            | (bit_cast::<FIELDS_W, 32>(self.s_gen_rate_hint.val()) << 48)
            | (bit_cast::<FIELDS_W, 32>(self.s_gen_ts_echo.val()) << 80)
            | (bit_cast::<FIELDS_W, 32>(self.s_gen_ack_delay.val()) << 112)
            | (bit_cast::<FIELDS_W, 16>(self.s_gen_sport.val()) << 144);
        self.a_v.d.next = self.a_v.q.val();
        self.a_ack.d.next = self.a_ack.q.val();
        self.a_timer.d.next = self.a_timer.q.val();
        self.a_conn.d.next = self.a_conn.q.val();
        self.a_path.d.next = self.a_path.q.val();
        self.a_fields.d.next = self.a_fields.q.val();
        self.a_sconn.d.next = self.a_sconn.q.val();
        self.a_state.d.next = self.a_state.q.val();
        if self.a_moves.val() {
            self.a_v.d.next = self.take.val();
            self.a_ack.d.next = self.s_gen_ack.val();
            self.a_timer.d.next = self.s_gen_timer.val();
            self.a_conn.d.next = self.s_gen_conn.val();
            self.a_path.d.next = self.s_gen_path.val();
            self.a_fields.d.next = self.gen_fields.val();
            self.a_sconn.d.next = self.head_conn.val();
            self.a_state.d.next = self.head.val().get_bits::<LW>(0);
        }
        // ---- the output register: an ACK from A, with its packet's result or the RAM's word
        self.a_out.next = self.a_moves.val() & self.a_v.q.val() & self.a_ack.q.val();
        self.o_v.d.next = self.o_v.q.val() & !self.m_ready.val();
        self.o_conn.d.next = self.o_conn.q.val();
        self.o_path.d.next = self.o_path.q.val();
        self.o_fields.d.next = self.o_fields.q.val();
        self.o_state.d.next = self.o_state.q.val();
        self.o_timer.d.next = self.o_timer.q.val();
        if self.a_out.val() {
            self.o_v.d.next = true;
            self.o_conn.d.next = self.a_conn.q.val();
            self.o_path.d.next = self.a_path.q.val();
            self.o_fields.d.next = self.a_fields.q.val();
            self.o_timer.d.next = self.a_timer.q.val();
            self.o_state.d.next = self.a_state.q.val();
            if self.a_timer.q.val() {
                self.o_state.d.next = self.ram.read_data.val();
            }
        }
        self.m_valid.next = self.o_v.q.val() & !self.rst.val();
        self.m_conn.next = self.o_conn.q.val();
        self.m_path.next = self.o_path.q.val();
        self.m_bitmap.next = self.o_state.q.val().get_bits::<W>(0);
        self.o_sh.next = self.o_state.q.val() >> self.k_sh_base.val();
        self.m_base.next = self.o_sh.val().get_bits::<24>(0);
        self.m_path_psn.next = self.o_fields.q.val().get_bits::<24>(0);
        self.m_flags.next = self.o_fields.q.val().get_bits::<8>(24);
        self.m_ecn_ce.next = self.o_fields.q.val().get_bits::<8>(32);
        self.m_ecn_pkts.next = self.o_fields.q.val().get_bits::<8>(40);
        self.m_rate_hint.next = self.o_fields.q.val().get_bits::<32>(48);
        self.m_ts_echo.next = self.o_fields.q.val().get_bits::<32>(80);
        self.m_ack_delay.next = self.o_fields.q.val().get_bits::<32>(112);
        self.m_sport.next = self.o_fields.q.val().get_bits::<16>(144);
        self.m_timer.next = self.o_timer.q.val();
        // ---- counters, at the take
        self.n_acks.d.next = self.n_acks.q.val();
        self.n_tmr.d.next = self.n_tmr.q.val();
        self.n_quiet.d.next = self.n_quiet.q.val();
        self.n_mis.d.next = self.n_mis.q.val();
        if self.take.val() & self.s_gen_ack.val() {
            self.n_acks.d.next = self.n_acks.q.val() + self.k_one.val();
        }
        if self.take.val() & self.s_gen_ack.val() & self.s_gen_timer.val() {
            self.n_tmr.d.next = self.n_tmr.q.val() + self.k_one.val();
        }
        if self.pop.val() & !self.s_gen_ack.val() {
            self.n_quiet.d.next = self.n_quiet.q.val() + self.k_one.val();
        }
        if self.pop.val() & (self.s_gen_conn.val() != self.head_conn.val()) {
            self.n_mis.d.next = self.n_mis.q.val() + self.k_one.val();
        }
        self.stat_acks.next = self.n_acks.q.val();
        self.stat_timer_acks.next = self.n_tmr.q.val();
        self.stat_quiet.next = self.n_quiet.q.val();
        self.stat_misaligned.next = self.n_mis.q.val();
        // ---- reset: control state (not the RAM, not the data registers)
        if self.rst.val() {
            self.a_v.d.next = false;
            self.o_v.d.next = false;
            self.f_wp.d.next = self.k_q0.val();
            self.f_rp.d.next = self.k_q0.val();
            self.f_cnt.d.next = self.k_c0.val();
            self.n_acks.d.next = self.k_z32.val();
            self.n_tmr.d.next = self.k_z32.val();
            self.n_quiet.d.next = self.k_z32.val();
            self.n_mis.d.next = self.k_z32.val();
        }
    }
}

/// Runs `$body` with `$ty` the `AckJoin` of (connections, window), or a
/// `ConfigError` naming the sizes with no instantiation.
#[macro_export]
macro_rules! with_ackjoin {
    ($connections:expr, $window:expr, $ty:ident => $body:expr) => {{
        match $crate::ackjoin::ackjoin_bits($connections, $window) {
            (8, 256) => {
                type $ty = $crate::ackjoin::AckJoin<8, 256, 280, 288>;
                Ok($body)
            }
            (4, 64) => {
                type $ty = $crate::ackjoin::AckJoin<4, 64, 88, 92>;
                Ok($body)
            }
            (10, 256) => {
                type $ty = $crate::ackjoin::AckJoin<10, 256, 280, 290>;
                Ok($body)
            }
            (4, 256) => {
                type $ty = $crate::ackjoin::AckJoin<4, 256, 280, 284>;
                Ok($body)
            }
            (8, 64) => {
                type $ty = $crate::ackjoin::AckJoin<8, 64, 88, 96>;
                Ok($body)
            }
            (cb, w) => Err($crate::mrnic_model::config::ConfigError::invalid(
                "ackjoin",
                format!("no AckJoin is instantiated for connections = 2^{cb}, a {w}-bit window (add the row to with_ackjoin!)"),
            )),
        }
    }};
}
