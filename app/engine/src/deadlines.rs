//! Deadlines a job must meet: "the ledger is loaded by 06:00 on weekdays, London time".
//!
//! A [`Deadline`] names a wall-clock time (`by`) on some weekdays in a zone. Each of those days
//! gives one *deadline instant*; at each, the job must have a success that ended after the
//! previous deadline instant and at or before this one ([`verdicts`]). When the latest instant
//! that has passed has none, and no success came since, the job has a problem of kind
//! [`ProblemKind::DeadlineMissed`] ([`problem`]); the first success after the missed instant
//! closes it.
//!
//! # Daylight saving
//!
//! A deadline holds at the wall-clock time it names, resolved as [`crate::tz::resolve`] does:
//! a time inside a spring-forward gap is due at the first instant after the gap; a time inside a
//! fall-back fold is due once, at its earlier instant.
//!
//! Pure: `now` and every range are arguments.
use crate::reconcile::{Run, RunOutcome};
use crate::sentence::Sentence;
use crate::triage::{Problem, ProblemKind};
use crate::{Window, Zone};
use chrono::{DateTime, Datelike, NaiveTime, TimeDelta, Utc};

/// One deadline as the judgment sees it (the fleet file's `[[deadline]]`, validated).
#[derive(Clone, Debug, PartialEq)]
pub struct Deadline {
    /// What people call it ("Ledger ready for finance").
    pub name: String,
    /// The wall-clock time in `zone` the success must come by.
    pub by: NaiveTime,
    /// The weekdays it holds on, `days[0]` Sunday … `days[6]` Saturday.
    pub days: [bool; 7],
    pub zone: Zone,
}

/// How one deadline instant went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The deadline instant.
    pub at: DateTime<Utc>,
    /// The deadline instant before it (the success must end after it).
    pub previous: Option<DateTime<Utc>>,
    /// When the first success in `(previous, at]` ended; `None`: missed.
    pub met: Option<DateTime<Utc>>,
}

impl Deadline {
    /// Its instants in `range` (half-open), in order.
    pub fn instants(&self, range: Window) -> Vec<DateTime<Utc>> {
        if !self.days.iter().any(|d| *d) || range.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let first = crate::tz::to_local(range.start, self.zone).date() - TimeDelta::days(1);
        let last = crate::tz::to_local(range.end, self.zone).date() + TimeDelta::days(1);
        let mut day = first;
        while day <= last {
            if self.days[day.weekday().num_days_from_sunday() as usize] {
                let at = crate::tz::resolve(day.and_time(self.by), self.zone).0;
                if range.contains(at) && out.last().is_none_or(|l| *l < at) {
                    out.push(at);
                }
            }
            match day.succ_opt() {
                Some(next) => day = next,
                None => break,
            }
        }
        out
    }

    /// The latest instant at or before `t` (within the 8 days before it: every selected
    /// weekday comes once a week).
    pub fn latest(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let after = t + TimeDelta::seconds(1);
        self.instants(Window::new(after - TimeDelta::days(8), after)).last().copied()
    }

    /// In words: "weekdays by 06:00 Europe/London".
    pub fn words(&self) -> String {
        let days = match crate::maintenance::days_words(&self.days).as_str() {
            "every day" => "daily".to_owned(),
            "Monday to Friday" => "weekdays".to_owned(),
            other => other.to_owned(),
        };
        format!("{days} by {} {}", self.by.format("%H:%M"), self.zone.name())
    }
}

/// The end of a run: its start plus its duration.
pub fn end_of(run: &Run) -> DateTime<Utc> {
    run.start + TimeDelta::seconds(run.duration_secs.max(0))
}

/// The first success (by its end) that ended in `(after, until]`.
fn success_in(runs: &[Run], after: Option<DateTime<Utc>>, until: DateTime<Utc>) -> Option<DateTime<Utc>> {
    runs.iter()
        .filter(|r| r.outcome == RunOutcome::Succeeded)
        .map(end_of)
        .filter(|end| after.is_none_or(|a| *end > a) && *end <= until)
        .min()
}

/// The verdict of each deadline instant in `range` that has passed by `now`.
pub fn verdicts(deadline: &Deadline, runs: &[Run], range: Window, now: DateTime<Utc>) -> Vec<Verdict> {
    let until = Window::new(range.start, range.end.min(now + TimeDelta::seconds(1)));
    let instants = deadline.instants(until);
    let mut previous = instants.first().and_then(|first| deadline.latest(*first - TimeDelta::seconds(1)));
    let mut out = Vec::with_capacity(instants.len());
    for at in instants {
        out.push(Verdict { at, previous, met: success_in(runs, previous, at) });
        previous = Some(at);
    }
    out
}

/// The verdict of the latest deadline instant at or before `now`.
pub fn last_verdict(deadline: &Deadline, runs: &[Run], now: DateTime<Utc>) -> Option<Verdict> {
    let at = deadline.latest(now)?;
    let previous = deadline.latest(at - TimeDelta::seconds(1));
    Some(Verdict { at, previous, met: success_in(runs, previous, at) })
}

/// The job's `deadline_missed` problem now, if its latest passed deadline instant was missed
/// and no success came since. Its evidence names the deadline and its instant, the job's last
/// run (start, end, outcome) and its next run due (`next_due`).
pub fn problem(
    instance: &str,
    job: (&str, &str),
    deadline: &Deadline,
    runs: &[Run],
    next_due: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<Problem> {
    let verdict = last_verdict(deadline, runs, now)?;
    if verdict.met.is_some() || success_in(runs, Some(verdict.at), now).is_some() {
        return None;
    }
    let mut sentence = Sentence::new()
        .text(format!("\u{201c}{}\u{201d} ({}) was due by ", deadline.name, deadline.words()))
        .at(verdict.at)
        .text(": no success ended ");
    sentence = match verdict.previous {
        Some(p) => sentence.text("after ").at(p).text(" and by then"),
        None => sentence.text("by then"),
    };
    let last = runs.iter().filter(|r| r.start <= now).max_by_key(|r| r.start);
    sentence = match last {
        Some(r) if r.outcome == RunOutcome::InProgress => {
            sentence.text("; the last run started ").at(r.start).text(" and is still running")
        }
        Some(r) => sentence.text("; the last run, ").at(r.start).text(" to ").at(end_of(r)).text(format!(
            ", {}",
            match r.outcome {
                RunOutcome::Succeeded => "succeeded",
                RunOutcome::Crashed => "crashed",
                RunOutcome::Abandoned => "was abandoned",
                RunOutcome::Canceled => "was canceled",
                RunOutcome::Retry => "was to be retried",
                RunOutcome::Unknown => "ended in a way the history cannot tell",
                _ => "failed",
            }
        )),
        None => sentence.text("; no run in the window"),
    };
    sentence = match next_due {
        Some(t) => sentence.text("; next run due ").at(t),
        None => sentence.text("; no next run due"),
    };
    let (count, first) = missed_in_a_row(deadline, runs, verdict);
    let kind = ProblemKind::DeadlineMissed;
    Some(Problem {
        kind,
        severity: kind.severity(),
        instance: instance.to_owned(),
        job: Some((job.0.to_owned(), job.1.to_owned())),
        since: Some(first),
        at: verdict.at,
        evidence: sentence.utc_text(),
        sentence,
        count,
    })
}

/// How many deadline instants in a row, ending with the missed `verdict`, had no success, and
/// the first of them. Counted back only while the runs reach (an instant before the oldest run
/// Sundial holds is not known to be missed), and at most 31 instants back.
fn missed_in_a_row(deadline: &Deadline, runs: &[Run], verdict: Verdict) -> (usize, DateTime<Utc>) {
    let Some(oldest) = runs.iter().map(|r| r.start).min() else {
        return (1, verdict.at);
    };
    let (mut count, mut first, mut previous) = (1, verdict.at, verdict.previous);
    while let Some(at) = previous.filter(|at| *at > oldest && count < 31) {
        let before = deadline.latest(at - TimeDelta::seconds(1));
        if success_in(runs, before, at).is_some() {
            break;
        }
        count += 1;
        first = at;
        previous = before;
    }
    (count, first)
}

/// The job's `deadline_missed` problem over several deadlines: the one missed first (a job
/// has at most one problem of a kind).
pub fn problem_of_many<'a>(
    instance: &str,
    job: (&str, &str),
    deadlines: impl IntoIterator<Item = &'a Deadline>,
    runs: &[Run],
    next_due: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<Problem> {
    deadlines.into_iter().filter_map(|d| problem(instance, job, d, runs, next_due, now)).min_by_key(|p| p.at)
}
