//! Pieces every command shares: the bad-input error (exit code 2), reading inputs and schemas,
//! writing stdout, provenance.

use std::io::{Read, Seek, Write};
use std::path::Path;

use anyhow::{Context, Result};
use wirebench_codecs::{Codec, CodecError};
use wirebench_core::corpus;
use wirebench_core::part::PartError;
use wirebench_core::results::{Machine, Provenance};
use wirebench_core::Schema;
use wirebench_measure::study::inputs;

/// An error caused by the user's input: exit code 2.
#[derive(Debug)]
pub struct BadInput(String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// A finished run whose check failed, with its own exit code (`compare --fail-on-regression`:
/// 1 for a regression, 3 when the host reference moved and no verdict can be given).
#[derive(Debug)]
pub struct CheckFailed(pub u8, pub String);

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl std::error::Error for CheckFailed {}

/// The one line an error is reported in: its causes joined by `: `, line breaks as spaces, and
/// every other control byte (ESC, BEL, NUL, ...) escaped, so that an input echoed in a message
/// cannot drive the terminal.
pub fn error_line(e: &anyhow::Error) -> String {
    let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    wirebench_codecs::escape_controls(&chain.join(": ").replace(['\n', '\r'], " "))
}

pub fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}

/// A part's error as the CLI reports it: bad input exits with code 2.
pub fn part_error(e: PartError) -> anyhow::Error {
    match e {
        PartError::BadInput(m) => bad(m),
        PartError::Failed(m) => anyhow::anyhow!(m),
    }
}

pub fn find_codec(id: &str) -> Result<&'static dyn Codec> {
    inputs::find_codec(id).map_err(part_error)
}

/// A schema file with `--type NAME` for files that hold several messages / records / structs,
/// and the include paths of a .proto file's imports (`-I DIR`).
pub fn read_schema_with(path: &Path, type_name: Option<&str>, proto_path: &[std::path::PathBuf]) -> Result<Schema> {
    inputs::read_schema_with(path, type_name, proto_path).map_err(part_error)
}

pub fn read_input(path: Option<&Path>) -> Result<(String, Vec<u8>)> {
    match path {
        Some(p) => {
            // A file that is not there was named wrongly (usage, exit 2); any other read
            // failure is the environment's (exit 1).
            let bytes = std::fs::read(p).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory => bad(format!("{}: {e}", p.display())),
                _ => anyhow::anyhow!("{}: {e}", p.display()),
            })?;
            Ok((p.display().to_string(), bytes))
        }
        None => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).context("reading stdin")?;
            Ok(("<stdin>".into(), bytes))
        }
    }
}

/// Write all of `bytes` to stdout; a closed pipe is not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing stdout"),
    }
}

pub fn codec_error(name: &str, codec: &dyn Codec, e: CodecError) -> anyhow::Error {
    bad(wirebench_codecs::escape_controls(&format!("{name}: {}: {e}", codec.info().id)))
}

pub fn sample_error(e: corpus::SampleError) -> anyhow::Error {
    bad(e.to_string())
}

pub fn provenance(seed: u64) -> Provenance {
    let mut crates: Vec<(String, String)> =
        wirebench_codecs::CRATE_VERSIONS.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    crates.sort();
    Provenance {
        wirebench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("WIREBENCH_GIT_COMMIT").into(),
        rustc: env!("WIREBENCH_RUSTC").into(),
        crates,
        machine: Machine::detect(),
        command: redact_command(std::env::args()),
        started_at: now_rfc3339(),
        seed,
    }
}

/// The command line as results record it: the value of `--password` and the password of any
/// `scheme://user:password@host` URL replaced by `***`.
pub fn redact_command(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut secret_next = false;
    for a in args {
        if std::mem::take(&mut secret_next) {
            out.push(wirebench_mqtt::REDACTED.to_string());
        } else if a == "--password" {
            secret_next = true;
            out.push(a);
        } else if a.starts_with("--password=") {
            out.push(format!("--password={}", wirebench_mqtt::REDACTED));
        } else if a.contains("://") {
            out.push(wirebench_mqtt::redact_url(&a));
        } else {
            out.push(a);
        }
    }
    out
}

/// The current UTC time as RFC 3339, from the system clock (no time crate needed).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Fail early (before measuring) when a results file cannot be written there: the folder must
/// exist and take a new file (a probe file is created and removed, so a read-only folder or file
/// system is found now, not after the measurement). An output that cannot be written is the
/// environment's failure (exit 1), as when the write itself fails; exit 2 is for bad input and
/// usage.
pub fn check_writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!("{}: directory {} does not exist", path.display(), dir.display());
    }
    if path.is_dir() {
        anyhow::bail!("{}: is a directory", path.display());
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // What an earlier run ended by `kill -9` left of its staging, gone before this one starts.
    wirebench_core::results::remove_stale_staging(dir, &name);
    let probe = dir.join(format!(".{name}.probe.{}", std::process::id()));
    match std::fs::File::create_new(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => anyhow::bail!("{}: cannot write in {}: {e}", path.display(), dir.display()),
    }
    Ok(())
}

/// Claim a command's `--out` file before it measures anything: the destination must take a new
/// file ([`check_writable`]), and the file is locked for the run ([`FolderLock`] on
/// `.<name>.lock` beside it), so that a second command writing there at the same time is
/// refused at start, naming the holder, instead of one replacing the other's results. Keep the
/// lock for the length of the run.
#[must_use = "the output is locked only while the lock lives"]
pub fn claim_output(path: Option<&Path>) -> Result<Option<FolderLock>> {
    let Some(path) = path else { return Ok(None) };
    check_writable(path)?;
    FolderLock::take_for(path, "output").map(Some)
}

/// Write a command's results file (`--out`) atomically; a failure is the environment's (exit 1).
pub fn write_results(results: &wirebench_core::results::Results, path: &Path) -> Result<()> {
    results.write_atomic(path).map_err(|e| anyhow::anyhow!("writing the results file: {e}"))
}

/// The lock of an output folder for the length of a run, so that two runs into one folder
/// cannot replace each other's results: `flock(2)` on `.<folder name>.lock` beside the folder
/// (not in it: writing a results set exchanges the folder with a new one), which holds the
/// holder's pid and start time. A second run is refused at once, naming the holder (exit 1: the
/// environment, like an output that cannot be written). The kernel drops the lock when its
/// holder ends however it ends (`kill -9` too), so a lock file left behind never blocks a run;
/// a run that ends normally removes it.
#[derive(Debug)]
pub struct FolderLock {
    path: std::path::PathBuf,
    _file: std::fs::File,
    /// A signal that ends the run removes the lock file too (the kernel drops the lock itself).
    _on_signal: wirebench_core::signals::HookGuard,
}

impl FolderLock {
    /// Take the lock of folder `dir` (creating the folder's parent if needed).
    pub fn take(dir: &Path) -> Result<FolderLock> {
        FolderLock::take_for(dir, "output folder")
    }

    /// Take the lock of `dir`, a folder or a file, named `what` in the refusal.
    pub fn take_for(dir: &Path, what: &str) -> Result<FolderLock> {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let name = dir
            .file_name()
            .filter(|n| *n != "..")
            .ok_or_else(|| bad(format!("{}: name a folder, not . or ..", dir.display())))?
            .to_string_lossy()
            .into_owned();
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).with_context(|| format!("{}: creating {}", dir.display(), parent.display()))?;
        let path = parent.join(format!(".{name}.lock"));
        let cannot = |e: std::io::Error| {
            anyhow::anyhow!("{}: cannot lock the output folder ({}): {e}", dir.display(), path.display())
        };
        loop {
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(cannot)?;
            // SAFETY: flock(2) on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                    return Err(cannot(e));
                }
                // The holder writes its pid right after taking the lock: on a busy host that
                // can be a moment later, so wait for it a little (at most 0.5 s).
                let mut holder = String::new();
                for _ in 0..50 {
                    holder.clear();
                    let _ = file.seek(std::io::SeekFrom::Start(0)).and_then(|_| file.read_to_string(&mut holder));
                    if !holder.trim().is_empty() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                let holder = holder.trim();
                let holder = if holder.is_empty() { "another process".to_string() } else { holder.replace('\n', ", ") };
                let other = if what == "output folder" { "folder" } else { "file" };
                anyhow::bail!(
                    "{}: the {what} is in use by another wirebench run ({}); wait for it to end or name another {other}",
                    dir.display(),
                    wirebench_codecs::escape_controls(&holder)
                );
            }
            // The file may have been removed (by a holder that just ended) between the open and
            // the lock: then this lock guards nothing, so try again on the file now there.
            let same = std::fs::metadata(&path)
                .ok()
                .zip(file.metadata().ok())
                .is_some_and(|(p, f)| p.ino() == f.ino() && p.dev() == f.dev());
            if !same {
                continue;
            }
            let text = format!("pid {}, started {}\n", std::process::id(), now_rfc3339());
            let written = file.set_len(0).and_then(|_| file.write_all(text.as_bytes())).and_then(|_| file.flush());
            written.map_err(cannot)?;
            let on_signal = {
                let path = path.clone();
                wirebench_core::signals::on_signal(move |_| {
                    let _ = std::fs::remove_file(&path);
                })
            };
            return Ok(FolderLock { path, _file: file, _on_signal: on_signal });
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still held (the descriptor closes after): a run that opened the file
        // before the removal finds it gone after locking it, and tries again.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_escape_control_bytes() {
        let e = bad("no such format \"x\x1b[2J\x07\0\"").context("reading\nthe input");
        assert_eq!(error_line(&e), "reading the input: no such format \"x\\x1b[2J\\x07\\x00\"");
    }

    #[test]
    fn passwords_are_redacted_from_the_command_line() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            redact_command(args(&[
                "wb",
                "--password",
                "p1",
                "--password=p2",
                "--broker",
                "mqtt://u:p3@h:1",
                "--broker=mqtts://u:p4@h",
                "mqtt://h:1",
            ])),
            args(&[
                "wb",
                "--password",
                "***",
                "--password=***",
                "--broker",
                "mqtt://u:***@h:1",
                "--broker=mqtts://u:***@h",
                "mqtt://h:1"
            ])
        );
    }
}
