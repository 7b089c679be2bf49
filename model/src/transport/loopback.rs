//! A two-end test network: two [`Qp`]s joined by a link in each direction, with
//! seeded loss, duplication, per-route delay (so paths reorder against each other),
//! per-packet jitter (so packets can reorder within a path too) and route failures.
//! It drives the property tests, `mrnic pcap` and the transport benchmark; the
//! network simulator (`sim/`) is the full fabric.
//!
//! A frame's route is a hash of its UDP source port (ECMP): the ACK for a packet
//! reuses the packet's source port, so it takes the same route back, and a failed
//! route drops both directions. Each link serializes frames at `link_gbps`.

use super::qp::Qp;
use super::requester::{Completion, TxStats};
use super::responder::{RecvCompletion, RxStats};
use crate::time::{HwClock, HwTime};
use crate::wire::{self, Frame};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A route that drops everything during `[from_ns, until_ns)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteFailure {
    pub route: u32,
    pub from_ns: u64,
    pub until_ns: u64,
}

/// The test network's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    pub link_gbps: f64,
    /// One-way propagation delay of route 0.
    pub delay_ns: u64,
    /// Route `r` adds `r * route_spread_ns`.
    pub route_spread_ns: u64,
    /// Uniform random extra delay per frame, `[0, jitter_ns]`.
    pub jitter_ns: u64,
    /// Distinct routes the source ports hash onto.
    pub routes: u32,
    /// Probability that a frame is lost, and that it is delivered twice.
    pub loss: f64,
    pub dup: f64,
    pub failures: Vec<RouteFailure>,
    /// Routes whose switches mark every ECT frame CE (a congested hop).
    pub ce_routes: Vec<u32>,
    /// Encode every frame to bytes and decode it back before delivery.
    pub through_bytes: bool,
    pub seed: u64,
    /// What the ends' hardware time counters read at network time 0 (tests start near
    /// 2^32 to cross the counter's wrap).
    pub time_offset: u32,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            link_gbps: 100.0,
            delay_ns: 2_000,
            route_spread_ns: 300,
            jitter_ns: 0,
            routes: 8,
            loss: 0.0,
            dup: 0.0,
            failures: Vec::new(),
            ce_routes: Vec::new(),
            through_bytes: false,
            seed: 1,
            time_offset: 0,
        }
    }
}

/// Which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    A,
    B,
}

/// A frame as the tap at the sender saw it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Captured {
    pub t_ns: u64,
    pub from: Side,
    /// The network dropped it (random loss or a failed route).
    pub dropped: bool,
    pub frame: Frame,
}

/// Network counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetStats {
    pub frames: u64,
    pub lost: u64,
    pub blackholed: u64,
    pub duplicated: u64,
    pub bytes: u64,
    pub events: u64,
}

/// The result of a run (serde: the property tests print it on failure).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub finished: bool,
    pub end_ns: u64,
    pub completions: Vec<Completion>,
    pub recv_completions: Vec<RecvCompletion>,
    pub a_tx: TxStats,
    pub b_rx: RxStats,
    pub net: NetStats,
}

#[derive(Debug)]
enum Ev {
    Arrive(Side, Box<Frame>),
    LinkFree(Side),
    Timer(Side, u64),
}

/// The two ends and the network between them.
pub struct Loopback {
    pub a: Qp,
    pub b: Qp,
    pub net: NetConfig,
    pub now: u64,
    rng: StdRng,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    evs: Vec<Option<Ev>>,
    free_evs: Vec<usize>,
    seq: u64,
    link_busy: [bool; 2],
    timer_gen: [u64; 2],
    timer_at: [Option<HwTime>; 2],
    /// Network ns -> the ends' hardware time (`cycle_ns` of end A's configuration).
    clock: HwClock,
    /// Set to `Some` to record every frame at its sender.
    pub capture: Option<Vec<Captured>>,
    pub stats: NetStats,
    pub completions: Vec<Completion>,
    pub recv_completions: Vec<RecvCompletion>,
}

fn idx(s: Side) -> usize {
    match s {
        Side::A => 0,
        Side::B => 1,
    }
}
fn other(s: Side) -> Side {
    match s {
        Side::A => Side::B,
        Side::B => Side::A,
    }
}

/// ECMP: the route a source port hashes onto.
pub fn route_of(sport: u16, routes: u32) -> u32 {
    let h = u32::from(sport).wrapping_mul(0x9E37_79B1).rotate_left(13).wrapping_mul(0x85EB_CA77);
    (h >> 8) % routes.max(1)
}

impl Loopback {
    pub fn new(a: Qp, b: Qp, net: NetConfig) -> Self {
        let rng = StdRng::seed_from_u64(net.seed);
        let clock = HwClock::new(u32::from(a.cfg.cycle_ns), net.time_offset);
        Self {
            clock,
            a,
            b,
            net,
            now: 0,
            rng,
            heap: BinaryHeap::new(),
            evs: Vec::new(),
            free_evs: Vec::new(),
            seq: 0,
            link_busy: [false; 2],
            timer_gen: [0; 2],
            timer_at: [None; 2],
            capture: None,
            stats: NetStats::default(),
            completions: Vec::new(),
            recv_completions: Vec::new(),
        }
    }

    fn qp(&mut self, s: Side) -> &mut Qp {
        match s {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    fn push(&mut self, t: u64, ev: Ev) {
        let slot = match self.free_evs.pop() {
            Some(i) => {
                self.evs[i] = Some(ev);
                i
            }
            None => {
                self.evs.push(Some(ev));
                self.evs.len() - 1
            }
        };
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, slot)));
    }

    fn route_down(&self, route: u32, t: u64) -> bool {
        self.net.failures.iter().any(|f| f.route == route && f.from_ns <= t && t < f.until_ns)
    }

    /// Starts a transmission on `s`'s link if it is idle and the end has a frame.
    fn kick(&mut self, s: Side) {
        if self.link_busy[idx(s)] {
            return;
        }
        let now = self.now;
        let hw = self.clock.at(now);
        let Some(frame) = self.qp(s).poll_tx(hw) else { return };
        let bytes = frame.wire_len() as u64;
        let ser = ((bytes * 8) as f64 / self.net.link_gbps).ceil() as u64;
        self.link_busy[idx(s)] = true;
        self.push(now + ser.max(1), Ev::LinkFree(s));
        self.stats.frames += 1;
        self.stats.bytes += bytes;
        let route = route_of(frame.udp.src_port, self.net.routes);
        let mut dropped = false;
        if self.route_down(route, now) {
            self.stats.blackholed += 1;
            dropped = true;
        } else if self.net.loss > 0.0 && self.rng.gen_bool(self.net.loss.min(1.0)) {
            self.stats.lost += 1;
            dropped = true;
        }
        if let Some(c) = &mut self.capture {
            c.push(Captured { t_ns: now, from: s, dropped, frame: frame.clone() });
        }
        if dropped {
            return;
        }
        let mut frame = frame;
        if self.net.ce_routes.contains(&route) && frame.ip.ecn != wire::Ecn::NotEct {
            frame.ip.ecn = wire::Ecn::Ce;
        }
        let frame = if self.net.through_bytes {
            let bytes = wire::encode(&frame);
            let back = wire::decode(&bytes).unwrap_or_else(|e| panic!("own frame does not decode: {e}: {frame:?}"));
            assert_eq!(back, frame, "encode/decode round trip");
            back
        } else {
            frame
        };
        let base = now + ser + self.net.delay_ns + u64::from(route) * self.net.route_spread_ns;
        let j = |rng: &mut StdRng, n: u64| if n == 0 { 0 } else { rng.gen_range(0..=n) };
        let t = base + j(&mut self.rng, self.net.jitter_ns);
        if self.net.dup > 0.0 && self.rng.gen_bool(self.net.dup.min(1.0)) {
            self.stats.duplicated += 1;
            let t2 = base + j(&mut self.rng, self.net.jitter_ns.max(1000));
            self.push(t2, Ev::Arrive(other(s), Box::new(frame.clone())));
        }
        self.push(t, Ev::Arrive(other(s), Box::new(frame)));
    }

    fn reschedule(&mut self, s: Side) {
        let w = self.qp(s).next_wakeup();
        if w != self.timer_at[idx(s)] {
            self.timer_at[idx(s)] = w;
            self.timer_gen[idx(s)] += 1;
            if let Some(d) = w {
                let t = self.now + self.clock.ns_until(self.now, d);
                let g = self.timer_gen[idx(s)];
                self.push(t, Ev::Timer(s, g));
            }
        }
    }

    fn collect(&mut self) {
        self.completions.extend(self.a.take_completions());
        self.recv_completions.extend(self.b.take_recv_completions());
    }

    /// Kicks both ends (after posting work).
    pub fn start(&mut self) {
        for s in [Side::A, Side::B] {
            self.kick(s);
            self.reschedule(s);
        }
    }

    /// Runs until `done` holds (checked after every event) or time `limit_ns`;
    /// returns whether `done` held.
    pub fn run_until(&mut self, limit_ns: u64, mut done: impl FnMut(&Loopback) -> bool) -> bool {
        self.start();
        let (mut timer_t, mut timer_n) = (u64::MAX, 0u32);
        while let Some(Reverse((t, _, slot))) = self.heap.pop() {
            if t > limit_ns {
                self.heap.push(Reverse((t, 0, slot)));
                return false;
            }
            let ev = self.evs[slot].take().expect("event");
            self.free_evs.push(slot);
            self.now = t;
            self.stats.events += 1;
            let s = match ev {
                Ev::Arrive(s, f) => {
                    let hw = self.clock.at(t);
                    self.qp(s).on_frame(hw, &f);
                    s
                }
                Ev::LinkFree(s) => {
                    self.link_busy[idx(s)] = false;
                    s
                }
                Ev::Timer(s, g) => {
                    if g != self.timer_gen[idx(s)] {
                        continue;
                    }
                    self.timer_at[idx(s)] = None;
                    let hw = self.clock.at(t);
                    self.qp(s).on_timer(hw);
                    if t == timer_t {
                        timer_n += 1;
                        assert!(timer_n < 10_000, "{s:?}'s timer fires again and again at t={t} ns");
                    } else {
                        (timer_t, timer_n) = (t, 0);
                    }
                    s
                }
            };
            self.kick(s);
            self.reschedule(s);
            self.collect();
            if done(self) {
                return true;
            }
        }
        done(self)
    }

    /// Runs until every posted work request completed at A (and `sends` receive
    /// completions arrived at B), or `limit_ns`.
    pub fn run_to_completion(&mut self, posted: usize, sends: usize, limit_ns: u64) -> Report {
        let finished = self.run_until(limit_ns, |l| l.completions.len() >= posted && l.recv_completions.len() >= sends);
        Report {
            finished,
            end_ns: self.now,
            completions: self.completions.clone(),
            recv_completions: self.recv_completions.clone(),
            a_tx: self.a.req.stats,
            b_rx: self.b.rsp.stats,
            net: self.stats,
        }
    }
}
