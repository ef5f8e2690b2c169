//! The wire types pages receive: small and view-ready, every instant a [`TimePoint`].
use crate::engine::{RunOutcome, Severity};
use serde::{Deserialize, Serialize};

/// How Sundial's reading of one instance goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceState {
    /// The last read succeeded.
    Ok,
    /// The last read failed (unreachable, refused, timed out); older data may still show.
    Unreachable,
    /// Not read yet (Sundial just started).
    Waiting,
}

/// One configured instance, as the fleet overview lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceStatus {
    pub name: String,
    /// `mssql`, `pg_cron`, `mysql_events`, `sqlite_demo`, …
    pub kind: String,
    /// What starts its jobs, as the server's registry of kinds says: pages word the instance's
    /// scheduler by it, never by `kind`.
    #[serde(default)]
    pub scheduler: Scheduler,
    /// The zone of the last good read.
    pub tz: Option<String>,
    pub state: SourceState,
    /// When the last good read finished (in the instance's zone).
    pub last_good: Option<TimePoint>,
    /// When the last attempt was made.
    pub last_attempt: Option<TimePoint>,
    /// How often Sundial reads the instance; `None` when its data never changes (the demo).
    #[serde(default)]
    pub poll_secs: Option<u64>,
    /// Seconds since the last good read, when the server answered.
    #[serde(default)]
    pub age_secs: Option<i64>,
    /// Stretches of the last 30 days in which Sundial could not read the instance (since
    /// Sundial started), the open one without an end.
    #[serde(default)]
    pub outages: Vec<Outage>,
    /// Why the last attempt failed (safe to show).
    pub error: Option<String>,
    /// Findings about the instance (missing grants, zone guesses, a stopped scheduler, …).
    pub notes: Vec<DiagnosticLine>,
    /// Jobs in the last good read.
    pub jobs: Option<usize>,
    /// `key=value` tags from the configuration.
    pub tags: Vec<String>,
    /// How many times Sundial has read (or tried to read) the instance since it started: the
    /// pollers' work, whatever the pages' load.
    #[serde(default)]
    pub reads: u64,
}

/// A stretch in which Sundial could not read an instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outage {
    pub start: TimePoint,
    /// `None`: it still cannot be read.
    pub end: Option<TimePoint>,
    /// Why the first read of the stretch failed (safe to show).
    pub error: String,
}

/// One line of the scheduler log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub at: TimePoint,
    /// The instance it happened on.
    #[serde(default)]
    pub instance: String,
    /// Empty for an instance-wide line.
    pub job_id: String,
    pub job_name: String,
    pub kind: crate::engine::log::LogKind,
    pub text: String,
    /// Set when the line stands for consecutive missed runs.
    #[serde(flatten)]
    pub collapsed: Collapsed,
}

/// Consecutive missed occurrences of one job with one cause, shown as one line: how many, and
/// the first [`MEMBERS_SHOWN`] of them, oldest first (so the first is `members[0]`). Absent
/// from the JSON for a single event (`count` 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collapsed {
    #[serde(default, skip_serializing_if = "is_one")]
    pub count: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<TimePoint>,
}

impl Collapsed {
    /// One event, not collapsed.
    pub fn single() -> Self {
        Collapsed { count: 1, members: Vec::new() }
    }
    /// The first of the collapsed events.
    pub fn first(&self) -> Option<&TimePoint> {
        self.members.first()
    }
    /// Whether the line stands for several events.
    pub fn is_collapsed(&self) -> bool {
        self.count > 1
    }
}

/// Lines and events of one kind under the log's filter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCount {
    /// [`crate::engine::log::LogKind::key`]
    pub kind: String,
    /// Lines on the page (a collapsed run of misses is one line)…
    pub lines: usize,
    /// …and the events they stand for (each missed run counts).
    pub events: usize,
}

/// The scheduler log of the fleet (or of one instance) over a window, newest first, under
/// the page's filters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogData {
    /// The instance chosen (`instance=`, or the only one of the fleet), for the page's
    /// header; `None`: the whole fleet.
    pub instance: Option<InstanceHead>,
    /// Every instance of the fleet, in configuration order (the instance filter's choices),
    /// and how reading each goes.
    pub instances: Vec<LogInstance>,
    /// The window's length, and the stretch the lines come from (over every instance read).
    pub days: u32,
    pub window_start: Option<TimePoint>,
    pub window_end: Option<TimePoint>,
    /// Whether only problems are listed.
    pub problems_only: bool,
    /// Only lines of this kind ([`crate::engine::log::LogKind::key`]), when asked.
    pub kind: Option<String>,
    /// Only lines of jobs whose id is this or whose name holds it (any case), when asked.
    pub job: Option<String>,
    /// The time range asked for, `[from, to)`: as the form's fields show it (wall clock in
    /// [`range_zone`](Self::range_zone), or what the URL said when it is not valid) and as
    /// instants.
    pub from_text: String,
    pub to_text: String,
    pub from: Option<TimePoint>,
    pub to: Option<TimePoint>,
    /// The zone the time range's fields are read in (an IANA name, or `UTC`).
    pub range_zone: String,
    /// What the URL got wrong, field by field; when any, no line is listed.
    pub invalid: Vec<LogFieldError>,
    /// The names of the jobs of the instances listed (the job filter's suggestions).
    pub job_names: Vec<String>,
    /// This page of lines, newest first.
    pub lines: Vec<LogLine>,
    /// Where this page starts (`None`: the newest line) and where the next, older page
    /// starts (`None`: this is the last page).
    pub cursor: Option<String>,
    pub next_cursor: Option<String>,
    /// Lines under the whole filter (every page), and lines before this page.
    pub total: usize,
    pub offset: usize,
    /// Lines and events per kind under every filter but the kind, over the whole window.
    pub counts: Vec<KindCount>,
    /// Lines per page.
    pub limit: usize,
}

/// An instance as the log knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogInstance {
    pub name: String,
    /// Its zone (IANA name), when it has been read.
    pub tz: Option<String>,
    /// What starts its jobs: its lines' badges are worded by it.
    pub scheduler: Scheduler,
    /// Whether its lines are listed (it is in the filter and has been read).
    pub listed: bool,
    /// Set when it cannot be read now: why, and whether its last good read still gives its
    /// lines (safe to show).
    pub unreachable: Option<String>,
}

/// A query parameter the log cannot use, and what it must be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogFieldError {
    /// The parameter (`from`, `to`, `kind`, `limit`, `cursor`).
    pub field: String,
    pub message: String,
}

/// Lines per log page unless the URL asks for another number (`limit`, at most
/// [`LOG_LIMIT_MAX`]).
pub const LOG_LINES: usize = 200;
pub const LOG_LIMIT_MAX: usize = 10_000;

/// The fleet overview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetData {
    /// The instances listed: every one in the configuration's order, or, when they are more
    /// than the page's limit, those that cannot be read or not yet first, then the rest, up
    /// to the limit.
    pub instances: Vec<InstanceStatus>,
    /// Every configured instance, listed or not.
    #[serde(default)]
    pub total: usize,
    /// How many cannot be read now, listed or not.
    #[serde(default)]
    pub unreachable: usize,
}

impl FleetData {
    /// `instances` (in the configuration's order) counted, and at most `limit` of them
    /// listed: every one in order when they fit, else those that cannot be read, then those
    /// not read yet, then the rest, each in order.
    pub fn listing(mut instances: Vec<InstanceStatus>, limit: Option<usize>) -> Self {
        let total = instances.len();
        let unreachable = instances.iter().filter(|i| i.state == SourceState::Unreachable).count();
        if let Some(limit) = limit.filter(|l| *l < total) {
            // A stable sort: the configuration's order within each state.
            instances.sort_by_key(|i| match i.state {
                SourceState::Unreachable => 0,
                SourceState::Waiting => 1,
                SourceState::Ok => 2,
            });
            instances.truncate(limit);
        }
        FleetData { instances, total, unreachable }
    }
}

/// How many instances the fleet page lists at first (`?show=all` lists every one).
pub const FLEET_ROWS: usize = 100;

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

/// The instance and window a page shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceHead {
    pub name: String,
    /// IANA name of the instance's zone.
    pub tz: String,
    /// The instance's "now"; the window ends here.
    pub now: TimePoint,
    pub days: u32,
    pub window_start: TimePoint,
    pub window_end: TimePoint,
    /// Set when the source cannot be read now and the page shows its last good read: why,
    /// and since when (safe to show).
    #[serde(default)]
    pub stale: Option<String>,
    /// What starts the jobs: pages word sentences, legends and log badges by it
    /// ([`Scheduler::label`], [`Scheduler::restart_word`], …).
    #[serde(default)]
    pub scheduler: Scheduler,
    /// Zombie periods and scheduler stops overlapping the last 30 days, whatever window the
    /// page shows: every page of the instance announces them.
    #[serde(default)]
    pub incidents: Vec<Incident>,
    /// When the data shown was read (the last good read), its age in seconds when the server
    /// answered, and how often the instance is read (`None`: never re-read, the demo).
    #[serde(default)]
    pub as_of: Option<TimePoint>,
    #[serde(default)]
    pub age_secs: Option<i64>,
    #[serde(default)]
    pub poll_secs: Option<u64>,
}

/// What kind of incident.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IncidentKind {
    /// The scheduler was alive and started no job at all although runs were due.
    Zombie,
    /// The scheduler was down: it (re)started, and runs due before that were missed.
    SchedulerDown,
    /// Sundial could not read the instance (its runs are read once it answers again).
    Unreachable,
}

/// An instance-wide incident: what, when, and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incident {
    pub kind: IncidentKind,
    pub start: TimePoint,
    pub end: TimePoint,
    /// Runs of all jobs that were due inside it (a scheduler that was down: the missed ones
    /// and those it ran late when it came back).
    pub due: usize,
    /// Of those, the ones judged missed, and the ones that cannot be judged because the
    /// history of their job was already trimmed (unknown, never counted as missed).
    pub missed: usize,
    pub unknown: usize,
    /// Jobs with at least one missed run in it.
    pub jobs: usize,
    /// Still going (an unreachable stretch that has not ended: `end` is the last attempt).
    #[serde(default)]
    pub ongoing: bool,
    /// What went wrong, when the kind does not say it all (the read's error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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

/// A planned maintenance window, as a timeline shades it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceSpan {
    pub start: TimePoint,
    pub end: TimePoint,
    /// Its name and why.
    pub label: String,
}

/// A span in which the Agent was alive and started no job at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZombieSpan {
    pub start: TimePoint,
    pub end: TimePoint,
    /// Runs of all jobs that were due inside the span.
    pub due: usize,
    /// Of those, judged missed, and unknown (their job's history was already trimmed).
    #[serde(default)]
    pub missed: usize,
    #[serde(default)]
    pub unknown: usize,
}

/// A finding about a job's data or schedules, as one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticLine {
    pub severity: Severity,
    pub text: String,
}

/// A job's last run, for the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    pub start: TimePoint,
    pub outcome: RunOutcome,
    /// e.g. `3m 12s`
    pub duration: String,
}

/// One row of the jobs list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRow {
    pub id: String,
    pub name: String,
    pub category: String,
    /// Its owner as the scheduler records it; `None` when the scheduler keeps none.
    #[serde(default)]
    pub owner: Option<String>,
    pub enabled: bool,
    /// One description per schedule.
    pub schedules: Vec<String>,
    /// Parallel to `schedules`: why a schedule adds no run to the window (disabled, expired,
    /// not started yet, next run after the window); `None` when it adds some.
    #[serde(default)]
    pub schedule_notes: Vec<Option<String>>,
    pub last_run: Option<LastRun>,
    pub next_expected: Option<TimePoint>,
    /// Where the job stands now: its worst open problem, else what its runs say.
    pub state: JobState,
    /// Its open problems now, worst first, as triage lists them: its own and its instance's.
    #[serde(default)]
    pub problems: Vec<super::ProblemRow>,
    /// Consecutive failed runs, newest first, when the job is failing now (the `failed`
    /// problem's count: the same whatever the window).
    pub streak: usize,
    /// Runs in the window that failed, that were retried, that were canceled.
    pub failed: usize,
    pub retries: usize,
    pub canceled: usize,
    /// Why the window's failures cannot be counted, when none of its runs has an outcome the
    /// source keeps (MariaDB's events seen only by `LAST_EXECUTED`): shown as "unknown".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_unknown: Option<String>,
    /// Occurrences in the window that were due (not upcoming): on time, late, missed,
    /// skipped or unknown.
    pub due: usize,
    pub missed: usize,
    /// Of `missed`, those inside a zombie span (the Agent started nothing).
    pub missed_zombie: usize,
    pub late: usize,
    pub skipped: usize,
    /// Due occurrences older than the oldest history kept: they cannot be judged, so they
    /// are neither missed nor on time.
    pub unknown: usize,
    /// Due occurrences not run inside a planned maintenance window (not missed).
    #[serde(default)]
    pub maintenance: usize,
    /// The oldest history kept, when it falls inside the window.
    pub history_since: Option<TimePoint>,
    pub diagnostics: Vec<DiagnosticLine>,
}

/// Where a job stands now: the worst of its open problems (its own, or its instance's — a
/// stopped or zombie scheduler, an unreachable or stale instance stop every job) as the fleet's
/// one judgment (triage) says; with no problem, what its runs say. A problem's key, words and
/// rank are its kind's ([`crate::engine::triage::KindInfo`]); ordered worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// An open problem of the job or its instance (the worst of them).
    Problem(ProblemKind),
    /// No problem now; a run failed in the window, the last run succeeded.
    Recovered,
    /// No problem now; a run is going.
    Running,
    /// No problem now; runs in the window.
    Ok,
    /// No problem now; no run in the window.
    NoRun,
    /// The job is disabled (and has no problem).
    Disabled,
}

use crate::engine::triage::ProblemKind;

/// The states without a problem, after every problem's rank, with their key, words and the
/// name they are sent under.
const QUIET: [(JobState, &str, &str, &str); 5] = [
    (JobState::Recovered, "recovered", "Recovered", "recovered"),
    (JobState::Running, "running", "Running", "running"),
    (JobState::Ok, "ok", "OK", "ok"),
    (JobState::NoRun, "norun", "No run", "no_run"),
    (JobState::Disabled, "disabled", "Disabled", "disabled"),
];

impl JobState {
    fn quiet(self) -> Option<&'static (JobState, &'static str, &'static str, &'static str)> {
        QUIET.iter().find(|q| q.0 == self)
    }

    /// CSS class suffix, `data-state` and filter value.
    pub fn key(self) -> &'static str {
        match self {
            JobState::Problem(k) => k.info().job_key,
            s => s.quiet().map_or("", |q| q.1),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            JobState::Problem(k) => k.info().job_label,
            s => s.quiet().map_or("", |q| q.2),
        }
    }

    /// Its badge's CSS classes: `state state-<key>`, and a problem's severity
    /// (`state-sev-critical`…), which the stylesheet colors by.
    pub fn classes(self) -> String {
        match self {
            JobState::Problem(k) => format!("state state-{} state-sev-{}", self.key(), k.severity().key()),
            _ => format!("state state-{}", self.key()),
        }
    }

    /// Where it sorts, worst first: a problem by its kind's rank, then the quiet states.
    pub fn rank(self) -> u8 {
        match self {
            JobState::Problem(k) => k.info().job_rank,
            s => 10 + QUIET.iter().position(|q| q.0 == s).unwrap_or(0) as u8,
        }
    }

    /// The state a problem of this kind puts a job in.
    pub fn of_problem(kind: ProblemKind) -> JobState {
        JobState::Problem(kind)
    }

    /// Whether it stands for an open problem (the fleet's judgment), not for the runs alone.
    pub fn is_problem(self) -> bool {
        matches!(self, JobState::Problem(_))
    }

    /// Whether the scheduler stands still: the job's next expected run will not happen while
    /// it lasts.
    pub fn stops_runs(self) -> bool {
        matches!(
            self,
            JobState::Problem(ProblemKind::Unreachable | ProblemKind::SchedulerStopped | ProblemKind::Zombie)
        )
    }

    /// The name it is sent under (a problem's by its job key: `failing`, `missed`, …).
    fn wire(self) -> &'static str {
        match self {
            JobState::Problem(k) => k.info().job_key,
            s => s.quiet().map_or("", |q| q.3),
        }
    }
}

impl PartialOrd for JobState {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JobState {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl Serialize for JobState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.wire())
    }
}

impl<'de> Deserialize<'de> for JobState {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        let problem =
            crate::engine::triage::KINDS.iter().find(|k| k.job_key == name).map(|k| JobState::Problem(k.kind));
        problem
            .or_else(|| QUIET.iter().find(|q| q.3 == name).map(|q| q.0))
            .ok_or_else(|| serde::de::Error::custom(format!("not a job state: {name:?}")))
    }
}

/// A job found by name across the fleet (`/find?q=`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundJob {
    pub instance: String,
    pub id: String,
    pub name: String,
    pub category: String,
    pub enabled: bool,
    /// Where it stands now: the fleet's one judgment ([`JobState`]).
    pub state: JobState,
}

/// What `/find?q=` shows: the jobs whose name holds `q` (ignoring case), instance by
/// instance, and the instances that could not be searched (never read).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FoundJobs {
    pub query: String,
    pub jobs: Vec<FoundJob>,
    pub not_searched: Vec<String>,
}

/// The jobs list: what `/jobs` shows and `GET /api/jobs` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobsData {
    pub instance: InstanceHead,
    pub zombies: Vec<ZombieSpan>,
    pub jobs: Vec<JobRow>,
}

/// What reconciliation said about one expected occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    OnTime,
    Late,
    Missed,
    Skipped,
    Unknown,
    Upcoming,
    /// Not run inside a planned maintenance window: not missed.
    Maintenance,
}

impl Mark {
    /// CSS class suffix and `data-kind` value.
    pub fn key(self) -> &'static str {
        match self {
            Mark::OnTime => "ontime",
            Mark::Late => "late",
            Mark::Missed => "missed",
            Mark::Skipped => "skipped",
            Mark::Unknown => "unknown",
            Mark::Upcoming => "upcoming",
            Mark::Maintenance => "maintenance",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Mark::OnTime => "On time",
            Mark::Late => "Late",
            Mark::Missed => "Missed",
            Mark::Skipped => "Skipped",
            Mark::Unknown => "Unknown",
            Mark::Upcoming => "Upcoming",
            Mark::Maintenance => "Maintenance",
        }
    }
}

/// Why a missed occurrence has no run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The Agent was alive and started nothing on the whole instance.
    Zombie,
    /// The Agent was down (it restarted later).
    Down,
    /// Nothing on the instance explains it.
    NoRun,
}

impl Cause {
    /// `data-cause` value.
    pub fn key(self) -> &'static str {
        match self {
            Cause::Zombie => "zombie",
            Cause::Down => "down",
            Cause::NoRun => "no-run",
        }
    }
}

/// One expected occurrence on the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccurrenceView {
    pub at: TimePoint,
    pub mark: Mark,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// What happened, in words and instants (`Missed: SQL Agent started no job between … and
    /// …`); empty for on-time and upcoming occurrences.
    #[serde(default, skip_serializing_if = "SentenceView::is_empty")]
    pub note: SentenceView,
}

/// Routine occurrences (on time, upcoming, unknown) of a dense job, drawn as one stretch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkSpan {
    pub start: TimePoint,
    pub end: TimePoint,
    pub mark: Mark,
    pub count: usize,
}

/// Consecutive succeeded scheduled runs of a dense job, drawn as one stretch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSpan {
    pub start: TimePoint,
    pub end_ms: i64,
    pub end_local: String,
    pub count: usize,
}

/// How a run relates to the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// The run of an expected occurrence.
    Scheduled,
    /// Started by hand.
    Manual,
    /// A retry or other run no schedule asked for.
    Unscheduled,
}

/// One observed run on the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunView {
    pub start: TimePoint,
    pub end_ms: i64,
    pub duration_secs: i64,
    /// e.g. `3m 12s`
    pub duration: String,
    pub outcome: RunOutcome,
    pub kind: RunKind,
    /// Who started it, in words.
    pub trigger: String,
    /// The history message, shortened; empty on the chart for succeeded runs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Too long or suspiciously short against the window's durations (see
    /// [`crate::engine::durations::flag`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<crate::engine::durations::DurationFlag>,
    /// The run's steps as the scheduler recorded them, in order (SQL Server Agent: each step
    /// attempt, retries included; for a run still going, the steps done and the one executing),
    /// or its lines about them; empty on the chart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepView>,
    /// A run still going, against the job's usual durations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
}

/// One step of a run on the job page, as SSMS's Log File Viewer lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepView {
    /// msdb `step_id`; 0 for a line a scheduler says without one.
    pub id: i64,
    pub name: String,
    /// How the attempt ended (`InProgress`: executing now); `None` for a line that says none.
    pub outcome: Option<RunOutcome>,
    /// The step's own message, quoted (boilerplate dropped, at most 300 characters).
    pub message: String,
    /// msdb `sql_message_id` and `sql_severity` (0: none).
    pub sql_message_id: i64,
    pub sql_severity: i64,
    /// Retries attempted before this attempt.
    pub retries: i64,
    pub start: Option<TimePoint>,
    /// e.g. `3m 12s`; empty when the scheduler does not say.
    pub duration: String,
    /// msdb's subsystem (TSQL, CmdExec, PowerShell, SSIS, …); empty when unknown.
    pub subsystem: String,
}

impl StepView {
    /// "Step 2 (Push to CRM)", the bare name, or "" for a line without either.
    pub fn label(&self) -> String {
        match (self.id, self.name.trim()) {
            (0, "") => String::new(),
            (0, name) => name.to_owned(),
            (id, "") => format!("Step {id}"),
            (id, name) => format!("Step {id} ({name})"),
        }
    }
}

/// A run in progress against the window's durations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Seconds so far.
    pub elapsed_secs: i64,
    pub p50: i64,
    pub p95: i64,
    /// Start + p50, while the run is not past p50 yet; `None` once it is past its usual time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<TimePoint>,
}

/// The job's durations over the window: completed runs only, nearest-rank percentiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DurationsView {
    /// The baseline's window, in days ([`crate::JUDGED_DAYS`]): the statistics are over
    /// it, whatever window the page shows, so they are triage's.
    pub days: u32,
    /// Over the baseline's window; `None` when no run completed in it.
    pub window: Option<crate::engine::durations::DurationStats>,
    /// Per weekday of the runs' local start, Monday first (seven entries).
    pub weekdays: Vec<Option<crate::engine::durations::DurationStats>>,
    /// What flags a run (the configured factors).
    pub flags: crate::engine::durations::DurationFlags,
    /// Runs in the window flagged long, and short.
    pub long: usize,
    pub short: usize,
}

/// The weekdays of [`DurationsView::weekdays`], in its order.
pub const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// The moment a deep link (`?at=`) asked for, and where the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtView {
    /// The moment; `None` when the link's `at` could not be read (see `error`).
    pub at: Option<TimePoint>,
    /// Why the link's `at` could not be read, in words naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the window shown holds the moment.
    pub inside: bool,
    /// The table line nearest to the moment (an index into [`TimelineData::lines`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The window was chosen to hold the moment (the link named no `days`).
    #[serde(default)]
    pub chosen: bool,
}

/// The fragment (`#moment`) and `id` of the line nearest a deep link's moment.
pub const MOMENT_ID: &str = "moment";

/// One row of the table under the chart: an expected occurrence (with the run that served
/// it), or a run no occurrence claims (manual, unscheduled).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLine {
    /// When it was due, or when the run started (the newest, for collapsed misses).
    pub at: TimePoint,
    pub expected: Option<Mark>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    #[serde(default, skip_serializing_if = "SentenceView::is_empty")]
    pub note: SentenceView,
    pub run: Option<RunView>,
    /// Set when consecutive missed occurrences with one cause are collapsed into this line.
    #[serde(flatten)]
    pub collapsed: Collapsed,
}

fn is_one(n: &usize) -> bool {
    *n <= 1
}

/// The most members of a collapsed line listed when it is expanded.
pub const MEMBERS_SHOWN: usize = 200;

/// One tick of the time axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tick {
    pub ms: i64,
    /// Empty for an unlabelled tick.
    pub label: String,
    /// A local midnight.
    pub major: bool,
}

/// One job's timeline: what `/jobs/:id` shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineData {
    pub instance: InstanceHead,
    pub job: JobRow,
    /// Expected occurrences in the window, all of them.
    pub expected_count: usize,
    /// Runs in the window, all of them.
    pub run_count: usize,
    /// Occurrences drawn one by one: every missed, late and skipped one, and the routine ones
    /// unless the job is dense (then those are in `occurrence_spans`).
    pub occurrences: Vec<OccurrenceView>,
    pub occurrence_spans: Vec<MarkSpan>,
    /// Runs drawn one by one: all of them, unless the job is dense (then consecutive
    /// succeeded scheduled runs are in `run_spans`).
    pub runs: Vec<RunView>,
    pub run_spans: Vec<RunSpan>,
    /// The table, newest first: every problem, and the newest routine lines.
    pub lines: Vec<TableLine>,
    /// Older routine lines left out of `lines`.
    pub hidden_lines: usize,
    /// The oldest history row kept for the job, when it falls inside the window: before it,
    /// absence of a run proves nothing.
    pub history_horizon: Option<TimePoint>,
    /// Where the scheduler's own history starts, when the runs before it (back to
    /// `history_horizon`, or the window's start) come from Sundial's store: it purged them.
    #[serde(default)]
    pub source_since: Option<TimePoint>,
    pub zombies: Vec<ZombieSpan>,
    /// The maintenance windows over this job in the window (shaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintenance: Vec<MaintenanceSpan>,
    pub agent_starts: Vec<TimePoint>,
    pub ticks: Vec<Tick>,
    pub durations: DurationsView,
    /// The moment of a deep link (`?at=`), if the page was opened with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<AtView>,
}

/// What the log page asks for besides instance and window, as the URL says it (each
/// checked on the server, a bad one named in [`LogData::invalid`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogQuery {
    /// Only problems (and the scheduler's restarts).
    pub problems_only: bool,
    /// Only lines of this kind.
    pub kind: Option<String>,
    /// Only lines of jobs whose id is this or whose name holds it (any case).
    #[serde(default)]
    pub job: Option<String>,
    /// Only lines at or after `from` and before `to`: a wall-clock time in the page's zone
    /// (`2026-11-20T03:00`, as a `datetime-local` field sends it; a date alone is its
    /// midnight) or an instant with its offset (RFC 3339).
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
    /// The page's zone, for `from` and `to` (an IANA name or `UTC`); `None`: the zone of the
    /// instance chosen, else the fleet's if all its instances share one, else UTC.
    #[serde(default)]
    pub zone: Option<String>,
    /// Where the page starts (from a page's `next_cursor`, or an incident's link).
    pub cursor: Option<String>,
    /// Lines per page ([`LOG_LINES`] when absent).
    #[serde(default)]
    pub limit: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::log::LogKind;

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

/// Who is reading, when Sundial asks for sign-in (served on loopback without sign-in, there is
/// nobody: every reader may do everything).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Principal {
    /// The account, the token's name, or the user the proxy named.
    pub name: String,
    pub role: Role,
    /// How they signed in (only a session can sign out).
    pub via: SignedInVia,
}

/// What a principal may do: viewers read; admins also acknowledge and silence problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Admin,
}

impl Role {
    pub fn key(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s.trim() {
            "viewer" => Some(Role::Viewer),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// How a principal signed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignedInVia {
    /// The sign-in page: a session cookie.
    Session,
    /// An API token (`Authorization: Bearer`).
    Token,
    /// A trusted reverse proxy's header.
    Proxy,
}
