//! `cargo bench -p mrnic-verif --bench sack`: the SACK engine's golden model in packets/s, and
//! through the kit: the model's cycle shell and the Verilated RTL in cycles/s, and the whole
//! differential loop (stimulus + model + RTL + compare) in cycles/s (default preset: 1024
//! connections, 256-bit window).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mrnic_model::sack::{SackEngine, SackOp};
use mrnic_model::Config;
use mrnic_verif::blocks::{self, sack::stimulus::SackStimulus};
use mrnic_verif::kit::{run_differential, DeviceFactory, RunOpts, StimOpts, Values, VlFactory};
use mrnic_verif::vl::{BuildOpts, Model};

const N: u64 = 100_000;

fn ops(n: u64) -> Vec<SackOp> {
    let mut stim = SackStimulus::new(9, 1024, 256);
    let mut v = Vec::with_capacity(n as usize);
    while (v.len() as u64) < n {
        let i = stim.next_inputs(true);
        if i.s_valid && !i.rst {
            v.push(SackOp { conn: i.s_conn, psn: i.s_psn, clear: i.s_clear, commit: i.s_commit });
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

    let cfg = Config::preset("default").unwrap();
    let spec = blocks::block("sack").unwrap();
    let (gen, iface) = spec.generated(&cfg).unwrap();
    let io = iface.io();
    let tb = (spec.testbench)(&cfg).unwrap();
    let mut stim = tb.stimulus(&io, 10, &StimOpts::default()).unwrap();
    let inputs: Vec<Values> = (0..N)
        .map(|_| {
            let mut v = Values::new(&io.inputs);
            stim.next(&[true], &mut v);
            v
        })
        .collect();
    let mut out = Values::new(&io.outputs);
    g.bench_function("model_cycle_shell_cycles", |b| {
        b.iter(|| {
            let mut m = tb.model(&io).unwrap();
            for i in &inputs {
                m.step(i, &mut out);
            }
            black_box(&out);
        })
    });

    let model = Model::build("sack_default", &gen.verilog, &iface.ports, &BuildOpts::default()).unwrap();
    let dev = VlFactory::new(model);
    let mut d = dev.open(&io).unwrap();
    g.bench_function("verilated_rtl_cycles", |b| {
        b.iter(|| {
            for i in &inputs {
                d.cycle(i, &mut out);
            }
            black_box(&out);
        })
    });

    g.bench_function("differential_loop_cycles", |b| {
        b.iter(|| black_box(run_differential(tb.as_ref(), &io, &dev, RunOpts::new(11, N)).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
