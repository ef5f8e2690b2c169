//! Properties of the dialects added in issue 3 (pg_cron, MySQL events, seeds 002–004) and pgAgent,
//! checked on generated schedules, zones and windows: occurrences strictly increase and stay
//! inside the window, adjacent windows add up to their union, next_after agrees with forecast,
//! cron agrees with a minute-by-minute Vixie oracle, and nothing panics on arbitrary input.
use crate::support::zones;
use chrono::{DateTime, Datelike, Duration, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;
use proptest::prelude::*;
use sundial_engine::cron::{self, CronSchedule, Plan};
use sundial_engine::job_table::JobTableRow;
use sundial_engine::mysql_event::MysqlEvent;
use sundial_engine::pgagent::{PgAgentException, PgAgentSchedule};
use sundial_engine::primentra::{self, QueueState, SchedulerConfiguration};
use sundial_engine::service_broker::ServiceBrokerJob;
use sundial_engine::{self as engine, Occurrence, Schedule, Window, Zone};

const ZONES: [Tz; 6] = [
    chrono_tz::UTC,
    chrono_tz::Europe::Berlin,
    chrono_tz::America::New_York,
    chrono_tz::Australia::Lord_Howe, // 30-minute DST shift
    chrono_tz::America::Santiago,    // transitions at midnight
    chrono_tz::Asia::Kolkata,
];

/// A zone of [`ZONES`], as chrono-tz or as rules (the browser's), which must compute the same.
fn zone() -> impl Strategy<Value = Zone> {
    (prop::sample::select(ZONES.to_vec()), any::<bool>()).prop_map(|(tz, r)| zones::zone(tz, r))
}

fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    // 2023-01-01 .. 2027-12-31, whole seconds (DST transitions included).
    (1_672_531_200i64..1_830_297_600).prop_map(|s| DateTime::<Utc>::from_timestamp(s, 0).unwrap())
}

fn ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// One cron field element: `*`, `*/n`, `a`, `a-b`, `a-b/n`.
fn element(lo: u32, hi: u32) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_owned()),
        (1..=hi.max(2)).prop_map(|n| format!("*/{n}")),
        (lo..=hi).prop_map(|a| a.to_string()),
        (lo..=hi, lo..=hi).prop_map(|(a, b)| format!("{}-{}", a.min(b), a.max(b))),
        (lo..=hi, lo..=hi, 1..=hi.max(2)).prop_map(|(a, b, n)| format!("{}-{}/{n}", a.min(b), a.max(b))),
    ]
}

fn cron_field(lo: u32, hi: u32) -> impl Strategy<Value = String> {
    prop::collection::vec(element(lo, hi), 1..3)
        .prop_map(|v| if v.iter().any(|e| e.starts_with('*')) { v[0].clone() } else { v.join(",") })
}

fn cron_expr() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (cron_field(0, 59), cron_field(0, 23), prop_oneof![4 => cron_field(1, 31), 1 => Just("$".to_owned())], cron_field(1, 12), cron_field(0, 7))
            .prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}")),
        1 => prop::sample::select(vec!["@hourly", "@daily", "@weekly", "@monthly", "@yearly", "@reboot", "@midnight"]).prop_map(str::to_owned),
        1 => (1u32..60).prop_map(|n| format!("{n} seconds")),
    ]
}

fn mysql_event() -> impl Strategy<Value = MysqlEvent> {
    let fields = prop::sample::select(vec![
        ("SECOND", "45"),
        ("MINUTE", "7"),
        ("HOUR", "3"),
        ("DAY", "1"),
        ("WEEK", "1"),
        ("MONTH", "1"),
        ("QUARTER", "1"),
        ("YEAR", "1"),
        ("HOUR_MINUTE", "1:30"),
        ("DAY_HOUR", "1 6"),
        ("YEAR_MONTH", "0-5"),
    ]);
    (
        fields,
        instant(),
        prop::option::of(instant()),
        prop::sample::select(vec!["SYSTEM", "Europe/Berlin", "America/New_York", "+05:30", "UTC"]),
        any::<bool>(),
    )
        .prop_map(|((f, v), starts, ends, tz, once)| MysqlEvent {
            event_type: Some(if once { "ONE TIME" } else { "RECURRING" }.into()),
            execute_at: Some(ts(starts)),
            interval_value: Some(v.into()),
            interval_field: Some(f.into()),
            starts: Some(ts(starts)),
            ends: ends.map(ts),
            time_zone: Some(tz.into()),
            ..MysqlEvent::default()
        })
}

fn job_table() -> impl Strategy<Value = JobTableRow> {
    (instant(), prop::option::of(instant()), 1i64..100_000, prop::option::of(instant())).prop_map(|(s, f, i, l)| {
        JobTableRow {
            job_schedule_start: Some(ts(s)),
            job_schedule_finish: f.map(ts),
            job_schedule_interval: Some(i.to_string()),
            job_runner_last_cycle_start: l.map(ts),
            ..JobTableRow::default()
        }
    })
}

fn service_broker() -> impl Strategy<Value = ServiceBrokerJob> {
    let kind = prop_oneof![
        Just((1i64, None, None, None)),
        prop::collection::vec(1i64..=7, 1..4).prop_map(|v| (
            2,
            Some(v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")),
            None,
            None
        )),
        prop::collection::vec(1i64..=31, 1..4).prop_map(|v| (
            3,
            Some(v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")),
            None,
            None
        )),
        (1i64..=5, prop_oneof![1i64..=7, Just(-1)]).prop_map(|(w, x)| (3, None, Some(w), Some(x))),
    ];
    (kind, 1i64..=12, 0i64..86_400, instant(), prop::option::of(instant())).prop_map(
        |((t, abs, w, x), f, at, vf, last)| ServiceBrokerJob {
            frequency_type: Some(t.to_string()),
            frequency: Some(f.to_string()),
            absolute_sub_frequency: abs,
            relative_which: w.map(|v| v.to_string()),
            relative_what: x.map(|v| v.to_string()),
            run_at: Some(at.min(84_599).to_string()),
            valid_from: Some(ts(vf)),
            last_run_on: last.map(ts),
            ..ServiceBrokerJob::default()
        },
    )
}

fn primentra() -> impl Strategy<Value = SchedulerConfiguration> {
    let times = prop::collection::vec((0u32..24, 0u32..60), 1..4)
        .prop_map(|v| v.iter().map(|(h, m)| format!("{h:02}:{m:02}")).collect::<Vec<_>>().join(","));
    (
        prop::sample::select(vec!["interval", "daily", "weekly", "monthly"]),
        times,
        1i64..2000,
        instant(),
        prop::sample::select(vec!["Mon", "Tue,Sat", "Sun,Wed,Fri"]),
        prop::sample::select(vec!["1", "15,31", "29,30"]),
    )
        .prop_map(|(k, t, n, last, days, dom)| SchedulerConfiguration {
            processing_mode: Some("scheduled".into()),
            schedule_type: Some(k.into()),
            interval_minutes: Some(n.to_string()),
            run_times: Some(t),
            run_days: Some(days.into()),
            run_days_of_month: Some(dom.into()),
            last_run: Some(ts(last)),
            ..SchedulerConfiguration::default()
        })
}

/// `{t,f,…}` with the slots of `values` (from `first`) set.
fn bools(n: usize, first: usize, values: &[usize]) -> String {
    let slots: Vec<&str> = (0..n).map(|i| if values.contains(&(i + first)) { "t" } else { "f" }).collect();
    format!("{{{}}}", slots.join(","))
}

fn pgagent() -> impl Strategy<Value = PgAgentSchedule> {
    let set = |lo: usize, hi: usize| prop_oneof![Just(Vec::new()), prop::collection::vec(lo..=hi, 1..5)];
    (
        (
            set(0, 59),
            set(0, 23),
            set(0, 6),
            set(1, 32),
            prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(1usize..=12, 3..8)],
        ),
        instant(),
        prop::option::weighted(0.2, instant()),
        prop::option::weighted(0.3, (0i64..1500, 0u32..24)),
    )
        .prop_map(|((mi, h, wd, md, mo), start, end, ex)| PgAgentSchedule {
            jscstart: Some(ts(start) + "+00"),
            jscend: end.map(|e| ts(e) + "+00"),
            jscminutes: Some(bools(60, 0, &mi)),
            jschours: Some(bools(24, 0, &h)),
            jscweekdays: Some(bools(7, 0, &wd)),
            jscmonthdays: Some(bools(32, 1, &md)),
            jscmonths: Some(bools(12, 1, &mo)),
            exceptions: ex
                .map(|(d, hh)| PgAgentException {
                    jexdate: Some(
                        (chrono::NaiveDate::from_ymd_opt(2023, 1, 1).unwrap() + Duration::days(d)).to_string(),
                    ),
                    jextime: Some(format!("{hh:02}:00:00")),
                    ..PgAgentException::default()
                })
                .into_iter()
                .collect(),
            ..PgAgentSchedule::default()
        })
}

fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        3 => cron_expr().prop_map(|e| Schedule::Cron(CronSchedule::new(e))),
        2 => mysql_event().prop_map(Schedule::MysqlEvent),
        1 => job_table().prop_map(Schedule::JobTable),
        2 => service_broker().prop_map(Schedule::ServiceBroker),
        2 => primentra().prop_map(Schedule::Primentra),
        2 => pgagent().prop_map(Schedule::PgAgent),
    ]
}

fn strictly_increasing(os: &[Occurrence]) -> bool {
    os.windows(2).all(|w| w[0].at < w[1].at)
}

/// Vixie's rule, minute by minute, for a checked expression in UTC.
fn vixie_matches(f: &cron::Fields, t: NaiveDateTime) -> bool {
    let dom_ok = if f.last_dom { (t + Duration::days(1)).day() == 1 } else { f.dom.contains(&t.day()) };
    let dow_ok = f.dow.contains(&t.weekday().num_days_from_sunday());
    let days = if f.and_days { dom_ok && dow_ok } else { dom_ok || dow_ok };
    t.second() == 0
        && f.minute.contains(&t.minute())
        && f.hour.contains(&t.hour())
        && f.month.contains(&t.month())
        && days
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn occurrences_increase_and_stay_inside(s in schedule(), z in zone(), start in instant(), len in 0i64..3 * 86_400) {
        let w = Window::new(start, start + Duration::seconds(len));
        let f = engine::forecast(1, &s, z, w);
        prop_assert!(strictly_increasing(&f.occurrences));
        prop_assert!(f.occurrences.iter().all(|o| w.contains(o.at)));
    }

    #[test]
    fn adjacent_windows_add_up(s in schedule(), z in zone(), a in instant(), l1 in 0i64..2 * 86_400, l2 in 0i64..2 * 86_400) {
        let (b, c) = (a + Duration::seconds(l1), a + Duration::seconds(l1 + l2));
        let whole = engine::forecast(1, &s, z, Window::new(a, c));
        // A forecast over the occurrence cap is cut off (with a Warning): no union then.
        prop_assume!(!whole.diagnostics.iter().any(|d| d.message.contains("cut off")));
        let mut parts = engine::forecast(1, &s, z, Window::new(a, b)).occurrences;
        parts.extend(engine::forecast(1, &s, z, Window::new(b, c)).occurrences);
        prop_assert!(parts == whole.occurrences, "{} + {} occurrences vs {}", parts.len(), 0, whole.occurrences.len());
    }

    #[test]
    fn next_after_agrees_with_forecast(s in schedule(), z in zone(), after in instant(), span in 1i64..2 * 86_400) {
        let end = after + Duration::seconds(span);
        let w: Vec<Occurrence> = engine::forecast(1, &s, z, Window::new(after, end))
            .occurrences.into_iter().filter(|o| o.at > after).collect();
        let n = engine::next_after(1, &s, z, after, w.len() + 1).occurrences;
        prop_assert_eq!(&n[..w.len().min(n.len())], &w[..]);
        if let Some(extra) = n.get(w.len()) {
            prop_assert!(extra.at >= end);
        }
    }

    #[test]
    fn cron_agrees_with_a_minute_by_minute_vixie_oracle(e in cron_expr(), start in instant(), len in 0i64..2 * 86_400) {
        let s = CronSchedule::new(e.clone());
        let Ok(Plan::Fields(fields)) = cron::parse(&e) else { return Ok(()) };
        let w = Window::new(start, start + Duration::seconds(len));
        let got: Vec<DateTime<Utc>> = cron::forecast(1, &s, Tz::UTC.into(), w).occurrences.iter().map(|o| o.at).collect();
        let first = start.timestamp().div_euclid(60) * 60;
        let want: Vec<DateTime<Utc>> = (0..=len / 60 + 1)
            .filter_map(|k| DateTime::<Utc>::from_timestamp(first + k * 60, 0))
            .filter(|t| w.contains(*t) && vixie_matches(&fields, t.naive_utc()))
            .collect();
        prop_assert_eq!(got, want, "expression {}", e);
    }

    /// The calendar walk over the fields' bit sets gives exactly what croner's search for
    /// every time gives (the reference), in every zone, over windows of up to 40 days (DST
    /// transitions included), at most 20,000 occurrences per case; and the next 300.
    #[test]
    fn cron_calendar_walk_equals_croner(e in cron_expr(), z in zone(), start in instant(), len in 0i64..40 * 86_400) {
        let s = CronSchedule::new(e.clone());
        let w = Window::new(start, start + Duration::seconds(len));
        let fast = cron::forecast(1, &s, z, w);
        let w = match fast.occurrences.get(20_000) {
            Some(o) => Window::new(start, o.at),
            None => w,
        };
        prop_assert_eq!(cron::forecast(1, &s, z, w), cron::forecast_croner(1, &s, z, w), "expression {}", e);
        prop_assert_eq!(cron::next_after(1, &s, z, start, 300), cron::next_after_croner(1, &s, z, start, 300), "expression {}", e);
    }

    #[test]
    fn never_panics_on_arbitrary_cron_text(e in "\\PC{0,40}", z in zone(), at in instant()) {
        let s = CronSchedule { expr: e, last_start: None };
        let _ = cron::forecast(1, &s, z, Window::new(at, at + Duration::days(1)));
        let _ = cron::next_after(1, &s, z, at, 3);
        let _ = cron::describe_in(&s, z);
    }

    #[test]
    fn never_panics_on_cron_like_text(e in "[0-9*/,\\-$@a-zA-Z? #LW]{0,30}( [0-9*/,\\-$a-zA-Z? #LW]{0,8}){0,6}", at in instant()) {
        let s = CronSchedule { expr: e, last_start: Some("2026-01-01 00:00:00".into()) };
        let f = cron::next_after(1, &s, Tz::UTC.into(), at, 3);
        prop_assert!(strictly_increasing(&f.occurrences));
        let _ = cron::describe(&s);
    }

    #[test]
    fn never_panics_on_arbitrary_rows(
        texts in prop::collection::vec(prop_oneof![
            Just(None),
            "\\PC{0,20}".prop_map(Some),
            any::<i64>().prop_map(|n| Some(n.to_string())),
            prop::sample::select(vec!["RECURRING", "ONE TIME", "DAY", "YEAR_MONTH", "1:30", "0", "-1", "9999-12-31 23:59:59", "0001-01-01 00:00:00", "SYSTEM", "+14:00", "scheduled", "interval", "monthly", "31", "5", "1,8", "Mon"]).prop_map(|s| Some(s.to_owned())),
        ], 16),
        z in zone(),
        at in instant(),
        far in any::<bool>(),
    ) {
        let t = |i: usize| texts[i % texts.len()].clone();
        let at = if far { DateTime::<Utc>::MAX_UTC - Duration::days(2) } else { at };
        let rows = vec![
            Schedule::MysqlEvent(MysqlEvent { event_type: t(0), execute_at: t(1), interval_value: t(2), interval_field: t(3), starts: t(4), ends: t(5), status: t(6), on_completion: t(7), time_zone: t(8), last_executed: t(9), ..MysqlEvent::default() }),
            Schedule::JobTable(JobTableRow { job_schedule_start: t(1), job_schedule_finish: t(5), job_schedule_interval: t(10), job_status: t(11), job_runner_start: t(4), job_runner_last_cycle_start: t(12), ..JobTableRow::default() }),
            Schedule::ServiceBroker(ServiceBrokerJob { job_schedule_id: t(13), valid_from: t(1), last_run_on: t(4), next_run_on: t(5), is_enabled: t(14), frequency_type: t(15), frequency: t(10), absolute_sub_frequency: t(11), relative_which: t(12), relative_what: t(13), run_at: t(2), ..ServiceBrokerJob::default() }),
            Schedule::Primentra(SchedulerConfiguration { processing_mode: t(0), schedule_type: t(3), interval_minutes: t(10), run_times: t(2), run_days: t(11), run_days_of_month: t(12), last_run: t(1), now: t(4), is_enabled: t(14), ..SchedulerConfiguration::default() }),
            Schedule::PgAgent(PgAgentSchedule { jscenabled: t(14), jscstart: t(1), jscend: t(5), jscminutes: t(2), jschours: t(3), jscweekdays: t(11), jscmonthdays: t(12), jscmonths: t(13), exceptions: vec![PgAgentException { jexid: t(10), jexdate: t(4), jextime: t(6) }], ..PgAgentSchedule::default() }),
        ];
        for s in &rows {
            let f = engine::forecast(1, s, z, Window::new(at, at + Duration::days(1)));
            prop_assert!(strictly_increasing(&f.occurrences));
            let _ = engine::next_after(1, s, z, at, 3);
            let _ = engine::describe(s);
        }
        let cfg = SchedulerConfiguration { processing_mode: t(0), trigger_row_threshold: t(10), trigger_idle_minutes: t(2), trigger_on_new_rows: t(14), trigger_debounce_seconds: t(12), is_running: t(13), run_started_at: t(1), last_trigger_check: t(4), next_scheduled_run: t(5), is_enabled: t(15), ..SchedulerConfiguration::default() };
        let q = QueueState { pending_rows: t(10), oldest_row_age_minutes: t(12), oldest_row_created_at: t(1), last_trigger_check: t(5) };
        let _ = primentra::dry_run(&cfg, &q, at.naive_utc());
    }
}
