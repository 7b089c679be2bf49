#!/usr/bin/env python3
"""Lowest goodput bin after a time, per transport, over the seeds of a `--seeds` run:

    sim/scripts/min_bin_after.py DIR NAME T_US LINE_GBPS [T_END_US]

reads DIR/seed-*/NAME-timeseries.csv and prints, per transport, the mean and the 95 %
interval (Student t, n - 1) over the seeds of (a) the lowest bin starting at or after
T_US (and before T_END_US, default: the run's last full bin) and (b) the mean of the bins
from T_US on, both in % of LINE_GBPS.
"""
import csv
import glob
import math
import sys

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def ci(v):
    n = len(v)
    m = sum(v) / n
    if n < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    return m, T975[min(n - 2, 9)] * sd / math.sqrt(n)


def main():
    d, name, t0, line = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    t1 = float(sys.argv[5]) if len(sys.argv) > 5 else None
    lo, avg, order = {}, {}, []
    for f in sorted(glob.glob(f"{d}/seed-*/{name}-timeseries.csv")):
        per = {}
        for r in csv.DictReader(open(f)):
            t = float(r["t_us"])
            if t >= t0 and (t1 is None or t < t1):
                per.setdefault(r["transport"], []).append(float(r["goodput_gbps"]))
        for tr, v in per.items():
            if tr not in order:
                order.append(tr)
            v = v[:-1] if t1 is None and len(v) > 1 else v  # the last bin is partial
            lo.setdefault(tr, []).append(100 * min(v) / line)
            avg.setdefault(tr, []).append(100 * sum(v) / len(v) / line)
    print("| transport | lowest bin after (% of line) | mean after (% of line) | seeds |")
    print("|---|---:|---:|---:|")
    for tr in order:
        a, b = ci(lo[tr]), ci(avg[tr])
        print(f"| {tr} | {a[0]:.1f} ± {a[1]:.1f} | {b[0]:.1f} ± {b[1]:.1f} | {len(lo[tr])} |")


if __name__ == "__main__":
    main()
