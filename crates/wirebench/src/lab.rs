//! The network lab: `wirebench lab up|down|status`.
//!
//! PLACEHOLDER wiring: the owner of this file replaces every item below.

use anyhow::Result;

use crate::common::bad;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    Err(bad("not built yet"))
}
