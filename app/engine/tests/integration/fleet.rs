//! `fleet::analyze` on tiny instances.
use chrono::{DateTime, TimeDelta, Utc};
use sundial_engine::fleet::{InstanceInput, JobInput, JobSchedule, analyze, analyze_reference};
use sundial_engine::maintenance::Maintenance;
use sundial_engine::reconcile::{MissCause, Outcome, RunClass, Settings};
use sundial_engine::triage::{self, ProblemKind, TriageSettings};
use sundial_engine::{AgentSchedule, Run, RunOutcome, Schedule, Severity, Trigger, Window};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn run(start: DateTime<Utc>, trigger: Trigger) -> Run {
    Run { start, duration_secs: 2, outcome: RunOutcome::Succeeded, trigger, message: String::new(), steps: Vec::new() }
}

fn job(id: &str, name: &str, enabled: bool, schedules: Vec<JobSchedule>, runs: Vec<Run>) -> JobInput {
    JobInput {
        id: id.into(),
        name: name.into(),
        category: "[Uncategorized (Local)]".into(),
        owner: None,
        enabled,
        command: None,
        schedules,
        runs,
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics: Vec::new(),
        earlier: Vec::new(),
        modified: None,
    }
}

/// Hourly at :00, every day (schedule 1).
fn hourly_at_00() -> JobSchedule {
    JobSchedule {
        id: 1,
        name: "hourly".into(),
        enabled: true,
        schedule: Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 8,
            freq_subday_interval: 1,
            ..AgentSchedule::default()
        }),
    }
}

/// Daily at `hhmmss`.
fn daily(id: i64, hhmmss: i64) -> JobSchedule {
    JobSchedule {
        id,
        name: format!("daily {hhmmss}"),
        enabled: true,
        schedule: Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 1,
            active_start_time: hhmmss,
            ..AgentSchedule::default()
        }),
    }
}

/// Every minute, all day.
fn every_minute(id: i64) -> JobSchedule {
    JobSchedule {
        id,
        name: "every minute".into(),
        enabled: true,
        schedule: Schedule::Agent(AgentSchedule {
            freq_type: 4,
            freq_interval: 1,
            freq_subday_type: 4,
            freq_subday_interval: 1,
            ..AgentSchedule::default()
        }),
    }
}

/// A daily job at 08:30 and an every-minute job on a UTC instance; the Agent starts nothing
/// from 08:00 until 09:00:05, then recovers.
#[test]
fn a_silent_hour_is_a_zombie_period_and_its_misses_say_so() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::days(1));
    let silent = Window::new(t("2024-03-01T08:00:00Z"), t("2024-03-01T09:00:00Z"));

    let mut minute_runs = Vec::new();
    let mut at = window.start;
    while at < now {
        if !silent.contains(at) {
            minute_runs.push(run(at + TimeDelta::seconds(5), Trigger::Schedule(Some(2))));
        }
        at += TimeDelta::minutes(1);
    }
    let daily_runs = vec![run(t("2024-02-29T08:30:00Z"), Trigger::Schedule(Some(1)))]; // before the window
    let input = InstanceInput {
        name: "TINY".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![
            job("B", "Heartbeat", true, vec![every_minute(2)], minute_runs.clone()),
            job("A", "Backup", true, vec![daily(1, 83000)], daily_runs),
        ],
        agent_starts: vec![t("2024-02-01T00:00:00Z")],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());

    let expected_period = Window::new(t("2024-03-01T08:00:00Z"), t("2024-03-01T09:00:05Z"));
    assert_eq!(report.context.zombie_periods, vec![expected_period]);
    assert_eq!(report.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["Backup", "Heartbeat"]);

    let backup = &report.jobs[0];
    assert_eq!(backup.forecast.occurrences.len(), 1, "{:?}", backup.forecast);
    assert_eq!(
        backup.reconciliation.outcomes,
        vec![Outcome::Missed { cause: MissCause::AgentZombie { period: expected_period } }]
    );
    assert_eq!(backup.missed, 1);
    assert_eq!(backup.descriptions.len(), 1);
    assert_eq!(backup.next_expected.as_ref().map(|o| o.at), Some(t("2024-03-02T08:30:00Z")));
    assert_eq!(backup.reconciliation.runs, vec![RunClass::Unscheduled]); // its slot is outside the window

    let heartbeat = &report.jobs[1];
    assert_eq!(heartbeat.forecast.occurrences.len(), 24 * 60);
    assert_eq!(heartbeat.missed, 60);
    assert_eq!(heartbeat.late, 0);
    assert_eq!(heartbeat.skipped, 0);
    for (occ, outcome) in heartbeat.forecast.occurrences.iter().zip(&heartbeat.reconciliation.outcomes) {
        if silent.contains(occ.at) {
            assert_eq!(
                outcome,
                &Outcome::Missed { cause: MissCause::AgentZombie { period: expected_period } },
                "{}",
                occ.at
            );
        } else {
            assert!(matches!(outcome, Outcome::OnTime { .. }), "{}: {outcome:?}", occ.at);
        }
    }
    assert!(heartbeat.reconciliation.runs.iter().all(|c| matches!(c, RunClass::Expected { .. })));
    assert_eq!(heartbeat.last_run.as_ref().map(|r| r.start), Some(t("2024-03-01T11:59:05Z")));
    assert_eq!(heartbeat.next_expected.as_ref().map(|o| o.at), Some(t("2024-03-01T12:01:00Z")));
    assert_eq!(heartbeat.runs, minute_runs);
}

/// The same instance with the Agent busy: no zombie period, nothing missed.
#[test]
fn a_healthy_instance_has_no_zombie_period() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(6));
    let mut runs = Vec::new();
    let mut at = window.start;
    while at < now {
        runs.push(run(at, Trigger::Schedule(None)));
        at += TimeDelta::minutes(1);
    }
    let input = InstanceInput {
        name: "TINY".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("B", "Heartbeat", true, vec![every_minute(2)], runs)],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    assert!(report.context.zombie_periods.is_empty());
    assert_eq!(report.jobs[0].forecast.occurrences.len(), 6 * 60);
    assert_eq!(report.jobs[0].missed, 0);
}

/// Needs no forecasting: disabled jobs, schedule-less jobs, order, last run, context.
#[test]
fn disabled_and_unscheduled_jobs_still_show_their_runs() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::days(1));
    let manual = run(t("2024-03-01T10:00:00Z"), Trigger::Manual);
    let scheduled = run(t("2024-03-01T09:00:00Z"), Trigger::Schedule(Some(5)));
    let future = run(t("2024-03-01T12:30:00Z"), Trigger::Schedule(None));
    let mut disabled_schedule = daily(6, 90000);
    disabled_schedule.enabled = false;
    let input = InstanceInput {
        name: "TINY".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![
            job("Z", "zeta (disabled)", false, vec![daily(5, 90000)], vec![scheduled.clone(), manual.clone()]),
            job("Y", "alpha (no schedule)", true, vec![], vec![manual.clone(), future.clone()]),
            job("X", "mid (schedule disabled)", true, vec![disabled_schedule], vec![]),
        ],
        agent_starts: vec![t("2024-03-01T11:00:00Z"), t("2024-02-01T00:00:00Z")],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    assert_eq!(report.name, "TINY");
    assert_eq!((report.window, report.now), (window, now));
    assert_eq!(
        report.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["alpha (no schedule)", "mid (schedule disabled)", "zeta (disabled)"]
    );
    assert_eq!(report.context.agent_starts, vec![t("2024-02-01T00:00:00Z"), t("2024-03-01T11:00:00Z")]);
    assert_eq!(report.context.all_run_starts.len(), 4);
    assert!(report.context.all_run_starts.is_sorted());

    let alpha = &report.jobs[0];
    assert!(alpha.forecast.occurrences.is_empty());
    assert_eq!(alpha.reconciliation.runs, vec![RunClass::Manual, RunClass::Unscheduled]);
    assert_eq!(alpha.last_run.as_ref(), Some(&manual)); // the 12:30 run is after now
    assert_eq!(alpha.next_expected, None);

    let mid = &report.jobs[1];
    assert!(mid.forecast.occurrences.is_empty());
    assert_eq!(mid.descriptions.len(), 1); // described, though disabled
    assert_eq!(mid.schedule_notes, vec![Some("adds no run: the schedule is disabled".to_string())]);
    assert_eq!(mid.next_expected, None);

    let zeta = &report.jobs[2];
    assert!(!zeta.enabled);
    assert!(zeta.forecast.occurrences.is_empty());
    assert_eq!(zeta.runs, vec![scheduled, manual.clone()]);
    assert_eq!(zeta.reconciliation.runs, vec![RunClass::Unscheduled, RunClass::Manual]);
    assert_eq!(zeta.last_run.as_ref(), Some(&manual));
    assert_eq!(zeta.next_expected, None);
    assert_eq!((zeta.missed, zeta.late, zeta.skipped), (0, 0, 0));
    assert_eq!(zeta.schedule_notes, vec![Some("adds no run: the job is disabled".to_string())]);
    assert!(zeta.diagnostics.iter().any(|d| d.severity == Severity::Info && d.message.contains("disabled")));
}

/// Twenty silent minutes that an Agent restart ends read as "the Agent was down", not as a
/// zombie; a longer silence ended by a restart stays a zombie (seed 000: a reboot ended it).
#[test]
fn a_short_silence_ended_by_a_restart_is_the_agent_down_not_a_zombie() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::days(1));
    let instance = |silent: Window, restart: DateTime<Utc>| {
        let mut runs = Vec::new();
        let mut at = window.start;
        while at < now {
            if !silent.contains(at) {
                runs.push(run(at + TimeDelta::seconds(5), Trigger::Schedule(Some(2))));
            }
            at += TimeDelta::minutes(1);
        }
        InstanceInput {
            name: "TINY".into(),
            tz: chrono_tz::UTC.into(),
            jobs: vec![job("B", "Heartbeat", true, vec![every_minute(2)], runs)],
            agent_starts: vec![t("2024-02-01T00:00:00Z"), restart],
            maintenance: Vec::new(),
            scheduler_stopped: false,
        }
    };

    let down = Window::new(t("2024-03-01T08:00:00Z"), t("2024-03-01T08:20:00Z"));
    let report = analyze(&instance(down, t("2024-03-01T08:19:30Z")), window, now, &Settings::default());
    assert!(report.context.zombie_periods.is_empty(), "{:?}", report.context.zombie_periods);
    let heartbeat = &report.jobs[0];
    assert_eq!(heartbeat.missed, 20);
    for (occ, outcome) in heartbeat.forecast.occurrences.iter().zip(&heartbeat.reconciliation.outcomes) {
        if down.contains(occ.at) {
            assert_eq!(
                outcome,
                &Outcome::Missed { cause: MissCause::AgentDown { restarted_at: t("2024-03-01T08:19:30Z") } },
                "{}",
                occ.at
            );
        }
    }

    let hung = Window::new(t("2024-03-01T06:00:00Z"), t("2024-03-01T09:00:00Z"));
    let report = analyze(&instance(hung, t("2024-03-01T08:59:30Z")), window, now, &Settings::default());
    assert_eq!(report.context.zombie_periods.len(), 1, "{:?}", report.context.zombie_periods);
    assert!(matches!(
        report.jobs[0].reconciliation.outcomes.iter().find(|o| matches!(o, Outcome::Missed { .. })),
        Some(Outcome::Missed { cause: MissCause::AgentZombie { .. } })
    ));
}

/// A source that samples (MySQL events' LAST_EXECUTED at each poll) sees one run per poll of
/// an every-minute job: the minutes between two samples are unknown, not missed, while a
/// stretch after the last sample, where a poll saw LAST_EXECUTED stand still, stays missed.
#[test]
fn misses_inside_unobserved_spans_are_unknown_not_missed() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(1));
    // Samples every 10 minutes from 11:00 to 11:40; then the job stops running.
    let samples: Vec<DateTime<Utc>> = (0..5).map(|k| t("2024-03-01T11:00:00Z") + TimeDelta::minutes(10 * k)).collect();
    let runs = samples.iter().map(|s| run(*s, Trigger::Schedule(Some(1)))).collect();
    let mut j = job("1", "sampled", true, vec![every_minute(1)], runs);
    j.unobserved = samples.windows(2).map(|w| Window::new(w[0], w[1])).collect();
    let input = InstanceInput {
        name: "SAMPLED".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![j],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    let job = &report.jobs[0];
    let unknown = job.reconciliation.outcomes.iter().filter(|o| **o == Outcome::Unknown).count();
    // 4 spans × 9 unsampled minutes each.
    assert_eq!(unknown, 36, "{:?}", job.reconciliation.outcomes);
    // 11:41 … 11:58 are missed (11:59 is within the grace of now).
    assert_eq!(job.missed, 18);
    assert_eq!(report.context.zombie_periods.len(), 1, "the silent 19 minutes are a zombie period");
}

/// The scheduler log of a small instance: runs as start and end lines, Sundial's findings
/// (missed with their cause, the zombie span, the Agent start), a source's own events taking
/// the place of the derived run lines for their job; newest first, inside the window.
#[test]
fn the_log_has_runs_findings_and_a_sources_own_events_newest_first() {
    use sundial_engine::log::{LogEvent, LogKind, derive};
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(3));
    // Hourly at :00 from 09:00; 10:00 ran and failed; 11:00 never ran; the Agent restarted at 11:30.
    let hourly = hourly_at_00();
    let ok = run(t("2024-03-01T09:00:02Z"), Trigger::Schedule(Some(1)));
    let failed = Run {
        outcome: RunOutcome::Failed,
        message: "step 1 failed".into(),
        ..run(t("2024-03-01T10:00:02Z"), Trigger::Schedule(Some(1)))
    };
    let other = job("P", "Primentra entity", true, Vec::new(), Vec::new());
    let input = InstanceInput {
        name: "LOGGED".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("H", "Hourly", true, vec![hourly], vec![ok, failed]), other],
        agent_starts: vec![t("2024-03-01T11:30:00Z")],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    let source = vec![
        LogEvent {
            at: t("2024-03-01T10:30:00Z"),
            job_id: "P".into(),
            kind: LogKind::Skipped,
            text: "skipped: already running".into(),
            members: Vec::new(),
        },
        LogEvent {
            at: t("2024-03-01T08:00:00Z"),
            job_id: "P".into(),
            kind: LogKind::Started,
            text: "before the window".into(),
            members: Vec::new(),
        },
    ];
    let log = derive(&report, &source);
    let lines: Vec<(String, &str, LogKind)> =
        log.iter().map(|e| (e.at.format("%H:%M:%S").to_string(), e.job_id.as_str(), e.kind)).collect();
    assert_eq!(
        lines,
        [
            ("11:30:00".to_string(), "", LogKind::AgentStart),
            ("11:00:00".to_string(), "H", LogKind::Missed),
            ("10:30:00".to_string(), "P", LogKind::Skipped),
            // The stop, at the scheduler's last sign of life (the failed run's end).
            ("10:00:04".to_string(), "", LogKind::SchedulerStop),
            ("10:00:04".to_string(), "H", LogKind::Failed),
            ("10:00:02".to_string(), "H", LogKind::Started),
            ("09:00:04".to_string(), "H", LogKind::Succeeded),
            ("09:00:02".to_string(), "H", LogKind::Started),
        ]
    );
    assert!(log[1].text.contains("down until 2024-03-01 11:30:00"), "the restart explains the miss: {}", log[1].text);
    assert_eq!(
        log[3].text,
        "the scheduler stopped: down by 2024-03-01 11:00:00 UTC at the latest; last seen 2024-03-01 10:00:04 UTC"
    );
    assert_eq!(log[4].text, "step 1 failed");
    assert_eq!(LogKind::from_primentra("Zombie"), Some(LogKind::Zombie));
    assert_eq!(LogKind::from_primentra("deleted"), None);
}

/// A schedule listed on a job but adding no occurrence to the window says why.
#[test]
fn schedules_that_add_no_run_say_why() {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::days(1));
    let mut expired = daily(1, 10000);
    if let Schedule::Agent(a) = &mut expired.schedule {
        a.active_end_date = 20240115;
    }
    let mut later = daily(2, 10000);
    if let Schedule::Agent(a) = &mut later.schedule {
        a.active_start_date = 20240401;
    }
    let mut monthly = daily(3, 10000);
    if let Schedule::Agent(a) = &mut monthly.schedule {
        a.freq_type = 16; // monthly, on day 20
        a.freq_interval = 20;
        a.freq_recurrence_factor = 1;
    }
    let mut on_start = daily(4, 10000);
    if let Schedule::Agent(a) = &mut on_start.schedule {
        a.freq_type = 64;
    }
    let input = InstanceInput {
        name: "NOTES".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("A", "a", true, vec![expired, later, monthly, on_start, daily(5, 10000)], vec![])],
        agent_starts: vec![],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    assert_eq!(
        report.jobs[0].schedule_notes,
        vec![
            Some("adds no run: it expired on 2024-01-15".to_string()),
            Some("adds no run yet: it starts on 2024-04-01".to_string()),
            Some("adds no run in this window: next due 2024-03-20 01:00".to_string()),
            Some("adds no run on the clock: it starts when SQL Agent starts".to_string()),
            None,
        ]
    );
}

/// The schedulers' own words reach the log: a crashed run is its own kind of line, an
/// abandoned one is the scheduler's zombie release, and a run whose end is unknown is one
/// start line that says so (no invented end). Each counts where it should: crashed and
/// abandoned are failures, unknown is not.
#[test]
fn crashed_abandoned_and_unknown_runs_keep_their_own_words_in_the_log() {
    use sundial_engine::log::{LogKind, derive};
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(6));
    let with = |at: &str, outcome: RunOutcome| Run { outcome, ..run(t(at), Trigger::Schedule(None)) };
    let runs = vec![
        with("2024-03-01T07:00:00Z", RunOutcome::Crashed),
        with("2024-03-01T08:00:00Z", RunOutcome::Abandoned),
        with("2024-03-01T09:00:00Z", RunOutcome::Unknown),
    ];
    let input = InstanceInput {
        name: "WORDS".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("W", "Worker", true, Vec::new(), runs)],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    let log = derive(&report, &[]);
    let lines: Vec<(String, LogKind)> = log.iter().map(|e| (e.at.format("%H:%M:%S").to_string(), e.kind)).collect();
    assert_eq!(
        lines,
        [
            ("09:00:00".to_string(), LogKind::Started),
            ("08:00:02".to_string(), LogKind::Zombie),
            ("08:00:00".to_string(), LogKind::Started),
            ("07:00:02".to_string(), LogKind::Crashed),
            ("07:00:00".to_string(), LogKind::Started),
        ]
    );
    assert!(log[0].text.contains("not known"), "{}", log[0].text);
    assert!(log[1].text.contains("abandoned"), "{}", log[1].text);
    assert!(log[3].text.contains("crashed"), "{}", log[3].text);
    assert!(LogKind::Crashed.is_problem());
    assert!(RunOutcome::Crashed.is_failure() && RunOutcome::Abandoned.is_failure());
    assert!(!RunOutcome::Unknown.is_failure() && !RunOutcome::InProgress.is_failure());
}

/// "What was wrong at 10:30?": the instance as it was then. The 11:00 run had not happened,
/// the 10:00 run that ended at 10:45 was still going, the 11:00 occurrence was upcoming and the
/// 09:00 one (no run) was already missed.
#[test]
fn as_of_shows_the_instance_as_it_was_at_that_moment() {
    use sundial_engine::fleet::as_of;
    let hourly = hourly_at_00();
    let long = Run { duration_secs: 45 * 60, ..run(t("2024-03-01T10:00:01Z"), Trigger::Schedule(Some(1))) };
    let later = run(t("2024-03-01T11:00:01Z"), Trigger::Schedule(Some(1)));
    let input = InstanceInput {
        name: "ASOF".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("H", "Hourly", true, vec![hourly], vec![long, later])],
        agent_starts: vec![t("2024-03-01T08:00:00Z"), t("2024-03-01T11:30:00Z")],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let at = t("2024-03-01T10:30:00Z");
    let then = as_of(&input, at);
    assert_eq!(then.agent_starts, [t("2024-03-01T08:00:00Z")]);
    let runs = &then.jobs[0].runs;
    assert_eq!(runs.len(), 1, "the 11:00 run had not started");
    assert_eq!((runs[0].outcome, runs[0].duration_secs), (RunOutcome::InProgress, 29 * 60 + 59));
    let window = Window::new(t("2024-03-01T09:00:00Z"), t("2024-03-01T12:00:00Z"));
    let report = analyze(&then, window, at, &Settings::default());
    let outcomes = &report.jobs[0].reconciliation.outcomes;
    assert!(matches!(outcomes[0], Outcome::Missed { .. }), "{outcomes:?}");
    assert!(matches!(outcomes[1], Outcome::OnTime { .. }), "{outcomes:?}");
    assert_eq!(outcomes[2..], [Outcome::Upcoming], "11:00 was still ahead");
}

/// A run that started at the very moment asked about had started then: as of its own start it
/// is in progress, and its occurrence is not upcoming.
#[test]
fn as_of_keeps_a_run_that_started_at_that_moment() {
    use sundial_engine::fleet::as_of;
    let at = t("2024-03-01T12:30:00Z");
    let started = Run { duration_secs: 600, ..run(at, Trigger::Schedule(Some(1))) };
    let input = InstanceInput {
        name: "EDGE".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("H", "Hourly", true, vec![hourly_at_00()], vec![started])],
        agent_starts: vec![at],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let then = as_of(&input, at);
    assert_eq!(then.agent_starts, [at]);
    assert_eq!((then.jobs[0].runs[0].outcome, then.jobs[0].runs[0].duration_secs), (RunOutcome::InProgress, 0));
}

/// pgAgent's agent alive but starting nothing for an hour (a stalled agent), then running the
/// job once, late, when it wakes: the late run is the first stalled time's (pgAgent's
/// `jobnextrun` then), and every time after it up to that run is missed in a zombie period,
/// as for SQL Server Agent.
#[test]
fn a_stalled_pgagent_is_a_zombie_and_its_wake_up_run_is_the_first_stalled_times() {
    use sundial_engine::pgagent::PgAgentSchedule;
    let every_5 = format!("{{{}}}", (0..60).map(|m| if m % 5 == 0 { "t" } else { "f" }).collect::<Vec<_>>().join(","));
    let schedule = PgAgentSchedule {
        jscstart: Some("2024-02-01 00:00:00+00".into()),
        jscminutes: Some(every_5),
        ..Default::default()
    };
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(12));
    let (stalled, woke) = (t("2024-03-01T08:00:00Z"), t("2024-03-01T09:02:10Z"));
    let mut runs = Vec::new();
    let mut at = window.start;
    while at < now {
        if at < stalled || at >= t("2024-03-01T09:05:00Z") {
            runs.push(run(at + TimeDelta::seconds(3), Trigger::Schedule(Some(1))));
        }
        at += TimeDelta::minutes(5);
    }
    runs.push(run(woke, Trigger::Schedule(Some(1))));
    runs.sort_by_key(|r| r.start);
    let input = InstanceInput {
        name: "pg-batch".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job(
            "1",
            "queue drain",
            true,
            vec![JobSchedule { id: 1, name: "every 5".into(), enabled: true, schedule: Schedule::PgAgent(schedule) }],
            runs,
        )],
        agent_starts: vec![t("2024-02-01T00:00:00Z")],
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    let j = &report.jobs[0];
    assert!(j.forecast.diagnostics.is_empty(), "{:?}", j.forecast.diagnostics);
    let [period] = report.context.zombie_periods[..] else { panic!("{:?}", report.context.zombie_periods) };
    assert_eq!(period.end, woke, "the stall ends with the run it made on waking");
    let woke_run = j.runs.iter().position(|r| r.start == woke).expect("the wake-up run");
    for (occ, outcome) in j.forecast.occurrences.iter().zip(&j.reconciliation.outcomes) {
        match occ.at {
            at if at == stalled => assert_eq!(
                outcome,
                &Outcome::Late { run: woke_run, delay_secs: 3730 },
                "08:00 is the wake-up run's, late"
            ),
            at if at > stalled && at < woke => assert_eq!(
                outcome,
                &Outcome::Missed { cause: MissCause::AgentZombie { period } },
                "{at}: never run, the agent alive and stalled"
            ),
            at => assert!(matches!(outcome, Outcome::OnTime { .. }), "{at}: {outcome:?}"),
        }
    }
    assert_eq!(j.missed, 12, "08:05 to 09:00");
}

/// The silent hour of [`a_silent_hour_is_a_zombie_period_and_its_misses_say_so`] with these
/// windows planned over it; with the window and the moment it is analysed at.
fn planned_input(maintenance: Vec<Maintenance>) -> (InstanceInput, Window, DateTime<Utc>) {
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::days(1));
    let silent = Window::new(t("2024-03-01T08:00:00Z"), t("2024-03-01T09:00:00Z"));
    let mut minute_runs = Vec::new();
    let mut at = window.start;
    while at < now {
        if !silent.contains(at) {
            minute_runs.push(run(at + TimeDelta::seconds(5), Trigger::Schedule(Some(2))));
        }
        at += TimeDelta::minutes(1);
    }
    let input = InstanceInput {
        name: "TINY".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![
            job("B", "Heartbeat", true, vec![every_minute(2)], minute_runs),
            job("A", "Backup", true, vec![daily(1, 83000)], Vec::new()),
        ],
        agent_starts: vec![t("2024-02-01T00:00:00Z")],
        maintenance,
        scheduler_stopped: false,
    };
    (input, window, now)
}

fn planned_silence(maintenance: Vec<Maintenance>) -> sundial_engine::fleet::InstanceReport {
    let (input, window, now) = planned_input(maintenance);
    analyze(&input, window, now, &Settings::default())
}

fn patching(jobs: &[&str]) -> Maintenance {
    Maintenance {
        window: Window::new(t("2024-03-01T07:55:00Z"), t("2024-03-01T09:05:00Z")),
        jobs: jobs.iter().map(|j| j.to_string()).collect(),
        label: "Friday patching: OS updates".into(),
    }
}

#[test]
fn a_planned_silence_is_maintenance_not_missed_and_makes_no_zombie() {
    let report = planned_silence(vec![patching(&[])]);
    assert!(report.context.zombie_periods.is_empty(), "{:?}", report.context.zombie_periods);
    assert_eq!(report.maintenance, vec![patching(&[])], "the report keeps the window for the timelines");
    let (backup, heartbeat) = (&report.jobs[0], &report.jobs[1]);
    assert_eq!(backup.reconciliation.outcomes, vec![Outcome::Maintenance { window: patching(&[]).window }]);
    assert_eq!((backup.missed, backup.maintenance), (0, 1));
    assert_eq!((heartbeat.missed, heartbeat.maintenance), (0, 60));
    // Nothing is wrong now: the triage of the report finds no problem.
    let problems = triage::report_problems("TINY", &report, &[], &TriageSettings::default());
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_window_over_some_jobs_leaves_the_others_missed() {
    // Only the heartbeat (by name) is planned: the backup at 08:30 is missed, and with one
    // job's due run alone in the silence there is no zombie (fewer than 10 due).
    let report = planned_silence(vec![patching(&["Heartbeat"])]);
    let (backup, heartbeat) = (&report.jobs[0], &report.jobs[1]);
    assert_eq!(backup.missed, 1, "{:?}", backup.reconciliation.outcomes);
    assert_eq!(heartbeat.maintenance, 60);
    let problems = triage::report_problems("TINY", &report, &[], &TriageSettings::default());
    assert_eq!(
        problems.iter().map(|p| (p.kind, p.job.clone().map(|j| j.1))).collect::<Vec<_>>(),
        [(ProblemKind::Missed, Some("Backup".to_owned()))]
    );
    // By id too.
    let by_id = planned_silence(vec![patching(&["A", "B"])]);
    assert_eq!(by_id.jobs.iter().map(|j| (j.missed, j.maintenance)).collect::<Vec<_>>(), [(0, 1), (0, 60)]);
}

#[test]
fn the_fast_analysis_and_its_reference_agree_with_a_window() {
    // Without a window the silence is a zombie; with one, none: both ways the same.
    for m in [vec![patching(&[])], vec![patching(&["Heartbeat"])], Vec::new()] {
        let (input, window, now) = planned_input(m);
        let fast = analyze(&input, window, now, &Settings::default());
        assert_eq!(fast, analyze_reference(&input, window, now, &Settings::default()));
    }
}

#[test]
fn a_missed_streak_reads_across_a_window() {
    // Hourly: nothing ran since 05:00; a window from 08:00 to 10:00 (planned); 06, 07, 10 and
    // 11 missed, 08 and 09 maintenance. Triage counts 4 in a row from 06:00.
    let now = t("2024-03-01T11:30:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(12));
    let mut runs = Vec::new();
    let mut at = t("2024-03-01T00:00:00Z");
    while at <= t("2024-03-01T05:00:00Z") {
        runs.push(run(at + TimeDelta::seconds(3), Trigger::Schedule(Some(1))));
        at += TimeDelta::hours(1);
    }
    // Another job keeps the scheduler busy every minute (no zombie).
    let mut minute_runs = Vec::new();
    let mut at = window.start;
    while at < now {
        minute_runs.push(run(at + TimeDelta::seconds(5), Trigger::Schedule(Some(2))));
        at += TimeDelta::minutes(1);
    }
    let input = InstanceInput {
        name: "TINY".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![
            job("H", "Hourly", true, vec![hourly_at_00()], runs),
            job("M", "Minutely", true, vec![every_minute(2)], minute_runs),
        ],
        agent_starts: vec![t("2024-02-01T00:00:00Z")],
        maintenance: vec![Maintenance {
            window: Window::new(t("2024-03-01T08:00:00Z"), t("2024-03-01T10:00:00Z")),
            jobs: vec!["Hourly".into()],
            label: "index rebuild".into(),
        }],
        scheduler_stopped: false,
    };
    let report = analyze(&input, window, now, &Settings::default());
    let hourly = &report.jobs[0];
    assert_eq!((hourly.missed, hourly.maintenance), (4, 2), "{:?}", hourly.reconciliation.outcomes);
    let problems = triage::report_problems("TINY", &report, &[], &TriageSettings::default());
    let missed = problems.iter().find(|p| p.kind == ProblemKind::Missed).expect("a missed problem");
    assert_eq!(missed.count, 4, "{}", missed.evidence);
    assert_eq!(missed.since, Some(t("2024-03-01T06:00:00Z")));
}

/// A scheduler that says it is off (MySQL's `event_scheduler`, pgAgent's agents gone): the
/// misses since its last sign of life are the stop's, dated from the first one at the latest;
/// the gap is still going, triage says when it was last seen, the log has its line, and it is
/// not also a zombie.
#[test]
fn a_scheduler_that_says_it_is_off_is_stopped_since_its_last_sign_of_life() {
    use sundial_engine::gaps::GapKind;
    use sundial_engine::log::{LogKind, derive};
    let now = t("2024-03-01T12:00:00Z");
    let window = Window::ending_at(now, TimeDelta::hours(4));
    // Hourly at :00; the last run started 08:00:02 and took 2 s; 09:00 to 11:00 did not start.
    let runs = vec![
        run(t("2024-03-01T07:00:02Z"), Trigger::Schedule(Some(1))),
        run(t("2024-03-01T08:00:02Z"), Trigger::Schedule(Some(1))),
    ];
    let input = InstanceInput {
        name: "EVENTS".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![job("H", "Hourly", true, vec![hourly_at_00()], runs)],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: true,
    };
    let report = analyze(&input, window, now, &Settings::default());
    assert_eq!(
        report,
        analyze_reference(&input, window, now, &Settings::default()),
        "the fast path and its twin agree"
    );
    let stop = t("2024-03-01T09:00:00Z");
    let causes: Vec<&Outcome> =
        report.jobs[0].reconciliation.outcomes.iter().filter(|o| matches!(o, Outcome::Missed { .. })).collect();
    assert_eq!(causes.len(), 3, "{causes:?}");
    assert!(
        causes.iter().all(|o| **o == Outcome::Missed { cause: MissCause::SchedulerStopped { since: stop } }),
        "{causes:?}"
    );
    assert!(report.context.zombie_periods.is_empty(), "stopped, not a zombie: {:?}", report.context.zombie_periods);
    assert_eq!(report.gaps.len(), 1, "{:?}", report.gaps);
    let gap = &report.gaps[0];
    assert_eq!(
        (gap.kind, gap.by, gap.last_seen, gap.back),
        (GapKind::Stopped, stop, Some(t("2024-03-01T08:00:04Z")), None)
    );
    let log = derive(&report, &[]);
    let line = log.iter().find(|l| l.kind == LogKind::SchedulerStop).expect("a line when it stopped");
    assert_eq!(line.at, t("2024-03-01T08:00:04Z"), "at its last sign of life");
    assert_eq!(
        line.text,
        "the scheduler stopped: down by 2024-03-01 09:00:00 UTC at the latest; last seen 2024-03-01 08:00:04 UTC; still stopped"
    );
    // Without the source saying so, the same silence is a zombie's (or unexplained).
    let quiet = analyze(&InstanceInput { scheduler_stopped: false, ..input }, window, now, &Settings::default());
    assert!(quiet.gaps.iter().all(|g| g.kind != GapKind::Stopped), "{:?}", quiet.gaps);
}
