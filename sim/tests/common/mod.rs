//! Shared helpers for the integration tests: small fabrics and one-call runs.
#![allow(dead_code)]

use mrnic_sim::baseline::dcqcn::DcqcnConfig;
use mrnic_sim::baseline::irn::IrnConfig;
use mrnic_sim::baseline::roce::RoceConfig;
use mrnic_sim::baseline::{IrnFactory, RoceFactory};
use mrnic_sim::config::{FlowPattern, TopologySpec, TrafficKind, TrafficSpec};
use mrnic_sim::transport::EndpointFactory;
use mrnic_sim::{simulate, RunConfig, RunResult};

/// 2 leaves x `hpl` hosts, `spines` spines, 400 Gb/s.
pub fn leaf_spine(hpl: u32, spines: u32) -> TopologySpec {
    TopologySpec { hosts_per_leaf: hpl, leaves: 2, spines, ..Default::default() }
}

/// Flows between explicit host pairs, `bytes` each (one message).
pub fn pairs(p: &[[u32; 2]], bytes: u64) -> TrafficSpec {
    TrafficSpec {
        kind: TrafficKind::Flows,
        pattern: FlowPattern::Explicit,
        pairs: p.to_vec(),
        message_bytes: bytes,
        messages: 1,
        ..Default::default()
    }
}

/// Base config: `topology`, `traffic`, 2 ms limit.
pub fn cfg(topology: TopologySpec, traffic: TrafficSpec) -> RunConfig {
    RunConfig { topology, traffic, duration_us: 2000.0, ..Default::default() }
}

pub fn no_cc() -> DcqcnConfig {
    DcqcnConfig { enabled: false, ..Default::default() }
}

pub fn roce(cc: bool) -> RoceFactory {
    RoceFactory { cfg: RoceConfig { dcqcn: if cc { DcqcnConfig::default() } else { no_cc() }, ..Default::default() } }
}

pub fn irn(cc: bool) -> IrnFactory {
    IrnFactory { cfg: IrnConfig { dcqcn: if cc { DcqcnConfig::default() } else { no_cc() }, ..Default::default() } }
}

pub fn run<F: EndpointFactory>(f: &F, c: &RunConfig) -> RunResult {
    simulate(f, c, &mut |_| {}).expect("valid config")
}

/// Every flow delivered exactly what it was asked to.
pub fn assert_exact(r: &RunResult) {
    assert!(r.completed, "{}: workload did not complete by {} ns", r.transport, r.end_ns);
    for (i, f) in r.flows.iter().enumerate() {
        assert_eq!(Some(f.delivered_bytes), f.expected_bytes, "{} flow {i}", r.transport);
    }
}
