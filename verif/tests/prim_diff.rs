//! The RTL primitives of `mrnic_hdl::prim`, as generated Verilog under Verilator, against plain
//! Rust models: exhaustive where the input space is small (8-bit trees, every thermometer,
//! every rotate amount), random elsewhere (256-bit trees, the skid buffer's handshakes, the
//! RAM's read-during-write collisions).
//!
//! Run: source ~/.cache/mrnic-tools/env.sh && cargo test -p mrnic-verif --test prim_diff

use mrnic_hdl::ports::top_ports;
use mrnic_hdl::prim::{BlockRam, BlockRamReg, FirstZero, PrefixAnd, RotateRight, SegSearch, SkidBuffer};
use mrnic_verif::vl::{BuildOpts, Model, Port, Sim};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// The three trees side by side at width W, so one Verilator build tests all three.
#[derive(LogicBlock)]
struct Trees<const W: usize> {
    pa_a: Signal<In, Bits<W>>,
    pa_y: Signal<Out, Bits<W>>,
    fz_t: Signal<In, Bits<W>>,
    fz_index: Signal<Out, Bits<24>>,
    rot_a: Signal<In, Bits<W>>,
    rot_amount: Signal<In, Bits<8>>,
    rot_y: Signal<Out, Bits<W>>,
    pa: PrefixAnd<W>,
    fz: FirstZero<W, 24>,
    rot: RotateRight<W>,
}

impl<const W: usize> Default for Trees<W> {
    fn default() -> Self {
        Self {
            pa_a: Default::default(),
            pa_y: Default::default(),
            fz_t: Default::default(),
            fz_index: Default::default(),
            rot_a: Default::default(),
            rot_amount: Default::default(),
            rot_y: Default::default(),
            pa: PrefixAnd::new(),
            fz: FirstZero::new(),
            rot: RotateRight::new(),
        }
    }
}

impl<const W: usize> Logic for Trees<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.pa.a.next = self.pa_a.val();
        self.pa_y.next = self.pa.y.val();
        self.fz.t.next = self.fz_t.val();
        self.fz_index.next = self.fz.index.val();
        self.rot.a.next = self.rot_a.val();
        self.rot.amount.next = self.rot_amount.val();
        self.rot_y.next = self.rot.y.val();
    }
}

fn build<U: Block>(mut uut: U, label: &str) -> Model {
    uut.connect_all();
    let module = format!("mrnic_{label}");
    let verilog = mrnic_hdl::verilog::generate(&uut, &module).unwrap_or_else(|e| panic!("{e}"));
    Model::build(label, &verilog, &top_ports(&uut), &BuildOpts::untraced()).unwrap_or_else(|e| panic!("{e}"))
}

// ---- W-bit vectors as u32 words (least-significant first) and their plain models

fn bit(v: &[u32], i: usize) -> bool {
    v[i / 32] >> (i % 32) & 1 == 1
}
fn from_fn(w: usize, mut f: impl FnMut(usize) -> bool) -> Vec<u32> {
    let mut v = vec![0u32; w.div_ceil(32)];
    for i in 0..w {
        if f(i) {
            v[i / 32] |= 1 << (i % 32);
        }
    }
    v
}
/// y[i] = a[0] & ... & a[i]
fn prefix_and(a: &[u32], w: usize) -> Vec<u32> {
    let first_zero = (0..w).find(|&i| !bit(a, i)).unwrap_or(w);
    from_fn(w, |i| i < first_zero)
}
/// y[i] = a[(i + k) mod w]
fn rotate_right(a: &[u32], w: usize, k: usize) -> Vec<u32> {
    from_fn(w, |i| bit(a, (i + k) % w))
}

struct TreeIo {
    pa_a: Port,
    pa_y: Port,
    fz_t: Port,
    fz_index: Port,
    rot_a: Port,
    rot_amount: Port,
    rot_y: Port,
}
impl TreeIo {
    fn new(s: &Sim) -> Self {
        let p = |n: &str| s.port(n).unwrap();
        TreeIo {
            pa_a: p("pa_a"),
            pa_y: p("pa_y"),
            fz_t: p("fz_t"),
            fz_index: p("fz_index"),
            rot_a: p("rot_a"),
            rot_amount: p("rot_amount"),
            rot_y: p("rot_y"),
        }
    }
}

/// Checks all three trees of width `w` (built as `model`): every 8-bit input when w <= 8,
/// else `random` random vectors (with long runs of ones so the first zero lands everywhere);
/// every thermometer with a zero; every rotate amount 0..=255 (amounts >= w taken mod w).
fn check_trees(model: &Model, w: usize, random: usize, seed: u64) -> usize {
    let mut sim = model.sim().unwrap();
    let io = TreeIo::new(&sim);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut checked = 0;
    let mut inputs: Vec<Vec<u32>> = vec![];
    if w <= 8 {
        inputs.extend((0..1u32 << w).map(|x| vec![x]));
    } else {
        for _ in 0..random {
            let run = rng.gen_range(0..=w);
            let v = from_fn(w, |i| i < run || rng.gen_bool(0.5));
            inputs.push(v);
        }
    }
    // PrefixAnd
    for a in &inputs {
        sim.set_wide(&io.pa_a, a);
        sim.eval();
        assert_eq!(sim.get_wide(&io.pa_y), prefix_and(a, w), "PrefixAnd<{w}> of {a:08x?}");
        checked += 1;
    }
    // FirstZero: every thermometer with a zero (0..w ones)
    for p in 0..w {
        sim.set_wide(&io.fz_t, &from_fn(w, |i| i < p));
        sim.eval();
        assert_eq!(sim.get(&io.fz_index), p as u64, "FirstZero<{w}> index, {p} ones");
        checked += 1;
    }
    // RotateRight: every amount for each input (8-bit: every input; wide: a sample)
    for a in inputs.iter().take(if w <= 8 { usize::MAX } else { 64 }) {
        sim.set_wide(&io.rot_a, a);
        for k in 0..256usize {
            sim.set(&io.rot_amount, k as u64);
            sim.eval();
            assert_eq!(sim.get_wide(&io.rot_y), rotate_right(a, w, k % w), "RotateRight<{w}> of {a:08x?} by {k}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn prefix_and_first_zero_and_rotate_match_their_models_exhaustively_at_8_bits() {
    let m = build(Trees::<8>::default(), "prim_trees8");
    let n = check_trees(&m, 8, 0, 1);
    assert_eq!(n, 256 + 8 + 256 * 256);
}

#[test]
fn prefix_and_first_zero_and_rotate_match_their_models_at_32_bits() {
    let m = build(Trees::<32>::default(), "prim_trees32");
    check_trees(&m, 32, 20_000, 2);
}

#[test]
fn prefix_and_first_zero_and_rotate_match_their_models_at_256_bits() {
    let m = build(Trees::<256>::default(), "prim_trees256");
    check_trees(&m, 256, 20_000, 3);
}

#[test]
fn a_tree_width_that_is_not_a_power_of_two_is_refused_with_the_reason() {
    let e = PrefixAnd::<48>::try_new().err().unwrap().to_string();
    assert_eq!(e, "PrefixAnd: parameter W = 48 is not supported: must be a power of two in 2..=256");
    assert!(RotateRight::<512>::try_new().is_err());
    let e = FirstZero::<256, 7>::try_new().err().unwrap().to_string();
    assert!(e.contains("parameter N = 7") && e.contains("8..=64"), "{e}");
}

// ---- SegSearch: circular first-one search, one register stage

/// (found, wrapped, index) of the first set bit of `a` in circular order from `start`.
fn seg_search_model(a: &[u32], w: usize, start: usize) -> (bool, bool, u64) {
    if let Some(i) = (start..w).find(|&i| bit(a, i)) {
        return (true, false, i as u64);
    }
    match (0..start).find(|&i| bit(a, i)) {
        Some(i) => (true, true, i as u64),
        None => (false, true, 0),
    }
}

/// Random vectors (sparse, dense, empty, single bits, one zero) and every start position,
/// with `en` low on some cycles (the register must hold); the result of the inputs
/// sampled at an edge with `en` is checked in the following cycle.
fn check_seg_search<const W: usize>(label: &str, vectors: usize, seed: u64) -> u64 {
    let m = build(SegSearch::<W>::new(), label);
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, en, a, from, found, wrapped, index) = (p("clock"), p("en"), p("a"), p("from"), p("found"), p("wrapped"), p("index"));
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut held: Option<(bool, bool, u64)> = None;
    let (mut checked, mut wraps, mut misses) = (0u64, 0u64, 0u64);
    for _ in 0..vectors {
        let kind = rng.gen_range(0..6);
        let density = [0.01, 0.1, 0.5, 0.9, 0.99, 0.0][kind];
        let mut v = from_fn(W, |_| rng.gen_bool(density));
        if kind == 5 && rng.gen_bool(0.5) {
            let one = rng.gen_range(0..W);
            v = from_fn(W, |i| i == one);
        }
        for start in 0..W {
            let e = rng.gen_bool(0.9);
            sim.set_wide(&a, &v);
            sim.set_wide(&from, &from_fn(W, |i| i >= start));
            sim.set(&en, e as u64);
            sim.eval();
            if let Some(want) = held {
                let got = (sim.get(&found) == 1, sim.get(&wrapped) == 1, sim.get(&index));
                assert_eq!((got.0, got.0 && got.1, if got.0 { got.2 } else { 0 }), want, "SegSearch<{W}>");
                checked += 1;
                wraps += (want.0 && want.1) as u64;
                misses += !want.0 as u64;
            }
            sim.tick(&clock);
            if e {
                let (f, w, i) = seg_search_model(&v, W, start);
                held = Some((f, f && w, i));
            }
        }
    }
    assert!(wraps > 100 && misses > 10, "both wrap-around and not-found results occur: {wraps} {misses}");
    checked
}

#[test]
fn seg_search_finds_the_first_one_from_every_start_position_at_32_64_and_256_bits() {
    assert!(check_seg_search::<32>("prim_segsearch32", 400, 11) > 10_000);
    assert!(check_seg_search::<64>("prim_segsearch64", 200, 12) > 10_000);
    assert!(check_seg_search::<256>("prim_segsearch256", 100, 13) > 20_000);
}

#[test]
fn seg_search_refuses_a_width_it_cannot_segment() {
    for e in [SegSearch::<16>::try_new().err(), SegSearch::<48>::try_new().err(), SegSearch::<512>::try_new().err()] {
        let e = e.expect("refused").to_string();
        assert!(e.contains("SegSearch") && e.contains("power of two in 32..=256"), "{e}");
    }
}

// ---- SkidBuffer: a FIFO of at most two entries, ready registered

/// Plain model: a FIFO of capacity two; `s_ready` is "fewer than two entries" as of the
/// previous edge (low during and just after reset).
struct SkidModel {
    q: VecDeque<u64>,
    ready: bool,
}
impl SkidModel {
    /// Outputs before the edge: (s_ready, m_valid, m_data of the oldest entry).
    fn outputs(&self) -> (bool, bool, Option<u64>) {
        (self.ready, !self.q.is_empty(), self.q.front().copied())
    }
    fn edge(&mut self, rst: bool, s_valid: bool, data: u64, m_ready: bool) {
        if rst {
            self.q.clear();
            self.ready = false;
            return;
        }
        if !self.q.is_empty() && m_ready {
            self.q.pop_front();
        }
        if s_valid && self.ready {
            self.q.push_back(data);
        }
        assert!(self.q.len() <= 2);
        self.ready = self.q.len() < 2;
    }
}

#[test]
fn skid_buffer_matches_a_two_entry_fifo_with_registered_ready_under_random_handshakes() {
    let m = build(SkidBuffer::<40>::new(), "prim_skid40");
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, rst, s_valid, s_data, s_ready, m_valid, m_data, m_ready) =
        (p("clock"), p("rst"), p("s_valid"), p("s_data"), p("s_ready"), p("m_valid"), p("m_data"), p("m_ready"));
    let mut rng = SmallRng::seed_from_u64(7);
    let mut model = SkidModel { q: VecDeque::new(), ready: false };
    let (mut pushed, mut popped, mut stalls_with_skid) = (0u64, 0u64, 0u64);
    let cycles = 200_000u64;
    for c in 0..cycles {
        // Phases: reset bursts, full rate, heavy backpressure, random.
        let phase = (c / 1000) % 4;
        let r = c < 3 || (c % 50_000 < 2 && c > 10);
        let sv = match phase {
            1 => true,
            _ => rng.gen_bool(0.6),
        };
        let mr = match phase {
            1 => true,
            2 => rng.gen_bool(0.2),
            _ => rng.gen_bool(0.6),
        };
        let d: u64 = rng.gen::<u64>() & ((1 << 40) - 1);
        sim.set(&rst, r as u64);
        sim.set(&s_valid, sv as u64);
        sim.set(&s_data, d);
        sim.set(&m_ready, mr as u64);
        sim.eval();
        let (want_ready, want_valid, want_data) = model.outputs();
        assert_eq!(sim.get(&s_ready) == 1, want_ready, "cycle {c}: s_ready");
        assert_eq!(sim.get(&m_valid) == 1, want_valid, "cycle {c}: m_valid");
        if let Some(x) = want_data {
            assert_eq!(sim.get(&m_data), x, "cycle {c}: m_data");
        }
        if !r {
            pushed += (sv && want_ready) as u64;
            popped += (mr && want_valid) as u64;
            stalls_with_skid += (model.q.len() == 2) as u64;
        }
        model.edge(r, sv, d, mr);
        sim.tick(&clock);
    }
    assert!(pushed > 50_000 && popped > 50_000 && stalls_with_skid > 1000, "{pushed} {popped} {stalls_with_skid}");
}

#[test]
fn skid_buffer_passes_one_transfer_per_cycle_at_full_rate() {
    let m = build(SkidBuffer::<40>::new(), "prim_skid40");
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, rst, s_valid, s_data, s_ready, m_valid, m_data, m_ready) =
        (p("clock"), p("rst"), p("s_valid"), p("s_data"), p("s_ready"), p("m_valid"), p("m_data"), p("m_ready"));
    sim.set(&rst, 1);
    sim.ticks(&clock, 2);
    sim.set(&rst, 0);
    sim.set(&m_ready, 1);
    sim.set(&s_valid, 1);
    sim.tick(&clock); // ready rises one edge after reset
    let mut got = vec![];
    for i in 0..1000u64 {
        sim.set(&s_data, i);
        sim.eval();
        assert_eq!(sim.get(&s_ready), 1, "ready stays high at full rate (cycle {i})");
        if sim.get(&m_valid) == 1 {
            got.push(sim.get(&m_data));
        }
        sim.tick(&clock);
    }
    assert_eq!(got, (0..999).collect::<Vec<_>>(), "latency 1, no bubble, in order");
}

// ---- BlockRam: write-first read with the write in flight forwarded

#[test]
fn block_ram_reads_return_the_word_after_this_cycles_write_including_same_address_collisions() {
    const ADDR: usize = 4;
    let m = build(BlockRam::<40, ADDR>::new(), "prim_bram40x16");
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, we, wa, wd, ra, rd) =
        (p("clock"), p("write_enable"), p("write_address"), p("write_data"), p("read_address"), p("read_data"));
    let mut mem = [0u64; 1 << ADDR];
    let mut rng = SmallRng::seed_from_u64(11);
    // Write every word first (the RAM has no reset: contents are data).
    for a in 0..1u64 << ADDR {
        sim.set(&we, 1);
        sim.set(&wa, a);
        sim.set(&wd, 0);
        sim.tick(&clock);
    }
    let mut expect: Option<u64> = None;
    let mut collisions = 0;
    for c in 0..100_000 {
        let w = rng.gen_bool(0.7);
        let waddr = rng.gen_range(0..1u64 << ADDR);
        // Half the reads hit the address being written.
        let raddr = if rng.gen_bool(0.5) { waddr } else { rng.gen_range(0..1u64 << ADDR) };
        let data = rng.gen::<u64>() & ((1 << 40) - 1);
        sim.set(&we, w as u64);
        sim.set(&wa, waddr);
        sim.set(&wd, data);
        sim.set(&ra, raddr);
        sim.eval();
        if let Some(x) = expect {
            assert_eq!(sim.get(&rd), x, "cycle {c}: read_data");
        }
        if w {
            mem[waddr as usize] = data;
            collisions += (waddr == raddr) as u32;
        }
        expect = Some(mem[raddr as usize]);
        sim.tick(&clock);
    }
    assert!(collisions > 20_000, "{collisions}");
}

// ---- BlockRamReg: read latency 2, output register with clock enable, writes forwarded

/// The contract of `prim::BlockRamReg`: in a cycle with `ce` the output register loads the
/// word at the previous cycle's read address as it is after this cycle's write (both the
/// previous and this cycle's write forwarded); without `ce` it holds, and a write to the held
/// word's address updates it. Random writes, reads that hit the addresses being written half
/// of the time, `ce` low a quarter of the time, 100 000 cycles.
#[test]
fn block_ram_reg_loads_the_previous_address_word_after_this_cycles_write_and_holds_without_ce() {
    const ADDR: usize = 4;
    let m = build(BlockRamReg::<40, ADDR>::new(), "prim_bramreg40x16");
    let mut sim = m.sim().unwrap();
    let p = |n: &str| sim.port(n).unwrap();
    let (clock, ce, we, wa, wd, ra, rd) =
        (p("clock"), p("ce"), p("write_enable"), p("write_address"), p("write_data"), p("read_address"), p("read_data"));
    let mut mem = [0u64; 1 << ADDR];
    let mut rng = SmallRng::seed_from_u64(12);
    for a in 0..1u64 << ADDR {
        sim.set(&we, 1);
        sim.set(&wa, a);
        sim.set(&wd, 0);
        sim.set(&ce, 0);
        sim.tick(&clock);
    }
    sim.set(&we, 0);
    sim.set(&ra, 0);
    sim.tick(&clock);
    // the model: the previous cycle's read address; the register's word and its address
    let mut prev_ra: u64 = 0;
    let mut word: Option<(u64, u64)> = None;
    let (mut hits_now, mut hits_prev, mut held_writes, mut checked) = (0u32, 0u32, 0u32, 0u32);
    let mut prev_write: Option<u64> = None;
    for c in 0..100_000 {
        let w = rng.gen_bool(0.6);
        let waddr = match rng.gen_range(0..4) {
            0 => prev_ra,
            1 => word.map(|x| x.0).unwrap_or(0),
            _ => rng.gen_range(0..1u64 << ADDR),
        };
        let raddr = if rng.gen_bool(0.5) { waddr } else { rng.gen_range(0..1u64 << ADDR) };
        let data = rng.gen::<u64>() & ((1 << 40) - 1);
        let en = rng.gen_bool(0.75);
        sim.set(&ce, en as u64);
        sim.set(&we, w as u64);
        sim.set(&wa, waddr);
        sim.set(&wd, data);
        sim.set(&ra, raddr);
        sim.eval();
        if let Some((_, x)) = word {
            assert_eq!(sim.get(&rd), x, "cycle {c}: read_data");
            checked += 1;
        }
        if w {
            mem[waddr as usize] = data;
        }
        if en {
            hits_now += (w && waddr == prev_ra) as u32;
            hits_prev += (prev_write == Some(prev_ra)) as u32;
            word = Some((prev_ra, mem[prev_ra as usize]));
        } else if let Some((a, _)) = word {
            if w && waddr == a {
                held_writes += 1;
                word = Some((a, data));
            }
        }
        prev_write = if w { Some(waddr) } else { None };
        prev_ra = raddr;
        sim.tick(&clock);
    }
    assert!(checked > 99_000 && hits_now > 10_000 && hits_prev > 10_000 && held_writes > 2_000, "{checked} {hits_now} {hits_prev} {held_writes}");
}
