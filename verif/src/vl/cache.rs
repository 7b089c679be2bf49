//! Cache: where built models live and how they are named and shared. A model's key is its name
//! plus an FNV-1a-128 hash of everything that influences the library (bridge ABI, Verilog, shim,
//! `verilator --version`, every Verilator flag, the C++ -O level); its entry is
//! `<root>/<name>-<hash>/`. Builds of one key are serialised across threads and processes by an
//! in-process mutex plus a per-key `flock`; a build happens in a `.tmp-…` directory renamed into
//! place. The Verilator runtime objects, which do not depend on the design, are kept once per
//! (version, switches, -O) in `runtime-<hash>/`. Also: the target, cache and waves directories.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::{io_err, BridgeError, BRIDGE_ABI};

/// `<workspace>/target` (or `$CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("verif crate lives in the workspace")
        .join("target")
}

/// Default cache root: `$MRNIC_VLCACHE`, else `<workspace>/target/vlcache`.
pub fn default_cache_root() -> PathBuf {
    std::env::var_os("MRNIC_VLCACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("vlcache"))
}

/// Where waveforms of re-runs go: `$MRNIC_WAVES`, else `<workspace>/target/waves`.
pub fn waves_dir() -> PathBuf {
    std::env::var_os("MRNIC_WAVES")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("waves"))
}

/// FNV-1a, 128 bits: stable across Rust releases (unlike DefaultHasher).
pub(crate) struct Fnv128(u128);
impl Fnv128 {
    pub(crate) fn new() -> Self {
        Fnv128(0x6c62272e07bb014262b821756295c58d)
    }
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
        // field separator so ("ab","c") != ("a","bc")
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
    }
    pub(crate) fn hex(&self) -> String {
        format!("{:032x}", self.0)[..20].to_string()
    }
}

/// A name made safe for a file name (anything but `[A-Za-z0-9_-]` becomes `_`).
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}


/// The cache key (`<name>-<hash>`) of a model: everything that influences the library.
pub(crate) fn model_key(
    name: &str,
    verilog: &str,
    shim: &str,
    verilator_version: &str,
    flags: &[String],
    cxx_opt: &str,
) -> String {
    let mut h = Fnv128::new();
    h.write(&BRIDGE_ABI.to_le_bytes());
    h.write(verilog.as_bytes());
    h.write(shim.as_bytes());
    h.write(verilator_version.as_bytes());
    for f in flags {
        h.write(f.as_bytes());
    }
    h.write(cxx_opt.as_bytes());
    format!("{}-{}", sanitize(name), h.hex())
}

/// An existing entry with the same hash as `key` (`<name>-<hash>`) under another name, with
/// its library in place: the hash covers everything the library depends on, the name is only
/// for people. Build folders (`.tmp-…`) and the kept failures (`failed-…`) never match.
pub(crate) fn same_library(root: &Path, key: &str) -> Option<PathBuf> {
    let hash = key.rsplit_once('-')?.1;
    let suffix = format!("-{hash}");
    let own = root.join(key);
    if own.join(super::SO_NAME).is_file() {
        return Some(own);
    }
    fs::read_dir(root)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.ends_with(&suffix) && !n.starts_with('.') && !n.starts_with("failed-")
        })
        .map(|e| e.path())
        .find(|d| d.join(super::SO_NAME).is_file())
}

/// Directory of the runtime objects for a Verilator version, -O level and the switches
/// `Vtop_classes.mk` records (`VM_TRACE`, `VM_COVERAGE`, ...).
pub(crate) fn runtime_dir(
    root: &Path,
    verilator_version: &str,
    cxx_opt: &str,
    classes_mk: &str,
    globals: &[String],
) -> PathBuf {
    let mut rh = Fnv128::new();
    rh.write(&BRIDGE_ABI.to_le_bytes());
    rh.write(verilator_version.as_bytes());
    rh.write(cxx_opt.as_bytes());
    for l in classes_mk
        .lines()
        .filter(|l| l.starts_with("VM_") && !l.contains("+="))
    {
        rh.write(l.as_bytes());
    }
    for g in globals {
        rh.write(g.as_bytes());
    }
    root.join(format!("runtime-{}", rh.hex()))
}

/// Serialises heavy builds inside one process (the machine has 2 cores).
static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// Held while one key is being built: the in-process build mutex plus the key's `flock`
/// (`<root>/<key>.lock`), so concurrent builders of the same model (threads or processes) wait
/// and then reuse the entry. Released on drop.
pub(crate) struct KeyLock {
    _guard: MutexGuard<'static, ()>,
    file: fs::File,
}

impl KeyLock {
    pub(crate) fn acquire(root: &Path, key: &str) -> Result<KeyLock, BridgeError> {
        fs::create_dir_all(root).map_err(io_err(format!("create {}", root.display())))?;
        let guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let lock_path = root.join(format!("{key}.lock"));
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(format!("open {}", lock_path.display())))?;
        file.lock()
            .map_err(io_err(format!("lock {}", lock_path.display())))?;
        Ok(KeyLock {
            _guard: guard,
            file,
        })
    }
}

impl Drop for KeyLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// A fresh, unique temporary build directory under `root` for `key`.
pub(crate) fn tmp_dir(root: &Path, key: &str) -> PathBuf {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    root.join(format!(
        ".tmp-{key}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Object files of the Verilator runtime a model needs (VM_GLOBAL_FAST/SLOW in Vtop_classes.mk).
pub(crate) fn runtime_objects(classes_mk: &str) -> Vec<String> {
    // Format: `VM_GLOBAL_FAST += \` then one name per line, each ending in `\`, then a blank.
    let mut out = Vec::new();
    let mut in_global = false;
    for l in classes_mk.lines() {
        let t = l.trim();
        if let Some(rest) = t
            .strip_prefix("VM_GLOBAL_FAST")
            .or_else(|| t.strip_prefix("VM_GLOBAL_SLOW"))
        {
            in_global = rest.ends_with('\\');
            let names = rest.trim_start_matches([' ', '+', '=']);
            out.extend(
                names
                    .trim_end_matches('\\')
                    .split_whitespace()
                    .map(|n| format!("{n}.o")),
            );
            continue;
        }
        if in_global {
            out.extend(
                t.trim_end_matches('\\')
                    .split_whitespace()
                    .map(|n| format!("{n}.o")),
            );
            in_global = t.ends_with('\\');
        }
    }
    out
}

/// Store freshly compiled runtime objects for the next cold build (best effort, atomic).
pub(crate) fn save_runtime(root: &Path, rt_dir: &Path, obj: &Path, globals: &[String]) {
    if rt_dir.is_dir() {
        return;
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = root.join(format!(
        ".tmp-runtime-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let ok = fs::create_dir_all(&tmp).is_ok()
        && globals
            .iter()
            .all(|g| fs::copy(obj.join(g), tmp.join(g)).is_ok());
    if !ok || fs::rename(&tmp, rt_dir).is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_object_list() {
        let mk = "VM_CLASSES_FAST += \\\n  Vtop \\\n\nVM_GLOBAL_FAST += \\\n  verilated \\\n  verilated_fst_c \\\n\nVM_GLOBAL_SLOW += \\\n\nVM_FAST += $(VM_CLASSES_FAST)\n";
        assert_eq!(
            runtime_objects(mk),
            vec!["verilated.o", "verilated_fst_c.o"]
        );
    }

    #[test]
    fn a_library_built_under_another_name_is_found_by_its_hash() {
        let root = std::env::temp_dir().join(format!("mrnic-same-library-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let key = model_key("verify_rtx_core_zero", "v", "s", "5.0", &[], "-O2");
        let hash = key.rsplit_once('-').unwrap().1.to_string();
        assert_eq!(same_library(&root, &key), None, "empty cache");
        // Neither a build in progress, a kept failure, an entry without its library, nor
        // another hash matches.
        for d in [format!(".tmp-rtx_core-{hash}-1-0"), format!("failed-rtx_core-{hash}"), format!("rtx_tiny-{}", "0".repeat(20))] {
            fs::create_dir_all(root.join(&d)).unwrap();
            fs::write(root.join(&d).join(super::super::SO_NAME), b"").unwrap();
        }
        fs::create_dir_all(root.join(format!("empty-{hash}"))).unwrap();
        assert_eq!(same_library(&root, &key), None);
        let other = root.join(format!("rtx_core-{hash}"));
        fs::create_dir_all(&other).unwrap();
        fs::write(other.join(super::super::SO_NAME), b"").unwrap();
        assert_eq!(same_library(&root, &key), Some(other));
        // The key's own entry wins once it exists.
        let own = root.join(&key);
        fs::create_dir_all(&own).unwrap();
        fs::write(own.join(super::super::SO_NAME), b"").unwrap();
        assert_eq!(same_library(&root, &key), Some(own));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn key_changes_with_every_input() {
        let flags = vec!["--cc".to_string()];
        let base = model_key("m", "v", "s", "5.0", &flags, "-O2");
        assert!(base.starts_with("m-"), "{base}");
        assert_eq!(base, model_key("m", "v", "s", "5.0", &flags, "-O2"));
        let other_flags = vec!["--cc".to_string(), "--coverage-line".to_string()];
        for k in [
            model_key("m", "v2", "s", "5.0", &flags, "-O2"),
            model_key("m", "v", "s2", "5.0", &flags, "-O2"),
            model_key("m", "v", "s", "5.1", &flags, "-O2"),
            model_key("m", "v", "s", "5.0", &other_flags, "-O2"),
            model_key("m", "v", "s", "5.0", &flags, "-O3"),
        ] {
            assert_ne!(k, base);
        }
        assert_eq!(sanitize("a b/c$d"), "a_b_c_d");
    }
}
