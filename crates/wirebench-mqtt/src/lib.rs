//! MQTT transport of wirebench: brokers to measure against, and measurements that return
//! serde result structs with their configuration echoed.
//!
//! - Brokers: [`EmbeddedBroker`] (rumqttd 0.20 in-process, config in code, 127.0.0.1 and a free
//!   port, TCP_NODELAY set on its listener), [`ExternalBroker`] (`mqtt://host:port`, or
//!   `mqtts://` with a CA file and an optional client certificate; a user name and password
//!   from the URL or [`Credentials`]), and the
//!   [`Mosquitto`] helper (Debian's `mosquitto` as a child process on a free loopback port).
//! - Measurements: [`throughput`] / [`baseline_throughput`], [`echo_rtt`] /
//!   [`baseline_echo_rtt`], their interleaved comparisons [`compare_throughput`] /
//!   [`compare_echo_rtt`], and the Nagle/delayed-ACK stall detector [`detect_nagle_stall`].
//!
//! The study parts: [`study`] runs the `[mqtt]` part of a study and the `wirebench mqtt`
//! commands into the typed `mqtt` results section (`wirebench_core::sections::mqtt`);
//! [`fleet::part`] runs the `[fleet]` part and `wirebench fleet` into the `fleet` section, on
//! the fleet engine ([`fleet`]: many simulated devices, each its own connection).
//!
//! Framing: every message our harness publishes is the codec payload prefixed with an 8-byte
//! big-endian sequence number ([`framing`]).
//!
//! Rules kept everywhere: TCP_NODELAY on every socket we own (configurable, to demonstrate
//! what happens without it); bounded request channels; every step bounded in time (connect,
//! subscribe, per-reply, drain, whole-run deadline) so a broker that disappears ends a run with
//! its losses counted instead of hanging; every result reports delivery accounting and whether
//! our own client threads were the bottleneck ([`CpuUsage`]).
//!
//! Cargo feature `embedded-broker` (default): [`EmbeddedBroker`] and the rumqttd dependency.
//!
//! Linux only (CPU clocks per thread, `/proc/self/fd`).

mod client;
mod compare;
mod cpu;
mod echo;
#[cfg(feature = "embedded-broker")]
mod embedded;
mod endpoint;
mod error;
pub mod fleet;
pub mod framing;
mod mosquitto;
pub mod opcua;
mod sockfd;
mod stall;
mod stats;
pub mod study;
mod throughput;
mod tls;
mod topic;

pub use client::{EndReason, Harness, Qos};
pub use compare::{
    compare_echo_rtt, compare_throughput, EchoComparison, ThroughputComparison, ECHO_P50_RATIO_GOAL,
    THROUGHPUT_RATIO_GOAL,
};
pub use cpu::{CpuUsage, HARNESS_BOUND_CORES};
pub use echo::{baseline_echo_rtt, echo_rtt, EchoConfig, EchoDelivery, EchoResult};
#[cfg(feature = "embedded-broker")]
pub use embedded::{BrokerConfig, EmbeddedBroker};
pub use endpoint::{
    parse_broker_url, parse_url, redact_url, BrokerKind, BrokerUrl, Credentials, Endpoint, ExternalBroker, MqttBroker,
    Password, DEFAULT_PORT, DEFAULT_TLS_PORT, REDACTED,
};
pub use error::{MqttError, Result};
pub use framing::{PayloadInfo, Payloads, HEADER_LEN};
pub use mosquitto::{Mosquitto, MosquittoOptions};
pub use stall::{detect_nagle_stall, StallWarning, STALL_MIN_FRACTION, STALL_MODES_MS, STALL_WINDOW_MS};
pub use stats::{cdf_us, latency_stats, LatencyStats};
pub use throughput::{baseline_throughput, throughput, Delivery, Rate, ThroughputConfig, ThroughputResult};
pub use tls::TlsFiles;
pub use topic::{validate_topic, MAX_TOPIC_BYTES};

/// Versions of the MQTT libraries this crate measures with (for results' provenance).
pub const LIBRARY_VERSIONS: [(&str, &str); 2] = [("rumqttc", "0.25"), ("rumqttd", "0.20")];
