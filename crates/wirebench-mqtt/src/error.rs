//! The crate's error type: one enum, with the data a user needs to act on the message.

use std::io;

/// Everything that can go wrong before or while setting up a measurement.
///
/// Losses *during* a run (a broker that disappears, a drain that times out) are not errors:
/// the run returns its result with the losses counted and the cause in `errors`.
#[derive(Debug, thiserror::Error)]
pub enum MqttError {
    /// A broker URL that is not `mqtt://host[:port]`.
    #[error("invalid broker URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// The TCP connection or the MQTT CONNECT failed.
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    /// A topic that breaks the MQTT topic rules.
    #[error("invalid topic {topic:?}: {reason}")]
    InvalidTopic { topic: String, reason: String },
    /// The broker answered SUBSCRIBE with a failure code.
    #[error("{url} refused the subscription to {topic:?}")]
    SubscribeRefused { url: String, topic: String },
    /// An operation that did not finish within its time limit.
    #[error("{what} ({url}) timed out after {ms} ms")]
    Timeout { what: String, url: String, ms: u64 },
    /// An option the user gave that cannot work (credentials, TLS files); the message names
    /// the option.
    #[error("{0}")]
    Option(String),
    /// A configuration value out of range.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The embedded rumqttd broker could not start.
    #[error("embedded broker: {0}")]
    Embedded(String),
    /// The mosquitto helper could not start or is not installed.
    #[error("mosquitto: {0}")]
    Mosquitto(String),
    /// An I/O error with what we were doing.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
}

impl MqttError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> MqttError {
        MqttError::Io { context: context.into(), source }
    }
}

/// A short, lowercase description of an I/O error ("connection refused"), without the
/// `(os error N)` suffix std adds.
pub(crate) fn describe_io(e: &io::Error) -> String {
    use io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused => "connection refused".into(),
        ConnectionReset => "connection reset by peer".into(),
        ConnectionAborted => "connection aborted".into(),
        NotConnected => "not connected".into(),
        TimedOut => "timed out".into(),
        BrokenPipe => "broken pipe".into(),
        UnexpectedEof => "connection closed by the broker".into(),
        AddrNotAvailable => "address not available".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    }
}

/// Why a broker refused a CONNECT, and what to check.
pub(crate) fn describe_refusal(code: rumqttc::ConnectReturnCode) -> String {
    use rumqttc::ConnectReturnCode as R;
    let why = match code {
        R::BadUserNamePassword => "bad user name or password (check --username/--password)",
        R::NotAuthorized => "not authorized (check --username/--password)",
        R::RefusedProtocolVersion => "unsupported protocol version (MQTT 3.1.1)",
        R::BadClientId => "client identifier rejected",
        R::ServiceUnavailable => "service unavailable",
        R::Success => "success",
    };
    format!("broker refused the connection: {why}")
}

/// Describe a rumqttc connection error in the same short style.
pub(crate) fn describe_conn(e: &rumqttc::ConnectionError) -> String {
    use rumqttc::ConnectionError as C;
    match e {
        C::Io(io) => crate::tls::describe(io).unwrap_or_else(|| describe_io(io)),
        C::Tls(rumqttc::TlsError::Io(io)) => {
            crate::tls::describe(io).unwrap_or_else(|| format!("TLS handshake failed: {}", describe_io(io)))
        }
        C::Tls(rumqttc::TlsError::TLS(e)) => format!("TLS handshake failed: {e}"),
        C::Tls(rumqttc::TlsError::DNSName(_)) => "TLS: the host of --broker is not a valid server name".into(),
        C::Tls(other) => format!("TLS handshake failed: {other}"),
        C::ConnectionRefused(code) => describe_refusal(*code),
        C::NetworkTimeout => "network timeout".into(),
        C::FlushTimeout => "write timed out (broker not reading)".into(),
        C::MqttState(rumqttc::StateError::Io(io))
        | C::MqttState(rumqttc::StateError::Deserialization(rumqttc::Error::Io(io))) => {
            crate::tls::describe(io).unwrap_or_else(|| describe_io(io))
        }
        C::MqttState(rumqttc::StateError::ConnectionAborted) => "connection closed by the broker".into(),
        C::MqttState(s) => format!("protocol state: {s}"),
        C::NotConnAck(p) => format!("expected CONNACK, got {p:?}"),
        C::RequestsDone => "client dropped".into(),
        #[allow(unreachable_patterns)]
        other => other.to_string(),
    }
}

/// Result alias for this crate.
pub type Result<T, E = MqttError> = std::result::Result<T, E>;
