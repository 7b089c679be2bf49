//! Serde configuration types for one simulated network and its workload, with
//! validation that refuses bad values with the reason.
//!
//! Units are in the field names: `_ns`, `_us`, `_bytes`, `_gbps`. Defaults
//! (see each `Default` impl) describe a 400 Gb/s two-tier leaf-spine:
//!
//! * host link propagation 500 ns, switch-to-switch 1000 ns (each figure lumps
//!   cable propagation and one switch's pipeline latency);
//! * 1 MiB of output buffer per switch port (tail drop), ECN step marking at
//!   100 KiB (`kmin_bytes == kmax_bytes`; set `kmin < kmax` for RED-like
//!   linear marking up to `pmax`);
//! * MTU 4096 payload bytes; 20 bytes of preamble + inter-frame gap per frame.

use serde::{Deserialize, Serialize};

use crate::SimError;

/// Topology family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopoKind {
    /// Two tiers: `leaves` leaf switches with `hosts_per_leaf` hosts, each leaf linked to all `spines`.
    LeafSpine,
    /// Three-tier k-ary fat-tree: k pods of k/2 edge + k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts.
    FatTree,
}

/// Topology parameters. Fields not used by `kind` are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopologySpec {
    /// Topology family.
    pub kind: TopoKind,
    /// Leaf-spine: hosts under each leaf.
    pub hosts_per_leaf: u32,
    /// Leaf-spine: number of leaves.
    pub leaves: u32,
    /// Leaf-spine: number of spines (= uplinks per leaf = equal-cost paths between leaves).
    pub spines: u32,
    /// Fat-tree: switch radix k (even, >= 2).
    pub k: u32,
    /// Planes per host NIC: P parallel copies of the switch fabric (1..=8).
    pub planes: u8,
}

impl Default for TopologySpec {
    fn default() -> Self {
        TopologySpec { kind: TopoKind::LeafSpine, hosts_per_leaf: 8, leaves: 2, spines: 8, k: 4, planes: 1 }
    }
}

/// Upper bound on hosts, to refuse accidental giant configurations.
pub const MAX_HOSTS: u64 = 1 << 20;

impl TopologySpec {
    /// Number of hosts.
    pub fn hosts(&self) -> u32 {
        match self.kind {
            TopoKind::LeafSpine => self.hosts_per_leaf * self.leaves,
            TopoKind::FatTree => self.k * self.k * self.k / 4,
        }
    }

    /// Refuse impossible or absurd topologies, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.planes == 0 || self.planes > 8 {
            return Err(SimError::invalid("topology.planes", format!("{} is not in 1..=8", self.planes)));
        }
        match self.kind {
            TopoKind::LeafSpine => {
                for (n, v) in [("hosts_per_leaf", self.hosts_per_leaf), ("leaves", self.leaves), ("spines", self.spines)] {
                    if v == 0 {
                        return Err(SimError::invalid(&format!("topology.{n}"), "must be at least 1"));
                    }
                }
                let hosts = self.hosts_per_leaf as u64 * self.leaves as u64;
                if hosts > MAX_HOSTS || self.spines > 4096 {
                    return Err(SimError::invalid("topology", format!("{hosts} hosts / {} spines is too large", self.spines)));
                }
                if hosts < 2 {
                    return Err(SimError::invalid("topology", "needs at least 2 hosts"));
                }
            }
            TopoKind::FatTree => {
                if self.k < 2 || !self.k.is_multiple_of(2) {
                    return Err(SimError::invalid("topology.k", format!("{} must be even and >= 2", self.k)));
                }
                if (self.k as u64).pow(3) / 4 > MAX_HOSTS {
                    return Err(SimError::invalid("topology.k", format!("{} gives too many hosts", self.k)));
                }
            }
        }
        Ok(())
    }
}

/// ECN marking at switch output queues (on enqueue, on ECT packets only).
///
/// Queue depth `q` is the bytes already waiting in the queue (the frame being
/// serialized is not counted). `q <= kmin`: never mark; `q > kmax`: always
/// mark; in between: mark with probability `pmax * (q - kmin) / (kmax - kmin)`.
/// With `kmin == kmax == K` this is the classic step "mark when q > K".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EcnSpec {
    /// Marking on at all.
    pub enabled: bool,
    /// Lower threshold, bytes.
    pub kmin_bytes: u64,
    /// Upper threshold, bytes.
    pub kmax_bytes: u64,
    /// Marking probability reached at `kmax`.
    pub pmax: f64,
}

impl Default for EcnSpec {
    fn default() -> Self {
        EcnSpec { enabled: true, kmin_bytes: 100 * 1024, kmax_bytes: 100 * 1024, pmax: 1.0 }
    }
}

impl EcnSpec {
    /// Probability of marking an ECT packet that finds `q` bytes queued.
    pub fn mark_probability(&self, q: u64) -> f64 {
        if !self.enabled || q <= self.kmin_bytes {
            0.0
        } else if q > self.kmax_bytes {
            1.0
        } else {
            self.pmax * (q - self.kmin_bytes) as f64 / (self.kmax_bytes - self.kmin_bytes) as f64
        }
    }
}

/// Which links the scenario-wide `loss` applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossScope {
    /// Every link, host links included (a 4-link path loses ~4x `loss`).
    All,
    /// Switch-to-switch links only.
    Fabric,
    /// Host egress links only: every frame crosses exactly one lossy link, so
    /// `loss` is the end-to-end loss rate of data and of ACKs alike.
    HostEgress,
    /// Only the links listed in `fabric.loss_links` (e.g. one bad cable).
    Links,
}

/// How a lossy link decides which frames to drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    /// Every frame is lost independently with probability `loss`.
    Bernoulli,
    /// Gilbert-Elliott: a two-state Markov chain per link, advanced once per frame.
    /// The bad state loses a frame with probability `ge_bad_loss`, the good state
    /// never; the chain leaves the bad state with probability `1 / ge_burst_frames`
    /// per frame, and enters it with probability `r * loss / (ge_bad_loss - loss)`
    /// (`r = 1 / ge_burst_frames`), so the long-run loss rate is `loss`.
    GilbertElliott,
}

/// Priority flow control (IEEE 802.1Qbb), one lossless class carrying every frame.
///
/// Each switch counts, per ingress link, the bytes that arrived on it and wait in its
/// output queues. Above `xoff_bytes` it sends PAUSE upstream (it reaches the upstream
/// sender one link delay later, which then starts no new frame on that link); at or
/// below `xon_bytes` it sends RESUME. The headroom above XOFF is computed per link as
/// `2 x (link delay x rate) + 2 full frames` (the bytes in flight both ways plus a
/// frame being serialized at each end), and with PFC on the output queues do not
/// tail-drop: a frame is dropped only if its ingress counter would exceed
/// XOFF + headroom (never with that headroom). PAUSE frames take no link time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PfcSpec {
    /// PFC on (the `roce_pfc` transport turns it on for its own runs).
    pub enabled: bool,
    /// Pause above this many bytes queued from one ingress link.
    pub xoff_bytes: u64,
    /// Resume at or below this many.
    pub xon_bytes: u64,
}

impl Default for PfcSpec {
    fn default() -> Self {
        PfcSpec { enabled: false, xoff_bytes: 128 * 1024, xon_bytes: 120 * 1024 }
    }
}

/// Which directions of a cable an event or setting applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// a -> b and b -> a.
    Both,
    /// a -> b only.
    Forward,
}

/// A cable between two adjacent nodes, by name: `host{h}`, `leaf{l}`,
/// `spine{s}`, `edge{pod}.{i}`, `agg{pod}.{i}`, `core{c}`; switches are looked
/// up in `plane`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRef {
    /// One end.
    pub a: String,
    /// Other end.
    pub b: String,
    /// Plane of the switch(es).
    #[serde(default)]
    pub plane: u8,
    /// Directions affected.
    #[serde(default = "dir_both")]
    pub direction: Direction,
}

fn dir_both() -> Direction {
    Direction::Both
}

/// A per-link loss override.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkLoss {
    /// The link, e.g. `link = { a = "leaf0", b = "spine3" }`.
    pub link: LinkRef,
    /// Loss probability per frame on that link, replacing the scenario-wide value.
    pub loss: f64,
}

/// Physical fabric parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FabricSpec {
    /// Rate of every link, Gb/s.
    pub link_gbps: f64,
    /// One-way latency of a host<->leaf/edge link, ns.
    pub host_link_delay_ns: u64,
    /// One-way latency of a switch<->switch link, ns.
    pub fabric_link_delay_ns: u64,
    /// Output buffer per switch port, bytes (tail drop beyond).
    pub buffer_bytes: u64,
    /// ECN marking.
    pub ecn: EcnSpec,
    /// Random loss probability per frame per link (see `loss_scope`).
    pub loss: f64,
    /// Links `loss` applies to.
    pub loss_scope: LossScope,
    /// Per-link overrides.
    pub link_loss: Vec<LinkLoss>,
    /// With `loss_scope = "links"`: the links `loss` applies to.
    pub loss_links: Vec<LinkRef>,
    /// Bernoulli or Gilbert-Elliott (bursty) loss.
    pub loss_model: LossModel,
    /// Gilbert-Elliott: loss probability in the bad state.
    pub ge_bad_loss: f64,
    /// Gilbert-Elliott: mean frames spent in the bad state per visit.
    pub ge_burst_frames: f64,
    /// Priority flow control (lossless fabric).
    pub pfc: PfcSpec,
    /// Preamble + inter-frame gap added to every frame on the wire, bytes.
    pub ifg_bytes: u32,
    /// Maximum payload bytes per data frame.
    pub mtu: u32,
}

impl Default for FabricSpec {
    fn default() -> Self {
        FabricSpec {
            link_gbps: 400.0,
            host_link_delay_ns: 500,
            fabric_link_delay_ns: 1000,
            buffer_bytes: 1 << 20,
            ecn: EcnSpec::default(),
            loss: 0.0,
            loss_scope: LossScope::All,
            link_loss: Vec::new(),
            loss_links: Vec::new(),
            loss_model: LossModel::Bernoulli,
            ge_bad_loss: 0.5,
            ge_burst_frames: 10.0,
            pfc: PfcSpec::default(),
            ifg_bytes: 20,
            mtu: 4096,
        }
    }
}

fn check_prob(field: &str, p: f64, inclusive_one: bool) -> Result<(), SimError> {
    let ok = p.is_finite() && p >= 0.0 && if inclusive_one { p <= 1.0 } else { p < 1.0 };
    if ok {
        Ok(())
    } else {
        Err(SimError::invalid(field, format!("{p} is not a probability in [0, 1{}", if inclusive_one { "]" } else { ")" })))
    }
}

impl FabricSpec {
    /// Refuse impossible values, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        if !(self.link_gbps.is_finite() && self.link_gbps >= 0.001 && self.link_gbps <= 100_000.0) {
            return Err(SimError::invalid("fabric.link_gbps", format!("{} is not in [0.001, 100000]", self.link_gbps)));
        }
        if self.mtu < 64 || self.mtu > 65_000 {
            return Err(SimError::invalid("fabric.mtu", format!("{} is not in 64..=65000", self.mtu)));
        }
        let max_frame = self.mtu as u64 + 200;
        if self.buffer_bytes < max_frame {
            return Err(SimError::invalid(
                "fabric.buffer_bytes",
                format!("{} cannot hold one full frame ({} bytes)", self.buffer_bytes, max_frame),
            ));
        }
        if self.ecn.kmin_bytes > self.ecn.kmax_bytes {
            return Err(SimError::invalid(
                "fabric.ecn",
                format!("kmin_bytes {} > kmax_bytes {}", self.ecn.kmin_bytes, self.ecn.kmax_bytes),
            ));
        }
        check_prob("fabric.ecn.pmax", self.ecn.pmax, true)?;
        check_prob("fabric.loss", self.loss, false)?;
        for l in &self.link_loss {
            check_prob("fabric.link_loss.loss", l.loss, true)?;
        }
        if self.loss_model == LossModel::GilbertElliott {
            check_prob("fabric.ge_bad_loss", self.ge_bad_loss, true)?;
            if !(self.ge_burst_frames.is_finite() && self.ge_burst_frames >= 1.0) {
                return Err(SimError::invalid("fabric.ge_burst_frames", format!("{} must be >= 1", self.ge_burst_frames)));
            }
            if self.loss >= self.ge_bad_loss || self.link_loss.iter().any(|l| l.loss >= self.ge_bad_loss) {
                return Err(SimError::invalid("fabric.loss", format!("must be below ge_bad_loss {}", self.ge_bad_loss)));
            }
        }
        if self.loss_scope == LossScope::Links && self.loss_links.is_empty() {
            return Err(SimError::invalid("fabric.loss_links", "loss_scope = \"links\" needs at least one link"));
        }
        if self.pfc.enabled && (self.pfc.xon_bytes > self.pfc.xoff_bytes || self.pfc.xoff_bytes < (self.mtu as u64 + 200)) {
            return Err(SimError::invalid(
                "fabric.pfc",
                format!("need one frame <= xoff_bytes ({}) and xon_bytes ({}) <= xoff_bytes", self.pfc.xoff_bytes, self.pfc.xon_bytes),
            ));
        }
        if self.ifg_bytes > 1000 {
            return Err(SimError::invalid("fabric.ifg_bytes", format!("{} is absurd (> 1000)", self.ifg_bytes)));
        }
        Ok(())
    }

    /// Link rate in bits per second.
    pub fn link_bps(&self) -> u64 {
        (self.link_gbps * 1e9).round() as u64
    }
}

/// What happens to a link at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The link silently drops everything from now on; routing never notices.
    Blackhole,
    /// The link drops everything; after `detect_us` it is removed from every
    /// ECMP set that would use it (upstream switches reroute).
    Down,
    /// The link carries traffic again; a `down` link rejoins ECMP after `detect_us`.
    Recover,
    /// The next `count` frames that start on the link are dropped (a scripted loss).
    DropNext,
}

/// A timed link event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureSpec {
    /// Event time, µs from the start.
    pub at_us: f64,
    /// What happens.
    pub kind: FailureKind,
    /// The link, e.g. `link = { a = "leaf0", b = "spine3" }`.
    pub link: LinkRef,
    /// Routing detection delay for `down` / `recover`, µs.
    #[serde(default = "default_detect_us")]
    pub detect_us: f64,
    /// Frames to drop for `drop_next`.
    #[serde(default = "one")]
    pub count: u32,
}

fn default_detect_us() -> f64 {
    100.0
}
fn one() -> u32 {
    1
}

impl FailureSpec {
    /// Refuse bad times, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        if !(self.at_us.is_finite() && self.at_us >= 0.0) {
            return Err(SimError::invalid("failures.at_us", format!("{} is not a time >= 0", self.at_us)));
        }
        if !(self.detect_us.is_finite() && self.detect_us >= 0.0) {
            return Err(SimError::invalid("failures.detect_us", format!("{} is not a delay >= 0", self.detect_us)));
        }
        if self.kind == FailureKind::DropNext && self.count == 0 {
            return Err(SimError::invalid("failures.count", "drop_next needs count >= 1"));
        }
        Ok(())
    }
}

/// Workload family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrafficKind {
    /// Long flows between host pairs (`pattern`).
    Flows,
    /// `senders` hosts each send `message_bytes` to `receiver`.
    Incast,
    /// Each of the first `hosts` hosts sends `message_bytes / hosts` to every other (NCCL-style buffer size).
    AllToAll,
    /// Ring all-reduce over the first `hosts` hosts of a `message_bytes` buffer:
    /// 2(n-1) steps of `message_bytes / n` chunks; a host starts step s+1 when
    /// its step-s chunk from its ring predecessor has arrived.
    AllReduce,
}

/// How `flows` picks host pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowPattern {
    /// Host i (of the first `hosts`) sends to host (i + shift) mod hosts; shift 0 means hosts/2.
    Shift,
    /// The `pairs` list.
    Explicit,
}

/// The workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrafficSpec {
    /// Workload family.
    pub kind: TrafficKind,
    /// `flows`: pair selection.
    pub pattern: FlowPattern,
    /// `flows` + `explicit`: `[src, dst]` host pairs.
    pub pairs: Vec<[u32; 2]>,
    /// `flows` + `shift`: the shift (0 = hosts/2).
    pub shift: u32,
    /// Hosts taking part (0 = all). Incast ignores it.
    pub hosts: u32,
    /// Connections per (src, dst) pair; each is its own flow.
    pub conns_per_pair: u32,
    /// Message size, bytes (collectives: the buffer size).
    pub message_bytes: u64,
    /// `flows` / `incast`: back-to-back messages per connection; 0 = unlimited (runs until `duration_us`).
    pub messages: u32,
    /// `incast`: number of senders.
    pub senders: u32,
    /// `incast`: the receiving host.
    pub receiver: u32,
    /// Start time of the workload, µs.
    pub start_us: f64,
    /// `flows`: per-connection start offsets after `start_us`, µs, in connection order
    /// (connections past the end of the list start at `start_us`); e.g. `[0, 10000]`
    /// starts the second flow 10 ms after the first (the DCQCN two-flow convergence).
    pub flow_start_us: Vec<f64>,
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            kind: TrafficKind::Flows,
            pattern: FlowPattern::Shift,
            pairs: Vec::new(),
            shift: 0,
            hosts: 0,
            conns_per_pair: 1,
            message_bytes: 1 << 20,
            messages: 1,
            senders: 8,
            receiver: 0,
            start_us: 0.0,
            flow_start_us: Vec::new(),
        }
    }
}

impl TrafficSpec {
    /// Refuse workloads that do not fit the topology, with the reason.
    pub fn validate(&self, hosts: u32) -> Result<(), SimError> {
        if self.message_bytes == 0 {
            return Err(SimError::invalid("traffic.message_bytes", "must be > 0"));
        }
        if self.conns_per_pair == 0 || self.conns_per_pair > 1_000_000 {
            return Err(SimError::invalid("traffic.conns_per_pair", format!("{} is not in 1..=1000000", self.conns_per_pair)));
        }
        if !(self.start_us.is_finite() && self.start_us >= 0.0) {
            return Err(SimError::invalid("traffic.start_us", format!("{} is not a time >= 0", self.start_us)));
        }
        if let Some(bad) = self.flow_start_us.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
            return Err(SimError::invalid("traffic.flow_start_us", format!("{bad} is not an offset >= 0")));
        }
        if !self.flow_start_us.is_empty() && self.kind == TrafficKind::AllReduce {
            return Err(SimError::invalid("traffic.flow_start_us", "the ring all-reduce starts every host together"));
        }
        if self.hosts > hosts {
            return Err(SimError::invalid("traffic.hosts", format!("{} > {} hosts in the topology", self.hosts, hosts)));
        }
        let n = self.n_hosts(hosts);
        match self.kind {
            TrafficKind::Flows => match self.pattern {
                FlowPattern::Explicit => {
                    if self.pairs.is_empty() {
                        return Err(SimError::invalid("traffic.pairs", "explicit pattern needs at least one pair"));
                    }
                    for p in &self.pairs {
                        if p[0] >= hosts || p[1] >= hosts || p[0] == p[1] {
                            return Err(SimError::invalid(
                                "traffic.pairs",
                                format!("{p:?}: hosts must differ and be < {hosts}"),
                            ));
                        }
                    }
                }
                FlowPattern::Shift => {
                    if n < 2 {
                        return Err(SimError::invalid("traffic.hosts", "shift pattern needs at least 2 hosts"));
                    }
                    if self.shift_of(n).is_multiple_of(n) {
                        return Err(SimError::invalid("traffic.shift", format!("{} maps hosts onto themselves", self.shift)));
                    }
                }
            },
            TrafficKind::Incast => {
                if self.receiver >= hosts {
                    return Err(SimError::invalid("traffic.receiver", format!("{} >= {hosts} hosts", self.receiver)));
                }
                if self.senders == 0 || self.senders >= hosts {
                    return Err(SimError::invalid(
                        "traffic.senders",
                        format!("{} is not in 1..{hosts} (other hosts)", self.senders),
                    ));
                }
            }
            TrafficKind::AllToAll | TrafficKind::AllReduce => {
                if n < 2 {
                    return Err(SimError::invalid("traffic.hosts", "collectives need at least 2 hosts"));
                }
                if self.message_bytes < n as u64 {
                    return Err(SimError::invalid(
                        "traffic.message_bytes",
                        format!("{} is smaller than one byte per host ({n})", self.message_bytes),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Hosts taking part given the topology's host count.
    pub fn n_hosts(&self, hosts: u32) -> u32 {
        if self.hosts == 0 {
            hosts
        } else {
            self.hosts
        }
    }

    /// Effective shift for `n` hosts.
    pub fn shift_of(&self, n: u32) -> u32 {
        if self.shift == 0 {
            n / 2
        } else {
            self.shift
        }
    }
}
