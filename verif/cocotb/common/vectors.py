"""Replay of `mrnic vectors` (JSON Lines) against a block's generated Verilog.

Line 1 is the header (block, module, config, seed, cycles, latency, ports, streams,
convention); every further line is one clock cycle: `{"in": {port: value}, "out": {port:
value}}`, values as numbers or "0x..." hex strings (ports wider than 64 bits). Per cycle the
inputs are driven at the falling edge and every output is sampled once settled, before the
next rising edge, and compared: every output every cycle, except the payload of an output
stream, which is compared only when the expected valid is 1 (the vectors omit it otherwise).
X/Z on a compared output is a mismatch. The header's optional `settle` (default 0) is the number of
first cycles whose outputs are not compared (power-up state before the first reset edge). The first mismatching cycle fails with the cycle index,
that cycle's and the three previous cycles' inputs, and each differing output (expected,
actual, and the differing bit positions of a port wider than 32 bits).

The file is read line by line: memory does not grow with its length.

`read_transfers` reads vectors without random resets (`mrnic vectors --no-resets`) for the
randomized tests that offer the model's operations again with their own timing: the input
transfers the model took after the prologue's reset, in order, cut after the last one whose
result the file has; the results in order; the outputs of the last result's cycle.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from typing import NamedTuple

from .tb import CLOCK_NS, fmt, next_cycle, read, settle, start_clock


def read_header(path: str) -> dict:
    with open(path) as f:
        first = f.readline()
    try:
        h = json.loads(first)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: line 1 is not a JSON header ({e}); regenerate it with `mrnic vectors`") from e
    for key in ("block", "ports", "streams", "latency", "cycles"):
        if key not in h:
            raise ValueError(f"{path}: the header lacks {key!r} (an old vectors format?); regenerate it with `mrnic vectors`")
    return h


class Transfers(NamedTuple):
    """What `read_transfers` returns."""

    header: dict
    taken: list[tuple[str, dict]]  # (input stream, payload) in order
    results: list[dict]  # the result stream's payloads in order
    last: dict | None  # the outputs of the cycle of the last result's transfer (None: no result)

    def of(self, stream: str) -> list[dict]:
        """The payloads of `stream`'s transfers in `taken`, in order."""
        return [p for n, p in self.taken if n == stream]


def read_transfers(path: str, *, inputs: tuple[str, ...] = ("s",), result: str = "m", op: str = "s",
                   extra: dict[str, tuple[str, ...]] | None = None, on_cycle=None) -> Transfers:
    """The stream transfers of the vectors at `path` (without random resets).

    `inputs`: the input streams collected into `taken`, a cycle's transfers in the order of
    `inputs`, each payload the stream's payload ports plus `extra[stream]` (other input ports
    that travel with it, e.g. `{"s": ("now",)}`). `result`: the output stream whose transfers
    are the results. Each transfer of the input stream `op` has exactly one result, in order:
    `taken` is cut after the op of the last result (ops still in the pipeline at the end of the
    file have no result there). Reset cycles collect nothing, and a reset after the first
    transfer collected fails (vectors with random resets). `last` holds the counters that
    include exactly the results up to the last one. `on_cycle(i, o, names)`, if given, is
    called every cycle, reset cycles included, with its inputs, outputs and the names of the
    streams (`inputs`, `result`) with a transfer in it, for a block's own bookkeeping.
    """
    header = read_header(path)
    st = {s["name"]: s for s in header["streams"]}
    extra = extra or {}
    ins = [(n, st[n]["valid"], st[n]["ready"], [*st[n]["payload"], *extra.get(n, ())]) for n in inputs]
    m_valid, m_ready, m_fields = st[result]["valid"], st[result]["ready"], st[result]["payload"]
    taken, results, op_end = [], [], []  # op_end[k]: len(taken) after op k
    last = None
    with open(path) as f:
        f.readline()
        for line in f:
            c = json.loads(line)
            i, o = c["in"], c["out"]
            names = []
            if i["rst"]:
                assert not taken, "a reset after the prologue: generate these vectors with --no-resets"
            else:
                for n, valid, ready, fields in ins:
                    if i[valid] and o[ready]:
                        taken.append((n, {k: i[k] for k in fields}))
                        names.append(n)
                        if n == op:
                            op_end.append(len(taken))
                if o[m_valid] and i[m_ready]:
                    results.append({k: o[k] for k in m_fields})
                    names.append(result)
                    last = o
            if on_cycle is not None:
                on_cycle(i, o, names)
    assert len(results) <= len(op_end), f"{path}: {len(results)} results, {len(op_end)} transfers on {op}"
    return Transfers(header, taken[:op_end[len(results) - 1] if results else 0], results, last)


def _value(v) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


def check_ports(dut, header: dict) -> None:
    """Every port of the header exists in the DUT with the header's width."""
    bad = []
    for p in header["ports"]:
        h = getattr(dut, p["name"], None)
        if h is None:
            bad.append(f"{p['name']}: missing in the simulated module")
        elif len(h) != int(p["width"]):
            bad.append(f"{p['name']}: {len(h)} bits in the simulated module, {p['width']} in the vectors")
    if bad:
        raise AssertionError("the vectors do not fit the simulated module:\n  " + "\n  ".join(bad))


async def replay(dut, path: str, *, latency: int | None = None, before_clock=None, clock: str = "clock") -> dict:
    """Drive the vectors at `path` into `dut` and compare every output every cycle.

    `latency` (the manifest's) must equal the header's. `before_clock(dut)` runs once after
    the first cycle's inputs are applied and before the clock starts (e.g. memory power-up).
    Returns {"cycles", "beats" (output-stream transfers compared), "seconds"}.
    """
    header = read_header(path)
    if latency is not None and int(header["latency"]) != int(latency):
        raise AssertionError(f"{path}: latency {header['latency']}, the manifest says {latency}")
    check_ports(dut, header)
    settle_cycles = int(header.get("settle", 0))
    widths = {p["name"]: int(p["width"]) for p in header["ports"]}
    inputs = [p["name"] for p in header["ports"] if p["direction"] == "input" and p["name"] != clock]
    outputs = [p["name"] for p in header["ports"] if p["direction"] == "output"]
    gated = {}  # payload output -> its stream's valid
    out_streams = [s for s in header["streams"] if s["dir"] == "output"]
    for s in out_streams:
        for n in s["payload"]:
            gated[n] = s["valid"]
    always = [n for n in outputs if n not in gated]
    # Handles and masks looked up once: the loop below is Python-bound.
    in_h = [(n, getattr(dut, n), (1 << widths[n]) - 1) for n in inputs]
    always_h = [(n, getattr(dut, n)) for n in always]
    gated_h = {s["valid"]: [(n, getattr(dut, n)) for n in s["payload"]] for s in out_streams}
    last_in: dict[str, int] = {}
    recent: deque = deque(maxlen=4)

    def apply(cyc_in: dict) -> None:
        for n, h, m in in_h:
            v = _value(cyc_in[n]) & m
            if last_in.get(n) != v:
                h.value = v
                last_in[n] = v

    dut._log.info("%s: %s cycles of block %s, preset %s, seed %s", path, header["cycles"], header["block"],
                  header.get("config", {}).get("name"), header.get("seed"))
    t0 = time.perf_counter()
    idx = -1
    beats = 0
    with open(path) as f:
        f.readline()
        for idx, line in enumerate(f):
            cyc = json.loads(line)
            cin, exp = cyc["in"], cyc["out"]
            missing = [n for n in inputs if n not in cin] + [n for n in always if n not in exp]
            if missing:
                raise AssertionError(f"{path}: cycle {idx} lacks port(s) {missing}")
            recent.append(cin)
            if idx == 0:
                apply(cin)
                if before_clock is not None:
                    before_clock(dut)
                start_clock(dut, clock)
            else:
                await next_cycle(dut, clock)
                apply(cin)
            await settle()
            if idx < settle_cycles:
                continue

            mismatches = []
            for n, h in always_h:
                want, got = _value(exp[n]), read(h)
                if want != got:
                    mismatches.append((n, want, got))
            for valid, fields in gated_h.items():
                if _value(exp[valid]) != 1:
                    continue
                beats += 1
                for n, h in fields:
                    if n not in exp:
                        raise AssertionError(f"{path}: cycle {idx}: {valid} = 1 but {n} is missing")
                    want, got = _value(exp[n]), read(h)
                    if want != got:
                        mismatches.append((n, want, got))
            if mismatches:
                raise AssertionError(_report(idx, recent, inputs, mismatches, widths))
    if idx + 1 != int(header["cycles"]):
        raise AssertionError(f"{path}: the header says {header['cycles']} cycles, the file has {idx + 1} (truncated?)")
    dt = time.perf_counter() - t0
    dut._log.info("%d cycles (the first %d not compared: settle), %d output beats compared, all equal (%.1f s, %.0f cycles/s)",
                  idx + 1, settle_cycles, beats, dt, (idx + 1) / dt if dt else 0.0)
    return {"cycles": idx + 1, "beats": beats, "seconds": dt, "settle": settle_cycles}


def _report(idx: int, recent, inputs, mismatches, widths) -> str:
    lines = [f"cycle {idx} (t={idx * CLOCK_NS} ns from the first cycle): {len(mismatches)} output(s) differ from the golden model"]
    hist = list(recent)
    lines.append("  inputs: " + ", ".join(f"{n}={fmt(_value(hist[-1][n]))}" for n in inputs))
    for k, cin in enumerate(hist[:-1]):
        lines.append(f"  inputs of cycle {idx - len(hist) + 1 + k}: " + ", ".join(f"{n}={fmt(_value(cin[n]))}" for n in inputs))
    for n, want, got in mismatches:
        w = widths[n]
        lines.append(f"  {n}: expected {fmt(want, w)} actual {fmt(got, w)}")
        if isinstance(got, int) and w > 32:
            diff = want ^ got
            bits = [i for i in range(w) if diff >> i & 1]
            lines.append(f"    differing bit positions: {bits[:16]}{' ...' if len(bits) > 16 else ''}")
    return "\n".join(lines)


async def replay_block_vectors(dut, block: str, latency: int, what: str = "result") -> dict:
    """`replay` of the file MRNIC_VECTORS, which must be `mrnic vectors --block BLOCK` output;
    fails if it compared no `what` (a result beat)."""
    path = os.environ.get("MRNIC_VECTORS")
    assert path, f"set MRNIC_VECTORS to a `mrnic vectors --block {block}` file"
    h = read_header(path)
    assert h["block"] == block, f"{path} is for block {h['block']}"
    r = await replay(dut, path, latency=latency)
    assert r["beats"] > 0, f"the vectors compared no {what}"
    return r
