//! The typed results sections of the link and transport parts: data only. The parts that fill
//! them live in their transport crates (`wirebench-net`, `wirebench-mqtt`, `wirebench-dds`); the
//! report crate renders them. Size and speed sections are in [`crate::results`].

pub mod compare;
pub mod dds;
pub mod device;
pub mod energy;
pub mod evolve;
pub mod fleet;
pub mod held_out;
pub mod link;
pub mod micropython;
pub mod mqtt;
pub mod net;
pub mod recommend;
