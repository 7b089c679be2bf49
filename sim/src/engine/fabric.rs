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
    pub(super) frame: F,
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
}

#[derive(Clone, Copy, Debug)]
pub(super) enum LinkAction {
    Blackhole,
    Fail,
    Recover,
    DropNext(u32),
    Route(bool),
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
        s.busy_until <= self.now && !s.txdone_pending
    }


    pub(super) fn transmit(&mut self, l: u32, pkt: Pkt<F>) {
        let ser = ((pkt.bytes + self.ifg) as f64 * self.ps_per_byte).round() as u64;
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
        } else if info.loss > 0.0 && self.rng.chance(info.loss) {
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
        if src < self.topo.hosts {
            let p = self.topo.links[l as usize].plane;
            self.pull(src, p, l);
        } else if let Some(pkt) = self.queues[l as usize].pop_front() {
            self.links[l as usize].qbytes -= pkt.bytes as u64;
            self.transmit(l, pkt);
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
        match out {
            Some(o) => self.enqueue(o, pkt),
            None => self.links[l as usize].drops.no_route += 1,
        }
    }

    pub(super) fn enqueue(&mut self, l: u32, mut pkt: Pkt<F>) {
        let idle = self.idle(l);
        let st = &mut self.links[l as usize];
        let b = pkt.bytes as u64;
        if st.qbytes + b > self.buffer {
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
            self.transmit(l, pkt);
            return;
        }
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
