"""pytest driver: the SACK engine's generated Verilog under cocotb, on Verilator and on Icarus.

    source ~/.cache/mrnic-tools/env.sh && python -m pytest verif/cocotb -q

Per session: `mrnic-gen gen` writes the Verilog + manifest of each preset used and `mrnic-gen
vectors` writes the golden model's cycle-by-cycle vectors, under target/cocotb/<preset>/. Each
simulator build lives in target/cocotb/build/<sim>-<preset>/, each run in
target/cocotb/run/<test id>/ (results XML, sim.log, and on Verilator dump.fst).
The cocotb test module is test_sack.py (a vector-by-vector comparison and a directed test).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]  # verif/cocotb -> verif -> repo root
OUT = REPO / "target" / "cocotb"
SETUP_HINT = "run `bash scripts/setup.sh` then `source ~/.cache/mrnic-tools/env.sh` (or `source \"$(scripts/setup.sh --env)\"`)"

try:
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner
except ImportError as e:  # pragma: no cover - environment problem, reported at collection
    raise ImportError(f"cocotb 2.x is not importable from {sys.executable}: {SETUP_HINT}") from e

# The cocotb test module must be importable by the simulator's embedded Python, which gets
# this process's sys.path as PYTHONPATH.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

# Vector counts, chosen so that each simulator run stays well under a minute on the 2-core
# reference machine (measured numbers in docs/cocotb.md). Override with SACK_COCOTB_SCALE
# (a float multiplier, e.g. 0.1 for a smoke run, 10 for a soak).
SCALE = float(os.environ.get("SACK_COCOTB_SCALE", "1"))
RUNS = [
    # (simulator, preset, seed, cycles)
    ("verilator", "small", 1, 20000),
    ("verilator", "ice40", 2, 20000),
    ("icarus", "small", 3, 15000),
]
MIN_VERILATOR = (5, 36)


def _cycles(n: int) -> int:
    return max(50, int(n * SCALE))


# ----------------------------------------------------------------------------- tools


@functools.cache
def _check_tool(sim: str) -> None:
    if sim == "verilator":
        exe = shutil.which("verilator")
        if exe is None:
            pytest.fail(f"verilator is not on PATH: {SETUP_HINT}", pytrace=False)
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"Verilator (\d+)\.(\d+)", out)
        if not m or (int(m[1]), int(m[2])) < MIN_VERILATOR:
            pytest.fail(f"{exe} reports {out.strip()!r}; cocotb 2.x needs Verilator >= "
                        f"{MIN_VERILATOR[0]}.{MIN_VERILATOR[1]:03d}: {SETUP_HINT}", pytrace=False)
    elif sim == "icarus":
        for exe in ("iverilog", "vvp"):
            if shutil.which(exe) is None:
                pytest.fail(f"{exe} (Icarus Verilog) is not on PATH: {SETUP_HINT}", pytrace=False)
    else:
        raise ValueError(sim)


def _cargo(*args: str) -> None:
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("cargo is not on PATH (the Verilog and the vectors come from mrnic-gen)", pytrace=False)
    # The dev profile: `cargo test --workspace` (run first by scripts/test.sh) has built it already.
    cmd = [cargo, "run", "-q", "-p", "mrnic-gen", "--", *args]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"`{' '.join(cmd)}` failed ({r.returncode}) in {REPO}:\n{r.stdout}\n{r.stderr}", pytrace=False)


# ------------------------------------------------------------------ generated inputs
# Module-level caches: one generation per preset / vector set per session, shared by all tests.


@functools.cache
def rtl(preset: str) -> tuple[Path, dict]:
    """Generate the Verilog of `preset`; return sack_engine.v and its manifest entry."""
    out = OUT / preset / "rtl"
    _cargo("gen", "--preset", preset, "--out", str(out))
    manifest = json.loads((out / "manifest.json").read_text())
    top = next(t for t in manifest["tops"] if t["file"] == "sack_engine.v")
    assert top["module"] == "top", top
    return out / "sack_engine.v", top


@functools.cache
def vectors(preset: str, seed: int, cycles: int) -> Path:
    out = OUT / preset / f"vectors-s{seed}-c{cycles}.json"
    _cargo("vectors", "--preset", preset, "--seed", str(seed), "--cycles", str(cycles), "--out", str(out))
    return out


@functools.cache
def built(sim: str, preset: str):
    """A cocotb runner with the preset's Verilog built for `sim` (once per session)."""
    _check_tool(sim)
    src, _ = rtl(preset)
    runner = get_runner(sim)
    build_args = []
    waves = False
    if sim == "verilator":
        # rust-hdl writes 32'h.. literals and zero-extends 1-bit reductions: WIDTH* warnings
        # (reviewed for lint in verif/lint/waivers.vlt) must not stop the simulation build.
        # Trace support is compiled in (FST) so that a failing run can be replayed with waves.
        build_args = ["-Wno-fatal", "-Wno-WIDTH", "--trace-fst"]
        waves = True
    t0 = time.perf_counter()
    runner.build(
        sources=[src],
        hdl_toplevel="top",
        build_dir=OUT / "build" / f"{sim}-{preset}",
        timescale=("1ns", "1ps"),
        build_args=build_args,
        waves=waves,
        log_file=OUT / "build" / f"{sim}-{preset}.log",
    )
    print(f"[cocotb] built {sim}-{preset} in {time.perf_counter() - t0:.1f} s")
    return runner


# ------------------------------------------------------------------------- running


def run_cocotb(sim: str, preset: str, vec: Path, name: str, *, waves: bool = False,
               testcase: str | None = None) -> dict:
    """Run test_sack.py on `sim`; never raises on a failing cocotb test, returns the facts."""
    runner = built(sim, preset)
    _, top = rtl(preset)
    vec_latency = json.loads(vec.read_text())["latency"]
    assert vec_latency == top["latency"], f"{vec}: latency {vec_latency}, manifest {top['latency']}"
    test_dir = OUT / "run" / name
    if test_dir.exists():
        shutil.rmtree(test_dir)
    test_dir.mkdir(parents=True)
    results = test_dir / "results.xml"
    log = test_dir / "sim.log"
    t0 = time.perf_counter()
    exit_code = 0
    try:
        runner.test(
            hdl_toplevel="top",
            test_module="test_sack",
            testcase=testcase,
            test_dir=test_dir,
            results_xml=str(results),  # absolute: allowed under pytest
            extra_env={"SACK_VECTORS": str(vec), "SACK_LATENCY": str(top["latency"])},
            waves=waves,
            log_file=log,
            timescale=("1ns", "1ps"),
        )
    except SystemExit as e:  # the runner exits when a test fails or the simulator dies
        exit_code = e.code if isinstance(e.code, int) else 1
    except RuntimeError as e:
        exit_code = -1
        print(f"[cocotb] runner error: {e}")
    seconds = time.perf_counter() - t0
    facts = {"seconds": seconds, "exit_code": exit_code, "results": results, "log": log,
             "test_dir": test_dir, "tests": 0, "failed": None, "failures": []}
    try:
        facts["tests"], facts["failed"] = get_results(results)
    except RuntimeError as e:
        facts["failures"].append(str(e))
        return facts
    for tc in ElementTree.parse(results).getroot().iter("testcase"):
        for bad in list(tc.iter("failure")) + list(tc.iter("error")):
            facts["failures"].append(f"{tc.get('name')}: {bad.get('message')}")
    return facts


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return f"(no {path})"


def _report(sim: str, facts: dict) -> str:
    wave = facts["test_dir"] / "dump.fst"
    return (f"{sim}: exit code {facts['exit_code']}, {facts['tests']} cocotb tests, {facts['failed']} failed\n"
            + "\n".join(facts["failures"])
            + f"\nresults: {facts['results']}\nlog: {facts['log']}"
            + (f"\nwaves: {wave}" if wave.exists() else "")
            + f"\n--- log tail ---\n{_tail(facts['log'])}")


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("sim,preset,seed,cycles", RUNS, ids=[f"{s}-{p}" for s, p, _, _ in RUNS])
def test_sack_engine_matches_golden_model(sim, preset, seed, cycles):
    vec = vectors(preset, seed, _cycles(cycles))
    name = f"{sim}-{preset}"
    facts = run_cocotb(sim, preset, vec, name)
    if facts["failed"] != 0 and sim == "verilator":
        # Replay the failing run with an FST trace (the build has trace support compiled in).
        wfacts = run_cocotb(sim, preset, vec, name + "-waves", waves=True)
        facts["failures"].append(f"(replayed with waves: {wfacts['test_dir'] / 'dump.fst'})")
    print(f"[cocotb] {name}: {_cycles(cycles)} vector cycles + directed test in {facts['seconds']:.1f} s")
    assert facts["failed"] == 0 and facts["tests"] == 2 and facts["exit_code"] == 0, _report(sim, facts)


def test_corrupted_vector_is_detected():
    """The comparison can fail: flip one bitmap bit of one expected beat, expect a failure
    that names that cycle and m_bitmap."""
    sim, preset = "verilator", "small"
    src = vectors(preset, 1, 600)
    doc = json.loads(src.read_text())
    cycles = doc["cycles"]
    # A cycle with a beat whose bitmap is not all zero, past the start: a realistic beat.
    idx = next(i for i, c in enumerate(cycles) if i > 100 and c["out"]["m"] and int(c["out"]["m"]["bitmap"], 16))
    bad = copy.deepcopy(doc)
    bitmap = bad["cycles"][idx]["out"]["m"]["bitmap"]
    width = len(bitmap) * 4
    bad["cycles"][idx]["out"]["m"]["bitmap"] = f"{int(bitmap, 16) ^ (1 << 5):0{len(bitmap)}x}"
    bad_path = OUT / preset / "vectors-corrupted.json"
    bad_path.write_text(json.dumps(bad))

    facts = run_cocotb(sim, preset, bad_path, "corrupted", waves=True, testcase="golden_vectors")
    msg = "\n".join(facts["failures"])
    assert facts["tests"] == 1 and facts["failed"] == 1, "a corrupted expectation was not detected:\n" + _report(sim, facts)
    assert facts["exit_code"] != 0, _report(sim, facts)
    assert f"cycle {idx} " in msg and "m_bitmap" in msg and "[5]" in msg, msg
    assert width == 256
    assert (facts["test_dir"] / "dump.fst").exists(), "the failing Verilator run left no FST"
    print(f"[cocotb] corrupted vector at cycle {idx} detected in {facts['seconds']:.1f} s")
