//! `wirebench recommend`: rank formats for given constraints, with reasons.
//!
//! PLACEHOLDER wiring: replaced by its owner.

use anyhow::Result;

use crate::common::bad;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    Err(bad("not built yet"))
}
