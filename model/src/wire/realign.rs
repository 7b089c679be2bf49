//! The payload realigner (issue 12): the block model of `mrnic_realign`, between the frame
//! buffer (`mrnic_fbuf`, whole kept frames) and the DMA placement unit's data stream
//! (`mrnic_placement`'s `d`, lane-aligned beats). For each frame it takes one command
//! (`off`, `len`, `lane`): the payload is the frame's bytes `[off, off + len)` and goes to a
//! host address whose low bits are `lane`. Its output beats put each payload byte in the
//! lane of its host address, so placement writes them with byte strobes and no shifting
//! (`docs/blocks/realign.md`).
//!
//! **Function** ([`realign`]). With `s = off - lane` (a signed byte index into the frame)
//! and `beats = ceil((lane + len) / B)`, output beat `m` (0 <= m < beats) holds frame bytes
//! `s + B·m + i` in lane `i`. A byte outside the frame (index below 0, or at or past the
//! frame's `B·F` bytes) reads as 0: the lanes below `lane` in the first beat and past the
//! payload in the last are such bytes or the frame's own neighbouring bytes, and placement's
//! strobes disable them. `len == 0` gives no beat: the frame is discarded. Every command
//! consumes exactly one frame, up to and including its `tlast` beat. `tkeep` is not an input:
//! the frame buffer releases only frames the parser verified (full beats but the last), and
//! the command says where the payload is.
//!
//! **Cycle shell** ([`RealignShell`]), the RTL's contract cycle by cycle.
//! - Command register (`pend`): `s_cmd_ready` = !`pend_v` (a register). At the transfer it
//!   stores the plan ([`plan`]): `t = off + B - 1 - lane`, `skip = t / B` (the beats
//!   before the one that completes output beat 0), `shift = t mod B`, and `beats` (0 when `len == 0`).
//! - Engine (`act`): loads the plan from `pend` when idle, or in the cycle the current
//!   frame finishes (no idle cycle between frames when the next command is waiting). At the
//!   load `prev` (the last beat seen) is cleared to 0 (the bytes before the frame). Each
//!   cycle: `cur` = the input beat, or 0 once the frame's `tlast` has been taken (bytes past
//!   the frame); `need` = `skip == 0 && n != 0`; `go` = `act && (ended || s_axis_tvalid)
//!   && (!need || !o_v || m_axis_tready)`. On `go`: `prev` := `cur`; if `skip != 0`,
//!   `skip` - 1; else if `n != 0` the output register takes `({cur, prev} >> 8·(shift + 1))`'s
//!   low `8·B` bits, with `tlast` = (`n == 1`), and `n` - 1. The input beat is taken
//!   (`s_axis_tready`) when `act && !ended && (!need || !o_v || m_axis_tready)`; taking the
//!   `tlast` beat sets `ended`. The frame finishes when, after the cycle, `ended` and `n ==
//!   0`.
//! - Output register: `m_axis_tvalid` = `o_v`; it empties on `m_axis_tready` and refills in
//!   the same cycle.
//! - After `tlast` the engine runs on zero beats, one per cycle: a pad beat for a window
//!   that reaches past the frame (at most one for a payload inside its frame), and, for a
//!   command whose payload lies past its frame's end, a cycle for every beat it still
//!   skips or pads (bounded by `skip + beats`; never a hang).
//!
//! **Latency** ([`REALIGN_LATENCY`] 1): an output beat is on `m_axis` in the cycle after the
//! input beat that completes it was taken. A command transferred in t is loaded in t + 1
//! at the earliest, and its frame's first beat is taken from t + 2.
//! **II** one beat per cycle in and out; frames back to back when the next command is in
//! `pend` before the current frame finishes.
//!
//! **Reset** (`rst`, synchronous): `pend_v`, `act`, `ended`, `o_v` and the counters cleared;
//! the plan registers, `prev` and the output data are data and keep their values. Every
//! valid and ready output is low during a `rst` cycle.
//!
//! **Counters** (`stat_*`, 32-bit wrapping): `cmds` frames finished, `beats` output beats
//! transferred, `dropped` commands with `len == 0` (at their transfer: frames discarded
//! whole), `pad` output beats emitted after their frame's `tlast` (a window that reaches
//! past the frame's last beat: normal for a payload's last beat, and every beat of a
//! command longer than its frame).

use crate::config::ConfigError;

/// Cycles from the input beat that completes an output beat to that beat on `m_axis`.
pub const REALIGN_LATENCY: usize = 1;

/// Sizes of the realigner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealignConfig {
    /// B: bytes per beat (2, 4 or 8: the streams' `tdata` is 8·B bits).
    pub beat_bytes: u32,
    /// Bits of `s_cmd_off` (the payload's first byte in the frame).
    pub off_bits: u32,
    /// Bits of `s_cmd_len` (the payload's bytes).
    pub len_bits: u32,
}

impl RealignConfig {
    /// Refuses sizes the RTL cannot have: B not in {2, 4, 8}; `off_bits` outside 4..=12
    /// (headers up to 4095 bytes); `len_bits` outside 4..=24.
    pub fn new(beat_bytes: u32, off_bits: u32, len_bits: u32) -> Result<Self, ConfigError> {
        let bad = |f: &str, v: u32, r: &str| Err(ConfigError::out_of_range(format!("RealignConfig.{f}"), v, r));
        if !matches!(beat_bytes, 2 | 4 | 8) {
            return bad("beat_bytes", beat_bytes, "2, 4 or 8 (a stream of 16 to 64 bits)");
        }
        if !(4..=12).contains(&off_bits) {
            return bad("off_bits", off_bits, "4..=12 (payload offsets up to 4095 bytes)");
        }
        if !(4..=24).contains(&len_bits) {
            return bad("len_bits", len_bits, "4..=24 (payloads up to 16 MiB - 1)");
        }
        Ok(RealignConfig { beat_bytes, off_bits, len_bits })
    }
    /// log2 B: the bits of `s_cmd_lane`.
    pub fn lane_bits(&self) -> u32 {
        self.beat_bytes.trailing_zeros()
    }
    /// Bits of the skip counter: `t = off + B - 1 - lane < 2^(off_bits + 1)`.
    pub fn skip_bits(&self) -> u32 {
        self.off_bits + 1 - self.lane_bits()
    }
    /// Bits of the beat counter: `lane + len + B - 1 < 2^(len_bits + 1)`.
    pub fn beats_bits(&self) -> u32 {
        self.len_bits + 1 - self.lane_bits()
    }
    /// `tdata` mask.
    pub fn data_mask(&self) -> u64 {
        if self.beat_bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.beat_bytes)) - 1
        }
    }
}

/// One command: where the payload is in its frame and where it goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cmd {
    /// The payload's first byte in the frame.
    pub off: u32,
    /// Payload bytes (0: discard the frame).
    pub len: u32,
    /// The host address's low log2 B bits: the lane of the payload's first byte.
    pub lane: u32,
}

/// A command's plan, as the command register holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Input beats taken before the one that completes output beat 0.
    pub skip: u32,
    /// `t mod B`: output beat m is `{cur, prev} >> 8·(shift + 1)`.
    pub shift: u32,
    /// Output beats: `ceil((lane + len) / B)`.
    pub beats: u32,
}

/// The plan of `c` (its fields masked to their port widths).
pub fn plan(cfg: &RealignConfig, c: Cmd) -> Plan {
    let b = cfg.beat_bytes;
    let bl = cfg.lane_bits();
    let off = c.off & ((1 << cfg.off_bits) - 1);
    let len = c.len & ((1 << cfg.len_bits) - 1);
    let lane = c.lane & (b - 1);
    let t = off + b - 1 - lane;
    let beats = if len == 0 { 0 } else { (len + lane + b - 1) >> bl };
    Plan { skip: t >> bl, shift: t & (b - 1), beats }
}

/// The function: the output beats (data, `tlast`) for a frame of `frame` beats and its
/// command.
pub fn realign(cfg: &RealignConfig, frame: &[u64], c: Cmd) -> Vec<(u64, bool)> {
    let b = cfg.beat_bytes as i64;
    let off = i64::from(c.off & ((1 << cfg.off_bits) - 1));
    let lane = i64::from(c.lane) & (b - 1);
    let beats = plan(cfg, c).beats as i64;
    let s = off - lane;
    let byte = |x: i64| -> u64 {
        if x < 0 || x >= b * frame.len() as i64 {
            0
        } else {
            (frame[(x / b) as usize] >> (8 * (x % b))) & 0xff
        }
    };
    (0..beats)
        .map(|m| {
            let d = (0..b).fold(0u64, |acc, i| acc | byte(s + b * m + i) << (8 * i));
            (d, m + 1 == beats)
        })
        .collect()
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealignInputs {
    pub rst: bool,
    pub s_cmd_valid: bool,
    pub s_cmd_off: u32,
    pub s_cmd_len: u32,
    pub s_cmd_lane: u32,
    pub s_axis_tvalid: bool,
    pub s_axis_tdata: u64,
    pub s_axis_tlast: bool,
    pub m_axis_tready: bool,
}

/// Counters (`stat_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealignStats {
    pub cmds: u32,
    pub beats: u32,
    pub dropped: u32,
    pub pad: u32,
}

/// The outputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealignOutputs {
    pub s_cmd_ready: bool,
    pub s_axis_tready: bool,
    /// `m_axis`: (`tdata`, `tlast`) while `tvalid`.
    pub m: Option<(u64, bool)>,
    pub stats: RealignStats,
}

/// The realigner cycle by cycle (the module doc's contract).
#[derive(Clone, Debug)]
pub struct RealignShell {
    pub cfg: RealignConfig,
    pend_v: bool,
    pend: Plan,
    act: bool,
    ended: bool,
    skip: u32,
    shift: u32,
    n: u32,
    prev: u64,
    o_v: bool,
    o_data: u64,
    o_last: bool,
    stats: RealignStats,
}

impl RealignShell {
    pub fn new(cfg: RealignConfig) -> Self {
        RealignShell {
            cfg,
            pend_v: false,
            pend: Plan::default(),
            act: false,
            ended: false,
            skip: 0,
            shift: 0,
            n: 0,
            prev: 0,
            o_v: false,
            o_data: 0,
            o_last: false,
            stats: RealignStats::default(),
        }
    }

    /// A frame is being consumed.
    pub fn active(&self) -> bool {
        self.act
    }
    /// A command waits in the command register.
    pub fn pending(&self) -> bool {
        self.pend_v
    }

    fn need(&self) -> bool {
        self.skip == 0 && self.n != 0
    }

    /// The outputs of the cycle with inputs `i`, from the state at its start.
    pub fn outputs(&self, i: &RealignInputs) -> RealignOutputs {
        if i.rst {
            return RealignOutputs { stats: self.stats, ..Default::default() };
        }
        let ofree = !self.o_v || i.m_axis_tready;
        RealignOutputs {
            s_cmd_ready: !self.pend_v,
            s_axis_tready: self.act && !self.ended && (!self.need() || ofree),
            m: self.o_v.then_some((self.o_data, self.o_last)),
            stats: self.stats,
        }
    }

    /// One clock cycle: the outputs (as [`RealignShell::outputs`]), then the state after the
    /// edge.
    pub fn step(&mut self, i: &RealignInputs) -> RealignOutputs {
        let out = self.outputs(i);
        if i.rst {
            self.pend_v = false;
            self.act = false;
            self.ended = false;
            self.o_v = false;
            self.stats = RealignStats::default();
            return out;
        }
        let b = self.cfg.beat_bytes;
        let mask = self.cfg.data_mask();
        // output register: the transfer empties it
        if self.o_v && i.m_axis_tready {
            self.o_v = false;
            self.stats.beats = self.stats.beats.wrapping_add(1);
        }
        // engine
        let mut fin = false;
        if self.act {
            let ofree = !self.o_v;
            let go = (self.ended || i.s_axis_tvalid) && (!self.need() || ofree);
            if go {
                let take = !self.ended;
                let cur = if self.ended { 0 } else { i.s_axis_tdata & mask };
                if self.skip != 0 {
                    self.skip -= 1;
                } else if self.n != 0 {
                    let w = u128::from(cur) << (8 * b) | u128::from(self.prev);
                    self.o_data = (w >> (8 * (self.shift + 1))) as u64 & mask;
                    self.o_last = self.n == 1;
                    self.o_v = true;
                    self.n -= 1;
                    if self.ended {
                        self.stats.pad = self.stats.pad.wrapping_add(1);
                    }
                }
                self.prev = cur;
                if take && i.s_axis_tlast {
                    self.ended = true;
                }
            }
            fin = self.ended && self.n == 0;
            if fin {
                self.stats.cmds = self.stats.cmds.wrapping_add(1);
            }
        }
        // load the next plan when idle or finishing
        let ld = self.pend_v && (!self.act || fin);
        if ld {
            self.skip = self.pend.skip;
            self.shift = self.pend.shift;
            self.n = self.pend.beats;
            self.prev = 0;
            self.ended = false;
            self.pend_v = false;
        }
        self.act = ld || (self.act && !fin);
        // command register
        if i.s_cmd_valid && out.s_cmd_ready {
            let c = Cmd { off: i.s_cmd_off, len: i.s_cmd_len, lane: i.s_cmd_lane };
            self.pend = plan(&self.cfg, c);
            self.pend_v = true;
            if c.len & ((1 << self.cfg.len_bits) - 1) == 0 {
                self.stats.dropped = self.stats.dropped.wrapping_add(1);
            }
        }
        out
    }
}
