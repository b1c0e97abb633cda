//! The JSON mapping (Part 14 §7.2.5 / Part 6 §5.4): both forms of the seed message, the
//! seed thesis's untyped DataValue shape read with and without metadata, value encodings
//! (64-bit integers as strings, NaN, base64, DateTime, StatusCode), header layouts, delta
//! frames and keep-alives, UADP ↔ JSON size comparison, and reader errors with offsets.

mod common;

use common::*;
use uadp::json::*;
use uadp::*;

fn names(n: usize) -> Vec<DataSetMetaData> {
    let base = [
        "Val_F32_A",
        "Val_F32_B",
        "Val_I32_A",
        "Val_F32_C",
        "Val_I32_B",
        "Val_F32_D",
        "Val_F32_E",
        "Val_I32_C",
        "Val_F32_F",
        "Val_I32_D",
    ];
    vec![DataSetMetaData {
        data_set_writer_id: Some(1000),
        fields: seed_fields(n)
            .iter()
            .zip(base)
            .map(|(v, name)| FieldMetaData::scalar(name, v.built_in_type().unwrap()))
            .collect(),
    }]
}

#[test]
fn seed_message_both_forms() {
    let meta = names(3);
    let msg = seed_message(3);
    let rev =
        to_json(&msg, &JsonOptions { message_id: "preflight-1", metadata: &meta, ..JsonOptions::default() }).unwrap();
    // Byte for byte what open62541 v1.5.10 writes (vector json_o6_variant_3f).
    let o6 = vectors().into_iter().find(|v| v["name"] == "json_o6_variant_3f").unwrap();
    assert_eq!(rev, o6["text"].as_str().unwrap());
    let nonrev = to_json(
        &msg,
        &JsonOptions {
            form: JsonForm::NonReversible,
            message_id: "preflight-1",
            metadata: &meta,
            ..JsonOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        nonrev,
        r#"{"MessageId":"preflight-1","MessageType":"ua-data","PublisherId":"ESP32-Bench","DataSetClassId":"EAE79794-1AF7-4F96-8401-4096CD1D8908","Messages":[{"DataSetWriterId":1000,"MessageType":"ua-keyframe","Payload":{"Val_F32_A":25.5,"Val_F32_B":1013.25,"Val_I32_A":42}}]}"#
    );
    // Reversible JSON → UADP gives the seed bytes again.
    let jm = from_json(&rev, &JsonDecodeOptions::default()).unwrap();
    assert_eq!(jm.form, JsonForm::Reversible);
    assert_eq!(to_vec(&jm.message).unwrap(), to_vec(&msg).unwrap());
    // Untyped JSON with metadata → the same UADP message.
    let jm = from_json(&nonrev, &JsonDecodeOptions { metadata: &meta, ..Default::default() }).unwrap();
    assert_eq!(jm.form, JsonForm::NonReversible);
    assert_eq!(jm.message, msg);
    for n in [1, 3, 5, 10] {
        let meta = names(n);
        let m = seed_message(n);
        let r =
            to_json(&m, &JsonOptions { message_id: "preflight-1", metadata: &meta, ..JsonOptions::default() }).unwrap();
        let nr = to_json(
            &m,
            &JsonOptions {
                form: JsonForm::NonReversible,
                message_id: "preflight-1",
                metadata: &meta,
                ..JsonOptions::default()
            },
        )
        .unwrap();
        println!(
            "{n:>2} fields: UADP {} B, JSON reversible {} B, JSON non-reversible {} B",
            39 + 5 * n,
            r.len(),
            nr.len()
        );
    }
}

/// The seed thesis's JSON shape (1.04 non-reversible DataValue, no UaType).
const SEED_STYLE: &str = r#"{"MessageId":"preflight-1","MessageType":"ua-data","PublisherId":"ESP32-Bench","Messages":[{"DataSetWriterId":1000,"SequenceNumber":1,"Payload":{"Val_F32_A":{"Value":25.5,"SourceTimestamp":"2000-01-01T00:00:15Z"},"Val_I32_C":{"Value":42,"SourceTimestamp":"2000-01-01T00:00:15Z"}}}]}"#;

#[test]
fn seed_style_untyped_data_values() {
    // Without metadata the types are guessed (numbers → Double) but the text survives.
    let jm = from_json(SEED_STYLE, &JsonDecodeOptions::default()).unwrap();
    assert_eq!(jm.form, JsonForm::NonReversible);
    let d = &jm.message.messages[0];
    assert_eq!(d.field_encoding, FieldEncoding::DataValue);
    assert_eq!(d.sequence_number, Some(1));
    let Payload::KeyFrame(fields) = &d.payload else { panic!() };
    assert_eq!(
        fields[1],
        Field::DataValue(DataValue {
            value: Some(Scalar::Double(42.0).into()),
            source_timestamp: Some(DateTime(125_911_584_150_000_000)),
            ..DataValue::default()
        })
    );
    assert_eq!(to_json(&jm.message, &jm.options()).unwrap(), SEED_STYLE);
    // With metadata: the right types, and the same text again.
    let meta = [DataSetMetaData {
        data_set_writer_id: Some(1000),
        fields: vec![
            FieldMetaData::scalar("Val_F32_A", BuiltInType::Float),
            FieldMetaData::scalar("Val_I32_C", BuiltInType::Int32),
        ],
    }];
    let jm = from_json(SEED_STYLE, &JsonDecodeOptions { metadata: &meta, ..Default::default() }).unwrap();
    let Payload::KeyFrame(fields) = &jm.message.messages[0].payload else { panic!() };
    assert!(matches!(&fields[1], Field::DataValue(DataValue { value: Some(Variant::Scalar(Scalar::Int32(42))), .. })));
    assert_eq!(to_json(&jm.message, &jm.options()).unwrap(), SEED_STYLE);
    // UADP for it: DataValue fields of 1 + 5 + 8 bytes.
    let bytes = to_vec(&jm.message).unwrap();
    assert_eq!(bytes.len(), 1 + 1 + 15 + 3 + 1 + 2 + 2 + 2 * 14);
    // As typed 1.05 JSON (what open62541 reads): json_seed_style_typed-like.
    let typed = to_json(&jm.message, &JsonOptions { form: JsonForm::Reversible, ..jm.options() }).unwrap();
    assert!(
        typed.contains(r#""Val_F32_A":{"UaType":10,"Value":25.5,"SourceTimestamp":"2000-01-01T00:00:15Z"}"#),
        "{typed}"
    );
}

#[test]
fn value_encodings() {
    let mut m = seed_message(1);
    m.messages[0].status = Some(0x8000);
    m.messages[0].payload = Payload::KeyFrame(vec![
        Scalar::Int64(-9_007_199_254_740_993).into(),
        Scalar::UInt64(u64::MAX).into(),
        Scalar::Float(f32::NAN).into(),
        Scalar::Double(f64::NEG_INFINITY).into(),
        Scalar::bytes(*b"hello").into(),
        Scalar::DateTime(DateTime(125_911_584_151_234_567)).into(),
        Scalar::StatusCode(StatusCode(0x8007_0000)).into(),
        Scalar::String(None).into(),
        Variant::Null.into(),
        Scalar::Float(1e-7).into(),
        Scalar::Double(1e300).into(),
    ]);
    let meta = [DataSetMetaData {
        data_set_writer_id: None,
        fields: ["i64", "u64", "nan", "ninf", "b", "t", "s", "ns", "null", "small", "big"]
            .iter()
            .map(|n| FieldMetaData::scalar(*n, BuiltInType::Byte))
            .collect(),
    }];
    let text = to_json(&m, &JsonOptions { message_id: "x", metadata: &meta, ..JsonOptions::default() }).unwrap();
    for part in [
        r#""Status":{"Code":2147483648}"#,
        r#""i64":{"UaType":8,"Value":"-9007199254740993"}"#,
        r#""u64":{"UaType":9,"Value":"18446744073709551615"}"#,
        r#""nan":{"UaType":10,"Value":"NaN"}"#,
        r#""ninf":{"UaType":11,"Value":"-Infinity"}"#,
        r#""b":{"UaType":15,"Value":"aGVsbG8="}"#,
        r#""t":{"UaType":13,"Value":"2000-01-01T00:00:15.1234567Z"}"#,
        r#""s":{"UaType":19,"Value":{"Code":2147942400}}"#,
        r#""ns":{"UaType":12}"#,
        r#""null":{}"#,
        r#""small":{"UaType":10,"Value":1e-7}"#,
        r#""big":{"UaType":11,"Value":1e300}"#,
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    let back = from_json(&text, &JsonDecodeOptions::default()).unwrap();
    assert_eq!(to_json(&back.message, &back.options()).unwrap(), text);
    // Non-reversible: the StatusCode gets its Symbol.
    let text = to_json(
        &m,
        &JsonOptions { form: JsonForm::NonReversible, message_id: "x", metadata: &meta, ..JsonOptions::default() },
    )
    .unwrap();
    assert!(text.contains(r#""Status":{"Code":2147483648,"Symbol":"Bad"}"#), "{text}");
    assert!(text.contains(r#""s":{"Code":2147942400,"Symbol":"BadDecodingError"}"#), "{text}");
    assert_eq!(base64_decode("aGVsbG8="), Some(b"hello".to_vec()));
    assert_eq!(base64_decode("aGVsbG8"), Some(b"hello".to_vec()));
    assert_eq!(base64_decode("a"), None);
}

#[test]
fn layouts_delta_keepalive() {
    let meta = names(3);
    let mut m = seed_message(3);
    m.messages[0].payload = Payload::DeltaFrame(vec![DeltaField { index: 2, value: Scalar::Int32(43).into() }]);
    let mut ka = DataSetMessage { payload: Payload::KeepAlive, sequence_number: Some(7), ..DataSetMessage::default() };
    ka.valid = true;
    m.data_set_writer_ids = Some(vec![1000, 1001]);
    m.messages.push(ka);
    let opts = JsonOptions { message_id: "d", metadata: &meta, ..JsonOptions::default() };
    let text = to_json(&m, &opts).unwrap();
    assert!(
        text.contains(r#""MessageType":"ua-deltaframe","Payload":{"Val_I32_A":{"UaType":6,"Value":43}}"#),
        "{text}"
    );
    assert!(text.contains(r#"{"DataSetWriterId":1001,"SequenceNumber":7,"MessageType":"ua-keepalive"}"#), "{text}");
    // Delta frames need the names → indices.
    let e = from_json(&text, &JsonDecodeOptions::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingMetadata);
    let back = from_json(&text, &JsonDecodeOptions { metadata: &meta, ..Default::default() }).unwrap();
    assert_eq!(back.message.messages, m.messages);
    assert_eq!(to_json(&back.message, &back.options()).unwrap(), text);
    // No NetworkMessage header: the DataSetMessage array; single message: the object;
    // no DataSetMessage header either: just the payload.
    let one = seed_message(3);
    for (nm, dsm, single, want_start) in [
        (false, true, false, r#"[{"DataSetWriterId":1000,"PublisherId":"ESP32-Bench","#),
        (false, true, true, r#"{"DataSetWriterId":1000,"PublisherId":"ESP32-Bench","#),
        (false, false, true, r#"{"Val_F32_A":{"UaType":10,"Value":25.5},"#),
        (
            true,
            true,
            true,
            r#"{"MessageId":"d","MessageType":"ua-data","PublisherId":"ESP32-Bench","DataSetClassId":"EAE79794-1AF7-4F96-8401-4096CD1D8908","Messages":{"#,
        ),
    ] {
        let o = JsonOptions {
            network_message_header: nm,
            data_set_message_header: dsm,
            single_data_set_message: single,
            ..opts
        };
        let t = to_json(&one, &o).unwrap();
        assert!(t.starts_with(want_start), "{t}");
        let back = from_json(&t, &JsonDecodeOptions::default()).unwrap();
        assert_eq!(to_json(&back.message, &back.options()).unwrap(), t);
    }
}

#[test]
fn reader_errors() {
    let cases: &[(&str, ErrorKind, usize)] = &[
        ("", ErrorKind::JsonSyntax, 0),
        ("{", ErrorKind::JsonSyntax, 1),
        (r#"{"Messages":[{"Payload":{"a":01}}]}"#, ErrorKind::JsonSyntax, 30),
        (r#"{"Messages":[]} x"#, ErrorKind::JsonSyntax, 16),
        (r#"{"Messages":[]}"#, ErrorKind::InvalidCount, 0),
        (r#"{"Messages":[{"Payload":{"a":{"UaType":99,"Value":1}}}]}"#, ErrorKind::InvalidVariantType, 39),
        (r#"{"Messages":[{"Payload":{"a":{"UaType":17,"Value":1}}}]}"#, ErrorKind::UnsupportedVariantType, 39),
        (r#"{"Messages":[{"Payload":{"a":{"UaType":3,"Value":256}}}]}"#, ErrorKind::JsonValue, 49),
        (r#"{"Messages":[{"DataSetWriterId":1,"SequenceNumber":70000,"Payload":{}}]}"#, ErrorKind::Unrepresentable, 51),
        (
            r#"{"Messages":[{"DataSetWriterId":1,"Status":{"Code":2147483649},"Payload":{}}]}"#,
            ErrorKind::Unrepresentable,
            43,
        ),
        (r#"{"MessageType":"ua-metadata","Messages":[]}"#, ErrorKind::Unrepresentable, 15),
        (r#"{"Messages":[{"DataSetWriterId":1,"Payload":{}},{"Payload":{}}]}"#, ErrorKind::Unrepresentable, 0),
        (r#"{"Messages":[{"Payload":{"a":"\ud800"}}]}"#, ErrorKind::JsonSyntax, 30),
    ];
    for (text, kind, offset) in cases {
        let e = from_json(text, &JsonDecodeOptions::default()).unwrap_err();
        assert_eq!((e.kind, e.offset), (*kind, *offset), "{text}: {e}");
    }
    let deep = "[".repeat(200);
    assert_eq!(from_json(&deep, &JsonDecodeOptions::default()).unwrap_err().kind, ErrorKind::DepthLimit);
    // Numeric PublisherIds when configured.
    let t = r#"{"MessageId":"1","MessageType":"ua-data","PublisherId":"4711","Messages":[{"Payload":{}}]}"#;
    let o = JsonDecodeOptions { publisher_id_type: Some(BuiltInType::UInt16), ..Default::default() };
    assert_eq!(from_json(t, &o).unwrap().message.publisher_id, Some(PublisherId::UInt16(4711)));
    // Unconfigured: digits are a UInt64 (as open62541 reads them), other text a String.
    assert_eq!(
        from_json(t, &JsonDecodeOptions::default()).unwrap().message.publisher_id,
        Some(PublisherId::UInt64(4711))
    );
    for (text, want) in [
        ("ESP32", PublisherId::String("ESP32".into())),
        ("0042", PublisherId::String("0042".into())),
        ("18446744073709551616", PublisherId::String("18446744073709551616".into())),
    ] {
        let t = t.replace("4711", text);
        assert_eq!(from_json(&t, &JsonDecodeOptions::default()).unwrap().message.publisher_id, Some(want), "{t}");
    }
    let o = JsonDecodeOptions { publisher_id_type: Some(BuiltInType::String), ..Default::default() };
    assert_eq!(from_json(t, &o).unwrap().message.publisher_id, Some(PublisherId::String("4711".into())));
    // A Good DataSetMessage Status (`{}`) is kept: it is written back.
    let t = r#"{"MessageId":"1","MessageType":"ua-data","PublisherId":"4711","Messages":[{"DataSetWriterId":1,"Status":{},"Payload":{}}]}"#;
    let m = from_json(t, &JsonDecodeOptions::default()).unwrap();
    assert_eq!(m.message.messages[0].status, Some(0));
    assert!(to_json(&m.message, &m.options()).unwrap().contains(r#""Status":{}"#));
}

/// Found by the fuzzer: a Payload naming field "b" twice was accepted, written with both
/// fields, and the written JSON did not read back. A repeated field name is refused, at the
/// repetition; what is accepted is written in a form that reads back to the same JSON (here a
/// year-0000 timestamp, written as the clamped minimum).
#[test]
fn repeated_field_names_are_refused_and_accepted_json_reads_back() {
    let dup = r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"Payload":{"b":{"SourceTimestamp":"0000-10-01T00:00:15Z"},"b":42}}]}"#;
    let e = from_json(dup, &JsonDecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::JsonValue, dup.rfind("42").unwrap()), "{e:?}");

    let text = r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"Payload":{"b":{"SourceTimestamp":"0000-10-01T00:00:15Z"},"c":42}}]}"#;
    let jm = from_json(text, &JsonDecodeOptions::default()).unwrap();
    let out = to_json(&jm.message, &jm.options()).unwrap();
    assert!(out.contains("0001-01-01T00:00:00Z"), "{out}");
    let back = from_json(&out, &JsonDecodeOptions { metadata: &jm.metadata, ..Default::default() })
        .unwrap_or_else(|e| panic!("written JSON reads back: {e:?}\n{out}"));
    assert_eq!(to_json(&back.message, &back.options()).unwrap(), out);
}

/// Found by the fuzzer: a Good StatusCode field in untyped JSON is written `{}`, which read back
/// without metadata looks like an empty DataValue. With the metadata of the first read, the
/// written JSON reads back to the same JSON.
#[test]
fn good_status_code_field_in_untyped_json_reads_back_with_its_metadata() {
    let text = r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"SequenceNumber":1,"Payload":{"a":{"Symbol":10,"Valu3":25.5},"b":42}}]}"#;
    let jm = from_json(text, &JsonDecodeOptions::default()).unwrap();
    let out = to_json(&jm.message, &jm.options()).unwrap();
    assert!(out.contains(r#""a":{}"#), "{out}");
    let back = from_json(&out, &JsonDecodeOptions { metadata: &jm.metadata, ..Default::default() }).unwrap();
    assert_eq!(back.message.messages[0].field_encoding, FieldEncoding::Variant);
    assert_eq!(to_json(&back.message, &back.options()).unwrap(), out);
}

#[test]
fn strings_are_escaped_only_where_json_needs_it() {
    let cases = [
        ("plain ascii", r#""plain ascii""#),
        ("", "\"\""),
        ("grüße 温度 ✓", r#""grüße 温度 ✓""#),
        ("q\"b\\s/", r#""q\"b\\s/""#),
        ("back\\slash", r#""back\\slash""#),
        ("only\"quote", r#""only\"quote""#),
        ("tab\tonly", r#""tab\tonly""#),
        ("a\nb\rc\td\u{8}e\u{c}f\u{1}g\u{1f}", r#""a\nb\rc\td\be\ff\u0001g\u001f""#),
        ("\u{7f}\u{2028}", "\"\u{7f}\u{2028}\""),
    ];
    for (raw, want) in cases {
        let mut m = seed_message(1);
        m.messages[0].payload = Payload::KeyFrame(vec![Scalar::String(Some(raw.into())).into()]);
        // The field's name goes through the same writer.
        let meta = [DataSetMetaData {
            data_set_writer_id: None,
            fields: vec![FieldMetaData::scalar(raw, BuiltInType::String)],
        }];
        let opts =
            JsonOptions { form: JsonForm::NonReversible, message_id: "x", metadata: &meta, ..JsonOptions::default() };
        let text = to_json(&m, &opts).unwrap();
        assert!(text.contains(&format!("{want}:{want}")), "{raw:?}: {want} not in {text}");
        let back = from_json(&text, &JsonDecodeOptions { metadata: &meta, ..JsonDecodeOptions::default() }).unwrap();
        assert_eq!(to_json(&back.message, &opts).unwrap(), text, "{raw:?} reads back");
    }
}

#[test]
fn escapes_other_writers_use_read_back() {
    // Names and values with \u escapes (a surrogate pair too) and `\/`, which our writer never
    // emits: they read as the characters, and the unescaped ones as written.
    let text = r#"{"MessageId":"1","MessageType":"ua-data","Messages":[{"Payload":{"\u0074emp":{"UaType":12,"Value":"a\/b \ud83d\ude00 \u00e9"},"plain":{"UaType":12,"Value":"x"}}}]}"#;
    let jm = from_json(text, &JsonDecodeOptions::default()).unwrap();
    let names: Vec<&str> = jm.metadata[0].fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["temp", "plain"]);
    let Payload::KeyFrame(fields) = &jm.message.messages[0].payload else { panic!("key frame") };
    assert_eq!(fields[0], Scalar::String(Some("a/b 😀 é".into())).into());
    assert_eq!(fields[1], Scalar::String(Some("x".into())).into());
    // A lone high surrogate is refused, at the escape.
    let bad = text.replace(r"\ud83d\ude00", r"\ud83d!");
    let e = from_json(&bad, &JsonDecodeOptions::default()).unwrap_err();
    assert_eq!(e.offset, bad.find(r"\ud83d").unwrap());
}
