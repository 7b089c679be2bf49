//! The block-RAM budget: from a [`Config`], every memory each hardware block needs (name,
//! depth, width, what each bit is, bits per connection), mapped onto the block RAMs of the
//! two target FPGAs, with totals against the device (`docs/budget.md`, `mrnic budget`).
//!
//! The field lists are data ([`TABLES`]): one row per field, its width a function of the
//! configuration ([`Bits`]). Rows marked [`Source::Estimate`] are the model's state in the
//! widths `PLAN9.md` decided, pending the block's RTL; [`Source::Rtl`] rows are read off
//! the generated RTL (the SACK engine). Correct a width here and every total follows.
//!
//! Devices (primitive geometries from the vendors' memory guides, as Yosys maps them,
//! `techlibs/lattice/brams_16kd.txt` and the iCE40 `SB_RAM40_4K` / `SB_SPRAM256KA` cells):
//! - ECP5-85F: 208 sysMEM blocks of 18 Kbit. True dual port (`DP16KD`): 16K x 1, 8K x 2,
//!   4K x 4, 2K x 9, 1K x 18; pseudo dual port (`PDPW16KD`, one 36-bit write port, one read
//!   port): 512 x 36. There is no 256 x 72 mode. Every table here is read and written by one
//!   pipeline (one read port, one write port), so 512 x 36 is available to all of them.
//! - iCE40 UP5K: 30 EBR (`SB_RAM40_4K`, 4 Kbit: 256 x 16, 512 x 8, 1K x 4, 2K x 2) and 4
//!   single-port SPRAM (`SB_SPRAM256KA`, 16K x 16 = 256 Kbit).
//!
//! Mapping: one memory uses one geometry, replicated across its width and its depth
//! (`ceil(width / w) * ceil(depth / d)` blocks), the geometry giving the fewest blocks — what a
//! synthesis tool does with an inferred memory. (This reproduces the measured SACK engine:
//! 17 DP16KD for `default`, 6 EBR for `ice40`, `docs/synthesis.md`.) On the iCE40, a table
//! marked [`Table::spram`] may instead be *folded* into SPRAM as 16-bit words
//! (`ceil(width / 16)` words per row, read and written over that many cycles — affordable at
//! the `tiny` preset's packet rate); folded tables share the 4 SPRAM blocks (first fit, the
//! largest EBR user first, as long as they fit: every EBR left is room for FIFOs). The parser's frame buffer is a
//! byte buffer: 64-bit words on the ECP5, 16-bit words on the iCE40.

use crate::config::Config;
use serde::Serialize;

/// The parser's frame buffer: this many frames of [`FRAME_BYTES`] (store and forward: a
/// frame's FCS/ICRC is checked at its end before anything of it is placed, while the next
/// frame arrives).
pub const FRAME_BUFFER_FRAMES: u64 = 2;
/// Largest frame the parser holds: a 9000-byte jumbo payload plus headers, rounded up to 9 KiB.
pub const FRAME_BYTES: u64 = 9216;

/// The width of a field, from the configuration's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    /// A fixed width.
    N(u32),
    /// The PSN window W.
    Window,
    /// log2 W (a slot index).
    Log2Window,
    /// log2 W + 1 (a count 0..=W).
    Log2WindowPlus1,
    /// P, one bit per path.
    Paths,
    /// log2 min(tx_pool, W), at least 1 (a transmission record index).
    Log2TxRecords,
    /// log2 min(tx_pool, W) + 1 (a count of records).
    Log2TxRecordsPlus1,
    /// max(log2 min(tx_pool, W), ceil(log2 P)): a field that holds a record index or a
    /// path id (the retransmit queue's per-PSN pointer).
    Log2TxRecordsOrPaths,
    /// ceil(log2 P), at least 1 (a path id).
    Log2Paths,
    /// ceil(log2 P) + 1 (a count 0..=P).
    Log2PathsPlus1,
    /// log2 msg_window, at least 1 (a message index).
    Log2MsgWindow,
    /// log2 rq_depth, at least 1 (a receive-buffer index).
    Log2RqDepth,
    /// 32 - log2 mr_entries: the rkey's tag (`rkey = tag << idx_bits | index`).
    MrTag,
    /// 24 - log2 connections: the QPN's tag (`QPN = tag << conn_bits | conn`).
    QpTag,
    /// A fixed width plus ceil(log2 P) (a sum over the paths).
    NPlusLog2Paths(u32),
}

/// Where a table's widths come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Source {
    /// Read off the block's RTL (`hdl/src/...`).
    Rtl(&'static str),
    /// The model's state in the widths `PLAN9.md` decided; no RTL yet.
    Estimate,
}

/// How many rows a table has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// One per connection.
    Conns,
    /// One per (connection, path).
    ConnPaths,
    /// One per (connection, PSN slot): `connections * W`.
    ConnWindow,
    /// One per (connection, transmission record): `connections * min(tx_pool, W)`.
    ConnTxRecords,
    /// One per (connection, message in flight): `connections * msg_window`.
    ConnMsgs,
    /// One per (connection, posted receive buffer): `connections * rq_depth`.
    ConnRq,
    /// `mr_entries` per NIC (shared by the connections).
    MrEntries,
}

/// One field of a table row.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub bits: Bits,
    pub what: &'static str,
}

/// One memory (a RAM the block reads and writes): its rows and the fields of a row.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    pub block: &'static str,
    pub name: &'static str,
    pub depth: Depth,
    pub fields: &'static [Field],
    pub source: Source,
    /// May be folded into iCE40 SPRAM (a multi-cycle, single-port access is affordable).
    pub spram: bool,
    pub what: &'static str,
}

const fn f(name: &'static str, bits: Bits, what: &'static str) -> Field {
    Field { name, bits, what }
}

use Bits::*;

/// Every memory of the NIC, block by block. Widths: `PLAN9.md` "Decisions"; the SACK
/// engine's from `hdl/src/sack.rs`.
pub const TABLES: &[Table] = &[
    // ---- SACK engine (responder): hdl/src/sack.rs, two RAMs addressed by the connection.
    Table {
        block: "sack",
        name: "base",
        depth: Depth::Conns,
        fields: &[f("base", N(24), "lowest PSN not yet received")],
        source: Source::Rtl("hdl/src/sack.rs ram_base"),
        spram: false,
        what: "the SACK engine's base PSN RAM",
    },
    Table {
        block: "sack",
        name: "bitmap",
        depth: Depth::Conns,
        fields: &[f("bitmap", Window, "bit i: PSN base + i received (circular: slot = PSN mod W)")],
        source: Source::Rtl("hdl/src/sack.rs ram_bitmap"),
        spram: false,
        what: "the SACK engine's bitmap RAM",
    },
    // ---- Path table (requester): one row per (connection, path), plus the summary.
    Table {
        block: "path",
        name: "row",
        depth: Depth::ConnPaths,
        fields: &[
            f("entropy", N(14), "UDP source port 0xC000 | entropy"),
            f("state", N(2), "OK / SUSPECT / FAILED / PROBING"),
            f("next_path_psn", N(24), "path PSN of the next packet on the path"),
            f("cwnd", N(17), "congestion window, Q9.8 packets"),
            f("cwnd_cnt", N(9), "packets acknowledged since the last additive increase"),
            f("inflight", N(9), "packets in flight on the path (<= 256)"),
            f("srtt8", N(32), "8 x smoothed RTT, ns"),
            f("rttvar4", N(32), "4 x RTT variation, ns"),
            f("alpha", N(11), "DCTCP alpha, Q0.10 (0..=1024)"),
            f("ce_acc", N(9), "CE-marked packets in the observation window"),
            f("pkt_acc", N(9), "packets in the observation window"),
            f("alpha_window_end", N(24), "PSN closing the observation window"),
            f("highest_acked_path_psn", N(24), "highest path PSN an ACK reported"),
            f("acked_any", N(1), "highest_acked_path_psn is valid"),
            f("strikes", N(8), "loss events / timeouts since the last acknowledgement"),
            f("last_decrease_psn", N(24), "PSN after which another decrease may happen"),
            f("decreased_any", N(1), "last_decrease_psn is valid"),
            f("backoff_exp", N(5), "RTO backoff exponent 0..=31"),
            f("probe_seq", N(32), "sequence number of the outstanding PROBE (wire: 32 bits)"),
            f("probe_sent_at", N(32), "HwTime the PROBE was sent"),
            f("probe_tries", N(8), "probes on this entropy (max_probes <= 255)"),
            f("probe_due", N(1), "a PROBE goes out next"),
            f("rto_start", N(32), "HwTime the path's retransmission timer (re)started (RFC 6298; deadline rto_start + rto)"),
            f("rto_running", N(1), "the timer runs (= inflight != 0)"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "per-path congestion, RTT, loss and probe state",
    },
    Table {
        block: "path",
        name: "summary",
        depth: Depth::Conns,
        fields: &[
            f("eligible", Paths, "paths that may carry data now"),
            f("ok", Paths, "paths in state OK"),
            f("rr", Log2Paths, "round-robin pointer"),
            f("srtt_max", N(32), "largest path srtt, ns (head timer)"),
            f("lfsr", N(16), "entropy generator: 16-bit Galois LFSR, one step per draw"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "what path selection reads in one access",
    },
    // ---- Retransmit queue (requester): W PSN slots per connection, the per-path
    // transmission-order lists through a pool of W entries, the lost bitmap.
    Table {
        block: "rtx",
        name: "slot",
        depth: Depth::ConnWindow,
        fields: &[
            f("state", N(2), "IN_FLIGHT / LOST / ACKED (FREE: outside [cum, next)); MSN and offset are derived from the message table"),
            f("retx", N(1), "sent more than once (a retransmission asks for an ACK)"),
            f("ptr", Log2TxRecords, "IN_FLIGHT or LOST: its transmission record (a LOST PSN keeps it: its path is the one it was lost on, avoided, credited by a late ACK)"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "one entry per PSN of the window, indexed by PSN mod W",
    },
    Table {
        block: "rtx",
        name: "record",
        depth: Depth::ConnTxRecords,
        fields: &[
            f("slot", Log2Window, "the PSN slot this transmission is of"),
            f("path", Log2Paths, "path it was sent on"),
            f("path_psn", N(24), "its path PSN (per-path loss detection)"),
            f("sent_at", N(32), "HwTime it was sent (head timer)"),
            f("lost", N(1), "its PSN is LOST: the record is on no list until retransmitted, acknowledged or freed"),
            f("prev", Log2TxRecords, "previous record on the path's list"),
            f("next", Log2TxRecords, "next record on the path's list (or the free list)"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "transmissions in flight: min(tx_pool, W) records per connection on per-path doubly linked lists",
    },
    Table {
        block: "rtx",
        name: "lists",
        depth: Depth::ConnPaths,
        fields: &[
            f("head", Log2TxRecords, "oldest record of the path's list"),
            f("tail", Log2TxRecords, "newest record"),
            f("valid", N(1), "the list is not empty"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "per-path list heads and tails",
    },
    Table {
        block: "rtx",
        name: "conn",
        depth: Depth::Conns,
        fields: &[
            f("lost", Window, "lost bitmap over the slots (oldest lost PSN by run detection)"),
            f("lost_count", Log2WindowPlus1, "PSNs declared lost, not yet retransmitted"),
            f("cum_psn", N(24), "oldest outstanding PSN"),
            f("next_psn", N(24), "next new PSN"),
            f("free_head", Log2TxRecords, "free list of the records"),
            f("free_len", Log2TxRecordsPlus1, "free records"),
            f("head_deadline", N(32), "head timer HwTime"),
            f("head_valid", N(1), "head timer armed"),
        ],
        source: Source::Estimate,
        spram: false,
        what: "per-connection retransmit state",
    },
    // ---- Message tracking: requester messages in flight, responder placement/completion.
    Table {
        block: "msg",
        name: "requester",
        depth: Depth::ConnMsgs,
        fields: &[
            f("wr_id", N(64), "the work request's id, for its completion"),
            f("kind", N(2), "WRITE / WRITE with immediate / SEND"),
            f("local_va", N(64), "payload address in host memory (DMA read, retransmissions too)"),
            f("len", N(32), "bytes"),
            f("remote_va", N(64), "WRITE target address"),
            f("rkey", N(32), "WRITE target key"),
            f("first_psn", N(24), "PSN of the message's first packet"),
            f("npkts", N(32), "packets in the message (the wire's packet offset is 32 bits)"),
            f("segmented", N(32), "packets given a PSN so far"),
            f("rnr_naks", N(3), "NoRecvBuffer NAKs so far (rnr_retry <= 7), saturating"),
            f("rnr_not_before", N(32), "HwTime before which the message's lost packets are not resent (RNR hold)"),
            f("rnr_hold_valid", N(1), "the RNR hold is armed"),
            f("solicited", N(1), "solicited event"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "requester: posted messages in flight (msg_window per connection)",
    },
    Table {
        block: "msg",
        name: "requester_conn",
        depth: Depth::Conns,
        fields: &[
            f("next_msn", N(24), "MSN of the next message"),
            f("next_ssn", N(24), "SSN of the next SEND"),
            f("oldest", Log2MsgWindow, "oldest uncompleted message (ring head)"),
            f("seg", Log2MsgWindow, "message being segmented"),
            f("rate_hint", N(32), "last rate hint, Mbit/s"),
            f("tokens", N(24), "token bucket, bytes (fixed point)"),
            f("tokens_at", N(32), "HwTime of the last refill"),
            f("fatal", N(1), "a fatal NAK is pending"),
            f("error", N(1), "the connection is in the error state"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "requester: per-connection message and rate state",
    },
    Table {
        block: "msg",
        name: "responder",
        depth: Depth::ConnMsgs,
        fields: &[
            f("known", N(1), "a packet of the message arrived"),
            f("send", N(1), "a SEND (receive buffer) rather than a WRITE"),
            f("first_psn", N(24), "PSN of the message's first packet"),
            f("ssn", N(24), "SEND sequence number"),
            f("received", N(24), "packets placed"),
            f("accepted", N(24), "packets accepted at the header decision (the decision frontier's complete test)"),
            f("bytes", N(32), "bytes placed"),
            f("last_offset", N(24), "offset of the last packet (valid below)"),
            f("last_valid", N(1), "the last packet arrived"),
            f("max_offset", N(24), "highest packet offset seen"),
            f("solicited", N(1), "solicited event"),
            f("status", N(2), "completion status (DMA write error)"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "responder: placement and completion of msg_window messages",
    },
    Table {
        block: "msg",
        name: "responder_conn",
        depth: Depth::Conns,
        fields: &[
            f("next_msn", N(24), "MSN of the next message to complete"),
            f("d_next_msn", N(24), "the decision frontier: first message not decided complete"),
            f("head", Log2MsgWindow, "ring head of the message table"),
            f("pd", N(16), "protection domain"),
            f("error", N(27), "fatal NAK sent: code 3 + MSN 24"),
            f("ce_avg", N(11), "CE average, Q0.10"),
            f("hint_base", N(32), "rate hint base, Mbit/s"),
            f("last_error_nak", N(32), "HwTime of the last error NAK"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "responder: per-connection state",
    },
    // ---- Responder per-path ACK state.
    Table {
        block: "ack",
        name: "path",
        depth: Depth::ConnPaths,
        fields: &[
            f("expected", N(24), "next expected path PSN"),
            f("highest", N(24), "highest path PSN received"),
            f("pending", N(8), "DATA packets not yet acknowledged (ack_every <= 255)"),
            f("ce", N(8), "CE-marked packets since the last ACK (saturating, wire 8 bits)"),
            f("newest_ts", N(32), "timestamp of the newest DATA packet (echoed)"),
            f("newest_arrival", N(32), "HwTime it arrived (ack_delay)"),
            f("ack_due", N(32), "HwTime of the coalescing timer"),
            f("ack_due_valid", N(1), "coalescing timer armed"),
            f("sport", N(16), "UDP source port to answer on"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "responder: per-path ACK coalescing and echo state",
    },
    // ---- Tables.
    Table {
        block: "mr",
        name: "table",
        depth: Depth::MrEntries,
        fields: &[
            f("base", N(64), "region start address"),
            f("len", N(64), "region length, bytes"),
            f("pd", N(16), "protection domain"),
            f("access", N(3), "remote write / remote read / local write"),
            f("tag", MrTag, "rkey tag (rkey = tag << idx_bits | index)"),
            f("valid", N(1), "row in use"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "memory-region table (mr_entries rows per NIC)",
    },
    Table {
        block: "qp",
        name: "table",
        depth: Depth::Conns,
        fields: &[
            f("tag", QpTag, "QPN tag (QPN = tag << conn_bits | conn)"),
            f("valid", N(1), "connection in use"),
            f("remote_qpn", N(24), "peer's QPN (BTH destination QP of what we send)"),
            f("remote_ip", N(32), "peer's IPv4 address"),
            f("remote_mac", N(48), "next hop's MAC address"),
            f("pkey", N(16), "partition key"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "destination QP -> connection, and the connection's peer",
    },
    Table {
        block: "rq",
        name: "buffers",
        depth: Depth::ConnRq,
        fields: &[
            f("addr", N(64), "buffer address"),
            f("len", N(32), "buffer length, bytes"),
            f("wr_id", N(64), "the receive work request's id"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "posted receive buffers (rq_depth per connection)",
    },
    Table {
        block: "rq",
        name: "conn",
        depth: Depth::Conns,
        fields: &[
            f("head_ssn", N(24), "SSN of the oldest posted buffer"),
            f("head", Log2RqDepth, "ring head"),
            f("count", N(11), "posted buffers (rq_depth <= 1024)"),
        ],
        source: Source::Estimate,
        spram: true,
        what: "receive queue ring pointers",
    },
];

/// The sizes every table's depth and widths depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sizes {
    pub connections: u64,
    pub paths: u64,
    pub window: u64,
    pub msg_window: u64,
    pub rq_depth: u64,
    pub mr_entries: u64,
    /// Transmission records per connection: `min(tx_pool, W)`.
    pub tx_records: u64,
}

fn clog2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

impl Sizes {
    pub fn of(cfg: &Config) -> Sizes {
        let t = &cfg.transport;
        Sizes {
            connections: cfg.connections as u64,
            paths: u64::from(t.paths),
            window: u64::from(t.window),
            msg_window: msg_window(cfg),
            rq_depth: rq_depth(cfg),
            mr_entries: mr_entries(cfg),
            tx_records: u64::from(t.tx_records()),
        }
    }

    pub fn bits(&self, b: Bits) -> u32 {
        match b {
            N(n) => n,
            Window => self.window as u32,
            Log2Window => clog2(self.window).max(1),
            Log2WindowPlus1 => clog2(self.window) + 1,
            Paths => self.paths as u32,
            Log2TxRecords => clog2(self.tx_records).max(1),
            Log2TxRecordsPlus1 => clog2(self.tx_records) + 1,
            Log2TxRecordsOrPaths => self.bits(Log2TxRecords).max(self.bits(Log2Paths)),
            Log2Paths => clog2(self.paths).max(1),
            Log2PathsPlus1 => clog2(self.paths) + 1,
            Log2MsgWindow => clog2(self.msg_window).max(1),
            Log2RqDepth => clog2(self.rq_depth).max(1),
            MrTag => 32 - clog2(self.mr_entries),
            QpTag => 24 - clog2(self.connections),
            NPlusLog2Paths(n) => n + clog2(self.paths),
        }
    }

    pub fn depth(&self, d: Depth) -> u64 {
        let c = self.connections;
        match d {
            Depth::Conns => c,
            Depth::ConnPaths => c * self.paths,
            Depth::ConnWindow => c * self.window,
            Depth::ConnTxRecords => c * self.tx_records,
            Depth::ConnMsgs => c * self.msg_window,
            Depth::ConnRq => c * self.rq_depth,
            Depth::MrEntries => self.mr_entries,
        }
    }
}

fn msg_window(cfg: &Config) -> u64 {
    u64::from(cfg.transport.msg_window)
}
fn rq_depth(cfg: &Config) -> u64 {
    u64::from(cfg.transport.rq_depth)
}
fn mr_entries(cfg: &Config) -> u64 {
    u64::from(cfg.transport.mr_entries)
}

/// A block-RAM geometry: `depth` words of `width` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    pub primitive: &'static str,
    pub depth: u64,
    pub width: u64,
}

const fn g(primitive: &'static str, depth: u64, width: u64) -> Geometry {
    Geometry { primitive, depth, width }
}

/// ECP5 sysMEM block (18 Kbit) geometries: `DP16KD` true dual port and `PDPW16KD` pseudo
/// dual port (512 x 36; one write port, one read port).
pub const ECP5_GEOMETRIES: &[Geometry] = &[
    g("DP16KD", 16384, 1),
    g("DP16KD", 8192, 2),
    g("DP16KD", 4096, 4),
    g("DP16KD", 2048, 9),
    g("DP16KD", 1024, 18),
    g("PDPW16KD", 512, 36),
];
/// iCE40 UP5K EBR (`SB_RAM40_4K`, 4 Kbit) geometries.
pub const ICE40_EBR_GEOMETRIES: &[Geometry] = &[g("SB_RAM40_4K", 256, 16), g("SB_RAM40_4K", 512, 8), g("SB_RAM40_4K", 1024, 4), g("SB_RAM40_4K", 2048, 2)];
/// iCE40 UP5K SPRAM (`SB_SPRAM256KA`): 16K x 16, single port.
pub const ICE40_SPRAM: Geometry = g("SB_SPRAM256KA", 16384, 16);

/// One of the target devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Device {
    /// `ecp5-85f` or `up5k`.
    pub key: &'static str,
    pub name: &'static str,
    /// Block RAMs (DP16KD / EBR).
    pub brams: u64,
    /// Bits per block RAM.
    pub bram_bits: u64,
    /// Single-port SPRAM blocks (iCE40 UP5K), 0 if none.
    pub sprams: u64,
    /// Word width of the parser's frame buffer on this device.
    pub frame_word: u64,
}

pub const ECP5_85F: Device = Device { key: "ecp5-85f", name: "ECP5-85F (LFE5U-85F)", brams: 208, bram_bits: 18432, sprams: 0, frame_word: 64 };
pub const UP5K: Device = Device { key: "up5k", name: "iCE40 UP5K", brams: 30, bram_bits: 4096, sprams: 4, frame_word: 16 };
pub const DEVICES: &[Device] = &[ECP5_85F, UP5K];

/// The fewest blocks for `depth x width` with one geometry of `geoms`, and that geometry.
pub fn map_blocks(depth: u64, width: u64, geoms: &[Geometry]) -> (u64, Geometry) {
    geoms
        .iter()
        .map(|g| (width.div_ceil(g.width) * depth.div_ceil(g.depth), *g))
        .min_by_key(|(n, g)| (*n, std::cmp::Reverse(g.width)))
        .expect("geometries")
}

/// One field of a memory, sized.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SizedField {
    pub name: &'static str,
    pub bits: u32,
    pub what: &'static str,
}

/// One memory of the configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Memory {
    pub block: &'static str,
    pub name: &'static str,
    pub depth: u64,
    pub width: u64,
    pub fields: Vec<SizedField>,
    /// `depth * width`.
    pub bits: u64,
    /// Bits per connection (`bits / connections`), `None` for a table shared by the NIC.
    pub bits_per_connection: Option<u64>,
    /// `"rtl"` or `"estimate"`.
    pub source: String,
    pub spram: bool,
    pub what: &'static str,
}

/// Where one memory went on a device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub block: &'static str,
    pub name: &'static str,
    /// Block RAMs (DP16KD / EBR) it uses, 0 if folded into SPRAM.
    pub brams: u64,
    /// The geometry (`PDPW16KD 512x36`), or `SPRAM folded`.
    pub geometry: String,
    /// 16-bit SPRAM words it uses when folded, else 0.
    pub spram_words: u64,
    /// Cycles per row access when folded (ceil(width / 16)), else 1.
    pub cycles_per_row: u64,
}

/// A configuration against one device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fit {
    pub device: Device,
    pub placements: Vec<Placement>,
    pub brams_used: u64,
    pub sprams_used: u64,
    pub fits: bool,
    /// Why it does not fit (names the device and the shortfall), empty when it fits.
    pub reason: String,
}

/// The whole budget of a configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Budget {
    pub config: String,
    pub sizes: Sizes,
    pub memories: Vec<Memory>,
    /// Total bits, frame buffer included.
    pub total_bits: u64,
    /// Bits per connection over every per-connection table.
    pub bits_per_connection: u64,
    pub fits: Vec<Fit>,
}

/// The frame buffer's bits.
pub const FRAME_BUFFER_BITS: u64 = FRAME_BUFFER_FRAMES * FRAME_BYTES * 8;

/// The parser's frame buffer as a memory of 64-bit words.
fn frame_buffer() -> Memory {
    Memory {
        block: "parser",
        name: "frames",
        depth: FRAME_BUFFER_BITS / 64,
        width: 64,
        fields: vec![SizedField { name: "data", bits: 64, what: "frame bytes (2 x 9216-byte frames)" }],
        bits: FRAME_BUFFER_BITS,
        bits_per_connection: None,
        source: "estimate".into(),
        spram: true,
        what: "the parser's store-and-forward frame buffer",
    }
}

impl Memory {
    fn is_frame_buffer(&self) -> bool {
        self.block == "parser"
    }
}

/// The memories of `cfg` (the frame buffer last).
pub fn memories(cfg: &Config) -> Vec<Memory> {
    memories_of(&Sizes::of(cfg))
}

/// The memories of a configuration with these sizes (the frame buffer last).
pub fn memories_of(s: &Sizes) -> Vec<Memory> {
    let s = *s;
    let mut out: Vec<Memory> = TABLES
        .iter()
        .map(|t| {
            let fields: Vec<SizedField> =
                t.fields.iter().map(|x| SizedField { name: x.name, bits: s.bits(x.bits), what: x.what }).filter(|x| x.bits > 0).collect();
            let width: u64 = fields.iter().map(|x| u64::from(x.bits)).sum();
            let depth = s.depth(t.depth);
            let bits = depth * width;
            Memory {
                block: t.block,
                name: t.name,
                depth,
                width,
                fields,
                bits,
                bits_per_connection: (t.depth != Depth::MrEntries).then(|| bits / s.connections),
                source: match t.source {
                    Source::Rtl(_) => "rtl".into(),
                    Source::Estimate => "estimate".into(),
                },
                spram: t.spram,
                what: t.what,
            }
        })
        .collect();
    out.push(frame_buffer());
    out
}

/// The memories placed on `device`.
pub fn fit(mems: &[Memory], device: Device) -> Fit {
    let mut placements: Vec<Placement> = mems
        .iter()
        .map(|m| {
            let (depth, width) = if m.is_frame_buffer() { (m.bits / device.frame_word, device.frame_word) } else { (m.depth, m.width) };
            let geoms = if device.sprams > 0 { ICE40_EBR_GEOMETRIES } else { ECP5_GEOMETRIES };
            let (n, g) = map_blocks(depth, width, geoms);
            Placement { block: m.block, name: m.name, brams: n, geometry: format!("{} {}x{}", g.primitive, g.depth, g.width), spram_words: 0, cycles_per_row: 1 }
        })
        .collect();
    let mut sprams_used = 0;
    if device.sprams > 0 {
        // Fold SPRAM-able memories, the most EBRs first, while they fit in the SPRAMs (the
        // SPRAMs are otherwise unused; every EBR left is room for the blocks' FIFOs).
        let mut order: Vec<usize> = (0..mems.len()).filter(|&i| mems[i].spram).collect();
        order.sort_by_key(|&i| std::cmp::Reverse((placements[i].brams, mems[i].bits)));
        let mut free: Vec<u64> = vec![ICE40_SPRAM.depth; device.sprams as usize];
        for i in order {
            let m = &mems[i];
            let words_per_row = if m.is_frame_buffer() { 1 } else { m.width.div_ceil(ICE40_SPRAM.width) };
            let words = if m.is_frame_buffer() { m.bits.div_ceil(ICE40_SPRAM.width) } else { m.depth * words_per_row };
            // A memory larger than one SPRAM takes whole blocks; smaller ones share (first fit).
            let placed = if words > ICE40_SPRAM.depth {
                let need = words.div_ceil(ICE40_SPRAM.depth) as usize;
                let empty: Vec<usize> = (0..free.len()).filter(|&k| free[k] == ICE40_SPRAM.depth).take(need).collect();
                (empty.len() == need).then(|| {
                    let mut left = words;
                    for k in empty {
                        let take = left.min(ICE40_SPRAM.depth);
                        free[k] -= take;
                        left -= take;
                    }
                })
            } else {
                free.iter_mut().find(|f| **f >= words).map(|f| *f -= words)
            };
            if placed.is_some() {
                let p = &mut placements[i];
                p.brams = 0;
                p.geometry = "SPRAM folded 16-bit".into();
                p.spram_words = words;
                p.cycles_per_row = words_per_row;
            }
        }
        sprams_used = free.iter().filter(|&&f| f < ICE40_SPRAM.depth).count() as u64;
    }
    let brams_used: u64 = placements.iter().map(|p| p.brams).sum();
    let fits = brams_used <= device.brams && sprams_used <= device.sprams;
    let reason = if fits {
        String::new()
    } else {
        let what = if device.sprams > 0 { "EBR" } else { "DP16KD" };
        format!(
            "does not fit {}: needs {brams_used} {what} of {} ({} short{}), frame buffer included",
            device.name,
            device.brams,
            brams_used - device.brams,
            if device.sprams > 0 { format!("; {sprams_used} of {} SPRAM in use", device.sprams) } else { String::new() }
        )
    };
    Fit { device, placements, brams_used, sprams_used, fits, reason }
}

impl Budget {
    pub fn of(cfg: &Config) -> Budget {
        let memories = memories(cfg);
        let sizes = Sizes::of(cfg);
        let total_bits = memories.iter().map(|m| m.bits).sum();
        let bits_per_connection = memories.iter().filter_map(|m| m.bits_per_connection).sum();
        let fits = DEVICES.iter().map(|d| fit(&memories, *d)).collect();
        Budget { config: cfg.name.clone(), sizes, memories, total_bits, bits_per_connection, fits }
    }

    /// The fit on the device with this key (`ecp5-85f`, `up5k`).
    pub fn on(&self, key: &str) -> &Fit {
        self.fits.iter().find(|f| f.device.key == key).expect("a known device")
    }

    /// Per block: bits per connection (per-connection tables) and total bits.
    pub fn blocks(&self) -> Vec<(&'static str, u64, u64)> {
        let mut out: Vec<(&'static str, u64, u64)> = Vec::new();
        for m in &self.memories {
            match out.iter_mut().find(|b| b.0 == m.block) {
                Some(b) => {
                    b.1 += m.bits_per_connection.unwrap_or(0);
                    b.2 += m.bits;
                }
                None => out.push((m.block, m.bits_per_connection.unwrap_or(0), m.bits)),
            }
        }
        out
    }

    /// The report `mrnic budget` prints (markdown).
    pub fn to_markdown(&self) -> String {
        let s = &self.sizes;
        let mut o = format!(
            "## Budget of `{}`: {} connections x {} paths, W = {}, {} transmission records, msg_window {}, rq_depth {}, mr_entries {}\n\n",
            self.config, s.connections, s.paths, s.window, s.tx_records, s.msg_window, s.rq_depth, s.mr_entries
        );
        o += "| block | memory | depth | width | bits | bits/conn | source | ECP5-85F | UP5K |\n|---|---|---:|---:|---:|---:|---|---|---|\n";
        let (e, u) = (self.on(ECP5_85F.key), self.on(UP5K.key));
        for (i, m) in self.memories.iter().enumerate() {
            let (pe, pu) = (&e.placements[i], &u.placements[i]);
            let up = if pu.spram_words > 0 {
                format!("SPRAM {} words ({} cyc/row)", pu.spram_words, pu.cycles_per_row)
            } else {
                format!("{} x {}", pu.brams, pu.geometry)
            };
            o += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} x {} | {} |\n",
                m.block,
                m.name,
                m.depth,
                m.width,
                m.bits,
                m.bits_per_connection.map_or("shared".into(), |b| b.to_string()),
                m.source,
                pe.brams,
                pe.geometry,
                up
            );
        }
        o += "\n| block | bits per connection | total bits |\n|---|---:|---:|\n";
        for (b, per, tot) in self.blocks() {
            o += &format!("| {b} | {per} | {tot} |\n");
        }
        o += &format!("| **all** | **{}** | **{}** |\n\n", self.bits_per_connection, self.total_bits);
        o += "| device | block RAMs used | available | SPRAM used | available | fits |\n|---|---:|---:|---:|---:|---|\n";
        for f in &self.fits {
            o += &format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                f.device.name,
                f.brams_used,
                f.device.brams,
                f.sprams_used,
                f.device.sprams,
                if f.fits { "yes".to_string() } else { format!("**no**: {}", f.reason) }
            );
        }
        o
    }
}

/// Every preset's totals and per-block bits per connection (`mrnic budget --summary`, the
/// tables of `docs/budget.md`).
pub fn summary_markdown() -> String {
    let budgets: Vec<Budget> = crate::config::PRESETS.iter().map(|p| Budget::of(&Config::preset(p).expect("preset"))).collect();
    let mut o = String::from(
        "| preset | connections x paths, W | tx records, msg_window, rq_depth, mr_entries | bits per connection | total bits | ECP5-85F DP16KD (of 208) | fits ECP5-85F | UP5K EBR (of 30) | UP5K SPRAM (of 4) | fits UP5K |\n|---|---|---|---:|---:|---:|---|---:|---:|---|\n",
    );
    for b in &budgets {
        let s = &b.sizes;
        let (e, u) = (b.on(ECP5_85F.key), b.on(UP5K.key));
        let yn = |f: &Fit| if f.fits { "yes" } else { "no" };
        o += &format!(
            "| `{}` | {} x {}, {} | {}, {}, {}, {} | {} | {} | {} | {} | {} | {} | {} |\n",
            b.config, s.connections, s.paths, s.window, s.tx_records, s.msg_window, s.rq_depth, s.mr_entries, b.bits_per_connection, b.total_bits,
            e.brams_used, yn(e), u.brams_used, u.sprams_used, yn(u)
        );
    }
    o += "\nBits per connection, per block (tables shared by the NIC, the MR table and the frame buffer, count 0 here):\n\n| block |";
    for b in &budgets {
        o += &format!(" `{}` |", b.config);
    }
    o += "\n|---|";
    o += &"---:|".repeat(budgets.len());
    o += "\n";
    for (i, (block, _, _)) in budgets[0].blocks().iter().enumerate() {
        o += &format!("| {block} |");
        for b in &budgets {
            o += &format!(" {} |", b.blocks()[i].1);
        }
        o += "\n";
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_reproduces_the_measured_sack_engine() {
        // docs/synthesis.md: 17 DP16KD (default, 1024 x 256 + 1024 x 24), 6 SB_RAM40_4K (ice40).
        for (preset, dev, want) in [("default", ECP5_85F, 17), ("ice40", UP5K, 6)] {
            let b = Budget::of(&Config::preset(preset).unwrap());
            let f = fit(&b.memories.iter().filter(|m| m.block == "sack").cloned().collect::<Vec<_>>(), dev);
            assert_eq!(f.brams_used, want, "{preset}: {:?}", f.placements);
        }
    }

    #[test]
    fn geometries_hold_18_kbit_and_4_kbit() {
        for g in ECP5_GEOMETRIES {
            assert!(g.depth * g.width == 16384 || g.depth * g.width == 18432, "{g:?}");
        }
        for g in ICE40_EBR_GEOMETRIES {
            assert_eq!(g.depth * g.width, 4096, "{g:?}");
        }
        assert_eq!(map_blocks(1024, 24, ECP5_GEOMETRIES).0, 2);
        assert_eq!(map_blocks(1, 1, ECP5_GEOMETRIES).0, 1);
    }

    #[test]
    fn widths_follow_the_configuration() {
        let s = Sizes { connections: 256, paths: 8, window: 256, msg_window: 32, rq_depth: 64, mr_entries: 1024, tx_records: 16 };
        assert_eq!((s.bits(Log2Window), s.bits(Log2WindowPlus1), s.bits(Log2Paths), s.bits(Log2MsgWindow)), (8, 9, 3, 5));
        assert_eq!((s.bits(MrTag), s.bits(QpTag)), (22, 16));
        assert_eq!(s.depth(Depth::ConnWindow), 65536);
        assert_eq!((s.depth(Depth::ConnTxRecords), s.bits(Log2TxRecords), s.bits(Log2TxRecordsPlus1)), (4096, 4, 5));
    }
}
