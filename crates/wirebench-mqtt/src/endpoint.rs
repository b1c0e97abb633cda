//! Where a broker is: `mqtt://[user[:password]@]host:port` or `mqtts://…` (TLS), how a client
//! proves who it is ([`Credentials`], [`Security`]), and the [`MqttBroker`] trait every broker
//! kind (embedded rumqttd, a mosquitto we started, any external broker) implements.
//!
//! Passwords never leave this module in a form that is printed: [`Endpoint::url`] has no
//! credentials, [`redact_url`] replaces a password in a URL with `***`, and the password's
//! `Debug` is `***`.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::MqttError;
use crate::tls::{self, TlsFiles};

/// The default MQTT port (plain TCP), used when a URL names none.
pub const DEFAULT_PORT: u16 = 1883;

/// The default MQTT-over-TLS port, used when an `mqtts://` URL names none.
pub const DEFAULT_TLS_PORT: u16 = 8883;

/// What replaces a password wherever one would be shown.
pub const REDACTED: &str = "***";

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
    /// `mqtt://host:port` or `mqtts://host:port`, normalised, without credentials.
    pub url: String,
    pub host: String,
    pub port: u16,
    pub kind: BrokerKind,
    /// The user name the clients connect with (none: anonymous).
    #[serde(default)]
    pub username: Option<String>,
    /// Whether the clients connect over TLS (`mqtts://`).
    #[serde(default)]
    pub tls: bool,
    /// The password and the TLS client configuration: never serialized.
    #[serde(skip)]
    pub(crate) security: Security,
}

/// The secret parts of a connection: the password and the TLS client configuration (trusted
/// CA, optional client certificate). Compared by identity, printed without the password.
#[derive(Clone, Default)]
pub(crate) struct Security {
    pub password: Option<Password>,
    pub tls: Option<Arc<rustls::ClientConfig>>,
}

impl PartialEq for Security {
    fn eq(&self, o: &Security) -> bool {
        self.password == o.password
            && match (&self.tls, &o.tls) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Eq for Security {}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Security").field("password", &self.password).field("tls", &self.tls.is_some()).finish()
    }
}

/// A password: its `Debug` and `Display` are `***`; [`Password::expose`] gives the text.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    pub fn new(s: impl Into<String>) -> Password {
        Password(s.into())
    }

    /// The password itself, for the CONNECT packet only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}

impl std::fmt::Display for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}

/// How the clients authenticate to an external broker, beside what its URL says: the
/// `--username`, `--password` (or `WIREBENCH_MQTT_PASSWORD`), `--ca-file`, `--client-cert` and
/// `--client-key` options. Error messages name these options.
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    pub username: Option<String>,
    pub password: Option<Password>,
    /// The password from the environment (`WIREBENCH_MQTT_PASSWORD`): used when neither the
    /// URL nor `password` gives one.
    pub env_password: Option<Password>,
    pub tls: TlsFiles,
}

impl Credentials {
    /// Whether any option was given (they need a broker given by URL).
    pub fn any(&self) -> bool {
        self.username.is_some() || self.password.is_some() || self.tls.any()
    }
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
        Endpoint {
            url: normal_url(false, host, port),
            host: host.to_string(),
            port,
            kind,
            username: None,
            tls: false,
            security: Security::default(),
        }
    }

    /// The password the clients send, if any.
    pub(crate) fn password(&self) -> Option<&str> {
        self.security.password.as_ref().map(Password::expose)
    }
}

fn normal_url(tls: bool, host: &str, port: u16) -> String {
    let scheme = if tls { "mqtts" } else { "mqtt" };
    if host.contains(':') {
        format!("{scheme}://[{host}]:{port}")
    } else {
        format!("{scheme}://{host}:{port}")
    }
}

/// Any MQTT broker given by URL, over plain TCP or TLS, anonymous or with a user name and
/// password. Nothing is contacted until a measurement runs; [`ExternalBroker::new`] and
/// [`ExternalBroker::with_credentials`] only check the URL and read the certificate files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalBroker {
    endpoint: Endpoint,
}

impl ExternalBroker {
    /// Parse `mqtt://[user[:password]@]host[:port]` (port defaults to 1883). Hosts: a DNS
    /// name, an IPv4 address or a bracketed IPv6 address. `mqtts://` needs a CA file
    /// ([`ExternalBroker::with_credentials`]); websockets and paths are rejected with the
    /// reason.
    pub fn new(url: &str) -> Result<ExternalBroker, MqttError> {
        ExternalBroker::with_credentials(url, &Credentials::default())
    }

    /// [`ExternalBroker::new`] with the user name, password and TLS files of the options.
    /// A user name or password in both the URL and the options, a password without a user
    /// name, `mqtts://` without `--ca-file`, TLS files with `mqtt://`, a client certificate
    /// without its key (or the reverse), and files that are missing or do not parse are
    /// errors that name the option.
    pub fn with_credentials(url: &str, c: &Credentials) -> Result<ExternalBroker, MqttError> {
        let u = parse_broker_url(url)?;
        let opt = |s: String| Err(MqttError::Option(s));
        let username = match (u.username, &c.username) {
            (Some(_), Some(_)) => {
                return opt("give the user name either in --broker or with --username, not both".into())
            }
            (a, b) => a.or_else(|| b.clone()),
        };
        let password = match (u.password, &c.password) {
            (Some(_), Some(_)) => {
                return opt("give the password either in --broker or with --password, not both".into())
            }
            (a, b) => a.or_else(|| b.clone()).or_else(|| c.env_password.clone()),
        };
        if password.is_some() && username.is_none() {
            return opt("a password needs a user name (--username, or user:password@ in --broker)".into());
        }
        let tls = match (u.tls, c.tls.any()) {
            (true, _) => Some(tls::client_config(&c.tls)?),
            (false, true) => {
                return opt("--ca-file, --client-cert and --client-key need a TLS broker URL (mqtts://host:port)".into())
            }
            (false, false) => None,
        };
        let mut endpoint = Endpoint::new(&u.host, u.port, BrokerKind::External);
        endpoint.url = normal_url(u.tls, &u.host, u.port);
        endpoint.tls = u.tls;
        endpoint.username = username;
        endpoint.security = Security { password, tls };
        Ok(ExternalBroker { endpoint })
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

/// A broker URL taken apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerUrl {
    /// `mqtts://` (or `ssl://`, `tls://`).
    pub tls: bool,
    pub host: String,
    pub port: u16,
    /// Percent-decoded user name and password of `user:password@`.
    pub username: Option<String>,
    pub password: Option<Password>,
}

/// `url` with the password of a `user:password@` part replaced by `***` (anything else is
/// returned as it is): the form a URL is printed or saved in.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    // The last '@' ends the user information (a password may hold '/', '@', '#' unencoded).
    match rest.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:{REDACTED}@{host}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// Split `mqtt://host[:port]` into host and port, with a clear reason when it is not one
/// (credentials and TLS are [`parse_broker_url`]'s).
pub fn parse_url(url: &str) -> Result<(String, u16), MqttError> {
    let u = parse_broker_url(url)?;
    Ok((u.host, u.port))
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("'%' at byte {i} is not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "percent-decoding gives invalid UTF-8".to_string())
}

/// Take `mqtt[s]://[user[:password]@]host[:port]` apart (user and password percent-decoded),
/// with a clear reason when it is not one. Error messages show the URL with its password as
/// `***`.
pub fn parse_broker_url(url: &str) -> Result<BrokerUrl, MqttError> {
    let bad = |reason: String| Err(MqttError::InvalidUrl { url: redact_url(url), reason });
    let Some((scheme, rest)) = url.split_once("://") else {
        return bad("expected mqtt://host:port or mqtts://host:port".into());
    };
    let tls = match scheme.to_ascii_lowercase().as_str() {
        "mqtt" | "tcp" => false,
        "mqtts" | "ssl" | "tls" => true,
        "ws" | "wss" => return bad(format!("websockets ({scheme}://) are not supported; use mqtt://")),
        _ => return bad(format!("unsupported scheme {scheme:?}; expected mqtt://host:port or mqtts://host:port")),
    };
    let (username, password, authority) = match rest.rsplit_once('@') {
        None => (None, None, rest),
        Some((userinfo, host)) => {
            let (user, pass) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (userinfo, None),
            };
            let user = match percent_decode(user) {
                Ok(u) if u.is_empty() => return bad("empty user name before '@'".into()),
                Ok(u) => u,
                Err(why) => return bad(format!("user name: {why}")),
            };
            let pass = match pass.map(percent_decode).transpose() {
                Ok(p) => p.map(Password),
                Err(why) => return bad(format!("password: {why}")),
            };
            (Some(user), pass, host)
        }
    };
    let authority = authority.strip_suffix('/').unwrap_or(authority);
    if let Some(i) = authority.find(['/', '?', '#']) {
        return bad(format!("unexpected {:?} after the host and port", &authority[i..]));
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
        None if tls => DEFAULT_TLS_PORT,
        None => DEFAULT_PORT,
        Some("") => return bad("empty port after ':'".into()),
        Some(p) => match p.parse::<u32>() {
            Ok(0) => return bad("port 0 is not a valid broker port (1..=65535)".into()),
            Ok(n) if n <= 65_535 => n as u16,
            Ok(n) => return bad(format!("port {n} is out of range (1..=65535)")),
            Err(_) => return bad(format!("port {p:?} is not a number in 1..=65535")),
        },
    };
    Ok(BrokerUrl { tls, host, port, username, password })
}

fn check_dns_name(host: &str) -> Result<(), String> {
    if host.len() > 253 {
        return Err("longer than 253 characters".into());
    }
    let looks_numeric = host.split('.').all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
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
        if let Some(c) = label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
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
        assert_eq!(parse_url("mqtt://127.0.0.1:1883").unwrap(), ("127.0.0.1".into(), 1883));
        assert_eq!(parse_url("mqtt://broker.local").unwrap(), ("broker.local".into(), 1883));
        assert_eq!(parse_url("MQTT://localhost:1/").unwrap(), ("localhost".into(), 1));
        assert_eq!(parse_url("mqtt://[::1]:8883").unwrap(), ("::1".into(), 8883));
        assert_eq!(parse_url("tcp://10.0.0.2:1884").unwrap(), ("10.0.0.2".into(), 1884));
        assert_eq!(ExternalBroker::new("mqtt://[::1]:8883").unwrap().url(), "mqtt://[::1]:8883");
    }

    #[test]
    fn credentials_and_tls_in_urls() {
        let u = parse_broker_url("mqtts://meter%40plant:p%3Ass@broker.local").unwrap();
        assert_eq!((u.tls, u.host.as_str(), u.port), (true, "broker.local", DEFAULT_TLS_PORT));
        assert_eq!(u.username.as_deref(), Some("meter@plant"));
        assert_eq!(u.password.as_ref().map(Password::expose), Some("p:ss"));
        assert_eq!(format!("{:?}", u.password), "Some(***)");
        // A password may hold '@' and '/': the last '@' ends it.
        let u = parse_broker_url("mqtt://u:a@b/c@127.0.0.1:1884").unwrap();
        assert_eq!((u.password.unwrap().expose(), u.host.as_str(), u.port), ("a@b/c", "127.0.0.1", 1884));
        assert_eq!(redact_url("mqtt://u:a@b/c@127.0.0.1:1884"), "mqtt://u:***@127.0.0.1:1884");
        assert_eq!(redact_url("mqtt://u@h:1"), "mqtt://u@h:1");
        assert_eq!(redact_url("mqtt://h:1"), "mqtt://h:1");

        let b = ExternalBroker::new("mqtt://alice:pw@127.0.0.1:1884").unwrap();
        let ep = b.endpoint();
        assert_eq!(
            (ep.url.as_str(), ep.username.as_deref(), ep.password()),
            ("mqtt://127.0.0.1:1884", Some("alice"), Some("pw"))
        );
        let text = format!("{ep:?} {}", serde_json::to_string(&ep).unwrap());
        assert!(!text.contains("pw"), "{text}");

        let opt = |url: &str, c: Credentials| match ExternalBroker::with_credentials(url, &c) {
            Err(MqttError::Option(m)) => m,
            other => panic!("expected an option error, got {other:?}"),
        };
        let user = |u: &str| Credentials { username: Some(u.into()), ..Credentials::default() };
        assert!(opt("mqtt://a@h", user("b")).contains("--username"));
        let pw = Credentials { password: Some(Password::new("x")), ..Credentials::default() };
        assert!(opt("mqtt://h", pw.clone()).starts_with("a password needs a user name"));
        assert!(opt("mqtt://a:y@h", pw).contains("--password"));
        assert!(opt("mqtts://h", Credentials::default()).contains("--ca-file"));
        let ca = Credentials {
            tls: TlsFiles { ca_file: Some("ca.pem".into()), ..TlsFiles::default() },
            ..Credentials::default()
        };
        assert!(opt("mqtt://h", ca).contains("need a TLS broker URL"));
        // The environment's password is used only when nothing else gives one.
        let env = Credentials { env_password: Some(Password::new("env")), ..user("u") };
        let ep = ExternalBroker::with_credentials("mqtt://h", &env).unwrap().endpoint();
        assert_eq!(ep.password(), Some("env"));
        let ep = ExternalBroker::with_credentials("mqtt://u:url@h", &Credentials { username: None, ..env })
            .unwrap()
            .endpoint();
        assert_eq!(ep.password(), Some("url"));
    }

    #[test]
    fn bad_urls_say_why() {
        let why = |u: &str| parse_url(u).unwrap_err().to_string();
        assert!(why("127.0.0.1:1883").contains("expected mqtt://host:port"));
        assert!(why("http://h:1").contains("unsupported scheme \"http\""));
        assert!(why("mqtt://:1883").contains("missing host"));
        assert!(why("mqtt://h:0").contains("port 0"));
        assert!(why("mqtt://h:70000").contains("out of range"));
        assert!(why("mqtt://h:abc").contains("not a number"));
        assert!(why("mqtt://h:").contains("empty port"));
        assert!(why("mqtt://h:1/topic").contains("\"/topic\""));
        assert!(why("mqtt://@h:1").contains("empty user name"));
        assert!(why("mqtt://u:%zz@h:1").contains("password: '%' at byte 0"));
        // The password never appears in an error, even one about the host or port.
        let e = why("mqtt://u:hunter2@h:99999");
        assert!(e.starts_with("invalid broker URL \"mqtt://u:***@h:99999\": ") && !e.contains("hunter2"), "{e}");
        let e = why("mqtt://u:hunt/er2@h/x");
        assert!(!e.contains("hunt"), "{e}");
        assert!(why("mqtt://bad host:1").contains("not a valid host name"));
        assert!(why("mqtt://300.1.1.1:1").contains("not a valid IPv4"));
        assert!(why("mqtt://[::g]:1").contains("not an IPv6"));
        let e = why("ftp://x");
        assert!(e.starts_with("invalid broker URL \"ftp://x\": "), "{e}");
    }
}
