//! A one-line progress indicator on stderr: redrawn in place on a terminal; when stderr is
//! piped, one line at each quarter of the way (a log shows a long part moving without
//! filling up).

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    on: bool,
    /// Quarters of the way reported so far when piped.
    quarters: usize,
    label: String,
    what: String,
    unit: String,
    started: Instant,
}

impl Progress {
    /// Rounds of a measurement (`3/30 rounds, 16 cases ~12 s left`).
    pub fn new(label: &str, _total: usize, what: &str) -> Progress {
        Progress {
            on: std::io::stderr().is_terminal(),
            quarters: 0,
            label: label.into(),
            what: format!(", {what}"),
            unit: "rounds".into(),
            started: Instant::now(),
        }
    }

    /// Items of some unit (`120/270 firmwares ~20 s left`).
    pub fn items(label: &str, unit: &str) -> Progress {
        Progress {
            on: std::io::stderr().is_terminal(),
            quarters: 0,
            label: label.into(),
            what: String::new(),
            unit: unit.into(),
            started: Instant::now(),
        }
    }

    pub fn update(&mut self, done: usize, total: usize) {
        if !self.on {
            // Piped: a line at 25, 50 and 75 % of the way.
            let q = (done * 4).checked_div(total).unwrap_or(0);
            if q > self.quarters && q < 4 {
                self.quarters = q;
                let left = time_left(self.started, done, total);
                let left = if left.is_empty() { String::new() } else { format!(", {left}") };
                eprintln!("{}: {done}/{total} {}{}{left}", self.label, self.unit, self.what);
            }
            return;
        }
        let width = 30;
        let filled = (done * width).checked_div(total).unwrap_or(width);
        let eta = if done == 0 {
            String::new()
        } else {
            let per = self.started.elapsed().as_secs_f64() / done as f64;
            format!(" {}", left_text(per * (total - done) as f64))
        };
        eprint!(
            "\r{} [{}{}] {done}/{total} {}{}{eta}   ",
            self.label,
            "#".repeat(filled),
            " ".repeat(width - filled),
            self.unit,
            self.what
        );
        let _ = std::io::stderr().flush();
    }

    pub fn finish(&mut self) {
        if self.on {
            eprint!("\r{}\r", " ".repeat(90));
            let _ = std::io::stderr().flush();
        }
    }
}

/// The time left after `done` of `total` equal steps begun at `started`, for a progress line
/// (`~12 s left`, `~3 min 05 s left`); empty before the first step ends.
pub fn time_left(started: Instant, done: usize, total: usize) -> String {
    if done == 0 || done >= total {
        return String::new();
    }
    left_text(started.elapsed().as_secs_f64() / done as f64 * (total - done) as f64)
}

/// `secs` as the time left of a progress line: `~12 s left`, from two minutes on
/// `~3 min 05 s left`.
pub fn left_text(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 120 {
        format!("~{} min {:02} s left", s / 60, s % 60)
    } else {
        format!("~{s} s left")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn time_left_scales_the_elapsed_time() {
        let t = std::time::Instant::now() - std::time::Duration::from_secs(10);
        assert_eq!(super::time_left(t, 0, 4), "");
        assert_eq!(super::time_left(t, 4, 4), "");
        assert_eq!(super::time_left(t, 1, 4), "~30 s left");
        assert_eq!(super::time_left(t, 1, 20), "~3 min 10 s left");
    }
}
