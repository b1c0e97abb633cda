//! Generates the KeyedSeq topic descriptor with Cyclone's `idlc` and compiles it with our shim
//! (csrc/shim.c) against libddsc (Debian: cyclonedds-dev and cyclonedds-tools 0.10.2).
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=idl/keyedseq.idl");
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-changed=csrc/shim.h");
    println!("cargo:rerun-if-env-changed=IDLC");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let idl = std::fs::canonicalize("idl/keyedseq.idl").expect("idl/keyedseq.idl");
    let idlc = std::env::var("IDLC").unwrap_or_else(|_| "idlc".into());
    let status = Command::new(&idlc).current_dir(&out).arg(&idl).output();
    match status {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "`{idlc} {}` failed: {}\nwirebench-dds needs Cyclone DDS 0.10: apt-get install cyclonedds-dev cyclonedds-tools",
            idl.display(),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!(
            "cannot run `{idlc}` ({e}); wirebench-dds needs Cyclone DDS 0.10: apt-get install cyclonedds-dev cyclonedds-tools"
        ),
    }
    cc::Build::new()
        .file(out.join("keyedseq.c"))
        .file("csrc/shim.c")
        .include(&out)
        .include("csrc")
        .warnings(true)
        .flag_if_supported("-std=c99")
        .opt_level(2)
        .compile("wirebench_dds_shim");
    println!("cargo:rustc-link-lib=dylib=ddsc");
}
