//! Proves the Verilator bridge (src/vl/): a rust-hdl block with ports whose widths cross every
//! Verilator storage boundary (1, 8, 20, 33, 64, 256 bits), driven for thousands of cycles and
//! compared with a Rust reference; wide-port word order; errors; traces; the build cache; top
//! module detection; random power-up state per seed (x_unique); line/toggle coverage reports.
//!
//! Run: source ~/.cache/mrnic-tools/env.sh && cargo test -p mrnic-verif --test bridge -j2

use std::sync::OnceLock;
use std::time::Instant;

use mrnic_hdl::ports::{top_ports, PortDir};
use mrnic_verif::vl::{coverage, BridgeError, BuildOpts, Model, Sim, SimOpts, Uncovered, UncoveredKind};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// acc' = en ? (acc ^ din) + (acc >> 3) : acc          (256-bit register)
/// cnt' = en ? cnt + 1 : cnt                             (8-bit register)
/// y64' = x64 + cnt                                      (64-bit register)
/// y33  = x33 ^ acc[32:0]                                (33-bit combinational)
/// y20  = y64[19:0]                                      (20-bit combinational)
/// echo = din, bit200 = din[200]                         (combinational)
#[derive(LogicBlock, Default)]
pub struct Acc {
    pub clock: Signal<In, Clock>,
    pub en: Signal<In, Bit>,
    pub din: Signal<In, Bits<256>>,
    pub x64: Signal<In, Bits<64>>,
    pub x33: Signal<In, Bits<33>>,
    pub acc: Signal<Out, Bits<256>>,
    pub cnt: Signal<Out, Bits<8>>,
    pub y64: Signal<Out, Bits<64>>,
    pub y33: Signal<Out, Bits<33>>,
    pub y20: Signal<Out, Bits<20>>,
    pub echo: Signal<Out, Bits<256>>,
    pub bit200: Signal<Out, Bit>,
    r_acc: DFF<Bits<256>>,
    r_cnt: DFF<Bits<8>>,
    r_y64: DFF<Bits<64>>,
}

impl Logic for Acc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_acc, r_cnt, r_y64);
        if self.en.val() {
            self.r_acc.d.next = (self.r_acc.q.val() ^ self.din.val()) + (self.r_acc.q.val() >> 3);
            self.r_cnt.d.next = self.r_cnt.q.val() + 1;
        }
        self.r_y64.d.next = self.x64.val() + bit_cast::<64, 8>(self.r_cnt.q.val());
        self.acc.next = self.r_acc.q.val();
        self.cnt.next = self.r_cnt.q.val();
        self.y64.next = self.r_y64.q.val();
        self.y33.next = self.x33.val() ^ self.r_acc.q.val().get_bits::<33>(0);
        self.y20.next = self.r_y64.q.val().get_bits::<20>(0);
        self.echo.next = self.din.val();
        self.bit200.next = self.din.val().get_bit(200);
    }
}

// ---- Rust reference (256-bit as 8 u32 words, least-significant first) ----
type W = [u32; 8];

fn xor(a: &W, b: &W) -> W {
    std::array::from_fn(|i| a[i] ^ b[i])
}
fn add(a: &W, b: &W) -> W {
    let mut r = [0u32; 8];
    let mut c = 0u64;
    for i in 0..8 {
        let s = a[i] as u64 + b[i] as u64 + c;
        r[i] = s as u32;
        c = s >> 32;
    }
    r
}
fn shr3(a: &W) -> W {
    std::array::from_fn(|i| (a[i] >> 3) | if i < 7 { a[i + 1] << 29 } else { 0 })
}
fn low(a: &W, bits: u32) -> u64 {
    let v = a[0] as u64 | (a[1] as u64) << 32;
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

#[derive(Default)]
struct Ref {
    acc: W,
    cnt: u8,
    y64: u64,
}
impl Ref {
    /// One rising edge with the given inputs.
    fn edge(&mut self, en: bool, din: &W, x64: u64) {
        let y64 = x64.wrapping_add(self.cnt as u64);
        if en {
            self.acc = add(&xor(&self.acc, din), &shr3(&self.acc));
            self.cnt = self.cnt.wrapping_add(1);
        }
        self.y64 = y64;
    }
}

fn acc_model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        let mut uut = Acc::default();
        uut.connect_all();
        let verilog = generate_verilog(&uut);
        let ports = top_ports(&uut);
        Model::build("bridge_acc", &verilog, &ports, &BuildOpts::default())
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

struct Io {
    clock: mrnic_verif::vl::Port,
    en: mrnic_verif::vl::Port,
    din: mrnic_verif::vl::Port,
    x64: mrnic_verif::vl::Port,
    x33: mrnic_verif::vl::Port,
    acc: mrnic_verif::vl::Port,
    cnt: mrnic_verif::vl::Port,
    y64: mrnic_verif::vl::Port,
    y33: mrnic_verif::vl::Port,
    y20: mrnic_verif::vl::Port,
    echo: mrnic_verif::vl::Port,
    bit200: mrnic_verif::vl::Port,
}
impl Io {
    fn new(s: &Sim) -> Io {
        let p = |n: &str| s.port(n).unwrap();
        Io {
            clock: p("clock"),
            en: p("en"),
            din: p("din"),
            x64: p("x64"),
            x33: p("x33"),
            acc: p("acc"),
            cnt: p("cnt"),
            y64: p("y64"),
            y33: p("y33"),
            y20: p("y20"),
            echo: p("echo"),
            bit200: p("bit200"),
        }
    }
}

/// Drive `cycles` random cycles with `seed`, comparing every output after every edge.
fn run_random(sim: &mut Sim, seed: u64, cycles: usize) -> Result<(), String> {
    let io = Io::new(sim);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut r = Ref::default();
    sim.set(&io.clock, 0);
    sim.eval();
    for c in 0..cycles {
        let en = rng.gen_bool(0.7);
        let din: W = std::array::from_fn(|_| rng.gen());
        let x64: u64 = rng.gen();
        let x33: u64 = rng.gen();
        sim.set(&io.en, en as u64);
        sim.set_wide(&io.din, &din);
        sim.set(&io.x64, x64);
        sim.set(&io.x33, x33);
        sim.tick(&io.clock);
        r.edge(en, &din, x64);
        let got_acc = sim.get_wide(&io.acc);
        let checks = [
            ("acc", got_acc[..] != r.acc[..]),
            ("cnt", sim.get(&io.cnt) != r.cnt as u64),
            ("y64", sim.get(&io.y64) != r.y64),
            (
                "y33",
                sim.get(&io.y33) != (x33 ^ low(&r.acc, 33)) & ((1 << 33) - 1),
            ),
            ("y20", sim.get(&io.y20) != r.y64 & 0xfffff),
            ("echo", sim.get_wide(&io.echo)[..] != din[..]),
            ("bit200", sim.get(&io.bit200) != ((din[6] >> 8) & 1) as u64),
        ];
        if let Some((name, _)) = checks.iter().find(|x| x.1) {
            return Err(format!(
                "seed {seed} cycle {c}: {name} differs (acc hw {:08x?} ref {:08x?}, cnt hw {} ref {})",
                got_acc,
                r.acc,
                sim.get(&io.cnt),
                r.cnt
            ));
        }
    }
    Ok(())
}

#[test]
fn ports_of_test_block() {
    let mut uut = Acc::default();
    uut.connect_all();
    let p = top_ports(&uut);
    let w: Vec<_> = p
        .iter()
        .map(|x| (x.name.as_str(), x.width, x.dir))
        .collect();
    assert_eq!(w[0], ("clock", 1, PortDir::In));
    assert_eq!(w[2], ("din", 256, PortDir::In));
    assert_eq!(w[6], ("cnt", 8, PortDir::Out));
    assert_eq!(p.len(), 12);
}

#[test]
fn differential_against_rust_reference() {
    let m = acc_model();
    let t = Instant::now();
    for seed in 0..4 {
        let mut sim = m.sim().unwrap();
        run_random(&mut sim, seed, 5000).unwrap();
    }
    eprintln!("20000 checked cycles in {:?}", t.elapsed());
}

#[test]
fn wide_port_round_trips_every_word() {
    let m = acc_model();
    let mut sim = m.sim().unwrap();
    let din = sim.port("din").unwrap();
    let echo = sim.port("echo").unwrap();
    let bit200 = sim.port("bit200").unwrap();
    assert_eq!(din.words(), 8);
    // Walking one through all 256 bits: word order and bit order.
    for b in 0..256 {
        let mut w = [0u32; 8];
        w[b / 32] = 1 << (b % 32);
        sim.set_wide(&din, &w);
        sim.eval();
        assert_eq!(sim.get_wide(&echo), w, "bit {b}");
        assert_eq!(sim.get(&bit200), (b == 200) as u64, "bit {b}");
    }
    // Distinct pattern per word.
    let w: Vec<u32> = (0..8)
        .map(|i| 0x1111_1111u32.wrapping_mul(i + 1) ^ 0xa5a5_0000)
        .collect();
    sim.set_wide(&din, &w);
    sim.eval();
    assert_eq!(sim.get_wide(&echo), w);
    // set() on a wide port zero-extends.
    sim.set(&din, 0xdead_beef_0123_4567);
    sim.eval();
    assert_eq!(
        sim.get_wide(&echo),
        vec![0x0123_4567, 0xdead_beef, 0, 0, 0, 0, 0, 0]
    );
    // Short slices zero the rest.
    sim.set_wide(&din, &[7]);
    sim.eval();
    assert_eq!(sim.get_wide(&echo), vec![7, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn writes_are_masked_to_the_port_width() {
    let m = acc_model();
    let mut sim = m.sim().unwrap();
    let x33 = sim.port("x33").unwrap();
    let y33 = sim.port("y33").unwrap();
    let en = sim.port("en").unwrap();
    sim.set(&x33, u64::MAX);
    assert_eq!(sim.get(&x33), (1 << 33) - 1);
    sim.eval();
    assert_eq!(sim.get(&y33), (1 << 33) - 1); // acc is 0 after reset
    sim.set(&en, 0xff);
    assert_eq!(sim.get(&en), 1);
    sim.set_wide(&x33, &[0xffff_ffff, 0xffff_ffff]);
    assert_eq!(sim.get(&x33), (1 << 33) - 1);
    assert_eq!(sim.get_wide(&x33), vec![0xffff_ffff, 1]);
}

#[test]
fn unknown_port_is_a_clear_error() {
    let sim = acc_model().sim().unwrap();
    let e = sim.port("nope").unwrap_err();
    assert!(matches!(e, BridgeError::NoSuchPort { .. }));
    let msg = e.to_string();
    assert!(msg.contains("\"nope\""), "{msg}");
    assert!(msg.contains("din (In 256)"), "{msg}");
}

#[test]
#[should_panic(expected = "cannot drive output port cnt")]
fn driving_an_output_panics() {
    let mut sim = acc_model().sim().unwrap();
    let cnt = sim.port("cnt").unwrap();
    sim.set(&cnt, 1);
}

#[test]
#[should_panic(expected = "belongs to another Sim")]
fn port_of_another_sim_panics() {
    let m = acc_model();
    let a = m.sim().unwrap();
    let mut b = m.sim().unwrap();
    let en = a.port("en").unwrap();
    b.set(&en, 1);
}

#[test]
#[should_panic(expected = "use get_wide")]
fn get_on_wide_port_panics() {
    let sim = acc_model().sim().unwrap();
    let acc = sim.port("acc").unwrap();
    sim.get(&acc);
}

/// rust-hdl's Verilog names its top `top`; the bridge finds it without being told.
#[test]
fn top_of_rust_hdl_verilog_is_found() {
    assert_eq!(acc_model().top(), "top");
}

/// The Acc Verilog with its modules renamed the way mrnic names blocks (`mrnic_x`, submodules
/// `mrnic_x$r_acc`, ...): the top is found, the model runs, and naming the top explicitly gives
/// the same cache entry.
#[test]
fn top_named_like_a_block_with_submodules() {
    let mut uut = Acc::default();
    uut.connect_all();
    let verilog = generate_verilog(&uut)
        .replace("module top(", "module mrnic_x(")
        .replace("top$", "mrnic_x$");
    assert!(verilog.contains("mrnic_x$r_acc r_acc"), "expected a submodule instance");
    let ports = top_ports(&uut);
    let found = Model::build("bridge_mrnic_x", &verilog, &ports, &BuildOpts::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(found.top(), "mrnic_x");
    let mut sim = found.sim().unwrap();
    run_random(&mut sim, 11, 500).unwrap();
    let named = Model::build(
        "bridge_mrnic_x",
        &verilog,
        &ports,
        &BuildOpts {
            top: Some("mrnic_x".into()),
            ..BuildOpts::default()
        },
    )
    .unwrap();
    assert_eq!(named.dir(), found.dir());
    assert!(named.was_cached());
    // A top that does not exist is refused with the list of modules, before verilating.
    let e = Model::build(
        "bridge_mrnic_x",
        &verilog,
        &ports,
        &BuildOpts {
            top: Some("top".into()),
            ..BuildOpts::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, BridgeError::Top(_)), "{e}");
    assert!(e.to_string().contains("mrnic_x$r_cnt"), "{e}");
}

/// Two unrelated modules: the bridge refuses to guess and names both.
#[test]
fn ambiguous_top_is_a_clear_error() {
    let mut uut = Acc::default();
    uut.connect_all();
    let verilog = format!("{}\nmodule spare(input a, output b);\nassign b = a;\nendmodule\n", generate_verilog(&uut));
    let e = Model::build("bridge_two_tops", &verilog, &top_ports(&uut), &BuildOpts::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("ambiguous: top, spare"), "{e}");
}

fn assert_fst(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.len() > 100,
        "{}: {} bytes",
        path.display(),
        bytes.len()
    );
    // FST: first block is the header block (type 0, FST_BL_HDR) of length 329 (big-endian u64).
    assert_eq!(
        &bytes[..9],
        &[0, 0, 0, 0, 0, 0, 0, 1, 0x49],
        "{} does not start with the FST header",
        path.display()
    );
}

#[test]
fn trace_file_is_written() {
    let m = acc_model();
    let dir = mrnic_verif::vl::target_dir().join("test-waves");
    let path = dir.join("bridge_trace.fst");
    let _ = std::fs::remove_file(&path);
    {
        let mut sim = m.sim_traced(&path).unwrap();
        run_random(&mut sim, 7, 200).unwrap();
        assert_eq!(sim.time(), 1 + 400);
        assert_eq!(sim.close_trace().as_deref(), Some(path.as_path()));
    }
    assert_fst(&path);

    // Mid-run start, closed by drop.
    let path2 = dir.join("bridge_trace_midrun.fst");
    let _ = std::fs::remove_file(&path2);
    {
        let mut sim = m.sim().unwrap();
        let clk = sim.port("clock").unwrap();
        let en = sim.port("en").unwrap();
        sim.set(&en, 1);
        sim.ticks(&clk, 50);
        sim.trace_to(&path2).unwrap();
        assert!(sim.trace_to(&path2).is_err(), "second trace_to must fail");
        sim.ticks(&clk, 50);
        assert_eq!(sim.get(&sim.port("cnt").unwrap()), 100);
    }
    assert_fst(&path2);
}

#[test]
fn failing_run_is_rerun_with_a_waveform() {
    let m = acc_model();
    let err = m
        .run_or_trace("bridge_deliberate_failure", |sim| {
            let clk = sim.port("clock").unwrap();
            sim.ticks(&clk, 10);
            Err("deliberate".into())
        })
        .unwrap_err();
    assert!(
        err.contains("deliberate") && err.contains("waveform"),
        "{err}"
    );
    let wave = mrnic_verif::vl::waves_dir().join("bridge_deliberate_failure.fst");
    assert_fst(&wave);
    // Panics are failures too.
    let err = m
        .run_or_trace("bridge_deliberate_panic", |_| panic!("boom"))
        .unwrap_err();
    assert!(err.contains("boom"), "{err}");
    // And passing runs pass.
    m.run_or_trace("bridge_pass", |sim| run_random(sim, 3, 100))
        .unwrap();
}

#[test]
fn second_build_comes_from_the_cache_which_keeps_sources_and_library_only() {
    let first = acc_model();
    let mut uut = Acc::default();
    uut.connect_all();
    let t = Instant::now();
    let again = Model::build(
        "bridge_acc",
        &generate_verilog(&uut),
        &top_ports(&uut),
        &BuildOpts::default(),
    )
    .unwrap();
    let dt = t.elapsed();
    assert!(again.was_cached(), "second build re-ran verilator");
    assert_eq!(again.dir(), first.dir());
    assert!(dt.as_secs_f64() < 2.0, "cached build took {dt:?}");
    eprintln!(
        "first build: cached={} {:?}; second: {:?}",
        first.was_cached(),
        first.build_time(),
        dt
    );
    // The cache entry keeps what it was built from.
    assert!(again.dir().join("top.v").is_file());
    assert!(again.dir().join("shim.cpp").is_file());
    // ... and not the C++ build's objects and precompiled headers (~140 MB for a wide model).
    assert!(
        !again.dir().join("obj_dir").exists(),
        "obj_dir/ left in the cache entry {}",
        again.dir().display()
    );
}

#[test]
fn wrong_port_list_is_rejected_before_compiling() {
    let mut uut = Acc::default();
    uut.connect_all();
    let mut ports = top_ports(&uut);
    ports[2].width = 255;
    let e = Model::build(
        "bridge_acc_bad",
        &generate_verilog(&uut),
        &ports,
        &BuildOpts::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("din: port list says 255 bits, Verilog says 256"),
        "{msg}"
    );
    ports[2].width = 256;
    ports.pop();
    let msg = Model::build(
        "bridge_acc_bad",
        &generate_verilog(&uut),
        &ports,
        &BuildOpts::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("bit200 is missing from the port list"),
        "{msg}"
    );
}

// ---- Power-up state (BuildOpts::x_unique, SimOpts) ----

/// A RAM that nothing writes or resets: its read port shows the RAM's power-up contents.
#[derive(LogicBlock, Default)]
pub struct Uninit {
    pub clock: Signal<In, Clock>,
    pub addr: Signal<In, Bits<2>>,
    pub q: Signal<Out, Bits<32>>,
    ram: RAM<Bits<32>, 2>,
}

impl Logic for Uninit {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.addr.val();
        self.ram.write_address.next = self.addr.val();
        self.ram.write_data.next = 0.into();
        self.ram.write_enable.next = false;
        self.q.next = self.ram.read_data.val();
    }
}

fn uninit_model(x_unique: bool) -> Model {
    let mut uut = Uninit::default();
    uut.connect_all();
    let opts = BuildOpts {
        x_unique,
        trace: false,
        ..BuildOpts::default()
    };
    Model::build("bridge_uninit", &generate_verilog(&uut), &top_ports(&uut), &opts)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The four RAM words as read through the registered read port.
fn ram_words(m: &Model, opts: &SimOpts) -> Vec<u64> {
    let mut sim = m.sim_with(opts).unwrap_or_else(|e| panic!("{e}"));
    let (clk, addr, q) = (
        sim.port("clock").unwrap(),
        sim.port("addr").unwrap(),
        sim.port("q").unwrap(),
    );
    (0..4)
        .map(|a| {
            sim.set(&addr, a);
            sim.tick(&clk);
            sim.get(&q)
        })
        .collect()
}

/// `x_unique` + `rand_reset` gives seed-dependent, reproducible power-up contents; the default
/// build (`--x-initial 0`) and an x_unique build without `rand_reset` power up as zeros.
#[test]
fn power_up_state_is_random_per_seed_only_when_asked() {
    let zeros = vec![0u64; 4];
    let plain = uninit_model(false);
    assert!(!plain.x_unique());
    assert_eq!(ram_words(&plain, &SimOpts::default()), zeros);
    let x = uninit_model(true);
    assert!(x.x_unique());
    assert_ne!(x.dir(), plain.dir(), "x_unique must have its own cache entry");
    assert_eq!(ram_words(&x, &SimOpts::default()), zeros);
    let seeded = |seed| SimOpts {
        seed: Some(seed),
        rand_reset: true,
        ..SimOpts::default()
    };
    let a = ram_words(&x, &seeded(1));
    let b = ram_words(&x, &seeded(2));
    eprintln!("seed 1: {a:08x?}\nseed 2: {b:08x?}");
    assert_ne!(a, zeros, "random reset left the RAM at zero");
    assert_ne!(a, b, "two seeds gave the same power-up state");
    assert_eq!(ram_words(&x, &seeded(1)), a, "the same seed must reproduce");
    // Asking for random state from a model that cannot have it is an error, not a silent 0.
    let e = plain.sim_with(&seeded(1)).err().expect("rand_reset on a plain model");
    assert!(
        matches!(e, BridgeError::SimOption { field: "rand_reset", .. }),
        "{e}"
    );
}

#[test]
fn bad_sim_options_are_refused_before_verilator_sees_them() {
    let m = uninit_model(true);
    for (opts, field, text) in [
        (SimOpts { seed: Some(0), ..SimOpts::default() }, "seed", "outside 1..="),
        (SimOpts { seed: Some(1 << 31), ..SimOpts::default() }, "seed", "outside 1..="),
        (
            SimOpts { plusargs: vec!["+verilator+debug".into()], ..SimOpts::default() },
            "plusargs",
            "+verilator+ options",
        ),
        (SimOpts { plusargs: vec!["noplus".into()], ..SimOpts::default() }, "plusargs", "must start with '+'"),
    ] {
        let e = m.sim_with(&opts).err().expect("refused");
        let msg = e.to_string();
        assert!(
            matches!(e, BridgeError::SimOption { field: f, .. } if f == field) && msg.contains(text),
            "{msg}"
        );
    }
    // A plain plusarg is accepted.
    m.sim_with(&SimOpts {
        plusargs: vec!["+mode=3".into()],
        ..SimOpts::default()
    })
    .unwrap();
}

// ---- Coverage ----

/// `sel` chooses between two registers; the tests never raise it, so the `if` branch and the
/// toggles of `sel` and `hit` stay uncovered.
#[derive(LogicBlock, Default)]
pub struct Branchy {
    pub clock: Signal<In, Clock>,
    pub sel: Signal<In, Bit>,
    pub a: Signal<In, Bits<4>>,
    pub q: Signal<Out, Bits<4>>,
    pub hit: Signal<Out, Bit>,
    r_q: DFF<Bits<4>>,
    r_hit: DFF<Bit>,
}

impl Logic for Branchy {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_q, r_hit);
        if self.sel.val() {
            self.r_hit.d.next = true;
        } else {
            self.r_q.d.next = self.a.val() + 1;
        }
        self.q.next = self.r_q.q.val();
        self.hit.next = self.r_hit.q.val();
    }
}

#[test]
fn coverage_report_names_the_branch_never_taken() {
    let mut uut = Branchy::default();
    uut.connect_all();
    let verilog = generate_verilog(&uut);
    let opts = BuildOpts {
        coverage: true,
        trace: false,
        ..BuildOpts::default()
    };
    let m = Model::build("bridge_branchy_cov", &verilog, &top_ports(&uut), &opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(m.has_coverage());
    let out = mrnic_verif::vl::target_dir().join("test-coverage/branchy");
    let _ = std::fs::remove_dir_all(&out);
    let vfile = out.join("branchy.v");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(&vfile, &verilog).unwrap();
    // Two runs, two files: the report merges them.
    let mut dats = Vec::new();
    for seed in 0..2u64 {
        let mut sim = m.sim().unwrap();
        let (clk, a) = (sim.port("clock").unwrap(), sim.port("a").unwrap());
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..200 {
            sim.set(&a, rng.gen_range(0..16));
            sim.tick(&clk);
        }
        let dat = out.join(format!("run{seed}.dat"));
        sim.write_coverage(&dat).unwrap();
        dats.push(dat);
    }
    let r = coverage::report(&dats, &vfile, &out).unwrap_or_else(|e| panic!("{e}"));
    let md = r.to_markdown();
    eprintln!("{md}");
    assert!(r.line_pct < 100.0 && r.line_pct > 50.0, "{md}");
    assert!(r.toggle_pct < 100.0 && r.toggle_pct > 20.0, "{md}");
    // The uncovered line is the assignment inside `if (sel)`, named with its source text.
    let lines: Vec<&Uncovered> = r
        .uncovered
        .iter()
        .filter(|u| u.kind == UncoveredKind::Line)
        .collect();
    assert_eq!(lines.len(), 1, "{md}");
    let src_line = verilog.lines().nth(lines[0].line as usize - 1).unwrap().trim();
    assert_eq!(lines[0].source, src_line);
    assert!(src_line.contains("r_hit$d"), "uncovered line is {src_line:?}\n{md}");
    assert!(md.contains(&format!("branchy.v:{}", lines[0].line)), "{md}");
    // `sel` never rose; `a` did.
    let toggles: Vec<&str> = r
        .uncovered
        .iter()
        .filter(|u| u.kind == UncoveredKind::Toggle)
        .map(|u| u.what.as_str())
        .collect();
    assert!(toggles.contains(&"sel:0->1"), "{toggles:?}");
    // Names are Verilog's, not Verilator's C++ spelling (`r_hit__024d`).
    assert!(toggles.contains(&"r_hit$d:0->1"), "{toggles:?}");
    assert!(!toggles.iter().any(|t| t.starts_with("a[")), "{toggles:?}");
    // verilator_coverage's own outputs are there.
    let annotated = std::fs::read_to_string(r.annotated.join("branchy.v")).unwrap();
    assert!(annotated.contains("%000000"), "{annotated}");
    assert!(std::fs::read_to_string(&r.lcov).unwrap().contains("SF:"));
    // Asking a model without coverage is an error.
    let e = acc_model()
        .sim()
        .unwrap()
        .write_coverage(out.join("none.dat"))
        .unwrap_err();
    assert!(matches!(e, BridgeError::Coverage(_)), "{e}");
    // So is reporting on nothing, or on a missing file.
    assert!(coverage::report(&[], &vfile, &out).is_err());
    let e = coverage::report(&[out.join("missing.dat")], &vfile, &out).unwrap_err();
    assert!(e.to_string().contains("missing.dat does not exist"), "{e}");
}

/// Throughput figure for the docs (run with --ignored --nocapture).
#[test]
#[ignore]
fn throughput() {
    for trace in [true, false] {
        let mut uut = Acc::default();
        uut.connect_all();
        let opts = BuildOpts {
            trace,
            ..BuildOpts::default()
        };
        let m = Model::build(
            "bridge_acc",
            &generate_verilog(&uut),
            &top_ports(&uut),
            &opts,
        )
        .unwrap();
        eprintln!(
            "trace={trace}: build {:?} cached={}",
            m.build_time(),
            m.was_cached()
        );
        let mut sim = m.sim().unwrap();
        let clk = sim.port("clock").unwrap();
        let en = sim.port("en").unwrap();
        let din = sim.port("din").unwrap();
        let acc = sim.port("acc").unwrap();
        sim.set(&en, 1);
        let n = 5_000_000u64;
        let t = Instant::now();
        let mut w = [0u32; 8];
        for i in 0..n {
            w[0] = i as u32;
            sim.set_wide(&din, &w);
            sim.tick(&clk);
        }
        let dt = t.elapsed();
        let mut out = [0u32; 8];
        sim.get_wide_into(&acc, &mut out);
        eprintln!(
            "trace={trace}: {n} cycles (set_wide 256 + tick) in {dt:?}: {:.1} M cycles/s (acc[0]={:08x})",
            n as f64 / dt.as_secs_f64() / 1e6,
            out[0]
        );
        let t = Instant::now();
        sim.ticks(&clk, n);
        let dt = t.elapsed();
        eprintln!(
            "trace={trace}: {n} bare ticks in {dt:?}: {:.1} M cycles/s",
            n as f64 / dt.as_secs_f64() / 1e6
        );
    }
}
