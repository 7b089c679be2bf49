//! `cargo bench -p mrnic-verif --bench blocks`: for every block the kit verifies (sack and
//! parser at `default`; rtx, placement, path, place_chk, fbuf, realign, ackgen, conn_chk, ackjoin and cmpl at `core`), through the kit: the
//! model's cycle shell and the Verilated generated Verilog in cycles/s, and the whole
//! differential loop (stimulus + model + RTL + compare) in cycles/s; and the sender blocks'
//! model functions (`RtxState::apply`, `PathTables::apply`) in operations/s. `MRNIC_BENCH_BLOCKS=rtx,parser` limits
//! the blocks. The SACK engine's own figures (model functions in packets/s) are in the
//! `sack` bench.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mrnic_model::time::HwTime;
use mrnic_model::transport::path_shell::{PathOp, PathParams, PathTables};
use mrnic_model::transport::rtx_shell::{RtxOp, RtxParams, RtxState};
use mrnic_model::Config;
use mrnic_verif::blocks::{self, path::stimulus::PathStimulus, rtx::stimulus::RtxStimulus};
use mrnic_verif::kit::{run_differential, DeviceFactory, RunOpts, StimOpts, Values, VlFactory};
use mrnic_verif::vl::{BuildOpts, Model};

const N: u64 = 100_000;
const BLOCKS: [(&str, &str); 12] = [("sack", "default"), ("parser", "default"), ("rtx", "core"), ("placement", "core"), ("path", "core"), ("place_chk", "core"), ("fbuf", "core"), ("realign", "core"), ("ackgen", "core"), ("conn_chk", "core"), ("ackjoin", "core"), ("cmpl", "core")];

fn wanted(block: &str) -> bool {
    std::env::var("MRNIC_BENCH_BLOCKS").map(|v| v.split(',').any(|b| b == block)).unwrap_or(true)
}

fn bench_block(c: &mut Criterion, block: &str, preset: &str) {
    let cfg = Config::preset(preset).unwrap();
    let spec = blocks::block(block).unwrap();
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
    let mut g = c.benchmark_group(format!("{block}_{preset}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
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
    let model = Model::build(&format!("bench_{block}_{preset}"), &gen.verilog, &iface.ports, &BuildOpts::default()).unwrap();
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
    g.bench_function("differential_loop_cycles", |b| b.iter(|| black_box(run_differential(tb.as_ref(), &io, &dev, RunOpts::new(11, N)).unwrap())));
    g.finish();
}

fn bench_rtx_functions(c: &mut Criterion) {
    let params = RtxParams::from_config(&Config::preset("core").unwrap()).unwrap();
    let mut stim = RtxStimulus::with_opts(12, params, &StimOpts { no_resets: true, ..Default::default() });
    let mut ops = Vec::with_capacity(N as usize);
    while (ops.len() as u64) < N {
        let i = stim.next_inputs(true);
        if i.s_valid && !i.rst {
            ops.push((i.s_conn, RtxOp::decode(&i), HwTime(i.now)));
        }
    }
    let mut g = c.benchmark_group("rtx_core");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    g.bench_function("model_functions_operations", |b| {
        b.iter(|| {
            let mut s = RtxState::new(params);
            for (conn, op, now) in &ops {
                black_box(s.apply(*conn, op, *now));
            }
        })
    });
    g.finish();
}

fn bench_path_functions(c: &mut Criterion) {
    let params = PathParams::preset("core").unwrap();
    let mut stim = PathStimulus::with_opts(13, params.clone(), &StimOpts { no_resets: true, ..Default::default() });
    let mut ops = Vec::with_capacity(N as usize);
    while (ops.len() as u64) < N {
        let i = stim.next_inputs(true);
        if i.s_valid && !i.rst {
            ops.push((i.s_conn, PathOp::decode(&i), HwTime(i.now)));
        }
    }
    let mut g = c.benchmark_group("path_core");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    g.bench_function("model_functions_operations", |b| {
        b.iter(|| {
            let mut s = PathTables::new(params.clone());
            for (conn, op, now) in &ops {
                black_box(s.apply(*conn, op, *now));
            }
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    for (block, preset) in BLOCKS {
        if wanted(block) {
            bench_block(c, block, preset);
        }
    }
    if wanted("rtx") {
        bench_rtx_functions(c);
    }
    if wanted("path") {
        bench_path_functions(c);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
