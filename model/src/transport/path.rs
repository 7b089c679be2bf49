//! Path table: the requester's per-path state and the functions that change it
//! (`docs/protocol.md` §6.2, §6.3, §6.7, §6.8, §6.9). This is the block model of the
//! hardware path table: one row per path id, read and written per packet sent, per
//! ACK and per timer.
//!
//! A path is a UDP source port (`0xC000 | entropy`): ECMP switches hash it, so one
//! entropy is one route. Per path the table keeps the congestion window (packets,
//! AIMD, DCTCP-style ECN response), packets in flight, RTT estimator and RTO, loss
//! strikes, the state (OK / SUSPECT / FAILED / PROBING) and the next path PSN.
//!
//! Everything here is integer or fixed point, exactly what the RTL computes
//! (`docs/protocol.md` §6.2-§6.9 give the widths): the window is Q9.8 packets with an
//! integer additive-increase counter, the RTT estimator keeps `8·srtt` and `4·rttvar`
//! (ns) updated by shifts, the RTO backoff is an exponent, DCTCP's alpha is Q0.10 and
//! its marked fraction comes from an 11-cycle restoring divider once per observation
//! window. Constants derived from the configuration (`beta_q8`, `head_q8`, the
//! windows in Q9.8) are computed once, in [`PathConsts`]. Beside the rows the table
//! keeps a per-connection [`Summary`] (eligible and OK masks, round-robin pointer,
//! largest srtt) that is written whenever a row is written and
//! is all that path selection reads; [`PathTable::check_summary`] recomputes it.

use super::{seq_add, seq_after_eq, TransportConfig};
use crate::time::HwTime;
use serde::{Deserialize, Serialize};

/// Health of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PathState {
    /// Carries data.
    Ok,
    /// Had a loss event or timeout since its last acknowledged packet: still carries new
    /// data within its window, but retransmissions prefer OK paths.
    Suspect,
    /// Transient: failed, entropy re-rolled, a probe goes out next (then PROBING).
    Failed,
    /// A probe is outstanding on a new entropy; no data until the reply.
    Probing,
}

/// A multi-plane NIC (P planes, each its own fabric) sends path `p` on plane
/// `p mod planes`: the paths of a connection are spread over the planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plane {
    pub plane: u8,
    pub planes: u8,
}

impl Plane {
    /// Path `p` is on this plane.
    pub fn has(&self, p: usize) -> bool {
        self.planes <= 1 || p % self.planes as usize == self.plane as usize
    }
}

/// Fraction bits of the window (`cwnd` is Q9.8 packets: 256 = one packet).
pub const CWND_FRAC: u32 = 8;
/// Fraction bits of DCTCP's alpha (Q0.10: 1024 = 1.0).
pub const ALPHA_ONE: u32 = 1 << 10;
/// The ECN accumulators saturate at 16 bits (`ce_acc <= pkt_acc` stays true).
pub const ECN_ACC_MAX: u32 = 0xFFFF;
/// RTT samples are clamped to 1..=2^28 − 1 ns so that `srtt8 = 8·srtt` fits 31 bits.
pub const RTT_SAMPLE_MAX: u32 = (1 << 28) - 1;
/// Largest RTO backoff exponent (5 bits).
pub const BACKOFF_EXP_MAX: u8 = 31;
/// `floor((ce << 10) / pkts)` for `ce <= pkts`, `pkts > 0`, computed the way the RTL
/// does it: an 11-step restoring divider (one quotient bit per cycle, MSB first, a
/// 17-bit partial remainder). Runs once per ECN observation window, never per packet.
pub fn ecn_fraction_q10(ce: u32, pkts: u32) -> u32 {
    debug_assert!(pkts > 0 && ce <= pkts && pkts <= ECN_ACC_MAX);
    let mut q = 0;
    let mut r = ce;
    for i in (0..11).rev() {
        if i != 10 {
            r <<= 1;
        }
        if r >= pkts {
            q |= 1 << i;
            r -= pkts;
        }
    }
    q
}

/// Constants the path table derives from the configuration once (the RTL's
/// configuration registers): nothing here is computed per packet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathConsts {
    /// `round(loss_beta_pct * 256 / 100)`, 9 bits (1..=256).
    pub beta_q8: u32,
    /// `round(head_rto_pct * 256 / 100)`, 15 bits (0..=25600).
    pub head_q8: u32,
    /// DCTCP gain shift g.
    pub g: u32,
    /// Windows in Q9.8.
    pub cwnd_min_q8: u32,
    pub cwnd_init_q8: u32,
    pub cwnd_max_q8: u32,
    pub rto_min_ns: u64,
    pub rto_max_ns: u64,
    pub rto_init_ns: u64,
    pub ack_timeout_ns: u64,
    pub fail_threshold: u32,
    pub max_probes: u32,
}

impl PathConsts {
    pub fn new(cfg: &TransportConfig) -> Self {
        Self {
            beta_q8: (u32::from(cfg.loss_beta_pct) * 256 + 50) / 100,
            head_q8: ((u64::from(cfg.head_rto_pct) * 256 + 50) / 100) as u32,
            g: u32::from(cfg.dctcp_g_shift),
            cwnd_min_q8: cfg.cwnd_min << CWND_FRAC,
            cwnd_init_q8: cfg.cwnd_init << CWND_FRAC,
            cwnd_max_q8: cfg.cwnd_max << CWND_FRAC,
            rto_min_ns: cfg.rto_min_ns,
            rto_max_ns: cfg.rto_max_ns,
            rto_init_ns: cfg.rto_init_ns,
            ack_timeout_ns: cfg.ack_timeout_ns,
            fail_threshold: cfg.fail_threshold,
            max_probes: cfg.max_probes,
        }
    }
}

/// One row of the path table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// 14 bits; UDP source port `0xC000 | entropy`.
    pub entropy: u16,
    pub state: PathState,
    /// Path PSN of the next packet sent on this path (24 bits).
    pub next_path_psn: u32,
    /// Congestion window, Q9.8 packets (17 bits; `cwnd_min << 8 ..= cwnd_max << 8`).
    pub cwnd: u32,
    /// Additive-increase counter: packets acknowledged since the last increase; always
    /// below the window's integer part `max(cwnd >> 8, 1)`.
    pub cwnd_cnt: u32,
    /// Packets sent on this path, neither acknowledged nor declared lost.
    pub inflight: u32,
    /// RTT estimator (RFC 6298 in shifts): `8·srtt` and `4·rttvar`, ns; `srtt8 == 0`
    /// until the first sample (31 and 30 bits).
    pub srtt8: u32,
    pub rttvar4: u32,
    /// DCTCP's estimate of the fraction of CE-marked packets, Q0.10 (0..=1024).
    pub alpha: u32,
    /// Marked and acknowledged packets of the current observation window (16-bit,
    /// saturating).
    pub ce_acc: u32,
    pub pkt_acc: u32,
    /// Connection PSN that closes the current ECN observation window.
    pub alpha_window_end: u32,
    /// Highest path PSN an ACK has reported for this path (valid when `acked_any`).
    pub highest_acked_path_psn: u32,
    pub acked_any: bool,
    /// Loss events and timeouts since the last acknowledged packet.
    pub strikes: u32,
    /// PSN after which another window decrease may happen (valid when `decreased_any`).
    pub last_decrease_psn: u32,
    pub decreased_any: bool,
    /// RTO backoff exponent: the RTO is shifted left by it (0..=31); +1 on each
    /// consecutive timeout, 0 after an acknowledgement.
    pub backoff_exp: u8,
    /// Probe state (PROBING).
    pub probe_seq: u32,
    pub probe_sent_at: HwTime,
    pub probe_tries: u32,
    pub probe_due: bool,
    /// The path's retransmission timer (RFC 6298 §5, issue 11 M2): started at a send
    /// while not running, restarted by an ACK of new data on the path, stopped when
    /// `inflight` reaches 0; it expires at `rto_start + rto(p)`
    /// ([`PathTable::rto_deadline`]). `rto_start` is a 32-bit hardware time; it is
    /// meaningful only while `rto_running`. Since the timer starts only at a send
    /// (inflight becomes at least 1) and every row write stops it at inflight 0,
    /// `rto_running == (inflight > 0)` always (the requester's invariants check it).
    pub rto_start: HwTime,
    pub rto_running: bool,
    /// Statistics.
    pub stat_sent: u64,
    pub stat_lost: u64,
    pub stat_timeouts: u64,
    pub stat_rerolls: u64,
    pub stat_ecn_cuts: u64,
}

impl Path {
    /// Smoothed RTT, ns (0 before the first sample).
    pub fn srtt_ns(&self) -> u32 {
        self.srtt8 >> 3
    }
    /// The window's integer part, at least 1: the packets the path may have in flight.
    pub fn window_pkts(&self) -> u32 {
        (self.cwnd >> CWND_FRAC).max(1)
    }
    /// May carry a DATA packet now (the row's bit of [`Summary::eligible`]).
    fn eligible(&self) -> bool {
        matches!(self.state, PathState::Ok | PathState::Suspect) && self.inflight < self.window_pkts()
    }
}

/// The per-connection summary of the path table: one word that path selection, the
/// head timer and a probe reply read instead of the rows. Written whenever a row is
/// written (from the row's old and new values only); [`PathTable::check_summary`]
/// recomputes it from the rows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Bit p: path p may carry a DATA packet now (OK or SUSPECT, window room).
    pub eligible: u16,
    /// Bit p: path p is OK.
    pub ok: u16,
    /// Round-robin pointer: the last path a packet was sent on (4 bits).
    pub rr: u8,
    /// Largest `srtt8` of any row (31 bits) and the row holding it. A row write that
    /// raises a row's `srtt8` to the maximum or beyond takes it over; a write that
    /// lowers the holder's `srtt8` starts a rescan of the `srtt8` column (P reads, one
    /// per cycle, in the background; until it ends the old, larger value stands).
    pub srtt8_max: u32,
    pub srtt_holder: u8,
}

/// The path table of one connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathTable {
    /// The rows. Read freely; write only through the table's functions (or
    /// [`PathTable::with_row`]), which keep the summary.
    pub paths: Vec<Path>,
    pub summary: Summary,
    pub k: PathConsts,
    /// Rescans of the srtt column (the holder's srtt fell).
    pub stat_srtt_rescans: u64,
    /// The connection's entropy generator: a 16-bit Galois LFSR ([`lfsr_step`]), never 0.
    lfsr: u16,
}

/// The entropy of a row between [`PathTable::reset_conn`] and its
/// [`PathTable::reset_row`]: not a 14-bit value, so no draw ever equals it.
pub const ENTROPY_NONE: u16 = 0xFFFF;

/// The entropy LFSR's feedback taps: x^16 + x^14 + x^13 + x^11 + 1 in Galois form,
/// shifting right (a maximal polynomial: every nonzero state, period 2^16 − 1).
pub const LFSR_TAPS: u16 = 0xB400;

/// One step of the entropy LFSR (16-bit Galois, [`LFSR_TAPS`]): shift right by one and,
/// if the bit shifted out was 1, XOR the taps in. Nonzero states stay nonzero.
pub fn lfsr_step(s: u16) -> u16 {
    (s >> 1) ^ if s & 1 == 1 { LFSR_TAPS } else { 0 }
}

/// The LFSR state a connection's 64-bit seed gives (the hardware's 16-bit seed port,
/// folded by software): the XOR of its four 16-bit quarters, or 1 if that is 0 (the
/// all-zero state is the LFSR's one fixed point).
pub fn lfsr_seed(seed: u64) -> u16 {
    let f = (seed ^ (seed >> 16) ^ (seed >> 32) ^ (seed >> 48)) as u16;
    if f == 0 {
        1
    } else {
        f
    }
}

/// The entropy path `p` draws from the LFSR state `lfsr` (already stepped) when its
/// current entropy is `cur` (M4). The 14-bit entropy (UDP source port `0xC000 |
/// entropy`) is a 10-bit random field over the 4-bit path number:
///
/// `f = lfsr[15:6]`; `entropy = (f << 4) | p`, except that if that equals `cur`, `f` is
/// replaced by `(f + 1) mod 2^10`.
///
/// So the entropy's bits 3:0 are `p` (paths are at most 16), which makes it differ from
/// every other path's entropy of the connection (their bits 3:0 are theirs), and the
/// +1 makes it differ from the path's own current one: distinct by construction, one
/// LFSR step and one 14-bit compare per draw, no retry.
pub fn entropy_of(lfsr: u16, p: usize, cur: u16) -> u16 {
    debug_assert!(p < 16);
    let f = lfsr >> 6;
    let e = (f << 4) | p as u16;
    if e == cur {
        (((f + 1) & 0x3FF) << 4) | p as u16
    } else {
        e
    }
}

#[cfg(test)]
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first set bit of `mask` at or after bit `start`, wrapping: round-robin order.
fn first_from(mask: u16, start: usize) -> Option<usize> {
    if mask == 0 {
        return None;
    }
    let m = u32::from(mask);
    let hi = m >> start << start;
    Some(if hi != 0 { hi.trailing_zeros() } else { m.trailing_zeros() } as usize)
}

impl PathTable {
    /// `paths` rows, each OK with a distinct entropy drawn from the LFSR seeded by
    /// [`lfsr_seed`]`(seed)` (row 0 first), path PSNs starting at `path_isn`.
    pub fn new(cfg: &TransportConfig, seed: u64, path_isn: u32) -> Self {
        let k = PathConsts::new(cfg);
        let n = cfg.paths as usize;
        let mut t = PathTable {
            paths: Vec::with_capacity(n),
            summary: Summary::default(),
            k,
            stat_srtt_rescans: 0,
            lfsr: lfsr_seed(seed),
        };
        for p in 0..n {
            let entropy = t.fresh_entropy(p, ENTROPY_NONE);
            t.paths.push(Self::fresh_row(&t.k, entropy, path_isn));
        }
        t.summary = t.recompute_summary();
        t.summary.rr = (n - 1) as u8;
        t
    }

    /// A row as [`PathTable::new`] builds it: OK, window `cwnd_init`, alpha 1.0, no
    /// RTT sample, path PSNs from `path_isn`, everything else 0.
    fn fresh_row(k: &PathConsts, entropy: u16, path_isn: u32) -> Path {
        Path {
            entropy,
            state: PathState::Ok,
            next_path_psn: path_isn & super::SEQ_MASK,
            cwnd: k.cwnd_init_q8,
            cwnd_cnt: 0,
            inflight: 0,
            srtt8: 0,
            rttvar4: 0,
            alpha: ALPHA_ONE,
            ce_acc: 0,
            pkt_acc: 0,
            alpha_window_end: 0,
            highest_acked_path_psn: 0,
            acked_any: false,
            strikes: 0,
            last_decrease_psn: 0,
            decreased_any: false,
            backoff_exp: 0,
            probe_seq: 0,
            probe_sent_at: HwTime(0),
            probe_tries: 0,
            probe_due: false,
            rto_start: HwTime(0),
            rto_running: false,
            stat_sent: 0,
            stat_lost: 0,
            stat_timeouts: 0,
            stat_rerolls: 0,
            stat_ecn_cuts: 0,
        }
    }

    /// Connection part of a reset (the hardware's RESET_CONN): the entropy LFSR
    /// restarts from [`lfsr_seed`]`(seed)`, the round-robin pointer is the last path,
    /// the summary describes no row yet (masks, srtt maximum and holder all 0) and
    /// `stat_srtt_rescans` is 0. Every row's entropy becomes
    /// [`ENTROPY_NONE`] (outside the 14-bit range, so no draw matches it); the rows
    /// are otherwise left as they are. The table is consistent again once
    /// [`PathTable::reset_row`] has rewritten every row: `reset_conn(seed)` followed by
    /// `reset_row(p, path_isn)` for p = 0, 1, .., P − 1 leaves the table equal to
    /// `PathTable::new(cfg, seed, path_isn)` (same entropies, drawn in the same order).
    /// The configuration constants are kept.
    pub fn reset_conn(&mut self, seed: u64) {
        let n = self.paths.len();
        self.lfsr = lfsr_seed(seed);
        self.stat_srtt_rescans = 0;
        for x in &mut self.paths {
            x.entropy = ENTROPY_NONE;
        }
        self.summary = Summary { rr: (n - 1) as u8, ..Summary::default() };
    }

    /// Row part of a reset (the hardware's RESET_PATH), after [`PathTable::reset_conn`]
    /// and once per row: row `p` becomes the row [`PathTable::new`] builds (OK, window
    /// `cwnd_init`, path PSNs from `path_isn`) with an entropy drawn from the LFSR
    /// ([`entropy_of`]: bits 3:0 = `p`, so no other row uses it; the row's current
    /// entropy is [`ENTROPY_NONE`], which no draw equals, so rows reset in increasing
    /// `p` draw exactly what `new` draws).
    /// The row's summary lanes are set (eligible, OK); its srtt (0) changes neither the
    /// maximum nor the holder.
    /// Returns the new entropy.
    pub fn reset_row(&mut self, p: usize, path_isn: u32) -> u16 {
        debug_assert_eq!(self.paths[p].entropy, ENTROPY_NONE, "reset_row({p}) without reset_conn, or twice");
        let entropy = self.fresh_entropy(p, ENTROPY_NONE);
        let x = Self::fresh_row(&self.k, entropy, path_isn);
        let s = &mut self.summary;
        s.eligible |= u16::from(x.eligible()) << p;
        s.ok |= 1 << p;
        self.paths[p] = x;
        entropy
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// A new 14-bit entropy for path `p`, whose current entropy is `cur`: the LFSR
    /// steps once and [`entropy_of`] gives `((lfsr[15:6] (+1 if equal)) << 4) | p`,
    /// different from `cur` and from every other path's entropy (bits 3:0 are `p`).
    fn fresh_entropy(&mut self, p: usize, cur: u16) -> u16 {
        self.lfsr = lfsr_step(self.lfsr);
        entropy_of(self.lfsr, p, cur)
    }

    /// The entropy LFSR's state (tests and the block shell).
    pub fn lfsr(&self) -> u16 {
        self.lfsr
    }

    /// The summary as it should be, from the rows (the round-robin pointer and the
    /// srtt holder are copied: they are history, not a function of the rows).
    fn recompute_summary(&self) -> Summary {
        let mut s = Summary { rr: self.summary.rr, srtt_holder: self.summary.srtt_holder, ..Summary::default() };
        for (p, x) in self.paths.iter().enumerate() {
            s.eligible |= u16::from(x.eligible()) << p;
            if x.state == PathState::Ok {
                s.ok |= 1 << p;
            }
            s.srtt8_max = s.srtt8_max.max(x.srtt8);
        }
        s
    }

    /// The summary equals the one recomputed from the rows, the srtt holder holds the
    /// maximum, and every row's additive-increase counter is below its window.
    pub fn check_summary(&self) -> Result<(), String> {
        let want = self.recompute_summary();
        if self.summary != want {
            return Err(format!("path summary {:?}, rows say {:?}", self.summary, want));
        }
        let h = self.summary.srtt_holder as usize;
        if h >= self.paths.len() || self.paths[h].srtt8 != self.summary.srtt8_max {
            return Err(format!("srtt holder {h} does not hold srtt8_max {}", self.summary.srtt8_max));
        }
        if let Some((p, x)) = self.paths.iter().enumerate().find(|(_, x)| x.cwnd_cnt >= x.window_pkts()) {
            return Err(format!("path {p}: cwnd_cnt {} not below the window {}", x.cwnd_cnt, x.window_pkts()));
        }
        Ok(())
    }

    /// Writes row `p` with `f` and updates the summary from the row's old and new
    /// values (what the RTL does on every row write). A write that leaves `inflight`
    /// at 0 stops the path's retransmission timer (M2). Tests use it to set up rows.
    pub fn with_row<R>(&mut self, p: usize, f: impl FnOnce(&mut Path) -> R) -> R {
        let r = f(&mut self.paths[p]);
        if self.paths[p].inflight == 0 {
            self.paths[p].rto_running = false;
        }
        let x = &self.paths[p];
        let s = &mut self.summary;
        let bit = 1u16 << p;
        s.eligible = if x.eligible() { s.eligible | bit } else { s.eligible & !bit };
        let ok = x.state == PathState::Ok;
        s.ok = if ok { s.ok | bit } else { s.ok & !bit };
        if x.srtt8 >= s.srtt8_max {
            s.srtt8_max = x.srtt8;
            s.srtt_holder = p as u8;
        } else if s.srtt_holder as usize == p {
            // The holder fell: rescan the srtt column.
            let (h, m) = self.paths.iter().enumerate().fold((p, x.srtt8), |(h, m), (q, y)| if y.srtt8 > m { (q, y.srtt8) } else { (h, m) });
            let s = &mut self.summary;
            s.srtt8_max = m;
            s.srtt_holder = h as u8;
            self.stat_srtt_rescans += 1;
        }
        r
    }

    /// The path may carry a DATA packet now (its summary bit).
    pub fn can_send(&self, p: usize) -> bool {
        self.summary.eligible >> p & 1 == 1
    }

    /// The round-robin pointer: the last path a packet was sent on.
    pub fn rr(&self) -> usize {
        self.summary.rr as usize
    }
    /// Sets the round-robin pointer (tests).
    pub fn set_rr(&mut self, p: usize) {
        self.summary.rr = p as u8;
    }

    /// Mask of the paths of `plane` (a constant per plane in the RTL).
    pub fn plane_mask(&self, plane: Option<Plane>) -> u16 {
        let n = self.paths.len();
        match plane {
            None => ((1u32 << n) - 1) as u16,
            Some(pl) => (0..n).filter(|&p| pl.has(p)).fold(0, |m, p| m | 1 << p),
        }
    }

    /// Round robin from the path after the last one used, reading only the summary. A
    /// retransmission passes the path it was lost on as `avoid`: that path is taken
    /// only when no other can send, and OK paths are preferred to SUSPECT ones.
    /// `plane`: only paths of that NIC plane (see [`Plane`]).
    pub fn select(&self, avoid: Option<usize>, plane: Option<Plane>) -> Option<usize> {
        self.select_masked(avoid, self.plane_mask(plane))
    }

    /// [`PathTable::select`] with the plane given as a path mask (bit p: path p may be
    /// used; the cycle shell's `s_plane` port). `select(avoid, plane)` is
    /// `select_masked(avoid, mask)` with the mask of the paths of `plane`.
    pub fn select_masked(&self, avoid: Option<usize>, mask: u16) -> Option<usize> {
        let n = self.paths.len();
        let start = (self.summary.rr as usize + 1) % n;
        let cand = self.summary.eligible & mask;
        let Some(a) = avoid else { return first_from(cand, start) };
        let abit = if a < n { 1u16 << a } else { 0 };
        first_from(cand & self.summary.ok & !abit, start)
            .or_else(|| first_from(cand & !self.summary.ok & !abit, start))
            .or((cand & abit != 0).then_some(a))
    }

    /// A DATA packet leaves on `p` at `now`: returns its path PSN. Starts the path's
    /// retransmission timer at `now` if it is not running (RFC 6298 (5.1)); a running
    /// timer is left alone.
    pub fn on_send(&mut self, p: usize, now: HwTime) -> u32 {
        self.summary.rr = p as u8;
        self.with_row(p, |x| {
            let pp = x.next_path_psn;
            x.next_path_psn = seq_add(pp, 1);
            x.inflight += 1;
            x.stat_sent += 1;
            if !x.rto_running {
                x.rto_running = true;
                x.rto_start = now;
            }
            pp
        })
    }

    /// One ACK's worth of acknowledgements for path `p`, in one row write (a batch
    /// update): `n` packets that were in flight on it and `n_lost` that had been
    /// declared lost. Any of them clears the strikes and the RTO backoff. The `n` in
    /// flight release their window share and feed the additive increase: `cwnd_cnt
    /// += n`, and when it reaches the window `w = max(cwnd >> 8, 1)` the window grows
    /// by one packet (256, at most `cwnd_max`) and `cwnd_cnt` drops by `w`, then to
    /// below the new window. At most one increase per ACK; no division.
    ///
    /// The retransmission timer (M2, RFC 6298 (5.2)-(5.3)): with `n > 0` (new data
    /// acknowledged on the path) it restarts at `now`; either way it stops if
    /// `inflight` is now 0 (the row write does that). Credits alone (`n == 0`) leave it.
    pub fn on_acked(&mut self, p: usize, n: u32, n_lost: u32, now: HwTime) {
        if n == 0 && n_lost == 0 {
            return;
        }
        let max = self.k.cwnd_max_q8;
        self.with_row(p, |x| {
            x.inflight = x.inflight.saturating_sub(n);
            if n > 0 {
                x.rto_start = now;
            }
            Self::recovered(x);
            if n > 0 {
                let w = x.window_pkts();
                x.cwnd_cnt += n;
                if x.cwnd_cnt >= w {
                    x.cwnd = (x.cwnd + (1 << CWND_FRAC)).min(max);
                    x.cwnd_cnt = (x.cwnd_cnt - w).min(x.window_pkts() - 1);
                }
            }
        })
    }

    fn recovered(x: &mut Path) {
        if matches!(x.state, PathState::Ok | PathState::Suspect) {
            x.strikes = 0;
            x.backoff_exp = 0;
            x.state = PathState::Ok;
        }
    }

    /// A window decrease to `cwnd`: the counter stays below the new window.
    fn set_cwnd(x: &mut Path, cwnd: u32) {
        x.cwnd = cwnd;
        x.cwnd_cnt = x.cwnd_cnt.min(x.window_pkts() - 1);
    }

    /// A packet in flight on `p` is declared lost (not a timeout): its window share
    /// is released; once per window of data the window becomes `max((cwnd * beta_q8)
    /// >> 8, cwnd_min)` (a 17x9-bit multiply) and the path gets a strike. Returns true
    /// when the path reached `fail_threshold` strikes.
    pub fn on_lost(&mut self, p: usize, psn: u32, next_psn: u32) -> bool {
        let k = self.k.clone();
        self.with_row(p, |x| {
            x.inflight = x.inflight.saturating_sub(1);
            x.stat_lost += 1;
            if Self::passes_decrease(x, psn) {
                return Self::loss_decrease(x, &k, next_psn);
            }
            false
        })
    }

    /// A loss of `psn` on row `x` may decrease the window: none yet, or `psn` at or
    /// after the last decrease point.
    fn passes_decrease(x: &Path, psn: u32) -> bool {
        !x.decreased_any || seq_after_eq(psn, x.last_decrease_psn)
    }

    /// The loss response: window times beta (at least `cwnd_min`), the decrease point
    /// moves to `next_psn`, one strike. True when the strikes reached the threshold.
    fn loss_decrease(x: &mut Path, k: &PathConsts, next_psn: u32) -> bool {
        x.decreased_any = true;
        x.last_decrease_psn = next_psn;
        let c = ((u64::from(x.cwnd) * u64::from(k.beta_q8)) >> CWND_FRAC) as u32;
        Self::set_cwnd(x, c.max(k.cwnd_min_q8));
        Self::strike(x, k.fail_threshold)
    }

    /// Whether [`PathTable::on_lost`]`(p, psn, _)` would decrease `p`'s window (and
    /// strike the path) now: `p` has had no decrease yet, or `psn` is at or after its
    /// last decrease point (serial). Reads only. Within a batch of losses only the
    /// first PSN for which this holds decreases: the decrease moves the point to the
    /// next PSN, which no PSN in flight has reached.
    pub fn loss_decreases(&self, p: usize, psn: u32) -> bool {
        Self::passes_decrease(&self.paths[p], psn)
    }

    /// `k` packets in flight on `p` declared lost at once by per-path loss detection,
    /// in one row write (the hardware's LOSS operation). `first` and `last` bound the
    /// batch's PSNs: every PSN `psn` of the batch lies on the serial arc from `first`
    /// to `last` (`seq_dist(psn, first) <= seq_dist(last, first) < 2^23`) and is
    /// before `next_psn` (`!seq_after_eq(psn, next_psn)`). The PSNs of `[cum, next)`
    /// meet both with `first`/`last` the closest to and the farthest from the
    /// cumulative PSN, since the window is far shorter than 2^23.
    ///
    /// Under these conditions the effect equals `k` calls of
    /// [`PathTable::on_lost`]`(p, psn, next_psn)`, one per PSN of the batch, in any
    /// order, and the result is true iff one of those calls returned true:
    /// - each call releases one window share and counts one loss: `inflight` drops by
    ///   `k` (saturating at 0) and `stat_lost` grows by `k`;
    /// - only the first call whose PSN passes the last decrease point
    ///   ([`PathTable::loss_decreases`]) decreases the window and strikes; it moves the
    ///   point to `next_psn`, which no PSN of the batch passes. Some PSN of the batch
    ///   passes it iff `first` or `last` does: on an arc of fewer than 2^23 PSNs, the
    ///   PSNs at or after a point form a prefix or a suffix of the arc.
    ///
    /// `k == 0` writes nothing and returns false (as zero calls do).
    pub fn on_lost_batch(&mut self, p: usize, k: u32, first: u32, last: u32, next_psn: u32) -> bool {
        if k == 0 {
            return false;
        }
        let c = self.k.clone();
        self.with_row(p, |x| {
            x.inflight = x.inflight.saturating_sub(k);
            x.stat_lost += u64::from(k);
            if Self::passes_decrease(x, first) || Self::passes_decrease(x, last) {
                return Self::loss_decrease(x, &c, next_psn);
            }
            false
        })
    }

    /// An ACK for path `p` reports `path_psn`, the highest path PSN its receiver has
    /// seen on `p`. It is fresh when `p` has sent it (not after `next_path_psn − 1`)
    /// and it is the first report for `p` or not before the highest reported so far
    /// (serial); a fresh report becomes the highest (`highest_acked_path_psn`,
    /// `acked_any`) and the caller runs per-path loss detection up to it. A stale
    /// report changes nothing. Returns whether it was fresh. Neither field is in the
    /// summary, so the row is written without a summary update (the srtt holder is
    /// left alone, as the requester's former direct write did).
    pub fn on_ack_path_psn(&mut self, p: usize, path_psn: u32) -> bool {
        let x = &mut self.paths[p];
        let sent_last = seq_add(x.next_path_psn, super::SEQ_MASK);
        let fresh = !x.acked_any || seq_after_eq(path_psn, x.highest_acked_path_psn);
        if fresh && seq_after_eq(sent_last, path_psn) {
            x.acked_any = true;
            x.highest_acked_path_psn = path_psn;
            return true;
        }
        false
    }

    /// A packet declared lost because of a timeout (its window share is released; the
    /// strike and window reset are per timeout, [`PathTable::on_timeout`]).
    pub fn on_lost_by_timeout(&mut self, p: usize) {
        self.with_row(p, |x| {
            x.inflight = x.inflight.saturating_sub(1);
            x.stat_lost += 1;
        })
    }

    /// Releases a packet's window share without any congestion or health consequence
    /// (a NoRecvBuffer NAK: the packet arrived, the receiver was not ready).
    pub fn release(&mut self, p: usize) {
        self.with_row(p, |x| x.inflight = x.inflight.saturating_sub(1))
    }

    /// The path's RTO expired: window to the minimum, backoff exponent + 1, one
    /// strike. Returns true when the path reached `fail_threshold` strikes.
    pub fn on_timeout(&mut self, p: usize, next_psn: u32) -> bool {
        let k = self.k.clone();
        self.with_row(p, |x| {
            x.stat_timeouts += 1;
            Self::set_cwnd(x, k.cwnd_min_q8);
            x.decreased_any = true;
            x.last_decrease_psn = next_psn;
            x.backoff_exp = (x.backoff_exp + 1).min(BACKOFF_EXP_MAX);
            Self::strike(x, k.fail_threshold)
        })
    }

    fn strike(x: &mut Path, fail_threshold: u32) -> bool {
        x.strikes += 1;
        if x.state == PathState::Ok {
            x.state = PathState::Suspect;
        }
        x.strikes >= fail_threshold
    }

    /// RTT sample (ns) for path `p`, clamped to 1..=2^28 − 1: RFC 6298's gains 1/8
    /// and 1/4 as shifts on the scaled registers. First sample `s`: `srtt8 = s << 3`,
    /// `rttvar4 = s << 1`; later `rttvar4 += |(srtt8 >> 3) − s| − (rttvar4 >> 2)`, then
    /// `srtt8 += s − (srtt8 >> 3)` (floor shifts; neither goes negative).
    pub fn on_rtt(&mut self, p: usize, sample: u32) {
        let s = sample.clamp(1, RTT_SAMPLE_MAX);
        self.with_row(p, |x| {
            if x.srtt8 == 0 {
                x.srtt8 = s << 3;
                x.rttvar4 = s << 1;
            } else {
                let err = (i64::from(x.srtt8 >> 3) - i64::from(s)).unsigned_abs() as u32;
                x.rttvar4 = x.rttvar4 - (x.rttvar4 >> 2) + err;
                x.srtt8 = x.srtt8 - (x.srtt8 >> 3) + s;
            }
        })
    }

    /// The path's retransmission timeout, ns: `rto_init` before the first sample, else
    /// `clamp((srtt8 >> 3) + rttvar4, rto_min, rto_max)`; shifted left by the backoff
    /// exponent, at most `rto_max` (a saturating shift).
    pub fn rto(&self, p: usize) -> u64 {
        let x = &self.paths[p];
        let base = if x.srtt8 == 0 {
            self.k.rto_init_ns
        } else {
            (u64::from(x.srtt8 >> 3) + u64::from(x.rttvar4)).clamp(self.k.rto_min_ns, self.k.rto_max_ns)
        };
        (base << x.backoff_exp).min(self.k.rto_max_ns)
    }

    /// ECN sample from an ACK naming `p`: `ce` of `pkts` packets were marked (16-bit
    /// saturating accumulators). Once per window of data (when the cumulative PSN
    /// passes `alpha_window_end`) the marked fraction `F = (ce_acc << 10) / pkt_acc`
    /// comes from the restoring divider ([`ecn_fraction_q10`]), `alpha += (F >> g) −
    /// (alpha >> g)`, and, if anything was marked, `cwnd −= (cwnd * alpha) >> 11`
    /// (17x11-bit multiply, floor; at least `cwnd_min`), at most once per window of
    /// data, shared with loss decreases.
    pub fn on_ecn(&mut self, p: usize, ce: u8, pkts: u8, cum_psn: u32, next_psn: u32) {
        let k = self.k.clone();
        self.with_row(p, |x| {
            x.ce_acc = (x.ce_acc + u32::from(ce.min(pkts))).min(ECN_ACC_MAX);
            x.pkt_acc = (x.pkt_acc + u32::from(pkts)).min(ECN_ACC_MAX);
            if seq_after_eq(cum_psn, x.alpha_window_end) {
                if x.pkt_acc > 0 {
                    let f = ecn_fraction_q10(x.ce_acc, x.pkt_acc);
                    x.alpha = x.alpha - (x.alpha >> k.g) + (f >> k.g);
                    if x.ce_acc > 0 && (!x.decreased_any || seq_after_eq(cum_psn, x.last_decrease_psn)) {
                        let cut = ((u64::from(x.cwnd) * u64::from(x.alpha)) >> 11) as u32;
                        Self::set_cwnd(x, (x.cwnd - cut).max(k.cwnd_min_q8));
                        x.decreased_any = true;
                        x.last_decrease_psn = next_psn;
                        x.stat_ecn_cuts += 1;
                    }
                }
                x.ce_acc = 0;
                x.pkt_acc = 0;
                x.alpha_window_end = next_psn;
            }
        })
    }

    /// Fails `p`: a new entropy (so a new route), state PROBING with a probe due.
    /// The caller declares the path's packets in flight lost first.
    pub fn fail(&mut self, p: usize) {
        let e = self.fresh_entropy(p, self.paths[p].entropy);
        self.with_row(p, |x| {
            x.entropy = e;
            x.state = PathState::Failed;
            x.inflight = 0;
            x.probe_tries = 0;
            x.probe_due = true;
            x.stat_rerolls += 1;
        })
    }

    /// A probe leaves on `p` now: returns its sequence number.
    pub fn on_probe_sent(&mut self, p: usize, now: HwTime) -> u32 {
        self.with_row(p, |x| {
            x.state = PathState::Probing;
            x.probe_seq = x.probe_seq.wrapping_add(1);
            x.probe_sent_at = now;
            x.probe_due = false;
            x.probe_seq
        })
    }

    /// The outstanding probe on `p` went unanswered for a probe interval: probe again,
    /// on a new entropy after `max_probes` tries.
    pub fn on_probe_timeout(&mut self, p: usize) {
        let reroll = self.paths[p].probe_tries + 1 >= self.k.max_probes;
        let e = if reroll { self.fresh_entropy(p, self.paths[p].entropy) } else { self.paths[p].entropy };
        self.with_row(p, |x| {
            x.probe_tries += 1;
            if reroll {
                x.entropy = e;
                x.probe_tries = 0;
                x.stat_rerolls += 1;
            }
            x.probe_due = true;
        })
    }

    /// A PROBE_REPLY for `p`: accepted when it answers the outstanding probe on the
    /// current entropy. The path is OK again, with the window `cwnd_init` (M3: a new
    /// route starts like a new path; the former mean window of the OK paths, a 21x20-bit
    /// product of the summary, is gone) and the probe's RTT as a first sample.
    pub fn on_probe_reply(&mut self, p: usize, seq: u32, port: u16, now: HwTime) -> bool {
        let x = &self.paths[p];
        if x.state != PathState::Probing || x.probe_due || seq != x.probe_seq || port != 0xC000 | x.entropy {
            return false;
        }
        let cwnd = self.k.cwnd_init_q8;
        let s = now.since(x.probe_sent_at).clamp(1, RTT_SAMPLE_MAX);
        self.with_row(p, |x| {
            x.state = PathState::Ok;
            x.strikes = 0;
            x.backoff_exp = 0;
            x.cwnd = cwnd;
            x.cwnd_cnt = 0;
            x.inflight = 0;
            x.srtt8 = s << 3;
            x.rttvar4 = s << 1;
            x.decreased_any = false;
        });
        true
    }

    /// The RTO deadline of `p` (M2): `rto_start + rto(p)` while its retransmission
    /// timer runs and the path is OK or SUSPECT (FAILED and PROBING paths carry nothing;
    /// their timer is stopped anyway, inflight being 0). `rto(p)` is read now, so a new
    /// RTT sample or backoff moves the deadline of a running timer; it is below 2^31 ns,
    /// and the timer never runs longer than that without expiring, so the deadline
    /// compares correctly across the time counter's wrap.
    pub fn rto_deadline(&self, p: usize) -> Option<HwTime> {
        let x = &self.paths[p];
        (x.rto_running && matches!(x.state, PathState::Ok | PathState::Suspect)).then(|| x.rto_start.add_ns(self.rto(p)))
    }

    /// Probe interval of `p`: its RTO (below 2^31 ns, so the deadline compares
    /// correctly across the time counter's wrap).
    pub fn probe_deadline(&self, p: usize) -> Option<HwTime> {
        let x = &self.paths[p];
        (x.state == PathState::Probing && !x.probe_due).then(|| x.probe_sent_at.add_ns(self.rto(p)))
    }

    /// The head timer's wait (§6.5), ns: `((srtt8_max >> 3) * head_q8) >> 8` plus
    /// `ack_timeout_ns`, at most 2^31 − 1 (a 28x15-bit product, recomputed only when
    /// `srtt8_max` changes); `None` when the head timer is off or no path has an RTT
    /// sample yet.
    pub fn head_wait(&self) -> Option<u64> {
        let m = self.summary.srtt8_max;
        if self.k.head_q8 == 0 || m == 0 {
            return None;
        }
        Some((((u64::from(m >> 3) * u64::from(self.k.head_q8)) >> 8) + self.k.ack_timeout_ns).min(super::MAX_TIME_NS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::SEQ_MASK;

    fn cfg() -> TransportConfig {
        TransportConfig { paths: 4, cwnd_init: 2, loss_beta_pct: 50, ..Default::default() }
    }
    const ONE: u32 = 1 << CWND_FRAC;

    /// The mask form the path shell uses selects what the plane form selected (the old
    /// body of `select`, which filtered the eligible paths by `Plane::has`).
    #[test]
    fn select_masked_with_the_plane_mask_equals_select_on_every_plane_and_avoid() {
        let c = TransportConfig { paths: 8, ..Default::default() };
        let mut t = PathTable::new(&c, 7, 0);
        for step in 0..400u32 {
            let p = (step * 5 % 8) as usize;
            match step % 4 {
                0 => {
                    t.on_send(p, HwTime(step));
                }
                1 => {
                    t.on_timeout(p, step);
                }
                2 => t.on_acked(p, 1, 0, HwTime(step)),
                _ => t.set_rr((step % 8) as usize),
            }
            for planes in 0..4u8 {
                for plane in 0..planes.max(1) {
                    let pl = Plane { plane, planes };
                    let m = t.plane_mask(Some(pl));
                    assert_eq!(m, (0..8).filter(|&q| pl.has(q)).fold(0u16, |a, q| a | 1 << q));
                    for avoid in [None, Some(0), Some(3), Some(7), Some(9)] {
                        let old = {
                            let n = t.paths.len();
                            let start = (t.summary.rr as usize + 1) % n;
                            let cand = t.summary.eligible & (0..n).filter(|&q| pl.has(q)).fold(0u16, |a, q| a | 1 << q);
                            match avoid {
                                None => first_from(cand, start),
                                Some(a) => {
                                    let abit = if a < n { 1u16 << a } else { 0 };
                                    first_from(cand & t.summary.ok & !abit, start)
                                        .or_else(|| first_from(cand & !t.summary.ok & !abit, start))
                                        .or((cand & abit != 0).then_some(a))
                                }
                            }
                        };
                        assert_eq!(t.select(avoid, Some(pl)), old);
                        assert_eq!(t.select_masked(avoid, m), old);
                    }
                }
            }
            assert_eq!(t.select(None, None), t.select_masked(None, 0xFF));
        }
    }

    #[test]
    fn entropies_are_distinct_and_reroll_picks_an_unused_one() {
        let c = TransportConfig { paths: 16, ..Default::default() };
        let mut t = PathTable::new(&c, 7, 0);
        for _ in 0..50 {
            t.fail(3);
            let mut e: Vec<u16> = t.paths.iter().map(|p| p.entropy).collect();
            e.sort();
            e.dedup();
            assert_eq!(e.len(), 16);
            assert!(e.iter().all(|&x| x < 0x4000));
        }
        t.check_summary().unwrap();
    }

    /// M4: the LFSR is maximal (period 2^16 − 1 from any nonzero state, never 0), and
    /// 10^5 draws (failures and probe re-rolls of random paths, 16 paths) each step it
    /// exactly once and give `entropy_of(lfsr, p, old)`: 14 bits, bits 3:0 = p,
    /// different from the path's previous entropy and from every other path's current
    /// one (all 16 distinct after every draw). The +1 (a draw equal to the current
    /// entropy) happens and keeps the entropy distinct; with 8 paths too.
    #[test]
    fn lfsr_entropies_differ_from_the_paths_own_and_every_other_paths_in_1e5_draws() {
        let mut s = 1u16;
        for k in 1..=65535u32 {
            s = lfsr_step(s);
            assert_ne!(s, 0);
            assert_eq!(s == 1, k == 65535, "period 2^16 - 1 (step {k})");
        }
        assert_eq!((lfsr_seed(0), lfsr_seed(0x0001_0001), lfsr_seed(0x1234)), (1, 1, 0x1234));
        // The +1 branch: a draw whose field equals the current entropy's.
        assert_eq!(entropy_of(0x8040, 3, (0x201 << 4) | 3), (0x202 << 4) | 3);
        assert_eq!(entropy_of(0xFFC0, 5, (0x3FF << 4) | 5), 5, "the field wraps mod 2^10");
        assert_eq!(entropy_of(0xFFC0, 5, (0x3FF << 4) | 6), (0x3FF << 4) | 5, "only the path's own entropy counts");
        for paths in [16u8, 8] {
            let c = TransportConfig { paths, max_probes: 1, ..Default::default() };
            let mut t = PathTable::new(&c, 0xDEAD_BEEF, 0);
            let mut rng = 11u64;
            let mut bumped = 0;
            for i in 0..100_000u32 {
                let p = (splitmix(&mut rng) % u64::from(paths)) as usize;
                let (old, before) = (t.paths[p].entropy, t.lfsr());
                if i % 2 == 0 {
                    t.fail(p);
                } else {
                    t.on_probe_timeout(p);
                }
                let e = t.paths[p].entropy;
                assert_eq!(t.lfsr(), lfsr_step(before), "one LFSR step per draw");
                assert_eq!(e, entropy_of(t.lfsr(), p, old));
                bumped += u32::from(e >> 4 != t.lfsr() >> 6);
                assert!(e < 0x4000 && usize::from(e & 0xF) == p && e != old, "draw {i}: path {p}, {old:#x} -> {e:#x}");
                let mut all: Vec<u16> = t.paths.iter().map(|x| x.entropy).collect();
                all.sort_unstable();
                all.dedup();
                assert_eq!(all.len(), paths as usize, "draw {i}: entropies distinct across the connection's paths");
            }
            assert!(bumped > 20, "{paths} paths: the +1 happened {bumped} times");
            t.check_summary().unwrap();
        }
    }

    #[test]
    fn round_robin_skips_full_and_failed_paths() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        let mut order = vec![];
        while let Some(p) = t.select(None, None) {
            t.on_send(p, HwTime(0));
            order.push(p);
        }
        assert_eq!(order, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        t.on_acked(2, 1, 0, HwTime(0));
        t.fail(1);
        assert_eq!(t.select(None, None), Some(2));
        assert!(!t.can_send(1));
        t.check_summary().unwrap();
    }

    #[test]
    fn a_retransmission_avoids_its_lossy_path_and_prefers_ok_paths() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.with_row(1, |x| x.state = PathState::Suspect);
        t.set_rr(3); // next in order: 0, 1, 2, 3
        assert_eq!(t.select(Some(0), None), Some(2));
        for p in [2, 3] {
            t.with_row(p, |x| x.inflight = 2);
        }
        assert_eq!(t.select(Some(0), None), Some(1), "a suspect path beats the avoided one");
        t.with_row(1, |x| x.inflight = 2);
        assert_eq!(t.select(Some(0), None), Some(0), "the avoided path when nothing else can send");
        let odd = Plane { plane: 1, planes: 2 };
        t.with_row(1, |x| x.inflight = 0);
        assert_eq!(t.select(Some(0), Some(odd)), Some(1), "only paths of the plane");
        t.with_row(1, |x| x.inflight = 2);
        assert_eq!(t.select(Some(0), Some(odd)), None, "no path of plane 1 can send");
        t.check_summary().unwrap();
    }

    #[test]
    fn loss_multiplies_the_window_by_beta_q8_once_per_window_and_three_strikes_fail() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        assert_eq!(t.k.beta_q8, 128, "50 % = 128/256");
        t.with_row(0, |x| {
            x.cwnd = 16 * ONE + 77;
            x.inflight = 10;
        });
        assert!(!t.on_lost(0, 5, 20));
        assert!(!t.on_lost(0, 6, 20), "psn 6 was sent before the decrease");
        assert_eq!(t.paths[0].cwnd, ((16 * ONE + 77) * 128) >> 8, "(cwnd * beta_q8) >> 8, floor");
        assert_eq!(t.paths[0].strikes, 1);
        assert_eq!(t.paths[0].state, PathState::Suspect);
        assert!(!t.on_lost(0, 20, 30), "psn 20 was sent after it");
        assert!(t.on_lost(0, 31, 40), "third strike fails the path");
        assert_eq!(t.paths[0].cwnd, (16 * ONE + 77) >> 3, "three halvings");
        for _ in 0..20 {
            t.with_row(0, |x| x.decreased_any = false);
            t.on_lost(0, 50, 60);
        }
        assert_eq!(t.paths[0].cwnd, c.cwnd_min * ONE, "never below cwnd_min");
        t.on_acked(0, 1, 0, HwTime(0));
        assert_eq!(t.paths[0].strikes, 0);
        assert_eq!(t.paths[0].state, PathState::Ok);
        t.check_summary().unwrap();
        for (pct, q8) in [(100, 256), (1, 3), (33, 84), (70, 179)] {
            assert_eq!(PathConsts::new(&TransportConfig { loss_beta_pct: pct, ..cfg() }).beta_q8, q8, "{pct} %");
        }
    }

    #[test]
    fn a_batch_ack_adds_n_to_the_counter_and_grows_the_window_at_most_once() {
        let c = TransportConfig { cwnd_max: 20, ..cfg() };
        let mut t = PathTable::new(&c, 1, 0);
        // The documented formula, applied to random (cwnd, cwnd_cnt, n).
        let mut rng = 5u64;
        for _ in 0..2000 {
            let cwnd = ONE + (splitmix(&mut rng) % u64::from(20 * ONE - ONE + 1)) as u32;
            let w = (cwnd >> 8).max(1);
            let cnt = (splitmix(&mut rng) % u64::from(w)) as u32;
            let n = (splitmix(&mut rng) % 40) as u32;
            t.with_row(0, |x| {
                x.cwnd = cwnd;
                x.cwnd_cnt = cnt;
                x.inflight = 64;
            });
            t.on_acked(0, n, 0, HwTime(0));
            let (mut want_cwnd, mut want_cnt) = (cwnd, cnt + n);
            if want_cnt >= w {
                want_cwnd = (cwnd + 256).min(20 * 256);
                want_cnt = (want_cnt - w).min((want_cwnd >> 8).max(1) - 1);
            }
            let x = &t.paths[0];
            assert_eq!((x.cwnd, x.cwnd_cnt, x.inflight), (want_cwnd, want_cnt, 64 - n), "cwnd {cwnd} cnt {cnt} n {n}");
            t.check_summary().unwrap();
        }
        // One ACK of 10 packets at window 4 grows it once; ten ACKs of one packet
        // (10 >= 4 + 5) twice.
        t.with_row(1, |x| {
            x.cwnd = 4 * ONE;
            x.cwnd_cnt = 0;
            x.inflight = 20;
        });
        t.on_acked(1, 10, 0, HwTime(0));
        assert_eq!((t.paths[1].cwnd, t.paths[1].cwnd_cnt), (5 * ONE, 4));
        t.with_row(2, |x| {
            x.cwnd = 4 * ONE;
            x.inflight = 20;
        });
        for _ in 0..10 {
            t.on_acked(2, 1, 0, HwTime(0));
        }
        assert_eq!((t.paths[2].cwnd, t.paths[2].cwnd_cnt), (6 * ONE, 1));
    }

    #[test]
    fn timeouts_raise_the_backoff_exponent_and_the_rto_saturates_at_rto_max() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        assert_eq!(t.rto(0), c.rto_init_ns);
        t.on_rtt(0, 10_000);
        assert_eq!((t.paths[0].srtt8, t.paths[0].rttvar4), (80_000, 20_000));
        assert_eq!(t.rto(0), c.rto_min_ns, "10 + 4*5 us is below rto_min");
        t.on_timeout(0, 0);
        assert_eq!(t.paths[0].backoff_exp, 1);
        assert_eq!(t.rto(0), 2 * c.rto_min_ns);
        for _ in 0..40 {
            t.on_timeout(0, 0);
        }
        assert_eq!(t.paths[0].backoff_exp, BACKOFF_EXP_MAX);
        assert_eq!(t.rto(0), c.rto_max_ns);
        t.on_acked(0, 0, 1, HwTime(0));
        assert_eq!(t.paths[0].backoff_exp, 0, "an acknowledgement resets the exponent");
    }

    /// M2: the path's retransmission timer is RFC 6298's: it starts at a send while
    /// stopped (a later send leaves it), restarts on an ACK of new data (n > 0; a
    /// credit of a spurious loss alone does not), stops when inflight reaches 0 by any
    /// row write (ACK, loss, release, failure); the deadline is `rto_start + rto(p)`,
    /// also across the time counter's wrap.
    #[test]
    fn the_rto_starts_on_send_restarts_on_an_ack_of_new_data_and_stops_at_inflight_0() {
        let c = TransportConfig { cwnd_init: 16, ..cfg() };
        let mut t = PathTable::new(&c, 1, 0);
        let rto = t.rto(0);
        assert_eq!(t.rto_deadline(0), None, "nothing in flight");
        t.on_send(0, HwTime(1000));
        assert_eq!(t.rto_deadline(0), Some(HwTime(1000).add_ns(rto)));
        t.on_send(0, HwTime(2000));
        t.on_send(0, HwTime(2500));
        assert_eq!(t.rto_deadline(0), Some(HwTime(1000).add_ns(rto)), "a send does not restart a running timer");
        t.on_acked(0, 0, 1, HwTime(3000));
        assert_eq!(t.rto_deadline(0), Some(HwTime(1000).add_ns(rto)), "a spurious-loss credit is no new data");
        t.on_acked(0, 1, 0, HwTime(4000));
        assert_eq!(t.rto_deadline(0), Some(HwTime(4000).add_ns(rto)), "an ACK of new data restarts it");
        t.on_rtt(0, 100_000);
        assert_eq!(t.rto_deadline(0), Some(HwTime(4000).add_ns(t.rto(0))), "the deadline takes the current rto");
        t.on_acked(0, 2, 0, HwTime(5000));
        assert_eq!((t.paths[0].inflight, t.rto_deadline(0)), (0, None), "stopped at inflight 0");
        // Stops on the other ways inflight reaches 0 too, and restarts at the next send.
        t.on_send(0, HwTime(6000));
        assert_eq!(t.rto_deadline(0), Some(HwTime(6000).add_ns(t.rto(0))));
        t.on_lost_by_timeout(0);
        assert_eq!(t.rto_deadline(0), None, "a loss took the last one");
        t.on_send(0, HwTime(7000));
        t.release(0);
        assert_eq!(t.rto_deadline(0), None, "a release took the last one");
        t.on_send(0, HwTime(8000));
        t.on_send(0, HwTime(8001));
        t.on_lost(0, 0, 10);
        assert_eq!(t.rto_deadline(0), Some(HwTime(8000).add_ns(t.rto(0))), "one left: still running, not restarted");
        t.fail(0);
        assert_eq!(t.rto_deadline(0), None, "a failed path has no RTO");
        // Across the wrap.
        let start = HwTime(u32::MAX - 10);
        t.on_send(1, start);
        let d = t.rto_deadline(1).unwrap();
        assert!(d.0 < start.0 && d.after(start) && d.since(start) as u64 == t.rto(1));
        t.check_summary().unwrap();
    }

    #[test]
    fn the_rtt_estimator_uses_shifts_on_8_srtt_and_4_rttvar() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.on_rtt(0, 1000);
        t.on_rtt(0, 2000);
        // rttvar4 = 2000 - 500 + |1000 - 2000|; srtt8 = 8000 - 1000 + 2000.
        assert_eq!((t.paths[0].srtt8, t.paths[0].rttvar4), (9000, 2500));
        t.on_rtt(0, 0);
        assert_eq!((t.paths[0].srtt8, t.paths[0].rttvar4), (9000 - 1125 + 1, 2500 - 625 + 1124));
        t.on_rtt(1, u32::MAX);
        assert_eq!(t.paths[1].srtt8, RTT_SAMPLE_MAX << 3, "samples clamp to 2^28 - 1");
        for _ in 0..100 {
            t.on_rtt(1, u32::MAX);
            t.on_rtt(1, 0);
        }
        assert!(t.paths[1].srtt8 < 1 << 31 && t.paths[1].rttvar4 < 1 << 31);
        t.check_summary().unwrap();
    }

    #[test]
    fn the_ecn_fraction_divider_is_floor_division() {
        for pkts in 1..=300u32 {
            for ce in 0..=pkts {
                assert_eq!(ecn_fraction_q10(ce, pkts), (ce << 10) / pkts, "{ce}/{pkts}");
            }
        }
        for (ce, pkts) in [(0xFFFF, 0xFFFF), (1, 0xFFFF), (0x7FFF, 0xFFFF), (0xFFFE, 0xFFFF)] {
            assert_eq!(ecn_fraction_q10(ce, pkts), (ce << 10) / pkts);
        }
    }

    #[test]
    fn ecn_marks_cut_the_window_by_cwnd_alpha_over_2048_once_per_window() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.with_row(0, |x| x.cwnd = 40 * ONE);
        t.on_ecn(0, 4, 4, 0, 100); // closes window 0: alpha = 1024 - 64 + 64
        assert_eq!(t.paths[0].alpha, 1024);
        assert_eq!(t.paths[0].cwnd, 20 * ONE);
        t.on_ecn(0, 4, 4, 50, 120); // window runs to psn 100: accumulate only
        assert_eq!(t.paths[0].cwnd, 20 * ONE);
        t.on_ecn(0, 0, 8, 100, 140); // closes window 1: F = 4096 / 12 = 341
        let alpha = 1024 - 64 + (341 >> 4);
        assert_eq!(t.paths[0].alpha, alpha);
        assert_eq!(t.paths[0].cwnd, 20 * ONE - ((20 * ONE * alpha) >> 11));
        // Unmarked windows decay alpha to its floor (2^g - 1), never below.
        for k in 0..400 {
            t.on_ecn(0, 0, 8, 200 + k, 201 + k);
        }
        assert_eq!(t.paths[0].alpha, 15);
        t.check_summary().unwrap();
    }

    #[test]
    fn a_probe_reply_must_match_the_sequence_and_the_current_port() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.fail(2);
        let s = t.on_probe_sent(2, HwTime(1000));
        let port = 0xC000 | t.paths[2].entropy;
        assert!(!t.on_probe_reply(2, s + 1, port, HwTime(5000)));
        assert!(!t.on_probe_reply(2, s, port ^ 1, HwTime(5000)));
        assert!(t.on_probe_reply(2, s, port, HwTime(5000)));
        assert_eq!(t.paths[2].state, PathState::Ok);
        assert_eq!(t.paths[2].srtt_ns(), 4000);
        t.check_summary().unwrap();
    }

    /// M3: a re-probed path restarts at `cwnd_init`, whatever the windows of the
    /// connection's OK paths (before M3 it took their mean, here 8.5 packets), and the
    /// other rows are untouched.
    #[test]
    fn a_reprobed_path_restarts_at_cwnd_init() {
        let c = TransportConfig { paths: 4, cwnd_init: 2, ..Default::default() };
        let mut t = PathTable::new(&c, 1, 0);
        t.with_row(0, |x| x.cwnd = 10 * ONE + 3);
        t.with_row(1, |x| x.cwnd = 7 * ONE);
        t.with_row(2, |x| {
            x.cwnd = 30 * ONE;
            x.cwnd_cnt = 5;
        });
        t.with_row(3, |x| x.state = PathState::Suspect);
        t.fail(2);
        let s = t.on_probe_sent(2, HwTime(0));
        let port = 0xC000 | t.paths[2].entropy;
        let others: Vec<Path> = [0, 1, 3].iter().map(|&q| t.paths[q].clone()).collect();
        assert!(t.on_probe_reply(2, s, port, HwTime(100)));
        assert_eq!((t.paths[2].cwnd, t.paths[2].cwnd_cnt), (c.cwnd_init * ONE, 0), "cwnd_init, not the mean of paths 0 and 1");
        assert_eq!(t.paths[2].state, PathState::Ok);
        assert_eq!([0, 1, 3].iter().map(|&q| t.paths[q].clone()).collect::<Vec<_>>(), others);
        t.check_summary().unwrap();
    }

    #[test]
    fn the_summary_equals_the_one_recomputed_from_the_rows_after_random_operations() {
        let c = TransportConfig { paths: 8, cwnd_init: 4, cwnd_max: 64, loss_beta_pct: 70, head_rto_pct: 150, ..Default::default() };
        for seed in 0..40u64 {
            let mut t = PathTable::new(&c, seed, 0);
            let mut rng = seed;
            let mut r = |m: u64| (splitmix(&mut rng) % m) as u32;
            for step in 0..400u32 {
                let p = r(8) as usize;
                match r(11) {
                    0 | 1 => {
                        if let Some(q) = t.select(if r(2) == 0 { None } else { Some(p) }, None) {
                            t.on_send(q, HwTime(0));
                        }
                    }
                    2 => {
                        let n = r(u64::from(t.paths[p].inflight) + 1);
                        t.on_acked(p, n, r(2), HwTime(0));
                    }
                    3 => {
                        if t.paths[p].inflight > 0 {
                            t.on_lost(p, step, step + 10);
                        }
                    }
                    4 => t.on_rtt(p, r(200_000)),
                    5 => t.on_ecn(p, r(5) as u8, 4, step, step + 4),
                    6 => {
                        t.on_timeout(p, step);
                    }
                    7 => {
                        if matches!(t.paths[p].state, PathState::Ok | PathState::Suspect) {
                            t.fail(p);
                        }
                    }
                    8 => {
                        if t.paths[p].probe_due {
                            t.on_probe_sent(p, HwTime(step));
                        } else if t.paths[p].state == PathState::Probing {
                            let (s, port) = (t.paths[p].probe_seq, 0xC000 | t.paths[p].entropy);
                            t.on_probe_reply(p, s, port, HwTime(step + 5000));
                        }
                    }
                    9 => {
                        if t.paths[p].state == PathState::Probing {
                            t.on_probe_timeout(p);
                        }
                    }
                    _ => {
                        if t.paths[p].inflight > 0 {
                            t.release(p);
                        }
                    }
                }
                t.check_summary().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
                let srtt_max = t.paths.iter().map(|x| x.srtt8).max().unwrap();
                assert_eq!(t.summary.srtt8_max, srtt_max);
                let want = (0..8).map(|k| (t.rr() + 1 + k) % 8).find(|&q| t.paths[q].eligible());
                assert_eq!(t.select(None, None), want, "selection from the summary = a scan of the rows");
            }
        }
    }

    #[test]
    fn the_head_wait_is_srtt_max_times_head_q8_plus_the_ack_timeout() {
        let c = TransportConfig { paths: 4, head_rto_pct: 150, ..Default::default() };
        let mut t = PathTable::new(&c, 1, 0);
        assert_eq!(t.k.head_q8, 384);
        assert_eq!(t.head_wait(), None, "no RTT sample yet");
        t.on_rtt(1, 10_000);
        t.on_rtt(3, 30_000);
        assert_eq!(t.head_wait(), Some(45_000 + c.ack_timeout_ns));
        for _ in 0..50 {
            t.on_rtt(3, 1_000);
        }
        assert_eq!(t.summary.srtt8_max, t.paths[1].srtt8, "the holder fell below path 1: rescanned");
        assert!(t.stat_srtt_rescans > 0);
        t.check_summary().unwrap();
    }

    /// A table driven through `steps` random operations (as in the summary test): a
    /// random but reachable state, summary consistent.
    fn scrambled(c: &TransportConfig, seed: u64, steps: u32) -> PathTable {
        let n = c.paths as u64;
        let mut t = PathTable::new(c, seed, 0);
        let mut rng = seed ^ 0x5EED;
        let mut r = |m: u64| (splitmix(&mut rng) % m) as u32;
        for step in 0..steps {
            let p = r(n) as usize;
            match r(8) {
                0..=2 => {
                    if let Some(q) = t.select(None, None) {
                        t.on_send(q, HwTime(0));
                    }
                }
                3 => {
                    let k = r(u64::from(t.paths[p].inflight) + 1);
                    t.on_acked(p, k, r(2), HwTime(0));
                }
                4 => {
                    if t.paths[p].inflight > 0 {
                        t.on_lost(p, step, step + 10);
                    }
                }
                5 => t.on_rtt(p, r(200_000)),
                6 => {
                    t.on_timeout(p, step);
                }
                _ => t.on_ecn(p, r(5) as u8, 4, step, step + 4),
            }
        }
        t.check_summary().unwrap();
        t
    }

    /// Distances back from `next` (1..=2^23: every PSN before `next`), small, any,
    /// and near the 2^23 edge.
    fn back_from_next() -> impl Strategy<Value = u32> {
        prop_oneof![1u32..=300, 1u32..=1 << 23, (1u32 << 23) - 300..=1 << 23]
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// `on_lost_batch(p, k, first, last, next)` leaves the table exactly as `k`
        /// `on_lost(p, psn, next)` calls do, for PSNs on the arc [first, last] before
        /// `next`, in any order, from random reachable states with the decrease point
        /// anywhere (around the arc's ends, inside it, anywhere in the PSN space), and
        /// returns the OR of their results; at most one of those calls returns true.
        #[test]
        fn lost_batch_equals_per_psn_sequence(
            seed in 0u64..1000,
            steps in 0u32..300,
            paths in 1u8..=16,
            fail_threshold in 1u32..=4,
            beta in 1u8..=100,
            p_pick in 0usize..16,
            next in 0u32..=SEQ_MASK,
            ds in prop::collection::vec(back_from_next(), 0..24),
            order in any::<u64>(),
            decreased_any in any::<bool>(),
            ldp_kind in 0u8..4,
            ldp_off in 0u32..=SEQ_MASK,
            inflight in 0u32..40,
        ) {
            let c = TransportConfig { paths, fail_threshold, loss_beta_pct: beta, cwnd_init: 16, cwnd_max: 64, ..Default::default() };
            let mut t = scrambled(&c, seed, steps);
            let p = p_pick % paths as usize;
            let psns: Vec<u32> = ds.iter().map(|&d| seq_add(next, SEQ_MASK + 1 - d)).collect();
            // first: farthest back from next; last: closest.
            let (dmax, dmin) = (ds.iter().copied().max().unwrap_or(1), ds.iter().copied().min().unwrap_or(1));
            let (first, last) = (seq_add(next, SEQ_MASK + 1 - dmax), seq_add(next, SEQ_MASK + 1 - dmin));
            let ldp = match ldp_kind {
                0 => ldp_off & SEQ_MASK,
                1 => seq_add(first, ldp_off % 64).wrapping_sub(32) & SEQ_MASK,
                2 => seq_add(last, ldp_off % 64).wrapping_sub(32) & SEQ_MASK,
                _ => seq_add(first, ldp_off % (dmax - dmin + 1)),
            };
            t.with_row(p, |x| {
                x.decreased_any = decreased_any;
                x.last_decrease_psn = ldp;
                x.inflight = inflight;
            });
            // A random order of the batch's PSNs.
            let mut psns = psns;
            let mut o = order;
            for i in (1..psns.len()).rev() {
                o = o.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                psns.swap(i, (o >> 33) as usize % (i + 1));
            }
            let mut seq = t.clone();
            let results: Vec<bool> = psns.iter().map(|&psn| seq.on_lost(p, psn, next)).collect();
            let mut batch = t.clone();
            let r = batch.on_lost_batch(p, psns.len() as u32, first, last, next);
            prop_assert!(results.iter().filter(|&&b| b).count() <= 1);
            prop_assert_eq!(r, results.iter().any(|&b| b));
            prop_assert_eq!(&batch, &seq);
            batch.check_summary().unwrap();
        }

        /// `loss_decreases(p, psn)` is exactly whether `on_lost(p, psn, next)` decreases
        /// the window now (the decrease point moves to `next`, one strike).
        #[test]
        fn loss_decreases_predicts_whether_on_lost_decreases(
            seed in 0u64..1000,
            steps in 0u32..300,
            p_pick in 0usize..4,
            psn in 0u32..=SEQ_MASK,
            near in any::<bool>(),
        ) {
            let c = TransportConfig { paths: 4, fail_threshold: 255, ..cfg() };
            let t = scrambled(&c, seed, steps);
            let p = p_pick;
            let x = &t.paths[p];
            let psn = if near { seq_add(x.last_decrease_psn, psn % 5).wrapping_sub(2) & SEQ_MASK } else { psn };
            let next = seq_add(x.last_decrease_psn, 1 << 22);
            let mut u = t.clone();
            u.on_lost(p, psn, next);
            let decreased = u.paths[p].strikes == x.strikes + 1 && u.paths[p].last_decrease_psn == next && u.paths[p].decreased_any;
            prop_assert_eq!(t.loss_decreases(p, psn), decreased);
        }

        /// `on_ack_path_psn` is the requester's former inline gate: fresh iff the path
        /// sent `path_psn` and it is the first report or not behind the highest; a fresh
        /// report becomes the highest; nothing else in the table changes, the summary's
        /// srtt holder included (the row is not written through `with_row`).
        #[test]
        fn ack_path_psn_is_fresh_iff_sent_and_not_behind_the_highest(
            seed in 0u64..1000,
            steps in 0u32..300,
            p_pick in 0usize..4,
            acked_any in any::<bool>(),
            npp in 0u32..=SEQ_MASK,
            hap_back in 0u32..600,
            pp_rel in 0u32..1200,
            far in any::<bool>(),
        ) {
            let c = TransportConfig { paths: 4, ..cfg() };
            let mut t = scrambled(&c, seed, steps);
            let p = p_pick;
            let hap = seq_add(npp, SEQ_MASK + 1 - hap_back);
            t.with_row(p, |x| {
                x.next_path_psn = npp;
                x.acked_any = acked_any;
                x.highest_acked_path_psn = hap;
            });
            // Reported path PSN: around the highest and the next path PSN, or anywhere.
            let path_psn = if far { seq_add(npp, pp_rel << 14) } else { seq_add(hap, pp_rel).wrapping_sub(600) & SEQ_MASK };
            // The former inline code (requester.rs, on_ack), on a copy.
            let mut want = t.clone();
            let x = &mut want.paths[p];
            let sent_last = seq_add(x.next_path_psn, SEQ_MASK);
            let fresh = !x.acked_any || seq_after_eq(path_psn, x.highest_acked_path_psn);
            let want_fresh = fresh && seq_after_eq(sent_last, path_psn);
            if want_fresh {
                x.acked_any = true;
                x.highest_acked_path_psn = path_psn;
            }
            prop_assert_eq!(t.on_ack_path_psn(p, path_psn), want_fresh);
            prop_assert_eq!(&t, &want);
        }

        /// `reset_conn(seed)` then `reset_row(p, isn)` for p = 0.. leaves any used table
        /// equal to `PathTable::new(cfg, seed, isn)`: same entropies (drawn in the same
        /// order, the old rows' entropies ignored), rows, summary, RNG and counters.
        #[test]
        fn reset_conn_then_reset_rows_in_order_equals_new(
            seed in 0u64..1000,
            steps in 0u32..300,
            paths in 1u8..=16,
            new_seed in any::<u64>(),
            isn in any::<u32>(),
        ) {
            let c = TransportConfig { paths, cwnd_init: 3, cwnd_max: 64, ..Default::default() };
            let mut t = scrambled(&c, seed, steps);
            t.reset_conn(new_seed);
            for p in 0..paths as usize {
                let e = t.reset_row(p, isn);
                prop_assert_eq!(e, t.paths[p].entropy);
                prop_assert!(e < 0x4000);
            }
            let want = PathTable::new(&c, new_seed, isn);
            prop_assert_eq!(&t, &want);
            t.check_summary().unwrap();
            // Afterwards it behaves as new: the next reroll draws the same entropy.
            let mut w = want.clone();
            t.fail(0);
            w.fail(0);
            prop_assert_eq!(&t, &w);
        }
    }

    /// The batch decision in the cases the property test must not miss: the decrease
    /// point inside the arc (a suffix of the batch passes it), before it (all pass),
    /// after `next`'s side (none pass); inflight saturates; k = 0 writes nothing.
    #[test]
    fn lost_batch_decreases_once_iff_first_or_last_passes_the_decrease_point() {
        let c = TransportConfig { fail_threshold: 2, ..cfg() };
        let set = |ldp: u32, inflight: u32| {
            let mut t = PathTable::new(&c, 1, 0);
            t.with_row(0, |x| {
                x.cwnd = 16 * ONE;
                x.inflight = inflight;
                x.decreased_any = true;
                x.last_decrease_psn = ldp;
            });
            t
        };
        // PSNs 100..=110, next 120.
        for (ldp, decrease) in [(105, true), (100, true), (90, true), (111, false), (120, false), (SEQ_MASK - 5, true)] {
            let mut t = set(ldp, 20);
            assert!(!t.on_lost_batch(0, 11, 100, 110, 120), "one strike of two");
            let x = &t.paths[0];
            assert_eq!((x.inflight, x.stat_lost), (9, 11));
            assert_eq!(x.cwnd == 8 * ONE && x.strikes == 1 && x.last_decrease_psn == 120, decrease, "ldp {ldp}");
            assert_eq!(x.cwnd == 16 * ONE && x.strikes == 0 && x.last_decrease_psn == ldp, !decrease, "ldp {ldp}");
        }
        // A second batch after the decrease does not decrease again.
        let mut t = set(105, 20);
        assert!(!t.on_lost_batch(0, 3, 104, 106, 120));
        assert!(!t.on_lost_batch(0, 3, 103, 119, 120));
        assert_eq!((t.paths[0].strikes, t.paths[0].cwnd), (1, 8 * ONE));
        // The strike that reaches fail_threshold is reported.
        t.with_row(0, |x| x.decreased_any = false);
        assert!(t.on_lost_batch(0, 2, 110, 111, 130));
        // Saturating inflight; k = 0 is no write at all.
        let mut t = set(105, 2);
        t.on_lost_batch(0, 5, 100, 104, 120);
        assert_eq!(t.paths[0].inflight, 0);
        let before = t.clone();
        assert!(!t.on_lost_batch(0, 0, 0, 0, 0));
        assert_eq!(t, before);
        t.check_summary().unwrap();
    }
}
