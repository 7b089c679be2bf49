//! A simulated exchange for captures: two ends run the transport model over the
//! [`loopback`](super::loopback) network with random loss, a congested (CE-marking)
//! route and a route that dies mid-transfer. The capture, taken at each sender,
//! shows WRITE and SEND data sprayed over four paths, lost frames and their
//! selective retransmissions on other paths, ACKs with SACK bitmaps and ECN echoes,
//! a failed path probed on a re-rolled entropy, and a NAK for a WRITE with a bad rkey.
//! `mrnic pcap` writes it; `model/tests/wire_tshark.rs` dissects it with tshark.

use super::loopback::{Captured, Loopback, NetConfig, Report, RouteFailure};
use super::{Qp, QpAddr, QpSetup, TransportConfig, WorkRequest};
use crate::wire::{encode, pcap, DataKind};

/// Requester (A) and responder (B) addresses of the exchange.
pub const A: QpAddr = QpAddr { mac: [0x02, 0x6d, 0x72, 0x6e, 0x00, 0x01], ip: [10, 0, 0, 1], qpn: 0x12 };
pub const B: QpAddr = QpAddr { mac: [0x02, 0x6d, 0x72, 0x6e, 0x00, 0x02], ip: [10, 0, 0, 2], qpn: 0x34 };
pub const RKEY: u32 = 0x0000_ab01;
pub const VA: u64 = 0x7f00_0000_1000;

/// Runs the exchange; returns every frame in capture order and the run's report.
pub fn exchange(seed: u64) -> (Vec<Captured>, Report) {
    let cfg = TransportConfig { paths: 4, mtu: 1024, cwnd_init: 8, ..Default::default() };
    let sa = QpSetup { local: A, remote: B, isn: 0x00_1000, peer_isn: 0x00_2000, path_isn: 0, pd: 1, seed };
    let (mut a, mut b) = Qp::pair(&cfg, sa, !seed).expect("valid config");
    b.register(RKEY, VA, 1 << 20, true, true).expect("fresh memory");
    b.post_recv(1, 0x7e00_0000_0000, 4096, true).expect("fresh memory");
    let data = |n: usize, k: u8| -> Option<std::sync::Arc<[u8]>> { Some((0..n).map(|i| (i as u8).wrapping_mul(k)).collect::<Vec<u8>>().into()) };
    let wrs = [
        WorkRequest { wr_id: 1, kind: DataKind::Write, len: 160 * 1024, remote_va: VA, rkey: RKEY, solicited: false, data: data(160 * 1024, 3) },
        WorkRequest { wr_id: 2, kind: DataKind::Send, len: 3000, remote_va: 0, rkey: 0, solicited: true, data: data(3000, 5) },
        WorkRequest { wr_id: 3, kind: DataKind::Write, len: 512, remote_va: VA, rkey: 0xdead, solicited: false, data: data(512, 7) },
    ];
    for wr in wrs {
        a.post(wr).expect("not in error");
    }
    let net = NetConfig {
        link_gbps: 10.0,
        delay_ns: 2_000,
        route_spread_ns: 500,
        routes: 4,
        loss: 0.03,
        ce_routes: vec![3],
        failures: vec![RouteFailure { route: 1, from_ns: 30_000, until_ns: u64::MAX }],
        through_bytes: true,
        seed,
        ..Default::default()
    };
    let mut l = Loopback::new(a, b, net);
    l.capture = Some(Vec::new());
    let r = l.run_to_completion(3, 1, 100_000_000);
    // Let the last ACKs and NAKs drain into the capture.
    let end = l.now + 20_000;
    l.run_until(end, |_| false);
    (l.capture.take().unwrap_or_default(), r)
}

/// Writes captured frames as a pcap (dropped ones included: the tap is at the sender).
pub fn write_pcap<W: std::io::Write>(w: W, frames: &[Captured]) -> std::io::Result<usize> {
    let mut p = pcap::PcapWriter::new(w)?;
    for c in frames {
        p.write(c.t_ns, &encode(&c.frame))?;
    }
    let n = p.frames();
    p.into_inner()?;
    Ok(n)
}
