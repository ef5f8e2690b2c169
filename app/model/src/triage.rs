//! What the triage view receives: every problem now across the fleet, worst first (see
//! [`crate::engine::triage`] for what a problem is and how they rank), and the ones someone
//! acknowledged or silenced, with their note.
use super::TimePoint;
pub use crate::engine::triage::{ProblemKind, ProblemSeverity};
use serde::{Deserialize, Serialize};

/// The triage list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriageData {
    /// Open and not acknowledged (or the acknowledgement lapsed), worst first.
    pub problems: Vec<ProblemRow>,
    /// Open, acknowledged or silenced by someone, worst first.
    pub acknowledged: Vec<ProblemRow>,
    /// Instances configured, and those whose jobs could be judged (read, not stale).
    pub instances: usize,
    pub judged: usize,
    /// Jobs across the judged instances.
    pub jobs: usize,
    /// Why acknowledgements do not outlive a restart, when Sundial's store cannot be opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_note: Option<String>,
    /// Every open problem in the scope by severity (critical, error, warning, info), those
    /// past the scope's limit too: `problems` holds the worst of them.
    #[serde(default)]
    pub open_by_severity: [usize; 4],
    /// Every acknowledged problem in the scope (until it resolves or gets worse), silenced
    /// ones not counted: `acknowledged` holds the worst of both.
    #[serde(default)]
    pub acknowledged_total: usize,
    /// Every silenced problem in the scope (held for a time: 1 hour, 4 hours…).
    #[serde(default)]
    pub silenced_total: usize,
    /// Maintenance windows now, to come and just ended (the triage page lists them; the
    /// fleet's panel does not).
    #[serde(default)]
    pub maintenance: MaintenanceData,
}

/// The maintenance windows the triage page lists, and what its form offers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceData {
    /// Open now first, then to come (the next 7 days), then ended in the last day.
    pub windows: Vec<WindowRow>,
    /// The instances a window may cover (the form's choices).
    pub instances: Vec<String>,
    /// The form's example start ([`crate::forms::start_example`] of the backend's now).
    #[serde(default)]
    pub start_example: String,
}

/// One occurrence of a maintenance window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRow {
    /// The window's id (`file:<name>` for the fleet file's, else the store's).
    pub id: String,
    /// This occurrence's start (ms since the epoch): what the end form names.
    pub start_ms: i64,
    pub name: String,
    pub reason: String,
    /// "the whole fleet", "SQLPROD01; jobs ETL", …
    pub scope: String,
    /// When and how it recurs, in words ("Saturday 22:00–02:00 Europe/London"; "once").
    pub recurs: String,
    pub start: TimePoint,
    pub end: TimePoint,
    /// `open`, `planned`, `ended` (early, by someone: see `ended`), `cancelled` (ended before it
    /// began; only the maintenance page lists those) or `past` (it ran its course).
    pub state: String,
    /// Declared in the fleet file (at this line), else added from this page.
    pub line: Option<usize>,
    /// Who added it, when.
    pub added: Option<(String, TimePoint)>,
    /// Who ended it early, when, why.
    pub ended: Option<(String, TimePoint, String)>,
    /// What it changed: the due runs not made inside it that count as maintenance, not missed
    /// (over the days Sundial reads; `None`: not counted, as on the triage page).
    #[serde(default)]
    pub runs: Option<usize>,
}

/// A problem held by a maintenance window open now: no alert until the window ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceNote {
    pub name: String,
    pub until: TimePoint,
}

/// The triage page's form adding a window (an admin's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceForm {
    pub name: String,
    /// Why (required: the audit says it).
    pub reason: String,
    /// An instance's name; empty: the whole fleet.
    #[serde(default)]
    pub instance: String,
    /// Jobs by name or id, comma-separated; empty: every job.
    #[serde(default)]
    pub jobs: String,
    /// Empty: now; else "2026-11-28 22:00" in `time_zone`, or RFC 3339.
    #[serde(default)]
    pub start: String,
    /// How long: one of [`WINDOW_LENGTHS`].
    pub duration: String,
    #[serde(default)]
    pub time_zone: String,
    #[serde(default)]
    pub by: String,
    #[serde(default)]
    pub back: String,
}

/// Ending (or cancelling) one occurrence of a window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceEndForm {
    pub id: String,
    pub start_ms: i64,
    /// Why (required).
    pub why: String,
    #[serde(default)]
    pub by: String,
    #[serde(default)]
    pub back: String,
}

/// How long a window added from the page lasts.
pub const WINDOW_LENGTHS: [(&str, &str); 7] = [
    ("30m", "30 minutes"),
    ("1h", "1 hour"),
    ("2h", "2 hours"),
    ("4h", "4 hours"),
    ("8h", "8 hours"),
    ("12h", "12 hours"),
    ("1d", "1 day"),
];

/// What a failed maintenance form says (its code in the URL, never the request's text).
pub fn maintenance_error_text(code: &str) -> String {
    if let Some(r) = super::forms::Refusal::from_code(code) {
        return format!("Nothing was changed. {}", r.text());
    }
    match code {
        "gone" => "That window is not open or planned any more: nothing was ended.",
        "forbidden" => {
            "Only an admin may add or end maintenance windows, and you are signed in as a viewer: nothing was changed."
        }
        "store" => {
            "Sundial's store did not keep the change: nothing was changed. Try again; the server's log says more."
        }
        _ => "The maintenance change failed: nothing was changed.",
    }
    .to_owned()
}

/// The code a failed maintenance form goes back with (see [`maintenance_error_text`]).
pub fn maintenance_error_code(e: &super::ApiError) -> String {
    match e {
        super::ApiError::Refused { code, .. } => code.clone(),
        super::ApiError::NotFound { .. } => "gone".to_owned(),
        _ => "store".to_owned(),
    }
}

impl TriageData {
    /// Open problems in the scope, those not listed too.
    pub fn open_total(&self) -> usize {
        self.open_by_severity.iter().sum()
    }

    /// Acknowledged or silenced: every problem someone holds.
    pub fn held_total(&self) -> usize {
        self.acknowledged_total + self.silenced_total
    }

    /// "2 acknowledged, 1 silenced", "1 silenced": what someone holds, each counted as what it
    /// is; empty when nothing is.
    pub fn held_words(&self) -> String {
        let mut parts = Vec::new();
        if self.acknowledged_total > 0 {
            parts.push(format!("{} acknowledged", self.acknowledged_total));
        }
        if self.silenced_total > 0 {
            parts.push(format!("{} silenced", self.silenced_total));
        }
        parts.join(", ")
    }

    /// Open problems in the scope past the list's limit.
    pub fn open_unlisted(&self) -> usize {
        self.open_total().saturating_sub(self.problems.len())
    }
}

/// Which problems a view asks for. Every view of one instance (its jobs, a job, the API's)
/// asks for that instance's only; a page lists the worst `limit` of each list and says how
/// many more there are: a fleet with thousands of problems is never one page of thousands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriageScope {
    /// One instance's problems (its own and its jobs'); `None`: the fleet's.
    pub instance: Option<String>,
    /// At most this many rows in each list; `None`: all.
    pub limit: Option<usize>,
    /// A page's list (triage, the fleet's panel): every time in one zone ([`page_zone`]: the
    /// instances' common zone, else UTC). Otherwise (the JSON API, one instance's views) each
    /// problem's times are in its instance's zone.
    #[serde(default)]
    pub one_zone: bool,
}

impl TriageScope {
    /// The whole fleet, every row.
    pub fn all() -> Self {
        Self::default()
    }

    /// One instance's problems, every row.
    pub fn instance(name: &str) -> Self {
        Self { instance: Some(name.to_owned()), limit: None, one_zone: false }
    }
}

/// How many rows the triage page lists at first (`?show=all` lists every one).
pub const PAGE_ROWS: usize = 100;
/// How many rows the fleet page's triage panel lists (the triage page has the rest).
pub const PANEL_ROWS: usize = 10;

/// One problem, ready to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemRow {
    /// Stable identity: kind, instance, job.
    pub key: String,
    /// When Sundial first saw this episode of it (epoch ms): an acknowledgement names it.
    pub episode_ms: i64,
    pub kind: ProblemKind,
    pub severity: ProblemSeverity,
    pub instance: String,
    pub job_id: Option<String>,
    pub job_name: Option<String>,
    /// Since when it is wrong (what the data tells, else when Sundial first saw it).
    pub since: TimePoint,
    /// How long ago that was, as of the judgment's now (`3 days ago`, `6 h 20 min ago`).
    #[serde(default)]
    pub since_ago: String,
    /// The moment the evidence points at.
    pub at: TimePoint,
    pub evidence: String,
    /// The evidence as words and instants (in the instance's zone): what pages show.
    #[serde(default)]
    pub sentence: super::SentenceView,
    /// Runs missed in a row, failures in a row, jobs starved by a zombie; 1 otherwise.
    pub count: usize,
    /// Where the evidence is: the job's timeline at `at`, or the instance's jobs.
    pub link: String,
    /// Someone's acknowledgement of this episode, holding or lapsed.
    pub ack: Option<AckInfo>,
    /// Open inside a maintenance window open now: it alerts only if still open when the
    /// window ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance: Option<MaintenanceNote>,
    /// For a missed or failed run: the statement that runs the job now (at its failed step,
    /// where the scheduler can), filled by the backend from the instance's read
    /// ([`crate::run_now`]); Sundial never runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_now: Option<crate::run_now::RunNow>,
}

/// An acknowledgement or a silence, as the next person sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckInfo {
    pub by: String,
    pub note: String,
    pub at: TimePoint,
    /// Silenced until then; `None`: acknowledged until it resolves or gets worse.
    pub until: Option<TimePoint>,
    /// Why it no longer holds (the silence ended, it got worse); `None`: it holds.
    pub lapsed: Option<String>,
}

/// What an acknowledgement form posts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckForm {
    pub key: String,
    pub episode_ms: i64,
    /// Who (free text until sign-in exists).
    #[serde(default)]
    pub by: String,
    #[serde(default)]
    pub note: String,
    /// How long to silence: `""` acknowledges until it resolves or gets worse; else a length
    /// such as `1h`, `4h`, `1d`.
    #[serde(default)]
    pub silence: String,
    /// The page to go back to.
    #[serde(default)]
    pub back: String,
}

/// The silences the form offers, with their words.
pub const SILENCES: [(&str, &str); 5] = [
    ("", "until it resolves or gets worse"),
    ("1h", "for 1 hour"),
    ("4h", "for 4 hours"),
    ("1d", "for 1 day"),
    ("7d", "for 7 days"),
];

/// The problems of one job now, worst first, from the fleet's one judgment: its own and its
/// instance's (those with no job: a stopped or zombie scheduler, an unreachable or stale
/// instance stop every job), open ones first, then acknowledged ones. Every view that shows a
/// job's state reads it here: the jobs list, the job page, the JSON API.
pub fn problems_of(t: &TriageData, instance: &str, job_id: &str) -> Vec<ProblemRow> {
    t.problems
        .iter()
        .chain(&t.acknowledged)
        .filter(|p| p.instance == instance && p.job_id.as_deref().is_none_or(|j| j == job_id))
        .cloned()
        .collect()
}

/// Why an acknowledgement failed, as the code `POST /triage/ack` sends back in `ack_error`:
/// the page shows only its own sentence for a code, never text from the URL.
pub fn ack_error_code(e: &super::ApiError) -> String {
    match e {
        super::ApiError::NotFound { .. } => "resolved".to_owned(),
        super::ApiError::Refused { code, .. } => code.clone(),
        super::ApiError::BadRequest(_) => "silence".to_owned(),
        _ => "store".to_owned(),
    }
}

/// The sentence for an `ack_error` code (see [`ack_error_code`]); any other value gets a
/// general one.
pub fn ack_error_text(code: &str) -> String {
    if let Some(r) = super::forms::Refusal::from_code(code) {
        return format!("Nothing was acknowledged. {}", r.text());
    }
    match code {
        "resolved" => "That problem is no longer open (it may have resolved meanwhile): nothing was acknowledged.",
        "forbidden" => "Only an admin may acknowledge, silence or undo, and you are signed in as a viewer: nothing was acknowledged.",
        "silence" => {
            "That silence is not offered (1 hour, 4 hours, 1 day, 7 days or until it resolves): nothing was acknowledged."
        }
        "store" => {
            "The acknowledgement could not be kept in Sundial's store: nothing was acknowledged. Try again; the server's log says more."
        }
        _ => "The acknowledgement failed: nothing was acknowledged.",
    }
    .to_owned()
}

/// A silence's length in seconds; `None` for "until resolved", `Err` for anything not offered.
pub fn silence_secs(raw: &str) -> Result<Option<i64>, String> {
    match raw.trim() {
        "" => Ok(None),
        "1h" => Ok(Some(3600)),
        "4h" => Ok(Some(4 * 3600)),
        "1d" => Ok(Some(86_400)),
        "7d" => Ok(Some(7 * 86_400)),
        other => Err(format!("silence must be one of 1h, 4h, 1d, 7d or empty, not {other:?}")),
    }
}

#[cfg(feature = "ssr")]
pub use build::*;

#[cfg(feature = "ssr")]
mod build {
    use super::*;
    use crate::engine::Zone;
    use crate::engine::triage::Problem;
    use chrono::{DateTime, Utc};

    /// An acknowledgement as Sundial's store keeps it.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Ack {
        pub key: String,
        pub episode: DateTime<Utc>,
        pub severity: ProblemSeverity,
        pub count: usize,
        pub until: Option<DateTime<Utc>>,
        pub note: String,
        pub by: String,
        pub at: DateTime<Utc>,
    }

    impl Ack {
        /// Why it no longer holds for `p` at `now`; `None`: it holds.
        pub fn lapsed(&self, p: &Problem, now: DateTime<Utc>) -> Option<String> {
            if p.severity < self.severity {
                return Some(format!(
                    "it got worse: {} now, {} when acknowledged",
                    p.severity.key(),
                    self.severity.key()
                ));
            }
            if p.count > self.count {
                return Some(format!("it got worse: {} now, {} when acknowledged", p.count, self.count));
            }
            match self.until {
                Some(until) if until <= now => Some("the silence ended".to_owned()),
                _ => None,
            }
        }
    }

    /// The zone of a page listing problems of several instances (triage, the fleet's panel),
    /// under the reader's "Instance" choice: the instances' zone when they all share one, else
    /// UTC, as the fleet's log does. One page, one zone: never UTC beside UTC+1.
    pub fn page_zone(zones: impl IntoIterator<Item = Zone>) -> Zone {
        let mut zones = zones.into_iter();
        let utc = Zone::from(chrono_tz::UTC);
        match zones.next() {
            Some(first) if zones.all(|z| z.name() == first.name()) => first,
            _ => utc,
        }
    }

    /// How long before `now` an instant was, in words for a reader: `under a minute ago`,
    /// `12 min ago`, `6 h 20 min ago`, `1 day 4 h ago`, `3 days ago`; `now` for one ahead.
    pub fn ago(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
        let secs = (now - t).num_seconds();
        let (d, h, m) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
        match secs {
            s if s < 0 => "now".to_owned(),
            s if s < 60 => "under a minute ago".to_owned(),
            s if s < 3600 => format!("{m} min ago"),
            s if s < 86_400 && m == 0 => format!("{h} h ago"),
            s if s < 86_400 => format!("{h} h {m} min ago"),
            s if s < 2 * 86_400 && h > 0 => format!("1 day {h} h ago"),
            s if s < 2 * 86_400 => "1 day ago".to_owned(),
            _ => format!("{d} days ago"),
        }
    }

    /// A maintenance window's row with every time in `tz` (the page's zone).
    pub fn window_in(mut w: WindowRow, tz: Zone) -> WindowRow {
        let again = |t: &TimePoint| {
            let at = DateTime::<Utc>::from_timestamp_millis(t.ms).unwrap_or_default();
            crate::ssr::point(at, tz)
        };
        w.start = again(&w.start);
        w.end = again(&w.end);
        if let Some(a) = w.added.as_mut() {
            a.1 = again(&a.1);
        }
        if let Some(e) = w.ended.as_mut() {
            e.1 = again(&e.1);
        }
        w
    }

    /// One problem as a row: `first_seen` is when Sundial first saw this episode, `tz` the
    /// zone its times are shown in (the page's: [`page_zone`]), `ack` the acknowledgement of
    /// this episode if any.
    pub fn row(p: &Problem, first_seen: DateTime<Utc>, tz: Zone, ack: Option<&Ack>, now: DateTime<Utc>) -> ProblemRow {
        let point = |t| crate::ssr::point(t, tz);
        let link = match &p.job {
            // A moment still to come (the scheduler's own next run, when it disagrees) is no
            // evidence to open the page at: the job's page as it is now says it.
            Some((id, _)) if p.at >= now => crate::links::job_href(Some(&p.instance), id, 1),
            // A streak (failures, misses in a row) opens on a window holding all of it, from
            // its first run (`since`) to the latest (`at`), not only the latest.
            Some((id, _)) => match p.since.filter(|s| *s < p.at).map(|s| crate::links::days_holding(s, now)) {
                Some(days) if days > crate::links::days_holding(p.at, now) => {
                    crate::links::job_span_href(Some(&p.instance), id, p.at, days)
                }
                _ => crate::links::job_at_href(Some(&p.instance), id, p.at),
            },
            // The instance's own problems: it cannot be read (the fleet's row says why and
            // since when), else its scheduler's span, on the instance timeline at its start.
            None if p.kind == ProblemKind::Unreachable => crate::links::fleet_row_href(&p.instance),
            None => crate::instance_timeline::instance_at_href(&p.instance, p.since.unwrap_or(p.at)),
        };
        ProblemRow {
            key: p.key(),
            episode_ms: first_seen.timestamp_millis(),
            kind: p.kind,
            severity: p.severity,
            instance: p.instance.clone(),
            job_id: p.job.as_ref().map(|j| j.0.clone()),
            job_name: p.job.as_ref().map(|j| j.1.clone()),
            since: point(p.since.unwrap_or(first_seen)),
            since_ago: ago(p.since.unwrap_or(first_seen), now),
            at: point(p.at),
            evidence: p.evidence.clone(),
            sentence: crate::SentenceView::of(&p.sentence, point),
            count: p.count,
            link,
            ack: ack.filter(|a| a.episode == first_seen).map(|a| AckInfo {
                by: a.by.clone(),
                note: a.note.clone(),
                at: point(a.at),
                until: a.until.map(point),
                lapsed: a.lapsed(p, now),
            }),
            maintenance: None,
            run_now: None,
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::engine::triage::Problem;
    use chrono::{DateTime, TimeDelta, Utc};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn missed(count: usize) -> Problem {
        Problem {
            kind: ProblemKind::Missed,
            severity: ProblemSeverity::Error,
            instance: "SQL1".into(),
            job: Some(("j1".into(), "Backup".into())),
            since: Some(t("2026-11-20T09:00:00Z")),
            at: t("2026-11-20T11:00:00Z"),
            evidence: "…".into(),
            sentence: Default::default(),
            count,
        }
    }

    fn ack(until: Option<DateTime<Utc>>) -> Ack {
        Ack {
            key: missed(2).key(),
            episode: t("2026-11-20T09:05:00Z"),
            severity: ProblemSeverity::Error,
            count: 2,
            until,
            note: "restoring the share".into(),
            by: "Ana".into(),
            at: t("2026-11-20T10:00:00Z"),
        }
    }

    #[test]
    fn an_acknowledgement_holds_until_the_problem_gets_worse_or_the_silence_ends() {
        let now = t("2026-11-20T12:00:00Z");
        assert_eq!(ack(None).lapsed(&missed(2), now), None);
        assert_eq!(ack(None).lapsed(&missed(1), now), None, "better is not worse");
        let worse = ack(None).lapsed(&missed(3), now).unwrap();
        assert!(worse.contains("worse") && worse.contains('3'), "{worse}");
        let mut critical = missed(2);
        critical.severity = ProblemSeverity::Critical;
        assert!(ack(None).lapsed(&critical, now).unwrap().contains("critical now"));
        assert_eq!(ack(Some(now + TimeDelta::hours(1))).lapsed(&missed(2), now), None);
        assert_eq!(ack(Some(now)).lapsed(&missed(2), now).as_deref(), Some("the silence ended"));
    }

    #[test]
    fn a_row_shows_only_the_acknowledgement_of_its_own_episode_and_links_the_moment() {
        let now = t("2026-11-20T12:00:00Z");
        let tz = crate::engine::Zone::from(chrono_tz::UTC);
        let a = ack(None);
        let r = row(&missed(2), a.episode, tz, Some(&a), now);
        assert_eq!(r.ack.as_ref().map(|a| a.note.as_str()), Some("restoring the share"));
        assert_eq!(r.link, "/jobs/j1?at=2026-11-20T11:00:00Z&instance=SQL1");
        assert_eq!(r.since.ms, t("2026-11-20T09:00:00Z").timestamp_millis());
        // A new episode (it resolved and came back): the old acknowledgement is not its.
        let r = row(&missed(2), t("2026-11-21T00:00:00Z"), tz, Some(&a), now);
        assert_eq!(r.ack, None);
    }

    #[test]
    fn a_streaks_link_opens_a_window_holding_the_whole_streak() {
        let now = t("2026-11-22T12:00:00Z");
        let tz = crate::engine::Zone::from(chrono_tz::UTC);
        // 4 failures in a row since 11-19, the latest an hour ago: the week, not the day.
        let mut p = missed(4);
        p.kind = ProblemKind::Failed;
        p.since = Some(t("2026-11-19T02:00:00Z"));
        p.at = t("2026-11-22T11:00:00Z");
        let r = row(&p, t("2026-11-19T02:05:00Z"), tz, None, now);
        assert_eq!(r.link, "/jobs/j1?days=7&at=2026-11-22T11:00:00Z&instance=SQL1#moment");
        // Since 10 days ago: the month.
        p.since = Some(t("2026-11-12T02:00:00Z"));
        assert!(row(&p, now, tz, None, now).link.starts_with("/jobs/j1?days=30&"));
        // A streak inside the day the latest run's window holds: the plain deep link.
        p.since = Some(t("2026-11-22T02:00:00Z"));
        assert_eq!(row(&p, now, tz, None, now).link, "/jobs/j1?at=2026-11-22T11:00:00Z&instance=SQL1");
    }

    #[test]
    fn since_says_how_long_ago_as_of_the_judgments_now() {
        let now = t("2026-11-22T12:00:00Z");
        let ago = |s: &str| super::ago(t(s), now);
        assert_eq!(ago("2026-11-22T11:59:30Z"), "under a minute ago");
        assert_eq!(ago("2026-11-22T11:48:00Z"), "12 min ago");
        assert_eq!(ago("2026-11-22T09:00:00Z"), "3 h ago");
        assert_eq!(ago("2026-11-22T05:40:00Z"), "6 h 20 min ago");
        assert_eq!(ago("2026-11-21T08:00:00Z"), "1 day 4 h ago");
        assert_eq!(ago("2026-11-19T02:30:00Z"), "3 days ago");
        assert_eq!(ago("2026-11-22T12:30:00Z"), "now");
        let r = row(&missed(2), now, crate::engine::Zone::from(chrono_tz::UTC), None, now);
        assert_eq!(r.since_ago, "2 days ago", "since 11-20 09:00, as of 11-22 12:00");
    }

    #[test]
    fn only_the_offered_silences_are_taken() {
        assert_eq!(silence_secs(""), Ok(None));
        assert_eq!(silence_secs("4h"), Ok(Some(4 * 3600)));
        assert!(silence_secs("forever").unwrap_err().contains("forever"));
    }
}
