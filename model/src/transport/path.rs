//! Path table: the requester's per-path state and the functions that change it
//! (`docs/protocol.md` §6.2, §6.3, §6.7, §6.8, §6.9). This is the block model of the
//! hardware path table: one row per path id, read and written per packet sent, per
//! ACK and per timer.
//!
//! A path is a UDP source port (`0xC000 | entropy`): ECMP switches hash it, so one
//! entropy is one route. Per path the table keeps the congestion window (packets,
//! AIMD, DCTCP-style ECN response), packets in flight, RTT estimator and RTO, loss
//! strikes, the state (OK / SUSPECT / FAILED / PROBING) and the next path PSN.

use super::{seq_add, seq_after_eq, TransportConfig};
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

/// One row of the path table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// 14 bits; UDP source port `0xC000 | entropy`.
    pub entropy: u16,
    pub state: PathState,
    /// Path PSN of the next packet sent on this path (24 bits).
    pub next_path_psn: u32,
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Packets sent on this path, neither acknowledged nor declared lost.
    pub inflight: u32,
    /// RTT estimator (RFC 6298), ns; `srtt == 0` until the first sample.
    pub srtt: f64,
    pub rttvar: f64,
    /// DCTCP's estimate of the fraction of CE-marked packets.
    pub alpha: f64,
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
    /// RTO multiplier: doubles on each consecutive timeout, 1 after an acknowledgement.
    pub backoff: u32,
    /// Probe state (PROBING).
    pub probe_seq: u32,
    pub probe_sent_at: u64,
    pub probe_tries: u32,
    pub probe_due: bool,
    /// Statistics.
    pub stat_sent: u64,
    pub stat_lost: u64,
    pub stat_timeouts: u64,
    pub stat_rerolls: u64,
    pub stat_ecn_cuts: u64,
}

/// The path table of one connection.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PathTable {
    pub paths: Vec<Path>,
    /// Round-robin pointer: the last path a packet was sent on.
    pub rr: usize,
    rng: u64,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl PathTable {
    /// `paths` rows, each OK with a distinct random entropy drawn from `seed`, path
    /// PSNs starting at `path_isn`.
    pub fn new(cfg: &TransportConfig, seed: u64, path_isn: u32) -> Self {
        let mut t = PathTable { paths: Vec::with_capacity(cfg.paths as usize), rr: cfg.paths as usize - 1, rng: seed };
        for _ in 0..cfg.paths {
            let entropy = t.fresh_entropy();
            t.paths.push(Path {
                entropy,
                state: PathState::Ok,
                next_path_psn: path_isn & super::SEQ_MASK,
                cwnd: cfg.cwnd_init as f64,
                inflight: 0,
                srtt: 0.0,
                rttvar: 0.0,
                alpha: 1.0,
                ce_acc: 0,
                pkt_acc: 0,
                alpha_window_end: 0,
                highest_acked_path_psn: 0,
                acked_any: false,
                strikes: 0,
                last_decrease_psn: 0,
                decreased_any: false,
                backoff: 1,
                probe_seq: 0,
                probe_sent_at: 0,
                probe_tries: 0,
                probe_due: false,
                stat_sent: 0,
                stat_lost: 0,
                stat_timeouts: 0,
                stat_rerolls: 0,
                stat_ecn_cuts: 0,
            });
        }
        t
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// A random 14-bit entropy used by no other path.
    fn fresh_entropy(&mut self) -> u16 {
        loop {
            let e = (splitmix(&mut self.rng) & 0x3FFF) as u16;
            if !self.paths.iter().any(|p| p.entropy == e) {
                return e;
            }
        }
    }

    /// The path may carry a DATA packet now.
    pub fn can_send(&self, p: usize) -> bool {
        let x = &self.paths[p];
        matches!(x.state, PathState::Ok | PathState::Suspect) && (x.inflight as f64) < x.cwnd.floor().max(1.0)
    }

    /// Round robin from the path after the last one used. A retransmission passes the
    /// path it was lost on as `avoid`: that path is taken only when no other can send,
    /// and OK paths are preferred to SUSPECT ones. `plane`: only paths of that NIC
    /// plane (see [`Plane`]).
    pub fn select(&self, avoid: Option<usize>, plane: Option<Plane>) -> Option<usize> {
        let n = self.paths.len();
        let order = (1..=n).map(|k| (self.rr + k) % n).filter(|&p| plane.is_none_or(|pl| pl.has(p)));
        if avoid.is_none() {
            return order.into_iter().find(|&p| self.can_send(p));
        }
        let mut fallback = None;
        let mut suspect = None;
        for p in order {
            if !self.can_send(p) {
                continue;
            }
            if Some(p) == avoid {
                fallback = Some(p);
            } else if self.paths[p].state == PathState::Ok {
                return Some(p);
            } else if suspect.is_none() {
                suspect = Some(p);
            }
        }
        suspect.or(fallback)
    }

    /// A DATA packet leaves on `p`: returns its path PSN.
    pub fn on_send(&mut self, p: usize) -> u32 {
        self.rr = p;
        let x = &mut self.paths[p];
        let pp = x.next_path_psn;
        x.next_path_psn = seq_add(pp, 1);
        x.inflight += 1;
        x.stat_sent += 1;
        pp
    }

    /// A packet sent on `p` was acknowledged (it was in flight, not declared lost).
    pub fn on_acked_inflight(&mut self, p: usize, cfg: &TransportConfig) {
        let x = &mut self.paths[p];
        x.inflight = x.inflight.saturating_sub(1);
        Self::recovered(x);
        // Additive increase: one packet per window of acknowledgements.
        x.cwnd = (x.cwnd + 1.0 / x.cwnd).min(cfg.cwnd_max as f64);
    }

    /// A packet sent on `p` that had been declared lost was acknowledged after all.
    pub fn on_acked_lost(&mut self, p: usize) {
        Self::recovered(&mut self.paths[p]);
    }

    fn recovered(x: &mut Path) {
        if matches!(x.state, PathState::Ok | PathState::Suspect) {
            x.strikes = 0;
            x.backoff = 1;
            x.state = PathState::Ok;
        }
    }

    /// A packet in flight on `p` is declared lost (not a timeout): its window share
    /// is released; once per window of data the window is multiplied by
    /// `loss_beta_pct` / 100 and the path gets a strike. Returns true when the path reached `fail_threshold` strikes.
    pub fn on_lost(&mut self, p: usize, psn: u32, next_psn: u32, cfg: &TransportConfig) -> bool {
        let x = &mut self.paths[p];
        x.inflight = x.inflight.saturating_sub(1);
        x.stat_lost += 1;
        if !x.decreased_any || seq_after_eq(psn, x.last_decrease_psn) {
            x.decreased_any = true;
            x.last_decrease_psn = next_psn;
            x.cwnd = (x.cwnd * f64::from(cfg.loss_beta_pct) / 100.0).max(cfg.cwnd_min as f64);
            return Self::strike(x, cfg);
        }
        false
    }

    /// A packet declared lost because of a timeout (its window share is released; the
    /// strike and window reset are per timeout, [`PathTable::on_timeout`]).
    pub fn on_lost_by_timeout(&mut self, p: usize) {
        let x = &mut self.paths[p];
        x.inflight = x.inflight.saturating_sub(1);
        x.stat_lost += 1;
    }

    /// Releases a packet's window share without any congestion or health consequence
    /// (a NoRecvBuffer NAK: the packet arrived, the receiver was not ready).
    pub fn release(&mut self, p: usize) {
        let x = &mut self.paths[p];
        x.inflight = x.inflight.saturating_sub(1);
    }

    /// The path's RTO expired: window to the minimum, RTO doubled, one strike.
    /// Returns true when the path reached `fail_threshold` strikes.
    pub fn on_timeout(&mut self, p: usize, next_psn: u32, cfg: &TransportConfig) -> bool {
        let x = &mut self.paths[p];
        x.stat_timeouts += 1;
        x.cwnd = cfg.cwnd_min as f64;
        x.decreased_any = true;
        x.last_decrease_psn = next_psn;
        let max_backoff = (cfg.rto_max_ns / cfg.rto_min_ns).max(1) as u32;
        x.backoff = (x.backoff.saturating_mul(2)).min(max_backoff);
        Self::strike(x, cfg)
    }

    fn strike(x: &mut Path, cfg: &TransportConfig) -> bool {
        x.strikes += 1;
        if x.state == PathState::Ok {
            x.state = PathState::Suspect;
        }
        x.strikes >= cfg.fail_threshold
    }

    /// RTT sample (ns) for path `p` (RFC 6298 gains).
    pub fn on_rtt(&mut self, p: usize, sample: f64) {
        let x = &mut self.paths[p];
        if x.srtt == 0.0 {
            x.srtt = sample.max(1.0);
            x.rttvar = sample / 2.0;
        } else {
            x.rttvar = 0.75 * x.rttvar + 0.25 * (x.srtt - sample).abs();
            x.srtt = 0.875 * x.srtt + 0.125 * sample;
        }
    }

    /// The path's retransmission timeout, ns, backoff included.
    pub fn rto(&self, p: usize, cfg: &TransportConfig) -> u64 {
        let x = &self.paths[p];
        let base = if x.srtt == 0.0 {
            cfg.rto_init_ns
        } else {
            ((x.srtt + 4.0 * x.rttvar) as u64).clamp(cfg.rto_min_ns, cfg.rto_max_ns)
        };
        base.saturating_mul(u64::from(x.backoff)).min(cfg.rto_max_ns)
    }

    /// ECN sample from an ACK naming `p`: `ce` of `pkts` packets were marked. Once per
    /// window of data (when the cumulative PSN passes `alpha_window_end`) alpha is
    /// updated and, if anything was marked, the window shrinks by alpha/2 (at most once
    /// per window, shared with loss decreases).
    pub fn on_ecn(&mut self, p: usize, ce: u8, pkts: u8, cum_psn: u32, next_psn: u32, cfg: &TransportConfig) {
        let x = &mut self.paths[p];
        x.ce_acc += u32::from(ce.min(pkts));
        x.pkt_acc += u32::from(pkts);
        if seq_after_eq(cum_psn, x.alpha_window_end) {
            if x.pkt_acc > 0 {
                let g = 1.0 / f64::from(1u32 << cfg.dctcp_g_shift);
                let f = f64::from(x.ce_acc) / f64::from(x.pkt_acc);
                x.alpha = (1.0 - g) * x.alpha + g * f;
                if x.ce_acc > 0 && (!x.decreased_any || seq_after_eq(cum_psn, x.last_decrease_psn)) {
                    x.cwnd = (x.cwnd * (1.0 - x.alpha / 2.0)).max(cfg.cwnd_min as f64);
                    x.decreased_any = true;
                    x.last_decrease_psn = next_psn;
                    x.stat_ecn_cuts += 1;
                }
            }
            x.ce_acc = 0;
            x.pkt_acc = 0;
            x.alpha_window_end = next_psn;
        }
    }

    /// Fails `p`: a new entropy (so a new route), state PROBING with a probe due.
    /// The caller declares the path's packets in flight lost first.
    pub fn fail(&mut self, p: usize) {
        let e = self.fresh_entropy();
        let x = &mut self.paths[p];
        x.entropy = e;
        x.state = PathState::Failed;
        x.inflight = 0;
        x.probe_tries = 0;
        x.probe_due = true;
        x.stat_rerolls += 1;
    }

    /// A probe leaves on `p` now: returns its sequence number.
    pub fn on_probe_sent(&mut self, p: usize, now: u64) -> u32 {
        let x = &mut self.paths[p];
        x.state = PathState::Probing;
        x.probe_seq = x.probe_seq.wrapping_add(1);
        x.probe_sent_at = now;
        x.probe_due = false;
        x.probe_seq
    }

    /// The outstanding probe on `p` went unanswered for a probe interval: probe again,
    /// on a new entropy after `max_probes` tries.
    pub fn on_probe_timeout(&mut self, p: usize, cfg: &TransportConfig) {
        self.paths[p].probe_tries += 1;
        if self.paths[p].probe_tries >= cfg.max_probes {
            let e = self.fresh_entropy();
            let x = &mut self.paths[p];
            x.entropy = e;
            x.probe_tries = 0;
            x.stat_rerolls += 1;
        }
        self.paths[p].probe_due = true;
    }

    /// A PROBE_REPLY for `p`: accepted when it answers the outstanding probe on the
    /// current entropy. The path is OK again, with the mean window of the OK paths (at
    /// least `cwnd_init`) and the probe's RTT.
    pub fn on_probe_reply(&mut self, p: usize, seq: u32, port: u16, now: u64, cfg: &TransportConfig) -> bool {
        let x = &self.paths[p];
        if x.state != PathState::Probing || x.probe_due || seq != x.probe_seq || port != 0xC000 | x.entropy {
            return false;
        }
        // The new route starts with the window the connection's healthy paths have now
        // (they reflect the fabric's state), at least cwnd_init.
        let ok: Vec<f64> = self.paths.iter().filter(|y| y.state == PathState::Ok).map(|y| y.cwnd).collect();
        let mean = if ok.is_empty() { 0.0 } else { ok.iter().sum::<f64>() / ok.len() as f64 };
        let x = &mut self.paths[p];
        x.state = PathState::Ok;
        x.strikes = 0;
        x.backoff = 1;
        x.cwnd = mean.max(cfg.cwnd_init as f64);
        x.inflight = 0;
        x.srtt = (now.saturating_sub(x.probe_sent_at) as f64).max(1.0);
        x.rttvar = x.srtt / 2.0;
        x.decreased_any = false;
        true
    }

    /// Probe interval of `p`: its RTO.
    pub fn probe_deadline(&self, p: usize, cfg: &TransportConfig) -> Option<u64> {
        let x = &self.paths[p];
        (x.state == PathState::Probing && !x.probe_due).then(|| x.probe_sent_at.saturating_add(self.rto(p, cfg)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TransportConfig {
        TransportConfig { paths: 4, cwnd_init: 2, loss_beta_pct: 50, ..Default::default() }
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
    }

    #[test]
    fn round_robin_skips_full_and_failed_paths() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        let mut order = vec![];
        while let Some(p) = t.select(None, None) {
            t.on_send(p);
            order.push(p);
        }
        assert_eq!(order, vec![0, 1, 2, 3, 0, 1, 2, 3]);
        t.on_acked_inflight(2, &c);
        t.fail(1);
        assert_eq!(t.select(None, None), Some(2));
        assert!(!t.can_send(1));
    }

    #[test]
    fn a_retransmission_avoids_its_lossy_path_and_prefers_ok_paths() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.paths[1].state = PathState::Suspect;
        t.rr = 3; // next in order: 0, 1, 2, 3
        assert_eq!(t.select(Some(0), None), Some(2));
        for p in [2, 3] {
            t.paths[p].inflight = 2;
        }
        assert_eq!(t.select(Some(0), None), Some(1), "a suspect path beats the avoided one");
        t.paths[1].inflight = 2;
        assert_eq!(t.select(Some(0), None), Some(0), "the avoided path when nothing else can send");
        let odd = Plane { plane: 1, planes: 2 };
        t.paths[1].inflight = 0;
        assert_eq!(t.select(Some(0), Some(odd)), Some(1), "only paths of the plane");
        t.paths[1].inflight = 2;
        assert_eq!(t.select(Some(0), Some(odd)), None, "no path of plane 1 can send");
    }

    #[test]
    fn one_window_decrease_per_window_and_failure_after_three_strikes() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.paths[0].cwnd = 16.0;
        t.paths[0].inflight = 10;
        assert!(!t.on_lost(0, 5, 20, &c));
        assert!(!t.on_lost(0, 6, 20, &c), "psn 6 was sent before the decrease");
        assert_eq!(t.paths[0].cwnd, 8.0);
        assert_eq!(t.paths[0].strikes, 1);
        assert_eq!(t.paths[0].state, PathState::Suspect);
        assert!(!t.on_lost(0, 20, 30, &c), "psn 20 was sent after it");
        assert!(t.on_lost(0, 31, 40, &c), "third strike fails the path");
        t.on_acked_inflight(0, &c);
        assert_eq!(t.paths[0].strikes, 0);
        assert_eq!(t.paths[0].state, PathState::Ok);
    }

    #[test]
    fn timeouts_double_the_rto_up_to_rto_max() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        assert_eq!(t.rto(0, &c), c.rto_init_ns);
        t.on_rtt(0, 10_000.0);
        assert_eq!(t.rto(0, &c), c.rto_min_ns, "10 + 4*5 us is below rto_min");
        t.on_timeout(0, 0, &c);
        assert_eq!(t.rto(0, &c), 2 * c.rto_min_ns);
        for _ in 0..40 {
            t.on_timeout(0, 0, &c);
        }
        assert_eq!(t.rto(0, &c), c.rto_max_ns);
    }

    #[test]
    fn ecn_marks_shrink_the_window_by_alpha_over_two_once_per_window() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.paths[0].cwnd = 40.0;
        t.on_ecn(0, 4, 4, 0, 100, &c); // closes window 0: alpha = 15/16 + 1/16 = 1
        assert_eq!(t.paths[0].alpha, 1.0);
        assert_eq!(t.paths[0].cwnd, 20.0);
        t.on_ecn(0, 4, 4, 50, 120, &c); // window runs to psn 100: accumulate only
        assert_eq!(t.paths[0].cwnd, 20.0);
        t.on_ecn(0, 0, 8, 100, 140, &c); // closes window 1: F = 4/12
        let alpha = 15.0 / 16.0 + 1.0 / 16.0 / 3.0;
        assert!((t.paths[0].alpha - alpha).abs() < 1e-12);
        assert!((t.paths[0].cwnd - 20.0 * (1.0 - alpha / 2.0)).abs() < 1e-9);
    }

    #[test]
    fn a_probe_reply_must_match_the_sequence_and_the_current_port() {
        let c = cfg();
        let mut t = PathTable::new(&c, 1, 0);
        t.fail(2);
        let s = t.on_probe_sent(2, 1000);
        let port = 0xC000 | t.paths[2].entropy;
        assert!(!t.on_probe_reply(2, s + 1, port, 5000, &c));
        assert!(!t.on_probe_reply(2, s, port ^ 1, 5000, &c));
        assert!(t.on_probe_reply(2, s, port, 5000, &c));
        assert_eq!(t.paths[2].state, PathState::Ok);
        assert_eq!(t.paths[2].srtt, 4000.0);
    }
}
