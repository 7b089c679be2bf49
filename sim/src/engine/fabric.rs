//! Links and switches: store-and-forward switches with one FIFO output queue per port. A
//! frame arriving at a switch is routed ([`Topology::route`], ECMP on the UDP 5-tuple
//! with failed links routed around once detected), ECN-marked per
//! [`crate::config::EcnSpec`], tail-dropped if the queue would exceed `buffer_bytes`, and
//! serialized when the port is free. Loss, blackholes, failed links and scripted
//! `drop_next` drop a frame when it starts serialization (it still occupies the link).
//! Random draws come from one seeded xoshiro256++ in event order. Also here: per-frame
//! serialization time and the unloaded RTT of a fabric.

use crate::config::FabricSpec;
use crate::topology::{FlowKey, Topology};

use super::events::Ev;
use super::report::DropStats;
use super::Sim;

/// Frame bytes of a full data frame on top of the MTU payload (RoCEv2: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4).
pub const DATA_OVERHEAD: u32 = 62;
/// Frame bytes of an ACK (RoCEv2 with AETH).
pub const ACK_BYTES: u32 = 66;

pub(super) struct Pkt<F> {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) dst_ep: u32,
    pub(super) sport: u16,
    pub(super) plane: u8,
    pub(super) ect: bool,
    pub(super) ce: bool,
    pub(super) bytes: u32,
    /// PFC: the switch ingress link the frame is queued from (`NO_LINK` otherwise).
    pub(super) ingress: u32,
    pub(super) frame: F,
}

/// No ingress link.
pub(super) const NO_LINK: u32 = u32::MAX;

/// PFC run state: per link, the bytes from it waiting in its receiving switch's queues.
pub(super) struct PfcState {
    pub(super) xoff: u64,
    pub(super) xon: u64,
    pub(super) headroom: Vec<u64>,
    pub(super) ingress_bytes: Vec<u64>,
    pub(super) pause_sent: Vec<bool>,
    pub(super) pauses: u64,
}

#[derive(Clone, Default)]
pub(super) struct LinkState {
    pub(super) qbytes: u64,
    pub(super) busy_until: u64,
    pub(super) txdone_pending: bool,
    pub(super) blackhole: bool,
    pub(super) failed: bool,
    pub(super) drop_next: u32,
    pub(super) tx_frames: u64,
    pub(super) tx_bytes: u64,
    pub(super) peak: u64,
    pub(super) drops: DropStats,
    pub(super) marks: u64,
    /// PFC: the receiver of this link has paused it.
    pub(super) paused: bool,
    /// Gilbert-Elliott: the link's loss chain is in the bad state.
    pub(super) ge_bad: bool,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum LinkAction {
    Blackhole,
    Fail,
    Recover,
    DropNext(u32),
    Route(bool),
}

/// One frame of a Gilbert-Elliott chain with long-run loss `loss`, bad-state loss `h` and
/// exit probability `r` ([`crate::config::LossModel::GilbertElliott`]): advance the state,
/// then say whether the frame is lost.
pub(super) fn ge_step(bad: &mut bool, loss: f64, h: f64, r: f64, rng: &mut crate::rng::Xoshiro256) -> bool {
    let enter = r * loss / (h - loss);
    *bad = if *bad { !rng.chance(r) } else { rng.chance(enter) };
    *bad && rng.chance(h)
}

/// Serialization time of `bytes` at `bps`, ps.
pub fn ser_ps(bytes: u64, bps: u64) -> u64 {
    (bytes as f64 * 8e12 / bps as f64).round() as u64
}

/// Unloaded RTT across `hops` links: an MTU data frame out, an ACK back, ns.
pub fn base_rtt_ns(topo: &Topology, fab: &FabricSpec) -> u64 {
    let hops = topo.max_hops as u64;
    let fabric_hops = hops.saturating_sub(2);
    let delays = 2 * fab.host_link_delay_ns * 1000 + fabric_hops * fab.fabric_link_delay_ns * 1000;
    let bps = fab.link_bps();
    let data = ser_ps((fab.mtu + DATA_OVERHEAD + fab.ifg_bytes) as u64, bps);
    let ack = ser_ps((ACK_BYTES + fab.ifg_bytes) as u64, bps);
    (2 * delays + hops * (data + ack)).div_ceil(1000)
}

impl<F: 'static> Sim<F> {
    #[inline]
    pub(super) fn idle(&self, l: u32) -> bool {
        let s = &self.links[l as usize];
        s.busy_until <= self.now && !s.txdone_pending && !s.paused
    }

    /// Does the loss model drop a frame starting on link `l` (loss rate `loss` > 0)?
    fn lose(&mut self, l: u32, loss: f64) -> bool {
        match self.ge {
            None => self.rng.chance(loss),
            Some((h, r)) => ge_step(&mut self.links[l as usize].ge_bad, loss, h, r, &mut self.rng),
        }
    }


    pub(super) fn transmit(&mut self, l: u32, pkt: Pkt<F>) {
        let ser = ((pkt.bytes + self.ifg) as f64 * self.ps_per_byte).round() as u64;
        let loss = self.topo.links[l as usize].loss;
        let lost = loss > 0.0 && !self.links[l as usize].blackhole && !self.links[l as usize].failed
            && self.links[l as usize].drop_next == 0 && self.lose(l, loss);
        let info = &self.topo.links[l as usize];
        let st = &mut self.links[l as usize];
        st.busy_until = self.now + ser;
        st.tx_frames += 1;
        st.tx_bytes += pkt.bytes as u64;
        let dropped = if st.blackhole || st.failed {
            st.drops.failed += 1;
            true
        } else if st.drop_next > 0 {
            st.drop_next -= 1;
            st.drops.failed += 1;
            true
        } else if lost {
            st.drops.random += 1;
            true
        } else {
            false
        };
        let busy_until = st.busy_until;
        let host_src = info.src < self.topo.hosts;
        let arrive = busy_until + info.delay_ps;
        debug_assert_eq!(pkt.plane, info.plane);
        if !dropped {
            self.pipes[l as usize].push_back(pkt);
            self.push(arrive, Ev::Arrive(l));
        }
        if host_src || !self.queues[l as usize].is_empty() {
            self.links[l as usize].txdone_pending = true;
            self.push(busy_until, Ev::TxDone(l));
        }
    }

    pub(super) fn on_txdone(&mut self, l: u32) {
        self.links[l as usize].txdone_pending = false;
        let src = self.topo.links[l as usize].src;
        if self.links[l as usize].paused {
            // PFC: the next frame waits for RESUME
        } else if src < self.topo.hosts {
            let p = self.topo.links[l as usize].plane;
            self.pull(src, p, l);
        } else if let Some(mut pkt) = self.queues[l as usize].pop_front() {
            self.links[l as usize].qbytes -= pkt.bytes as u64;
            self.pfc_release(&mut pkt);
            self.transmit(l, pkt);
        }
    }

    /// PFC: a frame leaves its switch's queues; RESUME its ingress link at XON.
    fn pfc_release(&mut self, pkt: &mut Pkt<F>) {
        let i = std::mem::replace(&mut pkt.ingress, NO_LINK);
        let Some(pfc) = self.pfc.as_mut() else { return };
        if i == NO_LINK {
            return;
        }
        let ib = &mut pfc.ingress_bytes[i as usize];
        *ib -= pkt.bytes as u64;
        if pfc.pause_sent[i as usize] && *ib <= pfc.xon {
            pfc.pause_sent[i as usize] = false;
            let at = self.now + self.topo.links[i as usize].delay_ps;
            self.push(at, Ev::Pause(i, false));
        }
    }

    /// PFC: PAUSE / RESUME reaches the sender of link `l`.
    pub(super) fn on_pause(&mut self, l: u32, on: bool) {
        let st = &mut self.links[l as usize];
        st.paused = on;
        if on || st.txdone_pending {
            return;
        }
        if st.busy_until > self.now {
            st.txdone_pending = true;
            let t = st.busy_until;
            self.push(t, Ev::TxDone(l));
        } else {
            self.on_txdone(l);
        }
    }

    pub(super) fn on_arrive(&mut self, l: u32) {
        let pkt = self.pipes[l as usize].pop_front().expect("arrival without a frame in the pipe");
        let node = self.topo.links[l as usize].dst;
        if node < self.topo.hosts {
            let e = pkt.dst_ep;
            debug_assert_eq!(self.eps[e as usize].host, node);
            let now = self.now_ns();
            self.eps[e as usize].ep.on_frame(now, pkt.frame, pkt.ce);
            self.dirty.push(e);
            self.flush();
            return;
        }
        let key = FlowKey::udp(pkt.src, pkt.dst, pkt.sport);
        let out = self.topo.route(node, pkt.dst, &key, &self.routed_down, self.n_routed_down > 0, &mut self.scratch);
        let mut pkt = pkt;
        pkt.ingress = l;
        match out {
            Some(o) => self.enqueue(o, pkt),
            None => self.links[l as usize].drops.no_route += 1,
        }
    }

    pub(super) fn enqueue(&mut self, l: u32, mut pkt: Pkt<F>) {
        let idle = self.idle(l);
        let b = pkt.bytes as u64;
        let i = pkt.ingress;
        if let Some(pfc) = self.pfc.as_ref() {
            if i != NO_LINK && pfc.ingress_bytes[i as usize] + b > pfc.xoff + pfc.headroom[i as usize] {
                self.links[l as usize].drops.buffer += 1;
                return;
            }
        }
        let st = &mut self.links[l as usize];
        if self.pfc.is_none() && st.qbytes + b > self.buffer {
            st.drops.buffer += 1;
            return;
        }
        if pkt.ect && !pkt.ce {
            let p = self.ecn.mark_probability(st.qbytes);
            if p >= 1.0 || (p > 0.0 && self.rng.next_f64() < p) {
                pkt.ce = true;
                st.marks += 1;
            }
        }
        if idle {
            debug_assert!(self.queues[l as usize].is_empty());
            pkt.ingress = NO_LINK;
            self.transmit(l, pkt);
            return;
        }
        if let Some(pfc) = self.pfc.as_mut() {
            if i != NO_LINK {
                pfc.ingress_bytes[i as usize] += b;
                if !pfc.pause_sent[i as usize] && pfc.ingress_bytes[i as usize] > pfc.xoff {
                    pfc.pause_sent[i as usize] = true;
                    pfc.pauses += 1;
                    let at = self.now + self.topo.links[i as usize].delay_ps;
                    self.push(at, Ev::Pause(i, true));
                }
            }
        }
        let st = &mut self.links[l as usize];
        st.qbytes += b;
        st.peak = st.peak.max(st.qbytes);
        let bi = ((self.now / self.bin_ps) as usize).min(self.qbins.len() - 1);
        self.qbins[bi] = self.qbins[bi].max(st.qbytes);
        let busy_until = st.busy_until;
        let need_txdone = !st.txdone_pending;
        st.txdone_pending = true;
        self.queues[l as usize].push_back(pkt);
        if need_txdone {
            self.push(busy_until.max(self.now), Ev::TxDone(l));
        }
    }

    pub(super) fn on_link_action(&mut self, i: u32) {
        let (ids, a) = self.actions[i as usize].clone();
        for l in ids {
            let st = &mut self.links[l as usize];
            match a {
                LinkAction::Blackhole => st.blackhole = true,
                LinkAction::Fail => st.failed = true,
                LinkAction::Recover => {
                    st.blackhole = false;
                    st.failed = false;
                }
                LinkAction::DropNext(n) => st.drop_next += n,
                LinkAction::Route(down) => {
                    let r = &mut self.routed_down[l as usize];
                    if *r != down {
                        *r = down;
                        if down {
                            self.n_routed_down += 1;
                        } else {
                            self.n_routed_down -= 1;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ge_step;

    #[test]
    fn gilbert_elliott_has_the_long_run_rate_and_bursts() {
        let mut rng = crate::rng::Xoshiro256::seed_from_u64(3);
        let (n, loss, h, r) = (2_000_000, 0.01, 0.5, 0.1);
        let mut bad = false;
        let (mut lost, mut after_loss, mut lost_after_loss, mut prev) = (0u64, 0u64, 0u64, false);
        for _ in 0..n {
            let l = ge_step(&mut bad, loss, h, r, &mut rng);
            lost += l as u64;
            if prev {
                after_loss += 1;
                lost_after_loss += l as u64;
            }
            prev = l;
        }
        let rate = lost as f64 / n as f64;
        assert!((rate - loss).abs() < 0.05 * loss, "long-run loss {rate}");
        // P(loss | previous frame lost) = h (1 - r) = 0.45, against 0.01 for Bernoulli
        let cond = lost_after_loss as f64 / after_loss as f64;
        assert!((cond - 0.45).abs() < 0.03, "P(loss | loss) = {cond}");
    }
}
