//! Test-only crate: see `tests/open62541.rs`.
