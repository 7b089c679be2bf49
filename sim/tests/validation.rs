//! Issue 13, validation against published figures: the `[ci]` variants of
//! `sim/scenarios/dcqcn_two_flow.toml` (DCQCN two-flow convergence, Zhu et al. 2015) and
//! `sim/scenarios/irn_fattree40.toml` (IRN vs RoCEv2 with and without PFC, Mittal et al.
//! 2018), run through the scenario loader as the CLI runs them, and the per-connection
//! start offsets the first one needs.

mod common;
use common::*;

use mrnic_sim::scenario::{run_scenario, Results, Scenario, TransportKind};
use mrnic_sim::RunResult;

fn load_ci(file: &str, transports: &[TransportKind]) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(file);
    let mut sc = Scenario::load(&path, true).expect("scenario loads");
    sc.transports = transports.to_vec();
    sc
}

fn results(sc: &Scenario) -> Results {
    run_scenario(sc, None, &mut |_| {}).expect("runs")
}

/// Mean goodput of connection `flow` over bins `from..to`, Gb/s.
fn flow_gbps(r: &RunResult, flow: usize, from: usize, to: usize) -> f64 {
    let fb = r.flow_bins.as_ref().expect("per-flow bins kept for 2 flows");
    let bytes: u64 = fb[flow][from..to].iter().sum();
    bytes as f64 * 8.0 / ((to - from) as f64 * r.bin_ns as f64)
}

#[test]
fn dcqcn_at_40g_one_flow_alone_reaches_line_rate_and_two_flows_converge_to_within_20_percent() {
    // [ci]: 30 ms, bins of 500 us, flow 1 joins at 5 ms (bin 10)
    let sc = load_ci("dcqcn_two_flow.toml", &[TransportKind::Roce]);
    assert_eq!(sc.fabric.link_gbps, 40.0);
    assert_eq!(sc.traffic.flow_start_us, vec![0.0, 5000.0]);
    let res = results(&sc);
    let r = &res.records[0].result;
    assert_eq!(r.bin_ns, 500_000);
    // framing caps a 1024-byte RoCEv2 frame at 1024 / 1106 of 40 Gb/s = 37.03 Gb/s
    let cap = 40.0 * 1024.0 / 1106.0;
    let alone = flow_gbps(r, 0, 1, 10);
    assert!(alone > 0.99 * cap, "flow 0 alone: {alone:.2} Gb/s of {cap:.2}");
    assert_eq!(flow_gbps(r, 1, 0, 10), 0.0, "flow 1 sends nothing before its start");
    // the last 10 ms (bins 40..60): each flow near the fair share, the link full
    let (f0, f1) = (flow_gbps(r, 0, 40, 60), flow_gbps(r, 1, 40, 60));
    assert!(f0.min(f1) / f0.max(f1) >= 0.8, "not converged: {f0:.2} vs {f1:.2} Gb/s");
    assert!(f0 + f1 > 0.95 * cap, "link not full after convergence: {:.2} Gb/s", f0 + f1);
    assert!(r.endpoint_stats.cnps_sent > 0, "DCQCN reacted to ECN marks");
    assert_eq!(r.drops.total(), 0, "DCQCN kept the queue below the 1 MiB buffer: {:?}", r.drops);
    // the control: without DCQCN the second flow overflows the buffer (so the zero-drop
    // assertion above is a property of the rate control, not of the setup)
    let mut off = sc.clone();
    off.roce.dcqcn.enabled = false;
    let o = &results(&off).records[0].result;
    assert!(o.drops.buffer > 0, "no CC and no drops? {:?}", o.drops);
    assert_eq!(o.endpoint_stats.cnps_sent, 0);
}

#[test]
fn irn_at_40g_matches_roce_without_loss_and_beats_roce_with_pfc_and_without_it_under_congestion_drops() {
    // [ci]: 240 KiB and 3840 KiB all-to-all on the k = 4 fat-tree (16 and 256 KiB per flow)
    let sc = load_ci("irn_fattree40.toml", &[TransportKind::Roce, TransportKind::RocePfc, TransportKind::Irn]);
    let res = results(&sc);
    let mean_fct = |rec: &RunResult| {
        assert_exact(rec);
        rec.flows.iter().map(|f| f.fct_ns.unwrap() as f64).sum::<f64>() / rec.flows.len() as f64
    };
    let at = |bytes: u64, t: &str| {
        res.records.iter().find(|x| x.point.message_bytes == bytes && x.result.transport == t).map(|x| &x.result).unwrap()
    };
    // small: nothing is dropped, and the three are the same transport in effect
    let small: Vec<f64> = ["roce", "roce_pfc", "irn"].iter().map(|t| mean_fct(at(245_760, t))).collect();
    assert_eq!(at(245_760, "roce").drops.total(), 0);
    assert!(small.iter().all(|&x| x == small[0]), "no loss, same FCTs: {small:?}");
    // large: RoCEv2 without PFC tail-drops and goes back N; PFC removes the drops; IRN
    // drops but recovers selectively, and finishes its flows sooner than either
    let (roce, pfc, irn) = (at(3_932_160, "roce"), at(3_932_160, "roce_pfc"), at(3_932_160, "irn"));
    assert!(roce.drops.buffer > 1000 && irn.drops.buffer > 0, "{:?} / {:?}", roce.drops, irn.drops);
    assert_eq!(pfc.drops.total(), 0);
    assert!(pfc.pfc_pauses > 0);
    let (fr, fp, fi) = (mean_fct(roce), mean_fct(pfc), mean_fct(irn));
    assert!(fi < 0.95 * fp, "IRN mean FCT {fi:.0} ns vs RoCE+PFC {fp:.0} ns");
    assert!(fp < fr, "RoCE+PFC {fp:.0} ns vs RoCE {fr:.0} ns");
    // IRN resends about what was lost; go-back-N resends far more than it lost
    assert!(irn.endpoint_stats.data_retx < 2 * irn.drops.total());
    assert!(roce.endpoint_stats.data_retx > roce.drops.total());
}

#[test]
fn flow_start_us_delays_a_connection_and_its_fct_counts_from_its_own_start() {
    // two 64 KiB flows between different host pairs; the second starts 100 us later
    let mut c = cfg(leaf_spine(2, 2), pairs(&[[0, 2], [1, 3]], 64 * 1024));
    c.bin_us = 10.0;
    c.traffic.flow_start_us = vec![0.0, 100.0];
    let r = run(&roce(true), &c);
    assert_exact(&r);
    let fb = r.flow_bins.as_ref().unwrap();
    assert!(fb[1][..10].iter().all(|&b| b == 0), "flow 1 delivered before 100 us: {:?}", &fb[1][..10]);
    assert!(fb[0][..10].iter().sum::<u64>() == 64 * 1024, "flow 0 finished in its first 100 us");
    let (a, b) = (r.flows[0].fct_ns.unwrap(), r.flows[1].fct_ns.unwrap());
    // disjoint pairs, no sharing: the same FCT within a few ns when counted from each start
    assert!(a.abs_diff(b) < 50, "fct {a} vs {b} ns");
    assert!(r.completion_ns.unwrap() >= 100_000 + b - 10);
    // a negative offset, and more offsets than connections, are refused
    c.traffic.flow_start_us = vec![-1.0];
    assert!(c.validate().is_err());
    c.traffic.flow_start_us = vec![0.0, 1.0, 2.0];
    let e = mrnic_sim::simulate(&roce(true), &c, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("3 offsets for 2 connections"), "{e}");
}
