//! `cargo bench -p mrnic-model --bench msg_chk`: the message checks' block model
//! (`transport::msg_chk::MsgChk`: a check and a record per packet) and its cycle shell
//! (`MsgChkShell`, resolutions 9 cycles late), on a legitimate stream over the `core`
//! preset's 256 connections (msg_window 4, W = 256): packets per second, cycles per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mrnic_model::transport::msg_chk::{MsgChk, MsgPkt};
use mrnic_model::transport::msg_chk_shell::{MsgChkShell, MsgShellIn};

const N: u32 = 100_000;

/// Packet `i` of the stream: connection `i mod 256`, messages of 4 packets in order.
fn pkt(i: u32) -> MsgPkt {
    let (conn, j) = (i % 256, i / 256);
    MsgPkt { conn, psn: j & 0xFF_FFFF, msn: j / 4, off: j % 4, last: j % 4 == 3, send: false, ssn: 0 }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("msg_chk");
    g.sample_size(10);
    g.throughput(Throughput::Elements(u64::from(N)));
    g.bench_function("model_check_and_record", |b| {
        b.iter(|| {
            let mut m = MsgChk::new(256, 4, 256).unwrap();
            for i in 0..N {
                let p = pkt(i);
                black_box(m.check(&p));
                m.record(&p);
            }
            m.next_msn(0)
        })
    });
    g.bench_function("shell_cycles", |b| {
        b.iter(|| {
            let mut sh = MsgChkShell::new(256, 4, 256, 12).unwrap();
            let (mut next, mut sent) = (0u32, std::collections::VecDeque::new());
            for cycle in 0..u64::from(N) {
                let r_valid = sent.front().is_some_and(|&c: &u64| cycle >= c + 9);
                let i = MsgShellIn { s_valid: true, s: pkt(next), m_ready: true, r_valid, r_rec: true, ..MsgShellIn::default() };
                let o = sh.step(&i);
                if o.s_ready {
                    next += 1;
                }
                if o.m.is_some() {
                    sent.push_back(cycle);
                }
                if r_valid && o.r_ready {
                    sent.pop_front();
                }
            }
            assert!(next > N - 20, "a packet a cycle");
            sh.stats.recorded
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
