//! A zone given as rules ([`Zone::Rules`], what the browser computes with) must compute exactly
//! what the same chrono-tz zone ([`Zone::Named`], the server's) computes:
//!
//! - every case in `tests/cases/{agent,cron,mysql_event}/*.toml` (in its `tz`, UTC when it has
//!   none; an event with a named TIME_ZONE in that zone too) forecasts the same occurrences, DST
//!   flags and diagnostics both ways;
//! - offsets and local-time resolution (single, fold, gap) agree on generated instants and
//!   wall-clock times in zones with odd daylight saving, and around every transition of every
//!   zone of the tz database.
use crate::support::cases::{self, CaseFile};
use crate::support::{cases_root, parse_local, zones};
use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use proptest::prelude::*;
use sundial_engine::cron::{self, CronSchedule};
use sundial_engine::mysql_event::{self, MysqlEvent};
use sundial_engine::{self as engine, AgentSchedule, Forecast, Schedule, Window, Zone, ZoneRules, tz};

// ---------------------------------------------------------------------------------------------
// The case files, forecast both ways.
// ---------------------------------------------------------------------------------------------

/// The keys of a case that say what to forecast (the expectations are the case files' own
/// tests' business, `agent_cases.rs` and `dialect_cases.rs`).
#[derive(serde::Deserialize)]
struct Case {
    name: String,
    tz: Option<String>,
    schedule: toml::Value,
    after: Option<String>,
    window: Option<[String; 2]>,
    count: Option<usize>,
    expect: Option<Vec<String>>,
}

#[derive(serde::Deserialize)]
struct File {
    #[serde(default)]
    case: Vec<Case>,
}

impl CaseFile for File {
    fn len(&self) -> usize {
        self.case.len()
    }
}

fn schedule_of(dir: &str, v: toml::Value) -> Result<Schedule, String> {
    let e = |e: toml::de::Error| format!("schedule does not deserialize: {e}");
    Ok(match dir {
        "agent" => Schedule::Agent(v.try_into::<AgentSchedule>().map_err(e)?),
        "cron" => match v {
            toml::Value::String(s) => Schedule::Cron(CronSchedule::new(s)),
            other => Schedule::Cron(other.try_into().map_err(e)?),
        },
        "mysql_event" => Schedule::MysqlEvent(v.try_into::<MysqlEvent>().map_err(e)?),
        other => return Err(format!("no dialect for directory {other}")),
    })
}

/// What one case computes in one zone: the forecast over its window (if it has one), the
/// next occurrences after its `after` (its own count, then 200 to cross more transitions),
/// and its zone-dependent texts.
fn outcome(schedule: &Schedule, c: &Case, z: Zone) -> Result<(Vec<Forecast>, Vec<String>), String> {
    let mut forecasts = Vec::new();
    if let Some([a, b]) = &c.window {
        let w = Window::new(tz::local_to_instant(parse_local(a)?, z), tz::local_to_instant(parse_local(b)?, z));
        forecasts.push(engine::forecast(7, schedule, z, w));
    }
    let after = parse_local(c.after.as_deref().unwrap_or("2026-01-01T00:00:00"))?;
    let after = tz::local_to_instant(after, z);
    let count = c.count.or(c.expect.as_ref().map(Vec::len)).unwrap_or(5);
    for n in [count, 200] {
        forecasts.push(engine::next_after(7, schedule, z, after, n));
    }
    let mut texts = vec![after.to_rfc3339()];
    match schedule {
        Schedule::Cron(s) => texts.push(cron::describe_in(s, z)),
        Schedule::MysqlEvent(e) => texts.extend(mysql_event::validate(e, z).iter().map(|d| d.to_string())),
        _ => {}
    }
    Ok((forecasts, texts))
}

#[test]
fn every_case_forecasts_the_same_with_rules() {
    let mut failures = Vec::new();
    let (mut compared, mut zoned, mut occurrences) = (0, 0, 0);
    for dir in ["agent", "cron", "mysql_event"] {
        let (files, unread) = cases::load_dir::<File>(&cases_root().join(dir));
        failures.extend(unread);
        for (short, file) in files {
            for c in file.case {
                let name = c.tz.as_deref().unwrap_or("UTC");
                let Ok(tz) = name.parse::<Tz>() else {
                    failures.push(format!("{short} / {}: bad tz {name:?}", c.name));
                    continue;
                };
                let schedule = match schedule_of(dir, c.schedule.clone()) {
                    Ok(s) => s,
                    Err(e) => {
                        failures.push(format!("{short} / {}: {e}", c.name));
                        continue;
                    }
                };
                // An event in a named TIME_ZONE other than `tz` is read in chrono-tz both ways:
                // run it in that zone too (then TIME_ZONE is `tz`'s own name).
                let mut zones_of_case = vec![tz];
                if let Schedule::MysqlEvent(e) = &schedule
                    && let Some(Ok(event_tz)) = e.time_zone.as_deref().map(|z| z.trim().parse::<Tz>())
                    && event_tz != tz
                {
                    zones_of_case.push(event_tz);
                }
                for tz in zones_of_case {
                    let named = outcome(&schedule, &c, Zone::Named(tz));
                    let rules = outcome(&schedule, &c, zones::rules(tz));
                    compared += 1;
                    zoned += usize::from(tz != Tz::UTC);
                    if let Ok((f, _)) = &named {
                        occurrences += f.iter().map(|f| f.occurrences.len()).sum::<usize>();
                    }
                    if named != rules {
                        failures.push(format!(
                            "{short} / {} in {tz}:\n  chrono-tz: {named:?}\n  rules:     {rules:?}",
                            c.name
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "zone rules: {compared} case runs compared ({zoned} in a zone other than UTC), {occurrences} occurrences"
    );
    assert!(failures.is_empty(), "{} case(s) differ:\n{}", failures.len(), failures.join("\n"));
    assert!(compared >= 150, "only {compared} cases found");
}

// ---------------------------------------------------------------------------------------------
// Offsets and local times.
// ---------------------------------------------------------------------------------------------

/// What chrono says of a wall-clock time in a zone: each candidate instant with its offset.
fn resolution<Z: TimeZone>(z: &Z, local: NaiveDateTime) -> Vec<(DateTime<Utc>, i32)> {
    let one = |d: DateTime<Z>| (d.with_timezone(&Utc), d.offset().fix().local_minus_utc());
    match z.from_local_datetime(&local) {
        LocalResult::Single(a) => vec![one(a)],
        LocalResult::Ambiguous(a, b) => vec![one(a), one(b)],
        LocalResult::None => vec![],
    }
}

fn offset<Z: TimeZone>(z: &Z, at: DateTime<Utc>) -> i32 {
    z.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc()
}

/// Zones with daylight saving of every odd kind.
const DST_ZONES: [Tz; 7] = [
    chrono_tz::America::New_York,
    chrono_tz::Europe::London,
    chrono_tz::Australia::Sydney,
    chrono_tz::Australia::Lord_Howe, // 30-minute DST
    chrono_tz::Pacific::Chatham,     // +12:45 / +13:45
    chrono_tz::Africa::Casablanca,   // DST suspended for Ramadan, negative DST since 2018
    chrono_tz::America::Santiago,    // transitions at midnight
];

fn at(s: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(s, 0).expect("in range")
}

/// Checks one instant and one wall-clock time in `tz` both ways; the problem, if any.
fn agree(tz: Tz, instant: i64, local: i64) -> Result<(), String> {
    let r = zones::rules(tz);
    let (n, t) = (Zone::Named(tz), at(instant));
    if offset(&tz, t) != offset(&r, t) || offset(&n, t) != offset(&tz, t) {
        return Err(format!("{tz}: offset at {t}: chrono-tz {} rules {}", offset(&tz, t), offset(&r, t)));
    }
    if tz::to_local(t, n) != tz::to_local(t, r) {
        return Err(format!("{tz}: wall clock at {t} differs"));
    }
    let l = at(local).naive_utc();
    let want = resolution(&tz, l);
    if resolution(&r, l) != want || resolution(&n, l) != want {
        return Err(format!("{tz}: {l} resolves to {want:?} in chrono-tz, {:?} with rules", resolution(&r, l)));
    }
    if tz::resolve(l, n) != tz::resolve(l, r) {
        return Err(format!("{tz}: tz::resolve({l}) differs"));
    }
    #[allow(deprecated)]
    let dates =
        (tz.offset_from_local_date(&l.date()).map(|o| o.fix()), r.offset_from_local_date(&l.date()).map(|o| o.fix()));
    if dates.0 != dates.1 {
        return Err(format!("{tz}: offset_from_local_date({}) differs: {dates:?}", l.date()));
    }
    Ok(())
}

/// Seconds near a transition of `tz`'s rules (`pick` chooses which, `delta` how far).
fn near_transition(tz: Tz, pick: usize, delta: i64) -> i64 {
    let Zone::Rules(r) = zones::rules(tz) else { unreachable!() };
    let ts = r.transitions();
    ts[pick % ts.len()].0 + delta
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    /// Anywhere in 1970..2100: instants and wall-clock times.
    #[test]
    fn offsets_and_local_times_agree_anywhere(
        tz in prop::sample::select(DST_ZONES.to_vec()),
        instant in zones::FROM..zones::TO,
        local in zones::FROM + 86_400..zones::TO,
    ) {
        prop_assert_eq!(agree(tz, instant, local), Ok(()));
    }

    /// Within four hours of a transition (inside the gaps and folds), to the second.
    #[test]
    fn offsets_and_local_times_agree_near_transitions(
        tz in prop::sample::select(DST_ZONES.to_vec()),
        pick in any::<usize>(),
        delta in -4 * 3600i64..4 * 3600,
        local_delta in -4 * 3600i64..4 * 3600,
    ) {
        let t = near_transition(tz, pick, delta);
        // Wall clock near the transition: the instant read on either side's clock.
        let local = near_transition(tz, pick, local_delta) + i64::from(offset(&tz, at(t)));
        prop_assert_eq!(agree(tz, t, local), Ok(()));
    }
}

/// Every zone of the tz database, at each transition since 1970: the instants on either side,
/// and the wall-clock times at, just before and just after both ends of each gap or fold.
#[test]
fn every_zone_agrees_at_every_transition() {
    let mut failures = Vec::new();
    let mut transitions = 0;
    for &tz in chrono_tz::TZ_VARIANTS.iter() {
        let Zone::Rules(r) = zones::rules(tz) else { unreachable!() };
        let mut before = r.initial();
        for &(t, after) in r.transitions() {
            transitions += 1;
            let (b, a) = (i64::from(before), i64::from(after));
            let (lo, hi) = (t + b.min(a), t + b.max(a));
            for (i, l) in
                [(t - 1, lo - 1), (t, lo), (t + 1, lo + 1), (t, (lo + hi) / 2), (t, hi - 1), (t, hi), (t, hi + 1)]
            {
                if let Err(e) = agree(tz, i, l) {
                    failures.push(e);
                }
            }
            before = after;
        }
        // And between transitions: every three days (no offset since 1970 lasted less than
        // six), at an hour that drifts through the day.
        let rules = zones::rules(tz);
        for k in 0..(zones::TO - zones::FROM) / (3 * 86_400) {
            let t = at(zones::FROM + k * 3 * 86_400 + k * 3_607 % 86_400);
            if offset(&tz, t) != offset(&rules, t) {
                failures.push(format!("{tz}: offset at {t} differs"));
            }
        }
    }
    eprintln!("zone rules: {} zones, {transitions} transitions since 1970 checked", chrono_tz::TZ_VARIANTS.len());
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n{}",
        failures.len(),
        failures.iter().take(50).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Outside the span the rules were extracted for, the nearest known offset applies.
#[test]
fn outside_the_span_the_nearest_offset_applies() {
    let ny = chrono_tz::America::New_York;
    let t = |s: &str| s.parse::<DateTime<Utc>>().expect("an instant");
    let r = ZoneRules::from_tz(ny, t("2000-01-01T00:00:00Z"), t("2001-01-01T00:00:00Z")).leak();
    // Inside: 2000's two changes.
    assert_eq!((r.initial(), r.transitions().len()), (-5 * 3600, 2));
    // 1999-07-01: New York was on EDT, but before `from` the offset at `from` (EST) applies.
    assert_eq!(offset(&Zone::Rules(r), t("1999-07-01T12:00:00Z")), -5 * 3600);
    // 2001-07-01: after `to`, the last offset of 2000 (EST) applies.
    assert_eq!(offset(&Zone::Rules(r), t("2001-07-01T12:00:00Z")), -5 * 3600);
    assert_eq!(offset(&ny, t("2001-07-01T12:00:00Z")), -4 * 3600);
}

/// Rules survive the JSON trip from the server to the browser, and the zone deserialized there
/// (from the rules, then from its name) computes as chrono-tz does.
#[test]
fn rules_travel_as_json() {
    let tz = chrono_tz::Australia::Lord_Howe;
    let Zone::Rules(r) = zones::rules(tz) else { unreachable!() };
    let json = serde_json::to_string(r).expect("serializes");
    let back: ZoneRules = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(&back, r);
    let z: Zone = serde_json::from_str(&json).expect("a zone from its rules");
    assert_eq!(z, Zone::Rules(r));
    assert_eq!(z.name(), "Australia/Lord_Howe");
    eprintln!("zone rules: {} as JSON: {} bytes, {} transitions", tz, json.len(), r.transitions().len());
    // By name, with the tz database: chrono-tz's zone.
    assert_eq!(serde_json::from_str::<Zone>("\"Australia/Lord_Howe\"").expect("by name"), Zone::Named(tz));
}
