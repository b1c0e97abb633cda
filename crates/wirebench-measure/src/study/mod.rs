//! The size, speed and evolve parts of a study (see [`wirebench_core::part::Part`]), and the input
//! checks every part shares.

pub mod evolve;
pub mod inputs;
pub mod size;
pub mod speed;
