//! The seam between pages and the server: the [`Backend`] pages read (the server implements it
//! over its pollers, tests over fixtures), one good read as the engine takes it
//! ([`Snapshot`]), and the fleet's one judgment a request reads ([`FleetJudgment`],
//! [`RequestJudgment`]).
use super::*;
use std::{future::Future, pin::Pin};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a backend has no report. Both texts are shown to users, so a backend puts only
/// safe words in them (what failed, which grant is missing) and logs the rest itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportError {
    /// No instance by that name.
    UnknownInstance,
    /// The instance's source cannot be read now.
    Unavailable { instance: String, reason: String, last_good: Option<DateTime<Utc>> },
}

impl From<ReportError> for ApiError {
    fn from(e: ReportError) -> Self {
        match e {
            ReportError::UnknownInstance => ApiError::NotFound { what: "instance".into() },
            ReportError::Unavailable { instance, reason, last_good } => ApiError::Unavailable {
                instance,
                reason,
                last_good: last_good.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()),
            },
        }
    }
}

/// What pages read. The server implements it over its sources (polled, cached); tests
/// implement it over fixtures.
pub trait Backend: Send + Sync + 'static {
    /// The report of `instance` (`None`: the first configured) for the `days`-long window
    /// ending at the instance's "now".
    fn report(&self, instance: Option<&str>, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, ReportError>>;

    /// One instance's log of its last good read over the `days` before its "now", as the
    /// fleet-wide log of a large fleet reads it: a tally of its lines, and the lines of a few
    /// days on asking ([`InstanceLog`]). By default its report's whole log.
    fn instance_log(&self, instance: &str, days: u32) -> BoxFuture<'_, Result<Arc<dyn InstanceLog>, ReportError>> {
        let instance = instance.to_owned();
        Box::pin(async move {
            let report = self.report(Some(&instance), days).await?;
            let events = self.source_log(Some(&instance)).await;
            Ok(Arc::new(ReportLog::new(&report, &events)) as Arc<dyn InstanceLog>)
        })
    }

    /// Every instance and how reading it goes, in configuration order.
    fn instances(&self) -> BoxFuture<'_, Vec<InstanceStatus>>;

    /// The source's own log (Primentra's SchedulerLog) of its last good read; most
    /// sources have none (their log is derived from runs).
    fn source_log(&self, _instance: Option<&str>) -> BoxFuture<'_, Vec<crate::engine::log::LogEvent>> {
        Box::pin(async { Vec::new() })
    }
    /// The instance's last good read as the engine takes it, for reports over any window and
    /// at any moment (the JSON API). A backend that serves only its fixed windows has none.
    fn snapshot(&self, _instance: &str) -> BoxFuture<'_, Result<Arc<Snapshot>, ReportError>> {
        Box::pin(async { Err(ReportError::UnknownInstance) })
    }
    /// A number that changes whenever anything a page shows may have changed (a read, a failed
    /// read, an acknowledgement, a maintenance window); `None`: pages are rendered on every
    /// request.
    fn version(&self) -> Option<u64> {
        None
    }
    /// A number that changes whenever someone acknowledges or undoes an acknowledgement, adds
    /// or ends a maintenance window, and whenever one more instance is judged for the first time: pages are never answered from
    /// before such a change (whoever acknowledged sees it; a page from a part of the fleet is
    /// not shown once all of it is). A problem's episode starting or ending is a change of
    /// data ([`Backend::version`]): with thousands of problems episodes change every second,
    /// and pages then never waited less.
    fn kept_version(&self) -> u64 {
        0
    }
    /// When a run is long or short (the fleet file's `[triage]`).
    fn duration_flags(&self) -> DurationFlags {
        DurationFlags::default()
    }
    /// The deadlines (`[[deadline]]`) the job with this id and name of `instance` must meet;
    /// none by default.
    fn deadlines(&self, _instance: &str, _job: (&str, &str)) -> Vec<crate::engine::deadlines::Deadline> {
        Vec::new()
    }
    /// The figures of each job of `instance`'s last good read (`/metrics`); by default from its
    /// 30-day and 1-day reports. `None`: no good read.
    fn figures(&self, instance: &str) -> BoxFuture<'_, Option<Arc<Vec<figures::JobFigures>>>> {
        let instance = instance.to_owned();
        Box::pin(async move {
            let month = self.report(Some(&instance), 30).await.ok()?;
            let day = self.report(Some(&instance), 1).await.ok()?;
            Some(Arc::new(figures::of(&month, &day)))
        })
    }
    /// The fleet's one judgment now ([`FleetJudgment`]): [`Backend::triage_of`] reads it. A
    /// request reads one ([`RequestJudgment`]), however many of its views ask. By default
    /// nothing is judged.
    fn judgment(&self) -> BoxFuture<'_, Judgment> {
        Box::pin(async { Judgment::default() })
    }
    /// The problems in `scope` (the fleet's or one instance's) of a `judgment` this backend
    /// gave, worst first, at most the scope's limit of each list and how many there are (see
    /// [`crate::triage`]).
    fn triage_of(&self, _judgment: &FleetJudgment, _scope: super::TriageScope) -> super::TriageData {
        super::TriageData::default()
    }
    /// [`Backend::triage_of`] the judgment now.
    fn triage(&self, scope: super::TriageScope) -> BoxFuture<'_, super::TriageData> {
        Box::pin(async move {
            let judgment = self.judgment().await;
            self.triage_of(&judgment, scope)
        })
    }
    /// Acknowledge or silence one episode of a problem (kept in Sundial's store).
    fn acknowledge(&self, _form: super::AckForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async { Err(ApiError::BadRequest("acknowledging is not available here".into())) })
    }
    /// Undo the acknowledgement or silence of one episode of a problem.
    fn unacknowledge(&self, _form: super::AckForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async { Err(ApiError::BadRequest("acknowledging is not available here".into())) })
    }
    /// Add a maintenance window (kept in Sundial's store, with who and why).
    fn maintenance_add(&self, _form: super::triage::MaintenanceForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async { Err(ApiError::BadRequest("maintenance windows are not available here".into())) })
    }
    /// End an open maintenance window now, or cancel one to come.
    fn maintenance_end(&self, _form: super::triage::MaintenanceEndForm) -> BoxFuture<'_, Result<(), ApiError>> {
        Box::pin(async { Err(ApiError::BadRequest("maintenance windows are not available here".into())) })
    }
    /// Every risk ahead of the fleet's jobs (or of `instance`'s) over `days` from each
    /// instance's now ([`super::risks`]): judged once per read and horizon. By default none.
    fn risks(&self, _instance: Option<&str>, days: u32) -> BoxFuture<'_, crate::RisksData> {
        Box::pin(async move { crate::RisksData { days, ..Default::default() } })
    }
    /// The changes Sundial saw of jobs' definitions, seen in `window`, each with its instance,
    /// oldest first: of `instance` (`None`: every instance) and `job` (an id; `None`: every
    /// job). None where nothing is kept.
    fn changes(
        &self,
        _instance: Option<&str>,
        _job: Option<&str>,
        _window: crate::engine::Window,
    ) -> BoxFuture<'_, Vec<(String, crate::engine::changes::Change)>> {
        Box::pin(async { Vec::new() })
    }
    /// Every maintenance window that changes what a page or the API can show (the fleet
    /// file's over the days pages reach and the week ahead, every one added from the triage
    /// page), each with who, when, why and the due runs it made maintenance.
    fn maintenance_history(&self) -> BoxFuture<'_, super::triage::MaintenanceData> {
        Box::pin(async { super::triage::MaintenanceData::default() })
    }
}

/// One good read of an instance, as the engine takes it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub input: crate::engine::fleet::InstanceInput,
    /// The instance's "now" for the read.
    pub now: DateTime<Utc>,
    /// The stretch the read covers: runs that started before its start were not read.
    pub covers: Window,
    /// The source's own log, if it keeps one.
    pub events: Vec<crate::engine::log::LogEvent>,
    /// The next runs the scheduler itself reported (msdb's `next_scheduled_run_date`,
    /// pgAgent's `jobnextrun`, Primentra's `NextRunOn`), as read: the calendar says where
    /// Sundial's forecast agrees.
    pub reported_next: Vec<ReportedNext>,
}

/// The scheduler's own idea of a job's next run, as its table holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportedNext {
    /// The job's id in the read.
    pub job_id: String,
    pub at: DateTime<Utc>,
    /// The column it came from (`next_scheduled_run_date`, `jobnextrun`, `NextRunOn`).
    pub column: String,
}

/// Put in leptos context by the server.
#[derive(Clone)]
pub struct BackendHandle(pub Arc<dyn Backend>);

/// One problem judged now, with the zone of its instance.
#[derive(Clone, Debug)]
pub struct JudgedProblem {
    pub problem: crate::engine::triage::Problem,
    pub tz: Tz,
    /// When Sundial first saw this episode.
    pub first_seen: DateTime<Utc>,
    /// The maintenance window that held it since its episode began, the one ending last
    /// (holding it now when it ends after now: no alert until then).
    pub maintenance: Option<Holding>,
}

/// The maintenance window that held a problem: its name and when it ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Holding {
    pub name: String,
    pub until: DateTime<Utc>,
}

/// The fleet's problems now, ranked worst first: the one judgment every view of a request
/// reads ([`Backend::judgment`]).
#[derive(Clone, Debug, Default)]
pub struct FleetJudgment {
    pub judged: Vec<JudgedProblem>,
    /// Instances configured, instances whose jobs were judged, jobs judged.
    pub counts: (usize, usize, usize),
    pub at: DateTime<Utc>,
    /// The instances whose jobs were judged (read, not stale): a job's problem missing from
    /// `judged` has ended only there.
    pub judged_instances: std::collections::HashSet<String>,
}

/// A backend's judgment of the fleet, shared ([`Backend::judgment`]).
pub type Judgment = Arc<FleetJudgment>;

/// The one judgment a request reads, put in leptos context by the server for each request:
/// the header's count, a page's list and every job's state on it are of the same judgment,
/// even when a new one is made while the page renders.
#[derive(Clone, Default)]
pub struct RequestJudgment(Arc<std::sync::Mutex<Option<Judgment>>>);

impl RequestJudgment {
    /// The judgment this request reads: the first one asked for.
    pub async fn get(&self, backend: &dyn Backend) -> Judgment {
        if let Some(j) = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return j;
        }
        let made = backend.judgment().await;
        // Two views asking at once may each get one; both read the first kept.
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(made).clone()
    }
}

/// The problems in `scope` of the judgment this request reads (`pinned`; a fresh one outside a
/// request).
pub async fn triage_here(
    backend: &dyn Backend,
    pinned: Option<&RequestJudgment>,
    scope: super::TriageScope,
) -> super::TriageData {
    let judgment = match pinned {
        Some(pinned) => pinned.get(backend).await,
        None => backend.judgment().await,
    };
    backend.triage_of(&judgment, scope)
}
