//! Wall-clock time to instants in a time zone ([`Zone`]), with the Agent's DST behaviour.
//!
//! Every function here is total: no input (however far from the present, however odd the
//! zone) makes it panic.
use super::Dst;
use super::Zone;
use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeDelta, TimeZone, Utc};

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
fn gap_end(local: NaiveDateTime, tz: Zone) -> DateTime<Utc> {
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
