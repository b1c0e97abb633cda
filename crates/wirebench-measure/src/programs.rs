//! Finding the external programs a measurement runs (compilers, valgrind, brokers, `ip`, `tc`).

use std::path::PathBuf;

/// Find `program` on `PATH`, then in the sbin and bin directories (root's tools live there even
/// when a CI environment's `PATH` lacks them).
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/local/bin"].map(PathBuf::from))
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The folder under the user's cache where wirebench keeps what it unpacks or builds.
pub fn cache_root() -> Result<PathBuf, wirebench_core::part::PartError> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("wirebench"))
        .ok_or_else(|| {
            wirebench_core::part::PartError::failed(
                "neither XDG_CACHE_HOME nor HOME is set: wirebench needs a cache folder (or a checkout's folder)",
            )
        })
}

/// Write compiled-in files under `<cache>/wirebench/<folder>` (a file is rewritten only when
/// its content changed, so builds stay incremental; each is written beside and renamed into
/// place, since another run may be reading it) and return that folder.
pub fn unpack(folder: &str, files: &[(&str, &[u8])]) -> Result<PathBuf, wirebench_core::part::PartError> {
    let root = cache_root()?.join(folder);
    for (rel, bytes) in files {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(*bytes) {
            continue;
        }
        let dir = path.parent().expect("a relative path with a folder");
        std::fs::create_dir_all(dir)
            .map_err(|e| wirebench_core::part::PartError::failed(format!("{}: {e}", dir.display())))?;
        let tmp =
            dir.join(format!(".{}.{}", path.file_name().unwrap_or_default().to_string_lossy(), std::process::id()));
        std::fs::write(&tmp, bytes)
            .map_err(|e| wirebench_core::part::PartError::failed(format!("{}: {e}", tmp.display())))?;
        if rel.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755));
        }
        std::fs::rename(&tmp, &path)
            .map_err(|e| wirebench_core::part::PartError::failed(format!("{}: {e}", path.display())))?;
    }
    Ok(root)
}
