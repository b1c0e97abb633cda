//! Names the user types (formats, corpora, links, MCUs): the "unknown X" message with the
//! known names and, for a near miss, the name that was probably meant.

/// The known name closest to `name` when it is a likely typo: edit distance at most 2 (1 for
/// names of up to 4 characters), compared case-insensitively; or the only known name that
/// starts with what was typed.
pub fn suggest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let typed = name.trim().to_ascii_lowercase();
    if typed.is_empty() {
        return None;
    }
    let limit = if typed.chars().count() <= 4 { 1 } else { 2 };
    let best = known
        .iter()
        .map(|k| (distance(&typed, &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k);
    best.or_else(|| {
        let mut prefixed = known.iter().filter(|k| k.to_ascii_lowercase().starts_with(&typed));
        match (prefixed.next(), prefixed.next()) {
            (Some(k), None) => Some(*k),
            _ => None,
        }
    })
}

/// The device-lab target a device class or target name stands for, as every command that
/// takes `--mcu` or `--targets` reads it: `8bit`/`avr`/`uno` → `avr`, `m0`/`m0+`/`cortex-m0+`/
/// `cortex-m0plus` → `cortex-m0plus`, `m4`/`cortex-m4` → `cortex-m4`; anything else as typed.
pub fn lab_target_alias(name: &str) -> &str {
    match name.trim().to_ascii_lowercase().as_str() {
        "8bit" | "avr" | "uno" => "avr",
        "m0" | "m0+" | "m0plus" | "cortex-m0+" | "cortex-m0plus" => "cortex-m0plus",
        "m4" | "cortex-m4" => "cortex-m4",
        _ => name.trim(),
    }
}

/// `unknown {what} "name" (did you mean "x"?; known: a, b, c)`: the one-line error for a name
/// that is not among `known` (listed once each, in the order given).
pub fn unknown(what: &str, name: &str, known: &[&str]) -> String {
    let mut list: Vec<&str> = Vec::with_capacity(known.len());
    for k in known {
        if !list.contains(k) {
            list.push(k);
        }
    }
    match suggest(name, &list) {
        Some(s) => format!("unknown {what} {name:?}: did you mean {s:?}? (known: {})", list.join(", ")),
        None => format!("unknown {what} {name:?} (known: {})", list.join(", ")),
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment), on chars: "jsno" is
/// one edit from "json".
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate().take(b.len() + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// `text` with control characters other than `keep` (ESC, CR, BEL, NUL, ...) written as
/// `\x1b`-style escapes (`\u{..}` above U+00FF): input that an error message, a table cell or a
/// CSV field quotes must not reach a terminal or a reader raw.
pub fn escape_controls(text: &str, keep: &[char]) -> String {
    if !text.chars().any(|c| c.is_control() && !keep.contains(&c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !keep.contains(&c) {
            let n = c as u32;
            if n < 0x100 {
                out.push_str(&format!("\\x{n:02x}"));
            } else {
                out.push_str(&format!("\\u{{{n:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_suggested_and_far_ones_are_not() {
        let known = ["json", "cbor", "msgpack", "protobuf", "cdr-xcdr2", "pson-paper", "ev-telemetry"];
        assert_eq!(suggest("jsno", &known), Some("json"));
        assert_eq!(suggest("MsgPak", &known), Some("msgpack"));
        assert_eq!(suggest("protobuff", &known), Some("protobuf"));
        assert_eq!(suggest("ev", &known), Some("ev-telemetry"));
        assert_eq!(suggest("xml", &known), None);
        assert_eq!(suggest("cdr", &known), Some("cdr-xcdr2"));
        assert_eq!(suggest("", &known), None);
        assert_eq!(
            unknown("corpus", "pson-papr", &["pson-paper", "ev-telemetry", "ev-telemetry"]),
            "unknown corpus \"pson-papr\": did you mean \"pson-paper\"? (known: pson-paper, ev-telemetry)"
        );
        assert_eq!(unknown("format", "zzz", &["json"]), "unknown format \"zzz\" (known: json)");
    }
}
