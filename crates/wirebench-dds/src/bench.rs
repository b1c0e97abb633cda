//! Marshalling alone, without DDS: encode and decode time per sample, bytes, allocations, for
//! each marshalling of the same [`KeyedOctets`] sample. This is where "JSON vs CDR" is measured
//! rather than assumed; the transport runs show what it does to latency and throughput.
//!
//! Method: the speed engine's (`wirebench_measure::speed::time_op`): warm-up, a batch calibrated
//! to ≥ 2 ms from several timings, `batches` batches, the median ns per operation (and min/max
//! over batches), re-calibrated and re-sampled when the batches ran short, and marked
//! unreliable (`encode_short` / `decode_short`) when they still did; `black_box` on inputs and
//! outputs; the round trip is checked before timing.

use std::hint::black_box;

use crate::marshal::{Codec, KeyedOctets, Marshal};
use crate::DdsError;

/// Marshalling alone at one size (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::MarshalBench;

/// The speed engine's [`time_op`](wirebench_measure::speed::time_op) on `f`: warm-up, robust
/// calibration to batches of ≥ 2 ms, `batches` samples (at least 3): (median, fastest, slowest)
/// ns per operation and whether the samples ran short even after re-calibrating (unreliable).
fn time_per_op(batches: usize, f: &mut dyn FnMut()) -> ((f64, f64, f64), bool) {
    let plan = wirebench_measure::speed::Plan::for_op(batches.max(3), 2e6);
    let e = wirebench_measure::speed::time_op(
        &mut |n| {
            for _ in 0..n {
                f();
            }
        },
        &plan,
    );
    ((e.ns_per_op.median, e.ns_per_op.min, e.ns_per_op.max), e.short)
}

/// Benchmark one marshalling at one payload size.
pub fn run(size: usize, marshal: Marshal, batches: usize) -> Result<MarshalBench, DdsError> {
    let mut sample = KeyedOctets::new(size, 0x5eed);
    sample.set_key(123);
    let mut buf = Vec::with_capacity(size * 4 + 64);
    marshal.encode(&sample, &mut buf)?;
    let back = marshal.decode(&buf)?;
    let expect = if marshal == Marshal::Raw { &sample.value_field } else { &back.value_field };
    if back.value_field != *expect || (marshal != Marshal::Raw && back != sample) {
        return Err(DdsError::Marshal(format!("{} does not round-trip", marshal.name())));
    }
    let bytes = buf.len();
    let ((e, emin, emax), encode_short) = time_per_op(batches, &mut || {
        let _ = marshal.encode(black_box(&sample), &mut buf);
        black_box(&buf);
    });
    let wire = buf.clone();
    let ((d, dmin, dmax), decode_short) = time_per_op(batches, &mut || {
        let _ = black_box(marshal.decode(black_box(&wire)));
    });
    let encode_allocs = wirebench_measure::alloc::measure(100, || {
        let _ = marshal.encode(black_box(&sample), &mut buf);
    })
    .map(|a| a.allocs_per_op);
    let decode_allocs = wirebench_measure::alloc::measure(100, || {
        let _ = black_box(marshal.decode(black_box(&wire)));
    })
    .map(|a| a.allocs_per_op);
    Ok(MarshalBench {
        size,
        marshal,
        bytes,
        encode_ns: e,
        decode_ns: d,
        encode_ns_range: (emin, emax),
        decode_ns_range: (dmin, dmax),
        encode_allocs,
        decode_allocs,
        encode_short,
        decode_short,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_reports_sizes_and_times() {
        let c = super::run(512, crate::Marshal::Cdr, 3).unwrap();
        let j = super::run(512, crate::Marshal::Json, 3).unwrap();
        assert_eq!(c.bytes, 4 + 8 + 4 + 512);
        assert!(j.bytes > c.bytes);
        assert!(c.encode_ns > 0.0 && c.decode_ns > 0.0 && j.encode_ns > 0.0 && j.decode_ns > 0.0);
        assert!(c.encode_ns_range.0 <= c.encode_ns && c.encode_ns <= c.encode_ns_range.1);
    }
}
