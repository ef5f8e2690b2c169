//! `GET /api/triage`: every problem now across the fleet, worst first, as the triage page
//! shows it (see [`sundial_engine::triage`] for the kinds, severities and ranking).
use axum::Json;
use axum::extract::State;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use sundial_model::{ProblemRow, TimePoint};
use utoipa::ToSchema;

use crate::http::AppState;

/// `GET /api/triage`.
#[derive(Serialize, ToSchema)]
pub struct Triage {
    /// Every open problem, worst first (severity, then the oldest `since`); acknowledged and
    /// silenced ones included, with their acknowledgement or silence.
    pub problems: Vec<Problem>,
    /// Open problems nobody holds; acknowledged ones (until they resolve or get worse);
    /// silenced ones (held for a time). A silence is counted as silenced, never as acknowledged.
    pub open: usize,
    pub acknowledged: usize,
    pub silenced: usize,
    /// Instances configured; instances whose jobs could be judged (read, not stale); jobs judged.
    pub instances: usize,
    pub judged_instances: usize,
    pub judged_jobs: usize,
    /// Maintenance windows open now, planned for the next 7 days, or ended in the last day.
    pub maintenance: Vec<MaintenanceWindow>,
}

/// One occurrence of a maintenance window.
#[derive(Serialize, ToSchema)]
pub struct MaintenanceWindow {
    /// `file:<name>` for the fleet file's, `added:<ms>-<random>` for one added from the triage page.
    pub id: String,
    pub name: String,
    pub reason: String,
    /// What it covers, in words.
    pub scope: String,
    /// How it recurs, in words.
    pub recurs: String,
    #[schema(value_type = String, format = DateTime)]
    pub start: Option<DateTime<FixedOffset>>,
    #[schema(value_type = String, format = DateTime)]
    pub end: Option<DateTime<FixedOffset>>,
    /// `open`, `planned`, `ended` (early, by someone: `ended_by`, `ended_why`), `cancelled`
    /// (ended before it began: only `GET /api/maintenance` lists those) or `past` (it ran its
    /// course).
    pub state: String,
    /// Who added it from the triage page (absent: the fleet file).
    pub added_by: Option<String>,
    /// Who ended it early, and why.
    pub ended_by: Option<String>,
    pub ended_why: Option<String>,
    /// When it was added from the triage page, and when it was ended early.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub added_at: Option<DateTime<FixedOffset>>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub ended_at: Option<DateTime<FixedOffset>>,
    /// The fleet file's line that declares it (absent: added from the triage page).
    pub line: Option<usize>,
    /// What it changed: due runs not made inside it, counted as maintenance (not missed), over
    /// the 30 days Sundial reads. Only `GET /api/maintenance` counts them.
    pub maintenance_runs: Option<usize>,
}

/// `GET /api/maintenance`.
#[derive(Serialize, ToSchema)]
pub struct Maintenance {
    /// Every window that changes what a page or the API can show: the fleet file's occurrences
    /// over the last 30 days and the next 7, every window added from the triage page
    /// (whenever it was); open first, then planned, then the rest newest first.
    pub windows: Vec<MaintenanceWindow>,
    /// The due runs they made maintenance, in all.
    pub maintenance_runs: usize,
}

/// A window as the JSON API answers it.
pub fn window(w: sundial_model::triage::WindowRow) -> MaintenanceWindow {
    MaintenanceWindow {
        start: at(&w.start),
        end: at(&w.end),
        added_at: w.added.as_ref().and_then(|a| at(&a.1)),
        added_by: w.added.map(|a| a.0),
        ended_at: w.ended.as_ref().and_then(|e| at(&e.1)),
        ended_by: w.ended.as_ref().map(|e| e.0.clone()),
        ended_why: w.ended.map(|e| e.2),
        id: w.id,
        name: w.name,
        reason: w.reason,
        scope: w.scope,
        recurs: w.recurs,
        state: w.state,
        line: w.line,
        maintenance_runs: w.runs,
    }
}

/// Every maintenance window that changes what a page or the API can show, with who added or
/// ended it, when, why, and the due runs it made maintenance.
#[utoipa::path(get, path = "/api/maintenance", responses((status = 200, body = Maintenance)))]
pub async fn maintenance(State(state): State<AppState>) -> Json<Maintenance> {
    let data = state.backend.maintenance_history().await;
    let maintenance_runs = data.windows.iter().filter_map(|w| w.runs).sum();
    Json(Maintenance { windows: data.windows.into_iter().map(window).collect(), maintenance_runs })
}

/// One thing wrong now.
#[derive(Serialize, ToSchema)]
pub struct Problem {
    /// `unreachable`, `scheduler_stopped`, `zombie`, `missed`, `failed`, `running_long`,
    /// `too_short`, `no_success`, `next_run_disagrees`, `stale` or `deadline_missed`.
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
    /// Someone's acknowledgement (until it resolves or gets worse), while it holds.
    pub acknowledged: Option<Acknowledged>,
    /// Someone's silence (held until `until`), while it holds.
    pub silenced: Option<Acknowledged>,
    /// The maintenance window open now that holds it: no alert unless it is still open when
    /// the window ends.
    pub maintenance: Option<Held>,
}

/// A maintenance window holding a problem.
#[derive(Serialize, ToSchema)]
pub struct Held {
    pub window: String,
    #[schema(value_type = String, format = DateTime)]
    pub until: Option<DateTime<FixedOffset>>,
}

/// An acknowledgement or a silence that holds: who, when, their note.
#[derive(Serialize, ToSchema)]
pub struct Acknowledged {
    pub by: String,
    pub note: String,
    /// When it was given.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub at: Option<DateTime<FixedOffset>>,
    /// Silenced until then; absent: until it resolves or gets worse.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<DateTime<FixedOffset>>,
}

fn at(p: &TimePoint) -> Option<DateTime<FixedOffset>> {
    let off = FixedOffset::east_opt(p.off)?;
    DateTime::from_timestamp_millis(p.ms).map(|t| t.with_timezone(&off))
}

fn held(a: sundial_model::triage::AckInfo) -> Acknowledged {
    Acknowledged { at: at(&a.at), until: a.until.as_ref().and_then(at), by: a.by, note: a.note }
}

/// A problem as the JSON API answers it (here and in each job of the jobs list).
pub fn problem(r: ProblemRow) -> Problem {
    Problem {
        kind: r.kind.key().to_owned(),
        severity: r.severity.key().to_owned(),
        since: at(&r.since),
        acknowledged: r.ack.clone().filter(|a| a.lapsed.is_none() && a.until.is_none()).map(held),
        silenced: r.ack.filter(|a| a.lapsed.is_none() && a.until.is_some()).map(held),
        instance: r.instance,
        job: r.job_name,
        job_id: r.job_id,
        evidence: r.evidence,
        count: r.count,
        link: r.link,
        maintenance: r.maintenance.map(|m| Held { window: m.name, until: at(&m.until) }),
    }
}

/// Every problem now across the fleet, worst first.
#[utoipa::path(get, path = "/api/triage", responses((status = 200, body = Triage)))]
pub async fn triage(State(state): State<AppState>) -> Json<Triage> {
    let data = state.backend.triage(sundial_model::TriageScope::all()).await;
    let (open, acknowledged, silenced) = (data.open_total(), data.acknowledged_total, data.silenced_total);
    let mut rows: Vec<ProblemRow> = data.problems.into_iter().chain(data.acknowledged).collect();
    // Worst first across both lists, as the engine ranks.
    rows.sort_by_key(|r| (r.severity, r.since.ms));
    Json(Triage {
        problems: rows.into_iter().map(problem).collect(),
        open,
        acknowledged,
        silenced,
        instances: data.instances,
        judged_instances: data.judged,
        judged_jobs: data.jobs,
        maintenance: data.maintenance.windows.into_iter().map(window).collect(),
    })
}

#[cfg(test)]
mod tests {
    /// `Problem::kind`'s and `severity`'s docs (the OpenAPI document's) name every kind and
    /// severity the engine describes, and nothing else.
    #[test]
    fn the_documented_kinds_are_the_engines() {
        use sundial_engine::triage::{KINDS, ProblemSeverity};
        let source = include_str!("triage.rs");
        let at = source.find("pub struct Problem {").expect("Problem");
        let doc = &source[at..at + source[at..].find("pub kind").expect("kind")];
        let named: Vec<&str> = doc.split('`').skip(1).step_by(2).collect();
        let mut kinds: Vec<&str> = KINDS.iter().map(|k| k.key).collect();
        let mut named_sorted = named.clone();
        named_sorted.sort();
        kinds.sort();
        assert_eq!(named_sorted, kinds, "Problem::kind's doc");
        let sev_doc = &source[at..][source[at..].find("pub kind").unwrap()..source[at..].find("pub instance").unwrap()];
        for s in ProblemSeverity::ALL {
            assert!(sev_doc.contains(&format!("`{}`", s.key())), "Problem::severity's doc names {}", s.key());
        }
    }
}
