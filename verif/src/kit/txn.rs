//! The transaction-level run, for implementations with another latency or pipeline: the
//! device is driven by the seeded stimulus with its own handshakes (an offer is held until
//! the DEVICE takes it); every transfer it accepts is queued, in order, into the block's
//! model (which runs without backpressure), and the results are compared in order on every
//! output stream, whatever the latency. The device must obey the handshake (a valid output
//! that is not taken stays valid with the same payload), and its status outputs (`stat_*`)
//! must equal the model's whenever both are idle (no queued input, every result delivered,
//! nothing valid, no transfer for `latency + 4` cycles) and at the end of the run, after a
//! drain. Resets happen only at the start (their effect on in-flight work depends on the
//! pipeline).
//!
//! **Sampled globals.** An input stream's `sampled` ports (the op's time `now` of the
//! retransmit queue and the path table) are part of each transfer although they are outside
//! the stream: the model gets their values as they were in the cycle the device took the
//! transfer. Without this a model that lags behind the device (its own bubbles, which a
//! device stalled by backpressure hides) would apply the op at a later time, and every
//! time-derived result (send times, deadlines, the head wait) would drift from the device's.
//!
//! **Timer streams** (a stream whose spec has `timer`: events come from timers, such as the
//! retransmit queue's `m_tmo`) cannot be compared in order: when an event is due depends on
//! when the ops that arm and disarm the timer are applied, and another pipeline applies
//! them at other times. Each event is matched by payload instead: every event of the
//! device must have an event of the model with the same payload at most `slack` cycles
//! away, and every event of the model one of the device. `slack` = 2 x lateness + 16 + the
//! device's lag: the largest number of cycles, within 3 x lateness of the event, by which
//! the device's results on the ordered streams trailed the model's (a device that applies
//! an op later also arms or disarms its timer later), plus the cycles in which the device's
//! timer stream was held by its ready since the last 3 x lateness cycles it was not (the
//! lateness promise counts cycles in which the scanner is not held; the model's timer
//! outputs are never held; a ready that is rarely high stretches a sweep over many
//! times C cycles). Events within `slack` of the start
//! or the end of the run are matched only if a counterpart exists in the run. The timer's
//! counter must equal the device's own number of events, and is left out of the
//! status-outputs comparison. This proves the events are justified and none is missed by
//! more than the tolerance; the exact timing is proven by the cycle-accurate mode.
//!
//! **Races.** An op that re-arms a timer just before its deadline in the model may reach
//! the device's timer just after it (the device applies ops up to its lag later): the
//! device then fires, rightly, and the model never does; conversely a model timer that is
//! due only briefly may be re-armed in the device before its scanner reaches it. A model
//! that reports its timers' changes ([`CycleModel::timer_changes`]) settles both from its
//! own deadline state, kept as a [`TimerHistory`] (per payload, when the model's timer was
//! armed and due from when): a device event at t without a model event within the slack is
//! justified if the model's timer with its payload was armed in some `[a, b)`, due from d,
//! with d < b + slack (the device holds the deadline until it is due) and
//! `max(d, a) - 16 <= t < max(b, d) + slack` (the device fires in that window); a
//! model event without a device event is required only if the due stretch it came from
//! (the stretch `[f, e)` with `f <= t < e + 16`: the model's scanner reads the deadline a
//! few registers before it offers the event) had more cycles than the slack in which the
//! device's timer stream was not held by its ready (the device, lagging, holds the same deadline for as long
//! and its scanner reaches every entry within the lateness). Both kinds are counted in the
//! report (`events_justified`, `events_short`). Without changes reported, every event
//! needs its counterpart.
//!
//! **History in time.** A model reports a deadline as the value its time input must reach
//! ([`TimerDue::AtTime`]), and the history's "due from" cycle is the first cycle in which
//! the DEVICE's time input (recorded every cycle) has reached it ([`DeviceClock`]). The
//! model's own time input cannot say: with sampled globals a lagging model sees `now` step
//! back to an op's time and forward again, and a time that advances by more than one a
//! cycle (the path table's stimulus) does not count cycles.
//!
//! **Set-valued events.** A timer stream whose payload has set ports (`TimerSpec::sets`,
//! the path table's masks of expired deadlines, one bit per path) carries several timers
//! per event; each bit set is an event of its own ([`timer_keys`]: the other payload values
//! and `port[bit]`), matched, justified and kept in the history on its own, so that two
//! sides whose scanners saw a connection's deadlines expire in different sweeps still
//! match. The counter counts transfers, not bits.

use super::diff::{traced_rerun, Failure, Mismatch, Progress, RunOpts, RunReport};
use super::{Device, DeviceFactory, Io, KitError, Testbench, TimerChange, TimerDue, Values};
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

/// Cycles allowed for the device to deliver its last results after the stimulus stops.
const DRAIN_MAX: u64 = 100_000;

struct Stop {
    cycle: u64,
    headline: String,
    inputs: Values,
    diff: Vec<(String, String, String)>,
}

fn payload_diff(io: &Io, payload: &[usize], want: &Values, got: &Values) -> Vec<(String, String, String)> {
    payload.iter().filter(|&&o| !want.same(got, o)).map(|&o| (io.outputs.name(o).to_string(), want.show(o), got.show(o))).collect()
}

fn txn_loop(
    tb: &dyn Testbench,
    io: &Io,
    dev: &mut dyn Device,
    opts: &RunOpts,
    trace: Option<(u64, &Path)>,
    limit: Option<u64>,
    mut progress: Option<&mut (dyn FnMut(Progress) + '_)>,
) -> Result<Result<RunReport, Stop>, KitError> {
    let mut sopts = opts.stim.clone();
    sopts.no_resets = true;
    let mut model = tb.model(io)?;
    let mut stim = tb.stimulus(io, opts.seed, &sopts)?;
    let settle = stim.settle_cycles();
    let quiet = io.iface.latency.max(4) as u64 + 4;
    let (ni, no) = (io.in_streams.len(), io.out_streams.len());
    let (mut i, mut mi) = (Values::new(&io.inputs), Values::new(&io.inputs));
    let (mut got, mut want, mut prev_got) = (Values::new(&io.outputs), Values::new(&io.outputs), Values::new(&io.outputs));
    let mut prev_stalled = vec![false; no];
    let mut taken = vec![false; ni];
    let mut pending: Vec<bool> = vec![false; ni];
    let mut q_in: Vec<VecDeque<Values>> = vec![VecDeque::new(); ni];
    let mut q_dev: Vec<VecDeque<Values>> = vec![VecDeque::new(); no];
    let mut q_model: Vec<VecDeque<Values>> = vec![VecDeque::new(); no];
    let (mut n_in, mut n_dev, mut n_model) = (vec![0u64; ni], vec![0u64; no], vec![0u64; no]);
    let (mut idle_run, mut idle_checks) = (0u64, 0u64);
    let is_timer: Vec<bool> = io.out_streams.iter().map(|s| s.timer.is_some()).collect();
    let timer_counters: Vec<usize> = io.out_streams.iter().filter_map(|s| s.timer.and_then(|t| t.1)).collect();
    // Timer events (cycle, payload key; one per timer of a set port) of the device and the
    // model, per output stream, and the cycles of the device's timer transfers.
    let mut ev_dev: Vec<Vec<(u64, String)>> = vec![vec![]; no];
    let mut ev_model: Vec<Vec<(u64, String)>> = vec![vec![]; no];
    let (mut tr_dev, mut tr_last): (Vec<u64>, Vec<u64>) = (vec![0; no], vec![u64::MAX; no]);
    let mut changes: Vec<TimerChange> = vec![];
    // The model's timer changes (stream, timer key, cycle, due), converted into a
    // TimerHistory after the run, with the device's time inputs of every cycle (the sampled
    // ports of the input streams).
    let mut raw_changes: Vec<(usize, String, u64, TimerDue)> = vec![];
    let time_ports: Vec<usize> = io.in_streams.iter().flat_map(|s| s.sampled.iter().copied()).collect();
    let mut time_series: Vec<Vec<u64>> = vec![vec![]; time_ports.len()];
    let mut scratch = Values::new(&io.outputs);
    // The cycle each model result waiting for the device's was produced (ordered streams),
    // and per cycle the device's lag (cycles the oldest waiting result has waited).
    let mut q_model_at: Vec<VecDeque<u64>> = vec![VecDeque::new(); no];
    let mut lag: Vec<u32> = vec![];
    // Held cycles of the device's timer streams before each cycle (prefix sums).
    let mut held_cum: Vec<u32> = vec![0];
    // Cycles in which a timer stream of the device offered an event its ready held back,
    // since the last `held_w` cycles in which it did not (a window of flags, its held count).
    let held_w = io.out_streams.iter().filter_map(|s| s.timer.map(|t| 3 * t.0)).max().unwrap_or(0) as usize;
    let (mut held_q, mut held_n) = (VecDeque::with_capacity(held_w + 1), 0u32);
    let key = |v: &Values, s: &super::StreamIdx| timer_keys(io, v, s);
    let mut c = 0u64;
    let mut drain_from: Option<u64> = None;
    loop {
        if limit.is_some_and(|l| c >= l) {
            break;
        }
        let draining = c >= opts.cycles;
        if draining && drain_from.is_none() {
            drain_from = Some(c);
        }
        if let Some(d) = drain_from {
            if c - d > DRAIN_MAX {
                let counts: Vec<String> = io.out_streams.iter().enumerate().map(|(k, s)| format!("{}: device {} results, model {}", s.name, n_dev[k], n_model[k])).collect();
                return Ok(Err(Stop { cycle: c, headline: format!("not idle {DRAIN_MAX} cycles after the stimulus stopped ({})", counts.join("; ")), inputs: i, diff: vec![] }));
            }
        }
        if !draining {
            stim.next(&taken, &mut i);
        } else {
            // Drain: hold an offer not yet taken, then offer nothing; take every result.
            if let Some(r) = io.reset {
                i.set(r, 0);
            }
            for (k, s) in io.in_streams.iter().enumerate() {
                pending[k] = pending[k] && !taken[k];
                if !pending[k] {
                    i.set(s.valid, 0);
                }
            }
            for s in &io.out_streams {
                i.set(s.ready, 1);
            }
        }
        for (k, s) in io.in_streams.iter().enumerate() {
            pending[k] = i.bit(s.valid);
        }
        if let Some((start, path)) = trace {
            if c == start {
                dev.trace_to(path)?;
            }
        }
        dev.cycle(&i, &mut got);
        for (n, &p) in time_ports.iter().enumerate() {
            time_series[n].push(i.wide(p)[0]);
        }
        let rst = io.reset.is_some_and(|r| i.bit(r));
        let live = c >= settle && !rst;
        // The device's handshakes.
        for (k, s) in io.out_streams.iter().enumerate() {
            if prev_stalled[k] && live {
                if !got.bit(s.valid) {
                    return Ok(Err(Stop {
                        cycle: c,
                        headline: format!("handshake: {} dropped while {} was low (a valid result must stay until taken)", io.outputs.name(s.valid), io.inputs.name(s.ready)),
                        inputs: i,
                        diff: vec![],
                    }));
                }
                let d = payload_diff(io, &s.payload, &prev_got, &got);
                if !d.is_empty() {
                    return Ok(Err(Stop {
                        cycle: c,
                        headline: format!("handshake: the payload of {} changed while it was stalled (left: before, right: now)", s.name),
                        inputs: i,
                        diff: d,
                    }));
                }
            }
            prev_stalled[k] = live && got.bit(s.valid) && !i.bit(s.ready);
        }
        prev_got.clone_from(&got);
        let mut busy = false;
        for (k, s) in io.in_streams.iter().enumerate() {
            taken[k] = live && i.bit(s.valid) && got.bit(s.ready);
            if taken[k] {
                q_in[k].push_back(i.clone());
                n_in[k] += 1;
                busy = true;
            }
        }
        for (k, s) in io.out_streams.iter().enumerate() {
            if live && got.bit(s.valid) && i.bit(s.ready) {
                if is_timer[k] {
                    tr_dev[k] += 1;
                    tr_last[k] = c;
                    ev_dev[k].extend(key(&got, s).into_iter().map(|x| (c, x)));
                } else {
                    q_dev[k].push_back(got.clone());
                    busy = true;
                }
            }
        }
        // The model, fed the device's accepted transfers in order, never stalled.
        mi.clone_from(&i);
        for (k, s) in io.in_streams.iter().enumerate() {
            match q_in[k].front() {
                Some(t) => {
                    mi.set(s.valid, 1);
                    for &p in s.payload.iter().chain(&s.sampled) {
                        mi.set_wide(p, t.wide(p));
                    }
                }
                None => mi.set(s.valid, 0),
            }
        }
        for s in &io.out_streams {
            mi.set(s.ready, 1);
        }
        model.step(&mi, &mut want);
        changes.clear();
        model.timer_changes(&mut changes);
        for ch in &changes {
            let Some(k) = io.out_streams.iter().position(|s| s.name == ch.stream && s.timer.is_some()) else {
                return Err(KitError::Interface { block: io.iface.block.clone(), reason: format!("the model reports a change of timer stream {:?}, which is not a timer stream", ch.stream) });
            };
            for &o in &io.out_streams[k].payload {
                scratch.set(o, 0);
            }
            for &(o, v) in &ch.payload {
                scratch.set(o, v);
            }
            if let TimerDue::AtTime { port, .. } = ch.due {
                if !time_ports.contains(&port) {
                    return Err(KitError::Interface {
                        block: io.iface.block.clone(),
                        reason: format!("the model reports a timer due at a time on input {}, which no input stream samples", io.inputs.name(port)),
                    });
                }
            }
            for x in key(&scratch, &io.out_streams[k]) {
                raw_changes.push((k, x, c, ch.due));
            }
        }
        for (k, s) in io.in_streams.iter().enumerate() {
            if !rst && mi.bit(s.valid) && want.bit(s.ready) {
                q_in[k].pop_front();
                busy = true;
            }
        }
        for (k, s) in io.out_streams.iter().enumerate() {
            if !rst && want.bit(s.valid) {
                if is_timer[k] {
                    if c >= settle {
                        ev_model[k].extend(key(&want, s).into_iter().map(|x| (c, x)));
                    }
                } else {
                    q_model[k].push_back(want.clone());
                    q_model_at[k].push_back(c);
                    busy = true;
                }
            }
        }
        // Results in order.
        for (k, s) in io.out_streams.iter().enumerate() {
            while !q_dev[k].is_empty() && !q_model[k].is_empty() {
                let (d, m) = (q_dev[k].pop_front().unwrap(), q_model[k].pop_front().unwrap());
                q_model_at[k].pop_front();
                let diff = payload_diff(io, &s.payload, &m, &d);
                if !diff.is_empty() {
                    return Ok(Err(Stop { cycle: c, headline: format!("result #{} on stream {} differs", n_dev[k], s.name), inputs: i, diff }));
                }
                n_dev[k] += 1;
                n_model[k] += 1;
            }
        }
        let held = io.out_streams.iter().zip(&is_timer).any(|(s, &t)| t && live && got.bit(s.valid) && !i.bit(s.ready));
        held_cum.push(held_cum.last().unwrap() + u32::from(held));
        if held_w > 0 {
            held_q.push_back(held);
            held_n += u32::from(held);
            while held_q.len() - held_n as usize > held_w {
                held_n -= u32::from(held_q.pop_front().unwrap());
            }
        }
        lag.push(q_model_at.iter().filter_map(|q| q.front()).map(|&t| (c - t) as u32).max().unwrap_or(0) + held_n);
        // Status outputs when idle.
        let idle = !busy
            && q_in.iter().all(|q| q.is_empty())
            && q_dev.iter().zip(&q_model).all(|(a, b)| a.is_empty() && b.is_empty())
            && io.out_streams.iter().zip(&is_timer).all(|(s, &t)| t || (!got.bit(s.valid) && !want.bit(s.valid)))
            && c >= settle
            && !rst;
        idle_run = if idle { idle_run + 1 } else { 0 };
        // Once per idle stretch, and at the end of the drain (which may start mid-stretch).
        if idle_run == quiet || (draining && idle_run >= quiet) {
            idle_checks += 1;
            let diff: Vec<_> =
                io.status.iter().filter(|&&o| !timer_counters.contains(&o) && !want.same(&got, o)).map(|&o| (io.outputs.name(o).to_string(), want.show(o), got.show(o))).collect();
            if !diff.is_empty() {
                return Ok(Err(Stop { cycle: c, headline: "status outputs differ while idle".into(), inputs: i, diff }));
            }
            if draining {
                break;
            }
        }
        c += 1;
        if c & 0xffff == 0 {
            if let Some(p) = progress.as_deref_mut() {
                p(Progress { seed: opts.seed, cycle: c.min(opts.cycles), cycles: opts.cycles });
            }
        }
    }
    if trace.is_some() {
        dev.close_trace();
    }
    if limit.is_some() {
        return Ok(Ok(RunReport::default()));
    }
    // The model's timer history, its deadlines turned into cycles with the device's time.
    let clocks: Vec<DeviceClock> = time_ports.iter().zip(time_series).map(|(&p, v)| DeviceClock::new(v, io.inputs.width(p) as u32)).collect();
    let mut hist: Vec<TimerHistory> = vec![TimerHistory::default(); no];
    for (k, x, at, due) in raw_changes {
        let due_at = match due {
            TimerDue::Off => None,
            TimerDue::AtTime { port, deadline } => Some(clocks[time_ports.iter().position(|&p| p == port).unwrap()].due_at(at, deadline)),
        };
        hist[k].record(x, at, due_at);
    }
    // The timer streams: counters, then events matched by payload within the slack.
    let mut timer_counts = BTreeMap::new();
    for (k, s) in io.out_streams.iter().enumerate() {
        let Some((lateness, counter)) = s.timer else { continue };
        if let Some(o) = counter {
            // The counter in the last cycle's outputs counts the transfers before it.
            let n = (tr_dev[k] - u64::from(tr_last[k] == c)) & 0xffff_ffff;
            if got.wide(o)[0] != n {
                return Ok(Err(Stop {
                    cycle: c,
                    headline: format!("timer stream {}: {} = {} but the device offered {} events", s.name, io.outputs.name(o), got.show(o), n),
                    inputs: i,
                    diff: vec![],
                }));
            }
        }
        let h = (!hist[k].is_empty()).then_some(&hist[k]);
        let m = match match_timer_events_held(&ev_dev[k], &ev_model[k], lateness, &lag, &held_cum, settle, c, h) {
            Ok(m) => m,
            Err((cycle, headline)) => return Ok(Err(Stop { cycle, headline: format!("timer stream {}: {headline}", s.name), inputs: i, diff: vec![] })),
        };
        timer_counts.insert(format!("{}.transfers", s.name), tr_dev[k]);
        timer_counts.insert(format!("{}.events_device", s.name), ev_dev[k].len() as u64);
        timer_counts.insert(format!("{}.events_model", s.name), ev_model[k].len() as u64);
        timer_counts.insert(format!("{}.events_matched", s.name), m.matched);
        timer_counts.insert(format!("{}.events_justified", s.name), m.justified);
        timer_counts.insert(format!("{}.events_short", s.name), m.short);
        timer_counts.insert(format!("{}.timer_changes", s.name), hist[k].changes());
        timer_counts.insert(format!("{}.max_slack", s.name), m.max_slack);
    }
    let mut counters = BTreeMap::new();
    for (k, s) in io.in_streams.iter().enumerate() {
        counters.insert(format!("{}.transfers", s.name), n_in[k]);
    }
    for (k, s) in io.out_streams.iter().enumerate() {
        counters.insert(format!("{}.transfers", s.name), n_dev[k]);
    }
    counters.insert("idle_checks".into(), idle_checks);
    counters.extend(timer_counts);
    counters.insert("drain_cycles".into(), c - drain_from.unwrap_or(c));
    for (k, v) in model.counters() {
        counters.insert(format!("model.{k}"), v);
    }
    for (k, v) in stim.counters() {
        counters.insert(format!("stim.{k}"), v);
    }
    Ok(Ok(RunReport { seed: opts.seed, cycles: opts.cycles, counters }))
}

/// The keys of a timer stream's event in `v` (module header, "Timer streams"): the payload
/// values joined; with set ports ([`super::iface::TimerSpec::sets`]) one key per bit set,
/// the other payload values and `port[bit]` (a set port with no bit set adds none; an event
/// with no bit set in any is one key, its plain payload).
pub fn timer_keys(io: &Io, v: &Values, s: &super::StreamIdx) -> Vec<String> {
    let base = s.payload.iter().filter(|o| !s.timer_sets.contains(o)).map(|&o| v.show(o)).collect::<Vec<_>>().join(" ");
    let mut out = vec![];
    for &o in &s.timer_sets {
        for (w, &word) in v.wide(o).iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                x &= x - 1;
                out.push(format!("{base} {}[{}]", io.outputs.name(o), 64 * w + b));
            }
        }
    }
    if out.is_empty() {
        out.push(base);
    }
    out
}

/// The device's time input over a run, cycle by cycle, for turning a model deadline into the
/// cycle the device reaches it ([`TimerDue::AtTime`]). The time must never step back (it
/// may wrap at its width).
pub struct DeviceClock {
    /// The input in each cycle.
    t: Vec<u64>,
    /// Ticks since cycle 0 (wraps unrolled).
    ticks: Vec<u64>,
    mask: u64,
}

impl DeviceClock {
    /// `t[c]`: the time input in cycle c, `bits` wide.
    pub fn new(t: Vec<u64>, bits: u32) -> DeviceClock {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let mut ticks = Vec::with_capacity(t.len());
        let mut acc = 0u64;
        for (c, &x) in t.iter().enumerate() {
            if c > 0 {
                acc += x.wrapping_sub(t[c - 1]) & mask;
            }
            ticks.push(acc);
        }
        DeviceClock { t, ticks, mask }
    }
    /// The first cycle from `at` in which the time has reached `deadline` (serially: the time
    /// minus the deadline, at the width, is below half the range); `at` if it already has;
    /// `u64::MAX` if not within the run.
    pub fn due_at(&self, at: u64, deadline: u64) -> u64 {
        let Some(&now) = self.t.get(at as usize) else { return u64::MAX };
        let half = (self.mask >> 1) + 1;
        let ahead = deadline.wrapping_sub(now) & self.mask;
        if ahead == 0 || ahead > half {
            return at;
        }
        let target = self.ticks[at as usize] + ahead;
        let from = at as usize;
        let k = from + self.ticks[from..].partition_point(|&x| x < target);
        if k < self.ticks.len() {
            k as u64
        } else {
            u64::MAX
        }
    }
}

/// A model's timers of one timer stream over a run (module header, "Races"): per event
/// payload, the changes in cycle order (the cycle, and the cycle the timer is due from,
/// `None` when disarmed).
#[derive(Clone, Debug, Default)]
pub struct TimerHistory {
    changes: BTreeMap<String, Vec<(u64, Option<u64>)>>,
}

impl TimerHistory {
    /// Records that in cycle `cycle` the timer of `key` became due from cycle `due_at`
    /// (`None`: disarmed). Changes are recorded in cycle order.
    pub fn record(&mut self, key: String, cycle: u64, due_at: Option<u64>) {
        self.changes.entry(key).or_default().push((cycle, due_at.map(|d| d.max(cycle))));
    }
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
    /// The number of changes recorded.
    pub fn changes(&self) -> u64 {
        self.changes.values().map(|v| v.len() as u64).sum()
    }
    /// The intervals `[from, to)` in which the model's timer of `key` was armed, each with
    /// the cycle it was due from (`to` = `u64::MAX` for the last one if still armed).
    pub fn armed(&self, key: &str) -> Vec<(u64, u64, u64)> {
        let Some(v) = self.changes.get(key) else { return vec![] };
        v.iter().enumerate().filter_map(|(n, &(a, d))| d.map(|d| (a, v.get(n + 1).map_or(u64::MAX, |x| x.0), d))).collect()
    }
    /// The stretches `[from, to)` in which the model's timer of `key` was due (adjacent
    /// stretches merged; `to` = `u64::MAX` while still due at the end).
    pub fn due_stretches(&self, key: &str) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = vec![];
        for (a, b, d) in self.armed(key) {
            let from = d.max(a);
            if from >= b {
                continue;
            }
            match out.last_mut() {
                Some(last) if last.1 == from => last.1 = b,
                _ => out.push((from, b)),
            }
        }
        out
    }
}

/// What [`match_timer_events`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerMatch {
    /// The largest slack used.
    pub max_slack: u64,
    /// Events (of either side) with a counterpart within the slack.
    pub matched: u64,
    /// Device events without one, justified by the model's due state (a race).
    pub justified: u64,
    /// Model events without one from a due stretch no longer than the slack.
    pub short: u64,
}

/// `out[c]` = the largest of `v[c - r .. c + r]` (clipped to `v`; the upper end excluded),
/// for every c of `v`, in linear time (a monotonic queue of candidates).
pub fn window_max(v: &[u32], r: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(v.len());
    let mut q: VecDeque<usize> = VecDeque::new();
    let mut next = 0;
    for c in 0..v.len() {
        let hi = (c + r).min(v.len());
        while next < hi {
            while q.back().is_some_and(|&b| v[b] <= v[next]) {
                q.pop_back();
            }
            q.push_back(next);
            next += 1;
        }
        while q.front().is_some_and(|&f| f < c.saturating_sub(r)) {
            q.pop_front();
        }
        out.push(q.front().map_or(0, |&f| v[f]));
    }
    out
}

/// Matches timer events (module header): every event of `a` (the device) needs an event of
/// `b` (the model) with the same payload within the slack, and every event of `b` one of
/// `a`, except near the ends of the run `[start, end)` and, given the model's timer
/// history `h`, the races the module header describes. `lag[c]`: the device's lag in
/// cycle c. Returns what matched or (cycle, what is wrong).
pub fn match_timer_events(
    a: &[(u64, String)],
    b: &[(u64, String)],
    lateness: u64,
    lag: &[u32],
    start: u64,
    end: u64,
    h: Option<&TimerHistory>,
) -> Result<TimerMatch, (u64, String)> {
    match_timer_events_held(a, b, lateness, lag, &[], start, end, h)
}

/// [`match_timer_events`] knowing when the device's timer stream was held by its ready:
/// `held_cum[c]` = held cycles before cycle c (empty: never held). A model event without a
/// device event is then required only if its due stretch had more cycles than the slack in
/// which the device was not held (the device's scanner does not advance while held).
#[allow(clippy::too_many_arguments)]
pub fn match_timer_events_held(
    a: &[(u64, String)],
    b: &[(u64, String)],
    lateness: u64,
    lag: &[u32],
    held_cum: &[u32],
    start: u64,
    end: u64,
    h: Option<&TimerHistory>,
) -> Result<TimerMatch, (u64, String)> {
    // win[c]: the largest lag in [c - 3 x lateness, c + 3 x lateness) (a sliding maximum).
    let win = window_max(lag, 3 * lateness as usize);
    let slack_at = |t: u64| -> u64 {
        let l = win.get(t as usize).copied().unwrap_or(0);
        2 * lateness + 16 + u64::from(l)
    };
    // The end of a due stretch, as a report names it.
    fn until(e: u64) -> String {
        if e == u64::MAX {
            "the end".to_string()
        } else {
            e.to_string()
        }
    }
    fn by_key(v: &[(u64, String)]) -> BTreeMap<&str, Vec<u64>> {
        let mut m: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (t, k) in v {
            m.entry(k.as_str()).or_default().push(*t);
        }
        m
    }
    let (ka, kb) = (by_key(a), by_key(b));
    let mut r = TimerMatch::default();
    let big = 2 * lateness + 16 + u64::from(lag.iter().max().copied().unwrap_or(0));
    let mut stretches: BTreeMap<&str, Vec<(u64, u64)>> = BTreeMap::new();
    let mut armed: BTreeMap<&str, Vec<(u64, u64, u64)>> = BTreeMap::new();
    for (mine, other, device) in [(a, &kb, true), (b, &ka, false)] {
        let (who, whom) = if device { ("device", "model") } else { ("model", "device") };
        for (t, k) in mine {
            let sl = slack_at(*t);
            r.max_slack = r.max_slack.max(sl);
            // A pair is close enough if it is within the slack at either of its two events
            // (the lag that delays the device's event may be measured near either).
            let near = other.get(k.as_str()).and_then(|ts| {
                let i = ts.partition_point(|&x| x < t.saturating_sub(big));
                ts[i..].iter().copied().take_while(|&x| x <= t + big).find(|&x| x.abs_diff(*t) <= sl.max(slack_at(x)))
            });
            if near.is_some() {
                r.matched += 1;
                continue;
            }
            // Near the ends of the run the counterpart may fall outside it.
            if *t < start + sl || *t + sl >= end {
                continue;
            }
            // Races, settled from the model's own deadline state.
            let mut why = String::new();
            if let Some(h) = h {
                if device {
                    // Armed in [a, b) due from d: the device, applying the ops up to the
                    // slack later, holds that deadline until b + slack at most, so it may
                    // fire from max(d, a) until max(b, d) + slack if b + slack > d.
                    let armed = armed.entry(k.as_str()).or_insert_with(|| h.armed(k));
                    if armed.iter().any(|&(a, b, d)| d < b.saturating_add(sl) && d.max(a) <= t + 16 && *t < b.max(d).saturating_add(sl)) {
                        r.justified += 1;
                        continue;
                    }
                    why = "; nor was the model's timer with this payload armed to become due within the slack".into();
                } else {
                    let st = stretches.entry(k.as_str()).or_insert_with(|| h.due_stretches(k));
                    // A scanner reads the bank a few registers before it offers the event:
                    // an event up to 16 cycles after the stretch ended still came from it.
                    if let Some(&(f, e)) = st.iter().find(|&&(f, e)| f <= *t && *t < e.saturating_add(16)) {
                        let held_in = |x: u64, y: u64| -> u64 {
                            let at = |c: u64| held_cum.get(c as usize).or(held_cum.last()).copied().unwrap_or(0);
                            u64::from(at(y) - at(x))
                        };
                        if (e - f).saturating_sub(held_in(f, e)) <= sl {
                            r.short += 1;
                            continue;
                        }
                        why = format!("; the model's timer was due from cycle {f} to {}", until(e));
                    } else {
                        let near = st.iter().min_by_key(|&&(f, e)| if *t < f { f - t } else { t.saturating_sub(e) });
                        why = match near {
                            Some(&(f, e)) => format!("; the model's history has it due from cycle {f} to {} only, not then", until(e)),
                            None => "; the model's history never has it due".into(),
                        };
                    }
                }
            }
            let nearest = other.get(k.as_str()).and_then(|ts| ts.iter().min_by_key(|&&x| x.abs_diff(*t)).copied());
            let what = match nearest {
                Some(x) => format!("the nearest is in cycle {x}"),
                None => format!("the {whom} has none with this payload"),
            };
            return Err((*t, format!("the {who}'s event [{k}] in cycle {t} has no {whom} event within {sl} cycles ({what}{why})")));
        }
    }
    Ok(r)
}

/// Runs the transaction-level comparison (see the module header) for `opts.cycles` cycles of
/// stimulus plus a drain. On a failure: re-runs with an FST of the cycles before it.
pub fn run_transaction(tb: &dyn Testbench, io: &Io, dev: &dyn DeviceFactory, mut opts: RunOpts) -> Result<RunReport, Failure> {
    let mut d = dev.open(io)?;
    let mut progress = opts.progress.take();
    let r = txn_loop(tb, io, d.as_mut(), &opts, None, None, progress.as_deref_mut())?;
    if let Some(p) = &opts.coverage {
        d.write_coverage(p)?;
    }
    drop(d);
    let stop = match r {
        Ok(rep) => return Ok(rep),
        Err(s) => s,
    };
    let wave = traced_rerun(dev, io, &opts, stop.cycle, |d, start, path, end| {
        txn_loop(tb, io, d, &opts, Some((start, path)), Some(end), None)
    })?;
    Err(Failure::Mismatch(Box::new(Mismatch {
        block: io.iface.block.clone(),
        mode: "transaction".into(),
        seed: opts.seed,
        cycle: stop.cycle,
        headline: stop.headline,
        inputs: stop.inputs.named(),
        diff: stop.diff,
        wave,
        repro: opts.repro.clone(),
    })))
}
