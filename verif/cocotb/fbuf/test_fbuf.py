"""cocotb tests of the receive frame buffer's generated Verilog (block `fbuf`, module
`mrnic_fbuf`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block fbuf --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors), MRNIC_LATENCY, MRNIC_DEPTH (beats of RAM), MRNIC_MAX_BEATS
(the longest frame stored), MRNIC_FRAMES_HELD (frame descriptors), MRNIC_SEED,
MRNIC_RANDOM_OPS (frames of the random test).

Contract under test (the RTL header hdl/src/fbuf.rs, docs/blocks/fbuf.md, the model cycle shell
mrnic_model::wire::fbuf::FbufShell)
------------------------------------------------------------------------------------------
Store and forward. Every beat taken on `s_axis` (AXI4-Stream: tdata, tkeep, tlast) is stored;
one verdict per frame on `s_vrd` (`s_vrd_keep`: release it), in frame order, is taken only
after the frame's last beat (`s_vrd_ready` = a frame has ended and is not judged). A kept frame
leaves whole on `m_axis`, in arrival order, `m_axis_tkeep` all ones but on its last beat, which
carries the frame's last `s_axis_tkeep`; a refused frame never leaves, and neither does a
frame longer than MAX_BEATS beats (its beats past that are not stored). First beat on `m_axis`
LATENCY (4) cycles after the verdict's transfer; kept frames back to back. `s_axis_tready` is a
register: low when the RAM (DEPTH beats) or the descriptor ring (FRAMES_HELD) is full, and
never a beat lost. `stat_frames` counts last beats taken, `stat_kept` last beats sent,
`stat_refused` verdicts that refuse (at their transfer), `stat_too_long` frames over the limit. Reset: every valid and ready low during it; the buffer empty after.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, frames of 1 to MAX_BEATS + 40
  beats, keep and refuse verdicts, verdicts offered early, long sink stalls, resets) through
  the model, every output every cycle after the header's settle.
* `directed_semantics`: hand-written expectations, cycle by cycle: reset; a verdict offered
  with its frame's last beat is not taken, the cycle after it is; the first beat LATENCY
  cycles after the verdict, the last beat's tkeep; a refused frame between two kept ones
  (one cycle of the read side); 8 judged frames leave back to back; a frame of MAX_BEATS + 3 beats dropped whatever its verdict; the sink stalled:
  exactly DEPTH beats taken, then tready low, and every frame intact after;
  a reset in the middle of a frame; every counter after each group.
* `random_frames_backpressure`: random frames (1 byte to past the length limit) through
  cocotbext-axi's AxiStreamSource (pauses) into `s_axis`, verdicts from a pausing source,
  cocotbext-axi's AxiStreamSink (pauses) on `m_axis`: the frames received are exactly the kept
  frames that fit, byte for byte and in order; the handshake rules on `m_axis` every cycle;
  every counter at the end.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import with_timeout
from cocotbext.axi import AxiStreamFrame

from common.axis import axis_sink, axis_source
from common.stream import StreamMonitor, StreamSource, bursts, never, pattern, phases, random_hold
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
DEPTH = int(os.environ.get("MRNIC_DEPTH", "2048"))
MAX_BEATS = int(os.environ.get("MRNIC_MAX_BEATS", "1152"))
FRAMES_HELD = int(os.environ.get("MRNIC_FRAMES_HELD", "16"))
B = 8
FULL = (1 << B) - 1
IDLE = {"rst": 0, "s_axis_tvalid": 0, "s_axis_tdata": 0, "s_axis_tkeep": 0, "s_axis_tlast": 0, "s_vrd_valid": 0,
        "s_vrd_keep": 0, "m_axis_tready": 1}
STATS = ("stat_frames", "stat_kept", "stat_refused", "stat_too_long")
M_AXIS = {"name": "m_axis", "valid": "m_axis_tvalid", "ready": "m_axis_tready",
          "payload": ["m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"]}
S_VRD = {"name": "s_vrd", "valid": "s_vrd_valid", "ready": "s_vrd_ready", "payload": ["s_vrd_keep"]}


def stats(dut) -> dict:
    return {n: read(getattr(dut, n)) for n in STATS}


class Cycles:
    """Drives one cycle's inputs at a time (the rest idle) and records what left on `m_axis`:
    (cycle, data, keep, last)."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.out: list[tuple[int, int, int, int]] = []
        self.m_ready = 1

    async def step(self, **inputs) -> dict:
        d = self.dut
        await next_cycle(d)
        drive(d, {**IDLE, "m_axis_tready": self.m_ready, **inputs})
        await settle()
        o = {n: read(getattr(d, n)) for n in ("s_axis_tready", "s_vrd_ready", "m_axis_tvalid", "m_axis_tdata",
                                              "m_axis_tkeep", "m_axis_tlast")}
        if o["m_axis_tvalid"] == 1 and self.m_ready == 1:
            self.out.append((self.cycle, o["m_axis_tdata"], o["m_axis_tkeep"], o["m_axis_tlast"]))
        self.cycle += 1
        return o

    async def beat(self, data: int, keep: int = FULL, last: int = 0, **more) -> dict:
        """One beat offered until it is taken; returns the outputs of its transfer cycle."""
        for _ in range(DEPTH * 4):
            o = await self.step(s_axis_tvalid=1, s_axis_tdata=data, s_axis_tkeep=keep, s_axis_tlast=last, **more)
            if o["s_axis_tready"] == 1:
                return o
        raise AssertionError(f"beat {data:#x} never taken")

    async def frame(self, words: list[int], last_keep: int = FULL) -> None:
        for k, w in enumerate(words):
            last = int(k + 1 == len(words))
            await self.beat(w, last_keep if last else FULL, last)

    async def verdict(self, keep: int) -> int:
        """The verdict offered until taken; returns its transfer cycle."""
        for _ in range(100):
            o = await self.step(s_vrd_valid=1, s_vrd_keep=keep)
            if o["s_vrd_ready"] == 1:
                return self.cycle - 1
        raise AssertionError("verdict never taken")

    async def idle(self, n: int) -> None:
        for _ in range(n):
            await self.step()


async def fbuf_reset(dut) -> None:
    def during(d):
        for n in ("s_axis_tready", "s_vrd_ready", "m_axis_tvalid"):
            assert read(getattr(d, n)) == 0, f"{n} must be low during rst"

    await reset(dut, cycles=2, idle=IDLE, during=during)


def words(seed: int, n: int) -> list[int]:
    r = random.Random(seed)
    return [r.getrandbits(64) for _ in range(n)]


def beats_of(frame: list[int], last_keep: int) -> list[tuple[int, int, int]]:
    return [(w, last_keep if k + 1 == len(frame) else FULL, int(k + 1 == len(frame))) for k, w in enumerate(frame)]


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "fbuf", LATENCY, "m_axis beat")


# ------------------------------------------------------------------------ directed


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written expectations (see the module doc), cycle by cycle."""
    assert LATENCY == 4, f"MRNIC_LATENCY is {LATENCY}: the manifest's latency of fbuf is 4"
    start_clock(dut)
    drive(dut, IDLE)
    await fbuf_reset(dut)
    assert stats(dut) == {n: 0 for n in STATS}, f"counters after rst: {stats(dut)}"
    c = Cycles(dut)

    # a 3-beat frame; its verdict offered with its last beat is not taken, the cycle after it is
    a = words(1, 3)
    await c.beat(a[0])
    await c.beat(a[1])
    o = await c.beat(a[2], 0x0F, 1, s_vrd_valid=1, s_vrd_keep=1)
    assert o["s_vrd_ready"] == 0, "a verdict was taken in its frame's last-beat cycle"
    t = await c.verdict(1)
    await c.idle(8)
    assert [x[0] for x in c.out] == [t + LATENCY + k for k in range(3)], \
        f"frame A left in cycles {[x[0] for x in c.out]}, verdict taken in {t}, latency {LATENCY}"
    assert [x[1:] for x in c.out] == beats_of(a, 0x0F), f"frame A: {c.out}"
    assert stats(dut) == {"stat_frames": 1, "stat_kept": 1, "stat_refused": 0, "stat_too_long": 0}

    # kept, refused, kept, sent back to back
    c.out.clear()
    f1, f2, f3 = words(2, 4), words(3, 2), words(4, 1)
    await c.frame(f1, 0xFF)
    await c.frame(f2, 0x03)
    await c.frame(f3, 0x01)
    for v in (1, 0, 1):
        await c.verdict(v)
    await c.idle(10)
    assert [x[1:] for x in c.out] == beats_of(f1, 0xFF) + beats_of(f3, 0x01), f"kept frames: {c.out}"
    cyc = [x[0] for x in c.out]
    # the refused frame between them costs the read side one cycle
    assert cyc == [cyc[0] + k for k in (0, 1, 2, 3, 5)], f"kept frames left in cycles {cyc}"
    assert stats(dut) == {"stat_frames": 4, "stat_kept": 3, "stat_refused": 1, "stat_too_long": 0}

    # a frame of MAX_BEATS + 3 beats is dropped although the verdict keeps it; the next is not
    c.out.clear()
    await c.frame(words(5, MAX_BEATS + 3), 0xFF)
    await c.verdict(1)
    f5 = words(6, MAX_BEATS)
    await c.frame(f5, 0x7F)
    await c.verdict(1)
    await c.idle(MAX_BEATS + 20)
    assert [x[1:] for x in c.out] == beats_of(f5, 0x7F), f"after the too-long frame: {len(c.out)} beats out"
    assert stats(dut) == {"stat_frames": 6, "stat_kept": 4, "stat_refused": 1, "stat_too_long": 1}

    # the sink stalled: exactly DEPTH beats are taken, then tready stays low; nothing is lost
    c.out.clear()
    c.m_ready = 0
    n = DEPTH // 8
    frames = [words(100 + k, n) for k in range(9)]
    flat = [(k, w) for k, f in enumerate(frames) for w in f]
    taken = stalled = 0
    i = 0
    while i < len(flat) and stalled < 50:
        k, w = flat[i]
        last = int(i + 1 == len(flat) or flat[i + 1][0] != k)
        o = await c.step(s_axis_tvalid=1, s_axis_tdata=w, s_axis_tkeep=FULL, s_axis_tlast=last)
        if o["s_axis_tready"] == 1:
            taken += 1
            i += 1
            stalled = 0
        else:
            stalled += 1
    assert taken == DEPTH, f"{taken} beats taken with the sink stalled, the RAM holds {DEPTH}"
    for _ in range(8):
        await c.verdict(1)
    c.m_ready = 1
    while i < len(flat):
        k, w = flat[i]
        await c.beat(w, FULL, int(i + 1 == len(flat) or flat[i + 1][0] != k))
        i += 1
    await c.verdict(1)
    want = [b for f in frames for b in beats_of(f, FULL)]
    await c.idle(len(want) - len(c.out) + 20)
    assert [x[1:] for x in c.out] == want, f"{len(c.out)} beats out of {len(want)} after the stall, or not intact"
    cyc = [x[0] for x in c.out[:8 * n]]
    assert cyc == list(range(cyc[0], cyc[0] + 8 * n)), "the 8 frames held during the stall did not leave back to back"
    s = stats(dut)
    assert (s["stat_frames"], s["stat_kept"]) == (15, 13), s

    # a reset in the middle of a frame: the buffer is empty after it
    c.out.clear()
    await c.beat(1)
    await c.beat(2)
    await fbuf_reset(dut)
    assert stats(dut) == {n: 0 for n in STATS}, f"counters after rst: {stats(dut)}"
    await c.idle(5)
    g = words(7, 2)
    await c.frame(g, 0x3F)
    await c.verdict(1)
    await c.idle(6)
    assert [x[1:] for x in c.out] == beats_of(g, 0x3F), f"after the reset: {c.out}"


# ------------------------------------------------------- random frames with backpressure


@cocotb.test()
async def random_frames_backpressure(dut):
    """Random frames through cocotbext-axi's source and sink with pauses; verdicts from a
    pausing source: exactly the kept frames that fit leave, byte for byte, in order."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n = int(os.environ.get("MRNIC_RANDOM_OPS", "300"))
    r = random.Random(seed)
    frames, keeps = [], []
    for _ in range(n):
        kind = r.randrange(20)
        if kind == 0:
            size = r.randint(MAX_BEATS * B + 1, MAX_BEATS * B + 200)  # past the length limit
        elif kind == 1:
            size = r.randint(MAX_BEATS * B - 7, MAX_BEATS * B)  # at the limit
        elif kind < 12:
            size = r.randint(1, 64)
        else:
            size = r.randint(65, 1500)
        frames.append(bytes(r.getrandbits(8) for _ in range(size)))
        keeps.append(int(r.random() < 0.7))
    fits = [len(f) <= MAX_BEATS * B for f in frames]
    want = [f for f, k, ok in zip(frames, keeps, fits) if k and ok]
    assert len(want) >= n // 3 and sum(1 for k in keeps if not k) >= n // 10 and fits.count(False) >= 3, \
        "the random mix lacks kept, refused or too-long frames"

    start_clock(dut)
    drive(dut, IDLE)
    await fbuf_reset(dut)
    await next_cycle(dut)  # out of the ReadOnly phase: cocotbext-axi sets its signals at once
    src = axis_source(dut, "s_axis", idle=phases((400, never()), (300, random_hold(seed + 1, 0.3)),
                                                 (200, pattern([0, 1])), (300, bursts(seed + 2, (1, 40), (3, 30)))))
    sink = axis_sink(dut, "m_axis", backpressure=phases((300, never()), (300, random_hold(seed + 3, 0.4)),
                                                        (200, pattern([0, 0, 1])), (500, bursts(seed + 4, (1, 20), (50, 400)))))
    src.log.setLevel("WARNING")
    sink.log.setLevel("WARNING")
    vrd = StreamSource(dut, S_VRD, idle=random_hold(seed + 5, 0.5))
    mon = StreamMonitor(dut, M_AXIS)
    tasks = [cocotb.start_soon(t.run()) for t in (vrd, mon)]
    for k in keeps:
        vrd.send({"s_vrd_keep": k})
    for f in frames:
        await src.send(AxiStreamFrame(tdata=f))
    limit_ns = 10 * (40 * sum(len(f) // B + 1 for f in frames) + 5000)
    for k, w in enumerate(want):
        rx = await with_timeout(sink.recv(), limit_ns, "ns")
        assert bytes(rx.tdata) == w, f"frame {k} of {len(want)} kept: {len(rx.tdata)} bytes received, {len(w)} sent, or other bytes"
    for _ in range(200):
        await next_cycle(dut)
    assert sink.empty(), "a frame left that no keep verdict released"
    for t in tasks:
        t.cancel()
    assert not mon.errors, mon.errors[0]
    await settle()
    s = stats(dut)
    assert (s["stat_frames"], s["stat_kept"], s["stat_refused"], s["stat_too_long"]) == \
        (n, len(want), keeps.count(0), fits.count(False)), f"counters {s}"
    assert mon.waiting_cycles > 0, "the backpressure never held a beat"
    dut._log.info("%d frames, %d kept and received, %d too long, %d cycles m_axis held", n, len(want),
                  fits.count(False), mon.waiting_cycles)
