//! Schemas as users have them. OMG IDL drives the CDR codecs from the command line: every CDR
//! vector of the repository encodes to its exact bytes with `wirebench encode -f cdr-xcdrN
//! --schema X.idl --type T [--endian big]`, and decodes back to the same value; `--headerless`
//! drops the 4-byte encapsulation header and reads without it.

mod common;
use common::*;

use serde_json::Value as J;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn run(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = wb().args(args).write_stdin(stdin).output().unwrap();
    assert!(out.status.success(), "wirebench {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn every_cdr_vector_round_trips_through_the_cli_byte_exactly() {
    let vectors: Vec<J> = serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/cdr.json")).unwrap()).unwrap();
    let dir = TempDir::new("idl");
    let mut checked = 0;
    for (i, v) in vectors.iter().enumerate() {
        let enc = v["encoding"].as_str().unwrap().to_ascii_uppercase();
        if enc.contains("KEY") {
            continue;
        }
        let idl = dir.0.join(format!("v{i}.idl"));
        std::fs::write(&idl, v["idl"].as_str().unwrap()).unwrap();
        let ty = v["name"].as_str().unwrap().split(':').next().unwrap().trim().to_string();
        let format = if enc.contains("XCDR2") { "cdr-xcdr2" } else { "cdr-xcdr1" };
        let endian = if enc.contains("BE") { "big" } else { "little" };
        let base = ["-f", format, "--schema", idl.to_str().unwrap(), "--type", &ty, "--endian", endian];
        let value = serde_json::to_vec(&v["value"]).unwrap();
        let bytes = run(&[&["encode"][..], &base].concat(), &value);
        assert_eq!(hex(&bytes), v["hex"].as_str().unwrap(), "{}", v["name"]);
        // Decoding gives a value that encodes to the same bytes again.
        let back = run(&[&["decode"][..], &base].concat(), &bytes);
        assert_eq!(run(&[&["encode"][..], &base].concat(), &back), bytes, "{}", v["name"]);
        // Without the encapsulation header: the body alone, read back the same.
        let headerless = [&base[..], &["--headerless"]].concat();
        let body = run(&[&["encode"][..], &headerless].concat(), &value);
        assert_eq!(body, bytes[4..], "{}", v["name"]);
        assert_eq!(run(&[&["decode"][..], &headerless].concat(), &body), back, "{}", v["name"]);
        checked += 1;
    }
    assert!(checked >= 12, "{checked} vectors");
}

#[test]
fn idl_errors_are_one_line_with_file_line_and_column() {
    let dir = TempDir::new("idl-bad");
    let idl = dir.0.join("s.idl");
    std::fs::write(&idl, "struct A {\n  long x;\n  strin y;\n};\n").unwrap();
    expect_bad_input(wb().args(["encode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap()]).write_stdin("{}"), &["s.idl:3:"]);
    std::fs::write(&idl, "struct Reading { long x; };\n").unwrap();
    expect_bad_input(
        wb().args(["encode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap(), "--type", "Readng"]).write_stdin("{\"x\":1}"),
        &["unknown type \"Readng\": did you mean \"Reading\"?"],
    );
    expect_bad_input(wb().args(["encode", "-f", "json", "--endian", "big"]).write_stdin("1"), &["--endian and --headerless apply to -f cdr-xcdr1/cdr-xcdr2"]);
    expect_bad_input(wb().args(["encode", "-f", "protobuf", "--schema", idl.to_str().unwrap()]).write_stdin("{\"x\":1}"), &["an IDL file drives -f cdr-xcdr1 or cdr-xcdr2"]);
    expect_bad_input(wb().args(["decode", "-f", "cdr-xcdr2", "--schema", idl.to_str().unwrap()]).write_stdin(&b"\x00\x07\x00\x00\x01"[..]), &["invalid CDR", "at byte"]);
}
