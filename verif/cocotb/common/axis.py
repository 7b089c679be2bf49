"""AXI-Stream ports through cocotbext-axi, with this kit's idle/backpressure generators and
handshake monitor: for blocks with AXI-Stream ports (`<prefix>_tdata`, `_tvalid`, `_tready`,
`_tlast`, ...). Create them outside the ReadOnly phase (they set tvalid/tready at once).
Tested on a FIFO fixture (common/tests/), since no mrnic block has AXI ports yet.
"""

from __future__ import annotations

from typing import Iterator

from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource


def axis_stream(dut, prefix: str) -> dict:
    """The stream description (as in the manifest) of an AXI-Stream port, for StreamMonitor:
    valid/ready are tvalid/tready, the payload every other `<prefix>_t*` signal present."""
    payload = [f"{prefix}_{s}" for s in ("tdata", "tlast", "tkeep", "tid", "tdest", "tuser")
               if hasattr(dut, f"{prefix}_{s}")]
    return {"name": prefix, "dir": "", "valid": f"{prefix}_tvalid", "ready": f"{prefix}_tready", "payload": payload}


def axis_source(dut, prefix: str, idle: Iterator[bool] | None = None, clock: str = "clock",
                rst: str = "rst") -> AxiStreamSource:
    """An AxiStreamSource on `<prefix>_*`, held idle in the cycles where `idle` says so."""
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, prefix), getattr(dut, clock), getattr(dut, rst))
    if idle is not None:
        src.set_pause_generator(idle)
    return src


def axis_sink(dut, prefix: str, backpressure: Iterator[bool] | None = None, clock: str = "clock",
              rst: str = "rst") -> AxiStreamSink:
    """An AxiStreamSink on `<prefix>_*`, tready low in the cycles where `backpressure` says so."""
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, prefix), getattr(dut, clock), getattr(dut, rst))
    if backpressure is not None:
        sink.set_pause_generator(backpressure)
    return sink
