//! Test plan — the plug-in interface: a transport written outside the crate
//! (here a toy unreliable packet sprayer) runs through `EndpointFactory`,
//! chooses per-packet paths (source port and plane), sees host load with the
//! rate hint on, and `run_scenario` refuses to run mrnic without a factory.

mod common;
use common::*;

use std::cell::Cell;
use std::rc::Rc;

use mrnic_sim::config::{TopologySpec, TrafficKind, TrafficSpec};
use mrnic_sim::transport::{BoxEndpoint, Completion, CompletionKind, ConnSpec, Endpoint, EndpointFactory, TxMeta};

/// Toy frame: payload length and "last of message".
#[derive(Debug)]
struct Chunk {
    len: u32,
    last: bool,
}

/// Sends messages as MTU chunks on whichever plane is free, rotating the source
/// port over 64 values per plane. No reliability (used on loss-free fabrics).
struct Sprayer {
    planes: u8,
    mtu: u32,
    pending: u64,
    msg_left: Vec<u64>,
    next_id: u64,
    sent: [u32; 8],
    delivered: u64,
    rx_msgs: u64,
    comps: Vec<Completion>,
    load_seen: Rc<Cell<u32>>,
}

impl Endpoint for Sprayer {
    type Frame = Chunk;
    fn poll_tx(&mut self, _now: u64, plane: u8) -> Option<(Chunk, TxMeta)> {
        let left = self.msg_left.first_mut()?;
        let len = (*left).min(self.mtu as u64) as u32;
        *left -= len as u64;
        let last = *left == 0;
        if last {
            self.msg_left.remove(0);
        }
        self.pending -= len as u64;
        assert!(plane < self.planes);
        let n = &mut self.sent[plane as usize];
        *n += 1;
        Some((Chunk { len, last }, TxMeta { bytes: len + 62, sport: 50000 + (*n % 64) as u16, ect: true }))
    }
    fn on_frame(&mut self, now: u64, f: Chunk, _ce: bool) {
        self.delivered += f.len as u64;
        if f.last {
            self.comps.push(Completion { id: self.rx_msgs, at_ns: now, kind: CompletionKind::Received });
            self.rx_msgs += 1;
        }
    }
    fn next_wakeup(&self) -> Option<u64> {
        None
    }
    fn on_timer(&mut self, _now: u64) {}
    fn post_message(&mut self, _now: u64, bytes: u64) -> u64 {
        self.pending += bytes;
        self.msg_left.push(bytes);
        self.next_id += 1;
        self.next_id - 1
    }
    fn take_completions(&mut self, out: &mut Vec<Completion>) {
        out.append(&mut self.comps);
    }
    fn delivered_bytes(&self) -> u64 {
        self.delivered
    }
    fn set_host_load(&mut self, n: u32) {
        self.load_seen.set(self.load_seen.get().max(n));
    }
}

struct SprayFactory {
    load_seen: Rc<Cell<u32>>,
}

impl EndpointFactory for SprayFactory {
    type Frame = Chunk;
    fn name(&self) -> String {
        "spray".into()
    }
    fn pair(&self, s: &ConnSpec) -> (BoxEndpoint<Chunk>, BoxEndpoint<Chunk>) {
        let mk = || -> BoxEndpoint<Chunk> {
            Box::new(Sprayer {
                planes: s.planes,
                mtu: s.mtu,
                pending: 0,
                msg_left: Vec::new(),
                next_id: 0,
                sent: [0; 8],
                delivered: 0,
                rx_msgs: 0,
                comps: Vec::new(),
                load_seen: self.load_seen.clone(),
            })
        };
        (mk(), mk())
    }
}

#[test]
fn a_custom_transport_sprays_one_connection_over_every_spine_and_plane() {
    let f = SprayFactory { load_seen: Rc::new(Cell::new(0)) };
    let topo = TopologySpec { planes: 4, ..leaf_spine(4, 8) };
    let mut c = cfg(topo, pairs(&[[0, 4]], 4 << 20));
    c.fabric.buffer_bytes = 64 << 20;
    let r = run(&f, &c);
    assert_exact(&r);
    assert_eq!(r.transport, "spray");
    for p in 0..4u8 {
        let spines_used = r
            .links
            .iter()
            .filter(|l| l.plane == p && l.name.starts_with(&format!("p{p}.leaf0->p{p}.spine")) && l.tx_frames > 0)
            .count();
        assert_eq!(spines_used, 8, "plane {p}");
    }
    // 4 planes at 400 Gb/s: far more than one link's worth
    assert!(r.goodput_gbps > 1000.0, "{}", r.goodput_gbps);
}

#[test]
fn host_load_reaches_endpoints_only_with_the_rate_hint() {
    let incast = TrafficSpec { kind: TrafficKind::Incast, senders: 5, receiver: 0, message_bytes: 64 << 10, ..Default::default() };
    let mut c = cfg(leaf_spine(4, 2), incast);
    c.fabric.buffer_bytes = 16 << 20;
    for (hint, expect) in [(false, 0), (true, 5)] {
        let seen = Rc::new(Cell::new(0));
        c.rate_hint = hint;
        let r = run(&SprayFactory { load_seen: seen.clone() }, &c);
        assert_exact(&r);
        assert_eq!(seen.get(), expect, "rate_hint {hint}");
    }
}

#[test]
fn run_scenario_refuses_mrnic_without_a_factory_and_accepts_one() {
    let text = r#"
        name = "x"
        duration_us = 100
        transports = ["mrnic", "irn"]
        [topology]
        hosts_per_leaf = 2
        spines = 2
        [traffic]
        kind = "flows"
        message_bytes = 65536
    "#;
    let sc = mrnic_sim::Scenario::from_toml_str(text, false).unwrap();
    let err = mrnic_sim::run_scenario(&sc, None, &mut |_| {}).unwrap_err();
    assert!(matches!(err, mrnic_sim::SimError::NoMrnicTransport { .. }), "{err}");
    assert!(err.to_string().contains("mrnic"), "{err}");
    let f = SprayFactory { load_seen: Rc::new(Cell::new(0)) };
    let res = mrnic_sim::run_scenario(&sc, Some(&f), &mut |_| {}).unwrap();
    let names: Vec<&str> = res.records.iter().map(|r| r.result.transport.as_str()).collect();
    assert_eq!(names, ["mrnic", "irn"]);
    assert!(res.records.iter().all(|r| r.result.completed));
}
