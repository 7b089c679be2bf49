#!/usr/bin/env python3
"""Markdown table from a `mrnic sim --seeds` summary (NAME.seeds.csv): one row per
sweep point, one column per transport, each cell `mean ± ci95` of METRIC.

    sim/scripts/seeds_table.py DIR/NAME.seeds.csv [METRIC] [TRANSPORT,...]

METRIC defaults to pct_line_rate; the transports default to every one in the file in
file order. A last column names the best transport other than mrnic and mrnic_1path at each point
(highest mean; lowest for completion_us) and mrnic's ratio to it.
"""
import csv
import sys


def main():
    path = sys.argv[1]
    metric = sys.argv[2] if len(sys.argv) > 2 else "pct_line_rate"
    rows = list(csv.DictReader(open(path)))
    want = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    axes = [c for c in ("loss", "message_bytes", "planes", "conns_per_pair", "rate_hint") if c in rows[0]]
    axes = [c for c in axes if len({r[c] for r in rows}) > 1]

    def lab(r):
        out = []
        for c in axes:
            v = r[c]
            if c == "loss":
                v = f"{float(v) * 100:g} %"
            elif c == "message_bytes":
                b = int(float(v))
                v = f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"
            out.append(v if len(axes) == 1 else f"{c}={v}")
        return " ".join(out) or "-"

    points, ts, cell = [], [], {}
    for r in rows:
        if r["metric"] != metric:
            continue
        p = lab(r)
        if p not in points:
            points.append(p)
        if r["transport"] not in ts:
            ts.append(r["transport"])
        cell[(p, r["transport"])] = (float(r["mean"]), float(r["ci95"]), int(r["n"]))
    ts = want or ts
    lower = metric == "completion_us"
    print("| " + (" ".join(axes) or "point") + " | " + " | ".join(ts) + " | strongest rival | mrnic / it |")
    print("|---|" + "---:|" * len(ts) + "---|---:|")
    for p in points:
        label = p
        cells = []
        for t in ts:
            v = cell.get((p, t))
            cells.append(f"{v[0]:.1f} ± {v[1]:.1f}" if v else "")
        rivals = [(cell[(p, t)][0], t) for t in ts if not t.startswith("mrnic") and (p, t) in cell]
        best = (min if lower else max)(rivals) if rivals else None
        m = cell.get((p, "mrnic"))
        ratio = f"{m[0] / best[0]:.2f}" if m and best and best[0] > 0 else ""
        print(f"| {label} | " + " | ".join(cells) + f" | {best[1] if best else ''} | {ratio} |")


if __name__ == "__main__":
    main()
