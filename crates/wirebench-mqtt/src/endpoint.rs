//! Where a broker is: `mqtt://host:port`, and the [`MqttBroker`] trait every broker kind
//! (embedded rumqttd, a mosquitto we started, any external broker) implements.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};

use crate::error::MqttError;

/// The default MQTT port (plain TCP), used when a URL names none.
pub const DEFAULT_PORT: u16 = 1883;

/// What kind of broker a run talked to (echoed in every result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BrokerKind {
    /// rumqttd running inside this process ([`crate::EmbeddedBroker`]).
    EmbeddedRumqttd,
    /// A mosquitto child process started by [`crate::Mosquitto`].
    Mosquitto,
    /// Any broker given by URL ([`ExternalBroker`]).
    External,
}

impl BrokerKind {
    /// The name results files use (as serialized): `embedded-rumqttd`, `mosquitto`, `external`.
    pub fn name(self) -> &'static str {
        match self {
            BrokerKind::EmbeddedRumqttd => "embedded-rumqttd",
            BrokerKind::Mosquitto => "mosquitto",
            BrokerKind::External => "external",
        }
    }
}

/// A broker's address, as every measurement takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// `mqtt://host:port`, normalised.
    pub url: String,
    pub host: String,
    pub port: u16,
    pub kind: BrokerKind,
}

/// Anything a measurement can run against.
pub trait MqttBroker {
    fn endpoint(&self) -> Endpoint;
}

impl MqttBroker for Endpoint {
    fn endpoint(&self) -> Endpoint {
        self.clone()
    }
}

impl<T: MqttBroker + ?Sized> MqttBroker for &T {
    fn endpoint(&self) -> Endpoint {
        (**self).endpoint()
    }
}

impl Endpoint {
    pub(crate) fn new(host: &str, port: u16, kind: BrokerKind) -> Endpoint {
        let url = if host.contains(':') {
            format!("mqtt://[{host}]:{port}")
        } else {
            format!("mqtt://{host}:{port}")
        };
        Endpoint {
            url,
            host: host.to_string(),
            port,
            kind,
        }
    }
}

/// Any MQTT broker reachable over plain TCP, given by URL. Nothing is contacted until a
/// measurement runs; [`ExternalBroker::new`] only checks the URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalBroker {
    endpoint: Endpoint,
}

impl ExternalBroker {
    /// Parse `mqtt://host[:port]` (port defaults to 1883). Hosts: a DNS name, an IPv4 address
    /// or a bracketed IPv6 address. TLS (`mqtts://`), websockets, credentials and paths are
    /// not supported and are rejected with the reason.
    pub fn new(url: &str) -> Result<ExternalBroker, MqttError> {
        let (host, port) = parse_url(url)?;
        Ok(ExternalBroker {
            endpoint: Endpoint::new(&host, port, BrokerKind::External),
        })
    }

    pub fn url(&self) -> &str {
        &self.endpoint.url
    }
}

impl MqttBroker for ExternalBroker {
    fn endpoint(&self) -> Endpoint {
        self.endpoint.clone()
    }
}

/// Split `mqtt://host[:port]` into host and port, with a clear reason when it is not one.
pub fn parse_url(url: &str) -> Result<(String, u16), MqttError> {
    let bad = |reason: String| {
        Err(MqttError::InvalidUrl {
            url: url.to_string(),
            reason,
        })
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return bad("expected mqtt://host:port".into());
    };
    match scheme.to_ascii_lowercase().as_str() {
        "mqtt" | "tcp" => {}
        "mqtts" | "ssl" | "tls" => {
            return bad(format!(
                "TLS ({scheme}://) is not supported; use mqtt:// (plain TCP)"
            ))
        }
        "ws" | "wss" => {
            return bad(format!(
                "websockets ({scheme}://) are not supported; use mqtt://"
            ))
        }
        _ => {
            return bad(format!(
                "unsupported scheme {scheme:?}; expected mqtt://host:port"
            ))
        }
    }
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if let Some(i) = authority.find(['/', '?', '#']) {
        return bad(format!(
            "unexpected {:?} after the host and port",
            &authority[i..]
        ));
    }
    if authority.contains('@') {
        return bad("credentials in the URL are not supported".into());
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let Some((h, after)) = v6.split_once(']') else {
            return bad("unterminated '[' in an IPv6 host".into());
        };
        if h.parse::<Ipv6Addr>().is_err() {
            return bad(format!("{h:?} is not an IPv6 address"));
        }
        let port = match after {
            "" => None,
            p if p.starts_with(':') => Some(&p[1..]),
            p => return bad(format!("unexpected {p:?} after the IPv6 host")),
        };
        (h.to_string(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() {
        return bad("missing host".into());
    }
    if !host.contains(':') && host.parse::<Ipv4Addr>().is_err() {
        if let Err(why) = check_dns_name(&host) {
            return bad(format!("{host:?} is not a valid host name: {why}"));
        }
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some("") => return bad("empty port after ':'".into()),
        Some(p) => match p.parse::<u32>() {
            Ok(0) => return bad("port 0 is not a valid broker port (1..=65535)".into()),
            Ok(n) if n <= 65_535 => n as u16,
            Ok(n) => return bad(format!("port {n} is out of range (1..=65535)")),
            Err(_) => return bad(format!("port {p:?} is not a number in 1..=65535")),
        },
    };
    Ok((host, port))
}

fn check_dns_name(host: &str) -> Result<(), String> {
    if host.len() > 253 {
        return Err("longer than 253 characters".into());
    }
    let looks_numeric = host
        .split('.')
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
    if looks_numeric {
        return Err("not a valid IPv4 address".into());
    }
    for label in host.split('.') {
        if label.is_empty() {
            return Err("empty label (two dots in a row, or a leading dot)".into());
        }
        if label.len() > 63 {
            return Err(format!("label {label:?} is longer than 63 characters"));
        }
        if let Some(c) = label
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(format!("character {c:?} is not allowed"));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!("label {label:?} starts or ends with '-'"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_are_the_serialized_ones() {
        for k in [BrokerKind::EmbeddedRumqttd, BrokerKind::Mosquitto, BrokerKind::External] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
    }

    #[test]
    fn good_urls() {
        assert_eq!(
            parse_url("mqtt://127.0.0.1:1883").unwrap(),
            ("127.0.0.1".into(), 1883)
        );
        assert_eq!(
            parse_url("mqtt://broker.local").unwrap(),
            ("broker.local".into(), 1883)
        );
        assert_eq!(
            parse_url("MQTT://localhost:1/").unwrap(),
            ("localhost".into(), 1)
        );
        assert_eq!(
            parse_url("mqtt://[::1]:8883").unwrap(),
            ("::1".into(), 8883)
        );
        assert_eq!(
            parse_url("tcp://10.0.0.2:1884").unwrap(),
            ("10.0.0.2".into(), 1884)
        );
        assert_eq!(
            ExternalBroker::new("mqtt://[::1]:8883").unwrap().url(),
            "mqtt://[::1]:8883"
        );
    }

    #[test]
    fn bad_urls_say_why() {
        let why = |u: &str| parse_url(u).unwrap_err().to_string();
        assert!(why("127.0.0.1:1883").contains("expected mqtt://host:port"));
        assert!(why("http://h:1").contains("unsupported scheme \"http\""));
        assert!(why("mqtts://h:8883").contains("TLS"));
        assert!(why("mqtt://:1883").contains("missing host"));
        assert!(why("mqtt://h:0").contains("port 0"));
        assert!(why("mqtt://h:70000").contains("out of range"));
        assert!(why("mqtt://h:abc").contains("not a number"));
        assert!(why("mqtt://h:").contains("empty port"));
        assert!(why("mqtt://h:1/topic").contains("\"/topic\""));
        assert!(why("mqtt://u:p@h:1").contains("credentials"));
        assert!(why("mqtt://bad host:1").contains("not a valid host name"));
        assert!(why("mqtt://300.1.1.1:1").contains("not a valid IPv4"));
        assert!(why("mqtt://[::g]:1").contains("not an IPv6"));
        let e = why("ftp://x");
        assert!(e.starts_with("invalid broker URL \"ftp://x\": "), "{e}");
    }
}
