#!/usr/bin/env bash
# Issue 9 before/after, one command: runs every simulator scenario over the seeds with this
# tree's binary, in the layout of the "before" runs, then puts both side by side.
#
#   scripts/seeds-compare.sh [--before DIR] [--after DIR] [--seeds N] [--full "a b ..."]
#                            [--out FILE] [--fail-on-worse] [--no-build]
#
#   --before DIR   the before results (default /work/results-before): DIR/ci/NAME/seed-K/
#                  and DIR/full/NAME/seed-K/, written by the binary of commit 2492357
#   --after DIR    where the after runs go (default /work/results-after), same layout plus
#                  DIR/VARIANT/NAME/NAME.seeds.{csv,md}; a scenario whose NAME.seeds.csv is
#                  already there is not run again (delete it to re-run)
#   --seeds N      seeds 1..=N (default 5) for a scenario the before results do not have;
#                  otherwise the after runs use exactly the seeds the before runs have
#   --full LIST    scenarios to run at full size too (default: those with a finished run in
#                  the before results' full/, the 1024-host fat-tree last; "" = none); every
#                  scenario runs its [ci] variant
#   --out FILE     the comparison (default docs/results/issue9-compare.md)
#   --fail-on-worse  exit 1 when anything is flagged WORSE
#   --no-build     use target/release/mrnic as it is
#
# Runs one simulator process at a time under `nice -n 10` (it uses every core). Timings
# are appended to AFTER/timings.txt ("variant scenario seeds=LIST seconds").
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=/work/results-before
AFTER=/work/results-after
SEEDS=5
FULL=auto
OUT=docs/results/issue9-compare.md
FAIL=""
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --before) BEFORE=$2; shift 2 ;;
    --after) AFTER=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --full) FULL=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --fail-on-worse) FAIL=--fail-on-worse; shift ;;
    --no-build) BUILD=""; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "seeds-compare.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -d "$BEFORE" ] || { echo "seeds-compare.sh: no before results at $BEFORE" >&2; exit 2; }
if [ -n "$BUILD" ]; then
  nice -n 10 cargo build --release -p mrnic-gen
fi
BIN=target/release/mrnic
if [ "$FULL" = auto ]; then # every scenario with a finished full-size before run, the fat-tree last
  FULL=""; LAST=""
  for d in "$BEFORE"/full/*/; do
    n=$(basename "$d")
    ls "$d"seed-*/"$n.csv" > /dev/null 2>&1 || continue
    if [ "$n" = loss_sweep_fattree ]; then LAST=$n; else FULL="$FULL $n"; fi
  done
  FULL="$FULL $LAST"
fi
mkdir -p "$AFTER"
# The seeds the before results have for VARIANT/NAME ("1,2,3"; "1," for one), else 1..=SEEDS.
seeds_of() {
  local list="" d k
  for d in "$BEFORE/$1/$2"/seed-*/; do
    [ -f "$d/$2.csv" ] || continue
    k=$(basename "$d"); k=${k#seed-}
    list="$list${list:+,}$k"
  done
  if [ -z "$list" ]; then echo "$SEEDS"; elif [[ $list == *,* ]]; then echo "$list"; else echo "$list,"; fi
}
run() { # variant name
  local variant=$1 name=$2 flag="" seeds
  local out="$AFTER/$variant/$name"
  [ "$variant" = ci ] && flag=--ci
  if [ -f "$out/$name.seeds.csv" ]; then echo "have $out/$name.seeds.csv"; return; fi
  seeds=$(seeds_of "$variant" "$name")
  echo "running $variant $name, seeds $seeds"
  local t0 t1
  t0=$(date +%s)
  nice -n 10 "$BIN" sim "sim/scenarios/$name.toml" $flag --seeds "$seeds" --out "$out" --quiet > /dev/null
  t1=$(date +%s)
  echo "$variant $name seeds=$seeds $((t1 - t0)) s" >> "$AFTER/timings.txt"
}
for f in sim/scenarios/*.toml; do
  run ci "$(basename "$f" .toml)"
done
for name in $FULL; do
  if [ -f "sim/scenarios/$name.toml" ]; then run full "$name"; else echo "no sim/scenarios/$name.toml: skipped" >&2; fi
done
if [ -d /work/before-bin/scenarios ] && ! diff -rq /work/before-bin/scenarios sim/scenarios > /dev/null; then
  echo "note: sim/scenarios differs from the before runs' copies in /work/before-bin/scenarios:" >&2
  diff -rq /work/before-bin/scenarios sim/scenarios >&2 || true
fi
mkdir -p "$(dirname "$OUT")"
"$BIN" compare "$BEFORE" "$AFTER" --out "$OUT" $FAIL > /dev/null
grep -m1 'flagged WORSE' "$OUT"
echo "wrote $OUT"
