"""cocotb tests of the path table's generated Verilog (block `path`, module `mrnic_path`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block path --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the transport configuration the
directed expectations are derived from), MRNIC_RANDOM_VECTORS (vectors without random resets,
whose operations the randomized test replays with its own timing), MRNIC_LATENCY,
MRNIC_CONNECTIONS, MRNIC_SEED.

Contract under test (the RTL header, hdl/src/path.rs, and the model cycle shell
mrnic_model::transport::path_shell, whose op table is the reference)
-------------------------------------------------------------------------------------
One operation per `s` transfer (`s_op`: 0 RESET_CONN, 1 RESET_PATH, 2 SELECT, 3 PSENT, 4 PTMO,
5 PREPLY, 6 ACKB, 7 ACKP, 8 LOSS, 9 LOSTTMO, 10 RELEASE, 11 TIMEOUT, 12 FAIL, 13 TMOCHK, 14-15
nothing), applied with the `now` of its transfer cycle; its result on `m` exactly LATENCY (25)
cycles later with m_ready high: `m_op`, `m_conn`, `m_path` and `m_port` (0xC000 | the row's
entropy after the op) for an op with a row, `m_kind` (SELECT: 0 none, 1 data, 2 probe due),
`m_ppsn` (SELECT data: the path PSN), `m_seq` (PSENT), `m_flag` (PTMO re-rolled, PREPLY
accepted, ACKP fresh, LOSS / TIMEOUT struck out), `m_tmo_hit` (TMOCHK: bit 0 RTO, bit 1 probe
expired at the op's `now`), `m_hw_valid`/`m_hw_on`/`m_hw_wait` (the connection's head wait
changed); every other field 0. A result held by m_ready low stalls everything (`s_ready`
low). The §2.9 bubble: when register 17 holds an ACKP or LOSS on the (connection, path) of
register 18 and register 18's op multiplied (a LOSS that decreased, an ACKP that cut),
`s_ready` is low for that cycle and every op behind comes out one cycle later. Reset clears
the pipeline, counters and scanner (no post-reset sweep); the rows and the deadline bank are
RAM, not reset: a connection is reset by RESET_CONN then P RESET_PATHs. The timer scanner: a
path's RTO or probe deadline fires on `m_tmo` (`m_tmo_conn`, `m_tmo_rto` / `m_tmo_probe`: bit
p = path p) at most C + 3 cycles after max(deadline, its bank write), never before it, once
per sweep of C cycles until an op clears it; held while m_tmo_ready is low; `stat_tmo` counts
its transfers. Counters `stat_select`, `stat_select_none`, `stat_probe_due`, `stat_lost`,
`stat_decrease`, `stat_ecn_cut`, `stat_timeout`, `stat_reroll` count results as they enter
the output register.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, every op, hot connections
  and paths back to back, bubbles, connection resets, stalls, random resets, `now` advancing
  1-2000 ns a cycle) through the model, every output every cycle after the header's settle.
* `directed_semantics`: hand-written expectations, every result field, from the model's
  semantics (model/src/transport/path.rs; the ports predicted with the model's entropy LFSR):
  reset; every connection reset (every RESET_PATH's port); on connection 5: round-robin
  SELECTs with per-path PSNs across the 2^24 wrap, avoid, plane, none; ACKPs (RTT sample and
  head-wait change, fresh / stale / beyond-sent path PSNs, an ECN cut); LOSS batches (decrease
  point, strikes, struck out); the §2.9 bubble (exact cycles) and its absence; FAIL -> a new
  port, PROBE_DUE, PSENT, PREPLY refused on the old port and a wrong seq, accepted on the new;
  PTMO re-roll; TIMEOUT; LOSTTMO / RELEASE / ACKB; paths >= P; undefined codes; the global
  stall (a result held 5 cycles by m_ready low); the counters after each group. On connection 11 the scanner: an RTO deadline moved by an RTT sample and
  a probe deadline fire on `m_tmo` with the right masks, never early and within C + 3 cycles;
  TMOCHK before and after; held while m_tmo_ready is low; once per sweep; stat_tmo; silence
  after the ops that clear them.
* `random_backpressure`: the ops the model took in no-reset vectors, each with the `now` of
  its transfer in those vectors, offered again with other idle phases, m_ready and
  m_tmo_ready backpressure; every result field in order equal to the model's; s_ready and
  m_valid every cycle equal to the shell's register timing (stalls and bubbles) tracked in
  Python; the handshake rules on `m` and `m_tmo`; the counters at the end.
"""

from __future__ import annotations

import os

import cocotb

from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSink, StreamSource, default_backpressure, default_idle, random_hold,
                           run_until_drained)
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import read_header, read_transfers, replay, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
OP = dict(RESET_CONN=0, RESET_PATH=1, SELECT=2, PSENT=3, PTMO=4, PREPLY=5, ACKB=6, ACKP=7, LOSS=8, LOSTTMO=9,
          RELEASE=10, TIMEOUT=11, FAIL=12, TMOCHK=13)
DATA, NONE, PROBE_DUE = 1, 0, 2  # SELECT's m_kind
IN_FIELDS = ("s_op", "s_conn", "s_path", "s_n", "s_nl", "s_rtt_valid", "s_rtt", "s_ce", "s_pkts", "s_cum", "s_next",
             "s_ppsn", "s_first", "s_last", "s_avoid_valid", "s_avoid", "s_plane", "s_seq", "s_port", "s_seed")
OUT_FIELDS = ("m_op", "m_conn", "m_path", "m_kind", "m_ppsn", "m_port", "m_seq", "m_flag", "m_tmo_hit", "m_hw_valid",
              "m_hw_on", "m_hw_wait")
STATS = ("stat_select", "stat_select_none", "stat_probe_due", "stat_lost", "stat_decrease", "stat_ecn_cut",
         "stat_timeout", "stat_reroll", "stat_tmo")
IDLE = {"rst": 0, "s_valid": 0, **{f: 0 for f in IN_FIELDS}, "m_ready": 1, "m_tmo_ready": 1}
OFFER = {**{k: v for k, v in IDLE.items() if k != "m_tmo_ready"}, "s_valid": 1}  # m_tmo_ready is the caller's
M32 = 0xFFFF_FFFF


def after_eq(a: int, b: int) -> bool:
    """HwTime::after_eq: a at or after b, serial on 32 bits."""
    return (a - b) & M32 < 1 << 31


class Entropy:
    """A connection's entropy LFSR (path.rs `lfsr_step`, `entropy_of`): predicts the port of
    every draw (RESET_PATH, FAIL, a PTMO that re-rolls)."""

    def __init__(self, seed: int):
        self.lfsr = seed & 0xFFFF or 1  # lfsr_seed of a 16-bit value
        self.e: dict[int, int] = {}  # path -> entropy (absent: ENTROPY_NONE)

    def draw(self, p: int) -> int:
        self.lfsr = (self.lfsr >> 1) ^ (0xB400 if self.lfsr & 1 else 0)
        f = self.lfsr >> 6
        e = f << 4 | p
        if e == self.e.get(p, 0xFFFF):
            e = ((f + 1) & 0x3FF) << 4 | p
        self.e[p] = e
        return self.port(p)

    def port(self, p: int) -> int:
        return 0xC000 | self.e[p]


class Now:
    """Counts cycles (falling edges) and drives `now` (the NIC time) `step` ns further each
    cycle; `at[c]` is the `now` of cycle c."""

    def __init__(self, dut, start: int, step: int = 1):
        self.dut, self.value, self.step, self.cycle, self.at = dut, start & M32, step, 0, [start & M32]

    async def run(self) -> None:
        while True:
            await next_cycle(self.dut)
            self.cycle += 1
            self.value = (self.value + self.step) & M32
            self.dut.now.value = self.value
            self.at.append(self.value)

    def reached(self, deadline: int, since: int) -> int | None:
        """The first cycle from `since` whose `now` is at or after `deadline` (None: not yet)."""
        return next((c for c in range(since, len(self.at)) if after_eq(self.at[c], deadline)), None)


def want(op: str, conn: int, **fields) -> dict:
    """A whole expected result: the named fields, every other one 0."""
    r = {f: 0 for f in OUT_FIELDS}
    r.update(m_op=OP.get(op, op) if isinstance(op, str) else op, m_conn=conn)
    r.update({f"m_{k}": v for k, v in fields.items()})
    return r


def check(what: str, res: dict, exp: dict) -> None:
    diff = {k: (v, res[k]) for k, v in exp.items() if res[k] != v}
    assert not diff, f"{what}: (expected, actual) {diff}; whole result {res}"


def stats(dut) -> dict:
    return {s: read(getattr(dut, s)) for s in STATS}


async def path_reset(dut) -> None:
    """rst for two cycles (s_ready low); after it s_ready high at once (no sweep), nothing on
    m or m_tmo, every counter 0."""
    def during(d):
        assert read(d.s_ready) == 0, "s_ready must be low during rst"

    await reset(dut, cycles=2, idle=IDLE, during=during)
    assert (read(dut.s_ready), read(dut.m_valid), read(dut.m_tmo_valid)) == (1, 0, 0), \
        f"after rst: s_ready {read(dut.s_ready)}, m_valid {read(dut.m_valid)}, m_tmo_valid {read(dut.m_tmo_valid)}"
    assert all(v == 0 for v in stats(dut).values()), f"counters after rst: {stats(dut)}"


async def run_ops(dut, now: Now, ops: list[dict]) -> tuple[list[tuple[dict, int, int]], list[int]]:
    """Offer `ops` (fields by name, the rest 0) back to back with m_ready high (m_tmo_ready is
    not touched); returns [(result, transfer cycle, result cycle)] in order and the cycles
    with s_ready low."""
    pending, transfers, results, low = list(ops), [], [], []
    while len(results) < len(ops):
        await next_cycle(dut)
        if pending:
            drive(dut, {**OFFER, **pending[0]})
        else:
            drive(dut, {"s_valid": 0, "m_ready": 1})
        await settle()
        t = now.cycle
        if read(dut.m_valid) == 1:
            results.append(({f: read(getattr(dut, f)) for f in OUT_FIELDS}, t))
            assert len(results) <= len(transfers), f"a result with no op pending in cycle {t}: {results[-1][0]}"
        if read(dut.s_ready) == 0:
            low.append(t)
        elif pending:
            pending.pop(0)
            transfers.append(t)
        assert not transfers or t - transfers[-1] < 4 * LATENCY, f"no result {t - transfers[-1]} cycles after {ops}"
    return [(r, tx, tr) for (r, tr), tx in zip(results, transfers)], low


async def run_op(dut, now: Now, op: dict) -> tuple[dict, int]:
    """One op alone: its result exactly LATENCY cycles after its transfer, s_ready high
    throughout. Returns the result and the transfer cycle."""
    [(r, tx, tr)], low = await run_ops(dut, now, [op])
    assert tr - tx == LATENCY, f"result of {op} {tr - tx} cycles after its transfer, expected {LATENCY}"
    assert not low, f"s_ready low in cycles {low} with one op in flight and m_ready high"
    return r, tx


async def reset_conns(dut, now: Now, conns, seed: int, isn: int, paths: int) -> dict[int, Entropy]:
    """RESET_CONN then P RESET_PATHs of each connection, back to back; every RESET_PATH's
    result exact (its path, the port of the LFSR's draw); RESET_CONN's without a row.
    Returns each connection's Entropy."""
    ops, ents = [], {}
    for c in conns:
        ops.append({"s_op": OP["RESET_CONN"], "s_conn": c, "s_seed": seed})
        ops += [{"s_op": OP["RESET_PATH"], "s_conn": c, "s_path": p, "s_ppsn": isn} for p in range(paths)]
        ents[c] = Entropy(seed)
    res, low = await run_ops(dut, now, ops)
    assert not low, f"s_ready low in cycles {low} during the connection resets"
    for k, ((r, tx, tr), op) in enumerate(zip(res, ops)):
        assert tr - tx == LATENCY, f"reset op {k} {op}: result after {tr - tx} cycles"
        c = op["s_conn"]
        if op["s_op"] == OP["RESET_PATH"]:
            p = op["s_path"]
            check(f"RESET_PATH conn {c} path {p}", r, want("RESET_PATH", c, path=p, port=ents[c].draw(p)))
        else:  # the head-wait change depends on the connection's state before: not checked here
            check(f"RESET_CONN conn {c}", r, {**want("RESET_CONN", c), "m_hw_valid": r["m_hw_valid"], "m_hw_wait": 0})
            assert r["m_hw_on"] == 0, f"RESET_CONN conn {c}: a head wait after the reset: {r}"
    return ents


class TmoWatch:
    """Drives m_tmo_ready (`ready`) every cycle and records every m_tmo offer: (cycle, conn,
    rto, probe, taken)."""

    def __init__(self, dut, now: Now):
        self.dut, self.now, self.ready, self.events = dut, now, 1, []

    async def run(self) -> None:
        d = self.dut
        while True:
            await next_cycle(d)
            d.m_tmo_ready.value = self.ready
            await settle()
            if read(d.m_tmo_valid) == 1:
                self.events.append((self.now.cycle, read(d.m_tmo_conn), read(d.m_tmo_rto), read(d.m_tmo_probe),
                                    read(d.m_tmo_ready)))

    def taken(self) -> int:
        return sum(e[4] for e in self.events)


async def idle(dut, n: int) -> None:
    for _ in range(n):
        await next_cycle(dut)


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "path", LATENCY)


# ---------------------------------------------------------------------- directed test


@cocotb.test()
async def directed_semantics(dut):
    """SELECT, ACKP, LOSS, the bubble, FAIL and probing, PTMO, TIMEOUT and the rest on one
    connection; the RTO and probe deadlines on the scanner on another."""
    assert LATENCY == 25, f"MRNIC_LATENCY {LATENCY}: the RTL header says 25"
    C = int(os.environ["MRNIC_CONNECTIONS"])
    P = len(dut.m_tmo_rto)
    assert P == 4 and C >= 16, f"the scenario is written for P = 4 paths (preset tiny), the block has {P}, C = {C}"
    tc = read_header(os.environ["MRNIC_VECTORS"])["config"]["transport"]
    assert (tc["max_probes"], tc["fail_threshold"], tc["cwnd_init"]) == (1, 3, 16) and tc["head_rto_pct"] > 0, \
        f"the scenario assumes max_probes 1, fail_threshold 3, cwnd_init 16 and a head timer: {tc}"
    head_q8 = (tc["head_rto_pct"] * 256 + 50) // 100

    def hw_wait(srtt_ns_max: int) -> int:  # PathTable::head_wait of srtt8_max = 8 * srtt_ns_max
        return min((srtt_ns_max * head_q8 >> 8) + tc["ack_timeout_ns"], (1 << 31) - 1)

    start_clock(dut)
    drive(dut, {**IDLE, "now": 0xFFFF_F000})
    now = Now(dut, 0xFFFF_F000, step=1)  # 1 ns a cycle: no deadline expires on connection a
    tasks = [cocotb.start_soon(now.run())]
    await path_reset(dut)
    watch = TmoWatch(dut, now)
    tasks.append(cocotb.start_soon(watch.run()))
    await reset_conns(dut, now, range(C), 0, 0, P)  # every row fresh, every deadline invalid
    await path_reset(dut)  # counters and scanner cleared after the bank writes landed
    watch.events.clear()  # (events of the previous test's deadlines before the resets landed)
    exp = {s: 0 for s in STATS}

    def counters(what: str, **delta) -> None:
        for k, v in delta.items():
            exp[f"stat_{k}"] += v
        got = stats(dut)
        diff = {s: (exp[s], got[s]) for s in STATS if got[s] != exp[s]}
        assert not diff, f"counters after {what} (expected, actual): {diff}"

    counters("the connection resets")
    a, b = 5, 11

    async def op(what: str, expect: dict, **fields) -> tuple[dict, int]:
        r, tx = await run_op(dut, now, fields)
        check(what, r, expect)
        return r, tx

    # ---- connection a: RESET_CONN seed 0xACE1, path ISN just below the 2^24 wrap
    isn = 0xFFFFFE
    ents = await reset_conns(dut, now, [a], 0xACE1, isn, P)
    ea = ents[a]
    assert len({ea.port(p) for p in range(P)}) == P, f"ports of the reset rows not distinct: {ea.e}"
    # Round robin from path 0 (the pointer starts at P - 1); per path the PSNs count up across the wrap.
    sent = {p: 0 for p in range(P)}
    for k in range(10):
        p = k % P
        await op(f"SELECT {k}", want("SELECT", a, kind=DATA, path=p, ppsn=(isn + sent[p]) & 0xFFFFFF, port=ea.port(p)),
                 s_op=OP["SELECT"], s_conn=a, s_plane=0xF)
        sent[p] += 1
    # The pointer is on path 1: avoiding path 2 skips it.
    await op("SELECT avoiding path 2", want("SELECT", a, kind=DATA, path=3, ppsn=(isn + 2) & 0xFFFFFF, port=ea.port(3)),
             s_op=OP["SELECT"], s_conn=a, s_plane=0xF, s_avoid_valid=1, s_avoid=2)
    await op("SELECT on plane {path 2}",
             want("SELECT", a, kind=DATA, path=2, ppsn=(isn + 2) & 0xFFFFFF, port=ea.port(2)),
             s_op=OP["SELECT"], s_conn=a, s_plane=0b0100)
    await op("SELECT with no path allowed", want("SELECT", a, kind=NONE), s_op=OP["SELECT"], s_conn=a, s_plane=0)
    await settle()
    counters("the SELECTs", select=12, select_none=1)

    # ---- ACKP: RTT samples move the head wait; the path PSN report is fresh / stale / beyond sent.
    # path 0 sent 0xfffffe, 0xffffff, 0: the highest sent is 0.
    await op("ACKP path 0, RTT 10 us, path PSN 0xffffff", want("ACKP", a, path=0, port=ea.port(0), flag=1, hw_valid=1,
                                                                  hw_on=1, hw_wait=hw_wait(10000)),
             s_op=OP["ACKP"], s_conn=a, s_path=0, s_n=1, s_rtt_valid=1, s_rtt=10000, s_ppsn=0xFFFFFF)
    await op("ACKP path 0, stale path PSN 0xfffffe", want("ACKP", a, path=0, port=ea.port(0), flag=0),
             s_op=OP["ACKP"], s_conn=a, s_path=0, s_ppsn=0xFFFFFE)
    await op("ACKP path 0, path PSN 1 not sent yet", want("ACKP", a, path=0, port=ea.port(0), flag=0),
             s_op=OP["ACKP"], s_conn=a, s_path=0, s_ppsn=1)
    await op("ACKP path 0, path PSN 0 (the highest sent)", want("ACKP", a, path=0, port=ea.port(0), flag=1),
             s_op=OP["ACKP"], s_conn=a, s_path=0, s_ppsn=0)
    await op("ACKP path 1, RTT 30 us (a larger maximum)", want("ACKP", a, path=1, port=ea.port(1), flag=1, hw_valid=1,
                                                                hw_on=1, hw_wait=hw_wait(30000)),
             s_op=OP["ACKP"], s_conn=a, s_path=1, s_n=1, s_rtt_valid=1, s_rtt=30000, s_ppsn=0xFFFFFE)
    # srtt8 of path 1: 8 * 30000 - 30000 + 20000 = 230000; it held the maximum, which falls to 230000 / 8.
    await op("ACKP path 1, RTT 20 us: the maximum falls", want("ACKP", a, path=1, port=ea.port(1), flag=1, hw_valid=1,
                                                               hw_on=1, hw_wait=hw_wait(230000 >> 3)),
             s_op=OP["ACKP"], s_conn=a, s_path=1, s_rtt_valid=1, s_rtt=20000, s_ppsn=0xFFFFFF)
    await settle()
    counters("the ACKPs")

    # ---- LOSS on path 2: the first decreases and strikes; one before the decrease point does
    # not; the third strike fails the path (fail_threshold 3).
    loss = lambda p, k, first, last, nxt: dict(s_op=OP["LOSS"], s_conn=a, s_path=p, s_n=k, s_first=first,  # noqa: E731
                                               s_last=last, s_next=nxt)
    await op("LOSS path 2 (decrease, strike 1)", want("LOSS", a, path=2, port=ea.port(2)), **loss(2, 1, 100, 100, 105))
    await op("LOSS path 2 before the decrease point", want("LOSS", a, path=2, port=ea.port(2)),
             **loss(2, 1, 101, 102, 106))
    await settle()
    counters("two LOSSes", lost=2, decrease=1)
    await op("LOSS path 2 (strike 2)", want("LOSS", a, path=2, port=ea.port(2)), **loss(2, 2, 105, 106, 110))
    await op("LOSS path 2 (strike 3: struck out)", want("LOSS", a, path=2, port=ea.port(2), flag=1),
             **loss(2, 1, 110, 110, 115))
    await settle()
    counters("four LOSSes", lost=3, decrease=2)

    # ---- the §2.9 bubble: a LOSS that decreased, then a LOSS of the same path back to back:
    # s_ready low exactly 17 cycles after the second transfer, its result one cycle late.
    res, low = await run_ops(dut, now, [loss(3, 1, 200, 200, 210), loss(3, 1, 201, 201, 211)])
    (r1, t1, u1), (r2, t2, u2) = res
    check("bubble: LOSS path 3 (decrease)", r1, want("LOSS", a, path=3, port=ea.port(3)))
    check("bubble: LOSS path 3 behind it", r2, want("LOSS", a, path=3, port=ea.port(3)))
    assert (t2 - t1, u1 - t1, u2 - t2, low) == (1, LATENCY, LATENCY + 1, [t2 + 17]), \
        f"bubble: transfers {t1}, {t2}, results {u1}, {u2}, s_ready low in {low}; expected results after 25 and 26 " \
        f"cycles and s_ready low in cycle {t2 + 17} only"
    # The same pair when the first did not multiply (k = 0): no bubble.
    res, low = await run_ops(dut, now, [loss(3, 0, 300, 300, 310), loss(3, 1, 202, 202, 212)])
    (r1, t1, u1), (r2, t2, u2) = res
    assert (u1 - t1, u2 - t2, low) == (LATENCY, LATENCY, []), \
        f"no bubble expected after a LOSS of k = 0: transfers {t1}, {t2}, results {u1}, {u2}, s_ready low in {low}"
    check("LOSS k 0", r1, want("LOSS", a, path=3, port=ea.port(3)))
    await settle()
    counters("the bubble pairs", lost=3, decrease=1)
    # An ACKP that cuts the window (every packet CE-marked at the window end; path 0 has no
    # decrease yet), then an ACKP of the same path: a bubble too.
    ackp = dict(s_op=OP["ACKP"], s_conn=a, s_path=0, s_ppsn=0)
    res, low = await run_ops(dut, now, [{**ackp, "s_ce": 4, "s_pkts": 4, "s_cum": 0, "s_next": 50},
                                        {**ackp, "s_ce": 2, "s_pkts": 2, "s_cum": 10, "s_next": 60}])
    (r1, t1, u1), (r2, t2, u2) = res
    check("ACKP with an ECN cut", r1, want("ACKP", a, path=0, port=ea.port(0), flag=1))
    check("ACKP behind it, before the window end", r2, want("ACKP", a, path=0, port=ea.port(0), flag=1))
    assert (u1 - t1, u2 - t2, low) == (LATENCY, LATENCY + 1, [t2 + 17]), \
        f"bubble after an ECN cut: transfers {t1}, {t2}, results {u1}, {u2}, s_ready low in {low}"
    await settle()
    counters("the ECN cut", ecn_cut=1)

    # ---- FAIL: a new port (the LFSR's next draw, not the old one); the probe is due.
    old2 = ea.port(2)
    new2 = ea.draw(2)
    assert new2 != old2 and new2 >> 14 == 3, (hex(old2), hex(new2))
    await op("FAIL path 2", want("FAIL", a, path=2, port=new2), s_op=OP["FAIL"], s_conn=a, s_path=2)
    await op("SELECT: path 2's probe is due", want("SELECT", a, kind=PROBE_DUE, path=2, port=new2),
             s_op=OP["SELECT"], s_conn=a, s_plane=0xF)
    await op("SELECT without path 2: data on path 3", want("SELECT", a, kind=DATA, path=3, ppsn=1, port=ea.port(3)),
             s_op=OP["SELECT"], s_conn=a, s_plane=0b1011)
    _, tp = await op("PSENT path 2", want("PSENT", a, path=2, port=new2, seq=1), s_op=OP["PSENT"], s_conn=a, s_path=2)
    await op("PREPLY on the old port refused", want("PREPLY", a, path=2, port=new2),
             s_op=OP["PREPLY"], s_conn=a, s_path=2, s_seq=1, s_port=old2)
    await op("PREPLY with a wrong seq refused", want("PREPLY", a, path=2, port=new2),
             s_op=OP["PREPLY"], s_conn=a, s_path=2, s_seq=2, s_port=new2)
    r, tr = await run_op(dut, now, dict(s_op=OP["PREPLY"], s_conn=a, s_path=2, s_seq=1, s_port=new2))
    rtt = (now.at[tr] - now.at[tp]) & M32  # the probe's RTT: a sample far below path 1's 30 us
    assert 0 < rtt < 30000, rtt
    check("PREPLY on the new port accepted", r, want("PREPLY", a, path=2, port=new2, flag=1))
    await op("SELECT on plane {path 2}: data again", want("SELECT", a, kind=DATA, path=2, ppsn=(isn + 3) & 0xFFFFFF,
                                                          port=new2),
             s_op=OP["SELECT"], s_conn=a, s_plane=0b0100)
    await settle()
    counters("FAIL and the probe", reroll=1, probe_due=1, select=2)

    # ---- PTMO with max_probes 1: every probe timeout re-rolls.
    new1 = ea.draw(1)
    await op("FAIL path 1", want("FAIL", a, path=1, port=new1), s_op=OP["FAIL"], s_conn=a, s_path=1)
    await op("PSENT path 1", want("PSENT", a, path=1, port=new1, seq=1), s_op=OP["PSENT"], s_conn=a, s_path=1)
    newer1 = ea.draw(1)
    assert newer1 != new1
    await op("PTMO path 1 re-rolls", want("PTMO", a, path=1, port=newer1, flag=1), s_op=OP["PTMO"], s_conn=a, s_path=1)
    await op("PREPLY to the timed-out probe refused", want("PREPLY", a, path=1, port=newer1),
             s_op=OP["PREPLY"], s_conn=a, s_path=1, s_seq=1, s_port=newer1)
    await op("SELECT: path 1's probe is due", want("SELECT", a, kind=PROBE_DUE, path=1, port=newer1),
             s_op=OP["SELECT"], s_conn=a, s_plane=0xF)
    await settle()
    counters("PTMO", reroll=2, probe_due=1)

    # ---- TIMEOUT (path 3 has one strike), the ops without a visible result, paths >= P, codes 14-15.
    tmo = dict(s_op=OP["TIMEOUT"], s_conn=a, s_next=400)
    await op("TIMEOUT path 3 (strike 2)", want("TIMEOUT", a, path=3, port=ea.port(3)), **tmo, s_path=3)
    await op("TIMEOUT path 3 (strike 3: struck out)", want("TIMEOUT", a, path=3, port=ea.port(3), flag=1),
             **tmo, s_path=3)
    await op("TIMEOUT path 7 >= P: nothing", want("TIMEOUT", a), **tmo, s_path=7)
    await op("LOSTTMO path 0, k 2", want("LOSTTMO", a, path=0, port=ea.port(0)), s_op=OP["LOSTTMO"], s_conn=a,
             s_path=0, s_n=2)
    await op("RELEASE path 3", want("RELEASE", a, path=3, port=ea.port(3)),
             s_op=OP["RELEASE"], s_conn=a, s_path=3, s_n=1)
    await op("ACKB path 0", want("ACKB", a, path=0, port=ea.port(0)), s_op=OP["ACKB"], s_conn=a, s_path=0, s_nl=1)
    await op("ACKP path 9 >= P: nothing", want("ACKP", a), s_op=OP["ACKP"], s_conn=a, s_path=9, s_n=1, s_rtt_valid=1,
             s_rtt=99999, s_ppsn=0)
    await op("TMOCHK path 2, nothing expired (1 ns a cycle)", want("TMOCHK", a, path=2, port=new2),
             s_op=OP["TMOCHK"], s_conn=a, s_path=2)
    for code in (14, 15):
        await op(f"undefined op {code}", want(code, a), s_op=code, s_conn=a, s_path=0)
    await settle()
    counters("TIMEOUT and the rest", timeout=2, lost=2)

    # ---- the global stall: a result held by m_ready low for 5 cycles stays, unchanged, with
    # s_ready low (the op offered meanwhile is not taken) and is counted once; the op behind
    # it is taken with the result and comes out LATENCY cycles after its own transfer.
    async def cycle(values: dict) -> dict:
        await next_cycle(dut)
        drive(dut, values)
        await settle()
        return {f: read(getattr(dut, f)) for f in ("s_ready", "m_valid", *OUT_FIELDS)}

    x = dict(s_op=OP["LOSTTMO"], s_conn=a, s_path=0, s_n=1)
    y = dict(s_op=OP["TMOCHK"], s_conn=a, s_path=2)
    o = await cycle({**OFFER, **x})
    tx = now.cycle
    assert o["s_ready"] == 1, f"stall: s_ready low offering {x}"
    for k in range(1, LATENCY):
        o = await cycle({"s_valid": 0, "m_ready": 1})
        assert o["m_valid"] == 0, f"stall: result of {x} after {k} cycles"
    held = [await cycle({**OFFER, **y, "m_ready": 0}) for _ in range(5)]
    xr = {f: held[0][f] for f in OUT_FIELDS}
    check("stall: the held result", xr, want("LOSTTMO", a, path=0, port=ea.port(0)))
    assert all(h == {**held[0], "s_ready": 0} for h in held), \
        f"stall: m_valid / payload / s_ready while m_ready low: {held}"
    await settle()
    counters("a result held for 5 cycles", lost=1)
    o = await cycle({**OFFER, **y, "m_ready": 1})
    ty = now.cycle
    assert (o["m_valid"], o["s_ready"]) == (1, 1), f"stall: released in cycle {ty}: {o}"
    for k in range(1, LATENCY + 1):
        o = await cycle({"s_valid": 0, "m_ready": 1})
        assert o["m_valid"] == int(k == LATENCY), f"stall: m_valid {o['m_valid']} {k} cycles after the op behind it"
    check("stall: the op behind it", {f: o[f] for f in OUT_FIELDS}, want("TMOCHK", a, path=2, port=new2))
    # Reset connection a again: its head wait goes away, every deadline of its rows with it.
    r, _ = await run_op(dut, now, {"s_op": OP["RESET_CONN"], "s_conn": a, "s_seed": 7})
    check("RESET_CONN of a connection with a head wait", r, want("RESET_CONN", a, hw_valid=1, hw_on=0))
    res, _ = await run_ops(dut, now, [{"s_op": OP["RESET_PATH"], "s_conn": a, "s_path": p} for p in range(P)])
    e7 = Entropy(7)
    for p, (r, _, _) in enumerate(res):
        check(f"RESET_PATH {p} after the seed-7 RESET_CONN", r, want("RESET_PATH", a, path=p, port=e7.draw(p)))
    assert not watch.events, f"timer events while `now` moved {now.at[-1] - 0xFFFF_F000} ns: {watch.events[:3]}"

    # ---- connection b: the scanner. An RTO deadline: SELECT starts the timer (rto_init),
    # an RTT sample moves its deadline to rto_start + rto_min.
    eb = (await reset_conns(dut, now, [b], 0xBEEF, 0x123456, P))[b]
    now.step = 500
    k_rto = len(watch.events)
    _, ts = await op("SELECT on b", want("SELECT", b, kind=DATA, path=0, ppsn=0x123456, port=eb.port(0)),
                     s_op=OP["SELECT"], s_conn=b, s_plane=1)
    await op("TMOCHK b path 0 before the deadline", want("TMOCHK", b, path=0, port=eb.port(0)),
             s_op=OP["TMOCHK"], s_conn=b, s_path=0)
    _, tack = await op("ACKP b path 0 RTT 1 us (RTO = rto_min)", want("ACKP", b, path=0, port=eb.port(0), flag=1,
                                                                     hw_valid=1, hw_on=1, hw_wait=hw_wait(1000)),
                       s_op=OP["ACKP"], s_conn=b, s_path=0, s_rtt_valid=1, s_rtt=1000, s_ppsn=0x123456)
    deadline = (now.at[ts] + max(3 * 1000, tc["rto_min_ns"])) & M32

    async def first_event(what: str, k0: int, since: int, deadline: int, t_op: int, rto: int, probe: int) -> int:
        """Waits for the first m_tmo offer after the first `k0` recorded: connection b with these
        masks, after the cycle `now` reaches `deadline` (searched from cycle `since`), at most
        C + 3 cycles after max(that, the bank write of the op transferred in cycle `t_op`)."""
        while len(watch.events) == k0:
            await next_cycle(dut)
            assert now.cycle < t_op + 4000, f"{what}: no timer event by cycle {now.cycle}"
        cyc, conn, r_, p_, _ = watch.events[k0]
        dc = now.reached(deadline, since)
        assert dc is not None, f"{what}: the timer fired in cycle {cyc}, before `now` reached {deadline:#x}"
        assert (conn, r_, p_) == (b, rto, probe), \
            f"{what}: event {watch.events[k0]}, expected conn {b} rto {rto} probe {probe}"
        assert cyc > dc, f"{what}: the timer fired in cycle {cyc}, before its deadline (reached in cycle {dc})"
        assert cyc <= max(dc, t_op + LATENCY) + C + 3, \
            f"{what}: fired in cycle {cyc}, more than C + 3 after max(deadline cycle {dc}, bank write {t_op + LATENCY})"
        return cyc

    first = await first_event("RTO of b path 0", k_rto, ts, deadline, tack, 1, 0)
    await op("TMOCHK b path 0 after the deadline", want("TMOCHK", b, path=0, port=eb.port(0), tmo_hit=1),
             s_op=OP["TMOCHK"], s_conn=b, s_path=0)
    # Held while m_tmo_ready is low: valid every cycle, the same payload, the counter still.
    watch.ready = 0
    n0 = len(watch.events)
    await idle(dut, C + 4)
    assert len(watch.events) > n0, f"no event of the expired deadline in the {C + 4} cycles after the first"
    k0 = len(watch.events)
    await settle()
    tmo0 = read(dut.stat_tmo)
    await idle(dut, 30)
    await settle()
    held = watch.events[k0:]
    assert len(held) >= 29 and [e[0] for e in held] == list(range(held[0][0], held[0][0] + len(held))) \
        and all(e[1:] == (b, 1, 0, 0) for e in held), f"m_tmo not held while m_tmo_ready low: {held}"
    assert read(dut.stat_tmo) == tmo0 == watch.taken(), \
        f"stat_tmo {read(dut.stat_tmo)}, {tmo0} before, {watch.taken()} taken"
    # Taken again: once per sweep of C cycles while it stays expired.
    watch.ready = 1
    n1 = len(watch.events)
    await idle(dut, 4 * C + 2)
    watch.ready = 0  # no transfer while the counter is read
    await idle(dut, 2)
    await settle()
    again = [e for e in watch.events[n1:] if e[4] == 1]
    assert 3 <= len(again) <= 6, \
        f"an expired deadline fires once per sweep of {C} cycles: {len(again)} in {4 * C + 2} cycles"
    assert read(dut.stat_tmo) == watch.taken(), f"stat_tmo {read(dut.stat_tmo)}, {watch.taken()} events taken"
    watch.ready = 1
    await op("ACKP b path 0 n 1: nothing in flight", want("ACKP", b, path=0, port=eb.port(0), flag=1),
             s_op=OP["ACKP"], s_conn=b, s_path=0, s_n=1, s_ppsn=0x123456)
    await idle(dut, C + 4)
    n2 = len(watch.events)
    await idle(dut, 3 * C)
    assert len(watch.events) == n2, f"timer events after the ACK that stopped the timer: {watch.events[n2:]}"

    # A probe deadline: FAIL, PSENT; the probe interval is the RTO (rto_init: no sample on path 1).
    nb1 = eb.draw(1)
    await op("FAIL b path 1", want("FAIL", b, path=1, port=nb1), s_op=OP["FAIL"], s_conn=b, s_path=1)
    now.step = 10000
    k_probe = len(watch.events)
    _, tp = await op("PSENT b path 1", want("PSENT", b, path=1, port=nb1, seq=1), s_op=OP["PSENT"], s_conn=b, s_path=1)
    await op("TMOCHK b path 1 before the probe deadline", want("TMOCHK", b, path=1, port=nb1),
             s_op=OP["TMOCHK"], s_conn=b, s_path=1)
    pfirst = await first_event("probe of b path 1", k_probe, tp, (now.at[tp] + tc["rto_init_ns"]) & M32, tp, 0, 2)
    await op("TMOCHK b path 1 after it", want("TMOCHK", b, path=1, port=nb1, tmo_hit=2),
             s_op=OP["TMOCHK"], s_conn=b, s_path=1)
    r, tr = await run_op(dut, now, dict(s_op=OP["PREPLY"], s_conn=b, s_path=1, s_seq=1, s_port=nb1))
    s = min(max((now.at[tr] - now.at[tp]) & M32, 1), (1 << 28) - 1)
    check("PREPLY b path 1: accepted, its RTT the connection's largest", r,
          want("PREPLY", b, path=1, port=nb1, flag=1, hw_valid=1, hw_on=1, hw_wait=hw_wait(s)))
    await idle(dut, C + 4)
    n3 = len(watch.events)
    await idle(dut, 2 * C)
    assert len(watch.events) == n3, f"timer events after the probe reply: {watch.events[n3:]}"
    others = [e for e in watch.events if e[1] != b]
    assert not others, f"timer events of connections without a deadline: {others[:5]}"
    await settle()
    exp["stat_tmo"] = watch.taken()
    counters("the timer scenario", select=1, reroll=1)
    for t in tasks:
        t.cancel()
    dut._log.info("directed_semantics: RTO event %d cycles after its deadline, probe event %d; %d timer events taken",
                  first - now.reached(deadline, ts), pfirst - now.reached((now.at[tp] + tc["rto_init_ns"]) & M32, tp),
                  watch.taken())


# ------------------------------------------------------------------- randomized test


def model_run(path: str, paths: int, conns: int) -> tuple[dict, list[dict], list[dict], list[bool], dict]:
    """From vectors without random resets: the header; the ops the model took (after the
    prologue's reset) that have a result in the file, each with the `now` of its transfer;
    the results in order; per result whether its op multiplied (stat_decrease or
    stat_ecn_cut rose as it entered the output register: the §2.9 bubble's condition); the
    counters in the cycle of the last result's transfer."""
    mult = []
    prev: dict = {}  # the previous cycle's inputs and outputs

    def on_cycle(i, o, _names):
        if o["m_valid"] and (not prev or not prev["o"]["m_valid"] or prev["i"]["m_ready"]):
            mult.append(o["stat_decrease"] + o["stat_ecn_cut"] > prev["o"]["stat_decrease"] + prev["o"]["stat_ecn_cut"])
        prev.update(i=i, o=o)

    t = read_transfers(path, extra={"s": ("now",)}, on_cycle=on_cycle)
    return t.header, t.of("s"), t.results, mult[:len(t.results)], {s: t.last[s] for s in STATS}


class ShellTiming:
    """The shell's register timing without its arithmetic: 25 registers each holding an op's
    (code, (connection, path) key, multiplied) or nothing. Per cycle `expect(m_ready)` gives
    the s_ready and m_valid the shell shows; `edge(...)` advances as PathShell::step does: a
    stall holds everything, a bubble holds registers 1-17 and puts a hole into 18, else all
    shift and register 1 takes the transfer."""

    def __init__(self, ops: list[dict], mult: list[bool], paths: int, conns: int):
        self.info = []
        for op, m in zip(ops, mult):
            code, p = op["s_op"] & 0xF, op["s_path"] & 0xF
            has_row = code not in (OP["RESET_CONN"], OP["SELECT"], 14, 15) and p < paths
            key = (op["s_conn"] & (conns - 1), p) if has_row else None
            self.info.append((code, key, m))
        self.regs: list = [None] * (LATENCY + 1)  # index 1..LATENCY
        self.bubbles = 0

    def expect(self, m_ready: int) -> tuple[int, int, bool, bool]:
        r = self.regs
        stall = r[LATENCY] is not None and not m_ready
        x, y = r[17], r[18]
        bubble = (not stall and x is not None and y is not None and x[0] in (OP["ACKP"], OP["LOSS"])
                  and x[1] is not None and x[1] == y[1] and y[2])
        return int(not stall and not bubble), int(r[LATENCY] is not None), stall, bubble

    def edge(self, taken: int | None, stall: bool, bubble: bool) -> None:
        r = self.regs
        if stall:
            return
        if bubble:
            self.bubbles += 1
            r[19:] = r[18:LATENCY]
            r[18] = None
            return
        r[2:] = r[1:LATENCY]
        r[1] = None if taken is None else self.info[taken]


@cocotb.test()
async def random_backpressure(dut):
    """The model's operations offered again with other idle and backpressure, each with the
    `now` of its transfer in the vectors (the results depend on it: path PSN send times, RTT
    of a probe, deadlines, TMOCHK, head wait); every result field in order equal to the
    model's; s_ready and m_valid every cycle as the shell's timing (stall, bubble) says; the
    handshake rules on m and m_tmo; the counters. Timer events depend on the cycles `now` is
    held between ops, so m_tmo is checked only for its handshake rules and payload shape
    (connection < C, rto and probe disjoint, not both empty), and stat_tmo against the events
    taken."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    C = int(os.environ["MRNIC_CONNECTIONS"])
    P = len(dut.m_tmo_rto)
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block path --no-resets` vectors"
    header, ops, results, mult, final = model_run(path, P, C)
    assert len(ops) == len(results) == len(mult) and len(ops) > 20, f"{len(ops)} ops, {len(results)} results in {path}"
    codes = {op["s_op"] for op in ops}
    if len(ops) >= 1000:  # a full-size run (not a MRNIC_COCOTB_SCALE smoke run) offers every op
        assert set(range(14)) <= codes, f"op codes {sorted(codes)}: not every op is offered"
    streams = {s["name"]: s for s in header["streams"]}

    # The vectors start from the power-up rows: RESET_CONN seed 0 + RESET_PATH isn 0 of every
    # connection restores them (PathTable::new(cfg, 0, 0)) and clears every deadline; rst then
    # clears the counters and the scanner.
    start_clock(dut)
    drive(dut, {**IDLE, "now": ops[0]["now"]})
    counter = Now(dut, ops[0]["now"], step=0)  # counts the cycles of run_ops; `now` held meanwhile
    count_task = cocotb.start_soon(counter.run())
    await path_reset(dut)
    await reset_conns(dut, counter, range(C), 0, 0, P)
    await path_reset(dut)
    count_task.cancel()

    sb = Scoreboard(dut._log, {n: len(getattr(dut, n)) for n in OUT_FIELDS})
    for k, r in enumerate(results):
        sb.expect("m", r, note=f"result {k} of op {ops[k]}")
    tmo = {"n": 0}

    def on_tmo(txn, cycle):
        c, rto, probe = txn["m_tmo_conn"], txn["m_tmo_rto"], txn["m_tmo_probe"]
        assert c < C and rto | probe and not rto & probe, f"m_tmo cycle {cycle}: conn {c} rto {rto:#x} probe {probe:#x}"
        tmo["n"] += 1

    s_stream = {**streams["s"], "payload": streams["s"]["payload"] + ["now"]}  # `now` travels with each op
    source = StreamSource(dut, s_stream, idle=default_idle(seed))
    sink = StreamSink(dut, streams["m"], backpressure=default_backpressure(seed))
    tmo_sink = StreamSink(dut, streams["m_tmo"], backpressure=random_hold(seed + 6, 0.5))
    mon = StreamMonitor(dut, streams["m"], on_transfer=lambda t, c: sb.observe("m", t, c))
    tmo_mon = StreamMonitor(dut, streams["m_tmo"], on_transfer=on_tmo)
    for op in ops:
        source.send(op)
    timing = ShellTiming(ops, mult, P, C)
    state = {"taken": 0, "cycle": 0}

    async def check_timing():
        while True:
            await next_cycle(dut)
            await settle()
            state["cycle"] += 1
            sv, sr, mv, mr = (read(dut.s_valid), read(dut.s_ready), read(dut.m_valid), read(dut.m_ready))
            want_sr, want_mv, stall, bubble = timing.expect(mr)
            assert (sr, mv) == (want_sr, want_mv), \
                f"cycle {state['cycle']}: s_ready {sr} m_valid {mv}, the shell's timing says {want_sr} {want_mv} " \
                f"(m_ready {mr}, stall {stall}, bubble {bubble}, {state['taken']} ops taken, " \
                f"{timing.bubbles} bubbles before)"
            taken = None
            if sv and sr:
                taken, state["taken"] = state["taken"], state["taken"] + 1
            timing.edge(taken, stall, bubble)

    tasks = [cocotb.start_soon(t.run()) for t in (source, sink, tmo_sink, mon, tmo_mon)]
    timing_task = cocotb.start_soon(check_timing())
    tasks.append(timing_task)
    cycles = await run_until_drained(dut, lambda: source.busy or sb.pending(), [sb, mon, tmo_mon], 20 * len(ops) + 1000,
                                     LATENCY + 4, lambda: f"{mon.transfers} of {len(ops)} results")
    for t in tasks:
        t.cancel()
    sb.finish()
    assert not mon.errors and not tmo_mon.errors, (mon.errors + tmo_mon.errors)[0]
    assert mon.transfers == len(ops), f"{mon.transfers} results for {len(ops)} ops"
    await settle()
    got = stats(dut)
    want_stats = {**final, "stat_tmo": tmo["n"]}  # timer events depend on time: counted here
    diff = {s: (want_stats[s], got[s]) for s in STATS if want_stats[s] != got[s]}
    assert not diff, f"counters (expected, actual): {diff}"
    if len(ops) >= 1000:  # a full-size run really idled, stalled and held (a smoke run is too short)
        assert source.idle_cycles > 50 and source.stalled_cycles > 50, (source.idle_cycles, source.stalled_cycles)
        assert sink.held_cycles > 100 and mon.waiting_cycles > 50, (sink.held_cycles, mon.waiting_cycles)
        assert tmo["n"] > 0 and tmo_mon.waiting_cycles > 0, (tmo["n"], tmo_mon.waiting_cycles)
    dut._log.info("random_backpressure: %d results in order equal to the model's in %d cycles (%d bubbles, %d ops "
                  "multiplied); %d timer events taken (%d cycles held); source idle %d / stalled %d, sink held %d "
                  "(a result waiting %d)", mon.transfers, cycles, timing.bubbles, sum(mult), tmo["n"],
                  tmo_mon.waiting_cycles, source.idle_cycles, source.stalled_cycles, sink.held_cycles,
                  mon.waiting_cycles)
