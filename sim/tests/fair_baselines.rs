//! Issue 13: the fair baselines and the fabric features they need (PFC, bursty and
//! one-link loss), run through the engine.

mod common;
use common::*;

use mrnic_sim::baseline::irn::IrnConfig;
use mrnic_sim::baseline::roce::RoceConfig;
use mrnic_sim::baseline::{IrnFactory, RoceFactory};
use mrnic_sim::config::{LinkRef, LossModel, LossScope, TrafficKind, TrafficSpec};
use mrnic_sim::scenario::{run_scenario, Scenario};

fn incast7() -> mrnic_sim::RunConfig {
    let incast = TrafficSpec {
        kind: TrafficKind::Incast,
        senders: 7,
        receiver: 0,
        messages: 2,
        message_bytes: 1 << 20,
        ..Default::default()
    };
    let mut c = cfg(leaf_spine(4, 2), incast);
    c.duration_us = 3000.0;
    c
}

#[test]
fn pfc_never_drops_on_a_congested_queue() {
    // 7 -> 1 incast without congestion control: 7 x line rate into one port
    let mut c = incast7();
    let f = RoceFactory { cfg: RoceConfig { dcqcn: no_cc(), ..RoceConfig::fair() } };
    let lossy = run(&f, &c);
    assert!(lossy.drops.buffer > 100, "without PFC the 1 MiB port tail-drops ({})", lossy.drops.buffer);
    c.fabric.pfc.enabled = true;
    let r = run(&f, &c);
    assert_exact(&r);
    assert_eq!(r.drops.total(), 0, "lossless: {:?}", r.drops);
    assert!(r.pfc_pauses > 10, "PAUSE frames sent: {}", r.pfc_pauses);
    assert_eq!(r.endpoint_stats.data_retx, 0);
    assert_eq!(r.endpoint_stats.timeouts, 0);
    // the receiver's port stays near XOFF per ingress, not the 7 x line-rate pile-up
    assert!(r.completion_ns < lossy.completion_ns, "pfc {:?} vs lossy {:?}", r.completion_ns, lossy.completion_ns);
}

#[test]
fn pfc_keeps_injected_random_loss() {
    // PFC removes congestion loss only: corruption-style random loss on host links remains
    let mut c = incast7();
    c.fabric.pfc.enabled = true;
    c.fabric.loss = 0.01;
    c.fabric.loss_scope = LossScope::HostEgress;
    let r = run(&RoceFactory { cfg: RoceConfig::fair() }, &c);
    assert_exact(&r);
    assert_eq!(r.drops.buffer, 0);
    assert!(r.drops.random > 0);
}

#[test]
fn loss_on_one_link_only_bernoulli_and_gilbert_elliott() {
    // one flow on 2 hosts, loss on the sender's uplink only
    let mut c = cfg(leaf_spine(1, 1), pairs(&[[0, 1]], 64 << 20));
    c.fabric.loss = 0.01;
    c.fabric.loss_scope = LossScope::Links;
    c.fabric.loss_links = vec![LinkRef { a: "host0".into(), b: "leaf0".into(), plane: 0, direction: mrnic_sim::config::Direction::Forward }];
    c.duration_us = 4000.0;
    let f = IrnFactory { cfg: IrnConfig { dcqcn: no_cc(), ..IrnConfig::fair() } };
    let bern = run(&f, &c);
    c.fabric.loss_model = LossModel::GilbertElliott;
    let ge = run(&f, &c);
    for r in [&bern, &ge] {
        assert_exact(r);
        let frames: u64 = r.links.iter().map(|l| l.tx_frames).max().unwrap();
        let rate = r.drops.random as f64 / frames as f64;
        // ~16 000 frames; GE's losses come in ~5-frame bursts, so its count is noisier
        assert!((0.005..0.02).contains(&rate), "loss rate {rate} of {frames}");
        // only the one named link dropped anything
        let lossy: Vec<_> = r.links.iter().filter(|l| l.drops.random > 0).map(|l| l.name.clone()).collect();
        assert_eq!(lossy.len(), 1, "{lossy:?}");
    }
    assert_ne!(bern.drops.random, ge.drops.random, "the two loss models draw differently");
}

#[test]
fn gilbert_elliott_parameters_are_checked() {
    let mut c = cfg(leaf_spine(1, 1), pairs(&[[0, 1]], 1 << 20));
    c.fabric.loss_model = LossModel::GilbertElliott;
    c.fabric.loss = 0.6;
    assert!(c.validate().is_err(), "loss above the bad-state loss cannot be reached");
    c.fabric.loss = 0.01;
    c.fabric.ge_burst_frames = 0.5;
    assert!(c.validate().is_err());
}

const FAIR: &str = r#"
name = "fair"
duration_us = 150
transports = ["mrnic", "mrnic_1path", "roce", "roce_renak", "roce_pfc", "irn", "irn_fair", "spray"]
[topology]
kind = "leaf_spine"
hosts_per_leaf = 4
leaves = 2
spines = 4
[fabric]
loss_scope = "host_egress"
[traffic]
kind = "flows"
pattern = "shift"
messages = 0
message_bytes = 4194304
[sweep]
loss = [0.0, 0.01]
"#;

#[test]
fn every_fair_transport_runs_in_a_scenario() {
    let sc = Scenario::from_toml_str(FAIR, false).expect("valid");
    assert_eq!(sc.irn_fair, IrnConfig::fair());
    assert_eq!(sc.spray, IrnConfig::spray());
    assert_eq!(sc.roce_fair, RoceConfig::fair());
    let m = mrnic_sim::mrnic::MrnicFactory { cfg: sc.mrnic.clone() };
    let res = run_scenario(&sc, Some(&m), &mut |_| {}).expect("runs");
    assert_eq!(res.records.len(), 16);
    let get = |t: &str, loss: f64| {
        res.records.iter().find(|r| r.result.transport == t && r.point.loss == loss).map(|r| &r.result).expect(t)
    };
    for t in ["mrnic", "mrnic_1path", "roce", "roce_renak", "roce_pfc", "irn", "irn_fair", "spray"] {
        assert!(get(t, 0.0).goodput_gbps > 100.0, "{t}: {}", get(t, 0.0).goodput_gbps);
    }
    // roce_pfc is the only lossless one and the only one that pauses
    assert_eq!(get("roce_pfc", 0.0).drops.buffer, 0);
    assert_eq!(get("roce_pfc", 0.01).drops.buffer, 0);
    assert!(get("roce_pfc", 0.01).drops.random > 0);
    assert_eq!(get("roce_renak", 0.0).pfc_pauses, 0);
    // on 4 spines, the single-path mrnic collides on ECMP like the other single-path ones:
    // multipath is worth more than 10 % at 0 loss here
    assert!(get("mrnic", 0.0).goodput_gbps > 1.1 * get("mrnic_1path", 0.0).goodput_gbps);
    // the requester counters reach the results: mrnic's own, zero for a baseline
    let (m1, s1) = (get("mrnic", 0.01), get("spray", 0.01));
    assert!(m1.endpoint_stats.req.acks > 0 && m1.endpoint_stats.req.losses_by_path > 0, "{:?}", m1.endpoint_stats);
    assert_eq!(s1.endpoint_stats.req, Default::default());
    let csv = mrnic_sim::output::counters_csv(&res);
    assert_eq!(csv.lines().count(), res.records.len() + 1);
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let i = res.records.iter().position(|r| r.result.transport == "mrnic" && r.point.loss == 0.01).expect("mrnic run");
    let row: Vec<&str> = csv.lines().nth(i + 1).expect("mrnic row").split(',').collect();
    assert_eq!((row[0], row[1]), (i.to_string().as_str(), "mrnic"));
    assert_eq!(row[col("acks")], m1.endpoint_stats.req.acks.to_string());
    assert_eq!(row[col("blocked_window")], m1.endpoint_stats.req.blocked_window.to_string());
    assert_eq!(row[col("data_retx")], m1.endpoint_stats.data_retx.to_string());
    // bad names are refused
    assert!(Scenario::from_toml_str(&FAIR.replace("\"spray\"]", "\"sprey\"]"), false).is_err());
}
