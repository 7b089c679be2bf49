//! Hostile input smoke test: 10^5 random frames, most of them addressed to the
//! connection (right QP, peer address and partition key, PSNs, MSNs, path ids,
//! rkeys and addresses near the live values) are fed to both ends of a connection
//! in the middle of a transfer, interleaved with its real traffic and timers.
//!
//! - Nothing panics.
//! - Nothing is written outside an allocation (the host memory's own count).
//! - The requester's bookkeeping invariants hold throughout
//!   ([`Requester::check_invariants`]).

mod common;

use common::*;
use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::{Qp, TransportConfig};
use mrnic_model::wire::{self, gen::random_frame, Body, Frame};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const FRAMES: usize = 100_000;

/// Makes a random frame plausible for `to` (sent by `from`).
fn aim(rng: &mut SmallRng, f: &mut Frame, to: &Qp, from: &Qp) {
    if rng.gen_bool(0.9) {
        f.bth.dest_qp = to.setup.local.qpn;
        f.ip.src = from.setup.local.ip;
        f.bth.pkey = to.cfg.pkey;
    }
    let near = |rng: &mut SmallRng, x: u32, r: u32| x.wrapping_add(rng.gen_range(0..2 * r)).wrapping_sub(r) & 0xFF_FFFF;
    let paths = to.cfg.paths;
    match &mut f.body {
        Body::Data { ext, placement, .. } => {
            f.bth.psn = near(rng, to.rsp.sack.base, 300);
            if rng.gen_bool(0.9) {
                ext.path_id = rng.gen_range(0..paths);
            }
            ext.msn = to.rsp.next_msn.wrapping_add(rng.gen_range(0..8)).wrapping_sub(2);
            ext.pkt_offset = rng.gen_range(0..40);
            ext.ssn = rng.gen_range(0..4);
            if rng.gen_bool(0.5) {
                placement.rkey = RKEY;
                placement.va = REGION + rng.gen_range(0..(1 << 21));
            }
        }
        Body::Ack(a) => {
            f.bth.psn = near(rng, to.req.cum_psn(), 300);
            if rng.gen_bool(0.9) {
                a.path_id = rng.gen_range(0..paths);
            }
        }
        Body::Nak(n) => {
            f.bth.psn = near(rng, to.req.cum_psn(), 300);
            n.cumulative = near(rng, to.req.cum_psn(), 300);
        }
        Body::Probe(p) | Body::ProbeReply(p) => {
            p.path_id = rng.gen_range(0..paths);
            p.seq = rng.gen_range(0..4);
        }
    }
}

#[test]
fn hostile_frames_never_panic_never_write_outside_memory_and_keep_the_books_straight() {
    let cfg = TransportConfig::default();
    let w = Workload { msgs: vec![(mrnic_model::wire::DataKind::Write, 1 << 20), (mrnic_model::wire::DataKind::Send, 50_000)], data_seed: 1 };
    let (mut a, mut b) = pair(&cfg, 100, 200, 0, 7);
    post(&mut a, &mut b, &w);
    let mut l = Loopback::new(a, b, NetConfig { loss: 0.02, ..Default::default() });
    let mut rng = SmallRng::seed_from_u64(42);
    let mut fed = 0;
    let mut decoded = 0;
    while fed < FRAMES {
        // Some real traffic and timers...
        let t = l.now + rng.gen_range(0..2_000);
        l.run_until(t, |_| false);
        // ...then a burst of hostile frames into each end.
        for _ in 0..100 {
            let mut f = random_frame(&mut rng, 2048);
            let to_b = rng.gen_bool(0.5);
            let (to, from) = if to_b { (&l.b, &l.a) } else { (&l.a, &l.b) };
            aim(&mut rng, &mut f, to, from);
            fed += 1;
            // Only what the decoder accepts reaches a transport.
            let Ok(f) = wire::decode(&wire::encode(&f)) else { continue };
            decoded += 1;
            let now = l.now;
            if to_b { l.b.on_frame(now, &f) } else { l.a.on_frame(now, &f) }
        }
        l.a.req.check_invariants().unwrap();
        l.b.req.check_invariants().unwrap();
        assert_eq!(l.b.rsp.mem.violations, 0);
        assert_eq!(l.a.rsp.mem.violations, 0);
    }
    assert!(decoded > FRAMES / 2, "{decoded} of {FRAMES} decoded");
    assert!(l.b.rsp.stats.naks_sent > 0 && l.b.rsp.stats.data_duplicate > 0, "the frames reached deep: {:?}", l.b.rsp.stats);
}
