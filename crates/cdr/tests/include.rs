//! `#include` and conditionals: `cdr::idl::flatten` with an in-memory loader.

use std::collections::BTreeMap;

use cdr::idl::{flatten, Flattened, IncludeError};

fn files() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([
        ("a/T.idl", "module a {\n  struct T { long x; };\n};\n"),
        (
            "b/U.idl",
            "#ifndef B_U_\n#define B_U_\n#include \"a/T.idl\"\nmodule b { struct U { a::T t; short s; }; };\n#endif\n",
        ),
        ("bad/E.idl", "// line 1\nstruct E {\n  long x\n};\n"),
        ("cycle/A.idl", "#include <cycle/A.idl>\nstruct A { long a; };\n"),
    ])
}

fn run(text: &str) -> Result<Flattened, IncludeError> {
    let files = files();
    let mut load = |_from: &str, spec: &str, _angled: bool| -> Result<(String, String), String> {
        files.get(spec).map(|t| (spec.to_string(), t.to_string())).ok_or_else(|| format!("no file {spec:?}"))
    };
    flatten("top.idl", text, &mut load)
}

#[test]
fn includes_are_inlined_once_and_guards_hold() {
    let top = "#include \"b/U.idl\"\n#include <a/T.idl>\n#pragma keylist V u\nstruct V { b::U u; a::T t; };\n";
    let flat = run(top).unwrap();
    assert_eq!(flat.files(), ["top.idl", "b/U.idl", "a/T.idl"]);
    let file = flat.parse().unwrap();
    assert!(file.get("a::T").is_some() && file.get("b::U").is_some() && file.get("V").is_some());
    // Line 1 of the text is line 1 of a/T.idl; the struct V line is top.idl's line 4.
    assert_eq!(flat.origin(1), ("a/T.idl", 1));
    let v_line = flat.text.lines().position(|l| l.starts_with("struct V")).unwrap() as u32 + 1;
    assert_eq!(flat.origin(v_line), ("top.idl", 4));
    // A file that includes itself is read once.
    let flat = run("#include \"cycle/A.idl\"\nstruct B { A a; };\n").unwrap();
    assert!(flat.parse().unwrap().get("B").is_some());
}

#[test]
fn conditionals() {
    let text = "#define ON\n#ifdef ON\nstruct A { long a; };\n#else\nstruct A { oops };\n#endif\n\
                #if 0\nnot idl\n#elif defined(ON)\nstruct B { long b; };\n#endif\n#ifndef ON\nstruct C { nope };\n#endif\n";
    let file = run(text).unwrap().parse().unwrap();
    assert!(file.get("A").is_some() && file.get("B").is_some() && file.get("C").is_none());
}

#[test]
fn errors_name_the_file_and_line() {
    let e = run("\n#include \"bad/E.idl\"\n").unwrap().parse().unwrap_err();
    assert_eq!(e.to_string(), "bad/E.idl:4:1: expected ';', found '}'");
    let e = run("struct A { long a; };\n  #include \"nope.idl\"\n").unwrap_err();
    assert_eq!(e.to_string(), "top.idl:2:3: no file \"nope.idl\"");
    assert_eq!(run("#ifdef X\n").unwrap_err().to_string(), "top.idl:1:1: this conditional has no '#endif'");
    assert_eq!(run("#endif\n").unwrap_err().to_string(), "top.idl:1:1: '#endif' without '#if'");
    assert!(run("#if FOO > 2\n#endif\n")
        .unwrap_err()
        .to_string()
        .starts_with("top.idl:1:1: unsupported '#if' condition"));
    assert_eq!(
        run("#include nope\n").unwrap_err().to_string(),
        "top.idl:1:1: expected \"file\" or <file> after '#include'"
    );
    assert_eq!(run("#error stop here\n").unwrap_err().to_string(), "top.idl:1:1: #error stop here");
}
