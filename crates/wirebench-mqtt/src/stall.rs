//! Nagle + delayed-ACK stall detector.
//!
//! On Linux a small write on a socket without `TCP_NODELAY` waits (Nagle) until the previous
//! segment is acknowledged, and the peer delays that ACK by the delayed-ACK timer: 40 ms
//! (`TCP_DELACK_MIN`), which the kernel's tick rounds up to about 44 ms at HZ = 250. Two such
//! stalls in series (client *and* broker without NODELAY, e.g. a QoS 1 echo through a default
//! broker) give about 88 ms. Measured on this project's machine: QoS 1 echo RTT is 88.0 ms with
//! all defaults, 44.0 ms with NODELAY on the client only, 0.2 ms with NODELAY everywhere
//! (specs/links-and-transports.md §2.3). An RTT mode at one of these values on a fast link is
//! the signature of a missing `TCP_NODELAY`, not of the network.

use serde::{Deserialize, Serialize};

/// The RTT values (ms) stalls produce.
pub const STALL_MODES_MS: [f64; 3] = [40.0, 44.0, 88.0];
/// Half-width of the window around each mode, ms.
pub const STALL_WINDOW_MS: f64 = 4.0;
/// Fraction of samples inside one window that flags a stall.
pub const STALL_MIN_FRACTION: f64 = 0.05;

/// A detected stall mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StallWarning {
    /// The stall value the samples cluster at: 40, 44 or 88 ms.
    pub mode_ms: f64,
    /// Samples within ±[`STALL_WINDOW_MS`] of `mode_ms`.
    pub samples_in_window: u64,
    pub total_samples: u64,
    pub fraction: f64,
    /// Median of the samples in the window, ms.
    pub median_in_window_ms: f64,
    /// What it means and what to do.
    pub message: String,
}

/// Flag a mode near 40, 44 or 88 ms: at least 5 % of `samples_ns` within ±4 ms of one of those
/// values. When windows overlap (40 and 44), the mode closest to the median of the samples in
/// the fullest window is named. `None` when no window holds 5 %.
pub fn detect_nagle_stall(samples_ns: &[u64]) -> Option<StallWarning> {
    if samples_ns.is_empty() {
        return None;
    }
    let ms: Vec<f64> = samples_ns.iter().map(|&s| s as f64 / 1e6).collect();
    let in_window = |m: f64| -> Vec<f64> { ms.iter().copied().filter(|x| (x - m).abs() <= STALL_WINDOW_MS).collect() };
    let (best, hits) = STALL_MODES_MS.iter().map(|&m| (m, in_window(m))).max_by_key(|(_, v)| v.len())?;
    let fraction = hits.len() as f64 / ms.len() as f64;
    if hits.is_empty() || fraction < STALL_MIN_FRACTION {
        return None;
    }
    let med = crate::stats::median(&hits);
    // Overlapping windows (40/44): name the mode the cluster actually sits at.
    let mode = STALL_MODES_MS
        .iter()
        .copied()
        .filter(|&m| (med - m).abs() <= STALL_WINDOW_MS)
        .min_by(|a, b| (med - a).abs().total_cmp(&(med - b).abs()))
        .unwrap_or(best);
    let samples_in_window = in_window(mode).len() as u64;
    let cause = if mode >= 80.0 {
        "two Nagle + delayed-ACK stalls in series: neither the client's nor the broker's socket has \
         TCP_NODELAY (a QoS 1 echo through a broker with default settings)"
    } else if mode >= 42.0 {
        "Nagle + delayed ACK on a socket without TCP_NODELAY (Linux's 40 ms delayed-ACK timer, \
         rounded to ~44 ms by a 250 Hz kernel tick)"
    } else {
        "Nagle + delayed ACK on a socket without TCP_NODELAY (Linux's 40 ms minimum delayed-ACK \
         timer)"
    };
    let message = format!(
        "RTT mode near {mode:.0} ms ({samples_in_window} of {} samples, {:.1} %, median {med:.2} ms): \
         {cause}. This is a socket option, not the link: set TCP_NODELAY on the client \
         (rumqttc NetworkOptions::set_tcp_nodelay) and on the broker (mosquitto: \
         `set_tcp_nodelay true`; rumqttd 0.20 has no option — wirebench's embedded broker sets it \
         on its listener itself)",
        ms.len(),
        100.0 * samples_in_window as f64 / ms.len() as f64,
    );
    Some(StallWarning {
        mode_ms: mode,
        samples_in_window,
        total_samples: ms.len() as u64,
        fraction: samples_in_window as f64 / ms.len() as f64,
        median_in_window_ms: med,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: f64) -> u64 {
        (v * 1e6) as u64
    }

    #[test]
    fn fires_on_44_and_88_and_names_the_cause() {
        let s: Vec<u64> = (0..100).map(|i| ms(44.0 + (i % 5) as f64 * 0.01)).collect();
        let w = detect_nagle_stall(&s).unwrap();
        assert_eq!(w.mode_ms, 44.0);
        assert!(w.message.starts_with("RTT mode near 44 ms"), "{}", w.message);
        assert!(w.message.contains("Nagle + delayed ACK on a socket without TCP_NODELAY"));

        let s: Vec<u64> = (0..100).map(|i| if i < 10 { ms(88.1) } else { ms(0.2) }).collect();
        let w = detect_nagle_stall(&s).unwrap();
        assert_eq!((w.mode_ms, w.samples_in_window), (88.0, 10));
        assert!(w.message.contains("two Nagle + delayed-ACK stalls"));

        let s: Vec<u64> = (0..100).map(|i| if i < 6 { ms(40.3) } else { ms(0.15) }).collect();
        assert_eq!(detect_nagle_stall(&s).unwrap().mode_ms, 40.0);
    }

    #[test]
    fn quiet_on_fast_or_rare_or_other_modes() {
        let fast: Vec<u64> = (0..1000).map(|i| 100_000 + i * 100).collect();
        assert_eq!(detect_nagle_stall(&fast), None);
        // 4 % in the window: below the threshold.
        let rare: Vec<u64> = (0..100).map(|i| if i < 4 { ms(44.0) } else { ms(0.2) }).collect();
        assert_eq!(detect_nagle_stall(&rare), None);
        // A genuine 60 ms link (e.g. a WAN) is not a stall.
        let wan: Vec<u64> = (0..100).map(|i| ms(60.0 + (i % 7) as f64)).collect();
        assert_eq!(detect_nagle_stall(&wan), None);
        assert_eq!(detect_nagle_stall(&[]), None);
    }
}
