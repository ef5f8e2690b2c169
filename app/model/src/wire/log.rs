//! The scheduler log's wire types: its lines, their tallies, the query a page sends.
use super::*;

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
    /// The words as Sundial keeps them (a time in them in UTC): what the export writes.
    pub text: String,
    /// The same words with each time in them an instant ([`crate::engine::sentence::Sentence::told`]),
    /// made a [`TimePoint`] in the line's zone: what the page shows, one zone per line.
    #[serde(default)]
    pub said: crate::SentenceView,
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
