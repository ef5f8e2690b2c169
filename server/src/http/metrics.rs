//! `GET /metrics`: the fleet for Prometheus, in the OpenMetrics text format (which Prometheus
//! scrapes natively), written by `prometheus-client`.
//!
//! Computed per scrape from the reports pages use (cached per read), never by reading a
//! source. Windows: counts (`sundial_job_missed_runs`, `sundial_job_failed_runs`) are over the
//! last 24 hours of the instance's last good read (its 1-day report); the last success, the
//! run going and p95 over its 30 days (the 30-day report).
//!
//! Labels are stable and bounded: `instance` (as configured) and `job` (the job's name; a
//! second job of the same name in one instance is `name (id)`), `cause` one of
//! [`CAUSES`], `kind` and `severity` those of the eleven problem kinds. Series: 2 per
//! instance + 8 per job (4 causes, failed, running, last success and p95 when known) + 11:
//! with I instances and J jobs, at most 2·I + 8·J + 11. No error text, no URL, no secret is
//! ever a label or a value.
use super::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::AtomicU64;
use sundial_engine::triage::ProblemKind;
use sundial_model::SourceState;
use sundial_model::ssr::Backend;
use sundial_model::ssr::figures::JobFigures;

/// Why a due run did not happen: the `cause` label's values.
pub use sundial_model::ssr::figures::CAUSES;

/// The content type of the OpenMetrics text format.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct InstanceLabels {
    instance: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    instance: String,
    job: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CauseLabels {
    instance: String,
    job: String,
    cause: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProblemLabels {
    kind: String,
    severity: String,
}

type FloatGauge = Gauge<f64, AtomicU64>;

/// The families, registered with their HELP.
struct Families {
    up: Family<InstanceLabels, Gauge>,
    reads: Family<InstanceLabels, prometheus_client::metrics::counter::Counter>,
    age: Family<InstanceLabels, FloatGauge>,
    last_success: Family<JobLabels, FloatGauge>,
    missed: Family<CauseLabels, Gauge>,
    failed: Family<JobLabels, Gauge>,
    running: Family<JobLabels, FloatGauge>,
    p95: Family<JobLabels, FloatGauge>,
    problems: Family<ProblemLabels, Gauge>,
}

impl Families {
    fn register(registry: &mut Registry) -> Families {
        let f = Families {
            up: Family::default(),
            reads: Family::default(),
            age: Family::default(),
            last_success: Family::default(),
            missed: Family::default(),
            failed: Family::default(),
            running: Family::default(),
            p95: Family::default(),
            problems: Family::default(),
        };
        registry.register(
            "sundial_instance_up",
            "1 if the last attempt to read the instance succeeded, else 0",
            f.up.clone(),
        );
        registry.register(
            "sundial_instance_reads",
            "Reads of the instance (attempts, failed ones included) since Sundial started: one per poll interval, \
             whatever the pages' load",
            f.reads.clone(),
        );
        registry.register(
            "sundial_instance_last_read_age_seconds",
            "Seconds since the instance's last good read",
            f.age.clone(),
        );
        registry.register(
            "sundial_job_last_success_timestamp_seconds",
            "When the job's last successful run ended (Unix seconds), within the last 30 days of the last good read",
            f.last_success.clone(),
        );
        registry.register(
            "sundial_job_missed_runs",
            "Due runs that did not happen in the last 24 hours of the last good read, by cause \
             (no_run, scheduler_zombie, scheduler_down, skipped_running); runs older than the history kept are not counted",
            f.missed.clone(),
        );
        registry.register(
            "sundial_job_failed_runs",
            "Runs that failed, crashed or were abandoned, started in the last 24 hours of the last good read",
            f.failed.clone(),
        );
        registry.register(
            "sundial_job_running_seconds",
            "How long the job's run in progress has been going at the last good read; 0 when none is",
            f.running.clone(),
        );
        registry.register(
            "sundial_job_duration_p95_seconds",
            "95th percentile (nearest rank) of the job's completed runs' durations over the last 30 days",
            f.p95.clone(),
        );
        registry.register(
            "sundial_problems",
            "Problems open now across the fleet (acknowledged ones included), by kind and severity, as the triage view lists them",
            f.problems.clone(),
        );
        f
    }
}

/// A label value as the text format needs it: `prometheus-client` writes label values as
/// given, so backslashes, quotes and line breaks are escaped here.
fn label(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The `job` label of each job of an instance: its name, or `name (id)` for a name taken.
fn job_labels(jobs: &[JobFigures]) -> BTreeMap<String, String> {
    let mut seen = HashSet::new();
    jobs.iter()
        .map(|j| {
            let label = if seen.insert(j.name.clone()) { j.name.clone() } else { format!("{} ({})", j.name, j.id) };
            (j.id.clone(), self::label(&label))
        })
        .collect()
}

/// The whole exposition for `backend`, ages measured against `clock`.
pub async fn render(backend: &dyn Backend, clock: DateTime<Utc>) -> String {
    let mut registry = Registry::default();
    let f = Families::register(&mut registry);
    for status in backend.instances().await {
        let name = label(&status.name);
        let instance = InstanceLabels { instance: name.clone() };
        f.up.get_or_create(&instance).set(i64::from(status.state == SourceState::Ok));
        f.reads.get_or_create(&instance).inc_by(status.reads);
        let Some(last_good) = &status.last_good else { continue };
        let age = (clock.timestamp_millis() - last_good.ms).max(0) as f64 / 1000.0;
        f.age.get_or_create(&instance).set(age);
        // The figures made once per read (with the judgment), never an analysis per scrape.
        let Some(figures) = backend.figures(&status.name).await else { continue };
        let labels = job_labels(&figures);
        for job in figures.iter() {
            let Some(label) = labels.get(&job.id) else { continue };
            let l = JobLabels { instance: name.clone(), job: label.clone() };
            if let Some(end) = job.last_success {
                f.last_success.get_or_create(&l).set(end.timestamp_millis() as f64 / 1000.0);
            }
            f.running.get_or_create(&l).set(job.running_secs as f64);
            if let Some(p95) = job.p95 {
                f.p95.get_or_create(&l).set(p95 as f64);
            }
            for (c, n) in CAUSES.iter().zip(job.missed) {
                let labels = CauseLabels { instance: l.instance.clone(), job: l.job.clone(), cause: (*c).to_owned() };
                f.missed.get_or_create(&labels).set(n);
            }
            f.failed.get_or_create(&l).set(job.failed);
        }
    }
    let triage = backend.triage(sundial_model::TriageScope::all()).await;
    let mut by_kind: BTreeMap<ProblemKind, i64> = ProblemKind::ALL.iter().map(|k| (*k, 0)).collect();
    for p in triage.problems.iter().chain(&triage.acknowledged) {
        *by_kind.entry(p.kind).or_default() += 1;
    }
    for (kind, n) in by_kind {
        let labels = ProblemLabels { kind: kind.key().to_owned(), severity: kind.severity().key().to_owned() };
        f.problems.get_or_create(&labels).set(n);
    }
    let mut out = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &registry) {
        tracing::warn!(error = %e, "metrics: the exposition could not be written");
    }
    out
}

/// `GET /metrics`
pub async fn metrics(State(state): State<AppState>) -> Response {
    let text = render(state.backend.as_ref(), Utc::now()).await;
    (StatusCode::OK, [(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
