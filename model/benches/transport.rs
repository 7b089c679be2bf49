//! `cargo bench -p mrnic-model --bench transport`: a two-end transfer in the transport
//! model over the loopback network (400 Gb/s links, 8 paths, MTU 4096): data packets
//! of simulated traffic processed per wall-clock second, and simulated time per wall
//! time. One 16 MiB WRITE (4096 packets), clean and at 1 % loss; payload bytes are
//! zeros and host memory is virtual (the simulator's mode), and once with real bytes
//! (copied into each packet and placed into host memory).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mrnic_model::transport::loopback::{Loopback, NetConfig, Report};
use mrnic_model::transport::{Qp, QpAddr, QpSetup, TransportConfig, WorkRequest};
use mrnic_model::wire::DataKind;
use std::sync::Arc;
use std::time::Instant;

const LEN: u64 = 16 << 20;

fn transfer(loss: f64, data: Option<Arc<[u8]>>) -> (Loopback, Report) {
    let real_bytes = data.is_some();
    let cfg = TransportConfig::default();
    let a = QpAddr { mac: [2, 0, 0, 0, 0, 1], ip: [10, 0, 0, 1], qpn: 1 };
    let b = QpAddr { mac: [2, 0, 0, 0, 0, 2], ip: [10, 0, 0, 2], qpn: 2 };
    let (mut qa, mut qb) = Qp::pair(&cfg, QpSetup { local: a, remote: b, isn: 0, peer_isn: 0, path_isn: 0, pd: 1, seed: 1 }, 2).unwrap();
    qb.register(7, 0x1000_0000, LEN, true, real_bytes).unwrap();
    qa.post(WorkRequest { wr_id: 0, kind: DataKind::Write, len: LEN, remote_va: 0x1000_0000, rkey: 7, solicited: false, data })
        .unwrap();
    let net = NetConfig { link_gbps: 400.0, delay_ns: 2_000, loss, seed: 3, ..Default::default() };
    let mut l = Loopback::new(qa, qb, net);
    let r = l.run_to_completion(1, 0, 10_000_000_000);
    assert!(r.finished);
    (l, r)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("transport");
    g.sample_size(10);
    for (name, loss, real) in [("16MiB_clean", 0.0, false), ("16MiB_1pct_loss", 0.01, false), ("16MiB_clean_real_bytes", 0.0, true)] {
        let data: Option<Arc<[u8]>> = real.then(|| (0..LEN).map(|i| i as u8).collect::<Vec<u8>>().into());
        let (_, r) = transfer(loss, data.clone());
        let t0 = Instant::now();
        let (_, r2) = transfer(loss, data.clone());
        let wall = t0.elapsed().as_nanos() as f64;
        assert_eq!(r.a_tx.data_sent, r2.a_tx.data_sent, "deterministic");
        println!(
            "transport/{name}: {} data packets ({} retransmitted), {} frames, {:.1} us simulated, goodput {:.1} Gb/s; simulated/wall time {:.3}",
            r.a_tx.data_sent,
            r.a_tx.retransmissions,
            r.net.frames,
            r.end_ns as f64 / 1e3,
            (LEN * 8) as f64 / r.end_ns as f64,
            r.end_ns as f64 / wall
        );
        g.throughput(Throughput::Elements(r.a_tx.data_sent));
        g.bench_function(name, |b| b.iter(|| transfer(loss, data.clone())));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
