"""Reading `manifest.json` written by `mrnic gen` (pytest side)."""

from __future__ import annotations

import json
from pathlib import Path

# Old-shape manifests ({"tops": [...]}) name the SACK engine's entry "sack_engine", module "top".
_OLD_NAMES = {"sack": "sack_engine"}


def block_entry(manifest_path: Path, block: str) -> tuple[Path, dict]:
    """The Verilog file and the manifest entry of `block`, from either manifest shape:
    `{"blocks": [{"block": "sack", "module": "mrnic_sack", "file": "mrnic_sack.v", ...}]}` (the
    block kit's) or `{"tops": [{"name": "sack_engine", "module": "top", "file": ...}]}` (before it).
    The entry is returned with "block", "module", "file", "latency", "ports" and "streams" (empty
    when the manifest has none)."""
    m = json.loads(Path(manifest_path).read_text())
    if "blocks" in m:
        entries = {e["block"]: e for e in m["blocks"]}
    elif "tops" in m:
        entries = {}
        for e in m["tops"]:
            name = next((b for b, old in _OLD_NAMES.items() if old == e["name"]), e["name"])
            entries[name] = {**e, "block": name}
    else:
        raise ValueError(f"{manifest_path}: neither 'blocks' nor 'tops' in the manifest")
    if block not in entries:
        raise ValueError(f"{manifest_path}: no block {block!r}; it has {sorted(entries)}")
    e = dict(entries[block])
    e.setdefault("streams", [])
    for key in ("module", "file", "latency", "ports"):
        if key not in e:
            raise ValueError(f"{manifest_path}: block {block!r} lacks {key!r}")
    return Path(manifest_path).parent / e["file"], e
