//! The jobs list's wire types: the instance's head, each job's row and state, the find page's jobs.
use super::*;

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
    /// What the instance is doing now, as its one judgment says.
    #[serde(default)]
    pub condition: InstanceCondition,
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
    /// A stop's last sign of life before it (the latest start or end of any run): `start` is
    /// when it was down at the latest, the first time a run was due and did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<TimePoint>,
}

impl Incident {
    /// The log of the incident (`instance`'s, problems only): the lines from its start up to
    /// and including its end, the page's time filters bounding it, so that the page lands on
    /// its newest line at the top (lines 1 to n of n: none above it hidden behind a cursor).
    pub fn log_href(&self, instance: Option<&str>) -> String {
        let at = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default()
        };
        format!(
            "/log?days=30&problems=1{}&from={}&to={}",
            crate::links::instance_query(instance),
            at(self.start.ms),
            // `to` is not included: a second past the end holds a line at the end itself.
            at(self.end.ms.saturating_add(1000)),
        )
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

/// A span in which the scheduler started nothing: alive and starting no job (a zombie), or
/// stopped (`stopped`: from its last sign of life to its return, or now).
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
    /// A stop, not a zombie.
    #[serde(default)]
    pub stopped: bool,
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
    pub problems: Vec<crate::ProblemRow>,
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

impl JobRow {
    /// Whether the job has any problem: an open one now (its state), or a failed, missed, late
    /// or skipped run in the window. The jobs list's "Any problem" counts these, so it holds
    /// every job "With failures", "With missed runs" and "Failing now" count.
    pub fn has_problem(&self) -> bool {
        self.state.is_problem() || self.failed > 0 || self.missed > 0 || self.late > 0 || self.skipped > 0
    }
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
            s => crate::engine::triage::KINDS.len() as u8 + QUIET.iter().position(|q| q.0 == s).unwrap_or(0) as u8,
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

#[cfg(test)]
mod rank_tests {
    use super::*;

    /// A job with any problem sorts before every job without one, and no two states share a place.
    #[test]
    fn every_problem_state_sorts_before_every_quiet_state() {
        let problems: Vec<u8> = ProblemKind::ALL.iter().map(|k| JobState::Problem(*k).rank()).collect();
        let quiet: Vec<u8> = QUIET.iter().map(|q| q.0.rank()).collect();
        let worst_quiet = quiet.iter().min().copied().unwrap_or(u8::MAX);
        assert!(problems.iter().all(|r| *r < worst_quiet), "{problems:?} vs {quiet:?}");
        let mut all: Vec<u8> = problems.into_iter().chain(quiet).collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "each state its own place");
    }
}
