//! Figures the seed reports published, carried over as data with their source, one module per
//! seed, so that every report can put our numbers beside them and say where a published figure
//! cannot be right. The parts copy what they compare against into their results sections, so a
//! report renders from the results file alone.

pub mod seed000;
pub mod seed001;
pub mod seed002_003;
pub mod seed004;

pub use seed001::*;
