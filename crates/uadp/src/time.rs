//! DateTime ↔ ISO 8601 text (OPC 10000-6 §5.4.2.6), proleptic Gregorian calendar, UTC.
//!
//! Ticks are 100 ns since 1601-01-01T00:00:00Z. Text has up to 7 fraction digits
//! (trailing zeros dropped, none when whole), so every tick value in years 0001-9999
//! round-trips exactly. Values outside that range are written as
//! `"0001-01-01T00:00:00Z"` / `"9999-12-31T23:59:59Z"` as Part 6 requires.

use alloc::string::String;
use core::fmt::Write as _;

use crate::model::DateTime;

const TICKS_PER_SEC: i64 = 10_000_000;
/// Days from 0000-03-01 (the algorithm's era origin) … measured via 1970-01-01:
/// days between 1601-01-01 and 1970-01-01.
const DAYS_1601_TO_1970: i64 = 134_774;

/// The earliest text form (also DateTime "null" in JSON).
pub const MIN_TEXT: &str = "0001-01-01T00:00:00Z";
/// The latest text form.
pub const MAX_TEXT: &str = "9999-12-31T23:59:59Z";

/// Days since 1970-01-01 → (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) → days since 1970-01-01.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Whether `t` lies in years 0001-9999 (and so has an exact text form).
pub fn in_text_range(t: DateTime) -> bool {
    let secs = t.0.div_euclid(TICKS_PER_SEC);
    let (y, _, _) = civil_from_days(secs.div_euclid(86_400) - DAYS_1601_TO_1970);
    (1..=9999).contains(&y)
}

/// ISO 8601 text of `t`: `2000-01-01T00:00:15Z`, `2024-05-06T07:08:09.1234567Z`.
pub fn to_iso8601(t: DateTime) -> String {
    let mut s = String::new();
    write_iso8601(t, &mut s);
    s
}

/// Append the ISO 8601 text of `t` to `out`.
pub fn write_iso8601(t: DateTime, out: &mut String) {
    let secs = t.0.div_euclid(TICKS_PER_SEC);
    let frac = t.0.rem_euclid(TICKS_PER_SEC);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days - DAYS_1601_TO_1970);
    if y < 1 {
        out.push_str(MIN_TEXT);
        return;
    }
    if y > 9999 {
        out.push_str(MAX_TEXT);
        return;
    }
    let _ = write!(out, "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}", sod / 3600, sod / 60 % 60, sod % 60);
    if frac != 0 {
        let mut digits = [0u8; 7];
        let mut f = frac;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + (f % 10) as u8;
            f /= 10;
        }
        let len = 7 - digits.iter().rev().take_while(|&&c| c == b'0').count();
        out.push('.');
        for &c in &digits[..len] {
            out.push(c as char);
        }
    }
    out.push('Z');
}

/// Parse ISO 8601 date-time text: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
/// Fraction digits beyond 7 are truncated (Part 6 allows that). `None` for anything
/// else or a value outside the i64 tick range.
pub fn parse_iso8601(text: &str) -> Option<DateTime> {
    let b = text.as_bytes();
    let num = |r: core::ops::Range<usize>| -> Option<i64> {
        let s = b.get(r)?;
        let mut v = 0i64;
        for &c in s {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as i64;
        }
        Some(v)
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)? as u32, num(8..10)? as u32);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let mut i = 19;
    let mut frac = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 7 {
                frac = frac * 10 + (b[i] - b'0') as i64;
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..7 {
            frac *= 10;
        }
    }
    let offset_secs = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 3600 + om * 60;
            if *c == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d) + DAYS_1601_TO_1970;
    let secs = days as i128 * 86_400 + (h * 3600 + mi * 60 + s) as i128 - offset_secs as i128;
    let ticks = secs * TICKS_PER_SEC as i128 + frac as i128;
    i64::try_from(ticks).ok().map(DateTime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(to_iso8601(DateTime(0)), "1601-01-01T00:00:00Z");
        // 2000-01-01T00:00:15Z
        let t = parse_iso8601("2000-01-01T00:00:15Z").unwrap();
        assert_eq!(t.0, 125_911_584_150_000_000);
        assert_eq!(to_iso8601(t), "2000-01-01T00:00:15Z");
        assert_eq!(to_iso8601(DateTime(t.0 + 1_234_500)), "2000-01-01T00:00:15.12345Z");
        assert_eq!(parse_iso8601("2000-01-01T01:00:15+01:00"), Some(t));
        assert_eq!(parse_iso8601("2000-01-01T00:00:15.000000099Z"), Some(t));
        assert_eq!(to_iso8601(DateTime(i64::MAX)), MAX_TEXT);
        assert_eq!(to_iso8601(DateTime(i64::MIN)), MIN_TEXT);
        assert_eq!(parse_iso8601(MIN_TEXT).map(to_iso8601).as_deref(), Some(MIN_TEXT));
        for bad in ["2000-02-30T00:00:00Z", "2000-01-01 00:00:00Z", "2000-01-01T00:00:00", "2000-01-01T24:00:00Z"] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    #[test]
    fn round_trips() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = DateTime((x % 3_155_063_616_000_000_000) as i64 - 504_911_232_000_000_000);
            if in_text_range(t) {
                let s = to_iso8601(t);
                assert_eq!(parse_iso8601(&s), Some(t), "{s}");
            }
        }
    }
}
