//! Fixed-cadence TCP request/response (seed 003): `wirebench tcp ...` and the [tcp] study part.
//!
//! A client sends one encoded message every `--cadence-ms` (default 50) over a `TCP_NODELAY`
//! connection, length-prefixed; the server decodes it with the same codec and acks. Per format:
//! encoded size, RTT (p50/p90/p99, mean, stddev, RFC 3550 jitter, mean IPDV), encode time on
//! the client, decode time on the server and on the client.
//!
//! Links (`--link`, comma-separated):
//!
//! - `loopback` (default): straight to the server;
//! - a rate (`1mbit`, `250kbit`, …): through the userspace link emulator, which gives every
//!   packet its serialization delay `(bytes + 66) · 8 / rate` (plus `--delay-ms` each way) —
//!   the model RTT is recorded beside the measured one; no root needed;
//! - `tbf:<rate>`: through the netns lab with TBF (root); shown to make the point of spec
//!   §1.6: a full token bucket lets a sporadic message through at line speed.
//!
//! `--echo-bytes N` sends N raw bytes and times their echo instead (spec §5 goal 5: 400 B
//! every 50 ms over 1 Mbit must take ≥ 2 × 466 · 8 / 1e6 s = 7.46 ms).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value as Json};
use wirebench_core::results::Results;
use wirebench_net::emu::{EmuConfig, Emulator, LinkParams, TCP_OVERHEAD};
use wirebench_net::lab::{self, Lab};
use wirebench_net::profile::{format_rate, parse_rate, LabProfile};
use wirebench_net::rr::{self, EchoConfig, EchoServer, RrConfig, RrServer};
use wirebench_net::workload::{codec_ids, Workload};
use wirebench_net::{published, NetError};

use crate::common::*;
use crate::OutputArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub opts: StudyOpts,
    #[arg(long, short = 'o', value_enum, default_value_t = OutputArg::Table)]
    pub output: OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// One more sweep of a study: links × formats (study files only).
#[derive(serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub links: Vec<String>,
    pub formats: Vec<String>,
    #[serde(default)]
    pub count: Option<usize>,
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct StudyOpts {
    /// Formats, comma-separated (default: json,protobuf as seed 003); `all` = the zoo.
    #[arg(long, short = 'f', value_delimiter = ',')]
    pub formats: Vec<String>,
    /// Links: loopback, a rate (emulated in userspace, e.g. 1mbit) or tbf:<rate> (netns lab, root).
    #[arg(long = "link", value_delimiter = ',')]
    pub links: Vec<String>,
    /// Time between messages in ms (default 50; 0 = back to back).
    #[arg(long)]
    pub cadence_ms: Option<f64>,
    /// Messages measured per format and link (default 200).
    #[arg(long)]
    pub count: Option<usize>,
    /// Messages sent before measuring (default 10).
    #[arg(long)]
    pub warmup: Option<usize>,
    /// One-way propagation delay added by the emulator, ms.
    #[arg(long)]
    pub delay_ms: Option<f64>,
    /// Echo N raw bytes instead of encoded messages (no codec).
    #[arg(long)]
    pub echo_bytes: Option<usize>,
    /// Distinct EV messages sent in turn (default 64).
    #[arg(long)]
    pub messages: Option<usize>,
    /// A built-in corpus instead of the EV telemetry message.
    #[arg(long, conflicts_with = "samples")]
    pub corpus: Option<String>,
    /// Sample files (.json / .ndjson) instead of the EV telemetry message.
    #[arg(long, num_args = 1..)]
    pub samples: Vec<PathBuf>,
    /// More sweeps (study files only): `[[tcp.sweeps]] links = [..] formats = [..] count = 100`.
    #[arg(skip)]
    pub sweeps: Vec<Sweep>,
}

#[derive(Clone, Debug, PartialEq)]
enum Link {
    Loopback,
    Emulated(u64),
    Tbf(u64),
}

impl Link {
    fn parse(s: &str) -> Result<Link> {
        let t = s.trim().to_ascii_lowercase();
        if t == "loopback" || t == "lo" {
            return Ok(Link::Loopback);
        }
        if let Some(r) = t.strip_prefix("tbf:") {
            return Ok(Link::Tbf(parse_rate(r).map_err(net)?));
        }
        let r = t.strip_prefix("emu:").unwrap_or(&t);
        if !r.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(bad(format!("unknown link {s:?} (use loopback, a rate such as 1mbit, or tbf:<rate>)")));
        }
        Ok(Link::Emulated(parse_rate(r).map_err(net)?))
    }

    fn label(&self) -> String {
        match self {
            Link::Loopback => "loopback".into(),
            Link::Emulated(r) => format_rate(*r),
            Link::Tbf(r) => format!("tbf:{}", format_rate(*r)),
        }
    }

    fn path(&self) -> &'static str {
        match self {
            Link::Loopback => "loopback",
            Link::Emulated(_) => "emulator",
            Link::Tbf(_) => "lab-tbf",
        }
    }
}

fn net(e: NetError) -> anyhow::Error {
    match e {
        NetError::Io { .. } | NetError::Worker(..) | NetError::Command { .. } => anyhow::Error::new(e),
        other => bad(other.to_string()),
    }
}

/// Where the client connects, and what keeps the path up.
struct Route {
    addr: SocketAddr,
    netns: Option<String>,
    _emu: Option<Emulator>,
}

/// Run the part; the value becomes the `tcp` results section.
/// The checked options: cadence, propagation delay, warm-up, and the sweeps (links, formats,
/// count).
struct Plan {
    cadence_ms: f64,
    cadence: Duration,
    delay_ms: f64,
    delay: Duration,
    warmup: usize,
    sweeps: Vec<(Vec<Link>, Vec<String>, usize)>,
}

fn plan(opts: &StudyOpts) -> Result<Plan> {
    let cadence_ms = opts.cadence_ms.unwrap_or(50.0);
    if !(0.0..=60_000.0).contains(&cadence_ms) {
        return Err(bad(format!("cadence {cadence_ms} ms: use 0-60000")));
    }
    let cadence = Duration::from_secs_f64(cadence_ms / 1e3);
    let delay_ms = opts.delay_ms.unwrap_or(0.0);
    if !(0.0..=10_000.0).contains(&delay_ms) {
        return Err(bad(format!("delay {delay_ms} ms: use 0-10000")));
    }
    let delay = Duration::from_secs_f64(delay_ms / 1e3);
    let count = opts.count.unwrap_or(200);
    let warmup = opts.warmup.unwrap_or(10);
    let check_count = |n: usize| -> Result<()> {
        if n == 0 || n + warmup > 1_000_000 {
            return Err(bad(format!("count {n}: use 1 to 1,000,000 messages")));
        }
        Ok(())
    };
    check_count(count)?;
    if let Some(n) = opts.echo_bytes {
        if n == 0 || n > 16 << 20 {
            return Err(bad(format!("echo size {n} B: use 1 B to 16 MiB")));
        }
    }
    let default_formats = vec!["json".to_string(), "protobuf".to_string()];
    let main_formats = if opts.formats.is_empty() { default_formats } else { opts.formats.clone() };
    let links = |v: &[String]| -> Result<Vec<Link>> {
        if v.is_empty() {
            Ok(vec![Link::Loopback])
        } else {
            v.iter().map(|l| Link::parse(l)).collect()
        }
    };
    let mut sweeps: Vec<(Vec<Link>, Vec<String>, usize)> = Vec::new();
    let fmts = |f: &[String]| -> Result<Vec<String>> {
        if opts.echo_bytes.is_some() {
            Ok(vec![format!("echo-{}B", opts.echo_bytes.unwrap())])
        } else {
            codec_ids(f).map_err(net)
        }
    };
    sweeps.push((links(&opts.links)?, fmts(&main_formats)?, count));
    for s in &opts.sweeps {
        let n = s.count.unwrap_or(count);
        check_count(n)?;
        sweeps.push((links(&s.links)?, fmts(&s.formats)?, n));
    }
    check_payloads(opts.corpus.as_deref(), &opts.samples, None)?;
    Ok(Plan { cadence_ms, cadence, delay_ms, delay, warmup, sweeps })
}

/// Check the options before anything runs (also the `[tcp]` part of a study).
pub fn validate(opts: &StudyOpts) -> Result<()> {
    plan(opts).map(|_| ())
}

pub fn measure(opts: &StudyOpts) -> Result<Json> {
    let Plan { cadence_ms, cadence, delay_ms, delay, warmup, sweeps } = plan(opts)?;
    let workload =
        Workload::pick(&opts.samples, opts.corpus.as_deref(), opts.messages.unwrap_or(64).clamp(1, 10_000), 7).map_err(net)?;
    let mut notes: Vec<String> = Vec::new();
    if opts.echo_bytes.is_none() {
        notes.push(
            "encode/decode times are the dynamic path (schema-directed codecs on a wirebench value, as for user \
             samples), per message at the cadence (cold caches); generated types (the seed's protoc Dart classes) are \
             usually faster — `wirebench speed` measures the typed path for the built-in corpora"
                .into(),
        );
    }
    let lab_ok = lab::available();
    let mut runs = Vec::new();
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    for (links, formats, n) in &sweeps {
        for link in links {
            if let (Link::Tbf(_), Err(e)) = (link, &lab_ok) {
                let msg = format!("{}: skipped, the netns lab is not available ({e})", link.label());
                if !notes.contains(&msg) {
                    notes.push(msg);
                }
                skipped.push(json!({"link": link.label(), "reason": e.to_string()}));
                continue;
            }
            let lab_guard = match link {
                Link::Tbf(r) => Some(Lab::up(&lab::unique_id(), &LabProfile::symmetric(*r).map_err(net)?).map_err(net)?),
                _ => None,
            };
            for f in formats {
                let r = one(link, f, *n, warmup, cadence, delay, &workload, opts.echo_bytes, lab_guard.as_ref());
                match r {
                    Ok(v) => {
                        eprintln!(
                            "  {} {f}: RTT p50 {:.0} µs, p99 {:.0} µs",
                            link.label(),
                            v["rtt"]["p50_us"].as_f64().unwrap_or(0.0),
                            v["rtt"]["p99_us"].as_f64().unwrap_or(0.0)
                        );
                        runs.push(v)
                    }
                    Err(e) if e.chain().any(|c| c.is::<Failed>()) => {
                        failed.push(json!({"link": link.label(), "format": f, "error": e.to_string()}))
                    }
                    Err(e) => return Err(e),
                }
            }
            if let Some(l) = lab_guard {
                l.down().map_err(net)?;
            }
        }
    }
    Ok(json!({
        "cadence_ms": cadence_ms,
        "delay_ms": delay_ms,
        "warmup": warmup,
        "workload": {"name": if opts.echo_bytes.is_some() { "echo".to_string() } else { workload.name.clone() }, "messages": workload.messages.len()},
        "notes": notes,
        "runs": runs,
        "failed": failed,
        "skipped": skipped,
        "published": {
            "source": published::SEED003_SOURCE,
            "initial": published::SEED003_INITIAL,
            "final": published::SEED003_FINAL,
            "notes": published::seed003_notes(),
        },
    }))
}

/// A codec that cannot run this workload (recorded, not fatal).
#[derive(Debug)]
struct Failed(String);
impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Failed {}

#[allow(clippy::too_many_arguments)]
fn one(
    link: &Link,
    format: &str,
    count: usize,
    warmup: usize,
    cadence: Duration,
    delay: Duration,
    w: &Workload,
    echo_bytes: Option<usize>,
    lab: Option<&Lab>,
) -> Result<Json> {
    let listen: SocketAddr = match lab {
        Some(_) => SocketAddr::new(lab::ADDR_B.into(), 0),
        None => "127.0.0.1:0".parse().unwrap(),
    };
    let ns_b = lab.map(|l| l.ns_b().to_string());
    // The server.
    enum Server {
        Rr(RrServer),
        Echo(EchoServer),
    }
    let server = match echo_bytes {
        Some(_) => Server::Echo(EchoServer::start(listen, ns_b.as_deref()).map_err(net)?),
        None => match RrServer::start(listen, format, Some(w.schema.clone()), ns_b.as_deref()) {
            Ok(s) => Server::Rr(s),
            Err(e @ NetError::Codec { .. }) => return Err(anyhow::Error::new(Failed(e.to_string()))),
            Err(e) => return Err(net(e)),
        },
    };
    let server_addr = match &server {
        Server::Rr(s) => s.addr(),
        Server::Echo(s) => s.addr(),
    };
    let route = match link {
        Link::Loopback => Route { addr: server_addr, netns: None, _emu: None },
        Link::Emulated(rate) => {
            let p = LinkParams { delay, ..LinkParams::rate(*rate) };
            let e = Emulator::tcp("127.0.0.1:0".parse().unwrap(), server_addr, EmuConfig::symmetric(p)).map_err(net)?;
            Route { addr: e.local_addr(), netns: None, _emu: Some(e) }
        }
        Link::Tbf(_) => Route { addr: server_addr, netns: lab.map(|l| l.ns_a().to_string()), _emu: None },
    };
    let rate = match link {
        Link::Emulated(r) | Link::Tbf(r) => Some(*r),
        Link::Loopback => None,
    };
    let ser_us = |bytes: f64| rate.map(|r| (bytes + TCP_OVERHEAD as f64) * 8.0 / r as f64 * 1e6);
    let mut out = json!({
        "link": link.label(),
        "path": link.path(),
        "rate_bps": rate,
        "format": format,
        "count": count,
    });
    match echo_bytes {
        Some(size) => {
            let r = rr::echo(&EchoConfig {
                addr: route.addr,
                size,
                count,
                warmup,
                cadence,
                timeout: Duration::from_secs(10),
                netns: route.netns.clone(),
                configured_delay: delay,
            })
            .map_err(net)?;
            let model = ser_us(size as f64).map(|s| 2.0 * s + 2.0 * delay.as_secs_f64() * 1e6);
            out["bytes"] = json!({"mean": size, "min": size, "max": size});
            out["rtt"] = serde_json::to_value(&r.rtt)?;
            out["model_rtt_us"] = json!(model);
            out["warnings"] = json!(r.warnings);
            out["media_type"] = json!("application/octet-stream");
        }
        None => {
            let mut cfg = RrConfig::new(route.addr, format, Some(w.schema.clone()), w.messages.clone());
            cfg.count = count;
            cfg.warmup = warmup;
            cfg.cadence = cadence;
            cfg.timeout = Duration::from_secs(10);
            cfg.netns = route.netns.clone();
            cfg.configured_delay = delay;
            cfg.keep_samples = true;
            let r = match rr::run(&cfg) {
                Ok(r) => r,
                Err(e @ NetError::Codec { .. }) => return Err(anyhow::Error::new(Failed(e.to_string()))),
                Err(e) => return Err(net(e)),
            };
            let server_counts = match &server {
                Server::Rr(s) => s.counts(),
                Server::Echo(_) => (0, 0),
            };
            // Up: 4-byte frame header + payload; down: the 17-byte ack.
            let model = ser_us(r.bytes.mean + 4.0)
                .zip(ser_us(17.0))
                .map(|(u, d)| u + d + 2.0 * delay.as_secs_f64() * 1e6);
            let rtts: Vec<f64> = r.samples.iter().map(|s| (s.rtt_us * 10.0).round() / 10.0).collect();
            let mut v = serde_json::to_value(&r)?;
            if let Some(m) = v.as_object_mut() {
                m.remove("samples");
            }
            for (k, val) in v.as_object().cloned().unwrap_or_default() {
                out[k] = val;
            }
            out["format"] = json!(format);
            out["link"] = json!(link.label());
            out["count"] = json!(r.count);
            out["rtt_samples_us"] = json!(rtts);
            out["model_rtt_us"] = json!(model);
            out["server_decoded"] = json!(server_counts.0);
            out["server_failed"] = json!(server_counts.1);
        }
    }
    if let (Link::Tbf(_), Some(m)) = (link, out["model_rtt_us"].as_f64()) {
        out["note"] = json!(format!(
            "TBF: a full bucket passes a sporadic message at line speed, so the serialization time the link rate \
             implies ({m:.0} µs) does not show up (spec §1.6); use the emulated link for it"
        ));
    }
    drop(route);
    drop(server);
    Ok(out)
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let section = measure(&args.opts)?;
    let mut results = Results::new(provenance(0), json!({"measurement": "tcp", "options": &args.opts}));
    results.tcp = Some(section);
    if let Some(out) = &args.out {
        results.write_atomic(out).map_err(|e| bad(e.to_string()))?;
    }
    let text = match args.output {
        OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => wirebench_report::net::render_tcp(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}
