//! Property tests: random types (structs of every extensibility, unions,
//! enums, sequences, multi-dimensional arrays, optionals, keys) and random
//! values of them round-trip in XCDR1 and XCDR2, both byte orders, through
//! every encoding path; arbitrary bytes never make the decoder panic.

mod common;

use std::sync::Arc;

use cdr::{
    decode, decode_key, encode, Decoder, Encoder, Encoding, EnumDesc, Extensibility, Member, SliceWriter, StructDesc,
    TypeDesc, UnionCase, UnionDesc, Value,
};
use common::{key_view, random_value, Gen, Rng};
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = TypeDesc> {
    prop_oneof![
        Just(TypeDesc::Bool),
        Just(TypeDesc::Octet),
        Just(TypeDesc::Char),
        Just(TypeDesc::Int8),
        Just(TypeDesc::UInt8),
        Just(TypeDesc::Int16),
        Just(TypeDesc::UInt16),
        Just(TypeDesc::Int32),
        Just(TypeDesc::UInt32),
        Just(TypeDesc::Int64),
        Just(TypeDesc::UInt64),
        Just(TypeDesc::Float32),
        Just(TypeDesc::Float64),
        prop::option::of(1u32..6).prop_map(|bound| TypeDesc::String { bound }),
        (1usize..5, prop::option::of(prop_oneof![Just(8u8), Just(16u8), Just(32u8), Just(3u8)])).prop_map(|(n, bb)| {
            let mut e = EnumDesc::new("E", (0..n).map(|i| format!("E{i}")));
            e.bit_bound = bb;
            TypeDesc::enumeration(e)
        }),
    ]
}

fn extensibility() -> impl Strategy<Value = Extensibility> {
    prop_oneof![Just(Extensibility::Final), Just(Extensibility::Appendable), Just(Extensibility::Mutable)]
}

fn discriminator() -> impl Strategy<Value = TypeDesc> {
    prop_oneof![
        Just(TypeDesc::Int32),
        Just(TypeDesc::Int16),
        Just(TypeDesc::UInt8),
        Just(TypeDesc::Char),
        Just(TypeDesc::Int64),
        Just(TypeDesc::UInt64),
        Just(TypeDesc::Bool),
        Just(TypeDesc::enumeration(EnumDesc::new("D", ["A", "B", "C", "D", "F"]))),
    ]
}

fn type_desc() -> impl Strategy<Value = TypeDesc> {
    leaf().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            (inner.clone(), prop::option::of(1u32..4))
                .prop_map(|(e, bound)| TypeDesc::Sequence { elem: Arc::new(e), bound }),
            (inner.clone(), prop::collection::vec(1u32..4, 1..3)).prop_map(|(e, dims)| TypeDesc::array(e, &dims)),
            (
                prop::collection::vec((inner.clone(), 0u8..3, any::<bool>(), prop::option::of(0u32..50)), 0..5),
                extensibility(),
            )
                .prop_map(|(ms, ext)| {
                    let members = ms
                        .into_iter()
                        .enumerate()
                        .map(|(i, (t, opt, key, id))| {
                            // XCDR1 cannot tell a present zero-size optional (an empty
                            // struct) from an absent one: both have parameter length 0.
                            let sized = cdr::min_wire_size(&t, false) > 0;
                            let mut m = Member::new(format!("m{i}"), t);
                            m.optional = opt == 0 && sized;
                            m.key = key && !m.optional;
                            if let Some(id) = id {
                                m = m.id(id * 100 + i as u32);
                            }
                            m
                        })
                        .collect();
                    TypeDesc::structure(StructDesc::new("S", ext, members))
                }),
            (discriminator(), prop::collection::vec(inner, 1..4), any::<bool>(), any::<bool>()).prop_map(
                |(disc, branches, with_default, appendable)| {
                    let n = if disc == TypeDesc::Bool { branches.len().min(2) } else { branches.len() };
                    let mut cases: Vec<UnionCase> = branches
                        .into_iter()
                        .take(n)
                        .enumerate()
                        .map(|(i, ty)| UnionCase {
                            name: format!("c{i}"),
                            ty,
                            labels: vec![i as i64],
                            is_default: false,
                        })
                        .collect();
                    if with_default && disc != TypeDesc::Bool {
                        if let Some(last) = cases.last_mut() {
                            last.is_default = true;
                            last.labels.clear();
                        }
                    }
                    let extensibility = if appendable { Extensibility::Appendable } else { Extensibility::Final };
                    TypeDesc::union(UnionDesc { name: "U".into(), extensibility, discriminator: disc, cases })
                }
            ),
        ]
    })
}

fn top_struct() -> impl Strategy<Value = TypeDesc> {
    (type_desc(), type_desc(), extensibility(), any::<bool>()).prop_map(|(a, b, ext, key)| {
        let mut m0 = Member::new("a", a);
        m0.key = key;
        TypeDesc::structure(StructDesc::new("Top", ext, vec![m0, Member::new("b", b)]))
    })
}

fn check_round_trip(t: &TypeDesc, v: &Value) -> Result<(), TestCaseError> {
    for enc in Encoding::ALL {
        let bytes = encode(t, v, enc).map_err(|e| TestCaseError::fail(format!("{enc}: encode: {e}")))?;
        let back = decode(t, &bytes).map_err(|e| TestCaseError::fail(format!("{enc}: decode {bytes:02x?}: {e}")))?;
        prop_assert!(back.bitwise_eq(v), "{enc}: {v:?} -> {back:?}");
        // The forward-only path over a fixed slice writes the same bytes.
        let enc_ = Encoder::new(enc);
        prop_assert_eq!(enc_.encoded_len(t, v).unwrap(), bytes.len());
        let mut buf = vec![0u8; bytes.len()];
        let mut w = SliceWriter::new(&mut buf);
        enc_.encode_to(t, v, &mut w).map_err(|e| TestCaseError::fail(format!("{enc}: encode_to: {e}")))?;
        prop_assert_eq!(w.written(), &bytes[..]);
        // The padded C form and the headerless body decode the same.
        let padded = enc_.pad_to_4(true).encode(t, v).unwrap();
        prop_assert_eq!(padded.len() % 4, 0);
        prop_assert!(decode(t, &padded).unwrap().bitwise_eq(v));
        let body = enc_.header(false).encode(t, v).unwrap();
        prop_assert_eq!(&body[..], &bytes[4..]);
        prop_assert!(Decoder::new().headerless(Some(enc)).decode(t, &body).unwrap().bitwise_eq(v));
        // Key only.
        let key = enc_.key_only(true).encode(t, v).unwrap();
        let kv = decode_key(t, &key).map_err(|e| TestCaseError::fail(format!("{enc}: decode_key: {e}")))?;
        prop_assert!(kv.bitwise_eq(&key_view(t, v)), "{enc}: key {kv:?}");
        // Every strict prefix fails without panicking.
        for cut in (0..bytes.len()).step_by(1 + bytes.len() / 16) {
            let _ = decode(t, &bytes[..cut]);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_values_of_random_types_round_trip(t in top_struct(), seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        for _ in 0..4 {
            let v = random_value(&t, &mut rng, &Gen::default());
            check_round_trip(&t, &v)?;
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(t in top_struct(), bytes in prop::collection::vec(any::<u8>(), 0..200), hdr in 0u8..12) {
        let mut b = bytes;
        if b.len() >= 4 {
            b[0] = 0;
            b[1] = hdr;
            b[2] = 0;
            b[3] &= 3;
        }
        if let Ok(v) = decode(&t, &b) {
            let enc = cdr::Header::parse(&b).unwrap().encoding();
            let again = encode(&t, &v, enc).unwrap();
            prop_assert!(decode(&t, &again).unwrap().bitwise_eq(&v));
        }
        let _ = cdr::Decoder::new().key_only(true).allow_trailing(true).decode(&t, &b);
    }

    #[test]
    fn mutated_encodings_never_panic(t in top_struct(), seed in any::<u64>(), flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        let mut rng = Rng::new(seed);
        let v = random_value(&t, &mut rng, &Gen::default());
        for enc in Encoding::ALL {
            let mut b = encode(&t, &v, enc).unwrap();
            for (i, x) in &flips {
                let n = b.len();
                b[i % n] ^= x;
            }
            let _ = decode(&t, &b);
        }
    }
}
