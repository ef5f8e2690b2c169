//! The msdb source over TDS, end to end through tiberius, against a TDS test server
//! (mssql-mock-tds) that answers Sundial's exact T-SQL with result sets typed as msdb types
//! them: `tinyint` sysjobs.enabled, `int` sysschedules.enabled and freq_*, `int`
//! run_date/run_time/run_duration, `nvarchar` for sysname and for the `uniqueidentifier` and
//! `datetime` columns the T-SQL itself converts to text. No SQL Server can run here; this is
//! as close as the machine allows. A query Sundial sends that is not registered gets an empty
//! result, so a different (say unbounded) history query would fail these assertions.
use crate::support::msdb_tables::{self as mt, m, s, table};
use crate::support::servers::{ends_by_its_own_timeout, silent_port, tds_server, tds_target};
use crate::support::t;
use mssql_mock_tds::{ColumnValue as V, QueryResponse, SqlDataType as T, TerminalError};
use server::sources::SourceError as Error;
use server::sources::msdb::{self, Target};
use std::time::Duration;
use sundial_engine::fleet::analyze;
use sundial_engine::reconcile::{Outcome, Settings};
use sundial_engine::{RunOutcome, Severity, Trigger, Window};

fn denied(object: &str) -> QueryResponse {
    QueryResponse::error_only(TerminalError::new(
        229,
        14,
        format!("The SELECT permission was denied on the object '{object}', database 'msdb', schema 'dbo'."),
    ))
}

const BACKUP: &str = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
const INDEX: &str = "0E984725-C51C-4BF4-9960-E1C80E27ABA0";
const ARCHIVE: &str = "A1B2C3D4-0000-4000-8000-000000000001";
const CORRUPT: &str = "A1B2C3D4-0000-4000-8000-000000000002";

/// A server that answers like an msdb of a New York instance, 2026-03-01 … 2026-03-07.
async fn msdb_server(jobs_denied: bool, old: bool) -> u16 {
    let tds = tds_server().await;
    let registry = tds.registry;
    {
        let mut r = registry.lock().await;
        if old {
            // SQL Server 2017: no CURRENT_TIMEZONE_ID(), only the offset.
            r.register(
                msdb::Q_TIME_ZONE,
                QueryResponse::error_only(TerminalError::new(
                    195,
                    15,
                    "'CURRENT_TIMEZONE_ID' is not a recognized built-in function name.",
                )),
            );
            r.register(msdb::Q_OFFSET, table(&[("offset_minutes", T::Int)], vec![vec![V::Int(-300)]]));
        } else {
            r.register(
                msdb::Q_TIME_ZONE,
                table(
                    &[("tz_id", T::NVarChar), ("offset_minutes", T::Int)],
                    vec![vec![s("Eastern Standard Time"), V::Int(-300)]],
                ),
            );
        }
        if jobs_denied {
            r.register(msdb::Q_JOBS, denied("sysjobs"));
        } else {
            r.register(
                msdb::Q_JOBS,
                table(
                    mt::JOBS,
                    vec![
                        vec![
                            s(ARCHIVE),
                            s("Archive orders"),
                            V::TinyInt(1),
                            m(Some("Data Collector")),
                            s("CORP\\etl_admin"),
                        ],
                        vec![s(BACKUP), s("Backup FULL"), V::TinyInt(1), m(Some("Database Maintenance")), s("sa")],
                        vec![s(CORRUPT), s("Corrupt schedule"), V::TinyInt(1), m(None), s("sa")],
                        vec![s(INDEX), s("Index maintenance"), V::TinyInt(1), m(Some("Database Maintenance")), s("sa")],
                    ],
                ),
            );
        }
        let sched = |job: &str, id: i32, name: &str, ft: i32, fi: i32, rf: i32, start: i32| {
            vec![
                s(job),
                V::Int(id),
                s(name),
                V::Int(1),
                V::Int(ft),
                V::Int(fi),
                V::Int(1),
                V::Int(0),
                V::Int(0),
                V::Int(rf),
                V::Int(20250101),
                V::Int(99991231),
                V::Int(start),
                V::Int(235959),
            ]
        };
        r.register(
            msdb::Q_SCHEDULES,
            table(
                mt::SCHEDULES,
                vec![
                    sched(ARCHIVE, 4, "Saturdays", 8, 64, 1, 10000),
                    sched(BACKUP, 1, "Nightly 02:00", 4, 1, 0, 20000),
                    sched(CORRUPT, 5, "freq_type 3", 3, 1, 0, 0),
                    sched(INDEX, 2, "Sundays 03:00", 8, 1, 1, 30000),
                    sched(INDEX, 3, "1st of month 04:00", 16, 1, 1, 40000),
                ],
            ),
        );
        r.register(
            msdb::Q_HORIZON,
            table(
                mt::HORIZON,
                vec![
                    vec![s(BACKUP), V::Int(1), V::Int(20260201), V::Int(20000), V::Null],
                    vec![s(INDEX), V::Int(2), V::Int(20260201), V::Int(30000), V::Null],
                    vec![s(ARCHIVE), V::Null, V::Null, V::Null, V::Null],
                    vec![s(CORRUPT), V::Null, V::Null, V::Null, V::Null],
                ],
            ),
        );
        // Backup ran at 02:00 every night but 2026-03-05; Index ran both its schedules on
        // Sunday the 1st; one Backup run failed; a manual Backup run on the 6th.
        let mut history = Vec::new();
        // Step rows (step_id > 0), written before their run's outcome row: one per night, and
        // on the 3rd a retry, then the failure.
        let mut steps = Vec::new();
        let step = |id: i32,
                    job: &str,
                    step: i32,
                    name: &str,
                    status: i32,
                    date: i32,
                    time: i32,
                    secs: i32,
                    retries: i32,
                    msg_id: i32,
                    severity: i32,
                    msg: &str| {
            vec![
                V::Int(id),
                s(job),
                V::Int(step),
                s(name),
                V::Int(status),
                V::Int(date),
                V::Int(time),
                V::Int(secs),
                V::Int(retries),
                V::Int(msg_id),
                V::Int(severity),
                s(msg),
            ]
        };
        let mut id = 100;
        for day in [1, 2, 3, 4, 6, 7] {
            id += 10;
            if day == 3 {
                steps.push(step(id - 2, BACKUP, 1, "BACKUP DATABASE", 2, 20260303, 20003, 31, 0, 1205, 13, "Executed as user: NT SERVICE\\SQLSERVERAGENT. Transaction (Process ID 87) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. [SQLSTATE 40001] (Error 1205).  The step failed."));
                steps.push(step(id - 1, BACKUP, 1, "BACKUP DATABASE", 0, 20260303, 20500, 1000, 1, 3013, 16, "Executed as user: NT SERVICE\\SQLSERVERAGENT. Write on \"\\\\backup01\\sql\\SalesDB.bak\" failed: 112(There is not enough space on the disk.) [SQLSTATE 42000] (Error 3202)  BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000] (Error 3013).  The step failed."));
            } else {
                steps.push(step(
                    id - 1,
                    BACKUP,
                    1,
                    "BACKUP DATABASE",
                    1,
                    20260300 + day,
                    20003,
                    1502,
                    0,
                    0,
                    0,
                    "Executed as user: NT SERVICE\\SQLSERVERAGENT. Processed 1000 pages.  The step succeeded.",
                ));
            }
            let (status, msg) = if day == 3 {
                (
                    0,
                    "The job failed.  The Job was invoked by Schedule 1 (Nightly 02:00).  The last step to run was step 1 (BACKUP DATABASE).",
                )
            } else {
                (
                    1,
                    "The job succeeded.  The Job was invoked by Schedule 1 (Nightly 02:00).  The last step to run was step 1 (BACKUP DATABASE).",
                )
            };
            history.push(vec![
                V::Int(id),
                s(BACKUP),
                V::Int(status),
                V::Int(20260300 + day),
                V::Int(20003),
                V::Int(1502),
                V::Int(0),
                s(msg),
            ]);
        }
        history.push(vec![V::Int(200), s(BACKUP), V::Int(1), V::Int(20260306), V::Int(143000), V::Int(300), V::Int(0), s("The job succeeded.  The Job was invoked by User CORP\\dba.  The last step to run was step 1 (BACKUP DATABASE).")]);
        history.push(vec![
            V::Int(201),
            s(INDEX),
            V::Int(1),
            V::Int(20260301),
            V::Int(30001),
            V::Int(10000),
            V::Int(0),
            s("The job succeeded.  The Job was invoked by Schedule 2 (Sundays 03:00)."),
        ]);
        history.push(vec![
            V::Int(202),
            s(INDEX),
            V::Int(1),
            V::Int(20260301),
            V::Int(40000),
            V::Int(5),
            V::Int(0),
            s("The job succeeded.  The Job was invoked by Schedule 3 (1st of month 04:00)."),
        ]);
        // A run of more than 99 hours: run_duration 1234530 is 123:45:30.
        history.push(vec![
            V::Int(203),
            s(ARCHIVE),
            V::Int(1),
            V::Int(20260301),
            V::Int(10000),
            V::Int(1234530),
            V::Int(0),
            s("The job succeeded.  The Job was invoked by Schedule 4 (Saturdays)."),
        ]);
        steps.push(step(
            300,
            ARCHIVE,
            1,
            "Copy orders",
            1,
            20260307,
            170000,
            1500,
            0,
            0,
            0,
            "Executed as user: CORP\\etl. Process Exit Code 0.  The step succeeded.",
        ));
        r.register(msdb::steps_sql(20260228, 20260307), table(mt::STEP_HISTORY, steps));
        // sysjobsteps: step_id int, step_name sysname, subsystem nvarchar(40), the actions
        // tinyint, the steps they go to int; sysjobs.start_step_id int. Archive's step 1 goes
        // to step 3 on success (skipping 2) and to step 2 on failure.
        let job_step = |job: &str, id: i32, name: &str, subsystem: &str, ok: (u8, i32), fail: (u8, i32)| {
            vec![
                s(job),
                V::Int(id),
                s(name),
                s(subsystem),
                V::TinyInt(ok.0),
                V::Int(ok.1),
                V::TinyInt(fail.0),
                V::Int(fail.1),
                V::Int(1),
            ]
        };
        r.register(
            msdb::Q_JOB_STEPS,
            table(
                mt::JOB_STEPS,
                vec![
                    job_step(ARCHIVE, 1, "Copy orders", "CmdExec", (4, 3), (4, 2)),
                    job_step(ARCHIVE, 2, "Restore the copy", "TSQL", (2, 0), (2, 0)),
                    job_step(ARCHIVE, 3, "Purge copied orders", "TSQL", (1, 0), (2, 0)),
                    job_step(BACKUP, 1, "BACKUP DATABASE", "TSQL", (1, 0), (2, 0)),
                ],
            ),
        );
        r.register(msdb::history_sql(20260228, 20260307), table(mt::OUTCOME_HISTORY, history));
        r.register(
            msdb::Q_ACTIVITY,
            table(
                mt::ACTIVITY,
                vec![
                    // Archive started by hand and still running: step 1 succeeded (it began at
                    // 17:00:00.000), so step 3 executes (its on-success go-to), not step 2.
                    vec![
                        s(ARCHIVE),
                        s("2026-03-07T17:00:00.000"),
                        m(None),
                        s("4"),
                        V::Int(1),
                        m(Some("2026-03-07T17:00:00.000")),
                        s("2026-03-14T01:00:00.000"),
                    ],
                    // The Agent thinks Backup next runs on the 9th; the schedule says the 8th.
                    vec![
                        s(BACKUP),
                        s("2026-03-07T02:00:03.000"),
                        m(Some("2026-03-07T02:15:05.000")),
                        s("1"),
                        V::Int(1),
                        m(Some("2026-03-07T02:00:03.000")),
                        s("2026-03-09T02:00:00.000"),
                    ],
                    vec![
                        s(INDEX),
                        s("2026-03-01T04:00:00.000"),
                        m(Some("2026-03-01T04:00:05.000")),
                        s("1"),
                        V::Null,
                        m(None),
                        s("2026-03-08T03:00:00.000"),
                    ],
                ],
            ),
        );
        r.register(
            msdb::Q_SESSIONS,
            table(mt::SESSIONS, vec![vec![s("2026-03-03T09:15:00.000")], vec![s("2026-01-10T08:00:00.000")]]),
        );
        if old {
            r.register(msdb::Q_RETENTION, table(mt::RETENTION, vec![vec![V::Int(1000), V::Int(100)]]));
        } else {
            r.register(msdb::Q_RETENTION, QueryResponse::error_only(TerminalError::new(229, 14, "The EXECUTE permission was denied on the object 'sp_get_sqlagent_properties', database 'msdb', schema 'dbo'.")));
        }
    }
    tds.port
}

fn target(port: u16, password: &str) -> Target {
    tds_target(port, "sundial_reader", password)
}

#[tokio::test]
async fn msdb_over_tds_reads_jobs_schedules_history_activity_and_sessions() {
    let port = msdb_server(false, false).await;
    let mut client = msdb::connect(&target(port, "s3cret"), Duration::from_secs(5)).await.expect("connect");
    let window = Window::new(t("2026-03-01T00:00:00Z"), t("2026-03-07T23:00:00Z"));
    let now = window.end;
    let mut read = msdb::read_instance(&mut client, "SQLPROD01", None, window, now).await.expect("read");
    // The cross-check of the Agent's own next run is the one every kind shares, after the read.
    server::sources::finish(&mut read);
    let (input, notes) = (read.input, read.notes);

    assert_eq!(
        input.tz,
        sundial_engine::Zone::Named(chrono_tz::America::New_York),
        "CURRENT_TIMEZONE_ID 'Eastern Standard Time'"
    );
    assert!(
        notes.iter().any(|n| n.message.contains("sp_get_sqlagent_properties")),
        "retention unreadable is said: {notes:?}"
    );
    assert_eq!(input.agent_starts, [t("2026-01-10T13:00:00Z"), t("2026-03-03T14:15:00Z")]);
    let names: Vec<&str> = input.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["Archive orders", "Backup FULL", "Corrupt schedule", "Index maintenance"]);
    let [archive, backup, corrupt, index] = [&input.jobs[0], &input.jobs[1], &input.jobs[2], &input.jobs[3]];
    assert_eq!(backup.id, BACKUP);
    // The category and the owner apart, as SSMS shows them: the owner is SUSER_SNAME(owner_sid).
    assert_eq!(backup.category, "Database Maintenance");
    assert_eq!(backup.owner.as_deref(), Some("sa"));
    assert_eq!(archive.owner.as_deref(), Some("CORP\\etl_admin"));
    assert_eq!(corrupt.category, "[Uncategorized (Local)]", "a job whose category is gone");
    assert_eq!(index.schedules.len(), 2, "several schedules per job");

    // History: step 0 rows as runs, local times in New York, durations decoded.
    assert_eq!(backup.runs.len(), 7);
    assert_eq!(backup.runs[0].start, t("2026-03-01T07:00:03Z"));
    assert_eq!(backup.runs[0].duration_secs, 15 * 60 + 2);
    assert_eq!(backup.runs[2].outcome, RunOutcome::Failed);
    assert_eq!(backup.runs[2].trigger, Trigger::Schedule(Some(1)));
    // Its steps, from the step rows between the previous outcome row and its own: the retried
    // attempt, then the failure, with msdb's numbers and the subsystem from sysjobsteps.
    let failed = &backup.runs[2];
    assert!(failed.message.starts_with("The job failed."), "the run's own message stays msdb's: {}", failed.message);
    let shown = |s: &sundial_engine::Step| {
        format!(
            "{} {} {:?} retries={} error={} severity={} {:?}s {}",
            s.id, s.name, s.outcome, s.retries, s.sql_message_id, s.sql_severity, s.duration_secs, s.subsystem
        )
    };
    let steps: Vec<String> = failed.steps.iter().map(shown).collect();
    assert_eq!(
        steps,
        [
            "1 BACKUP DATABASE Some(Retry) retries=0 error=1205 severity=13 Some(31)s TSQL",
            "1 BACKUP DATABASE Some(Failed) retries=1 error=3013 severity=16 Some(600)s TSQL",
        ]
    );
    assert_eq!(failed.steps[1].start, Some(t("2026-03-03T07:05:00Z")));
    let why = failed.why();
    assert!(why.starts_with("step 1 (BACKUP DATABASE): Write on "), "the failed step's own words: {why}");
    assert!(why.contains("BACKUP DATABASE is terminating abnormally."), "{why}");
    assert!(!why.contains("The job failed") && !why.contains("Executed as user"), "{why}");
    assert_eq!(backup.runs[1].steps.len(), 1, "steps of other runs stay theirs");
    assert_eq!(backup.runs[1].steps[0].outcome, Some(RunOutcome::Succeeded));
    let manual = backup.runs.iter().find(|r| r.trigger == Trigger::Manual).expect("the manual run");
    assert_eq!(manual.start, t("2026-03-06T19:30:00Z"));
    assert_eq!(archive.runs[0].duration_secs, 123 * 3600 + 45 * 60 + 30, "run_duration over 99 hours");
    // sysjobactivity: Archive is running now, started by a user.
    let running = archive.runs.last().unwrap();
    assert_eq!(
        (running.outcome, &running.trigger, running.start),
        (RunOutcome::InProgress, &Trigger::Manual, t("2026-03-07T22:00:00Z"))
    );
    // Its step done, and the one executing now (last_executed_step_id 1, which succeeded: its
    // on_success_action 4 goes to step 3, as sysjobsteps names it), after the Archive job's
    // last outcome row.
    let going: Vec<(i64, &str, Option<RunOutcome>)> =
        running.steps.iter().map(|s| (s.id, s.name.as_str(), s.outcome)).collect();
    assert_eq!(
        going,
        [(1, "Copy orders", Some(RunOutcome::Succeeded)), (3, "Purge copied orders", Some(RunOutcome::InProgress))]
    );
    assert_eq!(running.steps[1].start, Some(t("2026-03-07T22:15:00Z")), "when step 1 ended");
    // A corrupt schedule is a diagnostic on its job, not a failed read.
    assert!(
        corrupt.diagnostics.iter().chain(&notes).any(|d| d.field.as_deref() == Some("freq_type")) || {
            let r = analyze(&input, window, now, &Settings::default());
            r.jobs
                .iter()
                .find(|j| j.name == "Corrupt schedule")
                .unwrap()
                .diagnostics
                .iter()
                .any(|d| d.field.as_deref() == Some("freq_type"))
        }
    );
    // The Agent's next run disagrees with Sundial's forecast: a warning on that job only.
    let cross = |j: &sundial_engine::fleet::JobInput| {
        j.diagnostics.iter().any(|d| d.field.as_deref() == Some("next_scheduled_run_date"))
    };
    assert!(cross(backup), "{:?}", backup.diagnostics);
    assert!(
        // The Agent's wall time as it keeps it, and the instant it means, zoned (EDT: UTC-4).
        backup.diagnostics.iter().any(|d| d.severity == Severity::Warning
            && d.value.as_deref() == Some("2026-03-09 02:00:00")
            && d.message.contains("2026-03-09 06:00:00 UTC")),
        "{:?}",
        backup.diagnostics
    );
    assert!(!cross(index), "the Agent agrees about Index maintenance: {:?}", index.diagnostics);

    // The engine over it: the night of the 5th is missed, the failed run is on time.
    let report = analyze(&input, window, now, &Settings::default());
    let backup = report.jobs.iter().find(|j| j.name == "Backup FULL").unwrap();
    assert_eq!(backup.missed, 1);
    let (missed_at, _) = backup
        .forecast
        .occurrences
        .iter()
        .zip(&backup.reconciliation.outcomes)
        .find(|(_, o)| matches!(o, Outcome::Missed { .. }))
        .unwrap();
    assert_eq!(missed_at.at, t("2026-03-05T07:00:00Z"));
    let index = report.jobs.iter().find(|j| j.name == "Index maintenance").unwrap();
    assert_eq!(index.forecast.occurrences.len(), 2);
    assert!(
        index.reconciliation.outcomes.iter().all(|o| matches!(o, Outcome::OnTime { .. })),
        "{:?}",
        index.reconciliation.outcomes
    );
}

#[tokio::test]
async fn a_refused_query_names_the_missing_permission_and_no_secret() {
    let port = msdb_server(true, false).await;
    let mut client = msdb::connect(&target(port, "s3cret"), Duration::from_secs(5)).await.unwrap();
    let window = Window::new(t("2026-03-01T00:00:00Z"), t("2026-03-07T23:00:00Z"));
    let e =
        msdb::read_instance(&mut client, "SQLPROD01", None, window, window.end).await.expect_err("sysjobs is refused");
    assert!(matches!(&e, Error::Permission { object, .. } if object == "msdb.dbo.sysjobs"), "{e:?}");
    assert!(e.to_string().contains("SQLAgentReaderRole"), "{e}");

    // Nothing listening: a clear error, without the password.
    let e = msdb::connect(&target(1, "s3cret"), Duration::from_secs(2)).await.expect_err("port 1");
    assert!(matches!(e, Error::Unreachable { .. }) && !e.to_string().contains("s3cret"), "{e}");
    // A server that accepts and never answers: the connect's own timeout ends the wait, with the
    // same clear error saying so (a hang would reach the test's guard instead), no password.
    let silent = silent_port().await;
    let e = ends_by_its_own_timeout("msdb::connect", msdb::connect(&target(silent, "s3cret"), Duration::from_secs(1)))
        .await
        .expect_err("a silent server");
    assert!(matches!(e, Error::Timeout(_)) && e.to_string().contains("no answer within 1s"), "{e:?}");
    assert!(!e.to_string().contains("s3cret"), "{e}");
}

#[tokio::test]
async fn an_older_server_gives_its_offset_and_a_readable_retention() {
    let port = msdb_server(false, true).await;
    let mut client = msdb::connect(&target(port, "s3cret"), Duration::from_secs(5)).await.unwrap();
    let window = Window::new(t("2026-03-01T00:00:00Z"), t("2026-03-07T23:00:00Z"));
    let read = msdb::read_instance(&mut client, "SQL2017", None, window, window.end).await.expect("read");
    let (input, notes) = (read.input, read.notes);
    assert_eq!(input.tz, sundial_engine::Zone::Named(chrono_tz::Etc::GMTPlus5), "UTC-5 as a fixed zone");
    assert!(
        notes.iter().any(|n| n.severity == Severity::Warning && n.message.contains("no daylight saving")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.message.contains("at most 1000 job history rows, 100 per job")), "{notes:?}");
    // A configured zone wins and asks the server nothing.
    let read = msdb::read_instance(&mut client, "SQL2017", Some(chrono_tz::America::Chicago), window, window.end)
        .await
        .unwrap();
    let (input, notes) = (read.input, read.notes);
    assert_eq!(input.tz, sundial_engine::Zone::Named(chrono_tz::America::Chicago));
    assert!(!notes.iter().any(|n| n.severity == Severity::Warning), "{notes:?}");
}
