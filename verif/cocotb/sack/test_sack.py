"""cocotb tests of the SACK bitmap engine's generated Verilog (block `sack`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog and the
golden-model vectors and points this module at them through the environment:
MRNIC_VECTORS (the `mrnic vectors` file), MRNIC_LATENCY (the manifest's latency),
MRNIC_CONNECTIONS (the manifest's parameter), MRNIC_SEED and MRNIC_RANDOM_OPS (the randomized
test's seed and operation count).

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
A data packet with s_commit=0 is classified exactly as above but not recorded: base and bitmap
do not change, and the beat shows that unchanged state (the receiver's classify-then-commit
interface). A clear (s_clear=1) sets base = psn and empties the bitmap -> class 3 cleared,
whatever s_commit.
Every operation produces one output beat LATENCY cycles after its input transfer (the
manifest's latency, MRNIC_LATENCY: never assumed here), carrying m_conn, m_psn (the input's), m_class, m_base (base after the
operation) and m_bitmap (bit i = PSN m_base + i received). stat_new/duplicate/out_of_window/
cleared count the beats as they reach the output register. s_ready = !rst && !(m_valid &&
!m_ready) (combinational); a beat held by m_ready=0 stalls the whole pipeline. rst clears the
pipeline and the counters, not the per-connection state (RAM); the RAM powers up zeroed (base 0,
empty bitmap).

Tests
-----
* `vector_replay`: the golden model's cycle-by-cycle vectors, every output every cycle
  (common/vectors.py).
* `directed_semantics`: readable scenarios with hand-written expectations, each also checked
  against `Ref` (below), with the exact latency.
* `random_backpressure`: a seeded random operation mix driven through the stream source with
  idle phases, the output drained through a sink with backpressure phases (random, patterns,
  long stalls); every beat compared in order with `Ref` by the scoreboard, the handshake rules
  and s_ready's equation checked every cycle, the counters checked at the end.
"""

from __future__ import annotations

import os
import random

import cocotb

from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSink, StreamSource, check_ready_equation, default_backpressure,
                           default_idle, run_until_drained)
from common.tb import drive, fmt, next_cycle, read, reset, settle, start_clock, zero_memories
from common.vectors import read_header, replay

PSN_MASK = (1 << 24) - 1
PSN_HALF = 1 << 23
LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
CLASS_NAMES = {0: "new", 1: "duplicate", 2: "out_of_window", 3: "cleared"}
INPUTS = ("rst", "s_valid", "s_conn", "s_psn", "s_clear", "s_commit", "m_ready")
PAYLOAD = ("m_conn", "m_psn", "m_class", "m_base", "m_bitmap")
STATS = ("stat_new", "stat_duplicate", "stat_out_of_window", "stat_cleared")
RAMS = ["ram_base.mem", "ram_par.mem"]
IDLE = {"rst": 0, "s_valid": 0, "s_conn": 0, "s_psn": 0, "s_clear": 0, "s_commit": 1, "m_ready": 1}


class Ref:
    """The documented semantics, written out again in Python (the reference of the directed and
    the randomized tests)."""

    def __init__(self, window: int):
        self.window = window
        self.state: dict[int, tuple[int, set[int]]] = {}  # conn -> (base, received offsets)

    def apply(self, conn: int, psn: int, clear: bool = False, commit: bool = True) -> tuple[int, int, set[int]]:
        """Returns (class, new base, set of received offsets relative to the new base). An
        uncommitted data packet (commit False) is classified but changes nothing."""
        base, got = self.state.get(conn, (0, set()))
        psn &= PSN_MASK
        if not clear and not commit:
            d = (psn - base) & PSN_MASK
            cls = 1 if d >= PSN_HALF else 2 if d >= self.window else 1 if d in got else 0
            return cls, base, set(got)
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

    def beat(self, conn: int, psn: int, clear: bool, commit: bool = True) -> dict:
        cls, base, offs = self.apply(conn, psn, clear, commit)
        return {"m_conn": conn, "m_psn": psn & PSN_MASK, "m_class": cls, "m_base": base,
                "m_bitmap": bitmap_of(offs)}


def bitmap_of(offsets: set[int]) -> int:
    return sum(1 << i for i in offsets)


def widths(dut) -> dict[str, int]:
    return {n: len(getattr(dut, n)) for n in PAYLOAD + STATS}


async def sack_reset(dut) -> None:
    """rst for two cycles: s_ready low during it; m_valid and the counters 0 after it."""
    def during(d):
        assert read(d.s_ready) == 0, "s_ready must be low during rst"

    await reset(dut, cycles=2, idle=IDLE, during=during)
    assert read(dut.m_valid) == 0, "m_valid after rst"
    for s in STATS:
        assert read(getattr(dut, s)) == 0, f"{s} after rst"


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle."""
    path = os.environ.get("MRNIC_VECTORS")
    assert path, "set MRNIC_VECTORS to a `mrnic vectors` file"
    window = int(read_header(path)["config"]["sack"]["window"])
    assert len(dut.m_bitmap) == window, f"m_bitmap is {len(dut.m_bitmap)} bits, the vectors' window is {window}"
    # The golden model assumes the RAM powers up zeroed (as FPGA block RAM does); Icarus starts it at X.
    await replay(dut, path, latency=LATENCY, before_clock=lambda d: zero_memories(d, RAMS))


# ---------------------------------------------------------------------- directed test


def full_op(op) -> tuple[int, int, bool, bool]:
    """(conn, psn, clear) or (conn, psn, clear, commit) -> (conn, psn, clear, commit)."""
    return tuple(op) if len(op) == 4 else (*op, True)


async def run_ops(dut, ops, m_ready_pattern=None):
    """Offer `ops` (conn, psn, clear[, commit]) one per transfer; return the output beats (dicts)
    in order.

    Also checks the cycle-level contract: s_ready == !(m_valid && !m_ready); with m_ready
    always high, every beat comes out exactly LATENCY cycles after its transfer; no extra beat
    follows the last one.
    """
    pending = [full_op(op) for op in ops]
    beats, transfer_cycle = [], []
    cyc = 0
    extra = 0
    while len(beats) < len(ops) or extra < LATENCY + 2:
        await next_cycle(dut)
        m_ready = 1 if m_ready_pattern is None else m_ready_pattern(cyc)
        op = pending[0] if pending else None
        drive(dut, {"rst": 0, "s_valid": int(op is not None), "s_conn": op[0] if op else 0,
                    "s_psn": op[1] if op else 0, "s_clear": int(op[2]) if op else 0,
                    "s_commit": int(op[3]) if op else 1, "m_ready": m_ready})
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
            beats.append({f: read(getattr(dut, f)) for f in PAYLOAD})
        if op is not None and s_ready == 1:
            pending.pop(0)
            transfer_cycle.append(cyc)
        if len(beats) == len(ops):
            extra += 1
        cyc += 1
        assert cyc < 4 * len(ops) + 4 * LATENCY + 20, f"only {len(beats)} of {len(ops)} beats after {cyc} cycles"
    return beats


@cocotb.test()
async def directed_semantics(dut):
    """Readable scenarios: in order, gap then fill, duplicate, out of window, clear, backpressure,
    full window, uncommitted packets."""
    window = len(dut.m_bitmap)
    assert LATENCY > 0, "set MRNIC_LATENCY to the manifest's latency"
    start_clock(dut)
    await sack_reset(dut)  # the vector test may have left the pipeline and counters busy
    ref = Ref(window)
    # rst does not clear the RAM: make the reference agree by clearing every connection we use.
    C, D = 1, 2
    expected_stats = [0, 0, 0, 0]
    checked = 0

    async def scenario(title, ops, expect, m_ready_pattern=None):
        """ops: (conn, psn, clear[, commit]); expect: per op (class, base, offsets) or None to use
        Ref only."""
        nonlocal checked
        beats = await run_ops(dut, ops, m_ready_pattern)
        assert len(beats) == len(ops), f"{title}: {len(ops)} ops but {len(beats)} beats"
        for k, (op, got, want) in enumerate(zip(ops, beats, expect)):
            conn, psn, clear, commit = full_op(op)
            exp = ref.beat(conn, psn, clear, commit)
            if want is not None:  # the hand-written expectation must agree with the reference
                hand = (want[0], want[1] & PSN_MASK, bitmap_of(set(want[2])))
                assert hand == (exp["m_class"], exp["m_base"], exp["m_bitmap"]), \
                    f"{title} op {k}: test bug, hand expectation {want} != reference {exp}"
            if got != exp:
                diff = {f: (fmt(exp[f]), fmt(got[f])) for f in PAYLOAD if exp[f] != got[f]}
                raise AssertionError(f"{title} op {k} (conn={conn} psn={fmt(psn)} clear={int(clear)} commit={int(commit)}): "
                                     f"{CLASS_NAMES.get(exp['m_class'])} expected; differing fields (expected, actual): {diff}")
            expected_stats[exp["m_class"]] += 1
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

    # 10. Uncommitted packets (s_commit = 0): classified, never recorded. C's base is 3 here.
    #     4 arrives (bit 1); 3, the base, arrives uncommitted twice: new each time, and base
    #     and bitmap are unchanged (a committed 3 would run the base to 5); the same packet
    #     committed, back to back, advances it. Then an uncommitted duplicate, an uncommitted
    #     new 6 (not recorded: 6 committed is new again), and an uncommitted clear (applies).
    await scenario("uncommitted at the base",
                   [(C, 4, False, True), (C, 3, False, False), (C, 3, False, False), (C, 3, False, True),
                    (C, 3, False, False), (C, 6, False, False), (C, 6, False, True), (C, 0x500, True, False)],
                   [(0, 3, [1]), (0, 3, [1]), (0, 3, [1]), (0, 5, []),
                    (1, 5, []), (0, 5, []), (0, 5, [1]), (3, 0x500, [])])

    dut._log.info("directed: %d beats checked, stats %s", checked, expected_stats)


# -------------------------------------------------------------------- randomized test


class OpMix:
    """A seeded operation mix, the essentials of the golden model's stimulus
    (verif/model stimulus.rs): in-order runs, loss gaps retransmitted later in any order,
    duplicates, PSNs behind the base, out of window (just past it and far), random PSNs,
    full-window sweeps, clears near the 2^24 wrap; one data packet in eight uncommitted
    (s_commit = 0), a fresh one sent again soon. Counts each kind in `kinds`."""

    def __init__(self, rng: random.Random, conns: list[int], window: int):
        self.rng, self.conns, self.w = rng, conns, window
        self.next = {c: 0 for c in conns}
        self.holes = {c: [] for c in conns}
        self.recent = {c: [] for c in conns}
        self.sweep = {c: [] for c in conns}
        self.retry = {c: [] for c in conns}
        self.kinds: dict[str, int] = {}

    def _count(self, k: str) -> None:
        self.kinds[k] = self.kinds.get(k, 0) + 1

    def clear(self, c: int) -> tuple[int, int, bool]:
        r, w = self.rng, self.w
        base = (PSN_MASK - r.randrange(3 * w)) & PSN_MASK if r.random() < 0.5 else r.randrange(PSN_MASK + 1)
        self.next[c], self.holes[c], self.recent[c], self.sweep[c], self.retry[c] = base, [], [], [], []
        self._count("clear")
        return (c, base, True, True)

    def op(self) -> tuple[int, int, bool, bool]:
        """(conn, psn, clear, commit)."""
        c, psn, clear, fresh = self._pick()
        if clear or self.rng.random() >= 1 / 8:
            return (c, psn, clear, True)
        self._count("uncommitted")
        if fresh:  # not recorded: sent again soon, as a sender would after a refusal
            self.retry[c].append(psn)
        return (c, psn, False, False)

    def _pick(self) -> tuple[int, int, bool, bool]:
        """(conn, psn, clear, fresh): fresh = a packet the flow expects to be recorded."""
        r, w = self.rng, self.w
        c = self.conns[0] if r.random() < 0.5 else r.choice(self.conns)
        if self.retry[c] and ((self.next[c] - self.retry[c][0]) & PSN_MASK >= w - w // 4 or r.random() < 0.75):
            self._count("retry")
            return (c, self.retry[c].pop(0), False, True)
        if self.sweep[c]:
            return (c, self.sweep[c].pop(0), False, True)
        nxt = self.next[c]
        x = r.random()
        fresh = True
        if x < 0.005:
            return self.clear(c)
        if x < 0.007 and not self.retry[c]:  # sweep base+1 .. base+w-1, then base: the base jumps a whole window
            self.sweep[c] = [(nxt + d) & PSN_MASK for d in range(1, w)] + [nxt]
            self.next[c] = (nxt + w) & PSN_MASK
            self.holes[c] = []
            self._count("sweep")
            return (c, self.sweep[c].pop(0), False, True)
        if x < 0.06:  # a loss gap, retransmitted later
            k = r.randint(1, max(1, w // 2)) if r.random() < 0.05 else r.randint(1, 3)
            self.holes[c] += [(nxt + d) & PSN_MASK for d in range(k)][: max(0, 512 - len(self.holes[c]))]
            psn = (nxt + k) & PSN_MASK
            self.next[c] = (psn + 1) & PSN_MASK
            self._count("gap")
        elif x < 0.34 and self.holes[c]:  # retransmission: the oldest first once it holds the window
            far = (self.next[c] - self.holes[c][0]) & PSN_MASK >= w - w // 4
            psn = self.holes[c].pop(0 if far else r.randrange(len(self.holes[c])))
            self._count("retransmit")
        elif x < 0.40 and self.recent[c]:
            psn, fresh = r.choice(self.recent[c]), False
            self._count("duplicate")
        elif x < 0.425:
            psn, fresh = (nxt - r.randrange(w, 4 * w)) & PSN_MASK, False
            self._count("behind")
        elif x < 0.45:
            ahead = r.randrange(w, 2 * w) if r.random() < 0.5 else r.randrange(w, PSN_HALF)
            psn, fresh = (nxt + ahead) & PSN_MASK, False
            self._count("out_of_window")
        elif x < 0.46:
            psn, fresh = r.randrange(PSN_MASK + 1), False
            self._count("random")
        else:
            psn = nxt
            self.next[c] = (nxt + 1) & PSN_MASK
            self._count("in_order")
        self.recent[c] = (self.recent[c] + [psn])[-8:]
        return (c, psn, False, fresh)


@cocotb.test()
async def random_backpressure(dut):
    """Seeded random operations through a stream source with idle phases, output drained with
    backpressure phases; every beat checked in order against Ref, handshakes every cycle."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n_ops = int(os.environ.get("MRNIC_RANDOM_OPS", "2000"))
    connections = int(os.environ.get("MRNIC_CONNECTIONS", str(1 << len(dut.s_conn))))
    header = read_header(os.environ["MRNIC_VECTORS"])  # the block's streams, as the vectors describe them
    streams = {s["name"]: s for s in header["streams"]}
    assert set(streams) == {"s", "m"}, f"the SACK engine has streams s and m, the vectors say {sorted(streams)}"
    window = len(dut.m_bitmap)
    rng = random.Random(seed)
    dut._log.info("random_backpressure: seed %d, %d operations, %d connections, window %d",
                  seed, n_ops, connections, window)

    start_clock(dut)
    await sack_reset(dut)
    # A few connections, the edges of the connection index among them; the first is "hot".
    conns = sorted({0, connections - 1, *(rng.randrange(connections) for _ in range(4))})
    rng.shuffle(conns)
    mix = OpMix(rng, conns, window)
    ops = [mix.clear(c) for c in conns] + [mix.op() for _ in range(n_ops)]

    ref = Ref(window)
    sb = Scoreboard(dut._log, widths(dut))
    classes = [0, 0, 0, 0]

    def on_input(txn, cycle):
        exp = ref.beat(txn["s_conn"], txn["s_psn"], bool(txn["s_clear"]), bool(txn["s_commit"]))
        sb.expect("m", exp, note=f"input transfer in cycle {cycle}: {txn}")

    def on_output(txn, cycle):
        sb.observe("m", txn, cycle)
        classes[txn["m_class"]] += 1

    # Idle and backpressure phases: full rate, per-cycle coins, fixed patterns, long stalls.
    idle, backpressure = default_idle(seed), default_backpressure(seed)
    source = StreamSource(dut, streams["s"], idle=idle, on_transfer=on_input)
    sink = StreamSink(dut, streams["m"], backpressure=backpressure)
    mon = StreamMonitor(dut, streams["m"], on_transfer=on_output)
    for conn, psn, clear, commit in ops:
        source.send({"s_conn": conn, "s_psn": psn, "s_clear": int(clear), "s_commit": int(commit)})

    tasks = [cocotb.start_soon(t.run()) for t in (source, sink, mon)] + [cocotb.start_soon(check_ready_equation(dut))]
    # then LATENCY + 4 cycles: no beat after the last one
    cycles = await run_until_drained(dut, lambda: source.busy or sb.pending(), [sb, mon], 20 * len(ops) + 1000, LATENCY + 4,
                                     lambda: f"{mon.transfers} of {len(ops)} beats ({sb.pending()} expected, source busy {source.busy})")
    for t in tasks:
        t.cancel()
    sb.finish()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == len(ops), f"{mon.transfers} beats for {len(ops)} operations"
    await settle()
    stats = [read(getattr(dut, s)) for s in STATS]
    assert stats == classes, f"counters {dict(zip(STATS, stats))}, beats by class {classes}"
    # The run exercised what it claims to.
    assert all(n > 0 for n in classes), f"beats by class {classes}: a class never came out"
    assert mix.kinds.get("uncommitted", 0) > 0, f"no uncommitted packet offered: {mix.kinds}"
    assert source.idle_cycles > 50 and source.stalled_cycles > 50, (source.idle_cycles, source.stalled_cycles)
    assert sink.held_cycles > 100 and mon.waiting_cycles > 50, (sink.held_cycles, mon.waiting_cycles)
    dut._log.info("random_backpressure: %d beats in order and equal to the reference in %d cycles; classes %s; "
                  "source idle %d / stalled %d cycles, sink held %d cycles (a valid beat waiting %d); mix %s",
                  mon.transfers, cycles, classes, source.idle_cycles, source.stalled_cycles,
                  sink.held_cycles, mon.waiting_cycles, mix.kinds)
