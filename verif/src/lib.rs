//! mrnic verification: the Verilator bridge ([`vl`]), the generic differential kit ([`kit`]),
//! the blocks on it ([`blocks`]) and the `mrnic verify` suite ([`verify`]).

pub mod blocks;
pub mod kit;
pub mod verify;
pub mod vl;
