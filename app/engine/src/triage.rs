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
//! | `deadline_missed` | error | no success by the job's latest deadline, nor since ([`crate::deadlines`]) |
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
use crate::sentence::{Sentence, TOLD};
use crate::{Diagnostic, Finding, Severity};
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// What is wrong, one of the eleven words the JSON API answers.
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
    DeadlineMissed,
}

/// Everything Sundial says of one kind of problem, in one place ([`KINDS`]): the JSON API's
/// word, the words of the triage page and of alerts, its severity, its icon, and what a job
/// with it shows in the jobs list. Every view, the CSS classes (`kind-<key>`, `sev-<severity>`,
/// `state-<job_key>`) and the alerts read it; none keeps a list of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    pub kind: ProblemKind,
    /// The word of the JSON API, of URLs and of CSS classes.
    pub key: &'static str,
    /// A few words for people (the triage row, an alert).
    pub label: &'static str,
    /// The word in an alert's subject.
    pub subject: &'static str,
    pub severity: ProblemSeverity,
    /// Its icon beside its word (never color alone), drawn by the DejaVu fonts.
    pub icon: &'static str,
    /// A job with this problem, in the jobs list: its state's key (`data-state`, the filter)
    /// and words (the badge).
    pub job_key: &'static str,
    pub job_label: &'static str,
    /// Where a job with this problem sorts in the jobs list, worst first: the scheduler's
    /// own problems, then the runs missed or failed, then the warnings.
    pub job_rank: u8,
    /// What its count counts, one and many (`run missed`, `runs missed`: an alert's words);
    /// `None`: it counts nothing worth saying.
    pub counts: Option<(&'static str, &'static str)>,
    /// The triage row's words beside a count above one (`3 missed in a row`).
    pub row_count: &'static str,
}

/// Every kind of problem (see [`KindInfo`]), in [`ProblemKind`]'s order.
pub const KINDS: [KindInfo; 11] = [
    KindInfo {
        kind: ProblemKind::Unreachable,
        key: "unreachable",
        label: "unreachable",
        subject: "DOWN",
        severity: ProblemSeverity::Critical,
        icon: "⊘",
        job_key: "unreachable",
        job_label: "Unreachable",
        job_rank: 0,
        counts: None,
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::SchedulerStopped,
        key: "scheduler_stopped",
        label: "scheduler stopped",
        subject: "DOWN",
        severity: ProblemSeverity::Critical,
        icon: "■",
        job_key: "scheduler_stopped",
        job_label: "Scheduler stopped",
        job_rank: 1,
        // Its count is the jobs whose due runs did not happen (not runs: jobs).
        counts: Some(("job missing runs", "jobs missing runs")),
        row_count: "jobs missing runs",
    },
    KindInfo {
        kind: ProblemKind::Zombie,
        key: "zombie",
        label: "zombie scheduler",
        subject: "ZOMBIE",
        severity: ProblemSeverity::Critical,
        icon: "☠",
        job_key: "zombie",
        job_label: "Zombie scheduler",
        job_rank: 2,
        counts: Some(("job starved", "jobs starved")),
        row_count: "jobs starved",
    },
    KindInfo {
        kind: ProblemKind::Missed,
        key: "missed",
        label: "missed",
        subject: "MISSED",
        severity: ProblemSeverity::Error,
        icon: "✕",
        job_key: "missed",
        job_label: "Missed",
        job_rank: 3,
        counts: Some(("run missed", "runs missed")),
        row_count: "missed in a row",
    },
    KindInfo {
        kind: ProblemKind::Failed,
        key: "failed",
        label: "failed",
        subject: "FAILED",
        severity: ProblemSeverity::Error,
        icon: "✖",
        job_key: "failing",
        job_label: "Failing",
        job_rank: 4,
        counts: Some(("failure in a row", "failures in a row")),
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::RunningLong,
        key: "running_long",
        label: "running long",
        subject: "LATE",
        severity: ProblemSeverity::Warning,
        icon: "⟳",
        job_key: "running_long",
        job_label: "Running long",
        job_rank: 7,
        counts: None,
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::TooShort,
        key: "too_short",
        label: "too short",
        subject: "SHORT",
        severity: ProblemSeverity::Info,
        icon: "⇤",
        job_key: "too_short",
        job_label: "Too short",
        job_rank: 10,
        counts: None,
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::NoSuccess,
        key: "no_success",
        label: "no success",
        subject: "FAILED",
        severity: ProblemSeverity::Error,
        icon: "⚠",
        job_key: "no_success",
        job_label: "No success",
        job_rank: 5,
        counts: Some(("failure in a row", "failures in a row")),
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::NextRunDisagrees,
        key: "next_run_disagrees",
        label: "next run disagrees",
        subject: "LATE",
        severity: ProblemSeverity::Warning,
        icon: "⇄",
        job_key: "next_run_disagrees",
        job_label: "Next run disagrees",
        job_rank: 8,
        counts: None,
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::Stale,
        key: "stale",
        label: "data stale",
        subject: "DOWN",
        severity: ProblemSeverity::Warning,
        icon: "…",
        job_key: "stale",
        job_label: "Data stale",
        job_rank: 9,
        counts: None,
        row_count: "in a row",
    },
    KindInfo {
        kind: ProblemKind::DeadlineMissed,
        key: "deadline_missed",
        label: "deadline missed",
        subject: "DEADLINE",
        severity: ProblemSeverity::Error,
        icon: "◷",
        job_key: "deadline_missed",
        job_label: "Deadline missed",
        job_rank: 6,
        counts: Some(("deadline missed", "deadlines missed")),
        row_count: "missed in a row",
    },
];

impl ProblemKind {
    pub const ALL: [ProblemKind; 11] = [
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
        ProblemKind::DeadlineMissed,
    ];

    /// All Sundial says of it ([`KINDS`]).
    pub fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }

    /// The kind a key names (the JSON API's word).
    pub fn from_key(key: &str) -> Option<ProblemKind> {
        KINDS.iter().find(|k| k.key == key).map(|k| k.kind)
    }

    /// The word of the JSON API and of URLs.
    pub fn key(self) -> &'static str {
        self.info().key
    }

    /// A few words for people (the triage row, an alert).
    pub fn label(self) -> &'static str {
        self.info().label
    }

    /// The word in an alert's subject.
    pub fn subject(self) -> &'static str {
        self.info().subject
    }

    pub fn severity(self) -> ProblemSeverity {
        self.info().severity
    }

    /// Its icon, beside its word.
    pub fn icon(self) -> &'static str {
        self.info().icon
    }

    /// Whether its count is of a job's runs gone wrong in a row (failed, missed): an alert
    /// target's `after = N` waits for N of them, and its `resolve_after = M` for M successes
    /// in a row before the recovery. The one list of such kinds (a deadline missed counts its
    /// deadline instants missed in a row).
    pub fn counts_runs_in_a_row(self) -> bool {
        matches!(self, ProblemKind::Failed | ProblemKind::Missed | ProblemKind::DeadlineMissed)
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
    /// Every severity, worst first.
    pub const ALL: [ProblemSeverity; 4] =
        [ProblemSeverity::Critical, ProblemSeverity::Error, ProblemSeverity::Warning, ProblemSeverity::Info];

    /// Its mark beside a problem's icon (filled for the worst).
    pub fn mark(self) -> &'static str {
        match self {
            ProblemSeverity::Critical => "⬤",
            ProblemSeverity::Error => "●",
            ProblemSeverity::Warning => "◐",
            ProblemSeverity::Info => "○",
        }
    }

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
    /// What shows it, in plain words, with times in UTC: [`Problem::sentence`] as text (what
    /// the JSON API, the alerts and the logs say).
    pub evidence: String,
    /// The same evidence as words and instants: pages show each instant in their reader's zone.
    #[serde(default)]
    pub sentence: Sentence,
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

/// The words [`next_run_disagrees`] begins with.
const NEXT_RUN_DISAGREES: &str = "the scheduler expects the next run at";

/// The finding a source reports when the scheduler's own next run (`theirs`) is not Sundial's
/// (`ours`; `None`: Sundial expects none); `column` names where the scheduler keeps it. Both
/// are instants: a source reads its wall-clock column through the instance's zone first. The
/// message gives them in UTC, with the zone, and triage's evidence tells them as instants.
pub fn next_run_disagrees(column: &str, raw: &str, theirs: DateTime<Utc>, ours: Option<DateTime<Utc>>) -> Diagnostic {
    let ours = ours.map_or("no run".to_owned(), |t| t.format(TOLD).to_string());
    Diagnostic::new(
        Severity::Warning,
        Some(column),
        Some(raw.to_owned()),
        format!(
            "{NEXT_RUN_DISAGREES} {} ({column}), Sundial's forecast says {ours}: the scheduler's schedule \
             cache may be stale (a zombie scheduler looks like this) or a schedule changed since it was read",
            theirs.format(TOLD)
        ),
    )
    .telling(Finding::NextRunDisagrees)
}

/// A message with times written as [`TOLD`], as a sentence ([`Sentence::told`]).
fn instants_told(message: &str) -> Sentence {
    Sentence::told(message)
}

/// Whether a finding is the cross-check [`next_run_disagrees`] made.
pub fn is_next_run_disagrees(d: &Diagnostic) -> bool {
    d.tells(Finding::NextRunDisagrees)
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
        |kind: ProblemKind, since: Option<DateTime<Utc>>, at: DateTime<Utc>, sentence: Sentence| Problem {
            kind,
            severity: kind.severity(),
            instance: reading.instance.to_owned(),
            job: None,
            since,
            at,
            evidence: sentence.utc_text(),
            sentence,
            count: 1,
        };
    if let Some((since, error)) = reading.failing {
        let last =
            reading.read_at.map_or(Sentence::from("never read"), |t| Sentence::new().text("last good read ").at(t));
        out.push(instance_problem(
            ProblemKind::Unreachable,
            Some(since),
            since,
            Sentence::new().text("cannot read the instance since ").at(since).text(format!(": {error}; ")).then(last),
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
            Sentence::new()
                .text(format!("the last good read is {} old (", span((now - read_at).num_seconds())))
                .at(read_at)
                .text("): too old to judge its jobs"),
        ));
    }
    if let Some(report) = reading.report.filter(|_| stale.is_none()) {
        out.extend(report_problems(reading.instance, report, reading.notes, settings));
    }
    out
}

/// The problems a good read's report shows (the zombie, a stopped scheduler, every job's),
/// unranked: what [`instance_problems`] adds to the reading's own when the read is not stale.
/// They depend on the report and its notes only (the report's `now`, never the clock), so
/// they can be judged once per read and kept.
pub fn report_problems(
    instance: &str,
    report: &InstanceReport,
    notes: &[Diagnostic],
    settings: &TriageSettings,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let instance_problem =
        |kind: ProblemKind, since: Option<DateTime<Utc>>, at: DateTime<Utc>, sentence: Sentence| Problem {
            kind,
            severity: kind.severity(),
            instance: instance.to_owned(),
            job: None,
            since,
            at,
            evidence: sentence.utc_text(),
            sentence,
            count: 1,
        };
    let zombie = ongoing_zombie(report);
    // A scheduler that is off explains its jobs' missed runs: one row says so and counts them.
    let stopped = notes.iter().find(|n| n.severity != Severity::Info && n.tells(Finding::SchedulerStopped));
    if let Some(note) = stopped {
        let streaks: Vec<Streak> = report.jobs.iter().filter_map(|j| missed_streak(j, zombie.is_some())).collect();
        let first = streaks.iter().map(|s| s.first).min();
        let runs: usize = streaks.iter().map(|s| s.count).sum();
        let mut evidence = instants_told(&note.message);
        let gap = report.gaps.iter().rev().find(|g| g.kind == crate::gaps::GapKind::Stopped && g.ongoing());
        if let Some(g) = gap {
            evidence = evidence.text("; down by ").at(g.by).text(" at the latest");
            evidence = match g.last_seen {
                Some(seen) => evidence.text(", last seen ").at(seen),
                None => evidence.text(", no run seen before"),
            };
        }
        if let Some(first) = first {
            let jobs = streaks.len();
            // When it went down is said already; else since the first run it missed.
            evidence = if gap.is_some() { evidence.text("; since then") } else { evidence.text("; since ").at(first) };
            evidence = evidence.text(format!(
                ", {runs} due {} of {jobs} {} did not happen",
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
            Sentence::new().text("the scheduler has started no job since ").at(period.start).text(format!(
                " ({}) while {runs} runs of {jobs} jobs were due",
                span((report.now - period.start).num_seconds())
            )),
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
    let mut push = |kind: ProblemKind, since: Option<DateTime<Utc>>, at: DateTime<Utc>, sentence: Sentence, count| {
        out.push(Problem {
            kind,
            severity: kind.severity(),
            instance: report.name.clone(),
            job: Some((job.id.clone(), job.name.clone())),
            since,
            at,
            evidence: sentence.utc_text(),
            sentence,
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
        let since_success = last_success
            .map_or(Sentence::from("no success in the window"), |t| Sentence::new().text("last success ").at(t));
        let long_enough = (report.now - last_success.unwrap_or(first_failure)).num_days() >= settings.no_success_days;
        if long_enough {
            push(
                ProblemKind::NoSuccess,
                Some(first_failure),
                last.start,
                Sentence::new()
                    .text(if in_a_row == 1 { "1 failure".to_owned() } else { format!("{in_a_row} failures in a row") })
                    .text(" since ")
                    .at(first_failure)
                    .text(", ")
                    .then(since_success)
                    .text("; the last, ")
                    .at(last.start)
                    .text(": ")
                    .then(instants_told(&why)),
                in_a_row,
            );
        } else {
            push(
                ProblemKind::Failed,
                Some(last.start),
                last.start,
                Sentence::new()
                    .text("the run of ")
                    .at(last.start)
                    .text(" ")
                    .then(instants_told(&why))
                    .text(" (")
                    .text(if in_a_row > 1 { format!("{in_a_row} in a row; ") } else { String::new() })
                    .then(since_success)
                    .text(")"),
                in_a_row,
            );
        }
    }
    // Each run against its season's runs where there are enough (else the window's, saying so).
    let baselines = durations::Baselines::of(&job.runs, report.tz);
    if baselines.window().is_none() {
        return next_run(job, report, push);
    }
    let window = format!("of the last {} days", (report.window.end - report.window.start).num_days().max(1));
    if let Some(run) = job.runs.last().filter(|r| r.outcome == RunOutcome::InProgress)
        && let Some(base) = baselines.at(run.start)
        && let Some(DurationFlag::Long { p95 }) = durations::flag_by(run, &base, &settings.durations)
    {
        let stats = base.stats;
        // Its longest run of the window, whatever its season: the finish to expect at worst.
        let longest = baselines.window().map_or(stats.max, |w| w.max);
        let finish = if run.duration_secs < longest {
            Sentence::new()
                .text(format!("if it ends like its longest run ({}), it finishes at ", span(longest)))
                .at(run.start + TimeDelta::seconds(longest))
        } else {
            Sentence::new().text(format!(
                "longer than any run in the window (the longest took {}): no finish to expect",
                span(longest)
            ))
        };
        push(
            ProblemKind::RunningLong,
            Some(run.start),
            run.start,
            Sentence::new()
                .text(format!(
                    "running {}for {} since ",
                    crate::vocab::executing(&run.steps).map(|s| s.label() + " ").unwrap_or_default(),
                    span(run.duration_secs)
                ))
                .at(run.start)
                .text(format!(
                    ": usually {} (p50), {} at p95 over {}; ",
                    span(stats.p50),
                    span(p95),
                    base.words(&window)
                ))
                .then(finish),
            1,
        );
    }
    if let Some(run) = finished.last().filter(|r| r.outcome == RunOutcome::Succeeded)
        && let Some(base) = baselines.at(run.start)
        && let Some(DurationFlag::Short { p50 }) = durations::flag_by(run, &base, &settings.durations)
    {
        push(
            ProblemKind::TooShort,
            Some(run.start),
            run.start,
            Sentence::new().text("the run of ").at(run.start).text(format!(
                " succeeded in {}, where it usually takes {} (p50 over {}): did it do its work?",
                span(run.duration_secs),
                span(p50),
                base.words(&window)
            )),
            1,
        );
    }
    next_run(job, report, push)
}

fn next_run(
    job: &JobReport,
    report: &InstanceReport,
    mut push: impl FnMut(ProblemKind, Option<DateTime<Utc>>, DateTime<Utc>, Sentence, usize),
) {
    for d in job.diagnostics.iter().filter(|d| d.tells(Finding::NextRunDisagrees)) {
        push(ProblemKind::NextRunDisagrees, None, report.now, instants_told(&d.message), 1);
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
    evidence: Sentence,
}

/// The job's latest due occurrences that were missed (or skipped while the previous run still
/// ran), in a row, ending with the latest due one; `None` when that one ran or is unknown.
/// Occurrences inside a maintenance window are passed over.
fn missed_streak(job: &JobReport, zombie: bool) -> Option<Streak> {
    let due: Vec<(&crate::Occurrence, &Outcome)> = job
        .forecast
        .occurrences
        .iter()
        .zip(&job.reconciliation.outcomes)
        // A run not made in a maintenance window is neither a miss nor a success: the streak
        // reads across it.
        .filter(|(_, o)| !matches!(o, Outcome::Upcoming | Outcome::Maintenance { .. }))
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
        Outcome::Missed { cause: MissCause::NoRun } => Sentence::from("nothing started it"),
        Outcome::Missed { cause: MissCause::AgentZombie { period } } => {
            Sentence::new().text("the scheduler started nothing from ").at(period.start)
        }
        Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } => {
            Sentence::new().text("the scheduler was down (it started again ").at(*restarted_at).text(")")
        }
        Outcome::Missed { cause: MissCause::SchedulerStopped { since } } => {
            Sentence::new().text("the scheduler is stopped (down by ").at(*since).text(" at the latest)")
        }
        Outcome::SkippedRunning { run } => job
            .runs
            .get(*run)
            .map(|r| Sentence::new().text("the previous run (from ").at(r.start).text(") was still running"))
            .unwrap_or_else(|| Sentence::from("the previous run was still running")),
        _ => Sentence::new(),
    };
    let count = streak.len();
    let last_success = job.runs.iter().rev().find(|r| r.outcome == RunOutcome::Succeeded);
    let when = |t: Option<DateTime<Utc>>, none: &str| t.map_or(Sentence::from(none), |t| Sentence::new().at(t));
    let mut evidence = Sentence::new()
        .text(if count == 1 { "the run".to_owned() } else { format!("{count} runs in a row, the first") })
        .text(" due ")
        .at(first_occ.at);
    if count > 1 {
        evidence = evidence.text(", the latest ").at(last_occ.at);
    }
    let evidence = evidence
        .text(" missed: ")
        .then(cause)
        .text("; last success ")
        .then(when(last_success.map(|r| r.start), "none in the window"))
        .text("; next expected ")
        .then(when(job.next_expected.as_ref().map(|o| o.at), "none"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_described_once_in_its_own_place() {
        for (n, k) in ProblemKind::ALL.into_iter().enumerate() {
            assert_eq!(KINDS[n].kind, k, "KINDS follows ProblemKind's order");
            assert_eq!(ProblemKind::from_key(k.key()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::Value::from(k.key()), "the API's word is the key");
        }
        let mut ranks: Vec<u8> = KINDS.iter().map(|k| k.job_rank).collect();
        ranks.sort();
        assert_eq!(ranks, (0..11).collect::<Vec<u8>>(), "each kind its own rank in the jobs list");
        let mut keys: Vec<&str> = KINDS.iter().map(|k| k.job_key).collect();
        keys.dedup();
        assert_eq!(keys.len(), 11);
    }

    /// The module docs' table of kinds says what [`KINDS`] says: each kind once, its severity.
    #[test]
    fn the_docs_table_of_kinds_is_kinds() {
        let rows: Vec<(String, String)> = include_str!("triage.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .map(|l| {
                let mut cells = l.split('|').map(str::trim);
                let key = cells.next().unwrap_or("").trim_end_matches('`').to_owned();
                (key, cells.next().unwrap_or("").to_owned())
            })
            .collect();
        let kinds: Vec<(String, String)> =
            KINDS.iter().map(|k| (k.key.to_owned(), k.severity.key().to_owned())).collect();
        let (mut rows, mut kinds) = (rows, kinds);
        rows.sort();
        kinds.sort();
        assert_eq!(rows, kinds);
    }
}
