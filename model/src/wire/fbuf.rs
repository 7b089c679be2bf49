//! The receive frame buffer (issue 12): the block model of `mrnic_fbuf`, store and forward
//! between the MAC's AXI4-Stream and the placement path. Every beat of a frame is written
//! as it arrives; nothing of a frame leaves before the parser's verdict on it, which comes
//! after the frame's last beat. A frame the verdict keeps is read out whole, in arrival
//! order; a frame it refuses is skipped (its space is returned when the read side passes
//! it), so a bad frame never reaches the placement unit or AXI (`docs/design/receiver-rtl.md`
//! §2.2, `docs/blocks/fbuf.md`).
//!
//! **Function** ([`release`]): the output is the concatenation, in arrival order, of the
//! frames whose verdict is "keep" and that are at most `max_beats` beats long. A frame
//! longer than that (more than the parser's `max_frame` bytes: the parser's verdict on it
//! is `TooLong` anyway) is never released, whatever its verdict, and its beats past
//! `max_beats` are not stored: the buffer's state stays bounded and a frame longer than the
//! buffer cannot deadlock it. `m_axis_tkeep` is all ones on every beat but a frame's last,
//! which carries the frame's `s_axis_tkeep` at `s_axis_tlast` (a good frame's `tkeep` is all
//! ones before its last beat; the parser refuses any other as `BadKeep`).
//!
//! **Cycle shell** ([`FbufShell`]), the contract of the RTL, cycle by cycle. State: the beat
//! RAM (2^`depth_log2` beats), the write pointer `wp` and read pointer `rp` (one bit wider
//! than the RAM's address), the current frame's beat count and overflow flag, a ring of
//! 2^`frames_log2` frame descriptors (end pointer, last `keep`, overflow) with a verdict
//! bit each, and three frame counters: `ne` frames ended (last beat written), `nj` frames
//! judged (verdict taken), `nr` frames retired by the read side. Every valid and ready
//! output is low in a cycle with `rst` high.
//! - `s_axis_tready` = `room`, a register: after each cycle, `room` = (`wp' - rp` != depth)
//!   && (`ne' - nr` != frames), with `wp'`, `ne'` the write side's pointers after the cycle
//!   and `rp`, `nr` the read side's at its start (space the read side frees in cycle t is
//!   seen by `s_axis` in t + 2; no path from the read side's decision to `s_axis_tready`).
//!   So the RAM and the ring can fill completely and never overflow. A beat at index <
//!   `max_beats` of its frame is written at `wp`; a later one only sets the frame's overflow
//!   flag. At `s_axis_tlast` the descriptor (end = `wp` after the beat) is pushed.
//! - `s_vrd_ready` = (`ne != nj`): a verdict is taken only for a frame whose last beat was
//!   written in an earlier cycle.
//! - Read side, from the registers of the cycle: when `nr != nj`, the head frame is judged.
//!   Refused (verdict 0 or overflow): `rp` jumps to its end and `nr` advances (one cycle, no
//!   output). Kept: when the output queue (4 entries) plus the two reads in flight hold
//!   fewer than 4 beats, the beat at `rp` is read and `rp` advances; on the frame's last
//!   beat `nr` advances too. A read lands in the output queue two cycles after it is issued
//!   (the RAM's read register, then its output register). `m_axis_tvalid` = queue not empty; `m_axis_tdata`/`m_axis_tkeep`/`m_axis_tlast`
//!   = its head.
//!
//! **Latency** ([`FBUF_LATENCY`] 4): a verdict transferred in cycle t has its frame's first
//! beat on `m_axis` in t + 4 (read issued in t + 1, RAM word in t + 2, output register in
//! t + 3). So a one-beat frame whose last beat is taken in t0 and judged at once (t0 + 1) is
//! on `m_axis` in t0 + 5.
//! **II** 1 beat per cycle on `s_axis` and on `m_axis` (kept frames back to back with no
//! idle cycle; a refused frame costs the read side one cycle).
//!
//! **Reset** (`rst`, synchronous): pointers, counters, the current frame, the read in
//! flight and the output queue cleared, `room` set; the RAM and the descriptors are data and keep
//! their contents (none is read before it is written again).
//!
//! **Counters** (`stat_*`, 32-bit wrapping): `frames` last beats taken, `kept` frames whose
//! last beat left on `m_axis`, `refused` verdicts that refuse their frame (at the verdict's
//! transfer), `too_long` frames that overflowed (counted at their last beat). No cycle
//! counts: the counters are the same at the transaction level, whatever the timing.

use crate::config::ConfigError;
use std::collections::VecDeque;

/// Cycles from a verdict transfer to its frame's first beat on `m_axis`.
pub const FBUF_LATENCY: usize = 4;
/// Entries of the output queue (reads in flight included).
pub const FBUF_QUEUE: usize = 4;

/// Sizes of the frame buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FbufConfig {
    /// B: bytes per beat (1, 2, 4 or 8: the stream's `tdata` is 8·B bits).
    pub beat_bytes: u32,
    /// The RAM holds 2^depth_log2 beats.
    pub depth_log2: u32,
    /// Beats of the longest frame stored (the parser's `max_frame` bytes / B, rounded up).
    pub max_beats: u32,
    /// 2^frames_log2 frame descriptors: frames between their last beat and their retirement.
    pub frames_log2: u32,
}

impl FbufConfig {
    /// Refuses sizes the RTL cannot have: B not in {1, 2, 4, 8}, a RAM of fewer than 2^4 or
    /// more than 2^16 beats, `max_beats` 0 or larger than the RAM (a frame that cannot fit
    /// would wait for its own verdict forever), fewer than 2 or more than 256 descriptors.
    pub fn new(
        beat_bytes: u32,
        depth_log2: u32,
        max_beats: u32,
        frames_log2: u32,
    ) -> Result<Self, ConfigError> {
        let bad = |f: &str, v: u32, r: &str| {
            Err(ConfigError::out_of_range(format!("FbufConfig.{f}"), v, r))
        };
        if !matches!(beat_bytes, 1 | 2 | 4 | 8) {
            return bad(
                "beat_bytes",
                beat_bytes,
                "1, 2, 4 or 8 (a stream of 8 to 64 bits)",
            );
        }
        if !(4..=16).contains(&depth_log2) {
            return bad("depth_log2", depth_log2, "4..=16 (16 to 65 536 beats)");
        }
        if max_beats == 0 || max_beats > 1 << depth_log2 {
            return bad("max_beats", max_beats, "1..=2^depth_log2 (the longest frame must fit the RAM, or it waits for its own verdict forever)");
        }
        if !(1..=8).contains(&frames_log2) {
            return bad(
                "frames_log2",
                frames_log2,
                "1..=8 (2 to 256 frame descriptors)",
            );
        }
        Ok(FbufConfig {
            beat_bytes,
            depth_log2,
            max_beats,
            frames_log2,
        })
    }

    /// Beats the RAM holds.
    pub fn depth(&self) -> u32 {
        1 << self.depth_log2
    }
    /// Frame descriptors.
    pub fn frames(&self) -> u32 {
        1 << self.frames_log2
    }
    /// `tdata` mask.
    pub fn data_mask(&self) -> u64 {
        if self.beat_bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.beat_bytes)) - 1
        }
    }
    /// `tkeep` mask: all lanes.
    pub fn keep_mask(&self) -> u8 {
        ((1u16 << self.beat_bytes) - 1) as u8
    }
}

/// One beat on `m_axis` (or, for [`release`], on `s_axis`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    pub data: u64,
    pub keep: u8,
    pub last: bool,
}

/// One received frame and its verdict, for [`release`]: its beats' data, the last beat's
/// `keep`, and whether the verdict keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub data: Vec<u64>,
    pub last_keep: u8,
    pub keep: bool,
}

/// The buffer's function: the beats it releases for `frames` (in arrival order).
pub fn release(cfg: &FbufConfig, frames: &[Frame]) -> Vec<Beat> {
    let mut out = Vec::new();
    for f in frames {
        if !f.keep || f.data.is_empty() || f.data.len() > cfg.max_beats as usize {
            continue;
        }
        let n = f.data.len();
        for (k, d) in f.data.iter().enumerate() {
            let last = k + 1 == n;
            out.push(Beat {
                data: d & cfg.data_mask(),
                keep: if last {
                    f.last_keep & cfg.keep_mask()
                } else {
                    cfg.keep_mask()
                },
                last,
            });
        }
    }
    out
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FbufInputs {
    pub rst: bool,
    pub s_axis_tvalid: bool,
    pub s_axis_tdata: u64,
    pub s_axis_tkeep: u8,
    pub s_axis_tlast: bool,
    pub s_vrd_valid: bool,
    pub s_vrd_keep: bool,
    pub m_axis_tready: bool,
}

/// Counters (`stat_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FbufStats {
    pub frames: u32,
    pub kept: u32,
    pub refused: u32,
    pub too_long: u32,
}

/// The outputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FbufOutputs {
    pub s_axis_tready: bool,
    pub s_vrd_ready: bool,
    pub m: Option<Beat>,
    pub stats: FbufStats,
}

#[derive(Clone, Copy, Debug, Default)]
struct Desc {
    end: u32,
    keep: u8,
    over: bool,
}

/// The frame buffer cycle by cycle (the module doc's contract).
#[derive(Clone, Debug)]
pub struct FbufShell {
    pub cfg: FbufConfig,
    mem: Vec<u64>,
    wp: u32,
    rp: u32,
    fb: u32,
    fo: bool,
    desc: Vec<Desc>,
    vk: Vec<bool>,
    ne: u32,
    nj: u32,
    nr: u32,
    /// Reads in flight: `[0]` issued last cycle (in the RAM's read register), `[1]` the
    /// cycle before (in the RAM's output register).
    in_flight: [Option<Beat>; 2],
    queue: VecDeque<Beat>,
    room: bool,
    stats: FbufStats,
}

impl FbufShell {
    pub fn new(cfg: FbufConfig) -> Self {
        FbufShell {
            cfg,
            mem: vec![0; cfg.depth() as usize],
            wp: 0,
            rp: 0,
            fb: 0,
            fo: false,
            desc: vec![Desc::default(); cfg.frames() as usize],
            vk: vec![false; cfg.frames() as usize],
            ne: 0,
            nj: 0,
            nr: 0,
            in_flight: [None, None],
            queue: VecDeque::with_capacity(FBUF_QUEUE),
            room: true,
            stats: FbufStats::default(),
        }
    }

    /// Beats stored and not yet read (the RAM's occupancy).
    pub fn occupancy(&self) -> u32 {
        self.wp.wrapping_sub(self.rp) & (2 * self.cfg.depth() - 1)
    }
    /// Frames whose last beat is written and that the read side has not retired.
    pub fn frames_held(&self) -> u32 {
        self.ne.wrapping_sub(self.nr) & (2 * self.cfg.frames() - 1)
    }
    /// Beats in the output queue and in flight to it.
    pub fn queued(&self) -> usize {
        self.queue.len() + self.in_flight.iter().flatten().count()
    }

    fn pmask(&self) -> u32 {
        2 * self.cfg.depth() - 1
    }
    fn fmask(&self) -> u32 {
        2 * self.cfg.frames() - 1
    }

    /// The outputs of the cycle with inputs `i`, from the state at its start.
    pub fn outputs(&self, i: &FbufInputs) -> FbufOutputs {
        if i.rst {
            return FbufOutputs {
                stats: self.stats,
                ..Default::default()
            };
        }
        FbufOutputs {
            s_axis_tready: self.room,
            s_vrd_ready: self.ne != self.nj,
            m: self.queue.front().copied(),
            stats: self.stats,
        }
    }

    /// One clock cycle: the outputs (as [`FbufShell::outputs`]), then the state after the edge.
    pub fn step(&mut self, i: &FbufInputs) -> FbufOutputs {
        let out = self.outputs(i);
        if i.rst {
            self.wp = 0;
            self.rp = 0;
            self.fb = 0;
            self.fo = false;
            self.ne = 0;
            self.nj = 0;
            self.nr = 0;
            self.in_flight = [None, None];
            self.queue.clear();
            self.room = true;
            self.stats = FbufStats::default();
            return out;
        }
        let (pm, fm) = (self.pmask(), self.fmask());
        let (dmask, fmax) = (self.cfg.depth() - 1, self.cfg.frames() - 1);
        let (rp0, nr0) = (self.rp, self.nr);
        // read side, from the state at the start of the cycle
        let mut issued = None;
        if self.nr != self.nj {
            let h = (self.nr & fmax) as usize;
            let d = self.desc[h];
            if !self.vk[h] || d.over {
                self.rp = d.end;
                self.nr = (self.nr + 1) & fm;
            } else if self.queued() < FBUF_QUEUE {
                let last = (self.rp + 1) & pm == d.end;
                issued = Some(Beat {
                    data: self.mem[(self.rp & dmask) as usize],
                    keep: if last { d.keep } else { self.cfg.keep_mask() },
                    last,
                });
                self.rp = (self.rp + 1) & pm;
                if last {
                    self.nr = (self.nr + 1) & fm;
                }
            }
        }
        // output queue: pop the head, land last cycle's read
        if let Some(b) = out.m {
            if i.m_axis_tready {
                self.queue.pop_front();
                if b.last {
                    self.stats.kept = self.stats.kept.wrapping_add(1);
                }
            }
        }
        if let Some(b) = self.in_flight[1].take() {
            self.queue.push_back(b);
        }
        self.in_flight = [issued, self.in_flight[0]];
        // write side
        if i.s_axis_tvalid && out.s_axis_tready {
            if self.fb < self.cfg.max_beats {
                self.mem[(self.wp & dmask) as usize] = i.s_axis_tdata & self.cfg.data_mask();
                self.wp = (self.wp + 1) & pm;
                self.fb += 1;
            } else {
                self.fo = true;
            }
            if i.s_axis_tlast {
                let h = (self.ne & fmax) as usize;
                self.desc[h] = Desc {
                    end: self.wp,
                    keep: i.s_axis_tkeep & self.cfg.keep_mask(),
                    over: self.fo,
                };
                self.ne = (self.ne + 1) & fm;
                self.stats.frames = self.stats.frames.wrapping_add(1);
                if self.fo {
                    self.stats.too_long = self.stats.too_long.wrapping_add(1);
                }
                self.fb = 0;
                self.fo = false;
            }
        }
        // verdicts
        if i.s_vrd_valid && out.s_vrd_ready {
            self.vk[(self.nj & fmax) as usize] = i.s_vrd_keep;
            if !i.s_vrd_keep {
                self.stats.refused = self.stats.refused.wrapping_add(1);
            }
            self.nj = (self.nj + 1) & fm;
        }
        self.room = (self.wp.wrapping_sub(rp0) & pm) != self.cfg.depth()
            && (self.ne.wrapping_sub(nr0) & fm) != self.cfg.frames();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 11
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn small() -> FbufConfig {
        FbufConfig::new(8, 6, 40, 2).unwrap()
    }

    /// Drives `frames` through a shell with random idle inputs, verdict delays and
    /// `m_axis_tready`, returning the beats out (and checking the stall/bounds invariants).
    fn drive(
        cfg: FbufConfig,
        frames: &[Frame],
        seed: u64,
        ready_pct: u64,
    ) -> (Vec<Beat>, FbufStats, u64) {
        let mut sh = FbufShell::new(cfg);
        let mut held = 0u64;
        let mut r = Lcg(seed);
        let (mut fi, mut bi, mut vi) = (0usize, 0usize, 0usize);
        let mut out = Vec::new();
        let mut idle = 0;
        while out.len() < release(&cfg, frames).len() || vi < frames.len() || fi < frames.len() {
            let mut i = FbufInputs {
                m_axis_tready: r.below(100) < ready_pct,
                ..Default::default()
            };
            if fi < frames.len() && r.below(4) != 0 {
                let f = &frames[fi];
                i.s_axis_tvalid = true;
                i.s_axis_tdata = f.data[bi];
                i.s_axis_tlast = bi + 1 == f.data.len();
                i.s_axis_tkeep = if i.s_axis_tlast { f.last_keep } else { 0xFF };
            }
            if vi < fi && r.below(3) != 0 {
                i.s_vrd_valid = true;
                i.s_vrd_keep = frames[vi].keep;
            }
            let o = sh.step(&i);
            assert!(
                sh.occupancy() <= cfg.depth()
                    && sh.frames_held() <= cfg.frames()
                    && sh.queued() <= FBUF_QUEUE
            );
            held += u64::from(i.s_axis_tvalid && !o.s_axis_tready);
            if i.s_axis_tvalid && o.s_axis_tready {
                bi += 1;
                if i.s_axis_tlast {
                    fi += 1;
                    bi = 0;
                }
            }
            if i.s_vrd_valid && o.s_vrd_ready {
                vi += 1;
            }
            if let (Some(b), true) = (o.m, i.m_axis_tready) {
                out.push(b);
            }
            idle += 1;
            assert!(
                idle < 200_000,
                "the buffer hung: {} of {} frames in, {vi} verdicts, {} beats out",
                fi,
                frames.len(),
                out.len()
            );
        }
        for _ in 0..10 {
            let o = sh.step(&FbufInputs {
                m_axis_tready: true,
                ..Default::default()
            });
            assert!(
                o.m.is_none(),
                "a beat left that the function does not release"
            );
        }
        (out, sh.outputs(&FbufInputs::default()).stats, held)
    }

    fn random_frames(cfg: &FbufConfig, r: &mut Lcg, n: usize) -> Vec<Frame> {
        (0..n)
            .map(|_| {
                let len = match r.below(10) {
                    0 => 1,
                    1 => cfg.max_beats as usize,
                    2 => cfg.max_beats as usize + 1 + r.below(20) as usize,
                    _ => 1 + r.below(cfg.max_beats as u64) as usize,
                };
                Frame {
                    data: (0..len).map(|_| r.next()).collect(),
                    last_keep: ((1u16 << (1 + r.below(8))) - 1) as u8,
                    keep: r.below(3) != 0,
                }
            })
            .collect()
    }

    #[test]
    fn the_shell_releases_exactly_the_kept_frames_that_fit_in_order_under_backpressure() {
        let cfg = small();
        for seed in 1..40 {
            let mut r = Lcg(seed);
            let frames = random_frames(&cfg, &mut r, 60);
            for ready in [100, 60, 10] {
                let (out, st, _) = drive(cfg, &frames, seed * 7 + ready, ready);
                assert_eq!(out, release(&cfg, &frames), "seed {seed} ready {ready}%");
                let kept = frames
                    .iter()
                    .filter(|f| f.keep && f.data.len() <= cfg.max_beats as usize)
                    .count() as u32;
                let refused = frames.iter().filter(|f| !f.keep).count() as u32;
                let long = frames
                    .iter()
                    .filter(|f| f.data.len() > cfg.max_beats as usize)
                    .count() as u32;
                assert_eq!(
                    (st.frames, st.kept, st.refused, st.too_long),
                    (frames.len() as u32, kept, refused, long)
                );
            }
        }
    }

    #[test]
    fn a_full_buffer_holds_s_ready_low_and_loses_nothing() {
        let cfg = small();
        let mut r = Lcg(9);
        let frames: Vec<Frame> = (0..20)
            .map(|_| Frame {
                data: (0..30).map(|_| r.next()).collect(),
                last_keep: 0xFF,
                keep: true,
            })
            .collect();
        let (out, _, held) = drive(cfg, &frames, 3, 5);
        assert_eq!(out, release(&cfg, &frames));
        assert!(held > 100, "the stream was never held back ({held} cycles)");
    }

    #[test]
    fn kept_frames_leave_back_to_back_and_a_verdict_reaches_m_after_the_stated_latency() {
        let cfg = small();
        let mut sh = FbufShell::new(cfg);
        // two 3-beat frames, back to back
        let mut t_m = vec![];
        for t in 0..20u32 {
            let mut i = FbufInputs {
                m_axis_tready: true,
                ..Default::default()
            };
            if t < 6 {
                i.s_axis_tvalid = true;
                i.s_axis_tdata = u64::from(t);
                i.s_axis_tkeep = 0xFF;
                i.s_axis_tlast = t % 3 == 2;
            }
            // frame 0's verdict the cycle after its last beat (t = 3), frame 1's at t = 6
            if t == 3 || t == 6 {
                i.s_vrd_valid = true;
                i.s_vrd_keep = true;
            }
            let o = sh.step(&i);
            if t == 3 || t == 6 {
                assert!(o.s_vrd_ready);
            }
            if let Some(b) = o.m {
                t_m.push((t, b.data, b.last));
            }
        }
        let first = 3 + FBUF_LATENCY as u32;
        assert_eq!(
            t_m,
            (0..6)
                .map(|k| (first + k, u64::from(k), k % 3 == 2))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_verdict_waits_for_its_frames_last_beat() {
        let mut sh = FbufShell::new(small());
        let o = sh.step(&FbufInputs {
            s_vrd_valid: true,
            s_axis_tvalid: true,
            s_axis_tlast: false,
            ..Default::default()
        });
        assert!(!o.s_vrd_ready, "no frame has ended");
        let o = sh.step(&FbufInputs {
            s_vrd_valid: true,
            s_axis_tvalid: true,
            s_axis_tlast: true,
            ..Default::default()
        });
        assert!(!o.s_vrd_ready, "the frame ends in this very cycle");
        let o = sh.step(&FbufInputs {
            s_vrd_valid: true,
            ..Default::default()
        });
        assert!(o.s_vrd_ready);
    }

    #[test]
    fn reset_empties_the_buffer_and_every_valid_and_ready_is_low_during_it() {
        let cfg = small();
        let mut sh = FbufShell::new(cfg);
        for t in 0..5 {
            sh.step(&FbufInputs {
                s_axis_tvalid: true,
                s_axis_tdata: t,
                s_axis_tlast: t == 4,
                s_axis_tkeep: 1,
                m_axis_tready: false,
                ..Default::default()
            });
        }
        sh.step(&FbufInputs {
            s_vrd_valid: true,
            s_vrd_keep: true,
            ..Default::default()
        });
        let o = sh.step(&FbufInputs {
            rst: true,
            s_axis_tvalid: true,
            s_vrd_valid: true,
            m_axis_tready: true,
            ..Default::default()
        });
        assert!(!o.s_axis_tready && !o.s_vrd_ready && o.m.is_none());
        assert_eq!((sh.occupancy(), sh.frames_held(), sh.queued()), (0, 0, 0));
        for _ in 0..8 {
            assert!(sh
                .step(&FbufInputs {
                    m_axis_tready: true,
                    ..Default::default()
                })
                .m
                .is_none());
        }
    }

    #[test]
    fn illegal_sizes_are_refused_with_the_reason() {
        for (c, what) in [
            (FbufConfig::new(3, 6, 40, 2), "beat_bytes"),
            (FbufConfig::new(8, 3, 4, 2), "depth_log2"),
            (FbufConfig::new(8, 6, 65, 2), "max_beats"),
            (FbufConfig::new(8, 6, 0, 2), "max_beats"),
            (FbufConfig::new(8, 6, 40, 0), "frames_log2"),
            (FbufConfig::new(8, 6, 40, 9), "frames_log2"),
        ] {
            let e = c.unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        }
        assert!(FbufConfig::new(8, 11, 1152, 4).is_ok());
    }
}
