//! Reading the tools' results (nextpnr's JSON report and log, yosys's netlist) and saying
//! what they mean: the median Fmax over placement seeds, whether the target was met, and the
//! printed table.

use crate::boards::Family;
use crate::error::FpgaError;
use crate::flow::Summary;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// nextpnr report `utilization`: {"TRELLIS_COMB": {"used": n, "available": m}, ...} as
/// cell type → (used, available).
pub fn parse_utilization(report: &serde_json::Value) -> BTreeMap<String, (u64, u64)> {
    let mut m = BTreeMap::new();
    if let Some(u) = report.get("utilization").and_then(|u| u.as_object()) {
        for (k, v) in u {
            let used = v.get("used").and_then(|x| x.as_u64()).unwrap_or(0);
            let avail = v.get("available").and_then(|x| x.as_u64()).unwrap_or(0);
            m.insert(k.clone(), (used, avail));
        }
    }
    m
}

/// nextpnr report `fmax`: {"<clock net>": {"achieved": MHz, "constraint": MHz}}. The
/// slowest clock (there is one).
pub fn parse_fmax(report: &serde_json::Value) -> Option<f64> {
    report
        .get("fmax")?
        .as_object()?
        .values()
        .filter_map(|v| v.get("achieved").and_then(|a| a.as_f64()))
        .reduce(f64::min)
}

/// Flip-flops in yosys's netlist (`top.json`): TRELLIS_FF (ECP5) or SB_DFF* (iCE40) cells.
pub fn count_ffs(netlist: &Path, family: Family) -> Result<u64, FpgaError> {
    let text = fs::read_to_string(netlist).map_err(FpgaError::io(netlist))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| FpgaError::Output {
        path: netlist.to_path_buf(),
        reason: format!("not a yosys JSON netlist: {e}"),
    })?;
    let is_ff = |t: &str| match family {
        Family::Ecp5 => t == "TRELLIS_FF",
        Family::Ice40 => t.starts_with("SB_DFF"),
    };
    let modules = v.get("modules").and_then(|m| m.as_object());
    Ok(modules
        .into_iter()
        .flat_map(|m| m.values())
        .filter_map(|m| m.get("cells").and_then(|c| c.as_object()))
        .flat_map(|cells| cells.values())
        .filter(|c| is_ff(c.get("type").and_then(|t| t.as_str()).unwrap_or("")))
        .count() as u64)
}

/// The last "Critical path report for clock" section of a nextpnr log (the final, routed
/// one), without the "Info:" prefixes, and the logic / routing ns split.
pub fn parse_critical_path(log: &str) -> (Vec<String>, f64, f64) {
    let lines: Vec<&str> = log.lines().collect();
    let Some(start) = lines.iter().rposition(|l| l.contains("Critical path report for clock"))
    else {
        return (vec![], 0.0, 0.0);
    };
    let mut out = vec![];
    let (mut logic, mut routing) = (0.0, 0.0);
    for l in &lines[start..] {
        let t = l.strip_prefix("Info:").unwrap_or(l).trim_end();
        if t.trim().is_empty() {
            if out.len() > 1 {
                break;
            }
            continue;
        }
        out.push(t.trim_start().to_string());
        // "8.2 ns logic, 4.1 ns routing"
        if t.contains("ns logic") && t.contains("ns routing") {
            let nums: Vec<f64> = t
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter_map(|s| s.parse().ok())
                .collect();
            if nums.len() >= 2 {
                logic = nums[0];
                routing = nums[1];
            }
            break;
        }
    }
    (out, logic, routing)
}

/// The timing lines of a critical path (no "Sink"/"Defined in" detail).
pub fn timing_lines(path: &[String]) -> Vec<String> {
    path.iter()
        .filter(|l| {
            let w = l.split_whitespace().next().unwrap_or("");
            matches!(w, "clk-to-q" | "routing" | "logic" | "setup") || l.contains("ns logic")
        })
        .cloned()
        .collect()
}

/// The first `head` and last `tail` lines, with a count of what was left out.
pub fn condense(lines: &[String], head: usize, tail: usize) -> Vec<String> {
    if lines.len() <= head + tail + 1 {
        return lines.to_vec();
    }
    let mut v: Vec<String> = lines[..head].to_vec();
    v.push(format!("... {} more (full path in critical_path.txt) ...", lines.len() - head - tail));
    v.extend_from_slice(&lines[lines.len() - tail..]);
    v
}

/// The median (the mean of the two middle values for an even count); `None` when empty.
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Index (into `xs`) of the run whose value is the median, or the lower of the two middle
/// ones for an even count: the run whose critical path and bitstream the summary shows.
pub fn median_index(xs: &[f64]) -> Option<usize> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    idx.get((xs.len().max(1) - 1) / 2).copied()
}

/// MHz as nextpnr reports it (two decimals), without trailing zeros: 52.1, 100, 49.83.
pub fn fmt_mhz(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Whether `fmax_mhz` meets `target_mhz`, and the sentence that says so. The comparison is
/// on the printed values (two decimals), so the sentence never contradicts itself. `seeds`
/// lists (seed, Fmax) of every run: with more than one, `fmax_mhz` is their median and the
/// sentence says so.
pub fn timing_verdict(fmax_mhz: f64, target_mhz: f64, seeds: &[(u32, f64)]) -> (bool, String) {
    let round = |x: f64| (x * 100.0).round();
    let met = round(fmax_mhz) >= round(target_mhz);
    let (verdict, cmp) = if met { ("MET", ">=") } else { ("NOT MET", "<") };
    let fmax = fmt_mhz(fmax_mhz);
    let target = fmt_mhz(target_mhz);
    let text = match seeds {
        [] => format!("timing {verdict}: {fmax} MHz {cmp} {target} MHz target"),
        [(seed, _)] => format!("timing {verdict}: {fmax} MHz {cmp} {target} MHz target (seed {seed})"),
        _ => format!(
            "timing {verdict}: median {fmax} MHz {cmp} {target} MHz target (seeds {}: {} MHz)",
            seeds.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", "),
            seeds.iter().map(|s| fmt_mhz(s.1)).collect::<Vec<_>>().join(", "),
        ),
    };
    (met, text)
}

/// A Markdown table of summaries, one row each.
pub fn table(summaries: &[Summary]) -> String {
    let mut s = String::from(
        "| block | board | device | preset | parameters | LUTs | FFs | BRAMs | DSPs | Fmax MHz | target MHz | timing | Mpps | time s |\n\
         |---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
    );
    for x in summaries {
        let params: Vec<String> = x.parameters.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let fmax = if x.runs.len() > 1 {
            format!("{} (median of {} seeds)", fmt_mhz(x.fmax_mhz), x.runs.len())
        } else {
            fmt_mhz(x.fmax_mhz)
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.0} |\n",
            x.block,
            x.board,
            x.device,
            x.preset,
            params.join(" "),
            x.luts,
            x.ffs,
            x.brams,
            x.dsps,
            fmax,
            fmt_mhz(x.target_mhz),
            if x.timing_met { "MET" } else { "NOT MET" },
            x.mpps,
            x.elapsed_s
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts_and_of_nothing() {
        assert_eq!(median(&[52.7, 49.8, 50.1]), Some(50.1));
        assert_eq!(median(&[3.0, 1.0, 4.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
        assert_eq!(median_index(&[52.7, 49.8, 50.1]), Some(2));
        assert_eq!(median_index(&[3.0, 1.0, 4.0, 2.0]), Some(3), "lower middle of an even count");
        assert_eq!(median_index(&[]), None);
    }

    #[test]
    fn the_verdict_says_met_or_not_met_with_the_figures() {
        let (met, s) = timing_verdict(52.1, 50.0, &[]);
        assert!(met);
        assert_eq!(s, "timing MET: 52.1 MHz >= 50 MHz target");
        let (met, s) = timing_verdict(49.83, 100.0, &[(1, 49.83)]);
        assert!(!met);
        assert_eq!(s, "timing NOT MET: 49.83 MHz < 100 MHz target (seed 1)");
        let (met, s) = timing_verdict(50.1, 100.0, &[(1, 52.7), (2, 49.8), (3, 50.1)]);
        assert!(!met);
        assert_eq!(
            s,
            "timing NOT MET: median 50.1 MHz < 100 MHz target (seeds 1, 2, 3: 52.7, 49.8, 50.1 MHz)"
        );
        // Exactly at the target is met; a hair below that prints as the target is met too
        // (the comparison is on the printed figures), one printed step below is not.
        assert!(timing_verdict(30.0, 30.0, &[]).0);
        assert!(timing_verdict(29.999, 30.0, &[]).0);
        let (met, s) = timing_verdict(29.99, 30.0, &[]);
        assert!(!met && s == "timing NOT MET: 29.99 MHz < 30 MHz target", "{s}");
    }

    #[test]
    fn critical_path_is_the_last_report_with_its_split() {
        let log = "Info: Critical path report for clock 'clk' (posedge -> posedge):\n\
                   Info: curr total\nInfo: old\n\n\
                   Info: Critical path report for clock 'clk' (posedge -> posedge):\n\
                   Info: type curr  total name\n\
                   Info: clk-to-q 0.52 0.52 Source a\n\
                   Info: routing 1.50 2.02 Net b\n\
                   Info: 5.4 ns logic, 14.7 ns routing\n\nInfo: later\n";
        let (lines, logic, routing) = parse_critical_path(log);
        assert_eq!((logic, routing), (5.4, 14.7));
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert!(!lines.iter().any(|l| l == "old"));
        assert_eq!(timing_lines(&lines).len(), 3);
    }
}
