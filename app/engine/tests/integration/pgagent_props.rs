//! pgAgent's chain held to a straightforward twin. [`pgagent::next_stepwise`] walks minute by
//! minute from where the function starts its search and takes the first time the arrays allow
//! that PostgreSQL reads as a time a run may fall on; the port of `pga_next_schedule`
//! ([`pgagent::next_from`]) loops over months, days, hours and minutes as the PL/pgSQL does.
//! They agree on every step of the chain (from the minute after a run) and from the top of an
//! hour (where the forecast takes the chain up); from any other minute the function may skip a
//! time (its minute loop), never run early. And the forecast, which takes the chain up a few
//! hours before each window, equals the chain walked run by run from its start.
use crate::support::zones;
use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;
use proptest::prelude::*;
use sundial_engine::pgagent::{self, PgAgentException, PgAgentSchedule};
use sundial_engine::{self as engine, Schedule, Severity, Window, Zone, tz};

const ZONES: [Tz; 5] = [
    chrono_tz::UTC,
    chrono_tz::Europe::Berlin,
    chrono_tz::America::New_York,
    chrono_tz::Australia::Lord_Howe, // 30-minute DST shift
    chrono_tz::America::Santiago,    // transitions at midnight
];

/// How far the twin walks (minutes): 80 days.
const LIMIT: u32 = 80 * 1440;

fn zone() -> impl Strategy<Value = Zone> {
    (prop::sample::select(ZONES.to_vec()), any::<bool>()).prop_map(|(tz, r)| zones::zone(tz, r))
}

/// 2023-01-01 .. 2027-12-31, on the minute or not.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (1_672_531_200i64..1_830_297_600).prop_map(|s| DateTime::<Utc>::from_timestamp(s, 0).unwrap())
}

/// `{t,f,…}` of `n` slots with `values` (shifted to slots) set.
fn text(n: usize, shift: usize, values: &[usize]) -> String {
    let mut slots = vec!["f"; n];
    for v in values {
        if let Some(s) = slots.get_mut(v + shift - 1) {
            *s = "t";
        }
    }
    format!("{{{}}}", slots.join(","))
}

fn values(lo: usize, hi: usize, most: usize, none: u32, some: u32) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![none => Just(Vec::new()), some => prop::collection::vec(lo..=hi, 1..most)]
}

/// A schedule with some minute, hour, day or month set (the twin's kind), dense enough that
/// the twin finds its runs within [`LIMIT`].
fn schedule() -> impl Strategy<Value = PgAgentSchedule> {
    let arrays = (
        values(0, 59, 6, 2, 3),
        values(0, 23, 5, 2, 3),
        values(0, 6, 4, 3, 2),
        values(1, 32, 5, 3, 2),
        prop_oneof![4 => Just(Vec::new()), 1 => prop::collection::vec(1usize..=12, 4..9)],
    )
        .prop_filter("some array set", |(a, b, _, d, e)| {
            !(a.is_empty() && b.is_empty() && d.is_empty() && e.is_empty())
        });
    let exception =
        (prop::option::of(0i64..900), prop::option::of((0u32..24, prop::sample::select(vec![0u32, 15, 30, 45, 7]))))
            .prop_map(|(d, t)| PgAgentException {
                jexid: None,
                jexdate: d.map(|d| (NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + Duration::days(d)).to_string()),
                jextime: t.map(|(h, m)| format!("{h:02}:{m:02}:00")),
            });
    (arrays, instant(), prop::option::weighted(0.2, instant()), prop::collection::vec(exception, 0..3)).prop_map(
        |((mi, h, wd, md, mo), start, end, exceptions)| PgAgentSchedule {
            jscstart: Some(start.format("%Y-%m-%d %H:%M:%S+00").to_string()),
            jscend: end.map(|e| e.format("%Y-%m-%d %H:%M:%S+00").to_string()),
            jscminutes: Some(text(60, 1, &mi)),
            jschours: Some(text(24, 1, &h)),
            jscweekdays: Some(text(7, 1, &wd)),
            jscmonthdays: Some(text(32, 0, &md)),
            jscmonths: Some(text(12, 0, &mo)),
            exceptions,
            ..PgAgentSchedule::default()
        },
    )
}

/// Nothing but weekdays (or nothing) set: every two minutes, with exceptions now and then.
fn every_two_minutes() -> impl Strategy<Value = PgAgentSchedule> {
    (values(0, 6, 4, 1, 2), instant(), prop::option::weighted(0.5, (0i64..1500, 0u32..24, 0u32..60))).prop_map(
        |(wd, start, ex)| PgAgentSchedule {
            jscstart: Some(start.format("%Y-%m-%d %H:%M:%S+00").to_string()),
            jscweekdays: Some(text(7, 1, &wd)),
            exceptions: ex
                .map(|(d, h, m)| PgAgentException {
                    jexid: None,
                    jexdate: Some((NaiveDate::from_ymd_opt(2023, 1, 1).unwrap() + Duration::days(d)).to_string()),
                    jextime: Some(format!("{h:02}:{m:02}:00")),
                })
                .into_iter()
                .collect(),
            ..PgAgentSchedule::default()
        },
    )
}

/// A run, or none (the schedule ended).
type Answer = Option<DateTime<Utc>>;

/// The function's answer and the twin's from `runafter`, when both are known: `None` when the
/// function fails (a day the month lacks) or the twin walked out of its limit.
fn both(s: &PgAgentSchedule, z: Zone, runafter: NaiveDateTime) -> Option<(Answer, Answer)> {
    let got = pgagent::next_from(s, z, runafter).ok()?;
    let want = pgagent::next_stepwise(s, z, runafter, LIMIT);
    let horizon = runafter + Duration::minutes(i64::from(LIMIT) - 1500);
    if want.is_none() && got.is_none_or(|g| tz::to_local(g, z) >= horizon) {
        // The twin gave up (or the schedule ended): nothing to compare beyond its horizon.
        return got.is_none().then_some((None, None)).or(None);
    }
    Some((got, want))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A step of the chain (from the minute after a run) is the twin's next time.
    #[test]
    fn a_step_of_the_chain_is_the_twins_next_time(s in schedule(), z in zone(), a in instant()) {
        let f = engine::next_after(1, &Schedule::PgAgent(s.clone()), z, a, 1);
        let Some(t) = f.occurrences.first() else { return Ok(()) };
        let runafter = tz::to_local(t.at + Duration::minutes(1), z);
        if let Some((got, want)) = both(&s, z, runafter) {
            prop_assert_eq!(got, want, "after the run at {} ({})", t.local, t.at);
        }
    }

    /// From the top of an hour (where the forecast takes the chain up) too.
    #[test]
    fn from_the_top_of_an_hour_the_function_is_the_twin(s in schedule(), z in zone(), a in instant()) {
        let top = tz::to_local(a, z).with_minute(0).unwrap().with_second(0).unwrap();
        if let Some((got, want)) = both(&s, z, top) {
            prop_assert_eq!(got, want, "from {}", top);
        }
    }

    /// From any minute, the function never runs before the twin's time, and what it answers is
    /// a time the twin would run at.
    #[test]
    fn the_first_answer_is_never_early(s in schedule(), z in zone(), a in instant()) {
        let r = tz::to_local(a, z).with_second(0).unwrap();
        if let Some((Some(got), Some(want))) = both(&s, z, r) {
            prop_assert!(got >= want, "from {}: {} before the twin's {}", r, got, want);
            let wall = tz::to_local(got, z);
            prop_assert_eq!(pgagent::next_stepwise(&s, z, wall, 2), Some(got), "from {}: {} is no time of the schedule", r, got);
        }
    }

    /// The forecast of a window (the chain taken up before it, or walked day by day) is the
    /// chain stepped run by run from its start.
    #[test]
    fn taking_the_chain_up_equals_walking_it(
        s in prop_oneof![3 => schedule(), 1 => every_two_minutes()],
        z in zone(),
        days in 0i64..5,
        len in 3_600i64..3 * 86_400,
    ) {
        let sched = Schedule::PgAgent(s.clone());
        let Some(start) = s.jscstart.as_deref().and_then(|t| DateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%#z").ok()) else { return Ok(()) };
        let start = start.with_timezone(&Utc);
        let w = Window::new(start + Duration::days(days), start + Duration::days(days) + Duration::seconds(len));
        let walked = engine::next_after(1, &sched, z, start - Duration::seconds(1), 12_000);
        prop_assume!(walked.occurrences.len() < 12_000 || walked.occurrences.last().is_some_and(|o| o.at >= w.end));
        let want: Vec<_> = walked.occurrences.iter().filter(|o| w.contains(o.at)).cloned().collect();
        let got = engine::forecast(1, &sched, z, w);
        prop_assert_eq!(got.occurrences, want);
    }

    /// With nothing but weekdays set, the runs of a day are two minutes apart (in UTC).
    #[test]
    fn nothing_set_runs_every_two_minutes(days in values(0, 6, 4, 1, 3), a in instant()) {
        let s = PgAgentSchedule {
            jscstart: Some("2023-01-01 00:00:00+00".into()),
            jscweekdays: Some(text(7, 1, &days)),
            ..PgAgentSchedule::default()
        };
        let w = Window::new(a, a + Duration::days(2));
        let f = pgagent::forecast(1, &s, Tz::UTC.into(), w);
        prop_assert!(!f.diagnostics.iter().any(|d| d.severity > Severity::Info), "{:?}", f.diagnostics);
        for p in f.occurrences.windows(2) {
            if p[0].local.date() == p[1].local.date() {
                prop_assert_eq!(p[1].at - p[0].at, Duration::minutes(2));
            }
        }
        let per_day = if days.is_empty() { 720.0 } else { 0.0 };
        if days.is_empty() {
            prop_assert!((f.occurrences.len() as f64 - 2.0 * per_day).abs() <= 1.0, "{} runs in two days", f.occurrences.len());
        }
    }
}
