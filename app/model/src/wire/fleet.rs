//! The fleet page's wire types: each instance and how reading it goes.
use super::*;

/// How Sundial's reading of one instance goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceState {
    /// The last read succeeded.
    Ok,
    /// The last read failed (unreachable, refused, timed out); older data may still show.
    Unreachable,
    /// Not read yet (Sundial just started).
    Waiting,
}

/// One configured instance, as the fleet overview lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceStatus {
    pub name: String,
    /// `mssql`, `pg_cron`, `mysql_events`, `sqlite_demo`, …
    pub kind: String,
    /// What starts its jobs, as the server's registry of kinds says: pages word the instance's
    /// scheduler by it, never by `kind`.
    #[serde(default)]
    pub scheduler: Scheduler,
    /// The zone of the last good read.
    pub tz: Option<String>,
    pub state: SourceState,
    /// When the last good read finished (in the instance's zone).
    pub last_good: Option<TimePoint>,
    /// When the last attempt was made.
    pub last_attempt: Option<TimePoint>,
    /// How often Sundial reads the instance; `None` when its data never changes (the demo).
    #[serde(default)]
    pub poll_secs: Option<u64>,
    /// Seconds since the last good read, when the server answered.
    #[serde(default)]
    pub age_secs: Option<i64>,
    /// Stretches of the last 30 days in which Sundial could not read the instance (since
    /// Sundial started), the open one without an end.
    #[serde(default)]
    pub outages: Vec<Outage>,
    /// Why the last attempt failed (safe to show).
    pub error: Option<String>,
    /// Findings about the instance (missing grants, zone guesses, a stopped scheduler, …).
    pub notes: Vec<DiagnosticLine>,
    /// Jobs in the last good read.
    pub jobs: Option<usize>,
    /// `key=value` tags from the configuration.
    pub tags: Vec<String>,
    /// How many times Sundial has read (or tried to read) the instance since it started: the
    /// pollers' work, whatever the pages' load.
    #[serde(default)]
    pub reads: u64,
    /// What it is doing now, judged once per read and attempt: every view reads this.
    #[serde(default)]
    pub condition: InstanceCondition,
    /// Its incidents of the last 30 days (zombie spans, stops, stretches it could not be
    /// read), newest first, from the same judgment.
    #[serde(default)]
    pub incidents: Vec<Incident>,
}

/// What an instance is doing now: the worst that holds of it, from its one judgment (its
/// reading, its scheduler's gaps, the maintenance windows). The fleet table's badge, every
/// page's banner and the API say this and nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstanceCondition {
    /// Not read yet (Sundial just started).
    #[default]
    Waiting,
    /// Read, and its scheduler starts what is due.
    Reading,
    /// The last read failed: pages show its last good read.
    Unreachable,
    /// Its scheduler is stopped (it says so): nothing starts.
    SchedulerStopped,
    /// Its scheduler is up and starts nothing although runs are due.
    Zombie,
    /// A maintenance window over the whole instance holds now.
    Maintenance,
}

impl InstanceCondition {
    /// The judgment: an unreadable instance first (nothing else of it is current), then a
    /// window over it (what it does then is planned), then a scheduler stopped or a zombie
    /// still going (its incidents), else reading.
    pub fn of(state: SourceState, incidents: &[Incident], in_maintenance: bool) -> Self {
        let ongoing = |k: IncidentKind| incidents.iter().any(|i| i.ongoing && i.kind == k);
        match state {
            SourceState::Waiting => InstanceCondition::Waiting,
            SourceState::Unreachable => InstanceCondition::Unreachable,
            SourceState::Ok if in_maintenance => InstanceCondition::Maintenance,
            SourceState::Ok if ongoing(IncidentKind::SchedulerDown) => InstanceCondition::SchedulerStopped,
            SourceState::Ok if ongoing(IncidentKind::Zombie) => InstanceCondition::Zombie,
            SourceState::Ok => InstanceCondition::Reading,
        }
    }
    /// Its key (`data-state`, the API).
    pub fn key(self) -> &'static str {
        match self {
            InstanceCondition::Waiting => "waiting",
            InstanceCondition::Reading => "reading",
            InstanceCondition::Unreachable => "unreachable",
            InstanceCondition::SchedulerStopped => "scheduler_stopped",
            InstanceCondition::Zombie => "zombie",
            InstanceCondition::Maintenance => "maintenance",
        }
    }
    /// What the badge says, naming the instance's scheduler where it is the subject.
    pub fn label(self, scheduler: &Scheduler) -> String {
        match self {
            InstanceCondition::Waiting => "first read…".into(),
            InstanceCondition::Reading => "reading".into(),
            InstanceCondition::Unreachable => "unreachable".into(),
            InstanceCondition::SchedulerStopped => format!("{} stopped", scheduler.noun()),
            InstanceCondition::Zombie => format!("{} starts nothing", scheduler.noun()),
            InstanceCondition::Maintenance => "in maintenance".into(),
        }
    }
    /// Whether it is wrong now (the badge is hot).
    pub fn is_problem(self) -> bool {
        matches!(self, InstanceCondition::Unreachable | InstanceCondition::SchedulerStopped | InstanceCondition::Zombie)
    }
}

/// A stretch in which Sundial could not read an instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outage {
    pub start: TimePoint,
    /// `None`: it still cannot be read.
    pub end: Option<TimePoint>,
    /// Why the first read of the stretch failed (safe to show).
    pub error: String,
}

/// The fleet overview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetData {
    /// The instances listed: every one in the configuration's order, or, when they are more
    /// than the page's limit, those that cannot be read or not yet first, then the rest, up
    /// to the limit.
    pub instances: Vec<InstanceStatus>,
    /// Every configured instance, listed or not.
    #[serde(default)]
    pub total: usize,
    /// How many cannot be read now, listed or not.
    #[serde(default)]
    pub unreachable: usize,
}

impl FleetData {
    /// `instances` (in the configuration's order) counted, and at most `limit` of them
    /// listed: every one in order when they fit, else those that cannot be read, then those
    /// not read yet, then the rest, each in order.
    pub fn listing(mut instances: Vec<InstanceStatus>, limit: Option<usize>) -> Self {
        let total = instances.len();
        let unreachable = instances.iter().filter(|i| i.state == SourceState::Unreachable).count();
        if let Some(limit) = limit.filter(|l| *l < total) {
            // A stable sort: the configuration's order within each state.
            instances.sort_by_key(|i| match i.state {
                SourceState::Unreachable => 0,
                SourceState::Waiting => 1,
                SourceState::Ok => 2,
            });
            instances.truncate(limit);
        }
        FleetData { instances, total, unreachable }
    }
}

/// How many instances the fleet page lists at first (`?show=all` lists every one).
pub const FLEET_ROWS: usize = 100;
