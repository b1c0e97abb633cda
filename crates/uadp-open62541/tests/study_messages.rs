//! Every UADP message the seed-000 study (`wirebench mqtt`, studies/seed000-opcua-mqtt.toml)
//! sends, checked by open62541 v1.5.10 (vendored by open62541-sys): decode status Good and a
//! byte-identical re-encode. The messages come from the study's own builder: the same source
//! file is compiled here (`#[path]`), so this test cannot drift from what the study sends.

mod common;
use common::open62541_round_trip;

#[path = "../../wirebench-mqtt/src/opcua.rs"]
#[allow(dead_code)]
mod opcua;

use opcua::{metadata, StudyFormat, FIELD_COUNTS};

/// (decode status, re-encode status, identical) for `bytes`; `raw` = pass the N-field
/// DataSetMetaData (RawData needs it).
fn round_trip(bytes: &[u8], raw: Option<usize>) -> (String, Option<String>, bool) {
    let meta: Vec<(u16, Vec<(uadp::BuiltInType, bool)>)> = raw
        .map(|n| vec![(opcua::WRITER_ID, metadata(n).fields.iter().map(|f| (f.built_in_type, f.array)).collect())])
        .unwrap_or_default();
    let o = open62541_round_trip(bytes, &meta);
    (o.decode, o.encode, o.identical)
}

#[test]
fn open62541_accepts_every_uadp_message_of_the_study() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in StudyFormat::ALL.into_iter().filter(|f| !f.is_json()) {
        for n in FIELD_COUNTS {
            let bytes = f.encode(n).unwrap();
            f.decode_check(&bytes, n).unwrap();
            let raw = (f == StudyFormat::UadpRaw).then_some(n);
            let (dec, enc, same) = round_trip(&bytes, raw);
            println!(
                "{:<10} {:>2} fields {:>3} B  decode {:<6} re-encode {:<6} {}",
                f.id(),
                n,
                bytes.len(),
                dec,
                enc.as_deref().unwrap_or("-"),
                if same { "identical" } else { "DIFFERENT" }
            );
            checked += 1;
            if dec != "Good" || enc.as_deref() != Some("Good") || !same {
                failures.push(format!("{} {n}: decode {dec}, re-encode {enc:?}, identical {same}", f.id()));
            }
        }
    }
    // uadp, uadp-min, uadp-raw × 1/3/5/10 fields.
    assert_eq!(checked, 12);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The thesis's sizes: 39 + 5N.
    let sizes: Vec<usize> = FIELD_COUNTS.iter().map(|&n| StudyFormat::Uadp.encode(n).unwrap().len()).collect();
    assert_eq!(sizes, [44, 54, 64, 89]);
}
