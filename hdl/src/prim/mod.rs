//! RTL primitives: small rust-hdl blocks that the mrnic blocks are built from.
//!
//! Each file holds one `LogicBlock` whose rustdoc header is its contract (purpose, ports,
//! latency, initiation interval, combinational paths, hazards, reset). Each is checked
//! against a plain Rust model on its *generated Verilog* under Verilator
//! (`verif/tests/prim_diff.rs`) and by `yosys_validate` (`hdl/tests/yosys_validate.rs`).
//!
//! - [`PrefixAnd`]: Kogge-Stone prefix-AND tree (log2 W levels).
//! - [`FirstZero`]: first-zero index of a thermometer (thermometer-to-binary, OR trees).
//! - [`RotateRight`]: rotate right by a signal amount (log2 W barrel stages).
//! - [`SkidBuffer`]: valid/ready skid buffer, 2 entries, full throughput, registered ready.
//! - [`SegSearch`]: pipelined circular first-one search in 16-bit segments (registered
//!   per-segment summaries; the wide vector is never searched in one cycle).
//! - [`BlockRam`]: block RAM with a registered read and forwarding of the write in flight.
//! - [`BlockRamReg`]: block RAM with a read latency of 2 (an output register with a clock
//!   enable), both writes in flight forwarded: a loop starts from a flip-flop.
//! - [`CrcFold`], [`Crc32Stream`]: CRC-32 of one D-bit beat as an XOR matrix, and a message's
//!   CRC register at one beat per cycle with a pipelined partial last beat (the ICRC).
//! - [`OnesSum`]: the Internet checksum's one's-complement sum at one beat per cycle, byte
//!   enables per beat (the IPv4 header and UDP checksums).
//! - [`ByteStrobes`]: one AXI4 beat's `wstrb` from a checked byte range (the DMA placement
//!   unit's partial first and last beats), proven with SymbiYosys (`verif/tests/formal.rs`).
//!
//! Tree widths are const generics; the constructors (`try_new`) refuse an illegal width
//! with a [`PrimError`] naming the parameter and the reason (`new`/`default` panic with it).

mod bram;
mod bram_reg;
mod crc;
mod first_zero;
mod ones_sum;
mod prefix_and;
mod rotate;
mod seg_search;
mod skid;
mod strobes;

pub use bram::BlockRam;
pub use bram_reg::BlockRamReg;
pub use crc::{crc_fold_model, Crc32Stream, CrcFold, CrcTailStage, CRC_MAX_D};
pub use first_zero::FirstZero;
pub use ones_sum::{ones_sum_model, OnesSum, ONES_SUM_MAX_D};
pub use prefix_and::PrefixAnd;
pub use rotate::RotateRight;
pub use seg_search::{SegPrefixOr, SegSearch};
pub use skid::SkidBuffer;
pub use strobes::{byte_strobes_model, ByteStrobes, STROBES_MAX_B};

use rust_hdl::prelude::*;

/// A primitive refused its parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrimError {
    /// A const-generic parameter is outside what the primitive supports.
    #[error("{prim}: parameter {field} = {value} is not supported: {reason}")]
    Parameter { prim: &'static str, field: &'static str, value: usize, reason: String },
}

/// Widest tree the primitives build (8 levels / stages).
pub const MAX_TREE_WIDTH: usize = 256;

/// The one parameter check the primitives share: `value` must be a power of two in
/// `lo..=hi`; `why` says what the bound stands for (it ends the error's reason).
pub(crate) fn check_pow2(prim: &'static str, field: &'static str, value: usize, lo: usize, hi: usize, why: &str) -> Result<(), PrimError> {
    if !(lo..=hi).contains(&value) || !value.is_power_of_two() {
        let why = if why.is_empty() { String::new() } else { format!(" ({why})") };
        return Err(PrimError::Parameter { prim, field, value, reason: format!("must be a power of two in {lo}..={hi}{why}") });
    }
    Ok(())
}

/// Tree width check shared by the trees: W must be a power of two in 2..=256.
pub(crate) fn check_tree_width(prim: &'static str, w: usize) -> Result<(), PrimError> {
    check_pow2(prim, "W", w, 2, MAX_TREE_WIDTH, "")
}

/// A W-bit constant with bit i set where `f(i)`.
pub(crate) fn mask<const W: usize>(f: impl Fn(usize) -> bool) -> Constant<Bits<W>> {
    let mut b = Bits::<W>::default();
    for i in 0..W {
        if f(i) {
            b = b.replace_bit(i, true);
        }
    }
    Constant::new(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_widths_outside_powers_of_two_up_to_256_are_refused_with_the_reason() {
        for w in [0, 1, 3, 48, 255, 512] {
            let e = check_tree_width("PrefixAnd", w).unwrap_err().to_string();
            assert_eq!(e, format!("PrefixAnd: parameter W = {w} is not supported: must be a power of two in 2..=256"));
        }
        for w in [2, 4, 8, 16, 32, 64, 128, 256] {
            check_tree_width("PrefixAnd", w).unwrap();
        }
    }
}
