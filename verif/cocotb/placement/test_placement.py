"""cocotb tests of the DMA placement unit's write path (block `placement`, module
`mrnic_placement`), on its AXI4 write master with cocotbext-axi's `AxiRamWrite`.

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block placement --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS, MRNIC_LATENCY, MRNIC_SEED, MRNIC_RANDOM_OPS (commands of the random test),
MRNIC_MAX_BEATS. The block's AXI ids are constants tied off at integration, so it runs under
the generated pass-through top `tb_mrnic_placement` (common/runner.py, AXI_ID_SHIM), which
adds the `m_axi_awid` / `m_axi_bid` that cocotbext-axi requires.

Contract under test (the RTL header hdl/src/placement.rs, docs/blocks/placement.md, the model
mrnic_model::transport::placement_wr)
-------------------------------------------------------------------------------------------
One command at a time on `s` (`s_addr`, `s_len`, the checked window `s_base`, `s_wlen`,
`s_tag`). The unit writes exactly the bytes [lo, hi) = [max(addr, base), min(addr + len,
base + wlen, 2^64)), nothing when hi <= lo (no bus transaction), as AXI4 INCR bursts of
8-byte beats (`awsize` 3, `awburst` INCR), each at most MAX_BEATS beats and inside one 4 KiB
page, the first and last beats' `wstrb` partial; the payload comes on `d`, one lane-aligned
beat per W beat (lane i = the byte of address beat + i). The completion on `m` (`m_tag`,
`m_resp` = the first non-OKAY `bresp` or 0, `m_clipped` = fewer bytes than `len`, `m_bytes`)
comes once every burst has its B. Counters: `stat_cmds`, `stat_bursts`, `stat_beats`,
`stat_bresp_err`, `stat_err_cmds`, `stat_clipped`.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (random commands, 4 KiB edges, 1-byte, zero-length
  and maximum commands, clipped windows, addresses near 2^64, bresp errors, backpressure on
  every channel, resets) through the model's cycle shell, every output every cycle.
* `axi_ram_random_commands`: random commands into cocotbext-axi's `AxiRamWrite` (128 KiB,
  filled with a random pattern first), with pauses on `s`, `d`, AW, W, B and the completion
  sink: afterwards the RAM equals the pattern with exactly each command's [lo, hi) written in
  order (nothing outside any window changed); every completion in order with its tag, resp 0,
  clipped flag and bytes; every AW burst of size 3, INCR, at most MAX_BEATS beats, inside a
  4 KiB page (the RAM model also asserts it), `wlast` exactly on each burst's last beat; the
  handshake rules on every channel; every counter at the end.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotbext.axi import AxiRamWrite, AxiWriteBus

from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSink, StreamSource, bursts, never, pattern, phases, random_hold,
                           run_until_drained)
from common.tb import drive, next_cycle, read, reset, start_clock
from common.vectors import read_header, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
MAX_BEATS = int(os.environ.get("MRNIC_MAX_BEATS", "256"))
B = 8
RAM_BYTES = 1 << 17
PAGE = 4096
STATS = ("stat_cmds", "stat_bursts", "stat_beats", "stat_bresp_err", "stat_err_cmds", "stat_clipped")
IDLE = {"rst": 0, "s_valid": 0, "d_valid": 0, "m_ready": 1}


def window(addr: int, length: int, base: int, wlen: int) -> tuple[int, int, int, bool]:
    """[lo, hi), bytes and clipped of a command (A = 64 bits, so 2^64 bounds hi)."""
    lo = max(addr, base)
    hi = min(addr + length, base + wlen, 1 << 64)
    n = hi - lo if hi > lo else 0
    return lo, hi, n, n != length


def lane_byte(cmd: int, a: int) -> int:
    """The payload byte the test puts at address a for command cmd."""
    return (a * 131 + cmd * 29 + (a >> 8)) & 0xFF


def random_command(rng: random.Random, k: int) -> dict:
    """Commands inside the RAM: 4 KiB crossings, 1 byte at every lane, zero length, long ones
    (several bursts), windows equal to the command, narrower (clipped) or disjoint."""
    kind = rng.random()
    if kind < 0.15:
        length = 1
    elif kind < 0.2:
        length = 0
    elif kind < 0.35:
        length = rng.randint(PAGE, 3 * PAGE)
    else:
        length = rng.randint(2, 700)
    if rng.random() < 0.3:  # near a 4 KiB edge
        addr = rng.randrange(PAGE, RAM_BYTES - 4 * PAGE, PAGE) + rng.randint(-20, 20)
    else:
        addr = rng.randint(0, RAM_BYTES - 4 * PAGE)
    w = rng.random()
    if w < 0.6:
        base, wlen = addr, length
    elif w < 0.75:  # a wider window: not clipped
        base, wlen = max(0, addr - rng.randint(0, 64)), length + rng.randint(64, 200)
    elif w < 0.95:  # narrower on one side or both: clipped
        base = addr + rng.randint(0, max(0, length // 3))
        wlen = max(0, length - (base - addr) - rng.randint(0, max(0, length // 3)))
    else:  # disjoint: nothing written
        base, wlen = addr + length + rng.randint(0, 100), rng.randint(1, 100)
    return {"s_addr": addr, "s_len": length, "s_base": base, "s_wlen": wlen, "s_tag": tag_of(k)}


TAG_BITS = 95  # hdl::tops::PLACEMENT_TAG_BITS (model cmpl::WR_TAG_BITS): the Done op fields


def tag_of(k: int) -> int:
    """Command k's tag, over all the port's bits (no draw from the command generator)."""
    return (((k + 1) * 0x9E3779B97F4A7C15F39CC0605CEDC835) % (1 << 128)) >> (128 - TAG_BITS)


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "placement", LATENCY, "completion")


@cocotb.test()
async def axi_ram_random_commands(dut):
    """Random commands into cocotbext-axi's AxiRamWrite with pauses everywhere: the RAM's bytes,
    the completions, the bursts' rules and the counters."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n_cmds = int(os.environ.get("MRNIC_RANDOM_OPS", "300"))
    rng = random.Random(seed)
    streams = {s["name"]: s for s in read_header(os.environ["MRNIC_VECTORS"])["streams"]}

    start_clock(dut)
    drive(dut, {**IDLE, "rst": 1})
    ram = AxiRamWrite(AxiWriteBus.from_prefix(dut, "m_axi"), dut.clock, dut.rst, size=RAM_BYTES)
    fill = bytes(rng.getrandbits(8) for _ in range(RAM_BYTES))
    ram.write(0, fill)
    expect_mem = bytearray(fill)
    ram.aw_channel.set_pause_generator(phases((300, never()), (500, random_hold(seed + 1, 0.3)),
                                              (300, bursts(seed + 2, (1, 30), (5, 40)))))
    ram.w_channel.set_pause_generator(phases((400, never()), (500, random_hold(seed + 3, 0.4)),
                                             (300, pattern([0, 1, 1]))))
    ram.b_channel.set_pause_generator(phases((300, never()), (400, bursts(seed + 4, (1, 10), (10, 60)))))
    await reset(dut, cycles=2, idle=IDLE)
    for n in STATS:
        assert read(getattr(dut, n)) == 0, f"{n} after rst"

    cmds = [random_command(rng, k) for k in range(n_cmds)]
    assert len(dut.m_tag) == TAG_BITS, f"m_tag is {len(dut.m_tag)} bits, the test expects {TAG_BITS}"
    sb = Scoreboard(dut._log, {"m_tag": TAG_BITS, "m_resp": 2, "m_clipped": 1, "m_bytes": len(dut.m_bytes)})
    want_beats = 0
    want_clipped = 0
    d_beats = []
    for k, c in enumerate(cmds):
        lo, hi, n, clipped = window(c["s_addr"], c["s_len"], c["s_base"], c["s_wlen"])
        sb.expect("m", {"m_tag": c["s_tag"], "m_resp": 0, "m_clipped": int(clipped), "m_bytes": n},
                  note=f"command {k}: addr {c['s_addr']:#x} len {c['s_len']} window [{c['s_base']:#x}, +{c['s_wlen']})")
        want_clipped += clipped
        if n == 0:
            continue
        for a in range(lo & ~(B - 1), hi, B):
            d_beats.append({"d_data": sum(lane_byte(k, a + i) << (8 * i) for i in range(B))})
            want_beats += 1
        for a in range(lo, hi):
            expect_mem[a] = lane_byte(k, a)

    await next_cycle(dut)
    s_src = StreamSource(dut, streams["s"], idle=phases((200, never()), (300, random_hold(seed + 5, 0.5))))
    d_src = StreamSource(dut, streams["d"], idle=phases((300, never()), (400, random_hold(seed + 6, 0.3)),
                                                        (200, bursts(seed + 7, (1, 20), (5, 30)))))
    m_sink = StreamSink(dut, streams["m"], backpressure=phases((300, never()), (300, random_hold(seed + 8, 0.6))))
    for c in cmds:
        s_src.send(c)
    for d in d_beats:
        d_src.send(d)

    # AW and W as the bus saw them: the burst rules, then (after the run) wlast on each burst's
    # last beat, walking both lists together (a W beat may be seen in its AW's cycle)
    aws: list[tuple[int, int]] = []
    ws: list[tuple[int, int]] = []  # (cycle, wlast)
    errors: list[str] = []

    def on_aw(t: dict, cyc: int) -> None:
        addr, beats = t["m_axi_awaddr"], t["m_axi_awlen"] + 1
        if t["m_axi_awsize"] != 3 or t["m_axi_awburst"] != 1:
            errors.append(f"cycle {cyc}: AW size {t['m_axi_awsize']} burst {t['m_axi_awburst']}, expected 3 / INCR")
        if addr % B or beats > MAX_BEATS or (addr % PAGE) + beats * B > PAGE:
            errors.append(f"cycle {cyc}: AW addr {addr:#x} beats {beats}: unaligned, over {MAX_BEATS} beats or across 4 KiB")
        aws.append((addr, beats))

    mons = [StreamMonitor(dut, streams["m"], on_transfer=lambda t, c: sb.observe("m", t, c)),
            StreamMonitor(dut, streams["m_axi_aw"], on_transfer=on_aw),
            StreamMonitor(dut, streams["m_axi_w"], on_transfer=lambda t, c: ws.append((c, t["m_axi_wlast"]))),
            StreamMonitor(dut, streams["d"])]
    tasks = [cocotb.start_soon(t.run()) for t in (s_src, d_src, m_sink, *mons)]
    cycles = await run_until_drained(dut, lambda: s_src.busy or d_src.busy or sb.pending(), [sb, *mons],
                                     200 * (want_beats + n_cmds) + 5000, 20,
                                     lambda: f"{mons[0].transfers} of {n_cmds} completions, {d_src.transfers} of {want_beats} beats")
    for t in tasks:
        t.cancel()
    sb.finish()
    for m in mons:
        assert not m.errors, m.errors[0]
    assert not errors, errors[0]
    assert len(ws) == want_beats == sum(b for _, b in aws), (len(ws), want_beats, sum(b for _, b in aws))
    k = 0
    for addr, beats in aws:
        for j in range(beats):
            cyc, wlast = ws[k]
            assert wlast == int(j == beats - 1), f"cycle {cyc}: wlast {wlast} on beat {j + 1} of the {beats}-beat burst at {addr:#x}"
            k += 1
    got = ram.read(0, RAM_BYTES)
    if got != bytes(expect_mem):
        bad = [a for a in range(RAM_BYTES) if got[a] != expect_mem[a]]
        raise AssertionError(f"{len(bad)} RAM bytes differ, first at {bad[0]:#x}: {got[bad[0]]:#04x}, "
                             f"expected {expect_mem[bad[0]]:#04x} (the pattern there was {fill[bad[0]]:#04x})")
    counts = {n: read(getattr(dut, n)) for n in STATS}
    want = {"stat_cmds": n_cmds, "stat_bursts": len(aws), "stat_beats": want_beats, "stat_bresp_err": 0,
            "stat_err_cmds": 0, "stat_clipped": want_clipped}
    assert counts == want, f"counters {counts}, expected {want}"
    # the pauses really held every channel (a full-size run)
    if n_cmds >= 150:
        assert mons[1].waiting_cycles > 50 and mons[2].waiting_cycles > 50 and mons[0].waiting_cycles > 20, \
            [m.waiting_cycles for m in mons]
    written = sum(1 for a in range(RAM_BYTES) if expect_mem[a] != fill[a])
    dut._log.info("axi_ram_random_commands: %d commands (%d clipped), %d bursts, %d beats, %d bytes changed, "
                  "%d cycles; AW waited %d, W waited %d, completions waited %d cycles", n_cmds, want_clipped,
                  len(aws), want_beats, written, cycles, mons[1].waiting_cycles, mons[2].waiting_cycles,
                  mons[0].waiting_cycles)
