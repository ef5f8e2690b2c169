//! What Sundial's samples of a `job` row reconstruct: the cycles the runner made between two
//! polls, placed on its cadence where the counter and the interval say exactly when, else the
//! stretch unobserved (unknown, never missed).
use super::*;

/// One state of a job's row as Sundial's polls saw it (its times in UTC), and the first and
/// last poll that saw it. A value the row held that Sundial could not read is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CycleSample {
    pub first_seen: DateTime<Utc>,
    pub seen_until: DateTime<Utc>,
    /// `job_status`, upper case.
    pub status: Option<String>,
    pub interval: Option<i64>,
    pub schedule_start: Option<DateTime<Utc>>,
    pub runner_start: Option<DateTime<Utc>>,
    pub runner_finish: Option<DateTime<Utc>>,
    /// `job_runner_cycles`: the cycles that succeeded since the runner started.
    pub cycles: Option<i64>,
    pub last_start: Option<DateTime<Utc>>,
    pub last_finish: Option<DateTime<Utc>>,
}

impl CycleSample {
    /// The same row state (everything but the polls).
    pub fn same_state(&self, other: &CycleSample) -> bool {
        let key = |s: &CycleSample| {
            (
                s.status.clone(),
                s.interval,
                s.schedule_start,
                s.runner_start,
                s.runner_finish,
                s.cycles,
                s.last_start,
                s.last_finish,
            )
        };
        key(self) == key(other)
    }

    fn status(&self) -> &str {
        self.status.as_deref().unwrap_or_default()
    }

    /// Whether the cycle at `last_start` finished: its finish written at or after its start.
    /// (In the same second, RUNNING or ERROR mean the next cycle started as the last ended.)
    fn last_finished(&self) -> bool {
        match (self.last_start, self.last_finish) {
            (Some(s), Some(f)) if f > s => true,
            (Some(s), Some(f)) if f == s => !matches!(self.status(), "RUNNING" | "ERROR"),
            _ => false,
        }
    }

    /// Cycles this runner started: the counter (successes) plus one started and not finished;
    /// `None` when the counter is unknown but a cycle is.
    fn started(&self) -> Option<i64> {
        match (self.cycles, self.last_start) {
            // Saturating: a corrupt counter (i64::MAX) must not overflow.
            (Some(c), Some(_)) => Some(c.max(0).saturating_add(i64::from(!self.last_finished()))),
            (Some(c), None) => Some(c.max(0)),
            (None, None) => Some(0),
            (None, Some(_)) => None,
        }
    }

    /// The runner's first cycle: its start, or the schedule's when it slept until then.
    pub fn first_cycle(&self) -> Option<DateTime<Utc>> {
        self.runner_start.map(|r| self.schedule_start.map_or(r, |s| s.max(r)))
    }

    /// How far back this sample, the first of a job, proves anything: the first cycle of the
    /// runner it shows (the counter covers every cycle since), else the poll itself.
    pub fn known_since(&self) -> DateTime<Utc> {
        match (self.first_cycle(), self.started()) {
            (Some(a), Some(_)) => a.min(self.first_seen),
            _ => self.first_seen,
        }
    }

    /// The runner wrote its end.
    fn ended(&self) -> bool {
        self.runner_finish.is_some_and(|f| self.runner_start.is_none_or(|r| f >= r))
    }

    /// Nothing is due after the cycle at `last_start`: the runner failed or finished, or will
    /// stop or skip at its next cycle (ABORTED or PAUSED written while it slept: written while
    /// a cycle ran, the runner overwrites them when the cycle ends).
    fn stops(&self) -> bool {
        match self.status() {
            "ERROR" | "FINISHED" => true,
            "ABORTED" | "PAUSED" => self.last_start.is_none() || self.last_finished(),
            _ => false,
        }
    }
}

/// What [`reconstruct`] found for one job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// The cycles inside the window, by start.
    pub runs: Vec<Run>,
    /// For [`JobTableRow::cycle_anchors`].
    pub anchors: Vec<Anchor>,
    /// Stretches in which the cycles that ran could not be placed.
    pub unobserved: Vec<Window>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How far a gap of `k` intervals may differ from `k × interval` and still be the cadence:
/// the runner counts whole seconds and sometimes wakes a second late.
fn tolerance(k: i64) -> TimeDelta {
    secs(2 + k / 60)
}

/// A cycle as the samples know it.
#[derive(Clone, Debug, Default)]
struct Known {
    start: Option<DateTime<Utc>>,
    finish: Option<DateTime<Utc>>,
    failed: bool,
    /// The last poll that saw it running.
    running_until: Option<DateTime<Utc>>,
    /// The interval when it was seen.
    interval: Option<i64>,
}

/// Everything a runner's reconstruction needs besides its samples.
struct Ctx<'a> {
    schedule: ScheduleId,
    stuck_after: TimeDelta,
    now: DateTime<Utc>,
    window: Window,
    out: &'a mut History,
    /// Cycles not placed, with the first stretch they lie in.
    unplaced: (i64, Option<Window>),
    /// Cycles placed so far, and whether the cap cut some off.
    placed: usize,
    capped: bool,
}

impl Ctx<'_> {
    fn push(&mut self, run: Run) {
        let end = run.end();
        if run.start < self.window.end && (self.window.contains(run.start) || end > self.window.start) {
            self.out.runs.push(run);
        }
    }

    fn run(&self, start: DateTime<Utc>, secs: i64, outcome: RunOutcome, message: String) -> Run {
        Run {
            start,
            duration_secs: secs.max(0),
            outcome,
            trigger: Trigger::Schedule(Some(self.schedule)),
            message,
            steps: Vec::new(),
        }
    }

    fn unobserved(&mut self, from: DateTime<Utc>, to: DateTime<Utc>) {
        if from < to {
            self.out.unobserved.push(Window::new(from, to));
        }
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// Every cycle of one job that Sundial's `samples` (of its row, any order) show inside
/// `window`, with the anchors the forecast follows and the stretches nobody can tell about.
/// `now` is the poll's time; a cycle not finished after `stuck_after` is taken as crashed.
/// See the module docs for the rules.
pub fn reconstruct(
    samples: &[CycleSample],
    schedule: ScheduleId,
    window: Window,
    stuck_after: TimeDelta,
    now: DateTime<Utc>,
) -> History {
    let mut sorted: Vec<&CycleSample> = samples.iter().collect();
    sorted.sort_by_key(|s| s.first_seen);
    // Runners: consecutive samples with the same runner start.
    let mut runners: Vec<Vec<&CycleSample>> = Vec::new();
    for s in sorted {
        match runners.last_mut() {
            Some(r) if r[0].runner_start == s.runner_start => r.push(s),
            _ => runners.push(vec![s]),
        }
    }
    let mut out = History::default();
    let mut cx =
        Ctx { schedule, stuck_after, now, window, out: &mut out, unplaced: (0, None), placed: 0, capped: false };
    for (i, samples) in runners.iter().enumerate() {
        let next = runners.get(i + 1).map(|n| n[0]);
        let counted = samples[0].runner_start.is_some() && samples.iter().all(|s| s.started().is_some());
        if counted {
            runner(samples, next, &mut cx);
        } else {
            uncounted(samples, next, &mut cx);
        }
    }
    let (n, first) = cx.unplaced;
    if let Some(w) = first {
        cx.out.diagnostics.push(Diagnostic::new(
            Severity::Info,
            Some("job_runner_cycles"),
            None,
            format!(
                "{n} cycle(s) the counter says ran could not be placed (the gap is not a whole number of intervals: \
                 a cycle overran or the job was paused), first between {} and {}: those stretches are unknown",
                ts(w.start),
                ts(w.end)
            ),
        ));
    }
    if cx.capped {
        cx.out.diagnostics.push(Diagnostic::warning(
            "job_runner_cycles",
            crate::dialect::MAX_OCCURRENCES,
            "more cycles in the window than Sundial places: the rest are left out",
        ));
    }
    out.runs.sort_by_key(|r| r.start);
    out.anchors = thin(std::mem::take(&mut out.anchors));
    out
}

/// One runner's cycles, indexed by its counter.
fn runner(samples: &[&CycleSample], next: Option<&CycleSample>, cx: &mut Ctx) {
    let (mut known, stop, started) = known_cycles(samples, cx);
    let last = samples[samples.len() - 1];
    first_cycle(samples, &mut known, started, stop, cx);
    let placed = place_between(&known, started, cx);
    if let Some(at) = stop {
        cx.out.anchors.push(Anchor { at, kind: AnchorKind::Stop, interval: last.interval });
    }
    push_runs(&known, started, placed, last, next, cx);
    // A live runner replaced by a new one: what it did after the last poll that saw it is unknown.
    if let Some(next) = next
        && !last.ended()
        && !last.stops()
    {
        cx.unobserved(last.seen_until, next.first_cycle().unwrap_or(next.first_seen));
    }
}

/// What the samples say of each cycle by its index (`job_runner_cycles - 1`), where the runner
/// stopped, and how many cycles it started; a pause seen between cycles is an anchor.
fn known_cycles(samples: &[&CycleSample], cx: &mut Ctx) -> (BTreeMap<i64, Known>, Option<DateTime<Utc>>, i64) {
    let mut known: BTreeMap<i64, Known> = BTreeMap::new();
    let mut stop: Option<DateTime<Utc>> = None;
    let mut started = 0;
    for s in samples {
        let n = s.started().unwrap_or(0);
        started = started.max(n);
        let Some(ls) = s.last_start else {
            if s.stops() {
                stop = s.runner_start;
            }
            continue;
        };
        let Some(idx) = n.checked_sub(1).filter(|i| *i >= 0) else { continue };
        let c = known.entry(idx).or_default();
        c.start = Some(ls);
        c.interval = s.interval.or(c.interval);
        if s.last_finished() {
            c.finish = s.last_finish;
        } else {
            c.running_until = c.running_until.max(Some(s.seen_until));
            if s.status() == "ERROR" {
                c.failed = true;
                c.finish = s.runner_finish.filter(|f| *f >= ls);
            }
            // While a cycle runs, the last finish is the previous cycle's.
            if let (Some(lf), Some(prev)) = (s.last_finish, idx.checked_sub(1).filter(|p| *p >= 0)) {
                known.entry(prev).or_default().finish.get_or_insert(lf);
            }
        }
        if s.stops() {
            stop = Some(ls);
        }
        // A pause seen between cycles: the next cycle is due at its own start.
        if s.stops() && s.status() == "PAUSED" {
            cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Stop, interval: s.interval });
        }
    }
    (known, stop, started)
}

/// The runner's first cycle: due when it starts cycling (unless it stopped before).
fn first_cycle(
    samples: &[&CycleSample],
    known: &mut BTreeMap<i64, Known>,
    started: i64,
    stop: Option<DateTime<Utc>>,
    cx: &mut Ctx,
) {
    let first_cycle = samples[0].first_cycle().unwrap_or(samples[0].first_seen);
    // The first cycle is due when the runner starts cycling.
    let zero = known.entry(0).or_default();
    let zero_seen = zero.start.is_some();
    if started > 0 && !zero_seen {
        zero.start = Some(first_cycle);
        zero.interval = zero.interval.or(samples[0].interval);
    } else if started == 0 && !zero_seen {
        known.remove(&0);
    }
    // The runner's first cycle is due when it starts cycling (unless it stopped before).
    if started > 0 || stop.is_none() {
        let at = known.get(&0).and_then(|k| k.start).unwrap_or(first_cycle);
        cx.out.anchors.push(Anchor { at, kind: AnchorKind::Fresh, interval: samples[0].interval });
    }
}

/// The cycles between two known starts: chained anchors, and the counted cycles placed evenly
/// where the gap is whole intervals (else the stretch is unobserved).
fn place_between(known: &BTreeMap<i64, Known>, started: i64, cx: &mut Ctx) -> Vec<(i64, DateTime<Utc>, String)> {
    let points: Vec<(i64, DateTime<Utc>)> =
        known.iter().filter(|(i, _)| **i < started).filter_map(|(i, k)| k.start.map(|s| (*i, s))).collect();
    let mut placed: Vec<(i64, DateTime<Utc>, String)> = Vec::new();
    for w in points.windows(2) {
        let ((ia, ta), (ib, tb)) = (w[0], w[1]);
        let k = ib - ia;
        let interval = known[&ib].interval.filter(|i| *i >= 1 && known[&ia].interval.is_none_or(|a| a == *i));
        let fits = interval.is_some_and(|i| {
            let want = k.checked_mul(i).and_then(TimeDelta::try_seconds);
            want.and_then(|w| (tb - ta).checked_sub(&w)).is_some_and(|d| d.abs() <= tolerance(k))
        });
        let held = known[&ia].finish.or(known[&ia].running_until).is_some_and(|f| plus(f, tolerance(1)) >= tb);
        let chained = fits || (k == 1 && held);
        let kind = if chained { AnchorKind::Chain } else { AnchorKind::Fresh };
        cx.out.anchors.push(Anchor { at: tb, kind, interval });
        if fits && k >= 2 {
            // Evenly between the two (the few seconds the runner drifts spread over the gap), and
            // only those the window needs: the runner may be years old.
            let gap = (tb - ta).num_milliseconds();
            let at =
                |j: i64| plus(ta, TimeDelta::milliseconds(((i128::from(gap) * i128::from(j)) / i128::from(k)) as i64));
            let per = (gap / k).max(1);
            let from = ((cx.window.start - ta).num_milliseconds() / per - 1).clamp(1, k);
            let to = ((cx.window.end - ta).num_milliseconds() / per + 1).clamp(1, k);
            for j in from..to {
                let t = at(j);
                if t < plus(cx.window.start, secs(-1)) || t >= cx.window.end {
                    continue;
                }
                if cx.placed >= crate::dialect::MAX_OCCURRENCES {
                    cx.capped = true;
                    break;
                }
                cx.placed += 1;
                let why = format!(
                    "placed by the cycle counter (job_runner_cycles), between the cycles seen at {} and {}; its start \
                     is estimated from the interval",
                    ts(ta),
                    ts(tb)
                );
                placed.push((ia + j, t, why));
            }
        } else if !chained {
            cx.unobserved(ta, tb);
            cx.unplaced.0 = cx.unplaced.0.saturating_add(k - 1);
            if k > 1 && cx.unplaced.1.is_none() {
                cx.unplaced.1 = Some(Window::new(ta, tb));
            }
        }
    }
    placed
}

/// The runs: the placed cycles, then every cycle whose start is known, with its outcome.
fn push_runs(
    known: &BTreeMap<i64, Known>,
    started: i64,
    placed: Vec<(i64, DateTime<Utc>, String)>,
    last: &CycleSample,
    next: Option<&CycleSample>,
    cx: &mut Ctx,
) {
    for (idx, at, why) in placed {
        let k = known.get(&idx);
        let finish = k.and_then(|k| k.finish);
        let run = cx.run(at, finish.map_or(0, |f| (f - at).num_seconds()), RunOutcome::Succeeded, why);
        cx.push(run);
    }
    // The cycles whose start is known.
    for (&idx, k) in known.iter().filter(|(i, _)| **i < started) {
        let Some(start) = k.start else { continue };
        let until = |t: DateTime<Utc>| (t - start).num_seconds();
        let (outcome, secs, message) = if k.failed {
            let end = k.finish.or(k.running_until).unwrap_or(start);
            let when = k.finish.map(|f| format!(" at {}", ts(f))).unwrap_or_default();
            (
                RunOutcome::Failed,
                until(end),
                format!("the job procedure raised an exception: the runner stopped (job_status ERROR{when})"),
            )
        } else if let Some(f) = k.finish {
            (RunOutcome::Succeeded, until(f), String::new())
        } else if idx + 1 < started {
            // A later cycle started: this one succeeded (a failure ends the loop).
            (RunOutcome::Succeeded, k.running_until.map_or(0, until), String::new())
        } else {
            last_cycle(start, k, last, next, cx)
        };
        let run = cx.run(start, secs, outcome, message);
        cx.push(run);
    }
}

/// The runner's last cycle, started and not finished when last seen.
fn last_cycle(
    start: DateTime<Utc>,
    k: &Known,
    last: &CycleSample,
    next: Option<&CycleSample>,
    cx: &Ctx,
) -> (RunOutcome, i64, String) {
    let seen = k.running_until.unwrap_or(start);
    let held = (seen - start).num_seconds();
    if let Some(n) = next {
        let by = n.runner_start.map(|r| format!("a new runner started at {}", ts(r)));
        return (
            RunOutcome::Crashed,
            held,
            format!(
                "started, never finished: still running when Sundial last saw it at {}, then {}: its runner was gone",
                ts(seen),
                by.unwrap_or_else(|| "the job's runner changed".into())
            ),
        );
    }
    if last.ended() {
        let at = last.runner_finish.map(ts).unwrap_or_default();
        return (
            RunOutcome::Unknown,
            held,
            format!("the runner ended at {at} without writing this cycle's finish: how the cycle ended is unknown"),
        );
    }
    if cx.now - start > cx.stuck_after {
        return (
            RunOutcome::Crashed,
            cx.stuck_after.num_seconds(),
            format!(
                "started, not finished after {} minutes (Sundial's stuck_after; the design has no timeout): taken as \
                 crashed, its runner gone with its connection while the row still says {}",
                cx.stuck_after.num_minutes(),
                last.status()
            ),
        );
    }
    (RunOutcome::InProgress, (cx.now - start).num_seconds(), String::new())
}

/// Samples without a counter: one cycle per distinct start (its latest state), and the
/// stretch from the last poll that saw one cycle to the next cycle unobserved.
fn uncounted(samples: &[&CycleSample], next: Option<&CycleSample>, cx: &mut Ctx) {
    let until = next.map(|n| n.first_cycle().unwrap_or(n.first_seen));
    // (cycle start, the latest sample that saw it)
    let mut cycles: Vec<(DateTime<Utc>, &CycleSample)> = Vec::new();
    for s in samples {
        let Some(ls) = s.last_start.filter(|l| until.is_none_or(|u| *l < u)) else { continue };
        match cycles.last_mut() {
            Some((at, latest)) if *at == ls => *latest = s,
            _ => cycles.push((ls, s)),
        }
    }
    let current = samples.last().copied().filter(|_| next.is_none());
    for (i, &(ls, s)) in cycles.iter().enumerate() {
        if let Some((_, p)) = i.checked_sub(1).map(|p| cycles[p]) {
            cx.unobserved(p.seen_until, ls);
        }
        cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Chain, interval: s.interval });
        if s.stops() {
            cx.out.anchors.push(Anchor { at: ls, kind: AnchorKind::Stop, interval: s.interval });
        }
        let is_current = current.is_some_and(|c| std::ptr::eq(c, s));
        let (outcome, secs, message) = if s.last_finished() {
            (RunOutcome::Succeeded, s.last_finish.map_or(0, |f| (f - ls).num_seconds()), String::new())
        } else if s.status() == "ERROR" {
            let end = s.runner_finish.filter(|f| *f >= ls).unwrap_or(ls);
            let why = "the job procedure raised an exception: the runner stopped (job_status ERROR)";
            (RunOutcome::Failed, (end - ls).num_seconds(), why.to_owned())
        } else if is_current && s.status.is_some() {
            let k = Known { start: Some(ls), running_until: Some(s.seen_until), ..Known::default() };
            last_cycle(ls, &k, s, None, cx)
        } else {
            let why = "Sundial's samples kept only this cycle's start (no cycle counter): how it ended is unknown";
            (RunOutcome::Unknown, 0, why.to_owned())
        };
        let run = cx.run(ls, secs, outcome, message);
        cx.push(run);
    }
}

/// Anchors in time order, without the `Chain`s that fall on the cadence already in force
/// (within [`SLACK_SECS`]): they change nothing.
fn thin(mut anchors: Vec<Anchor>) -> Vec<Anchor> {
    anchors.sort_by_key(|a| (a.at, a.kind));
    anchors.dedup();
    let mut out: Vec<Anchor> = Vec::new();
    let mut grid: Option<(DateTime<Utc>, Option<i64>)> = None;
    for a in anchors {
        match a.kind {
            AnchorKind::Chain => {
                if let Some((g, Some(step))) = grid
                    && step >= 1
                    && a.interval.is_none_or(|i| i == step)
                    && a.at >= g
                {
                    let off = (a.at - g).num_seconds().rem_euclid(step);
                    if off <= SLACK_SECS || step - off <= SLACK_SECS {
                        continue;
                    }
                }
                grid = Some((a.at, a.interval));
            }
            AnchorKind::Fresh => grid = Some((a.at, a.interval)),
            AnchorKind::Stop => grid = None,
        }
        out.push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn sample(first: &str, until: &str) -> CycleSample {
        CycleSample {
            first_seen: t(first),
            seen_until: t(until),
            status: Some("SLEEPING".into()),
            interval: Some(3600),
            runner_start: Some(t("2026-03-02T00:00:00Z")),
            ..CycleSample::default()
        }
    }

    fn day() -> Window {
        Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-03T00:00:00Z"))
    }

    fn starts(h: &History) -> Vec<(String, RunOutcome)> {
        h.runs.iter().map(|r| (r.start.format("%H:%M").to_string(), r.outcome)).collect()
    }

    #[test]
    fn the_counter_places_cycles_between_polls_and_back_to_the_runner_start() {
        let a = CycleSample {
            cycles: Some(3),
            last_start: Some(t("2026-03-02T02:00:00Z")),
            last_finish: Some(t("2026-03-02T02:05:00Z")),
            ..sample("2026-03-02T02:40:00Z", "2026-03-02T02:40:00Z")
        };
        let b = CycleSample {
            status: Some("RUNNING".into()),
            cycles: Some(6),
            last_start: Some(t("2026-03-02T06:00:00Z")),
            last_finish: Some(t("2026-03-02T05:04:00Z")),
            ..sample("2026-03-02T06:20:00Z", "2026-03-02T06:20:00Z")
        };
        let h = reconstruct(&[b, a], 1, day(), secs(3600), t("2026-03-02T06:20:00Z"));
        let want: Vec<(String, RunOutcome)> = (0..6)
            .map(|h| (format!("{h:02}:00"), RunOutcome::Succeeded))
            .chain([("06:00".to_owned(), RunOutcome::InProgress)])
            .collect();
        assert_eq!(starts(&h), want);
        assert_eq!(h.runs[5].duration_secs, 240, "the running sample's last finish is the previous cycle's");
        assert!(h.unobserved.is_empty(), "{:?}", h.unobserved);
        assert_eq!(
            h.anchors,
            [Anchor { at: t("2026-03-02T00:00:00Z"), kind: AnchorKind::Fresh, interval: Some(3600) }]
        );
    }

    #[test]
    fn a_gap_that_is_not_the_cadence_is_unobserved() {
        let a = CycleSample {
            cycles: Some(1),
            last_start: Some(t("2026-03-02T00:00:00Z")),
            last_finish: Some(t("2026-03-02T00:01:00Z")),
            ..sample("2026-03-02T00:30:00Z", "2026-03-02T00:30:00Z")
        };
        let b = CycleSample {
            cycles: Some(4),
            last_start: Some(t("2026-03-02T05:00:00Z")),
            last_finish: Some(t("2026-03-02T05:01:00Z")),
            ..sample("2026-03-02T05:30:00Z", "2026-03-02T05:30:00Z")
        };
        let h = reconstruct(&[a, b], 1, day(), secs(3600), t("2026-03-02T05:30:00Z"));
        assert_eq!(starts(&h), [("00:00".into(), RunOutcome::Succeeded), ("05:00".into(), RunOutcome::Succeeded)]);
        assert_eq!(h.unobserved, [Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-02T05:00:00Z"))]);
        assert!(h.anchors.iter().any(|a| a.kind == AnchorKind::Fresh && a.at == t("2026-03-02T05:00:00Z")));
        assert!(h.diagnostics.iter().any(|d| d.message.starts_with("2 cycle(s)")), "{:?}", h.diagnostics);
    }

    #[test]
    fn odd_samples_do_not_panic() {
        let weird = CycleSample {
            cycles: Some(-5),
            interval: Some(0),
            last_start: Some(DateTime::<Utc>::MIN_UTC),
            last_finish: Some(DateTime::<Utc>::MAX_UTC),
            ..sample("2026-03-02T00:30:00Z", "2026-03-02T00:30:00Z")
        };
        let huge = CycleSample { cycles: Some(i64::MAX), interval: Some(i64::MAX), ..weird.clone() };
        let far = CycleSample { runner_start: Some(DateTime::<Utc>::MIN_UTC), ..weird.clone() };
        let h = reconstruct(&[weird, huge, far], 1, day(), secs(3600), t("2026-03-02T05:30:00Z"));
        assert!(h.runs.len() <= 3);
    }

    #[test]
    fn a_pause_seen_between_cycles_stops_the_cadence_until_the_next_cycle() {
        let before = CycleSample {
            cycles: Some(3),
            last_start: Some(t("2026-03-02T02:00:00Z")),
            last_finish: Some(t("2026-03-02T02:01:00Z")),
            ..sample("2026-03-02T02:30:00Z", "2026-03-02T02:30:00Z")
        };
        let paused = CycleSample { status: Some("PAUSED".into()), ..before.clone() };
        let paused =
            CycleSample { first_seen: t("2026-03-02T04:30:00Z"), seen_until: t("2026-03-02T04:30:00Z"), ..paused };
        let resumed = CycleSample {
            status: Some("RUNNING".into()),
            last_start: Some(t("2026-03-02T05:00:00Z")),
            ..sample("2026-03-02T05:10:00Z", "2026-03-02T05:10:00Z")
        };
        let resumed = CycleSample { cycles: Some(3), last_finish: Some(t("2026-03-02T02:01:00Z")), ..resumed };
        let h = reconstruct(&[before, paused, resumed], 1, day(), secs(3600), t("2026-03-02T05:10:00Z"));
        let s = RunOutcome::Succeeded;
        assert_eq!(
            starts(&h),
            [("00:00".into(), s), ("01:00".into(), s), ("02:00".into(), s), ("05:00".into(), RunOutcome::InProgress)]
        );
        let kinds: Vec<(String, AnchorKind)> =
            h.anchors.iter().map(|a| (a.at.format("%H:%M").to_string(), a.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("00:00".into(), AnchorKind::Fresh),
                ("02:00".into(), AnchorKind::Stop),
                ("05:00".into(), AnchorKind::Fresh)
            ]
        );
        // The forecast from them: nothing due while paused.
        let row = JobTableRow {
            job_schedule_start: Some("2026-03-02 00:00:00".into()),
            job_schedule_interval: Some("3600".into()),
            job_status: Some("RUNNING".into()),
            cycle_anchors: h.anchors,
            ..JobTableRow::default()
        };
        let f = forecast(1, &row, Zone::UTC, Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-02T07:00:00Z")));
        let due: Vec<String> = f.occurrences.iter().map(|o| o.at.format("%H:%M").to_string()).collect();
        assert_eq!(due, ["00:00", "01:00", "02:00", "05:00", "06:00"]);
    }

    #[test]
    fn a_runner_decades_old_places_only_the_window() {
        let old = CycleSample {
            interval: Some(60),
            runner_start: Some(t("1996-03-02T00:00:00Z")),
            cycles: Some(15_778_080),
            last_start: Some(t("2026-03-02T00:00:00Z")),
            last_finish: Some(t("2026-03-02T00:00:30Z")),
            ..sample("2026-03-02T00:01:00Z", "2026-03-02T00:01:00Z")
        };
        let new = CycleSample {
            cycles: Some(15_778_080 + 1440),
            last_start: Some(t("2026-03-03T00:00:00Z")),
            last_finish: Some(t("2026-03-03T00:00:30Z")),
            ..old.clone()
        };
        let h = reconstruct(&[old, new], 1, day(), secs(3600), t("2026-03-03T00:01:00Z"));
        assert_eq!(h.runs.len(), 1440, "a day of minutes");
        assert!(h.runs.iter().all(|r| day().contains(r.start) && r.outcome == RunOutcome::Succeeded));
        assert!(h.runs.windows(2).all(|w| w[1].start - w[0].start == secs(60)));
    }
}
