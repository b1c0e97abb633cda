//! A mosquitto broker for tests and local comparisons: Debian's `mosquitto` binary
//! (`apt-get install -y mosquitto`) started on a free loopback port with a temporary config,
//! killed and cleaned up on drop — also when a test panics.

use std::fs::File;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::endpoint::{BrokerKind, Endpoint, MqttBroker};
use crate::error::MqttError;
use crate::sockfd::free_port;

/// Options of the mosquitto helper.
#[derive(Clone, Debug)]
pub struct MosquittoOptions {
    /// `set_tcp_nodelay true` in the config (default true; mosquitto's own default is false,
    /// which gives 44/88 ms QoS 1 round trips).
    pub tcp_nodelay: bool,
    /// Extra config lines (e.g. `max_queued_messages 10000`).
    pub extra_config: Vec<String>,
    /// More loopback addresses to listen on, at the same port as 127.0.0.1 (fleets spread their
    /// connections over them: each broker address has its own 28,232 ephemeral client ports).
    pub extra_addresses: Vec<std::net::Ipv4Addr>,
    /// How long `start` waits for the broker to accept connections (ms).
    pub start_timeout_ms: u64,
}

impl Default for MosquittoOptions {
    fn default() -> Self {
        MosquittoOptions {
            tcp_nodelay: true,
            extra_config: Vec::new(),
            extra_addresses: Vec::new(),
            start_timeout_ms: 5_000,
        }
    }
}

/// A running mosquitto child process.
///
/// The child gets `PR_SET_PDEATHSIG = SIGKILL`, so it also dies if the *thread* that started it
/// ends without dropping it (e.g. a test thread that aborts); keep the value on the thread that
/// created it.
pub struct Mosquitto {
    child: Mutex<Child>,
    addr: SocketAddrV4,
    dir: PathBuf,
    version: String,
    /// Removes `dir` when a signal ends the process (Drop does not run then).
    _on_signal: wirebench_core::signals::HookGuard,
}

impl Mosquitto {
    /// Start with [`MosquittoOptions::default`].
    pub fn start() -> Result<Mosquitto, MqttError> {
        Mosquitto::start_with(&MosquittoOptions::default())
    }

    /// The mosquitto binary: `$WIREBENCH_MOSQUITTO`, `mosquitto` on `PATH`, or
    /// `/usr/sbin/mosquitto` (where Debian puts it).
    pub fn binary() -> Result<PathBuf, MqttError> {
        if let Some(p) = std::env::var_os("WIREBENCH_MOSQUITTO") {
            let p = PathBuf::from(p);
            return if p.is_file() {
                Ok(p)
            } else {
                Err(MqttError::Mosquitto(format!("WIREBENCH_MOSQUITTO={} is not a file", p.display())))
            };
        }
        wirebench_measure::programs::which("mosquitto").ok_or_else(|| {
            MqttError::Mosquitto(
                "mosquitto not found (looked at $WIREBENCH_MOSQUITTO, PATH, the sbin and bin folders): \
                     install it with `apt-get install -y mosquitto`"
                    .into(),
            )
        })
    }

    pub fn start_with(opts: &MosquittoOptions) -> Result<Mosquitto, MqttError> {
        let bin = Mosquitto::binary()?;
        let mut last = String::new();
        for _attempt in 0..3 {
            // Private (0700), unpredictable name, created with O_EXCL semantics: nothing in it
            // can be a link planted by another user. Removed on drop and on SIGINT/SIGTERM/SIGHUP.
            let dir = tempfile::Builder::new()
                .prefix("wirebench-mosquitto-")
                .tempdir()
                .map_err(|e| MqttError::io("creating a temporary folder for mosquitto".to_string(), e))?
                .keep();
            let port = free_port()?;
            match start_once(&bin, &dir, port, opts) {
                Ok(m) => return Ok(m),
                Err(Retry::Again(why)) => {
                    last = why;
                    let _ = std::fs::remove_dir_all(&dir);
                }
                Err(Retry::Fatal(e)) => {
                    let _ = std::fs::remove_dir_all(&dir);
                    return Err(e);
                }
            }
        }
        Err(MqttError::Mosquitto(last))
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::V4(self.addr)
    }

    pub fn url(&self) -> String {
        format!("mqtt://{}", self.addr)
    }

    pub fn pid(&self) -> u32 {
        self.child.lock().map(|c| c.id()).unwrap_or(0)
    }

    /// `mosquitto version 2.0.11`, as the binary reports it.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Kill the broker now (SIGKILL), e.g. to test a broker that dies mid-run. Cleanup still
    /// happens on drop.
    pub fn kill(&self) {
        if let Ok(mut c) = self.child.lock() {
            let _ = c.kill();
        }
    }

    /// What mosquitto wrote to stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("mosquitto.log")).unwrap_or_default()
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        if let Ok(mut c) = self.child.lock() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl MqttBroker for Mosquitto {
    fn endpoint(&self) -> Endpoint {
        Endpoint::new(&self.addr.ip().to_string(), self.addr.port(), BrokerKind::Mosquitto)
    }
}

enum Retry {
    Again(String),
    Fatal(MqttError),
}

fn start_once(bin: &Path, dir: &Path, port: u16, opts: &MosquittoOptions) -> Result<Mosquitto, Retry> {
    let conf = dir.join("mosquitto.conf");
    let mut text = format!(
        "# written by wirebench-mqtt\nlistener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n\
         set_tcp_nodelay {}\nlog_dest stderr\nlog_type error\nlog_type warning\n\
         log_type information\n",
        opts.tcp_nodelay
    );
    // As root, mosquitto would switch to the `mosquitto` user; a loopback test broker
    // does not need that (and the user may not exist outside Debian's package).
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        text.push_str("user root\n");
    }
    for a in &opts.extra_addresses {
        text.push_str(&format!("listener {port} {a}\n"));
    }
    for l in &opts.extra_config {
        text.push_str(l);
        text.push('\n');
    }
    let fatal_io = |what: &str, e: std::io::Error| Retry::Fatal(MqttError::io(what.to_string(), e));
    File::create_new(&conf)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| fatal_io("writing mosquitto.conf", e))?;
    let log_path = dir.join("mosquitto.log");
    let log = File::create_new(&log_path).map_err(|e| fatal_io("creating mosquitto.log", e))?;
    let mut cmd = Command::new(bin);
    cmd.arg("-c").arg(&conf).stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
    // SAFETY: prctl is async-signal-safe; it runs in the child between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(|e| Retry::Fatal(MqttError::io(format!("starting {}", bin.display()), e)))?;
    let addr = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
    let m = Mosquitto {
        child: Mutex::new(child),
        addr,
        dir: dir.to_path_buf(),
        version: String::new(),
        _on_signal: {
            let dir = dir.to_path_buf();
            wirebench_core::signals::on_signal(move |_| {
                let _ = std::fs::remove_dir_all(&dir);
            })
        },
    };
    let deadline = Instant::now() + Duration::from_millis(opts.start_timeout_ms.min(3_600_000));
    loop {
        // Ready = mosquitto says it is running (so the listener is *its* socket, not another
        // process's on a reused port) and it accepts a connection.
        let running = std::fs::read_to_string(&log_path).is_ok_and(|l| l.contains(" running"));
        if running && TcpStream::connect_timeout(&SocketAddr::V4(addr), Duration::from_millis(200)).is_ok() {
            break;
        }
        let exited = m.child.lock().ok().and_then(|mut c| c.try_wait().ok().flatten());
        if let Some(status) = exited {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            let why = format!("mosquitto exited ({status}) on port {port}: {}", log.trim());
            // Keep the files: Drop of `m` removes them (the caller's retry makes a new dir).
            return Err(if log.contains("in use") {
                Retry::Again(why)
            } else {
                Retry::Fatal(MqttError::Mosquitto(why))
            });
        }
        if Instant::now() >= deadline {
            return Err(Retry::Fatal(MqttError::Mosquitto(format!(
                "mosquitto did not accept connections on {addr} within {} ms; log: {}",
                opts.start_timeout_ms,
                std::fs::read_to_string(&log_path).unwrap_or_default().trim()
            ))));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let version = Command::new(bin)
        .arg("-h")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(|l| l.trim().to_string()))
        .unwrap_or_default();
    let mut m = m;
    m.version = version;
    Ok(m)
}
