//! The MySQL `job` table as the design creates it, on MariaDB 10.11 (its home), PostgreSQL 15
//! and SQLite (types translated), read by Sundial through `job_table::read_instance` at six
//! polls with one `snapshots::Store`, the table updated between polls as the runners would:
//! the facts each case plants, asserted on every engine; on SQLite, the key ones again through
//! the JSON API of a fleet served over the same file and store as of the last poll.
//!
//! 2026-03-02 (UTC), polls at 02:40, 06:20, 10:05, 10:25, 10:30 and 12:30; the window is the
//! day.
//! - `etl.hourly` (every hour from 00:00, its runner started then): the counter places the
//!   cycles Sundial never saw, back to the runner's start and between polls; 12:00 is going.
//! - `etl.overrun` (every 10 minutes from 10:00): its first cycle runs until 10:27; 10:10 is
//!   skipped because it still ran, 10:20 runs late at 10:27, and the cadence counts on from
//!   there.
//! - `etl.broken` (hourly; its runner started at 00:15): the cycle of 06:15 fails, the runner
//!   stops (ERROR): forecast up to it, nothing after.
//! - `etl.finished` (hourly, 00:00 to 03:00): FINISHED, forecast up to its window's end.
//! - `etl.crashed` (every 30 minutes from its runner's start, 01:00): the cycle of 02:30 never
//!   finishes; a new runner starts at 06:00. Crashed; what happened between is unknown.
//! - `etl.stuck` (hourly): the cycle of 02:00 never finishes and nothing replaces it: in
//!   progress at 02:40, crashed after an hour; the hours after are missed.
//! - `etl.pending` (hourly from 09:00): ENABLED, nobody called `job$run`: missed.
//! - `etl.off`: DISABLED. `etl.garbage`: an interval of 0 (and, where the engine lets a column
//!   hold one, a time that is none): diagnostics naming the columns; the rest reads.
use crate::support::servers::{TestServer, port};
use crate::support::t;
use chrono::{DateTime, Utc};
use server::sources::job_table::{self, DEFAULT_STUCK_AFTER};
use server::sources::snapshots::Store;
use server::sources::tables::TablesDb;
use sqlx::Connection;
use std::time::Duration;
use sundial_engine::Window;
use sundial_engine::fleet::{InstanceInput, InstanceReport, JobReport, analyze};
use sundial_engine::reconcile::{MissCause, Outcome, Settings};
use sundial_engine::{RunOutcome, Severity};

const POLLS: [&str; 6] = ["02:40", "06:20", "10:05", "10:25", "10:30", "12:30"];

fn window() -> Window {
    Window::new(t("2026-03-02T00:00:00Z"), t("2026-03-03T00:00:00Z"))
}

/// "HH:MM" on 2026-03-02, or a full "YYYY-MM-DD HH:MM", as the table writes it.
fn dt(s: &str) -> String {
    if s.len() == 5 { format!("2026-03-02 {s}:00") } else { format!("{s}:00") }
}

/// "HH:MM" on 2026-03-02 as an instant.
fn at(hm: &str) -> DateTime<Utc> {
    t(&format!("2026-03-02T{hm}:00Z"))
}

fn hm(t: DateTime<Utc>) -> String {
    t.format("%H:%M").to_string()
}

/// One row's runner columns at a poll.
#[derive(Clone, Copy)]
struct State {
    status: &'static str,
    runner: Option<&'static str>,
    finish: Option<&'static str>,
    cycles: Option<u32>,
    last: Option<&'static str>,
    last_finish: Option<&'static str>,
}

const fn st(
    status: &'static str,
    runner: Option<&'static str>,
    finish: Option<&'static str>,
    cycles: Option<u32>,
    last: Option<&'static str>,
    last_finish: Option<&'static str>,
) -> State {
    State { status, runner, finish, cycles, last, last_finish }
}

const IDLE: State = st("ENABLED", None, None, None, None, None);

/// The design's columns of one job: (id, name, schedule start, finish, interval), and its
/// runner's state at each poll.
struct Job {
    id: u32,
    name: &'static str,
    start: Option<&'static str>,
    finish: Option<&'static str>,
    interval: u32,
    states: [State; 6],
}

fn jobs() -> Vec<Job> {
    let hourly_late = st("SLEEPING", Some("00:00"), None, Some(11), Some("10:00"), Some("10:06"));
    let broken = st("ERROR", Some("00:15"), Some("06:19"), Some(6), Some("06:15"), Some("05:16"));
    let finished = st("FINISHED", Some("2026-03-01 23:50"), Some("04:00"), Some(4), Some("03:00"), Some("03:01"));
    let crashed_1005 = st("SLEEPING", Some("06:00"), None, Some(9), Some("10:00"), Some("10:02"));
    let stuck = st("RUNNING", Some("00:00"), None, Some(2), Some("02:00"), Some("01:03"));
    let overrun_long = st("RUNNING", Some("09:58"), None, Some(0), Some("10:00"), None);
    vec![
        Job {
            id: 1,
            name: "hourly",
            start: Some("00:00"),
            finish: None,
            interval: 3600,
            states: [
                st("SLEEPING", Some("00:00"), None, Some(3), Some("02:00"), Some("02:05")),
                st("SLEEPING", Some("00:00"), None, Some(7), Some("06:00"), Some("06:04")),
                st("RUNNING", Some("00:00"), None, Some(10), Some("10:00"), Some("09:03")),
                hourly_late,
                hourly_late,
                st("RUNNING", Some("00:00"), None, Some(12), Some("12:00"), Some("11:03")),
            ],
        },
        Job {
            id: 2,
            name: "overrun",
            start: Some("10:00"),
            finish: None,
            interval: 600,
            states: [
                IDLE,
                IDLE,
                overrun_long,
                overrun_long,
                st("RUNNING", Some("09:58"), None, Some(1), Some("10:27"), Some("10:27")),
                st("SLEEPING", Some("09:58"), None, Some(14), Some("12:27"), Some("12:28")),
            ],
        },
        Job {
            id: 3,
            name: "broken",
            start: Some("2026-03-01 00:00"),
            finish: None,
            interval: 3600,
            states: [
                st("SLEEPING", Some("00:15"), None, Some(3), Some("02:15"), Some("02:16")),
                broken,
                broken,
                broken,
                broken,
                broken,
            ],
        },
        Job {
            id: 4,
            name: "finished",
            start: Some("00:00"),
            finish: Some("03:00"),
            interval: 3600,
            states: [
                st("SLEEPING", Some("2026-03-01 23:50"), None, Some(3), Some("02:00"), Some("02:01")),
                finished,
                finished,
                finished,
                finished,
                finished,
            ],
        },
        Job {
            id: 5,
            name: "crashed",
            start: None,
            finish: None,
            interval: 1800,
            states: [
                st("RUNNING", Some("01:00"), None, Some(3), Some("02:30"), Some("02:05")),
                st("SLEEPING", Some("06:00"), None, Some(1), Some("06:00"), Some("06:02")),
                crashed_1005,
                crashed_1005,
                st("RUNNING", Some("06:00"), None, Some(9), Some("10:30"), Some("10:02")),
                st("RUNNING", Some("06:00"), None, Some(13), Some("12:30"), Some("12:02")),
            ],
        },
        Job { id: 6, name: "stuck", start: Some("00:00"), finish: None, interval: 3600, states: [stuck; 6] },
        Job { id: 7, name: "pending", start: Some("09:00"), finish: None, interval: 3600, states: [IDLE; 6] },
        Job {
            id: 8,
            name: "off",
            start: Some("00:00"),
            finish: None,
            interval: 3600,
            states: [st("DISABLED", None, None, None, None, None); 6],
        },
        Job { id: 9, name: "garbage", start: None, finish: None, interval: 0, states: [IDLE; 6] },
    ]
}

fn literal(v: Option<&str>) -> String {
    v.map_or("NULL".to_owned(), |s| format!("'{}'", dt(s)))
}

/// The rows as first defined (`{t}`: the table's name).
fn inserts(table: &str) -> Vec<String> {
    jobs()
        .iter()
        .map(|j| {
            format!(
                "INSERT INTO {table} (job_id, job_owner, job_name, job_description, job_procedure_schema, \
                 job_procedure_name, job_schedule_start, job_schedule_finish, job_schedule_interval, job_status) \
                 VALUES ({}, 'etl', '{}', 'loads {}', 'etl', 'p_{}', {}, {}, {}, 'ENABLED')",
                j.id,
                j.name,
                j.name,
                j.name,
                literal(j.start),
                literal(j.finish),
                j.interval
            )
        })
        .collect()
}

/// What the runners wrote before poll `p`.
fn updates(table: &str, p: usize) -> Vec<String> {
    jobs()
        .iter()
        .map(|j| {
            let s = j.states[p];
            format!(
                "UPDATE {table} SET job_status = '{}', job_runner_start = {}, job_runner_finish = {}, \
                 job_runner_cycles = {}, job_runner_last_cycle_start = {}, job_runner_last_cycle_finish = {} \
                 WHERE job_id = {}",
                s.status,
                literal(s.runner),
                literal(s.finish),
                s.cycles.map_or("NULL".to_owned(), |c| c.to_string()),
                literal(s.last),
                literal(s.last_finish),
                j.id
            )
        })
        .collect()
}

const STATUSES: &str = "'ABORTED','DISABLED','ENABLED','ERROR','FINISHED','PAUSED','RESUMED','RUNNING','SLEEPING'";

/// The design's table on MariaDB, as the article creates it.
fn ddl_mariadb() -> String {
    format!(
        "CREATE TABLE sched.job (job_id INT UNSIGNED NOT NULL AUTO_INCREMENT, job_owner VARCHAR(77) NOT NULL, \
         job_name VARCHAR(129) NOT NULL, job_description VARCHAR(1024), job_procedure_schema VARCHAR(64) NOT NULL, \
         job_procedure_name VARCHAR(64) NOT NULL, job_schedule_start DATETIME, job_schedule_finish DATETIME, \
         job_schedule_interval INT UNSIGNED NOT NULL, job_status ENUM({STATUSES}) NOT NULL DEFAULT 'ENABLED', \
         job_runner_connection_id INT UNSIGNED, job_runner_start DATETIME, job_runner_finish DATETIME, \
         job_runner_cycles INT UNSIGNED, job_runner_last_cycle_start DATETIME, job_runner_last_cycle_finish DATETIME, \
         CONSTRAINT pk_job PRIMARY KEY (job_id), CONSTRAINT uk_job1 UNIQUE (job_owner, job_name)) \
         ENGINE=MyISAM DEFAULT CHARSET=latin1 COMMENT='A table that schedules stored procedure execution'"
    )
}

/// PostgreSQL: the ENUM as a type, `int unsigned` as bigint within its range, DATETIME as
/// timestamp(0).
fn ddl_postgres() -> Vec<String> {
    let unsigned = |c: &str| format!("bigint CHECK ({c} BETWEEN 0 AND 4294967295)");
    vec![
        format!("CREATE TYPE job_status AS ENUM ({STATUSES})"),
        format!(
            "CREATE TABLE job (job_id {} GENERATED BY DEFAULT AS IDENTITY, job_owner varchar(77) NOT NULL, \
             job_name varchar(129) NOT NULL, job_description varchar(1024), job_procedure_schema varchar(64) NOT NULL, \
             job_procedure_name varchar(64) NOT NULL, job_schedule_start timestamp(0), job_schedule_finish timestamp(0), \
             job_schedule_interval {} NOT NULL, job_status job_status NOT NULL DEFAULT 'ENABLED', \
             job_runner_connection_id {}, job_runner_start timestamp(0), job_runner_finish timestamp(0), \
             job_runner_cycles {}, job_runner_last_cycle_start timestamp(0), job_runner_last_cycle_finish timestamp(0), \
             CONSTRAINT pk_job PRIMARY KEY (job_id), CONSTRAINT uk_job1 UNIQUE (job_owner, job_name))",
            unsigned("job_id"),
            unsigned("job_schedule_interval"),
            unsigned("job_runner_connection_id"),
            unsigned("job_runner_cycles")
        ),
    ]
}

/// SQLite: INTEGER and DATETIME affinities, the ENUM as a CHECK.
fn ddl_sqlite() -> String {
    format!(
        "CREATE TABLE job (job_id INTEGER NOT NULL CHECK (job_id >= 0), job_owner VARCHAR(77) NOT NULL, \
         job_name VARCHAR(129) NOT NULL, job_description VARCHAR(1024), job_procedure_schema VARCHAR(64) NOT NULL, \
         job_procedure_name VARCHAR(64) NOT NULL, job_schedule_start DATETIME, job_schedule_finish DATETIME, \
         job_schedule_interval INTEGER NOT NULL CHECK (job_schedule_interval >= 0), \
         job_status TEXT NOT NULL DEFAULT 'ENABLED' CHECK (job_status IN ({STATUSES})), \
         job_runner_connection_id INTEGER, job_runner_start DATETIME, job_runner_finish DATETIME, \
         job_runner_cycles INTEGER, job_runner_last_cycle_start DATETIME, job_runner_last_cycle_finish DATETIME, \
         CONSTRAINT pk_job PRIMARY KEY (job_id), CONSTRAINT uk_job1 UNIQUE (job_owner, job_name))"
    )
}

/// Who writes the table between polls (the runners' part); Sundial only reads.
enum Admin {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
    MariaDb(sqlx::MySqlPool),
}

impl Admin {
    async fn exec(&mut self, sql: &str) {
        let q = sqlx::AssertSqlSafe(sql.to_owned());
        let r = match self {
            Admin::Sqlite(c) => sqlx::query(q).execute(c).await.map(|_| ()),
            Admin::Postgres(c) => sqlx::query(q).execute(c).await.map(|_| ()),
            Admin::MariaDb(p) => sqlx::query(q).execute(&*p).await.map(|_| ()),
        };
        r.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// Poll six times, the runners writing in between; the reads at 02:40 and 10:25 are checked on
/// the way, the last one returned (with the store, to read again).
async fn poll_the_day(db: &mut TablesDb, admin: &mut Admin, table: &str, store: &Store, engine: &str) -> InstanceInput {
    let mut last = None;
    for (p, poll) in POLLS.iter().enumerate() {
        for sql in updates(table, p) {
            admin.exec(&sql).await;
        }
        let read = job_table::read_instance(db, store, "jobs", chrono_tz::UTC, window(), at(poll), DEFAULT_STUCK_AFTER)
            .await
            .unwrap_or_else(|e| panic!("{engine}: poll at {poll}: {e}"));
        let report = analyze(&read.input, window(), at(poll), &Settings::default());
        match *poll {
            "02:40" => at_0240(&report, engine),
            "10:25" => at_1025(&report, engine),
            _ => {}
        }
        last = Some(read.input);
    }
    last.unwrap()
}

fn job<'a>(r: &'a InstanceReport, name: &str) -> &'a JobReport {
    r.jobs.iter().find(|j| j.name == format!("etl.{name}")).unwrap_or_else(|| panic!("no job etl.{name}"))
}

/// Each run: start, outcome, seconds.
fn runs(j: &JobReport) -> Vec<(String, RunOutcome, i64)> {
    j.runs.iter().map(|r| (hm(r.start), r.outcome, r.duration_secs)).collect()
}

/// Each expected occurrence with what became of it, in words.
fn occurrences(j: &JobReport) -> Vec<(String, String)> {
    let run = |i: usize| hm(j.runs[i].start);
    j.forecast
        .occurrences
        .iter()
        .zip(&j.reconciliation.outcomes)
        .map(|(o, outcome)| {
            let what = match outcome {
                Outcome::OnTime { run: r } => format!("ran {}", run(*r)),
                Outcome::Late { run: r, delay_secs } => format!("late {} +{delay_secs}s", run(*r)),
                Outcome::SkippedRunning { run: r } => format!("skipped: {} still ran", run(*r)),
                Outcome::Missed { cause: MissCause::NoRun } => "missed: no run".into(),
                Outcome::Missed { cause } => format!("missed: {cause:?}"),
                Outcome::Unknown => "unknown".into(),
                Outcome::Maintenance { .. } => "maintenance".into(),
                Outcome::Upcoming => "upcoming".into(),
            };
            (hm(o.at), what)
        })
        .collect()
}

/// `(time, what)` for every step of `step` minutes from `from` while before `to` (both "HH:MM").
fn each(from: &str, to: &str, step: i64, what: impl Fn(&str) -> String) -> Vec<(String, String)> {
    let (from, to) = (at(from), if to == "24:00" { window().end } else { at(to) });
    std::iter::successors(Some(from), |t| Some(*t + chrono::TimeDelta::minutes(step)))
        .take_while(|t| *t < to)
        .map(|t| (hm(t), what(&hm(t))))
        .collect()
}

fn ran(t: &str) -> String {
    format!("ran {t}")
}

fn is(s: &'static str) -> impl Fn(&str) -> String {
    move |_| s.to_owned()
}

fn next(j: &JobReport) -> Option<String> {
    j.next_expected.as_ref().map(|o| hm(o.at))
}

/// 02:40, the first poll: the counter already shows the cycles since each runner started.
fn at_0240(r: &InstanceReport, db: &str) {
    let hourly = job(r, "hourly");
    let s = RunOutcome::Succeeded;
    assert_eq!(runs(hourly), [("00:00".into(), s, 0), ("01:00".into(), s, 0), ("02:00".into(), s, 300)], "{db}");
    let stuck = job(r, "stuck");
    assert_eq!(
        stuck.runs.last().map(|r| (hm(r.start), r.outcome)),
        Some(("02:00".into(), RunOutcome::InProgress)),
        "{db}"
    );
    let crashed = job(r, "crashed");
    assert_eq!(
        crashed.runs.last().map(|r| (hm(r.start), r.outcome)),
        Some(("02:30".into(), RunOutcome::InProgress)),
        "{db}: still going when seen"
    );
}

/// 10:25: the overrun's first cycle is still going; the ticks it covers are skipped, not missed.
fn at_1025(r: &InstanceReport, db: &str) {
    let overrun = job(r, "overrun");
    assert_eq!(runs(overrun), [("10:00".into(), RunOutcome::InProgress, 25 * 60)], "{db}");
    let o = occurrences(overrun);
    assert_eq!(
        o[..3],
        [
            ("10:00".into(), "ran 10:00".into()),
            ("10:10".into(), "skipped: 10:00 still ran".into()),
            ("10:20".into(), "skipped: 10:00 still ran".into())
        ],
        "{db}"
    );
}

/// The facts at 12:30, the same on every engine.
fn check(input: &InstanceInput, db: &str) {
    let names: Vec<&str> = input.jobs.iter().map(|j| j.name.as_str()).collect();
    let want: Vec<String> = jobs().iter().map(|j| format!("etl.{}", j.name)).collect();
    assert_eq!(names, want, "{db}");
    let report = analyze(input, window(), at("12:30"), &Settings::default());
    let (s, f) = (RunOutcome::Succeeded, RunOutcome::Failed);

    // hourly: every cycle since 00:00, twelve of them never sampled but counted.
    let hourly = job(&report, "hourly");
    let mut want: Vec<(String, RunOutcome, i64)> = (0..12).map(|h| (format!("{h:02}:00"), s, 0)).collect();
    for (h, secs) in [(2, 300), (6, 240), (9, 180), (10, 360), (11, 180)] {
        want[h].2 = secs;
    }
    want.push(("12:00".into(), RunOutcome::InProgress, 30 * 60));
    assert_eq!(runs(hourly), want, "{db}: hourly");
    let mut want = each("00:00", "13:00", 60, ran);
    want.extend(each("13:00", "24:00", 60, is("upcoming")));
    assert_eq!(occurrences(hourly), want, "{db}: hourly");
    assert_eq!(next(hourly).as_deref(), Some("13:00"), "{db}");
    assert!(hourly.runs[1].message.contains("job_runner_cycles"), "{db}: {:?}", hourly.runs[1]);

    // overrun: the long first cycle, the late one that started as it ended, then the cadence
    // from there.
    let overrun = job(&report, "overrun");
    let mut want = vec![("10:00".into(), s, 27 * 60), ("10:27".into(), s, 3 * 60)];
    want.extend(each("10:37", "12:27", 10, |_| String::new()).into_iter().map(|(t, _)| (t, s, 0)));
    want.push(("12:27".into(), s, 60));
    assert_eq!(runs(overrun), want, "{db}: overrun");
    let mut want = vec![
        ("10:00".to_owned(), "ran 10:00".to_owned()),
        ("10:10".into(), "skipped: 10:00 still ran".into()),
        ("10:20".into(), "late 10:27 +420s".into()),
    ];
    want.extend(each("10:37", "12:30", 10, ran));
    want.extend(each("12:37", "24:00", 10, is("upcoming")));
    assert_eq!(occurrences(overrun), want, "{db}: overrun");
    assert_eq!((overrun.skipped, overrun.late, overrun.missed), (1, 1, 0), "{db}");
    assert_eq!(next(overrun).as_deref(), Some("12:37"), "{db}");

    // broken: up to the failed cycle, nothing after; before its runner, unknown.
    let broken = job(&report, "broken");
    let mut want: Vec<(String, RunOutcome, i64)> = (0..6).map(|h| (format!("{h:02}:15"), s, 0)).collect();
    want[2].2 = 60;
    want[5].2 = 60;
    want.push(("06:15".into(), f, 240));
    assert_eq!(runs(broken), want, "{db}: broken");
    let mut want = vec![("00:00".to_owned(), "unknown".to_owned())];
    want.extend(each("00:15", "06:30", 60, ran));
    assert_eq!(occurrences(broken), want, "{db}: broken");
    assert!(broken.enabled && broken.next_expected.is_none(), "{db}");
    assert_eq!(broken.last_run.as_ref().map(|r| r.outcome), Some(f), "{db}: the status: the last cycle failed");
    assert!(broken.runs[6].message.contains("ERROR"), "{db}: {:?}", broken.runs[6]);

    // finished: its window, 00:00 to 03:00.
    let finished = job(&report, "finished");
    assert_eq!(
        runs(finished),
        [("00:00".into(), s, 0), ("01:00".into(), s, 0), ("02:00".into(), s, 60), ("03:00".into(), s, 60)],
        "{db}: finished"
    );
    assert_eq!(occurrences(finished), each("00:00", "03:30", 60, ran), "{db}: finished");
    assert!(finished.next_expected.is_none(), "{db}");

    // crashed: 02:30 never finished, its runner replaced at 06:00; between, unknown.
    let crashed = job(&report, "crashed");
    let mut want: Vec<(String, RunOutcome, i64)> =
        vec![("01:00".into(), s, 0), ("01:30".into(), s, 0), ("02:00".into(), s, 300)];
    want.push(("02:30".into(), RunOutcome::Crashed, 600));
    want.extend(each("06:00", "12:30", 30, |_| String::new()).into_iter().map(|(t, _)| (t, s, 0)));
    want.push(("12:30".into(), RunOutcome::InProgress, 0));
    for (t, secs) in [("06:00", 120), ("10:00", 120), ("12:00", 120)] {
        want.iter_mut().find(|w| w.0 == t).unwrap().2 = secs;
    }
    assert_eq!(runs(crashed), want, "{db}: crashed");
    let mut want = each("01:00", "03:00", 30, ran);
    want.extend(each("03:00", "06:00", 30, is("unknown")));
    want.extend(each("06:00", "13:00", 30, ran));
    want.extend(each("13:00", "24:00", 30, is("upcoming")));
    assert_eq!(occurrences(crashed), want, "{db}: crashed");
    assert!(crashed.runs[3].message.contains("new runner"), "{db}: {:?}", crashed.runs[3]);
    assert_eq!(crashed.missed, 0, "{db}: never missed where nobody can tell");

    // stuck: in progress, then crashed after an hour; the hours since missed.
    let stuck = job(&report, "stuck");
    assert_eq!(
        runs(stuck),
        [("00:00".into(), s, 0), ("01:00".into(), s, 180), ("02:00".into(), RunOutcome::Crashed, 3600)],
        "{db}: stuck"
    );
    let mut want = each("00:00", "03:00", 60, ran);
    want.extend(each("03:00", "13:00", 60, is("missed: no run")));
    want.extend(each("13:00", "24:00", 60, is("upcoming")));
    assert_eq!(occurrences(stuck), want, "{db}: stuck");

    // pending: nobody called job$run.
    let pending = job(&report, "pending");
    assert!(pending.runs.is_empty(), "{db}");
    let mut want = each("09:00", "13:00", 60, is("missed: no run"));
    want.extend(each("13:00", "24:00", 60, is("upcoming")));
    assert_eq!(occurrences(pending), want, "{db}: pending");
    assert_eq!(next(pending).as_deref(), Some("13:00"), "{db}");

    // off: disabled, nothing expected.
    let off = job(&report, "off");
    assert!(!off.enabled && off.forecast.occurrences.is_empty() && off.runs.is_empty(), "{db}");

    // garbage: a diagnostic naming the column; nothing expected, nothing else spoilt.
    let garbage = job(&report, "garbage");
    assert!(garbage.forecast.occurrences.is_empty() && garbage.runs.is_empty(), "{db}");
    assert!(
        garbage.diagnostics.iter().any(|d| d.severity == Severity::Error
            && d.field.as_deref() == Some("job_schedule_interval")
            && d.value.as_deref() == Some("0")),
        "{db}: {:?}",
        garbage.diagnostics
    );
}

/// A diagnostic naming `column` with `value` on the garbage job.
fn names_column(input: &InstanceInput, column: &str, value: &str) -> bool {
    let report = analyze(input, window(), at("12:30"), &Settings::default());
    job(&report, "garbage")
        .diagnostics
        .iter()
        .any(|d| d.field.as_deref() == Some(column) && d.value.as_deref() == Some(value))
}

/// What a second Store over the same file reads at 12:30: the same (the samples persist).
async fn read_again(db: &mut TablesDb, path: &std::path::Path) -> InstanceInput {
    let store = Store::open(path).await.unwrap();
    job_table::read_instance(db, &store, "jobs", chrono_tz::UTC, window(), at("12:30"), DEFAULT_STUCK_AFTER)
        .await
        .unwrap()
        .input
}

#[tokio::test]
async fn job_table_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jobs.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Sqlite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    for sql in [ddl_sqlite()].into_iter().chain(inserts("job")) {
        admin.exec(&sql).await;
    }
    // SQLite keeps any text: a start that is no time.
    admin.exec("UPDATE job SET job_schedule_start = 'yesterday' WHERE job_id = 9").await;
    let mut db = TablesDb::Sqlite(server::sources::connect::sqlite(&path).await.unwrap());
    let store_path = dir.path().join("store.sqlite");
    let store = Store::open(&store_path).await.unwrap();
    let input = poll_the_day(&mut db, &mut admin, "job", &store, "SQLite").await;
    check(&input, "SQLite");
    assert!(names_column(&input, "job_schedule_start", "yesterday"), "SQLite");
    drop(store);
    check(&read_again(&mut db, &store_path).await, "SQLite, the store opened again");
    through_the_api(&path, &store_path).await;
}

/// "HH:MM" of an instant the API wrote, which must be on 2026-03-02, in UTC, on the minute.
fn clock(v: &serde_json::Value) -> String {
    let s = v.as_str().unwrap_or_else(|| panic!("not an instant: {v}"));
    assert!(s.starts_with("2026-03-02T") && s.ends_with(":00Z") && s.len() == 20, "{s}");
    s[11..16].to_owned()
}

/// A timeline's runs: start, outcome.
fn api_runs(v: &serde_json::Value) -> Vec<(String, String)> {
    let runs = v["runs"].as_array().unwrap_or_else(|| panic!("no runs: {v}"));
    runs.iter().map(|r| (clock(&r["started_at"]), r["outcome"].as_str().unwrap().to_owned())).collect()
}

/// A timeline's occurrences with what became of them, in the words of [`occurrences`] (a miss
/// names the API's cause).
fn api_occurrences(v: &serde_json::Value) -> Vec<(String, String)> {
    let runs = v["runs"].as_array().unwrap();
    let run = |o: &serde_json::Value| {
        let i = o["run"].as_u64().unwrap_or_else(|| panic!("no run: {o}"));
        clock(&runs[i as usize]["started_at"])
    };
    let occurrences = v["occurrences"].as_array().unwrap_or_else(|| panic!("no occurrences: {v}"));
    occurrences
        .iter()
        .map(|o| {
            let what = match (o["outcome"].as_str().unwrap(), &o["cause"]) {
                ("on_time", serde_json::Value::Null) => format!("ran {}", run(o)),
                ("late", serde_json::Value::Null) => format!("late {} +{}s", run(o), o["delay_secs"]),
                ("skipped", serde_json::Value::Null) => format!("skipped: {} still ran", run(o)),
                ("missed", cause) => format!("missed: {}", cause.as_str().unwrap_or_else(|| panic!("no cause: {o}"))),
                (other, serde_json::Value::Null) => other.to_owned(),
                _ => panic!("a cause on an occurrence not missed: {o}"),
            };
            (clock(&o["expected_at"]), what)
        })
        .collect()
}

/// The facts [`check`] asserts of `etl.hourly`, `etl.overrun`, `etl.crashed` and `etl.stuck`,
/// as the JSON API answers them: the same table file and the same store served as a configured
/// fleet as of the last poll (`serve --now`), whose own read is one more sample of the same
/// states at the same moment.
async fn through_the_api(path: &std::path::Path, store: &std::path::Path) {
    use crate::support::web::{api, fleet_as_of};
    let toml = format!(
        "store = {:?}\n[[instance]]\nname = \"jobs\"\nkind = \"mysql_job_table\"\nengine = \"sqlite\"\n\
         path = {:?}\ntime_zone = \"UTC\"\n",
        store.display().to_string(),
        path.display().to_string()
    );
    let state = fleet_as_of(&toml, at("12:30")).await;
    let span = "from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z&as_of=2026-03-02T12:30:00Z";

    // The job list: every row, by name, each with its next run.
    let v = api(&state, &format!("/api/instances/jobs/jobs?{span}")).await;
    let listed: Vec<(&str, &str)> = v["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs: {v}"))
        .iter()
        .map(|j| (j["name"].as_str().unwrap(), j["id"].as_str().unwrap()))
        .collect();
    let mut want: Vec<(String, String)> =
        jobs().iter().map(|j| (format!("etl.{}", j.name), j.id.to_string())).collect();
    want.sort();
    let want: Vec<(&str, &str)> = want.iter().map(|(n, i)| (n.as_str(), i.as_str())).collect();
    assert_eq!(listed, want, "the API's job list");
    let listed = |name: &str| v["jobs"].as_array().unwrap().iter().find(|j| j["name"] == name).unwrap();
    let next = |name: &str| listed(name)["next_run"].as_str().map(str::to_owned);
    assert_eq!(next("etl.hourly").as_deref(), Some("2026-03-02T13:00:00Z"), "the API: hourly");
    assert_eq!(next("etl.overrun").as_deref(), Some("2026-03-02T12:37:00Z"), "the API: overrun");
    assert_eq!(next("etl.crashed").as_deref(), Some("2026-03-02T13:00:00Z"), "the API: crashed");
    assert_eq!(next("etl.broken"), None, "the API: broken");
    let counts = &listed("etl.overrun")["counts"];
    assert_eq!((&counts["skipped"], &counts["late"], &counts["missed"]), (&1.into(), &1.into(), &0.into()), "{counts}");
    assert_eq!(listed("etl.crashed")["counts"]["missed"], 0, "the API: never missed where nobody can tell");

    let timeline = |id: u32| {
        let state = state.clone();
        async move { api(&state, &format!("/api/instances/jobs/jobs/{id}/timeline?{span}")).await }
    };
    let succeeded = |t: String| (t, "succeeded".to_owned());

    // hourly: every cycle since 00:00 (twelve never sampled but counted), 12:00 going.
    let v = timeline(1).await;
    assert_eq!(v["job"]["name"], "etl.hourly", "{v}");
    let mut want: Vec<(String, String)> = (0..12).map(|h| succeeded(format!("{h:02}:00"))).collect();
    want.push(("12:00".into(), "in_progress".into()));
    assert_eq!(api_runs(&v), want, "the API: hourly");
    let mut want = each("00:00", "13:00", 60, ran);
    want.extend(each("13:00", "24:00", 60, is("upcoming")));
    assert_eq!(api_occurrences(&v), want, "the API: hourly");
    assert_eq!(v["next_run"], "2026-03-02T13:00:00Z", "the API: hourly");

    // overrun: 10:10 skipped while the first cycle ran, 10:20 late at 10:27, the cadence on
    // from there.
    let v = timeline(2).await;
    assert_eq!(v["job"]["name"], "etl.overrun", "{v}");
    let mut want = vec![succeeded("10:00".into()), succeeded("10:27".into())];
    want.extend(each("10:37", "12:30", 10, |_| String::new()).into_iter().map(|(t, _)| succeeded(t)));
    assert_eq!(api_runs(&v), want, "the API: overrun");
    let mut want = vec![
        ("10:00".to_owned(), "ran 10:00".to_owned()),
        ("10:10".into(), "skipped: 10:00 still ran".into()),
        ("10:20".into(), "late 10:27 +420s".into()),
    ];
    want.extend(each("10:37", "12:30", 10, ran));
    want.extend(each("12:37", "24:00", 10, is("upcoming")));
    assert_eq!(api_occurrences(&v), want, "the API: overrun");
    assert_eq!(v["next_run"], "2026-03-02T12:37:00Z", "the API: overrun");

    // stuck: in progress, then crashed after an hour; the hours since missed, for no run.
    let v = timeline(6).await;
    assert_eq!(v["job"]["name"], "etl.stuck", "{v}");
    let want = [succeeded("00:00".into()), succeeded("01:00".into()), ("02:00".into(), "crashed".into())];
    assert_eq!(api_runs(&v), want, "the API: stuck");
    let mut want = each("00:00", "03:00", 60, ran);
    want.extend(each("03:00", "13:00", 60, is("missed: no_run")));
    want.extend(each("13:00", "24:00", 60, is("upcoming")));
    assert_eq!(api_occurrences(&v), want, "the API: stuck");

    // crashed: 02:30 never finished, its runner replaced at 06:00; between, unknown. Its cycle
    // of 12:30 started at the very moment of the read, which saw it going: as of that moment
    // (the API's default `as_of`, the read's own), it has started and answers 12:30, as the
    // read itself and the pages say.
    let v = timeline(5).await;
    assert_eq!(v["job"]["name"], "etl.crashed", "{v}");
    let mut want: Vec<(String, String)> = ["01:00", "01:30", "02:00"].map(|t| succeeded(t.into())).into();
    want.push(("02:30".into(), "crashed".into()));
    want.extend(each("06:00", "12:30", 30, |_| String::new()).into_iter().map(|(t, _)| succeeded(t)));
    want.push(("12:30".into(), "in_progress".into()));
    assert_eq!(api_runs(&v), want, "the API: crashed");
    let mut want = each("01:00", "03:00", 30, ran);
    want.extend(each("03:00", "06:00", 30, is("unknown")));
    want.extend(each("06:00", "13:00", 30, ran));
    want.extend(each("13:00", "24:00", 30, is("upcoming")));
    assert_eq!(api_occurrences(&v), want, "the API: crashed");
    assert_eq!(v["next_run"], "2026-03-02T13:00:00Z", "the API: crashed");
}

#[tokio::test(flavor = "multi_thread")]
async fn job_table_in_postgresql() {
    let pg = TestServer::postgres("sundial-job-table-pg-", port::JOB_TABLE_PG);
    let mut admin = Admin::Postgres(sqlx::PgConnection::connect(&pg.pg_url("postgres")).await.unwrap());
    for sql in ddl_postgres()
        .into_iter()
        .chain(inserts("job"))
        .chain(["CREATE ROLE job_reader LOGIN".to_owned(), "GRANT SELECT ON job TO job_reader".to_owned()])
    {
        admin.exec(&sql).await;
    }
    let pool = server::sources::connect::postgres_url(&pg.pg_url("job_reader"), Duration::from_secs(5)).await.unwrap();
    let mut db = TablesDb::Postgres(pool);
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("store.sqlite");
    let store = Store::open(&store_path).await.unwrap();
    let input = poll_the_day(&mut db, &mut admin, "job", &store, "PostgreSQL").await;
    check(&input, "PostgreSQL");
    drop(store);
    check(&read_again(&mut db, &store_path).await, "PostgreSQL, the store opened again");
}

#[tokio::test(flavor = "multi_thread")]
async fn job_table_in_mariadb() {
    let server = TestServer::mariadb("sundial-job-table-maria-", port::JOB_TABLE_MARIA);
    let mut admin = Admin::MariaDb(server.maria_root().await);
    for sql in ["CREATE DATABASE sched".to_owned(), ddl_mariadb()].into_iter().chain(inserts("sched.job")).chain([
        "CREATE USER job_reader@'127.0.0.1' IDENTIFIED BY 'reader-pw'".to_owned(),
        "GRANT SELECT ON sched.job TO job_reader@'127.0.0.1'".to_owned(),
    ]) {
        admin.exec(&sql).await;
    }
    // MariaDB keeps a zero date where the SQL mode allows it.
    admin.exec("UPDATE sched.job SET job_schedule_start = '0000-00-00 00:00:00' WHERE job_id = 9").await;
    let url = format!("mysql://job_reader:reader-pw@127.0.0.1:{}/sched", port::JOB_TABLE_MARIA);
    let mut db = TablesDb::MySql(server::sources::connect::mysql_url(&url, Duration::from_secs(5)).await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("store.sqlite");
    let store = Store::open(&store_path).await.unwrap();
    let input = poll_the_day(&mut db, &mut admin, "sched.job", &store, "MariaDB").await;
    check(&input, "MariaDB");
    assert!(names_column(&input, "job_schedule_start", "0000-00-00 00:00:00.000000"), "MariaDB");
    drop(store);
    check(&read_again(&mut db, &store_path).await, "MariaDB, the store opened again");
    // Read-only: the reader cannot write, not even through Sundial's session.
    if let TablesDb::MySql(pool) = &db {
        assert!(sqlx::query("UPDATE sched.job SET job_status = 'PAUSED'").execute(pool).await.is_err());
    }
}

/// A store written before it kept states (version 0: a job's last cycle starts as event
/// samples) opens, and what it knew still reads: one cycle per sample, how it ended unknown.
#[tokio::test]
async fn an_older_store_file_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("store.sqlite");
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&store_path).create_if_missing(true);
        let mut c = sqlx::SqliteConnection::connect_with(&options).await.unwrap();
        for sql in [
            "CREATE TABLE event_watch (instance TEXT NOT NULL, event TEXT NOT NULL, first_seen INTEGER NOT NULL, \
             PRIMARY KEY (instance, event))",
            "CREATE TABLE event_sample (instance TEXT NOT NULL, event TEXT NOT NULL, last_executed INTEGER NOT NULL, \
             seen_until INTEGER NOT NULL, PRIMARY KEY (instance, event, last_executed))",
        ] {
            sqlx::query(sql).execute(&mut c).await.unwrap();
        }
        let secs = |hm: &str| at(hm).timestamp();
        sqlx::query("INSERT INTO event_watch VALUES ('jobs', 'job 7', ?)")
            .bind(secs("07:30"))
            .execute(&mut c)
            .await
            .unwrap();
        for (last, until) in [("08:00", "08:30"), ("09:00", "09:30")] {
            sqlx::query("INSERT INTO event_sample VALUES ('jobs', 'job 7', ?, ?)")
                .bind(secs(last))
                .bind(secs(until))
                .execute(&mut c)
                .await
                .unwrap();
        }
    }
    let path = dir.path().join("jobs.sqlite");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
    let mut admin = Admin::Sqlite(sqlx::SqliteConnection::connect_with(&options).await.unwrap());
    admin.exec(&ddl_sqlite()).await;
    admin.exec(
        "INSERT INTO job (job_id, job_owner, job_name, job_procedure_schema, job_procedure_name, job_schedule_start, \
         job_schedule_interval, job_status) VALUES (7, 'etl', 'old', 'etl', 'p_old', '2026-03-02 08:00:00', 3600, 'ENABLED')",
    )
    .await;
    let mut db = TablesDb::Sqlite(server::sources::connect::sqlite(&path).await.unwrap());
    let store = Store::open(&store_path).await.expect("an older store opens");
    let input =
        job_table::read_instance(&mut db, &store, "jobs", chrono_tz::UTC, window(), at("10:40"), DEFAULT_STUCK_AFTER)
            .await
            .unwrap()
            .input;
    let old = &input.jobs[0];
    let runs: Vec<(String, RunOutcome)> = old.runs.iter().map(|r| (hm(r.start), r.outcome)).collect();
    assert_eq!(runs, [("08:00".into(), RunOutcome::Unknown), ("09:00".into(), RunOutcome::Unknown)]);
    assert_eq!(old.history_horizon, Some(at("07:30")), "the first poll the old store remembers");
    assert_eq!(old.unobserved, [Window::new(at("08:30"), at("09:00"))]);
    let report = analyze(&input, window(), at("10:40"), &Settings::default());
    let job = &report.jobs[0];
    assert_eq!(
        occurrences(job)[..3],
        [
            ("08:00".into(), "ran 08:00".into()),
            ("09:00".into(), "ran 09:00".into()),
            ("10:00".into(), "missed: no run".into())
        ]
    );
}
