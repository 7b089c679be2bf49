//! Statistics over a run's measurements: Jain's fairness index and the convergence time
//! (how many bins until per-flow fairness and queue depth settle for good).

/// Jain's fairness index of `x` (1 = perfectly fair; 0 for an empty or all-zero input).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        0.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

/// Bins from `from` until the first bin `b` in `from..to` after which every bin
/// (up to `to`, exclusive) has per-flow Jain >= 0.9 and queue <= `qlimit`.
/// `None` if the window is shorter than 3 bins or never settles.
pub fn convergence_bins(flow_bins: &[Vec<u64>], qbins: &[u64], from: usize, to: usize, qlimit: u64) -> Option<usize> {
    let to = to.min(qbins.len());
    if flow_bins.len() < 2 || to < from + 3 {
        return None;
    }
    let ok = |b: usize| {
        let x: Vec<f64> = flow_bins.iter().map(|f| f[b] as f64).collect();
        jain(&x) >= 0.9 && qbins[b] <= qlimit
    };
    let mut first = None;
    for b in (from..to).rev() {
        if ok(b) {
            first = Some(b);
        } else {
            break;
        }
    }
    first.map(|b| b - from)
}
