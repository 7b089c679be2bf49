"""cocotb tests of the retransmit queue's generated Verilog (block `rtx`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--rtl`) and the golden-model vectors and points this module at them: MRNIC_VECTORS (the replay
vectors), MRNIC_RANDOM_VECTORS (vectors without random resets, whose operations the randomized
test replays with its own timing), MRNIC_LATENCY, MRNIC_CONNECTIONS, MRNIC_SEED.

Contract under test (the RTL header, hdl/src/rtx.rs, and the model cycle shell
mrnic_model::transport::rtx_shell, whose op table is the reference)
-------------------------------------------------------------------------------------
One operation per `s` transfer (`s_op`: 0 RESET, 1 SEND, 2 ACK, 3 LDET, 4 DRAIN, 5 QUERY,
6 HEADTMO, 7 MARKLOST, 8 ABANDON, 9 HWAIT, 10 NEWDATA, 11-15 nothing), its result on `m`
exactly LATENCY (11) cycles later with m_ready high: `m_op`, `m_conn`, `m_ok`, `m_psn`..`m_psn4`,
`m_path`, `m_k`, `m_k2`, `m_n`/`m_l` (9 bits per path), `m_room`, `m_free`, `m_retx`; for every op
but LDET and DRAIN `m_psn2` is the connection's next PSN after the op. A result held by
m_ready low stalls everything (`s_ready` low). Reset clears the pipeline and the counters, then
the post-reset sweep holds `s_ready` low for C cycles. The head timer: a connection's deadline
(the base's send time + the HWAIT wait, while the base is in flight) fires on `m_tmo`
(`m_tmo_conn`) at most C + 3 cycles after max(deadline, its bank write), never before it, once
per sweep of C cycles until an op clears it; `m_tmo` is held while m_tmo_ready is low;
`stat_tmo` counts its transfers. Counters `stat_send`, `stat_retx`, `stat_acked`, `stat_spurious`,
`stat_lost_path`, `stat_lost_drain`, `stat_head` count results as they enter the output register.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, every op, hot connections,
  stalls, random resets, `now` near the wrap) through the model, every output every cycle after
  the header's settle cycles.
* `directed_semantics`: the sweep after reset; on one connection: RESET, SENDs on two paths,
  cumulative ACK, SACK, an ACK past next refused, LDET, MARKLOST, QUERY (oldest lost, held
  masks), retransmission hand-out, refused SENDs, HEADTMO, DRAIN, ABANDON; on another the head
  timer: never early, within C + 3 cycles, held while m_tmo_ready is low, once per sweep,
  silent after the ACK that empties the queue. Hand-written expectations, exact latency.
* `random_backpressure`: the operations the model took in MRNIC_RANDOM_VECTORS, offered again
  with other idle phases, m_ready / m_tmo_ready backpressure phases and another `now`; every
  result compared in order with the model's (results do not depend on timing), the handshake
  rules and s_ready's equation every cycle, the counters at the end.
"""

from __future__ import annotations

import os

import cocotb

from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSink, StreamSource, check_ready_equation, default_backpressure,
                           default_idle, random_hold, run_until_drained)
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import read_transfers, replay, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
OP = dict(RESET=0, SEND=1, ACK=2, LDET=3, DRAIN=4, QUERY=5, HEADTMO=6, MARKLOST=7, ABANDON=8, HWAIT=9,
          NEWDATA=10)
IN_FIELDS = ("s_op", "s_conn", "s_psn", "s_new", "s_path", "s_ppsn", "s_sack", "s_held", "s_hw_valid", "s_hw",
             "s_nd", "s_ldp_valid", "s_ldp")
OUT_FIELDS = ("m_op", "m_conn", "m_ok", "m_psn", "m_psn2", "m_path", "m_k", "m_k2", "m_psn3", "m_psn4", "m_n",
              "m_l", "m_room", "m_free", "m_retx")
STATS = ("stat_send", "stat_retx", "stat_acked", "stat_spurious", "stat_lost_path", "stat_lost_drain",
         "stat_head", "stat_tmo")
IDLE = {"rst": 0, "s_valid": 0, **{f: 0 for f in IN_FIELDS}, "m_ready": 1, "m_tmo_ready": 1}


def counts(per_path: dict[int, int]) -> int:
    """m_n / m_l: path p's count in bits 9p..9p+8."""
    return sum(n << (9 * p) for p, n in per_path.items())


class Now:
    """Drives `now` = start + cycles at every falling edge (the NIC time counter)."""

    def __init__(self, dut, start: int):
        self.dut, self.start, self.cycle = dut, start, 0

    @property
    def value(self) -> int:
        return (self.start + self.cycle) & 0xFFFFFFFF

    async def run(self) -> None:
        while True:
            await next_cycle(self.dut)
            self.cycle += 1
            self.dut.now.value = self.value


async def rtx_reset(dut, connections: int) -> None:
    """rst for two cycles (s_ready low, counters 0 after), then the post-reset sweep: s_ready low
    for exactly C cycles, then high."""
    def during(d):
        assert read(d.s_ready) == 0, "s_ready must be low during rst"

    await reset(dut, cycles=2, idle=IDLE, during=during)
    low = 0
    while read(dut.s_ready) == 0:
        low += 1
        assert read(dut.m_valid) == 0 and read(dut.m_tmo_valid) == 0, f"a result or a timer event in sweep cycle {low}"
        assert low <= connections + 5, f"s_ready still low {low} cycles after rst"
        await next_cycle(dut)
        await settle()
    assert low == connections, f"the post-reset sweep held s_ready low for {low} cycles, expected C = {connections}"
    for s in STATS:
        assert read(getattr(dut, s)) == 0, f"{s} = {read(getattr(dut, s))} after rst"


async def run_op(dut, op: dict, tmo_ready: int = 1) -> tuple[dict, int]:
    """Offer one op (fields by name, the rest 0) with m_ready high; return its result and the
    cycle offset of its transfer. Checks that the result comes exactly LATENCY cycles after
    the transfer and nothing else comes out meanwhile."""
    full = {f: 0 for f in IN_FIELDS}
    full.update(op)
    cyc = 0
    while True:
        await next_cycle(dut)
        drive(dut, {"rst": 0, "s_valid": 1, **full, "m_ready": 1, "m_tmo_ready": tmo_ready})
        await settle()
        assert read(dut.m_valid) == 0, f"a result with no op pending (cycle {cyc} of {op})"
        if read(dut.s_ready) == 1:
            break
        cyc += 1
        assert cyc < 100, f"s_ready low for 100 cycles offering {op}"
    for k in range(1, LATENCY + 1):
        await next_cycle(dut)
        drive(dut, {"s_valid": 0, "m_ready": 1, "m_tmo_ready": tmo_ready})
        await settle()
        if k < LATENCY:
            assert read(dut.m_valid) == 0, f"result of {op} after {k} cycles, expected after {LATENCY}"
    assert read(dut.m_valid) == 1, f"no result of {op} {LATENCY} cycles after its transfer"
    return {f: read(getattr(dut, f)) for f in OUT_FIELDS}, cyc


def check(what: str, res: dict, **want) -> None:
    diff = {k: (v, res[k]) for k, v in want.items() if res[k] != v}
    assert not diff, f"{what}: (expected, actual) {diff}; whole result {res}"


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "rtx", LATENCY)


# ---------------------------------------------------------------------- directed test


@cocotb.test()
async def directed_semantics(dut):
    """The sweep; send, cumulative ACK, SACK, loss, retransmit hand-out, refusals, HEADTMO,
    DRAIN, ABANDON on one connection; the head timer on another."""
    assert LATENCY == 11, f"MRNIC_LATENCY {LATENCY}: the RTL header says 11"
    C = int(os.environ["MRNIC_CONNECTIONS"])
    P = len(dut.m_n) // 9
    W = len(dut.s_sack)
    assert P >= 3, f"the scenario needs 3 paths, the block has {P}"
    start_clock(dut)
    drive(dut, {**IDLE, "now": 1000})
    await rtx_reset(dut, C)
    now = Now(dut, 1000)
    now_task = cocotb.start_soon(now.run())
    a, b = 3 % C, 9 % C
    stats = lambda: {s: read(getattr(dut, s)) for s in STATS}  # noqa: E731

    # ---- connection a: send, ACK, SACK, loss, retransmission
    r, _ = await run_op(dut, {"s_op": OP["RESET"], "s_conn": a, "s_psn": 100})
    check("RESET isn 100", r, m_op=OP["RESET"], m_conn=a, m_ok=1, m_psn2=100, m_room=1, m_free=1)
    sends = [(0, 10), (1, 20), (0, 11), (1, 21), (0, 12)]  # (path, path PSN): PSNs 100..104
    for k, (p, pp) in enumerate(sends):
        r, _ = await run_op(dut, {"s_op": OP["SEND"], "s_conn": a, "s_new": 1, "s_path": p, "s_ppsn": pp})
        check(f"new SEND {k} on path {p}", r, m_op=OP["SEND"], m_conn=a, m_ok=1, m_psn=100 + k, m_psn2=101 + k, m_retx=0)
    await settle()
    assert stats()["stat_send"] == 5, stats()
    r, _ = await run_op(dut, {"s_op": OP["ACK"], "s_conn": a, "s_psn": 101})
    check("cumulative ACK 101", r, m_ok=1, m_n=counts({0: 1}), m_l=0, m_psn2=105)
    r, _ = await run_op(dut, {"s_op": OP["ACK"], "s_conn": a, "s_psn": 101, "s_sack": 1 << 2})
    check("ACK 101 + SACK of 103", r, m_ok=1, m_n=counts({1: 1}), m_l=0)
    r, _ = await run_op(dut, {"s_op": OP["ACK"], "s_conn": a, "s_psn": 101, "s_sack": 1 << 2})
    check("the same SACK again (nothing live)", r, m_ok=1, m_n=0, m_l=0)
    r, _ = await run_op(dut, {"s_op": OP["ACK"], "s_conn": a, "s_psn": 106})
    check("ACK past next refused", r, m_ok=0, m_psn2=105)
    await settle()
    assert stats()["stat_acked"] == 2, stats()
    # path 0 holds 102 (path PSN 11) and 104 (12): with K = 1 highest 12 makes 102 lost only.
    r, _ = await run_op(dut, {"s_op": OP["LDET"], "s_conn": a, "s_path": 0, "s_ppsn": 12})
    check("LDET path 0 highest 12", r, m_ok=1, m_k=1, m_psn=102, m_psn2=102, m_k2=0, m_psn3=0, m_psn4=0)
    r, _ = await run_op(dut, {"s_op": OP["MARKLOST"], "s_conn": a, "s_psn": 101})
    check("MARKLOST 101", r, m_ok=1, m_path=1)
    r, _ = await run_op(dut, {"s_op": OP["QUERY"], "s_conn": a})
    check("QUERY: oldest lost", r, m_ok=1, m_psn=101, m_path=1)
    r, _ = await run_op(dut, {"s_op": OP["SEND"], "s_conn": a, "s_new": 0, "s_psn": 101, "s_path": 2, "s_ppsn": 30})
    check("retransmission of 101 on path 2", r, m_ok=1, m_psn=101, m_retx=1, m_psn2=105)
    r, _ = await run_op(dut, {"s_op": OP["QUERY"], "s_conn": a})
    check("QUERY: next lost", r, m_ok=1, m_psn=102, m_path=0)
    r, _ = await run_op(dut, {"s_op": OP["QUERY"], "s_conn": a, "s_held": 1 << (102 % W)})
    check("QUERY with 102 held: nothing", r, m_ok=0, m_psn=0, m_path=0)
    r, _ = await run_op(dut, {"s_op": OP["SEND"], "s_conn": a, "s_new": 0, "s_psn": 50, "s_path": 0, "s_ppsn": 13})
    check("retransmission of a PSN not in flight refused", r, m_ok=0)
    if P < 16:
        r, _ = await run_op(dut, {"s_op": OP["SEND"], "s_conn": a, "s_new": 1, "s_path": P, "s_ppsn": 40})
        check(f"SEND on path {P} >= P refused", r, m_ok=0, m_psn2=105)
    await settle()
    s = stats()
    assert (s["stat_send"], s["stat_retx"], s["stat_lost_path"]) == (6, 1, 1), s
    r, _ = await run_op(dut, {"s_op": OP["HEADTMO"], "s_conn": a})
    check("HEADTMO: the base 101 in flight on path 2", r, m_ok=1, m_psn=101, m_path=2)
    r, _ = await run_op(dut, {"s_op": OP["DRAIN"], "s_conn": a, "s_path": 0})
    check("DRAIN path 0: 104", r, m_ok=1, m_k=1, m_psn=104, m_psn2=104, m_k2=0)
    await settle()
    s = stats()
    assert (s["stat_head"], s["stat_lost_drain"]) == (1, 1), s
    r, _ = await run_op(dut, {"s_op": OP["ABANDON"], "s_conn": a, "s_psn": 101})
    check("ABANDON from 101", r, m_ok=1, m_psn2=105)
    r, _ = await run_op(dut, {"s_op": OP["QUERY"], "s_conn": a})
    check("QUERY after ABANDON: nothing lost", r, m_ok=0)
    r, _ = await run_op(dut, {"s_op": 13, "s_conn": a})
    check("undefined op 13", r, m_op=13, m_ok=0)

    # ---- connection b: the head timer
    head_on = int(os.environ.get("MRNIC_HEAD_ON", "1"))
    assert head_on == 1, "the configuration's head timer is off: the timer scenario needs head_rto_pct != 0"
    events: list[tuple[int, int, int]] = []  # (cycle, conn, taken)
    tmo_ready = {"v": 1}

    async def tmo_watch():
        while True:
            await next_cycle(dut)
            dut.m_tmo_ready.value = tmo_ready["v"]
            await settle()
            if read(dut.m_tmo_valid) == 1:  # taken: the m_tmo_ready really driven in this cycle
                events.append((now.cycle, read(dut.m_tmo_conn), read(dut.m_tmo_ready)))

    r, _ = await run_op(dut, {"s_op": OP["RESET"], "s_conn": b, "s_psn": 0})
    r, _ = await run_op(dut, {"s_op": OP["HWAIT"], "s_conn": b, "s_hw_valid": 1, "s_hw": 300})
    check("HWAIT 300", r, m_ok=1)
    watch = cocotb.start_soon(tmo_watch())
    t_before = now.cycle
    r, off = await run_op(dut, {"s_op": OP["SEND"], "s_conn": b, "s_new": 1, "s_path": 0, "s_ppsn": 1})
    check("SEND on b", r, m_ok=1, m_psn=0)
    t_send = t_before + 1 + off  # the cycle of the transfer (now = start + cycle)
    deadline_cycle = t_send + 300
    while not any(c == b for _, c, _ in events):
        await next_cycle(dut)
        assert now.cycle < deadline_cycle + C + 40, f"no timer event of connection {b} by cycle {now.cycle} (deadline {deadline_cycle})"
    first = next(e for e in events if e[1] == b)
    assert all(c == b for _, c, _ in events), f"timer events of other connections: {events}"
    assert first[0] > deadline_cycle, f"the timer fired at cycle {first[0]}, before its deadline {deadline_cycle}"
    assert first[0] <= max(deadline_cycle, t_send + LATENCY) + C + 3, \
        f"the timer fired at cycle {first[0]}, later than C + 3 after the deadline {deadline_cycle}"
    # The first event was taken (m_tmo_ready high). With m_tmo_ready low, the next sweep's
    # event comes and is held: valid every cycle, the same connection, the counter still.
    tmo_ready["v"] = 0
    n0 = len(events)
    for _ in range(C + 4):
        await next_cycle(dut)
    assert len(events) > n0, f"no event of the expired deadline in the {C + 4} cycles after the first"
    k0 = len(events)
    await settle()
    tmo0 = read(dut.stat_tmo)
    for _ in range(30):
        await next_cycle(dut)
    await settle()
    held = events[k0:]
    cycles_held = [c for c, _, _ in held]
    assert len(held) >= 29 and cycles_held == list(range(held[0][0], held[0][0] + len(held))) \
        and all(c == b and t == 0 for _, c, t in held), f"m_tmo not held while m_tmo_ready low: {held}"
    assert read(dut.stat_tmo) == tmo0, "stat_tmo counted an event not taken"
    tmo_ready["v"] = 1
    n1 = len(events)
    for _ in range(4 * C + 2):
        await next_cycle(dut)
    tmo_ready["v"] = 0  # no transfer while the counter is read (it counts at the edge after one)
    for _ in range(2):
        await next_cycle(dut)
    await settle()
    again = [e for e in events[n1:] if e[2] == 1]
    assert 3 <= len(again) <= 6, f"an expired deadline fires once per sweep of {C} cycles: {len(again)} events in {4 * C + 2} cycles"
    assert read(dut.stat_tmo) == tmo0 + len(again), f"stat_tmo {read(dut.stat_tmo)}, {tmo0} + {len(again)} taken"
    tmo_ready["v"] = 1
    r, _ = await run_op(dut, {"s_op": OP["ACK"], "s_conn": b, "s_psn": 1})
    check("ACK of b's only PSN", r, m_ok=1, m_n=counts({0: 1}))
    for _ in range(C + 4):
        await next_cycle(dut)
    n2 = len(events)
    for _ in range(3 * C):
        await next_cycle(dut)
    assert len(events) == n2, f"timer events after the ACK that emptied the queue: {events[n2:]}"
    watch.cancel()
    now_task.cancel()
    dut._log.info("directed_semantics: deadline cycle %d, first event %d (%d late), %d events per 4 sweeps",
                  deadline_cycle, first[0], first[0] - deadline_cycle, len(again))


# ------------------------------------------------------------------- randomized test


def model_run(path: str) -> tuple[dict, list[dict], list[dict], dict]:
    """From vectors without random resets: the header, the ops the model took (after the last
    reset cycle of the prologue) that have a result in the file, the results in order, and the
    counters in the cycle of the last result's transfer."""
    t = read_transfers(path)
    return t.header, t.of("s"), t.results, {s: t.last[s] for s in STATS}


@cocotb.test()
async def random_backpressure(dut):
    """The model's operations offered again with other idle, backpressure and time; every
    result in order equal to the model's, handshakes and s_ready every cycle, counters."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    C = int(os.environ["MRNIC_CONNECTIONS"])
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block rtx --no-resets` vectors"
    header, ops, results, final = model_run(path)
    assert len(ops) == len(results) and len(ops) > 20, f"{len(ops)} ops, {len(results)} results in {path}"
    codes = {op["s_op"] for op in ops}
    if len(ops) >= 1000:  # a full-size run (not a MRNIC_COCOTB_SCALE smoke run) offers every op
        assert set(range(11)) <= codes, f"op codes {sorted(codes)}: not every op is offered"
    streams = {s["name"]: s for s in header["streams"]}

    start_clock(dut)
    drive(dut, {**IDLE, "now": 0})
    await rtx_reset(dut, C)
    now = Now(dut, 0xFFFF_F000 + seed)  # other send times than the model's, across the 2^32 wrap
    sb = Scoreboard(dut._log, {n: len(getattr(dut, n)) for n in OUT_FIELDS})
    for k, r in enumerate(results):
        sb.expect("m", r, note=f"result {k} of op {ops[k]}")
    tmo = {"n": 0}

    def on_tmo(txn, cycle):
        assert 0 <= txn["m_tmo_conn"] < C, f"m_tmo_conn {txn['m_tmo_conn']}"
        tmo["n"] += 1

    idle, backpressure = default_idle(seed), default_backpressure(seed)
    source = StreamSource(dut, streams["s"], idle=idle)
    sink = StreamSink(dut, streams["m"], backpressure=backpressure)
    tmo_sink = StreamSink(dut, streams["m_tmo"], backpressure=random_hold(seed + 6, 0.5))
    mon = StreamMonitor(dut, streams["m"], on_transfer=lambda t, c: sb.observe("m", t, c))
    tmo_mon = StreamMonitor(dut, streams["m_tmo"], on_transfer=on_tmo)
    for op in ops:
        source.send(op)

    tasks = [cocotb.start_soon(t.run()) for t in (now, source, sink, tmo_sink, mon, tmo_mon)]
    tasks.append(cocotb.start_soon(check_ready_equation(dut)))
    cycles = await run_until_drained(dut, lambda: source.busy or sb.pending(), [sb, mon, tmo_mon], 20 * len(ops) + 1000,
                                     LATENCY + 4, lambda: f"{mon.transfers} of {len(ops)} results")
    for t in tasks:
        t.cancel()
    sb.finish()
    assert not mon.errors and not tmo_mon.errors, (mon.errors + tmo_mon.errors)[0]
    assert mon.transfers == len(ops), f"{mon.transfers} results for {len(ops)} ops"
    await settle()
    got = {s: read(getattr(dut, s)) for s in STATS}
    want = {**final, "stat_tmo": tmo["n"]}  # timer events depend on time: counted here
    diff = {s: (want[s], got[s]) for s in STATS if want[s] != got[s]}
    assert not diff, f"counters (expected, actual): {diff}"
    if len(ops) >= 1000:  # a full-size run really idled, stalled and held (a smoke run is too short)
        assert source.idle_cycles > 50 and source.stalled_cycles > 50, (source.idle_cycles, source.stalled_cycles)
        assert sink.held_cycles > 100 and mon.waiting_cycles > 50, (sink.held_cycles, mon.waiting_cycles)
    dut._log.info("random_backpressure: %d results in order equal to the model's in %d cycles; %d timer events taken; "
                  "source idle %d / stalled %d, sink held %d (a result waiting %d)", mon.transfers, cycles, tmo["n"],
                  source.idle_cycles, source.stalled_cycles, sink.held_cycles, mon.waiting_cycles)
