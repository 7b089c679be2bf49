"""cocotb tests of the DMA placement checks' generated Verilog (block `place_chk`, module
`mrnic_place_chk`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block place_chk --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the configuration: mtu,
mr_entries, rq_depth, connections), MRNIC_RANDOM_VECTORS (vectors without random resets,
whose config writes and requests the randomized test replays with its own timing),
MRNIC_LATENCY, MRNIC_CONNECTIONS, MRNIC_SEED.

Contract under test (the RTL header hdl/src/place_chk.rs, docs/blocks/place_chk.md, the model
cycle shell mrnic_model::transport::place_chk_shell and `placement::check`)
------------------------------------------------------------------------------------------
Tables in block RAM written through the config stream `s_cfg` (`s_cfg_ready` = !rst, a write
every cycle): table 0 MR (row = key mod mr_entries: live, write right, pd, the whole key, base,
len), 1 RB (row `conn << log2(rq_depth) | slot`: addr, len), 2 RQ (row `conn`: head SSN,
count; count > rq_depth refused), 3 refused. Every write transferred counts in
`stat_cfg_writes`, a refused one in `stat_cfg_refused` too. A request on `s` (`s_ready` =
!rst & (!m_valid | m_ready)) has its result on `m` exactly LATENCY (4) cycles after its
transfer: `m_ok`, `m_nak` (0 ok, 1 BadRkey, 2 OutOfBounds, 3 AccessDenied, 4 NoRecvBuffer, 5
InvalidRequest), `m_addr`, `m_base`, `m_wlen` (0 on a NAK), `m_len` and `m_tag` echoed. The
decision, in order: len > mtu -> 5; WRITE: row not live, key != rkey or pd != s_pd -> 1; no
write right -> 3; va < base or va + len > base + len (65 bits) -> 2; ok: addr va, window the
region. SEND: (ssn - head) mod 2^24 >= count -> 4; va + len > buf.len -> 2; ok: addr buf.addr +
va mod 2^64, window the buffer (slot ssn mod rq_depth). A write transferred in the request's
cycle is seen; a later one is not, however long the result waits. `stat_ok` ...
`stat_invalid` count results transferred by outcome. Reset empties the pipeline and clears the
counters; the tables keep their contents.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, every row written, random
  config writes racing requests aimed at the rows' edges, result backpressure, resets)
  through the model, every output every cycle after the header's settle.
* `directed_semantics`: hand-written expectations: reset; an MR row and a receive queue
  configured; WRITE ok at the region's start and end, one byte past the end, one byte before
  the start, wrong key tag, wrong pd, a row not live, no write right (and its priority over
  the bounds), len mtu / mtu + 1, a region ending at 2^64 (65-bit end); SEND against the
  posted buffers across the 2^24 SSN wrap, outside the queue, past the buffer, the address
  wrapping mod 2^64; refused config writes; the same-cycle write seen, a write while the
  result waits not seen; a held result (stall, counted once); reset keeps the tables; every
  counter after each group.
* `random_backpressure`: the config writes and requests the model took in no-reset vectors,
  offered again in the same order with other idle phases on both input streams and m_ready
  backpressure (a request still sees exactly the writes before it: a write before it goes no
  later than its cycle, a write after it only once it is taken); every result in order equal
  to the model's, the handshake rules on `m`, `s_ready`'s equation and `s_cfg_ready` every
  cycle, the counters at the end.
"""

from __future__ import annotations

import os

import cocotb

from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSink, check_ready_equation, default_backpressure, default_idle,
                           run_until_drained)
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import read_header, read_transfers, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
MR, RB, RQ, BAD_TABLE = 0, 1, 2, 3
OK, BAD_RKEY, OOB, ACCESS, NO_RBUF, INVALID = 0, 1, 2, 3, 4, 5
CFG_FIELDS = ("s_cfg_table", "s_cfg_row", "s_cfg_key", "s_cfg_live", "s_cfg_write", "s_cfg_pd", "s_cfg_base",
              "s_cfg_len", "s_cfg_head", "s_cfg_count")
REQ_FIELDS = ("s_conn", "s_pd", "s_send", "s_va", "s_rkey", "s_len", "s_ssn", "s_tag")
OUT_FIELDS = ("m_tag", "m_ok", "m_nak", "m_addr", "m_base", "m_wlen", "m_len")
STATS = ("stat_ok", "stat_bad_rkey", "stat_out_of_bounds", "stat_access_denied", "stat_no_rbuf", "stat_invalid",
         "stat_cfg_writes", "stat_cfg_refused")
NAK_STAT = {OK: "stat_ok", BAD_RKEY: "stat_bad_rkey", OOB: "stat_out_of_bounds", ACCESS: "stat_access_denied",
            NO_RBUF: "stat_no_rbuf", INVALID: "stat_invalid"}
IDLE = {"rst": 0, "s_cfg_valid": 0, **{f: 0 for f in CFG_FIELDS}, "s_valid": 0, **{f: 0 for f in REQ_FIELDS},
        "m_ready": 1}
M64 = (1 << 64) - 1
SEQ = (1 << 24) - 1


def stats(dut) -> dict:
    return {s: read(getattr(dut, s)) for s in STATS}


def outputs(dut) -> dict:
    return {f: read(getattr(dut, f)) for f in ("s_cfg_ready", "s_ready", "m_valid", *OUT_FIELDS)}


def ok(tag: int, length: int, addr: int, base: int, wlen: int) -> dict:
    return dict(m_tag=tag, m_ok=1, m_nak=0, m_addr=addr, m_base=base, m_wlen=wlen, m_len=length)


def nak(code: int, tag: int, length: int) -> dict:
    """A refusal: the code, the echoes, address and window 0."""
    return dict(m_tag=tag, m_ok=0, m_nak=code, m_addr=0, m_base=0, m_wlen=0, m_len=length)


def check(what: str, res: dict, exp: dict) -> None:
    diff = {k: (hex(v), hex(res[k]) if isinstance(res[k], int) else res[k]) for k, v in exp.items() if res[k] != v}
    assert not diff, f"{what}: (expected, actual) {diff}; whole result {res}"


async def cycle(dut, values: dict) -> dict:
    """One cycle: drive `values` (the rest idle) at the falling edge, return the settled outputs."""
    await next_cycle(dut)
    drive(dut, {**IDLE, **values})
    await settle()
    return outputs(dut)


async def chk_reset(dut) -> None:
    """rst for two cycles (both readies and m_valid low); after it both readies high, nothing
    on m, every counter 0."""
    def during(d):
        o = outputs(d)
        assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (0, 0, 0), f"during rst: {o}"

    await reset(dut, cycles=2, idle=IDLE, during=during)
    o = outputs(dut)
    assert (o["s_ready"], o["s_cfg_ready"], o["m_valid"]) == (1, 1, 0), f"after rst: {o}"
    assert all(v == 0 for v in stats(dut).values()), f"counters after rst: {stats(dut)}"


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "place_chk", LATENCY)


# ---------------------------------------------------------------------- directed test


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written expectations for every check, NAK code, config refusal, hazard and counter."""
    assert LATENCY == 4, f"MRNIC_LATENCY {LATENCY}: the RTL header says 4"
    conf = read_header(os.environ["MRNIC_VECTORS"])["config"]
    t = conf["transport"]
    mtu, depth, entries, conns = t["mtu"], t["rq_depth"], t["mr_entries"], conf["connections"]
    assert (mtu, depth, entries, conns) == (4096, 8, 64, 16), \
        f"the scenario is written for preset tiny (mtu 4096, rq_depth 8, 64 MR rows, 16 connections): {conf}"
    assert (len(dut.s_conn), len(dut.s_cfg_row)) == (4, 7), (len(dut.s_conn), len(dut.s_cfg_row))
    idx = 6  # log2(mr_entries): the key's low 6 bits are the row, the rest its tag

    start_clock(dut)
    drive(dut, IDLE)
    await chk_reset(dut)
    exp = {s: 0 for s in STATS}
    tag = {"n": 0}

    async def counters(what: str, **delta) -> None:
        await cycle(dut, {})  # counters are registered: a transfer shows the cycle after it
        for k, v in delta.items():
            exp[f"stat_{k}"] += v
        got = stats(dut)
        diff = {s: (exp[s], got[s]) for s in STATS if got[s] != exp[s]}
        assert not diff, f"counters after {what} (expected, actual): {diff}"

    async def write(table: int, *, row=0, key=0, live=0, wr=0, pd=0, base=0, length=0, head=0, count=0) -> None:
        """One config write, taken in its cycle (s_cfg_ready high)."""
        o = await cycle(dut, {"s_cfg_valid": 1, "s_cfg_table": table, "s_cfg_row": row, "s_cfg_key": key,
                              "s_cfg_live": live, "s_cfg_write": wr, "s_cfg_pd": pd, "s_cfg_base": base,
                              "s_cfg_len": length, "s_cfg_head": head, "s_cfg_count": count})
        assert o["s_cfg_ready"] == 1, f"config write to table {table}: s_cfg_ready low"

    def req_fields(send: int, conn=0, pd=0, va=0, rkey=0, length=0, ssn=0) -> dict:
        tag["n"] = (tag["n"] + 37) & 0xFF  # a different tag for each request, echoed
        return {"s_valid": 1, "s_conn": conn, "s_pd": pd, "s_send": send, "s_va": va, "s_rkey": rkey,
                "s_len": length, "s_ssn": ssn, "s_tag": tag["n"]}

    async def request(what: str, expect, send: int, **kw) -> dict:
        """One request alone with m_ready high: taken at once, its result exactly LATENCY
        cycles later and in no other cycle; `expect(tag)` is the whole expected result."""
        f = req_fields(send, **kw)
        o = await cycle(dut, f)
        assert o["s_ready"] == 1 and o["m_valid"] == 0, f"{what}: offered with s_ready {o['s_ready']}, m_valid {o['m_valid']}"
        for k in range(1, LATENCY + 2):
            o = await cycle(dut, {})
            if k == LATENCY:
                assert o["m_valid"] == 1, f"{what}: no result {LATENCY} cycles after the transfer"
                res = {x: o[x] for x in OUT_FIELDS}
            else:
                assert o["m_valid"] == 0, f"{what}: m_valid {k} cycles after the transfer (latency {LATENCY})"
        check(what, res, expect(f["s_tag"]))
        return res

    # ---- the memory region: key tag 5, row 9, pd 7, remote write, [B, B + L).
    B, L, PD = 0x1_0000_0000, 0x10000, 7
    K = 5 << idx | 9
    await write(MR, key=K, live=1, wr=1, pd=PD, base=B, length=L, row=0x55)  # s_cfg_row is not the MR row
    await counters("the MR write", cfg_writes=1)

    def wr(va, length, rkey=K, pd=PD):
        return dict(send=0, conn=2, pd=pd, va=va, rkey=rkey, length=length)

    await request("WRITE at the region's start, mtu bytes", lambda g: ok(g, 4096, B, B, L), **wr(B, 4096))
    await request("WRITE inside", lambda g: ok(g, 100, B + 0x1234, B, L), **wr(B + 0x1234, 100))
    await request("WRITE ending exactly at the region's end", lambda g: ok(g, 4096, B + L - 4096, B, L),
                  **wr(B + L - 4096, 4096))
    await request("WRITE of 0 bytes at the region's end", lambda g: ok(g, 0, B + L, B, L), **wr(B + L, 0))
    await counters("4 ok WRITEs", ok=4)
    await request("WRITE one byte past the region's end", lambda g: nak(OOB, g, 4096), **wr(B + L - 4095, 4096))
    await request("WRITE of 1 byte just past the end", lambda g: nak(OOB, g, 1), **wr(B + L, 1))
    await request("WRITE one byte before the region's start", lambda g: nak(OOB, g, 2), **wr(B - 1, 2))
    await request("WRITE with another key tag (6)", lambda g: nak(BAD_RKEY, g, 64), **wr(B, 64, rkey=6 << idx | 9))
    await request("WRITE with key tag 0 (only the row index right)", lambda g: nak(BAD_RKEY, g, 64),
                  **wr(B, 64, rkey=9))
    await request("WRITE with another protection domain", lambda g: nak(BAD_RKEY, g, 64), **wr(B, 64, pd=PD + 1))
    await request("WRITE of mtu + 1 bytes", lambda g: nak(INVALID, g, 4097), **wr(B, 4097))
    await request("WRITE of mtu + 1 bytes with a bad key too (len first)", lambda g: nak(INVALID, g, 4097),
                  **wr(B, 4097, rkey=6 << idx | 9))
    await counters("the refused WRITEs", out_of_bounds=3, bad_rkey=3, invalid=2)

    # ---- an invalid row, a row without the write right, a region ending at 2^64.
    K10, K11, K12 = 5 << idx | 10, 1 << idx | 11, 2 << idx | 12
    await write(MR, key=K10, live=0, wr=1, pd=PD, base=B, length=L)
    await write(MR, key=K11, live=1, wr=0, pd=PD, base=B, length=L)
    TOP = (1 << 64) - 0x1000
    await write(MR, key=K12, live=1, wr=1, pd=PD, base=TOP, length=0x1000)
    await counters("three MR writes", cfg_writes=3)
    await request("WRITE to a row not live (key, pd and bounds right)", lambda g: nak(BAD_RKEY, g, 64),
                  **wr(B, 64, rkey=K10))
    await request("WRITE to a row without the write right", lambda g: nak(ACCESS, g, 64), **wr(B, 64, rkey=K11))
    await request("WRITE without the write right and out of bounds (rights first)", lambda g: nak(ACCESS, g, 64),
                  **wr(B + L, 64, rkey=K11))
    await request("WRITE with a wrong pd to a row without the write right (key/pd first)",
                  lambda g: nak(BAD_RKEY, g, 64), **wr(B, 64, rkey=K11, pd=3))
    await request("WRITE ending exactly at 2^64", lambda g: ok(g, 0x1000, TOP, TOP, 0x1000), **wr(TOP, 0x1000, rkey=K12))
    await request("WRITE ending one byte past 2^64 (65-bit end)", lambda g: nak(OOB, g, 0x801),
                  **wr(M64 - 0x7FF, 0x801, rkey=K12))
    await request("WRITE of 0 bytes at 2^64 - 1", lambda g: ok(g, 0, M64, TOP, 0x1000), **wr(M64, 0, rkey=K12))
    await counters("rows 10-12", bad_rkey=2, access_denied=2, ok=2, out_of_bounds=1)

    # ---- receive queue of connection 3: head 0xfffffe, 3 buffers (SSNs 0xfffffe, 0xffffff, 0:
    # slots 6, 7, 0). Slot 7's buffer ends at 2^64 + 0xff0 (addresses wrap).
    c = 3
    bufs = {6: (0x2000_0000, 0x1000), 7: (M64 - 0xF, 0x1000), 0: (0x3000_0000, 0x800), 1: (0x4000_0000, 0x1000)}
    for slot, (a, n) in bufs.items():
        await write(RB, row=c << 3 | slot, key=0xDEAD, base=a, length=n)
    await write(RQ, row=c, head=0xFFFFFE, count=3)
    await counters("the receive queue", cfg_writes=5)

    def send(ssn, va, length, conn=c, **kw):
        return dict(send=1, conn=conn, ssn=ssn, va=va, length=length, **kw)

    await request("SEND to the head buffer (ssn 0xfffffe), all of it", lambda g: ok(g, 0x1000, 0x2000_0000, 0x2000_0000, 0x1000),
                  **send(0xFFFFFE, 0, 0x1000))
    await request("SEND at an offset, rkey and pd ignored", lambda g: ok(g, 0x100, 0x2000_0F00, 0x2000_0000, 0x1000),
                  **send(0xFFFFFE, 0xF00, 0x100, rkey=0xFFFF_FFFF, pd=0x1234_5678))
    await request("SEND to ssn 0 (the queue across the 2^24 wrap)", lambda g: ok(g, 0x100, 0x3000_0010, 0x3000_0000, 0x800),
                  **send(0, 0x10, 0x100))
    await request("SEND to ssn 0xffffff: its address wraps mod 2^64", lambda g: ok(g, 0x10, 0x10, M64 - 0xF, 0x1000),
                  **send(0xFFFFFF, 0x20, 0x10))
    await counters("4 ok SENDs", ok=4)
    await request("SEND one byte past its buffer", lambda g: nak(OOB, g, 0x701), **send(0, 0x100, 0x701))
    await request("SEND to ssn 1 (slot 1 written, not posted)", lambda g: nak(NO_RBUF, g, 16), **send(1, 0, 16))
    await request("SEND to ssn 0xfffffd (before the head)", lambda g: nak(NO_RBUF, g, 16), **send(0xFFFFFD, 0, 16))
    await request("SEND to a connection with no buffer posted", lambda g: nak(NO_RBUF, g, 16), **send(0xFFFFFE, 0, 16, conn=4))
    await request("SEND of mtu + 1 bytes (len before the queue)", lambda g: nak(INVALID, g, 4097), **send(5, 0, 4097))
    await counters("the refused SENDs", out_of_bounds=1, no_rbuf=3, invalid=1)
    # Connection 4's RQ row is written to an empty queue (count 0) so its NAK above does not
    # depend on what the RAM held: check it again after the write.
    await write(RQ, row=4, head=0, count=0)
    await request("SEND to connection 4 after an empty queue is written", lambda g: nak(NO_RBUF, g, 16),
                  **send(0, 0, 16, conn=4))
    await counters("connection 4", cfg_writes=1, no_rbuf=1)

    # ---- refused config writes: an RQ count above rq_depth (the row keeps head 0xfffffe,
    # count 3), table 3; count = rq_depth is accepted.
    await write(RQ, row=c, head=0, count=depth + 1)
    await write(BAD_TABLE, row=c << 3 | 6, key=K, live=1, wr=1, pd=PD, base=0, length=0)
    await counters("two refused writes", cfg_writes=2, cfg_refused=2)
    await request("SEND after the refused RQ write: the old queue", lambda g: ok(g, 16, 0x3000_0000, 0x3000_0000, 0x800),
                  **send(0, 0, 16))
    await request("SEND to ssn 1 after the refused RQ write: still not posted", lambda g: nak(NO_RBUF, g, 16),
                  **send(1, 0, 16))
    await request("WRITE after the table-3 write: the MR row unchanged", lambda g: ok(g, 64, B, B, L), **wr(B, 64))
    await write(RQ, row=c, head=0xFFFFFE, count=depth)  # slots 6, 7, 0, 1, ... all posted
    await request("SEND to ssn 1 once rq_depth buffers are posted", lambda g: ok(g, 16, 0x4000_0000, 0x4000_0000, 0x1000),
                  **send(1, 0, 16))
    await request("SEND to ssn 6 (head + rq_depth): outside", lambda g: nak(NO_RBUF, g, 16), **send(6, 0, 16))
    await counters("the refused and accepted RQ writes", cfg_writes=1, ok=3, no_rbuf=2)

    # ---- hazards: a write in the request's cycle is seen (row 9 made not live).
    f = req_fields(0, conn=2, pd=PD, va=B, rkey=K, length=8)
    o = await cycle(dut, {**f, "s_cfg_valid": 1, "s_cfg_table": MR, "s_cfg_key": K, "s_cfg_live": 0, "s_cfg_write": 1,
                          "s_cfg_pd": PD, "s_cfg_base": B, "s_cfg_len": L})
    assert o["s_ready"] == 1 and o["s_cfg_ready"] == 1, o
    for _ in range(LATENCY - 1):
        await cycle(dut, {})
    o = await cycle(dut, {})
    assert o["m_valid"] == 1, o
    check("WRITE with row 9 made not live in the same cycle", {x: o[x] for x in OUT_FIELDS}, nak(BAD_RKEY, f["s_tag"], 8))
    await counters("the same-cycle write", cfg_writes=1, bad_rkey=1)
    # Writes after a transfer are not seen, however long the result waits: row 9 made live
    # again; LATENCY requests (f1, f1b, f1c, f1d) taken back to back with m_ready low, then
    # (f1's result held, the others waiting in the stages behind it: f1d's rows in stage A,
    # read from the RAM one cycle before the rewrite, f1c's registered in stage B, f1b's
    # flags in stage C) row 9 rewritten with another window and f2 offered; m_ready low for 4
    # cycles (s_ready low, the payload unchanged, nothing counted), then high: f1 ... f1d
    # carry the old window, f2 (taken with f1's result) the new one.
    await write(MR, key=K, live=1, wr=1, pd=PD, base=B, length=L)
    f1 = req_fields(0, conn=2, pd=PD, va=B + 8, rkey=K, length=8)
    f1b = req_fields(0, conn=2, pd=PD, va=B + 0x100, rkey=K, length=0x30)
    f1c = req_fields(0, conn=2, pd=PD, va=B + 0x40, rkey=K, length=0x20)
    f1d = req_fields(0, conn=2, pd=PD, va=B + 0x200, rkey=K, length=0x11)
    firsts = [f1, f1b, f1c, f1d][:LATENCY]
    assert len(firsts) == LATENCY, "the scenario is written for a latency of at most 4"
    for k, f in enumerate(firsts):
        o = await cycle(dut, {**f, "m_ready": 0})
        assert o["s_ready"] == 1 and o["m_valid"] == 0, f"stall: request {k} not taken before the first result: {o}"
    B2, L2 = 0x5000_0000, 0x20
    f2 = req_fields(0, conn=2, pd=PD, va=B2 + 0x10, rkey=K, length=0x10)
    held = [await cycle(dut, {**f2, "m_ready": 0, "s_cfg_valid": 1, "s_cfg_table": MR, "s_cfg_key": K, "s_cfg_live": 1,
                               "s_cfg_write": 1, "s_cfg_pd": PD, "s_cfg_base": B2, "s_cfg_len": L2})]
    for _ in range(3):
        held.append(await cycle(dut, {**f2, "m_ready": 0}))
    assert all(h["m_valid"] == 1 and h["s_ready"] == 0 for h in held), f"stall: m_valid / s_ready while held: {held}"
    assert all(h == held[0] for h in held), f"stall: the held result changed: {held}"
    check("WRITE whose row was rewritten after its transfer (held 4 cycles)", {x: held[0][x] for x in OUT_FIELDS},
          ok(f1["s_tag"], 8, B + 8, B, L))
    await settle()
    got = stats(dut)
    assert got["stat_ok"] == exp["stat_ok"], f"a held result counted before its transfer: {got}"
    o = await cycle(dut, {**f2, "m_ready": 1})  # f1's result taken, f2 too
    assert o["m_valid"] == 1 and o["s_ready"] == 1 and o["m_tag"] == f1["s_tag"], o
    for k, f in enumerate(firsts[1:], 1):
        o = await cycle(dut, {})
        assert o["m_valid"] == 1, f"no result of request {k}, waiting behind the stall: {o}"
        check(f"WRITE {k} waiting in a stage behind the stall while its row was rewritten", {x: o[x] for x in OUT_FIELDS},
              ok(f["s_tag"], f["s_len"], f["s_va"], B, L))
    o = await cycle(dut, {})
    assert o["m_valid"] == 1, o
    check("WRITE behind the stall sees the new window", {x: o[x] for x in OUT_FIELDS},
          ok(f2["s_tag"], 0x10, B2 + 0x10, B2, L2))
    await request("WRITE at the old window after the rewrite", lambda g: nak(OOB, g, 8), **wr(B + 8, 8))
    await counters("the stalled result", cfg_writes=2, ok=len(firsts) + 1, out_of_bounds=1)

    # ---- back to back at full rate: one result a cycle, in order.
    reqs = [req_fields(0, conn=2, pd=PD, va=B2 + k, rkey=K, length=0x20 - k) for k in range(3)] + \
           [req_fields(1, conn=c, ssn=0xFFFFFE, va=0, length=1), req_fields(0, conn=2, pd=PD, va=B2, rkey=K, length=0x21)]
    want = [ok(r["s_tag"], 0x20 - k, B2 + k, B2, L2) for k, r in enumerate(reqs[:3])] + \
           [ok(reqs[3]["s_tag"], 1, 0x2000_0000, 0x2000_0000, 0x1000), nak(OOB, reqs[4]["s_tag"], 0x21)]
    seen = []
    for k in range(len(reqs) + LATENCY):
        o = await cycle(dut, reqs[k] if k < len(reqs) else {})
        assert o["s_ready"] == 1, f"back to back: s_ready low in cycle {k}"
        assert o["m_valid"] == int(k >= LATENCY), f"back to back: m_valid {o['m_valid']} in cycle {k}"
        if o["m_valid"]:
            seen.append({x: o[x] for x in OUT_FIELDS})
    for k, (r, w) in enumerate(zip(seen, want)):
        check(f"back-to-back request {k}", r, w)
    await counters("back to back", ok=4, out_of_bounds=1)

    # ---- reset clears the counters and the pipeline, keeps the tables.
    o = await cycle(dut, req_fields(0, conn=2, pd=PD, va=B2, rkey=K, length=1))  # in flight across the reset
    assert o["s_ready"] == 1
    await chk_reset(dut)
    for _ in range(3):
        o = await cycle(dut, {})
        assert o["m_valid"] == 0, "a request taken before rst came out after it"
    exp = {s: 0 for s in STATS}
    await request("WRITE after rst: the row kept", lambda g: ok(g, 1, B2, B2, L2), **wr(B2, 1))
    await request("SEND after rst: the queue kept", lambda g: ok(g, 1, 0x3000_0000, 0x3000_0000, 0x800), **send(0, 0, 1))
    await request("WRITE to row 11 after rst: still no write right", lambda g: nak(ACCESS, g, 1), **wr(B, 1, rkey=K11))
    await counters("the requests after rst", ok=2, access_denied=1)
    dut._log.info("directed_semantics: counters %s", stats(dut))


# ------------------------------------------------------------------- randomized test


def model_run(path: str) -> tuple[dict, list[tuple[str, dict]], list[dict], dict]:
    """From vectors without random resets: the header; the config writes and requests the
    model took after the prologue's reset, in order (a cycle's write before its request), cut
    after the last request whose result the file has; the results in order; the counters
    those events make (results by outcome, writes and refusals as the model counted them)."""
    refused = []  # per write taken, in order: its rise of stat_cfg_refused, seen the next cycle
    prev = {"write": False, "refused": 0}

    def on_cycle(i, o, names):
        if prev["write"]:
            refused.append(o["stat_cfg_refused"] - prev["refused"])
        prev.update(write="s_cfg" in names, refused=o["stat_cfg_refused"])

    t = read_transfers(path, inputs=("s_cfg", "s"), on_cycle=on_cycle)
    events = [("w" if n == "s_cfg" else "r", e) for n, e in t.taken]
    final = {s: 0 for s in STATS}
    for r in t.results:
        final[NAK_STAT[r["m_nak"] if r["m_nak"] <= 5 else INVALID]] += 1
    for k in range(sum(1 for kind, _ in events if kind == "w")):
        bad = refused[k] if k < len(refused) else None
        assert bad in (0, 1), f"no refusal flag for a write (the file ends with it?): {bad}"
        final["stat_cfg_writes"] += 1
        final["stat_cfg_refused"] += bad
    return t.header, events, t.results, final


@cocotb.test()
async def random_backpressure(dut):
    """The model's config writes and requests offered again in order with other idle phases
    on both input streams and m_ready backpressure; results in order equal to the model's."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block place_chk --no-resets` vectors"
    header, events, results, final = model_run(path)
    n_req = sum(1 for k, _ in events if k == "r")
    n_wr = len(events) - n_req
    assert n_req == len(results) > 20, f"{n_req} requests, {len(results)} results in {path}"
    t = header["config"]["transport"]
    mr_rows, rb_rows, rq_rows = t["mr_entries"], header["config"]["connections"] * t["rq_depth"], header["config"]["connections"]
    # The RAMs hold what the directed test left: the vectors must write every row before the
    # first request (the kit's stimulus does), so that the model's zeroed tables do not matter.
    written = set()
    for kind, e in events:
        if kind == "r":
            break
        tb = e["s_cfg_table"]
        if tb == MR:
            written.add((MR, e["s_cfg_key"] % mr_rows))
        elif tb == RB:
            written.add((RB, e["s_cfg_row"] % rb_rows))
        elif tb == RQ and e["s_cfg_count"] <= t["rq_depth"]:
            written.add((RQ, e["s_cfg_row"] % rq_rows))
    assert len(written) == mr_rows + rb_rows + rq_rows, \
        f"only {len(written)} of {mr_rows + rb_rows + rq_rows} rows written before the first request"

    start_clock(dut)
    drive(dut, IDLE)
    await chk_reset(dut)

    streams = {s["name"]: s for s in header["streams"]}
    sb = Scoreboard(dut._log, {n: len(getattr(dut, n)) for n in OUT_FIELDS})
    req_k = 0
    for k, (kind, e) in enumerate(events):
        if kind == "r":
            sb.expect("m", results[req_k], note=f"result {req_k}, request {e} (event {k})")
            req_k += 1
    sink = StreamSink(dut, streams["m"], backpressure=default_backpressure(seed))
    mon = StreamMonitor(dut, streams["m"], on_transfer=lambda tx, cyc: sb.observe("m", tx, cyc))
    stat = {"next": 0, "cfg_idle": 0, "req_idle": 0, "req_stalled": 0, "same_cycle": 0, "cycles": 0, "errors": []}

    async def drive_inputs():
        """Per cycle: the first event not done, if a write, is driven unless the cfg idle
        generator holds it (and is taken: s_cfg_ready must be 1); the first request not
        done, if no event before it is left after this cycle's write, is offered unless
        the request idle generator holds a new offer (an offer stays until taken)."""
        cfg_idle, req_idle = default_idle(seed + 10), default_idle(seed)
        offered = False
        while True:
            await next_cycle(dut)
            stat["cycles"] += 1
            k = stat["next"]
            vals = {"s_cfg_valid": 0, "s_valid": 0}
            wk = rk = None
            hold_cfg, hold_req = next(cfg_idle), next(req_idle)
            if k < len(events) and events[k][0] == "w":
                if hold_cfg:
                    stat["cfg_idle"] += 1
                else:
                    wk, k = k, k + 1
                    vals.update(s_cfg_valid=1, **events[wk][1])
            if k < len(events) and events[k][0] == "r" and (wk is not None or k == stat["next"]):
                if offered or not hold_req:
                    rk = k
                    vals.update(s_valid=1, **events[rk][1])
                    stat["same_cycle"] += wk is not None
                else:
                    stat["req_idle"] += 1
            drive(dut, vals)
            await settle()
            if wk is not None:
                if read(dut.s_cfg_ready) != 1:
                    stat["errors"].append(f"cycle {stat['cycles']}: s_cfg_ready low outside reset")
                stat["next"] = wk + 1
            offered = False
            if rk is not None:
                if read(dut.s_ready) == 1:
                    stat["next"] = rk + 1
                else:
                    offered = True
                    stat["req_stalled"] += 1

    class Watch:
        errors: list = []

    async def ready_eq():
        try:
            await check_ready_equation(dut)
        except AssertionError as e:
            Watch.errors.append(str(e))
            raise

    tasks = [cocotb.start_soon(x) for x in (sink.run(), mon.run(), drive_inputs(), ready_eq())]
    cycles = await run_until_drained(dut, lambda: stat["next"] < len(events) or sb.pending(), [sb, mon, Watch],
                                     20 * len(events) + 1000, LATENCY + 4,
                                     lambda: f"{stat['next']} of {len(events)} events, {mon.transfers} results")
    for x in tasks:
        x.cancel()
    assert not Watch.errors, Watch.errors[0]
    assert not stat["errors"], stat["errors"][0]
    sb.finish()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == n_req, f"{mon.transfers} results for {n_req} requests"
    await settle()
    got = stats(dut)
    diff = {s: (final[s], got[s]) for s in STATS if final[s] != got[s]}
    assert not diff, f"counters (expected, actual): {diff}"
    if n_req >= 1000:  # a full-size run really idled, stalled and held (a smoke run is too short)
        assert stat["cfg_idle"] > 50 and stat["req_idle"] > 50 and stat["req_stalled"] > 50, stat
        assert sink.held_cycles > 100 and mon.waiting_cycles > 50 and stat["same_cycle"] > 10, \
            (sink.held_cycles, mon.waiting_cycles, stat)
    dut._log.info("random_backpressure: %d results in order equal to the model's, %d config writes (%d refused), "
                  "%d cycles; cfg idle %d, request idle %d / stalled %d, write+request in one cycle %d, sink held %d "
                  "(a result waiting %d)", mon.transfers, n_wr, final["stat_cfg_refused"], cycles, stat["cfg_idle"],
                  stat["req_idle"], stat["req_stalled"], stat["same_cycle"], sink.held_cycles, mon.waiting_cycles)
