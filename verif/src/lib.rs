
pub mod sack;
pub mod vl;
