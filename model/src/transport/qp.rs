//! A connection end (queue pair): a [`Requester`] and a [`Responder`] behind one
//! address, plus the connection checks of `docs/protocol.md` §4 step 8 (destination
//! QP, peer address, partition key; path ids are checked by each half).

use super::path::Plane;
use super::placement::{Access, MemoryRegion, RecvBuffer};
use super::requester::{Completion, Requester, WorkRequest};
use super::responder::{RecvCompletion, Responder};
use super::{TransportConfig, TransportError};
use crate::config::ConfigError;
use crate::time::HwTime;
use crate::wire::{Body, Bth, Ecn, EthHeader, Frame, Ipv4Header, UdpHeader};
use serde::{Deserialize, Serialize};

/// Payload of virtual DATA frames ([`Qp::on_frame_virtual`]).
static ZEROS: [u8; crate::wire::MAX_PAYLOAD] = [0; crate::wire::MAX_PAYLOAD];

/// What a half wants to send; the [`Qp`] adds the addresses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Out {
    pub psn: u32,
    pub ack_req: bool,
    pub solicited: bool,
    /// UDP source port (`0xC000 | entropy`).
    pub sport: u16,
    pub body: Body,
}

/// One end's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QpAddr {
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// 24 bits.
    pub qpn: u32,
}

/// What the two ends agree on at connection setup, seen from this end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QpSetup {
    pub local: QpAddr,
    pub remote: QpAddr,
    /// Initial PSN of this end's requester; `peer_isn` of the peer's.
    pub isn: u32,
    pub peer_isn: u32,
    /// Initial path PSN of every path, both directions (default 0).
    pub path_isn: u32,
    /// Protection domain of the responder's memory regions.
    pub pd: u32,
    /// Seed of the path entropies.
    pub seed: u64,
}

impl QpSetup {
    /// The other end of the same connection: local and remote swapped, `isn` and
    /// `peer_isn` swapped, the same path ISN and protection domain, its own entropy `seed`.
    pub fn peer(&self, seed: u64) -> QpSetup {
        QpSetup { local: self.remote, remote: self.local, isn: self.peer_isn, peer_isn: self.isn, seed, ..*self }
    }
}

/// Frames refused by the connection checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QpStats {
    pub rx_wrong_qp: u64,
    pub rx_wrong_peer: u64,
    pub rx_wrong_pkey: u64,
    pub tx_frames: u64,
    pub rx_frames: u64,
}

/// A connection end.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Qp {
    pub cfg: TransportConfig,
    pub setup: QpSetup,
    pub req: Requester,
    pub rsp: Responder,
    pub stats: QpStats,
}

impl Qp {
    /// Both ends of one connection: `a` and its [`QpSetup::peer`] with `b_seed`.
    pub fn pair(cfg: &TransportConfig, a: QpSetup, b_seed: u64) -> Result<(Qp, Qp), ConfigError> {
        Ok((Qp::new(cfg, a)?, Qp::new(cfg, a.peer(b_seed))?))
    }

    /// Refuses an invalid configuration with the reason.
    pub fn new(cfg: &TransportConfig, setup: QpSetup) -> Result<Qp, ConfigError> {
        cfg.validate()?;
        Ok(Qp {
            cfg: cfg.clone(),
            setup,
            req: Requester::new(cfg, setup.isn, setup.path_isn, setup.seed),
            rsp: Responder::new(cfg, setup.peer_isn, setup.path_isn, setup.pd),
            stats: QpStats::default(),
        })
    }

    /// Posts a WRITE or SEND; returns its MSN.
    pub fn post(&mut self, wr: WorkRequest) -> Result<u32, TransportError> {
        self.req.post(wr)
    }

    /// Allocates host memory (zeroed) and registers it as region `rkey`.
    pub fn register(&mut self, rkey: u32, base: u64, len: u64, remote_write: bool, backed: bool) -> Result<(), TransportError> {
        self.register_in(rkey, base, len, remote_write, backed, self.setup.pd)
    }

    /// [`Qp::register`] in protection domain `pd` (another domain's region is refused
    /// to this connection with BadRkey, §6.11).
    pub fn register_in(&mut self, rkey: u32, base: u64, len: u64, remote_write: bool, backed: bool, pd: u32) -> Result<(), TransportError> {
        self.rsp.register(rkey, MemoryRegion { base, len, access: Access { remote_write }, pd }, backed)
    }

    /// Allocates a receive buffer in host memory and posts it.
    pub fn post_recv(&mut self, wr_id: u64, addr: u64, len: u64, backed: bool) -> Result<(), TransportError> {
        self.rsp.alloc_and_post_recv(RecvBuffer { wr_id, addr, len }, backed)
    }

    /// The MSN of the first message and the SSN of the first SEND, both directions
    /// (both ends must be given the same values; default 0): before any traffic.
    pub fn set_initial_msn_ssn(&mut self, msn: u32, ssn: u32) -> Result<(), TransportError> {
        self.req.set_initial_msn_ssn(msn, ssn)?;
        self.rsp.set_initial_msn_ssn(msn, ssn)
    }

    pub fn take_completions(&mut self) -> Vec<Completion> {
        self.req.take_completions()
    }
    pub fn take_recv_completions(&mut self) -> Vec<RecvCompletion> {
        self.rsp.take_completions()
    }

    /// A frame from the network (already decoded: `wire::decode` made checks 1-7).
    pub fn on_frame(&mut self, now: HwTime, f: &Frame) {
        self.on_frame_virtual(now, f, None)
    }

    /// [`Qp::on_frame`] for a DATA frame whose payload was not carried (a simulator
    /// moving millions of frames): `Some(n)` = `n` zero bytes of payload.
    pub fn on_frame_virtual(&mut self, now: HwTime, f: &Frame, payload_len: Option<u32>) {
        self.stats.rx_frames += 1;
        if f.bth.dest_qp != self.setup.local.qpn {
            self.stats.rx_wrong_qp += 1;
            return;
        }
        if f.ip.src != self.setup.remote.ip {
            self.stats.rx_wrong_peer += 1;
            return;
        }
        if f.bth.pkey != self.cfg.pkey {
            self.stats.rx_wrong_pkey += 1;
            return;
        }
        match &f.body {
            Body::Data { kind, ext, placement, payload } => self.rsp.on_data(
                now,
                f.bth.psn,
                f.bth.ack_req,
                f.bth.solicited,
                *kind,
                ext,
                placement,
                match payload_len {
                    Some(n) => &ZEROS[..(n as usize).min(ZEROS.len())],
                    None => payload,
                },
                f.ip.ecn == Ecn::Ce,
                f.udp.src_port,
            ),
            Body::Probe(p) => self.rsp.on_probe(p, f.udp.src_port),
            Body::Ack(a) => self.req.on_ack(now, f.bth.psn, a),
            Body::Nak(n) => self.req.on_nak(now, f.bth.psn, n),
            Body::ProbeReply(r) => self.req.on_probe_reply(now, r),
        }
    }

    /// The next frame to put on the link: the responder's ACK/NAK/PROBE_REPLY first
    /// (small, and they clock the peer), then the requester's.
    pub fn poll_tx(&mut self, now: HwTime) -> Option<Frame> {
        self.poll_tx_on(now, None)
    }

    /// [`Qp::poll_tx`] for one plane of a multi-plane NIC: only frames of the plane's
    /// paths (path `p` is on plane `p mod planes`).
    pub fn poll_tx_on(&mut self, now: HwTime, plane: Option<Plane>) -> Option<Frame> {
        let o = match self.rsp.poll_tx_on(plane) {
            Some(o) => o,
            None => self.req.poll_tx_on(now, plane)?,
        };
        self.stats.tx_frames += 1;
        Some(self.wrap(o))
    }

    /// Earliest time [`Qp::on_timer`] has work (hardware time; serial arithmetic).
    pub fn next_wakeup(&self) -> Option<HwTime> {
        crate::time::earliest(
            self.req.next_wakeup(),
            self.rsp.next_wakeup(),
        )
    }

    pub fn on_timer(&mut self, now: HwTime) {
        self.req.on_timer(now);
        self.rsp.on_timer(now);
    }

    /// The frame around a half's output.
    pub fn wrap(&self, o: Out) -> Frame {
        let (l, r) = (&self.setup.local, &self.setup.remote);
        Frame {
            eth: EthHeader { dst: r.mac, src: l.mac, vlan: None },
            ip: Ipv4Header { dscp: self.cfg.dscp, ecn: Ecn::Ect0, src: l.ip, dst: r.ip, ..Ipv4Header::default() },
            udp: UdpHeader { src_port: o.sport },
            bth: Bth {
                solicited: o.solicited,
                mig_req: true,
                pkey: self.cfg.pkey,
                dest_qp: r.qpn,
                ack_req: o.ack_req,
                psn: o.psn,
            },
            body: o.body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_one_connection_seen_from_both_ends() {
        let a = QpAddr { mac: [2, 0, 0, 0, 0, 1], ip: [10, 0, 0, 1], qpn: 0x11 };
        let b = QpAddr { mac: [2, 0, 0, 0, 0, 2], ip: [10, 0, 0, 2], qpn: 0x12 };
        let sa = QpSetup { local: a, remote: b, isn: 0x10_0000, peer_isn: 0x20_0000, path_isn: 9, pd: 3, seed: 1 };
        let sb = sa.peer(2);
        assert_eq!(sb, QpSetup { local: b, remote: a, isn: 0x20_0000, peer_isn: 0x10_0000, path_isn: 9, pd: 3, seed: 2 });
        assert_eq!(sb.peer(1), sa, "the peer's peer is the first end");
        let (qa, qb) = Qp::pair(&TransportConfig::default(), sa, 2).unwrap();
        assert_eq!((qa.setup, qb.setup), (sa, sb));
        let bad = TransportConfig { paths: 0, ..TransportConfig::default() };
        assert!(Qp::pair(&bad, sa, 2).is_err(), "an invalid configuration is refused");
    }
}
