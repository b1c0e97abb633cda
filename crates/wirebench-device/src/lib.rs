//! The device part: what our C codecs cost on a microcontroller. Builds them with
//! arm-none-eabi-gcc for Cortex-M0+ and Cortex-M4 (a baseline firmware vs the same firmware with
//! the codec, the way seed 001 measures binary-size increase) and counts instructions per
//! encode/decode of each pson-paper payload under valgrind (host build). The C side does the
//! building (`make -C c size-arm instr`); this runs it and reads its CSV files.
//!
//! The C sources are compiled into the binary ([`SOURCES`]) and written out to a cache folder,
//! so it works from any directory and after `cargo install`; a checkout's own `c/` folder can
//! be named instead.

pub mod drivers;
pub mod lab;
pub mod part;
pub mod plan;

use std::path::{Path, PathBuf};
use std::process::Command;

use wirebench_core::part::PartError;
use wirebench_core::sections::device::{CodeSize, DeviceSection, Instructions};

/// The files `make size-arm instr` needs, by their path in the repository.
const SOURCES: &[(&str, &[u8])] = &[
    ("c/Makefile", include_bytes!("../../../c/Makefile")),
    ("c/include/pson.h", include_bytes!("../../../c/include/pson.h")),
    ("c/include/uadp.h", include_bytes!("../../../c/include/uadp.h")),
    ("c/include/cdr.h", include_bytes!("../../../c/include/cdr.h")),
    ("c/src/pson.c", include_bytes!("../../../c/src/pson.c")),
    ("c/src/uadp.c", include_bytes!("../../../c/src/uadp.c")),
    ("c/src/cdr.c", include_bytes!("../../../c/src/cdr.c")),
    ("c/src/wb_utf8.h", include_bytes!("../../../c/src/wb_utf8.h")),
    ("c/size/app.c", include_bytes!("../../../c/size/app.c")),
    ("c/size/app_uadp.c", include_bytes!("../../../c/size/app_uadp.c")),
    ("c/size/app_cdr.c", include_bytes!("../../../c/size/app_cdr.c")),
    ("c/size/startup.c", include_bytes!("../../../c/size/startup.c")),
    ("c/size/link.ld", include_bytes!("../../../c/size/link.ld")),
    ("c/size/size_arm.sh", include_bytes!("../../../c/size/size_arm.sh")),
    ("c/tools/instr.sh", include_bytes!("../../../c/tools/instr.sh")),
    ("c/tools/instr_pson.c", include_bytes!("../../../c/tools/instr_pson.c")),
    ("c/tests/gen_instr_payloads.py", include_bytes!("../../../c/tests/gen_instr_payloads.py")),
    ("c/tests/gen_vectors.py", include_bytes!("../../../c/tests/gen_vectors.py")),
    ("vectors/pson.json", include_bytes!("../../../vectors/pson.json")),
    ("c/lab/wb_lab.h", include_bytes!("../../../c/lab/wb_lab.h")),
    ("c/lab/lab_main.c", include_bytes!("../../../c/lab/lab_main.c")),
    ("c/lab/libs/fetch.py", include_bytes!("../../../c/lab/libs/fetch.py")),
    ("c/lab/avr/avr_run.c", include_bytes!("../../../c/lab/avr/avr_run.c")),
    ("c/lab/avr/avr_lab.c", include_bytes!("../../../c/lab/avr/avr_lab.c")),
    ("c/lab/arm/armsim.py", include_bytes!("../../../c/lab/arm/armsim.py")),
    ("c/lab/arm/cycles.py", include_bytes!("../../../c/lab/arm/cycles.py")),
    ("c/lab/arm/link.ld", include_bytes!("../../../c/lab/arm/link.ld")),
    ("c/lab/arm/startup.c", include_bytes!("../../../c/lab/arm/startup.c")),
    ("c/lab/arm/requirements.txt", include_bytes!("../../../c/lab/arm/requirements.txt")),
    ("c/lab/arm/CYCLES.md", include_bytes!("../../../c/lab/arm/CYCLES.md")),
];

/// The programs the build needs, with the Debian packages that bring them.
const TOOLS: &[(&str, &str)] = &[
    ("make", "make"),
    ("cc", "gcc"),
    ("python3", "python3"),
    ("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi"),
    ("valgrind", "valgrind"),
];

pub use wirebench_measure::programs::{cache_root, unpack};

/// The compiled-in C sources, unpacked; returns their `c/` folder.
fn unpack_sources() -> Result<PathBuf, PartError> {
    Ok(unpack(&format!("device-{}", env!("CARGO_PKG_VERSION")), SOURCES)?.join("c"))
}

/// A CSV file of plain fields (no quoting): header and rows.
fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), PartError> {
    let text = std::fs::read_to_string(path).map_err(|e| PartError::failed(format!("{}: {e}", path.display())))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines.next().unwrap_or_default().split(',').map(|s| s.trim().to_string()).collect();
    let rows = lines.map(|l| l.split(',').map(|s| s.trim().to_string()).collect()).collect();
    Ok((header, rows))
}

/// The cell of column `name` as text or integer; a malformed file names itself.
struct Cells<'a> {
    path: &'a Path,
    header: &'a [String],
}

impl Cells<'_> {
    fn text(&self, row: &[String], name: &str) -> Result<String, PartError> {
        self.header
            .iter()
            .position(|h| h == name)
            .and_then(|i| row.get(i))
            .cloned()
            .ok_or_else(|| PartError::failed(format!("{}: no column {name:?} in a row", self.path.display())))
    }

    /// An integer, or none for an empty cell.
    fn opt_int(&self, row: &[String], name: &str) -> Result<Option<i64>, PartError> {
        if self.text(row, name)?.is_empty() {
            return Ok(None);
        }
        self.int(row, name).map(Some)
    }

    fn int(&self, row: &[String], name: &str) -> Result<i64, PartError> {
        let t = self.text(row, name)?;
        t.parse().map_err(|_| PartError::failed(format!("{}: {name} = {t:?} is not an integer", self.path.display())))
    }
}

/// Build (in `c_dir`, or in the compiled-in sources unpacked under the cache folder) and read
/// the code sizes and instruction counts.
pub fn measure(c_dir: Option<&Path>) -> Result<DeviceSection, PartError> {
    let missing: Vec<&(&str, &str)> =
        TOOLS.iter().filter(|(program, _)| wirebench_measure::programs::which(program).is_none()).collect();
    if !missing.is_empty() {
        let programs: Vec<&str> = missing.iter().map(|(p, _)| *p).collect();
        let packages: Vec<&str> = missing.iter().map(|(_, pkg)| *pkg).collect();
        return Err(PartError::failed(format!(
            "wirebench device builds C with {}, which are not on PATH (Debian/Ubuntu: apt-get install {})",
            programs.join(", "),
            packages.join(" ")
        )));
    }
    let dir: PathBuf = match c_dir {
        Some(dir) if !dir.join("Makefile").is_file() => {
            return Err(PartError::bad(format!(
                "{}: no Makefile here (--c-dir names a checkout's c/ folder)",
                dir.display()
            )))
        }
        Some(dir) => dir.to_path_buf(),
        None => unpack_sources()?,
    };
    let status = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(&dir)
        .args(["size-arm", "instr"])
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| PartError::failed(format!("cannot run make: {e}")))?;
    if !status.success() {
        return Err(PartError::failed(format!(
            "make -C {} size-arm instr failed (needs gcc-arm-none-eabi, libnewlib-arm-none-eabi and valgrind)",
            dir.display()
        )));
    }
    let sizes_path = dir.join("build/arm/sizes.csv");
    if !sizes_path.is_file() {
        return Err(PartError::failed(
            "arm-none-eabi-gcc is not installed: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi",
        ));
    }
    let (header, rows) = read_csv(&sizes_path)?;
    let c = Cells { path: &sizes_path, header: &header };
    let code_size = rows
        .iter()
        .map(|r| {
            Ok(CodeSize {
                cpu: c.text(r, "cpu")?,
                codec: c.text(r, "codec")?,
                variant: c.text(r, "variant")?,
                text: c.int(r, "text")?,
                data: c.int(r, "data")?,
                bss: c.int(r, "bss")?,
                delta_text: c.opt_int(r, "delta_text")?,
                delta_data: c.opt_int(r, "delta_data")?,
                delta_bss: c.opt_int(r, "delta_bss")?,
            })
        })
        .collect::<Result<_, PartError>>()?;
    let instr_path = dir.join("build/instr.csv");
    let (header, rows) = read_csv(&instr_path)?;
    let c = Cells { path: &instr_path, header: &header };
    let instructions = rows
        .iter()
        .map(|r| {
            Ok(Instructions {
                payload: c.text(r, "payload")?,
                encode_instr: c.int(r, "encode_instr")?,
                decode_instr: c.int(r, "decode_instr")?,
            })
        })
        .collect::<Result<_, PartError>>()?;
    Ok(DeviceSection {
        toolchain: "arm-none-eabi-gcc -Os -ffunction-sections -fdata-sections -Wl,--gc-sections".into(),
        code_size,
        instructions,
        lab: None,
    })
}

/// What `wirebench device` and the `[device]` study part measure on the lab.
#[derive(Clone, Debug)]
pub struct LabOptions {
    pub targets: Vec<lab::Target>,
    pub libs: Vec<drivers::Lib>,
    pub payloads: Vec<(String, wirebench_core::value::Value)>,
    /// The schema both ends share (`--schema`): the drivers' C types and nanopb's .proto come
    /// from it (field numbers and declared types of a .proto); `None`: inferred per payload.
    pub schema: Option<wirebench_core::Schema>,
    /// A checkout's root (with c/), instead of the sources compiled into the binary.
    pub root: Option<PathBuf>,
    pub jobs: usize,
}

/// Names separated by commas (or several such lists), or `all`, as the distinct items of
/// `known` (none given: all of them); `what` names the kind in the error.
fn parse_names<T: Copy + PartialEq>(
    lists: &[&str],
    known: &[T],
    name: fn(T) -> &'static str,
    what: &str,
) -> Result<Vec<T>, PartError> {
    let mut out = Vec::new();
    for item in lists.iter().flat_map(|l| l.split(',')).map(str::trim) {
        let found: Vec<T> = if item == "all" {
            known.to_vec()
        } else {
            let item = if what == "target" { wirebench_core::names::lab_target_alias(item) } else { item };
            let one = known.iter().copied().find(|k| name(*k) == item).ok_or_else(|| {
                let names: Vec<&str> = known.iter().map(|k| name(*k)).collect();
                PartError::bad(format!("unknown {what} {item:?} (known: {}, or all)", names.join(", ")))
            })?;
            vec![one]
        };
        for x in found {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    Ok(if out.is_empty() { known.to_vec() } else { out })
}

/// Parse `--targets`: names separated by commas, or `all`.
pub fn parse_targets(list: &str) -> Result<Vec<lab::Target>, PartError> {
    parse_names(&[list], &lab::Target::ALL, lab::Target::name, "target")
}

/// Parse `--libs`: names separated by commas, or `all`.
pub fn parse_libs(list: &str) -> Result<Vec<drivers::Lib>, PartError> {
    parse_names(&[list], &drivers::Lib::ALL, drivers::Lib::name, "library")
}

/// `--targets` and `--libs` as given (each entry may itself be a comma list).
pub fn parse_target_lists(lists: &[String]) -> Result<Vec<lab::Target>, PartError> {
    parse_names(&lists.iter().map(String::as_str).collect::<Vec<_>>(), &lab::Target::ALL, lab::Target::name, "target")
}

pub fn parse_lib_lists(lists: &[String]) -> Result<Vec<drivers::Lib>, PartError> {
    parse_names(
        &lists.iter().map(String::as_str).collect::<Vec<_>>(),
        &drivers::Lib::ALL,
        drivers::Lib::name,
        "library",
    )
}

/// The programs a target needs, with the Debian packages that bring them; the Python
/// modules of the Cortex-M simulator are checked by importing them.
fn missing_for(target: lab::Target) -> Vec<String> {
    let mut missing = Vec::new();
    let tools: &[(&str, &str)] = match target {
        lab::Target::Avr => &[("avr-gcc", "gcc-avr avr-libc"), ("avr-size", "binutils-avr"), ("cc", "gcc")],
        _ => &[("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi"), ("python3", "python3")],
    };
    for (program, package) in tools {
        if wirebench_measure::programs::which(program).is_none() {
            missing.push(format!("{program} (apt-get install {package})"));
        }
    }
    if target == lab::Target::Avr && !Path::new("/usr/include/simavr/sim_avr.h").exists() {
        missing.push("libsimavr (apt-get install libsimavr-dev)".into());
    }
    if target != lab::Target::Avr && missing.is_empty() {
        let ok = Command::new("python3")
            .args(["-c", "import unicorn, capstone, elftools"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            missing.push(
                "the Python modules unicorn, capstone, pyelftools (pip install -r c/lab/arm/requirements.txt)".into(),
            );
        }
    }
    missing
}

/// Run the device lab. Targets whose tools are missing, and libraries whose sources cannot
/// be fetched, get rows with the reason; the run itself fails only when nothing can run.
pub fn run_lab(opts: &LabOptions) -> Result<wirebench_core::sections::device::LabSection, PartError> {
    run_lab_with(opts, &|_| {})
}

/// [`run_lab`], with `finished` seeing the section of the firmwares done so far after each one
/// (so that a signal can still write them). A signal (SIGINT, SIGTERM, SIGHUP) ends the lab's
/// compilers and simulators and removes its build folder; build folders of runs that ended
/// without cleaning up (`kill -9`) are removed when the next run starts.
pub fn run_lab_with(
    opts: &LabOptions,
    finished: &(dyn Fn(&wirebench_core::sections::device::LabSection) + Sync),
) -> Result<wirebench_core::sections::device::LabSection, PartError> {
    let root = match &opts.root {
        Some(r) => r.clone(),
        None => unpack_sources()?.parent().expect("the c/ folder has a parent").to_path_buf(),
    };
    let cache = cache_root()?;
    let libs_dir = cache.join("lab-libs");
    remove_stale_builds(&cache);
    let build = cache.join(format!("lab-build-{}", std::process::id()));
    let _cleanup = RemoveOnDrop(build.clone());
    let _on_signal = {
        let build = build.clone();
        wirebench_core::signals::on_signal(move |_| {
            wirebench_core::signals::end_descendants();
            if std::env::var_os("WIREBENCH_KEEP_LAB").is_none() {
                let _ = std::fs::remove_dir_all(&build);
            }
        })
    };
    std::fs::create_dir_all(&build).map_err(|e| PartError::failed(format!("{}: {e}", build.display())))?;

    // Peer libraries from Debian's archive (pinned, checked); a failure leaves their rows
    // with the reason.
    let peers: Vec<&str> = opts
        .libs
        .iter()
        .filter_map(|l| match l {
            drivers::Lib::Nanopb => Some("nanopb"),
            drivers::Lib::Cjson => Some("cjson"),
            drivers::Lib::Msgpuck => Some("msgpuck"),
            drivers::Lib::Tinycbor => Some("tinycbor"),
            drivers::Lib::Tinyxml2 => Some("tinyxml2"),
            _ => None,
        })
        .collect();
    let mut lib_failure: Option<String> = None;
    if !peers.is_empty() {
        match Command::new("python3").arg(root.join("c/lab/libs/fetch.py")).arg(&libs_dir).args(&peers).output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => {
                lib_failure =
                    Some(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("fetch.py failed").to_string())
            }
            Err(e) => lib_failure = Some(format!("cannot run python3 to fetch them ({e}; apt-get install python3)")),
        }
    }
    if opts.libs.contains(&drivers::Lib::Nanopb)
        && wirebench_measure::programs::which("nanopb_generator").is_none()
        && wirebench_measure::programs::which("nanopb_generator.py").is_none()
    {
        lib_failure.get_or_insert_with(|| "nanopb_generator is not on PATH (apt-get install nanopb)".into());
    }

    let mut runnable = Vec::new();
    let mut refused: Vec<(lab::Target, String)> = Vec::new();
    for &t in &opts.targets {
        let missing = missing_for(t);
        if missing.is_empty() {
            runnable.push(t);
        } else {
            refused.push((
                t,
                format!(
                    "not measured here: missing {} (or, as root: wirebench setup --install device)",
                    missing.join(", ")
                ),
            ));
        }
    }
    if runnable.contains(&lab::Target::Avr) {
        let built = Command::new("cc")
            .args(["-O2", "-o"])
            .arg(build.join("avr_run"))
            .arg(root.join("c/lab/avr/avr_run.c"))
            .args(["-isystem", "/usr/include/simavr", "-lsimavr"])
            .status();
        if !matches!(built, Ok(s) if s.success()) {
            runnable.retain(|t| *t != lab::Target::Avr);
            let why = match built {
                Err(e) => format!("not measured here: cannot run cc ({e}; apt-get install gcc)"),
                Ok(_) => "not measured here: c/lab/avr/avr_run.c does not build against libsimavr (apt-get install libsimavr-dev)".into(),
            };
            refused.push((lab::Target::Avr, why));
        }
    }
    let cfg = lab::LabConfig {
        targets: runnable,
        libs: opts.libs.clone(),
        payloads: opts.payloads.clone(),
        schema: opts.schema.clone(),
        root: &root,
        libs_dir: &libs_dir,
        build: &build,
        jobs: opts.jobs,
    };
    // The rows of targets that cannot run here, and the library sources' failure, in every
    // section (the finished one and those seen on the way).
    let complete = |section: &mut wirebench_core::sections::device::LabSection| {
        if let Some(why) = &lib_failure {
            for row in &mut section.rows {
                if peers.contains(&row.lib.as_str()) && row.status != "ok" {
                    row.status = format!("{} (library sources: {why})", row.status);
                }
            }
        }
        for (t, why) in &refused {
            for lib in &opts.libs {
                for (payload, _) in &opts.payloads {
                    section.rows.push(wirebench_core::sections::device::LabRow {
                        target: t.name().into(),
                        lib: lib.name().into(),
                        payload: payload.clone(),
                        status: why.clone(),
                        ..Default::default()
                    });
                }
            }
        }
    };
    let section = lab::measure_with(&cfg, &|s| {
        let mut s = s.clone();
        complete(&mut s);
        finished(&s);
    });
    // Ended by a signal: its hooks end the process; what the lab returns now is not a result.
    wirebench_core::signals::wait_if_ending();
    let mut section = section?;
    complete(&mut section);
    Ok(section)
}

/// Remove the build folders (`lab-build-<pid>`) of lab runs whose process is gone: a run ended
/// by `kill -9` cannot clean up after itself.
fn remove_stale_builds(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("lab-build-")).and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !wirebench_core::signals::process_alive(pid) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if std::env::var_os("WIREBENCH_KEEP_LAB").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
