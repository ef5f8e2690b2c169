//! A hand-made instance report for HTTP tests: built directly as engine output (forecast and
//! reconciliation written out by hand), so the pages are tested independently of the engine.
//!
//! FIXTURE-SQL01 (Europe/London), "now" 2026-11-22 12:00 UTC:
//! - the Agent started nothing from now-9d to now-7d (zombie);
//! - the Agent was down from now-4d+2h and restarted at now-4d+3h;
//! - `Full backup` (daily 01:00): one failed run, one run missing for no reason (now-2d);
//! - `Log backup` (every 15 min): a few late runs, history trimmed at now-20d;
//! - `Orders sync` (hourly): one run 2.5 h long (skips), a retry, a canceled run;
//! - `Purge history` (daily 02:00): disabled, a diagnostic;
//! - `Cleanup` (daily 00:00): one manual run.
use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use std::sync::Arc;
use sundial_engine::fleet::{InstanceReport, JobReport};
use sundial_engine::reconcile::{InstanceContext, MissCause, Outcome, Reconciliation, RunClass};
use sundial_engine::{Diagnostic, Forecast, Occurrence, Run, RunOutcome, Trigger, Window};
use sundial_model::ssr::{Backend, BoxFuture, ReportError};
use sundial_model::{InstanceStatus, SourceState};

pub const INSTANCE: &str = "FIXTURE-SQL01";
pub const FULL_BACKUP_ID: &str = "6a1f0c3e-0000-4000-8000-000000000001";
pub const LOG_BACKUP_ID: &str = "6a1f0c3e-0000-4000-8000-000000000002";
pub const ORDERS_ID: &str = "6a1f0c3e-0000-4000-8000-000000000003";
pub const PURGE_ID: &str = "6a1f0c3e-0000-4000-8000-000000000004";
pub const CLEANUP_ID: &str = "6a1f0c3e-0000-4000-8000-000000000005";
/// What the failing backend's error says: internals that must never reach a page.
pub const SECRET: &str = "/var/lib/secret/msdb.sqlite: Server=db;Password=hunter2";

pub fn now() -> DateTime<Utc> {
    "2026-11-22T12:00:00Z".parse().expect("a UTC instant")
}

pub fn tz() -> Tz {
    "Europe/London".parse().expect("a zone")
}

pub fn zombie() -> Window {
    Window::new(now() - Duration::days(9), now() - Duration::days(7))
}

pub fn agent_down() -> Window {
    let s = now() - Duration::days(4) + Duration::hours(2);
    Window::new(s, s + Duration::hours(1))
}

/// What happens to one occurrence.
enum Plan {
    Run { delay_secs: i64, duration_secs: i64, outcome: RunOutcome, message: &'static str },
    Missed,
}

/// Occurrences every `every_min` minutes from local midnight plus `offset_min`, in `window`,
/// plus the first one after it.
fn occurrences(window: Window, every_min: u32, offset_min: u32) -> (Vec<DateTime<Utc>>, Option<DateTime<Utc>>) {
    let tz = tz();
    let mut out = Vec::new();
    let mut next = None;
    let mut date = window.start.with_timezone(&tz).date_naive() - Duration::days(1);
    let last = window.end.with_timezone(&tz).date_naive() + Duration::days(2);
    while date <= last && next.is_none() {
        let mut m = offset_min;
        while m < 24 * 60 {
            let t = NaiveTime::from_hms_opt(m / 60, m % 60, 0).expect("a time");
            if let Some(at) = tz.from_local_datetime(&date.and_time(t)).earliest() {
                let at = at.with_timezone(&Utc);
                if window.contains(at) {
                    out.push(at);
                } else if at >= window.end && next.is_none() {
                    next = Some(at);
                    break;
                }
            }
            m += every_min;
        }
        date += Duration::days(1);
    }
    (out, next)
}

fn occurrence(at: DateTime<Utc>) -> Occurrence {
    let local = at.with_timezone(&tz()).naive_local();
    Occurrence { at, local, nominal: local, dst: None, schedule: 1 }
}

struct JobSpec {
    id: &'static str,
    name: &'static str,
    category: &'static str,
    enabled: bool,
    description: &'static str,
    every_min: u32,
    offset_min: u32,
    horizon: Option<DateTime<Utc>>,
    diagnostics: Vec<Diagnostic>,
}

fn job(spec: JobSpec, window: Window, plan: impl Fn(DateTime<Utc>) -> Plan, extra_runs: Vec<Run>) -> JobReport {
    let now = window.end;
    let (times, next) =
        if spec.enabled { occurrences(window, spec.every_min, spec.offset_min) } else { (Vec::new(), None) };
    let mut runs: Vec<Run> = Vec::new();
    let mut outcomes = Vec::new();
    let mut classes = Vec::new();
    let (mut missed, mut late, mut skipped) = (0, 0, 0);
    for at in &times {
        let at = *at;
        if spec.horizon.is_some_and(|h| at < h) {
            outcomes.push(Outcome::Unknown);
            continue;
        }
        if zombie().contains(at) {
            outcomes.push(Outcome::Missed { cause: MissCause::AgentZombie { period: zombie() } });
            missed += 1;
            continue;
        }
        if agent_down().contains(at) {
            outcomes.push(Outcome::Missed { cause: MissCause::AgentDown { restarted_at: agent_down().end } });
            missed += 1;
            continue;
        }
        if runs.last().is_some_and(|prev| prev.end() > at) {
            outcomes.push(Outcome::SkippedRunning { run: runs.len() - 1 });
            skipped += 1;
            continue;
        }
        match plan(at) {
            Plan::Missed => {
                outcomes.push(Outcome::Missed { cause: MissCause::NoRun });
                missed += 1;
            }
            Plan::Run { delay_secs, duration_secs, outcome, message } => {
                let start = at + Duration::seconds(delay_secs);
                let still_running = start + Duration::seconds(duration_secs) > now;
                let run = Run {
                    start,
                    duration_secs: if still_running { (now - start).num_seconds() } else { duration_secs },
                    outcome: if still_running { RunOutcome::InProgress } else { outcome },
                    trigger: Trigger::Schedule(Some(1)),
                    message: message.to_string(),
                    steps: Vec::new(),
                };
                runs.push(run);
                classes.push(RunClass::Expected { occurrence: outcomes.len() });
                if delay_secs > 60 {
                    outcomes.push(Outcome::Late { run: runs.len() - 1, delay_secs });
                    late += 1;
                } else {
                    outcomes.push(Outcome::OnTime { run: runs.len() - 1 });
                }
            }
        }
    }
    for r in extra_runs.into_iter().filter(|r| window.contains(r.start)) {
        classes.push(if r.trigger == Trigger::Manual { RunClass::Manual } else { RunClass::Unscheduled });
        runs.push(r);
    }
    // Keep runs sorted by start, with the classes and outcome indices following them.
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|i| runs[*i].start);
    let mut new_index = vec![0; runs.len()];
    for (new, old) in order.iter().enumerate() {
        new_index[*old] = new;
    }
    let runs: Vec<Run> = order.iter().map(|i| runs[*i].clone()).collect();
    let classes: Vec<RunClass> = order.iter().map(|i| classes[*i]).collect();
    let outcomes: Vec<Outcome> = outcomes
        .into_iter()
        .map(|o| match o {
            Outcome::OnTime { run } => Outcome::OnTime { run: new_index[run] },
            Outcome::Late { run, delay_secs } => Outcome::Late { run: new_index[run], delay_secs },
            Outcome::SkippedRunning { run } => Outcome::SkippedRunning { run: new_index[run] },
            o => o,
        })
        .collect();
    let last_run = runs.iter().rev().find(|r| r.start < now).cloned();
    JobReport {
        id: spec.id.into(),
        name: spec.name.into(),
        category: spec.category.into(),
        owner: None,
        enabled: spec.enabled,
        command: None,
        schedules: Vec::new(),
        descriptions: vec![spec.description.into()],
        schedule_notes: vec![None],
        forecast: Forecast { occurrences: times.iter().map(|t| occurrence(*t)).collect(), diagnostics: Vec::new() },
        runs,
        reconciliation: Reconciliation { outcomes, runs: classes, diagnostics: Vec::new() },
        history_horizon: spec.horizon,
        source_horizon: None,
        last_run,
        next_expected: next.map(occurrence),
        missed,
        late,
        skipped,
        maintenance: 0,
        diagnostics: spec.diagnostics,
    }
}

/// The fixture over the `days`-long window ending at [`now`].
pub fn report(days: u32) -> InstanceReport {
    let now = now();
    let window = Window::ending_at(now, Duration::days(i64::from(days)));
    let day = |d: i64| now - Duration::days(d);
    let same_day = |a: DateTime<Utc>, b: DateTime<Utc>| (a - b).num_hours().abs() < 12;

    let full = job(
        JobSpec {
            id: FULL_BACKUP_ID,
            name: "DatabaseBackup - USER_DATABASES - FULL",
            category: "Database Maintenance",
            enabled: true,
            description: "Occurs every day at 01:00:00. Schedule will be used starting on 01/01/2024.",
            every_min: 24 * 60,
            offset_min: 60,
            horizon: None,
            diagnostics: Vec::new(),
        },
        window,
        |at| {
            if same_day(at, day(2)) {
                Plan::Missed
            } else if same_day(at, day(3)) {
                Plan::Run {
                    delay_secs: 2,
                    duration_secs: 611,
                    outcome: RunOutcome::Failed,
                    message: "Executed as user: NT SERVICE\\SQLSERVERAGENT. BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000] (Error 3013). The step failed.",
                }
            } else {
                Plan::Run {
                    delay_secs: 1,
                    duration_secs: 1500,
                    outcome: RunOutcome::Succeeded,
                    message: "The job succeeded. The Job was invoked by Schedule 1 (Nightly).",
                }
            }
        },
        Vec::new(),
    );
    let log = job(
        JobSpec {
            id: LOG_BACKUP_ID,
            name: "DatabaseBackup - USER_DATABASES - LOG",
            category: "Database Maintenance",
            enabled: true,
            description: "Occurs every day every 15 minute(s) between 00:00:00 and 23:59:59.",
            every_min: 15,
            offset_min: 0,
            horizon: Some(day(20)),
            diagnostics: Vec::new(),
        },
        window,
        |at| {
            let late = (at - day(1)).num_minutes().rem_euclid(24 * 60 * 3) < 45;
            Plan::Run {
                delay_secs: if late { 240 } else { 1 },
                duration_secs: 42,
                outcome: RunOutcome::Succeeded,
                message: "The job succeeded.",
            }
        },
        Vec::new(),
    );
    let orders = job(
        JobSpec {
            id: ORDERS_ID,
            name: "ETL - Hourly Orders Sync",
            category: "Data Collector",
            enabled: true,
            description: "Occurs every day every 1 hour(s) between 00:00:00 and 23:59:59.",
            every_min: 60,
            offset_min: 5,
            horizon: None,
            diagnostics: Vec::new(),
        },
        window,
        |at| {
            let h = (now - at).num_hours();
            let (duration_secs, outcome, message) = match h {
                30 => (9000, RunOutcome::Succeeded, "The job succeeded after a long run."),
                50 => (75, RunOutcome::Retry, "The step failed and will be retried: deadlock victim."),
                51 => (20, RunOutcome::Canceled, "The job was stopped prior to completion by User DOMAIN\\dba."),
                _ => (200, RunOutcome::Succeeded, "The job succeeded."),
            };
            Plan::Run { delay_secs: 0, duration_secs, outcome, message }
        },
        Vec::new(),
    );
    let purge = job(
        JobSpec {
            id: PURGE_ID,
            name: "syspolicy_purge_history",
            category: "[Uncategorized (Local)]",
            enabled: false,
            description: "Occurs every day at 02:00:00.",
            every_min: 24 * 60,
            offset_min: 120,
            horizon: None,
            diagnostics: vec![Diagnostic::warning("freq_subday_interval", 0, "ignored: the schedule runs once a day")],
        },
        window,
        |_| Plan::Missed,
        Vec::new(),
    );
    let cleanup = job(
        JobSpec {
            id: CLEANUP_ID,
            name: "CommandLog Cleanup",
            category: "Database Maintenance",
            enabled: true,
            description: "Occurs every day at 00:00:00.",
            every_min: 24 * 60,
            offset_min: 0,
            horizon: None,
            diagnostics: Vec::new(),
        },
        window,
        |_| Plan::Run {
            delay_secs: 3,
            duration_secs: 14,
            outcome: RunOutcome::Succeeded,
            message: "The job succeeded.",
        },
        vec![Run {
            start: day(1) - Duration::hours(3),
            duration_secs: 31,
            outcome: RunOutcome::Succeeded,
            trigger: Trigger::Manual,
            message: "The job succeeded. The Job was invoked by User DOMAIN\\dba.".into(),
            steps: Vec::new(),
        }],
    );
    let mut jobs = vec![full, log, orders, purge, cleanup];
    let mut all_run_starts: Vec<DateTime<Utc>> = jobs.iter().flat_map(|j| j.runs.iter().map(|r| r.start)).collect();
    all_run_starts.sort();
    let zombie_periods: Vec<Window> = vec![zombie()].into_iter().filter(|z| z.end > window.start).collect();
    let agent_starts = vec![day(40), agent_down().end];
    // The gaps as the analysis finds them.
    let gaps = sundial_engine::fleet::find_gaps(&mut jobs, &zombie_periods, &agent_starts, window, now, false);
    InstanceReport {
        name: INSTANCE.into(),
        tz: tz().into(),
        window,
        now,
        jobs,
        context: InstanceContext { zombie_periods, agent_starts, all_run_starts, catches_up: false },
        gaps,
        maintenance: Vec::new(),
    }
}

/// Serves [`report`]; or fails like a source that cannot be read.
pub struct FixtureBackend {
    pub fail: bool,
    /// The source kind it reports (`mssql`, `pg_cron`, …).
    pub kind: &'static str,
}

impl Backend for FixtureBackend {
    fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>> {
        let known = instance.is_none_or(|i| i == INSTANCE);
        Box::pin(async move {
            if !known {
                Err(ReportError::UnknownInstance)
            } else if self.fail {
                // What a source might say underneath goes to the log; users get the safe words.
                eprintln!("opening {SECRET} failed: SELECT * FROM msdb.dbo.sysjobhistory");
                Err(ReportError::Unavailable {
                    instance: INSTANCE.into(),
                    reason: "cannot connect to SQL Server: the server is unreachable".into(),
                    last_good: None,
                })
            } else {
                Ok(Arc::new(report(days)))
            }
        })
    }

    fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>> {
        Box::pin(async move {
            // As the fleet judges an instance: its incidents from the 30 days judged.
            let state = if self.fail { SourceState::Unreachable } else { SourceState::Ok };
            let incidents = if self.fail { Vec::new() } else { sundial_model::ssr::incidents(&report(30)) };
            vec![InstanceStatus {
                condition: sundial_model::InstanceCondition::of(state, &incidents, false),
                incidents,
                name: INSTANCE.into(),
                kind: self.kind.into(),
                scheduler: server::config::SourceKind::parse(self.kind).map(|k| k.scheduler()).unwrap_or_default(),
                tz: Some("America/New_York".into()),
                state,
                last_good: None,
                last_attempt: None,
                poll_secs: None,
                age_secs: None,
                outages: Vec::new(),
                error: self.fail.then(|| "cannot connect to SQL Server: the server is unreachable".into()),
                notes: Vec::new(),
                jobs: Some(5),
                tags: Vec::new(),
                reads: 3,
            }]
        })
    }
}
