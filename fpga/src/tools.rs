//! Finding and running the YoWASP tools (yosys, nextpnr, ecppack / icepack): PATH first,
//! then the setup script's venv; each run logged to a file, and a failure reported with the
//! log's path and its last lines.

use crate::error::FpgaError;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Directories searched after PATH: the setup script's venv.
fn tool_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![];
    if let Ok(t) = std::env::var("MRNIC_TOOLS") {
        dirs.push(PathBuf::from(t).join("venv/bin"));
    }
    if let Ok(h) = std::env::var("HOME") {
        dirs.push(PathBuf::from(h).join(".cache/mrnic-tools/venv/bin"));
    }
    dirs
}

/// Finds an executable on PATH, then in the setup script's tool directory.
pub fn find_tool(name: &str) -> Result<PathBuf, FpgaError> {
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(tool_dirs())
        .map(|d| d.join(name))
        .find(|c| c.is_file())
        .ok_or_else(|| FpgaError::ToolMissing { tool: name.to_string() })
}

/// The YoWASP cache directory the setup script made (shared, so the first slow compile of
/// the WebAssembly happens once), unless `YOWASP_CACHE_DIR` is already set.
pub fn yowasp_cache_dir() -> Option<PathBuf> {
    if std::env::var_os("YOWASP_CACHE_DIR").is_some() {
        return None;
    }
    tool_dirs().into_iter().map(|d| d.join("../../yowasp-cache")).find(|c| c.is_dir())
}

/// A command for a YoWASP tool, with the setup script's cache directory.
pub fn tool_command(name: &str) -> Result<Command, FpgaError> {
    let mut cmd = Command::new(find_tool(name)?);
    if let Some(cache) = yowasp_cache_dir() {
        cmd.env("YOWASP_CACHE_DIR", cache);
    }
    Ok(cmd)
}

/// The first non-empty line a tool prints for `arg` (e.g. `-V`), or why there is none.
pub fn tool_version(name: &str, arg: &str) -> String {
    let Ok(mut cmd) = tool_command(name) else { return "missing".into() };
    match cmd.arg(arg).output() {
        Ok(o) => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Runs `cmd` in `dir` with stdout and stderr into `log`; on failure the error names the
/// log and quotes its last 25 lines.
pub fn run_logged(mut cmd: Command, dir: &Path, log: &Path, tool: &str) -> Result<(), FpgaError> {
    let f = File::create(log).map_err(FpgaError::io(log))?;
    let f2 = f.try_clone().map_err(FpgaError::io(log))?;
    cmd.current_dir(dir).stdin(Stdio::null()).stdout(f).stderr(f2);
    let status = cmd
        .status()
        .map_err(|source| FpgaError::ToolStart { tool: tool.to_string(), source })?;
    if !status.success() {
        let text = fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(25)..].join("\n");
        return Err(FpgaError::ToolFailed {
            tool: tool.to_string(),
            status: status.to_string(),
            log: log.to_path_buf(),
            tail,
        });
    }
    Ok(())
}
