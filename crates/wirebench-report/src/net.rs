//! The `link`, `http` (seed 002) and `tcp` (seed 003) results sections: text and HTML.
//!
//! PLACEHOLDER: replaced by its owner.

use wirebench_core::results::Results;

use crate::html::{Ctx, Section};
use crate::Output;

pub fn render_link(_r: &Results, _output: Output) -> String {
    String::new()
}

pub fn render_http(_r: &Results, _output: Output) -> String {
    String::new()
}

pub fn render_tcp(_r: &Results, _output: Output) -> String {
    String::new()
}

pub fn link_section(_r: &Results, _ctx: &Ctx) -> Option<Section> {
    None
}

pub fn http_section(_r: &Results, _ctx: &Ctx) -> Option<Section> {
    None
}

pub fn tcp_section(_r: &Results, _ctx: &Ctx) -> Option<Section> {
    None
}
