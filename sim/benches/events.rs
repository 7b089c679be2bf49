//! `cargo bench -p mrnic-sim`: simulated events per second on a 128-host
//! leaf-spine (8 leaves x 16 hosts, 8 spines, 400 Gb/s) with every host
//! streaming across the fabric, for mrnic (the golden model's QPs) and both
//! baselines, with and without 1% loss. Also simulated time per wall second.

use std::time::Instant;

use mrnic_sim::baseline::{IrnFactory, RoceFactory};
use mrnic_sim::mrnic::MrnicFactory;
use mrnic_sim::config::{LossScope, TopologySpec, TrafficKind, TrafficSpec};
use mrnic_sim::transport::EndpointFactory;
use mrnic_sim::{simulate, RunConfig};

fn bench<F: EndpointFactory>(f: &F, loss: f64) -> f64 {
    let cfg = RunConfig {
        topology: TopologySpec { hosts_per_leaf: 16, leaves: 8, spines: 8, ..Default::default() },
        traffic: TrafficSpec { kind: TrafficKind::Flows, messages: 0, message_bytes: 4 << 20, ..Default::default() },
        duration_us: 500.0,
        fabric: mrnic_sim::config::FabricSpec { loss, loss_scope: LossScope::HostEgress, ..Default::default() },
        ..Default::default()
    };
    let mut best = 0.0f64;
    let mut wall = f64::MAX;
    let mut frames = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let r = simulate(f, &cfg, &mut |_| {}).expect("valid");
        let s = t.elapsed().as_secs_f64();
        best = best.max(r.events as f64 / s);
        wall = wall.min(s);
        frames = r.endpoint_stats.data_sent;
        std::hint::black_box(&r);
    }
    println!(
        "events/{:<5} loss {:>5}%  {:>6.2} M events/s, {:>5.2} M data frames/s, {:>6.1} us simulated per wall s (best of 3, {} hosts, 500 µs simulated)",
        f.name(),
        loss * 100.0,
        best / 1e6,
        frames as f64 / wall / 1e6,
        500.0 / wall,
        128
    );
    best
}

fn main() {
    // `cargo test --benches` passes --bench-less args; keep it quick then
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    bench(&MrnicFactory::default(), 0.0);
    bench(&MrnicFactory::default(), 0.01);
    bench(&RoceFactory::default(), 0.0);
    bench(&IrnFactory::default(), 0.0);
    bench(&RoceFactory::default(), 0.01);
    bench(&IrnFactory::default(), 0.01);
}
