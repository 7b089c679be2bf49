//! The small ([ci]) version of every experiment of sim/scenarios, run with the mrnic
//! transport (the golden model) and the baselines; each test asserts the result the
//! full-size experiment is about (docs/results.md has the full-size figures).

use mrnic_sim::engine::RunResult;
use mrnic_sim::mrnic::MrnicFactory;
use mrnic_sim::scenario::{run_scenario, Results, Scenario};

fn run(file: &str) -> Results {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(file);
    let sc = Scenario::load(&path, true).unwrap();
    let f = MrnicFactory { cfg: sc.mrnic.clone() };
    run_scenario(&sc, Some(&f), &mut |_| {}).unwrap()
}

fn get<'a>(r: &'a Results, transport: &str, at: impl Fn(&mrnic_sim::scenario::Point) -> bool) -> &'a RunResult {
    &r.records.iter().find(|x| x.result.transport == transport && at(&x.point)).expect("run exists").result
}

fn pct(x: &RunResult) -> f64 {
    100.0 * x.goodput_gbps / x.line_rate_gbps
}

#[test]
fn loss_sweep_mrnic_holds_its_goodput_under_loss_and_beats_go_back_n_and_irn() {
    let r = run("loss_sweep.toml");
    let m = |p: f64| pct(get(&r, "mrnic", |x| x.loss == p));
    let lossless = m(0.0);
    assert!(lossless > 85.0, "lossless {lossless:.1} %");
    assert!(m(0.01) > 0.97 * lossless, "1 %: {:.1} % of line rate vs {lossless:.1} lossless", m(0.01));
    assert!(m(0.10) > 0.75 * lossless, "10 %: {:.1} % of line rate", m(0.10));
    for loss in [0.01, 0.05, 0.1] {
        let (mr, roce, irn) = (get(&r, "mrnic", |x| x.loss == loss), get(&r, "roce", |x| x.loss == loss), get(&r, "irn", |x| x.loss == loss));
        assert!(mr.goodput_gbps > irn.goodput_gbps && irn.goodput_gbps > roce.goodput_gbps, "loss {loss}: {} {} {}", mr.goodput_gbps, irn.goodput_gbps, roce.goodput_gbps);
        assert!(mr.goodput_gbps > 2.0 * roce.goodput_gbps, "go-back-N far below mrnic at {loss}");
    }
}

#[test]
fn path_failure_mrnic_recovers_within_a_millisecond_and_no_connection_stalls() {
    let r = run("path_failure.toml");
    let x = get(&r, "mrnic", |_| true);
    let bin_us = x.bin_ns as f64 / 1000.0;
    let fail_bin = (100.0 / bin_us) as usize;
    let bins = &x.goodput_bins_gbps;
    // Within 1 ms (here: by the end of the 300 us after the failure) at >= 80 % of line rate.
    let tail: Vec<f64> = bins[bins.len() - 6..bins.len() - 1].to_vec();
    let after = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(after >= 0.8 * x.line_rate_gbps, "{after:.0} of {:.0} Gb/s after the failure; bins {bins:?}", x.line_rate_gbps);
    assert!(x.drops.failed > 0, "the blackhole dropped frames");
    // No stalled connection: every flow delivers in the last 100 us.
    let fb = x.flow_bins.as_ref().expect("per-flow bins");
    let last = fb[0].len() - 1;
    for (i, f) in fb.iter().enumerate() {
        assert!(f[last - (100.0 / bin_us) as usize..last].iter().sum::<u64>() > 0, "flow {i} stalled after bin {fail_bin}");
    }
    let roce = get(&r, "roce", |_| true);
    assert!(x.goodput_gbps > roce.goodput_gbps);
}

#[test]
fn incast_with_the_rate_hint_drops_less_and_stays_fair() {
    let r = run("incast.toml");
    let (on, off) = (get(&r, "mrnic", |x| x.rate_hint), get(&r, "mrnic", |x| !x.rate_hint));
    assert!(on.completed && off.completed);
    assert!(on.jain >= 0.95, "Jain {}", on.jain);
    assert!(on.endpoint_stats.timeouts <= off.endpoint_stats.timeouts, "{} > {}", on.endpoint_stats.timeouts, off.endpoint_stats.timeouts);
    let roce = get(&r, "roce", |x| x.rate_hint);
    assert!(on.completion_ns.unwrap() < roce.completion_ns.unwrap(), "mrnic finishes the incast before go-back-N");
}

#[test]
fn collectives_complete_no_later_than_with_rocev2() {
    for file in ["collectives_allreduce.toml", "collectives_alltoall.toml"] {
        let r = run(file);
        for rec in r.records.iter().filter(|x| x.result.transport == "mrnic") {
            let roce = get(&r, "roce", |x| x == &rec.point);
            let (m, g) = (rec.result.completion_ns.expect("completed"), roce.completion_ns.expect("completed"));
            assert!(m as f64 <= 1.05 * g as f64, "{file} {:?}: mrnic {m} ns, RoCE {g} ns", rec.point.message_bytes);
        }
    }
}

#[test]
fn multiplane_aggregate_throughput_grows_with_planes() {
    let r = run("multiplane.toml");
    let mut last = 0.0;
    for planes in [1u8, 2, 4, 8] {
        let x = get(&r, "mrnic", |p| p.planes == planes && p.conns_per_pair == 16);
        assert!(x.goodput_gbps > 1.6 * last, "{planes} planes: {} Gb/s after {last}", x.goodput_gbps);
        assert!(pct(x) > 80.0, "{planes} planes: {:.1} % of line rate", pct(x));
        last = x.goodput_gbps;
    }
}
