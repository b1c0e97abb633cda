//! A ROS 2 style `sensor_msgs/msg/Imu.idl` with its `#include`s (fixtures written here, in
//! tests/idl/ros2): read through the include path, the CDR codecs write the IDL's own type
//! (fixed arrays, not sequences) and agree with cyclonedds-python byte for byte on 150 random
//! Imu messages (`scripts/ros2_imu_oracle.py`; skipped with a message when cyclonedds is
//! missing, unless `WIREBENCH_ORACLES=require`).

use std::path::PathBuf;
use std::process::Command;

use wirebench_codecs::schema_files::{read_schema_file, set_include_dirs};
use wirebench_core::{Type, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/idl/ros2")
}

fn imu() -> PathBuf {
    root().join("sensor_msgs/msg/Imu.idl")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

const IMU: &str = r#"{"header":{"stamp":{"sec":1700000000,"nanosec":5},"frame_id":"imu_link"},
  "orientation":{"x":0.0,"y":0.0,"z":0.0,"w":1.0},
  "orientation_covariance":[1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0],
  "angular_velocity":{"x":0.1,"y":0.2,"z":0.3},
  "angular_velocity_covariance":[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0],
  "linear_acceleration":{"x":0.0,"y":0.0,"z":9.81},
  "linear_acceleration_covariance":[0.5,0.0,0.0,0.0,0.5,0.0,0.0,0.0,0.5]}"#;

/// Every test here sets the include path the same way (it is per process).
fn schema() -> wirebench_core::Schema {
    set_include_dirs(&[root()]);
    read_schema_file(&imu(), None).unwrap()
}

#[test]
fn includes_are_followed_and_fixed_arrays_stay_fixed() {
    let s = schema();
    let native = s.native.as_ref().unwrap();
    assert_eq!((native.format.as_str(), native.root.as_str()), ("idl", "sensor_msgs::msg::Imu"));
    let Type::Record { fields, .. } = &s.root else { panic!("{:?}", s.root) };
    assert_eq!(
        fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>()[..3],
        ["header", "orientation", "orientation_covariance"]
    );
    let v = Value::from_json_str(IMU).unwrap();
    // 4 header + 8 stamp + 13 frame_id, 3 padding, 32 + 72 + 2 x (24 + 72): Cyclone's figure.
    let x1 = wirebench_codecs::find("cdr-xcdr1").unwrap().prepare(Some(&s)).unwrap();
    let mut out = Vec::new();
    x1.encode(&v, &mut out).unwrap();
    assert_eq!(out.len(), 324);
    let back = x1.decode(&out).unwrap();
    assert!(wirebench_core::fidelity::compare(&v, &back).is_empty(), "{back:?}");
    let x2 = wirebench_codecs::find("cdr-xcdr2").unwrap().prepare(Some(&s)).unwrap();
    let mut out2 = Vec::new();
    x2.encode(&v, &mut out2).unwrap();
    // XCDR2 aligns doubles to 4, which after frame_id's 13 bytes is the same 3 bytes of padding;
    // the arrays have no length (as sequences: 348 / 336 B).
    assert_eq!(out2.len(), 4 + 8 + 13 + 3 + 32 + 72 + 2 * (24 + 72));
    // A covariance of 8 values is refused (a fixed array has 9), as cyclonedds refuses it.
    let short = IMU.replace("[1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,1.0]", "[1.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0]");
    assert!(x1.encode(&Value::from_json_str(&short).unwrap(), &mut Vec::new()).is_err());
    // The other codecs still read the shared model (arrays).
    let pb = wirebench_codecs::find("protobuf").unwrap().prepare(Some(&s)).unwrap();
    assert!(pb.encode(&v, &mut Vec::new()).is_ok());
}

#[test]
fn a_missing_include_is_one_line_naming_the_file_and_line() {
    set_include_dirs(&[root()]);
    let dir = std::env::temp_dir().join(format!("wirebench-ros2-idl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("Top.idl");
    std::fs::write(&p, "// top\n#include \"nope_msgs/msg/Nope.idl\"\nstruct Top { long x; };\n").unwrap();
    let e = read_schema_file(&p, None).unwrap_err();
    assert!(
        e.starts_with(&format!("{}:2:1: cannot find included file \"nope_msgs/msg/Nope.idl\" (searched ", p.display())),
        "{e}"
    );
    assert!(!e.contains('\n'));
    // An error inside an included file names that file.
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/Bad.idl"), "struct Bad {\n  long x\n};\n").unwrap();
    std::fs::write(&p, "#include \"inc/Bad.idl\"\nstruct Top { Bad b; };\n").unwrap();
    let e = read_schema_file(&p, None).unwrap_err();
    assert!(e.ends_with("inc/Bad.idl:3:1: expected ';', found '}'"), "{e}");
    // A union (from an included file): the CDR codecs write it, the others refuse it in one
    // line naming the file and line of the union.
    std::fs::write(
        dir.join("inc/U.idl"),
        "module m {\n  union U switch (long) { case 1: long a; case 2: double b; };\n};\n",
    )
    .unwrap();
    std::fs::write(&p, "#include \"inc/U.idl\"\nstruct Top { m::U u; };\n").unwrap();
    let s = read_schema_file(&p, None).unwrap();
    let v = Value::from_json_str(r#"{"u":{"a":5}}"#).unwrap();
    let mut out = Vec::new();
    wirebench_codecs::find("cdr-xcdr2").unwrap().encode(&v, Some(&s), &mut out).unwrap();
    assert_eq!(hex(&out), "000700000100000005000000");
    let e = wirebench_codecs::find("protobuf").unwrap().encode(&v, Some(&s), &mut Vec::new()).unwrap_err().to_string();
    assert!(e.ends_with("inc/U.idl:2: union U at $.u has no mapping in the wirebench schema (only -f cdr-xcdr1/cdr-xcdr2 read this schema)"), "{e}");
}

#[test]
fn imu_bytes_are_cyclonedds_bytes() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/ros2_imu_oracle.py");
    let skip = |why: &str| {
        let msg = format!("SKIPPED ROS 2 Imu oracle test: {why} (pip install cyclonedds==11.0.1)");
        if std::env::var("WIREBENCH_ORACLES").is_ok_and(|v| v == "require") {
            panic!("{msg}, and WIREBENCH_ORACLES=require");
        }
        eprintln!("{msg}");
        println!("{msg}");
    };
    let out = match Command::new(&python).arg(&script).args(["gen", "150", "34"]).output() {
        Ok(o) => o,
        Err(e) => return skip(&format!("cannot run {python}: {e}")),
    };
    if out.status.code() == Some(3) {
        return skip(String::from_utf8_lossy(&out.stderr).trim());
    }
    assert!(out.status.success(), "ros2_imu_oracle.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let s = schema();
    let x1 = wirebench_codecs::find("cdr-xcdr1").unwrap().prepare(Some(&s)).unwrap();
    let x2 = wirebench_codecs::find("cdr-xcdr2").unwrap().prepare(Some(&s)).unwrap();
    let mut n = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let v = Value::from_json_str(&j["value"].to_string()).unwrap();
        for (codec, key) in [(&x1, "xcdr1"), (&x2, "xcdr2")] {
            let want = j[key].as_str().unwrap();
            let mut ours = Vec::new();
            codec.encode(&v, &mut ours).unwrap();
            assert_eq!(hex(&ours), want, "{key} bytes differ from cyclonedds' for {}", j["value"]);
            let back = codec.decode(&unhex(want)).unwrap();
            assert_eq!(back.to_json_string(), v.to_json_string(), "{key}: cyclonedds' bytes read back");
        }
        n += 1;
    }
    assert_eq!(n, 150);
    println!("{n} of 150 Imu messages byte-identical with cyclonedds-python in XCDR1 and XCDR2, and read back");
}
