//! rumqttd 0.20 running inside this process, configured in code, on 127.0.0.1 and a free port.
//!
//! Two things rumqttd does not offer, done here from the outside (Linux):
//! - **TCP_NODELAY**: rumqttd never sets it (its QoS 1 echo RTT has a 44 ms floor,
//!   specs/links-and-transports.md §2.3). We set it on rumqttd's *listening* socket right after
//!   it binds; Linux copies it to every accepted connection.
//! - **shutdown**: rumqttd has no stop API (its threads run until the process exits).
//!   [`EmbeddedBroker::shutdown`] shuts down every connection the broker accepted (clients see
//!   the broker go away) and retires the listener so the port is released and nothing new can
//!   connect. rumqttd's router and server threads stay parked (no CPU) until the process exits.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::endpoint::{BrokerKind, Endpoint, MqttBroker};
use crate::error::MqttError;
use crate::sockfd::{self, free_port};

/// Configuration of the embedded broker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BrokerConfig {
    /// Set TCP_NODELAY on the broker's sockets (default true). `false` reproduces rumqttd's own
    /// behaviour (Nagle on), e.g. to demonstrate the 44/88 ms stalls.
    pub tcp_nodelay: bool,
    /// Largest PUBLISH payload a client may send, bytes (default 1 MiB).
    pub max_payload_size: usize,
    /// QoS 1/2 messages in flight per connection (default 100).
    pub max_inflight_count: usize,
    pub max_connections: usize,
    /// Size of one commit-log segment per topic (≥ 1 KiB), bytes, and segments kept. A topic
    /// holds up to their product in memory for slow subscribers (default 16 MiB × 10), for the
    /// broker's lifetime: runs with default topics use a fresh topic each, so pass a fixed topic
    /// when running very many large runs against one broker (a study's throughput runs share one).
    pub max_segment_size: usize,
    pub max_segment_count: usize,
    /// How long `start` waits for the listener (ms).
    pub start_timeout_ms: u64,
    /// rumqttd's pause after accepting each connection (ms; default 1, rumqttd's own): it caps
    /// connection setup at 1,000 per second, so fleets set 0.
    #[serde(default = "one_ms")]
    pub accept_delay_ms: u64,
    /// More loopback addresses to listen on, at the same port as 127.0.0.1 (fleets spread their
    /// connections over them: each broker address has its own 28,232 ephemeral client ports).
    #[serde(default)]
    pub extra_addresses: Vec<Ipv4Addr>,
}

fn one_ms() -> u64 {
    1
}

impl Default for BrokerConfig {
    fn default() -> Self {
        BrokerConfig {
            tcp_nodelay: true,
            max_payload_size: 1 << 20,
            max_inflight_count: 100,
            max_connections: 1000,
            max_segment_size: 16 << 20,
            max_segment_count: 10,
            start_timeout_ms: 5_000,
            accept_delay_ms: 1,
            extra_addresses: Vec::new(),
        }
    }
}

/// rumqttd in-process. Dropping it shuts it down.
pub struct EmbeddedBroker {
    addr: SocketAddrV4,
    config: BrokerConfig,
    thread: Option<JoinHandle<()>>,
    stopped: bool,
}

impl EmbeddedBroker {
    /// Start rumqttd on 127.0.0.1 with a free port; returns once it accepts connections.
    pub fn start(config: BrokerConfig) -> Result<EmbeddedBroker, MqttError> {
        if config.max_segment_size < 1024 || config.max_segment_count == 0 {
            // rumqttd panics (in its router thread) below 1 KiB.
            return Err(MqttError::Config(format!(
                "embedded broker: max_segment_size must be ≥ 1024 bytes and max_segment_count ≥ 1 (got {} × {})",
                config.max_segment_size, config.max_segment_count
            )));
        }
        if config.max_payload_size == 0 || config.max_inflight_count == 0 || config.max_connections < 2 {
            return Err(MqttError::Config(
                "embedded broker: max_payload_size and max_inflight_count must be > 0 and max_connections ≥ 2".into(),
            ));
        }
        let mut last = String::new();
        for _attempt in 0..3 {
            let port = free_port()?;
            let addr = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
            let thread = std::thread::Builder::new()
                .name("wb-rumqttd".into())
                .spawn({
                    let cfg = rumqttd_config(&config, addr);
                    move || {
                        let mut broker = rumqttd::Broker::new(cfg);
                        // Returns only if every listener failed (e.g. the port was taken).
                        let _ = broker.start();
                    }
                })
                .map_err(|e| MqttError::io("spawning the broker thread", e))?;
            let deadline = Instant::now() + Duration::from_millis(config.start_timeout_ms.min(3_600_000));
            loop {
                if let Some(l) = sockfd::sockets_bound_to(addr).into_iter().find(|s| s.listening) {
                    if config.tcp_nodelay && !sockfd::set_nodelay(l.fd, true) {
                        return Err(MqttError::Embedded(format!("cannot set TCP_NODELAY on the listener at {addr}")));
                    }
                    // The listeners on the extra addresses, each with TCP_NODELAY too.
                    for ip in &config.extra_addresses {
                        let extra = SocketAddrV4::new(*ip, port);
                        let listener = loop {
                            if let Some(l) = sockfd::sockets_bound_to(extra).into_iter().find(|s| s.listening) {
                                break l;
                            }
                            if Instant::now() >= deadline {
                                return Err(MqttError::Embedded(format!(
                                    "rumqttd did not listen on {extra} within {} ms",
                                    config.start_timeout_ms
                                )));
                            }
                            std::thread::sleep(Duration::from_millis(2));
                        };
                        if config.tcp_nodelay && !sockfd::set_nodelay(listener.fd, true) {
                            return Err(MqttError::Embedded(format!(
                                "cannot set TCP_NODELAY on the listener at {extra}"
                            )));
                        }
                    }
                    return Ok(EmbeddedBroker { addr, config, thread: Some(thread), stopped: false });
                }
                if thread.is_finished() {
                    last = format!("rumqttd could not listen on {addr} (port taken?)");
                    break;
                }
                if Instant::now() >= deadline {
                    return Err(MqttError::Embedded(format!(
                        "rumqttd did not listen on {addr} within {} ms",
                        config.start_timeout_ms
                    )));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        Err(MqttError::Embedded(last))
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::V4(self.addr)
    }

    pub fn url(&self) -> String {
        format!("mqtt://{}", self.addr)
    }

    pub fn config(&self) -> &BrokerConfig {
        &self.config
    }

    /// TCP_NODELAY of each connection the broker currently has open (for checks and reports).
    pub fn connection_nodelay(&self) -> Vec<bool> {
        sockfd::sockets_bound_to(self.addr)
            .into_iter()
            .filter(|s| !s.listening)
            .filter_map(|s| sockfd::nodelay(s.fd))
            .collect()
    }

    /// Disconnect every client and release the port. Idempotent.
    pub fn shutdown(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        for s in sockfd::sockets_bound_to(self.addr) {
            if s.listening {
                sockfd::retire_listener(s.fd);
            } else {
                sockfd::shutdown_both(s.fd);
            }
        }
        // The thread only ends if rumqttd's servers ended; never wait for it.
        drop(self.thread.take());
    }
}

impl Drop for EmbeddedBroker {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl MqttBroker for EmbeddedBroker {
    fn endpoint(&self) -> Endpoint {
        Endpoint::new(&self.addr.ip().to_string(), self.addr.port(), BrokerKind::EmbeddedRumqttd)
    }
}

fn rumqttd_config(c: &BrokerConfig, addr: SocketAddrV4) -> rumqttd::Config {
    let connections = rumqttd::ConnectionSettings {
        connection_timeout_ms: 10_000,
        max_payload_size: c.max_payload_size,
        max_inflight_count: c.max_inflight_count,
        auth: None,
        external_auth: None,
        dynamic_filters: true,
    };
    let server = |i: usize, ip: Ipv4Addr| rumqttd::ServerSettings {
        name: format!("wb-rumqttd-v4-{i}"),
        listen: SocketAddr::V4(SocketAddrV4::new(ip, addr.port())),
        tls: None,
        next_connection_delay_ms: c.accept_delay_ms,
        connections: connections.clone(),
    };
    let servers: HashMap<String, rumqttd::ServerSettings> = std::iter::once(*addr.ip())
        .chain(c.extra_addresses.iter().copied())
        .enumerate()
        .map(|(i, ip)| ((i + 1).to_string(), server(i + 1, ip)))
        .collect();
    rumqttd::Config {
        id: 0,
        router: rumqttd::RouterConfig {
            max_connections: c.max_connections,
            max_outgoing_packet_count: 200,
            max_segment_size: c.max_segment_size,
            max_segment_count: c.max_segment_count,
            custom_segment: None,
            initialized_filters: None,
            shared_subscriptions_strategy: Default::default(),
        },
        v4: Some(servers),
        ..Default::default()
    }
}
