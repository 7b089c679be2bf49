//! # Completion unit (`mrnic_cmpl`, issue 12)
//!
//! **Purpose.** Counts each message's progress at its writes' responses and completes the
//! messages of every connection **in message order, exactly once, never before every byte
//! of the message was written** (the `bresp` of its last write). Three input ports, each a
//! valid/ready stream, feed it through a fixed-priority arbiter (one op per take): the
//! placement unit's completion stream as it is (`s_wr`: a write's completion, its tag
//! unpacked here into the `Done` op), the header path's fatal refusals (`s_fatal`: `Fatal`)
//! and the host's opens (`s_open`: a connection starts with `Open`). A SEND leaves one
//! completion record (Success, or WriteError for a SEND whose write failed); a WRITE
//! completes silently.
//! Semantics: the block model `mrnic_model::transport::cmpl::Cmpl` (which the model's
//! responder itself uses) and the cycle shell `CmplShell`, against which the generated
//! Verilog is compared every cycle (`verif/tests/cmpl_diff.rs`); `docs/blocks/cmpl.md`.
//!
//! **Ports** (CB = connection bits, MB = log2 msg_window, AB = CB + MB).
//! - inputs: `clock`, `rst` (synchronous, active high);
//!   - write completions `s_wr_valid`/`s_wr_ready` with `s_wr_tag` (95 =
//!     `mrnic_model::transport::cmpl::WR_TAG_BITS`, as `WrDone::tag` packs it and as the
//!     placement unit's `m_tag` carries it: connection 12 (its low CB bits used), MSN 32,
//!     packet offset 24, LAST, SEND, SSN 24, SE, least significant first; unpacked by wiring
//!     alone, as `WrDone::from_tag`), `s_wr_bytes` (16, placement's `m_bytes`: the payload
//!     bytes written), `s_wr_resp` (2, AXI `bresp`, placement's `m_resp`; OKAY = 0, any other
//!     value an error): a `Done` op. The port names and widths are placement's completion
//!     port's (`m_valid`, `m_ready`, `m_tag`, `m_bytes`, `m_resp`) with `s_wr_` for `m_`;
//!     placement's `m_clipped` is not used (it is never set on a path whose writes the
//!     checks passed);
//!   - fatal refusals `s_fatal_valid`/`s_fatal_ready` with `s_fatal_conn` (CB),
//!     `s_fatal_msn` (32): a `Fatal` op;
//!   - opens `s_open_valid`/`s_open_ready` with `s_open_conn` (CB), `s_open_msn` (32, the
//!     connection's next MSN): an `Open` op;
//!   - `m_ready`.
//! - outputs: `s_wr_ready`, `s_fatal_ready`, `s_open_ready` (the arbiter's grants);
//!   completions `m_valid`/`m_ready` with `m_conn` (CB), `m_msn` (32), `m_ssn` (24),
//!   `m_bytes` (32), `m_solicited`, `m_status` (1 = WriteError).
//! - config: const generics CB, MB, AB, checked by [`Cmpl::try_new`] (connections 2..=4096:
//!   the tag's connection field is 12 bits; msg_window >= 2).
//! - status: `stat_msgs` (messages completed, SEND and WRITE), `stat_cmpls` (records out),
//!   `stat_write_errors` (`Done` with an error response), `stat_stray` (`Done` of a message
//!   outside the window: no row, ignored), 32-bit wrapping, counted at the event and shown
//!   from the next cycle.
//!
//! **State.** The row RAM (`prim::BlockRamReg`: block RAM with an output register),
//! 2^AB rows of 108 bits: packets written 24, bytes 32, end offset valid 1 + 24 (the LAST
//! packet's offset + 1, mod 2^24: a row is complete when its packets equal it, an equality
//! with no carry chain), SEND 1, SSN 24, SE 1, and *complete* 1 (derived: end valid and
//! packets == end, computed when the row is written and stored so that the walk's step
//! reads one bit instead of comparing 24; the 108th bit is free, a row takes three 36-bit
//! DP16KD words either way) (row `conn · msg_window + MSN mod msg_window`). The connection
//! RAM (the same), 2^CB rows of 90 bits: next MSN 32, fatal valid 1 + MSN 32, failed SEND
//! valid 1 + SSN 24. Both zero at power-up; `Open` writes them.
//!
//! **The arbiter.** The unit can take an op (`can`) when `!rst`, idle, and its output
//! register is empty or taken in this cycle. The port taken is the first valid one in the
//! fixed order **wr, fatal, open** (`sel_wr` = `s_wr_valid`, `sel_fatal` = `!s_wr_valid &
//! s_fatal_valid`, `sel_open` = `!s_wr_valid & !s_fatal_valid & s_open_valid`: the valids
//! alone), and only its ready is high (`s_x_ready = can & sel_x`): at most one ready is
//! high in a cycle, and a ready high is a transfer (its valid is high). A port not taken
//! holds its op (valid/ready: the transfer is the cycle with both high). The selected port's
//! connection and MSN address both RAMs (a mux of three, by the valids, in front of the read
//! addresses); the take registers the op's fields as before (for `Fatal` and `Open` the
//! write port's fields are registered too and never used). Placement's completions come
//! first because they hold the write path (placement takes no command until its
//! completion is taken); then the fatal refusals (the header path holds its refusal until
//! taken); opens last (the host's configuration, which can wait).
//!
//! **No FIFOs in front of the fatal and open ports.** The plan had small ones; backpressure
//! suffices. The write port takes at most one op per write command of the placement unit,
//! which serves one frame's payload at a time behind the realigner (at least ~10 cycles per
//! frame at 64 bits: a minimum DATA frame is 10 beats); the unit takes an op every 4 cycles
//! when it completes nothing, + 2 per further message completed (each message once), so
//! it is idle with no completion waiting within a few write ops, and the fatal or open op
//! waiting is taken then. Fatal refusals are rare: after a connection's first fatal op its
//! later packets are refused earlier, as in-error, and make no op. Opens come from the
//! host's connection setup. A source that must not stall while its op waits (the header
//! path) keeps its own register or FIFO; in `verif/tests/rx_path.rs` the fatal and open
//! sources are the test's FIFOs, popped on their own ready.
//!
//! **Timing.** A state machine, one op at a time. Both RAMs have output registers
//! (`prim::BlockRamReg`, loaded every cycle: the word two cycles after its address, with
//! the writes of the cycles between forwarded). Cycle t: an op is taken (the arbiter above;
//! its end offset, the tag's offset + 1, registered); both RAMs are addressed at its row
//! and connection. t + 1 (WAIT). t + 2
//! (READ): the words, the row after the op, its completeness, the message index `k`,
//! `k == 0`, `k < msg_window` and whether the op's message is earlier than the connection's
//! fatal one (`k < fatal MSN - next MSN`), into registers. t + 3
//! (EXEC), from flip-flops only (no carry chain: the compares were made in READ): the row's
//! and the connection's write; a completion or a
//! failed SEND's record is loaded into the output register (offered from t + 4:
//! **latency** 4). An OKAY that completes the head message goes on walking: WWAIT, then
//! WALK at t + 5 with the next row, a step every two cycles (each complete row cleared, the
//! next MSN moved on, a SEND's record out; a step, SEND or WRITE, that finds the output
//! register full tries again two cycles later); the walk ends at the first incomplete row,
//! with the failed SEND's record if that row is the fatal message. `Open` clears one row
//! per cycle from t + 1. **II**: 4 for an op that completes nothing; 4 + 2 per further
//! message it completes (a failed SEND's record at the end of a walk takes the walk's last
//! step, at the incomplete row); 1 + msg_window for `Open`; + the retries of a stalled
//! walk. The write responses this block takes come at most one per write burst, so II 4
//! costs nothing in the receive path at 64 bits (a minimum DATA frame is 10 beats).
//!
//! ```text
//! cycle       0        1        2        3        4        5        6        7
//! s (taken)   D(c,7)
//! RAM addr    row 7                      row 8             row 9
//! st          IDLE     WAIT     READ     EXEC     WWAIT    WALK     WWAIT    WALK -> IDLE
//! m                                               msn 7             msn 8    (row 9 incomplete)
//! ```
//!
//! **The loops.** Every stage starts at a flip-flop: READ at the RAMs' output registers
//! (sums: `k` and the fatal message's distance side by side, then `k` < that distance; the
//! packet count + 1, the bytes), EXEC at READ's registers (selects only, into the write
//! muxes), WALK at the row RAM's output register (one bit, the row's stored *complete*, and
//! the registered failed-SEND flag, into the write enables). The next row's read address
//! depends only on the output register being free, not on the row read. The longest path
//! left is `BlockRamReg`'s own: the RAM's clock-to-out through one LUT into its register.
//!
//! **Combinational paths.** `m_ready` -> `s_wr_ready`, `s_fatal_ready`, `s_open_ready`;
//! `s_wr_valid` -> `s_wr_ready`, `s_fatal_ready`, `s_open_ready`; `s_fatal_valid` ->
//! `s_fatal_ready`, `s_open_ready`; `s_open_valid` -> `s_open_ready`; `rst` -> every
//! ready. Into the RAMs' read addresses: the three valids (the select), `s_wr_tag`'s
//! connection and MSN bits, `s_fatal_conn`, `s_fatal_msn`, `s_open_conn`, `s_open_msn`
//! (not `m_ready`: the select uses the valids alone). None to `m_*` or the counters. A
//! source may drive its valid from the unit's ready of another port only through a
//! register (its own ready depends on the others' valids). Placement's completion port
//! connects directly: its `m_valid` and completion fields come from its registers.
//!
//! **Hazards.** None between the ports: one op per take, whichever port it comes from, and
//! the ops of the three ports are applied in the order taken (the model `Cmpl::apply` in
//! take order). None between ops: one op at a time (nothing writes a RAM between an op's
//! read at its take and its EXEC), and a row or connection written in a cycle is read at
//! the earliest in the next (the RAMs' write-first contract covers the
//! read issued in the cycle of the write in EXEC and WALK, and `BlockRamReg` forwards the
//! writes made while a word is on its way out; the walk writes row `n` and addresses `n + 1`
//! in the same cycle, which differ because msg_window >= 2).
//!
//! **Reset** holds `m_valid` and the three readies low while `rst` is high (no port is
//! taken: its op waits at its source), writes neither RAM in
//! a cycle with `rst`, and clears the state machine, the output register's valid bit and
//! the counters; the RAMs are data and keep their rows. An op in flight is dropped whole
//! (no write); a walk stops between two rows (each row's step is whole: the row cleared
//! and the next MSN written in one cycle); an `Open` may be left half done. So after a
//! reset the rows are consistent but an op may be lost: `Open` the connections again.

use crate::prim::BlockRamReg;
use mrnic_model::config::ConfigError;
use rust_hdl::prelude::*;

/// Row word width: packets 24, bytes 32, end valid 1, end offset 24, SEND 1, SSN 24, SE 1,
/// complete 1 (derived, stored for the walk's timing).
pub const ROW_W: usize = 108;
/// Connection word width: next MSN 32, fatal valid 1 + MSN 32, failed SEND valid 1 + SSN 24.
pub const CONN_W: usize = 90;
/// The write port's tag width: the placement unit's (`WrDone::tag`; connection 12, MSN 32,
/// offset 24, LAST, SEND, SSN 24, SE).
pub const WR_TAG: usize = mrnic_model::transport::cmpl::WR_TAG_BITS as usize;

#[derive(LogicBlock)]
pub struct Cmpl<const CB: usize, const MB: usize, const AB: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_wr_valid: Signal<In, bool>,
    pub s_wr_tag: Signal<In, Bits<WR_TAG>>,
    pub s_wr_bytes: Signal<In, Bits<16>>,
    pub s_wr_resp: Signal<In, Bits<2>>,
    pub s_fatal_valid: Signal<In, bool>,
    pub s_fatal_conn: Signal<In, Bits<CB>>,
    pub s_fatal_msn: Signal<In, Bits<32>>,
    pub s_open_valid: Signal<In, bool>,
    pub s_open_conn: Signal<In, Bits<CB>>,
    pub s_open_msn: Signal<In, Bits<32>>,
    pub m_ready: Signal<In, bool>,
    pub s_wr_ready: Signal<Out, bool>,
    pub s_fatal_ready: Signal<Out, bool>,
    pub s_open_ready: Signal<Out, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_conn: Signal<Out, Bits<CB>>,
    pub m_msn: Signal<Out, Bits<32>>,
    pub m_ssn: Signal<Out, Bits<24>>,
    pub m_bytes: Signal<Out, Bits<32>>,
    pub m_solicited: Signal<Out, bool>,
    pub m_status: Signal<Out, bool>,
    pub stat_msgs: Signal<Out, Bits<32>>,
    pub stat_cmpls: Signal<Out, Bits<32>>,
    pub stat_write_errors: Signal<Out, Bits<32>>,
    pub stat_stray: Signal<Out, Bits<32>>,
    rows: BlockRamReg<ROW_W, AB>,
    conns: BlockRamReg<CONN_W, CB>,
    st: DFF<Bits<3>>,
    op_open: DFF<bool>,
    op_fatal: DFF<bool>,
    op_conn: DFF<Bits<CB>>,
    op_msn: DFF<Bits<32>>,
    op_len: DFF<Bits<16>>,
    op_end: DFF<Bits<24>>,
    op_last: DFF<bool>,
    op_send: DFF<bool>,
    op_ssn: DFF<Bits<24>>,
    op_sol: DFF<bool>,
    op_ok: DFF<bool>,
    x_earlier: DFF<bool>,
    x_k0: DFF<bool>,
    x_inwin: DFF<bool>,
    x_next: DFF<Bits<32>>,
    x_next1: DFF<Bits<32>>,
    x_ev: DFF<bool>,
    x_em: DFF<Bits<32>>,
    x_fv: DFF<bool>,
    x_fs: DFF<Bits<24>>,
    x_word: DFF<Bits<ROW_W>>,
    x_done: DFF<bool>,
    x_by: DFF<Bits<32>>,
    x_rby: DFF<Bits<32>>,
    x_so: DFF<bool>,
    w_next: DFF<Bits<32>>,
    w_ev: DFF<bool>,
    w_em: DFF<Bits<32>>,
    w_fv: DFF<bool>,
    w_fs: DFF<Bits<24>>,
    clr_j: DFF<Bits<MB>>,
    o_v: DFF<bool>,
    o_conn: DFF<Bits<CB>>,
    o_msn: DFF<Bits<32>>,
    o_ssn: DFF<Bits<24>>,
    o_bytes: DFF<Bits<32>>,
    o_sol: DFF<bool>,
    o_err: DFF<bool>,
    n_msgs: DFF<Bits<32>>,
    n_cmpls: DFF<Bits<32>>,
    n_werr: DFF<Bits<32>>,
    n_stray: DFF<Bits<32>>,
    // the arbiter: the write tag's fields (wiring), the selected port (by the valids
    // alone) and its connection and MSN, whether the unit can take an op
    wr_conn: Signal<Local, Bits<CB>>,
    wr_msn: Signal<Local, Bits<32>>,
    wr_off: Signal<Local, Bits<24>>,
    wr_last: Signal<Local, bool>,
    wr_send: Signal<Local, bool>,
    wr_ssn: Signal<Local, Bits<24>>,
    wr_sol: Signal<Local, bool>,
    wr_ok: Signal<Local, bool>,
    sel_wr: Signal<Local, bool>,
    sel_fatal: Signal<Local, bool>,
    sel_open: Signal<Local, bool>,
    a_conn: Signal<Local, Bits<CB>>,
    a_msn: Signal<Local, Bits<32>>,
    can: Signal<Local, bool>,
    // the row read (fields) and the row after an OKAY
    r_pk: Signal<Local, Bits<24>>,
    r_by: Signal<Local, Bits<32>>,
    r_lv: Signal<Local, bool>,
    r_end: Signal<Local, Bits<24>>,
    r_sd: Signal<Local, bool>,
    r_ss: Signal<Local, Bits<24>>,
    r_so: Signal<Local, bool>,
    r_done: Signal<Local, bool>,
    u_pk: Signal<Local, Bits<24>>,
    u_by: Signal<Local, Bits<32>>,
    u_end: Signal<Local, Bits<24>>,
    u_so: Signal<Local, bool>,
    u_lv: Signal<Local, bool>,
    u_done: Signal<Local, bool>,
    u_word: Signal<Local, Bits<ROW_W>>,
    // the connection read
    c_next: Signal<Local, Bits<32>>,
    c_ev: Signal<Local, bool>,
    c_em: Signal<Local, Bits<32>>,
    c_fv: Signal<Local, bool>,
    c_fs: Signal<Local, Bits<24>>,
    k: Signal<Local, Bits<32>>,
    k0: Signal<Local, bool>,
    inwin: Signal<Local, bool>,
    emrel: Signal<Local, Bits<32>>,
    earlier: Signal<Local, bool>,
    // the walk
    // the head row is the fatal failed SEND (registered with the head MSN it was compared at)
    w_fail: DFF<bool>,
    o_free: Signal<Local, bool>,
    advance: Signal<Local, bool>,
    next1: Signal<Local, Bits<32>>,
    w_next1: Signal<Local, Bits<32>>,
    w_nidx: Signal<Local, Bits<MB>>,
    take: Signal<Local, bool>,
    raddr: Signal<Local, Bits<AB>>,
    waddr: Signal<Local, Bits<AB>>,
    wdata: Signal<Local, Bits<ROW_W>>,
    wen: Signal<Local, bool>,
    cdata: Signal<Local, Bits<CONN_W>>,
    cen: Signal<Local, bool>,
    conn_hi: Signal<Local, Bits<AB>>,
    k_mw: Constant<Bits<32>>,
    k_ev: Constant<Bits<CONN_W>>,
    k_mlast: Constant<Bits<MB>>,
    k_mb: Constant<Bits<16>>,
    k_one24: Constant<Bits<24>>,
    k_one32: Constant<Bits<32>>,
    k_okay: Constant<Bits<2>>,
    k_one_mb: Constant<Bits<MB>>,
    k_z32: Constant<Bits<32>>,
    k_zmb: Constant<Bits<MB>>,
    k_zrow: Constant<Bits<ROW_W>>,
    k_idle: Constant<Bits<3>>,
    k_wait: Constant<Bits<3>>,
    k_wwait: Constant<Bits<3>>,
    k_read: Constant<Bits<3>>,
    k_exec: Constant<Bits<3>>,
    k_walk: Constant<Bits<3>>,
    k_clear: Constant<Bits<3>>,
}

/// The generics (CB, MB) of `connections` and `msg_window`.
pub fn cmpl_bits(connections: usize, msg_window: usize) -> (usize, usize) {
    (connections.trailing_zeros() as usize, msg_window.trailing_zeros() as usize)
}

impl<const CB: usize, const MB: usize, const AB: usize> Cmpl<CB, MB, AB> {
    /// The block for `connections` connections and `msg_window` message rows each; refused
    /// when the generics do not match them, `connections` is not a power of two in
    /// 2..=4096 (the write tag's connection field is 12 bits), or `msg_window` not one in 2..=256 (a walk writes one row and reads the
    /// next in the same cycle: with one row they would be the same).
    pub fn try_new(connections: usize, msg_window: usize) -> Result<Self, ConfigError> {
        if !connections.is_power_of_two() || !(2..=1 << 12).contains(&connections) {
            return Err(ConfigError::invalid("cmpl", format!("connections = {connections} must be a power of two in 2..=4096 (the write tag carries 12 bits of connection)")));
        }
        if !msg_window.is_power_of_two() || !(2..=256).contains(&msg_window) {
            return Err(ConfigError::invalid("cmpl", format!("msg_window = {msg_window} must be a power of two in 2..=256 (the completion unit's walk needs two rows)")));
        }
        let (cb, mb) = cmpl_bits(connections, msg_window);
        for (f, want, got) in [("CB", cb, CB), ("MB", mb, MB), ("AB", cb + mb, AB)] {
            if want != got {
                return Err(ConfigError::invalid(format!("Cmpl.{f}"), format!("the generic is {got}, the configuration says {want}")));
            }
        }
        Ok(Self {
            clock: Default::default(),
            rst: Default::default(),
            s_wr_valid: Default::default(),
            s_wr_tag: Default::default(),
            s_wr_bytes: Default::default(),
            s_wr_resp: Default::default(),
            s_fatal_valid: Default::default(),
            s_fatal_conn: Default::default(),
            s_fatal_msn: Default::default(),
            s_open_valid: Default::default(),
            s_open_conn: Default::default(),
            s_open_msn: Default::default(),
            m_ready: Default::default(),
            s_wr_ready: Default::default(),
            s_fatal_ready: Default::default(),
            s_open_ready: Default::default(),
            m_valid: Default::default(),
            m_conn: Default::default(),
            m_msn: Default::default(),
            m_ssn: Default::default(),
            m_bytes: Default::default(),
            m_solicited: Default::default(),
            m_status: Default::default(),
            stat_msgs: Default::default(),
            stat_cmpls: Default::default(),
            stat_write_errors: Default::default(),
            stat_stray: Default::default(),
            // zeroed at power-up, as FPGA block RAM is (simulators would start from X)
            rows: BlockRamReg::with_init((0..1u64 << AB).map(|a| (Bits::<AB>::from(a), Bits::<ROW_W>::default())).collect()),
            conns: BlockRamReg::with_init((0..1u64 << CB).map(|a| (Bits::<CB>::from(a), Bits::<CONN_W>::default())).collect()),
            st: Default::default(),
            op_open: Default::default(),
            op_fatal: Default::default(),
            op_conn: Default::default(),
            op_msn: Default::default(),
            op_len: Default::default(),
            op_end: Default::default(),
            op_last: Default::default(),
            op_send: Default::default(),
            op_ssn: Default::default(),
            op_sol: Default::default(),
            op_ok: Default::default(),
            x_earlier: Default::default(),
            x_k0: Default::default(),
            x_inwin: Default::default(),
            x_next: Default::default(),
            x_next1: Default::default(),
            x_ev: Default::default(),
            x_em: Default::default(),
            x_fv: Default::default(),
            x_fs: Default::default(),
            x_word: Default::default(),
            x_done: Default::default(),
            x_by: Default::default(),
            x_rby: Default::default(),
            x_so: Default::default(),
            w_next: Default::default(),
            w_ev: Default::default(),
            w_em: Default::default(),
            w_fv: Default::default(),
            w_fs: Default::default(),
            clr_j: Default::default(),
            o_v: Default::default(),
            o_conn: Default::default(),
            o_msn: Default::default(),
            o_ssn: Default::default(),
            o_bytes: Default::default(),
            o_sol: Default::default(),
            o_err: Default::default(),
            n_msgs: Default::default(),
            n_cmpls: Default::default(),
            n_werr: Default::default(),
            n_stray: Default::default(),
            wr_conn: Default::default(),
            wr_msn: Default::default(),
            wr_off: Default::default(),
            wr_last: Default::default(),
            wr_send: Default::default(),
            wr_ssn: Default::default(),
            wr_sol: Default::default(),
            wr_ok: Default::default(),
            sel_wr: Default::default(),
            sel_fatal: Default::default(),
            sel_open: Default::default(),
            a_conn: Default::default(),
            a_msn: Default::default(),
            can: Default::default(),
            r_pk: Default::default(),
            r_by: Default::default(),
            r_lv: Default::default(),
            r_end: Default::default(),
            r_sd: Default::default(),
            r_ss: Default::default(),
            r_so: Default::default(),
            r_done: Default::default(),
            u_pk: Default::default(),
            u_by: Default::default(),
            u_end: Default::default(),
            u_so: Default::default(),
            u_lv: Default::default(),
            u_done: Default::default(),
            u_word: Default::default(),
            c_next: Default::default(),
            c_ev: Default::default(),
            c_em: Default::default(),
            c_fv: Default::default(),
            c_fs: Default::default(),
            k: Default::default(),
            k0: Default::default(),
            inwin: Default::default(),
            emrel: Default::default(),
            earlier: Default::default(),
            w_fail: Default::default(),
            o_free: Default::default(),
            advance: Default::default(),
            next1: Default::default(),
            w_next1: Default::default(),
            w_nidx: Default::default(),
            take: Default::default(),
            raddr: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            wen: Default::default(),
            cdata: Default::default(),
            cen: Default::default(),
            conn_hi: Default::default(),
            k_mw: Constant::new(Bits::<32>::from(msg_window as u64)),
            k_ev: Constant::new(Bits::<CONN_W>::from(1u64 << 32)),
            k_mlast: Constant::new(Bits::<MB>::from(msg_window as u64 - 1)),
            k_mb: Constant::new(Bits::<16>::from(MB as u64)),
            k_one24: Constant::new(Bits::<24>::from(1u64)),
            k_one32: Constant::new(Bits::<32>::from(1u64)),
            k_okay: Constant::new(Bits::<2>::from(0u64)),
            k_one_mb: Constant::new(Bits::<MB>::from(1u64)),
            k_z32: Constant::new(Bits::<32>::from(0u64)),
            k_zmb: Constant::new(Bits::<MB>::from(0u64)),
            k_zrow: Constant::new(Bits::<ROW_W>::from(0u64)),
            k_idle: Constant::new(Bits::<3>::from(0u64)),
            k_wait: Constant::new(Bits::<3>::from(5u64)),
            k_wwait: Constant::new(Bits::<3>::from(6u64)),
            k_read: Constant::new(Bits::<3>::from(1u64)),
            k_exec: Constant::new(Bits::<3>::from(2u64)),
            k_walk: Constant::new(Bits::<3>::from(3u64)),
            k_clear: Constant::new(Bits::<3>::from(4u64)),
        })
    }
}

impl<const CB: usize, const MB: usize, const AB: usize> Logic for Cmpl<CB, MB, AB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, op_open, op_fatal, op_conn, op_msn, op_len, op_end, op_last, op_send, op_ssn, op_sol, op_ok, x_earlier, x_k0, x_inwin, x_next, x_next1, x_ev, x_em, x_fv, x_fs, x_word, x_done, x_by, x_rby, x_so, w_next, w_ev, w_em, w_fv, w_fs, w_fail, clr_j, o_v, o_conn, o_msn, o_ssn,
            o_bytes, o_sol, o_err, n_msgs, n_cmpls, n_werr, n_stray
        );
        self.rows.clock.next = self.clock.val();
        self.conns.clock.next = self.clock.val();
        // the RAMs' output registers load every cycle: a word two cycles after its address
        self.rows.ce.next = true;
        self.conns.ce.next = true;
        // ---- defaults: every register holds (`dff_setup!` sets `d` = `q`); the output
        // register's valid bit clears when its record is taken
        self.o_v.d.next = self.o_v.q.val() & !self.m_ready.val();
        // ---- the write tag unpacked as `WrDone::from_tag` does (wiring only): connection
        // 12 (its low CB bits), MSN 32, offset 24, LAST, SEND, SSN 24, SE; OKAY = bresp 0
        self.wr_conn.next = self.s_wr_tag.val().get_bits::<CB>(0);
        self.wr_msn.next = self.s_wr_tag.val().get_bits::<32>(12);
        self.wr_off.next = self.s_wr_tag.val().get_bits::<24>(44);
        self.wr_last.next = self.s_wr_tag.val().get_bit(68);
        self.wr_send.next = self.s_wr_tag.val().get_bit(69);
        self.wr_ssn.next = self.s_wr_tag.val().get_bits::<24>(70);
        self.wr_sol.next = self.s_wr_tag.val().get_bit(94);
        self.wr_ok.next = self.s_wr_resp.val() == self.k_okay.val();
        // ---- the arbiter: fixed priority wr, fatal, open, selected by the valids alone (so
        // no path from m_ready into the RAMs' read addresses); the connection and MSN of the
        // selected port address both RAMs
        self.sel_wr.next = self.s_wr_valid.val();
        self.sel_fatal.next = !self.s_wr_valid.val() & self.s_fatal_valid.val();
        self.sel_open.next = !self.s_wr_valid.val() & !self.s_fatal_valid.val() & self.s_open_valid.val();
        self.a_conn.next = self.s_open_conn.val();
        self.a_msn.next = self.s_open_msn.val();
        if self.sel_fatal.val() {
            self.a_conn.next = self.s_fatal_conn.val();
            self.a_msn.next = self.s_fatal_msn.val();
        }
        if self.sel_wr.val() {
            self.a_conn.next = self.wr_conn.val();
            self.a_msn.next = self.wr_msn.val();
        }
        // ---- handshake: one op per take; only the taken port's ready is high
        self.o_free.next = !self.o_v.q.val() | self.m_ready.val();
        self.can.next = !self.rst.val() & (self.st.q.val() == self.k_idle.val()) & self.o_free.val();
        self.s_wr_ready.next = self.can.val() & self.sel_wr.val();
        self.s_fatal_ready.next = self.can.val() & self.sel_fatal.val();
        self.s_open_ready.next = self.can.val() & self.sel_open.val();
        self.take.next = self.can.val() & (self.s_wr_valid.val() | self.s_fatal_valid.val() | self.s_open_valid.val());
        // ---- the row read: fields, complete, and the row after an OKAY of the op
        self.r_pk.next = self.rows.read_data.val().get_bits::<24>(0);
        self.r_by.next = self.rows.read_data.val().get_bits::<32>(24);
        self.r_lv.next = self.rows.read_data.val().get_bit(56);
        self.r_end.next = self.rows.read_data.val().get_bits::<24>(57);
        self.r_sd.next = self.rows.read_data.val().get_bit(81);
        self.r_ss.next = self.rows.read_data.val().get_bits::<24>(82);
        self.r_so.next = self.rows.read_data.val().get_bit(106);
        // complete (`r_lv` and packets == end), stored with the row when it is written: the
        // walk decides its step from one bit of the word, not a 24-bit compare
        self.r_done.next = self.rows.read_data.val().get_bit(107);
        self.u_pk.next = self.r_pk.val() + self.k_one24.val();
        self.u_by.next = self.r_by.val() + bit_cast::<32, 16>(self.op_len.q.val());
        self.u_lv.next = self.r_lv.val() | self.op_last.q.val();
        self.u_end.next = self.r_end.val();
        self.u_so.next = self.r_so.val();
        if self.op_last.q.val() {
            self.u_end.next = self.op_end.q.val();
            self.u_so.next = self.op_sol.q.val();
        }
        self.u_done.next = self.u_lv.val() & (self.u_pk.val() == self.u_end.val());
        self.u_word.next = bit_cast::<ROW_W, 24>(self.u_pk.val())
            | (bit_cast::<ROW_W, 32>(self.u_by.val()) << 24)
            | (bit_cast::<ROW_W, 1>(self.u_lv.val().into()) << 56)
            | (bit_cast::<ROW_W, 24>(self.u_end.val()) << 57)
            | (bit_cast::<ROW_W, 1>(self.op_send.q.val().into()) << 81)
            | (bit_cast::<ROW_W, 24>(self.op_ssn.q.val()) << 82)
            | (bit_cast::<ROW_W, 1>(self.u_so.val().into()) << 106)
            | (bit_cast::<ROW_W, 1>(self.u_done.val().into()) << 107);
        // ---- the connection read, the op's message index and its checks
        self.c_next.next = self.conns.read_data.val().get_bits::<32>(0);
        self.c_ev.next = self.conns.read_data.val().get_bit(32);
        self.c_em.next = self.conns.read_data.val().get_bits::<32>(33);
        self.c_fv.next = self.conns.read_data.val().get_bit(65);
        self.c_fs.next = self.conns.read_data.val().get_bits::<24>(66);
        self.k.next = self.op_msn.q.val() - self.c_next.val();
        self.k0.next = self.op_msn.q.val() == self.c_next.val();
        self.inwin.next = self.k.val() < self.k_mw.val();
        // the op's message is earlier than the fatal one (or there is none): decided in READ
        // (two subtractions side by side, one compare) and registered for EXEC
        self.emrel.next = self.c_em.val() - self.c_next.val();
        self.earlier.next = !self.c_ev.val() | (self.k.val() < self.emrel.val());
        // ---- the walk: the head row complete, or the failed SEND at the head
        self.advance.next = (self.st.q.val() == self.k_walk.val()) & self.r_done.val() & self.o_free.val();
        self.next1.next = self.c_next.val() + self.k_one32.val();
        // (sums in locals of their own width: inside a wider bit_cast the carry would land
        // in the next field)
        self.w_next1.next = self.w_next.q.val() + self.k_one32.val();
        self.w_nidx.next = self.w_next.q.val().get_bits::<MB>(0) + self.k_one_mb.val();
        // ---- RAM ports (one assignment each, from locals)
        self.conn_hi.next = bit_cast::<AB, CB>(self.op_conn.q.val()) << self.k_mb.val();
        self.raddr.next = (bit_cast::<AB, CB>(self.a_conn.val()) << self.k_mb.val()) | bit_cast::<AB, MB>(self.a_msn.val().get_bits::<MB>(0));
        if self.st.q.val() == self.k_exec.val() {
            self.raddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.x_next1.q.val().get_bits::<MB>(0));
        }
        if self.st.q.val() == self.k_walk.val() {
            self.raddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.w_next.q.val().get_bits::<MB>(0));
            // the next row whenever a step could go (the output register free), whatever
            // the row read says: no path from the RAM's word back to its address
            if self.o_free.val() {
                self.raddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.w_nidx.val());
            }
        }
        self.rows.read_address.next = self.raddr.val();
        self.conns.read_address.next = self.a_conn.val();
        self.waddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.op_msn.q.val().get_bits::<MB>(0));
        self.wdata.next = self.k_zrow.val();
        self.wen.next = false;
        self.cdata.next = bit_cast::<CONN_W, 32>(self.x_next.q.val())
            | (bit_cast::<CONN_W, 1>(self.x_ev.q.val().into()) << 32)
            | (bit_cast::<CONN_W, 32>(self.x_em.q.val()) << 33)
            | (bit_cast::<CONN_W, 1>(self.x_fv.q.val().into()) << 65)
            | (bit_cast::<CONN_W, 24>(self.x_fs.q.val()) << 66);
        self.cen.next = false;
        // ---- IDLE: take an op
        if self.take.val() {
            self.op_open.d.next = self.sel_open.val();
            self.op_fatal.d.next = self.sel_fatal.val();
            self.op_conn.d.next = self.a_conn.val();
            self.op_msn.d.next = self.a_msn.val();
            self.op_len.d.next = self.s_wr_bytes.val();
            self.op_end.d.next = self.wr_off.val() + self.k_one24.val();
            self.op_last.d.next = self.wr_last.val();
            self.op_send.d.next = self.wr_send.val();
            self.op_ssn.d.next = self.wr_ssn.val();
            self.op_sol.d.next = self.wr_sol.val();
            self.op_ok.d.next = self.wr_ok.val();
            self.clr_j.d.next = self.k_zmb.val();
            self.st.d.next = self.k_wait.val();
            if self.sel_open.val() {
                self.st.d.next = self.k_clear.val();
            }
        }
        // ---- READ: the row and the connection as read, and the sums and compares the
        // write needs, into registers (EXEC then works from flip-flops only)
        if self.st.q.val() == self.k_wait.val() {
            self.st.d.next = self.k_read.val();
        }
        if self.st.q.val() == self.k_wwait.val() {
            self.st.d.next = self.k_walk.val();
        }
        if self.st.q.val() == self.k_read.val() {
            self.st.d.next = self.k_exec.val();
            self.x_earlier.d.next = self.earlier.val();
            self.x_k0.d.next = self.k0.val();
            self.x_inwin.d.next = self.inwin.val();
            self.x_next.d.next = self.c_next.val();
            self.x_next1.d.next = self.next1.val();
            self.x_ev.d.next = self.c_ev.val();
            self.x_em.d.next = self.c_em.val();
            self.x_fv.d.next = self.c_fv.val();
            self.x_fs.d.next = self.c_fs.val();
            self.x_word.d.next = self.u_word.val();
            self.x_done.d.next = self.u_done.val();
            self.x_by.d.next = self.u_by.val();
            self.x_rby.d.next = self.r_by.val();
            self.x_so.d.next = self.u_so.val();
        }
        // ---- EXEC: the op's row and connection writes
        if self.st.q.val() == self.k_exec.val() {
            self.st.d.next = self.k_idle.val();
            self.w_next.d.next = self.x_next1.q.val();
            self.w_fail.d.next = self.x_ev.q.val() & self.x_fv.q.val() & (self.x_em.q.val() == self.x_next1.q.val());
            self.w_ev.d.next = self.x_ev.q.val();
            self.w_em.d.next = self.x_em.q.val();
            self.w_fv.d.next = self.x_fv.q.val();
            self.w_fs.d.next = self.x_fs.q.val();
            if self.op_fatal.q.val() {
                // a refused check: the fatal message if earlier, nothing to complete
                if self.x_earlier.q.val() {
                    self.cen.next = true;
                    self.cdata.next = bit_cast::<CONN_W, 32>(self.x_next.q.val())
                        | self.k_ev.val()
                        | (bit_cast::<CONN_W, 32>(self.op_msn.q.val()) << 33);
                }
            } else if !self.x_inwin.q.val() {
                self.n_stray.d.next = self.n_stray.q.val() + self.k_one32.val();
            } else if self.op_ok.q.val() {
                self.wen.next = true;
                self.wdata.next = self.x_word.q.val();
                if self.x_k0.q.val() & self.x_done.q.val() {
                    // the head completes: cleared, next MSN + 1, its record; then walk
                    self.wdata.next = self.k_zrow.val();
                    self.n_msgs.d.next = self.n_msgs.q.val() + self.k_one32.val();
                    self.cen.next = true;
                    self.cdata.next = bit_cast::<CONN_W, 32>(self.x_next1.q.val())
                        | (bit_cast::<CONN_W, 1>(self.x_ev.q.val().into()) << 32)
                        | (bit_cast::<CONN_W, 32>(self.x_em.q.val()) << 33)
                        | (bit_cast::<CONN_W, 1>(self.x_fv.q.val().into()) << 65)
                        | (bit_cast::<CONN_W, 24>(self.x_fs.q.val()) << 66);
                    self.st.d.next = self.k_wwait.val();
                    if self.op_send.q.val() {
                        self.o_v.d.next = true;
                        self.o_conn.d.next = self.op_conn.q.val();
                        self.o_msn.d.next = self.x_next.q.val();
                        self.o_ssn.d.next = self.op_ssn.q.val();
                        self.o_bytes.d.next = self.x_by.q.val();
                        self.o_sol.d.next = self.x_so.q.val();
                        self.o_err.d.next = false;
                        self.n_cmpls.d.next = self.n_cmpls.q.val() + self.k_one32.val();
                    }
                }
            } else {
                // an error response: the fatal message if earlier; a failed SEND at the
                // head completes at once
                self.n_werr.d.next = self.n_werr.q.val() + self.k_one32.val();
                if self.x_earlier.q.val() {
                    self.cen.next = true;
                    self.cdata.next = bit_cast::<CONN_W, 32>(self.x_next.q.val())
                        | self.k_ev.val()
                        | (bit_cast::<CONN_W, 32>(self.op_msn.q.val()) << 33)
                        | (bit_cast::<CONN_W, 1>(self.op_send.q.val().into()) << 65)
                        | (bit_cast::<CONN_W, 24>(self.op_ssn.q.val()) << 66);
                    if self.x_k0.q.val() & self.op_send.q.val() {
                        self.cdata.next = bit_cast::<CONN_W, 32>(self.x_next.q.val())
                            | self.k_ev.val()
                            | (bit_cast::<CONN_W, 32>(self.op_msn.q.val()) << 33)
                            | (bit_cast::<CONN_W, 24>(self.op_ssn.q.val()) << 66);
                        self.o_v.d.next = true;
                        self.o_conn.d.next = self.op_conn.q.val();
                        self.o_msn.d.next = self.op_msn.q.val();
                        self.o_ssn.d.next = self.op_ssn.q.val();
                        self.o_bytes.d.next = self.x_rby.q.val();
                        self.o_sol.d.next = false;
                        self.o_err.d.next = true;
                        self.n_cmpls.d.next = self.n_cmpls.q.val() + self.k_one32.val();
                    }
                }
            }
        }
        // ---- WALK: a head row every two cycles (a step, or a retry when the output
        // register is full, goes through WWAIT while the next read comes out of the RAM)
        if self.st.q.val() == self.k_walk.val() {
            self.st.d.next = self.k_wwait.val();
            self.waddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.w_next.q.val().get_bits::<MB>(0));
            self.cdata.next = bit_cast::<CONN_W, 32>(self.w_next.q.val())
                | (bit_cast::<CONN_W, 1>(self.w_ev.q.val().into()) << 32)
                | (bit_cast::<CONN_W, 32>(self.w_em.q.val()) << 33)
                | (bit_cast::<CONN_W, 1>(self.w_fv.q.val().into()) << 65)
                | (bit_cast::<CONN_W, 24>(self.w_fs.q.val()) << 66);
            if self.r_done.val() {
                if self.advance.val() {
                    self.wen.next = true;
                    self.n_msgs.d.next = self.n_msgs.q.val() + self.k_one32.val();
                    self.w_next.d.next = self.w_next1.val();
                    self.w_fail.d.next = self.w_ev.q.val() & self.w_fv.q.val() & (self.w_em.q.val() == self.w_next1.val());
                    self.cen.next = true;
                    self.cdata.next = bit_cast::<CONN_W, 32>(self.w_next1.val())
                        | (bit_cast::<CONN_W, 1>(self.w_ev.q.val().into()) << 32)
                        | (bit_cast::<CONN_W, 32>(self.w_em.q.val()) << 33)
                        | (bit_cast::<CONN_W, 1>(self.w_fv.q.val().into()) << 65)
                        | (bit_cast::<CONN_W, 24>(self.w_fs.q.val()) << 66);
                    if self.r_sd.val() {
                        self.o_v.d.next = true;
                        self.o_conn.d.next = self.op_conn.q.val();
                        self.o_msn.d.next = self.w_next.q.val();
                        self.o_ssn.d.next = self.r_ss.val();
                        self.o_bytes.d.next = self.r_by.val();
                        self.o_sol.d.next = self.r_so.val();
                        self.o_err.d.next = false;
                        self.n_cmpls.d.next = self.n_cmpls.q.val() + self.k_one32.val();
                    }
                }
            } else if self.w_fail.q.val() {
                if self.o_free.val() {
                    self.w_fv.d.next = false;
                    self.w_fail.d.next = false;
                    self.cen.next = true;
                    self.cdata.next = bit_cast::<CONN_W, 32>(self.w_next.q.val())
                        | (bit_cast::<CONN_W, 1>(self.w_ev.q.val().into()) << 32)
                        | (bit_cast::<CONN_W, 32>(self.w_em.q.val()) << 33)
                        | (bit_cast::<CONN_W, 24>(self.w_fs.q.val()) << 66);
                    self.o_v.d.next = true;
                    self.o_conn.d.next = self.op_conn.q.val();
                    self.o_msn.d.next = self.w_next.q.val();
                    self.o_ssn.d.next = self.w_fs.q.val();
                    self.o_bytes.d.next = self.r_by.val();
                    self.o_sol.d.next = false;
                    self.o_err.d.next = true;
                    self.n_cmpls.d.next = self.n_cmpls.q.val() + self.k_one32.val();
                    self.st.d.next = self.k_idle.val();
                }
            } else {
                self.st.d.next = self.k_idle.val();
            }
        }
        // ---- CLEAR (Open): the connection's word at row 0's cycle, one row per cycle
        if self.st.q.val() == self.k_clear.val() {
            self.waddr.next = self.conn_hi.val() | bit_cast::<AB, MB>(self.clr_j.q.val());
            self.wen.next = true;
            self.clr_j.d.next = self.clr_j.q.val() + self.k_one_mb.val();
            if self.clr_j.q.val() == self.k_zmb.val() {
                self.cen.next = true;
                self.cdata.next = bit_cast::<CONN_W, 32>(self.op_msn.q.val());
            }
            if self.clr_j.q.val() == self.k_mlast.val() {
                self.st.d.next = self.k_idle.val();
            }
        }
        // (no write under reset: the op in flight is dropped whole, as the model drops it)
        self.rows.write_enable.next = self.wen.val() & !self.rst.val();
        self.rows.write_address.next = self.waddr.val();
        self.rows.write_data.next = self.wdata.val();
        self.conns.write_enable.next = self.cen.val() & !self.rst.val();
        self.conns.write_address.next = self.op_conn.q.val();
        self.conns.write_data.next = self.cdata.val();
        // ---- outputs
        self.m_valid.next = self.o_v.q.val() & !self.rst.val();
        self.m_conn.next = self.o_conn.q.val();
        self.m_msn.next = self.o_msn.q.val();
        self.m_ssn.next = self.o_ssn.q.val();
        self.m_bytes.next = self.o_bytes.q.val();
        self.m_solicited.next = self.o_sol.q.val();
        self.m_status.next = self.o_err.q.val();
        self.stat_msgs.next = self.n_msgs.q.val();
        self.stat_cmpls.next = self.n_cmpls.q.val();
        self.stat_write_errors.next = self.n_werr.q.val();
        self.stat_stray.next = self.n_stray.q.val();
        // ---- reset: control state (not the RAMs, not the data registers)
        if self.rst.val() {
            self.st.d.next = self.k_idle.val();
            self.o_v.d.next = false;
            self.n_msgs.d.next = self.k_z32.val();
            self.n_cmpls.d.next = self.k_z32.val();
            self.n_werr.d.next = self.k_z32.val();
            self.n_stray.d.next = self.k_z32.val();
        }
    }
}

/// Runs `$body` with `$ty` the `Cmpl` of (connections, msg_window), or a `ConfigError`
/// naming the sizes with no instantiation.
#[macro_export]
macro_rules! with_cmpl {
    ($connections:expr, $msg_window:expr, $ty:ident => $body:expr) => {{
        match $crate::cmpl::cmpl_bits($connections, $msg_window) {
            (8, 2) => {
                type $ty = $crate::cmpl::Cmpl<8, 2, 10>;
                Ok($body)
            }
            (4, 3) => {
                type $ty = $crate::cmpl::Cmpl<4, 3, 7>;
                Ok($body)
            }
            (10, 5) => {
                type $ty = $crate::cmpl::Cmpl<10, 5, 15>;
                Ok($body)
            }
            (8, 5) => {
                type $ty = $crate::cmpl::Cmpl<8, 5, 13>;
                Ok($body)
            }
            (4, 5) => {
                type $ty = $crate::cmpl::Cmpl<4, 5, 9>;
                Ok($body)
            }
            (cb, mb) => Err($crate::mrnic_model::config::ConfigError::invalid(
                "cmpl",
                format!("no Cmpl is instantiated for connections = 2^{cb}, msg_window = 2^{mb} (add the row to with_cmpl!)"),
            )),
        }
    }};
}
