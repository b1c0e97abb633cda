//! Fuzz the .proto schema reader (`read_schema_file` on a file of the fuzzer's bytes): it never
//! panics or overflows the stack, its errors are one line without control characters, and a
//! schema it reads has a model of at most MAX_SCHEMA_TYPES types nested no deeper than the
//! nesting limit.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirebench_fuzz::schema_file("proto", data));
