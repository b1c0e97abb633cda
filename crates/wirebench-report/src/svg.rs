//! Small SVG chart primitives for the HTML report: horizontal (grouped) bar charts with error
//! whiskers and reference lines, line charts and CDFs, linear or logarithmic axes with "nice"
//! ticks, legends, and a colour-blind-safe palette (Okabe–Ito).
//!
//! Every chart is returned as one `<svg>` string meant to be inlined in HTML: it has a
//! `viewBox` (it scales to its container), `role="img"`, an `aria-label` and a `<title>`, text
//! labels for every axis and series, and a `<title>` tooltip on every bar or line. The output is
//! deterministic: coordinates are printed with fixed precision and nothing depends on time or
//! hashing. No `xmlns` is written: inline SVG in HTML does not need one (and the page stays
//! free of URLs).

use std::fmt::Write;

/// Okabe–Ito colours, ordered so that the first ones contrast well on white. The yellow comes
/// last; bars are also outlined, so it stays visible.
pub const PALETTE: [&str; 8] = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"];

/// Colour of series `i` (wraps around).
/// An axis label, marked "(log scale)" once when the axis is logarithmic.
fn log_label(label: &str, log: bool) -> String {
    if log && !label.contains("(log scale)") {
        format!("{label} (log scale)")
    } else {
        label.to_string()
    }
}

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

const INK: &str = "#1a1a1a";
const MUTED: &str = "#595959";
const GRID: &str = "#e3e3e3";
const FONT: &str = "system-ui, -apple-system, Segoe UI, Roboto, Noto Sans, DejaVu Sans, sans-serif";

/// Escape text for HTML/SVG element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A number with a fixed count of decimals; `-` for NaN/infinity, never `-0`.
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// A coordinate: one decimal, trailing `.0` dropped.
fn c(v: f64) -> String {
    let s = fixed(v, 1);
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Keep only characters that are safe in an element id.
fn clean_id(id: &str) -> String {
    let s: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    if s.is_empty() {
        "chart".into()
    } else {
        s
    }
}

/// Rough width of `text` in px at `size` px (sans-serif average).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|ch| match ch {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '!' | '|' | '\'' | 'I' | ' ' | '(' | ')' | 't' | 'f' | 'r' => {
                0.33
            }
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.9,
            'A'..='Z' => 0.68,
            _ => 0.58,
        })
        .sum::<f64>()
        * size
}

/// Cut `text` to fit `width` px at `size` px, with an ellipsis.
fn fit(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for ch in text.chars() {
        out.push(ch);
        if text_width(&out, size) + text_width("…", size) > width {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// A step of 1, 2 or 5 × 10^k giving about `target` intervals over `range`.
pub fn nice_step(range: f64, target: usize) -> f64 {
    if range.is_nan() || range <= 0.0 || !range.is_finite() {
        return 1.0;
    }
    let raw = range / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A value axis: linear or base-10 logarithmic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub min: f64,
    pub max: f64,
    pub log: bool,
    /// Tick step of a linear scale.
    pub step: f64,
}

impl Scale {
    /// A linear scale over `[lo, hi]` widened to nice tick steps (about `ticks` of them).
    pub fn linear(lo: f64, hi: f64, ticks: usize) -> Scale {
        let (mut lo, mut hi) = (lo.min(hi), lo.max(hi));
        if !lo.is_finite() || !hi.is_finite() {
            lo = 0.0;
            hi = 1.0;
        }
        if hi - lo <= 0.0 {
            if hi == 0.0 {
                hi = 1.0;
            } else {
                lo = lo.min(0.0);
                hi = hi.max(0.0) + hi.abs() * 0.1;
            }
        }
        let step = nice_step(hi - lo, ticks);
        let min = (lo / step + 1e-9).floor() * step;
        let max = (hi / step - 1e-9).ceil() * step;
        Scale { min, max, log: false, step }
    }

    /// A log scale from the 1, 2 or 5 × 10^k at or below `lo` to the one at or above `hi`
    /// (spanning at least one decade; non-positive values fall back to 1).
    pub fn log(lo: f64, hi: f64) -> Scale {
        let lo = if lo > 0.0 && lo.is_finite() { lo } else { 1.0 };
        let hi = if hi > 0.0 && hi.is_finite() { hi.max(lo) } else { lo * 10.0 };
        let steps = |v: f64| -> (f64, f64) {
            // The 1-2-5 values just at or below and at or above v.
            let e = v.log10().floor() as i32;
            let mut below = mul_pow10(1.0, e);
            let mut above = mul_pow10(10.0, e);
            for m in [1.0, 2.0, 5.0, 10.0] {
                let x = mul_pow10(m, e);
                if x <= v * (1.0 + 1e-9) {
                    below = x;
                }
                if x >= v * (1.0 - 1e-9) && x < above {
                    above = x;
                }
            }
            (below, above)
        };
        let min = steps(lo).0;
        let mut max = steps(hi).1;
        if max / min < 10.0 * (1.0 - 1e-9) {
            // At least a decade, widened on the side with more room.
            max = min * 10.0;
        }
        Scale { min, max, log: true, step: 0.0 }
    }

    /// Where `v` falls, 0 at `min` and 1 at `max` (clamped to [-0.05, 1.05]).
    pub fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            if v <= 0.0 {
                return 0.0;
            }
            (v.log10() - self.min.log10()) / (self.max.log10() - self.min.log10())
        } else {
            (v - self.min) / (self.max - self.min)
        };
        if f.is_finite() {
            f.clamp(-0.05, 1.05)
        } else {
            0.0
        }
    }

    /// Tick positions: every step (linear); 1, 2, 5 × each decade, or only decades when there
    /// are more than three (log).
    pub fn ticks(&self) -> Vec<f64> {
        let mut out = Vec::new();
        if self.log {
            let (a, b) = (self.min.log10().floor() as i32, self.max.log10().ceil() as i32);
            let decades = (self.max / self.min).log10();
            let mults: &[f64] = if decades <= 1.5 {
                &[1.0, 2.0, 5.0]
            } else if decades <= 3.5 {
                &[1.0, 3.0]
            } else {
                &[1.0]
            };
            for e in a..=b {
                for m in mults {
                    let v = mul_pow10(*m, e);
                    if v >= self.min * (1.0 - 1e-9) && v <= self.max * (1.0 + 1e-9) {
                        out.push(v);
                    }
                }
            }
        } else {
            let n = ((self.max - self.min) / self.step).round() as i64;
            for i in 0..=n.min(50) {
                out.push(self.min + self.step * i as f64);
            }
        }
        out
    }

    /// The label of tick `v`.
    pub fn label(&self, v: f64) -> String {
        if self.log {
            compact(v, if v < 1.0 { (-(v.log10() + 1e-9).floor()) as usize } else { 0 })
        } else {
            let d = if self.step >= 1.0 || self.step <= 0.0 { 0 } else { (-self.step.log10().floor()) as usize };
            let d = if (self.step * 10f64.powi(d as i32)).fract().abs() > 1e-9 { d + 1 } else { d };
            compact(v, d.min(6))
        }
    }
}

/// `m` × 10^`e`, computed so that e.g. 3 × 10^-1 is exactly the double nearest 0.3.
fn mul_pow10(m: f64, e: i32) -> f64 {
    if e >= 0 {
        m * 10f64.powi(e)
    } else {
        m / 10f64.powi(-e)
    }
}

/// A number with k/M/G suffixes from ten thousand on (three significant digits at most), plain
/// with `decimals` below.
pub fn compact(v: f64, decimals: usize) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e10 {
        (v / 1e9, "G")
    } else if a >= 1e7 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        return fixed(v, decimals);
    };
    let d = if x.abs() < 10.0 {
        2
    } else if x.abs() < 100.0 {
        1
    } else {
        0
    };
    let mut s = fixed(x, d);
    while s.contains('.') && (s.ends_with('0') || s.ends_with('.')) {
        s.pop();
    }
    s + suffix
}

/// How a legend entry is drawn.
#[derive(Clone, Debug)]
struct Key {
    name: String,
    color: String,
    hatched: bool,
    dashed: bool,
    line: bool,
}

/// A hatch pattern for series `i` of chart `id`.
fn hatch_def(id: &str, i: usize, color: &str) -> String {
    format!(
        "<pattern id=\"{id}-h{i}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
         <rect width=\"6\" height=\"6\" fill=\"#ffffff\"/><rect width=\"3\" height=\"6\" fill=\"{color}\"/></pattern>"
    )
}

/// Lay the legend out in rows from (`x0`, `y0`) within `width`; returns the SVG and its height.
fn legend(id: &str, keys: &[(usize, Key)], x0: f64, y0: f64, width: f64) -> (String, f64) {
    let mut out = String::new();
    let (mut x, mut y) = (x0, y0);
    let row_h = 18.0;
    for (i, k) in keys {
        let w = 22.0 + text_width(&k.name, 12.0) + 18.0;
        if x > x0 && x + w > x0 + width {
            x = x0;
            y += row_h;
        }
        if k.line {
            let dash = if k.dashed { " stroke-dasharray=\"5 3\"" } else { "" };
            let _ = write!(
                out,
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{dash}/>",
                c(x),
                c(y - 4.0),
                c(x + 16.0),
                c(y - 4.0),
                k.color
            );
        } else {
            let fill = if k.hatched { format!("url(#{id}-h{i})") } else { k.color.clone() };
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{fill}\" stroke=\"{}\"/>",
                c(x),
                c(y - 10.0),
                k.color
            );
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{INK}\">{}</text>",
            c(x + 21.0),
            c(y),
            esc(&k.name)
        );
        x += w;
    }
    (out, y - y0 + row_h)
}

fn svg_open(id: &str, title: &str, w: f64, h: f64) -> String {
    format!(
        "<svg id=\"{id}\" class=\"chart\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\" font-family=\"{FONT}\"><title>{}</title>",
        c(w),
        c(h),
        c(w),
        c(h),
        esc(title),
        esc(title)
    )
}

/// One series of bars: one value (and optionally a 95 % interval) per category.
#[derive(Clone, Debug, Default)]
pub struct Bars {
    pub name: String,
    pub values: Vec<Option<f64>>,
    /// Error interval per category (empty: no whiskers).
    pub errors: Vec<Option<(f64, f64)>>,
    /// Drawn with diagonal hatching (e.g. figures taken from elsewhere).
    pub hatched: bool,
    /// Fixed colour (default: the palette by series index).
    pub color: Option<String>,
}

impl Bars {
    pub fn new(name: &str, values: Vec<Option<f64>>) -> Bars {
        Bars { name: name.to_string(), values, ..Default::default() }
    }

    pub fn errors(mut self, errors: Vec<Option<(f64, f64)>>) -> Bars {
        self.errors = errors;
        self
    }

    pub fn hatched(mut self, hatched: bool) -> Bars {
        self.hatched = hatched;
        self
    }

    pub fn color(mut self, color: &str) -> Bars {
        self.color = Some(color.to_string());
        self
    }
}

/// A horizontal bar chart: categories down the left, one bar per series in each category.
#[derive(Clone, Debug)]
pub struct BarChart {
    /// Unique within the page: the `<svg>` id and the prefix of its internal ids.
    pub id: String,
    pub title: String,
    pub categories: Vec<String>,
    pub series: Vec<Bars>,
    pub axis_label: String,
    pub log: bool,
    /// A vertical line at a value, with its label (e.g. `1` = the baseline).
    pub reference: Option<(f64, String)>,
    /// ViewBox width in px (the chart scales to its container).
    pub width: f64,
    /// How value labels beside the bars are printed.
    pub value_format: fn(f64) -> String,
    /// Draw the value beside each bar.
    pub value_labels: bool,
    /// Height of one bar in px (default by series count).
    pub bar_height: Option<f64>,
    /// The value bars start from (default 0, or the axis minimum on a log axis). A ratio chart
    /// uses 1: bars then grow left for less, right for more.
    pub base: Option<f64>,
    /// What stands where a value is missing (default `n/a`).
    pub missing_label: String,
}

fn default_format(v: f64) -> String {
    compact(v, if v.abs() < 10.0 { 2 } else { 0 })
}

impl BarChart {
    pub fn new(id: &str, title: &str, categories: Vec<String>) -> BarChart {
        BarChart {
            id: clean_id(id),
            title: title.to_string(),
            categories,
            series: Vec::new(),
            axis_label: String::new(),
            log: false,
            reference: None,
            width: 800.0,
            value_format: default_format,
            value_labels: true,
            bar_height: None,
            base: None,
            missing_label: "n/a".into(),
        }
    }

    pub fn missing_label(mut self, label: &str) -> BarChart {
        self.missing_label = label.to_string();
        self
    }

    pub fn base(mut self, value: f64) -> BarChart {
        self.base = Some(value);
        self
    }

    pub fn bar_height(mut self, px: f64) -> BarChart {
        self.bar_height = Some(px);
        self
    }

    pub fn series(mut self, bars: Bars) -> BarChart {
        self.series.push(bars);
        self
    }

    pub fn axis_label(mut self, label: &str) -> BarChart {
        self.axis_label = label.to_string();
        self
    }

    pub fn log(mut self, log: bool) -> BarChart {
        self.log = log;
        self
    }

    pub fn reference(mut self, value: f64, label: &str) -> BarChart {
        self.reference = Some((value, label.to_string()));
        self
    }

    pub fn width(mut self, width: f64) -> BarChart {
        self.width = width;
        self
    }

    pub fn value_format(mut self, f: fn(f64) -> String) -> BarChart {
        self.value_format = f;
        self
    }

    pub fn value_labels(mut self, on: bool) -> BarChart {
        self.value_labels = on;
        self
    }

    fn series_color(&self, i: usize) -> String {
        self.series[i].color.clone().unwrap_or_else(|| color(i).to_string())
    }

    /// The chart as an `<svg>` element.
    pub fn render(&self) -> String {
        let id = &self.id;
        let w = self.width;
        let ns = self.series.len().max(1);
        let usable = |v: f64| v.is_finite() && (!self.log || v > 0.0);
        // Data range (values, whiskers, the reference and the base bars start from).
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let mut take = |v: f64| {
            if usable(v) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        };
        for s in &self.series {
            s.values.iter().flatten().for_each(|v| take(*v));
            s.errors.iter().flatten().for_each(|(a, b)| {
                take(*a);
                take(*b)
            });
        }
        if let Some((r, _)) = &self.reference {
            take(*r);
        }
        match self.base {
            Some(b) => take(b),
            None if !self.log => take(0.0),
            None => {}
        }
        let scale = if !lo.is_finite() {
            if self.log {
                Scale::log(1.0, 10.0)
            } else {
                Scale::linear(0.0, 1.0, 5)
            }
        } else if self.log {
            Scale::log(lo, hi)
        } else {
            Scale::linear(lo, hi, 6)
        };
        let base = match self.base {
            Some(b) if usable(b) => b,
            _ if self.log => scale.min,
            _ => 0.0,
        };
        // Layout: category labels | (labels of bars going left) plot (labels of bars going right).
        let label_w = self.categories.iter().map(|s| text_width(s, 12.0)).fold(40.0, f64::max).min(w * 0.3);
        let left = label_w + 14.0;
        let label_of = |v: f64| (self.value_format)(v);
        let (mut right_w, mut left_w) = (0.0f64, 0.0f64);
        if self.value_labels {
            for s in &self.series {
                for v in &s.values {
                    let tw = text_width(&v.map_or(self.missing_label.clone(), label_of), 11.0) + 10.0;
                    match v {
                        Some(v) if usable(*v) && *v < base => left_w = left_w.max(tw),
                        _ => right_w = right_w.max(tw),
                    }
                }
            }
        }
        let x0 = left + left_w;
        let right = right_w.max(18.0);
        let plot_w = (w - x0 - right).max(60.0);
        let mut svg_body = String::new();
        let mut defs = String::new();
        let mut y = 22.0;
        let _ = write!(
            svg_body,
            "<text x=\"0\" y=\"{}\" font-size=\"15\" font-weight=\"600\" fill=\"{INK}\">{}</text>",
            c(y - 6.0),
            esc(&fit(&self.title, w, 15.0))
        );
        y += 8.0;
        let keys: Vec<(usize, Key)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    i,
                    Key {
                        name: s.name.clone(),
                        color: self.series_color(i),
                        hatched: s.hatched,
                        dashed: false,
                        line: false,
                    },
                )
            })
            .collect();
        for (i, s) in self.series.iter().enumerate() {
            if s.hatched {
                defs.push_str(&hatch_def(id, i, &self.series_color(i)));
            }
        }
        if self.series.len() > 1 || self.series.iter().any(|s| s.hatched) {
            let (l, h) = legend(id, &keys, left, y + 12.0, w - left);
            svg_body.push_str(&l);
            y += h + 4.0;
        }
        if self.reference.is_some() {
            y += 14.0;
        }
        let top = y + 4.0;
        let bar_h = self.bar_height.unwrap_or(match ns {
            1 => 18.0,
            2 => 13.0,
            3 => 10.0,
            _ => 8.0,
        });
        let band = bar_h * ns as f64 + if ns == 1 { bar_h * 0.5 + 2.0 } else { 10.0 };
        let plot_h = band * self.categories.len().max(1) as f64;
        let bottom = top + plot_h;
        let x_of = |v: f64| x0 + scale.frac(v) * plot_w;
        // Grid and ticks.
        for t in scale.ticks() {
            let x = x_of(t);
            let _ = write!(
                svg_body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{GRID}\"/>\
                 <text x=\"{0}\" y=\"{3}\" font-size=\"11\" fill=\"{MUTED}\" text-anchor=\"middle\">{4}</text>",
                c(x),
                c(top),
                c(bottom),
                c(bottom + 15.0),
                esc(&scale.label(t))
            );
        }
        let _ = write!(
            svg_body,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{MUTED}\"/>",
            c(x_of(base)),
            c(top),
            c(bottom)
        );
        // The reference line goes under the bars and labels.
        if let Some((r, label)) = &self.reference {
            if usable(*r) {
                let x = x_of(*r);
                let anchor = if x > x0 + plot_w * 0.85 {
                    "end"
                } else if x < x0 + plot_w * 0.15 {
                    "start"
                } else {
                    "middle"
                };
                let _ = write!(
                    svg_body,
                    "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{INK}\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>\
                     <text x=\"{0}\" y=\"{3}\" font-size=\"11\" fill=\"{INK}\" text-anchor=\"{anchor}\">{4}</text>",
                    c(x),
                    c(top - 2.0),
                    c(bottom),
                    c(top - 6.0),
                    esc(label)
                );
            }
        }
        // Bars.
        let halo = "paint-order=\"stroke\" stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\"";
        for (ci, cat) in self.categories.iter().enumerate() {
            let y0 = top + band * ci as f64 + if ns == 1 { (band - bar_h) / 2.0 } else { 5.0 };
            let _ = write!(
                svg_body,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{INK}\" text-anchor=\"end\"><title>{}</title>{}</text>",
                c(left - 8.0),
                c(y0 + bar_h * ns as f64 / 2.0 + 4.0),
                esc(cat),
                esc(&fit(cat, label_w, 12.0))
            );
            for (si, s) in self.series.iter().enumerate() {
                let by = y0 + bar_h * si as f64;
                let cy = by + bar_h / 2.0;
                let col = self.series_color(si);
                let raw = s.values.get(ci).copied().flatten();
                let err = s.errors.get(ci).copied().flatten();
                let v = match raw {
                    Some(v) if usable(v) => v,
                    _ => {
                        // No value, or one the axis cannot show (zero on a log axis): text only.
                        let (text, tip) = match raw {
                            Some(v) if v.is_finite() => (label_of(v), label_of(v)),
                            _ => (self.missing_label.clone(), "no value".to_string()),
                        };
                        let _ = write!(
                            svg_body,
                            "<text x=\"{}\" y=\"{}\" font-size=\"10.5\" font-style=\"italic\" fill=\"{MUTED}\">{}<title>{} · {}: {}</title></text>",
                            c(x_of(base) + 4.0),
                            c(cy + 3.5),
                            esc(&text),
                            esc(cat),
                            esc(&s.name),
                            esc(&tip)
                        );
                        continue;
                    }
                };
                let (xa, xb) = (x_of(base.min(v)), x_of(base.max(v)));
                let fill = if s.hatched { format!("url(#{id}-h{si})") } else { col.clone() };
                let mut tip = format!("{} · {}: {}", cat, s.name, label_of(v));
                if let Some((a, b)) = err {
                    tip.push_str(&format!(" (95% CI {} to {})", label_of(a), label_of(b)));
                }
                let _ = write!(
                    svg_body,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"{col}\" stroke-width=\"0.8\"><title>{}</title></rect>",
                    c(xa),
                    c(by + 0.5),
                    c((xb - xa).max(0.8)),
                    c(bar_h - 1.0),
                    esc(&tip)
                );
                let (mut end_lo, mut end_hi) = (xa, xb);
                if let Some((a, b)) = err {
                    if usable(a) && usable(b) {
                        let (ea, eb) = (x_of(a.min(b)), x_of(a.max(b)));
                        let cap = (bar_h * 0.35).max(3.0);
                        let _ = write!(
                            svg_body,
                            "<path d=\"M{0} {1}H{2}M{0} {3}V{4}M{2} {3}V{4}\" stroke=\"{INK}\" stroke-width=\"1.3\" fill=\"none\"/>",
                            c(ea),
                            c(cy),
                            c(eb),
                            c(cy - cap),
                            c(cy + cap)
                        );
                        end_lo = end_lo.min(ea);
                        end_hi = end_hi.max(eb);
                    }
                }
                if self.value_labels {
                    let (x, anchor) = if v < base { (end_lo - 4.0, "end") } else { (end_hi + 4.0, "start") };
                    let _ = write!(
                        svg_body,
                        "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{INK}\" text-anchor=\"{anchor}\" {halo}>{}</text>",
                        c(x),
                        c(cy + 3.8),
                        esc(&label_of(v))
                    );
                }
            }
        }
        let mut h = bottom + 20.0;
        if !self.axis_label.is_empty() {
            let label = log_label(&self.axis_label, self.log);
            let _ = write!(
                svg_body,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{MUTED}\" text-anchor=\"middle\">{}</text>",
                c(x0 + plot_w / 2.0),
                c(bottom + 33.0),
                esc(&label)
            );
            h = bottom + 40.0;
        }
        let mut out = svg_open(id, &self.title, w, h);
        if !defs.is_empty() {
            let _ = write!(out, "<defs>{defs}</defs>");
        }
        out.push_str(&svg_body);
        out.push_str("</svg>");
        out
    }
}

/// One line of a line chart.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
    /// Draw as a step function (horizontal, then vertical), as for a CDF.
    pub step: bool,
    /// Mark every point with a dot.
    pub markers: bool,
    pub color: Option<String>,
}

impl Line {
    pub fn new(name: &str, points: Vec<(f64, f64)>) -> Line {
        Line { name: name.to_string(), points, ..Default::default() }
    }

    pub fn dashed(mut self, on: bool) -> Line {
        self.dashed = on;
        self
    }

    pub fn step(mut self, on: bool) -> Line {
        self.step = on;
        self
    }

    pub fn markers(mut self, on: bool) -> Line {
        self.markers = on;
        self
    }

    pub fn color(mut self, color: &str) -> Line {
        self.color = Some(color.to_string());
        self
    }
}

/// A line chart with one or more series (latency over time, throughput against load, a CDF).
#[derive(Clone, Debug)]
pub struct LineChart {
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    /// Start the y axis at zero (linear only).
    pub y_zero: bool,
    /// Fixed y range (e.g. 0–100 for a CDF).
    pub y_range: Option<(f64, f64)>,
    pub lines: Vec<Line>,
    pub width: f64,
    pub height: f64,
}

impl LineChart {
    pub fn new(id: &str, title: &str, x_label: &str, y_label: &str) -> LineChart {
        LineChart {
            id: clean_id(id),
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_log: false,
            y_log: false,
            y_zero: true,
            y_range: None,
            lines: Vec::new(),
            width: 800.0,
            height: 360.0,
        }
    }

    pub fn line(mut self, line: Line) -> LineChart {
        self.lines.push(line);
        self
    }

    pub fn log_x(mut self, on: bool) -> LineChart {
        self.x_log = on;
        self
    }

    pub fn log_y(mut self, on: bool) -> LineChart {
        self.y_log = on;
        self
    }

    pub fn y_zero(mut self, on: bool) -> LineChart {
        self.y_zero = on;
        self
    }

    pub fn y_range(mut self, lo: f64, hi: f64) -> LineChart {
        self.y_range = Some((lo, hi));
        self
    }

    pub fn size(mut self, width: f64, height: f64) -> LineChart {
        self.width = width;
        self.height = height;
        self
    }

    fn line_color(&self, i: usize) -> String {
        self.lines[i].color.clone().unwrap_or_else(|| color(i).to_string())
    }

    /// The chart as an `<svg>` element.
    pub fn render(&self) -> String {
        let id = &self.id;
        let (w, h) = (self.width, self.height);
        let ok_x = |v: f64| v.is_finite() && (!self.x_log || v > 0.0);
        let ok_y = |v: f64| v.is_finite() && (!self.y_log || v > 0.0);
        let pts: Vec<Vec<(f64, f64)>> = self
            .lines
            .iter()
            .map(|l| l.points.iter().copied().filter(|(x, y)| ok_x(*x) && ok_y(*y)).collect())
            .collect();
        let range = |sel: fn(&(f64, f64)) -> f64| {
            pts.iter().flatten().map(sel).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)))
        };
        let (xl, xh) = range(|p| p.0);
        let (yl, yh) = match self.y_range {
            Some(r) => r,
            None => range(|p| p.1),
        };
        let xs = if self.x_log {
            Scale::log(xl, xh)
        } else if xl.is_finite() {
            Scale::linear(xl, xh, 7)
        } else {
            Scale::linear(0.0, 1.0, 5)
        };
        let ys = if self.y_log {
            Scale::log(yl, yh)
        } else if yl.is_finite() {
            let lo = if self.y_zero { yl.min(0.0) } else { yl };
            Scale::linear(lo, yh, 5)
        } else {
            Scale::linear(0.0, 1.0, 5)
        };
        let ytick_w = ys.ticks().iter().map(|t| text_width(&ys.label(*t), 11.0)).fold(0.0, f64::max);
        let left = ytick_w + 34.0;
        let right = 16.0;
        let mut body = String::new();
        let _ = write!(
            body,
            "<text x=\"0\" y=\"16\" font-size=\"15\" font-weight=\"600\" fill=\"{INK}\">{}</text>",
            esc(&fit(&self.title, w, 15.0))
        );
        let keys: Vec<(usize, Key)> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                (
                    i,
                    Key {
                        name: l.name.clone(),
                        color: self.line_color(i),
                        hatched: false,
                        dashed: l.dashed,
                        line: true,
                    },
                )
            })
            .collect();
        let mut top = 30.0;
        if self.lines.len() > 1 {
            let (l, lh) = legend(id, &keys, left, top + 12.0, w - left - right);
            body.push_str(&l);
            top += lh + 4.0;
        }
        top += 6.0;
        let bottom = h - 42.0;
        let plot_w = w - left - right;
        let plot_h = (bottom - top).max(40.0);
        let bottom = top + plot_h;
        let x_of = |v: f64| left + xs.frac(v) * plot_w;
        let y_of = |v: f64| bottom - ys.frac(v) * plot_h;
        for t in xs.ticks() {
            let _ = write!(
                body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{GRID}\"/>\
                 <text x=\"{0}\" y=\"{3}\" font-size=\"11\" fill=\"{MUTED}\" text-anchor=\"middle\">{4}</text>",
                c(x_of(t)),
                c(top),
                c(bottom),
                c(bottom + 15.0),
                esc(&xs.label(t))
            );
        }
        for t in ys.ticks() {
            let _ = write!(
                body,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{GRID}\"/>\
                 <text x=\"{3}\" y=\"{4}\" font-size=\"11\" fill=\"{MUTED}\" text-anchor=\"end\">{5}</text>",
                c(left),
                c(y_of(t)),
                c(left + plot_w),
                c(left - 6.0),
                c(y_of(t) + 4.0),
                esc(&ys.label(t))
            );
        }
        let _ = write!(
            body,
            "<path d=\"M{} {}V{}H{}\" stroke=\"{MUTED}\" fill=\"none\"/>",
            c(left),
            c(top),
            c(bottom),
            c(left + plot_w)
        );
        for (i, (l, p)) in self.lines.iter().zip(&pts).enumerate() {
            if p.is_empty() {
                continue;
            }
            let col = self.line_color(i);
            let mut d = String::new();
            let mut prev: Option<(f64, f64)> = None;
            for (x, y) in p {
                let (px, py) = (x_of(*x), y_of(*y));
                match prev {
                    None => {
                        let _ = write!(d, "M{} {}", c(px), c(py));
                    }
                    Some((_, qy)) if l.step => {
                        let _ = write!(d, "L{} {}L{} {}", c(px), c(qy), c(px), c(py));
                    }
                    Some(_) => {
                        let _ = write!(d, "L{} {}", c(px), c(py));
                    }
                }
                prev = Some((px, py));
            }
            let dash = if l.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
            let _ = write!(
                body,
                "<path d=\"{d}\" stroke=\"{col}\" stroke-width=\"2\" fill=\"none\"{dash}><title>{}</title></path>",
                esc(&l.name)
            );
            if l.markers {
                for (x, y) in p {
                    let _ = write!(
                        body,
                        "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{col}\"><title>{}: {}, {}</title></circle>",
                        c(x_of(*x)),
                        c(y_of(*y)),
                        esc(&l.name),
                        esc(&compact(*x, 2)),
                        esc(&compact(*y, 2))
                    );
                }
            }
        }
        let xl = log_label(&self.x_label, self.x_log);
        let yl = log_label(&self.y_label, self.y_log);
        let _ = write!(
            body,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{MUTED}\" text-anchor=\"middle\">{}</text>\
             <text transform=\"translate(12 {}) rotate(-90)\" font-size=\"12\" fill=\"{MUTED}\" text-anchor=\"middle\">{}</text>",
            c(left + plot_w / 2.0),
            c(bottom + 33.0),
            esc(&xl),
            c(top + plot_h / 2.0),
            esc(&yl)
        );
        let mut out = svg_open(id, &self.title, w, bottom + 40.0);
        out.push_str(&body);
        out.push_str("</svg>");
        out
    }
}

/// A CDF chart: for each named set of CDF points (value, % of samples at or below it), a step
/// line.
pub fn cdf(id: &str, title: &str, x_label: &str, sets: &[(String, Vec<(f64, f64)>)], log_x: bool) -> String {
    let mut chart = LineChart::new(id, title, x_label, "% of samples ≤ x").log_x(log_x).y_range(0.0, 100.0);
    for (name, points) in sets {
        chart = chart.line(Line::new(name, points.clone()).step(true));
    }
    chart.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        let s = Scale::linear(0.0, 778.0, 6);
        assert_eq!((s.min, s.max, s.step), (0.0, 800.0, 200.0));
        assert_eq!(s.ticks(), vec![0.0, 200.0, 400.0, 600.0, 800.0]);
        let s = Scale::linear(0.0, 2.64, 6);
        assert_eq!(s.step, 0.5);
        assert_eq!(s.label(1.5), "1.5");
        assert_eq!(Scale::linear(0.0, 0.07, 5).label(0.02), "0.02");
        assert_eq!(Scale::linear(0.0, 25000.0, 5).label(15000.0), "15k");
        let l = Scale::log(3.0, 42000.0);
        assert_eq!((l.min, l.max), (2.0, 50000.0));
        assert_eq!(l.ticks(), vec![10.0, 100.0, 1000.0, 10000.0]);
        assert_eq!(l.label(10000.0), "10k");
        let l = Scale::log(0.12, 29.7);
        assert_eq!((l.min, l.max), (0.1, 50.0));
        assert_eq!(l.ticks(), vec![0.1, 0.3, 1.0, 3.0, 10.0, 30.0]);
        assert_eq!(l.label(0.3), "0.3");
        let l = Scale::log(0.69, 2.64);
        assert_eq!((l.min, l.max), (0.5, 5.0));
        assert_eq!(l.ticks(), vec![0.5, 1.0, 2.0, 5.0]);
        assert!((Scale::log(1.0, 100.0).frac(10.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_log_axis_says_so_once() {
        let svg = |label: &str| {
            BarChart::new("t", "t", vec!["a".into()])
                .series(Bars::new("s", vec![Some(10.0)]))
                .axis_label(label)
                .log(true)
                .render()
        };
        assert_eq!(svg("messages per day (log scale)").matches("(log scale)").count(), 1);
        assert_eq!(svg("bytes").matches("(log scale)").count(), 1);
        assert_eq!(log_label("x", false), "x");
    }

    #[test]
    fn numbers() {
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(f64::NAN, 2), "-");
        assert_eq!(compact(12500.0, 0), "12.5k");
        assert_eq!(compact(51_744.0, 0), "51.7k");
        assert_eq!(compact(3_000_000_000.0, 0), "3000M");
        assert_eq!(c(12.0), "12");
        assert_eq!(esc("<a href='x'>&\""), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
    }
}
