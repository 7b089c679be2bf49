#!/usr/bin/env python3
"""Two-flow convergence over seeds, from `mrnic sim ... --seeds N` outputs.

usage: two_flow.py DIR NAME JOIN_US [TAIL_US]

Reads DIR/seed-*/NAME-flows.csv (per-flow goodput per bin). Per transport and seed:
  alone    mean goodput of flow 0 before flow 1 joins (first bin skipped), Gb/s
  conv_ms  time after the join until the two flows' goodputs, averaged over 2 ms, stay
           within 20 % of each other (min/max >= 0.8) for the rest of the run
  f0, f1   mean goodput of each flow over the last TAIL_US (default: the last half
           of the time after the join), Gb/s
  jain     Jain's index of (f0, f1);  util  (f0 + f1) over the same window, Gb/s
  full_ms  time after the join until the two flows' summed goodput, averaged over 2 ms,
           is back to >= 95 % of flow 0's goodput alone (first time)

or, with --fluid FILE.csv (sim/scripts/dcqcn_fluid.py output), the same metrics of the model.
and prints mean +- 95 % CI (Student's t, n - 1 df) over the seeds as a markdown table.
"""
import collections, csv, glob, math, os, sys

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def ci(v):
    n = len(v)
    m = sum(v) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    return m, T975.get(n - 1, 1.96) * sd / math.sqrt(n)


def metrics(rows, join_us, tail_us):
    f = collections.defaultdict(dict)
    for r in rows:
        f[int(r["flow"])][float(r["t_us"])] = float(r["gbps"])
    ts = sorted(f[0])
    bin_us = ts[1] - ts[0]
    end = ts[-1] + bin_us
    if tail_us is None:
        tail_us = (end - join_us) / 2
    alone = [f[0][t] for t in ts if bin_us <= t and t + bin_us <= join_us]
    k = max(1, int(round(2000 / bin_us)))
    after = [t for t in ts if t >= join_us]
    ok = []
    for i in range(0, len(after) - k + 1):
        w = after[i:i + k]
        a = sum(f[0][t] for t in w) / k
        b = sum(f[1].get(t, 0.0) for t in w) / k
        ok.append(max(a, b) > 0 and min(a, b) / max(a, b) >= 0.8)
    conv = None
    for i in range(len(ok) - 1, -1, -1):
        if not ok[i]:
            break
        conv = (after[i] - join_us) / 1000.0
    full = None
    for i in range(0, len(after) - k + 1):
        w = after[i:i + k]
        tot = sum(f[0][t] + f[1].get(t, 0.0) for t in w) / k
        if tot >= 0.95 * (sum(alone) / max(1, len(alone))):
            full = (after[i] - join_us) / 1000.0
            break
    tail = [t for t in ts if t >= end - tail_us]
    f0 = sum(f[0][t] for t in tail) / len(tail)
    f1 = sum(f[1].get(t, 0.0) for t in tail) / len(tail)
    jain = (f0 + f1) ** 2 / (2 * (f0 * f0 + f1 * f1)) if f0 + f1 > 0 else 0.0
    return {"alone": sum(alone) / max(1, len(alone)), "conv_ms": conv, "full_ms": full, "f0": f0, "f1": f1, "jain": jain, "util": f0 + f1}


def main():
    if sys.argv[1] == "--fluid":
        m = metrics(list(csv.DictReader(open(sys.argv[2]))), float(sys.argv[3]), None)
        print(" ".join(f"{k}={v:.3f}" if v is not None else f"{k}=never" for k, v in m.items()))
        return
    d, name, join_us = sys.argv[1], sys.argv[2], float(sys.argv[3])
    tail_us = float(sys.argv[4]) if len(sys.argv) > 4 else None
    per = collections.defaultdict(list)
    seeds = sorted(glob.glob(os.path.join(d, "seed-*", f"{name}-flows.csv")))
    if not seeds:
        sys.exit(f"no {d}/seed-*/{name}-flows.csv")
    for p in seeds:
        runs = collections.defaultdict(list)
        for r in csv.DictReader(open(p)):
            runs[(r["run"], r["transport"], r["point"])].append(r)
        for (_, tr, pt), rows in runs.items():
            per[(tr, pt)].append(metrics(rows, join_us, tail_us))
    keys = ["alone", "conv_ms", "full_ms", "f0", "f1", "jain", "util"]
    print(f"{len(seeds)} seeds; mean ± 95 % CI\n")
    print("| transport | point | " + " | ".join(keys) + " |")
    print("|---|---|" + "---:|" * len(keys))
    for (tr, pt), ms in per.items():
        cells = []
        for k in keys:
            v = [m[k] for m in ms if m[k] is not None]
            miss = len(ms) - len(v)
            if not v:
                cells.append("never")
                continue
            m, h = ci(v)
            cells.append(f"{m:.3f} ± {h:.3f}" + (f" ({miss} never)" if miss else "") if k == "jain" else f"{m:.2f} ± {h:.2f}" + (f" ({miss} never)" if miss else ""))
        print(f"| {tr} | {pt} | " + " | ".join(cells) + " |")


main()
