//! The `micropython` part: the Python device codecs under MicroPython, as seed 000 reports
//! them (bytecode size per module, heap per encode/decode of its messages). `python/cost.sh`
//! builds MicroPython 1.25's unix port from Debian's source package (single and double
//! precision; `python/build-micropython-f32.sh`), compiles the modules with mpy-cross and runs
//! `python/cost.py` under each build; this part runs it and reads its JSON.
//!
//! The Python sources are compiled into the binary and written to the cache folder, so the
//! part runs from any directory; `python_dir` names a checkout's `python/` folder instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::micropython::{MicroPythonBuild, MicroPythonSection};

/// The files `cost.sh` needs, by their path in the repository.
const SOURCES: &[(&str, &[u8])] = &[
    ("python/cost.sh", include_bytes!("../../../python/cost.sh")),
    ("python/cost.py", include_bytes!("../../../python/cost.py")),
    ("python/build-micropython-f32.sh", include_bytes!("../../../python/build-micropython-f32.sh")),
    ("python/wirebench_device/__init__.py", include_bytes!("../../../python/wirebench_device/__init__.py")),
    ("python/wirebench_device/__main__.py", include_bytes!("../../../python/wirebench_device/__main__.py")),
    ("python/wirebench_device/jsonio.py", include_bytes!("../../../python/wirebench_device/jsonio.py")),
    ("python/wirebench_device/pson.py", include_bytes!("../../../python/wirebench_device/pson.py")),
    ("python/wirebench_device/uadp.py", include_bytes!("../../../python/wirebench_device/uadp.py")),
    ("python/wirebench_device/uadp_json.py", include_bytes!("../../../python/wirebench_device/uadp_json.py")),
];

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct MicroPythonOpts {
    /// A checkout's python/ folder (default: the sources compiled into this binary).
    #[arg(long)]
    pub python_dir: Option<PathBuf>,
}

/// The `[micropython]` part.
pub struct MicroPythonPart;

fn unpack() -> Result<PathBuf, PartError> {
    Ok(crate::programs::unpack(&format!("python-{}", env!("CARGO_PKG_VERSION")), SOURCES)?.join("python"))
}

/// What `cost.py` prints for one build (the keys this section keeps).
#[derive(serde::Deserialize)]
struct CostDoc {
    micropython: String,
    float: String,
    word_bits: u64,
    #[serde(default)]
    bytecode_bytes: BTreeMap<String, u64>,
    #[serde(default)]
    library_bytecode_bytes: BTreeMap<String, u64>,
    #[serde(default)]
    import_heap_bytes: BTreeMap<String, u64>,
    heap_bytes_per_message: Vec<wirebench_core::sections::micropython::HeapRow>,
}

fn parse(text: &str) -> Result<MicroPythonSection, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("cost.sh printed no JSON document: {e}"))?;
    let mpy_cross = v.get("mpy_cross").and_then(|x| x.as_str()).unwrap_or_default().to_string();
    let mut builds = Vec::new();
    for name in ["f32", "f64", "f32_32bit"] {
        if let Some(doc) = v.get(name) {
            let d: CostDoc = serde_json::from_value(doc.clone()).map_err(|e| format!("cost.sh: build {name}: {e}"))?;
            builds.push(MicroPythonBuild {
                name: name.into(),
                micropython: d.micropython,
                float: d.float,
                word_bits: d.word_bits,
                bytecode_bytes: d.bytecode_bytes,
                library_bytecode_bytes: d.library_bytecode_bytes,
                import_heap_bytes: d.import_heap_bytes,
                heap_bytes_per_message: d.heap_bytes_per_message,
            });
        }
    }
    if builds.is_empty() {
        return Err("cost.sh reported no MicroPython build".into());
    }
    Ok(MicroPythonSection {
        mpy_cross,
        builds,
        notes: vec![
            "MicroPython 1.25's unix port built from Debian's source package (python/build-micropython-f32.sh): single \
             precision as the board ports (esp32, rp2, stm32, samd), double precision, and a 32-bit build when gcc-multilib \
             is installed (closest to the ESP32's 32-bit heap objects). Not a board: no ESP32 is attached here."
                .into(),
            "Heap: one warm-up run, gc.collect(), the collector off, gc.mem_alloc() before and after one more run \
             (allocated = every byte taken, garbage included; retained = still allocated after a collection)."
                .into(),
            "Bytecode: each module compiled by mpy-cross 1.25 (.mpy), as a board stores it in flash.".into(),
        ],
    })
}

impl Part for MicroPythonPart {
    const NAME: &'static str = "micropython";
    type Options = MicroPythonOpts;
    type Section = MicroPythonSection;

    fn validate(opts: &MicroPythonOpts) -> Result<(), PartError> {
        if let Some(d) = &opts.python_dir {
            if !d.join("cost.sh").is_file() {
                return Err(PartError::bad(format!(
                    "{}: no cost.sh here (--python-dir names a checkout's python/ folder)",
                    d.display()
                )));
            }
        }
        let missing: Vec<&str> =
            ["bash", "python3", "make", "cc"].into_iter().filter(|p| crate::programs::which(p).is_none()).collect();
        if !missing.is_empty() {
            return Err(PartError::failed(format!(
                "the micropython part builds MicroPython with {}, which are not on PATH (Debian: apt-get install build-essential python3 dpkg-dev)",
                missing.join(", ")
            )));
        }
        Ok(())
    }

    fn run(opts: &MicroPythonOpts) -> Result<MicroPythonSection, PartError> {
        Self::validate(opts)?;
        let dir = match &opts.python_dir {
            Some(d) => d.clone(),
            None => unpack()?,
        };
        let out = Command::new("bash")
            .arg(Path::new(&dir).join("cost.sh"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| PartError::failed(format!("cannot run bash: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
            return Err(PartError::failed(format!("python/cost.sh failed: {last}")));
        }
        parse(&String::from_utf8_lossy(&out.stdout)).map_err(PartError::failed)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_what_cost_py_prints() {
        let doc = r#"{"mpy_cross": "mpy-cross v1.25.0", "f32": {"micropython": "1.25.0", "build": "standard", "float": "f32",
            "word_bits": 64, "imported_from": "mpy", "bytecode_bytes": {"pson": 8596}, "library_bytecode_bytes": {"uadp": 27445},
            "import_heap_bytes": {"pson": 19456}, "heap_bytes_per_message": [{"format": "uadp", "fields": 5, "wire_bytes": 58,
            "encode": {"allocated": 4000, "retained": 96}, "decode": {"allocated": 4608, "retained": 896}}], "thesis": {}}}"#;
        let s = super::parse(doc).unwrap();
        assert_eq!(s.builds.len(), 1);
        assert_eq!(s.builds[0].heap_bytes_per_message[0].encode.allocated, 4000);
        assert_eq!(s.builds[0].library_bytecode_bytes["uadp"], 27445);
        assert!(super::parse("{}").is_err());
        assert!(super::parse("not json").unwrap_err().contains("no JSON"));
    }
}
