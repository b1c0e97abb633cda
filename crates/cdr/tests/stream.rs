//! The streaming Writer / Reader give the same bytes as the value encoder and
//! read them back, in every encoding; hostile input gives errors.

mod common;

use cdr::{encode, idl, Encoding, ErrorKind, Header, Reader, TypeDesc, Value, Writer};
use common::{random_value, Gen, Rng};

const IDL: &str = "@final struct P { long x; double y; };\n\
                   @appendable struct A { short s; };\n\
                   @final struct T { octet tag; @optional double d; sequence<P> ps; sequence<long long> ls;\n\
                   @optional string name; sequence<octet> raw; A app; boolean ok; };";

fn ty() -> TypeDesc {
    idl::parse(IDL).unwrap().get("T").unwrap().clone()
}

fn write(v: &Value, enc: Encoding, out: &mut Vec<u8>) -> Result<(), cdr::Error> {
    let Value::Struct(m) = v else { unreachable!() };
    let header = Header::for_type(&ty(), enc);
    let mut w = Writer::new(out, header);
    let int = |v: &Value| match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        _ => unreachable!(),
    };
    let float = |v: &Value| match v {
        Value::F64(f) => *f,
        _ => unreachable!(),
    };
    w.u8(int(&m[0]) as u8)?;
    let o = w.begin_optional(1, m[1] != Value::Null)?;
    if m[1] != Value::Null {
        w.f64(float(&m[1]))?;
    }
    w.end_optional(o)?;
    let Value::Seq(ps) = &m[2] else { unreachable!() };
    let s = w.begin_sequence(ps.len(), false)?;
    for p in ps {
        let Value::Struct(f) = p else { unreachable!() };
        w.i32(int(&f[0]) as i32)?;
        w.f64(float(&f[1]))?;
    }
    w.end_sequence(s)?;
    let Value::Seq(ls) = &m[3] else { unreachable!() };
    let s = w.begin_sequence(ls.len(), true)?;
    for l in ls {
        w.i64(int(l))?;
    }
    w.end_sequence(s)?;
    let o = w.begin_optional(4, m[4] != Value::Null)?;
    if let Value::String(s) = &m[4] {
        w.string(s)?;
    }
    w.end_optional(o)?;
    let Value::Bytes(b) = &m[5] else { unreachable!() };
    w.octets(b)?;
    let Value::Struct(a) = &m[6] else { unreachable!() };
    let ap = w.begin_appendable()?;
    w.i16(int(&a[0]) as i16)?;
    w.end_appendable(ap)?;
    w.bool(m[7] == Value::Bool(true))?;
    w.finish(false);
    Ok(())
}

fn read(bytes: &[u8]) -> Result<Value, cdr::Error> {
    let mut r = Reader::new(bytes)?;
    let tag = Value::UInt(r.u8()? as u64);
    let d = match r.begin_optional()? {
        Some(m) => {
            let v = Value::F64(r.f64()?);
            r.end_optional(m);
            v
        }
        None => Value::Null,
    };
    let (n, s) = r.begin_sequence(false, 12)?;
    let mut ps = Vec::with_capacity(n);
    for _ in 0..n {
        ps.push(Value::Struct(vec![Value::Int(r.i32()? as i64), Value::F64(r.f64()?)]));
    }
    r.end_sequence(s);
    let (n, s) = r.begin_sequence(true, 8)?;
    let mut ls = Vec::with_capacity(n);
    for _ in 0..n {
        ls.push(Value::Int(r.i64()?));
    }
    r.end_sequence(s);
    let name = match r.begin_optional()? {
        Some(m) => {
            let v = Value::String(r.string()?.to_string());
            r.end_optional(m);
            v
        }
        None => Value::Null,
    };
    let raw = Value::Bytes(r.octets()?.to_vec());
    let ap = r.begin_appendable()?;
    let app = Value::Struct(vec![Value::Int(r.i16()? as i64)]);
    r.end_appendable(ap);
    let ok = Value::Bool(r.bool()?);
    r.finish()?;
    Ok(Value::Struct(vec![tag, d, Value::Seq(ps), Value::Seq(ls), name, raw, app, ok]))
}

#[test]
fn writer_and_reader_match_the_value_codec() {
    let t = ty();
    let mut rng = Rng::new(7);
    let g = Gen { non_finite: false, ..Gen::default() };
    for _ in 0..300 {
        let v = random_value(&t, &mut rng, &g);
        for enc in Encoding::ALL {
            let want = encode(&t, &v, enc).unwrap();
            let mut out = vec![0xaa]; // appends after existing content
            write(&v, enc, &mut out).unwrap();
            assert_eq!(&out[1..], &want[..], "{enc} {v:?}");
            assert_eq!(read(&want).unwrap(), v, "{enc}");
            for cut in 0..want.len() {
                assert!(read(&want[..cut]).is_err(), "{enc}: prefix {cut} accepted");
            }
        }
    }
}

#[test]
fn reader_checks_counts_before_allocating() {
    let mut r = Reader::new(&[0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f]).unwrap();
    assert_eq!(r.begin_sequence(true, 8).unwrap_err().kind, ErrorKind::LengthLimit);
    let mut r = Reader::new(&[0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f]).unwrap();
    assert_eq!(r.octets().unwrap_err().kind, ErrorKind::LengthLimit);
    assert_eq!(Reader::new(&[0, 1]).unwrap_err().kind, ErrorKind::UnexpectedEnd);
}
