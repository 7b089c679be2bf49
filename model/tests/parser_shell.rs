//! The parser's cycle shell: its latency, its handshakes and its record, on hand-made
//! stimulus (the RTL is checked against it in verif/tests/parser_diff.rs).

use mrnic_model::wire::axis::to_beats;
use mrnic_model::wire::gen::random_frame;
use mrnic_model::wire::parser_shell::{verdict_code, HdrRecord, ParserInputs, ParserShell, PARSER_LATENCY, VERDICT_NONE};
use mrnic_model::wire::{decode, encode};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn beat_inputs(bytes: &[u8]) -> Vec<ParserInputs> {
    to_beats(bytes, 8)
        .iter()
        .map(|b| {
            let mut d = [0u8; 8];
            d.copy_from_slice(&b.tdata);
            ParserInputs { tvalid: true, tdata: u64::from_le_bytes(d), tkeep: b.tkeep as u8, tlast: b.tlast, tuser: b.tuser, m_hdr_ready: true, rst: false }
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
