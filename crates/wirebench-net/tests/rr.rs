//! TCP request/response with the EV message (seed 003), on loopback and through the emulator.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use wirebench_measure::ev::{ev_schema, ev_series};
use wirebench_net::emu::{EmuConfig, Emulator, LinkParams};
use wirebench_net::rr::{self, RrConfig, RrServer};

static SERIAL: Mutex<()> = Mutex::new(());

fn lo() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn run(codec: &str, via_emu: Option<LinkParams>) -> rr::RrReport {
    let schema = ev_schema();
    let server = RrServer::start(lo(), codec, Some(schema.clone()), None).unwrap();
    let emu = via_emu.map(|p| Emulator::tcp(lo(), server.addr(), EmuConfig::symmetric(p)).unwrap());
    let addr = emu.as_ref().map_or(server.addr(), |e| e.local_addr());
    let mut cfg = RrConfig::new(addr, codec, Some(schema), ev_series(50, 9));
    cfg.count = 40;
    cfg.warmup = 5;
    cfg.cadence = Duration::from_millis(10);
    let r = rr::run(&cfg).unwrap();
    assert_eq!(server.counts(), (45, 0), "server decoded every message");
    r
}

#[test]
fn ev_json_vs_protobuf_on_loopback() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let j = run("json", None);
    let p = run("protobuf", None);
    for r in [&j, &p] {
        eprintln!(
            "{:9} {:6.1} B  RTT p50 {:5.0} µs p99 {:5.0} µs  σ {:4.0} µs  RFC3550 {:4.0} µs  enc {:5.1} µs  dec(server) {:5.1} µs",
            r.codec, r.bytes.mean, r.rtt.p50_us, r.rtt.p99_us, r.rtt.stddev_us, r.rtt.jitter_rfc3550_us, r.encode_us.mean, r.server_decode_us.mean
        );
        assert_eq!(r.count, 40);
        assert!(r.round_trip_exact);
        assert_eq!(r.decode_failures, 0);
        assert!(r.rtt.p50_us > 0.0 && r.rtt.p50_us < 20_000.0, "{:?}", r.rtt);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
    assert!((950.0..1050.0).contains(&j.bytes.mean), "{:?}", j.bytes);
    assert!((250.0..310.0).contains(&p.bytes.mean), "{:?}", p.bytes);
    // 100 messages/s of ~1 KB.
    assert!(
        (j.payload_bytes_per_sec / 1000.0 - j.bytes.mean / 10.0).abs() < j.bytes.mean / 10.0 * 0.2,
        "{}",
        j.payload_bytes_per_sec
    );
}

/// Through an emulated 1 Mbit/s link, RTT must include both serializations:
/// JSON: (≈1,008 B frame + 66) · 8 / 1e6 ≈ 8.6 ms up + (17 B ack + 66) · 8 / 1e6 = 0.66 ms down.
/// Protobuf: (≈276 + 66) · 8 / 1e6 ≈ 2.7 ms up + 0.66 ms down.
#[test]
fn ev_through_1mbit_emulator() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let j = run("json", Some(LinkParams::rate(1_000_000)));
    let p = run("protobuf", Some(LinkParams::rate(1_000_000)));
    let floor = |bytes: f64| ((bytes + 4.0 + 66.0) * 8.0 + (17.0 + 66.0) * 8.0) / 1e6 * 1e6;
    for r in [&j, &p] {
        let f = floor(r.bytes.min);
        eprintln!("{:9} over 1 Mbit: RTT p50 {:.0} µs (serialization floor {f:.0} µs)", r.codec, r.rtt.p50_us);
        assert!(r.rtt.min_us >= f * 0.999, "{} {:?} floor {f}", r.codec, r.rtt);
    }
    // The serialization floors differ by the size ratio; the fastest round trips show it.
    assert!(j.rtt.min_us > p.rtt.min_us);
}

#[test]
fn errors_are_clear() {
    let l = std::net::TcpListener::bind(lo()).unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let cfg = RrConfig::new(addr, "json", None, ev_series(1, 1));
    let e = rr::run(&cfg).unwrap_err().to_string();
    assert!(e.contains("cannot connect"), "{e}");
    let cfg = RrConfig::new(addr, "nope", None, ev_series(1, 1));
    assert!(rr::run(&cfg).unwrap_err().to_string().contains("unknown format"));
    assert!(RrServer::start(lo(), "nope", None, None).is_err());
}
