"""Every cocotb test belongs to one block, and `MRNIC_COCOTB_SHARD=i/2` runs only the tests of
shard i's blocks (scripts/test.sh runs the two shards side by side on the 2-core machine).

A shard is a set of blocks, never a split of one block's tests: each (simulator, block,
preset) build folder, Verilog folder, vector file and run folder under target/cocotb/ is then
written by one pytest process only (common/runner.py generates and builds once per process).
The block is the `block` parameter of `test_block`, else the test's `@pytest.mark.block(...)`;
the tests of test_cocotb_common.py (readers, generators, the AXI-Stream fixture) are `common`.
A test with no block is refused at collection, sharded or not.
"""

from __future__ import annotations

import os

import pytest

BLOCKS = {"sack", "parser", "rtx", "path", "place_chk", "fbuf", "placement", "realign", "ackgen", "conn_chk", "ackjoin",
          "cmpl", "common"}
# Measured on the 2-core machine: about 200 s and 190 s of the whole run's ~390 s. conn_chk
# (shard 1, the shorter one) adds ~9 s warm, ~30 s with its Verilator build (docs/cocotb.md).
# ackjoin goes to shard 1 too: by the per-block figures of docs/cocotb.md it is still the
# shorter one warm (~100-115 s against ~175-250 s; the cold builds are about even); it adds
# ~12 s warm, ~16 s with its two Verilator builds through ccache, ~45 s without ccache.
# cmpl goes to shard 1 too (its block and run are ackjoin's size): it adds ~14 s warm (13.6-16 s
# with the machine loaded), ~15 s with its two Verilator builds through ccache, 72-86 s
# without ccache (two builds of ~30-38 s).
SHARDS = [{"sack", "parser", "fbuf", "realign", "ackgen", "common"},
          {"rtx", "path", "place_chk", "placement", "conn_chk", "ackjoin", "cmpl"}]
assert set().union(*SHARDS) == BLOCKS and sum(map(len, SHARDS)) == len(BLOCKS)


def pytest_configure(config):
    config.addinivalue_line("markers", "block(name): the block whose build and files the test uses (conftest.py)")


def block_of(item) -> str:
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "block" in callspec.params:
        block = callspec.params["block"]
    elif (m := item.get_closest_marker("block")) is not None:
        block = m.args[0]
    elif item.module.__name__ == "test_cocotb_common":
        block = "common"
    else:
        raise pytest.UsageError(f"{item.nodeid}: no block: add @pytest.mark.block(NAME) (conftest.py)")
    if block not in BLOCKS:
        raise pytest.UsageError(f"{item.nodeid}: block {block!r} is not one of {sorted(BLOCKS)} (conftest.py)")
    return block


def shard() -> int | None:
    spec = os.environ.get("MRNIC_COCOTB_SHARD")
    if not spec:
        return None
    i, _, n = spec.partition("/")
    if not (i.isdigit() and n == str(len(SHARDS)) and int(i) < len(SHARDS)):
        raise pytest.UsageError(f"MRNIC_COCOTB_SHARD={spec!r}: expected 0/{len(SHARDS)} .. {len(SHARDS) - 1}/{len(SHARDS)}")
    return int(i)


def pytest_collection_modifyitems(config, items):
    blocks = [block_of(item) for item in items]
    k = shard()
    if k is None:
        return
    keep = [it for it, b in zip(items, blocks) if b in SHARDS[k]]
    drop = [it for it, b in zip(items, blocks) if b not in SHARDS[k]]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
