"""cocotb tests of the completion unit's generated Verilog (block `cmpl`, module `mrnic_cmpl`).

Run through pytest (verif/cocotb/test_cocotb.py), which generates the Verilog (`mrnic vectors
--block cmpl --rtl`) and the golden-model vectors and points this module at them:
MRNIC_VECTORS (the replay vectors; their header also gives the configuration),
MRNIC_RANDOM_VECTORS (vectors without random resets: the Python reference is checked on them,
and the randomized test offers their ops again with its own timing), MRNIC_LATENCY,
MRNIC_CONNECTIONS and MRNIC_MSG_WINDOW (the manifest's parameters `connections`,
`msg_window`), MRNIC_SEED, MRNIC_RANDOM_OPS (the no-reset vectors' cycles; a third of it is
the ops of each Python-made traffic segment of the randomized test).

Contract under test (the RTL header hdl/src/cmpl.rs, the block model
mrnic_model::transport::cmpl::Cmpl and its cycle shell CmplShell)
------------------------------------------------------------------------------------------
Three input ports, each a valid/ready stream, taken by a fixed-priority arbiter one op per
take: `s_wr` (a write's completion, the placement unit's completion port as it is:
`s_wr_tag` 95 bits = `WrDone::tag`, connection 12 (its low CB bits used), MSN 32, packet
offset 24, LAST, SEND, SSN 24, SE, least significant first; `s_wr_bytes` 16; `s_wr_resp` 2,
the `bresp`, OKAY only when 0: a Done), then `s_fatal` (`s_fatal_conn` CB, `s_fatal_msn` 32:
a Fatal), then `s_open` (`s_open_conn`, `s_open_msn`: an Open). When the unit can take an op
(below) the first valid port in that order is taken, and only its ready is high (at most one
ready per cycle; none while busy, in reset, or with a record waiting that `m_ready` does not
take). Per connection: next MSN, the fatal
message (if any) and a failed SEND's SSN; per connection and message row (`msg_window` rows,
row `MSN mod msg_window`): packets written, bytes, the last offset (from the LAST packet),
SEND, SSN, SE (from the LAST packet). A Done of message `k = msn - next` (32-bit) with
`k >= msg_window` is counted in `stat_stray` and changes nothing. A Done OKAY counts the
packet in its row; a row is complete when its last offset is known and `packets == last + 1`;
when the head row (k = 0) completes, it and every complete row behind it complete in order
(`stat_msgs`), a SEND with a record on `m` (status 0; `m_bytes` the row's bytes, `m_ssn`
its SSN, `m_solicited` its LAST packet's SE; `stat_cmpls`), a WRITE silently, each row
cleared and the next MSN moved on; the walk ends at the first incomplete row, with the
failed SEND's record (`m_status` 1, the bytes written before, `m_solicited` 0) if that row is
the fatal message and a SEND failed there. A Done with an error response (`stat_write_errors`)
and a Fatal make their message the connection's fatal one if it is earlier than the current
one (or there is none), a failed SEND remembering its SSN; a failed SEND at the head
completes at once. Open sets the next MSN, clears the fatal state and every row.
Timing (L = the manifest's latency, 4 by the RTL header: the RAMs' two-cycle read, then
one READ cycle of registers, between the take and the execute cycle; P = L - 2 the RAMs'
read latency): one op at a time; taken in t (the unit can take when !rst & idle & (output
register empty | `m_ready`): the readies are combinational from `m_ready` and the valids),
executed in t + L - 1, its record offered
from t + L; a walk goes on with a step every P cycles, at t + L - 1 + P, t + L - 1 + 2P, ...
(a step, SEND or WRITE, that finds the output register full and not taken tries again P
cycles later; the walk's last step, at an incomplete row, gives the failed SEND's record if
there is one); II L for an op that completes nothing, L + P per further message and P for
the walk's last step, 1 + msg_window for Open (clearing from t + 1). Counters counted at the
event, shown from the next cycle (32-bit).
Reset (synchronous): every ready and `m_valid` low while `rst` is high; the state machine, the
output register and the counters are cleared, the RAMs keep their rows (zero at power-up)
and are not written in a cycle with `rst`: an op in flight is dropped whole, a walk stops
between two rows, an Open may be left half done.

`CmplRef` below is a cycle-level Python reference written from that contract (the order of
CmplShell::step), `Cmpl` the untimed block model (the records depend only on the order of the
ops, not on the timing). The three tests share one simulation: the RAMs keep what an earlier
test wrote, so the later tests open every connection they use first (an Open at MSN 0 is the
power-up state), and `vector_replay`, whose model starts from the power-up RAMs, must run
first.

Tests
-----
* `vector_replay`: the kit's seeded stimulus (power-up prologue; messages of 1 to 4 packets,
  sometimes up to 40, SEND or WRITE, their write responses in random order within and across
  messages on hot or random connections; failed writes, fatal refusals, stray responses,
  LAST packets with a far-out offset (a message that never completes), Opens after a fatal
  event, sink stalls, rare resets followed by Opens) through the model,
  every output every cycle after the header's settle.
* `directed_semantics`: hand-written expectations (every record's cycle and fields, the
  takes, the readies and the counters written out; every output of every cycle also compared
  with `CmplRef`), each scenario named for what it proves: messages complete in MSN order,
  once each, only after every packet's write response (the LAST one first; across the MSN
  wrap; SE from the LAST packet); a WRITE completes silently but holds back a later SEND; a
  failed SEND at the head completes at once with m_status 1 and the bytes written before
  (later messages never; the write port's ready follows `m_ready` while its record waits); a failed SEND
  behind the head completes when the walk reaches it; a later fatal event does not replace
  an earlier failed SEND, an earlier one does; a response outside the window (ahead, behind,
  failed) is counted in stat_stray and changes nothing; Open clears the rows and the fatal
  state (II 1 + msg_window); a walk over several complete messages across MSN 2^31 waits
  while m_ready is low (a WRITE row too waits behind a held record), loses nothing; the
  arbiter: the three ports valid at once, the write port taken first and again while it keeps
  coming, the fatal port held meanwhile and taken when the write port is empty, the open port
  last, only the taken port's ready high, none while busy or while a record waits with
  m_ready low, and the fatal op and the open taking effect (a failed write answered EXOKAY
  counted as an error); reset drops an op in flight whole, and a held record with the walk
  behind it (the rows walked stay walked). When a scenario checks when the unit takes an op
  again after its last op, a probe (a Fatal of an otherwise unused connection) is offered:
  a ready is high only for a port taken.
* `random_backpressure`: `CmplRef` and `Cmpl` checked on both vector files (every output,
  every cycle); then, on the DUT and `CmplRef` side by side (every output every cycle, the
  handshake rules on `m`): every connection opened at MSN 0 and a reset (the power-up
  state), the ops the model took in the no-reset vectors offered again with idle phases and
  `m_ready` backpressure, one at a time on its port (the records in order equal to the
  model's), then two segments of Python-made traffic (hot connections, walk phases whose
  head response comes last, failed writes (bresp SLVERR, EXOKAY or DECERR), fatal refusals
  before and after them, in some phases in bursts, strays, Opens), each after the pool's
  Opens, offered from three sources at once, one per port, each with its own idle phases
  (each connection's ops in the order made; across connections the arbiter's order), the
  first cut by a reset while a walk holds behind a waiting record; the records of each
  segment equal to `Cmpl`'s of the ops in the order taken, the counters to the ones it
  counts; floors on takes with two and with three ports valid, on the fatal port waiting
  while the write port is taken and on the open port waiting.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter, deque
from dataclasses import dataclass, replace
from typing import NamedTuple

import cocotb
from cocotb.utils import get_sim_time

from common.stream import StreamMonitor, default_backpressure, default_idle
from common.tb import RefBench, compare_outputs, drive, fmt, next_cycle, read_outputs, settle, start_clock
from common.vectors import read_header, replay_block_vectors

LATENCY = int(os.environ.get("MRNIC_LATENCY", "0"))
# random_backpressure's floors for the arbiter's cases (for 6000 ops, scaled like the others)
FLOOR_TWO, FLOOR_THREE, FLOOR_FATAL_HELD, FLOOR_OPEN_HELD = 120, 4, 25, 100
M16, M24, M32 = (1 << 16) - 1, (1 << 24) - 1, (1 << 32) - 1
OP_DONE, OP_FATAL, OP_OPEN = 0, 1, 2  # an op's kind (this file's own code)
# An op as this file writes it (a "logical" op dict; `port_values` turns it into the port
# values of the one input port it goes to: a Done to s_wr, a Fatal to s_fatal, an Open to
# s_open). `s_resp` (optional) is a failed Done's bresp (2 SLVERR when absent).
OP_FIELDS = ("s_op", "s_conn", "s_msn", "s_len", "s_off", "s_last", "s_send", "s_ssn", "s_solicited", "s_ok")
# The input ports, in the arbiter's priority order: valid, ready and fields of each.
PORTS = ("wr", "fatal", "open")
VALID = {p: f"s_{p}_valid" for p in PORTS}
READY = {p: f"s_{p}_ready" for p in PORTS}
FIELDS = {"wr": ("s_wr_tag", "s_wr_bytes", "s_wr_resp"), "fatal": ("s_fatal_conn", "s_fatal_msn"),
          "open": ("s_open_conn", "s_open_msn")}
PORT_OF = {OP_DONE: "wr", OP_FATAL: "fatal", OP_OPEN: "open"}
WR_TAG_BITS = 95  # mrnic_model::transport::cmpl::WR_TAG_BITS
OUT_FIELDS = ("m_conn", "m_msn", "m_ssn", "m_bytes", "m_solicited", "m_status")
COUNTERS = ("stat_msgs", "stat_cmpls", "stat_write_errors", "stat_stray")
ALWAYS = (*READY.values(), "m_valid", *COUNTERS)
IDLE = {"rst": 0, **{VALID[p]: 0 for p in PORTS}, **{f: 0 for p in PORTS for f in FIELDS[p]}, "m_ready": 1}


def tag(conn: int, msn: int, off: int, last: int, send: int, ssn: int, sol: int) -> int:
    """`WrDone::tag`: connection 12, MSN 32, offset 24, LAST, SEND, SSN 24, SE, least
    significant first (95 bits)."""
    return ((conn & 0xFFF) | (msn & M32) << 12 | (off & M24) << 44 | (last & 1) << 68 | (send & 1) << 69
            | (ssn & M24) << 70 | (sol & 1) << 94)


def port_values(op: dict) -> dict:
    """The port values of logical op `op` on its port (that port's valid 1)."""
    kind = op["s_op"]
    if kind == OP_DONE:
        resp = op.get("s_resp", 0 if op["s_ok"] else 2)
        return {"s_wr_valid": 1, "s_wr_tag": tag(op["s_conn"], op["s_msn"], op["s_off"], op["s_last"], op["s_send"],
                                                  op["s_ssn"], op["s_solicited"]),
                "s_wr_bytes": op["s_len"], "s_wr_resp": resp}
    p = PORT_OF[kind]
    return {VALID[p]: 1, f"s_{p}_conn": op["s_conn"], f"s_{p}_msn": op["s_msn"]}


def taken_op(i: dict, port: str) -> dict:
    """The logical op that port `port` carries in the inputs `i` (the write tag unpacked as
    `WrDone::from_tag` does; OKAY is bresp 0)."""
    if port == "wr":
        t, resp = _int(i["s_wr_tag"]), _int(i["s_wr_resp"]) & 3
        f = lambda at, bits: (t >> at) & ((1 << bits) - 1)  # noqa: E731
        return {"s_op": OP_DONE, "s_conn": f(0, 12), "s_msn": f(12, 32), "s_len": _int(i["s_wr_bytes"]) & M16,
                "s_off": f(44, 24), "s_last": f(68, 1), "s_send": f(69, 1), "s_ssn": f(70, 24),
                "s_solicited": f(94, 1), "s_ok": int(resp == 0), "s_resp": resp}
    return {"s_op": OP_FATAL if port == "fatal" else OP_OPEN, "s_conn": _int(i[f"s_{port}_conn"]),
            "s_msn": _int(i[f"s_{port}_msn"]), "s_len": 0, "s_off": 0, "s_last": 0, "s_send": 0, "s_ssn": 0,
            "s_solicited": 0, "s_ok": 1}


def grant(i: dict, can: bool) -> str | None:
    """The port the arbiter takes: the first valid one in priority order, if the unit can take."""
    if not can:
        return None
    return next((p for p in PORTS if _int(i[VALID[p]]) & 1), None)


class Sizes(NamedTuple):
    connections: int
    msg_window: int

    @property
    def cmask(self) -> int:
        return self.connections - 1


def sizes(dut=None) -> Sizes:
    """The block's sizes: the manifest's parameters (MRNIC_CONNECTIONS, MRNIC_MSG_WINDOW),
    checked against the vectors' header and, given the DUT, its port widths."""
    z = Sizes(int(os.environ["MRNIC_CONNECTIONS"]), int(os.environ["MRNIC_MSG_WINDOW"]))
    assert z.connections >= 16 and z.connections & z.cmask == 0, z
    assert z.msg_window >= 2 and z.msg_window & (z.msg_window - 1) == 0, z
    conf = read_header(os.environ["MRNIC_VECTORS"])["config"]
    assert (conf["connections"], conf["transport"]["msg_window"]) == z, f"the manifest says {z}, the vectors {conf}"
    if dut is not None:
        cb = z.connections.bit_length() - 1
        w = (len(dut.s_fatal_conn), len(dut.s_open_conn), len(dut.m_conn), len(dut.s_fatal_msn), len(dut.s_open_msn),
             len(dut.m_msn), len(dut.s_wr_tag), len(dut.s_wr_bytes), len(dut.s_wr_resp), len(dut.m_bytes))
        assert w == (cb, cb, cb, 32, 32, 32, WR_TAG_BITS, 16, 2, 32), f"port widths {w} for {z}"
    return z


def _int(v) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


# --------------------------------------------------------------------- Python reference


class Op(NamedTuple):
    """An op as the block sees it (each field cut to its port's width)."""

    kind: int  # OP_DONE, OP_FATAL, OP_OPEN
    conn: int
    msn: int
    len: int
    off: int
    last: bool
    send: bool
    ssn: int
    sol: bool
    ok: bool


def decode(i: dict, z: Sizes) -> Op:
    """The op of logical op dict `i`."""
    kind = i["s_op"]
    return Op(kind, i["s_conn"] & z.cmask, i["s_msn"] & M32, i["s_len"] & M16, i["s_off"] & M24, bool(i["s_last"] & 1),
              bool(i["s_send"] & 1), i["s_ssn"] & M24, bool(i["s_solicited"] & 1), bool(i["s_ok"] & 1))


@dataclass(frozen=True)
class Row:
    packets: int = 0
    bytes: int = 0
    last: int | None = None
    send: bool = False
    ssn: int = 0
    sol: bool = False

    def complete(self) -> bool:
        return self.last is not None and self.packets == (self.last + 1) & M24

    def written(self, d: Op) -> Row:
        """The row after an OKAY response of `d`."""
        return Row((self.packets + 1) & M24, (self.bytes + d.len) & M32, d.off if d.last else self.last, d.send, d.ssn,
                   d.sol if d.last else self.sol)


@dataclass(frozen=True)
class Conn:
    next_msn: int = 0
    fatal: int | None = None
    failed_ssn: int | None = None

    def before_fatal(self, msn: int) -> bool:
        return self.fatal is None or (msn - self.next_msn) & M32 < (self.fatal - self.next_msn) & M32


ZERO_ROW, ZERO_CONN = Row(), Conn()


def record(conn: int, msn: int, ssn: int, nbytes: int, sol: bool, error: bool) -> dict:
    return {"m_conn": conn, "m_msn": msn & M32, "m_ssn": ssn & M24, "m_bytes": nbytes & M32, "m_solicited": int(sol),
            "m_status": int(error)}


class Cmpl:
    """The untimed block model (Cmpl::apply). `known` False: every connection and row unknown
    (None: the RAMs hold what an earlier test wrote) until an Open of the connection; an op of
    a connection not opened fails the reference."""

    def __init__(self, z: Sizes, known: bool = True):
        self.z = z
        self.rows: list[Row | None] = [ZERO_ROW if known else None] * (z.connections * z.msg_window)
        self.conns: list[Conn | None] = [ZERO_CONN if known else None] * z.connections
        self.stats = dict.fromkeys(COUNTERS, 0)

    def copy(self) -> Cmpl:
        g = Cmpl(self.z)
        g.rows, g.conns, g.stats = list(self.rows), list(self.conns), dict(self.stats)
        return g

    def ri(self, conn: int, msn: int) -> int:
        return conn * self.z.msg_window + (msn & (self.z.msg_window - 1))

    def conn(self, c: int) -> Conn:
        s = self.conns[c]
        assert s is not None, (f"an op of connection {c}, not opened since the reference started: the RAMs hold an "
                               f"earlier test's state (open it first)")
        return s

    def row(self, ri: int) -> Row:
        r = self.rows[ri]
        assert r is not None, f"row {ri} read, not written since the reference started (an Open cut by a reset?)"
        return r

    def count(self, name: str, n: int = 1) -> None:
        self.stats[name] += n

    def open(self, c: int, msn: int) -> None:
        self.conns[c] = Conn(msn)
        mw = self.z.msg_window
        self.rows[c * mw:(c + 1) * mw] = [ZERO_ROW] * mw

    def apply(self, op: Op) -> list[dict]:
        """One op; its records in order."""
        out: list[dict] = []
        c = op.conn
        if op.kind == OP_OPEN:
            self.open(c, op.msn)
            return out
        s = self.conn(c)
        if op.kind == OP_FATAL:
            if s.before_fatal(op.msn):
                self.conns[c] = Conn(s.next_msn, op.msn, None)
            return out
        k = (op.msn - s.next_msn) & M32
        if k >= self.z.msg_window:
            self.count("stat_stray")
            return out
        ri = self.ri(c, op.msn)
        if op.ok:
            self.rows[ri] = self.row(ri).written(op)
            if k == 0:
                self.walk(c, out)
        else:
            self.count("stat_write_errors")
            if s.before_fatal(op.msn):
                self.conns[c] = Conn(s.next_msn, op.msn, op.ssn if op.send else None)
                if k == 0:
                    self.failed_send(c, out)
        return out

    def walk(self, c: int, out: list[dict]) -> None:
        while True:
            s = self.conn(c)
            ri = self.ri(c, s.next_msn)
            r = self.row(ri)
            if not r.complete():
                break
            if r.send:
                self.count("stat_cmpls")
                out.append(record(c, s.next_msn, r.ssn, r.bytes, r.sol, False))
            self.count("stat_msgs")
            self.rows[ri] = ZERO_ROW
            self.conns[c] = replace(s, next_msn=(s.next_msn + 1) & M32)
        self.failed_send(c, out)

    def failed_send(self, c: int, out: list[dict]) -> None:
        s = self.conn(c)
        if s.fatal is not None and s.failed_ssn is not None and s.fatal == s.next_msn:
            self.count("stat_cmpls")
            out.append(record(c, s.fatal, s.failed_ssn, self.row(self.ri(c, s.fatal)).bytes, False, True))
            self.conns[c] = replace(s, failed_ssn=None)


class CmplRef:
    """Cycle-level reference: `step(inputs)` returns the outputs of the cycle (every output in
    ALWAYS, the m_* payload while m_valid), then takes its rising edge. States as the RTL's
    `st`: ("idle",), ("read", op, cycles left), ("exec", op), ("wwait", conn, cycles left),
    ("walk", conn), ("clear", conn, msn, j); `o` the output register (a record or None).
    `latency`: an op taken in t spends t + 1 .. t + latency - 2 waiting for its words (the
    RAMs' read latency, then READ's registers) and executes in t + latency - 1; a walk step
    comes every `latency - 2` cycles (the RAMs' read latency: the next row's word is read in
    the cycle of a step and used that many cycles later)."""

    def __init__(self, z: Sizes, known: bool = True, latency: int = LATENCY):
        assert latency >= 2, f"latency {latency}: an op executes at the earliest the cycle after its take"
        self.z = z
        self.reads = latency - 2
        self.period = latency - 2  # cycles from one walk step to the next
        self.g = Cmpl(z, known)
        self.st: tuple = ("idle",)
        self.o: dict | None = None
        self.event = ""  # what the last step did (coverage): "take", "held", "walk_held", ...
        self.taken: str | None = None  # the port taken in the last step

    def idle(self) -> bool:
        return self.st[0] == "idle"

    def walk_next(self, c: int) -> tuple:
        """The state after a walk step (or a retry): the next step `period` cycles later."""
        return ("wwait", c, self.period - 1) if self.period > 1 else ("walk", c)

    def can(self, i: dict) -> bool:
        """The unit can take an op: not in reset, idle, the output register empty or taken."""
        return not i["rst"] and self.idle() and (self.o is None or bool(i["m_ready"]))

    def outputs(self, i: dict) -> dict:
        on = not i["rst"]
        g = grant(i, self.can(i))
        o = {**{READY[p]: int(p == g) for p in PORTS}, "m_valid": int(on and self.o is not None),
             **{k: v & M32 for k, v in self.g.stats.items()}}
        if o["m_valid"]:
            o.update(self.o)
        return o

    def step(self, i: dict) -> dict:
        o = self.outputs(i)
        self.event = ""
        self.taken = None  # the port taken in this cycle
        if i["rst"]:
            self.event = "" if self.idle() else f"rst_in_{self.st[0]}"
            self.st, self.o = ("idle",), None
            self.g.stats = dict.fromkeys(COUNTERS, 0)
            return o
        g, mw = self.g, self.z.msg_window
        o_free = self.o is None or bool(i["m_ready"])
        if self.o is not None and i["m_ready"]:
            self.o = None
        st = self.st
        if st[0] == "idle":
            g = next((p for p in PORTS if o[READY[p]]), None)
            self.taken = g
            if g is not None:
                op = decode(taken_op(i, g), self.z)
                self.st = ("clear", op.conn, op.msn, 0) if op.kind == OP_OPEN else \
                    ("read", op, self.reads) if self.reads else ("exec", op)
                self.event = "take"
        elif st[0] == "read":
            self.st = ("read", st[1], st[2] - 1) if st[2] > 1 else ("exec", st[1])
        elif st[0] == "wwait":
            self.st = ("wwait", st[1], st[2] - 1) if st[2] > 1 else ("walk", st[1])
        elif st[0] == "exec":
            op: Op = st[1]
            c = op.conn
            self.st = ("idle",)
            if op.kind == OP_DONE and op.ok and (op.msn - g.conn(c).next_msn) & M32 < mw:
                s = g.conn(c)
                ri = g.ri(c, op.msn)
                r = g.row(ri).written(op)
                if op.msn == s.next_msn and r.complete():
                    if r.send:
                        g.count("stat_cmpls")
                        self.o = record(c, s.next_msn, r.ssn, r.bytes, r.sol, False)
                    g.count("stat_msgs")
                    g.rows[ri] = ZERO_ROW
                    g.conns[c] = replace(s, next_msn=(s.next_msn + 1) & M32)
                    self.st = self.walk_next(c)
                else:
                    g.rows[ri] = r
            else:
                out = g.apply(op)
                assert len(out) <= 1 and (self.o is None or not out), (out, self.o)
                if out:
                    self.o = out[0]
        elif st[0] == "walk":
            c = st[1]
            s = g.conn(c)
            ri = g.ri(c, s.next_msn)
            r = g.row(ri)
            if r.complete():
                if not o_free:
                    self.event = "walk_held"
                else:
                    if r.send:
                        g.count("stat_cmpls")
                        self.o = record(c, s.next_msn, r.ssn, r.bytes, r.sol, False)
                    self.event = "walk_send" if r.send else "walk_write"
                    g.count("stat_msgs")
                    g.rows[ri] = ZERO_ROW
                    g.conns[c] = replace(s, next_msn=(s.next_msn + 1) & M32)
                self.st = self.walk_next(c)
            elif s.failed_ssn is not None and s.fatal == s.next_msn:
                if o_free:
                    out: list[dict] = []
                    g.failed_send(c, out)
                    self.o = out[0]
                    self.st = ("idle",)
                    self.event = "walk_failed_send"
                else:
                    self.event = "walk_held"
                    self.st = self.walk_next(c)
            else:
                self.st = ("idle",)
        else:  # clear
            _, c, msn, j = st
            if j == 0:
                g.conns[c] = Conn(msn)
            g.rows[c * mw + j] = ZERO_ROW
            self.st = ("idle",) if j + 1 == mw else ("clear", c, msn, j + 1)
        return o


def compare(what: str, got: dict, want: dict, recent=()) -> None:
    """Every output in ALWAYS, the payload while the reference's m_valid is 1."""
    compare_outputs(what, got, want, ALWAYS, OUT_FIELDS, recent, show=lambda x: {n: fmt(_int(v)) for n, v in x.items()})


def outputs(dut, payload: bool = True) -> dict:
    return read_outputs(dut, ALWAYS, OUT_FIELDS if payload else ())


def check_reference(path: str, z: Sizes) -> tuple[int, int]:
    """`CmplRef` (from the power-up RAMs: every row and connection zero) over the vectors at
    `path` (the model's outputs): every output every cycle after the header's settle. Returns
    (cycles, records on m)."""
    header = read_header(path)
    settle_cycles = int(header.get("settle", 0))
    assert int(header["latency"]) == LATENCY, f"{path}: latency {header['latency']}, the manifest says {LATENCY}"
    ref = CmplRef(z)
    n = beats = 0
    recent: deque = deque(maxlen=4)
    with open(path) as f:
        f.readline()
        for n, line in enumerate(f):
            c = json.loads(line)
            recent.append(c["in"])
            want = ref.step(c["in"])
            if n < settle_cycles:
                continue
            beats += want["m_valid"]
            got = {k: _int(v) for k, v in c["out"].items()}
            compare(f"{path}: cycle {n}: the golden model's outputs", got, want, recent)
    return n + 1, beats


def model_transfers(path: str) -> tuple[list[dict], list[dict], dict]:
    """The ops the model took in the (no-reset) vectors at `path`, the records it put out, each
    in order, and the outputs of its last cycle."""
    ops, recs = [], []
    last: dict = {}
    with open(path) as f:
        f.readline()
        for line in f:
            c = json.loads(line)
            i, o = c["in"], c["out"]
            last = o
            if i["rst"]:
                assert not (ops or recs), f"{path}: a reset after the prologue: generate it with --no-resets"
                continue
            for p in PORTS:
                if _int(i[VALID[p]]) & 1 and _int(o[READY[p]]) & 1:
                    ops.append(taken_op(i, p))
            if o["m_valid"] and i["m_ready"]:
                recs.append({k: _int(o[k]) for k in OUT_FIELDS})
    return ops, recs, last


def run_model(g: Cmpl, ops: list[dict]) -> list[dict]:
    """`g.apply` of every op in order: the records in order."""
    out: list[dict] = []
    for op in ops:
        out.extend(g.apply(decode(op, g.z)))
    return out


# ------------------------------------------------------------------------ vector replay


@cocotb.test()
async def vector_replay(dut):
    """The golden model's cycle-by-cycle vectors: every output compared every cycle after settle."""
    sizes(dut)
    assert get_sim_time("ns") == 0, ("vector_replay must run first in its simulation: the model's vectors start "
                                     "from the power-up RAMs (every row zero), which keep their rows only until a test writes them")
    await replay_block_vectors(dut, "cmpl", LATENCY, what="completion record")


# ---------------------------------------------------------------------- directed test


def op_dict(kind: int, conn: int, msn: int, *, ln: int = 0, off: int = 0, last: int = 0, send: int = 0, ssn: int = 0,
            sol: int = 0, ok: int = 1, resp: int | None = None) -> dict:
    """A logical op; a Done's bresp is 0 when `ok`, else `resp` (2, SLVERR, when None)."""
    op = {"s_op": kind, "s_conn": conn, "s_msn": msn & M32, "s_len": ln, "s_off": off, "s_last": last, "s_send": send,
          "s_ssn": ssn, "s_solicited": sol, "s_ok": ok}
    if kind == OP_DONE:
        op["s_resp"] = 0 if ok else 2 if resp is None else resp
        assert (op["s_resp"] == 0) == bool(ok), op
    return op


class Run(NamedTuple):
    """What `Bench.feed` saw: each cycle's outputs, and the cycles in which an op was taken."""

    o: list[dict]
    takes: list[int]

    def col(self, port: str) -> list[int]:
        return [x[port] for x in self.o]


class Bench(RefBench):
    """Drives one cycle at a time (the other inputs idle) and compares every output with
    `CmplRef` every cycle; the expectations of the scenarios are written by hand on top."""

    def __init__(self, dut, z: Sizes):
        super().__init__(dut, CmplRef(z, known=False), IDLE, outputs, compare)
        self.z = z
        self.exp = dict.fromkeys(COUNTERS, 0)  # the counters, kept by hand
        self.n = 0  # ops made: each Done has its own length

    # The probe: a Fatal of a connection no scenario uses (opened in B), offered after a feed's
    # ops to see when the unit takes an op again (a ready is high only for a port taken).
    PROBE_CONN = 12

    async def reset(self, during: dict | None = None, m_ready: int = 1) -> list[dict]:
        """rst for two cycles (`during`: an op offered then, not taken): every ready and m_valid
        low; after it m_valid low and the counters 0 (the next feed's first take in its first
        cycle shows the unit ready). Returns the two cycles' outputs."""
        os_ = []
        for _ in range(2):
            o = await self.tick({**(port_values(during) if during else {}), "rst": 1, "m_ready": m_ready})
            if self.cycles > 1:
                assert [o[READY[p]] for p in PORTS] + [o["m_valid"]] == [0] * 4, f"during rst: {o}"
            os_.append(o)
        o = await self.tick()
        assert o["m_valid"] == 0, f"after rst: {o}"
        assert all(o[s] == 0 for s in COUNTERS), f"counters after rst: {o}"
        self.exp = dict.fromkeys(COUNTERS, 0)
        return os_

    def done(self, conn: int, msn: int, off: int = 0, *, last: int = 1, send: int = 1, ok: int = 1, sol: int = 0,
             ssn: int | None = None, ln: int | None = None, resp: int | None = None) -> dict:
        """A write response of message `msn` (its own length unless given; SSN from the MSN;
        a failed one's bresp `resp`, SLVERR unless given)."""
        self.n += 1
        if ln is None:
            ln = (0x101 * self.n + 17) & M16
        if ssn is None:
            ssn = (0x5A0000 ^ msn * 0x3B) & M24
        return op_dict(OP_DONE, conn, msn, ln=ln, off=off, last=last, send=send, ssn=ssn, sol=sol, ok=ok, resp=resp)

    @staticmethod
    def fatal(conn: int, msn: int) -> dict:
        return op_dict(OP_FATAL, conn, msn)

    @staticmethod
    def open(conn: int, msn: int) -> dict:
        return op_dict(OP_OPEN, conn, msn)

    @staticmethod
    def rec(op: dict, nbytes: int, *, sol: int = 0, error: int = 0, msn: int | None = None, ssn: int | None = None) -> dict:
        """The record of message `op`'s (its connection, MSN, SSN unless given) written out."""
        return record(op["s_conn"], op["s_msn"] if msn is None else msn, op["s_ssn"] if ssn is None else ssn, nbytes,
                      bool(sol), bool(error))

    async def feed(self, ops: list[dict], tail: int = 4, m_ready=None, probe: bool = False) -> Run:
        """Offers `ops` one after the other, each on its port and held until taken, then `tail`
        idle cycles (with `probe`, the probe Fatal offered in them until taken: its take is
        not in `takes`); `m_ready(cycle)` (default 1) drives m_ready. Each cycle's outputs get
        `s_ready`: the OR of the three readies (1 = the op offered is taken); a ready of a port
        with nothing offered fails."""
        os_, takes = [], []
        k = 0
        cyc = 0
        idle_left = tail
        probing = probe
        while k < len(ops) or idle_left > 0:
            v = {"m_ready": 1 if m_ready is None else m_ready(cyc)}
            port = None
            if k < len(ops):
                v.update(port_values(ops[k]))
                port = PORT_OF[ops[k]["s_op"]]
            else:
                idle_left -= 1
                if probing:
                    v.update(port_values(Bench.fatal(Bench.PROBE_CONN, 0)))
                    port = "fatal"
            o = await self.tick(v)
            o["s_ready"] = int(any(o[READY[p]] for p in PORTS))
            assert all(not o[READY[p]] for p in PORTS if p != port), f"feed cycle {cyc}: a ready of a port not offered: {o}"
            if port is not None and o[READY[port]]:
                if k < len(ops):
                    takes.append(cyc)
                    k += 1
                else:
                    probing = False
            os_.append(o)
            cyc += 1
            assert cyc < 50 * (len(ops) + 1), f"feed: {k}/{len(ops)} ops taken after {cyc} cycles"
        assert not probing, "feed: the probe was not taken in the tail"
        while probe and not self.ref.idle():  # (the probe's own cycles, before the next feed)
            await self.tick()
        return Run(os_, takes)

    async def feed_ports(self, queues: dict[str, list[dict]], cycles: int, m_ready=None) -> tuple[Run, list[tuple[int, str]]]:
        """All three ports at once: each port offers its ops in order (its front held until
        taken) for `cycles` cycles; every op must be taken. Returns the outputs and the takes
        (cycle, port) in order; at most one ready is high in a cycle."""
        qs = {p: list(queues.get(p, [])) for p in PORTS}
        os_, takes = [], []
        for cyc in range(cycles):
            v = {"m_ready": 1 if m_ready is None else m_ready(cyc)}
            for p in PORTS:
                if qs[p]:
                    v.update(port_values(qs[p][0]))
            o = await self.tick(v)
            granted = [p for p in PORTS if o[READY[p]]]
            assert len(granted) <= 1 and all(qs[p] for p in granted), f"feed_ports cycle {cyc}: readies {granted}"
            for p in granted:
                takes.append((cyc, p))
                qs[p].pop(0)
            os_.append(o)
        assert not any(qs.values()), f"feed_ports: ops not taken after {cycles} cycles: {qs}"
        return Run(os_, [c for c, _ in takes]), takes

    @staticmethod
    def check(what: str, o: dict, want: dict) -> None:
        got = {k: o[k] for k in OUT_FIELDS}
        bad = {k: (fmt(want[k]), fmt(got[k])) for k in OUT_FIELDS if got[k] != want[k]}
        assert o["m_valid"] == 1 and not bad, f"{what}: m_valid {o['m_valid']}, fields (expected, actual): {bad}"

    def expect_m(self, what: str, run: Run, recs: dict[int, dict]) -> None:
        """m_valid exactly in the cycles of `recs` (index -> expected record), with those records."""
        valid = run.col("m_valid")
        want = [int(k in recs) for k in range(len(run.o))]
        assert valid == want, f"{what}: m_valid by cycle {valid}, expected {want}"
        for k, r in recs.items():
            self.check(f"{what}, cycle {k}", run.o[k], r)

    async def counters(self, what: str, **delta) -> None:
        o = await self.tick()  # counted at the event: shown the cycle after it
        for k, v in delta.items():
            self.exp[f"stat_{k}"] += v
        diff = {s: (self.exp[s], o[s]) for s in COUNTERS if o[s] != self.exp[s]}
        assert not diff, f"counters after {what} (expected, actual): {diff}"


@cocotb.test()
async def directed_semantics(dut):
    """Hand-written expectations: order, once each, after every write; WRITE; failed SEND at the
    head and behind it; fatal ordering; strays; Open; the stalled walk; reset. The cycles are
    written for the manifest's latency L (an op taken in t executes in t + L - 1, its record
    offered from t + L; II L for an op that completes nothing, L + the messages it completes)."""
    L = LATENCY
    assert L >= 3, f"MRNIC_LATENCY {L}: the scenarios assume a READ cycle between the take and the execute cycle"
    P = L - 2  # cycles from one walk step to the next (the RAMs' read latency)
    z = sizes(dut)
    C, MW = z.connections, z.msg_window
    assert MW == 4, f"msg_window {MW}: the scenarios are written for 4 (preset core)"
    tb = Bench(dut, z)
    start_clock(dut)
    drive(dut, IDLE)
    II_OPEN = 1 + MW

    # ---- A. reset: an op offered during it is not taken; after it the first op is taken at once (B)
    await tb.reset(during=Bench.open(1, 0))

    # ---- B. Open of every connection used (the RAMs hold an earlier test's rows): one Open
    # per 1 + msg_window cycles, nothing on m
    conns = {"order": C - 1, "write": 2, "fail_head": 3, "fail_walk": 4, "later_fatal": 5, "earlier_fatal": 6,
             "stray": 7, "open": 8, "stall": 9, "rst_op": 10, "rst_walk": 11, "probe": Bench.PROBE_CONN, "arb_w": 13,
             "arb_f": 14, "arb_o": 15}
    start = {"order": 0xFFFFFFFE, "stray": 10, "fail_head": 0x10, "stall": 0x7FFFFFFF}
    opens = [Bench.open(c, start.get(k, 0)) for k, c in conns.items()]
    r = await tb.feed(opens, tail=MW + 1)
    assert r.takes == [II_OPEN * k for k in range(len(opens))], f"Open: takes {r.takes} (II {II_OPEN})"
    assert not any(r.col("m_valid")), "an Open put a record out"
    await tb.counters("the Opens")

    # ---- C. messages complete in MSN order, once each, only after every packet's write
    # response: m1 (1 packet) is complete first but waits for m0 (3 packets, its LAST packet's
    # response first, SE from it); the last response of m0 completes m0, then m1 (the walk),
    # and the walk stops at message 0 (a 2-packet WRITE whose LAST response alone came);
    # across the MSN wrap (0xfffffffe, 0xffffffff, then 0)
    c, m0, m1 = conns["order"], 0xFFFFFFFE, 0xFFFFFFFF
    d1 = tb.done(c, m1, 0, last=1, sol=1)
    d2, d3, d4 = tb.done(c, m0, 2, last=1, sol=1), tb.done(c, m0, 0, last=0), tb.done(c, m0, 1, last=0)
    w1 = tb.done(c, 0, 1, last=1, send=0)
    r = await tb.feed([d1, d2, w1, d3, d4], tail=L + 2 * P + 1, probe=True)
    assert r.takes == [0, L, 2 * L, 3 * L, 4 * L], f"order: takes {r.takes} (II {L} for an op completing nothing)"
    t = 4 * L
    tb.expect_m("order", r, {t + L: tb.rec(d4, d2["s_len"] + d3["s_len"] + d4["s_len"], sol=1),
                             t + L + P: tb.rec(d1, d1["s_len"], sol=1)})
    assert r.col("s_ready")[t + L - 1:t + L + 2 * P + 1] == [0] * (2 * P + 1) + [1], \
        f"order: II {L} + {P} per further message + {P} for the walk's last step: s_ready {r.col('s_ready')}"
    e = tb.exp["stat_msgs"]
    assert r.col("stat_msgs")[t + L - 1:t + L + 2 * P + 1] == [e] + [e + 1] * P + [e + 2] * (P + 1), \
        f"order: stat_msgs counted at the event, shown the cycle after; the walk stops at the WRITE: {r.col('stat_msgs')}"
    await tb.counters("order", msgs=2, cmpls=2)
    # the next MSN wrapped to 0: the WRITE's other response completes it at once, silently
    w0 = tb.done(c, 0, 0, last=0, send=0)
    r = await tb.feed([w0], tail=L + 2)
    assert r.takes == [0] and not any(r.col("m_valid")) and r.col("stat_msgs")[L] == tb.exp["stat_msgs"] + 1, \
        f"order: the WRITE of MSN 0 after the wrap: {r.o}"
    await tb.counters("the WRITE after the wrap", msgs=1)

    # ---- D. a WRITE completes silently but holds back a later SEND: SEND 1 complete first,
    # WRITE 0's two responses; the second completes the WRITE (no record), then the SEND
    c = conns["write"]
    s1 = tb.done(c, 1, 0, last=1, send=1, sol=1)
    wa, wb = tb.done(c, 0, 1, last=1, send=0), tb.done(c, 0, 0, last=0, send=0)
    r = await tb.feed([s1, wa, wb], tail=L + 2 * P + 1, probe=True)
    assert r.takes == [0, L, 2 * L], f"write: takes {r.takes}"
    t = 2 * L
    tb.expect_m("a WRITE holds back a later SEND", r, {t + L + P: tb.rec(s1, s1["s_len"], sol=1)})
    e, ec = tb.exp["stat_msgs"], tb.exp["stat_cmpls"]
    assert r.col("stat_msgs")[t + L - 1:t + L + P + 1] == [e] + [e + 1] * P + [e + 2] and \
        r.col("stat_cmpls")[t + L:t + L + P + 1] == [ec] * P + [ec + 1], \
        f"write: stat_msgs {r.col('stat_msgs')}, stat_cmpls {r.col('stat_cmpls')}"
    assert r.col("s_ready")[t + L - 1:t + L + 2 * P + 1] == [0] * (2 * P + 1) + [1], f"write: s_ready {r.col('s_ready')}"
    await tb.counters("a WRITE and a SEND", msgs=2, cmpls=1)

    # ---- E. a failed SEND at the head completes at once with m_status 1 and the bytes
    # written before (its SE ignored); message 0x11 (complete, behind it) and 0x12 never
    # complete; while its record waits with m_ready low, s_ready is low, and it follows m_ready
    c = conns["fail_head"]
    p0, p1 = tb.done(c, 0x10, 0, last=0, ln=100), tb.done(c, 0x10, 1, last=0, ln=200)
    q = tb.done(c, 0x11, 0, last=1)
    bad = tb.done(c, 0x10, 2, last=1, ok=0, sol=1, ssn=0xABCDEF)
    later = tb.done(c, 0x12, 0, last=1)
    t = 3 * L
    r = await tb.feed([p0, p1, q, bad, later], tail=L + 2, m_ready=lambda k: int(k not in (t + L, t + L + 1)))
    assert r.takes == [0, L, 2 * L, t, t + L + 2], f"fail_head: takes {r.takes}"
    tb.expect_m("a failed SEND at the head", r, {k: tb.rec(bad, 300, ssn=0xABCDEF, error=1) for k in range(t + L, t + L + 3)})
    assert r.col("s_ready")[t + L:t + L + 3] == [0, 0, 1], f"fail_head: s_ready while the record waits: {r.col('s_ready')}"
    await tb.counters("a failed SEND at the head", write_errors=1, cmpls=1)

    # ---- F. a failed SEND behind the head completes when the walk reaches it: message 1
    # (500 bytes written, then its second write fails), message 2 complete behind it (never);
    # WRITE 0 completes, the walk stops at 1 with its error record (bytes 500); the failed
    # SEND's step ends the walk as an incomplete row would (II L + P)
    c = conns["fail_walk"]
    f0, f1 = tb.done(c, 1, 0, last=0, ln=500), tb.done(c, 1, 1, last=1, ok=0, ssn=0x123456)
    g2, w = tb.done(c, 2, 0, last=1), tb.done(c, 0, 0, last=1, send=0)
    r = await tb.feed([f0, f1, g2, w], tail=L + 3, probe=True)
    assert r.takes == [0, L, 2 * L, 3 * L], f"fail_walk: takes {r.takes}"
    t = 3 * L
    tb.expect_m("a failed SEND reached by the walk", r, {t + L + P: tb.rec(f1, 500, ssn=0x123456, error=1)})
    assert r.col("s_ready")[t + L - 1:t + L + P + 1] == [0] * (P + 1) + [1], f"fail_walk: II {L} + {P}: {r.col('s_ready')}"
    await tb.counters("a failed SEND behind the head", msgs=1, cmpls=1, write_errors=1)

    # ---- G. a later fatal event (a refusal of 2, a failed SEND of 3, a refusal of 1 itself)
    # does not replace an earlier failed SEND (message 1): WRITE 0 completes, the walk gives
    # message 1's error record; an earlier refusal (1) replaces a later failed SEND (2):
    # SEND 0 completes with its record, and nothing after it
    c = conns["later_fatal"]
    e1 = tb.done(c, 1, 0, last=1, ok=0, ssn=0x0F0F0F)
    seq = [e1, Bench.fatal(c, 2), tb.done(c, 3, 0, last=1, ok=0, ssn=0x77), Bench.fatal(c, 1), tb.done(c, 0, 0, send=0)]
    r = await tb.feed(seq, tail=L + 3)
    assert r.takes == [k * L for k in range(5)], f"later_fatal: takes {r.takes}"
    tb.expect_m("a later fatal does not replace an earlier failed SEND", r,
                {5 * L + P: tb.rec(e1, 0, ssn=0x0F0F0F, error=1)})
    await tb.counters("later fatal events", msgs=1, cmpls=1, write_errors=2)
    c = conns["earlier_fatal"]
    s0 = tb.done(c, 0, 0, last=1, sol=1)
    r = await tb.feed([tb.done(c, 2, 0, last=1, ok=0), Bench.fatal(c, 1), s0], tail=L + 4)
    tb.expect_m("an earlier fatal replaces a later failed SEND", r, {3 * L: tb.rec(s0, s0["s_len"], sol=1)})
    await tb.counters("an earlier fatal", msgs=1, cmpls=1, write_errors=1)

    # ---- H. a response outside the window (next MSN 10: MSN 14 ahead, on message 10's row;
    # 9 behind; a failed 15) is counted in stat_stray and changes nothing: message 10 then
    # needs both of its own responses and has their bytes; the failed one made nothing fatal
    # (message 11 completes)
    c = conns["stray"]
    strays = [tb.done(c, 14, 0, last=1, ln=999), tb.done(c, 9, 0, last=1), tb.done(c, 15, 0, last=1, ok=0)]
    a, b = tb.done(c, 10, 1, last=1, sol=1), tb.done(c, 10, 0, last=0)
    n11 = tb.done(c, 11, 0, last=1)
    r = await tb.feed([*strays, a, b, n11], tail=L + P + 1)
    assert r.takes == [0, L, 2 * L, 3 * L, 4 * L, 5 * L + P], f"stray: takes {r.takes}"
    e = tb.exp["stat_stray"]
    want = [e + sum(1 for k in range(3) if k * L + L <= x) for x in range(1, 3 * L + 1)]
    assert r.col("stat_stray")[1:3 * L + 1] == want, f"stray: stat_stray {r.col('stat_stray')}, expected {want} from cycle 1"
    tb.expect_m("strays change nothing", r, {5 * L: tb.rec(b, a["s_len"] + b["s_len"], sol=1),
                                             6 * L + P: tb.rec(n11, n11["s_len"])})
    await tb.counters("strays", stray=3, msgs=2, cmpls=2)

    # ---- I. Open clears the rows: message 0's LAST response (its row) and message 1
    # (complete) before the Open at MSN 0; after it message 0 needs both responses again (the
    # bytes only the new ones) and message 1 its own; Open clears the fatal state too
    # (fail_head's connection, stuck at 0x10, opened at 0x10 again)
    c = conns["open"]
    x0, x1 = tb.done(c, 0, 1, last=1, ln=0x4444), tb.done(c, 1, 0, last=1)
    y0, y1, y2 = tb.done(c, 0, 0, last=0), tb.done(c, 0, 1, last=1, sol=1), tb.done(c, 1, 0, last=1)
    fh = conns["fail_head"]
    f = tb.done(fh, 0x10, 0, last=1)
    r = await tb.feed([x0, x1, Bench.open(c, 0), y0, y1, y2, Bench.open(fh, 0x10), f], tail=L + P + 1)
    io = II_OPEN
    assert r.takes == [0, L, 2 * L, 2 * L + io, 3 * L + io, 4 * L + P + io, 5 * L + 2 * P + io, 5 * L + 2 * P + 2 * io], \
        f"open: takes {r.takes}"
    tb.expect_m("Open clears the rows", r, {4 * L + io: tb.rec(y1, y0["s_len"] + y1["s_len"], sol=1),
                                            5 * L + P + io: tb.rec(y2, y2["s_len"]),
                                            6 * L + 2 * P + 2 * io: tb.rec(f, f["s_len"])})
    await tb.counters("Open", msgs=3, cmpls=3)

    # ---- J. a walk over several complete messages waits while m_ready is low and loses
    # nothing: 2^31 (SEND), 2^31 + 1 (WRITE), 2^31 + 2 (SEND) complete, then 2^31 - 1 (SEND):
    # its record held 6 cycles; the walk holds at the next SEND (s_ready low), holds at the
    # WRITE too while a record waits (a step waits for the output register, SEND or WRITE),
    # then the last SEND. A step every P = 2 cycles (a held step tries again 2 cycles later):
    # steps at T + 1, T + 3 (held), T + 5 (SEND 1), T + 7 (held), T + 9 (the WRITE), T + 11
    # (SEND 3), T + 13 (row 2^31 + 4 incomplete: the end)
    assert P == 2, f"walk period {P}: scenario J's cycles are written for 2"
    c, h = conns["stall"], 0x7FFFFFFF
    k1, k2, k3 = tb.done(c, h + 1, 0, sol=1), tb.done(c, h + 2, 0, send=0), tb.done(c, h + 3, 0)
    k0 = tb.done(c, h, 0)
    T = 4 * L  # k0 taken in 3L: its record offered from T
    low = {*range(T - 1, T + 5), T + 6, T + 7}
    e = dict(tb.exp)
    r = await tb.feed([k1, k2, k3, k0], tail=L + 16, m_ready=lambda k: int(k not in low), probe=True)
    assert r.takes == [0, L, 2 * L, 3 * L], f"stall: takes {r.takes}"
    tb.expect_m("the stalled walk", r, {**{k: tb.rec(k0, k0["s_len"]) for k in range(T, T + 6)},
                                        **{k: tb.rec(k1, k1["s_len"], sol=1) for k in range(T + 6, T + 9)},
                                        T + 12: tb.rec(k3, k3["s_len"])})
    assert r.col("s_ready")[T - 1:T + 15] == [0] * 15 + [1], f"stall: s_ready {r.col('s_ready')}"
    m, cm = e["stat_msgs"], e["stat_cmpls"]
    assert r.col("stat_msgs")[T - 1:T + 13] == [m] + [m + 1] * 6 + [m + 2] * 4 + [m + 3] * 2 + [m + 4], \
        f"stall: stat_msgs {r.col('stat_msgs')} (the WRITE waits behind the held record)"
    assert r.col("stat_cmpls")[T - 1:T + 13] == [cm] + [cm + 1] * 6 + [cm + 2] * 6 + [cm + 3], \
        f"stall: stat_cmpls {r.col('stat_cmpls')} (counted when loaded, not when taken)"
    await tb.counters("the stalled walk", msgs=4, cmpls=3)

    # ---- M. the arbiter (and a failed write answered EXOKAY: only bresp 0 is OKAY): the
    # three ports valid in the same cycle, the write port taken first
    # and again while it keeps coming (three strays of arb_w, II L each), the fatal port held
    # all the while and taken when the write port is empty, the open port last; only the
    # taken port's ready is high, none while the unit is busy. The fatal op (an earlier fatal
    # message, 0, on arb_f, whose SEND 1 failed behind the head) and the open (arb_o at MSN
    # 5) took effect: message 0 of arb_f completes and the walk stops at message 1 without a
    # WriteError record (the failed SEND replaced), arb_o's message 5 completes at once.
    w, y, zc = conns["arb_w"], conns["arb_f"], conns["arb_o"]
    ef = tb.done(y, 1, 0, last=1, ok=0, ssn=0x3C3C3C, resp=1)  # (EXOKAY: not OKAY either)
    r = await tb.feed([ef], tail=L + 1)
    assert r.takes == [0] and not any(r.col("m_valid")), f"arbiter: the failed SEND behind the head: {r.o}"
    await tb.counters("the failed SEND of arb_f", write_errors=1)
    strays = [tb.done(w, 9, 0), tb.done(w, 10, 0), tb.done(w, 11, 0)]
    r, takes = await tb.feed_ports({"wr": strays, "fatal": [Bench.fatal(y, 0)], "open": [Bench.open(zc, 5)]},
                                   4 * L + II_OPEN + 2)
    want = [(0, "wr"), (L, "wr"), (2 * L, "wr"), (3 * L, "fatal"), (4 * L, "open")]
    assert takes == want, f"arbiter: takes {takes}, expected {want} (wr first, then fatal, then open)"
    for cyc, o in enumerate(r.o):
        g = dict(want).get(cyc)
        assert [o[READY[p]] for p in PORTS] == [int(p == g) for p in PORTS], \
            f"arbiter cycle {cyc}: readies {[o[READY[p]] for p in PORTS]}, only {g} expected"
    assert not any(r.col("m_valid")), "arbiter: a record from strays, a fatal op or an open"
    await tb.counters("the arbiter's ops", stray=3)
    y0, z5 = tb.done(y, 0, 0, last=1, sol=1), tb.done(zc, 5, 0, last=1)
    r = await tb.feed([y0, z5], tail=L + P + 1)
    assert r.takes == [0, L + P], f"arbiter: takes after {r.takes}"
    tb.expect_m("the fatal op and the open took effect", r, {L: tb.rec(y0, y0["s_len"], sol=1),
                                                             2 * L + P: tb.rec(z5, z5["s_len"])})
    await tb.counters("after the arbiter's ops", msgs=2, cmpls=2)
    # a record waiting with m_ready low holds every port back, although all are valid: arb_w's
    # SEND 0 completes (record from L, m_ready low L .. L + 5), the walk ends at L + P; the
    # fatal port is taken in the cycle its record goes (L + 6), the open port L later
    w0 = tb.done(w, 0, 0, last=1)
    r, takes = await tb.feed_ports({"wr": [w0], "fatal": [Bench.fatal(y, 9)], "open": [Bench.open(zc, 0)]},
                                   2 * L + 6 + II_OPEN + 1, m_ready=lambda k: int(k not in range(L, L + 6)))
    want = [(0, "wr"), (L + 6, "fatal"), (2 * L + 6, "open")]
    assert takes == want, f"arbiter with a waiting record: takes {takes}, expected {want}"
    tb.expect_m("the waiting record", r, {k: tb.rec(w0, w0["s_len"]) for k in range(L, L + 7)})
    await tb.counters("the arbiter with a waiting record", msgs=1, cmpls=1)

    # ---- K. reset drops an op in flight whole: a one-packet SEND taken, rst in the two
    # cycles after (before its execute cycle, t + L - 1 >= 2): nothing comes out, and the
    # same response after it completes message 0 (had it been written, message 0 would be
    # complete and the second a stray)
    c = conns["rst_op"]
    d = tb.done(c, 0, 0)
    r = await tb.feed([d], tail=0)
    assert r.takes == [0], r.takes
    await tb.reset(during=d)
    r = await tb.feed([d], tail=L + 2)
    tb.expect_m("the op dropped by the reset", r, {L: tb.rec(d, d["s_len"])})
    await tb.counters("the op after the reset", msgs=1, cmpls=1)

    # ---- L. reset with a record waiting on m and the walk held behind it: messages 1 and 2
    # complete, message 0's record held (m_ready low), the walk holding at 1; after the reset
    # nothing comes out (the record dropped, the walk stopped), the next MSN is 1 (message 0's
    # step was whole): MSN 0 and 5 are strays, 4 is in the window
    c = conns["rst_walk"]
    l1, l2, l0 = tb.done(c, 1, 0), tb.done(c, 2, 0), tb.done(c, 0, 0)
    r = await tb.feed([l1, l2, l0], tail=L + 2, m_ready=lambda k: int(k <= 2 * L))
    tb.expect_m("before the reset", r, {k: tb.rec(l0, l0["s_len"]) for k in range(3 * L, 3 * L + 3)})
    assert tb.ref.st[0] in ("walk", "wwait"), tb.ref.st
    await tb.reset(m_ready=0)
    probe = [tb.done(c, 0, 0), tb.done(c, 5, 0), tb.done(c, 4, 0, last=0)]
    r = await tb.feed(probe, tail=L + 4)
    assert r.takes == [0, L, 2 * L] and not any(r.col("m_valid")), f"after the reset: {r.o}"
    await tb.counters("after the reset", stray=2)
    dut._log.info("directed_semantics: %d cycles, every output equal to the reference", tb.cycles)


# ------------------------------------------------------------------- randomized test


@dataclass
class Planned:
    offsets: list  # the offsets whose responses are still to come
    n: int
    send: bool
    ssn: int


class Traffic:
    """Python-made ops, made against the untimed model `g` (each op applied as made, so the
    planner knows every connection's next MSN): per connection the messages of its window, 1
    to 4 packets (sometimes up to 12), SEND or WRITE, each offset's response once, in a random
    order within and across messages; walk phases (one or two connections, one-packet
    messages, the newest first: the head's response completes the whole window); failed
    writes, half of them followed by another fatal event before or after them; fatal
    refusals; strays; a fatal connection opened again some ops later. Connections from
    `pool`."""

    def __init__(self, rng: random.Random, z: Sizes, g: Cmpl, pool: list[int]):
        self.r, self.z, self.g, self.pool = rng, z, g, pool
        self.plan: dict[int, dict[int, Planned]] = {c: {} for c in pool}
        self.reopen: dict[int, int] = {}
        self.queue: deque = deque()
        self.mix = Counter()
        self.left = 0
        self.hot: list[int] = []
        self.walks = False
        self.p_err = 0.0
        self.p_fatal = 0.0

    def phase(self) -> None:
        r = self.r
        self.left = r.randrange(30, 300)
        self.walks = r.random() < 0.3
        self.hot = r.sample(self.pool, 2 if self.walks else r.choice([1, 2, 4, 8]))
        self.p_err = 0.0 if self.walks else r.choice([0.0, 0.02, 0.05])
        # fatal refusals: rare, or in one phase in three a burst of them (the fatal port then
        # often waits behind the write port, beside the open port)
        self.p_fatal = 0.0 if self.walks else r.choice([0.008, 0.008, 0.05])

    def open(self, c: int) -> dict:
        self.plan[c] = {}
        self.reopen.pop(c, None)
        r = self.r
        msn = M32 - r.randrange(8) if r.random() < 0.3 else r.getrandbits(32)
        self.mix["opens"] += 1
        return op_dict(OP_OPEN, c, msn)

    def fatal_later(self, c: int) -> None:
        self.reopen.setdefault(c, self.r.randrange(20, 200))

    def restart(self) -> list[dict]:
        """After a reset (an op may have been lost): every connection of the pool opened again."""
        self.queue.clear()
        return [self.open(c) for c in self.pool]

    def make_op(self) -> dict:
        r, z = self.r, self.z
        if self.queue:
            return self.queue.popleft()
        for c, w in list(self.reopen.items()):
            if w == 0:
                return self.open(c)
            self.reopen[c] = w - 1
        if self.left == 0:
            self.phase()
        self.left -= 1
        c = r.choice(self.hot) if r.random() < 0.85 else r.choice(self.pool)
        base, mw = self.g.conn(c).next_msn, z.msg_window
        pl = self.plan[c]
        for m in [m for m in pl if (m - base) & M32 >= mw]:
            del pl[m]
        roll = r.random()
        if roll < self.p_fatal:
            if self.p_fatal < 0.01 or r.random() < 0.3:  # (in a burst, most connections stay up)
                self.fatal_later(c)
            self.mix["fatals"] += 1
            return op_dict(OP_FATAL, c, base + r.randrange(mw + 2))
        if not self.walks and self.p_fatal <= roll < self.p_fatal + 0.012:
            self.mix["strays"] += 1
            k = mw + r.randrange(mw) if r.random() < 0.5 else -r.randrange(1, mw + 1)
            return op_dict(OP_DONE, c, base + k, ln=r.randrange(4096), off=0, last=1, send=1, ssn=r.getrandbits(24),
                           ok=r.getrandbits(1))

        def open_at(k: int) -> bool:
            p = pl.get((base + k) & M32)
            return p is None or bool(p.offsets)

        if self.walks:
            k = next((k for k in reversed(range(mw)) if open_at(k)), 0)
        else:
            k0 = r.randrange(mw)
            k = next(((k0 + j) % mw for j in range(mw) if open_at((k0 + j) % mw)), k0)
        msn = (base + k) & M32
        if msn not in pl:
            n = 1 if self.walks else r.randrange(5, 13) if r.random() < 0.05 else r.randrange(1, 5)
            offs = list(range(n))
            r.shuffle(offs)
            pl[msn] = Planned(offs, n, r.random() < 0.6, r.getrandbits(24))
        p = pl[msn]
        if not p.offsets:  # the window issued, the head stuck (a failed write waiting for its Open)
            if c in self.reopen:
                return self.open(c)
            self.mix["strays"] += 1
            return op_dict(OP_DONE, c, base + mw, ln=1, off=0, last=1, send=0)
        off = p.offsets.pop()
        ok = not r.random() < self.p_err
        if not ok:
            self.mix["errors"] += 1
            self.fatal_later(c)
            if r.random() < 0.5:  # another fatal event right behind, before or after it
                m = base + r.randrange(mw)
                self.queue.append(op_dict(OP_FATAL, c, m) if r.random() < 0.5 else
                                  op_dict(OP_DONE, c, m, ln=8, off=0, last=0, send=1, ssn=0x77, ok=0))
        k = r.randrange(50)
        ln = M16 - r.randrange(16) if k == 0 else 0 if k == 1 else r.randrange(1, 4097)
        return op_dict(OP_DONE, c, msn, ln=ln, off=off, last=int(off + 1 == p.n), send=int(p.send), ssn=p.ssn,
                       sol=r.getrandbits(1), ok=int(ok), resp=None if ok else r.choice([2, 2, 2, 1, 3]))

    def make(self, n: int, first: list[dict] = ()) -> tuple[list[dict], list[dict]]:
        """`first`, then `n` ops; returns the ops and their records (the untimed model's)."""
        ops, recs = [], []
        for k in range(len(first) + n):
            op = first[k] if k < len(first) else self.make_op()
            recs.extend(self.g.apply(decode(op, self.z)))
            ops.append(op)
        return ops, recs


class Runner:
    """The DUT and `CmplRef` side by side, one cycle at a time: the ops offered with idle
    phases (an offer held until taken, random payloads on a port whose valid is low),
    `m_ready` backpressure; every output compared every cycle. `segment` offers its ops one
    at a time in order, or (`arbitrate`) from three sources at once, one per port, each with
    its own idle phases, so that the arbiter decides the order."""

    def __init__(self, dut, z: Sizes, seed: int):
        self.dut, self.z = dut, z
        self.rng = random.Random(seed)
        self.ref = CmplRef(z)
        self.idle, self.bp = default_idle(seed), default_backpressure(seed)
        # (each port's idle phases shifted by 250 cycles from the one before: not in step)
        self.port_idle = {p: default_idle(seed + 7 * (k + 1)) for k, p in enumerate(PORTS)}
        for k, p in enumerate(PORTS):
            for _ in range(250 * k):
                next(self.port_idle[p])
        self.in_rst = {"v": True}
        self.recent: deque = deque(maxlen=4)
        self.cyc = 0
        self.cov = Counter()

    def garbage(self) -> dict:
        r = self.rng
        return {"rst": 0, **{VALID[p]: 0 for p in PORTS}, "s_wr_tag": r.getrandbits(WR_TAG_BITS),
                "s_wr_bytes": r.getrandbits(16), "s_wr_resp": r.getrandbits(2), "s_fatal_conn": r.getrandbits(16),
                "s_fatal_msn": r.getrandbits(32), "s_open_conn": r.getrandbits(16), "s_open_msn": r.getrandbits(32)}

    async def cycle(self, i: dict) -> dict:
        ref = self.ref
        valids = [bool(i[VALID[p]]) for p in PORTS]
        if not i["rst"]:  # coverage, from the reference's state at the start of the cycle (= the DUT's)
            self.cov["m_held"] += ref.o is not None and not i["m_ready"]
            self.cov["offered_while_busy"] += any(valids) and not ref.idle()
        await next_cycle(self.dut)
        self.in_rst["v"] = bool(i["rst"])
        drive(self.dut, i)
        await settle()
        self.recent.append(i)
        want = ref.step(i)
        if self.cyc > 0:  # before the first reset edge the DUT holds the previous test's state
            compare(f"random_backpressure cycle {self.cyc}", outputs(self.dut, want["m_valid"] == 1), want, self.recent)
        if ref.event:
            self.cov[ref.event] += 1
        if ref.taken is not None:  # the arbiter's cases
            self.cov["takes_two_or_more_valid"] += sum(valids) >= 2
            self.cov["takes_all_three_valid"] += all(valids)
            self.cov["fatal_held_by_wr"] += ref.taken == "wr" and valids[1]
            self.cov["open_held"] += ref.taken != "open" and valids[2]
        self.cyc += 1
        return want

    async def reset(self, offer: dict | None = None, m_ready: int | None = None) -> None:
        """rst for two cycles, `offer` (a logical op, on its port) held then: nothing taken;
        `m_ready` held (random if None)."""
        for _ in range(2):
            i = {**self.garbage(), **(port_values(offer) if offer else {}), "rst": 1,
                 "m_ready": self.rng.getrandbits(1) if m_ready is None else m_ready}
            want = await self.cycle(i)
            assert [want[READY[p]] for p in PORTS] + [want["m_valid"]] == [0] * 4, want
        self.cov["resets"] += 1

    async def segment(self, what: str, ops: list[dict], *, full_rate: bool = False, cut=None,
                      arbitrate: bool = False) -> tuple[list[dict], list[dict]]:
        """Offers `ops` until every one is taken and its records are out (or, with `cut`, until
        `cut(self, k)` says so, k the ops taken: a reset follows). In order, one at a time on
        its port; or, with `arbitrate`, each port's ops in their order, the three ports at
        once, a port's front offered once every op made before it for the same connection is
        taken (so each connection's ops keep their order, as a connection is opened before
        its traffic comes; ops of different connections are taken in the arbiter's order).
        Returns the records taken on m and the ops in the order taken."""
        qs = {p: deque(op for op in ops if PORT_OF[op["s_op"]] == p) for p in PORTS}
        seq = {id(op): n for n, op in enumerate(ops)}
        per_conn: dict[int, deque] = {}
        for n, op in enumerate(ops):
            per_conn.setdefault(op["s_conn"] & self.z.cmask, deque()).append(n)

        def ready_to_offer(op: dict) -> bool:
            return per_conn[op["s_conn"] & self.z.cmask][0] == seq[id(op)]

        order = deque(ops)
        k = 0
        cur = None
        got: list[dict] = []
        taken: list[dict] = []
        tail = 0
        limit = self.cyc + 40 * len(ops) + 1000
        while tail < LATENCY + 3:
            left = any(qs.values()) if arbitrate else (order or cur is not None)
            if not left and self.ref.idle() and self.ref.o is None:
                tail += 1  # drained: nothing may come out any more
            assert self.cyc < limit, f"{what}: no progress: {k}/{len(ops)} ops, {len(got)} records"
            if cut is not None and cut(self, k):
                return got, taken
            i = self.garbage()
            hold_s, hold_m = next(self.idle), next(self.bp)
            i["m_ready"] = 1 if full_rate else int(not hold_m)
            offered: dict[str, dict] = {}
            if arbitrate:
                for p in PORTS:
                    if qs[p] and ready_to_offer(qs[p][0]) and (full_rate or not next(self.port_idle[p])):
                        offered[p] = qs[p][0]
            else:
                if cur is None and order and (full_rate or not hold_s):
                    cur = order.popleft()
                if cur is not None:
                    offered[PORT_OF[cur["s_op"]]] = cur
            for op in offered.values():
                i.update(port_values(op))
            want = await self.cycle(i)
            g = self.ref.taken
            if g is not None:
                assert g in offered, f"{what}: port {g} taken with nothing offered on it"
                taken.append(offered[g])
                k += 1
                if arbitrate:
                    op = qs[g].popleft()
                    assert per_conn[op["s_conn"] & self.z.cmask].popleft() == seq[id(op)]
                else:
                    cur = None
            if want["m_valid"] and i["m_ready"]:
                got.append({f: want[f] for f in OUT_FIELDS})
        return got, taken


@cocotb.test()
async def random_backpressure(dut):
    """The Python reference checked on the model's vectors; then the model's ops and Python-made
    traffic with idle phases on s and m_ready backpressure, a reset among them: the DUT and the
    reference side by side, every output every cycle."""
    seed = int(os.environ.get("MRNIC_SEED", "1"))
    n_ops = int(os.environ.get("MRNIC_RANDOM_OPS", "2000"))
    z = sizes(dut)
    path = os.environ.get("MRNIC_RANDOM_VECTORS")
    assert path, "set MRNIC_RANDOM_VECTORS to `mrnic vectors --block cmpl --no-resets` vectors"
    for p in (os.environ["MRNIC_VECTORS"], path):
        n, beats = check_reference(p, z)
        assert beats > 20, f"{p}: only {beats} records to check the reference on"
        dut._log.info("the Python reference equals the model on %s: %d cycles, %d records on m", p, n, beats)
    ops1, model_recs, last = model_transfers(path)
    g1 = Cmpl(z)
    want1 = run_model(g1, ops1)
    assert want1[:len(model_recs)] == model_recs and len(model_recs) > 20, \
        f"the untimed `Cmpl` differs from the model's records ({len(model_recs)} records, {len(want1)} from Cmpl)"

    run = Runner(dut, z, seed)
    mon = StreamMonitor(dut, {"name": "m", "valid": "m_valid", "ready": "m_ready", "payload": list(OUT_FIELDS)},
                        reset_active=lambda: run.in_rst["v"])
    start_clock(dut)
    drive(dut, {**IDLE, "rst": 1})
    mon_task = cocotb.start_soon(mon.run())
    total = 0

    # 1. the power-up state: every connection opened at MSN 0 (the RAMs hold an earlier test's
    # rows), then a reset; the model's ops with their own timing
    await run.reset()
    got, _ = await run.segment("opening every connection", [op_dict(OP_OPEN, c, 0) for c in range(z.connections)],
                               full_rate=True)
    assert not got and run.ref.g.rows == Cmpl(z).rows and run.ref.g.conns == Cmpl(z).conns
    await run.reset()
    got, _ = await run.segment("the model's ops", ops1)
    total += len(got)
    assert got[:len(model_recs)] == model_recs, "the records differ from the model's (the DUT equals the reference every cycle)"
    assert got == want1 and run.ref.g.stats == g1.stats, "the records or counters differ from Cmpl's"
    dut._log.info("the model's %d ops: %d records equal to the model's %d (the rest were in flight at the end of its "
                  "file; the model's last counters %s)", len(ops1), len(got), len(model_recs),
                  {k: last.get(k) for k in COUNTERS})

    # 2. Python-made traffic on a pool of connections (opened first, in order), its Done,
    # Fatal and Open ops then offered from three sources at once (one per port, each with its
    # own idle phases: the arbiter decides the order), cut by a reset while a walk holds
    # behind a waiting record (after half the ops); the records before it are Cmpl's of the
    # ops in the order taken
    rng = random.Random(seed + 1)
    pool = sorted({0, z.connections - 1, *rng.sample(range(z.connections), 22)})
    n_seg = max(60, n_ops // 3)
    tr = Traffic(rng, z, run.ref.g.copy(), pool)
    opens2, _ = tr.make(0, first=tr.restart())
    got, _ = await run.segment("opening the pool", opens2)
    assert not got, "an open put a record out"
    ops2, _ = tr.make(n_seg)
    g2 = run.ref.g.copy()

    def dirty(r: Runner, k: int) -> bool:
        return k > len(ops2) // 2 and r.ref.st[0] in ("walk", "wwait") and r.ref.o is not None

    got, taken2 = await run.segment("traffic cut by a reset", ops2, cut=dirty, arbitrate=True)
    total += len(got)
    assert run.ref.st[0] in ("walk", "wwait") and run.ref.o is not None, "the traffic ended without a walk held behind a record"
    want2 = run_model(g2, taken2)
    assert got == want2[:len(got)] and len(got) < len(want2), "the records before the reset differ from Cmpl's (take order)"
    cut_at = len(got)
    await run.reset(offer=op_dict(OP_DONE, pool[0], 0, last=1, send=1), m_ready=0)  # the record waits across it

    # 3. Python-made traffic after the reset (the rows kept; every connection of the pool
    # opened again, as the host would), from the three sources, to the end
    tr.g = run.ref.g.copy()
    tr.g.stats = dict.fromkeys(COUNTERS, 0)
    opens3, _ = tr.make(0, first=tr.restart())
    got, _ = await run.segment("opening the pool again", opens3)
    assert not got, "an open put a record out"
    ops3, _ = tr.make(n_seg)
    g3 = run.ref.g.copy()
    got, taken3 = await run.segment("traffic after the reset", ops3, arbitrate=True)
    total += len(got)
    want3 = run_model(g3, taken3)
    assert len(taken3) == len(ops3) and got == want3 and run.ref.g.stats == g3.stats, \
        "the records or counters differ from Cmpl's (take order)"
    reordered = sum(1 for a, b in zip(taken3, ops3) if a is not b)
    assert reordered > 0, "the three sources were taken in the order made: no arbitration"
    mon_task.cancel()
    assert not mon.errors, mon.errors[0]
    assert mon.transfers == total, f"{mon.transfers} records seen on m, {total} expected"
    cov = run.cov
    cov.update({f"traffic_{k}": v for k, v in tr.mix.items()})
    errs = sum(1 for r in [*want1, *want2, *want3] if r["m_status"])
    cov["error_records"] = errs
    if n_ops >= 2000:  # a run of the full size or a third of it really stalled, walked and failed (floors
        # for 6000 ops, scaled; a smoke run is too short)
        for k, least in (("m_held", 600), ("walk_held", 300), ("walk_write", 150), ("walk_send", 200),
                         ("walk_failed_send", 2), ("offered_while_busy", 2000), ("error_records", 6),
                         ("traffic_strays", 12), ("traffic_fatals", 5), ("traffic_errors", 9), ("traffic_opens", 40),
                         ("takes_two_or_more_valid", FLOOR_TWO), ("takes_all_three_valid", FLOOR_THREE),
                         ("fatal_held_by_wr", FLOOR_FATAL_HELD), ("open_held", FLOOR_OPEN_HELD)):
            least = int(least * n_ops / 6000)
            assert cov[k] >= least, f"coverage: {k} = {cov[k]} < {least}: {dict(cov)}"
    dut._log.info("random_backpressure: %d cycles, %d records (%d before the mid-traffic reset), every output equal to "
                  "the reference every cycle; %s", run.cyc, total, cut_at, dict(sorted(cov.items())))
