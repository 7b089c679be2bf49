#!/usr/bin/env bash
# The whole mrnic test suite, from a fresh clone: installs the pinned tools first
# (scripts/setup.sh, idempotent), then runs the Rust tests (model, RTL generation and
# snapshots, yosys_validate, lint, the Verilated differential tests, the ECP5 synthesis
# flow) and the cocotb tests on Verilator and Icarus.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Each step prints the free disk space: a test run needs several GB (target/, Verilator
# models), and a full disk shows up as odd compiler errors far from the cause.
step() {
  printf '\n==== %s [%s, %s free]\n' "$1" "$(date +%H:%M:%S)" \
    "$(df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' ')"
}

step "setup: pinned tools"
bash scripts/setup.sh
# shellcheck disable=SC1090
source "$(bash scripts/setup.sh --env)"
# Every Verilator build (Rust bridge, cocotb) compiles through ccache when it is installed
# (README, docs/verilator-bridge.md); its counters restart here and are printed at the end.
if command -v ccache >/dev/null; then ccache -z >/dev/null; fi

step "cargo test: build (workspace)"
cargo test --workspace --locked --no-run

# The cocotb shards run beside the cargo tests, at a lower priority: the cargo test binaries
# run one after the other and many of them leave a core idle for minutes (one long test, a
# single-threaded Verilator or yosys job), which the cocotb builds and simulations take up.
# They use the `mrnic` that the build above made for the CLI tests (test profile,
# target/debug/mrnic): without MRNIC_BIN the harness runs `cargo run`, which rebuilds the
# CLI in the dev profile first. Two pytest processes, one per shard of blocks
# (verif/cocotb/conftest.py): builds, vectors and runs of one block stay in one process.
# Each writes its own log, printed when the cargo tests are done.
step "cocotb (Verilator and Icarus): two shards started in the background (nice 10)"
if [ -z "${MRNIC_BIN:-}" ]; then
  export MRNIC_BIN="$root/target/debug/mrnic"
  [ -x "$MRNIC_BIN" ] || { echo "no $MRNIC_BIN after the cargo test build" >&2; exit 1; }
fi
logs="$root/target/cocotb-logs"
mkdir -p "$logs"
pids=()
for k in 0 1; do
  # --durations: each shard's log ends with its slowest tests (the shards are CI's longest
  # step, so this is where to look first when it grows).
  MRNIC_COCOTB_SHARD="$k/2" nice -n 10 python -m pytest verif/cocotb -q -p no:cacheprovider --durations=12 >"$logs/shard-$k.log" 2>&1 &
  pids+=($!)
done
# An early exit (a failed step below) stops the shards too.
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

step "cargo test (workspace)"
cargo_rc=0
cargo test --workspace --locked --no-fail-fast -- --test-threads 2 || cargo_rc=1

step "every SackEngine size type-checks (feature all-sizes; check only, no codegen)"
cargo check -q --locked -p mrnic-gen --features all-sizes

step "fuzz targets compile (nightly toolchain)"
# cargo-fuzz is not needed to prove the targets compile: `check` does not link, and
# CUSTOM_LIBFUZZER_PATH makes libfuzzer-sys skip its C++ build (model/fuzz/Cargo.toml).
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "the nightly toolchain is missing: rustup toolchain install nightly" >&2; exit 1
fi
CUSTOM_LIBFUZZER_PATH=/nonexistent/libfuzzer.a cargo +nightly check -q --manifest-path model/fuzz/Cargo.toml

step "cocotb (Verilator and Icarus): waiting for the shards"
rc=0
for k in 0 1; do
  wait "${pids[$k]}" || rc=1
  printf -- '---- cocotb shard %s/2 (%s)\n' "$k" "$logs/shard-$k.log"
  cat "$logs/shard-$k.log"
done
[ "$cargo_rc" -eq 0 ] || { echo "cargo test: a test failed (log above)" >&2; exit 1; }
[ "$rc" -eq 0 ] || { echo "cocotb: a shard failed (logs above)" >&2; exit 1; }

step "done"
# One du per folder: a single du counts the nested folders once, under target/ only.
for d in target target/vlcache target/cocotb; do du -sh "$d" 2>/dev/null || true; done
if command -v ccache >/dev/null; then ccache -s; fi
