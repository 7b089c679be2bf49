//! What every block's differential test (`verif/tests/<block>_diff.rs`) shares: the block's
//! generated Verilog, interface and testbench for one preset ([`DiffBench::new`]), the
//! Verilated build of it or of a variant ([`DiffBench::build`], [`DiffBench::build_x`]),
//! seeded runs with the environment's extra seed and scale and a reproduction line
//! ([`DiffBench::check`]), and the mutant sweep ([`DiffBench::mutants`]).
//!
//! These are test helpers: a failure panics with the kit's full report (seed, cycle,
//! inputs, named-signal diff, waveform path, the command that reproduces it), which is what
//! a failing test should print.
//!
//! Environment: `MRNIC_SEED=n` adds seed n to every [`DiffBench::check`];
//! `MRNIC_DIFF_SCALE=k` multiplies its cycles; `MRNIC_MUTANT=name` runs only that mutant.

use super::mutant::outcome;
use super::{check_mutants, run_differential, schema, Caught, Interface, Io, Mutant, RunOpts, RunReport, StimOpts, Testbench, VlFactory, SCHEMA_PLUSARG};
use crate::blocks;
use crate::vl::{BuildOpts, Model, SimOpts};
use mrnic_model::Config;

/// How mutants are built: without FST support and at `-O0`. A mutant is expected to fail, so
/// its run is short (it stops at the first mismatch) and needs no waveform; its C++ build is
/// most of its cost, and `-O0` without tracing roughly halves it (the rtx at `core`: 42 s at
/// `-O2` vs 23 s at `-O0` for the model's C++ on the shared 2-core machine).
pub fn mutant_build() -> BuildOpts {
    BuildOpts { trace: false, cxx_opt: "-O0".into(), ..BuildOpts::default() }
}

/// `MRNIC_DIFF_SCALE` (default 1).
pub fn diff_scale() -> u64 {
    std::env::var("MRNIC_DIFF_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

/// `MRNIC_SEED`: one extra seed to run, if set.
pub fn extra_seed() -> Option<u64> {
    std::env::var("MRNIC_SEED").ok().and_then(|s| s.parse().ok())
}

/// One block at one preset, ready to be built and diffed.
pub struct DiffBench {
    pub cfg: Config,
    /// The generated Verilog under test.
    pub verilog: String,
    pub iface: Interface,
    pub io: Io,
    pub tb: Box<dyn Testbench>,
    /// The test binary (`rtx_diff`), named in the reproduction lines.
    pub test: String,
}

impl DiffBench {
    /// Block `block` (a [`blocks::BLOCKS`] row) at preset `preset`, for the test binary
    /// `test`. Panics with the reason if the block, the preset or the generation fails.
    pub fn new(block: &str, preset: &str, test: &str) -> DiffBench {
        let cfg = Config::preset(preset).unwrap_or_else(|e| panic!("preset {preset}: {e}"));
        let spec = blocks::block(block).unwrap_or_else(|e| panic!("{e}"));
        let (g, iface) = spec.generated(&cfg).unwrap_or_else(|e| panic!("{e}"));
        let io = iface.io();
        let tb = (spec.testbench)(&cfg).unwrap_or_else(|e| panic!("{e}"));
        DiffBench { cfg, verilog: g.verilog, iface, io, tb, test: test.to_string() }
    }

    /// The Verilated model of `verilog` (the generated Verilog or a variant of it).
    pub fn build(&self, label: &str, verilog: &str) -> VlFactory {
        VlFactory::new(Model::build(label, verilog, &self.iface.ports, &BuildOpts::untraced()).unwrap_or_else(|e| panic!("{e}")))
    }

    /// The x-unique model (`--x-assign unique --x-initial unique`) of the generated
    /// Verilog, for power-up runs ([`VlFactory::power_up`]).
    pub fn build_x(&self, label: &str) -> Model {
        Model::build(label, &self.verilog, &self.iface.ports, &BuildOpts { x_unique: true, ..BuildOpts::untraced() }).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Runs `seeds` (plus `MRNIC_SEED`) for `cycles` x `MRNIC_DIFF_SCALE` cycles each,
    /// compared every cycle; panics with the full mismatch report on a failure. The seeds run
    /// side by side, one thread each (each on its own simulation of the model), so that a
    /// test's long runs do not leave a core idle at the end of a test binary; the reports
    /// come back in the order of `seeds`.
    pub fn check(&self, dev: &VlFactory, label: &str, seeds: &[u64], cycles: u64, stim: StimOpts) -> Vec<RunReport> {
        let mut seeds = seeds.to_vec();
        seeds.extend(extra_seed());
        let run = |seed: u64| {
            let repro = format!("MRNIC_SEED={seed} cargo test -p mrnic-verif --test {} (preset {}, {label})", self.test, self.cfg.name);
            let opts = RunOpts::new(seed, cycles * diff_scale()).label(label).repro(repro).stim(stim.clone());
            run_differential(self.tb.as_ref(), &self.io, dev, opts)
        };
        let results: Vec<_> = std::thread::scope(|s| {
            let jobs: Vec<_> = seeds.iter().map(|&seed| s.spawn(move || run(seed))).collect();
            jobs.into_iter().map(|j| j.join().expect("a differential run's thread panicked")).collect()
        });
        results.into_iter().map(|r| r.unwrap_or_else(|f| panic!("{f}"))).collect()
    }

    /// Runs every mutant of the generated Verilog (only `MRNIC_MUTANT` if set) for seed
    /// `seed` and `cycles` cycles; returns how each was caught. The guardable mutants share
    /// one build, the [`mutant schema`](super::mutant::schema) ([`mutant_build`]), run once
    /// with no mutant selected (it must pass: the guards leave the design as it was) and once
    /// per mutant with `+mrnic_mutant=K`; the others are built alone. Panics if a pattern
    /// does not occur exactly once, if fewer than `min` mutants are run (without
    /// `MRNIC_MUTANT`), or if one is not caught.
    pub fn mutants(&self, mutants: Vec<Mutant>, min: usize, seed: u64, cycles: u64) -> Vec<Caught> {
        let only = std::env::var("MRNIC_MUTANT").ok();
        let mutants: Vec<_> = mutants.into_iter().filter(|m| only.as_deref().is_none_or(|o| m.name == o)).collect();
        assert!(only.is_some() || mutants.len() >= min, "{} mutants, fewer than {min}", mutants.len());
        assert!(!mutants.is_empty(), "no mutant called {only:?}");
        let block = &self.iface.block;
        let sch = schema(&self.verilog, &mutants).unwrap_or_else(|e| panic!("{e}"));
        let mut caught: Vec<Option<Caught>> = vec![None; mutants.len()];
        if !sch.guarded.is_empty() {
            let label = format!("{block}_mutant_schema");
            let model = Model::build(&label, &sch.source, &self.iface.ports, &mutant_build()).unwrap_or_else(|e| panic!("{e}"));
            let none = run_differential(self.tb.as_ref(), &self.io, &VlFactory::new(model.clone()), RunOpts::new(seed, cycles).label(format!("{label}_none")));
            match none {
                Err(f) => panic!("the mutant schema with no mutant selected differs from the model: a guard changed the design\n{f}"),
                Ok(r) => {
                    assert_eq!(r.cycles, cycles, "the schema's run with no mutant stopped early: {r:?}");
                    println!("mutant schema of {} mutants, none selected: {} cycles match", sch.guarded.len(), r.cycles);
                }
            }
            for &(i, k) in &sch.guarded {
                let opts = SimOpts { plusargs: vec![format!("+{SCHEMA_PLUSARG}={k}")], ..SimOpts::default() };
                let dev = VlFactory::with_opener(model.clone(), Box::new(move |m: &Model| m.sim_with(&opts))).without_waves();
                let m = &mutants[i];
                let r = run_differential(self.tb.as_ref(), &self.io, &dev, RunOpts::new(seed, cycles).label(format!("{block}_mutant_{}", m.name)));
                caught[i] = Some(outcome(m, r).unwrap_or_else(|e| panic!("{e}")));
            }
        }
        for (i, why) in &sch.alone {
            let m = &mutants[*i];
            println!("mutant {}: built alone: {why}", m.name);
            let r = check_mutants(&self.verilog, std::slice::from_ref(m), |m, bad| {
                let label = format!("{block}_mutant_{}", m.name);
                let dev = VlFactory::new(Model::build(&label, bad, &self.iface.ports, &mutant_build()).unwrap_or_else(|e| panic!("{e}"))).without_waves();
                run_differential(self.tb.as_ref(), &self.io, &dev, RunOpts::new(seed, cycles).label(label))
            });
            caught[*i] = Some(r.unwrap_or_else(|e| panic!("{e}")).remove(0));
        }
        let caught: Vec<Caught> = caught.into_iter().map(|c| c.expect("every mutant is guarded or alone")).collect();
        for c in &caught {
            println!("mutant {}: caught at cycle {}: {}", c.name, c.cycle, c.headline);
        }
        assert_eq!(caught.len(), mutants.len());
        caught
    }
}
