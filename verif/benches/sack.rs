//! `cargo bench -p mrnic-verif --bench sack`: the SACK engine's golden model in packets/s and
//! the Verilated RTL in cycles/s (default preset: 1024 connections, 256-bit window).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mrnic_model::sack::{SackEngine, SackOp, SackShell};
use mrnic_model::stimulus::SackStimulus;
use mrnic_model::Config;
use mrnic_verif::sack::verilated::{build, VlSack};
use mrnic_verif::sack::SackDut;

const N: u64 = 100_000;

fn ops(n: u64) -> Vec<SackOp> {
    let mut stim = SackStimulus::new(9, 1024, 256);
    let mut v = Vec::with_capacity(n as usize);
    while (v.len() as u64) < n {
        let i = stim.next_inputs(true);
        if i.s_valid && !i.rst {
            v.push(SackOp { conn: i.s_conn, psn: i.s_psn, clear: i.s_clear });
        }
    }
    v
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sack");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));

    let list = ops(N);
    g.bench_function("model_functions_packets", |b| {
        b.iter(|| {
            let mut e = SackEngine::new(1024, 256);
            for op in &list {
                black_box(e.apply(*op));
            }
        })
    });

    let mut stim = SackStimulus::new(10, 1024, 256);
    let inputs: Vec<_> = (0..N).map(|_| stim.next_inputs(true)).collect();
    g.bench_function("model_cycle_shell_cycles", |b| {
        b.iter(|| {
            let mut sh = SackShell::new(1024, 256);
            for i in &inputs {
                black_box(sh.step(i));
            }
        })
    });

    let cfg = Config::preset("default").unwrap();
    let t = mrnic_hdl::tops::sack_engine(&cfg).unwrap();
    let model = build("sack_default", &cfg, &t.verilog);
    let mut dut = VlSack::new(model.sim().unwrap());
    g.bench_function("verilated_rtl_cycles", |b| {
        b.iter(|| {
            for i in &inputs {
                black_box(dut.cycle(i));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
