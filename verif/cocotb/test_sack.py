"""cocotb tests of the SACK bitmap engine's generated Verilog (module `top`, sack_engine.v).

Run through pytest (verif/cocotb/test_cocotb_sack.py), which generates the Verilog and the
golden-model vectors and points this module at them with the SACK_VECTORS environment variable.

Semantics under test (the golden model, model/src/sack.rs, is the reference)
---------------------------------------------------------------------------
Per connection the engine keeps a 24-bit base PSN and a W-bit bitmap (W = window). For a data
packet (conn, psn), with d = (psn - base) mod 2^24:
  * d >= 2^23 (behind the base)  -> class 1 duplicate, nothing changes;
  * d >= W                       -> class 2 out of window, nothing changes;
  * bitmap bit d already set     -> class 1 duplicate, nothing changes;
  * otherwise                    -> class 0 new: bit d is set, then the base advances over the
                                    run of received PSNs starting at the base (bit 0 is always
                                    0 afterwards).
A clear (s_clear=1) sets base = psn and empties the bitmap -> class 3 cleared.
Every operation produces one output beat LATENCY cycles after its input transfer (the
manifest's "latency", passed in SACK_LATENCY; 4 since the RAM-read stage), carrying
m_conn, m_psn (the input's), m_class, m_base (base after the operation) and m_bitmap
(bit i = PSN m_base + i received). stat_new/duplicate/out_of_window/cleared count the beats
as they reach the output register. s_ready = !rst && !(m_valid && !m_ready) (combinational);
a beat held by m_ready=0 stalls the whole pipeline. rst clears the pipeline and the counters,
not the per-connection state (RAM); the RAM powers up zeroed (base 0, empty bitmap).

Cycle convention (same as the vectors): inputs are applied after the previous rising edge (we
use the falling edge), outputs are sampled in the same cycle once settled (1 ns later, in the
ReadOnly phase), before the next rising edge.
"""

from __future__ import annotations

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, Timer

PSN_MASK = (1 << 24) - 1
PSN_HALF = 1 << 23
CLOCK_NS = 10
# Input transfer to output beat, in cycles: from the manifest (set by the pytest driver).
LATENCY = int(os.environ.get("SACK_LATENCY", "0"))
CLASS_NAMES = {0: "new", 1: "duplicate", 2: "out_of_window", 3: "cleared"}
INPUTS = ("rst", "s_valid", "s_conn", "s_psn", "s_clear", "m_ready")
PAYLOAD = ("conn", "psn", "class", "base", "bitmap")
STATS = ("stat_new", "stat_duplicate", "stat_out_of_window", "stat_cleared")


# ----------------------------------------------------------------------------- helpers


def read(handle) -> int | str:
    """The value of a port as an int, or its string (e.g. with X/Z bits) if it does not resolve."""
    v = handle.value
    if not v.is_resolvable:
        return str(v)
    return v.to_unsigned() if hasattr(v, "to_unsigned") else int(v)


def fmt(v: int | str | None, width: int = 0) -> str:
    if v is None or isinstance(v, str):
        return str(v)
    digits = max(1, (width + 3) // 4) if width else 1
    return f"0x{v:0{digits}x}"


def drive(dut, inputs: dict) -> None:
    """Drive the input ports, truncated to the port widths (what the hardware sees)."""
    for name in INPUTS:
        h = getattr(dut, name)
        h.value = int(inputs.get(name, 0)) & ((1 << len(h)) - 1)


def start_clock(dut) -> None:
    """Clock low now, first rising edge half a period later (no x->1 edge at time 0)."""
    dut.clock.value = 0
    Clock(dut.clock, CLOCK_NS, unit="ns").start(start_high=False)


def power_up_rams(dut) -> None:
    """Zero the per-connection RAMs (base and bitmap), as FPGA block RAM powers up.

    The golden model starts every connection at base 0 with an empty bitmap. The generated
    RAM modules (`reg [..] mem[..]`) have no initial block, so a 4-state simulator (Icarus)
    starts them at X; Verilator starts them at 0. Writing zeros here makes both match the
    model. Logged, so a run shows what the simulator had before.
    """
    for ram in ("ram_base", "ram_bitmap"):
        mem = getattr(dut, ram).mem
        words = list(mem)
        unknown = sum(1 for w in words if not w.value.is_resolvable)
        for w in words:
            w.value = 0
        dut._log.info("%s.mem: %d words zeroed (%d were X/Z at power-up)", ram, len(words), unknown)


async def settle() -> None:
    """Let the inputs written at the falling edge propagate, then sample (read-only phase)."""
    await Timer(1, unit="ns")
    await ReadOnly()


# ----------------------------------------------------------------------- vector test


@cocotb.test()
async def golden_vectors(dut):
    """Drive the golden model's cycle-by-cycle vectors and compare every output, every cycle."""
    path = os.environ.get("SACK_VECTORS")
    assert path, "set SACK_VECTORS to a vectors JSON file (mrnic-gen vectors ...)"
    with open(path) as f:
        doc = json.load(f)
    cycles = doc["cycles"]
    window = int(doc["config"]["sack"]["window"])
    assert len(dut.m_bitmap) == window, f"m_bitmap is {len(dut.m_bitmap)} bits, vectors say window {window}"
    assert int(doc["latency"]) == LATENCY, f"vectors latency {doc['latency']} != SACK_LATENCY {LATENCY} (manifest)"
    widths = {"conn": len(dut.m_conn), "psn": 24, "class": 2, "base": 24, "bitmap": window}
    dut._log.info("%s: %d cycles, preset %s, seed %s", path, len(cycles), doc["config"].get("name"), doc.get("seed"))

    power_up_rams(dut)
    # Handles and port masks looked up once: the loop below is Python-bound.
    in_h = [(name, getattr(dut, name), (1 << len(getattr(dut, name))) - 1) for name in INPUTS]
    s_ready_h, m_valid_h = dut.s_ready, dut.m_valid
    stat_h = [(name, getattr(dut, name)) for name in STATS]
    pay_h = [(field, getattr(dut, "m_" + field)) for field in PAYLOAD]
    last_in: dict[str, int] = {}

    def apply(inputs: dict) -> None:
        for name, h, mask in in_h:
            v = int(inputs.get(name, 0)) & mask
            if last_in.get(name) != v:
                h.value = v
                last_in[name] = v

    apply(cycles[0]["in"] if cycles else {})
    start_clock(dut)
    t0 = time.perf_counter()
    beats = 0
    for idx, cyc in enumerate(cycles):
        if idx:
            await FallingEdge(dut.clock)
            apply(cyc["in"])
        await settle()

        exp = cyc["out"]
        exp_m = exp["m"]
        mismatches = []  # (signal, expected, actual, width)

        def check(name, want, got, width):
            if want != got:
                mismatches.append((name, want, got, width))

        check("s_ready", int(exp["s_ready"]), read(s_ready_h), 1)
        m_valid = read(m_valid_h)
        check("m_valid", int(exp_m is not None), m_valid, 1)
        for (name, h), want in zip(stat_h, exp["stats"]):
            check(name, int(want), read(h), 32)
        if exp_m is not None and m_valid == 1:
            beats += 1
            for field, h in pay_h:
                want = int(exp_m[field], 16) if field == "bitmap" else int(exp_m[field])
                check("m_" + field, want, read(h), widths[field])

        if mismatches:
            lines = [f"cycle {idx} (t={idx * CLOCK_NS} ns from the first cycle): {len(mismatches)} output(s) differ from the golden model"]
            lines.append("  inputs: " + ", ".join(f"{k}={fmt(cyc['in'].get(k, 0))}" for k in INPUTS))
            for k in range(max(0, idx - 3), idx):
                lines.append(f"  inputs of cycle {k}: " + ", ".join(f"{n}={fmt(cycles[k]['in'].get(n, 0))}" for n in INPUTS))
            for name, want, got, width in mismatches:
                lines.append(f"  {name}: expected {fmt(want, width)} actual {fmt(got, width)}")
                if isinstance(want, int) and isinstance(got, int) and width > 32:
                    diff = want ^ got
                    bits = [i for i in range(width) if diff >> i & 1]
                    lines.append(f"    differing bit positions: {bits[:16]}{' ...' if len(bits) > 16 else ''}")
            raise AssertionError("\n".join(lines))

    dt = time.perf_counter() - t0
    dut._log.info("%d cycles, %d output beats compared, all equal (%.1f s, %.0f cycles/s)",
                  len(cycles), beats, dt, len(cycles) / dt if dt else 0.0)


# ---------------------------------------------------------------------- directed test


class Ref:
    """The documented semantics, written out again in Python for the directed test."""

    def __init__(self, window: int):
        self.window = window
        self.state: dict[int, tuple[int, set[int]]] = {}  # conn -> (base, received offsets)

    def apply(self, conn: int, psn: int, clear: bool = False) -> tuple[int, int, set[int]]:
        """Returns (class, new base, set of received offsets relative to the new base)."""
        base, got = self.state.get(conn, (0, set()))
        psn &= PSN_MASK
        if clear:
            base, got, cls = psn, set(), 3
        else:
            d = (psn - base) & PSN_MASK
            if d >= PSN_HALF:
                cls = 1
            elif d >= self.window:
                cls = 2
            elif d in got:
                cls = 1
            else:
                cls = 0
                got = got | {d}
                run = 0
                while run in got:
                    run += 1
                base = (base + run) & PSN_MASK
                got = {i - run for i in got if i >= run}
        self.state[conn] = (base, got)
        return cls, base, set(got)


def bitmap_of(offsets: set[int]) -> int:
    return sum(1 << i for i in offsets)


async def run_ops(dut, ops, m_ready_pattern=None):
    """Offer `ops` (conn, psn, clear) one per transfer; return the output beats in order.

    Each beat is (conn, psn, class, base, bitmap). Also checks the cycle-level contract:
    s_ready == !(m_valid && !m_ready); with m_ready always high, every beat comes out exactly
    LATENCY cycles after its transfer; no extra beat follows the last one.
    """
    pending = list(ops)
    beats, transfer_cycle = [], []
    cyc = 0
    extra = 0
    while len(beats) < len(ops) or extra < LATENCY + 2:
        await FallingEdge(dut.clock)
        m_ready = 1 if m_ready_pattern is None else m_ready_pattern(cyc)
        op = pending[0] if pending else None
        drive(dut, {"rst": 0, "s_valid": int(op is not None), "s_conn": op[0] if op else 0,
                    "s_psn": op[1] if op else 0, "s_clear": int(op[2]) if op else 0, "m_ready": m_ready})
        await settle()
        m_valid = read(dut.m_valid)
        s_ready = read(dut.s_ready)
        assert s_ready == int(not (m_valid == 1 and not m_ready)), \
            f"cycle {cyc}: s_ready={s_ready} with m_valid={m_valid} m_ready={m_ready}"
        if m_valid == 1 and m_ready:
            assert len(beats) < len(ops), f"cycle {cyc}: an output beat with no operation left"
            if m_ready_pattern is None:
                lat = cyc - transfer_cycle[len(beats)]
                assert lat == LATENCY, f"beat {len(beats)}: latency {lat}, expected {LATENCY}"
            beats.append(tuple(read(getattr(dut, "m_" + f)) for f in PAYLOAD))
        if op is not None and s_ready == 1:
            pending.pop(0)
            transfer_cycle.append(cyc)
        if len(beats) == len(ops):
            extra += 1
        cyc += 1
        assert cyc < 4 * len(ops) + 20, f"only {len(beats)} of {len(ops)} beats after {cyc} cycles"
    return beats


async def reset(dut, cycles: int = 2):
    for _ in range(cycles):
        await FallingEdge(dut.clock)
        drive(dut, {"rst": 1, "m_ready": 1})
        await settle()
        assert read(dut.s_ready) == 0, "s_ready must be low during rst"
    await FallingEdge(dut.clock)
    drive(dut, {"m_ready": 1})
    await settle()
    assert read(dut.m_valid) == 0, "m_valid after rst"
    for s in STATS:
        assert read(getattr(dut, s)) == 0, f"{s} after rst"


@cocotb.test()
async def directed_semantics(dut):
    """Readable scenarios: in order, gap then fill, duplicate, out of window, clear, backpressure."""
    window = len(dut.m_bitmap)
    assert LATENCY > 0, "set SACK_LATENCY to the manifest's latency"
    start_clock(dut)
    await reset(dut)  # the vector test may have left the pipeline and counters busy
    ref = Ref(window)
    # rst does not clear the RAM: make the reference agree by clearing every connection we use.
    C, D = 1, 2
    expected_stats = [0, 0, 0, 0]
    checked = 0

    async def scenario(title, ops, expect, m_ready_pattern=None):
        """ops: (conn, psn, clear); expect: per op (class, base, offsets) or None to use Ref only."""
        nonlocal checked
        beats = await run_ops(dut, ops, m_ready_pattern)
        assert len(beats) == len(ops), f"{title}: {len(ops)} ops but {len(beats)} beats"
        for k, ((conn, psn, clear), beat, want) in enumerate(zip(ops, beats, expect)):
            cls, base, offs = ref.apply(conn, psn, clear)
            if want is not None:  # the hand-written expectation must agree with the reference
                assert (cls, base, offs) == (want[0], want[1] & PSN_MASK, set(want[2])), \
                    f"{title} op {k}: test bug, hand expectation {want} != reference {(cls, base, sorted(offs))}"
            got = dict(zip(PAYLOAD, beat))
            exp = {"conn": conn, "psn": psn & PSN_MASK, "class": cls, "base": base, "bitmap": bitmap_of(offs)}
            if got != exp:
                diff = {f: (fmt(exp[f]), fmt(got[f])) for f in PAYLOAD if exp[f] != got[f]}
                raise AssertionError(f"{title} op {k} (conn={conn} psn={fmt(psn)} clear={int(clear)}): "
                                     f"{CLASS_NAMES.get(cls)} expected; differing fields (expected, actual): {diff}")
            expected_stats[cls] += 1
            checked += 1
        stats = [read(getattr(dut, s)) for s in STATS]
        assert stats == expected_stats, f"{title}: stats {stats} expected {expected_stats}"
        dut._log.info("%s: %d beats ok", title, len(ops))

    # 1. Setup: clear two connections (class 3).
    await scenario("clear", [(C, 0, True), (D, 0x1000, True)],
                   [(3, 0, []), (3, 0x1000, [])])

    # 2. In-order packets on one connection: m_base advances by one each, bitmap stays empty.
    await scenario("in order", [(C, p, False) for p in range(8)],
                   [(0, p + 1, []) for p in range(8)])

    # 3. A gap: 10, 11, 13 arrive before 8 and 9. The base holds at 8; bits 2, 3, 5 are set.
    #    Then 8 arrives (base 9, bits 1, 2, 4) and 9 fills the gap: the base runs over 9..11 to 12
    #    and only 13 is left (bit 1).
    await scenario("gap then fill",
                   [(C, 10, False), (C, 11, False), (C, 13, False), (C, 8, False), (C, 9, False)],
                   [(0, 8, [2]), (0, 8, [2, 3]), (0, 8, [2, 3, 5]), (0, 9, [1, 2, 4]), (0, 12, [1])])

    # 4. Duplicates (class 1): a PSN already set in the bitmap, one behind the base, and one
    #    half the PSN space away (d >= 2^23 counts as behind). Nothing changes.
    await scenario("duplicate",
                   [(C, 13, False), (C, 5, False), (C, 12 + PSN_HALF, False)],
                   [(1, 12, [1]), (1, 12, [1]), (1, 12, [1])])

    # 5. Out of window (class 2): d == window and d == 2^23 - 1. Nothing changes.
    #    The last slot of the window (d = window - 1) is still new.
    await scenario("out of window",
                   [(C, 12 + window, False), (C, 12 + PSN_HALF - 1, False), (C, 12 + window - 1, False)],
                   [(2, 12, [1]), (2, 12, [1]), (0, 12, [1, window - 1])])

    # 6. Clear (class 3) near the top of the PSN space empties the bitmap; then in-order
    #    packets wrap the base through 2^24 -> 0.
    top = PSN_MASK - 1
    await scenario("clear and wrap",
                   [(C, top, True), (C, top, False), (C, top + 1, False), (C, top + 3, False), (C, top + 2, False)],
                   [(3, top, []), (0, top + 1, []), (0, 0, []), (0, 0, [1]), (0, 2, [])])

    # 7. Connections are independent: D still has base 0x1000 whatever C did.
    await scenario("independent connections",
                   [(D, 0x1001, False), (C, 2, False), (D, 0x1000, False)],
                   [(0, 0x1000, [1]), (0, 3, []), (0, 0x1002, [])])

    # 8. Backpressure: with m_ready low on some cycles the beat holds, s_ready drops, and no
    #    operation is lost or repeated (checked by comparing every beat with the reference).
    await scenario("backpressure", [(D, 0x1002 + k, False) for k in range(10)], [None] * 10,
                   m_ready_pattern=lambda c: int(c % 3 != 1))

    # 9. A full window: every PSN of the window except the base, then the base: base jumps by W.
    ops = [(D, 0x100C + k, False) for k in range(1, window)] + [(D, 0x100C, False)]
    await scenario("full window", ops, [None] * (window - 1) + [(0, 0x100C + window, [])])

    dut._log.info("directed: %d beats checked, stats %s", checked, expected_stats)
