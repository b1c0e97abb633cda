//! Held-out sizes: per format, the messages a dictionary was not trained on, each compressed on
//! its own — zstd and raw deflate without and with a dictionary trained on the format's own
//! encodings of the training messages (zstd's trainer, `ZDICT_trainFromBuffer`; deflate gets the
//! trained content as zlib's preset dictionary) — and each message as a delta against the
//! previous one of the same device (field-wise in the same format, and a byte XOR against the
//! previous encoding, compressed).

use wirebench_codecs::{Codec, CodecError, Prepared, SchemaUse};
use wirebench_core::corpus::Payload;
use wirebench_core::sections::held_out::{HeldOutFormat, SizeDist};
use wirebench_core::{Schema, Value};

use crate::compress::{Compressors, DEFLATE_LEVEL, ZSTD_LEVEL};

/// The dictionary size `--dict-size` defaults to, bytes.
pub const DEFAULT_DICT_SIZE: usize = 2048;
/// zstd's smallest dictionary (`ZDICT_DICTSIZE_MIN`).
pub const MIN_DICT_SIZE: usize = 256;

/// The dictionary of a run: trained per format on the training messages, or one given file.
pub enum DictSource<'a> {
    /// Train one of at most this many bytes per format.
    Train(usize),
    /// Use these bytes for every format (`--dict FILE`): a zstd dictionary, or raw content.
    Given(&'a [u8]),
    /// No dictionary (deltas only).
    None,
}

/// Every per-message figure of one format over the held-out messages, in their order (`None`
/// where a variant was not measured); what [`HeldOutFormat`] summarises.
#[derive(Default, Debug)]
pub struct FormatSizes {
    pub raw: Vec<u64>,
    pub zstd: Vec<u64>,
    pub deflate: Vec<u64>,
    pub zstd_dict: Option<Vec<u64>>,
    pub zstd_dict_id: Option<Vec<u64>>,
    pub deflate_dict: Option<Vec<u64>>,
    /// The zstd dictionary used (trained or given).
    pub dict: Option<Vec<u8>>,
    /// The part of it deflate got as its preset dictionary.
    pub deflate_dict_bytes: Option<u64>,
    pub delta: Option<Vec<u64>>,
    pub delta_zstd: Option<Vec<u64>>,
    pub xor_zstd: Option<Vec<u64>>,
    pub delta_whole: u64,
    /// Held-out messages the format could not encode, and the first reason.
    pub failed: u64,
    pub issue: Option<String>,
}

/// Encodes values in one codec under one schema (bound once where the codec allows), as the
/// size measurement does.
pub struct Encoder<'a> {
    codec: &'a dyn Codec,
    schema: Option<&'a Schema>,
    bound: Option<Box<dyn Prepared + 'a>>,
}

impl<'a> Encoder<'a> {
    pub fn new(codec: &'a dyn Codec, schema: &'a Schema) -> Encoder<'a> {
        let schema = (codec.info().schema != SchemaUse::None).then_some(schema);
        Encoder { codec, schema, bound: codec.prepare(schema).ok() }
    }

    pub fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.clear();
        let renamed = self.schema.and_then(|s| s.with_proto_names(value));
        let value = renamed.as_ref().unwrap_or(value);
        match &self.bound {
            Some(b) => b.encode(value, out),
            None => self.codec.encode(value, self.schema, out),
        }
    }
}

/// zstd at [`ZSTD_LEVEL`] with a dictionary, the frame with or without the dictionary's ID (as
/// `zstd -3 --no-check -D dict [--no-dictID]`: content size written, no checksum).
pub fn zstd_with(dict: &[u8], with_id: bool) -> Result<zstd::bulk::Compressor<'static>, String> {
    let mut c =
        zstd::bulk::Compressor::with_dictionary(ZSTD_LEVEL, dict).map_err(|e| format!("zstd dictionary: {e}"))?;
    c.set_parameter(zstd::zstd_safe::CParameter::DictIdFlag(with_id)).map_err(|e| e.to_string())?;
    c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(false)).map_err(|e| e.to_string())?;
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(true)).map_err(|e| e.to_string())?;
    Ok(c)
}

fn zstd_len(c: &mut zstd::bulk::Compressor<'static>, bytes: &[u8], buf: &mut Vec<u8>) -> u64 {
    buf.clear();
    buf.reserve(zstd::zstd_safe::compress_bound(bytes.len()));
    c.compress_to_buffer(bytes, buf).expect("a buffer of compress_bound bytes holds the frame") as u64
}

/// Raw deflate at [`DEFLATE_LEVEL`] with `dict` as zlib's preset dictionary.
fn deflate_dict_len(c: &mut flate2::Compress, dict: &[u8], bytes: &[u8], buf: &mut Vec<u8>) -> u64 {
    c.reset();
    c.set_dictionary(dict).expect("deflateSetDictionary on a fresh raw stream");
    buf.clear();
    buf.reserve(bytes.len() + bytes.len() / 8 + 64);
    loop {
        let status = c.compress_vec(bytes, buf, flate2::FlushCompress::Finish).expect("deflate");
        if status == flate2::Status::StreamEnd {
            return buf.len() as u64;
        }
        let more = buf.capacity() + 256;
        buf.reserve(more);
    }
}

/// The content of a zstd dictionary (what follows its header and entropy tables); all of it for
/// raw content without the dictionary magic.
pub fn dict_content(dict: &[u8]) -> &[u8] {
    const MAGIC: [u8; 4] = [0x37, 0xA4, 0x30, 0xEC];
    if dict.len() < 8 || dict[..4] != MAGIC {
        return dict;
    }
    // SAFETY: ZDICT_getDictHeaderSize reads at most `dict.len()` bytes from `dict`.
    let n = unsafe { zstd::zstd_safe::zstd_sys::ZDICT_getDictHeaderSize(dict.as_ptr().cast(), dict.len()) };
    // SAFETY: ZDICT_isError only classifies the code.
    if unsafe { zstd::zstd_safe::zstd_sys::ZDICT_isError(n) } != 0 || n > dict.len() {
        return dict;
    }
    &dict[n..]
}

/// The order `zstd --train` hands `n` sample files to its trainer: the command line shuffles
/// its list of files (a Fisher–Yates pass driven by a fixed-seed 32-bit generator) before
/// loading them. Given the files in input order, this is the permutation it applies.
pub fn cli_sample_order(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state: u32 = 0xFD2F_B528;
    let mut next = || {
        state = (state.wrapping_mul(2_654_435_761) ^ 2_246_822_519).rotate_left(13);
        state >> 5
    };
    for i in (1..n).rev() {
        let j = next() as usize % (i + 1);
        order.swap(i, j);
    }
    order
}

/// Train a zstd dictionary of at most `size` bytes on these samples with zstd's default trainer
/// (`ZDICT_trainFromBuffer`: fastCover, d=8, f=20, 4 steps over k, 75 % split, level 3 — the
/// parameters `zstd --train --maxdict=SIZE` uses), the samples in the order the command line
/// gives them to it for one file per sample in input order ([`cli_sample_order`]; it skips empty
/// files). With the same zstd version the dictionary is the command line's, byte for byte.
pub fn train_dict(samples: &[Vec<u8>], size: usize) -> Result<Vec<u8>, String> {
    let ordered: Vec<&[u8]> =
        cli_sample_order(samples.len()).into_iter().map(|i| samples[i].as_slice()).filter(|s| !s.is_empty()).collect();
    zstd::dict::from_samples(&ordered, size).map_err(|e| format!("zstd dictionary training: {e}"))
}

/// The device a message belongs to: the text of its top-level field `key` (`None` without one).
pub fn device_of(value: &Value, key: &str) -> Option<String> {
    let Value::Map(pairs) = value else { return None };
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| match v {
        Value::String(s) => s.clone(),
        other => other.to_json_string(),
    })
}

/// Split messages by device: the first `fraction` of the devices, in order of first appearance
/// (rounded, at least one on each side), train; the others are held out. Devices, not messages:
/// no device has messages on both sides. Returns (train, held out, train devices, held-out
/// devices); an error names the first message without the key.
pub fn split_by_device(
    payloads: Vec<Payload>,
    key: &str,
    fraction: f64,
) -> Result<(Vec<Payload>, Vec<Payload>, u64, u64), String> {
    let mut order: Vec<String> = Vec::new();
    let mut devices = Vec::with_capacity(payloads.len());
    for p in &payloads {
        let d = device_of(&p.value, key).ok_or_else(|| format!("--dict-key {key}: {} has no field {key:?}", p.name))?;
        if !order.contains(&d) {
            order.push(d.clone());
        }
        devices.push(d);
    }
    if order.len() < 2 {
        return Err(format!("--dict-split: the samples hold {} device(s) by {key:?}; a split needs 2", order.len()));
    }
    let n_train = ((fraction * order.len() as f64).round() as usize).clamp(1, order.len() - 1);
    let train_set: std::collections::HashSet<&str> = order[..n_train].iter().map(String::as_str).collect();
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for (p, d) in payloads.into_iter().zip(&devices) {
        if train_set.contains(d.as_str()) {
            train.push(p);
        } else {
            held.push(p);
        }
    }
    Ok((train, held, n_train as u64, (order.len() - n_train) as u64))
}

/// Decimal places of a float's shortest round-trip text.
fn decimals(x: f64) -> Option<u32> {
    let s = format!("{x}");
    if s.contains(['e', 'E', 'i', 'N']) {
        return None;
    }
    Some(s.split_once('.').map_or(0, |(_, f)| f.len() as u32))
}

/// `x` as an integer count of 10^-d, when that is exact and small enough to add exactly.
fn scaled(x: f64, d: u32) -> Option<i64> {
    let s = (x * 10f64.powi(d as i32)).round();
    (s.abs() < 9.0e15 && s / 10f64.powi(d as i32) == x).then_some(s as i64)
}

/// The difference of two decimal numbers as a float, when adding it back (in decimal, at the
/// larger number of places of the previous value and the difference) gives `cur` exactly.
fn float_delta(prev: f64, cur: f64) -> Option<f64> {
    let d = decimals(prev)?.max(decimals(cur)?);
    if d > 12 {
        return None;
    }
    let diff = scaled(cur, d)? - scaled(prev, d)?;
    let delta = diff as f64 / 10f64.powi(d as i32);
    // The receiver: both at the larger of their places, added as integers.
    let e = decimals(prev)?.max(decimals(delta)?);
    let back = (scaled(prev, e)? + scaled(delta, e)?) as f64 / 10f64.powi(e as i32);
    (back.to_bits() == cur.to_bits()).then_some(delta)
}

/// An integer or float64 as f64 (integers past 2^53 not exactly: the delta then fails its check).
fn number(v: &Value) -> Option<f64> {
    match *v {
        Value::Int(i) => Some(i as f64),
        Value::UInt(u) => Some(u as f64),
        Value::F64(f) => Some(f),
        _ => None,
    }
}

/// One changed value as the delta carries it: integers and decimal floats as differences,
/// objects recursively, anything else whole.
fn value_delta(prev: &Value, cur: &Value) -> Option<Value> {
    match (prev, cur) {
        (Value::Map(_), Value::Map(_)) => fields_delta(prev, cur),
        (Value::Int(_) | Value::UInt(_), Value::Int(_) | Value::UInt(_)) => {
            let d = i64::try_from(cur.as_i128()? - prev.as_i128()?).ok()?;
            Some(if d < 0 { Value::Int(d) } else { Value::UInt(d as u64) })
        }
        (Value::F64(_) | Value::Int(_) | Value::UInt(_), Value::F64(_) | Value::Int(_) | Value::UInt(_)) => {
            float_delta(number(prev)?, number(cur)?).map(Value::F64)
        }
        _ => Some(cur.clone()),
    }
}

/// The field-wise delta of two objects: the changed fields only (in `cur`'s order), new fields
/// whole. `None` where a delta cannot say it: a field removed, a difference that does not give
/// the value back exactly, a message that is not an object.
pub fn fields_delta(prev: &Value, cur: &Value) -> Option<Value> {
    let (Value::Map(p), Value::Map(c)) = (prev, cur) else { return None };
    if p.iter().any(|(k, _)| !c.iter().any(|(ck, _)| ck == k)) {
        return None;
    }
    let mut out = Vec::new();
    for (k, v) in c {
        match p.iter().find(|(pk, _)| pk == k) {
            Some((_, pv)) if pv == v => {}
            Some((_, pv)) => out.push((k.clone(), value_delta(pv, v)?)),
            None => out.push((k.clone(), v.clone())),
        }
    }
    Some(Value::Map(out))
}

/// `cur` XORed with `prev` byte by byte; the longer one's tail as is.
pub fn xor_delta(prev: &[u8], cur: &[u8]) -> Vec<u8> {
    let mut out = cur.to_vec();
    for (o, p) in out.iter_mut().zip(prev) {
        *o ^= p;
    }
    out
}

/// Per held-out message, the delta the sender sends: `None` where it sends the message whole
/// (the first of its device, a message without the key, or one a delta cannot carry).
pub fn deltas(held: &[Payload], key: &str) -> Vec<Option<Value>> {
    let mut last: std::collections::HashMap<String, &Value> = std::collections::HashMap::new();
    held.iter()
        .map(|p| {
            let dev = device_of(&p.value, key)?;
            let prev = last.insert(dev, &p.value)?;
            fields_delta(prev, &p.value)
        })
        .collect()
}

/// Keep the first problem of a format.
fn note(out: &mut FormatSizes, what: &str, e: &dyn std::fmt::Display) {
    if out.issue.is_none() {
        out.issue = Some(format!("{what}: {e}"));
    }
}

/// Everything measured for one format. `delta_schema`: the schema the field-wise deltas are
/// encoded under (inferred from them; the schema-directed codecs need one of their own).
pub fn measure_format(
    codec: &dyn Codec,
    schema: &Schema,
    train: &[Payload],
    held: &[Payload],
    dict: &DictSource,
    delta: Option<(&str, &[Option<Value>], &Schema)>,
) -> FormatSizes {
    let enc = Encoder::new(codec, schema);
    let mut out = FormatSizes::default();
    let mut buf = Vec::new();
    // The dictionary.
    out.dict = match dict {
        DictSource::Train(size) => {
            let mut samples = Vec::with_capacity(train.len());
            for p in train {
                match enc.encode(&p.value, &mut buf) {
                    Ok(()) => samples.push(buf.clone()),
                    Err(e) => note(&mut out, &format!("training message {}", p.name), &e),
                }
            }
            match train_dict(&samples, *size) {
                Ok(d) => Some(d),
                Err(e) => {
                    note(&mut out, "dictionary", &e);
                    None
                }
            }
        }
        DictSource::Given(d) => Some(d.to_vec()),
        DictSource::None => None,
    };
    // Encodings of the held-out messages (None: the codec could not encode it).
    let encoded: Vec<Option<Vec<u8>>> = held
        .iter()
        .map(|p| match enc.encode(&p.value, &mut buf) {
            Ok(()) => Some(buf.clone()),
            Err(e) => {
                out.failed += 1;
                note(&mut out, &p.name, &e);
                None
            }
        })
        .collect();
    let mut plain = Compressors::new();
    let mut zbuf = Vec::new();
    let mut dict_cs = match out.dict.as_deref().map(|d| Ok::<_, String>((zstd_with(d, false)?, zstd_with(d, true)?))) {
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => {
            note(&mut out, "dictionary", &e);
            out.dict = None;
            None
        }
        None => None,
    };
    let content = out.dict.as_deref().map(dict_content).map(<[u8]>::to_vec);
    out.deflate_dict_bytes = content.as_ref().map(|c| c.len() as u64);
    let mut deflate = flate2::Compress::new(flate2::Compression::new(DEFLATE_LEVEL), false);
    let (mut zd, mut zdi, mut dd) = (Vec::new(), Vec::new(), Vec::new());
    for bytes in encoded.iter().flatten() {
        out.raw.push(bytes.len() as u64);
        out.zstd.push(plain.zstd_len(bytes).expect("zstd"));
        out.deflate.push(plain.deflate_len(bytes).expect("deflate"));
        if let (Some((no_id, id)), Some(content)) = (dict_cs.as_mut(), content.as_deref()) {
            zd.push(zstd_len(no_id, bytes, &mut zbuf));
            zdi.push(zstd_len(id, bytes, &mut zbuf));
            dd.push(deflate_dict_len(&mut deflate, content, bytes, &mut zbuf));
        }
    }
    if dict_cs.is_some() {
        (out.zstd_dict, out.zstd_dict_id, out.deflate_dict) = (Some(zd), Some(zdi), Some(dd));
    }
    // Deltas against the previous message of the same device (only messages the format encodes).
    if let Some((key, deltas, delta_schema)) = delta {
        let denc = Encoder::new(codec, delta_schema);
        let (mut fw, mut fwz, mut xz) = (Vec::new(), Vec::new(), Vec::new());
        let mut last: std::collections::HashMap<String, Vec<u8>> = std::collections::HashMap::new();
        for ((p, bytes), d) in held.iter().zip(&encoded).zip(deltas) {
            let Some(bytes) = bytes else { continue };
            let dev = device_of(&p.value, key);
            let prev = dev.and_then(|dev| last.insert(dev, bytes.clone()));
            // XOR against the previous encoding of the device (the first: the encoding itself).
            let x = prev.as_deref().map_or_else(|| bytes.clone(), |prev| xor_delta(prev, bytes));
            xz.push(plain.zstd_len(&x).expect("zstd"));
            // Field-wise: the delta in this format, or the message whole.
            let sent = match (prev.is_some(), d) {
                (true, Some(d)) => match denc.encode(d, &mut buf) {
                    Ok(()) => Some(&buf),
                    Err(e) => {
                        note(&mut out, &format!("delta of {}", p.name), &e);
                        None
                    }
                },
                _ => None,
            };
            let sent: &[u8] = match sent {
                Some(b) => b,
                None => {
                    out.delta_whole += 1;
                    bytes
                }
            };
            fw.push(sent.len() as u64);
            fwz.push(plain.zstd_len(sent).expect("zstd"));
        }
        (out.delta, out.delta_zstd, out.xor_zstd) = (Some(fw), Some(fwz), Some(xz));
    }
    out
}

/// Messages after which a dictionary of `dict` bytes has paid for itself, saving on average
/// `without - with` bytes per message; `None` when it saves nothing.
pub fn amortised_after(dict: u64, without: f64, with: f64) -> Option<u64> {
    let saving = without - with;
    (saving > 0.0).then(|| (dict as f64 / saving).ceil() as u64)
}

/// The summary of one format's figures.
pub fn summarise(codec: &str, s: &FormatSizes) -> HeldOutFormat {
    let dist = |v: &Option<Vec<u64>>| v.as_deref().and_then(SizeDist::of);
    let (raw, zstd, deflate) = (SizeDist::of(&s.raw), SizeDist::of(&s.zstd), SizeDist::of(&s.deflate));
    let (zstd_dict, deflate_dict) = (dist(&s.zstd_dict), dist(&s.deflate_dict));
    let mean = |d: &Option<SizeDist>| d.as_ref().map(|d| d.mean);
    let better = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a.min(b));
    let dict_bytes = s.dict.as_ref().map(|d| d.len() as u64);
    HeldOutFormat {
        codec: codec.to_string(),
        zstd_dict_amortised_after: dict_bytes
            .zip(better(mean(&raw), mean(&zstd)))
            .zip(mean(&zstd_dict))
            .and_then(|((n, without), with)| amortised_after(n, without, with)),
        deflate_dict_amortised_after: s
            .deflate_dict_bytes
            .zip(better(mean(&raw), mean(&deflate)))
            .zip(mean(&deflate_dict))
            .and_then(|((n, without), with)| amortised_after(n, without, with)),
        raw,
        zstd,
        deflate,
        zstd_dict,
        zstd_dict_id: dist(&s.zstd_dict_id),
        deflate_dict,
        zstd_dict_bytes: dict_bytes,
        dict_id: s.dict.as_deref().map(|d| zstd::zstd_safe::get_dict_id(d).map_or(0, |id| id.get())),
        deflate_dict_bytes: s.deflate_dict_bytes,
        delta: dist(&s.delta),
        delta_zstd: dist(&s.delta_zstd),
        xor_zstd: dist(&s.xor_zstd),
        delta_whole: s.delta.as_ref().map(|_| s.delta_whole),
        failed: s.failed,
        issue: s.issue.clone(),
    }
}

/// Every format, on up to [`crate::size::worker_threads`] threads, in the codecs' order.
pub fn measure_all(
    codecs: &[&'static dyn Codec],
    schema: &Schema,
    train: &[Payload],
    held: &[Payload],
    dict: &DictSource,
    delta_key: Option<&str>,
) -> Vec<HeldOutFormat> {
    let deltas = delta_key.map(|k| deltas(held, k));
    let delta_schema = deltas.as_ref().map(|d| Schema::infer(d.iter().flatten()));
    let delta = delta_key.zip(deltas.as_deref()).zip(delta_schema.as_ref()).map(|((k, d), s)| (k, d, s));
    let per = codecs.len().div_ceil(crate::size::worker_threads()).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = codecs
            .chunks(per)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| summarise(c.info().id, &measure_format(*c, schema, train, held, dict, delta)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("held-out worker panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Value {
        Value::from_json_str(s).unwrap()
    }

    #[test]
    fn field_deltas_drop_the_unchanged_and_difference_numbers() {
        let a = v(r#"{"id":"m1","e":1000,"t":21.37,"v":229.8,"fw":"2.4","pos":{"x":1,"y":2}}"#);
        let b = v(r#"{"id":"m1","e":1012,"t":21.35,"v":230.1,"fw":"2.5","pos":{"x":1,"y":5}}"#);
        let d = fields_delta(&a, &b).unwrap();
        assert_eq!(d.to_json_string(), r#"{"e":12,"t":-0.02,"v":0.3,"fw":"2.5","pos":{"y":3}}"#);
        // Nothing changed: an empty object.
        assert_eq!(fields_delta(&a, &a).unwrap(), Value::Map(vec![]));
        // A removed field cannot be said.
        assert!(fields_delta(&a, &v(r#"{"id":"m1"}"#)).is_none());
        // A new field goes whole; integer to float is a float difference.
        let c = v(r#"{"id":"m1","e":1000.5,"t":21.37,"v":229.8,"fw":"2.4","pos":{"x":1,"y":2},"n":7}"#);
        assert_eq!(fields_delta(&a, &c).unwrap().to_json_string(), r#"{"e":0.5,"n":7}"#);
    }

    #[test]
    fn float_deltas_add_back_exactly() {
        for (p, c) in [(21.37, 21.35), (0.1, 0.3), (229.8, 230.0), (-5.25, 3.5), (1e3, 1000.001), (99.99, 100.0)] {
            let d = float_delta(p, c).unwrap();
            let e = decimals(p).unwrap().max(decimals(d).unwrap());
            let back = (scaled(p, e).unwrap() + scaled(d, e).unwrap()) as f64 / 10f64.powi(e as i32);
            assert_eq!(back, c, "{p} -> {c} by {d}");
        }
        assert!(float_delta(0.1, 1e-20).is_none());
    }

    #[test]
    fn xor_keeps_the_longer_tail() {
        assert_eq!(xor_delta(&[1, 2, 3], &[1, 2]), vec![0, 0]);
        assert_eq!(xor_delta(&[1], &[3, 4, 5]), vec![2, 4, 5]);
    }

    #[test]
    fn split_by_device_keeps_devices_whole() {
        let lines = crate::meters::ndjson(40, 5, 1);
        let payloads: Vec<Payload> =
            lines.iter().enumerate().map(|(i, l)| Payload { name: format!("m{i}"), value: v(l) }).collect();
        let (train, held, nt, nh) = split_by_device(payloads, "device_id", 0.75).unwrap();
        assert_eq!((nt, nh, train.len(), held.len()), (30, 10, 150, 50));
        let devs = |ps: &[Payload]| -> std::collections::BTreeSet<String> {
            ps.iter().map(|p| device_of(&p.value, "device_id").unwrap()).collect()
        };
        assert!(devs(&train).is_disjoint(&devs(&held)));
        let one = vec![Payload { name: "a.ndjson:1".into(), value: v(r#"{"x":1}"#) }];
        assert!(split_by_device(one, "device_id", 0.5).unwrap_err().contains("a.ndjson:1"));
    }

    /// The dictionary is zstd's and decodes back; with it the held-out messages shrink, and the
    /// deltas count every device's first message whole.
    #[test]
    fn dictionaries_and_deltas_on_meters() {
        let lines = crate::meters::ndjson(40, 10, 3);
        let payloads: Vec<Payload> =
            lines.iter().enumerate().map(|(i, l)| Payload { name: format!("m{i}"), value: v(l) }).collect();
        let schema = Schema::infer(payloads.iter().map(|p| &p.value));
        let (train, held, _, _) = split_by_device(payloads, "device_id", 0.75).unwrap();
        let json = wirebench_codecs::find("json").unwrap();
        let d = deltas(&held, "device_id");
        let ds = Schema::infer(d.iter().flatten());
        let s = measure_format(json, &schema, &train, &held, &DictSource::Train(2048), Some(("device_id", &d, &ds)));
        assert_eq!((s.failed, s.raw.len()), (0, 100));
        let dict = s.dict.as_deref().unwrap();
        assert!(dict.len() <= 2048 && dict.len() > 256);
        assert!(zstd::zstd_safe::get_dict_id(dict).is_some());
        assert!(dict_content(dict).len() < dict.len());
        let zd = s.zstd_dict.as_ref().unwrap();
        let zdi = s.zstd_dict_id.as_ref().unwrap();
        for i in 0..100 {
            assert!(zd[i] < s.zstd[i], "message {i}");
            assert!(zdi[i] > zd[i] && zdi[i] <= zd[i] + 4);
            assert!(s.deflate_dict.as_ref().unwrap()[i] < s.deflate[i]);
        }
        // A frame made with the dictionary decodes with it.
        let mut enc = zstd_with(dict, true).unwrap();
        let frame = enc.compress(&held[0].value.to_json_string().into_bytes()).unwrap();
        let back = zstd::bulk::Decompressor::with_dictionary(dict).unwrap().decompress(&frame, 4096).unwrap();
        assert_eq!(back, held[0].value.to_json_string().into_bytes());
        // 10 held-out devices: 10 messages whole; the deltas are smaller than the messages.
        assert_eq!(s.delta_whole, 10);
        let delta = s.delta.as_ref().unwrap();
        assert_eq!(delta.len(), 100);
        let (sd, sr) = (delta.iter().sum::<u64>(), s.raw.iter().sum::<u64>());
        assert!(sd < sr * 3 / 4, "deltas {sd} B, messages {sr} B");
        let h = summarise("json", &s);
        assert!(h.zstd_dict_amortised_after.is_some() && h.deflate_dict_amortised_after.is_some());
        assert_eq!(h.delta_whole, Some(10));
        assert_eq!(amortised_after(2000, 100.0, 60.0), Some(50));
        assert_eq!(amortised_after(2000, 60.0, 60.0), None);
    }
}
