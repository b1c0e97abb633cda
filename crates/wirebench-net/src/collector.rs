//! The HTTP collector: a hyper (HTTP/1.1, keep-alive) server that decodes and validates every
//! body it receives with the codec its `Content-Type` names, and counts what it saw.
//!
//! - `POST <any path>`: the media type picks the codec (`CodecInfo::media_type`, first codec in
//!   registry order wins a shared type such as `application/json`; a `codec=<id>` parameter
//!   picks one explicitly, e.g. `application/json; codec=uadp-json`). The body is decoded, and
//!   when a schema was given at start, checked against it. Replies: `204` valid, `400` invalid
//!   (with the reason), `415` unknown media type, `413` body over the limit.
//! - `GET /stats`: the counters as JSON. `GET /health`: `200 ok`.
//!
//! With `validate: false` the collector reads and counts bodies without decoding (a sink, like
//! the spec's nginx `return 204`), for measuring the load generator rather than the codecs.
//!
//! Runs on its own thread(s) (`workers` = 1: a current-thread runtime, the usual choice on a
//! 2-core box where the generator needs the other core), optionally inside a lab namespace.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use wirebench_codecs::Prepared;
use wirebench_core::Schema;

use crate::hyper_io::{read_body, BodyError, Full, Io};
use crate::lab::{spawn_in, NsThread};
use crate::NetError;

/// How to run the collector.
#[derive(Clone, Debug)]
pub struct CollectorConfig {
    /// Where to listen (port 0 = any free port).
    pub listen: SocketAddr,
    /// Schema for schema-driven codecs (Protobuf, Avro, Thrift, …) and for validation.
    pub schema: Option<Schema>,
    /// Decode and validate bodies (`false`: only read and count them).
    pub validate: bool,
    /// Runtime worker threads (1 = current-thread runtime).
    pub workers: usize,
    /// Run inside this network namespace.
    pub netns: Option<String>,
    /// Largest body accepted.
    pub max_body: usize,
}

impl Default for CollectorConfig {
    fn default() -> Self {
        CollectorConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            schema: None,
            validate: true,
            workers: 1,
            netns: None,
            max_body: 16 << 20,
        }
    }
}

pub use wirebench_core::sections::net::{CodecCounts, CollectorStats};

struct Entry {
    id: &'static str,
    media_type: String,
    prepared: Option<Box<dyn Prepared>>,
    prepare_error: Option<String>,
    requests: AtomicU64,
    ok: AtomicU64,
    invalid: AtomicU64,
    bytes: AtomicU64,
    first_error: Mutex<Option<String>>,
}

struct State {
    entries: Vec<Entry>,
    schema: Option<Schema>,
    validate: bool,
    max_body: usize,
    requests: AtomicU64,
    unsupported: AtomicU64,
    too_large: AtomicU64,
    connections: AtomicU64,
}

impl State {
    fn new(cfg: &CollectorConfig) -> State {
        let entries = wirebench_codecs::registry()
            .iter()
            .map(|c| {
                let (prepared, prepare_error) = match c.prepare(cfg.schema.as_ref()) {
                    Ok(p) => (Some(p), None),
                    Err(e) => (None, Some(e.to_string())),
                };
                Entry {
                    id: c.info().id,
                    media_type: c.info().media_type.to_ascii_lowercase(),
                    prepared,
                    prepare_error,
                    requests: AtomicU64::new(0),
                    ok: AtomicU64::new(0),
                    invalid: AtomicU64::new(0),
                    bytes: AtomicU64::new(0),
                    first_error: Mutex::new(None),
                }
            })
            .collect();
        State {
            entries,
            schema: cfg.schema.clone(),
            validate: cfg.validate,
            max_body: cfg.max_body,
            requests: AtomicU64::new(0),
            unsupported: AtomicU64::new(0),
            too_large: AtomicU64::new(0),
            connections: AtomicU64::new(0),
        }
    }

    /// The codec a Content-Type names.
    fn lookup(&self, content_type: &str) -> Option<&Entry> {
        let lower = content_type.to_ascii_lowercase();
        let mut parts = lower.split(';').map(str::trim);
        let media = parts.next().unwrap_or("");
        let codec_param = parts.find_map(|p| p.strip_prefix("codec=")).map(|v| v.trim_matches('"').to_string());
        if let Some(id) = codec_param {
            let id = wirebench_codecs::find(&id)?.info().id;
            return self.entries.iter().find(|e| e.id == id);
        }
        self.entries.iter().find(|e| e.media_type == media)
    }

    fn snapshot(&self) -> CollectorStats {
        let mut s = CollectorStats {
            requests: self.requests.load(Ordering::Relaxed),
            unsupported_media_type: self.unsupported.load(Ordering::Relaxed),
            too_large: self.too_large.load(Ordering::Relaxed),
            connections: self.connections.load(Ordering::Relaxed),
            validated: self.validate,
            ..Default::default()
        };
        for e in &self.entries {
            let c = CodecCounts {
                requests: e.requests.load(Ordering::Relaxed),
                ok: e.ok.load(Ordering::Relaxed),
                invalid: e.invalid.load(Ordering::Relaxed),
                bytes: e.bytes.load(Ordering::Relaxed),
                first_error: e.first_error.lock().ok().and_then(|g| g.clone()),
            };
            s.ok += c.ok;
            s.invalid += c.invalid;
            s.body_bytes += c.bytes;
            if c.requests > 0 {
                s.codecs.insert(e.id.to_string(), c);
            }
        }
        s
    }

    /// Decode and validate one body; `Err(reason)` when invalid.
    fn check(&self, e: &Entry, body: &[u8]) -> Result<(), String> {
        if !self.validate {
            return Ok(());
        }
        let Some(p) = &e.prepared else {
            return Err(e.prepare_error.clone().unwrap_or_else(|| "codec unavailable".into()));
        };
        let v = p.decode(body).map_err(|err| err.to_string())?;
        if let Some(schema) = &self.schema {
            schema.check(&v).map_err(|err| err.to_string())?;
        }
        Ok(())
    }
}

fn reply(status: StatusCode, body: impl Into<hyper::body::Bytes>) -> Response<Full> {
    let mut r = Response::new(Full::new(body));
    *r.status_mut() = status;
    r
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Response<Full>, Infallible> {
    if req.method() == Method::GET {
        return Ok(match req.uri().path() {
            "/stats" => {
                let mut r = reply(StatusCode::OK, serde_json::to_vec(&state.snapshot()).unwrap_or_default());
                r.headers_mut()
                    .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
                r
            }
            "/health" => reply(StatusCode::OK, "ok\n"),
            _ => reply(StatusCode::NOT_FOUND, "not found\n"),
        });
    }
    if req.method() != Method::POST && req.method() != Method::PUT {
        return Ok(reply(StatusCode::METHOD_NOT_ALLOWED, "POST a body\n"));
    }
    state.requests.fetch_add(1, Ordering::Relaxed);
    let ct = req.headers().get(hyper::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let hint = req
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    // A declared length over the limit is refused before a byte is read.
    if hint > state.max_body {
        state.too_large.fetch_add(1, Ordering::Relaxed);
        return Ok(reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Content-Length {hint} is over the body limit of {} B\n", state.max_body),
        ));
    }
    let body = match read_body(req.into_body(), state.max_body, hint).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => {
            state.too_large.fetch_add(1, Ordering::Relaxed);
            return Ok(reply(StatusCode::PAYLOAD_TOO_LARGE, format!("body over {} B\n", state.max_body)));
        }
        Err(BodyError::Io(e)) => return Ok(reply(StatusCode::BAD_REQUEST, format!("reading body: {e}\n"))),
    };
    let Some(entry) = state.lookup(&ct) else {
        state.unsupported.fetch_add(1, Ordering::Relaxed);
        return Ok(reply(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("no codec for Content-Type {ct:?}; codecs: {}\n", wirebench_codecs::ids()),
        ));
    };
    entry.requests.fetch_add(1, Ordering::Relaxed);
    entry.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
    match state.check(entry, &body) {
        Ok(()) => {
            entry.ok.fetch_add(1, Ordering::Relaxed);
            let mut r = Response::new(Full::empty());
            *r.status_mut() = StatusCode::NO_CONTENT;
            Ok(r)
        }
        Err(reason) => {
            entry.invalid.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut g) = entry.first_error.lock() {
                g.get_or_insert_with(|| reason.clone());
            }
            Ok(reply(StatusCode::BAD_REQUEST, format!("invalid {} body: {reason}\n", entry.id)))
        }
    }
}

/// A running collector; stops when dropped.
pub struct Collector {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
    thread: Option<NsThread<Result<(), NetError>>>,
}

impl std::fmt::Debug for Collector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Collector({})", self.addr)
    }
}

impl Collector {
    /// Bind and start serving; returns once the socket is listening.
    pub fn start(cfg: CollectorConfig) -> Result<Collector, NetError> {
        if cfg.workers == 0 || cfg.workers > 64 {
            return Err(NetError::invalid("workers", format!("{} (use 1-64)", cfg.workers)));
        }
        let state = Arc::new(State::new(&cfg));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<Result<SocketAddr, NetError>>();
        let (st, sp) = (state.clone(), stop.clone());
        let listen = cfg.listen;
        let workers = cfg.workers;
        let thread = spawn_in(cfg.netns.as_deref(), "wb-collector", move || -> Result<(), NetError> {
            let bound = std::net::TcpListener::bind(listen)
                .and_then(|l| l.set_nonblocking(true).map(|_| l))
                .map_err(|e| NetError::io(format!("binding the collector on {listen}"), e));
            let listener = match bound {
                Ok(l) => l,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return Ok(());
                }
            };
            let rt = if workers == 1 {
                tokio::runtime::Builder::new_current_thread().enable_all().build()
            } else {
                tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()
            }
            .map_err(|e| NetError::io("starting the collector runtime", e))?;
            let addr = listener.local_addr().map_err(|e| NetError::io("collector address", e))?;
            rt.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = tx.send(Err(NetError::io("collector listener", e)));
                        return;
                    }
                };
                let _ = tx.send(Ok(addr));
                let mut http = hyper::server::conn::http1::Builder::new();
                http.keep_alive(true);
                while !sp.load(Ordering::Relaxed) {
                    let accepted = tokio::time::timeout(Duration::from_millis(50), listener.accept()).await;
                    let Ok(Ok((stream, _))) = accepted else {
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    st.connections.fetch_add(1, Ordering::Relaxed);
                    let st2 = st.clone();
                    let conn = http
                        .serve_connection(Io(stream), hyper::service::service_fn(move |req| handle(st2.clone(), req)));
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                }
            });
            // Dropping the runtime cancels every connection task.
            rt.shutdown_timeout(Duration::from_millis(200));
            Ok(())
        })?;
        let addr = match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                // The thread ended without reporting (setns failed, or it panicked).
                return Err(match thread.join() {
                    Ok(Err(e)) | Err(e) => e,
                    Ok(Ok(())) => NetError::Timeout { what: "collector start".into(), after: Duration::from_secs(10) },
                });
            }
        };
        Ok(Collector { addr, state, stop, thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn stats(&self) -> CollectorStats {
        self.state.snapshot()
    }

    /// Stop and return the final counters.
    pub fn stop(mut self) -> CollectorStats {
        self.shutdown();
        self.state.snapshot()
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        self.shutdown();
    }
}
