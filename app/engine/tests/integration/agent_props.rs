//! Properties of the SQL Agent schedule engine, checked on generated schedules, zones and
//! windows.
use crate::support::zones;
use chrono::{DateTime, Datelike, Duration, LocalResult, Months, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use proptest::prelude::*;
use sundial_engine::Dst;
use sundial_engine::{AgentSchedule, Occurrence, Window, Zone, agent, describe, tz};

const ZONES: [Tz; 8] = [
    chrono_tz::UTC,
    chrono_tz::Europe::London,
    chrono_tz::America::New_York,
    chrono_tz::Australia::Sydney,
    chrono_tz::Australia::Lord_Howe, // 30-minute DST shift
    chrono_tz::America::Santiago,    // transitions at midnight
    chrono_tz::Pacific::Apia,        // skipped a whole day (2011-12-30)
    chrono_tz::Asia::Kolkata,        // no DST, half-hour offset
];

/// A zone of [`ZONES`], as chrono-tz or as rules (the browser's), which must compute the same.
fn zone() -> impl Strategy<Value = Zone> {
    (prop::sample::select(ZONES.to_vec()), any::<bool>()).prop_map(|(tz, r)| zones::zone(tz, r))
}

fn yyyymmdd(d: NaiveDate) -> i64 {
    i64::from(d.year()) * 10000 + i64::from(d.month()) * 100 + i64::from(d.day())
}

fn hhmmss(secs: u32) -> i64 {
    i64::from(secs / 3600) * 10000 + i64::from(secs / 60 % 60) * 100 + i64::from(secs % 60)
}

fn date_between(from: (i32, u32, u32), days: i64) -> impl Strategy<Value = NaiveDate> {
    let base = NaiveDate::from_ymd_opt(from.0, from.1, from.2).expect("valid date");
    (0..days).prop_map(move |d| base + Duration::days(d))
}

/// Mostly valid schedules of every forecastable type (the odd invalid one is fine too: it
/// must simply yield nothing).
fn schedule() -> impl Strategy<Value = AgentSchedule> {
    let freq = prop_oneof![
        Just((1i64, 0i64, 0i64)),
        (1i64..=10).prop_map(|n| (4, n, 0)),
        (1i64..=127).prop_map(|m| (8, m, 0)),
        (1i64..=31).prop_map(|d| (16, d, 0)),
        (1i64..=10, prop::sample::select(vec![1i64, 2, 4, 8, 16])).prop_map(|(w, r)| (32, w, r)),
    ];
    let subday = prop_oneof![
        Just((0i64, 0i64)),
        Just((1, 0)),
        prop::sample::select(vec![10i64, 30, 45, 600, 3600, 86_399, 100_000]).prop_map(|n| (2, n)),
        (1i64..=1440).prop_map(|n| (4, n)),
        (1i64..=24).prop_map(|n| (8, n)),
    ];
    (
        freq,
        subday,
        prop_oneof![4 => Just(1i64), 3 => 0i64..=3, 1 => 4i64..=6, 1 => Just(12), 1 => Just(48)],
        date_between((1990, 1, 1), 16_000),
        prop_oneof![3 => Just(None), 1 => (0i64..4000).prop_map(Some)],
        0u32..86_400,
        0u32..86_400,
    )
        .prop_map(|((ft, fi, rel), (st, sn), rec, start, end_days, t0, t1)| AgentSchedule {
            enabled: 1,
            freq_type: ft,
            freq_interval: fi,
            freq_subday_type: st,
            freq_subday_interval: sn,
            freq_relative_interval: rel,
            freq_recurrence_factor: rec,
            active_start_date: yyyymmdd(start),
            active_end_date: end_days.map_or(99991231, |d| yyyymmdd(start + Duration::days(d))),
            active_start_time: hhmmss(t0),
            active_end_time: hhmmss(t1),
        })
}

/// An instant between 1995 and 2035, on a whole second.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (788_918_400i64..2_051_222_400).prop_map(|s| DateTime::from_timestamp(s, 0).expect("in range"))
}

/// A schedule and an instant where it is likely to be active: mostly within a few years after
/// its start date, often in a month with DST transitions (March, April, September to
/// November) of the years after it, sometimes anywhere.
fn schedule_and_instant() -> impl Strategy<Value = (AgentSchedule, DateTime<Utc>)> {
    let near = prop_oneof![
        2 => (-2 * 86_400i64..1500 * 86_400).prop_map(|o| (Some(o), None)),
        2 => (0i32..4, prop::sample::select(vec![3u32, 4, 9, 10, 11]), 0i64..31 * 86_400)
            .prop_map(|(y, m, o)| (None, Some((y, m, o)))),
        1 => Just((None, None)),
    ];
    (schedule(), near, instant()).prop_map(|(s, near, anywhere)| {
        let start = agent::date_from_int(s.active_start_date);
        let at = match (start, near) {
            (Some(d), (Some(o), _)) => d.and_hms_opt(0, 0, 0).expect("midnight").and_utc() + Duration::seconds(o),
            (Some(d), (_, Some((y, m, o)))) => {
                NaiveDate::from_ymd_opt(d.year() + y, m, 1)
                    .expect("first of month")
                    .and_hms_opt(0, 0, 0)
                    .expect("midnight")
                    .and_utc()
                    + Duration::seconds(o)
            }
            _ => anywhere,
        };
        (s, at)
    })
}

fn is_strictly_increasing(os: &[Occurrence]) -> bool {
    os.windows(2).all(|w| w[0].at < w[1].at)
}

/// A deliberately naive oracle: walks every day around the window, tests each rule literally,
/// steps through the day's times one by one and resolves DST by scanning minute by minute.
fn oracle(s: &AgentSchedule, z: Zone, w: Window) -> Vec<Occurrence> {
    let parse = |v: i64| agent::date_from_int(v);
    let (Some(start), Some(end)) = (parse(s.active_start_date), parse(s.active_end_date)) else {
        return vec![];
    };
    let (Some(t0), Some(t1)) = (agent::time_from_int(s.active_start_time), agent::time_from_int(s.active_end_time))
    else {
        return vec![];
    };
    let every = s.freq_recurrence_factor.max(1);
    let months_since = |d: NaiveDate| (d.year() - start.year()) as i64 * 12 + d.month() as i64 - start.month() as i64;
    let due = |d: NaiveDate| -> bool {
        if d < start || d > end {
            return false;
        }
        let wd = d.weekday().num_days_from_sunday();
        match s.freq_type {
            1 => d == start,
            4 => (d - start).num_days() % s.freq_interval == 0,
            8 => ((d - start).num_days() / 7) % every == 0 && s.freq_interval & (1 << wd) != 0,
            16 => months_since(d) % every == 0 && d.day() as i64 == s.freq_interval,
            32 => {
                if months_since(d) % every != 0 {
                    return false;
                }
                let is = |x: NaiveDate| {
                    let wd = x.weekday().num_days_from_sunday() as i64;
                    match s.freq_interval {
                        1..=7 => wd == s.freq_interval - 1,
                        8 => true,
                        9 => (1..=5).contains(&wd),
                        _ => wd == 0 || wd == 6,
                    }
                };
                let first = NaiveDate::from_ymd_opt(d.year(), d.month(), 1).expect("first of month");
                let month: Vec<NaiveDate> =
                    first.iter_days().take_while(|x| x.month() == d.month()).filter(|x| is(*x)).collect();
                let pick = match s.freq_relative_interval {
                    1 => month.first(),
                    2 => month.get(1),
                    4 => month.get(2),
                    8 => month.get(3),
                    _ => month.last(),
                };
                pick == Some(&d)
            }
            _ => false,
        }
    };
    let step = match (s.freq_type, s.freq_subday_type) {
        (1, _) | (_, 0 | 1) => None,
        (_, 2) => Some(s.freq_subday_interval),
        (_, 4) => Some(s.freq_subday_interval * 60),
        _ => Some(s.freq_subday_interval * 3600),
    };
    let resolve = |n: NaiveDateTime| -> (DateTime<Utc>, Option<Dst>) {
        match z.from_local_datetime(&n) {
            LocalResult::Single(x) => (x.with_timezone(&Utc), None),
            LocalResult::Ambiguous(a, b) => (a.with_timezone(&Utc).min(b.with_timezone(&Utc)), Some(Dst::Fold)),
            LocalResult::None => {
                let mut m = n.with_second(0).unwrap();
                loop {
                    m += Duration::minutes(1);
                    if let Some(x) = z.from_local_datetime(&m).earliest() {
                        return (x.with_timezone(&Utc), Some(Dst::Gap));
                    }
                }
            }
        }
    };
    let first_day = tz::to_local(w.start, z).date() - Duration::days(3);
    let last_day = tz::to_local(w.end, z).date() + Duration::days(1);
    let mut out: Vec<Occurrence> = Vec::new();
    let mut last: Option<DateTime<Utc>> = None;
    for d in first_day.iter_days().take_while(|d| *d <= last_day) {
        if !due(d) {
            continue;
        }
        let begin = d.and_time(t0);
        let mut stop = d.and_time(t1);
        if stop < begin {
            stop += Duration::days(1);
        }
        let mut n = begin;
        loop {
            let (at, dst) = resolve(n);
            if last.is_none_or(|l| at > l) {
                last = Some(at);
                if w.contains(at) {
                    out.push(Occurrence { at, local: tz::to_local(at, z), nominal: n, dst, schedule: 1 });
                }
            }
            match step {
                Some(st) if n + Duration::seconds(st) <= stop => n += Duration::seconds(st),
                _ => break,
            }
        }
    }
    out
}

/// One of the days of `year` on which `z`'s UTC offset changes (the `pick`-th, wrapping), or
/// `None` in a year without a change.
fn transition_day(z: Zone, year: i32, pick: usize) -> Option<NaiveDate> {
    let off = |d: NaiveDate| {
        let t = d.and_hms_opt(12, 0, 0).expect("noon").and_utc();
        tz::to_local(t, z) - t.naive_utc()
    };
    let first = NaiveDate::from_ymd_opt(year, 1, 1).expect("jan 1");
    let days: Vec<NaiveDate> =
        first.iter_days().take_while(|d| d.year() == year).filter(|d| off(*d) != off(*d + Duration::days(1))).collect();
    (!days.is_empty()).then(|| days[pick % days.len()])
}

/// Every day, with the sub-day columns `sub` between `t0` and `t1` (seconds after midnight).
fn daily_sub_day(sub: (i64, i64), t0: u32, t1: u32) -> AgentSchedule {
    AgentSchedule {
        freq_type: 4,
        freq_interval: 1,
        freq_subday_type: sub.0,
        freq_subday_interval: sub.1,
        active_start_date: 19900101,
        active_start_time: hhmmss(t0),
        active_end_time: hhmmss(t1),
        ..AgentSchedule::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn occurrences_increase_and_stay_inside((s, start) in schedule_and_instant(), z in zone(), len in 0i64..4 * 86_400) {
        let w = Window::new(start, start + Duration::seconds(len));
        let f = agent::forecast(7, &s, z, w);
        prop_assert!(is_strictly_increasing(&f.occurrences));
        for o in &f.occurrences {
            prop_assert!(w.contains(o.at), "{o:?} outside {w:?}");
            prop_assert_eq!(o.local, tz::to_local(o.at, z));
            prop_assert_eq!(o.schedule, 7);
        }
        if f.has_errors() {
            prop_assert!(f.occurrences.is_empty());
        }
    }

    #[test]
    fn adjacent_windows_add_up((s, a) in schedule_and_instant(), z in zone(), l1 in 0i64..2 * 86_400, l2 in 0i64..2 * 86_400) {
        let b = a + Duration::seconds(l1);
        let c = b + Duration::seconds(l2);
        let whole = agent::forecast(1, &s, z, Window::new(a, c));
        let mut parts = agent::forecast(1, &s, z, Window::new(a, b)).occurrences;
        parts.extend(agent::forecast(1, &s, z, Window::new(b, c)).occurrences);
        prop_assert_eq!(parts, whole.occurrences);
    }

    #[test]
    fn next_after_agrees_with_forecast((s, after) in schedule_and_instant(), z in zone(), span in 1i64..3 * 86_400) {
        let w = Window::new(after + Duration::nanoseconds(1), after + Duration::seconds(span));
        let f = agent::forecast(1, &s, z, w);
        let n = agent::next_after(1, &s, z, after, f.occurrences.len() + 1);
        prop_assert!(is_strictly_increasing(&n.occurrences));
        prop_assert!(n.occurrences.len() <= f.occurrences.len() + 1);
        prop_assert!(n.occurrences.len() >= f.occurrences.len());
        prop_assert_eq!(&n.occurrences[..f.occurrences.len()], &f.occurrences[..]);
        if let Some(extra) = n.occurrences.get(f.occurrences.len()) {
            prop_assert!(extra.at >= w.end);
        }
        for o in &n.occurrences {
            prop_assert!(o.at > after);
        }
    }

    /// The engine agrees with a naive day-by-day oracle, DST and all.
    #[test]
    fn agrees_with_naive_oracle((s, start) in schedule_and_instant(), z in zone(), len in 0i64..3 * 86_400) {
        let w = Window::new(start, start + Duration::seconds(len));
        let f = agent::forecast(1, &s, z, w);
        prop_assume!(!f.has_errors());
        prop_assume!(!f.diagnostics.iter().any(|d| d.message.contains("never")));
        prop_assert_eq!(f.occurrences, oracle(&s, z, w));
    }

    /// Around every DST transition of a year, a daily sub-day schedule agrees with the oracle.
    #[test]
    fn dst_transitions_agree_with_oracle(
        z in (prop::sample::select(ZONES[1..7].to_vec()), any::<bool>()).prop_map(|(tz, r)| zones::zone(tz, r)),
        year in 1995i32..2035,
        pick in 0usize..8,
        sub in prop_oneof![
            (10i64..=3600).prop_map(|n| (2i64, n)),
            (1i64..=180).prop_map(|n| (4, n)),
            (1i64..=6).prop_map(|n| (8, n)),
            Just((1, 0)),
        ],
        t0 in 0u32..86_400,
        t1 in 0u32..86_400,
        split in 0i64..4 * 86_400,
    ) {
        let day = transition_day(z, year, pick);
        prop_assume!(day.is_some());
        let (day, s) = (day.expect("assumed"), daily_sub_day(sub, t0, t1));
        let start = tz::local_to_instant(day.and_hms_opt(0, 0, 0).expect("midnight") - Duration::days(1), z);
        let w = Window::new(start, start + Duration::days(4));
        let f = agent::forecast(1, &s, z, w);
        prop_assume!(!f.has_errors());
        prop_assert_eq!(&f.occurrences, &oracle(&s, z, w));
        // Split anywhere (even inside the gap or fold): the halves add up.
        let mid = start + Duration::seconds(split);
        let mut halves = agent::forecast(1, &s, z, Window::new(start, mid)).occurrences;
        halves.extend(agent::forecast(1, &s, z, Window::new(mid, w.end)).occurrences);
        prop_assert_eq!(&halves, &f.occurrences);
    }

    /// The fast path (one resolution per stretch of constant offset) gives exactly the
    /// occurrences of resolving every due time on its own, over windows of up to 60 days, so
    /// across daylight-saving transitions (the generator favours their months), in chrono-tz
    /// zones and in the same zones as rules. At most 20,000 occurrences are compared per case.
    #[test]
    fn fast_path_equals_stepwise((s, start) in schedule_and_instant(), z in zone(), len in 0i64..60 * 86_400) {
        let w = Window::new(start, start + Duration::seconds(len));
        let fast = agent::forecast(1, &s, z, w);
        let w = match fast.occurrences.get(20_000) {
            Some(o) => Window::new(start, o.at),
            None => w,
        };
        let fast = agent::forecast(1, &s, z, w);
        prop_assert_eq!(&fast, &agent::forecast_stepwise(1, &s, z, w));
        let count = fast.occurrences.len().min(500) + 1;
        prop_assert_eq!(
            agent::next_after(1, &s, z, start, count),
            agent::next_after_stepwise(1, &s, z, start, count)
        );
    }

    /// The same around each transition of a year, with sub-day schedules of every step (the
    /// gap and the fold are where the stretches end), starting anywhere in the four days
    /// around it.
    #[test]
    fn fast_path_equals_stepwise_at_transitions(
        z in (prop::sample::select(ZONES[1..7].to_vec()), any::<bool>()).prop_map(|(tz, r)| zones::zone(tz, r)),
        year in 1995i32..2035,
        pick in 0usize..8,
        sub in prop_oneof![
            (10i64..=3600).prop_map(|n| (2i64, n)),
            (1i64..=180).prop_map(|n| (4, n)),
            (1i64..=6).prop_map(|n| (8, n)),
            Just((1, 0)),
        ],
        t0 in 0u32..86_400,
        t1 in 0u32..86_400,
        from in 0i64..4 * 86_400,
        len in 0i64..6 * 86_400,
    ) {
        let day = transition_day(z, year, pick);
        prop_assume!(day.is_some());
        let (day, s) = (day.expect("assumed"), daily_sub_day(sub, t0, t1));
        let start = tz::local_to_instant(day.and_hms_opt(0, 0, 0).expect("midnight") - Duration::days(2), z)
            + Duration::seconds(from);
        let w = Window::new(start, start + Duration::seconds(len));
        prop_assert_eq!(agent::forecast(1, &s, z, w), agent::forecast_stepwise(1, &s, z, w));
        prop_assert_eq!(agent::next_after(1, &s, z, start, 300), agent::next_after_stepwise(1, &s, z, start, 300));
    }

    /// next_after(k) then next_after from the last one continues the same sequence.
    #[test]
    fn next_after_chains((s, after) in schedule_and_instant(), z in zone()) {
        let five = agent::next_after(1, &s, z, after, 5).occurrences;
        if five.len() >= 2 {
            let rest = agent::next_after(1, &s, z, five[1].at, 3).occurrences;
            prop_assert_eq!(&rest[..], &five[2..]);
        }
    }

    #[test]
    fn never_panics_on_any_integers(
        fields in prop::array::uniform11(prop_oneof![
            any::<i64>(),
            -2i64..300,
            prop::sample::select(vec![i64::MIN, i64::MAX, 19900101, 20240229, 99991231, 235959, 240000]),
        ]),
        z in zone(),
        t in any::<i64>(),
        len in 0i64..86_400,
        count in 0usize..4,
    ) {
        let s = AgentSchedule {
            enabled: fields[0],
            freq_type: fields[1],
            freq_interval: fields[2],
            freq_subday_type: fields[3],
            freq_subday_interval: fields[4],
            freq_relative_interval: fields[5],
            freq_recurrence_factor: fields[6],
            active_start_date: fields[7],
            active_end_date: fields[8],
            active_start_time: fields[9],
            active_end_time: fields[10],
        };
        let secs = t.clamp(DateTime::<Utc>::MIN_UTC.timestamp(), DateTime::<Utc>::MAX_UTC.timestamp());
        let at = DateTime::from_timestamp(secs, 0).unwrap_or(DateTime::<Utc>::MIN_UTC);
        let end = at.checked_add_signed(Duration::seconds(len)).unwrap_or(DateTime::<Utc>::MAX_UTC);
        let _ = agent::validate(&s);
        let _ = describe::agent(&s);
        let f = agent::forecast(1, &s, z, Window::new(at, end));
        prop_assert!(is_strictly_increasing(&f.occurrences));
        let n = agent::next_after(1, &s, z, at, count);
        prop_assert!(n.occurrences.len() <= count);
        let _ = agent::next_after(1, &s, z, DateTime::<Utc>::MIN_UTC, count);
        let _ = agent::next_after(1, &s, z, DateTime::<Utc>::MAX_UTC, count);
        let _ = agent::forecast(1, &s, z, Window::new(DateTime::<Utc>::MAX_UTC - Duration::days(1), DateTime::<Utc>::MAX_UTC));
    }

    /// The cost of a one-day forecast does not depend on how long ago the schedule started:
    /// a schedule started in 2004 costs no more candidate steps than the same schedule
    /// started recently (in the same phase, so both are due on the same days).
    #[test]
    fn old_start_costs_no_more(s in schedule(), z in zone(), day in date_between((2020, 1, 1), 3000)) {
        prop_assume!(matches!(s.freq_type, 4 | 8 | 16 | 32));
        let old_start = NaiveDate::from_ymd_opt(2004, 1, 1).expect("date");
        let recent = day - Duration::days(40);
        let every = s.freq_recurrence_factor.max(1);
        // The latest start before `recent` in the same phase as 2004-01-01.
        let new_start = match s.freq_type {
            4 | 8 => {
                let period = if s.freq_type == 4 { s.freq_interval } else { 7 * every };
                let elapsed = (recent - old_start).num_days();
                old_start + Duration::days(elapsed / period * period)
            }
            _ => {
                let months = (recent.year() - 2004) as i64 * 12 + recent.month0() as i64;
                old_start + Months::new((months / every * every) as u32)
            }
        };
        let old = AgentSchedule { active_start_date: 20040101, active_end_date: 99991231, ..s.clone() };
        let new = AgentSchedule { active_start_date: yyyymmdd(new_start), active_end_date: 99991231, ..s };
        let start = tz::local_to_instant(day.and_hms_opt(0, 0, 0).expect("midnight"), z);
        let w = Window::new(start, start + Duration::days(1));
        let (fo, cost_old) = agent::forecast_with_cost(1, &old, z, w);
        let (fnew, cost_new) = agent::forecast_with_cost(1, &new, z, w);
        prop_assert_eq!(&fo.occurrences, &fnew.occurrences);
        prop_assert!(cost_old <= cost_new, "start 2004 cost {cost_old}, start {new_start} cost {cost_new}");
        // And the cost is the occurrences plus a small constant.
        prop_assert!(cost_old <= 2 * fo.occurrences.len() as u64 + 64, "cost {cost_old} for {} occurrences", fo.occurrences.len());
    }
}
