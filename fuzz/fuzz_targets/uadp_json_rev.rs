//! Fuzz the `uadp-json-rev` codec through wirebench-codecs (see `wirebench_fuzz::codec`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirebench_fuzz::codec("uadp-json-rev", data));
