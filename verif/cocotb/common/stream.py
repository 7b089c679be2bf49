"""Valid/ready streams: a source (drives an input stream), a sink (drives an output stream's
ready) and a monitor (records transfers and checks the handshake rules), with idle and
backpressure generators.

A stream is described as in the manifest and the vectors header:
`{"name": "s", "dir": "input", "valid": "s_valid", "ready": "s_ready", "payload": [...]}`.

Generators are infinite iterators of bools, consumed once per clock cycle; True means "hold
back this cycle" (a source stays idle, a sink holds ready low). They are seeded, so a run is
reproducible from its seed.

Handshake rules checked by the monitor (the AXI-Stream rules): a transfer happens in a cycle
with valid = 1 and ready = 1; once valid is 1 it stays 1, with the same payload, until the
transfer; valid is never X/Z outside reset.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from typing import Callable, Iterable, Iterator

from .tb import fmt, mask, next_cycle, read, settle

# ------------------------------------------------------------------ generators


def never() -> Iterator[bool]:
    """Never hold back: full rate."""
    return itertools.repeat(False)


def pattern(seq: Iterable[int | bool]) -> Iterator[bool]:
    """A repeating pattern, e.g. pattern([0, 0, 1]): hold back every third cycle."""
    seq = [bool(x) for x in seq]
    if not seq:
        raise ValueError("pattern() needs at least one element")
    return itertools.cycle(seq)


def random_hold(seed: int, p: float) -> Iterator[bool]:
    """Hold back each cycle independently with probability p (seeded)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"random_hold: p = {p} is not a probability")
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


def bursts(seed: int, run: tuple[int, int], hold: tuple[int, int]) -> Iterator[bool]:
    """Alternating runs of free cycles and of held cycles, lengths uniform in the given ranges
    (inclusive): long stalls, which a per-cycle coin rarely makes."""
    rng = random.Random(seed)
    while True:
        yield from itertools.repeat(False, rng.randint(*run))
        yield from itertools.repeat(True, rng.randint(*hold))


def phases(*parts: tuple[int, Iterator[bool]]) -> Iterator[bool]:
    """(cycles, generator) segments one after the other, the whole sequence repeated."""
    while True:
        for n, gen in parts:
            yield from itertools.islice(gen, n)


# -------------------------------------------------------------------- handles


class _Stream:
    def __init__(self, dut, stream: dict):
        self.dut = dut
        self.name = stream["name"]
        self.valid = getattr(dut, stream["valid"])
        self.ready = getattr(dut, stream["ready"])
        self.payload = {n: getattr(dut, n) for n in stream["payload"]}
        self.cycle = -1


class StreamSource(_Stream):
    """Offers queued transactions (dicts of payload values) on an input stream.

    `idle` decides, in every cycle where no offer is pending, whether the source stays idle
    (valid = 0) although it has data. An offer is held until it is taken. `on_transfer(txn,
    cycle)` is called for every transfer. `reset_active()` (optional) says whether the cycle is
    in reset (no transfer counts then). While idle, the payload keeps the last offer's values.
    """

    def __init__(self, dut, stream: dict, idle: Iterator[bool] | None = None,
                 on_transfer: Callable[[dict, int], None] | None = None,
                 reset_active: Callable[[], bool] | None = None):
        super().__init__(dut, stream)
        self.idle = idle or never()
        self.queue: deque[dict] = deque()
        self.current: dict | None = None
        self.on_transfer = on_transfer
        self.reset_active = reset_active or (lambda: False)
        self.transfers = 0
        self.idle_cycles = 0  # data queued, valid held low by the generator
        self.stalled_cycles = 0  # valid high, not taken

    def send(self, txn: dict) -> None:
        missing = set(self.payload) - set(txn)
        if missing:
            raise ValueError(f"{self.name}: transaction {txn} lacks payload field(s) {sorted(missing)}")
        self.queue.append(txn)

    @property
    def busy(self) -> bool:
        return self.current is not None or bool(self.queue)

    async def run(self) -> None:
        while True:
            await next_cycle(self.dut)
            self.cycle += 1
            hold = next(self.idle)
            if self.current is None and self.queue:
                if hold:
                    self.idle_cycles += 1
                else:
                    self.current = self.queue.popleft()
                    for n, h in self.payload.items():
                        h.value = int(self.current[n]) & mask(h)
            self.valid.value = int(self.current is not None)
            await settle()
            if self.current is not None:
                if read(self.ready) == 1 and not self.reset_active():
                    self.transfers += 1
                    txn, self.current = self.current, None
                    if self.on_transfer:
                        self.on_transfer(txn, self.cycle)
                else:
                    self.stalled_cycles += 1


class StreamSink(_Stream):
    """Drives the ready of an output stream: low in the cycles where `backpressure` says hold."""

    def __init__(self, dut, stream: dict, backpressure: Iterator[bool] | None = None):
        super().__init__(dut, stream)
        self.backpressure = backpressure or never()
        self.held_cycles = 0

    async def run(self) -> None:
        while True:
            await next_cycle(self.dut)
            self.cycle += 1
            hold = next(self.backpressure)
            self.held_cycles += hold
            self.ready.value = int(not hold)


class HandshakeError(AssertionError):
    pass


class StreamMonitor(_Stream):
    """Watches a stream every cycle: records each transfer (payload dict) and checks the
    handshake rules. `on_transfer(txn, cycle)` is called for every transfer. Violations raise
    HandshakeError (failing the test) and are kept in `errors`."""

    def __init__(self, dut, stream: dict, on_transfer: Callable[[dict, int], None] | None = None,
                 reset_active: Callable[[], bool] | None = None):
        super().__init__(dut, stream)
        self.on_transfer = on_transfer
        self.reset_active = reset_active or (lambda: False)
        self.transfers = 0
        self.waiting_cycles = 0  # valid = 1, ready = 0
        self.errors: list[str] = []
        self._pending: dict | None = None  # an offer not taken in the previous cycle

    def _fail(self, msg: str) -> None:
        msg = f"stream {self.name}, cycle {self.cycle}: {msg}"
        self.errors.append(msg)
        raise HandshakeError(msg)

    async def run(self) -> None:
        while True:
            await next_cycle(self.dut)
            self.cycle += 1
            await settle()
            if self.reset_active():
                self._pending = None
                continue
            v, r = read(self.valid), read(self.ready)
            if v not in (0, 1) or r not in (0, 1):
                self._fail(f"{self.valid._name}={v} {self.ready._name}={r}: X/Z on a handshake signal")
            if self._pending is not None:
                if v != 1:
                    self._fail(f"{self.valid._name} dropped before the offer was taken "
                               f"(offered {self._pending}, not taken)")
                now = {n: read(h) for n, h in self.payload.items()}
                if now != self._pending:
                    diff = {n: (fmt(self._pending[n], len(self.payload[n])), fmt(now[n], len(self.payload[n])))
                            for n in now if now[n] != self._pending[n]}
                    self._fail(f"payload changed while valid and not ready (before, after): {diff}")
            if v == 1:
                txn = {n: read(h) for n, h in self.payload.items()}
                if r == 1:
                    self._pending = None
                    self.transfers += 1
                    if self.on_transfer:
                        self.on_transfer(txn, self.cycle)
                else:
                    self._pending = txn
                    self.waiting_cycles += 1
            else:
                self._pending = None


# ------------------------------------------------------------------ a whole random run


def default_idle(seed: int) -> Iterator[bool]:
    """The source idle phases the block tests share: full rate, a per-cycle coin, a fixed
    pattern, long pauses (seeds seed+1, seed+2)."""
    return phases((300, never()), (300, random_hold(seed + 1, 0.4)), (200, pattern([0, 1])),
                  (300, bursts(seed + 2, (1, 30), (5, 40))))


def default_backpressure(seed: int) -> Iterator[bool]:
    """The sink backpressure phases the block tests share: full rate, a per-cycle coin, a
    fixed pattern, long stalls, nearly always held (seeds seed+3..seed+5)."""
    return phases((200, never()), (300, random_hold(seed + 3, 0.3)), (200, pattern([0, 0, 1])),
                  (300, bursts(seed + 4, (1, 20), (10, 60))), (100, random_hold(seed + 5, 0.9)))


async def check_ready_equation(dut, s_ready: str = "s_ready", m_valid: str = "m_valid", m_ready: str = "m_ready") -> None:
    """Runs forever (cancel it): every cycle, `s_ready == !(m_valid && !m_ready)` (a block
    whose only stall is its output's backpressure)."""
    cyc = 0
    while True:
        await next_cycle(dut)
        await settle()
        s, v, r = read(getattr(dut, s_ready)), read(getattr(dut, m_valid)), read(getattr(dut, m_ready))
        assert s == int(not (v == 1 and r == 0)), f"cycle {cyc}: {s_ready}={s} with {m_valid}={v} {m_ready}={r}"
        cyc += 1


async def run_until_drained(dut, busy: Callable[[], bool], watchers: list, limit: int, tail: int,
                            progress: Callable[[], str]) -> int:
    """Clocks until `busy()` is false (the source has sent everything and the scoreboard
    expects nothing more), failing after `limit` cycles with `progress()`, or stopping
    early once one of `watchers` (objects with `errors`: scoreboards, monitors) has an
    error; then `tail` more cycles (nothing may come out after the last result). Returns
    the cycles until drained. The caller cancels its tasks and checks the errors."""
    cycles = 0
    while busy():
        await next_cycle(dut)
        cycles += 1
        assert cycles < limit, f"no progress after {cycles} cycles: {progress()}"
        if any(w.errors for w in watchers):
            break
    for _ in range(tail):
        await next_cycle(dut)
    return cycles
