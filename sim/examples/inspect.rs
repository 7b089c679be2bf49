//! `cargo run --release -p mrnic-sim --example inspect -- SCENARIO.toml [--ci]`: per run,
//! the goodput and peak-queue time series (every 5th bin) and the convergence time.
use mrnic_sim::mrnic::MrnicFactory;
use mrnic_sim::scenario::{run_scenario, Scenario};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sc = Scenario::load(std::path::Path::new(&args[0]), args.iter().any(|a| a == "--ci")).unwrap();
    let f = MrnicFactory { cfg: sc.mrnic.clone() };
    let res = run_scenario(&sc, Some(&f), &mut |_| {}).unwrap();
    for r in &res.records {
        let x = &r.result;
        println!("== {} {} conv {:?} base_rtt {} ns bin {} ns", x.transport, x.label, x.convergence_rtts, x.base_rtt_ns, x.bin_ns);
        let q: Vec<String> = x.queue_bins.iter().step_by(5).map(|b| format!("{}", b / 1000)).collect();
        println!("queue KB: {}", q.join(" "));
        let g: Vec<String> = x.goodput_bins_gbps.iter().step_by(5).map(|b| format!("{b:.0}")).collect();
        println!("goodput : {}", g.join(" "));
    }
}
