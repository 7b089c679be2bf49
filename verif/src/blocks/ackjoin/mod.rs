//! The ACK join (`mrnic_ackjoin`) on the kit: the model cycle shell
//! ([`mrnic_model::transport::ackjoin::AckJoinShell`]) as a [`CycleModel`], the seeded
//! stimulus and the mutants.
//!
//! Stimulus. Packets are made in order, each a SACK result (its connection's base moving
//! forward, a full-width random bitmap) and the generator's entry for it (an ACK with random
//! fields, or a quiet entry); timer ACKs are put between the entries, often on the
//! connection of the packet right before (the RAM's write forwarding). The SACK stream runs
//! ahead of the entries by a random amount, up to past the FIFO's depth (it fills and
//! holds), or lags behind them (entries wait for their results); the sink stalls in random
//! and long runs. A shadow [`AckJoinShell`] is stepped with every cycle's inputs, so the
//! generator knows what was taken (an offer is held until taken). Now and then a SACK result
//! names another connection than its entry (`stim.misaligned`: the block must count it and
//! go on). Options: `power_up` holds reset for three cycles; `no_resets` drops the random
//! resets; profile `hazard` puts a timer ACK of the last packet's connection right behind
//! most packets, on two connections, with the sink mostly ready.

use crate::kit::stim::Resets;
use crate::kit::{CycleModel, Io, KitError, Mutant, StimOpts, Stimulus, Testbench, Values};
use mrnic_model::sack::Bitmap;
use mrnic_model::transport::ackgen::{AckFields, AckOut};
use mrnic_model::transport::ackgen_shell::AckShellAck;
use mrnic_model::transport::ackjoin::{AckJoinShell, AckRecord, JoinShellIn, SackIn, SACK_FIFO_DEPTH};
use mrnic_model::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

pub const PROFILES: &[&str] = &["hazard"];

/// Names of the join's ports (as the manifest lists them), clock excluded.
pub mod port {
    pub const INPUTS: [&str; 19] = [
        "rst",
        "s_sack_valid",
        "s_sack_conn",
        "s_sack_base",
        "s_sack_bitmap",
        "s_gen_valid",
        "s_gen_conn",
        "s_gen_path",
        "s_gen_path_psn",
        "s_gen_flags",
        "s_gen_ecn_ce",
        "s_gen_ecn_pkts",
        "s_gen_rate_hint",
        "s_gen_ts_echo",
        "s_gen_ack_delay",
        "s_gen_sport",
        "s_gen_timer",
        "s_gen_ack",
        "m_ready",
    ];
    pub const OUTPUTS: [&str; 21] = [
        "s_sack_ready",
        "s_gen_ready",
        "m_valid",
        "m_conn",
        "m_path",
        "m_base",
        "m_bitmap",
        "m_path_psn",
        "m_flags",
        "m_ecn_ce",
        "m_ecn_pkts",
        "m_rate_hint",
        "m_ts_echo",
        "m_ack_delay",
        "m_sport",
        "m_timer",
        "stat_acks",
        "stat_timer_acks",
        "stat_quiet",
        "stat_misaligned",
        "stat_fifo_level",
    ];
}

/// Input and output indices of the join's ports in an [`Io`].
#[derive(Clone, Copy, Debug)]
pub struct JoinPorts {
    pub i: [usize; 19],
    pub o: [usize; 21],
    /// The outputs of [`RECORD_PORTS`], in its order.
    pub rec: [usize; 12],
}

fn bitmap_of(words: &[u64]) -> Bitmap {
    let mut b = Bitmap::default();
    for (k, w) in words.iter().take(4).enumerate() {
        b.0[k] = *w;
    }
    b
}

impl JoinPorts {
    pub fn resolve(io: &Io) -> Result<JoinPorts, KitError> {
        let mut p = JoinPorts { i: [0; 19], o: [0; 21], rec: [0; 12] };
        for (k, n) in port::INPUTS.iter().enumerate() {
            p.i[k] = io.input(n)?;
        }
        for (k, n) in port::OUTPUTS.iter().enumerate() {
            p.o[k] = io.output(n)?;
        }
        for (k, n) in RECORD_PORTS.iter().enumerate() {
            p.rec[k] = io.output(n)?;
        }
        Ok(p)
    }
    pub fn read_inputs(&self, v: &Values) -> JoinShellIn {
        let g = |k: usize| v.get(self.i[k]);
        JoinShellIn {
            rst: g(0) != 0,
            s_sack_valid: g(1) != 0,
            s_sack: SackIn { conn: g(2) as u32, base: g(3) as u32, bitmap: bitmap_of(v.wide(self.i[4])) },
            s_gen_valid: g(5) != 0,
            s_gen: AckShellAck {
                sent: g(17) != 0,
                ack: AckOut {
                    conn: g(6) as u32,
                    path: g(7) as u8,
                    fields: AckFields {
                        path_psn: g(8) as u32,
                        flags: g(9) as u8,
                        ecn_ce: g(10) as u8,
                        ecn_pkts: g(11) as u8,
                        ts_echo: g(13) as u32,
                        ack_delay: g(14) as u32,
                        sport: g(15) as u16,
                    },
                    rate_hint: g(12) as u32,
                    timer: g(16) != 0,
                },
            },
            m_ready: g(18) != 0,
        }
    }
    pub fn write_inputs(&self, s: &JoinShellIn, v: &mut Values) {
        for (k, x) in input_values(s).into_iter().enumerate() {
            if k == BITMAP_INPUT {
                v.set_wide(self.i[k], &s.s_sack.bitmap.0);
            } else {
                v.set(self.i[k], x);
            }
        }
    }
}

/// The index of `s_sack_bitmap` in [`port::INPUTS`] (wide: [`input_values`] has 0 there).
pub const BITMAP_INPUT: usize = 4;

/// The values of the join's inputs in [`port::INPUTS`] order, the bitmap's slot 0 (set it
/// from `s.s_sack.bitmap`).
pub fn input_values(s: &JoinShellIn) -> [u64; 19] {
    let (a, f) = (&s.s_gen.ack, &s.s_gen.ack.fields);
    [
            s.rst as u64,
            s.s_sack_valid as u64,
            u64::from(s.s_sack.conn),
            u64::from(s.s_sack.base),
            0,
            s.s_gen_valid as u64,
            u64::from(a.conn),
            u64::from(a.path),
            u64::from(f.path_psn),
            u64::from(f.flags),
            u64::from(f.ecn_ce),
            u64::from(f.ecn_pkts),
            u64::from(a.rate_hint),
            u64::from(f.ts_echo),
            u64::from(f.ack_delay),
            u64::from(f.sport),
            a.timer as u64,
            s.s_gen.sent as u64,
            s.m_ready as u64,
    ]
}

/// The values of an ACK record's ports [`RECORD_PORTS`] (`m_conn` ..= `m_timer` without
/// the bitmap), and its bitmap (`m_bitmap`).
pub fn record_values(r: &AckRecord) -> ([u64; 12], Bitmap) {
    let (a, f) = (&r.ack, &r.ack.fields);
    (
        [
            u64::from(a.conn),
            u64::from(a.path),
            u64::from(r.base),
            u64::from(f.path_psn),
            u64::from(f.flags),
            u64::from(f.ecn_ce),
            u64::from(f.ecn_pkts),
            u64::from(a.rate_hint),
            u64::from(f.ts_echo),
            u64::from(f.ack_delay),
            u64::from(f.sport),
            a.timer as u64,
        ],
        r.bitmap,
    )
}

/// The output ports `record_values` gives, in its order (the bitmap apart).
pub const RECORD_PORTS: [&str; 12] =
    ["m_conn", "m_path", "m_base", "m_path_psn", "m_flags", "m_ecn_ce", "m_ecn_pkts", "m_rate_hint", "m_ts_echo", "m_ack_delay", "m_sport", "m_timer"];

/// The shell as a [`CycleModel`]; counts the ACKs out.
pub struct JoinModel {
    pub shell: AckJoinShell,
    p: JoinPorts,
    acks_out: u64,
    timer_acks_out: u64,
    stalled: u64,
    fifo_full_cycles: u64,
    gen_waits: u64,
}

impl CycleModel for JoinModel {
    #[inline]
    fn step(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let out = self.shell.step(&i);
        let p = &self.p.o;
        o.set(p[0], out.s_sack_ready as u64);
        o.set(p[1], out.s_gen_ready as u64);
        o.set(p[2], out.m.is_some() as u64);
        if let Some(r) = out.m {
            let (vals, bm) = record_values(&r);
            for (k, x) in vals.into_iter().enumerate() {
                o.set(self.p.rec[k], x);
            }
            o.set_wide(p[6], &bm.0);
            if i.m_ready {
                self.acks_out += 1;
                self.timer_acks_out += r.ack.timer as u64;
            } else {
                self.stalled += 1;
            }
        }
        let s = out.stats;
        for (k, x) in [s.acks, s.timer_acks, s.quiet, s.misaligned].into_iter().enumerate() {
            o.set(p[16 + k], x & 0xFFFF_FFFF);
        }
        o.set(p[20], out.fifo_level as u64);
        if !i.rst {
            self.fifo_full_cycles += (out.fifo_level == SACK_FIFO_DEPTH) as u64;
            self.gen_waits += (i.s_gen_valid && !i.s_gen.ack.timer && out.fifo_level == 0) as u64;
        }
    }
    fn counters(&self) -> Vec<(String, u64)> {
        vec![
            ("acks_out".into(), self.acks_out),
            ("timer_acks_out".into(), self.timer_acks_out),
            ("m_stalled_cycles".into(), self.stalled),
            ("fifo_full_cycles".into(), self.fifo_full_cycles),
            ("gen_waits".into(), self.gen_waits),
        ]
    }
}

/// What the generator produced, by kind.
#[derive(Clone, Debug, Default)]
pub struct JoinMix {
    pub cycles: u64,
    pub resets: u64,
    pub packets: u64,
    pub sent: u64,
    pub quiet: u64,
    pub timers: u64,
    pub timers_unsent: u64,
    /// Timer ACKs taken in the cycle right after a packet of their connection was taken.
    pub timer_behind_packet: u64,
    pub misaligned: u64,
}

impl JoinMix {
    pub fn counters(&self) -> Vec<(String, u64)> {
        [
            ("cycles", self.cycles),
            ("resets", self.resets),
            ("packets", self.packets),
            ("sent", self.sent),
            ("quiet", self.quiet),
            ("timers", self.timers),
            ("timers_unsent", self.timers_unsent),
            ("timer_behind_packet", self.timer_behind_packet),
            ("misaligned", self.misaligned),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The seeded generator.
pub struct JoinStimulus {
    rng: SmallRng,
    connections: u32,
    window: usize,
    shadow: AckJoinShell,
    /// SACK results not yet offered and entries not yet offered, in order.
    sacks: VecDeque<SackIn>,
    gens: VecDeque<AckShellAck>,
    /// Per connection: the base of its last result.
    bases: Vec<u32>,
    last_conn: u32,
    hot: Vec<u32>,
    phase_left: u32,
    p_s: f64,
    p_g: f64,
    p_m: f64,
    p_timer: f64,
    p_sent: f64,
    resets: Resets,
    /// The last cycle's take on `s_gen`: a packet of this connection.
    taken_packet: Option<u32>,
    opts: StimOpts,
    pub mix: JoinMix,
}

impl JoinStimulus {
    pub fn with_opts(seed: u64, connections: u32, window: usize, opts: &StimOpts) -> Self {
        Self {
            rng: SmallRng::seed_from_u64(seed ^ 0x4a4f_494e),
            connections,
            window,
            shadow: AckJoinShell::new(connections).expect("a valid size"),
            sacks: VecDeque::new(),
            gens: VecDeque::new(),
            bases: vec![0; connections as usize],
            last_conn: 0,
            hot: vec![0],
            phase_left: 0,
            p_s: 1.0,
            p_g: 1.0,
            p_m: 1.0,
            p_timer: 0.1,
            p_sent: 0.4,
            resets: Resets::one_in(opts, 50_000),
            taken_packet: None,
            opts: opts.clone(),
            mix: JoinMix::default(),
        }
    }

    pub fn settle_cycles(&self) -> u64 {
        u64::from(self.opts.power_up)
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = r.gen_range(50..3000);
        let mut p = || match r.gen_range(0..8) {
            0..=3 => 1.0,
            4 => r.gen_range(0.05..0.3),
            _ => r.gen_range(0.3..1.0),
        };
        (self.p_s, self.p_g, self.p_m) = (p(), p(), p());
        self.p_timer = [0.0, 0.05, 0.2, 0.5][r.gen_range(0..4)];
        self.p_sent = [0.1, 0.4, 0.9][r.gen_range(0..3)];
        let nh = [1, 2, 4, 16][r.gen_range(0..4)];
        let n = self.connections;
        self.hot = (0..nh).map(|_| r.gen_range(0..n)).collect();
        if self.opts.profile == "hazard" {
            self.hot.truncate(2);
            self.p_m = if r.gen_bool(0.8) { 1.0 } else { 0.5 };
            self.p_timer = 0.7;
        }
    }

    fn fields(&mut self) -> (AckFields, u32, u8) {
        let r = &mut self.rng;
        (
            AckFields { path_psn: r.gen::<u32>() & 0xFF_FFFF, flags: r.gen(), ecn_ce: r.gen(), ecn_pkts: r.gen(), ts_echo: r.gen(), ack_delay: r.gen(), sport: r.gen() },
            r.gen(),
            r.gen_range(0..16),
        )
    }

    fn bitmap(&mut self) -> Bitmap {
        let mut b = Bitmap([self.rng.gen(), self.rng.gen(), self.rng.gen(), self.rng.gen()]);
        for k in 0..4 {
            let lo = 64 * k;
            if lo >= self.window {
                b.0[k] = 0;
            } else if self.window - lo < 64 {
                b.0[k] &= (1u64 << (self.window - lo)) - 1;
            }
        }
        if self.rng.gen_bool(0.1) {
            b = Bitmap::default();
        }
        b
    }

    /// One more packet (its result and its entry), maybe a timer entry before it.
    fn make_packet(&mut self) {
        if self.rng.gen_bool(self.p_timer) {
            let conn = if self.rng.gen_bool(0.6) { self.last_conn } else { self.hot[self.rng.gen_range(0..self.hot.len())] };
            let (fields, hint, path) = self.fields();
            let sent = self.rng.gen_ratio(99, 100);
            self.gens.push_back(AckShellAck { sent, ack: AckOut { conn, path, fields, rate_hint: hint, timer: true } });
        }
        let n = self.connections;
        let conn = if self.rng.gen_bool(0.85) { self.hot[self.rng.gen_range(0..self.hot.len())] } else { self.rng.gen_range(0..n) };
        let c = conn as usize;
        self.bases[c] = self.bases[c].wrapping_add(self.rng.gen_range(0..3)) & 0xFF_FFFF;
        if self.rng.gen_ratio(1, 50) {
            self.bases[c] = self.rng.gen::<u32>() & 0xFF_FFFF;
        }
        let mut s = SackIn { conn, base: self.bases[c], bitmap: self.bitmap() };
        if self.rng.gen_ratio(1, 500) {
            s.conn = (conn + 1) % n;
            self.mix.misaligned += 1;
        }
        self.sacks.push_back(s);
        let sent = self.rng.gen_bool(self.p_sent);
        let e = if sent {
            let (fields, hint, path) = self.fields();
            AckShellAck::sent(AckOut { conn, path, fields, rate_hint: hint, timer: false })
        } else {
            AckShellAck::quiet(conn, self.rng.gen_range(0..16))
        };
        self.gens.push_back(e);
        self.last_conn = conn;
    }

    pub fn next_inputs(&mut self) -> JoinShellIn {
        self.mix.cycles += 1;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rst = self.resets.next(&mut self.rng);
        self.mix.resets = self.resets.count;
        // a result is always on offer (when `s_sack` outruns `s_gen`, the FIFO fills and
        // holds it); every packet's entry is behind its result in `gens`
        if self.sacks.is_empty() {
            self.make_packet();
        }
        let s_sack_valid = !self.sacks.is_empty() && self.rng.gen_bool(self.p_s);
        let s_gen_valid = !self.gens.is_empty() && self.rng.gen_bool(self.p_g);
        let i = JoinShellIn {
            rst,
            s_sack_valid,
            s_sack: self.sacks.front().copied().unwrap_or_default(),
            s_gen_valid,
            s_gen: self.gens.front().copied().unwrap_or_default(),
            m_ready: self.rng.gen_bool(self.p_m),
        };
        let o = self.shadow.step(&i);
        if rst {
            // the FIFO is emptied: the entries of its results are dropped with it
            self.sacks.clear();
            self.gens.clear();
            self.taken_packet = None;
            return i;
        }
        let mut taken_packet = None;
        if i.s_gen_valid && o.s_gen_ready {
            let e = self.gens.pop_front().expect("offered");
            if e.ack.timer {
                self.mix.timers += 1;
                self.mix.timers_unsent += !e.sent as u64;
                self.mix.timer_behind_packet += (self.taken_packet == Some(e.ack.conn)) as u64;
            } else {
                self.mix.packets += 1;
                self.mix.sent += e.sent as u64;
                self.mix.quiet += !e.sent as u64;
                taken_packet = Some(e.ack.conn);
            }
        }
        self.taken_packet = taken_packet;
        if i.s_sack_valid && o.s_sack_ready {
            self.sacks.pop_front();
        }
        i
    }
}

/// [`JoinStimulus`] as a kit [`Stimulus`].
pub struct JoinStim {
    pub gen: JoinStimulus,
    p: JoinPorts,
}

impl Stimulus for JoinStim {
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

/// The join's testbench at one configuration.
#[derive(Clone, Debug)]
pub struct JoinBench {
    pub connections: u32,
    pub window: usize,
}

impl JoinBench {
    pub fn new(cfg: &Config) -> Result<JoinBench, KitError> {
        cfg.validate().map_err(|e| KitError::Config(e.to_string()))?;
        Ok(JoinBench { connections: cfg.connections as u32, window: cfg.sack.window })
    }
}

impl Testbench for JoinBench {
    fn model(&self, io: &Io) -> Result<Box<dyn CycleModel>, KitError> {
        let p = JoinPorts::resolve(io)?;
        let bw = io.inputs.width(p.i[4]);
        if bw != self.window {
            return Err(KitError::Interface { block: "ackjoin".into(), reason: format!("s_sack_bitmap is {bw} bits wide, the configuration's window is {}", self.window) });
        }
        Ok(Box::new(JoinModel {
            shell: AckJoinShell::new(self.connections).map_err(KitError::Config)?,
            p,
            acks_out: 0,
            timer_acks_out: 0,
            stalled: 0,
            fifo_full_cycles: 0,
            gen_waits: 0,
        }))
    }
    fn stimulus(&self, io: &Io, seed: u64, opts: &StimOpts) -> Result<Box<dyn Stimulus>, KitError> {
        crate::kit::check_profile("ackjoin", PROFILES, &opts.profile)?;
        Ok(Box::new(JoinStim { gen: JoinStimulus::with_opts(seed, self.connections, self.window, opts), p: JoinPorts::resolve(io)? }))
    }
}

/// The generated Verilog's mutants: each a deliberate bug the differential test must catch.
pub fn mutants() -> Vec<Mutant> {
    Mutant::table(MUTANTS)
}

const MUTANTS: &[(&str, &str, &str)] = &[
    // a timer ACK carries the FIFO head it did not take instead of its connection's row
    ("timer_ack_without_the_row", "                o_state$d = ram$read_data;", "                o_state$d = a_state$q;"),
    // the RAM's write-first forwarding lost: a timer ACK right behind a packet of its
    // connection misses that packet's result
    ("timer_behind_its_packet_misses_it", "fwd_hit$d = write_enable & (write_address == read_address);", "fwd_hit$d = 1'b0;"),
    // a held stage A re-reads the next entry's row, not its own
    ("held_timer_reads_the_next_row", "        raddr = a_conn$q;", "        raddr = s_gen_conn;"),
    // a timer ACK waits for a SACK result it does not need
    ("timer_waits_for_a_result", "s_gen_ready = ~rst & a_moves & (nonempty | s_gen_timer);", "s_gen_ready = ~rst & a_moves & nonempty;"),
    // a packet without ACK leaves as an ACK
    ("quiet_entry_sent", "a_out = a_moves & a_v$q & a_ack$q;", "a_out = a_moves & a_v$q;"),
    // stage A moves into a stalled output register: the waiting ACK is overwritten
    ("stalled_ack_overwritten", "a_moves = ~a_v$q | ~a_ack$q | ~o_v$q | m_ready;", "a_moves = 1'b1;"),
    // a result written into its entry's row, not its own
    ("result_in_the_entrys_row", "a_sconn$d = head_conn;", "a_sconn$d = s_gen_conn;"),
    // a misaligned result not counted
    ("misaligned_not_counted", "if (pop & (s_gen_conn != head_conn)) begin", "if (1'b0) begin"),
    // a push and a pop in the same cycle counted as a pop
    ("fifo_count_push_and_pop", "        if (pop & ~push) begin", "        if (pop) begin"),
    // a timer ACK writes its (unrelated) head into the RAM
    ("timer_writes_the_row", "ram$write_enable = a_v$q & ~a_timer$q;", "ram$write_enable = a_v$q;"),
    // a quiet packet counted as an ACK
    ("quiet_counted_as_an_ack", "if (take & s_gen_ack) begin", "if (take) begin"),
];
