"""Tests of the testbench base itself, without a simulator: the manifest reader (both shapes),
the idle/backpressure generators, the no-reset vectors' transfer reader, and the SACK tests'
Python reference against the golden model's vectors (so the randomized test's reference is
the golden model's semantics)."""

from __future__ import annotations

import itertools
import json
from collections import deque

import pytest

from common import runner
from common.manifest import block_entry
from common.stream import bursts, never, pattern, phases, random_hold
from common.vectors import read_header, read_transfers
from sack.test_sack import Ref

PORTS = [{"name": "clock", "width": 1, "direction": "input"}]


def test_manifest_reader_accepts_the_tops_and_the_blocks_shape(tmp_path):
    old = tmp_path / "old" / "manifest.json"
    old.parent.mkdir()
    old.write_text(json.dumps({"tops": [{"name": "sack_engine", "module": "top", "file": "sack_engine.v",
                                         "latency": 4, "ports": PORTS}]}))
    src, e = block_entry(old, "sack")
    assert (src, e["module"], e["block"], e["streams"]) == (old.parent / "sack_engine.v", "top", "sack", [])
    new = tmp_path / "new" / "manifest.json"
    new.parent.mkdir()
    streams = [{"name": "s", "dir": "input", "valid": "s_valid", "ready": "s_ready", "payload": []}]
    new.write_text(json.dumps({"blocks": [{"block": "sack", "module": "mrnic_sack", "file": "mrnic_sack.v",
                                           "latency": 4, "ports": PORTS, "streams": streams}]}))
    src, e = block_entry(new, "sack")
    assert (src, e["module"], e["streams"]) == (new.parent / "mrnic_sack.v", "mrnic_sack", streams)
    with pytest.raises(ValueError, match=r"no block 'dma'; it has \['sack'\]"):
        block_entry(new, "dma")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="neither 'blocks' nor 'tops'"):
        block_entry(tmp_path / "bad.json", "sack")


def test_generators_hold_back_as_described():
    take = lambda g, n: list(itertools.islice(g, n))  # noqa: E731
    assert take(never(), 5) == [False] * 5
    assert take(pattern([0, 0, 1]), 7) == [False, False, True, False, False, True, False]
    a, b = take(random_hold(7, 0.3), 10000), take(random_hold(7, 0.3), 10000)
    assert a == b, "seeded: the same seed gives the same sequence"
    assert 0.27 < sum(a) / len(a) < 0.33
    assert take(random_hold(1, 0.0), 100) == [False] * 100 and take(random_hold(1, 1.0), 100) == [True] * 100
    with pytest.raises(ValueError):
        next(random_hold(1, 1.5))
    with pytest.raises(ValueError):
        pattern([])
    # bursts: held runs of 5..9 cycles between free runs of 1..2.
    seq = take(bursts(3, (1, 2), (5, 9)), 2000)
    runs = [(k, len(list(g))) for k, g in itertools.groupby(seq)][1:-1]  # whole runs only
    assert {k for k, _ in runs} == {True, False}
    assert all(5 <= n <= 9 for k, n in runs if k) and all(1 <= n <= 2 for k, n in runs if not k)
    # phases: 3 free, then 4 of a pattern, repeated.
    assert take(phases((3, never()), (4, pattern([1]))), 14) == ([False] * 3 + [True] * 4) * 2


def test_transfer_reader_collects_in_order_and_cuts_ops_without_result(tmp_path):
    """read_transfers on hand-written vectors: two input streams in one list (a cycle's in the
    given order), `extra` ports with the op, reset cycles skipped, the transfers after the
    last op with a result cut, the last result's outputs, the per-cycle hook; a reset after a
    transfer refused."""
    streams = [{"name": "s_cfg", "dir": "input", "valid": "w_valid", "ready": "w_ready", "payload": ["w_d"]},
               {"name": "s", "dir": "input", "valid": "s_valid", "ready": "s_ready", "payload": ["s_d"]},
               {"name": "m", "dir": "output", "valid": "m_valid", "ready": "m_ready", "payload": ["m_d"]}]
    idle = {"rst": 0, "w_valid": 0, "w_d": 0, "s_valid": 0, "s_d": 0, "now": 0, "m_ready": 1}
    quiet = {"w_ready": 1, "s_ready": 1, "m_valid": 0, "stat": 0}
    cycles = [({"rst": 1}, {"w_ready": 0, "s_ready": 0}),
              ({"w_valid": 1, "w_d": 1, "s_valid": 1, "s_d": 2, "now": 7}, {}),
              ({"s_valid": 1, "s_d": 3, "now": 8}, {"s_ready": 0}),  # not taken
              ({"s_valid": 1, "s_d": 3, "now": 9}, {"m_valid": 1, "m_d": 20, "stat": 1}),
              ({"w_valid": 1, "w_d": 4, "m_ready": 0}, {"m_valid": 1, "m_d": 30, "stat": 1}),  # held
              ({"s_valid": 1, "s_d": 5}, {"m_valid": 1, "m_d": 30, "stat": 2}),  # op 2: no result
              ({"w_valid": 1, "w_d": 6}, {})]

    def write(name: str, lines) -> str:
        path = tmp_path / name
        header = {"block": "t", "ports": [], "streams": streams, "latency": 1, "cycles": len(lines)}
        path.write_text("\n".join(json.dumps(x) for x in [header, *lines]) + "\n")
        return str(path)

    lines = [{"in": {**idle, **i}, "out": {**quiet, **o}} for i, o in cycles]
    seen = []
    t = read_transfers(write("v.jsonl", lines), inputs=("s_cfg", "s"), extra={"s": ("now",)},
                       on_cycle=lambda i, o, names: seen.append(names))
    # 2 results: cut after op 1 (the write of cycle 4 and op 2 follow it)
    assert t.taken == [("s_cfg", {"w_d": 1}), ("s", {"s_d": 2, "now": 7}), ("s", {"s_d": 3, "now": 9})]
    assert t.of("s") == [{"s_d": 2, "now": 7}, {"s_d": 3, "now": 9}] and t.results == [{"m_d": 20}, {"m_d": 30}]
    assert t.last["stat"] == 2 and t.header["block"] == "t"
    assert seen == [[], ["s_cfg", "s"], [], ["s", "m"], ["s_cfg"], ["s", "m"], ["s_cfg"]]
    with pytest.raises(AssertionError, match="a reset after the prologue"):
        read_transfers(write("r.jsonl", lines[:3] + [{"in": {**idle, "rst": 1}, "out": quiet}]))


@pytest.mark.parametrize("preset", ["small", "ice40"])
def test_python_reference_matches_the_golden_model_vectors(preset):
    """Every output beat of the golden model's vectors equals Ref applied to the input
    transfers in order (up to the first rst, which drops beats in flight), uncommitted
    packets (s_commit = 0) included."""
    path = runner.vectors("sack", preset, 11, 6000)
    h = read_header(path)
    ref = Ref(int(h["config"]["sack"]["window"]))
    expected: deque = deque()
    beats = uncommitted = 0
    with open(path) as f:
        f.readline()
        for k, line in enumerate(f):
            c = json.loads(line)
            i, o = c["in"], c["out"]
            if i["rst"]:
                break
            if o["m_valid"] and i["m_ready"]:
                got = {n: (int(o[n], 16) if isinstance(o[n], str) else o[n])
                       for n in ("m_conn", "m_psn", "m_class", "m_base", "m_bitmap")}
                assert expected, f"cycle {k}: a beat with no transfer before it"
                want = expected.popleft()
                assert got == want, f"cycle {k}: golden model {got}, Python reference {want}"
                beats += 1
            if i["s_valid"] and o["s_ready"]:
                expected.append(ref.beat(i["s_conn"], i["s_psn"], bool(i["s_clear"]), bool(i["s_commit"])))
                uncommitted += int(not i["s_clear"] and not i["s_commit"])
    assert beats > 2000, f"only {beats} beats compared"
    assert uncommitted > 100, f"only {uncommitted} uncommitted packets: the commit semantics are not compared"



def _axis_fixture(name: str, source) -> tuple[int, int, list[str], str]:
    """Build `source` (the FIFO fixture or a mutant of it) on Icarus, run the adapter's cocotb
    test; (tests, failed, failure messages, log tail)."""
    from xml.etree import ElementTree

    runner.check_tool("icarus")
    r = runner.get_runner("icarus")
    r.build(sources=[source], hdl_toplevel="axis_fifo", build_dir=runner.OUT / "build" / f"icarus-{name}",
            timescale=("1ns", "1ps"), log_file=runner.OUT / "build" / f"icarus-{name}.log")
    test_dir = runner.OUT / "run" / name
    test_dir.mkdir(parents=True, exist_ok=True)
    results = test_dir / "results.xml"
    try:
        r.test(hdl_toplevel="axis_fifo", test_module="common.tests.test_axis_fixture", test_dir=test_dir,
               results_xml=str(results), log_file=test_dir / "sim.log", timescale=("1ns", "1ps"),
               extra_env={"MRNIC_SEED": "3"})
    except SystemExit:
        pass
    tests, failed = runner.get_results(results)
    msgs = [b.get("message") for b in ElementTree.parse(results).getroot().iter("failure")]
    return tests, failed, msgs, runner.tail(test_dir / "sim.log")


FIXTURE = runner.COCOTB / "common" / "tests" / "axis_fifo.v"


def test_axi_stream_adapter_on_a_fifo_fixture():
    """common/axis.py (cocotbext-axi source and sink with our generators) on a hand-written
    AXI-Stream FIFO under Icarus: frames whole and in order, handshake rules kept."""
    tests, failed, msgs, log = _axis_fixture("axis-fixture", FIXTURE)
    assert (tests, failed) == (1, 0), f"{failed} of {tests} failed: {msgs}\n{log}"


def test_handshake_monitor_catches_a_fifo_that_ignores_tready():
    """The same test on a mutant FIFO that pops its head whether or not m_axis_tready is high:
    the monitor must report the payload changing under a valid, not-ready beat."""
    good = FIXTURE.read_text()
    frm, to = "if (m_axis_tvalid && m_axis_tready)", "if (m_axis_tvalid)"
    assert good.count(frm) == 1, f"{frm!r} must occur once in {FIXTURE}"
    bad = runner.OUT / "axis_fifo_ignores_tready.v"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text(good.replace(frm, to))
    tests, failed, msgs, log = _axis_fixture("axis-fixture-mutant", bad)
    assert (tests, failed) == (1, 1), f"the mutant FIFO passed:\n{log}"
    assert "payload changed while valid and not ready" in msgs[0], msgs
