//! The `tcp` part (seed 003): fixed-cadence TCP request/response.
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
use std::time::Duration;

use wirebench_core::part::{Part, PartError};
use wirebench_core::sections::net::{
    EchoBytes, TcpCodecRun, TcpEchoRun, TcpFailed, TcpRun, TcpSection, TcpSkipped, WorkloadInfo,
};
use wirebench_measure::workload::{codec_ids, Workload};

use super::{check_payloads, part_error, seed003_published};
use crate::emu::{EmuConfig, Emulator, LinkParams, TCP_OVERHEAD};
use crate::lab::{self, Lab};
use crate::profile::{format_rate, parse_rate, LabProfile};
use crate::rr::{self, EchoConfig, EchoServer, RrConfig, RrServer};
use crate::NetError;

/// One more sweep of a study: links × formats (study files only).
#[derive(serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpSweep {
    pub links: Vec<String>,
    pub formats: Vec<String>,
    #[serde(default)]
    pub count: Option<usize>,
}

/// The options of this part in a study file (and of the command).
#[derive(clap::Args, serde::Deserialize, serde::Serialize, Debug, Default, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct TcpOpts {
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
    /// The messages (`--corpus`, `--samples`) and their schema (`--schema`, `--type`, `-I`).
    #[command(flatten)]
    #[serde(flatten)]
    pub inputs: wirebench_measure::study::inputs::Inputs,
    /// More sweeps (study files only): `[[tcp.sweeps]] links = [..] formats = [..] count = 100`.
    #[arg(skip)]
    pub sweeps: Vec<TcpSweep>,
}

/// The `[tcp]` part.
pub struct TcpPart;

impl Part for TcpPart {
    const NAME: &'static str = "tcp";
    type Options = TcpOpts;
    type Section = TcpSection;

    fn validate(opts: &TcpOpts) -> Result<(), PartError> {
        plan(opts).map(|_| ())
    }

    fn run(opts: &TcpOpts) -> Result<TcpSection, PartError> {
        measure(opts, plan(opts)?)
    }
}

/// A link of a run.
#[derive(Clone, Debug, PartialEq)]
enum Link {
    Loopback,
    Emulated(u64),
    Tbf(u64),
}

impl Link {
    fn parse(s: &str) -> Result<Link, PartError> {
        let t = s.trim().to_ascii_lowercase();
        if t == "loopback" || t == "lo" {
            return Ok(Link::Loopback);
        }
        if let Some(r) = t.strip_prefix("tbf:") {
            return Ok(Link::Tbf(parse_rate(r).map_err(part_error)?));
        }
        let r = t.strip_prefix("emu:").unwrap_or(&t);
        if !r.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(PartError::bad(format!(
                "unknown link {s:?} (use loopback, a rate such as 1mbit, or tbf:<rate>)"
            )));
        }
        Ok(Link::Emulated(parse_rate(r).map_err(part_error)?))
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

    fn rate(&self) -> Option<u64> {
        match self {
            Link::Emulated(r) | Link::Tbf(r) => Some(*r),
            Link::Loopback => None,
        }
    }
}

/// One sweep, checked: links × formats (codec ids, or the one echo label), messages per run.
struct Sweep {
    links: Vec<Link>,
    formats: Vec<String>,
    count: usize,
}

/// The checked options: cadence, propagation delay, warm-up, and the sweeps.
struct Plan {
    cadence_ms: f64,
    cadence: Duration,
    delay_ms: f64,
    delay: Duration,
    warmup: usize,
    sweeps: Vec<Sweep>,
}

fn plan(opts: &TcpOpts) -> Result<Plan, PartError> {
    crate::study::check_messages(opts.messages)?;
    let cadence_ms = opts.cadence_ms.unwrap_or(50.0);
    // A cadence between 0 and 1 µs is no cadence a timer keeps (1e-320 ms was taken as one).
    if !(cadence_ms == 0.0 || (0.001..=60_000.0).contains(&cadence_ms)) {
        return Err(PartError::bad(format!("cadence {cadence_ms:?} ms: use 0 (back to back) or 0.001-60000")));
    }
    let delay_ms = opts.delay_ms.unwrap_or(0.0);
    if !(delay_ms == 0.0 || (0.001..=10_000.0).contains(&delay_ms)) {
        return Err(PartError::bad(format!("delay {delay_ms:?} ms: use 0 or 0.001-10000")));
    }
    let count = opts.count.unwrap_or(200);
    let warmup = opts.warmup.unwrap_or(10);
    let check_count = |n: usize| -> Result<(), PartError> {
        if n == 0 || n.saturating_add(warmup) > 1_000_000 {
            return Err(PartError::bad(format!("count {n} + warmup {warmup}: use 1 to 1,000,000 messages in all")));
        }
        Ok(())
    };
    check_count(count)?;
    if let Some(n) = opts.echo_bytes {
        if n == 0 || n > 16 << 20 {
            return Err(PartError::bad(format!("echo size {n} B: use 1 B to 16 MiB")));
        }
    }
    let main_formats =
        if opts.formats.is_empty() { vec!["json".to_string(), "protobuf".to_string()] } else { opts.formats.clone() };
    let links = |v: &[String]| -> Result<Vec<Link>, PartError> {
        if v.is_empty() {
            Ok(vec![Link::Loopback])
        } else {
            v.iter().map(|l| Link::parse(l)).collect()
        }
    };
    let formats = |f: &[String]| -> Result<Vec<String>, PartError> {
        match opts.echo_bytes {
            Some(n) => Ok(vec![format!("echo-{n}B")]),
            None => codec_ids(f).map_err(part_error),
        }
    };
    let mut sweeps = vec![Sweep { links: links(&opts.links)?, formats: formats(&main_formats)?, count }];
    for s in &opts.sweeps {
        let n = s.count.unwrap_or(count);
        check_count(n)?;
        sweeps.push(Sweep { links: links(&s.links)?, formats: formats(&s.formats)?, count: n });
    }
    check_payloads(opts.inputs.corpus.as_deref(), &opts.inputs.samples, &opts.inputs.schema)?;
    Ok(Plan {
        cadence_ms,
        cadence: Duration::from_secs_f64(cadence_ms / 1e3),
        delay_ms,
        delay: Duration::from_secs_f64(delay_ms / 1e3),
        warmup,
        sweeps,
    })
}

/// The note on how encode/decode times were measured (codec runs).
const CODEC_PATH_NOTE: &str = "encode/decode times are the dynamic path (schema-directed codecs on a wirebench value, \
    as for user samples), per message at the cadence (cold caches); generated types (the seed's protoc Dart classes) \
    are usually faster — `wirebench speed` measures the typed path for the built-in corpora";

/// Why a run did not give a result.
enum RunError {
    /// A codec that cannot run this workload: recorded, not fatal.
    Codec(String),
    /// Anything else ends the part.
    Part(PartError),
}

impl From<PartError> for RunError {
    fn from(e: PartError) -> RunError {
        RunError::Part(e)
    }
}

/// A crate error of one run: codec errors are the run's, the rest the part's.
fn run_error(e: NetError) -> RunError {
    match e {
        e @ NetError::Codec { .. } => RunError::Codec(e.to_string()),
        e => RunError::Part(part_error(e)),
    }
}

/// Run the sweeps into the `tcp` section (the options are checked).
fn measure(opts: &TcpOpts, plan: Plan) -> Result<TcpSection, PartError> {
    let messages = opts.messages.unwrap_or(64).clamp(1, 10_000);
    let workload =
        Workload::pick(&opts.inputs.samples, opts.inputs.corpus.as_deref(), messages, 7, &opts.inputs.schema)
            .map_err(part_error)?;
    let mut notes: Vec<String> = Vec::new();
    if opts.echo_bytes.is_none() {
        notes.push(CODEC_PATH_NOTE.into());
    }
    let lab_ok = lab::available();
    let mut runs = Vec::new();
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    for sweep in &plan.sweeps {
        for link in &sweep.links {
            if let (Link::Tbf(_), Err(e)) = (link, &lab_ok) {
                let msg = format!("{}: skipped, the netns lab is not available ({e})", link.label());
                if !notes.contains(&msg) {
                    notes.push(msg);
                }
                skipped.push(TcpSkipped { link: link.label(), reason: e.to_string() });
                continue;
            }
            let lab_guard = match link {
                Link::Tbf(r) => Some(
                    Lab::up(&lab::unique_id(), &LabProfile::symmetric(*r).map_err(part_error)?).map_err(part_error)?,
                ),
                _ => None,
            };
            for f in &sweep.formats {
                let one = One {
                    link,
                    format: f,
                    count: sweep.count,
                    plan: &plan,
                    workload: &workload,
                    echo_bytes: opts.echo_bytes,
                    lab: lab_guard.as_ref(),
                };
                match one.run() {
                    Ok(run) => {
                        let rtt = run.rtt();
                        eprintln!("  {} {f}: RTT p50 {:.0} µs, p99 {:.0} µs", link.label(), rtt.p50_us, rtt.p99_us);
                        runs.push(run)
                    }
                    Err(RunError::Codec(error)) => {
                        failed.push(TcpFailed { link: link.label(), format: f.clone(), error })
                    }
                    Err(RunError::Part(e)) => return Err(e),
                }
            }
            if let Some(l) = lab_guard {
                l.down().map_err(part_error)?;
            }
        }
    }
    let workload_name = if opts.echo_bytes.is_some() { "echo".to_string() } else { workload.name.clone() };
    Ok(TcpSection {
        cadence_ms: plan.cadence_ms,
        delay_ms: plan.delay_ms,
        warmup: plan.warmup,
        workload: WorkloadInfo { name: workload_name, messages: workload.messages.len() },
        notes,
        runs,
        failed,
        skipped,
        published: seed003_published(),
    })
}

/// The server of a run.
enum Server {
    Rr(RrServer),
    Echo(EchoServer),
}

/// One link × format run.
struct One<'a> {
    link: &'a Link,
    format: &'a str,
    count: usize,
    plan: &'a Plan,
    workload: &'a Workload,
    echo_bytes: Option<usize>,
    lab: Option<&'a Lab>,
}

impl One<'_> {
    /// The serialization time of `bytes` of payload in one packet on the link, µs.
    fn serialization_us(&self, bytes: f64) -> Option<f64> {
        self.link.rate().map(|r| (bytes + TCP_OVERHEAD as f64) * 8.0 / r as f64 * 1e6)
    }

    fn delay_us(&self) -> f64 {
        self.plan.delay.as_secs_f64() * 1e6
    }

    /// The note of a TBF run whose model RTT is `model`.
    fn tbf_note(&self, model: Option<f64>) -> Option<String> {
        match (self.link, model) {
            (Link::Tbf(_), Some(m)) => Some(format!(
                "TBF: a full bucket passes a sporadic message at line speed, so the serialization time the link rate \
                 implies ({m:.0} µs) does not show up (spec §1.6); use the emulated link for it"
            )),
            _ => None,
        }
    }

    fn run(&self) -> Result<TcpRun, RunError> {
        let listen: SocketAddr = match self.lab {
            Some(_) => SocketAddr::new(lab::ADDR_B.into(), 0),
            None => SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let ns_b = self.lab.map(|l| l.ns_b().to_string());
        let server = match self.echo_bytes {
            Some(_) => {
                Server::Echo(EchoServer::start(listen, ns_b.as_deref()).map_err(|e| RunError::Part(part_error(e)))?)
            }
            None => Server::Rr(
                RrServer::start(listen, self.format, Some(self.workload.schema.clone()), ns_b.as_deref())
                    .map_err(run_error)?,
            ),
        };
        let server_addr = match &server {
            Server::Rr(s) => s.addr(),
            Server::Echo(s) => s.addr(),
        };
        // Where the client connects; the emulator (if any) lives as long as the run.
        let (addr, netns, _emu) = match self.link {
            Link::Loopback => (server_addr, None, None),
            Link::Emulated(rate) => {
                let p = LinkParams { delay: self.plan.delay, ..LinkParams::rate(*rate) };
                let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
                let e = Emulator::tcp(loopback, server_addr, EmuConfig::symmetric(p))
                    .map_err(|e| RunError::Part(part_error(e)))?;
                (e.local_addr(), None, Some(e))
            }
            Link::Tbf(_) => (server_addr, self.lab.map(|l| l.ns_a().to_string()), None),
        };
        match (self.echo_bytes, &server) {
            (Some(size), _) => self.echo(size, addr, netns).map(TcpRun::Echo),
            (None, Server::Rr(s)) => self.codec(addr, netns, s).map(TcpRun::Codec),
            (None, Server::Echo(_)) => Err(RunError::Part(PartError::failed("an echo server for a codec run"))),
        }
    }

    fn echo(&self, size: usize, addr: SocketAddr, netns: Option<String>) -> Result<TcpEchoRun, RunError> {
        let r = rr::echo(&EchoConfig {
            addr,
            size,
            count: self.count,
            warmup: self.plan.warmup,
            cadence: self.plan.cadence,
            timeout: Duration::from_secs(10),
            netns,
            configured_delay: self.plan.delay,
        })
        .map_err(|e| RunError::Part(part_error(e)))?;
        let model = self.serialization_us(size as f64).map(|s| 2.0 * s + 2.0 * self.delay_us());
        let warnings = unexplained(r.warnings, r.rtt.p50_us, model);
        Ok(TcpEchoRun {
            link: self.link.label(),
            path: self.link.path().into(),
            rate_bps: self.link.rate(),
            format: self.format.into(),
            count: self.count,
            bytes: EchoBytes { mean: size, min: size, max: size },
            rtt: r.rtt,
            model_rtt_us: model,
            warnings,
            media_type: "application/octet-stream".into(),
            note: self.tbf_note(model),
        })
    }

    fn codec(&self, addr: SocketAddr, netns: Option<String>, server: &RrServer) -> Result<TcpCodecRun, RunError> {
        let w = self.workload;
        let mut cfg = RrConfig::new(addr, self.format, Some(w.schema.clone()), w.messages.clone());
        cfg.count = self.count;
        cfg.warmup = self.plan.warmup;
        cfg.cadence = self.plan.cadence;
        cfg.timeout = Duration::from_secs(10);
        cfg.netns = netns;
        cfg.configured_delay = self.plan.delay;
        cfg.keep_samples = true;
        let r = rr::run(&cfg).map_err(run_error)?;
        let (server_decoded, server_failed) = server.counts();
        // Up: 4-byte frame header + payload; down: the 17-byte ack.
        let model = self
            .serialization_us(r.bytes.mean + 4.0)
            .zip(self.serialization_us(17.0))
            .map(|(u, d)| u + d + 2.0 * self.delay_us());
        let warnings = unexplained(r.warnings, r.rtt.p50_us, model);
        let rtt_samples_us: Vec<f64> = r.samples.iter().map(|s| (s.rtt_us * 10.0).round() / 10.0).collect();
        let rtt_cdf_ms = rtt_cdf_ms(&rtt_samples_us);
        Ok(TcpCodecRun {
            link: self.link.label(),
            path: self.link.path().into(),
            rate_bps: self.link.rate(),
            format: self.format.into(),
            count: r.count,
            codec: r.codec,
            media_type: r.media_type,
            cadence_ms: r.cadence_ms,
            bytes: r.bytes,
            rtt: r.rtt,
            encode_us: r.encode_us,
            server_decode_us: r.server_decode_us,
            client_decode_us: r.client_decode_us,
            payload_bytes_per_sec: r.payload_bytes_per_sec,
            decode_failures: r.decode_failures,
            round_trip_exact: r.round_trip_exact,
            warnings,
            rtt_samples_us,
            rtt_cdf_ms,
            model_rtt_us: model,
            server_decoded,
            server_failed,
            note: self.tbf_note(model),
        })
    }
}

/// The run's warnings without a Nagle-stall warning that the link's serialization model
/// explains (RTT p50 within 10 % of the model: a slow link, not a stall).
fn unexplained(warnings: Vec<String>, p50_us: f64, model_us: Option<f64>) -> Vec<String> {
    let explained = model_us.is_some_and(|m| m > 0.0 && (p50_us / m - 1.0).abs() < 0.10);
    warnings.into_iter().filter(|w| !(explained && w.contains("Nagle"))).collect()
}

/// The RTT distribution of a run, from its samples (µs) to points in ms.
fn rtt_cdf_ms(samples_us: &[f64]) -> Vec<(f64, f64)> {
    let ms: Vec<f64> = samples_us.iter().map(|x| x / 1e3).collect();
    wirebench_measure::stats::cdf_points(&ms, 400)
}

/// Add the RTT distributions that files written before they were part of the section lack.
pub fn complete(section: &mut wirebench_core::sections::net::TcpSection) {
    for run in &mut section.runs {
        if let wirebench_core::sections::net::TcpRun::Codec(c) = run {
            if c.rtt_cdf_ms.is_empty() && !c.rtt_samples_us.is_empty() {
                c.rtt_cdf_ms = rtt_cdf_ms(&c.rtt_samples_us);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_the_link_model_explains_is_not_a_stall() {
        let w = vec![
            "RTT p50 40.1 ms is near 40 ms: a Nagle + delayed-ACK stall (TCP_NODELAY missing somewhere?)".to_string(),
            "other".to_string(),
        ];
        assert_eq!(unexplained(w.clone(), 40_100.0, Some(39_700.0)), vec!["other".to_string()]);
        assert_eq!(unexplained(w.clone(), 40_100.0, Some(20_000.0)).len(), 2);
        assert_eq!(unexplained(w, 40_100.0, None).len(), 2);
    }

    #[test]
    fn links_parse_and_label() {
        assert_eq!(Link::parse("lo").unwrap(), Link::Loopback);
        assert_eq!(Link::parse("1mbit").unwrap(), Link::Emulated(1_000_000));
        assert_eq!(Link::parse("emu:250kbit").unwrap(), Link::Emulated(250_000));
        let tbf = Link::parse("TBF:1mbit").unwrap();
        assert_eq!((tbf.label(), tbf.path(), tbf.rate()), ("tbf:1mbit".to_string(), "lab-tbf", Some(1_000_000)));
        assert!(matches!(Link::parse("wifi"), Err(PartError::BadInput(m)) if m.starts_with("unknown link \"wifi\"")));
    }

    #[test]
    fn plans_check_every_option() {
        let p = plan(&TcpOpts::default()).unwrap();
        assert_eq!((p.cadence_ms, p.warmup, p.sweeps[0].count), (50.0, 10, 200));
        assert_eq!(p.sweeps[0].formats, vec!["json", "protobuf"]);
        let p = plan(&TcpOpts { echo_bytes: Some(400), ..Default::default() }).unwrap();
        assert_eq!(p.sweeps[0].formats, vec!["echo-400B"]);
        let bad = |o: TcpOpts| match plan(&o) {
            Err(PartError::BadInput(m)) => m,
            Err(e) => panic!("not bad input: {e}"),
            Ok(_) => panic!("accepted"),
        };
        assert!(bad(TcpOpts { cadence_ms: Some(-1.0), ..Default::default() }).starts_with("cadence -1"));
        assert!(bad(TcpOpts { count: Some(0), ..Default::default() }).starts_with("count 0"));
        assert!(bad(TcpOpts { count: Some(usize::MAX), ..Default::default() }).starts_with("count "));
        assert!(bad(TcpOpts { echo_bytes: Some(0), ..Default::default() }).starts_with("echo size 0"));
        let sweep = TcpSweep { links: vec![], formats: vec!["json".into()], count: Some(0) };
        assert!(bad(TcpOpts { sweeps: vec![sweep], ..Default::default() }).starts_with("count 0"));
    }

    #[test]
    fn a_loopback_echo_run_reports_its_model_and_shape() {
        let opts = TcpOpts {
            echo_bytes: Some(64),
            count: Some(5),
            warmup: Some(1),
            cadence_ms: Some(1.0),
            ..Default::default()
        };
        let s = TcpPart::run(&opts).unwrap();
        assert_eq!(s.workload.name, "echo");
        let TcpRun::Echo(r) = &s.runs[0] else { panic!("an echo run") };
        assert_eq!((r.format.as_str(), r.count, r.bytes.mean, r.model_rtt_us), ("echo-64B", 5, 64, None));
        // Keys in the order results files have (sorted), the echo shape without codec fields.
        let text = serde_json::to_string(&s.runs[0]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "{text}");
        assert!(!keys.contains(&"codec") && keys.contains(&"media_type"));
        assert!(text.starts_with("{\"bytes\":{\"max\":64,\"mean\":64,\"min\":64},\"count\":5,"), "{text}");
    }
}
