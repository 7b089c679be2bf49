//! mrnic-sim: a deterministic discrete-event network simulator for comparing
//! RDMA transports on datacenter fabrics.
//!
//! * [`engine`]: event loop, switches (ECMP, ECN, tail drop, loss, failures), host NICs;
//! * [`topology`]: two-tier leaf-spine and three-tier k-ary fat-tree, with P planes;
//! * [`transport`]: the [`transport::Endpoint`] trait every transport implements,
//!   and [`transport::EndpointFactory`] to plug one in;
//! * [`mrnic`]: the mrnic transport: the golden model's `Qp` behind [`transport::Endpoint`];
//! * [`baseline`]: RoCEv2-style go-back-N and IRN-style selective repeat, both with DCQCN;
//! * [`traffic`]: long flows, incast, all-to-all, ring all-reduce;
//! * [`scenario`]: TOML scenario files with sweeps, and [`scenario::run_scenario`];
//! * [`output`]: CSV, markdown and SVG writers; [`cli`]: `mrnic sim`;
//! * [`seeds`]: `--seeds LIST` (a scenario over several seeds: mean and spread) and
//!   `mrnic compare` (two result trees side by side, regressions flagged);
//! * [`shard`]: `--shard K/N` (a deterministic share of a sweep's points) and merging shards;
//! * [`error`]: [`SimError`], every refusal naming the offending field or path.
//!
//! Every run is a pure function of its configuration and seed.

pub mod baseline;
pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod mrnic;
pub mod output;
pub mod rng;
pub mod scenario;
pub mod seeds;
pub mod shard;
pub mod topology;
pub mod traffic;
pub mod transport;

pub use engine::{simulate, Progress, RunConfig, RunResult};
pub use error::SimError;
pub use scenario::{run_scenario, Results, Scenario, TransportKind};
pub use transport::{Endpoint, EndpointFactory, Transport};
