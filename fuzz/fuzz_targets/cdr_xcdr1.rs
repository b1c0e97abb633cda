//! Fuzz the `cdr-xcdr1` codec through wirebench-codecs (see `wirebench_fuzz::codec`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirebench_fuzz::codec("cdr-xcdr1", data));
