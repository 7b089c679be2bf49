//! Beat-level reference model of the receive frame parser (issue 12): an
//! AXI4-Stream frame receiver at D bytes per beat (D = 8, 16, 32, 64, i.e. 64..512
//! bits), independent of the RTL's latency. The RTL parser is checked against it
//! frame by frame: for every frame (closed by `tlast`) the same verdict, and the
//! same `stat_*` counters.
//!
//! Per beat: `tdata` (D bytes, byte 0 first on the wire), `tkeep` (bit k = byte k
//! valid), `tlast`, `tuser` (the MAC reports the frame bad). At `tlast` the model
//! yields [`Verdict`]: `Ok(frame)`, exactly [`decode`] of the frame's bytes, or
//! `Err(reason)`.
//!
//! # Drop reasons and their priority
//!
//! First match wins:
//! 1. [`AxisDrop::MacError`]: `tuser` was high on any beat of the frame. The MAC
//!    already knows the frame is bad (FCS, PHY error); its bytes are not evidence of
//!    anything, so whatever they say the frame is counted as a MAC error.
//! 2. [`AxisDrop::BadKeep`]: a beat's `tkeep` is not contiguous from byte 0 (bits
//!    `0..n` set, nothing above, including bits at or above D), or a beat that is
//!    not the last has `tkeep` not all ones, or the last beat has `tkeep == 0`.
//!    Chosen before the length and `decode` checks because with a bad `tkeep` the
//!    frame has no defined byte string (which bytes, in which order?): any
//!    `decode` verdict on it would be a verdict on bytes the hardware chose, not on
//!    the frame. It is a link-level fault like `MacError`, after it since the MAC's
//!    own report is the more specific one.
//! 3. [`AxisDrop::TooLong`]: more than `max_frame` bytes (default
//!    [`DEFAULT_MAX_FRAME`] = 9216, one frame of the frame buffer). The model stops
//!    buffering at `max_frame` bytes (its state is bounded) and so has no bytes to
//!    decode; before `decode` for the same reason the hardware has none.
//! 4. Every [`WireError`] of [`decode`], in `decode`'s own order
//!    (`docs/design/receiver-rtl.md` §2.1), as [`AxisDrop::Wire`].
//!
//! # Counters
//!
//! [`DropCounters`] holds one 32-bit wrapping counter per reason class (the
//! `WireError` variant; `Truncated` split by [`Layer`]) plus `mac_error`,
//! `bad_keep`, `too_long`, and one good-frame counter per opcode.
//! [`DropCounters::list`] gives them as `(name, value)`; the RTL's ports are
//! `stat_<name>`: `stat_drop_truncated_ethernet`, ..., `stat_good_write`, ...
//! ([`DROP_NAMES`], [`GOOD_NAMES`]).

use super::{decode, opcode, Frame, Layer, WireError};
use std::fmt;

/// The frame buffer's frame (`docs/budget.md`: 2 x 9216 bytes).
pub const DEFAULT_MAX_FRAME: usize = 9216;

/// Data widths the parser is generated at, in bytes per beat.
pub const WIDTHS: [usize; 4] = [8, 16, 32, 64];

/// Why the stream dropped a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisDrop {
    /// `tuser` seen on a beat of the frame.
    MacError,
    /// `tkeep` not contiguous from byte 0, not all ones before the last beat, or 0 on
    /// the last beat.
    BadKeep,
    /// More bytes than the configured maximum frame.
    TooLong,
    /// The frame's bytes fail [`decode`].
    Wire(WireError),
}

impl fmt::Display for AxisDrop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// One frame's outcome.
pub type Verdict = Result<Frame, AxisDrop>;

/// A configuration the model refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AxisConfigError {
    #[error("AXI4-Stream data width of {0} bytes not supported (8, 16, 32 or 64 bytes = 64..512 bits)")]
    BadWidth(usize),
    #[error("maximum frame length must be at least 1 byte")]
    ZeroMaxFrame,
}

/// The drop counter names, in [`DropCounters::list`] order (the RTL's
/// `stat_drop_<name>` ports).
pub const DROP_NAMES: [&str; 27] = [
    "drop_truncated_ethernet",
    "drop_truncated_ipv4",
    "drop_truncated_udp",
    "drop_truncated_bth",
    "drop_truncated_extension",
    "drop_bad_ethertype",
    "drop_bad_ip_version",
    "drop_bad_ip_header_length",
    "drop_bad_ip_total_length",
    "drop_trailing_bytes",
    "drop_bad_ip_checksum",
    "drop_fragmented",
    "drop_not_udp",
    "drop_wrong_udp_port",
    "drop_udp_length_mismatch",
    "drop_bad_udp_checksum",
    "drop_bad_icrc",
    "drop_bad_transport_version",
    "drop_unknown_opcode",
    "drop_length_mismatch",
    "drop_bad_pad_count",
    "drop_bad_path_id",
    "drop_sack_base_bit_set",
    "drop_bad_nak_code",
    "drop_mac_error",
    "drop_bad_keep",
    "drop_too_long",
];

/// The good-frame counter names by opcode (WRITE, SEND, ACK, NAK, PROBE,
/// PROBE_REPLY), the RTL's `stat_good_<opcode>` ports.
pub const GOOD_NAMES: [&str; 6] = [
    "good_write",
    "good_send",
    "good_ack",
    "good_nak",
    "good_probe",
    "good_probe_reply",
];

/// Index of a drop reason in [`DROP_NAMES`].
pub fn drop_index(d: &AxisDrop) -> usize {
    use WireError::*;
    match d {
        AxisDrop::Wire(e) => match e {
            Truncated { layer, .. } => match layer {
                Layer::Ethernet => 0,
                Layer::Ipv4 => 1,
                Layer::Udp => 2,
                Layer::Bth => 3,
                Layer::Extension => 4,
            },
            BadEthertype(_) => 5,
            BadIpVersion(_) => 6,
            BadIpHeaderLength(_) => 7,
            BadIpTotalLength { .. } => 8,
            TrailingBytes { .. } => 9,
            BadIpChecksum { .. } => 10,
            Fragmented => 11,
            NotUdp(_) => 12,
            WrongUdpPort(_) => 13,
            UdpLengthMismatch { .. } => 14,
            BadUdpChecksum { .. } => 15,
            BadIcrc { .. } => 16,
            BadTransportVersion(_) => 17,
            UnknownOpcode(_) => 18,
            LengthMismatch { .. } => 19,
            BadPadCount { .. } => 20,
            BadPathId(_) => 21,
            SackBaseBitSet => 22,
            BadNakCode(_) => 23,
        },
        AxisDrop::MacError => 24,
        AxisDrop::BadKeep => 25,
        AxisDrop::TooLong => 26,
    }
}

/// Index of a good frame's opcode in [`GOOD_NAMES`] (None: not an mrnic opcode,
/// which `decode` never yields).
pub fn good_index(op: u8) -> Option<usize> {
    match op {
        opcode::WRITE => Some(0),
        opcode::SEND => Some(1),
        opcode::ACK => Some(2),
        opcode::NAK => Some(3),
        opcode::PROBE => Some(4),
        opcode::PROBE_REPLY => Some(5),
        _ => None,
    }
}

/// The parser's statistics: 32-bit counters that wrap, as the RTL's `stat_*` ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    /// Indexed as [`DROP_NAMES`].
    pub drop: [u32; 27],
    /// Indexed as [`GOOD_NAMES`].
    pub good: [u32; 6],
}

impl DropCounters {
    /// Counts one verdict.
    pub fn count(&mut self, v: &Verdict) {
        match v {
            Ok(f) => {
                if let Some(i) = good_index(f.opcode()) {
                    self.good[i] = self.good[i].wrapping_add(1);
                }
            }
            Err(d) => {
                let i = drop_index(d);
                self.drop[i] = self.drop[i].wrapping_add(1);
            }
        }
    }
    /// The counter of one drop reason.
    pub fn of(&self, d: &AxisDrop) -> u32 {
        self.drop[drop_index(d)]
    }
    /// Every counter as (name, value): the drop counters in [`DROP_NAMES`] order,
    /// then the good counters in [`GOOD_NAMES`] order. The RTL port is `stat_<name>`.
    pub fn list(&self) -> Vec<(&'static str, u32)> {
        DROP_NAMES
            .iter()
            .copied()
            .zip(self.drop.iter().copied())
            .chain(GOOD_NAMES.iter().copied().zip(self.good.iter().copied()))
            .collect()
    }
}

/// One AXI4-Stream beat (the model sees only beats with `tvalid && tready`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// D bytes, byte 0 first on the wire.
    pub tdata: Vec<u8>,
    /// Bit k: byte k valid. Bits at or above D must be 0.
    pub tkeep: u64,
    pub tlast: bool,
    /// MAC-reported error.
    pub tuser: bool,
}

/// Splits a frame into beats of `width` bytes as a well-behaved MAC sends it:
/// full beats, the last one's `tkeep` covering its bytes, unused bytes 0, `tuser`
/// low. An empty frame is one beat with `tkeep == 0` (which is [`AxisDrop::BadKeep`]).
pub fn to_beats(frame: &[u8], width: usize) -> Vec<Beat> {
    assert!(WIDTHS.contains(&width), "width {width}");
    if frame.is_empty() {
        return vec![Beat {
            tdata: vec![0; width],
            tkeep: 0,
            tlast: true,
            tuser: false,
        }];
    }
    let n = frame.len().div_ceil(width);
    frame
        .chunks(width)
        .enumerate()
        .map(|(i, c)| {
            let mut tdata = c.to_vec();
            tdata.resize(width, 0);
            Beat {
                tdata,
                tkeep: keep_mask(c.len()),
                tlast: i + 1 == n,
                tuser: false,
            }
        })
        .collect()
}

/// The frame's bytes back from its beats: each beat's bytes whose `tkeep` bit is set, in
/// order (the inverse of [`to_beats`]).
pub fn frame_bytes(beats: &[Beat]) -> Vec<u8> {
    beats.iter().flat_map(|b| b.tdata.iter().enumerate().filter(|(k, _)| b.tkeep >> k & 1 == 1).map(|(_, d)| *d)).collect()
}

/// `tkeep` for the first `n` bytes (n <= 64).
pub fn keep_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The frame receiver. State between beats is bounded: at most `max_frame` bytes
/// and three flags.
#[derive(Clone, Debug)]
pub struct AxisRx {
    width: usize,
    max_frame: usize,
    buf: Vec<u8>,
    mac_error: bool,
    bad_keep: bool,
    too_long: bool,
    counters: DropCounters,
}

impl AxisRx {
    /// A receiver at `width` bytes per beat with the default maximum frame.
    pub fn new(width: usize) -> Result<AxisRx, AxisConfigError> {
        AxisRx::with_max_frame(width, DEFAULT_MAX_FRAME)
    }

    /// A receiver at `width` bytes per beat (8, 16, 32 or 64) that drops frames
    /// longer than `max_frame` bytes as [`AxisDrop::TooLong`].
    pub fn with_max_frame(width: usize, max_frame: usize) -> Result<AxisRx, AxisConfigError> {
        if !WIDTHS.contains(&width) {
            return Err(AxisConfigError::BadWidth(width));
        }
        if max_frame == 0 {
            return Err(AxisConfigError::ZeroMaxFrame);
        }
        Ok(AxisRx {
            width,
            max_frame,
            buf: Vec::with_capacity(max_frame),
            mac_error: false,
            bad_keep: false,
            too_long: false,
            counters: DropCounters::default(),
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }
    pub fn counters(&self) -> &DropCounters {
        &self.counters
    }
    /// Bytes of the current (unfinished) frame held; never above `max_frame`.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// One accepted beat. Returns the frame's verdict at `tlast` (and counts it),
    /// None before. Panics if `tdata` is not `width` bytes (a test-bench error, not
    /// a stream condition).
    pub fn beat(&mut self, tdata: &[u8], tkeep: u64, tlast: bool, tuser: bool) -> Option<Verdict> {
        assert_eq!(tdata.len(), self.width, "tdata must be {} bytes", self.width);
        self.mac_error |= tuser;
        let n = tkeep.trailing_ones() as usize;
        let contiguous = n <= self.width && (n == 64 || tkeep >> n == 0);
        let keep_ok = contiguous && if tlast { n > 0 } else { n == self.width };
        self.bad_keep |= !keep_ok;
        if !(self.mac_error || self.bad_keep || self.too_long) {
            if self.buf.len() + n > self.max_frame {
                self.too_long = true;
                self.buf.clear();
            } else {
                self.buf.extend_from_slice(&tdata[..n]);
            }
        }
        if !tlast {
            return None;
        }
        let v = if self.mac_error {
            Err(AxisDrop::MacError)
        } else if self.bad_keep {
            Err(AxisDrop::BadKeep)
        } else if self.too_long {
            Err(AxisDrop::TooLong)
        } else {
            decode(&self.buf).map_err(AxisDrop::Wire)
        };
        self.buf.clear();
        self.mac_error = false;
        self.bad_keep = false;
        self.too_long = false;
        self.counters.count(&v);
        Some(v)
    }

    /// [`AxisRx::beat`] for a [`Beat`].
    pub fn push(&mut self, b: &Beat) -> Option<Verdict> {
        self.beat(&b.tdata, b.tkeep, b.tlast, b.tuser)
    }

    /// Feeds a whole frame as [`to_beats`] splits it; its verdict.
    pub fn frame(&mut self, bytes: &[u8]) -> Verdict {
        let mut out = None;
        for b in to_beats(bytes, self.width) {
            out = self.push(&b);
        }
        out.expect("the last beat has tlast")
    }
}
