//! Proves the Verilator bridge (src/vl.rs): a rust-hdl block with ports whose widths cross every
//! Verilator storage boundary (1, 8, 20, 33, 64, 256 bits), driven for thousands of cycles and
//! compared with a Rust reference; wide-port word order; errors; traces; the build cache.
//!
//! Run: source ~/.cache/mrnic-tools/env.sh && cargo test -p mrnic-verif --test bridge -j2

use std::sync::OnceLock;
use std::time::Instant;

use mrnic_hdl::ports::{top_ports, PortDir};
use mrnic_verif::vl::{BridgeError, BuildOpts, Model, Sim};
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
fn second_build_comes_from_the_cache() {
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
