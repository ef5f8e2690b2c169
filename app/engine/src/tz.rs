//! Wall-clock time to instants in a time zone ([`Zone`]), with the Agent's DST behaviour.
//!
//! Every function here is total: no input (however far from the present, however odd the
//! zone) makes it panic.
use super::Dst;
use super::Zone;
use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeDelta, TimeZone, Timelike, Utc};

/// Resolve a wall-clock time in `tz` the way SQL Server Agent does: a time inside a
/// spring-forward gap fires at the first valid instant after the gap ([`Dst::Gap`]); a time
/// inside a fall-back fold fires once, at the earlier instant ([`Dst::Fold`]).
///
/// `Some(Dst::Fold)` is returned for every wall-clock time that exists twice (the earlier
/// instant is chosen); `Some(Dst::Gap)` for every wall-clock time that does not exist.
pub fn resolve(local: NaiveDateTime, tz: Zone) -> (DateTime<Utc>, Option<Dst>) {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(dt) => (dt.with_timezone(&Utc), None),
        LocalResult::Ambiguous(a, b) => {
            let (a, b) = (a.with_timezone(&Utc), b.with_timezone(&Utc));
            (a.min(b), Some(Dst::Fold))
        }
        LocalResult::None => (gap_end(local, tz), Some(Dst::Gap)),
    }
}

/// The instant a wall-clock time in `tz` stands for, as the CLI's `--after` and the test
/// cases read it: the earlier instant if the time is ambiguous (fold), the first valid
/// instant after the gap if it does not exist (spring forward).
pub fn local_to_instant(local: NaiveDateTime, tz: Zone) -> DateTime<Utc> {
    resolve(local, tz).0
}

/// The wall-clock time of the instant `at` in `tz` (never panics, even at the ends of
/// chrono's range, where it falls back to the UTC wall clock).
pub fn to_local(at: DateTime<Utc>, tz: Zone) -> NaiveDateTime {
    let utc = at.naive_utc();
    utc.checked_add_signed(TimeDelta::seconds(offset_secs(utc, tz))).unwrap_or(utc)
}

/// Seconds east of UTC in effect at the UTC wall-clock time `utc`.
fn offset_secs(utc: NaiveDateTime, tz: Zone) -> i64 {
    i64::from(tz.offset_from_utc_datetime(&utc).fix().local_minus_utc())
}

/// The first instant whose wall-clock time is later than `local`, for a `local` that falls in
/// a gap: that is the instant the gap ends (the transition itself).
///
/// Found by bisection over the instants within ±26 hours of `local` read as UTC: every zone's
/// offset lies within those bounds, so the local time at the low end is before `local` and at
/// the high end after it.
pub(crate) fn gap_end(local: NaiveDateTime, tz: Zone) -> DateTime<Utc> {
    let fallback = local.and_utc();
    let base = local.and_utc().timestamp();
    let local_ts = base; // the wall clock read as if it were UTC, in seconds
    let (Some(mut lo), Some(mut hi)) = (base.checked_sub(26 * 3600), base.checked_add(26 * 3600)) else {
        return fallback;
    };
    // Wall clock (as seconds) at instant `u`.
    let wall = |u: i64| -> Option<i64> {
        let dt = DateTime::<Utc>::from_timestamp(u, 0)?;
        u.checked_add(offset_secs(dt.naive_utc(), tz))
    };
    // Invariant: wall(lo) <= local < wall(hi).
    match (wall(lo), wall(hi)) {
        (Some(a), Some(b)) if a <= local_ts && local_ts < b => {}
        _ => return fallback,
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match wall(mid) {
            Some(w) if w <= local_ts => lo = mid,
            Some(_) => hi = mid,
            None => return fallback,
        }
    }
    DateTime::<Utc>::from_timestamp(hi, 0).unwrap_or(fallback)
}

/// [`resolve`] for many wall-clock times, with the same results, faster: it remembers the
/// stretch of wall-clock times around the last one resolved that map to instants by one fixed
/// offset (from [`Zone::offset_run`]: up to the next change of offset, minus the gap or fold
/// it makes), or that all fall into one gap, and answers times inside it by subtraction.
///
/// Wall-clock times are given as seconds (the wall clock read as if it were UTC, as
/// `NaiveDateTime::and_utc().timestamp()`). Times may come in any order; ascending ones (what
/// every forecast asks) are the fast case.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolver {
    tz: Zone,
    /// Wall-clock seconds `[lo, hi)` known to resolve to `local - off`, or to `fixed` when set
    /// (a gap), with `dst`.
    lo: i64,
    hi: i64,
    off: i64,
    fixed: Option<i64>,
    dst: Option<Dst>,
    /// How far the next lookup looks ahead ([`Zone::offset_run`]'s pieces): one piece at
    /// first, doubling with every lookup, so that the next few runs cost one short lookup and
    /// a long forecast a few long ones.
    pieces: usize,
}

/// The most a zone's offset can change at a transition, with both offsets within ±24 hours.
const MAX_SHIFT: i64 = 2 * 86_400;

impl Resolver {
    pub(crate) fn new(tz: Zone) -> Self {
        Resolver { tz, lo: 0, hi: 0, off: 0, fixed: None, dst: None, pieces: 1 }
    }

    /// The instant (Unix seconds) and DST rule of the wall-clock time `local` (seconds) when it
    /// lies in the remembered stretch; `None` otherwise (then use [`Resolver::resolve_local`]).
    #[inline]
    pub(crate) fn known(&self, local: i64) -> Option<(i64, Option<Dst>)> {
        if self.lo <= local && local < self.hi {
            Some((self.fixed.unwrap_or(local - self.off), self.dst))
        } else {
            None
        }
    }

    /// Exactly [`resolve`]`(local, tz)` and the wall-clock time of the instant ([`to_local`]),
    /// remembering the stretch around `local`: within a remembered stretch outside a gap the
    /// wall-clock time is `local` itself, with no zone lookup.
    pub(crate) fn resolve_local(&mut self, local: NaiveDateTime) -> (DateTime<Utc>, Option<Dst>, NaiveDateTime) {
        let secs = local.and_utc().timestamp();
        if local.nanosecond() == 0
            && let Some((at, dst)) = self.known(secs)
            && let Some(at) = DateTime::<Utc>::from_timestamp(at, 0)
        {
            let wall = if dst == Some(Dst::Gap) { to_local(at, self.tz) } else { local };
            return (at, dst, wall);
        }
        let (at, dst) = resolve(local, self.tz);
        self.learn(secs, at, dst);
        (at, dst, to_local(at, self.tz))
    }

    /// Remembers the stretch from `local` (just resolved to `at`, `dst`) on, when one is known
    /// and the time at its far end resolves as predicted.
    fn learn(&mut self, local: i64, at: DateTime<Utc>, dst: Option<Dst>) {
        self.hi = self.lo; // forget, until the new stretch is checked
        let at_s = at.timestamp();
        let Some(run) = self.tz.offset_run(at_s, self.pieces) else { return };
        self.pieces = (self.pieces * 2).min(crate::zone::RUN_PIECES);
        let off = i64::from(run.offset);
        let (hi, fixed) = match dst {
            // Up to the next change, less the gap or fold it opens (or, when the next offset
            // is unknown, less the largest shift there can be).
            None if local - at_s == off => {
                let end = match run.next {
                    Some(next) => run.until.saturating_add((i64::from(next) - off).min(0)),
                    None => run.until.saturating_sub(MAX_SHIFT),
                };
                (end.saturating_add(off), None)
            }
            // The rest of the repeated hour: resolved to its earlier instant, at this offset.
            Some(Dst::Fold) if local - at_s == off && run.next.is_some_and(|n| i64::from(n) < off) => {
                (run.until.saturating_add(off), None)
            }
            // The rest of the gap: every time in it fires when the gap ends.
            Some(Dst::Gap) => (to_local(at, self.tz).and_utc().timestamp(), Some(at_s)),
            _ => return,
        };
        // Past chrono's last instant nothing resolves (rules without transitions run forever).
        let hi = hi.min(DateTime::<Utc>::MAX_UTC.timestamp());
        if hi <= local {
            return;
        }
        // The far end must resolve as predicted (a check on the reasoning above).
        let last = hi - 1;
        let Some(last_local) = DateTime::<Utc>::from_timestamp(last, 0).map(|d| d.naive_utc()) else { return };
        let (last_at, last_dst) = resolve(last_local, self.tz);
        if last_at.timestamp() != fixed.unwrap_or(last - off) || last_dst != dst {
            return;
        }
        *self = Resolver { tz: self.tz, lo: local, hi, off, fixed, dst, pieces: self.pieces };
    }
}

#[cfg(all(test, feature = "tzdb"))]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn at(y: i32, m: u32, d: u32, h: u32, mi: u32, s: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d).unwrap().and_hms_opt(h, mi, s).unwrap()
    }

    #[test]
    fn london_gap_goes_to_two_oclock() {
        let (u, d) = resolve(at(2024, 3, 31, 1, 30, 0), chrono_tz::Europe::London.into());
        assert_eq!(d, Some(Dst::Gap));
        assert_eq!(u, at(2024, 3, 31, 1, 0, 0).and_utc());
        assert_eq!(to_local(u, chrono_tz::Europe::London.into()), at(2024, 3, 31, 2, 0, 0));
    }

    #[test]
    fn new_york_fold_takes_earlier() {
        let (u, d) = resolve(at(2024, 11, 3, 1, 30, 0), chrono_tz::America::New_York.into());
        assert_eq!(d, Some(Dst::Fold));
        assert_eq!(u, at(2024, 11, 3, 5, 30, 0).and_utc());
    }

    #[test]
    fn extremes_do_not_panic() {
        let _ = resolve(NaiveDateTime::MIN, chrono_tz::Europe::London.into());
        let _ = resolve(NaiveDateTime::MAX, chrono_tz::Pacific::Kiritimati.into());
        let _ = to_local(DateTime::<Utc>::MIN_UTC, chrono_tz::Asia::Tokyo.into());
        let _ = to_local(DateTime::<Utc>::MAX_UTC, chrono_tz::America::Los_Angeles.into());
    }
}
