//! wirebench-net: transports and links.
//!
//! - [`lab`]: a two-host network lab (netns + veth + TBF + nftables loss), a teardown guard,
//!   [`lab::run_in`] to run socket code inside a namespace. Needs root (CAP_SYS_ADMIN +
//!   CAP_NET_ADMIN); without it every call says which capability is missing, and callers use
//!   the userspace path instead.
//! - [`profile`]: lab link profiles (`"10mbit"`, `"up=10mbit,down=2mbit,loss=1"`, presets).
//! - [`emu`]: the userspace link emulator (TCP and UDP proxy: serialization delay at the link
//!   rate, propagation delay, seeded jitter and loss, MTU slicing).
//! - [`mod@airtime`]: analytic LPWAN models (LoRaWAN SF7–12, Sigfox, NB-IoT, LTE-M, BLE, 802.15.4).
//! - [`wire`]: per-message protocol and transport overhead, link request ceilings.
//! - [`collector`]: the HTTP collector (hyper) that decodes every body with its codec.
//! - [`loadgen`]: the HTTP load generator (closed and open loop) and [`wrk`], the reference.
//! - [`rr`]: TCP request/response at a fixed cadence (seed 003) and a plain echo.
//! - The EV telemetry message of seed 003 and the messages a run sends (EV series, corpus,
//!   samples) with their bodies are `wirebench_measure::ev` and `wirebench_measure::workload`.
//! - [`published`]: the seeds' published figures with their sources, for reports.
//! - [`study`]: the `link`, `http` and `tcp` parts of a study (options, checks, runs into the
//!   typed results sections).
//!
//! Every run is bounded in time and count; every socket we own has `TCP_NODELAY`; all traffic
//! goes to loopback or to addresses inside namespaces the lab created.

pub mod airtime;
mod cmd;
pub mod collector;
/// CPU time of threads, the process and the machine (`wirebench_measure::cpu`).
pub use wirebench_measure::cpu;
pub mod emu;
pub mod energy;
mod error;
pub mod hist;
mod hyper_io;
pub mod lab;
pub mod loadgen;
pub mod profile;
/// The figures seeds 002 and 003 and the LoRa specification published.
pub use wirebench_core::published::seed002_003 as published;
pub mod recommend;
pub mod rr;
pub mod study;
pub mod wire;
pub mod wrk;

pub use airtime::{airtime, Airtime, Radio};
pub use collector::{Collector, CollectorConfig, CollectorStats};
pub use emu::{EmuConfig, Emulator, LinkParams};
pub use error::NetError;
pub use lab::{run_in, spawn_in, Lab};
pub use loadgen::{LoadConfig, LoadMode, LoadReport};
pub use profile::LabProfile;
pub use wrk::{wrk_baseline, WrkReport};

/// Whether a program is on `PATH` (or in the sbin directories), e.g. `wrk`, `nft`.
pub fn have_program(name: &str) -> bool {
    cmd::which(name).is_some()
}
