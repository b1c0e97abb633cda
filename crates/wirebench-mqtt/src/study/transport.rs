//! Transport runs: throughput cases in rounds of one repetition each (ours and the bare pair
//! interleaved A B B A …, calibrated, repeated until their intervals are narrow enough), and
//! echo RTT cases with their samples pooled; each into its result row.

use std::fmt::Write as _;
use std::time::Instant;

use wirebench_core::part::PartError;
use wirebench_core::sections::mqtt::{EndReason, RttRow, RttSide, ThroughputRow, ThroughputSide};

use super::brokers::{Broker, PayloadSpec};
use super::common::{ci95, median_of, mqtt_err};
use super::StudyOpts;
use crate::{
    baseline_echo_rtt, baseline_throughput, cdf_us, detect_nagle_stall, echo_rtt, latency_stats, throughput,
    EchoConfig, EchoResult, Payloads, ThroughputConfig, ThroughputResult, ECHO_P50_RATIO_GOAL, HEADER_LEN,
    THROUGHPUT_RATIO_GOAL,
};

fn dedup_push(into: &mut Vec<String>, from: &[String]) {
    for e in from {
        if !into.contains(e) {
            into.push(e.clone());
        }
    }
}

/// Run `f` with the counting allocator on; its result and allocations per `messages`.
fn counted<T>(messages: u64, f: impl FnOnce() -> T) -> (T, Option<f64>) {
    let mut f = Some(f);
    let mut out = None;
    let stats = wirebench_measure::alloc::measure(1, || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    let out = match out {
        Some(o) => o,
        // Not installed: measure() did not call us.
        None => (f.take().expect("not run yet"))(),
    };
    (out, stats.map(|s| s.allocs_per_op / messages.max(1) as f64))
}

/// One side of a throughput case over its repetitions (each with its allocations per message).
fn throughput_side(runs: &[(ThroughputResult, Option<f64>)]) -> ThroughputSide {
    let rates: Vec<f64> = runs.iter().map(|(r, _)| r.subscriber.msgs_per_s).collect();
    let allocs: Vec<f64> = runs.iter().filter_map(|(_, a)| *a).collect();
    let qos1 = runs.iter().any(|(r, _)| r.delivery.acked.is_some());
    let publisher: Vec<f64> = runs.iter().map(|(r, _)| r.publisher.msgs_per_s).collect();
    let mb: Vec<f64> = runs.iter().map(|(r, _)| r.subscriber.mb_per_s).collect();
    let mut s = ThroughputSide {
        acked: qos1.then_some(0),
        unacked: qos1.then_some(0),
        msgs_per_s: median_of(&rates),
        msgs_per_s_ci95: ci95(&rates),
        publisher_msgs_per_s: median_of(&publisher),
        publisher_msgs_per_s_ci95: ci95(&publisher),
        mb_per_s: median_of(&mb),
        mb_per_s_ci95: ci95(&mb),
        per_rep_msgs_per_s: rates,
        scheduled: Some(0),
        sent: 0,
        received: 0,
        lost: 0,
        duplicates: None,
        reordered: None,
        delivery_ratio: 1.0,
        failure: None,
        ended_by: Vec::new(),
        allocs_per_msg: median_of(&allocs),
        harness_cores_max: 0.0,
        harness_bound: false,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    for (r, _) in runs {
        let d = &r.delivery;
        s.scheduled = s.scheduled.map(|x| x + d.attempted);
        s.sent += d.sent;
        s.received += d.received;
        s.lost += d.lost;
        s.acked = s.acked.map(|x| x + d.acked.unwrap_or(0));
        s.unacked = s.unacked.map(|x| x + d.unacked.unwrap_or(0));
        s.duplicates = d.duplicates.map(|x| x + s.duplicates.unwrap_or(0));
        s.reordered = d.reordered.map(|x| x + s.reordered.unwrap_or(0));
        s.delivery_ratio = s.delivery_ratio.min(d.delivery_ratio);
        s.ended_by.push(r.ended_by);
        if r.ended_by == EndReason::ConnectionLost && s.failure.is_none() {
            s.failure = Some(lost_connection(&r.errors));
        }
        s.harness_cores_max = s.harness_cores_max.max(r.cpu.harness_cores);
        s.harness_bound |= r.cpu.harness_bound;
        dedup_push(&mut s.errors, &r.errors);
        dedup_push(&mut s.warnings, &r.warnings);
    }
    s
}

/// Why a repetition that lost its connection failed: its first error, or that it lost it.
fn lost_connection(errors: &[String]) -> String {
    errors.first().cloned().unwrap_or_else(|| "a client lost its connection (the broker went away?)".into())
}

/// The shortest throughput repetition of `wirebench mqtt throughput` without `--count`, seconds.
pub const DEFAULT_MIN_RUN_S: f64 = 1.0;

/// How many repetitions the throughput cases get, and how long each lasts.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Rounds {
    /// At least this many rounds.
    pub(super) reps: usize,
    /// At most this many (≥ `reps`).
    pub(super) max_reps: usize,
    /// Calibrate `messages` so that a repetition lasts at least this long, seconds.
    pub(super) min_run_s: Option<f64>,
    /// Add rounds while a 95 % interval's half width exceeds this fraction of its median.
    pub(super) ci_target: Option<f64>,
    /// No round beyond `reps` starts when it would end after this many seconds.
    pub(super) budget_s: Option<f64>,
}

impl Rounds {
    pub(super) fn of_study(o: &StudyOpts) -> Rounds {
        let pos = |x: f64| (x > 0.0).then_some(x);
        Rounds {
            reps: o.reps,
            max_reps: if o.max_reps == 0 { o.reps } else { o.max_reps.max(o.reps) },
            min_run_s: pos(o.min_run_s),
            ci_target: pos(o.ci_target),
            budget_s: pos(o.budget_s),
        }
    }

    /// `6–12 rounds until ±5 %, ≥ 0.5 s each, ≤ 60 s`.
    pub(super) fn describe(&self) -> String {
        let mut out = if self.max_reps > self.reps {
            format!("{}–{} rounds", self.reps, self.max_reps)
        } else {
            format!("{} round{}", self.reps, if self.reps == 1 { "" } else { "s" })
        };
        if let (Some(t), true) = (self.ci_target, self.max_reps > self.reps) {
            let _ = write!(out, " until each 95 % interval is within ±{} %", fmt_pct(t));
        }
        if let Some(m) = self.min_run_s {
            let _ = write!(out, ", each repetition ≥ {m} s");
        }
        if let (Some(b), true) = (self.budget_s, self.max_reps > self.reps) {
            let _ = write!(out, ", rounds beyond {} within {b} s", self.reps);
        }
        out
    }

    /// Whether another round should run after `done` rounds that took `elapsed_s` (the last
    /// one `last_s`), given whether every interval is within the target.
    fn more(&self, done: usize, elapsed_s: f64, last_s: f64, within_target: bool) -> bool {
        if done < self.reps {
            return true;
        }
        if done >= self.max_reps || within_target || self.ci_target.is_none() {
            return false;
        }
        self.budget_s.is_none_or(|b| elapsed_s + last_s <= b)
    }
}

/// A percentage without trailing zeros: 0.05 → `5`, 0.025 → `2.5`.
fn fmt_pct(f: f64) -> String {
    let s = format!("{:.2}", 100.0 * f);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Whether an interval is within ± `target` of `median` (half its width relative to it).
fn within(ci: Option<(f64, f64)>, median: Option<f64>, target: f64) -> bool {
    match (ci, median) {
        (Some((lo, hi)), Some(m)) if m > 0.0 => (hi - lo) / 2.0 <= target * m,
        _ => false,
    }
}

/// Messages for a repetition of at least `min_run_s` at `rate` msgs/s (with a 20 % margin
/// for a calibration run that happened to be fast or slow), never fewer than `given`.
fn calibrated_messages(given: u64, rate: f64, min_run_s: f64) -> u64 {
    if !(rate.is_finite() && rate > 0.0) {
        return given;
    }
    let n = (rate * min_run_s * 1.2).ceil();
    given.max(n.min(1e9) as u64)
}

/// Whether a calibration pass whose shortest run took `shortest_s` is good enough: it lasted
/// at least half the minimum, or the count it gives (`n`) is the count it ran with.
fn calibration_settled(shortest_s: f64, min_s: f64, n: u64, ran: u64) -> bool {
    shortest_s >= min_s / 2.0 || n == ran
}

/// One throughput case while its rounds run.
struct Case<'a> {
    broker: &'a Broker,
    payload: &'a PayloadSpec,
    payloads: Payloads,
    cfg: ThroughputConfig,
    ours: Vec<(ThroughputResult, Option<f64>)>,
    bare: Vec<(ThroughputResult, Option<f64>)>,
    bare_error: Option<String>,
    /// A repetition of ours that could not run after others finished (or that lost its
    /// connection): it ends the rounds, the finished repetitions kept.
    ours_error: Option<String>,
}

impl Case<'_> {
    fn run_ours(&mut self) -> Result<(ThroughputResult, Option<f64>), PartError> {
        let (r, a) = counted(self.cfg.messages, || throughput(self.broker, &self.payloads, &self.cfg));
        Ok((r.map_err(mqtt_err)?, a))
    }

    /// A run of the bare pair; its error is recorded and ends the bare pair's runs.
    fn run_bare(&mut self) -> Option<(ThroughputResult, Option<f64>)> {
        if self.bare_error.is_some() {
            return None;
        }
        let (r, a) = counted(self.cfg.messages, || baseline_throughput(self.broker, &self.payloads, &self.cfg));
        match r {
            Ok(r) => Some((r, a)),
            Err(e) => {
                self.bare_error = Some(format!("bare rumqttc pair: {e}"));
                None
            }
        }
    }

    /// Per-pair ratios ours / bare of the rounds both sides ran.
    fn ratios(&self) -> Vec<f64> {
        self.ours
            .iter()
            .zip(&self.bare)
            .filter(|(_, (b, _))| b.subscriber.msgs_per_s > 0.0)
            .map(|((o, _), (b, _))| o.subscriber.msgs_per_s / b.subscriber.msgs_per_s)
            .collect()
    }

    /// Whether each side's msgs/s and the ratio have a 95 % interval within ± `target`.
    fn within_target(&self, target: f64) -> bool {
        let side = |runs: &[(ThroughputResult, Option<f64>)]| {
            let r: Vec<f64> = runs.iter().map(|(x, _)| x.subscriber.msgs_per_s).collect();
            within(ci95(&r), median_of(&r), target)
        };
        let ratios = self.ratios();
        side(&self.ours)
            && (self.bare.is_empty() || (side(&self.bare) && within(ci95(&ratios), median_of(&ratios), target)))
    }
}

/// The throughput `cases` (each through its broker), in rounds: each round runs one repetition
/// of every case (ours and, with `baseline`, the bare pair back to back), in the listed order in even
/// rounds and in the reverse order in odd ones, so that each pair of runs — ours and bare of a
/// case, and neighbouring cases — alternates A B B A … and a drift of a shared machine touches
/// both alike. With `min_run_s`, each case first runs each side once (not counted) to set its
/// message count. Rounds continue from `reps` up to `max_reps` while an interval is wider than
/// `ci_target` and the time allows. An error of ours ends the study; one of the bare pair is
/// recorded and ends its runs. Rows come back in the order of `cases`.
pub(super) fn throughput_rounds(
    cases: &[(&Broker, &PayloadSpec, ThroughputConfig)],
    rounds: &Rounds,
    baseline: bool,
    progress: bool,
) -> Result<Vec<ThroughputRow>, PartError> {
    let mut cs: Vec<Case> = Vec::with_capacity(cases.len());
    for (broker, payload, cfg) in cases {
        let payloads = Payloads::cycle(payload.items.clone()).map_err(mqtt_err)?;
        cs.push(Case {
            broker,
            payload,
            payloads,
            cfg: cfg.clone(),
            ours: Vec::new(),
            bare: Vec::new(),
            bare_error: None,
            ours_error: None,
        });
    }
    if let Some(min_s) = rounds.min_run_s {
        for c in &mut cs {
            // A calibration run much shorter than the minimum is mostly start-up and a poor
            // estimate of the rate: then once more with the count it gave, and the fastest
            // rate seen sets the count.
            let mut fastest = 0.0f64;
            for pass in 0..2 {
                let o = c.run_ours()?.0;
                let mut shortest = o.subscriber.seconds;
                fastest = fastest.max(o.subscriber.msgs_per_s);
                if let Some((b, _)) = baseline.then(|| c.run_bare()).flatten() {
                    shortest = shortest.min(b.subscriber.seconds);
                    fastest = fastest.max(b.subscriber.msgs_per_s);
                }
                let n = calibrated_messages(c.cfg.messages, fastest, min_s);
                let settled = calibration_settled(shortest, min_s, n, c.cfg.messages);
                c.cfg.messages = n;
                if settled || pass == 1 {
                    break;
                }
            }
            if progress {
                eprintln!(
                    "  throughput {} qos {}: {} messages per repetition",
                    c.payload.label,
                    c.cfg.qos.level(),
                    c.cfg.messages
                );
            }
        }
    }
    let started = Instant::now();
    let mut done = 0;
    loop {
        let round_start = Instant::now();
        for (i, ours) in round_order(cs.len(), done) {
            let none_yet = cs.iter().all(|c| c.ours.is_empty());
            let c = &mut cs[i];
            if ours {
                match c.run_ours() {
                    Ok(o) => {
                        if o.0.ended_by == EndReason::ConnectionLost {
                            c.ours_error = Some(lost_connection(&o.0.errors));
                        }
                        c.ours.push(o);
                    }
                    // Nothing measured yet: the run fails as before (exit 1, nothing kept).
                    Err(e) if none_yet => return Err(e),
                    Err(e) => c.ours_error = Some(e.to_string()),
                }
            } else if baseline {
                if let Some(b) = c.run_bare() {
                    c.bare.push(b);
                }
            }
        }
        done += 1;
        let target_met = rounds.ci_target.is_some_and(|t| cs.iter().all(|c| c.within_target(t)));
        if progress {
            eprintln!("  throughput round {done} (at least {}, at most {})", rounds.reps, rounds.max_reps);
        }
        let (elapsed, last) = (started.elapsed().as_secs_f64(), round_start.elapsed().as_secs_f64());
        // A broker that went away ends the rounds: the repetitions made are kept.
        if cs.iter().any(|c| c.ours_error.is_some()) || !rounds.more(done, elapsed, last, target_met) {
            break;
        }
    }
    Ok(cs.iter().map(|c| throughput_row(c.broker.name(), c, baseline, rounds)).collect())
}

/// The runs of round `round` (from 0) over `cases` cases: (case, ours?) — in even rounds case
/// by case, ours then bare; odd rounds are the same list reversed.
fn round_order(cases: usize, round: usize) -> Vec<(usize, bool)> {
    let mut v: Vec<(usize, bool)> = (0..cases).flat_map(|i| [(i, true), (i, false)]).collect();
    if round % 2 == 1 {
        v.reverse();
    }
    v
}

/// The row of a case whose rounds have run.
fn throughput_row(broker: String, c: &Case, baseline: bool, rounds: &Rounds) -> ThroughputRow {
    let mut ours_side = throughput_side(&c.ours);
    if let Some(e) = &c.ours_error {
        if !ours_side.errors.contains(e) {
            ours_side.errors.push(e.clone());
        }
        ours_side.failure.get_or_insert_with(|| e.clone());
    }
    let mut bare_side = baseline.then(|| throughput_side(&c.bare));
    if let (Some(b), Some(e)) = (bare_side.as_mut(), &c.bare_error) {
        b.errors.push(e.clone());
    }
    let ratios = c.ratios();
    let ratio = median_of(&ratios);
    let ratio_ci95 = ci95(&ratios);
    let durations: Vec<f64> = c.ours.iter().chain(&c.bare).map(|(r, _)| r.subscriber.seconds).collect();
    let ci_met = rounds.ci_target.map(|t| c.within_target(t)).filter(|_| ours_side.msgs_per_s_ci95.is_some());
    let (payload, cfg) = (c.payload, &c.cfg);
    ThroughputRow {
        broker,
        ci_met,
        ci_target: rounds.ci_target,
        drain_s: Some(cfg.drain_timeout_ms as f64 / 1e3),
        payload: payload.label.clone(),
        format: payload.format.clone(),
        fields: payload.fields,
        payload_bytes: payload.mean_len(),
        mqtt_payload_bytes: payload.mean_len() + HEADER_LEN,
        qos: cfg.qos.level(),
        messages: cfg.messages,
        min_run_s: rounds.min_run_s,
        reps: c.ours.len(),
        run_s: median_of(&durations),
        ours: ours_side,
        bare: bare_side,
        ratio,
        ratio_ci95,
        ratio_min: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::INFINITY, f64::min)),
        ratio_max: (!ratios.is_empty()).then(|| ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        goal: THROUGHPUT_RATIO_GOAL,
        meets_goal: ratio.map(|r| r >= THROUGHPUT_RATIO_GOAL),
    }
}

/// One side of an RTT case: every repetition's samples pooled (percentiles, CDF, stall check).
fn rtt_side(runs: &[EchoResult]) -> RttSide {
    let pooled: Vec<u64> = runs.iter().flat_map(|r| r.samples_ns.iter().copied()).collect();
    let mut s = RttSide {
        rtt: latency_stats(&pooled),
        per_rep_p50_us: Vec::new(),
        sent: 0,
        received: 0,
        lost: 0,
        late: 0,
        delivery_ratio: 1.0,
        failure: None,
        ended_by: Vec::new(),
        cdf: cdf_us(&pooled),
        stall: detect_nagle_stall(&pooled).map(|w| w.message),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    for r in runs {
        s.per_rep_p50_us.push(r.rtt.p50_us);
        s.sent += r.delivery.sent;
        s.received += r.delivery.received;
        s.lost += r.delivery.lost;
        s.late += r.delivery.late;
        s.delivery_ratio = s.delivery_ratio.min(r.delivery.delivery_ratio);
        s.ended_by.push(r.ended_by);
        if r.ended_by == EndReason::ConnectionLost && s.failure.is_none() {
            s.failure = Some(lost_connection(&r.errors));
        }
        dedup_push(&mut s.errors, &r.errors);
        dedup_push(&mut s.warnings, &r.warnings);
    }
    s
}

/// `reps` echo runs of ours (samples kept), with the bare pair interleaved when `baseline`.
pub(super) fn rtt_case(
    broker: &Broker,
    payload: &PayloadSpec,
    cfg: &EchoConfig,
    reps: usize,
    baseline: bool,
    progress: bool,
) -> Result<RttRow, PartError> {
    let cfg = EchoConfig { keep_samples: true, ..cfg.clone() };
    let (mut ours, mut bare) = (Vec::new(), Vec::new());
    let mut bare_error: Option<String> = None;
    for i in 0..reps {
        let mut run_bare = |bare: &mut Vec<EchoResult>| {
            if !baseline || bare_error.is_some() {
                return;
            }
            match baseline_echo_rtt(broker, &payload.bytes, &cfg) {
                Ok(r) => bare.push(r),
                Err(e) => bare_error = Some(format!("bare rumqttc pair: {e}")),
            }
        };
        if i % 2 == 0 {
            ours.push(echo_rtt(broker, &payload.bytes, &cfg).map_err(mqtt_err)?);
            run_bare(&mut bare);
        } else {
            run_bare(&mut bare);
            ours.push(echo_rtt(broker, &payload.bytes, &cfg).map_err(mqtt_err)?);
        }
        if progress {
            eprintln!("  rtt {} qos {} rep {}/{reps}", payload.label, cfg.qos.level(), i + 1);
        }
    }
    let ours_side = rtt_side(&ours);
    let mut bare_side = baseline.then(|| rtt_side(&bare));
    if let (Some(b), Some(e)) = (bare_side.as_mut(), bare_error) {
        b.errors.push(e);
    }
    let ratio = bare_side
        .as_ref()
        .filter(|b| b.rtt.count > 0 && b.rtt.p50_us > 0.0 && ours_side.rtt.count > 0)
        .map(|b| ours_side.rtt.p50_us / b.rtt.p50_us);
    Ok(RttRow {
        broker: broker.name(),
        payload: payload.label.clone(),
        format: payload.format.clone(),
        fields: payload.fields,
        payload_bytes: payload.bytes.len(),
        qos: cfg.qos.level(),
        mode: ours.first().map(|r| r.mode.clone()).unwrap_or_default(),
        messages: cfg.messages,
        warmup: cfg.warmup,
        reps,
        ours: ours_side,
        bare: bare_side,
        ratio,
        goal: ECHO_P50_RATIO_GOAL,
        meets_goal: ratio.map(|r| r <= ECHO_P50_RATIO_GOAL),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Credentials, Endpoint};

    #[test]
    fn rounds_alternate_their_order_and_stop_by_count_target_or_budget() {
        // A B B A: the second round is the first reversed, so every neighbouring pair of runs
        // (ours/bare of a case, and neighbouring cases) swaps order.
        assert_eq!(round_order(2, 0), vec![(0, true), (0, false), (1, true), (1, false)]);
        assert_eq!(round_order(2, 1), vec![(1, false), (1, true), (0, false), (0, true)]);
        assert_eq!(round_order(2, 2), round_order(2, 0));
        let r = Rounds { reps: 6, max_reps: 10, min_run_s: Some(0.5), ci_target: Some(0.05), budget_s: Some(60.0) };
        assert!(r.more(5, 100.0, 10.0, true), "the minimum always runs");
        assert!(!r.more(6, 10.0, 5.0, true), "target met");
        assert!(r.more(6, 10.0, 5.0, false), "target not met, time left");
        assert!(!r.more(6, 50.0, 15.0, false), "the next round would end past the budget");
        assert!(!r.more(10, 10.0, 1.0, false), "max_reps");
        let fixed = Rounds { ci_target: None, ..r.clone() };
        assert!(!fixed.more(6, 0.0, 0.0, false), "no target: exactly reps");
        assert_eq!(
            r.describe(),
            "6–10 rounds until each 95 % interval is within ±5 %, each repetition ≥ 0.5 s, rounds beyond 6 within 60 s"
        );
        let o = StudyOpts { reps: 3, ..StudyOpts::default() };
        assert_eq!(
            Rounds::of_study(&o),
            Rounds { reps: 3, max_reps: 3, min_run_s: None, ci_target: None, budget_s: None }
        );
        assert_eq!(Rounds::of_study(&o).describe(), "3 rounds");
        assert_eq!(fmt_pct(0.025), "2.5");
    }

    #[test]
    fn a_row_pairs_the_rounds_for_its_ratio_and_interval() {
        let payload = PayloadSpec::parse("bytes:50", 3).unwrap();
        let mk = |rates: &[f64], secs: f64| rates.iter().map(|&r| (run_for(r, 10, 10, secs), None)).collect::<Vec<_>>();
        let broker = Broker::open("mqtt://127.0.0.1:1", &Credentials::default()).unwrap();
        let c = Case {
            broker: &broker,
            payload: &payload,
            payloads: Payloads::cycle(payload.items.clone()).unwrap(),
            cfg: ThroughputConfig { messages: 120_000, ..ThroughputConfig::default() },
            ours: mk(&[90.0, 100.0, 110.0, 100.0, 95.0, 105.0], 0.6),
            bare: mk(&[100.0, 100.0, 100.0, 125.0, 100.0, 100.0], 0.5),
            bare_error: None,
            ours_error: None,
        };
        let rounds = Rounds { reps: 6, max_reps: 6, min_run_s: Some(0.5), ci_target: Some(0.1), budget_s: None };
        let row = throughput_row("b".into(), &c, true, &rounds);
        // Round by round: 0.9, 1.0, 1.1, 0.8, 0.95, 1.05 (not the ratio of the medians, 1.0).
        assert_eq!(row.ratio, Some(0.975));
        assert_eq!(row.ratio_ci95, Some((0.8, 1.1)));
        assert_eq!((row.ratio_min, row.ratio_max), (Some(0.8), Some(1.1)));
        assert_eq!((row.reps, row.messages, row.min_run_s, row.run_s), (6, 120_000, Some(0.5), Some(0.55)));
        assert_eq!(row.ours.msgs_per_s_ci95, Some((90.0, 110.0)));
        // The ratio's interval (±0.15 of 0.975) is wider than ±10 %.
        assert_eq!((row.ci_target, row.ci_met), (Some(0.1), Some(false)));
        assert!(c.within_target(0.2));
        // Without the bare pair there is no ratio, and the target is about ours only.
        let row = throughput_row("b".into(), &Case { bare: Vec::new(), ..c }, false, &rounds);
        assert_eq!((row.ratio, row.ratio_ci95, row.ci_met), (None, None, Some(true)));
        assert!(row.bare.is_none());
    }

    #[test]
    fn calibration_makes_a_repetition_last_the_minimum() {
        // 200,000 msgs/s for ≥ 0.5 s, with a 20 % margin: 120,000 messages.
        assert_eq!(calibrated_messages(20_000, 200_000.0, 0.5), 120_000);
        // Never fewer than given; a failed calibration (no rate) keeps the count.
        assert_eq!(calibrated_messages(20_000, 1_000.0, 0.5), 20_000);
        assert_eq!(calibrated_messages(20_000, 0.0, 0.5), 20_000);
        assert_eq!(calibrated_messages(20_000, f64::NAN, 0.5), 20_000);
        assert_eq!(calibrated_messages(1, 1e12, 600.0), 1_000_000_000, "capped at the run's limit of 1e9");
        // A 70 ms calibration run for a 0.5 s minimum is run again at its count; 0.3 s is enough.
        assert!(!calibration_settled(0.07, 0.5, 120_000, 20_000));
        assert!(calibration_settled(0.3, 0.5, 120_000, 20_000));
        assert!(calibration_settled(0.07, 0.5, 20_000, 20_000), "the count did not change");
        assert!(within(Some((95.0, 105.0)), Some(100.0), 0.05));
        assert!(!within(Some((94.0, 105.0)), Some(100.0), 0.05));
        assert!(!within(None, Some(100.0), 0.5));
    }

    fn run(rate: f64, sent: u64, received: u64) -> ThroughputResult {
        run_for(rate, sent, received, 1.0)
    }

    fn run_for(rate: f64, sent: u64, received: u64, seconds: f64) -> ThroughputResult {
        use crate::{BrokerKind, CpuUsage, Delivery, Harness, PayloadInfo, Rate};
        ThroughputResult {
            harness: Harness::Wirebench,
            broker: Endpoint::new("127.0.0.1", 1883, BrokerKind::External),
            config: ThroughputConfig::default(),
            topic: "t".into(),
            payloads: PayloadInfo {
                distinct: 1,
                min_bytes: 1,
                max_bytes: 1,
                mean_bytes: 1.0,
                header_bytes: HEADER_LEN,
            },
            delivery: Delivery {
                sent,
                received,
                lost: sent - received,
                duplicates: Some(0),
                reordered: Some(1),
                delivery_ratio: received as f64 / sent as f64,
                ..Delivery::default()
            },
            publisher: Rate { msgs_per_s: rate * 2.0, ..Rate::default() },
            subscriber: Rate { msgs_per_s: rate, mb_per_s: 0.5, seconds, ..Rate::default() },
            elapsed_seconds: 1.0,
            cpu: CpuUsage { harness_cores: 0.5, ..CpuUsage::default() },
            ended_by: crate::EndReason::Complete,
            errors: vec!["e".into()],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn throughput_sides_take_medians_and_sum_deliveries() {
        let s = throughput_side(&[
            (run(100.0, 10, 10), Some(3.0)),
            (run(300.0, 10, 9), None),
            (run(200.0, 10, 10), Some(5.0)),
        ]);
        assert_eq!((s.msgs_per_s, s.publisher_msgs_per_s, s.mb_per_s), (Some(200.0), Some(400.0), Some(0.5)));
        assert_eq!(s.per_rep_msgs_per_s, vec![100.0, 300.0, 200.0]);
        assert_eq!((s.sent, s.received, s.lost, s.duplicates, s.reordered), (30, 29, 1, Some(0), Some(3)));
        assert_eq!(s.delivery_ratio, 0.9);
        assert_eq!(s.allocs_per_msg, Some(4.0));
        assert_eq!(s.errors, vec!["e".to_string()], "errors are listed once");
        // Three repetitions give no 95 % interval; six give [min, max].
        assert_eq!((s.msgs_per_s_ci95, s.publisher_msgs_per_s_ci95, s.mb_per_s_ci95), (None, None, None));
        let six: Vec<_> = [100.0, 600.0, 300.0, 200.0, 500.0, 400.0].iter().map(|&r| (run(r, 10, 10), None)).collect();
        let s = throughput_side(&six);
        assert_eq!((s.msgs_per_s, s.msgs_per_s_ci95), (Some(350.0), Some((100.0, 600.0))));
        assert_eq!((s.publisher_msgs_per_s_ci95, s.mb_per_s_ci95), (Some((200.0, 1200.0)), Some((0.5, 0.5))));
        // A side none of whose runs finished has no rates (written as null, as always) and no
        // intervals (left out, as in files written before them, which read back the same).
        let none = throughput_side(&[]);
        assert_eq!((none.msgs_per_s, none.allocs_per_msg, none.delivery_ratio), (None, None, 1.0));
        let text = serde_json::to_string(&none).unwrap();
        assert!(
            text.contains(r#""mb_per_s":null,"msgs_per_s":null,"per_rep_msgs_per_s":[],"publisher_msgs_per_s":null,"#),
            "{text}"
        );
        assert!(!text.contains("ci95"), "{text}");
        assert_eq!(serde_json::from_str::<ThroughputSide>(&text).unwrap(), none);
        let with = serde_json::to_string(&s).unwrap();
        assert!(with.contains(r#""msgs_per_s_ci95":[100.0,600.0]"#), "{with}");
    }
}
