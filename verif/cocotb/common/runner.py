"""The pytest side of the cocotb tests: generate the Verilog and the vectors with `mrnic`, build
each (simulator, block, preset) once per session, run a block's cocotb module, report.

Everything generated goes under target/cocotb/ (see docs/cocotb.md for the layout).
"""

from __future__ import annotations

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

from .manifest import block_entry

COCOTB = Path(__file__).resolve().parents[1]  # verif/cocotb
REPO = COCOTB.parents[1]
OUT = REPO / "target" / "cocotb"
SETUP_HINT = "run `bash scripts/setup.sh` then `source ~/.cache/mrnic-tools/env.sh`"
MIN_VERILATOR = (5, 36)

try:
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner
except ImportError as e:  # pragma: no cover - environment problem, reported at collection
    raise ImportError(f"cocotb 2.x is not importable from {sys.executable}: {SETUP_HINT}") from e

# The cocotb modules (`<block>.test_<block>`, `common.*`) must be importable by the simulator's
# embedded Python, which gets this process's sys.path as PYTHONPATH.
if str(COCOTB) not in sys.path:
    sys.path.insert(0, str(COCOTB))


@functools.cache
def check_tool(sim: str) -> None:
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
        raise ValueError(f"unknown simulator {sim!r} (verilator, icarus)")


def mrnic(*args: str) -> str:
    """`mrnic ARGS` through cargo (dev profile: `cargo test` has built it already), or the
    binary named by MRNIC_BIN; returns its standard output."""
    if os.environ.get("MRNIC_BIN"):
        cmd = [os.environ["MRNIC_BIN"], *args]
    else:
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.fail("cargo is not on PATH (the Verilog and the vectors come from `mrnic`)", pytrace=False)
        cmd = [cargo, "run", "-q", "-p", "mrnic-gen", "--", *args]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"`{' '.join(cmd)}` failed ({r.returncode}) in {REPO}:\n{r.stdout}\n{r.stderr}", pytrace=False)
    return r.stdout


@functools.cache
def kit_mutant(block_name: str, name: str) -> tuple[str, str]:
    """The kit's mutant `name` of `block_name` (`mrnic mutants --block B`, the table the
    differential test runs): the pattern in the generated Verilog and its replacement."""
    rows = json.loads(mrnic("mutants", "--block", block_name))
    for m in rows:
        if m["name"] == name:
            return m["from"], m["to"]
    pytest.fail(f"{block_name} has no kit mutant {name!r} (it has: {', '.join(m['name'] for m in rows)})", pytrace=False)


# One generation per preset / vector set per session, shared by all tests.


@functools.cache
def rtl(preset: str) -> Path:
    """`mrnic gen` of `preset`: the directory with every block's Verilog and manifest.json."""
    out = OUT / preset / "rtl"
    mrnic("gen", "--preset", preset, "--out", str(out))
    return out


@functools.cache
def block_rtl(block_name: str, preset: str) -> Path:
    """`mrnic vectors --block B --rtl DIR`: the directory with just that block's Verilog and a
    manifest listing it (works for every block `mrnic vectors` knows, whether or not
    `mrnic gen` lists it)."""
    out = OUT / preset / f"rtl-{block_name}"
    mrnic("vectors", "--block", block_name, "--preset", preset, "--rtl", str(out))
    return out


def block(block_name: str, preset: str) -> tuple[Path, dict]:
    """The Verilog file and manifest entry of a block of `preset` (sack: from `mrnic gen`;
    the other blocks: from `mrnic vectors --rtl`)."""
    d = rtl(preset) if block_name == "sack" else block_rtl(block_name, preset)
    return block_entry(d / "manifest.json", block_name)


@functools.cache
def vectors(block_name: str, preset: str, seed: int, cycles: int, no_resets: bool = False) -> Path:
    out = OUT / preset / f"vectors-{block_name}-s{seed}-c{cycles}{'-noreset' if no_resets else ''}.jsonl"
    mrnic("vectors", "--block", block_name, "--preset", preset, "--seed", str(seed), "--cycles", str(cycles),
          *(["--no-resets"] if no_resets else []), "--out", str(out))
    return out


@functools.cache
def frames(seed: int, n_random: int) -> Path:
    """`mrnic frames`: the parser's directed and `n_random` random frames with their verdicts."""
    out = OUT / "frames" / f"frames-s{seed}-r{n_random}.json"
    mrnic("frames", "--seed", str(seed), "--random", str(n_random), "--out", str(out))
    return out


def drop_build_products(build_dir: Path) -> None:
    """Remove what the C++ build left beside the simulation executable: objects, archives and
    the two precompiled headers (~70 MB each for a wide block). The executable is all
    `runner.test` runs; without this the build folders grow by gigabytes over a test run."""
    for p in build_dir.rglob("*"):
        if p.is_file() and p.suffix in (".o", ".a", ".gch"):
            p.unlink()


# Blocks with an AXI4 master whose ids are constants tied off at integration (so the generated
# module has no `awid` / `bid`): cocotbext-axi's slave models require both signals, so these
# blocks run under a generated pass-through top, `tb_<module>`, that adds a 1-bit `<prefix>_awid`
# output (0) and a `<prefix>_bid` input (unused). Every other port keeps its name.
AXI_ID_SHIM = {"placement": "m_axi"}


@functools.cache
def toplevel(block_name: str, preset: str) -> tuple[tuple[Path, ...], str]:
    """The sources and the top module the block's cocotb tests run on (the shim, if any, is
    written once per session)."""
    src, entry = block(block_name, preset)
    prefix = AXI_ID_SHIM.get(block_name)
    if prefix is None:
        return (src,), entry["module"]
    top = f"tb_{entry['module']}"
    shim = src.parent / f"{top}.v"
    decl, conn = [], []
    for p in entry["ports"]:
        w = int(p["width"])
        rng = f" [{w - 1}:0]" if w > 1 else ""
        decl.append(f"    {'input' if p['direction'] == 'input' else 'output'} wire{rng} {p['name']}")
        conn.append(f"        .{p['name']}({p['name']})")
    decl += [f"    output wire {prefix}_awid", f"    input wire {prefix}_bid"]
    shim.write_text(
        f"// Generated by verif/cocotb/common/runner.py (AXI_ID_SHIM): {entry['module']} with the AXI id\n"
        f"// signals cocotbext-axi requires; the block's ids are constants tied off at integration.\n"
        f"module {top} (\n" + ",\n".join(decl) + "\n);\n"
        f"    assign {prefix}_awid = 1'b0;\n"
        f"    {entry['module']} dut (\n" + ",\n".join(conn) + "\n    );\n"
        f"endmodule\n")
    return (src, shim), top


@functools.cache
def use_ccache() -> None:
    """Compile the Verilator builds through ccache: Verilator's makefiles prefix every compile
    with `$(OBJCACHE)`, and the cocotb runner passes this process's environment to `make`.
    OBJCACHE=ccache when it is not set and `ccache` is on PATH (`OBJCACHE=` turns it off);
    CCACHE_BASEDIR defaults to the repository. The Verilator runtime (verilated*.cpp), the same
    in every build, then compiles once; without ccache the builds run as before."""
    if "OBJCACHE" not in os.environ and shutil.which("ccache"):
        os.environ["OBJCACHE"] = "ccache"
    if os.environ.get("OBJCACHE"):
        os.environ.setdefault("CCACHE_BASEDIR", str(REPO))


@functools.cache
def built(sim: str, block_name: str, preset: str, source: Path | None = None, traced: bool = False):
    """A cocotb runner with the block's Verilog (or `source`, e.g. a mutant of it, with the same
    module and ports) built for `sim` (once per session). Verilator builds have no trace
    support unless `traced` (the replay of a failing run with waves builds that variant then)."""
    check_tool(sim)
    sources, top = toplevel(block_name, preset)
    if source is not None:  # the block's file replaced, the shim kept
        sources = (source, *sources[1:])
    runner = get_runner(sim)
    build_args = []
    waves = False
    if sim == "verilator":
        # rust-hdl writes 32'h.. literals: WIDTH warnings (reviewed for lint in
        # verif/lint/waivers.vlt) must not stop the simulation build. `-CFLAGS -O1` comes
        # after the Makefile's `-Os` and wins: the rtx at `tiny` builds in 97 s instead of
        # 129 s and runs its 6000 vector cycles and 3000 random operations in 17 s instead
        # of 15 (at -O0: 49 s and 76 s) on the shared 2-core machine. FST trace support
        # (`--trace-fst`) doubles the generated C++, so only the `traced` variant has it.
        build_args = ["-Wno-fatal", "-Wno-WIDTH", "-CFLAGS", "-O1"]
        use_ccache()
        if traced:
            build_args.append("--trace-fst")
            waves = True
    t0 = time.perf_counter()
    name = f"{sim}-{block_name}-{preset}" + (f"-{source.stem}" if source else "") + ("-traced" if traced else "")
    runner.build(
        sources=list(sources),
        hdl_toplevel=top,
        build_dir=OUT / "build" / name,
        timescale=("1ns", "1ps"),
        build_args=build_args,
        waves=waves,
        log_file=OUT / "build" / f"{name}.log",
    )
    if sim == "verilator":
        drop_build_products(OUT / "build" / name)
    print(f"[cocotb] built {name} in {time.perf_counter() - t0:.1f} s")
    return runner


def run_cocotb(sim: str, block_name: str, preset: str, name: str, env: dict[str, str], *,
               waves: bool = False, testcase: str | None = None, source: Path | None = None) -> dict:
    """Run `<block>/test_<block>.py` on `sim`; never raises on a failing cocotb test, returns
    the facts: seconds, exit_code, tests, failed, failures (messages), results, log, test_dir.
    With `waves` on Verilator, the run uses the build with trace support (made the first time)."""
    runner = built(sim, block_name, preset, source, traced=waves and sim == "verilator")
    _, entry = block(block_name, preset)
    _, top = toplevel(block_name, preset)
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
            hdl_toplevel=top,
            test_module=f"{block_name}.test_{block_name}",
            testcase=testcase,
            test_dir=test_dir,
            results_xml=str(results),  # absolute: allowed under pytest
            extra_env={"MRNIC_LATENCY": str(entry["latency"]), **env},
            waves=waves,
            log_file=log,
            timescale=("1ns", "1ps"),
        )
    except SystemExit as e:  # the runner exits when a test fails or the simulator dies
        exit_code = e.code if isinstance(e.code, int) else 1
    except RuntimeError as e:
        exit_code = -1
        print(f"[cocotb] runner error: {e}")
    facts = {"seconds": time.perf_counter() - t0, "exit_code": exit_code, "results": results, "log": log,
             "test_dir": test_dir, "tests": 0, "failed": None, "failures": [], "passed": []}
    try:
        facts["tests"], facts["failed"] = get_results(results)
    except RuntimeError as e:
        facts["failures"].append(str(e))
        return facts
    for tc in ElementTree.parse(results).getroot().iter("testcase"):
        bad = list(tc.iter("failure")) + list(tc.iter("error"))
        for b in bad:
            facts["failures"].append(f"{tc.get('name')}: {b.get('message')}")
        if not bad:
            facts["passed"].append(tc.get("name"))
    return facts


def tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return f"(no {path})"


def report(sim: str, facts: dict) -> str:
    wave = facts["test_dir"] / "dump.fst"
    return (f"{sim}: exit code {facts['exit_code']}, {facts['tests']} cocotb tests, {facts['failed']} failed\n"
            + "\n".join(facts["failures"])
            + f"\nresults: {facts['results']}\nlog: {facts['log']}"
            + (f"\nwaves: {wave}" if wave.exists() else "")
            + f"\n--- log tail ---\n{tail(facts['log'])}")


def read_jsonl(path: Path) -> tuple[dict, list[dict]]:
    """A whole vectors file (for tests that edit one; the replay itself streams)."""
    with open(path) as f:
        header = json.loads(f.readline())
        return header, [json.loads(line) for line in f]
