//! The `dds` results section (seed 004): terminal/Markdown/CSV text and the HTML section.
//!
//! PLACEHOLDER: replaced by its owner.

use wirebench_core::results::Results;

use crate::html::{Ctx, Section};
use crate::Output;

pub fn render(_r: &Results, _output: Output) -> String {
    String::new()
}

pub fn html_section(_r: &Results, _ctx: &Ctx) -> Option<Section> {
    None
}
