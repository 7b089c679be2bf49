//! Hosts: each host has one egress link per plane. When one is idle, the engine pulls a
//! frame from the host's ready endpoints round robin (see [`crate::transport`] for the
//! endpoint contract); endpoint timers are rescheduled after every call into an endpoint.
//! The application side lives here too: messages are posted at the workload start and
//! on completions (long flows keep two messages outstanding, finite flows post them all,
//! the ring all-reduce passes each chunk on), delivered bytes are binned, per-host
//! receive load feeds the receiver rate hint, and the run is done when every finite flow
//! (or every ring host) has completed.

use std::collections::VecDeque;

use crate::traffic::Plan;
use crate::transport::{BoxEndpoint, Completion, CompletionKind};

use super::events::Ev;
use super::fabric::Pkt;
use super::Sim;

pub(super) struct EpSlot<F> {
    pub(super) ep: BoxEndpoint<F>,
    pub(super) host: u32,
    pub(super) conn: u32,
    pub(super) side: u8,
    pub(super) ready: u8,
    pub(super) timer_at: u64,
    pub(super) timer_gen: u32,
    pub(super) fired_at: u64,
    pub(super) delivered: u64,
    pub(super) sport: u16,
    pub(super) plane: u8,
}

pub(super) struct HostState {
    pub(super) rq: Vec<VecDeque<u32>>,
    pub(super) eps: Vec<u32>,
    pub(super) rx_active: u32,
}

pub(super) struct App {
    pub(super) plan: Plan,
    pub(super) unlimited: Vec<bool>,
    pub(super) msg_bytes: Vec<u64>,
    pub(super) posted: Vec<u64>,
    pub(super) received: Vec<u64>,
    pub(super) target: Vec<u64>,
    pub(super) fct: Vec<Option<u64>>,
    pub(super) ring_recv: Vec<u32>,
    pub(super) ring_steps: u32,
    pub(super) remaining: usize,
    pub(super) done_at: Option<u64>,
    /// Start of each connection, ps (later than the workload's with `traffic.flow_start_us`).
    pub(super) conn_start: Vec<u64>,
}

impl<F: 'static> Sim<F> {
    pub(super) fn on_start(&mut self) {
        let n = self.app.posted.len();
        for c in 0..n {
            if self.app.conn_start[c] <= self.start_ps {
                self.post_initial(c);
            }
        }
        self.flush();
    }

    pub(super) fn on_start_conn(&mut self, c: u32) {
        self.post_initial(c as usize);
        self.flush();
    }

    fn post_initial(&mut self, c: usize) {
        {
            let k = match &self.app.plan {
                Plan::Flows(_) if self.app.unlimited[c] => 2,
                Plan::Flows(_) => self.app.target[c],
                Plan::Ring { .. } => 1,
            };
            for _ in 0..k {
                self.post(c as u32);
            }
        }
    }

    pub(super) fn post(&mut self, c: u32) {
        let bytes = self.app.msg_bytes[c as usize];
        self.posts.push((2 * c, bytes));
        let ci = c as usize;
        self.app.posted[ci] += 1;
        if self.app.posted[ci] - self.app.received[ci] == 1 {
            let h = self.eps[2 * ci + 1].host;
            self.hosts[h as usize].rx_active += 1;
            self.load_changed(h);
        }
    }

    pub(super) fn load_changed(&mut self, h: u32) {
        if !self.rate_hint {
            return;
        }
        let n = self.hosts[h as usize].rx_active;
        for i in 0..self.hosts[h as usize].eps.len() {
            let e = self.hosts[h as usize].eps[i];
            self.eps[e as usize].ep.set_host_load(n);
            self.dirty.push(e);
        }
    }

    /// Bring every endpoint touched by the current event up to date.
    pub(super) fn flush(&mut self) {
        loop {
            if let Some((e, bytes)) = self.posts.pop() {
                let now = self.now_ns();
                self.eps[e as usize].ep.post_message(now, bytes);
                self.dirty.push(e);
                continue;
            }
            let Some(e) = self.dirty.pop() else { break };
            self.account(e);
            self.resched_timer(e);
            self.mark_ready(e);
            if self.posts.is_empty() {
                let h = self.eps[e as usize].host;
                self.pull_host(h);
            }
        }
    }

    pub(super) fn account(&mut self, e: u32) {
        let slot = &mut self.eps[e as usize];
        let d = slot.ep.delivered_bytes();
        debug_assert!(d >= slot.delivered, "delivered_bytes went backwards");
        let delta = d.saturating_sub(slot.delivered);
        slot.delivered = d;
        let conn = slot.conn as usize;
        let side = slot.side;
        if delta > 0 {
            self.flow_bytes[conn] += delta;
            let b = ((self.now / self.bin_ps) as usize).min(self.bins.len() - 1);
            self.bins[b] += delta;
            if let Some(fb) = self.flow_bins.as_mut() {
                fb[conn][b] += delta;
            }
        }
        self.comp.clear();
        let mut comp = std::mem::take(&mut self.comp);
        self.eps[e as usize].ep.take_completions(&mut comp);
        for c in comp.iter() {
            self.on_completion(conn as u32, side, *c);
        }
        self.comp = comp;
    }

    pub(super) fn on_completion(&mut self, c: u32, side: u8, comp: Completion) {
        let ci = c as usize;
        match comp.kind {
            CompletionKind::Sent => {
                if side == 0 && self.app.unlimited[ci] && self.app.done_at.is_none() {
                    self.post(c);
                }
            }
            CompletionKind::Received => {
                self.app.received[ci] += 1;
                let dst = self.eps[2 * ci + 1].host;
                if self.app.received[ci] == self.app.posted[ci] {
                    let h = &mut self.hosts[dst as usize];
                    h.rx_active = h.rx_active.saturating_sub(1);
                    self.load_changed(dst);
                }
                // a flow's completion time counts from its own start
                let since = self.now.saturating_sub(self.app.conn_start[ci]) / 1000;
                match self.app.plan {
                    Plan::Flows(_) => {
                        if !self.app.unlimited[ci] && self.app.received[ci] == self.app.target[ci] {
                            self.app.fct[ci] = Some(since);
                            self.app.remaining -= 1;
                        }
                    }
                    Plan::Ring { hosts, .. } => {
                        let h = dst as usize;
                        self.app.ring_recv[h] += 1;
                        if self.app.ring_recv[h] < self.app.ring_steps {
                            self.post(dst); // connection `dst` sends from host dst to its successor
                        } else {
                            self.app.fct[(h + hosts as usize - 1) % hosts as usize] = Some(since);
                            self.app.remaining -= 1;
                        }
                    }
                }
                if self.app.remaining == 0 && self.app.done_at.is_none() && !self.app.unlimited.iter().any(|&u| u) {
                    self.app.done_at = Some(self.now);
                }
            }
        }
    }

    pub(super) fn resched_timer(&mut self, e: u32) {
        let now = self.now;
        let slot = &mut self.eps[e as usize];
        let at = match slot.ep.next_wakeup() {
            Some(ns) => {
                let mut t = ns.saturating_mul(1000).max(now);
                if t == now && slot.fired_at == now {
                    t = now + 1000; // a timer that keeps asking for "now" advances by 1 ns
                }
                t
            }
            None => u64::MAX,
        };
        if at != slot.timer_at {
            slot.timer_at = at;
            slot.timer_gen = slot.timer_gen.wrapping_add(1);
            let g = slot.timer_gen;
            if at != u64::MAX {
                self.push(at, Ev::Timer(e, g));
            }
        }
    }

    pub(super) fn on_timer(&mut self, e: u32, g: u32) {
        let now = self.now_ns();
        let slot = &mut self.eps[e as usize];
        if slot.timer_gen != g {
            return;
        }
        slot.timer_at = u64::MAX;
        slot.fired_at = self.now;
        slot.ep.on_timer(now);
        self.dirty.push(e);
        self.flush();
    }

    pub(super) fn mark_ready(&mut self, e: u32) {
        let slot = &mut self.eps[e as usize];
        let all = ((1u16 << self.topo.planes) - 1) as u8;
        let missing = all & !slot.ready;
        if missing == 0 {
            return;
        }
        slot.ready |= missing;
        let h = &mut self.hosts[slot.host as usize];
        for p in 0..self.topo.planes {
            if missing & (1 << p) != 0 {
                h.rq[p as usize].push_back(e);
            }
        }
    }


    pub(super) fn pull_host(&mut self, h: u32) {
        for p in 0..self.topo.planes {
            let l = self.topo.host_link(h, p);
            if self.idle(l) {
                self.pull(h, p, l);
            }
        }
    }

    pub(super) fn pull(&mut self, h: u32, p: u8, l: u32) {
        let now = self.now_ns();
        let bit = 1u8 << p;
        let n = self.hosts[h as usize].rq[p as usize].len();
        for _ in 0..n {
            let Some(e) = self.hosts[h as usize].rq[p as usize].pop_front() else { break };
            let slot = &mut self.eps[e as usize];
            if slot.ready & bit == 0 {
                continue;
            }
            match slot.ep.poll_tx(now, p) {
                Some((frame, meta)) => {
                    slot.sport = meta.sport;
                    slot.plane = p;
                    let peer = e ^ 1;
                    let dst = self.eps[peer as usize].host;
                    self.hosts[h as usize].rq[p as usize].push_back(e);
                    let pkt = Pkt {
                        src: h,
                        dst,
                        dst_ep: peer,
                        sport: meta.sport,
                        plane: p,
                        ect: meta.ect,
                        ce: false,
                        bytes: meta.bytes,
                        ingress: super::fabric::NO_LINK,
                        frame,
                    };
                    self.transmit(l, pkt);
                    self.resched_timer(e);
                    return;
                }
                None => {
                    slot.ready &= !bit;
                    self.resched_timer(e);
                }
            }
        }
    }
}
