"""Clock, reset and sampling helpers shared by the block testbenches.

Cycle convention (the same as `mrnic vectors`): inputs are driven at the falling edge (after
the previous rising edge), outputs are sampled in the same cycle once settled (1 ns later, in
the ReadOnly phase), before the next rising edge.
"""

from __future__ import annotations

from collections import deque

from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, Timer

CLOCK_NS = 10


def start_clock(dut, clock: str = "clock") -> None:
    """Clock low now, first rising edge half a period later (no X->1 edge at time 0)."""
    h = getattr(dut, clock)
    h.value = 0
    Clock(h, CLOCK_NS, unit="ns").start(start_high=False)


async def settle() -> None:
    """Let the inputs written at the falling edge propagate, then sample (read-only phase)."""
    await Timer(1, unit="ns")
    await ReadOnly()


async def next_cycle(dut, clock: str = "clock") -> None:
    """Wait for the next falling edge: the point where a cycle's inputs are driven."""
    await FallingEdge(getattr(dut, clock))


def read(handle) -> int | str:
    """The value of a port as an int, or its string (e.g. with X/Z bits) if it does not resolve."""
    v = handle.value
    if not v.is_resolvable:
        return str(v)
    return v.to_unsigned() if hasattr(v, "to_unsigned") else int(v)


def fmt(v: int | str | None, width: int = 0) -> str:
    """Hex with every digit of `width` (a non-int, e.g. an X string, as is)."""
    if v is None or isinstance(v, str):
        return str(v)
    digits = max(1, (width + 3) // 4) if width else 1
    return f"0x{v:0{digits}x}"


def mask(handle) -> int:
    return (1 << len(handle)) - 1


def drive(dut, values: dict[str, int]) -> None:
    """Drive input ports by name, truncated to their widths (what the hardware sees)."""
    for name, v in values.items():
        h = getattr(dut, name)
        h.value = int(v) & mask(h)


async def reset(dut, cycles: int = 2, rst: str = "rst", idle: dict[str, int] | None = None,
                during=None) -> None:
    """Hold `rst` high for `cycles` cycles with the `idle` input values, then release it (the
    cycle after, inputs idle, outputs settled, is the first out of reset). `during(dut)` runs
    in every reset cycle once the outputs have settled (checks of the reset behaviour)."""
    for _ in range(cycles):
        await next_cycle(dut)
        drive(dut, {**(idle or {}), rst: 1})
        await settle()
        if during is not None:
            during(dut)
    await next_cycle(dut)
    drive(dut, {**(idle or {}), rst: 0})
    await settle()


def zero_memories(dut, paths: list[str]) -> dict[str, tuple[int, int]]:
    """Write 0 into every word of the memories at `paths` (dotted, e.g. "ram_base.mem").

    For state a block relies on being zero at power-up (FPGA block RAM powers up zeroed):
    Verilator starts memories at 0, Icarus at X. Returns {path: (words, words that were X/Z)}.
    """
    out = {}
    for path in paths:
        h = dut
        for part in path.split("."):
            h = getattr(h, part)
        words = list(h)
        unknown = sum(1 for w in words if not w.value.is_resolvable)
        for w in words:
            w.value = 0
        out[path] = (len(words), unknown)
        dut._log.info("%s: %d words zeroed (%d were X/Z at power-up)", path, len(words), unknown)
    return out


def read_outputs(dut, always, payload=()) -> dict:
    """The ports named in `always` and `payload`, by name."""
    return {n: read(getattr(dut, n)) for n in (*always, *payload)}


def compare_outputs(what: str, got: dict, want: dict, always, payload, recent=(), show=str) -> None:
    """Every port of `always`, and those of `payload` while the reference's `m_valid` is 1, of
    `got` (the DUT) against `want` (a Python reference); on a difference an AssertionError
    naming each port (expected, actual) and the inputs of the `recent` cycles (oldest first,
    each formatted by `show`)."""
    names = [*always, *(payload if want["m_valid"] == 1 else ())]
    bad = [(n, want[n], got.get(n)) for n in names if got.get(n) != want[n]]
    if bad:
        lines = [f"{what}: {len(bad)} output(s) differ from the Python reference (expected, actual):"]
        lines += [f"  {n}: {fmt(w)} {fmt(g)}" for n, w, g in bad]
        lines += [f"  inputs {len(recent) - k - 1} cycle(s) before: {show(x)}" for k, x in enumerate(recent)]
        raise AssertionError("\n".join(lines))


class RefBench:
    """A directed test's bench: drives one cycle at a time (the inputs not given at `idle`) and
    compares every output of the DUT with a cycle-level Python reference every cycle.
    `ref.step(inputs)` gives the reference's outputs of the cycle, `outputs(dut)` reads the
    DUT's and `compare(what, got, want, recent)` raises on a difference (e.g. through
    `compare_outputs`). The first cycle must have `rst` high: before the first reset edge the
    DUT holds an earlier test's state. `recent` keeps the last 4 cycles' inputs for the
    message; `cycles` counts the cycles driven."""

    def __init__(self, dut, ref, idle: dict[str, int], outputs, compare) -> None:
        self.dut, self.ref, self.idle = dut, ref, idle
        self._outputs, self._compare = outputs, compare
        self.recent: deque = deque(maxlen=4)
        self.cycles = 0

    async def tick(self, values: dict | None = None) -> dict:
        """One cycle with `values` (the other inputs idle): the DUT's outputs, checked."""
        i = {**self.idle, **(values or {})}
        await next_cycle(self.dut)
        drive(self.dut, i)
        await settle()
        self.recent.append(i)
        want = self.ref.step(i)
        got = self._outputs(self.dut)
        if self.cycles == 0:
            assert i["rst"] == 1, "the directed test starts with rst"
        else:
            self._compare(f"directed cycle {self.cycles}", got, want, self.recent)
        self.cycles += 1
        return got
