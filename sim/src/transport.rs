//! The transport plug-in interface: one [`Endpoint`] per connection end.
//!
//! A connection is a pair of endpoints, one at host `a` and one at host `b`,
//! created together by an [`EndpointFactory`]. The engine owns the endpoints
//! and drives them; endpoints never see the fabric, only frames and time.
//!
//! # Contract between the engine and an endpoint
//!
//! * **Time** is passed to endpoints in integer nanoseconds (`now_ns`). The
//!   engine itself keeps picoseconds (see [`crate::engine`]); `now_ns` is the
//!   engine time rounded down.
//! * **Pull model.** When a host's egress link for plane `p` is idle, the engine
//!   asks the endpoints of that host, round robin, `poll_tx(now_ns, p)` until
//!   one returns a frame, and serializes that frame on plane `p`'s link. An
//!   endpoint must only return frames meant for plane `p` (single-plane
//!   transports return `None` for every other plane).
//! * **Readiness.** Once `poll_tx(.., p)` returns `None`, the engine does not
//!   poll that endpoint for plane `p` again until after its next `on_frame`,
//!   `on_timer`, `post_message` or `set_host_load` call. An endpoint that is
//!   held back by time (pacing, a rate limiter) must therefore report the time
//!   it may send again through [`Endpoint::next_wakeup`].
//! * **Timers.** After every call into an endpoint (including `poll_tx`), the
//!   engine re-reads `next_wakeup()` and calls `on_timer` at that time (stale
//!   timers are discarded via a per-endpoint generation counter). A wakeup in
//!   the past fires at the current time.
//! * **Completions.** After every call, the engine drains
//!   `take_completions`. Both ends report: the sender a
//!   [`CompletionKind::Sent`] when a message is fully acknowledged, the
//!   receiver a [`CompletionKind::Received`] when a message has been fully
//!   delivered. Message ids are assigned by `post_message` in posting order
//!   starting from 0 on each endpoint, and a `Received` completion carries the
//!   id the *sender* assigned (messages on one connection are delivered in
//!   order, so the receiver counts them).
//! * **Goodput.** `delivered_bytes()` is the application payload accepted so
//!   far by this endpoint as a receiver, each byte counted once.
//! * **Host load.** When the scenario enables the receiver rate hint, the
//!   engine calls `set_host_load(n)` on every endpoint of a host whenever the
//!   number `n` of connections with undelivered messages towards that host
//!   changes.

/// Index of a host (0-based). Its IPv4 address is [`host_ipv4`].
pub type HostId = u32;

/// The IPv4 address the simulator gives host `h` (10.0.0.0/8, host `h` = 10.x.y.z with
/// x.y.z = h + 1 in network order). Used for the ECMP 5-tuple.
pub fn host_ipv4(h: HostId) -> u32 {
    0x0A00_0000 | ((h + 1) & 0x00FF_FFFF)
}

/// RoCEv2 UDP destination port (the fixed part of the 5-tuple).
pub const ROCE_UDP_DPORT: u16 = 4791;

/// What the engine needs to know about a frame besides the frame itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxMeta {
    /// Ethernet frame bytes (L2 header to FCS). The engine adds the
    /// preamble and inter-frame gap when serializing.
    pub bytes: u32,
    /// UDP source port: the path entropy hashed by ECMP.
    pub sport: u16,
    /// The frame is ECN-capable (ECT); switches may mark it CE.
    pub ect: bool,
}

/// Which side of a message a completion reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CompletionKind {
    /// Sender: every byte of the message was acknowledged.
    Sent,
    /// Receiver: every byte of the message was delivered.
    Received,
}

/// A completed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Message id (see the module docs).
    pub id: u64,
    /// Completion time, ns.
    pub at_ns: u64,
    /// Sender or receiver side.
    pub kind: CompletionKind,
}

/// Counters an endpoint may report (for tests and result tables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EndpointStats {
    /// Data frames sent, including retransmissions.
    pub data_sent: u64,
    /// Data frames that were retransmissions.
    pub data_retx: u64,
    /// Retransmission timeouts that fired.
    pub timeouts: u64,
    /// Congestion notifications sent by this endpoint as a receiver.
    pub cnps_sent: u64,
    /// The requester's own counters (mrnic only; zero for the baselines): see
    /// [`RequesterCounters`]. Written to `NAME-counters.csv`, not to the main table.
    #[serde(default)]
    pub req: RequesterCounters,
}

/// mrnic requester counters exported to the results (the golden model's `TxStats` of the
/// same names, summed over connections): why a sender did not send, and how it found
/// its losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RequesterCounters {
    /// ACK frames received (cumulative and selective).
    pub acks: u64,
    /// NAK frames received.
    pub naks: u64,
    /// Polls that had data but found the PSN window full.
    pub blocked_window: u64,
    /// Polls that had data but no path had congestion-window room.
    pub blocked_paths: u64,
    /// Polls that had data but the rate hint's token bucket was empty.
    pub blocked_tokens: u64,
    /// Losses detected by a later packet on the same path.
    pub losses_by_path: u64,
    /// Losses detected by a path's retransmission timer.
    pub losses_by_timeout: u64,
    /// Window heads retransmitted by the head timer.
    pub losses_by_head_timer: u64,
    /// Losses declared that the receiver had in fact received.
    pub spurious_losses: u64,
}

impl std::ops::AddAssign for RequesterCounters {
    fn add_assign(&mut self, o: Self) {
        self.acks += o.acks;
        self.naks += o.naks;
        self.blocked_window += o.blocked_window;
        self.blocked_paths += o.blocked_paths;
        self.blocked_tokens += o.blocked_tokens;
        self.losses_by_path += o.losses_by_path;
        self.losses_by_timeout += o.losses_by_timeout;
        self.losses_by_head_timer += o.losses_by_head_timer;
        self.spurious_losses += o.spurious_losses;
    }
}

impl std::ops::AddAssign for EndpointStats {
    fn add_assign(&mut self, o: Self) {
        self.data_sent += o.data_sent;
        self.data_retx += o.data_retx;
        self.timeouts += o.timeouts;
        self.cnps_sent += o.cnps_sent;
        self.req += o.req;
    }
}

/// One end of a connection. See the module docs for the calling contract.
pub trait Endpoint {
    /// The transport's frame type (moved through the fabric, never copied).
    type Frame: 'static;

    /// The next frame this endpoint wants to send *now* on `plane`, or `None`.
    fn poll_tx(&mut self, now_ns: u64, plane: u8) -> Option<(Self::Frame, TxMeta)>;
    /// A frame arrived; `ce` is true when the fabric marked it Congestion Experienced.
    fn on_frame(&mut self, now_ns: u64, frame: Self::Frame, ce: bool);
    /// Earliest time (ns) at which the endpoint needs `on_timer`, or `None`.
    fn next_wakeup(&self) -> Option<u64>;
    /// Timer callback (may be called early or late relative to `next_wakeup`; check the time).
    fn on_timer(&mut self, now_ns: u64);
    /// Application: queue a message of `bytes` (> 0) bytes to the peer; returns its id.
    fn post_message(&mut self, now_ns: u64, bytes: u64) -> u64;
    /// Append and forget the completions since the last call.
    fn take_completions(&mut self, out: &mut Vec<Completion>);
    /// Application payload bytes delivered to this endpoint as a receiver so far.
    fn delivered_bytes(&self) -> u64;
    /// Host-level knowledge for a receiver rate hint: connections actively
    /// receiving at this endpoint's host. Default: ignored.
    fn set_host_load(&mut self, _active_rx_conns: u32) {}
    /// Counters for reports. Default: all zero.
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
}

/// A boxed endpoint of frame type `F`.
pub type BoxEndpoint<F> = Box<dyn Endpoint<Frame = F>>;

/// Everything a factory may use to build the two ends of a connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConnSpec {
    /// Connection index in the run (0-based, dense).
    pub conn: u32,
    /// Host of the first endpoint (the sender in every built-in workload).
    pub a: HostId,
    /// Host of the second endpoint.
    pub b: HostId,
    /// Seed for this connection (derived from the scenario seed).
    pub seed: u64,
    /// Planes each host NIC has (1..=8); valid planes are `0..planes`.
    pub planes: u8,
    /// Rate of one host link (one plane), bits per second.
    pub link_bps: u64,
    /// Unloaded round trip between the farthest hosts: one MTU frame out, one ACK back, ns.
    pub base_rtt_ns: u64,
    /// Maximum payload bytes per data frame.
    pub mtu: u32,
}

impl ConnSpec {
    /// Bandwidth-delay product of one plane's link, bytes.
    pub fn bdp_bytes(&self) -> u64 {
        (self.link_bps as u128 * self.base_rtt_ns as u128 / 8_000_000_000) as u64
    }
}

/// Builds connections for one transport.
pub trait EndpointFactory {
    /// Frame type of the endpoints this factory builds.
    type Frame: 'static;
    /// Short name used in result tables ("roce", "irn", "mrnic").
    fn name(&self) -> String;
    /// The endpoint at `spec.a` and the endpoint at `spec.b`.
    fn pair(&self, spec: &ConnSpec) -> (BoxEndpoint<Self::Frame>, BoxEndpoint<Self::Frame>);
}

/// Object-safe handle on a transport: runs one simulation with it.
///
/// Blanket-implemented for every [`EndpointFactory`], so the engine is
/// monomorphised per frame type while callers can hold `&dyn Transport`.
pub trait Transport {
    /// Short name used in result tables.
    fn name(&self) -> String;
    /// Run one simulation.
    fn run(
        &self,
        cfg: &crate::engine::RunConfig,
        progress: &mut dyn FnMut(&crate::engine::Progress),
    ) -> Result<crate::engine::RunResult, crate::SimError>;
}

impl<T: EndpointFactory> Transport for T {
    fn name(&self) -> String {
        EndpointFactory::name(self)
    }
    fn run(
        &self,
        cfg: &crate::engine::RunConfig,
        progress: &mut dyn FnMut(&crate::engine::Progress),
    ) -> Result<crate::engine::RunResult, crate::SimError> {
        crate::engine::simulate(self, cfg, progress)
    }
}
