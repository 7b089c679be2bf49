"""cocotb tests of the ACK generator's generated Verilog (block `ackgen`, module `mrnic_ackgen`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block ackgen --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the configuration),
MRNIC_RANDOM_VECTORS (vectors without random resets, on which the randomized test first
checks its Python reference), MRNIC_LATENCY, MRNIC_CONNECTIONS, MRNIC_PATHS,
MRNIC_ACK_EVERY (`N`), MRNIC_ACK_TIMEOUT (`T`, ns), MRNIC_FIFO_DEPTH, MRNIC_SEED,
MRNIC_RANDOM_OPS (cycles of the randomized run).

Contract under test (the RTL header hdl/src/ackgen.rs, the model cycle shell
mrnic_model::transport::ackgen_shell::AckShell, the block model transport::ackgen,
docs/protocol.md §6.10)
------------------------------------------------------------------------------------------
Per (connection, path) a row: `expected` (the next path PSN), `highest`, `pending`, `ce`, the
newest timestamp and its arrival (`now` sampled with the transfer), the coalescing deadline
(valid bit + time) and the source port; per connection the CE average (Q0.10, 11 bits) and
the rate-hint base `B`; one coalescing FIFO of (connection, path, deadline) per block.
Config stream `s_cfg` (kind 0: row (conn, path) restarts at path ISN data[23:0], `highest`
= ISN - 1, everything else 0; kind 1: the connection's `B` = data and its CE average 0); the
rows are RAM, not reset, and are written through `s_cfg` before they are used.
A DATA packet on `s` (path >= P: counted in `stat_bad_path`, no row touched): gap =
after(psn, expected) (24-bit serial), `expected` = psn + 1 if after_eq, `highest` = psn if
after, sport kept; class 0 (refused) stops there. Else CE average += ((ce ? 1024 : 0) - avg)
>> 2 (floor), pending += 1, ce += s_ce, timestamp and arrival kept; flags = PATH_GAP 1 |
DUPLICATE 2 (class 2) | ACK_REQ 4 (A bit); an ACK at once when flags != 0, class != 1 or
pending >= N; else, if the row is not armed, the deadline now + T is armed and pushed (or,
with `fifo_depth` entries in the FIFO, the ACK goes at once: `stat_fifo_full`). Every cycle
the FIFO head whose deadline is reached (after_eq(now, t), 32-bit serial) takes the cycle and
pops: an ACK (`m_timer` 1) if its row is still armed with that deadline, else a stale pop.
An ACK: `m_path_psn` = highest, `m_flags`, `m_ecn_ce`, `m_ecn_pkts` = ce, pending,
`m_ts_echo`, `m_ack_delay` = now - arrival, `m_sport`, `m_rate_hint` = B - ((B * avg) >>
11), `m_ack` 1; it clears pending, ce and the deadline. Every DATA packet taken leaves one
entry on `m`, in the order taken: its ACK, or (armed, coalesced, refused, a bad path) a quiet
entry, `m_ack` 0 with the packet's `m_conn` and `m_path` (a bad path id as it came) and every
other field 0 (`m_timer` too); a timer ACK leaves its entry (`m_ack` 1, `m_timer` 1) where
its pop was taken; stale pops and configuration writes leave none. Stages A (taken;
priority: a configuration write waiting in its one-entry register, the due FIFO head, DATA),
B (the row and connection word updated, write-first: back-to-back operations on a row see
each other), C (the hint),
a Q-entry output queue: an operation's entry on `m` L cycles after it is taken (L = the
manifest's latency: 4 with Q = 8 in the RTL header, where a stage R between A and B loads
the RAMs' output registers and forwards B's writes; the first form had L = 3, Q = 4 without
R; both are handled, B being L - 2 cycles after A). `s_ready` = !rst &
room & no configuration write waiting & no head due (`now` -> `s_ready` is combinational);
`s_cfg_ready` = !rst & the register empty; room = queue + operations after A < Q (with
every DATA packet leaving an entry, Q packets without an ACK fill a stalled queue).
Counters `stat_bad_path`, `stat_path_gaps`, `stat_acks_now`, `stat_acks_timer`,
`stat_stale_pops`, `stat_fifo_full` (two cycles after B: B registers what to count, the
count moves one cycle later) and `stat_fifo_level`. Reset clears
the stages, the register, the FIFO, the queue and the counters; the rows and connection
words keep their values.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, every row of the active
  connections written, gaps, reordered, duplicate, far and bad-path packets, every class, the
  A bit, CE runs, mid-run restarts, time jumps, sparse phases where the timer fires, long
  sink stalls, resets) through the model, every output every cycle after the header's settle.
* `directed_semantics` (preset core: N = 4, T = 2000 ns, 256 FIFO entries, 8 paths), every
  entry's fields and cycle on `m` (the ACKs and the quiet entries of the packets that sent
  none), the counters and the FIFO level written by hand: four in-order
  packets across the 24-bit path PSN wrap (ACK with ecn_pkts 4, ack_delay 0, a CE mark: hint
  10000 -> 8750), DATA waiting behind a configuration write, the stale pop at the armed
  deadline (not at deadline - 1); PATH_GAP, DUPLICATE, ACK_REQ, out of window, refused (its
  gap counted), all three flags, bad paths, a stale pop whose deadline lies past the 2^32
  wrap of `now`; timer ACKs (after a time jump: ack_delay = now at the pop - the newest
  arrival; at the exact deadline with two coalesced packets); the stale entry of a row armed
  again (no ACK; the newer entry ACKs); priority cfg > due timer > DATA and the write-first
  row (a restart taken the cycle before the pop makes it stale); output queue backpressure
  (Q operations taken, then `s_ready` low, the head held, released in order, a configuration
  write waiting for room); a full FIFO (time held: 256 armed rows, the 257th ACKed at once,
  then 256 timer ACKs one a cycle); reset (in-flight ACK dropped, counters and FIFO cleared,
  rows and CE averages kept); and scenario H,
  `every_data_packet_leaves_one_entry_in_order_and_stale_pops_leave_none`: an armed, a
  coalesced (CE), a bad-path (A bit) and a refused (A bit, CE) packet each leave a quiet
  entry (`m_ack` 0, their connection and path, every other field 0) in order between two
  real ACKs; a stale pop leaves none, a timer ACK's entry sits between the packets' entries;
  with `m_ready` low, Q packets without an ACK fill the queue and hold `s_ready` low for
  longer than the pipeline, then leave in order.
* `random_backpressure`: first the Python reference below (`AckRef`, a cycle-level model
  written from the contract above) is run on `--no-resets` vectors and must give every output
  the model gave; then random traffic (configured rows of four connections, gaps, reordering,
  every class, A bits, CE phases, mid-run configuration writes, time jumps and the 2^32 wrap,
  sparse phases for the timer, a reset) with random `m_ready` backpressure (long stalls)
  drives the DUT and the reference side by side: every output every cycle (`m_ack` and the
  quiet entries' zeroed fields too), the handshake rules on `m`, the entry count, and every
  cycle that no more than Q DATA packets taken since the reset lack their entry (m_timer 0)
  and none has two.
"""

from __future__ import annotations

import json
import os
import random
from collections import deque

import cocotb

from common.stream import StreamMonitor, default_backpressure
from common.tb import drive, fmt, next_cycle, read, reset, settle, start_clock
from common.vectors import read_header, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
# Entries of the output queue by pipeline latency: the RTL header's 8 at latency 6 (stages A,
# R0, R, B, C, D) and at latency 5 (stages A,
# R, B, C, D: R loads the RAMs' output registers, C registers the rate hint's products) and at
# latency 4 (A, R, B, C); 4 in the first form, latency 3 (A, B, C). The
# manifest gives the latency, not the queue; an unknown latency fails the tests that need it.
OUT_DEPTHS = {3: 4, 4: 8, 5: 8, 6: 8}
# B's slot in the reference's pipeline by latency: the operation taken B - A cycles ago, less 1
# (B is 1 cycle after A at latency 3, 2 at latencies 4 and 5, 3 at latency 6: a stage R0 reads
# the RAMs from address registers)
B_SLOTS = {3: 0, 4: 1, 5: 1, 6: 2}
M24, M32 = (1 << 24) - 1, (1 << 32) - 1
REFUSED, NEW, DUP, OOW = 0, 1, 2, 3
PATH_GAP, DUPLICATE, ACK_REQ = 1, 2, 4
S_FIELDS = ("s_conn", "s_path", "s_path_psn", "s_class", "s_ack_req", "s_ce", "s_ts", "s_sport")
CFG_FIELDS = ("s_cfg_kind", "s_cfg_conn", "s_cfg_path", "s_cfg_data")
M_FIELDS = ("m_conn", "m_path", "m_path_psn", "m_flags", "m_ecn_ce", "m_ecn_pkts", "m_rate_hint", "m_ts_echo",
            "m_ack_delay", "m_sport", "m_timer", "m_ack")
STATS = ("stat_bad_path", "stat_path_gaps", "stat_acks_now", "stat_acks_timer", "stat_stale_pops", "stat_fifo_full",
         "stat_fifo_level")
ALWAYS = ("s_ready", "s_cfg_ready", "m_valid", *STATS)
IDLE = {"rst": 0, "now": 0, "s_valid": 0, **{f: 0 for f in S_FIELDS}, "s_cfg_valid": 0, **{f: 0 for f in CFG_FIELDS},
        "m_ready": 1}


def sizes() -> dict:
    """The block's configuration (MRNIC_*), its latency and output queue depth."""
    z = {k: int(os.environ[f"MRNIC_{k.upper()}"]) for k in ("connections", "paths", "ack_every", "ack_timeout",
                                                             "fifo_depth")}
    assert LATENCY in OUT_DEPTHS, f"MRNIC_LATENCY {LATENCY}: this test knows the output queue of latencies {OUT_DEPTHS}"
    return {**z, "latency": LATENCY, "out_depth": OUT_DEPTHS[LATENCY]}


def outputs(dut) -> dict:
    o = {n: read(getattr(dut, n)) for n in ALWAYS}
    if o["m_valid"] == 1:
        o.update({n: read(getattr(dut, n)) for n in M_FIELDS})
    return o


def ack(conn, path, psn, *, flags=0, ce=0, pkts=1, hint=0, ts=0, delay=0, sport=0, timer=0) -> dict:
    """An ACK's entry on `m` (`m_ack` 1)."""
    return dict(m_conn=conn, m_path=path, m_path_psn=psn, m_flags=flags, m_ecn_ce=ce, m_ecn_pkts=pkts,
                m_rate_hint=hint, m_ts_echo=ts, m_ack_delay=delay, m_sport=sport, m_timer=timer, m_ack=1)


def quiet(conn, path) -> dict:
    """The entry on `m` of a DATA packet that sent no ACK (coalesced, armed, refused or a bad
    path): `m_ack` 0, its connection and path, every other field 0 (`m_timer` too)."""
    return {**{f: 0 for f in M_FIELDS}, "m_conn": conn, "m_path": path}


# ------------------------------------------------------------------ reference (the contract)


def after_eq(a: int, b: int, bits: int) -> bool:
    """Serial arithmetic: a - b mod 2^bits below 2^(bits - 1)."""
    return (a - b) & ((1 << bits) - 1) < 1 << (bits - 1)


def after(a: int, b: int, bits: int) -> bool:
    return a != b and after_eq(a, b, bits)


def ce_next(avg: int, ce: int) -> int:
    """The CE average after one packet: a signed difference shifted right by 2 with floor."""
    return avg + (((1024 if ce else 0) - avg) >> 2)


def rate_hint(base: int, avg: int) -> int:
    return (base - ((base * avg) >> 11)) & M32


class AckRef:
    """The ACK generator cycle by cycle, from the contract in this module's doc: `step(i)`
    takes one cycle's inputs (a dict by port name) and returns that cycle's outputs (a dict
    by port name, the `m` payload only while `m_valid`), then advances to the next cycle.
    A row is [expected, highest, pending, ce, ts, arrival, armed, deadline, sport].

    The pipeline is `latency - 1` slots after A: slot j holds what was taken j + 1 cycles
    ago; the row and connection word are updated (B) 2 cycles after A (1 at latency 3: a RAM
    output register stage R before B changes no result, its writes are forwarded), and the
    entry then moves through the remaining slots (C, and D at latency 5): an ACK, a DATA
    packet's quiet entry (`quiet`) or None (a configuration write, a stale pop)."""

    def __init__(self, connections: int, paths: int, ack_every: int, ack_timeout: int, fifo_depth: int,
                 latency: int, out_depth: int):
        self.C, self.P, self.N, self.T, self.depth = connections, paths, ack_every, ack_timeout, fifo_depth
        self.Q = out_depth
        self.pmask = (1 << max(1, (paths - 1).bit_length())) - 1  # rows per connection - 1 (the RTL's PB bits)
        self.rows: dict[tuple[int, int], list[int]] = {}
        self.avg = [0] * connections
        self.base = [0] * connections
        self.fifo: deque = deque()
        self.cfg = None  # the configuration write waiting in its register
        self.pipe: list = [None] * (latency - 1)  # operations up to B, then (entry or None,) after it
        self.bi = B_SLOTS[latency]  # B's slot
        self.outq: deque = deque()
        self.stats = {s: 0 for s in STATS if s != "stat_fifo_level"}
        self.stats_out = dict(self.stats)  # as the status outputs show them: B's events 2 cycles later

    def row(self, conn: int, path: int) -> list[int]:
        key = (conn, path)
        if key not in self.rows:  # the shell's power-up rows (path ISN 0); never used by the tests' traffic
            self.rows[key] = [0, M24, 0, 0, 0, 0, 0, 0, 0]
        return self.rows[key]

    def room(self) -> bool:
        return len(self.outq) + sum(x is not None for x in self.pipe) < self.Q

    def due(self, now: int) -> bool:
        return bool(self.fifo) and after_eq(now, self.fifo[0][2], 32)

    def outputs(self, i: dict) -> dict:
        on = not i["rst"]
        o = {"s_ready": int(on and self.room() and self.cfg is None and not self.due(i["now"])),
             "s_cfg_ready": int(on and self.cfg is None), "m_valid": int(on and bool(self.outq)),
             **self.stats_out, "stat_fifo_level": len(self.fifo)}
        if o["m_valid"]:
            o.update(self.outq[0])
        return o

    def _take(self, r: list[int], conn: int, path: int, flags: int, now: int, timer: int) -> tuple:
        a = ack(conn, path, r[1], flags=flags, ce=r[3], pkts=r[2], ts=r[4], delay=(now - r[5]) & M32, sport=r[8],
                timer=timer)
        r[2] = r[3] = r[6] = 0
        return a, self.base[conn], self.avg[conn]

    def _stage_b(self, op):
        kind = op[0]
        if kind == "cfg":
            k, conn, path, data = op[1]
            if k == 0:
                isn = data & M24
                self.rows[(conn, path & self.pmask)] = [isn, (isn - 1) & M24, 0, 0, 0, 0, 0, 0, 0]
            else:
                self.base[conn], self.avg[conn] = data, 0
            return None
        if kind == "tmr":
            (conn, path, t), now = op[1], op[2]
            r = self.row(conn, path)
            if not (r[6] and r[7] == t):
                self.stats["stat_stale_pops"] += 1
                return None
            self.stats["stat_acks_timer"] += 1
            return self._take(r, conn, path, 0, now, 1)
        d, now = op[1], op[2]
        conn, path, psn = d["s_conn"], d["s_path"], d["s_path_psn"]
        no_ack = (quiet(conn, path), 0, 0)  # the entry of a packet that sends no ACK (hint 0)
        if path >= self.P:
            self.stats["stat_bad_path"] += 1
            return no_ack
        r = self.row(conn, path)
        gap = after(psn, r[0], 24)
        if after_eq(psn, r[0], 24):
            r[0] = (psn + 1) & M24
        if after(psn, r[1], 24):
            r[1] = psn
        r[8] = d["s_sport"]
        self.stats["stat_path_gaps"] += gap
        cls = d["s_class"]
        if cls == REFUSED:
            return no_ack
        self.avg[conn] = ce_next(self.avg[conn], d["s_ce"])
        flags = (PATH_GAP if gap else 0) | (DUPLICATE if cls == DUP else 0) | (ACK_REQ if d["s_ack_req"] else 0)
        r[2] = (r[2] + 1) & 0xFF
        r[3] = (r[3] + d["s_ce"]) & 0xFF
        r[4], r[5] = d["s_ts"], now
        if flags or cls != NEW or r[2] >= self.N:
            send = flags
        elif not r[6]:
            r[6], r[7] = 1, (now + self.T) & M32
            if len(self.fifo) >= self.depth:
                self.stats["stat_fifo_full"] += 1
                send = 0
            else:
                self.fifo.append((conn, path, r[7]))
                return no_ack
        else:
            return no_ack
        self.stats["stat_acks_now"] += 1
        return self._take(r, conn, path, send, now, 0)

    def step(self, i: dict) -> dict:
        out = self.outputs(i)
        if i["rst"]:
            self.fifo.clear()
            self.cfg = None
            self.pipe = [None] * len(self.pipe)
            self.outq.clear()
            self.stats = {s: 0 for s in self.stats}
            self.stats_out = dict(self.stats)
            return out
        now = i["now"]
        self.stats_out = dict(self.stats)
        room, due = self.room(), self.due(now)
        if out["m_valid"] and i["m_ready"]:
            self.outq.popleft()
        c = self.pipe[-1]
        if c is not None and c[0] is not None:
            a, base, avg = c[0]
            self.outq.append({**a, "m_rate_hint": rate_hint(base, avg)})
        b = self.pipe[self.bi]
        c = None if b is None else (self._stage_b(b),)  # B sees the FIFO as it was at the start of the cycle
        op = None
        if room:  # A (its pop after B's push)
            if self.cfg is not None:
                op, self.cfg = ("cfg", self.cfg), None
            elif due:
                op = ("tmr", self.fifo.popleft(), now)
            elif i["s_valid"] and out["s_ready"]:
                op = ("data", {f: i[f] for f in S_FIELDS}, now)
        self.pipe = [op, *self.pipe[:self.bi], c, *self.pipe[self.bi + 1:-1]]
        if i["s_cfg_valid"] and out["s_cfg_ready"]:
            self.cfg = (i["s_cfg_kind"], i["s_cfg_conn"] % self.C, i["s_cfg_path"], i["s_cfg_data"])
        return out


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "ackgen", LATENCY, what="ACK")


# ---------------------------------------------------------------------- directed test


class Bench:
    """Drives one cycle at a time with `now` advancing `step` ns a cycle (0: time held);
    records every entry transferred on `m` (an ACK, `m_ack` 1, or a DATA packet's entry
    without one, `m_ack` 0) as (cycle, fields) and keeps the expected counters."""

    def __init__(self, dut, now: int):
        self.dut, self.now, self.step, self.cycle, self.m_ready = dut, now, 10, 0, 1
        self.entries: list[tuple[int, dict]] = []
        self.exp = {s: 0 for s in STATS}

    async def tick(self, vals: dict | None = None) -> dict:
        vals = {"now": self.now, "m_ready": self.m_ready, **(vals or {})}
        await next_cycle(self.dut)
        self.cycle += 1
        drive(self.dut, {**IDLE, **vals})
        await settle()
        o = outputs(self.dut)
        o["now"] = vals["now"]
        if o["m_valid"] == 1 and vals["m_ready"]:
            self.entries.append((self.cycle, {f: o[f] for f in M_FIELDS}))
        self.now = (self.now + self.step) & M32
        return o

    async def idle(self, n: int, **vals) -> list[dict]:
        return [await self.tick(vals) for _ in range(n)]

    async def cfg(self, kind: int, conn: int, path: int, data: int, *, then_idle: bool = True) -> int:
        """A configuration write, taken in its cycle; with `then_idle` one more cycle (the
        register taken into A: both readies low in it)."""
        o = await self.tick({"s_cfg_valid": 1, "s_cfg_kind": kind, "s_cfg_conn": conn, "s_cfg_path": path,
                             "s_cfg_data": data})
        assert o["s_cfg_ready"] == 1, f"config write ({kind}, {conn}, {path}, {data:#x}): s_cfg_ready low"
        t = self.cycle
        if then_idle:
            o = await self.tick()
            assert (o["s_cfg_ready"], o["s_ready"]) == (0, 0), \
                f"the cycle after a config write: s_cfg_ready {o['s_cfg_ready']} s_ready {o['s_ready']}, expected 0 0"
        return t

    async def row(self, conn: int, path: int, isn: int, **kw) -> int:
        return await self.cfg(0, conn, path, isn, **kw)

    async def conn(self, conn: int, base: int, **kw) -> int:
        return await self.cfg(1, conn, 0, base, **kw)

    async def send(self, what: str, conn: int, path: int, psn: int, cls: int = NEW, *, a: int = 0, ce: int = 0,
                   ts: int = 0, sport: int = 0, wait: int = 0, **extra) -> tuple[int, int]:
        """A DATA packet offered until taken: `s_ready` must be low in exactly its first
        `wait` cycles. Returns (cycle, now) of the transfer."""
        vals = {"s_valid": 1, "s_conn": conn, "s_path": path, "s_path_psn": psn, "s_class": cls, "s_ack_req": a,
                "s_ce": ce, "s_ts": ts, "s_sport": sport, **extra}
        for k in range(wait + 1):
            o = await self.tick(vals)
            want = int(k == wait)
            assert o["s_ready"] == want, \
                f"{what}: s_ready {o['s_ready']} in cycle {k} of its offer, expected {want} (taken after {wait} cycles)"
        return self.cycle, o["now"]

    def check_entries(self, what: str, since: int, want: list[tuple[int, dict]]) -> None:
        """The entries transferred on `m` since entry `since`: exactly `want` (cycle, fields),
        the quiet entries (`m_ack` 0) as well as the ACKs."""
        got = self.entries[since:]
        if got == want:
            return
        lines = [f"{what}: {len(got)} entries seen ({sum(g[1]['m_ack'] for g in got)} ACKs), {len(want)} expected "
                 f"({sum(w[1]['m_ack'] for w in want)} ACKs) (cycle, fields)"]
        for k in range(max(len(got), len(want))):
            g = got[k] if k < len(got) else None
            w = want[k] if k < len(want) else None
            if g == w:
                continue
            if g is None or w is None:
                lines.append(f"  entry {k}: expected {w}, seen {g}")
                continue
            diff = {f: (fmt(w[1][f]), fmt(g[1][f])) for f in M_FIELDS if w[1][f] != g[1][f]}
            lines.append(f"  entry {k}: cycle expected {w[0]} seen {g[0]}; fields (expected, seen) {diff}; seen {g[1]}")
        raise AssertionError("\n".join(lines))

    async def counters(self, what: str, **delta) -> None:
        """One idle cycle (the counters are registered), then every counter and the FIFO level
        against the expectation (`fifo_level` is absolute, the others are increments)."""
        o = await self.tick()
        for k, v in delta.items():
            if k == "fifo_level":
                self.exp["stat_fifo_level"] = v
            else:
                self.exp[f"stat_{k}"] += v
        diff = {s: (self.exp[s], o[s]) for s in STATS if o[s] != self.exp[s]}
        assert not diff, f"counters after {what} (expected, actual): {diff}"


async def every_data_packet_leaves_one_entry_in_order_and_stale_pops_leave_none(bench: Bench, L: int, Q: int,
                                                                                 T: int) -> None:
    """Scenario H of `directed_semantics` (preset core; connection 11, untouched before, hint
    base 10000). Every DATA packet taken leaves exactly one entry on `m`, L cycles after it,
    in the order taken: an ACK (`m_ack` 1) or, when it sent none, its connection and path
    with `m_ack` 0 and every other field 0 (`m_timer` too), whatever its own fields were
    (PSN, CE, A bit, timestamp, source port). Configuration writes and a stale FIFO pop leave
    none; a timer ACK leaves its entry where its pop was taken, between the packets' entries.
    Then, with `m_ready` low, Q packets that send no ACK (refused, bad paths) fill the output
    queue: `s_ready` stays low (for longer than the pipeline, so it is the queue and not the
    operations in flight that holds it) until the sink takes entries, which leave in order."""
    what = "every DATA packet leaves one entry"
    await bench.conn(11, 10_000)
    for p, isn in ((0, 0x100), (1, 0x200), (3, 0x300)):
        await bench.row(11, p, isn)
    k = len(bench.entries)
    # conn 11's ce_avg: 0 (g0), 0 (g1), 256 (g2: CE), kept by g3 (bad path) and g4 (refused),
    # 192 (g5: hint 10000 - (10000 * 192 >> 11) = 9063), 144 (g6: 9297 at g6's timer ACK).
    g0, _ = await bench.send("H g0 A bit: an ACK", 11, 1, 0x200, a=1, ts=0xB000, sport=0xC101)
    g1, t1 = await bench.send("H g1 armed: no ACK", 11, 0, 0x100, ts=0xB001, sport=0xC100)
    g2, _ = await bench.send("H g2 coalesced, CE: no ACK", 11, 0, 0x101, ce=1, ts=0xB002, sport=0xC100)
    g3, _ = await bench.send("H g3 path 12 (>= P), A bit: no ACK", 11, 12, 0x555, a=1, ce=1, ts=0xB003, sport=0xC10C)
    g4, _ = await bench.send("H g4 refused, A bit, CE: no ACK", 11, 1, 0x201, REFUSED, a=1, ce=1, ts=0xB004,
                             sport=0xC111)
    g5, _ = await bench.send("H g5 A bit: an ACK of g1, g2, g5", 11, 0, 0x102, a=1, ts=0xB005, sport=0xC100)
    g6, t6 = await bench.send("H g6 armed: no ACK", 11, 1, 0x202, ts=0xB006, sport=0xC101)
    await bench.idle(L)
    bench.check_entries(f"{what}: ACKs and quiet entries in order", k, [
        (g0 + L, ack(11, 1, 0x200, flags=ACK_REQ, hint=10_000, ts=0xB000, sport=0xC101)),
        (g1 + L, quiet(11, 0)),
        (g2 + L, quiet(11, 0)),
        (g3 + L, quiet(11, 12)),  # the bad path id as it came
        (g4 + L, quiet(11, 1)),
        (g5 + L, ack(11, 0, 0x102, flags=ACK_REQ, ce=1, pkts=3, hint=9063, ts=0xB005, sport=0xC100)),
        (g6 + L, quiet(11, 1))])
    assert [e["m_ack"] for _, e in bench.entries[k:]] == [1, 0, 0, 0, 0, 1, 0], bench.entries[k:]
    await bench.counters(f"{what}: g0-g6", acks_now=2, bad_path=1, fifo_level=2)  # g1's entry (stale), g6's
    # g1's deadline: the stale pop takes the cycle (s_ready low) and leaves no entry; then g6's
    # deadline with a refused packet offered: the timer ACK's entry, then the packet's.
    k = len(bench.entries)
    bench.now = (t1 + T) & M32
    o = await bench.tick()
    assert o["s_ready"] == 0, f"{what}: g1's stale entry not popped at its deadline: {o}"
    stale = bench.cycle
    assert (t6 + T - bench.now) & M32 < 1 << 31, "g6's deadline was meant to lie ahead"
    bench.now = (t6 + T) & M32
    g7, _ = await bench.send("H g7 refused, behind g6's due entry: no ACK", 11, 0, 0x103, REFUSED, ts=0xB007,
                             sport=0xC100, wait=1)
    await bench.idle(L)
    # g6's timer ACK: row (11, 1)'s sport is g6's (g4, refused, had set it to 0xC111).
    bench.check_entries(f"{what}: a stale pop leaves none, a timer ACK between packets", k, [
        (g7 - 1 + L, ack(11, 1, 0x202, hint=9297, ts=0xB006, delay=T, sport=0xC101, timer=1)),
        (g7 + L, quiet(11, 0))])
    assert g7 - 1 == stale + 1 and all(c != stale + L for c, _ in bench.entries[k:]), \
        f"{what}: an entry in the stale pop's slot (cycle {stale + L}): {bench.entries[k:]}"
    await bench.counters(f"{what}: the pops", acks_timer=1, stale_pops=1, fifo_level=0)

    # The sink stalled: Q packets without an ACK (refused on (11, 3) in order, bad paths 8..)
    # are taken back to back and fill the queue; the next packet (an A bit) waits while the
    # head, the first quiet entry, is held; released, the Q entries leave one a cycle and the
    # packet goes one cycle after the release (the queue was full at its start).
    # ce_avg 144 -> 108 at its ACK: 9473.
    k = len(bench.entries)
    bench.m_ready = 0
    taken, want = [], []
    for j in range(Q):
        if j % 2 == 0:
            c, _ = await bench.send(f"H stall {j} refused", 11, 3, 0x300 + j // 2, REFUSED, a=1, ts=j, sport=j)
            want.append(quiet(11, 3))
        else:
            c, _ = await bench.send(f"H stall {j} path {8 + j // 2}", 11, 8 + j // 2, 0x300, a=1, ts=j, sport=j)
            want.append(quiet(11, 8 + j // 2))
        taken.append(c)
    assert taken == list(range(taken[0], taken[0] + Q)), f"{what}: the {Q} packets not taken back to back: {taken}"
    psn = 0x300 + (Q + 1) // 2
    last = {"s_valid": 1, "s_conn": 11, "s_path": 3, "s_path_psn": psn, "s_class": NEW, "s_ack_req": 1, "s_ce": 0,
            "s_ts": 0xB100, "s_sport": 0xC103}
    held = [await bench.tick(last) for _ in range(L + 2)]
    for j, h in enumerate(held):
        assert h["s_ready"] == 0 and h["m_valid"] == 1, \
            f"{what}: stalled cycle {j}: s_ready {h['s_ready']} m_valid {h['m_valid']} (a queue of {Q} quiet entries)"
        assert {f: h[f] for f in M_FIELDS} == want[0], \
            f"{what}: stalled cycle {j}: the head is not the first entry: {h}"
    assert not bench.entries[k:], f"{what}: an entry transferred while m_ready was low"
    bench.m_ready = 1
    rel = bench.cycle + 1
    r, _ = await bench.send("H the packet after the release", 11, 3, psn, a=1, ts=0xB100, sport=0xC103, wait=1)
    await bench.idle(max(L, Q))
    bench.check_entries(f"{what}: the stalled queue released", k, [
        *[(rel + j, e) for j, e in enumerate(want)],
        (max(r + L, rel + Q), ack(11, 3, psn, flags=ACK_REQ, hint=9473, ts=0xB100, sport=0xC103))])
    await bench.counters(f"{what}: the stall", acks_now=1, bad_path=Q // 2, fifo_level=0)


async def nth_packet_from_the_ram_and_fifo_heads_after_gapped_pops_and_a_push_in_flight(bench: Bench, L: int,
                                                                                         T: int) -> None:
    """Scenario I of `directed_semantics` (preset core; connection 12, untouched before, hint
    base 0: hint 0; every row ISN 0). The cases the back-to-back scenarios do not reach:
    - N packets on (12, 0) five cycles apart (each row read from the RAM, not from W): the
      N-th is ACKed at once (`ecn_pkts` N), the first N - 1 leave quiet entries;
    - five rows armed at times a + 0, 20, 30, 50, 60 ns: their entries pop in the pattern
      pop, none, pop, pop, none, pop, pop (the FIFO head reloaded after a pop-less cycle that
      followed a pop, and after two pops in a row), five timer ACKs in push order;
    - (12, 6) armed alone, then (12, 7) armed 4 cycles before (12, 6)'s deadline: its FIFO
      word is pushed in B in the cycle before the pop and written in the pop's cycle, so the
      head after the pop is that word (forwarded, not the RAM's): (12, 7)'s timer ACK comes."""
    what = "scenario I"
    N = 4
    await bench.conn(12, 0)
    for p in range(8):
        await bench.row(12, p, 0)
    k = len(bench.entries)
    sent_n = []
    for j in range(N):
        sent_n.append(await bench.send(f"I n{j} on (12, 0), five cycles apart", 12, 0, j, ts=0xC000 + j, sport=0xC200))
        await bench.idle(4)
    cs, t0 = [c for c, _ in sent_n], sent_n[0][1]
    await bench.idle(L)
    bench.check_entries(f"{what}: the N-th packet of a row read from the RAM", k, [
        *[(c + L, quiet(12, 0)) for c in cs[:-1]],
        (cs[-1] + L, ack(12, 0, N - 1, pkts=N, ts=0xC000 + N - 1, sport=0xC200))])
    await bench.counters(f"{what}: the N-th packet", acks_now=1, fifo_level=1)
    bench.now = (t0 + T) & M32
    o = await bench.tick()
    assert o["s_ready"] == 0, f"{what}: n0's stale entry not popped at its deadline: {o}"
    await bench.idle(L)
    await bench.counters(f"{what}: n0's stale pop", stale_pops=1, fifo_level=0)

    k = len(bench.entries)
    offs = [0, 2, 3, 5, 6]  # cycles (x 10 ns) after the first packet
    sent = []
    c0 = bench.cycle + 1
    for j, off in enumerate(offs):
        while bench.cycle + 1 < c0 + off:
            await bench.tick()
        sent.append(await bench.send(f"I f{j} on (12, {1 + j})", 12, 1 + j, 0, ts=0xC100 + j, sport=0xC210 + j))
    assert [c - c0 for c, _ in sent] == offs, f"{what}: packets taken at {sent}"
    await bench.idle(L)
    await bench.counters(f"{what}: five rows armed", fifo_level=len(offs))
    a = sent[0][1]
    bench.now = (a + T) & M32
    p0 = bench.cycle + 1
    ready = [(await bench.tick())["s_ready"] for _ in range(offs[-1] + 1)]
    assert ready == [int(o not in offs) for o in range(offs[-1] + 1)], \
        f"{what}: s_ready {ready} from the first deadline: pops expected at offsets {offs}"
    await bench.idle(L)
    bench.check_entries(f"{what}: five timer ACKs after gapped pops", k, [
        *[(c + L, quiet(12, 1 + j)) for j, (c, _) in enumerate(sent)],
        *[(p0 + off + L, ack(12, 1 + j, 0, ts=0xC100 + j, delay=T, sport=0xC210 + j, timer=1))
          for j, off in enumerate(offs)]])
    await bench.counters(f"{what}: five timer ACKs", acks_timer=len(offs), fifo_level=0)

    k = len(bench.entries)
    cx, tx = await bench.send("I x on (12, 6), armed alone", 12, 6, 0, ts=0xC300, sport=0xC216)
    await bench.idle(L)
    bench.now = (tx + T - 40) & M32
    cy, ty = await bench.send("I y on (12, 7), 4 cycles before x's deadline", 12, 7, 0, ts=0xC301, sport=0xC217)
    ready = [(await bench.tick())["s_ready"] for _ in range(4)]
    assert ready == [1, 1, 1, 0], f"{what}: s_ready {ready} after y: x's pop expected 4 cycles after y"
    px = bench.cycle
    await bench.idle(L)
    bench.now = (ty + T) & M32
    o = await bench.tick()
    assert o["s_ready"] == 0, f"{what}: y's entry not popped at its deadline (the head after x's pop): {o}"
    py = bench.cycle
    await bench.idle(L)
    bench.check_entries(f"{what}: the head after a pop is the word pushed in the cycle before", k, [
        (cx + L, quiet(12, 6)), (cy + L, quiet(12, 7)),
        (px + L, ack(12, 6, 0, ts=0xC300, delay=T, sport=0xC216, timer=1)),
        (py + L, ack(12, 7, 0, ts=0xC301, delay=T, sport=0xC217, timer=1))])
    await bench.counters(f"{what}: x's and y's timer ACKs", acks_timer=2, fifo_level=0)


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written scenarios, every entry on m (ACK or not: its fields and cycle) and every counter
    written by hand."""
    z = sizes()
    assert (z["paths"], z["ack_every"], z["ack_timeout"], z["fifo_depth"]) == (8, 4, 2000, 256) \
        and z["connections"] >= 64, f"the scenarios are written for preset core (P 8, N 4, T 2000, 256 entries): {z}"
    L, Q, T = z["latency"], z["out_depth"], 2000
    assert Q > L, f"an output queue of {Q} for latency {L}: one operation a cycle needs more than L entries"
    n0 = 0xFFFF_F000  # the 32-bit time wraps during the timer scenarios
    start_clock(dut)
    drive(dut, {**IDLE, "now": n0})

    def during(d):
        o = outputs(d)
        assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (0, 0, 0), f"during rst: {o}"

    await reset(dut, cycles=2, idle={**IDLE, "now": n0}, during=during)
    bench = Bench(dut, n0)
    o = await bench.tick()
    assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (1, 1, 0), f"after rst: {o}"
    assert all(o[s] == 0 for s in STATS), f"counters after rst: {o}"

    # ---- A. Coalescing by count on (5, 2), path ISN 0xfffffe (the path PSNs wrap at 2^24).
    # A DATA packet offered the cycle after a configuration write waits one cycle (cfg first).
    await bench.conn(5, 10_000)
    await bench.row(5, 2, 0xAB_FFFFFE, then_idle=False)  # data[31:24] is not part of the ISN
    k = len(bench.entries)
    c0, t0 = await bench.send("p0 behind the config write", 5, 2, 0xFFFFFE, ts=0x1000, sport=0xC002, wait=1)
    c1, _ = await bench.send("p1", 5, 2, 0xFFFFFF, ts=0x1001, sport=0xC002)
    c2, _ = await bench.send("p2", 5, 2, 0x000000, ts=0x1002, sport=0xC002)
    c3, _ = await bench.send("p3", 5, 2, 0x000001, ce=1, ts=0x1003, sport=0xC002)
    await bench.idle(L)
    # p0 (armed), p1 and p2 (coalesced) send no ACK: an entry each with m_ack 0.
    # ce_avg 0, 0, 0, then 256 (one CE mark): hint 10000 - (10000 * 256 >> 11) = 8750.
    bench.check_entries("4 in-order packets (N = 4)", k,
                        [(c0 + L, quiet(5, 2)), (c1 + L, quiet(5, 2)), (c2 + L, quiet(5, 2)),
                         (c3 + L, ack(5, 2, 1, ce=1, pkts=4, hint=8750, ts=0x1003, delay=0, sport=0xC002))])
    await bench.counters("the 4 packets", acks_now=1, fifo_level=1)  # p0's entry is stale now
    # The stale pop exactly at p0's deadline, not 1 ns before.
    bench.now, bench.step = (t0 + T - 1) & M32, 1
    o = await bench.tick()
    assert o["s_ready"] == 1, f"p0's entry popped at deadline - 1: {o}"
    o = await bench.tick()
    assert o["s_ready"] == 0 and o["now"] == (t0 + T) & M32, f"p0's entry not popped at its deadline: {o}"
    bench.step = 10
    o = await bench.tick()
    assert o["s_ready"] == 1 and o["stat_fifo_level"] == 0, f"after the pop: {o}"
    await bench.idle(L)
    bench.check_entries("p0's stale pop", k + 4, [])
    await bench.counters("the stale pop", stale_pops=1, fifo_level=0)

    # ---- B. Flags on (5, 3), ISN 100 (every ACK at once, back to back; conn 5's CE average
    # goes 256 -> 192 -> 144 -> 108 -> 81 -> 60 -> 301 -> 225).
    await bench.row(5, 3, 100)
    k = len(bench.entries)
    q0, _ = await bench.send("q0 gap", 5, 3, 103, ts=1, sport=0xC003)
    q1, _ = await bench.send("q1 duplicate behind", 5, 3, 101, DUP, ts=2, sport=0xC003)
    q2, _ = await bench.send("q2 A bit", 5, 3, 104, a=1, ts=3, sport=0xC003)
    q3, _ = await bench.send("q3 out of window", 5, 3, 105, OOW, ts=4, sport=0xC013)
    q4, _ = await bench.send("q4 refused with a gap", 5, 3, 107, REFUSED, ce=1, ts=5, sport=0xC023)
    q5, t5 = await bench.send("q5 in order, armed", 5, 3, 108, ts=6, sport=0xC003)
    q6, _ = await bench.send("q6 duplicate, CE", 5, 3, 108, DUP, ce=1, ts=7, sport=0xC003)
    q7, _ = await bench.send("q7 path 9 (>= P)", 5, 9, 200, a=1, ts=8, sport=0xC009)
    q7b, _ = await bench.send("q7b path 8 (>= P)", 5, 8, 109, DUP, ts=9, sport=0xC008)
    q8, _ = await bench.send("q8 gap, duplicate and A", 5, 3, 112, DUP, a=1, ts=10, sport=0xC003)
    await bench.idle(L)
    bench.check_entries("the flags", k, [
        (q0 + L, ack(5, 3, 103, flags=PATH_GAP, hint=9063, ts=1, sport=0xC003)),
        (q1 + L, ack(5, 3, 103, flags=DUPLICATE, hint=9297, ts=2, sport=0xC003)),
        (q2 + L, ack(5, 3, 104, flags=ACK_REQ, hint=9473, ts=3, sport=0xC003)),
        (q3 + L, ack(5, 3, 105, flags=0, hint=9605, ts=4, sport=0xC013)),
        (q4 + L, quiet(5, 3)),  # refused: no ACK, an entry
        (q5 + L, quiet(5, 3)),  # armed: no ACK, an entry
        (q6 + L, ack(5, 3, 108, flags=DUPLICATE, ce=1, pkts=2, hint=8531, ts=7, sport=0xC003)),
        (q7 + L, quiet(5, 9)),  # a bad path: no ACK (not even with its A bit), an entry with its path id
        (q7b + L, quiet(5, 8)),
        (q8 + L, ack(5, 3, 112, flags=PATH_GAP | DUPLICATE | ACK_REQ, hint=8902, ts=10, sport=0xC003)),
    ])
    await bench.counters("the flags", acks_now=6, path_gaps=3, bad_path=2, fifo_level=1)  # q5's entry, stale
    assert (t5 + T) & M32 < t5, f"q5's deadline was meant to lie past the 2^32 wrap (now {t5:#x})"
    bench.now = (t5 + T) & M32  # a time jump to q5's deadline, past the wrap
    o = await bench.tick()
    assert o["s_ready"] == 0, f"q5's entry not popped at its deadline: {o}"
    await bench.idle(L)
    bench.check_entries("q5's stale pop", k + 10, [])
    await bench.counters("q5's stale pop", stale_pops=1, fifo_level=0)

    # ---- C. Timer ACKs on connection 7 (hint base 10000): one CE-marked packet (ce_avg 256:
    # hint 8750) ACKed after a time jump past T; two coalesced packets ACKed at the deadline.
    await bench.conn(7, 10_000)
    for p, isn in ((0, 0), (1, 0x10), (2, 0x500), (3, 0x20), (4, 0x30)):
        await bench.row(7, p, isn)
    k = len(bench.entries)
    r0, a0 = await bench.send("r0", 7, 0, 0, ce=1, ts=0xABCD0001, sport=0x1234)
    await bench.idle(L)
    await bench.counters("r0 armed", fifo_level=1)
    bench.now = (a0 + T + 1234) & M32  # time jumps past the deadline
    o = await bench.tick()
    assert o["s_ready"] == 0, f"r0's entry not popped after the jump: {o}"
    pop = bench.cycle
    await bench.idle(L)
    bench.check_entries("r0's timer ACK", k, [
        (r0 + L, quiet(7, 0)),  # armed: no ACK
        (pop + L, ack(7, 0, 0, ce=1, pkts=1, hint=8750, ts=0xABCD0001, delay=T + 1234, sport=0x1234, timer=1))])
    await bench.counters("r0's timer ACK", acks_timer=1, fifo_level=0)
    s0, b0 = await bench.send("s0", 7, 1, 0x10, ts=0x5000, sport=0xC001)
    await bench.idle(2)
    bench.now = (b0 + 500) & M32
    s1, _ = await bench.send("s1, 500 ns later", 7, 1, 0x11, ts=0x5001, sport=0xC001)
    bench.now, bench.step = (b0 + T - 1) & M32, 1
    o = await bench.tick()
    assert o["s_ready"] == 1, f"s0's entry popped at deadline - 1: {o}"
    o = await bench.tick()
    assert o["s_ready"] == 0 and o["now"] == (b0 + T) & M32, f"s0's entry not popped at its deadline: {o}"
    pop = bench.cycle
    bench.step = 10
    await bench.idle(L)
    # ce_avg 256 -> 192 (s0) -> 144 (s1): 9297; delay from s1's arrival: 2000 - 500.
    bench.check_entries("the coalesced timer ACK", k + 2, [
        (s0 + L, quiet(7, 1)), (s1 + L, quiet(7, 1)),  # armed, coalesced: no ACK
        (pop + L, ack(7, 1, 0x11, pkts=2, hint=9297, ts=0x5001, delay=1500, sport=0xC001, timer=1))])
    await bench.counters("the coalesced timer ACK", acks_timer=1, fifo_level=0)
    # A stale entry whose row is armed again (a later deadline) pops without an ACK; the newer
    # entry sends it (conn 9, hint base 0: hint 0).
    await bench.conn(9, 0)
    await bench.row(9, 1, 0x50)
    k = len(bench.entries)
    x0, h0 = await bench.send("x0 armed", 9, 1, 0x50, ts=0xA000, sport=0xC001)
    x1, _ = await bench.send("x1 A bit: ACK at once, the row disarmed", 9, 1, 0x51, a=1, ts=0xA001, sport=0xC001)
    x2, h2 = await bench.send("x2 armed again", 9, 1, 0x52, ts=0xA002, sport=0xC001)
    await bench.idle(L)
    await bench.counters("x0, x1, x2", acks_now=1, fifo_level=2)
    bench.now = (h0 + T) & M32
    pops = [(await bench.tick())["s_ready"] == 0 for _ in range((h2 - h0) // 10 + 1)]
    assert pops == [True, False, True], f"pops at x0's deadline and 20 ns later (x2's): {pops}"
    pop = bench.cycle
    await bench.idle(L)
    bench.check_entries("a stale entry of a row armed again", k, [  # the stale pop leaves no entry
        (x0 + L, quiet(9, 1)),
        (x1 + L, ack(9, 1, 0x51, flags=ACK_REQ, pkts=2, ts=0xA001, sport=0xC001)),
        (x2 + L, quiet(9, 1)),
        (pop + L, ack(9, 1, 0x52, ts=0xA002, delay=T, sport=0xC001, timer=1))])
    await bench.counters("a stale entry of a row armed again", acks_timer=1, stale_pops=1, fifo_level=0)

    # ---- D. Priority cfg > due timer > DATA. (7, 2) armed, its deadline E; a restart of
    # (7, 2) transferred the cycle before E; DATA on (7, 2) offered from E: the write is taken
    # at E, the head pops at E + 10 and finds the row restarted (write-first: stale), the
    # packet goes at E + 20 against the new ISN. ce_avg 144 -> 108 (t0) -> 81 (u): 9605.
    k = len(bench.entries)
    t0c, e0 = await bench.send("t0", 7, 2, 0x500, ts=0x6000, sport=0xC002)
    await bench.idle(L)
    bench.now = (e0 + T - 10) & M32
    await bench.row(7, 2, 0x900, then_idle=False)
    o_due = bench.now
    u, _ = await bench.send("u behind a config write and a due head", 7, 2, 0x900, a=1, ts=0x6001, sport=0xC012,
                            wait=2)
    assert o_due == (e0 + T) & M32
    await bench.idle(L)
    bench.check_entries("restart before the pop", k, [
        (t0c + L, quiet(7, 2)),  # armed: no ACK; its stale pop: no entry
        (u + L, ack(7, 2, 0x900, flags=ACK_REQ, hint=9605, ts=0x6001, sport=0xC012))])
    await bench.counters("restart before the pop", acks_now=1, stale_pops=1, fifo_level=0)
    # (7, 3) armed; DATA on (7, 4) offered in the cycle its deadline is reached waits one
    # cycle; the timer ACK (ce_avg 60 at the pop: 9708) comes first, then the packet's (45: 9781).
    v0, f0 = await bench.send("v0", 7, 3, 0x20, ts=0x7000, sport=0xC003)
    await bench.idle(L)
    bench.now = (f0 + T) & M32
    w, _ = await bench.send("w offered with the head due", 7, 4, 0x30, a=1, ts=0x7001, sport=0xC004, wait=1)
    await bench.idle(L)
    bench.check_entries("timer before DATA", k + 2, [
        (v0 + L, quiet(7, 3)),  # armed: no ACK
        (w - 1 + L, ack(7, 3, 0x20, hint=9708, ts=0x7000, delay=T, sport=0xC003, timer=1)),
        (w + L, ack(7, 4, 0x30, flags=ACK_REQ, hint=9781, ts=0x7001, sport=0xC004))])
    await bench.counters("timer before DATA", acks_now=1, acks_timer=1, fifo_level=0)

    # ---- E. Backpressure, with conn 7's hint base 0 (hint 0): m_ready low, A-bit packets on
    # (7, 4) back to back: Q operations (the output queue's entries) are taken, then s_ready
    # is low and the head held; a configuration write (conn 7's base 0x10000) is accepted into
    # its register and waits for room; m_ready high: in the release cycle nothing is taken (the
    # queue was full at its start), the Q ACKs leave in order one a cycle, the write goes
    # next, then the last packet (hint 0x10000: the new base, CE average 0).
    await bench.conn(7, 0)
    k = len(bench.entries)
    bench.m_ready = 0
    taken = []
    for j in range(Q):
        c, _ = await bench.send(f"e{j}", 7, 4, 0x31 + j, a=1, ts=0x8000 + j, sport=0xC004)
        taken.append(c)
    assert taken == list(range(taken[0], taken[0] + Q)), f"the {Q} packets not taken back to back: {taken}"
    last = {"s_valid": 1, "s_conn": 7, "s_path": 4, "s_path_psn": 0x31 + Q, "s_class": NEW, "s_ack_req": 1, "s_ce": 0,
            "s_ts": 0x8000 + Q, "s_sport": 0xC004}
    held = [await bench.tick(last) for _ in range(2)]
    o = await bench.tick({**last, "s_cfg_valid": 1, "s_cfg_kind": 1, "s_cfg_conn": 7, "s_cfg_data": 0x10000})
    assert o["s_cfg_ready"] == 1, f"stalled: the config register refused a write: {o}"
    held += [o] + [await bench.tick(last) for _ in range(L + 1)]
    first = ack(7, 4, 0x31, flags=ACK_REQ, ts=0x8000, sport=0xC004)
    for j, h in enumerate(held):
        assert h["s_ready"] == 0 and h["m_valid"] == 1, \
            f"stalled cycle {j}: s_ready {h['s_ready']} m_valid {h['m_valid']}"
        assert {f: h[f] for f in M_FIELDS} == first, f"stalled cycle {j}: the head is not the first ACK: {h}"
        assert j == 2 or h["s_cfg_ready"] == (1 if j < 2 else 0), f"stalled cycle {j}: s_cfg_ready {h['s_cfg_ready']}"
    assert not bench.entries[k:], "an entry transferred while m_ready was low"
    bench.m_ready = 1
    rel = bench.cycle + 1
    r5, _ = await bench.send("the last packet after the release", 7, 4, 0x31 + Q, a=1, ts=0x8000 + Q, sport=0xC004,
                             wait=2)
    assert r5 == rel + 2
    await bench.idle(max(L, Q))
    bench.check_entries("the release", k, [
        *[(rel + j, ack(7, 4, 0x31 + j, flags=ACK_REQ, ts=0x8000 + j, sport=0xC004)) for j in range(Q)],
        (max(r5 + L, rel + Q), ack(7, 4, 0x31 + Q, flags=ACK_REQ, hint=0x10000, ts=0x8000 + Q, sport=0xC004))])
    await bench.counters("the release", acks_now=Q + 1, fifo_level=0)

    # ---- F. A full FIFO. Time held: 256 rows armed with the same deadline, the 257th row's
    # packet is ACKed at once (stat_fifo_full); then time reaches the deadline and moves 10 ns
    # a cycle: 256 timer ACKs one a cycle in push order, ack_delay 2000 + 10 j.
    depth = z["fifo_depth"]
    rows = [(16 + j // 8, j % 8) for j in range(depth + 1)]
    for c in sorted({c for c, _ in rows}):
        await bench.conn(c, 0)
    for c, p in rows:
        await bench.row(c, p, 0x77)
    bench.step = 0
    g = bench.now
    k = len(bench.entries)
    cyc = []
    for j, (c, p) in enumerate(rows):
        cj, _ = await bench.send(f"fill {j}", c, p, 0x77, ts=j, sport=j)
        cyc.append(cj)
    assert cyc == list(range(cyc[0], cyc[0] + depth + 1)), "the fill was not taken one packet a cycle"
    await bench.idle(L)
    c, p = rows[depth]
    bench.check_entries("the FIFO full", k, [*[(cyc[j] + L, quiet(*rows[j])) for j in range(depth)],  # armed
                                             (cyc[depth] + L, ack(c, p, 0x77, ts=depth, sport=depth))])
    await bench.counters("the FIFO full", acks_now=1, fifo_full=1, fifo_level=depth)
    bench.now, bench.step = (g + T) & M32, 10
    p0 = bench.cycle + 1
    await bench.idle(depth + L)
    bench.check_entries("the full FIFO's timer ACKs", k + depth + 1,
                        [(p0 + j + L, ack(c, p, 0x77, delay=T + 10 * j, ts=j, sport=j, timer=1))
                         for j, (c, p) in enumerate(rows[:depth])])
    await bench.counters("the full FIFO's timer ACKs", acks_timer=depth, fifo_level=0)

    # ---- G. Reset: an ACK held in the queue and an armed row (5, 4); after rst nothing comes
    # out, the counters and the FIFO are cleared, the rows and CE averages are kept: (5, 2)
    # continues at path PSN 3 without a gap; (5, 4) keeps its pending packet and its armed
    # bit, so it is not armed again (no FIFO entry) and its 4th packet is ACKed with
    # ecn_pkts 4. Conn 5's ce_avg: 225 -> 168 -> 126 before, 94, 70, 52, 39 after.
    await bench.row(5, 4, 0x40)
    bench.m_ready = 0
    await bench.send("(5, 2) held", 5, 2, 2, a=1, ts=0x9000, sport=0xC002)
    await bench.send("(5, 4) armed", 5, 4, 0x40, ts=0x9001, sport=0xC004)
    o = (await bench.idle(L))[-1]
    assert o["m_valid"] == 1 and o["m_ack"] == 1 and o["stat_fifo_level"] == 1, f"before rst: {o}"
    await reset(dut, cycles=2, idle={**IDLE, "now": bench.now, "m_ready": 0}, during=during)
    bench.m_ready = 1
    bench.exp = {s: 0 for s in STATS}
    k = len(bench.entries)
    o = await bench.tick()
    assert o["m_valid"] == 0 and all(o[s] == 0 for s in STATS), f"after rst: {o}"
    s3, _ = await bench.send("(5, 2) after rst", 5, 2, 3, a=1, ts=0x9002, sport=0xC002)
    sj = [(await bench.send(f"(5, 4) {j} after rst", 5, 4, 0x41 + j, ts=0x9003 + j, sport=0xC004))[0]
          for j in range(3)]
    await bench.idle(L)
    bench.check_entries("after rst", k, [
        (s3 + L, ack(5, 2, 3, flags=ACK_REQ, hint=9542, ts=0x9002, sport=0xC002)),
        (sj[0] + L, quiet(5, 4)), (sj[1] + L, quiet(5, 4)),  # the row still armed: coalesced, no ACK
        (sj[2] + L, ack(5, 4, 0x43, pkts=4, hint=9810, ts=0x9005, sport=0xC004))])
    await bench.counters("after rst", acks_now=2, fifo_level=0)

    # ---- H. Every DATA packet leaves one entry on m, in order, ACK or not.
    await every_data_packet_leaves_one_entry_in_order_and_stale_pops_leave_none(bench, L, Q, T)
    # ---- I. The N test on a row read from the RAM, the FIFO head after gapped pops and after
    # a push in flight.
    await nth_packet_from_the_ram_and_fifo_heads_after_gapped_pops_and_a_push_in_flight(bench, L, T)
    acks = sum(e["m_ack"] for _, e in bench.entries)
    dut._log.info("directed_semantics: %d entries on m checked (%d ACKs, %d without an ACK) over %d cycles (latency "
                  "%d, output queue %d)", len(bench.entries), acks, len(bench.entries) - acks, bench.cycle, L, Q)


# ------------------------------------------------------------------- randomized test


def check_reference(path: str, z: dict) -> tuple[int, int, int]:
    """`AckRef` over the vectors at `path` (the model's outputs): every output every cycle
    after the header's settle. Returns (cycles, cycles with an ACK on m, cycles with a DATA
    packet's entry without an ACK on m)."""
    header = read_header(path)
    settle_cycles = int(header.get("settle", 0))
    ref = AckRef(**z)
    n = beats = quiet_beats = 0
    with open(path) as f:
        f.readline()
        for n, line in enumerate(f):
            c = json.loads(line)
            want = ref.step(c["in"])
            if n < settle_cycles:
                continue
            exp = c["out"]
            bad = {p: (exp[p], want[p]) for p in ALWAYS if exp[p] != want[p]}
            if exp["m_valid"] == 1:
                beats += exp["m_ack"]
                quiet_beats += 1 - exp["m_ack"]
                bad.update({p: (exp[p], want.get(p)) for p in M_FIELDS if exp[p] != want.get(p)})
            assert not bad, f"{path}: cycle {n}: the Python reference differs from the model (model, reference): {bad}"
    return n + 1, beats, quiet_beats


class Traffic:
    """Random traffic for the randomized test: the rows of four connections (0, the last one,
    two random) and their hint bases written after each reset, then DATA on them only: mostly
    the next path PSN, gaps of 1-3, packets 1-4 behind, far ones, every class, A bits, CE in
    phases, bad paths, mid-run restarts and base changes; time 10 ns a cycle with rare jumps
    (across the 2^32 wrap early in the run); phases of full, random and sparse offers (the
    coalescing timer fires between packets). An offer is held until taken; idle payloads are
    random."""

    def __init__(self, seed: int, z: dict):
        self.rng = r = random.Random(seed)
        self.z = z
        C = z["connections"]
        self.rows = 1 << max(1, (z["paths"] - 1).bit_length())
        self.active = [0, C - 1]
        while len(self.active) < min(4, C):
            c = r.randrange(C)
            if c not in self.active:
                self.active.append(c)
        self.psn: dict[tuple[int, int], int] = {}
        self.cfgq: deque = deque()
        self.init_left = 0  # the first writes of cfgq are the rows' initial writes
        self.cur = None  # the DATA offer
        self.now = (1 << 32) - r.randrange(20_000, 40_000)
        self.left = 0
        self.p_s, self.p_ce = 1.0, 0.2
        self.mix = {"packets": 0, "cfg": 0, "jumps": 0, "mid_cfg": 0, "restarts": 0}

    def restart(self) -> None:
        """At the start and after a reset: the sources restart and write every row and hint
        base again; DATA waits until those writes are transferred (a write waiting in the
        register goes to A before any later DATA)."""
        r = self.rng
        self.cfgq.clear()
        self.cur = None
        for conn in self.active:
            base = r.choice([0, M32, r.randrange(1, 100_000), r.randrange(1, 100_000)])
            self.cfgq.append((1, conn, r.randrange(16), base))
            for p in range(self.rows):
                isn = M24 - r.randrange(8) if r.random() < 0.2 else r.randrange(1 << 24)
                self.psn[(conn, p)] = isn
                self.cfgq.append((0, conn, p, isn | r.randrange(256) << 24))
        self.init_left = len(self.cfgq)
        self.mix["restarts"] += 1

    def packet(self) -> dict:
        r = self.rng
        conn = r.choice(self.active)
        P = self.z["paths"]
        path = r.randrange(P, 16) if P < 16 and r.random() < 0.02 else r.randrange(P)
        nxt = self.psn.get((conn, path & (self.rows - 1)), 0)
        k = r.randrange(40)
        if k < 3:
            psn = (nxt + r.randint(1, 3)) & M24  # a gap
        elif k < 5:
            psn = (nxt - r.randint(1, 4)) & M24  # behind
        elif k == 5:
            psn = (nxt + r.randrange(1 << 22, 1 << 24)) & M24  # far (ahead or behind)
        else:
            psn = nxt
        if path < P and after_eq(psn, nxt, 24):
            self.psn[(conn, path)] = (psn + 1) & M24
        k = r.randrange(20)
        cls = DUP if k < 2 else OOW if k == 2 else REFUSED if k < 6 else NEW
        return {"s_conn": conn, "s_path": path, "s_path_psn": psn, "s_class": cls,
                "s_ack_req": int(r.random() < 1 / 30), "s_ce": int(r.random() < self.p_ce), "s_ts": r.getrandbits(32),
                "s_sport": 0xC000 | path if r.random() < 0.9 else r.getrandbits(16)}

    def inputs(self, rst: bool) -> dict:
        """The inputs of the next cycle."""
        r = self.rng
        if self.left == 0:
            self.left = r.randrange(50, 600)
            self.p_s = r.choice([1.0, 0.7, 0.3, 0.05, 0.01])
            self.p_ce = r.choice([0.0, 0.05, 0.3, 1.0])
        self.left -= 1
        self.now = (self.now + 10) & M32
        if r.random() < 1 / 700:
            self.now = (self.now + r.randint(1, 2 * self.z["ack_timeout"])) & M32
            self.mix["jumps"] += 1
        if not rst and not self.cfgq and r.random() < 1 / 400:
            conn = r.choice(self.active)
            if r.random() < 0.5:  # a path restarts (its FIFO entry, if any, goes stale)
                p = r.randrange(self.rows)
                self.psn[(conn, p)] = isn = r.randrange(1 << 24)
                self.cfgq.append((0, conn, p, isn))
            else:  # a new hint base (the CE average back to 0)
                self.cfgq.append((1, conn, r.randrange(16), r.getrandbits(32)))
            self.mix["mid_cfg"] += 1
        if not rst and self.cur is None and not self.init_left and r.random() < self.p_s:
            self.cur = self.packet()
        C = self.z["connections"]
        i = {"rst": int(rst), "now": self.now, "s_valid": int(self.cur is not None and not rst),
             "s_cfg_valid": int(bool(self.cfgq) and not rst)}
        i.update(self.cur if self.cur is not None else
                 {"s_conn": r.randrange(C), "s_path": r.randrange(16), "s_path_psn": r.getrandbits(24),
                  "s_class": r.randrange(4), "s_ack_req": r.randrange(2), "s_ce": r.randrange(2),
                  "s_ts": r.getrandbits(32), "s_sport": r.getrandbits(16)})
        c = self.cfgq[0] if self.cfgq else (r.randrange(2), r.randrange(C), r.randrange(16), r.getrandbits(32))
        i.update(zip(CFG_FIELDS, c))
        return i

    def taken(self, i: dict, o: dict) -> None:
        """The cycle's transfers (o: its outputs)."""
        if i["s_valid"] and o["s_ready"]:
            self.cur = None
            self.mix["packets"] += 1
        if i["s_cfg_valid"] and o["s_cfg_ready"]:
            self.cfgq.popleft()
            self.init_left = max(0, self.init_left - 1)
            self.mix["cfg"] += 1


@cocotb.test()
async def random_backpressure(dut):
    """The Python reference checked on the model's no-reset vectors, then random traffic with
    random m_ready backpressure into the DUT and the reference side by side: every output
    every cycle, the handshake rules on m."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n = int(os.environ.get("MRNIC_RANDOM_OPS", "2000"))
    z = sizes()
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block ackgen --no-resets` vectors"
    vcycles, vbeats, vquiet = check_reference(path, z)
    assert vquiet > 0 or vcycles < 1000, f"{path}: no entry without an ACK in {vcycles} cycles of vectors"
    dut._log.info("the Python reference equals the model on %s: %d cycles, %d with an ACK on m, %d with a DATA "
                  "packet's entry without one", path, vcycles, vbeats, vquiet)

    streams = {s["name"]: s for s in read_header(path)["streams"]}
    ref = AckRef(**z)
    traffic = Traffic(seed, z)
    bp = default_backpressure(seed)
    h_always = [(p, getattr(dut, p)) for p in ALWAYS]
    h_payload = [(p, getattr(dut, p)) for p in M_FIELDS]
    widths = {p: len(getattr(dut, p)) for p in (*ALWAYS, *M_FIELDS)}
    rst_cycles = {0, 1, n // 2, n // 2 + 1}  # the reference starts in reset; one reset mid-run
    in_rst = {"v": True}
    mon = StreamMonitor(dut, streams["m"], reset_active=lambda: in_rst["v"])
    start_clock(dut)
    drive(dut, {**IDLE, "rst": 1, "now": traffic.now})
    mon_task = cocotb.start_soon(mon.run())
    stat = {"entries": 0, "acks": 0, "quiet": 0, "timer": 0, "held": 0, "s_held": 0, "cfg_held": 0, "max_level": 0}
    since_rst = {"packets": 0, "data_entries": 0}  # DATA packets taken, their entries (m_timer 0) transferred
    recent: deque = deque(maxlen=3)
    for cyc in range(n):
        rst = cyc in rst_cycles
        i = traffic.inputs(rst)
        i["m_ready"] = int(not next(bp))
        await next_cycle(dut)
        in_rst["v"] = rst
        drive(dut, i)
        await settle()
        want = ref.step(i)
        recent.append(i)
        bad = [(p, want[p], got) for p, h in h_always if (got := read(h)) != want[p]]
        if want["m_valid"] == 1:
            bad += [(p, want[p], got) for p, h in h_payload if (got := read(h)) != want[p]]
        if bad:
            lines = [f"random_backpressure cycle {cyc}: {len(bad)} output(s) differ from the Python reference"]
            lines += [f"  {p}: expected {fmt(w, widths[p])} actual {fmt(g, widths[p])}" for p, w, g in bad]
            lines += [f"  inputs of cycle {cyc - len(recent) + 1 + k}: {x}" for k, x in enumerate(recent)]
            raise AssertionError("\n".join(lines))
        if want["m_valid"]:
            if i["m_ready"]:
                stat["entries"] += 1
                stat["acks"] += want["m_ack"]
                stat["quiet"] += 1 - want["m_ack"]
                stat["timer"] += want["m_timer"]
                since_rst["data_entries"] += 1 - want["m_timer"]
            else:
                stat["held"] += 1
        if rst:
            since_rst = {"packets": 0, "data_entries": 0}
        else:
            since_rst["packets"] += i["s_valid"] and want["s_ready"]
            # one entry per packet: never more entries than packets, and at most Q packets
            # taken whose entries are still in the pipeline or the queue (the room rule)
            inflight = since_rst["packets"] - since_rst["data_entries"]
            assert 0 <= inflight <= ref.Q, f"random_backpressure cycle {cyc}: {since_rst}: {inflight} DATA packets " \
                                           f"without their entry on m (0 to {ref.Q} expected)"
        stat["s_held"] += i["s_valid"] and not want["s_ready"]
        stat["cfg_held"] += i["s_cfg_valid"] and not want["s_cfg_ready"]
        stat["max_level"] = max(stat["max_level"], want["stat_fifo_level"])
        if rst and cyc + 1 not in rst_cycles:
            traffic.restart()
        elif not rst:
            traffic.taken(i, want)
    await next_cycle(dut)
    mon_task.cancel()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == stat["entries"], \
        f"the monitor saw {mon.transfers} entries on m, the reference {stat['entries']}"
    last = ref.stats
    if n >= 3000:  # a full-size run (not a MRNIC_COCOTB_SCALE smoke run) exercised every kind of event
        assert stat["acks"] > 300 and stat["timer"] > 20 and stat["held"] > 100 and stat["s_held"] > 50, stat
        assert stat["quiet"] > 300, stat
        assert last["stat_stale_pops"] > 0 and last["stat_path_gaps"] > 0 and last["stat_bad_path"] > 0, last
    dut._log.info("random_backpressure: %d cycles, every output equal to the reference; %d entries on m: %d ACKs (%d "
                  "by the timer), %d DATA packets without an ACK; an entry held %d cycles, DATA held %d, a config "
                  "write held %d, FIFO level up to %d; traffic %s; counters since the mid-run reset %s", n,
                  stat["entries"], stat["acks"], stat["timer"], stat["quiet"], stat["held"], stat["s_held"],
                  stat["cfg_held"], stat["max_level"], traffic.mix, last)
