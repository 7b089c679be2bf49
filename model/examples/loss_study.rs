//! `cargo run --release -p mrnic-model --example loss_study -- LOSS [MB] [key=value ...]`:
//! one WRITE between two ends over the loopback network (400 Gb/s, 3 µs one way, 8
//! routes) at a random loss rate; prints goodput as % of the link's payload capacity
//! and the requester's counters. `key=value` overrides `[transport]` parameters.

use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::{Qp, QpAddr, QpSetup, TransportConfig, WorkRequest};
use mrnic_model::wire::DataKind;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let loss: f64 = args.first().map(|s| s.parse().expect("LOSS")).unwrap_or(0.01);
    let mb: u64 = args.get(1).map(|s| s.parse().expect("MB")).unwrap_or(64);
    let mut t = toml::Table::try_from(TransportConfig::default()).unwrap();
    for kv in args.iter().skip(2) {
        let (k, v) = kv.split_once('=').expect("key=value");
        let v = if let Ok(i) = v.parse::<i64>() {
            toml::Value::Integer(i)
        } else if let Ok(b) = v.parse::<bool>() {
            toml::Value::Boolean(b)
        } else {
            toml::Value::String(v.into())
        };
        t.insert(k.into(), v);
    }
    let cfg: TransportConfig = t.try_into().expect("transport parameters");
    cfg.validate().unwrap();
    let len = mb << 20;
    let a = QpAddr { mac: [2, 0, 0, 0, 0, 1], ip: [10, 0, 0, 1], qpn: 1 };
    let b = QpAddr { mac: [2, 0, 0, 0, 0, 2], ip: [10, 0, 0, 2], qpn: 2 };
    let (mut qa, mut qb) = Qp::pair(&cfg, QpSetup { local: a, remote: b, isn: 0, peer_isn: 0, path_isn: 0, pd: 1, seed: 1 }, 2).unwrap();
    qb.register(7, 0x1000_0000, len, true, false).unwrap();
    qa.post(WorkRequest { wr_id: 0, kind: DataKind::Write, len, remote_va: 0x1000_0000, rkey: 7, solicited: false, data: None }).unwrap();
    let net = NetConfig { link_gbps: 400.0, delay_ns: 3_000, route_spread_ns: 100, loss, seed: 3, ..Default::default() };
    let mut l = Loopback::new(qa, qb, net);
    let r = l.run_to_completion(1, 0, 10_000_000_000);
    let cap = 400.0 * f64::from(cfg.mtu) / f64::from(cfg.max_data_frame() + 24);
    let g = (len * 8) as f64 / r.end_ns as f64;
    println!("loss {loss}: {:.1} Gb/s = {:.1} % of payload capacity ({:.1} Gb/s), {} us", g, 100.0 * g / cap, cap, r.end_ns / 1000);
    println!("{}", serde_json::to_string(&r.a_tx).unwrap());
    let p = &l.a.req.paths.paths;
    println!("cwnd {:?}", p.iter().map(|x| x.cwnd >> 8).collect::<Vec<_>>());
    println!("srtt us {:?}", p.iter().map(|x| x.srtt_ns() / 1000).collect::<Vec<_>>());
}
