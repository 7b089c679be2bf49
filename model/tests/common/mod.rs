//! Shared set-up of the transport tests: two connection ends, a workload of WRITEs
//! and SENDs with random bytes, and the end-to-end checks.
#![allow(dead_code)]

use mrnic_model::transport::loopback::{Loopback, NetConfig, Report};
use mrnic_model::transport::{Qp, QpAddr, QpSetup, TransportConfig, WcStatus, WorkRequest};
use mrnic_model::wire::DataKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

pub const RKEY: u32 = 0x0000_ab01;
pub const REGION: u64 = 0x7f00_0000_0000;
pub const RECV: u64 = 0x7e00_0000_0000;
/// Untouched bytes after each target, inside the region (checked to stay zero).
pub const SLACK: u64 = 64;

pub fn addr(n: u8) -> QpAddr {
    QpAddr { mac: [2, 0x6d, 0x72, 0x6e, 0, n], ip: [10, 0, 0, n], qpn: 0x10 + u32::from(n) }
}

/// Two ends A and B; A's requester starts at `isn_a`, B's at `isn_b`.
pub fn pair(cfg: &TransportConfig, isn_a: u32, isn_b: u32, path_isn: u32, seed: u64) -> (Qp, Qp) {
    let (a, b) = (addr(1), addr(2));
    let sa = QpSetup { local: a, remote: b, isn: isn_a, peer_isn: isn_b, path_isn, pd: 1, seed };
    Qp::pair(cfg, sa, seed ^ 0x5555).unwrap()
}

/// What A sends to B.
#[derive(Clone, Debug)]
pub struct Workload {
    pub msgs: Vec<(DataKind, u64)>,
    pub data_seed: u64,
}

/// Where each message lands at B, and its bytes.
pub struct Expect {
    pub targets: Vec<(DataKind, u64, Arc<[u8]>)>,
    pub region_len: u64,
    pub sends: usize,
    /// SSN of the first SEND.
    pub ssn0: u32,
}

/// Registers B's region and receive buffers and posts the workload at A.
pub fn post(a: &mut Qp, b: &mut Qp, w: &Workload) -> Expect {
    let mut rng = StdRng::seed_from_u64(w.data_seed);
    let mut off = 0u64;
    let mut targets = vec![];
    let mut sends = 0;
    for (i, &(kind, len)) in w.msgs.iter().enumerate() {
        let data: Arc<[u8]> = (0..len).map(|_| rng.gen()).collect::<Vec<u8>>().into();
        let (va, target) = match kind {
            DataKind::Write => {
                let va = REGION + off;
                off += len + SLACK;
                (va, va)
            }
            DataKind::Send => {
                let buf = RECV + (sends as u64) * (1 << 32);
                b.post_recv(1000 + sends as u64, buf, len + SLACK, true).unwrap();
                sends += 1;
                (0, buf)
            }
        };
        let wr = WorkRequest { wr_id: i as u64, kind, len, remote_va: va, rkey: RKEY, solicited: i % 2 == 0, data: Some(data.clone()) };
        a.post(wr).unwrap();
        targets.push((kind, target, data));
    }
    b.register(RKEY, REGION, off.max(1), true, true).unwrap();
    Expect { targets, region_len: off.max(1), sends, ssn0: b.rsp.rq.head_ssn }
}

/// The end-to-end properties: every message completed once, in order, successfully;
/// every SEND delivered once, in order, with its length; B's memory holds exactly the
/// data (and zeros in the slack); nothing was written outside an allocation.
pub fn check(l: &Loopback, r: &Report, e: &Expect) -> Result<(), String> {
    let ctx = || serde_json::to_string(&(&r.end_ns, &r.a_tx, &r.b_rx, &r.net)).unwrap();
    if !r.finished {
        return Err(format!("did not finish: {} of {} completions; {}", r.completions.len(), e.targets.len(), ctx()));
    }
    let ids: Vec<u64> = r.completions.iter().map(|c| c.wr_id).collect();
    let want: Vec<u64> = (0..e.targets.len() as u64).collect();
    if ids != want {
        return Err(format!("completions {ids:?}, want {want:?}"));
    }
    if let Some(c) = r.completions.iter().find(|c| c.status != WcStatus::Success) {
        return Err(format!("completion {c:?}"));
    }
    let sends: Vec<_> = e.targets.iter().filter(|t| t.0 == DataKind::Send).collect();
    if r.recv_completions.len() != sends.len() {
        return Err(format!("{} receive completions, want {}", r.recv_completions.len(), sends.len()));
    }
    for (k, (rc, t)) in r.recv_completions.iter().zip(&sends).enumerate() {
        if rc.wr_id != 1000 + k as u64 || rc.ssn != (e.ssn0 + k as u32) & 0xFF_FFFF || rc.bytes != t.2.len() as u64 {
            return Err(format!("receive completion {k}: {rc:?}, want {} bytes", t.2.len()));
        }
    }
    l.a.req.check_invariants().map_err(|e| e.to_string())?;
    let mem = &l.b.rsp.mem;
    if mem.violations != 0 {
        return Err(format!("{} writes outside any allocation", mem.violations));
    }
    for (i, (kind, target, data)) in e.targets.iter().enumerate() {
        let got = mem.read(*target, data.len() as u64 + SLACK).ok_or(format!("message {i}: target unreadable"))?;
        if got[..data.len()] != data[..] {
            let at = got.iter().zip(data.iter()).position(|(x, y)| x != y).unwrap();
            return Err(format!("message {i} ({kind:?}, {} bytes): memory differs at byte {at}", data.len()));
        }
        if got[data.len()..].iter().any(|&x| x != 0) {
            return Err(format!("message {i}: bytes written past its end"));
        }
    }
    Ok(())
}

/// Runs a workload over a network; returns the report and the check's verdict.
pub fn run(cfg: &TransportConfig, net: NetConfig, w: &Workload, isn: (u32, u32, u32), limit_ns: u64) -> (Loopback, Report, Result<(), String>) {
    run_from(cfg, net, w, isn, (0, 0), limit_ns)
}

/// [`run`] with the first MSN and SSN `start` (both ends).
pub fn run_from(cfg: &TransportConfig, net: NetConfig, w: &Workload, isn: (u32, u32, u32), start: (u32, u32), limit_ns: u64) -> (Loopback, Report, Result<(), String>) {
    let (mut a, mut b) = pair(cfg, isn.0, isn.1, isn.2, net.seed);
    for q in [&mut a, &mut b] {
        q.set_initial_msn_ssn(start.0, start.1).expect("fresh ends");
    }
    let e = post(&mut a, &mut b, w);
    let mut l = Loopback::new(a, b, net);
    let r = l.run_to_completion(e.targets.len(), e.sends, limit_ns);
    let v = check(&l, &r, &e);
    (l, r, v)
}
