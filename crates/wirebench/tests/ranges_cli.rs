//! Every numeric option of the transport and link commands is range-checked where it is parsed:
//! not a number, infinite, NaN, negative, zero (where zero means nothing), too large to fit in
//! memory or time: one error line naming the option, exit code 2, before anything runs.

mod common;
use common::*;

/// Values no option takes.
const ALWAYS_BAD: [&str; 5] = ["inf", "nan", "-1", "1e300", "18446744073709551616"];

/// (command, option, whether 0 is bad too, a huge value that must be refused, a word the error
/// line names the option by).
const OPTIONS: &[(&[&str], &str, bool, &str, &str)] = &[
    (&["mqtt", "throughput"], "--fields", true, "100000000000", "fields"),
    (&["mqtt", "throughput"], "--count", true, "100000000000000", "messages"),
    (&["mqtt", "throughput"], "--timeout", true, "1e12", "timeout"),
    (&["mqtt", "throughput"], "--reps", true, "100000000000", "reps"),
    (&["mqtt", "rtt"], "--warmup", false, "100000000000000", "warmup"),
    (&["mqtt", "rtt"], "--rate", true, "1e15", "rate"),
    (&["http"], "--connections", true, "100000000000", "connections"),
    (&["http"], "--duration", true, "1e12", "duration"),
    (&["http"], "--threads", true, "100000000000", "threads"),
    (&["http"], "--open-rate", true, "1e15", "open-loop rate"),
    (&["http"], "--loss", false, "1e9", "loss"),
    (&["http"], "--collector-workers", true, "100000000000", "collector workers"),
    (&["http"], "--messages", true, "100000000000000", "messages"),
    (&["tcp"], "--cadence-ms", false, "1e15", "cadence"),
    (&["tcp"], "--count", true, "100000000000000", "count"),
    (&["tcp"], "--warmup", false, "100000000000000", "warmup"),
    (&["tcp"], "--delay-ms", false, "1e15", "delay"),
    (&["tcp"], "--echo-bytes", true, "100000000000000", "echo size"),
    (&["tcp"], "--messages", true, "100000000000000", "messages"),
    (&["link"], "--topic-bytes", false, "100000000000000", "topic"),
    (&["dds", "latency"], "--instances", true, "100000000000", "instances"),
    (&["dds", "latency"], "--samples", true, "100000000000", "samples"),
    (&["dds", "latency"], "--iterations", true, "100000000000", "iterations"),
    (&["dds", "latency"], "--warmup", false, "100000000000", "warmup"),
    (&["dds", "throughput"], "--count", true, "100000000000000", "throughput samples"),
    (&["dds", "latency"], "--ddsperf-secs", true, "100000000000", "ddsperf seconds"),
    (&["dds", "latency"], "--rounds", true, "100000000000", "rounds"),
    (&["dds", "latency"], "--domain", false, "100000000000", "domain"),
    (&["dds", "interop"], "--count", true, "100000000000000", "count"),
    (&["recommend"], "--budget", true, "100000000000000000000", "budget"),
];

#[test]
fn every_numeric_option_refuses_out_of_range_values_in_one_line() {
    let mut failures = Vec::new();
    for (cmd, opt, zero_bad, huge, needle) in OPTIONS {
        let mut values: Vec<&str> = ALWAYS_BAD.to_vec();
        values.push(huge);
        if *zero_bad {
            values.push("0");
        }
        for v in values {
            let arg = format!("{opt}={v}");
            let mut c = wb();
            c.args(*cmd).arg(&arg).timeout(std::time::Duration::from_secs(30));
            let out = c.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let one_line = stderr.trim_end().lines().count() == 1;
            let names = stderr.contains(needle) || stderr.contains(opt);
            if out.status.code() != Some(2) || !one_line || !names || stderr.contains("panicked") {
                failures.push(format!("{cmd:?} {arg}: exit {:?}: {}", out.status.code(), stderr.trim_end()));
            }
        }
    }
    assert!(failures.is_empty(), "{} refused wrongly or accepted:\n{}", failures.len(), failures.join("\n"));
}

/// A timing, rate or energy value too small or too large to be physical — a subnormal
/// 1e-320 that rounds to nothing, a 1e300 — is refused in one short line that gives the range
/// (and the value in exponent form, not in hundreds of digits), exit code 2, before anything
/// runs.
#[test]
fn tiny_and_huge_values_are_refused_with_their_range() {
    let cases: &[(&[&str], &str)] = &[
        (&["tcp", "--cadence-ms", "1e-320"], "cadence 1e-320 ms: use 0 (back to back) or 0.001-60000"),
        (&["tcp", "--cadence-ms", "1e308"], "cadence 1e308 ms: use 0 (back to back) or 0.001-60000"),
        (&["tcp", "--delay-ms", "1e-320"], "delay 1e-320 ms: use 0 or 0.001-10000"),
        (&["mqtt", "throughput", "--timeout", "1e-320"], "--timeout 1e-320: expected seconds in [0.001, 86400]"),
        (&["mqtt", "rtt", "--rate", "1e-320"], "at most 1e7, that fits the run in 7 days, not 1e-320"),
        (&["http", "--duration", "1e-320"], "duration 1e-320 s: use 0.001 to 3600 s"),
        (&["http", "--open-rate", "1e-320"], "open-loop rate 1e-320 requests/s: use 1/duration (0.2) to 1e7"),
        (&["fleet", "--check", "--every", "1e-320s"], "--every \"1e-320s\": below 1 ms"),
        (&["fleet", "--check", "--duration", "1e300s"], "--duration \"1e300s\": over 1e12 ms"),
        (&["energy", "--every", "1e-320s"], "is outside 1ms to 3650d"),
        (&["energy", "--battery", "1e300mAh@1e300V"], "1e300 mAh at 1e300 V is outside 0.001 to 10000000 mAh"),
    ];
    let mut failures = Vec::new();
    for (args, needle) in cases {
        let out = wb().args(*args).timeout(std::time::Duration::from_secs(30)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr.trim_end();
        let ok = out.status.code() == Some(2)
            && line.lines().count() == 1
            && line.contains(needle)
            && line.len() < 200
            && out.stdout.is_empty();
        if !ok {
            failures.push(format!("{args:?}: exit {:?}: {line}", out.status.code()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
