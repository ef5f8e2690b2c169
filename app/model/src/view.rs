//! The seam between pages and the server's sources, and the mapping of engine reports to
//! wire types.
use super::*;
use crate::engine::Zone as Tz; // the engine's zone, a chrono TimeZone (chrono-tz on the server)
use crate::engine::durations::{self, Baseline, Baselines, DurationFlag, DurationFlags, DurationStats, Season};
use crate::engine::fleet::{InstanceReport, JobReport};
use crate::engine::log::LogEvent;
use crate::engine::reconcile::{MissCause, Outcome, RunClass, Trigger};
use crate::engine::{Diagnostic, Run, RunOutcome, Window};
use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use std::sync::Arc;

mod backend;
pub mod calendar;
pub mod figures;
mod log;
pub mod risks;
pub use backend::*;
pub use log::{
    FLEET_LOG_WHOLE, FleetLog, InstanceLog, PieceAt, ReportLog, fleet_log, fleet_log_scaled, job_matches, parse_moment,
};

/// A cache of something derived from reports: each entry lives as long as its report.
type ReportCache<T> = std::sync::Mutex<Vec<(std::sync::Weak<InstanceReport>, usize, Arc<T>)>>;

/// What `compute` derives from `report` (and `key`), computed once per report, i.e. once
/// per poll and window, and shared by every request and page of it.
fn per_report<T>(
    cache: &'static std::sync::OnceLock<ReportCache<T>>,
    report: &Arc<InstanceReport>,
    key: usize,
    compute: impl FnOnce() -> T,
) -> Arc<T> {
    let cache = cache.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(w, _, _)| w.strong_count() > 0);
    let me = Arc::downgrade(report);
    if let Some((_, _, v)) = cache.iter().find(|(w, k, _)| w.ptr_eq(&me) && *k == key) {
        return v.clone();
    }
    let v = Arc::new(compute());
    cache.push((me, key, v.clone()));
    if cache.len() > 32 {
        cache.remove(0);
    }
    v
}

/// The jobs whose name (or id) holds `q`, ignoring case, on every instance read, each with
/// its state from the fleet's one judgment; at most `limit`.
pub async fn find_jobs(backend: &dyn Backend, pinned: Option<&RequestJudgment>, q: &str, limit: usize) -> FoundJobs {
    let needle = q.trim().to_lowercase();
    let mut out = FoundJobs { query: q.trim().to_owned(), ..FoundJobs::default() };
    if needle.is_empty() {
        return out;
    }
    // Each instance's jobs as its last judgment saw them (no instance analysed for a search),
    // their state triage's where a problem speaks for it, as the jobs list says.
    let judgment = triage_here(backend, pinned, super::TriageScope::all()).await;
    for i in backend.instances().await {
        let Some(jobs) = backend.figures(&i.name).await else {
            out.not_searched.push(i.name);
            continue;
        };
        for j in jobs.iter() {
            if out.jobs.len() >= limit {
                return out;
            }
            if j.name.to_lowercase().contains(&needle) || j.id.to_lowercase() == needle {
                let problems = super::triage::problems_of(&judgment, &i.name, &j.id);
                out.jobs.push(FoundJob {
                    instance: i.name.clone(),
                    id: j.id.clone(),
                    name: j.name.clone(),
                    category: j.category.clone(),
                    enabled: j.enabled,
                    state: problems_state(&problems).unwrap_or(j.quiet),
                });
            }
        }
    }
    out
}

/// The job's deadlines over the report's window: each instant passed in it, and the verdict of
/// the latest passed, judged as triage judges it ([`crate::engine::deadlines`]) over the runs
/// of `judged` (the report of the judged days: a Monday deadline looks back to Friday's, which a
/// 1-day window does not hold). The problem, if any, is triage's.
pub fn deadline_views(
    report: &InstanceReport,
    judged: &InstanceReport,
    job_id: &str,
    deadlines: &[crate::engine::deadlines::Deadline],
) -> Vec<super::DeadlineView> {
    use crate::engine::deadlines;
    let runs = |r: &'_ InstanceReport| -> Vec<Run> {
        r.jobs.iter().find(|j| j.id == job_id).map(|j| j.runs.clone()).unwrap_or_default()
    };
    let (shown, all) = (runs(report), runs(judged));
    let at = |t: DateTime<Utc>| point(t, report.tz);
    deadlines
        .iter()
        .map(|d| super::DeadlineView {
            name: d.name.clone(),
            words: d.words(),
            instants: deadlines::verdicts(d, &shown, report.window, report.now).iter().map(|v| at(v.at)).collect(),
            last: deadlines::last_verdict(d, &all, judged.now).map(|v| (at(v.at), v.met.map(at))),
        })
        .collect()
}

/// Format an instant for the wire, in the zone `tz`.
pub fn point(t: DateTime<Utc>, tz: Tz) -> TimePoint {
    use chrono::Offset;
    let local = t.with_timezone(&tz);
    TimePoint {
        ms: t.timestamp_millis(),
        local: super::wire::wall_text(local.naive_local()),
        off: local.offset().fix().local_minus_utc(),
    }
}

/// The page head of a report, before [`decorate`].
pub fn head(report: &InstanceReport, days: u32) -> InstanceHead {
    InstanceHead {
        name: report.name.clone(),
        tz: report.tz.name().to_string(),
        now: point(report.now, report.tz),
        days,
        window_start: point(report.window.start, report.tz),
        window_end: point(report.window.end, report.tz),
        stale: None,
        scheduler: Scheduler::default(),
        incidents: Vec::new(),
        condition: InstanceCondition::default(),
        as_of: None,
        age_secs: None,
        poll_secs: None,
    }
}

/// The incidents of a report: its scheduler's gaps ([`crate::engine::gaps`]: zombie spans,
/// stops its restarts ended, a stop still going), each with what it cost; newest first.
/// Made once per read by the instance's judgment (the server keeps them there), so every page
/// of the instance, the fleet table and the API say the same.
pub fn incidents(report: &InstanceReport) -> Vec<Incident> {
    use crate::engine::gaps::GapKind;
    let tz = report.tz;
    let end = report.now.min(report.window.end);
    let mut out = Vec::new();
    for g in &report.gaps {
        let at = |t: DateTime<Utc>| point(t, tz);
        let (kind, due, missed, unknown, jobs) = match (g.kind, g.back) {
            (GapKind::Zombie, _) => {
                let Some(p) = report.context.zombie_periods.iter().find(|p| p.start == g.by) else { continue };
                let z = zombie_counts(report, p);
                let jobs = jobs_missing(report, |c| matches!(c, MissCause::AgentZombie { period } if period == p));
                (IncidentKind::Zombie, z.0, z.1, z.2, jobs)
            }
            (GapKind::Stopped, Some(back)) => {
                let (missed, late) = stop_counts(report, back);
                let jobs = jobs_missing(
                    report,
                    |c| matches!(c, MissCause::AgentDown { restarted_at } if *restarted_at == back),
                );
                (IncidentKind::SchedulerDown, missed + late, missed, 0, jobs)
            }
            (GapKind::Stopped, None) => {
                let is_stop = |c: &MissCause| matches!(c, MissCause::SchedulerStopped { .. });
                let missed = report
                    .jobs
                    .iter()
                    .flat_map(|j| &j.reconciliation.outcomes)
                    .filter(|o| matches!(o, Outcome::Missed { cause } if is_stop(cause)))
                    .count();
                (IncidentKind::SchedulerDown, missed, missed, 0, jobs_missing(report, is_stop))
            }
        };
        out.push(Incident {
            kind,
            start: at(g.by),
            end: at(g.back.unwrap_or(end)),
            due,
            missed,
            unknown,
            jobs,
            ongoing: g.ongoing(),
            reason: None,
            last_seen: g.last_seen.map(at),
        });
    }
    out.sort_by_key(|i| std::cmp::Reverse(i.end.ms));
    out
}

/// Runs of all jobs due in a zombie span: due, missed, unknown.
fn zombie_counts(report: &InstanceReport, p: &crate::engine::Window) -> (usize, usize, usize) {
    let (mut due, mut missed, mut unknown) = (0, 0, 0);
    for j in &report.jobs {
        for (o, out) in j.forecast.occurrences.iter().zip(&j.reconciliation.outcomes) {
            if p.contains(o.at) {
                due += 1;
                match out {
                    Outcome::Missed { .. } => missed += 1,
                    Outcome::Unknown => unknown += 1,
                    _ => {}
                }
            }
        }
    }
    (due, missed, unknown)
}

/// What a stop ended by the restart at `s` cost: the runs missed because of it, and those due
/// before the restart that ran only after it (before any later restart): run late on the
/// scheduler's return (pgAgent's catch-up run, a queued tick).
fn stop_counts(report: &InstanceReport, s: DateTime<Utc>) -> (usize, usize) {
    let next_start =
        report.context.agent_starts.iter().copied().filter(|t| *t > s).min().unwrap_or(DateTime::<Utc>::MAX_UTC);
    let (mut missed, mut late) = (0, 0);
    for j in &report.jobs {
        for (o, out) in j.forecast.occurrences.iter().zip(&j.reconciliation.outcomes) {
            match out {
                Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } if *restarted_at == s => missed += 1,
                Outcome::Late { run, .. } => {
                    late +=
                        usize::from(j.runs.get(*run).is_some_and(|r| o.at < s && s <= r.start && r.start < next_start))
                }
                _ => {}
            }
        }
    }
    (missed, late)
}

fn jobs_missing(report: &InstanceReport, cause: impl Fn(&MissCause) -> bool) -> usize {
    report
        .jobs
        .iter()
        .filter(|j| j.reconciliation.outcomes.iter().any(|o| matches!(o, Outcome::Missed { cause: c } if cause(c))))
        .count()
}

/// Fill in what only the backend knows about the instance, from one look at its status (its
/// one judgment): its scheduler (from the source kind), its condition and incidents of the
/// last 30 days (whatever window the page shows), and, when the latest read failed, the
/// stale note.
pub async fn decorate(backend: &dyn Backend, head: &mut InstanceHead) {
    if let Some(status) = backend.instances().await.into_iter().find(|i| i.name == head.name) {
        head.scheduler = status.scheduler.clone();
        head.stale = stale_note(&status);
        head.as_of = status.last_good.clone();
        head.age_secs = status.age_secs;
        head.poll_secs = status.poll_secs;
        head.condition = status.condition;
        head.incidents = status.incidents;
    }
}

/// When the instance's latest read failed although a report exists (its last good read),
/// the sentence a page shows about it.
pub fn stale_note(status: &InstanceStatus) -> Option<String> {
    if status.state != SourceState::Unreachable {
        return None;
    }
    Some(format!(
        "{} cannot be read now ({}); this is its last good read{}",
        status.name,
        status.error.as_deref().unwrap_or("unknown error"),
        status.last_good.as_ref().map(|t| format!(", from {} {}", t.local, offset_label(t.off))).unwrap_or_default()
    ))
}

/// The bands a chart shades where the scheduler started nothing: its zombie spans and its
/// stops, each from the last sign of life, from the report's one finding of them.
fn gap_spans(report: &InstanceReport) -> Vec<ZombieSpan> {
    let mut out: Vec<ZombieSpan> = incidents(report)
        .into_iter()
        .map(|i| ZombieSpan {
            start: i.last_seen.filter(|_| i.kind == IncidentKind::SchedulerDown).unwrap_or(i.start),
            end: i.end,
            due: i.due,
            missed: i.missed,
            unknown: i.unknown,
            stopped: i.kind == IncidentKind::SchedulerDown,
        })
        .collect();
    out.sort_by_key(|z| z.start.ms);
    out
}

fn diagnostic_line(d: &Diagnostic) -> DiagnosticLine {
    DiagnosticLine { severity: d.severity, text: d.to_string() }
}

/// Where a job stands: the fleet's one judgment first — with an open problem (its own, its
/// scheduler's), the worst one's state, whatever the window — and only without one what the
/// window's runs say. The jobs list, the job page and the JSON API all take it from here.
pub fn job_state(job: &JobReport, window: Window, problems: &[super::ProblemRow]) -> JobState {
    if let Some(s) = problems_state(problems) {
        return s;
    }
    let in_window = || job.runs.iter().filter(|r| window.contains(r.start));
    if in_window().any(|r| r.outcome.is_failure()) {
        JobState::Recovered
    } else if in_window().any(|r| r.outcome == RunOutcome::InProgress) {
        JobState::Running
    } else if !job.enabled {
        JobState::Disabled
    } else if in_window().next().is_none() {
        JobState::NoRun
    } else {
        JobState::Ok
    }
}

/// The state the worst of a job's problems gives it; `None` without a problem.
fn problems_state(problems: &[super::ProblemRow]) -> Option<JobState> {
    problems.iter().map(|p| JobState::of_problem(p.kind)).min()
}

fn row(job: &JobReport, tz: Tz, report_window: Window, problems: Vec<super::ProblemRow>) -> JobRow {
    let missed_zombie = job
        .reconciliation
        .outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Missed { cause: MissCause::AgentZombie { .. } }))
        .count();
    // The report's diagnostics hold the source's, the forecast's and the reconciliation's,
    // each fact once (`fleet::analyze`); a line repeated word for word is shown once.
    let mut diagnostics: Vec<DiagnosticLine> = Vec::new();
    for line in job.diagnostics.iter().map(diagnostic_line) {
        if !diagnostics.contains(&line) {
            diagnostics.push(line);
        }
    }
    let window = report_window;
    let in_window: Vec<&Run> = job.runs.iter().filter(|r| window.contains(r.start)).collect();
    let count = |o: RunOutcome| in_window.iter().filter(|r| r.outcome == o).count();
    // Crashed and abandoned runs are failures too, in the scheduler's own words.
    let failed = in_window.iter().filter(|r| r.outcome.is_failure()).count();
    let (retries, canceled) = (count(RunOutcome::Retry), count(RunOutcome::Canceled));
    let failed_unknown = (!in_window.is_empty() && in_window.iter().all(|r| r.outcome == RunOutcome::Unknown))
        .then(|| in_window.first().map(|r| r.message.clone()).filter(|m| !m.is_empty()))
        .map(|m| m.unwrap_or_else(|| "the source keeps no outcome of these runs".to_owned()));
    let streak =
        problems.iter().find(|p| p.kind == crate::engine::triage::ProblemKind::Failed).map_or(0, |p| p.count.max(1));
    let state = job_state(job, window, &problems);
    let mut due = 0;
    let mut unknown = 0;
    for o in &job.reconciliation.outcomes {
        match o {
            Outcome::Upcoming => {}
            Outcome::Unknown => {
                due += 1;
                unknown += 1;
            }
            _ => due += 1,
        }
    }
    JobRow {
        id: job.id.clone(),
        name: job.name.clone(),
        category: job.category.clone(),
        owner: job.owner.clone(),
        enabled: job.enabled,
        schedules: job.descriptions.clone(),
        schedule_notes: job.schedule_notes.clone(),
        last_run: job.last_run.as_ref().map(|r| LastRun {
            start: point(r.start, tz),
            outcome: r.outcome,
            duration: run_duration_text(r),
        }),
        next_expected: job.next_expected.as_ref().map(|o| point(o.at, tz)),
        state,
        problems,
        streak,
        failed,
        retries,
        canceled,
        failed_unknown,
        due,
        missed: job.missed,
        missed_zombie,
        late: job.late,
        skipped: job.skipped,
        unknown,
        maintenance: job.maintenance,
        history_since: job.history_horizon.filter(|h| *h > window.start && *h <= window.end).map(|h| point(h, tz)),
        diagnostics,
    }
}

/// The jobs list of a report.
pub fn jobs_data(report: &InstanceReport, days: u32, judgment: &super::TriageData) -> JobsData {
    let problems = |j: &JobReport| super::triage::problems_of(judgment, &report.name, &j.id);
    JobsData {
        instance: head(report, days),
        zombies: gap_spans(report),
        jobs: report.jobs.iter().map(|j| row(j, report.tz, report.window, problems(j))).collect(),
    }
}

fn trigger_text(t: &Trigger) -> String {
    match t {
        Trigger::Schedule(Some(id)) => format!("Schedule {id}"),
        Trigger::Schedule(None) => "Schedule".into(),
        Trigger::Manual => "Manual".into(),
        Trigger::Other(s) if s.is_empty() => "Other".into(),
        Trigger::Other(s) => s.clone(),
    }
}

/// How long a run took, or "unknown" where the source keeps no outcome and no duration (a
/// MariaDB event seen only by its LAST_EXECUTED): never "0s" for what nobody measured.
fn run_duration_text(r: &Run) -> String {
    if r.outcome == RunOutcome::Unknown { "unknown".to_owned() } else { duration_text(r.duration_secs) }
}

/// History messages can be pages long; the timeline keeps the first 300 characters.
fn shorten(s: &str) -> String {
    const MAX: usize = 300;
    let s = s.trim();
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(MAX).collect();
        out.push('…');
        out
    }
}

/// One step of a run for the job page: its own message quoted, its times in `tz`.
fn step_view(s: &crate::engine::Step, tz: Tz) -> StepView {
    StepView {
        id: s.id,
        name: s.name.clone(),
        outcome: s.outcome,
        message: s.quote(),
        sql_message_id: s.sql_message_id,
        sql_severity: s.sql_severity,
        retries: s.retries,
        start: s.start.map(|t| point(t, tz)),
        duration: s.duration_secs.map(duration_text).unwrap_or_default(),
        subsystem: s.subsystem.clone(),
    }
}

/// A run still going against `stats`: its expected finish (start + p50) while it is not
/// past p50.
fn progress(r: &Run, stats: &DurationStats, tz: Tz) -> Progress {
    let elapsed = r.duration_secs.max(0);
    let finish = (elapsed < stats.p50)
        .then(|| chrono::Duration::try_seconds(stats.p50).and_then(|d| r.start.checked_add_signed(d)))
        .flatten()
        .map(|t| point(t, tz));
    Progress { elapsed_secs: elapsed, p50: stats.p50, p95: stats.p95, finish }
}

fn run_view(
    r: &Run,
    class: Option<&RunClass>,
    job_enabled: bool,
    tz: Tz,
    base: Option<&Baseline>,
    flags: &DurationFlags,
) -> RunView {
    let kind = run_kind(class, &r.trigger, job_enabled);
    RunView {
        start: point(r.start, tz),
        end_ms: r.end().timestamp_millis(),
        duration_secs: r.duration_secs.max(0),
        duration: run_duration_text(r),
        outcome: r.outcome,
        kind,
        trigger: trigger_text(&r.trigger),
        // A failed run says its failed step's own message, not the outcome line.
        message: shorten(&r.why()),
        flag: base.and_then(|b| durations::flag_by(r, b, flags)),
        steps: r.steps.iter().map(|s| step_view(s, tz)).collect(),
        progress: base.filter(|_| r.outcome == RunOutcome::InProgress).map(|b| progress(r, &b.stats, tz)),
    }
}

fn occurrence_view(
    at: DateTime<Utc>,
    outcome: Option<&Outcome>,
    runs: &[Run],
    horizon: Option<DateTime<Utc>>,
    tz: Tz,
    scheduler: &Scheduler,
) -> OccurrenceView {
    // Every time in a sentence is an instant: pages show it in their reader's zone, with it.
    let local = |t: DateTime<Utc>| point(t, tz);
    let words = |s: &str| SentenceView::default().text(s);
    let (mark, cause, note) = match outcome {
        Some(Outcome::OnTime { .. }) => (Mark::OnTime, None, SentenceView::default()),
        Some(Outcome::Late { delay_secs, .. }) => {
            (Mark::Late, None, words(&format!("Late: started {} after it was due", duration_text(*delay_secs))))
        }
        Some(Outcome::Missed { cause }) => {
            let (c, note) = match cause {
                MissCause::AgentZombie { period } => (
                    Cause::Zombie,
                    words(&format!("Missed: {} started no job between ", scheduler.label()))
                        .at(local(period.start))
                        .text(" and ")
                        .at(local(period.end)),
                ),
                MissCause::AgentDown { restarted_at } => {
                    let who = scheduler.down_who();
                    (Cause::Down, words(&format!("Missed: {who} was down, restarted at ")).at(local(*restarted_at)))
                }
                MissCause::SchedulerStopped { since } => {
                    let who = scheduler.down_who();
                    (
                        Cause::Down,
                        words(&format!("Missed: {who} is stopped, down by ")).at(local(*since)).text(" at the latest"),
                    )
                }
                MissCause::NoRun => (Cause::NoRun, words("Missed: no run started")),
            };
            (Mark::Missed, Some(c), note)
        }
        Some(Outcome::SkippedRunning { run }) => {
            let note = match runs.get(*run) {
                Some(r) => words("Skipped: the previous run (started ").at(local(r.start)).text(") was still running"),
                None => words("Skipped: the previous run was still running"),
            };
            (Mark::Skipped, None, note)
        }
        Some(Outcome::Unknown) => {
            let note = match horizon {
                Some(h) => words("Unknown: older than the oldest history kept (").at(local(h)).text(")"),
                None => words("Unknown: older than the history kept"),
            };
            (Mark::Unknown, None, note)
        }
        Some(Outcome::Maintenance { window }) => {
            let note = words("Maintenance: not run inside a planned window, ")
                .at(local(window.start))
                .text(" to ")
                .at(local(window.end));
            (Mark::Maintenance, None, note)
        }
        Some(Outcome::Upcoming) | None => (Mark::Upcoming, None, SentenceView::default()),
    };
    OccurrenceView { at: point(at, tz), mark, cause, note }
}

/// Ticks at local midnights (labelled with the date), with minor ticks between; for a
/// one-day window every three hours (labelled with the time).
pub fn ticks(window: Window, tz: Tz) -> Vec<Tick> {
    let mut out = Vec::new();
    if window.is_empty() {
        return out;
    }
    let days = window.duration().num_hours().max(1) as f64 / 24.0;
    let (hour_step, label_every_days) = if days <= 1.5 {
        (3, 1)
    } else if days <= 10.0 {
        (6, 1)
    } else {
        (24, 3)
    };
    let first = window.start.with_timezone(&tz).date_naive();
    let last = window.end.with_timezone(&tz).date_naive();
    let mut date = first;
    let mut day_index = 0u32;
    while date <= last {
        for hour in (0..24).step_by(hour_step) {
            let naive = date.and_time(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or_default());
            let Some(t) = tz.from_local_datetime(&naive).earliest() else { continue };
            let t = t.with_timezone(&Utc);
            if !window.contains(t) {
                continue;
            }
            let major = hour == 0;
            let label = if days <= 1.5 {
                if major { t.with_timezone(&tz).format("%a %d %b").to_string() } else { format!("{hour:02}:00") }
            } else if major && day_index.is_multiple_of(label_every_days) {
                t.with_timezone(&tz).format("%a %d %b").to_string()
            } else {
                String::new()
            };
            out.push(Tick { ms: t.timestamp_millis(), label, major });
        }
        date = match date.succ_opt() {
            Some(d) => d,
            None => break,
        };
        day_index += 1;
    }
    out
}

/// Beyond this many, routine occurrences (runs) of a job are drawn as stretches: at 7 days
/// an hourly job is drawn run by run, a job every 30 minutes as stretches (with every
/// problem still one by one), which keeps a 7-day job page under 150 KB.
pub const DETAIL_LIMIT: usize = 200;
/// Routine lines the table lists (the newest); problems are always listed.
pub const ROUTINE_LINES: usize = 24;

fn routine_line(l: &TableLine) -> bool {
    // A run flagged too long or too short is not routine.
    let ok_run = l.run.as_ref().is_none_or(|r| r.outcome == RunOutcome::Succeeded && r.flag.is_none());
    match l.expected {
        Some(Mark::OnTime) => ok_run,
        Some(Mark::Upcoming | Mark::Unknown | Mark::Maintenance) => true,
        Some(_) => false,
        None => l.run.as_ref().is_some_and(|r| r.kind == RunKind::Scheduled) && ok_run,
    }
}

/// What the fleet's one judgment says of a job beside the window shown: its problems (triage's)
/// and its usual durations (over the judged window, [`super::JUDGED_DAYS`]).
#[derive(Clone, Copy)]
pub struct Judged<'a> {
    pub judgment: &'a super::TriageData,
    /// The instance's report over the judged window.
    pub baseline: &'a InstanceReport,
}

/// One job's timeline of a report; [`ApiError::NotFound`] for an unknown id.
/// `scheduler` names what starts the jobs in the causes ([`Scheduler::label`]); `flags` says
/// which durations are flagged; `at`, the moment of a deep link, is marked (the table line
/// nearest to it kept and pointed at in [`TimelineData::at`]).
pub fn timeline_data(
    report: &InstanceReport,
    job_id: &str,
    days: u32,
    scheduler: &Scheduler,
    flags: &DurationFlags,
    at: Option<DateTime<Utc>>,
    judged: Judged<'_>,
) -> Result<TimelineData, ApiError> {
    use chrono::Weekday::{Fri, Mon, Sat, Sun, Thu, Tue, Wed};
    let Judged { judgment, baseline } = judged;
    let tz = report.tz;
    let job = report.jobs.iter().find(|j| j.id == job_id).ok_or_else(|| ApiError::NotFound { what: "job".into() })?;
    let window = report.window;
    // A gap wider than 0.3% of the window breaks a stretch.
    let max_gap = ((window.end - window.start).num_milliseconds() / 300).max(1);

    // One duration statistic: the judged window's, as triage's (a job the baseline lacks, read
    // in between, is measured over what is shown).
    let usual = baseline.jobs.iter().find(|j| j.id == job_id).map_or(&job.runs, |j| &j.runs);
    let baselines = Baselines::of(usual, tz);
    let all_runs = run_views(job, tz, &baselines, flags);
    let weekdays = [Mon, Tue, Wed, Thu, Fri, Sat, Sun].map(|d| baselines.season(Season::Weekday(d)));
    let latest = job.runs.last().and_then(|r| baselines.at(r.start)).map(|b| crate::wire::BaselineView {
        words: b.words(&format!("of the last {} days", super::JUDGED_DAYS)),
        stats: b.stats,
    });
    let durations = DurationsView {
        days: super::JUDGED_DAYS,
        window: baselines.window(),
        weekdays: weekdays.to_vec(),
        month_end: baselines.season(Season::MonthEnd),
        latest,
        flags: flags.clone(),
        long: all_runs.iter().filter(|r| matches!(r.flag, Some(DurationFlag::Long { .. }))).count(),
        short: all_runs.iter().filter(|r| matches!(r.flag, Some(DurationFlag::Short { .. }))).count(),
    };
    let all_occurrences = occurrence_views(job, all_runs.len(), tz, scheduler);
    let (mut lines, hidden_lines, at_line) = table_lines(&all_occurrences, &all_runs, at.map(|t| t.timestamp_millis()));
    let run_now = run_now_of(job, scheduler, &mut lines);
    let at = at.map(|t| AtView {
        at: Some(point(t, tz)),
        error: None,
        inside: window.contains(t),
        line: at_line.filter(|_| window.contains(t)),
        chosen: false,
    });
    let expected_count = all_occurrences.len();
    let run_count = all_runs.len();
    let (occurrences, occurrence_spans) = chart_occurrences(all_occurrences, max_gap);
    let (runs, run_spans) = chart_runs(all_runs, max_gap, tz);

    let history_horizon = job.history_horizon.filter(|h| *h > window.start).map(|h| point(h.min(window.end), tz));
    let source_since = job.source_horizon.filter(|h| *h > window.start).map(|h| point(h.min(window.end), tz));
    let agent_starts =
        report.context.agent_starts.iter().filter(|t| window.contains(**t)).map(|t| point(*t, tz)).collect();
    Ok(TimelineData {
        instance: head(report, days),
        job: row(job, tz, window, super::triage::problems_of(judgment, &report.name, &job.id)),
        expected_count,
        run_count,
        occurrences,
        occurrence_spans,
        runs,
        run_spans,
        lines,
        hidden_lines,
        history_horizon,
        source_since,
        zombies: gap_spans(report),
        maintenance: report
            .maintenance
            .iter()
            .filter(|m| m.covers(&job.id, &job.name))
            .map(|m| MaintenanceSpan {
                start: point(m.window.start.max(window.start), tz),
                end: point(m.window.end.min(window.end), tz),
                label: m.label.clone(),
            })
            .collect(),
        agent_starts,
        ticks: ticks(window, tz),
        durations,
        at,
        run_now,
        ahead: Default::default(),
        deadlines: Vec::new(),
        changes: Vec::new(),
    })
}

/// The changes of one job as pages show them, in the instance's zone, oldest first.
pub fn change_views(changes: &[crate::engine::changes::Change], tz: Tz) -> Vec<ChangeView> {
    changes
        .iter()
        .map(|c| ChangeView {
            seen: point(c.seen, tz),
            modified: c.modified.map(|m| point(m, tz)),
            kind: c.kind.key().to_owned(),
            words: c.kind.words().to_owned(),
            before: c.before.as_ref().map(|v| v.text()),
            after: c.after.as_ref().map(|v| v.text()),
        })
        .collect()
}

/// What the run-now statement knows of `job` (without a failed step).
pub fn run_now_job(job: &JobReport) -> crate::run_now::RunNowJob<'_> {
    crate::run_now::RunNowJob {
        id: &job.id,
        name: &job.name,
        category: &job.category,
        owner: job.owner.as_deref(),
        command: job.command.as_deref(),
        failed_step: None,
    }
}

/// The step a failed run's line can be restarted at: the last failed attempt's name.
fn failed_step_name(r: &RunView) -> Option<&str> {
    let failed = |o: Option<RunOutcome>| matches!(o, Some(RunOutcome::Failed | RunOutcome::Canceled));
    r.steps
        .iter()
        .rev()
        .find(|s| s.id != 0 && failed(s.outcome))
        .map(|s| s.name.as_str())
        .filter(|n| !n.trim().is_empty())
}

/// The job's run-now statement when `lines` hold a miss or a failed run; each failed run's
/// line that the scheduler can restart at its failed step gets that statement too.
fn run_now_of(job: &JobReport, scheduler: &Scheduler, lines: &mut [TableLine]) -> Option<crate::run_now::RunNow> {
    let failed = |l: &TableLine| {
        l.run.as_ref().is_some_and(|r| {
            matches!(r.outcome, RunOutcome::Failed | RunOutcome::Canceled | RunOutcome::Crashed | RunOutcome::Abandoned)
        })
    };
    let any = lines.iter().any(|l| l.expected == Some(Mark::Missed) || failed(l));
    if !any {
        return None;
    }
    let facts = run_now_job(job);
    let whole = crate::run_now::run_now(scheduler, &facts);
    for l in lines.iter_mut().filter(|l| failed(l)) {
        let step = l.run.as_ref().and_then(failed_step_name);
        if let Some(step) = step {
            let at_step =
                crate::run_now::run_now(scheduler, &crate::run_now::RunNowJob { failed_step: Some(step), ..facts });
            l.run_now = (at_step != whole).then_some(at_step);
        }
    }
    Some(whole)
}

/// Which of the windows (`(days, window)`, smallest first, all ending at now) a deep link's
/// moment opens on: the smallest that holds `at`, and whether one does; else the smallest for a
/// moment after now (nearest to it), the largest for one before them all.
pub fn window_for(at: DateTime<Utc>, windows: &[(u32, Window)]) -> Option<(u32, bool)> {
    if let Some((d, _)) = windows.iter().find(|(_, w)| w.contains(at)) {
        return Some((*d, true));
    }
    let ahead = windows.first().is_some_and(|(_, w)| at >= w.end);
    let pick = if ahead { windows.first() } else { windows.last() };
    pick.map(|(d, _)| (*d, false))
}

/// The link's `at` as the job page reads it: RFC 3339 (as [`crate::links::job_at_href`]
/// writes it) or a wall-clock time in `tz`; the error names the parameter and what it got.
pub fn parse_at(raw: &str, tz: Tz) -> Result<DateTime<Utc>, String> {
    parse_moment("at", raw, tz).map_err(|e| format!("The link's moment cannot be read: {e}."))
}

/// Every run of `job` as pages show it, parallel to `job.runs`, flagged against `stats`.
/// Each run, flagged against its season's baseline as triage judges it.
fn run_views(job: &JobReport, tz: Tz, baselines: &Baselines, flags: &DurationFlags) -> Vec<RunView> {
    job.runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let base = baselines.at(r.start);
            run_view(r, job.reconciliation.runs.get(i), job.enabled, tz, base.as_ref(), flags)
        })
        .collect()
}

/// What started a run: the occurrence it served, else the scheduler's own word. A run the
/// scheduler says one of its schedules started is a scheduled run also once the job is
/// disabled (its schedules then forecast nothing to match the run to): never "Unscheduled".
fn run_kind(class: Option<&RunClass>, trigger: &Trigger, job_enabled: bool) -> RunKind {
    match (class, trigger) {
        (Some(RunClass::Expected { .. }), _) => RunKind::Scheduled,
        (Some(RunClass::Manual), _) | (None, Trigger::Manual) => RunKind::Manual,
        (Some(RunClass::Unscheduled), Trigger::Schedule(_)) if !job_enabled => RunKind::Scheduled,
        (Some(RunClass::Unscheduled), _) => RunKind::Unscheduled,
        (None, Trigger::Schedule(_)) => RunKind::Scheduled,
        (None, Trigger::Other(_)) => RunKind::Unscheduled,
    }
}

/// Every occurrence of `job` as pages show it, with the index of the run that served it (on
/// time or late; below `run_count`), if any.
fn occurrence_views(
    job: &JobReport,
    run_count: usize,
    tz: Tz,
    scheduler: &Scheduler,
) -> Vec<(OccurrenceView, Option<usize>)> {
    job.forecast
        .occurrences
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let outcome = job.reconciliation.outcomes.get(i);
            let served_by = match outcome {
                Some(Outcome::OnTime { run } | Outcome::Late { run, .. }) => Some(*run).filter(|r| *r < run_count),
                _ => None,
            };
            (occurrence_view(o.at, outcome, &job.runs, job.history_horizon, tz, scheduler), served_by)
        })
        .collect()
}

/// The table: occurrences with their runs, then the runs nobody claims; newest first, with
/// the routine lines past the newest [`ROUTINE_LINES`] left out. Also how many were left out,
/// and the index of the line nearest to `at` (milliseconds), which is always kept.
fn table_lines(
    occurrences: &[(OccurrenceView, Option<usize>)],
    runs: &[RunView],
    at: Option<i64>,
) -> (Vec<TableLine>, usize, Option<usize>) {
    let mut claimed = vec![false; runs.len()];
    let mut lines: Vec<TableLine> = Vec::with_capacity(occurrences.len());
    for (o, run) in occurrences {
        if let Some(r) = run {
            claimed[*r] = true;
        }
        if !merge_miss(&mut lines, o) {
            lines.push(TableLine {
                at: o.at.clone(),
                expected: Some(o.mark),
                cause: o.cause,
                note: o.note.clone(),
                run: run.map(|r| runs[r].clone()),
                run_now: None,
                collapsed: Collapsed::single(),
            });
        }
    }
    for (r, taken) in runs.iter().zip(&claimed) {
        if !taken {
            lines.push(TableLine {
                at: r.start.clone(),
                expected: None,
                cause: None,
                note: SentenceView::default(),
                run: Some(r.clone()),
                run_now: None,
                collapsed: Collapsed::single(),
            });
        }
    }
    lines.sort_by_key(|l| std::cmp::Reverse(l.at.ms));
    let nearest = at.and_then(|at| nearest_line(&lines, at));
    let (hidden_lines, nearest) = keep_newest_routine(&mut lines, nearest);
    (lines, hidden_lines, nearest)
}

/// How far `at` (milliseconds) is from a line: zero inside a collapsed line's stretch or a
/// run's time, else to its nearest end.
fn distance(l: &TableLine, at: i64) -> i64 {
    let from = l.collapsed.first().map_or(l.at.ms, |f| f.ms.min(l.at.ms));
    let to = l.run.as_ref().map_or(l.at.ms, |r| r.end_ms.max(l.at.ms));
    if at < from {
        from.saturating_sub(at)
    } else if at > to {
        at.saturating_sub(to)
    } else {
        0
    }
}

/// The index of the line of `lines` nearest to `at` (the newer one of a tie).
fn nearest_line(lines: &[TableLine], at: i64) -> Option<usize> {
    lines.iter().enumerate().min_by_key(|(_, l)| distance(l, at)).map(|(i, _)| i)
}

/// Consecutive misses with one cause are one line ("290 runs missed from … to …"): folds
/// the missed occurrence `o` into the last line when that is a miss with the same cause and
/// note. Whether it did.
fn merge_miss(lines: &mut [TableLine], o: &OccurrenceView) -> bool {
    if o.mark != Mark::Missed {
        return false;
    }
    let Some(last) =
        lines.last_mut().filter(|l| l.expected == Some(Mark::Missed) && l.cause == o.cause && l.note == o.note)
    else {
        return false;
    };
    let c = &mut last.collapsed;
    if !c.is_collapsed() {
        *c = Collapsed { count: 1, members: vec![last.at.clone()] };
    }
    c.count += 1;
    if c.members.len() < MEMBERS_SHOWN {
        c.members.push(o.at.clone());
    }
    last.at = o.at.clone();
    true
}

/// Keeps every problem line, the first [`ROUTINE_LINES`] routine lines of `lines` (newest
/// first) and the line `keep`; returns how many routine lines it dropped, and where `keep` is
/// now.
fn keep_newest_routine(lines: &mut Vec<TableLine>, keep: Option<usize>) -> (usize, Option<usize>) {
    let mut routine_seen = 0;
    let mut dropped = 0;
    let mut kept_at = None;
    let mut index = 0;
    let mut kept = 0;
    lines.retain(|l| {
        let i = index;
        index += 1;
        let routine = routine_line(l);
        if routine {
            routine_seen += 1;
        }
        let stays = !routine || routine_seen <= ROUTINE_LINES || keep == Some(i);
        if stays {
            if keep == Some(i) {
                kept_at = Some(kept);
            }
            kept += 1;
        } else {
            dropped += 1;
        }
        stays
    });
    (dropped, kept_at)
}

/// The chart's occurrences: problems one by one; for a job of more than [`DETAIL_LIMIT`]
/// occurrences, routine marks (on time, upcoming, unknown) as stretches, a gap wider than
/// `max_gap` milliseconds or another mark starting a new one.
fn chart_occurrences(all: Vec<(OccurrenceView, Option<usize>)>, max_gap: i64) -> (Vec<OccurrenceView>, Vec<MarkSpan>) {
    let dense = all.len() > DETAIL_LIMIT;
    let mut occurrences = Vec::new();
    let mut spans: Vec<MarkSpan> = Vec::new();
    for (o, _) in all {
        if dense && matches!(o.mark, Mark::OnTime | Mark::Upcoming | Mark::Unknown | Mark::Maintenance) {
            match spans.last_mut() {
                Some(last) if last.mark == o.mark && o.at.ms - last.end.ms <= max_gap => {
                    last.end = o.at;
                    last.count += 1;
                }
                _ => spans.push(MarkSpan { start: o.at.clone(), end: o.at, mark: o.mark, count: 1 }),
            }
        } else {
            occurrences.push(o);
        }
    }
    (occurrences, spans)
}

/// The chart's runs, succeeded ones without their message: problems (flagged durations too)
/// and unscheduled runs one by one; for a job of more than [`DETAIL_LIMIT`] runs, succeeded
/// scheduled runs as stretches, a gap wider than `max_gap` milliseconds starting a new one.
fn chart_runs(all: Vec<RunView>, max_gap: i64, tz: Tz) -> (Vec<RunView>, Vec<RunSpan>) {
    let dense = all.len() > DETAIL_LIMIT;
    let mut runs = Vec::new();
    let mut spans: Vec<RunSpan> = Vec::new();
    for mut r in all {
        if r.outcome == RunOutcome::Succeeded {
            r.message.clear();
        }
        // The table lists the steps; the chart's bars do not.
        r.steps.clear();
        if dense && r.outcome == RunOutcome::Succeeded && r.kind == RunKind::Scheduled && r.flag.is_none() {
            match spans.last_mut() {
                Some(last) if r.start.ms - last.end_ms <= max_gap => {
                    if r.end_ms > last.end_ms {
                        last.end_ms = r.end_ms;
                        last.end_local = point(DateTime::from_timestamp_millis(r.end_ms).unwrap_or_default(), tz).local;
                    }
                    last.count += 1;
                }
                _ => spans.push(RunSpan {
                    end_local: point(DateTime::from_timestamp_millis(r.end_ms).unwrap_or_default(), tz).local,
                    start: r.start,
                    end_ms: r.end_ms,
                    count: 1,
                }),
            }
        } else {
            runs.push(r);
        }
    }
    (runs, spans)
}

#[cfg(test)]
mod timeline_tests {
    //! The job page's wire building: steps, progress, flags, the moment of a deep link.
    use super::*;
    use chrono::Duration;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.to_utc()).unwrap_or_default()
    }

    fn run(start: &str, secs: i64, outcome: RunOutcome, message: &str) -> Run {
        Run {
            start: t(start),
            duration_secs: secs,
            outcome,
            trigger: Trigger::Schedule(Some(1)),
            message: message.into(),
            steps: Vec::new(),
        }
    }

    fn stats(p50: i64, p95: i64) -> DurationStats {
        DurationStats { count: 20, p50, p95, max: p95 }
    }

    #[test]
    fn a_failed_run_says_its_failed_steps_message_and_lists_its_steps() {
        use crate::engine::Step;
        let mut r = run(
            "2026-11-20T01:00:00Z",
            60,
            RunOutcome::Failed,
            "The job failed.  The Job was invoked by Schedule 1 (Nightly).  The last step to run was step 2 (Verify).",
        );
        let step = |id: i64, name: &str, outcome: RunOutcome, message: &str, secs: i64| Step {
            id,
            name: name.into(),
            outcome: Some(outcome),
            message: message.into(),
            start: Some(t("2026-11-20T01:00:00Z")),
            duration_secs: Some(secs),
            subsystem: "TSQL".into(),
            ..Step::default()
        };
        r.steps = vec![
            step(1, "Backup", RunOutcome::Succeeded, "Executed as user: sa. The step succeeded.", 50),
            step(2, "Verify", RunOutcome::Failed, "Executed as user: sa. CHECKSUM mismatch.  The step failed.", 10),
        ];
        let v = run_view(&r, None, true, Tz::UTC, None, &DurationFlags::default());
        assert_eq!(v.message, "step 2 (Verify): CHECKSUM mismatch.", "the step's words, not the outcome line");
        let shown: Vec<(String, Option<RunOutcome>, &str, &str)> =
            v.steps.iter().map(|s| (s.label(), s.outcome, s.message.as_str(), s.duration.as_str())).collect();
        assert_eq!(
            shown,
            [
                ("Step 1 (Backup)".to_owned(), Some(RunOutcome::Succeeded), "The step succeeded.", "50s"),
                ("Step 2 (Verify)".to_owned(), Some(RunOutcome::Failed), "CHECKSUM mismatch.", "10s"),
            ]
        );
        let plain = run("2026-11-20T01:00:00Z", 60, RunOutcome::Succeeded, "The job succeeded.");
        let v = run_view(&plain, None, true, Tz::UTC, None, &DurationFlags::default());
        assert!(v.steps.is_empty());
        assert_eq!(v.message, "The job succeeded.");
    }

    #[test]
    fn a_run_a_schedule_started_stays_scheduled_once_the_job_is_disabled() {
        let by_schedule = Trigger::Schedule(Some(7));
        let unmatched = Some(&RunClass::Unscheduled);
        assert_eq!(run_kind(unmatched, &by_schedule, false), RunKind::Scheduled);
        assert_eq!(run_kind(unmatched, &by_schedule, true), RunKind::Unscheduled, "enabled: unexpected");
        assert_eq!(run_kind(unmatched, &Trigger::Other("retry".into()), false), RunKind::Unscheduled);
        assert_eq!(run_kind(Some(&RunClass::Manual), &Trigger::Manual, false), RunKind::Manual);
    }

    #[test]
    fn a_run_in_progress_finishes_at_start_plus_p50_until_it_is_past_it() {
        let flags = DurationFlags::default();
        let s = Baseline {
            stats: stats(600, 900),
            season: Season::MonthEnd,
            seasonal: false,
            season_runs: 0,
            window_runs: stats(600, 900).count,
        };
        let going = run("2026-11-20T01:00:00Z", 120, RunOutcome::InProgress, "");
        let p = run_view(&going, None, true, Tz::UTC, Some(&s), &flags).progress.expect("progress of a run going");
        assert_eq!((p.elapsed_secs, p.p50, p.p95), (120, 600, 900));
        assert_eq!(p.finish.map(|f| f.ms), Some(t("2026-11-20T01:10:00Z").timestamp_millis()));
        let past = run("2026-11-20T01:00:00Z", 700, RunOutcome::InProgress, "");
        let v = run_view(&past, None, true, Tz::UTC, Some(&s), &flags);
        assert_eq!(
            v.progress.and_then(|p| p.finish),
            None,
            "past p50: no finish, the page says it is past its usual time"
        );
        assert_eq!(v.flag, None, "700 s is not past p95 × 1.5");
        let long = run("2026-11-20T01:00:00Z", 1351, RunOutcome::InProgress, "");
        assert_eq!(run_view(&long, None, true, Tz::UTC, Some(&s), &flags).flag, Some(DurationFlag::Long { p95: 900 }));
        let done = run("2026-11-20T01:00:00Z", 120, RunOutcome::Succeeded, "");
        let v = run_view(&done, None, true, Tz::UTC, Some(&s), &flags);
        assert_eq!(v.progress, None, "only a run still going has progress");
        assert_eq!(v.flag, Some(DurationFlag::Short { p50: 600 }), "120 s < 600 s × 0.25");
        assert_eq!(run_view(&going, None, true, Tz::UTC, None, &flags).progress, None, "no durations, no estimate");
    }

    #[test]
    fn a_moment_opens_the_smallest_window_holding_it_or_the_largest() {
        let now = t("2026-11-22T12:00:00Z");
        let windows: Vec<(u32, Window)> =
            [1u32, 7, 30].iter().map(|d| (*d, Window::ending_at(now, Duration::days(i64::from(*d))))).collect();
        assert_eq!(window_for(now - Duration::hours(3), &windows), Some((1, true)));
        assert_eq!(window_for(now - Duration::hours(30), &windows), Some((7, true)));
        assert_eq!(window_for(now - Duration::days(20), &windows), Some((30, true)));
        assert_eq!(window_for(now - Duration::days(60), &windows), Some((30, false)));
        assert_eq!(window_for(now + Duration::hours(2), &windows), Some((1, false)), "after now: the nearest window");
        assert_eq!(window_for(now, &[]), None);
    }

    #[test]
    fn a_malformed_moment_is_named_not_a_failure() {
        let e = parse_at("yesterday", Tz::UTC).unwrap_err();
        assert!(e.contains("at must be") && e.contains("\"yesterday\""), "{e}");
        assert_eq!(parse_at("2026-11-20T03:00:00Z", Tz::UTC), Ok(t("2026-11-20T03:00:00Z")));
        assert_eq!(parse_at("2026-11-20T04:00:00+01:00", Tz::UTC), Ok(t("2026-11-20T03:00:00Z")));
    }

    fn line(at: &str, run: Option<RunView>) -> TableLine {
        TableLine {
            at: point(t(at), Tz::UTC),
            expected: Some(Mark::OnTime),
            cause: None,
            note: SentenceView::default(),
            run,
            run_now: None,
            collapsed: Collapsed::single(),
        }
    }

    #[test]
    fn the_line_nearest_the_moment_is_kept_even_when_routine_lines_are_cut() {
        let start = t("2026-11-01T00:00:00Z");
        let occurrences: Vec<(OccurrenceView, Option<usize>)> = (0..100)
            .map(|h| {
                let at = start + Duration::hours(h);
                (
                    OccurrenceView {
                        at: point(at, Tz::UTC),
                        mark: Mark::OnTime,
                        cause: None,
                        note: SentenceView::default(),
                    },
                    None,
                )
            })
            .collect();
        let moment = (start + Duration::hours(3) + Duration::minutes(20)).timestamp_millis();
        let (lines, hidden, at) = table_lines(&occurrences, &[], Some(moment));
        assert_eq!(lines.len(), ROUTINE_LINES + 1, "the newest routine lines and the moment's");
        assert_eq!(hidden, 100 - ROUTINE_LINES - 1);
        let i = at.expect("a line for the moment");
        assert_eq!(lines[i].at.ms, (start + Duration::hours(3)).timestamp_millis(), "03:00 is nearest to 03:20");
        let (_, hidden, none) = table_lines(&occurrences, &[], None);
        assert_eq!((hidden, none), (100 - ROUTINE_LINES, None));
        // Inside a run's time is nearer than any due time.
        let r = run_view(
            &run("2026-11-20T01:00:00Z", 3 * 3600, RunOutcome::Succeeded, ""),
            None,
            true,
            Tz::UTC,
            None,
            &DurationFlags::default(),
        );
        let lines = vec![line("2026-11-20T03:30:00Z", None), line("2026-11-20T01:00:00Z", Some(r))];
        assert_eq!(nearest_line(&lines, t("2026-11-20T03:10:00Z").timestamp_millis()), Some(1));
    }
}
