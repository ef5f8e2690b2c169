//! The demo's pgAgent instance ([`super::PGAGENT_INSTANCE`], pgAdmin's job scheduler on a
//! PostgreSQL whose `TimeZone` is [`ZONE`]): its eight tables with pgAgent's own columns
//! (`pga_job`, `pga_jobclass`, `pga_jobstep`, `pga_schedule`, `pga_exception`, `pga_joblog`,
//! `pga_jobsteplog`, `pga_jobagent`) and `pg_settings` (`TimeZone`), with a month of history of
//! six jobs: a nightly vacuum/analyze, an hourly partition roll, a quarter-hourly queue drain (in
//! the day), a weekday-morning report, a reporting views refresh before it, and a month-end close
//! on the month's last day (`jscmonthdays` slot 32).
//!
//! Runs are made the way pgAgent makes them: each job's next time is
//! [`pga_next_schedule`] computed when its previous run **ended** (the trigger's `now()`), and
//! the job starts within the agent's poll (a few seconds) after it. Its planted trouble
//! ([`story`]):
//!
//! - **The agent died for a night**: from 01:10 to 06:40 local three nights before `now` no
//!   agent ran. The new agent's login is the one `pga_jobagent` row (the dead agent's row went
//!   when the new one started). At 06:40 each job whose `jobnextrun` had passed ran **once**,
//!   at once, late (pgAgent's catch-up); its next time was computed from when that run ended,
//!   so the times in between never ran.
//! - **A step that fails**: [`FAILING_JOB`]'s second step ([`FAILING_STEP`]) fails every few
//!   days, unable to lock the month's `orders` partition (`jslstatus` and `jlgstatus` `f`).
//! - **An exception date**: [`HOLIDAY_JOB`] has a `pga_exception` row for a weekday of last week
//!   (a company holiday): no run was due that day.
//!
//! Pure and reproducible from `now` and the seed; times are written as PostgreSQL prints a
//! `timestamptz` in UTC (`2026-11-19 11:40:03.214583+00`).
use super::tables::{Table, Val};
use crate::sources::msdb_rows::{local_to_utc, utc_to_local};
use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, Utc, Weekday};
use chrono_tz::Tz;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sundial_engine::Window;
use sundial_engine::pgagent::{NextRun, PgAgentException, PgAgentSchedule, pga_next_schedule};

/// The server's `TimeZone`, the zone pgAgent computes schedules in.
pub const ZONE: &str = "America/New_York";
/// Its second step fails every few days.
pub const FAILING_JOB: &str = "Roll order partitions";
/// The step of [`FAILING_JOB`] that fails.
pub const FAILING_STEP: &str = "detach old partitions";
/// Has a `pga_exception` row: a holiday of last week.
pub const HOLIDAY_JOB: &str = "Daily sales report";
/// The agent's host (`pga_jobagent.jagstation`).
pub const STATION: &str = "batch01.corp";
/// The live agent's backend pid.
pub const AGENT_PID: i64 = 41_873;
/// Days of history the file holds (Sundial reads 30).
const DAYS: i64 = 31;
/// How often the agent looks for due jobs (`pgagent -t`, 10 s by default): a job starts within it.
const POLL_MS: i64 = 10_000;

/// The demo's pgAgent events, all derived from `now`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Story {
    /// No agent ran: `[01:10, 06:40)` local, three nights before `now`; its end is the new
    /// agent's login (`pga_jobagent.jaglogintime`).
    pub down: Window,
    /// [`HOLIDAY_JOB`]'s exception date: the last weekday on or before a week before `now`.
    pub holiday: NaiveDate,
}

/// The instance's events for `now`.
pub fn story(now: DateTime<Utc>) -> Story {
    let tz = tz();
    let today = utc_to_local(now, tz).date();
    let night = today - Duration::days(3);
    let at = |h, m, s| local_to_utc(night.and_time(NaiveTime::from_hms_opt(h, m, s).expect("a valid time")), tz);
    let mut holiday = today - Duration::days(7);
    while matches!(holiday.weekday(), Weekday::Sat | Weekday::Sun) {
        holiday -= Duration::days(1);
    }
    Story { down: Window::new(at(1, 10, 0), at(6, 40, 2)), holiday }
}

fn tz() -> Tz {
    ZONE.parse().expect("the demo's zone is an IANA zone")
}

/// One step of a demo job: (name, kind `s` SQL or `b` batch, code, output when it succeeds).
type DemoStep = (&'static str, &'static str, &'static str, &'static str);

/// One demo job: id, class id, name, description, (minutes, hours, weekdays, month days) set,
/// its steps, and how long a run takes (seconds, low and high).
struct DemoJob {
    id: i64,
    class: i64,
    name: &'static str,
    description: &'static str,
    minutes: &'static [u32],
    hours: &'static [u32],
    weekdays: &'static [u32],
    monthdays: &'static [u32],
    steps: &'static [DemoStep],
    secs: (i64, i64),
}

const CLASSES: [(i64, &str); 4] =
    [(1, "Routine Maintenance"), (2, "Data Import"), (3, "Data Export"), (4, "Data Summarisation")];

const JOBS: [DemoJob; 6] = [
    DemoJob {
        id: 1,
        class: 1,
        name: "Nightly vacuum analyze",
        description: "VACUUM (ANALYZE) the busy tables",
        minutes: &[30],
        hours: &[2],
        weekdays: &[],
        monthdays: &[],
        steps: &[
            ("vacuum orders", "s", "VACUUM (ANALYZE) public.orders;", ""),
            ("vacuum order_lines", "s", "VACUUM (ANALYZE) public.order_lines;", ""),
        ],
        secs: (6 * 60, 14 * 60),
    },
    DemoJob {
        id: 2,
        class: 1,
        name: FAILING_JOB,
        description: "Create the next hour's partitions of orders; detach the ones past retention",
        minutes: &[0],
        hours: &[],
        weekdays: &[],
        monthdays: &[],
        steps: &[
            ("create next partitions", "s", "CALL ops.create_partitions('public.orders', interval '1 hour');", ""),
            (FAILING_STEP, "s", "CALL ops.detach_partitions('public.orders', keep => interval '90 days');", ""),
        ],
        secs: (2, 20),
    },
    DemoJob {
        id: 3,
        class: 3,
        name: "Drain outbound mail queue",
        description: "Send queued customer e-mails in batches of 500",
        minutes: &[0, 15, 30, 45],
        hours: &[7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
        weekdays: &[],
        monthdays: &[],
        steps: &[("drain queue", "s", "SELECT mail.drain_queue(500);", "")],
        secs: (1, 25),
    },
    DemoJob {
        id: 4,
        class: 4,
        name: "Refresh reporting views",
        description: "Refresh the materialized views the morning reports read",
        minutes: &[15],
        hours: &[5],
        weekdays: &[],
        monthdays: &[],
        steps: &[
            ("refresh sales_daily_mv", "s", "REFRESH MATERIALIZED VIEW CONCURRENTLY reporting.sales_daily_mv;", ""),
            ("refresh stock_mv", "s", "REFRESH MATERIALIZED VIEW CONCURRENTLY reporting.stock_mv;", ""),
        ],
        secs: (60, 240),
    },
    DemoJob {
        id: 5,
        class: 4,
        name: HOLIDAY_JOB,
        description: "Yesterday's sales by region, mailed to sales-leads@",
        minutes: &[0],
        hours: &[7],
        // Monday to Friday (slot 1 is Sunday).
        weekdays: &[2, 3, 4, 5, 6],
        monthdays: &[],
        steps: &[
            ("build report", "s", "CALL reporting.build_daily_sales(current_date - 1);", ""),
            ("mail report", "b", "/opt/reports/send_daily_sales.sh", "sent to sales-leads@example.com\n"),
        ],
        secs: (40, 120),
    },
    DemoJob {
        id: 6,
        class: 4,
        name: "Month-end close",
        description: "Close the ledger period on the month's last day",
        minutes: &[0],
        hours: &[6],
        weekdays: &[],
        // Slot 32: the last day of the month.
        monthdays: &[32],
        steps: &[("close ledger period", "s", "CALL ledger.close_period(date_trunc('month', now())::date);", "")],
        secs: (5 * 60, 10 * 60),
    },
];

/// `n` slots as PostgreSQL prints a `bool[]`, `set` (1-based) true.
fn array(n: u32, set: &[u32]) -> String {
    let cells: Vec<&str> = (1..=n).map(|i| if set.contains(&i) { "t" } else { "f" }).collect();
    format!("{{{}}}", cells.join(","))
}

/// A `timestamptz` as PostgreSQL prints it in a UTC session.
fn ts(t: DateTime<Utc>) -> String {
    format!("{}+00", t.naive_utc().format("%Y-%m-%d %H:%M:%S%.6f"))
}

/// An `interval` as PostgreSQL prints it.
fn interval(ms: i64) -> String {
    let s = ms / 1000;
    format!("{:02}:{:02}:{:02}.{:06}", s / 3600, s / 60 % 60, s % 60, (ms % 1000) * 1000)
}

/// A `pga_jobsteplog` row to be: jstid, status, result, start, duration (ms), output.
type StepLog = (i64, &'static str, Option<i64>, DateTime<Utc>, Option<i64>, Option<String>);
/// A `pga_joblog` row to be: start, jobid, status, duration (ms), its steps.
type RunLog = (DateTime<Utc>, i64, &'static str, Option<i64>, Vec<StepLog>);

/// pgAgent's tables for `now` and `seed` (see the module docs).
pub fn pgagent(now: DateTime<Utc>, seed: u64) -> Vec<Table> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x009A_6E47);
    let tz = tz();
    let story = story(now);
    let history = Window::ending_at(now, Duration::days(DAYS));
    let created = local_to_utc(
        (utc_to_local(now, tz).date() - Duration::days(200))
            .and_time(NaiveTime::from_hms_opt(10, 12, 31).expect("valid")),
        tz,
    );
    let login = story.down.end;

    let mut job_rows = Vec::new();
    let mut step_rows = Vec::new();
    let mut schedule_rows = Vec::new();
    let mut exception_rows = Vec::new();
    let mut runs: Vec<RunLog> = Vec::new();
    let mut jstid = 0;
    for job in &JOBS {
        let first_step = jstid + 1;
        for (name, kind, code, _) in job.steps {
            jstid += 1;
            step_rows.push(vec![
                jstid.into(),
                job.id.into(),
                (*name).into(),
                "".into(),
                "t".into(),
                (*kind).into(),
                (*code).into(),
                "".into(),
                "shop".into(),
                // On error: fail the job (pgAgent's default).
                "f".into(),
                Val::Null,
            ]);
        }
        let schedule = PgAgentSchedule {
            jscid: Some(job.id.to_string()),
            jscjobid: Some(job.id.to_string()),
            jscname: Some(format!("{} schedule", job.name)),
            jscenabled: Some("true".into()),
            jscstart: Some(ts(created).replace(".000000", "")),
            jscend: None,
            jscminutes: Some(array(60, &job.minutes.iter().map(|m| m + 1).collect::<Vec<_>>())),
            jschours: Some(array(24, &job.hours.iter().map(|h| h + 1).collect::<Vec<_>>())),
            jscweekdays: Some(array(7, job.weekdays)),
            jscmonthdays: Some(array(32, job.monthdays)),
            jscmonths: Some(array(12, &[])),
            exceptions: if job.name == HOLIDAY_JOB {
                vec![PgAgentException {
                    jexid: Some("1".into()),
                    jexdate: Some(story.holiday.format("%Y-%m-%d").to_string()),
                    jextime: None,
                }]
            } else {
                Vec::new()
            },
        };
        for e in &schedule.exceptions {
            exception_rows.push(vec![1.into(), job.id.into(), e.jexdate.clone().into(), Val::Null]);
        }
        schedule_rows.push(vec![
            job.id.into(),
            job.id.into(),
            schedule.jscname.clone().into(),
            "".into(),
            "t".into(),
            schedule.jscstart.clone().into(),
            Val::Null,
            schedule.jscminutes.clone().into(),
            schedule.jschours.clone().into(),
            schedule.jscweekdays.clone().into(),
            schedule.jscmonthdays.clone().into(),
            schedule.jscmonths.clone().into(),
        ]);

        // The chain of runs: each next time computed when the run before ended.
        let next = |after: DateTime<Utc>| match pga_next_schedule(&schedule, tz.into(), after).0 {
            NextRun::At(t) => Some(t),
            _ => None,
        };
        let mut due = next(history.start);
        let mut running: Option<DateTime<Utc>> = None;
        while let Some(at) = due {
            let poll = Duration::milliseconds(rng.random_range(200..POLL_MS));
            // The agent was gone: it runs the job as soon as it is back, once.
            let start = if at < login && at + poll >= story.down.start { login + poll } else { at + poll };
            if start >= now {
                break;
            }
            let ms = rng.random_range(job.secs.0 * 1000..=job.secs.1 * 1000);
            let fails = job.name == FAILING_JOB && rng.random_bool(0.015);
            // The steps share the run's time; the failing step ends the run (on error: fail).
            let mut steps = Vec::new();
            let mut t = start + Duration::milliseconds(3);
            let n = job.steps.len() as i64;
            let mut status = "s";
            for (i, (_, _, _, ok)) in job.steps.iter().enumerate() {
                let share = ms / n;
                let id = first_step + i as i64;
                if t + Duration::milliseconds(share) > now {
                    steps.push((id, "r", None, t, None, None));
                    status = "r";
                    break;
                }
                let failed = fails && i == 1;
                let local = utc_to_local(t, tz);
                let output = if failed {
                    format!(
                        "ERROR:  could not obtain lock on relation \"orders_{}_{:02}\"\nCONTEXT:  SQL statement \
                         \"ALTER TABLE public.orders DETACH PARTITION public.orders_{}_{:02}\"\nPL/pgSQL function \
                         ops.detach_partitions(regclass,interval) line 23 at EXECUTE",
                        local.year(),
                        local.month(),
                        local.year(),
                        local.month()
                    )
                } else {
                    (*ok).to_owned()
                };
                let (s, result) = if failed { ("f", -1) } else { ("s", 0) };
                steps.push((id, s, Some(result), t, Some(share), Some(output)));
                t += Duration::milliseconds(share);
                if failed {
                    status = "f";
                    break;
                }
            }
            let end = t;
            if status == "r" {
                runs.push((start, job.id, "r", None, steps));
                running = Some(at);
                break;
            }
            runs.push((start, job.id, status, Some((end - start).num_milliseconds()), steps));
            due = next(end);
        }
        // The agent's own next run: NULL once computed past an end; the time it ran for while running.
        let nextrun = running.or(due);
        job_rows.push(vec![
            job.id.into(),
            job.class.into(),
            job.name.into(),
            job.description.into(),
            "".into(),
            "t".into(),
            ts(created).into(),
            ts(created).into(),
            runs.iter().rev().find(|r| r.1 == job.id).map(|r| ts(r.0)).into(),
            nextrun.map(ts).into(),
            running.map(|_| AGENT_PID).into(),
        ]);
    }
    runs.sort_by_key(|r| r.0);
    let mut joblog = Vec::new();
    let mut steplog = Vec::new();
    for (i, (start, jobid, status, ms, steps)) in runs.into_iter().enumerate() {
        let jlgid = i as i64 + 1;
        if start < history.start {
            continue;
        }
        joblog.push(vec![jlgid.into(), jobid.into(), status.into(), ts(start).into(), ms.map(interval).into()]);
        for (id, s, result, at, ms, output) in steps {
            steplog.push(vec![
                (steplog.len() as i64 + 1).into(),
                jlgid.into(),
                id.into(),
                s.into(),
                result.into(),
                ts(at).into(),
                ms.map(interval).into(),
                output.into(),
            ]);
        }
    }

    vec![
        Table {
            name: "pga_jobagent",
            create: "CREATE TABLE pga_jobagent (jagpid INTEGER NOT NULL PRIMARY KEY, \
                     jaglogintime TEXT NOT NULL, jagstation TEXT NOT NULL)",
            columns: &["jagpid", "jaglogintime", "jagstation"],
            rows: vec![vec![AGENT_PID.into(), ts(login).into(), STATION.into()]],
        },
        Table {
            name: "pga_jobclass",
            create: "CREATE TABLE pga_jobclass (jclid INTEGER NOT NULL PRIMARY KEY, jclname TEXT NOT NULL)",
            columns: &["jclid", "jclname"],
            rows: CLASSES.iter().map(|(id, name)| vec![(*id).into(), (*name).into()]).collect(),
        },
        Table {
            name: "pga_job",
            create: "CREATE TABLE pga_job (jobid INTEGER NOT NULL PRIMARY KEY, jobjclid INTEGER NOT NULL, \
                     jobname TEXT NOT NULL, jobdesc TEXT NOT NULL DEFAULT '', jobhostagent TEXT NOT NULL DEFAULT '', \
                     jobenabled BOOLEAN NOT NULL DEFAULT 't', jobcreated TEXT NOT NULL, jobchanged TEXT NOT NULL, \
                     joblastrun TEXT, jobnextrun TEXT, jobagentid INTEGER)",
            columns: &[
                "jobid",
                "jobjclid",
                "jobname",
                "jobdesc",
                "jobhostagent",
                "jobenabled",
                "jobcreated",
                "jobchanged",
                "joblastrun",
                "jobnextrun",
                "jobagentid",
            ],
            rows: job_rows,
        },
        Table {
            name: "pga_jobstep",
            create: "CREATE TABLE pga_jobstep (jstid INTEGER NOT NULL PRIMARY KEY, jstjobid INTEGER NOT NULL, \
                     jstname TEXT NOT NULL, jstdesc TEXT NOT NULL DEFAULT '', jstenabled BOOLEAN NOT NULL DEFAULT 't', \
                     jstkind CHAR NOT NULL, jstcode TEXT NOT NULL, jstconnstr TEXT NOT NULL DEFAULT '', \
                     jstdbname TEXT NOT NULL DEFAULT '', jstonerror CHAR NOT NULL DEFAULT 'f', jscnextrun TEXT)",
            columns: &[
                "jstid",
                "jstjobid",
                "jstname",
                "jstdesc",
                "jstenabled",
                "jstkind",
                "jstcode",
                "jstconnstr",
                "jstdbname",
                "jstonerror",
                "jscnextrun",
            ],
            rows: step_rows,
        },
        Table {
            name: "pga_schedule",
            create: "CREATE TABLE pga_schedule (jscid INTEGER NOT NULL PRIMARY KEY, jscjobid INTEGER NOT NULL, \
                     jscname TEXT NOT NULL, jscdesc TEXT NOT NULL DEFAULT '', jscenabled BOOLEAN NOT NULL DEFAULT 't', \
                     jscstart TEXT NOT NULL, jscend TEXT, jscminutes TEXT NOT NULL, jschours TEXT NOT NULL, \
                     jscweekdays TEXT NOT NULL, jscmonthdays TEXT NOT NULL, jscmonths TEXT NOT NULL)",
            columns: &[
                "jscid",
                "jscjobid",
                "jscname",
                "jscdesc",
                "jscenabled",
                "jscstart",
                "jscend",
                "jscminutes",
                "jschours",
                "jscweekdays",
                "jscmonthdays",
                "jscmonths",
            ],
            rows: schedule_rows,
        },
        Table {
            name: "pga_exception",
            create: "CREATE TABLE pga_exception (jexid INTEGER NOT NULL PRIMARY KEY, jexscid INTEGER NOT NULL, \
                     jexdate TEXT, jextime TEXT)",
            columns: &["jexid", "jexscid", "jexdate", "jextime"],
            rows: exception_rows,
        },
        Table {
            name: "pga_joblog",
            create: "CREATE TABLE pga_joblog (jlgid INTEGER NOT NULL PRIMARY KEY, jlgjobid INTEGER NOT NULL, \
                     jlgstatus CHAR NOT NULL DEFAULT 'r', jlgstart TEXT NOT NULL, jlgduration TEXT)",
            columns: &["jlgid", "jlgjobid", "jlgstatus", "jlgstart", "jlgduration"],
            rows: joblog,
        },
        Table {
            name: "pga_jobsteplog",
            create: "CREATE TABLE pga_jobsteplog (jslid INTEGER NOT NULL PRIMARY KEY, jsljlgid INTEGER NOT NULL, \
                     jsljstid INTEGER NOT NULL, jslstatus CHAR NOT NULL DEFAULT 'r', jslresult INTEGER, \
                     jslstart TEXT NOT NULL, jslduration TEXT, jsloutput TEXT)",
            columns: &[
                "jslid",
                "jsljlgid",
                "jsljstid",
                "jslstatus",
                "jslresult",
                "jslstart",
                "jslduration",
                "jsloutput",
            ],
            rows: steplog,
        },
        Table {
            name: "pg_settings",
            create: "CREATE TABLE pg_settings (name TEXT NOT NULL PRIMARY KEY, setting TEXT)",
            columns: &["name", "setting"],
            rows: vec![vec!["TimeZone".into(), ZONE.into()]],
        },
    ]
}
