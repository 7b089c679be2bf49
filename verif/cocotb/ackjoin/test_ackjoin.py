"""cocotb tests of the ACK join's generated Verilog (block `ackjoin`, module `mrnic_ackjoin`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block ackjoin --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the configuration),
MRNIC_RANDOM_VECTORS (vectors without random resets: the Python reference is checked on them,
and the randomized test offers their transfers again with its own timing), MRNIC_LATENCY,
MRNIC_CONNECTIONS and MRNIC_WINDOW (the manifest's parameters `connections`, `window`),
MRNIC_SEED, MRNIC_RANDOM_OPS (the no-reset vectors' cycles; a quarter of it is the packets
of each Python-made traffic segment of the randomized test).

Contract under test (the RTL header hdl/src/ackjoin.rs, the block model
mrnic_model::transport::ackjoin::AckJoin and its cycle shell AckJoinShell)
------------------------------------------------------------------------------------------
Two input streams: the SACK engine's results `s_sack` (`s_sack_conn` CB bits, `s_sack_base`
24, `s_sack_bitmap` W), one per DATA packet in packet order, into a FIFO of 8; the ACK
generator's entries `s_gen` (`s_gen_conn`, `s_gen_path`, the ACK fields `s_gen_path_psn`,
`s_gen_flags`, `s_gen_ecn_ce`, `s_gen_ecn_pkts`, `s_gen_rate_hint`, `s_gen_ts_echo`,
`s_gen_ack_delay`, `s_gen_sport`, and `s_gen_timer`, `s_gen_ack`). A packet's entry (timer 0)
takes the oldest result, which becomes the latest state of the result's connection (a RAM row
of base and bitmap; every packet writes it, ACK or not); with `ack` 1 the ACK carries that
result. A timer entry with `ack` 1 carries its connection's latest row (as written by every
packet taken before it: a packet taken in the cycle before is forwarded); with `ack` 0 it
leaves nothing. Only ACKs leave on `m`: the entry's fields, `m_base`/`m_bitmap` the result it
carries, `m_conn` the entry's connection. `s_sack_ready` = !rst & (FIFO count < 8 at the
start of the cycle); `s_gen_ready` = !rst & A can move (A empty, or A holds an entry without
an ACK, or the output register is empty or taken by `m_ready`) & (FIFO non-empty at the start
of the cycle | `s_gen_timer`): combinational from `m_ready` and `s_gen_timer`. Latency 2 (taken
in t, stage A in t + 1, `m_valid` in t + 2), II 1. Counters `stat_acks`, `stat_timer_acks`,
`stat_quiet` (a packet's entry without an ACK), `stat_misaligned` (a packet's entry whose
result names another connection; the result is used, written into the result's row), counted
at the take and shown from the next cycle (32-bit, wrapping); `stat_fifo_level` (results
waiting at the start of the cycle). Reset (synchronous): both readies and `m_valid` low while
`rst` is high; A, the output register, the FIFO and the counters are emptied, the RAM keeps its
rows (zero at power-up).

`JoinRef` below is a cycle-level Python reference written from that contract (the order of
AckJoinShell::step), `join` the untimed block model (what comes out depends only on the order
of each stream, not on the timing). The three tests share one simulation: the RAM keeps what an
earlier test wrote, so the later tests write every row they read first (and `vector_replay`,
whose model starts from the power-up RAM, must run first).

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, packets on hot connections
  with random full-width bitmaps, ACK or quiet, timer ACKs between them, often of the last
  packet's connection, the SACK stream running ahead until the FIFO is full or lagging behind,
  misaligned results, sink stalls, rare resets) through the model, every output every cycle
  after the header's settle.
* `directed_semantics`: hand-written expectations (every ACK's cycle and fields, readies,
  FIFO level and counters written out; every output of every cycle also compared with
  `JoinRef`): reset (offers during it not taken); every row written by quiet packets; a
  packet's ACK carries its own result (not the newer one waiting behind it); a quiet packet
  writes the row, later timer ACKs carry their rows (the all-zero and all-ones rows too); a
  timer ACK taken right after a packet of its connection carries that packet's result (RAM
  write forwarding; after an ACK and after a quiet packet), one of another connection does not;
  a misaligned result (counted, written into its own row, carried by its entry's ACK); a
  packet's entry waits for a result (one pushed in the same cycle is not usable yet) while a
  timer entry is taken with the FIFO empty (`s_gen_ready` follows `s_gen_timer` with valid
  low); timer entries (with and without an ACK) do not write the waiting head into the RAM; a
  full FIFO (`s_sack_ready` low at 8 even with a pop in the cycle, a push and a pop in one
  cycle, results carried in order); a stalled sink holding its ACK, then the ACK in A behind it
  (`s_gen_ready` low), a quiet entry in A not blocking, a held timer ACK keeping its row while
  another connection's entry is offered; counters at the take, visible the next cycle; reset
  with an ACK on `m`, one in A and a result in the FIFO (nothing comes out after it, the FIFO
  and the counters emptied, the rows kept).
* `random_backpressure`: `JoinRef` and `join` checked on both vector files (every output,
  every cycle); then, on the DUT and `JoinRef` side by side (every output every cycle, the
  handshake rules on `m`): every row zeroed and a reset (the power-up state), the SACK results
  and entries the model took in the no-reset vectors offered again with independent idle
  phases on both streams and `m_ready` backpressure (the ACKs in order equal to the model's),
  then two segments of Python-made traffic (hot connections, timer ACKs right behind packets of
  their connection, quiet packets, timers without an ACK, misaligned results), the first cut
  by a reset while an ACK waits on `m`, one sits in A and results wait in the FIFO; the ACKs of
  each segment equal to `join`'s, the counters to the ones it counts.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter, deque
from typing import NamedTuple

import cocotb
from cocotb.utils import get_sim_time

from common.stream import StreamMonitor, default_backpressure, default_idle
from common.tb import RefBench, compare_outputs, drive, fmt, next_cycle, read_outputs, settle, start_clock
from common.vectors import read_header, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
FIFO_DEPTH = 8
M24, M32 = (1 << 24) - 1, (1 << 32) - 1
SACK_FIELDS = ("s_sack_conn", "s_sack_base", "s_sack_bitmap")
# The generator's fields an ACK carries unchanged (s_gen_X -> m_X), with their widths
# (m_conn: CB bits).
CARRIED = {"path": 4, "path_psn": 24, "flags": 8, "ecn_ce": 8, "ecn_pkts": 8, "rate_hint": 32, "ts_echo": 32,
           "ack_delay": 32, "sport": 16, "timer": 1}
GEN_FIELDS = ("s_gen_conn", *(f"s_gen_{k}" for k in CARRIED), "s_gen_ack")
OUT_FIELDS = ("m_conn", "m_path", "m_base", "m_bitmap", "m_path_psn", "m_flags", "m_ecn_ce", "m_ecn_pkts",
              "m_rate_hint", "m_ts_echo", "m_ack_delay", "m_sport", "m_timer")
COUNTERS = ("stat_acks", "stat_timer_acks", "stat_quiet", "stat_misaligned")
ALWAYS = ("s_sack_ready", "s_gen_ready", "m_valid", *COUNTERS, "stat_fifo_level")
IDLE = {"rst": 0, "s_sack_valid": 0, **{f: 0 for f in SACK_FIELDS}, "s_gen_valid": 0, **{f: 0 for f in GEN_FIELDS},
        "m_ready": 1}


class Sizes(NamedTuple):
    connections: int
    window: int

    @property
    def cmask(self) -> int:
        return self.connections - 1

    @property
    def wmask(self) -> int:
        return (1 << self.window) - 1


def sizes(dut=None) -> Sizes:
    """The block's sizes: the manifest's parameters (MRNIC_CONNECTIONS, MRNIC_WINDOW), checked
    against the vectors' header and, given the DUT, its port widths."""
    z = Sizes(int(os.environ["MRNIC_CONNECTIONS"]), int(os.environ["MRNIC_WINDOW"]))
    assert z.connections >= 16 and z.connections & z.cmask == 0 and z.window in (32, 64, 128, 256), z
    conf = read_header(os.environ["MRNIC_VECTORS"])["config"]
    assert (conf["connections"], conf["sack"]["window"]) == z, f"the manifest says {z}, the vectors {conf}"
    if dut is not None:
        cb = z.connections.bit_length() - 1
        w = (len(dut.s_sack_conn), len(dut.s_gen_conn), len(dut.m_conn), len(dut.s_sack_bitmap), len(dut.m_bitmap))
        assert w == (cb, cb, cb, z.window, z.window), f"port widths {w} for {z}"
    return z


def _int(v) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


# --------------------------------------------------------------------- Python reference


def record(g: dict, base: int, bitmap: int, z: Sizes) -> dict:
    """The ACK of entry `g` (s_gen_* values) carrying (base, bitmap): every m_* field."""
    r = {"m_conn": g["s_gen_conn"] & z.cmask}
    r.update({f"m_{k}": g[f"s_gen_{k}"] & ((1 << w) - 1) for k, w in CARRIED.items()})
    r.update(m_base=base & M24, m_bitmap=bitmap & z.wmask)
    return r


class JoinRef:
    """Cycle-level reference: `step(inputs)` returns the outputs of the cycle (every output in
    ALWAYS, the m_* payload while m_valid), then takes its rising edge. `rows`: the RAM's
    (base, bitmap) per connection; None = unknown (the RAM holds what an earlier test wrote): a
    timer ACK reading an unknown row fails the reference."""

    def __init__(self, z: Sizes, rows: list | None = None):
        self.z = z
        self.rows: list[tuple[int, int] | None] = list(rows) if rows is not None else [None] * z.connections
        self.fifo: deque = deque()  # (conn, base, bitmap)
        self.a_full = False  # stage A holds an entry
        self.a: dict | None = None  # ... and its ACK (None: the entry sent none)
        self.m: dict | None = None  # the output register
        self.stats = dict.fromkeys(COUNTERS, 0)
        self.last_take: tuple[str, int] | None = None  # the last cycle's take: ("p", result row) or ("t", conn)

    def a_moves(self, m_ready) -> bool:
        return not (self.a_full and self.a is not None) or self.m is None or bool(m_ready)

    def outputs(self, i: dict) -> dict:
        on = not i["rst"]
        o = {"s_sack_ready": int(on and len(self.fifo) < FIFO_DEPTH),
             "s_gen_ready": int(on and self.a_moves(i["m_ready"]) and (bool(self.fifo) or bool(i["s_gen_timer"] & 1))),
             "m_valid": int(on and self.m is not None), **self.stats, "stat_fifo_level": len(self.fifo)}
        if o["m_valid"]:
            o.update(self.m)
        return o

    def _count(self, name: str) -> None:
        self.stats[name] = (self.stats[name] + 1) & M32

    def _take(self, i: dict) -> dict | None:
        z = self.z
        conn = i["s_gen_conn"] & z.cmask
        if i["s_gen_timer"] & 1:
            self.last_take = ("t", conn)
            if not i["s_gen_ack"] & 1:
                return None
            row = self.rows[conn]
            assert row is not None, (f"a timer ACK of connection {conn} reads its row, not written since the reference "
                                     f"started: the RAM holds an earlier test's rows (write every row first)")
            self._count("stat_acks")
            self._count("stat_timer_acks")
            return record(i, *row, z)
        sconn, base, bitmap = self.fifo.popleft()
        self.last_take = ("p", sconn)
        if sconn != conn:
            self._count("stat_misaligned")
        self.rows[sconn] = (base, bitmap)
        if i["s_gen_ack"] & 1:
            self._count("stat_acks")
            return record(i, base, bitmap, z)
        self._count("stat_quiet")
        return None

    def step(self, i: dict) -> dict:
        o = self.outputs(i)
        if i["rst"]:
            self.fifo.clear()
            self.a_full, self.a, self.m = False, None, None
            self.stats = dict.fromkeys(COUNTERS, 0)
            self.last_take = None
            return o
        moves = self.a_moves(i["m_ready"])
        if self.m is not None and i["m_ready"]:
            self.m = None
        if moves:
            if self.a_full and self.a is not None:
                self.m = self.a
            self.a_full, self.a = False, None
        self.last_take = None
        if i["s_gen_valid"] and o["s_gen_ready"]:
            self.a_full, self.a = True, self._take(i)
        if i["s_sack_valid"] and o["s_sack_ready"]:
            z = self.z
            self.fifo.append((i["s_sack_conn"] & z.cmask, i["s_sack_base"] & M24, _int(i["s_sack_bitmap"]) & z.wmask))
        return o


def join(rows: list, sacks: list[dict], gens: list[dict], z: Sizes) -> tuple[list[dict], dict, list]:
    """The untimed block model: the entries `gens` in order, each packet's with the next result
    of `sacks`, from the RAM `rows`. Returns (the ACKs in order, the counters, the rows after)."""
    rows = list(rows)
    fifo = deque(sacks)
    acks: list[dict] = []
    st = dict.fromkeys(COUNTERS, 0)
    for g in gens:
        conn = g["s_gen_conn"] & z.cmask
        if g["s_gen_timer"] & 1:
            if g["s_gen_ack"] & 1:
                assert rows[conn] is not None, f"a timer ACK of connection {conn} before any row write"
                acks.append(record(g, *rows[conn], z))
                st["stat_acks"] += 1
                st["stat_timer_acks"] += 1
            continue
        assert fifo, "a packet's entry without a SACK result"
        s = fifo.popleft()
        sconn = s["s_sack_conn"] & z.cmask
        st["stat_misaligned"] += sconn != conn
        rows[sconn] = (s["s_sack_base"] & M24, _int(s["s_sack_bitmap"]) & z.wmask)
        if g["s_gen_ack"] & 1:
            acks.append(record(g, *rows[sconn], z))
            st["stat_acks"] += 1
        else:
            st["stat_quiet"] += 1
    return acks, st, rows


def compare(what: str, got: dict, want: dict, recent=()) -> None:
    """Every output in ALWAYS, the payload while the reference's m_valid is 1."""
    compare_outputs(what, got, want, ALWAYS, OUT_FIELDS, recent, show=lambda x: {n: fmt(_int(v)) for n, v in x.items()})


def outputs(dut, payload: bool = True) -> dict:
    return read_outputs(dut, ALWAYS, OUT_FIELDS if payload else ())


def check_reference(path: str, z: Sizes) -> tuple[int, int]:
    """`JoinRef` (from the power-up RAM: every row zero) over the vectors at `path` (the
    model's outputs): every output every cycle after the header's settle. Returns (cycles,
    ACKs on m)."""
    settle_cycles = int(read_header(path).get("settle", 0))
    ref = JoinRef(z, [(0, 0)] * z.connections)
    n = beats = 0
    recent: deque = deque(maxlen=4)
    with open(path) as f:
        f.readline()
        for n, line in enumerate(f):
            c = json.loads(line)
            recent.append(c["in"])
            want = ref.step(c["in"])
            if n < settle_cycles:
                continue
            beats += want["m_valid"]
            got = {k: _int(v) for k, v in c["out"].items()}
            compare(f"{path}: cycle {n}: the golden model's outputs", got, want, recent)
    return n + 1, beats


def model_transfers(path: str, z: Sizes) -> tuple[list[dict], list[dict], list[dict]]:
    """The SACK results and entries the model took in the (no-reset) vectors at `path`, and
    the ACKs it put out, each in order."""
    st = {s["name"]: s for s in read_header(path)["streams"]}
    sacks, gens, acks = [], [], []
    with open(path) as f:
        f.readline()
        for line in f:
            c = json.loads(line)
            i, o = c["in"], c["out"]
            if i["rst"]:
                assert not (sacks or gens), f"{path}: a reset after the prologue: generate it with --no-resets"
                continue
            if i["s_sack_valid"] and o["s_sack_ready"]:
                sacks.append({k: _int(i[k]) for k in st["s_sack"]["payload"]})
            if i["s_gen_valid"] and o["s_gen_ready"]:
                gens.append({k: _int(i[k]) for k in st["s_gen"]["payload"]})
            if o["m_valid"] and i["m_ready"]:
                acks.append({k: _int(o[k]) for k in st["m"]["payload"]})
    return sacks, gens, acks


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    sizes(dut)
    assert get_sim_time("ns") == 0, ("vector_replay must run first in its simulation: the model's vectors start "
                                     "from the power-up RAM (every row zero), which the RAM keeps only until a test writes it")
    await replay_block_vectors(dut, "ackjoin", LATENCY, what="ACK")


# ---------------------------------------------------------------------- directed test


class Bench(RefBench):
    """Drives one cycle at a time (the other inputs idle) and compares every output with
    `JoinRef` every cycle; the expectations of the scenarios are written by hand on top."""

    def __init__(self, dut, z: Sizes):
        super().__init__(dut, JoinRef(z), IDLE, outputs, compare)
        self.z = z
        self.exp = dict.fromkeys(COUNTERS, 0)  # the counters, kept by hand
        self.n = 0  # entries and results made: each has its own field values

    async def ticks(self, seq: list[dict]) -> list[dict]:
        return [await self.tick(v) for v in seq]

    async def reset(self, during: dict | None = None) -> None:
        """rst for two cycles (`during`: other inputs offered then, not taken): both readies and
        m_valid low; after it s_sack_ready high, s_gen_ready low (FIFO empty, no timer
        offered), m_valid low, the counters and the FIFO level 0."""
        for _ in range(2):
            o = await self.tick({**(during or {}), "rst": 1})
            if self.cycles > 1:
                assert (o["s_sack_ready"], o["s_gen_ready"], o["m_valid"]) == (0, 0, 0), f"during rst: {o}"
        o = await self.tick()
        assert (o["s_sack_ready"], o["s_gen_ready"], o["m_valid"]) == (1, 0, 0), f"after rst: {o}"
        assert all(o[s] == 0 for s in (*COUNTERS, "stat_fifo_level")), f"counters after rst: {o}"
        self.exp = dict.fromkeys(COUNTERS, 0)

    def sack(self, conn: int, base: int | None = None, bitmap: int | None = None) -> tuple[dict, tuple[int, int]]:
        """A SACK result of `conn` offered (new base and bitmap unless given) and its (base, bitmap)."""
        self.n += 1
        if base is None:
            base = (0x400000 + 0x2345 * self.n) & M24
        if bitmap is None:
            bitmap = random.Random(7000 + self.n).getrandbits(self.z.window) | 1 << (7 * self.n % self.z.window)
        return {"s_sack_valid": 1, "s_sack_conn": conn, "s_sack_base": base, "s_sack_bitmap": bitmap}, (base, bitmap)

    def entry(self, conn: int, *, timer: int = 0, ack: int = 1) -> dict:
        """A generator's entry offered, every field its own value."""
        self.n += 1
        n = self.n
        return {"s_gen_valid": 1, "s_gen_conn": conn, "s_gen_path": n % 16, "s_gen_path_psn": (0xA00000 + 0x1357 * n) & M24,
                "s_gen_flags": 7 * n & 0xFF, "s_gen_ecn_ce": (3 * n + 1) & 0xFF, "s_gen_ecn_pkts": (5 * n + 2) & 0xFF,
                "s_gen_rate_hint": (0x10000000 + 0x01020304 * n) & M32, "s_gen_ts_echo": (0x89ABCDEF ^ n << 8) & M32,
                "s_gen_ack_delay": (1000 + 17 * n) & M32, "s_gen_sport": 0xC000 + n & 0xFFFF, "s_gen_timer": timer,
                "s_gen_ack": ack}

    def ack(self, g: dict, state: tuple[int, int]) -> dict:
        """The ACK of entry `g` carrying `state` = (base, bitmap), written out field by field."""
        return {"m_conn": g["s_gen_conn"], "m_path": g["s_gen_path"], "m_base": state[0], "m_bitmap": state[1],
                "m_path_psn": g["s_gen_path_psn"], "m_flags": g["s_gen_flags"], "m_ecn_ce": g["s_gen_ecn_ce"],
                "m_ecn_pkts": g["s_gen_ecn_pkts"], "m_rate_hint": g["s_gen_rate_hint"], "m_ts_echo": g["s_gen_ts_echo"],
                "m_ack_delay": g["s_gen_ack_delay"], "m_sport": g["s_gen_sport"], "m_timer": g["s_gen_timer"]}

    @staticmethod
    def check(what: str, o: dict, want: dict) -> None:
        got = {k: o[k] for k in OUT_FIELDS}
        bad = {k: (fmt(want[k]), fmt(got[k])) for k in OUT_FIELDS if got[k] != want[k]}
        assert o["m_valid"] == 1 and not bad, f"{what}: m_valid {o['m_valid']}, fields (expected, actual): {bad}"

    @staticmethod
    def col(os_: list[dict], port: str) -> list[int]:
        return [o[port] for o in os_]

    def expect_m(self, what: str, os_: list[dict], acks: dict[int, dict]) -> None:
        """m_valid exactly in the cycles of `acks` (index -> expected ACK), with those ACKs."""
        valid = self.col(os_, "m_valid")
        want = [int(k in acks) for k in range(len(os_))]
        assert valid == want, f"{what}: m_valid by cycle {valid}, expected {want}"
        for k, a in acks.items():
            self.check(f"{what}, cycle {k}", os_[k], a)

    async def counters(self, what: str, level: int = 0, **delta) -> None:
        o = await self.tick()  # counted at the take: shown the cycle after it
        for k, v in delta.items():
            self.exp[f"stat_{k}"] += v
        diff = {s: (self.exp[s], o[s]) for s in COUNTERS if o[s] != self.exp[s]}
        assert not diff and o["stat_fifo_level"] == level, \
            f"counters after {what} (expected, actual): {diff}, level {o['stat_fifo_level']} (expected {level})"


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written expectations: own result, row writes, forwarding, waiting for a result, the
    full FIFO, the stalled sink, misaligned results, counters and reset."""
    assert LATENCY == 2, f"MRNIC_LATENCY {LATENCY}: the RTL header says 2 (the scenarios are written for it)"
    z = sizes(dut)
    C, W = z.connections, z.window
    tb = Bench(dut, z)
    start_clock(dut)
    drive(dut, IDLE)

    # ---- A. reset: a result and a timer entry offered during it are not taken; after it
    # s_gen_ready follows s_gen_timer while the FIFO is empty (valid low, nothing taken)
    s, _ = tb.sack(1, 0x123, 1)
    await tb.reset(during={**s, **tb.entry(1, timer=1)})
    o = await tb.ticks([{"s_gen_timer": 1}, {"s_gen_timer": 0}, {}])
    assert tb.col(o, "s_gen_ready") == [1, 0, 0] and tb.col(o, "stat_fifo_level") == [0, 0, 0], o

    # ---- B. every row written (the RAM holds an earlier test's rows): in cycle j the result
    # of row j and the quiet entry of row j - 1, one a cycle; row 0 all zeros, row C-1 all ones
    row = {k: ((0x0F0000 + 0x1011 * k) & M24, random.Random(1000 + k).getrandbits(W) | 1 << k % W) for k in range(C)}
    row[0], row[C - 1] = (0, 0), (M24, z.wmask)
    for j in range(C + 1):
        v = {}
        if j < C:
            v.update(tb.sack(j, *row[j])[0])
        if j >= 1:
            v.update(tb.entry(j - 1, ack=0))
        o = await tb.tick(v)
        assert (o["s_sack_ready"], o["s_gen_ready"], o["m_valid"], o["stat_fifo_level"]) == (1, int(j >= 1), 0, int(j >= 1)), \
            f"row writes, cycle {j}: {o}"
    assert tb.ref.rows == [row[k] for k in range(C)]
    await tb.counters(f"{C} quiet packets", quiet=C)

    # ---- C. a packet's ACK carries its own result: two results of row 5 wait, the first
    # packet's ACK carries the first (not the newer one behind it), the second the second
    s1, r1 = tb.sack(5)
    s2, r2 = tb.sack(5)
    p1, p2 = tb.entry(5), tb.entry(5)
    o = await tb.ticks([s1, s2, p1, p2, {}, {}, {}])
    assert tb.col(o, "stat_fifo_level") == [0, 1, 2, 1, 0, 0, 0] and tb.col(o, "s_gen_ready")[2:4] == [1, 1], o
    tb.expect_m("own result", o, {4: tb.ack(p1, r1), 5: tb.ack(p2, r2)})
    row[5] = r2
    await tb.counters("own result", acks=2)

    # ---- D. a quiet packet writes its row: a timer ACK three cycles later carries it; timer
    # ACKs of rows 7, 0 (all zeros), C-1 (all ones) and 5 (the last of C's packets) carry theirs
    s6, r6 = tb.sack(6)
    q6 = tb.entry(6, ack=0)
    t6, t7, t0, tl, t5 = (tb.entry(k, timer=1) for k in (6, 7, 0, C - 1, 5))
    o = await tb.ticks([s6, q6, {}, {}, {}, t6, t7, t0, tl, t5, {}, {}, {}])
    assert tb.col(o, "s_gen_ready")[5:10] == [1] * 5 and tb.col(o, "stat_fifo_level")[5:10] == [0] * 5, o
    row[6] = r6
    tb.expect_m("quiet packet's row", o, {7: tb.ack(t6, r6), 8: tb.ack(t7, row[7]), 9: tb.ack(t0, (0, 0)),
                                          10: tb.ack(tl, (M24, z.wmask)), 11: tb.ack(t5, r2)})
    await tb.counters("the quiet packet and the timer ACKs", quiet=1, acks=5, timer_acks=5)

    # ---- E. write forwarding: the timer ACK taken in the cycle right after a packet of its
    # connection (read while the packet in A writes the row) carries that packet's result
    s8, r8 = tb.sack(8)
    p8, t8 = tb.entry(8), tb.entry(8, timer=1)
    o = await tb.ticks([s8, p8, t8, {}, {}, {}])  # the RTL header's diagram
    tb.expect_m("timer ACK right behind an ACK of its connection", o, {3: tb.ack(p8, r8), 4: tb.ack(t8, r8)})
    row[8] = r8
    s9, r9 = tb.sack(9)
    q9, t9 = tb.entry(9, ack=0), tb.entry(9, timer=1)
    o = await tb.ticks([s9, q9, t9, {}, {}, {}])
    tb.expect_m("timer ACK right behind a quiet packet of its connection", o, {4: tb.ack(t9, r9)})
    row[9] = r9
    s10, r10 = tb.sack(10)
    q10, t11 = tb.entry(10, ack=0), tb.entry(11, timer=1)
    o = await tb.ticks([s10, q10, t11, {}, {}, {}])
    tb.expect_m("timer ACK of row 11 right behind a packet of row 10", o, {4: tb.ack(t11, row[11])})
    row[10] = r10
    # a misaligned result: the entry of row 11 takes a result of row 12, which it carries and
    # which is written into row 12 (forwarded to the timer ACK of row 12 behind it); row 11
    # keeps its row
    s12, r12 = tb.sack(12)
    p11, t12, t11b = tb.entry(11), tb.entry(12, timer=1), tb.entry(11, timer=1)
    o = await tb.ticks([s12, p11, t12, t11b, {}, {}, {}])
    tb.expect_m("a misaligned result", o, {3: tb.ack(p11, r12), 4: tb.ack(t12, r12), 5: tb.ack(t11b, row[11])})
    assert tb.col(o, "stat_misaligned")[1:3] == [tb.exp["stat_misaligned"], tb.exp["stat_misaligned"] + 1], \
        f"misaligned: counted at the take, shown the cycle after: {tb.col(o, 'stat_misaligned')}"
    row[12] = r12
    await tb.counters("forwarding", acks=7, timer_acks=5, quiet=2, misaligned=1)

    # ---- F. a packet's entry waits for a result (one pushed in the same cycle is usable the
    # cycle after); a timer entry needs none
    s13, r13 = tb.sack(13)
    p13, t14 = tb.entry(13), tb.entry(14, timer=1)
    o = await tb.ticks([p13, p13, p13, {**p13, **s13}, p13, {}, {}, {}])
    assert tb.col(o, "s_gen_ready")[:5] == [0, 0, 0, 0, 1] and tb.col(o, "stat_fifo_level")[:6] == [0, 0, 0, 0, 1, 0], \
        f"a packet waiting for its result: {o}"
    assert o[3]["s_sack_ready"] == 1, o[3]
    tb.expect_m("the packet that waited", o, {6: tb.ack(p13, r13)})
    row[13] = r13
    o = await tb.ticks([t14, {}, {}, {}])
    assert o[0]["s_gen_ready"] == 1 and o[0]["stat_fifo_level"] == 0, f"a timer entry with the FIFO empty: {o[0]}"
    tb.expect_m("the timer ACK taken with the FIFO empty", o, {2: tb.ack(t14, row[14])})
    # timer entries taken while a result of row 15 waits (one without an ACK, two with) do not
    # write it into the row; the packet that takes it does (a timer ACK right behind carries it)
    s15, r15 = tb.sack(15)
    u15, t15a, t15b, q15, t15c = (tb.entry(15, timer=1, ack=0), tb.entry(15, timer=1), tb.entry(15, timer=1),
                                  tb.entry(15, ack=0), tb.entry(15, timer=1))
    o = await tb.ticks([s15, u15, t15a, t15b, q15, t15c, {}, {}, {}])
    assert tb.col(o, "s_gen_ready")[1:6] == [1] * 5 and tb.col(o, "stat_fifo_level")[1:6] == [1, 1, 1, 1, 0], o
    tb.expect_m("timers with a result waiting", o, {4: tb.ack(t15a, row[15]), 5: tb.ack(t15b, row[15]), 7: tb.ack(t15c, r15)})
    row[15] = r15
    await tb.counters("waiting and timer entries", acks=5, timer_acks=4, quiet=1)

    # ---- G. the FIFO full: 8 results (rows 1-8) pushed one a cycle, the 9th (row 9) refused
    # while the count is 8, also in the cycle of the first pop (the count at the start of the
    # cycle); taken with the second pop (a push and a pop: the count stays 7); the 9 ACKs
    # carry their results in order
    rs = [tb.sack(k) for k in range(1, 10)]
    es = [tb.entry(k) for k in range(1, 10)]
    seq = [rs[k][0] for k in range(8)] + [rs[8][0]] * 3 + [{**rs[8][0], **es[0]}, {**rs[8][0], **es[1]}] + es[2:] + [{}] * 3
    o = await tb.ticks(seq)
    assert tb.col(o, "stat_fifo_level") == [*range(8), 8, 8, 8, 8, 7, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0], \
        f"FIFO level {tb.col(o, 'stat_fifo_level')}"
    assert tb.col(o, "s_sack_ready") == [1] * 8 + [0] * 4 + [1] * 11, f"s_sack_ready {tb.col(o, 's_sack_ready')}"
    assert tb.col(o, "s_gen_ready")[11:20] == [1] * 9, o
    tb.expect_m("the FIFO's results in order", o, {13 + k: tb.ack(es[k], rs[k][1]) for k in range(9)})
    for k in range(9):
        row[k + 1] = rs[k][1]
    await tb.counters("the full FIFO", acks=9)

    # ---- H. the stalled sink: P1's ACK held on m five cycles (unchanged), P2's ACK in A behind
    # it, so P3 is not taken (s_gen_ready low); released one at a time; a quiet entry in A does
    # not block (a timer entry taken behind it while m is held); the timer ACK of row 13, held
    # in A while entries of row 14 are offered, carries row 13
    rs = [tb.sack(k) for k in (1, 2, 3, 4)]
    P1, P2, P3, Q4 = tb.entry(1), tb.entry(2), tb.entry(3), tb.entry(4, ack=0)
    T13, T14 = tb.entry(13, timer=1), tb.entry(14, timer=1)
    await tb.ticks([r for r, _ in rs])
    e = tb.exp["stat_acks"]
    seq = [(P1, 0), (P2, 0), (P3, 0), (P3, 0), (P3, 0), (P3, 0), (P3, 1), (Q4, 0), (Q4, 1), (T13, 0), (T14, 0), (T14, 0),
           (T14, 0), (T14, 1), ({}, 1), ({}, 1), ({}, 1)]
    o = await tb.ticks([{**v, "m_ready": r} for v, r in seq])
    assert tb.col(o, "s_gen_ready") == [1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0], \
        f"the stall: s_gen_ready {tb.col(o, 's_gen_ready')}"
    tb.expect_m("the stall", o, {**{k: tb.ack(P1, rs[0][1]) for k in range(2, 7)}, 7: tb.ack(P2, rs[1][1]),
                                 8: tb.ack(P2, rs[1][1]), **{k: tb.ack(P3, rs[2][1]) for k in range(9, 14)},
                                 14: tb.ack(T13, row[13]), 15: tb.ack(T14, row[14])})
    assert tb.col(o, "stat_acks") == [e, e + 1, *[e + 2] * 5, *[e + 3] * 3, *[e + 4] * 4, *[e + 5] * 3], \
        f"the stall: stat_acks {tb.col(o, 'stat_acks')} (counted at the take, not at m)"
    for k in range(4):
        row[k + 1] = rs[k][1]
    await tb.counters("the stall", acks=5, timer_acks=2, quiet=1)

    # ---- I. reset with P1's ACK on m (held), P2's in A and row 3's result in the FIFO:
    # nothing comes out after it, the FIFO is emptied (a packet's entry waits), the counters
    # are 0; the rows are kept: P1's and P2's results were written, row 3's was not taken
    rs = [tb.sack(k) for k in (1, 2, 3)]
    P1, P2 = tb.entry(1), tb.entry(2)
    o = await tb.ticks([rs[0][0], {**rs[1][0], **P1, "m_ready": 0}, {**rs[2][0], **P2, "m_ready": 0}, {"m_ready": 0}])
    assert o[3]["m_valid"] == 1 and o[3]["stat_fifo_level"] == 1 and o[3]["stat_acks"] == tb.exp["stat_acks"] + 2, o[3]
    tb.check("before rst", o[3], tb.ack(P1, rs[0][1]))
    s4, _ = tb.sack(4)
    await tb.reset(during={**s4, **tb.entry(4, timer=1)})
    Q3 = tb.entry(3, ack=0)
    T1, T2, T3 = (tb.entry(k, timer=1) for k in (1, 2, 3))
    o = await tb.ticks([Q3, Q3, {}, T1, T2, T3, {}, {}, {}])
    assert tb.col(o, "s_gen_ready")[:2] == [0, 0] and tb.col(o, "stat_fifo_level")[:3] == [0, 0, 0], \
        f"after rst: a packet's entry with the FIFO emptied: {o[:3]}"
    tb.expect_m("the rows after rst", o, {5: tb.ack(T1, rs[0][1]), 6: tb.ack(T2, rs[1][1]), 7: tb.ack(T3, row[3])})
    row[1], row[2] = rs[0][1], rs[1][1]
    await tb.counters("after rst", acks=3, timer_acks=3)
    assert tb.ref.rows == [row[k] for k in range(C)], "the hand-kept rows differ from the reference's"
    dut._log.info("directed_semantics: %d cycles, every output equal to the reference; counters %s", tb.cycles, tb.exp)


# ------------------------------------------------------------------- randomized test


class Traffic:
    """Python-made packets: each a SACK result (its connection's base moving forward, now and
    then jumping, a random W-bit bitmap, sometimes empty or full) and the generator's entry for
    it (an ACK with random fields, or a quiet entry); timer entries between them (mostly with
    an ACK), often of the last packet's connection; now and then a result of another
    connection than its entry's. Phases change the mix and the hot connections."""

    def __init__(self, rng: random.Random, z: Sizes):
        self.r, self.z = rng, z
        self.base = [rng.getrandbits(24) for _ in range(z.connections)]
        self.mix = Counter()

    def make(self, n: int) -> tuple[list[dict], list[dict]]:
        r, z = self.r, self.z
        sacks: list[dict] = []
        gens: list[dict] = []
        left, last = 0, 0
        hot: list[int] = [0]
        p_timer = p_sent = p_same = 0.0
        for _ in range(n):
            if left == 0:
                left = r.randrange(20, 300)
                p_timer = r.choice([0.0, 0.1, 0.3, 0.7])
                p_sent = r.choice([0.1, 0.5, 0.9])
                p_same = r.choice([0.3, 0.9])
                hot = [r.randrange(z.connections) for _ in range(r.choice([1, 2, 4, 16]))]
            left -= 1
            if r.random() < p_timer:
                conn = last if r.random() < p_same else r.choice(hot)
                sent = int(r.random() < 0.95)
                gens.append(self.entry(conn, timer=1, ack=sent))
                self.mix["timers"] += 1
                self.mix["timers_unsent"] += 1 - sent
            conn = r.choice(hot) if r.random() < 0.85 else r.randrange(z.connections)
            self.base[conn] = (self.base[conn] + r.randrange(3)) & M24 if r.random() > 0.02 else r.getrandbits(24)
            k = r.randrange(20)
            bitmap = 0 if k == 0 else z.wmask if k == 1 else r.getrandbits(z.window)
            sconn = conn
            if r.random() < 0.01:
                sconn = (conn + 1) & z.cmask
                self.mix["misaligned"] += 1
            sacks.append({"s_sack_conn": sconn, "s_sack_base": self.base[conn], "s_sack_bitmap": bitmap})
            sent = int(r.random() < p_sent)
            gens.append(self.entry(conn, timer=0, ack=sent))
            self.mix["packets"] += 1
            self.mix["quiet"] += 1 - sent
            last = conn
        return sacks, gens

    def entry(self, conn: int, *, timer: int, ack: int) -> dict:
        r = self.r
        g = {"s_gen_conn": conn, "s_gen_timer": timer, "s_gen_ack": ack}
        g.update({f"s_gen_{k}": r.getrandbits(w) for k, w in CARRIED.items() if k != "timer"})
        if not ack and not timer:  # the ACK generator's quiet entry: fields 0
            g.update({f"s_gen_{k}": 0 for k in CARRIED if k not in ("path", "timer")})
        return g


class Runner:
    """The DUT and `JoinRef` side by side, one cycle at a time: the two input streams offered
    with their own idle phases (an offer held until taken, random payloads while a valid is
    low), `m_ready` backpressure; every output compared every cycle."""

    def __init__(self, dut, z: Sizes, seed: int):
        self.dut, self.z = dut, z
        self.rng = random.Random(seed)
        self.ref = JoinRef(z)
        self.sack_idle, self.gen_idle, self.bp = default_idle(seed + 10), default_idle(seed), default_backpressure(seed)
        # the SACK stream's phases 550 cycles ahead of the entries' (the same schedule would keep
        # the results in step with their entries): it lags in long pauses (the FIFO empties,
        # entries wait, timers are taken without a result) and runs ahead (the FIFO fills)
        for _ in range(550):
            next(self.sack_idle)
        self.in_rst = {"v": True}
        self.recent: deque = deque(maxlen=4)
        self.cyc = 0
        self.cov = Counter()
        self.acks_seen = 0

    def garbage(self) -> dict:
        r = self.rng
        i = {"rst": 0, "s_sack_valid": 0, "s_gen_valid": 0, "s_sack_conn": r.getrandbits(16), "s_sack_base": r.getrandbits(24),
             "s_sack_bitmap": r.getrandbits(self.z.window), "s_gen_conn": r.getrandbits(16)}
        i.update({f"s_gen_{k}": r.getrandbits(w) for k, w in CARRIED.items()})
        i["s_gen_ack"] = r.getrandbits(1)
        return i

    async def cycle(self, i: dict) -> dict:
        ref = self.ref
        if not i["rst"]:  # coverage, from the reference's state at the start of the cycle (= the DUT's)
            held = ref.m is not None and not i["m_ready"]
            self.cov["m_held"] += held
            self.cov["a_ack_behind_held_m"] += held and ref.a_full and ref.a is not None
            self.cov["a_timer_behind_held_m"] += held and ref.a_full and ref.a is not None and ref.a["m_timer"] == 1
            self.cov["fifo_full_offered"] += len(ref.fifo) == FIFO_DEPTH and i["s_sack_valid"]
            self.cov["packet_waits"] += i["s_gen_valid"] and not i["s_gen_timer"] and not ref.fifo
        await next_cycle(self.dut)
        self.in_rst["v"] = bool(i["rst"])
        drive(self.dut, i)
        await settle()
        self.recent.append(i)
        last = ref.last_take
        fifo_before = len(ref.fifo)
        want = ref.step(i)
        if self.cyc > 0:  # before the first reset edge the DUT holds the previous test's state
            compare(f"random_backpressure cycle {self.cyc}", outputs(self.dut, want["m_valid"] == 1), want, self.recent)
        if not i["rst"]:
            taken_g = i["s_gen_valid"] and want["s_gen_ready"]
            taken_s = i["s_sack_valid"] and want["s_sack_ready"]
            if taken_g and i["s_gen_timer"]:
                self.cov["timer_empty_fifo"] += fifo_before == 0
                self.cov["timer_behind_its_packet"] += last == ("p", i["s_gen_conn"] & self.z.cmask) and bool(i["s_gen_ack"])
            self.cov["push_and_pop"] += taken_s and taken_g and not i["s_gen_timer"]
        self.cyc += 1
        return want

    async def reset(self, offer: dict | None = None) -> None:
        """rst for two cycles, `offer` (valids high) held then: nothing taken."""
        for _ in range(2):
            i = {**self.garbage(), **(offer or {}), "rst": 1, "m_ready": self.rng.getrandbits(1)}
            want = await self.cycle(i)
            assert (want["s_sack_ready"], want["s_gen_ready"], want["m_valid"]) == (0, 0, 0), want
        self.cov["resets"] += 1

    async def segment(self, what: str, sacks: list[dict], gens: list[dict], *, full_rate: bool = False,
                      cut=None) -> tuple[list[dict], list[dict]]:
        """Offers `sacks` and `gens` in order until every one is taken and its ACKs are out (or,
        with `cut`, until `cut(self, k_gen)` says so: a reset follows). Returns the ACKs taken
        on m and `join`'s ACKs for the segment (from the reference's rows at its start)."""
        want_acks, _, _ = join(self.ref.rows, sacks, gens, self.z)
        ks = kg = 0
        cur_s = cur_g = None
        got: list[dict] = []
        tail = 0
        limit = self.cyc + 40 * (len(sacks) + len(gens)) + 1000
        while tail < LATENCY + 3:
            if ks == len(sacks) and kg == len(gens) and cur_s is None and cur_g is None and len(got) == len(want_acks):
                tail += 1  # drained: nothing may come out any more
            assert self.cyc < limit, \
                f"{what}: no progress: {ks}/{len(sacks)} results, {kg}/{len(gens)} entries, {len(got)} ACKs"
            if cut is not None and cut(self, kg):
                return got, want_acks
            i = self.garbage()
            hold_s, hold_g, hold_m = next(self.sack_idle), next(self.gen_idle), next(self.bp)
            i["m_ready"] = 1 if full_rate else int(not hold_m)
            if cur_s is None and ks < len(sacks) and (full_rate or not hold_s):
                cur_s, ks = sacks[ks], ks + 1
            if cur_g is None and kg < len(gens) and (full_rate or not hold_g):
                cur_g, kg = gens[kg], kg + 1
            if cur_s is not None:
                i.update(s_sack_valid=1, **cur_s)
            if cur_g is not None:
                i.update(s_gen_valid=1, **cur_g)
            want = await self.cycle(i)
            if cur_s is not None and want["s_sack_ready"]:
                cur_s = None
            if cur_g is not None and want["s_gen_ready"]:
                cur_g = None
            if want["m_valid"] and i["m_ready"]:
                got.append({k: want[k] for k in OUT_FIELDS})
        return got, want_acks


@cocotb.test()
async def random_backpressure(dut):
    """The Python reference checked on the model's vectors; then the model's transfers and
    Python-made traffic with independent idle phases on both inputs and m_ready backpressure,
    a reset among them: the DUT and the reference side by side, every output every cycle."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n_ops = int(os.environ.get("MRNIC_RANDOM_OPS", "2000"))
    z = sizes(dut)
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block ackjoin --no-resets` vectors"
    for p in (os.environ["MRNIC_VECTORS"], path):
        n, beats = check_reference(p, z)
        assert beats > 20, f"{p}: only {beats} ACKs to check the reference on"
        dut._log.info("the Python reference equals the model on %s: %d cycles, %d ACKs on m", p, n, beats)
    sacks1, gens1, model_acks = model_transfers(path, z)
    zero = [(0, 0)] * z.connections
    join_acks, _, _ = join(zero, sacks1, gens1, z)
    assert join_acks[:len(model_acks)] == model_acks and len(model_acks) > 20, \
        f"the untimed `join` differs from the model's ACKs ({len(model_acks)} ACKs, {len(join_acks)} from join)"

    tr = Traffic(random.Random(seed + 1), z)
    run = Runner(dut, z, seed)
    mon = StreamMonitor(dut, {"name": "m", "valid": "m_valid", "ready": "m_ready", "payload": list(OUT_FIELDS)},
                        reset_active=lambda: run.in_rst["v"])
    start_clock(dut)
    drive(dut, {**IDLE, "rst": 1})
    mon_task = cocotb.start_soon(mon.run())
    total = 0

    # 1. the power-up state: every row zeroed by a quiet packet (the RAM holds an earlier
    # test's rows), then a reset; the model's transfers with their own timing
    await run.reset()
    zs = [{"s_sack_conn": k, "s_sack_base": 0, "s_sack_bitmap": 0} for k in range(z.connections)]
    zg = [tr.entry(k, timer=0, ack=0) for k in range(z.connections)]
    got, _ = await run.segment("zeroing", zs, zg, full_rate=True)
    assert not got and run.ref.rows == zero
    await run.reset()
    got, want = await run.segment("the model's transfers", sacks1, gens1)
    total += len(got)
    assert got[:len(model_acks)] == model_acks, "the ACKs differ from the model's (the DUT equals the reference every cycle)"
    assert got == want and run.ref.stats == join(zero, sacks1, gens1, z)[1], "the ACKs or counters differ from join's"
    dut._log.info("the model's %d results and %d entries: %d ACKs equal to the model's %d (the rest were in flight at "
                  "the end of its file)", len(sacks1), len(gens1), len(got), len(model_acks))

    # 2. a reset (it drops the results the model's file ends with, whose entries it lacks),
    # then Python-made traffic, cut by a reset while an ACK waits on m, one sits in A and
    # results wait in the FIFO (after half the entries); the ACKs before it are join's first
    left = len(run.ref.fifo)
    assert left == len(sacks1) - sum(1 for g in gens1 if not g["s_gen_timer"]), left
    await run.reset()
    n_pk = max(50, n_ops // 4)
    s2, g2 = tr.make(n_pk)

    def dirty(r: Runner, kg: int) -> bool:
        ref = r.ref
        return kg > len(g2) // 2 and ref.m is not None and ref.a is not None and len(ref.fifo) >= 2

    got, want = await run.segment("traffic cut by a reset", s2, g2, cut=dirty)
    total += len(got)
    assert got == want[:len(got)], "the ACKs before the reset differ from join's"
    cut_at = len(got)
    s3, g3 = tr.make(n_pk)
    await run.reset(offer={"s_sack_valid": 1, **s3[0], "s_gen_valid": 1, **g3[0]})

    # 3. Python-made traffic after the reset (the rows kept), to the end
    rows3 = list(run.ref.rows)
    got, want = await run.segment("traffic after the reset", s3, g3)
    total += len(got)
    assert got == want and run.ref.stats == join(rows3, s3, g3, z)[1], "the ACKs or counters differ from join's"
    mon_task.cancel()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == total, f"{mon.transfers} ACKs seen on m, {total} expected"
    cov = run.cov
    cov.update({f"traffic_{k}": v for k, v in tr.mix.items()})
    if n_ops >= 2000:  # a full-size run really stalled, filled, waited and forwarded (a smoke run is too short)
        for k, least in (("m_held", 500), ("a_ack_behind_held_m", 100), ("a_timer_behind_held_m", 10),
                         ("fifo_full_offered", 100), ("packet_waits", 100), ("timer_empty_fifo", 10),
                         ("timer_behind_its_packet", 20), ("push_and_pop", 200), ("traffic_misaligned", 2),
                         ("traffic_timers_unsent", 5)):
            assert cov[k] >= least, f"coverage: {k} = {cov[k]} < {least}: {dict(cov)}"
    dut._log.info("random_backpressure: %d cycles, %d ACKs (%d before the mid-traffic reset), every output equal to "
                  "the reference every cycle; %s", run.cyc, total, cut_at, dict(sorted(cov.items())))
