//! A stream of frames into both ends of a connection: the input is split into
//! length-prefixed chunks; each chunk that decodes is re-addressed to one end (so it
//! passes the connection checks) and delivered. Nothing may panic, nothing may be
//! written outside host memory allocations, and the requester's books must balance.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrnic_model::transport::{Qp, QpAddr, QpSetup, TransportConfig, WorkRequest};
use mrnic_model::wire::{self, DataKind};

fn ends() -> (Qp, Qp) {
    let cfg = TransportConfig { paths: 4, mtu: 256, window: 32, cwnd_max: 32, ..Default::default() };
    let a = QpAddr { mac: [2, 0, 0, 0, 0, 1], ip: [10, 0, 0, 1], qpn: 1 };
    let b = QpAddr { mac: [2, 0, 0, 0, 0, 2], ip: [10, 0, 0, 2], qpn: 2 };
    let mut qa = Qp::new(&cfg, QpSetup { local: a, remote: b, isn: 0, peer_isn: 0, path_isn: 0, pd: 1, seed: 1 }).unwrap();
    let mut qb = Qp::new(&cfg, QpSetup { local: b, remote: a, isn: 0, peer_isn: 0, path_isn: 0, pd: 1, seed: 2 }).unwrap();
    qb.register(7, 0x1000, 4096, true, true).unwrap();
    qb.post_recv(1, 0x10_0000, 1024, true).unwrap();
    for k in 0..4 {
        let kind = if k % 2 == 0 { DataKind::Write } else { DataKind::Send };
        qa.post(WorkRequest { wr_id: k, kind, len: 600, remote_va: 0x1000, rkey: 7, solicited: false, data: None }).unwrap();
    }
    (qa, qb)
}

fuzz_target!(|data: &[u8]| {
    let (mut a, mut b) = ends();
    let mut now = mrnic_model::time::HwTime(0);
    let mut rest = data;
    while rest.len() >= 3 {
        let n = usize::from(u16::from_le_bytes([rest[0], rest[1]])).min(rest.len() - 3);
        let to_b = rest[2] & 1 == 0;
        let chunk = &rest[3..3 + n];
        rest = &rest[3 + n..];
        now = now.add(1_000);
        // Real traffic both ways, then the fuzzed frame.
        while let Some(f) = a.poll_tx(now) {
            b.on_frame(now, &f);
        }
        while let Some(f) = b.poll_tx(now) {
            a.on_frame(now, &f);
        }
        if let Ok(mut f) = wire::decode(chunk) {
            let (to, from) = if to_b { (&mut b, a.setup.local) } else { (&mut a, b.setup.local) };
            f.bth.dest_qp = to.setup.local.qpn;
            f.ip.src = from.ip;
            f.bth.pkey = to.cfg.pkey;
            to.on_frame(now, &f);
        }
        a.on_timer(now);
        b.on_timer(now);
        assert_eq!(b.rsp.mem.violations, 0);
        a.req.check_invariants().unwrap();
    }
});
