//! `GET /api/triage`: every problem now across the fleet, worst first, as the triage page
//! shows it (see [`app::engine::triage`] for the kinds, severities and ranking).
use app::api::{ProblemRow, TimePoint};
use axum::Json;
use axum::extract::State;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use utoipa::ToSchema;

use crate::http::AppState;

/// `GET /api/triage`.
#[derive(Serialize, ToSchema)]
pub struct Triage {
    /// Every open problem, worst first (severity, then the oldest `since`); acknowledged ones
    /// included, with their acknowledgement.
    pub problems: Vec<Problem>,
    /// Instances configured; instances whose jobs could be judged (read, not stale); jobs judged.
    pub instances: usize,
    pub judged_instances: usize,
    pub judged_jobs: usize,
}

/// One thing wrong now.
#[derive(Serialize, ToSchema)]
pub struct Problem {
    /// `unreachable`, `scheduler_stopped`, `zombie`, `missed`, `failed`, `running_long`,
    /// `too_short`, `no_success`, `next_run_disagrees` or `stale`.
    pub kind: String,
    /// `critical`, `error`, `warning` or `info`.
    pub severity: String,
    pub instance: String,
    /// The job's name; absent for an instance-wide problem.
    pub job: Option<String>,
    /// The job's id in its scheduler.
    pub job_id: Option<String>,
    /// Since when it is wrong (in the instance's offset).
    #[schema(value_type = String, format = DateTime)]
    pub since: Option<DateTime<FixedOffset>>,
    /// What shows it, in words.
    pub evidence: String,
    /// Runs missed in a row, failures in a row, jobs a zombie starved; 1 otherwise.
    pub count: usize,
    /// The page with the evidence: the job's timeline at that moment, or the instance's jobs.
    pub link: String,
    /// Someone's acknowledgement or silence, while it holds.
    pub acknowledged: Option<Acknowledged>,
}

/// An acknowledgement that holds.
#[derive(Serialize, ToSchema)]
pub struct Acknowledged {
    pub by: String,
    pub note: String,
    /// Silenced until then; absent: until it resolves or gets worse.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<DateTime<FixedOffset>>,
}

fn at(p: &TimePoint) -> Option<DateTime<FixedOffset>> {
    let off = FixedOffset::east_opt(p.off)?;
    DateTime::from_timestamp_millis(p.ms).map(|t| t.with_timezone(&off))
}

/// A problem as the JSON API answers it (here and in each job of the jobs list).
pub fn problem(r: ProblemRow) -> Problem {
    Problem {
        kind: r.kind.key().to_owned(),
        severity: r.severity.key().to_owned(),
        since: at(&r.since),
        acknowledged: r.ack.filter(|a| a.lapsed.is_none()).map(|a| Acknowledged {
            until: a.until.as_ref().and_then(at),
            by: a.by,
            note: a.note,
        }),
        instance: r.instance,
        job: r.job_name,
        job_id: r.job_id,
        evidence: r.evidence,
        count: r.count,
        link: r.link,
    }
}

/// Every problem now across the fleet, worst first.
#[utoipa::path(get, path = "/api/triage", responses((status = 200, body = Triage)))]
pub async fn triage(State(state): State<AppState>) -> Json<Triage> {
    let data = state.backend.triage(app::api::TriageScope::all()).await;
    let mut rows: Vec<ProblemRow> = data.problems.into_iter().chain(data.acknowledged).collect();
    // Worst first across both lists, as the engine ranks.
    rows.sort_by_key(|r| (r.severity, r.since.ms));
    Json(Triage {
        problems: rows.into_iter().map(problem).collect(),
        instances: data.instances,
        judged_instances: data.judged,
        judged_jobs: data.jobs,
    })
}
