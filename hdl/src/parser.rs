//! # Receive frame parser (`mrnic_parser`, issue 12), 64-bit AXI4-Stream
//!
//! **Purpose.** Checks every received Ethernet frame exactly as the golden model does
//! (`mrnic_model::wire::axis::AxisRx`: `MacError`, `BadKeep`, `TooLong`, then every
//! `wire::decode` check in `decode`'s order) and, for each good frame, outputs one header
//! record with the fields the SACK engine and placement need; every frame is counted under
//! its reason. Semantics and timing: the model cycle shell
//! `mrnic_model::wire::parser_shell::ParserShell`, against which this block's generated
//! Verilog is checked cycle by cycle (`verif/tests/parser_diff.rs`). The payload frame
//! buffer of `docs/design/receiver-rtl.md` §2.2 is not in this block (yet).
//!
//! **Ports.**
//! - inputs: `clock`, `rst` (synchronous, active high); AXI4-Stream `s_axis_tvalid`,
//!   `s_axis_tdata` (64, byte k = bits 8k+7..8k, byte 0 first on the wire), `s_axis_tkeep`
//!   (8), `s_axis_tlast`, `s_axis_tuser` (the MAC reports the frame bad); `m_hdr_ready`.
//! - outputs: `s_axis_tready`; stream `m_hdr_valid`/`m_hdr_ready` with `m_hdr_opcode` (8),
//!   `m_hdr_dest_qp` (24), `m_hdr_psn` (24), `m_hdr_path_id` (4), `m_hdr_path_psn` (24,
//!   data and ACK), `m_hdr_msn` (32, data and NAK), `m_hdr_offset` (32, data),
//!   `m_hdr_flags` (8, data: MPETH flags, ACK: ACK flags), `m_hdr_va` (64), `m_hdr_rkey`
//!   (32), `m_hdr_length` (32: payload bytes; these three data only), `m_hdr_ecn` (2),
//!   `m_hdr_vlan` (1: an 802.1Q tag, the payload 4 bytes later), `m_hdr_ssn` (24, data:
//!   the MPETH SEND sequence number), `m_hdr_src` (32: the IPv4 source address) and
//!   `m_hdr_pkey` (16: the BTH P_Key), every opcode (the connection checks read them);
//!   `m_hdr_sport` (16: the UDP source port), `m_hdr_ack_req` (the BTH A bit), every
//!   opcode, and `m_hdr_ts` (32, data: the MPETH timestamp), which the ACK generator reads;
//!   `m_hdr_se` (the BTH SE bit, solicited event), every opcode, which the completion unit
//!   reads; fields an opcode does not carry are 0 (`HdrRecord::of`).
//! - config: none (64 bits, maximum frame 9216 bytes).
//! - status: `stat_drop_<reason>` (27) and `stat_good_<opcode>` (6), 32-bit wrapping, the
//!   model's `DropCounters` names; `stat_last_verdict` (5: 0 good, 1 + drop index, 31 none
//!   since reset).
//!
//! **Latency** 5 cycles ([`LATENCY`]) from the cycle a frame's `tlast` beat is transferred
//! to its record on `m_hdr` and its counter increment. **II** one beat per cycle; frames
//! back to back with no idle cycle, one-beat frames included.
//!
//! **Pipeline.** I (cycle 0, every beat): byte count, `tkeep` check, `tuser`, too-long,
//! beats 1..13 written into 13 header lanes (beat 0 holds only the MAC addresses), and the
//! beat fed to one `Crc32Stream<64>` (ICRC) and two `OnesSum<64, 8>` (IPv4 header, UDP),
//! whose byte enables and first-beat flags, like the ICRC's masks, are registered one beat
//! ahead (a tagged frame's IPv4 sum takes bytes 14, 15 too, the TCI, cancelled by its
//! complement as the extra word).
//! The ICRC engine sees the Ethernet header replaced by a constant *steering prefix*: its
//! last four bytes (bytes 10..13, or 14..17 with an 802.1Q tag) are computed at generation
//! time so that the register at the IPv4 header is the ICRC seed whatever the tag; the
//! ICRC's invariant fields are forced to 0xFF at their fixed byte positions. F1 (cycle 1):
//! the lanes still hold the whole frame (the next frame's beat k overwrites lane k at the
//! end of cycle k + 1 at the earliest), normalised by the tag (a 4-byte shift); the
//! normalised fields, N - l3, N - l4 and the Ethernet truncation are registered. F2 (cycle
//! 2): every field check and the record, independently, from those registers. F3 (cycle 3):
//! the checks of each run between two checksums priority-encoded (code and any-bit per run).
//! F4 (cycle 4): the CRC register (== residue 0xDEBB20E3) and the two sums (== 0xFFFF,
//! registered in cycle 3) complete the checks; the verdict is the first failing item in the
//! model's order; every counter enable is decoded from registers with the ICRC compare one
//! gate before the counter (the record's data is loaded without it: see hazards). O
//! (cycle 5): record and counters.
//!
//! **Combinational paths.** `m_hdr_ready -> s_axis_tready` (`tready` is low while a record
//! waits). No path from `s_axis_*` to any output.
//!
//! **Hazards.** One output register suffices: a good frame is at least 58 bytes (8 beats),
//! so no two good frames' verdicts are within 5 cycles of each other, and a good frame's
//! `tlast` is only taken when the output register is free or being emptied; the same
//! argument lets the record's data load before the ICRC is known (a frame passing every other
//! check is >= 8 beats, so the register is empty then and `m_hdr_*` are only meaningful with
//! `m_hdr_valid`, which waits for `crc_ok`). Bytes past a
//! short frame's end are stale in the lanes; every check reading them is preceded, in the
//! priority order, by the truncation check covering them.
//!
//! **Reset** clears the frame in progress, the valid bits of F1..F4 and O, the counters
//! (to 0) and `stat_last_verdict` (to 31); `s_axis_tready` is low during reset.

use crate::prim::{crc_fold_model, Crc32Stream, OnesSum};
use mrnic_model::wire::icrc::ICRC_SEED;
use rust_hdl::prelude::*;

/// Cycles from the transfer of a frame's `tlast` beat to its record and counter update.
pub const LATENCY: usize = 5;
/// The ICRC engine's register before a frame's first beat (any value: the steering prefix
/// brings it to the seed at the IPv4 header).
pub const CRC_INIT: u32 = 0xFFFF_FFFF;

/// The four bytes that, folded after `state`, leave the raw CRC register at `target`
/// (the CRC-32 step is linear over GF(2) in the state and the data jointly, and four bytes
/// reach every register value: solved by Gaussian elimination).
pub fn steer(state: u32, target: u32) -> [u8; 4] {
    let want = target ^ crc_fold_model(state, &[0; 4]);
    // rows: (column image, input bit index as a one-hot of the solution)
    let mut rows: Vec<(u32, u32)> = (0..32).map(|i| (crc_fold_model(0, &(1u32 << i).to_le_bytes()), 1u32 << i)).collect();
    let (mut v, mut sol) = (want, 0u32);
    for bit in 0..32 {
        let Some(p) = (0..rows.len()).find(|&r| rows[r].0 >> bit & 1 == 1) else { continue };
        let pivot = rows.remove(p);
        for r in rows.iter_mut() {
            if r.0 >> bit & 1 == 1 {
                r.0 ^= pivot.0;
                r.1 ^= pivot.1;
            }
        }
        if v >> bit & 1 == 1 {
            v ^= pivot.0;
            sol ^= pivot.1;
        }
    }
    assert_eq!(v, 0, "four bytes steer every CRC-32 register");
    sol.to_le_bytes()
}

/// The ICRC engine's byte masks per beat (`x & and | or`): beats 0..6, untagged (`u`) and
/// tagged (`t`); a beat not listed passes unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcMasks {
    pub and_0: u64,
    pub or_0: u64,
    pub and_1u: u64,
    pub or_1u: u64,
    pub and_1t: u64,
    pub or_1t: u64,
    pub and_2u: u64,
    pub or_2u: u64,
    pub and_2t: u64,
    pub or_2t: u64,
    pub and_3u: u64,
    pub or_3u: u64,
    pub and_3t: u64,
    pub or_3t: u64,
    pub and_5u: u64,
    pub or_5u: u64,
    pub and_5t: u64,
    pub or_5t: u64,
    pub and_6t: u64,
    pub or_6t: u64,
}

/// The forced bytes of the first 56 bytes of a frame as the ICRC engine sees them: (byte,
/// value), untagged or tagged. Bytes 0..l3 are the steering prefix (zeros, then the four
/// steering bytes); then the ICRC's invariant fields (IPv4 TOS, TTL, checksum; UDP
/// checksum; BTH resv8a) as 0xFF.
pub fn forced_bytes(tagged: bool) -> Vec<(usize, u8)> {
    let l3 = if tagged { 18 } else { 14 };
    let pre = crc_fold_model(CRC_INIT, &vec![0u8; l3 - 4]);
    let s = steer(pre, ICRC_SEED);
    let mut v: Vec<(usize, u8)> = (0..l3 - 4).map(|i| (i, 0)).collect();
    v.extend((0..4).map(|i| (l3 - 4 + i, s[i])));
    for o in [1, 8, 10, 11, 20 + 6, 20 + 7, 20 + 8 + 4] {
        v.push((l3 + o, 0xFF));
    }
    v
}

impl CrcMasks {
    pub fn compute() -> CrcMasks {
        let beat = |tagged: bool, b: usize| -> (u64, u64) {
            let (mut and, mut or) = (u64::MAX, 0u64);
            for (i, x) in forced_bytes(tagged) {
                if i / 8 == b {
                    and &= !(0xFFu64 << (8 * (i % 8)));
                    or |= u64::from(x) << (8 * (i % 8));
                }
            }
            (and, or)
        };
        let (and_0, or_0) = beat(false, 0);
        assert_eq!((and_0, or_0), beat(true, 0));
        let (and_1u, or_1u) = beat(false, 1);
        let (and_1t, or_1t) = beat(true, 1);
        let (and_2u, or_2u) = beat(false, 2);
        let (and_2t, or_2t) = beat(true, 2);
        let (and_3u, or_3u) = beat(false, 3);
        let (and_3t, or_3t) = beat(true, 3);
        let (and_5u, or_5u) = beat(false, 5);
        let (and_5t, or_5t) = beat(true, 5);
        let (and_6t, or_6t) = beat(true, 6);
        for b in [4, 6] {
            assert_eq!(beat(false, b), (u64::MAX, 0), "untagged beat {b} is not forced");
        }
        assert_eq!(beat(true, 4), (u64::MAX, 0));
        CrcMasks {
            and_0, or_0, and_1u, or_1u, and_1t, or_1t, and_2u, or_2u, and_2t, or_2t, and_3u, or_3u, and_3t, or_3t, and_5u, or_5u, and_5t,
            or_5t, and_6t, or_6t,
        }
    }
}

impl Parser {
    /// The parser (it has no parameters).
    pub fn new() -> Parser {
        Parser::build(&CrcMasks::compute())
    }
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(LogicBlock)]
pub struct Parser {
    // ---- inputs
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, bool>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_axis_tuser: Signal<In, bool>,
    pub m_hdr_ready: Signal<In, bool>,
    pub m_vrd_ready: Signal<In, bool>,
    // ---- outputs
    pub s_axis_tready: Signal<Out, bool>,
    pub m_hdr_valid: Signal<Out, bool>,
    pub m_hdr_opcode: Signal<Out, Bits<8>>,
    pub m_hdr_dest_qp: Signal<Out, Bits<24>>,
    pub m_hdr_psn: Signal<Out, Bits<24>>,
    pub m_hdr_path_id: Signal<Out, Bits<4>>,
    pub m_hdr_path_psn: Signal<Out, Bits<24>>,
    pub m_hdr_msn: Signal<Out, Bits<32>>,
    pub m_hdr_offset: Signal<Out, Bits<32>>,
    pub m_hdr_flags: Signal<Out, Bits<8>>,
    pub m_hdr_va: Signal<Out, Bits<64>>,
    pub m_hdr_rkey: Signal<Out, Bits<32>>,
    pub m_hdr_length: Signal<Out, Bits<32>>,
    pub m_hdr_ecn: Signal<Out, Bits<2>>,
    pub m_hdr_vlan: Signal<Out, bool>,
    pub m_hdr_ssn: Signal<Out, Bits<24>>,
    pub m_hdr_src: Signal<Out, Bits<32>>,
    pub m_hdr_pkey: Signal<Out, Bits<16>>,
    pub m_hdr_sport: Signal<Out, Bits<16>>,
    pub m_hdr_ack_req: Signal<Out, bool>,
    pub m_hdr_se: Signal<Out, bool>,
    pub m_hdr_ts: Signal<Out, Bits<32>>,
    pub m_vrd_valid: Signal<Out, bool>,
    pub m_vrd_keep: Signal<Out, bool>,
    // ---- status
    pub stat_drop_truncated_ethernet: Signal<Out, Bits<32>>,
    pub stat_drop_truncated_ipv4: Signal<Out, Bits<32>>,
    pub stat_drop_truncated_udp: Signal<Out, Bits<32>>,
    pub stat_drop_truncated_bth: Signal<Out, Bits<32>>,
    pub stat_drop_truncated_extension: Signal<Out, Bits<32>>,
    pub stat_drop_bad_ethertype: Signal<Out, Bits<32>>,
    pub stat_drop_bad_ip_version: Signal<Out, Bits<32>>,
    pub stat_drop_bad_ip_header_length: Signal<Out, Bits<32>>,
    pub stat_drop_bad_ip_total_length: Signal<Out, Bits<32>>,
    pub stat_drop_trailing_bytes: Signal<Out, Bits<32>>,
    pub stat_drop_bad_ip_checksum: Signal<Out, Bits<32>>,
    pub stat_drop_fragmented: Signal<Out, Bits<32>>,
    pub stat_drop_not_udp: Signal<Out, Bits<32>>,
    pub stat_drop_wrong_udp_port: Signal<Out, Bits<32>>,
    pub stat_drop_udp_length_mismatch: Signal<Out, Bits<32>>,
    pub stat_drop_bad_udp_checksum: Signal<Out, Bits<32>>,
    pub stat_drop_bad_icrc: Signal<Out, Bits<32>>,
    pub stat_drop_bad_transport_version: Signal<Out, Bits<32>>,
    pub stat_drop_unknown_opcode: Signal<Out, Bits<32>>,
    pub stat_drop_length_mismatch: Signal<Out, Bits<32>>,
    pub stat_drop_bad_pad_count: Signal<Out, Bits<32>>,
    pub stat_drop_bad_path_id: Signal<Out, Bits<32>>,
    pub stat_drop_sack_base_bit_set: Signal<Out, Bits<32>>,
    pub stat_drop_bad_nak_code: Signal<Out, Bits<32>>,
    pub stat_drop_mac_error: Signal<Out, Bits<32>>,
    pub stat_drop_bad_keep: Signal<Out, Bits<32>>,
    pub stat_drop_too_long: Signal<Out, Bits<32>>,
    pub stat_good_write: Signal<Out, Bits<32>>,
    pub stat_good_send: Signal<Out, Bits<32>>,
    pub stat_good_ack: Signal<Out, Bits<32>>,
    pub stat_good_nak: Signal<Out, Bits<32>>,
    pub stat_good_probe: Signal<Out, Bits<32>>,
    pub stat_good_probe_reply: Signal<Out, Bits<32>>,
    pub stat_last_verdict: Signal<Out, Bits<5>>,
    // ---- checksum primitives
    icrc: Crc32Stream<64>,
    ipsum: OnesSum<64, 8>,
    udpsum: OnesSum<64, 8>,
    // ---- registers and locals (stage by stage, see the update)
    ready_i: Signal<Local, bool>,
    go: Signal<Local, bool>,
    n: Signal<Local, Bits<4>>,
    contig: Signal<Local, bool>,
    keep_ok: Signal<Local, bool>,
    bcnt: DFF<Bits<4>>,
    cnt: DFF<Bits<14>>,
    acc_mac: DFF<bool>,
    acc_bk: DFF<bool>,
    acc_tl: DFF<bool>,
    tg: DFF<bool>,
    cnt_now: Signal<Local, Bits<14>>,
    mac_now: Signal<Local, bool>,
    bk_now: Signal<Local, bool>,
    tl_now: Signal<Local, bool>,
    rem: DFF<Bits<14>>,
    rem_small: Signal<Local, bool>,
    is_b0: Signal<Local, bool>,
    is_b1: Signal<Local, bool>,
    is_b2: Signal<Local, bool>,
    is_b3: Signal<Local, bool>,
    is_b4: Signal<Local, bool>,
    is_b5: Signal<Local, bool>,
    tg_b1: Signal<Local, bool>,
    hdr_l1: DFF<Bits<64>>,
    hdr_l2: DFF<Bits<64>>,
    hdr_l3: DFF<Bits<64>>,
    hdr_l4: DFF<Bits<64>>,
    hdr_l5: DFF<Bits<64>>,
    hdr_l6: DFF<Bits<64>>,
    hdr_l7: DFF<Bits<64>>,
    hdr_l8: DFF<Bits<64>>,
    hdr_l9: DFF<Bits<64>>,
    hdr_l10: DFF<Bits<64>>,
    hdr_l11: DFF<Bits<64>>,
    hdr_l12: DFF<Bits<64>>,
    hdr_l13: DFF<Bits<64>>,
    crc_and: Signal<Local, Bits<64>>,
    crc_or: Signal<Local, Bits<64>>,
    cm_and: DFF<Bits<64>>,
    cm_or: DFF<Bits<64>>,
    cm_b1: DFF<bool>,
    ip_keep: Signal<Local, Bits<8>>,
    ipk: DFF<Bits<8>>,
    udk: DFF<Bits<8>>,
    at_b0: DFF<bool>,
    ge3: Signal<Local, bool>,
    ip_add: Signal<Local, Bits<16>>,
    udp_keep: Signal<Local, Bits<8>>,
    udp_add: Signal<Local, Bits<16>>,
    cu: DFF<Bits<16>>,
    ct: DFF<Bits<16>>,
    u_sel: Signal<Local, Bits<16>>,
    f1_valid: DFF<bool>,
    f1_n: DFF<Bits<14>>,
    f1_mac: DFF<bool>,
    f1_bk: DFF<bool>,
    f1_tl: DFF<bool>,
    hdr_wide: Signal<Local, Bits<896>>,
    hdr_tag: Signal<Local, bool>,
    hdr_norm: Signal<Local, Bits<896>>,
    x_et: Signal<Local, Bits<16>>,
    x_vi: Signal<Local, Bits<8>>,
    x_total: Signal<Local, Bits<16>>,
    x_ff: Signal<Local, Bits<16>>,
    x_proto: Signal<Local, Bits<8>>,
    x_dport: Signal<Local, Bits<16>>,
    x_ulen: Signal<Local, Bits<16>>,
    x_ucs: Signal<Local, Bits<16>>,
    x_op: Signal<Local, Bits<8>>,
    x_tv: Signal<Local, Bits<4>>,
    x_pad: Signal<Local, Bits<2>>,
    x_qp: Signal<Local, Bits<24>>,
    x_psn: Signal<Local, Bits<24>>,
    x_b0: Signal<Local, Bits<8>>,
    x_b1: Signal<Local, Bits<8>>,
    x_ppsn: Signal<Local, Bits<24>>,
    x_msn: Signal<Local, Bits<32>>,
    x_off: Signal<Local, Bits<32>>,
    x_dflags: Signal<Local, Bits<8>>,
    x_aflags: Signal<Local, Bits<8>>,
    x_va: Signal<Local, Bits<64>>,
    x_rkey: Signal<Local, Bits<32>>,
    x_len: Signal<Local, Bits<32>>,
    x_ssn: Signal<Local, Bits<24>>,
    x_src: Signal<Local, Bits<32>>,
    x_pkey: Signal<Local, Bits<16>>,
    x_sport: Signal<Local, Bits<16>>,
    x_areq: Signal<Local, bool>,
    x_se: Signal<Local, bool>,
    x_ts: Signal<Local, Bits<32>>,
    x_ecn: Signal<Local, Bits<2>>,
    x_sack0: Signal<Local, bool>,
    x_vlan: Signal<Local, bool>,
    rem3: Signal<Local, Bits<16>>,
    rem4: Signal<Local, Bits<16>>,
    c_tr_eth: Signal<Local, bool>,
    f2_valid: DFF<bool>,
    f2_c_tr_eth: DFF<bool>,
    f2_c_mac: DFF<bool>,
    f2_c_bk: DFF<bool>,
    f2_c_tl: DFF<bool>,
    f2_rem3: DFF<Bits<16>>,
    f2_rem4: DFF<Bits<16>>,
    f2_x_et: DFF<Bits<16>>,
    f2_x_vi: DFF<Bits<8>>,
    f2_x_total: DFF<Bits<16>>,
    f2_x_ff: DFF<Bits<16>>,
    f2_x_proto: DFF<Bits<8>>,
    f2_x_dport: DFF<Bits<16>>,
    f2_x_ulen: DFF<Bits<16>>,
    f2_x_ucs: DFF<Bits<16>>,
    f2_x_op: DFF<Bits<8>>,
    f2_x_tv: DFF<Bits<4>>,
    f2_x_pad: DFF<Bits<2>>,
    f2_x_qp: DFF<Bits<24>>,
    f2_x_psn: DFF<Bits<24>>,
    f2_x_b0: DFF<Bits<8>>,
    f2_x_b1: DFF<Bits<8>>,
    f2_x_ppsn: DFF<Bits<24>>,
    f2_x_msn: DFF<Bits<32>>,
    f2_x_off: DFF<Bits<32>>,
    f2_x_dflags: DFF<Bits<8>>,
    f2_x_aflags: DFF<Bits<8>>,
    f2_x_va: DFF<Bits<64>>,
    f2_x_rkey: DFF<Bits<32>>,
    f2_x_len: DFF<Bits<32>>,
    f2_x_ecn: DFF<Bits<2>>,
    f2_x_sack0: DFF<bool>,
    f2_x_vlan: DFF<bool>,
    f2_x_ssn: DFF<Bits<24>>,
    f2_x_src: DFF<Bits<32>>,
    f2_x_pkey: DFF<Bits<16>>,
    f2_x_sport: DFF<Bits<16>>,
    f2_x_areq: DFF<bool>,
    f2_x_se: DFF<bool>,
    f2_x_ts: DFF<Bits<32>>,
    ge44: Signal<Local, bool>,
    lt56: Signal<Local, bool>,
    lt80: Signal<Local, bool>,
    lt96: Signal<Local, bool>,
    d_tot80: Signal<Local, Bits<16>>,
    c_ethertype: Signal<Local, bool>,
    c_tr_ip1: Signal<Local, bool>,
    c_ver: Signal<Local, bool>,
    c_ihl: Signal<Local, bool>,
    c_tot: Signal<Local, bool>,
    c_tr_ip2: Signal<Local, bool>,
    c_trail: Signal<Local, bool>,
    c_frag: Signal<Local, bool>,
    c_notudp: Signal<Local, bool>,
    c_tr_udp: Signal<Local, bool>,
    c_port: Signal<Local, bool>,
    c_ulen: Signal<Local, bool>,
    c_ucs_nz: Signal<Local, bool>,
    c_tr_bth: Signal<Local, bool>,
    c_tver: Signal<Local, bool>,
    c_op: Signal<Local, bool>,
    c_tr_ext: Signal<Local, bool>,
    c_lm: Signal<Local, bool>,
    c_pad: Signal<Local, bool>,
    c_path: Signal<Local, bool>,
    c_sack: Signal<Local, bool>,
    c_nak: Signal<Local, bool>,
    c_mac: Signal<Local, bool>,
    c_bk: Signal<Local, bool>,
    c_tl: Signal<Local, bool>,
    is_w: Signal<Local, bool>,
    is_s: Signal<Local, bool>,
    is_a: Signal<Local, bool>,
    is_n: Signal<Local, bool>,
    is_p: Signal<Local, bool>,
    is_pr: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    is_fixed: Signal<Local, bool>,
    d_exp: Signal<Local, Bits<16>>,
    d_wpad: Signal<Local, Bits<2>>,
    pid: Signal<Local, Bits<8>>,
    r_opcode: Signal<Local, Bits<8>>,
    r_dest_qp: Signal<Local, Bits<24>>,
    r_psn: Signal<Local, Bits<24>>,
    r_path_id: Signal<Local, Bits<4>>,
    r_path_psn: Signal<Local, Bits<24>>,
    r_msn: Signal<Local, Bits<32>>,
    r_offset: Signal<Local, Bits<32>>,
    r_flags: Signal<Local, Bits<8>>,
    r_va: Signal<Local, Bits<64>>,
    r_rkey: Signal<Local, Bits<32>>,
    r_length: Signal<Local, Bits<32>>,
    r_ecn: Signal<Local, Bits<2>>,
    r_vlan: Signal<Local, bool>,
    r_ssn: Signal<Local, Bits<24>>,
    r_ts: Signal<Local, Bits<32>>,
    f3_valid: DFF<bool>,
    f3_c_tr_eth: DFF<bool>,
    f3_c_ethertype: DFF<bool>,
    f3_c_tr_ip1: DFF<bool>,
    f3_c_ver: DFF<bool>,
    f3_c_ihl: DFF<bool>,
    f3_c_tot: DFF<bool>,
    f3_c_tr_ip2: DFF<bool>,
    f3_c_trail: DFF<bool>,
    f3_c_frag: DFF<bool>,
    f3_c_notudp: DFF<bool>,
    f3_c_tr_udp: DFF<bool>,
    f3_c_port: DFF<bool>,
    f3_c_ulen: DFF<bool>,
    f3_c_ucs_nz: DFF<bool>,
    f3_c_tr_bth: DFF<bool>,
    f3_c_tver: DFF<bool>,
    f3_c_op: DFF<bool>,
    f3_c_tr_ext: DFF<bool>,
    f3_c_lm: DFF<bool>,
    f3_c_pad: DFF<bool>,
    f3_c_path: DFF<bool>,
    f3_c_sack: DFF<bool>,
    f3_c_nak: DFF<bool>,
    f3_c_mac: DFF<bool>,
    f3_c_bk: DFF<bool>,
    f3_c_tl: DFF<bool>,
    f3_r_opcode: DFF<Bits<8>>,
    f3_r_dest_qp: DFF<Bits<24>>,
    f3_r_psn: DFF<Bits<24>>,
    f3_r_path_id: DFF<Bits<4>>,
    f3_r_path_psn: DFF<Bits<24>>,
    f3_r_msn: DFF<Bits<32>>,
    f3_r_offset: DFF<Bits<32>>,
    f3_r_flags: DFF<Bits<8>>,
    f3_r_va: DFF<Bits<64>>,
    f3_r_rkey: DFF<Bits<32>>,
    f3_r_length: DFF<Bits<32>>,
    f3_r_ecn: DFF<Bits<2>>,
    f3_r_vlan: DFF<bool>,
    f3_r_ssn: DFF<Bits<24>>,
    f3_r_src: DFF<Bits<32>>,
    f3_r_pkey: DFF<Bits<16>>,
    f3_r_sport: DFF<Bits<16>>,
    f3_r_ack_req: DFF<bool>,
    f3_r_se: DFF<bool>,
    f3_r_ts: DFF<Bits<32>>,
    code_a: Signal<Local, Bits<5>>,
    any_a: Signal<Local, bool>,
    code_b: Signal<Local, Bits<5>>,
    any_b: Signal<Local, bool>,
    code_d: Signal<Local, Bits<5>>,
    any_d: Signal<Local, bool>,
    f4_valid: DFF<bool>,
    f4_code_a: DFF<Bits<5>>,
    f4_any_a: DFF<bool>,
    f4_code_b: DFF<Bits<5>>,
    f4_any_b: DFF<bool>,
    f4_any_c: DFF<bool>,
    f4_code_d: DFF<Bits<5>>,
    f4_any_d: DFF<bool>,
    f4_c_ucs_nz: DFF<bool>,
    f4_r_opcode: DFF<Bits<8>>,
    f4_r_dest_qp: DFF<Bits<24>>,
    f4_r_psn: DFF<Bits<24>>,
    f4_r_path_id: DFF<Bits<4>>,
    f4_r_path_psn: DFF<Bits<24>>,
    f4_r_msn: DFF<Bits<32>>,
    f4_r_offset: DFF<Bits<32>>,
    f4_r_flags: DFF<Bits<8>>,
    f4_r_va: DFF<Bits<64>>,
    f4_r_rkey: DFF<Bits<32>>,
    f4_r_length: DFF<Bits<32>>,
    f4_r_ecn: DFF<Bits<2>>,
    f4_r_vlan: DFF<bool>,
    f4_r_ssn: DFF<Bits<24>>,
    f4_r_src: DFF<Bits<32>>,
    f4_r_pkey: DFF<Bits<16>>,
    f4_r_sport: DFF<Bits<16>>,
    f4_r_ack_req: DFF<bool>,
    f4_r_se: DFF<bool>,
    f4_r_ts: DFF<Bits<32>>,
    f4_dpay: DFF<bool>,
    s4_ip_ok: DFF<bool>,
    s4_udp_ok: DFF<bool>,
    crc_ok: Signal<Local, bool>,
    udp_bad: Signal<Local, bool>,
    p_a: Signal<Local, bool>,
    p_ip: Signal<Local, bool>,
    p_b: Signal<Local, bool>,
    p_u: Signal<Local, bool>,
    p_c: Signal<Local, bool>,
    sel_ip: Signal<Local, bool>,
    sel_b: Signal<Local, bool>,
    sel_u: Signal<Local, bool>,
    sel_c: Signal<Local, bool>,
    good_pre: Signal<Local, bool>,
    code: Signal<Local, Bits<5>>,
    code_ok: Signal<Local, Bits<5>>,
    code_bad: Signal<Local, Bits<5>>,
    pre_truncated_ethernet: Signal<Local, bool>,
    dk_truncated_ethernet: Signal<Local, bool>,
    hit_truncated_ethernet: Signal<Local, bool>,
    pre_truncated_ipv4: Signal<Local, bool>,
    dk_truncated_ipv4: Signal<Local, bool>,
    hit_truncated_ipv4: Signal<Local, bool>,
    pre_truncated_udp: Signal<Local, bool>,
    dk_truncated_udp: Signal<Local, bool>,
    hit_truncated_udp: Signal<Local, bool>,
    pre_truncated_bth: Signal<Local, bool>,
    dk_truncated_bth: Signal<Local, bool>,
    hit_truncated_bth: Signal<Local, bool>,
    pre_truncated_extension: Signal<Local, bool>,
    dk_truncated_extension: Signal<Local, bool>,
    hit_truncated_extension: Signal<Local, bool>,
    pre_bad_ethertype: Signal<Local, bool>,
    dk_bad_ethertype: Signal<Local, bool>,
    hit_bad_ethertype: Signal<Local, bool>,
    pre_bad_ip_version: Signal<Local, bool>,
    dk_bad_ip_version: Signal<Local, bool>,
    hit_bad_ip_version: Signal<Local, bool>,
    pre_bad_ip_header_length: Signal<Local, bool>,
    dk_bad_ip_header_length: Signal<Local, bool>,
    hit_bad_ip_header_length: Signal<Local, bool>,
    pre_bad_ip_total_length: Signal<Local, bool>,
    dk_bad_ip_total_length: Signal<Local, bool>,
    hit_bad_ip_total_length: Signal<Local, bool>,
    pre_trailing_bytes: Signal<Local, bool>,
    dk_trailing_bytes: Signal<Local, bool>,
    hit_trailing_bytes: Signal<Local, bool>,
    pre_bad_ip_checksum: Signal<Local, bool>,
    dk_bad_ip_checksum: Signal<Local, bool>,
    hit_bad_ip_checksum: Signal<Local, bool>,
    pre_fragmented: Signal<Local, bool>,
    dk_fragmented: Signal<Local, bool>,
    hit_fragmented: Signal<Local, bool>,
    pre_not_udp: Signal<Local, bool>,
    dk_not_udp: Signal<Local, bool>,
    hit_not_udp: Signal<Local, bool>,
    pre_wrong_udp_port: Signal<Local, bool>,
    dk_wrong_udp_port: Signal<Local, bool>,
    hit_wrong_udp_port: Signal<Local, bool>,
    pre_udp_length_mismatch: Signal<Local, bool>,
    dk_udp_length_mismatch: Signal<Local, bool>,
    hit_udp_length_mismatch: Signal<Local, bool>,
    pre_bad_udp_checksum: Signal<Local, bool>,
    dk_bad_udp_checksum: Signal<Local, bool>,
    hit_bad_udp_checksum: Signal<Local, bool>,
    pre_bad_icrc: Signal<Local, bool>,
    dk_bad_icrc: Signal<Local, bool>,
    hit_bad_icrc: Signal<Local, bool>,
    pre_bad_transport_version: Signal<Local, bool>,
    dk_bad_transport_version: Signal<Local, bool>,
    hit_bad_transport_version: Signal<Local, bool>,
    pre_unknown_opcode: Signal<Local, bool>,
    dk_unknown_opcode: Signal<Local, bool>,
    hit_unknown_opcode: Signal<Local, bool>,
    pre_length_mismatch: Signal<Local, bool>,
    dk_length_mismatch: Signal<Local, bool>,
    hit_length_mismatch: Signal<Local, bool>,
    pre_bad_pad_count: Signal<Local, bool>,
    dk_bad_pad_count: Signal<Local, bool>,
    hit_bad_pad_count: Signal<Local, bool>,
    pre_bad_path_id: Signal<Local, bool>,
    dk_bad_path_id: Signal<Local, bool>,
    hit_bad_path_id: Signal<Local, bool>,
    pre_sack_base_bit_set: Signal<Local, bool>,
    dk_sack_base_bit_set: Signal<Local, bool>,
    hit_sack_base_bit_set: Signal<Local, bool>,
    pre_bad_nak_code: Signal<Local, bool>,
    dk_bad_nak_code: Signal<Local, bool>,
    hit_bad_nak_code: Signal<Local, bool>,
    pre_mac_error: Signal<Local, bool>,
    dk_mac_error: Signal<Local, bool>,
    hit_mac_error: Signal<Local, bool>,
    pre_bad_keep: Signal<Local, bool>,
    dk_bad_keep: Signal<Local, bool>,
    hit_bad_keep: Signal<Local, bool>,
    pre_too_long: Signal<Local, bool>,
    dk_too_long: Signal<Local, bool>,
    hit_too_long: Signal<Local, bool>,
    gk_write: Signal<Local, bool>,
    gk_send: Signal<Local, bool>,
    gk_ack: Signal<Local, bool>,
    gk_nak: Signal<Local, bool>,
    gk_probe: Signal<Local, bool>,
    gk_probe_reply: Signal<Local, bool>,
    o_valid: DFF<bool>,
    o_opcode: DFF<Bits<8>>,
    o_dest_qp: DFF<Bits<24>>,
    o_psn: DFF<Bits<24>>,
    o_path_id: DFF<Bits<4>>,
    o_path_psn: DFF<Bits<24>>,
    o_msn: DFF<Bits<32>>,
    o_offset: DFF<Bits<32>>,
    o_flags: DFF<Bits<8>>,
    o_va: DFF<Bits<64>>,
    o_rkey: DFF<Bits<32>>,
    o_length: DFF<Bits<32>>,
    o_ecn: DFF<Bits<2>>,
    o_vlan: DFF<bool>,
    o_ssn: DFF<Bits<24>>,
    o_src: DFF<Bits<32>>,
    o_pkey: DFF<Bits<16>>,
    o_sport: DFF<Bits<16>>,
    o_ack_req: DFF<bool>,
    o_se: DFF<bool>,
    o_ts: DFF<Bits<32>>,
    n_drop_truncated_ethernet: DFF<Bits<32>>,
    n_drop_truncated_ipv4: DFF<Bits<32>>,
    n_drop_truncated_udp: DFF<Bits<32>>,
    n_drop_truncated_bth: DFF<Bits<32>>,
    n_drop_truncated_extension: DFF<Bits<32>>,
    n_drop_bad_ethertype: DFF<Bits<32>>,
    n_drop_bad_ip_version: DFF<Bits<32>>,
    n_drop_bad_ip_header_length: DFF<Bits<32>>,
    n_drop_bad_ip_total_length: DFF<Bits<32>>,
    n_drop_trailing_bytes: DFF<Bits<32>>,
    n_drop_bad_ip_checksum: DFF<Bits<32>>,
    n_drop_fragmented: DFF<Bits<32>>,
    n_drop_not_udp: DFF<Bits<32>>,
    n_drop_wrong_udp_port: DFF<Bits<32>>,
    n_drop_udp_length_mismatch: DFF<Bits<32>>,
    n_drop_bad_udp_checksum: DFF<Bits<32>>,
    n_drop_bad_icrc: DFF<Bits<32>>,
    n_drop_bad_transport_version: DFF<Bits<32>>,
    n_drop_unknown_opcode: DFF<Bits<32>>,
    n_drop_length_mismatch: DFF<Bits<32>>,
    n_drop_bad_pad_count: DFF<Bits<32>>,
    n_drop_bad_path_id: DFF<Bits<32>>,
    n_drop_sack_base_bit_set: DFF<Bits<32>>,
    n_drop_bad_nak_code: DFF<Bits<32>>,
    n_drop_mac_error: DFF<Bits<32>>,
    n_drop_bad_keep: DFF<Bits<32>>,
    n_drop_too_long: DFF<Bits<32>>,
    n_good_write: DFF<Bits<32>>,
    n_good_send: DFF<Bits<32>>,
    n_good_ack: DFF<Bits<32>>,
    n_good_nak: DFF<Bits<32>>,
    n_good_probe: DFF<Bits<32>>,
    n_good_probe_reply: DFF<Bits<32>>,
    o_last: DFF<Bits<5>>,
    vq: DFF<Bits<8>>,
    vq_wp: DFF<Bits<3>>,
    vq_rp: DFF<Bits<3>>,
    vq_n: DFF<Bits<4>>,
    vq_push: Signal<Local, bool>,
    vq_pop: Signal<Local, bool>,
    vq_keep: Signal<Local, bool>,
    vq_bit: Signal<Local, Bits<8>>,
    k_n0: Constant<Bits<4>>,
    k_n1: Constant<Bits<4>>,
    k_n2: Constant<Bits<4>>,
    k_n3: Constant<Bits<4>>,
    k_n4: Constant<Bits<4>>,
    k_n5: Constant<Bits<4>>,
    k_n6: Constant<Bits<4>>,
    k_n7: Constant<Bits<4>>,
    k_n8: Constant<Bits<4>>,
    k_max: Constant<Bits<14>>,
    k_z10: Constant<Bits<10>>,
    k_b0: Constant<Bits<4>>,
    k_b1: Constant<Bits<4>>,
    k_b2: Constant<Bits<4>>,
    k_b3: Constant<Bits<4>>,
    k_b4: Constant<Bits<4>>,
    k_b5: Constant<Bits<4>>,
    k_b6: Constant<Bits<4>>,
    k_b7: Constant<Bits<4>>,
    k_b8: Constant<Bits<4>>,
    k_b9: Constant<Bits<4>>,
    k_b10: Constant<Bits<4>>,
    k_b11: Constant<Bits<4>>,
    k_b12: Constant<Bits<4>>,
    k_b13: Constant<Bits<4>>,
    k_b15: Constant<Bits<4>>,
    k_tpid_le: Constant<Bits<16>>,
    k_z14: Constant<Bits<14>>,
    k_ones64: Constant<Bits<64>>,
    k_z64: Constant<Bits<64>>,
    k_cand_0: Constant<Bits<64>>,
    k_cor_0: Constant<Bits<64>>,
    k_cand_1u: Constant<Bits<64>>,
    k_cor_1u: Constant<Bits<64>>,
    k_cand_2u: Constant<Bits<64>>,
    k_cor_2u: Constant<Bits<64>>,
    k_cand_2t: Constant<Bits<64>>,
    k_cor_2t: Constant<Bits<64>>,
    k_cand_3u: Constant<Bits<64>>,
    k_cor_3u: Constant<Bits<64>>,
    k_cand_3t: Constant<Bits<64>>,
    k_cor_3t: Constant<Bits<64>>,
    k_cand_5u: Constant<Bits<64>>,
    k_cor_5u: Constant<Bits<64>>,
    k_cand_5t: Constant<Bits<64>>,
    k_cor_5t: Constant<Bits<64>>,
    k_cand_6t: Constant<Bits<64>>,
    k_cor_6t: Constant<Bits<64>>,
    k_dand_1: Constant<Bits<64>>,
    k_dor_1: Constant<Bits<64>>,
    k_z8: Constant<Bits<8>>,
    k_ff8: Constant<Bits<8>>,
    k_ipk1u: Constant<Bits<8>>,
    k_ipk2t: Constant<Bits<8>>,
    k_ipk4u: Constant<Bits<8>>,
    k_ipk4t: Constant<Bits<8>>,
    k_z16: Constant<Bits<16>>,
    k_uk3u: Constant<Bits<8>>,
    k_uk3t: Constant<Bits<8>>,
    k_addu: Constant<Bits<16>>,
    k_addt: Constant<Bits<16>>,
    k_14n: Constant<Bits<14>>,
    k_18n: Constant<Bits<14>>,
    k_14: Constant<Bits<16>>,
    k_18: Constant<Bits<16>>,
    k_34: Constant<Bits<16>>,
    k_38: Constant<Bits<16>>,
    k_20: Constant<Bits<16>>,
    k_8: Constant<Bits<16>>,
    k_24: Constant<Bits<16>>,
    k_44: Constant<Bits<16>>,
    k_56: Constant<Bits<16>>,
    k_80: Constant<Bits<16>>,
    k_96: Constant<Bits<16>>,
    k_et_ipv4: Constant<Bits<16>>,
    k_4: Constant<Bits<4>>,
    k_5: Constant<Bits<4>>,
    k_ffmask: Constant<Bits<16>>,
    k_17: Constant<Bits<8>>,
    k_port: Constant<Bits<16>>,
    k_opw: Constant<Bits<8>>,
    k_ops: Constant<Bits<8>>,
    k_opa: Constant<Bits<8>>,
    k_opn: Constant<Bits<8>>,
    k_opp: Constant<Bits<8>>,
    k_oppr: Constant<Bits<8>>,
    k_z4: Constant<Bits<4>>,
    k_z2: Constant<Bits<2>>,
    k_z18: Constant<Bits<18>>,
    k_6: Constant<Bits<8>>,
    k_z24: Constant<Bits<24>>,
    k_z32: Constant<Bits<32>>,
    k_z64b: Constant<Bits<64>>,
    k_c0: Constant<Bits<5>>,
    k_c1: Constant<Bits<5>>,
    k_c2: Constant<Bits<5>>,
    k_c3: Constant<Bits<5>>,
    k_c4: Constant<Bits<5>>,
    k_c5: Constant<Bits<5>>,
    k_c6: Constant<Bits<5>>,
    k_c7: Constant<Bits<5>>,
    k_c8: Constant<Bits<5>>,
    k_c9: Constant<Bits<5>>,
    k_c10: Constant<Bits<5>>,
    k_c11: Constant<Bits<5>>,
    k_c12: Constant<Bits<5>>,
    k_c13: Constant<Bits<5>>,
    k_c14: Constant<Bits<5>>,
    k_c15: Constant<Bits<5>>,
    k_c16: Constant<Bits<5>>,
    k_c17: Constant<Bits<5>>,
    k_c18: Constant<Bits<5>>,
    k_c19: Constant<Bits<5>>,
    k_c20: Constant<Bits<5>>,
    k_c21: Constant<Bits<5>>,
    k_c22: Constant<Bits<5>>,
    k_c23: Constant<Bits<5>>,
    k_c24: Constant<Bits<5>>,
    k_c25: Constant<Bits<5>>,
    k_c26: Constant<Bits<5>>,
    k_c27: Constant<Bits<5>>,
    k_ffff: Constant<Bits<16>>,
    k_residue: Constant<Bits<32>>,
    k_vq_room: Constant<Bits<4>>,
    k_z3: Constant<Bits<3>>,
    k_one4: Constant<Bits<4>>,
    k_one3: Constant<Bits<3>>,
    k_one8: Constant<Bits<8>>,
    k_none: Constant<Bits<5>>,
    k_z32b: Constant<Bits<32>>,
}

impl Parser {
    fn build(m: &CrcMasks) -> Parser {
        Parser {
            clock: Default::default(),
            rst: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tuser: Default::default(),
            m_hdr_ready: Default::default(),
            m_vrd_ready: Default::default(),
            s_axis_tready: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_opcode: Default::default(),
            m_hdr_dest_qp: Default::default(),
            m_hdr_psn: Default::default(),
            m_hdr_path_id: Default::default(),
            m_hdr_path_psn: Default::default(),
            m_hdr_msn: Default::default(),
            m_hdr_offset: Default::default(),
            m_hdr_flags: Default::default(),
            m_hdr_va: Default::default(),
            m_hdr_rkey: Default::default(),
            m_hdr_length: Default::default(),
            m_hdr_ecn: Default::default(),
            m_hdr_vlan: Default::default(),
            m_hdr_ssn: Default::default(),
            m_hdr_src: Default::default(),
            m_hdr_pkey: Default::default(),
            m_hdr_sport: Default::default(),
            m_hdr_ack_req: Default::default(),
            m_hdr_se: Default::default(),
            m_hdr_ts: Default::default(),
            m_vrd_valid: Default::default(),
            m_vrd_keep: Default::default(),
            stat_drop_truncated_ethernet: Default::default(),
            stat_drop_truncated_ipv4: Default::default(),
            stat_drop_truncated_udp: Default::default(),
            stat_drop_truncated_bth: Default::default(),
            stat_drop_truncated_extension: Default::default(),
            stat_drop_bad_ethertype: Default::default(),
            stat_drop_bad_ip_version: Default::default(),
            stat_drop_bad_ip_header_length: Default::default(),
            stat_drop_bad_ip_total_length: Default::default(),
            stat_drop_trailing_bytes: Default::default(),
            stat_drop_bad_ip_checksum: Default::default(),
            stat_drop_fragmented: Default::default(),
            stat_drop_not_udp: Default::default(),
            stat_drop_wrong_udp_port: Default::default(),
            stat_drop_udp_length_mismatch: Default::default(),
            stat_drop_bad_udp_checksum: Default::default(),
            stat_drop_bad_icrc: Default::default(),
            stat_drop_bad_transport_version: Default::default(),
            stat_drop_unknown_opcode: Default::default(),
            stat_drop_length_mismatch: Default::default(),
            stat_drop_bad_pad_count: Default::default(),
            stat_drop_bad_path_id: Default::default(),
            stat_drop_sack_base_bit_set: Default::default(),
            stat_drop_bad_nak_code: Default::default(),
            stat_drop_mac_error: Default::default(),
            stat_drop_bad_keep: Default::default(),
            stat_drop_too_long: Default::default(),
            stat_good_write: Default::default(),
            stat_good_send: Default::default(),
            stat_good_ack: Default::default(),
            stat_good_nak: Default::default(),
            stat_good_probe: Default::default(),
            stat_good_probe_reply: Default::default(),
            stat_last_verdict: Default::default(),
            icrc: Crc32Stream::new(CRC_INIT),
            ipsum: OnesSum::new(),
            udpsum: OnesSum::new(),
            ready_i: Default::default(),
            go: Default::default(),
            n: Default::default(),
            contig: Default::default(),
            keep_ok: Default::default(),
            bcnt: Default::default(),
            cnt: Default::default(),
            acc_mac: Default::default(),
            acc_bk: Default::default(),
            acc_tl: Default::default(),
            tg: Default::default(),
            cnt_now: Default::default(),
            mac_now: Default::default(),
            bk_now: Default::default(),
            tl_now: Default::default(),
            rem: Default::default(),
            rem_small: Default::default(),
            is_b0: Default::default(),
            is_b1: Default::default(),
            is_b2: Default::default(),
            is_b3: Default::default(),
            is_b4: Default::default(),
            is_b5: Default::default(),
            tg_b1: Default::default(),
            hdr_l1: Default::default(),
            hdr_l2: Default::default(),
            hdr_l3: Default::default(),
            hdr_l4: Default::default(),
            hdr_l5: Default::default(),
            hdr_l6: Default::default(),
            hdr_l7: Default::default(),
            hdr_l8: Default::default(),
            hdr_l9: Default::default(),
            hdr_l10: Default::default(),
            hdr_l11: Default::default(),
            hdr_l12: Default::default(),
            hdr_l13: Default::default(),
            crc_and: Default::default(),
            crc_or: Default::default(),
            cm_and: Default::default(),
            cm_or: Default::default(),
            cm_b1: Default::default(),
            ip_keep: Default::default(),
            ipk: Default::default(),
            udk: Default::default(),
            at_b0: Default::default(),
            ge3: Default::default(),
            ip_add: Default::default(),
            udp_keep: Default::default(),
            udp_add: Default::default(),
            cu: Default::default(),
            ct: Default::default(),
            u_sel: Default::default(),
            f1_valid: Default::default(),
            f1_n: Default::default(),
            f1_mac: Default::default(),
            f1_bk: Default::default(),
            f1_tl: Default::default(),
            hdr_wide: Default::default(),
            hdr_tag: Default::default(),
            hdr_norm: Default::default(),
            x_et: Default::default(),
            x_vi: Default::default(),
            x_total: Default::default(),
            x_ff: Default::default(),
            x_proto: Default::default(),
            x_dport: Default::default(),
            x_ulen: Default::default(),
            x_ucs: Default::default(),
            x_op: Default::default(),
            x_tv: Default::default(),
            x_pad: Default::default(),
            x_qp: Default::default(),
            x_psn: Default::default(),
            x_b0: Default::default(),
            x_b1: Default::default(),
            x_ppsn: Default::default(),
            x_msn: Default::default(),
            x_off: Default::default(),
            x_dflags: Default::default(),
            x_aflags: Default::default(),
            x_va: Default::default(),
            x_rkey: Default::default(),
            x_len: Default::default(),
            x_ssn: Default::default(),
            x_src: Default::default(),
            x_pkey: Default::default(),
            x_sport: Default::default(),
            x_areq: Default::default(),
            x_se: Default::default(),
            x_ts: Default::default(),
            x_ecn: Default::default(),
            x_sack0: Default::default(),
            x_vlan: Default::default(),
            rem3: Default::default(),
            rem4: Default::default(),
            c_tr_eth: Default::default(),
            f2_valid: Default::default(),
            f2_c_tr_eth: Default::default(),
            f2_c_mac: Default::default(),
            f2_c_bk: Default::default(),
            f2_c_tl: Default::default(),
            f2_rem3: Default::default(),
            f2_rem4: Default::default(),
            f2_x_et: Default::default(),
            f2_x_vi: Default::default(),
            f2_x_total: Default::default(),
            f2_x_ff: Default::default(),
            f2_x_proto: Default::default(),
            f2_x_dport: Default::default(),
            f2_x_ulen: Default::default(),
            f2_x_ucs: Default::default(),
            f2_x_op: Default::default(),
            f2_x_tv: Default::default(),
            f2_x_pad: Default::default(),
            f2_x_qp: Default::default(),
            f2_x_psn: Default::default(),
            f2_x_b0: Default::default(),
            f2_x_b1: Default::default(),
            f2_x_ppsn: Default::default(),
            f2_x_msn: Default::default(),
            f2_x_off: Default::default(),
            f2_x_dflags: Default::default(),
            f2_x_aflags: Default::default(),
            f2_x_va: Default::default(),
            f2_x_rkey: Default::default(),
            f2_x_len: Default::default(),
            f2_x_ecn: Default::default(),
            f2_x_sack0: Default::default(),
            f2_x_vlan: Default::default(),
            f2_x_ssn: Default::default(),
            f2_x_src: Default::default(),
            f2_x_pkey: Default::default(),
            f2_x_sport: Default::default(),
            f2_x_areq: Default::default(),
            f2_x_se: Default::default(),
            f2_x_ts: Default::default(),
            ge44: Default::default(),
            lt56: Default::default(),
            lt80: Default::default(),
            lt96: Default::default(),
            d_tot80: Default::default(),
            c_ethertype: Default::default(),
            c_tr_ip1: Default::default(),
            c_ver: Default::default(),
            c_ihl: Default::default(),
            c_tot: Default::default(),
            c_tr_ip2: Default::default(),
            c_trail: Default::default(),
            c_frag: Default::default(),
            c_notudp: Default::default(),
            c_tr_udp: Default::default(),
            c_port: Default::default(),
            c_ulen: Default::default(),
            c_ucs_nz: Default::default(),
            c_tr_bth: Default::default(),
            c_tver: Default::default(),
            c_op: Default::default(),
            c_tr_ext: Default::default(),
            c_lm: Default::default(),
            c_pad: Default::default(),
            c_path: Default::default(),
            c_sack: Default::default(),
            c_nak: Default::default(),
            c_mac: Default::default(),
            c_bk: Default::default(),
            c_tl: Default::default(),
            is_w: Default::default(),
            is_s: Default::default(),
            is_a: Default::default(),
            is_n: Default::default(),
            is_p: Default::default(),
            is_pr: Default::default(),
            is_data: Default::default(),
            is_fixed: Default::default(),
            d_exp: Default::default(),
            d_wpad: Default::default(),
            pid: Default::default(),
            r_opcode: Default::default(),
            r_dest_qp: Default::default(),
            r_psn: Default::default(),
            r_path_id: Default::default(),
            r_path_psn: Default::default(),
            r_msn: Default::default(),
            r_offset: Default::default(),
            r_flags: Default::default(),
            r_va: Default::default(),
            r_rkey: Default::default(),
            r_length: Default::default(),
            r_ecn: Default::default(),
            r_vlan: Default::default(),
            r_ssn: Default::default(),
            r_ts: Default::default(),
            f3_valid: Default::default(),
            f3_c_tr_eth: Default::default(),
            f3_c_ethertype: Default::default(),
            f3_c_tr_ip1: Default::default(),
            f3_c_ver: Default::default(),
            f3_c_ihl: Default::default(),
            f3_c_tot: Default::default(),
            f3_c_tr_ip2: Default::default(),
            f3_c_trail: Default::default(),
            f3_c_frag: Default::default(),
            f3_c_notudp: Default::default(),
            f3_c_tr_udp: Default::default(),
            f3_c_port: Default::default(),
            f3_c_ulen: Default::default(),
            f3_c_ucs_nz: Default::default(),
            f3_c_tr_bth: Default::default(),
            f3_c_tver: Default::default(),
            f3_c_op: Default::default(),
            f3_c_tr_ext: Default::default(),
            f3_c_lm: Default::default(),
            f3_c_pad: Default::default(),
            f3_c_path: Default::default(),
            f3_c_sack: Default::default(),
            f3_c_nak: Default::default(),
            f3_c_mac: Default::default(),
            f3_c_bk: Default::default(),
            f3_c_tl: Default::default(),
            f3_r_opcode: Default::default(),
            f3_r_dest_qp: Default::default(),
            f3_r_psn: Default::default(),
            f3_r_path_id: Default::default(),
            f3_r_path_psn: Default::default(),
            f3_r_msn: Default::default(),
            f3_r_offset: Default::default(),
            f3_r_flags: Default::default(),
            f3_r_va: Default::default(),
            f3_r_rkey: Default::default(),
            f3_r_length: Default::default(),
            f3_r_ecn: Default::default(),
            f3_r_vlan: Default::default(),
            f3_r_ssn: Default::default(),
            f3_r_src: Default::default(),
            f3_r_pkey: Default::default(),
            f3_r_sport: Default::default(),
            f3_r_ack_req: Default::default(),
            f3_r_se: Default::default(),
            f3_r_ts: Default::default(),
            code_a: Default::default(),
            any_a: Default::default(),
            code_b: Default::default(),
            any_b: Default::default(),
            code_d: Default::default(),
            any_d: Default::default(),
            f4_valid: Default::default(),
            f4_code_a: Default::default(),
            f4_any_a: Default::default(),
            f4_code_b: Default::default(),
            f4_any_b: Default::default(),
            f4_any_c: Default::default(),
            f4_code_d: Default::default(),
            f4_any_d: Default::default(),
            f4_c_ucs_nz: Default::default(),
            f4_r_opcode: Default::default(),
            f4_r_dest_qp: Default::default(),
            f4_r_psn: Default::default(),
            f4_r_path_id: Default::default(),
            f4_r_path_psn: Default::default(),
            f4_r_msn: Default::default(),
            f4_r_offset: Default::default(),
            f4_r_flags: Default::default(),
            f4_r_va: Default::default(),
            f4_r_rkey: Default::default(),
            f4_r_length: Default::default(),
            f4_r_ecn: Default::default(),
            f4_r_vlan: Default::default(),
            f4_r_ssn: Default::default(),
            f4_r_src: Default::default(),
            f4_r_pkey: Default::default(),
            f4_r_sport: Default::default(),
            f4_r_ack_req: Default::default(),
            f4_r_se: Default::default(),
            f4_r_ts: Default::default(),
            f4_dpay: Default::default(),
            s4_ip_ok: Default::default(),
            s4_udp_ok: Default::default(),
            crc_ok: Default::default(),
            udp_bad: Default::default(),
            p_a: Default::default(),
            p_ip: Default::default(),
            p_b: Default::default(),
            p_u: Default::default(),
            p_c: Default::default(),
            sel_ip: Default::default(),
            sel_b: Default::default(),
            sel_u: Default::default(),
            sel_c: Default::default(),
            good_pre: Default::default(),
            code: Default::default(),
            code_ok: Default::default(),
            code_bad: Default::default(),
            pre_truncated_ethernet: Default::default(),
            dk_truncated_ethernet: Default::default(),
            hit_truncated_ethernet: Default::default(),
            pre_truncated_ipv4: Default::default(),
            dk_truncated_ipv4: Default::default(),
            hit_truncated_ipv4: Default::default(),
            pre_truncated_udp: Default::default(),
            dk_truncated_udp: Default::default(),
            hit_truncated_udp: Default::default(),
            pre_truncated_bth: Default::default(),
            dk_truncated_bth: Default::default(),
            hit_truncated_bth: Default::default(),
            pre_truncated_extension: Default::default(),
            dk_truncated_extension: Default::default(),
            hit_truncated_extension: Default::default(),
            pre_bad_ethertype: Default::default(),
            dk_bad_ethertype: Default::default(),
            hit_bad_ethertype: Default::default(),
            pre_bad_ip_version: Default::default(),
            dk_bad_ip_version: Default::default(),
            hit_bad_ip_version: Default::default(),
            pre_bad_ip_header_length: Default::default(),
            dk_bad_ip_header_length: Default::default(),
            hit_bad_ip_header_length: Default::default(),
            pre_bad_ip_total_length: Default::default(),
            dk_bad_ip_total_length: Default::default(),
            hit_bad_ip_total_length: Default::default(),
            pre_trailing_bytes: Default::default(),
            dk_trailing_bytes: Default::default(),
            hit_trailing_bytes: Default::default(),
            pre_bad_ip_checksum: Default::default(),
            dk_bad_ip_checksum: Default::default(),
            hit_bad_ip_checksum: Default::default(),
            pre_fragmented: Default::default(),
            dk_fragmented: Default::default(),
            hit_fragmented: Default::default(),
            pre_not_udp: Default::default(),
            dk_not_udp: Default::default(),
            hit_not_udp: Default::default(),
            pre_wrong_udp_port: Default::default(),
            dk_wrong_udp_port: Default::default(),
            hit_wrong_udp_port: Default::default(),
            pre_udp_length_mismatch: Default::default(),
            dk_udp_length_mismatch: Default::default(),
            hit_udp_length_mismatch: Default::default(),
            pre_bad_udp_checksum: Default::default(),
            dk_bad_udp_checksum: Default::default(),
            hit_bad_udp_checksum: Default::default(),
            pre_bad_icrc: Default::default(),
            dk_bad_icrc: Default::default(),
            hit_bad_icrc: Default::default(),
            pre_bad_transport_version: Default::default(),
            dk_bad_transport_version: Default::default(),
            hit_bad_transport_version: Default::default(),
            pre_unknown_opcode: Default::default(),
            dk_unknown_opcode: Default::default(),
            hit_unknown_opcode: Default::default(),
            pre_length_mismatch: Default::default(),
            dk_length_mismatch: Default::default(),
            hit_length_mismatch: Default::default(),
            pre_bad_pad_count: Default::default(),
            dk_bad_pad_count: Default::default(),
            hit_bad_pad_count: Default::default(),
            pre_bad_path_id: Default::default(),
            dk_bad_path_id: Default::default(),
            hit_bad_path_id: Default::default(),
            pre_sack_base_bit_set: Default::default(),
            dk_sack_base_bit_set: Default::default(),
            hit_sack_base_bit_set: Default::default(),
            pre_bad_nak_code: Default::default(),
            dk_bad_nak_code: Default::default(),
            hit_bad_nak_code: Default::default(),
            pre_mac_error: Default::default(),
            dk_mac_error: Default::default(),
            hit_mac_error: Default::default(),
            pre_bad_keep: Default::default(),
            dk_bad_keep: Default::default(),
            hit_bad_keep: Default::default(),
            pre_too_long: Default::default(),
            dk_too_long: Default::default(),
            hit_too_long: Default::default(),
            gk_write: Default::default(),
            gk_send: Default::default(),
            gk_ack: Default::default(),
            gk_nak: Default::default(),
            gk_probe: Default::default(),
            gk_probe_reply: Default::default(),
            o_valid: Default::default(),
            o_opcode: Default::default(),
            o_dest_qp: Default::default(),
            o_psn: Default::default(),
            o_path_id: Default::default(),
            o_path_psn: Default::default(),
            o_msn: Default::default(),
            o_offset: Default::default(),
            o_flags: Default::default(),
            o_va: Default::default(),
            o_rkey: Default::default(),
            o_length: Default::default(),
            o_ecn: Default::default(),
            o_vlan: Default::default(),
            o_ssn: Default::default(),
            o_src: Default::default(),
            o_pkey: Default::default(),
            o_sport: Default::default(),
            o_ack_req: Default::default(),
            o_se: Default::default(),
            o_ts: Default::default(),
            n_drop_truncated_ethernet: Default::default(),
            n_drop_truncated_ipv4: Default::default(),
            n_drop_truncated_udp: Default::default(),
            n_drop_truncated_bth: Default::default(),
            n_drop_truncated_extension: Default::default(),
            n_drop_bad_ethertype: Default::default(),
            n_drop_bad_ip_version: Default::default(),
            n_drop_bad_ip_header_length: Default::default(),
            n_drop_bad_ip_total_length: Default::default(),
            n_drop_trailing_bytes: Default::default(),
            n_drop_bad_ip_checksum: Default::default(),
            n_drop_fragmented: Default::default(),
            n_drop_not_udp: Default::default(),
            n_drop_wrong_udp_port: Default::default(),
            n_drop_udp_length_mismatch: Default::default(),
            n_drop_bad_udp_checksum: Default::default(),
            n_drop_bad_icrc: Default::default(),
            n_drop_bad_transport_version: Default::default(),
            n_drop_unknown_opcode: Default::default(),
            n_drop_length_mismatch: Default::default(),
            n_drop_bad_pad_count: Default::default(),
            n_drop_bad_path_id: Default::default(),
            n_drop_sack_base_bit_set: Default::default(),
            n_drop_bad_nak_code: Default::default(),
            n_drop_mac_error: Default::default(),
            n_drop_bad_keep: Default::default(),
            n_drop_too_long: Default::default(),
            n_good_write: Default::default(),
            n_good_send: Default::default(),
            n_good_ack: Default::default(),
            n_good_nak: Default::default(),
            n_good_probe: Default::default(),
            n_good_probe_reply: Default::default(),
            o_last: Default::default(),
            vq: Default::default(),
            vq_wp: Default::default(),
            vq_rp: Default::default(),
            vq_n: Default::default(),
            vq_push: Default::default(),
            vq_pop: Default::default(),
            vq_keep: Default::default(),
            vq_bit: Default::default(),
            k_n0: Constant::new((0u64).into()),
            k_n1: Constant::new((1u64).into()),
            k_n2: Constant::new((2u64).into()),
            k_n3: Constant::new((3u64).into()),
            k_n4: Constant::new((4u64).into()),
            k_n5: Constant::new((5u64).into()),
            k_n6: Constant::new((6u64).into()),
            k_n7: Constant::new((7u64).into()),
            k_n8: Constant::new((8u64).into()),
            k_max: Constant::new((9216u64).into()),
            k_z10: Constant::new((0u64).into()),
            k_b0: Constant::new((0u64).into()),
            k_b1: Constant::new((1u64).into()),
            k_b2: Constant::new((2u64).into()),
            k_b3: Constant::new((3u64).into()),
            k_b4: Constant::new((4u64).into()),
            k_b5: Constant::new((5u64).into()),
            k_b6: Constant::new((6u64).into()),
            k_b7: Constant::new((7u64).into()),
            k_b8: Constant::new((8u64).into()),
            k_b9: Constant::new((9u64).into()),
            k_b10: Constant::new((10u64).into()),
            k_b11: Constant::new((11u64).into()),
            k_b12: Constant::new((12u64).into()),
            k_b13: Constant::new((13u64).into()),
            k_b15: Constant::new((15u64).into()),
            k_tpid_le: Constant::new((129u64).into()),
            k_z14: Constant::new((0u64).into()),
            k_ones64: Constant::new((0xFFFF_FFFF_FFFF_FFFFu64).into()),
            k_z64: Constant::new((0u64).into()),
            k_cand_0: Constant::new(m.and_0.into()),
            k_cor_0: Constant::new(m.or_0.into()),
            k_cand_1u: Constant::new(m.and_1u.into()),
            k_cor_1u: Constant::new(m.or_1u.into()),
            k_cand_2u: Constant::new(m.and_2u.into()),
            k_cor_2u: Constant::new(m.or_2u.into()),
            k_cand_2t: Constant::new(m.and_2t.into()),
            k_cor_2t: Constant::new(m.or_2t.into()),
            k_cand_3u: Constant::new(m.and_3u.into()),
            k_cor_3u: Constant::new(m.or_3u.into()),
            k_cand_3t: Constant::new(m.and_3t.into()),
            k_cor_3t: Constant::new(m.or_3t.into()),
            k_cand_5u: Constant::new(m.and_5u.into()),
            k_cor_5u: Constant::new(m.or_5u.into()),
            k_cand_5t: Constant::new(m.and_5t.into()),
            k_cor_5t: Constant::new(m.or_5t.into()),
            k_cand_6t: Constant::new(m.and_6t.into()),
            k_cor_6t: Constant::new(m.or_6t.into()),
            k_dand_1: Constant::new((m.and_1u ^ m.and_1t).into()),
            k_dor_1: Constant::new((m.or_1u ^ m.or_1t).into()),
            k_z8: Constant::new((0u64).into()),
            k_ff8: Constant::new((255u64).into()),
            k_ipk1u: Constant::new((192u64).into()),
            k_ipk2t: Constant::new((252u64).into()),
            k_ipk4u: Constant::new((3u64).into()),
            k_ipk4t: Constant::new((63u64).into()),
            k_z16: Constant::new((0u64).into()),
            k_uk3u: Constant::new((252u64).into()),
            k_uk3t: Constant::new((192u64).into()),
            k_addu: Constant::new((65519u64).into()),
            k_addt: Constant::new((65515u64).into()),
            k_14n: Constant::new((14u64).into()),
            k_18n: Constant::new((18u64).into()),
            k_14: Constant::new((14u64).into()),
            k_18: Constant::new((18u64).into()),
            k_34: Constant::new((34u64).into()),
            k_38: Constant::new((38u64).into()),
            k_20: Constant::new((20u64).into()),
            k_8: Constant::new((8u64).into()),
            k_24: Constant::new((24u64).into()),
            k_44: Constant::new((44u64).into()),
            k_56: Constant::new((56u64).into()),
            k_80: Constant::new((80u64).into()),
            k_96: Constant::new((96u64).into()),
            k_et_ipv4: Constant::new((2048u64).into()),
            k_4: Constant::new((4u64).into()),
            k_5: Constant::new((5u64).into()),
            k_ffmask: Constant::new((16383u64).into()),
            k_17: Constant::new((17u64).into()),
            k_port: Constant::new((4791u64).into()),
            k_opw: Constant::new((192u64).into()),
            k_ops: Constant::new((193u64).into()),
            k_opa: Constant::new((194u64).into()),
            k_opn: Constant::new((195u64).into()),
            k_opp: Constant::new((196u64).into()),
            k_oppr: Constant::new((197u64).into()),
            k_z4: Constant::new((0u64).into()),
            k_z2: Constant::new((0u64).into()),
            k_z18: Constant::new((0u64).into()),
            k_6: Constant::new((6u64).into()),
            k_z24: Constant::new((0u64).into()),
            k_z32: Constant::new((0u64).into()),
            k_z64b: Constant::new((0u64).into()),
            k_c0: Constant::new((0u64).into()),
            k_c1: Constant::new((1u64).into()),
            k_c2: Constant::new((2u64).into()),
            k_c3: Constant::new((3u64).into()),
            k_c4: Constant::new((4u64).into()),
            k_c5: Constant::new((5u64).into()),
            k_c6: Constant::new((6u64).into()),
            k_c7: Constant::new((7u64).into()),
            k_c8: Constant::new((8u64).into()),
            k_c9: Constant::new((9u64).into()),
            k_c10: Constant::new((10u64).into()),
            k_c11: Constant::new((11u64).into()),
            k_c12: Constant::new((12u64).into()),
            k_c13: Constant::new((13u64).into()),
            k_c14: Constant::new((14u64).into()),
            k_c15: Constant::new((15u64).into()),
            k_c16: Constant::new((16u64).into()),
            k_c17: Constant::new((17u64).into()),
            k_c18: Constant::new((18u64).into()),
            k_c19: Constant::new((19u64).into()),
            k_c20: Constant::new((20u64).into()),
            k_c21: Constant::new((21u64).into()),
            k_c22: Constant::new((22u64).into()),
            k_c23: Constant::new((23u64).into()),
            k_c24: Constant::new((24u64).into()),
            k_c25: Constant::new((25u64).into()),
            k_c26: Constant::new((26u64).into()),
            k_c27: Constant::new((27u64).into()),
            k_ffff: Constant::new((65535u64).into()),
            k_residue: Constant::new((0xDEBB_20E3u64).into()),
            k_vq_room: Constant::new((4u64).into()),
            k_z3: Constant::new((0u64).into()),
            k_one4: Constant::new((1u64).into()),
            k_one3: Constant::new((1u64).into()),
            k_one8: Constant::new((1u64).into()),
            k_none: Constant::new((31u64).into()),
            k_z32b: Constant::new((0u64).into()),
        }
    }
}

impl Logic for Parser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bcnt, cnt, acc_mac, acc_bk, acc_tl, tg, rem, hdr_l1, hdr_l2, hdr_l3, hdr_l4, hdr_l5, hdr_l6, hdr_l7, hdr_l8, hdr_l9, hdr_l10, hdr_l11, hdr_l12, hdr_l13, cm_and, cm_or, cm_b1, ipk, udk, at_b0, cu, ct, f1_valid, f1_n, f1_mac, f1_bk, f1_tl, f2_valid, f2_c_tr_eth, f2_c_mac, f2_c_bk, f2_c_tl, f2_rem3, f2_rem4, f2_x_et, f2_x_vi, f2_x_total, f2_x_ff, f2_x_proto, f2_x_dport, f2_x_ulen, f2_x_ucs, f2_x_op, f2_x_tv, f2_x_pad, f2_x_qp, f2_x_psn, f2_x_b0, f2_x_b1, f2_x_ppsn, f2_x_msn, f2_x_off, f2_x_dflags, f2_x_aflags, f2_x_va, f2_x_rkey, f2_x_len, f2_x_ecn, f2_x_sack0, f2_x_vlan, f2_x_ssn, f2_x_src, f2_x_pkey, f2_x_sport, f2_x_areq, f2_x_se, f2_x_ts, f3_valid, f3_c_tr_eth, f3_c_ethertype, f3_c_tr_ip1, f3_c_ver, f3_c_ihl, f3_c_tot, f3_c_tr_ip2, f3_c_trail, f3_c_frag, f3_c_notudp, f3_c_tr_udp, f3_c_port, f3_c_ulen, f3_c_ucs_nz, f3_c_tr_bth, f3_c_tver, f3_c_op, f3_c_tr_ext, f3_c_lm, f3_c_pad, f3_c_path, f3_c_sack, f3_c_nak, f3_c_mac, f3_c_bk, f3_c_tl, f3_r_opcode, f3_r_dest_qp, f3_r_psn, f3_r_path_id, f3_r_path_psn, f3_r_msn, f3_r_offset, f3_r_flags, f3_r_va, f3_r_rkey, f3_r_length, f3_r_ecn, f3_r_vlan, f3_r_ssn, f3_r_src, f3_r_pkey, f3_r_sport, f3_r_ack_req, f3_r_se, f3_r_ts, f4_valid, f4_code_a, f4_any_a, f4_code_b, f4_any_b, f4_any_c, f4_code_d, f4_any_d, f4_c_ucs_nz, f4_r_opcode, f4_r_dest_qp, f4_r_psn, f4_r_path_id, f4_r_path_psn, f4_r_msn, f4_r_offset, f4_r_flags, f4_r_va, f4_r_rkey, f4_r_length, f4_r_ecn, f4_r_vlan, f4_r_ssn, f4_r_src, f4_r_pkey, f4_r_sport, f4_r_ack_req, f4_r_se, f4_r_ts, f4_dpay, s4_ip_ok, s4_udp_ok, o_valid, o_opcode, o_dest_qp, o_psn, o_path_id, o_path_psn, o_msn, o_offset, o_flags, o_va, o_rkey, o_length, o_ecn, o_vlan, o_ssn, o_src, o_pkey, o_sport, o_ack_req, o_se, o_ts, n_drop_truncated_ethernet, n_drop_truncated_ipv4, n_drop_truncated_udp, n_drop_truncated_bth, n_drop_truncated_extension, n_drop_bad_ethertype, n_drop_bad_ip_version, n_drop_bad_ip_header_length, n_drop_bad_ip_total_length, n_drop_trailing_bytes, n_drop_bad_ip_checksum, n_drop_fragmented, n_drop_not_udp, n_drop_wrong_udp_port, n_drop_udp_length_mismatch, n_drop_bad_udp_checksum, n_drop_bad_icrc, n_drop_bad_transport_version, n_drop_unknown_opcode, n_drop_length_mismatch, n_drop_bad_pad_count, n_drop_bad_path_id, n_drop_sack_base_bit_set, n_drop_bad_nak_code, n_drop_mac_error, n_drop_bad_keep, n_drop_too_long, n_good_write, n_good_send, n_good_ack, n_good_nak, n_good_probe, n_good_probe_reply, o_last, vq, vq_wp, vq_rp, vq_n);
        // ================= stage I: the input beat (cycle 0 = the cycle it is transferred)
        // a beat is taken while no record waits and the verdict FIFO has room for every frame that could
        // end before this one's verdict is queued (<= VRD_DEPTH - LATENCY entries now)
        self.ready_i.next = !self.rst.val() & !(self.o_valid.q.val() & !self.m_hdr_ready.val()) & (self.vq_n.q.val() < self.k_vq_room.val());
        self.s_axis_tready.next = self.ready_i.val();
        self.go.next = self.s_axis_tvalid.val() & self.ready_i.val();
        self.n.next = self.k_n0.val();
        self.contig.next = false;
        match self.s_axis_tkeep.val().index() {
            0 => { self.n.next = self.k_n0.val(); self.contig.next = true; }
            1 => { self.n.next = self.k_n1.val(); self.contig.next = true; }
            3 => { self.n.next = self.k_n2.val(); self.contig.next = true; }
            7 => { self.n.next = self.k_n3.val(); self.contig.next = true; }
            15 => { self.n.next = self.k_n4.val(); self.contig.next = true; }
            31 => { self.n.next = self.k_n5.val(); self.contig.next = true; }
            63 => { self.n.next = self.k_n6.val(); self.contig.next = true; }
            127 => { self.n.next = self.k_n7.val(); self.contig.next = true; }
            255 => { self.n.next = self.k_n8.val(); self.contig.next = true; }
            _ => {}
        }
        self.keep_ok.next = self.contig.val() & (self.n.val() == self.k_n8.val());
        if self.s_axis_tlast.val() { self.keep_ok.next = self.contig.val() & (self.n.val() != self.k_n0.val()); }
        self.cnt_now.next = self.cnt.q.val() + bit_cast::<14, 4>(self.n.val());
        self.mac_now.next = self.acc_mac.q.val() | self.s_axis_tuser.val();
        self.bk_now.next = self.acc_bk.q.val() | !self.keep_ok.val();
        self.rem_small.next = self.rem.q.val().get_bits::<10>(4) == self.k_z10.val();
        self.tl_now.next = self.acc_tl.q.val() | (self.rem_small.val() & (self.rem.q.val().get_bits::<4>(0) < self.n.val()));
        self.is_b0.next = self.bcnt.q.val() == self.k_b0.val();
        self.is_b1.next = self.bcnt.q.val() == self.k_b1.val();
        self.is_b2.next = self.bcnt.q.val() == self.k_b2.val();
        self.is_b3.next = self.bcnt.q.val() == self.k_b3.val();
        self.is_b4.next = self.bcnt.q.val() == self.k_b4.val();
        self.is_b5.next = self.bcnt.q.val() == self.k_b5.val();
        self.tg_b1.next = self.s_axis_tdata.val().get_bits::<16>(32) == self.k_tpid_le.val();
        if self.go.val() {
            if self.s_axis_tlast.val() {
                self.bcnt.d.next = self.k_b0.val();
                self.cnt.d.next = self.k_z14.val();
                self.rem.d.next = self.k_max.val();
                self.acc_mac.d.next = false;
                self.acc_bk.d.next = false;
                self.acc_tl.d.next = false;
            } else {
                if self.bcnt.q.val() != self.k_b15.val() { self.bcnt.d.next = self.bcnt.q.val() + self.k_b1.val(); }
                self.cnt.d.next = self.cnt_now.val();
                self.rem.d.next = self.rem.q.val() - bit_cast::<14, 4>(self.n.val());
                self.acc_mac.d.next = self.mac_now.val();
                self.acc_bk.d.next = self.bk_now.val();
                self.acc_tl.d.next = self.tl_now.val();
            }
            if self.is_b1.val() { self.tg.d.next = self.tg_b1.val(); }
        }
        // header lanes: beat k of the frame (k = 1..13; beat 0 holds only the MAC addresses). Lane k is
        // written in every cycle with bcnt == k, transfer or not: the last such write is beat k's own
        // transfer (bcnt moves on with it), and F1 reads the lanes the cycle after a last beat, before
        // any later write lands. No `go` in front of the 832 enables (it was a critical path).
        if self.bcnt.q.val() == self.k_b1.val() { self.hdr_l1.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b2.val() { self.hdr_l2.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b3.val() { self.hdr_l3.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b4.val() { self.hdr_l4.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b5.val() { self.hdr_l5.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b6.val() { self.hdr_l6.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b7.val() { self.hdr_l7.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b8.val() { self.hdr_l8.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b9.val() { self.hdr_l9.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b10.val() { self.hdr_l10.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b11.val() { self.hdr_l11.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b12.val() { self.hdr_l12.d.next = self.s_axis_tdata.val(); }
        if self.bcnt.q.val() == self.k_b13.val() { self.hdr_l13.d.next = self.s_axis_tdata.val(); }
        // ICRC: the Ethernet header replaced by a steering prefix, invariant fields forced to 0xFF
        if self.go.val() {
            self.cm_and.d.next = self.k_ones64.val(); self.cm_or.d.next = self.k_z64.val(); self.cm_b1.d.next = false;
            if self.s_axis_tlast.val() {
                self.cm_and.d.next = self.k_cand_0.val(); self.cm_or.d.next = self.k_cor_0.val();
            } else {
                if self.is_b0.val() { self.cm_and.d.next = self.k_cand_1u.val(); self.cm_or.d.next = self.k_cor_1u.val(); self.cm_b1.d.next = true; }
                if self.is_b1.val() {
                    self.cm_and.d.next = self.k_cand_2u.val(); self.cm_or.d.next = self.k_cor_2u.val();
                    if self.tg_b1.val() { self.cm_and.d.next = self.k_cand_2t.val(); self.cm_or.d.next = self.k_cor_2t.val(); }
                }
                if self.is_b2.val() {
                    self.cm_and.d.next = self.k_cand_3u.val(); self.cm_or.d.next = self.k_cor_3u.val();
                    if self.tg.q.val() { self.cm_and.d.next = self.k_cand_3t.val(); self.cm_or.d.next = self.k_cor_3t.val(); }
                }
                if self.is_b4.val() {
                    self.cm_and.d.next = self.k_cand_5u.val(); self.cm_or.d.next = self.k_cor_5u.val();
                    if self.tg.q.val() { self.cm_and.d.next = self.k_cand_5t.val(); self.cm_or.d.next = self.k_cor_5t.val(); }
                }
                if self.is_b5.val() & self.tg.q.val() { self.cm_and.d.next = self.k_cand_6t.val(); self.cm_or.d.next = self.k_cor_6t.val(); }
            }
        }
        self.crc_and.next = self.cm_and.q.val();
        self.crc_or.next = self.cm_or.q.val();
        if self.cm_b1.q.val() & self.tg_b1.val() { self.crc_and.next = self.cm_and.q.val() ^ self.k_dand_1.val(); self.crc_or.next = self.cm_or.q.val() ^ self.k_dor_1.val(); }
        self.icrc.clock.next = self.clock.val();
        self.icrc.rst.next = self.rst.val();
        self.icrc.s_valid.next = self.go.val();
        self.icrc.s_first.next = self.at_b0.q.val();
        self.icrc.s_last.next = self.s_axis_tlast.val();
        self.icrc.s_data.next = (self.s_axis_tdata.val() & self.crc_and.val()) | self.crc_or.val();
        self.icrc.s_bytes.next = bit_cast::<8, 4>(self.n.val());
        // IPv4 header sum over bytes [14, 34) ([18, 38) tagged)
        // the next beat's checksum byte enables (registered ahead; the beat counter's own update)
        self.ge3.next = self.bcnt.q.val() >= self.k_b3.val();
        if self.go.val() {
            self.ipk.d.next = self.k_z8.val();
            self.udk.d.next = self.k_z8.val();
            self.at_b0.d.next = self.s_axis_tlast.val();
            if !self.s_axis_tlast.val() {
                if self.is_b0.val() { self.ipk.d.next = self.k_ipk1u.val(); }
                if self.is_b1.val() { self.ipk.d.next = self.k_ff8.val(); if self.tg_b1.val() { self.ipk.d.next = self.k_ipk2t.val(); } }
                if self.is_b2.val() {
                    self.ipk.d.next = self.k_ff8.val();
                    self.udk.d.next = self.k_uk3u.val(); if self.tg.q.val() { self.udk.d.next = self.k_uk3t.val(); }
                }
                if self.is_b3.val() { self.ipk.d.next = self.k_ipk4u.val(); if self.tg.q.val() { self.ipk.d.next = self.k_ipk4t.val(); } }
                if self.ge3.val() { self.udk.d.next = self.k_ff8.val(); }
            }
        }
        self.ip_keep.next = self.ipk.q.val();
        // a tagged frame's TCI (beat 1's bytes 14, 15, big-endian) enters again as its complement
        self.ip_add.next = self.k_z16.val();
        if self.tg.q.val() { self.ip_add.next = !((bit_cast::<16, 8>(self.hdr_l1.q.val().get_bits::<8>(48)) << 8) | bit_cast::<16, 8>(self.hdr_l1.q.val().get_bits::<8>(56))); }
        self.ipsum.clock.next = self.clock.val();
        self.ipsum.rst.next = self.rst.val();
        self.ipsum.s_valid.next = self.go.val();
        self.ipsum.s_first.next = self.at_b0.q.val();
        self.ipsum.s_last.next = self.s_axis_tlast.val();
        self.ipsum.s_data.next = self.s_axis_tdata.val();
        self.ipsum.s_keep.next = self.ip_keep.val();
        self.ipsum.s_add.next = self.ip_add.val();
        // UDP sum over bytes [26, end) ([30, end) tagged) plus 17 + UDP length (= N - l4)
        self.udp_keep.next = self.udk.q.val();
        self.u_sel.next = self.cu.q.val();
        if self.tg.q.val() { self.u_sel.next = self.ct.q.val(); }
        self.udp_add.next = self.u_sel.val() + bit_cast::<16, 4>(self.n.val());
        if self.go.val() {
            if self.s_axis_tlast.val() {
                self.cu.d.next = self.k_addu.val();
                self.ct.d.next = self.k_addt.val();
            } else {
                self.cu.d.next = self.cu.q.val() + bit_cast::<16, 4>(self.n.val());
                self.ct.d.next = self.ct.q.val() + bit_cast::<16, 4>(self.n.val());
            }
        }
        self.udpsum.clock.next = self.clock.val();
        self.udpsum.rst.next = self.rst.val();
        self.udpsum.s_valid.next = self.go.val();
        self.udpsum.s_first.next = self.at_b0.q.val();
        self.udpsum.s_last.next = self.s_axis_tlast.val();
        self.udpsum.s_data.next = self.s_axis_tdata.val();
        self.udpsum.s_keep.next = self.udp_keep.val() & self.s_axis_tkeep.val();
        self.udpsum.s_add.next = self.udp_add.val();
        self.f1_valid.d.next = self.go.val() & self.s_axis_tlast.val();
        self.f1_n.d.next = self.cnt_now.val();
        self.f1_mac.d.next = self.mac_now.val();
        self.f1_bk.d.next = self.bk_now.val();
        self.f1_tl.d.next = self.tl_now.val();
        // ================= stage F1 (cycle 1): every field check from the header, independently
        self.hdr_wide.next = (bit_cast::<896, 64>(self.hdr_l1.q.val()) << 64) | (bit_cast::<896, 64>(self.hdr_l2.q.val()) << 128) | (bit_cast::<896, 64>(self.hdr_l3.q.val()) << 192) | (bit_cast::<896, 64>(self.hdr_l4.q.val()) << 256) | (bit_cast::<896, 64>(self.hdr_l5.q.val()) << 320) | (bit_cast::<896, 64>(self.hdr_l6.q.val()) << 384) | (bit_cast::<896, 64>(self.hdr_l7.q.val()) << 448) | (bit_cast::<896, 64>(self.hdr_l8.q.val()) << 512) | (bit_cast::<896, 64>(self.hdr_l9.q.val()) << 576) | (bit_cast::<896, 64>(self.hdr_l10.q.val()) << 640) | (bit_cast::<896, 64>(self.hdr_l11.q.val()) << 704) | (bit_cast::<896, 64>(self.hdr_l12.q.val()) << 768) | (bit_cast::<896, 64>(self.hdr_l13.q.val()) << 832);
        self.hdr_tag.next = self.hdr_l1.q.val().get_bits::<16>(32) == self.k_tpid_le.val();
        self.hdr_norm.next = self.hdr_wide.val();
        if self.hdr_tag.val() { self.hdr_norm.next = self.hdr_wide.val() >> 32; }
        self.x_et.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(96)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(104));
        self.x_vi.next = self.hdr_norm.val().get_bits::<8>(112);
        self.x_total.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(128)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(136));
        self.x_ff.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(160)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(168));
        self.x_proto.next = self.hdr_norm.val().get_bits::<8>(184);
        self.x_dport.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(288)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(296));
        self.x_ulen.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(304)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(312));
        self.x_ucs.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(320)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(328));
        self.x_op.next = self.hdr_norm.val().get_bits::<8>(336);
        self.x_tv.next = self.hdr_norm.val().get_bits::<4>(344);
        self.x_pad.next = self.hdr_norm.val().get_bits::<2>(348);
        self.x_qp.next = (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(376)) << 16) | (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(384)) << 8) | bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(392));
        self.x_psn.next = (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(408)) << 16) | (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(416)) << 8) | bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(424));
        self.x_b0.next = self.hdr_norm.val().get_bits::<8>(432);
        self.x_b1.next = self.hdr_norm.val().get_bits::<8>(440);
        self.x_ppsn.next = (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(440)) << 16) | (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(448)) << 8) | bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(456));
        self.x_msn.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(464)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(472)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(480)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(488));
        self.x_off.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(496)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(504)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(512)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(520));
        self.x_dflags.next = self.hdr_norm.val().get_bits::<8>(528);
        self.x_aflags.next = self.hdr_norm.val().get_bits::<8>(464);
        self.x_va.next = (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(592)) << 56) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(600)) << 48) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(608)) << 40) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(616)) << 32) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(624)) << 24) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(632)) << 16) | (bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(640)) << 8) | bit_cast::<64, 8>(self.hdr_norm.val().get_bits::<8>(648));
        self.x_rkey.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(656)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(664)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(672)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(680));
        self.x_len.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(688)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(696)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(704)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(712));
        self.x_ssn.next = (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(536)) << 16) | (bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(544)) << 8) | bit_cast::<24, 8>(self.hdr_norm.val().get_bits::<8>(552));
        // IPv4 source address (bytes 26..29) and BTH P_Key (bytes 44, 45) of the normalised header:
        // the connection checks (mrnic_conn_chk) read them
        self.x_src.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(208)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(216)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(224)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(232));
        self.x_pkey.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(352)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(360));
        // UDP source port (bytes 34, 35), the BTH A bit (byte 50, bit 7) and the MPETH timestamp
        // (bytes 70..73): the ACK generator (mrnic_ackgen) reads them
        self.x_sport.next = (bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(272)) << 8) | bit_cast::<16, 8>(self.hdr_norm.val().get_bits::<8>(280));
        self.x_areq.next = self.hdr_norm.val().get_bit(407);
        self.x_ts.next = (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(560)) << 24) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(568)) << 16) | (bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(576)) << 8) | bit_cast::<32, 8>(self.hdr_norm.val().get_bits::<8>(584));
        // the BTH SE bit (byte 43, bit 7): the completion unit (mrnic_cmpl) reads it
        self.x_se.next = self.hdr_norm.val().get_bit(351);
        self.x_ecn.next = self.hdr_norm.val().get_bits::<2>(120);
        self.x_sack0.next = self.hdr_norm.val().get_bit(840);
        self.x_vlan.next = self.hdr_tag.val();
        self.rem3.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_14.val();
        if self.hdr_tag.val() { self.rem3.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_18.val(); }
        self.rem4.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_34.val();
        if self.hdr_tag.val() { self.rem4.next = bit_cast::<16, 14>(self.f1_n.q.val()) - self.k_38.val(); }
        self.c_tr_eth.next = (self.f1_n.q.val() < self.k_14n.val()) | (self.hdr_tag.val() & (self.f1_n.q.val() < self.k_18n.val()));
        // F1 -> F2 registers: the normalised fields (the tag mux and the lanes' routing end here)
        self.f2_valid.d.next = self.f1_valid.q.val();
        self.f2_c_tr_eth.d.next = self.c_tr_eth.val();
        self.f2_c_mac.d.next = self.f1_mac.q.val();
        self.f2_c_bk.d.next = self.f1_bk.q.val();
        self.f2_c_tl.d.next = self.f1_tl.q.val();
        self.f2_rem3.d.next = self.rem3.val();
        self.f2_rem4.d.next = self.rem4.val();
        self.f2_x_et.d.next = self.x_et.val();
        self.f2_x_vi.d.next = self.x_vi.val();
        self.f2_x_total.d.next = self.x_total.val();
        self.f2_x_ff.d.next = self.x_ff.val();
        self.f2_x_proto.d.next = self.x_proto.val();
        self.f2_x_dport.d.next = self.x_dport.val();
        self.f2_x_ulen.d.next = self.x_ulen.val();
        self.f2_x_ucs.d.next = self.x_ucs.val();
        self.f2_x_op.d.next = self.x_op.val();
        self.f2_x_tv.d.next = self.x_tv.val();
        self.f2_x_pad.d.next = self.x_pad.val();
        self.f2_x_qp.d.next = self.x_qp.val();
        self.f2_x_psn.d.next = self.x_psn.val();
        self.f2_x_b0.d.next = self.x_b0.val();
        self.f2_x_b1.d.next = self.x_b1.val();
        self.f2_x_ppsn.d.next = self.x_ppsn.val();
        self.f2_x_msn.d.next = self.x_msn.val();
        self.f2_x_off.d.next = self.x_off.val();
        self.f2_x_dflags.d.next = self.x_dflags.val();
        self.f2_x_aflags.d.next = self.x_aflags.val();
        self.f2_x_va.d.next = self.x_va.val();
        self.f2_x_rkey.d.next = self.x_rkey.val();
        self.f2_x_len.d.next = self.x_len.val();
        self.f2_x_ecn.d.next = self.x_ecn.val();
        self.f2_x_sack0.d.next = self.x_sack0.val();
        self.f2_x_vlan.d.next = self.x_vlan.val();
        self.f2_x_ssn.d.next = self.x_ssn.val();
        self.f2_x_src.d.next = self.x_src.val();
        self.f2_x_pkey.d.next = self.x_pkey.val();
        self.f2_x_sport.d.next = self.x_sport.val();
        self.f2_x_areq.d.next = self.x_areq.val();
        self.f2_x_se.d.next = self.x_se.val();
        self.f2_x_ts.d.next = self.x_ts.val();
        // ================= stage F2 (cycle 2): every field check, independently, and the record
        self.ge44.next = self.f2_x_total.q.val() >= self.k_44.val();
        self.lt56.next = self.f2_x_total.q.val() < self.k_56.val();
        self.lt80.next = self.f2_x_total.q.val() < self.k_80.val();
        self.lt96.next = self.f2_x_total.q.val() < self.k_96.val();
        self.d_tot80.next = self.f2_x_total.q.val() - self.k_80.val();
        self.c_ethertype.next = self.f2_x_et.q.val() != self.k_et_ipv4.val();
        self.c_tr_ip1.next = self.f2_rem3.q.val() < self.k_20.val();
        self.c_ver.next = self.f2_x_vi.q.val().get_bits::<4>(4) != self.k_4.val();
        self.c_ihl.next = self.f2_x_vi.q.val().get_bits::<4>(0) != self.k_5.val();
        self.c_tot.next = self.f2_x_total.q.val() < self.k_20.val();
        self.c_tr_ip2.next = self.f2_x_total.q.val() > self.f2_rem3.q.val();
        self.c_trail.next = self.f2_x_total.q.val() < self.f2_rem3.q.val();
        self.c_frag.next = (self.f2_x_ff.q.val() & self.k_ffmask.val()) != self.k_z16.val();
        self.c_notudp.next = self.f2_x_proto.q.val() != self.k_17.val();
        self.c_tr_udp.next = self.f2_rem4.q.val() < self.k_8.val();
        self.c_port.next = self.f2_x_dport.q.val() != self.k_port.val();
        self.c_ulen.next = self.f2_x_ulen.q.val() != self.f2_rem4.q.val();
        self.c_ucs_nz.next = self.f2_x_ucs.q.val() != self.k_z16.val();
        self.c_tr_bth.next = self.f2_rem4.q.val() < self.k_24.val();
        self.c_tver.next = self.f2_x_tv.q.val() != self.k_z4.val();
        self.is_w.next = self.f2_x_op.q.val() == self.k_opw.val();
        self.is_s.next = self.f2_x_op.q.val() == self.k_ops.val();
        self.is_a.next = self.f2_x_op.q.val() == self.k_opa.val();
        self.is_n.next = self.f2_x_op.q.val() == self.k_opn.val();
        self.is_p.next = self.f2_x_op.q.val() == self.k_opp.val();
        self.is_pr.next = self.f2_x_op.q.val() == self.k_oppr.val();
        self.is_data.next = self.is_w.val() | self.is_s.val();
        self.is_fixed.next = self.is_a.val() | self.is_n.val() | self.is_p.val() | self.is_pr.val();
        self.c_op.next = !(self.is_data.val() | self.is_fixed.val());
        self.d_exp.next = bit_cast::<16, 14>(self.f2_x_len.q.val().get_bits::<14>(0)) + bit_cast::<16, 2>(self.f2_x_pad.q.val());
        self.d_wpad.next = self.k_z2.val() - self.f2_x_len.q.val().get_bits::<2>(0);
        self.pid.next = self.f2_x_b0.q.val();
        if self.is_n.val() { self.pid.next = self.f2_x_b1.q.val(); }
        if self.is_data.val() {
            self.c_tr_ext.next = self.ge44.val() & self.lt80.val();
            self.c_lm.next = (self.f2_x_len.q.val().get_bits::<18>(14) != self.k_z18.val()) | (self.d_exp.val() != self.d_tot80.val());
            self.c_pad.next = self.f2_x_pad.q.val() != self.d_wpad.val();
        } else {
            self.c_tr_ext.next = self.ge44.val() & self.lt56.val();
            self.c_lm.next = self.f2_x_total.q.val() != self.k_56.val();
            if self.is_a.val() {
                self.c_tr_ext.next = self.ge44.val() & self.lt96.val();
                self.c_lm.next = self.f2_x_total.q.val() != self.k_96.val();
            }
            self.c_pad.next = self.f2_x_pad.q.val() != self.k_z2.val();
        }
        self.c_path.next = self.pid.val().get_bits::<4>(4) != self.k_z4.val();
        self.c_sack.next = self.is_a.val() & self.f2_x_sack0.q.val();
        self.c_nak.next = self.is_n.val() & ((self.f2_x_b0.q.val() == self.k_z8.val()) | (self.f2_x_b0.q.val() > self.k_6.val()));
        self.c_mac.next = self.f2_c_mac.q.val();
        self.c_bk.next = self.f2_c_bk.q.val();
        self.c_tl.next = self.f2_c_tl.q.val();
        // the record (fields an opcode does not carry are 0)
        self.r_opcode.next = self.f2_x_op.q.val();
        self.r_dest_qp.next = self.f2_x_qp.q.val();
        self.r_psn.next = self.f2_x_psn.q.val();
        self.r_path_id.next = self.pid.val().get_bits::<4>(0);
        self.r_ecn.next = self.f2_x_ecn.q.val();
        self.r_vlan.next = self.f2_x_vlan.q.val();
        self.r_path_psn.next = self.k_z24.val();
        self.r_msn.next = self.k_z32.val();
        self.r_offset.next = self.k_z32.val();
        self.r_flags.next = self.k_z8.val();
        self.r_va.next = self.k_z64b.val();
        self.r_rkey.next = self.k_z32.val();
        self.r_length.next = self.k_z32.val();
        self.r_ssn.next = self.k_z24.val();
        self.r_ts.next = self.k_z32.val();
        if self.is_data.val() {
            self.r_path_psn.next = self.f2_x_ppsn.q.val();
            self.r_msn.next = self.f2_x_msn.q.val();
            self.r_offset.next = self.f2_x_off.q.val();
            self.r_flags.next = self.f2_x_dflags.q.val();
            self.r_va.next = self.f2_x_va.q.val();
            self.r_rkey.next = self.f2_x_rkey.q.val();
            self.r_length.next = self.f2_x_len.q.val();
            self.r_ssn.next = self.f2_x_ssn.q.val();
            self.r_ts.next = self.f2_x_ts.q.val();
        }
        if self.is_a.val() { self.r_path_psn.next = self.f2_x_ppsn.q.val(); self.r_flags.next = self.f2_x_aflags.q.val(); }
        if self.is_n.val() { self.r_msn.next = self.f2_x_msn.q.val(); }
        // F2 -> F3 registers: every check bit and the record
        self.f3_valid.d.next = self.f2_valid.q.val();
        self.f3_c_tr_eth.d.next = self.f2_c_tr_eth.q.val();
        self.f3_c_ethertype.d.next = self.c_ethertype.val();
        self.f3_c_tr_ip1.d.next = self.c_tr_ip1.val();
        self.f3_c_ver.d.next = self.c_ver.val();
        self.f3_c_ihl.d.next = self.c_ihl.val();
        self.f3_c_tot.d.next = self.c_tot.val();
        self.f3_c_tr_ip2.d.next = self.c_tr_ip2.val();
        self.f3_c_trail.d.next = self.c_trail.val();
        self.f3_c_frag.d.next = self.c_frag.val();
        self.f3_c_notudp.d.next = self.c_notudp.val();
        self.f3_c_tr_udp.d.next = self.c_tr_udp.val();
        self.f3_c_port.d.next = self.c_port.val();
        self.f3_c_ulen.d.next = self.c_ulen.val();
        self.f3_c_ucs_nz.d.next = self.c_ucs_nz.val();
        self.f3_c_tr_bth.d.next = self.c_tr_bth.val();
        self.f3_c_tver.d.next = self.c_tver.val();
        self.f3_c_op.d.next = self.c_op.val();
        self.f3_c_tr_ext.d.next = self.c_tr_ext.val();
        self.f3_c_lm.d.next = self.c_lm.val();
        self.f3_c_pad.d.next = self.c_pad.val();
        self.f3_c_path.d.next = self.c_path.val();
        self.f3_c_sack.d.next = self.c_sack.val();
        self.f3_c_nak.d.next = self.c_nak.val();
        self.f3_c_mac.d.next = self.c_mac.val();
        self.f3_c_bk.d.next = self.c_bk.val();
        self.f3_c_tl.d.next = self.c_tl.val();
        self.f3_r_opcode.d.next = self.r_opcode.val();
        self.f3_r_dest_qp.d.next = self.r_dest_qp.val();
        self.f3_r_psn.d.next = self.r_psn.val();
        self.f3_r_path_id.d.next = self.r_path_id.val();
        self.f3_r_path_psn.d.next = self.r_path_psn.val();
        self.f3_r_msn.d.next = self.r_msn.val();
        self.f3_r_offset.d.next = self.r_offset.val();
        self.f3_r_flags.d.next = self.r_flags.val();
        self.f3_r_va.d.next = self.r_va.val();
        self.f3_r_rkey.d.next = self.r_rkey.val();
        self.f3_r_length.d.next = self.r_length.val();
        self.f3_r_ecn.d.next = self.r_ecn.val();
        self.f3_r_vlan.d.next = self.r_vlan.val();
        self.f3_r_ssn.d.next = self.r_ssn.val();
        self.f3_r_src.d.next = self.f2_x_src.q.val();
        self.f3_r_pkey.d.next = self.f2_x_pkey.q.val();
        self.f3_r_sport.d.next = self.f2_x_sport.q.val();
        self.f3_r_ack_req.d.next = self.f2_x_areq.q.val();
        self.f3_r_se.d.next = self.f2_x_se.q.val();
        self.f3_r_ts.d.next = self.r_ts.val();
        // ================= stage F3 (cycle 3): each run of checks between two checksums priority-encoded
        self.any_a.next = self.f3_c_mac.q.val() | self.f3_c_bk.q.val() | self.f3_c_tl.q.val() | self.f3_c_tr_eth.q.val() | self.f3_c_ethertype.q.val() | self.f3_c_tr_ip1.q.val() | self.f3_c_ver.q.val() | self.f3_c_ihl.q.val() | self.f3_c_tot.q.val() | self.f3_c_tr_ip2.q.val() | self.f3_c_trail.q.val();
        self.code_a.next = self.k_c0.val();
        if self.f3_c_trail.q.val() { self.code_a.next = self.k_c10.val(); }
        if self.f3_c_tr_ip2.q.val() { self.code_a.next = self.k_c2.val(); }
        if self.f3_c_tot.q.val() { self.code_a.next = self.k_c9.val(); }
        if self.f3_c_ihl.q.val() { self.code_a.next = self.k_c8.val(); }
        if self.f3_c_ver.q.val() { self.code_a.next = self.k_c7.val(); }
        if self.f3_c_tr_ip1.q.val() { self.code_a.next = self.k_c2.val(); }
        if self.f3_c_ethertype.q.val() { self.code_a.next = self.k_c6.val(); }
        if self.f3_c_tr_eth.q.val() { self.code_a.next = self.k_c1.val(); }
        if self.f3_c_tl.q.val() { self.code_a.next = self.k_c27.val(); }
        if self.f3_c_bk.q.val() { self.code_a.next = self.k_c26.val(); }
        if self.f3_c_mac.q.val() { self.code_a.next = self.k_c25.val(); }
        self.any_b.next = self.f3_c_frag.q.val() | self.f3_c_notudp.q.val() | self.f3_c_tr_udp.q.val() | self.f3_c_port.q.val() | self.f3_c_ulen.q.val();
        self.code_b.next = self.k_c0.val();
        if self.f3_c_ulen.q.val() { self.code_b.next = self.k_c15.val(); }
        if self.f3_c_port.q.val() { self.code_b.next = self.k_c14.val(); }
        if self.f3_c_tr_udp.q.val() { self.code_b.next = self.k_c3.val(); }
        if self.f3_c_notudp.q.val() { self.code_b.next = self.k_c13.val(); }
        if self.f3_c_frag.q.val() { self.code_b.next = self.k_c12.val(); }
        self.any_d.next = self.f3_c_tver.q.val() | self.f3_c_op.q.val() | self.f3_c_tr_ext.q.val() | self.f3_c_lm.q.val() | self.f3_c_pad.q.val() | self.f3_c_path.q.val() | self.f3_c_sack.q.val() | self.f3_c_nak.q.val();
        self.code_d.next = self.k_c0.val();
        if self.f3_c_nak.q.val() { self.code_d.next = self.k_c24.val(); }
        if self.f3_c_sack.q.val() { self.code_d.next = self.k_c23.val(); }
        if self.f3_c_path.q.val() { self.code_d.next = self.k_c22.val(); }
        if self.f3_c_pad.q.val() { self.code_d.next = self.k_c21.val(); }
        if self.f3_c_lm.q.val() { self.code_d.next = self.k_c20.val(); }
        if self.f3_c_tr_ext.q.val() { self.code_d.next = self.k_c5.val(); }
        if self.f3_c_op.q.val() { self.code_d.next = self.k_c19.val(); }
        if self.f3_c_tver.q.val() { self.code_d.next = self.k_c18.val(); }
        // F3 -> F4 registers
        // the frame carries a payload for the frame buffer (WRITE / SEND, length > 0), if it passes
        self.f4_dpay.d.next = ((self.f3_r_opcode.q.val() == self.k_opw.val()) | (self.f3_r_opcode.q.val() == self.k_ops.val())) & (self.f3_r_length.q.val() != self.k_z32b.val());
        self.f4_valid.d.next = self.f3_valid.q.val();
        self.f4_code_a.d.next = self.code_a.val();
        self.f4_any_a.d.next = self.any_a.val();
        self.f4_code_b.d.next = self.code_b.val();
        self.f4_any_b.d.next = self.any_b.val();
        self.f4_any_c.d.next = self.f3_c_tr_bth.q.val();
        self.f4_code_d.d.next = self.code_d.val();
        self.f4_any_d.d.next = self.any_d.val();
        self.f4_c_ucs_nz.d.next = self.f3_c_ucs_nz.q.val();
        self.f4_r_opcode.d.next = self.f3_r_opcode.q.val();
        self.f4_r_dest_qp.d.next = self.f3_r_dest_qp.q.val();
        self.f4_r_psn.d.next = self.f3_r_psn.q.val();
        self.f4_r_path_id.d.next = self.f3_r_path_id.q.val();
        self.f4_r_path_psn.d.next = self.f3_r_path_psn.q.val();
        self.f4_r_msn.d.next = self.f3_r_msn.q.val();
        self.f4_r_offset.d.next = self.f3_r_offset.q.val();
        self.f4_r_flags.d.next = self.f3_r_flags.q.val();
        self.f4_r_va.d.next = self.f3_r_va.q.val();
        self.f4_r_rkey.d.next = self.f3_r_rkey.q.val();
        self.f4_r_length.d.next = self.f3_r_length.q.val();
        self.f4_r_ecn.d.next = self.f3_r_ecn.q.val();
        self.f4_r_vlan.d.next = self.f3_r_vlan.q.val();
        self.f4_r_ssn.d.next = self.f3_r_ssn.q.val();
        self.f4_r_src.d.next = self.f3_r_src.q.val();
        self.f4_r_pkey.d.next = self.f3_r_pkey.q.val();
        self.f4_r_sport.d.next = self.f3_r_sport.q.val();
        self.f4_r_ack_req.d.next = self.f3_r_ack_req.q.val();
        self.f4_r_se.d.next = self.f3_r_se.q.val();
        self.f4_r_ts.d.next = self.f3_r_ts.q.val();
        // ================= stage F4 (cycle 4): the checksums arrive
        self.s4_ip_ok.d.next = self.ipsum.m_valid.val() & (self.ipsum.m_sum.val() == self.k_ffff.val());
        self.s4_udp_ok.d.next = self.udpsum.m_valid.val() & (self.udpsum.m_sum.val() == self.k_ffff.val());
        self.crc_ok.next = self.icrc.m_valid.val() & (self.icrc.m_crc.val() == self.k_residue.val());
        self.udp_bad.next = self.f4_c_ucs_nz.q.val() & !self.s4_udp_ok.q.val();
        self.p_a.next = !self.f4_any_a.q.val();
        self.sel_ip.next = self.p_a.val() & !self.s4_ip_ok.q.val();
        self.p_ip.next = self.p_a.val() & self.s4_ip_ok.q.val();
        self.sel_b.next = self.p_ip.val() & self.f4_any_b.q.val();
        self.p_b.next = self.p_ip.val() & !self.f4_any_b.q.val();
        self.sel_u.next = self.p_b.val() & self.udp_bad.val();
        self.p_u.next = self.p_b.val() & !self.udp_bad.val();
        self.sel_c.next = self.p_u.val() & self.f4_any_c.q.val();
        self.p_c.next = self.p_u.val() & !self.f4_any_c.q.val();
        self.good_pre.next = self.p_c.val() & !self.f4_any_d.q.val();
        // the verdict code (stat_last_verdict): with the ICRC good, with it bad, then the choice
        self.code_ok.next = self.k_c0.val();
        if self.f4_any_d.q.val() { self.code_ok.next = self.f4_code_d.q.val(); }
        if self.f4_any_c.q.val() { self.code_ok.next = self.k_c4.val(); }
        if self.udp_bad.val() { self.code_ok.next = self.k_c16.val(); }
        if self.f4_any_b.q.val() { self.code_ok.next = self.f4_code_b.q.val(); }
        if !self.s4_ip_ok.q.val() { self.code_ok.next = self.k_c11.val(); }
        if self.f4_any_a.q.val() { self.code_ok.next = self.f4_code_a.q.val(); }
        self.code_bad.next = self.k_c17.val();
        if self.f4_any_c.q.val() { self.code_bad.next = self.k_c4.val(); }
        if self.udp_bad.val() { self.code_bad.next = self.k_c16.val(); }
        if self.f4_any_b.q.val() { self.code_bad.next = self.f4_code_b.q.val(); }
        if !self.s4_ip_ok.q.val() { self.code_bad.next = self.k_c11.val(); }
        if self.f4_any_a.q.val() { self.code_bad.next = self.f4_code_a.q.val(); }
        self.code.next = self.code_bad.val();
        if self.crc_ok.val() { self.code.next = self.code_ok.val(); }
        self.pre_truncated_ethernet.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c1.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c1.val()));
        self.dk_truncated_ethernet.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c1.val());
        self.hit_truncated_ethernet.next = self.pre_truncated_ethernet.val() | (self.crc_ok.val() & self.dk_truncated_ethernet.val());
        self.pre_truncated_ipv4.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c2.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c2.val()));
        self.dk_truncated_ipv4.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c2.val());
        self.hit_truncated_ipv4.next = self.pre_truncated_ipv4.val() | (self.crc_ok.val() & self.dk_truncated_ipv4.val());
        self.pre_truncated_udp.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c3.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c3.val()));
        self.dk_truncated_udp.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c3.val());
        self.hit_truncated_udp.next = self.pre_truncated_udp.val() | (self.crc_ok.val() & self.dk_truncated_udp.val());
        self.pre_truncated_bth.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c4.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c4.val())) | self.sel_c.val();
        self.dk_truncated_bth.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c4.val());
        self.hit_truncated_bth.next = self.pre_truncated_bth.val() | (self.crc_ok.val() & self.dk_truncated_bth.val());
        self.pre_truncated_extension.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c5.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c5.val()));
        self.dk_truncated_extension.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c5.val());
        self.hit_truncated_extension.next = self.pre_truncated_extension.val() | (self.crc_ok.val() & self.dk_truncated_extension.val());
        self.pre_bad_ethertype.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c6.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c6.val()));
        self.dk_bad_ethertype.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c6.val());
        self.hit_bad_ethertype.next = self.pre_bad_ethertype.val() | (self.crc_ok.val() & self.dk_bad_ethertype.val());
        self.pre_bad_ip_version.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c7.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c7.val()));
        self.dk_bad_ip_version.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c7.val());
        self.hit_bad_ip_version.next = self.pre_bad_ip_version.val() | (self.crc_ok.val() & self.dk_bad_ip_version.val());
        self.pre_bad_ip_header_length.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c8.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c8.val()));
        self.dk_bad_ip_header_length.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c8.val());
        self.hit_bad_ip_header_length.next = self.pre_bad_ip_header_length.val() | (self.crc_ok.val() & self.dk_bad_ip_header_length.val());
        self.pre_bad_ip_total_length.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c9.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c9.val()));
        self.dk_bad_ip_total_length.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c9.val());
        self.hit_bad_ip_total_length.next = self.pre_bad_ip_total_length.val() | (self.crc_ok.val() & self.dk_bad_ip_total_length.val());
        self.pre_trailing_bytes.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c10.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c10.val()));
        self.dk_trailing_bytes.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c10.val());
        self.hit_trailing_bytes.next = self.pre_trailing_bytes.val() | (self.crc_ok.val() & self.dk_trailing_bytes.val());
        self.pre_bad_ip_checksum.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c11.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c11.val())) | self.sel_ip.val();
        self.dk_bad_ip_checksum.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c11.val());
        self.hit_bad_ip_checksum.next = self.pre_bad_ip_checksum.val() | (self.crc_ok.val() & self.dk_bad_ip_checksum.val());
        self.pre_fragmented.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c12.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c12.val()));
        self.dk_fragmented.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c12.val());
        self.hit_fragmented.next = self.pre_fragmented.val() | (self.crc_ok.val() & self.dk_fragmented.val());
        self.pre_not_udp.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c13.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c13.val()));
        self.dk_not_udp.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c13.val());
        self.hit_not_udp.next = self.pre_not_udp.val() | (self.crc_ok.val() & self.dk_not_udp.val());
        self.pre_wrong_udp_port.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c14.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c14.val()));
        self.dk_wrong_udp_port.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c14.val());
        self.hit_wrong_udp_port.next = self.pre_wrong_udp_port.val() | (self.crc_ok.val() & self.dk_wrong_udp_port.val());
        self.pre_udp_length_mismatch.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c15.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c15.val()));
        self.dk_udp_length_mismatch.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c15.val());
        self.hit_udp_length_mismatch.next = self.pre_udp_length_mismatch.val() | (self.crc_ok.val() & self.dk_udp_length_mismatch.val());
        self.pre_bad_udp_checksum.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c16.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c16.val())) | self.sel_u.val();
        self.dk_bad_udp_checksum.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c16.val());
        self.hit_bad_udp_checksum.next = self.pre_bad_udp_checksum.val() | (self.crc_ok.val() & self.dk_bad_udp_checksum.val());
        self.pre_bad_icrc.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c17.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c17.val()));
        self.dk_bad_icrc.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c17.val());
        self.hit_bad_icrc.next = self.pre_bad_icrc.val() | (self.crc_ok.val() & self.dk_bad_icrc.val()) | (!self.crc_ok.val() & self.p_c.val());
        self.pre_bad_transport_version.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c18.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c18.val()));
        self.dk_bad_transport_version.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c18.val());
        self.hit_bad_transport_version.next = self.pre_bad_transport_version.val() | (self.crc_ok.val() & self.dk_bad_transport_version.val());
        self.pre_unknown_opcode.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c19.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c19.val()));
        self.dk_unknown_opcode.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c19.val());
        self.hit_unknown_opcode.next = self.pre_unknown_opcode.val() | (self.crc_ok.val() & self.dk_unknown_opcode.val());
        self.pre_length_mismatch.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c20.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c20.val()));
        self.dk_length_mismatch.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c20.val());
        self.hit_length_mismatch.next = self.pre_length_mismatch.val() | (self.crc_ok.val() & self.dk_length_mismatch.val());
        self.pre_bad_pad_count.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c21.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c21.val()));
        self.dk_bad_pad_count.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c21.val());
        self.hit_bad_pad_count.next = self.pre_bad_pad_count.val() | (self.crc_ok.val() & self.dk_bad_pad_count.val());
        self.pre_bad_path_id.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c22.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c22.val()));
        self.dk_bad_path_id.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c22.val());
        self.hit_bad_path_id.next = self.pre_bad_path_id.val() | (self.crc_ok.val() & self.dk_bad_path_id.val());
        self.pre_sack_base_bit_set.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c23.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c23.val()));
        self.dk_sack_base_bit_set.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c23.val());
        self.hit_sack_base_bit_set.next = self.pre_sack_base_bit_set.val() | (self.crc_ok.val() & self.dk_sack_base_bit_set.val());
        self.pre_bad_nak_code.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c24.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c24.val()));
        self.dk_bad_nak_code.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c24.val());
        self.hit_bad_nak_code.next = self.pre_bad_nak_code.val() | (self.crc_ok.val() & self.dk_bad_nak_code.val());
        self.pre_mac_error.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c25.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c25.val()));
        self.dk_mac_error.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c25.val());
        self.hit_mac_error.next = self.pre_mac_error.val() | (self.crc_ok.val() & self.dk_mac_error.val());
        self.pre_bad_keep.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c26.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c26.val()));
        self.dk_bad_keep.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c26.val());
        self.hit_bad_keep.next = self.pre_bad_keep.val() | (self.crc_ok.val() & self.dk_bad_keep.val());
        self.pre_too_long.next = (self.f4_any_a.q.val() & (self.f4_code_a.q.val() == self.k_c27.val())) | (self.sel_b.val() & (self.f4_code_b.q.val() == self.k_c27.val()));
        self.dk_too_long.next = self.p_c.val() & self.f4_any_d.q.val() & (self.f4_code_d.q.val() == self.k_c27.val());
        self.hit_too_long.next = self.pre_too_long.val() | (self.crc_ok.val() & self.dk_too_long.val());
        self.gk_write.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_opw.val());
        self.gk_send.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_ops.val());
        self.gk_ack.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_opa.val());
        self.gk_nak.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_opn.val());
        self.gk_probe.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_opp.val());
        self.gk_probe_reply.next = self.good_pre.val() & (self.f4_r_opcode.q.val() == self.k_oppr.val());
        // ================= stage O (cycle 5): record, counters, last verdict
        if self.o_valid.q.val() & self.m_hdr_ready.val() { self.o_valid.d.next = false; }
        if self.f4_valid.q.val() {
            self.o_last.d.next = self.code.val();
            if self.good_pre.val() & self.crc_ok.val() { self.o_valid.d.next = true; }
            // the record's data needs no ICRC: a frame passing every other check is >= 8 beats, so the
            // output register is empty here (hazards); m_hdr_* are only meaningful with m_hdr_valid
            if self.good_pre.val() {
                self.o_opcode.d.next = self.f4_r_opcode.q.val();
                self.o_dest_qp.d.next = self.f4_r_dest_qp.q.val();
                self.o_psn.d.next = self.f4_r_psn.q.val();
                self.o_path_id.d.next = self.f4_r_path_id.q.val();
                self.o_path_psn.d.next = self.f4_r_path_psn.q.val();
                self.o_msn.d.next = self.f4_r_msn.q.val();
                self.o_offset.d.next = self.f4_r_offset.q.val();
                self.o_flags.d.next = self.f4_r_flags.q.val();
                self.o_va.d.next = self.f4_r_va.q.val();
                self.o_rkey.d.next = self.f4_r_rkey.q.val();
                self.o_length.d.next = self.f4_r_length.q.val();
                self.o_ecn.d.next = self.f4_r_ecn.q.val();
                self.o_vlan.d.next = self.f4_r_vlan.q.val();
                self.o_ssn.d.next = self.f4_r_ssn.q.val();
                self.o_src.d.next = self.f4_r_src.q.val();
                self.o_pkey.d.next = self.f4_r_pkey.q.val();
                self.o_sport.d.next = self.f4_r_sport.q.val();
                self.o_ack_req.d.next = self.f4_r_ack_req.q.val();
                self.o_se.d.next = self.f4_r_se.q.val();
                self.o_ts.d.next = self.f4_r_ts.q.val();
            }
            if self.gk_write.val() & self.crc_ok.val() { self.n_good_write.d.next = self.n_good_write.q.val() + 1; }
            if self.gk_send.val() & self.crc_ok.val() { self.n_good_send.d.next = self.n_good_send.q.val() + 1; }
            if self.gk_ack.val() & self.crc_ok.val() { self.n_good_ack.d.next = self.n_good_ack.q.val() + 1; }
            if self.gk_nak.val() & self.crc_ok.val() { self.n_good_nak.d.next = self.n_good_nak.q.val() + 1; }
            if self.gk_probe.val() & self.crc_ok.val() { self.n_good_probe.d.next = self.n_good_probe.q.val() + 1; }
            if self.gk_probe_reply.val() & self.crc_ok.val() { self.n_good_probe_reply.d.next = self.n_good_probe_reply.q.val() + 1; }
            if self.hit_truncated_ethernet.val() { self.n_drop_truncated_ethernet.d.next = self.n_drop_truncated_ethernet.q.val() + 1; }
            if self.hit_truncated_ipv4.val() { self.n_drop_truncated_ipv4.d.next = self.n_drop_truncated_ipv4.q.val() + 1; }
            if self.hit_truncated_udp.val() { self.n_drop_truncated_udp.d.next = self.n_drop_truncated_udp.q.val() + 1; }
            if self.hit_truncated_bth.val() { self.n_drop_truncated_bth.d.next = self.n_drop_truncated_bth.q.val() + 1; }
            if self.hit_truncated_extension.val() { self.n_drop_truncated_extension.d.next = self.n_drop_truncated_extension.q.val() + 1; }
            if self.hit_bad_ethertype.val() { self.n_drop_bad_ethertype.d.next = self.n_drop_bad_ethertype.q.val() + 1; }
            if self.hit_bad_ip_version.val() { self.n_drop_bad_ip_version.d.next = self.n_drop_bad_ip_version.q.val() + 1; }
            if self.hit_bad_ip_header_length.val() { self.n_drop_bad_ip_header_length.d.next = self.n_drop_bad_ip_header_length.q.val() + 1; }
            if self.hit_bad_ip_total_length.val() { self.n_drop_bad_ip_total_length.d.next = self.n_drop_bad_ip_total_length.q.val() + 1; }
            if self.hit_trailing_bytes.val() { self.n_drop_trailing_bytes.d.next = self.n_drop_trailing_bytes.q.val() + 1; }
            if self.hit_bad_ip_checksum.val() { self.n_drop_bad_ip_checksum.d.next = self.n_drop_bad_ip_checksum.q.val() + 1; }
            if self.hit_fragmented.val() { self.n_drop_fragmented.d.next = self.n_drop_fragmented.q.val() + 1; }
            if self.hit_not_udp.val() { self.n_drop_not_udp.d.next = self.n_drop_not_udp.q.val() + 1; }
            if self.hit_wrong_udp_port.val() { self.n_drop_wrong_udp_port.d.next = self.n_drop_wrong_udp_port.q.val() + 1; }
            if self.hit_udp_length_mismatch.val() { self.n_drop_udp_length_mismatch.d.next = self.n_drop_udp_length_mismatch.q.val() + 1; }
            if self.hit_bad_udp_checksum.val() { self.n_drop_bad_udp_checksum.d.next = self.n_drop_bad_udp_checksum.q.val() + 1; }
            if self.hit_bad_icrc.val() { self.n_drop_bad_icrc.d.next = self.n_drop_bad_icrc.q.val() + 1; }
            if self.hit_bad_transport_version.val() { self.n_drop_bad_transport_version.d.next = self.n_drop_bad_transport_version.q.val() + 1; }
            if self.hit_unknown_opcode.val() { self.n_drop_unknown_opcode.d.next = self.n_drop_unknown_opcode.q.val() + 1; }
            if self.hit_length_mismatch.val() { self.n_drop_length_mismatch.d.next = self.n_drop_length_mismatch.q.val() + 1; }
            if self.hit_bad_pad_count.val() { self.n_drop_bad_pad_count.d.next = self.n_drop_bad_pad_count.q.val() + 1; }
            if self.hit_bad_path_id.val() { self.n_drop_bad_path_id.d.next = self.n_drop_bad_path_id.q.val() + 1; }
            if self.hit_sack_base_bit_set.val() { self.n_drop_sack_base_bit_set.d.next = self.n_drop_sack_base_bit_set.q.val() + 1; }
            if self.hit_bad_nak_code.val() { self.n_drop_bad_nak_code.d.next = self.n_drop_bad_nak_code.q.val() + 1; }
            if self.hit_mac_error.val() { self.n_drop_mac_error.d.next = self.n_drop_mac_error.q.val() + 1; }
            if self.hit_bad_keep.val() { self.n_drop_bad_keep.d.next = self.n_drop_bad_keep.q.val() + 1; }
            if self.hit_too_long.val() { self.n_drop_too_long.d.next = self.n_drop_too_long.q.val() + 1; }
        }
        // ================= the verdict FIFO (m_vrd): every frame's keep bit, in frame order
        self.vq_push.next = self.f4_valid.q.val();
        self.vq_keep.next = self.good_pre.val() & self.crc_ok.val() & self.f4_dpay.q.val();
        self.vq_pop.next = (self.vq_n.q.val() != self.k_z4.val()) & self.m_vrd_ready.val();
        self.vq_bit.next = self.k_one8.val() << self.vq_wp.q.val();
        if self.vq_push.val() {
            if self.vq_keep.val() { self.vq.d.next = self.vq.q.val() | self.vq_bit.val(); } else { self.vq.d.next = self.vq.q.val() & !self.vq_bit.val(); }
            self.vq_wp.d.next = self.vq_wp.q.val() + self.k_one3.val();
        }
        if self.vq_pop.val() { self.vq_rp.d.next = self.vq_rp.q.val() + self.k_one3.val(); }
        if self.vq_push.val() & !self.vq_pop.val() { self.vq_n.d.next = self.vq_n.q.val() + self.k_one4.val(); }
        if self.vq_pop.val() & !self.vq_push.val() { self.vq_n.d.next = self.vq_n.q.val() - self.k_one4.val(); }
        // ================= reset
        if self.rst.val() {
            self.bcnt.d.next = self.k_b0.val();
            self.cnt.d.next = self.k_z14.val();
            self.rem.d.next = self.k_max.val();
            self.cu.d.next = self.k_addu.val();
            self.ct.d.next = self.k_addt.val();
            self.ipk.d.next = self.k_z8.val();
            self.udk.d.next = self.k_z8.val();
            self.at_b0.d.next = true;
            self.cm_and.d.next = self.k_cand_0.val();
            self.cm_or.d.next = self.k_cor_0.val();
            self.cm_b1.d.next = false;
            self.acc_mac.d.next = false;
            self.acc_bk.d.next = false;
            self.acc_tl.d.next = false;
            self.f1_valid.d.next = false;
            self.f2_valid.d.next = false;
            self.f3_valid.d.next = false;
            self.f4_valid.d.next = false;
            self.o_valid.d.next = false;
            self.vq_wp.d.next = self.k_z3.val();
            self.vq_rp.d.next = self.k_z3.val();
            self.vq_n.d.next = self.k_z4.val();
            self.o_last.d.next = self.k_none.val();
            self.n_drop_truncated_ethernet.d.next = self.k_z32b.val();
            self.n_drop_truncated_ipv4.d.next = self.k_z32b.val();
            self.n_drop_truncated_udp.d.next = self.k_z32b.val();
            self.n_drop_truncated_bth.d.next = self.k_z32b.val();
            self.n_drop_truncated_extension.d.next = self.k_z32b.val();
            self.n_drop_bad_ethertype.d.next = self.k_z32b.val();
            self.n_drop_bad_ip_version.d.next = self.k_z32b.val();
            self.n_drop_bad_ip_header_length.d.next = self.k_z32b.val();
            self.n_drop_bad_ip_total_length.d.next = self.k_z32b.val();
            self.n_drop_trailing_bytes.d.next = self.k_z32b.val();
            self.n_drop_bad_ip_checksum.d.next = self.k_z32b.val();
            self.n_drop_fragmented.d.next = self.k_z32b.val();
            self.n_drop_not_udp.d.next = self.k_z32b.val();
            self.n_drop_wrong_udp_port.d.next = self.k_z32b.val();
            self.n_drop_udp_length_mismatch.d.next = self.k_z32b.val();
            self.n_drop_bad_udp_checksum.d.next = self.k_z32b.val();
            self.n_drop_bad_icrc.d.next = self.k_z32b.val();
            self.n_drop_bad_transport_version.d.next = self.k_z32b.val();
            self.n_drop_unknown_opcode.d.next = self.k_z32b.val();
            self.n_drop_length_mismatch.d.next = self.k_z32b.val();
            self.n_drop_bad_pad_count.d.next = self.k_z32b.val();
            self.n_drop_bad_path_id.d.next = self.k_z32b.val();
            self.n_drop_sack_base_bit_set.d.next = self.k_z32b.val();
            self.n_drop_bad_nak_code.d.next = self.k_z32b.val();
            self.n_drop_mac_error.d.next = self.k_z32b.val();
            self.n_drop_bad_keep.d.next = self.k_z32b.val();
            self.n_drop_too_long.d.next = self.k_z32b.val();
            self.n_good_write.d.next = self.k_z32b.val();
            self.n_good_send.d.next = self.k_z32b.val();
            self.n_good_ack.d.next = self.k_z32b.val();
            self.n_good_nak.d.next = self.k_z32b.val();
            self.n_good_probe.d.next = self.k_z32b.val();
            self.n_good_probe_reply.d.next = self.k_z32b.val();
        }
        // ================= outputs
        self.m_hdr_valid.next = self.o_valid.q.val();
        self.m_hdr_opcode.next = self.o_opcode.q.val();
        self.m_hdr_dest_qp.next = self.o_dest_qp.q.val();
        self.m_hdr_psn.next = self.o_psn.q.val();
        self.m_hdr_path_id.next = self.o_path_id.q.val();
        self.m_hdr_path_psn.next = self.o_path_psn.q.val();
        self.m_hdr_msn.next = self.o_msn.q.val();
        self.m_hdr_offset.next = self.o_offset.q.val();
        self.m_hdr_flags.next = self.o_flags.q.val();
        self.m_hdr_va.next = self.o_va.q.val();
        self.m_hdr_rkey.next = self.o_rkey.q.val();
        self.m_hdr_length.next = self.o_length.q.val();
        self.m_hdr_ecn.next = self.o_ecn.q.val();
        self.m_hdr_vlan.next = self.o_vlan.q.val();
        self.m_hdr_ssn.next = self.o_ssn.q.val();
        self.m_hdr_src.next = self.o_src.q.val();
        self.m_hdr_pkey.next = self.o_pkey.q.val();
        self.m_hdr_sport.next = self.o_sport.q.val();
        self.m_hdr_ack_req.next = self.o_ack_req.q.val();
        self.m_hdr_se.next = self.o_se.q.val();
        self.m_hdr_ts.next = self.o_ts.q.val();
        self.stat_drop_truncated_ethernet.next = self.n_drop_truncated_ethernet.q.val();
        self.stat_drop_truncated_ipv4.next = self.n_drop_truncated_ipv4.q.val();
        self.stat_drop_truncated_udp.next = self.n_drop_truncated_udp.q.val();
        self.stat_drop_truncated_bth.next = self.n_drop_truncated_bth.q.val();
        self.stat_drop_truncated_extension.next = self.n_drop_truncated_extension.q.val();
        self.stat_drop_bad_ethertype.next = self.n_drop_bad_ethertype.q.val();
        self.stat_drop_bad_ip_version.next = self.n_drop_bad_ip_version.q.val();
        self.stat_drop_bad_ip_header_length.next = self.n_drop_bad_ip_header_length.q.val();
        self.stat_drop_bad_ip_total_length.next = self.n_drop_bad_ip_total_length.q.val();
        self.stat_drop_trailing_bytes.next = self.n_drop_trailing_bytes.q.val();
        self.stat_drop_bad_ip_checksum.next = self.n_drop_bad_ip_checksum.q.val();
        self.stat_drop_fragmented.next = self.n_drop_fragmented.q.val();
        self.stat_drop_not_udp.next = self.n_drop_not_udp.q.val();
        self.stat_drop_wrong_udp_port.next = self.n_drop_wrong_udp_port.q.val();
        self.stat_drop_udp_length_mismatch.next = self.n_drop_udp_length_mismatch.q.val();
        self.stat_drop_bad_udp_checksum.next = self.n_drop_bad_udp_checksum.q.val();
        self.stat_drop_bad_icrc.next = self.n_drop_bad_icrc.q.val();
        self.stat_drop_bad_transport_version.next = self.n_drop_bad_transport_version.q.val();
        self.stat_drop_unknown_opcode.next = self.n_drop_unknown_opcode.q.val();
        self.stat_drop_length_mismatch.next = self.n_drop_length_mismatch.q.val();
        self.stat_drop_bad_pad_count.next = self.n_drop_bad_pad_count.q.val();
        self.stat_drop_bad_path_id.next = self.n_drop_bad_path_id.q.val();
        self.stat_drop_sack_base_bit_set.next = self.n_drop_sack_base_bit_set.q.val();
        self.stat_drop_bad_nak_code.next = self.n_drop_bad_nak_code.q.val();
        self.stat_drop_mac_error.next = self.n_drop_mac_error.q.val();
        self.stat_drop_bad_keep.next = self.n_drop_bad_keep.q.val();
        self.stat_drop_too_long.next = self.n_drop_too_long.q.val();
        self.stat_good_write.next = self.n_good_write.q.val();
        self.stat_good_send.next = self.n_good_send.q.val();
        self.stat_good_ack.next = self.n_good_ack.q.val();
        self.stat_good_nak.next = self.n_good_nak.q.val();
        self.stat_good_probe.next = self.n_good_probe.q.val();
        self.stat_good_probe_reply.next = self.n_good_probe_reply.q.val();
        self.stat_last_verdict.next = self.o_last.q.val();
        self.m_vrd_valid.next = self.vq_n.q.val() != self.k_z4.val();
        self.m_vrd_keep.next = self.vq.q.val().get_bit(self.vq_rp.q.val().index());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrnic_model::wire::icrc::Crc32;

    #[test]
    fn the_steering_prefix_brings_the_icrc_register_to_the_seed_at_the_ipv4_header_tagged_or_not() {
        for tagged in [false, true] {
            let l3 = if tagged { 18 } else { 14 };
            let pre: Vec<u8> = forced_bytes(tagged).iter().filter(|(i, _)| *i < l3).map(|(_, x)| *x).collect();
            assert_eq!(pre.len(), l3);
            let mut c = Crc32::from_state(CRC_INIT);
            c.update(&pre);
            assert_eq!(c.state(), ICRC_SEED, "tagged {tagged}");
        }
    }

    #[test]
    fn the_masks_force_exactly_the_listed_bytes() {
        let m = CrcMasks::compute();
        // untagged byte 15 (IPv4 TOS) is lane 7 of beat 1; tagged byte 50 (BTH resv8a) lane 2 of beat 6
        assert_eq!((m.and_1u >> 56) & 0xFF, 0);
        assert_eq!((m.or_1u >> 56) & 0xFF, 0xFF);
        assert_eq!((m.and_1u >> 48) & 0xFF, 0xFF, "byte 14 (version, IHL) passes");
        assert_eq!((m.or_6t >> 16) & 0xFF, 0xFF);
        assert_eq!(m.and_6t, !(0xFFu64 << 16));
    }

    #[test]
    fn the_rtl_latency_is_the_model_shells() {
        assert_eq!(LATENCY, mrnic_model::wire::parser_shell::PARSER_LATENCY);
    }
}
