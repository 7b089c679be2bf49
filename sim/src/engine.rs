//! The discrete-event engine: fabric, host NICs, endpoints and workload.
//!
//! # Time
//! Engine time is `u64` **picoseconds** (a 400 Gb/s byte is 20 ps; 2^64 ps is
//! about 213 days). Serialization times are computed per frame from the link
//! rate and rounded to the nearest ps. Endpoints see nanoseconds (rounded down).
//!
//! # Events
//! A binary heap ordered by (time, insertion sequence number), so ties are
//! broken in a fixed order and a run is a pure function of its configuration
//! and seed. Event kinds: a link finished serializing (`TxDone`), the frame at
//! the head of a link's pipe reached the far end (`Arrive`; frames on a link
//! arrive in the order they were sent, so the pipe is a FIFO and the event
//! needs no payload), an endpoint timer, a link failure event, and the
//! workload start.
//!
//! # Fabric
//! Store-and-forward switches with one FIFO output queue per port: a frame
//! arriving at a switch is routed ([`Topology::route`]), ECN-marked per
//! [`EcnSpec`], tail-dropped if the queue would exceed `buffer_bytes`, and
//! serialized when the port is free. Loss, blackholes and failed links drop a
//! frame when it starts serialization (it still occupies the link). Random
//! draws come from one seeded xoshiro256++ in event order.
//!
//! # Hosts
//! Each host has one egress link per plane. When one is idle, the engine pulls
//! a frame from the host's ready endpoints round robin (see
//! [`crate::transport`] for the contract).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use serde::Serialize;

use crate::config::{EcnSpec, FabricSpec, FailureKind, FailureSpec, TopologySpec, TrafficSpec};
use crate::rng::{derive_seed, Xoshiro256};
use crate::topology::{FlowKey, Topology};
use crate::traffic::Plan;
use crate::transport::{BoxEndpoint, Completion, CompletionKind, ConnSpec, EndpointFactory, EndpointStats};
use crate::SimError;

/// Frame bytes of a full data frame on top of the MTU payload (RoCEv2: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4).
pub const DATA_OVERHEAD: u32 = 62;
/// Frame bytes of an ACK (RoCEv2 with AETH).
pub const ACK_BYTES: u32 = 66;

/// One complete simulation: network, workload, time limits.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Label for progress and results.
    pub label: String,
    /// Topology.
    pub topology: TopologySpec,
    /// Physical fabric.
    pub fabric: FabricSpec,
    /// Workload.
    pub traffic: TrafficSpec,
    /// Timed link events.
    pub failures: Vec<FailureSpec>,
    /// Simulated time limit, µs (the run also stops when a finite workload completes).
    pub duration_us: f64,
    /// Width of goodput-over-time bins, µs.
    pub bin_us: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Tell endpoints the host load (receiver rate hint).
    pub rate_hint: bool,
    /// Stop after this many events (0 = no limit).
    pub max_events: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            label: String::new(),
            topology: TopologySpec::default(),
            fabric: FabricSpec::default(),
            traffic: TrafficSpec::default(),
            failures: Vec::new(),
            duration_us: 1000.0,
            bin_us: 10.0,
            seed: 1,
            rate_hint: false,
            max_events: 0,
        }
    }
}

/// Most bins a run may ask for.
pub const MAX_BINS: f64 = 100_000.0;

impl RunConfig {
    /// Refuse bad values, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        self.topology.validate()?;
        self.fabric.validate()?;
        self.traffic.validate(self.topology.hosts())?;
        for f in &self.failures {
            f.validate()?;
        }
        if !self.failures.is_empty() || !self.fabric.link_loss.is_empty() {
            let t = Topology::build(&self.topology, &self.fabric, self.seed)?;
            for f in &self.failures {
                t.resolve(&f.link)?;
            }
        }
        if !(self.duration_us.is_finite() && self.duration_us > 0.0 && self.duration_us <= 1e9) {
            return Err(SimError::invalid("duration_us", format!("{} is not in (0, 1e9]", self.duration_us)));
        }
        if !(self.bin_us.is_finite() && self.bin_us > 0.0) || self.duration_us / self.bin_us > MAX_BINS {
            return Err(SimError::invalid(
                "bin_us",
                format!("{} must be > 0 and give at most {MAX_BINS} bins over duration_us", self.bin_us),
            ));
        }
        Ok(())
    }
}

/// A progress report (see [`simulate`]).
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// The run's label.
    pub label: &'a str,
    /// Simulated time reached, ns.
    pub sim_ns: u64,
    /// Simulated time limit, ns.
    pub end_ns: u64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds since the run started.
    pub wall_s: f64,
    /// The run's last report.
    pub finished: bool,
}

/// Drops by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DropStats {
    /// Output queue full (tail drop).
    pub buffer: u64,
    /// Random per-link loss.
    pub random: u64,
    /// Blackholed or failed link, or a scripted `drop_next`.
    pub failed: u64,
    /// No surviving route.
    pub no_route: u64,
}

impl DropStats {
    /// All causes.
    pub fn total(&self) -> u64 {
        self.buffer + self.random + self.failed + self.no_route
    }
    fn add(&mut self, o: &DropStats) {
        self.buffer += o.buffer;
        self.random += o.random;
        self.failed += o.failed;
        self.no_route += o.no_route;
    }
}

/// Counters of one unidirectional link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkReport {
    /// Link id.
    pub link: u32,
    /// `src->dst`.
    pub name: String,
    /// Plane.
    pub plane: u8,
    /// Frames that started serialization (including those then lost on the wire).
    pub tx_frames: u64,
    /// Their frame bytes.
    pub tx_bytes: u64,
    /// Peak bytes waiting in the output queue.
    pub peak_queue_bytes: u64,
    /// Drops at this link.
    pub drops: DropStats,
    /// ECN CE marks applied at this link's queue.
    pub ecn_marks: u64,
}

/// One connection's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowReport {
    /// Sender.
    pub src: u32,
    /// Receiver.
    pub dst: u32,
    /// Last UDP source port the sender used.
    pub sport: u16,
    /// Last UDP source port the receiver used (ACKs).
    pub rsport: u16,
    /// Plane of the sender's last frame.
    pub plane: u8,
    /// Payload delivered at the receiver.
    pub delivered_bytes: u64,
    /// Payload the workload asked for (None: unlimited).
    pub expected_bytes: Option<u64>,
    /// Completion time from the workload start, ns.
    pub fct_ns: Option<u64>,
}

/// Everything measured in one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    /// Transport name.
    pub transport: String,
    /// Run label.
    pub label: String,
    /// Simulated time at the end, ns.
    pub end_ns: u64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds (not part of [`RunResult::fingerprint`]).
    pub wall_s: f64,
    /// The finite workload completed.
    pub completed: bool,
    /// Workload completion time from its start, ns (collectives: the last host).
    pub completion_ns: Option<u64>,
    /// Payload delivered, all connections.
    pub delivered_bytes: u64,
    /// Aggregate goodput over the measured interval (start .. completion or end), Gb/s.
    pub goodput_gbps: f64,
    /// The senders' line rate: distinct sending hosts x planes x link rate, Gb/s.
    pub line_rate_gbps: f64,
    /// Per-connection outcome.
    pub flows: Vec<FlowReport>,
    /// Jain fairness index of per-flow goodput (delivered / own completion or the measured interval).
    pub jain: f64,
    /// Time until per-bin fairness >= 0.9 and queues stay <= 2 kmax, in base RTTs.
    pub convergence_rtts: Option<f64>,
    /// Unloaded RTT across the longest path, ns.
    pub base_rtt_ns: u64,
    /// Peak output queue over all switch ports, bytes.
    pub peak_queue_bytes: u64,
    /// Where that peak was.
    pub peak_queue_link: String,
    /// Fabric drops.
    pub drops: DropStats,
    /// ECN marks.
    pub ecn_marks: u64,
    /// Summed endpoint counters.
    pub endpoint_stats: EndpointStats,
    /// Bin width, ns.
    pub bin_ns: u64,
    /// Aggregate goodput per bin, Gb/s (from time 0).
    pub goodput_bins_gbps: Vec<f64>,
    /// Per-connection delivered bytes per bin (kept for up to 1024 connections).
    #[serde(skip)]
    pub flow_bins: Option<Vec<Vec<u64>>>,
    /// Peak switch queue per bin, bytes.
    pub queue_bins: Vec<u64>,
    /// Per-link counters (switch and host links).
    #[serde(skip)]
    pub links: Vec<LinkReport>,
}

impl RunResult {
    /// Everything except wall-clock time, for determinism checks.
    pub fn fingerprint(&self) -> String {
        let mut c = self.clone();
        c.wall_s = 0.0;
        format!("{c:?}")
    }
}

struct Pkt<F> {
    src: u32,
    dst: u32,
    dst_ep: u32,
    sport: u16,
    plane: u8,
    ect: bool,
    ce: bool,
    bytes: u32,
    frame: F,
}

#[derive(Clone, Default)]
struct LinkState {
    qbytes: u64,
    busy_until: u64,
    txdone_pending: bool,
    blackhole: bool,
    failed: bool,
    drop_next: u32,
    tx_frames: u64,
    tx_bytes: u64,
    peak: u64,
    drops: DropStats,
    marks: u64,
}

struct EpSlot<F> {
    ep: BoxEndpoint<F>,
    host: u32,
    conn: u32,
    side: u8,
    ready: u8,
    timer_at: u64,
    timer_gen: u32,
    fired_at: u64,
    delivered: u64,
    sport: u16,
    plane: u8,
}

struct HostState {
    rq: Vec<VecDeque<u32>>,
    eps: Vec<u32>,
    rx_active: u32,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    TxDone(u32),
    Arrive(u32),
    Timer(u32, u32),
    Link(u32),
    Start,
}

struct Qe {
    t: u64,
    seq: u64,
    ev: Ev,
}
impl PartialEq for Qe {
    fn eq(&self, o: &Self) -> bool {
        self.t == o.t && self.seq == o.seq
    }
}
impl Eq for Qe {}
impl PartialOrd for Qe {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Qe {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap, we want the earliest first
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

#[derive(Clone, Copy, Debug)]
enum LinkAction {
    Blackhole,
    Fail,
    Recover,
    DropNext(u32),
    Route(bool),
}

struct App {
    plan: Plan,
    unlimited: Vec<bool>,
    msg_bytes: Vec<u64>,
    posted: Vec<u64>,
    received: Vec<u64>,
    target: Vec<u64>,
    fct: Vec<Option<u64>>,
    ring_recv: Vec<u32>,
    ring_steps: u32,
    remaining: usize,
    done_at: Option<u64>,
}

struct Sim<F> {
    topo: Topology,
    links: Vec<LinkState>,
    queues: Vec<VecDeque<Pkt<F>>>,
    pipes: Vec<VecDeque<Pkt<F>>>,
    routed_down: Vec<bool>,
    n_routed_down: usize,
    eps: Vec<EpSlot<F>>,
    hosts: Vec<HostState>,
    heap: BinaryHeap<Qe>,
    seq: u64,
    now: u64,
    events: u64,
    rng: Xoshiro256,
    ecn: EcnSpec,
    buffer: u64,
    ps_per_byte: f64,
    ifg: u32,
    actions: Vec<(Vec<u32>, LinkAction)>,
    app: App,
    start_ps: u64,
    rate_hint: bool,
    comp: Vec<Completion>,
    scratch: Vec<u32>,
    posts: Vec<(u32, u64)>,
    dirty: Vec<u32>,
    bin_ps: u64,
    bins: Vec<u64>,
    qbins: Vec<u64>,
    flow_bins: Option<Vec<Vec<u64>>>,
    flow_bytes: Vec<u64>,
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

/// Run one simulation of `cfg` with the transport built by `factory`.
///
/// `progress` is called at most about four times per wall-clock second, and once at the end.
pub fn simulate<T: EndpointFactory + ?Sized>(
    factory: &T,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunResult, SimError> {
    cfg.validate()?;
    let wall = Instant::now();
    let topo = Topology::build(&cfg.topology, &cfg.fabric, cfg.seed)?;
    let plan = Plan::new(&cfg.traffic, topo.hosts);
    let conns = plan.conns();
    let base_rtt = base_rtt_ns(&topo, &cfg.fabric);
    let planes = topo.planes;
    let mut hosts: Vec<HostState> = (0..topo.hosts)
        .map(|_| HostState { rq: vec![VecDeque::new(); planes as usize], eps: Vec::new(), rx_active: 0 })
        .collect();
    let mut eps = Vec::with_capacity(conns.len() * 2);
    for (c, &(a, b)) in conns.iter().enumerate() {
        let spec = ConnSpec {
            conn: c as u32,
            a,
            b,
            seed: derive_seed(cfg.seed, 0xC044, c as u64),
            planes,
            link_bps: cfg.fabric.link_bps(),
            base_rtt_ns: base_rtt,
            mtu: cfg.fabric.mtu,
        };
        let (ea, eb) = factory.pair(&spec);
        for (side, (ep, host)) in [(ea, a), (eb, b)].into_iter().enumerate() {
            hosts[host as usize].eps.push(eps.len() as u32);
            eps.push(EpSlot {
                ep,
                host,
                conn: c as u32,
                side: side as u8,
                ready: 0,
                timer_at: u64::MAX,
                timer_gen: 0,
                fired_at: u64::MAX,
                delivered: 0,
                sport: 0,
                plane: 0,
            });
        }
    }
    let n = conns.len();
    let (unlimited, msg_bytes, target, ring_steps, remaining) = match &plan {
        Plan::Flows(f) => (
            f.iter().map(|f| f.messages == 0).collect::<Vec<_>>(),
            f.iter().map(|f| f.message_bytes).collect::<Vec<_>>(),
            f.iter().map(|f| f.messages as u64).collect::<Vec<_>>(),
            0,
            f.iter().filter(|f| f.messages > 0).count(),
        ),
        Plan::Ring { hosts, chunk } => (
            vec![false; n],
            vec![*chunk; n],
            vec![2 * (*hosts as u64 - 1); n],
            2 * (hosts - 1),
            *hosts as usize,
        ),
    };
    let end_ps = (cfg.duration_us * 1e6).round() as u64;
    let bin_ps = ((cfg.bin_us * 1e6).round() as u64).max(1);
    let nbins = (end_ps / bin_ps + 1) as usize;
    let nlinks = topo.links.len();
    let mut actions = Vec::new();
    let mut sim = Sim {
        links: vec![LinkState::default(); nlinks],
        queues: (0..nlinks).map(|_| VecDeque::new()).collect(),
        pipes: (0..nlinks).map(|_| VecDeque::new()).collect(),
        routed_down: vec![false; nlinks],
        n_routed_down: 0,
        eps,
        hosts,
        heap: BinaryHeap::new(),
        seq: 0,
        now: 0,
        events: 0,
        rng: Xoshiro256::seed_from_u64(derive_seed(cfg.seed, 0xFAB, 0)),
        ecn: cfg.fabric.ecn.clone(),
        buffer: cfg.fabric.buffer_bytes,
        ps_per_byte: 8e12 / cfg.fabric.link_bps() as f64,
        ifg: cfg.fabric.ifg_bytes,
        actions: Vec::new(),
        app: App {
            plan,
            unlimited,
            msg_bytes,
            posted: vec![0; n],
            received: vec![0; n],
            target,
            fct: vec![None; n],
            ring_recv: vec![0; conns.len()],
            ring_steps,
            remaining,
            done_at: None,
        },
        start_ps: (cfg.traffic.start_us * 1e6).round() as u64,
        rate_hint: cfg.rate_hint,
        comp: Vec::new(),
        scratch: Vec::new(),
        posts: Vec::new(),
        dirty: Vec::new(),
        bin_ps,
        bins: vec![0; nbins],
        qbins: vec![0; nbins],
        flow_bins: (n <= 1024).then(|| vec![vec![0; nbins]; n]),
        flow_bytes: vec![0; n],
        topo,
    };
    for f in &cfg.failures {
        let ids = sim.topo.resolve(&f.link)?;
        let at = (f.at_us * 1e6).round() as u64;
        let detect = (f.detect_us * 1e6).round() as u64;
        let mut push = |t: u64, a: LinkAction| {
            actions.push((t, ids.clone(), a));
        };
        match f.kind {
            FailureKind::Blackhole => push(at, LinkAction::Blackhole),
            FailureKind::Down => {
                push(at, LinkAction::Fail);
                push(at + detect, LinkAction::Route(true));
            }
            FailureKind::Recover => {
                push(at, LinkAction::Recover);
                push(at + detect, LinkAction::Route(false));
            }
            FailureKind::DropNext => push(at, LinkAction::DropNext(f.count)),
        }
    }
    for (i, (t, ids, a)) in actions.into_iter().enumerate() {
        sim.actions.push((ids, a));
        sim.push(t, Ev::Link(i as u32));
    }
    let start = sim.start_ps;
    sim.push(start, Ev::Start);
    let label = cfg.label.as_str();
    let mut last_report = Instant::now();
    let mut hit_limit = false;
    while let Some(q) = sim.heap.pop() {
        if q.t > end_ps {
            break;
        }
        sim.now = q.t;
        sim.events += 1;
        match q.ev {
            Ev::TxDone(l) => sim.on_txdone(l),
            Ev::Arrive(l) => sim.on_arrive(l),
            Ev::Timer(e, g) => sim.on_timer(e, g),
            Ev::Link(i) => sim.on_link_action(i),
            Ev::Start => sim.on_start(),
        }
        if sim.app.done_at.is_some() {
            break;
        }
        if sim.events & 0xFFFF == 0 && last_report.elapsed().as_millis() >= 250 {
            last_report = Instant::now();
            progress(&Progress {
                label,
                sim_ns: sim.now / 1000,
                end_ns: end_ps / 1000,
                events: sim.events,
                wall_s: wall.elapsed().as_secs_f64(),
                finished: false,
            });
        }
        if cfg.max_events > 0 && sim.events >= cfg.max_events {
            hit_limit = true;
            break;
        }
    }
    let end = match sim.app.done_at {
        Some(t) => t,
        None if hit_limit => sim.now,
        None => end_ps,
    };
    progress(&Progress {
        label,
        sim_ns: end / 1000,
        end_ns: end_ps / 1000,
        events: sim.events,
        wall_s: wall.elapsed().as_secs_f64(),
        finished: true,
    });
    Ok(sim.finish(factory.name(), cfg, end, base_rtt, wall.elapsed().as_secs_f64()))
}

impl<F: 'static> Sim<F> {
    #[inline]
    fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Qe { t, seq: self.seq, ev });
    }

    #[inline]
    fn now_ns(&self) -> u64 {
        self.now / 1000
    }

    fn on_start(&mut self) {
        let n = self.app.posted.len();
        for c in 0..n {
            let k = match &self.app.plan {
                Plan::Flows(_) if self.app.unlimited[c] => 2,
                Plan::Flows(_) => self.app.target[c],
                Plan::Ring { .. } => 1,
            };
            for _ in 0..k {
                self.post(c as u32);
            }
        }
        self.flush();
    }

    fn post(&mut self, c: u32) {
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

    fn load_changed(&mut self, h: u32) {
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
    fn flush(&mut self) {
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

    fn account(&mut self, e: u32) {
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

    fn on_completion(&mut self, c: u32, side: u8, comp: Completion) {
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
                let since = self.now.saturating_sub(self.start_ps) / 1000;
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

    fn resched_timer(&mut self, e: u32) {
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

    fn on_timer(&mut self, e: u32, g: u32) {
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

    fn mark_ready(&mut self, e: u32) {
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

    #[inline]
    fn idle(&self, l: u32) -> bool {
        let s = &self.links[l as usize];
        s.busy_until <= self.now && !s.txdone_pending
    }

    fn pull_host(&mut self, h: u32) {
        for p in 0..self.topo.planes {
            let l = self.topo.host_link(h, p);
            if self.idle(l) {
                self.pull(h, p, l);
            }
        }
    }

    fn pull(&mut self, h: u32, p: u8, l: u32) {
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

    fn transmit(&mut self, l: u32, pkt: Pkt<F>) {
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

    fn on_txdone(&mut self, l: u32) {
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

    fn on_arrive(&mut self, l: u32) {
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

    fn enqueue(&mut self, l: u32, mut pkt: Pkt<F>) {
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

    fn on_link_action(&mut self, i: u32) {
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

    fn finish(self, transport: String, cfg: &RunConfig, end: u64, base_rtt: u64, wall_s: f64) -> RunResult {
        let start = self.start_ps;
        let measured_ps = end.saturating_sub(start).max(1);
        let delivered: u64 = self.flow_bytes.iter().sum();
        let goodput = delivered as f64 * 8.0 / (measured_ps as f64 / 1000.0);
        let mut flows = Vec::with_capacity(self.flow_bytes.len());
        for c in 0..self.flow_bytes.len() {
            let (a, b) = (&self.eps[2 * c], &self.eps[2 * c + 1]);
            flows.push(FlowReport {
                src: a.host,
                dst: b.host,
                sport: a.sport,
                rsport: b.sport,
                plane: a.plane,
                delivered_bytes: self.flow_bytes[c],
                expected_bytes: self.app.plan.expected_bytes(c),
                fct_ns: self.app.fct[c],
            });
        }
        let rates: Vec<f64> = flows
            .iter()
            .map(|f| {
                let t = f.fct_ns.map(|x| x.max(1) as f64).unwrap_or(measured_ps as f64 / 1000.0);
                f.delivered_bytes as f64 / t
            })
            .collect();
        let jain = jain(&rates);
        let mut senders: Vec<u32> = flows.iter().map(|f| f.src).collect();
        senders.sort_unstable();
        senders.dedup();
        let line_rate = senders.len() as f64 * f64::from(self.topo.planes) * cfg.fabric.link_bps() as f64 / 1e9;
        let mut drops = DropStats::default();
        let mut marks = 0;
        let mut peak = 0;
        let mut peak_link = String::new();
        let mut links = Vec::with_capacity(self.links.len());
        for (i, st) in self.links.iter().enumerate() {
            drops.add(&st.drops);
            marks += st.marks;
            if st.peak > peak {
                peak = st.peak;
                peak_link = self.topo.link_name(i as u32);
            }
            links.push(LinkReport {
                link: i as u32,
                name: self.topo.link_name(i as u32),
                plane: self.topo.links[i].plane,
                tx_frames: st.tx_frames,
                tx_bytes: st.tx_bytes,
                peak_queue_bytes: st.peak,
                drops: st.drops,
                ecn_marks: st.marks,
            });
        }
        let mut es = EndpointStats::default();
        for e in &self.eps {
            es += e.ep.stats();
        }
        let last_bin = ((end / self.bin_ps) as usize).min(self.bins.len() - 1);
        let bin_ns_f = self.bin_ps as f64 / 1000.0;
        let goodput_bins = self.bins[..=last_bin].iter().map(|&b| b as f64 * 8.0 / bin_ns_f).collect();
        let queue_bins: Vec<u64> = self.qbins[..=last_bin].to_vec();
        let qlimit = if cfg.fabric.ecn.enabled { 2 * cfg.fabric.ecn.kmax_bytes } else { cfg.fabric.buffer_bytes / 2 };
        let convergence = self.flow_bins.as_ref().and_then(|fb| {
            let first_done = flows.iter().filter_map(|f| f.fct_ns).min().map(|t| start + t * 1000).unwrap_or(end);
            convergence_bins(fb, &queue_bins, (start / self.bin_ps) as usize, (first_done / self.bin_ps) as usize, qlimit)
                .map(|b| b as f64 * bin_ns_f / base_rtt as f64)
        });
        let done = self.app.done_at.is_some();
        RunResult {
            transport,
            label: cfg.label.clone(),
            end_ns: end / 1000,
            events: self.events,
            wall_s,
            completed: done,
            completion_ns: self.app.done_at.map(|t| (t - start) / 1000),
            delivered_bytes: delivered,
            goodput_gbps: goodput,
            line_rate_gbps: line_rate,
            flows,
            jain,
            convergence_rtts: convergence,
            base_rtt_ns: base_rtt,
            peak_queue_bytes: peak,
            peak_queue_link: peak_link,
            drops,
            ecn_marks: marks,
            endpoint_stats: es,
            bin_ns: self.bin_ps / 1000,
            goodput_bins_gbps: goodput_bins,
            flow_bins: self.flow_bins,
            queue_bins,
            links,
        }
    }
}

/// Jain's fairness index of `x` (1 = perfectly fair; 0 for an empty or all-zero input).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        0.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

/// Bins from `from` until the first bin `b` in `from..to` after which every bin
/// (up to `to`, exclusive) has per-flow Jain >= 0.9 and queue <= `qlimit`.
/// `None` if the window is shorter than 3 bins or never settles.
pub fn convergence_bins(flow_bins: &[Vec<u64>], qbins: &[u64], from: usize, to: usize, qlimit: u64) -> Option<usize> {
    let to = to.min(qbins.len());
    if flow_bins.len() < 2 || to < from + 3 {
        return None;
    }
    let ok = |b: usize| {
        let x: Vec<f64> = flow_bins.iter().map(|f| f[b] as f64).collect();
        jain(&x) >= 0.9 && qbins[b] <= qlimit
    };
    let mut first = None;
    for b in (from..to).rev() {
        if ok(b) {
            first = Some(b);
        } else {
            break;
        }
    }
    first.map(|b| b - from)
}
