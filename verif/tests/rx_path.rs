//! Composition test of the receive data path from the MAC to host memory: the frame parser
//! (`mrnic_parser`), the frame buffer (`mrnic_fbuf`), the payload realigner
//! (`mrnic_realign`) and the DMA placement unit's write path (`mrnic_placement`), all four
//! Verilated from their generated Verilog and wired as the receive path wires them:
//!
//! - the MAC's beat to the parser and the buffer (each block's `tvalid` gated by the other's
//!   `tready`), the parser's verdicts into the buffer, as in `rx_front.rs`;
//! - the buffer's frames into the realigner, the realigner's lane-aligned beats into
//!   placement's `d`, placement's AXI4 write master into a host memory model with random
//!   `awready` / `wready` / B delays, placement's completions into a sink that stalls;
//! - the test stands in for the blocks not built yet between the parser's header record and
//!   the two commands (the SACK engine and `place_chk`): for each record of a frame the buffer
//!   keeps, it sends the realigner (payload offset, `m_hdr_length`, `va mod 8`) and placement
//!   (`va`, `m_hdr_length`, the window `[va, va + length)`); a SEND goes to a receive-buffer
//!   address the test derives from its MSN and offset. One kept frame in ten (and any whose
//!   window would wrap past 2^64) is "refused by the checks": the realigner discards it
//!   (`len = 0`) and placement gets no command. The payload offset is the DATA header stack's
//!   (90 bytes), 4 more when the record's `vlan` flag is set.
//!
//! With `place_chk` (the tests `with_place_chk_*`) the checks are the real block's: for each
//! kept frame's record the test writes the rows the request will read through `s_cfg`
//! (an MR row for a WRITE, an RQ row and a posted buffer for a SEND; one in four with a
//! fault: a short region or buffer, no write right, another key's tag, another protection
//! domain, no posted buffer), then sends the request (connection = destination QP mod the
//! connections, the rest from the record).
//! `place_chk`'s model cycle shell (`ChkShell`) runs side by side with the same inputs and
//! every output is compared every cycle; a result that is ok becomes the two commands with
//! its `addr`, `base` and `wlen`, a NAK a discard.
//!
//! With the SACK engine and the connection checks (the tests `with_the_sack_engine_*`) the
//! header path is the receiver's: every record (every opcode) goes to `mrnic_conn_chk`
//! (destination QP -> connection, peer, P_Key, path id; its rows written through `s_cfg`
//! first, and now and then a connection reopened under its next tag), a kept frame it
//! refuses is discarded and reaches neither place_chk nor the engine; a kept frame it
//! passes goes to place_chk with the connection it found, then to `mrnic_sack` with
//! `s_commit` = place_chk's verdict (classify, then commit); the frame is placed only if
//! the checks passed and the engine finds it new. Every packet the engine classified then
//! goes to `mrnic_ackgen` with its class (refused by the checks, new, duplicate, out of
//! window), path, path PSN, A bit, CE mark, timestamp and source port from the record, the
//! NIC's time advancing by the preset's clock period each cycle; the engine's result for it
//! (base and bitmap) goes to `mrnic_ackjoin`, and so does every entry the generator leaves
//! (one per packet, timer ACKs between them): every ACK the generator sends leaves the join
//! with the engine's cumulative PSN and bitmap. The frames' destination QP, source
//! address, P_Key, path id and PSN are shaped for this (`sack_shape`: PSNs drawn around
//! each connection's base as the SACK model has it, a few connection faults). All five
//! header blocks are compared every cycle with their model shells, and the commands leave in
//! frame order however the decisions arrive (`Cmds::decide`).
//!
//! With the completion unit (`mrnic_cmpl`, in the same tests) placement's tag is the unit's
//! `Done` op as the header path knows it at the decision (`WrDone::tag`: connection, MSN,
//! packet offset, LAST, SEND, SSN, SE, from the record), and placement's completion stream is
//! the unit's write port, wired as it is (`m_valid`, `m_tag`, `m_bytes`, `m_resp` to
//! `s_wr_valid`, `s_wr_tag`, `s_wr_bytes`, `s_wr_resp`, and `s_wr_ready` back to placement's
//! `m_ready`): the unit unpacks the tag, and `m_resp == 0` is OKAY. The unit's own arbiter
//! takes placement's completion first, then the fatal port, then the open port; the test's
//! two FIFOs are those ports' sources, each popped on its own ready: a new packet that
//! place_chk refuses for any reason but a missing receive buffer is a `Fatal` op for its
//! message; every connection opens before the first frame (the MAC
//! waits), and again when the connection checks reopen it or, on two errors in three, after
//! a fatal refusal. The frames' MSNs are drawn around each connection's next MSN as the
//! unit's model has it (`sack_shape`), and the host answers every 61st write's B responses
//! SLVERR (its completion then carries the error, and the unit completes its message with
//! WriteError). The unit is compared every cycle with its model shell (ready, valid, every
//! completion record) and its counters at the end.
//!
//! The frames are the parser stimulus's hostile mix. What must hold: host memory holds
//! exactly the payloads of the placed frames at their addresses (later writes over earlier)
//! and no other byte (no write for a dropped, refused or empty frame, nothing outside a
//! window); every burst obeys AXI4 (at most 256 beats, no 4 KiB crossing, `wlast` on its last
//! beat); every placed frame gets one completion, in order, OKAY, with its byte count; each
//! record equals the model's decode of its frame; no hang.

use mrnic_model::wire::axis::{frame_bytes, AxisRx, Beat};
use mrnic_model::wire::ext::{data_flags, NakCode, DATA_HDRS_LEN};
use mrnic_model::wire::parser_shell::vrd_keep;
use mrnic_model::wire::{bth::BTH_LEN, decode, ipv4::IPV4_HLEN, opcode, udp::UDP_HLEN, Body};
use mrnic_model::sack::{Class, SackInputs, SackOp, SackShell};
use mrnic_model::transport::ackgen::AckIn;
use mrnic_model::transport::ackgen_shell::{AckCfg, AckShell, AckShellAck, AckShellIn};
use mrnic_model::transport::ackjoin::{AckJoinShell, JoinShellIn, SackIn};
use mrnic_model::transport::cmpl::{CmplOp, CmplShell, CmplShellIn, WrDone};
use mrnic_model::transport::conn_chk_shell::{ConnCfg, ConnChkInputs, ConnChkShell, ConnReq, ConnRow};
use mrnic_model::transport::place_chk_shell::{CfgWrite, ChkConfig, ChkInputs, ChkReq, ChkResult, ChkShell};
use mrnic_model::wire::Frame;
use mrnic_model::Config;
use mrnic_verif::blocks::parser::stimulus::{ParserStimulus, Shape};
use mrnic_verif::blocks::{ackgen, ackjoin, cmpl, conn_chk, place_chk};
use mrnic_verif::kit::testing::{diff_scale, extra_seed, mutant_build};
use mrnic_verif::kit::DiffBench;
use mrnic_verif::vl::cache::{sanitize, waves_dir};
use mrnic_verif::vl::{BuildOpts, Model, Port, Sim};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Cycles without progress that count as a hang.
const HANG_CYCLES: u64 = 20_000;
/// Where a SEND's payload goes: this base + (MSN mod 256) x 2^24 + its offset.
const SEND_BASE: u64 = 0x5e0d_0000_0000;

/// The data path's blocks; `place_chk` and the SACK engine are added by the tests that use
/// them.
const PATH: [&str; 4] = ["parser", "fbuf", "realign", "placement"];
const WITH_CHK: [&str; 5] = ["parser", "fbuf", "realign", "placement", "place_chk"];
const WITH_SACK: [&str; 10] = ["parser", "fbuf", "realign", "placement", "place_chk", "sack", "conn_chk", "ackgen", "ackjoin", "cmpl"];
/// Connections the SACK runs use (destination QP mod 256 below this), so that each one sees
/// enough packets to move its window many times over.
const SACK_CONNS: u32 = 16;

/// The generated blocks (in the order given), one of them possibly with a kit mutant.
struct Models(Vec<(&'static str, Model)>);

fn build(blocks: &[&'static str], mutant: Option<(&str, &str)>) -> Models {
    Models(
        blocks
            .iter()
            .map(|&name| {
                let b = DiffBench::new(name, "core", "rx_path");
                let mut v = b.verilog.clone();
                let mut opts = BuildOpts::untraced();
                let mut tag = String::new();
                if let Some((mb, mn)) = mutant.filter(|m| m.0 == name) {
                    let m = (mrnic_verif::blocks::block(mb).unwrap().mutants)().into_iter().find(|m| m.name == mn).unwrap_or_else(|| panic!("no {mb} mutant {mn}"));
                    v = m.apply(&v).unwrap_or_else(|e| panic!("{e}"));
                    opts = mutant_build();
                    tag = format!("_{mn}");
                }
                (name, Model::build(&format!("rx_path_{name}{tag}"), &v, &b.iface.ports, &opts).unwrap_or_else(|e| panic!("{e}")))
            })
            .collect(),
    )
}

/// One Verilated block with its ports by name.
struct Blk {
    sim: Sim,
    ports: HashMap<String, Port>,
    clock: Port,
}

impl Blk {
    fn new(sim: Sim) -> Blk {
        let ports: HashMap<String, Port> = sim.ports().iter().map(|p| (p.name.clone(), sim.port(&p.name).unwrap())).collect();
        let clock = ports["clock"];
        Blk { sim, ports, clock }
    }
    fn set(&mut self, n: &str, v: u64) {
        let p = self.ports.get(n).unwrap_or_else(|| panic!("no port {n}"));
        self.sim.set(p, v);
    }
    fn get(&self, n: &str) -> u64 {
        self.sim.get(self.ports.get(n).unwrap_or_else(|| panic!("no port {n}")))
    }
    fn bit(&self, n: &str) -> bool {
        self.get(n) == 1
    }
    fn set_wide(&mut self, n: &str, words: &[u32]) {
        let p = self.ports.get(n).unwrap_or_else(|| panic!("no port {n}"));
        self.sim.set_wide(p, words);
    }
    /// A port of up to 128 bits (placement's tag) as one number.
    fn get_u128(&self, n: &str) -> u128 {
        self.wide(n).iter().rev().fold(0, |a, &x| a << 32 | u128::from(x))
    }
    fn set_u128(&mut self, n: &str, v: u128) {
        let words = [v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32];
        let k = self.ports.get(n).unwrap_or_else(|| panic!("no port {n}")).words();
        self.set_wide(n, &words[..k.min(4)]);
    }
    fn wide(&self, n: &str) -> Vec<u32> {
        self.sim.get_wide(self.ports.get(n).unwrap_or_else(|| panic!("no port {n}")))
    }
}

/// What one run saw.
#[derive(Debug, Default)]
struct Stats {
    cycles: u64,
    frames: u64,
    kept: u64,
    dropped: u64,
    records: u64,
    placed: u64,
    refused: u64,
    payload_bytes: u64,
    bursts: u64,
    w_beats: u64,
    completions: u64,
    max_burst: u64,
    cfg_writes: u64,
    /// place_chk's NAKs by code.
    naks: BTreeMap<u8, u64>,
    /// SACK runs: packets the checks passed that the engine found duplicate or out of window
    /// (not placed), clears, and packets placed as new after the checks had refused the same
    /// PSN of the connection (which the engine therefore had not recorded).
    duplicates: u64,
    out_of_window: u64,
    sack_clears: u64,
    new_after_refusal: u64,
    /// With the connection checks: records they passed, refused by reason, kept frames they
    /// refused (not placed, never seen by place_chk or the SACK engine), rows reopened.
    conn_ok: u64,
    conn_drops: BTreeMap<u8, u64>,
    conn_refused: u64,
    conn_reopens: u64,
    /// With the ACK generator: packets it took, ACKs it sent (by the coalescing timer).
    ack_packets: u64,
    acks: u64,
    timer_acks: u64,
    /// ACKs out of the ACK join (with the SACK engine's base and bitmap), by the timer.
    joined: u64,
    joined_timer: u64,
    /// With the completion unit: its ops (placement's completions as `Done`, the checks'
    /// fatal refusals, opens), its completion records (SENDs) by status, messages completed.
    cmpl_done: u64,
    /// Writes whose B responses the host answered SLVERR.
    slverr_writes: u64,
    /// B responses answered SLVERR.
    slverr_b: u64,
    cmpl_fatal: u64,
    cmpl_opens: u64,
    cmpl_records: u64,
    cmpl_write_errors: u64,
    cmpl_msgs: u64,
    cmpl_stray: u64,
}

/// A connection row as the SACK runs' frames use it: (tag, peer, P_Key).
type Rows = Rc<RefCell<Vec<(u32, u32, u16)>>>;

/// Sets the path id of any frame kind.
fn set_path_id(f: &mut Frame, id: u8) {
    match &mut f.body {
        Body::Data { ext, .. } => ext.path_id = id,
        Body::Ack(a) => a.path_id = id,
        Body::Nak(n) => n.path_id = id,
        Body::Probe(p) | Body::ProbeReply(p) => p.path_id = id,
    }
}

/// What a SACK operation of the test is for.
enum SackJob {
    /// Set a connection up at a new base.
    Clear,
    /// A kept frame's packet and place_chk's result for it.
    Data { job: Job, res: ChkResult },
}

/// The SACK runs' frames: destination QP mod 256 below [`SACK_CONNS`], and the PSN drawn
/// around the connection's base as the SACK model has it now (`bases`): mostly at the base
/// or a little ahead (new, or duplicates of recent packets: the base keeps moving), further
/// ahead inside the window, just behind (duplicates), beyond the window, far behind, and the
/// edges (the window's last PSN, the first one past it, the PSN before the base).
///
/// The connection fields match the connection's row (`rows`: QPN tag, peer, P_Key, a path
/// id below P), with a few faults each for the connection checks: a stale tag (4 %),
/// another peer (3 %), another P_Key (3 %), a path id at or past P (3 %).
///
/// The message fields of a DATA frame are drawn around the connection's next MSN as the
/// completion unit's model has it now (`msns`): mostly a message inside the window of
/// `msg_window`, most often the head or the one after it, now and then one just past the
/// window or behind the head (stray for the unit); the packet offset 0 on three in five
/// (LAST on two thirds of those: one-packet messages), else 1..4 (LAST on a third), SE on
/// half the LAST packets.
fn sack_shape(bases: Rc<RefCell<Vec<u32>>>, rows: Rows, paths: u8, msns: Rc<RefCell<Vec<u32>>>, msg_window: u32) -> Shape {
    Box::new(move |f: &mut Frame, r: &mut SmallRng| {
        let conn = r.gen_range(0..SACK_CONNS);
        let (tag, peer, pkey) = rows.borrow()[conn as usize];
        let tag = if r.gen_ratio(4, 100) { tag ^ (1 << r.gen_range(0..16)) } else { tag };
        f.bth.dest_qp = ((tag << 8) | conn) & 0xff_ffff;
        f.ip.src = if r.gen_ratio(3, 100) { peer ^ (1 << r.gen_range(0..32)) } else { peer }.to_be_bytes();
        f.bth.pkey = if r.gen_ratio(3, 100) { pkey ^ (1 << r.gen_range(0..16)) } else { pkey };
        set_path_id(f, if r.gen_ratio(3, 100) { r.gen_range(paths..16) } else { r.gen_range(0..paths) });
        let b = bases.borrow()[conn as usize];
        let d: u32 = match r.gen_range(0..100) {
            0..=54 => r.gen_range(0..8),
            55..=74 => r.gen_range(8..256),
            75..=84 => (1 << 24) - r.gen_range(1..=64),
            85..=89 => r.gen_range(256..1 << 23),
            90..=93 => (1 << 23) + r.gen_range(0..1 << 23),
            94..=95 => 255,
            96..=97 => 256,
            _ => (1 << 24) - 1,
        };
        f.bth.psn = b.wrapping_add(d) & 0xff_ffff;
        if let Body::Data { ext, .. } = &mut f.body {
            let next = msns.borrow()[conn as usize];
            let k = match r.gen_range(0..100) {
                0..=54 => 0,
                55..=74 => 1,
                75..=89 => r.gen_range(2..msg_window.max(3)),
                90..=94 => msg_window + r.gen_range(0..4),
                _ => r.gen_range(1..=4u32).wrapping_neg(),
            };
            ext.msn = next.wrapping_add(k);
            ext.pkt_offset = if r.gen_ratio(3, 5) { 0 } else { r.gen_range(1..4) };
            let last = r.gen_ratio(if ext.pkt_offset == 0 { 2 } else { 1 }, 3);
            ext.flags = (ext.flags & !data_flags::LAST) | if last { data_flags::LAST } else { 0 };
            f.bth.solicited = last && r.gen_ratio(1, 2);
        }
    })
}

/// A command waiting for its block: (fields by port name).
type Cmd = Vec<(&'static str, u64)>;

/// An AXI4 write burst accepted on AW and not yet finished on W.
struct Burst {
    addr: u64,
    beats: u64,
    done: u64,
}

/// The commands the checks' decisions make, and what they promise: the realigner's (one per
/// kept frame, in frame order), placement's, the completions due and the bytes host memory
/// must hold.
#[derive(Default)]
struct Cmds {
    r: VecDeque<Cmd>,
    /// Placement's commands and their tags (95 bits: [`WrDone::tag`] with the completion
    /// unit, else a counting 8-bit tag).
    w: VecDeque<(Cmd, u128)>,
    /// Completions due: (tag, bytes, every B of the write answered SLVERR).
    completions: VecDeque<(u128, u64, bool)>,
    want: HashMap<u64, u8>,
    tag: u64,
    /// The completion unit takes placement's completions: the tags are its ops.
    with_cmpl: bool,
    /// Decisions made out of frame order (a frame the connection checks refuse is decided
    /// before the frames ahead of it leave place_chk and the SACK engine), by kept frame
    /// number, and the number of the next kept frame to issue.
    pending: BTreeMap<u64, Decision>,
    next: u64,
}

/// What becomes of a kept frame.
enum Decision {
    /// Placed at `addr`, checked against the window `[base, base + wlen)`.
    Place { off: u64, addr: u64, base: u64, wlen: u64, payload: Vec<u8>, hdr: Option<WrDone> },
    /// Not placed: the realigner discards its payload.
    Discard { off: u64 },
}

impl Cmds {
    /// The decision on kept frame `seq`; the commands leave in frame order.
    fn decide(&mut self, s: &mut Stats, seq: u64, d: Decision) {
        self.pending.insert(seq, d);
        while let Some(d) = self.pending.remove(&self.next) {
            self.next += 1;
            match d {
                Decision::Place { off, addr, base, wlen, payload, hdr } => self.place(s, off, addr, base, wlen, &payload, hdr),
                Decision::Discard { off } => self.discard(off),
            }
        }
    }
    /// A frame placed at `addr`, checked against the window `[base, base + wlen)`.
    /// `hdr`: the completion unit's op, whose tag the write carries.
    #[allow(clippy::too_many_arguments)]
    fn place(&mut self, s: &mut Stats, off: u64, addr: u64, base: u64, wlen: u64, payload: &[u8], hdr: Option<WrDone>) {
        let len = payload.len() as u64;
        s.placed += 1;
        s.payload_bytes += len;
        self.r.push_back(vec![("s_cmd_off", off), ("s_cmd_len", len), ("s_cmd_lane", addr & 7)]);
        self.tag = (self.tag + 1) & 0xff;
        let tag = hdr.map_or(u128::from(self.tag), |d| d.tag());
        self.w.push_back((vec![("s_addr", addr), ("s_len", len), ("s_base", base), ("s_wlen", wlen)], tag));
        // with the completion unit, every 61st write's B responses are SLVERR (the data is
        // written all the same; the unit completes its message with an error)
        let fail = self.with_cmpl && s.placed % 61 == 7;
        s.slverr_writes += fail as u64;
        self.completions.push_back((tag, len, fail));
        for (k, byte) in payload.iter().enumerate() {
            self.want.insert(addr + k as u64, *byte);
        }
    }
    /// place_chk's decision on kept frame `job`: placed in the window `res` checked, or
    /// refused (counted by NAK code).
    fn checked(&mut self, s: &mut Stats, job: Job, res: &ChkResult) {
        let d = if res.ok {
            let hdr = self.with_cmpl.then_some(WrDone { conn: job.req.conn, len: job.payload.len() as u32, ..job.hdr });
            Decision::Place { off: job.off, addr: res.addr, base: res.base, wlen: res.wlen, payload: job.payload, hdr }
        } else {
            s.refused += 1;
            *s.naks.entry(res.nak).or_default() += 1;
            Decision::Discard { off: job.off }
        };
        self.decide(s, job.seq, d);
    }
    /// A kept frame that is not placed: the realigner discards its payload.
    fn discard(&mut self, off: u64) {
        self.r.push_back(vec![("s_cmd_off", off), ("s_cmd_len", 0), ("s_cmd_lane", 0)]);
    }
}

/// A ready that goes through runs: mostly high, short and now and then long stalls.
struct Runs {
    left: u32,
    on: bool,
    long: u32,
}

impl Runs {
    fn new(long: u32) -> Runs {
        Runs { left: 0, on: true, long }
    }
    fn next(&mut self, r: &mut SmallRng) -> bool {
        if self.left == 0 {
            (self.on, self.left) = match r.gen_range(0..400) {
                0 if self.long > 0 => (false, r.gen_range(self.long / 4..self.long)),
                1..=99 => (false, r.gen_range(1..12)),
                _ => (true, r.gen_range(1..40)),
            };
        }
        self.left -= 1;
        self.on
    }
}

/// A kept frame on its way through the checks: its request to `place_chk` and the table
/// rows written for it first (none while it waits for the connection checks), its payload,
/// PSN and number, and what the ACK generator takes with it.
struct Job {
    cfgs: VecDeque<CfgWrite>,
    req: ChkReq,
    off: u64,
    payload: Vec<u8>,
    psn: u32,
    /// The kept frame's number (frame order).
    seq: u64,
    /// What the ACK generator takes with the packet (its connection and class set later).
    ack: AckIn,
    /// The completion unit's op for the packet's write, as the header path knows it at the
    /// decision (its connection and length set when it is placed).
    hdr: WrDone,
}

/// The rows and the request for a kept frame's record: mostly rows that accept it, one in
/// four with a fault (a short region, no write right, another key's tag, another protection
/// domain; for a SEND no posted buffer or a short one).
fn job_for(rng: &mut SmallRng, cc: &ChkConfig, rec: &ChkReq, off: u64, payload: Vec<u8>, psn: u32, seq: u64) -> Job {
    let conn_pd = |c: u32| 0x1000 + c;
    let mut cfgs = VecDeque::new();
    let fault = if rng.gen_ratio(1, 4) { rng.gen_range(1..5) } else { 0 };
    let len = u64::from(rec.len);
    let slack = rng.gen_range(0..64u64);
    if !rec.send {
        let base = rec.va.saturating_sub(rng.gen_range(0..4096));
        let room = u64::MAX - base;
        let need = (rec.va - base).saturating_add(len);
        let rlen = if fault == 1 { need.saturating_sub(1) } else { need.saturating_add(slack) }.min(room);
        let key = if fault == 3 { rec.rkey ^ 0x8000_0000 } else { rec.rkey };
        let pd = if fault == 4 { conn_pd(rec.conn) + 1 } else { conn_pd(rec.conn) };
        cfgs.push_back(CfgWrite { table: 0, key, valid: true, write: fault != 2, pd, base, len: rlen, ..Default::default() });
    } else {
        let lg = cc.rq_depth.trailing_zeros();
        let count = if fault == 1 { 0 } else { rng.gen_range(1..=cc.rq_depth) };
        cfgs.push_back(CfgWrite { table: 2, row: rec.conn, head: rec.ssn, count, ..Default::default() });
        let addr = SEND_BASE + (u64::from(rec.conn) << 28) + (u64::from(rec.ssn & 0xff) << 20);
        let need = rec.va.saturating_add(len);
        let blen = if fault == 2 { need.saturating_sub(1) } else { need.saturating_add(slack) };
        cfgs.push_back(CfgWrite { table: 1, row: (rec.conn << lg) | (rec.ssn & (cc.rq_depth - 1)), base: addr, len: blen, ..Default::default() });
    }
    Job { cfgs, req: ChkReq { pd: conn_pd(rec.conn), ..*rec }, off, payload, psn, seq, ack: AckIn::default(), hdr: WrDone::default() }
}

/// One seeded run of `cycles` cycles plus a drain; `Err` names the first divergence.
fn run(b: &mut [Blk], seed: u64, profile: &str, cycles: u64) -> Result<Stats, String> {
    let (path, extra) = b.split_at_mut(4);
    let [p, f, r, w] = path else { unreachable!("the data path is four blocks") };
    // place_chk and the SACK engine, when the test has them, each with its model cycle shell
    // side by side
    let (chk_part, rest) = extra.split_at_mut(extra.len().min(1));
    let (sack_part, rest) = rest.split_at_mut(rest.len().min(1));
    let (conn_part, rest) = rest.split_at_mut(rest.len().min(1));
    let (ack_part, rest) = rest.split_at_mut(rest.len().min(1));
    let (join_part, cmpl_part) = rest.split_at_mut(rest.len().min(1));
    let mut chk = chk_part.first_mut();
    let mut sack = sack_part.first_mut();
    let mut conn_blk = conn_part.first_mut();
    let mut ack_blk = ack_part.first_mut();
    let mut join_blk = join_part.first_mut();
    let mut cmpl_blk = cmpl_part.first_mut();
    let has_cmpl = cmpl_blk.is_some();
    let has_ack = ack_blk.is_some();
    let has_join = join_blk.is_some();
    let has_sack = sack.is_some();
    let has_conn = conn_blk.is_some();
    let core = Config::preset("core").unwrap();
    let cc = mrnic_hdl::tops::place_chk_config(&core).unwrap();
    let mut model = ChkShell::new(cc);
    let mut sack_model = SackShell::new(core.connections, core.sack.window);
    let conn_mask = core.connections as u32 - 1;
    let mut sack_q: VecDeque<(SackOp, SackJob)> = VecDeque::new();
    let mut sack_wait: VecDeque<(SackOp, SackJob)> = VecDeque::new();
    let mut refused_psns: HashSet<(u32, u32)> = HashSet::new();
    let mut s_rdy = Runs::new(300);
    let bases = Rc::new(RefCell::new(vec![0u32; SACK_CONNS as usize]));
    // the connection checks: their model shell, the rows the frames use, the queues
    let ncfg = mrnic_hdl::tops::conn_chk_config(&core).unwrap();
    let mut conn_model = ConnChkShell::new(ncfg);
    let rows: Rows = Rc::new(RefCell::new(vec![(0, 0, 0); SACK_CONNS as usize]));
    let mut conn_cfg: VecDeque<ConnCfg> = VecDeque::new();
    // (a kept frame's record waits for the connection checks as a Job without table rows)
    let mut conn_q: VecDeque<(ConnReq, Option<Job>)> = VecDeque::new();
    let mut conn_wait: VecDeque<(ConnReq, Option<Job>)> = VecDeque::new();
    let mut n_rdy = Runs::new(200);
    let mut conn_tag = 0u8;
    // the ACK generator: its model shell, its packets and config writes; the NIC's time
    // advances by the preset's cycle per clock
    let acfg = mrnic_hdl::tops::ackgen_config(&core).unwrap();
    let cycle_ns = u32::from(core.transport.cycle_ns);
    let mut ack_model = AckShell::new(acfg).unwrap();
    let mut ack_q: VecDeque<AckIn> = VecDeque::new();
    let mut ack_cfg: VecDeque<AckCfg> = VecDeque::new();
    let mut a_rdy = Runs::new(100);
    // the ACK join: its model shell; the SACK results of the packets that went to the ACK
    // generator and the generator's entries, in order
    let mut join_model = AckJoinShell::new(core.connections as u32).unwrap();
    let mut join_sack_q: VecDeque<SackIn> = VecDeque::new();
    let mut join_gen_q: VecDeque<AckShellAck> = VecDeque::new();
    let mut j_rdy = Runs::new(100);
    // the completion unit: its model shell; the sources of its fatal and open ports (the
    // checks' fatal refusals, opens: FIFOs popped on their port's ready); each connection's
    // next MSN as its model has it (the frames' MSNs are drawn around it)
    let mw = core.transport.msg_window;
    let mut cmpl_model = CmplShell::new(core.connections as u32, mw).unwrap();
    let mut cmpl_fatal: VecDeque<CmplOp> = VecDeque::new();
    let mut cmpl_open: VecDeque<CmplOp> = VecDeque::new();
    let msns = Rc::new(RefCell::new(vec![0u32; SACK_CONNS as usize]));
    let mut c_rdy = Runs::new(200);
    if has_ack {
        // the frames' connections: every path's row restarted, a rate hint base
        for k in 0..SACK_CONNS {
            ack_cfg.push_back(AckCfg { kind: 1, conn: k, path: 0, data: 25_000 + 1000 * k });
            for path in 0..acfg.paths {
                ack_cfg.push_back(AckCfg { kind: 0, conn: k, path, data: (k * 0x13_579b + u32::from(path) * 0x2_468a) & 0xff_ffff });
            }
        }
    }
    let mut jobs: VecDeque<Job> = VecDeque::new();
    let mut waiting: VecDeque<Job> = VecDeque::new();
    let mut k_rdy = Runs::new(0);
    let mut chk_tag = 0u8;
    let mut stim = ParserStimulus::new(seed, profile, false);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x7278_7061);
    if has_conn {
        // every row written first: the frames' connections open, the others closed
        for k in 0..ncfg.connections {
            let live = k < SACK_CONNS;
            let row = ConnRow { live, tag: rng.gen::<u32>() & 0xffff, peer: rng.gen(), pkey: if k == 0 { 0xffff } else { rng.gen() } };
            if live {
                rows.borrow_mut()[k as usize] = (row.tag, row.peer, row.pkey);
            }
            conn_cfg.push_back(ConnCfg { conn: k, row });
        }
    }
    if has_sack {
        stim = stim.with_shape(sack_shape(bases.clone(), rows.clone(), ncfg.paths as u8, msns.clone(), mw));
        // every connection the frames use is set up first, four of them just below the
        // 24-bit wrap
        for k in 0..SACK_CONNS {
            let base = if k < 4 { 0xff_ff00 | rng.gen_range(0xe0..0x100) } else { rng.gen::<u32>() & 0xff_ffff };
            bases.borrow_mut()[k as usize] = base;
            sack_q.push_back((SackOp { conn: k, psn: base, clear: true, commit: true }, SackJob::Clear));
        }
    }
    let mut rx = AxisRx::new(8).unwrap();
    let mut cur: Vec<Beat> = vec![];
    let mut s = Stats::default();
    // the reference: good frames' decodes in record order; kept frames' expected completions
    let mut records: VecDeque<(bool, Vec<u8>)> = VecDeque::new();
    let mut cm = Cmds { with_cmpl: has_cmpl, ..Cmds::default() };
    if has_cmpl {
        // every connection the frames use opens first (the MAC waits for it), two of them
        // just below the 32-bit MSN wrap
        for k in 0..SACK_CONNS {
            let msn = if k < 2 { rng.gen_range(0..6u32).wrapping_neg() } else { rng.gen() };
            msns.borrow_mut()[k as usize] = msn;
            cmpl_open.push_back(CmplOp::Open { conn: k, msn });
        }
    }
    let mut opening = has_cmpl;
    let mut kept_seq = 0u64;
    let mut mem: HashMap<u64, u8> = HashMap::new();
    let mut bursts: VecDeque<Burst> = VecDeque::new();
    let mut bresp: VecDeque<u64> = VecDeque::new();
    let (mut aw_rdy, mut w_rdy, mut b_go, mut m_rdy) = (Runs::new(0), Runs::new(0), Runs::new(0), Runs::new(3000));
    let mut taken = false;
    let mut c = 0u64;
    let mut last_progress = 0u64;
    loop {
        let draining = c >= cycles;
        let mut i = stim.next_inputs(taken);
        if draining {
            i.tvalid = false;
            i.m_hdr_ready = true;
        }
        if opening {
            // the MAC waits for the completion unit's opens
            i.tvalid = false;
        }
        let (awr, wr, bv, mr) = (aw_rdy.next(&mut rng), w_rdy.next(&mut rng), b_go.next(&mut rng), m_rdy.next(&mut rng) || draining);
        // inputs that depend on no output
        // the stimulus starts with a reset of every block (and gives no other)
        if i.rst && c > 8 {
            return Err(format!("cycle {c}: the parser stimulus reset mid-run; this test resets only at the start"));
        }
        for x in [&mut *p, &mut *f, &mut *r, &mut *w] {
            x.set("rst", i.rst as u64);
        }
        // (drawn only with place_chk: the stand-in runs keep their random stream)
        let kr = (chk.is_none() || k_rdy.next(&mut rng)) || draining;
        let mut progress_chk = false;
        let ci = {
            let job = jobs.front();
            let cfg = job.and_then(|j| j.cfgs.front().copied());
            // a request only after its rows are written
            let req = job.filter(|j| j.cfgs.is_empty()).map(|j| j.req);
            ChkInputs { rst: i.rst, cfg_valid: cfg.is_some(), cfg: cfg.unwrap_or_default(), s_valid: req.is_some(), s: req.unwrap_or_default(), m_ready: kr }
        };
        if let Some(k) = chk.as_deref_mut() {
            for (n, v) in place_chk::port::INPUTS.iter().zip(place_chk::input_values(&ci)) {
                k.set(n, v);
            }
            k.sim.eval();
        }
        // the SACK engine's operation from its queue (drawn only with the engine)
        let sr = !has_sack || s_rdy.next(&mut rng) || draining;
        let si = {
            let op = sack_q.front().map(|q| q.0);
            let o = op.unwrap_or(SackOp { conn: 0, psn: 0, clear: false, commit: true });
            SackInputs { rst: i.rst, s_valid: op.is_some(), s_conn: o.conn & conn_mask, s_psn: o.psn, s_clear: o.clear, s_commit: o.commit, m_ready: sr }
        };
        let mut progress_sack = false;
        if let Some(k) = sack.as_deref_mut() {
            for (n, v) in [("rst", si.rst as u64), ("s_valid", si.s_valid as u64), ("s_conn", si.s_conn as u64), ("s_psn", si.s_psn as u64), ("s_clear", si.s_clear as u64), ("s_commit", si.s_commit as u64), ("m_ready", si.m_ready as u64)] {
                k.set(n, v);
            }
            k.sim.eval();
        }
        // the connection checks' operation and config write from their queues (drawn only
        // with the block)
        let nr = !has_conn || n_rdy.next(&mut rng) || draining;
        let ni = ConnChkInputs {
            rst: i.rst,
            cfg_valid: conn_cfg.front().is_some(),
            cfg: conn_cfg.front().copied().unwrap_or_default(),
            s_valid: conn_q.front().is_some(),
            s: conn_q.front().map(|q| q.0).unwrap_or_default(),
            m_ready: nr,
        };
        let mut progress_conn = false;
        // the ACK generator's packet and config write from their queues (drawn only with the
        // block)
        let ar = !has_ack || a_rdy.next(&mut rng) || draining;
        let ai = AckShellIn {
            rst: i.rst,
            now: (c as u32).wrapping_mul(cycle_ns),
            // (packets race the rows' configuration writes at the start: a row not yet
            // written is as the model's `AckGen::new` starts it, path ISN 0)
            s_valid: ack_q.front().is_some(),
            s: ack_q.front().copied().unwrap_or_default(),
            s_cfg_valid: ack_cfg.front().is_some(),
            s_cfg: ack_cfg.front().copied().unwrap_or_default(),
            m_ready: ar,
        };
        if let Some(k) = ack_blk.as_deref_mut() {
            for (n, v) in ackgen::port::INPUTS.iter().zip(ackgen::input_values(&ai)) {
                k.set(n, v);
            }
            k.sim.eval();
        }
        let ji = JoinShellIn {
            rst: i.rst,
            s_sack_valid: join_sack_q.front().is_some(),
            s_sack: join_sack_q.front().copied().unwrap_or_default(),
            s_gen_valid: join_gen_q.front().is_some(),
            s_gen: join_gen_q.front().copied().unwrap_or_default(),
            m_ready: !has_join || j_rdy.next(&mut rng) || draining,
        };
        if let Some(k) = join_blk.as_deref_mut() {
            for (kk, (n, v)) in ackjoin::port::INPUTS.iter().zip(ackjoin::input_values(&ji)).enumerate() {
                if kk == ackjoin::BITMAP_INPUT {
                    k.set_wide(n, &ji.s_sack.bitmap.to_u32_words(core.sack.window));
                } else {
                    k.set(n, v);
                }
            }
            k.sim.eval();
        }
        if let Some(k) = conn_blk.as_deref_mut() {
            for (n, v) in conn_chk::port::INPUTS.iter().zip(conn_chk::input_values(&ni)) {
                k.set(n, v);
            }
            k.sim.eval();
        }
        p.set("s_axis_tdata", i.tdata);
        p.set("s_axis_tkeep", i.tkeep as u64);
        p.set("s_axis_tlast", i.tlast as u64);
        p.set("s_axis_tuser", i.tuser as u64);
        p.set("m_hdr_ready", i.m_hdr_ready as u64);
        f.set("s_axis_tdata", i.tdata);
        f.set("s_axis_tkeep", i.tkeep as u64);
        f.set("s_axis_tlast", i.tlast as u64);
        let rc = cm.r.front();
        let r_offered = rc.is_some();
        r.set("s_cmd_valid", r_offered as u64);
        for (n, v) in rc.cloned().unwrap_or_default() {
            r.set(n, v);
        }
        let wc = cm.w.front();
        let w_offered = wc.is_some();
        w.set("s_valid", w_offered as u64);
        let (wcmd, wtag) = wc.cloned().unwrap_or_default();
        for (n, v) in wcmd {
            w.set(n, v);
        }
        w.set_u128("s_tag", wtag);
        w.set("m_axi_awready", awr as u64);
        w.set("m_axi_wready", wr as u64);
        let bvalid = bv && !bresp.is_empty();
        w.set("m_axi_bvalid", bvalid as u64);
        w.set("m_axi_bresp", bresp.front().copied().unwrap_or(0));
        w.set("m_ready", mr as u64);
        // the handshakes between the blocks, to a fixed point (no loop through them)
        let mut settled = false;
        for _ in 0..6 {
            for x in [&mut *p, &mut *f, &mut *r, &mut *w] {
                x.sim.eval();
            }
            let want_in = [
                (0, "s_axis_tvalid", (i.tvalid && f.bit("s_axis_tready")) as u64),
                (1, "s_axis_tvalid", (i.tvalid && p.bit("s_axis_tready")) as u64),
                (1, "s_vrd_valid", p.get("m_vrd_valid")),
                (1, "s_vrd_keep", p.get("m_vrd_keep")),
                (0, "m_vrd_ready", f.get("s_vrd_ready")),
                (2, "s_axis_tvalid", f.get("m_axis_tvalid")),
                (2, "s_axis_tdata", f.get("m_axis_tdata")),
                (2, "s_axis_tlast", f.get("m_axis_tlast")),
                (1, "m_axis_tready", r.get("s_axis_tready")),
                (3, "d_valid", r.get("m_axis_tvalid")),
                (3, "d_data", r.get("m_axis_tdata")),
                (2, "m_axis_tready", w.get("d_ready")),
            ];
            let mut changed = false;
            for (k, n, v) in want_in {
                let x = [&mut *p, &mut *f, &mut *r, &mut *w];
                let blk = x.into_iter().nth(k).unwrap();
                if blk.get(n) != v {
                    blk.set(n, v);
                    changed = true;
                }
            }
            if !changed {
                settled = true;
                break;
            }
        }
        if !settled {
            return Err(format!("cycle {c}: the handshakes between the blocks do not settle (a combinational loop)"));
        }
        // the completion unit behind placement, wired as the receive path wires it:
        // placement's completion stream is the unit's write port as it is (`m_valid`, `m_tag`,
        // `m_bytes`, `m_resp` into `s_wr_*`, `s_wr_ready` back into `m_ready`); the checks'
        // fatal refusals and the opens (the test's FIFOs) are its fatal and open ports, each
        // popped when its own ready is high. The unit's arbiter takes the write first. (No
        // loop: placement's `m_valid` and completion fields are functions of its registers
        // and `rst` only.)
        let mut mr = mr;
        let mut progress_cmpl = false;
        if let Some(k) = cmpl_blk.as_deref_mut() {
            let mut ci = CmplShellIn { rst: i.rst, m_ready: c_rdy.next(&mut rng) || draining, ..CmplShellIn::default() };
            (ci.s_wr_valid, ci.s_wr_tag, ci.s_wr_bytes, ci.s_wr_resp) = (w.bit("m_valid"), w.get_u128("m_tag"), w.get("m_bytes") as u32, w.get("m_resp") as u8);
            for op in [cmpl_fatal.front(), cmpl_open.front()].into_iter().flatten() {
                ci.offer(op);
            }
            for (n, v) in cmpl::port::INPUTS.iter().zip(cmpl::input_values(&ci)) {
                k.set_u128(n, v);
            }
            k.sim.eval();
            let mo = cmpl_model.step(&ci);
            let readies: Vec<u64> = cmpl::port::OUTPUTS[cmpl::port::READIES].iter().map(|n| k.get(n)).collect();
            let got = (readies.clone(), k.bit("m_valid"));
            if got != (cmpl::ready_values(&mo).to_vec(), mo.m.is_some()) {
                return Err(format!("cycle {c}: cmpl (s_wr_ready, s_fatal_ready, s_open_ready) and m_valid = {got:?}, its model {:?} (inputs {ci:x?})", (cmpl::ready_values(&mo), mo.m.is_some())));
            }
            if let Some(m) = mo.m {
                let rtl: Vec<u64> = cmpl::port::OUTPUTS[cmpl::port::RECORD].iter().map(|n| k.get(n)).collect();
                if rtl[..] != cmpl::record_values(&m)[..] {
                    return Err(format!("cycle {c}: cmpl record (conn, msn, ssn, bytes, se, status) {rtl:x?}, its model {m:x?}"));
                }
                if ci.m_ready && !i.rst {
                    progress_cmpl = true;
                    s.cmpl_records += 1;
                }
            }
            // placement's m_ready is the unit's s_wr_ready (a wire)
            mr = k.bit("s_wr_ready");
            w.set("m_ready", mr as u64);
            w.sim.eval();
            if !i.rst {
                if k.bit("s_wr_ready") {
                    progress_cmpl = true;
                    s.cmpl_done += 1;
                }
                if k.bit("s_fatal_ready") {
                    progress_cmpl = true;
                    cmpl_fatal.pop_front();
                    s.cmpl_fatal += 1;
                }
                if k.bit("s_open_ready") {
                    progress_cmpl = true;
                    cmpl_open.pop_front();
                    s.cmpl_opens += 1;
                }
            }
            for (x, n) in msns.borrow_mut().iter_mut().enumerate() {
                *n = cmpl_model.g.conn(x as u32).next_msn;
            }
            if opening && cmpl_open.is_empty() && cmpl_model.idle() {
                opening = false;
            }
        }
        if let Some(k) = chk.as_deref_mut() {
            let mo = model.step(&ci);
            let got = (k.bit("s_cfg_ready"), k.bit("s_ready"), k.bit("m_valid"));
            if got != (mo.cfg_ready, mo.s_ready, mo.m.is_some()) {
                return Err(format!("cycle {c}: place_chk (cfg_ready, s_ready, m_valid) = {got:?}, its model {:?}", (mo.cfg_ready, mo.s_ready, mo.m.is_some())));
            }
            if let Some(m) = mo.m {
                let rtl = (k.get("m_tag") as u8, k.bit("m_ok"), k.get("m_nak") as u8, k.get("m_addr"), k.get("m_base"), k.get("m_wlen"), k.get("m_len") as u32);
                if rtl != (m.tag, m.ok, m.nak, m.addr, m.base, m.wlen, m.len) {
                    return Err(format!("cycle {c}: place_chk result {rtl:x?}, its model {m:x?}"));
                }
            }
            if !i.rst {
                if ci.cfg_valid && mo.cfg_ready {
                    jobs.front_mut().unwrap().cfgs.pop_front();
                    s.cfg_writes += 1;
                }
                if ci.s_valid && mo.s_ready {
                    let j = jobs.pop_front().unwrap();
                    waiting.push_back(j);
                }
                if let (Some(m), true) = (mo.m, kr) {
                    progress_chk = true;
                    let job = waiting.pop_front().ok_or_else(|| format!("cycle {c}: a place_chk result with no request"))?;
                    if u64::from(m.len) != job.payload.len() as u64 {
                        return Err(format!("cycle {c}: place_chk result length {}, the frame's payload {}", m.len, job.payload.len()));
                    }
                    if has_sack {
                        // classify, then commit: the SACK engine records the packet only if
                        // the checks passed, and it is placed only if it is also new
                        if rng.gen_ratio(1, 100) {
                            let k = rng.gen_range(0..SACK_CONNS);
                            let base = rng.gen::<u32>() & 0xff_ffff;
                            sack_q.push_back((SackOp { conn: k, psn: base, clear: true, commit: true }, SackJob::Clear));
                        }
                        let op = SackOp { conn: job.req.conn, psn: job.psn, clear: false, commit: m.ok };
                        sack_q.push_back((op, SackJob::Data { job, res: m }));
                    } else {
                        cm.checked(&mut s, job, &m);
                    }
                }
            }
        }
        if let Some(k) = conn_blk.as_deref_mut() {
            let mo = conn_model.step(&ni);
            let got = (k.bit("s_cfg_ready"), k.bit("s_ready"), k.bit("m_valid"));
            if got != (mo.cfg_ready, mo.s_ready, mo.m.is_some()) {
                return Err(format!("cycle {c}: conn_chk (cfg_ready, s_ready, m_valid) = {got:?}, its model {:?}", (mo.cfg_ready, mo.s_ready, mo.m.is_some())));
            }
            if let Some(m) = mo.m {
                let rtl = (k.get("m_tag") as u8, k.bit("m_ok"), k.get("m_reason") as u8, k.get("m_conn") as u32);
                if rtl != (m.tag, m.ok, m.reason, m.conn) {
                    return Err(format!("cycle {c}: conn_chk result (tag, ok, reason, conn) {rtl:x?}, its model {m:x?}"));
                }
            }
            if !i.rst {
                if ni.cfg_valid && mo.cfg_ready {
                    conn_cfg.pop_front();
                }
                if ni.s_valid && mo.s_ready {
                    conn_wait.push_back(conn_q.pop_front().unwrap());
                }
                if let (Some(m), true) = (mo.m, ni.m_ready) {
                    progress_conn = true;
                    let (req, kept) = conn_wait.pop_front().ok_or_else(|| format!("cycle {c}: a conn_chk result with no request"))?;
                    if m.tag != req.tag {
                        return Err(format!("cycle {c}: conn_chk result tag {:#x}, the request's {:#x}", m.tag, req.tag));
                    }
                    if m.ok {
                        s.conn_ok += 1;
                    } else {
                        *s.conn_drops.entry(m.reason).or_default() += 1;
                    }
                    match kept {
                        Some(kp) if m.ok => jobs.push_back(Job { ack: kp.ack, hdr: kp.hdr, ..job_for(&mut rng, &cc, &ChkReq { conn: m.conn, ..kp.req }, kp.off, kp.payload, kp.psn, kp.seq) }),
                        Some(kp) => {
                            s.conn_refused += 1;
                            cm.decide(&mut s, kp.seq, Decision::Discard { off: kp.off });
                        }
                        None => {}
                    }
                }
            }
        }
        if let Some(k) = ack_blk.as_deref_mut() {
            let mo = ack_model.step(&ai);
            let got = (k.bit("s_ready"), k.bit("s_cfg_ready"), k.bit("m_valid"));
            if got != (mo.s_ready, mo.s_cfg_ready, mo.m.is_some()) {
                return Err(format!("cycle {c}: ackgen (s_ready, s_cfg_ready, m_valid) = {got:?}, its model {:?}", (mo.s_ready, mo.s_cfg_ready, mo.m.is_some())));
            }
            if let Some(a) = mo.m {
                let want = ackgen::ack_values(&a);
                let rtl: Vec<u64> = ackgen::port::OUTPUTS[3..15].iter().map(|n| k.get(n)).collect();
                if rtl[..] != want[..] {
                    return Err(format!("cycle {c}: ackgen ACK {rtl:x?}, its model {want:x?} ({a:x?})"));
                }
                if ai.m_ready {
                    s.acks += a.sent as u64;
                    s.timer_acks += a.ack.timer as u64;
                    if has_join {
                        join_gen_q.push_back(a);
                    }
                }
            }
            if !i.rst {
                if ai.s_cfg_valid && mo.s_cfg_ready {
                    ack_cfg.pop_front();
                }
                if ai.s_valid && mo.s_ready {
                    ack_q.pop_front();
                    s.ack_packets += 1;
                }
            }
        }
        if let Some(k) = join_blk.as_deref_mut() {
            let mo = join_model.step(&ji);
            let got = (k.bit("s_sack_ready"), k.bit("s_gen_ready"), k.bit("m_valid"));
            if got != (mo.s_sack_ready, mo.s_gen_ready, mo.m.is_some()) {
                return Err(format!("cycle {c}: ackjoin (s_sack_ready, s_gen_ready, m_valid) = {got:?}, its model {:?}", (mo.s_sack_ready, mo.s_gen_ready, mo.m.is_some())));
            }
            if let Some(r) = mo.m {
                let (want, bm) = ackjoin::record_values(&r);
                let rtl: Vec<u64> = ackjoin::RECORD_PORTS.iter().map(|n| k.get(n)).collect();
                let rbm = k.wide("m_bitmap");
                if rtl[..] != want[..] || rbm != bm.to_u32_words(core.sack.window) {
                    return Err(format!("cycle {c}: ackjoin ACK {rtl:x?} bitmap {rbm:x?}, its model {r:x?}"));
                }
                if ji.m_ready {
                    s.joined += 1;
                    s.joined_timer += r.ack.timer as u64;
                }
            }
            if !i.rst {
                if ji.s_sack_valid && mo.s_sack_ready {
                    join_sack_q.pop_front();
                }
                if ji.s_gen_valid && mo.s_gen_ready {
                    join_gen_q.pop_front();
                }
            }
        }
        if let Some(k) = sack.as_deref_mut() {
            let mo = sack_model.step(&si);
            let got = (k.bit("s_ready"), k.bit("m_valid"));
            if got != (mo.s_ready, mo.m.is_some()) {
                return Err(format!("cycle {c}: sack (s_ready, m_valid) = {got:?}, its model {:?}", (mo.s_ready, mo.m.is_some())));
            }
            if let Some(m) = mo.m {
                let rtl = (k.get("m_conn") as u32, k.get("m_psn") as u32, k.get("m_class") as u8, k.get("m_base") as u32);
                let bm = k.wide("m_bitmap");
                if rtl != (m.conn & conn_mask, m.psn, m.result.class.code(), m.result.base) || bm != m.result.bitmap.to_u32_words(core.sack.window) {
                    return Err(format!("cycle {c}: sack result (conn, psn, class, base) {rtl:x?} bitmap {bm:x?}, its model {m:x?}"));
                }
            }
            for (x, st) in bases.borrow_mut().iter_mut().zip(&sack_model.engine.conns) {
                *x = st.base;
            }
            if !i.rst {
                if si.s_valid && mo.s_ready {
                    sack_wait.push_back(sack_q.pop_front().unwrap());
                }
                if let (Some(m), true) = (mo.m, si.m_ready) {
                    progress_sack = true;
                    let (op, job) = sack_wait.pop_front().ok_or_else(|| format!("cycle {c}: a sack result with no operation"))?;
                    if (m.conn & conn_mask, m.psn) != (op.conn & conn_mask, op.psn) {
                        return Err(format!("cycle {c}: sack result for (conn, psn) {:x?}, the operation's {:x?}", (m.conn, m.psn), (op.conn, op.psn)));
                    }
                    let new = m.result.class == Class::New;
                    // the packet's class for the ACK generator: refused by the checks, else the
                    // engine's
                    if let (SackJob::Data { job, res }, true) = (&job, has_ack) {
                        let class = if !res.ok {
                            0
                        } else {
                            match m.result.class {
                                Class::New => 1,
                                Class::Duplicate => 2,
                                _ => 3,
                            }
                        };
                        ack_q.push_back(AckIn { conn: job.req.conn, class, ..job.ack });
                        if has_join {
                            join_sack_q.push_back(SackIn { conn: job.req.conn, base: m.result.base, bitmap: m.result.bitmap });
                        }
                    }
                    match job {
                        SackJob::Clear if m.result.class == Class::Cleared => s.sack_clears += 1,
                        SackJob::Clear => return Err(format!("cycle {c}: a clear classified {:?}", m.result.class)),
                        SackJob::Data { job, res } => match (res.ok, m.result.class) {
                            (true, Class::Duplicate) => {
                                s.duplicates += 1;
                                cm.decide(&mut s, job.seq, Decision::Discard { off: job.off });
                            }
                            (true, Class::OutOfWindow) => {
                                s.out_of_window += 1;
                                cm.decide(&mut s, job.seq, Decision::Discard { off: job.off });
                            }
                            (true, Class::New) => {
                                s.new_after_refusal += refused_psns.remove(&(op.conn, op.psn)) as u64;
                                cm.checked(&mut s, job, &res);
                            }
                            (false, _) => {
                                if new {
                                    refused_psns.insert((op.conn, op.psn));
                                    // a new packet the checks refuse for any reason but a
                                    // missing receive buffer makes its message fatal
                                    if has_cmpl && res.nak != NakCode::NoRecvBuffer as u8 {
                                        cmpl_fatal.push_back(CmplOp::Fatal { conn: job.req.conn, msn: job.hdr.msn });
                                        // the host restarts the connection after most
                                        // errors (its packets in flight are then stray)
                                        if rng.gen_ratio(2, 3) {
                                            let next = cmpl_model.g.conn(job.req.conn).next_msn;
                                            cmpl_open.push_back(CmplOp::Open { conn: job.req.conn, msn: next.wrapping_add(rng.gen_range(16..1000)) });
                                        }
                                    }
                                }
                                cm.checked(&mut s, job, &res);
                            }
                            (true, cl) => return Err(format!("cycle {c}: a packet classified {cl:?}")),
                        },
                    }
                }
            }
        }
        let (p_rdy, f_rdy) = (p.bit("s_axis_tready"), f.bit("s_axis_tready"));
        taken = i.tvalid && p_rdy && f_rdy && !i.rst;
        let mut progress = taken || progress_chk || progress_sack || progress_conn || progress_cmpl;
        // MAC side: the reference verdict of every frame
        if taken {
            let beat = Beat { tdata: i.tdata.to_le_bytes().to_vec(), tkeep: i.tkeep as u64, tlast: i.tlast, tuser: i.tuser };
            cur.push(beat.clone());
            if let Some(v) = rx.push(&beat) {
                s.frames += 1;
                if v.is_ok() {
                    let keep = vrd_keep(&v);
                    s.kept += keep as u64;
                    records.push_back((keep, frame_bytes(&cur)));
                } else {
                    s.dropped += 1;
                }
                cur.clear();
            }
        }
        // header records: checked against the model's decode, turned into the two commands
        if p.bit("m_hdr_valid") && i.m_hdr_ready {
            s.records += 1;
            progress = true;
            let Some((keep, bytes)) = records.pop_front() else {
                return Err(format!("cycle {c}: a header record for a frame the reference drops"));
            };
            let fr = decode(&bytes).map_err(|e| format!("cycle {c}: the reference's good frame does not decode: {e}"))?;
            let op = p.get("m_hdr_opcode") as u8;
            if op != fr.body.opcode() {
                let rest: Vec<String> = records.iter().map(|(_, b)| decode(b).map(|f| format!("{:#x}", f.body.opcode())).unwrap_or_default()).collect();
                return Err(format!("cycle {c}: record #{} opcode {op:#x}, the frame's is {:#x} (next good frames {rest:?})", s.records, fr.body.opcode()));
            }
            let mut kept_rec: Option<Job> = None;
            if keep {
                let seq = kept_seq;
                kept_seq += 1;
                let Body::Data { placement, payload, ext, .. } = &fr.body else {
                    return Err(format!("cycle {c}: a kept frame that is not DATA"));
                };
                let (va, len) = (p.get("m_hdr_va"), p.get("m_hdr_length"));
                if va != placement.va || len != payload.len() as u64 {
                    return Err(format!("cycle {c}: record va {va:#x} length {len}, the frame's {:#x} {}", placement.va, payload.len()));
                }
                // the payload offset from the record's VLAN flag (checked against the frame)
                let vlan = p.bit("m_hdr_vlan");
                if vlan != (bytes[12..14] == [0x81, 0x00]) {
                    return Err(format!("cycle {c}: record vlan {vlan}, the frame's EtherType bytes {:02x?}", &bytes[12..14]));
                }
                let l3 = if vlan { 18 } else { 14 };
                let off = (l3 + IPV4_HLEN + UDP_HLEN + BTH_LEN + DATA_HDRS_LEN) as u64;
                if chk.is_some() {
                    // place_chk decides: the request from the record (its SSN checked against
                    // the model's decode)
                    chk_tag = chk_tag.wrapping_add(1);
                    if p.get("m_hdr_ssn") != u64::from(ext.ssn) {
                        return Err(format!("cycle {c}: record ssn {:#x}, the frame's {:#x}", p.get("m_hdr_ssn"), ext.ssn));
                    }
                    let send = op == opcode::SEND;
                    let req = ChkReq {
                        conn: p.get("m_hdr_dest_qp") as u32 & (cc.connections - 1),
                        pd: 0,
                        send,
                        va: if send { p.get("m_hdr_offset") } else { va },
                        rkey: p.get("m_hdr_rkey") as u32,
                        len: len as u32,
                        ssn: p.get("m_hdr_ssn") as u32,
                        tag: chk_tag,
                    };
                    let psn = p.get("m_hdr_psn") as u32;
                    if psn != fr.bth.psn {
                        return Err(format!("cycle {c}: record psn {psn:#x}, the frame's {:#x}", fr.bth.psn));
                    }
                    if has_conn {
                        // the connection checks first: the connection is theirs
                        let ack = AckIn {
                            conn: 0,
                            path: p.get("m_hdr_path_id") as u8,
                            path_psn: p.get("m_hdr_path_psn") as u32,
                            class: 0,
                            ack_req: p.bit("m_hdr_ack_req"),
                            ce: p.get("m_hdr_ecn") == 3,
                            ts: p.get("m_hdr_ts") as u32,
                            sport: p.get("m_hdr_sport") as u16,
                        };
                        if (ack.ack_req, ack.ts, ack.sport) != (fr.bth.ack_req, ext.timestamp, fr.udp.src_port) {
                            return Err(format!("cycle {c}: record (ack_req, ts, sport) {:x?}, the frame's {:x?}", (ack.ack_req, ack.ts, ack.sport), (fr.bth.ack_req, ext.timestamp, fr.udp.src_port)));
                        }
                        // the completion unit's op: the message fields from the record (checked
                        // against the model's decode)
                        let hdr = WrDone {
                            conn: 0,
                            msn: p.get("m_hdr_msn") as u32,
                            len: 0,
                            offset: p.get("m_hdr_offset") as u32,
                            last: p.get("m_hdr_flags") as u8 & data_flags::LAST != 0,
                            send,
                            ssn: req.ssn,
                            solicited: p.bit("m_hdr_se"),
                            ok: true,
                        };
                        if (hdr.msn, hdr.offset, hdr.last, hdr.solicited) != (ext.msn, ext.pkt_offset, ext.last(), fr.bth.solicited) {
                            return Err(format!("cycle {c}: record (msn, offset, last, se) {:x?}, the frame's {:x?}", (hdr.msn, hdr.offset, hdr.last, hdr.solicited), (ext.msn, ext.pkt_offset, ext.last(), fr.bth.solicited)));
                        }
                        kept_rec = Some(Job { cfgs: VecDeque::new(), req, off, payload: payload.clone(), psn, seq, ack, hdr });
                    } else {
                        jobs.push_back(job_for(&mut rng, &cc, &req, off, payload.clone(), psn, seq));
                    }
                } else {
                    // the stand-in for the checks: the window is the record's own
                    let addr = if op == opcode::SEND { SEND_BASE + (u64::from(ext.msn & 0xff) << 24) + u64::from(ext.pkt_offset) } else { va };
                    if addr.checked_add(len).is_none() || rng.gen_ratio(1, 10) {
                        s.refused += 1;
                        cm.decide(&mut s, seq, Decision::Discard { off });
                    } else {
                        cm.decide(&mut s, seq, Decision::Place { off, addr, base: addr, wlen: len, payload: payload.clone(), hdr: None });
                    }
                }
            }
            if has_conn {
                // every record (every opcode) goes through the connection checks; the
                // record's source address and P_Key checked against the model's decode
                let (src, pkey) = (p.get("m_hdr_src") as u32, p.get("m_hdr_pkey") as u16);
                if (src, pkey) != (u32::from_be_bytes(fr.ip.src), fr.bth.pkey) {
                    return Err(format!("cycle {c}: record src {src:#x} pkey {pkey:#x}, the frame's {:x?} {:#x}", fr.ip.src, fr.bth.pkey));
                }
                conn_tag = conn_tag.wrapping_add(1);
                let req = ConnReq { qpn: p.get("m_hdr_dest_qp") as u32, src, pkey, path: p.get("m_hdr_path_id") as u8, tag: conn_tag };
                conn_q.push_back((req, kept_rec));
                // now and then a connection is closed and reopened under its next tag:
                // frames made for the old one are refused as a wrong QP
                if rng.gen_ratio(1, 150) {
                    let k = rng.gen_range(0..SACK_CONNS);
                    let (tag, peer, pkey) = rows.borrow()[k as usize];
                    let tag = (tag + 1) & 0xffff;
                    rows.borrow_mut()[k as usize] = (tag, peer, pkey);
                    conn_cfg.push_back(ConnCfg { conn: k, row: ConnRow { live: true, tag, peer, pkey } });
                    s.conn_reopens += 1;
                    if has_cmpl {
                        // the completion unit's connection restarts at a new MSN
                        cmpl_open.push_back(CmplOp::Open { conn: k, msn: rng.gen() });
                    }
                }
            }
        }
        // (a command made from this cycle's record is offered from the next cycle)
        if r_offered && r.bit("s_cmd_ready") {
            cm.r.pop_front();
        }
        if w_offered && w.bit("s_ready") {
            cm.w.pop_front();
        }
        // AXI4: AW, W (into memory), B
        if w.bit("m_axi_awvalid") && awr {
            let (addr, len) = (w.get("m_axi_awaddr"), w.get("m_axi_awlen") + 1);
            if w.get("m_axi_awsize") != 3 || w.get("m_axi_awburst") != 1 || addr & 7 != 0 {
                return Err(format!("cycle {c}: AW size {} burst {} address {addr:#x}: not an aligned INCR of 8-byte beats", w.get("m_axi_awsize"), w.get("m_axi_awburst")));
            }
            if addr >> 12 != (addr + 8 * len - 1) >> 12 {
                return Err(format!("cycle {c}: a burst of {len} beats at {addr:#x} crosses a 4 KiB boundary"));
            }
            s.bursts += 1;
            s.max_burst = s.max_burst.max(len);
            bursts.push_back(Burst { addr, beats: len, done: 0 });
        }
        if w.bit("m_axi_wvalid") && wr {
            let Some(bu) = bursts.front_mut() else {
                return Err(format!("cycle {c}: a W beat before its AW"));
            };
            let (d, strb, last) = (w.get("m_axi_wdata"), w.get("m_axi_wstrb"), w.bit("m_axi_wlast"));
            let a = bu.addr + 8 * bu.done;
            for k in 0..8 {
                if strb >> k & 1 == 1 {
                    mem.insert(a + k, (d >> (8 * k)) as u8);
                }
            }
            bu.done += 1;
            s.w_beats += 1;
            progress = true;
            if last != (bu.done == bu.beats) {
                return Err(format!("cycle {c}: wlast {last} on beat {} of a {}-beat burst", bu.done, bu.beats));
            }
            if last {
                bursts.pop_front();
                // (the write in W is the oldest whose completion is due)
                bresp.push_back(if cm.completions.front().is_some_and(|x| x.2) { 2 } else { 0 });
            }
        }
        if bvalid && w.bit("m_axi_bready") {
            s.slverr_b += u64::from(bresp.pop_front() != Some(0));
        }
        // completions, in order
        if w.bit("m_valid") && mr {
            progress = true;
            s.completions += 1;
            let Some((t, len, fail)) = cm.completions.pop_front() else {
                return Err(format!("cycle {c}: a completion with none expected"));
            };
            let got = (w.get_u128("m_tag"), w.get("m_bytes"), w.get("m_resp"), w.get("m_clipped"));
            let resp = if fail && len > 0 { 2 } else { 0 };
            if got != (t, len, resp, 0) {
                return Err(format!("cycle {c}: completion (tag, bytes, resp, clipped) = {got:?}, expected ({t}, {len}, {resp}, 0)"));
            }
        }
        for x in [&mut *p, &mut *f, &mut *r, &mut *w].into_iter().chain(chk.as_deref_mut()).chain(sack.as_deref_mut()).chain(conn_blk.as_deref_mut()).chain(ack_blk.as_deref_mut()).chain(join_blk.as_deref_mut()).chain(cmpl_blk.as_deref_mut()) {
            let clk = x.clock;
            x.sim.tick(&clk);
        }
        c += 1;
        if progress || (!i.tvalid && !draining) {
            last_progress = c;
        } else if c - last_progress > HANG_CYCLES {
            return Err(format!(
                "cycle {c}: hang: no beat, record, write or completion for {HANG_CYCLES} cycles ({} records, {} realigner and {} placement commands, {} completions outstanding; {} bursts and {} B responses pending; fbuf m_axis_tvalid {}, realign s_axis_tready {} m_axis_tvalid {} stat_cmds {} (kept {}), placement d_ready {} awvalid {} wvalid {} bready {} stat_cmds {} (placed {}))",
                records.len(),
                cm.r.len(),
                cm.w.len(),
                cm.completions.len(),
                bursts.len(),
                bresp.len(),
                f.get("m_axis_tvalid"),
                r.get("s_axis_tready"),
                r.get("m_axis_tvalid"),
                r.get("stat_cmds"),
                s.kept,
                w.get("d_ready"),
                w.get("m_axi_awvalid"),
                w.get("m_axi_wvalid"),
                w.get("m_axi_bready"),
                w.get("stat_cmds"),
                s.placed
            ));
        }
        if draining && records.is_empty() && cm.r.is_empty() && cm.w.is_empty() && cm.completions.is_empty() && sack_q.is_empty() && sack_wait.is_empty() && conn_q.is_empty() && conn_wait.is_empty() && conn_cfg.is_empty() && ack_q.is_empty() && ack_cfg.is_empty() && join_sack_q.is_empty() && join_gen_q.is_empty() && cm.pending.is_empty() && bursts.is_empty() && bresp.is_empty() && r.get("stat_cmds") == s.kept && jobs.is_empty() && waiting.is_empty() && cmpl_fatal.is_empty() && cmpl_open.is_empty() && cmpl_model.idle() && cmpl_model.outputs(&CmplShellIn::default()).m.is_none() {
            break;
        }
    }
    s.cycles = c;
    // the counters after the last edge
    let conn_stats = conn_model.stats;
    if let Some(k) = ack_blk.as_deref() {
        let st = ack_model.outputs(&AckShellIn::default()).stats;
        let want = [st.bad_path, st.path_gaps, st.acks_now, st.acks_timer, st.stale_pops, st.fifo_full].map(|x| x & 0xFFFF_FFFF);
        let rtl: Vec<u64> = ackgen::port::OUTPUTS[15..21].iter().map(|n| k.get(n)).collect();
        if rtl != want {
            return Err(format!("ackgen counters {rtl:?}, its model's {want:?}"));
        }
    }
    if let Some(k) = cmpl_blk.as_deref() {
        let st = cmpl_model.outputs(&CmplShellIn::default()).stats;
        let want = cmpl::stat_values(&st);
        let rtl: Vec<u64> = cmpl::port::OUTPUTS[cmpl::port::STATS].iter().map(|n| k.get(n)).collect();
        if rtl[..] != want[..] || st.cmpls != s.cmpl_records {
            return Err(format!("cmpl counters {rtl:?}, its model's {want:?}; {} records taken", s.cmpl_records));
        }
        (s.cmpl_msgs, s.cmpl_write_errors, s.cmpl_stray) = (st.msgs, st.write_errors, st.stray);
    }
    if let Some(k) = join_blk.as_deref() {
        let st = join_model.outputs(&JoinShellIn::default()).stats;
        let want = [st.acks, st.timer_acks, st.quiet, st.misaligned].map(|x| x & 0xFFFF_FFFF);
        let rtl = ["stat_acks", "stat_timer_acks", "stat_quiet", "stat_misaligned"].map(|n| k.get(n));
        if rtl != want || st.misaligned != 0 {
            return Err(format!("ackjoin counters {rtl:?}, its model's {want:?} (none misaligned)"));
        }
        if s.joined != s.acks || s.joined_timer != s.timer_acks {
            return Err(format!("ackjoin: {} ACKs out ({} by the timer), the generator sent {} ({})", s.joined, s.joined_timer, s.acks, s.timer_acks));
        }
    }
    let sack_stats = sack_model.outputs(&SackInputs::default()).stats;
    if let Some(k) = conn_blk.as_deref() {
        let rtl: Vec<u64> = conn_stats.list().iter().map(|(n, _)| k.get(&format!("stat_{n}"))).collect();
        let want: Vec<u64> = conn_stats.list().iter().map(|(_, v)| u64::from(*v)).collect();
        if rtl != want {
            return Err(format!("conn_chk counters {rtl:?}, its model's {:?}", conn_stats.list()));
        }
    }
    if let Some(k) = sack.as_deref() {
        let rtl = [k.get("stat_new"), k.get("stat_duplicate"), k.get("stat_out_of_window"), k.get("stat_cleared")];
        let st = sack_stats;
        if rtl != [st.new, st.duplicate, st.out_of_window, st.cleared].map(u64::from) {
            return Err(format!("sack counters (new, duplicate, out of window, cleared) {rtl:?}, its model's {st:?}"));
        }
    }
    // host memory: exactly the placed payloads, nothing else
    let want = &cm.want;
    if mem != *want {
        let extra = mem.keys().filter(|a| !want.contains_key(a)).count();
        let missing = want.keys().filter(|a| !mem.contains_key(a)).count();
        let wrong: BTreeMap<u64, (u8, u8)> = mem.iter().filter_map(|(a, v)| want.get(a).filter(|w| *w != v).map(|w| (*a, (*v, *w)))).take(4).collect();
        return Err(format!("host memory differs: {extra} bytes written outside every placed payload, {missing} payload bytes never written, wrong bytes (address: got, want) {wrong:x?}"));
    }
    // the realigner discards the payloads of refused, duplicate and out-of-window packets
    let not_placed = s.refused + s.duplicates + s.out_of_window + s.conn_refused;
    if r.get("stat_cmds") != s.kept || r.get("stat_dropped") != not_placed {
        return Err(format!("realign stat_cmds {} stat_dropped {}, expected {} and {not_placed}", r.get("stat_cmds"), r.get("stat_dropped"), s.kept));
    }
    if w.get("stat_cmds") != s.placed || w.get("stat_beats") != s.w_beats || w.get("stat_bresp_err") != s.slverr_b {
        return Err(format!("placement stat_cmds {} stat_beats {} stat_bresp_err {}, expected {} {} {}", w.get("stat_cmds"), w.get("stat_beats"), w.get("stat_bresp_err"), s.placed, s.w_beats, s.slverr_b));
    }
    Ok(s)
}

fn sims(m: &Models, traced: Option<&str>) -> Vec<Blk> {
    m.0.iter()
        .map(|(name, model)| {
            let sim = match traced {
                None => model.sim(),
                // (the runs build untraced; the re-run after a failure builds traced)
                Some(label) => model.traced().and_then(|t| t.sim_traced(waves_dir().join(format!("{label}_{name}.fst")))),
            };
            Blk::new(sim.unwrap_or_else(|e| panic!("{e}")))
        })
        .collect()
}

/// Runs `seed`; on a failure, again with the four blocks traced, and panics with the waveforms.
fn check(m: &Models, seed: u64, profile: &str, cycles: u64) -> Stats {
    let mut b = sims(m, None);
    match run(&mut b, seed, profile, cycles) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rx_path seed {seed} profile {profile:?}: {e}\n  re-running with waveforms");
            let kind = match m.0.len() {
                4 => "",
                5 => "_chk",
                _ => "_sack",
            };
            let label = sanitize(&format!("rx_path{kind}_{profile}_{seed}"));
            let mut b = sims(m, Some(&label));
            let again = run(&mut b, seed, profile, cycles);
            for x in &mut b {
                x.sim.close_trace();
            }
            panic!(
                "rx_path seed {seed} profile {profile:?}: {e}\n  re-run: {}\n  waveforms: {}/{label}_<block>.fst",
                if again.is_err() { "fails the same way" } else { "PASSED (non-deterministic?)" },
                waves_dir().display()
            );
        }
    }
}

#[test]
fn the_hostile_mix_lands_in_host_memory_as_exactly_the_placed_payloads_and_nothing_else() {
    let m = build(&PATH, None);
    let mut seeds = vec![1, 2];
    seeds.extend(extra_seed());
    for seed in seeds {
        for profile in ["", "hostile", "backpressure"] {
            let s = check(&m, seed, profile, 150_000 * diff_scale());
            println!("seed {seed} profile {profile:?}: {s:?}");
            assert!(s.frames >= 2_000 && s.dropped >= 200, "{s:?}");
            assert!(s.placed >= 100 && s.refused >= 10 && s.payload_bytes >= 20_000, "{s:?}");
            assert!(s.completions == s.placed && s.bursts >= s.placed, "{s:?}");
        }
    }
}

#[test]
fn the_path_catches_a_realigner_on_the_wrong_lanes_or_beats_a_strobe_past_the_payload_and_a_buffer_that_releases_refused_frames() {
    // each must fail on host memory (a wrong, missing or extra byte), on a completion, or on a
    // hang (the realigner's and placement's beat counts disagree), whichever comes first.
    // (The realigner's prev_not_cleared and no_zero_after_tlast survive here by design: the
    // bytes they change are in lanes placement's strobes disable.)
    for (block, name) in [
        ("realign", "lane_ignored"),
        ("realign", "beats_rounded_down"),
        ("placement", "last_beat_strobe_full"),
        ("fbuf", "refused_frame_not_skipped"),
    ] {
        let m = build(&PATH, Some((block, name)));
        let mut b = sims(&m, None);
        match run(&mut b, 1, "", 150_000) {
            Ok(s) => panic!("{block} mutant {name} passed the composition: {s:?}"),
            Err(e) => {
                println!("{block} mutant {name}: {e}");
                assert!(
                    e.contains("host memory differs") || e.contains("hang:") || e.contains("completion") || e.contains("record"),
                    "{block} mutant {name} failed for another reason: {e}"
                );
            }
        }
    }
}

#[test]
fn with_place_chk_deciding_from_its_tables_the_memory_holds_exactly_what_its_model_accepts() {
    let m = build(&WITH_CHK, None);
    for (seed, profile) in [(1, ""), (2, "hostile"), (3, "backpressure")] {
        let s = check(&m, seed, profile, 150_000 * diff_scale());
        println!("with place_chk, seed {seed} profile {profile:?}: {s:?}");
        assert!(s.frames >= 2_000 && s.dropped >= 200, "{s:?}");
        assert!(s.placed >= 100 && s.refused >= 20 && s.cfg_writes >= 200, "{s:?}");
        // bad key, out of bounds, access denied, no receive buffer: each seen
        assert!(s.naks.len() >= 4, "{s:?}");
        assert!(s.completions == s.placed, "{s:?}");
    }
}

/// Runs the composition `blocks` with `block`'s kit mutant `name` (seed 1, 150 000 cycles):
/// it must fail, and on the block's own comparison with its model (`expect` in the error).
fn composition_catches(blocks: &[&'static str], block: &str, name: &str, expect: &str) {
    let m = build(blocks, Some((block, name)));
    let mut b = sims(&m, None);
    match run(&mut b, 1, "", 150_000) {
        Ok(s) => panic!("{block} mutant {name} passed the composition: {s:?}"),
        Err(e) => {
            println!("{block} mutant {name}: {e}");
            assert!(e.contains(expect), "{block} mutant {name} failed for another reason: {e}");
        }
    }
}

#[test]
fn with_place_chk_a_check_that_ignores_the_region_end_is_caught() {
    composition_catches(&WITH_CHK, "place_chk", "region_end_off_by_one", "place_chk result");
}

#[test]
fn with_the_sack_engine_only_new_packets_the_checks_pass_are_placed_and_a_refused_one_is_not_recorded() {
    // place_chk and the SACK engine (classify, then commit) both compared every cycle with
    // their model shells; the frames' PSNs are drawn around each connection's base
    let m = build(&WITH_SACK, None);
    let mut mid_run_clears = 0;
    for (seed, profile) in [(1, ""), (2, "hostile"), (3, "backpressure")] {
        let s = check(&m, seed, profile, 150_000 * diff_scale());
        println!("with the SACK engine, seed {seed} profile {profile:?}: {s:?}");
        assert!(s.frames >= 2_000 && s.dropped >= 200, "{s:?}");
        assert!(s.placed >= 100 && s.refused >= 20 && s.naks.len() >= 4, "{s:?}");
        // duplicates and out-of-window packets the checks passed were not placed; clears in
        // the run; PSNs placed after the checks had refused them (so not recorded then)
        assert!(s.duplicates >= 50 && s.out_of_window >= 10 && s.sack_clears >= u64::from(SACK_CONNS), "{s:?}");
        mid_run_clears += s.sack_clears - u64::from(SACK_CONNS);
        assert!(s.new_after_refusal >= 5, "{s:?}");
        // the connection checks: every reason seen, kept frames refused by them, reopened
        // rows (stale QPNs)
        assert!(s.conn_drops.len() == 4 && s.conn_refused >= 20 && s.conn_reopens >= 2 && s.conn_ok >= 1000, "{s:?}");
        // the ACK generator took every packet that passed the connection checks and sent
        // ACKs, some of them by its coalescing timer
        assert!(s.ack_packets >= 200 && s.acks >= 100 && s.timer_acks >= 10, "{s:?}");
        // the ACK join put the SACK engine's base and bitmap into every one of them (the run
        // checks joined == sent and the join's counters at the end)
        assert!(s.joined == s.acks && s.joined_timer == s.timer_acks, "{s:?}");
        assert!(s.completions == s.placed, "{s:?}");
        // the completion unit took every write's completion as its op, the checks' fatal
        // refusals and the opens, and completed messages (the run compares it every cycle
        // with its model, and its counters at the end): SENDs with Success and, after a
        // write answered SLVERR, with WriteError
        assert!(s.cmpl_done == s.placed && s.cmpl_fatal >= 20 && s.cmpl_opens >= 2 * u64::from(SACK_CONNS), "{s:?}");
        assert!(s.cmpl_msgs >= 15 && s.cmpl_records >= 10 && s.cmpl_write_errors >= 1 && s.slverr_writes >= 1, "{s:?}");
    }
    // connections set up again while their packets are in flight
    assert!(mid_run_clears >= 3, "{mid_run_clears} clears after the setup");
}

#[test]
fn with_the_sack_engine_one_that_records_a_packet_the_checks_refused_is_caught() {
    composition_catches(&WITH_SACK, "sack", "uncommitted_packet_sets_its_bit", "sack result");
}

#[test]
fn with_the_completion_unit_one_that_completes_a_message_at_its_last_packet_is_caught() {
    composition_catches(&WITH_SACK, "cmpl", "completes_at_its_last_packet", "cmpl");
}

#[test]
fn with_the_sack_engine_connection_checks_that_ignore_the_peer_are_caught() {
    composition_catches(&WITH_SACK, "conn_chk", "peer_ignored", "conn_chk result");
}
