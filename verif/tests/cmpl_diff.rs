//! Differential test of the completion unit (`mrnic_cmpl`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `CmplShell`, with the same
//! seeded stimulus (each message's write responses once, in random order within and across
//! messages, SENDs and WRITEs, failed writes, fatal refusals, stray responses, reopened
//! connections, walks over several complete messages, sink stalls, resets), every output
//! compared every cycle (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::cmpl;
use mrnic_verif::kit::{DiffBench, RunReport, StimOpts};

fn setup(preset: &str) -> DiffBench {
    DiffBench::new("cmpl", preset, "cmpl_diff")
}

/// What a run must have covered to count (`scale` tenths of the full floors).
fn assert_covered(r: &RunReport, scale: u64) {
    for (k, min) in [
        ("stim.ops", 200_000),
        ("stim.dones", 150_000),
        ("stim.errors", 200),
        ("stim.fatals", 100),
        ("stim.opens", 300),
        ("stim.strays", 100),
        ("stim.multi_walks", 1_000),
        ("stim.resets", 1),
        // the arbiter: takes with all three ports valid, the fatal port waiting while the
        // write port is taken, the open port waiting behind either; failed writes with
        // bresp EXOKAY or DECERR (not only SLVERR)
        ("stim.takes_all_three_valid", 30_000),
        ("stim.fatal_held_by_wr", 50_000),
        ("stim.open_held", 60_000),
        ("stim.odd_resp", 300),
        ("model.records_out", 30_000),
        ("model.write_error_records_out", 50),
        ("model.msgs", 50_000),
        ("model.m_stalled_cycles", 20_000),
    ] {
        let min = min * scale / 10;
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn cmpl_matches_the_shell_for_a_million_ops_at_core_with_errors_reopens_stalls_and_resets() {
    let s = setup("core");
    let dev = s.build("cmpl", &s.verilog);
    let reps = s.check(&dev, "cmpl", &[1, 2], 2_600_000, StimOpts::default());
    println!("{reps:#?}");
    let ops: u64 = reps.iter().map(|r| r.get("stim.ops")).sum();
    assert!(ops >= 1_000_000, "only {ops} ops");
    for r in &reps {
        assert_covered(r, 10);
    }
}

#[test]
fn cmpl_matches_at_tiny_on_long_walks_and_from_power_up() {
    let s = setup("tiny");
    let dev = s.build("cmpl_tiny", &s.verilog);
    let t = s.check(&dev, "cmpl_tiny", &[3], 400_000, StimOpts::default());
    assert_covered(&t[0], 3);
    let w = s.check(&dev, "cmpl_walks", &[4], 150_000, StimOpts { profile: "walks".into(), ..Default::default() });
    assert!(w[0].get("stim.multi_walks") > 2_000 && w[0].get("model.msgs") > 10_000, "{w:#?}");
    let c = setup("core");
    let x = c.build_x("cmpl_power_up");
    let dev = mrnic_verif::kit::VlFactory::power_up(x, 5);
    let p = c.check(&dev, "cmpl_power_up", &[5], 60_000, StimOpts { power_up: true, ..Default::default() });
    assert!(p[0].get("model.records_out") > 1_000, "{p:#?}");
}

#[test]
fn every_cmpl_mutant_is_caught_by_the_differential_test() {
    let s = setup("core");
    s.mutants(cmpl::mutants(), 22, 6, 300_000);
}

// ---- the transport's own traffic: the responder's ops replayed into the RTL ----

use mrnic_model::transport::cmpl::{CmplOp, CmplShell, CmplShellIn};
use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::placement::Bresp;
use mrnic_model::transport::{Qp, QpAddr, QpSetup, RecvStatus, TransportConfig, WorkRequest};
use mrnic_model::wire::DataKind;
use mrnic_verif::kit::testing::mutant_build;
use mrnic_verif::vl::{BuildOpts, Model, Sim};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const RKEY: u32 = 0x0000_ab01;
const REGION: u64 = 0x7f00_0000_0000;
const RECV: u64 = 0x7e00_0000_0000;
/// Messages per connection.
const MSGS: u64 = 60;

/// What one connection's run gave: the ops its responder gave its completion unit (from
/// the `Open`), its receive completions as (MSN, SSN, bytes, SE, WriteError), and the
/// messages it completed (SEND and WRITE).
struct ConnRun {
    ops: Vec<CmplOp>,
    recv: Vec<(u32, u32, u32, bool, bool)>,
    msgs: u64,
}

/// One connection over the loopback network (2 % loss, 1 % duplication, per-route delays
/// and jitter: packets reorder across and within paths), msg_window 4 as at `core`, 60
/// WRITEs and SENDs of 1 byte to 20 KB. `fault`: 1 = a WRITE's DMA write fails (SLVERR),
/// 2 = a SEND's, 3 = a WRITE with a forged key (the checks refuse it: a Fatal op).
fn conn_run(seed: u64, fault: u8) -> ConnRun {
    let cfg = TransportConfig { msg_window: 4, ..TransportConfig::default() };
    let addr = |n: u8| QpAddr { mac: [2, 0x6d, 0x72, 0x6e, 0, n], ip: [10, 0, 0, n], qpn: 0x10 + u32::from(n) };
    let (a, b) = (addr(1), addr(2));
    let isn = (seed as u32).wrapping_mul(0x9e37_79b9) & 0xff_ffff;
    let sa = QpSetup { local: a, remote: b, isn, peer_isn: 7, path_isn: 3, pd: 1, seed };
    let (mut qa, mut qb) = Qp::pair(&cfg, sa, seed ^ 0x5555).unwrap();
    qb.register(RKEY, REGION, 1 << 24, true, false).unwrap();
    qb.rsp.record_cmpl_ops().unwrap();
    let mut r = SmallRng::seed_from_u64(seed);
    let (mut off, mut sends) = (0u64, 0u64);
    let bad_at = r.gen_range(20..40);
    for i in 0..MSGS {
        let len = match r.gen_range(0..10) {
            0..=2 => r.gen_range(1..=64),
            3..=6 => r.gen_range(1000..=5000),
            _ => r.gen_range(8000..=20_000),
        };
        let send = r.gen_ratio(2, 5) || (fault == 2 && i == bad_at);
        let send = send && !(matches!(fault, 1 | 3) && i == bad_at);
        let wr = if send {
            let buf = RECV + sends * (1 << 20);
            qb.post_recv(1000 + sends, buf, len + 64, false).unwrap();
            if fault == 2 && i == bad_at {
                qb.rsp.mem.inject_write_error(buf + len / 2, 1, Bresp::SlvErr);
            }
            sends += 1;
            WorkRequest { wr_id: i, kind: DataKind::Send, len, remote_va: 0, rkey: 0, solicited: r.gen_ratio(1, 3), data: None }
        } else {
            let va = REGION + off;
            off += len + 64;
            if fault == 1 && i == bad_at {
                qb.rsp.mem.inject_write_error(va + len / 2, 1, Bresp::SlvErr);
            }
            let rkey = if fault == 3 && i == bad_at { RKEY ^ 0x100 } else { RKEY };
            WorkRequest { wr_id: i, kind: DataKind::Write, len, remote_va: va, rkey, solicited: false, data: None }
        };
        qa.post(wr).unwrap();
    }
    let net = NetConfig { loss: 0.02, dup: 0.01, jitter_ns: 3_000, seed, ..NetConfig::default() };
    let mut l = Loopback::new(qa, qb, net);
    let rep = l.run_to_completion(MSGS as usize, 0, 400_000_000);
    assert!(rep.finished, "connection seed {seed}: not every work request completed");
    // the stragglers (duplicates, retransmissions in flight) arrive
    let t = l.now + 2_000_000;
    l.run_until(t, |_| false);
    let rsp = &mut l.b.rsp;
    let recv = l.recv_completions.iter().map(|c| (c.msn, c.ssn, c.bytes as u32, c.solicited, c.status == RecvStatus::WriteError)).collect();
    ConnRun { ops: rsp.cmpl_ops.take().unwrap(), recv, msgs: rsp.stats.messages_completed }
}

/// `op` on connection `conn` instead of the responder's 0.
fn on_conn(op: CmplOp, conn: u32) -> CmplOp {
    match op {
        CmplOp::Done(mut d) => {
            d.conn = conn;
            CmplOp::Done(d)
        }
        CmplOp::Fatal { msn, .. } => CmplOp::Fatal { conn, msn },
        CmplOp::Open { msn, .. } => CmplOp::Open { conn, msn },
    }
}

/// Drives `sim` with the connections' ops interleaved at random (each connection's in its
/// order), `s_valid` held until taken, `m_ready` low one cycle in three; with `lockstep`
/// the shell runs beside it and every output is compared every cycle. Returns each
/// connection's records (MSN, SSN, bytes, SE, WriteError) and the RTL's `stat_msgs`, once
/// every op is taken and no record has been offered for 50 cycles.
fn replay(sim: &mut Sim, runs: &[(u32, &ConnRun)], seed: u64, lockstep: bool) -> Result<(Vec<Vec<(u32, u32, u32, bool, bool)>>, u64), String> {
    let port = |n: &str| sim.port(n).map_err(|e| e.to_string());
    let ins: Vec<_> = cmpl::port::INPUTS.iter().map(|n| port(n)).collect::<Result<_, _>>()?;
    let outs: Vec<_> = cmpl::port::OUTPUTS.iter().map(|n| port(n)).collect::<Result<_, _>>()?;
    let clk = port("clock")?;
    let mut shell = CmplShell::new(256, 4).map_err(|e| e.to_string())?;
    let mut r = SmallRng::seed_from_u64(seed);
    let mut next = vec![0usize; runs.len()];
    let mut got = vec![Vec::new(); runs.len()];
    let by_conn = |c: u32| runs.iter().position(|(k, _)| *k == c);
    let mut cur: Option<CmplOp> = None;
    let mut cur_from = 0usize;
    let (mut c, mut quiet) = (0u64, 0u64);
    loop {
        let rst = c < 2;
        if cur.is_none() && !rst && r.gen_ratio(4, 5) {
            let left: Vec<usize> = (0..runs.len()).filter(|&k| next[k] < runs[k].1.ops.len()).collect();
            if !left.is_empty() {
                cur_from = left[r.gen_range(0..left.len())];
                cur = Some(on_conn(runs[cur_from].1.ops[next[cur_from]], runs[cur_from].0));
            }
        }
        // (each op on its own port: a Done on the write port as placement's tag, bytes and
        // bresp, a Fatal on the fatal port, an Open on the open port; the others not valid)
        let i = CmplShellIn::with_op(rst, cur.as_ref(), r.gen_ratio(2, 3));
        for (p, v) in ins.iter().zip(cmpl::input_values(&i)) {
            sim.set_wide(p, &cmpl::words32(v, p.words()));
        }
        sim.eval();
        let readies: Vec<u64> = outs[cmpl::port::READIES].iter().map(|p| sim.get(p)).collect();
        let m_valid = sim.get(&outs[cmpl::port::M_VALID]) == 1;
        let rec: Vec<u64> = outs[cmpl::port::RECORD].iter().map(|p| sim.get(p)).collect();
        let stats: Vec<u64> = outs[cmpl::port::STATS].iter().map(|p| sim.get(p)).collect();
        let s_ready = readies.iter().any(|&x| x == 1);
        if lockstep {
            let want = shell.step(&i);
            if readies[..] != cmpl::ready_values(&want)[..] || m_valid != want.m.is_some() {
                return Err(format!("cycle {c}: (s_wr_ready, s_fatal_ready, s_open_ready) = {readies:?}, m_valid {m_valid}; the shell {:?}, {}", cmpl::ready_values(&want), want.m.is_some()));
            }
            if let Some(m) = want.m {
                if rec != cmpl::record_values(&m) {
                    return Err(format!("cycle {c}: record {rec:?}, the shell {m:?}"));
                }
            }
            let s = want.stats;
            if stats[..] != cmpl::stat_values(&s)[..] {
                return Err(format!("cycle {c}: stats {stats:?}, the shell {s:?}"));
            }
        }
        if m_valid && i.m_ready {
            let conn = rec[0] as u32;
            let k = by_conn(conn).ok_or_else(|| format!("cycle {c}: a record for connection {conn}, which has no traffic"))?;
            got[k].push((rec[1] as u32, rec[2] as u32, rec[3] as u32, rec[4] == 1, rec[5] == 1));
        }
        if cur.is_some() && s_ready {
            next[cur_from] += 1;
            cur = None;
        }
        sim.tick(&clk);
        c += 1;
        let done = (0..runs.len()).all(|k| next[k] == runs[k].1.ops.len()) && cur.is_none();
        quiet = if done && !m_valid { quiet + 1 } else { 0 };
        if quiet > 50 {
            return Ok((got, stats[0]));
        }
        if c > 50_000_000 {
            return Err(format!("cycle {c}: no end"));
        }
    }
}

/// The responder's runs and what the RTL must give for them.
fn responder_runs() -> Vec<(u32, ConnRun)> {
    // sixteen connections spread over the RAM rows; one in four with a fault (each kind
    // twice or more)
    (0..16u32).map(|k| ((k * 37 + 3) % 256, conn_run(u64::from(k) + 11, [0, 1, 0, 2, 0, 3, 0, 0][k as usize % 8]))).collect()
}

/// Checks `got` (the RTL's records per connection, `msgs` its `stat_msgs`) against what the
/// responders completed.
fn check_against_responders(runs: &[(u32, &ConnRun)], got: &[Vec<(u32, u32, u32, bool, bool)>], msgs: u64) -> Result<(), String> {
    for ((conn, run), g) in runs.iter().zip(got) {
        if *g != run.recv {
            return Err(format!("connection {conn}: the RTL's records (MSN, SSN, bytes, SE, WriteError) {g:?}, the responder's {:?}", run.recv));
        }
    }
    let want: u64 = runs.iter().map(|(_, r)| r.msgs).sum();
    if msgs != want {
        return Err(format!("stat_msgs {msgs}, the responders completed {want} messages"));
    }
    Ok(())
}

/// The completion unit's RTL on the transport's own traffic: sixteen connections run over a
/// lossy, duplicating, reordering network (the model's requester and responder, 60 WRITEs
/// and SENDs each, a failed WRITE, a failed SEND and a refused key among them), every op
/// their responders gave their completion unit replayed into `mrnic_cmpl` interleaved
/// across connections with a stalling sink; the RTL's records are the responders' receive
/// completions, in order, exactly once (MSN, SSN, bytes, SE, status), its `stat_msgs` the
/// messages they completed, and it matches the shell every cycle. The mutant that
/// completes a message at its LAST packet's response (before all its bytes are written)
/// fails this comparison.
#[test]
fn the_rtl_completes_exactly_what_the_responder_completes_on_lossy_reordered_traffic() {
    let owned = responder_runs();
    let runs: Vec<(u32, &ConnRun)> = owned.iter().map(|(c, r)| (*c, r)).collect();
    let ops: usize = runs.iter().map(|(_, r)| r.ops.len()).sum();
    let recvs: usize = runs.iter().map(|(_, r)| r.recv.len()).sum();
    let errs: usize = runs.iter().map(|(_, r)| r.recv.iter().filter(|x| x.4).count()).sum();
    let fatals = runs.iter().flat_map(|(_, r)| &r.ops).filter(|o| matches!(o, CmplOp::Fatal { .. })).count();
    let failed = runs.iter().flat_map(|(_, r)| &r.ops).filter(|o| matches!(o, CmplOp::Done(d) if !d.ok)).count();
    println!("{ops} ops, {recvs} receive completions ({errs} WriteError), {fatals} fatal refusals, {failed} failed writes");
    assert!(ops > 1_200 && recvs > 200 && errs >= 2 && fatals >= 2 && failed >= 4, "the traffic lacks a case");
    let s = setup("core");
    let m = Model::build("cmpl_responder", &s.verilog, &s.iface.ports, &BuildOpts::default()).unwrap();
    m.run_or_trace("cmpl_responder", |sim| {
        let (got, msgs) = replay(sim, &runs, 1, true)?;
        check_against_responders(&runs, &got, msgs)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // the mutant that completes at the LAST packet's response must fail the comparison
    // with the responders (the RTL alone, no shell beside it)
    let mutant = cmpl::mutants().into_iter().find(|m| m.name == "completes_at_its_last_packet").unwrap();
    let mv = mutant.apply(&s.verilog).unwrap();
    let mm = Model::build("cmpl_responder_mutant", &mv, &s.iface.ports, &mutant_build()).unwrap();
    let mut sim = mm.sim().unwrap();
    let caught = replay(&mut sim, &runs, 1, false).and_then(|(got, msgs)| check_against_responders(&runs, &got, msgs));
    let why = caught.expect_err("the mutant completes_at_its_last_packet passed the responder comparison");
    println!("the mutant completes_at_its_last_packet: {}", &why[..why.len().min(300)]);
}
