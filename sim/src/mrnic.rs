//! The mrnic transport in the simulator: the golden model's [`Qp`] itself (the same
//! code the property tests and the RTL's differential tests use), behind the
//! simulator's [`Endpoint`] trait.
//!
//! - Messages are RDMA WRITEs into a virtual region of the receiver (bounds checked,
//!   bytes not stored) with zero payload.
//! - `poll_tx(plane)` asks the QP for a frame of that plane's paths (path `p` is on
//!   plane `p mod planes`).
//! - A frame the fabric marked CE arrives with IPv4 ECN = CE, as on the wire.
//! - DATA frames travel without their (zero) payload bytes, only its length
//!   ([`MrnicFrame`]): a 1024-host fabric holds ~10^5 frames in flight.
//! - The receiver's rate hint (when the scenario enables it): the host's ingress
//!   capacity divided by the connections actively delivering to it.

use crate::transport::{BoxEndpoint, Completion, CompletionKind, ConnSpec, Endpoint, EndpointFactory, EndpointStats, RequesterCounters, TxMeta};
use mrnic_model::time::HwClock;
use mrnic_model::transport::path::Plane;
use mrnic_model::transport::{Qp, QpAddr, QpSetup, TransportConfig, WorkRequest};
use mrnic_model::wire::{Body, DataKind, Ecn, Frame};

/// Where messages land in the receiver's (virtual) memory.
const REGION: u64 = 0x1000_0000_0000;
const REGION_LEN: u64 = 1 << 40;
const RKEY: u32 = 0x0001_0001;
/// Ethernet FCS: the simulator counts frames up to and including it.
const FCS: u32 = 4;

/// A frame in the fabric: the typed frame with its DATA payload dropped, and the
/// payload's length.
pub struct MrnicFrame {
    pub frame: Frame,
    pub payload_len: u32,
}

/// Builds mrnic connections.
#[derive(Clone, Debug)]
pub struct MrnicFactory {
    /// The transport's parameters; `mtu` is taken from the scenario.
    pub cfg: TransportConfig,
}

impl Default for MrnicFactory {
    fn default() -> Self {
        Self { cfg: TransportConfig::default() }
    }
}

fn addr(h: u32) -> QpAddr {
    let ip = crate::transport::host_ipv4(h).to_be_bytes();
    QpAddr { mac: [2, 0, ip[0], ip[1], ip[2], ip[3]], ip, qpn: 0 }
}

impl EndpointFactory for MrnicFactory {
    type Frame = MrnicFrame;

    fn name(&self) -> String {
        "mrnic".into()
    }

    fn pair(&self, spec: &ConnSpec) -> (BoxEndpoint<MrnicFrame>, BoxEndpoint<MrnicFrame>) {
        let cfg = TransportConfig { mtu: spec.mtu, ..self.cfg.clone() };
        let qpn = spec.conn & 0x00FF_FFFF;
        let (a, b) = (QpAddr { qpn, ..addr(spec.a) }, QpAddr { qpn, ..addr(spec.b) });
        let isn = (spec.seed as u32) & 0x00FF_FFFF;
        let sa = QpSetup { local: a, remote: b, isn, peer_isn: isn ^ 0x5A5A5A, path_isn: 0, pd: 1, seed: spec.seed };
        let sb = sa.peer(!spec.seed);
        let mk = |s: QpSetup| {
            let mut qp = Qp::new(&cfg, s).unwrap_or_else(|e| panic!("mrnic factory: {e}"));
            qp.register(RKEY, REGION, REGION_LEN, true, false).expect("fresh memory");
            Box::new(MrnicEndpoint {
                qp,
                planes: spec.planes.max(1),
                host_capacity_mbps: (spec.link_bps / 1_000_000).saturating_mul(u64::from(spec.planes.max(1))),
                next_id: 0,
                received: 0,
                last_now: 0,
                clock: HwClock::new(u32::from(cfg.cycle_ns), 0),
            }) as BoxEndpoint<MrnicFrame>
        };
        (mk(sa), mk(sb))
    }
}

/// One connection end.
pub struct MrnicEndpoint {
    pub qp: Qp,
    planes: u8,
    host_capacity_mbps: u64,
    next_id: u64,
    received: u64,
    last_now: u64,
    /// Simulator ns -> the NIC's hardware time counter.
    clock: HwClock,
}

impl Endpoint for MrnicEndpoint {
    type Frame = MrnicFrame;

    fn poll_tx(&mut self, now_ns: u64, plane: u8) -> Option<(MrnicFrame, TxMeta)> {
        self.last_now = now_ns;
        let mut f = self.qp.poll_tx_on(self.clock.at(now_ns), Some(Plane { plane, planes: self.planes }))?;
        let meta = TxMeta { bytes: f.wire_len() as u32 + FCS, sport: f.udp.src_port, ect: f.ip.ecn != Ecn::NotEct };
        let mut payload_len = 0;
        if let Body::Data { payload, .. } = &mut f.body {
            payload_len = payload.len() as u32;
            *payload = Vec::new();
        }
        Some((MrnicFrame { frame: f, payload_len }, meta))
    }

    fn on_frame(&mut self, now_ns: u64, mut f: MrnicFrame, ce: bool) {
        self.last_now = now_ns;
        if ce {
            f.frame.ip.ecn = Ecn::Ce;
        }
        self.qp.on_frame_virtual(self.clock.at(now_ns), &f.frame, Some(f.payload_len));
    }

    fn next_wakeup(&self) -> Option<u64> {
        // The deadline is hardware time; the engine wants its own ns (every call into
        // the endpoint updated `last_now`).
        self.qp.next_wakeup().map(|d| self.last_now + self.clock.ns_until(self.last_now, d))
    }

    fn on_timer(&mut self, now_ns: u64) {
        self.last_now = now_ns;
        self.qp.on_timer(self.clock.at(now_ns));
    }

    fn post_message(&mut self, now_ns: u64, bytes: u64) -> u64 {
        self.last_now = now_ns;
        let id = self.next_id;
        self.next_id += 1;
        let wr = WorkRequest { wr_id: id, kind: DataKind::Write, len: bytes, remote_va: REGION, rkey: RKEY, solicited: false, data: None };
        self.qp.post(wr).unwrap_or_else(|e| panic!("mrnic endpoint: {e}"));
        id
    }

    fn take_completions(&mut self, out: &mut Vec<Completion>) {
        for c in self.qp.take_completions() {
            out.push(Completion { id: c.wr_id, at_ns: self.last_now, kind: CompletionKind::Sent });
        }
        // WRITEs have no receive completion in RDMA; the responder's in-order message
        // completions (every packet placed, every earlier message complete) stand in.
        let done = self.qp.rsp.stats.messages_completed;
        while self.received < done {
            out.push(Completion { id: self.received, at_ns: self.last_now, kind: CompletionKind::Received });
            self.received += 1;
        }
    }

    fn delivered_bytes(&self) -> u64 {
        self.qp.rsp.stats.bytes_placed
    }

    fn set_host_load(&mut self, active_rx_conns: u32) {
        // Fair share of the host's ingress, lowered by the CE fraction the connection
        // sees (the responder does that per packet); no hint when alone.
        let base = if active_rx_conns <= 1 {
            0
        } else {
            (self.host_capacity_mbps / u64::from(active_rx_conns)).clamp(1, u64::from(u32::MAX)) as u32
        };
        self.qp.rsp.hint_base = base;
    }

    fn stats(&self) -> EndpointStats {
        let s = &self.qp.req.stats;
        EndpointStats {
            data_sent: s.data_sent,
            data_retx: s.retransmissions,
            timeouts: self.qp.req.paths.paths.iter().map(|p| p.stat_timeouts).sum(),
            cnps_sent: 0,
            req: RequesterCounters {
                acks: s.acks,
                naks: s.naks,
                blocked_window: s.blocked_window,
                blocked_paths: s.blocked_paths,
                blocked_tokens: s.blocked_tokens,
                losses_by_path: s.losses_by_path,
                losses_by_timeout: s.losses_by_timeout,
                losses_by_head_timer: s.losses_by_head_timer,
                spurious_losses: s.spurious_losses,
            },
        }
    }
}
