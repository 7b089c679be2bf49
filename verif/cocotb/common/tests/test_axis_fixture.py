"""cocotb test of common/axis.py on the AXI-Stream FIFO fixture (axis_fifo.v): frames of random
lengths through a paused source and a backpressured sink arrive whole and in order, and the
output port obeys the handshake rules (StreamMonitor)."""

from __future__ import annotations

import os
import random

import cocotb

from common.axis import axis_sink, axis_source, axis_stream
from common.stream import StreamMonitor, bursts, random_hold
from common.tb import next_cycle, reset, start_clock


@cocotb.test()
async def frames_pass_through_with_pauses_and_backpressure(dut):
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    rng = random.Random(seed)
    start_clock(dut)
    dut.s_axis_tvalid.value = 0
    dut.m_axis_tready.value = 0
    await reset(dut, cycles=2)
    await next_cycle(dut)  # cocotbext-axi sets its signals when created: not in the ReadOnly phase
    src = axis_source(dut, "s_axis", idle=random_hold(seed, 0.3))
    sink = axis_sink(dut, "m_axis", backpressure=bursts(seed + 1, (1, 8), (1, 12)))
    mon = StreamMonitor(dut, axis_stream(dut, "m_axis"))
    task = cocotb.start_soon(mon.run())
    frames = [bytes(rng.randrange(256) for _ in range(rng.randint(1, 12))) for _ in range(40)]
    for f in frames:
        await src.send(f)
    for k, f in enumerate(frames):
        got = await sink.recv()
        assert bytes(got.tdata) == f, f"frame {k}: sent {f.hex()}, received {bytes(got.tdata).hex()}"
    for _ in range(10):
        await next_cycle(dut)
    task.cancel()
    assert sink.empty(), "a frame more than was sent"
    beats = sum(len(f) for f in frames)
    assert mon.transfers == beats, f"{mon.transfers} beats seen, {beats} sent"
    assert mon.waiting_cycles > 20, f"backpressure held a valid beat only {mon.waiting_cycles} cycles"
    dut._log.info("%d frames, %d beats through the fixture; a valid beat waited %d cycles",
                  len(frames), beats, mon.waiting_cycles)
