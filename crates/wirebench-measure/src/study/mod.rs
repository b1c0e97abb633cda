//! The size and speed parts of a study (see [`wirebench_core::part::Part`]), and the input
//! checks every part shares.

pub mod inputs;
pub mod size;
pub mod speed;
