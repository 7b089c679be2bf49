"""In-order, per-stream transaction scoreboard.

A reference (the block's Python model) calls `expect(stream, txn)` for what must come out;
the monitor of the DUT's output calls `observe(stream, txn)`. Transactions are dicts of payload
values by port name and must match in order, field by field. The first mismatch raises (so the
test fails at the cycle it happens, with a field diff); `finish()` also fails on transactions
still expected.
"""

from __future__ import annotations

from collections import Counter, deque

from .tb import fmt


class ScoreboardError(AssertionError):
    pass


class Scoreboard:
    def __init__(self, log=None, widths: dict[str, int] | None = None):
        self.log = log
        self.widths = widths or {}
        self.expected: dict[str, deque] = {}
        self.matched: Counter = Counter()
        self.errors: list[str] = []

    def expect(self, stream: str, txn: dict, note: str = "") -> None:
        self.expected.setdefault(stream, deque()).append((txn, note))

    def _fail(self, msg: str) -> None:
        self.errors.append(msg)
        raise ScoreboardError(msg)

    def observe(self, stream: str, txn: dict, cycle: int | None = None) -> None:
        where = f"stream {stream}" + (f", cycle {cycle}" if cycle is not None else "")
        q = self.expected.get(stream)
        if not q:
            self._fail(f"{where}: unexpected transaction {self._show(txn)} (nothing expected; "
                       f"{self.matched[stream]} matched before)")
        want, note = q.popleft()
        diff = {k: (fmt(want.get(k), self.widths.get(k, 0)), fmt(txn.get(k), self.widths.get(k, 0)))
                for k in sorted(set(want) | set(txn)) if want.get(k) != txn.get(k)}
        if diff:
            lines = [f"{where}: transaction {self.matched[stream]} differs from the reference"
                     + (f" ({note})" if note else "") + "; (expected, actual):"]
            lines += [f"  {k}: {e} {a}" for k, (e, a) in diff.items()]
            self._fail("\n".join(lines))
        self.matched[stream] += 1

    def pending(self) -> int:
        return sum(len(q) for q in self.expected.values())

    def finish(self) -> None:
        left = {s: len(q) for s, q in self.expected.items() if q}
        if self.errors:
            raise ScoreboardError(self.errors[0])
        if left:
            first = {s: self._show(q[0][0]) for s, q in self.expected.items() if q}
            raise ScoreboardError(f"transactions expected but never seen: {left}; first: {first}")

    def _show(self, txn: dict) -> str:
        return "{" + ", ".join(f"{k}={fmt(v, self.widths.get(k, 0))}" for k, v in txn.items()) + "}"
