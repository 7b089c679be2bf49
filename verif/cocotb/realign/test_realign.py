"""cocotb tests of the payload realigner's generated Verilog (block `realign`, module
`mrnic_realign`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block realign --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors), MRNIC_LATENCY, MRNIC_SEED, MRNIC_RANDOM_OPS (commands of
the random test). The sizes come from the ports: B = 8 bytes per beat (`s_axis_tdata`),
offsets of 8 bits, lengths of 16 bits.

Contract under test (the model's module doc model/src/wire/realign.rs, the RTL header
hdl/src/realign.rs, docs/blocks/realign.md)
------------------------------------------------------------------------------------------
One command per frame on `s_cmd` (`off`, `len`, `lane`), in frame order; every command
consumes exactly one frame on `s_axis` (no `tkeep`), up to its `tlast` beat. With `s = off -
lane` and `beats = ceil((lane + len) / B)` (0 when `len == 0`: the frame is discarded), output
beat m on `m_axis` holds frame byte `s + B*m + i` in lane i, a byte outside the frame's B*F
bytes reading 0; `m_axis_tlast` on the last beat. Plan at the command's transfer: `t = off + B
- 1 - lane`, `skip = t // B` input beats before the one that completes output beat 0. The
engine takes one beat per cycle (an input beat, or a zero beat once `tlast` is taken), an
output beat is on `m_axis` in the cycle after the beat that completes it (LATENCY 1).
`s_cmd_ready` = !pend_v, a register; a command transferred in t is loaded in t + 1 when the
engine is idle, or in the cycle the current frame finishes if it waits there, and its frame's
first beat is taken from the cycle after the load (frames of 2 beats or more back to back).
`s_axis_tready` = act && !ended && (!need || !m_axis_tvalid || m_axis_tready). Counters:
`stat_cmds` frames finished, `stat_beats` output beats transferred, `stat_dropped` commands
with len 0 (at their transfer), `stat_pad` output beats emitted after their frame's `tlast`.
Reset: every valid and ready low during it, the counters cleared, the block idle after.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue, frames of 1 to 160 beats,
  header offsets, every lane, payloads at the frame's end, discards, `off < lane`, commands
  past their frame up to 65 535 bytes, idle inputs with random values, stalls, resets) through
  the model, every output every cycle after the header's settle.
* `directed_semantics`: hand-written cases, every command transfer, input beat and output
  beat checked to the cycle against a schedule derived in this file from the contract (not
  from the Rust model), and the data against `realign_ref` plus an independent lane check
  (payload byte j in beat (lane + j) // B, lane (lane + j) % B): a payload at a header
  offset (the first output beat one cycle after input beat `skip`); every lane with and
  without `off < lane`; a discard between two frames (stat_dropped +1 the cycle after its
  transfer, no output); commands longer than their frame (zero padding after `tlast`,
  stat_pad), a payload ending at the frame's last byte (one pad beat), a payload wholly past
  its frame; back to back frames (no idle cycle at >= 2 beats, one after a 1-beat frame); the
  sink stalled (trailer beats still taken, the next frame held, released the same cycle);
  a reset mid-frame with a beat waiting (valids and readies low during rst, counters cleared,
  nothing of the old frame after); `stat_cmds` to the cycle, every counter after each group.
* `random_backpressure`: random frames (1 to 100 beats) through cocotbext-axi's
  AxiStreamSource (pauses) into `s_axis`, random commands (every kind above) from a
  StreamSource on `s_cmd` with random gaps, cocotbext-axi's AxiStreamSink (pauses, long
  stalls) on `m_axis`: every output beat (tdata, tlast) against `realign_ref` in order (a
  Scoreboard fed by a StreamMonitor, which also checks the handshake rules), the received
  frames byte for byte, every frame consumed, every counter at the end.
"""

from __future__ import annotations

import os
import random
from collections import deque
from typing import NamedTuple

import cocotb
from cocotbext.axi import AxiStreamFrame

from common.axis import axis_sink, axis_source, axis_stream
from common.scoreboard import Scoreboard
from common.stream import (StreamMonitor, StreamSource, bursts, never, pattern, phases, random_hold,
                           run_until_drained)
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
B = 8
OFF_MAX = 255
IDLE = {"rst": 0, "s_cmd_valid": 0, "s_cmd_off": 0, "s_cmd_len": 0, "s_cmd_lane": 0, "s_axis_tvalid": 0,
        "s_axis_tdata": 0, "s_axis_tlast": 0, "m_axis_tready": 1}
STATS = ("stat_cmds", "stat_beats", "stat_dropped", "stat_pad")
OUTS = ("s_cmd_ready", "s_axis_tready", "m_axis_tvalid", "m_axis_tdata", "m_axis_tlast")
S_CMD = {"name": "s_cmd", "valid": "s_cmd_valid", "ready": "s_cmd_ready",
         "payload": ["s_cmd_off", "s_cmd_len", "s_cmd_lane"]}


def stats(dut) -> dict:
    return {n: read(getattr(dut, n)) for n in STATS}


def check_sizes(dut) -> None:
    widths = {n: len(getattr(dut, n)) for n in ("s_axis_tdata", "m_axis_tdata", "s_cmd_off", "s_cmd_len", "s_cmd_lane")}
    assert widths == {"s_axis_tdata": 8 * B, "m_axis_tdata": 8 * B, "s_cmd_off": 8, "s_cmd_len": 16, "s_cmd_lane": 3}, \
        f"port widths {widths}: this test is written for B = 8, 8-bit offsets and 16-bit lengths"


# ------------------------------------------------------------------ reference (the module doc)


def plan(off: int, length: int, lane: int) -> tuple[int, int, int]:
    """(skip, shift, beats) of a command: t = off + B - 1 - lane, skip = t // B, shift = t % B,
    beats = ceil((lane + len) / B), 0 when len == 0."""
    t = off + B - 1 - lane
    return t // B, t % B, (0 if length == 0 else (lane + length + B - 1) // B)


def frame_words(data: bytes) -> list[int]:
    """The frame's beats, little-endian, the last one zero-padded (as the source sends it)."""
    return [int.from_bytes(data[k:k + B].ljust(B, b"\0"), "little") for k in range(0, len(data), B)]


def realign_ref(data: bytes, off: int, length: int, lane: int) -> list[tuple[int, int]]:
    """The output beats (tdata, tlast) of a frame and its command: beat m lane i = frame byte
    off - lane + B*m + i, 0 outside the frame's B*F bytes."""
    fb = data.ljust(-(-len(data) // B) * B, b"\0")
    beats = plan(off, length, lane)[2]
    s = off - lane
    out = []
    for m in range(beats):
        lanes = bytes(fb[x] if 0 <= x < len(fb) else 0 for x in range(s + B * m, s + B * m + B))
        out.append((int.from_bytes(lanes, "little"), int(m + 1 == beats)))
    return out


def pad_beats(frame_beats: int, off: int, length: int, lane: int) -> int:
    """Output beats emitted after the frame's tlast: beat m is completed by engine step skip + m,
    a zero beat when skip + m >= F."""
    skip, _, beats = plan(off, length, lane)
    return sum(1 for m in range(beats) if skip + m >= frame_beats)


def check_lanes(out: list[tuple[int, int]], data: bytes, off: int, length: int, lane: int, what: str) -> None:
    """Independent of realign_ref: payload byte j (frame byte off + j, 0 past the frame) is in
    output beat (lane + j) // B, lane (lane + j) % B; and the first beat's lanes below `lane`
    read 0 where they lie before the frame."""
    fb = data.ljust(-(-len(data) // B) * B, b"\0")
    for j in range(length):
        m, i = divmod(lane + j, B)
        got = out[m][0] >> (8 * i) & 0xFF
        want = fb[off + j] if off + j < len(fb) else 0
        assert got == want, f"{what}: payload byte {j} in beat {m} lane {i} is {got:#04x}, frame byte {off + j} is {want:#04x}"
    for i in range(max(0, lane - off)):
        assert out[0][0] >> (8 * i) & 0xFF == 0, f"{what}: lane {i} of beat 0 lies before the frame and must read 0"


class Schedule(NamedTuple):
    cmd_at: list[int]  # transfer cycle of each command
    take: list[list[int]]  # per frame, the cycle each input beat is taken
    out: list[list[int]]  # per command, the cycle each output beat is on m_axis
    fin: list[int]  # per frame, the cycle it finishes (stat_cmds + 1 in the next)


def schedule(t0: int, sizes: list[int], cmds: list[tuple[int, int, int]]) -> Schedule:
    """Commands and frames all offered from cycle t0 at full rate (every command waiting on
    s_cmd, every beat on s_axis), the sink always ready, the block idle at t0: the cycles the
    module doc gives. A command is transferred when pend is empty (t0; then the cycle after
    the previous load); it is loaded in the cycle after its transfer if the engine is idle
    then, else in the cycle the previous frame finishes; its frame's beats are taken one per
    cycle from the cycle after the load; engine step k (input beat k, a zero beat for k >= F
    in the cycles after tlast) completes output beat k - skip, which is on m_axis one cycle
    later; the frame finishes when its tlast is taken and its last output beat emitted."""
    cmd_at, take, out, fin = [], [], [], []
    c = t0
    for k, (size, cmd) in enumerate(zip(sizes, cmds)):
        skip, _, beats = plan(*cmd)
        cmd_at.append(c)
        load = fin[-1] if fin and c + 1 <= fin[-1] else c + 1
        tk = [load + 1 + j for j in range(size)]
        take.append(tk)
        out.append([(tk[skip + m] if skip + m < size else tk[-1] + skip + m - size + 1) + 1 for m in range(beats)])
        fin.append(tk[-1] + max(0, skip + beats - size))
        c = load + 1
    return Schedule(cmd_at, take, out, fin)


def words(seed: int, n: int) -> list[int]:
    r = random.Random(seed)
    return [r.getrandbits(64) for _ in range(n)]


def as_bytes(ws: list[int]) -> bytes:
    return b"".join(w.to_bytes(B, "little") for w in ws)


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "realign", LATENCY, "m_axis beat")


# ------------------------------------------------------------------------ directed


class Cycles:
    """Offers the queued commands on s_cmd and the queued beats on s_axis every cycle (full
    rate), drives m_axis_tready = `m_ready`, and records by cycle what was transferred:
    `cmd_at` (cycle, command), `beat_at` (cycle, data, last), `out` (cycle, data, last), and
    every cycle's outputs in `trace`."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.m_ready = 1
        self.cmds: deque = deque()
        self.beats: deque = deque()
        self.cmd_at: list = []
        self.beat_at: list = []
        self.out: list = []
        self.trace: dict[int, dict] = {}

    def clear(self) -> None:
        self.cmd_at.clear()
        self.beat_at.clear()
        self.out.clear()
        self.trace.clear()

    def queue(self, cmd: tuple[int, int, int], ws: list[int]) -> None:
        self.cmds.append(cmd)
        for k, w in enumerate(ws):
            self.beats.append((w, int(k + 1 == len(ws))))

    async def step(self) -> dict:
        d = self.dut
        await next_cycle(d)
        ins = {**IDLE, "m_axis_tready": self.m_ready}
        if self.cmds:
            off, length, lane = self.cmds[0]
            ins.update(s_cmd_valid=1, s_cmd_off=off, s_cmd_len=length, s_cmd_lane=lane)
        if self.beats:
            w, last = self.beats[0]
            ins.update(s_axis_tvalid=1, s_axis_tdata=w, s_axis_tlast=last)
        drive(d, ins)
        await settle()
        o = {n: read(getattr(d, n)) for n in OUTS + STATS}
        if self.cmds and o["s_cmd_ready"] == 1:
            self.cmd_at.append((self.cycle, self.cmds.popleft()))
        if self.beats and o["s_axis_tready"] == 1:
            self.beat_at.append((self.cycle, *self.beats.popleft()))
        if o["m_axis_tvalid"] == 1 and self.m_ready == 1:
            self.out.append((self.cycle, o["m_axis_tdata"], o["m_axis_tlast"]))
        self.trace[self.cycle] = o
        self.cycle += 1
        return o

    async def idle(self, n: int) -> None:
        for _ in range(n):
            await self.step()


async def realign_reset(dut) -> None:
    def during(d):
        for n in ("s_cmd_ready", "s_axis_tready", "m_axis_tvalid"):
            assert read(getattr(d, n)) == 0, f"{n} must be low during rst"

    await reset(dut, cycles=2, idle=IDLE, during=during)


async def group(c: Cycles, items: list[tuple[tuple[int, int, int], list[int]]], what: str, want: dict) -> Schedule:
    """Offers `items` (command, frame words) back to back from the next cycle with the sink
    ready, runs until the schedule's last event plus 4 cycles, and checks every command
    transfer, input beat and output beat to the cycle, the data (realign_ref and check_lanes),
    stat_cmds at each frame's finish, and adds the group's counts to `want` (the counters
    expected after it), which it then checks."""
    assert not c.cmds and not c.beats and c.m_ready == 1
    c.clear()
    t0 = c.cycle
    base = dict(want)
    for cmd, ws in items:
        c.queue(cmd, ws)
    cmds = [cmd for cmd, _ in items]
    sched = schedule(t0, [len(ws) for _, ws in items], cmds)
    end = max([*sched.fin, *(x for o in sched.out for x in o)]) + 4
    while c.cycle <= end:
        await c.step()
    assert not c.cmds and not c.beats, f"{what}: {len(c.cmds)} commands and {len(c.beats)} beats never taken"

    got_cmd = [t for t, _ in c.cmd_at]
    assert got_cmd == sched.cmd_at, f"{what}: commands transferred in cycles {got_cmd}, expected {sched.cmd_at} (t0 = {t0})"
    got_take = [t for t, _, _ in c.beat_at]
    want_take = [t for tk in sched.take for t in tk]
    assert got_take == want_take, f"{what}: input beats taken in cycles {got_take}, expected {want_take} (t0 = {t0})"
    want_out = [t for o in sched.out for t in o]
    got_out = [t for t, _, _ in c.out]
    assert got_out == want_out, f"{what}: output beats in cycles {got_out}, expected {want_out} (t0 = {t0})"
    k = 0
    for n, (cmd, ws) in enumerate(items):
        ref = realign_ref(as_bytes(ws), *cmd)
        got = [(d, last) for _, d, last in c.out[k:k + len(ref)]]
        k += len(ref)
        note = f"{what}, command {n} (off, len, lane) = {cmd} on a {len(ws)}-beat frame"
        diff = [(m, f"{a[0]:#018x}/{a[1]}", f"{b[0]:#018x}/{b[1]}") for m, (a, b) in enumerate(zip(ref, got)) if a != b]
        assert got == ref, f"{note}: output beats (m, expected data/tlast, actual) differ: {diff[:4]}"
        if ref:
            check_lanes(got, as_bytes(ws), *cmd, note)
        # stat_cmds counts the frame in the cycle after it finishes, not before
        f = sched.fin[n]
        before, after = c.trace[f]["stat_cmds"], c.trace[f + 1]["stat_cmds"]
        assert (before, after) == (base["stat_cmds"] + n, base["stat_cmds"] + n + 1), \
            f"{note}: stat_cmds {before} in its finish cycle {f} and {after} after, expected " \
            f"{base['stat_cmds'] + n} and {base['stat_cmds'] + n + 1}"
    want["stat_cmds"] += len(items)
    want["stat_beats"] += sum(plan(*cmd)[2] for cmd in cmds)
    want["stat_dropped"] += sum(1 for cmd in cmds if cmd[1] == 0)
    want["stat_pad"] += sum(pad_beats(len(ws), *cmd) for cmd, ws in items)
    assert stats(c.dut) == want, f"{what}: counters {stats(c.dut)}, expected {want}"
    return sched


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written cases (see the module doc), every transfer to the cycle."""
    assert LATENCY == 1, f"MRNIC_LATENCY is {LATENCY}: the manifest's latency of realign is 1"
    check_sizes(dut)
    start_clock(dut)
    drive(dut, IDLE)
    await realign_reset(dut)
    zero = {n: 0 for n in STATS}
    assert stats(dut) == zero, f"counters after rst: {stats(dut)}"
    c = Cycles(dut)
    want = dict(zero)

    # a payload at a header offset: skip 5 beats, then output beat m one cycle after input beat 5 + m
    cmd = (42, 100, 3)
    assert plan(*cmd) == (5, 6, 13)
    s = await group(c, [(cmd, words(1, 20))], "header offset", want)
    assert s.cmd_at[0] == s.take[0][0] - 2, "the first beat is taken two cycles after the command's transfer"
    assert s.out[0][0] == s.take[0][5] + LATENCY, "the first output beat is one cycle after input beat 5"
    assert pad_beats(20, *cmd) == 0

    # every lane, with off >= lane and with off < lane (the first beat's low lanes read 0)
    items = [((off, length, lane), words(10 + 8 * k + lane, 4)) for k, (off, length) in enumerate(((13, 19), (2, 25)))
             for lane in range(B)]
    await group(c, items, "every lane", want)

    # a discard between two frames: no beat, the frame consumed, stat_dropped +1 the cycle after its transfer
    items = [((8, 16, 0), words(30, 3)), ((17, 0, 5), words(31, 3)), ((8, 16, 0), words(32, 3))]
    d0 = want["stat_dropped"]
    s = await group(c, items, "discard", want)
    t = s.cmd_at[1]
    assert (c.trace[t]["stat_dropped"], c.trace[t + 1]["stat_dropped"]) == (d0, d0 + 1), \
        f"stat_dropped {c.trace[t]['stat_dropped']} in the discard's transfer cycle {t}, {c.trace[t + 1]['stat_dropped']} after"
    assert len(s.out[1]) == 0 and s.take[2][0] == s.take[1][-1] + 1, "the discarded frame is consumed with no beat"

    # past the frame: a command longer than its 2-beat frame (all 5 beats zero-padded after
    # tlast), a payload ending at the frame's last byte (one pad beat), a 1-beat frame (one idle
    # cycle before the next frame), a payload wholly past its frame
    items = [((10, 40, 0), words(40, 2)), ((1, 15, 0), words(41, 2)), ((0, 8, 0), words(42, 1)),
             ((0, 16, 0), words(43, 2)), ((200, 10, 4), words(44, 3)), ((5, 3, 2), words(45, 2))]
    assert [pad_beats(len(ws), *cmd) for cmd, ws in items] == [5, 1, 0, 0, 2, 0]
    s = await group(c, items, "past the frame", want)
    assert s.out[0] == [s.take[0][-1] + 2 + m for m in range(5)], "the pad beats leave one per cycle after tlast"
    assert s.take[3][0] == s.take[2][0] + 2, "a 1-beat frame: one idle cycle before the next frame"
    assert s.take[1][0] == s.fin[0] + 1 and s.take[5][0] == s.fin[4] + 1, "the next frame waits for the pad beats"

    # back to back: frames of 2 to 5 beats whose payloads end by their tlast: no idle cycle
    items = [((0, 16, 0), words(50, 2)), ((5, 10, 5), words(51, 3)), ((20, 12, 1), words(52, 5)),
             ((3, 13, 3), words(53, 2)), ((7, 9, 7), words(54, 2))]
    s = await group(c, items, "back to back", want)
    flat = [t for tk in s.take for t in tk]
    assert flat == list(range(flat[0], flat[0] + len(flat))), f"back-to-back frames taken in cycles {flat}"

    # the sink stalled: the skipped beats, the beat that completes the only output beat and the
    # trailer are all taken (no output is due); the next frame's first beat is held while its
    # output register is full, and taken in the cycle the sink takes the waiting beat
    c.clear()
    c.m_ready = 0
    a, b = words(60, 6), words(61, 2)
    c.queue((16, 8, 0), a)  # skip 2, one output beat (input beat 2), beats 3 to 5 a trailer
    c.queue((0, 16, 0), b)
    for _ in range(20):
        await c.step()
    assert len(c.beat_at) == 6, f"{len(c.beat_at)} beats taken with the sink stalled, expected the 6 of the first frame"
    t_a = [t for t, _, _ in c.beat_at]
    assert t_a == list(range(t_a[0], t_a[0] + 6)), f"first frame taken in cycles {t_a}"
    held = [t for t in range(t_a[-1] + 1, c.cycle) if c.trace[t]["s_axis_tready"] == 0]
    assert len(held) >= 10 and all(c.trace[t]["m_axis_tvalid"] == 1 for t in held), "the next frame must be held"
    waiting = {(c.trace[t]["m_axis_tdata"], c.trace[t]["m_axis_tlast"]) for t in range(t_a[2] + 1, c.cycle)}
    assert waiting == set(realign_ref(as_bytes(a), 16, 8, 0)), f"the waiting beat changed or is wrong: {waiting}"
    c.m_ready = 1
    o = await c.step()
    assert o["s_axis_tready"] == 1 and len(c.out) == 1, "m_axis_tready frees the output register in the same cycle"
    await c.idle(6)
    want_b = realign_ref(as_bytes(b), 0, 16, 0)
    assert [(x, y) for _, x, y in c.out] == realign_ref(as_bytes(a), 16, 8, 0) + want_b, f"after the stall: {c.out}"
    want.update(stat_cmds=want["stat_cmds"] + 2, stat_beats=want["stat_beats"] + 3)
    assert stats(dut) == want, f"after the stall: counters {stats(dut)}, expected {want}"

    # a reset mid-frame with an output beat waiting: every valid and ready low during rst, the
    # counters cleared, and nothing of the old frame or command after it
    c.clear()
    c.m_ready = 0
    c.queue((0, 8, 0), words(70, 6))  # output beat at input beat 0, then the trailer
    for _ in range(5):
        await c.step()
    o = c.trace[c.cycle - 1]
    assert len(c.beat_at) == 3 and (o["s_cmd_ready"], o["s_axis_tready"], o["m_axis_tvalid"]) == (1, 1, 1), \
        f"before the reset: {len(c.beat_at)} beats taken, outputs {o}"
    await realign_reset(dut)
    assert stats(dut) == zero, f"counters after rst: {stats(dut)}"
    c.beats.clear()
    c.m_ready = 1
    o = await c.step()
    assert (o["s_cmd_ready"], o["s_axis_tready"], o["m_axis_tvalid"]) == (1, 0, 0), f"after the reset: {o}"
    want = dict(zero)
    await group(c, [((0, 12, 6), words(71, 3)), ((9, 20, 1), words(72, 4))], "after the reset", want)
    dut._log.info("directed_semantics: %d cycles (reset cycles not counted), counters after the reset: %s", c.cycle, want)


# --------------------------------------------------- random commands with backpressure


def random_case(r: random.Random) -> tuple[tuple[int, int, int], bytes, str]:
    """One frame (1 to 100 beats, its last beat full or zero-padded) and its command."""
    kind = r.randrange(20)
    if kind < 2:
        n = r.randint(1, B)
    elif kind < 17:
        n = r.randint(8 * B, 40 * B)
    else:
        n = r.randint(40 * B + 1, 100 * B)
    if r.random() < 0.7:
        n = -(-n // B) * B
    data = r.randbytes(n)
    lane = r.randrange(B)
    ck = r.randrange(20)
    if ck < 2:
        return (r.randint(0, OFF_MAX), 0, lane), data, "discard"
    if ck < 4:
        lane = r.randint(1, B - 1)
        off = r.randrange(min(lane, n))
        return (off, r.randint(1, n - off), lane), data, "off < lane"
    if ck < 6:
        off = r.randint(0, min(OFF_MAX, n - 1))
        return (off, n - off, lane), data, "at the end"
    if ck < 8:
        off = r.randint(0, OFF_MAX)
        return (off, r.randint(max(1, n - off + 1), max(1, n - off) + 100), lane), data, "past the frame"
    if ck < 14 and n > 110:
        off = r.randint(42, 110)
        return (off, r.randint(1, n - off), lane), data, "header offset"
    off = r.randint(0, min(OFF_MAX, n - 1))
    return (off, r.randint(1, n - off), lane), data, "inside"


@cocotb.test()
async def random_backpressure(dut):
    """Random frames and commands with pauses and a stalling sink: every output beat and tlast
    against the Python reference, the received frames byte for byte, the counters."""
    check_sizes(dut)
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n = int(os.environ.get("MRNIC_RANDOM_OPS", "300"))
    r = random.Random(seed)
    cases = [random_case(r) for _ in range(n)]
    kinds = [k for _, _, k in cases]
    refs = [realign_ref(data, *cmd) for cmd, data, _ in cases]
    sizes = [len(frame_words(data)) for _, data, _ in cases]
    pads = [pad_beats(f, *cmd) for f, (cmd, _, _) in zip(sizes, cases)]
    if n >= 100:
        for k in ("discard", "off < lane", "at the end", "past the frame", "header offset", "inside"):
            assert kinds.count(k) >= 2, f"the random mix has {kinds.count(k)} commands of kind {k!r}"
        assert sizes.count(1) >= 2 and max(sizes) > 40, "the random mix lacks 1-beat or long frames"

    start_clock(dut)
    drive(dut, IDLE)
    await realign_reset(dut)
    await next_cycle(dut)  # out of the ReadOnly phase: cocotbext-axi sets its signals at once
    sb = Scoreboard(dut._log, {"m_axis_tdata": 8 * B, "m_axis_tlast": 1})
    for k, ((cmd, _, kind), ref) in enumerate(zip(cases, refs)):
        for m, (d, last) in enumerate(ref):
            sb.expect("m_axis", {"m_axis_tdata": d, "m_axis_tlast": last},
                      note=f"command {k} (off, len, lane) = {cmd} ({kind}), beat {m} of {len(ref)}")
    src = axis_source(dut, "s_axis", idle=phases((400, never()), (300, random_hold(seed + 1, 0.3)),
                                                 (200, pattern([0, 1])), (300, bursts(seed + 2, (1, 40), (3, 30)))))
    sink = axis_sink(dut, "m_axis", backpressure=phases((300, never()), (300, random_hold(seed + 3, 0.4)),
                                                        (200, pattern([0, 0, 1])), (400, bursts(seed + 4, (1, 20), (20, 200)))))
    src.log.setLevel("WARNING")
    sink.log.setLevel("WARNING")
    cmd_src = StreamSource(dut, S_CMD, idle=phases((300, never()), (300, random_hold(seed + 5, 0.5)),
                                                    (300, bursts(seed + 6, (1, 4), (5, 60)))))
    mon = StreamMonitor(dut, axis_stream(dut, "m_axis"), on_transfer=lambda t, cyc: sb.observe("m_axis", t, cyc))
    tasks = [cocotb.start_soon(t.run()) for t in (cmd_src, mon)]
    for (off, length, lane), _, _ in cases:
        cmd_src.send({"s_cmd_off": off, "s_cmd_len": length, "s_cmd_lane": lane})
    for _, data, _ in cases:
        await src.send(AxiStreamFrame(tdata=data))
    total = sum(len(x) for x in refs)
    limit = 30 * (sum(sizes) + total + sum(plan(*cmd)[0] for cmd, _, _ in cases)) + 20000
    cycles = await run_until_drained(dut, lambda: cmd_src.busy or not src.idle() or sb.pending() > 0, [sb, mon],
                                     limit, 20, lambda: f"{mon.transfers} of {total} output beats, {cmd_src.transfers} "
                                                        f"of {n} commands taken")
    for t in tasks:
        t.cancel()
    sb.finish()
    assert not mon.errors, mon.errors[0]
    rx = []
    while not sink.empty():
        rx.append(sink.recv_nowait())
    want = [b"".join(d.to_bytes(B, "little") for d, _ in ref) for ref in refs if ref]
    assert len(rx) == len(want), f"{len(rx)} frames received on m_axis, {len(want)} payloads expected"
    for k, (got, w) in enumerate(zip(rx, want)):
        assert bytes(got.tdata) == w, \
            f"payload {k} of {len(want)}: {len(got.tdata)} bytes received, {len(w)} expected, or other bytes"
    await settle()
    s = stats(dut)
    exp = {"stat_cmds": n, "stat_beats": total, "stat_dropped": kinds.count("discard"), "stat_pad": sum(pads)}
    assert s == exp, f"counters {s}, expected {exp}"
    assert mon.waiting_cycles > 0 and cmd_src.idle_cycles > 0, "the sink never held a beat or s_cmd never paused"
    dut._log.info("%d commands (%s), %d frame beats, %d output beats (%d pad) in %d cycles; m_axis held %d cycles",
                  n, {k: kinds.count(k) for k in sorted(set(kinds))}, sum(sizes), total, sum(pads), cycles,
                  mon.waiting_cycles)
