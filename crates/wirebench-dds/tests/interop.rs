//! Interoperability with Cyclone's own `ddsperf` (0.10.2) over RTPS on loopback, both ways:
//! `ddsperf pub` → our reader, and our writer → `ddsperf sub`. Each ddsperf is a child process
//! (killed on drop, also when an assertion fails). Needs `ddsperf` (cyclonedds-tools).

use std::time::Duration;

use wirebench_dds::config::ConfigFile;
use wirebench_dds::ddsperf::{self, Proc};
use wirebench_dds::throughput::{self, ThroughputOpts};
use wirebench_dds::Marshal;

fn domain(k: u32) -> u32 {
    12 + (std::process::id() % 40) * 5 + k
}

fn need_ddsperf() {
    assert!(ddsperf::available(), "ddsperf not found: apt-get install cyclonedds-tools (or set WIREBENCH_DDSPERF)");
}

#[test]
fn ddsperf_pub_reaches_our_reader() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    need_ddsperf();
    let d = domain(0);
    let cfg = ConfigFile::create().unwrap();
    // 1 kHz for up to 20 s; size 1036 = 12 fixed + 1024 baggage.
    let publ =
        Proc::spawn(&cfg, d, &["-D20".into(), "pub".into(), "1000Hz".into(), "size".into(), "1036".into()]).unwrap();
    let got = throughput::receive_any(d, 500, Duration::from_secs(20)).unwrap();
    drop(publ);
    assert!(got.samples >= 500, "received {} samples from ddsperf pub", got.samples);
    assert_eq!(got.baggage_lengths, vec![1024], "ddsperf's size includes the 12-byte fixed part");
    assert_eq!(got.max_keyval, 0, "ddsperf pub uses one key by default");
}

#[test]
fn our_writer_reaches_ddsperf_sub() {
    if let Err(why) = wirebench_dds::available() {
        eprintln!("skipped: {why}");
        return;
    }
    need_ddsperf();
    let d = domain(1);
    let cfg = ConfigFile::create().unwrap();
    // ddsperf's sub aborts on keys >= its -n: tell it how many instances we use.
    let sub = Proc::spawn(&cfg, d, &["-D12".into(), "-n".into(), "4".into(), "sub".into()]).unwrap();
    let mut o = ThroughputOpts::new(d, 2048, Marshal::Cdr, 5000);
    o.instances = 4;
    let report = throughput::publish(&o, Duration::from_millis(1500)).unwrap();
    assert_eq!(report.handled, 5000);
    let (_, out) = sub.finish(Duration::from_secs(20));
    let windows: Vec<_> = out.lines().filter_map(ddsperf::parse_sub_line).collect();
    let total = windows.iter().map(|w| w.total).max().unwrap_or(0);
    assert_eq!(total, 5000, "ddsperf sub counted every sample we wrote; its output:\n{out}");
    // Its size is the KeyedSeq payload: 12 + our CDR baggage (header 4, key "0".."3" 4+2+2, count 4, 2048).
    assert!(windows.iter().all(|w| w.size == 12 + 4 + 8 + 4 + 2048), "{windows:?}");
}
