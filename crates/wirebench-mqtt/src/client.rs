//! What the measurements share: QoS, who ran a run, why it ended, and connecting rumqttc
//! clients with our socket options and time limits.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rumqttc::{
    AsyncClient, ConnectReturnCode, Event, EventLoop, MqttOptions, NetworkOptions, Packet, TlsConfiguration, Transport,
};
use serde::{Deserialize, Serialize};

use crate::endpoint::Endpoint;
use crate::error::{describe_conn, describe_refusal, MqttError};

/// The MQTT delivery guarantees we measure (QoS 2 is not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum Qos {
    /// QoS 0: fire and forget.
    #[default]
    AtMostOnce,
    /// QoS 1: PUBACK per message, redelivery possible.
    AtLeastOnce,
}

impl Qos {
    pub fn level(self) -> u8 {
        self.into()
    }

    pub(crate) fn rumqttc(self) -> rumqttc::QoS {
        match self {
            Qos::AtMostOnce => rumqttc::QoS::AtMostOnce,
            Qos::AtLeastOnce => rumqttc::QoS::AtLeastOnce,
        }
    }
}

impl TryFrom<u8> for Qos {
    type Error = String;
    fn try_from(v: u8) -> Result<Qos, String> {
        match v {
            0 => Ok(Qos::AtMostOnce),
            1 => Ok(Qos::AtLeastOnce),
            _ => Err(format!("QoS {v} is not supported: use 0 or 1")),
        }
    }
}

impl From<Qos> for u8 {
    fn from(q: Qos) -> u8 {
        match q {
            Qos::AtMostOnce => 0,
            Qos::AtLeastOnce => 1,
        }
    }
}

/// Whose client code produced a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Harness {
    /// wirebench's measuring clients (sequence header, accounting, deadlines).
    Wirebench,
    /// The minimal rumqttc code a user would write (the baseline).
    BareRumqttc,
}

/// Why a run stopped (the type of the `mqtt` results section, where it is recorded).
pub use wirebench_core::sections::mqtt::EndReason;

/// Client settings shared by ours and the bare baselines.
#[derive(Clone, Debug)]
pub(crate) struct ClientSettings {
    pub tcp_nodelay: bool,
    pub channel_capacity: usize,
    pub inflight: u16,
    pub max_packet_size: usize,
    pub connect_timeout: Duration,
}

impl ClientSettings {
    /// rumqttc options for one client (clean session, keep-alive 30 s, our limits), with the
    /// endpoint's user name, password and TLS configuration.
    pub fn options(&self, ep: &Endpoint, client_id: &str) -> MqttOptions {
        let mut o = MqttOptions::new(client_id, ep.host.clone(), ep.port);
        o.set_keep_alive(Duration::from_secs(30))
            .set_clean_session(true)
            .set_max_packet_size(self.max_packet_size, self.max_packet_size)
            .set_inflight(self.inflight);
        if let Some(user) = &ep.username {
            o.set_credentials(user.clone(), ep.password().unwrap_or_default());
        }
        if let Some(tls) = &ep.security.tls {
            o.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(tls.clone())));
        }
        o
    }

    pub fn network(&self) -> NetworkOptions {
        let mut n = NetworkOptions::new();
        n.set_tcp_nodelay(self.tcp_nodelay);
        n.set_connection_timeout(self.connect_timeout.as_millis().div_ceil(1000).max(1) as u64);
        n
    }

    /// A client whose event loop has not connected yet.
    pub fn client(&self, ep: &Endpoint, client_id: &str) -> (AsyncClient, EventLoop) {
        let (c, mut el) = AsyncClient::new(self.options(ep, client_id), self.channel_capacity);
        el.set_network_options(self.network());
        (c, el)
    }

    /// Connect (TCP + CONNECT/CONNACK) within the connect timeout.
    pub async fn connect(&self, ep: &Endpoint, client_id: &str) -> Result<(AsyncClient, EventLoop), MqttError> {
        let (c, mut el) = self.client(ep, client_id);
        let ms = self.connect_timeout.as_millis() as u64;
        match tokio::time::timeout(self.connect_timeout, el.poll()).await {
            Err(_) => Err(MqttError::Timeout { what: "connect".into(), url: ep.url.clone(), ms }),
            Ok(Err(rumqttc::ConnectionError::NetworkTimeout)) => {
                Err(MqttError::Timeout { what: "connect".into(), url: ep.url.clone(), ms })
            }
            Ok(Err(e)) => Err(MqttError::Connect { url: ep.url.clone(), reason: describe_conn(&e) }),
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if ack.code == ConnectReturnCode::Success => Ok((c, el)),
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) => {
                Err(MqttError::Connect { url: ep.url.clone(), reason: describe_refusal(ack.code) })
            }
            Ok(Ok(other)) => Err(MqttError::Connect {
                url: ep.url.clone(),
                reason: format!("expected CONNACK, got {}", packet_name(&other)),
            }),
        }
    }

    /// Subscribe and wait for the SUBACK within the connect timeout.
    pub async fn subscribe(
        &self,
        ep: &Endpoint,
        client: &AsyncClient,
        el: &mut EventLoop,
        topic: &str,
        qos: Qos,
    ) -> Result<(), MqttError> {
        let ms = self.connect_timeout.as_millis() as u64;
        let timeout = || MqttError::Timeout { what: format!("subscribe to {topic:?}"), url: ep.url.clone(), ms };
        let wait = async {
            client.subscribe(topic, qos.rumqttc()).await.map_err(|e| MqttError::InvalidTopic {
                topic: topic.to_string(),
                reason: format!("rumqttc rejected the subscription: {e}"),
            })?;
            loop {
                match el.poll().await {
                    Ok(Event::Incoming(Packet::SubAck(ack))) => {
                        return if ack.return_codes.iter().any(|c| matches!(c, rumqttc::SubscribeReasonCode::Failure)) {
                            Err(MqttError::SubscribeRefused { url: ep.url.clone(), topic: topic.to_string() })
                        } else {
                            Ok(())
                        };
                    }
                    Ok(_) => {}
                    Err(e) => return Err(MqttError::Connect { url: ep.url.clone(), reason: describe_conn(&e) }),
                }
            }
        };
        tokio::time::timeout(self.connect_timeout, wait).await.map_err(|_| timeout())?
    }
}

/// 8 hex digits, different for every run in every process (client ids and default topics).
pub(crate) fn run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let mut x = nanos
        ^ ((std::process::id() as u64) << 32)
        ^ COUNTER.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // splitmix64 finaliser
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    format!("{:08x}", x as u32)
}

/// Bytes of a PUBLISH packet with this topic and payload (fixed header ≤ 5, topic, packet id).
pub(crate) fn publish_packet_len(topic: &str, payload: usize) -> usize {
    5 + 2 + topic.len() + 2 + payload
}

/// Longest run deadline and longest single timeout we accept (ms).
pub(crate) const MAX_DEADLINE_MS: u64 = 7 * 86_400_000;
pub(crate) const MAX_TIMEOUT_MS: u64 = 3_600_000;

pub(crate) fn check_common(
    channel_capacity: usize,
    inflight: u16,
    worker_threads: usize,
    deadline_ms: u64,
    connect_timeout_ms: u64,
) -> Result<(), MqttError> {
    let bad = |s: &str| Err(MqttError::Config(s.to_string()));
    if channel_capacity == 0 {
        return bad("channel_capacity must be at least 1");
    }
    if inflight == 0 {
        return bad("inflight must be at least 1");
    }
    if worker_threads == 0 {
        return bad("worker_threads must be at least 1");
    }
    if deadline_ms == 0 || connect_timeout_ms == 0 {
        return bad("deadline_ms and connect_timeout_ms must be > 0");
    }
    if deadline_ms > MAX_DEADLINE_MS || connect_timeout_ms > MAX_TIMEOUT_MS {
        return Err(MqttError::Config(format!(
            "deadline_ms must be ≤ {MAX_DEADLINE_MS} (7 days) and connect_timeout_ms ≤ {MAX_TIMEOUT_MS} (1 hour)"
        )));
    }
    Ok(())
}

/// The name of an event's packet for messages ("Incoming Disconnect"), not its Debug form.
fn packet_name(e: &Event) -> String {
    let debug = format!("{e:?}");
    let names: Vec<&str> = debug.split(['(', ')', '{', ' ', ',']).filter(|w| !w.is_empty()).take(2).collect();
    names.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_serde_and_ids() {
        assert_eq!(serde_json::to_string(&Qos::AtLeastOnce).unwrap(), "1");
        assert_eq!(serde_json::from_str::<Qos>("0").unwrap(), Qos::AtMostOnce);
        assert!(serde_json::from_str::<Qos>("2").unwrap_err().to_string().contains("QoS 2"));
        assert_ne!(run_id(), run_id());
        assert_eq!(run_id().len(), 8);
    }
}
