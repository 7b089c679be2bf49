//! The verification kit without Verilator: interfaces from a manifest entry or a port list
//! (bad ones refused with the reason), and both comparison modes run against devices built
//! from the golden model itself, faithful or with one deliberate defect, so each check is
//! shown to pass the right thing and to fail the wrong one.

use mrnic_model::Config;
use mrnic_verif::blocks::{self, sack::SackModel};
use mrnic_verif::kit::{run_differential, run_transaction, CycleModel, Device, DeviceFactory, Failure, Interface, Io, KitError, RunOpts, StimOpts, Values};

fn small() -> (Config, Interface) {
    let cfg = Config::preset("small").unwrap();
    let (_, iface) = blocks::block("sack").unwrap().generated(&cfg).unwrap();
    (cfg, iface)
}

/// What a fake device does wrong.
#[derive(Clone, Copy, PartialEq)]
enum Defect {
    None,
    /// Drops m_valid on the second cycle of a stall (after showing it on the first).
    DropsValidWhileStalled,
    /// stat_new one too high.
    CounterOffByOne,
    /// The result's base is off by one on every 5000th result.
    RareWrongBase,
}

/// The golden model's cycle shell used as a device, with an optional defect.
struct ModelDevice {
    m: SackModel,
    io: Io,
    defect: Defect,
    results: u64,
    shown_stalled: bool,
}

impl Device for ModelDevice {
    fn cycle(&mut self, i: &Values, o: &mut Values) {
        self.m.step(i, o);
        let (mv, mr, base, stat) = (self.io.output("m_valid").unwrap(), self.io.input("m_ready").unwrap(), self.io.output("m_base").unwrap(), self.io.output("stat_new").unwrap());
        match self.defect {
            Defect::None => {}
            Defect::DropsValidWhileStalled => {
                if o.bit(mv) && !i.bit(mr) {
                    if self.shown_stalled {
                        o.set(mv, 0);
                    }
                    self.shown_stalled = !self.shown_stalled;
                } else {
                    self.shown_stalled = false;
                }
            }
            Defect::CounterOffByOne => o.set(stat, o.get(stat) + 1),
            Defect::RareWrongBase => {
                if o.bit(mv) && i.bit(mr) {
                    self.results += 1;
                    if self.results % 5000 == 0 {
                        o.set(base, o.get(base) + 1);
                    }
                }
            }
        }
    }
}

struct Factory(Config, Defect);
impl DeviceFactory for Factory {
    fn open(&self, io: &Io) -> Result<Box<dyn Device>, KitError> {
        Ok(Box::new(ModelDevice { m: SackModel::new(io, self.0.connections, self.0.sack.window)?, io: io.clone(), defect: self.1, results: 0, shown_stalled: false }))
    }
    fn describe(&self) -> String {
        "the model as a device".into()
    }
}

fn both(defect: Defect, cycles: u64) -> (Result<u64, Failure>, Result<u64, Failure>) {
    let (cfg, iface) = small();
    let io = iface.io();
    let tb = (blocks::block("sack").unwrap().testbench)(&cfg).unwrap();
    let dev = Factory(cfg, defect);
    let c = run_differential(tb.as_ref(), &io, &dev, RunOpts::new(7, cycles)).map(|r| r.get("m.transfers"));
    let t = run_transaction(tb.as_ref(), &io, &dev, RunOpts::new(7, cycles)).map(|r| r.get("m.transfers"));
    (c, t)
}

#[test]
fn the_model_as_a_device_passes_both_modes() {
    let (c, t) = both(Defect::None, 100_000);
    assert!(c.unwrap() > 30_000);
    assert!(t.unwrap() > 30_000);
}

#[test]
fn a_valid_dropped_while_stalled_fails_both_modes_and_transaction_mode_names_the_handshake() {
    let (c, t) = both(Defect::DropsValidWhileStalled, 100_000);
    assert!(c.unwrap_err().to_string().contains("m_valid"));
    let e = t.unwrap_err().to_string();
    assert!(e.contains("handshake: m_valid dropped while m_ready was low"), "{e}");
}

#[test]
fn a_wrong_status_counter_fails_and_transaction_mode_compares_it_when_idle() {
    let (c, t) = both(Defect::CounterOffByOne, 50_000);
    let e = c.unwrap_err().to_string();
    assert!(e.contains("stat_new") && e.contains("cycle 0"), "{e}");
    let e = t.unwrap_err().to_string();
    assert!(e.contains("status outputs differ while idle") && e.contains("stat_new"), "{e}");
}

#[test]
fn a_rare_wrong_result_is_reported_with_the_seed_the_cycle_the_inputs_and_the_named_diff() {
    let (c, t) = both(Defect::RareWrongBase, 200_000);
    let Failure::Mismatch(m) = c.unwrap_err() else { panic!("a mismatch") };
    assert_eq!((m.seed, m.diff.len(), m.diff[0].0.as_str()), (7, 1, "m_base"));
    assert!(m.inputs.iter().any(|(n, _)| n == "s_psn"));
    let text = m.to_string();
    assert!(text.contains("seed 7, cycle") && text.contains("m_base") && text.contains("waveform: none"), "{text}");
    let e = t.unwrap_err().to_string();
    assert!(e.contains("result #4999 on stream m differs") && e.contains("m_base"), "{e}");
}

#[test]
fn the_power_up_stimulus_resets_then_clears_every_connection_first() {
    let (cfg, iface) = small();
    let io = iface.io();
    let tb = (blocks::block("sack").unwrap().testbench)(&cfg).unwrap();
    let mut s = tb.stimulus(&io, 1, &StimOpts { power_up: true, ..Default::default() }).unwrap();
    let (rst, valid, clear, conn) = (io.input("rst").unwrap(), io.input("s_valid").unwrap(), io.input("s_clear").unwrap(), io.input("s_conn").unwrap());
    let mut v = Values::new(&io.inputs);
    for _ in 0..3 {
        s.next(&[false], &mut v);
        assert!(v.bit(rst));
    }
    for c in 0..16 {
        s.next(&[c > 0], &mut v);
        assert!(!v.bit(rst) && v.bit(valid) && v.bit(clear) && v.get(conn) == c, "clear of connection {c}");
        s.next(&[false], &mut v); // not taken: held
        assert!(v.bit(clear) && v.get(conn) == c);
    }
    assert_eq!(s.settle_cycles(), 1);
    assert!(tb.stimulus(&io, 1, &StimOpts { profile: "nope".into(), ..Default::default() }).is_err());
}

#[test]
fn interfaces_come_from_a_manifest_entry_and_bad_ones_are_refused_with_the_reason() {
    let (_, iface) = small();
    let io = iface.io();
    assert_eq!(io.in_streams.len(), 1);
    assert_eq!(io.out_streams.len(), 1);
    assert_eq!(io.out_streams[0].payload.len(), 5, "m_conn m_psn m_class m_base m_bitmap");
    assert_eq!(io.status.len(), 4, "the stat_* counters");
    let ports: Vec<serde_json::Value> = iface
        .ports
        .iter()
        .map(|p| serde_json::json!({"name": p.name, "width": p.width, "direction": if p.dir == mrnic_verif::vl::PortDir::In { "input" } else { "output" }}))
        .collect();
    let manifest = serde_json::json!({"blocks": [{"block": "sack", "module": "mrnic_sack", "latency": 4, "ports": ports,
        "streams": [{"name": "s", "dir": "input", "valid": "s_valid", "ready": "s_ready", "payload": ["s_conn", "s_psn", "s_clear", "s_commit"]},
                    {"name": "m", "dir": "output", "valid": "m_valid", "ready": "m_ready", "payload": ["m_conn", "m_psn", "m_class", "m_base", "m_bitmap"]}]}]});
    let f = Interface::from_manifest(&manifest, "sack").unwrap();
    assert_eq!(f.streams, iface.streams, "inferred streams equal the manifest's");
    assert_eq!((f.latency, f.reset.as_deref()), (4, Some("rst")));
    let e = Interface::from_manifest(&manifest, "rtx").unwrap_err().to_string();
    assert!(e.contains("not in the manifest (blocks: sack)"), "{e}");
    let mut m2 = manifest.clone();
    m2["blocks"][0]["streams"][1]["payload"][0] = "m_nope".into();
    let e = Interface::from_manifest(&m2, "sack").unwrap_err().to_string();
    assert!(e.contains("stream m: payload port m_nope is not in the port list"), "{e}");
    let mut m3 = manifest.clone();
    m3["blocks"][0]["streams"][0]["ready"] = "m_ready".into();
    let e = Interface::from_manifest(&m3, "sack").unwrap_err().to_string();
    assert!(e.contains("ready port m_ready has the wrong direction"), "{e}");
}

/// An input stream's `sampled` globals (the op's time `now` of rtx and path) travel in the
/// manifest and resolve to input indices; a sampled port inside the stream, an output, or the
/// reset is refused with the reason.
#[test]
fn sampled_globals_resolve_to_inputs_outside_the_stream_and_bad_ones_are_refused() {
    let g = mrnic_hdl::tops::block(&Config::preset("tiny").unwrap(), "rtx").unwrap();
    let f = Interface::from_generated("rtx", &g).unwrap();
    let io = f.io();
    assert_eq!(io.in_streams[0].sampled, vec![io.inputs.index("now").unwrap()]);
    assert!(io.out_streams.iter().all(|s| s.sampled.is_empty()));
    let refuse = |port: &str| {
        let mut g2 = g.clone();
        g2.streams[0].sampled = vec![port.to_string()];
        Interface::from_generated("rtx", &g2).unwrap_err().to_string()
    };
    for bad in ["s_conn", "m_ready", "rst", "stat_tmo"] {
        let e = refuse(bad);
        assert!(e.contains(&format!("sampled port {bad} is not an input outside the stream")), "{bad}: {e}");
    }
}

// ---- timer streams in transaction mode (`kit::txn::match_timer_events`)

fn ev(v: &[(u64, &str)]) -> Vec<(u64, String)> {
    v.iter().map(|&(t, k)| (t, k.to_string())).collect()
}

#[test]
fn timer_events_match_by_payload_within_the_slack_whatever_their_order() {
    use mrnic_verif::kit::txn::match_timer_events;
    let lag = vec![0u32; 10_000];
    // Same events, reordered and shifted by up to 2 x lateness: matched (slack 2L + 16).
    let dev = ev(&[(1000, "0x3"), (1010, "0x1"), (2000, "0x3")]);
    let model = ev(&[(1005, "0x1"), (1030, "0x3"), (1900, "0x3")]);
    let m = match_timer_events(&dev, &model, 50, &lag, 0, 10_000, None).unwrap();
    assert_eq!((m.max_slack, m.matched), (116, 6));
}

#[test]
fn a_timer_event_the_model_never_had_or_one_the_device_missed_fails_naming_it() {
    use mrnic_verif::kit::txn::match_timer_events;
    let lag = vec![0u32; 10_000];
    // An unjustified event: the device fired for connection 7, the model never did.
    let e = match_timer_events(&ev(&[(1000, "0x3"), (5000, "0x7")]), &ev(&[(1001, "0x3")]), 50, &lag, 0, 10_000, None).unwrap_err();
    assert_eq!(e.0, 5000);
    assert!(e.1.contains("device's event [0x7]") && e.1.contains("model has none"), "{}", e.1);
    // A missed event: the model fired for connection 3 again at 4000, the device did not.
    let e = match_timer_events(&ev(&[(1000, "0x3")]), &ev(&[(1001, "0x3"), (4000, "0x3")]), 50, &lag, 0, 10_000, None).unwrap_err();
    assert_eq!(e.0, 4000);
    assert!(e.1.contains("model's event [0x3]") && e.1.contains("nearest is in cycle 1000"), "{}", e.1);
    // An event too late by more than the slack fails too (wrong timing, right payload).
    assert!(match_timer_events(&ev(&[(1200, "0x3")]), &ev(&[(1000, "0x3")]), 50, &lag, 0, 10_000, None).is_err());
}

#[test]
fn the_devices_lag_on_the_ordered_streams_widens_the_slack_and_run_ends_are_tolerated() {
    use mrnic_verif::kit::txn::match_timer_events;
    // 900 cycles apart: refused with no lag, accepted when the device trailed the model by
    // 800 cycles near the event (it applied the ops that arm the timer later).
    let (dev, model) = (ev(&[(3000, "0x2")]), ev(&[(2100, "0x2")]));
    assert!(match_timer_events(&dev, &model, 50, &vec![0u32; 10_000], 0, 10_000, None).is_err());
    // The lag as the kit measures it: the oldest model result waiting for the device's.
    let mut lag = vec![0u32; 10_000];
    for c in 2150..2950 {
        lag[c] = (c - 2150) as u32;
    }
    assert!(match_timer_events(&dev, &model, 50, &lag, 0, 10_000, None).is_ok());
    // An unmatched event within the slack of the run's end (or start) is not a failure.
    assert!(match_timer_events(&ev(&[(9950, "0x2")]), &[], 50, &vec![0u32; 10_000], 0, 10_000, None).is_ok());
    assert!(match_timer_events(&ev(&[(120, "0x2")]), &[], 50, &vec![0u32; 10_000], 100, 10_000, None).is_ok());
}

#[test]
fn a_race_with_a_re_arming_op_is_settled_from_the_models_deadline_history() {
    use mrnic_verif::kit::txn::{match_timer_events, TimerHistory};
    let lag = vec![0u32; 10_000];
    // The model: connection 5 armed at 100 due from 1000, re-armed at 990 (before it was
    // due) to 3000, disarmed at 3010. The device applied the re-arm late and fired at 1020.
    let mut h = TimerHistory::default();
    h.record("5".into(), 100, Some(1000));
    h.record("5".into(), 990, Some(3000));
    h.record("5".into(), 3010, None);
    assert_eq!(h.due_stretches("5"), vec![(3000, 3010)]);
    let m = match_timer_events(&ev(&[(1020, "5")]), &[], 50, &lag, 0, 10_000, Some(&h)).unwrap();
    assert_eq!((m.matched, m.justified, m.short), (0, 1, 0));
    // The model fired in its 10-cycle due stretch and the device, re-armed by then, did not:
    // a stretch shorter than the slack needs no device event.
    let m = match_timer_events(&[], &ev(&[(3005, "5")]), 50, &lag, 0, 10_000, Some(&h)).unwrap();
    assert_eq!(m.short, 1);
    // Without the history both are failures, as before.
    assert!(match_timer_events(&ev(&[(1020, "5")]), &[], 50, &lag, 0, 10_000, None).is_err());
    assert!(match_timer_events(&[], &ev(&[(3005, "5")]), 50, &lag, 0, 10_000, None).is_err());
}

#[test]
fn the_history_never_excuses_an_event_far_from_any_due_stretch_or_a_long_due_stretch_missed() {
    use mrnic_verif::kit::txn::{match_timer_events, TimerHistory};
    let lag = vec![0u32; 10_000];
    let mut h = TimerHistory::default();
    h.record("5".into(), 100, Some(1000));
    h.record("5".into(), 1500, None);
    // A device event 300 cycles before the deadline (slack 116): not justified.
    let e = match_timer_events(&ev(&[(700, "5")]), &ev(&[(1010, "5")]), 50, &lag, 0, 10_000, Some(&h)).unwrap_err();
    assert_eq!(e.0, 700);
    assert!(e.1.contains("nor was the model's timer"), "{}", e.1);
    // A device event long after the timer was disarmed: not justified.
    assert!(match_timer_events(&ev(&[(1010, "5"), (2000, "5")]), &ev(&[(1010, "5")]), 50, &lag, 0, 10_000, Some(&h)).is_err());
    // A re-arm long before the old deadline (more than the slack): the device may not fire
    // at the old deadline.
    let mut h2 = TimerHistory::default();
    h2.record("5".into(), 100, Some(1000));
    h2.record("5".into(), 500, Some(3000));
    assert!(match_timer_events(&ev(&[(1010, "5")]), &[], 50, &lag, 0, 10_000, Some(&h2)).is_err());
    // An event of another connection, which the model never armed: not justified.
    assert!(match_timer_events(&ev(&[(1010, "5"), (1010, "6")]), &ev(&[(1010, "5")]), 50, &lag, 0, 10_000, Some(&h)).is_err());
    // The model fired at 1010 in a 500-cycle due stretch and the device never did: missed.
    let e = match_timer_events(&[], &ev(&[(1010, "5")]), 50, &lag, 0, 10_000, Some(&h)).unwrap_err();
    assert!(e.1.contains("due from cycle 1000 to 1500"), "{}", e.1);
}

/// A block with a set-valued timer stream (one event carries a connection and a mask of its
/// expired timers, as the path table's `m_tmo`).
fn set_timer_iface(sets: &[&str]) -> Result<Interface, KitError> {
    use mrnic_verif::kit::{StreamSpec, TimerSpec};
    use mrnic_verif::vl::{PortDir, PortInfo};
    let port = |name: &str, width: usize, dir: PortDir| PortInfo { name: name.into(), width, dir };
    let ports = vec![
        port("clock", 1, PortDir::In),
        port("now", 32, PortDir::In),
        port("s_valid", 1, PortDir::In),
        port("s_x", 8, PortDir::In),
        port("s_ready", 1, PortDir::Out),
        port("m_tmo_valid", 1, PortDir::Out),
        port("m_tmo_ready", 1, PortDir::In),
        port("m_tmo_conn", 4, PortDir::Out),
        port("m_tmo_rto", 70, PortDir::Out),
    ];
    let streams = vec![
        StreamSpec { name: "s".into(), dir: "input".into(), valid: "s_valid".into(), ready: "s_ready".into(), payload: vec!["s_x".into()], timer: None, sampled: vec!["now".into()] },
        StreamSpec {
            name: "m_tmo".into(),
            dir: "output".into(),
            valid: "m_tmo_valid".into(),
            ready: "m_tmo_ready".into(),
            payload: vec!["m_tmo_conn".into(), "m_tmo_rto".into()],
            timer: Some(TimerSpec { lateness: 8, counter: None, sets: sets.iter().map(|s| s.to_string()).collect() }),
            sampled: vec![],
        },
    ];
    Interface::new("settimer", "settimer", 1, ports, streams)
}

#[test]
fn a_set_valued_timer_event_is_one_event_per_bit_set_and_a_set_outside_the_payload_is_refused() {
    use mrnic_verif::kit::timer_keys;
    let io = set_timer_iface(&["m_tmo_rto"]).unwrap().io();
    let s = &io.out_streams[0];
    let mut v = Values::new(&io.outputs);
    v.set(io.output("m_tmo_conn").unwrap(), 5);
    // Bits 0, 3 and 65 (the second word) set: three timers of connection 5.
    v.set_wide(io.output("m_tmo_rto").unwrap(), &[0b1001, 0b10]);
    let k = timer_keys(&io, &v, s);
    assert_eq!(k.len(), 3, "{k:?}");
    assert!(k[0].ends_with("m_tmo_rto[0]") && k[1].ends_with("m_tmo_rto[3]") && k[2].ends_with("m_tmo_rto[65]"), "{k:?}");
    assert_eq!(k.iter().filter(|x| x.starts_with(&v.show(io.output("m_tmo_conn").unwrap()))).count(), 3, "{k:?}");
    // Another connection's timer 3 is another key.
    let mut w = v.clone();
    w.set(io.output("m_tmo_conn").unwrap(), 6);
    w.set_wide(io.output("m_tmo_rto").unwrap(), &[0b1000, 0]);
    let k6 = timer_keys(&io, &w, s);
    assert_eq!(k6.len(), 1);
    assert!(!k.contains(&k6[0]));
    // Without sets the payload is one key, as before.
    let io2 = set_timer_iface(&[]).unwrap().io();
    assert_eq!(timer_keys(&io2, &v, &io2.out_streams[0]).len(), 1);
    // A set that is not a payload port of the stream is refused with the reason.
    let e = set_timer_iface(&["now"]).unwrap_err().to_string();
    assert!(e.contains("timer set now is not a payload port"), "{e}");
}

#[test]
fn a_deadline_becomes_the_first_cycle_the_devices_time_reaches_it_across_the_wrap() {
    use mrnic_verif::kit::DeviceClock;
    // The device's time: from 2^32 - 100, steps of 1, 7 and 1000, and 40 cycles frozen.
    let mut t = vec![];
    let mut x: u32 = u32::MAX - 99;
    for c in 0..400u32 {
        t.push(u64::from(x));
        let step = match c {
            0..=49 => 1,
            50..=99 => 7,
            100..=139 => 0,
            _ => 1000,
        };
        x = x.wrapping_add(step);
    }
    let clock = DeviceClock::new(t.clone(), 32);
    let first = |from: usize, d: u32| (from..t.len()).find(|&c| (t[c] as u32).wrapping_sub(d) < 1 << 31).map_or(u64::MAX, |c| c as u64);
    // Already due (at, before, just before the wrap), due in the future (across the wrap,
    // inside the frozen stretch, in the 1000-steps), beyond the run.
    for (from, d) in [(0usize, u32::MAX - 99), (10, u32::MAX - 200), (0, 5), (0, u32::MAX - 60), (60, 300), (120, 350), (141, 200_000), (0, 10_000_000)] {
        assert_eq!(clock.due_at(from as u64, u64::from(d)), first(from, d), "from cycle {from}, deadline {d}");
    }
    assert_eq!(clock.due_at(0, u64::from(u32::MAX - 60)), 39);
    assert_eq!(clock.due_at(0, 10_000_000), u64::MAX);
    // Half the range ahead is not yet due (serial arithmetic, as HwTime::after_eq).
    assert_eq!(clock.due_at(0, u64::from((u32::MAX - 99).wrapping_add(1 << 31))), first(0, (u32::MAX - 99).wrapping_add(1 << 31)));
}

#[test]
fn a_model_event_the_device_missed_is_excused_only_if_the_device_was_held_for_most_of_its_due_stretch() {
    use mrnic_verif::kit::txn::{match_timer_events_held, TimerHistory};
    let lag = vec![0u32; 10_000];
    // The model's timer 5: due from 1000 to 2000 (1000 cycles; slack 2 x 50 + 16 = 116).
    let mut h = TimerHistory::default();
    h.record("5".into(), 100, Some(1000));
    h.record("5".into(), 2000, None);
    let model = ev(&[(1010, "5")]);
    // Held cycles before each cycle: the device's stream held in every cycle of 1000..1950
    // (50 free cycles left in the stretch): its scanner could not reach the timer.
    let held: Vec<u32> = (0..=10_000u32).map(|c| c.clamp(1000, 1950) - 1000).collect();
    let m = match_timer_events_held(&[], &model, 50, &lag, &held, 0, 10_000, Some(&h)).unwrap();
    assert_eq!(m.short, 1);
    // Held for only 500 of them: 500 free cycles, more than the slack: missed.
    let held2: Vec<u32> = (0..=10_000u32).map(|c| c.clamp(1000, 1500) - 1000).collect();
    let e = match_timer_events_held(&[], &model, 50, &lag, &held2, 0, 10_000, Some(&h)).unwrap_err();
    assert!(e.1.contains("due from cycle 1000 to 2000"), "{}", e.1);
    // Never held: missed.
    assert!(match_timer_events_held(&[], &model, 50, &lag, &[], 0, 10_000, Some(&h)).is_err());
}

#[test]
fn the_sliding_lag_maximum_equals_the_maximum_over_each_window() {
    use mrnic_verif::kit::txn::window_max;
    let mut x = 12345u32;
    let v: Vec<u32> = (0..500)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) % 1000
        })
        .collect();
    for r in [0usize, 1, 3, 17, 499, 600] {
        let w = window_max(&v, r);
        for c in 0..v.len() {
            let want = v[c.saturating_sub(r)..(c + r).min(v.len())].iter().max().copied().unwrap_or(0);
            assert_eq!(w[c], want, "r {r}, c {c}");
        }
    }
}

/// The mutant sweep builds each block's mutants as one schema: every mutant of every block is
/// guarded by the run-time selector (none needs a build of its own; a declaration such as a
/// `localparam` would, so the tables mutate its use instead), and the schema's source holds
/// the guards. (The sweeps themselves, in each `<block>_diff` test, run the schema with no
/// mutant selected and require a pass, then each mutant and require a mismatch.)
#[test]
fn every_blocks_mutants_fit_one_schema_build() {
    use mrnic_verif::kit::schema;
    for (block, preset) in [("sack", "default"), ("parser", "default"), ("rtx", "core"), ("placement", "core"), ("path", "core"), ("place_chk", "core")] {
        let spec = blocks::block(block).unwrap();
        let cfg = Config::preset(preset).unwrap();
        let g = spec.generate(&cfg).unwrap();
        let ms = (spec.mutants)();
        let s = schema(&g.verilog, &ms).unwrap_or_else(|e| panic!("{block}: {e}"));
        let alone: Vec<String> = s.alone.iter().map(|(i, why)| format!("{}: {why}", ms[*i].name)).collect();
        assert!(alone.is_empty(), "{block}: mutants that need a build of their own: {alone:?}");
        let ks: Vec<u32> = s.guarded.iter().map(|g| g.1).collect();
        assert_eq!(ks, (1..=ms.len() as u32).collect::<Vec<_>>(), "{block}");
        for k in ks {
            assert!(s.source.contains(&format!("mrnic_mutant == 16'd{k})")), "{block}: no guard for mutant {k}");
        }
        println!("{block}: {} mutants in one build", ms.len());
    }
}

#[test]
fn every_block_refuses_an_unknown_profile_naming_the_known_ones_and_accepts_each_known_one() {
    let cfg = Config::preset("core").unwrap();
    for spec in blocks::BLOCKS {
        let (_, iface) = spec.generated(&cfg).unwrap();
        let io = iface.io();
        let tb = (spec.testbench)(&cfg).unwrap();
        let bad = StimOpts { profile: "no_such_profile".into(), ..Default::default() };
        let e = tb.stimulus(&io, 1, &bad).err().unwrap_or_else(|| panic!("{}: an unknown profile was accepted", spec.name)).to_string();
        assert!(e.contains(&format!("{} stimulus: unknown profile \"no_such_profile\"", spec.name)), "{e}");
        for p in spec.directed {
            assert!(e.contains(p), "{}: the refusal does not name profile {p}: {e}", spec.name);
            let ok = StimOpts { profile: (*p).into(), ..Default::default() };
            assert!(tb.stimulus(&io, 1, &ok).is_ok(), "{}: profile {p} refused", spec.name);
        }
    }
}
