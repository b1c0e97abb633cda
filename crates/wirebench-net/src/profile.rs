//! Lab link profiles: rate, loss and TBF burst per direction, by name or from a short text
//! (`"10mbit"`, `"up=10mbit,down=2mbit,loss=1"`, `"nb-iot"`).
//!
//! Direction names: **up** is host A → host B (client → server), **down** is B → A.

use serde::{Deserialize, Serialize};

use crate::NetError;

/// Lowest and highest rate the lab and the emulator accept.
pub const MIN_RATE_BPS: u64 = 1_000;
pub const MAX_RATE_BPS: u64 = 10_000_000_000;

/// Kernel timer frequency of the project's machines (`CONFIG_HZ=250`, spec §1.3); TBF needs
/// a bucket of at least one tick's worth of bytes to reach its rate.
pub const HZ: u64 = 250;

/// The burst the seed used (32 kbit = 4,000 B); also the floor of the sized burst.
pub const SEED_BURST_BYTES: u64 = 4_000;

pub use wirebench_core::sections::net::{Burst, Shaper};

/// The bucket size in bytes of `burst` for `rate_bps`.
pub fn burst_bytes(burst: Burst, rate_bps: u64) -> u64 {
    match burst {
        Burst::Sized => (rate_bps / 8 / HZ).max(SEED_BURST_BYTES),
        Burst::Seed => SEED_BURST_BYTES,
        Burst::Bytes(b) => b,
    }
}

/// A warning when the bucket of `burst` is smaller than one tick's worth of bytes at
/// `rate_bps`.
pub fn burst_warning(burst: Burst, rate_bps: u64) -> Option<String> {
    let need = rate_bps / 8 / HZ;
    let have = burst_bytes(burst, rate_bps);
    (have < need).then(|| {
        format!(
            "TBF burst {have} B < rate/HZ = {need} B at {}: the link will not reach its rate \
             (the seed's 32 kbit cost 10 % at 500 Mbit, 21-28 % at 1 Gbit)",
            format_rate(rate_bps)
        )
    })
}

/// Shaping of one direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// Rate in bit/s; `None` = unshaped.
    pub rate_bps: Option<u64>,
    /// I.i.d. loss in percent (0–100), applied by nftables `numgen random` at the receiver.
    pub loss_pct: f64,
}

/// A lab profile: both directions and the burst policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabProfile {
    pub name: String,
    pub up: Shape,
    pub down: Shape,
    pub burst: Burst,
    /// TBF (default) or HTB.
    #[serde(default)]
    pub shaper: Shaper,
}

/// Named presets: (name, up rate, down rate, description).
const PRESETS: &[(&str, Option<u64>, Option<u64>, &str)] = &[
    ("unshaped", None, None, "plain veth, no shaping"),
    ("lte-m1", Some(1_000_000), Some(1_000_000), "LTE-M Cat-M1 peak ~1 Mbit/s each way (spec §4)"),
    ("nb-iot", Some(62_000), Some(26_000), "NB-IoT Cat-NB1 peak ~62 kbit/s up, ~26 kbit/s down (spec §4)"),
    ("nb-iot2", Some(159_000), Some(127_000), "NB-IoT Cat-NB2 peak 159 kbit/s up, 127 kbit/s down (spec §4)"),
];

/// The rates the seed (002) swept; each is also a preset name (`"1mbit"` … `"1gbit"`).
pub const SEED_LADDER: &[&str] = &["1mbit", "5mbit", "10mbit", "50mbit", "100mbit", "500mbit", "1gbit"];

/// Names for error messages.
pub fn known_profiles() -> String {
    let mut v: Vec<String> = PRESETS.iter().map(|p| p.0.to_string()).collect();
    v.extend(SEED_LADDER.iter().map(|s| s.to_string()));
    v.push("<rate> (e.g. 2.5mbit)".into());
    v.push("up=<rate>,down=<rate>,loss=<pct>,loss_up=..,loss_down=..,burst=sized|seed|<bytes>,shaper=tbf|htb".into());
    v.join(", ")
}

/// Parse a rate: a number with `bit`, `kbit`, `mbit`, `gbit` (or `k`, `m`, `g`, `bps`,
/// `kbps`…, all bits per second). Range 1 kbit/s – 10 Gbit/s.
pub fn parse_rate(text: &str) -> Result<u64, NetError> {
    let t = text.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("bps")
        .or_else(|| unit.strip_suffix("bit"))
        .or_else(|| unit.strip_suffix("bit/s"))
        .unwrap_or(unit);
    let mult = match unit {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        _ => return Err(NetError::invalid("rate", format!("{text:?}: unknown unit (use bit, kbit, mbit or gbit)"))),
    };
    let v: f64 = num.parse().map_err(|_| NetError::invalid("rate", format!("{text:?} is not a number with a unit")))?;
    let bps = (v * mult).round();
    check_rate(bps, text)
}

/// Check a rate in bit/s against the accepted range.
pub fn check_rate(bps: f64, shown: &str) -> Result<u64, NetError> {
    if !bps.is_finite() || bps < MIN_RATE_BPS as f64 || bps > MAX_RATE_BPS as f64 {
        return Err(NetError::RateOutOfRange { given: shown.to_string(), min: "1 kbit/s", max: "10 Gbit/s" });
    }
    Ok(bps as u64)
}

/// A rate for people: `500kbit`, `10mbit`, `1gbit`, `2.5mbit`.
pub fn format_rate(bps: u64) -> String {
    for (div, unit) in [(1_000_000_000u64, "gbit"), (1_000_000, "mbit"), (1_000, "kbit")] {
        if bps >= div {
            let v = bps as f64 / div as f64;
            return if bps / div * div == bps { format!("{}{unit}", bps / div) } else { format!("{v}{unit}") };
        }
    }
    format!("{bps}bit")
}

fn parse_loss(text: &str) -> Result<f64, NetError> {
    let v: f64 = text
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| NetError::invalid("loss", format!("{text:?} is not a percentage")))?;
    if !(0.0..=100.0).contains(&v) {
        return Err(NetError::invalid("loss", format!("{v} % is outside 0-100")));
    }
    Ok(v)
}

impl LabProfile {
    /// A symmetric profile at `rate_bps` with a sized burst.
    pub fn symmetric(rate_bps: u64) -> Result<LabProfile, NetError> {
        let r = check_rate(rate_bps as f64, &format!("{rate_bps} bit/s"))?;
        Ok(LabProfile {
            name: format_rate(r),
            up: Shape { rate_bps: Some(r), loss_pct: 0.0 },
            down: Shape { rate_bps: Some(r), loss_pct: 0.0 },
            burst: Burst::Sized,
            shaper: Shaper::Tbf,
        })
    }

    pub fn unshaped() -> LabProfile {
        LabProfile {
            name: "unshaped".into(),
            up: Shape::default(),
            down: Shape::default(),
            burst: Burst::Sized,
            shaper: Shaper::Tbf,
        }
    }

    /// Parse a profile: a preset name, a rate, or comma-separated `key=value` items
    /// (`rate`, `up`, `down`, `loss`, `loss_up`, `loss_down`, `burst`) after an optional
    /// preset or rate.
    pub fn parse(text: &str) -> Result<LabProfile, NetError> {
        let mut p = LabProfile::unshaped();
        p.name = text.trim().to_string();
        if p.name.is_empty() {
            return Err(NetError::UnknownProfile { kind: "lab", name: text.into(), known: known_profiles() });
        }
        for (i, item) in text.split(',').map(str::trim).enumerate() {
            if let Some((k, v)) = item.split_once('=') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
                match k.as_str() {
                    "rate" => {
                        let r = parse_rate(v)?;
                        p.up.rate_bps = Some(r);
                        p.down.rate_bps = Some(r);
                    }
                    "up" => p.up.rate_bps = Some(parse_rate(v)?),
                    "down" => p.down.rate_bps = Some(parse_rate(v)?),
                    "loss" => {
                        let l = parse_loss(v)?;
                        p.up.loss_pct = l;
                        p.down.loss_pct = l;
                    }
                    "loss_up" => p.up.loss_pct = parse_loss(v)?,
                    "loss_down" => p.down.loss_pct = parse_loss(v)?,
                    "shaper" => {
                        p.shaper = match v.to_ascii_lowercase().as_str() {
                            "tbf" => Shaper::Tbf,
                            "htb" => Shaper::Htb,
                            _ => return Err(NetError::invalid("shaper", format!("{v:?}: use tbf or htb"))),
                        }
                    }
                    "burst" => {
                        p.burst = match v.to_ascii_lowercase().as_str() {
                            "sized" => Burst::Sized,
                            "seed" | "32kbit" => Burst::Seed,
                            b => {
                                let n: u64 = b.trim_end_matches('b').parse().map_err(|_| {
                                    NetError::invalid(
                                        "burst",
                                        format!("{v:?}: use sized, seed or a byte count like 8000b"),
                                    )
                                })?;
                                if n < 1_600 {
                                    return Err(NetError::invalid(
                                        "burst",
                                        format!("{n} B is below one MTU-sized frame (1,514 B)"),
                                    ));
                                }
                                Burst::Bytes(n)
                            }
                        }
                    }
                    _ => {
                        return Err(NetError::UnknownProfile {
                            kind: "lab",
                            name: text.into(),
                            known: known_profiles(),
                        })
                    }
                }
            } else if i == 0 {
                let lower = item.to_ascii_lowercase();
                if let Some(preset) = PRESETS.iter().find(|p| p.0 == lower) {
                    p.up.rate_bps = preset.1;
                    p.down.rate_bps = preset.2;
                } else if lower.starts_with(|c: char| c.is_ascii_digit()) {
                    let r = parse_rate(&lower)?;
                    p.up.rate_bps = Some(r);
                    p.down.rate_bps = Some(r);
                } else {
                    return Err(NetError::UnknownProfile { kind: "lab", name: text.into(), known: known_profiles() });
                }
            } else {
                return Err(NetError::UnknownProfile { kind: "lab", name: text.into(), known: known_profiles() });
            }
        }
        Ok(p)
    }

    /// Warnings about the profile (burst too small for the rate).
    pub fn warnings(&self) -> Vec<String> {
        [self.up.rate_bps, self.down.rate_bps]
            .into_iter()
            .flatten()
            .filter_map(|r| burst_warning(self.burst, r))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_ranges() {
        assert_eq!(parse_rate("10mbit").unwrap(), 10_000_000);
        assert_eq!(parse_rate("2.5Mbit").unwrap(), 2_500_000);
        assert_eq!(parse_rate("1gbit").unwrap(), 1_000_000_000);
        assert_eq!(parse_rate("500kbps").unwrap(), 500_000);
        assert!(matches!(parse_rate("0mbit"), Err(NetError::RateOutOfRange { .. })));
        assert!(matches!(parse_rate("11gbit"), Err(NetError::RateOutOfRange { .. })));
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("10furlongs").is_err());
        assert_eq!(format_rate(10_000_000), "10mbit");
        assert_eq!(format_rate(2_500_000), "2.5mbit");
    }

    #[test]
    fn burst_sizing_matches_spec() {
        // spec §1.2: 10 Mbit → 5,000 B, 50 → 25,000, 100 → 50,000, 500 → 250,000, 1 Gbit → 500,000.
        for (mbit, b) in
            [(1, 4_000), (5, 4_000), (10, 5_000), (50, 25_000), (100, 50_000), (500, 250_000), (1000, 500_000)]
        {
            assert_eq!(burst_bytes(Burst::Sized, mbit * 1_000_000), b, "{mbit} Mbit");
        }
        // spec §5 goal 4: warn when burst < rate/HZ.
        assert!(burst_warning(Burst::Seed, 500_000_000).is_some());
        assert!(burst_warning(Burst::Seed, 5_000_000).is_none());
        assert!(burst_warning(Burst::Sized, 1_000_000_000).is_none());
    }

    #[test]
    fn profiles_parse() {
        let p = LabProfile::parse("10mbit").unwrap();
        assert_eq!((p.up.rate_bps, p.down.rate_bps), (Some(10_000_000), Some(10_000_000)));
        let p = LabProfile::parse("up=10mbit, down=2mbit, loss=1.5, burst=seed").unwrap();
        assert_eq!(
            (p.up.rate_bps, p.down.rate_bps, p.up.loss_pct, p.burst),
            (Some(10_000_000), Some(2_000_000), 1.5, Burst::Seed)
        );
        let p = LabProfile::parse("nb-iot,loss_down=5%").unwrap();
        assert_eq!((p.up.rate_bps, p.down.loss_pct, p.up.loss_pct), (Some(62_000), 5.0, 0.0));
        assert!(LabProfile::parse("unshaped").unwrap().up.rate_bps.is_none());
        assert_eq!(LabProfile::parse("10mbit,shaper=htb").unwrap().shaper, Shaper::Htb);
        assert_eq!(LabProfile::parse("10mbit").unwrap().shaper, Shaper::Tbf);
        assert!(LabProfile::parse("10mbit,shaper=cake").is_err());
        let e = LabProfile::parse("warp-drive").unwrap_err().to_string();
        assert!(e.contains("unknown lab profile") && e.contains("nb-iot"), "{e}");
        assert!(LabProfile::parse("loss=120").is_err());
        assert!(LabProfile::parse("").is_err());
        assert!(matches!(LabProfile::parse("rate=0"), Err(NetError::RateOutOfRange { .. })));
        assert!(LabProfile::symmetric(20_000_000_000).is_err());
    }
}
