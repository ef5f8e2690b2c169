//! Wall-clock time to instants in a time zone, with the Agent's DST behaviour.
use super::Dst;
use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;

/// Resolve a wall-clock time in `tz` the way SQL Server Agent does: a time inside a
/// spring-forward gap fires at the first valid instant after the gap ([`Dst::Gap`]); a time
/// inside a fall-back fold fires once, at the earlier instant ([`Dst::Fold`]).
pub fn resolve(_local: NaiveDateTime, _tz: Tz) -> (DateTime<Utc>, Option<Dst>) {
    unimplemented!()
}
