//! The payload realigner's cycle shell against its function (`wire::realign::realign`), on
//! random frames and commands under random backpressure, plus its corner cases (the RTL is
//! checked against the shell in verif/tests/realign_diff.rs).

use mrnic_model::wire::realign::{plan, realign, Cmd, Plan, RealignConfig, RealignInputs, RealignShell, REALIGN_LATENCY};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

fn cfg(b: u32) -> RealignConfig {
    RealignConfig::new(b, 8, 16).unwrap()
}

/// What a run saw: the output beats, per cycle whether an input beat was taken, the cycles.
struct Run {
    out: Vec<(u64, bool)>,
    taken: Vec<bool>,
    shell: RealignShell,
}

/// Drives `frames` with their commands through the shell: the command source, the beat
/// source and the sink each stall with probability `p_stall` (0 = never).
fn drive(c: RealignConfig, frames: &[(Vec<u64>, Cmd)], p_stall: f64, seed: u64) -> Run {
    let mut r = SmallRng::seed_from_u64(seed);
    let mut sh = RealignShell::new(c);
    let mut cmds: VecDeque<Cmd> = frames.iter().map(|f| f.1).collect();
    let mut beats: VecDeque<(u64, bool)> = frames
        .iter()
        .flat_map(|(f, _)| f.iter().enumerate().map(move |(k, d)| (*d, k + 1 == f.len())))
        .collect();
    let want: usize = frames.iter().map(|(_, cm)| plan(&c, *cm).beats as usize).sum();
    let (mut out, mut taken) = (Vec::new(), Vec::new());
    for _ in 0..(want + beats.len() + cmds.len()) * 20 + 100 {
        let st = |r: &mut SmallRng| p_stall > 0.0 && r.gen_bool(p_stall);
        let cmd = if st(&mut r) { None } else { cmds.front().copied() };
        let beat = if st(&mut r) { None } else { beats.front().copied() };
        let i = RealignInputs {
            rst: false,
            s_cmd_valid: cmd.is_some(),
            s_cmd_off: cmd.map_or(0, |c| c.off),
            s_cmd_len: cmd.map_or(0, |c| c.len),
            s_cmd_lane: cmd.map_or(0, |c| c.lane),
            s_axis_tvalid: beat.is_some(),
            s_axis_tdata: beat.map_or(0, |b| b.0),
            s_axis_tlast: beat.is_some_and(|b| b.1),
            m_axis_tready: !st(&mut r),
        };
        let o = sh.step(&i);
        if i.s_cmd_valid && o.s_cmd_ready {
            cmds.pop_front();
        }
        let t = i.s_axis_tvalid && o.s_axis_tready;
        if t {
            beats.pop_front();
        }
        taken.push(t);
        if let Some(m) = o.m {
            if i.m_axis_tready {
                out.push(m);
            }
        }
        if cmds.is_empty() && beats.is_empty() && out.len() == want && !sh.active() && o.m.is_none() {
            break;
        }
    }
    Run { out, taken, shell: sh }
}

fn random_frames(c: RealignConfig, r: &mut SmallRng, n: usize) -> Vec<(Vec<u64>, Cmd)> {
    let b = c.beat_bytes;
    (0..n)
        .map(|_| {
            let nb = r.gen_range(1..=40usize);
            let f: Vec<u64> = (0..nb).map(|_| r.gen::<u64>() & c.data_mask()).collect();
            let bytes = nb as u32 * b;
            let cm = match r.gen_range(0..10) {
                // discard the frame
                0 => Cmd { off: r.gen_range(0..256), len: 0, lane: r.gen_range(0..b) },
                // a command longer than its frame (padding after tlast)
                1 => Cmd { off: r.gen_range(0..256), len: r.gen_range(1..2000), lane: r.gen_range(0..b) },
                // a payload inside the frame
                _ => {
                    let off = r.gen_range(0..bytes.min(256));
                    Cmd { off, len: r.gen_range(1..=bytes - off), lane: r.gen_range(0..b) }
                }
            };
            (f, cm)
        })
        .collect()
}

fn expected(c: RealignConfig, frames: &[(Vec<u64>, Cmd)]) -> Vec<(u64, bool)> {
    frames.iter().flat_map(|(f, cm)| realign(&c, f, *cm)).collect()
}

#[test]
fn the_shell_emits_exactly_the_functions_beats_for_every_beat_width_under_backpressure() {
    for b in [2, 4, 8] {
        let c = cfg(b);
        for (seed, p) in [(1, 0.0), (2, 0.3), (3, 0.7)] {
            let mut r = SmallRng::seed_from_u64(seed * 10 + u64::from(b));
            let frames = random_frames(c, &mut r, 300);
            let run = drive(c, &frames, p, seed);
            assert_eq!(run.out, expected(c, &frames), "B = {b}, stall {p}");
            let s = run.shell.outputs(&RealignInputs::default()).stats;
            assert_eq!(s.cmds as usize, frames.len());
            assert_eq!(s.beats as usize, run.out.len());
            assert_eq!(s.dropped as usize, frames.iter().filter(|f| f.1.len == 0).count());
        }
    }
}

#[test]
fn the_function_puts_each_payload_byte_in_the_lane_of_its_host_address() {
    let c = cfg(8);
    let frame: Vec<u64> = (0..20u64).map(|k| u64::from_le_bytes(std::array::from_fn(|i| (8 * k + i as u64) as u8))).collect();
    for off in [0u32, 1, 7, 8, 9, 57, 100] {
        for lane in 0..8u32 {
            for len in [1u32, 2, 7, 8, 9, 15, 16, 17, 40] {
                let out = realign(&c, &frame, Cmd { off, len, lane });
                assert_eq!(out.len() as u32, (lane + len).div_ceil(8));
                assert!(out.last().unwrap().1 && out.iter().filter(|o| o.1).count() == 1);
                for p in 0..len {
                    // payload byte p goes to host address a0 + p, a0 = lane mod 8
                    let a = lane + p;
                    let got = (out[(a / 8) as usize].0 >> (8 * (a % 8))) & 0xff;
                    assert_eq!(got, u64::from((off + p) as u8), "off {off} lane {lane} len {len} byte {p}");
                }
            }
        }
    }
    // bytes before the frame read as 0
    let out = realign(&c, &frame, Cmd { off: 2, len: 3, lane: 5 });
    assert_eq!(out, vec![(0x0403_0201_0000_0000, true)]);
    assert_eq!(realign(&c, &frame, Cmd { off: 5, len: 0, lane: 3 }), vec![]);
}

#[test]
fn frames_stream_back_to_back_with_no_idle_cycle_when_commands_wait() {
    let c = cfg(8);
    let mut r = SmallRng::seed_from_u64(5);
    // frames of at least 2 beats (the next command reaches the command register while the
    // current frame runs; a 1-beat frame costs one idle cycle) whose payload is inside them
    // (a command reaching past its frame spends a cycle on every beat it skips or pads)
    let frames: Vec<_> = random_frames(c, &mut r, 300).into_iter().filter(|f| f.0.len() >= 2 && f.1.off + f.1.len <= 8 * f.0.len() as u32).collect();
    let run = drive(c, &frames, 0.0, 9);
    assert_eq!(run.out, expected(c, &frames));
    // from the first beat taken to the last, a beat every cycle but one per pad beat (an
    // output whose window reaches past its frame's tlast)
    let first = run.taken.iter().position(|t| *t).unwrap();
    let last = run.taken.iter().rposition(|t| *t).unwrap();
    let idle = run.taken[first..=last].iter().filter(|t| !**t).count() as u32;
    let s = run.shell.outputs(&RealignInputs::default()).stats;
    // the last frame's pad beats come after the last beat taken
    let tail = drive(c, &frames[frames.len() - 1..], 0.0, 9).shell.outputs(&RealignInputs::default()).stats.pad;
    assert!(s.pad > 20 && frames.len() > 200, "too few pad beats to matter: {} in {} frames", s.pad, frames.len());
    assert_eq!(idle, s.pad - tail, "idle cycles {idle}, pad beats {} ({tail} after the last beat)", s.pad);
}

#[test]
fn an_output_beat_leaves_one_cycle_after_the_beat_that_completes_it() {
    let c = cfg(8);
    let mut sh = RealignShell::new(c);
    let cmd = RealignInputs { s_cmd_valid: true, s_cmd_off: 3, s_cmd_len: 5, s_cmd_lane: 0, m_axis_tready: true, ..Default::default() };
    let o = sh.step(&cmd);
    assert!(o.s_cmd_ready && !o.s_axis_tready);
    // loaded in the next cycle, taking beats from the one after
    let idle = RealignInputs { m_axis_tready: true, ..Default::default() };
    assert!(sh.outputs(&idle).s_axis_tready == false);
    sh.step(&idle);
    assert!(sh.outputs(&idle).s_axis_tready);
    // payload [3, 8) in beat 0: beat 0 completes output 0 (t = 3 + 7 = 10: skip 1? no: 10 / 8 = 1)
    assert_eq!(plan(&c, Cmd { off: 3, len: 5, lane: 0 }), Plan { skip: 1, shift: 2, beats: 1 });
    let beat = |d: u64, last: bool| RealignInputs { s_axis_tvalid: true, s_axis_tdata: d, s_axis_tlast: last, m_axis_tready: true, ..Default::default() };
    let o = sh.step(&beat(0x0706_0504_0302_0100, false));
    assert!(o.s_axis_tready && o.m.is_none());
    let o = sh.step(&beat(0x0f0e_0d0c_0b0a_0908, true));
    assert!(o.s_axis_tready && o.m.is_none());
    let o = sh.step(&idle);
    assert_eq!(REALIGN_LATENCY, 1);
    assert_eq!(o.m, Some((0x0a09_0807_0605_0403, true)));
    assert!(!sh.active());
}

#[test]
fn a_command_longer_than_its_frame_pads_with_zeros_and_never_hangs() {
    let c = cfg(8);
    let frames = vec![(vec![u64::MAX; 2], Cmd { off: 4, len: 100, lane: 0 }), (vec![0x1111; 3], Cmd { off: 8, len: 8, lane: 0 })];
    let run = drive(c, &frames, 0.2, 3);
    let want = expected(c, &frames);
    assert_eq!(run.out, want);
    assert_eq!(want[0].0, 0xffff_ffff_ffff_ffff);
    assert_eq!(want[1].0, 0x0000_0000_ffff_ffff);
    assert!(want[2..13].iter().all(|w| w.0 == 0));
    let s = run.shell.outputs(&RealignInputs::default()).stats;
    assert_eq!((s.cmds, s.pad), (2, 12));
}

#[test]
fn reset_clears_the_control_state_and_every_valid_and_ready_is_low_during_it() {
    let c = cfg(8);
    let mut sh = RealignShell::new(c);
    let busy = RealignInputs { s_cmd_valid: true, s_cmd_len: 64, s_axis_tvalid: true, s_axis_tdata: 7, m_axis_tready: false, ..Default::default() };
    for _ in 0..6 {
        sh.step(&busy);
    }
    assert!(sh.active() && sh.pending());
    let o = sh.step(&RealignInputs { rst: true, ..busy });
    assert!(!o.s_cmd_ready && !o.s_axis_tready && o.m.is_none());
    assert!(!sh.active() && !sh.pending());
    assert_eq!(sh.outputs(&RealignInputs::default()).stats, Default::default());
    // and it works again
    let frames = vec![(vec![1, 2, 3], Cmd { off: 8, len: 16, lane: 0 })];
    let mut run = drive(c, &frames, 0.0, 1);
    assert_eq!(std::mem::take(&mut run.out), expected(c, &frames));
}

#[test]
fn illegal_sizes_are_refused_with_the_reason() {
    for (b, o, l, what) in [(1, 8, 16, "beat_bytes"), (16, 8, 16, "beat_bytes"), (8, 3, 16, "off_bits"), (8, 13, 16, "off_bits"), (8, 8, 3, "len_bits"), (8, 8, 25, "len_bits")] {
        let e = RealignConfig::new(b, o, l).unwrap_err().to_string();
        assert!(e.contains(what), "{e}");
    }
    let c = cfg(8);
    assert_eq!((c.lane_bits(), c.skip_bits(), c.beats_bits()), (3, 6, 14));
}
