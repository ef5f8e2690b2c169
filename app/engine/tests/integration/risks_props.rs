//! Properties of `risks::ahead`: a schedule with no DST change, no overlap and no end in the
//! horizon has no risk (and runs longer than its gap make it overlap itself, nothing else); and,
//! in a zone with DST, every risk it finds of such a schedule is one of the DST night.
use crate::support::zones;
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use proptest::prelude::*;
use sundial_engine::cron::CronSchedule;
use sundial_engine::durations::DurationStats;
use sundial_engine::fleet::JobSchedule;
use sundial_engine::job_table::JobTableRow;
use sundial_engine::mysql_event::MysqlEvent;
use sundial_engine::risks::{self, JobAhead, RiskKind};
use sundial_engine::{AgentSchedule, Schedule, Window, Zone};

/// Zones without DST (now or in the years generated), some with half-hour offsets.
const STEADY: [Tz; 5] = [
    chrono_tz::UTC,
    chrono_tz::Asia::Tokyo,
    chrono_tz::Asia::Kolkata,
    chrono_tz::Etc::GMTPlus5,
    chrono_tz::Asia::Kathmandu,
];

const CHANGING: [Tz; 4] = [
    chrono_tz::America::New_York,
    chrono_tz::Australia::Sydney,
    chrono_tz::Australia::Lord_Howe,
    chrono_tz::Europe::Berlin,
];

fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    // 2026-01-01 .. 2028-12-31, whole minutes.
    (29_454_720i64..30_505_000).prop_map(|m| DateTime::<Utc>::from_timestamp(m * 60, 0).unwrap())
}

/// A schedule that never ends, with the shortest gap between its due times (seconds).
fn schedule() -> impl Strategy<Value = (Schedule, i64)> {
    prop_oneof![
        // cron: at minute m of every k-th hour (k divides 24), or daily.
        (0u32..60, prop::sample::select(vec![1u32, 2, 3, 4, 6, 8, 12, 24])).prop_map(|(m, k)| {
            let hours = if k == 24 { "3".to_owned() } else { format!("*/{k}") };
            (Schedule::Cron(CronSchedule::new(format!("{m} {hours} * * *"))), i64::from(k) * 3600)
        }),
        // Agent: daily at a time, or every n minutes all day.
        (0i64..24, 0i64..60).prop_map(|(h, m)| {
            let s = AgentSchedule {
                freq_type: 4,
                freq_interval: 1,
                freq_subday_type: 1,
                active_start_date: 20250101,
                active_start_time: h * 10000 + m * 100,
                ..AgentSchedule::default()
            };
            (Schedule::Agent(s), 86_400)
        }),
        prop::sample::select(vec![10i64, 15, 20, 30, 60]).prop_map(|n| {
            let s = AgentSchedule {
                freq_type: 4,
                freq_interval: 1,
                freq_subday_type: 4,
                freq_subday_interval: n,
                active_start_date: 20250101,
                active_start_time: 0,
                active_end_time: 235959,
                ..AgentSchedule::default()
            };
            (Schedule::Agent(s), n * 60)
        }),
        // An event every n hours from a start.
        (1i64..13).prop_map(|n| {
            let e = MysqlEvent {
                event_type: Some("RECURRING".into()),
                interval_value: Some(n.to_string()),
                interval_field: Some("HOUR".into()),
                starts: Some("2025-01-01 00:10:00".into()),
                ..MysqlEvent::default()
            };
            (Schedule::MysqlEvent(e), n * 3600)
        }),
        // The job table: every n seconds.
        prop::sample::select(vec![300i64, 900, 3600, 7200]).prop_map(|n| {
            let r = JobTableRow {
                job_schedule_start: Some("2025-01-01 00:00:00".into()),
                job_schedule_interval: Some(n.to_string()),
                job_status: Some("ENABLED".into()),
                ..JobTableRow::default()
            };
            (Schedule::JobTable(r), n)
        }),
    ]
}

fn job(schedules: &[JobSchedule], gap: i64, fraction: f64) -> JobAhead<'_> {
    let p95 = ((gap as f64) * fraction) as i64;
    JobAhead {
        id: "j",
        name: "job",
        enabled: true,
        schedules,
        durations: Some(DurationStats { count: 20, p50: p95 / 2, p95, max: p95 }),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    /// No DST, runs shorter than the gap, no end: nothing to say.
    #[test]
    fn a_steady_schedule_with_short_runs_and_no_end_has_no_risk(
        (schedule, gap) in schedule(),
        tz in prop::sample::select(STEADY.to_vec()),
        rules in any::<bool>(),
        now in instant(),
        days in 1i64..=90,
        fraction in 0.0f64..0.99,
    ) {
        let tz: Zone = zones::zone(tz, rules);
        let schedules = vec![JobSchedule { id: 1, name: String::new(), enabled: true, schedule }];
        let horizon = Window::new(now, now + Duration::days(days));
        let got = risks::ahead(&[job(&schedules, gap, fraction)], tz, horizon);
        prop_assert!(got.is_empty(), "{got:#?}");
        // The same job with runs longer than its gap overlaps itself, and only that.
        let due = sundial_engine::forecast(1, &schedules[0].schedule, tz, horizon).occurrences.len();
        let long = risks::ahead(&[job(&schedules, gap, 1.01 + fraction)], tz, horizon);
        let kinds: Vec<RiskKind> = long.iter().map(|r| r.kind).collect();
        let want = if due >= 2 { vec![RiskKind::OverlapsItself] } else { vec![] };
        prop_assert_eq!(kinds, want, "{:#?}", long);
    }

    /// The same schedules in zones with DST: only DST risks (and the overlap a due time moved to
    /// the gap's end can make), each within two hours of a change of the zone.
    #[test]
    fn in_a_zone_with_dst_the_same_schedules_have_only_dst_risks(
        (schedule, gap) in schedule(),
        tz in prop::sample::select(CHANGING.to_vec()),
        now in instant(),
        days in 1i64..=90,
        fraction in 0.0f64..0.5,
    ) {
        let tz = Zone::from(tz);
        let horizon = Window::new(now, now + Duration::days(days));
        let schedules = vec![JobSchedule { id: 1, name: String::new(), enabled: true, schedule }];
        let got = risks::ahead(&[job(&schedules, gap, fraction)], tz, horizon);
        let changes = risks::changes(tz, horizon);
        for r in &got {
            prop_assert!(matches!(r.kind, RiskKind::DstGap | RiskKind::DstFold | RiskKind::OverlapsItself), "{r:#?}");
            for t in &r.at {
                prop_assert!(
                    changes.iter().any(|c| (*t - c.at).num_seconds().abs() <= 2 * 3600),
                    "{t} is near no change of {}: {r:#?}", tz.name()
                );
            }
        }
        if changes.is_empty() {
            prop_assert!(got.is_empty(), "{got:#?}");
        }
    }
}
