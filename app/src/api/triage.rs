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
}

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
    /// The moment the evidence points at.
    pub at: TimePoint,
    pub evidence: String,
    /// Runs missed in a row, failures in a row, jobs starved by a zombie; 1 otherwise.
    pub count: usize,
    /// Where the evidence is: the job's timeline at `at`, or the instance's jobs.
    pub link: String,
    /// Someone's acknowledgement of this episode, holding or lapsed.
    pub ack: Option<AckInfo>,
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

/// An icon per kind, beside its word (never color alone).
pub fn kind_icon(kind: ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Unreachable => "⛔",
        ProblemKind::SchedulerStopped => "⏹",
        ProblemKind::Zombie => "☠",
        ProblemKind::Missed => "✕",
        ProblemKind::Failed => "✖",
        ProblemKind::NoSuccess => "⚠",
        ProblemKind::RunningLong => "⏳",
        ProblemKind::TooShort => "⏱",
        ProblemKind::NextRunDisagrees => "⇄",
        ProblemKind::Stale => "⌛",
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

    /// One problem as a row: `first_seen` is when Sundial first saw this episode, `tz` the
    /// instance's zone, `ack` the acknowledgement of this episode if any.
    pub fn row(p: &Problem, first_seen: DateTime<Utc>, tz: Zone, ack: Option<&Ack>, now: DateTime<Utc>) -> ProblemRow {
        let point = |t| crate::api::ssr::point(t, tz);
        let link = match &p.job {
            Some((id, _)) => crate::components::job_at_href(Some(&p.instance), id, p.at),
            None => format!("/?days=1{}", crate::components::instance_query(Some(&p.instance))),
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
            at: point(p.at),
            evidence: p.evidence.clone(),
            count: p.count,
            link,
            ack: ack.filter(|a| a.episode == first_seen).map(|a| AckInfo {
                by: a.by.clone(),
                note: a.note.clone(),
                at: point(a.at),
                until: a.until.map(point),
                lapsed: a.lapsed(p, now),
            }),
        }
    }
}
