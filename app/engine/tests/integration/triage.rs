//! `triage::instance_problems` on small instances: each kind of problem from the facts that
//! make it, what hides job problems (a stale read, a zombie), and the ranking.
use chrono::{DateTime, TimeDelta, Utc};
use sundial_engine::fleet::{InstanceInput, InstanceReport, JobInput, JobSchedule, analyze};
use sundial_engine::reconcile::Settings;
use sundial_engine::triage::{self, Problem, ProblemKind, ProblemSeverity, Reading, TriageSettings};
use sundial_engine::{AgentSchedule, Diagnostic, Finding, Run, RunOutcome, Schedule, Step, Trigger, Window};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

const NOW: &str = "2026-11-20T12:00:00Z";

fn run(start: DateTime<Utc>, secs: i64, outcome: RunOutcome) -> Run {
    Run {
        start,
        duration_secs: secs,
        outcome,
        trigger: Trigger::Schedule(Some(1)),
        message: String::new(),
        steps: Vec::new(),
    }
}

fn hourly() -> JobSchedule {
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

fn job(id: &str, runs: Vec<Run>) -> JobInput {
    JobInput {
        id: id.into(),
        name: format!("Job {id}"),
        category: String::new(),
        owner: None,
        enabled: true,
        command: None,
        schedules: vec![hourly()],
        runs,
        history_horizon: None,
        source_horizon: None,
        unobserved: Vec::new(),
        diagnostics: Vec::new(),
        earlier: Vec::new(),
        modified: None,
    }
}

/// Hourly runs at :00 from `from` hours ago up to (not including) `until` hours ago.
fn hourly_runs(from: i64, until: i64, secs: i64, outcome: RunOutcome) -> Vec<Run> {
    let now = t(NOW);
    (until + 1..=from).rev().map(|h| run(now - TimeDelta::hours(h), secs, outcome)).collect()
}

fn report(jobs: Vec<JobInput>) -> InstanceReport {
    let now = t(NOW);
    let input = InstanceInput {
        name: "SQL1".into(),
        tz: chrono_tz::UTC.into(),
        jobs,
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    analyze(&input, Window::ending_at(now, TimeDelta::days(7)), now, &Settings::default())
}

/// A reading of `report` as a live instance read just now, every minute, without trouble.
fn healthy(report: &InstanceReport) -> Reading<'_> {
    Reading {
        instance: "SQL1",
        report: Some(report),
        notes: &[],
        failing: None,
        read_at: Some(t(NOW)),
        poll_secs: Some(60),
    }
}

fn judge(report: &InstanceReport) -> Vec<Problem> {
    let reading = healthy(report);
    let mut p = triage::instance_problems(&reading, t(NOW), &TriageSettings::default());
    triage::rank_by(&mut p, |p| (p, p.since.unwrap_or(t(NOW))));
    p
}

fn kinds(p: &[Problem]) -> Vec<(ProblemKind, Option<&str>)> {
    p.iter().map(|p| (p.kind, p.job.as_ref().map(|j| j.0.as_str()))).collect()
}

#[test]
fn a_job_that_runs_every_hour_has_no_problem() {
    let r = report(vec![job("ok", hourly_runs(72, 0, 60, RunOutcome::Succeeded))]);
    assert_eq!(kinds(&judge(&r)), vec![]);
}

#[test]
fn the_last_three_hours_missed_are_one_problem_counting_three_with_the_first_as_since() {
    // Runs until 3 hours ago; the 09:00, 10:00 and 11:00 runs never happened (12:00 is
    // within the grace of now).
    let r = report(vec![job("late", hourly_runs(72, 3, 60, RunOutcome::Succeeded))]);
    let p = judge(&r);
    assert_eq!(kinds(&p), vec![(ProblemKind::Missed, Some("late"))]);
    assert_eq!(p[0].count, 3);
    assert_eq!(p[0].since, Some(t("2026-11-20T09:00:00Z")));
    assert_eq!(p[0].at, t("2026-11-20T11:00:00Z"));
    assert_eq!(p[0].severity, ProblemSeverity::Error);
    assert!(p[0].evidence.contains("3 runs in a row"), "{}", p[0].evidence);
    assert!(p[0].evidence.contains("last success 2026-11-20 08:00 UTC"), "{}", p[0].evidence);
}

#[test]
fn a_failed_last_run_names_its_step_and_message_and_a_success_after_clears_it() {
    let mut runs = hourly_runs(72, 1, 60, RunOutcome::Succeeded);
    let mut bad = run(t("2026-11-20T11:00:00Z"), 30, RunOutcome::Failed);
    bad.steps = vec![Step::note("Step 1 (Extract) succeeded"), Step::note("Step 2 (Load) failed: deadlock victim")];
    bad.message = "The job failed.".into();
    runs.push(bad.clone());
    let p = judge(&report(vec![job("etl", runs.clone())]));
    assert_eq!(kinds(&p), vec![(ProblemKind::Failed, Some("etl"))]);
    assert!(p[0].evidence.contains("Step 2 (Load) failed: deadlock victim"), "{}", p[0].evidence);
    assert!(p[0].evidence.contains("The job failed."), "{}", p[0].evidence);
    assert_eq!(p[0].since, Some(bad.start));

    // Steps that do not say which one failed name none: the message does.
    let mut quiet = runs.clone();
    let last = quiet.last_mut().unwrap();
    last.steps = vec![Step::note("done: step 'stage' 2 s")];
    last.message = "failed in step 'delete old rows': timeout".into();
    let p = judge(&report(vec![job("etl", quiet)]));
    assert!(p[0].evidence.contains("failed in step 'delete old rows': timeout"), "{}", p[0].evidence);
    assert!(!p[0].evidence.contains("failed: failed"), "the outcome is said once: {}", p[0].evidence);
    assert!(!p[0].evidence.contains("stage"), "{}", p[0].evidence);

    // The 12:00 run succeeded: nothing is wrong any more.
    runs.push(run(t("2026-11-20T12:00:00Z"), 60, RunOutcome::Succeeded));
    assert_eq!(kinds(&judge(&report(vec![job("etl", runs)]))), vec![]);
}

#[test]
fn a_failed_run_quotes_its_failed_steps_own_message_not_the_outcome_line() {
    let mut runs = hourly_runs(72, 1, 60, RunOutcome::Succeeded);
    let mut bad = run(t("2026-11-20T11:00:00Z"), 30, RunOutcome::Failed);
    bad.message =
        "The job failed.  The Job was invoked by Schedule 3 (Hourly).  The last step to run was step 2 (Push to CRM)."
            .into();
    let step = |id: i64, name: &str, outcome: RunOutcome, message: &str| Step {
        id,
        name: name.into(),
        outcome: Some(outcome),
        message: message.into(),
        ..Step::default()
    };
    let long = "x".repeat(400);
    bad.steps = vec![
        step(1, "Extract", RunOutcome::Succeeded, "Executed as user: CORP\\svc. The step succeeded."),
        step(
            2,
            "Push to CRM",
            RunOutcome::Failed,
            &format!(
                "Executed as user: CORP\\svc. Invoke-RestMethod : 503 Service Unavailable\r\n  At line:1 char:1 {long}  The step failed."
            ),
        ),
    ];
    runs.push(bad);
    let p = judge(&report(vec![job("crm", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::Failed, Some("crm"))]);
    let e = &p[0].evidence;
    assert!(e.contains("failed in step 2 (Push to CRM): Invoke-RestMethod : 503 Service Unavailable At line:1"), "{e}");
    assert!(!e.contains("The job failed"), "not the outcome line: {e}");
    assert!(!e.contains("Executed as user"), "msdb's boilerplate is dropped: {e}");
    assert!(!e.contains("failed: failed"), "the outcome is said once: {e}");
    assert!(e.contains('…') && !e.contains(&long), "a long message is cut: {e}");
}

#[test]
fn three_days_of_failures_only_is_no_success_not_a_failed_row() {
    let mut runs = hourly_runs(100, 75, 60, RunOutcome::Succeeded);
    runs.extend(hourly_runs(75, 0, 60, RunOutcome::Failed));
    let p = judge(&report(vec![job("dead", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::NoSuccess, Some("dead"))]);
    assert_eq!(p[0].count, 75);
    assert!(p[0].evidence.contains("75 failures in a row"), "{}", p[0].evidence);
}

#[test]
fn a_run_going_three_times_its_usual_length_runs_long() {
    let mut runs = hourly_runs(48, 1, 600, RunOutcome::Succeeded);
    runs.push(run(t("2026-11-20T11:00:00Z"), 1800, RunOutcome::InProgress));
    let p = judge(&report(vec![job("slow", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::RunningLong, Some("slow"))]);
    assert_eq!(p[0].severity, ProblemSeverity::Warning);
    assert!(p[0].evidence.contains("running for 30 min 0 s"), "{}", p[0].evidence);
    assert!(p[0].evidence.contains("usually 10 min 0 s (p50)"), "{}", p[0].evidence);
    assert!(p[0].evidence.contains("longer than any run in the window"), "{}", p[0].evidence);
    assert!(p[0].evidence.contains("at p95 over 11 Friday runs"), "its baseline, named: {}", p[0].evidence);
}

/// Daily at 02:00 UTC, judged at `now` over the 30 days before it: 20 minutes a run, Mondays 40,
/// since `weeks` weeks before (runs before a Monday `weeks` back only).
fn daily_report(now: &str, weeks: i64, going: Run) -> InstanceReport {
    let now = t(now);
    let today = now.date_naive().and_hms_opt(2, 0, 0).unwrap().and_utc();
    let mut runs: Vec<Run> = (1..=weeks * 7)
        .rev()
        .map(|d| today - TimeDelta::days(d))
        .map(|start| {
            let monday = start.format("%a").to_string() == "Mon";
            run(start, if monday { 2400 } else { 1200 }, RunOutcome::Succeeded)
        })
        .collect();
    runs.push(going);
    let mut daily = job("load", runs);
    daily.schedules[0].schedule = Schedule::Agent(AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: 1,
        active_start_time: 20000,
        ..AgentSchedule::default()
    });
    let input = InstanceInput {
        name: "SQL1".into(),
        tz: chrono_tz::UTC.into(),
        jobs: vec![daily],
        agent_starts: Vec::new(),
        maintenance: Vec::new(),
        scheduler_stopped: false,
    };
    analyze(&input, Window::ending_at(now, TimeDelta::days(30)), now, &Settings::default())
}

#[test]
fn a_heavier_monday_is_judged_against_mondays_and_the_evidence_names_the_baseline() {
    // Monday 2026-11-16, 02:50: its run has gone 50 minutes; Mondays take 40.
    let monday = daily_report("2026-11-16T02:50:00Z", 4, run(t("2026-11-16T02:00:00Z"), 3000, RunOutcome::InProgress));
    assert_eq!(kinds(&judge(&monday)), vec![], "not long for a Monday");
    // Tuesday: 50 minutes where Tuesdays take 20.
    let tuesday = daily_report("2026-11-17T02:50:00Z", 4, run(t("2026-11-17T02:00:00Z"), 3000, RunOutcome::InProgress));
    let p = judge(&tuesday);
    assert_eq!(kinds(&p), vec![(ProblemKind::RunningLong, Some("load"))]);
    assert!(
        p[0].evidence.contains("usually 20 min 0 s (p50), 20 min 0 s at p95 over 4 Tuesday runs"),
        "{}",
        p[0].evidence
    );
    // Two weeks of runs only: two Tuesdays are too few; the window's p95 (Mondays in it), said so.
    let short = daily_report("2026-11-17T02:50:00Z", 2, run(t("2026-11-17T02:00:00Z"), 4000, RunOutcome::InProgress));
    let p = judge(&short);
    assert_eq!(kinds(&p), vec![(ProblemKind::RunningLong, Some("load"))]);
    assert!(
        p[0].evidence.contains("40 min 0 s at p95 over 14 runs of the last 30 days (only 2 Tuesday runs)"),
        "{}",
        p[0].evidence
    );
}

#[test]
fn a_run_going_long_names_the_step_it_executes_now() {
    let mut runs = hourly_runs(48, 1, 600, RunOutcome::Succeeded);
    let mut going = run(t("2026-11-20T11:00:00Z"), 1800, RunOutcome::InProgress);
    going.steps = vec![
        Step { id: 1, name: "Extract".into(), outcome: Some(RunOutcome::Succeeded), ..Step::default() },
        Step { id: 3, name: "Load staging".into(), outcome: Some(RunOutcome::InProgress), ..Step::default() },
    ];
    runs.push(going);
    let p = judge(&report(vec![job("slow", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::RunningLong, Some("slow"))]);
    assert!(p[0].evidence.contains("running step 3 (Load staging) for 30 min 0 s"), "{}", p[0].evidence);
}

#[test]
fn a_success_in_a_tenth_of_the_usual_time_is_too_short() {
    let mut runs = hourly_runs(48, 1, 3000, RunOutcome::Succeeded);
    runs.push(run(t("2026-11-20T11:00:00Z"), 300, RunOutcome::Succeeded));
    let p = judge(&report(vec![job("quick", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::TooShort, Some("quick"))]);
    assert_eq!(p[0].severity, ProblemSeverity::Info);
}

#[test]
fn a_stale_read_hides_every_job_problem_and_says_why() {
    let r = report(vec![job("late", hourly_runs(72, 3, 60, RunOutcome::Succeeded))]);
    let reading = healthy(&r);
    let later = t(NOW) + TimeDelta::minutes(10);
    let p = triage::instance_problems(&reading, later, &TriageSettings::default());
    assert_eq!(kinds(&p), vec![(ProblemKind::Stale, None)]);
    assert!(p[0].evidence.contains("10 min 0 s old"), "{}", p[0].evidence);
    // A frozen snapshot (no poll interval) is never stale.
    let frozen = Reading { poll_secs: None, ..reading };
    assert_eq!(kinds(&triage::instance_problems(&frozen, later, &TriageSettings::default())).len(), 1);
}

#[test]
fn an_unreachable_instance_is_critical_and_its_recent_read_is_still_judged() {
    let r = report(vec![job("late", hourly_runs(72, 3, 60, RunOutcome::Succeeded))]);
    let reading = Reading {
        failing: Some((t("2026-11-20T11:59:00Z"), "connection refused")),
        read_at: Some(t("2026-11-20T11:58:00Z")),
        poll_secs: Some(60),
        ..healthy(&r)
    };
    let mut p = triage::instance_problems(&reading, t(NOW), &TriageSettings::default());
    triage::rank_by(&mut p, |p| (p, p.since.unwrap_or(t(NOW))));
    assert_eq!(kinds(&p), vec![(ProblemKind::Unreachable, None), (ProblemKind::Missed, Some("late"))]);
    assert_eq!(p[0].severity, ProblemSeverity::Critical);
    assert!(p[0].evidence.contains("connection refused"), "{}", p[0].evidence);
    // Never read at all: only the instance's problem.
    let never = Reading { report: None, read_at: None, ..reading };
    assert_eq!(
        kinds(&triage::instance_problems(&never, t(NOW), &TriageSettings::default())),
        vec![(ProblemKind::Unreachable, None)]
    );
}

#[test]
fn a_zombie_now_is_one_critical_row_counting_the_starved_jobs_instead_of_one_row_each() {
    // Every job stopped 5 hours ago: the scheduler is alive (no restart) and starts nothing.
    let jobs: Vec<JobInput> =
        (0..3).map(|i| job(&format!("j{i}"), hourly_runs(72, 5, 60, RunOutcome::Succeeded))).collect();
    let p = judge(&report(jobs));
    assert_eq!(kinds(&p), vec![(ProblemKind::Zombie, None)]);
    assert_eq!(p[0].count, 3);
    assert_eq!(format!("{} {}", p[0].count, p[0].kind.info().row_count), "3 jobs starved");
    assert!(p[0].evidence.contains("of 3 jobs were due"), "{}", p[0].evidence);
}

#[test]
fn a_scheduler_reported_off_is_one_row_counting_the_jobs_whose_runs_did_not_happen() {
    let jobs = vec![
        job("a", hourly_runs(72, 3, 60, RunOutcome::Succeeded)),
        job("b", hourly_runs(72, 2, 60, RunOutcome::Succeeded)),
        job("ok", hourly_runs(72, 0, 60, RunOutcome::Succeeded)),
    ];
    let r = report(jobs);
    let notes = [Diagnostic::error("event_scheduler", "OFF", "the event scheduler is not running")
        .telling(Finding::SchedulerStopped)];
    let reading = Reading { notes: &notes, poll_secs: None, ..healthy(&r) };
    let p = triage::instance_problems(&reading, t(NOW), &TriageSettings::default());
    assert_eq!(kinds(&p), vec![(ProblemKind::SchedulerStopped, None)]);
    assert_eq!(p[0].count, 2);
    // The row's words beside its count say what it counts: jobs, not runs "in a row".
    assert_eq!(format!("{} {}", p[0].count, p[0].kind.info().row_count), "2 jobs missing runs");
    assert_eq!(p[0].since, Some(t("2026-11-20T09:00:00Z")));
    assert!(p[0].evidence.contains("5 due runs of 2 jobs did not happen"), "{}", p[0].evidence);
}

#[test]
fn one_job_is_one_job_and_one_run_one_run() {
    let notes = [Diagnostic::error("event_scheduler", "OFF", "the event scheduler is not running")
        .telling(Finding::SchedulerStopped)];
    for (missed, words) in [(3, "3 due runs of 1 job did not"), (1, "1 due run of 1 job did not")] {
        let r = report(vec![job("a", hourly_runs(72, missed, 60, RunOutcome::Succeeded))]);
        let reading = Reading { notes: &notes, poll_secs: None, ..healthy(&r) };
        let p = triage::instance_problems(&reading, t(NOW), &TriageSettings::default());
        assert!(p[0].evidence.contains(words), "{}", p[0].evidence);
    }
}

#[test]
fn a_scheduler_reported_off_is_critical() {
    let r = report(vec![job("ok", hourly_runs(72, 0, 60, RunOutcome::Succeeded))]);
    let notes = [Diagnostic::error("event_scheduler", "OFF", "the event scheduler is not running")
        .telling(Finding::SchedulerStopped)];
    let reading = Reading { notes: &notes, poll_secs: None, ..healthy(&r) };
    let p = triage::instance_problems(&reading, t(NOW), &TriageSettings::default());
    assert_eq!(kinds(&p), vec![(ProblemKind::SchedulerStopped, None)]);
}

#[test]
fn the_schedulers_own_next_run_disagreeing_is_a_warning() {
    let mut j = job("ok", hourly_runs(72, 0, 60, RunOutcome::Succeeded));
    j.diagnostics.push(triage::next_run_disagrees(
        "next_run_date",
        "20261121",
        t("2026-11-21T05:00:00Z"),
        Some(t("2026-11-20T13:00:00Z")),
    ));
    let p = judge(&report(vec![j]));
    assert_eq!(kinds(&p), vec![(ProblemKind::NextRunDisagrees, Some("ok"))]);
    // Both times are instants in the sentence, said with their zone in the text.
    assert_eq!(
        p[0].sentence.instants().collect::<Vec<_>>(),
        vec![t("2026-11-21T05:00:00Z"), t("2026-11-20T13:00:00Z")]
    );
    assert!(
        p[0].evidence.starts_with(
            "the scheduler expects the next run at 2026-11-21 05:00 UTC (next_run_date), \
         Sundial's forecast says 2026-11-20 13:00 UTC"
        ),
        "{}",
        p[0].evidence
    );
}

#[test]
fn history_the_scheduler_trimmed_is_unknown_never_missed() {
    let mut j = job("trimmed", hourly_runs(2, 0, 60, RunOutcome::Succeeded));
    j.history_horizon = Some(t(NOW) - TimeDelta::hours(2));
    assert_eq!(kinds(&judge(&report(vec![j]))), vec![]);
}

#[test]
fn ranking_is_worst_first_then_oldest() {
    let mut failing = hourly_runs(72, 1, 60, RunOutcome::Succeeded);
    failing.push(run(t("2026-11-20T11:00:00Z"), 30, RunOutcome::Failed));
    let mut slow = hourly_runs(48, 1, 600, RunOutcome::Succeeded);
    slow.push(run(t("2026-11-20T11:00:00Z"), 1800, RunOutcome::InProgress));
    let jobs = vec![
        slow.clone().into_iter().collect::<Vec<_>>(),
        failing,
        hourly_runs(72, 3, 60, RunOutcome::Succeeded), // missed since 09:00: older than the failure
    ];
    let jobs = jobs.into_iter().enumerate().map(|(i, r)| job(&format!("j{i}"), r)).collect();
    let p = judge(&report(jobs));
    assert_eq!(
        kinds(&p),
        vec![
            (ProblemKind::Missed, Some("j2")),
            (ProblemKind::Failed, Some("j1")),
            (ProblemKind::RunningLong, Some("j0")),
        ]
    );
    assert!(p.windows(2).all(|w| w[0].severity <= w[1].severity));
}

#[test]
fn a_job_that_usually_takes_seconds_is_never_too_short() {
    let mut runs = hourly_runs(48, 1, 28, RunOutcome::Succeeded);
    runs.push(run(t("2026-11-20T11:00:00Z"), 4, RunOutcome::Succeeded));
    assert_eq!(kinds(&judge(&report(vec![job("tiny", runs)]))), vec![]);
}

#[test]
fn a_long_run_shorter_than_the_longest_one_expects_its_finish_by_then() {
    // The longest (50 min) was on Thursday: Friday's runs are the baseline, the window's
    // longest the finish to expect.
    let mut runs = hourly_runs(30, 26, 600, RunOutcome::Succeeded);
    runs.push(run(t("2026-11-19T10:00:00Z"), 3000, RunOutcome::Succeeded));
    runs.extend(hourly_runs(25, 1, 600, RunOutcome::Succeeded));
    runs.push(run(t("2026-11-20T11:00:00Z"), 1800, RunOutcome::InProgress));
    let p = judge(&report(vec![job("slow", runs)]));
    assert_eq!(kinds(&p), vec![(ProblemKind::RunningLong, Some("slow"))]);
    assert!(p[0].evidence.contains("it finishes at 2026-11-20 11:50 UTC"), "{}", p[0].evidence);
}
