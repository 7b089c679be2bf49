//! Cycle shell of the receive frame parser `mrnic_parser` (issue 12) at 64 bits: the
//! beat-level reference model [`AxisRx`] with the RTL's handshakes and latency, compared
//! with the generated Verilog cycle by cycle (`verif/tests/parser_diff.rs`).
//!
//! **Input** `s_axis` (AXI4-Stream, 8 bytes per beat): `tdata` (byte k = bits 8k+7..8k),
//! `tkeep` (8), `tlast`, `tuser`, `tvalid`; `tready = !rst && !(m_hdr_valid && !m_hdr_ready)
//! && vrd_count <= VRD_DEPTH - PARSER_LATENCY` (a combinational path from `m_hdr_ready`; the
//! verdict FIFO's count is a register): a beat is taken every cycle, frames back to back with
//! no idle cycle, except while a header record waits to be taken or the verdict FIFO holds
//! more than [`VRD_DEPTH`] - [`PARSER_LATENCY`] verdicts.
//!
//! **Output** `m_hdr`: one [`HdrRecord`] per good frame (`Ok` verdict), valid from cycle
//! [`PARSER_LATENCY`] after the cycle its `tlast` beat is transferred, held until
//! `m_hdr_ready`. The counters ([`DropCounters`], ports `stat_<name>`) and
//! `stat_last_verdict` ([`verdict_code`]) change in the same cycle, for every frame.
//!
//! **Output** `m_vrd` (valid / ready, payload `m_vrd_keep`): one verdict per frame, good or
//! not, in frame order, for the receive frame buffer (`mrnic_fbuf`, which holds every frame's
//! beats until told): `keep` = [`vrd_keep`]. A frame's verdict enters a FIFO of
//! [`VRD_DEPTH`] entries in the same cycle as its record; the FIFO's head is the output.
//! Bad frames can be one beat long, so verdicts can come every cycle; the `tready` guard
//! above keeps room for every frame in flight (at most `PARSER_LATENCY - 1` in the pipeline
//! plus the one ending now).
//!
//! **Why one output register is enough.** A good frame is at least 58 bytes (8 beats), so
//! two good frames' `tlast` beats are at least 8 transfers apart, more than the latency:
//! when a good frame's `tlast` is taken the output register is empty or being emptied,
//! and no other good frame is in flight. (A frame the shell cannot place is a model bug:
//! it panics.)
//!
//! **Reset** (synchronous): the frame in progress, the frames in flight, the output
//! record, the verdict FIFO and every counter are dropped; `stat_last_verdict` = [`VERDICT_NONE`].

use super::axis::{drop_index, AxisRx, DropCounters, Verdict};
use super::{Body, Frame};
use std::collections::VecDeque;

/// Cycles from the transfer of a frame's `tlast` beat to its record / counter update.
pub const PARSER_LATENCY: usize = 5;
/// Bytes per beat.
pub const PARSER_BYTES: usize = 8;
/// `stat_last_verdict` after reset, before any frame.
pub const VERDICT_NONE: u8 = 31;
/// Entries of the verdict FIFO (`m_vrd`).
pub const VRD_DEPTH: usize = 8;

/// The frame buffer's verdict for a frame: keep it (a good WRITE or SEND with a payload) or
/// refuse it (every drop, ACK, NAK, PROBE, PROBE_REPLY, a data frame with no payload).
pub fn vrd_keep(v: &Verdict) -> bool {
    matches!(v, Ok(f) if matches!(&f.body, Body::Data { payload, .. } if !payload.is_empty()))
}

/// `stat_last_verdict` of a verdict: 0 good, 1 + the drop index ([`drop_index`]) otherwise.
pub fn verdict_code(v: &Verdict) -> u8 {
    match v {
        Ok(_) => 0,
        Err(d) => 1 + drop_index(d) as u8,
    }
}

/// One header record: the fields the SACK engine and placement need. Fields an opcode
/// does not carry are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HdrRecord {
    pub opcode: u8,
    pub dest_qp: u32,
    pub psn: u32,
    /// Data, ACK, PROBE, PROBE_REPLY: body byte 0; NAK: body byte 1 (< 16 after decode).
    pub path_id: u8,
    /// Data and ACK.
    pub path_psn: u32,
    /// Data (MPETH) and NAK.
    pub msn: u32,
    /// Data: packet offset.
    pub offset: u32,
    /// Data: MPETH flags; ACK: ACK flags.
    pub flags: u8,
    /// Data: PLETH virtual address, rkey, payload length.
    pub va: u64,
    pub rkey: u32,
    pub length: u32,
    /// IPv4 ECN bits.
    pub ecn: u8,
    /// The frame carried an 802.1Q tag (every header after it, and a DATA payload, sit 4
    /// bytes later: a DATA payload starts at byte 90, or 94 with the tag).
    pub vlan: bool,
    /// Data: the MPETH SEND sequence number (24 bits; which posted receive buffer a SEND
    /// consumes).
    pub ssn: u32,
    /// Every opcode: the IPv4 source address (big-endian as a number) and the BTH P_Key,
    /// which the connection checks (`mrnic_conn_chk`) compare with the connection's row.
    pub src: u32,
    pub pkey: u16,
    /// Every opcode: the UDP source port and the BTH A bit; data: the MPETH timestamp. The
    /// ACK generator (`mrnic_ackgen`) reads them.
    pub sport: u16,
    pub ack_req: bool,
    /// Every opcode: the BTH SE bit (solicited event), as received. The completion unit
    /// (`mrnic_cmpl`) reads it.
    pub se: bool,
    pub ts: u32,
}

/// The record's fields, in `m_hdr_<field>` port order ([`HdrRecord::fields`]).
pub const RECORD: [&str; 20] = ["opcode", "dest_qp", "psn", "path_id", "path_psn", "msn", "offset", "flags", "va", "rkey", "length", "ecn", "vlan", "ssn", "src", "pkey", "sport", "ack_req", "se", "ts"];

impl HdrRecord {
    /// The field values in [`RECORD`] order.
    pub fn fields(&self) -> [u64; 20] {
        let r = self;
        [
            u64::from(r.opcode),
            u64::from(r.dest_qp),
            u64::from(r.psn),
            u64::from(r.path_id),
            u64::from(r.path_psn),
            u64::from(r.msn),
            u64::from(r.offset),
            u64::from(r.flags),
            r.va,
            u64::from(r.rkey),
            u64::from(r.length),
            u64::from(r.ecn),
            u64::from(r.vlan),
            u64::from(r.ssn),
            u64::from(r.src),
            u64::from(r.pkey),
            u64::from(r.sport),
            u64::from(r.ack_req),
            u64::from(r.se),
            u64::from(r.ts),
        ]
    }

    pub fn of(f: &Frame) -> HdrRecord {
        let mut r = HdrRecord {
            opcode: f.opcode(),
            dest_qp: f.bth.dest_qp,
            psn: f.bth.psn,
            path_id: f.body.path_id(),
            ecn: f.ip.ecn as u8,
            vlan: f.eth.vlan.is_some(),
            src: u32::from_be_bytes(f.ip.src),
            pkey: f.bth.pkey,
            sport: f.udp.src_port,
            ack_req: f.bth.ack_req,
            se: f.bth.solicited,
            ..HdrRecord::default()
        };
        match &f.body {
            Body::Data { ext, placement, payload, .. } => {
                r.path_psn = ext.path_psn;
                r.msn = ext.msn;
                r.offset = ext.pkt_offset;
                r.flags = ext.flags;
                r.va = placement.va;
                r.rkey = placement.rkey;
                r.length = payload.len() as u32;
                r.ssn = ext.ssn;
                r.ts = ext.timestamp;
            }
            Body::Ack(a) => {
                r.path_psn = a.path_psn;
                r.flags = a.flags;
            }
            Body::Nak(n) => r.msn = n.msn,
            Body::Probe(_) | Body::ProbeReply(_) => {}
        }
        r
    }
}

/// Inputs during one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParserInputs {
    pub rst: bool,
    pub tvalid: bool,
    pub tdata: u64,
    pub tkeep: u8,
    pub tlast: bool,
    pub tuser: bool,
    pub m_hdr_ready: bool,
    pub m_vrd_ready: bool,
}

/// Outputs during one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParserOutputs {
    pub tready: bool,
    pub m_hdr: Option<HdrRecord>,
    /// The verdict FIFO's head (`m_vrd_valid`, `m_vrd_keep`).
    pub m_vrd: Option<bool>,
    pub counters: DropCounters,
    pub last_verdict: u8,
}

/// The cycle shell (module header).
#[derive(Clone, Debug)]
pub struct ParserShell {
    rx: AxisRx,
    /// Verdicts in flight, newest first: `pipe[0]`'s `tlast` was taken at the last edge;
    /// `pipe[LATENCY - 2]` reaches the output at the next edge.
    pipe: [Option<Verdict>; PARSER_LATENCY - 1],
    out: Option<HdrRecord>,
    /// The verdict FIFO, oldest first (at most [`VRD_DEPTH`]).
    vrd: VecDeque<bool>,
    counters: DropCounters,
    last_verdict: u8,
    frames: u64,
}

impl Default for ParserShell {
    fn default() -> Self {
        Self::new()
    }
}

impl ParserShell {
    pub fn new() -> ParserShell {
        ParserShell {
            rx: AxisRx::new(PARSER_BYTES).expect("8 bytes is a model width"),
            pipe: Default::default(),
            out: None,
            vrd: VecDeque::with_capacity(VRD_DEPTH),
            counters: DropCounters::default(),
            last_verdict: VERDICT_NONE,
            frames: 0,
        }
    }

    /// Frames whose verdict has been counted since construction (resets included).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The outputs during a cycle with inputs `i`, then one clock edge.
    pub fn step(&mut self, i: &ParserInputs) -> ParserOutputs {
        let blocked = self.out.is_some() && !i.m_hdr_ready;
        let room = self.vrd.len() <= VRD_DEPTH - PARSER_LATENCY;
        let tready = !i.rst && !blocked && room;
        let o = ParserOutputs { tready, m_hdr: self.out, m_vrd: self.vrd.front().copied(), counters: self.counters.clone(), last_verdict: self.last_verdict };
        if i.rst {
            *self = ParserShell { frames: self.frames, ..ParserShell::new() };
            return o;
        }
        if self.out.is_some() && i.m_hdr_ready {
            self.out = None;
        }
        if !self.vrd.is_empty() && i.m_vrd_ready {
            self.vrd.pop_front();
        }
        let n = self.pipe.len();
        if let Some(v) = self.pipe[n - 1].take() {
            self.counters.count(&v);
            self.last_verdict = verdict_code(&v);
            self.frames += 1;
            assert!(self.vrd.len() < VRD_DEPTH, "parser shell: the verdict FIFO overflowed (the tready guard is wrong)");
            self.vrd.push_back(vrd_keep(&v));
            if let Ok(f) = &v {
                assert!(self.out.is_none(), "parser shell: a good frame's record found the output register full");
                self.out = Some(HdrRecord::of(f));
            }
        }
        for k in (1..n).rev() {
            self.pipe[k] = self.pipe[k - 1].take();
        }
        if i.tvalid && tready {
            self.pipe[0] = self.rx.beat(&i.tdata.to_le_bytes(), u64::from(i.tkeep), i.tlast, i.tuser);
        }
        o
    }
}
