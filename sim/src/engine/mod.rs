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
//!
//! # Modules
//! * [`config`]: [`RunConfig`], one complete simulation, and its validation;
//! * [`events`]: the event kinds and the time-ordered queue;
//! * [`fabric`]: links and switches (serialization, queues, ECN, drops, failures);
//! * [`hosts`]: host NICs, endpoints, timers and the workload's application logic;
//! * [`report`]: [`RunResult`] and the other per-run reports, and [`Progress`];
//! * [`stats`]: fairness and convergence statistics.
//!
//! This file holds the simulator state and [`simulate`], which builds it and runs the
//! event loop.

use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use crate::config::{EcnSpec, FailureKind};
use crate::rng::{derive_seed, Xoshiro256};
use crate::topology::Topology;
use crate::traffic::Plan;
use crate::transport::{Completion, ConnSpec, EndpointFactory};
use crate::SimError;

mod config;
mod events;
mod fabric;
mod hosts;
mod report;
mod stats;

pub use config::{RunConfig, MAX_BINS};
pub use fabric::{base_rtt_ns, ser_ps, ACK_BYTES, DATA_OVERHEAD};
pub use report::{DropStats, FlowReport, LinkReport, Progress, RunResult};
pub use stats::{convergence_bins, jain};

use events::{Ev, Qe};
use fabric::{LinkAction, LinkState, PfcState, Pkt};
use hosts::{App, EpSlot, HostState};

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
    pfc: Option<PfcState>,
    /// Gilbert-Elliott loss: (bad-state loss, exit probability); None = Bernoulli.
    ge: Option<(f64, f64)>,
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
    if cfg.traffic.flow_start_us.len() > conns.len() {
        return Err(SimError::invalid(
            "traffic.flow_start_us",
            format!("{} offsets for {} connections", cfg.traffic.flow_start_us.len(), conns.len()),
        ));
    }
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
        pfc: cfg.fabric.pfc.enabled.then(|| {
            let frame = (cfg.fabric.mtu + DATA_OVERHEAD + 200) as u64;
            let bps = cfg.fabric.link_bps() as u128;
            PfcState {
                xoff: cfg.fabric.pfc.xoff_bytes,
                xon: cfg.fabric.pfc.xon_bytes,
                headroom: topo
                    .links
                    .iter()
                    .map(|l| (2 * bps * l.delay_ps as u128 / 8_000_000_000_000) as u64 + 2 * frame)
                    .collect(),
                ingress_bytes: vec![0; nlinks],
                pause_sent: vec![false; nlinks],
                pauses: 0,
            }
        }),
        ge: (cfg.fabric.loss_model == crate::config::LossModel::GilbertElliott)
            .then(|| (cfg.fabric.ge_bad_loss, 1.0 / cfg.fabric.ge_burst_frames)),
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
            conn_start: vec![(cfg.traffic.start_us * 1e6).round() as u64; n],
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
    for (c, &off) in cfg.traffic.flow_start_us.iter().enumerate().take(sim.app.posted.len()) {
        let at = start + (off * 1e6).round() as u64;
        if at > start {
            sim.app.conn_start[c] = at;
            sim.push(at, Ev::StartConn(c as u32));
        }
    }
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
            Ev::Pause(l, on) => sim.on_pause(l, on),
            Ev::Start => sim.on_start(),
            Ev::StartConn(c) => sim.on_start_conn(c),
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
