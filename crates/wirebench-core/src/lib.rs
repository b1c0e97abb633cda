//! wirebench-core: the data model every other wirebench crate builds on.
//!
//! - [`Value`]: one dynamic value (ordered maps, 64-bit signed/unsigned integers, f32/f64, bytes).
//! - [`Schema`]: field names and types, inferred from samples or read from JSON.
//! - [`corpus`]: the built-in corpora and streamed user samples.
//! - [`fidelity`]: what a round trip through a codec kept and lost.
//! - [`classes`]: the class of every value in a message, so a sampled round trip takes each new one.
//! - [`part`]: the shape every part of a study has (options, validate, run, typed section).
//! - [`results`]: the one results schema, with provenance, written atomically.
//! - [`sections`]: the typed results sections of the link and transport parts.

pub mod classes;
pub mod corpus;
pub mod fidelity;
pub mod names;
pub mod part;
pub mod published;
pub mod results;
pub mod schema;
pub mod sections;
pub mod signals;
pub mod value;

pub use fidelity::Fidelity;
pub use schema::{Field, NativeSchema, ProtoDescriptor, ProtoField, Schema, SchemaMismatch, Type};
pub use value::Value;
