//! Every UADP message the seed-000 study (`wirebench mqtt`, studies/seed000-opcua-mqtt.toml)
//! sends, checked by open62541 v1.5.10 (vendored by open62541-sys): decode status Good and a
//! byte-identical re-encode. The messages come from the study's own builder: the same source
//! file is compiled here (`#[path]`), so this test cannot drift from what the study sends.

use std::ffi::{c_void, CStr};

use open62541_sys::{UA_ByteString, UA_ByteString_clear, UA_FieldMetaData, UA_StatusCode, UA_StatusCode_name};

#[path = "../../wirebench-mqtt/src/opcua.rs"]
#[allow(dead_code)]
mod opcua;

use opcua::{metadata, StudyFormat, FIELD_COUNTS};

#[repr(C, align(8))]
struct Blob([u8; 4096]);

/// `UA_DataSetMessage_EncodingMetaData` (pubsub.h).
#[repr(C)]
struct EncodingMetaData {
    data_set_writer_id: u16,
    fields_size: usize,
    fields: *mut UA_FieldMetaData,
    configured_size: u16,
}

/// `UA_NetworkMessage_EncodingOptions` (pubsub.h).
#[repr(C)]
struct EncodingOptions {
    meta_data_size: usize,
    meta_data: *mut EncodingMetaData,
}

unsafe extern "C" {
    fn UA_NetworkMessage_decodeBinary(
        src: *const UA_ByteString,
        dst: *mut Blob,
        eo: *const EncodingOptions,
        bo: *const c_void,
    ) -> UA_StatusCode;
    fn UA_NetworkMessage_encodeBinary(src: *const Blob, out: *mut UA_ByteString, eo: *const EncodingOptions) -> UA_StatusCode;
    fn UA_NetworkMessage_clear(p: *mut Blob);
}

fn status_name(s: UA_StatusCode) -> String {
    // SAFETY: UA_StatusCode_name returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(UA_StatusCode_name(s)).to_string_lossy().into_owned() }
}

/// (decode status, re-encode status, identical) for `bytes`; `raw` = pass the N-field
/// DataSetMetaData (RawData needs it).
fn round_trip(bytes: &[u8], raw: Option<usize>) -> (String, Option<String>, bool) {
    let mut fields: Vec<UA_FieldMetaData> = raw
        .map(|n| {
            metadata(n)
                .fields
                .iter()
                .map(|f| {
                    // SAFETY: UA_FieldMetaData is a plain C struct; all-zero is its initial value.
                    let mut m: UA_FieldMetaData = unsafe { std::mem::zeroed() };
                    m.builtInType = f.built_in_type.id();
                    // SAFETY: the numeric member of the zeroed NodeId union (type NUMERIC = 0).
                    unsafe { *m.dataType.identifier.numeric.as_mut() = f.built_in_type.id() as u32 };
                    m.valueRank = -1;
                    m
                })
                .collect()
        })
        .unwrap_or_default();
    let mut md = [EncodingMetaData {
        data_set_writer_id: opcua::WRITER_ID,
        fields_size: fields.len(),
        fields: fields.as_mut_ptr(),
        configured_size: 0,
    }];
    let eo = EncodingOptions { meta_data_size: 1, meta_data: md.as_mut_ptr() };
    let eo_ptr: *const EncodingOptions = if raw.is_some() { &eo } else { std::ptr::null() };
    let src = UA_ByteString { length: bytes.len(), data: bytes.as_ptr() as *mut u8 };
    let mut nm = Box::new(Blob([0u8; 4096]));
    // SAFETY: src points at `bytes` (read only); nm is a zeroed blob larger than
    // UA_NetworkMessage (264 bytes); eo and the metadata it points to outlive the calls.
    unsafe {
        let st = UA_NetworkMessage_decodeBinary(&src, &mut *nm, eo_ptr, std::ptr::null());
        if st != 0 {
            UA_NetworkMessage_clear(&mut *nm);
            return (status_name(st), None, false);
        }
        let mut out = UA_ByteString { length: 0, data: std::ptr::null_mut() };
        let st2 = UA_NetworkMessage_encodeBinary(&*nm, &mut out, eo_ptr);
        let identical = st2 == 0 && !out.data.is_null() && std::slice::from_raw_parts(out.data, out.length) == bytes;
        UA_ByteString_clear(&mut out);
        UA_NetworkMessage_clear(&mut *nm);
        (status_name(st), Some(status_name(st2)), identical)
    }
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
