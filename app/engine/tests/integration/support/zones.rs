//! Zones for the tests: a chrono-tz zone as the server has it ([`Zone::Named`]) and as the
//! browser has it ([`Zone::Rules`], extracted over [`FROM`]..[`TO`] as the server does).
#![allow(dead_code)]
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use std::sync::Mutex;
use sundial_engine::{Zone, ZoneRules};

/// 1970-01-01T00:00:00Z, where the extracted rules start.
pub const FROM: i64 = 0;
/// 2100-01-01T00:00:00Z, where they end.
pub const TO: i64 = 4_102_444_800;

/// `tz`'s rules over `FROM..TO`, extracted once per zone and test binary.
pub fn rules(tz: Tz) -> Zone {
    static CACHE: Mutex<BTreeMap<&'static str, &'static ZoneRules>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let r = *cache.entry(tz.name()).or_insert_with(|| {
        let at = |s| DateTime::<Utc>::from_timestamp(s, 0).expect("in range");
        ZoneRules::from_tz(tz, at(FROM), at(TO)).leak()
    });
    Zone::Rules(r)
}

/// `tz` as chrono-tz (`false`) or as rules (`true`).
pub fn zone(tz: Tz, as_rules: bool) -> Zone {
    if as_rules { rules(tz) } else { Zone::Named(tz) }
}
