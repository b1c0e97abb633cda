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
