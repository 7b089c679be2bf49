//! # Connection checks (`mrnic_conn_chk`)
//!
//! **Purpose.** The receive path's connection checks (issue 12, protocol §4 step 8) in
//! hardware: the destination-QP table of every connection in block RAM, written through a
//! configuration port; for each frame the parser accepted, which connection it belongs to
//! (the QPN's low C bits name the row, its high 24 - C bits must be the row's tag) and
//! whether it may reach that connection's state (the row is open, the source address is
//! the peer's, the P_Key is the row's, the path id is below P), or why not. Semantics: the
//! model cycle shell `mrnic_model::transport::conn_chk_shell::ConnChkShell` (its decision
//! `check_conn`), diffed cycle by cycle.
//!
//! **Ports** (C = log2 connections, TB = 24 - C).
//! - global: `clock`, `rst` (synchronous).
//! - config stream in: `s_cfg_valid`/`s_cfg_ready`, `s_cfg_conn` (C: the row),
//!   `s_cfg_live` (the row is open), `s_cfg_tag` (TB), `s_cfg_peer` (32: IPv4 address),
//!   `s_cfg_pkey` (16).
//! - request stream in: `s_valid`/`s_ready`, `s_qpn` (24: BTH destination QP), `s_src`
//!   (32: IPv4 source address), `s_pkey` (16: BTH P_Key), `s_path` (4: the path id, 0 for a
//!   frame without one), `s_tag` (8, echoed).
//! - result stream out: `m_valid`/`m_ready`, `m_tag` (8), `m_ok`, `m_reason` (3: 0 ok, 1
//!   wrong QP, 2 wrong peer, 3 wrong P_Key, 4 bad path), `m_conn` (C: the row the QPN
//!   names, also on a drop).
//! - status: `stat_ok`, `stat_wrong_qp`, `stat_wrong_peer`, `stat_wrong_pkey`,
//!   `stat_bad_path` (results transferred, by outcome), `stat_cfg_writes` (32-bit,
//!   wrapping).
//! - sizes: const generics `C`, `TB` (checked by [`ConnChk::try_new`]); the path count
//!   `P` a constant (localparam `k_paths`).
//!
//! **Table**: one [`BlockRam`] per field (write-first: a read sees the write of its own
//! cycle), 2^C rows: `live` 1, `tag` TB, `peer` 32, `pkey` 16 = 49 + TB bits per
//! connection (65 at `core`, C = 8).
//!
//! **Pipeline.** Cycle t: the request is transferred and the table is read at row
//! `s_qpn[C-1:0]`; the QPN's tag, the row and `s_path < P` are registered. Cycle t + 1
//! (stage A): the row (`read_data`, or the copy held in `h_*` when the stage has stalled
//! since t + 1) is registered into `b_*` with the request, so that no compare starts at a
//! block RAM's clock-to-out. Cycle t + 2 (stage B): three equality compares (tag TB bits,
//! peer 32, P_Key 16), the reason as a priority chain over four flags, registered into
//! `o_*`. Cycle t + 3: `m_valid`. **Latency** 3, **II** 1: `en` = `!rst & (!m_valid |
//! m_ready)` advances all stages together, `s_ready` = `en`.
//!
//! **Combinational paths.** `m_ready -> s_ready` (the pipeline enable); `rst` -> every
//! valid and ready output. Internal: stage A, a RAM's output -> the `h_*` / `read_data`
//! mux -> `b_*`; stage B, a 32-bit equality (two LUT levels and a carry-free AND tree) ->
//! the priority chain -> `o_*`.
//!
//! **Hazards.** A config write and a request of the same cycle: the request sees the write
//! (RAM forwarding). A write after the request's transfer never reaches it: the row is read
//! once at the transfer and held (`h_*`, then `b_*`) while the result waits.
//!
//! **Reset** (`rst`): the pipeline empties, counters 0; the table is data and keeps its
//! contents (at power up it is undefined: write every row before the first request).

use crate::prim::BlockRam;
use mrnic_model::config::ConfigError;
use mrnic_model::transport::conn_chk_shell::ConnChkConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ConnChk<const C: usize, const TB: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_cfg_valid: Signal<In, bool>,
    pub s_cfg_conn: Signal<In, Bits<C>>,
    pub s_cfg_live: Signal<In, bool>,
    pub s_cfg_tag: Signal<In, Bits<TB>>,
    pub s_cfg_peer: Signal<In, Bits<32>>,
    pub s_cfg_pkey: Signal<In, Bits<16>>,
    pub s_valid: Signal<In, bool>,
    pub s_qpn: Signal<In, Bits<24>>,
    pub s_src: Signal<In, Bits<32>>,
    pub s_pkey: Signal<In, Bits<16>>,
    pub s_path: Signal<In, Bits<4>>,
    pub s_tag: Signal<In, Bits<8>>,
    pub m_ready: Signal<In, bool>,
    pub s_cfg_ready: Signal<Out, bool>,
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_tag: Signal<Out, Bits<8>>,
    pub m_ok: Signal<Out, bool>,
    pub m_reason: Signal<Out, Bits<3>>,
    pub m_conn: Signal<Out, Bits<C>>,
    pub stat_ok: Signal<Out, Bits<32>>,
    pub stat_wrong_qp: Signal<Out, Bits<32>>,
    pub stat_wrong_peer: Signal<Out, Bits<32>>,
    pub stat_wrong_pkey: Signal<Out, Bits<32>>,
    pub stat_bad_path: Signal<Out, Bits<32>>,
    pub stat_cfg_writes: Signal<Out, Bits<32>>,
    ram_live: BlockRam<1, C>,
    ram_tag: BlockRam<TB, C>,
    ram_peer: BlockRam<32, C>,
    ram_pkey: BlockRam<16, C>,
    a_v: DFF<bool>,
    a_fresh: DFF<bool>,
    a_qtag: DFF<Bits<TB>>,
    a_conn: DFF<Bits<C>>,
    a_src: DFF<Bits<32>>,
    a_pkey: DFF<Bits<16>>,
    a_pok: DFF<bool>,
    a_tag: DFF<Bits<8>>,
    h_live: DFF<Bits<1>>,
    h_tag: DFF<Bits<TB>>,
    h_peer: DFF<Bits<32>>,
    h_pkey: DFF<Bits<16>>,
    b_v: DFF<bool>,
    b_qtag: DFF<Bits<TB>>,
    b_conn: DFF<Bits<C>>,
    b_src: DFF<Bits<32>>,
    b_pkey: DFF<Bits<16>>,
    b_pok: DFF<bool>,
    b_tag: DFF<Bits<8>>,
    b_live: DFF<Bits<1>>,
    b_rtag: DFF<Bits<TB>>,
    b_peer: DFF<Bits<32>>,
    b_rpkey: DFF<Bits<16>>,
    o_v: DFF<bool>,
    o_ok: DFF<bool>,
    o_reason: DFF<Bits<3>>,
    o_conn: DFF<Bits<C>>,
    o_tag: DFF<Bits<8>>,
    c_ok: DFF<Bits<32>>,
    c_qp: DFF<Bits<32>>,
    c_peer: DFF<Bits<32>>,
    c_pkey: DFF<Bits<32>>,
    c_path: DFF<Bits<32>>,
    c_cfg: DFF<Bits<32>>,
    on: Signal<Local, bool>,
    en: Signal<Local, bool>,
    acc: Signal<Local, bool>,
    cfg_hs: Signal<Local, bool>,
    m_hs: Signal<Local, bool>,
    x_live: Signal<Local, Bits<1>>,
    x_tag: Signal<Local, Bits<TB>>,
    x_peer: Signal<Local, Bits<32>>,
    x_pkey: Signal<Local, Bits<16>>,
    d_reason: Signal<Local, Bits<3>>,
    q_hi: Signal<Local, Bits<24>>,
    k_paths: Constant<Bits<5>>,
    k_c: Constant<Bits<8>>,
    k_n0: Constant<Bits<3>>,
    k_n1: Constant<Bits<3>>,
    k_n2: Constant<Bits<3>>,
    k_n3: Constant<Bits<3>>,
    k_n4: Constant<Bits<3>>,
    k_z32: Constant<Bits<32>>,
}

impl<const C: usize, const TB: usize> ConnChk<C, TB> {
    /// The unit for `cfg`; refused when the const generics do not match it.
    pub fn try_new(cfg: &ConnChkConfig) -> Result<Self, ConfigError> {
        let mismatch = |f: &str, want: usize, got: usize| Err(ConfigError::invalid(format!("ConnChk.{f}"), format!("the generic is {got}, the configuration says {want}")));
        if C != cfg.conn_bits() as usize {
            return mismatch("C", cfg.conn_bits() as usize, C);
        }
        if TB != cfg.tag_bits() as usize {
            return mismatch("TB", cfg.tag_bits() as usize, TB);
        }
        if !(1..=16).contains(&cfg.paths) {
            return Err(ConfigError::invalid("ConnChk.paths", format!("{} paths: must be 1..=16", cfg.paths)));
        }
        let n = |v: u64| Constant::new(Bits::<3>::from(v));
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_cfg_valid: Default::default(),
            s_cfg_conn: Default::default(),
            s_cfg_live: Default::default(),
            s_cfg_tag: Default::default(),
            s_cfg_peer: Default::default(),
            s_cfg_pkey: Default::default(),
            s_valid: Default::default(),
            s_qpn: Default::default(),
            s_src: Default::default(),
            s_pkey: Default::default(),
            s_path: Default::default(),
            s_tag: Default::default(),
            m_ready: Default::default(),
            s_cfg_ready: Default::default(),
            s_ready: Default::default(),
            m_valid: Default::default(),
            m_tag: Default::default(),
            m_ok: Default::default(),
            m_reason: Default::default(),
            m_conn: Default::default(),
            stat_ok: Default::default(),
            stat_wrong_qp: Default::default(),
            stat_wrong_peer: Default::default(),
            stat_wrong_pkey: Default::default(),
            stat_bad_path: Default::default(),
            stat_cfg_writes: Default::default(),
            ram_live: Default::default(),
            ram_tag: Default::default(),
            ram_peer: Default::default(),
            ram_pkey: Default::default(),
            a_v: Default::default(),
            a_fresh: Default::default(),
            a_qtag: Default::default(),
            a_conn: Default::default(),
            a_src: Default::default(),
            a_pkey: Default::default(),
            a_pok: Default::default(),
            a_tag: Default::default(),
            h_live: Default::default(),
            h_tag: Default::default(),
            h_peer: Default::default(),
            h_pkey: Default::default(),
            b_v: Default::default(),
            b_qtag: Default::default(),
            b_conn: Default::default(),
            b_src: Default::default(),
            b_pkey: Default::default(),
            b_pok: Default::default(),
            b_tag: Default::default(),
            b_live: Default::default(),
            b_rtag: Default::default(),
            b_peer: Default::default(),
            b_rpkey: Default::default(),
            o_v: Default::default(),
            o_ok: Default::default(),
            o_reason: Default::default(),
            o_conn: Default::default(),
            o_tag: Default::default(),
            c_ok: Default::default(),
            c_qp: Default::default(),
            c_peer: Default::default(),
            c_pkey: Default::default(),
            c_path: Default::default(),
            c_cfg: Default::default(),
            on: Default::default(),
            en: Default::default(),
            acc: Default::default(),
            cfg_hs: Default::default(),
            m_hs: Default::default(),
            x_live: Default::default(),
            x_tag: Default::default(),
            x_peer: Default::default(),
            x_pkey: Default::default(),
            d_reason: Default::default(),
            q_hi: Default::default(),
            k_paths: Constant::new(u64::from(cfg.paths).into()),
            k_c: Constant::new((C as u64).into()),
            k_n0: n(0),
            k_n1: n(1),
            k_n2: n(2),
            k_n3: n(3),
            k_n4: n(4),
            k_z32: Constant::new(0u64.into()),
        })
    }
}

impl<const C: usize, const TB: usize> Logic for ConnChk<C, TB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_v, a_fresh, a_qtag, a_conn, a_src, a_pkey, a_pok, a_tag, h_live, h_tag, h_peer, h_pkey, b_v, b_qtag, b_conn, b_src, b_pkey, b_pok, b_tag, b_live, b_rtag, b_peer, b_rpkey, o_v, o_ok, o_reason, o_conn, o_tag, c_ok, c_qp, c_peer, c_pkey, c_path, c_cfg);
        // ---- handshakes
        self.on.next = !self.rst.val();
        self.en.next = self.on.val() & (!self.o_v.q.val() | self.m_ready.val());
        self.acc.next = self.en.val() & self.s_valid.val();
        self.cfg_hs.next = self.on.val() & self.s_cfg_valid.val();
        self.m_hs.next = self.on.val() & self.o_v.q.val() & self.m_ready.val();
        // ---- the table: written by the config port, read at the request's row; the row a
        // request read is held in h_* while stage A stalls
        self.ram_live.clock.next = self.clock.val();
        self.ram_live.write_data.next = self.s_cfg_live.val().into();
        self.ram_live.write_enable.next = self.cfg_hs.val();
        self.ram_live.write_address.next = self.s_cfg_conn.val();
        self.ram_live.read_address.next = self.s_qpn.val().get_bits::<C>(0);
        self.x_live.next = self.h_live.q.val();
        if self.a_fresh.q.val() {
            self.x_live.next = self.ram_live.read_data.val();
            self.h_live.d.next = self.ram_live.read_data.val();
        }
        self.ram_tag.clock.next = self.clock.val();
        self.ram_tag.write_data.next = self.s_cfg_tag.val();
        self.ram_tag.write_enable.next = self.cfg_hs.val();
        self.ram_tag.write_address.next = self.s_cfg_conn.val();
        self.ram_tag.read_address.next = self.s_qpn.val().get_bits::<C>(0);
        self.x_tag.next = self.h_tag.q.val();
        if self.a_fresh.q.val() {
            self.x_tag.next = self.ram_tag.read_data.val();
            self.h_tag.d.next = self.ram_tag.read_data.val();
        }
        self.ram_peer.clock.next = self.clock.val();
        self.ram_peer.write_data.next = self.s_cfg_peer.val();
        self.ram_peer.write_enable.next = self.cfg_hs.val();
        self.ram_peer.write_address.next = self.s_cfg_conn.val();
        self.ram_peer.read_address.next = self.s_qpn.val().get_bits::<C>(0);
        self.x_peer.next = self.h_peer.q.val();
        if self.a_fresh.q.val() {
            self.x_peer.next = self.ram_peer.read_data.val();
            self.h_peer.d.next = self.ram_peer.read_data.val();
        }
        self.ram_pkey.clock.next = self.clock.val();
        self.ram_pkey.write_data.next = self.s_cfg_pkey.val();
        self.ram_pkey.write_enable.next = self.cfg_hs.val();
        self.ram_pkey.write_address.next = self.s_cfg_conn.val();
        self.ram_pkey.read_address.next = self.s_qpn.val().get_bits::<C>(0);
        self.x_pkey.next = self.h_pkey.q.val();
        if self.a_fresh.q.val() {
            self.x_pkey.next = self.ram_pkey.read_data.val();
            self.h_pkey.d.next = self.ram_pkey.read_data.val();
        }
        // the QPN's tag (its bits above the row index), registered with the request
        self.q_hi.next = self.s_qpn.val() >> self.k_c.val();
        // ---- stage B: the compares on the registered row, first failure wins
        self.d_reason.next = self.k_n0.val();
        if !self.b_live.q.val().any() | (self.b_rtag.q.val() != self.b_qtag.q.val()) {
            self.d_reason.next = self.k_n1.val();
        } else if self.b_peer.q.val() != self.b_src.q.val() {
            self.d_reason.next = self.k_n2.val();
        } else if self.b_rpkey.q.val() != self.b_pkey.q.val() {
            self.d_reason.next = self.k_n3.val();
        } else if !self.b_pok.q.val() {
            self.d_reason.next = self.k_n4.val();
        }
        // ---- the pipeline: all stages advance together
        self.a_fresh.d.next = self.en.val();
        if self.en.val() {
            self.a_v.d.next = self.acc.val();
            self.a_qtag.d.next = self.q_hi.val().get_bits::<TB>(0);
            self.a_conn.d.next = self.s_qpn.val().get_bits::<C>(0);
            self.a_src.d.next = self.s_src.val();
            self.a_pkey.d.next = self.s_pkey.val();
            self.a_pok.d.next = bit_cast::<5, 4>(self.s_path.val()) < self.k_paths.val();
            self.a_tag.d.next = self.s_tag.val();
            self.b_v.d.next = self.a_v.q.val();
            self.b_qtag.d.next = self.a_qtag.q.val();
            self.b_conn.d.next = self.a_conn.q.val();
            self.b_src.d.next = self.a_src.q.val();
            self.b_pkey.d.next = self.a_pkey.q.val();
            self.b_pok.d.next = self.a_pok.q.val();
            self.b_tag.d.next = self.a_tag.q.val();
            self.b_live.d.next = self.x_live.val();
            self.b_rtag.d.next = self.x_tag.val();
            self.b_peer.d.next = self.x_peer.val();
            self.b_rpkey.d.next = self.x_pkey.val();
            self.o_v.d.next = self.b_v.q.val();
            self.o_ok.d.next = self.d_reason.val() == self.k_n0.val();
            self.o_reason.d.next = self.d_reason.val();
            self.o_conn.d.next = self.b_conn.q.val();
            self.o_tag.d.next = self.b_tag.q.val();
        }
        // ---- outputs
        self.s_cfg_ready.next = self.on.val();
        self.s_ready.next = self.en.val();
        self.m_valid.next = self.on.val() & self.o_v.q.val();
        self.m_tag.next = self.o_tag.q.val();
        self.m_ok.next = self.o_ok.q.val();
        self.m_reason.next = self.o_reason.q.val();
        self.m_conn.next = self.o_conn.q.val();
        self.stat_ok.next = self.c_ok.q.val();
        self.stat_wrong_qp.next = self.c_qp.q.val();
        self.stat_wrong_peer.next = self.c_peer.q.val();
        self.stat_wrong_pkey.next = self.c_pkey.q.val();
        self.stat_bad_path.next = self.c_path.q.val();
        self.stat_cfg_writes.next = self.c_cfg.q.val();
        // ---- counters
        if self.m_hs.val() {
            if self.o_reason.q.val() == self.k_n0.val() {
                self.c_ok.d.next = self.c_ok.q.val() + 1;
            } else if self.o_reason.q.val() == self.k_n1.val() {
                self.c_qp.d.next = self.c_qp.q.val() + 1;
            } else if self.o_reason.q.val() == self.k_n2.val() {
                self.c_peer.d.next = self.c_peer.q.val() + 1;
            } else if self.o_reason.q.val() == self.k_n3.val() {
                self.c_pkey.d.next = self.c_pkey.q.val() + 1;
            } else {
                self.c_path.d.next = self.c_path.q.val() + 1;
            }
        }
        if self.cfg_hs.val() {
            self.c_cfg.d.next = self.c_cfg.q.val() + 1;
        }
        if self.rst.val() {
            self.a_v.d.next = false;
            self.b_v.d.next = false;
            self.o_v.d.next = false;
            self.c_ok.d.next = self.k_z32.val();
            self.c_qp.d.next = self.k_z32.val();
            self.c_peer.d.next = self.k_z32.val();
            self.c_pkey.d.next = self.k_z32.val();
            self.c_path.d.next = self.k_z32.val();
            self.c_cfg.d.next = self.k_z32.val();
        }
    }
}

/// Calls `$body` with `$ty` = the [`ConnChk`] of `$cfg` (a preset's sizes), or an error.
#[macro_export]
macro_rules! with_conn_chk {
    ($cfg:expr, $ty:ident => $body:expr) => {{
        let c: &$crate::mrnic_model::transport::conn_chk_shell::ConnChkConfig = $cfg;
        match c.conn_bits() {
            8 => {
                type $ty = $crate::conn_chk::ConnChk<8, 16>;
                Ok($body)
            }
            4 => {
                type $ty = $crate::conn_chk::ConnChk<4, 20>;
                Ok($body)
            }
            10 => {
                type $ty = $crate::conn_chk::ConnChk<10, 14>;
                Ok($body)
            }
            cb => Err($crate::mrnic_model::config::ConfigError::invalid(
                "conn_chk",
                format!("no ConnChk is instantiated for connections = 2^{cb} (add the row to with_conn_chk!)"),
            )),
        }
    }};
}
