"""Shared cocotb testbench base for every mrnic block (see docs/cocotb.md).

- `tb`: clock, reset, settle/read helpers, memory power-up.
- `stream`: valid/ready stream source, sink and monitor, with idle and backpressure
  generators (seeded random and patterns) and handshake-rule checks.
- `vectors`: replay of `mrnic vectors` JSON Lines: drive every input per cycle, compare every
  output per cycle (stream payloads only while their valid is 1); and the stream transfers
  of no-reset vectors, which the randomized tests offer again with their own timing.
- `scoreboard`: in-order, per-stream transaction comparison against a reference.
- `manifest`: reading `manifest.json` (pytest side).
- `runner`: the pytest side: generate Verilog and vectors, build per simulator, run, report.
- `axis`: AXI-Stream ports through cocotbext-axi (AxiStreamSource/Sink with these generators),
  for the blocks with AXI ports; tested on a FIFO fixture (`tests/axis_fifo.v`).
"""
