#!/usr/bin/env bash
# Regenerates the generated sections of docs/budget.md from `mrnic budget`:
# everything between `<!-- BEGIN mrnic budget ARGS -->` and `<!-- END -->` is replaced by
# the output of `mrnic budget ARGS`. model/tests/budget.rs checks the page matches the code.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p mrnic-gen
MRNIC=target/debug/mrnic python3 - <<'PY'
import os, re, subprocess
path = "docs/budget.md"
text = open(path).read()
def run(m):
    args = m.group(1).split()
    out = subprocess.run([os.environ["MRNIC"], "budget", *args], capture_output=True, text=True).stdout
    return f"<!-- BEGIN mrnic budget {m.group(1)} -->\n{out}<!-- END -->"
text = re.sub(r"<!-- BEGIN mrnic budget (.*?) -->\n.*?<!-- END -->", run, text, flags=re.S)
open(path, "w").write(text)
PY
echo "regenerated docs/budget.md"
