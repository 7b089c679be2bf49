//! The parser's cycle shell: its latency, its handshakes and its record, on hand-made
//! stimulus (the RTL is checked against it in verif/tests/parser_diff.rs).

use mrnic_model::wire::axis::to_beats;
use mrnic_model::wire::gen::random_frame;
use mrnic_model::wire::gen::mutate;
use mrnic_model::wire::parser_shell::{verdict_code, vrd_keep, HdrRecord, ParserInputs, ParserShell, PARSER_LATENCY, VERDICT_NONE, VRD_DEPTH};
use mrnic_model::wire::Body;
use mrnic_model::wire::{decode, encode};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn beat_inputs(bytes: &[u8]) -> Vec<ParserInputs> {
    to_beats(bytes, 8)
        .iter()
        .map(|b| {
            let mut d = [0u8; 8];
            d.copy_from_slice(&b.tdata);
            ParserInputs { tvalid: true, tdata: u64::from_le_bytes(d), tkeep: b.tkeep as u8, tlast: b.tlast, tuser: b.tuser, m_hdr_ready: true, m_vrd_ready: true, rst: false }
        })
        .collect()
}

fn reset(s: &mut ParserShell) {
    s.step(&ParserInputs { rst: true, ..Default::default() });
}

#[test]
fn a_good_frames_record_appears_exactly_latency_cycles_after_its_tlast_beat() {
    let mut rng = SmallRng::seed_from_u64(3);
    let f = random_frame(&mut rng, 64);
    let b = encode(&f);
    let mut s = ParserShell::new();
    reset(&mut s);
    let beats = beat_inputs(&b);
    for i in &beats {
        let o = s.step(i);
        assert!(o.tready && o.m_hdr.is_none());
    }
    for k in 1..PARSER_LATENCY {
        let o = s.step(&ParserInputs { m_hdr_ready: false, ..Default::default() });
        assert!(o.m_hdr.is_none(), "record too early, {k} cycles after tlast");
        assert_eq!(o.last_verdict, VERDICT_NONE);
    }
    let o = s.step(&ParserInputs { m_hdr_ready: false, ..Default::default() });
    assert_eq!(o.m_hdr, Some(HdrRecord::of(&decode(&b).unwrap())));
    assert_eq!(o.last_verdict, 0);
    assert_eq!(o.counters.good.iter().sum::<u32>(), 1);
    // held while not ready, and tready low meanwhile
    let o = s.step(&ParserInputs { tvalid: true, m_hdr_ready: false, ..Default::default() });
    assert!(o.m_hdr.is_some() && !o.tready);
    let o = s.step(&ParserInputs { m_hdr_ready: true, ..Default::default() });
    assert!(o.m_hdr.is_some() && o.tready);
    assert!(s.step(&ParserInputs::default()).m_hdr.is_none());
}

#[test]
fn a_bad_frame_is_counted_without_a_record_and_reset_clears_the_counters() {
    let mut rng = SmallRng::seed_from_u64(4);
    let mut b = encode(&random_frame(&mut rng, 64));
    let n = b.len();
    b[n - 1] ^= 1; // ICRC
    let mut s = ParserShell::new();
    reset(&mut s);
    for i in beat_inputs(&b) {
        s.step(&i);
    }
    let mut last = None;
    for _ in 0..PARSER_LATENCY {
        last = Some(s.step(&ParserInputs { m_hdr_ready: true, ..Default::default() }));
    }
    let o = last.unwrap();
    assert!(o.m_hdr.is_none());
    let want = Err(mrnic_model::wire::axis::AxisDrop::Wire(decode(&b).unwrap_err()));
    assert_eq!(o.last_verdict, verdict_code(&want));
    assert_eq!(o.counters.drop.iter().sum::<u32>(), 1);
    reset(&mut s);
    let o = s.step(&ParserInputs::default());
    assert_eq!(o.counters.drop.iter().sum::<u32>(), 0);
    assert_eq!(o.last_verdict, VERDICT_NONE);
}

/// Whether the frame buffer should keep `b`: a good WRITE / SEND with a payload.
fn keeps(b: &[u8]) -> bool {
    matches!(decode(b), Ok(f) if matches!(&f.body, Body::Data { payload, .. } if !payload.is_empty()))
}

#[test]
fn every_frame_gets_one_verdict_in_frame_order_keep_only_for_good_frames_with_a_payload() {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut frames = vec![];
    for k in 0..400 {
        let mut b = encode(&random_frame(&mut rng, 200));
        if k % 3 == 1 {
            mutate(&mut rng, &mut b);
        }
        frames.push(b);
    }
    let want: Vec<bool> = frames.iter().map(|b| keeps(b)).collect();
    assert!(want.iter().any(|&k| k) && want.iter().any(|&k| !k), "the mix has both verdicts");
    let mut s = ParserShell::new();
    reset(&mut s);
    let beats: Vec<ParserInputs> = frames.iter().flat_map(|b| beat_inputs(b)).collect();
    let (mut got, mut k, mut cycle) = (vec![], 0, 0u64);
    while got.len() < frames.len() {
        // the consumer takes a verdict two cycles in three
        let mut i = beats.get(k).copied().unwrap_or(ParserInputs { m_hdr_ready: true, ..Default::default() });
        i.m_vrd_ready = cycle % 3 != 0;
        let o = s.step(&i);
        if o.tready && k < beats.len() {
            k += 1;
        }
        if let (Some(keep), true) = (o.m_vrd, i.m_vrd_ready) {
            got.push(keep);
        }
        cycle += 1;
        assert!(cycle < 1_000_000, "the verdicts stopped");
    }
    assert_eq!(got, want);
    assert_eq!(s.frames(), frames.len() as u64);
}

#[test]
fn one_beat_frames_every_cycle_fill_the_verdict_fifo_and_tready_holds_them_back_without_loss() {
    let mut s = ParserShell::new();
    reset(&mut s);
    // one-beat frames (truncated Ethernet), offered every cycle; nobody takes a verdict
    let one = ParserInputs { tvalid: true, tkeep: 0xFF, tlast: true, m_hdr_ready: true, ..Default::default() };
    let mut taken = 0usize;
    let mut first_stall = None;
    for c in 0..40 {
        let o = s.step(&one);
        if o.tready {
            taken += 1;
        } else if first_stall.is_none() {
            first_stall = Some(c);
        }
    }
    // frame k's verdict is queued (visible) in cycle k + LATENCY; tready drops when
    // VRD_DEPTH - LATENCY + 1 are queued, i.e. in cycle VRD_DEPTH, with exactly VRD_DEPTH frames in
    assert_eq!(taken, VRD_DEPTH, "frames taken while the FIFO was never emptied");
    assert_eq!(first_stall, Some(VRD_DEPTH));
    // drain: every verdict is a refusal, one per frame taken
    let mut got = vec![];
    for _ in 0..20 {
        let o = s.step(&ParserInputs { m_vrd_ready: true, m_hdr_ready: true, ..Default::default() });
        got.extend(o.m_vrd);
    }
    assert_eq!(got, vec![false; VRD_DEPTH]);
    assert!(!vrd_keep(&Err(mrnic_model::wire::axis::AxisDrop::BadKeep)));
}
