//! Differential test of the receive frame parser on the verification kit: the generated
//! Verilog, Verilated, against the model cycle shell (`wire::parser_shell::ParserShell`,
//! which wraps the beat-level reference model `wire::axis::AxisRx`), with the same seeded
//! stimulus, every output compared every cycle.
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths.

use mrnic_model::wire::axis::DROP_NAMES;
use mrnic_verif::blocks::parser;
use mrnic_verif::kit::{DiffBench, StimOpts};

fn setup() -> DiffBench {
    DiffBench::new("parser", "default", "parser_diff")
}

#[test]
fn the_parser_matches_the_model_cycle_by_cycle_on_100k_good_and_hostile_frames_with_backpressure() {
    let s = setup();
    let dev = s.build("parser", &s.verilog);
    let reps = s.check(&dev, "parser", &[1, 2], 1_300_000, StimOpts::default());
    let frames: u64 = reps.iter().map(|r| r.get("model.frames")).sum();
    println!("parser: {reps:#?}");
    assert!(frames >= 100_000, "only {frames} frames compared");
    for r in &reps {
        // every drop reason and every good opcode is exercised, and the handshakes too
        for n in DROP_NAMES {
            assert!(r.get(&format!("model.{n}")) > 0, "seed {}: no frame dropped as {n}: {r:#?}", r.seed);
        }
        for n in ["good_write", "good_send", "good_ack", "good_nak", "good_probe", "good_probe_reply"] {
            assert!(r.get(&format!("model.{n}")) > 100, "seed {}: too few {n}", r.seed);
        }
        assert!(r.get("model.blocked_cycles") > 1000 && r.get("stim.idle_cycles") > 1000, "{r:#?}");
        assert_eq!(r.get("model.records"), r.get("m_hdr.transfers"));
    }
}

#[test]
fn good_frames_back_to_back_with_no_idle_cycle_match_and_every_one_yields_a_record() {
    let s = setup();
    let dev = s.build("parser", &s.verilog);
    let r = &s.check(&dev, "parser_b2b", &[7], 300_000, StimOpts { profile: "good_back_to_back".into(), ..Default::default() })[0];
    let good: u64 = ["good_write", "good_send", "good_ack", "good_nak", "good_probe", "good_probe_reply"].iter().map(|n| r.get(&format!("model.{n}"))).sum();
    assert!(good > 5_000 && r.get("stim.idle_cycles") == 0, "{r:#?}");
    assert!(r.get("m_hdr.transfers") + 1 >= good, "{r:#?}");
}

#[test]
fn heavy_backpressure_and_mostly_hostile_frames_match() {
    let s = setup();
    let dev = s.build("parser", &s.verilog);
    for p in ["hostile", "backpressure"] {
        let r = &s.check(&dev, &format!("parser_{p}"), &[11], 300_000, StimOpts { profile: p.into(), ..Default::default() })[0];
        assert!(r.get("model.frames") > 5_000, "{r:#?}");
    }
}

/// Each mutant is the generated Verilog with one deliberate bug; the differential test must
/// catch every one.
#[test]
fn deliberately_broken_parser_variants_are_caught() {
    let s = setup();
    s.mutants(parser::mutants(), 10, 5, 600_000);
}
