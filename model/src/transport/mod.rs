//! The mrnic transport: the golden model of one connection's two ends.
//!
//! `docs/protocol.md` §6 is the prose form of this module; the names here are the
//! spec's. A connection end is a [`Qp`]: a [`Requester`] (sends WRITE/SEND work
//! requests, processes ACK/NAK/PROBE_REPLY) and a [`Responder`] (places DATA,
//! answers with ACK/NAK/PROBE_REPLY). The hardware's four blocks are functions of
//! this model, one source of truth:
//!
//! | block | model | used by |
//! |---|---|---|
//! | SACK bitmap engine | [`crate::sack::SackState`] | [`Responder`] |
//! | path table | [`path::PathTable`] | [`Requester`] |
//! | retransmit queue | [`rtx::RetransmitQueue`] | [`Requester`] |
//! | DMA placement unit | [`placement`] (`check`, [`placement::HostMemory`]) | [`Responder`] |
//!
//! The model is event driven and has no clock of its own: every call takes `now`
//! (ns). A driver (the [`loopback`] network of the property tests, or the network
//! simulator `sim/`) calls [`Qp::poll_tx`] when the link is free, [`Qp::on_frame`]
//! when a frame arrives and [`Qp::on_timer`] at [`Qp::next_wakeup`].

pub mod ackgen;
pub mod ackgen_shell;
pub mod ackjoin;
pub mod cmpl;
pub mod conn_chk_shell;
pub mod conn_table;
pub mod exchange;
pub mod loopback;
pub mod path;
pub mod placement;
pub mod placement_wr;
pub mod place_chk_shell;
pub mod qp;
pub mod requester;
pub mod msg_chk;
pub mod msg_chk_shell;
pub mod responder;
pub mod rtx;
pub mod path_shell;
pub mod rtx_shell;

pub use qp::{Qp, QpAddr, QpSetup, QpStats};
pub use requester::{Completion, Requester, WcStatus, WorkRequest};
pub use responder::{RecvCompletion, RecvStatus, Responder};

use crate::config::{ConfigError, SACK_WINDOWS};
use crate::wire::MAX_PAYLOAD;
use serde::{Deserialize, Serialize};

/// Why a connection end refused a call (posting, registering memory, setup).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("the connection is in the error state (a fatal NAK)")]
    ErrorState,
    #[error("work request {wr_id}: data has {data} bytes, len says {len}")]
    DataLength { wr_id: u64, data: u64, len: u64 },
    #[error("work request {wr_id}: {len} bytes is too long (a message is at most 2^32 - 1 bytes and 2^24 - 1 packets)")]
    TooLong { wr_id: u64, len: u64 },
    #[error("rkey {rkey:#x} is already registered")]
    RkeyInUse { rkey: u32 },
    #[error(
        "rkey {rkey:#x}: memory-region row {index} (its low log2({entries}) bits) already holds rkey {holder:#x}; \
         deregister that key or pick a key with another index"
    )]
    MrRowTaken { rkey: u32, index: u32, holder: u32, entries: u32 },
    #[error("the receive queue is full: {depth} buffers posted (rq_depth)")]
    RecvQueueFull { depth: u32 },
    #[error("allocation [{base:#x}, +{len}) is empty or wraps")]
    EmptyAllocation { base: u64, len: u64 },
    #[error("allocation [{base:#x}, +{len}) overlaps [{other:#x}, +{other_len})")]
    Overlap { base: u64, len: u64, other: u64, other_len: u64 },
    #[error("the initial MSN and SSN can only be set before the first work request or packet")]
    AlreadyStarted,
}

/// A broken bookkeeping invariant of the requester ([`Requester::check_invariants`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvariantError {
    #[error("path {path}: inflight {counted} but {actual} PSNs in flight on it")]
    Inflight { path: usize, counted: u32, actual: u32 },
    #[error("lost set holds {set} PSNs, {slots} slots are Lost")]
    LostSet { set: u32, slots: u32 },
    #[error("{outstanding} PSNs outstanding in a window of {window}")]
    Window { outstanding: u32, window: u32 },
    #[error("transmission-order lists: {0}")]
    TxLists(String),
    #[error("path table summary: {0}")]
    PathSummary(String),
}

/// Largest `reorder_threshold`: path PSN distances are compared in 24-bit serial
/// arithmetic, which orders only distances below 2^23.
pub const MAX_REORDER_THRESHOLD: u32 = (1 << 23) - 1;
/// Largest time parameter (`ack_timeout_ns`, `rto_*_ns`): 2^31 − 1 ns (about 2.1 s),
/// the range of the 32-bit timestamp echo; it also keeps `now + t` far from overflow.
pub const MAX_TIME_NS: u64 = (1 << 31) - 1;
/// Largest `head_rto_pct` (100 × the largest path RTT).
pub const MAX_HEAD_RTO_PCT: u32 = 10_000;
/// Largest congestion window bound, packets: the largest PSN window W (256), which
/// bounds the sum over paths anyway; `cwnd_max` must also be at most the configured
/// `window`. A path window is then Q9.8 fixed point (17 bits).
pub const MAX_CWND: u32 = 256;

/// 24-bit sequence numbers (PSN, path PSN).
pub const SEQ_MASK: u32 = 0x00FF_FFFF;
const SEQ_HALF: u32 = 1 << 23;

/// `(a + n) mod 2^24`.
#[inline]
pub fn seq_add(a: u32, n: u32) -> u32 {
    a.wrapping_add(n) & SEQ_MASK
}
/// `(a - b) mod 2^24`.
#[inline]
pub fn seq_dist(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b) & SEQ_MASK
}
/// 24-bit serial arithmetic: `a` is after `b` (`0 < a - b < 2^23`).
#[inline]
pub fn seq_after(a: u32, b: u32) -> bool {
    let d = seq_dist(a, b);
    d != 0 && d < SEQ_HALF
}
/// `a` is after `b` or equal to it.
#[inline]
pub fn seq_after_eq(a: u32, b: u32) -> bool {
    seq_dist(a, b) < SEQ_HALF
}

/// The transport's parameters (`docs/protocol.md` §5). The ones marked *wire* must
/// agree between the two ends; the others are local policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TransportConfig {
    /// *wire* Paths per connection, P (1..=16).
    pub paths: u8,
    /// *wire* Largest DATA payload in bytes (64..=9000, a multiple of 4).
    pub mtu: u32,
    /// *wire* SACK window W in PSNs: the responder accepts `[c, c + W)`, the requester
    /// never has a PSN at or beyond `c + W` in flight. Must equal `sack.window`.
    pub window: u32,
    /// *wire* BTH partition key: any 16-bit value but 0x0000 and 0x8000.
    pub pkey: u16,
    /// K: a packet is lost when the responder has seen path PSN `x + K` on its path.
    /// 1 (any gap) when a path keeps order, as one ECMP route does; larger for fabrics
    /// that reorder within a route. Range 1..=2^23 − 1 ([`MAX_REORDER_THRESHOLD`]).
    pub reorder_threshold: u32,
    /// N: the responder ACKs every N DATA packets per path (1..=255).
    pub ack_every: u32,
    /// T: ... or this long after the first unacknowledged packet on the path
    /// (1..=2^31 − 1 ns, [`MAX_TIME_NS`]).
    pub ack_timeout_ns: u64,
    /// Per-path retransmission timeout bounds; `rto_init_ns` before the first RTT sample.
    /// Each 1..=2^31 − 1 ns ([`MAX_TIME_NS`]), and `rto_min_ns <= rto_init_ns <= rto_max_ns`.
    pub rto_min_ns: u64,
    pub rto_max_ns: u64,
    pub rto_init_ns: u64,
    /// Head timer: the oldest outstanding PSN (it blocks the PSN window) is sent again
    /// after this percentage of the largest path RTT while the window is at least half
    /// used; 0 = off. Range 0..=10000 ([`MAX_HEAD_RTO_PCT`]).
    pub head_rto_pct: u32,
    /// DCTCP gain g = 2^-dctcp_g_shift (1..=10).
    pub dctcp_g_shift: u8,
    /// Percent of a path's window kept after a loss event (per-path detection), at most
    /// once per window of data. 100: loss is not a congestion signal (ECN is; random
    /// and corruption loss must not throttle a path); 50: halve, as TCP does. Range 1..=100.
    pub loss_beta_pct: u8,
    /// Per-path congestion window, packets: each 1..=256 ([`MAX_CWND`]),
    /// `cwnd_min <= cwnd_init <= cwnd_max <= window`.
    pub cwnd_init: u32,
    pub cwnd_min: u32,
    pub cwnd_max: u32,
    /// Consecutive loss events or timeouts that fail a path (1..=255).
    pub fail_threshold: u32,
    /// A path RTO fails the path at once (new entropy, probe) instead of counting a
    /// strike: the RTO already waited srtt + 4 rttvar with no word from the path.
    pub fail_on_timeout: bool,
    /// Probes on one entropy before it is re-rolled again (1..=255).
    pub max_probes: u32,
    /// NoRecvBuffer NAKs for one message before giving up (0..=7); 7 = never.
    pub rnr_retry: u8,
    /// The RNR delay a responder puts in a NoRecvBuffer NAK, µs (any 16-bit value).
    pub rnr_delay_us: u16,
    /// IP DSCP of every packet (0..=63).
    pub dscp: u8,
    /// Clock period of the hardware, ns (1..=255): the hardware time counter
    /// ([`crate::time::HwTime`], 32 bits, unit 1 ns) advances this much every cycle, so
    /// the model only sees multiples of it. 10 = 100 MHz; 33 ≈ 30 MHz.
    pub cycle_ns: u8,
    /// Messages in flight per connection: the requester starts a new message only while
    /// fewer than this many are uncompleted (the rest wait in the send queue), and the
    /// responder tracks at most this many. A power of two, 1..=256, at most `window`.
    pub msg_window: u32,
    /// Posted receive buffers per connection (the receive queue's depth in the NIC): a
    /// power of two, 1..=1024.
    pub rq_depth: u32,
    /// Rows of the memory-region table (one table per NIC, a block RAM): a power of two,
    /// 16..=65536. An rkey is `tag << log2(mr_entries) | index`.
    pub mr_entries: u32,
    /// Transmission records per connection in the retransmit queue (a power of two,
    /// 1..=256): at most `min(tx_pool, window)` packets are in flight on a connection at
    /// once (each transmission holds one record until it is acknowledged or declared
    /// lost). The default 256 makes it the PSN window's bound; `core` uses 16.
    pub tx_pool: u32,
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            paths: 8,
            mtu: 4096,
            window: 256,
            pkey: crate::wire::DEFAULT_PKEY,
            reorder_threshold: 1,
            ack_every: 4,
            ack_timeout_ns: 2_000,
            rto_min_ns: 50_000,
            rto_max_ns: 100_000_000,
            rto_init_ns: 1_000_000,
            head_rto_pct: 200,
            dctcp_g_shift: 4,
            loss_beta_pct: 100,
            cwnd_init: 16,
            cwnd_min: 1,
            cwnd_max: 256,
            fail_threshold: 3,
            fail_on_timeout: true,
            max_probes: 1,
            rnr_retry: 7,
            rnr_delay_us: 10,
            dscp: 26,
            cycle_ns: 10,
            msg_window: 32,
            rq_depth: 64,
            mr_entries: 1024,
            tx_pool: 256,
        }
    }
}

impl TransportConfig {
    /// Refuses values the protocol cannot carry or the model cannot honour: every
    /// numeric field has the range in its doc comment (and in `docs/protocol.md` §5);
    /// the error names the field and the reason.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn range<T: PartialOrd + std::fmt::Display>(field: &str, v: T, lo: T, hi: T, why: &str) -> Result<(), ConfigError> {
            if v < lo || v > hi {
                return Err(ConfigError::out_of_range(format!("transport.{field}"), v, format!("must be {lo}..={hi} ({why})")));
            }
            Ok(())
        }
        range("paths", self.paths, 1, crate::wire::MAX_PATHS, "a 4-bit path id on the wire")?;
        if self.mtu < 64 || self.mtu > 9000 || !self.mtu.is_multiple_of(4) || self.mtu as usize > MAX_PAYLOAD {
            return Err(ConfigError::out_of_range("transport.mtu", self.mtu, "must be a multiple of 4 in 64..=9000"));
        }
        if !SACK_WINDOWS.contains(&(self.window as usize)) {
            return Err(ConfigError::out_of_range(
                "transport.window",
                self.window,
                format!("must be one of {SACK_WINDOWS:?} (the SACK bitmap width)"),
            ));
        }
        if self.pkey & 0x7FFF == 0 {
            return Err(ConfigError::out_of_range(
                "transport.pkey",
                format!("{:#06x}", self.pkey),
                "must not be 0x0000 or 0x8000 (the invalid P_Key of InfiniBand: its 15-bit key is 0)",
            ));
        }
        range("reorder_threshold", self.reorder_threshold, 1, MAX_REORDER_THRESHOLD, "1 = any path PSN gap is a loss; below 2^23 for 24-bit serial comparison")?;
        range("ack_every", self.ack_every, 1, 255, "the ACK's 8-bit packet count")?;
        range("ack_timeout_ns", self.ack_timeout_ns, 1, MAX_TIME_NS, "below 2^31 ns, the timestamp echo range")?;
        range("rto_min_ns", self.rto_min_ns, 1, MAX_TIME_NS, "below 2^31 ns, the timestamp echo range")?;
        range("rto_init_ns", self.rto_init_ns, 1, MAX_TIME_NS, "below 2^31 ns, the timestamp echo range")?;
        range("rto_max_ns", self.rto_max_ns, 1, MAX_TIME_NS, "below 2^31 ns, the timestamp echo range")?;
        if self.rto_min_ns > self.rto_init_ns || self.rto_init_ns > self.rto_max_ns {
            return Err(ConfigError::invalid(
                "transport.rto_init_ns",
                format!(
                    "RTO bounds: need rto_min_ns ({}) <= rto_init_ns ({}) <= rto_max_ns ({})",
                    self.rto_min_ns, self.rto_init_ns, self.rto_max_ns
                ),
            ));
        }
        range("head_rto_pct", self.head_rto_pct, 0, MAX_HEAD_RTO_PCT, "percent of the largest path RTT; 0 = off")?;
        range("dctcp_g_shift", self.dctcp_g_shift, 1, 10, "g = 1/2 .. 1/1024")?;
        range("loss_beta_pct", self.loss_beta_pct, 1, 100, "percent of the window kept")?;
        range("cwnd_min", self.cwnd_min, 1, MAX_CWND, "packets")?;
        range("cwnd_init", self.cwnd_init, 1, MAX_CWND, "packets")?;
        range("cwnd_max", self.cwnd_max, 1, MAX_CWND, "packets")?;
        if self.cwnd_min > self.cwnd_init || self.cwnd_init > self.cwnd_max {
            return Err(ConfigError::invalid(
                "transport.cwnd_init",
                format!(
                    "windows: need 1 <= cwnd_min ({}) <= cwnd_init ({}) <= cwnd_max ({})",
                    self.cwnd_min, self.cwnd_init, self.cwnd_max
                ),
            ));
        }
        range("fail_threshold", self.fail_threshold, 1, 255, "strikes that fail a path")?;
        range("max_probes", self.max_probes, 1, 255, "probes per entropy")?;
        range("rnr_retry", self.rnr_retry, 0, 7, "7 = retry forever")?;
        // rnr_delay_us: any u16 (the NAK's 16-bit field).
        range("dscp", self.dscp, 0, 63, "the 6-bit IPv4 DSCP")?;
        if self.cwnd_max > self.window {
            return Err(ConfigError::out_of_range(
                "transport.cwnd_max",
                self.cwnd_max,
                format!("must be at most window = {} (the PSN window bounds every path's window; a path window is 9 integer bits)", self.window),
            ));
        }
        range("cycle_ns", self.cycle_ns, 1, 255, "the hardware clock period in ns")?;
        fn pow2(field: &str, v: u32, lo: u32, hi: u32, why: &str) -> Result<(), ConfigError> {
            if v < lo || v > hi || !v.is_power_of_two() {
                return Err(ConfigError::out_of_range(format!("transport.{field}"), v, format!("must be a power of two in {lo}..={hi} ({why})")));
            }
            Ok(())
        }
        pow2("msg_window", self.msg_window, 1, 256, "messages in flight per connection")?;
        if self.msg_window > self.window {
            return Err(ConfigError::out_of_range(
                "transport.msg_window",
                self.msg_window,
                format!("must be at most window = {} (every message in flight has a PSN in the window)", self.window),
            ));
        }
        pow2("rq_depth", self.rq_depth, 1, 1024, "posted receive buffers per connection")?;
        pow2("mr_entries", self.mr_entries, 16, 65536, "memory-region table rows: a block RAM depth")?;
        pow2("tx_pool", self.tx_pool, 1, 256, "transmission records per connection; at most min(tx_pool, window) packets in flight")?;
        Ok(())
    }

    /// Packets a connection may have in flight at once: `min(tx_pool, window)`.
    pub fn tx_records(&self) -> u32 {
        self.tx_pool.min(self.window)
    }

    /// Bytes on the wire of a full-MTU DATA frame (no VLAN tag).
    pub fn max_data_frame(&self) -> u32 {
        (crate::wire::ETH_HLEN + crate::wire::L3_OVERHEAD + crate::wire::DATA_HDRS_LEN) as u32 + self.mtu
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_arithmetic_wraps_at_2_pow_24() {
        assert_eq!(seq_add(SEQ_MASK, 1), 0);
        assert!(seq_after(0, SEQ_MASK));
        assert!(!seq_after(SEQ_MASK, 0));
        assert!(seq_after_eq(5, 5) && !seq_after(5, 5));
        assert_eq!(seq_dist(2, SEQ_MASK - 1), 4);
        assert!(seq_after(SEQ_HALF - 1, 0) && !seq_after(SEQ_HALF, 0));
    }

    #[test]
    fn default_transport_config_is_valid_and_bad_values_are_refused_with_the_reason() {
        TransportConfig::default().validate().unwrap();
        let cases: Vec<(TransportConfig, &str)> = vec![
            (TransportConfig { paths: 17, ..Default::default() }, "paths = 17"),
            (TransportConfig { paths: 0, ..Default::default() }, "paths = 0"),
            (TransportConfig { mtu: 4097, ..Default::default() }, "mtu = 4097"),
            (TransportConfig { window: 100, ..Default::default() }, "window = 100"),
            (TransportConfig { ack_every: 0, ..Default::default() }, "ack_every = 0"),
            (TransportConfig { rto_min_ns: 2_000_000, ..Default::default() }, "RTO bounds"),
            (TransportConfig { ack_timeout_ns: u64::MAX, ..Default::default() }, "ack_timeout_ns = 18446744073709551615"),
            (TransportConfig { head_rto_pct: u32::MAX, ..Default::default() }, "head_rto_pct = 4294967295"),
            (TransportConfig { reorder_threshold: 1 << 23, ..Default::default() }, "reorder_threshold = 8388608"),
            (TransportConfig { cwnd_init: 0, ..Default::default() }, "cwnd_init = 0"),
            (TransportConfig { cwnd_min: 20, ..Default::default() }, "cwnd_min (20) <= cwnd_init (16)"),
            (TransportConfig { rnr_retry: 9, ..Default::default() }, "rnr_retry = 9"),
            (TransportConfig { reorder_threshold: 0, ..Default::default() }, "reorder_threshold = 0"),
            (TransportConfig { window: 64, ..Default::default() }, "cwnd_max = 256: must be at most window = 64"),
            (TransportConfig { cycle_ns: 0, ..Default::default() }, "cycle_ns = 0"),
            (TransportConfig { msg_window: 48, ..Default::default() }, "msg_window = 48: must be a power of two"),
            (TransportConfig { window: 32, cwnd_max: 32, msg_window: 64, ..Default::default() }, "msg_window = 64: must be at most window = 32"),
            (TransportConfig { rq_depth: 0, ..Default::default() }, "rq_depth = 0"),
            (TransportConfig { mr_entries: 8, ..Default::default() }, "mr_entries = 8"),
        ];
        for (c, want) in cases {
            let e = c.validate().unwrap_err();
            assert!(e.to_string().contains(want), "{e} should mention {want}");
        }
    }
}
