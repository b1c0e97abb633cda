//! wirebench reports: every exporter reads results (never measures).
//!
//! - [`table`]: a small table model rendered as aligned terminal text or Markdown.
//! - [`csv`]: RFC 4180 CSV.
//! - [`size`]: the encoded-size report in each output kind.

pub mod compare;
pub mod csv;
pub mod dds;
pub mod device;
pub mod energy;
pub mod failed;
pub mod fleet;
pub mod html;
pub mod micropython;
pub mod mqtt;
pub mod net;
pub mod recommend;
pub mod size;
pub mod speed;
pub mod studies;
pub mod svg;
pub mod table;

/// The output kinds every report offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Table,
    Markdown,
    Csv,
    Json,
}
