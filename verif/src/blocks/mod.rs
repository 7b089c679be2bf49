//! The registry of blocks the kit verifies: for each, how to generate its Verilog for a
//! configuration, its testbench (model cycle shell + stimulus), its mutants, its directed
//! profiles, and its run sizes (CI and full). `mrnic verify` and the tests read it; adding a
//! block is adding a row here plus its `blocks/<name>/` module.

pub mod ackgen;
pub mod conn_chk;
pub mod ackjoin;
pub mod cmpl;
pub mod fbuf;
pub mod parser;
pub mod path;
pub mod place_chk;
pub mod placement;
pub mod realign;
pub mod rtx;
pub mod sack;

use crate::kit::{Interface, KitError, Mutant, Testbench};
use mrnic_hdl::tops::Generated;
use mrnic_model::Config;

/// How long a regression is: seeds of the random mix, cycles per seed, and the power-up
/// runs (x-unique model, random initial state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub seeds: u64,
    pub cycles: u64,
    pub directed_cycles: u64,
    pub power_up_seeds: u64,
    pub power_up_cycles: u64,
}

/// One verifiable block.
pub struct BlockSpec {
    /// Its name, also its name in `mrnic_hdl::tops::block`.
    pub name: &'static str,
    pub testbench: fn(&Config) -> Result<Box<dyn Testbench>, KitError>,
    /// Deliberate bugs in the generated Verilog that the differential test must catch.
    pub mutants: fn() -> Vec<Mutant>,
    /// Directed stimulus profiles (each run once per regression).
    pub directed: &'static [&'static str],
    /// Sizes of `mrnic verify` by default (the CI size) and with `--all` (full size).
    pub ci: Sizes,
    pub full: Sizes,
}

impl BlockSpec {
    /// The generated top for `cfg`.
    pub fn generate(&self, cfg: &Config) -> Result<Generated, KitError> {
        mrnic_hdl::tops::block(cfg, self.name).map_err(|e| KitError::Config(e.to_string()))
    }
    /// The generated top and its interface for `cfg`.
    pub fn generated(&self, cfg: &Config) -> Result<(Generated, Interface), KitError> {
        let g = self.generate(cfg)?;
        let iface = Interface::from_generated(self.name, &g)?;
        Ok((g, iface))
    }
}

fn sack_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(sack::SackBench::new(cfg)?))
}

fn parser_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(parser::ParserBench::new(cfg)?))
}

fn rtx_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(rtx::RtxBench::new(cfg)?))
}

fn path_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(path::PathBench::new(cfg)?))
}

fn place_chk_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(place_chk::ChkBench::new(cfg)?))
}

fn fbuf_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(fbuf::FbufBench::new(cfg)?))
}

fn realign_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(realign::RealignBench::new(cfg)?))
}

fn ackgen_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(ackgen::AckBench::new(cfg)?))
}

fn conn_chk_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(conn_chk::ConnBench::new(cfg)?))
}

fn ackjoin_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(ackjoin::JoinBench::new(cfg)?))
}

fn cmpl_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(cmpl::CmplBench::new(cfg)?))
}

fn placement_testbench(cfg: &Config) -> Result<Box<dyn Testbench>, KitError> {
    Ok(Box::new(placement::PlaceBench::new(cfg)?))
}

/// Every block, in the order `--all` runs them.
pub static BLOCKS: &[BlockSpec] = &[BlockSpec {
    name: "sack",
    testbench: sack_testbench,
    mutants: sack::mutants,
    directed: sack::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 200_000, directed_cycles: 50_000, power_up_seeds: 2, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 2_000_000, directed_cycles: 500_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "parser",
    testbench: parser_testbench,
    mutants: parser::mutants,
    directed: parser::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 1_000_000, directed_cycles: 200_000, power_up_seeds: 1, power_up_cycles: 100_000 },
    full: Sizes { seeds: 8, cycles: 10_000_000, directed_cycles: 2_000_000, power_up_seeds: 4, power_up_cycles: 1_000_000 },
}, BlockSpec {
    name: "rtx",
    testbench: rtx_testbench,
    mutants: rtx::mutants,
    directed: rtx::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 300_000, directed_cycles: 50_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 2_000_000, directed_cycles: 500_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "placement",
    testbench: placement_testbench,
    mutants: placement::mutants,
    directed: placement::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 100_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "path",
    testbench: path_testbench,
    mutants: path::mutants,
    directed: path::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 300_000, directed_cycles: 50_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 2_000_000, directed_cycles: 500_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "place_chk",
    testbench: place_chk_testbench,
    mutants: place_chk::mutants,
    directed: place_chk::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 100_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "fbuf",
    testbench: fbuf_testbench,
    mutants: fbuf::mutants,
    directed: fbuf::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 200_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "realign",
    testbench: realign_testbench,
    mutants: realign::mutants,
    directed: realign::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 200_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "ackgen",
    testbench: ackgen_testbench,
    mutants: ackgen::mutants,
    directed: ackgen::stimulus::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 200_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "conn_chk",
    testbench: conn_chk_testbench,
    mutants: conn_chk::mutants,
    directed: conn_chk::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 100_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "ackjoin",
    testbench: ackjoin_testbench,
    mutants: ackjoin::mutants,
    directed: ackjoin::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 100_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}, BlockSpec {
    name: "cmpl",
    testbench: cmpl_testbench,
    mutants: cmpl::mutants,
    directed: cmpl::PROFILES,
    ci: Sizes { seeds: 2, cycles: 500_000, directed_cycles: 100_000, power_up_seeds: 1, power_up_cycles: 50_000 },
    full: Sizes { seeds: 8, cycles: 5_000_000, directed_cycles: 1_000_000, power_up_seeds: 4, power_up_cycles: 500_000 },
}];

/// The block called `name`, or an error naming the known blocks.
pub fn block(name: &str) -> Result<&'static BlockSpec, KitError> {
    BLOCKS.iter().find(|b| b.name == name).ok_or_else(|| KitError::Config(format!("unknown block {name:?} (known: {})", BLOCKS.iter().map(|b| b.name).collect::<Vec<_>>().join(", "))))
}
