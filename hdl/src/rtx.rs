//! # Retransmit queue (sender side, `mrnic_rtx`)
//!
//! **Purpose.** Per connection, the transmission records of the PSNs in flight or lost
//! (`docs/design/sender-rtl.md` §1.2): base and next PSN, R records (PSN mod W, path, path
//! PSN, send time, allocated, lost), the head wait and new-data copies; the operations of
//! §2.5 (RESET, SEND, ACK, LDET, DRAIN, QUERY, HEADTMO, MARKLOST, ABANDON, HWAIT, NEWDATA)
//! and the head-timer bank with its scanner (§3). Semantics: the model cycle shell
//! `mrnic_model::transport::rtx_shell::RtxShell`, diffed cycle by cycle.
//!
//! **Ports.**
//! - inputs: `clock`, `rst` (synchronous), `now` (32, the NIC time counter); stream
//!   `s_valid`/`s_ready`, `s_op` (4), `s_conn` (`CONN_BITS`), `s_psn` (24), `s_new`,
//!   `s_path` (4), `s_ppsn` (24), `s_sack` (W), `s_held` (W), `s_hw_valid`, `s_hw` (31),
//!   `s_nd`, `s_ldp_valid`, `s_ldp` (24); `m_ready`, `m_tmo_ready`.
//! - outputs: stream `m_valid`/`m_ready` with `m_op`, `m_conn`, `m_ok`, `m_psn`, `m_psn2`,
//!   `m_path` (4), `m_k` (9), `m_k2` (9), `m_psn3`, `m_psn4`, `m_n` (9 per path, path p in
//!   bits 9p..9p+9), `m_l` (same), `m_room`, `m_free`, `m_retx`; stream
//!   `m_tmo_valid`/`m_tmo_ready` with `m_tmo_conn`.
//! - config (constants, localparams): the reorder threshold K (`cfg_k`) and `cfg_head_on`;
//!   sizes as const generics (`CONN_BITS`, `W`, `P`, `R` and the derived widths).
//! - status: `stat_send`, `stat_retx`, `stat_acked`, `stat_spurious`, `stat_lost_path`,
//!   `stat_lost_drain`, `stat_head`, `stat_tmo` (32-bit, wrapping).
//!
//! **Latency** 11 ([`mrnic_model::transport::rtx_shell::RTX_LATENCY`]), applied as the op
//! leaves register 6; **II** 1, back to back on one connection included (no stall).
//!
//! **Pipeline.** Registers 1-5 carry the input beat; on the way into register 5 the SACK
//! bitmap is rotated to the op's PSN ([`crate::prim::RotateRight`]: bit `off` of it is the
//! SACK bit of the record with slot `off`). The state read is issued from register 3 (while
//! the pipeline holds, again for the op in register 4, the next to move); the words sit in
//! the RAMs' output registers ([`crate::prim::BlockRamReg`], read latency 2) as the op
//! enters register 5. The RAMs are written one cycle after L, from register 7 (`p7_n*`,
//! `w_v`), so L's next state drives flip-flops only; stage 5 muxes in the op 2 ahead's
//! word from register 7 while its write is in flight (`fw2`): the word then holds every
//! write but the op 1 ahead's, which is in L.
//! - **P (register 5 -> 6).** From that word and the op's fields, everything that depends on
//!   a record's stored tag: per record the slot match, head slot (for the stored base and
//!   for the op 1 ahead's PSN), cumulative (record PSN before the op's), SACK bit, abandon
//!   range, path match, LDET eligible and past the decrease point, held (`pr_*`); up to
//!   R = 16 the LDET order of every pair (the sign of the path PSNs' difference: the op's
//!   highest PSN cancels). The same on the tag the op 1 ahead writes if it is a SEND
//!   (`pn_*`). The op-level compares (room, PSN live, cumulative advance, ACK not past
//!   next) for each of the four (base, next) the op 1 ahead can leave (`pc_*`). Register 6
//!   takes the word again (`s6_*`) with the op 1 ahead's write muxed in (same connection).
//! - **L (register 6, the loop).** Only what the next op of the connection needs: select
//!   the op-level predicates by what the op 1 ahead did (`a1_*`), patch the record it wrote
//!   (its one-hot), mask with alloc/lost, the new record (lowest free, one-hot, from
//!   `alloc + 1`) and the next state, written back and forwarded into register 6 as the op
//!   leaves. No search, no count, no wide compare. An LDET's (DRAIN's) lost set is its
//!   eligible set, so the LDET cut that splits it into two batches (up to R = 16 a 16-input
//!   OR per record over the pairs' order; beyond, a walk over the keys) is computed beside
//!   L and feeds register 7 only (`p7_b1`, `p7_b2`), not the loop.
//! - **A (register 7 -> 8).** From the registered pre-state, post-state and record sets:
//!   the winners as one-hot vectors: first and last record of each LDET batch and the oldest
//!   lost record not held (up to R = 16 from the pairs' order L registered, `p7_dmin` /
//!   `p7_dmax`; beyond, a walk over the distances, whose results pass B as they are; ties
//!   to the first record as the model's walk), the record whose path is reported, the head
//!   record; the counts per batch and per path, room and free.
//! - **B (register 8 -> 9).** The one-hot selects: each winner's offset and then its
//!   distance from the base (one 8-bit subtract after the select), the paths, the head
//!   record's send time.
//! - **C (register 9 -> 10).** base + distance, the packed result, the head deadline.
//! Registers 10-11 carry the result (11 is the output register); the bank pipe 7-10 carries
//! the head deadline (computed at C), written into `rx_hd` as the op leaves register 10.
//! Registers 7 to 9 (and the bank pipe) move on reset too, so a deadline computed there is
//! never half applied.
//!
//! **Head-timer scanner.** `sc` counts connections; each unheld edge `rd` <- (sc,
//! `rx_hd[sc]`) (raw RAM, read-before-write), `hit` <- rd's connection if its deadline is
//! valid and `now` is at or after it, `m_tmo` <- hit. Held while `m_tmo_valid &&
//! !m_tmo_ready` (the read re-reads rd's entry).
//!
//! **Combinational paths.** `m_ready -> s_ready`, `m_ready -> RAM read address / write
//! enable`, `rst -> s_ready` (and `cl_on` registered -> `s_ready`). No path from `s_*` to `m_*`.
//!
//! **Hazards.** None left to the user: the RAMs' output registers forward the writes that
//! land while they load, stage 5 muxes in the op 2 ahead's (register 7), register 6 the op 1
//! ahead's next state, and L patches P's predicates
//! for what the op 1 ahead changed (one record's tag, base, next, alloc and lost bits).
//!
//! **Reset** empties registers 1-6 (never applied) and 7-11, clears counters and scanner;
//! bank writes of ops past the apply stage still land while `rst` is high. Then the
//! **post-reset sweep** (`cl_on`, `cl_c`): for C cycles the bank's write port clears entry
//! `cl_c` (a pending op write is dropped), `s_ready` is low and the scanner stays reset, so
//! no deadline survives a reset, even the random contents of a RAM at power-up. Connection
//! state is RAM (zero = RESET with isn 0): RESET every connection at setup.

use crate::prim::{BlockRamReg, RotateRight};
use mrnic_model::config::ConfigError;
use rust_hdl::prelude::*;

/// Width of one per-path count in `m_n` / `m_l` (up to R = 256 records).
pub const COUNT_BITS: usize = 9;

#[derive(LogicBlock)]
pub struct RetxQueue<
    const CONN_BITS: usize,
    const W: usize,
    const P: usize,
    const R: usize,
    const RI: usize,
    const R4: usize,
    const R8: usize,
    const R24: usize,
    const R32: usize,
    const NP: usize,
> {
    // ---- inputs
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub now: Signal<In, Bits<32>>,
    pub s_valid: Signal<In, bool>,
    pub s_op: Signal<In, Bits<4>>,
    pub s_conn: Signal<In, Bits<CONN_BITS>>,
    pub s_psn: Signal<In, Bits<24>>,
    pub s_new: Signal<In, bool>,
    pub s_path: Signal<In, Bits<4>>,
    pub s_ppsn: Signal<In, Bits<24>>,
    pub s_sack: Signal<In, Bits<W>>,
    pub s_held: Signal<In, Bits<W>>,
    pub s_hw_valid: Signal<In, bool>,
    pub s_hw: Signal<In, Bits<31>>,
    pub s_nd: Signal<In, bool>,
    pub s_ldp_valid: Signal<In, bool>,
    pub s_ldp: Signal<In, Bits<24>>,
    pub m_ready: Signal<In, bool>,
    pub m_tmo_ready: Signal<In, bool>,
    // ---- outputs
    pub s_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_op: Signal<Out, Bits<4>>,
    pub m_conn: Signal<Out, Bits<CONN_BITS>>,
    pub m_ok: Signal<Out, bool>,
    pub m_psn: Signal<Out, Bits<24>>,
    pub m_psn2: Signal<Out, Bits<24>>,
    pub m_path: Signal<Out, Bits<4>>,
    pub m_k: Signal<Out, Bits<9>>,
    pub m_k2: Signal<Out, Bits<9>>,
    pub m_psn3: Signal<Out, Bits<24>>,
    pub m_psn4: Signal<Out, Bits<24>>,
    pub m_n: Signal<Out, Bits<NP>>,
    pub m_l: Signal<Out, Bits<NP>>,
    pub m_room: Signal<Out, bool>,
    pub m_free: Signal<Out, bool>,
    pub m_retx: Signal<Out, bool>,
    pub m_tmo_valid: Signal<Out, bool>,
    pub m_tmo_conn: Signal<Out, Bits<CONN_BITS>>,
    // ---- status
    pub stat_send: Signal<Out, Bits<32>>,
    pub stat_retx: Signal<Out, Bits<32>>,
    pub stat_acked: Signal<Out, Bits<32>>,
    pub stat_spurious: Signal<Out, Bits<32>>,
    pub stat_lost_path: Signal<Out, Bits<32>>,
    pub stat_lost_drain: Signal<Out, Bits<32>>,
    pub stat_head: Signal<Out, Bits<32>>,
    pub stat_tmo: Signal<Out, Bits<32>>,
    // ---- connection state (rx_word split by field) and the deadline bank
    ram_base: BlockRamReg<24, CONN_BITS>,
    ram_next: BlockRamReg<24, CONN_BITS>,
    ram_alloc: BlockRamReg<R, CONN_BITS>,
    ram_lost: BlockRamReg<R, CONN_BITS>,
    ram_off: BlockRamReg<R8, CONN_BITS>,
    ram_path: BlockRamReg<R4, CONN_BITS>,
    ram_ppsn: BlockRamReg<R24, CONN_BITS>,
    ram_sent: BlockRamReg<R32, CONN_BITS>,
    ram_hw: BlockRamReg<32, CONN_BITS>,
    ram_nd: BlockRamReg<1, CONN_BITS>,
    bank: RAM<Bits<33>, CONN_BITS>,
    // ---- input registers 1..=6: valid, conn, packed fields, sack, held
    i1_v: DFF<bool>,
    i1_c: DFF<Bits<CONN_BITS>>,
    i1_f: DFF<Bits<160>>,
    i1_s: DFF<Bits<W>>,
    i1_h: DFF<Bits<W>>,
    i2_v: DFF<bool>,
    i2_c: DFF<Bits<CONN_BITS>>,
    i2_f: DFF<Bits<160>>,
    i2_s: DFF<Bits<W>>,
    i2_h: DFF<Bits<W>>,
    i3_v: DFF<bool>,
    i3_c: DFF<Bits<CONN_BITS>>,
    i3_f: DFF<Bits<160>>,
    i3_s: DFF<Bits<W>>,
    i3_h: DFF<Bits<W>>,
    i4_v: DFF<bool>,
    i4_c: DFF<Bits<CONN_BITS>>,
    i4_f: DFF<Bits<160>>,
    i4_s: DFF<Bits<W>>,
    i4_h: DFF<Bits<W>>,
    i5_v: DFF<bool>,
    i5_c: DFF<Bits<CONN_BITS>>,
    i5_f: DFF<Bits<160>>,
    i5_s: DFF<Bits<W>>,
    i5_h: DFF<Bits<W>>,
    i6_v: DFF<bool>,
    i6_c: DFF<Bits<CONN_BITS>>,
    i6_f: DFF<Bits<160>>,
    // ---- register 6: the connection's word, forwarded from the loop (the op 1 ahead's
    // write), and the predicates stage 5 computed from the RAM's word (`pr_*`: per record
    // on its stored tag; `pn_*`: on the tag the op 1 ahead writes, if it is a SEND;
    // `pc_*`: the op-level predicates for the four (base, next) the op 1 ahead can leave)
    s6_base: DFF<Bits<24>>,
    s6_next: DFF<Bits<24>>,
    s6_alloc: DFF<Bits<R>>,
    s6_lost: DFF<Bits<R>>,
    s6_offs: DFF<Bits<R8>>,
    s6_paths: DFF<Bits<R4>>,
    s6_ppsns: DFF<Bits<R24>>,
    s6_sents: DFF<Bits<R32>>,
    s6_hw: DFF<Bits<32>>,
    s6_nd: DFF<bool>,
    pr_m: DFF<Bits<R>>,
    pr_bm0: DFF<Bits<R>>,
    pr_bm1: DFF<Bits<R>>,
    pr_cum: DFF<Bits<R>>,
    pr_sack: DFF<Bits<R>>,
    pr_ab: DFF<Bits<R>>,
    pr_pm: DFF<Bits<R>>,
    pr_ld: DFF<Bits<R>>,
    pr_pass: DFF<Bits<R>>,
    pr_qh: DFF<Bits<R>>,
    /// Up to R = 16: bit 16 i + j is set iff record i's LDET key is below record j's (both
    /// eligible); stored path PSNs only, so the op's own fields do not enter it.
    pr_lt: DFF<Bits<256>>,
    pn_m: DFF<bool>,
    pn_bm: DFF<bool>,
    pn_cum: DFF<bool>,
    pn_sack: DFF<bool>,
    pn_ab: DFF<bool>,
    pn_pm: DFF<bool>,
    pn_ld: DFF<bool>,
    pn_pass: DFF<bool>,
    pn_qh: DFF<bool>,
    pn_ltc: DFF<Bits<R>>,
    pn_ltr: DFF<Bits<R>>,
    pc_room: DFF<Bits<4>>,
    pc_live: DFF<Bits<4>>,
    pc_cadv: DFF<Bits<4>>,
    pc_ackok: DFF<Bits<4>>,
    /// The op 1 ahead is on the same connection (and valid); what its L did: the records it
    /// wrote (one-hot), RESET, base moved to its PSN (ACK), next + 1 (new SEND).
    a1_f: DFF<bool>,
    a1_wr: DFF<Bits<R>>,
    /// The tag the op 1 ahead wrote into that record: slot, path, path PSN, send time.
    a1_off: DFF<Bits<8>>,
    a1_path: DFF<Bits<4>>,
    a1_ppsn: DFF<Bits<24>>,
    a1_sent: DFF<Bits<32>>,
    a1_rst: DFF<bool>,
    a1_badv: DFF<bool>,
    a1_ninc: DFF<bool>,
    // ---- stage 5 (P) combinational
    g_psn: Signal<Local, Bits<24>>,
    g_path: Signal<Local, Bits<4>>,
    g_ppsn: Signal<Local, Bits<24>>,
    g_ldpv: Signal<Local, bool>,
    g_ldp: Signal<Local, Bits<24>>,
    g_ppk: Signal<Local, Bits<24>>,
    g_pslot: Signal<Local, Bits<8>>,
    g_base: Signal<Local, Bits<24>>,
    g_next: Signal<Local, Bits<24>>,
    g_next1: Signal<Local, Bits<24>>,
    g_offs: Signal<Local, Bits<R8>>,
    g_paths: Signal<Local, Bits<R4>>,
    g_ppsns: Signal<Local, Bits<R24>>,
    g_e_psn: Signal<Local, Bits<24>>,
    g_e_ldp: Signal<Local, Bits<24>>,
    g_bslot: Signal<Local, Bits<8>>,
    g_bslot1: Signal<Local, Bits<8>>,
    g_off: Signal<Local, Bits<8>>,
    g_d: Signal<Local, Bits<8>>,
    g_e: Signal<Local, Bits<24>>,
    g_pd: Signal<Local, Bits<24>>,
    g_key: Signal<Local, Bits<24>>,
    g_pi: Signal<Local, Bits<24>>,
    g_pj: Signal<Local, Bits<24>>,
    g_dd: Signal<Local, Bits<24>>,
    g_sb: Signal<Local, bool>,
    g_oh: Signal<Local, Bits<R>>,
    g_ohl: Signal<Local, Bits<256>>,
    g_m: Signal<Local, Bits<R>>,
    g_bm0: Signal<Local, Bits<R>>,
    g_bm1: Signal<Local, Bits<R>>,
    g_cum: Signal<Local, Bits<R>>,
    g_sack: Signal<Local, Bits<R>>,
    g_ab: Signal<Local, Bits<R>>,
    g_pm: Signal<Local, Bits<R>>,
    g_ld: Signal<Local, Bits<R>>,
    g_pass: Signal<Local, Bits<R>>,
    g_qh: Signal<Local, Bits<R>>,
    g_lt: Signal<Local, Bits<256>>,
    g_ltc: Signal<Local, Bits<R>>,
    g_ltr: Signal<Local, Bits<R>>,
    g_noff: Signal<Local, Bits<8>>,
    g_ne: Signal<Local, Bits<24>>,
    g_npd: Signal<Local, Bits<24>>,
    g_nkey: Signal<Local, Bits<24>>,
    g_o0: Signal<Local, Bits<24>>,
    g_o1: Signal<Local, Bits<24>>,
    g_o2: Signal<Local, Bits<24>>,
    g_d0: Signal<Local, Bits<24>>,
    g_d2: Signal<Local, Bits<24>>,
    g_a0: Signal<Local, Bits<24>>,
    g_a1: Signal<Local, Bits<24>>,
    g_a3: Signal<Local, Bits<24>>,
    g_fwd: Signal<Local, bool>,
    g_r0: Signal<Local, bool>,
    g_r1: Signal<Local, bool>,
    g_r2: Signal<Local, bool>,
    g_l0: Signal<Local, bool>,
    g_l1: Signal<Local, bool>,
    g_l2: Signal<Local, bool>,
    g_c0: Signal<Local, bool>,
    g_c2: Signal<Local, bool>,
    g_k0: Signal<Local, bool>,
    g_k1: Signal<Local, bool>,
    g_k3: Signal<Local, bool>,
    // ---- L: the predicates patched for the op 1 ahead
    w1: Signal<Local, Bits<R>>,
    x_m: Signal<Local, Bits<R>>,
    x_bm: Signal<Local, Bits<R>>,
    x_cum: Signal<Local, Bits<R>>,
    x_sack: Signal<Local, Bits<R>>,
    x_ab: Signal<Local, Bits<R>>,
    x_pm: Signal<Local, Bits<R>>,
    x_ld: Signal<Local, Bits<R>>,
    x_pass: Signal<Local, Bits<R>>,
    x_qh: Signal<Local, Bits<R>>,
    t_lt: Signal<Local, bool>,
    k_one256: Constant<Bits<256>>,
    k_zero256: Constant<Bits<256>>,
    // ---- result registers 7..=11 (11: the output register) and bank writes 7..=10
    o7_v: DFF<bool>,
    o7_c: DFF<Bits<CONN_BITS>>,
    o8_v: DFF<bool>,
    o8_c: DFF<Bits<CONN_BITS>>,
    o9_v: DFF<bool>,
    o9_c: DFF<Bits<CONN_BITS>>,
    o9_n: DFF<Bits<NP>>,
    o9_l: DFF<Bits<NP>>,
    o10_v: DFF<bool>,
    o10_c: DFF<Bits<CONN_BITS>>,
    o10_f: DFF<Bits<128>>,
    o10_n: DFF<Bits<NP>>,
    o10_l: DFF<Bits<NP>>,
    o11_v: DFF<bool>,
    o11_c: DFF<Bits<CONN_BITS>>,
    o11_f: DFF<Bits<128>>,
    o11_n: DFF<Bits<NP>>,
    o11_l: DFF<Bits<NP>>,
    b7_v: DFF<bool>,
    b8_v: DFF<bool>,
    b8_c: DFF<Bits<CONN_BITS>>,
    b9_v: DFF<bool>,
    b9_c: DFF<Bits<CONN_BITS>>,
    b10_v: DFF<bool>,
    b10_c: DFF<Bits<CONN_BITS>>,
    b10_d: DFF<Bits<33>>,
    // ---- stage A (register 7) and stage B (register 8): after the loop
    p7_f: DFF<Bits<160>>,
    p7_base: DFF<Bits<24>>,
    p7_offs: DFF<Bits<R8>>,
    /// Up to R = 16, bit 16 i + j: record j beats record i for the first (last) of a batch.
    p7_dmin: DFF<Bits<256>>,
    p7_dmax: DFF<Bits<256>>,
    l_di: Signal<Local, Bits<8>>,
    l_dj: Signal<Local, Bits<8>>,
    l_ohl: Signal<Local, Bits<256>>,
    l_dmin: Signal<Local, Bits<256>>,
    l_dmax: Signal<Local, Bits<256>>,
    p7_paths: DFF<Bits<R4>>,
    p7_lost: DFF<Bits<R>>,
    p7_b1: DFF<Bits<R>>,
    p7_b2: DFF<Bits<R>>,
    p7_rel: DFF<Bits<R>>,
    p7_ql: DFF<Bits<R>>,
    p7_sel: DFF<Bits<R>>,
    p7_ok: DFF<bool>,
    p7_retx: DFF<bool>,
    p7_spsn: DFF<Bits<24>>,
    p7_nbase: DFF<Bits<24>>,
    p7_nnext: DFF<Bits<24>>,
    p7_nalloc: DFF<Bits<R>>,
    p7_nlost: DFF<Bits<R>>,
    p7_noffs: DFF<Bits<R8>>,
    p7_nsents: DFF<Bits<R32>>,
    p7_npaths: DFF<Bits<R4>>,
    p7_nppsns: DFF<Bits<R24>>,
    /// The RAM write of the op in register 7 (it left L at an advancing edge).
    w_v: DFF<bool>,
    /// The op 1 ahead (register 6) and the op 2 ahead (its write in flight from p7) are on
    /// this op's connection: register 6's and stage 5's forwards.
    fw1: DFF<bool>,
    fw2: DFF<bool>,
    w5_base: Signal<Local, Bits<24>>,
    w5_next: Signal<Local, Bits<24>>,
    w5_alloc: Signal<Local, Bits<R>>,
    w5_lost: Signal<Local, Bits<R>>,
    w5_offs: Signal<Local, Bits<R8>>,
    w5_paths: Signal<Local, Bits<R4>>,
    w5_ppsns: Signal<Local, Bits<R24>>,
    w5_sents: Signal<Local, Bits<R32>>,
    w5_hw: Signal<Local, Bits<32>>,
    w5_nd: Signal<Local, bool>,
    p7_nhw: DFF<Bits<32>>,
    p7_nnd: DFF<bool>,
    q8_f: DFF<Bits<33>>,
    q8_base: DFF<Bits<24>>,
    q8_f1: DFF<Bits<8>>,
    q8_l1: DFF<Bits<8>>,
    q8_f2: DFF<Bits<8>>,
    q8_l2: DFF<Bits<8>>,
    q8_qd: DFF<Bits<8>>,
    q8_qpath: DFF<Bits<4>>,
    /// Stage A's one-hot winners (first/last of each batch, oldest lost, the reported
    /// path's record, the head record) and what stage B selects with them.
    q8_offs: DFF<Bits<R8>>,
    q8_of1: DFF<Bits<R>>,
    q8_ol1: DFF<Bits<R>>,
    q8_of2: DFF<Bits<R>>,
    q8_ol2: DFF<Bits<R>>,
    q8_oq: DFF<Bits<R>>,
    q8_osel: DFF<Bits<R>>,
    q8_ohb: DFF<Bits<R>>,
    q8_paths: DFF<Bits<R4>>,
    q8_sents: DFF<Bits<R32>>,
    q8_k1: DFF<Bits<9>>,
    q8_k2: DFF<Bits<9>>,
    q8_n: DFF<Bits<NP>>,
    q8_l: DFF<Bits<NP>>,
    q8_fl: DFF<Bits<8>>,
    q8_ok: DFF<bool>,
    q8_retx: DFF<bool>,
    q8_spsn: DFF<Bits<24>>,
    q8_nnext: DFF<Bits<24>>,
    q8_nhw: DFF<Bits<32>>,
    q8_nnd: DFF<bool>,
    // ---- register 9: stage B's selections, for stage C
    r9_f: DFF<Bits<33>>,
    r9_base: DFF<Bits<24>>,
    r9_f1: DFF<Bits<8>>,
    r9_l1: DFF<Bits<8>>,
    r9_f2: DFF<Bits<8>>,
    r9_l2: DFF<Bits<8>>,
    r9_qd: DFF<Bits<8>>,
    r9_qpath: DFF<Bits<4>>,
    r9_selpath: DFF<Bits<4>>,
    r9_hbsent: DFF<Bits<32>>,
    r9_k1: DFF<Bits<9>>,
    r9_k2: DFF<Bits<9>>,
    r9_fl: DFF<Bits<8>>,
    r9_ok: DFF<bool>,
    r9_retx: DFF<bool>,
    r9_spsn: DFF<Bits<24>>,
    r9_nnext: DFF<Bits<24>>,
    r9_nhw: DFF<Bits<32>>,
    r9_nnd: DFF<bool>,
    t_ohi: Signal<Local, Bits<R>>,
    b_o: Signal<Local, Bits<8>>,
    t_of1: Signal<Local, Bits<R>>,
    t_ol1: Signal<Local, Bits<R>>,
    t_of2: Signal<Local, Bits<R>>,
    t_ol2: Signal<Local, Bits<R>>,
    t_oq: Signal<Local, Bits<R>>,
    b_f1: Signal<Local, Bits<8>>,
    b_l1: Signal<Local, Bits<8>>,
    b_f2: Signal<Local, Bits<8>>,
    b_l2: Signal<Local, Bits<8>>,
    b_qd: Signal<Local, Bits<8>>,
    b_qpath: Signal<Local, Bits<4>>,
    rot: RotateRight<W>,
    u_ppk: Signal<Local, Bits<24>>,
    v_pass: Signal<Local, Bits<R>>,
    t_blk: Signal<Local, Bits<R>>,
    t_oh: Signal<Local, Bits<R>>,
    t_ohj: Signal<Local, Bits<R>>,
    has_pass: Signal<Local, bool>,
    cut_key: Signal<Local, Bits<24>>,
    v_mlast: Signal<Local, Bits<R>>,
    t_hm: Signal<Local, Bits<R>>,
    v_lz: Signal<Local, Bits<R>>,
    w_m8: Signal<Local, Bits<R8>>,
    w_x8: Signal<Local, Bits<R8>>,
    w_m4: Signal<Local, Bits<R4>>,
    w_x4: Signal<Local, Bits<R4>>,
    w_m24: Signal<Local, Bits<R24>>,
    w_x24: Signal<Local, Bits<R24>>,
    w_m32: Signal<Local, Bits<R32>>,
    w_x32: Signal<Local, Bits<R32>>,
    x_op: Signal<Local, Bits<4>>,
    c_v1: Signal<Local, bool>,
    c_v2: Signal<Local, bool>,
    c_vq: Signal<Local, bool>,
    x_base8: Signal<Local, Bits<8>>,
    a_sel: Signal<Local, Bits<R>>,
    a_hb: Signal<Local, Bits<R>>,
    a_hbl: Signal<Local, Bits<R>>,
    t_di: Signal<Local, Bits<8>>,
    t_bmin: Signal<Local, bool>,
    t_bmax: Signal<Local, bool>,
    bt_f1: Signal<Local, Bits<R>>,
    bt_l1: Signal<Local, Bits<R>>,
    bt_f2: Signal<Local, Bits<R>>,
    bt_l2: Signal<Local, Bits<R>>,
    bt_q: Signal<Local, Bits<R>>,
    a_k1: Signal<Local, Bits<9>>,
    a_k2: Signal<Local, Bits<9>>,
    a_cn: Signal<Local, Bits<NP>>,
    a_cl: Signal<Local, Bits<NP>>,
    a_en: Signal<Local, Bits<9>>,
    a_el: Signal<Local, Bits<9>>,
    t_p: Signal<Local, Bits<4>>,
    a_fl: Signal<Local, Bits<8>>,
    y_op: Signal<Local, Bits<4>>,
    y_psn: Signal<Local, Bits<24>>,
    y_path: Signal<Local, Bits<4>>,
    k_one4: Constant<Bits<4>>,
    k_nine8: Constant<Bits<8>>,
    k_zero32: Constant<Bits<32>>,
    // ---- counters
    c_send: DFF<Bits<32>>,
    c_retx: DFF<Bits<32>>,
    c_acked: DFF<Bits<32>>,
    c_spur: DFF<Bits<32>>,
    c_lpath: DFF<Bits<32>>,
    c_ldrain: DFF<Bits<32>>,
    c_head: DFF<Bits<32>>,
    c_tmo: DFF<Bits<32>>,
    // ---- scanner
    sc: DFF<Bits<CONN_BITS>>,
    rd_v: DFF<bool>,
    rd_c: DFF<Bits<CONN_BITS>>,
    hit_v: DFF<bool>,
    hit_c: DFF<Bits<CONN_BITS>>,
    tmo_v: DFF<bool>,
    tmo_c: DFF<Bits<CONN_BITS>>,
    // ---- the post-reset sweep of the bank (clears every deadline; s_ready low meanwhile)
    cl_on: DFF<bool>,
    cl_c: DFF<Bits<CONN_BITS>>,
    // ---- combinational
    stall: Signal<Local, bool>,
    adv: Signal<Local, bool>,
    hold: Signal<Local, bool>,
    in_f: Signal<Local, Bits<160>>,
    // stage 6 fields
    u_op: Signal<Local, Bits<4>>,
    u_psn: Signal<Local, Bits<24>>,
    u_new: Signal<Local, bool>,
    u_path: Signal<Local, Bits<4>>,
    u_ppsn: Signal<Local, Bits<24>>,
    u_hwv: Signal<Local, bool>,
    u_hw: Signal<Local, Bits<31>>,
    u_nd: Signal<Local, bool>,
    u_now: Signal<Local, Bits<32>>,
    // state read
    base: Signal<Local, Bits<24>>,
    next: Signal<Local, Bits<24>>,
    alloc: Signal<Local, Bits<R>>,
    lost: Signal<Local, Bits<R>>,
    offs: Signal<Local, Bits<R8>>,
    paths: Signal<Local, Bits<R4>>,
    ppsns: Signal<Local, Bits<R24>>,
    sents: Signal<Local, Bits<R32>>,
    // op-level predicates
    room0: Signal<Local, bool>,
    free0: Signal<Local, bool>,
    path_ok: Signal<Local, bool>,
    psn_live: Signal<Local, bool>,
    cum_adv: Signal<Local, bool>,
    ack_ok: Signal<Local, bool>,
    // per record temporaries
    t_key: Signal<Local, Bits<24>>,
    t_sh: Signal<Local, Bits<8>>,
    t_ld: Signal<Local, bool>,
    t_b1: Signal<Local, bool>,
    // per record vectors
    v_match: Signal<Local, Bits<R>>,
    v_basem: Signal<Local, Bits<R>>,
    v_ack: Signal<Local, Bits<R>>,
    v_ab: Signal<Local, Bits<R>>,
    v_pm: Signal<Local, Bits<R>>,
    v_ld: Signal<Local, Bits<R>>,
    v_ql: Signal<Local, Bits<R>>,
    v_b1: Signal<Local, Bits<R>>,
    v_b2: Signal<Local, Bits<R>>,
    v_rel: Signal<Local, Bits<R>>,
    v_los: Signal<Local, Bits<R>>,
    v_wr: Signal<Local, Bits<R>>,
    // reductions
    f1: Signal<Local, Bits<8>>,
    l1: Signal<Local, Bits<8>>,
    f2: Signal<Local, Bits<8>>,
    l2: Signal<Local, Bits<8>>,
    q_d: Signal<Local, Bits<8>>,
    q_path: Signal<Local, Bits<4>>,
    sel_path: Signal<Local, Bits<4>>,
    // the record written by a SEND
    send_ok: Signal<Local, bool>,
    send_psn: Signal<Local, Bits<24>>,
    // next state
    n_base: Signal<Local, Bits<24>>,
    n_next: Signal<Local, Bits<24>>,
    n_alloc: Signal<Local, Bits<R>>,
    n_lost: Signal<Local, Bits<R>>,
    n_offs: Signal<Local, Bits<R8>>,
    n_paths: Signal<Local, Bits<R4>>,
    n_ppsns: Signal<Local, Bits<R24>>,
    n_sents: Signal<Local, Bits<R32>>,
    n_hw: Signal<Local, Bits<32>>,
    n_nd: Signal<Local, bool>,
    n_outst: Signal<Local, Bits<24>>,
    n_bslot: Signal<Local, Bits<8>>,
    hb_sent: Signal<Local, Bits<32>>,
    hd: Signal<Local, Bits<33>>,
    // result
    r_ok: Signal<Local, bool>,
    r_psn: Signal<Local, Bits<24>>,
    r_psn2: Signal<Local, Bits<24>>,
    r_path: Signal<Local, Bits<4>>,
    r_k: Signal<Local, Bits<9>>,
    r_k2: Signal<Local, Bits<9>>,
    r_psn3: Signal<Local, Bits<24>>,
    r_psn4: Signal<Local, Bits<24>>,
    r_retx: Signal<Local, bool>,
    r_f: Signal<Local, Bits<128>>,
    // counting (register 10 -> 11)
    e_op: Signal<Local, Bits<4>>,
    e_ok: Signal<Local, bool>,
    e_k: Signal<Local, Bits<9>>,
    e_k2: Signal<Local, Bits<9>>,
    e_sum_n: Signal<Local, Bits<32>>,
    e_cn: Signal<Local, Bits<9>>,
    e_cl: Signal<Local, Bits<9>>,
    t_f: Signal<Local, bool>,
    /// Bit `slot` of `s_sack` / `s_held` is read as `((bitmap >> slot) & 1).any()`, not
    /// `get_bit(slot)`: the slot is 8 bits and the bitmap W bits, and at W = 64 an 8-bit
    /// bit-select index is a Verilator WIDTH warning (rust-hdl has no log2 W width).
    k_one_w: Constant<Bits<W>>,
    t_slot8: Signal<Local, Bits<8>>,
    hd_v: Signal<Local, bool>,
    hw31: Signal<Local, Bits<31>>,
    hd_t: Signal<Local, Bits<32>>,
    k_one24: Constant<Bits<24>>,
    k_one_conn: Constant<Bits<CONN_BITS>>,
    k_zero_conn: Constant<Bits<CONN_BITS>>,
    k_last_conn: Constant<Bits<CONN_BITS>>,
    k_zero33: Constant<Bits<33>>,
    e_sum_l: Signal<Local, Bits<32>>,
    // scanner
    sc_addr: Signal<Local, Bits<CONN_BITS>>,
    // constants
    k_w24: Constant<Bits<24>>,
    /// The bits of a 24-bit difference at and above log2 W: zero exactly when it is below W.
    k_nw24: Constant<Bits<24>>,
    k_w2: Constant<Bits<24>>,
    k_wm8: Constant<Bits<8>>,
    k_half24: Constant<Bits<24>>,
    k_half32: Constant<Bits<32>>,
    k_p: Constant<Bits<4>>,
    k_k: Constant<Bits<24>>,
    k_head_on: Constant<bool>,
    k_zero4: Constant<Bits<4>>,
    k_zero8: Constant<Bits<8>>,
    k_zero9: Constant<Bits<9>>,
    k_zero24: Constant<Bits<24>>,
    k_zero_r: Constant<Bits<R>>,
    k_ones_r: Constant<Bits<R>>,
    k_one_r: Constant<Bits<R>>,
    k_zero_np: Constant<Bits<NP>>,
    k_ff_r8: Constant<Bits<R8>>,
    k_f_r4: Constant<Bits<R4>>,
    k_ff_r24: Constant<Bits<R24>>,
    k_ff_r32: Constant<Bits<R32>>,
    k_op_reset: Constant<Bits<4>>,
    k_op_send: Constant<Bits<4>>,
    k_op_ack: Constant<Bits<4>>,
    k_op_ldet: Constant<Bits<4>>,
    k_op_drain: Constant<Bits<4>>,
    k_op_query: Constant<Bits<4>>,
    k_op_headtmo: Constant<Bits<4>>,
    k_op_marklost: Constant<Bits<4>>,
    k_op_abandon: Constant<Bits<4>>,
    k_op_hwait: Constant<Bits<4>>,
    k_op_newdata: Constant<Bits<4>>,
}

/// The sizes and constants of one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtxConsts {
    pub reorder_threshold: u32,
    pub head_on: bool,
}

impl<const CONN_BITS: usize, const W: usize, const P: usize, const R: usize, const RI: usize, const R4: usize, const R8: usize, const R24: usize, const R32: usize, const NP: usize>
    RetxQueue<CONN_BITS, W, P, R, RI, R4, R8, R24, R32, NP>
{
    /// Up to 16 records (`core`) the LDET cut and the searches after the loop compare every
    /// pair of records (depth: one compare, then trees); beyond, they walk the records one
    /// after the other (at R = 64 the pairs made yosys run for more than 15 minutes).
    const PAIRWISE: usize = if R <= 16 { 1 } else { 0 };
    const WALK: usize = 1 - Self::PAIRWISE;

    /// Refuses inconsistent generics (the derived widths must be the products they name).
    pub fn try_new(k: RtxConsts) -> Result<Self, ConfigError> {
        let ok = W.is_power_of_two()
            && (2..=256).contains(&W)
            && (1..=16).contains(&P)
            && R.is_power_of_two()
            && (2..=W).contains(&R)
            && (1usize << RI) == R
            && R4 == 4 * R
            && R8 == 8 * R
            && R24 == 24 * R
            && R32 == 32 * R
            && NP == COUNT_BITS * P
            && (1..=12).contains(&CONN_BITS);
        if !ok {
            return Err(ConfigError::invalid("transport", format!("RetxQueue: inconsistent sizes CONN_BITS={CONN_BITS} W={W} P={P} R={R} RI={RI}")));
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_valid: Default::default(),
            s_op: Default::default(),
            s_conn: Default::default(),
            s_psn: Default::default(),
            s_new: Default::default(),
            s_path: Default::default(),
            s_ppsn: Default::default(),
            s_sack: Default::default(),
            s_held: Default::default(),
            s_hw_valid: Default::default(),
            s_hw: Default::default(),
            s_nd: Default::default(),
            s_ldp_valid: Default::default(),
            s_ldp: Default::default(),
            m_ready: Default::default(),
            m_tmo_ready: Default::default(),
            s_ready: Default::default(),
            m_valid: Default::default(),
            m_op: Default::default(),
            m_conn: Default::default(),
            m_ok: Default::default(),
            m_psn: Default::default(),
            m_psn2: Default::default(),
            m_path: Default::default(),
            m_k: Default::default(),
            m_k2: Default::default(),
            m_psn3: Default::default(),
            m_psn4: Default::default(),
            m_n: Default::default(),
            m_l: Default::default(),
            m_room: Default::default(),
            m_free: Default::default(),
            m_retx: Default::default(),
            m_tmo_valid: Default::default(),
            m_tmo_conn: Default::default(),
            stat_send: Default::default(),
            stat_retx: Default::default(),
            stat_acked: Default::default(),
            stat_spurious: Default::default(),
            stat_lost_path: Default::default(),
            stat_lost_drain: Default::default(),
            stat_head: Default::default(),
            stat_tmo: Default::default(),
            ram_base: BlockRamReg::new(),
            ram_next: BlockRamReg::new(),
            ram_alloc: BlockRamReg::new(),
            ram_lost: BlockRamReg::new(),
            ram_off: BlockRamReg::new(),
            ram_path: BlockRamReg::new(),
            ram_ppsn: BlockRamReg::new(),
            ram_sent: BlockRamReg::new(),
            ram_hw: BlockRamReg::new(),
            ram_nd: BlockRamReg::new(),
            bank: Default::default(),
            i1_v: Default::default(),
            i1_c: Default::default(),
            i1_f: Default::default(),
            i1_s: Default::default(),
            i1_h: Default::default(),
            i2_v: Default::default(),
            i2_c: Default::default(),
            i2_f: Default::default(),
            i2_s: Default::default(),
            i2_h: Default::default(),
            i3_v: Default::default(),
            i3_c: Default::default(),
            i3_f: Default::default(),
            i3_s: Default::default(),
            i3_h: Default::default(),
            i4_v: Default::default(),
            i4_c: Default::default(),
            i4_f: Default::default(),
            i4_s: Default::default(),
            i4_h: Default::default(),
            i5_v: Default::default(),
            i5_c: Default::default(),
            i5_f: Default::default(),
            i5_s: Default::default(),
            i5_h: Default::default(),
            i6_v: Default::default(),
            i6_c: Default::default(),
            i6_f: Default::default(),
            o7_v: Default::default(),
            o7_c: Default::default(),
            o8_v: Default::default(),
            o8_c: Default::default(),
            o9_v: Default::default(),
            o9_c: Default::default(),
            o9_n: Default::default(),
            o9_l: Default::default(),
            o10_v: Default::default(),
            o10_c: Default::default(),
            o10_f: Default::default(),
            o10_n: Default::default(),
            o10_l: Default::default(),
            o11_v: Default::default(),
            o11_c: Default::default(),
            o11_f: Default::default(),
            o11_n: Default::default(),
            o11_l: Default::default(),
            b7_v: Default::default(),
            b8_v: Default::default(),
            b8_c: Default::default(),
            b9_v: Default::default(),
            b9_c: Default::default(),
            b10_v: Default::default(),
            b10_c: Default::default(),
            b10_d: Default::default(),
            p7_f: Default::default(),
            p7_base: Default::default(),
            p7_offs: Default::default(),
            p7_dmin: Default::default(),
            p7_dmax: Default::default(),
            l_di: Default::default(),
            l_dj: Default::default(),
            l_ohl: Default::default(),
            l_dmin: Default::default(),
            l_dmax: Default::default(),
            p7_paths: Default::default(),
            p7_lost: Default::default(),
            p7_b1: Default::default(),
            p7_b2: Default::default(),
            p7_rel: Default::default(),
            p7_ql: Default::default(),
            p7_sel: Default::default(),
            p7_ok: Default::default(),
            p7_retx: Default::default(),
            p7_spsn: Default::default(),
            p7_nbase: Default::default(),
            p7_nnext: Default::default(),
            p7_nalloc: Default::default(),
            p7_nlost: Default::default(),
            p7_noffs: Default::default(),
            p7_nsents: Default::default(),
            p7_npaths: Default::default(),
            p7_nppsns: Default::default(),
            w_v: Default::default(),
            fw1: Default::default(),
            fw2: Default::default(),
            w5_base: Default::default(),
            w5_next: Default::default(),
            w5_alloc: Default::default(),
            w5_lost: Default::default(),
            w5_offs: Default::default(),
            w5_paths: Default::default(),
            w5_ppsns: Default::default(),
            w5_sents: Default::default(),
            w5_hw: Default::default(),
            w5_nd: Default::default(),
            p7_nhw: Default::default(),
            p7_nnd: Default::default(),
            q8_f: Default::default(),
            q8_base: Default::default(),
            q8_f1: Default::default(),
            q8_l1: Default::default(),
            q8_f2: Default::default(),
            q8_l2: Default::default(),
            q8_qd: Default::default(),
            q8_qpath: Default::default(),
            q8_offs: Default::default(),
            q8_of1: Default::default(),
            q8_ol1: Default::default(),
            q8_of2: Default::default(),
            q8_ol2: Default::default(),
            q8_oq: Default::default(),
            q8_osel: Default::default(),
            q8_ohb: Default::default(),
            q8_paths: Default::default(),
            q8_sents: Default::default(),
            q8_k1: Default::default(),
            q8_k2: Default::default(),
            q8_n: Default::default(),
            q8_l: Default::default(),
            q8_fl: Default::default(),
            q8_ok: Default::default(),
            q8_retx: Default::default(),
            q8_spsn: Default::default(),
            q8_nnext: Default::default(),
            q8_nhw: Default::default(),
            q8_nnd: Default::default(),
            r9_f: Default::default(),
            r9_base: Default::default(),
            r9_f1: Default::default(),
            r9_l1: Default::default(),
            r9_f2: Default::default(),
            r9_l2: Default::default(),
            r9_qd: Default::default(),
            r9_qpath: Default::default(),
            r9_selpath: Default::default(),
            r9_hbsent: Default::default(),
            r9_k1: Default::default(),
            r9_k2: Default::default(),
            r9_fl: Default::default(),
            r9_ok: Default::default(),
            r9_retx: Default::default(),
            r9_spsn: Default::default(),
            r9_nnext: Default::default(),
            r9_nhw: Default::default(),
            r9_nnd: Default::default(),
            t_ohi: Default::default(),
            b_o: Default::default(),
            t_of1: Default::default(),
            t_ol1: Default::default(),
            t_of2: Default::default(),
            t_ol2: Default::default(),
            t_oq: Default::default(),
            b_f1: Default::default(),
            b_l1: Default::default(),
            b_f2: Default::default(),
            b_l2: Default::default(),
            b_qd: Default::default(),
            b_qpath: Default::default(),
            u_ppk: Default::default(),
            v_pass: Default::default(),
            t_blk: Default::default(),
            t_oh: Default::default(),
            t_ohj: Default::default(),
            has_pass: Default::default(),
            cut_key: Default::default(),
            v_mlast: Default::default(),
            t_hm: Default::default(),
            v_lz: Default::default(),
            w_m8: Default::default(),
            w_x8: Default::default(),
            w_m4: Default::default(),
            w_x4: Default::default(),
            w_m24: Default::default(),
            w_x24: Default::default(),
            w_m32: Default::default(),
            w_x32: Default::default(),
            x_op: Default::default(),
            c_v1: Default::default(),
            c_v2: Default::default(),
            c_vq: Default::default(),
            x_base8: Default::default(),
            a_sel: Default::default(),
            a_hb: Default::default(),
            a_hbl: Default::default(),
            t_di: Default::default(),
            t_bmin: Default::default(),
            t_bmax: Default::default(),
            bt_f1: Default::default(),
            bt_l1: Default::default(),
            bt_f2: Default::default(),
            bt_l2: Default::default(),
            bt_q: Default::default(),
            a_k1: Default::default(),
            a_k2: Default::default(),
            a_cn: Default::default(),
            a_cl: Default::default(),
            a_en: Default::default(),
            a_el: Default::default(),
            t_p: Default::default(),
            a_fl: Default::default(),
            y_op: Default::default(),
            y_psn: Default::default(),
            y_path: Default::default(),
            rot: RotateRight::new(),
            k_one4: Constant::new(1u64.into()),
            k_nine8: Constant::new(9u64.into()),
            k_zero32: Constant::new(0u64.into()),
            c_send: Default::default(),
            c_retx: Default::default(),
            c_acked: Default::default(),
            c_spur: Default::default(),
            c_lpath: Default::default(),
            c_ldrain: Default::default(),
            c_head: Default::default(),
            c_tmo: Default::default(),
            sc: Default::default(),
            rd_v: Default::default(),
            rd_c: Default::default(),
            hit_v: Default::default(),
            hit_c: Default::default(),
            tmo_v: Default::default(),
            tmo_c: Default::default(),
            cl_on: Default::default(),
            cl_c: Default::default(),
            stall: Default::default(),
            adv: Default::default(),
            hold: Default::default(),
            in_f: Default::default(),
            u_op: Default::default(),
            u_psn: Default::default(),
            u_new: Default::default(),
            u_path: Default::default(),
            u_ppsn: Default::default(),
            u_hwv: Default::default(),
            u_hw: Default::default(),
            u_nd: Default::default(),
            u_now: Default::default(),
            base: Default::default(),
            next: Default::default(),
            alloc: Default::default(),
            lost: Default::default(),
            offs: Default::default(),
            paths: Default::default(),
            ppsns: Default::default(),
            sents: Default::default(),
            room0: Default::default(),
            free0: Default::default(),
            path_ok: Default::default(),
            psn_live: Default::default(),
            cum_adv: Default::default(),
            ack_ok: Default::default(),
            t_key: Default::default(),
            t_sh: Default::default(),
            t_ld: Default::default(),
            t_b1: Default::default(),
            v_match: Default::default(),
            v_basem: Default::default(),
            v_ack: Default::default(),
            v_ab: Default::default(),
            v_pm: Default::default(),
            v_ld: Default::default(),
            v_ql: Default::default(),
            v_b1: Default::default(),
            v_b2: Default::default(),
            v_rel: Default::default(),
            v_los: Default::default(),
            v_wr: Default::default(),
            f1: Default::default(),
            l1: Default::default(),
            f2: Default::default(),
            l2: Default::default(),
            q_d: Default::default(),
            q_path: Default::default(),
            sel_path: Default::default(),
            send_ok: Default::default(),
            send_psn: Default::default(),
            n_base: Default::default(),
            n_next: Default::default(),
            n_alloc: Default::default(),
            n_lost: Default::default(),
            n_offs: Default::default(),
            n_paths: Default::default(),
            n_ppsns: Default::default(),
            n_sents: Default::default(),
            n_hw: Default::default(),
            n_nd: Default::default(),
            n_outst: Default::default(),
            n_bslot: Default::default(),
            hb_sent: Default::default(),
            hd: Default::default(),
            r_ok: Default::default(),
            r_psn: Default::default(),
            r_psn2: Default::default(),
            r_path: Default::default(),
            r_k: Default::default(),
            r_k2: Default::default(),
            r_psn3: Default::default(),
            r_psn4: Default::default(),
            r_retx: Default::default(),
            r_f: Default::default(),
            e_op: Default::default(),
            e_ok: Default::default(),
            e_k: Default::default(),
            e_k2: Default::default(),
            e_sum_n: Default::default(),
            e_cn: Default::default(),
            e_cl: Default::default(),
            t_f: Default::default(),
            k_one_w: Constant::new(1u64.into()),
            t_slot8: Default::default(),
            hd_v: Default::default(),
            hw31: Default::default(),
            hd_t: Default::default(),
            k_one24: Constant::new(1u64.into()),
            k_one_conn: Constant::new(1u64.into()),
            k_zero_conn: Constant::new(0u64.into()),
            k_last_conn: Constant::new((((1u64 << CONN_BITS) - 1) as u64).into()),
            k_zero33: Constant::new(0u64.into()),
            e_sum_l: Default::default(),
            sc_addr: Default::default(),
            k_w24: Constant::new((W as u64).into()),
            k_nw24: Constant::new((((1u64 << 24) - 1) & !(W as u64 - 1)).into()),
            k_w2: Constant::new(((W / 2) as u64).into()),
            k_wm8: Constant::new(((W - 1) as u64).into()),
            k_half24: Constant::new((1u64 << 23).into()),
            k_half32: Constant::new((1u64 << 31).into()),
            k_p: Constant::new((P as u64).into()),
            k_k: Constant::new((u64::from(k.reorder_threshold) & 0xFF_FFFF).into()),
            k_head_on: Constant::new(k.head_on),
            k_zero4: Constant::new(0u64.into()),
            k_zero8: Constant::new(0u64.into()),
            k_zero9: Constant::new(0u64.into()),
            k_zero24: Constant::new(0u64.into()),
            k_zero_r: Constant::new(Bits::<R>::default()),
            k_ones_r: Constant::new(!Bits::<R>::default()),
            k_one_r: Constant::new(Bits::<R>::default().replace_bit(0, true)),
            k_zero_np: Constant::new(Bits::<NP>::default()),
            k_ff_r8: Constant::new(low_ones::<R8>(8)),
            k_f_r4: Constant::new(low_ones::<R4>(4)),
            k_ff_r24: Constant::new(low_ones::<R24>(24)),
            k_ff_r32: Constant::new(low_ones::<R32>(32)),
            s6_base: Default::default(),
            s6_next: Default::default(),
            s6_alloc: Default::default(),
            s6_lost: Default::default(),
            s6_offs: Default::default(),
            s6_paths: Default::default(),
            s6_ppsns: Default::default(),
            s6_sents: Default::default(),
            s6_hw: Default::default(),
            s6_nd: Default::default(),
            pr_m: Default::default(),
            pr_bm0: Default::default(),
            pr_bm1: Default::default(),
            pr_cum: Default::default(),
            pr_sack: Default::default(),
            pr_ab: Default::default(),
            pr_pm: Default::default(),
            pr_ld: Default::default(),
            pr_pass: Default::default(),
            pr_qh: Default::default(),
            pr_lt: Default::default(),
            pn_m: Default::default(),
            pn_bm: Default::default(),
            pn_cum: Default::default(),
            pn_sack: Default::default(),
            pn_ab: Default::default(),
            pn_pm: Default::default(),
            pn_ld: Default::default(),
            pn_pass: Default::default(),
            pn_qh: Default::default(),
            pn_ltc: Default::default(),
            pn_ltr: Default::default(),
            pc_room: Default::default(),
            pc_live: Default::default(),
            pc_cadv: Default::default(),
            pc_ackok: Default::default(),
            a1_f: Default::default(),
            a1_wr: Default::default(),
            a1_off: Default::default(),
            a1_path: Default::default(),
            a1_ppsn: Default::default(),
            a1_sent: Default::default(),
            a1_rst: Default::default(),
            a1_badv: Default::default(),
            a1_ninc: Default::default(),
            g_psn: Default::default(),
            g_path: Default::default(),
            g_ppsn: Default::default(),
            g_ldpv: Default::default(),
            g_ldp: Default::default(),
            g_ppk: Default::default(),
            g_pslot: Default::default(),
            g_base: Default::default(),
            g_next: Default::default(),
            g_next1: Default::default(),
            g_offs: Default::default(),
            g_paths: Default::default(),
            g_ppsns: Default::default(),
            g_e_psn: Default::default(),
            g_e_ldp: Default::default(),
            g_bslot: Default::default(),
            g_bslot1: Default::default(),
            g_off: Default::default(),
            g_d: Default::default(),
            g_e: Default::default(),
            g_pd: Default::default(),
            g_key: Default::default(),
            g_pi: Default::default(),
            g_pj: Default::default(),
            g_dd: Default::default(),
            g_sb: Default::default(),
            g_oh: Default::default(),
            g_ohl: Default::default(),
            g_m: Default::default(),
            g_bm0: Default::default(),
            g_bm1: Default::default(),
            g_cum: Default::default(),
            g_sack: Default::default(),
            g_ab: Default::default(),
            g_pm: Default::default(),
            g_ld: Default::default(),
            g_pass: Default::default(),
            g_qh: Default::default(),
            g_lt: Default::default(),
            g_ltc: Default::default(),
            g_ltr: Default::default(),
            g_noff: Default::default(),
            g_ne: Default::default(),
            g_npd: Default::default(),
            g_nkey: Default::default(),
            g_o0: Default::default(),
            g_o1: Default::default(),
            g_o2: Default::default(),
            g_d0: Default::default(),
            g_d2: Default::default(),
            g_a0: Default::default(),
            g_a1: Default::default(),
            g_a3: Default::default(),
            g_fwd: Default::default(),
            g_r0: Default::default(),
            g_r1: Default::default(),
            g_r2: Default::default(),
            g_l0: Default::default(),
            g_l1: Default::default(),
            g_l2: Default::default(),
            g_c0: Default::default(),
            g_c2: Default::default(),
            g_k0: Default::default(),
            g_k1: Default::default(),
            g_k3: Default::default(),
            w1: Default::default(),
            x_m: Default::default(),
            x_bm: Default::default(),
            x_cum: Default::default(),
            x_sack: Default::default(),
            x_ab: Default::default(),
            x_pm: Default::default(),
            x_ld: Default::default(),
            x_pass: Default::default(),
            x_qh: Default::default(),
            t_lt: Default::default(),
            k_one256: Constant::new(1u64.into()),
            k_zero256: Constant::new(0u64.into()),
            k_op_reset: Constant::new(0u64.into()),
            k_op_send: Constant::new(1u64.into()),
            k_op_ack: Constant::new(2u64.into()),
            k_op_ldet: Constant::new(3u64.into()),
            k_op_drain: Constant::new(4u64.into()),
            k_op_query: Constant::new(5u64.into()),
            k_op_headtmo: Constant::new(6u64.into()),
            k_op_marklost: Constant::new(7u64.into()),
            k_op_abandon: Constant::new(8u64.into()),
            k_op_hwait: Constant::new(9u64.into()),
            k_op_newdata: Constant::new(10u64.into()),
        })
    }
}

fn low_ones<const N: usize>(n: usize) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for i in 0..n.min(N) {
        b = b.replace_bit(i, true);
    }
    b
}

impl<const CONN_BITS: usize, const W: usize, const P: usize, const R: usize, const RI: usize, const R4: usize, const R8: usize, const R24: usize, const R32: usize, const NP: usize> Logic
    for RetxQueue<CONN_BITS, W, P, R, RI, R4, R8, R24, R32, NP>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.ram_base.clock.next = self.clock.val();
        self.ram_next.clock.next = self.clock.val();
        self.ram_alloc.clock.next = self.clock.val();
        self.ram_lost.clock.next = self.clock.val();
        self.ram_off.clock.next = self.clock.val();
        self.ram_path.clock.next = self.clock.val();
        self.ram_ppsn.clock.next = self.clock.val();
        self.ram_sent.clock.next = self.clock.val();
        self.ram_hw.clock.next = self.clock.val();
        self.ram_nd.clock.next = self.clock.val();
        self.bank.read_clock.next = self.clock.val();
        self.bank.write_clock.next = self.clock.val();
        dff_setup!(
            self, clock, i1_v, i1_c, i1_f, i1_s, i1_h, i2_v, i2_c, i2_f, i2_s, i2_h, i3_v, i3_c, i3_f, i3_s, i3_h, i4_v, i4_c, i4_f, i4_s, i4_h, i5_v, i5_c, i5_f, i5_s, i5_h, i6_v,
            i6_c, i6_f, o7_v, o7_c, o8_v, o8_c, o9_v, o9_c, o9_n, o9_l, o10_v, o10_c, o10_f, o10_n, o10_l, o11_v, o11_c, o11_f,
            o11_n, o11_l, b7_v, b8_v, b8_c, b9_v, b9_c, b10_v, b10_c, b10_d, c_send, c_retx, c_acked, c_spur, c_lpath, c_ldrain, c_head, c_tmo, sc, rd_v, rd_c,
            hit_v, hit_c, tmo_v, tmo_c, cl_on, cl_c,
            p7_f, p7_base, p7_offs, p7_dmin, p7_dmax, p7_paths, p7_lost, p7_b1, p7_b2, p7_rel, p7_ql, p7_sel, p7_ok, p7_retx, p7_spsn, p7_nbase, p7_nnext, p7_nalloc, p7_nlost, p7_noffs, p7_nsents, p7_npaths, p7_nppsns, w_v, fw1, fw2, p7_nhw, p7_nnd, q8_f, q8_base, q8_f1, q8_l1, q8_f2, q8_l2, q8_qd, q8_qpath, q8_offs, q8_of1, q8_ol1, q8_of2, q8_ol2, q8_oq, q8_osel, q8_ohb, q8_paths, q8_sents, q8_k1, q8_k2, q8_n, q8_l, q8_fl, q8_ok, q8_retx, q8_spsn, q8_nnext, q8_nhw, q8_nnd, r9_f, r9_base, r9_f1, r9_l1, r9_f2, r9_l2, r9_qd, r9_qpath, r9_selpath, r9_hbsent, r9_k1, r9_k2, r9_fl, r9_ok, r9_retx, r9_spsn, r9_nnext, r9_nhw, r9_nnd,
            s6_base, s6_next, s6_alloc, s6_lost, s6_offs, s6_paths, s6_ppsns, s6_sents, s6_hw, s6_nd, pr_m, pr_bm0, pr_bm1, pr_cum, pr_sack, pr_ab, pr_pm, pr_ld, pr_pass, pr_qh, pr_lt, pn_m, pn_bm, pn_cum, pn_sack, pn_ab, pn_pm, pn_ld, pn_pass, pn_qh, pn_ltc, pn_ltr, pc_room, pc_live, pc_cadv, pc_ackok, a1_f, a1_wr, a1_off, a1_path, a1_ppsn, a1_sent, a1_rst, a1_badv, a1_ninc
        );

        // ================= global stall
        self.stall.next = self.o11_v.q.val() & !self.m_ready.val() & !self.rst.val();
        self.adv.next = !self.stall.val() & !self.rst.val();
        self.s_ready.next = self.adv.val() & !self.cl_on.q.val();

        // ================= register 1: the input beat, packed
        // in_f: op 0..4, psn 4..28, new 28, path 29..33, ppsn 33..57, hwv 57, hw 58..89,
        // nd 89, ldpv 90, ldp 91..115, now 115..147
        self.in_f.next = bit_cast::<160, 4>(self.s_op.val())
            | (bit_cast::<160, 24>(self.s_psn.val()) << 4)
            | (bit_cast::<160, 1>(self.s_new.val().into()) << 28)
            | (bit_cast::<160, 4>(self.s_path.val()) << 29)
            | (bit_cast::<160, 24>(self.s_ppsn.val()) << 33)
            | (bit_cast::<160, 1>(self.s_hw_valid.val().into()) << 57)
            | (bit_cast::<160, 31>(self.s_hw.val()) << 58)
            | (bit_cast::<160, 1>(self.s_nd.val().into()) << 89)
            | (bit_cast::<160, 1>(self.s_ldp_valid.val().into()) << 90)
            | (bit_cast::<160, 24>(self.s_ldp.val()) << 91)
            | (bit_cast::<160, 32>(self.now.val()) << 115);
        if self.rst.val() {
            self.i1_v.d.next = false;
            self.i2_v.d.next = false;
            self.i3_v.d.next = false;
            self.i4_v.d.next = false;
            self.i5_v.d.next = false;
            self.i6_v.d.next = false;
        }
        if self.adv.val() {
            self.i1_v.d.next = self.s_valid.val() & !self.cl_on.q.val();
            self.i1_c.d.next = self.s_conn.val();
            self.i1_f.d.next = self.in_f.val();
            self.i1_s.d.next = self.s_sack.val();
            self.i1_h.d.next = self.s_held.val();
            self.i2_v.d.next = self.i1_v.q.val();
            self.i2_c.d.next = self.i1_c.q.val();
            self.i2_f.d.next = self.i1_f.q.val();
            self.i2_s.d.next = self.i1_s.q.val();
            self.i2_h.d.next = self.i1_h.q.val();
            self.i3_v.d.next = self.i2_v.q.val();
            self.i3_c.d.next = self.i2_c.q.val();
            self.i3_f.d.next = self.i2_f.q.val();
            self.i3_s.d.next = self.i2_s.q.val();
            self.i3_h.d.next = self.i2_h.q.val();
            self.i4_v.d.next = self.i3_v.q.val();
            self.i4_c.d.next = self.i3_c.q.val();
            self.i4_f.d.next = self.i3_f.q.val();
            self.i4_s.d.next = self.i3_s.q.val();
            self.i4_h.d.next = self.i3_h.q.val();
            self.i5_v.d.next = self.i4_v.q.val();
            self.i5_c.d.next = self.i4_c.q.val();
            self.i5_f.d.next = self.i4_f.q.val();
            self.i5_s.d.next = self.rot.y.val();
            self.i5_h.d.next = self.i4_h.q.val();
            self.i6_v.d.next = self.i5_v.q.val();
            self.i6_c.d.next = self.i5_c.q.val();
            self.i6_f.d.next = self.i5_f.q.val();
        }

        // the SACK bitmap rotated to the op's PSN on its way into register 5: bit `off` of
        // i5_s is bit (off - psn) mod W of s_sack
        self.rot.a.next = self.i4_s.q.val();
        self.rot.amount.next = self.k_zero8.val() - self.i4_f.q.val().get_bits::<8>(4);

        // ================= state read: issued from register 3 (the word is registered in the
        // RAM's output register as the op enters register 5, and in s6_* as it enters 6, with
        // the write of the op 1 ahead forwarded); while the pipeline holds, the read is issued
        // again for the op in register 4, which is the next to enter register 5
        self.ram_base.read_address.next = self.i3_c.q.val();
        self.ram_next.read_address.next = self.i3_c.q.val();
        self.ram_alloc.read_address.next = self.i3_c.q.val();
        self.ram_lost.read_address.next = self.i3_c.q.val();
        self.ram_off.read_address.next = self.i3_c.q.val();
        self.ram_path.read_address.next = self.i3_c.q.val();
        self.ram_ppsn.read_address.next = self.i3_c.q.val();
        self.ram_sent.read_address.next = self.i3_c.q.val();
        self.ram_hw.read_address.next = self.i3_c.q.val();
        self.ram_nd.read_address.next = self.i3_c.q.val();
        if !self.adv.val() {
            self.ram_base.read_address.next = self.i4_c.q.val();
            self.ram_next.read_address.next = self.i4_c.q.val();
            self.ram_alloc.read_address.next = self.i4_c.q.val();
            self.ram_lost.read_address.next = self.i4_c.q.val();
            self.ram_off.read_address.next = self.i4_c.q.val();
            self.ram_path.read_address.next = self.i4_c.q.val();
            self.ram_ppsn.read_address.next = self.i4_c.q.val();
            self.ram_sent.read_address.next = self.i4_c.q.val();
            self.ram_hw.read_address.next = self.i4_c.q.val();
            self.ram_nd.read_address.next = self.i4_c.q.val();
        }
        self.ram_base.ce.next = self.adv.val();
        self.ram_next.ce.next = self.adv.val();
        self.ram_alloc.ce.next = self.adv.val();
        self.ram_lost.ce.next = self.adv.val();
        self.ram_off.ce.next = self.adv.val();
        self.ram_path.ce.next = self.adv.val();
        self.ram_ppsn.ce.next = self.adv.val();
        self.ram_sent.ce.next = self.adv.val();
        self.ram_hw.ce.next = self.adv.val();
        self.ram_nd.ce.next = self.adv.val();

        // ================= register 6: apply (the L stage)
        self.u_op.next = self.i6_f.q.val().get_bits::<4>(0);
        self.u_psn.next = self.i6_f.q.val().get_bits::<24>(4);
        self.u_new.next = self.i6_f.q.val().get_bit(28);
        self.u_path.next = self.i6_f.q.val().get_bits::<4>(29);
        self.u_ppsn.next = self.i6_f.q.val().get_bits::<24>(33);
        self.u_hwv.next = self.i6_f.q.val().get_bit(57);
        self.u_hw.next = self.i6_f.q.val().get_bits::<31>(58);
        self.u_nd.next = self.i6_f.q.val().get_bit(89);
        self.u_now.next = self.i6_f.q.val().get_bits::<32>(115);
        self.base.next = self.s6_base.q.val();
        self.next.next = self.s6_next.q.val();
        self.alloc.next = self.s6_alloc.q.val();
        self.lost.next = self.s6_lost.q.val();
        self.offs.next = self.s6_offs.q.val();
        self.paths.next = self.s6_paths.q.val();
        self.ppsns.next = self.s6_ppsns.q.val();
        self.sents.next = self.s6_sents.q.val();

        // op-level predicates: computed at stage 5 for each (base, next) the op 1 ahead can
        // leave (0: unchanged, 1: next + 1, 2: base = its PSN, 3: both = its PSN), selected
        // here by what it did
        self.room0.next = self.pc_room.q.val().get_bit(0);
        self.psn_live.next = self.pc_live.q.val().get_bit(0);
        self.cum_adv.next = self.pc_cadv.q.val().get_bit(0);
        self.ack_ok.next = self.pc_ackok.q.val().get_bit(0);
        if self.a1_f.q.val() & self.a1_ninc.q.val() {
            self.room0.next = self.pc_room.q.val().get_bit(1);
            self.psn_live.next = self.pc_live.q.val().get_bit(1);
            self.cum_adv.next = self.pc_cadv.q.val().get_bit(1);
            self.ack_ok.next = self.pc_ackok.q.val().get_bit(1);
        }
        if self.a1_f.q.val() & self.a1_badv.q.val() {
            self.room0.next = self.pc_room.q.val().get_bit(2);
            self.psn_live.next = self.pc_live.q.val().get_bit(2);
            self.cum_adv.next = self.pc_cadv.q.val().get_bit(2);
            self.ack_ok.next = self.pc_ackok.q.val().get_bit(2);
        }
        if self.a1_f.q.val() & self.a1_rst.q.val() {
            self.room0.next = self.pc_room.q.val().get_bit(3);
            self.psn_live.next = self.pc_live.q.val().get_bit(3);
            self.cum_adv.next = self.pc_cadv.q.val().get_bit(3);
            self.ack_ok.next = self.pc_ackok.q.val().get_bit(3);
        }
        self.free0.next = self.alloc.val() != self.k_ones_r.val();
        self.path_ok.next = self.u_path.val() < self.k_p.val();
        self.u_ppk.next = self.u_ppsn.val() - self.k_k.val();
        self.t_ohj.next = self.k_one_r.val();

        // ---- per record predicates (the L loop): stage 5's, on each record's stored tag, with
        // the record the op 1 ahead wrote (w1) taking the ones on its new tag; then masked by
        // the allocated and lost flags, which the op 1 ahead may have changed
        self.w1.next = self.k_zero_r.val();
        if self.a1_f.q.val() {
            self.w1.next = self.a1_wr.q.val();
        }
        // the records' tags are not in the loop: register 6 holds them without the op 1
        // ahead's write, patched in here from registers (its one-hot and the tag it wrote)
        self.w_m8.next = self.k_ff_r8.val();
        self.w_x8.next = bit_cast::<R8, 8>(self.a1_off.q.val());
        self.w_m4.next = self.k_f_r4.val();
        self.w_x4.next = bit_cast::<R4, 4>(self.a1_path.q.val());
        self.w_m24.next = self.k_ff_r24.val();
        self.w_x24.next = bit_cast::<R24, 24>(self.a1_ppsn.q.val());
        self.w_m32.next = self.k_ff_r32.val();
        self.w_x32.next = bit_cast::<R32, 32>(self.a1_sent.q.val());
        for i in 0..R {
            if self.w1.val().get_bit(i) {
                self.offs.next = (self.offs.val() & !self.w_m8.val()) | self.w_x8.val();
                self.paths.next = (self.paths.val() & !self.w_m4.val()) | self.w_x4.val();
                self.ppsns.next = (self.ppsns.val() & !self.w_m24.val()) | self.w_x24.val();
                self.sents.next = (self.sents.val() & !self.w_m32.val()) | self.w_x32.val();
            }
            self.w_m8.next = self.w_m8.val() << 8;
            self.w_x8.next = self.w_x8.val() << 8;
            self.w_m4.next = self.w_m4.val() << 4;
            self.w_x4.next = self.w_x4.val() << 4;
            self.w_m24.next = self.w_m24.val() << 24;
            self.w_x24.next = self.w_x24.val() << 24;
            self.w_m32.next = self.w_m32.val() << 32;
            self.w_x32.next = self.w_x32.val() << 32;
        }
        self.x_m.next = self.pr_m.q.val() & !self.w1.val();
        if self.pn_m.q.val() {
            self.x_m.next = self.x_m.val() | self.w1.val();
        }
        self.x_bm.next = self.pr_bm0.q.val() & !self.w1.val();
        if self.a1_f.q.val() & self.a1_badv.q.val() {
            self.x_bm.next = self.pr_bm1.q.val() & !self.w1.val();
        }
        if self.pn_bm.q.val() {
            self.x_bm.next = self.x_bm.val() | self.w1.val();
        }
        self.x_cum.next = self.pr_cum.q.val() & !self.w1.val();
        if self.pn_cum.q.val() {
            self.x_cum.next = self.x_cum.val() | self.w1.val();
        }
        self.x_sack.next = self.pr_sack.q.val() & !self.w1.val();
        if self.pn_sack.q.val() {
            self.x_sack.next = self.x_sack.val() | self.w1.val();
        }
        self.x_ab.next = self.pr_ab.q.val() & !self.w1.val();
        if self.pn_ab.q.val() {
            self.x_ab.next = self.x_ab.val() | self.w1.val();
        }
        self.x_pm.next = self.pr_pm.q.val() & !self.w1.val();
        if self.pn_pm.q.val() {
            self.x_pm.next = self.x_pm.val() | self.w1.val();
        }
        self.x_ld.next = self.pr_ld.q.val() & !self.w1.val();
        if self.pn_ld.q.val() {
            self.x_ld.next = self.x_ld.val() | self.w1.val();
        }
        self.x_pass.next = self.pr_pass.q.val() & !self.w1.val();
        if self.pn_pass.q.val() {
            self.x_pass.next = self.x_pass.val() | self.w1.val();
        }
        self.x_qh.next = self.pr_qh.q.val() & !self.w1.val();
        if self.pn_qh.q.val() {
            self.x_qh.next = self.x_qh.val() | self.w1.val();
        }
        self.v_match.next = self.alloc.val() & self.x_m.val();
        self.v_basem.next = self.alloc.val() & !self.lost.val() & self.x_bm.val();
        self.v_ack.next = self.alloc.val() & self.x_sack.val();
        if self.cum_adv.val() {
            self.v_ack.next = self.alloc.val() & (self.x_cum.val() | self.x_sack.val());
        }
        self.v_ab.next = self.alloc.val() & self.x_ab.val();
        self.v_pm.next = self.alloc.val() & !self.lost.val() & self.x_pm.val();
        self.v_ld.next = self.alloc.val() & !self.lost.val() & self.x_ld.val();
        self.v_pass.next = self.alloc.val() & !self.lost.val() & self.x_pass.val();
        self.v_ql.next = self.alloc.val() & self.lost.val() & self.x_qh.val();

        // ---- LDET / DRAIN batches. LDET's first batch: the records at or above the highest
        // key of a record past the decrease point (all of them if none is); the second: the
        // rest. Up to 16 records every pair's order is stage 5's (pr_lt, patched for the
        // record the op 1 ahead wrote): a 16-input OR per record; beyond, a walk over keys.
        self.v_b1.next = self.k_zero_r.val();
        self.v_b2.next = self.k_zero_r.val();
        self.v_mlast.next = self.k_zero_r.val();
        self.t_hm.next = self.k_ones_r.val() << 1;
        // beyond 16 records, the highest key of a passing record by a walk
        self.t_key.next = self.k_zero24.val();
        self.t_lt.next = false;
        self.has_pass.next = false;
        self.cut_key.next = self.k_zero24.val();
        for _c in 0..Self::WALK {
            for i in 0..R {
                self.t_key.next = self.u_ppk.val() - self.ppsns.val().get_bits::<24>(i * 24);
                if self.v_pass.val().get_bit(i) & (!self.has_pass.val() | (self.t_key.val() > self.cut_key.val())) {
                    self.has_pass.next = true;
                    self.cut_key.next = self.t_key.val();
                }
            }
        }
        self.t_oh.next = self.k_one_r.val();
        for i in 0..R {
            self.t_blk.next = self.k_zero_r.val();
            for _m in 0..Self::PAIRWISE {
                self.t_ohj.next = self.k_one_r.val();
                for j in 0..R {
                    if j != i {
                        self.t_lt.next = self.pr_lt.q.val().get_bit(i * 16 + j);
                        if self.w1.val().get_bit(i) {
                            self.t_lt.next = self.pn_ltr.q.val().get_bit(j);
                        }
                        if self.w1.val().get_bit(j) {
                            self.t_lt.next = self.pn_ltc.q.val().get_bit(i);
                        }
                        if self.v_pass.val().get_bit(j) & self.t_lt.val() {
                            self.t_blk.next = self.t_blk.val() | self.t_ohj.val();
                        }
                    }
                    self.t_ohj.next = self.t_ohj.val() << 1;
                }
            }
            for _c in 0..Self::WALK {
                self.t_key.next = self.u_ppk.val() - self.ppsns.val().get_bits::<24>(i * 24);
                if self.has_pass.val() & (self.t_key.val() < self.cut_key.val()) {
                    self.t_blk.next = self.k_one_r.val();
                }
            }
            self.t_b1.next = false;
            self.t_ld.next = false;
            if self.path_ok.val() & (self.u_op.val() == self.k_op_drain.val()) {
                self.t_b1.next = self.v_pm.val().get_bit(i);
            }
            if self.path_ok.val() & (self.u_op.val() == self.k_op_ldet.val()) {
                self.t_b1.next = self.v_ld.val().get_bit(i) & !self.t_blk.val().any();
                self.t_ld.next = self.v_ld.val().get_bit(i) & !self.t_b1.val();
            }
            if self.t_b1.val() {
                self.v_b1.next = self.v_b1.val() | self.t_oh.val();
            }
            if self.t_ld.val() {
                self.v_b2.next = self.v_b2.val() | self.t_oh.val();
            }
            // the last matching record (the retransmission's record, as the model's walk finds it)
            if self.v_match.val().get_bit(i) & !(self.v_match.val() & self.t_hm.val()).any() {
                self.v_mlast.next = self.v_mlast.val() | self.t_oh.val();
            }
            self.t_hm.next = self.t_hm.val() << 1;
            self.t_oh.next = self.t_oh.val() << 1;
        }
        // the order of the records' distances from the base, for stage A's searches (up to 16
        // records; from the pre-state, off the loop: it only feeds register 7). j beats i: a
        // smaller (larger) distance, or an equal one and earlier
        self.l_dmin.next = self.k_zero256.val();
        self.l_dmax.next = self.k_zero256.val();
        self.l_ohl.next = self.k_one256.val();
        self.l_di.next = self.k_zero8.val();
        self.l_dj.next = self.k_zero8.val();
        self.t_bmin.next = false;
        self.t_bmax.next = false;
        for _m in 0..Self::PAIRWISE {
            for i in 0..R {
                self.l_di.next = (self.offs.val().get_bits::<8>(i * 8) - self.base.val().get_bits::<8>(0)) & self.k_wm8.val();
                for j in 0..R {
                    self.l_dj.next = (self.offs.val().get_bits::<8>(j * 8) - self.base.val().get_bits::<8>(0)) & self.k_wm8.val();
                    if j < i {
                        self.t_bmin.next = self.l_dj.val() <= self.l_di.val();
                        self.t_bmax.next = self.l_dj.val() >= self.l_di.val();
                    } else {
                        self.t_bmin.next = self.l_dj.val() < self.l_di.val();
                        self.t_bmax.next = self.l_dj.val() > self.l_di.val();
                    }
                    if self.t_bmin.val() {
                        self.l_dmin.next = self.l_dmin.val() | self.l_ohl.val();
                    }
                    if self.t_bmax.val() {
                        self.l_dmax.next = self.l_dmax.val() | self.l_ohl.val();
                    }
                    self.l_ohl.next = self.l_ohl.val() << 1;
                }
                for _k in R..16 {
                    self.l_ohl.next = self.l_ohl.val() << 1;
                }
            }
        }
        // the lowest free record (one-hot): a new SEND's record
        self.v_lz.next = !self.alloc.val() & (self.alloc.val() + self.k_one_r.val());

        // ---- the op: released (acked) set, lost set, the SEND's record
        self.v_rel.next = self.k_zero_r.val();
        self.v_los.next = self.k_zero_r.val();
        self.v_wr.next = self.k_zero_r.val();
        self.send_ok.next = false;
        self.send_psn.next = self.u_psn.val();
        self.r_ok.next = false;
        self.r_retx.next = false;
        self.n_base.next = self.base.val();
        self.n_next.next = self.next.val();
        self.n_hw.next = self.s6_hw.q.val();
        self.n_nd.next = self.s6_nd.q.val();
        if self.u_op.val() == self.k_op_reset.val() {
            self.r_ok.next = true;
            self.n_base.next = self.u_psn.val();
            self.n_next.next = self.u_psn.val();
            self.n_hw.next = bit_cast::<32, 1>(false.into());
            self.n_nd.next = false;
        }
        if self.u_op.val() == self.k_op_send.val() {
            if self.u_new.val() {
                self.send_ok.next = self.path_ok.val() & self.room0.val() & self.free0.val();
                self.send_psn.next = self.next.val();
                if self.send_ok.val() {
                    self.n_next.next = self.next.val() + self.k_one24.val();
                    self.v_wr.next = self.v_lz.val();
                }
            } else {
                self.send_ok.next = self.path_ok.val() & self.psn_live.val() & self.v_match.val().any();
                self.r_retx.next = self.send_ok.val();
                if self.send_ok.val() {
                    self.v_wr.next = self.v_mlast.val();
                }
            }
            self.r_ok.next = self.send_ok.val();
        }
        if (self.u_op.val() == self.k_op_ack.val()) & self.ack_ok.val() {
            self.r_ok.next = true;
            self.v_rel.next = self.v_ack.val();
            if self.cum_adv.val() {
                self.n_base.next = self.u_psn.val();
            }
        }
        // LDET / DRAIN: the lost set is every eligible record (the two batches' union), so
        // the cut, which only splits them into batches, stays out of the loop: it feeds
        // register 7 (p7_b1, p7_b2) for stage A, never the next state
        if (self.u_op.val() == self.k_op_ldet.val()) | (self.u_op.val() == self.k_op_drain.val()) {
            self.r_ok.next = self.path_ok.val();
        }
        if self.path_ok.val() & (self.u_op.val() == self.k_op_ldet.val()) {
            self.v_los.next = self.v_ld.val();
        }
        if self.path_ok.val() & (self.u_op.val() == self.k_op_drain.val()) {
            self.v_los.next = self.v_pm.val();
        }
        if (self.u_op.val() == self.k_op_query.val()) & self.v_ql.val().any() {
            self.r_ok.next = true;
        }
        if (self.u_op.val() == self.k_op_headtmo.val()) & self.v_basem.val().any() {
            self.r_ok.next = true;
            self.v_los.next = self.v_basem.val();
        }
        if self.u_op.val() == self.k_op_marklost.val() {
            if self.psn_live.val() & (self.v_match.val() & !self.lost.val()).any() {
                self.r_ok.next = true;
                self.v_los.next = self.v_match.val();
            }
        }
        if self.u_op.val() == self.k_op_abandon.val() {
            self.r_ok.next = true;
            self.v_rel.next = self.v_ab.val();
        }
        if self.u_op.val() == self.k_op_hwait.val() {
            self.r_ok.next = true;
            self.n_hw.next = (bit_cast::<32, 1>(self.u_hwv.val().into()) << 31) | bit_cast::<32, 31>(self.u_hw.val());
        }
        if self.u_op.val() == self.k_op_newdata.val() {
            self.r_ok.next = true;
            self.n_nd.next = self.u_nd.val();
        }

        // ---- next state (the record fields of a SEND: one record, by its one-hot)
        self.n_alloc.next = (self.alloc.val() & !self.v_rel.val()) | self.v_wr.val();
        self.n_lost.next = (self.lost.val() | self.v_los.val()) & !self.v_rel.val() & !self.v_wr.val();
        if self.u_op.val() == self.k_op_reset.val() {
            self.n_alloc.next = self.k_zero_r.val();
            self.n_lost.next = self.k_zero_r.val();
        }
        self.t_slot8.next = self.send_psn.val().get_bits::<8>(0) & self.k_wm8.val();
        self.n_offs.next = self.offs.val();
        self.n_paths.next = self.paths.val();
        self.n_ppsns.next = self.ppsns.val();
        self.n_sents.next = self.sents.val();
        // walking field masks and values (constant shifts: wiring only)
        self.w_m8.next = self.k_ff_r8.val();
        self.w_x8.next = bit_cast::<R8, 8>(self.t_slot8.val());
        self.w_m4.next = self.k_f_r4.val();
        self.w_x4.next = bit_cast::<R4, 4>(self.u_path.val());
        self.w_m24.next = self.k_ff_r24.val();
        self.w_x24.next = bit_cast::<R24, 24>(self.u_ppsn.val());
        self.w_m32.next = self.k_ff_r32.val();
        self.w_x32.next = bit_cast::<R32, 32>(self.u_now.val());
        for i in 0..R {
            if self.v_wr.val().get_bit(i) {
                self.n_offs.next = (self.n_offs.val() & !self.w_m8.val()) | self.w_x8.val();
                self.n_paths.next = (self.n_paths.val() & !self.w_m4.val()) | self.w_x4.val();
                self.n_ppsns.next = (self.n_ppsns.val() & !self.w_m24.val()) | self.w_x24.val();
                self.n_sents.next = (self.n_sents.val() & !self.w_m32.val()) | self.w_x32.val();
            }
            self.w_m8.next = self.w_m8.val() << 8;
            self.w_x8.next = self.w_x8.val() << 8;
            self.w_m4.next = self.w_m4.val() << 4;
            self.w_x4.next = self.w_x4.val() << 4;
            self.w_m24.next = self.w_m24.val() << 24;
            self.w_x24.next = self.w_x24.val() << 24;
            self.w_m32.next = self.w_m32.val() << 32;
            self.w_x32.next = self.w_x32.val() << 32;
        }

        // ---- the write-back: registered. The op leaving L writes its word in the next cycle,
        // from p7_n* (w_v: it left at an advancing edge), so L's next state drives only
        // flip-flops (register 6's forward, p7, a1), not the block RAMs' pins
        self.w_v.d.next = self.i6_v.q.val() & self.adv.val();
        self.ram_base.write_enable.next = self.w_v.q.val();
        self.ram_next.write_enable.next = self.w_v.q.val();
        self.ram_alloc.write_enable.next = self.w_v.q.val();
        self.ram_lost.write_enable.next = self.w_v.q.val();
        self.ram_off.write_enable.next = self.w_v.q.val();
        self.ram_path.write_enable.next = self.w_v.q.val();
        self.ram_ppsn.write_enable.next = self.w_v.q.val();
        self.ram_sent.write_enable.next = self.w_v.q.val();
        self.ram_hw.write_enable.next = self.w_v.q.val();
        self.ram_nd.write_enable.next = self.w_v.q.val();
        self.ram_base.write_address.next = self.o7_c.q.val();
        self.ram_next.write_address.next = self.o7_c.q.val();
        self.ram_alloc.write_address.next = self.o7_c.q.val();
        self.ram_lost.write_address.next = self.o7_c.q.val();
        self.ram_off.write_address.next = self.o7_c.q.val();
        self.ram_path.write_address.next = self.o7_c.q.val();
        self.ram_ppsn.write_address.next = self.o7_c.q.val();
        self.ram_sent.write_address.next = self.o7_c.q.val();
        self.ram_hw.write_address.next = self.o7_c.q.val();
        self.ram_nd.write_address.next = self.o7_c.q.val();
        self.ram_base.write_data.next = self.p7_nbase.q.val();
        self.ram_next.write_data.next = self.p7_nnext.q.val();
        self.ram_alloc.write_data.next = self.p7_nalloc.q.val();
        self.ram_lost.write_data.next = self.p7_nlost.q.val();
        self.ram_off.write_data.next = self.p7_noffs.q.val();
        self.ram_path.write_data.next = self.p7_npaths.q.val();
        self.ram_ppsn.write_data.next = self.p7_nppsns.q.val();
        self.ram_sent.write_data.next = self.p7_nsents.q.val();
        self.ram_hw.write_data.next = self.p7_nhw.q.val();
        self.ram_nd.write_data.next = bit_cast::<1, 1>(self.p7_nnd.q.val().into());
        // the op 2 ahead's write, in flight from p7 while this op is in register 5 (fw2: it
        // left L at the edge this op entered 5, to the same connection; cleared by a hold,
        // during which the RAM's output register takes the write itself)
        self.fw2.d.next = self.adv.val() & self.i6_v.q.val() & (self.i6_c.q.val() == self.i4_c.q.val());
        self.w5_base.next = self.ram_base.read_data.val();
        self.w5_next.next = self.ram_next.read_data.val();
        self.w5_alloc.next = self.ram_alloc.read_data.val();
        self.w5_lost.next = self.ram_lost.read_data.val();
        self.w5_offs.next = self.ram_off.read_data.val();
        self.w5_paths.next = self.ram_path.read_data.val();
        self.w5_ppsns.next = self.ram_ppsn.read_data.val();
        self.w5_sents.next = self.ram_sent.read_data.val();
        self.w5_hw.next = self.ram_hw.read_data.val();
        self.w5_nd.next = self.ram_nd.read_data.val().any();
        if self.fw2.q.val() {
            self.w5_base.next = self.p7_nbase.q.val();
            self.w5_next.next = self.p7_nnext.q.val();
            self.w5_alloc.next = self.p7_nalloc.q.val();
            self.w5_lost.next = self.p7_nlost.q.val();
            self.w5_offs.next = self.p7_noffs.q.val();
            self.w5_paths.next = self.p7_npaths.q.val();
            self.w5_ppsns.next = self.p7_nppsns.q.val();
            self.w5_sents.next = self.p7_nsents.q.val();
            self.w5_hw.next = self.p7_nhw.q.val();
            self.w5_nd.next = self.p7_nnd.q.val();
        }
        // the op 1 ahead, in L now, to the same connection (fw1: registered as the two ops
        // entered registers 5 and 6)
        if self.adv.val() {
            self.fw1.d.next = self.i5_v.q.val() & (self.i5_c.q.val() == self.i4_c.q.val());
        }

        // ================= stage 5 (P): from the RAM's word (every write but the op 1 ahead's)
        // and the op's own fields, the per-record predicates on each stored tag; the same on
        // the tag the op 1 ahead (in L now) writes if it is a SEND; the op-level predicates
        // for each (base, next) it can leave. All registered into register 6.
        self.g_psn.next = self.i5_f.q.val().get_bits::<24>(4);
        self.g_path.next = self.i5_f.q.val().get_bits::<4>(29);
        self.g_ppsn.next = self.i5_f.q.val().get_bits::<24>(33);
        self.g_ldpv.next = self.i5_f.q.val().get_bit(90);
        self.g_ldp.next = self.i5_f.q.val().get_bits::<24>(91);
        self.g_ppk.next = self.g_ppsn.val() - self.k_k.val();
        self.g_pslot.next = self.g_psn.val().get_bits::<8>(0) & self.k_wm8.val();
        self.g_base.next = self.w5_base.val();
        self.g_next.next = self.w5_next.val();
        self.g_offs.next = self.w5_offs.val();
        self.g_paths.next = self.w5_paths.val();
        self.g_ppsns.next = self.w5_ppsns.val();
        // base - psn and base - ldp from both candidates of the word (the RAM's, the op 2
        // ahead's in register 7) side by side, then the forward's select: the 24-bit
        // subtracts do not wait for fw2's mux
        self.g_e_psn.next = self.ram_base.read_data.val() - self.g_psn.val();
        self.g_e_ldp.next = self.ram_base.read_data.val() - self.g_ldp.val();
        if self.fw2.q.val() {
            self.g_e_psn.next = self.p7_nbase.q.val() - self.g_psn.val();
            self.g_e_ldp.next = self.p7_nbase.q.val() - self.g_ldp.val();
        }
        self.g_bslot.next = self.g_base.val().get_bits::<8>(0) & self.k_wm8.val();
        self.g_bslot1.next = self.u_psn.val().get_bits::<8>(0) & self.k_wm8.val();
        self.g_m.next = self.k_zero_r.val();
        self.g_bm0.next = self.k_zero_r.val();
        self.g_bm1.next = self.k_zero_r.val();
        self.g_cum.next = self.k_zero_r.val();
        self.g_sack.next = self.k_zero_r.val();
        self.g_ab.next = self.k_zero_r.val();
        self.g_pm.next = self.k_zero_r.val();
        self.g_ld.next = self.k_zero_r.val();
        self.g_pass.next = self.k_zero_r.val();
        self.g_qh.next = self.k_zero_r.val();
        self.g_oh.next = self.k_one_r.val();
        for i in 0..R {
            self.g_off.next = self.g_offs.val().get_bits::<8>(i * 8);
            self.g_d.next = (self.g_off.val() - self.g_base.val().get_bits::<8>(0)) & self.k_wm8.val();
            // g_e = (record PSN) - psn, g_pd = (record PSN) - ldp: the record PSN is base + g_d
            self.g_e.next = self.g_e_psn.val() + bit_cast::<24, 8>(self.g_d.val());
            self.g_pd.next = self.g_e_ldp.val() + bit_cast::<24, 8>(self.g_d.val());
            self.g_key.next = self.g_ppk.val() - self.g_ppsns.val().get_bits::<24>(i * 24);
            // i5_s is the SACK bitmap rotated to the op's PSN: bit `off` is the record's SACK bit
            self.g_sb.next = ((self.i5_s.q.val() >> self.g_off.val()) & self.k_one_w.val()).any();
            if self.g_off.val() == self.g_pslot.val() {
                self.g_m.next = self.g_m.val() | self.g_oh.val();
            }
            if self.g_off.val() == self.g_bslot.val() {
                self.g_bm0.next = self.g_bm0.val() | self.g_oh.val();
            }
            if self.g_off.val() == self.g_bslot1.val() {
                self.g_bm1.next = self.g_bm1.val() | self.g_oh.val();
            }
            // the window tests as bit tests on the difference (the half is 2^23, W a power of
            // two): no compare chain after the add
            if self.g_e.val().get_bit(23) {
                self.g_cum.next = self.g_cum.val() | self.g_oh.val();
            }
            if !(self.g_e.val() & self.k_nw24.val()).any() & self.g_sb.val() {
                self.g_sack.next = self.g_sack.val() | self.g_oh.val();
            }
            if !self.g_e.val().get_bit(23) {
                self.g_ab.next = self.g_ab.val() | self.g_oh.val();
            }
            if self.g_paths.val().get_bits::<4>(i * 4) == self.g_path.val() {
                self.g_pm.next = self.g_pm.val() | self.g_oh.val();
                if !self.g_key.val().get_bit(23) {
                    self.g_ld.next = self.g_ld.val() | self.g_oh.val();
                    if !self.g_ldpv.val() | !self.g_pd.val().get_bit(23) {
                        self.g_pass.next = self.g_pass.val() | self.g_oh.val();
                    }
                }
            }
            if !((self.i5_h.q.val() >> self.g_off.val()) & self.k_one_w.val()).any() {
                self.g_qh.next = self.g_qh.val() | self.g_oh.val();
            }
            self.g_oh.next = self.g_oh.val() << 1;
        }
        // the order of two eligible keys (both below 2^23): key i < key j iff path PSN j is
        // before path PSN i, the sign of their difference (the op's highest PSN cancels)
        self.g_lt.next = self.k_zero256.val();
        self.g_ltc.next = self.k_zero_r.val();
        self.g_ltr.next = self.k_zero_r.val();
        self.g_ohl.next = self.k_one256.val();
        self.g_pi.next = self.k_zero24.val();
        self.g_pj.next = self.k_zero24.val();
        self.g_dd.next = self.k_zero24.val();
        for _m in 0..Self::PAIRWISE {
            self.g_oh.next = self.k_one_r.val();
            for i in 0..R {
                self.g_pi.next = self.g_ppsns.val().get_bits::<24>(i * 24);
                for j in 0..R {
                    self.g_pj.next = self.g_ppsns.val().get_bits::<24>(j * 24);
                    self.g_dd.next = self.g_pj.val() - self.g_pi.val();
                    if self.g_dd.val().get_bit(23) {
                        self.g_lt.next = self.g_lt.val() | self.g_ohl.val();
                    }
                    self.g_ohl.next = self.g_ohl.val() << 1;
                }
                for _k in R..16 {
                    self.g_ohl.next = self.g_ohl.val() << 1;
                }
                // against the path PSN the op 1 ahead writes: column (key i < its key) and row
                self.g_dd.next = self.u_ppsn.val() - self.g_pi.val();
                if self.g_dd.val().get_bit(23) {
                    self.g_ltc.next = self.g_ltc.val() | self.g_oh.val();
                }
                self.g_dd.next = self.g_pi.val() - self.u_ppsn.val();
                if self.g_dd.val().get_bit(23) {
                    self.g_ltr.next = self.g_ltr.val() | self.g_oh.val();
                }
                self.g_oh.next = self.g_oh.val() << 1;
            }
        }
        // the tag the op 1 ahead writes: slot of its PSN, its path and path PSN
        self.g_noff.next = self.send_psn.val().get_bits::<8>(0) & self.k_wm8.val();
        self.g_ne.next = self.send_psn.val() - self.g_psn.val();
        self.g_npd.next = self.send_psn.val() - self.g_ldp.val();
        self.g_nkey.next = self.g_ppk.val() - self.u_ppsn.val();
        // op-level, for (base, next) = 0: (B, N), 1: (B, N + 1), 2: (its PSN, N), 3: (its PSN, its PSN)
        self.g_next1.next = self.g_next.val() + self.k_one24.val();
        self.g_o0.next = self.g_next.val() - self.g_base.val();
        self.g_o1.next = self.g_next1.val() - self.g_base.val();
        self.g_o2.next = self.g_next.val() - self.u_psn.val();
        self.g_d0.next = self.g_psn.val() - self.g_base.val();
        self.g_d2.next = self.g_psn.val() - self.u_psn.val();
        self.g_a0.next = self.g_psn.val() - self.g_next.val();
        self.g_a1.next = self.g_psn.val() - self.g_next1.val();
        self.g_a3.next = self.g_psn.val() - self.u_psn.val();
        // each candidate's predicate as a 1-bit signal first: inside a bit_cast rust-hdl writes
        // `(expr & 4'hf)`, and Verilog widens a negated 1-bit expression before the `~`
        self.g_r0.next = self.g_o0.val() < self.k_w24.val();
        self.g_r1.next = self.g_o1.val() < self.k_w24.val();
        self.g_r2.next = self.g_o2.val() < self.k_w24.val();
        self.g_l0.next = self.g_d0.val() < self.g_o0.val();
        self.g_l1.next = self.g_d0.val() < self.g_o1.val();
        self.g_l2.next = self.g_d2.val() < self.g_o2.val();
        self.g_c0.next = (self.g_d0.val() != self.k_zero24.val()) & (self.g_d0.val() < self.k_half24.val());
        self.g_c2.next = (self.g_d2.val() != self.k_zero24.val()) & (self.g_d2.val() < self.k_half24.val());
        self.g_k0.next = !((self.g_a0.val() != self.k_zero24.val()) & (self.g_a0.val() < self.k_half24.val()));
        self.g_k1.next = !((self.g_a1.val() != self.k_zero24.val()) & (self.g_a1.val() < self.k_half24.val()));
        self.g_k3.next = !((self.g_a3.val() != self.k_zero24.val()) & (self.g_a3.val() < self.k_half24.val()));
        // forwarding into register 6: the op 1 ahead writes this connection as this op moves
        self.g_fwd.next = self.fw1.q.val() & self.i6_v.q.val();
        if self.adv.val() {
            self.pr_m.d.next = self.g_m.val();
            self.pr_bm0.d.next = self.g_bm0.val();
            self.pr_bm1.d.next = self.g_bm1.val();
            self.pr_cum.d.next = self.g_cum.val();
            self.pr_sack.d.next = self.g_sack.val();
            self.pr_ab.d.next = self.g_ab.val();
            self.pr_pm.d.next = self.g_pm.val();
            self.pr_ld.d.next = self.g_ld.val();
            self.pr_pass.d.next = self.g_pass.val();
            self.pr_qh.d.next = self.g_qh.val();
            self.pr_lt.d.next = self.g_lt.val();
            self.pn_m.d.next = self.g_noff.val() == self.g_pslot.val();
            self.pn_bm.d.next = self.g_noff.val() == self.g_bslot.val();
            self.pn_cum.d.next = self.g_ne.val() >= self.k_half24.val();
            self.pn_sack.d.next = (self.g_ne.val() < self.k_w24.val()) & ((self.i5_s.q.val() >> self.g_noff.val()) & self.k_one_w.val()).any();
            self.pn_ab.d.next = self.g_ne.val() < self.k_half24.val();
            self.pn_pm.d.next = self.u_path.val() == self.g_path.val();
            self.pn_ld.d.next = (self.u_path.val() == self.g_path.val()) & (self.g_nkey.val() < self.k_half24.val());
            self.pn_pass.d.next = (self.u_path.val() == self.g_path.val()) & (self.g_nkey.val() < self.k_half24.val()) & (!self.g_ldpv.val() | (self.g_npd.val() < self.k_half24.val()));
            self.pn_qh.d.next = !((self.i5_h.q.val() >> self.g_noff.val()) & self.k_one_w.val()).any();
            self.pn_ltc.d.next = self.g_ltc.val();
            self.pn_ltr.d.next = self.g_ltr.val();
            self.pc_room.d.next = bit_cast::<4, 1>(self.g_r0.val().into())
                | (bit_cast::<4, 1>(self.g_r1.val().into()) << 1)
                | (bit_cast::<4, 1>(self.g_r2.val().into()) << 2)
                | (bit_cast::<4, 1>(true.into()) << 3);
            self.pc_live.d.next = bit_cast::<4, 1>(self.g_l0.val().into())
                | (bit_cast::<4, 1>(self.g_l1.val().into()) << 1)
                | (bit_cast::<4, 1>(self.g_l2.val().into()) << 2);
            self.pc_cadv.d.next = bit_cast::<4, 1>(self.g_c0.val().into())
                | (bit_cast::<4, 1>(self.g_c0.val().into()) << 1)
                | (bit_cast::<4, 1>(self.g_c2.val().into()) << 2)
                | (bit_cast::<4, 1>(self.g_c2.val().into()) << 3);
            self.pc_ackok.d.next = bit_cast::<4, 1>(self.g_k0.val().into())
                | (bit_cast::<4, 1>(self.g_k1.val().into()) << 1)
                | (bit_cast::<4, 1>(self.g_k0.val().into()) << 2)
                | (bit_cast::<4, 1>(self.g_k3.val().into()) << 3);
            self.a1_f.d.next = self.g_fwd.val();
            // what the op now in L does (its write lands as this op enters L)
            self.a1_wr.d.next = self.v_wr.val();
            self.a1_off.d.next = self.t_slot8.val();
            self.a1_path.d.next = self.u_path.val();
            self.a1_ppsn.d.next = self.u_ppsn.val();
            self.a1_sent.d.next = self.u_now.val();
            self.a1_rst.d.next = self.u_op.val() == self.k_op_reset.val();
            self.a1_badv.d.next = (self.u_op.val() == self.k_op_ack.val()) & self.ack_ok.val() & self.cum_adv.val();
            self.a1_ninc.d.next = (self.u_op.val() == self.k_op_send.val()) & self.u_new.val() & self.send_ok.val();
            // register 6's word: the RAM's, or the op 1 ahead's write to the same connection
            self.s6_base.d.next = self.w5_base.val();
            self.s6_next.d.next = self.w5_next.val();
            self.s6_alloc.d.next = self.w5_alloc.val();
            self.s6_lost.d.next = self.w5_lost.val();
            self.s6_offs.d.next = self.w5_offs.val();
            self.s6_paths.d.next = self.w5_paths.val();
            self.s6_ppsns.d.next = self.w5_ppsns.val();
            self.s6_sents.d.next = self.w5_sents.val();
            self.s6_hw.d.next = self.w5_hw.val();
            self.s6_nd.d.next = self.w5_nd.val();
            if self.g_fwd.val() {
                self.s6_base.d.next = self.n_base.val();
                self.s6_next.d.next = self.n_next.val();
                self.s6_alloc.d.next = self.n_alloc.val();
                self.s6_lost.d.next = self.n_lost.val();
                self.s6_hw.d.next = self.n_hw.val();
                self.s6_nd.d.next = self.n_nd.val();
            }
        }

        // ================= stage A (register 7 -> 8): after the loop, from the registered
        // pre- and post-state and the op's record sets: the searches (first and last PSN of
        // each LDET batch, the oldest lost PSN not held, as distances from the base; ties go
        // to the first record, as the model's walk), the reported path, the head record's
        // send time, counts, room and free
        self.x_op.next = self.p7_f.q.val().get_bits::<4>(0);
        self.x_base8.next = self.p7_base.q.val().get_bits::<8>(0);
        self.n_bslot.next = self.p7_nbase.q.val().get_bits::<8>(0) & self.k_wm8.val();
        self.a_sel.next = self.k_zero_r.val();
        self.a_hb.next = self.k_zero_r.val();
        self.t_hm.next = self.k_ones_r.val() << 1;
        self.t_oh.next = self.k_one_r.val();
        for i in 0..R {
            // the last record wins: the path of the record the model's walk reports
            if self.p7_sel.q.val().get_bit(i) & !(self.p7_sel.q.val() & self.t_hm.val()).any() {
                self.a_sel.next = self.a_sel.val() | self.t_oh.val();
            }
            self.t_f.next = self.p7_nalloc.q.val().get_bit(i) & !self.p7_nlost.q.val().get_bit(i) & (self.p7_noffs.q.val().get_bits::<8>(i * 8) == self.n_bslot.val());
            if self.t_f.val() {
                self.a_hb.next = self.a_hb.val() | self.t_oh.val();
            }
            self.t_hm.next = self.t_hm.val() << 1;
            self.t_oh.next = self.t_oh.val() << 1;
        }
        // the head record (in flight at the new base): the last one that matches
        self.t_hm.next = self.k_ones_r.val() << 1;
        self.a_hbl.next = self.k_zero_r.val();
        self.t_oh.next = self.k_one_r.val();
        for i in 0..R {
            if self.a_hb.val().get_bit(i) & !(self.a_hb.val() & self.t_hm.val()).any() {
                self.a_hbl.next = self.a_hbl.val() | self.t_oh.val();
            }
            self.t_hm.next = self.t_hm.val() << 1;
            self.t_oh.next = self.t_oh.val() << 1;
        }
        // defaults of the temporaries of the variant not generated at this R
        self.c_v1.next = false;
        self.c_v2.next = false;
        self.c_vq.next = false;
        self.t_di.next = self.k_zero8.val();
        self.bt_f1.next = self.k_zero_r.val();
        self.bt_l1.next = self.k_zero_r.val();
        self.bt_f2.next = self.k_zero_r.val();
        self.bt_l2.next = self.k_zero_r.val();
        self.bt_q.next = self.k_zero_r.val();
        self.f1.next = self.k_zero8.val();
        self.l1.next = self.k_zero8.val();
        self.f2.next = self.k_zero8.val();
        self.l2.next = self.k_zero8.val();
        self.q_d.next = self.k_zero8.val();
        self.q_path.next = self.k_zero4.val();
        self.t_ohi.next = self.k_one_r.val();
        self.t_of1.next = self.k_zero_r.val();
        self.t_ol1.next = self.k_zero_r.val();
        self.t_of2.next = self.k_zero_r.val();
        self.t_ol2.next = self.k_zero_r.val();
        self.t_oq.next = self.k_zero_r.val();
        // up to 16 records: the winners of the pairwise order L registered (16-input ANDs),
        // one-hot, and every record's distance from the base; stage B selects with them
        for _m in 0..Self::PAIRWISE {
            for i in 0..R {
                self.bt_f1.next = self.k_zero_r.val();
                self.bt_l1.next = self.k_zero_r.val();
                self.bt_f2.next = self.k_zero_r.val();
                self.bt_l2.next = self.k_zero_r.val();
                self.bt_q.next = self.k_zero_r.val();
                self.t_ohj.next = self.k_one_r.val();
                for j in 0..R {
                    // j beats i (compared in L, from the pre-state: p7_dmin / p7_dmax)
                    self.t_bmin.next = self.p7_dmin.q.val().get_bit(i * 16 + j);
                    self.t_bmax.next = self.p7_dmax.q.val().get_bit(i * 16 + j);
                    if self.p7_b1.q.val().get_bit(j) & self.t_bmin.val() {
                        self.bt_f1.next = self.bt_f1.val() | self.t_ohj.val();
                    }
                    if self.p7_b1.q.val().get_bit(j) & self.t_bmax.val() {
                        self.bt_l1.next = self.bt_l1.val() | self.t_ohj.val();
                    }
                    if self.p7_b2.q.val().get_bit(j) & self.t_bmin.val() {
                        self.bt_f2.next = self.bt_f2.val() | self.t_ohj.val();
                    }
                    if self.p7_b2.q.val().get_bit(j) & self.t_bmax.val() {
                        self.bt_l2.next = self.bt_l2.val() | self.t_ohj.val();
                    }
                    if self.p7_ql.q.val().get_bit(j) & self.t_bmin.val() {
                        self.bt_q.next = self.bt_q.val() | self.t_ohj.val();
                    }
                    self.t_ohj.next = self.t_ohj.val() << 1;
                }
                if self.p7_b1.q.val().get_bit(i) & !self.bt_f1.val().any() {
                    self.t_of1.next = self.t_of1.val() | self.t_ohi.val();
                }
                if self.p7_b1.q.val().get_bit(i) & !self.bt_l1.val().any() {
                    self.t_ol1.next = self.t_ol1.val() | self.t_ohi.val();
                }
                if self.p7_b2.q.val().get_bit(i) & !self.bt_f2.val().any() {
                    self.t_of2.next = self.t_of2.val() | self.t_ohi.val();
                }
                if self.p7_b2.q.val().get_bit(i) & !self.bt_l2.val().any() {
                    self.t_ol2.next = self.t_ol2.val() | self.t_ohi.val();
                }
                if self.p7_ql.q.val().get_bit(i) & !self.bt_q.val().any() {
                    self.t_oq.next = self.t_oq.val() | self.t_ohi.val();
                }
                self.t_ohi.next = self.t_ohi.val() << 1;
            }
        }
        // more records: the model's walk, one record after the other (R^2 pairs would not fit)
        for _c in 0..Self::WALK {
            self.c_v1.next = false;
            self.c_v2.next = false;
            self.c_vq.next = false;
            for i in 0..R {
                self.t_di.next = (self.p7_offs.q.val().get_bits::<8>(i * 8) - self.x_base8.val()) & self.k_wm8.val();
                if self.p7_b1.q.val().get_bit(i) {
                    if !self.c_v1.val() | (self.t_di.val() < self.f1.val()) {
                        self.f1.next = self.t_di.val();
                    }
                    if !self.c_v1.val() | (self.t_di.val() > self.l1.val()) {
                        self.l1.next = self.t_di.val();
                    }
                    self.c_v1.next = true;
                }
                if self.p7_b2.q.val().get_bit(i) {
                    if !self.c_v2.val() | (self.t_di.val() < self.f2.val()) {
                        self.f2.next = self.t_di.val();
                    }
                    if !self.c_v2.val() | (self.t_di.val() > self.l2.val()) {
                        self.l2.next = self.t_di.val();
                    }
                    self.c_v2.next = true;
                }
                if self.p7_ql.q.val().get_bit(i) & (!self.c_vq.val() | (self.t_di.val() < self.q_d.val())) {
                    self.q_d.next = self.t_di.val();
                    self.q_path.next = self.p7_paths.q.val().get_bits::<4>(i * 4);
                    self.c_vq.next = true;
                }
            }
        }
        // counts: records per batch, released records per path (not lost / lost on an ACK)
        self.a_k1.next = self.k_zero9.val();
        self.a_k2.next = self.k_zero9.val();
        for i in 0..R {
            self.t_bmin.next = self.p7_b1.q.val().get_bit(i);
            self.t_bmax.next = self.p7_b2.q.val().get_bit(i);
            self.a_k1.next = self.a_k1.val() + bit_cast::<9, 1>(self.t_bmin.val().into());
            self.a_k2.next = self.a_k2.val() + bit_cast::<9, 1>(self.t_bmax.val().into());
        }
        self.a_cn.next = self.k_zero_np.val();
        self.a_cl.next = self.k_zero_np.val();
        self.t_p.next = self.k_zero4.val();
        self.t_sh.next = self.k_zero8.val();
        for _p in 0..P {
            self.a_en.next = self.k_zero9.val();
            self.a_el.next = self.k_zero9.val();
            for i in 0..R {
                self.t_f.next = self.p7_rel.q.val().get_bit(i) & (self.p7_paths.q.val().get_bits::<4>(i * 4) == self.t_p.val());
                self.t_bmin.next = self.t_f.val() & !self.p7_lost.q.val().get_bit(i);
                self.t_bmax.next = self.t_f.val() & self.p7_lost.q.val().get_bit(i) & (self.x_op.val() == self.k_op_ack.val());
                self.a_en.next = self.a_en.val() + bit_cast::<9, 1>(self.t_bmin.val().into());
                self.a_el.next = self.a_el.val() + bit_cast::<9, 1>(self.t_bmax.val().into());
            }
            self.a_cn.next = self.a_cn.val() | (bit_cast::<NP, 9>(self.a_en.val()) << self.t_sh.val());
            self.a_cl.next = self.a_cl.val() | (bit_cast::<NP, 9>(self.a_el.val()) << self.t_sh.val());
            self.t_p.next = self.t_p.val() + self.k_one4.val();
            self.t_sh.next = self.t_sh.val() + self.k_nine8.val();
        }
        self.n_outst.next = self.p7_nnext.q.val() - self.p7_nbase.q.val();
        // flags: room 0, free 1, f1_v 2, f2_v 3, q_v 4, hb_v 5, head wait short 6
        self.a_fl.next = bit_cast::<8, 1>((self.n_outst.val() < self.k_w24.val()).into())
            | (bit_cast::<8, 1>((self.p7_nalloc.q.val() != self.k_ones_r.val()).into()) << 1)
            | (bit_cast::<8, 1>(self.p7_b1.q.val().any().into()) << 2)
            | (bit_cast::<8, 1>(self.p7_b2.q.val().any().into()) << 3)
            | (bit_cast::<8, 1>(self.p7_ql.q.val().any().into()) << 4)
            | (bit_cast::<8, 1>(self.a_hb.val().any().into()) << 5)
            | (bit_cast::<8, 1>((self.n_outst.val() < self.k_w2.val()).into()) << 6);

        // ================= stage B (register 8 -> 9): the one-hot selections of stage A's
        // winners (distances, paths, the head record's send time); the walk variant's
        // results (R > 16) pass through, its one-hots are 0
        self.b_f1.next = self.q8_f1.q.val();
        self.b_l1.next = self.q8_l1.q.val();
        self.b_f2.next = self.q8_f2.q.val();
        self.b_l2.next = self.q8_l2.q.val();
        self.b_qd.next = self.q8_qd.q.val();
        self.b_qpath.next = self.q8_qpath.q.val();
        self.sel_path.next = self.k_zero4.val();
        self.hb_sent.next = self.k_zero32.val();
        self.x_base8.next = self.q8_base.q.val().get_bits::<8>(0);
        self.b_o.next = self.k_zero8.val();
        for i in 0..R {
            if self.q8_of1.q.val().get_bit(i) {
                self.b_o.next = self.b_o.val() | self.q8_offs.q.val().get_bits::<8>(i * 8);
            }
        }
        if self.q8_of1.q.val().any() {
            self.b_f1.next = (self.b_o.val() - self.x_base8.val()) & self.k_wm8.val();
        }
        self.b_o.next = self.k_zero8.val();
        for i in 0..R {
            if self.q8_ol1.q.val().get_bit(i) {
                self.b_o.next = self.b_o.val() | self.q8_offs.q.val().get_bits::<8>(i * 8);
            }
        }
        if self.q8_ol1.q.val().any() {
            self.b_l1.next = (self.b_o.val() - self.x_base8.val()) & self.k_wm8.val();
        }
        self.b_o.next = self.k_zero8.val();
        for i in 0..R {
            if self.q8_of2.q.val().get_bit(i) {
                self.b_o.next = self.b_o.val() | self.q8_offs.q.val().get_bits::<8>(i * 8);
            }
        }
        if self.q8_of2.q.val().any() {
            self.b_f2.next = (self.b_o.val() - self.x_base8.val()) & self.k_wm8.val();
        }
        self.b_o.next = self.k_zero8.val();
        for i in 0..R {
            if self.q8_ol2.q.val().get_bit(i) {
                self.b_o.next = self.b_o.val() | self.q8_offs.q.val().get_bits::<8>(i * 8);
            }
        }
        if self.q8_ol2.q.val().any() {
            self.b_l2.next = (self.b_o.val() - self.x_base8.val()) & self.k_wm8.val();
        }
        self.b_o.next = self.k_zero8.val();
        for i in 0..R {
            if self.q8_oq.q.val().get_bit(i) {
                self.b_o.next = self.b_o.val() | self.q8_offs.q.val().get_bits::<8>(i * 8);
                self.b_qpath.next = self.b_qpath.val() | self.q8_paths.q.val().get_bits::<4>(i * 4);
            }
        }
        if self.q8_oq.q.val().any() {
            self.b_qd.next = (self.b_o.val() - self.x_base8.val()) & self.k_wm8.val();
        }
        for i in 0..R {
            if self.q8_osel.q.val().get_bit(i) {
                self.sel_path.next = self.sel_path.val() | self.q8_paths.q.val().get_bits::<4>(i * 4);
            }
            if self.q8_ohb.q.val().get_bit(i) {
                self.hb_sent.next = self.hb_sent.val() | self.q8_sents.q.val().get_bits::<32>(i * 32);
            }
        }

        // ================= stage C (register 9 -> 10): the PSNs (base + distance), the packed
        // result and the head deadline
        self.y_op.next = self.r9_f.q.val().get_bits::<4>(0);
        self.y_psn.next = self.r9_f.q.val().get_bits::<24>(4);
        self.y_path.next = self.r9_f.q.val().get_bits::<4>(29);
        self.r_psn.next = self.k_zero24.val();
        self.r_psn2.next = self.r9_nnext.q.val();
        self.r_path.next = self.k_zero4.val();
        self.r_psn3.next = self.k_zero24.val();
        self.r_psn4.next = self.k_zero24.val();
        self.r_k.next = self.k_zero9.val();
        self.r_k2.next = self.k_zero9.val();
        if (self.y_op.val() == self.k_op_send.val()) & self.r9_ok.q.val() {
            self.r_psn.next = self.r9_spsn.q.val();
        }
        if (self.y_op.val() == self.k_op_ldet.val()) | (self.y_op.val() == self.k_op_drain.val()) {
            if self.r9_ok.q.val() {
                self.r_path.next = self.y_path.val();
            }
            self.r_psn2.next = self.k_zero24.val();
            if self.r9_fl.q.val().get_bit(2) {
                self.r_psn.next = self.r9_base.q.val() + bit_cast::<24, 8>(self.r9_f1.q.val());
                self.r_psn2.next = self.r9_base.q.val() + bit_cast::<24, 8>(self.r9_l1.q.val());
            }
            if self.r9_fl.q.val().get_bit(3) {
                self.r_psn3.next = self.r9_base.q.val() + bit_cast::<24, 8>(self.r9_f2.q.val());
                self.r_psn4.next = self.r9_base.q.val() + bit_cast::<24, 8>(self.r9_l2.q.val());
            }
            self.r_k.next = self.r9_k1.q.val();
            self.r_k2.next = self.r9_k2.q.val();
        }
        if (self.y_op.val() == self.k_op_query.val()) & self.r9_fl.q.val().get_bit(4) {
            self.r_psn.next = self.r9_base.q.val() + bit_cast::<24, 8>(self.r9_qd.q.val());
            self.r_path.next = self.r9_qpath.q.val();
        }
        if (self.y_op.val() == self.k_op_headtmo.val()) & self.r9_ok.q.val() {
            self.r_psn.next = self.r9_base.q.val();
            self.r_path.next = self.r9_selpath.q.val();
        }
        if self.y_op.val() == self.k_op_marklost.val() {
            self.r_psn.next = self.y_psn.val();
            if self.r9_ok.q.val() {
                self.r_path.next = self.r9_selpath.q.val();
            }
        }
        self.hd_v.next = self.k_head_on.val() & !(self.r9_fl.q.val().get_bit(6) & self.r9_nnd.q.val()) & self.r9_fl.q.val().get_bit(5) & self.r9_nhw.q.val().get_bit(31);
        self.hw31.next = self.r9_nhw.q.val().get_bits::<31>(0);
        self.hd_t.next = self.r9_hbsent.q.val() + bit_cast::<32, 31>(self.hw31.val());
        self.hd.next = bit_cast::<33, 32>(self.hd_t.val()) | (bit_cast::<33, 1>(self.hd_v.val().into()) << 32);
        // packed result: op 0..4, ok 4, psn 5..29, psn2 29..53, path 53..57, k 57..66,
        // k2 66..75, psn3 75..99, psn4 99..123, room 123, free 124, retx 125
        self.r_f.next = bit_cast::<128, 4>(self.y_op.val())
            | (bit_cast::<128, 1>(self.r9_ok.q.val().into()) << 4)
            | (bit_cast::<128, 24>(self.r_psn.val()) << 5)
            | (bit_cast::<128, 24>(self.r_psn2.val()) << 29)
            | (bit_cast::<128, 4>(self.r_path.val()) << 53)
            | (bit_cast::<128, 9>(self.r_k.val()) << 57)
            | (bit_cast::<128, 9>(self.r_k2.val()) << 66)
            | (bit_cast::<128, 24>(self.r_psn3.val()) << 75)
            | (bit_cast::<128, 24>(self.r_psn4.val()) << 99)
            | (bit_cast::<128, 1>(self.r9_fl.q.val().get_bit(0).into()) << 123)
            | (bit_cast::<128, 1>(self.r9_fl.q.val().get_bit(1).into()) << 124)
            | (bit_cast::<128, 1>(self.r9_retx.q.val().into()) << 125);

        // ================= registers 7..=11 and the bank pipe 7..=10
        if self.rst.val() {
            self.o7_v.d.next = false;
            self.o8_v.d.next = false;
            self.o9_v.d.next = false;
            self.o10_v.d.next = false;
            self.o11_v.d.next = false;
            self.c_send.d.next = 0.into();
            self.c_retx.d.next = 0.into();
            self.c_acked.d.next = 0.into();
            self.c_spur.d.next = 0.into();
            self.c_lpath.d.next = 0.into();
            self.c_ldrain.d.next = 0.into();
            self.c_head.d.next = 0.into();
        }
        if self.rst.val() | !self.stall.val() {
            // bank writes, and the stages A and B that compute them, move on reset too (no op
            // is half applied)
            self.b7_v.d.next = self.i6_v.q.val() & !self.rst.val();
            self.b8_v.d.next = self.b7_v.q.val();
            self.b8_c.d.next = self.o7_c.q.val();
            self.b9_v.d.next = self.b8_v.q.val();
            self.b9_c.d.next = self.b8_c.q.val();
            self.b10_v.d.next = self.b9_v.q.val();
            self.b10_c.d.next = self.b9_c.q.val();
            self.b10_d.d.next = self.hd.val();
            // o7_c also names the bank write of register 7 (so it moves on reset)
            self.o7_c.d.next = self.i6_c.q.val();
            self.p7_f.d.next = self.i6_f.q.val();
            self.p7_base.d.next = self.base.val();
            self.p7_offs.d.next = self.offs.val();
            self.p7_dmin.d.next = self.l_dmin.val();
            self.p7_dmax.d.next = self.l_dmax.val();
            self.p7_paths.d.next = self.paths.val();
            self.p7_lost.d.next = self.lost.val();
            self.p7_b1.d.next = self.v_b1.val();
            self.p7_b2.d.next = self.v_b2.val();
            self.p7_rel.d.next = self.v_rel.val();
            self.p7_ql.d.next = self.v_ql.val();
            self.p7_sel.d.next = self.v_match.val();
            if self.u_op.val() == self.k_op_headtmo.val() {
                self.p7_sel.d.next = self.v_basem.val();
            }
            self.p7_ok.d.next = self.r_ok.val();
            self.p7_retx.d.next = self.r_retx.val();
            self.p7_spsn.d.next = self.send_psn.val();
            self.p7_nbase.d.next = self.n_base.val();
            self.p7_nnext.d.next = self.n_next.val();
            self.p7_nalloc.d.next = self.n_alloc.val();
            self.p7_nlost.d.next = self.n_lost.val();
            self.p7_noffs.d.next = self.n_offs.val();
            self.p7_nsents.d.next = self.n_sents.val();
            self.p7_npaths.d.next = self.n_paths.val();
            self.p7_nppsns.d.next = self.n_ppsns.val();
            self.p7_nhw.d.next = self.n_hw.val();
            self.p7_nnd.d.next = self.n_nd.val();
            self.q8_f.d.next = self.p7_f.q.val().get_bits::<33>(0);
            self.q8_base.d.next = self.p7_base.q.val();
            self.q8_f1.d.next = self.f1.val();
            self.q8_l1.d.next = self.l1.val();
            self.q8_f2.d.next = self.f2.val();
            self.q8_l2.d.next = self.l2.val();
            self.q8_qd.d.next = self.q_d.val();
            self.q8_qpath.d.next = self.q_path.val();
            self.q8_offs.d.next = self.p7_offs.q.val();
            self.q8_of1.d.next = self.t_of1.val();
            self.q8_ol1.d.next = self.t_ol1.val();
            self.q8_of2.d.next = self.t_of2.val();
            self.q8_ol2.d.next = self.t_ol2.val();
            self.q8_oq.d.next = self.t_oq.val();
            self.q8_osel.d.next = self.a_sel.val();
            self.q8_ohb.d.next = self.a_hbl.val();
            self.q8_paths.d.next = self.p7_paths.q.val();
            self.q8_sents.d.next = self.p7_nsents.q.val();
            self.q8_k1.d.next = self.a_k1.val();
            self.q8_k2.d.next = self.a_k2.val();
            self.q8_n.d.next = self.a_cn.val();
            self.q8_l.d.next = self.a_cl.val();
            self.q8_fl.d.next = self.a_fl.val();
            self.q8_ok.d.next = self.p7_ok.q.val();
            self.q8_retx.d.next = self.p7_retx.q.val();
            self.q8_spsn.d.next = self.p7_spsn.q.val();
            self.q8_nnext.d.next = self.p7_nnext.q.val();
            self.q8_nhw.d.next = self.p7_nhw.q.val();
            self.q8_nnd.d.next = self.p7_nnd.q.val();
            self.r9_f.d.next = self.q8_f.q.val();
            self.r9_base.d.next = self.q8_base.q.val();
            self.r9_f1.d.next = self.b_f1.val();
            self.r9_l1.d.next = self.b_l1.val();
            self.r9_f2.d.next = self.b_f2.val();
            self.r9_l2.d.next = self.b_l2.val();
            self.r9_qd.d.next = self.b_qd.val();
            self.r9_qpath.d.next = self.b_qpath.val();
            self.r9_selpath.d.next = self.sel_path.val();
            self.r9_hbsent.d.next = self.hb_sent.val();
            self.r9_k1.d.next = self.q8_k1.q.val();
            self.r9_k2.d.next = self.q8_k2.q.val();
            self.r9_fl.d.next = self.q8_fl.q.val();
            self.r9_ok.d.next = self.q8_ok.q.val();
            self.r9_retx.d.next = self.q8_retx.q.val();
            self.r9_spsn.d.next = self.q8_spsn.q.val();
            self.r9_nnext.d.next = self.q8_nnext.q.val();
            self.r9_nhw.d.next = self.q8_nhw.q.val();
            self.r9_nnd.d.next = self.q8_nnd.q.val();
        }
        if self.adv.val() {
            self.o7_v.d.next = self.i6_v.q.val();
            self.o8_v.d.next = self.o7_v.q.val();
            self.o8_c.d.next = self.o7_c.q.val();
            self.o9_v.d.next = self.o8_v.q.val();
            self.o9_c.d.next = self.o8_c.q.val();
            self.o9_n.d.next = self.q8_n.q.val();
            self.o9_l.d.next = self.q8_l.q.val();
            self.o10_v.d.next = self.o9_v.q.val();
            self.o10_c.d.next = self.o9_c.q.val();
            self.o10_f.d.next = self.r_f.val();
            self.o10_n.d.next = self.o9_n.q.val();
            self.o10_l.d.next = self.o9_l.q.val();
            self.o11_v.d.next = self.o10_v.q.val();
            self.o11_c.d.next = self.o10_c.q.val();
            self.o11_f.d.next = self.o10_f.q.val();
            self.o11_n.d.next = self.o10_n.q.val();
            self.o11_l.d.next = self.o10_l.q.val();
        }
        self.bank.write_enable.next = self.b10_v.q.val() & (self.rst.val() | !self.stall.val());
        self.bank.write_address.next = self.b10_c.q.val();
        self.bank.write_data.next = self.b10_d.q.val();
        // ---- the post-reset sweep: C cycles after a reset, one entry per cycle is written
        // invalid (a bank write of an op from before the reset is dropped meanwhile).
        if self.cl_on.q.val() & !self.rst.val() {
            self.bank.write_enable.next = true;
            self.bank.write_address.next = self.cl_c.q.val();
            self.bank.write_data.next = self.k_zero33.val();
            self.cl_c.d.next = self.cl_c.q.val() + self.k_one_conn.val();
            if self.cl_c.q.val() == self.k_last_conn.val() {
                self.cl_on.d.next = false;
            }
        }
        if self.rst.val() {
            self.cl_on.d.next = true;
            self.cl_c.d.next = self.k_zero_conn.val();
        }

        // ---- counters: as a result enters the output register
        self.e_op.next = self.o10_f.q.val().get_bits::<4>(0);
        self.e_ok.next = self.o10_f.q.val().get_bit(4);
        self.e_k.next = self.o10_f.q.val().get_bits::<9>(57);
        self.e_k2.next = self.o10_f.q.val().get_bits::<9>(66);
        self.e_sum_n.next = 0.into();
        self.e_sum_l.next = 0.into();
        for i in 0..P {
            self.e_cn.next = self.o10_n.q.val().get_bits::<9>(i * 9);
            self.e_cl.next = self.o10_l.q.val().get_bits::<9>(i * 9);
            self.e_sum_n.next = self.e_sum_n.val() + bit_cast::<32, 9>(self.e_cn.val());
            self.e_sum_l.next = self.e_sum_l.val() + bit_cast::<32, 9>(self.e_cl.val());
        }
        if self.adv.val() & self.o10_v.q.val() {
            if (self.e_op.val() == self.k_op_send.val()) & self.e_ok.val() {
                self.c_send.d.next = self.c_send.q.val() + 1;
                if self.o10_f.q.val().get_bit(125) {
                    self.c_retx.d.next = self.c_retx.q.val() + 1;
                }
            }
            if self.e_op.val() == self.k_op_ack.val() {
                self.c_acked.d.next = self.c_acked.q.val() + self.e_sum_n.val();
                self.c_spur.d.next = self.c_spur.q.val() + self.e_sum_l.val();
            }
            if self.e_op.val() == self.k_op_ldet.val() {
                self.c_lpath.d.next = self.c_lpath.q.val() + bit_cast::<32, 9>(self.e_k.val()) + bit_cast::<32, 9>(self.e_k2.val());
            }
            if self.e_op.val() == self.k_op_drain.val() {
                self.c_ldrain.d.next = self.c_ldrain.q.val() + bit_cast::<32, 9>(self.e_k.val());
            }
            if (self.e_op.val() == self.k_op_headtmo.val()) & self.e_ok.val() {
                self.c_head.d.next = self.c_head.q.val() + 1;
            }
        }

        // ================= the head-timer scanner
        self.hold.next = self.tmo_v.q.val() & !self.m_tmo_ready.val();
        self.sc_addr.next = self.sc.q.val();
        if self.hold.val() {
            self.sc_addr.next = self.rd_c.q.val();
        }
        self.bank.read_address.next = self.sc_addr.val();
        if self.rst.val() {
            self.c_tmo.d.next = 0.into();
        }
        if self.rst.val() | self.cl_on.q.val() {
            self.sc.d.next = self.k_zero_conn.val();
            self.rd_v.d.next = false;
            self.hit_v.d.next = false;
            self.tmo_v.d.next = false;
        } else if !self.hold.val() {
            if self.tmo_v.q.val() {
                self.c_tmo.d.next = self.c_tmo.q.val() + 1;
            }
            self.tmo_v.d.next = self.hit_v.q.val();
            self.tmo_c.d.next = self.hit_c.q.val();
            self.hit_v.d.next = self.rd_v.q.val() & self.bank.read_data.val().get_bit(32) & ((self.now.val() - self.bank.read_data.val().get_bits::<32>(0)) < self.k_half32.val());
            self.hit_c.d.next = self.rd_c.q.val();
            self.rd_v.d.next = true;
            self.rd_c.d.next = self.sc.q.val();
            self.sc.d.next = self.sc.q.val() + self.k_one_conn.val();
        }

        // ================= outputs
        self.m_valid.next = self.o11_v.q.val();
        self.m_conn.next = self.o11_c.q.val();
        self.m_op.next = self.o11_f.q.val().get_bits::<4>(0);
        self.m_ok.next = self.o11_f.q.val().get_bit(4);
        self.m_psn.next = self.o11_f.q.val().get_bits::<24>(5);
        self.m_psn2.next = self.o11_f.q.val().get_bits::<24>(29);
        self.m_path.next = self.o11_f.q.val().get_bits::<4>(53);
        self.m_k.next = self.o11_f.q.val().get_bits::<9>(57);
        self.m_k2.next = self.o11_f.q.val().get_bits::<9>(66);
        self.m_psn3.next = self.o11_f.q.val().get_bits::<24>(75);
        self.m_psn4.next = self.o11_f.q.val().get_bits::<24>(99);
        self.m_room.next = self.o11_f.q.val().get_bit(123);
        self.m_free.next = self.o11_f.q.val().get_bit(124);
        self.m_retx.next = self.o11_f.q.val().get_bit(125);
        self.m_n.next = self.o11_n.q.val();
        self.m_l.next = self.o11_l.q.val();
        self.m_tmo_valid.next = self.tmo_v.q.val();
        self.m_tmo_conn.next = self.tmo_c.q.val();
        self.stat_send.next = self.c_send.q.val();
        self.stat_retx.next = self.c_retx.q.val();
        self.stat_acked.next = self.c_acked.q.val();
        self.stat_spurious.next = self.c_spur.q.val();
        self.stat_lost_path.next = self.c_lpath.q.val();
        self.stat_lost_drain.next = self.c_ldrain.q.val();
        self.stat_head.next = self.c_head.q.val();
        self.stat_tmo.next = self.c_tmo.q.val();
    }
}

/// Dispatches a configuration to its `RetxQueue` generics: `$ty` is the queue type.
#[macro_export]
macro_rules! with_retx_queue {
    ($cfg:expr, $ty:ident => $body:expr) => {{
        let cfg: &$crate::mrnic_model::Config = $cfg;
        let t = &cfg.transport;
        match (cfg.connections, t.window, usize::from(t.paths), t.tx_records()) {
            (256, 256, 8, 16) => {
                type $ty = $crate::rtx::RetxQueue<8, 256, 8, 16, 4, 64, 128, 384, 512, 72>;
                Ok($body)
            }
            (16, 64, 4, 64) => {
                type $ty = $crate::rtx::RetxQueue<4, 64, 4, 64, 6, 256, 512, 1536, 2048, 36>;
                Ok($body)
            }
            (256, 64, 8, 64) => {
                type $ty = $crate::rtx::RetxQueue<8, 64, 8, 64, 6, 256, 512, 1536, 2048, 72>;
                Ok($body)
            }
            (1024, 256, 8, 256) => {
                type $ty = $crate::rtx::RetxQueue<10, 256, 8, 256, 8, 1024, 2048, 6144, 8192, 72>;
                Ok($body)
            }
            (16, 256, 8, 256) => {
                type $ty = $crate::rtx::RetxQueue<4, 256, 8, 256, 8, 1024, 2048, 6144, 8192, 72>;
                Ok($body)
            }
            (c, w, p, r) => Err($crate::mrnic_model::config::ConfigError::invalid(
                "transport",
                format!("RetxQueue: (connections {c}, window {w}, paths {p}, records {r}) has no generated instance"),
            )),
        }
    }};
}

#[cfg(test)]
mod tests {
    use mrnic_model::config::Config;

    #[test]
    fn every_preset_generates_an_rtx_module_with_the_shells_latency() {
        for p in mrnic_model::config::PRESETS {
            let g = crate::tops::block(&Config::preset(p).unwrap(), "rtx").unwrap_or_else(|e| panic!("{p}: {e}"));
            assert!(g.verilog.contains("\nmodule mrnic_rtx("), "{p}");
            assert_eq!(g.latency as usize, mrnic_model::transport::rtx_shell::RTX_LATENCY);
            if let Ok(dir) = std::env::var("MRNIC_RTX_DUMP") {
                std::fs::write(format!("{dir}/mrnic_rtx_{p}.v"), &g.verilog).unwrap();
            }
        }
    }

    #[test]
    fn a_configuration_without_an_instance_is_refused_naming_its_sizes() {
        let mut cfg = Config::preset("core").unwrap();
        cfg.transport.tx_pool = 32;
        let e = crate::tops::block(&cfg, "rtx").unwrap_err().to_string();
        assert!(e.contains("records 32"), "{e}");
    }
}
