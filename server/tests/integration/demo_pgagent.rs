//! The demo's pgAgent instance read as a DBA would meet it: its file (written by `write_demo`)
//! read through the real pgagent source, then judged by the engine. The night the agent died
//! shows as misses "agent down" until its new login, each job's catch-up run as the late run of
//! the first time it missed; the failing step's own output is the failed run's why; the
//! holiday expects no report; the same seed writes the same file.
use crate::support::t;
use chrono::{DateTime, Duration, Utc};
use server::demo::{self, pgagent};
use server::sources::pgagent::PgAgent;
use server::sources::{self, ReadContext};
use std::path::{Path, PathBuf};
use sundial_engine::fleet::{InstanceReport, JobReport};
use sundial_engine::reconcile::{MissCause, Outcome, Settings};
use sundial_engine::{self as engine, RunOutcome, Window};

const NOW: &str = "2026-11-22T12:00:00Z";

async fn written(dir: &Path, seed: u64) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("demo.sqlite");
    demo::write_demo(&path, t(NOW), seed).await.expect("the demo fleet is written");
    path
}

/// The demo's pgAgent instance read through its configured source and judged over 30 days.
async fn judged(path: &Path) -> (InstanceReport, sources::SourceRead) {
    let fleet = demo::fleet(path).expect("the demo's configuration");
    let config = fleet.instances.iter().find(|i| i.name == demo::PGAGENT_INSTANCE).expect("pg-batch is configured");
    assert_eq!(config.kind.name(), "pgagent");
    let now = t(NOW);
    let window = Window::ending_at(now, Duration::days(30));
    let source = PgAgent::default();
    let cx = ReadContext { config, window, now, store: None, held: None };
    let read = sources::read(&source, cx).await.unwrap_or_else(|e| panic!("{e}"));
    let report = engine::fleet::analyze(&read.input, window, now, &Settings::default());
    (report, read)
}

fn job<'a>(report: &'a InstanceReport, name: &str) -> &'a JobReport {
    report.jobs.iter().find(|j| j.name == name).unwrap_or_else(|| panic!("{name} in the report"))
}

fn outcomes(j: &JobReport) -> Vec<(DateTime<Utc>, &Outcome)> {
    j.forecast.occurrences.iter().map(|o| o.at).zip(&j.reconciliation.outcomes).collect()
}

#[tokio::test]
async fn the_demo_pgagent_shows_the_night_its_agent_died_a_failing_step_and_a_holiday() {
    let dir = tempfile::tempdir().unwrap();
    let path = written(dir.path(), 42).await;
    let (report, read) = judged(&path).await;
    let story = pgagent::story(t(NOW));
    let (died, back) = (story.down.start, story.down.end);

    // The instance reads cleanly in its server's zone, with its six jobs.
    assert_eq!(read.input.tz, engine::Zone::from(pgagent::ZONE.parse::<chrono_tz::Tz>().unwrap()));
    assert_eq!(report.jobs.len(), 6, "{:?}", report.jobs.iter().map(|j| &j.name).collect::<Vec<_>>());
    assert!(!read.notes.iter().any(|n| n.severity == engine::Severity::Warning), "{:?}", read.notes);
    // The agent's login is the restart: the only pga_jobagent row, taken as the live agent.
    assert_eq!(read.input.agent_starts, vec![back]);
    assert!(
        report.context.zombie_periods.is_empty(),
        "a night down, not a zombie: {:?}",
        report.context.zombie_periods
    );

    // Every job due in the night ran once, late, at the restart: the first time it missed; the
    // times after it missed with the agent down, restarted at the new login.
    let mut caught_up = Vec::new();
    for j in &report.jobs {
        let night: Vec<_> = outcomes(j).into_iter().filter(|(at, _)| *at >= died && *at < back).collect();
        let Some(((first_at, first), rest)) = night.split_first() else { continue };
        let Outcome::Late { run, delay_secs } = first else {
            panic!("{}: the first time missed in the night ({first_at}) is the catch-up's, late: {night:?}", j.name)
        };
        let r = &j.runs[*run];
        assert!(r.start >= back && r.start < back + Duration::seconds(15), "{}: run at the login: {r:?}", j.name);
        assert_eq!(*delay_secs, (r.start - *first_at).num_seconds());
        for (at, o) in rest {
            assert!(
                matches!(o, Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } if *restarted_at == back),
                "{} at {at}: missed, agent down until {back}: {o:?}",
                j.name
            );
        }
        // Nothing ran in the night itself.
        assert!(!j.runs.iter().any(|r| r.start >= died && r.start < back), "{}", j.name);
        caught_up.push((j.name.clone(), rest.len()));
    }
    let names: Vec<&str> = caught_up.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Nightly vacuum analyze", "Refresh reporting views", pgagent::FAILING_JOB], "{caught_up:?}");
    // The hourly roll missed 03:00 to 06:00 (02:00 was caught up).
    assert_eq!(caught_up.iter().find(|(n, _)| n == pgagent::FAILING_JOB).unwrap().1, 4, "{caught_up:?}");

    // The pages' banner of the night: from the first time due while the agent was away (a
    // caught-up one) to the login; 4 missed, 3 run late when it came back.
    let first_due = report
        .jobs
        .iter()
        .flat_map(outcomes)
        .filter(|(at, o)| *at >= died && *at < back && !matches!(o, Outcome::OnTime { .. }))
        .map(|(at, _)| at)
        .min()
        .expect("times due in the night");
    let incidents = sundial_model::view::incidents(&report);
    let down = incidents
        .iter()
        .find(|i| i.kind == sundial_model::wire::IncidentKind::SchedulerDown)
        .unwrap_or_else(|| panic!("{incidents:?}"));
    assert_eq!((down.start.ms, down.end.ms), (first_due.timestamp_millis(), back.timestamp_millis()), "{down:?}");
    assert_eq!((down.due, down.missed, down.jobs), (4 + 3, 4, 1), "{down:?}");

    // The partition roll's second step fails every few days, in its own words.
    let roll = job(&report, pgagent::FAILING_JOB);
    let failed: Vec<_> = roll.runs.iter().filter(|r| r.outcome == RunOutcome::Failed).collect();
    assert!((4..=20).contains(&failed.len()), "every few days in a month: {}", failed.len());
    for r in &failed {
        let why = r.why();
        assert!(why.contains(pgagent::FAILING_STEP), "{why}");
        assert!(why.contains("ERROR: could not obtain lock on relation \"orders_2026_1"), "{why}");
        assert_eq!(r.steps.len(), 2);
        assert_eq!(r.steps[1].outcome, Some(RunOutcome::Failed));
    }
    // Otherwise the roll ran every hour on time.
    assert!(outcomes(roll).iter().filter(|(_, o)| matches!(o, Outcome::OnTime { .. })).count() > 600);

    // The holiday: no report expected that day; every other weekday one, on time.
    let report_job = job(&report, pgagent::HOLIDAY_JOB);
    let days: Vec<chrono::NaiveDate> =
        report_job.forecast.occurrences.iter().filter(|o| o.at <= t(NOW)).map(|o| o.local.date()).collect();
    assert!(!days.contains(&story.holiday), "{} is an exception: {days:?}", story.holiday);
    assert!(days.contains(&(story.holiday - Duration::days(1))) || days.contains(&(story.holiday + Duration::days(3))));
    assert!(days.len() >= 19, "{days:?}");
    assert!(!report_job.runs.iter().any(|r| r.start.date_naive() == story.holiday));
    assert_eq!(report_job.missed, 0);

    // The month-end close ran on the month's last day (slot 32).
    let close = job(&report, "Month-end close");
    let close_days: Vec<String> = close.runs.iter().map(|r| r.start.format("%m-%d").to_string()).collect();
    assert_eq!(close_days, ["10-31"]);
}

#[tokio::test]
async fn the_demo_pgagent_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let a = written(&dir.path().join("a"), 42).await;
    let b = written(&dir.path().join("b"), 42).await;
    let c = written(&dir.path().join("c"), 7).await;
    let file = |p: &Path| std::fs::read(demo::file_of(p, demo::PGAGENT_INSTANCE)).unwrap();
    let tables = |s| pgagent::pgagent(t(NOW), s);
    assert_eq!(format!("{:?}", tables(42)), format!("{:?}", tables(42)), "pure: the same now and seed, the same rows");
    assert_ne!(format!("{:?}", tables(42)), format!("{:?}", tables(7)), "another seed, another history");
    // The same judgment from either file.
    let (ra, _) = judged(&a).await;
    let (rb, _) = judged(&b).await;
    let (rc, _) = judged(&c).await;
    let summary = |r: &InstanceReport| {
        r.jobs.iter().map(|j| (j.name.clone(), j.runs.len(), j.missed, j.late)).collect::<Vec<_>>()
    };
    assert_eq!(summary(&ra), summary(&rb));
    assert_eq!(file(&a).len(), file(&b).len());
    // Another seed moves the failures, not the story: the same catch-ups.
    assert_eq!(ra.jobs.iter().map(|j| j.late).collect::<Vec<_>>(), rc.jobs.iter().map(|j| j.late).collect::<Vec<_>>());
}

/// A file whose values pgAgent would never write: each is named (table and column) and its row
/// left out or its schedule not forecast; the rest still reads, and nothing panics.
#[tokio::test]
async fn a_pgagent_file_with_bad_values_names_them_and_reads_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = written(dir.path(), 42).await;
    let file = demo::file_of(&path, demo::PGAGENT_INSTANCE);
    {
        use sqlx::ConnectOptions;
        let mut db = sqlx::sqlite::SqliteConnectOptions::new().filename(&file).connect().await.unwrap();
        for sql in [
            "UPDATE pga_joblog SET jlgstart = 'yesterday-ish' WHERE jlgid = (SELECT max(jlgid) FROM pga_joblog)",
            "UPDATE pga_joblog SET jlgduration = 'forever' WHERE jlgid = (SELECT max(jlgid) - 1 FROM pga_joblog)",
            "UPDATE pga_schedule SET jscminutes = '{t,f}' WHERE jscjobid = 1",
            "UPDATE pga_job SET jobenabled = 'maybe' WHERE jobid = 3",
            "UPDATE pga_jobsteplog SET jsljlgid = 'x' WHERE jslid = 1",
        ] {
            sqlx::query(sql).execute(&mut db).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    }
    let (report, read) = judged(&path).await;
    let said = format!("{:?}", read.notes);
    for named in ["pga_joblog.jlgstart", "pga_joblog.jlgduration", "pga_job.jobenabled", "pga_jobsteplog.jsljlgid"] {
        assert!(said.contains(named), "{named} in {said}");
    }
    let vacuum = job(&report, "Nightly vacuum analyze");
    assert!(
        vacuum.diagnostics.iter().any(|d| d.field.as_deref() == Some("pgagent.pga_schedule.jscminutes")),
        "{:?}",
        vacuum.diagnostics
    );
    assert_eq!(report.jobs.len(), 6);
    assert!(job(&report, pgagent::FAILING_JOB).runs.len() > 600);
}
