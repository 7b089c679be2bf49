//! # ACK generator (`mrnic_ackgen`, issue 12)
//!
//! **Purpose.** The responder's ACK decision and ACK coalescing (`docs/protocol.md` §6.10)
//! for every connection of the NIC: per (connection, path) the path PSN bookkeeping (gap
//! detection), the packet and CE counts since the last ACK, the newest timestamp and its
//! arrival, the coalescing deadline and the source port; per connection the CE average and
//! the rate-hint base; one coalescing FIFO of `(connection, path, deadline)`. For each DATA
//! packet (its class from the SACK engine and the message checks) it sends an ACK at once
//! (path gap, A bit, duplicate, out of window, or `N` packets pending) or arms the path;
//! the FIFO sends the armed paths' ACKs at their deadline. It outputs the ACK's own fields;
//! the BTH PSN and the SACK bitmap are the SACK engine's, joined where the ACK frame is
//! built. Semantics: the block model `mrnic_model::transport::ackgen` (the responder runs
//! the same row steps) and the cycle shell `mrnic_model::transport::ackgen_shell::AckShell`,
//! against which the generated Verilog is compared every cycle
//! (`verif/tests/ackgen_diff.rs`); `docs/blocks/ackgen.md`.
//!
//! **Ports** (CB = connection bits, PB = path bits of the row address).
//! - inputs: `clock`, `rst` (synchronous, active high); `now` (32: the NIC's time in ns, a
//!   counter); DATA stream `s_valid`/`s_ready` with `s_conn` (CB), `s_path` (4), `s_path_psn`
//!   (24), `s_class` (2: 0 refused / dropped / in error, 1 new, 2 duplicate, 3 out of window),
//!   `s_ack_req` (the BTH A bit), `s_ce` (CE-marked), `s_ts` (32, the MPETH timestamp),
//!   `s_sport` (16); configuration stream `s_cfg_valid`/`s_cfg_ready` with `s_cfg_kind` (0:
//!   path `s_cfg_path` of `s_cfg_conn` starts over at path ISN `s_cfg_data[23:0]`; 1:
//!   `s_cfg_conn`'s rate-hint base is `s_cfg_data`, Mbit/s, and its CE average 0),
//!   `s_cfg_conn`, `s_cfg_path`, `s_cfg_data` (32); `m_ready`.
//! - outputs: ACK stream `m_valid`/`m_ready` with `m_conn`, `m_path`, `m_path_psn` (24, the
//!   highest path PSN seen), `m_flags` (8: PATH_GAP 1, DUPLICATE 2, ACK_REQ 4), `m_ecn_ce`,
//!   `m_ecn_pkts` (8 each), `m_rate_hint` (32), `m_ts_echo` (32), `m_ack_delay` (32, ns),
//!   `m_sport` (16), `m_timer` (sent by the coalescing timer, else by this packet), `m_ack`
//!   (1: an ACK; 0: a DATA packet that sent none, with its `m_conn` and `m_path`, every
//!   other field 0). Every DATA packet leaves one entry, in the order the packets were
//!   taken, and a timer ACK leaves its entry between them where its FIFO pop was taken: the
//!   ACK join pairs each packet's entry with the SACK engine's result for it, and gives a
//!   timer ACK the state after the packets before it (`docs/design/receiver-rtl.md`, 2.7).
//! - config: localparams from the configuration: `k_paths`, `k_nth` (`N - 1`), `k_timeout`
//!   (`T`, ns), `k_depth` (FIFO entries, 2^FB).
//! - status: `stat_bad_path`, `stat_path_gaps`, `stat_acks_now`, `stat_acks_timer`,
//!   `stat_stale_pops`, `stat_fifo_full` (32-bit, wrapping; an event of B shows two cycles
//!   after B: B registers what to count, the count moves in the next cycle),
//!   `stat_fifo_level` (FB + 1).
//!
//! **Pipeline.** A (cycle 0): the operation is chosen, in priority order a configuration
//! write waiting in its register, the FIFO head when due (`now - t < 2^31`: popped), a DATA
//! packet; its row address (`{conn, path}`) and connection are registered; `now + T` is
//! added. R0 (1): the row and connection RAMs are read from those registers (A's select
//! waits for the due compare; it ends at flip-flops, not at the RAMs' address pins). R (2):
//! the RAMs' output registers load (`prim::BlockRamReg`, read latency 2: the loop starts at
//! a flip-flop, not at the DP16KD's clock-to-out). B (3): the row and the connection word
//! are updated (24-bit serial compares, 8-bit counts, the 11-bit CE average; the FIFO
//! push) and go to W, which writes them in the next cycle; the ACK's fields go to C. C (4):
//! the rate hint's two 16x16 products `hb * ce_avg` (MULT18X18D), registered. D (5): `hb -
//! (product >> 11)` and the push into an 8-entry output queue. **Latency** 6
//! (`ACKGEN_LATENCY`). **II** 1: one operation per cycle; a due FIFO entry or a
//! configuration write takes the cycle (`s_ready` low in it).
//!
//! ```text
//! cycle     0      1      2      3      4      5      6      7
//! s         X      Y
//! stage A   X      Y                                          take; the row address registered
//! stage R0         X      Y                                   the RAMs read
//! stage R                 X      Y                            the RAMs' output registers load
//! stage B                        X      Y                     update; to W, FIFO push
//! stage W                               X      Y              the RAM writes (Y in B takes X's word)
//! stage C                               X      Y              the rate hint's products
//! stage D                                      X      Y       the hint, the output queue
//! m                                                   X      Y
//! ```
//!
//! **Combinational paths.** `now` -> the due compare -> `s_ready` (`now` is the NIC's time
//! register); none from `s_valid`, `s_cfg_valid` or `m_ready` to a ready.
//!
//! **Hazards.** B's row comes from the row RAM's output register (`prim::BlockRamReg`,
//! which forwards a write made in the cycle of the read or the next one) or, for the
//! operation right behind one on the same row, from the W register that writes that row in
//! this very cycle (the hit is compared in R: a register drives the mux). Every operation's
//! row and connection word are written back in W, changed or not, so the W register is
//! always the current word. The loop is B: the 24-bit path PSN subtracts, the `N` test and
//! the deadline compare, and the decision (at once or arm) made on both candidates (RAM
//! register, W) from registers -> the 2:1 select -> the push and the row select -> W's D
//! input; the RAM write leaves from W's registers. The FIFO is pushed in B (the word is
//! written one cycle later from the `wf_*` registers, and the write pointer and count take
//! the push then: the level the full check and the due test see is `f_cnt` + the push in
//! W) and popped in A; its head is a register `hd`, so the due compare starts at
//! flip-flops. A pop loads `hd` with the word after it, read two cycles before from one of
//! three copies of the FIFO RAM (`prim::BlockRamReg`, output registers; their read
//! addresses `rp + 1..3` are registers), the one that the pops of those two cycles select,
//! or from `wf_data` when that word was pushed in the cycle before, or the word pushed in
//! this cycle when the FIFO is empty or its only entry leaves: no RAM address depends on
//! this cycle's pop, and no RAM output feeds logic before a register. `room` (the output queue leaves an entry for every
//! operation in R0, R, B, C and D) guarantees every operation taken has a queue entry, so the
//! pipeline never stalls.
//!
//! **Reset** clears the stages' valid bits, the configuration register, the FIFO and output
//! queue pointers and the counters; the rows and connection words are data and keep their
//! values (each row is written through `s_cfg` before it is used). At power-up (an `initial`
//! block, loaded with the bitstream) every row is a path started at path ISN 0 (expected 0,
//! highest 0xffffff, nothing pending, not armed), as the model's `AckGen::new` starts them,
//! and the connection words are zero.
//!
//! **Small build** (`try_new_with(cfg, true)`; `tops` takes it when the clock is 20 ns or
//! more, [`ackgen_small`]: `tiny`, 33 ns, for the iCE40 UP5K; `core` keeps the structure
//! above). The same ports, latency and cycle behaviour (the same `AckShell`, compared every
//! cycle at `tiny`), less logic and block RAM; the localparam `k_small` selects it, and
//! synthesis drops the other structure's logic. (1) The FIFO is one copy,
//! `prim::BlockRam` (read latency 1), read at `rp + 1` of the next cycle (`ra1`, + 1 when
//! this cycle pops: the due compare runs into the RAM's address); a pop loads its word into
//! `hd`, W's word if it was pushed in the cycle before (`wf_next`), the word pushed now when
//! the FIFO is empty or its only entry leaves. (2) The output queue is a `prim::BlockRam` of
//! 8 entries read at the next cycle's head (`o_rp` + this cycle's transfer; its write in the
//! same cycle forwarded), so `m` shows the word at `o_rp` after this cycle's push, as the
//! eight registers do. (3) The due compare's sign comes from three 16-bit carry chains side
//! by side (the low half's borrow selects the high half's difference or that minus 1), not
//! one 32-bit chain. (4) B's tests (the path PSN subtracts and the gap, the `N` test, the
//! deadline's) are made once, on the row after the forwarding select (`d_exp_s`, `gap_s`,
//! `send_s`), not on both candidates. (The tests on both candidates were measured too: 156
//! more LCs, 91 % of the UP5K, and a lower Fmax.)

use crate::prim::{BlockRam, BlockRamReg};
use mrnic_model::config::ConfigError;
use mrnic_model::transport::ackgen::AckGenConfig;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AckGen<const CB: usize, const PB: usize, const RB: usize, const FB: usize, const FB1: usize, const FW: usize, const OW: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub now: Signal<In, Bits<32>>,
    pub s_valid: Signal<In, bool>,
    pub s_conn: Signal<In, Bits<CB>>,
    pub s_path: Signal<In, Bits<4>>,
    pub s_path_psn: Signal<In, Bits<24>>,
    pub s_class: Signal<In, Bits<2>>,
    pub s_ack_req: Signal<In, bool>,
    pub s_ce: Signal<In, bool>,
    pub s_ts: Signal<In, Bits<32>>,
    pub s_sport: Signal<In, Bits<16>>,
    pub s_cfg_valid: Signal<In, bool>,
    pub s_cfg_kind: Signal<In, bool>,
    pub s_cfg_conn: Signal<In, Bits<CB>>,
    pub s_cfg_path: Signal<In, Bits<4>>,
    pub s_cfg_data: Signal<In, Bits<32>>,
    pub m_ready: Signal<In, bool>,
    pub s_ready: Signal<Out, bool>,
    pub s_cfg_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_conn: Signal<Out, Bits<CB>>,
    pub m_path: Signal<Out, Bits<4>>,
    pub m_path_psn: Signal<Out, Bits<24>>,
    pub m_flags: Signal<Out, Bits<8>>,
    pub m_ecn_ce: Signal<Out, Bits<8>>,
    pub m_ecn_pkts: Signal<Out, Bits<8>>,
    pub m_rate_hint: Signal<Out, Bits<32>>,
    pub m_ts_echo: Signal<Out, Bits<32>>,
    pub m_ack_delay: Signal<Out, Bits<32>>,
    pub m_sport: Signal<Out, Bits<16>>,
    pub m_timer: Signal<Out, bool>,
    pub m_ack: Signal<Out, bool>,
    pub stat_bad_path: Signal<Out, Bits<32>>,
    pub stat_path_gaps: Signal<Out, Bits<32>>,
    pub stat_acks_now: Signal<Out, Bits<32>>,
    pub stat_acks_timer: Signal<Out, Bits<32>>,
    pub stat_stale_pops: Signal<Out, Bits<32>>,
    pub stat_fifo_full: Signal<Out, Bits<32>>,
    pub stat_fifo_level: Signal<Out, Bits<FB1>>,
    ram_row: BlockRamReg<177, RB>,
    ram_conn: BlockRamReg<43, CB>,
    ram_fa: BlockRamReg<FW, FB>,
    ram_fb: BlockRamReg<FW, FB>,
    ram_fc: BlockRamReg<FW, FB>,
    // the small build's FIFO (one copy, read a cycle ahead) and output queue (block RAM)
    ram_f1: BlockRam<FW, FB>,
    ram_oq: BlockRam<OW, 3>,
    cp_v: DFF<bool>,
    cp_kind: DFF<bool>,
    cp_conn: DFF<Bits<CB>>,
    cp_path: DFF<Bits<4>>,
    cp_data: DFF<Bits<32>>,
    f_wp: DFF<Bits<FB>>,
    f_ra1: DFF<Bits<FB>>,
    f_ra2: DFF<Bits<FB>>,
    f_ra3: DFF<Bits<FB>>,
    f_cnt: DFF<Bits<FB1>>,
    hd: DFF<Bits<FW>>,
    wf_we: DFF<bool>,
    wf_addr: DFF<Bits<FB>>,
    wf_data: DFF<Bits<FW>>,
    pop_q: DFF<bool>,
    pop_qq: DFF<bool>,
    p_v: DFF<bool>,
    p_kind: DFF<Bits<2>>,
    p_conn: DFF<Bits<CB>>,
    p_path: DFF<Bits<4>>,
    p_raddr: DFF<Bits<RB>>,
    p_psn: DFF<Bits<24>>,
    p_class: DFF<Bits<2>>,
    p_ack_req: DFF<bool>,
    p_ce: DFF<bool>,
    p_ts: DFF<Bits<32>>,
    p_sport: DFF<Bits<16>>,
    p_data: DFF<Bits<32>>,
    p_t: DFF<Bits<32>>,
    p_now: DFF<Bits<32>>,
    p_due: DFF<Bits<32>>,
    p_bad: DFF<bool>,
    q_v: DFF<bool>,
    q_kind: DFF<Bits<2>>,
    q_conn: DFF<Bits<CB>>,
    q_path: DFF<Bits<4>>,
    q_raddr: DFF<Bits<RB>>,
    q_psn: DFF<Bits<24>>,
    q_class: DFF<Bits<2>>,
    q_ack_req: DFF<bool>,
    q_ce: DFF<bool>,
    q_ts: DFF<Bits<32>>,
    q_sport: DFF<Bits<16>>,
    q_data: DFF<Bits<32>>,
    q_t: DFF<Bits<32>>,
    q_now: DFF<Bits<32>>,
    q_due: DFF<Bits<32>>,
    q_bad: DFF<bool>,
    b_v: DFF<bool>,
    b_kind: DFF<Bits<2>>,
    b_conn: DFF<Bits<CB>>,
    b_path: DFF<Bits<4>>,
    b_raddr: DFF<Bits<RB>>,
    b_psn: DFF<Bits<24>>,
    b_class: DFF<Bits<2>>,
    b_ack_req: DFF<bool>,
    b_ce: DFF<bool>,
    b_ts: DFF<Bits<32>>,
    b_sport: DFF<Bits<16>>,
    b_data: DFF<Bits<32>>,
    b_t: DFF<Bits<32>>,
    b_now: DFF<Bits<32>>,
    b_due: DFF<Bits<32>>,
    b_bad: DFF<bool>,
    c_v: DFF<bool>,
    c_ack: DFF<bool>,
    c_op: DFF<bool>,
    c_conn: DFF<Bits<CB>>,
    c_path: DFF<Bits<4>>,
    c_psn: DFF<Bits<24>>,
    c_flags: DFF<Bits<8>>,
    c_ce: DFF<Bits<8>>,
    c_pk: DFF<Bits<8>>,
    c_ts: DFF<Bits<32>>,
    c_delay: DFF<Bits<32>>,
    c_sport: DFF<Bits<16>>,
    c_timer: DFF<bool>,
    c_hb: DFF<Bits<32>>,
    c_ca: DFF<Bits<11>>,
    w_we: DFF<bool>,
    w_raddr: DFF<Bits<RB>>,
    w_row: DFF<Bits<177>>,
    w_conn: DFF<Bits<CB>>,
    w_cw: DFF<Bits<43>>,
    b_fwr: DFF<bool>,
    b_fwc: DFF<bool>,
    d_v: DFF<bool>,
    d_ack: DFF<bool>,
    d_op: DFF<bool>,
    d_hb: DFF<Bits<32>>,
    d_plo: DFF<Bits<32>>,
    d_phi: DFF<Bits<32>>,
    d_base: DFF<Bits<OW>>,
    o_cnt: DFF<Bits<4>>,
    o_wp: DFF<Bits<3>>,
    o_rp: DFF<Bits<3>>,
    o_e0: DFF<Bits<OW>>,
    o_e1: DFF<Bits<OW>>,
    o_e2: DFF<Bits<OW>>,
    o_e3: DFF<Bits<OW>>,
    o_e4: DFF<Bits<OW>>,
    o_e5: DFF<Bits<OW>>,
    o_e6: DFF<Bits<OW>>,
    o_e7: DFF<Bits<OW>>,
    n_bad: DFF<Bits<32>>,
    n_gap: DFF<Bits<32>>,
    n_now: DFF<Bits<32>>,
    n_tmr: DFF<Bits<32>>,
    n_stale: DFF<Bits<32>>,
    n_full: DFF<Bits<32>>,
    i_bad: DFF<bool>,
    i_gap: DFF<bool>,
    i_now: DFF<bool>,
    i_tmr: DFF<bool>,
    i_stale: DFF<bool>,
    i_full: DFF<bool>,
    on: Signal<Local, bool>,
    f_lvl: Signal<Local, Bits<FB1>>,
    ra1: Signal<Local, Bits<FB>>,
    ra2: Signal<Local, Bits<FB>>,
    ra3: Signal<Local, Bits<FB>>,
    lvl_z: Signal<Local, bool>,
    lvl_one: Signal<Local, bool>,
    d_exp_r: Signal<Local, Bits<24>>,
    d_exp_f: Signal<Local, Bits<24>>,
    d_hi_r: Signal<Local, Bits<24>>,
    d_hi_f: Signal<Local, Bits<24>>,
    nth_r: Signal<Local, bool>,
    nth_f: Signal<Local, bool>,
    live_r: Signal<Local, bool>,
    nodec: Signal<Local, bool>,
    gap_r: Signal<Local, bool>,
    gap_f: Signal<Local, bool>,
    send_r: Signal<Local, bool>,
    send_f: Signal<Local, bool>,
    arm_r: Signal<Local, bool>,
    arm_f: Signal<Local, bool>,
    live_f: Signal<Local, bool>,
    room: Signal<Local, bool>,
    occ: Signal<Local, Bits<4>>,
    head: Signal<Local, Bits<FW>>,
    head_t: Signal<Local, Bits<32>>,
    head_conn: Signal<Local, Bits<CB>>,
    head_path: Signal<Local, Bits<PB>>,
    due: Signal<Local, bool>,
    t_cfg: Signal<Local, bool>,
    t_tmr: Signal<Local, bool>,
    t_data: Signal<Local, bool>,
    a_conn: Signal<Local, Bits<CB>>,
    a_path: Signal<Local, Bits<4>>,
    row: Signal<Local, Bits<177>>,
    r_exp: Signal<Local, Bits<24>>,
    r_hi: Signal<Local, Bits<24>>,
    r_pend: Signal<Local, Bits<8>>,
    r_ce: Signal<Local, Bits<8>>,
    r_ts: Signal<Local, Bits<32>>,
    r_arr: Signal<Local, Bits<32>>,
    r_dv: Signal<Local, bool>,
    r_due: Signal<Local, Bits<32>>,
    r_sport: Signal<Local, Bits<16>>,
    cw: Signal<Local, Bits<43>>,
    ca: Signal<Local, Bits<11>>,
    hb: Signal<Local, Bits<32>>,
    exp_behind: Signal<Local, bool>,
    d_hi: Signal<Local, Bits<24>>,
    gap: Signal<Local, bool>,
    n_exp: Signal<Local, Bits<24>>,
    n_hi: Signal<Local, Bits<24>>,
    is_data: Signal<Local, bool>,
    is_tmr: Signal<Local, bool>,
    refused: Signal<Local, bool>,
    counted: Signal<Local, bool>,
    ca_diff: Signal<Local, Bits<12>>,
    ca_sh: Signal<Local, Bits<12>>,
    ca_sum: Signal<Local, Bits<12>>,
    ca_new: Signal<Local, Bits<11>>,
    pend1: Signal<Local, Bits<8>>,
    ce1: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
    send_d: Signal<Local, bool>,
    arm: Signal<Local, bool>,
    full: Signal<Local, bool>,
    push: Signal<Local, bool>,
    fsend: Signal<Local, bool>,
    send: Signal<Local, bool>,
    live: Signal<Local, bool>,
    row_we: Signal<Local, bool>,
    row_new: Signal<Local, Bits<177>>,
    conn_we: Signal<Local, bool>,
    conn_new: Signal<Local, Bits<43>>,
    pop: Signal<Local, bool>,
    m_hs: Signal<Local, bool>,
    c_push: Signal<Local, bool>,
    hb_lo: Signal<Local, Bits<16>>,
    hb_hi: Signal<Local, Bits<16>>,
    ca16: Signal<Local, Bits<16>>,
    p_lo: Signal<Local, Bits<32>>,
    p_hi: Signal<Local, Bits<32>>,
    prod: Signal<Local, Bits<48>>,
    hint: Signal<Local, Bits<32>>,
    c_entry: Signal<Local, Bits<OW>>,
    ack_bit: Signal<Local, Bits<OW>>,
    o_entry: Signal<Local, Bits<OW>>,
    o_head: Signal<Local, Bits<OW>>,
    cfg_isn: Signal<Local, Bits<24>>,
    cfg_hi: Signal<Local, Bits<24>>,
    cfg_row: Signal<Local, Bits<177>>,
    f_entry: Signal<Local, Bits<FW>>,
    h_sh1: Signal<Local, Bits<FW>>,
    h_sh2: Signal<Local, Bits<FW>>,
    age: Signal<Local, Bits<32>>,
    prod_sh: Signal<Local, Bits<48>>,
    dup: Signal<Local, bool>,
    body: Signal<Local, Bits<113>>,
    a_raddr: Signal<Local, Bits<RB>>,
    wf_next: Signal<Local, bool>,
    f_rn: Signal<Local, Bits<FB>>,
    o_rpn: Signal<Local, Bits<3>>,
    d_exp_s: Signal<Local, Bits<24>>,
    d_hi_s: Signal<Local, Bits<24>>,
    gap_s: Signal<Local, bool>,
    send_s: Signal<Local, bool>,
    age_b: Signal<Local, bool>,
    age_h0: Signal<Local, Bits<16>>,
    age_h1: Signal<Local, Bits<16>>,
    age_s: Signal<Local, bool>,
    k_paths: Constant<Bits<4>>,
    k_nth: Constant<Bits<8>>,
    k_ff8: Constant<Bits<8>>,
    k_timeout: Constant<Bits<32>>,
    k_depth: Constant<Bits<FB1>>,
    k_depth1: Constant<Bits<FB1>>,
    k_cb: Constant<Bits<8>>,
    k_pb: Constant<Bits<8>>,
    k_cbp: Constant<Bits<8>>,
    k_1024: Constant<Bits<12>>,
    k_c00: Constant<Bits<12>>,
    k_z8: Constant<Bits<8>>,
    k_z32: Constant<Bits<32>>,
    k_z24: Constant<Bits<24>>,
    k_zow: Constant<Bits<OW>>,
    k_ack_bit: Constant<Bits<OW>>,
    k_z16: Constant<Bits<16>>,
    k_c0: Constant<Bits<2>>,
    k_c1: Constant<Bits<2>>,
    k_c2: Constant<Bits<2>>,
    k_c3: Constant<Bits<2>>,
    k_z4: Constant<Bits<4>>,
    k_o24: Constant<Bits<24>>,
    k_o8: Constant<Bits<8>>,
    k_ofb: Constant<Bits<FB>>,
    k_x1: Constant<Bits<FB>>,
    k_x2: Constant<Bits<FB>>,
    k_x3: Constant<Bits<FB>>,
    k_zfb: Constant<Bits<FB>>,
    k_ofb1: Constant<Bits<FB1>>,
    k_zfb1: Constant<Bits<FB1>>,
    k_o3: Constant<Bits<4>>,
    k_z3: Constant<Bits<4>>,
    k_q0: Constant<Bits<3>>,
    k_q1: Constant<Bits<3>>,
    k_q2: Constant<Bits<3>>,
    k_q3: Constant<Bits<3>>,
    k_q4: Constant<Bits<3>>,
    k_q5: Constant<Bits<3>>,
    k_q6: Constant<Bits<3>>,
    k_q7: Constant<Bits<3>>,
    k_small: Constant<bool>,
}

/// The shortest clock period (ns) at which a build takes the small structure
/// ([`AckGen::try_new_with`]): 20 ns, 50 MHz. `tiny` (33 ns) does, `core` (10 ns) does not.
pub const ACKGEN_SMALL_MIN_CYCLE_NS: u8 = 20;

/// Whether a NIC clocked every `cycle_ns` ns builds the ACK generator's small structure.
pub fn ackgen_small(cycle_ns: u8) -> bool {
    cycle_ns >= ACKGEN_SMALL_MIN_CYCLE_NS
}

/// The generics of a configuration: (CB, PB, FB).
pub fn ackgen_bits(cfg: &AckGenConfig) -> (usize, usize, usize) {
    let cb = cfg.connections.trailing_zeros() as usize;
    let pb = (u32::from(cfg.paths).next_power_of_two().trailing_zeros() as usize).max(1);
    let fb = cfg.fifo_depth.trailing_zeros() as usize;
    (cb, pb, fb)
}

impl<const CB: usize, const PB: usize, const RB: usize, const FB: usize, const FB1: usize, const FW: usize, const OW: usize> AckGen<CB, PB, RB, FB, FB1, FW, OW> {
    /// The block for `cfg` in its 100 MHz structure ([`AckGen::try_new_with`] with `small`
    /// false).
    pub fn try_new(cfg: &AckGenConfig) -> Result<Self, ConfigError> {
        Self::try_new_with(cfg, false)
    }

    /// The block for `cfg`; refused when the generics do not match it (or the sizes are
    /// not powers of two). `small` selects the small structure (see the module
    /// documentation, *Small build*; [`ackgen_small`] says when a build uses it): the same
    /// cycle behaviour, less logic, a lower Fmax.
    pub fn try_new_with(cfg: &AckGenConfig, small: bool) -> Result<Self, ConfigError> {
        cfg.validate().map_err(|e| ConfigError::invalid("ackgen", e))?;
        if !cfg.connections.is_power_of_two() || !cfg.fifo_depth.is_power_of_two() {
            return Err(ConfigError::invalid("ackgen", "connections and fifo_depth must be powers of two"));
        }
        let (cb, pb, fb) = ackgen_bits(cfg);
        for (f, want, got) in [("CB", cb, CB), ("PB", pb, PB), ("RB", cb + pb, RB), ("FB", fb, FB), ("FB1", fb + 1, FB1), ("FW", 32 + cb + pb, FW), ("OW", 166 + cb, OW)] {
            if want != got {
                return Err(ConfigError::invalid(format!("AckGen.{f}"), format!("the generic is {got}, the configuration says {want}")));
            }
        }
        if CB == 0 || FB == 0 {
            return Err(ConfigError::invalid("ackgen", "at least 2 connections and a FIFO of at least 2 entries"));
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_valid: Default::default(),
            s_conn: Default::default(),
            s_path: Default::default(),
            s_path_psn: Default::default(),
            s_class: Default::default(),
            s_ack_req: Default::default(),
            s_ce: Default::default(),
            s_ts: Default::default(),
            s_sport: Default::default(),
            s_cfg_valid: Default::default(),
            s_cfg_kind: Default::default(),
            s_cfg_conn: Default::default(),
            s_cfg_path: Default::default(),
            s_cfg_data: Default::default(),
            m_ready: Default::default(),
            s_ready: Default::default(),
            s_cfg_ready: Default::default(),
            m_valid: Default::default(),
            m_conn: Default::default(),
            m_path: Default::default(),
            m_path_psn: Default::default(),
            m_flags: Default::default(),
            m_ecn_ce: Default::default(),
            m_ecn_pkts: Default::default(),
            m_rate_hint: Default::default(),
            m_ts_echo: Default::default(),
            m_ack_delay: Default::default(),
            m_sport: Default::default(),
            m_timer: Default::default(),
            m_ack: Default::default(),
            stat_bad_path: Default::default(),
            stat_path_gaps: Default::default(),
            stat_acks_now: Default::default(),
            stat_acks_timer: Default::default(),
            stat_stale_pops: Default::default(),
            stat_fifo_full: Default::default(),
            stat_fifo_level: Default::default(),
            // initial contents, loaded with the bitstream (simulators would start from X):
            // every row as path ISN 0 starts it (expected 0, highest 0xffffff), as the model's
            // `AckGen::new` does; the connection words zero
            ram_row: BlockRamReg::with_init((0..1u64 << RB).map(|a| (Bits::<RB>::from(a), Bits::<177>::from(0xff_ffffu64 << 24))).collect()),
            ram_conn: BlockRamReg::with_init((0..1u64 << CB).map(|a| (Bits::<CB>::from(a), 0.into())).collect()),
            ram_fa: Default::default(),
            ram_fb: Default::default(),
            ram_fc: Default::default(),
            ram_f1: Default::default(),
            ram_oq: Default::default(),
            cp_v: Default::default(),
            cp_kind: Default::default(),
            cp_conn: Default::default(),
            cp_path: Default::default(),
            cp_data: Default::default(),
            f_wp: Default::default(),
            f_ra1: Default::default(),
            f_ra2: Default::default(),
            f_ra3: Default::default(),
            f_cnt: Default::default(),
            hd: Default::default(),
            wf_we: Default::default(),
            wf_addr: Default::default(),
            wf_data: Default::default(),
            pop_q: Default::default(),
            pop_qq: Default::default(),
            p_v: Default::default(),
            p_kind: Default::default(),
            p_conn: Default::default(),
            p_path: Default::default(),
            p_raddr: Default::default(),
            p_psn: Default::default(),
            p_class: Default::default(),
            p_ack_req: Default::default(),
            p_ce: Default::default(),
            p_ts: Default::default(),
            p_sport: Default::default(),
            p_data: Default::default(),
            p_t: Default::default(),
            p_now: Default::default(),
            p_due: Default::default(),
            p_bad: Default::default(),
            q_v: Default::default(),
            q_kind: Default::default(),
            q_conn: Default::default(),
            q_path: Default::default(),
            q_raddr: Default::default(),
            q_psn: Default::default(),
            q_class: Default::default(),
            q_ack_req: Default::default(),
            q_ce: Default::default(),
            q_ts: Default::default(),
            q_sport: Default::default(),
            q_data: Default::default(),
            q_t: Default::default(),
            q_now: Default::default(),
            q_due: Default::default(),
            q_bad: Default::default(),
            b_v: Default::default(),
            b_kind: Default::default(),
            b_conn: Default::default(),
            b_path: Default::default(),
            b_raddr: Default::default(),
            b_psn: Default::default(),
            b_class: Default::default(),
            b_ack_req: Default::default(),
            b_ce: Default::default(),
            b_ts: Default::default(),
            b_sport: Default::default(),
            b_data: Default::default(),
            b_t: Default::default(),
            b_now: Default::default(),
            b_due: Default::default(),
            b_bad: Default::default(),
            c_v: Default::default(),
            c_ack: Default::default(),
            c_op: Default::default(),
            c_conn: Default::default(),
            c_path: Default::default(),
            c_psn: Default::default(),
            c_flags: Default::default(),
            c_ce: Default::default(),
            c_pk: Default::default(),
            c_ts: Default::default(),
            c_delay: Default::default(),
            c_sport: Default::default(),
            c_timer: Default::default(),
            c_hb: Default::default(),
            c_ca: Default::default(),
            w_we: Default::default(),
            w_raddr: Default::default(),
            w_row: Default::default(),
            w_conn: Default::default(),
            w_cw: Default::default(),
            b_fwr: Default::default(),
            b_fwc: Default::default(),
            d_v: Default::default(),
            d_ack: Default::default(),
            d_op: Default::default(),
            d_hb: Default::default(),
            d_plo: Default::default(),
            d_phi: Default::default(),
            d_base: Default::default(),
            o_cnt: Default::default(),
            o_wp: Default::default(),
            o_rp: Default::default(),
            o_e0: Default::default(),
            o_e1: Default::default(),
            o_e2: Default::default(),
            o_e3: Default::default(),
            o_e4: Default::default(),
            o_e5: Default::default(),
            o_e6: Default::default(),
            o_e7: Default::default(),
            n_bad: Default::default(),
            n_gap: Default::default(),
            n_now: Default::default(),
            n_tmr: Default::default(),
            n_stale: Default::default(),
            n_full: Default::default(),
            i_bad: Default::default(),
            i_gap: Default::default(),
            i_now: Default::default(),
            i_tmr: Default::default(),
            i_stale: Default::default(),
            i_full: Default::default(),
            on: Default::default(),
            f_lvl: Default::default(),
            ra1: Default::default(),
            ra2: Default::default(),
            ra3: Default::default(),
            lvl_z: Default::default(),
            lvl_one: Default::default(),
            d_exp_r: Default::default(),
            d_exp_f: Default::default(),
            d_hi_r: Default::default(),
            d_hi_f: Default::default(),
            nth_r: Default::default(),
            nth_f: Default::default(),
            live_r: Default::default(),
            nodec: Default::default(),
            gap_r: Default::default(),
            gap_f: Default::default(),
            send_r: Default::default(),
            send_f: Default::default(),
            arm_r: Default::default(),
            arm_f: Default::default(),
            live_f: Default::default(),
            room: Default::default(),
            occ: Default::default(),
            head: Default::default(),
            head_t: Default::default(),
            head_conn: Default::default(),
            head_path: Default::default(),
            due: Default::default(),
            t_cfg: Default::default(),
            t_tmr: Default::default(),
            t_data: Default::default(),
            a_conn: Default::default(),
            a_path: Default::default(),
            row: Default::default(),
            r_exp: Default::default(),
            r_hi: Default::default(),
            r_pend: Default::default(),
            r_ce: Default::default(),
            r_ts: Default::default(),
            r_arr: Default::default(),
            r_dv: Default::default(),
            r_due: Default::default(),
            r_sport: Default::default(),
            cw: Default::default(),
            ca: Default::default(),
            hb: Default::default(),
            exp_behind: Default::default(),
            d_hi: Default::default(),
            gap: Default::default(),
            n_exp: Default::default(),
            n_hi: Default::default(),
            is_data: Default::default(),
            is_tmr: Default::default(),
            refused: Default::default(),
            counted: Default::default(),
            ca_diff: Default::default(),
            ca_sh: Default::default(),
            ca_sum: Default::default(),
            ca_new: Default::default(),
            pend1: Default::default(),
            ce1: Default::default(),
            flags: Default::default(),
            send_d: Default::default(),
            arm: Default::default(),
            full: Default::default(),
            push: Default::default(),
            fsend: Default::default(),
            send: Default::default(),
            live: Default::default(),
            row_we: Default::default(),
            row_new: Default::default(),
            conn_we: Default::default(),
            conn_new: Default::default(),
            pop: Default::default(),
            m_hs: Default::default(),
            c_push: Default::default(),
            hb_lo: Default::default(),
            hb_hi: Default::default(),
            ca16: Default::default(),
            p_lo: Default::default(),
            p_hi: Default::default(),
            prod: Default::default(),
            hint: Default::default(),
            c_entry: Default::default(),
            ack_bit: Default::default(),
            o_entry: Default::default(),
            o_head: Default::default(),
            cfg_isn: Default::default(),
            cfg_hi: Default::default(),
            cfg_row: Default::default(),
            f_entry: Default::default(),
            h_sh1: Default::default(),
            h_sh2: Default::default(),
            age: Default::default(),
            prod_sh: Default::default(),
            dup: Default::default(),
            body: Default::default(),
            a_raddr: Default::default(),
            wf_next: Default::default(),
            f_rn: Default::default(),
            o_rpn: Default::default(),
            d_exp_s: Default::default(),
            d_hi_s: Default::default(),
            gap_s: Default::default(),
            send_s: Default::default(),
            age_b: Default::default(),
            age_h0: Default::default(),
            age_h1: Default::default(),
            age_s: Default::default(),
            k_paths: Constant::new((u64::from(cfg.paths) & 15).into()),
            k_nth: Constant::new((u64::from(cfg.ack_every) - 1).into()),
            k_ff8: Constant::new((255u64).into()),
            k_timeout: Constant::new((u64::from(cfg.ack_timeout)).into()),
            k_depth: Constant::new((u64::from(cfg.fifo_depth)).into()),
            k_depth1: Constant::new((u64::from(cfg.fifo_depth) - 1).into()),
            k_cb: Constant::new((CB as u64).into()),
            k_pb: Constant::new((PB as u64).into()),
            k_cbp: Constant::new(((CB + PB) as u64).into()),
            k_1024: Constant::new((1024u64).into()),
            k_c00: Constant::new((0xC00u64).into()),
            k_z8: Constant::new((0u64).into()),
            k_z32: Constant::new((0u64).into()),
            k_z24: Constant::new((0u64).into()),
            k_zow: Constant::new(Bits::<OW>::default()),
            // the entry's top bit: `m_ack`
            k_ack_bit: Constant::new(Bits::<OW>::default().replace_bit(OW - 1, true)),
            k_z16: Constant::new((0u64).into()),
            k_c0: Constant::new((0u64).into()),
            k_c1: Constant::new((1u64).into()),
            k_c2: Constant::new((2u64).into()),
            k_c3: Constant::new((3u64).into()),
            k_z4: Constant::new((0u64).into()),
            k_o24: Constant::new((1u64).into()),
            k_o8: Constant::new((1u64).into()),
            k_ofb: Constant::new((1u64).into()),
            k_x1: Constant::new((1u64 & ((1u64 << FB) - 1)).into()),
            k_x2: Constant::new((2u64 & ((1u64 << FB) - 1)).into()),
            k_x3: Constant::new((3u64 & ((1u64 << FB) - 1)).into()),
            k_zfb: Constant::new((0u64).into()),
            k_ofb1: Constant::new((1u64).into()),
            k_zfb1: Constant::new((0u64).into()),
            k_o3: Constant::new((1u64).into()),
            k_z3: Constant::new((0u64).into()),
            k_q0: Constant::new((0u64).into()),
            k_q1: Constant::new((1u64).into()),
            k_q2: Constant::new((2u64).into()),
            k_q3: Constant::new((3u64).into()),
            k_q4: Constant::new((4u64).into()),
            k_q5: Constant::new((5u64).into()),
            k_q6: Constant::new((6u64).into()),
            k_q7: Constant::new((7u64).into()),
            k_small: Constant::new(small),
        })
    }
}

impl<const CB: usize, const PB: usize, const RB: usize, const FB: usize, const FB1: usize, const FW: usize, const OW: usize> Logic for AckGen<CB, PB, RB, FB, FB1, FW, OW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_we, w_raddr, w_row, w_conn, w_cw, b_fwr, b_fwc, d_v, d_ack, d_op, d_hb, d_plo, d_phi, d_base, hd, wf_we, wf_addr, wf_data, pop_q, pop_qq, p_v, p_kind, p_conn, p_path, p_raddr, p_psn, p_class, p_ack_req, p_ce, p_ts, p_sport, p_data, p_t, p_now, p_due, p_bad, q_v, q_kind, q_conn, q_path, q_raddr, q_psn, q_class, q_ack_req, q_ce, q_ts, q_sport, q_data, q_t, q_now, q_due, q_bad, cp_v, cp_kind, cp_conn, cp_path, cp_data, f_wp, f_ra1, f_ra2, f_ra3, f_cnt, b_v, b_kind, b_conn, b_path, b_raddr, b_psn, b_class, b_ack_req, b_ce, b_ts, b_sport, b_data, b_t, b_now, b_due, b_bad, c_v, c_ack, c_op, c_conn, c_path, c_psn, c_flags, c_ce, c_pk, c_ts, c_delay, c_sport, c_timer, c_hb, c_ca, o_cnt, o_wp, o_rp, o_e0, o_e1, o_e2, o_e3, o_e4, o_e5, o_e6, o_e7, n_bad, n_gap, n_now, n_tmr, n_stale, n_full, i_bad, i_gap, i_now, i_tmr, i_stale, i_full);
        // ---- defaults: the RAMs' clocks, no writes
        self.ram_row.clock.next = self.clock.val();
        self.ram_conn.clock.next = self.clock.val();
        self.ram_row.ce.next = true;
        self.ram_conn.ce.next = true;
        self.ram_fa.clock.next = self.clock.val();
        self.ram_fb.clock.next = self.clock.val();
        self.ram_fc.clock.next = self.clock.val();
        self.ram_fa.ce.next = true;
        self.ram_fb.ce.next = true;
        self.ram_fc.ce.next = true;
        self.ram_row.write_enable.next = false;
        self.ram_conn.write_enable.next = false;
        self.ram_fa.write_enable.next = false;
        self.ram_fb.write_enable.next = false;
        self.ram_fc.write_enable.next = false;
        self.ram_f1.clock.next = self.clock.val();
        self.ram_oq.clock.next = self.clock.val();
        self.on.next = !self.rst.val();

        // ---- A: the coalescing FIFO's head, a register (`hd` = the word at the read pointer;
        // the RAM copies read the words after it every cycle, for the next pops)
        self.head.next = self.hd.q.val();
        self.head_conn.next = self.head.val().get_bits::<CB>(0);
        self.h_sh1.next = self.head.val() >> self.k_cb.val();
        self.h_sh2.next = self.head.val() >> self.k_cbp.val();
        self.head_path.next = self.h_sh1.val().get_bits::<PB>(0);
        self.head_t.next = self.h_sh2.val().get_bits::<32>(0);
        // after_eq(now, t): now - t mod 2^32 below 2^31
        self.age.next = self.now.val() - self.head_t.val();
        // the FIFO's level: f_cnt and the push in W (its count moves one cycle after B)
        self.f_lvl.next = self.f_cnt.q.val() + bit_cast::<FB1, 1>(self.wf_we.q.val().into());
        // the level's tests decoded from the registers (no carry chain in front of them)
        self.lvl_z.next = !self.f_cnt.q.val().any() & !self.wf_we.q.val();
        self.lvl_one.next = ((self.f_cnt.q.val() == self.k_ofb1.val()) & !self.wf_we.q.val()) | (!self.f_cnt.q.val().any() & self.wf_we.q.val());
        self.due.next = !self.lvl_z.val() & !self.age.val().get_bit(31);
        // the small build: the sign of `now - t` from three 16-bit chains side by side (the
        // low half's borrow selects the high half's difference, or that minus 1), not one
        // 32-bit chain (iCE40 carry chains are slow)
        self.age_b.next = self.now.val().get_bits::<16>(0) < self.head_t.val().get_bits::<16>(0);
        self.age_h0.next = self.now.val().get_bits::<16>(16) - self.head_t.val().get_bits::<16>(16);
        self.age_h1.next = self.now.val().get_bits::<16>(16) + !self.head_t.val().get_bits::<16>(16);
        self.age_s.next = self.age_h0.val().get_bit(15);
        if self.age_b.val() {
            self.age_s.next = self.age_h1.val().get_bit(15);
        }
        if self.k_small.val() {
            self.due.next = !self.lvl_z.val() & !self.age_s.val();
        }
        self.occ.next = self.o_cnt.q.val() + bit_cast::<4, 1>(self.p_v.q.val().into()) + bit_cast::<4, 1>(self.q_v.q.val().into()) + bit_cast::<4, 1>(self.b_v.q.val().into()) + bit_cast::<4, 1>(self.c_v.q.val().into()) + bit_cast::<4, 1>(self.d_v.q.val().into());
        self.room.next = !self.occ.val().get_bit(3);
        self.t_cfg.next = self.on.val() & self.room.val() & self.cp_v.q.val();
        self.t_tmr.next = self.on.val() & self.room.val() & !self.cp_v.q.val() & self.due.val();
        self.s_ready.next = self.on.val() & self.room.val() & !self.cp_v.q.val() & !self.due.val();
        self.t_data.next = self.s_ready.val() & self.s_valid.val();
        self.s_cfg_ready.next = self.on.val() & !self.cp_v.q.val();
        // the operation's row and connection
        self.a_conn.next = self.s_conn.val();
        self.a_path.next = self.s_path.val();
        if self.cp_v.q.val() {
            self.a_conn.next = self.cp_conn.q.val();
            self.a_path.next = self.cp_path.q.val();
        } else if self.due.val() {
            self.a_conn.next = self.head_conn.val();
            self.a_path.next = bit_cast::<4, PB>(self.head_path.val());
        }
        self.a_raddr.next = (bit_cast::<RB, CB>(self.a_conn.val()) << self.k_pb.val()) | bit_cast::<RB, PB>(self.a_path.val().get_bits::<PB>(0));
        // the R0 registers (loaded whatever the operation; p_v says whether there is one)
        self.p_v.d.next = self.t_cfg.val() | self.t_tmr.val() | self.t_data.val();
        self.p_kind.d.next = self.k_c0.val();
        if self.t_cfg.val() {
            self.p_kind.d.next = self.k_c2.val();
            if self.cp_kind.q.val() {
                self.p_kind.d.next = self.k_c3.val();
            }
        } else if self.t_tmr.val() {
            self.p_kind.d.next = self.k_c1.val();
        }
        self.p_conn.d.next = self.a_conn.val();
        self.p_path.d.next = self.a_path.val();
        self.p_raddr.d.next = self.a_raddr.val();
        self.p_bad.d.next = self.s_path.val() >= self.k_paths.val();
        if self.k_paths.val() == self.k_z4.val() {
            self.p_bad.d.next = false;
        }
        self.p_psn.d.next = self.s_path_psn.val();
        self.p_class.d.next = self.s_class.val();
        self.p_ack_req.d.next = self.s_ack_req.val();
        self.p_ce.d.next = self.s_ce.val();
        self.p_ts.d.next = self.s_ts.val();
        self.p_sport.d.next = self.s_sport.val();
        self.p_data.d.next = self.cp_data.q.val();
        self.p_t.d.next = self.head_t.val();
        self.p_now.d.next = self.now.val();
        self.p_due.d.next = self.now.val() + self.k_timeout.val();
        // R0: the RAMs are read from registers (the address leaves A's select one cycle
        // before the read: the select waits for the due compare)
        self.ram_row.read_address.next = self.p_raddr.q.val();
        self.ram_conn.read_address.next = self.p_conn.q.val();
        self.q_v.d.next = self.p_v.q.val();
        self.q_kind.d.next = self.p_kind.q.val();
        self.q_conn.d.next = self.p_conn.q.val();
        self.q_path.d.next = self.p_path.q.val();
        self.q_raddr.d.next = self.p_raddr.q.val();
        self.q_psn.d.next = self.p_psn.q.val();
        self.q_class.d.next = self.p_class.q.val();
        self.q_ack_req.d.next = self.p_ack_req.q.val();
        self.q_ce.d.next = self.p_ce.q.val();
        self.q_ts.d.next = self.p_ts.q.val();
        self.q_sport.d.next = self.p_sport.q.val();
        self.q_data.d.next = self.p_data.q.val();
        self.q_t.d.next = self.p_t.q.val();
        self.q_now.d.next = self.p_now.q.val();
        self.q_due.d.next = self.p_due.q.val();
        self.q_bad.d.next = self.p_bad.q.val();
        // R -> B: the operation moves on while the RAMs' output registers load its words
        self.b_v.d.next = self.q_v.q.val();
        self.b_kind.d.next = self.q_kind.q.val();
        self.b_conn.d.next = self.q_conn.q.val();
        self.b_path.d.next = self.q_path.q.val();
        self.b_raddr.d.next = self.q_raddr.q.val();
        self.b_psn.d.next = self.q_psn.q.val();
        self.b_class.d.next = self.q_class.q.val();
        self.b_ack_req.d.next = self.q_ack_req.q.val();
        self.b_ce.d.next = self.q_ce.q.val();
        self.b_ts.d.next = self.q_ts.q.val();
        self.b_sport.d.next = self.q_sport.q.val();
        self.b_data.d.next = self.q_data.q.val();
        self.b_t.d.next = self.q_t.q.val();
        self.b_now.d.next = self.q_now.q.val();
        self.b_due.d.next = self.q_due.q.val();
        self.b_bad.d.next = self.q_bad.q.val();
        // the configuration register: filled when empty, emptied when A takes it
        self.cp_v.d.next = self.cp_v.q.val() & !self.t_cfg.val();
        if self.s_cfg_valid.val() & self.s_cfg_ready.val() {
            self.cp_v.d.next = true;
            self.cp_kind.d.next = self.s_cfg_kind.val();
            self.cp_conn.d.next = self.s_cfg_conn.val();
            self.cp_path.d.next = self.s_cfg_path.val();
            self.cp_data.d.next = self.s_cfg_data.val();
        }
        self.pop.next = self.t_tmr.val();

        // ---- B: the row and the connection word (write-first RAMs: the write of the
        // operation before, made in the cycle this one was read, is included)
        // the row: the RAM's output register, or the row of the operation just before, which W
        // writes in this cycle (too late for the register): the hit was compared in R
        self.row.next = self.ram_row.read_data.val();
        if self.b_fwr.q.val() {
            self.row.next = self.w_row.q.val();
        }
        self.r_exp.next = self.row.val().get_bits::<24>(0);
        self.r_hi.next = self.row.val().get_bits::<24>(24);
        self.r_pend.next = self.row.val().get_bits::<8>(48);
        self.r_ce.next = self.row.val().get_bits::<8>(56);
        self.r_ts.next = self.row.val().get_bits::<32>(64);
        self.r_arr.next = self.row.val().get_bits::<32>(96);
        self.r_dv.next = self.row.val().get_bit(128);
        self.r_due.next = self.row.val().get_bits::<32>(129);
        self.r_sport.next = self.row.val().get_bits::<16>(161);
        self.cw.next = self.ram_conn.read_data.val();
        if self.b_fwc.q.val() {
            self.cw.next = self.w_cw.q.val();
        }
        self.ca.next = self.cw.val().get_bits::<11>(0);
        self.hb.next = self.cw.val().get_bits::<32>(11);
        self.is_data.next = self.b_v.q.val() & (self.b_kind.q.val() == self.k_c0.val()) & !self.b_bad.q.val();
        self.is_tmr.next = self.b_v.q.val() & (self.b_kind.q.val() == self.k_c1.val());
        // path PSN bookkeeping (24-bit serial compares), made on both candidates of the row
        // (the RAM's output register, W) from registers, and selected after: the forwarding
        // select is not in front of the carry chains
        self.d_exp_r.next = self.b_psn.q.val() - self.ram_row.read_data.val().get_bits::<24>(0);
        self.d_exp_f.next = self.b_psn.q.val() - self.w_row.q.val().get_bits::<24>(0);
        self.d_hi_r.next = self.b_psn.q.val() - self.ram_row.read_data.val().get_bits::<24>(24);
        self.d_hi_f.next = self.b_psn.q.val() - self.w_row.q.val().get_bits::<24>(24);
        self.exp_behind.next = self.d_exp_r.val().get_bit(23);
        self.d_hi.next = self.d_hi_r.val();
        // `pending + 1 >= N` (8 bits, N in 1..=255) as compares with constants, no carry
        // chains: pending >= N - 1, and not 255 (whose + 1 wraps to 0)
        self.nth_r.next = (self.ram_row.read_data.val().get_bits::<8>(48) >= self.k_nth.val()) & (self.ram_row.read_data.val().get_bits::<8>(48) != self.k_ff8.val());
        self.nth_f.next = (self.w_row.q.val().get_bits::<8>(48) >= self.k_nth.val()) & (self.w_row.q.val().get_bits::<8>(48) != self.k_ff8.val());
        self.live_r.next = self.ram_row.read_data.val().get_bit(128) & (self.ram_row.read_data.val().get_bits::<32>(129) == self.b_t.q.val());
        self.live_f.next = self.w_row.q.val().get_bit(128) & (self.w_row.q.val().get_bits::<32>(129) == self.b_t.q.val());
        self.live.next = self.live_r.val();
        if self.b_fwr.q.val() {
            self.exp_behind.next = self.d_exp_f.val().get_bit(23);
            self.d_hi.next = self.d_hi_f.val();
            self.live.next = self.live_f.val();
        }
        // the small build: the tests once, on the selected row (after the forwarding select)
        self.d_exp_s.next = self.b_psn.q.val() - self.r_exp.val();
        self.d_hi_s.next = self.b_psn.q.val() - self.r_hi.val();
        if self.k_small.val() {
            self.exp_behind.next = self.d_exp_s.val().get_bit(23);
            self.d_hi.next = self.d_hi_s.val();
            self.live.next = self.r_dv.val() & (self.r_due.val() == self.b_t.q.val());
        }
        self.n_exp.next = self.r_exp.val();
        if !self.exp_behind.val() {
            self.n_exp.next = self.b_psn.q.val() + self.k_o24.val();
        }
        self.n_hi.next = self.r_hi.val();
        if self.d_hi.val().any() & !self.d_hi.val().get_bit(23) {
            self.n_hi.next = self.b_psn.q.val();
        }
        self.refused.next = self.b_class.q.val() == self.k_c0.val();
        self.counted.next = self.is_data.val() & !self.refused.val();
        self.dup.next = self.b_class.q.val() == self.k_c2.val();
        // the CE average: a + ((target - a) >> 2), 12-bit signed, floor
        self.ca_diff.next = self.k_z32.val().get_bits::<12>(0) - bit_cast::<12, 11>(self.ca.val());
        if self.b_ce.q.val() {
            self.ca_diff.next = self.k_1024.val() - bit_cast::<12, 11>(self.ca.val());
        }
        self.ca_sh.next = self.ca_diff.val() >> 2;
        if self.ca_diff.val().get_bit(11) {
            self.ca_sh.next = (self.ca_diff.val() >> 2) | self.k_c00.val();
        }
        self.ca_sum.next = bit_cast::<12, 11>(self.ca.val()) + self.ca_sh.val();
        self.ca_new.next = self.ca_sum.val().get_bits::<11>(0);
        // the decision
        self.pend1.next = self.r_pend.val() + self.k_o8.val();
        self.ce1.next = self.r_ce.val() + bit_cast::<8, 1>(self.b_ce.q.val().into());
        // at once / arm, decided on both row candidates and selected last (the forwarding
        // select is the last LUT before the push and the row select)
        self.nodec.next = (self.b_class.q.val() != self.k_c1.val()) | self.b_ack_req.q.val();
        // after(psn, expected) = psn != expected (a compare tree beside the subtract's chain)
        // and the difference's sign: one LUT after the chain
        self.gap_r.next = (self.b_psn.q.val() != self.ram_row.read_data.val().get_bits::<24>(0)) & !self.d_exp_r.val().get_bit(23);
        self.gap_f.next = (self.b_psn.q.val() != self.w_row.q.val().get_bits::<24>(0)) & !self.d_exp_f.val().get_bit(23);
        self.send_r.next = self.nodec.val() | self.gap_r.val() | self.nth_r.val();
        self.send_f.next = self.nodec.val() | self.gap_f.val() | self.nth_f.val();
        self.arm_r.next = !self.send_r.val() & !self.ram_row.read_data.val().get_bit(128);
        self.arm_f.next = !self.send_f.val() & !self.w_row.q.val().get_bit(128);
        self.gap.next = self.gap_r.val();
        self.send_d.next = self.send_r.val();
        self.arm.next = self.arm_r.val();
        if self.b_fwr.q.val() {
            self.gap.next = self.gap_f.val();
            self.send_d.next = self.send_f.val();
            self.arm.next = self.arm_f.val();
        }
        self.gap_s.next = (self.b_psn.q.val() != self.r_exp.val()) & !self.d_exp_s.val().get_bit(23);
        self.send_s.next = self.nodec.val() | self.gap_s.val() | ((self.r_pend.val() >= self.k_nth.val()) & (self.r_pend.val() != self.k_ff8.val()));
        if self.k_small.val() {
            self.gap.next = self.gap_s.val();
            self.send_d.next = self.send_s.val();
            self.arm.next = !self.send_s.val() & !self.r_dv.val();
        }
        self.flags.next = bit_cast::<8, 1>(self.gap.val().into()) | (bit_cast::<8, 1>(self.dup.val().into()) << 1) | (bit_cast::<8, 1>(self.b_ack_req.q.val().into()) << 2);
        self.full.next = (self.f_cnt.q.val() >= self.k_depth.val()) | ((self.f_cnt.q.val() == self.k_depth1.val()) & self.wf_we.q.val());
        self.push.next = self.counted.val() & self.arm.val() & !self.full.val();
        self.fsend.next = self.counted.val() & self.arm.val() & self.full.val();
        self.send.next = self.send_d.val() | self.fsend.val();
        // the new row and connection word
        self.cfg_isn.next = self.b_data.q.val().get_bits::<24>(0);
        self.cfg_hi.next = self.cfg_isn.val() - self.k_o24.val();
        self.cfg_row.next = bit_cast::<177, 24>(self.cfg_isn.val()) | (bit_cast::<177, 24>(self.cfg_hi.val()) << 24);
        self.row_new.next = self.cfg_row.val();
        self.row_we.next = false;
        self.conn_new.next = bit_cast::<43, 32>(self.b_data.q.val()) << 11;
        self.conn_we.next = false;
        // a DATA packet: bits 48..161 (pending, CE, timestamp, arrival, deadline) by case;
        // refused keeps them
        self.body.next = self.row.val().get_bits::<113>(48);
        if self.counted.val() {
            self.body.next = bit_cast::<113, 8>(self.pend1.val())
                | (bit_cast::<113, 8>(self.ce1.val()) << 8)
                | (bit_cast::<113, 32>(self.b_ts.q.val()) << 16)
                | (bit_cast::<113, 32>(self.b_now.q.val()) << 48)
                | (bit_cast::<113, 1>(self.r_dv.val().into()) << 80)
                | (bit_cast::<113, 32>(self.r_due.val()) << 81);
            if self.send.val() {
                self.body.next = (bit_cast::<113, 32>(self.b_ts.q.val()) << 16)
                    | (bit_cast::<113, 32>(self.b_now.q.val()) << 48)
                    | (bit_cast::<113, 32>(self.r_due.val()) << 81);
            } else if self.push.val() {
                self.body.next = bit_cast::<113, 8>(self.pend1.val())
                    | (bit_cast::<113, 8>(self.ce1.val()) << 8)
                    | (bit_cast::<113, 32>(self.b_ts.q.val()) << 16)
                    | (bit_cast::<113, 32>(self.b_now.q.val()) << 48)
                    | (bit_cast::<113, 1>(true.into()) << 80)
                    | (bit_cast::<113, 32>(self.b_due.q.val()) << 81);
            }
        }
        if self.is_data.val() {
            self.row_we.next = true;
            self.row_new.next = bit_cast::<177, 24>(self.n_exp.val())
                | (bit_cast::<177, 24>(self.n_hi.val()) << 24)
                | (bit_cast::<177, 113>(self.body.val()) << 48)
                | (bit_cast::<177, 16>(self.b_sport.q.val()) << 161);
            if self.counted.val() {
                self.conn_we.next = true;
                self.conn_new.next = (bit_cast::<43, 32>(self.hb.val()) << 11) | bit_cast::<43, 11>(self.ca_new.val());
            }
        }
        if self.is_tmr.val() & self.live.val() {
            self.row_we.next = true;
            // pending, CE and the deadline's valid bit cleared
            self.row_new.next = bit_cast::<177, 48>(self.row.val().get_bits::<48>(0))
                | (bit_cast::<177, 64>(self.row.val().get_bits::<64>(64)) << 64)
                | (bit_cast::<177, 48>(self.row.val().get_bits::<48>(129)) << 129);
        }
        if self.b_v.q.val() & (self.b_kind.q.val() == self.k_c2.val()) {
            self.row_we.next = true;
        }
        if self.b_v.q.val() & (self.b_kind.q.val() == self.k_c3.val()) {
            self.conn_we.next = true;
        }
        // W: every operation's row and connection word, changed or not, are written back one
        // cycle after B from registers (the write is out of B's loop); a write in W is made
        // even in a reset cycle (its operation completed B before the reset)
        self.w_we.d.next = self.on.val() & self.b_v.q.val();
        self.w_raddr.d.next = self.b_raddr.q.val();
        self.w_conn.d.next = self.b_conn.q.val();
        self.w_row.d.next = self.row.val();
        if self.row_we.val() {
            self.w_row.d.next = self.row_new.val();
        }
        self.w_cw.d.next = self.cw.val();
        if self.conn_we.val() {
            self.w_cw.d.next = self.conn_new.val();
        }
        self.b_fwr.d.next = self.q_v.q.val() & self.b_v.q.val() & (self.q_raddr.q.val() == self.b_raddr.q.val());
        self.b_fwc.d.next = self.q_v.q.val() & self.b_v.q.val() & (self.q_conn.q.val() == self.b_conn.q.val());
        self.ram_row.write_enable.next = self.w_we.q.val();
        self.ram_row.write_address.next = self.w_raddr.q.val();
        self.ram_row.write_data.next = self.w_row.q.val();
        self.ram_conn.write_enable.next = self.w_we.q.val();
        self.ram_conn.write_address.next = self.w_conn.q.val();
        self.ram_conn.write_data.next = self.w_cw.q.val();
        // the FIFO: push at B, pop at A
        self.f_entry.next = bit_cast::<FW, CB>(self.b_conn.q.val())
            | (bit_cast::<FW, PB>(self.b_path.q.val().get_bits::<PB>(0)) << self.k_cb.val())
            | (bit_cast::<FW, 32>(self.b_due.q.val()) << self.k_cbp.val());
        // the FIFO RAMs (three copies) are written one cycle after the push, from registers
        // (the push leaves B's loop by the pointers and the count only)
        self.wf_we.d.next = self.on.val() & self.push.val();
        self.wf_addr.d.next = self.f_wp.q.val() + bit_cast::<FB, 1>(self.wf_we.q.val().into());
        self.wf_data.d.next = self.f_entry.val();
        self.ram_fa.write_enable.next = self.wf_we.q.val();
        self.ram_fa.write_address.next = self.wf_addr.q.val();
        self.ram_fa.write_data.next = self.wf_data.q.val();
        self.ram_fb.write_enable.next = self.wf_we.q.val();
        self.ram_fb.write_address.next = self.wf_addr.q.val();
        self.ram_fb.write_data.next = self.wf_data.q.val();
        self.ram_fc.write_enable.next = self.wf_we.q.val();
        self.ram_fc.write_address.next = self.wf_addr.q.val();
        self.ram_fc.write_data.next = self.wf_data.q.val();
        // the write pointer and the count take the push in W (not B's push: out of B's loop)
        self.f_wp.d.next = self.f_wp.q.val() + bit_cast::<FB, 1>(self.wf_we.q.val().into());
        // the read addresses come from the pointer register, not from this cycle's pop: the
        // copies (read latency 2, output registers) read the words 1, 2 and 3 after the head;
        // two cycles later the word after the head is copy 1's, 2's or 3's as 0, 1 or 2 pops
        // were made in these two cycles
        // (the read pointer `rp`, the head's address, is held only as `f_ra1..3` = `rp` +
        // 1..3 xor 1..3, registers that move with it on a pop: no adder in front of the RAMs'
        // address pins and their forwarding compares, and zero at power-up and after a reset,
        // when `rp` is 0)
        self.ra1.next = self.f_ra1.q.val() ^ self.k_x1.val();
        self.ra2.next = self.f_ra2.q.val() ^ self.k_x2.val();
        self.ra3.next = self.f_ra3.q.val() ^ self.k_x3.val();
        self.ram_fa.read_address.next = self.ra1.val();
        self.ram_fb.read_address.next = self.ra2.val();
        self.ram_fc.read_address.next = self.ra3.val();
        self.f_ra1.d.next = self.f_ra1.q.val();
        self.f_ra2.d.next = self.f_ra2.q.val();
        self.f_ra3.d.next = self.f_ra3.q.val();
        if self.pop.val() {
            self.f_ra1.d.next = (self.ra1.val() + self.k_ofb.val()) ^ self.k_x1.val();
            self.f_ra2.d.next = (self.ra2.val() + self.k_ofb.val()) ^ self.k_x2.val();
            self.f_ra3.d.next = (self.ra3.val() + self.k_ofb.val()) ^ self.k_x3.val();
        }
        self.pop_q.d.next = self.pop.val();
        self.pop_qq.d.next = self.pop_q.q.val();
        // the word after the head pushed in the last cycle is written in this one: from W
        self.wf_next.next = self.wf_we.q.val() & (self.wf_addr.q.val() == self.ra1.val());
        // the head register: after a pop the word after it (read two cycles before, the writes
        // of those two cycles forwarded; from the copy the pops of those cycles select; from
        // W if it was pushed in the last cycle), or the word pushed now when the FIFO is empty
        // or its only entry leaves
        self.hd.d.next = self.hd.q.val();
        if self.pop.val() {
            self.hd.d.next = self.ram_fa.read_data.val();
            if self.pop_q.q.val() ^ self.pop_qq.q.val() {
                self.hd.d.next = self.ram_fb.read_data.val();
            }
            if self.pop_q.q.val() & self.pop_qq.q.val() {
                self.hd.d.next = self.ram_fc.read_data.val();
            }
            if self.wf_next.val() {
                self.hd.d.next = self.wf_data.q.val();
            }
        }
        if (self.pop.val() & self.lvl_one.val()) | self.lvl_z.val() {
            self.hd.d.next = self.f_entry.val();
        }
        // the small build: one copy (`prim::BlockRam`, read latency 1) read at `rp + 1` of the
        // next cycle (`ra1`, + 1 when this cycle pops: the pop runs into the RAM's address);
        // a pop loads its word, W's word if that was pushed in the cycle before, or the word
        // pushed now when the FIFO is empty or its only entry leaves
        self.ram_f1.write_enable.next = self.k_small.val() & self.wf_we.q.val();
        self.ram_f1.write_address.next = self.wf_addr.q.val();
        self.ram_f1.write_data.next = self.wf_data.q.val();
        self.f_rn.next = self.ra1.val();
        if self.pop.val() {
            self.f_rn.next = self.ra1.val() + self.k_ofb.val();
        }
        self.ram_f1.read_address.next = self.f_rn.val();
        if self.k_small.val() {
            if self.pop.val() {
                self.hd.d.next = self.ram_f1.read_data.val();
                if self.wf_next.val() {
                    self.hd.d.next = self.wf_data.q.val();
                }
            }
            if (self.pop.val() & self.lvl_one.val()) | self.lvl_z.val() {
                self.hd.d.next = self.f_entry.val();
            }
        }
        self.f_cnt.d.next = self.f_lvl.val();
        if self.pop.val() {
            self.f_cnt.d.next = self.f_lvl.val() - self.k_ofb1.val();
        }
        // the ACK to C
        self.c_v.d.next = self.b_v.q.val();
        self.c_ack.d.next = (self.counted.val() & self.send.val()) | (self.is_tmr.val() & self.live.val());
        // an entry for every DATA packet (a bad path's too), sent or not: the ACK join pairs
        // them with the SACK engine's results
        self.c_op.d.next = self.b_v.q.val() & (self.b_kind.q.val() == self.k_c0.val());
        self.c_conn.d.next = self.b_conn.q.val();
        self.c_path.d.next = self.b_path.q.val();
        self.c_timer.d.next = self.is_tmr.val();
        self.c_hb.d.next = self.hb.val();
        self.c_psn.d.next = self.n_hi.val();
        self.c_flags.d.next = self.flags.val();
        self.c_ce.d.next = self.ce1.val();
        self.c_pk.d.next = self.pend1.val();
        self.c_ts.d.next = self.b_ts.q.val();
        self.c_delay.d.next = self.k_z32.val();
        self.c_sport.d.next = self.b_sport.q.val();
        self.c_ca.d.next = self.ca_new.val();
        if self.is_tmr.val() {
            self.c_psn.d.next = self.r_hi.val();
            self.c_flags.d.next = self.k_z8.val();
            self.c_ce.d.next = self.r_ce.val();
            self.c_pk.d.next = self.r_pend.val();
            self.c_ts.d.next = self.r_ts.val();
            self.c_delay.d.next = self.b_now.q.val() - self.r_arr.val();
            self.c_sport.d.next = self.r_sport.val();
            self.c_ca.d.next = self.ca.val();
        }
        // counters: B registers what to count, the count moves one cycle later (out of B's
        // loop; the status outputs show B's events two cycles after B)
        self.i_bad.d.next = self.b_v.q.val() & (self.b_kind.q.val() == self.k_c0.val()) & self.b_bad.q.val();
        self.i_gap.d.next = self.is_data.val() & self.gap.val();
        self.i_now.d.next = self.counted.val() & self.send.val();
        self.i_tmr.d.next = self.is_tmr.val() & self.live.val();
        self.i_stale.d.next = self.is_tmr.val() & !self.live.val();
        self.i_full.d.next = self.fsend.val();
        self.n_bad.d.next = self.n_bad.q.val() + bit_cast::<32, 1>(self.i_bad.q.val().into());
        self.n_gap.d.next = self.n_gap.q.val() + bit_cast::<32, 1>(self.i_gap.q.val().into());
        self.n_now.d.next = self.n_now.q.val() + bit_cast::<32, 1>(self.i_now.q.val().into());
        self.n_tmr.d.next = self.n_tmr.q.val() + bit_cast::<32, 1>(self.i_tmr.q.val().into());
        self.n_stale.d.next = self.n_stale.q.val() + bit_cast::<32, 1>(self.i_stale.q.val().into());
        self.n_full.d.next = self.n_full.q.val() + bit_cast::<32, 1>(self.i_full.q.val().into());

        // ---- C: the rate hint's two 16x16 products (hb * ce_avg), registered with the entry
        self.hb_lo.next = self.c_hb.q.val().get_bits::<16>(0);
        self.hb_hi.next = self.c_hb.q.val().get_bits::<16>(16);
        self.ca16.next = bit_cast::<16, 11>(self.c_ca.q.val());
        self.p_lo.next = self.hb_lo.val() * self.ca16.val();
        self.p_hi.next = self.hb_hi.val() * self.ca16.val();
        self.ack_bit.next = self.k_zow.val();
        if self.c_ack.q.val() {
            self.ack_bit.next = self.k_ack_bit.val();
        }
        self.c_entry.next = bit_cast::<OW, 24>(self.c_psn.q.val())
            | (bit_cast::<OW, 8>(self.c_flags.q.val()) << 24)
            | (bit_cast::<OW, 8>(self.c_ce.q.val()) << 32)
            | (bit_cast::<OW, 8>(self.c_pk.q.val()) << 40)
            | (bit_cast::<OW, 32>(self.c_ts.q.val()) << 80)
            | (bit_cast::<OW, 32>(self.c_delay.q.val()) << 112)
            | (bit_cast::<OW, 16>(self.c_sport.q.val()) << 144)
            | (bit_cast::<OW, 1>(self.c_timer.q.val().into()) << 160)
            | (bit_cast::<OW, 4>(self.c_path.q.val()) << 161)
            | (bit_cast::<OW, CB>(self.c_conn.q.val()) << 165)
            | self.ack_bit.val();
        self.d_v.d.next = self.c_v.q.val();
        self.d_ack.d.next = self.c_ack.q.val();
        self.d_op.d.next = self.c_op.q.val();
        self.d_hb.d.next = self.c_hb.q.val();
        self.d_plo.d.next = self.p_lo.val();
        self.d_phi.d.next = self.p_hi.val();
        self.d_base.d.next = self.c_entry.val();
        // ---- D: hb - ((hb * ce_avg) >> 11) into the entry, and into the queue
        self.prod.next = bit_cast::<48, 32>(self.d_plo.q.val()) + (bit_cast::<48, 32>(self.d_phi.q.val()) << 16);
        self.prod_sh.next = self.prod.val() >> 11;
        self.hint.next = self.d_hb.q.val() - self.prod_sh.val().get_bits::<32>(0);
        self.o_entry.next = self.d_base.q.val() | (bit_cast::<OW, 32>(self.hint.val()) << 48);
        self.c_push.next = self.d_v.q.val() & (self.d_ack.q.val() | self.d_op.q.val());
        // ---- the output queue (8 registers)
        self.o_head.next = self.o_e0.q.val();
        if self.o_rp.q.val() == self.k_q1.val() {
            self.o_head.next = self.o_e1.q.val();
        }
        if self.o_rp.q.val() == self.k_q2.val() {
            self.o_head.next = self.o_e2.q.val();
        }
        if self.o_rp.q.val() == self.k_q3.val() {
            self.o_head.next = self.o_e3.q.val();
        }
        if self.o_rp.q.val() == self.k_q4.val() {
            self.o_head.next = self.o_e4.q.val();
        }
        if self.o_rp.q.val() == self.k_q5.val() {
            self.o_head.next = self.o_e5.q.val();
        }
        if self.o_rp.q.val() == self.k_q6.val() {
            self.o_head.next = self.o_e6.q.val();
        }
        if self.o_rp.q.val() == self.k_q7.val() {
            self.o_head.next = self.o_e7.q.val();
        }
        if self.k_small.val() {
            self.o_head.next = self.ram_oq.read_data.val();
        }
        self.m_valid.next = self.on.val() & self.o_cnt.q.val().any();
        self.m_hs.next = self.m_valid.val() & self.m_ready.val();
        // the small build's queue: a block RAM (`prim::BlockRam`, read latency 1, a write in
        // the cycle of the read forwarded) read at the next cycle's head (`o_rp` + this
        // cycle's transfer), so `o_head` is the word at `o_rp` after this cycle's push, as
        // the registers are
        self.o_rpn.next = self.o_rp.q.val();
        if self.m_hs.val() {
            self.o_rpn.next = self.o_rp.q.val() + self.k_q1.val();
        }
        self.ram_oq.read_address.next = self.o_rpn.val();
        self.ram_oq.write_enable.next = self.k_small.val() & self.c_push.val();
        self.ram_oq.write_address.next = self.o_wp.q.val();
        self.ram_oq.write_data.next = self.o_entry.val();
        // a DATA packet's entry that sent no ACK shows its connection and path, the rest 0
        self.m_ack.next = (self.o_head.val() & self.k_ack_bit.val()).any();
        self.m_path_psn.next = self.k_z24.val();
        self.m_flags.next = self.k_z8.val();
        self.m_ecn_ce.next = self.k_z8.val();
        self.m_ecn_pkts.next = self.k_z8.val();
        self.m_rate_hint.next = self.k_z32.val();
        self.m_ts_echo.next = self.k_z32.val();
        self.m_ack_delay.next = self.k_z32.val();
        self.m_sport.next = self.k_z16.val();
        self.m_timer.next = self.o_head.val().get_bit(160);
        if self.m_ack.val() {
            self.m_path_psn.next = self.o_head.val().get_bits::<24>(0);
            self.m_flags.next = self.o_head.val().get_bits::<8>(24);
            self.m_ecn_ce.next = self.o_head.val().get_bits::<8>(32);
            self.m_ecn_pkts.next = self.o_head.val().get_bits::<8>(40);
            self.m_rate_hint.next = self.o_head.val().get_bits::<32>(48);
            self.m_ts_echo.next = self.o_head.val().get_bits::<32>(80);
            self.m_ack_delay.next = self.o_head.val().get_bits::<32>(112);
            self.m_sport.next = self.o_head.val().get_bits::<16>(144);
        }
        self.m_path.next = self.o_head.val().get_bits::<4>(161);
        self.m_conn.next = self.o_head.val().get_bits::<CB>(165);
        self.o_e0.d.next = self.o_e0.q.val();
        self.o_e1.d.next = self.o_e1.q.val();
        self.o_e2.d.next = self.o_e2.q.val();
        self.o_e3.d.next = self.o_e3.q.val();
        self.o_e4.d.next = self.o_e4.q.val();
        self.o_e5.d.next = self.o_e5.q.val();
        self.o_e6.d.next = self.o_e6.q.val();
        self.o_e7.d.next = self.o_e7.q.val();
        if self.c_push.val() {
            if self.o_wp.q.val() == self.k_q0.val() {
                self.o_e0.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q1.val() {
                self.o_e1.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q2.val() {
                self.o_e2.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q3.val() {
                self.o_e3.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q4.val() {
                self.o_e4.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q5.val() {
                self.o_e5.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q6.val() {
                self.o_e6.d.next = self.o_entry.val();
            }
            if self.o_wp.q.val() == self.k_q7.val() {
                self.o_e7.d.next = self.o_entry.val();
            }
        }
        self.o_wp.d.next = self.o_wp.q.val();
        if self.c_push.val() {
            self.o_wp.d.next = self.o_wp.q.val() + self.k_q1.val();
        }
        self.o_rp.d.next = self.o_rp.q.val();
        if self.m_hs.val() {
            self.o_rp.d.next = self.o_rp.q.val() + self.k_q1.val();
        }
        self.o_cnt.d.next = self.o_cnt.q.val();
        if self.c_push.val() & !self.m_hs.val() {
            self.o_cnt.d.next = self.o_cnt.q.val() + self.k_o3.val();
        }
        if self.m_hs.val() & !self.c_push.val() {
            self.o_cnt.d.next = self.o_cnt.q.val() - self.k_o3.val();
        }
        // ---- status
        self.stat_bad_path.next = self.n_bad.q.val();
        self.stat_path_gaps.next = self.n_gap.q.val();
        self.stat_acks_now.next = self.n_now.q.val();
        self.stat_acks_timer.next = self.n_tmr.q.val();
        self.stat_stale_pops.next = self.n_stale.q.val();
        self.stat_fifo_full.next = self.n_full.q.val();
        self.stat_fifo_level.next = self.f_lvl.val();
        // ---- reset: control state (not the RAMs, the data registers)
        if self.rst.val() {
            self.cp_v.d.next = false;
            self.p_v.d.next = false;
            self.q_v.d.next = false;
            self.b_v.d.next = false;
            self.c_v.d.next = false;
            self.d_v.d.next = false;
            self.b_fwr.d.next = false;
            self.b_fwc.d.next = false;
            self.f_wp.d.next = self.k_zfb.val();
            self.f_ra1.d.next = self.k_zfb.val();
            self.f_ra2.d.next = self.k_zfb.val();
            self.f_ra3.d.next = self.k_zfb.val();
            self.f_cnt.d.next = self.k_zfb1.val();
            self.o_cnt.d.next = self.k_z3.val();
            self.o_wp.d.next = self.k_q0.val();
            self.o_rp.d.next = self.k_q0.val();
            self.n_bad.d.next = self.k_z32.val();
            self.n_gap.d.next = self.k_z32.val();
            self.n_now.d.next = self.k_z32.val();
            self.n_tmr.d.next = self.k_z32.val();
            self.n_stale.d.next = self.k_z32.val();
            self.n_full.d.next = self.k_z32.val();
            self.i_bad.d.next = false;
            self.i_gap.d.next = false;
            self.i_now.d.next = false;
            self.i_tmr.d.next = false;
            self.i_stale.d.next = false;
            self.i_full.d.next = false;
            self.pop_q.d.next = false;
            self.pop_qq.d.next = false;
        }
    }
}

/// Runs `$body` with `$ty` = the [`AckGen`] of `$cfg` (an `&AckGenConfig`); the sizes of
/// the presets are listed.
#[macro_export]
macro_rules! with_ackgen {
    ($cfg:expr, $ty:ident => $body:expr) => {{
        let c: &$crate::mrnic_model::transport::ackgen::AckGenConfig = $cfg;
        match $crate::ackgen::ackgen_bits(c) {
            (8, 3, 8) => {
                type $ty = $crate::ackgen::AckGen<8, 3, 11, 8, 9, 43, 174>;
                Ok($body)
            }
            (4, 2, 6) => {
                type $ty = $crate::ackgen::AckGen<4, 2, 6, 6, 7, 38, 170>;
                Ok($body)
            }
            (10, 3, 8) => {
                type $ty = $crate::ackgen::AckGen<10, 3, 13, 8, 9, 45, 176>;
                Ok($body)
            }
            (4, 3, 8) => {
                type $ty = $crate::ackgen::AckGen<4, 3, 7, 8, 9, 39, 170>;
                Ok($body)
            }
            (cb, pb, fb) => Err($crate::mrnic_model::config::ConfigError::invalid(
                "ackgen",
                format!("no AckGen is instantiated for connections = 2^{cb}, 2^{pb} rows per connection, a FIFO of 2^{fb} (add the row to with_ackgen!)"),
            )),
        }
    }};
}
