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
