//! Hostile input through `wirebench decode` / `encode`, per format: exit code 2, one line on
//! stderr naming where (a byte offset, or line and column), and no control character from the
//! input echoed to the terminal. Nesting bombs (far deeper than the limit of 128) are refused
//! the same way, never a stack overflow; `--max-depth` sets the limit.

mod common;
use common::*;

const SCHEMA: &str = r#"{"$schema":"wirebench-schema/1","root":{"type":"record","name":"root","fields":[{"name":"a","of":{"type":"int","bits":32,"signed":true}}]}}"#;

fn decode(format: &str, input: &[u8], extra: &[&str]) -> (Option<i32>, String, usize) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = TempDir::new(&format!("hostile-{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let schema = dir.0.join("s.json");
    std::fs::write(&schema, SCHEMA).unwrap();
    let file = dir.0.join("in.bin");
    std::fs::write(&file, input).unwrap();
    let self_describing = ["json", "cbor", "msgpack", "bson", "xml", "yaml", "pson", "protoson"].contains(&format);
    let mut cmd = wb();
    cmd.args(["decode", "-f", format, file.to_str().unwrap()]);
    if !self_describing {
        cmd.args(["--schema", schema.to_str().unwrap()]);
    }
    let out = cmd.args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), out.stdout.len())
}

fn check(format: &str, input: &[u8], extra: &[&str]) {
    let (code, stderr, stdout) = decode(format, input, extra);
    let what = format!("{format} {:?}: {stderr}", String::from_utf8_lossy(&input[..input.len().min(40)]));
    assert_eq!(code, Some(2), "{what}");
    assert_eq!(stdout, 0, "{what}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {what}");
    let located = stderr.contains(" at byte ") || stderr.contains(" byte ") || {
        // file:line:col
        stderr
            .split(':')
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[0].trim().parse::<u32>().is_ok() && w[1].trim().parse::<u32>().is_ok())
    };
    assert!(located, "no offset or line:col: {what}");
    assert!(!stderr.trim_end().chars().any(|c| c.is_control()), "control character echoed: {what}");
    assert!(!stderr.contains("Some(") && !stderr.contains("None"), "a Rust debug value: {what}");
}

#[test]
fn hostile_inputs_are_one_line_errors_with_a_position() {
    let esc = b"\x1b[31m\r\x07";
    let table: Vec<(&str, Vec<u8>)> = vec![
        ("json", b"{\"a\":[1,2,,]}".to_vec()),
        ("json", [&b"{\"a\":\""[..], esc, b"\"x"].concat()),
        ("json", b"\xef\xbb\xbf{\"a\":".to_vec()),
        ("cbor", vec![0xa1, 0x61]),
        ("cbor", vec![0x5f, 0x5f, 0x41, 0x00, 0xff, 0xff]),
        ("cbor", [&[0xa1, 0x65][..], esc, &[0x1f]].concat()),
        ("msgpack", vec![0x81, 0xa1]),
        ("msgpack", [&[0x81, 0xa5][..], esc, &[0xc1]].concat()),
        ("bson", vec![5, 0, 0, 0]),
        ("bson", [&[14, 0, 0, 0, 0x42][..], esc, &[0, 0, 0, 0]].concat()),
        ("protobuf", vec![0x08]),
        ("protobuf", vec![0x0a, 0x7f, 1]),
        ("avro", vec![0x80]),
        ("thrift", vec![0x15]),
        ("xml", [&b"<root><a>"[..], esc, b"</b></root>"].concat()),
        ("xml", b"<root>".to_vec()),
        ("yaml", [&b"a: ["[..], esc].concat()),
        ("yaml", b"a: b: c: [".to_vec()),
        ("pson", vec![0xff, 0xff, 0xff]),
        ("protoson", vec![0x0a, 0xff]),
        ("cdr-xcdr1", vec![0, 1, 0]),
        ("cdr-xcdr2", vec![0, 7, 0, 0, 1]),
        ("uadp", vec![0xf1, 0x00]),
        ("uadp-json", b"{\"Messages\":[{\"Payload\":{\"a\":".to_vec()),
        ("uadp-json-rev", [&b"{\"Messages\":\""[..], esc].concat()),
    ];
    for (format, input) in &table {
        check(format, input, &[]);
    }
}

#[test]
fn nesting_bombs_are_refused_by_every_self_describing_format() {
    let n = 100_000;
    let bombs: Vec<(&str, Vec<u8>)> = vec![
        ("json", "[".repeat(n).into_bytes()),
        ("cbor", vec![0x81; n]),
        ("msgpack", vec![0x91; n]),
        ("xml", "<a>".repeat(n).into_bytes()),
        ("yaml", "[".repeat(n).into_bytes()),
        ("bson", {
            let mut doc = vec![5, 0, 0, 0, 0];
            for _ in 1..3000 {
                let len = (4 + 3 + doc.len() + 1) as u32;
                doc = [&len.to_le_bytes()[..], &[0x03, b'a', 0], &doc, &[0]].concat();
            }
            doc
        }),
    ];
    for (format, input) in &bombs {
        let (code, stderr, _) = decode(format, input, &[]);
        assert_eq!(code, Some(2), "{format}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{format}: {stderr}");
        assert!(stderr.contains("nested deeper than 128") || stderr.contains("deeper"), "{format}: {stderr}");
    }
    // The limit is the option's: 3 levels pass at --max-depth 3, not at 2.
    let (code, _, _) = decode("json", b"[[[1]]]", &["--max-depth", "3"]);
    assert_eq!(code, Some(0));
    let (code, stderr, _) = decode("json", b"[[[1]]]", &["--max-depth", "2"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("nested deeper than 2"), "{stderr}");
    let (code, _, _) = decode("json", b"[]", &["--max-depth", "0"]);
    assert_eq!(code, Some(2));
}
