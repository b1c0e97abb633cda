//! The encoded-size measurement: per payload × codec the encoded bytes, the ratio to compact
//! JSON, zstd and deflate sizes, and the round-trip fidelity (checked by decoding and comparing).

use std::time::Instant;

use wirebench_codecs::{Codec, CodecError};
use wirebench_core::corpus::Payload;
use wirebench_core::fidelity::{compare, Fidelity};
use wirebench_core::results::{peak_rss_kib, RunStats, SizeAggregate, SizeRow, SizeSection};
use wirebench_core::Schema;

use crate::compress::Compressors;

/// Where the schema-directed codecs get their schema from.
pub enum SchemaSource {
    /// One schema for every payload (given with `--schema`, or inferred from all samples).
    Fixed(Schema),
    /// Each payload gets a schema inferred from itself (built-in corpora: one message type each).
    PerPayload,
}

/// Measures payloads and keeps aggregates; memory does not grow with the number of payloads
/// unless `keep_rows` is set. Batches are spread over the machine's cores, rows are folded in
/// input order, so results do not depend on the thread count.
pub struct SizeMeter {
    codecs: Vec<&'static dyn Codec>,
    schema: SchemaSource,
    keep_rows: bool,
    rows: Vec<SizeRow>,
    aggregates: Vec<SizeAggregate>,
    workers: Vec<Worker>,
    records: u64,
    input_bytes: u64,
    started: Instant,
    /// One message in this many gets compressed sizes (0: none).
    compress_every: u64,
}

/// Per-thread scratch: compressors and buffers reused across payloads.
struct Worker {
    compressors: Compressors,
    buf: Vec<u8>,
    json_buf: Vec<u8>,
}

impl Worker {
    fn new() -> Worker {
        Worker { compressors: Compressors::new(), buf: Vec::with_capacity(4096), json_buf: Vec::with_capacity(4096) }
    }

    fn measure(&mut self, codecs: &[&'static dyn Codec], schema: &SchemaSource, payload: &Payload, compress: bool, rows: &mut Vec<SizeRow>) {
        self.json_buf.clear();
        serde_json::to_writer(&mut self.json_buf, &payload.value).expect("a Value always serializes to JSON");
        let json_bytes = self.json_buf.len() as u64;
        let inferred;
        let schema = match schema {
            SchemaSource::Fixed(s) => s,
            SchemaSource::PerPayload => {
                inferred = Schema::infer([&payload.value]);
                &inferred
            }
        };
        for codec in codecs {
            let comp = compress.then_some(&mut self.compressors);
            rows.push(measure_one(*codec, payload, schema, json_bytes, &mut self.buf, comp));
        }
    }
}

/// Below this many payloads a batch is measured on one thread.
const PARALLEL_MIN: usize = 64;

impl SizeMeter {
    pub fn new(codecs: Vec<&'static dyn Codec>, schema: SchemaSource, keep_rows: bool) -> SizeMeter {
        let aggregates = codecs.iter().map(|c| SizeAggregate::new(c.info().id)).collect();
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 16);
        SizeMeter {
            codecs,
            schema,
            keep_rows,
            rows: Vec::new(),
            aggregates,
            workers: (0..threads).map(|_| Worker::new()).collect(),
            records: 0,
            input_bytes: 0,
            started: Instant::now(),
            compress_every: 1,
        }
    }

    /// Compress one message in `k` (0: none; default 1, every message).
    pub fn compress_every(mut self, k: u64) -> SizeMeter {
        self.compress_every = k;
        self
    }

    /// Count input bytes read (for the throughput figure).
    pub fn add_input_bytes(&mut self, n: u64) {
        self.input_bytes += n;
    }

    /// Measure one payload in every codec.
    pub fn add(&mut self, payload: &Payload) {
        self.add_batch(std::slice::from_ref(payload));
    }

    /// Measure a batch of payloads in every codec (in parallel when the batch is large).
    pub fn add_batch(&mut self, batch: &[Payload]) {
        let (codecs, schema) = (&self.codecs, &self.schema);
        let per_chunk = batch.len().div_ceil(self.workers.len()).max(PARALLEL_MIN);
        // The message's index in the whole run decides whether it is compressed, so the sample
        // does not depend on batches or threads.
        let (first, every) = (self.records, self.compress_every);
        let compress = move |i: usize| every > 0 && (first + i as u64) % every == 0;
        let mut chunks: Vec<Vec<SizeRow>> = Vec::new();
        if batch.len() < 2 * PARALLEL_MIN || self.workers.len() == 1 {
            let mut rows = Vec::with_capacity(batch.len() * codecs.len());
            for (i, p) in batch.iter().enumerate() {
                self.workers[0].measure(codecs, schema, p, compress(i), &mut rows);
            }
            chunks.push(rows);
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .chunks(per_chunk)
                    .enumerate()
                    .zip(self.workers.iter_mut())
                    .map(|((c, chunk), worker)| {
                        scope.spawn(move || {
                            let mut rows = Vec::with_capacity(chunk.len() * codecs.len());
                            for (i, p) in chunk.iter().enumerate() {
                                worker.measure(codecs, schema, p, compress(c * per_chunk + i), &mut rows);
                            }
                            rows
                        })
                    })
                    .collect();
                for h in handles {
                    chunks.push(h.join().expect("size worker panicked"));
                }
            });
        }
        self.records += batch.len() as u64;
        let n = self.codecs.len();
        for rows in chunks {
            for (i, row) in rows.into_iter().enumerate() {
                self.aggregates[i % n].add(&row);
                if self.keep_rows {
                    self.rows.push(row);
                }
            }
        }
    }

    /// The finished section.
    pub fn finish(mut self, corpus: &str) -> SizeSection {
        let seconds = self.started.elapsed().as_secs_f64();
        self.aggregates.iter_mut().for_each(SizeAggregate::finish);
        let schema = match self.schema {
            SchemaSource::Fixed(s) => Some(s),
            SchemaSource::PerPayload => None,
        };
        SizeSection {
            corpus: corpus.to_string(),
            schema,
            rows: self.rows,
            aggregates: self.aggregates,
            zstd_level: Some(crate::compress::ZSTD_LEVEL),
            deflate_level: Some(crate::compress::DEFLATE_LEVEL),
            run: RunStats {
                records: self.records,
                input_bytes: self.input_bytes,
                seconds,
                records_per_second: self.records as f64 / seconds.max(1e-9),
                input_mib_per_second: self.input_bytes as f64 / (1024.0 * 1024.0) / seconds.max(1e-9),
                peak_rss_kib: peak_rss_kib(),
            },
        }
    }
}

fn measure_one(
    codec: &dyn Codec,
    payload: &Payload,
    schema: &Schema,
    json_bytes: u64,
    buf: &mut Vec<u8>,
    comp: Option<&mut Compressors>,
) -> SizeRow {
    let info = codec.info();
    let mut row = SizeRow {
        payload: payload.name.clone(),
        codec: info.id.to_string(),
        path: "dynamic".into(),
        bytes: None,
        json_bytes,
        ratio_to_json: None,
        zstd_bytes: None,
        deflate_bytes: None,
        fidelity: Fidelity::Exact,
    };
    let schema = (info.schema != wirebench_codecs::SchemaUse::None).then_some(schema);
    buf.clear();
    if let Err(e) = codec.encode(&payload.value, schema, buf) {
        row.fidelity = match e {
            CodecError::Unsupported(r) => Fidelity::Unsupported { reason: r },
            CodecError::Schema(m) => Fidelity::Unsupported { reason: m.to_string() },
            other => Fidelity::Failed { reason: other.to_string() },
        };
        return row;
    }
    let n = buf.len() as u64;
    row.bytes = Some(n);
    row.ratio_to_json = (json_bytes > 0).then(|| n as f64 / json_bytes as f64);
    if let Some(comp) = comp {
        row.zstd_bytes = comp.zstd_len(buf);
        row.deflate_bytes = comp.deflate_len(buf);
    }
    row.fidelity = match codec.decode(buf, schema) {
        Ok(back) => Fidelity::from_losses(compare(&payload.value, &back)),
        Err(e) => Fidelity::Failed { reason: format!("round trip: {e}") },
    };
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirebench_core::corpus::builtin;

    #[test]
    fn pson_paper_sizes_match_the_spec_tables() {
        let codecs = ["pson", "json", "protoson"].iter().map(|c| wirebench_codecs::find(c).unwrap()).collect();
        let mut m = SizeMeter::new(codecs, SchemaSource::PerPayload, true);
        for p in builtin("pson-paper").unwrap().payloads() {
            m.add(&p);
        }
        let s = m.finish("pson-paper");
        let sizes = |c: &str| -> Vec<u64> { s.rows.iter().filter(|r| r.codec == c).map(|r| r.bytes.unwrap()).collect() };
        assert_eq!(sizes("pson"), [43, 182, 290, 75, 7, 6, 6, 17, 13, 77]);
        assert_eq!(sizes("json"), [53, 190, 324, 49, 13, 10, 9, 15, 17, 98]);
        assert_eq!(sizes("protoson"), [42, 181, 296, 49, 8, 8, 7, 14, 15, 73]);
        // PSON is exact on the corpus; Protoson's lossy floats are found by the round trip.
        assert!(s.rows.iter().filter(|r| r.codec == "pson").all(|r| r.fidelity == Fidelity::Exact));
        let t08 = s.rows.iter().find(|r| r.codec == "protoson" && r.payload == "Test08").unwrap();
        assert_eq!(t08.fidelity.label(), "lossy");
        let agg = s.aggregates.iter().find(|a| a.codec == "pson").unwrap();
        assert_eq!(agg.bytes_total, 43 + 182 + 290 + 75 + 7 + 6 + 6 + 17 + 13 + 77);
        assert_eq!(agg.records, 10);
    }

    #[test]
    fn parallel_batches_equal_one_by_one() {
        let codecs: Vec<_> = wirebench_codecs::registry().to_vec();
        let payloads: Vec<Payload> = (0..500)
            .map(|i| Payload {
                name: format!("p{i}"),
                value: wirebench_core::Value::from_json_str(&format!(r#"{{"i":{i},"t":{}.25,"s":"x{}"}}"#, i % 7, "y".repeat(i % 13)))
                    .unwrap(),
            })
            .collect();
        let schema = Schema::infer(payloads.iter().map(|p| &p.value));
        let mut one = SizeMeter::new(codecs.clone(), SchemaSource::Fixed(schema.clone()), true);
        for p in &payloads {
            one.add(p);
        }
        let mut batched = SizeMeter::new(codecs, SchemaSource::Fixed(schema), true);
        batched.workers.push(Worker::new()); // at least two threads, whatever the machine
        batched.add_batch(&payloads);
        let (a, b) = (one.finish("t"), batched.finish("t"));
        let key = |r: &SizeRow| (r.payload.clone(), r.codec.clone(), r.bytes, r.zstd_bytes, r.deflate_bytes, r.fidelity.label());
        assert_eq!(a.rows.iter().map(key).collect::<Vec<_>>(), b.rows.iter().map(key).collect::<Vec<_>>());
        for (x, y) in a.aggregates.iter().zip(&b.aggregates) {
            assert_eq!((x.records, x.bytes_total, x.zstd_bytes_total, x.exact), (y.records, y.bytes_total, y.zstd_bytes_total, y.exact));
        }
        assert_eq!(b.aggregates[0].records, 500);
    }

    #[test]
    fn unsupported_values_are_reported_not_dropped() {
        let codecs = vec![wirebench_codecs::find("bson").unwrap()];
        let mut m = SizeMeter::new(codecs, SchemaSource::PerPayload, true);
        m.add(&Payload { name: "scalar".into(), value: wirebench_core::Value::UInt(5) });
        let s = m.finish("t");
        assert_eq!(s.rows[0].fidelity.label(), "unsupported");
        assert_eq!(s.aggregates[0].unsupported, 1);
    }
}
