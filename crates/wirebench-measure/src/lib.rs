//! wirebench measurements. Measurements produce results (the one schema in
//! `wirebench_core::results`); they never format.

pub mod compress;
pub mod size;
