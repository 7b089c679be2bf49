#!/usr/bin/env python3
"""Mean and 99th-percentile flow completion time over seeds, from `mrnic sim ... --seeds N`.

usage: mean_fct.py DIR NAME [BASELINE]

Reads DIR/seed-*/NAME-fct.csv. Per (point, transport): the mean FCT of every flow of a
seed and its 99th percentile (nearest rank), then mean +- 95 % CI (Student's t) over the
seeds; with BASELINE (a transport name), also each transport's per-seed mean FCT as a
fraction of BASELINE's at the same point and seed ("ratio"; < 1 is faster). A flow that
did not finish makes its seed's values missing.
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


d, name = sys.argv[1], sys.argv[2]
base = sys.argv[3] if len(sys.argv) > 3 else None
files = sorted(glob.glob(os.path.join(d, "seed-*", f"{name}-fct.csv")))
if not files:
    sys.exit(f"no {d}/seed-*/{name}-fct.csv")
mean = collections.defaultdict(dict)  # (point, transport) -> seed -> mean fct
p99 = collections.defaultdict(dict)
order = []
for p in files:
    seed = os.path.basename(os.path.dirname(p))
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(p)):
        k = (r["point"], r["transport"])
        if k not in order:
            order.append(k)
        runs[k].append(float(r["fct_us"]) if r["fct_us"] else None)
    for k, v in runs.items():
        if any(x is None for x in v):
            continue
        v.sort()
        mean[k][seed] = sum(v) / len(v)
        p99[k][seed] = v[min(len(v) - 1, math.ceil(0.99 * len(v)) - 1)]
print(f"{len(files)} seeds; mean ± 95 % CI over seeds\n")
print("| point | transport | mean FCT (µs) | p99 FCT (µs) |" + (f" mean FCT / {base} |" if base else ""))
print("|---|---|---:|---:|" + ("---:|" if base else ""))
for k in order:
    if not mean[k]:
        print(f"| {k[0]} | {k[1]} | unfinished | unfinished |" + (" |" if base else ""))
        continue
    m, h = ci(list(mean[k].values()))
    q, qh = ci(list(p99[k].values()))
    row = f"| {k[0]} | {k[1]} | {m:.1f} ± {h:.1f} | {q:.1f} ± {qh:.1f} |"
    if base:
        b = mean.get((k[0], base), {})
        r = [mean[k][s] / b[s] for s in mean[k] if s in b]
        row += f" {ci(r)[0]:.3f} ± {ci(r)[1]:.3f} |" if r else " |"
    print(row)
