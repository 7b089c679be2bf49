//! Reports: what one run measured. [`RunResult`] (goodput, completion, fairness,
//! convergence, queues, drops, ECN marks, endpoint counters, goodput and queue bins) with
//! its per-connection [`FlowReport`]s and per-link [`LinkReport`]s, [`DropStats`] by
//! cause, and the [`Progress`] reports a run sends while it runs. The simulator state is
//! turned into a [`RunResult`] here at the end of a run.

use serde::{Deserialize, Serialize};

use crate::transport::EndpointStats;

use super::config::RunConfig;
use super::stats::{convergence_bins, jain};
use super::Sim;

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// PFC PAUSE frames sent (0 without PFC).
    #[serde(default)]
    pub pfc_pauses: u64,
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

impl<F: 'static> Sim<F> {
    pub(super) fn finish(self, transport: String, cfg: &RunConfig, end: u64, base_rtt: u64, wall_s: f64) -> RunResult {
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
        // each flow's rate over its own active time (flows may start late: traffic.flow_start_us)
        let rates: Vec<f64> = flows
            .iter()
            .zip(&self.app.conn_start)
            .map(|(f, &s0)| {
                let active_ns = end.saturating_sub(s0).max(1) as f64 / 1000.0;
                let t = f.fct_ns.map(|x| x.max(1) as f64).unwrap_or(active_ns);
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
            let first_done = flows
                .iter()
                .zip(&self.app.conn_start)
                .filter_map(|(f, &s0)| f.fct_ns.map(|t| s0 + t * 1000))
                .min()
                .unwrap_or(end);
            // from the last flow's start: before it, fairness among the flows is undefined
            let last_start = self.app.conn_start.iter().copied().max().unwrap_or(start).max(start);
            convergence_bins(fb, &queue_bins, (last_start / self.bin_ps) as usize, (first_done / self.bin_ps) as usize, qlimit)
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
            pfc_pauses: self.pfc.as_ref().map_or(0, |p| p.pauses),
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
