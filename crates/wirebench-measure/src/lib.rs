//! wirebench measurements. Measurements produce results (the one schema in
//! `wirebench_core::results`); they never format.

pub mod alloc;
pub mod callgrind;
pub mod compare;
pub mod compress;
pub mod cpu;
pub mod dict;
pub mod ev;
pub mod meters;
pub mod micropython;
pub mod programs;
pub mod progress;
pub mod rng;
pub mod setup;
pub mod size;
pub mod speed;
pub mod speed_summary;
pub mod stats;
pub mod study;
pub mod timer;
pub mod workload;
