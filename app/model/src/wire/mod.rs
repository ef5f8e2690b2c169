//! The wire types pages receive: small and view-ready, every instant a [`TimePoint`].
use crate::engine::{RunOutcome, Severity};
use serde::{Deserialize, Serialize};

mod auth;
mod calendar;
mod fleet;
mod jobs;
mod log;
mod risks;
mod timeline;

pub use auth::*;
pub use calendar::*;
pub use fleet::*;
pub use jobs::*;
pub use log::*;
pub use risks::*;
pub use timeline::*;

/// One instant as pages show it: epoch milliseconds (positioning on a time axis), the
/// wall-clock text in the instance's zone, and that zone's offset at the instant.
///
/// On the wire (server functions and the JSON API alike) it is one RFC 3339 string with the
/// offset, e.g. `"2026-11-22T07:00:00-05:00"`: what a script reads, and all the browser needs
/// to show the time in the instance's zone, in UTC or in its own zone.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TimePoint {
    pub ms: i64,
    /// `YYYY-MM-DD HH:MM:SS` in the instance's time zone.
    pub local: String,
    /// The instance zone's offset from UTC at this instant, in seconds (east positive).
    pub off: i32,
}

impl TimePoint {
    /// From an instant and the offset of the zone it is shown in.
    pub fn new(t: chrono::DateTime<chrono::Utc>, off: i32) -> Self {
        let local = chrono::FixedOffset::east_opt(off)
            .map(|o| wall_text(t.with_timezone(&o).naive_local()))
            .unwrap_or_else(|| wall_text(t.naive_utc()));
        TimePoint { ms: t.timestamp_millis(), local, off }
    }

    fn utc(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::from_timestamp_millis(self.ms).unwrap_or_default()
    }

    /// RFC 3339 with the instance zone's offset (`2026-11-22T07:00:00-05:00`); fractional
    /// seconds only when there are some.
    pub fn rfc3339(&self) -> String {
        let t = self.utc();
        match chrono::FixedOffset::east_opt(self.off) {
            Some(o) => t.with_timezone(&o).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false),
            None => t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        }
    }

    /// `YYYY-MM-DD HH:MM:SS UTC−5`: the wall-clock text with its zone's offset, for
    /// tooltips and sentences.
    pub fn zoned(&self) -> String {
        format!("{} {}", self.local, offset_label(self.off))
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC.
    pub fn utc_text(&self) -> String {
        wall_text(self.utc().naive_utc())
    }

    /// Wall-clock text at another offset (the browser's).
    pub fn text_at(&self, off: i32) -> String {
        TimePoint::new(self.utc(), off).local
    }
}

/// `YYYY-MM-DD HH:MM:SS`: what chrono's `%Y-%m-%d %H:%M:%S` writes, without reading a format
/// string each time (a page writes thousands of these: formatting them was a tenth of
/// rendering the fleet page).
pub fn wall_text(t: chrono::NaiveDateTime) -> String {
    use chrono::{Datelike, Timelike};
    let year = t.year();
    if !(0..=9999).contains(&year) {
        return t.format("%Y-%m-%d %H:%M:%S").to_string();
    }
    let digits = |n: u32| [b'0' + (n / 10 % 10) as u8, b'0' + (n % 10) as u8];
    let y = year as u32;
    let [y0, y1] = digits(y / 100);
    let [y2, y3] = digits(y);
    let [mo0, mo1] = digits(t.month());
    let [d0, d1] = digits(t.day());
    let [h0, h1] = digits(t.hour());
    let [mi0, mi1] = digits(t.minute());
    // A leap second reads 60, as chrono writes it.
    let [s0, s1] = digits(t.second() + t.nanosecond() / 1_000_000_000);
    let bytes = [y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b' ', h0, h1, b':', mi0, mi1, b':', s0, s1];
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A sentence with instants in it (triage's evidence, a missed run's explanation), as pages
/// receive it: words, and instants as [`TimePoint`]s in the instance's zone. A page shows
/// each instant with `components::Time` (or, inside an attribute, `components::sentence_text`),
/// so that it follows the zone switch and says its zone; [`Display`](std::fmt::Display)
/// writes the instance's wall clock with its offset (`2026-11-17 13:50:00 UTC+1`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SentenceView(pub Vec<SentencePiece>);

/// One piece of a [`SentenceView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SentencePiece {
    Text(String),
    At(TimePoint),
}

impl SentenceView {
    /// Words after what is there (joined to the words before them).
    pub fn text(mut self, s: impl AsRef<str>) -> Self {
        let s = s.as_ref();
        match self.0.last_mut() {
            _ if s.is_empty() => {}
            Some(SentencePiece::Text(t)) => t.push_str(s),
            _ => self.0.push(SentencePiece::Text(s.to_owned())),
        }
        self
    }

    /// An instant after what is there.
    pub fn at(mut self, t: TimePoint) -> Self {
        self.0.push(SentencePiece::At(t));
        self
    }

    /// The engine's sentence, each instant made a [`TimePoint`] by `point` (the instance's zone).
    pub fn of(
        s: &crate::engine::sentence::Sentence,
        point: impl Fn(chrono::DateTime<chrono::Utc>) -> TimePoint,
    ) -> Self {
        use crate::engine::sentence::Piece;
        s.0.iter().fold(SentenceView::default(), |out, p| match p {
            Piece::Text(t) => out.text(t),
            Piece::At(t) => out.at(point(*t)),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Without `prefix` at its start (`Missed: `), when it starts with it.
    pub fn strip_prefix(&self, prefix: &str) -> SentenceView {
        let mut out = self.clone();
        if let Some(SentencePiece::Text(t)) = out.0.first_mut()
            && let Some(rest) = t.strip_prefix(prefix)
        {
            *t = rest.to_owned();
            if t.is_empty() {
                out.0.remove(0);
            }
        }
        out
    }
}

impl From<String> for SentenceView {
    fn from(s: String) -> Self {
        SentenceView::default().text(s)
    }
}

impl std::fmt::Display for SentenceView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.0 {
            match p {
                SentencePiece::Text(t) => f.write_str(t)?,
                SentencePiece::At(t) => f.write_str(&t.zoned())?,
            }
        }
        Ok(())
    }
}

/// `UTC`, `UTC−5`, `UTC+5:30`: a short label for an offset in seconds.
pub fn offset_label(off: i32) -> String {
    if off == 0 {
        return "UTC".into();
    }
    let sign = if off < 0 { '\u{2212}' } else { '+' };
    let a = off.unsigned_abs();
    let (h, m) = (a / 3600, (a % 3600) / 60);
    if m == 0 { format!("UTC{sign}{h}") } else { format!("UTC{sign}{h}:{m:02}") }
}

impl Serialize for TimePoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.rfc3339())
    }
}

impl<'de> Deserialize<'de> for TimePoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let t = chrono::DateTime::parse_from_rfc3339(&text)
            .map_err(|e| serde::de::Error::custom(format!("not an RFC 3339 time ({e}): {text}")))?;
        Ok(TimePoint { ms: t.timestamp_millis(), local: wall_text(t.naive_local()), off: t.offset().local_minus_utc() })
    }
}

pub use crate::schedulers::{CannotTell, MidSentence, Scheduler, SchedulerInfo, scheduler_mid};

/// `4,263`: a count with thousands separators.
pub fn count_text(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `45s`, `3m 12s`, `1h 05m`, `2d 03h`.
pub fn duration_text(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        3600..86400 => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d {:02}h", s / 86400, (s % 86400) / 3600),
    }
}

pub(crate) fn is_one(n: &usize) -> bool {
    *n <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::log::LogKind;

    #[test]
    fn an_instances_condition_is_the_worst_that_holds_of_it_now() {
        let at = |ms| TimePoint { ms, local: String::new(), off: 0 };
        let incident = |kind, ongoing| Incident {
            kind,
            start: at(0),
            end: at(1),
            due: 1,
            missed: 1,
            unknown: 0,
            jobs: 1,
            ongoing,
            reason: None,
            last_seen: None,
        };
        use IncidentKind::{SchedulerDown, Zombie};
        use InstanceCondition as C;
        use SourceState::{Ok as Good, Unreachable, Waiting};
        let stopped = [incident(SchedulerDown, true), incident(Zombie, false)];
        assert_eq!(C::of(Good, &stopped, false), C::SchedulerStopped);
        assert_eq!(C::of(Good, &[incident(Zombie, true)], false), C::Zombie);
        assert_eq!(C::of(Good, &[incident(SchedulerDown, false), incident(Zombie, false)], false), C::Reading, "over");
        assert_eq!(C::of(Good, &stopped, true), C::Maintenance, "a window explains a stop");
        assert_eq!(C::of(Unreachable, &stopped, true), C::Unreachable, "nothing else of it is current");
        assert_eq!(C::of(Waiting, &[], false), C::Waiting);
        assert_eq!(C::SchedulerStopped.label(&Scheduler::MysqlEvents), "event scheduler stopped");
        assert_eq!(C::Zombie.label(&Scheduler::SqlAgent), "Agent starts nothing");
        assert!(C::Zombie.is_problem() && !C::Maintenance.is_problem() && !C::Reading.is_problem());
    }

    #[test]
    fn a_fleet_past_the_limit_lists_what_cannot_be_read_first_and_counts_every_instance() {
        let status = |name: &str, state| InstanceStatus {
            name: name.to_owned(),
            kind: "sqlite_demo".into(),
            scheduler: Scheduler::SqlAgent,
            tz: None,
            state,
            last_good: None,
            last_attempt: None,
            poll_secs: None,
            age_secs: None,
            outages: Vec::new(),
            error: None,
            notes: Vec::new(),
            jobs: None,
            tags: Vec::new(),
            reads: 0,
            condition: InstanceCondition::default(),
            incidents: Vec::new(),
        };
        use SourceState::{Ok as Good, Unreachable as Down, Waiting};
        let fleet: Vec<InstanceStatus> =
            (0..150).map(|i| status(&format!("I{i:03}"), [Good, Good, Good, Down, Good, Waiting][i % 6])).collect();
        let names = |d: &FleetData| d.instances.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        let all = FleetData::listing(fleet.clone(), None);
        assert_eq!((all.total, all.unreachable, all.instances.len()), (150, 25, 150));
        assert_eq!(names(&all), fleet.iter().map(|i| i.name.clone()).collect::<Vec<_>>(), "all: in order");
        let page = FleetData::listing(fleet.clone(), Some(100));
        assert_eq!((page.total, page.unreachable, page.instances.len()), (150, 25, 100), "counted whole");
        let states: Vec<SourceState> = page.instances.iter().map(|i| i.state).collect();
        assert!(states[..25].iter().all(|s| *s == Down) && states[25..50].iter().all(|s| *s == Waiting));
        assert_eq!(&names(&page)[..3], ["I003", "I009", "I015"], "in order within a state");
        assert_eq!(&names(&page)[50..52], ["I000", "I001"]);
        let few = FleetData::listing(fleet[..5].to_vec(), Some(100));
        assert_eq!(names(&few), ["I000", "I001", "I002", "I003", "I004"], "all fit: the configuration's order");
    }

    #[test]
    fn wall_text_writes_what_chrono_writes() {
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31).and_then(|d| d.and_hms_milli_opt(23, 59, 59, 1_500));
        let far = chrono::NaiveDate::from_ymd_opt(12_345, 1, 2).and_then(|d| d.and_hms_opt(3, 4, 5));
        let before = chrono::NaiveDate::from_ymd_opt(-44, 3, 15).and_then(|d| d.and_hms_opt(12, 0, 0));
        let mut cases: Vec<chrono::NaiveDateTime> = [leap, far, before].into_iter().flatten().collect();
        // Every field through its range: steps that are prime to every field's length.
        let mut secs = -62_135_596_800_i64; // 0001-01-01
        while secs < 253_402_300_799 {
            cases.extend(chrono::DateTime::from_timestamp(secs, 0).map(|t| t.naive_utc()));
            secs += 7_919 * 3_607 + 13;
        }
        assert!(cases.len() > 10_000, "{}", cases.len());
        for t in cases {
            assert_eq!(wall_text(t), t.format("%Y-%m-%d %H:%M:%S").to_string(), "{t:?}");
        }
    }

    #[test]
    fn schedulers_keep_todays_words() {
        let labels: Vec<&str> = Scheduler::ALL.iter().map(|s| s.label()).collect();
        assert_eq!(
            labels,
            [
                "SQL Agent",
                "pg_cron",
                "pgAgent",
                "The event scheduler",
                "The worker role",
                "The job runner",
                "The Service Broker scheduler",
                "The Primentra dispatcher"
            ]
        );
        for s in Scheduler::ALL {
            assert_eq!(scheduler_mid(&s), scheduler_mid(s.label()), "{s:?}");
        }
        assert_eq!(scheduler_mid(Scheduler::MysqlEvents.label()), "the event scheduler");
    }

    #[test]
    fn restarts_and_log_badges_name_the_scheduler() {
        assert_eq!(Scheduler::SqlAgent.restart_word(), "Agent restart");
        assert_eq!(Scheduler::PgCron.restart_word(), "pg_cron restart");
        assert_eq!(Scheduler::SqlAgent.log_label(LogKind::AgentStart), "Agent start");
        assert_eq!(Scheduler::PgCron.log_label(LogKind::AgentStart), "pg_cron start");
        assert_eq!(Scheduler::MysqlEvents.log_label(LogKind::AgentStart), "event scheduler start");
        assert_eq!(Scheduler::PgCron.log_label(LogKind::Missed), "missed");
        assert_eq!(Scheduler::PgAgent.log_label(LogKind::AgentStart), "pgAgent start");
        // No "Agent" (SQL Agent's word) for the others; pgAgent's own name is not that word.
        for s in Scheduler::ALL.into_iter().filter(|s| *s != Scheduler::SqlAgent) {
            for words in [s.restart_word().to_owned(), s.log_label(LogKind::AgentStart), s.label().to_owned()] {
                let said = words.split(|c: char| !c.is_alphanumeric()).any(|w| w.eq_ignore_ascii_case("agent"));
                assert!(!said, "{s:?}: {words}");
            }
        }
    }
}
