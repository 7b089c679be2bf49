"""cocotb tests of the receive frame parser's generated Verilog (block `parser`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog, the
golden-model vectors (`mrnic vectors --block parser`) and the frames (`mrnic frames`) and
points this module at them: MRNIC_VECTORS, MRNIC_FRAMES, MRNIC_LATENCY (the manifest's
latency), MRNIC_SEED.

Contract under test (the RTL header, hdl/src/parser.rs, and its model cycle shell
mrnic_model::wire::parser_shell)
---------------------------------------------------------------------------------------
Input `s_axis` (AXI4-Stream, 8 bytes per beat, byte k = tdata bits 8k+7..8k): tdata, tkeep,
tlast, tuser, tvalid; `s_axis_tready = !rst && !(m_hdr_valid && !m_hdr_ready) && n <= 8 - LATENCY`
with n the verdicts queued on `m_vrd` (a FIFO of VRD_DEPTH = 8). Output
`m_hdr`: one header record per good frame (opcode, dest_qp, psn, path_id, path_psn, msn,
offset, flags, va, rkey, length, ecn), valid LATENCY cycles after the cycle its tlast beat was
transferred, held until m_hdr_ready. For every frame, good or dropped, in the same cycle: the
counter of its verdict (`stat_good_<opcode>` or `stat_drop_<reason>`) counts 1 and
`stat_last_verdict` becomes its code (0 good, 1 + the drop index). Drop priority: tuser (MAC
error), then a bad tkeep, then too long (> 9216 bytes), then the wire checks in decode order.
Output `m_vrd` (valid/ready, `m_vrd_keep`): one verdict per frame, good or dropped, in frame
order, queued LATENCY cycles after its tlast; keep = 1 only for a good WRITE / SEND with a
payload (the frames file's `vrd_keep`).
Reset: counters 0, `stat_last_verdict` = 31, no record, no verdict.

Tests
-----
* `vector_replay`: the golden model's cycle-by-cycle vectors (the kit's seeded stimulus:
  good, hostile, truncated, tkeep/tuser faults, idle gaps, m_hdr_ready backpressure), every
  output every cycle after the header's settle cycles.
* `directed_frames`: `mrnic frames`' directed list one frame at a time through cocotbext-axi's
  AxiStreamSource: per frame exactly its verdict's counter moves (by 1, every other counter
  still), `stat_last_verdict` is its code, a good frame gives exactly its record LATENCY cycles
  after its tlast, a dropped frame none; exactly one verdict with the frame's keep bit.
* `random_frames_backpressure`: `mrnic frames`' random list through a pausing AxiStreamSource,
  m_hdr_ready and m_vrd_ready driven through independent backpressure phases; every record and
  every verdict compared in order with the expected ones, the handshake rules and tready's
  equation (with the verdict FIFO's count mirrored from the transfers) every cycle, every
  counter at the end.
"""

from __future__ import annotations

import json
import os

import cocotb
from cocotbext.axi import AxiStreamFrame

from common.axis import axis_source
from common.scoreboard import Scoreboard
from common.stream import StreamMonitor, StreamSink, bursts, never, pattern, phases, random_hold, run_until_drained
from common.tb import drive, next_cycle, read, reset, settle, start_clock
from common.vectors import read_header, replay, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
RECORD = ("opcode", "dest_qp", "psn", "path_id", "path_psn", "msn", "offset", "flags", "va", "rkey",
          "length", "ecn", "vlan", "ssn", "src", "pkey", "sport", "ack_req", "se", "ts")
VERDICT_NONE = 31
VRD_DEPTH = 8


def frames_doc() -> dict:
    path = os.environ.get("MRNIC_FRAMES")
    assert path, "set MRNIC_FRAMES to a `mrnic frames` file"
    with open(path) as f:
        return json.load(f)


def stat_names(doc: dict) -> list[str]:
    return [f"stat_{n}" for n in doc["drop_names"] + doc["good_names"]]


def counters(dut, names) -> dict[str, int]:
    return {n: read(getattr(dut, n)) for n in names}


def axis_frame(fr: dict) -> AxiStreamFrame:
    """The frame's beats as an AxiStreamFrame: every beat's 8 bytes, tkeep and tuser per byte
    (so a tkeep hole or a tkeep-0 last beat goes on the wire as the model saw it)."""
    data = bytes.fromhex(fr["data"])
    assert len(data) == 8 * len(fr["keep"]), fr["name"]
    keep = [(k >> i) & 1 for k in fr["keep"] for i in range(8)]
    user = [u for u in fr["user"] for _ in range(8)]
    return AxiStreamFrame(tdata=data, tkeep=keep, tuser=user)


async def parser_reset(dut) -> None:
    """rst for two cycles: tready low during it; no record, counters 0, last verdict 31 after."""
    def during(d):
        assert read(d.s_axis_tready) == 0, "s_axis_tready must be low during rst"

    await reset(dut, cycles=2, idle={"s_axis_tvalid": 0, "m_hdr_ready": 1, "m_vrd_ready": 1}, during=during)
    assert read(dut.m_hdr_valid) == 0, "m_hdr_valid after rst"
    assert read(dut.m_vrd_valid) == 0, "m_vrd_valid after rst"
    assert read(dut.stat_last_verdict) == VERDICT_NONE, f"stat_last_verdict {read(dut.stat_last_verdict)} after rst"


class Watch:
    """Every cycle (sampled after the falling edge): the s_axis transfers (tlast cycles), the
    records and verdicts taken, and the tready equation. The verdict FIFO's count is mirrored:
    a frame's verdict is queued LATENCY cycles after its tlast, and leaves when taken."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = -1
        self.tlast_cycles: list[int] = []
        self.records: list[tuple[int, dict]] = []
        self.verdicts: list[tuple[int, int]] = []
        self.queued = 0  # verdicts in the FIFO (mirror)
        self.errors: list[str] = []

    def _fail(self, msg: str) -> None:
        self.errors.append(f"cycle {self.cycle}: {msg}")
        raise AssertionError(self.errors[-1])

    async def run(self) -> None:
        d = self.dut
        while True:
            await next_cycle(d)
            self.cycle += 1
            await settle()
            tv, tr, tl = read(d.s_axis_tvalid), read(d.s_axis_tready), read(d.s_axis_tlast)
            mv, mr, rst = read(d.m_hdr_valid), read(d.m_hdr_ready), read(d.rst)
            vv, vr = read(d.m_vrd_valid), read(d.m_vrd_ready)
            self.queued += sum(1 for c in self.tlast_cycles[-LATENCY - 1:] if c + LATENCY == self.cycle)
            if vv != int(self.queued > 0):
                self._fail(f"m_vrd_valid={vv} with {self.queued} verdicts queued")
            want = int(not rst and not (mv == 1 and mr == 0) and self.queued <= VRD_DEPTH - LATENCY)
            if tr != want:
                self._fail(f"s_axis_tready={tr}, expected {want} (rst={rst} m_hdr_valid={mv} m_hdr_ready={mr} "
                           f"verdicts queued={self.queued})")
            if tv == 1 and tr == 1 and tl == 1:
                self.tlast_cycles.append(self.cycle)
            if mv == 1 and mr == 1:
                self.records.append((self.cycle, {f: read(getattr(d, f"m_hdr_{f}")) for f in RECORD}))
            if vv == 1 and vr == 1:
                self.verdicts.append((self.cycle, read(d.m_vrd_keep)))
                self.queued -= 1


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    await replay_block_vectors(dut, "parser", LATENCY, "header record")


# ------------------------------------------------------------------------ directed frames


@cocotb.test()
async def directed_frames(dut):
    """Each directed frame alone: its verdict's counter +1 and no other, its code, its record."""
    doc = frames_doc()
    assert LATENCY > 0, "set MRNIC_LATENCY to the manifest's latency"
    assert doc["latency"] == LATENCY, f"frames for latency {doc['latency']}, the manifest says {LATENCY}"
    names = stat_names(doc)
    start_clock(dut)
    drive(dut, {"s_axis_tvalid": 0, "m_hdr_ready": 1, "m_vrd_ready": 1, "rst": 0})
    await parser_reset(dut)
    before = counters(dut, names)
    assert all(v == 0 for v in before.values()), f"counters after rst: {before}"
    await next_cycle(dut)  # out of the ReadOnly phase: the source sets tvalid at once
    src = axis_source(dut, "s_axis")
    watch = Watch(dut)
    task = cocotb.start_soon(watch.run())
    seen_verdicts = set()
    for k, fr in enumerate(doc["directed"]):
        what = f"frame {k} ({fr['name']})"
        n_rec, n_last, n_vrd = len(watch.records), len(watch.tlast_cycles), len(watch.verdicts)
        await src.send(axis_frame(fr))
        await src.wait()
        for _ in range(LATENCY + 3):
            await next_cycle(dut)
        await settle()
        assert not watch.errors, watch.errors[0]
        assert len(watch.tlast_cycles) == n_last + 1, f"{what}: {len(watch.tlast_cycles) - n_last} tlast transfers"
        now = counters(dut, names)
        moved = {n: now[n] - before[n] for n in names if now[n] != before[n]}
        want_counter = f"stat_{fr['verdict'] if fr['verdict'] != 'good' else fr['intent']}"
        assert moved == {want_counter: 1}, f"{what}: expected {want_counter} +1 and nothing else, counters moved {moved}"
        last = read(dut.stat_last_verdict)
        assert last == fr["code"], f"{what}: stat_last_verdict {last}, expected {fr['code']} ({fr['verdict']})"
        new = watch.records[n_rec:]
        if fr["record"] is None:
            assert new == [], f"{what} is dropped ({fr['verdict']}) but gave record(s) {new}"
        else:
            assert len(new) == 1, f"{what}: {len(new)} records for one good frame"
            cyc, rec = new[0]
            diff = {f: (fr["record"][f], rec[f]) for f in RECORD if fr["record"][f] != rec[f]}
            assert not diff, f"{what}: record fields differ (expected, actual): {diff}"
            lat = cyc - watch.tlast_cycles[-1]
            assert lat == LATENCY, f"{what}: record {lat} cycles after its tlast, expected {LATENCY}"
        vrd = [keep for _, keep in watch.verdicts[n_vrd:]]
        assert vrd == [fr["vrd_keep"]], f"{what}: verdicts {vrd} on m_vrd, expected [{fr['vrd_keep']}]"
        seen_verdicts.add(fr["verdict"])
        before = now
        dut._log.info("%s: %s, code %d", what, fr["verdict"], last)
    task.cancel()
    assert len(seen_verdicts) >= 20, f"only {len(seen_verdicts)} distinct verdicts in the directed set"
    final = counters(dut, names)
    want = {f"stat_{n}": v for n, v in doc["counters_directed"].items()}
    assert final == want, f"counters {final}, expected {want}"


# ------------------------------------------------------- random frames with backpressure


@cocotb.test()
async def random_frames_backpressure(dut):
    """The random frames through a pausing source, records drained with backpressure phases;
    records in order, handshakes every cycle, every counter at the end."""
    doc = frames_doc()
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    names = stat_names(doc)
    header = read_header(os.environ["MRNIC_VECTORS"])
    streams = {s["name"]: s for s in header["streams"]}
    assert set(streams) == {"s_axis", "m_hdr", "m_vrd"}, \
        f"the parser has streams s_axis, m_hdr and m_vrd, the vectors say {sorted(streams)}"
    frames = doc["random"]
    goods = [f for f in frames if f["record"] is not None]
    assert len(goods) >= 10 and len(frames) - len(goods) >= 10, \
        f"{len(goods)} good and {len(frames) - len(goods)} dropped random frames: too few of one kind"

    start_clock(dut)
    drive(dut, {"s_axis_tvalid": 0, "m_hdr_ready": 1, "m_vrd_ready": 1, "rst": 0})
    await parser_reset(dut)
    widths = {f"m_hdr_{f}": len(getattr(dut, f"m_hdr_{f}")) for f in RECORD}
    widths["m_vrd_keep"] = 1
    sb = Scoreboard(dut._log, widths)
    for k, f in enumerate(goods):
        sb.expect("m_hdr", {f"m_hdr_{n}": f["record"][n] for n in RECORD}, note=f"{f['name']}")
    for f in frames:
        sb.expect("m_vrd", {"m_vrd_keep": f["vrd_keep"]}, note=f"{f['name']} ({f['verdict']})")
    kept = sum(f["vrd_keep"] for f in frames)
    assert 0 < kept < len(frames), f"{kept} of {len(frames)} random frames kept: the verdicts need both values"
    idle = phases((300, never()), (400, random_hold(seed + 1, 0.3)), (200, pattern([0, 1])),
                  (300, bursts(seed + 2, (1, 40), (3, 20))))
    backpressure = phases((300, never()), (400, random_hold(seed + 3, 0.4)), (200, pattern([0, 0, 1])),
                          (300, bursts(seed + 4, (1, 20), (10, 60))), (100, random_hold(seed + 5, 0.9)))
    await next_cycle(dut)  # out of the ReadOnly phase: the source sets tvalid at once
    src = axis_source(dut, "s_axis", idle=idle)
    sink = StreamSink(dut, streams["m_hdr"], backpressure=backpressure)
    mon = StreamMonitor(dut, streams["m_hdr"], on_transfer=lambda t, c: sb.observe("m_hdr", t, c))
    # the verdicts held longer than the records: the FIFO fills and tready's guard is reached
    vrd_bp = phases((200, never()), (400, random_hold(seed + 6, 0.5)), (300, bursts(seed + 7, (1, 10), (20, 80))))
    vsink = StreamSink(dut, streams["m_vrd"], backpressure=vrd_bp)
    vmon = StreamMonitor(dut, streams["m_vrd"], on_transfer=lambda t, c: sb.observe("m_vrd", t, c))
    watch = Watch(dut)
    tasks = [cocotb.start_soon(t.run()) for t in (sink, mon, vsink, vmon, watch)]
    for f in frames:
        await src.send(axis_frame(f))
    cycles = await run_until_drained(dut, lambda: not src.idle() or sb.pending(), [sb, mon, vmon, watch],
                                     40 * sum(len(f["keep"]) for f in frames) + 2000, LATENCY + 4,
                                     lambda: f"{mon.transfers} of {len(goods)} records")
    for t in tasks:
        t.cancel()
    sb.finish()
    assert not mon.errors, mon.errors[0]
    assert not vmon.errors, vmon.errors[0]
    assert not watch.errors, watch.errors[0]
    assert len(watch.tlast_cycles) == len(frames), f"{len(watch.tlast_cycles)} tlast transfers for {len(frames)} frames"
    assert vmon.transfers == len(frames), f"{vmon.transfers} verdicts for {len(frames)} frames"
    assert mon.transfers == len(goods), f"{mon.transfers} records for {len(goods)} good frames"
    await settle()
    final = counters(dut, names)
    want = {f"stat_{n}": v for n, v in doc["counters_random"].items()}
    diff = {n: (want[n], final[n]) for n in names if want[n] != final[n]}
    assert not diff, f"counters differ (expected, actual): {diff}"
    assert read(dut.stat_last_verdict) == frames[-1]["code"], \
        f"stat_last_verdict {read(dut.stat_last_verdict)}, the last frame's code is {frames[-1]['code']}"
    # The backpressure really held records and stopped the input (a full-size run: a
    # MRNIC_COCOTB_SCALE smoke run is too short for the backpressure phases).
    if len(frames) >= 150:
        assert sink.held_cycles > 100 and mon.waiting_cycles > 20, (sink.held_cycles, mon.waiting_cycles)
        assert vsink.held_cycles > 100 and vmon.waiting_cycles > 20, (vsink.held_cycles, vmon.waiting_cycles)
    verdicts = {f["verdict"] for f in frames}
    dut._log.info("random_frames_backpressure: %d frames (%d good) in %d cycles, %d distinct verdicts; sink held %d "
                  "cycles, a record waiting %d cycles", len(frames), len(goods), cycles, len(verdicts),
                  sink.held_cycles, mon.waiting_cycles)
