//! DDS transport (seed 004): `wirebench dds ...` and the [dds] study part.
//!
//! PLACEHOLDER wiring: the owner of this file replaces every item below.

use anyhow::Result;

use crate::common::bad;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    Err(bad("not built yet"))
}

/// The options of this part in a study file.
#[derive(serde::Deserialize, serde::Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct StudyOpts {}

/// Run this part of a study; the value becomes the results section of the same name.
pub fn measure(_opts: &StudyOpts) -> Result<serde_json::Value> {
    Err(bad("not built yet"))
}
