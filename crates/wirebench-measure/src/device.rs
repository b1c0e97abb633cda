//! The device part: what our C codecs cost on a microcontroller. Builds them with
//! arm-none-eabi-gcc for Cortex-M0+ and Cortex-M4 (a baseline firmware vs the same firmware with
//! the codec, the way seed 001 measures binary-size increase) and counts instructions per
//! encode/decode of each pson-paper payload under valgrind (host build). The C side does the
//! building (`make -C c size-arm instr`); this runs it and reads its CSV files.
//!
//! The C sources are compiled into the binary ([`SOURCES`]) and written out to a cache folder,
//! so it works from any directory and after `cargo install`; a checkout's own `c/` folder can
//! be named instead.

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
];

/// The programs the build needs, with the Debian packages that bring them.
const TOOLS: &[(&str, &str)] = &[
    ("make", "make"),
    ("cc", "gcc"),
    ("python3", "python3"),
    ("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi"),
    ("valgrind", "valgrind"),
];

/// Write the compiled-in sources under the user's cache folder (a file is rewritten only when
/// its content changed, so `make` stays incremental) and return its `c/` folder.
fn unpack_sources() -> Result<PathBuf, PartError> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| PartError::failed("neither XDG_CACHE_HOME nor HOME is set: pass --c-dir with a checkout's c/ folder"))?;
    let root = cache.join("wirebench").join(format!("device-{}", env!("CARGO_PKG_VERSION")));
    for (rel, bytes) in SOURCES {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(*bytes) {
            continue;
        }
        let dir = path.parent().expect("a relative path with a folder");
        std::fs::create_dir_all(dir).map_err(|e| PartError::failed(format!("{}: {e}", dir.display())))?;
        std::fs::write(&path, bytes).map_err(|e| PartError::failed(format!("{}: {e}", path.display())))?;
    }
    Ok(root.join("c"))
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
    let missing: Vec<&(&str, &str)> = TOOLS.iter().filter(|(program, _)| crate::programs::which(program).is_none()).collect();
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
            return Err(PartError::bad(format!("{}: no Makefile here (--c-dir names a checkout's c/ folder)", dir.display())))
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
        return Err(PartError::failed("arm-none-eabi-gcc is not installed: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"));
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
    })
}
