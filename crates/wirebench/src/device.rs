//! `device`: what our C codecs cost on a microcontroller. Builds them with arm-none-eabi-gcc
//! for Cortex-M0+ and Cortex-M4 (a baseline firmware vs the same firmware with the codec, the
//! way seed 001 measures binary-size increase) and counts instructions per encode/decode of
//! each pson-paper payload under valgrind (host build). The C side does the building
//! (`make -C c size-arm instr`); this command runs it, reads its CSV files, and reports.
//!
//! The C sources it builds are compiled into this binary ([`SOURCES`]) and written out to a
//! cache folder, so the command works from any directory and after `cargo install`;
//! `--c-dir` builds a checkout's own `c/` folder instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;
use wirebench_core::results::Results;
use wirebench_report::table::Table;

use crate::common::*;
use crate::DeviceArgs;

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

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// Write the compiled-in sources under the user's cache folder (a file is rewritten only when
/// its content changed, so `make` stays incremental) and return its `c/` folder.
fn unpack_sources() -> Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| anyhow::anyhow!("neither XDG_CACHE_HOME nor HOME is set: pass --c-dir with a checkout's c/ folder"))?;
    let root = cache.join("wirebench").join(format!("device-{}", env!("CARGO_PKG_VERSION")));
    for (rel, bytes) in SOURCES {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(*bytes) {
            continue;
        }
        let dir = path.parent().expect("a relative path with a folder");
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        std::fs::write(&path, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    Ok(root.join("c"))
}

/// Read a CSV file of plain fields (no quoting) into header + rows.
fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines.next().unwrap_or_default().split(',').map(|s| s.trim().to_string()).collect();
    let rows = lines.map(|l| l.split(',').map(|s| s.trim().to_string()).collect()).collect();
    Ok((header, rows))
}

fn to_json(header: &[String], rows: &[Vec<String>]) -> serde_json::Value {
    serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                let mut m = serde_json::Map::new();
                for (h, v) in header.iter().zip(r) {
                    let val = v.parse::<i64>().map(serde_json::Value::from).unwrap_or_else(|_| serde_json::Value::from(v.clone()));
                    m.insert(h.clone(), val);
                }
                serde_json::Value::Object(m)
            })
            .collect(),
    )
}

pub fn device(args: DeviceArgs) -> Result<()> {
    let missing: Vec<&(&str, &str)> = TOOLS.iter().filter(|(program, _)| !on_path(program)).collect();
    if !missing.is_empty() {
        let programs: Vec<&str> = missing.iter().map(|(p, _)| *p).collect();
        let packages: Vec<&str> = missing.iter().map(|(_, pkg)| *pkg).collect();
        return Err(anyhow::anyhow!(
            "wirebench device builds C with {}, which are not on PATH (Debian/Ubuntu: apt-get install {})",
            programs.join(", "),
            packages.join(" ")
        ));
    }
    let dir: PathBuf = match &args.c_dir {
        Some(dir) if !dir.join("Makefile").is_file() => {
            return Err(bad(format!("{}: no Makefile here (--c-dir names a checkout's c/ folder)", dir.display())))
        }
        Some(dir) => dir.clone(),
        None => unpack_sources()?,
    };
    let status = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(&dir)
        .args(["size-arm", "instr"])
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| anyhow::anyhow!("cannot run make: {e}"))?;
    if !status.success() {
        return Err(anyhow::anyhow!("make -C {} size-arm instr failed (needs gcc-arm-none-eabi, libnewlib-arm-none-eabi and valgrind)", dir.display()));
    }
    let sizes_path = dir.join("build/arm/sizes.csv");
    if !sizes_path.is_file() {
        return Err(bad("arm-none-eabi-gcc is not installed: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"));
    }
    let (sh, sizes) = read_csv(&sizes_path)?;
    let (ih, instr) = read_csv(&dir.join("build/instr.csv"))?;
    let col = |h: &[String], name: &str| h.iter().position(|x| x == name);
    let mut out = String::new();
    let mut t = Table::new(
        "Code size added by each C codec (arm-none-eabi-gcc -Os, gc-sections; text bytes over a baseline firmware)",
        &["cpu", "codec", "encoder", "decoder", "encoder + decoder", "library object"],
    )
    .numeric_from(2);
    let (c_cpu, c_codec, c_var, c_text, c_dtext) =
        (col(&sh, "cpu"), col(&sh, "codec"), col(&sh, "variant"), col(&sh, "text"), col(&sh, "delta_text"));
    if let (Some(cc), Some(cd), Some(cv), Some(ct), Some(cdt)) = (c_cpu, c_codec, c_var, c_text, c_dtext) {
        let mut keys: Vec<(String, String)> = Vec::new();
        for r in &sizes {
            let k = (r[cc].clone(), r[cd].clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for (cpu, codec) in keys {
            let get = |variant: &str, colix: usize| {
                sizes
                    .iter()
                    .find(|r| r[cc] == cpu && r[cd] == codec && r[cv] == variant)
                    .map(|r| r[colix].clone())
                    .unwrap_or_else(|| "-".into())
            };
            t.push(vec![
                cpu.clone(),
                codec.clone(),
                format!("+{}", get("enc", cdt)),
                format!("+{}", get("dec", cdt)),
                format!("+{}", get("enc+dec", cdt)),
                get("object", ct),
            ]);
        }
    }
    out.push_str(&t.to_text());
    let mut it = Table::new(
        "Instructions per operation, C PSON codec (x86-64 host build, valgrind callgrind; decode = validate every item)",
        &ih.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    )
    .numeric_from(1);
    for r in &instr {
        it.push(r.clone());
    }
    out.push('\n');
    out.push_str(&it.to_text());
    out.push_str(
        "\nSeed 001 reports binary-size increases only as percentages in its Figures 5-6 (ESP32 baseline \
         260,710 B, Arduino UNO baseline 592 B) and library source sizes in its Table 2 (e.g. Protoson \
         31,294 B, NanoPB 42,000 B, not compiled); source size is not code size, so only our compiled \
         deltas are figures to compare between codecs.\n",
    );
    let mut results = Results::new(provenance(0), serde_json::json!({"measurement": "device", "c_dir": dir}));
    results.other.insert(
        "device".into(),
        serde_json::json!({
            "toolchain": "arm-none-eabi-gcc -Os -ffunction-sections -fdata-sections -Wl,--gc-sections",
            "code_size": to_json(&sh, &sizes),
            "instructions": to_json(&ih, &instr),
        }),
    );
    if let Some(p) = &args.out {
        results.write_atomic(p).map_err(|e| bad(e.to_string()))?;
    }
    write_stdout(out.as_bytes())
}
