//! Triage: every problem of an instance *now*, from its last good read's report, as plain
//! data the triage page, the JSON API, the metrics and the alerts all share.
//!
//! # What is a problem
//!
//! | kind | severity | when |
//! |---|---|---|
//! | `unreachable` | critical | the last attempt to read the instance failed |
//! | `scheduler_stopped` | critical | the source says its scheduler is off (MySQL `event_scheduler`, …) |
//! | `zombie` | critical | the scheduler is up and has started nothing while runs were due, up to now |
//! | `missed` | error | the job's latest due runs were missed (with the cause and how many in a row) |
//! | `failed` | error | the job's last finished run failed (crashed, abandoned) |
//! | `no_success` | error | failures only, for at least [`TriageSettings::no_success_days`] |
//! | `running_long` | warning | a run still going past p95 × the long factor |
//! | `next_run_disagrees` | warning | the scheduler's own next run is not Sundial's |
//! | `stale` | warning | the last good read is older than three polls |
//! | `too_short` | info | the last run succeeded far faster than usual (p50 × the short factor) |
//!
//! Never judged on a stale read: an instance whose read is stale (or was never made) has only
//! its instance-level problem. Occurrences older than the history kept are `unknown`, never
//! missed; missed runs a zombie or a stopped scheduler explains are counted in its row, not one
//! per job.
//!
//! # Ranking
//!
//! Worst severity first; within one severity, the oldest `since` first (wrong the longest),
//! then instance, job and kind, so the order is total and stable.
use crate::durations::{self, DurationFlag, DurationFlags};
use crate::fleet::{InstanceReport, JobReport};
use crate::reconcile::{MissCause, Outcome, RunOutcome};
use crate::{Diagnostic, Severity};
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// What is wrong, one of the ten words the JSON API answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    Unreachable,
    SchedulerStopped,
    Zombie,
    Missed,
    Failed,
    RunningLong,
    TooShort,
    NoSuccess,
    NextRunDisagrees,
    Stale,
}

impl ProblemKind {
    pub const ALL: [ProblemKind; 10] = [
        ProblemKind::Unreachable,
        ProblemKind::SchedulerStopped,
        ProblemKind::Zombie,
        ProblemKind::Missed,
        ProblemKind::Failed,
        ProblemKind::RunningLong,
        ProblemKind::TooShort,
        ProblemKind::NoSuccess,
        ProblemKind::NextRunDisagrees,
        ProblemKind::Stale,
    ];

    /// The word of the JSON API and of URLs.
    pub fn key(self) -> &'static str {
        match self {
            ProblemKind::Unreachable => "unreachable",
            ProblemKind::SchedulerStopped => "scheduler_stopped",
            ProblemKind::Zombie => "zombie",
            ProblemKind::Missed => "missed",
            ProblemKind::Failed => "failed",
            ProblemKind::RunningLong => "running_long",
            ProblemKind::TooShort => "too_short",
            ProblemKind::NoSuccess => "no_success",
            ProblemKind::NextRunDisagrees => "next_run_disagrees",
            ProblemKind::Stale => "stale",
        }
    }

    /// A few words for people (the triage row, an alert).
    pub fn label(self) -> &'static str {
        match self {
            ProblemKind::Unreachable => "unreachable",
            ProblemKind::SchedulerStopped => "scheduler stopped",
            ProblemKind::Zombie => "zombie scheduler",
            ProblemKind::Missed => "missed",
            ProblemKind::Failed => "failed",
            ProblemKind::RunningLong => "running long",
            ProblemKind::TooShort => "too short",
            ProblemKind::NoSuccess => "no success",
            ProblemKind::NextRunDisagrees => "next run disagrees",
            ProblemKind::Stale => "data stale",
        }
    }

    /// The word in an alert's subject.
    pub fn subject(self) -> &'static str {
        match self {
            ProblemKind::Unreachable | ProblemKind::SchedulerStopped | ProblemKind::Stale => "DOWN",
            ProblemKind::Zombie => "ZOMBIE",
            ProblemKind::Missed => "MISSED",
            ProblemKind::Failed | ProblemKind::NoSuccess => "FAILED",
            ProblemKind::RunningLong | ProblemKind::NextRunDisagrees => "LATE",
            ProblemKind::TooShort => "SHORT",
        }
    }

    pub fn severity(self) -> ProblemSeverity {
        match self {
            ProblemKind::Unreachable | ProblemKind::SchedulerStopped | ProblemKind::Zombie => ProblemSeverity::Critical,
            ProblemKind::Missed | ProblemKind::Failed | ProblemKind::NoSuccess => ProblemSeverity::Error,
            ProblemKind::RunningLong | ProblemKind::NextRunDisagrees | ProblemKind::Stale => ProblemSeverity::Warning,
            ProblemKind::TooShort => ProblemSeverity::Info,
        }
    }
}

/// How bad; ordered worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemSeverity {
    Critical,
    Error,
    Warning,
    Info,
}

impl ProblemSeverity {
    pub fn key(self) -> &'static str {
        match self {
            ProblemSeverity::Critical => "critical",
            ProblemSeverity::Error => "error",
            ProblemSeverity::Warning => "warning",
            ProblemSeverity::Info => "info",
        }
    }
}

/// One thing wrong now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub kind: ProblemKind,
    pub severity: ProblemSeverity,
    pub instance: String,
    /// The job's id and name; `None` for an instance-wide problem.
    pub job: Option<(String, String)>,
    /// Since when it is wrong, as far as the data tells (`None`: the data cannot tell, e.g. a
    /// scheduler reported off; the caller fills in when it first saw it).
    pub since: Option<DateTime<Utc>>,
    /// The moment the evidence points at (the deep link opens the job there).
    pub at: DateTime<Utc>,
    /// What shows it, in plain words, with times in UTC (pages show their own zone beside).
    pub evidence: String,
    /// How many: runs missed in a row, failures in a row, jobs a zombie starved; 1 otherwise.
    /// A larger count is "worse" (an acknowledgement does not hold against it).
    pub count: usize,
}

impl Problem {
    /// Stable identity across polls and restarts: kind, instance, job.
    pub fn key(&self) -> String {
        match &self.job {
            Some((id, _)) => format!("{}|{}|{}", self.kind.key(), self.instance, id),
            None => format!("{}|{}", self.kind.key(), self.instance),
        }
    }
}

/// Knobs, all with defaults an on-call engineer would pick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TriageSettings {
    /// A job whose runs all failed for at least this many days has `no_success`. Default 2.
    pub no_success_days: i64,
    /// A read older than this many poll intervals is stale. Default 3.
    pub stale_polls: u32,
    /// Long and short runs.
    pub durations: DurationFlags,
}

impl Default for TriageSettings {
    fn default() -> Self {
        TriageSettings { no_success_days: 2, stale_polls: 3, durations: DurationFlags::default() }
    }
}

/// How reading an instance goes, as far as triage cares.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'a> {
    pub instance: &'a str,
    /// The last good read's report; `None`: never read.
    pub report: Option<&'a InstanceReport>,
    /// Instance-level findings of the last good read (a stopped scheduler among them).
    pub notes: &'a [Diagnostic],
    /// The last attempt failed: since when (the first failed attempt) and why (safe to show).
    pub failing: Option<(DateTime<Utc>, &'a str)>,
    /// When the last good read was made; `None`: never.
    pub read_at: Option<DateTime<Utc>>,
    /// How often the instance is read; `None`: a fixed snapshot, never stale.
    pub poll_secs: Option<u64>,
}

/// The fields of instance findings that mean "the scheduler is off".
pub const SCHEDULER_STOPPED_FIELDS: [&str; 3] = ["event_scheduler", "cron.launcher", "agent_service"];

/// The words [`next_run_disagrees`] begins with.
const NEXT_RUN_DISAGREES: &str = "the scheduler expects the next run at";

/// The finding a source reports when the scheduler's own next run (`theirs`) is not Sundial's
/// (`ours`), both shown in the instance's wall clock; `column` names where the scheduler keeps it.
pub fn next_run_disagrees(column: &str, raw: &str, theirs: &str, ours: &str) -> Diagnostic {
    Diagnostic::new(
        Severity::Warning,
        Some(column),
        Some(raw.to_owned()),
        format!(
            "{NEXT_RUN_DISAGREES} {theirs} ({column}), Sundial's forecast says {ours}: the scheduler's schedule \
             cache may be stale (a zombie scheduler looks like this) or a schedule changed since it was read"
        ),
    )
}

fn utc(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A length in words for people: `45 s`, `12 min 5 s`, `1 h 0 min`, `2 d 3 h`.
pub(crate) fn span(secs: i64) -> String {
    let secs = secs.max(0);
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min {} s", s / 60, s % 60),
        s if s < 86_400 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        s => format!("{} d {} h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// Every problem of one instance now (`now`: the clock, for staleness), unranked.
pub fn instance_problems(reading: &Reading, now: DateTime<Utc>, settings: &TriageSettings) -> Vec<Problem> {
    let mut out = Vec::new();
    let instance_problem =
        |kind: ProblemKind, since: Option<DateTime<Utc>>, at: DateTime<Utc>, evidence: String| Problem {
            kind,
            severity: kind.severity(),
            instance: reading.instance.to_owned(),
            job: None,
            since,
            at,
            evidence,
            count: 1,
        };
    if let Some((since, error)) = reading.failing {
        let last = reading.read_at.map_or("never read".to_owned(), |t| format!("last good read {}", utc(t)));
        out.push(instance_problem(
            ProblemKind::Unreachable,
            Some(since),
            since,
            format!("cannot read the instance since {}: {error}; {last}", utc(since)),
        ));
    }
    let stale = match (reading.read_at, reading.poll_secs) {
        (Some(read_at), Some(poll)) => {
            let limit = TimeDelta::seconds((poll as i64).saturating_mul(settings.stale_polls.max(1) as i64));
            (now - read_at > limit).then_some(read_at)
        }
        _ => None,
    };
    if let Some(read_at) = stale {
        out.push(instance_problem(
            ProblemKind::Stale,
            Some(read_at),
            read_at,
            format!(
                "the last good read is {} old ({}): too old to judge its jobs",
                span((now - read_at).num_seconds()),
                utc(read_at)
            ),
        ));
    }
    let Some(report) = reading.report.filter(|_| stale.is_none()) else { return out };
    let zombie = ongoing_zombie(report);
    // A scheduler that is off explains its jobs' missed runs: one row says so and counts them.
    let stopped = reading.notes.iter().find(|n| {
        n.severity != Severity::Info && n.field.as_deref().is_some_and(|f| SCHEDULER_STOPPED_FIELDS.contains(&f))
    });
    if let Some(note) = stopped {
        let streaks: Vec<Streak> = report.jobs.iter().filter_map(|j| missed_streak(j, zombie.is_some())).collect();
        let first = streaks.iter().map(|s| s.first).min();
        let runs: usize = streaks.iter().map(|s| s.count).sum();
        let mut evidence = note.message.clone();
        if let Some(first) = first {
            let jobs = streaks.len();
            evidence.push_str(&format!(
                "; since {}, {runs} due {} of {jobs} {} did not happen",
                utc(first),
                if runs == 1 { "run" } else { "runs" },
                if jobs == 1 { "job" } else { "jobs" }
            ));
        }
        let mut p = instance_problem(ProblemKind::SchedulerStopped, first, first.unwrap_or(report.now), evidence);
        p.count = streaks.len().max(1);
        out.push(p);
    }
    if let Some(period) = zombie {
        let (jobs, runs) = starved(report, period.start);
        let mut p = instance_problem(
            ProblemKind::Zombie,
            Some(period.start),
            period.start,
            format!(
                "the scheduler has started no job since {} ({}) while {runs} runs of {jobs} jobs were due",
                utc(period.start),
                span((report.now - period.start).num_seconds())
            ),
        );
        p.count = jobs.max(1);
        out.push(p);
    }
    for job in &report.jobs {
        job_problems(report, job, (zombie.is_some(), stopped.is_some()), settings, &mut out);
    }
    out
}

/// The zombie span still open at the report's now.
fn ongoing_zombie(report: &InstanceReport) -> Option<crate::Window> {
    let end = report.now.min(report.window.end);
    report.context.zombie_periods.iter().rev().find(|p| p.end >= end).copied()
}

/// Jobs and runs due and missed since `from` because nothing started.
fn starved(report: &InstanceReport, from: DateTime<Utc>) -> (usize, usize) {
    let mut jobs = 0;
    let mut runs = 0;
    for job in &report.jobs {
        let n = job
            .forecast
            .occurrences
            .iter()
            .zip(&job.reconciliation.outcomes)
            .filter(|(o, r)| o.at >= from && matches!(r, Outcome::Missed { .. }))
            .count();
        if n > 0 {
            jobs += 1;
            runs += n;
        }
    }
    (jobs, runs)
}

fn job_problems(
    report: &InstanceReport,
    job: &JobReport,
    (zombie, stopped): (bool, bool),
    settings: &TriageSettings,
    out: &mut Vec<Problem>,
) {
    let mut push = |kind: ProblemKind, since: Option<DateTime<Utc>>, at: DateTime<Utc>, evidence: String, count| {
        out.push(Problem {
            kind,
            severity: kind.severity(),
            instance: report.name.clone(),
            job: Some((job.id.clone(), job.name.clone())),
            since,
            at,
            evidence,
            count,
        })
    };
    if let Some(m) = missed_streak(job, zombie).filter(|_| !stopped) {
        push(ProblemKind::Missed, Some(m.first), m.last, m.evidence, m.count);
    }
    let last_success = job.runs.iter().rev().find(|r| r.outcome == RunOutcome::Succeeded).map(|r| r.start);
    let finished: Vec<&crate::Run> = job.runs.iter().filter(|r| r.outcome != RunOutcome::InProgress).collect();
    if let Some(last) = finished.last().filter(|r| r.outcome.is_failure()) {
        let in_a_row = finished.iter().rev().take_while(|r| r.outcome.is_failure()).count();
        let first_failure = finished[finished.len() - in_a_row].start;
        let why = failure_words(last);
        let since_success =
            last_success.map_or("no success in the window".to_owned(), |t| format!("last success {}", utc(t)));
        let long_enough = (report.now - last_success.unwrap_or(first_failure)).num_days() >= settings.no_success_days;
        if long_enough {
            push(
                ProblemKind::NoSuccess,
                Some(first_failure),
                last.start,
                format!(
                    "{} since {}, {since_success}; the last, {}: {why}",
                    if in_a_row == 1 { "1 failure".to_owned() } else { format!("{in_a_row} failures in a row") },
                    utc(first_failure),
                    utc(last.start)
                ),
                in_a_row,
            );
        } else {
            push(
                ProblemKind::Failed,
                Some(last.start),
                last.start,
                format!(
                    "the run of {} {why} ({}{since_success})",
                    utc(last.start),
                    if in_a_row > 1 { format!("{in_a_row} in a row; ") } else { String::new() }
                ),
                in_a_row,
            );
        }
    }
    let Some(stats) = durations::stats(&job.runs) else { return next_run(job, report, push) };
    if let Some(run) = job.runs.last().filter(|r| r.outcome == RunOutcome::InProgress)
        && let Some(DurationFlag::Long { p95 }) = durations::flag(run, &stats, &settings.durations)
    {
        let finish = if run.duration_secs < stats.max {
            format!(
                "if it ends like its longest run ({}), it finishes at {}",
                span(stats.max),
                utc(run.start + TimeDelta::seconds(stats.max))
            )
        } else {
            format!("longer than any run in the window (the longest took {}): no finish to expect", span(stats.max))
        };
        push(
            ProblemKind::RunningLong,
            Some(run.start),
            run.start,
            format!(
                "running for {} since {}: usually {} (p50), {} at p95 over {} runs; {finish}",
                span(run.duration_secs),
                utc(run.start),
                span(stats.p50),
                span(p95),
                stats.count
            ),
            1,
        );
    }
    if let Some(run) = finished.last().filter(|r| r.outcome == RunOutcome::Succeeded)
        && let Some(DurationFlag::Short { p50 }) = durations::flag(run, &stats, &settings.durations)
    {
        push(
            ProblemKind::TooShort,
            Some(run.start),
            run.start,
            format!(
                "the run of {} succeeded in {}, where it usually takes {} (p50 over {} runs): did it do its work?",
                utc(run.start),
                span(run.duration_secs),
                span(p50),
                stats.count
            ),
            1,
        );
    }
    next_run(job, report, push)
}

fn next_run(
    job: &JobReport,
    report: &InstanceReport,
    mut push: impl FnMut(ProblemKind, Option<DateTime<Utc>>, DateTime<Utc>, String, usize),
) {
    for d in job.diagnostics.iter().filter(|d| d.message.starts_with(NEXT_RUN_DISAGREES)) {
        push(ProblemKind::NextRunDisagrees, None, report.now, d.message.clone(), 1);
    }
}

/// How a run ended badly and why, in the scheduler's words: "failed in step 2 (Push to CRM):
/// <the step's own message, quoted>" where the source records its steps; else the step line
/// that says a failure and the run's message; else the message alone. Starts with the outcome
/// word ("failed", "crashed", …), said once.
fn failure_words(run: &crate::Run) -> String {
    let outcome = match run.outcome {
        RunOutcome::Crashed => "crashed",
        RunOutcome::Abandoned => "abandoned by the scheduler",
        _ => "failed",
    };
    if let Some(step) = run.failed_step() {
        let quote = step.quote();
        return if quote.is_empty() {
            format!("{outcome} in {}", step.label())
        } else {
            format!("{outcome} in {}: {quote}", step.label())
        };
    }
    let step = run.steps.iter().rev().map(crate::Step::line).find(|s| {
        let s = s.to_ascii_lowercase();
        s.contains("fail") || s.contains("error")
    });
    let message = crate::vocab::quote(&run.message, crate::vocab::QUOTE_MAX);
    // A message that already starts with the outcome word is not prefixed with it again.
    let said = message.to_ascii_lowercase().starts_with(outcome);
    match (step, message.is_empty()) {
        (Some(s), false) if !message.contains(s.as_str()) => format!("{outcome} in {s}: {message}"),
        (Some(s), _) => format!("{outcome} in {s}"),
        (None, false) if said => message,
        (None, false) => format!("{outcome}: {message}"),
        (None, true) => outcome.to_owned(),
    }
}

struct Streak {
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    count: usize,
    evidence: String,
}

/// The job's latest due occurrences that were missed (or skipped while the previous run still
/// ran), in a row, ending with the latest due one; `None` when that one ran or is unknown.
fn missed_streak(job: &JobReport, zombie: bool) -> Option<Streak> {
    let due: Vec<(&crate::Occurrence, &Outcome)> = job
        .forecast
        .occurrences
        .iter()
        .zip(&job.reconciliation.outcomes)
        .filter(|(_, o)| !matches!(o, Outcome::Upcoming))
        .collect();
    let streak: Vec<&(&crate::Occurrence, &Outcome)> = due
        .iter()
        .rev()
        .take_while(|(_, o)| matches!(o, Outcome::Missed { .. } | Outcome::SkippedRunning { .. }))
        .collect();
    let (last_occ, last_outcome) = **streak.first()?;
    let (first_occ, _) = **streak.last()?;
    if zombie && matches!(last_outcome, Outcome::Missed { cause: MissCause::AgentZombie { .. } }) {
        return None;
    }
    let cause = match last_outcome {
        Outcome::Missed { cause: MissCause::NoRun } => "nothing started it".to_owned(),
        Outcome::Missed { cause: MissCause::AgentZombie { period } } => {
            format!("the scheduler started nothing from {}", utc(period.start))
        }
        Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } => {
            format!("the scheduler was down (it started again {})", utc(*restarted_at))
        }
        Outcome::SkippedRunning { run } => job
            .runs
            .get(*run)
            .map(|r| format!("the previous run (from {}) was still running", utc(r.start)))
            .unwrap_or_else(|| "the previous run was still running".to_owned()),
        _ => String::new(),
    };
    let count = streak.len();
    let last_success = job.runs.iter().rev().find(|r| r.outcome == RunOutcome::Succeeded);
    let next = job.next_expected.as_ref().map_or("none".to_owned(), |o| utc(o.at));
    let evidence = format!(
        "{} due {} missed{}: {cause}; last success {}; next expected {next}",
        if count == 1 { "the run".to_owned() } else { format!("{count} runs in a row, the first") },
        utc(first_occ.at),
        if count == 1 { String::new() } else { format!(", the latest {}", utc(last_occ.at)) },
        last_success.map_or("none in the window".to_owned(), |r| utc(r.start)),
    );
    Some(Streak { first: first_occ.at, last: last_occ.at, count, evidence })
}

/// Rank worst first, then oldest (`since` of each item: the problem's own, or when it was
/// first seen), then by instance, job and kind: a total, stable order.
pub fn rank_by<T>(items: &mut [T], key: impl Fn(&T) -> (&Problem, DateTime<Utc>)) {
    items.sort_by(|a, b| {
        let (pa, sa) = key(a);
        let (pb, sb) = key(b);
        (pa.severity, sa, &pa.instance, &pa.job, pa.kind).cmp(&(pb.severity, sb, &pb.instance, &pb.job, pb.kind))
    });
}
