//! Coverage: from the `.dat` files of [`Sim::write_coverage`](super::Sim::write_coverage) (a model
//! built with `BuildOpts::coverage`) to a report. `verilator_coverage` merges the files
//! (`--write`), annotates the source (`--annotate DIR --annotate-min 1`) and writes lcov
//! (`--write-info`); the merged points are then read into a table: line coverage (Verilator's
//! `line` and `branch` points, each spread over its source line range; a line is covered when
//! one point on it was reached) and toggle coverage (`toggle` points: one per bit and direction,
//! `q[3]:0->1`), both summed over instances, with every uncovered line and toggle named by
//! `file:line` and its source text. The bridge verilates a single file (`top.v` in the cache
//! entry), so every point's file name is rewritten to the Verilog path given to [`report`].
//!
//! **Counters.** A second toggle figure leaves out the event counters: the registers whose
//! `q` drives a `stat_*` output (`stat_x = r$q;` in rust-hdl's Verilog: the project names
//! counters `stat_*`), with their `$d`/`$q` nets, the flip-flop module's `d`/`q` and the
//! `stat_*` output ([`counter_lines`]). Bit k of a 32-bit counter toggles only after 2^k
//! events, so a simulation of 10^6 cycles leaves its upper bits untoggled whatever the
//! stimulus; what a counter does (+1 per event, wrapping) is checked every cycle by each
//! block's differential test, which compares the `stat_*` outputs with the model's. The
//! kit's toggle goal applies to this second figure; the first (every point) is reported
//! beside it, and the counters' uncovered points are listed as such.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::tool::verilator;
use super::{io_err, BridgeError};

/// What a coverage gap is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UncoveredKind {
    /// A source line no line or branch point on it reached.
    Line,
    /// One bit of a signal that never toggled in one direction.
    Toggle,
}

/// One uncovered line or toggle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uncovered {
    pub kind: UncoveredKind,
    /// The Verilog file (the path given to [`report`]).
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// For toggles: the signal bit and direction (`q[3]:0->1`); for lines: the point's kind
    /// (`block`, `if`, `else`, ...).
    pub what: String,
    /// The source text of that line (trimmed).
    pub source: String,
}

/// A coverage report over one Verilog file.
#[derive(Clone, Debug)]
pub struct CoverageReport {
    /// The Verilog file the figures are about.
    pub verilog: PathBuf,
    /// Lines with at least one line/branch point, and how many of them were reached.
    pub lines_total: usize,
    pub lines_hit: usize,
    /// Toggle points (bit × direction), and how many toggled.
    pub toggles_total: usize,
    pub toggles_hit: usize,
    /// `100 * lines_hit / lines_total` (100 when there is nothing to cover).
    pub line_pct: f64,
    /// `100 * toggles_hit / toggles_total` (100 when there is nothing to cover).
    pub toggle_pct: f64,
    /// Toggle points of the event counters (module header), and how many toggled.
    pub counter_toggles_total: usize,
    pub counter_toggles_hit: usize,
    /// The toggle figure without the counters' points.
    pub toggle_pct_no_counters: f64,
    /// Every uncovered line, then every uncovered toggle, in source order.
    pub uncovered: Vec<Uncovered>,
    /// The declaration lines of the counters' signals ([`counter_lines`]).
    pub counter_lines: BTreeSet<u32>,
    /// The merged coverage data (`<out>/merged.dat`).
    pub merged: PathBuf,
    /// The annotated source directory (`<out>/annotated/`).
    pub annotated: PathBuf,
    /// lcov tracefile (`<out>/coverage.info`).
    pub lcov: PathBuf,
}

fn pct(hit: usize, total: usize) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * hit as f64 / total as f64
    }
}

impl CoverageReport {
    /// A markdown table of the figures, then the uncovered lines and toggles (toggles grouped
    /// by signal; at most `limit` entries per section, the rest counted).
    pub fn to_markdown_limited(&self, limit: usize) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "Coverage of `{}`\n\n| metric | covered | total | % |\n|---|---:|---:|---:|\n",
            self.verilog.display()
        ));
        s.push_str(&format!(
            "| line | {} | {} | {:.1} |\n| toggle | {} | {} | {:.1} |\n| toggle without the `stat_*` counters | {} | {} | {:.1} |\n",
            self.lines_hit,
            self.lines_total,
            self.line_pct,
            self.toggles_hit,
            self.toggles_total,
            self.toggle_pct,
            self.toggles_hit - self.counter_toggles_hit,
            self.toggles_total - self.counter_toggles_total,
            self.toggle_pct_no_counters
        ));
        let lines: Vec<&Uncovered> = self
            .uncovered
            .iter()
            .filter(|u| u.kind == UncoveredKind::Line)
            .collect();
        if !lines.is_empty() {
            s.push_str(&format!("\nUncovered lines ({}):\n\n", lines.len()));
            for u in lines.iter().take(limit) {
                s.push_str(&format!(
                    "- `{}:{}` ({}): `{}`\n",
                    file_name(&u.file),
                    u.line,
                    u.what,
                    u.source
                ));
            }
            if lines.len() > limit {
                s.push_str(&format!("- … {} more\n", lines.len() - limit));
            }
        }
        // Toggles: one entry per (line, signal), listing its bits and directions.
        let mut groups: BTreeMap<(u32, String), (String, Vec<String>)> = BTreeMap::new();
        for u in self
            .uncovered
            .iter()
            .filter(|u| u.kind == UncoveredKind::Toggle)
        {
            let signal = u.what.split('[').next().unwrap_or(&u.what);
            let signal = signal.split(':').next().unwrap_or(signal).to_string();
            let e = groups
                .entry((u.line, signal))
                .or_insert_with(|| (u.source.clone(), Vec::new()));
            e.1.push(u.what.clone());
        }
        if !groups.is_empty() {
            s.push_str(&format!(
                "\nUncovered toggles ({} points in {} signals; {} of them the counters', marked *counter*):\n\n",
                self.toggles_total - self.toggles_hit,
                groups.len(),
                self.counter_toggles_total - self.counter_toggles_hit
            ));
            for ((line, signal), (source, points)) in groups.iter().take(limit) {
                let shown: Vec<&str> = points.iter().take(8).map(|p| p.as_str()).collect();
                let more = if points.len() > 8 {
                    format!(" … {} more", points.len() - 8)
                } else {
                    String::new()
                };
                let counter = if self.counter_lines.contains(line) { " *counter*" } else { "" };
                s.push_str(&format!(
                    "- `{}:{line}` `{signal}`{counter}: {}{more} (`{source}`)\n",
                    file_name(&self.verilog),
                    shown.join(", ")
                ));
            }
            if groups.len() > limit {
                s.push_str(&format!("- … {} more signals\n", groups.len() - limit));
            }
        }
        s
    }

    /// [`Self::to_markdown_limited`] with at most 200 entries per section.
    pub fn to_markdown(&self) -> String {
        self.to_markdown_limited(200)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// One coverage point of a `.dat` file: its keys and its count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub keys: BTreeMap<String, String>,
    pub count: u64,
}

impl Point {
    fn key(&self, k: &str) -> &str {
        self.keys.get(k).map(|s| s.as_str()).unwrap_or("")
    }
}

/// Parse Verilator's coverage data (`C '<\x01key\x02value...>' count` lines; `#` comments).
pub fn parse_dat(text: &str, what: &str) -> Result<Vec<Point>, BridgeError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let l = line.trim_end();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let bad = || BridgeError::Coverage(format!("{what}:{}: not a coverage point: {l:?}", n + 1));
        let rest = l.strip_prefix("C '").ok_or_else(bad)?;
        let close = rest.rfind('\'').ok_or_else(bad)?;
        let count: u64 = rest[close + 1..].trim().parse().map_err(|_| bad())?;
        let mut keys = BTreeMap::new();
        for kv in rest[..close].split('\u{1}').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('\u{2}').ok_or_else(bad)?;
            keys.insert(k.to_string(), v.to_string());
        }
        out.push(Point { keys, count });
    }
    Ok(out)
}

/// Undo Verilator's C++ name encoding in a toggle point's name (`r__024d[3]:0->1` →
/// `r$d[3]:0->1`): `__0XX` is the byte 0xXX, `___05F` an underscore.
pub fn decode_name(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"__0") && i + 5 <= b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 3..i + 5], 16) {
                out.push(v);
                i += 5;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Rewrite every point's file key (`\x01f\x02...`) to `file`.
fn rewrite_files(text: &str, file: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if let Some(start) = line.find("\u{1}f\u{2}") {
            let vstart = start + 3;
            let vend = line[vstart..]
                .find(['\u{1}', '\''])
                .map(|e| vstart + e)
                .unwrap_or(line.len());
            out.push_str(&line[..vstart]);
            out.push_str(file);
            out.push_str(&line[vend..]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn run_tool(mut c: Command, step: &str) -> Result<String, BridgeError> {
    let shown = format!("{c:?}");
    let out = c.output().map_err(|e| BridgeError::Build {
        step: step.into(),
        command: shown.clone(),
        output: format!("cannot start: {e}"),
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(BridgeError::Build {
            step: step.into(),
            command: shown,
            output: text,
        });
    }
    Ok(text)
}

/// Merge `dat_files`, annotate `verilog` and compute the figures, writing `merged.dat`,
/// `coverage.info` (lcov) and `annotated/` into `out_dir`.
pub fn report(
    dat_files: &[PathBuf],
    verilog: &Path,
    out_dir: &Path,
) -> Result<CoverageReport, BridgeError> {
    if dat_files.is_empty() {
        return Err(BridgeError::Coverage("no coverage files to report on".into()));
    }
    for d in dat_files {
        if !d.is_file() {
            return Err(BridgeError::Coverage(format!(
                "coverage file {} does not exist",
                d.display()
            )));
        }
    }
    let source = fs::read_to_string(verilog).map_err(io_err(format!("read {}", verilog.display())))?;
    let verilog_abs = fs::canonicalize(verilog)
        .map_err(io_err(format!("resolve {}", verilog.display())))?;
    fs::create_dir_all(out_dir).map_err(io_err(format!("create {}", out_dir.display())))?;
    let vl = verilator()?;
    let merged = out_dir.join("merged.dat");
    let mut c = vl.sibling("verilator_coverage");
    c.arg("--write").arg(&merged).args(dat_files);
    run_tool(c, "verilator_coverage --write (merge)")?;
    let text = fs::read_to_string(&merged).map_err(io_err(format!("read {}", merged.display())))?;
    let text = rewrite_files(&text, &verilog_abs.to_string_lossy());
    fs::write(&merged, &text).map_err(io_err(format!("write {}", merged.display())))?;

    let annotated = out_dir.join("annotated");
    let _ = fs::remove_dir_all(&annotated);
    let mut c = vl.sibling("verilator_coverage");
    c.arg("--annotate")
        .arg(&annotated)
        .args(["--annotate-min", "1"])
        .arg(&merged);
    run_tool(c, "verilator_coverage --annotate")?;
    let lcov = out_dir.join("coverage.info");
    let mut c = vl.sibling("verilator_coverage");
    c.arg("--write-info").arg(&lcov).arg(&merged);
    run_tool(c, "verilator_coverage --write-info")?;

    let points = parse_dat(&text, &merged.display().to_string())?;
    let mut r = summarise(&points, &source, &verilog_abs);
    r.merged = merged;
    r.annotated = annotated;
    r.lcov = lcov;
    Ok(r)
}

/// The figures and gaps of parsed points over `source` (see the module header for the rules).
pub fn summarise(points: &[Point], source: &str, verilog: &Path) -> CoverageReport {
    let src: Vec<&str> = source.lines().collect();
    let text_of = |l: u32| {
        src.get((l as usize).wrapping_sub(1))
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    // Lines: max count over the line/branch points covering each line; keep one label.
    let mut lines: BTreeMap<u32, (u64, String)> = BTreeMap::new();
    // Toggles: summed over instances, keyed by (line, "sig[bit]:a->b").
    let mut toggles: BTreeMap<(u32, String), u64> = BTreeMap::new();
    for p in points {
        let l: u32 = p.key("l").parse().unwrap_or(0);
        match p.key("t") {
            "line" | "branch" => {
                // The point's own line plus its statement range `S` ("4-5" or "4").
                let (a, b) = match p.key("S").split_once('-') {
                    Some((a, b)) => (a.parse().unwrap_or(l), b.parse().unwrap_or(l)),
                    None => {
                        let s = p.key("S").parse().unwrap_or(l);
                        (s, s)
                    }
                };
                let range = a.min(b)..=a.max(b);
                let own = (!range.contains(&l)).then_some(l);
                for line in range.chain(own) {
                    let e = lines.entry(line).or_insert((0, String::new()));
                    e.0 = e.0.max(p.count);
                    if e.0 == 0 && e.1.is_empty() {
                        e.1 = p.key("o").to_string();
                    }
                }
            }
            "toggle" => {
                *toggles.entry((l, decode_name(p.key("o")))).or_insert(0) += p.count;
            }
            _ => {}
        }
    }
    let mut uncovered = Vec::new();
    for (line, (count, what)) in &lines {
        if *count == 0 {
            uncovered.push(Uncovered {
                kind: UncoveredKind::Line,
                file: verilog.to_path_buf(),
                line: *line,
                what: what.clone(),
                source: text_of(*line),
            });
        }
    }
    for ((line, what), count) in &toggles {
        if *count == 0 {
            uncovered.push(Uncovered {
                kind: UncoveredKind::Toggle,
                file: verilog.to_path_buf(),
                line: *line,
                what: what.clone(),
                source: text_of(*line),
            });
        }
    }
    let lines_hit = lines.values().filter(|v| v.0 > 0).count();
    let toggles_hit = toggles.values().filter(|c| **c > 0).count();
    let counter_lines = counter_lines(source);
    let counter: Vec<u64> = toggles.iter().filter(|((l, _), _)| counter_lines.contains(l)).map(|(_, c)| *c).collect();
    let counter_toggles_hit = counter.iter().filter(|c| **c > 0).count();
    CoverageReport {
        counter_toggles_total: counter.len(),
        counter_toggles_hit,
        toggle_pct_no_counters: pct(toggles_hit - counter_toggles_hit, toggles.len() - counter.len()),
        counter_lines,
        verilog: verilog.to_path_buf(),
        lines_total: lines.len(),
        lines_hit,
        toggles_total: toggles.len(),
        toggles_hit,
        line_pct: pct(lines_hit, lines.len()),
        toggle_pct: pct(toggles_hit, toggles.len()),
        uncovered,
        merged: PathBuf::new(),
        annotated: PathBuf::new(),
        lcov: PathBuf::new(),
    }
}

/// The declaration lines of the event counters' signals in rust-hdl's Verilog `source`: in
/// each module, every `stat_x = r$q;` makes `r` a counter; its lines are the declarations
/// of `stat_x`, `r$d` and `r$q` in that module and of `d` and `q` in the flip-flop's own
/// module (`<module>$r`).
pub fn counter_lines(source: &str) -> BTreeSet<u32> {
    // modules: name -> (first line, last line), 1-based
    let mut modules: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut cur: Option<(String, u32)> = None;
    let lines: Vec<&str> = source.lines().collect();
    for (k, l) in lines.iter().enumerate() {
        let n = k as u32 + 1;
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("module ") {
            let name = rest.split(['(', ' ', ';']).next().unwrap_or("").to_string();
            cur = Some((name, n));
        } else if t.starts_with("endmodule") {
            if let Some((name, a)) = cur.take() {
                modules.insert(name, (a, n));
            }
        }
    }
    // the line declaring `name` (a port, reg or wire: `... name;`) inside `range`
    let decl = |range: (u32, u32), name: &str| -> Option<u32> {
        (range.0..=range.1).find(|&n| {
            let t = lines[n as usize - 1].trim();
            let kw = ["input ", "output ", "reg ", "wire "].iter().any(|k| t.starts_with(k));
            kw && t.strip_suffix(';').is_some_and(|t| t.rsplit([' ', ']']).next() == Some(name))
        })
    };
    let mut out = BTreeSet::new();
    for (m, &range) in &modules {
        for n in range.0..=range.1 {
            let t = lines[n as usize - 1].trim();
            let Some((lhs, rhs)) = t.strip_suffix(';').and_then(|t| t.split_once(" = ")) else {
                continue;
            };
            let Some(reg) = rhs.strip_suffix("$q") else {
                continue;
            };
            if !lhs.starts_with("stat_") || !reg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            for name in [lhs.to_string(), format!("{reg}$d"), format!("{reg}$q")] {
                out.extend(decl(range, &name));
            }
            if let Some(&sub) = modules.get(&format!("{m}${reg}")) {
                out.extend(decl(sub, "d"));
                out.extend(decl(sub, "q"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of Verilator 5.052 for a 4-line `if/else` block whose `if` never ran.
    const DAT: &str = "# SystemC::Coverage-3\n\
C '\u{1}f\u{2}top.v\u{1}l\u{2}1\u{1}n\u{2}73\u{1}t\u{2}toggle\u{1}page\u{2}v_toggle/cov_x\u{1}o\u{2}hit:0->1\u{1}h\u{2}TOP.cov_x' 0\n\
C '\u{1}f\u{2}top.v\u{1}l\u{2}1\u{1}n\u{2}59\u{1}t\u{2}toggle\u{1}page\u{2}v_toggle/cov_x\u{1}o\u{2}q[0]:0->1\u{1}h\u{2}TOP.cov_x' 9\n\
C '\u{1}f\u{2}top.v\u{1}l\u{2}3\u{1}n\u{2}3\u{1}t\u{2}line\u{1}page\u{2}v_line/cov_x\u{1}o\u{2}block\u{1}S\u{2}3\u{1}h\u{2}TOP.cov_x' 20\n\
C '\u{1}f\u{2}top.v\u{1}l\u{2}4\u{1}n\u{2}5\u{1}t\u{2}branch\u{1}page\u{2}v_branch/cov_x\u{1}o\u{2}if\u{1}S\u{2}4-5\u{1}h\u{2}TOP.cov_x' 0\n\
C '\u{1}f\u{2}top.v\u{1}l\u{2}4\u{1}n\u{2}6\u{1}t\u{2}branch\u{1}page\u{2}v_branch/cov_x\u{1}o\u{2}else\u{1}S\u{2}6-7\u{1}h\u{2}TOP.cov_x' 20\n";
    const SRC: &str = "module cov_x(input clock, input [3:0] a, output reg [3:0] q, output reg hit);\n  initial begin q = 4'h0; hit = 1'b0; end\n  always @(posedge clock) begin\n    if (a == 4'hf) begin\n      hit <= 1'b1;\n    end else begin\n      q <= a + 4'h1;\n    end\n  end\nendmodule\n";

    #[test]
    fn summary_counts_lines_and_toggles_and_names_the_gaps() {
        let pts = parse_dat(DAT, "t.dat").unwrap();
        assert_eq!(pts.len(), 5);
        let r = summarise(&pts, SRC, Path::new("/x/cov_x.v"));
        // Lines 3, 4, 6, 7 reached; line 5 (the if body) not.
        assert_eq!((r.lines_hit, r.lines_total), (4, 5));
        assert_eq!((r.toggles_hit, r.toggles_total), (1, 2));
        assert!((r.line_pct - 80.0).abs() < 1e-9);
        let gaps: Vec<(UncoveredKind, u32, &str, &str)> = r
            .uncovered
            .iter()
            .map(|u| (u.kind, u.line, u.what.as_str(), u.source.as_str()))
            .collect();
        assert_eq!(
            gaps,
            vec![
                (UncoveredKind::Line, 5, "if", "hit <= 1'b1;"),
                (UncoveredKind::Toggle, 1, "hit:0->1", SRC.lines().next().unwrap().trim()),
            ]
        );
        let md = r.to_markdown();
        assert!(md.contains("| line | 4 | 5 | 80.0 |"), "{md}");
        assert!(md.contains("`cov_x.v:5` (if): `hit <= 1'b1;`"), "{md}");
        assert!(md.contains("`hit`: hit:0->1"), "{md}");
    }

    /// rust-hdl's shape of a counter: a flip-flop module per register, `stat_x = r$q;`.
    const CNT_SRC: &str = "module top(clock,ev,stat_n,other);\n    input wire  clock;\n    input wire  ev;\n    output reg  [31:0] stat_n;\n    output reg  [31:0] other;\n    reg  [31:0] c_n$d;\n    wire  [31:0] c_n$q;\n    reg  [31:0] x$d;\n    wire  [31:0] x$q;\n    always @(*) begin\n        stat_n = c_n$q;\n        other = x$q;\n    end\nendmodule // top\n\nmodule top$c_n(d,q,clock);\n    input wire  [31:0] d;\n    output reg  [31:0] q;\n    input wire  clock;\nendmodule // top$c_n\n\nmodule top$x(d,q,clock);\n    input wire  [31:0] d;\n    output reg  [31:0] q;\n    input wire  clock;\nendmodule // top$x\n";

    #[test]
    fn a_register_driving_a_stat_output_is_a_counter_and_its_points_are_figured_apart() {
        // stat_n (4), c_n$d (6), c_n$q (7), top$c_n's d (17) and q (18); not `other` or x
        let l = counter_lines(CNT_SRC);
        assert_eq!(l.into_iter().collect::<Vec<_>>(), vec![4, 6, 7, 17, 18]);
        // two points on the counter (one toggled), two elsewhere (both toggled)
        let pt = |l: u32, o: &str, c: u64| Point {
            keys: [("t", "toggle"), ("l", &l.to_string()[..]), ("o", o)].into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            count: c,
        };
        let pts = vec![pt(4, "stat_n[0]:0->1", 5), pt(4, "stat_n[31]:0->1", 0), pt(5, "other[0]:0->1", 3), pt(22, "d[0]:0->1", 1)];
        let r = summarise(&pts, CNT_SRC, Path::new("/x/top.v"));
        assert_eq!((r.toggles_hit, r.toggles_total, r.counter_toggles_hit, r.counter_toggles_total), (3, 4, 1, 2));
        assert!((r.toggle_pct - 75.0).abs() < 1e-9 && (r.toggle_pct_no_counters - 100.0).abs() < 1e-9, "{r:?}");
        let md = r.to_markdown();
        assert!(md.contains("| toggle without the `stat_*` counters | 2 | 2 | 100.0 |"), "{md}");
        assert!(md.contains("`stat_n` *counter*: stat_n[31]:0->1"), "{md}");
    }

    #[test]
    fn file_names_are_rewritten_and_bad_lines_refused() {
        let t = rewrite_files(DAT, "/abs/mrnic_x.v");
        assert!(!t.contains("top.v"));
        assert_eq!(t.matches("\u{1}f\u{2}/abs/mrnic_x.v\u{1}").count(), 5);
        assert_eq!(decode_name("r_hit__024d[3]:0->1"), "r_hit$d[3]:0->1");
        assert_eq!(decode_name("a___05Fb"), "a__b");
        assert_eq!(decode_name("plain_name:1->0"), "plain_name:1->0");
        let e = parse_dat("C 'x' notanumber\n", "bad.dat").unwrap_err().to_string();
        assert!(e.contains("bad.dat:1: not a coverage point"), "{e}");
    }
}
