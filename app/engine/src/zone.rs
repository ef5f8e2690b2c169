//! Time zones as the engine computes with them: [`Zone`], a chrono [`TimeZone`] that is either a
//! chrono-tz zone or a zone's rules given as data ([`ZoneRules`]).
//!
//! The browser cannot afford chrono-tz's compiled tz database, so there the server sends the
//! instance zone's UTC offset transitions ([`ZoneRules::from_tz`], feature `tzdb`) and the
//! engine computes with those: the results are the same as with chrono-tz for every instant
//! and every wall-clock time inside the span the rules were extracted for.
//!
//! Without the cargo feature `tzdb` (on by default) this crate does not depend on chrono-tz
//! at all: [`Zone::Named`] and [`ZoneRules::from_tz`] are gone, and only rules given as data
//! (and [`Zone::UTC`]) remain.
use chrono::{DateTime, FixedOffset, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Mutex;

#[cfg(feature = "tzdb")]
use chrono_tz::Tz;

/// A time zone: a chrono-tz zone (feature `tzdb`) or rules given as data. Both give the same
/// offsets and the same local-time resolution (gaps, folds) as chrono-tz, so any
/// chrono code (croner included) works with `DateTime<Zone>` unchanged.
///
/// `Copy`: the rules are `&'static` (see [`ZoneRules::leak`]). Equality compares the variant
/// and the zone: a `Named` and a `Rules` zone for the same IANA name are not equal, even though
/// they compute the same.
///
/// Serialized as its IANA name (`"Europe/Berlin"`, as chrono-tz's `Tz` is). Deserialized from
/// a name ([`Zone::from_name`]) or from a [`ZoneRules`] object (leaked with
/// [`ZoneRules::leak`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// A zone of chrono-tz's compiled tz database.
    #[cfg(feature = "tzdb")]
    Named(Tz),
    /// A zone given as its offset transitions.
    Rules(&'static ZoneRules),
}

static UTC_RULES: ZoneRules = ZoneRules { name: Cow::Borrowed("UTC"), initial: 0, transitions: Vec::new() };

/// Every rules value [`ZoneRules::leak`] has leaked, so that equal rules are leaked once and
/// [`Zone::from_name`] finds them.
static LEAKED: Mutex<Vec<&'static ZoneRules>> = Mutex::new(Vec::new());

impl Zone {
    /// UTC, as rules (available with or without the tz database).
    pub const UTC: Zone = Zone::Rules(&UTC_RULES);

    /// The zone's IANA name (`Europe/Berlin`).
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => tz.name(),
            Zone::Rules(r) => &r.name,
        }
    }

    /// The zone called `name`: a zone of the tz database (feature `tzdb`), else the rules of
    /// that name leaked most recently ([`ZoneRules::leak`]), else [`Zone::UTC`] for `"UTC"`;
    /// `None` when none of those knows the name.
    pub fn from_name(name: &str) -> Option<Zone> {
        #[cfg(feature = "tzdb")]
        if let Ok(tz) = name.parse::<Tz>() {
            return Some(Zone::Named(tz));
        }
        let leaked = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = leaked.iter().rev().find(|r| r.name == name) {
            return Some(Zone::Rules(r));
        }
        (name == "UTC").then_some(Zone::UTC)
    }

    /// Seconds east of UTC in effect at the instant `utc` (UTC wall clock).
    fn offset_secs_at(self, utc: &NaiveDateTime) -> i32 {
        match self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => tz.offset_from_utc_datetime(utc).fix().local_minus_utc(),
            Zone::Rules(r) => r.offset_at(utc.and_utc().timestamp()),
        }
    }

    fn offset(self, secs: i32) -> ZoneOffset {
        ZoneOffset { zone: self, fix: fixed(secs) }
    }

    /// How long the offset in effect at the instant `at` (Unix seconds) lasts, for
    /// [`tz::Resolver`](crate::tz::Resolver): `None` when that is not known well enough to
    /// skip resolving (rules whose offsets change within days of each other, instants outside
    /// chrono's range).
    ///
    /// - Rules: exact, from the transitions. Spans shorter than [`SHORT_SPAN`] (this one) or
    ///   two days (either neighbour) give `None`: local times there may belong to spans other
    ///   than the adjacent ones.
    /// - A tz database zone: the offset every [`SHORT_SPAN`] from `at`, up to `pieces` pieces
    ///   (at most [`RUN_PIECES`]); the first change is bisected to the second. Exact because no offset of the tz
    ///   database since 1970 lasted less than six days (the same fact [`ZoneRules::from_tz`]
    ///   rests on), so a piece with equal offsets at its ends has no change inside, and one
    ///   with different offsets has exactly one.
    pub(crate) fn offset_run(self, at: i64, pieces: usize) -> Option<OffsetRun> {
        match self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => {
                let off = |t: i64| -> Option<i32> {
                    let u = DateTime::<Utc>::from_timestamp(t, 0)?;
                    Some(tz.offset_from_utc_datetime(&u.naive_utc()).fix().local_minus_utc())
                };
                let offset = off(at)?;
                // Piece by piece: equal offsets at both ends of a piece shorter than six days
                // mean no change inside it.
                let mut lo = at;
                let mut hi = None;
                for _ in 0..pieces.clamp(1, RUN_PIECES) {
                    let Some(next) = lo.checked_add(SHORT_SPAN) else { break };
                    if off(next)? != offset {
                        hi = Some(next);
                        break;
                    }
                    lo = next;
                }
                let Some(mut hi) = hi else {
                    return (lo > at).then_some(OffsetRun { offset, until: lo, next: None });
                };
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if off(mid)? == offset {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                Some(OffsetRun { offset, until: hi, next: Some(off(hi)?) })
            }
            Zone::Rules(r) => {
                let _ = pieces; // rules know their transitions: no look-ahead
                let t = &r.transitions;
                let i = t.partition_point(|(x, _)| *x <= at);
                let start = i.checked_sub(1).map(|j| t[j].0);
                let until = t.get(i).map(|x| x.0);
                let span = |a: Option<i64>, b: Option<i64>| match (a, b) {
                    (Some(a), Some(b)) => b.saturating_sub(a),
                    _ => i64::MAX,
                };
                let prev = i.checked_sub(2).map(|j| t[j].0);
                let after_next = t.get(i + 1).map(|x| x.0);
                if span(start, until) < SHORT_SPAN
                    || span(prev, start) < 2 * 86_400
                    || span(until, after_next) < 2 * 86_400
                {
                    return None;
                }
                Some(OffsetRun {
                    offset: r.span_offset(i),
                    until: until.unwrap_or(i64::MAX),
                    next: t.get(i).map(|x| x.1),
                })
            }
        }
    }
}

/// Four days: the pieces in which [`Zone::offset_run`] looks ahead, and the shortest span of
/// rules it vouches for.
pub(crate) const SHORT_SPAN: i64 = 4 * 86_400;

/// The most pieces of [`SHORT_SPAN`] [`Zone::offset_run`] looks ahead in a tz database zone
/// (about four months, so a long forecast resolves once or twice per daylight-saving season).
pub(crate) const RUN_PIECES: usize = 32;

/// The offset in effect at an instant and how long it lasts ([`Zone::offset_run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OffsetRun {
    /// Seconds east of UTC.
    pub offset: i32,
    /// The offset holds from the instant asked about up to this instant (Unix seconds,
    /// exclusive).
    pub until: i64,
    /// The offset from `until` on, when known (`None`: `until` is only how far it was looked).
    pub next: Option<i32>,
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => write!(f, "Named({})", tz.name()),
            Zone::Rules(r) => write!(f, "Rules({}, {} transitions)", r.name, r.transitions.len()),
        }
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "tzdb")]
impl From<Tz> for Zone {
    fn from(tz: Tz) -> Zone {
        Zone::Named(tz)
    }
}

impl From<&'static ZoneRules> for Zone {
    fn from(r: &'static ZoneRules) -> Zone {
        Zone::Rules(r)
    }
}

impl Serialize for Zone {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Zone {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Zone, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Name(String),
            Rules(ZoneRules),
        }
        match Form::deserialize(d)? {
            Form::Name(n) => Zone::from_name(&n).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown time zone {n:?} (no tz database entry and no rules of that name)"
                ))
            }),
            Form::Rules(r) => Ok(Zone::Rules(r.leak())),
        }
    }
}

/// The offset of a [`Zone`] at some instant: the zone (chrono needs it back from the offset)
/// and its fixed offset. Displayed as the fixed offset (`+05:30`), never as an abbreviation,
/// so that both kinds of zone print the same.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ZoneOffset {
    zone: Zone,
    fix: FixedOffset,
}

impl ZoneOffset {
    /// The zone this offset belongs to.
    pub fn zone(&self) -> Zone {
        self.zone
    }
}

impl Offset for ZoneOffset {
    fn fix(&self) -> FixedOffset {
        self.fix
    }
}

impl fmt::Display for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.fix, f)
    }
}

impl fmt::Debug for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.fix, f)
    }
}

/// A fixed offset of `secs` east of UTC (validated rules keep it within ±24 h; UTC otherwise).
fn fixed(secs: i32) -> FixedOffset {
    FixedOffset::east_opt(secs).unwrap_or_else(|| Utc.fix())
}

impl TimeZone for Zone {
    type Offset = ZoneOffset;

    fn from_offset(offset: &ZoneOffset) -> Zone {
        offset.zone
    }

    #[allow(deprecated)]
    fn offset_from_local_date(&self, local: &NaiveDate) -> LocalResult<ZoneOffset> {
        match *self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => tz.offset_from_local_date(local).map(|o| self.offset(o.fix().local_minus_utc())),
            Zone::Rules(r) => {
                // As chrono-tz: one offset that occurs on that day, if any.
                let at = |t: NaiveTime| r.local_offsets(local.and_time(t).and_utc().timestamp());
                let earliest = at(NaiveTime::MIN);
                let latest = at(NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN));
                use LocalResult::{Ambiguous, None, Single};
                let o = match (earliest, latest) {
                    (Single(o), _) | (_, Single(o)) => o,
                    (Ambiguous(o, _), _) | (_, Ambiguous(o, _)) => o,
                    (None, None) => return None,
                };
                Single(self.offset(o))
            }
        }
    }

    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> LocalResult<ZoneOffset> {
        match *self {
            #[cfg(feature = "tzdb")]
            Zone::Named(tz) => tz.offset_from_local_datetime(local).map(|o| self.offset(o.fix().local_minus_utc())),
            Zone::Rules(r) => r.local_offsets(local.and_utc().timestamp()).map(|o| self.offset(o)),
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> ZoneOffset {
        self.offset_from_utc_datetime(&utc.and_time(NaiveTime::MIN))
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> ZoneOffset {
        self.offset(self.offset_secs_at(utc))
    }
}

/// A zone's rules as data: its IANA name, the offset before the first transition, and its UTC
/// offset transitions (when each offset starts). What the server sends the browser:
///
/// ```json
/// {"name":"Europe/Berlin","initial":3600,"transitions":[[7945200,7200],[25693200,3600]]}
/// ```
///
/// An instant before the first transition has the `initial` offset; from a transition's
/// instant (inclusive) to the next one's (exclusive), that transition's offset; after the last
/// one, the last offset, forever. Deserializing checks the data ([`ZoneRules::new`]).
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RulesData")]
pub struct ZoneRules {
    name: Cow<'static, str>,
    initial: i32,
    transitions: Vec<(i64, i32)>,
}

#[derive(Deserialize)]
struct RulesData {
    name: String,
    initial: i32,
    #[serde(default)]
    transitions: Vec<(i64, i32)>,
}

impl TryFrom<RulesData> for ZoneRules {
    type Error = ZoneRulesError;
    fn try_from(d: RulesData) -> Result<ZoneRules, ZoneRulesError> {
        ZoneRules::new(d.name, d.initial, d.transitions)
    }
}

/// Why rules were refused by [`ZoneRules::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneRulesError(String);

impl fmt::Display for ZoneRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ZoneRulesError {}

impl fmt::Debug for ZoneRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZoneRules")
            .field("name", &self.name)
            .field("initial", &self.initial)
            .field("transitions", &self.transitions.len())
            .finish()
    }
}

/// The largest offset magnitude chrono accepts (a day, exclusive).
const MAX_OFFSET: i32 = 86_399;

/// A span of time (UTC or local seconds), `[begin, end)`, unbounded where `None`; chrono-tz's
/// `Span`, so that local times resolve exactly as there.
struct Span {
    begin: Option<i64>,
    end: Option<i64>,
}

impl Span {
    fn contains(&self, x: i64) -> bool {
        self.begin.is_none_or(|a| a <= x) && self.end.is_none_or(|b| x < b)
    }

    /// `Less` when the span lies before `x`, `Greater` after, `Equal` when it contains it.
    fn cmp(&self, x: i64) -> Ordering {
        if self.end.is_some_and(|b| b <= x) {
            Ordering::Less
        } else if self.begin.is_some_and(|a| a > x) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}

/// chrono-tz's binary search over indices (`binary_search_by` semantics).
fn binary_search(mut start: usize, mut end: usize, mut f: impl FnMut(usize) -> Ordering) -> Result<usize, usize> {
    loop {
        let mid = start + (end - start) / 2;
        if mid == end {
            return Err(start);
        }
        match f(mid) {
            Ordering::Less => start = mid + 1,
            Ordering::Greater => end = mid,
            Ordering::Equal => return Ok(mid),
        }
    }
}

impl ZoneRules {
    /// Rules from their parts. `transitions` are `(instant, offset)`: the instant in seconds
    /// since the Unix epoch from which `offset` (seconds east of UTC) applies. Refused when the
    /// instants are not strictly increasing or outside chrono's range, or an offset is not
    /// within ±24 hours.
    pub fn new(
        name: impl Into<String>,
        initial: i32,
        transitions: Vec<(i64, i32)>,
    ) -> Result<ZoneRules, ZoneRulesError> {
        let name = name.into();
        let bad = |m: String| Err(ZoneRulesError(format!("time zone rules for {name:?}: {m}")));
        if initial.abs() > MAX_OFFSET {
            return bad(format!("offset {initial} is not within ±24 hours"));
        }
        for (i, &(at, off)) in transitions.iter().enumerate() {
            if off.abs() > MAX_OFFSET {
                return bad(format!("offset {off} is not within ±24 hours"));
            }
            if DateTime::<Utc>::from_timestamp(at, 0).is_none() {
                return bad(format!("transition instant {at} is out of range"));
            }
            if i > 0 && transitions[i - 1].0 >= at {
                return bad(format!("transition instants are not increasing at {at}"));
            }
        }
        Ok(ZoneRules { name: Cow::Owned(name), initial, transitions })
    }

    /// The rules of a chrono-tz zone over `[from, to]`: its offset at `from`, then every
    /// change of offset after `from` up to `to` (inclusive). Outside the span the nearest known
    /// offset applies: before `from`, the offset at `from`; after `to`, the last offset. Inside
    /// it (and, since chrono-tz has no transition after 2100, after it when `to` is past that)
    /// every offset and every local-time resolution equals chrono-tz's.
    ///
    /// Found by sampling the offset once a day and bisecting to the second where it changes.
    /// A change undone within a day would be missed; since 1970 the tz database has no offset
    /// that lasted less than six days.
    #[cfg(feature = "tzdb")]
    pub fn from_tz(tz: Tz, from: DateTime<Utc>, to: DateTime<Utc>) -> ZoneRules {
        const STEP: i64 = 86_400;
        let off = |t: i64| -> Option<i32> {
            let at = DateTime::<Utc>::from_timestamp(t, 0)?;
            Some(tz.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc())
        };
        let (start, end) = (from.timestamp(), to.timestamp());
        let initial = off(start).unwrap_or(0);
        let mut transitions = Vec::new();
        let (mut t, mut cur) = (start, initial);
        while t < end {
            let next = t.saturating_add(STEP).min(end);
            let Some(o) = off(next) else { break };
            if o == cur {
                t = next;
                continue;
            }
            // off(lo) == cur, off(hi) != cur: narrow to the first second of the new offset.
            let (mut lo, mut hi) = (t, next);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if off(mid) == Some(cur) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            cur = off(hi).unwrap_or(o);
            transitions.push((hi, cur));
            t = hi;
        }
        ZoneRules { name: Cow::Borrowed(tz.name()), initial, transitions }
    }

    /// These rules for the rest of the program, for [`Zone::Rules`]. Equal rules are leaked
    /// once: leaking them again returns the first reference, so memory stays bounded by the
    /// number of distinct rules (the browser holds one per zone it was sent).
    pub fn leak(self) -> &'static ZoneRules {
        let mut leaked = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = leaked.iter().find(|r| ***r == self) {
            return r;
        }
        let r: &'static ZoneRules = Box::leak(Box::new(self));
        leaked.push(r);
        r
    }

    /// The IANA name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Seconds east of UTC before the first transition.
    pub fn initial(&self) -> i32 {
        self.initial
    }

    /// `(instant, offset)` pairs, instants (seconds since the Unix epoch) increasing.
    pub fn transitions(&self) -> &[(i64, i32)] {
        &self.transitions
    }

    /// Seconds east of UTC at the instant `ts` (seconds since the epoch).
    pub fn offset_at(&self, ts: i64) -> i32 {
        match self.transitions.partition_point(|(at, _)| *at <= ts) {
            0 => self.initial,
            i => self.transitions[i - 1].1,
        }
    }

    /// Spans, as chrono-tz numbers them: 0 before the first transition, `i` from transition
    /// `i - 1` on.
    fn spans(&self) -> usize {
        self.transitions.len() + 1
    }

    fn span_offset(&self, i: usize) -> i32 {
        match i {
            0 => self.initial,
            _ => self.transitions[i - 1].1,
        }
    }

    /// The wall-clock seconds span `i` covers (its UTC span shifted by its offset).
    fn local_span(&self, i: usize) -> Span {
        let off = i64::from(self.span_offset(i));
        Span {
            begin: i.checked_sub(1).map(|j| self.transitions[j].0 + off),
            end: self.transitions.get(i).map(|t| t.0 + off),
        }
    }

    /// The offsets a wall-clock time (as seconds, the local time read as UTC) can have, exactly
    /// as chrono-tz resolves it: one, two (a fold: the earlier span's offset first), or none (a
    /// gap).
    fn local_offsets(&self, local: i64) -> LocalResult<i32> {
        let n = self.spans();
        let off = |i: usize| self.span_offset(i);
        match binary_search(0, n, |i| self.local_span(i).cmp(local)) {
            Ok(0) if n == 1 => LocalResult::Single(off(0)),
            Ok(0) if self.local_span(1).contains(local) => LocalResult::Ambiguous(off(0), off(1)),
            Ok(0) => LocalResult::Single(off(0)),
            Ok(i) if self.local_span(i - 1).contains(local) => LocalResult::Ambiguous(off(i - 1), off(i)),
            Ok(i) if i == n - 1 => LocalResult::Single(off(i)),
            Ok(i) if self.local_span(i + 1).contains(local) => LocalResult::Ambiguous(off(i), off(i + 1)),
            Ok(i) => LocalResult::Single(off(i)),
            Err(_) => LocalResult::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    /// A made-up zone: +01:00, +02:00 from 2024-03-31 01:00 UTC, +01:00 from 2024-10-27
    /// 01:00 UTC (the EU rule of 2024).
    fn cet() -> Zone {
        let spring = t("2024-03-31 01:00:00").and_utc().timestamp();
        let autumn = t("2024-10-27 01:00:00").and_utc().timestamp();
        let r = ZoneRules::new("Test/CET", 3600, vec![(spring, 7200), (autumn, 3600)]).unwrap();
        Zone::Rules(r.leak())
    }

    #[test]
    fn offsets_and_local_times_without_the_tz_database() {
        let z = cet();
        let off = |s: &str| z.offset_from_utc_datetime(&t(s)).fix().local_minus_utc();
        assert_eq!(off("2024-03-31 00:59:59"), 3600);
        assert_eq!(off("2024-03-31 01:00:00"), 7200);
        assert_eq!(off("2024-10-27 01:00:00"), 3600);
        // The gap: 02:00..03:00 does not exist.
        assert_eq!(
            z.from_local_datetime(&t("2024-03-31 01:59:59")).single().map(|d| d.naive_utc()),
            Some(t("2024-03-31 00:59:59"))
        );
        assert!(matches!(z.from_local_datetime(&t("2024-03-31 02:30:00")), LocalResult::None));
        assert_eq!(
            z.from_local_datetime(&t("2024-03-31 03:00:00")).single().map(|d| d.naive_utc()),
            Some(t("2024-03-31 01:00:00"))
        );
        // The fold: 02:00..03:00 twice, the earlier (summer) instant first.
        match z.from_local_datetime(&t("2024-10-27 02:30:00")) {
            LocalResult::Ambiguous(a, b) => {
                assert_eq!(a.naive_utc(), t("2024-10-27 00:30:00"));
                assert_eq!(b.naive_utc(), t("2024-10-27 01:30:00"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(z.name(), "Test/CET");
        assert_eq!(Zone::from_name("Test/CET"), Some(z));
        let dt = z.from_utc_datetime(&t("2024-07-01 12:00:00"));
        assert_eq!(dt.to_string(), "2024-07-01 14:00:00 +02:00");
    }

    #[test]
    fn leak_keeps_one_copy_of_equal_rules() {
        let a = ZoneRules::new("Test/Leak", 0, vec![(0, 3600)]).unwrap().leak();
        let b = ZoneRules::new("Test/Leak", 0, vec![(0, 3600)]).unwrap().leak();
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn bad_rules_are_refused_and_round_trip_when_good() {
        assert!(ZoneRules::new("X", 90_000, vec![]).is_err());
        assert!(ZoneRules::new("X", 0, vec![(10, 0), (10, 3600)]).is_err());
        assert!(ZoneRules::new("X", 0, vec![(i64::MAX, 0)]).is_err());
        assert!(serde_json::from_str::<ZoneRules>(r#"{"name":"X","initial":0,"transitions":[[5,0],[1,0]]}"#).is_err());
        let r = ZoneRules::new("Test/Json", -3600, vec![(100, 0)]).unwrap();
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"name":"Test/Json","initial":-3600,"transitions":[[100,0]]}"#);
        assert_eq!(serde_json::from_str::<ZoneRules>(&json).unwrap(), r);
        // A zone deserializes from its rules, and serializes as its name.
        let z: Zone = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&z).unwrap(), r#""Test/Json""#);
        assert_eq!(serde_json::from_str::<Zone>(r#""Test/Json""#).unwrap(), z);
        assert_eq!(serde_json::from_str::<Zone>(r#""UTC""#).unwrap().name(), "UTC");
        assert!(serde_json::from_str::<Zone>(r#""Nowhere/Atlantis""#).is_err());
    }

    #[test]
    fn extremes_do_not_panic() {
        let z = cet();
        for n in [NaiveDateTime::MIN, NaiveDateTime::MAX] {
            let _ = crate::tz::resolve(n, z);
            let _ = z.offset_from_local_datetime(&n);
        }
        for t in [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC] {
            let _ = crate::tz::to_local(t, z);
            let _ = t.with_timezone(&z).to_string();
        }
    }

    #[test]
    fn utc_has_no_transitions() {
        let z = Zone::UTC;
        assert_eq!(z.name(), "UTC");
        let n = t("2024-03-31 02:30:00");
        assert_eq!(z.from_local_datetime(&n).single().map(|d| d.naive_utc()), Some(n));
    }
}
