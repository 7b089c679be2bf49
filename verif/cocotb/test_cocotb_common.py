"""Tests of the testbench base itself, without a simulator: the manifest reader (both shapes),
the idle/backpressure generators, and the SACK tests' Python reference against the golden
model's vectors (so the randomized test's reference is the golden model's semantics)."""

from __future__ import annotations

import itertools
import json
from collections import deque

import pytest

from common import runner
from common.manifest import block_entry
from common.stream import bursts, never, pattern, phases, random_hold
from common.vectors import read_header
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


@pytest.mark.parametrize("preset", ["small", "ice40"])
def test_python_reference_matches_the_golden_model_vectors(preset):
    """Every output beat of the golden model's vectors equals Ref applied to the input
    transfers in order (up to the first rst, which drops beats in flight)."""
    path = runner.vectors("sack", preset, 11, 6000)
    h = read_header(path)
    ref = Ref(int(h["config"]["sack"]["window"]))
    expected: deque = deque()
    beats = 0
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
                expected.append(ref.beat(i["s_conn"], i["s_psn"], bool(i["s_clear"])))
    assert beats > 2000, f"only {beats} beats compared"
