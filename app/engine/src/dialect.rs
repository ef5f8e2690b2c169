//! What every dialect shares: what a tick does while the job still runs ([`overlap_policy`]),
//! reading a source's columns leniently (timestamps, whole numbers, flags: a bad value is a
//! Diagnostic naming its column), and turning wall-clock times or a fixed cadence into
//! occurrences (`Clock`, `Until`, `collect`, `cadence`), capped at [`MAX_OCCURRENCES`].
//!
//! The dialects (`cron`, `mysql_event`, `job_table`, `service_broker`, `primentra`, `pgagent`) import from here;
//! `cron` re-exports the public items under their former `cron::` paths.
use super::{Diagnostic, Dst, Occurrence, Schedule, ScheduleId, Severity, Window, Zone, tz};
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

/// What happens to a tick that comes while the previous run of the job is still going.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Overlap {
    /// The tick is skipped (SQL Server Agent: a running job is not started again).
    Skip,
    /// The tick is held and the run starts when the previous one ends: late, not missed.
    Queue,
    /// A second instance starts alongside the first.
    Concurrent,
}

/// What each dialect does with a tick that arrives while the job is still running.
///
/// - Agent: skips it.
/// - pg_cron: queues it (one pending run at most; it starts when the running one ends).
/// - MySQL events: start another instance alongside (the event scheduler starts a thread per
///   execution).
/// - Seed 002 (job runner loop): the next cycle starts as soon as the long one ends.
/// - Seed 003 (Service Broker timer): the next run time is computed from the last run, so a
///   late run is followed at once by the next due one.
/// - Seed 004 (Primentra): the overlap guard logs "skipped" but leaves `NextScheduledRun`
///   alone, so the run happens at the first dispatcher cycle after the batch ends.
/// - pgAgent: the next run is computed when a run ends, from the minute after it: the times
///   the run covered are skipped.
pub fn overlap_policy(s: &Schedule) -> Overlap {
    match s {
        Schedule::Agent(_) | Schedule::PgAgent(_) => Overlap::Skip,
        Schedule::Cron(_) => Overlap::Queue,
        Schedule::MysqlEvent(_) => Overlap::Concurrent,
        Schedule::JobTable(_) | Schedule::ServiceBroker(_) | Schedule::Primentra(_) => Overlap::Queue,
    }
}

/// True when the scheduler runs a time it missed (down, or busy with another job) once, late,
/// as soon as it can, instead of dropping it: pgAgent (it computes the next time when a run
/// ends and starts every job whose time has passed). Reconciliation then gives such a late run
/// to the time it was for (see "Catching up" in [`crate::reconcile`]).
pub fn catches_up(s: &Schedule) -> bool {
    matches!(s, Schedule::PgAgent(_))
}

/// True when a tick that comes during a run starts late (when the run ends) instead of being
/// skipped: Agent false, pg_cron true.
pub fn queues_overlapping_ticks(s: &Schedule) -> bool {
    overlap_policy(s) == Overlap::Queue
}

// ---------------------------------------------------------------------------------------------
// Columns as sources store them, read leniently.
// ---------------------------------------------------------------------------------------------

/// A timestamp as databases print it: `2026-11-22 09:00:00`, `2026-11-22T09:00:00`, with
/// optional fractional seconds, or without seconds, or a bare date (midnight).
pub fn parse_timestamp(s: &str) -> Option<NaiveDateTime> {
    let t = s.trim();
    for f in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, f) {
            return Some(n);
        }
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(d.naive_utc());
    }
    NaiveDate::parse_from_str(t, "%Y-%m-%d").ok().map(|d| d.and_time(NaiveTime::MIN))
}

/// A timestamp field: `None` when absent or blank, an Error naming the field when unreadable.
pub(crate) fn timestamp_field(
    field: &str,
    v: &Option<String>,
    diags: &mut Vec<Diagnostic>,
) -> Result<Option<NaiveDateTime>, ()> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("null") => Ok(None),
        Some(t) => match parse_timestamp(t) {
            Some(n) => Ok(Some(n)),
            None => {
                diags.push(Diagnostic::error(field, t, "not a timestamp like 2026-11-22 09:00:00"));
                Err(())
            }
        },
    }
}

pub(crate) fn fmt_ts(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Lenient column values: a string, number, boolean or null, kept as the text it stands for
/// (so a bad value becomes a Diagnostic naming its column, not a deserialization failure).
pub(crate) fn loose<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string, number, boolean or null")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(if v { "1" } else { "0" }.to_owned()))
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
    }
    d.deserialize_any(V)
}

/// A whole-number column: `None` when absent or blank, an Error naming it when unreadable.
pub(crate) fn int_field(field: &str, v: &Option<String>, diags: &mut Vec<Diagnostic>) -> Result<Option<i64>, ()> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("null") => Ok(None),
        Some(t) => match t.parse::<i64>() {
            Ok(n) => Ok(Some(n)),
            Err(_) => {
                diags.push(Diagnostic::error(field, t, "not a whole number"));
                Err(())
            }
        },
    }
}

/// A BIT column: 0/1, true/false; `None` when absent.
pub(crate) fn flag_field(field: &str, v: &Option<String>, diags: &mut Vec<Diagnostic>) -> Result<Option<bool>, ()> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("null") => Ok(None),
        Some(t) if t == "1" || t.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(t) if t == "0" || t.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(t) => {
            diags.push(Diagnostic::error(field, t, "expected 0 or 1"));
            Err(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Occurrences: clocks, where collection stops, wall-clock times and cadences.
// ---------------------------------------------------------------------------------------------

/// The most occurrences one forecast returns; more are cut off with a Warning.
pub const MAX_OCCURRENCES: usize = 200_000;

/// The clock a schedule's wall-clock times are read on: a time zone, or a fixed offset
/// (MySQL's `+05:30`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clock {
    Zone(Zone),
    /// Seconds east of UTC.
    Fixed(i32),
}

impl Clock {
    pub(crate) fn resolve(self, local: NaiveDateTime) -> (DateTime<Utc>, Option<Dst>) {
        match self {
            Clock::Zone(tz) => tz::resolve(local, tz),
            Clock::Fixed(off) => {
                let at = local.checked_sub_signed(TimeDelta::seconds(i64::from(off))).unwrap_or(local);
                (at.and_utc(), None)
            }
        }
    }

    pub(crate) fn to_local(self, at: DateTime<Utc>) -> NaiveDateTime {
        match self {
            Clock::Zone(tz) => tz::to_local(at, tz),
            Clock::Fixed(off) => {
                let n = at.naive_utc();
                n.checked_add_signed(TimeDelta::seconds(i64::from(off))).unwrap_or(n)
            }
        }
    }

    /// The wall-clock time from which to walk so that every occurrence at or after `w` (and
    /// every nominal time merged into it) is seen: `w`'s wall clock, or a second after the wall
    /// clock just before `w` when `w` is the end of a gap.
    pub(crate) fn lower_bound(self, w: DateTime<Utc>) -> NaiveDateTime {
        let here = self.to_local(w);
        match w.checked_sub_signed(TimeDelta::seconds(1)) {
            Some(b) => {
                let before = self.to_local(b);
                let before = before.checked_add_signed(TimeDelta::seconds(1)).unwrap_or(before);
                here.min(before)
            }
            None => here,
        }
    }

    pub(crate) fn name(self) -> String {
        match self {
            Clock::Zone(tz) => tz.name().to_owned(),
            Clock::Fixed(off) => {
                let sign = if off < 0 { '-' } else { '+' };
                let a = off.unsigned_abs();
                format!("{sign}{:02}:{:02}", a / 3600, (a % 3600) / 60)
            }
        }
    }
}

/// Where collection stops.
pub(crate) enum Until {
    /// Every occurrence in the window.
    Window(Window),
    /// The first `count` strictly after the instant.
    After(DateTime<Utc>, usize),
}

impl Until {
    /// The wall-clock time (in `zone`) from which the nominal times must start.
    pub(crate) fn from(&self, zone: Clock) -> NaiveDateTime {
        match self {
            Until::Window(w) => zone.lower_bound(w.start),
            Until::After(a, _) => zone.lower_bound(*a),
        }
    }
    fn is_empty(&self) -> bool {
        match self {
            Until::Window(w) => w.is_empty(),
            Until::After(_, n) => *n == 0,
        }
    }
}

/// True when collection must stop: `count` reached, or the [`MAX_OCCURRENCES`] cap (which
/// also adds a warning).
fn is_full(out: &[Occurrence], until: &Until, diags: &mut Vec<Diagnostic>) -> bool {
    if let Until::After(_, n) = until
        && out.len() >= *n
    {
        return true;
    }
    if out.len() >= MAX_OCCURRENCES {
        diags.push(Diagnostic::new(
            Severity::Warning,
            None,
            None,
            format!("more than {MAX_OCCURRENCES} occurrences: the forecast is cut off"),
        ));
        return true;
    }
    false
}

/// Turns ascending nominal wall-clock times into occurrences: each is resolved in `zone`;
/// times landing on an instant not after the previous one (several times in one gap) merge
/// into it. `nominals` must start at or before [`Until::from`].
pub(crate) fn collect(
    id: ScheduleId,
    zone: Clock,
    nominals: impl Iterator<Item = NaiveDateTime>,
    until: &Until,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Occurrence> {
    let mut out = Vec::new();
    if until.is_empty() {
        return out;
    }
    let mut last: Option<DateTime<Utc>> = None;
    // Resolving once per stretch of constant offset (`tz::Resolver`), not once per time.
    let mut resolver = match zone {
        Clock::Zone(tz) => Some(tz::Resolver::new(tz)),
        Clock::Fixed(_) => None,
    };
    for nominal in nominals {
        let (at, dst, local) = match &mut resolver {
            Some(r) => r.resolve_local(nominal),
            None => {
                let (at, dst) = zone.resolve(nominal);
                (at, dst, zone.to_local(at))
            }
        };
        if last.is_some_and(|l| at <= l) {
            continue;
        }
        last = Some(at);
        let keep = match until {
            Until::Window(w) => {
                if at >= w.end {
                    break;
                }
                at >= w.start
            }
            Until::After(a, _) => at > *a,
        };
        if keep {
            out.push(Occurrence { at, local, nominal, dst, schedule: id });
            if is_full(&out, until, diags) {
                break;
            }
        }
    }
    out
}

/// `t` in nanoseconds since the epoch (wide enough for every `DateTime<Utc>`).
fn nanos(t: DateTime<Utc>) -> i128 {
    i128::from(t.timestamp()) * NANOS + i128::from(t.timestamp_subsec_nanos())
}

const NANOS: i128 = 1_000_000_000;

/// Occurrences of a fixed cadence in absolute time: `anchor + k × step` for every integer k
/// with the instant within `[first, last]` when those are given (no daylight saving: the wall
/// clock in `zone` is only for display). The anchor is kept to the nanosecond: a fractional
/// anchor gives fractional occurrences (a caller whose scheduler ticks on whole seconds
/// truncates it first).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cadence(
    id: ScheduleId,
    zone: Clock,
    anchor: DateTime<Utc>,
    step: i64,
    first: Option<DateTime<Utc>>,
    last: Option<DateTime<Utc>>,
    until: &Until,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Occurrence> {
    let mut out = Vec::new();
    if step <= 0 || until.is_empty() {
        return out;
    }
    // The earliest instant an occurrence may fall on.
    let mut lo = match until {
        Until::Window(w) => nanos(w.start),
        Until::After(t, _) => nanos(*t) + 1,
    };
    if let Some(f) = first {
        lo = lo.max(nanos(f));
    }
    let (a, s) = (nanos(anchor), i128::from(step) * NANOS);
    let diff = lo - a;
    let mut k = diff.div_euclid(s) + i128::from(diff.rem_euclid(s) != 0);
    while let Some(at) = instant(a + k * s) {
        if last.is_some_and(|e| at > e) {
            break;
        }
        if let Until::Window(w) = until
            && at >= w.end
        {
            break;
        }
        let local = zone.to_local(at);
        out.push(Occurrence { at, local, nominal: local, dst: None, schedule: id });
        if is_full(&out, until, diags) {
            break;
        }
        k += 1;
    }
    out
}

/// The instant `n` nanoseconds after the epoch, if there is one.
fn instant(n: i128) -> Option<DateTime<Utc>> {
    let secs = i64::try_from(n.div_euclid(NANOS)).ok()?;
    let sub = u32::try_from(n.rem_euclid(NANOS)).ok()?;
    DateTime::<Utc>::from_timestamp(secs, sub)
}
