//! The device lab: every (target, library, payload) built as a firmware and run on a
//! simulator of its microcontroller. AVR (ATmega328P, the Arduino UNO) runs on simavr,
//! cycle-exact (`c/lab/avr/avr_run.c`); Cortex-M0+ and Cortex-M4 run on unicorn with a
//! per-instruction cycle model of each core (`c/lab/arm/armsim.py`, its sources and known
//! error in `c/lab/arm/CYCLES.md`).
//!
//! Per firmware: the encoded bytes (checked on the host: our codec of the same format
//! decodes them to the payload), cycles and instructions of one encode and one decode
//! (marker cost subtracted), µs at the target's clock, flash and RAM over the baseline
//! firmware of the same payload, and the peak stack and heap of each operation (painted
//! RAM). A library that does not build, does not fit or does not round-trip on a target
//! gets its row with the reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use wirebench_core::part::PartError;
use wirebench_core::sections::device::{LabLib, LabRow, LabSection, LabTarget, ObjectSize};
use wirebench_core::value::Value;

use super::drivers::{driver, nanopb_proto, Lib};
use super::plan::Plan;

/// A target of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Avr,
    CortexM0Plus,
    CortexM4,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Avr, Target::CortexM0Plus, Target::CortexM4];

    pub fn name(self) -> &'static str {
        match self {
            Target::Avr => "avr",
            Target::CortexM0Plus => "cortex-m0plus",
            Target::CortexM4 => "cortex-m4",
        }
    }

    /// Clock in Hz of the part the figures are stated for.
    pub fn clock_hz(self) -> u64 {
        match self {
            Target::Avr => 16_000_000,
            Target::CortexM0Plus => 48_000_000,
            Target::CortexM4 => 64_000_000,
        }
    }

    fn info(self) -> LabTarget {
        let (part, toolchain, simulator) = match self {
            Target::Avr => (
                "ATmega328P (Arduino UNO), 32 KiB flash, 2 KiB SRAM, 16 MHz",
                "avr-gcc 5.4 (Debian gcc-avr) -Os, avr-libc 2.0; double is 32 bit",
                "simavr 1.6 (Debian), cycle-exact per instruction",
            ),
            Target::CortexM0Plus => (
                "Cortex-M0+ (as a SAMD21G18: 256 KiB flash, 32 KiB SRAM), 48 MHz",
                "arm-none-eabi-gcc 12.2 -Os -mthumb, newlib-nano",
                "unicorn 2.1.4 + the Cortex-M0+ cycle model of c/lab/arm (0 flash wait states)",
            ),
            Target::CortexM4 => (
                "Cortex-M4 (as an nRF52840: 1 MiB flash, 256 KiB SRAM), 64 MHz, soft float",
                "arm-none-eabi-gcc 12.2 -Os -mthumb (soft float), newlib-nano",
                "unicorn 2.1.4 + the Cortex-M4 cycle model of c/lab/arm (0 flash wait states)",
            ),
        };
        LabTarget {
            name: self.name().into(),
            part: part.into(),
            clock_hz: self.clock_hz(),
            toolchain: toolchain.into(),
            simulator: simulator.into(),
            cycles: if self == Target::Avr { "exact" } else { "modelled" }.into(),
        }
    }

    fn cc(self) -> &'static str {
        if self == Target::Avr {
            "avr-gcc"
        } else {
            "arm-none-eabi-gcc"
        }
    }

    fn cxx(self) -> &'static str {
        if self == Target::Avr {
            "avr-g++"
        } else {
            "arm-none-eabi-g++"
        }
    }

    /// C++ flags: the C flags with a C++ standard, no exceptions and no RTTI (as embedded C++
    /// is built).
    fn cxxflags(self, root: &Path) -> Vec<String> {
        self.cflags(root)
            .into_iter()
            .map(|f| if f == "-std=gnu99" { "-std=gnu++11".to_string() } else { f })
            .chain(["-fno-exceptions", "-fno-rtti"].map(String::from))
            .collect()
    }

    fn size_tool(self) -> &'static str {
        if self == Target::Avr {
            "avr-size"
        } else {
            "arm-none-eabi-size"
        }
    }

    fn cflags(self, root: &Path) -> Vec<String> {
        let mut f: Vec<String> = match self {
            Target::Avr => vec!["-mmcu=atmega328p".into(), "-DF_CPU=16000000UL".into(), "-DWB_BUF_SIZE=384".into()],
            Target::CortexM0Plus => vec!["-mcpu=cortex-m0plus".into(), "-mthumb".into()],
            Target::CortexM4 => vec!["-mcpu=cortex-m4".into(), "-mthumb".into(), "-mfloat-abi=soft".into()],
        };
        f.extend(["-Os", "-std=gnu99", "-ffunction-sections", "-fdata-sections"].map(String::from));
        for inc in ["lab", "include"] {
            f.push(format!("-I{}", root.join("c").join(inc).display()));
        }
        f
    }

    fn link_flags(self, root: &Path) -> Vec<String> {
        // The allocator is wrapped for the heap's high-water mark (lab_main.c).
        let wrap = "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc".to_string();
        match self {
            Target::Avr => vec!["-Wl,--gc-sections".into(), wrap],
            _ => {
                let ram = if self == Target::CortexM0Plus { "32K" } else { "256K" };
                vec![
                    wrap,
                    "-nostartfiles".into(),
                    "--specs=nano.specs".into(),
                    "--specs=nosys.specs".into(),
                    "-Wl,--gc-sections".into(),
                    format!("-Wl,--defsym=WB_RAM_SIZE={ram}"),
                    "-T".into(),
                    root.join("c/lab/arm/link.ld").display().to_string(),
                ]
            }
        }
    }

    /// The target's own lab support file (wb_exit, startup).
    fn support(self, root: &Path) -> Vec<PathBuf> {
        match self {
            Target::Avr => vec![root.join("c/lab/avr/avr_lab.c")],
            _ => vec![root.join("c/lab/arm/startup.c")],
        }
    }
}

/// What to measure.
pub struct LabConfig<'a> {
    pub targets: Vec<Target>,
    pub libs: Vec<Lib>,
    pub payloads: Vec<(String, Value)>,
    /// The shared schema, else each payload's own inferred one.
    pub schema: Option<wirebench_core::Schema>,
    /// Where the lab sources and libraries are (a checkout's root, or the unpacked cache).
    pub root: &'a Path,
    /// Where the peer libraries are fetched to.
    pub libs_dir: &'a Path,
    /// Build folder of this run.
    pub build: &'a Path,
    pub jobs: usize,
}

/// Libraries devices use that the lab cannot build here, with the reason.
pub const NOT_HERE: &[(&str, &str)] = &[
    ("ArduinoJson", "seed 001's JSON library: C++ for the Arduino core, not in Debian or a registry reachable here; cJSON stands for JSON"),
    ("MiniBSON", "seed 001's BSON library: not packaged anywhere reachable here"),
    ("Protoson", "Thinger.io's PSON library (seed 001): not packaged anywhere reachable here; our C PSON codec writes the same format"),
    ("libcbor", "Debian's libcbor source (0.8.0) is not served by the archive here; TinyCBOR stands for CBOR"),
];

fn lib_sources(lib: Lib, root: &Path, libs: &Path) -> Vec<PathBuf> {
    let c = root.join("c/src");
    match lib {
        Lib::Baseline => vec![],
        Lib::Pson => vec![c.join("pson.c")],
        Lib::Uadp => vec![c.join("uadp.c")],
        Lib::Cdr => vec![c.join("cdr.c")],
        Lib::Nanopb => {
            ["pb_encode.c", "pb_decode.c", "pb_common.c"].iter().map(|f| libs.join("nanopb").join(f)).collect()
        }
        Lib::Cjson => vec![libs.join("cjson/cJSON.c")],
        Lib::Msgpuck => vec![libs.join("msgpuck/msgpuck.c")],
        Lib::Tinycbor => ["cborencoder.c", "cborparser.c", "cborencoder_float.c", "cborparser_float.c"]
            .iter()
            .map(|f| libs.join("tinycbor/src").join(f))
            .collect(),
        Lib::Tinyxml2 => vec![libs.join("tinyxml2/tinyxml2.cpp")],
    }
}

fn lib_includes(lib: Lib, libs: &Path) -> Vec<String> {
    let dir = match lib {
        Lib::Nanopb => libs.join("nanopb"),
        Lib::Cjson => libs.join("cjson"),
        Lib::Msgpuck => libs.join("msgpuck"),
        Lib::Tinycbor => libs.join("tinycbor/src"),
        Lib::Tinyxml2 => libs.join("tinyxml2"),
        _ => return vec![],
    };
    vec![format!("-I{}", dir.display())]
}

/// Extra link flags a library's users need on a target: cJSON and TinyXML2 print and read
/// numbers with printf/scanf, whose float support newlib-nano and avr-libc leave out unless asked.
fn lib_link(lib: Lib, target: Target) -> Vec<String> {
    match (lib, target) {
        (Lib::Cjson | Lib::Tinyxml2, Target::Avr) => {
            ["-Wl,-u,vfprintf", "-lprintf_flt", "-Wl,-u,vfscanf", "-lscanf_flt", "-lm"].map(String::from).to_vec()
        }
        (Lib::Cjson | Lib::Tinyxml2, _) => ["-u", "_printf_float", "-u", "_scanf_float"].map(String::from).to_vec(),
        _ => vec![],
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| format!("{what}: cannot start: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // The most telling line: a region that overflowed, an undefined symbol, a compile
        // error; the linker's closing "ld returned 1" says nothing.
        let pick = |needle: &str| err.lines().find(|l| l.contains(needle) && !l.contains("ld returned"));
        let first = pick("overflowed")
            .or_else(|| pick("will not fit"))
            .or_else(|| pick("undefined reference"))
            .or_else(|| pick("error"))
            .or_else(|| err.lines().next())
            .unwrap_or("")
            .trim();
        let first = first.rsplit_once("/ld: ").map(|(_, m)| m).unwrap_or(first);
        if first.contains("out of ram")
            || first.contains("not within region `data'")
            || first.contains("region `data' overflowed")
            || first.contains("region `RAM' overflowed")
        {
            return Err(format!("{what}: does not fit the target's RAM ({first})"));
        }
        return Err(format!("{what}: {first}"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// text, data, bss of an ELF (berkeley format).
fn sizes(target: Target, elf: &Path) -> Result<(u64, u64, u64), String> {
    let out = run(Command::new(target.size_tool()).arg(elf), "size")?;
    let line = out.lines().nth(1).ok_or("size printed nothing")?;
    let n: Vec<u64> = line.split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
    match n[..] {
        [t, d, b] => Ok((t, d, b)),
        _ => Err(format!("size: cannot read {line:?}")),
    }
}

/// What the simulator reported.
#[derive(Default, Debug, Clone)]
struct SimOut {
    marks: BTreeMap<u8, (u64, u64)>,
    out: Vec<String>,
    exit: Option<u8>,
}

fn simulate(target: Target, root: &Path, build: &Path, elf: &Path) -> Result<SimOut, String> {
    let mut cmd = match target {
        Target::Avr => {
            let mut c = Command::new(build.join("avr_run"));
            c.args(["--mcu", "atmega328p", "--freq", "16000000"]);
            c
        }
        _ => {
            let mut c = Command::new("python3");
            c.arg(root.join("c/lab/arm/armsim.py")).args(["--cpu", target.name()]);
            c
        }
    };
    let text = run(cmd.arg(elf), "simulator")?;
    let mut sim = SimOut::default();
    for line in text.lines() {
        let mut w = line.splitn(2, ' ');
        match (w.next(), w.next()) {
            (Some("mark"), Some(rest)) | (Some("exit"), Some(rest)) => {
                let n: Vec<u64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
                if n.len() != 3 {
                    return Err(format!("simulator: cannot read {line:?}"));
                }
                if line.starts_with("mark") {
                    sim.marks.insert(n[0] as u8, (n[1], n[2]));
                } else {
                    sim.exit = Some(n[0] as u8);
                }
            }
            (Some("out"), Some(rest)) => sim.out.push(rest.to_string()),
            (Some("out"), None) => sim.out.push(String::new()),
            _ => {}
        }
    }
    Ok(sim)
}

impl SimOut {
    fn value(&self, key: &str) -> Option<&str> {
        self.out.iter().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
    }

    fn num(&self, key: &str) -> Option<u64> {
        self.value(key).and_then(|v| v.parse().ok())
    }

    /// (cycles, instructions) between two markers, less the marker's own cost.
    fn span(&self, start: u8, end: u8) -> Option<(u64, u64)> {
        let (c0, i0) = *self.marks.get(&start)?;
        let (c1, i1) = *self.marks.get(&end)?;
        let (k0, j0) = *self.marks.get(&wirebench_cal::START)?;
        let (k1, j1) = *self.marks.get(&wirebench_cal::END)?;
        Some(((c1 - c0).saturating_sub(k1 - k0), (i1 - i0).saturating_sub(j1 - j0)))
    }
}

mod wirebench_cal {
    pub const START: u8 = 0x7E;
    pub const END: u8 = 0x7F;
}

fn hex(bytes: &str) -> Option<Vec<u8>> {
    (0..bytes.len()).step_by(2).map(|i| bytes.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// Build and run one firmware; `Err` is the row's reason.
#[derive(Clone)]
struct Built {
    flash: u64,
    ram: u64,
}

/// Compile what every firmware of (target, lib) shares once: the library's sources, the lab
/// firmware and the target's support file. `Lib::Baseline` stands for the shared files alone.
fn prebuild(cfg: &LabConfig, target: Target, lib: Lib) -> Result<Vec<PathBuf>, String> {
    let dir = cfg.build.join(target.name()).join("obj").join(lib.name());
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let sources: Vec<PathBuf> = if lib == Lib::Baseline {
        let mut v = vec![cfg.root.join("c/lab/lab_main.c")];
        v.extend(target.support(cfg.root));
        v
    } else {
        lib_sources(lib, cfg.root, cfg.libs_dir)
    };
    let mut objs = Vec::new();
    for src in sources {
        if !src.is_file() {
            return Err(format!("{} sources missing: {}", lib.name(), src.display()));
        }
        let obj = dir.join(format!("{}.o", src.file_stem().unwrap_or_default().to_string_lossy()));
        let cxx = src.extension().is_some_and(|e| e == "cpp");
        let mut cmd = Command::new(if cxx { target.cxx() } else { target.cc() });
        cmd.args(if cxx { target.cxxflags(cfg.root) } else { target.cflags(cfg.root) })
            .args(lib_includes(lib, cfg.libs_dir))
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(&obj);
        run(&mut cmd, &format!("{} does not build for {}", lib.name(), target.name()))?;
        objs.push(obj);
    }
    Ok(objs)
}

fn build_fw(
    cfg: &LabConfig,
    target: Target,
    lib: Lib,
    plan: &Plan,
    dir: &Path,
    objs: &[PathBuf],
) -> Result<(PathBuf, Built), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let drv = dir.join(format!("drv_{}.{}", lib.name(), if lib.is_cxx() { "cpp" } else { "c" }));
    std::fs::write(&drv, driver(lib, plan)).map_err(|e| format!("{}: {e}", drv.display()))?;
    let mut extra: Vec<PathBuf> = Vec::new();
    if lib == Lib::Nanopb {
        let (proto, opts) = nanopb_proto(plan);
        std::fs::write(dir.join("payload.proto"), proto).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("payload.options"), opts).map_err(|e| e.to_string())?;
        run(Command::new(nanopb_generator()).arg("-q").arg("payload.proto").current_dir(dir), "nanopb_generator")?;
        extra.push(dir.join("payload.pb.c"));
    }
    let elf = dir.join(format!("fw_{}.elf", lib.name()));
    // A C++ library is compiled and linked by the C++ compiler (its runtime: new/delete).
    let mut cmd = Command::new(if lib.is_cxx() { target.cxx() } else { target.cc() });
    cmd.args(if lib.is_cxx() { target.cxxflags(cfg.root) } else { target.cflags(cfg.root) })
        .args(lib_includes(lib, cfg.libs_dir))
        .arg(format!("-I{}", dir.display()))
        .arg("-o")
        .arg(&elf)
        .arg(&drv)
        .args(&extra)
        .args(objs)
        .args(target.link_flags(cfg.root))
        .args(lib_link(lib, target));
    run(&mut cmd, &format!("{} does not build for {}", lib.name(), target.name()))?;
    let (text, data, bss) = sizes(target, &elf)?;
    Ok((elf, Built { flash: text + data, ram: data + bss }))
}

fn nanopb_generator() -> &'static str {
    if wirebench_measure::programs::which("nanopb_generator").is_some() {
        "nanopb_generator"
    } else {
        "nanopb_generator.py"
    }
}

/// Check the bytes a device wrote with the host codec of the same format: they must decode
/// to the payload (floats compared as float32 on a target whose double is 32 bit), read with
/// the user's schema when the run has one (a .proto: as protoc reads them).
fn host_check(
    lib: Lib,
    bytes: &[u8],
    value: &Value,
    given: Option<&wirebench_core::Schema>,
    f32_only: bool,
) -> Result<(), String> {
    let (_, codec_id) = lib.format();
    if codec_id.is_empty() {
        return Ok(());
    }
    let codec = wirebench_codecs::find(codec_id).ok_or_else(|| format!("no host codec {codec_id}"))?;
    let schema = match given {
        Some(s) => s.clone(),
        None => {
            let schema = wirebench_core::schema::Schema::infer(std::iter::once(value));
            if f32_only {
                narrow_floats(&schema)
            } else {
                schema
            }
        }
    };
    let got = codec
        .decode(bytes, Some(&schema))
        .map_err(|e| format!("the host {codec_id} decoder refuses the device's bytes: {e}"))?;
    // Under the user's schema the values are what the host codec itself reads back from its
    // own encoding (a float32 field holds the float32 nearest the sample's number).
    let want = match given {
        Some(_) => {
            let mut own = Vec::new();
            codec
                .encode(value, Some(&schema), &mut own)
                .and_then(|()| codec.decode(&own, Some(&schema)))
                .map_err(|e| format!("the host {codec_id} codec cannot round-trip the payload: {e}"))?
        }
        None => value.clone(),
    };
    if same(&got, &want, f32_only) {
        Ok(())
    } else {
        Err(format!("the host {codec_id} decoder reads other values from the device's bytes"))
    }
}

fn narrow_floats(s: &wirebench_core::schema::Schema) -> wirebench_core::schema::Schema {
    use wirebench_core::schema::Type;
    fn walk(t: &Type) -> Type {
        match t {
            Type::Float { .. } => Type::Float { bits: 32 },
            Type::Array { items } => Type::Array { items: Box::new(walk(items)) },
            Type::Record { name, fields } => Type::Record {
                name: name.clone(),
                fields: fields.iter().map(|f| wirebench_core::schema::Field { ty: walk(&f.ty), ..f.clone() }).collect(),
            },
            t => t.clone(),
        }
    }
    wirebench_core::schema::Schema { root: walk(&s.root), native: None, ..s.clone() }
}

/// Values equal as the device holds them (map order free; numbers by value).
fn same(a: &Value, b: &Value, f32_only: bool) -> bool {
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && y.iter().all(|(k, v)| x.iter().any(|(k2, v2)| k2 == k && same(v2, v, f32_only)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q, f32_only)),
        _ => match (a.as_i128(), b.as_i128()) {
            (Some(p), Some(q)) => p == q,
            _ => match (a.as_float().or(a.as_i128().map(|i| i as f64)), b.as_float().or(b.as_i128().map(|i| i as f64)))
            {
                (Some(p), Some(q)) if f32_only => p as f32 == q as f32,
                (Some(p), Some(q)) => p == q,
                _ => a == b,
            },
        },
    }
}

/// The declarations our C codecs need from <string.h> (they use no other libc function): the
/// Xtensa LX106 toolchain in Debian has no C library.
const FREESTANDING_STRING_H: &str = "#include <stddef.h>\nvoid *memcpy(void *, const void *, size_t);\n\
void *memmove(void *, const void *, size_t);\nvoid *memset(void *, int, size_t);\n\
int memcmp(const void *, const void *, size_t);\nsize_t strlen(const char *);\n";

/// What the lab says about the ESP32, and our codecs' object sizes for Xtensa LX106 when its
/// compiler is installed (Debian gcc-xtensa-lx106).
fn xtensa(cfg: &LabConfig) -> (String, Vec<ObjectSize>) {
    let mut note =
        "ESP32 (Xtensa LX6, seeds 000 and 001): no figures from execution; no emulator of it is available here \
                    (Debian's QEMU has no ESP32 machine, unicorn no Xtensa)."
            .to_string();
    if wirebench_measure::programs::which("xtensa-lx106-elf-gcc").is_none() {
        note.push_str(
            " Object sizes with the closest toolchain need xtensa-lx106-elf-gcc (apt-get install gcc-xtensa-lx106).",
        );
        return (note, vec![]);
    }
    let dir = cfg.build.join("xtensa");
    let shim = dir.join("include");
    if std::fs::create_dir_all(&shim).is_err() || std::fs::write(shim.join("string.h"), FREESTANDING_STRING_H).is_err()
    {
        return (note, vec![]);
    }
    let mut out = Vec::new();
    for lib in ["pson", "uadp", "cdr"] {
        let obj = dir.join(format!("{lib}.o"));
        let built = run(
            Command::new("xtensa-lx106-elf-gcc")
                .args(["-std=c99", "-Os", "-ffunction-sections", "-fdata-sections", "-ffreestanding", "-isystem"])
                .arg(&shim)
                .arg(format!("-I{}", cfg.root.join("c/include").display()))
                .arg("-c")
                .arg(cfg.root.join("c/src").join(format!("{lib}.c")))
                .arg("-o")
                .arg(&obj),
            "xtensa-lx106-elf-gcc",
        );
        let size = built.and_then(|_| run(Command::new("xtensa-lx106-elf-size").arg(&obj), "xtensa-lx106-elf-size"));
        if let Ok(text) = size {
            let n: Vec<u64> =
                text.lines().nth(1).unwrap_or("").split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
            if let [t, d, b] = n[..] {
                out.push(ObjectSize { lib: lib.into(), text: t, data: d, bss: b });
            }
        }
    }
    if !out.is_empty() {
        note.push_str(" Given instead: our C codecs' object sizes for Xtensa LX106 (the ESP8266's core, the closest toolchain here: \
                       Debian gcc-xtensa-lx106 12.2 -Os), compiled only, every function, no C library linked.");
    }
    (note, out)
}

/// The shared objects of one (target, library), or why they did not build.
type Objects = Result<Vec<PathBuf>, String>;
/// One firmware's outcome: built and run, or the reason for its row.
type Measured = (Target, Lib, usize, Result<(Built, SimOut), String>);

/// Measure every (target, library, payload) of `cfg`.
pub fn measure(cfg: &LabConfig) -> Result<LabSection, PartError> {
    measure_with(cfg, &|_| {})
}

/// [`measure`], with `finished` seeing the section of the firmwares built and run so far after
/// each one (rows whose baseline firmware is not done yet left out, no Xtensa objects), so that
/// a signal can still write them.
pub fn measure_with(cfg: &LabConfig, finished: &(dyn Fn(&LabSection) + Sync)) -> Result<LabSection, PartError> {
    let mut jobs: Vec<(Target, Lib, usize)> = Vec::new();
    for &t in &cfg.targets {
        for p in 0..cfg.payloads.len() {
            jobs.push((t, Lib::Baseline, p));
            for &l in &cfg.libs {
                jobs.push((t, l, p));
            }
        }
    }
    // The shared objects first, (target, lib) pairs in parallel.
    let mut pre: Vec<(Target, Lib)> = Vec::new();
    for &t in &cfg.targets {
        pre.push((t, Lib::Baseline));
        pre.extend(cfg.libs.iter().map(|&l| (t, l)));
    }
    let pre_queue = Mutex::new(pre);
    let objects: Mutex<BTreeMap<(Target, Lib), Objects>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..cfg.jobs.max(1) {
            s.spawn(|| loop {
                let Some((t, l)) = pre_queue.lock().unwrap().pop() else { break };
                let r = prebuild(cfg, t, l);
                objects.lock().unwrap().insert((t, l), r);
            });
        }
    });
    let objects = objects.into_inner().unwrap();
    let objs_for = |t: Target, l: Lib| -> Result<Vec<PathBuf>, String> {
        let mut v = objects.get(&(t, Lib::Baseline)).cloned().unwrap_or_else(|| Err("not built".into()))?;
        if l != Lib::Baseline {
            v.extend(objects.get(&(t, l)).cloned().unwrap_or_else(|| Err("not built".into()))?);
        }
        Ok(v)
    };
    let total = jobs.len();
    let queue = Mutex::new(jobs.into_iter().rev().collect::<Vec<_>>());
    let rows: Mutex<Vec<Measured>> = Mutex::new(Vec::new());
    // On a terminal: firmwares built and run so far, with the time left.
    let progress = Mutex::new(wirebench_measure::progress::Progress::items("device lab", "firmwares"));
    std::thread::scope(|s| {
        for _ in 0..cfg.jobs.max(1) {
            s.spawn(|| loop {
                // A signal ending the run: no more firmwares (their children would be ended).
                if wirebench_core::signals::received().is_some() {
                    break;
                }
                let Some((t, l, p)) = queue.lock().unwrap().pop() else { break };
                let (name, value) = &cfg.payloads[p];
                let dir = cfg.build.join(t.name()).join(name);
                let r = Plan::with_schema(name, value, cfg.schema.as_ref(), t == Target::Avr)
                    .map_err(|u| u.0)
                    .and_then(|plan| {
                        let objs = objs_for(t, l)?;
                        let (elf, built) = build_fw(cfg, t, l, &plan, &dir, &objs)?;
                        let sim = simulate(t, cfg.root, cfg.build, &elf)?;
                        Ok((built, sim))
                    });
                // Reasons name files by their name in the firmware's folder, not the run's
                // temporary build path.
                let r = r.map_err(|e| e.replace(&format!("{}/", dir.display()), ""));
                let (done, so_far) = {
                    let mut rows = rows.lock().unwrap();
                    rows.push((t, l, p, r));
                    (rows.len(), rows.clone())
                };
                // Once a signal is ending the run, the firmwares its hook stopped are not results.
                if wirebench_core::signals::received().is_none() {
                    finished(&section_of(cfg, so_far, true, (String::new(), Vec::new())));
                }
                if let Ok(mut pr) = progress.lock() {
                    pr.update(done, total);
                }
            });
        }
    });
    if let Ok(mut pr) = progress.lock() {
        pr.finish();
    }
    let rows = rows.into_inner().unwrap();
    Ok(section_of(cfg, rows, false, xtensa(cfg)))
}

/// The section of the firmwares in `rows`; `partial`: rows whose baseline firmware is not among
/// them are left out (not yet known, rather than failed).
fn section_of(
    cfg: &LabConfig,
    mut rows: Vec<Measured>,
    partial: bool,
    xtensa: (String, Vec<ObjectSize>),
) -> LabSection {
    rows.sort_by_key(|(t, l, p, _)| (*t, *p, *l));
    let mut baseline: BTreeMap<(Target, usize), (u64, u64)> = BTreeMap::new();
    for (t, l, p, r) in &rows {
        if *l == Lib::Baseline {
            if let Ok((b, _)) = r {
                baseline.insert((*t, *p), (b.flash, b.ram));
            }
        }
    }
    let (esp32, xtensa_objects) = xtensa;
    let done: Vec<(Target, usize)> =
        rows.iter().filter(|(_, l, _, _)| *l == Lib::Baseline).map(|(t, _, p, _)| (*t, *p)).collect();
    let mut out = Vec::new();
    for (t, l, p, r) in rows {
        if l == Lib::Baseline || (partial && !done.contains(&(t, p))) {
            continue;
        }
        let (name, value) = &cfg.payloads[p];
        let mut row =
            LabRow { target: t.name().into(), lib: l.name().into(), payload: name.clone(), ..LabRow::default() };
        match r.and_then(|(b, sim)| fill(&mut row, (t, l), value, cfg.schema.as_ref(), &b, &sim, baseline.get(&(t, p))))
        {
            Ok(()) => row.status = "ok".into(),
            Err(reason) => row.status = reason,
        }
        out.push(row);
    }
    LabSection {
        targets: cfg.targets.iter().map(|t| t.info()).collect(),
        libs: cfg
            .libs
            .iter()
            .map(|l| LabLib { name: l.name().into(), format: l.format().0.into(), origin: l.origin().into() })
            .collect(),
        not_here: NOT_HERE.iter().map(|(n, r)| [n.to_string(), r.to_string()]).collect(),
        esp32,
        xtensa_objects,
        rows: out,
    }
}

fn fill(
    row: &mut LabRow,
    (t, l): (Target, Lib),
    value: &Value,
    schema: Option<&wirebench_core::Schema>,
    b: &Built,
    sim: &SimOut,
    base: Option<&(u64, u64)>,
) -> Result<(), String> {
    let base = base.ok_or("the baseline firmware did not build")?;
    row.flash = Some(b.flash.saturating_sub(base.0));
    row.ram = Some(b.ram.saturating_sub(base.1));
    match sim.exit {
        Some(0) => {}
        Some(code) => {
            let why = sim.value("error").unwrap_or("no reason printed");
            return Err(format!("round trip failed on the target (exit {code}: {why})"));
        }
        None => return Err("the simulator stopped without an exit".into()),
    }
    let bytes = sim.value("bytes").and_then(hex).ok_or("the firmware printed no bytes")?;
    host_check(l, &bytes, value, schema, t == Target::Avr)?;
    row.bytes = Some(bytes.len() as u64);
    let (ec, ei) = sim.span(1, 2).ok_or("no encode markers")?;
    let (dc, di) = sim.span(3, 4).ok_or("no decode markers")?;
    let hz = t.clock_hz() as f64;
    row.encode_cycles = Some(ec);
    row.decode_cycles = Some(dc);
    row.encode_instructions = Some(ei);
    row.decode_instructions = Some(di);
    row.encode_us = Some(ec as f64 / hz * 1e6);
    row.decode_us = Some(dc as f64 / hz * 1e6);
    row.stack_encode = sim.num("stack_encode");
    row.stack_decode = sim.num("stack_decode");
    row.heap_encode = sim.num("heap_encode");
    row.heap_decode = sim.num("heap_decode");
    row.stack_floor = sim.num("stack_floor");
    Ok(())
}
