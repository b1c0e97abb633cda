//! Reading the transport sections of a results file (`other` entries, kept as JSON): missing
//! keys read as empty or absent, never as an error, so a report renders what a run wrote.

use serde_json::Value;

/// The array at `key`, or an empty slice.
pub(crate) fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// The number at the end of `path`, if every step is there.
pub(crate) fn f64_at(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    cur.as_f64()
}

/// The string at `key`, or "".
pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}
