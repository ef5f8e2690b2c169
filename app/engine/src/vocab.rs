//! The engine's vocabulary: what a scheduler was told ([`Schedule`], in one of the dialects),
//! what it should therefore do ([`Occurrence`]s, with the [`Dst`] rule that shaped them) and a
//! [`Forecast`] of them with its diagnostics, and a run's [`Step`]s. [`Window`](super::Window), [`Run`](super::Run)
//! and [`Diagnostic`] live in their own modules; `lib.rs` re-exports all of them.
use super::{AgentSchedule, Diagnostic, Severity, cron, job_table, mysql_event, pgagent, primentra, service_broker};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

/// Identifies a schedule within one instance (msdb `schedule_id`).
pub type ScheduleId = i64;

/// A schedule in one of the dialects Sundial reads. Issue-by-issue more dialects join.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// SQL Server Agent: one `msdb.dbo.sysschedules` row.
    Agent(AgentSchedule),
    /// pg_cron: one `cron.job.schedule` (evaluated in `cron.timezone`, the `tz` argument).
    Cron(cron::CronSchedule),
    /// MySQL / MariaDB: one `information_schema.EVENTS` row (in its TIME_ZONE; SYSTEM = `tz`).
    MysqlEvent(mysql_event::MysqlEvent),
    /// The MySQL stored-procedure scheduler (seed 002): one row of its `job` table. Serialized
    /// `kind = "job_table"`; the first tag, `seed002`, is still read.
    #[serde(alias = "seed002")]
    JobTable(job_table::JobTableRow),
    /// The Service Broker scheduler (seed 003): a `ScheduledJobs` row with its `JobSchedules`
    /// row (`kind = "service_broker"`, or `seed003`).
    #[serde(alias = "seed003")]
    ServiceBroker(service_broker::ServiceBrokerJob),
    /// Primentra (seed 004): one `SchedulerConfigurations` row (`kind = "primentra"`, or
    /// `seed004`).
    #[serde(alias = "seed004")]
    Primentra(primentra::SchedulerConfiguration),
    /// pgAgent (pgAdmin's scheduler): one `pgagent.pga_schedule` row with its `pga_exception`
    /// rows (`kind = "pgagent"`; evaluated in the agent's session zone, the `tz` argument).
    #[serde(rename = "pgagent")]
    PgAgent(pgagent::PgAgentSchedule),
}

impl Schedule {
    /// The schedule's definition without the run state some dialects keep beside it (pg_cron's
    /// last start, an event's `LAST_EXECUTED`): two schedules with equal definitions expect the
    /// same runs, so a change of definition is an edit. `None` for the dialects whose expected
    /// runs chain from their own last fire (the `job` table, Service Broker, Primentra): an
    /// edit of theirs applies from their next fire by itself.
    pub fn definition(&self) -> Option<Schedule> {
        match self {
            Schedule::Agent(_) | Schedule::PgAgent(_) => Some(self.clone()),
            Schedule::Cron(c) => Some(Schedule::Cron(cron::CronSchedule { last_start: None, ..c.clone() })),
            Schedule::MysqlEvent(e) => {
                Some(Schedule::MysqlEvent(mysql_event::MysqlEvent { last_executed: None, ..e.clone() }))
            }
            Schedule::JobTable(_) | Schedule::ServiceBroker(_) | Schedule::Primentra(_) => None,
        }
    }
}

/// How a daylight-saving transition shaped an occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dst {
    /// The nominal wall-clock time did not exist (spring forward); the occurrence fires at the
    /// first valid instant after the gap.
    Gap,
    /// The nominal wall-clock time existed twice (fall back); the occurrence fires once, at the
    /// earlier instant (pgAgent's, as PostgreSQL reads the time: at the later one).
    Fold,
}

/// One instant at which a schedule should start its job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    /// The instant it fires.
    pub at: DateTime<Utc>,
    /// The wall-clock time of `at` in the schedule's time zone (what the CLI prints).
    pub local: NaiveDateTime,
    /// The wall-clock time the schedule asked for; differs from `local` only in a DST gap.
    pub nominal: NaiveDateTime,
    /// Set when a DST transition shaped this occurrence.
    pub dst: Option<Dst>,
    /// The schedule that produced it.
    pub schedule: ScheduleId,
}

/// Occurrences in time order plus what was wrong with the input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    pub occurrences: Vec<Occurrence>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Forecast {
    /// True when some diagnostic is an error (the schedule cannot be forecast as written).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// One step of a run, as the scheduler recorded it: for SQL Server Agent one `sysjobhistory`
/// step row (`step_id > 0`) with what `sysjobsteps` says of the step; for schedulers that only
/// say a line about their steps, that line ([`Step::note`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The scheduler's number for the step (msdb `step_id`); 0 for a line without one.
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub name: String,
    /// How this attempt of the step ended (`InProgress`: the step executing now); `None` for a
    /// line that says no outcome.
    #[serde(default)]
    pub outcome: Option<super::RunOutcome>,
    /// The step's own message, in the scheduler's words (the error, for a failed step).
    #[serde(default)]
    pub message: String,
    /// msdb `sql_message_id` and `sql_severity` (0: none).
    #[serde(default)]
    pub sql_message_id: i64,
    #[serde(default)]
    pub sql_severity: i64,
    /// Retries attempted before this attempt (msdb `retries_attempted`).
    #[serde(default)]
    pub retries: i64,
    /// When the attempt started, where the scheduler says.
    #[serde(default)]
    pub start: Option<DateTime<Utc>>,
    /// Seconds (so far, for the step executing now), where the scheduler says.
    #[serde(default)]
    pub duration_secs: Option<i64>,
    /// The step's kind (msdb `sysjobsteps.subsystem`: TSQL, CmdExec, PowerShell, SSIS, …).
    #[serde(default)]
    pub subsystem: String,
}

/// What `sysjobsteps` says follows one step of a job: msdb's `on_success_action` and
/// `on_fail_action` (1 quit reporting success, 2 quit reporting failure, 3 go to the next
/// step, 4 go to the step `on_success_step_id` / `on_fail_step_id` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepFlow {
    pub step_id: i64,
    pub on_success_action: i64,
    pub on_success_step_id: i64,
    pub on_fail_action: i64,
    pub on_fail_step_id: i64,
}

impl StepFlow {
    /// Where the job goes after this step ended with `outcome`: `Some(step)` when the
    /// action continues (3: the next step by id among `steps`; 4: the step named, if the job
    /// has it), `None` when it quits (1, 2, any other value, a next step the job lacks).
    fn after(&self, succeeded: bool, steps: &[StepFlow]) -> Option<i64> {
        let (action, target) = if succeeded {
            (self.on_success_action, self.on_success_step_id)
        } else {
            (self.on_fail_action, self.on_fail_step_id)
        };
        match action {
            3 => steps.iter().map(|s| s.step_id).filter(|&id| id > self.step_id).min(),
            4 => steps.iter().any(|s| s.step_id == target).then_some(target),
            _ => None,
        }
    }
}

/// The step a running SQL Agent job executes now, from what `sysjobsteps` says follows each
/// step (`steps`, the job's), its `start_step_id` and its last step that finished
/// (`sysjobactivity.last_executed_step_id`) with how that attempt ended (its step row of the
/// run; `None` when no row says):
///
/// - nothing finished yet: the start step (`start_step_id`, else the job's first step);
/// - a retry (`RunOutcome::Retry`): the same step again;
/// - succeeded: its `on_success_action`; failed or canceled: its `on_fail_action` (3 the next
///   step by id, 4 the step named);
/// - an outcome no row says: the one action of the two that continues (a job still running
///   after a step whose failure would have ended it did not fail there); when both continue,
///   the success path, the Agent's usual one.
///
/// `None`: the actions end the job here (it is finishing), or the job has no such step.
pub fn step_now(
    steps: &[StepFlow],
    start_step_id: Option<i64>,
    last: Option<(i64, Option<super::RunOutcome>)>,
) -> Option<i64> {
    use super::RunOutcome as O;
    let Some((last, outcome)) = last.filter(|l| l.0 > 0) else {
        let first = steps.iter().map(|s| s.step_id).min();
        return match start_step_id.filter(|&s| s > 0) {
            Some(s) if steps.is_empty() || steps.iter().any(|f| f.step_id == s) => Some(s),
            _ => first,
        };
    };
    if outcome == Some(O::Retry) {
        return Some(last);
    }
    let flow = steps.iter().find(|s| s.step_id == last)?;
    match outcome {
        Some(O::Succeeded) => flow.after(true, steps),
        Some(O::Failed | O::Canceled) => flow.after(false, steps),
        _ => flow.after(true, steps).or_else(|| flow.after(false, steps)),
    }
}

/// The step executing now among a run's steps (the last one `InProgress` with a label), if
/// the scheduler says: what the log, triage's evidence and the job page name for a run going.
pub fn executing(steps: &[Step]) -> Option<&Step> {
    steps.iter().rev().find(|s| s.outcome == Some(super::RunOutcome::InProgress) && !s.label().is_empty())
}

/// How long a quoted step message may be, in characters, before it is cut with "…".
pub const QUOTE_MAX: usize = 300;

impl Step {
    /// A line a scheduler says about a run's steps, without structure.
    pub fn note(line: impl Into<String>) -> Self {
        Step { message: line.into(), ..Step::default() }
    }

    /// Whether this attempt ended badly (failed or canceled).
    pub fn is_failure(&self) -> bool {
        matches!(self.outcome, Some(super::RunOutcome::Failed | super::RunOutcome::Canceled))
    }

    /// "step 2 (Push to CRM)", or the bare name, or "" for a line without either.
    pub fn label(&self) -> String {
        match (self.id, self.name.trim()) {
            (0, "") => String::new(),
            (0, name) => name.to_owned(),
            (id, "") => format!("step {id}"),
            (id, name) => format!("step {id} ({name})"),
        }
    }

    /// The step's message as a quote: see [`quote`].
    pub fn quote(&self) -> String {
        quote(&self.message, QUOTE_MAX)
    }

    /// One line of text for the step: label, outcome and quoted message.
    pub fn line(&self) -> String {
        let label = self.label();
        let outcome = match self.outcome {
            Some(super::RunOutcome::Failed) => " failed",
            Some(super::RunOutcome::Succeeded) => " succeeded",
            Some(super::RunOutcome::Retry) => " failed, retrying",
            Some(super::RunOutcome::Canceled) => " canceled",
            Some(super::RunOutcome::InProgress) => " executing",
            Some(_) | None => "",
        };
        let quote = self.quote();
        match (label.is_empty(), quote.is_empty()) {
            (true, _) => quote,
            (false, true) => format!("{label}{outcome}"),
            (false, false) => format!("{label}{outcome}: {quote}"),
        }
    }
}

/// A scheduler's message, trimmed to what a reader needs: msdb's boilerplate ("Executed as
/// user: X." before, "The step failed." after) dropped, blank lines dropped, whitespace runs
/// folded to one space, and at most `max` characters, cut at a word where one is near, with
/// "…". Never panics on any text.
pub fn quote(message: &str, max: usize) -> String {
    let mut text: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(rest) = text.strip_prefix("Executed as user: ")
        && let Some(end) = rest.find(". ")
    {
        text = rest[end + 2..].to_owned();
    }
    for tail in [
        "The step failed.",
        "The step succeeded.",
        "The step was cancelled (stopped) as the result of a stop job request.",
    ] {
        if text.len() > tail.len()
            && let Some(head) = text.strip_suffix(tail)
        {
            text = head.trim_end().to_owned();
        }
    }
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    // Cut at the last space in the final sixth, if there is one, not in a word.
    let keep = match cut.rfind(' ') {
        Some(i) if cut[..i].chars().count() >= max - max / 6 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", keep.trim_end_matches([' ', ',', ';', ':']))
}
