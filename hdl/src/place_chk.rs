//! # DMA placement unit, checks (`mrnic_place_chk`)
//!
//! **Purpose.** The key, rights and bounds checks of the DMA placement unit (issue 12,
//! protocol §6.11) in hardware: the memory-region table, the posted receive buffers and
//! each connection's receive-queue state in block RAM, written through a configuration
//! port; for each DATA packet the decision of `mrnic_model::transport::placement::check`
//! on the rows the packet read: the host address and the window `[base, base + wlen)` that
//! the write path (`mrnic_placement`: `s_addr`, `s_base`, `s_wlen`) must stay inside, or
//! the NAK code. Semantics: the model cycle shell
//! `mrnic_model::transport::place_chk_shell::ChkShell`, diffed cycle by cycle.
//!
//! **Ports** (I = log2 mr_entries, C = log2 connections, R = log2 rq_depth, CR = C + R).
//! - global: `clock`, `rst` (synchronous).
//! - config stream in: `s_cfg_valid`/`s_cfg_ready`, `s_cfg_table` (2: 0 MR, 1 RB, 2 RQ),
//!   `s_cfg_row` (CR: RB row `conn << R | slot`, RQ row `conn` in its low C bits),
//!   `s_cfg_key` (32: the rkey; its low I bits are the MR row), `s_cfg_live` (MR row
//!   valid), `s_cfg_write` (remote write right), `s_cfg_pd` (32), `s_cfg_base` (64: MR
//!   base or RB address), `s_cfg_len` (64), `s_cfg_head` (24), `s_cfg_count` (16).
//! - request stream in: `s_valid`/`s_ready`, `s_conn` (C), `s_pd` (32), `s_send` (0 WRITE,
//!   1 SEND), `s_va` (64), `s_rkey` (32), `s_len` (16), `s_ssn` (24), `s_tag` (8).
//! - result stream out: `m_valid`/`m_ready`, `m_tag` (8), `m_ok`, `m_nak` (3: the NakCode,
//!   0 when ok), `m_addr`, `m_base`, `m_wlen` (64 each, 0 on a NAK), `m_len` (16).
//! - status: `stat_ok`, `stat_bad_rkey`, `stat_out_of_bounds`, `stat_access_denied`,
//!   `stat_no_rbuf`, `stat_invalid` (results transferred, by outcome), `stat_cfg_writes`,
//!   `stat_cfg_refused` (32-bit, wrapping).
//! - sizes: const generics `I`, `C`, `R`, `CR`; `mtu` and `rq_depth` constants
//!   (localparams `k_mtu`, `k_depth`), checked by [`PlaceChk::try_new`].
//!
//! **Tables**: one [`BlockRam`] per field (write-first: a read sees the write of its own
//! cycle). MR (2^I rows): `live` 1, `write` 1, `pd` 32, `key` 32, `base` 64, `len` 64 =
//! 194 bits a row. RB (2^CR rows): `addr` 64, `len` 64 = 128 bits a row, `128 x rq_depth`
//! bits per connection. RQ (2^C rows): `head` 24, `count` 16 = 40 bits per connection.
//!
//! **Pipeline.** Cycle t: the request is transferred and every table is read at its rows
//! (`rkey`'s low I bits; `conn, ssn mod rq_depth`; `conn`); `a_end` = va + len (65 bits) and
//! `len > mtu` are registered. Cycle t + 1 (stage A): the rows (`read_data`, or the copy
//! held in `h_*` when the stage has stalled since t + 1) are registered into `b_*` with the
//! request, so that no compare starts at a block RAM's clock-to-out (5.6 ns on an ECP5
//! DP16KD). Cycle t + 2 (stage B): the rows in `b_*` are compared; seven flags (`hit`,
//! write right, `lo`, `have`, `fit`, `len > mtu`, the kind), the two ends of the region
//! bound (`va + len`, `base + len_mr`) and the window's candidates (chosen by the kind) are
//! registered into `r_*`. Cycle t + 3 (stage C): the region bound's compare `hi`, then the
//! NAK code as a priority chain over the flags, ok = no NAK, the window zeroed on a NAK;
//! registered into `o_*`. Cycle t + 4: `m_valid`. **Latency** 4, **II** 1: `en` =
//! `!rst & (!m_valid | m_ready)` advances all stages together, `s_ready` = `en`.
//!
//! **Combinational paths.** `m_ready -> s_ready` (the pipeline enable); `rst` -> every
//! valid and ready output. Internal paths, one carry chain at most each: stage A, a RAM's
//! output -> the `h_*` / `read_data` mux -> `b_*` (the ECP5's worst: the DP16KD's 5.8 ns
//! clock-to-out); stage B, `b_*` -> a 65-bit compare or sum -> `r_*`; stage C, `r_end`,
//! `r_bend` -> the 65-bit compare `hi` -> the NAK chain -> ok -> the zeroing of 192 output
//! bits (the UP5K's worst).
//!
//! **Hazards.** A config write and a request of the same cycle: the request sees the write
//! (RAM forwarding). A write after the request's transfer never reaches it: the rows are
//! read once at the transfer and held (`h_*`, then `b_*`, `r_*`) while the result waits, so the window a
//! result carries is the row as it was when the request was checked.
//!
//! **Reset** (`rst`): the pipeline empties, counters 0; the tables are data and keep their
//! contents (at power up they are undefined: write every row before the first request).

use crate::prim::BlockRam;
use mrnic_model::config::ConfigError;
use mrnic_model::transport::place_chk_shell::ChkConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PlaceChk<const I: usize, const C: usize, const R: usize, const CR: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_cfg_valid: Signal<In, bool>,
    pub s_cfg_table: Signal<In, Bits<2>>,
    pub s_cfg_row: Signal<In, Bits<CR>>,
    pub s_cfg_key: Signal<In, Bits<32>>,
    pub s_cfg_live: Signal<In, bool>,
    pub s_cfg_write: Signal<In, bool>,
    pub s_cfg_pd: Signal<In, Bits<32>>,
    pub s_cfg_base: Signal<In, Bits<64>>,
    pub s_cfg_len: Signal<In, Bits<64>>,
    pub s_cfg_head: Signal<In, Bits<24>>,
    pub s_cfg_count: Signal<In, Bits<16>>,
    pub s_valid: Signal<In, bool>,
    pub s_conn: Signal<In, Bits<C>>,
    pub s_pd: Signal<In, Bits<32>>,
    pub s_send: Signal<In, bool>,
    pub s_va: Signal<In, Bits<64>>,
    pub s_rkey: Signal<In, Bits<32>>,
    pub s_len: Signal<In, Bits<16>>,
    pub s_ssn: Signal<In, Bits<24>>,
    pub s_tag: Signal<In, Bits<8>>,
    pub m_ready: Signal<In, bool>,
    pub s_cfg_ready: Signal<Out, bool>,
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_tag: Signal<Out, Bits<8>>,
    pub m_ok: Signal<Out, bool>,
    pub m_nak: Signal<Out, Bits<3>>,
    pub m_addr: Signal<Out, Bits<64>>,
    pub m_base: Signal<Out, Bits<64>>,
    pub m_wlen: Signal<Out, Bits<64>>,
    pub m_len: Signal<Out, Bits<16>>,
    pub stat_ok: Signal<Out, Bits<32>>,
    pub stat_bad_rkey: Signal<Out, Bits<32>>,
    pub stat_out_of_bounds: Signal<Out, Bits<32>>,
    pub stat_access_denied: Signal<Out, Bits<32>>,
    pub stat_no_rbuf: Signal<Out, Bits<32>>,
    pub stat_invalid: Signal<Out, Bits<32>>,
    pub stat_cfg_writes: Signal<Out, Bits<32>>,
    pub stat_cfg_refused: Signal<Out, Bits<32>>,
    ram_mr_live: BlockRam<1, I>,
    ram_mr_write: BlockRam<1, I>,
    ram_mr_pd: BlockRam<32, I>,
    ram_mr_key: BlockRam<32, I>,
    ram_mr_base: BlockRam<64, I>,
    ram_mr_len: BlockRam<64, I>,
    ram_rb_addr: BlockRam<64, CR>,
    ram_rb_len: BlockRam<64, CR>,
    ram_rq_head: BlockRam<24, C>,
    ram_rq_count: BlockRam<16, C>,
    a_v: DFF<bool>,
    a_fresh: DFF<bool>,
    a_pd: DFF<Bits<32>>,
    a_send: DFF<bool>,
    a_va: DFF<Bits<64>>,
    a_rkey: DFF<Bits<32>>,
    a_len: DFF<Bits<16>>,
    a_ssn: DFF<Bits<24>>,
    a_tag: DFF<Bits<8>>,
    a_end: DFF<Bits<65>>,
    a_big: DFF<bool>,
    h_mr_live: DFF<Bits<1>>,
    h_mr_write: DFF<Bits<1>>,
    h_mr_pd: DFF<Bits<32>>,
    h_mr_key: DFF<Bits<32>>,
    h_mr_base: DFF<Bits<64>>,
    h_mr_len: DFF<Bits<64>>,
    h_rb_addr: DFF<Bits<64>>,
    h_rb_len: DFF<Bits<64>>,
    h_rq_head: DFF<Bits<24>>,
    h_rq_count: DFF<Bits<16>>,
    b_v: DFF<bool>,
    b_pd: DFF<Bits<32>>,
    b_send: DFF<bool>,
    b_va: DFF<Bits<64>>,
    b_rkey: DFF<Bits<32>>,
    b_len: DFF<Bits<16>>,
    b_ssn: DFF<Bits<24>>,
    b_tag: DFF<Bits<8>>,
    b_end: DFF<Bits<65>>,
    b_big: DFF<bool>,
    b_mr_live: DFF<Bits<1>>,
    b_mr_write: DFF<Bits<1>>,
    b_mr_pd: DFF<Bits<32>>,
    b_mr_key: DFF<Bits<32>>,
    b_mr_base: DFF<Bits<64>>,
    b_mr_len: DFF<Bits<64>>,
    b_rb_addr: DFF<Bits<64>>,
    b_rb_len: DFF<Bits<64>>,
    b_rq_head: DFF<Bits<24>>,
    b_rq_count: DFF<Bits<16>>,
    r_v: DFF<bool>,
    r_tag: DFF<Bits<8>>,
    r_len: DFF<Bits<16>>,
    r_big: DFF<bool>,
    r_send: DFF<bool>,
    r_hit: DFF<bool>,
    r_write: DFF<bool>,
    r_lo: DFF<bool>,
    r_end: DFF<Bits<65>>,
    r_bend: DFF<Bits<65>>,
    r_have: DFF<bool>,
    r_fit: DFF<bool>,
    r_addr: DFF<Bits<64>>,
    r_base: DFF<Bits<64>>,
    r_wlen: DFF<Bits<64>>,
    o_v: DFF<bool>,
    o_ok: DFF<bool>,
    o_nak: DFF<Bits<3>>,
    o_addr: DFF<Bits<64>>,
    o_base: DFF<Bits<64>>,
    o_wlen: DFF<Bits<64>>,
    o_tag: DFF<Bits<8>>,
    o_len: DFF<Bits<16>>,
    c_ok: DFF<Bits<32>>,
    c_bad_rkey: DFF<Bits<32>>,
    c_oob: DFF<Bits<32>>,
    c_acc: DFF<Bits<32>>,
    c_norb: DFF<Bits<32>>,
    c_inv: DFF<Bits<32>>,
    c_cfg: DFF<Bits<32>>,
    c_cfg_bad: DFF<Bits<32>>,
    on: Signal<Local, bool>,
    en: Signal<Local, bool>,
    acc: Signal<Local, bool>,
    cfg_hs: Signal<Local, bool>,
    rb_raddr: Signal<Local, Bits<CR>>,
    cnt_ok: Signal<Local, bool>,
    x_mr_live: Signal<Local, Bits<1>>,
    x_mr_write: Signal<Local, Bits<1>>,
    x_mr_pd: Signal<Local, Bits<32>>,
    x_mr_key: Signal<Local, Bits<32>>,
    x_mr_base: Signal<Local, Bits<64>>,
    x_mr_len: Signal<Local, Bits<64>>,
    x_rb_addr: Signal<Local, Bits<64>>,
    x_rb_len: Signal<Local, Bits<64>>,
    x_rq_head: Signal<Local, Bits<24>>,
    x_rq_count: Signal<Local, Bits<16>>,
    hit: Signal<Local, bool>,
    w_bend: Signal<Local, Bits<65>>,
    lo_ok: Signal<Local, bool>,
    hi_ok: Signal<Local, bool>,
    k_sub: Signal<Local, Bits<24>>,
    have: Signal<Local, bool>,
    s_fit: Signal<Local, bool>,
    s_addr: Signal<Local, Bits<64>>,
    e_addr: Signal<Local, Bits<64>>,
    e_base: Signal<Local, Bits<64>>,
    e_wlen: Signal<Local, Bits<64>>,
    d_ok: Signal<Local, bool>,
    d_nak: Signal<Local, Bits<3>>,
    d_addr: Signal<Local, Bits<64>>,
    d_base: Signal<Local, Bits<64>>,
    d_wlen: Signal<Local, Bits<64>>,
    m_hs: Signal<Local, bool>,
    k_mtu: Constant<Bits<16>>,
    k_depth: Constant<Bits<16>>,
    k_r: Constant<Bits<8>>,
    k_t0: Constant<Bits<2>>,
    k_t1: Constant<Bits<2>>,
    k_t2: Constant<Bits<2>>,
    k_t3: Constant<Bits<2>>,
    k_n0: Constant<Bits<3>>,
    k_n1: Constant<Bits<3>>,
    k_n2: Constant<Bits<3>>,
    k_n3: Constant<Bits<3>>,
    k_n4: Constant<Bits<3>>,
    k_n5: Constant<Bits<3>>,
    k_z64: Constant<Bits<64>>,
    k_z32: Constant<Bits<32>>,
}

impl<const I: usize, const C: usize, const R: usize, const CR: usize> PlaceChk<I, C, R, CR> {
    /// The unit for `cfg`; refused when the const generics do not match it.
    pub fn try_new(cfg: &ChkConfig) -> Result<Self, ConfigError> {
        let mismatch = |f: &str, want: usize, got: usize| Err(ConfigError::invalid(format!("PlaceChk.{f}"), format!("the generic is {got}, the configuration says {want}")));
        if I != cfg.idx_bits() as usize {
            return mismatch("I", cfg.idx_bits() as usize, I);
        }
        if C != cfg.conn_bits() as usize {
            return mismatch("C", cfg.conn_bits() as usize, C);
        }
        if R != cfg.slot_bits() as usize || R == 0 {
            return mismatch("R", cfg.slot_bits() as usize, R);
        }
        if CR != C + R {
            return mismatch("CR", C + R, CR);
        }
        if cfg.mtu >= 1 << 16 || cfg.rq_depth >= 1 << 16 {
            return Err(ConfigError::invalid("PlaceChk.mtu", "mtu and rq_depth must fit the 16-bit len and count fields"));
        }
        let n = |v: u64| Constant::new(Bits::<3>::from(v));
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_cfg_valid: Default::default(),
            s_cfg_table: Default::default(),
            s_cfg_row: Default::default(),
            s_cfg_key: Default::default(),
            s_cfg_live: Default::default(),
            s_cfg_write: Default::default(),
            s_cfg_pd: Default::default(),
            s_cfg_base: Default::default(),
            s_cfg_len: Default::default(),
            s_cfg_head: Default::default(),
            s_cfg_count: Default::default(),
            s_valid: Default::default(),
            s_conn: Default::default(),
            s_pd: Default::default(),
            s_send: Default::default(),
            s_va: Default::default(),
            s_rkey: Default::default(),
            s_len: Default::default(),
            s_ssn: Default::default(),
            s_tag: Default::default(),
            m_ready: Default::default(),
            s_cfg_ready: Default::default(),
            s_ready: Default::default(),
            m_valid: Default::default(),
            m_tag: Default::default(),
            m_ok: Default::default(),
            m_nak: Default::default(),
            m_addr: Default::default(),
            m_base: Default::default(),
            m_wlen: Default::default(),
            m_len: Default::default(),
            stat_ok: Default::default(),
            stat_bad_rkey: Default::default(),
            stat_out_of_bounds: Default::default(),
            stat_access_denied: Default::default(),
            stat_no_rbuf: Default::default(),
            stat_invalid: Default::default(),
            stat_cfg_writes: Default::default(),
            stat_cfg_refused: Default::default(),
            ram_mr_live: Default::default(),
            ram_mr_write: Default::default(),
            ram_mr_pd: Default::default(),
            ram_mr_key: Default::default(),
            ram_mr_base: Default::default(),
            ram_mr_len: Default::default(),
            ram_rb_addr: Default::default(),
            ram_rb_len: Default::default(),
            ram_rq_head: Default::default(),
            ram_rq_count: Default::default(),
            a_v: Default::default(),
            a_fresh: Default::default(),
            a_pd: Default::default(),
            a_send: Default::default(),
            a_va: Default::default(),
            a_rkey: Default::default(),
            a_len: Default::default(),
            a_ssn: Default::default(),
            a_tag: Default::default(),
            a_end: Default::default(),
            a_big: Default::default(),
            h_mr_live: Default::default(),
            h_mr_write: Default::default(),
            h_mr_pd: Default::default(),
            h_mr_key: Default::default(),
            h_mr_base: Default::default(),
            h_mr_len: Default::default(),
            h_rb_addr: Default::default(),
            h_rb_len: Default::default(),
            h_rq_head: Default::default(),
            h_rq_count: Default::default(),
            b_v: Default::default(),
            b_pd: Default::default(),
            b_send: Default::default(),
            b_va: Default::default(),
            b_rkey: Default::default(),
            b_len: Default::default(),
            b_ssn: Default::default(),
            b_tag: Default::default(),
            b_end: Default::default(),
            b_big: Default::default(),
            b_mr_live: Default::default(),
            b_mr_write: Default::default(),
            b_mr_pd: Default::default(),
            b_mr_key: Default::default(),
            b_mr_base: Default::default(),
            b_mr_len: Default::default(),
            b_rb_addr: Default::default(),
            b_rb_len: Default::default(),
            b_rq_head: Default::default(),
            b_rq_count: Default::default(),
            r_v: Default::default(),
            r_tag: Default::default(),
            r_len: Default::default(),
            r_big: Default::default(),
            r_send: Default::default(),
            r_hit: Default::default(),
            r_write: Default::default(),
            r_lo: Default::default(),
            r_end: Default::default(),
            r_bend: Default::default(),
            r_have: Default::default(),
            r_fit: Default::default(),
            r_addr: Default::default(),
            r_base: Default::default(),
            r_wlen: Default::default(),
            o_v: Default::default(),
            o_ok: Default::default(),
            o_nak: Default::default(),
            o_addr: Default::default(),
            o_base: Default::default(),
            o_wlen: Default::default(),
            o_tag: Default::default(),
            o_len: Default::default(),
            c_ok: Default::default(),
            c_bad_rkey: Default::default(),
            c_oob: Default::default(),
            c_acc: Default::default(),
            c_norb: Default::default(),
            c_inv: Default::default(),
            c_cfg: Default::default(),
            c_cfg_bad: Default::default(),
            on: Default::default(),
            en: Default::default(),
            acc: Default::default(),
            cfg_hs: Default::default(),
            rb_raddr: Default::default(),
            cnt_ok: Default::default(),
            x_mr_live: Default::default(),
            x_mr_write: Default::default(),
            x_mr_pd: Default::default(),
            x_mr_key: Default::default(),
            x_mr_base: Default::default(),
            x_mr_len: Default::default(),
            x_rb_addr: Default::default(),
            x_rb_len: Default::default(),
            x_rq_head: Default::default(),
            x_rq_count: Default::default(),
            hit: Default::default(),
            w_bend: Default::default(),
            lo_ok: Default::default(),
            hi_ok: Default::default(),
            k_sub: Default::default(),
            have: Default::default(),
            s_fit: Default::default(),
            s_addr: Default::default(),
            e_addr: Default::default(),
            e_base: Default::default(),
            e_wlen: Default::default(),
            d_ok: Default::default(),
            d_nak: Default::default(),
            d_addr: Default::default(),
            d_base: Default::default(),
            d_wlen: Default::default(),
            m_hs: Default::default(),
            k_mtu: Constant::new(u64::from(cfg.mtu).into()),
            k_depth: Constant::new(u64::from(cfg.rq_depth).into()),
            k_r: Constant::new((R as u64).into()),
            k_t0: Constant::new(0u64.into()),
            k_t1: Constant::new(1u64.into()),
            k_t2: Constant::new(2u64.into()),
            k_t3: Constant::new(3u64.into()),
            k_n0: n(0),
            k_n1: n(1),
            k_n2: n(2),
            k_n3: n(3),
            k_n4: n(4),
            k_n5: n(5),
            k_z64: Constant::new(0u64.into()),
            k_z32: Constant::new(0u64.into()),
        })
    }
}

impl<const I: usize, const C: usize, const R: usize, const CR: usize> Logic for PlaceChk<I, C, R, CR> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_v, a_fresh, a_pd, a_send, a_va, a_rkey, a_len, a_ssn, a_tag, a_end, a_big, h_mr_live, h_mr_write, h_mr_pd, h_mr_key, h_mr_base, h_mr_len, h_rb_addr, h_rb_len, h_rq_head, h_rq_count, b_v, b_pd, b_send, b_va, b_rkey, b_len, b_ssn, b_tag, b_end, b_big, b_mr_live, b_mr_write, b_mr_pd, b_mr_key, b_mr_base, b_mr_len, b_rb_addr, b_rb_len, b_rq_head, b_rq_count, r_v, r_tag, r_len, r_big, r_send, r_hit, r_write, r_lo, r_end, r_bend, r_have, r_fit, r_addr, r_base, r_wlen, o_v, o_ok, o_nak, o_addr, o_base, o_wlen, o_tag, o_len, c_ok, c_bad_rkey, c_oob, c_acc, c_norb, c_inv, c_cfg, c_cfg_bad);
        // ---- handshakes
        self.on.next = !self.rst.val();
        self.en.next = self.on.val() & (!self.o_v.q.val() | self.m_ready.val());
        self.acc.next = self.en.val() & self.s_valid.val();
        self.cfg_hs.next = self.on.val() & self.s_cfg_valid.val();
        self.m_hs.next = self.on.val() & self.o_v.q.val() & self.m_ready.val();
        self.cnt_ok.next = self.s_cfg_count.val() <= self.k_depth.val();
        self.rb_raddr.next = (bit_cast::<CR, C>(self.s_conn.val()) << self.k_r.val()) | bit_cast::<CR, R>(self.s_ssn.val().get_bits::<R>(0));
        // ---- the tables: written by the config port, read at the request's rows
        self.ram_mr_live.clock.next = self.clock.val();
        self.ram_mr_live.write_data.next = self.s_cfg_live.val().into();
        self.ram_mr_live.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_live.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_live.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_live.next = self.h_mr_live.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_live.next = self.ram_mr_live.read_data.val();
            self.h_mr_live.d.next = self.ram_mr_live.read_data.val();
        }
        self.ram_mr_write.clock.next = self.clock.val();
        self.ram_mr_write.write_data.next = self.s_cfg_write.val().into();
        self.ram_mr_write.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_write.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_write.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_write.next = self.h_mr_write.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_write.next = self.ram_mr_write.read_data.val();
            self.h_mr_write.d.next = self.ram_mr_write.read_data.val();
        }
        self.ram_mr_pd.clock.next = self.clock.val();
        self.ram_mr_pd.write_data.next = self.s_cfg_pd.val();
        self.ram_mr_pd.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_pd.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_pd.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_pd.next = self.h_mr_pd.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_pd.next = self.ram_mr_pd.read_data.val();
            self.h_mr_pd.d.next = self.ram_mr_pd.read_data.val();
        }
        self.ram_mr_key.clock.next = self.clock.val();
        self.ram_mr_key.write_data.next = self.s_cfg_key.val();
        self.ram_mr_key.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_key.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_key.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_key.next = self.h_mr_key.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_key.next = self.ram_mr_key.read_data.val();
            self.h_mr_key.d.next = self.ram_mr_key.read_data.val();
        }
        self.ram_mr_base.clock.next = self.clock.val();
        self.ram_mr_base.write_data.next = self.s_cfg_base.val();
        self.ram_mr_base.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_base.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_base.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_base.next = self.h_mr_base.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_base.next = self.ram_mr_base.read_data.val();
            self.h_mr_base.d.next = self.ram_mr_base.read_data.val();
        }
        self.ram_mr_len.clock.next = self.clock.val();
        self.ram_mr_len.write_data.next = self.s_cfg_len.val();
        self.ram_mr_len.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t0.val());
        self.ram_mr_len.write_address.next = self.s_cfg_key.val().get_bits::<I>(0);
        self.ram_mr_len.read_address.next = self.s_rkey.val().get_bits::<I>(0);
        self.x_mr_len.next = self.h_mr_len.q.val();
        if self.a_fresh.q.val() {
            self.x_mr_len.next = self.ram_mr_len.read_data.val();
            self.h_mr_len.d.next = self.ram_mr_len.read_data.val();
        }
        self.ram_rb_addr.clock.next = self.clock.val();
        self.ram_rb_addr.write_data.next = self.s_cfg_base.val();
        self.ram_rb_addr.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t1.val());
        self.ram_rb_addr.write_address.next = self.s_cfg_row.val();
        self.ram_rb_addr.read_address.next = self.rb_raddr.val();
        self.x_rb_addr.next = self.h_rb_addr.q.val();
        if self.a_fresh.q.val() {
            self.x_rb_addr.next = self.ram_rb_addr.read_data.val();
            self.h_rb_addr.d.next = self.ram_rb_addr.read_data.val();
        }
        self.ram_rb_len.clock.next = self.clock.val();
        self.ram_rb_len.write_data.next = self.s_cfg_len.val();
        self.ram_rb_len.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t1.val());
        self.ram_rb_len.write_address.next = self.s_cfg_row.val();
        self.ram_rb_len.read_address.next = self.rb_raddr.val();
        self.x_rb_len.next = self.h_rb_len.q.val();
        if self.a_fresh.q.val() {
            self.x_rb_len.next = self.ram_rb_len.read_data.val();
            self.h_rb_len.d.next = self.ram_rb_len.read_data.val();
        }
        self.ram_rq_head.clock.next = self.clock.val();
        self.ram_rq_head.write_data.next = self.s_cfg_head.val();
        self.ram_rq_head.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t2.val()) & self.cnt_ok.val();
        self.ram_rq_head.write_address.next = self.s_cfg_row.val().get_bits::<C>(0);
        self.ram_rq_head.read_address.next = self.s_conn.val();
        self.x_rq_head.next = self.h_rq_head.q.val();
        if self.a_fresh.q.val() {
            self.x_rq_head.next = self.ram_rq_head.read_data.val();
            self.h_rq_head.d.next = self.ram_rq_head.read_data.val();
        }
        self.ram_rq_count.clock.next = self.clock.val();
        self.ram_rq_count.write_data.next = self.s_cfg_count.val();
        self.ram_rq_count.write_enable.next = self.cfg_hs.val() & (self.s_cfg_table.val() == self.k_t2.val()) & self.cnt_ok.val();
        self.ram_rq_count.write_address.next = self.s_cfg_row.val().get_bits::<C>(0);
        self.ram_rq_count.read_address.next = self.s_conn.val();
        self.x_rq_count.next = self.h_rq_count.q.val();
        if self.a_fresh.q.val() {
            self.x_rq_count.next = self.ram_rq_count.read_data.val();
            self.h_rq_count.d.next = self.ram_rq_count.read_data.val();
        }
        // ---- stage B: the checks on the rows the request read (registered in b_*)
        self.hit.next = self.b_mr_live.q.val().any() & (self.b_mr_key.q.val() == self.b_rkey.q.val()) & (self.b_mr_pd.q.val() == self.b_pd.q.val());
        self.w_bend.next = bit_cast::<65, 64>(self.b_mr_base.q.val()) + bit_cast::<65, 64>(self.b_mr_len.q.val());
        self.lo_ok.next = self.b_va.q.val() >= self.b_mr_base.q.val();
        self.k_sub.next = self.b_ssn.q.val() - self.b_rq_head.q.val();
        self.have.next = self.k_sub.val() < bit_cast::<24, 16>(self.b_rq_count.q.val());
        self.s_fit.next = self.b_end.q.val() <= bit_cast::<65, 64>(self.b_rb_len.q.val());
        self.s_addr.next = self.b_rb_addr.q.val() + self.b_va.q.val();
        // the window's candidates, chosen by the kind alone
        self.e_addr.next = self.b_va.q.val();
        self.e_base.next = self.b_mr_base.q.val();
        self.e_wlen.next = self.b_mr_len.q.val();
        if self.b_send.q.val() {
            self.e_addr.next = self.s_addr.val();
            self.e_base.next = self.b_rb_addr.q.val();
            self.e_wlen.next = self.b_rb_len.q.val();
        }
        // ---- stage C: the decision on the registered flags (r_*): the region bound `hi`
        // (its two 65-bit ends were summed in B), the NAK code, a priority chain over eight
        // flags (spec order), and ok = no NAK; the window is zeroed on a NAK, one LUT4 (or a
        // synchronous reset) a bit
        self.hi_ok.next = self.r_end.q.val() <= self.r_bend.q.val();
        self.d_nak.next = self.k_n0.val();
        if self.r_big.q.val() {
            self.d_nak.next = self.k_n5.val();
        } else if self.r_send.q.val() {
            if !self.r_have.q.val() {
                self.d_nak.next = self.k_n4.val();
            } else if !self.r_fit.q.val() {
                self.d_nak.next = self.k_n2.val();
            }
        } else if !self.r_hit.q.val() {
            self.d_nak.next = self.k_n1.val();
        } else if !self.r_write.q.val() {
            self.d_nak.next = self.k_n3.val();
        } else if !self.r_lo.q.val() | !self.hi_ok.val() {
            self.d_nak.next = self.k_n2.val();
        }
        self.d_ok.next = self.d_nak.val() == self.k_n0.val();
        self.d_addr.next = self.r_addr.q.val();
        self.d_base.next = self.r_base.q.val();
        self.d_wlen.next = self.r_wlen.q.val();
        if !self.d_ok.val() {
            self.d_addr.next = self.k_z64.val();
            self.d_base.next = self.k_z64.val();
            self.d_wlen.next = self.k_z64.val();
        }
        // ---- the pipeline: all stages advance together
        self.a_fresh.d.next = self.en.val();
        if self.en.val() {
            self.a_v.d.next = self.acc.val();
            self.a_pd.d.next = self.s_pd.val();
            self.a_send.d.next = self.s_send.val();
            self.a_va.d.next = self.s_va.val();
            self.a_rkey.d.next = self.s_rkey.val();
            self.a_len.d.next = self.s_len.val();
            self.a_ssn.d.next = self.s_ssn.val();
            self.a_tag.d.next = self.s_tag.val();
            self.a_end.d.next = bit_cast::<65, 64>(self.s_va.val()) + bit_cast::<65, 16>(self.s_len.val());
            self.a_big.d.next = self.s_len.val() > self.k_mtu.val();
            self.b_v.d.next = self.a_v.q.val();
            self.b_pd.d.next = self.a_pd.q.val();
            self.b_send.d.next = self.a_send.q.val();
            self.b_va.d.next = self.a_va.q.val();
            self.b_rkey.d.next = self.a_rkey.q.val();
            self.b_len.d.next = self.a_len.q.val();
            self.b_ssn.d.next = self.a_ssn.q.val();
            self.b_tag.d.next = self.a_tag.q.val();
            self.b_end.d.next = self.a_end.q.val();
            self.b_big.d.next = self.a_big.q.val();
            self.b_mr_live.d.next = self.x_mr_live.val();
            self.b_mr_write.d.next = self.x_mr_write.val();
            self.b_mr_pd.d.next = self.x_mr_pd.val();
            self.b_mr_key.d.next = self.x_mr_key.val();
            self.b_mr_base.d.next = self.x_mr_base.val();
            self.b_mr_len.d.next = self.x_mr_len.val();
            self.b_rb_addr.d.next = self.x_rb_addr.val();
            self.b_rb_len.d.next = self.x_rb_len.val();
            self.b_rq_head.d.next = self.x_rq_head.val();
            self.b_rq_count.d.next = self.x_rq_count.val();
            self.r_v.d.next = self.b_v.q.val();
            self.r_tag.d.next = self.b_tag.q.val();
            self.r_len.d.next = self.b_len.q.val();
            self.r_big.d.next = self.b_big.q.val();
            self.r_send.d.next = self.b_send.q.val();
            self.r_hit.d.next = self.hit.val();
            self.r_write.d.next = self.b_mr_write.q.val().any();
            self.r_lo.d.next = self.lo_ok.val();
            self.r_end.d.next = self.b_end.q.val();
            self.r_bend.d.next = self.w_bend.val();
            self.r_have.d.next = self.have.val();
            self.r_fit.d.next = self.s_fit.val();
            self.r_addr.d.next = self.e_addr.val();
            self.r_base.d.next = self.e_base.val();
            self.r_wlen.d.next = self.e_wlen.val();
            self.o_v.d.next = self.r_v.q.val();
            self.o_ok.d.next = self.d_ok.val();
            self.o_nak.d.next = self.d_nak.val();
            self.o_addr.d.next = self.d_addr.val();
            self.o_base.d.next = self.d_base.val();
            self.o_wlen.d.next = self.d_wlen.val();
            self.o_tag.d.next = self.r_tag.q.val();
            self.o_len.d.next = self.r_len.q.val();
        }
        // ---- outputs
        self.s_cfg_ready.next = self.on.val();
        self.s_ready.next = self.en.val();
        self.m_valid.next = self.on.val() & self.o_v.q.val();
        self.m_tag.next = self.o_tag.q.val();
        self.m_ok.next = self.o_ok.q.val();
        self.m_nak.next = self.o_nak.q.val();
        self.m_addr.next = self.o_addr.q.val();
        self.m_base.next = self.o_base.q.val();
        self.m_wlen.next = self.o_wlen.q.val();
        self.m_len.next = self.o_len.q.val();
        self.stat_ok.next = self.c_ok.q.val();
        self.stat_bad_rkey.next = self.c_bad_rkey.q.val();
        self.stat_out_of_bounds.next = self.c_oob.q.val();
        self.stat_access_denied.next = self.c_acc.q.val();
        self.stat_no_rbuf.next = self.c_norb.q.val();
        self.stat_invalid.next = self.c_inv.q.val();
        self.stat_cfg_writes.next = self.c_cfg.q.val();
        self.stat_cfg_refused.next = self.c_cfg_bad.q.val();
        // ---- counters
        if self.m_hs.val() {
            if self.o_nak.q.val() == self.k_n0.val() {
                self.c_ok.d.next = self.c_ok.q.val() + 1;
            } else if self.o_nak.q.val() == self.k_n1.val() {
                self.c_bad_rkey.d.next = self.c_bad_rkey.q.val() + 1;
            } else if self.o_nak.q.val() == self.k_n2.val() {
                self.c_oob.d.next = self.c_oob.q.val() + 1;
            } else if self.o_nak.q.val() == self.k_n3.val() {
                self.c_acc.d.next = self.c_acc.q.val() + 1;
            } else if self.o_nak.q.val() == self.k_n4.val() {
                self.c_norb.d.next = self.c_norb.q.val() + 1;
            } else {
                self.c_inv.d.next = self.c_inv.q.val() + 1;
            }
        }
        if self.cfg_hs.val() {
            self.c_cfg.d.next = self.c_cfg.q.val() + 1;
            if (self.s_cfg_table.val() == self.k_t2.val()) & !self.cnt_ok.val() {
                self.c_cfg_bad.d.next = self.c_cfg_bad.q.val() + 1;
            }
            if self.s_cfg_table.val() == self.k_t3.val() {
                self.c_cfg_bad.d.next = self.c_cfg_bad.q.val() + 1;
            }
        }
        if self.rst.val() {
            self.a_v.d.next = false;
            self.b_v.d.next = false;
            self.r_v.d.next = false;
            self.o_v.d.next = false;
            self.c_ok.d.next = self.k_z32.val();
            self.c_bad_rkey.d.next = self.k_z32.val();
            self.c_oob.d.next = self.k_z32.val();
            self.c_acc.d.next = self.k_z32.val();
            self.c_norb.d.next = self.k_z32.val();
            self.c_inv.d.next = self.k_z32.val();
            self.c_cfg.d.next = self.k_z32.val();
            self.c_cfg_bad.d.next = self.k_z32.val();
        }
    }
}

/// Calls `$body` with `$ty` = the [`PlaceChk`] of `$cfg` (a preset's sizes), or an error.
#[macro_export]
macro_rules! with_place_chk {
    ($cfg:expr, $ty:ident => $body:expr) => {{
        let c: &$crate::mrnic_model::transport::place_chk_shell::ChkConfig = $cfg;
        match (c.idx_bits(), c.conn_bits(), c.slot_bits()) {
            (8, 8, 2) => {
                type $ty = $crate::place_chk::PlaceChk<8, 8, 2, 10>;
                Ok($body)
            }
            (6, 4, 3) => {
                type $ty = $crate::place_chk::PlaceChk<6, 4, 3, 7>;
                Ok($body)
            }
            (10, 10, 6) => {
                type $ty = $crate::place_chk::PlaceChk<10, 10, 6, 16>;
                Ok($body)
            }
            (10, 8, 6) => {
                type $ty = $crate::place_chk::PlaceChk<10, 8, 6, 14>;
                Ok($body)
            }
            (10, 4, 6) => {
                type $ty = $crate::place_chk::PlaceChk<10, 4, 6, 10>;
                Ok($body)
            }
            (i, cb, r) => Err($crate::mrnic_model::config::ConfigError::invalid(
                "place_chk",
                format!("no PlaceChk is instantiated for mr_entries = 2^{i}, connections = 2^{cb}, rq_depth = 2^{r} (add the row to with_place_chk!)"),
            )),
        }
    }};
}
