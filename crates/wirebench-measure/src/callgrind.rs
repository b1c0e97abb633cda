//! Deterministic instruction counts with valgrind's callgrind.
//!
//! The process runs under `valgrind --tool=callgrind --dump-after=wirebench_callgrind_boundary`:
//! callgrind writes one dump after every call of the boundary function, each holding the
//! instructions executed since the previous dump. For every case the child runs a short
//! warm-up, a boundary, `n` operations, a boundary; so every second dump is one measured
//! stretch. An empty operation measured the same way is subtracted (the loop's own cost).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The boundary callgrind dumps after. Never inlined, a plain C symbol for `--dump-after`.
#[no_mangle]
#[inline(never)]
pub extern "C" fn wirebench_callgrind_boundary() {
    black_box(());
}

/// Operations per measured stretch.
pub const OPS: u64 = 20;

/// In the child: run each closure as warm-up, boundary, `OPS` operations, boundary.
/// The first closure must be the empty operation (the loop's own cost).
pub fn run_segments(runs: &mut [&mut dyn FnMut(u64)]) {
    for run in runs.iter_mut() {
        run(2);
        wirebench_callgrind_boundary();
        run(OPS);
        wirebench_callgrind_boundary();
    }
}

/// Whether valgrind can be run.
pub fn available() -> bool {
    Command::new("valgrind").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Run `exe args` under callgrind, dumps into `dir`; returns instructions per operation for
/// each case (the empty operation already subtracted, so one fewer than the closures run).
pub fn count(exe: &Path, args: &[String], dir: &Path) -> Result<Vec<f64>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out_file = dir.join("callgrind.out");
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--dump-after=wirebench_callgrind_boundary")
        .arg("--dump-instr=no")
        .arg("--compress-strings=no")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(exe)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "valgrind run failed: {}",
            String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or("")
        ));
    }
    let mut dumps: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let n: u64 = name.strip_prefix("callgrind.out.")?.parse().ok()?;
            Some((n, p))
        })
        .collect();
    dumps.sort();
    let totals: Vec<u64> = dumps.iter().map(|(_, p)| total_of(p)).collect::<Result<_, _>>()?;
    // Dumps alternate warm-up / measured; the final dump (program exit) is ignored.
    let measured: Vec<f64> = totals.iter().skip(1).step_by(2).map(|t| *t as f64 / OPS as f64).collect();
    let Some((&empty, rest)) = measured.split_first() else {
        return Err("callgrind wrote no measured dumps".into());
    };
    Ok(rest.iter().map(|m| (m - empty).max(0.0)).collect())
}

fn total_of(path: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("totals:").or_else(|| l.strip_prefix("summary:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("{}: no totals line", path.display()))
}
