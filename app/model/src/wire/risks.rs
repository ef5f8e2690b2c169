//! Risks ahead as pages and the API show them: what each job's schedules will do over the next
//! days that a DBA would want to know first (`sundial_engine::risks`, judged once per read).
use super::*;

/// One risk of one job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskRow {
    pub instance: String,
    pub job_id: String,
    /// The job's name as its scheduler names it.
    pub job: String,
    /// The kind's key (`dst_gap`, `dst_fold`, `never_runs`, `schedule_ends`, `overlaps_itself`,
    /// `collides`: `sundial_engine::risks::KINDS`).
    pub kind: String,
    /// The kind's words ("DST gap").
    pub label: String,
    pub severity: Severity,
    /// The instants it concerns, ascending, in the instance's zone.
    pub at: Vec<TimePoint>,
    /// What will happen, in one sentence.
    pub explanation: String,
    /// The other job of a collision: its id and name.
    pub with: Option<(String, String)>,
    /// The job's page at its risks.
    pub href: String,
}

/// Every risk of the fleet (or of one instance) from now over `days`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RisksData {
    pub days: u32,
    /// From now (the earliest instance's read) to `days` later, in UTC.
    pub from: Option<TimePoint>,
    pub to: Option<TimePoint>,
    /// By first instant, then instance, job and kind.
    pub risks: Vec<RiskRow>,
    /// Instances whose risks could not be judged (never read yet).
    pub unjudged: Vec<String>,
}

/// The risks' horizon pages and the API offer by default, and at most, in days.
pub const RISK_DAYS: u32 = 30;
pub const RISK_DAYS_MAX: u32 = 90;
/// What the landing page and triage look at: the next week.
pub const RISK_DAYS_SOON: u32 = 7;
