//! The study pages of `docs/studies/` as the one source of what each report says about its
//! seed: where a published figure cannot be right or cannot be reproduced, and what carries
//! over. The HTML report shows the section of the page verbatim (its Markdown rendered), so the
//! page and the report never disagree.

use crate::svg::esc;

/// The study pages, built into the binary.
const PAGES: &[(&str, &str)] = &[
    ("seed000", include_str!("../../../docs/studies/seed000-opcua-mqtt.md")),
    ("seed001", include_str!("../../../docs/studies/seed001-pson-paper.md")),
    ("seed002", include_str!("../../../docs/studies/seed002-http-bandwidth.md")),
    ("seed003", include_str!("../../../docs/studies/seed003-ev-telemetry.md")),
    ("seed004", include_str!("../../../docs/studies/seed004-dds-cdr-json.md")),
];

/// The page of a study and the file it is in.
fn page(study: &str) -> Option<(&'static str, String)> {
    let (_, text) = PAGES.iter().find(|(s, _)| *s == study)?;
    let file = match study {
        "seed000" => "seed000-opcua-mqtt.md",
        "seed001" => "seed001-pson-paper.md",
        "seed002" => "seed002-http-bandwidth.md",
        "seed003" => "seed003-ev-telemetry.md",
        _ => "seed004-dds-cdr-json.md",
    };
    Some((text, format!("docs/studies/{file}")))
}

/// The Markdown of the `## heading` section of a study page (without its heading), up to the
/// next `## `.
pub fn section_markdown(study: &str, heading: &str) -> Option<String> {
    let (text, _) = page(study)?;
    let mut lines = text.lines().skip_while(|l| l.trim_end() != format!("## {heading}"));
    lines.next()?;
    Some(lines.take_while(|l| !l.starts_with("## ")).collect::<Vec<_>>().join("\n").trim().to_string())
}

/// The section as an HTML block: its heading, the rendered Markdown, and where it comes from.
pub fn section_html(study: &str, heading: &str) -> Option<String> {
    let md = section_markdown(study, heading)?;
    let (_, file) = page(study)?;
    Some(format!(
        "<div class=\"study-notes\"><h3>{}</h3>\n{}<p class=\"note\">From {} (the study's page; the same text).</p></div>\n",
        esc(heading),
        markdown_html(&md),
        esc(&file)
    ))
}

/// Inline Markdown: `code`, **bold**, [text](link) (the text only: links of the docs are
/// relative to them).
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut bold = false;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('`') {
            if let Some(end) = r.find('`') {
                out.push_str(&format!("<code>{}</code>", esc(&r[..end])));
                rest = &r[end + 1..];
                continue;
            }
        }
        if let Some(r) = rest.strip_prefix("**") {
            out.push_str(if bold { "</b>" } else { "<b>" });
            bold = !bold;
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix('[') {
            if let Some(close) = r.find("](") {
                if let Some(end) = r[close + 2..].find(')') {
                    out.push_str(&inline(&r[..close]));
                    rest = &r[close + 2 + end + 1..];
                    continue;
                }
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push_str(&esc(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    if bold {
        out.push_str("</b>");
    }
    out
}

/// Block Markdown of the study pages: paragraphs, `-` and `1.` lists with indented
/// continuation lines, `|` tables, fenced code.
pub fn markdown_html(md: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim_start();
        if t.is_empty() {
            i += 1;
        } else if t.starts_with("```") {
            let mut code = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                code.push(lines[i]);
                i += 1;
            }
            i += 1;
            out.push_str(&format!("<pre>{}</pre>\n", esc(&code.join("\n"))));
        } else if t.starts_with('|') {
            let mut rows = Vec::new();
            while i < lines.len() && lines[i].trim_start().starts_with('|') {
                rows.push(lines[i].trim());
                i += 1;
            }
            out.push_str("<div class=\"table-wrap\"><table>");
            for (ri, r) in rows.iter().enumerate() {
                let cells: Vec<&str> = r.trim_matches('|').split('|').map(str::trim).collect();
                if cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':'))) {
                    continue;
                }
                let tag = if ri == 0 { "th" } else { "td" };
                out.push_str("<tr>");
                for c in cells {
                    out.push_str(&format!("<{tag}>{}</{tag}>", inline(c)));
                }
                out.push_str("</tr>");
            }
            out.push_str("</table></div>\n");
        } else if let Some(kind) = list_item(t) {
            let tag = if kind { "ol" } else { "ul" };
            out.push_str(&format!("<{tag}>"));
            while i < lines.len() {
                let Some(k) = list_item(lines[i].trim_start()) else { break };
                if k != kind {
                    break;
                }
                let mut item = item_text(lines[i].trim_start()).to_string();
                i += 1;
                // Continuation lines: indented, not a new item.
                while i < lines.len() && lines[i].starts_with("  ") && list_item(lines[i].trim_start()).is_none() {
                    item.push(' ');
                    item.push_str(lines[i].trim());
                    i += 1;
                }
                out.push_str(&format!("<li>{}</li>", inline(&item)));
                while i < lines.len()
                    && lines[i].trim().is_empty()
                    && lines.get(i + 1).is_some_and(|n| list_item(n.trim_start()) == Some(kind))
                {
                    i += 1;
                }
            }
            out.push_str(&format!("</{tag}>\n"));
        } else {
            let mut para = Vec::new();
            while i < lines.len() {
                let t = lines[i].trim_start();
                if t.is_empty() || t.starts_with('|') || t.starts_with("```") || list_item(t).is_some() {
                    break;
                }
                para.push(lines[i].trim());
                i += 1;
            }
            out.push_str(&format!("<p>{}</p>\n", inline(&para.join(" "))));
        }
    }
    out
}

/// `Some(true)` for `1. `, `Some(false)` for `- `.
fn list_item(t: &str) -> Option<bool> {
    if t.starts_with("- ") {
        return Some(false);
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && t[digits..].starts_with(". ")).then_some(true)
}

fn item_text(t: &str) -> &str {
    match t.strip_prefix("- ") {
        Some(r) => r,
        None => t.split_once(". ").map_or(t, |(_, r)| r),
    }
}

/// The section of each seed page that says where the seed's figures cannot be right or
/// reproduced, or what carries over.
pub const CAVEATS: [(&str, &str); 4] = [
    ("seed000", "What the figures mean, and where the thesis cannot be reproduced"),
    ("seed001", "Where the paper cannot be reproduced, or is ambiguous"),
    ("seed002", "What carries over from the seed, and what does not"),
    ("seed003", "What the seed's figures can and cannot say"),
];

/// The paragraphs and lists of a study page's Markdown as plain text that reads the same in
/// Markdown and on the page: one line per paragraph or list item (continuation lines joined),
/// bold marks dropped, links as their text (they are relative to the docs); `code` is kept.
pub fn plain_paragraphs(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let flush = |lines: &mut Vec<String>, out: &mut Vec<String>| {
        if !lines.is_empty() {
            out.push(lines.join("\n"));
            lines.clear();
        }
    };
    for l in md.lines() {
        let t = l.trim();
        if t.is_empty() {
            flush(&mut lines, &mut out);
            continue;
        }
        let starts_item = t.starts_with("- ")
            || t.starts_with('|')
            || t.starts_with("```")
            || t.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let text = inline_plain(t);
        match lines.last_mut() {
            Some(last) if !starts_item && !last.starts_with('|') && !last.starts_with("```") => {
                last.push(' ');
                last.push_str(&text);
            }
            _ => lines.push(text),
        }
    }
    flush(&mut lines, &mut out);
    out
}

/// A line of Markdown without `**` and with `[text](link)` as `text`.
pub fn inline_plain(line: &str) -> String {
    let line = line.replace("**", "");
    let mut out = String::new();
    let mut rest = line.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let link =
            after.find(']').filter(|&c| after[c..].starts_with("](")).and_then(|c| Some((c, after[c..].find(')')?)));
        match link {
            Some((close, end)) => {
                out.push_str(&after[..close]);
                rest = &after[close + end + 1..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_page_has_its_caveats_section() {
        for (study, heading) in CAVEATS {
            let md = section_markdown(study, heading).unwrap_or_else(|| panic!("{study}: no section {heading:?}"));
            assert!(md.len() > 200, "{study}: {md}");
            let html = section_html(study, heading).unwrap();
            assert!(
                !html.contains("**") && !html.contains("](") && html.contains("<li>") || html.contains("<p>"),
                "{html}"
            );
        }
        let h = section_html("seed001", "Where the paper cannot be reproduced, or is ambiguous").unwrap();
        assert!(
            h.contains("<ol><li><b>Two rows labelled &quot;XML S&quot;.</b>")
                || h.contains("<ol><li><b>Two rows labelled"),
            "{h}"
        );
        assert!(h.contains("66.3 B") && h.contains("<code>thinger-io/Protoson</code>"));
        assert_eq!(h.matches("<li>").count(), 7, "{h}");
    }

    #[test]
    fn markdown_blocks() {
        let h =
            markdown_html("A **b** `c` [d](e.md)\nmore\n\n- one\n  two\n- three\n\n| x | y |\n|---|--:|\n| 1 | 2 |\n");
        assert_eq!(
            h,
            "<p>A <b>b</b> <code>c</code> d more</p>\n<ul><li>one two</li><li>three</li></ul>\n<div class=\"table-wrap\"><table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table></div>\n"
        );
    }

    #[test]
    fn study_text_is_plain_paragraphs() {
        assert_eq!(
            plain_paragraphs("- **One** [a](x.md) `c`\n  more\n- two [b]\n\nA para\nwraps.\n\n1. first\n2. second"),
            ["- One a `c` more\n- two [b]", "A para wraps.", "1. first\n2. second"]
        );
        assert_eq!(inline_plain("[x] and [y](z) and [w"), "[x] and y and [w");
    }
}
