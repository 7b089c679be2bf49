//! `mrnic vectors`: cycle-by-cycle test vectors of a block from the golden model, for the cocotb
//! vector replay (`verif/cocotb/common/vectors.py`), which drives the same generated Verilog.
//!
//! Format: JSON Lines. Line 1 is a header object
//! `{"block", "module", "config", "seed", "cycles", "latency", "settle", "ports", "streams",
//! "convention"}` (`ports` and `streams` as in `manifest.json`; `settle`: the first cycles
//! whose outputs are power-up state, not to be compared). Then one object per clock cycle,
//! `{"in": {...}, "out": {...}}`: every input port but the clock, and every output port, by
//! name. Values are numbers; ports wider than 64 bits are hex strings `"0x..."` (all digits of
//! the width). The payload outputs of an output stream are present only in cycles where its
//! valid is 1 (compare them only then); everything else is present every cycle.
//!
//! The file is streamed (constant memory whatever `--cycles`), written to a temporary file
//! beside the target and renamed at the end, so the target is either the whole document or
//! untouched. `--cycles` is bounded by [`MAX_CYCLES`].
//!
//! Blocks: `sack` (its own stimulus through `SackShell`, settle 0) and the blocks on the
//! verification kit, `parser`, `rtx`, `path`, `place_chk`, `fbuf`, `realign`, `placement`, `ackgen`, `conn_chk`, `ackjoin` and `cmpl` (`write_kit`: the kit bench's power-up stimulus through
//! its model cycle shell, as `kit::run_differential` runs them; settle = the stimulus'
//! `settle_cycles()`). `--rtl DIR` writes the block's Verilog and a one-block manifest.

use anyhow::{bail, ensure, Context, Result};
use mrnic_hdl::ports::PortDir;
use mrnic_hdl::tops::{dir_name, Generated};
use mrnic_model::sack::{SackInputs, SackOutputs, SackShell};
use mrnic_verif::blocks::sack::stimulus::SackStimulus;
use mrnic_verif::kit::{StimOpts, Values};
use mrnic_model::Config;
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The largest `--cycles` accepted. A SACK cycle line is ~150-300 bytes, so 10^7 cycles is up
/// to ~3 GB of JSON, and the cocotb replay it feeds runs ~10^3 cycles/s (hours for 10^7).
/// Longer runs belong to `mrnic verify` / the Verilated differential test (millions of cycles/s,
/// no file).
pub const MAX_CYCLES: u64 = 10_000_000;

/// The blocks `mrnic vectors` knows.
pub const BLOCKS: &[&str] = &["sack", "parser", "rtx", "path", "place_chk", "fbuf", "realign", "placement", "ackgen", "conn_chk", "ackjoin", "cmpl"];

/// `mrnic vectors`: the golden model's cycle-by-cycle vectors of one block (JSON Lines).
#[derive(clap::Args, Clone)]
pub struct VectorsArgs {
    #[command(flatten)]
    cfg: crate::ConfigArgs,
    /// The block (`sack`, `parser`, `rtx`, `path`, `place_chk`, `fbuf`, `realign`, `placement`, `ackgen`, `conn_chk`, `ackjoin`, `cmpl`).
    #[arg(long, default_value = "sack")]
    pub block: String,
    /// Seed of the stimulus.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Clock cycles to write (1 ..= 10000000).
    #[arg(long, default_value_t = 2000)]
    pub cycles: u64,
    /// No random resets after the power-up prologue (blocks on the verification kit:
    /// `parser`, `rtx`, `path`, `place_chk`, `fbuf`, `realign`, `placement`, `ackgen`, `conn_chk`, `ackjoin`, `cmpl`), so the input transfers can be replayed with
    /// other timing.
    #[arg(long)]
    pub no_resets: bool,
    /// Output file (JSON Lines); its directory is created if missing.
    #[arg(long, required_unless_present = "rtl")]
    pub out: Option<PathBuf>,
    /// Also write the block's generated Verilog and a `manifest.json` listing just it into
    /// this directory (for blocks `mrnic gen` does not list), all or nothing.
    #[arg(long)]
    pub rtl: Option<PathBuf>,
}

/// Runs `mrnic vectors`.
pub fn run(args: &VectorsArgs) -> Result<()> {
    check_cycles(args.cycles)?;
    if !BLOCKS.contains(&args.block.as_str()) {
        bail!("unknown block {:?}: the known blocks are {}", args.block, BLOCKS.join(", "));
    }
    let cfg = crate::load_config(&args.cfg)?;
    let g = mrnic_hdl::tops::block(&cfg, &args.block)?;
    if let Some(out) = &args.out {
        match args.block.as_str() {
            "sack" => {
                ensure!(!args.no_resets, "--no-resets: the sack vectors have no random resets to drop");
                write_atomically(out, |w| write_sack(w, &cfg, &g, args.seed, args.cycles))?
            }
            b => write_atomically(out, |w| write_kit(w, b, &cfg, &g, args.seed, args.cycles, args.no_resets))?,
        }
        println!("wrote {} cycles of block {} (seed {}) to {}", args.cycles, args.block, args.seed, out.display());
    }
    if let Some(dir) = &args.rtl {
        write_rtl(dir, &cfg, &g)?;
    }
    Ok(())
}

/// `--rtl DIR`: the block's Verilog and a manifest listing just it (the shape `mrnic gen`
/// writes), both or neither.
fn write_rtl(dir: &Path, cfg: &Config, g: &Generated) -> Result<()> {
    let (file, entry) = crate::manifest_entry(g);
    let manifest = serde_json::json!({ "generator": mrnic_hdl::tops::GENERATOR, "config": cfg, "blocks": [entry] });
    let files = vec![
        (dir.join(&file), g.verilog.clone().into_bytes()),
        (dir.join("manifest.json"), (serde_json::to_string_pretty(&manifest)? + "\n").into_bytes()),
    ];
    crate::write_all_or_nothing(&files)?;
    for (p, _) in &files {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// A block's vectors from its verification-kit bench (`mrnic_verif::blocks`): the kit's
/// seeded stimulus in its power-up form (reset held, then every piece of state the block
/// relies on set up) driven through the model's cycle shell, exactly as the Verilated
/// differential test runs it. The header's `settle` is the stimulus' settle cycles: the
/// outputs of those first cycles (before the first reset edge) are power-up state, not
/// compared.
fn write_kit(w: &mut dyn Write, block: &str, cfg: &Config, g: &Generated, seed: u64, cycles: u64, no_resets: bool) -> Result<()> {
    let spec = mrnic_verif::blocks::block(block)?;
    let iface = mrnic_verif::kit::Interface::from_generated(block, g)?;
    let io = iface.io();
    let tb = (spec.testbench)(cfg)?;
    let opts = StimOpts { power_up: true, no_resets, ..Default::default() };
    let mut model = tb.model(&io)?;
    let mut stim = tb.stimulus(&io, seed, &opts)?;
    let settle = stim.settle_cycles();
    let streams = streams_of(g);
    let header = Header {
        block,
        module: &g.module,
        config: cfg,
        seed,
        cycles,
        latency: g.latency,
        settle,
        ports: ports_json(g),
        streams: &streams,
        convention: CONVENTION,
    };
    serde_json::to_writer(&mut *w, &header)?;
    w.write_all(b"\n")?;
    let (mut i, mut o) = (Values::new(&io.inputs), Values::new(&io.outputs));
    let mut taken = vec![false; io.in_streams.len()];
    let mut line = String::with_capacity(4096);
    for _ in 0..cycles {
        stim.next(&taken, &mut i);
        model.step(&i, &mut o);
        for (k, s) in io.in_streams.iter().enumerate() {
            taken[k] = i.bit(s.valid) && o.bit(s.ready);
        }
        line.clear();
        line.push_str("{\"in\":{");
        kit_columns(&mut line, &i, |_| true);
        line.push_str("},\"out\":{");
        kit_columns(&mut line, &o, |k| match io.gate[k] {
            Some(v) => o.bit(v),
            None => true,
        });
        line.push_str("}}\n");
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// `"name":value` for every signal of `v` that `keep` selects: a number up to 64 bits, a
/// `"0x…"` string with every digit of the width above.
fn kit_columns(line: &mut String, v: &Values, keep: impl Fn(usize) -> bool) {
    use std::fmt::Write as _;
    let l = v.layout().clone();
    let mut first = true;
    for k in 0..l.len() {
        if !keep(k) {
            continue;
        }
        if !first {
            line.push(',');
        }
        first = false;
        let width = l.width(k);
        if width <= 64 {
            let _ = write!(line, "\"{}\":{}", l.name(k), v.get(k));
        } else {
            let words = v.wide(k);
            let _ = write!(line, "\"{}\":\"0x", l.name(k));
            for d in (0..width.div_ceil(4)).rev() {
                let _ = write!(line, "{:x}", (words[d / 16] >> ((d % 16) * 4)) & 0xf);
            }
            line.push('"');
        }
    }
}

fn ports_json(g: &Generated) -> Vec<serde_json::Value> {
    g.ports
        .iter()
        .map(|p| serde_json::json!({"name": p.name, "width": p.width, "direction": dir_name(p.dir)}))
        .collect()
}

fn check_cycles(cycles: u64) -> Result<()> {
    ensure!(cycles >= 1, "--cycles must be at least 1 (a vector file with no cycle tests nothing)");
    ensure!(
        cycles <= MAX_CYCLES,
        "--cycles {cycles} is above the limit of {MAX_CYCLES}: a cycle is ~300 bytes of JSON (10^7 cycles \
         ~3 GB) and the cocotb replay runs ~1000 cycles/s (10^7 cycles: hours); for longer runs use the \
         Verilated differential test (`mrnic verify`), which needs no file"
    );
    Ok(())
}

/// A valid/ready stream of a block, as the manifest's `streams` describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stream {
    pub name: String,
    pub dir: &'static str,
    pub valid: String,
    pub ready: String,
    pub payload: Vec<String>,
}

/// The block's valid/ready streams as the vectors' header spells them (from
/// `Generated::streams`, the same description the manifest carries).
pub fn streams_of(g: &Generated) -> Vec<Stream> {
    g.streams
        .iter()
        .map(|st| Stream {
            name: st.name.clone(),
            dir: dir_name(st.dir),
            valid: st.valid.clone(),
            ready: st.ready.clone(),
            payload: st.payload.clone(),
        })
        .collect()
}

#[derive(Serialize)]
struct Header<'a> {
    block: &'a str,
    module: &'a str,
    config: &'a Config,
    seed: u64,
    cycles: u64,
    latency: u32,
    /// Cycles at the start whose outputs are not compared (power-up state).
    settle: u64,
    ports: Vec<serde_json::Value>,
    streams: &'a [Stream],
    convention: &'a str,
}

const CONVENTION: &str = "one line per clock cycle: the inputs under \"in\" are applied after the previous rising \
    edge (clock is not a column), the outputs under \"out\" are those of the same cycle, read before the next \
    rising edge; ports wider than 64 bits are \"0x\" hex strings; the payload outputs of an output stream are \
    present only when its valid is 1";

/// One value of a vector column.
enum Val {
    Num(u64),
    Hex(String),
}

/// The SACK model's columns of one cycle, by port name, in port order.
fn sack_inputs(i: &SackInputs) -> [(&'static str, Val); 7] {
    [
        ("rst", Val::Num(i.rst as u64)),
        ("s_valid", Val::Num(i.s_valid as u64)),
        ("s_conn", Val::Num(i.s_conn as u64)),
        ("s_psn", Val::Num(i.s_psn as u64)),
        ("s_clear", Val::Num(i.s_clear as u64)),
        ("s_commit", Val::Num(i.s_commit as u64)),
        ("m_ready", Val::Num(i.m_ready as u64)),
    ]
}

/// The SACK model's output columns; the `m_*` payload is `None` when `m_valid` is 0.
fn sack_outputs(o: &SackOutputs, window: usize) -> [(&'static str, Option<Val>); 11] {
    let m = o.m.as_ref();
    let hex = |b: &mrnic_model::sack::Bitmap| if window > 64 { Val::Hex(format!("0x{}", b.to_hex(window))) } else { Val::Num(b.0[0]) };
    [
        ("s_ready", Some(Val::Num(o.s_ready as u64))),
        ("m_valid", Some(Val::Num(m.is_some() as u64))),
        ("m_conn", m.map(|m| Val::Num(m.conn as u64))),
        ("m_psn", m.map(|m| Val::Num(m.psn as u64))),
        ("m_class", m.map(|m| Val::Num(m.result.class.code() as u64))),
        ("m_base", m.map(|m| Val::Num(m.result.base as u64))),
        ("m_bitmap", m.map(|m| hex(&m.result.bitmap))),
        ("stat_new", Some(Val::Num(o.stats.new as u64))),
        ("stat_duplicate", Some(Val::Num(o.stats.duplicate as u64))),
        ("stat_out_of_window", Some(Val::Num(o.stats.out_of_window as u64))),
        ("stat_cleared", Some(Val::Num(o.stats.cleared as u64))),
    ]
}

/// The model's columns must be exactly the generated ports (but the clock), with hex strings
/// exactly for the ports wider than 64 bits: otherwise the vectors would not fit the Verilog.
fn check_columns(g: &Generated, window: usize) -> Result<()> {
    let ins: Vec<_> = sack_inputs(&SackInputs::default()).iter().map(|(n, _)| n.to_string()).collect();
    let outs: Vec<_> = sack_outputs(&SackOutputs { s_ready: false, m: None, stats: Default::default() }, window)
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    let port_names = |d: PortDir| -> Vec<String> {
        g.ports.iter().filter(|p| p.dir == d && p.name != "clock").map(|p| p.name.clone()).collect()
    };
    ensure!(
        ins == port_names(PortDir::In) && outs == port_names(PortDir::Out),
        "the golden model's vector columns (inputs {ins:?}, outputs {outs:?}) do not match the ports of the \
         generated module {} (inputs {:?}, outputs {:?})",
        g.module,
        port_names(PortDir::In),
        port_names(PortDir::Out)
    );
    let bitmap = g.ports.iter().find(|p| p.name == "m_bitmap").map(|p| p.width);
    ensure!(bitmap == Some(window), "m_bitmap is {bitmap:?} bits wide, the window is {window}");
    Ok(())
}

fn write_sack(w: &mut dyn Write, cfg: &Config, g: &Generated, seed: u64, cycles: u64) -> Result<()> {
    let (conns, window) = (cfg.connections, cfg.sack.window);
    check_columns(g, window)?;
    let streams = streams_of(g);
    let header = Header {
        block: "sack",
        module: &g.module,
        config: cfg,
        seed,
        cycles,
        latency: g.latency,
        settle: 0,
        ports: ports_json(g),
        streams: &streams,
        convention: CONVENTION,
    };
    serde_json::to_writer(&mut *w, &header)?;
    w.write_all(b"\n")?;
    let mut stim = SackStimulus::new(seed, conns, window);
    let mut model = SackShell::new(conns, window);
    let mut taken = false;
    for _ in 0..cycles {
        let i = stim.next_inputs(taken);
        let o = model.step(&i);
        taken = i.s_valid && o.s_ready;
        w.write_all(b"{\"in\":{")?;
        write_columns(w, sack_inputs(&i).into_iter().map(|(n, v)| (n, Some(v))))?;
        w.write_all(b"},\"out\":{")?;
        write_columns(w, sack_outputs(&o, window).into_iter())?;
        w.write_all(b"}}\n")?;
    }
    Ok(())
}

/// Writes `"name":value` pairs, skipping absent ones (port names are plain identifiers).
fn write_columns(w: &mut dyn Write, cols: impl Iterator<Item = (&'static str, Option<Val>)>) -> std::io::Result<()> {
    let mut first = true;
    for (name, v) in cols {
        let Some(v) = v else { continue };
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        match v {
            Val::Num(n) => write!(w, "\"{name}\":{n}")?,
            Val::Hex(s) => write!(w, "\"{name}\":\"{s}\"")?,
        }
    }
    Ok(())
}

/// Writes `out` all or nothing: into a temporary file in the same directory (created if
/// missing), renamed over `out` once complete. On any error the temporary file is removed and
/// `out` is left as it was. Every error names the path it is about.
pub fn write_atomically(out: &Path, body: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let name = out
        .file_name()
        .with_context(|| format!("--out {} does not name a file", out.display()))?
        .to_string_lossy()
        .into_owned();
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating directory {}", dir.display()))?;
    ensure!(!out.is_dir(), "--out {} is a directory, expected a file name", out.display());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> Result<()> {
        let f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        body(&mut w).with_context(|| format!("writing {}", tmp.display()))?;
        let f = w.into_inner().map_err(|e| e.into_error()).with_context(|| format!("writing {}", tmp.display()))?;
        f.sync_all().with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_streams_are_s_and_m_with_their_payloads() {
        let g = mrnic_hdl::tops::block(&Config::preset("small").unwrap(), "sack").unwrap();
        let s = streams_of(&g);
        let got: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.dir, s.valid.as_str(), s.ready.as_str(), s.payload.join(","))).collect();
        assert_eq!(
            got,
            [
                ("s", "input", "s_valid", "s_ready", "s_conn,s_psn,s_clear,s_commit".to_string()),
                ("m", "output", "m_valid", "m_ready", "m_conn,m_psn,m_class,m_base,m_bitmap".to_string()),
            ]
        );
    }

    #[test]
    fn cycles_bound_is_refused_with_the_reason() {
        assert!(check_cycles(1).is_ok() && check_cycles(MAX_CYCLES).is_ok());
        for n in [0, MAX_CYCLES + 1, u64::MAX] {
            let e = check_cycles(n).unwrap_err().to_string();
            assert!(e.contains("--cycles"), "{e}");
        }
        assert!(check_cycles(u64::MAX).unwrap_err().to_string().contains("limit of 10000000"));
    }
}
