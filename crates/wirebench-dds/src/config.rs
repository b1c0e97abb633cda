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

/// The `<CycloneDDS>` document for loopback-only operation.
pub fn loopback_xml() -> String {
    format!(
        "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"lo\" multicast=\"false\"/>\
         </Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>\
         <MaxAutoParticipantIndex>{MAX_PARTICIPANT_INDEX}</MaxAutoParticipantIndex><Peers><Peer address=\"127.0.0.1\"/></Peers>\
         </Discovery></Domain></CycloneDDS>"
    )
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
    fn loopback_only() {
        let x = super::loopback_xml();
        assert!(x.contains("name=\"lo\""));
        assert!(x.contains("<AllowMulticast>false</AllowMulticast>"));
        assert!(x.contains("<Peer address=\"127.0.0.1\"/>"));
        let f = super::ConfigFile::create().unwrap();
        assert_eq!(std::fs::read_to_string(f.path()).unwrap(), x);
        let p = f.path().to_path_buf();
        drop(f);
        assert!(!p.exists());
    }
}
