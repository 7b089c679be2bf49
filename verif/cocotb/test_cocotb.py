"""pytest entry point: every block's cocotb tests on the generated Verilog, on Verilator and
Icarus (docs/cocotb.md).

    source ~/.cache/mrnic-tools/env.sh && python -m pytest verif/cocotb -q -p no:cacheprovider

Per session and preset, `mrnic gen` (sack) or `mrnic vectors --block B --rtl` (the other blocks)
writes the Verilog and the manifest, `mrnic vectors` the golden model's vectors and `mrnic
frames` the parser's frames (common/runner.py); each (simulator, block, preset) is built once
and runs the block's cocotb module `<block>/test_<block>.py`.
"""

from __future__ import annotations

import json
import os

import pytest

from common import runner
from common.runner import OUT, read_jsonl, report, run_cocotb, vectors

# Sizes chosen so that the whole run stays under ~5 minutes on the 2-core reference machine
# (measured figures in docs/cocotb.md). MRNIC_COCOTB_SCALE multiplies the vector cycles and
# the random operations (0.1 for a smoke run, 10 for a soak).
SCALE = float(os.environ.get("MRNIC_COCOTB_SCALE", "1"))
RUNS = [
    # (block, simulator, preset, seed, vector cycles, random operations)
    ("sack", "verilator", "small", 1, 8000, 2000),
    ("sack", "verilator", "default", 2, 8000, 2000),
    ("sack", "icarus", "small", 3, 4000, 1000),
    ("sack", "icarus", "default", 4, 4000, 1000),
    ("sack", "icarus", "ice40", 5, 4000, 1000),
    # parser: random operations = random frames of `mrnic frames`
    ("parser", "verilator", "small", 11, 6000, 300),
    ("parser", "icarus", "small", 12, 3000, 150),
    # rtx: Verilator only (Icarus ran ~520 cycles in 1199 s); random operations = cycles of
    # the no-reset vectors whose ops the randomized test replays
    ("rtx", "verilator", "tiny", 21, 6000, 3000),
    # path: Verilator only, like rtx; random operations = cycles of the no-reset vectors
    ("path", "verilator", "tiny", 31, 8000, 6000),
    # place_chk: Verilator only, like rtx and path; random operations = cycles of the no-reset
    # vectors whose config writes and requests the randomized test replays
    ("place_chk", "verilator", "tiny", 41, 20000, 12000),
    # fbuf: the sizes do not depend on the preset; random operations = frames of the
    # cocotbext-axi test
    ("fbuf", "verilator", "tiny", 51, 20000, 300),
    # placement: the sizes do not depend on the preset; random operations = commands of the
    # cocotbext-axi AxiRamWrite test
    ("placement", "verilator", "tiny", 61, 20000, 300),
    # realign: the sizes do not depend on the preset; random operations = commands (one frame
    # each) of the cocotbext-axi test
    ("realign", "verilator", "tiny", 71, 20000, 300),
    # ackgen: Verilator; random operations = cycles of the randomized run (its Python
    # reference is first checked on no-reset vectors of as many cycles)
    ("ackgen", "verilator", "core", 81, 20000, 6000),
    # conn_chk: Verilator, like place_chk; random operations = cycles of the no-reset vectors
    # whose config writes and requests the randomized test replays (its Python reference is
    # first checked on both vector files)
    ("conn_chk", "verilator", "tiny", 91, 10000, 6000),
    # ackjoin: Verilator only (Icarus ran 67 cycles in 900 s), preset core (256 connections,
    # a 256-bit bitmap); random operations = cycles of the no-reset vectors whose transfers
    # the randomized test offers again (its Python reference is first checked on both vector
    # files), and a quarter of that in packets in each of its two Python-made traffic segments
    ("ackjoin", "verilator", "core", 119, 10000, 6000),
    # cmpl: Verilator, preset core (256 connections, msg_window 4); random operations = cycles
    # of the no-reset vectors whose ops the randomized test offers again (its Python reference
    # is first checked on both vector files), and a third of that in ops in each of its two
    # Python-made traffic segments. Seed 150: its vectors still hold records at
    # MRNIC_COCOTB_SCALE=0.1 (after its power-up reset the kit may reopen all 256 connections,
    # 1280 cycles, first) and its replay has a reset mid-run
    ("cmpl", "verilator", "core", 150, 10000, 6000),
]
TESTS = {
    "sack": ["vector_replay", "directed_semantics", "random_backpressure"],
    "parser": ["vector_replay", "directed_frames", "random_frames_backpressure"],
    "rtx": ["vector_replay", "directed_semantics", "random_backpressure"],
    "path": ["vector_replay", "directed_semantics", "random_backpressure"],
    "place_chk": ["vector_replay", "directed_semantics", "random_backpressure"],
    "fbuf": ["vector_replay", "directed_semantics", "random_frames_backpressure"],
    "placement": ["vector_replay", "axi_ram_random_commands"],
    "realign": ["vector_replay", "directed_semantics", "random_backpressure"],
    "ackgen": ["vector_replay", "directed_semantics", "random_backpressure"],
    "conn_chk": ["vector_replay", "directed_semantics", "random_backpressure"],
    "ackjoin": ["vector_replay", "directed_semantics", "random_backpressure"],
    "cmpl": ["vector_replay", "directed_semantics", "random_backpressure"],
}


def _n(x: int) -> int:
    return max(50, int(x * SCALE))


def _env(block: str, preset: str, vec, seed: int, ops: int) -> dict[str, str]:
    _, entry = runner.block(block, preset)
    env = {"MRNIC_VECTORS": str(vec), "MRNIC_SEED": str(seed), "MRNIC_RANDOM_OPS": str(ops)}
    params = entry.get("parameters", {})
    if "connections" in params:
        env["MRNIC_CONNECTIONS"] = str(params["connections"])
    if "head_on" in params:
        env["MRNIC_HEAD_ON"] = str(params["head_on"])
    if block == "fbuf":
        env.update({"MRNIC_DEPTH": str(params["depth_beats"]), "MRNIC_MAX_BEATS": str(params["max_beats"]),
                    "MRNIC_FRAMES_HELD": str(params["frames"])})
    if block == "placement":
        env["MRNIC_MAX_BEATS"] = str(params["max_beats"])
    if block == "conn_chk":
        env["MRNIC_PATHS"] = str(params["paths"])
    if block == "ackjoin":
        env["MRNIC_WINDOW"] = str(params["window"])
    if block == "cmpl":
        env["MRNIC_MSG_WINDOW"] = str(params["msg_window"])
    if block == "ackgen":
        env.update({f"MRNIC_{k.upper()}": str(params[k]) for k in ("paths", "ack_every", "ack_timeout", "fifo_depth")})
    if block == "parser":
        env["MRNIC_FRAMES"] = str(runner.frames(seed, ops))
    if block in ("rtx", "path", "place_chk", "ackgen", "conn_chk", "ackjoin", "cmpl"):
        env["MRNIC_RANDOM_VECTORS"] = str(vectors(block, preset, seed + 1000, ops, no_resets=True))
    return env


@pytest.mark.parametrize("block,sim,preset,seed,cycles,ops", RUNS,
                         ids=[f"{b}-{s}-{p}" for b, s, p, *_ in RUNS])
def test_block(block, sim, preset, seed, cycles, ops):
    vec = vectors(block, preset, seed, _n(cycles))
    name = f"{block}-{sim}-{preset}"
    facts = run_cocotb(sim, block, preset, name, _env(block, preset, vec, seed, _n(ops)))
    if facts["failed"] != 0 and sim == "verilator":
        # Replay the failing run with an FST trace (on the build with trace support, made now).
        wfacts = run_cocotb(sim, block, preset, name + "-waves", _env(block, preset, vec, seed, _n(ops)), waves=True)
        facts["failures"].append(f"(replayed with waves: {wfacts['test_dir'] / 'dump.fst'})")
    print(f"[cocotb] {name}: {_n(cycles)} vector cycles, directed, {_n(ops)} random operations in {facts['seconds']:.1f} s")
    assert facts["failed"] == 0 and facts["exit_code"] == 0, report(sim, facts)
    assert sorted(facts["passed"]) == sorted(TESTS[block]), f"ran {facts['passed']}, expected {TESTS[block]}\n" + report(sim, facts)


@pytest.mark.block("sack")
def test_corrupted_vector_is_detected():
    """The replay can fail: flip one bit of one expected m_bitmap, expect a failure that names
    that cycle, m_bitmap and the bit, and (Verilator) an FST."""
    block, sim, preset = "sack", "verilator", "small"
    header, cycles = read_jsonl(vectors(block, preset, 1, 600))
    # A beat with a non-empty bitmap, past the start: a realistic beat.
    idx = next(i for i, c in enumerate(cycles)
               if i > 100 and c["out"]["m_valid"] == 1 and int(c["out"]["m_bitmap"], 16))
    bitmap = cycles[idx]["out"]["m_bitmap"]
    assert bitmap.startswith("0x") and len(bitmap) == 2 + 64, bitmap
    cycles[idx]["out"]["m_bitmap"] = f"0x{int(bitmap, 16) ^ (1 << 5):064x}"
    bad = OUT / preset / "vectors-corrupted.jsonl"
    bad.write_text("\n".join(json.dumps(x) for x in [header, *cycles]) + "\n")

    facts = run_cocotb(sim, block, preset, "corrupted", {"MRNIC_VECTORS": str(bad)}, waves=True,
                       testcase="vector_replay")
    msg = "\n".join(facts["failures"])
    assert facts["tests"] == 1 and facts["failed"] == 1, "a corrupted expectation was not detected:\n" + report(sim, facts)
    assert facts["exit_code"] != 0, report(sim, facts)
    assert f"cycle {idx} " in msg and "m_bitmap" in msg and "[5]" in msg, msg
    assert (facts["test_dir"] / "dump.fst").exists(), "the failing Verilator run left no FST"
    print(f"[cocotb] corrupted vector at cycle {idx} detected in {facts['seconds']:.1f} s")


def _corrupt_and_replay(block: str, preset: str, seed: int, n: int, pick, port: str, bit: int, label: str):
    """Flips bit `bit` of the expected `port` in the first cycle `pick(index, cycle)` selects
    (past the header's settle cycles) of a copy of the block's vectors, replays it on
    Verilator and asserts that vector_replay fails naming that cycle, the port and the bit.
    Returns the cycle and the run's facts."""
    sim = "verilator"
    header, cycles = read_jsonl(vectors(block, preset, seed, n))
    settle = int(header.get("settle", 0))
    idx = next(i for i, c in enumerate(cycles) if i > max(settle, 100) and pick(i, c))
    width = next(int(p["width"]) for p in header["ports"] if p["name"] == port)
    old = cycles[idx]["out"][port]
    if isinstance(old, str):
        cycles[idx]["out"][port] = f"0x{int(old, 16) ^ (1 << bit):0{(width + 3) // 4}x}"
    else:
        cycles[idx]["out"][port] = old ^ (1 << bit)
    bad = OUT / preset / f"vectors-{label}.jsonl"
    bad.write_text("\n".join(json.dumps(x) for x in [header, *cycles]) + "\n")
    env = {**_env(block, preset, bad, seed, 50), "MRNIC_VECTORS": str(bad)}
    facts = run_cocotb(sim, block, preset, label, env, testcase="vector_replay")
    msg = "\n".join(facts["failures"])
    assert facts["tests"] == 1 and facts["failed"] == 1, f"a corrupted {port} was not detected:\n" + report(sim, facts)
    assert facts["exit_code"] != 0, report(sim, facts)
    assert f"cycle {idx} " in msg and port in msg, msg
    if width > 32:
        assert f"[{bit}]" in msg, msg
    return idx, facts


@pytest.mark.block("parser")
def test_corrupted_parser_record_is_detected():
    """The parser's replay can fail: one bit of one expected header record's PSN flipped."""
    idx, facts = _corrupt_and_replay("parser", "small", 11, 1500, lambda i, c: c["out"]["m_hdr_valid"] == 1,
                                     "m_hdr_psn", 3, "corrupted-parser")
    print(f"[cocotb] corrupted parser record at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("rtx")
def test_corrupted_rtx_result_is_detected():
    """The retransmit queue's replay can fail: one bit of one expected SEND result's PSN flipped."""
    idx, facts = _corrupt_and_replay("rtx", "tiny", 21, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_op"] == 1 and c["out"]["m_ok"] == 1,
                                     "m_psn", 0, "corrupted-rtx")
    print(f"[cocotb] corrupted rtx result at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("path")
def test_corrupted_path_result_is_detected():
    """The path table's replay can fail: one bit of one expected SELECT data result's path PSN flipped."""
    idx, facts = _corrupt_and_replay("path", "tiny", 31, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_op"] == 2 and c["out"]["m_kind"] == 1,
                                     "m_ppsn", 0, "corrupted-path")
    print(f"[cocotb] corrupted path result at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("ackgen")
def test_corrupted_ackgen_result_is_detected():
    """The ACK generator's replay can fail: one bit of one expected timer ACK's ack_delay flipped."""
    idx, facts = _corrupt_and_replay("ackgen", "core", 81, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_timer"] == 1,
                                     "m_ack_delay", 3, "corrupted-ackgen")
    print(f"[cocotb] corrupted ackgen result at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("place_chk")
def test_corrupted_place_chk_vector_is_detected():
    """The placement checks' replay can fail: one bit of one expected ok WRITE's window end
    (m_wlen) flipped."""
    idx, facts = _corrupt_and_replay("place_chk", "tiny", 41, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_ok"] == 1 and c["out"]["m_wlen"] > 1,
                                     "m_wlen", 0, "corrupted-place_chk")
    print(f"[cocotb] corrupted place_chk vector at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("conn_chk")
def test_corrupted_conn_chk_vector_is_detected():
    """The connection checks' replay can fail: bit 0 of one expected wrong-peer result's
    reason flipped (2 -> 3, wrong P_Key)."""
    idx, facts = _corrupt_and_replay("conn_chk", "tiny", 91, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_reason"] == 2,
                                     "m_reason", 0, "corrupted-conn_chk")
    print(f"[cocotb] corrupted conn_chk vector at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("ackjoin")
def test_corrupted_ackjoin_vector_is_detected():
    """The ACK join's replay can fail: bit 200 of one expected timer ACK's bitmap (the RAM
    row it carries; the fourth 64-bit word of the 256-bit m_bitmap at preset core) flipped."""
    idx, facts = _corrupt_and_replay("ackjoin", "core", 119, 1500,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_timer"] == 1,
                                     "m_bitmap", 200, "corrupted-ackjoin")
    print(f"[cocotb] corrupted ackjoin vector at cycle {idx} detected in {facts['seconds']:.1f} s")


@pytest.mark.block("cmpl")
def test_corrupted_cmpl_vector_is_detected():
    """The completion unit's replay can fail: bit 4 of one expected WriteError record's byte
    count (the bytes a failed SEND had written) flipped."""
    idx, facts = _corrupt_and_replay("cmpl", "core", 150, 8000,
                                     lambda i, c: c["out"]["m_valid"] == 1 and c["out"]["m_status"] == 1,
                                     "m_bytes", 4, "corrupted-cmpl")
    print(f"[cocotb] corrupted cmpl vector at cycle {idx} detected in {facts['seconds']:.1f} s")


def _mutant_run(block: str, sim: str, preset: str, mutant: str, testcase: str, *,
                vec: tuple[int, int], env_seed: int, n_random: int) -> tuple[dict, str]:
    """Runs one cocotb testcase of `block` (on `sim`, at `preset`) on a copy of its generated
    Verilog with the kit's mutant `mutant` applied (`mrnic mutants --block B`: its pattern
    must occur once), with the vectors `vec` = (seed, cycles), and asserts that it failed.
    Returns the run's facts and its failure messages."""
    frm, to = runner.kit_mutant(block, mutant)
    label = f"mutant-{block}-{mutant}"
    src, _ = runner.block(block, preset)
    good = src.read_text()
    assert good.count(frm) == 1, f"the mutant's pattern {frm!r} must occur once in {src}: update this test"
    bad = OUT / preset / f"{label}.v"
    bad.write_text(good.replace(frm, to))
    vectors_file = vectors(block, preset, *vec)
    facts = run_cocotb(sim, block, preset, label, _env(block, preset, vectors_file, env_seed, n_random),
                       testcase=testcase, source=bad)
    assert facts["tests"] == 1 and facts["failed"] == 1, f"the mutant survived {testcase}:\n" + report(sim, facts)
    return facts, "\n".join(facts["failures"])


@pytest.mark.block("place_chk")
def test_corrupted_place_chk_result_is_detected():
    """The placement checks' replay can fail on the RTL: a copy of the generated Verilog whose
    region end compare is off by one (the kit's mutant region_end_off_by_one: a WRITE ending
    one byte past its region passes) must fail vector_replay at a result."""
    facts, msg = _mutant_run("place_chk", "verilator", "tiny", "region_end_off_by_one", "vector_replay",
                             vec=(41, _n(20000)), env_seed=41, n_random=50)
    assert "differ from the golden model" in msg and "m_ok" in msg and "m_nak" in msg, msg
    print(f"[cocotb] place_chk region-end mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("conn_chk")
def test_corrupted_conn_chk_stall_is_detected():
    """The connection checks' randomized test can fail on the RTL, and its backpressure
    matters: a copy of the generated Verilog whose stalled stage A reads the table again
    instead of holding the row it read at the transfer (the kit's mutant
    stale_row_after_rewrite: visible only while m_ready holds a result) must fail
    random_backpressure at a result. On Icarus, as realign's mutant (a build well under a
    second instead of a second Verilator build); the unmutated Verilog first passes the same
    run on Icarus, so the failure is the mutant's, not the simulator's. Fixed sizes (not
    MRNIC_COCOTB_SCALE), so that a smoke run still reaches the stall that shows the mutant
    (cycle 361 of the replay at seed 91)."""
    block, sim, preset, seed, n = "conn_chk", "icarus", "tiny", 91, 2000
    env = _env(block, preset, vectors(block, preset, seed, n), seed, n)
    good = run_cocotb(sim, block, preset, "conn_chk-icarus-unmutated", env, testcase="random_backpressure")
    assert good["failed"] == 0 and good["passed"] == ["random_backpressure"], \
        "the unmutated Verilog fails on Icarus:\n" + report(sim, good)
    facts, msg = _mutant_run(block, sim, preset, "stale_row_after_rewrite", "random_backpressure",
                             vec=(seed, n), env_seed=seed, n_random=n)
    assert "differ from the Python reference" in msg and "m_reason" in msg, msg
    print(f"[cocotb] conn_chk stale-row mutant caught in {facts['seconds']:.1f} s (unmutated run "
          f"{good['seconds']:.1f} s): {msg.splitlines()[0]}")


@pytest.mark.block("ackjoin")
def test_corrupted_ackjoin_stall_is_detected():
    """The ACK join's randomized test can fail on the RTL, and its backpressure matters: a copy
    of the generated Verilog whose stage A, holding a timer ACK behind a stalled output,
    re-reads the row of the entry offered instead of its own (the kit's mutant
    held_timer_reads_the_next_row: visible only while m_ready holds an ACK) must fail
    random_backpressure at a timer ACK's base or bitmap. On Verilator (on Icarus the block
    ran 67 cycles in 900 s; this second build takes a few seconds through ccache). Fixed
    sizes (not MRNIC_COCOTB_SCALE), so that a smoke run still reaches the stall that shows
    the mutant (cycle 1041 of the run at seed 119)."""
    seed, n = 119, 2000
    facts, msg = _mutant_run("ackjoin", "verilator", "core", "held_timer_reads_the_next_row", "random_backpressure",
                             vec=(seed, n), env_seed=seed, n_random=n)
    assert "differ from the Python reference" in msg and ("m_base" in msg or "m_bitmap" in msg), msg
    print(f"[cocotb] ackjoin held-timer mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("cmpl")
def test_corrupted_cmpl_stall_is_detected():
    """The completion unit's randomized test can fail on the RTL, and its backpressure matters:
    a copy of the generated Verilog whose walk completes the next SEND while the output
    register still holds a record not taken (the kit's mutant walk_overwrites_a_stalled_record:
    visible only while m_ready holds a record) must fail random_backpressure at a record. On
    Verilator, as the block's run. Fixed sizes (not MRNIC_COCOTB_SCALE), so that a smoke run
    still reaches the stall that shows the mutant; the block run's replay vectors (after its
    power-up reset the kit may reopen every connection first: 2000 cycles may hold too few
    records to check the Python reference on)."""
    seed, n = 150, 2000
    facts, msg = _mutant_run("cmpl", "verilator", "core", "walk_overwrites_a_stalled_record", "random_backpressure",
                             vec=(seed, 10000), env_seed=seed, n_random=n)
    # (the walk's record overwritten: the first output to differ is the record or the count
    # of messages, whichever the stall shows first)
    assert "differ from the Python reference" in msg and ("m_msn" in msg or "stat_msgs" in msg), msg
    print(f"[cocotb] cmpl stalled-walk mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("cmpl")
def test_corrupted_cmpl_arbiter_is_detected():
    """The completion unit's directed test can fail on its input arbiter: a copy of the
    generated Verilog that raises the fatal port's ready whenever it is valid, also in a cycle
    in which the write port is taken (the kit's mutant arbiter_fatal_ready_while_wr_is_taken:
    the fatal op is lost at its source) must fail directed_semantics at s_fatal_ready (scenario
    M: the three ports valid at once)."""
    seed = 150
    facts, msg = _mutant_run("cmpl", "verilator", "core", "arbiter_fatal_ready_while_wr_is_taken", "directed_semantics",
                             vec=(seed, 2000), env_seed=seed, n_random=50)
    assert "differ from the Python reference" in msg and "s_fatal_ready" in msg, msg
    print(f"[cocotb] cmpl arbiter mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("fbuf")
def test_corrupted_fbuf_release_is_detected():
    """The frame buffer's cocotbext-axi test can fail on the RTL: a copy of the generated
    Verilog whose read side does not skip a refused frame (the kit's mutant
    refused_frame_not_skipped: its beats leave as the next frame's) must fail
    random_frames_backpressure at a received frame."""
    facts, msg = _mutant_run("fbuf", "verilator", "tiny", "refused_frame_not_skipped", "random_frames_backpressure",
                             vec=(51, _n(2000)), env_seed=51, n_random=_n(100))
    assert "bytes received" in msg, msg
    print(f"[cocotb] fbuf refused-frame mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("realign")
def test_corrupted_realign_shift_is_detected():
    """The realigner's cocotbext-axi test can fail on the RTL: a copy of the generated Verilog
    whose byte shift is one byte short (the kit's mutant shift_off_by_one_byte: every output
    beat takes the wrong lanes) must fail random_backpressure at an output beat. On Icarus
    (the module runs on both): its build takes well under a second where a second Verilator
    build takes 16-29 s on the shared 2-core machine, which keeps `-k realign` well under a
    minute."""
    facts, msg = _mutant_run("realign", "icarus", "tiny", "shift_off_by_one_byte", "random_backpressure",
                             vec=(71, _n(2000)), env_seed=71, n_random=_n(100))
    assert "differs from the reference" in msg and "m_axis_tdata" in msg, msg
    print(f"[cocotb] realign shift mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("placement")
def test_corrupted_placement_strobe_is_detected():
    """The placement unit's AxiRamWrite test can fail on the RTL: a copy of the generated
    Verilog whose last beat enables every lane (the kit's mutant last_beat_strobe_full: bytes
    past the command's end are written) must fail axi_ram_random_commands on the RAM's bytes."""
    facts, msg = _mutant_run("placement", "verilator", "tiny", "last_beat_strobe_full", "axi_ram_random_commands",
                             vec=(61, _n(2000)), env_seed=61, n_random=_n(100))
    assert "RAM bytes differ" in msg, msg
    print(f"[cocotb] placement last-strobe mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


def _caught_mutant(mutant: str, env_seed: int, env_cycles: int, testcase: str) -> tuple[dict, str]:
    """`_mutant_run` on the SACK engine (Icarus, small preset; a kit mutant, as
    verif/tests/sack_diff.rs runs them)."""
    return _mutant_run("sack", "icarus", "small", mutant, testcase, vec=(1, 600), env_seed=env_seed,
                       n_random=env_cycles)


@pytest.mark.block("sack")
def test_random_test_catches_a_bug_seen_only_under_backpressure():
    """The randomized test can fail, and its backpressure matters: in a mutant whose stalled
    RAM-read stage re-reads with the input's connection instead of its own (a bug visible only
    while m_ready holds a beat), the scoreboard must report a beat that differs from Ref."""
    facts, msg = _caught_mutant("stalled_stage_does_not_reread", 6, 600, "random_backpressure")
    assert "differs from the reference" in msg and ("m_base" in msg or "m_bitmap" in msg), msg
    print(f"[cocotb] stall mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


@pytest.mark.block("sack")
def test_directed_test_catches_an_engine_that_records_uncommitted_packets():
    """The directed test's uncommitted case can fail: in a mutant whose advance ignores
    s_commit, the uncommitted packet at the base advances the base."""
    facts, msg = _caught_mutant("uncommitted_packet_advances_the_base", 7, 200, "directed_semantics")
    assert "uncommitted at the base op 1" in msg and "commit=0" in msg and "m_base" in msg, msg
    print(f"[cocotb] uncommitted-recorded mutant caught in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")


def _parser_mutant(mutant: str, testcase: str, n_random: int) -> str:
    """Runs one parser cocotb testcase (Icarus, small) on the generated Verilog with the kit's
    mutant `mutant` (verif/src/blocks/parser) applied and asserts that it failed; returns the
    failure messages."""
    facts, msg = _mutant_run("parser", "icarus", "small", mutant, testcase, vec=(12, 200), env_seed=12,
                             n_random=n_random)
    print(f"[cocotb] {mutant} caught by {testcase} in {facts['seconds']:.1f} s: {msg.splitlines()[0]}")
    return msg


@pytest.mark.block("parser")
def test_random_frames_catch_a_parser_that_drops_a_record_not_taken():
    """The parser's randomized test can fail, and its backpressure matters: in the mutant
    record_dropped_when_not_ready the output register empties whether or not m_hdr_ready took
    the record, which only m_hdr_ready backpressure can show."""
    msg = _parser_mutant("record_dropped_when_not_ready", "random_frames_backpressure", 100)
    assert "m_hdr" in msg and ("dropped before the offer was taken" in msg or "differs from the reference" in msg
                               or "expected but never seen" in msg), msg


@pytest.mark.block("parser")
def test_directed_frames_catch_a_parser_whose_mac_error_loses_its_priority():
    """The parser's directed test can fail on the RTL: in the mutant of
    verif/src/blocks/parser (mac_error_loses_its_priority) a frame with tuser on a beat is given
    the bad-tkeep verdict; directed_frames must fail at the first such frame, naming it and both
    counters."""
    msg = _parser_mutant("mac_error_loses_its_priority", "directed_frames", 50)
    assert "tuser on beat 2" in msg and "stat_drop_mac_error +1" in msg and "stat_drop_bad_keep" in msg, msg
