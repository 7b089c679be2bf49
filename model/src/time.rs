//! Hardware time: the free-running 32-bit time counter every block reads.
//!
//! The hardware has one time counter, `now`, 32 bits wide, in units of **1 ns**. It is
//! advanced by `transport.cycle_ns` (1..=255; 10 at 100 MHz, 33 at 30 MHz) on every clock
//! cycle, so it only takes multiples of `cycle_ns` (mod 2^32), and it wraps every
//! 2^32 ns (about 4.29 s). The model takes time in exactly this unit ([`HwTime`]); a
//! driver with a clock of its own (the loopback network, the simulator) converts with
//! [`HwClock`].
//!
//! Wrap is handled by serial arithmetic (RFC 1982 style): every duration the hardware
//! stores or compares is below 2^31 ns ([`MAX_SPAN`], the same bound as the 32-bit
//! timestamp echo and `MAX_TIME_NS`), so `a.after_eq(b)` is `(a - b) mod 2^32 < 2^31`.
//! A deadline is an [`HwTime`]; "no deadline" is a separate valid bit
//! (`Option<HwTime>` in the model). The DATA timestamp on the wire is `now` itself
//! (protocol §5: 1 ns, mod 2^32).

use serde::{Deserialize, Serialize};

/// Width of the hardware time counter, bits.
pub const TIME_BITS: u32 = 32;
/// Longest span the serial comparison orders: durations must be below it.
pub const MAX_SPAN: u32 = 1 << 31;

/// A value of the hardware time counter (ns mod 2^32).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HwTime(pub u32);

impl HwTime {
    /// `self + d` (mod 2^32); `d` must be below [`MAX_SPAN`] for comparisons to hold.
    #[inline]
    pub fn add(self, d: u32) -> HwTime {
        HwTime(self.0.wrapping_add(d))
    }
    /// `self + d` for a 64-bit duration already bounded by `MAX_TIME_NS` (< 2^31).
    #[inline]
    pub fn add_ns(self, d: u64) -> HwTime {
        debug_assert!(d < u64::from(MAX_SPAN), "duration {d} ns is not below 2^31");
        HwTime(self.0.wrapping_add(d as u32))
    }
    /// ns from `earlier` to `self` (mod 2^32): the elapsed time when `self` is at or
    /// after `earlier`.
    #[inline]
    pub fn since(self, earlier: HwTime) -> u32 {
        self.0.wrapping_sub(earlier.0)
    }
    /// `self` is at or after `other` (serial arithmetic).
    #[inline]
    pub fn after_eq(self, other: HwTime) -> bool {
        self.since(other) < MAX_SPAN
    }
    /// `self` is strictly after `other`.
    #[inline]
    pub fn after(self, other: HwTime) -> bool {
        self != other && self.after_eq(other)
    }
    /// The earlier of two times (serial arithmetic).
    #[inline]
    pub fn min(self, other: HwTime) -> HwTime {
        if self.after_eq(other) {
            other
        } else {
            self
        }
    }
    /// The later of two times (serial arithmetic).
    #[inline]
    pub fn max(self, other: HwTime) -> HwTime {
        if self.after_eq(other) {
            self
        } else {
            other
        }
    }
}

/// The earlier of two optional deadlines (serial arithmetic; `None` = no deadline).
pub fn earliest(a: Option<HwTime>, b: Option<HwTime>) -> Option<HwTime> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A driver's conversion from its own ns clock (starting at 0, 64 bits) to the
/// hardware counter: the counter reads `offset` at ns 0 and advances `cycle_ns` every
/// `cycle_ns` ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HwClock {
    pub cycle_ns: u32,
    pub offset: u32,
}

impl HwClock {
    /// A clock with period `cycle_ns` (≥ 1) whose counter reads `offset` at ns 0.
    pub fn new(cycle_ns: u32, offset: u32) -> HwClock {
        assert!(cycle_ns >= 1, "cycle_ns must be at least 1");
        HwClock { cycle_ns, offset }
    }
    /// The counter at driver time `ns`: the value of the last clock edge at or before it.
    pub fn at(&self, ns: u64) -> HwTime {
        let c = u64::from(self.cycle_ns);
        HwTime(((ns / c * c) as u32).wrapping_add(self.offset))
    }
    /// Driver ns from `now_ns` to the first clock edge at which the counter is at or
    /// after `deadline` (0 when it already is).
    pub fn ns_until(&self, now_ns: u64, deadline: HwTime) -> u64 {
        let now = self.at(now_ns);
        if now.after_eq(deadline) {
            return 0;
        }
        let c = u64::from(self.cycle_ns);
        let edge = now_ns / c * c; // driver ns of the edge where the counter read `now`
        let d = u64::from(deadline.since(now)); // < 2^31
        let edges = d.div_ceil(c);
        edge + edges * c - now_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_comparison_orders_times_across_the_wrap() {
        let a = HwTime(u32::MAX - 5);
        let b = a.add(10); // wrapped to 4
        assert_eq!(b, HwTime(4));
        assert!(b.after(a) && b.after_eq(a) && !a.after_eq(b));
        assert_eq!(b.since(a), 10);
        assert_eq!(a.min(b), a);
        assert_eq!(a.max(b), b);
        assert!(a.after_eq(a) && !a.after(a));
        assert!(HwTime(MAX_SPAN - 1).after(HwTime(0)) && !HwTime(MAX_SPAN).after(HwTime(0)));
        assert_eq!(earliest(Some(b), Some(a)), Some(a));
        assert_eq!(earliest(None, Some(a)), Some(a));
        assert_eq!(earliest(None, None), None);
    }

    #[test]
    fn the_clock_only_shows_clock_edges_and_wraps_from_its_offset() {
        let c = HwClock::new(10, u32::MAX - 14);
        assert_eq!(c.at(0), HwTime(u32::MAX - 14));
        assert_eq!(c.at(9), HwTime(u32::MAX - 14), "between edges the counter holds");
        assert_eq!(c.at(10), HwTime(u32::MAX - 4));
        assert_eq!(c.at(20), HwTime(5), "wrapped");
        assert!(c.at(20).after(c.at(10)));
    }

    #[test]
    fn ns_until_reaches_the_first_edge_at_or_after_the_deadline() {
        let c = HwClock::new(10, u32::MAX - 14);
        // now_ns = 13: counter reads MAX-4 (edge at 10).
        assert_eq!(c.ns_until(13, c.at(13)), 0);
        assert_eq!(c.ns_until(13, c.at(13).add(1)), 7, "next edge at 20");
        assert_eq!(c.ns_until(13, c.at(13).add(10)), 7);
        assert_eq!(c.ns_until(13, c.at(13).add(11)), 17, "edge at 30");
        assert_eq!(c.ns_until(13, c.at(13).add(u32::MAX)), 0, "a deadline one ns in the past");
        for ns in [0u64, 5, 13, 99, 12_345] {
            for d in [1u32, 9, 10, 11, 1000] {
                let dl = c.at(ns).add(d);
                let w = c.ns_until(ns, dl);
                assert!(c.at(ns + w).after_eq(dl), "at the returned time the deadline has passed");
                assert!(w == 0 || !c.at(ns + w - 1).after_eq(dl), "and not one ns earlier");
            }
        }
    }
}
