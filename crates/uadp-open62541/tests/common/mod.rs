//! What the open62541 tests share: the PubSub functions the crate's bindings leave out
//! (declared here from `pubsub.h`), and one decode + re-encode round trip.
#![allow(dead_code)]

use std::ffi::{c_void, CStr};

use open62541_sys::{UA_ByteString, UA_ByteString_clear, UA_FieldMetaData, UA_StatusCode, UA_StatusCode_name};
use uadp::BuiltInType;

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
    fn UA_NetworkMessage_encodeBinary(
        src: *const Blob,
        out: *mut UA_ByteString,
        eo: *const EncodingOptions,
    ) -> UA_StatusCode;
    fn UA_NetworkMessage_clear(p: *mut Blob);
}

fn status_name(s: UA_StatusCode) -> String {
    // SAFETY: UA_StatusCode_name returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(UA_StatusCode_name(s)).to_string_lossy().into_owned() }
}

/// What open62541 made of one message.
#[derive(Debug)]
pub struct Outcome {
    pub decode: String,
    pub encode: Option<String>,
    pub identical: bool,
}

/// Decode with open62541 (RawData metadata per writer in `meta`) and re-encode.
pub fn open62541_round_trip(bytes: &[u8], meta: &[(u16, Vec<(BuiltInType, bool)>)]) -> Outcome {
    // Field metadata: builtInType, dataType ns=0;i=<type id>, valueRank -1 (scalar) / 1 (array).
    let mut fields: Vec<Vec<UA_FieldMetaData>> = meta
        .iter()
        .map(|(_, fs)| {
            fs.iter()
                .map(|&(t, array)| {
                    // SAFETY: UA_FieldMetaData is a plain C struct; all-zero is its initial value.
                    let mut f: UA_FieldMetaData = unsafe { std::mem::zeroed() };
                    f.builtInType = t.id();
                    // SAFETY: writing the numeric member of the zeroed NodeId union (type NUMERIC = 0).
                    unsafe { *f.dataType.identifier.numeric.as_mut() = t.id() as u32 };
                    f.valueRank = if array { 1 } else { -1 };
                    f
                })
                .collect()
        })
        .collect();
    let mut md: Vec<EncodingMetaData> = meta
        .iter()
        .zip(fields.iter_mut())
        .map(|((w, _), fs)| EncodingMetaData {
            data_set_writer_id: *w,
            fields_size: fs.len(),
            fields: fs.as_mut_ptr(),
            configured_size: 0,
        })
        .collect();
    let eo = EncodingOptions { meta_data_size: md.len(), meta_data: md.as_mut_ptr() };
    let eo_ptr: *const EncodingOptions = if md.is_empty() { std::ptr::null() } else { &eo };

    let src = UA_ByteString { length: bytes.len(), data: bytes.as_ptr() as *mut u8 };
    let mut nm = Box::new(Blob([0u8; 4096]));
    // SAFETY: src points at `bytes` (read only); nm is a zeroed blob larger than
    // UA_NetworkMessage; eo and the metadata it points to outlive the calls.
    unsafe {
        let st = UA_NetworkMessage_decodeBinary(&src, &mut *nm, eo_ptr, std::ptr::null());
        let decode = status_name(st);
        if st != 0 {
            UA_NetworkMessage_clear(&mut *nm);
            return Outcome { decode, encode: None, identical: false };
        }
        let mut out = UA_ByteString { length: 0, data: std::ptr::null_mut() };
        let st = UA_NetworkMessage_encodeBinary(&*nm, &mut out, eo_ptr);
        let identical = st == 0 && !out.data.is_null() && std::slice::from_raw_parts(out.data, out.length) == bytes;
        UA_ByteString_clear(&mut out);
        UA_NetworkMessage_clear(&mut *nm);
        Outcome { decode, encode: Some(status_name(st)), identical }
    }
}
