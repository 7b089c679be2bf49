//! Runtime: a loaded model and its simulations. [`Model`] holds the resolved shim functions of
//! one shared library (loaded once, never unloaded) and makes [`Sim`]s, each with its own
//! `VerilatedContext`; [`Sim::port`] resolves a name to a [`Port`] carrying the raw pointer to
//! its storage, so `set`/`get` (masked to the width; `set_wide`/`get_wide` in u32 words for any
//! width) are plain memory accesses and `eval`/`tick` one FFI call each. FST traces can be opened
//! from the start or mid-run, and `run_or_trace` re-runs a failing closure with a waveform.

use std::ffi::{c_char, c_void, CString};
use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::cache::{sanitize, waves_dir};
use super::{io_err, BridgeError, PortDir, PortInfo, BRIDGE_ABI};

type FnVoidH = unsafe extern "C" fn(*mut c_void);

#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) nports: unsafe extern "C" fn() -> u32,
    pub(crate) port_width: unsafe extern "C" fn(u32) -> u32,
    pub(crate) has_trace: unsafe extern "C" fn() -> u32,
    pub(crate) has_coverage: unsafe extern "C" fn() -> u32,
    pub(crate) create: unsafe extern "C" fn(i32, *const *const c_char) -> *mut c_void,
    pub(crate) coverage_write: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    pub(crate) port: unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void,
    pub(crate) eval: FnVoidH,
    pub(crate) eval_dump: unsafe extern "C" fn(*mut c_void, u64),
    pub(crate) trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    pub(crate) trace_flush: FnVoidH,
    pub(crate) trace_close: FnVoidH,
    pub(crate) final_: FnVoidH,
    pub(crate) destroy: FnVoidH,
}

/// Run-time options of one simulation ([`Model::sim_with`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimOpts {
    /// Verilator's random seed (`+verilator+seed+N`, 1..=2^31-1). None: Verilator's default (1).
    pub seed: Option<u64>,
    /// Random initial values for uninitialised state (`+verilator+rand+reset+2`). Needs a model
    /// built with [`BuildOpts::x_unique`](super::BuildOpts::x_unique); without it the state is 0.
    pub rand_reset: bool,
    /// Plusargs for the Verilog (`$test$plusargs` / `$value$plusargs`), each `+name` or
    /// `+name=value`. `+verilator+...` options are refused: use the fields above.
    pub plusargs: Vec<String>,
}

impl SimOpts {
    /// The command line handed to the model's `VerilatedContext::commandArgs` (after argv[0]).
    pub fn args(&self) -> Result<Vec<String>, BridgeError> {
        let mut args = Vec::new();
        if let Some(seed) = self.seed {
            // Verilator keeps the seed in an int; 0 would mean "pick one at random".
            if seed == 0 || seed > i32::MAX as u64 {
                return Err(BridgeError::SimOption {
                    field: "seed",
                    reason: format!("{seed} is outside 1..={} (Verilator's seed is an int; 0 means random)", i32::MAX),
                });
            }
            args.push(format!("+verilator+seed+{seed}"));
        }
        if self.rand_reset {
            args.push("+verilator+rand+reset+2".into());
        }
        for p in &self.plusargs {
            let bad = if !p.starts_with('+') || p.len() < 2 {
                Some("must start with '+' and name something")
            } else if p.starts_with("+verilator+") {
                Some("+verilator+ options are set through SimOpts::seed and SimOpts::rand_reset (Verilator exits the process on one it does not know)")
            } else if p.contains('\0') || p.chars().any(char::is_whitespace) {
                Some("contains white space or NUL")
            } else {
                None
            };
            if let Some(reason) = bad {
                return Err(BridgeError::SimOption {
                    field: "plusargs",
                    reason: format!("{p:?} {reason}"),
                });
            }
            args.push(p.clone());
        }
        Ok(args)
    }
}

/// A built and loaded Verilator model. Cheap to clone; create simulations with [`Model::sim`].
///
/// The shared library stays loaded for the life of the process (Verilator's runtime keeps
/// thread-local state; unloading it is not worth the risk).
#[derive(Clone)]
pub struct Model {
    pub(crate) name: String,
    pub(crate) top: String,
    pub(crate) dir: PathBuf,
    pub(crate) ports: Vec<PortInfo>,
    pub(crate) cached: bool,
    pub(crate) build_time: Duration,
    pub(crate) trace: bool,
    pub(crate) coverage: bool,
    /// The options it was built with ([`Model::traced`] rebuilds with them).
    pub(crate) opts: super::BuildOpts,
    pub(crate) fns: Fns,
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.name)
            .field("top", &self.top)
            .field("dir", &self.dir)
            .field("cached", &self.cached)
            .field("build_time", &self.build_time)
            .field("ports", &self.ports.len())
            .finish()
    }
}

impl Model {
    /// Model name given to `build`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The Verilog top module the model was built from (given or found).
    pub fn top(&self) -> &str {
        &self.top
    }
    /// Cache directory (holds top.v, shim.cpp, ports.tsv, build.log, libvltop.so).
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
    /// True when built with `BuildOpts::x_unique` (initial state can be randomised).
    pub fn x_unique(&self) -> bool {
        self.opts.x_unique
    }
    /// True when line/toggle coverage is compiled in (`BuildOpts::coverage`).
    pub fn has_coverage(&self) -> bool {
        self.coverage
    }

    /// The same model with FST tracing compiled in: a clone of itself when it has it, else
    /// the build (or the cache entry) of the same Verilog, read back from its cache entry's
    /// `top.v`, with the same options and [`BuildOpts::trace`](super::BuildOpts) on. Its
    /// simulations compute what this model's do; they can also trace.
    pub fn traced(&self) -> Result<Model, BridgeError> {
        if self.trace {
            return Ok(self.clone());
        }
        let path = self.dir.join("top.v");
        let verilog = fs::read_to_string(&path).map_err(io_err(format!("read {}", path.display())))?;
        let opts = super::BuildOpts { trace: true, top: Some(self.top.clone()), ..self.opts.clone() };
        Model::build(&format!("{}_traced", self.name), &verilog, &self.ports, &opts)
    }

    /// A fresh simulation (its own VerilatedContext and model instance), default options.
    pub fn sim(&self) -> Result<Sim, BridgeError> {
        self.sim_with(&SimOpts::default())
    }

    /// A fresh simulation with run-time options (seed, random initial state, plusargs).
    pub fn sim_with(&self, opts: &SimOpts) -> Result<Sim, BridgeError> {
        static IDS: AtomicU64 = AtomicU64::new(1);
        if opts.rand_reset && !self.opts.x_unique {
            return Err(BridgeError::SimOption {
                field: "rand_reset",
                reason: format!(
                    "model {} was built without BuildOpts::x_unique: its initial state is fixed at 0",
                    self.name
                ),
            });
        }
        let mut argv_s = vec![CString::new("mrnic").expect("no NUL")];
        for a in opts.args()? {
            argv_s.push(CString::new(a).expect("checked: no NUL"));
        }
        let argv: Vec<*const c_char> = argv_s.iter().map(|c| c.as_ptr()).collect();
        // SAFETY: argv and its strings outlive the call (Verilator copies them); the pointers
        // create returns live until destroy.
        let h = unsafe { (self.fns.create)(argv.len() as i32, argv.as_ptr()) };
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
            has_coverage: self.coverage,
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

/// Load a built library and resolve every shim function (checking the shim ABI version).
pub(crate) fn load(so: &Path) -> Result<Fns, BridgeError> {
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
        has_coverage: sym!("mrnic_vl_has_coverage"),
        coverage_write: sym!("mrnic_vl_coverage_write"),
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
    has_coverage: bool,
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

    /// Write this simulation's coverage counts so far (Verilator's `.dat` format) to `path`
    /// (parent directories are created). Merge and report them with [`super::coverage::report`].
    pub fn write_coverage(&mut self, path: impl AsRef<Path>) -> Result<(), BridgeError> {
        let path = path.as_ref();
        if !self.has_coverage {
            return Err(BridgeError::Coverage(format!(
                "model {} was built without BuildOpts::coverage",
                self.model_name
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
            .map_err(|_| BridgeError::Coverage("path contains NUL".into()))?;
        // SAFETY: h live; c outlives the call.
        let r = unsafe { (self.fns.coverage_write)(self.h, c.as_ptr()) };
        if r != 0 {
            return Err(BridgeError::Coverage(format!(
                "writing {} failed (code {r})",
                path.display()
            )));
        }
        Ok(())
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
