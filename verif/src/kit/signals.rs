//! Named signal values. A [`Layout`] is an ordered list of named signals with their widths (the
//! inputs or the outputs of a block, as its manifest lists them); [`Values`] holds one cycle's
//! values of a layout in 64-bit words (a 256-bit port takes four), masked to each signal's
//! width so that equality of two `Values` is equality of the signals. Models, stimuli and
//! devices exchange `Values`, and a mismatch is reported by signal name.

use std::fmt::Write as _;
use std::sync::Arc;

/// One named signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    pub name: String,
    /// Width in bits (>= 1).
    pub width: usize,
}

/// An ordered set of signals and where each lives in a [`Values`].
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    sigs: Vec<Sig>,
    off: Vec<usize>,
    words: usize,
}

impl Layout {
    pub fn new(sigs: Vec<Sig>) -> Arc<Layout> {
        let mut off = Vec::with_capacity(sigs.len());
        let mut words = 0;
        for s in &sigs {
            off.push(words);
            words += s.width.div_ceil(64).max(1);
        }
        Arc::new(Layout { sigs, off, words })
    }
    pub fn sigs(&self) -> &[Sig] {
        &self.sigs
    }
    pub fn len(&self) -> usize {
        self.sigs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.sigs.is_empty()
    }
    /// Index of the signal called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.sigs.iter().position(|s| s.name == name)
    }
    pub fn name(&self, i: usize) -> &str {
        &self.sigs[i].name
    }
    pub fn width(&self, i: usize) -> usize {
        self.sigs[i].width
    }
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        self.off[i]..self.off[i] + self.sigs[i].width.div_ceil(64).max(1)
    }
}

/// One cycle's values of a [`Layout`] (all zero when made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    layout: Arc<Layout>,
    w: Vec<u64>,
}

fn top_mask(width: usize) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

impl Values {
    pub fn new(layout: &Arc<Layout>) -> Values {
        Values { layout: layout.clone(), w: vec![0; layout.words] }
    }
    pub fn layout(&self) -> &Arc<Layout> {
        &self.layout
    }
    /// The low 64 bits of signal `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        self.w[self.layout.off[i]]
    }
    #[inline]
    pub fn bit(&self, i: usize) -> bool {
        self.get(i) & 1 == 1
    }
    /// Sets signal `i` (at most 64 bits wide; wider signals get `v` in their low word and
    /// zeros above), masked to its width.
    #[inline]
    pub fn set(&mut self, i: usize, v: u64) {
        let r = self.layout.span(i);
        let width = self.layout.sigs[i].width;
        if r.len() == 1 {
            self.w[r.start] = v & top_mask(width);
        } else {
            self.w[r.clone()].fill(0);
            self.w[r.start] = v;
        }
    }
    /// All words of signal `i`, least significant first.
    #[inline]
    pub fn wide(&self, i: usize) -> &[u64] {
        &self.w[self.layout.span(i)]
    }
    /// Sets every word of signal `i` (missing words are zero), masked to its width.
    pub fn set_wide(&mut self, i: usize, words: &[u64]) {
        let r = self.layout.span(i);
        let n = r.len();
        let width = self.layout.sigs[i].width;
        let dst = &mut self.w[r];
        for (k, d) in dst.iter_mut().enumerate() {
            *d = words.get(k).copied().unwrap_or(0);
        }
        dst[n - 1] &= top_mask(width);
    }
    /// Sets signal `i` from 32-bit words (Verilator's wide-port layout).
    pub fn set_u32_words(&mut self, i: usize, words: &[u32]) {
        let r = self.layout.span(i);
        let width = self.layout.sigs[i].width;
        let n = r.len();
        let dst = &mut self.w[r];
        for (k, d) in dst.iter_mut().enumerate() {
            let lo = words.get(2 * k).copied().unwrap_or(0) as u64;
            let hi = words.get(2 * k + 1).copied().unwrap_or(0) as u64;
            *d = lo | hi << 32;
        }
        dst[n - 1] &= top_mask(width);
    }
    /// Signal `i` as 32-bit words (Verilator's wide-port layout), `out.len()` of them.
    pub fn u32_words_into(&self, i: usize, out: &mut [u32]) {
        let src = self.wide(i);
        for (k, o) in out.iter_mut().enumerate() {
            let w = src.get(k / 2).copied().unwrap_or(0);
            *o = if k % 2 == 0 { w as u32 } else { (w >> 32) as u32 };
        }
    }
    /// Whether signal `i` has the same value here and in `other` (same layout).
    #[inline]
    pub fn same(&self, other: &Values, i: usize) -> bool {
        let r = self.layout.span(i);
        self.w[r.clone()] == other.w[r]
    }
    /// Signal `i` for a report: decimal up to 32 bits, hex above.
    pub fn show(&self, i: usize) -> String {
        let width = self.layout.sigs[i].width;
        let words = self.wide(i);
        if width <= 32 {
            return words[0].to_string();
        }
        let mut s = String::from("0x");
        let digits = width.div_ceil(4);
        for d in (0..digits).rev() {
            let w = words[d / 16];
            let nib = (w >> ((d % 16) * 4)) & 0xf;
            let _ = write!(s, "{nib:x}");
        }
        s
    }
    /// `name=value` for every signal, in layout order.
    pub fn named(&self) -> Vec<(String, String)> {
        (0..self.layout.len()).map(|i| (self.layout.name(i).to_string(), self.show(i))).collect()
    }
    /// All words (for hashing or storing a beat).
    pub fn words(&self) -> &[u64] {
        &self.w
    }
    pub fn clear(&mut self) {
        self.w.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Arc<Layout> {
        Layout::new(vec![
            Sig { name: "a".into(), width: 1 },
            Sig { name: "b".into(), width: 24 },
            Sig { name: "c".into(), width: 100 },
        ])
    }

    #[test]
    fn values_are_masked_to_the_signal_width_so_equality_is_signal_equality() {
        let l = layout();
        let mut v = Values::new(&l);
        v.set(0, 3);
        v.set(1, 0xffff_ffff);
        assert_eq!((v.get(0), v.get(1)), (1, 0xff_ffff));
        v.set_wide(2, &[u64::MAX, u64::MAX]);
        assert_eq!(v.wide(2), &[u64::MAX, (1 << 36) - 1]);
        let mut w = Values::new(&l);
        w.set_u32_words(2, &[u32::MAX; 4]);
        assert!(w.same(&v, 2) && !w.same(&v, 1));
    }

    #[test]
    fn wide_values_round_trip_through_u32_words_and_print_in_hex() {
        let l = layout();
        let mut v = Values::new(&l);
        v.set_u32_words(2, &[0x1, 0x2, 0x3, 0xf]);
        let mut out = [0u32; 4];
        v.u32_words_into(2, &mut out);
        assert_eq!(out, [1, 2, 3, 0xf]);
        assert_eq!(v.show(2), "0xf000000030000000200000001");
        v.set(1, 77);
        assert_eq!(v.show(1), "77");
        assert_eq!(l.index("c"), Some(2));
        assert_eq!(l.index("zz"), None);
    }
}
