//! The DMA placement unit's write path (issue 12): the block model of `mrnic_placement`,
//! the RTL block that turns one checked write command into AXI4 write bursts. The checks
//! themselves (key, rights, bounds) are [`super::placement::check`]; this is what comes after
//! them: the command carries the window it was checked against, and the unit never enables a
//! byte outside it, whatever the command says (defence in depth: a command that is not
//! inside its window is clipped to it and flagged).
//!
//! **Command.** [`WrCmd`]: `addr`, `len` (bytes), the checked window `[base, base + wlen)`,
//! a tag echoed in the completion. The unit writes the bytes of
//! `[lo, hi) = [max(addr, base), min(addr + len, base + wlen, 2^A))` (A = address bits);
//! `hi <= lo` writes nothing (no bus transaction). `clipped` = fewer bytes than `len` were
//! written.
//!
//! **Bursts** ([`plan`]). AXI4 INCR, `awsize` = log2 B (B = beat bytes), the address of each
//! burst B-aligned (the first beat's `wstrb` is partial instead), at most `max_beats` (<= 256)
//! beats, never crossing a 4 KiB boundary (AXI4 A3.4.1): a burst starts at the aligned
//! current address and has `min(beats left to hi, beats left in its 4 KiB page, max_beats)`
//! beats. Lane i of a beat at aligned address `a` is enabled iff `lo <= a + i < hi`.
//!
//! **Cycle shell** ([`WrShell`]), the contract of the RTL, cycle by cycle. States: IDLE,
//! WIN, SEL, AW, W, DRAIN. Every valid and ready output is low in a cycle with `rst` high.
//! - IDLE: `s_ready` = 1. A transfer latches the command; the next state is WIN.
//! - WIN: one cycle, no output; the next state is SEL. (The RTL takes the window's sums at
//!   the transfer and its compares here, registered, so no add and compare of address width
//!   sit in one cycle, and no select follows a compare of address width.)
//! - SEL: one cycle, no output: the command's window, its byte count and `clipped` are
//!   computed and latched (the RTL selects them here by WIN's registered compares). The next
//!   state is AW (something to write) or DRAIN (nothing).
//! - AW: `m_axi_awvalid` = 1 with the burst of the current address; at its transfer the
//!   burst's beats and aligned address are latched, the current address moves past the
//!   burst, and the state is W.
//! - W: `m_axi_wvalid` = `d_valid`, `d_ready` = `m_axi_wready` (the data beat passes
//!   through combinationally; `m_axi_wdata` = `d_data`), `wstrb` from the beat's address,
//!   `wlast` on the burst's last beat. After the last beat: AW if bytes are left, else DRAIN.
//! - B, in any state: `m_axi_bready` = (bursts outstanding != 0). The first non-OKAY
//!   `bresp` of the command is kept; every non-OKAY one counts in `stat_bresp_err`.
//! - DRAIN: `m_valid` = (no burst outstanding), with the tag, the kept response (0 OKAY),
//!   `clipped` and the bytes written; its transfer returns to IDLE.
//!
//! **Latency** ([`WR_LATENCY`] 6): a one-beat write accepted at the edge ending cycle t has
//! WIN in t+1, SEL (its window) in t+2, AW in t+3, W in t+4 and, with the B response in t+5,
//! its completion in t+6. An empty command completes in t+3. **II**: one command at a time:
//! the next command is accepted in the cycle after the completion's transfer; one WIN and
//! one SEL cycle per command, then per burst one AW cycle and one cycle per beat (W is idle
//! during AW).
//!
//! **Timing** (of the RTL this shell specifies): the window is taken over three cycles so
//! that no cycle holds more than one carry chain of address width: the two sums at the
//! transfer, the compares in WIN (into registers), the selects in SEL. Until 2026-12-07 WIN
//! compared and selected in one cycle (latency 5, 97.6 MHz on ECP5).
//!
//! **Reset** (`rst`, synchronous): back to IDLE, bursts outstanding 0, counters 0.
//!
//! **Counters** (`stat_*`, 32-bit wrapping): `cmds` completions taken, `bursts` AW
//! transfers, `beats` W transfers, `bresp_err` non-OKAY B transfers, `err_cmds`
//! completions with a non-OKAY response, `clipped` completions with `clipped`.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// The AXI4 4 KiB boundary no burst may cross.
pub const PAGE_BYTES: u64 = 4096;
/// Most beats of an AXI4 INCR burst.
pub const AXI_MAX_BEATS: u32 = 256;
/// Widest beat (bytes): a 512-bit data bus.
pub const WR_MAX_BEAT_BYTES: u32 = 64;
/// Cycles from a command transfer to its completion, for a one-beat write whose B response
/// comes in the cycle after its W beat, every ready high.
pub const WR_LATENCY: usize = 6;

/// Sizes of the write path: beat bytes B, the longest burst, the address and length widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrConfig {
    pub beat_bytes: u32,
    pub max_beats: u32,
    /// A: width of `s_addr`, `s_base`, `s_wlen`, `m_axi_awaddr`.
    pub addr_bits: u32,
    /// L: width of `s_len` and `m_bytes`.
    pub len_bits: u32,
}

impl WrConfig {
    /// B bytes per beat, bursts of at most `max_beats`; 64-bit addresses, 16-bit lengths.
    pub fn new(beat_bytes: u32, max_beats: u32) -> Result<Self, ConfigError> {
        Self::with_widths(beat_bytes, max_beats, 64, 16)
    }

    /// [`WrConfig::new`] with other port widths (the formal proof's small ones).
    pub fn with_widths(beat_bytes: u32, max_beats: u32, addr_bits: u32, len_bits: u32) -> Result<Self, ConfigError> {
        let bad = |f: &str, v: u32, r: &str| Err(ConfigError::out_of_range(format!("WrConfig.{f}"), v, r));
        if !beat_bytes.is_power_of_two() || beat_bytes > WR_MAX_BEAT_BYTES {
            return bad("beat_bytes", beat_bytes, "a power of two in 1..=64 (an AXI4 data bus of 8 to 512 bits)");
        }
        if max_beats == 0 || max_beats > AXI_MAX_BEATS {
            return bad("max_beats", max_beats, "1..=256 (an AXI4 INCR burst has at most 256 beats)");
        }
        if !(13..=64).contains(&addr_bits) {
            return bad("addr_bits", addr_bits, "13..=64 (the 4 KiB page offset alone is 12 bits)");
        }
        if len_bits == 0 || len_bits > 32 || len_bits > addr_bits {
            return bad("len_bits", len_bits, "1..=32 and at most addr_bits");
        }
        Ok(Self { beat_bytes, max_beats, addr_bits, len_bits })
    }

    /// log2 B.
    pub fn size(&self) -> u32 {
        self.beat_bytes.trailing_zeros()
    }
    /// 2^A: one past the highest address.
    pub fn top(&self) -> u128 {
        1u128 << self.addr_bits
    }
    fn amask(&self) -> u64 {
        (self.top() - 1) as u64
    }
    fn lmask(&self) -> u32 {
        ((1u64 << self.len_bits) - 1) as u32
    }
}

/// One write command, as it arrives on `s_`: every field is masked to its port's width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrCmd {
    pub addr: u64,
    pub len: u32,
    /// The window the command was checked against: `[base, base + wlen)`.
    pub base: u64,
    pub wlen: u64,
    pub tag: u128,
}

/// One AXI4 INCR burst: aligned address, beats, and each beat's `wstrb`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burst {
    pub addr: u64,
    pub beats: u32,
    pub strb: Vec<u64>,
}

/// What the unit does with one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrPlan {
    /// The bytes written: `[lo, hi)`, empty when `hi <= lo`.
    pub lo: u128,
    pub hi: u128,
    pub bytes: u32,
    pub clipped: bool,
    pub bursts: Vec<Burst>,
}

/// `[lo, hi)` of `c` under `cfg` (fields masked to the port widths), the bytes and `clipped`.
pub fn window(cfg: &WrConfig, c: &WrCmd) -> (u128, u128, u32, bool) {
    let (addr, base, wlen) = (u128::from(c.addr & cfg.amask()), u128::from(c.base & cfg.amask()), u128::from(c.wlen & cfg.amask()));
    let len = c.len & cfg.lmask();
    let lo = addr.max(base);
    let hi = (addr + u128::from(len)).min(base + wlen).min(cfg.top());
    let bytes = if hi > lo { (hi - lo) as u32 } else { 0 };
    (lo, hi, bytes, bytes != len)
}

/// The strobes of the beat at aligned address `a`: lane i iff `lo <= a + i < hi`.
pub fn beat_strobes(cfg: &WrConfig, a: u128, lo: u128, hi: u128) -> u64 {
    (0..cfg.beat_bytes).filter(|&i| (lo..hi).contains(&(a + u128::from(i)))).fold(0u64, |s, i| s | 1 << i)
}

/// The beats of the burst starting at `cur` (bytes left up to `hi`, the 4 KiB page, max_beats).
pub fn burst_beats(cfg: &WrConfig, cur: u128, hi: u128) -> u32 {
    let b = u128::from(cfg.beat_bytes);
    let ab = cur & !(b - 1);
    let left = ((hi - 1) >> cfg.size()) - (ab >> cfg.size()) + 1;
    let page = (u128::from(PAGE_BYTES) - (ab & u128::from(PAGE_BYTES - 1))) >> cfg.size();
    left.min(page).min(u128::from(cfg.max_beats)) as u32
}

/// The bursts of one command (module documentation).
pub fn plan(cfg: &WrConfig, c: &WrCmd) -> WrPlan {
    let (lo, hi, bytes, clipped) = window(cfg, c);
    let b = u128::from(cfg.beat_bytes);
    let mut bursts = vec![];
    let mut cur = lo;
    while bytes > 0 && cur < hi {
        let ab = cur & !(b - 1);
        let n = burst_beats(cfg, cur, hi);
        let strb = (0..u128::from(n)).map(|k| beat_strobes(cfg, ab + k * b, lo, hi)).collect();
        bursts.push(Burst { addr: ab as u64, beats: n, strb });
        cur = ab + u128::from(n) * b;
    }
    WrPlan { lo, hi, bytes, clipped, bursts }
}

/// Inputs of one cycle (the ports of `mrnic_placement`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WrInputs {
    pub rst: bool,
    pub s_valid: bool,
    pub s: WrCmd,
    pub d_valid: bool,
    /// `d_data`: B bytes, lane i = the byte of address `beat + i` (aligned upstream).
    pub d_data: [u64; 8],
    pub aw_ready: bool,
    pub w_ready: bool,
    pub b_valid: bool,
    pub b_resp: u8,
    pub m_ready: bool,
}

/// An AW beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aw {
    pub addr: u64,
    /// `awlen`: beats - 1.
    pub len: u8,
}

/// A W beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct W {
    pub data: [u64; 8],
    pub strb: u64,
    pub last: bool,
}

/// A completion on `m_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrDone {
    pub tag: u128,
    /// The command's first non-OKAY `bresp` (2 SLVERR, 3 DECERR, 1 EXOKAY), 0 if none.
    pub resp: u8,
    pub clipped: bool,
    pub bytes: u32,
}

/// The `stat_*` counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WrStats {
    pub cmds: u32,
    pub bursts: u32,
    pub beats: u32,
    pub bresp_err: u32,
    pub err_cmds: u32,
    pub clipped: u32,
}

/// Outputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WrOutputs {
    pub s_ready: bool,
    pub aw: Option<Aw>,
    /// `m_axi_wvalid` (= W state && `d_valid`) with its payload.
    pub w: Option<W>,
    pub d_ready: bool,
    pub b_ready: bool,
    pub m: Option<WrDone>,
    pub stats: WrStats,
}

/// The FSM state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WrState {
    #[default]
    Idle,
    /// The window's compares (registered in the RTL).
    Win,
    /// The window's selects: `lo`, `hi`, the byte count, `clipped`; then AW or DRAIN.
    Sel,
    Aw,
    W,
    Drain,
}

/// The write path's cycle shell (module documentation).
#[derive(Clone, Debug)]
pub struct WrShell {
    pub cfg: WrConfig,
    pub st: WrState,
    cmd: WrCmd,
    lo: u128,
    hi: u128,
    cur: u128,
    baddr: u128,
    left: u32,
    /// Bursts whose AW was taken and whose B was not.
    pub outstanding: u32,
    resp: u8,
    bytes: u32,
    clipped: bool,
    pub stats: WrStats,
}

impl WrShell {
    pub fn new(cfg: WrConfig) -> Self {
        Self { cfg, st: WrState::Idle, cmd: WrCmd::default(), lo: 0, hi: 0, cur: 0, baddr: 0, left: 0, outstanding: 0, resp: 0, bytes: 0, clipped: false, stats: WrStats::default() }
    }

    /// The outputs of a cycle with inputs `i` (before its edge).
    pub fn outputs(&self, i: &WrInputs) -> WrOutputs {
        let on = !i.rst;
        let b = u128::from(self.cfg.beat_bytes);
        let aw = (on && self.st == WrState::Aw).then(|| {
            let n = burst_beats(&self.cfg, self.cur, self.hi);
            Aw { addr: (self.cur & !(b - 1)) as u64, len: (n - 1) as u8 }
        });
        let in_w = on && self.st == WrState::W;
        let w = (in_w && i.d_valid).then(|| W { data: i.d_data, strb: beat_strobes(&self.cfg, self.baddr, self.lo, self.hi), last: self.left == 1 });
        let m = (on && self.st == WrState::Drain && self.outstanding == 0).then_some(WrDone { tag: self.cmd.tag, resp: self.resp, clipped: self.clipped, bytes: self.bytes });
        WrOutputs { s_ready: on && self.st == WrState::Idle, aw, w, d_ready: in_w && i.w_ready, b_ready: on && self.outstanding != 0, m, stats: self.stats }
    }

    /// One cycle: the outputs during it, then its rising edge.
    pub fn step(&mut self, i: &WrInputs) -> WrOutputs {
        let o = self.outputs(i);
        if i.rst {
            *self = Self::new(self.cfg);
            return o;
        }
        let b = u128::from(self.cfg.beat_bytes);
        let aw_hs = o.aw.is_some() && i.aw_ready;
        let b_hs = o.b_ready && i.b_valid;
        if b_hs {
            self.outstanding -= 1;
            if i.b_resp & 3 != 0 {
                self.stats.bresp_err = self.stats.bresp_err.wrapping_add(1);
                if self.resp == 0 {
                    self.resp = i.b_resp & 3;
                }
            }
        }
        match self.st {
            WrState::Idle => {
                if i.s_valid {
                    self.cmd = i.s;
                    self.resp = 0;
                    self.st = WrState::Win;
                }
            }
            WrState::Win => {
                self.st = WrState::Sel;
            }
            WrState::Sel => {
                let (lo, hi, bytes, clipped) = window(&self.cfg, &self.cmd);
                (self.lo, self.hi, self.cur, self.bytes, self.clipped) = (lo, hi, lo, bytes, clipped);
                self.st = if bytes > 0 { WrState::Aw } else { WrState::Drain };
            }
            WrState::Aw => {
                if aw_hs {
                    let n = burst_beats(&self.cfg, self.cur, self.hi);
                    self.outstanding += 1;
                    self.stats.bursts = self.stats.bursts.wrapping_add(1);
                    self.baddr = self.cur & !(b - 1);
                    self.left = n;
                    self.cur = self.baddr + u128::from(n) * b;
                    self.st = WrState::W;
                }
            }
            WrState::W => {
                if o.w.is_some() && i.w_ready {
                    self.stats.beats = self.stats.beats.wrapping_add(1);
                    self.baddr += b;
                    if self.left == 1 {
                        self.st = if self.cur >= self.hi { WrState::Drain } else { WrState::Aw };
                    }
                    self.left -= 1;
                }
            }
            WrState::Drain => {
                if o.m.is_some() && i.m_ready {
                    self.stats.cmds = self.stats.cmds.wrapping_add(1);
                    self.stats.err_cmds = self.stats.err_cmds.wrapping_add(u32::from(self.resp != 0));
                    self.stats.clipped = self.stats.clipped.wrapping_add(u32::from(self.clipped));
                    self.st = WrState::Idle;
                }
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> WrConfig {
        WrConfig::new(8, 256).unwrap()
    }
    fn cmd(addr: u64, len: u32) -> WrCmd {
        WrCmd { addr, len, base: 0, wlen: 1 << 40, tag: 1 }
    }
    /// Every burst of `p`: inside one 4 KiB page, at most max_beats, aligned.
    fn legal(c: &WrConfig, p: &WrPlan) {
        for b in &p.bursts {
            let end = b.addr + u64::from(b.beats) * u64::from(c.beat_bytes) - 1;
            assert_eq!(b.addr / PAGE_BYTES, end / PAGE_BYTES, "burst {b:x?} crosses a 4 KiB boundary");
            assert!(b.beats >= 1 && b.beats <= c.max_beats);
            assert_eq!(b.addr % u64::from(c.beat_bytes), 0);
        }
    }
    /// The enabled bytes of `p`, as (address) list.
    fn enabled(c: &WrConfig, p: &WrPlan) -> Vec<u128> {
        let mut v = vec![];
        for b in &p.bursts {
            for (k, s) in b.strb.iter().enumerate() {
                for i in 0..c.beat_bytes {
                    if s >> i & 1 == 1 {
                        v.push(u128::from(b.addr) + (k as u128) * u128::from(c.beat_bytes) + u128::from(i));
                    }
                }
            }
        }
        v
    }

    #[test]
    fn placement_wr_config_refuses_illegal_values_with_the_reason() {
        let e = WrConfig::new(12, 16).unwrap_err().to_string();
        assert!(e.contains("WrConfig.beat_bytes = 12") && e.contains("power of two"), "{e}");
        assert!(WrConfig::new(128, 16).unwrap_err().to_string().contains("1..=64"));
        let e = WrConfig::new(8, 257).unwrap_err().to_string();
        assert!(e.contains("max_beats = 257") && e.contains("at most 256 beats"), "{e}");
        assert!(WrConfig::new(8, 0).is_err());
        assert!(WrConfig::with_widths(8, 16, 12, 8).unwrap_err().to_string().contains("addr_bits = 12"));
        assert!(WrConfig::with_widths(8, 16, 16, 17).unwrap_err().to_string().contains("len_bits = 17"));
        assert!(WrConfig::new(1, 1).is_ok() && WrConfig::new(64, 256).is_ok());
    }

    #[test]
    fn placement_wr_a_write_across_4k_boundaries_is_split_at_each_and_no_burst_crosses_one() {
        let c = cfg();
        // 0x0FF8..0x2008: 8 bytes before the first boundary, one whole page, 8 after.
        let p = plan(&c, &cmd(0x0FF8, 0x1010));
        legal(&c, &p);
        let starts: Vec<(u64, u32)> = p.bursts.iter().map(|b| (b.addr, b.beats)).collect();
        assert_eq!(starts, vec![(0x0FF8, 1), (0x1000, 256), (0x1800, 256), (0x2000, 1)]);
        // One byte on each side of a boundary: two one-beat bursts.
        let p = plan(&c, &cmd(0x1FFF, 2));
        assert_eq!(p.bursts.iter().map(|b| (b.addr, b.beats, b.strb[0])).collect::<Vec<_>>(), vec![(0x1FF8, 1, 0x80), (0x2000, 1, 0x01)]);
        // Ending exactly at a boundary does not start a burst in the next page.
        let p = plan(&c, &cmd(0x1F00, 0x100));
        assert_eq!(p.bursts.len(), 1);
        assert_eq!((p.bursts[0].addr, p.bursts[0].beats), (0x1F00, 32));
    }

    #[test]
    fn placement_wr_unaligned_first_and_last_beats_get_partial_strobes_and_the_middle_full_ones() {
        let c = cfg();
        let p = plan(&c, &cmd(0x1003, 18)); // 0x1003..0x1015
        assert_eq!(p.bursts.len(), 1);
        assert_eq!(p.bursts[0].strb, vec![0xF8, 0xFF, 0x1F]);
        assert_eq!(enabled(&c, &p), (0x1003u128..0x1015).collect::<Vec<_>>());
        // Both ends inside one beat.
        let p = plan(&c, &cmd(0x1002, 3));
        assert_eq!(p.bursts[0].strb, vec![0x1C]);
    }

    #[test]
    fn placement_wr_a_one_byte_write_is_one_beat_with_one_strobe_at_every_lane() {
        let c = cfg();
        for lane in 0..8u64 {
            let p = plan(&c, &cmd(0x4000 + lane, 1));
            assert_eq!(p.bursts, vec![Burst { addr: 0x4000, beats: 1, strb: vec![1 << lane] }]);
            assert_eq!((p.bytes, p.clipped), (1, false));
        }
    }

    #[test]
    fn placement_wr_bursts_are_at_most_max_beats_and_a_max_length_write_uses_full_bursts() {
        for mb in [1, 3, 16, 256] {
            let c = WrConfig::new(16, mb).unwrap();
            let p = plan(&c, &cmd(0x10_0000, 0xFFFF)); // the longest command
            legal(&c, &p);
            assert_eq!(p.bursts.iter().map(|b| b.beats).max(), Some(mb));
            assert_eq!(enabled(&c, &p).len(), 0xFFFF);
        }
        // B = 16, 256 beats: a burst is exactly one page.
        let c = WrConfig::new(16, 256).unwrap();
        let p = plan(&c, &cmd(0x3000, 0x2000));
        assert_eq!(p.bursts.iter().map(|b| (b.addr, b.beats)).collect::<Vec<_>>(), vec![(0x3000, 256), (0x4000, 256)]);
    }

    #[test]
    fn placement_wr_strobes_are_clipped_to_the_checked_window_and_flagged() {
        let c = cfg();
        let w = |addr, len, base, wlen| WrCmd { addr, len, base, wlen, tag: 0 };
        let p = plan(&c, &w(0x1000, 64, 0x1005, 16)); // window 0x1005..0x1015
        assert!(p.clipped);
        assert_eq!(enabled(&c, &p), (0x1005u128..0x1015).collect::<Vec<_>>());
        assert_eq!(p.bytes, 16);
        let p = plan(&c, &w(0x2000, 64, 0x1000, 0x100)); // disjoint
        assert!(p.clipped && p.bursts.is_empty() && p.bytes == 0);
        let p = plan(&c, &w(0x1000, 0, 0x1000, 0x100));
        assert!(!p.clipped && p.bursts.is_empty(), "a zero-length write is not clipped");
        // The top of the address space: clipped at 2^A.
        let c = WrConfig::with_widths(8, 256, 16, 16).unwrap();
        let p = plan(&c, &w(0xFFF0, 0x40, 0xFF00, 0xFFFF));
        assert_eq!((p.hi, p.bytes, p.clipped), (0x1_0000, 16, true));
        assert_eq!(enabled(&c, &p), (0xFFF0u128..0x1_0000).collect::<Vec<_>>());
    }

    #[test]
    fn placement_wr_random_commands_enable_exactly_the_window_in_legal_bursts() {
        use rand::{Rng, SeedableRng};
        let mut r = rand::rngs::SmallRng::seed_from_u64(12);
        for _ in 0..3000 {
            let c = WrConfig::new(1 << r.gen_range(0..7), r.gen_range(1..=256)).unwrap();
            let cm = WrCmd { addr: r.gen_range(0..0x10000), len: r.gen_range(0..3000), base: r.gen_range(0..0x10000), wlen: r.gen_range(0..0x4000), tag: 0 };
            let p = plan(&c, &cm);
            legal(&c, &p);
            let want: Vec<u128> = (p.lo..p.hi.max(p.lo)).collect();
            assert_eq!(enabled(&c, &p), want, "{c:?} {cm:?}");
        }
    }

    /// Runs `cmd` through the shell with the given ready pattern and B responses; returns
    /// (AW beats, W strobes, completion, cycles).
    fn run(c: &WrConfig, cm: WrCmd, ready: impl Fn(u64) -> bool, resp: impl Fn(usize) -> u8) -> (Vec<Aw>, Vec<u64>, WrDone, u64, WrShell) {
        let mut sh = WrShell::new(*c);
        let (mut aws, mut ws, mut pend, mut done_b) = (vec![], vec![], 0usize, 0usize);
        let mut sent = false;
        for t in 0..100_000u64 {
            let rd = ready(t);
            let i = WrInputs {
                s_valid: !sent,
                s: cm,
                d_valid: rd,
                aw_ready: rd,
                w_ready: ready(t + 7),
                b_valid: pend > 0 && ready(t + 3),
                b_resp: resp(done_b),
                m_ready: true,
                ..Default::default()
            };
            let o = sh.step(&i);
            sent |= o.s_ready;
            if let Some(a) = o.aw.filter(|_| i.aw_ready) {
                aws.push(a);
            }
            if let Some(w) = o.w.filter(|_| i.w_ready) {
                ws.push(w.strb);
                pend += w.last as usize;
            }
            if o.b_ready && i.b_valid {
                pend -= 1;
                done_b += 1;
            }
            if let Some(m) = o.m {
                return (aws, ws, m, t, sh);
            }
        }
        panic!("no completion")
    }

    #[test]
    fn placement_wr_shell_issues_the_planned_bursts_under_backpressure() {
        let c = cfg();
        for (k, cm) in [cmd(0x0FF3, 0x1234), cmd(0x7, 1), cmd(0xFFF, 2), WrCmd { addr: 0x100, len: 0x300, base: 0x180, wlen: 0x20, tag: 9 }].into_iter().enumerate() {
            let (aws, ws, m, _, sh) = run(&c, cm, |t| (t * 7 + k as u64) % 5 != 0, |_| 0);
            let p = plan(&c, &cm);
            assert_eq!(aws, p.bursts.iter().map(|b| Aw { addr: b.addr, len: (b.beats - 1) as u8 }).collect::<Vec<_>>());
            assert_eq!(ws, p.bursts.iter().flat_map(|b| b.strb.clone()).collect::<Vec<_>>());
            assert_eq!(m, WrDone { tag: cm.tag, resp: 0, clipped: p.clipped, bytes: p.bytes });
            assert_eq!((sh.stats.bursts as usize, sh.stats.beats as usize), (p.bursts.len(), ws.len()));
        }
    }

    #[test]
    fn placement_wr_shell_latency_is_6_for_one_beat_with_win_and_sel_cycles_before_the_aw_and_3_for_an_empty_command() {
        let c = cfg();
        let (_, _, _, t, _) = run(&c, cmd(0x10, 4), |_| true, |_| 0);
        assert_eq!(WR_LATENCY, 6);
        assert_eq!(t as usize, WR_LATENCY, "accepted at the edge of cycle 0, completion in cycle 6");
        // cycle 1 compares (WIN), cycle 2 selects the window (SEL): no output, not ready;
        // cycle 3 has the AW
        let mut sh = WrShell::new(c);
        let go = WrInputs { s_valid: true, s: cmd(0x10, 4), aw_ready: true, ..Default::default() };
        sh.step(&go);
        assert_eq!(sh.st, WrState::Win);
        let o1 = sh.step(&go);
        assert!(o1.aw.is_none() && o1.w.is_none() && !o1.s_ready && o1.m.is_none() && sh.st == WrState::Sel, "{o1:?}");
        let o2 = sh.step(&go);
        assert!(o2.aw.is_none() && o2.w.is_none() && !o2.s_ready && o2.m.is_none() && sh.st == WrState::Aw, "{o2:?}");
        let o3 = sh.step(&WrInputs { s_valid: false, ..go });
        assert_eq!(o3.aw, Some(Aw { addr: 0x10, len: 0 }));
        let (aws, _, m, t, _) = run(&c, cmd(0x10, 0), |_| true, |_| 0);
        assert_eq!((aws.len(), m.bytes, t), (0, 0, 3));
        // an empty command: WIN, SEL, then DRAIN
        let mut sh = WrShell::new(c);
        let go = WrInputs { s_valid: true, s: cmd(0x10, 0), m_ready: true, ..Default::default() };
        let seq: Vec<WrState> = (0..4).map(|_| { sh.step(&go); sh.st }).collect();
        assert_eq!(seq, vec![WrState::Win, WrState::Sel, WrState::Drain, WrState::Idle]);
    }

    #[test]
    fn placement_wr_a_bresp_error_is_reported_in_the_completion_and_counted() {
        let c = cfg();
        // 4 bursts (0x0FF0..0x2010): the second answered SLVERR, the third DECERR.
        let (aws, _, m, _, sh) = run(&c, cmd(0x0FF0, 0x1020), |_| true, |k| [0, 2, 3, 0].get(k).copied().unwrap_or(0));
        assert_eq!(aws.len(), 4, "0xFF0, 0x1000, 0x1800, 0x2000");
        assert_eq!(m.resp, 2, "the first error is kept");
        assert_eq!(sh.stats.bresp_err, 2);
        // run() took the completion (m_ready high in its cycle).
        assert_eq!((sh.stats.cmds, sh.stats.err_cmds, sh.st), (1, 1, WrState::Idle));
        // The next command starts clean.
        let (_, _, m, _, _) = run(&c, cmd(0x10, 4), |_| true, |_| 0);
        assert_eq!(m.resp, 0);
    }

    #[test]
    fn placement_wr_reset_returns_to_idle_and_clears_counters() {
        let c = cfg();
        let mut sh = WrShell::new(c);
        let go = WrInputs { s_valid: true, s: cmd(0x1000, 64), ..Default::default() };
        sh.step(&go);
        assert_eq!(sh.st, WrState::Win);
        sh.step(&WrInputs { s_valid: false, ..go });
        assert_eq!(sh.st, WrState::Sel);
        sh.step(&WrInputs { s_valid: false, ..go });
        assert_eq!(sh.st, WrState::Aw);
        let o = sh.step(&WrInputs { rst: true, aw_ready: true, ..go });
        assert!(o.aw.is_none() && !o.s_ready, "every valid and ready is low during rst");
        assert_eq!((sh.st, sh.outstanding, sh.stats), (WrState::Idle, 0, WrStats::default()));
    }
}
