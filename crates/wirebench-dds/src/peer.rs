//! The other end of a measurement: the pong of a ping-pong, or the publisher of a throughput
//! run. It runs as a thread (tests) or as a child process (measurements: the two ends must not
//! share one Cyclone instance, which would deliver locally without RTPS).
//!
//! Child protocol: the parent passes [`PeerOpts`] as JSON (one argument); the child prints
//! `ready` when its entities exist (the publisher: once its writer has matched a reader), reads
//! `go` on stdin to start publishing, prints `done <PeerReport JSON>` when finished, and stops
//! when stdin reaches end of file (so it also ends when the parent dies).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::loopback_xml;
use crate::marshal::{Codec, KeyedOctets, Marshal};
use crate::{DdsError, Participant, DATA_TOPIC, PING_TOPIC, PONG_TOPIC};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Answer every ping on PING_TOPIC: unmarshal, marshal again, write on PONG_TOPIC.
    Pong,
    /// On `go`, write `samples` samples on DATA_TOPIC as fast as possible.
    Pub,
}

/// What the peer does.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerOpts {
    pub role: Role,
    pub domain: u32,
    pub marshal: Marshal,
    /// Payload octets of the sample.
    pub size: usize,
    /// Pub: how many samples.
    #[serde(default)]
    pub samples: u64,
    /// Pub: key values cycle over this many instances.
    #[serde(default = "one")]
    pub instances: u32,
    /// Pub: batch writes (Cyclone `dds_write_set_batch`), flushed at the end.
    #[serde(default)]
    pub batch: bool,
    /// Count Rust heap allocations (only in a process of its own with the counting allocator).
    #[serde(default)]
    pub count_allocs: bool,
}

fn one() -> u32 {
    1
}

/// What the peer reports when it stops (results data, in `wirebench-core`).
pub use wirebench_core::sections::dds::PeerReport;

/// Control messages from the parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctl {
    Go,
    Stop,
}

/// Messages from the peer.
#[derive(Clone, Debug)]
pub enum Event {
    Ready,
    Done(PeerReport),
    Failed(String),
}

type Handler = Box<dyn FnMut(&mut crate::Taker) + Send>;

struct PongState {
    handled: u64,
    error: Option<DdsError>,
}

const MATCH_TIMEOUT: Duration = Duration::from_secs(20);

/// Run the peer until `Stop` (or the end of the control channel).
pub fn serve(opts: &PeerOpts, ctl: &Receiver<Ctl>, events: &mut dyn FnMut(Event)) -> Result<PeerReport, DdsError> {
    if opts.role == Role::Pub {
        // Measured with 0.10.2: called only after the participant existed, batching did not take
        // effect (one datagram per sample); called before the domain is created, it does. Call it
        // before and after (a domain shared in-process may exist already).
        crate::set_batch(opts.batch);
    }
    let pp = Participant::new(opts.domain, &loopback_xml())?;
    if opts.role == Role::Pub {
        crate::set_batch(opts.batch);
    }
    match opts.role {
        Role::Pong => {
            // Answered on Cyclone's receive thread by a data-available listener, like ddsperf.
            let writer = pp.writer(PONG_TOPIC, true, 1)?;
            let state = Arc::new(Mutex::new(PongState { handled: 0, error: None }));
            let st = Arc::clone(&state);
            let marshal = opts.marshal;
            let mut buf = Vec::with_capacity(opts.size * 4 + 64);
            let handler = Box::new(move |t: &mut crate::Taker| {
                let mut handled = 0u64;
                let r = t.drain(|s| {
                    let v = marshal.decode(s.baggage)?;
                    marshal.encode(&v, &mut buf)?;
                    writer.write(s.seq, s.keyval, &buf)?;
                    writer.flush()?;
                    handled += 1;
                    Ok::<(), DdsError>(())
                });
                if let Ok(mut g) = st.lock() {
                    g.handled += handled;
                    if let Err(e) = r {
                        g.error.get_or_insert(e.into());
                    }
                }
            });
            let start = Instant::now();
            let mut handler: Option<Handler> = Some(handler);
            let mut body = || -> Result<crate::ListenedReader, DdsError> {
                let h = handler.take().ok_or_else(|| DdsError::Peer("pong started twice".into()))?;
                let reader = pp.listened_reader(PING_TOPIC, true, 1, h)?;
                events(Event::Ready);
                loop {
                    match ctl.recv_timeout(Duration::from_millis(200)) {
                        Ok(Ctl::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                        _ => {}
                    }
                    if state.lock().map(|g| g.error.is_some()).unwrap_or(true) {
                        break;
                    }
                }
                Ok(reader)
            };
            let mut out = None;
            let allocs = if opts.count_allocs {
                wirebench_measure::alloc::measure(1, || out = Some(body()))
            } else {
                out = Some(body());
                None
            };
            // Delete the reader (waits for a running listener call) before reading the state.
            drop(out.unwrap_or_else(|| Err(DdsError::Peer("pong did not run".into())))?);
            let mut g = state.lock().map_err(|_| DdsError::Peer("pong state poisoned".into()))?;
            if let Some(e) = g.error.take() {
                return Err(e);
            }
            let handled = g.handled;
            let per = |x: f64| if handled > 0 { Some(x / handled as f64) } else { None };
            Ok(PeerReport {
                handled,
                secs: start.elapsed().as_secs_f64(),
                allocs_per_sample: allocs.and_then(|a| per(a.allocs_per_op)),
                alloc_bytes_per_sample: allocs.and_then(|a| per(a.bytes_per_op)),
            })
        }
        Role::Pub => {
            let writer = pp.writer(DATA_TOPIC, true, 0)?;
            let deadline = Instant::now() + MATCH_TIMEOUT;
            while writer.matched()? == 0 {
                if Instant::now() > deadline {
                    return Err(DdsError::Timeout("the publisher matched no reader within 20 s".into()));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            events(Event::Ready);
            match ctl.recv() {
                Ok(Ctl::Go) => {}
                Ok(Ctl::Stop) | Err(_) => return Ok(PeerReport::default()),
            }
            let instances = opts.instances.max(1);
            let mut sample = KeyedOctets::new(opts.size, 0x5eed);
            let mut buf = Vec::with_capacity(opts.size * 4 + 64);
            let mut failure: Option<DdsError> = None;
            let start = Instant::now();
            let mut body = || {
                for i in 0..opts.samples {
                    let key = (i % u64::from(instances)) as u32;
                    sample.set_key(key);
                    let r = opts.marshal.encode(&sample, &mut buf).and_then(|_| writer.write(i as u32, key, &buf));
                    if let Err(e) = r {
                        failure = Some(e);
                        return;
                    }
                }
                if let Err(e) = writer.flush() {
                    failure = Some(e);
                }
            };
            let allocs = if opts.count_allocs {
                wirebench_measure::alloc::measure(1, &mut body)
            } else {
                body();
                None
            };
            let secs = start.elapsed().as_secs_f64();
            if let Some(e) = failure {
                return Err(e);
            }
            let n = opts.samples.max(1) as f64;
            let report = PeerReport {
                handled: opts.samples,
                secs,
                allocs_per_sample: allocs.map(|a| a.allocs_per_op / n),
                alloc_bytes_per_sample: allocs.map(|a| a.bytes_per_op / n),
            };
            events(Event::Done(report.clone()));
            // Stay until told: a reliable writer must live until the reader has everything.
            loop {
                match ctl.recv_timeout(Duration::from_secs(3600)) {
                    Ok(Ctl::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                    _ => {}
                }
            }
            Ok(report)
        }
    }
}

/// The child-process side: control from stdin, events to stdout. Returns the process exit code.
pub fn child_main(opts_json: &str) -> i32 {
    let opts: PeerOpts = match serde_json::from_str(opts_json) {
        Ok(o) => o,
        Err(e) => {
            println!("failed bad peer options: {e}");
            return 2;
        }
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            match line.as_deref().map(str::trim) {
                Ok("go") => {
                    let _ = tx.send(Ctl::Go);
                }
                Ok("stop") | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = tx.send(Ctl::Stop);
    });
    let say = |line: String| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let mut events = |e: Event| match e {
        Event::Ready => say("ready".into()),
        Event::Done(r) => say(format!("done {}", serde_json::to_string(&r).unwrap_or_default())),
        Event::Failed(m) => say(format!("failed {m}")),
    };
    match serve(&opts, &rx, &mut events) {
        Ok(r) => {
            if opts.role == Role::Pong {
                events(Event::Done(r));
            }
            0
        }
        Err(e) => {
            events(Event::Failed(e.to_string().replace('\n', " ")));
            1
        }
    }
}

/// How to run the peer.
#[derive(Debug)]
pub enum PeerMode {
    /// A thread of this process (the same Cyclone instance: local delivery; the publisher only).
    Thread,
    /// A child process: this command plus one argument, the [`PeerOpts`] JSON; the command
    /// must end up in [`child_main`].
    Process(Command),
}

enum Control {
    Thread(Sender<Ctl>, Option<JoinHandle<()>>),
    Process(Option<ChildStdin>, Child),
}

/// A running peer; dropping it stops it (a child process is killed if it does not stop).
pub struct Peer {
    control: Control,
    events: Receiver<Event>,
    done: Option<PeerReport>,
}

impl Peer {
    pub fn start(opts: &PeerOpts, mode: PeerMode) -> Result<Peer, DdsError> {
        let (etx, erx) = mpsc::channel();
        let control = match mode {
            PeerMode::Thread if opts.role == Role::Pong => {
                return Err(DdsError::Config(
                    "the pong must run in another process: within one process Cyclone delivers locally, \
                     synchronously in the writer's thread, so ping and pong listeners would call each other"
                        .into(),
                ))
            }
            PeerMode::Thread => {
                let (ctx, crx) = mpsc::channel();
                let opts = opts.clone();
                let h = std::thread::Builder::new().name("wirebench-dds-peer".into()).spawn(move || {
                    let mut send = |e: Event| {
                        let _ = etx.send(e);
                    };
                    match serve(&opts, &crx, &mut send) {
                        Ok(r) if opts.role == Role::Pong => send(Event::Done(r)),
                        Ok(_) => {}
                        Err(e) => send(Event::Failed(e.to_string())),
                    }
                })?;
                Control::Thread(ctx, Some(h))
            }
            PeerMode::Process(mut cmd) => {
                let json = serde_json::to_string(opts).map_err(|e| DdsError::Peer(e.to_string()))?;
                crate::close_on_exec_all();
                let mut child = cmd
                    .arg(json)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::inherit())
                    .spawn()
                    .map_err(|e| DdsError::Peer(format!("cannot start the peer process: {e}")))?;
                let stdout = child.stdout.take().ok_or_else(|| DdsError::Peer("no stdout".into()))?;
                let stdin = child.stdin.take();
                std::thread::spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        let ev = if line.trim() == "ready" {
                            Event::Ready
                        } else if let Some(j) = line.strip_prefix("done ") {
                            match serde_json::from_str(j) {
                                Ok(r) => Event::Done(r),
                                Err(e) => Event::Failed(format!("bad report {j:?}: {e}")),
                            }
                        } else if let Some(m) = line.strip_prefix("failed ") {
                            Event::Failed(m.to_string())
                        } else {
                            continue;
                        };
                        if etx.send(ev).is_err() {
                            break;
                        }
                    }
                    let _ = etx.send(Event::Failed("the peer process ended".into()));
                });
                Control::Process(stdin, child)
            }
        };
        Ok(Peer { control, events: erx, done: None })
    }

    fn next_event(&mut self, timeout: Duration) -> Result<Event, DdsError> {
        match self.events.recv_timeout(timeout) {
            Ok(e) => Ok(e),
            Err(RecvTimeoutError::Timeout) => Err(DdsError::Timeout(format!("no word from the peer in {timeout:?}"))),
            Err(RecvTimeoutError::Disconnected) => Err(DdsError::Peer("the peer ended".into())),
        }
    }

    /// Wait for `ready`.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<(), DdsError> {
        match self.next_event(timeout)? {
            Event::Ready => Ok(()),
            Event::Done(_) => Err(DdsError::Peer("finished before it was ready".into())),
            Event::Failed(m) => Err(DdsError::Peer(m)),
        }
    }

    pub fn go(&mut self) -> Result<(), DdsError> {
        match &mut self.control {
            Control::Thread(tx, _) => tx.send(Ctl::Go).map_err(|_| DdsError::Peer("the peer ended".into())),
            Control::Process(Some(stdin), _) => {
                stdin.write_all(b"go\n").and_then(|_| stdin.flush()).map_err(|e| DdsError::Peer(format!("go: {e}")))
            }
            Control::Process(None, _) => Err(DdsError::Peer("no stdin".into())),
        }
    }

    /// The publisher's report (it comes when it has written everything), waiting up to `timeout`.
    pub fn wait_done(&mut self, timeout: Duration) -> Result<PeerReport, DdsError> {
        if let Some(r) = &self.done {
            return Ok(r.clone());
        }
        match self.next_event(timeout)? {
            Event::Done(r) => {
                self.done = Some(r.clone());
                Ok(r)
            }
            Event::Ready => Err(DdsError::Peer("unexpected ready".into())),
            Event::Failed(m) => Err(DdsError::Peer(m)),
        }
    }

    /// Stop the peer and return its report (the pong reports on stop).
    pub fn stop(mut self, timeout: Duration) -> Result<PeerReport, DdsError> {
        self.signal_stop();
        let r = self.wait_done(timeout);
        self.reap(timeout);
        r
    }

    fn signal_stop(&mut self) {
        match &mut self.control {
            Control::Thread(tx, _) => {
                let _ = tx.send(Ctl::Stop);
            }
            Control::Process(stdin, _) => {
                stdin.take();
            }
        }
    }

    fn reap(&mut self, timeout: Duration) {
        match &mut self.control {
            Control::Thread(_, h) => {
                if let Some(h) = h.take() {
                    let _ = h.join();
                }
            }
            Control::Process(_, child) => {
                let deadline = Instant::now() + timeout;
                loop {
                    match child.try_wait() {
                        Ok(Some(_)) => return,
                        Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                        _ => {
                            let _ = child.kill();
                            let _ = child.wait();
                            return;
                        }
                    }
                }
            }
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.signal_stop();
        self.reap(Duration::from_secs(3));
    }
}
