//! The encoded-size measurement: per payload × codec the encoded bytes, the ratio to compact
//! JSON, zstd and deflate sizes, and the round-trip fidelity (checked by decoding and comparing).

use std::time::Instant;

use std::borrow::Cow;

use wirebench_codecs::{Codec, CodecError, Prepared, SchemaUse};
use wirebench_core::classes::{classes, Novelty};
use wirebench_core::corpus::{Payload, RawSample, SampleError};
use wirebench_core::fidelity::{compare_under, Fidelity};
use wirebench_core::results::{peak_rss_kib, RunStats, SizeAggregate, SizeRow, SizeSection, StageSeconds};
use wirebench_core::Schema;

use crate::compress::Compressors;

/// Where the schema-directed codecs get their schema from (one per run: its size is no matter).
#[allow(clippy::large_enum_variant)]
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
    /// With a fixed schema, each codec bound to it once (`None` where binding failed: that
    /// codec then encodes message by message and reports its error on each, as unbound).
    prepared: Vec<Option<Box<dyn Prepared>>>,
    keep_rows: bool,
    rows: Vec<SizeRow>,
    aggregates: Vec<SizeAggregate>,
    workers: Vec<Worker>,
    records: u64,
    input_bytes: u64,
    started: Instant,
    /// One message in this many gets compressed sizes (0: none).
    compress_every: u64,
    /// One message in this many gets its round trip checked (0: none).
    roundtrip_every: u64,
    /// With a sampled round trip: the value classes checked so far, so that every message
    /// bringing a new one is checked too (see [`wirebench_core::classes`]).
    novelty: Option<Novelty>,
    /// Messages checked only for a new value class.
    novel_checked: u64,
    clock: StageClock,
}

/// Every this many messages, each stage of the message is timed (for [`StageSeconds`]).
const TIME_EVERY: u64 = 16;

const PARSE: usize = 0;
const ENCODE: usize = 1;
const COMPRESS: usize = 2;
const ROUNDTRIP: usize = 3;

/// Per stage: nanoseconds over the timed runs, how many were timed, how many ran; and the CPU
/// time of the threads that ran them.
#[derive(Clone, Copy, Default)]
struct StageClock {
    ns: [u64; 4],
    timed: [u64; 4],
    ran: [u64; 4],
    /// Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) of the loops that ran the stages, read at
    /// the start and end of each chunk on the thread that ran it.
    cpu_ns: u64,
}

/// The calling thread's CPU clock, ns (0 where it cannot be read).
fn thread_cpu_ns() -> u64 {
    crate::cpu::clock_ns(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or(0)
}

impl StageClock {
    /// One run of `stage`, timed from `start` when there is one.
    fn record(&mut self, stage: usize, start: Option<Instant>) {
        self.ran[stage] += 1;
        if let Some(t) = start {
            self.ns[stage] += t.elapsed().as_nanos() as u64;
            self.timed[stage] += 1;
        }
    }

    /// Add the thread CPU time since `since` (a [`thread_cpu_ns`] reading on this thread).
    fn add_cpu(&mut self, since: u64) {
        self.cpu_ns += thread_cpu_ns().saturating_sub(since);
    }

    fn merge(&mut self, o: &StageClock) {
        for i in 0..4 {
            self.ns[i] += o.ns[i];
            self.timed[i] += o.timed[i];
            self.ran[i] += o.ran[i];
        }
        self.cpu_ns += o.cpu_ns;
    }

    /// A stage's wall time, estimated from its timed runs: their mean × how often it ran.
    fn wall_estimate(&self, stage: usize) -> f64 {
        if self.timed[stage] == 0 {
            return 0.0;
        }
        self.ns[stage] as f64 / self.timed[stage] as f64 * self.ran[stage] as f64
    }

    /// A stage's CPU seconds: the threads' CPU time split over the stages in the proportions of
    /// their wall-time estimates. The sampled wall clock alone counts the time a thread waited
    /// preempted, and scaled up it summed to several times the process's CPU time on a busy
    /// host; the CPU clocks are exact in total, the samples only share it out.
    fn seconds(&self, stage: usize) -> f64 {
        let all: f64 = (0..4).map(|s| self.wall_estimate(s)).sum();
        if all <= 0.0 {
            return 0.0;
        }
        self.cpu_ns as f64 * 1e-9 * self.wall_estimate(stage) / all
    }
}

/// Which stages of one message are timed.
#[derive(Clone, Copy)]
struct Timing {
    /// Every stage (one message in [`TIME_EVERY`]).
    all: bool,
    /// Compression whenever it runs (it runs on a sample).
    compress: bool,
    /// The round trip whenever it runs (it runs on a sample).
    roundtrip: bool,
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

    #[allow(clippy::too_many_arguments)]
    fn measure(
        &mut self,
        codecs: &[&'static dyn Codec],
        schema: &SchemaSource,
        prepared: &[Option<Box<dyn Prepared>>],
        payload: &Payload,
        sampled: Sampled,
        timing: Timing,
        keep: bool,
        rows: &mut Vec<SizeRow>,
        clock: &mut StageClock,
    ) {
        let inferred;
        let schema = match schema {
            SchemaSource::Fixed(s) => s,
            SchemaSource::PerPayload => {
                inferred = Schema::infer([&payload.value]);
                &inferred
            }
        };
        // The compact JSON the ratios divide by, and the check that the payload fits the
        // schema, made here once rather than by each codec that uses it (a payload that does
        // not fit is left to each codec's own check and error); timed as one encode.
        let t = timing.all.then(Instant::now);
        self.json_buf.clear();
        serde_json::to_writer(&mut self.json_buf, &payload.value).expect("a Value always serializes to JSON");
        let json_bytes = self.json_buf.len() as u64;
        let fitted = schema.check(&payload.value).is_ok();
        clock.record(ENCODE, t);
        // Per payload (built-in corpora): each codec bound to this payload's own schema.
        let own: Vec<Option<Box<dyn Prepared>>>;
        let prepared = if prepared.is_empty() {
            own = prepare_all(codecs, schema);
            &own
        } else {
            prepared
        };
        for (codec, bound) in codecs.iter().zip(prepared) {
            let comp = sampled.compress.then_some(&mut self.compressors);
            let mut row = measure_one(
                *codec,
                bound.as_deref(),
                fitted,
                payload,
                schema,
                json_bytes,
                &mut self.buf,
                comp,
                sampled.roundtrip,
                keep,
                timing,
                clock,
            );
            if !keep && !matches!(row.fidelity, Fidelity::Exact | Fidelity::Unchecked) {
                row.payload = payload.name.clone();
            }
            rows.push(row);
        }
    }
}

/// Which of the sampled steps a message gets.
#[derive(Clone, Copy)]
struct Sampled {
    compress: bool,
    roundtrip: bool,
}

/// The (place, value class) pairs of one message.
fn value_pairs(v: &wirebench_core::Value) -> Vec<u64> {
    let mut out = Vec::new();
    classes(v, &mut out);
    out
}

/// Each codec bound to `schema` (schemaless codecs to none).
fn prepare_all(codecs: &[&'static dyn Codec], schema: &Schema) -> Vec<Option<Box<dyn Prepared>>> {
    codecs.iter().map(|c| c.prepare((c.info().schema != SchemaUse::None).then_some(schema)).ok()).collect()
}

/// The threads the size measurement parses and measures on: the machine's cores (1–16).
pub fn worker_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 16)
}

/// Below this many payloads a batch is measured on one thread.
const PARALLEL_MIN: usize = 64;

impl SizeMeter {
    pub fn new(codecs: Vec<&'static dyn Codec>, schema: SchemaSource, keep_rows: bool) -> SizeMeter {
        let aggregates = codecs.iter().map(|c| SizeAggregate::new(c.info().id)).collect();
        let threads = worker_threads();
        let prepared = match &schema {
            SchemaSource::Fixed(s) => prepare_all(&codecs, s),
            SchemaSource::PerPayload => Vec::new(),
        };
        SizeMeter {
            codecs,
            schema,
            prepared,
            keep_rows,
            rows: Vec::new(),
            aggregates,
            workers: (0..threads).map(|_| Worker::new()).collect(),
            records: 0,
            input_bytes: 0,
            started: Instant::now(),
            compress_every: 1,
            roundtrip_every: 1,
            novelty: None,
            novel_checked: 0,
            clock: StageClock::default(),
        }
    }

    /// Besides one message in `roundtrip_every`, check the round trip of every message that
    /// brings a (place, value class) pair not checked yet, in input order (so the messages
    /// checked do not depend on batches or threads).
    pub fn roundtrip_new_classes(mut self, on: bool) -> SizeMeter {
        self.novelty = on.then(Novelty::default);
        self
    }

    /// How many messages were checked only because they brought a new value class.
    pub fn novel_checked(&self) -> u64 {
        self.novel_checked
    }

    /// Which messages of a batch bring a new value class (empty when not asked for).
    fn novel_flags<'p>(&mut self, values: impl Iterator<Item = &'p [u64]>) -> Vec<bool> {
        let Some(nov) = self.novelty.as_mut() else { return Vec::new() };
        let (first, k) = (self.records, self.roundtrip_every);
        let flags: Vec<bool> = values
            .enumerate()
            .map(|(i, pairs)| {
                let sampled = k > 0 && (first + i as u64).is_multiple_of(k);
                nov.is_new(pairs, sampled) && !sampled
            })
            .collect();
        self.novel_checked += flags.iter().filter(|&&f| f).count() as u64;
        flags
    }

    /// Check the round trip of one message in `k` (0: none; default 1, every message). The
    /// others are encoded only, and counted as unchecked.
    pub fn roundtrip_every(mut self, k: u64) -> SizeMeter {
        self.roundtrip_every = k;
        self
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
        let pairs: Vec<Vec<u64>> = match self.novelty {
            Some(_) => batch.iter().map(|p| value_pairs(&p.value)).collect(),
            None => Vec::new(),
        };
        let novel = self.novel_flags(pairs.iter().map(Vec::as_slice));
        let r: Result<(), SampleError> = self.measure_batch(batch, |p| Ok(Cow::Borrowed(p)), &novel, true);
        r.expect("payloads already parsed");
    }

    /// Parse and measure a batch of samples as read (parsing on the worker threads too). The
    /// first sample that is not JSON, in input order, is the error.
    pub fn add_raw_batch(&mut self, batch: &[RawSample]) -> Result<(), SampleError> {
        if self.novelty.is_none() {
            return self.measure_batch(batch, |r| r.parse().map(Cow::Owned), &[], true);
        }
        // Parse and class every message first (on every core), decide in input order which
        // bring a new class, then measure.
        let first = self.records;
        let per = batch.len().div_ceil(self.workers.len()).max(PARALLEL_MIN);
        let seen = self.novelty.as_ref().expect("novelty on");
        type Parsed = (Vec<Result<(Payload, Vec<u64>), SampleError>>, StageClock);
        let parse = |chunk: &[RawSample], offset: usize| -> Parsed {
            let cpu = thread_cpu_ns();
            let mut clock = StageClock::default();
            let mut out = Vec::with_capacity(chunk.len());
            for (i, raw) in chunk.iter().enumerate() {
                let t = (first + (offset + i) as u64).is_multiple_of(TIME_EVERY).then(Instant::now);
                // Only a message with a pair not seen before the batch is passed on to be decided
                // in order (after the first messages of a run, almost none are).
                let parsed = raw.parse().map(|p| {
                    let mut pairs = value_pairs(&p.value);
                    if !seen.may_be_new(&pairs) {
                        pairs = Vec::new();
                    }
                    (p, pairs)
                });
                clock.record(PARSE, t);
                let stop = parsed.is_err();
                out.push(parsed);
                if stop {
                    break;
                }
            }
            clock.add_cpu(cpu);
            (out, clock)
        };
        let mut parsed: Vec<Parsed> = Vec::new();
        if batch.len() < 2 * PARALLEL_MIN || self.workers.len() == 1 {
            parsed.push(parse(batch, 0));
        } else {
            std::thread::scope(|scope| {
                let parse = &parse;
                let handles: Vec<_> = batch
                    .chunks(per)
                    .enumerate()
                    .map(|(c, chunk)| scope.spawn(move || parse(chunk, c * per)))
                    .collect();
                for h in handles {
                    parsed.push(h.join().expect("size parse worker panicked"));
                }
            });
        }
        let mut payloads = Vec::with_capacity(batch.len());
        let mut pairs = Vec::with_capacity(batch.len());
        let mut error = None;
        'chunks: for (chunk, clock) in parsed {
            self.clock.merge(&clock);
            for r in chunk {
                match r {
                    Ok((p, c)) => {
                        payloads.push(p);
                        pairs.push(c);
                    }
                    Err(e) => {
                        error = Some(e);
                        break 'chunks;
                    }
                }
            }
        }
        let novel = self.novel_flags(pairs.iter().map(Vec::as_slice));
        drop(pairs);
        self.measure_batch(&payloads, |p| Ok(Cow::Borrowed(p)), &novel, false)?;
        error.map_or(Ok(()), Err)
    }

    /// `novel`: per message of the batch, whether it brings a new value class (empty: none
    /// does); `record_parse`: whether getting the payload is the parse stage (not when the
    /// batch was parsed before).
    fn measure_batch<T: Sync>(
        &mut self,
        batch: &[T],
        payload: impl Fn(&T) -> Result<Cow<'_, Payload>, SampleError> + Sync,
        novel: &[bool],
        record_parse: bool,
    ) -> Result<(), SampleError> {
        let (codecs, schema, prepared, keep) = (&self.codecs, &self.schema, &self.prepared, self.keep_rows);
        let per_chunk = batch.len().div_ceil(self.workers.len()).max(PARALLEL_MIN);
        // The message's index in the whole run decides whether it is compressed, so the sample
        // does not depend on batches or threads.
        let (first, every, rt_every) = (self.records, self.compress_every, self.roundtrip_every);
        let pick = |k: u64, i: usize| k > 0 && (first + i as u64).is_multiple_of(k);
        let sampled = move |i: usize| Sampled {
            compress: pick(every, i),
            roundtrip: pick(rt_every, i) || novel.get(i) == Some(&true),
        };
        let timing = move |i: usize| Timing {
            all: pick(TIME_EVERY, i),
            compress: every > 1,
            roundtrip: rt_every != 1 || !novel.is_empty(),
        };
        // A chunk's rows (kept ones) and its aggregates per codec, how many payloads they
        // cover, and the error that stopped it. Rows that are not kept are folded on the
        // worker: only the aggregates come back.
        type Chunk = (Vec<SizeRow>, Vec<SizeAggregate>, u64, Option<SampleError>, StageClock);
        let run = |worker: &mut Worker, chunk: &[T], offset: usize| -> Chunk {
            let cpu = thread_cpu_ns();
            let mut rows = Vec::with_capacity(if keep { chunk.len() * codecs.len() } else { codecs.len() });
            let mut aggs: Vec<SizeAggregate> = codecs.iter().map(|c| SizeAggregate::new(c.info().id)).collect();
            let mut clock = StageClock::default();
            for (i, item) in chunk.iter().enumerate() {
                let from = rows.len();
                let timing = timing(offset + i);
                let t = timing.all.then(Instant::now);
                let parsed = payload(item);
                if record_parse {
                    clock.record(PARSE, t);
                }
                match parsed {
                    Ok(p) => worker.measure(
                        codecs,
                        schema,
                        prepared,
                        &p,
                        sampled(offset + i),
                        timing,
                        keep,
                        &mut rows,
                        &mut clock,
                    ),
                    Err(e) => {
                        clock.add_cpu(cpu);
                        return (rows, aggs, i as u64, Some(e), clock);
                    }
                }
                for (agg, row) in aggs.iter_mut().zip(&rows[from..]) {
                    agg.add(row);
                }
                if !keep {
                    rows.clear();
                }
            }
            clock.add_cpu(cpu);
            (rows, aggs, chunk.len() as u64, None, clock)
        };
        let mut chunks: Vec<Chunk> = Vec::new();
        if batch.len() < 2 * PARALLEL_MIN || self.workers.len() == 1 {
            chunks.push(run(&mut self.workers[0], batch, 0));
        } else {
            std::thread::scope(|scope| {
                let run = &run;
                let handles: Vec<_> = batch
                    .chunks(per_chunk)
                    .enumerate()
                    .zip(self.workers.iter_mut())
                    .map(|((c, chunk), worker)| scope.spawn(move || run(worker, chunk, c * per_chunk)))
                    .collect();
                for h in handles {
                    chunks.push(h.join().expect("size worker panicked"));
                }
            });
        }
        for (rows, aggs, payloads, err, clock) in chunks {
            self.records += payloads;
            self.clock.merge(&clock);
            for (total, chunk) in self.aggregates.iter_mut().zip(&aggs) {
                total.merge(chunk);
            }
            self.rows.extend(rows);
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(())
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
            roundtrip_new_classes: self.novelty.is_some().then_some(self.novel_checked),
            held_out: None,
            run: RunStats {
                records: self.records,
                input_bytes: self.input_bytes,
                seconds,
                records_per_second: self.records as f64 / seconds.max(1e-9),
                input_mib_per_second: self.input_bytes as f64 / (1024.0 * 1024.0) / seconds.max(1e-9),
                peak_rss_kib: peak_rss_kib(),
                cpu_seconds: (self.records > 0).then(|| StageSeconds {
                    parse: self.clock.seconds(PARSE),
                    encode: self.clock.seconds(ENCODE),
                    compress: self.clock.seconds(COMPRESS),
                    roundtrip: self.clock.seconds(ROUNDTRIP),
                }),
            },
        }
    }
}

/// One payload in one codec (through its binding when it has one). Rows that are only
/// folded into the aggregates (`keep` false) leave payload, codec and path empty (the caller
/// names the payload of a row with an issue: the aggregate keeps the first one).
#[allow(clippy::too_many_arguments)]
fn measure_one(
    codec: &dyn Codec,
    bound: Option<&dyn Prepared>,
    fitted: bool,
    payload: &Payload,
    schema: &Schema,
    json_bytes: u64,
    buf: &mut Vec<u8>,
    comp: Option<&mut Compressors>,
    roundtrip: bool,
    keep: bool,
    timing: Timing,
    clock: &mut StageClock,
) -> SizeRow {
    let info = codec.info();
    let mut row = SizeRow {
        payload: if keep { payload.name.clone() } else { String::new() },
        codec: if keep { info.id.to_string() } else { String::new() },
        path: if keep { "dynamic".into() } else { String::new() },
        bytes: None,
        json_bytes,
        ratio_to_json: None,
        zstd_bytes: None,
        deflate_bytes: None,
        fidelity: Fidelity::Exact,
    };
    // The round trip is judged under the run's schema for every codec (a float32 field's
    // shortest decimal is that float32, whichever codec carries it).
    let judge = schema;
    let schema = (info.schema != wirebench_codecs::SchemaUse::None).then_some(schema);
    // A .proto schema's lowerCamelCase keys, as the codecs of the shared model read them.
    let renamed = schema.and_then(|s| s.with_proto_names(&payload.value));
    let value = renamed.as_ref().unwrap_or(&payload.value);
    buf.clear();
    let t = timing.all.then(Instant::now);
    let encoded = match bound {
        Some(b) if fitted => b.encode_fitted(value, buf),
        Some(b) => b.encode(value, buf),
        None => codec.encode(value, schema, buf),
    };
    clock.record(ENCODE, t);
    if let Err(e) = encoded {
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
        let t = (timing.all || timing.compress).then(Instant::now);
        row.zstd_bytes = comp.zstd_len(buf);
        row.deflate_bytes = comp.deflate_len(buf);
        clock.record(COMPRESS, t);
    }
    if !roundtrip {
        row.fidelity = Fidelity::Unchecked;
        return row;
    }
    let t = (timing.all || timing.roundtrip).then(Instant::now);
    let decoded = match bound {
        Some(b) => b.decode(buf),
        None => codec.decode(buf, schema),
    };
    row.fidelity = match decoded {
        Ok(back) => Fidelity::from_losses(compare_under(&payload.value, &back, Some(judge))),
        Err(e) => Fidelity::Failed { reason: format!("round trip: {e}") },
    };
    clock.record(ROUNDTRIP, t);
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
        let sizes =
            |c: &str| -> Vec<u64> { s.rows.iter().filter(|r| r.codec == c).map(|r| r.bytes.unwrap()).collect() };
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
                value: wirebench_core::Value::from_json_str(&format!(
                    r#"{{"i":{i},"t":{}.25,"f":{}.1,"s":"x{}"}}"#,
                    i % 7,
                    i % 5,
                    "y".repeat(i % 13)
                ))
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
        let key = |r: &SizeRow| {
            (r.payload.clone(), r.codec.clone(), r.bytes, r.zstd_bytes, r.deflate_bytes, r.fidelity.label())
        };
        assert_eq!(a.rows.iter().map(key).collect::<Vec<_>>(), b.rows.iter().map(key).collect::<Vec<_>>());
        for (x, y) in a.aggregates.iter().zip(&b.aggregates) {
            assert_eq!(
                (x.records, x.bytes_total, x.zstd_bytes_total, x.exact),
                (y.records, y.bytes_total, y.zstd_bytes_total, y.exact)
            );
        }
        assert_eq!(b.aggregates[0].records, 500);
        // Rows not kept are folded on the workers and the chunks' aggregates merged in order:
        // every aggregate field (first issue, percentiles, min and max) as one by one.
        let mut folded = SizeMeter::new(
            wirebench_codecs::registry().to_vec(),
            SchemaSource::Fixed(Schema::infer(payloads.iter().map(|p| &p.value))),
            false,
        );
        folded.workers.push(Worker::new());
        folded.workers.push(Worker::new());
        folded.add_batch(&payloads);
        let c = folded.finish("t");
        assert!(c.rows.is_empty());
        let json = |s: &wirebench_core::results::SizeSection| serde_json::to_string(&s.aggregates).unwrap();
        assert_eq!(json(&a), json(&c));
        assert!(a.aggregates.iter().any(|x| x.first_issue.is_some()), "the payloads give some codec an issue");
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

    /// A sampled round trip checks every k-th message (by its index in the run, whatever the
    /// batches), encodes and sizes the others, and counts them as unchecked; an encode error
    /// is still found on every message.
    #[test]
    fn a_sampled_round_trip_checks_every_kth_message() {
        let codecs: Vec<_> = ["pson", "protoson", "bson"].iter().map(|c| wirebench_codecs::find(c).unwrap()).collect();
        let payloads: Vec<Payload> = (0..300)
            .map(|i| Payload {
                name: format!("p{i}"),
                value: if i == 7 {
                    wirebench_core::Value::UInt(i)
                } else {
                    wirebench_core::Value::from_json_str(&format!(r#"{{"i":{i},"f":2.3}}"#)).unwrap()
                },
            })
            .collect();
        let schema = Schema::infer(payloads.iter().skip(8).map(|p| &p.value));
        let mut all = SizeMeter::new(codecs.clone(), SchemaSource::Fixed(schema.clone()), false);
        let mut some = SizeMeter::new(codecs.clone(), SchemaSource::Fixed(schema.clone()), true).roundtrip_every(10);
        let mut none = SizeMeter::new(codecs, SchemaSource::Fixed(schema), false).roundtrip_every(0);
        all.add_batch(&payloads);
        for chunk in payloads.chunks(64) {
            some.add_batch(chunk);
        }
        none.add_batch(&payloads);
        let some_clock = some.clock;
        let (all, some, none) = (all.finish("t"), some.finish("t"), none.finish("t"));
        for (a, (s, n)) in all.aggregates.iter().zip(some.aggregates.iter().zip(&none.aggregates)) {
            // Sizes are the same whatever is checked.
            assert_eq!((a.bytes_total, a.encoded), (s.bytes_total, s.encoded), "{}", a.codec);
            assert_eq!((a.bytes_total, a.encoded), (n.bytes_total, n.encoded), "{}", a.codec);
            assert_eq!(a.unchecked, 0);
            assert_eq!(s.exact + s.lossy + s.failed + s.unchecked + s.unsupported, 300, "{}", a.codec);
            assert_eq!((n.exact, n.lossy, n.failed), (0, 0, 0), "{}", a.codec);
        }
        // Protoson rounds 2.3 to float32: lossy on each checked message (0, 10, ..., 290).
        let pro = &some.aggregates[1];
        assert_eq!((pro.lossy, pro.unchecked), (30, 270));
        // BSON refuses the scalar root of message 7 whether or not it is checked.
        assert_eq!((some.aggregates[2].unsupported, none.aggregates[2].unsupported), (1, 1));
        // The stage clock: every stage of every 16th message timed, the sampled round trip
        // whenever it runs; compression (every message here) on the timed messages only.
        let c = &some_clock;
        assert_eq!(
            c.ran,
            [300, 300 * 4, 300 * 3 - 1, 30 * 3],
            "parse, encode (3 codecs + JSON), compress (not BSON's refusal), round trip"
        );
        assert_eq!(c.timed, [19, 19 * 4, 19 * 3, 30 * 3]);
        let est = some.run.cpu_seconds.as_ref().unwrap();
        assert!(est.encode > 0.0 && est.compress > 0.0 && est.roundtrip > 0.0, "{est:?}");
        let est = none.run.cpu_seconds.as_ref().unwrap();
        assert_eq!(est.roundtrip, 0.0);
        let rows: Vec<_> = some.rows.iter().filter(|r| r.codec == "pson").map(|r| r.fidelity.label()).collect();
        assert_eq!(
            rows[..12],
            [
                "exact",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "unchecked",
                "exact",
                "unchecked"
            ]
        );
    }
    /// A sampled round trip also checks every message that brings a value class not checked
    /// before: one float that float32 cannot hold among 4,000 that it can is found, whatever
    /// the batches, and the messages checked are the same parsed or raw.
    #[test]
    fn a_sampled_round_trip_checks_every_new_value_class() {
        let codecs: Vec<_> = ["pson", "protoson"].iter().map(|c| wirebench_codecs::find(c).unwrap()).collect();
        let text = |i: usize| format!(r#"{{"i":{i},"f":{}}}"#, if i == 2501 { "2.3" } else { "1.5" });
        let path: std::sync::Arc<std::path::Path> = std::path::Path::new("s.ndjson").into();
        let raws: Vec<RawSample> =
            (0..4000).map(|i| RawSample { path: path.clone(), line: Some(i + 1), text: text(i) }).collect();
        let payloads: Vec<Payload> = raws.iter().map(|r| r.parse().unwrap()).collect();
        let schema = Schema::infer(payloads.iter().map(|p| &p.value));
        let meter = || {
            SizeMeter::new(codecs.clone(), SchemaSource::Fixed(schema.clone()), true)
                .roundtrip_every(1000)
                .roundtrip_new_classes(true)
        };
        let (mut parsed, mut raw_one, mut raw_many, mut plain) =
            (meter(), meter(), meter(), meter().roundtrip_new_classes(false));
        parsed.add_batch(&payloads);
        raw_one.add_raw_batch(&raws).unwrap();
        for chunk in raws.chunks(700) {
            raw_many.add_raw_batch(chunk).unwrap();
        }
        plain.add_raw_batch(&raws).unwrap();
        assert_eq!((raw_many.clock.ran[PARSE], raw_many.clock.timed[PARSE]), (4000, 250), "each message parsed once");
        // New classes: i reaches 8 bits at 128 and 9 at 256; message 2501's float.
        assert_eq!((parsed.novel_checked(), raw_one.novel_checked(), raw_many.novel_checked()), (3, 3, 3));
        let checked = |s: &SizeSection| -> Vec<usize> {
            s.rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.codec == "pson" && r.fidelity.label() != "unchecked")
                .map(|(i, _)| i / 2)
                .collect()
        };
        let (parsed, raw_one, raw_many, plain) =
            (parsed.finish("t"), raw_one.finish("t"), raw_many.finish("t"), plain.finish("t"));
        assert_eq!(checked(&parsed), [0, 128, 256, 1000, 2000, 2501, 3000]);
        assert_eq!(checked(&raw_one), checked(&parsed));
        assert_eq!(checked(&raw_many), checked(&parsed));
        assert_eq!(parsed.roundtrip_new_classes, Some(3));
        assert_eq!(plain.roundtrip_new_classes, None);
        // Protoson rounds 2.3 to float32: the one lossy message is found; the systematic
        // sample alone misses it.
        assert_eq!((parsed.aggregates[1].lossy, raw_many.aggregates[1].lossy, plain.aggregates[1].lossy), (1, 1, 0));
        assert_eq!(raw_many.aggregates[1].unchecked, 4000 - 7);
        // Every stage is counted once per message, parsed first or not.
        assert_eq!(raw_many.run.records, 4000);
        let (a, b) = (raw_many.run.cpu_seconds.unwrap(), plain.run.cpu_seconds.unwrap());
        assert!(a.parse > 0.0 && b.parse > 0.0 && a.roundtrip > 0.0);
    }

    /// The stage figures share out the threads' CPU time: a stage whose timed runs took long on
    /// the wall clock (preempted) does not add time the threads did not spend on the CPU.
    #[test]
    fn stage_seconds_share_out_the_cpu_time() {
        let c =
            StageClock { ns: [0, 9_000, 1_000, 0], timed: [0, 10, 10, 0], ran: [0, 160, 160, 0], cpu_ns: 2_000_000 };
        assert_eq!(c.wall_estimate(ENCODE), 144_000.0);
        assert!((c.seconds(ENCODE) - 1.8e-3).abs() < 1e-12, "{}", c.seconds(ENCODE));
        assert!((c.seconds(COMPRESS) - 0.2e-3).abs() < 1e-12);
        assert_eq!(c.seconds(PARSE), 0.0);
        assert_eq!(StageClock::default().seconds(ENCODE), 0.0);
    }

    /// On the whole: the stages' CPU seconds sum to no more than the CPU time the process spent
    /// measuring (on one thread here), however busy the host; sleeping threads add none.
    #[test]
    fn stage_seconds_are_within_the_process_cpu_time() {
        let codecs: Vec<_> = ["pson", "json", "cbor"].iter().map(|c| wirebench_codecs::find(c).unwrap()).collect();
        let payloads: Vec<Payload> = builtin("pson-paper").unwrap().payloads();
        let mut m = SizeMeter::new(codecs, SchemaSource::PerPayload, false);
        m.workers.truncate(1);
        let cpu0 = crate::cpu::thread_cpu_seconds();
        for _ in 0..40 {
            m.add_batch(&payloads);
        }
        let cpu = crate::cpu::thread_cpu_seconds() - cpu0;
        let s = m.finish("t").run.cpu_seconds.unwrap();
        let total = s.parse + s.encode + s.compress + s.roundtrip;
        assert!(total > 0.0 && total <= cpu * 1.0001 + 1e-6, "stages {total} s, thread CPU {cpu} s");
        assert!(s.encode > 0.0 && s.compress > 0.0 && s.roundtrip > 0.0, "{s:?}");
    }
}
