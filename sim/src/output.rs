//! Result writers: CSV, a markdown table, and SVG plots (plotters).
//!
//! [`write_all`] writes into a directory:
//! * `NAME.csv`: one row per run (sweep point x transport);
//! * `NAME-timeseries.csv`: aggregate goodput per bin for every run;
//! * `NAME.md`: the summary table, with each run relative to RoCE at the same point;
//! * `NAME.svg`: the main metric against the first swept axis (when something is swept);
//! * `NAME-time.svg`: goodput over time (up to 12 runs).
//!
//! The main metric is the completion time when every run completed a finite
//! workload, the aggregate goodput otherwise.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::scenario::{human_bytes, Record, Results};
use crate::SimError;

/// Which number summarizes a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Workload completion time, µs (lower is better).
    CompletionUs,
    /// Aggregate goodput, Gb/s (higher is better).
    GoodputGbps,
}

impl Metric {
    /// Pick the metric for a result set.
    pub fn of(r: &Results) -> Metric {
        if !r.records.is_empty() && r.records.iter().all(|x| x.result.completed) {
            Metric::CompletionUs
        } else {
            Metric::GoodputGbps
        }
    }
    /// The value for one run.
    pub fn value(self, rec: &Record) -> f64 {
        match self {
            Metric::CompletionUs => rec.result.completion_ns.unwrap_or(rec.result.end_ns) as f64 / 1000.0,
            Metric::GoodputGbps => rec.result.goodput_gbps,
        }
    }
    /// Axis / column name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::CompletionUs => "completion time (µs)",
            Metric::GoodputGbps => "goodput (Gb/s)",
        }
    }
}

fn same_point(a: &Record, b: &Record) -> bool {
    a.point == b.point
}

/// Metric of `rec` divided by RoCE's at the same point, if RoCE ran.
pub fn relative_to_roce(r: &Results, rec: &Record) -> Option<f64> {
    let m = Metric::of(r);
    let roce = r.records.iter().find(|x| x.result.transport == "roce" && same_point(x, rec))?;
    let d = m.value(roce);
    (d > 0.0).then(|| m.value(rec) / d)
}

const CSV_HEADER: &str = "transport,loss,message_bytes,planes,conns_per_pair,rate_hint,flows,completed,completion_us,goodput_gbps,line_rate_gbps,pct_line_rate,rel_to_roce,jain,convergence_rtts,peak_queue_bytes,drops_buffer,drops_random,drops_failed,drops_no_route,ecn_marks,data_sent,data_retx,timeouts,cnps,events,wall_s";

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}")).unwrap_or_default()
}

/// Goodput as a percentage of the senders' line rate.
pub fn pct_line(x: &crate::engine::RunResult) -> f64 {
    if x.line_rate_gbps > 0.0 {
        100.0 * x.goodput_gbps / x.line_rate_gbps
    } else {
        0.0
    }
}

/// One CSV row per run.
pub fn to_csv(r: &Results) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for rec in &r.records {
        let (p, x) = (&rec.point, &rec.result);
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{:.3},{:.1},{:.2},{},{:.4},{},{},{},{},{},{},{},{},{},{},{},{},{:.3}",
            x.transport,
            p.loss,
            p.message_bytes,
            p.planes,
            p.conns_per_pair,
            p.rate_hint,
            x.flows.len(),
            x.completed,
            opt(x.completion_ns.map(|c| c as f64 / 1000.0), 3),
            x.goodput_gbps,
            x.line_rate_gbps,
            pct_line(x),
            opt(relative_to_roce(r, rec), 4),
            x.jain,
            opt(x.convergence_rtts, 1),
            x.peak_queue_bytes,
            x.drops.buffer,
            x.drops.random,
            x.drops.failed,
            x.drops.no_route,
            x.ecn_marks,
            x.endpoint_stats.data_sent,
            x.endpoint_stats.data_retx,
            x.endpoint_stats.timeouts,
            x.endpoint_stats.cnps_sent,
            x.events,
            x.wall_s
        );
    }
    s
}

/// Aggregate goodput per bin for every run: `transport,point,t_us,goodput_gbps`.
pub fn timeseries_csv(r: &Results) -> String {
    let mut s = String::from("run,transport,point,t_us,goodput_gbps\n");
    for (i, rec) in r.records.iter().enumerate() {
        let label = point_label(r, rec);
        for (b, g) in rec.result.goodput_bins_gbps.iter().enumerate() {
            let _ = writeln!(
                s,
                "{i},{},{},{},{:.3}",
                rec.result.transport,
                label,
                (b as u64 * rec.result.bin_ns) as f64 / 1000.0,
                g
            );
        }
    }
    s
}

fn point_label(r: &Results, rec: &Record) -> String {
    let v: Vec<String> = r.axes.iter().map(|a| format!("{a}={}", rec.point.axis_label(a))).collect();
    v.join(" ")
}

/// The summary as a markdown table.
pub fn to_markdown(r: &Results) -> String {
    let m = Metric::of(r);
    let mut s = format!("## {}\n\n", r.name);
    if !r.description.is_empty() {
        let _ = writeln!(s, "{}\n", r.description.trim());
    }
    let mut head: Vec<String> = r.axes.clone();
    head.extend(
        [
            "transport",
            m.name(),
            "vs RoCE",
            if m == Metric::CompletionUs { "goodput (Gb/s)" } else { "" },
            "% of line rate",
            "done",
            "Jain",
            "conv. (RTTs)",
            "peak queue",
            "drops (buf/rand/fail/route)",
            "ECN marks",
            "retx / sent",
            "timeouts",
        ]
        .iter()
        .map(|x| x.to_string()),
    );
    head.retain(|h| !h.is_empty());
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(head.len()));
    for rec in &r.records {
        let x = &rec.result;
        let mut row: Vec<String> = r.axes.iter().map(|a| rec.point.axis_label(a)).collect();
        row.push(x.transport.clone());
        row.push(format!("{:.2}", m.value(rec)));
        row.push(opt(relative_to_roce(r, rec), 3));
        if m == Metric::CompletionUs {
            row.push(format!("{:.1}", x.goodput_gbps));
        }
        row.push(format!("{:.1}", pct_line(x)));
        row.push(if x.completed { "yes".into() } else { "no".into() });
        row.push(format!("{:.3}", x.jain));
        row.push(opt(x.convergence_rtts, 1));
        row.push(human_bytes(x.peak_queue_bytes));
        row.push(format!("{}/{}/{}/{}", x.drops.buffer, x.drops.random, x.drops.failed, x.drops.no_route));
        row.push(x.ecn_marks.to_string());
        row.push(format!("{}/{}", x.endpoint_stats.data_retx, x.endpoint_stats.data_sent));
        row.push(x.endpoint_stats.timeouts.to_string());
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    s
}

/// Turns a plotting error into a [`SimError::Plot`] naming the SVG file.
fn perr<E: std::fmt::Debug>(path: &Path) -> impl Fn(E) -> SimError + '_ {
    move |e| SimError::Plot { path: path.to_path_buf(), reason: format!("{e:?}") }
}

/// Draws the series legend and writes the SVG.
fn legend_and_present<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    path: &Path,
) -> Result<(), SimError> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(perr(path))?;
    root.present().map_err(perr(path))
}

/// The main metric against the first swept axis, one line per transport
/// (and per combination of the other swept axes). Categorical x.
pub fn plot_sweep_svg(r: &Results, path: &Path) -> Result<(), SimError> {
    let Some(axis) = r.axes.first() else {
        return Err(SimError::Plot { path: path.to_path_buf(), reason: "nothing is swept".into() });
    };
    let m = Metric::of(r);
    let mut xs: Vec<String> = Vec::new();
    for rec in &r.records {
        let l = rec.point.axis_label(axis);
        if !xs.contains(&l) {
            xs.push(l);
        }
    }
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for rec in &r.records {
        let others: Vec<String> =
            r.axes.iter().skip(1).map(|a| format!("{a}={}", rec.point.axis_label(a))).collect();
        let name = if others.is_empty() { rec.result.transport.clone() } else { format!("{} {}", rec.result.transport, others.join(" ")) };
        let x = xs.iter().position(|l| *l == rec.point.axis_label(axis)).unwrap() as f64;
        let v = m.value(rec);
        let y = if m == Metric::CompletionUs { v.max(1e-3).log10() } else { v };
        match series.iter_mut().find(|s| s.0 == name) {
            Some(s) => s.1.push((x, y)),
            None => series.push((name, vec![(x, y)])),
        }
    }
    let ys = series.iter().flat_map(|s| s.1.iter().map(|p| p.1));
    let (mut lo, mut hi) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    if m == Metric::GoodputGbps {
        lo = 0.0;
        hi = hi.max(1.0) * 1.1;
    } else {
        lo = lo.floor();
        hi = hi.ceil().max(lo + 1.0);
    }
    let root = SVGBackend::new(path, (960, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(perr(path))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: {} vs {}", r.name, m.name(), axis), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.3f64..(xs.len() as f64 - 0.7), lo..hi)
        .map_err(perr(path))?;
    let xl = xs.clone();
    let xfmt = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < xl.len() {
            xl[i as usize].clone()
        } else {
            String::new()
        }
    };
    let log = m == Metric::CompletionUs;
    let yfmt = move |y: &f64| if log { format!("{:.3}", 10f64.powf(*y)) } else { format!("{y:.0}") };
    chart
        .configure_mesh()
        .x_labels(xs.len().max(2) * 4)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .x_desc(axis.as_str())
        .y_desc(if log { format!("{} (log)", m.name()) } else { m.name().to_string() })
        .draw()
        .map_err(perr(path))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(perr(path))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled()))).map_err(perr(path))?;
    }
    legend_and_present(&mut chart, &root, path)
}

/// Goodput over time for up to 12 runs.
pub fn plot_time_svg(r: &Results, path: &Path) -> Result<(), SimError> {
    let recs: Vec<&Record> = r.records.iter().take(12).collect();
    let tmax = recs
        .iter()
        .map(|x| x.result.goodput_bins_gbps.len() as f64 * x.result.bin_ns as f64 / 1000.0)
        .fold(1.0, f64::max);
    let ymax = recs.iter().flat_map(|x| x.result.goodput_bins_gbps.iter().copied()).fold(1.0, f64::max) * 1.1;
    let root = SVGBackend::new(path, (960, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(perr(path))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: aggregate goodput over time", r.name), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..tmax, 0f64..ymax)
        .map_err(perr(path))?;
    chart.configure_mesh().x_desc("time (µs)").y_desc("goodput (Gb/s)").draw().map_err(perr(path))?;
    for (i, rec) in recs.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        let bin_us = rec.result.bin_ns as f64 / 1000.0;
        let pts: Vec<(f64, f64)> =
            rec.result.goodput_bins_gbps.iter().enumerate().map(|(b, &g)| ((b as f64 + 0.5) * bin_us, g)).collect();
        let label = format!("{} {}", rec.result.transport, point_label(r, rec));
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(perr(path))?
            .label(label.trim_end().to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend_and_present(&mut chart, &root, path)
}

/// Most connections per run for which the per-flow outputs (`NAME-flows.csv`, `.svg`) are
/// written.
pub const MAX_FLOW_SERIES: usize = 8;

/// Per-connection goodput per bin, `run,transport,point,flow,t_us,gbps`, for runs with at
/// most [`MAX_FLOW_SERIES`] connections (None if no run qualifies).
pub fn flow_series_csv(r: &Results) -> Option<String> {
    let mut s = String::from("run,transport,point,flow,t_us,gbps\n");
    let mut any = false;
    for (i, rec) in r.records.iter().enumerate() {
        let Some(fb) = rec.result.flow_bins.as_ref().filter(|f| f.len() <= MAX_FLOW_SERIES) else { continue };
        any = true;
        let label = point_label(r, rec);
        let bin_ns = rec.result.bin_ns as f64;
        let nb = rec.result.goodput_bins_gbps.len();
        for (f, bins) in fb.iter().enumerate() {
            for (b, &bytes) in bins.iter().take(nb).enumerate() {
                let _ = writeln!(
                    s,
                    "{i},{},{},{f},{},{:.3}",
                    rec.result.transport,
                    label,
                    b as f64 * bin_ns / 1000.0,
                    bytes as f64 * 8.0 / bin_ns
                );
            }
        }
    }
    any.then_some(s)
}

/// Per-connection goodput over time (runs with at most [`MAX_FLOW_SERIES`] connections,
/// up to 12 lines).
pub fn plot_flows_svg(r: &Results, path: &Path) -> Result<(), SimError> {
    // (legend, bin width in ns, points)
    type Line = (String, f64, Vec<(f64, f64)>);
    let mut lines: Vec<Line> = Vec::new();
    for rec in &r.records {
        let Some(fb) = rec.result.flow_bins.as_ref().filter(|f| f.len() <= MAX_FLOW_SERIES) else { continue };
        let bin_ns = rec.result.bin_ns as f64;
        let nb = rec.result.goodput_bins_gbps.len();
        for (f, bins) in fb.iter().enumerate() {
            let pts = bins.iter().take(nb).enumerate().map(|(b, &x)| ((b as f64 + 0.5) * bin_ns / 1e6, x as f64 * 8.0 / bin_ns)).collect();
            let label = format!("{} {} flow {f}", rec.result.transport, point_label(r, rec));
            lines.push((label, bin_ns, pts));
        }
    }
    lines.truncate(12);
    let tmax = lines.iter().flat_map(|l| l.2.last().map(|p| p.0 + l.1 / 2e6)).fold(0.001, f64::max);
    let ymax = lines.iter().flat_map(|l| l.2.iter().map(|p| p.1)).fold(1.0, f64::max) * 1.1;
    let root = SVGBackend::new(path, (960, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(perr(path))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: goodput of each flow over time", r.name), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..tmax, 0f64..ymax)
        .map_err(perr(path))?;
    chart.configure_mesh().x_desc("time (ms)").y_desc("goodput (Gb/s)").draw().map_err(perr(path))?;
    for (i, (label, _, pts)) in lines.into_iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(perr(path))?
            .label(label.split_whitespace().collect::<Vec<_>>().join(" "))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend_and_present(&mut chart, &root, path)
}

/// Per-flow results, `run,transport,point,flow,src,dst,delivered_bytes,fct_us` (every run;
/// `fct_us` empty for a flow that did not finish), for the mean flow completion time.
pub fn flows_csv(r: &Results) -> String {
    let mut s = String::from("run,transport,point,flow,src,dst,delivered_bytes,fct_us\n");
    for (i, rec) in r.records.iter().enumerate() {
        let label = point_label(r, rec);
        for (f, x) in rec.result.flows.iter().enumerate() {
            let _ = writeln!(
                s,
                "{i},{},{},{f},{},{},{},{}",
                rec.result.transport,
                label,
                x.src,
                x.dst,
                x.delivered_bytes,
                opt(x.fct_ns.map(|t| t as f64 / 1000.0), 3)
            );
        }
    }
    s
}

/// The requester counters of every run, `run,transport,point,data_sent,data_retx,timeouts,`
/// then the [`RequesterCounters`](crate::transport::RequesterCounters) fields (summed over
/// connections; mrnic only, zero for the baselines): what blocked the senders and how they
/// found their losses. Written as `NAME-counters.csv`.
pub fn counters_csv(r: &Results) -> String {
    let mut s = String::from(
        "run,transport,point,data_sent,data_retx,timeouts,acks,naks,blocked_window,blocked_paths,blocked_tokens,losses_by_path,losses_by_timeout,losses_by_head_timer,spurious_losses\n",
    );
    for (i, rec) in r.records.iter().enumerate() {
        let e = &rec.result.endpoint_stats;
        let q = &e.req;
        let _ = writeln!(
            s,
            "{i},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            rec.result.transport,
            point_label(r, rec),
            e.data_sent,
            e.data_retx,
            e.timeouts,
            q.acks,
            q.naks,
            q.blocked_window,
            q.blocked_paths,
            q.blocked_tokens,
            q.losses_by_path,
            q.losses_by_timeout,
            q.losses_by_head_timer,
            q.spurious_losses
        );
    }
    s
}

/// Write `NAME-flows.csv` and `NAME-flows.svg` (per-connection goodput over time) into
/// `dir` if a run has at most [`MAX_FLOW_SERIES`] connections; returns the files written.
/// Not part of [`write_all`]: the per-bin flow counters are not carried in shard files,
/// so `mrnic merge` cannot write these.
pub fn write_flow_series(r: &Results, dir: &Path) -> Result<Vec<PathBuf>, SimError> {
    let Some(csv) = flow_series_csv(r) else { return Ok(Vec::new()) };
    let p = dir.join(format!("{}-flows.csv", r.name));
    std::fs::write(&p, csv).map_err(|e| SimError::io("write", &p, e))?;
    let svg = dir.join(format!("{}-flows.svg", r.name));
    plot_flows_svg(r, &svg)?;
    Ok(vec![p, svg])
}

/// Make sure `dir` exists (created if needed) and accepts files, before anything is
/// computed for it: a run that would fail only when writing its results is refused up
/// front, naming the directory.
pub fn check_out_dir(dir: &Path) -> Result<(), SimError> {
    std::fs::create_dir_all(dir).map_err(|e| SimError::io("create", dir, e))?;
    let probe = dir.join(format!(".mrnic-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| SimError::io("write into", dir, e))?;
    std::fs::remove_file(&probe).map_err(|e| SimError::io("remove", &probe, e))
}

/// Write every output into `dir` (created if needed); returns the files written.
pub fn write_all(r: &Results, dir: &Path) -> Result<Vec<PathBuf>, SimError> {
    std::fs::create_dir_all(dir).map_err(|e| SimError::io("create", dir, e))?;
    let mut out = Vec::new();
    let mut write = |name: String, text: String| -> Result<(), SimError> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| SimError::io("write", &p, e))?;
        out.push(p);
        Ok(())
    };
    write(format!("{}.csv", r.name), to_csv(r))?;
    write(format!("{}-timeseries.csv", r.name), timeseries_csv(r))?;
    write(format!("{}.md", r.name), to_markdown(r))?;
    if !r.axes.is_empty() {
        let p = dir.join(format!("{}.svg", r.name));
        plot_sweep_svg(r, &p)?;
        out.push(p);
    }
    let p = dir.join(format!("{}-time.svg", r.name));
    plot_time_svg(r, &p)?;
    out.push(p);
    let p = dir.join(format!("{}-fct.csv", r.name));
    std::fs::write(&p, flows_csv(r)).map_err(|e| SimError::io("write", &p, e))?;
    out.push(p);
    let p = dir.join(format!("{}-counters.csv", r.name));
    std::fs::write(&p, counters_csv(r)).map_err(|e| SimError::io("write", &p, e))?;
    out.push(p);
    Ok(out)
}
