//! Differential test of the payload realigner (`mrnic_realign`) on the verification kit: the
//! generated Verilog, Verilated, against the model's cycle shell `RealignShell`, with the
//! same seeded stimulus (commands at every lane and offset, discards, payloads ending at the
//! frame's last byte, starting before the frame, reaching past it, up to the maximum length;
//! frames of 1 to 1152 beats; the command source, the frame source and the sink stalling in
//! random and long runs; rare resets), every output compared every cycle
//! (`mrnic_verif::kit`).
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths;
//! `MRNIC_MUTANT=name` runs one mutant.

use mrnic_verif::blocks::realign;
use mrnic_verif::kit::{run_differential, DiffBench, RunOpts, RunReport, StimOpts};

fn setup() -> DiffBench {
    DiffBench::new("realign", "core", "realign_diff")
}

/// What a random run must have covered to count.
fn assert_covered(r: &RunReport, mins: &[(&str, u64)]) {
    for (k, min) in mins {
        assert!(std::env::var("MRNIC_CALIBRATE").is_ok() || r.get(k) >= *min, "{k} = {} < {min}: {r:#?}", r.get(k));
    }
}

#[test]
fn realign_matches_the_shell_for_a_million_cycles_at_every_lane_with_backpressure_discards_and_resets() {
    let s = setup();
    let dev = s.build("realign", &s.verilog);
    let reps = s.check(&dev, "realign", &[1, 2], 600_000, StimOpts::default());
    println!("{reps:#?}");
    let cycles: u64 = reps.iter().map(|r| r.cycles).sum();
    assert!(cycles >= 1_000_000, "only {cycles} cycles");
    for r in &reps {
        assert_covered(
            r,
            &[
                ("stim.frames", 8_000),
                ("stim.one_beat", 300),
                ("stim.discard", 300),
                ("stim.before_frame", 200),
                ("stim.past_frame", 800),
                ("stim.at_end", 300),
                ("stim.max_len", 2),
                ("stim.lanes_seen", 8),
                ("stim.resets", 1),
                ("model.payloads_out", 7_000),
                ("model.m_stalled_cycles", 10_000),
                ("model.s_held_cycles", 10_000),
                ("m_axis.transfers", 100_000),
            ],
        );
    }
}

#[test]
fn realign_matches_on_corner_commands_on_jumbo_frames_and_from_power_up() {
    let s = setup();
    let dev = s.build("realign", &s.verilog);
    let e = &s.check(&dev, "realign_edge", &[3], 200_000, StimOpts { profile: "edge".into(), ..Default::default() })[0];
    assert_covered(e, &[("stim.frames", 2_500), ("stim.before_frame", 200), ("stim.at_end", 200), ("stim.discard", 200), ("model.payloads_out", 2_000)]);
    let l = &s.check(&dev, "realign_long", &[4], 200_000, StimOpts { profile: "long".into(), ..Default::default() })[0];
    assert_covered(l, &[("stim.frames", 150), ("model.payloads_out", 100), ("m_axis.transfers", 50_000)]);
    println!("{e:#?} {l:#?}");
    let p = &s.check(&dev, "realign_power_up", &[5], 50_000, StimOpts { power_up: true, ..Default::default() })[0];
    println!("{p:#?}");
    assert_covered(p, &[("m_axis.transfers", 5_000)]);
}

#[test]
fn every_realign_mutant_is_caught_by_the_differential_test() {
    let s = setup();
    s.mutants(realign::mutants(), 10, 6, 300_000);
}

/// The tests build without FST tracing (`BuildOpts::untraced`, half the C++ to compile); a
/// failing seed still gets its waveform: the kit builds the traced model then and re-runs the
/// seed on it. A mutant built like a normal model (so its failure is traced) must fail with a
/// waveform file that exists and covers the failing cycle.
#[test]
fn a_failing_seed_of_an_untraced_build_gets_its_waveform_from_a_traced_rebuild() {
    let s = setup();
    let m = realign::mutants().into_iter().next().expect("realign has mutants");
    let bad = m.apply(&s.verilog).unwrap_or_else(|e| panic!("{e}"));
    let dev = s.build("realign_retrace", &bad);
    assert!(!dev.model.has_trace(), "the kit's build must be untraced");
    let wave_dir = std::env::temp_dir().join(format!("mrnic_retrace_{}", std::process::id()));
    std::fs::create_dir_all(&wave_dir).unwrap();
    let mut opts = RunOpts::new(6, 300_000).label("realign_retrace");
    opts.wave_dir = Some(wave_dir.clone());
    let f = run_differential(s.tb.as_ref(), &s.io, &dev, opts).expect_err("the mutant must fail");
    let mm = f.mismatch().unwrap_or_else(|| panic!("not a mismatch: {f}"));
    let wave = mm.wave.as_deref().unwrap_or_else(|| panic!("no waveform: {f}"));
    let (path, range) = wave.split_once(" (cycles ").unwrap_or_else(|| panic!("no cycle range: {wave}"));
    assert!(path.ends_with(".fst") && std::path::Path::new(path).is_file(), "{wave}: {f}");
    let (start, end) = range.split(';').next().and_then(|r| r.split_once("..")).unwrap_or_else(|| panic!("no cycle range: {wave}"));
    let (start, end): (u64, u64) = (start.parse().unwrap(), end.parse().unwrap());
    assert!(start <= mm.cycle && mm.cycle < end, "the waveform ({start}..{end}) does not hold the failing cycle {}", mm.cycle);
    assert!(std::fs::metadata(path).unwrap().len() > 100, "empty waveform {path}");
    let traced = dev.model.traced().unwrap();
    assert!(traced.has_trace() && traced.was_cached(), "the traced model was built for the re-run and is now in the cache");
    let _ = std::fs::remove_dir_all(&wave_dir);
}
