//! `wirebench dds interop`: interoperability with Cyclone's own `ddsperf` over RTPS on loopback,
//! both ways — `ddsperf pub` → our reader (every sample's baggage has the payload size), and our
//! writer → `ddsperf sub` (it counts every sample we wrote).

use std::time::Duration;

use wirebench_core::part::PartError;

use crate::config::ConfigFile;
use crate::ddsperf::{self, Proc};
use crate::study::{check_domain, positive, sizes};
use crate::throughput::{self, Received, ThroughputOpts};
use crate::{DdsError, Marshal};

/// What each direction delivered.
#[derive(Clone, Debug)]
pub struct Interop {
    /// Payload octets.
    pub size: usize,
    /// ddsperf pub → our reader.
    pub received: Received,
    /// Samples our writer wrote to ddsperf sub.
    pub count: u64,
    pub written: u64,
    /// The largest total ddsperf sub printed.
    pub counted: u64,
}

/// Samples our reader must take from `ddsperf pub`.
const FROM_DDSPERF: u64 = 500;

impl Interop {
    /// ddsperf pub reached our reader with the payload size in every sample.
    pub fn from_ddsperf_ok(&self) -> bool {
        self.received.samples >= FROM_DDSPERF && self.received.baggage_lengths == [self.size]
    }

    /// ddsperf sub counted every sample our writer sent.
    pub fn to_ddsperf_ok(&self) -> bool {
        self.counted == self.count
    }

    /// Both directions worked.
    pub fn passed(&self) -> bool {
        self.from_ddsperf_ok() && self.to_ddsperf_ok()
    }

    /// One line per direction.
    pub fn text(&self) -> String {
        let verdict = |ok: bool| if ok { "ok" } else { "FAILED" };
        format!(
            "ddsperf pub -> wirebench reader: {} samples in {:.1} s, baggage {:?} bytes: {}\n\
             wirebench writer -> ddsperf sub: wrote {}, ddsperf counted {}: {}\n",
            self.received.samples,
            self.received.secs,
            self.received.baggage_lengths,
            verdict(self.from_ddsperf_ok()),
            self.written,
            self.counted,
            verdict(self.to_ddsperf_ok())
        )
    }
}

/// Check the options (domain, one size, count ≥ 1) and that ddsperf can be run, then run both
/// directions on `domain` and `domain + 1`.
pub fn run(domain: u32, size: &str, count: u64) -> Result<Interop, PartError> {
    check_domain(domain)?;
    let size = sizes(size)?[0];
    positive("count", count)?;
    if count > crate::study::MAX_THROUGHPUT_SAMPLES {
        return Err(PartError::bad(format!("count {count}: at most {}", crate::study::MAX_THROUGHPUT_SAMPLES)));
    }
    if !ddsperf::available() {
        return Err(PartError::bad(format!("{} not found (apt-get install cyclonedds-tools)", ddsperf::program())));
    }
    both_ways(domain, size, count).map_err(|e| PartError::failed(e.to_string()))
}

fn both_ways(domain: u32, size: usize, count: u64) -> Result<Interop, DdsError> {
    let cfg = ConfigFile::create()?;
    // ddsperf pub -> our reader.
    let publ = Proc::spawn(
        &cfg,
        domain,
        &["-D20".into(), "pub".into(), "1000Hz".into(), "size".into(), (size + crate::KEYEDSEQ_FIXED).to_string()],
    )?;
    let received = throughput::receive_any(domain, FROM_DDSPERF, Duration::from_secs(20))?;
    drop(publ);
    // Our writer -> ddsperf sub (told how many keys we use: it aborts on keys >= its -n).
    let d2 = domain + 1;
    let sub = Proc::spawn(&cfg, d2, &["-D15".into(), "-n".into(), "4".into(), "sub".into()])?;
    let mut o = ThroughputOpts::new(d2, size, Marshal::Cdr, count);
    o.instances = 4;
    let report = throughput::publish(&o, Duration::from_millis(1500))?;
    let (_, text) = sub.finish(Duration::from_secs(20));
    let counted = text.lines().filter_map(ddsperf::parse_sub_line).map(|w| w.total).max().unwrap_or(0);
    Ok(Interop { size, received, count, written: report.handled, counted })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_are_bad_input() {
        for (domain, size, count, want) in
            [(500, "2k", 1, "domain 500"), (59, "2q", 1, "bad size"), (59, "2k", 0, "count must be at least 1")]
        {
            match run(domain, size, count) {
                Err(PartError::BadInput(m)) => assert!(m.contains(want), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn verdicts_per_direction() {
        let r = Interop {
            size: 2048,
            received: Received { samples: 600, baggage_lengths: vec![2048], max_keyval: 0, secs: 0.6 },
            count: 1000,
            written: 1000,
            counted: 999,
        };
        assert!(r.from_ddsperf_ok() && !r.to_ddsperf_ok() && !r.passed());
        let t = r.text();
        assert!(t.contains("600 samples in 0.6 s, baggage [2048] bytes: ok"), "{t}");
        assert!(t.contains("wrote 1000, ddsperf counted 999: FAILED"), "{t}");
    }
}
