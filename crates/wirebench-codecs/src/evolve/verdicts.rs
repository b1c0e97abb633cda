//! Verdicts: one cell of the matrix run (encode with the writer, decode with the reader) and
//! judged field by field against what the writer meant.

use serde::Serialize;
use wirebench_core::Value;

pub use wirebench_core::sections::evolve::{Note, Verdict};

use super::{
    bind, decode, encode, samples, uadp_major_matches, uadp_versions, xtypes_assignable, EvoSchema, Format, Kind,
    Scratch,
};

/// One cell of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub format: Format,
    pub change: String,
    /// `old→new` (v1 writer, v2 reader) or `new→old`.
    pub direction: String,
    pub verdict: Verdict,
    pub samples: usize,
    pub refused: usize,
    pub wrong: usize,
    pub lossy: usize,
    pub defaulted: usize,
    /// The reader's first error (refused), or why the format does not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The fields that were wrong, lossy or defaulted (first sample each).
    pub fields_wrong: Vec<Note>,
    pub fields_lossy: Vec<Note>,
    pub fields_defaulted: Vec<String>,
    /// CDR: the verdict of decoding the bytes alone, when type matching refused the pair (the
    /// counts and notes above are then the reader's: every sample refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_alone: Option<Verdict>,
    /// Per sample: the bytes and whether the reader accepted them (for the oracles).
    #[serde(skip)]
    pub wire: Vec<(Vec<u8>, bool)>,
}

fn show(v: &Value) -> String {
    v.to_json_string()
}

fn num(v: &Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_i128().map(|n| n as f64))
}

/// Whether the reader's value is the writer's (numbers by value across widths and int/float,
/// a single value and a one-item list alike).
pub fn same(m: &Value, g: &Value) -> bool {
    match (m, g) {
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Value::Array(a), b) | (b, Value::Array(a)) if a.len() == 1 && !matches!(b, Value::Array(_)) => same(&a[0], b),
        _ => match (m.as_i128(), g.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => match (num(m), num(g)) {
                (Some(x), Some(y)) => x == y,
                _ => m == g,
            },
        },
    }
}

/// Whether the reader's value is the writer's made to fit the reader's type: the nearest
/// value of a narrower type (rounded float, truncated fraction, saturated integer), one item
/// of a list read as a single value, an enum value kept as a bare number.
pub fn lossy(m: &Value, g: &Value, k: &Kind) -> bool {
    match (m, k) {
        (Value::Array(xs), _) if !matches!(g, Value::Array(_)) => xs.iter().any(|x| same(x, g)),
        (_, Kind::Int { bits, signed }) => match (num(m), g.as_i128()) {
            (Some(x), Some(y)) => {
                let (lo, hi) = wirebench_core::schema::int_range(*bits, *signed);
                let near = (x.trunc() as i128).clamp(lo, hi);
                y == near || y == (x.round() as i128).clamp(lo, hi)
            }
            _ => false,
        },
        (_, Kind::Float { bits: 32 }) => matches!((num(m), num(g)), (Some(x), Some(y)) if (x as f32) as f64 == y),
        (Value::String(_), Kind::Enum { .. }) => g.as_i128().is_some(),
        _ => false,
    }
}

pub(super) fn get<'v>(v: &'v Value, name: &str) -> Option<&'v Value> {
    match v {
        Value::Map(p) => p.iter().find(|(k, _)| k == name).map(|(_, x)| x),
        _ => None,
    }
}

/// Run one cell: encode the samples with `writer`, decode with `reader`, compare with what the
/// writer meant.
pub fn run_cell(
    format: Format,
    change: &str,
    direction: &str,
    w: &EvoSchema,
    r: &EvoSchema,
    n: usize,
    scratch: &Scratch,
) -> Cell {
    let mut cell = Cell {
        format,
        change: change.into(),
        direction: direction.into(),
        verdict: Verdict::Ok,
        samples: n,
        refused: 0,
        wrong: 0,
        lossy: 0,
        defaulted: 0,
        error: None,
        fields_wrong: Vec::new(),
        fields_lossy: Vec::new(),
        fields_defaulted: Vec::new(),
        bytes_alone: None,
        wire: Vec::new(),
    };
    let label = format!("{}-{change}-{}", format.codec(), if direction.starts_with("old") { "a" } else { "b" });
    let bound = bind(format, w, scratch, &format!("{label}-writer"))
        .and_then(|bw| Ok((bind(format, r, scratch, &format!("{label}-reader"))?, bw)));
    let (mut br, mut bw) = match bound {
        Ok(x) => x,
        Err(e) => {
            cell.verdict = Verdict::NotApplicable;
            cell.error = Some(e);
            return cell;
        }
    };
    if format == Format::Uadp {
        // Each side's DataSetMetaData carries the ConfigurationVersion its change calls for.
        let old_first = direction.starts_with("old");
        let (v1, v2) = if old_first { uadp_versions(w, r) } else { uadp_versions(r, w) };
        (bw.version, br.version) = if old_first { (Some(v1), Some(v2)) } else { (Some(v2), Some(v1)) };
    }
    // The MajorVersion check, made once on the first sample (every sample carries the same).
    let mut major: Option<Option<String>> = None;
    let mut flags = (false, false, false, false);
    for (i, sample) in samples(w, n).iter().enumerate() {
        let bytes = match encode(&bw, sample) {
            Ok(b) => b,
            Err(e) => {
                cell.verdict = Verdict::NotApplicable;
                cell.error = Some(format!("the writer cannot encode sample {i}: {e}"));
                return cell;
            }
        };
        if format == Format::Uadp && major.is_none() {
            major = Some(uadp_major_matches(&bytes, &br).err());
        }
        let got = decode(&bw, &br, &bytes);
        cell.wire.push((bytes, got.is_ok()));
        let got = match got {
            Ok(v) => v,
            Err(e) => {
                cell.refused += 1;
                cell.error.get_or_insert(format!("sample {i}: {e}"));
                continue;
            }
        };
        let (mut wrong, mut lost, mut dflt) = (false, false, false);
        for rf in &r.fields {
            let wf = w.by_tag(rf.tag);
            let meant = wf.and_then(|wf| get(sample, &wf.name));
            let g = get(&got, &rf.name);
            let dv = if rf.optional { None } else { Some(rf.kind.default_value()) };
            let eff = g.cloned().or(dv.clone());
            let note = |cell_notes: &mut Vec<Note>| {
                if !cell_notes.iter().any(|x| x.field == rf.name) {
                    cell_notes.push(Note {
                        sample: i,
                        field: rf.name.clone(),
                        meant: meant.map(show),
                        got: g.map(show),
                    });
                }
            };
            match (wf, meant) {
                (None, _) => {
                    if g.is_none() || eff.as_ref().zip(dv.as_ref()).is_some_and(|(a, b)| same(a, b)) {
                        dflt = true;
                        if !cell.fields_defaulted.contains(&rf.name) {
                            cell.fields_defaulted.push(rf.name.clone());
                        }
                    } else {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                }
                (Some(_), None) => {
                    if g.is_some() && !eff.as_ref().zip(dv.as_ref()).is_some_and(|(a, b)| same(a, b)) {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                }
                (Some(_), Some(m)) => match &eff {
                    Some(e) if same(m, e) => {}
                    Some(e) if g.is_some() && lossy(m, e, &rf.kind) => {
                        lost = true;
                        note(&mut cell.fields_lossy);
                    }
                    _ => {
                        wrong = true;
                        note(&mut cell.fields_wrong);
                    }
                },
            }
        }
        cell.wrong += wrong as usize;
        cell.lossy += lost as usize;
        cell.defaulted += dflt as usize;
        flags.0 |= wrong;
        flags.1 |= lost;
        flags.2 |= dflt;
    }
    flags.3 = cell.refused > 0;
    cell.verdict = if flags.0 {
        Verdict::SilentlyWrong
    } else if flags.3 {
        Verdict::Refused
    } else if flags.1 {
        Verdict::Lossy
    } else if flags.2 {
        Verdict::OkWithDefaults
    } else {
        Verdict::Ok
    };
    let type_rule = match format {
        Format::Xcdr1Final | Format::Xcdr2Appendable | Format::Xcdr2Mutable => xtypes_assignable(format, w, r)
            .err()
            .map(|why| format!("XTypes assignability: {why}; a DDS reader is not matched with this writer")),
        Format::Uadp => major.flatten(),
        _ => None,
    };
    if let Some(why) = type_rule {
        // The counts and notes are the reader's: nothing was read. What the bytes alone
        // read as stays in `bytes_alone`.
        cell.bytes_alone = Some(cell.verdict);
        cell.verdict = Verdict::Refused;
        cell.refused = n;
        (cell.wrong, cell.lossy, cell.defaulted) = (0, 0, 0);
        cell.fields_wrong.clear();
        cell.fields_lossy.clear();
        cell.fields_defaulted.clear();
        cell.error = Some(why);
        for (_, ok) in &mut cell.wire {
            *ok = false;
        }
    }
    cell
}
