"""cocotb tests of the connection checks' generated Verilog (block `conn_chk`, module
`mrnic_conn_chk`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block conn_chk --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the configuration), MRNIC_RANDOM_VECTORS
(vectors without random resets, on which the Python reference is checked and whose config
writes and requests the randomized test replays with its own timing), MRNIC_LATENCY,
MRNIC_CONNECTIONS and MRNIC_PATHS (the manifest's parameters `connections`, `paths`),
MRNIC_SEED.

Contract under test (the RTL header hdl/src/conn_chk.rs, the model cycle shell
mrnic_model::transport::conn_chk_shell::ConnChkShell and its decision `check_conn`)
------------------------------------------------------------------------------------------
A table of `connections` rows (C = log2 connections; row = the QPN's low C bits) in block RAM,
written through the config stream `s_cfg` (`s_cfg_ready` = !rst, one whole row a cycle: `conn`,
`live`, `tag` (24 - C bits), `peer` (32), `pkey` (16)); every write transferred counts in
`stat_cfg_writes`. The RAM powers up undefined: every row is written before it is read. A
request on `s` (`s_qpn` 24, `s_src` 32, `s_pkey` 16, `s_path` 4, `s_tag` 8; `s_ready` = !rst &
(!m_valid | m_ready)) has its result on `m` exactly LATENCY (3) cycles after its transfer:
`m_tag` echoed, `m_conn` = qpn & (connections - 1) (also on a drop), `m_ok`, `m_reason`, the
first failing check in this order: 1 wrong QP (the row is not live, or its tag != qpn >> C), 2
wrong peer (`s_src` != the row's peer), 3 wrong P_Key, 4 bad path (`s_path` >= paths); 0 ok.
The row is read at the request's transfer: a config write transferred in the same cycle is
seen, a later one is not, however long the result waits. `stat_ok`, `stat_wrong_qp`,
`stat_wrong_peer`, `stat_wrong_pkey`, `stat_bad_path` count the results transferred by
outcome (32-bit, wrapping; a transfer shows the cycle after). Reset (`rst`, synchronous): every
valid and ready low during it, the pipeline empties, the counters are 0, the table keeps its
contents (a write offered during `rst` is not taken).

`ConnRef` below is a cycle-level Python reference written from that contract (`check_conn` the
decision): the randomized test first checks it on the model's vectors (every output, every
cycle), then runs it beside the DUT.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, every row written, then
  requests aimed at the rows: the right QPN, a stale or forged tag, a closed row, another
  peer, another P_Key, a path id at or past P, racing config writes to hot rows, result
  backpressure, rare resets) through the model, every output every cycle after the header's
  settle.
* `directed_semantics`: hand-written expectations (each also asked of `check_conn`, and every
  output of every cycle compared with `ConnRef`): reset (a write offered during it not taken);
  every row written; each check alone on one row (tag +1 / -1 / 0 / top bit, another row's
  index, a closed row whose fields all match, peer bit 0 / bit 31, P_Key bit 0 / bit 15, path
  P and 15), every pair of failures (first one wins), all-zero and all-ones rows; a write
  without valid changes nothing; the same-cycle write seen (closing and reopening a row); a
  write one cycle after the transfer not seen; LATENCY requests held behind a stalled result
  while their row is rewritten (old row), the request offered during the stall (new row); a
  held result counted once; back to back at full rate with writes to other rows; a request in
  flight across `rst` never comes out; the table kept after `rst`; every counter after each
  group.
* `random_backpressure`: `ConnRef` checked on both vector files (every output, every cycle),
  then the config writes and requests the model took in the no-reset vectors offered again in
  the same order with other idle phases on both input streams (a request still sees exactly
  the writes before it: a write before it goes no later than its cycle, a write after it only
  once it is taken), random payloads while a valid is low, and `m_ready` backpressure; the DUT
  and `ConnRef` side by side: every output every cycle, the handshake rules on `m`, `s_ready`'s
  equation; at the end the results in order equal to the model's (every field) and the
  counters to the ones those results and writes make.
"""

from __future__ import annotations

import json
import os
import random
from collections import deque
from typing import NamedTuple

import cocotb

from common.stream import StreamMonitor, default_backpressure, default_idle
from common.tb import RefBench, compare_outputs, drive, next_cycle, read_outputs, settle, start_clock
from common.vectors import read_header, read_transfers, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
OK, WRONG_QP, WRONG_PEER, WRONG_PKEY, BAD_PATH = 0, 1, 2, 3, 4
CFG_FIELDS = ("s_cfg_conn", "s_cfg_live", "s_cfg_tag", "s_cfg_peer", "s_cfg_pkey")
REQ_FIELDS = ("s_qpn", "s_src", "s_pkey", "s_path", "s_tag")
OUT_FIELDS = ("m_tag", "m_ok", "m_reason", "m_conn")
STATS = ("stat_ok", "stat_wrong_qp", "stat_wrong_peer", "stat_wrong_pkey", "stat_bad_path", "stat_cfg_writes")
REASON_STAT = {OK: "stat_ok", WRONG_QP: "stat_wrong_qp", WRONG_PEER: "stat_wrong_peer", WRONG_PKEY: "stat_wrong_pkey",
               BAD_PATH: "stat_bad_path"}
ALWAYS = ("s_cfg_ready", "s_ready", "m_valid", *STATS)
IDLE = {"rst": 0, "s_cfg_valid": 0, **{f: 0 for f in CFG_FIELDS}, "s_valid": 0, **{f: 0 for f in REQ_FIELDS},
        "m_ready": 1}
M16, M24, M32 = 0xFFFF, (1 << 24) - 1, (1 << 32) - 1
QPN_BITS = 24


class Sizes(NamedTuple):
    connections: int
    paths: int

    @property
    def cbits(self) -> int:
        return self.connections.bit_length() - 1

    @property
    def tmask(self) -> int:
        return (1 << (QPN_BITS - self.cbits)) - 1


def sizes(dut=None) -> Sizes:
    """The block's sizes: the manifest's parameters (MRNIC_CONNECTIONS, MRNIC_PATHS), checked
    against the vectors' header and, given the DUT, its port widths."""
    z = Sizes(int(os.environ["MRNIC_CONNECTIONS"]), int(os.environ["MRNIC_PATHS"]))
    assert z.connections >= 2 and z.connections & (z.connections - 1) == 0 and 1 <= z.paths <= 16, z
    conf = read_header(os.environ["MRNIC_VECTORS"])["config"]
    assert (conf["connections"], conf["transport"]["paths"]) == z, f"the manifest says {z}, the vectors {conf}"
    if dut is not None:
        w = (len(dut.s_cfg_conn), len(dut.m_conn), len(dut.s_cfg_tag), len(dut.s_qpn))
        assert w == (z.cbits, z.cbits, QPN_BITS - z.cbits, QPN_BITS), f"port widths {w} for {z}"
    return z


# --------------------------------------------------------------------- Python reference


class Row(NamedTuple):
    live: bool
    tag: int
    peer: int
    pkey: int


class Req(NamedTuple):
    qpn: int
    src: int
    pkey: int
    path: int
    tag: int


def check_conn(row: Row, req: Req, z: Sizes) -> int:
    """The decision on the row the QPN names: the first failing check's reason, 0 if none."""
    qtag = (req.qpn & M24) >> z.cbits
    if not row.live or row.tag != qtag:
        return WRONG_QP
    if row.peer != req.src:
        return WRONG_PEER
    if row.pkey != req.pkey:
        return WRONG_PKEY
    if (req.path & 0xF) >= z.paths:
        return BAD_PATH
    return OK


def result(reason: int, qpn: int, tag: int, z: Sizes) -> dict:
    return {"m_tag": tag & 0xFF, "m_ok": int(reason == OK), "m_reason": reason, "m_conn": qpn & (z.connections - 1)}


class ConnRef:
    """Cycle-level reference: `step(inputs)` returns the outputs of the cycle (every output
    in ALWAYS, the `m_*` payload while `m_valid`), then takes its rising edge. Rows start
    unknown (None): a request that reads one fails, as the RAM powers up undefined."""

    def __init__(self, z: Sizes):
        self.z = z
        self.rows: list[Row | None] = [None] * z.connections
        self.a: tuple[Req, Row] | None = None  # read at the transfer
        self.b: tuple[Req, Row] | None = None  # registered
        self.out: dict | None = None  # on m
        self.stats = {s: 0 for s in STATS}

    def outputs(self, i: dict) -> dict:
        on = not i["rst"]
        en = on and (self.out is None or bool(i["m_ready"]))
        o = {"s_cfg_ready": int(on), "s_ready": int(en), "m_valid": int(on and self.out is not None), **self.stats}
        if o["m_valid"]:
            o.update(self.out)
        return o

    def step(self, i: dict) -> dict:
        o = self.outputs(i)
        if i["rst"]:
            self.a = self.b = self.out = None
            self.stats = {s: 0 for s in STATS}
            return o
        if o["m_valid"] and i["m_ready"]:
            s = REASON_STAT[self.out["m_reason"]]
            self.stats[s] = (self.stats[s] + 1) & M32
        if i["s_cfg_valid"]:  # the write lands first: a request of the same cycle reads it
            z = self.z
            self.rows[i["s_cfg_conn"] & (z.connections - 1)] = Row(bool(i["s_cfg_live"] & 1), i["s_cfg_tag"] & z.tmask,
                                                                  i["s_cfg_peer"] & M32, i["s_cfg_pkey"] & M16)
            self.stats["stat_cfg_writes"] = (self.stats["stat_cfg_writes"] + 1) & M32
        if o["s_ready"]:
            self.out = None if self.b is None else result(check_conn(self.b[1], self.b[0], self.z), self.b[0].qpn,
                                                          self.b[0].tag, self.z)
            self.b, self.a = self.a, None
            if i["s_valid"]:
                q = Req(i["s_qpn"] & M24, i["s_src"] & M32, i["s_pkey"] & M16, i["s_path"] & 0xF, i["s_tag"] & 0xFF)
                k = q.qpn & (self.z.connections - 1)
                row = self.rows[k]
                assert row is not None, (f"request {q} reads row {k}, not written since the reference started: the "
                                         f"RAM's contents are undefined (write every row first)")
                self.a = (q, row)
        return o


def compare(what: str, got: dict, want: dict, recent=()) -> None:
    """Every output in ALWAYS, the payload while the reference's m_valid is 1."""
    compare_outputs(what, got, want, ALWAYS, OUT_FIELDS, recent)


def outputs(dut, payload: bool = True) -> dict:
    return read_outputs(dut, ALWAYS, OUT_FIELDS if payload else ())


def check_reference(path: str, z: Sizes) -> tuple[int, int]:
    """`ConnRef` over the vectors at `path` (the model's outputs): every output every cycle
    after the header's settle. Returns (cycles, result beats)."""
    settle_cycles = int(read_header(path).get("settle", 0))
    ref = ConnRef(z)
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
            compare(f"{path}: cycle {n}: the golden model's outputs", c["out"], want, recent)
    return n + 1, beats


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    sizes(dut)
    await replay_block_vectors(dut, "conn_chk", LATENCY)


# ---------------------------------------------------------------------- directed test


class Bench(RefBench):
    """Drives one cycle at a time (the rest of the inputs idle) and compares every output with
    `ConnRef` every cycle."""

    def __init__(self, dut, z: Sizes):
        super().__init__(dut, ConnRef(z), IDLE, outputs, compare)
        self.z = z
        self.exp = {s: 0 for s in STATS}  # the counters written by hand
        self.tag = 0

    async def reset(self, during: dict | None = None) -> None:
        """rst for two cycles (`during`: other inputs held then); both readies and m_valid low
        during it, high / high / low after it, every counter 0."""
        for _ in range(2):
            o = await self.tick({**(during or {}), "rst": 1})
            assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (0, 0, 0), f"during rst: {o}"
        o = await self.tick()
        assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (1, 1, 0), f"after rst: {o}"
        assert all(o[s] == 0 for s in STATS), f"counters after rst: { {s: o[s] for s in STATS} }"
        self.exp = {s: 0 for s in STATS}

    @staticmethod
    def cfg(conn: int, live: int, tag: int, peer: int, pkey: int) -> dict:
        return {"s_cfg_valid": 1, "s_cfg_conn": conn, "s_cfg_live": live, "s_cfg_tag": tag, "s_cfg_peer": peer,
                "s_cfg_pkey": pkey}

    async def write(self, conn: int, live: int, tag: int, peer: int, pkey: int) -> None:
        """One config write alone, taken in its cycle."""
        o = await self.tick(self.cfg(conn, live, tag, peer, pkey))
        assert o["s_cfg_ready"] == 1, f"config write to row {conn}: s_cfg_ready low"

    def req(self, qpn: int, src: int, pkey: int, path: int) -> dict:
        self.tag = (self.tag + 37) & 0xFF  # a different tag for each request, echoed
        return {"s_valid": 1, "s_qpn": qpn, "s_src": src, "s_pkey": pkey, "s_path": path, "s_tag": self.tag}

    def expect(self, what: str, f: dict, reason: int) -> dict:
        """The hand-written reason of request `f` on the row the reference holds now, also
        asked of `check_conn`; the whole expected result."""
        row = self.ref.rows[f["s_qpn"] & (self.z.connections - 1)]
        r = check_conn(row, Req(f["s_qpn"], f["s_src"], f["s_pkey"], f["s_path"], f["s_tag"]), self.z)
        assert r == reason, f"{what}: the Python reference check_conn says reason {r}, the scenario {reason} (row {row})"
        return result(reason, f["s_qpn"], f["s_tag"], self.z)

    @staticmethod
    def check(what: str, o: dict, want: dict) -> None:
        got = {k: o[k] for k in OUT_FIELDS}
        assert o["m_valid"] == 1 and got == want, f"{what}: m_valid {o['m_valid']}, result {got}, expected {want}"

    async def request(self, what: str, reason: int, *, qpn: int, src: int, pkey: int, path: int) -> None:
        """One request alone with m_ready high: taken at once, its result exactly LATENCY
        cycles later and in no other cycle."""
        f = self.req(qpn, src, pkey, path)
        want = self.expect(what, f, reason)
        o = await self.tick(f)
        assert o["s_ready"] == 1 and o["m_valid"] == 0, f"{what}: offered with s_ready {o['s_ready']}, m_valid {o['m_valid']}"
        for k in range(1, LATENCY + 2):
            o = await self.tick()
            if k == LATENCY:
                self.check(what, o, want)
            else:
                assert o["m_valid"] == 0, f"{what}: m_valid {k} cycles after the transfer (latency {LATENCY})"

    async def counters(self, what: str, **delta) -> None:
        o = await self.tick()  # counters are registered: a transfer shows the cycle after it
        for k, v in delta.items():
            self.exp[f"stat_{k}"] += v
        diff = {s: (self.exp[s], o[s]) for s in STATS if o[s] != self.exp[s]}
        assert not diff, f"counters after {what} (expected, actual): {diff}"


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written expectations for every check, their order, the write visibility, the
    stall, reset and the counters."""
    assert LATENCY == 3, f"MRNIC_LATENCY {LATENCY}: the RTL header says 3"
    z = sizes(dut)
    C, P, cb, tm = z.connections, z.paths, z.cbits, z.tmask
    assert C >= 8, f"the scenario uses rows 0..7 and C - 1: {z}"
    tb = Bench(dut, z)
    start_clock(dut)
    drive(dut, IDLE)
    # a write offered during rst is not taken (no ready, not counted); the reference has not
    # seen a write yet, so its rows stay unknown
    await tb.reset(during=Bench.cfg(0, 1, 0x123, 0xDEAD, 0xBEEF))
    assert all(r is None for r in tb.ref.rows)

    def qpn(tag: int, row: int) -> int:
        return (tag & tm) << cb | row

    # ---- every row written (the RAM powers up undefined): row k live, tag T(k), peer, P_Key
    # distinct per row; row 0 all zeros, row C-1 all ones, row 3 closed.
    def T(k):
        return (0x5A5A5 + 0x3C1 * k) & tm

    def PEER(k):
        return (0x0A000001 + (k << 8)) & M32

    def PK(k):
        return (0x8001 + 0x101 * k) & M16

    rows = {k: (1, T(k), PEER(k), PK(k)) for k in range(C)}
    rows[0] = (1, 0, 0, 0)
    rows[C - 1] = (1, tm, M32, M16)
    rows[3] = (0, T(3), PEER(3), PK(3))
    for k in range(C):
        await tb.write(k, *rows[k])
    assert all(r is not None for r in tb.ref.rows)
    await tb.counters(f"{C} row writes", cfg_writes=C)

    r5 = dict(qpn=qpn(T(5), 5), src=PEER(5), pkey=PK(5))
    await tb.request("row 5, every field right, path 0", OK, **r5, path=0)
    await tb.request("row 5, path P - 1", OK, **r5, path=P - 1)
    await tb.request("row 0 (tag, peer, P_Key all 0), qpn 0", OK, qpn=0, src=0, pkey=0, path=0)
    await tb.request(f"row {C - 1} (all ones), qpn 0xffffff", OK, qpn=M24, src=M32, pkey=M16, path=P - 1)
    await tb.counters("4 ok requests", ok=4)

    # ---- each check alone
    await tb.request("tag + 1", WRONG_QP, **{**r5, "qpn": qpn(T(5) + 1, 5)}, path=0)
    await tb.request("tag - 1", WRONG_QP, **{**r5, "qpn": qpn(T(5) - 1, 5)}, path=0)
    await tb.request("tag 0 (only the row index right)", WRONG_QP, **{**r5, "qpn": 5}, path=0)
    await tb.request("qpn bit 23 flipped", WRONG_QP, **{**r5, "qpn": qpn(T(5), 5) ^ (1 << 23)}, path=0)
    await tb.request("row 5's tag on row 6 (another row's index)", WRONG_QP, **{**r5, "qpn": qpn(T(5), 6)}, path=0)
    await tb.request("row 3, closed, every field right", WRONG_QP, qpn=qpn(T(3), 3), src=PEER(3), pkey=PK(3), path=0)
    await tb.request("row 0 with tag 1", WRONG_QP, qpn=qpn(1, 0), src=0, pkey=0, path=0)
    await tb.request("peer bit 0 flipped", WRONG_PEER, **{**r5, "src": PEER(5) ^ 1}, path=0)
    await tb.request("peer bit 31 flipped", WRONG_PEER, **{**r5, "src": PEER(5) ^ (1 << 31)}, path=0)
    await tb.request("row 6's peer on row 5", WRONG_PEER, **{**r5, "src": PEER(6)}, path=0)
    await tb.request("P_Key bit 0 flipped", WRONG_PKEY, **{**r5, "pkey": PK(5) ^ 1}, path=0)
    await tb.request("P_Key bit 15 flipped", WRONG_PKEY, **{**r5, "pkey": PK(5) ^ 0x8000}, path=0)
    n_path = 0
    if P < 16:
        await tb.request("path P", BAD_PATH, **r5, path=P)
        await tb.request("path 15", BAD_PATH, **r5, path=15)
        n_path = 2
    else:
        dut._log.info("paths = 16: every 4-bit path id is valid, no bad-path case")
    await tb.counters("each check alone", wrong_qp=7, wrong_peer=3, wrong_pkey=2, bad_path=n_path)

    # ---- several failures at once: the first in the order QP, peer, P_Key, path wins
    bad_path = P if P < 16 else 0
    await tb.request("every check failing", WRONG_QP, qpn=qpn(T(5) + 1, 5), src=PEER(5) ^ 1, pkey=PK(5) ^ 1,
                     path=bad_path)
    await tb.request("closed row, wrong peer and P_Key", WRONG_QP, qpn=qpn(T(3), 3), src=0, pkey=0, path=bad_path)
    await tb.request("wrong peer, P_Key and path", WRONG_PEER, **{**r5, "src": PEER(5) ^ 2, "pkey": PK(5) ^ 2},
                     path=bad_path)
    await tb.request("wrong peer and P_Key", WRONG_PEER, **{**r5, "src": PEER(5) ^ 2, "pkey": PK(5) ^ 2}, path=0)
    await tb.request("wrong P_Key and path", WRONG_PKEY, **{**r5, "pkey": 0}, path=bad_path)
    await tb.request("wrong peer and path", WRONG_PEER, **{**r5, "src": 0}, path=bad_path)
    await tb.counters("the failures together", wrong_qp=2, wrong_peer=3, wrong_pkey=1)

    # ---- a write without valid changes nothing (garbage on every field of s_cfg)
    await tb.tick({**Bench.cfg(5, 0, 0x12345, 0x7, 0x9), "s_cfg_valid": 0})
    await tb.request("row 5 after a write to it without valid", OK, **r5, path=0)
    await tb.counters("the write without valid", ok=1)

    # ---- a write in the request's own cycle is seen
    f = tb.req(**r5, path=0)
    o = await tb.tick({**f, **Bench.cfg(5, 0, T(5), PEER(5), PK(5))})  # closes row 5
    assert o["s_ready"] == 1 and o["s_cfg_ready"] == 1, o
    want = result(WRONG_QP, f["s_qpn"], f["s_tag"], z)
    for _ in range(LATENCY - 1):
        await tb.tick()
    tb.check("row 5 closed in the request's cycle", await tb.tick(), want)
    T5b = (T(5) ^ 0x80001) & tm  # row 5 reopened with another tag, the request using it
    f = tb.req(qpn(T5b, 5), PEER(5), PK(5), 1)
    o = await tb.tick({**f, **Bench.cfg(5, 1, T5b, PEER(5), PK(5))})
    for _ in range(LATENCY - 1):
        await tb.tick()
    tb.check("row 5 reopened with a new tag in the request's cycle", await tb.tick(), result(OK, f["s_qpn"], f["s_tag"], z))
    await tb.request("the old tag of row 5 after the reopening", WRONG_QP, **r5, path=0)
    await tb.counters("the same-cycle writes", cfg_writes=2, wrong_qp=2, ok=1)
    # a write the cycle after the transfer (the row is being read from the RAM) is not seen
    r5 = dict(qpn=qpn(T5b, 5), src=PEER(5), pkey=PK(5))
    f = tb.req(**r5, path=0)
    await tb.tick(f)
    await tb.tick(Bench.cfg(5, 1, T5b, PEER(7), PK(5)))  # another peer
    await tb.tick()
    tb.check("row 5's peer rewritten the cycle after the transfer", await tb.tick(), result(OK, f["s_qpn"], f["s_tag"], z))
    await tb.request("the old peer after the rewrite", WRONG_PEER, **r5, path=0)
    await tb.counters("the write after the transfer", cfg_writes=1, ok=1, wrong_peer=1)

    # ---- writes while results wait are not seen: row 6 rewritten (another P_Key) once
    # LATENCY requests on it are taken with m_ready low (the first result held on m, the
    # others in stages B and A: rows registered / read from the RAM); held 4 cycles (s_ready
    # low, the result unchanged, nothing counted), a request `late` offered meanwhile; then all
    # LATENCY requests carry the old row and `late`, taken with the first result, the new one.
    r6 = dict(qpn=qpn(T(6), 6), src=PEER(6), pkey=PK(6))
    firsts = [tb.req(**r6, path=k % P) for k in range(LATENCY)]
    for k, f in enumerate(firsts):
        o = await tb.tick({**f, "m_ready": 0})
        assert o["s_ready"] == 1 and o["m_valid"] == 0, f"stall: request {k} not taken before the first result: {o}"
    late = tb.req(**r6, path=0)
    held = [await tb.tick({**late, "m_ready": 0, **Bench.cfg(6, 1, T(6), PEER(6), PK(6) ^ 0x4000)})]
    for _ in range(3):
        held.append(await tb.tick({**late, "m_ready": 0}))
    assert all(h["m_valid"] == 1 and h["s_ready"] == 0 and h["s_cfg_ready"] == 1 for h in held), \
        f"stall: m_valid / s_ready / s_cfg_ready while held: {held}"
    assert all({k: h[k] for k in OUT_FIELDS} == {k: held[0][k] for k in OUT_FIELDS} for h in held), \
        f"stall: the held result changed: {held}"
    tb.check("the first request, its result held 4 cycles while its row was rewritten", held[0],
             result(OK, firsts[0]["s_qpn"], firsts[0]["s_tag"], z))
    assert held[-1]["stat_ok"] == tb.exp["stat_ok"], f"a held result counted before its transfer: {held[-1]}"
    assert held[-1]["stat_cfg_writes"] == tb.exp["stat_cfg_writes"] + 1, f"the write during the stall not counted: {held[-1]}"
    o = await tb.tick({**late, "m_ready": 1})  # the first result taken, `late` too
    assert o["m_valid"] == 1 and o["s_ready"] == 1 and o["m_tag"] == firsts[0]["s_tag"], o
    for k, f in enumerate(firsts[1:], 1):
        tb.check(f"request {k}, waiting behind the stall while its row was rewritten", await tb.tick(),
                 result(OK, f["s_qpn"], f["s_tag"], z))
    tb.check("the request offered during the stall sees the new P_Key", await tb.tick(),
             result(WRONG_PKEY, late["s_qpn"], late["s_tag"], z))
    o = await tb.tick()
    assert o["m_valid"] == 0, f"a result after the last one: {o}"
    await tb.counters("the stalled results", cfg_writes=1, ok=LATENCY, wrong_pkey=1)

    # ---- back to back at full rate, writes to other rows in the same cycles: one result a
    # cycle, in order
    reqs = [(tb.req(qpn(T(k), k), PEER(k), PK(k), k % P), OK) for k in (1, 2, 4)]
    reqs += [(tb.req(qpn(T(7), 7), PEER(7) ^ 4, PK(7), 0), WRONG_PEER), (tb.req(qpn(T(3), 3), PEER(3), PK(3), 0), WRONG_QP),
             (tb.req(qpn(T(2), 2), PEER(2), PK(2) ^ 4, 0), WRONG_PKEY)]
    if P < 16:
        reqs.append((tb.req(qpn(T(4), 4), PEER(4), PK(4), 15), BAD_PATH))
    want = [tb.expect(f"back-to-back request {k}", f, r) for k, (f, r) in enumerate(reqs)]
    seen = []
    for k in range(len(reqs) + LATENCY):
        vals = dict(reqs[k][0]) if k < len(reqs) else {}
        if k < len(reqs):  # rewrite a row no request here reads, with its own content
            vals.update(Bench.cfg(C - 2, *rows[C - 2]))
        o = await tb.tick(vals)
        assert o["s_ready"] == 1, f"back to back: s_ready low in cycle {k}"
        assert o["m_valid"] == int(k >= LATENCY), f"back to back: m_valid {o['m_valid']} in cycle {k}"
        if o["m_valid"]:
            seen.append({x: o[x] for x in OUT_FIELDS})
    assert seen == want, f"back to back: results {seen}, expected {want}"
    await tb.counters("back to back", ok=3, wrong_peer=1, wrong_qp=1, wrong_pkey=1, bad_path=int(P < 16),
                      cfg_writes=len(reqs))

    # ---- reset: a request in flight never comes out, the counters are 0, the table kept
    o = await tb.tick(tb.req(**r6, path=0))
    assert o["s_ready"] == 1
    await tb.reset()
    for _ in range(LATENCY + 1):
        o = await tb.tick()
        assert o["m_valid"] == 0, "a request taken before rst came out after it"
    await tb.request("row 6 after rst: the new P_Key kept", OK, **{**r6, "pkey": PK(6) ^ 0x4000}, path=0)
    await tb.request("row 3 after rst: still closed", WRONG_QP, qpn=qpn(T(3), 3), src=PEER(3), pkey=PK(3), path=0)
    await tb.request(f"row {C - 1} after rst", OK, qpn=M24, src=M32, pkey=M16, path=0)
    await tb.counters("the requests after rst", ok=2, wrong_qp=1)
    dut._log.info("directed_semantics: %d cycles, every output equal to the reference; counters %s", tb.cycles,
                  {s: tb.exp[s] for s in STATS})


# ------------------------------------------------------------------- randomized test


@cocotb.test()
async def random_backpressure(dut):
    """The Python reference checked on the model's vectors; then the model's config writes and
    requests offered again in order with other idle phases on both input streams and m_ready
    backpressure, the DUT and the reference side by side: every output every cycle."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    z = sizes(dut)
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block conn_chk --no-resets` vectors"
    for p in (os.environ["MRNIC_VECTORS"], path):
        n, beats = check_reference(p, z)
        assert beats > 20, f"{p}: only {beats} results to check the reference on"
        dut._log.info("the Python reference equals the model on %s: %d cycles, %d results on m", p, n, beats)

    t = read_transfers(path, inputs=("s_cfg", "s"))
    events = [("w" if n == "s_cfg" else "r", e) for n, e in t.taken]
    results = t.results
    n_req = sum(1 for k, _ in events if k == "r")
    n_wr = len(events) - n_req
    assert n_req == len(results) > 20, f"{n_req} requests, {len(results)} results in {path}"
    first_req = next(k for k, (kind, _) in enumerate(events) if kind == "r")
    written = {e["s_cfg_conn"] & (z.connections - 1) for _, e in events[:first_req]}
    assert len(written) == z.connections, f"only {len(written)} of {z.connections} rows written before the first request"
    final = {s: 0 for s in STATS}
    for r in results:
        final[REASON_STAT[r["m_reason"]]] += 1
    final["stat_cfg_writes"] = n_wr
    assert sum(1 for r in results if r["m_reason"] != OK) > len(results) // 20, "too few drops in the vectors"

    streams = {s["name"]: s for s in t.header["streams"]}
    rng = random.Random(seed)
    ref = ConnRef(z)
    in_rst = {"v": True}
    mon = StreamMonitor(dut, streams["m"], reset_active=lambda: in_rst["v"])
    start_clock(dut)
    drive(dut, {**IDLE, "rst": 1})
    mon_task = cocotb.start_soon(mon.run())
    cfg_idle, req_idle, bp = default_idle(seed + 10), default_idle(seed), default_backpressure(seed)
    stat = {"cfg_idle": 0, "req_idle": 0, "req_stalled": 0, "same_cycle": 0, "held": 0, "rewrites_in_flight": 0}
    recent: deque = deque(maxlen=4)
    got: list[dict] = []
    nxt = 0  # the first event not done
    offered = False  # the request at nxt was offered and not taken: it stays offered
    cyc = 0
    limit = 20 * len(events) + 1000
    tail = 0

    def garbage() -> dict:
        """Idle inputs: random payloads under low valids."""
        return {"rst": 0, "s_cfg_valid": 0, "s_valid": 0, "s_cfg_conn": rng.getrandbits(16),
                "s_cfg_live": rng.getrandbits(1), "s_cfg_tag": rng.getrandbits(24), "s_cfg_peer": rng.getrandbits(32),
                "s_cfg_pkey": rng.getrandbits(16), "s_qpn": rng.getrandbits(24), "s_src": rng.getrandbits(32),
                "s_pkey": rng.getrandbits(16), "s_path": rng.getrandbits(4), "s_tag": rng.getrandbits(8)}

    while tail < LATENCY + 4:
        if nxt >= len(events) and len(got) >= n_req:
            tail += 1  # drained: nothing may come out any more
        assert cyc < limit, f"no progress after {cyc} cycles: {nxt} of {len(events)} events, {len(got)} results"
        rst = cyc < 2  # the reference starts in reset
        i = garbage()
        i["rst"] = int(rst)
        i["m_ready"] = int(not next(bp))
        wk = rk = None
        if not rst:
            k = nxt
            hold_cfg, hold_req = next(cfg_idle), next(req_idle)
            if k < len(events) and events[k][0] == "w":
                if hold_cfg:
                    stat["cfg_idle"] += 1
                else:
                    wk, k = k, k + 1
                    i.update(s_cfg_valid=1, **events[wk][1])
            if k < len(events) and events[k][0] == "r" and (wk is not None or k == nxt):
                if offered or not hold_req:
                    rk = k
                    i.update(s_valid=1, **events[rk][1])
                    stat["same_cycle"] += wk is not None
                else:
                    stat["req_idle"] += 1
        await next_cycle(dut)
        in_rst["v"] = rst
        drive(dut, i)
        await settle()
        recent.append(i)
        if wk is not None:  # a write to a row a request in stage A or B has read
            row = i["s_cfg_conn"] & (z.connections - 1)
            stat["rewrites_in_flight"] += any(x is not None and x[0].qpn & (z.connections - 1) == row
                                              for x in (ref.a, ref.b))
        want = ref.step(i)
        if cyc > 0:  # before the first reset edge the DUT holds the previous test's state
            compare(f"random_backpressure cycle {cyc}", outputs(dut, want["m_valid"] == 1), want, recent)
        if not rst:
            assert want["s_ready"] == int(not (want["m_valid"] and not i["m_ready"])), f"cycle {cyc}: s_ready {want}"
        if wk is not None:
            nxt = wk + 1
        offered = False
        if rk is not None:
            if want["s_ready"] == 1:
                nxt = rk + 1
            else:
                offered = True
                stat["req_stalled"] += 1
        if want["m_valid"]:
            if i["m_ready"]:
                got.append({k: want[k] for k in OUT_FIELDS})
            else:
                stat["held"] += 1
        cyc += 1
    mon_task.cancel()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == len(got) == n_req, f"{mon.transfers} results seen, {len(got)} from the reference, {n_req} requests"
    for k, (g, w) in enumerate(zip(got, results)):
        assert g == w, f"result {k}: the DUT (and the reference) {g}, the golden model {w}"
    last = {s: ref.stats[s] for s in STATS}
    assert last == final, f"counters at the end (reference = DUT, expected from the model's results): {last} {final}"
    if n_req >= 1000:  # a full-size run really idled, stalled and held (a smoke run is too short)
        assert stat["cfg_idle"] > 50 and stat["req_idle"] > 50 and stat["req_stalled"] > 50, stat
        assert stat["held"] > 100 and mon.waiting_cycles > 50 and stat["same_cycle"] > 10, (stat, mon.waiting_cycles)
        assert stat["rewrites_in_flight"] > 5, stat
    dut._log.info("random_backpressure: %d results in order equal to the model's and the reference's, %d config "
                  "writes, %d cycles, every output equal to the reference every cycle; %s; counters %s", len(got), n_wr,
                  cyc, stat, last)
