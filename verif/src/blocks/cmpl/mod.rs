//! The completion unit (`mrnic_cmpl`) on the kit: the model cycle shell
//! ([`mrnic_model::transport::cmpl::CmplShell`]) as a [`CycleModel`], the seeded stimulus
//! and the mutants.
//!
//! Stimulus. Three sources, one per input port, as the receive path has them: the write
//! port `s_wr` (placement's completions: the 95-bit tag, bytes, `bresp`), the fatal port
//! `s_fatal` and the open port `s_open`, each holding its op until taken and offering it
//! with its own probability per phase (often all three at once, so the arbiter's priority
//! decides; a lower port held waiting while a higher one keeps coming); the fields of a port
//! whose valid is low are the held op's or random. Per connection, the messages of its
//! window (from the shadow's next MSN) are planned as the header path would make them: 1 to
//! 4 packets (sometimes more), SEND or WRITE, each offset's write response once, in a
//! random order within and across messages; the connections are drawn from a few hot ones
//! (walks over several complete messages) or all. Now and then a write fails (`bresp`
//! SLVERR, or EXOKAY or DECERR: a SEND's buffer completes with WriteError at the head), the
//! header path refuses a packet (a fatal op; in one phase in four a burst of them), a
//! response names a message outside the window (`stray`), or a LAST packet's offset is far
//! out (a message that never completes here: the offset's high bits); a connection that
//! became fatal is opened again some write ops later (an open, a random MSN), as the host
//! would after the error; half the failed writes are followed at once by another fatal
//! event of the connection, before or after it (the earlier one must stay). The sink stalls
//! in random and long runs. A shadow [`CmplShell`] is stepped with every cycle's inputs, so
//! the generator knows each connection's next MSN and what was taken. After a reset (which
//! may drop an op in flight) every connection is opened again, at once or each after a
//! random number of write ops.
//! Options: `power_up` holds reset for three cycles; `no_resets` drops the random resets;
//! profile `walks`: one or two connections, messages of one packet whose responses come in
//! reverse order, so most ops complete several messages at once, with the sink mostly ready.

use crate::kit::stim::Resets;
use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::transport::cmpl::{CmplOp, CmplOut, CmplPort, CmplShell, CmplShellIn, CmplStats, CmplStatus, WrDone};
use mrnic_model::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};

pub const PROFILES: &[&str] = &["walks"];

/// Names of the unit's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 12] = [
        "rst",
        "s_wr_valid",
        "s_wr_tag",
        "s_wr_bytes",
        "s_wr_resp",
        "s_fatal_valid",
        "s_fatal_conn",
        "s_fatal_msn",
        "s_open_valid",
        "s_open_conn",
        "s_open_msn",
        "m_ready",
    ];
    pub const OUTPUTS: [&str; 14] = [
        "s_wr_ready",
        "s_fatal_ready",
        "s_open_ready",
        "m_valid",
        "m_conn",
        "m_msn",
        "m_ssn",
        "m_bytes",
        "m_solicited",
        "m_status",
        "stat_msgs",
        "stat_cmpls",
        "stat_write_errors",
        "stat_stray",
    ];
    /// The readies' indices in [`OUTPUTS`] (`s_wr_ready`, `s_fatal_ready`, `s_open_ready`).
    pub const READIES: std::ops::Range<usize> = 0..3;
    /// `m_valid`'s index in [`OUTPUTS`].
    pub const M_VALID: usize = 3;
    /// The record's indices in [`OUTPUTS`] (`m_conn` ..= `m_status`).
    pub const RECORD: std::ops::Range<usize> = 4..10;
    /// The counters' indices in [`OUTPUTS`] (`stat_msgs` ..= `stat_stray`).
    pub const STATS: std::ops::Range<usize> = 10..14;
}

/// Input and output indices of the unit's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct CmplPorts {
    pub i: [usize; 12],
    pub o: [usize; 14],
}

impl CmplPorts {
    pub fn resolve(io: &Io) -> Result<CmplPorts, KitError> {
        let mut p = CmplPorts { i: [0; 12], o: [0; 14] };
        for (k, n) in port::INPUTS.iter().enumerate() {
            p.i[k] = io.input(n)?;
        }
        for (k, n) in port::OUTPUTS.iter().enumerate() {
            p.o[k] = io.output(n)?;
        }
        Ok(p)
    }

    pub fn read_inputs(&self, v: &Values) -> CmplShellIn {
        let g = |k: usize| v.get(self.i[k]);
        let t = v.wide(self.i[2]);
        CmplShellIn {
            rst: g(0) != 0,
            s_wr_valid: g(1) != 0,
            s_wr_tag: u128::from(t[0]) | t.get(1).map_or(0, |&h| u128::from(h) << 64),
            s_wr_bytes: g(3) as u32,
            s_wr_resp: g(4) as u8,
            s_fatal_valid: g(5) != 0,
            s_fatal_conn: g(6) as u32,
            s_fatal_msn: g(7) as u32,
            s_open_valid: g(8) != 0,
            s_open_conn: g(9) as u32,
            s_open_msn: g(10) as u32,
            m_ready: g(11) != 0,
        }
    }

    pub fn write_inputs(&self, s: &CmplShellIn, v: &mut Values) {
        for (k, x) in input_values(s).into_iter().enumerate() {
            v.set_wide(self.i[k], &[x as u64, (x >> 64) as u64]);
        }
    }
}

/// The values of the unit's inputs in [`port::INPUTS`] order (`s_wr_tag` is 95 bits wide,
/// the others at most 32).
pub fn input_values(s: &CmplShellIn) -> [u128; 12] {
    [
        s.rst as u128,
        s.s_wr_valid as u128,
        s.s_wr_tag,
        u128::from(s.s_wr_bytes),
        u128::from(s.s_wr_resp),
        s.s_fatal_valid as u128,
        u128::from(s.s_fatal_conn),
        u128::from(s.s_fatal_msn),
        s.s_open_valid as u128,
        u128::from(s.s_open_conn),
        u128::from(s.s_open_msn),
        s.m_ready as u128,
    ]
}

/// `v` as the `n` 32-bit words of a Verilated port, least significant first.
pub fn words32(v: u128, n: usize) -> Vec<u32> {
    (0..n.min(4)).map(|k| (v >> (32 * k)) as u32).collect()
}

/// The readies' values (`s_wr_ready`, `s_fatal_ready`, `s_open_ready`).
pub fn ready_values(o: &mrnic_model::transport::cmpl::CmplShellOut) -> [u64; 3] {
    [o.s_wr_ready as u64, o.s_fatal_ready as u64, o.s_open_ready as u64]
}

/// The values of a completion record's ports (`m_conn` ..= `m_status`).
pub fn record_values(r: &CmplOut) -> [u64; 6] {
    [u64::from(r.conn), u64::from(r.msn), u64::from(r.ssn), u64::from(r.bytes), r.solicited as u64, (r.status == CmplStatus::WriteError) as u64]
}

/// The values of the counters' ports (`stat_msgs` ..= `stat_stray`, 32 bits each).
pub fn stat_values(s: &CmplStats) -> [u64; 4] {
    [s.msgs, s.cmpls, s.write_errors, s.stray].map(|x| x & 0xFFFF_FFFF)
}

/// The shell as a [`CycleModel`]; counts the records out.
pub struct CmplModel {
    pub shell: CmplShell,
    p: CmplPorts,
    out: u64,
    write_error_out: u64,
    stalled: u64,
    busy: u64,
    msgs: u64,
}

impl CycleModel for CmplModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let busy = !self.shell.idle();
        let before = self.shell.g.stats.msgs;
        let out = self.shell.step(&i);
        if !i.rst {
            self.msgs += self.shell.g.stats.msgs - before;
        }
        let p = &self.p.o;
        for (k, x) in ready_values(&out).into_iter().enumerate() {
            o.set(p[port::READIES.start + k], x);
        }
        o.set(p[port::M_VALID], out.m.is_some() as u64);
        if let Some(r) = out.m {
            for (k, x) in record_values(&r).into_iter().enumerate() {
                o.set(p[port::RECORD.start + k], x);
            }
            if i.m_ready {
                self.out += 1;
                self.write_error_out += (r.status == CmplStatus::WriteError) as u64;
            } else {
                self.stalled += 1;
            }
        }
        let s = out.stats;
        for (k, x) in stat_values(&s).into_iter().enumerate() {
            o.set(p[port::STATS.start + k], x);
        }
        self.busy += (busy && !i.rst) as u64;
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("records_out".into(), self.out),
            ("write_error_records_out".into(), self.write_error_out),
            ("m_stalled_cycles".into(), self.stalled),
            ("busy_cycles".into(), self.busy),
            ("msgs".into(), self.msgs),
        ]
    }
}

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default)]
pub struct CmplMix {
    pub cycles: u64,
    pub resets: u64,
    pub ops: u64,
    pub dones: u64,
    pub errors: u64,
    pub fatals: u64,
    pub opens: u64,
    pub strays: u64,
    /// Ops taken that completed two or more messages (the walk went on).
    pub multi_walks: u64,
    /// Takes in a cycle in which all three ports were valid.
    pub takes_all_three_valid: u64,
    /// Takes of the write port while the fatal port was valid (the fatal op held waiting).
    pub fatal_held_by_wr: u64,
    /// Takes of the write or fatal port while the open port was valid.
    pub open_held: u64,
    /// Failed writes with a `bresp` other than SLVERR (1 EXOKAY, 3 DECERR: also not OKAY).
    pub odd_resp: u64,
}

impl CmplMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("ops", self.ops),
            ("dones", self.dones),
            ("errors", self.errors),
            ("fatals", self.fatals),
            ("opens", self.opens),
            ("strays", self.strays),
            ("multi_walks", self.multi_walks),
            ("takes_all_three_valid", self.takes_all_three_valid),
            ("fatal_held_by_wr", self.fatal_held_by_wr),
            ("open_held", self.open_held),
            ("odd_resp", self.odd_resp),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// A planned message: the offsets whose responses are still to come, its size and kind.
#[derive(Clone, Debug)]
struct Planned {
    offsets: Vec<u32>,
    n: u32,
    send: bool,
    /// A long message: 600 to 3000 packets of about 64 KiB (the row's packet count past
    /// 2^9 and its byte count past 2^27).
    big: bool,
}

/// The seeded generator.
pub struct CmplStimulus {
    rng: SmallRng,
    connections: u32,
    msg_window: u32,
    shadow: CmplShell,
    /// Per connection: the planned messages by MSN.
    plan: Vec<BTreeMap<u32, Planned>>,
    /// Connections to open again: (connection, write ops to wait), then into `open_q`.
    reopen: Vec<(u32, u32)>,
    /// The write port's source: the op offered (held until taken) and the ops queued behind
    /// it; the fatal and open ports' sources, each a queue whose front is offered.
    wr: Option<(WrDone, u8)>,
    wr_q: VecDeque<WrDone>,
    fatal_q: VecDeque<(u32, u32)>,
    open_q: VecDeque<(u32, u32)>,
    hot: Vec<u32>,
    phase_left: u32,
    /// The probabilities of each port's valid (when it has an op), of `m_ready`, of a failed
    /// write and of a fatal refusal per write op, in this phase.
    p_w: f64,
    p_f: f64,
    p_o: f64,
    p_m: f64,
    p_err: f64,
    p_fatal: f64,
    resets: Resets,
    msgs_at_take: Option<u64>,
    opts: StimOpts,
    pub mix: CmplMix,
}

impl CmplStimulus {
    pub fn with_opts(seed: u64, connections: u32, msg_window: u32, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed ^ 0x434d_504c),
            connections,
            msg_window,
            shadow: CmplShell::new(connections, msg_window).expect("a valid size"),
            plan: vec![BTreeMap::new(); connections as usize],
            reopen: Vec::new(),
            wr: None,
            wr_q: VecDeque::new(),
            fatal_q: VecDeque::new(),
            open_q: VecDeque::new(),
            hot: vec![0],
            phase_left: 0,
            p_w: 1.0,
            p_f: 1.0,
            p_o: 1.0,
            p_m: 1.0,
            p_err: 0.003,
            p_fatal: 0.002,
            resets: Resets::one_in(opts, 10_000),
            msgs_at_take: None,
            opts: opts.clone(),
            mix: CmplMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn walks(&self) -> bool {
        self.opts.profile == "walks"
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        let mut p = || match r.gen_range(0..8) {
            0..=3 => 1.0,
            4 => r.gen_range(0.05..0.3),
            _ => r.gen_range(0.3..1.0),
        };
        (self.p_w, self.p_f, self.p_o, self.p_m) = (p(), p(), p(), p());
        self.p_err = [0.0, 0.002, 0.01][r.gen_range(0..3)];
        // fatal refusals: rare, or (one phase in four) a burst of them, so that the fatal
        // port often waits behind the write port and beside the open port
        self.p_fatal = [0.0, 0.002, 0.004, 0.03][r.gen_range(0..4)];
        let nh = [1, 2, 4, 16][r.gen_range(0..4)];
        let n = self.connections;
        self.hot = (0..nh).map(|_| r.gen_range(0..n)).collect();
        if self.opts.profile == "walks" {
            self.hot.truncate(2);
            self.p_m = if r.gen_bool(0.8) { 1.0 } else { 0.5 };
            self.p_err = 0.0;
            self.p_fatal = 0.0;
        }
    }

    /// An Open of `conn` into the open port's queue (its plan restarts when it is taken).
    fn open(&mut self, conn: u32) {
        self.reopen.retain(|&(c, _)| c != conn);
        let msn = if self.rng.gen_bool(0.3) { u32::MAX - self.rng.gen_range(0..8) } else { self.rng.gen() };
        self.open_q.push_back((conn, msn));
    }

    fn fatal_later(&mut self, conn: u32) {
        if !self.reopen.iter().any(|&(c, _)| c == conn) && !self.open_q.iter().any(|&(c, _)| c == conn) {
            let wait = self.rng.gen_range(0..200);
            self.reopen.push((conn, wait));
        }
    }

    /// The next write op to offer (and, now and then, a fatal refusal into the fatal port's
    /// queue and opens into the open port's).
    fn make_wr(&mut self) -> WrDone {
        if let Some(d) = self.wr_q.pop_front() {
            return d;
        }
        while let Some(k) = self.reopen.iter().position(|&(_, w)| w == 0) {
            let c = self.reopen[k].0;
            self.open(c);
        }
        for r in &mut self.reopen {
            r.1 = r.1.saturating_sub(1);
        }
        let n = self.connections;
        let mut conn = 0;
        for t in 0..8 {
            conn = if self.rng.gen_bool(0.85) && t < 4 { self.hot[self.rng.gen_range(0..self.hot.len())] } else { self.rng.gen_range(0..n) };
            // (mostly not a connection waiting for its open: its head may be stuck, and its
            // responses would be strays)
            if !self.reopen.iter().chain(&self.open_q).any(|&(c, _)| c == conn) || self.rng.gen_ratio(1, 16) {
                break;
            }
        }
        let base = self.shadow.g.conn(conn).next_msn;
        let mw = self.msg_window;
        let c = conn as usize;
        self.plan[c].retain(|&m, _| m.wrapping_sub(base) < mw);
        if self.rng.gen_bool(self.p_fatal) {
            // a refusal at the header path of one of the window's messages (or one past it)
            let f = self.rng.gen_range(0..n);
            let fb = self.shadow.g.conn(f).next_msn;
            self.fatal_q.push_back((f, fb.wrapping_add(self.rng.gen_range(0..mw + 1))));
            if self.rng.gen_bool(0.5) {
                self.fatal_later(f);
            }
        }
        let roll = self.rng.gen_range(0..1000);
        if roll < 2 && !self.walks() {
            let k = if self.rng.gen_bool(0.5) { mw + self.rng.gen_range(0..mw) } else { 0u32.wrapping_sub(self.rng.gen_range(1..mw + 1)) };
            return WrDone { conn, msn: base.wrapping_add(k), len: self.rng.gen_range(0..4096), offset: 0, last: true, send: true, ssn: self.rng.gen::<u32>() & 0xFF_FFFF, solicited: false, ok: self.rng.gen() };
        }
        if roll < 4 && !self.walks() {
            // a LAST far out (a message of millions of packets: the offset's high bits);
            // it never completes here, so the connection is opened again later
            self.fatal_later(conn);
            let msn = base.wrapping_add(self.rng.gen_range(0..mw));
            return WrDone { conn, msn, len: self.rng.gen_range(1..4097), offset: self.rng.gen::<u32>() & 0xFF_FFFF, last: true, send: self.rng.gen(), ssn: msn.wrapping_mul(7) & 0xFF_FFFF, solicited: self.rng.gen(), ok: true };
        }
        // a message of the window with responses to come (a new one planned if needed)
        let walks = self.walks();
        let open_at = |pl: &BTreeMap<u32, Planned>, k: u32| pl.get(&base.wrapping_add(k)).is_none_or(|p| !p.offsets.is_empty());
        let k = if walks {
            // the newest message first: the head's response comes last and completes all
            (0..mw).rev().find(|&k| open_at(&self.plan[c], k)).unwrap_or(0)
        } else {
            let k0 = self.rng.gen_range(0..mw);
            (0..mw).map(|j| (k0 + j) % mw).find(|&k| open_at(&self.plan[c], k)).unwrap_or(k0)
        };
        let msn = base.wrapping_add(k);
        let rng = &mut self.rng;
        let p = self.plan[c].entry(msn).or_insert_with(|| {
            let big = !walks && rng.gen_ratio(1, 3000);
            let n = if walks { 1 } else if big { rng.gen_range(600..3000) } else if rng.gen_ratio(1, 20) { rng.gen_range(5..40) } else { rng.gen_range(1..5) };
            let mut offsets: Vec<u32> = (0..n).collect();
            for i in (1..offsets.len()).rev() {
                offsets.swap(i, rng.gen_range(0..=i));
            }
            Planned { offsets, n, send: rng.gen_bool(0.6), big }
        });
        let Some(off) = p.offsets.pop() else {
            // every response of the window issued and the head incomplete (a failed write
            // waiting for its reopen): a stray response
            return WrDone { conn, msn: base.wrapping_add(mw), len: 1, offset: 0, last: true, send: false, ssn: 0, solicited: false, ok: true };
        };
        let (n, send, big) = (p.n, p.send, p.big);
        let ok = !self.rng.gen_bool(self.p_err);
        if !ok {
            self.fatal_later(conn);
            if self.rng.gen_bool(0.5) {
                // another fatal event of the connection right behind, before or after it
                let m = base.wrapping_add(self.rng.gen_range(0..mw));
                if self.rng.gen_bool(0.5) {
                    self.fatal_q.push_back((conn, m));
                } else {
                    self.wr_q.push_back(WrDone { conn, msn: m, len: 8, offset: 0, last: false, send: true, ssn: 0x77, solicited: false, ok: false });
                }
            }
        }
        let len = if big || self.rng.gen_ratio(1, 50) { 0xFFFF - self.rng.gen_range(0..16) } else { self.rng.gen_range(1..4097) };
        WrDone { conn, msn, len, offset: off, last: off + 1 == n, send, ssn: msn.wrapping_mul(7) & 0xFF_FFFF, solicited: self.rng.gen(), ok }
    }

    /// Random values for the fields of a port whose valid is low (they must not matter).
    fn garbage(&mut self, i: &mut CmplShellIn, port: CmplPort) {
        let r = &mut self.rng;
        match port {
            CmplPort::Wr => (i.s_wr_tag, i.s_wr_bytes, i.s_wr_resp) = (r.gen(), r.gen(), r.gen::<u8>() & 3),
            CmplPort::Fatal => (i.s_fatal_conn, i.s_fatal_msn) = (r.gen(), r.gen()),
            CmplPort::Open => (i.s_open_conn, i.s_open_msn) = (r.gen(), r.gen()),
        }
    }

    pub fn next_inputs(&mut self) -> CmplShellIn {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        if self.wr.is_none() {
            let d = self.make_wr();
            // a failed write's bresp: SLVERR mostly, now and then EXOKAY or DECERR (not OKAY
            // either)
            let resp = if d.ok { 0 } else { [2, 2, 2, 1, 3][self.rng.gen_range(0..5)] };
            self.wr = Some((d, resp));
        }
        // the sink mostly stalls across a reset (a waiting record must go with it)
        let m_ready = if rst { self.rng.gen_bool(0.2) } else { self.rng.gen_bool(self.p_m) };
        let mut i = CmplShellIn { rst, m_ready, ..CmplShellIn::default() };
        // each source offers its op with its own probability (the fields of an op not
        // offered are either the op's, or anything)
        let (d, resp) = self.wr.expect("made");
        if self.rng.gen_bool(self.p_w) {
            i.offer(&CmplOp::Done(d));
            i.s_wr_resp = resp;
        } else {
            self.garbage(&mut i, CmplPort::Wr);
        }
        match self.fatal_q.front().copied() {
            Some((conn, msn)) if self.rng.gen_bool(self.p_f) => i.offer(&CmplOp::Fatal { conn, msn }),
            _ => self.garbage(&mut i, CmplPort::Fatal),
        }
        match self.open_q.front().copied() {
            Some((conn, msn)) if self.rng.gen_bool(self.p_o) => i.offer(&CmplOp::Open { conn, msn }),
            _ => self.garbage(&mut i, CmplPort::Open),
        }
        if let Some(m) = self.msgs_at_take {
            if self.shadow.idle() {
                self.mix.multi_walks += (self.shadow.g.stats.msgs >= m + 2) as u64;
                self.msgs_at_take = None;
            }
        }
        let o = self.shadow.step(&i);
        if rst {
            // an op in flight may be lost: open every connection again (the plans restart),
            // at once or (half the time) each after a random number of write ops, so that
            // the state a reset left behind is used first
            self.open_q.clear();
            self.wr_q.clear();
            let now = self.rng.gen_bool(0.5);
            for c in 0..self.connections {
                if now {
                    self.open(c);
                } else {
                    self.reopen.retain(|&(x, _)| x != c);
                    let wait = self.rng.gen_range(0..3000);
                    self.reopen.push((c, wait));
                }
            }
            self.wr = None;
            self.msgs_at_take = None;
            return i;
        }
        if let Some(port) = o.taken_port() {
            self.mix.ops += 1;
            let all = i.s_wr_valid && i.s_fatal_valid && i.s_open_valid;
            self.mix.takes_all_three_valid += all as u64;
            self.mix.fatal_held_by_wr += (port == CmplPort::Wr && i.s_fatal_valid) as u64;
            self.mix.open_held += (port != CmplPort::Open && i.s_open_valid) as u64;
            match port {
                CmplPort::Wr => {
                    self.mix.dones += 1;
                    self.mix.errors += !d.ok as u64;
                    self.mix.odd_resp += (resp & 1 == 1) as u64;
                    // (taken: the shell executes it three cycles later, so the next MSN is
                    // still the one it will compare with)
                    let k = d.msn.wrapping_sub(self.shadow.g.conn(d.conn).next_msn);
                    self.mix.strays += (k >= self.msg_window) as u64;
                    self.wr = None;
                }
                CmplPort::Fatal => {
                    self.mix.fatals += 1;
                    self.fatal_q.pop_front();
                }
                CmplPort::Open => {
                    self.mix.opens += 1;
                    let (c, _) = self.open_q.pop_front().expect("offered");
                    self.plan[(c & (self.connections - 1)) as usize].clear();
                }
            }
            self.msgs_at_take = Some(self.shadow.g.stats.msgs);
        }
        i
    }
}

/// [`CmplStimulus`] as a kit [`Stimulus`].
pub struct CmplStim {
    pub gen: CmplStimulus,
    p: CmplPorts,
}

impl Stimulus for CmplStim {
    #[inline]
    fn next(&mut self, _taken: &[bool], v: &mut Values) {
        let i = self.gen.next_inputs();
        self.p.write_inputs(&i, v);
    }
    fn settle_cycles(&self) -> u64 {
        self.gen.settle_cycles()
    }
    fn counters(&self) -> Vec<(String, u64)> {
        self.gen.mix.counters()
    }
}

/// The unit's testbench at one configuration.
#[derive(Clone, Debug)]
pub struct CmplBench {
    pub connections: u32,
    pub msg_window: u32,
}

impl CmplBench {
    pub fn new(cfg: &Config) -> Result<CmplBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(CmplBench { connections: cfg.connections as u32, msg_window: cfg.transport.msg_window })
    }
}

impl Testbench for CmplBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = CmplPorts::resolve(io)?;
        let want = self.connections.trailing_zeros() as usize;
        for k in [6, 9] {
            let cw = io.inputs.width(p.i[k]);
            if cw != want {
                return Err(KitError::Interface { block: "cmpl".into(), reason: format!("{} is {cw} bits wide, the configuration's {} connections need {want}", port::INPUTS[k], self.connections) });
            }
        }
        let tw = io.inputs.width(p.i[2]);
        if tw != mrnic_model::transport::cmpl::WR_TAG_BITS as usize {
            return Err(KitError::Interface { block: "cmpl".into(), reason: format!("s_wr_tag is {tw} bits wide, the write tag (WrDone::tag) is {}", mrnic_model::transport::cmpl::WR_TAG_BITS) });
        }
        Ok(Box::new(CmplModel { shell: CmplShell::new(self.connections, self.msg_window).map_err(KitError::Config)?, p, out: 0, write_error_out: 0, stalled: 0, busy: 0, msgs: 0 }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("cmpl", PROFILES, &opts.profile)?;
        Ok(Box::new(CmplStim { gen: CmplStimulus::with_opts(seed, self.connections, self.msg_window, opts), p: CmplPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // a message completes when its LAST packet is written, before the others (the
    // "completion at the header decision" class: not every byte written)
    ("completes_at_its_last_packet", "u_done = u_lv & (u_pk == u_end);", "u_done = u_lv;"),
    // the walk takes a row whose LAST packet is written as complete (the earlier packets
    // of that message not yet): the row's stored *complete* bit is its end-valid bit
    (
        "walk_completes_a_row_with_only_its_last",
        "(((u_done) & 108'hfffffffffffffffffffffffffff) << 32'h6b)",
        "(((u_lv) & 108'hfffffffffffffffffffffffffff) << 32'h6b)",
    ),
    // a walk step does not wait for the output register: a stalled record is overwritten
    ("walk_overwrites_a_stalled_record", "advance = (st$q == k_walk) & r_done & o_free;", "advance = (st$q == k_walk) & r_done;"),
    // the walk stops after the op's own message (the complete ones behind it wait)
    ("no_walk_after_the_head", "st$d = k_walk;", "st$d = k_idle;"),
    // the walk re-reads the row it just cleared instead of the next one
    ("walk_reads_the_cleared_row", "raddr = conn_hi | ((w_nidx) & 10'h3ff);", "raddr = conn_hi | ((w_next$q[(32'h0)+:(2)]) & 10'h3ff);"),
    // a failed write counts as written
    ("error_response_counted_as_written", "else if (op_ok$q) begin", "else if (1'b1) begin"),
    // a failed SEND at the head never completes with its error
    ("failed_send_at_the_head_not_completed", "if (x_k0$q & op_send$q) begin", "if (1'b0) begin"),
    // the walk's failed-SEND flag is computed for the head it leaves, not the one it
    // moves to (the flag is registered when the head MSN moves)
    (
        "walk_failed_send_flag_for_the_old_head",
        "w_fail$d = w_ev$q & w_fv$q & (w_em$q == w_next1);",
        "w_fail$d = w_ev$q & w_fv$q & (w_em$q == w_next$q);",
    ),
    // a later fatal message replaces an earlier one
    ("later_fatal_replaces_the_earlier", "earlier = ~c_ev | (k < emrel);", "earlier = 1'b1;"),
    // a response outside the window updates a row (another message's)
    ("stray_response_counted", "inwin = k < k_mw;", "inwin = 1'b1;"),
    // Open does not clear the rows: a reopened connection inherits old progress
    ("open_keeps_the_rows", "            waddr = conn_hi | ((clr_j$q) & 10'h3ff);\n            wen = 1'b1;", "            waddr = conn_hi | ((clr_j$q) & 10'h3ff);\n            wen = 1'b0;"),
    // SE taken from every packet, not the LAST one
    ("solicited_from_any_packet", "u_so = r_so;", "u_so = op_sol$q;"),
    // a walked SEND's record carries the op's SSN, not its own row's
    ("walk_record_with_the_ops_ssn", "o_ssn$d = r_ss;", "o_ssn$d = op_ssn$q;"),
    // the bytes are not counted
    ("bytes_not_counted", "u_by = r_by + ((op_len$q) & 32'hffffffff);", "u_by = r_by;"),
    // reset leaves the state machine where it was (a walk or an Open goes on after it)
    ("reset_keeps_the_state_machine", "        if (rst) begin\n            st$d = k_idle;", "        if (rst) begin"),
    // reset keeps a record waiting in the output register
    ("reset_keeps_the_waiting_record", "            st$d = k_idle;\n            o_v$d = 1'b0;", "            st$d = k_idle;"),
    // ---- the input arbiter (wr, then fatal, then open)
    // the priority of the fatal port over the write port (a coherent arbiter, fatal first:
    // grant, fields and RAM addresses)
    (
        "arbiter_fatal_before_wr",
        "sel_wr = s_wr_valid;\n        sel_fatal = ~s_wr_valid & s_fatal_valid;",
        "sel_wr = s_wr_valid & ~s_fatal_valid;\n        sel_fatal = s_fatal_valid;",
    ),
    // the fatal port's ready high whenever it is valid, also in a cycle in which the write
    // port is taken (its op is lost: a ready given to a port not taken)
    ("arbiter_fatal_ready_while_wr_is_taken", "s_fatal_ready = can & sel_fatal;", "s_fatal_ready = can & s_fatal_valid;"),
    // the open port's ready while the unit cannot take an op (busy, or its record waiting)
    ("arbiter_open_ready_while_busy", "s_open_ready = can & sel_open;", "s_open_ready = ~rst & sel_open;"),
    // a fatal op taken with the open port's connection and MSN (the fields' mux misses the
    // fatal port)
    ("arbiter_fatal_op_with_the_open_ports_fields", "if (sel_fatal) begin", "if (1'b0) begin"),
    // ---- the write tag's unpacking and bresp
    // SE from the SSN's top bit instead of the tag's bit 94
    ("wr_tag_se_from_the_ssn_bit", "wr_sol = s_wr_tag[32'h5e];", "wr_sol = s_wr_tag[32'h5d];"),
    // EXOKAY (bresp 1) taken as OKAY: only bresp 0 is
    ("exokay_counted_as_okay", "wr_ok = s_wr_resp == k_okay;", "wr_ok = ~s_wr_resp[1];"),
];
