//! The one error type of the crate: a `thiserror` enum whose variants carry what went wrong
//! and where, so a caller can print one clear line (and the CLI can add a hint).

use std::time::Duration;

/// Everything that can go wrong in the network lab, the emulator, the models and the runs.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The netns lab needs privileges this process does not have.
    #[error(
        "the network lab needs {capability} (running as uid {uid}); run as root, or use the \
         userspace link emulator (wirebench_net::emu) instead"
    )]
    NotPermitted { capability: &'static str, uid: u32 },

    /// An external program the lab or a baseline needs is not installed.
    #[error("`{program}` is not installed: {hint}")]
    ProgramMissing { program: &'static str, hint: &'static str },

    /// An external command ran and failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Command { command: String, status: String, stderr: String },

    /// A rate outside what the lab or emulator accepts.
    #[error("rate {given} is out of range: must be between {min} and {max}")]
    RateOutOfRange { given: String, min: &'static str, max: &'static str },

    /// A profile name (lab or radio) nobody knows.
    #[error("{}", unknown(&format!("{kind} profile"), name, known))]
    UnknownProfile { kind: &'static str, name: String, known: String },

    /// A setting that cannot work (with the reason).
    #[error("invalid {what}: {reason}")]
    Invalid { what: &'static str, reason: String },

    /// A lab id that is not usable in interface and namespace names.
    #[error("invalid lab id {0:?}: use 1-6 characters from [a-z0-9]")]
    LabId(String),

    /// The lab is not up (no namespaces with this id).
    #[error("lab {0:?} is not up")]
    LabNotUp(String),

    /// A socket operation failed; `context` says which and on what.
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },

    /// Nobody is listening where we were told to send.
    #[error("cannot connect to {addr}: {source} (is the collector/server running there?)")]
    Connect { addr: String, source: std::io::Error },

    /// A step did not finish within its deadline.
    #[error("{what} did not finish within {after:?}")]
    Timeout { what: String, after: Duration },

    /// A codec could not encode, decode or round-trip the payload.
    #[error("codec {codec}: {msg}")]
    Codec { codec: String, msg: String },

    /// A codec id not in the registry.
    #[error("{}", unknown("format", .0, .1))]
    UnknownCodec(String, String),

    /// The peer spoke something we do not understand (HTTP or our framing).
    #[error("protocol error from {peer}: {msg}")]
    Protocol { peer: String, msg: String },

    /// wrk ran but its output could not be read.
    #[error("cannot parse wrk output ({what}): {output}")]
    WrkOutput { what: &'static str, output: String },

    /// A worker thread died (a bug); the payload message when there was one.
    #[error("worker thread {0} panicked: {1}")]
    Worker(String, String),
}

impl NetError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> NetError {
        NetError::Io { context: context.into(), source }
    }

    pub(crate) fn invalid(what: &'static str, reason: impl Into<String>) -> NetError {
        NetError::Invalid { what, reason: reason.into() }
    }
}

impl From<wirebench_measure::workload::WorkloadError> for NetError {
    fn from(e: wirebench_measure::workload::WorkloadError) -> NetError {
        use wirebench_measure::workload::WorkloadError;
        match e {
            WorkloadError::Invalid { what, reason } => NetError::Invalid { what, reason },
            WorkloadError::Codec { codec, msg } => NetError::Codec { codec, msg },
            WorkloadError::UnknownCodec(codec, known) => NetError::UnknownCodec(codec, known),
        }
    }
}

/// Turn a thread's panic payload into a message.
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

/// The one-line "unknown …" message (with a did-you-mean) from a comma-separated known list.
fn unknown(what: &str, name: &str, known: &str) -> String {
    let list: Vec<&str> = known.split(',').map(str::trim).filter(|k| !k.is_empty()).collect();
    wirebench_core::names::unknown(what, name, &list)
}
