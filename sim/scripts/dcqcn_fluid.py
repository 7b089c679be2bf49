#!/usr/bin/env python3
"""DCQCN fluid model for the two-flow convergence run, beside the packet simulation.

usage: dcqcn_fluid.py [--alpha1] OUT.csv [FLOWS_CSV OUT.svg]

--alpha1: the joining flow starts with alpha = 1 instead (a QP created at the join).

Integrates the DCQCN fluid model (Zhu et al., SIGCOMM 2015, section 5; in the form
restated by Zhu et al., "ECN or Delay", CoNEXT 2016) for the setup of
sim/scenarios/dcqcn_two_flow.toml: N = 2 flows on one 40 Gb/s bottleneck, flow 1 joining
at 10 ms at line rate (both QPs exist from t = 0 with alpha = 1, so both alphas have
decayed to ~0.49 without CNPs by 10 ms, as in the simulator's DCQCN), the paper's parameters (g = 1/256, tau = 50 us CNP
window, tau' = 55 us alpha timer, T = 55 us increase timer, B = 10 MB, F = 5, R_AI = 40
Mb/s, RED marking Kmin 5 KB, Kmax 200 KB, Pmax 1 %) and the feedback delay tau* = the
simulated fabric's base RTT (6.95 us). Per flow, with p = p(q(t - tau*)) and
Rd = Rc(t - tau*) (rates in packets/s):

  a = 1 - (1-p)^(tau Rd)            b = p / ((1-p)^-B - 1)         c = b (1-p)^(F B)
  d = p / ((1-p)^(-T Rd) - 1)       e = d (1-p)^(F T Rd)
  dRc/dt = -Rc alpha a / (2 tau) + (Rt - Rc) Rd (b + d) / 2
  dRt/dt = -(Rt - Rc) a / tau + R_AI Rd (c + e)
  dalpha/dt = g / tau' ((1 - (1-p)^(tau' Rd)) - alpha)
  dq/dt = sum Rc - C (q >= 0)

(p -> 0 limits: a = 0, b = c = 1/B, d = e = 1/(T Rd).) Rates are capped at C. Euler steps
of 0.05 us; written as goodput (1024 payload bytes of a 1106-byte frame) per 500 us bin,
`model,flow,t_us,gbps`. With FLOWS_CSV (a run's NAME-flows.csv) it also writes OUT.svg,
the model beside the simulation's `roce` flows.
"""
import sys

WIRE, PAYLOAD = 1106, 1024
C = 40e9 / (WIRE * 8)
KMIN, KMAX, PMAX = 5000 / WIRE, 200000 / WIRE, 0.01
G, TAU, TAUP, T, B, F = 1 / 256, 50e-6, 55e-6, 55e-6, 10e6 / WIRE, 5
RAI = 40e6 / (WIRE * 8)
TAU_STAR = 6.95e-6
DT = 0.05e-6
JOIN, END, BIN = 10e-3, 100e-3, 500e-6


def mark(q):
    if q <= KMIN:
        return 0.0
    if q <= KMAX:
        return PMAX * (q - KMIN) / (KMAX - KMIN)
    return 1.0


def terms(p, rd):
    if p <= 0.0:
        return 0.0, 1 / B, 1 / B, 1 / (T * rd), 1 / (T * rd)
    if p >= 1.0:
        return 1.0, 0.0, 0.0, 0.0, 0.0
    q1 = 1 - p
    a = 1 - q1 ** (TAU * rd)
    b = p / (q1 ** (-B) - 1)
    c = b * q1 ** (F * B)
    d = p / (q1 ** (-T * rd) - 1)
    e = d * q1 ** (F * T * rd)
    return a, b, c, d, e


def run():
    lag = int(round(TAU_STAR / DT))
    rc, rt, al = [C, 0.0], [C, 0.0], [1.0, 1.0]
    active = [True, False]
    q = 0.0
    hist_q = [0.0] * lag
    hist_rc = [[C] * lag, [0.0] * lag]
    steps = int(round(END / DT))
    per_bin = int(round(BIN / DT))
    acc = [0.0, 0.0]
    out = []
    for k in range(steps):
        t = k * DT
        if not active[1] and t >= JOIN:
            active[1] = True
            rc[1], rt[1] = C, C
            if ALPHA1:
                al[1] = 1.0
            hist_rc[1] = [C] * lag
        i = k % lag
        p = mark(hist_q[i])
        for f in (0, 1):
            if not active[f]:
                # the QP exists from t = 0 (as in the simulator): alpha decays untouched
                al[f] -= G / TAUP * al[f] * DT
                continue
            rd = max(hist_rc[f][i], 1.0)
            a, b, c, d, e = terms(p, rd)
            drc = -rc[f] * al[f] * a / (2 * TAU) + (rt[f] - rc[f]) * rd * (b + d) / 2
            drt = -(rt[f] - rc[f]) * a / TAU + RAI * rd * (c + e)
            dal = G / TAUP * ((1 - (1 - p) ** (TAUP * rd)) - al[f])
            rc[f] = min(C, max(rc[f] + drc * DT, C * 1e-4))
            rt[f] = min(C, max(rt[f] + drt * DT, C * 1e-4))
            al[f] = min(1.0, max(0.0, al[f] + dal * DT))
        total = rc[0] + (rc[1] if active[1] else 0.0)
        # the bottleneck serves at most C; what the flows send beyond it queues
        served = [rc[0], rc[1] if active[1] else 0.0]
        if q <= 0 and total < C:
            q = 0.0
        else:
            q = max(0.0, q + (total - C) * DT)
            if q > 0:
                served = [x * C / total for x in served] if total > 0 else served
        hist_q[i] = q
        hist_rc[0][i] = rc[0]
        hist_rc[1][i] = rc[1] if active[1] else 0.0
        for f in (0, 1):
            acc[f] += served[f] * DT
        if (k + 1) % per_bin == 0:
            t0 = (k + 1 - per_bin) * DT
            for f in (0, 1):
                out.append((f, t0 * 1e6, acc[f] * PAYLOAD * 8 / BIN / 1e9))
            acc = [0.0, 0.0]
    return out


def svg(model, sim, path):
    W, H, L, R, TP, BT = 960, 560, 70, 20, 40, 50
    xmax, ymax = END * 1e3, 42.0
    X = lambda t: L + (W - L - R) * t / xmax
    Y = lambda g: H - BT - (H - BT - TP) * g / ymax
    colors = ["#1f77b4", "#d62728", "#7fb2e0", "#f08a8a"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{W/2}" y="24" text-anchor="middle" font-family="sans-serif" font-size="18">DCQCN two-flow convergence, 40 Gb/s: fluid model vs packet simulation (roce, seed 1)</text>']
    for g in range(0, 41, 10):
        parts.append(f'<line x1="{L}" x2="{W-R}" y1="{Y(g)}" y2="{Y(g)}" stroke="#ddd"/><text x="{L-8}" y="{Y(g)+4}" text-anchor="end" font-family="sans-serif" font-size="12">{g}</text>')
    for t in range(0, 101, 10):
        parts.append(f'<text x="{X(t)}" y="{H-BT+18}" text-anchor="middle" font-family="sans-serif" font-size="12">{t}</text>')
    parts.append(f'<text x="{W/2}" y="{H-10}" text-anchor="middle" font-family="sans-serif" font-size="14">time (ms)</text>')
    parts.append(f'<text x="16" y="{H/2}" transform="rotate(-90 16 {H/2})" text-anchor="middle" font-family="sans-serif" font-size="14">goodput (Gb/s)</text>')
    series = [("model flow 0", model[0], colors[0], "6,4"), ("model flow 1", model[1], colors[1], "6,4"),
              ("simulation flow 0", sim.get(0, []), colors[2], ""), ("simulation flow 1", sim.get(1, []), colors[3], "")]
    for j, (name, pts, col, dash) in enumerate(series):
        if not pts:
            continue
        pl = " ".join(f"{X((t + BIN * 5e5) / 1e3):.1f},{Y(g):.1f}" for t, g in pts)
        da = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<polyline fill="none" stroke="{col}" stroke-width="2"{da} points="{pl}"/>')
        parts.append(f'<line x1="{W-230}" x2="{W-200}" y1="{TP+20+18*j}" y2="{TP+20+18*j}" stroke="{col}" stroke-width="2"{da}/><text x="{W-195}" y="{TP+24+18*j}" font-family="sans-serif" font-size="12">{name}</text>')
    parts.append("</svg>")
    open(path, "w").write("\n".join(parts))


ALPHA1 = "--alpha1" in sys.argv
if ALPHA1:
    sys.argv.remove("--alpha1")


def main():
    out = run()
    with open(sys.argv[1], "w") as fh:
        fh.write("model,flow,t_us,gbps\n")
        for f, t, g in out:
            fh.write(f"fluid,{f},{t:.0f},{g:.3f}\n")
    if len(sys.argv) > 3:
        import csv
        sim = {}
        for r in csv.DictReader(open(sys.argv[2])):
            if r["transport"] == "roce":
                sim.setdefault(int(r["flow"]), []).append((float(r["t_us"]), float(r["gbps"])))
        model = {f: [(t, g) for ff, t, g in out if ff == f] for f in (0, 1)}
        svg(model, sim, sys.argv[3])


main()
