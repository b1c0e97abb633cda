//! The IDL reader: what it accepts, what it builds, and its errors (with
//! line and column).

use cdr::idl::parse;
use cdr::{hashed_member_id, Extensibility, TypeDesc};

fn st(t: &TypeDesc) -> &cdr::StructDesc {
    match t {
        TypeDesc::Struct(s) => s,
        other => panic!("not a struct: {other:?}"),
    }
}

fn err(src: &str) -> String {
    parse(src).map(|_| ()).expect_err("must fail").to_string()
}

#[test]
fn modules_scopes_and_lookup() {
    let f = parse(
        "module a { module b { struct P { long x; }; }; struct Q { b::P p; ::a::b::P q; }; };\n\
         struct P { double other; };",
    )
    .unwrap();
    assert!(f.get("a::b::P").is_some() && f.get("::a::Q").is_some());
    let q = st(f.get("Q").unwrap());
    assert_eq!(q.members.len(), 2);
    assert_eq!(st(&q.members[0].ty).name, "P");
    assert_eq!(st(&q.members[0].ty).members[0].ty, TypeDesc::Int32);
    // The unqualified name: exact top-level match wins.
    assert_eq!(st(f.get("P").unwrap()).members[0].ty, TypeDesc::Float64);
    assert_eq!(st(f.root().unwrap()).name, "P");
    assert_eq!(f.types().count(), 3);
}

#[test]
fn every_primitive_and_template_type() {
    let f = parse(
        "struct T { boolean a; char b; octet c; int8 d; uint8 e; short f; unsigned short g; long h;\n\
         unsigned long i; long long j; unsigned long long k; float l; double m; int16 n; uint16 o;\n\
         int32 p; uint32 q; int64 r; uint64 s; string t; string<5> u; sequence<long> v;\n\
         sequence<string<3>, 7> w; sequence<sequence<short>> x; long y[2][3]; };",
    )
    .unwrap();
    let t = st(f.get("T").unwrap());
    let tys: Vec<String> = t.members.iter().map(|m| m.ty.describe()).collect();
    assert_eq!(
        tys,
        [
            "boolean",
            "char",
            "octet",
            "int8",
            "uint8",
            "short",
            "unsigned short",
            "long",
            "unsigned long",
            "long long",
            "unsigned long long",
            "float",
            "double",
            "short",
            "unsigned short",
            "long",
            "unsigned long",
            "long long",
            "unsigned long long",
            "string",
            "string<5>",
            "sequence<long>",
            "sequence<string<3>, 7>",
            "sequence<sequence<short>>",
            "long[2][3]",
        ]
    );
}

#[test]
fn typedefs_consts_and_arrays_of_arrays_merge() {
    let f = parse(
        "const long N = (1 << 2) + 0x2 * 3 - 10 / 5 % 3;  // 4 + 6 - 2 = 8\n\
         const unsigned short M = N | 1;\n\
         const string NAME = \"ignored\"; const double PI = 3.14; const boolean YES = TRUE;\n\
         typedef long Row[3];\n typedef sequence<Row> Rows, MoreRows;\n\
         struct S { Row grid[2]; Rows r; octet raw[N]; long m[M]; };",
    )
    .unwrap();
    assert_eq!(f.constant("N"), Some(8));
    assert_eq!(f.constant("M"), Some(9));
    let s = st(f.get("S").unwrap());
    assert_eq!(s.members[0].ty.describe(), "long[2][3]");
    assert!(matches!(&s.members[0].ty, TypeDesc::Array { dims, .. } if dims == &[2, 3]));
    assert_eq!(s.members[1].ty.describe(), "sequence<long[3]>");
    assert_eq!(s.members[2].ty.describe(), "octet[8]");
    assert_eq!(s.members[3].ty.describe(), "long[9]");
    assert!(f.get("MoreRows").is_some());
}

#[test]
fn annotations_extensibility_ids_keys() {
    let f = parse(
        "@mutable struct A { @key long k; @id(10) string s; long after; @hashid long h; @hashid(\"other\") long o;\n\
           @optional @must_understand double d; };\n\
         @extensibility(APPENDABLE) struct B { long x; };\n\
         @autoid(HASH) @mutable struct C { long alpha; @id(3) long beta; };\n\
         @topic @nested(FALSE) @default_nested struct D { @key(FALSE) long x; @optional(false) long y; @range(min=0, max=9) @unit(\"m\") long z; };",
    )
    .unwrap();
    let a = st(f.get("A").unwrap());
    assert_eq!(a.extensibility, Extensibility::Mutable);
    let ids: Vec<u32> = a.members.iter().map(|m| m.id).collect();
    assert_eq!(ids, [0, 10, 11, hashed_member_id("h"), hashed_member_id("other"), hashed_member_id("other") + 1]);
    assert!(a.members[0].key && !a.members[1].key);
    assert!(a.members[5].optional && a.members[5].must_understand);
    assert_eq!(st(f.get("B").unwrap()).extensibility, Extensibility::Appendable);
    let c = st(f.get("C").unwrap());
    assert_eq!(c.members[0].id, hashed_member_id("alpha"));
    assert_eq!(c.members[1].id, 3);
    let d = st(f.get("D").unwrap());
    assert_eq!(d.extensibility, Extensibility::Final);
    assert!(!d.members[0].key && !d.members[1].optional);
}

#[test]
fn hashed_ids_match_xtypes_md5() {
    // MD5("color") = 70dda5df..., first four bytes little-endian, top four bits cleared.
    assert_eq!(hashed_member_id("color"), 0x0fa5_dd70);
}

#[test]
fn enums_and_unions() {
    let f = parse(
        "enum Color { RED, @value(5) GREEN, BLUE, };\n\
         union U switch (Color) { case RED: long r; case Color::GREEN: case BLUE: string gb; };\n\
         union V switch (char) { case 'a': case '\\x62': long ab; default: double d; };\n\
         union W switch (boolean) { case TRUE: long t; case FALSE: octet f; };\n\
         union X switch (unsigned short) { case 1+1: long two; };",
    )
    .unwrap();
    let TypeDesc::Enum(e) = f.get("Color").unwrap() else { panic!() };
    assert_eq!(e.enumerators.iter().map(|x| x.value).collect::<Vec<_>>(), [0, 5, 6]);
    assert_eq!(f.constant("GREEN"), Some(5));
    assert_eq!(f.constant("Color::BLUE"), Some(6));
    let TypeDesc::Union(u) = f.get("U").unwrap() else { panic!() };
    assert_eq!(u.cases[0].labels, [0]);
    assert_eq!(u.cases[1].labels, [5, 6]);
    assert_eq!(u.default_discriminator(), Some(1)); // the first non-enumerator value
    let TypeDesc::Union(v) = f.get("V").unwrap() else { panic!() };
    assert_eq!(v.cases[0].labels, [97, 98]);
    assert!(v.cases[1].is_default);
    let TypeDesc::Union(w) = f.get("W").unwrap() else { panic!() };
    assert_eq!((w.cases[0].labels.clone(), w.cases[1].labels.clone()), (vec![1], vec![0]));
    assert_eq!(w.default_discriminator(), None);
    let TypeDesc::Union(x) = f.get("X").unwrap() else { panic!() };
    assert_eq!(x.cases[0].labels, [2]);
    assert_eq!(x.default_discriminator(), Some(0));
}

#[test]
fn inheritance_pragma_keylist_forward_declarations_comments() {
    let f = parse(
        "/* a block\n comment */ struct Later;\n\
         #pragma keylist Derived id\n\
         #include \"ignored.idl\"\n\
         struct Base { long id; }; // trailing\n\
         @appendable struct Derived : Base { string name; };\n\
         struct Later { Base b; };",
    )
    .unwrap();
    let d = st(f.get("Derived").unwrap());
    assert_eq!(d.members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["id", "name"]);
    assert_eq!(d.members.iter().map(|m| m.id).collect::<Vec<_>>(), [0, 1]);
    assert!(d.members[0].key);
    assert_eq!(d.extensibility, Extensibility::Appendable);
    assert!(f.get("Later").is_some());
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(err("struct A {\n  long x\n  long y;\n};"), "line 3, column 3: expected ';', found 'long'");
    assert_eq!(err("struct A { long x; }"), "line 1, column 21: expected ';', found end of input");
    assert_eq!(err("struct A {\n  Foo f;\n};"), "line 2, column 3: unknown type 'Foo'");
    assert_eq!(err("struct A { long x; long x; };"), "line 1, column 25: duplicate member 'x'");
    assert_eq!(err("\n\n  /* never closed"), "line 3, column 3: unterminated comment");
    assert_eq!(err("struct A { long double d; };"), "line 1, column 12: 'long double' is not supported");
    assert_eq!(err("struct A { wstring w; };"), "line 1, column 12: 'wstring' is not supported");
    assert_eq!(err("struct A { long a[0]; };"), "line 1, column 19: array size must be between 1 and 4294967295");
    assert_eq!(err("struct A { sequence<long, -1> s; };"), "line 1, column 27: bound must be between 1 and 4294967295");
    assert_eq!(err("struct A { long x; } $"), "line 1, column 22: unexpected character '$'");
    assert_eq!(
        err("@mutable union U switch(long) { case 1: long a; };"),
        "line 1, column 10: mutable unions are not supported"
    );
    assert_eq!(err("union U switch(float) { case 1: long a; };"), "line 1, column 16: a union cannot switch on float");
    assert_eq!(
        err("union U switch(long) { case 1: long a; case 1: long b; };"),
        "line 1, column 45: duplicate case label"
    );
    assert_eq!(
        err("struct S; struct T { S s; };"),
        "line 1, column 22: type 'S' is only forward-declared (recursive types are not supported)"
    );
    assert_eq!(err("const long N = 1 / 0;"), "line 1, column 18: division by zero");
    assert_eq!(err("struct A { long a[M]; };"), "line 1, column 19: unknown constant 'M'");
    assert_eq!(err("@bit_bound(40) enum E { A };"), "line 1, column 2: @bit_bound of an enum must be between 1 and 32");
    assert_eq!(
        err("@bit_bound(1) enum E { A, B, C };"),
        "line 1, column 20: enumerator 'C' does not fit @bit_bound(1)"
    );
    assert_eq!(err("struct A { string<5 s; };"), "line 1, column 21: expected '>', found 's'");
    assert_eq!(err("struct struct { long x; };"), "line 1, column 8: expected an identifier, found 'struct'");
    assert_eq!(
        err("#pragma keylist A nope\nstruct A { long x; };"),
        "line 1, column 1: #pragma keylist: 'A' has no member 'nope'"
    );
    assert_eq!(err("bitmask B { a, b };"), "line 1, column 1: 'bitmask' is not supported");
    assert_eq!(err("struct A { char c; }; const char C = 'ab';"), "line 1, column 38: unterminated character literal");
}

#[test]
fn the_vector_idl_forms() {
    for src in [
        "@final struct Payload { unsigned long seq; sequence<octet> data; };",
        "struct ShapeType { @key string color; long x; long y; long shapesize; }; // RTPS 2.3 sec. 10.7",
        "struct ShapeType { @key string color; long x, y, shapesize; };",
        "enum Color {RED,GREEN,BLUE}; @final struct Colored { Color c; octet o; };",
        "union Value switch(long) {case 1: long i; case 2: double d; default: string s;}; struct Tagged { octet k; Value v; };",
        "@appendable struct OptSensor { long id; @optional float f; @optional string s; };",
        "struct KeyedSeq { unsigned long seq; unsigned long keyval; sequence<octet> baggage; };\n#pragma keylist KeyedSeq keyval",
    ] {
        let f = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(f.root().is_some(), "{src}");
    }
}
