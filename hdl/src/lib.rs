//! mrnic hardware blocks, described in rust-hdl.
//!
//! Every block's generated Verilog is the thing under test: see `mrnic-verif`.

pub use mrnic_model;
pub use rust_hdl;

pub mod ackgen;
pub mod ackjoin;
pub mod cmpl;
pub mod conn_chk;
pub mod fbuf;
pub mod parser;
pub mod path;
pub mod place_chk;
pub mod placement;
pub mod ports;
pub mod prim;
pub mod realign;
pub mod rtx;
pub mod sack;
pub mod tops;
pub mod verilog;
