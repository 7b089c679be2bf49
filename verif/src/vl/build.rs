//! Build: from Verilog and a port list to a loaded [`Model`]. [`BuildOpts`] says how (trace,
//! top module, extra flags, -O level, jobs, cache root); [`Model::build`] finds the top, writes
//! the shim, computes the cache key and, on a miss, runs `verilator --cc` (verilate only),
//! checks the port list against `Vtop.h`, reuses or compiles the Verilator runtime objects, and
//! runs Verilator's own makefiles (`make -f Vtop.mk`) to link a shared library exporting only
//! the shim's `mrnic_vl_*` symbols. A built model keeps `top.v`, `shim.cpp`, `build.log` and the
//! library, not `obj_dir/`. A failed build is kept as `failed-<key>/` with its log and its
//! generated C++, without objects and precompiled headers.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::cache::{
    default_cache_root, model_key, runtime_dir, runtime_objects, same_library, save_runtime, tmp_dir, KeyLock,
};
use super::runtime::{load, Model};
use super::shim::{check_against_header, check_ports, generate_shim};
use super::tool::{on_path, verilator, Verilator};
use super::top::find_top;
use super::{io_err, BridgeError, PortInfo, SO_NAME};

/// How to build a model. `Default` traces at `-O2` (the bridge's own tests, the benches);
/// the differential and lockstep tests build [`BuildOpts::untraced`].
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
    /// Top module. None: the one module of the Verilog that no other module instantiates
    /// (an error names the candidates when there is not exactly one).
    pub top: Option<String>,
    /// Power-up state left open: `--x-assign unique --x-initial unique` instead of
    /// `--x-assign fast --x-initial 0`. Uninitialised state is then 0 unless a simulation asks
    /// for random values ([`SimOpts::rand_reset`](super::SimOpts), seeded by `SimOpts::seed`).
    pub x_unique: bool,
    /// Line and toggle coverage (`--coverage-line --coverage-toggle`); write the counts with
    /// [`Sim::write_coverage`](super::Sim::write_coverage). Slower model; own cache entry.
    pub coverage: bool,
}

impl Default for BuildOpts {
    fn default() -> Self {
        BuildOpts {
            trace: true,
            verilator_args: Vec::new(),
            cxx_opt: "-O2".into(),
            jobs: 2,
            cache_root: None,
            top: None,
            x_unique: false,
            coverage: false,
        }
    }
}

impl BuildOpts {
    /// What the differential tests and `mrnic verify` build: no FST tracing and the C++ at
    /// `-O1`. The trace code is about half of the generated C++ (the rtx at `tiny`: 21 MB
    /// with it, 11 MB without), and `-O2` costs several times `-O1` to compile for little
    /// gain on runs of a few 10^6 cycles: `rtx_diff` (three models, 10^6-cycle runs) took
    /// 511 s of CPU with the traced `-O2` builds, 387 s untraced at `-O2` and 243 s
    /// untraced at `-O1`. A failing run's waveform comes from a traced build made only then
    /// ([`Model::traced`], which [`VlFactory`](crate::kit::VlFactory) calls for the re-run
    /// of a failing seed).
    pub fn untraced() -> BuildOpts {
        BuildOpts { trace: false, cxx_opt: "-O1".into(), ..BuildOpts::default() }
    }
}

/// The Verilator flags every build uses (see docs/verilator-bridge.md for why each is there);
/// [`verilator_flags`] adds the ones that depend on [`BuildOpts`] and the top module.
pub const VERILATOR_FLAGS: &[&str] = &["--cc", "-O3", "-Wno-fatal", "-Wno-lint", "-Wno-style"];

/// Every Verilator flag of a build: [`VERILATOR_FLAGS`], the X handling (`fast`/`0`, or
/// `unique`/`unique` with `x_unique`), `--top-module <top> --prefix Vtop` (the shim always talks
/// to `Vtop`), `--trace-fst`, the coverage flags, then `opts.verilator_args`. All of them are
/// part of the cache key.
pub fn verilator_flags(opts: &BuildOpts, top: &str) -> Vec<String> {
    let mut flags: Vec<String> = VERILATOR_FLAGS.iter().map(|s| s.to_string()).collect();
    let (assign, initial) = if opts.x_unique {
        ("unique", "unique")
    } else {
        ("fast", "0")
    };
    flags.extend(["--x-assign", assign, "--x-initial", initial].map(String::from));
    flags.extend(["--top-module", top, "--prefix", "Vtop"].map(String::from));
    if opts.trace {
        flags.push("--trace-fst".into());
    }
    if opts.coverage {
        flags.extend(["--coverage-line", "--coverage-toggle"].map(String::from));
    }
    flags.extend(opts.verilator_args.iter().cloned());
    flags
}

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

/// Compile through ccache: Verilator's makefiles prefix every compile with `$(OBJCACHE)`. Set
/// to `ccache` when `OBJCACHE` is not in the environment and `ccache` is on `PATH` (an empty
/// `OBJCACHE=` turns it off; without ccache the build runs as before). `CCACHE_BASEDIR`
/// defaults to the cache root, so the per-build `.tmp-<key>-<pid>-<n>/` folders (the shim's
/// path) do not enter ccache's hash.
fn use_ccache(c: &mut Command, root: &Path) {
    let objcache = match std::env::var_os("OBJCACHE") {
        Some(v) => v,
        None => {
            if on_path("ccache").is_none() {
                return;
            }
            c.env("OBJCACHE", "ccache");
            "ccache".into()
        }
    };
    if !objcache.is_empty() && std::env::var_os("CCACHE_BASEDIR").is_none() {
        if let Ok(base) = fs::canonicalize(root) {
            c.env("CCACHE_BASEDIR", base);
        }
    }
}

impl Model {
    /// Build (or fetch from the cache) the model for `verilog` with the given port list, and
    /// load it. The top module is `opts.top`, else the one module nobody instantiates.
    pub fn build(
        name: &str,
        verilog: &str,
        ports: &[PortInfo],
        opts: &BuildOpts,
    ) -> Result<Model, BridgeError> {
        let t0 = Instant::now();
        check_ports(ports)?;
        let vl = verilator()?;
        let top = find_top(verilog, opts.top.as_deref())?;
        let shim = generate_shim(ports, opts.trace);
        let flags = verilator_flags(opts, &top);

        let key = model_key(name, verilog, &shim, &vl.version, &flags, &opts.cxx_opt);
        let root = opts.cache_root.clone().unwrap_or_else(default_cache_root);
        // The same library built under another name (`rtx_core` by rtx_diff, then
        // `verify_rtx_core_zero` by `mrnic verify`): the hash is all that decides it.
        let dir = same_library(&root, &key).unwrap_or_else(|| root.join(&key));
        let so = dir.join(SO_NAME);

        let mut cached = so.is_file();
        if !cached {
            // One builder per key; the others wait here and then reuse its entry.
            let _lock = KeyLock::acquire(&root, &key)?;
            cached = so.is_file();
            if !cached {
                build_into(&root, &key, &dir, verilog, &shim, ports, &flags, &vl, opts)?;
            }
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
        let coverage = unsafe { (fns.has_coverage)() } != 0;
        Ok(Model {
            name: name.to_string(),
            top,
            dir,
            ports: ports.to_vec(),
            cached,
            build_time: t0.elapsed(),
            trace,
            coverage,
            opts: opts.clone(),
            fns,
        })
    }
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
    let tmp = tmp_dir(root, key);
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
        let rt_dir = runtime_dir(root, &vl.version, &opts.cxx_opt, &classes, &globals);
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

        // 3. Compile and link the shared library with Verilator's own makefiles (through ccache
        //    when it is installed: use_ccache).
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
        use_ccache(&mut c, root);
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
        // Only the library is loaded: the objects and the two precompiled headers
        // (~70 MB each for a wide model) would make the cache grow by gigabytes over a
        // test run, which filled a CI machine's disk once.
        let _ = fs::remove_dir_all(&obj);
        Ok(())
    })();
    if let Err(e) = result {
        // Keep the failed build for inspection next to the cache, replacing older ones;
        // its generated C++, makefiles and log stay, its bulky binaries go.
        remove_build_products(&tmp.join("obj_dir"));
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
        Err(e) => Err(BridgeError::Io {
            what: format!("rename into {}", dir.display()),
            source: e,
        }),
    }
}

/// Removes what a C++ build left that is large and can be remade (objects, archives,
/// precompiled headers, the library), keeping sources, makefiles and logs.
fn remove_build_products(obj: &Path) {
    let Ok(entries) = fs::read_dir(obj) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if [".o", ".a", ".gch", ".so"].iter().any(|x| name.ends_with(x)) {
            let _ = fs::remove_file(e.path());
        }
    }
}
