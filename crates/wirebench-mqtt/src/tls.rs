//! TLS for `mqtts://` brokers: the rustls client configuration (ring as the crypto provider)
//! from the PEM files of `--ca-file` and, for mutual TLS, `--client-cert` / `--client-key`,
//! and short descriptions of handshake failures.
//!
//! Only the CA of `--ca-file` is trusted (not the system's store): a benchmark names the broker
//! it measures. The broker's certificate must name the host of the URL (a DNS name, or an IP
//! address in its subjectAltName).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};

use crate::error::MqttError;

/// The PEM files of a TLS connection, as the options give them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsFiles {
    /// `--ca-file`: the CA certificate(s) that signed the broker's certificate.
    pub ca_file: Option<PathBuf>,
    /// `--client-cert`: the client's certificate chain (mutual TLS).
    pub client_cert: Option<PathBuf>,
    /// `--client-key`: the client certificate's private key (PKCS#8, PKCS#1 or SEC1).
    pub client_key: Option<PathBuf>,
}

impl TlsFiles {
    pub fn any(&self) -> bool {
        self.ca_file.is_some() || self.client_cert.is_some() || self.client_key.is_some()
    }
}

fn opt_err(option: &str, path: &Path, why: impl std::fmt::Display) -> MqttError {
    MqttError::Option(format!("{option} {}: {why}", path.display()))
}

fn read(option: &str, path: &Path) -> Result<Vec<u8>, MqttError> {
    std::fs::read(path).map_err(|e| opt_err(option, path, crate::error::describe_io(&e)))
}

/// Every certificate of a PEM file (at least one), each checked to parse as X.509.
fn certificates(option: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, MqttError> {
    let pem = read(option, path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| opt_err(option, path, format!("not a PEM file ({e})")))?;
    if certs.is_empty() {
        return Err(opt_err(option, path, "no PEM certificate (-----BEGIN CERTIFICATE-----) in it"));
    }
    for (i, c) in certs.iter().enumerate() {
        webpki::EndEntityCert::try_from(c).map_err(|e| {
            opt_err(option, path, format!("certificate {} of {} does not parse: {e}", i + 1, certs.len()))
        })?;
    }
    Ok(certs)
}

/// The client configuration of `files`: `--ca-file` is required; `--client-cert` and
/// `--client-key` go together. Every file problem is an [`MqttError::Option`] naming the option.
pub(crate) fn client_config(files: &TlsFiles) -> Result<Arc<ClientConfig>, MqttError> {
    let Some(ca_file) = &files.ca_file else {
        return Err(MqttError::Option(
            "an mqtts:// broker needs --ca-file PEM (the CA that signed the broker's certificate)".into(),
        ));
    };
    let mut roots = RootCertStore::empty();
    for c in certificates("--ca-file", ca_file)? {
        roots.add(c).map_err(|e| opt_err("--ca-file", ca_file, format!("not a usable CA certificate: {e}")))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| MqttError::Option(format!("TLS: {e}")))?
        .with_root_certificates(roots);
    let config = match (&files.client_cert, &files.client_key) {
        (None, None) => builder.with_no_client_auth(),
        (Some(cert), Some(key)) => {
            let chain = certificates("--client-cert", cert)?;
            let pem = read("--client-key", key)?;
            let der = PrivateKeyDer::from_pem_slice(&pem)
                .map_err(|e| opt_err("--client-key", key, format!("no PEM private key in it ({e})")))?;
            builder
                .with_client_auth_cert(chain, der)
                .map_err(|e| opt_err("--client-key", key, format!("not usable with --client-cert: {e}")))?
        }
        (Some(_), None) => return Err(MqttError::Option("--client-cert needs --client-key".into())),
        (None, Some(_)) => return Err(MqttError::Option("--client-key needs --client-cert".into())),
    };
    Ok(Arc::new(config))
}

/// A TLS failure inside an I/O error, described for a user: what went wrong and which option
/// to check. `None` when the error is not a TLS one.
pub(crate) fn describe(e: &std::io::Error) -> Option<String> {
    let inner = e.get_ref()?.downcast_ref::<rustls::Error>()?;
    use rustls::{AlertDescription as A, CertificateError as C, Error as E};
    let what = match inner {
        E::InvalidCertificate(C::UnknownIssuer) => {
            "the broker's certificate is not signed by the CA of --ca-file".to_string()
        }
        E::InvalidCertificate(C::NotValidForName) | E::InvalidCertificate(C::NotValidForNameContext { .. }) => {
            "the broker's certificate does not name the host of --broker".to_string()
        }
        E::InvalidCertificate(C::Expired) | E::InvalidCertificate(C::ExpiredContext { .. }) => {
            "the broker's certificate has expired".to_string()
        }
        E::InvalidCertificate(c) => format!("the broker's certificate was rejected ({c:?})"),
        E::AlertReceived(A::CertificateRequired)
        | E::AlertReceived(A::HandshakeFailure)
        | E::AlertReceived(A::BadCertificate)
        | E::AlertReceived(A::UnknownCA) => {
            format!("the broker refused the handshake ({inner}): does it require a client certificate (--client-cert/--client-key)?")
        }
        E::InvalidMessage(_) => format!("{inner} (is the broker's port a TLS port?)"),
        other => other.to_string(),
    };
    Some(format!("TLS handshake failed: {what}"))
}
