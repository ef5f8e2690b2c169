//! Bad input, fuzzed: every parser of text or row values that come from outside (a scheduler's
//! tables, a pasted row, zone rules sent as data, a URL's filter key) is fed generated input,
//! structured where a grammar exists (cron fields, interval values, timestamps, JSON rows) and
//! raw where not, and must never panic. Bad input must come back as diagnostics that name the
//! field, and forecasts must stay ordered and inside their window.
//!
//! `SUNDIAL_FUZZ_CASES` sets the inputs per harness (default 256, what `cargo test` runs);
//! `make fuzz` runs 100,000 in a release build. Each harness prints `fuzz <name>: <N> inputs,
//! no panic` to stderr. A failure is shrunk to a minimal input by proptest and becomes a
//! plain `#[test]` in `regressions` below.
use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use sundial_engine::cron::{self, CronSchedule};
use sundial_engine::edit::{self, Dialect};
use sundial_engine::fleet::{self, InstanceInput, JobInput, JobSchedule};
use sundial_engine::job_table::{self, CycleSample, JobTableRow};
use sundial_engine::log::LogKind;
use sundial_engine::mysql_event::{self, MysqlEvent};
use sundial_engine::pgagent::{self, PgAgentException, PgAgentSchedule};
use sundial_engine::primentra::{self, QueueState, SchedulerConfiguration};
use sundial_engine::reconcile::Settings;
use sundial_engine::service_broker::{self, ServiceBrokerJob};
use sundial_engine::{
    self as engine, AgentSchedule, Diagnostic, Forecast, Run, RunOutcome, Schedule, Severity, Trigger, Window, Zone,
    ZoneRules, agent, describe, dialect, durations, history,
};

/// Inputs per harness: `SUNDIAL_FUZZ_CASES`, else 256.
#[path = "../fuzz_runner/mod.rs"]
mod fuzz_runner;
use fuzz_runner::fuzz;

// ---------------------------------------------------------------------------------------------
// Generators

/// Values sources really hold, and their near misses.
const TOKENS: &[&str] = &[
    "",
    " ",
    "0",
    "1",
    "-1",
    "00",
    "07",
    "59",
    "60",
    "23",
    "24",
    "31",
    "32",
    "99",
    "100",
    "255",
    "256",
    "2147483647",
    "-2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "1e3",
    "1.5",
    "0x10",
    "NaN",
    "null",
    "NULL",
    "true",
    "false",
    "*",
    "*/0",
    "*/15",
    "1-5",
    "5-1",
    "1-5/2",
    "1,2,3",
    ",",
    "$",
    "L",
    "W",
    "#",
    "?",
    "@daily",
    "@reboot",
    "@yearly",
    "@",
    "MON",
    "mon-fri",
    "JAN",
    "Mon,Tue",
    "Sun",
    "2026-11-22 09:00:00",
    "2026-11-22T09:00:00",
    "2026-11-22 09:00:00.123456",
    "2026-11-22",
    "2026-02-29 00:00:00",
    "2024-02-29",
    "0000-00-00 00:00:00",
    "0001-01-01 00:00:00",
    "9999-12-31 23:59:59",
    "+262143-12-31 23:59:59",
    "2026-13-01",
    "2026-11-22T09:00:00Z",
    "2026-11-22T09:00:00+14:00",
    "24:00",
    "23:59",
    "08:30",
    "8:5",
    "25:61",
    "00:00,12:00",
    "1:30",
    "1 2:03:04",
    "1-6",
    "0-5",
    "-5",
    "1 -1",
    "::",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "DAY_SECOND",
    "YEAR_MONTH",
    "HOUR_MINUTE",
    "FORTNIGHT",
    "RECURRING",
    "ONE TIME",
    "ENABLED",
    "DISABLED",
    "SLAVESIDE_DISABLED",
    "PRESERVE",
    "NOT PRESERVE",
    "SYSTEM",
    "UTC",
    "+00:00",
    "+05:30",
    "-12:00",
    "+14:00",
    "+99:99",
    "Europe/Berlin",
    "America/New_York",
    "Mars/Olympus",
    "RUNNING",
    "ERROR",
    "FINISHED",
    "ABORTED",
    "PAUSED",
    "STOPPED",
    "scheduled",
    "triggered",
    "manual",
    "interval",
    "daily",
    "weekly",
    "monthly",
    "5 seconds",
    "0 seconds",
    "60 seconds",
    "59 second",
    "86399",
    "86400",
    "20240229",
    "19900101",
    "99991231",
    "235959",
    "240000",
];

/// Text of every kind: known tokens, tokens glued, numbers, printable and arbitrary Unicode,
/// the characters schedules are written with, and now and then a long string.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        6 => prop::sample::select(TOKENS).prop_map(str::to_owned),
        2 => (prop::sample::select(TOKENS), prop::sample::select(vec![" ", ",", ":", "-", "/", "T", ""]), prop::sample::select(TOKENS))
            .prop_map(|(a, s, b)| format!("{a}{s}{b}")),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|f| f.to_string()),
        3 => "[0-9 :T.+\\-/,*$@#?LW]{0,24}",
        2 => "\\PC{0,24}",
        1 => any::<String>(),
        1 => ("[0-9a-z*, ]{1,4}", 200usize..3000).prop_map(|(s, n)| s.repeat(n)),
    ]
    .boxed()
}

/// A column's value: NULL, blank, or text.
fn cell() -> BoxedStrategy<Option<String>> {
    prop_oneof![1 => Just(None), 1 => Just(Some(String::new())), 8 => text().prop_map(Some)].boxed()
}

/// An integer as msdb may hold one: anything, small ones, and the edges.
fn int() -> BoxedStrategy<i64> {
    prop_oneof![
        3 => any::<i64>(),
        4 => -3i64..300,
        2 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, -1, 0, i64::MAX, i64::MAX - 1, i32::MAX as i64, i32::MIN as i64, 19900101, 20240229, 20231345, 99991231, 99999999, 10101, 235959, 240000, 235960, 86_400]),
        2 => 19_000_101i64..100_000_000,
        2 => 0i64..240_000,
    ]
    .boxed()
}

/// Any instant chrono can hold, mostly near now, sometimes at the ends of time.
fn instant() -> BoxedStrategy<DateTime<Utc>> {
    let lo = DateTime::<Utc>::MIN_UTC.timestamp();
    let hi = DateTime::<Utc>::MAX_UTC.timestamp();
    prop_oneof![
        6 => 1_672_531_200i64..1_830_297_600,
        1 => lo..=hi,
        1 => prop::sample::select(vec![lo, hi, 0, -1, hi - 86_400, lo + 86_400]),
    ]
    .prop_map(|s| DateTime::<Utc>::from_timestamp(s, 0).unwrap_or(DateTime::<Utc>::MIN_UTC))
    .boxed()
}

/// A window: usually hours to days, sometimes empty or inverted, sometimes at the end of time.
fn window() -> BoxedStrategy<Window> {
    (instant(), prop_oneof![16 => 0i64..4 * 86_400, 2 => -86_400i64..0, 1 => Just(i64::MAX)])
        .prop_map(|(a, len)| {
            let end =
                Duration::try_seconds(len).and_then(|d| a.checked_add_signed(d)).unwrap_or(DateTime::<Utc>::MAX_UTC);
            Window::new(a, end)
        })
        .boxed()
}

/// A window a page asks for, anywhere in time: mostly up to two days, now and then up to 62
/// (the API's longest; an instance's forecast and reconciliation cost grows with it).
fn page_window() -> BoxedStrategy<Window> {
    (instant(), prop_oneof![16 => 0i64..2 * 86_400, 2 => 0i64..8 * 86_400, 1 => 0i64..62 * 86_400])
        .prop_map(|(a, len)| {
            Window::new(a, a.checked_add_signed(Duration::seconds(len)).unwrap_or(DateTime::<Utc>::MAX_UTC))
        })
        .boxed()
}

/// Zones: the server's (chrono-tz) and the browser's (rules as data), with odd ones.
fn zone() -> BoxedStrategy<Zone> {
    let tzs = vec![
        chrono_tz::UTC,
        chrono_tz::Europe::Berlin,
        chrono_tz::America::New_York,
        chrono_tz::Australia::Lord_Howe,
        chrono_tz::America::Santiago,
        chrono_tz::Pacific::Kiritimati,
        chrono_tz::Pacific::Apia,
    ];
    (prop::sample::select(tzs), any::<bool>()).prop_map(|(tz, r)| crate::support::zones::zone(tz, r)).boxed()
}

/// A cron expression from fields of cron-like elements, right and wrong.
fn cron_text() -> BoxedStrategy<String> {
    let element = prop_oneof![
        4 => prop::sample::select(vec!["*", "*/2", "*/0", "*/60", "$", "L", "?", "W", "1#2", "MON", "jan", "SUN-SAT", "*x", "-", "/", "7", "0", "1-5", "5-1", "0-59/7", "31", "32", "99999999999", "-1", "1-", "-5", "*/", "1,", ",2"]).prop_map(str::to_owned),
        2 => (0u32..100).prop_map(|n| n.to_string()),
        2 => (0u32..70, 0u32..70, 0u32..70).prop_map(|(a, b, s)| format!("{a}-{b}/{s}")),
        1 => "[0-9*/,$\\-a-zA-Z]{1,6}",
    ];
    let field = prop::collection::vec(element, 1..4).prop_map(|v| v.join(","));
    prop_oneof![
        6 => prop::collection::vec(field, 0..8).prop_map(|v| v.join(" ")),
        1 => (-5i64..100, prop::sample::select(vec!["seconds", "second", "SECONDS", "sec", "minutes", ""])).prop_map(|(n, u)| format!("{n} {u}")),
        1 => "@[a-zA-Z]{0,10}",
        2 => text(),
    ]
    .boxed()
}

fn agent_schedule() -> BoxedStrategy<AgentSchedule> {
    prop::array::uniform11(int())
        .prop_map(|f| AgentSchedule {
            enabled: f[0],
            freq_type: f[1],
            freq_interval: f[2],
            freq_subday_type: f[3],
            freq_subday_interval: f[4],
            freq_relative_interval: f[5],
            freq_recurrence_factor: f[6],
            active_start_date: f[7],
            active_end_date: f[8],
            active_start_time: f[9],
            active_end_time: f[10],
        })
        .boxed()
}

/// An interval value as information_schema shows it, right and wrong.
fn interval_value() -> BoxedStrategy<Option<String>> {
    prop_oneof![
        3 => cell(),
        2 => prop::collection::vec(prop_oneof![any::<i64>().prop_map(|n| n.to_string()), (0i64..100).prop_map(|n| n.to_string())], 1..5)
            .prop_flat_map(|parts| prop::sample::select(vec![":", " ", "-", "."]).prop_map(move |s| Some(parts.join(s)))),
    ]
    .boxed()
}

fn mysql_event() -> BoxedStrategy<MysqlEvent> {
    (prop::array::uniform10(cell()), interval_value())
        .prop_map(|(c, iv)| MysqlEvent {
            event_schema: c[0].clone(),
            event_name: c[1].clone(),
            event_type: c[2].clone(),
            execute_at: c[3].clone(),
            interval_value: iv,
            interval_field: c[4].clone(),
            starts: c[5].clone(),
            ends: c[6].clone(),
            status: c[7].clone(),
            on_completion: c[8].clone(),
            time_zone: c[9].clone(),
            last_executed: c[3].clone().or_else(|| c[5].clone()),
        })
        .boxed()
}

fn job_table_row() -> BoxedStrategy<JobTableRow> {
    prop::array::uniform9(cell())
        .prop_map(|c| JobTableRow {
            job_id: c[0].clone(),
            job_owner: c[1].clone(),
            job_name: c[2].clone(),
            job_schedule_start: c[3].clone(),
            job_schedule_finish: c[4].clone(),
            job_schedule_interval: c[5].clone(),
            job_status: c[6].clone(),
            job_runner_start: c[7].clone(),
            job_runner_last_cycle_start: c[8].clone(),
            ..JobTableRow::default()
        })
        .boxed()
}

fn service_broker_job() -> BoxedStrategy<ServiceBrokerJob> {
    prop::array::uniform12(cell())
        .prop_map(|c| ServiceBrokerJob {
            job_name: c[0].clone(),
            job_schedule_id: c[1].clone(),
            valid_from: c[2].clone(),
            last_run_on: c[3].clone(),
            next_run_on: c[4].clone(),
            is_enabled: c[5].clone(),
            frequency_type: c[6].clone(),
            frequency: c[7].clone(),
            absolute_sub_frequency: c[8].clone(),
            relative_which: c[9].clone(),
            relative_what: c[10].clone(),
            run_at: c[11].clone(),
        })
        .boxed()
}

fn primentra_config() -> BoxedStrategy<SchedulerConfiguration> {
    (prop::array::uniform16(cell()), cell(), cell())
        .prop_map(|(c, last_run, now)| SchedulerConfiguration {
            entity_id: c[0].clone(),
            processing_mode: c[1].clone(),
            schedule_type: c[2].clone(),
            interval_minutes: c[3].clone(),
            run_times: c[4].clone(),
            run_days: c[5].clone(),
            run_days_of_month: c[6].clone(),
            trigger_on_new_rows: c[7].clone(),
            trigger_row_threshold: c[8].clone(),
            trigger_idle_minutes: c[9].clone(),
            trigger_debounce_seconds: c[10].clone(),
            is_running: c[11].clone(),
            run_started_at: c[12].clone(),
            next_scheduled_run: c[13].clone(),
            last_completed_at: c[14].clone(),
            last_trigger_check: c[15].clone(),
            is_enabled: c[1].clone(),
            last_run,
            now,
            // Any text as the fires an interval schedule is chained from.
            fired: c[12].iter().chain(&c[13]).cloned().collect(),
        })
        .boxed()
}

/// A `bool[]` column: mostly `{t,f,…}` of about the right length, sometimes anything.
fn bools_cell(n: usize) -> BoxedStrategy<Option<String>> {
    let slot = prop::sample::select(vec!["t", "f", "f", "f", "NULL", "true", " f "]);
    prop_oneof![
        4 => prop::collection::vec(slot, n - 1..=n + 1).prop_map(|v| Some(format!("{{{}}}", v.join(",")))),
        1 => Just(Some(format!("{{{}}}", vec!["f"; n].join(",")))),
        1 => cell(),
    ]
    .boxed()
}

fn pgagent_schedule() -> BoxedStrategy<PgAgentSchedule> {
    let stamp = prop_oneof![
        3 => instant().prop_map(|t| Some(t.format("%Y-%m-%d %H:%M:%S+00").to_string())),
        1 => instant().prop_map(|t| Some(t.format("%Y-%m-%dT%H:%M:%S%.f-05:30").to_string())),
        1 => cell(),
    ];
    let exception =
        (cell(), cell(), cell()).prop_map(|(jexid, jexdate, jextime)| PgAgentException { jexid, jexdate, jextime });
    (
        (cell(), stamp.clone(), stamp),
        (bools_cell(60), bools_cell(24), bools_cell(7), bools_cell(32), bools_cell(12)),
        prop::collection::vec(exception, 0..3),
    )
        .prop_map(|((jscenabled, jscstart, jscend), (mi, h, wd, md, mo), exceptions)| PgAgentSchedule {
            jscenabled,
            jscstart,
            jscend,
            jscminutes: mi,
            jschours: h,
            jscweekdays: wd,
            jscmonthdays: md,
            jscmonths: mo,
            exceptions,
            ..PgAgentSchedule::default()
        })
        .boxed()
}

fn schedule() -> BoxedStrategy<Schedule> {
    prop_oneof![
        agent_schedule().prop_map(Schedule::Agent),
        (cron_text(), cell()).prop_map(|(expr, last_start)| Schedule::Cron(CronSchedule { expr, last_start })),
        mysql_event().prop_map(Schedule::MysqlEvent),
        job_table_row().prop_map(Schedule::JobTable),
        service_broker_job().prop_map(Schedule::ServiceBroker),
        primentra_config().prop_map(Schedule::Primentra),
        pgagent_schedule().prop_map(Schedule::PgAgent),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// What every forecast must be, whatever went in

/// Occurrences strictly increasing inside the window, and no occurrence from a schedule the
/// engine called an error; every diagnostic that is not an Info names its field.
fn check_forecast(f: &Forecast, w: &Window) -> Result<(), TestCaseError> {
    prop_assert!(f.occurrences.windows(2).all(|p| p[0].at < p[1].at), "occurrences out of order: {:?}", f.occurrences);
    prop_assert!(f.occurrences.iter().all(|o| w.contains(o.at)), "an occurrence outside {w:?}: {:?}", f.occurrences);
    if f.has_errors() {
        prop_assert!(f.occurrences.is_empty(), "occurrences from a schedule in error: {:?}", f.diagnostics);
    }
    check_named(&f.diagnostics)
}

/// A job's forecast, merged over its schedules: in time order (two schedules may share an
/// instant) and inside the window; one schedule in error leaves the others' occurrences.
fn check_job_forecast(f: &Forecast, w: &Window) -> Result<(), TestCaseError> {
    prop_assert!(f.occurrences.windows(2).all(|p| p[0].at <= p[1].at), "occurrences out of order: {:?}", f.occurrences);
    prop_assert!(f.occurrences.iter().all(|o| w.contains(o.at)), "an occurrence outside {w:?}: {:?}", f.occurrences);
    check_named(&f.diagnostics)
}

/// Warnings that are about a schedule as a whole, not one of its fields.
const WHOLE_SCHEDULE: [&str; 2] = ["the forecast is cut off", "Never fires"];

/// Errors and warnings name their field (but the few about a whole schedule).
fn check_named(diags: &[Diagnostic]) -> Result<(), TestCaseError> {
    for d in diags {
        let whole = d.severity == Severity::Warning && WHOLE_SCHEDULE.iter().any(|m| d.message.contains(m));
        if d.severity != Severity::Info && !whole {
            prop_assert!(d.field.as_deref().is_some_and(|f| !f.is_empty()), "a diagnostic naming no field: {d:?}");
        }
    }
    Ok(())
}

/// The whole engine surface a schedule meets: forecast, next runs, description, validation.
fn exercise(s: &Schedule, z: Zone, w: Window) -> Result<(), TestCaseError> {
    let f = engine::forecast(7, s, z, w);
    check_forecast(&f, &w)?;
    let n = engine::next_after(7, s, z, w.start, 3);
    prop_assert!(n.occurrences.len() <= 3);
    prop_assert!(n.occurrences.iter().all(|o| o.at > w.start), "next_after not after {}: {:?}", w.start, n.occurrences);
    prop_assert!(n.occurrences.windows(2).all(|p| p[0].at < p[1].at));
    let _ = engine::describe(s);
    let _ = edit::to_row(s);
    let now_local = engine::tz::to_local(w.start, z);
    check_named(&edit::warnings(s, w.start, now_local, Some((1, 4))))?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The harnesses

#[test]
fn fuzz_cron_expressions() {
    fuzz("cron", (cron_text(), cell(), zone(), window()), |(expr, last_start, z, w)| {
        match cron::parse(&expr) {
            Ok(_) => {}
            Err(d) => {
                prop_assert!(!d.is_empty(), "an expression refused with no reason: {expr:?}");
                check_named(&d)?;
            }
        }
        let s = CronSchedule { expr, last_start };
        let v = cron::validate(&s);
        check_named(&v)?;
        let f = cron::forecast(1, &s, z, w);
        check_forecast(&f, &w)?;
        if v.iter().any(|d| d.severity == Severity::Error) {
            prop_assert!(f.occurrences.is_empty());
        }
        let _ = cron::next_after(1, &s, z, w.start, 4);
        let _ = cron::describe(&s);
        let _ = cron::describe_in(&s, z);
        Ok(())
    });
}

#[test]
fn fuzz_agent_rows() {
    fuzz("agent", (agent_schedule(), zone(), window(), int(), int()), |(s, z, w, a, b)| {
        let v = agent::validate(&s);
        check_named(&v)?;
        let f = agent::forecast(1, &s, z, w);
        check_forecast(&f, &w)?;
        if v.iter().any(|d| d.severity == Severity::Error) {
            prop_assert!(f.occurrences.is_empty());
        }
        let _ = agent::next_after(1, &s, z, w.start, 3);
        let _ = describe::agent(&s);
        let _ = edit::msdb_description(&s);
        let _ = edit::msdb_description_idle(&s, a, b);
        let _ = (describe::date(a), describe::time(b), agent::date_from_int(a), agent::time_from_int(b));
        Ok(())
    });
}

#[test]
fn fuzz_mysql_events() {
    fuzz("mysql_event", (mysql_event(), zone(), window()), |(e, z, w)| {
        check_named(&mysql_event::validate(&e, z))?;
        let f = mysql_event::forecast(1, &e, z, w);
        check_forecast(&f, &w)?;
        let _ = mysql_event::next_after(1, &e, z, w.start, 3);
        let _ = mysql_event::describe(&e);
        Ok(())
    });
}

#[test]
fn fuzz_job_table_rows() {
    fuzz("job_table", (job_table_row(), zone(), window()), |(j, z, w)| {
        check_named(&job_table::validate(&j))?;
        check_forecast(&job_table::forecast(1, &j, z, w), &w)?;
        let _ = job_table::next_after(1, &j, z, w.start, 3);
        let _ = job_table::describe(&j);
        Ok(())
    });
}

/// Samples of a `job` row as Sundial's store keeps them, any values: the cycles rebuilt from
/// them stay inside the window and in order.
#[test]
fn fuzz_job_table_samples() {
    let sample = (
        instant(),
        0i64..100_000,
        prop::option::of(prop::sample::select(vec![
            "RUNNING", "ERROR", "FINISHED", "ABORTED", "PAUSED", "ENABLED", "?",
        ])),
        prop::option::of(int()),
        prop::array::uniform5(prop::option::of(instant())),
        prop::option::of(int()),
    )
        .prop_map(|(first_seen, held, status, interval, t, cycles)| CycleSample {
            first_seen,
            seen_until: first_seen.checked_add_signed(Duration::seconds(held)).unwrap_or(first_seen),
            status: status.map(str::to_owned),
            interval,
            schedule_start: t[0],
            runner_start: t[1],
            runner_finish: t[2],
            cycles,
            last_start: t[3],
            last_finish: t[4],
        });
    let stuck = prop_oneof![Just(3600i64), any::<i32>().prop_map(i64::from)];
    fuzz(
        "job_table_samples",
        (prop::collection::vec(sample, 0..6), window(), stuck, instant()),
        |(samples, w, stuck, now)| {
            let h = job_table::reconstruct(&samples, 1, w, Duration::seconds(stuck), now);
            prop_assert!(h.runs.windows(2).all(|p| p[0].start <= p[1].start), "runs out of order: {:?}", h.runs);
            check_named(&h.diagnostics)?;
            for s in &samples {
                let _ = (s.first_cycle(), s.known_since());
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_service_broker_rows() {
    fuzz("service_broker", (service_broker_job(), zone(), window()), |(j, z, w)| {
        check_named(&service_broker::validate(&j))?;
        check_forecast(&service_broker::forecast(1, &j, z, w), &w)?;
        let _ = service_broker::next_after(1, &j, z, w.start, 3);
        let _ = service_broker::describe(&j);
        Ok(())
    });
}

#[test]
fn fuzz_primentra_rows() {
    let queue = prop::array::uniform4(cell()).prop_map(|c| QueueState {
        pending_rows: c[0].clone(),
        oldest_row_age_minutes: c[1].clone(),
        oldest_row_created_at: c[2].clone(),
        last_trigger_check: c[3].clone(),
    });
    fuzz("primentra", (primentra_config(), queue, zone(), window()), |(c, q, z, w)| {
        check_named(&primentra::validate(&c))?;
        check_forecast(&primentra::forecast(1, &c, z, w), &w)?;
        let _ = primentra::next_after(1, &c, z, w.start, 3);
        let _ = primentra::describe(&c);
        match primentra::dry_run(&c, &q, w.start.naive_utc()) {
            Ok(r) => prop_assert!(!r.reason.is_empty()),
            Err(d) => check_named(&[d])?,
        }
        Ok(())
    });
}

#[test]
fn fuzz_pgagent_rows() {
    fuzz("pgagent", (pgagent_schedule(), zone(), window(), instant()), |(s, z, w, now)| {
        check_named(&pgagent::validate(&s, z))?;
        check_forecast(&pgagent::forecast(1, &s, z, w), &w)?;
        let n = pgagent::next_after(1, &s, z, w.start, 3);
        prop_assert!(n.occurrences.iter().all(|o| o.at > w.start));
        let _ = pgagent::describe(&s);
        let _ = pgagent::pga_next_schedule(&s, z, now);
        Ok(())
    });
}

/// Every dialect through the engine's entry points together (the way a read reaches them).
#[test]
fn fuzz_schedules() {
    fuzz("schedules", (schedule(), zone(), window()), |(s, z, w)| exercise(&s, z, w));
}

/// The small text parsers: timestamps as databases print them, zone names, a URL's log-kind
/// and dialect keys, Primentra's event types, msdb's run_status.
#[test]
fn fuzz_text_parsers() {
    fuzz("text", (text(), int()), |(t, n)| {
        if let Some(ts) = dialect::parse_timestamp(&t) {
            let _ = ts.format("%Y-%m-%d %H:%M:%S").to_string();
        }
        if let Some(z) = Zone::from_name(&t) {
            let _ = engine::tz::resolve(NaiveDateTime::MIN, z);
            let _ = engine::tz::resolve(NaiveDateTime::MAX, z);
            let _ = engine::tz::to_local(DateTime::<Utc>::MAX_UTC, z);
        }
        if let Some(k) = LogKind::from_key(&t) {
            prop_assert_eq!(k.key(), t.as_str());
        }
        let _ = LogKind::from_primentra(&t);
        match t.parse::<Dialect>() {
            Ok(d) => prop_assert_eq!(Dialect::parse(&t), Some(d)),
            Err(e) => prop_assert!(e.contains("unknown dialect"), "{}", e),
        }
        let _ = RunOutcome::from_run_status(n);
        Ok(())
    });
}

/// Zone rules as the browser receives them (JSON): refused or usable, never a panic when
/// resolving local times or offsets with them.
#[test]
fn fuzz_zone_rules() {
    let offset = prop_oneof![4 => -50_400i32..50_400, 1 => any::<i32>(), 1 => Just(86_399), 1 => Just(-86_399), 1 => Just(86_400)];
    let at = prop_oneof![4 => -2_000_000_000i64..5_000_000_000, 1 => any::<i64>(), 1 => prop::sample::select(vec![DateTime::<Utc>::MIN_UTC.timestamp(), DateTime::<Utc>::MAX_UTC.timestamp()])];
    let rules = (text(), offset.clone(), prop::collection::vec((at, offset), 0..6), any::<bool>()).prop_map(
        |(name, initial, mut transitions, sorted)| {
            if sorted {
                transitions.sort_by_key(|t| t.0);
                transitions.dedup_by_key(|t| t.0);
            }
            serde_json::json!({ "name": name, "initial": initial, "transitions": transitions }).to_string()
        },
    );
    let json = prop_oneof![4 => rules, 1 => text()];
    fuzz("zone_rules", (json, instant(), any::<i64>()), |(json, at, local)| {
        let Ok(rules) = serde_json::from_str::<ZoneRules>(&json) else { return Ok(()) };
        // Leaked as `Zone::Rules` needs, but not through `ZoneRules::leak`, whose registry (for
        // `Zone::from_name`) would grow by every input.
        let rules: &'static ZoneRules = Box::leak(Box::new(rules));
        let z = Zone::Rules(rules);
        let off = rules.offset_at(at.timestamp());
        prop_assert!(off.abs() < 86_400, "offset {off} from accepted rules");
        let _ = engine::tz::to_local(at, z);
        if let Some(l) = DateTime::<Utc>::from_timestamp(local.clamp(-8_000_000_000_000, 8_000_000_000_000), 0) {
            let _ = engine::tz::resolve(l.naive_utc(), z);
        }
        Ok(())
    });
}

/// Column names each dialect's table has (and keys Sundial reads with them).
fn columns(d: Dialect) -> &'static [&'static str] {
    match d {
        Dialect::Agent => &[
            "schedule_id",
            "name",
            "enabled",
            "freq_type",
            "freq_interval",
            "freq_subday_type",
            "freq_subday_interval",
            "freq_relative_interval",
            "freq_recurrence_factor",
            "active_start_date",
            "active_end_date",
            "active_start_time",
            "active_end_time",
            "FREQ_TYPE",
            "Active_Start_Date",
        ],
        Dialect::Cron => &["jobid", "jobname", "schedule", "active", "last_start", "command", "SCHEDULE"],
        Dialect::MysqlEvent => &[
            "EVENT_SCHEMA",
            "EVENT_NAME",
            "EVENT_TYPE",
            "EXECUTE_AT",
            "INTERVAL_VALUE",
            "INTERVAL_FIELD",
            "STARTS",
            "ENDS",
            "STATUS",
            "ON_COMPLETION",
            "TIME_ZONE",
            "LAST_EXECUTED",
            "starts",
            "interval_value",
        ],
        Dialect::JobTable => &[
            "job_id",
            "job_owner",
            "job_name",
            "job_schedule_start",
            "job_schedule_finish",
            "job_schedule_interval",
            "job_status",
            "job_runner_start",
            "job_runner_last_cycle_start",
            "jobScheduleInterval",
        ],
        Dialect::ServiceBroker => &[
            "ID",
            "JobName",
            "JobScheduleId",
            "ValidFrom",
            "LastRunOn",
            "NextRunOn",
            "IsEnabled",
            "FrequencyType",
            "Frequency",
            "AbsoluteSubFrequency",
            "MontlyRelativeSubFrequencyWhich",
            "MontlyRelativeSubFrequencyWhat",
            "RunAtInSecondsFromMidnight",
            "job_schedule_id",
        ],
        Dialect::Primentra => &[
            "Id",
            "EntityId",
            "ProcessingMode",
            "ScheduleType",
            "IntervalMinutes",
            "RunTimes",
            "RunDays",
            "RunDaysOfMonth",
            "TriggerOnNewRows",
            "TriggerRowThreshold",
            "TriggerIdleMinutes",
            "TriggerDebounceSeconds",
            "IsRunning",
            "RunStartedAt",
            "NextScheduledRun",
            "LastCompletedAt",
            "LastTriggerCheck",
            "IsEnabled",
            "last_run",
            "now",
        ],
        Dialect::PgAgent => &[
            "jscid",
            "jscjobid",
            "jscname",
            "jscenabled",
            "jscstart",
            "jscend",
            "jscminutes",
            "jschours",
            "jscweekdays",
            "jscmonthdays",
            "jscmonths",
            "JSCSTART",
        ],
    }
}

/// A JSON value of any type, mostly what a column holds.
fn json_value() -> BoxedStrategy<serde_json::Value> {
    use serde_json::Value;
    prop_oneof![
        6 => text().prop_map(Value::String),
        3 => int().prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => text().prop_map(|t| Value::Array(vec![Value::String(t)])),
        1 => text().prop_map(|t| serde_json::json!({ "v": t })),
    ]
    .boxed()
}

/// A pasted row: a JSON object of the dialect's columns with any values (or an array around
/// it, or two rows, or not JSON at all).
fn pasted_row() -> BoxedStrategy<(Dialect, String)> {
    prop::sample::select(Dialect::ALL.to_vec()).prop_flat_map(|d| {
        let obj = prop::collection::vec((prop::sample::select(columns(d)), json_value()), 0..12).prop_map(|cols| {
            serde_json::Value::Object(cols.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
        });
        let doc = prop_oneof![
            6 => obj.clone().prop_map(|o| o.to_string()),
            1 => obj.clone().prop_map(|o| serde_json::Value::Array(vec![o]).to_string()),
            1 => (obj.clone(), obj).prop_map(|(a, b)| serde_json::Value::Array(vec![a, b]).to_string()),
            1 => (prop::sample::select(columns(d)), text()).prop_map(|(k, v)| format!("{{\"{k}\": \"{v}\", \"{k}\": 1}}")),
            1 => text(),
        ];
        (Just(d), doc)
    })
    .boxed()
}

/// The simulator's pasted rows: refused with diagnostics naming the column, or parsed into a
/// schedule that the whole engine (forecast, warnings, the statement that applies it) takes.
#[test]
fn fuzz_pasted_rows() {
    fuzz("pasted_rows", (pasted_row(), zone(), window()), |((d, json), z, w)| {
        match edit::parse_row_full(d, &json) {
            Ok(row) => {
                prop_assert_eq!(Dialect::of(&row.schedule), d);
                exercise(&row.schedule, z, w)?;
                let now_local = engine::tz::to_local(w.start, z);
                check_named(&edit::row_warnings(&row, w.start, now_local, None))?;
                let sql = edit::apply_row_statement(Some(&row), &row, &row.target);
                prop_assert!(!sql.is_empty());
                let _ = edit::apply_statement(None, &row.schedule, &edit::Target::none(d));
                // What the editor writes back reads back to the same schedule.
                let again = edit::parse_row(d, &edit::to_row(&row.schedule));
                prop_assert_eq!(again.as_ref().ok(), Some(&row.schedule), "to_row did not read back: {:?}", again);
            }
            Err(diags) => {
                prop_assert!(!diags.is_empty(), "a row refused with no reason: {json}");
                prop_assert!(diags.iter().all(|d| d.severity == Severity::Error));
                check_named(&diags)?;
            }
        }
        // A schedule sent as JSON (the simulator's form state) is refused or usable.
        if let Ok(s) = serde_json::from_str::<Schedule>(&json) {
            exercise(&s, z, w)?;
        }
        Ok(())
    });
}

fn run() -> BoxedStrategy<Run> {
    let outcome = prop::sample::select(vec![
        RunOutcome::Succeeded,
        RunOutcome::Failed,
        RunOutcome::Retry,
        RunOutcome::Canceled,
        RunOutcome::InProgress,
    ]);
    let trigger = prop_oneof![
        prop::option::of(int()).prop_map(Trigger::Schedule),
        Just(Trigger::Manual),
        text().prop_map(Trigger::Other),
    ];
    (instant(), prop_oneof![3 => 0i64..100_000, 1 => int()], outcome, trigger, text())
        .prop_map(|(start, duration_secs, outcome, trigger, message)| Run {
            start,
            duration_secs,
            outcome,
            trigger,
            message,
            steps: Vec::new(),
        })
        .boxed()
}

fn job() -> BoxedStrategy<JobInput> {
    let sched = (int(), text(), any::<bool>(), schedule()).prop_map(|(id, name, enabled, schedule)| JobSchedule {
        id,
        name,
        enabled,
        schedule,
    });
    (
        text(),
        any::<bool>(),
        prop::collection::vec(sched, 0..3),
        prop::collection::vec(run(), 0..8),
        prop::option::of(instant()),
        prop::option::of(instant()),
        prop::collection::vec(window(), 0..2),
    )
        .prop_map(|(id, enabled, schedules, mut runs, history_horizon, source_horizon, unobserved)| {
            runs.sort_by_key(|r| r.start);
            JobInput {
                name: id.clone(),
                id,
                category: String::new(),
                owner: None,
                enabled,
                command: None,
                schedules,
                runs,
                history_horizon,
                source_horizon,
                unobserved,
                diagnostics: Vec::new(),
                earlier: Vec::new(),
                modified: None,
            }
        })
        .boxed()
}

/// A whole instance as a source maps it (any runs, durations, horizons, restarts, schedules):
/// analysed, seen as of a moment, its log derived, its durations measured, kept history
/// merged in. Every job comes back, and every run with it.
#[test]
fn fuzz_instances() {
    let settings = (prop_oneof![Just(60i64), int()], prop_oneof![Just(10usize), 0usize..3]);
    fuzz(
        "instances",
        (
            prop::collection::vec(job(), 0..4),
            prop::collection::vec(instant(), 0..3),
            zone(),
            page_window(),
            instant(),
            settings,
            prop::collection::vec(run(), 0..4),
            prop::collection::vec(window(), 0..3),
        ),
        |(jobs, mut agent_starts, tz, w, now, (grace_secs, zombie_min_due), kept, spans)| {
            agent_starts.sort();
            let input = InstanceInput {
                name: "fuzz".into(),
                tz,
                jobs,
                agent_starts,
                maintenance: Vec::new(),
                scheduler_stopped: false,
            };
            let settings = Settings { grace_secs, zombie_min_due };
            let report = fleet::analyze(&input, w, now, &settings);
            prop_assert_eq!(report.jobs.len(), input.jobs.len(), "a job was lost");
            let runs_in: usize = input.jobs.iter().map(|j| j.runs.len()).sum();
            let runs_out: usize = report.jobs.iter().map(|j| j.runs.len()).sum();
            prop_assert_eq!(runs_in, runs_out, "a run was lost");
            for j in &report.jobs {
                check_job_forecast(&j.forecast, &w)?;
                let _ = durations::stats(&j.runs);
                let _ = durations::by_weekday(&j.runs, tz);
            }
            let _ = engine::log::derive(&report, &[]);
            let then = fleet::as_of(&input, now);
            let _ = fleet::analyze(&then, w, now, &settings);
            for mut j in input.jobs {
                let _ = history::merge(&mut j, &spans, &kept);
                prop_assert!(j.runs.windows(2).all(|p| p[0].start <= p[1].start), "merged runs out of order");
            }
            let _ = history::covered_from(&spans, now);
            Ok(())
        },
    );
}

/// Failures the harnesses found, each with its exact input.
mod regressions {
    use chrono::{DateTime, Duration, Utc};
    use sundial_engine::Window;
    use sundial_engine::job_table::{self, CycleSample};

    fn t(s: &str) -> DateTime<Utc> {
        s.parse().expect("an instant")
    }

    /// The editor's warnings for a MySQL event with a fixed-offset TIME_ZONE (`-12:00`) at
    /// the first instant chrono holds: the event's clock (now plus the offset) overflowed.
    #[test]
    fn an_event_offset_at_the_start_of_time_does_not_overflow() {
        use sundial_engine::mysql_event::MysqlEvent;
        use sundial_engine::{Schedule, Zone, edit, tz};
        let e = MysqlEvent { time_zone: Some("-12:00".into()), ..MysqlEvent::default() };
        let now = DateTime::<Utc>::MIN_UTC;
        let w = edit::warnings(&Schedule::MysqlEvent(e), now, tz::to_local(now, Zone::UTC), None);
        assert!(w.is_empty(), "{w:?}");
    }

    /// A `job` row whose `job_runner_cycles` reads 9223372036854775807 while a cycle runs: the
    /// count of cycles started (the counter plus the running one) overflowed.
    #[test]
    fn a_cycle_counter_at_its_maximum_does_not_overflow() {
        let at = t("2023-01-01T00:00:00Z");
        let sample = CycleSample {
            first_seen: at,
            seen_until: at,
            cycles: Some(i64::MAX),
            last_start: Some(at),
            ..CycleSample::default()
        };
        assert_eq!(sample.known_since(), at);
        let h = job_table::reconstruct(std::slice::from_ref(&sample), 1, Window::new(at, at), Duration::hours(1), at);
        assert!(h.runs.is_empty(), "an empty window holds no run: {:?}", h.runs);
        // Over a day, the cycle seen running is there, going.
        let day = Window::new(at - Duration::hours(1), at + Duration::days(1));
        let h = job_table::reconstruct(&[sample], 1, day, Duration::hours(1), at);
        assert_eq!(h.runs.iter().map(|r| r.start).collect::<Vec<_>>(), vec![at], "{:?}", h.runs);
    }
}
