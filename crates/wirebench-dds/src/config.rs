//! Cyclone DDS configuration: loopback only.
//!
//! Every participant wirebench creates, and every `ddsperf` it starts, uses [`loopback_xml`]:
//! the `lo` interface only, multicast off (Linux `lo` has no MULTICAST flag by default), and
//! unicast discovery to 127.0.0.1 over the participant-index ports. Without an interface
//! setting Cyclone would pick the first multicast-capable interface (eth0) and send SPDP to
//! 239.255.0.1 there (shared/specs/cdr-dds.md §2.1). Isolation between concurrent runs comes
//! from the domain id: each run or test uses its own.

use std::path::Path;

/// Participants per domain and host that unicast discovery can find (participant indices).
pub const MAX_PARTICIPANT_INDEX: u32 = 30;

/// The environment variable that sets Cyclone's `General/MaxMessageSize` (bytes) for every
/// participant of a run and every ddsperf it starts alike; unset: Cyclone's default, 14 720 B.
///
/// Why one would: batched writes are packed into messages of at most this size, and at Cyclone's
/// default a 14 720-byte datagram holds 7 of ddsperf's 2 KB samples but only 6 of ours, whose CDR
/// adds 16 bytes (docs/studies/seed004-dds-cdr-json.md). On loopback (MTU 64 KiB) a larger size
/// removes that step for both sides.
pub const MAX_MESSAGE_ENV: &str = "WIREBENCH_DDS_MAX_MESSAGE";
/// The range accepted for [`MAX_MESSAGE_ENV`]: Cyclone's fragment size up to a UDP datagram on
/// loopback with room for the headers.
pub const MAX_MESSAGE_RANGE: std::ops::RangeInclusive<u32> = 1344..=65000;

/// [`MAX_MESSAGE_ENV`] as set: `None` when unset or empty, an error naming the range otherwise.
pub fn max_message_size() -> Result<Option<u32>, String> {
    parse_max_message(std::env::var(MAX_MESSAGE_ENV).ok().as_deref())
}

/// See [`max_message_size`].
pub fn parse_max_message(v: Option<&str>) -> Result<Option<u32>, String> {
    let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    match v.parse::<u32>() {
        Ok(n) if MAX_MESSAGE_RANGE.contains(&n) => Ok(Some(n)),
        _ => Err(format!(
            "{MAX_MESSAGE_ENV}={v:?}: expected a byte count from {} to {}",
            MAX_MESSAGE_RANGE.start(),
            MAX_MESSAGE_RANGE.end()
        )),
    }
}

/// The `<CycloneDDS>` document for loopback-only operation ([`MAX_MESSAGE_ENV`] applied when it
/// is valid; [`crate::study::check_plan`] refuses a run where it is not).
pub fn loopback_xml() -> String {
    loopback_xml_with(max_message_size().ok().flatten())
}

/// [`loopback_xml`] with this `MaxMessageSize` (`None`: Cyclone's default).
pub fn loopback_xml_with(max_message: Option<u32>) -> String {
    let max = max_message.map(|n| format!("<MaxMessageSize>{n}B</MaxMessageSize>")).unwrap_or_default();
    format!(
        "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"lo\" multicast=\"false\"/>\
         </Interfaces><AllowMulticast>false</AllowMulticast>{max}</General><Discovery><ParticipantIndex>auto</ParticipantIndex>\
         <MaxAutoParticipantIndex>{MAX_PARTICIPANT_INDEX}</MaxAutoParticipantIndex><Peers><Peer address=\"127.0.0.1\"/></Peers>\
         </Discovery></Domain></CycloneDDS>"
    )
}

/// How the transport's datagrams are sized, for the results: Cyclone's default or the
/// [`MAX_MESSAGE_ENV`] setting.
pub fn message_size_text() -> String {
    match max_message_size() {
        Ok(Some(n)) => format!("MaxMessageSize {n} B ({MAX_MESSAGE_ENV}), ours and ddsperf alike"),
        _ => "Cyclone's default MaxMessageSize (14720 B)".into(),
    }
}

/// The XML in a file (for `CYCLONEDDS_URI=file://...` of child processes): created by
/// `tempfile` (unpredictable name, `O_EXCL`, mode 0600), removed on drop.
#[derive(Debug)]
pub struct ConfigFile {
    file: tempfile::NamedTempFile,
    /// Removes the file when a signal ends the process (Drop does not run then).
    _on_signal: wirebench_core::signals::HookGuard,
}

impl ConfigFile {
    pub fn create() -> std::io::Result<ConfigFile> {
        use std::io::Write;
        let mut file = tempfile::Builder::new().prefix("wirebench-dds-").suffix(".xml").tempfile()?;
        file.write_all(loopback_xml().as_bytes())?;
        file.flush()?;
        let path = file.path().to_path_buf();
        let _on_signal = wirebench_core::signals::on_signal(move |_| {
            let _ = std::fs::remove_file(&path);
        });
        Ok(ConfigFile { file, _on_signal })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The value for `CYCLONEDDS_URI`.
    pub fn uri(&self) -> String {
        format!("file://{}", self.path().display())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn max_message_size_from_the_environment_value() {
        use super::{loopback_xml_with, parse_max_message};
        assert_eq!(parse_max_message(None), Ok(None));
        assert_eq!(parse_max_message(Some(" ")), Ok(None));
        assert_eq!(parse_max_message(Some("65000")), Ok(Some(65000)));
        for bad in ["65001", "100", "64k", "-1"] {
            let e = parse_max_message(Some(bad)).unwrap_err();
            assert!(e.contains("WIREBENCH_DDS_MAX_MESSAGE") && e.contains("1344 to 65000"), "{e}");
        }
        let x = loopback_xml_with(Some(32000));
        assert!(
            x.contains("<AllowMulticast>false</AllowMulticast><MaxMessageSize>32000B</MaxMessageSize></General>"),
            "{x}"
        );
        assert!(!loopback_xml_with(None).contains("MaxMessageSize"));
    }

    #[test]
    fn loopback_only() {
        let x = super::loopback_xml_with(None);
        assert!(x.contains("name=\"lo\""));
        assert!(x.contains("<AllowMulticast>false</AllowMulticast>"));
        assert!(x.contains("<Peer address=\"127.0.0.1\"/>"));
        let f = super::ConfigFile::create().unwrap();
        assert_eq!(std::fs::read_to_string(f.path()).unwrap(), super::loopback_xml());
        let p = f.path().to_path_buf();
        drop(f);
        assert!(!p.exists());
    }
}
