//! The matrix: the cases (built-in or a user's pair), the whole run over formats × cases ×
//! directions, its recommendation, and reading a schema file for `evolve`.

use std::path::Path;

use serde::Serialize;

use super::{
    apply, builtin_v1, cost, diff, run_cell, Cell, Change, Cost, EvoSchema, Format, FoundChange, Kind, Scratch, Verdict,
};

/// A case: a named pair of schemas and the changes it contains.
#[derive(Clone, Debug, Serialize)]
pub struct Case {
    pub name: String,
    pub changes: Vec<FoundChange>,
    #[serde(skip)]
    pub v1: EvoSchema,
    #[serde(skip)]
    pub v2: EvoSchema,
}

/// The ten built-in cases.
pub fn builtin_cases() -> Vec<Case> {
    let v1 = builtin_v1();
    Change::ALL
        .iter()
        .map(|c| {
            let (v2, fc) = apply(&v1, *c);
            Case { name: c.id().into(), changes: vec![fc], v1: v1.clone(), v2 }
        })
        .collect()
}

/// The case of a user's pair: the diff of the two schemas.
pub fn user_case(v1: EvoSchema, v2: EvoSchema) -> Case {
    let changes = diff(&v1, &v2);
    // The changes by kind, in order of first appearance, counted: `add-optional×16+rename`.
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for c in &changes {
        match kinds.iter_mut().find(|(k, _)| *k == c.change.id()) {
            Some((_, n)) => *n += 1,
            None => kinds.push((c.change.id(), 1)),
        }
    }
    let name = if kinds.is_empty() {
        "no change".into()
    } else {
        kinds.iter().map(|(k, n)| if *n > 1 { format!("{k}×{n}") } else { k.to_string() }).collect::<Vec<_>>().join("+")
    };
    Case { name, changes, v1, v2 }
}

/// The whole evolution run.
#[derive(Clone, Debug, Serialize)]
pub struct Evolution {
    pub samples: usize,
    pub cases: Vec<Case>,
    /// Every cell, the dangerous ones first (silently wrong, refused, lossy, with defaults, ok).
    pub cells: Vec<Cell>,
    pub costs: Vec<Cost>,
    pub recommendation: String,
}

/// Run every format × case × direction.
pub fn run(cases: Vec<Case>, formats: &[Format], n: usize) -> Result<Evolution, String> {
    if n == 0 {
        return Err("--samples must be at least 1".into());
    }
    let scratch = Scratch::new()?;
    let mut cells = Vec::new();
    for case in &cases {
        for f in formats {
            cells.push(run_cell(*f, &case.name, "old→new", &case.v1, &case.v2, n, &scratch));
            cells.push(run_cell(*f, &case.name, "new→old", &case.v2, &case.v1, n, &scratch));
        }
    }
    let v1 = &cases.first().ok_or("no case")?.v1;
    let mut costs = Vec::new();
    for f in formats {
        if let Ok(c) = cost(*f, v1, n, &scratch) {
            costs.push(c);
        }
    }
    let recommendation = recommend(&cells, &costs, formats);
    let order = |c: &Cell| (c.verdict, Format::ALL.iter().position(|f| *f == c.format));
    cells.sort_by_key(order);
    Ok(Evolution { samples: n, cases, cells, costs, recommendation })
}

/// The recommendation line: the format with the fewest silently wrong cells, then the fewest
/// refused, then the smallest messages.
fn recommend(cells: &[Cell], costs: &[Cost], formats: &[Format]) -> String {
    let count = |f: Format, v: Verdict| cells.iter().filter(|c| c.format == f && c.verdict == v).count();
    let size = |f: Format| costs.iter().find(|c| c.format == f).map_or(f64::INFINITY, |c| c.with);
    let mut ranked: Vec<Format> = formats.to_vec();
    ranked.sort_by(|a, b| {
        (count(*a, Verdict::SilentlyWrong), count(*a, Verdict::Refused) + count(*a, Verdict::Lossy))
            .cmp(&(count(*b, Verdict::SilentlyWrong), count(*b, Verdict::Refused) + count(*b, Verdict::Lossy)))
            .then(size(*a).total_cmp(&size(*b)))
    });
    let Some(best) = ranked.first().copied() else { return String::new() };
    let wrong_in = |f: Format| -> Vec<String> {
        cells
            .iter()
            .filter(|c| c.format == f && c.verdict == Verdict::SilentlyWrong)
            .map(|c| format!("{} {}", c.change, c.direction))
            .collect()
    };
    let dangerous: Vec<String> = formats
        .iter()
        .copied()
        .filter(|f| count(*f, Verdict::SilentlyWrong) > 0)
        .map(|f| format!("{} ({})", f.id(), wrong_in(f).join(", ")))
        .collect();
    let size = costs.iter().find(|c| c.format == best).map_or(String::new(), |c| {
        format!("; {:.1} B per message, {:.1} B without its evolution metadata", c.with, c.without)
    });
    let head = if count(best, Verdict::SilentlyWrong) == 0 {
        format!("{} — never silently wrong here", best.id())
    } else {
        format!("{} — the fewest silently wrong cells ({})", best.id(), count(best, Verdict::SilentlyWrong))
    };
    let mut line = format!(
        "{head} ({} of {} cells refused, {} lossy: the reader says so){size}.",
        count(best, Verdict::Refused),
        cells.iter().filter(|x| x.format == best).count(),
        count(best, Verdict::Lossy),
    );
    if !dangerous.is_empty() {
        line.push_str(&format!(
            " Silently wrong: {}: ship those changes only behind a version field the reader checks.",
            dangerous.join("; ")
        ));
    }
    line
}

/// Read a schema file for `evolve` (any format wirebench reads).
pub fn read(path: &Path, type_name: Option<&str>) -> Result<EvoSchema, String> {
    let s = crate::schema_files::read_schema_file(path, type_name)?;
    let (mut e, unmapped) = super::from_schema_parts(&s, &path.display().to_string())?;
    super::native::enrich(&s, &mut e).map_err(|x| format!("{}: {x}", path.display()))?;
    // A field the model could not hold is fine when the file declares it an enum.
    for (name, err) in unmapped {
        if !e.fields.iter().any(|f| f.name == name && matches!(f.kind, Kind::Enum { .. })) {
            return Err(err);
        }
    }
    Ok(e)
}
