//! One instance at a time: every job forecast, reconciled, summarised. Pure, like the rest.
//!
//! Sources map their rows into an [`InstanceInput`]; pages read an [`InstanceReport`].
//!
//! [`analyze`] in order:
//! 1. Each job is forecast over the window from its *enabled* schedules only. A schedule is
//!    enabled when [`JobSchedule::enabled`] says so and, for an Agent row, its own `enabled`
//!    column does too (a disagreement is a warning). A disabled job expects nothing
//!    ([`JobReport::enabled`] is false, with an info diagnostic), but its runs still show
//!    (as unscheduled or manual).
//! 2. The instance's due occurrences are found with a first reconciliation of each job that has
//!    no zombie periods yet: an occurrence counts as due when that reconciliation called it
//!    on time, late or missed, i.e. it was before `now - grace`, not before the job's history
//!    horizon, and the job was not busy with an earlier run. A job's occurrences at one instant
//!    count once (the Agent starts the job once).
//! 3. [`zombie_periods`] over those and the starts of every run of every job (disabled jobs'
//!    runs too: any start shows the Agent alive), with `settings.zombie_min_due`.
//!    A silence of at most [`RESTART_SILENCE_MAX_SECS`] that an Agent (re)start ends (the start falls
//!    inside it, or within a minute after it) is not a zombie: the Agent was stopped or
//!    restarting, and its misses say `AgentDown`. A longer silence stays a zombie even when a
//!    restart ends it: that is how zombies usually end (seed 000: a reboot fixed it).
//! 4. Each job is reconciled again with the full [`InstanceContext`]. In both passes a miss
//!    inside one of the job's [`JobInput::unobserved`] spans becomes unknown, and a miss
//!    inside one of the instance's [`InstanceInput::maintenance`] windows that covers the job
//!    becomes [`Outcome::Maintenance`] (so it is not due in step 2 either: planned downtime
//!    never makes a zombie).
//!
//! Jobs come out sorted by name (then id).
use super::maintenance::Maintenance;
use super::reconcile::{
    InstanceContext, MissCause, Outcome, Reconciler, Reconciliation, Settings, reconcile_reference, zombie_periods,
};
use super::{Diagnostic, Forecast, Occurrence, Run, Schedule, ScheduleId, Window, Zone};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One schedule attached to a job (msdb sysschedules through sysjobschedules).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSchedule {
    pub id: ScheduleId,
    pub name: String,
    /// The schedule's own enabled flag (also inside the Agent row; kept here for every dialect).
    pub enabled: bool,
    pub schedule: Schedule,
}

/// One job as a source sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobInput {
    /// The source's key (msdb job_id as text).
    pub id: String,
    pub name: String,
    pub category: String,
    /// The job's owner as its scheduler records it (msdb's `owner_sid` as a login name,
    /// pg_cron's `username`, an event's `DEFINER`, …); `None` when the scheduler keeps none.
    #[serde(default)]
    pub owner: Option<String>,
    pub enabled: bool,
    /// What the job runs, where its scheduler keeps it as one statement (pg_cron's `command`,
    /// a MySQL event's `EVENT_DEFINITION`); `None` for a job of steps (SQL Agent, pgAgent) or
    /// a scheduler that keeps none. What a DBA runs by hand to make up for a miss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub schedules: Vec<JobSchedule>,
    /// Runs (msdb step_id 0 outcome rows) in the window, sorted by start.
    pub runs: Vec<Run>,
    /// Start of the oldest history row the source still keeps for this job; `None` when the
    /// history is complete for the window. Sundial's kept history moves it back
    /// ([`crate::history::merge`]).
    pub history_horizon: Option<DateTime<Utc>>,
    /// Where the scheduler's own history starts when Sundial's store holds what came before
    /// it (runs before this come from Sundial's store); `None`: every run is the source's.
    #[serde(default)]
    pub source_horizon: Option<DateTime<Utc>>,
    /// Spans in which the source cannot see single runs, so a missing run there proves
    /// nothing: an occurrence inside one with no run is [`Outcome::Unknown`], not missed.
    /// (MySQL events: Sundial samples `LAST_EXECUTED` at each poll and sees only the last
    /// execution between two polls.) Empty for sources that keep every run.
    #[serde(default)]
    pub unobserved: Vec<Window>,
    /// Problems the source met while reading this job's rows (corrupt values, …).
    pub diagnostics: Vec<Diagnostic>,
    /// What the job's schedules were before each change Sundial saw, oldest first: runs before
    /// a change are expected as the schedules then said, not as they say now (a schedule
    /// edited today does not make last week's runs missed). Empty: the schedules never changed
    /// while Sundial watched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<ScheduleEra>,
    /// When the scheduler itself says the job's definition was last modified, where it keeps
    /// one (msdb `sysjobs.date_modified`, an event's `LAST_ALTERED`); `None` elsewhere (pg_cron,
    /// pgAgent). Shown beside each change Sundial sees ([`crate::changes`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<DateTime<Utc>>,
}

/// A job's schedules as they were until a change (Sundial's store keeps each version it saw).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleEra {
    /// When the next version was first seen: this one held before it.
    pub until: DateTime<Utc>,
    pub enabled: bool,
    pub schedules: Vec<JobSchedule>,
}

/// One instance (one SQL Server Agent) as a source sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceInput {
    pub name: String,
    pub tz: Zone,
    pub jobs: Vec<JobInput>,
    /// msdb syssessions.agent_start_date, sorted.
    pub agent_starts: Vec<DateTime<Utc>>,
    /// Planned maintenance windows over the instance (Sundial's, not the source's): a due run
    /// that did not happen inside one that covers its job is [`Outcome::Maintenance`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintenance: Vec<Maintenance>,
    /// The source says its scheduler is off now (a [`crate::Finding::SchedulerStopped`] note):
    /// what it misses since its last sign of life is the stop's ([`crate::gaps`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scheduler_stopped: bool,
}

impl InstanceInput {
    /// An instance as a source read it: its jobs and its scheduler's starts, no maintenance
    /// window (Sundial adds those) and no stop said.
    pub fn new(name: impl Into<String>, tz: Zone, jobs: Vec<JobInput>, agent_starts: Vec<DateTime<Utc>>) -> Self {
        InstanceInput { name: name.into(), tz, jobs, agent_starts, maintenance: Vec::new(), scheduler_stopped: false }
    }
}

/// One job, forecast and reconciled over a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    pub id: String,
    pub name: String,
    pub category: String,
    /// The job's owner, as [`JobInput::owner`].
    #[serde(default)]
    pub owner: Option<String>,
    pub enabled: bool,
    /// What the job runs, as [`JobInput::command`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The job's schedules as the source gave them (what the simulator edits).
    #[serde(default)]
    pub schedules: Vec<JobSchedule>,
    /// One description per schedule, in schedule order.
    pub descriptions: Vec<String>,
    /// Parallel to `descriptions`: why a schedule adds no occurrence to the window (the job
    /// or the schedule is disabled, it expired, it has not started yet, its next run is after
    /// the window, it fires on an event rather than a clock); `None` when it adds some.
    #[serde(default)]
    pub schedule_notes: Vec<Option<String>>,
    /// Expected occurrences in the window (merged over schedules).
    pub forecast: Forecast,
    pub runs: Vec<Run>,
    pub reconciliation: Reconciliation,
    pub history_horizon: Option<DateTime<Utc>>,
    /// Where the scheduler's own history starts, when runs before it come from Sundial's store.
    #[serde(default)]
    pub source_horizon: Option<DateTime<Utc>>,
    /// The last run that started before `now`.
    pub last_run: Option<Run>,
    /// The first occurrence strictly after `now`.
    pub next_expected: Option<Occurrence>,
    /// Occurrences classified as missed in the window.
    pub missed: usize,
    pub late: usize,
    pub skipped: usize,
    /// Occurrences not run inside a maintenance window (not missed).
    #[serde(default)]
    pub maintenance: usize,
    /// Source and schedule diagnostics together.
    pub diagnostics: Vec<Diagnostic>,
}

/// One instance over a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceReport {
    pub name: String,
    pub tz: Zone,
    pub window: Window,
    pub now: DateTime<Utc>,
    pub jobs: Vec<JobReport>,
    pub context: InstanceContext,
    /// The maintenance windows that overlap the window (the timelines shade them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintenance: Vec<Maintenance>,
    /// When its scheduler started nothing (zombie spans, stops), oldest first: what every
    /// view says of the instance's own state ([`crate::gaps`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<crate::gaps::SchedulerGap>,
}

/// The instance as it was at `at`: runs that started after it had not happened yet (they are
/// left out; one that started at `at` itself had), and a run that ended after it was then still
/// going ([`RunOutcome::InProgress`], its seconds so far, no end message yet). Agent starts
/// after `at` are left out too. With `now = at`,
/// [`analyze`] then answers "what was wrong at `at`?": occurrences after it are upcoming.
pub fn as_of(input: &InstanceInput, at: DateTime<Utc>) -> InstanceInput {
    let mut out = input.clone();
    for job in &mut out.jobs {
        job.runs.retain(|r| r.start <= at);
        for r in &mut job.runs {
            if r.end() > at {
                r.outcome = crate::RunOutcome::InProgress;
                r.duration_secs = (at - r.start).num_seconds().max(0);
                // Its end's words were not written yet.
                r.message.clear();
            }
        }
    }
    out.agent_starts.retain(|s| *s <= at);
    out
}

/// Forecast every job over `window`, find zombie spans across the instance, reconcile each job.
///
/// `runs` of each [`JobReport`] are the job's runs as given, so that
/// `reconciliation.runs` stays parallel to them. `next_expected` is the earliest of
/// [`super::next_after`] over the enabled schedules (ties: the lower schedule id).
/// `diagnostics` are the source's, then schedule flags (disabled job, enabled flags that
/// disagree), then the forecast's, then reconciliation's.
/// See the [module docs](self) for the order of work.
///
/// The second reconciliation (step 4) is not redone: zombie periods change only the cause of
/// the first one's misses (rule 5 of [`crate::reconcile`] comes before the rules that gave
/// them), so each miss inside a zombie period becomes [`MissCause::AgentZombie`] in place.
/// [`analyze_reference`] does the work as the steps say; the two agree (property tests).
pub fn analyze(input: &InstanceInput, window: Window, now: DateTime<Utc>, settings: &Settings) -> InstanceReport {
    let tz = input.tz;
    let mut ctx = InstanceContext {
        zombie_periods: Vec::new(),
        agent_starts: sorted_agent_starts(input),
        all_run_starts: sorted_run_starts(input),
        catches_up: catches_up(input),
    };
    // 1. Forecast.
    let prepared: Vec<Prepared> = input.jobs.iter().map(|job| Prepared::new(job, tz, window)).collect();
    // 2. Due occurrences, from a first reconciliation without zombie periods.
    let first: Vec<Reconciliation> = {
        let reconciler = Reconciler::new(&ctx, window, now, settings);
        prepared
            .iter()
            .map(|p| {
                let mut r = reconciler.reconcile(&p.forecast.occurrences, &p.job.runs, p.job.history_horizon);
                unobserved_unknown(&mut r, &p.forecast.occurrences, &p.job.unobserved);
                in_maintenance(&mut r, &p.forecast.occurrences, p.job, &input.maintenance);
                r
            })
            .collect()
    };
    let due = due_instants(prepared.iter().map(|p| p.forecast.occurrences.as_slice()).zip(&first));
    // 3. Zombie periods.
    ctx.zombie_periods = instance_zombie_periods(&due, &ctx, window, now, settings, input.scheduler_stopped);
    // 4. The final reconciliation: the first, its misses in zombie periods said so; summarise.
    let mut jobs: Vec<JobReport> = prepared
        .into_iter()
        .zip(first)
        .map(|(p, mut r)| {
            zombie_misses(&mut r, &p.forecast.occurrences, &ctx.zombie_periods);
            p.report(r, tz, now)
        })
        .collect();
    jobs.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    let gaps = find_gaps(&mut jobs, &ctx.zombie_periods, &ctx.agent_starts, window, now, input.scheduler_stopped);

    InstanceReport {
        name: input.name.clone(),
        tz,
        window,
        now,
        jobs,
        context: ctx,
        maintenance: overlapping(input, window),
        gaps,
    }
}

/// [`analyze`] done as its steps say, with [`reconcile_reference`]: each job reconciled twice.
/// Kept for the property tests that check [`analyze`] against it; not for use elsewhere.
#[doc(hidden)]
pub fn analyze_reference(
    input: &InstanceInput,
    window: Window,
    now: DateTime<Utc>,
    settings: &Settings,
) -> InstanceReport {
    let tz = input.tz;
    let mut ctx = InstanceContext {
        zombie_periods: Vec::new(),
        agent_starts: sorted_agent_starts(input),
        all_run_starts: sorted_run_starts(input),
        catches_up: catches_up(input),
    };
    let prepared: Vec<Prepared> = input.jobs.iter().map(|job| Prepared::new(job, tz, window)).collect();
    let first: Vec<Reconciliation> =
        prepared.iter().map(|p| p.reconcile_reference(window, now, &ctx, settings, &input.maintenance)).collect();
    let due = due_instants(prepared.iter().map(|p| p.forecast.occurrences.as_slice()).zip(&first));
    ctx.zombie_periods = instance_zombie_periods(&due, &ctx, window, now, settings, input.scheduler_stopped);
    let mut jobs: Vec<JobReport> = prepared
        .into_iter()
        .map(|p| {
            let r = p.reconcile_reference(window, now, &ctx, settings, &input.maintenance);
            p.report(r, tz, now)
        })
        .collect();
    jobs.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    let gaps = find_gaps(&mut jobs, &ctx.zombie_periods, &ctx.agent_starts, window, now, input.scheduler_stopped);
    InstanceReport {
        name: input.name.clone(),
        tz,
        window,
        now,
        jobs,
        context: ctx,
        maintenance: overlapping(input, window),
        gaps,
    }
}

/// [`crate::gaps::find`] over analysed jobs: when the instance's scheduler started nothing
/// (zombie spans, stops), a stop still going taking its misses.
pub fn find_gaps(
    jobs: &mut [JobReport],
    zombie_periods: &[Window],
    agent_starts: &[DateTime<Utc>],
    window: Window,
    now: DateTime<Utc>,
    stopped_now: bool,
) -> Vec<crate::gaps::SchedulerGap> {
    let mut sides: Vec<crate::gaps::JobSide<'_>> = jobs
        .iter_mut()
        .map(|j| crate::gaps::JobSide {
            occurrences: &j.forecast.occurrences,
            outcomes: &mut j.reconciliation.outcomes,
            runs: &j.runs,
        })
        .collect();
    crate::gaps::find(&mut sides, zombie_periods, agent_starts, window, now, stopped_now)
}

/// Misses the first reconciliation found (no zombie periods then) that lie in one of `periods`:
/// [`MissCause::AgentZombie`] with the first such period, as rule 5 says.
fn zombie_misses(r: &mut Reconciliation, occurrences: &[Occurrence], periods: &[Window]) {
    if periods.is_empty() {
        return;
    }
    for (o, occ) in r.outcomes.iter_mut().zip(occurrences) {
        if let Outcome::Missed { cause } = o
            && let Some(period) = periods.iter().find(|p| p.contains(occ.at))
        {
            *cause = MissCause::AgentZombie { period: *period };
        }
    }
}

/// The instance's scheduler catches up on a missed time (its jobs are pgAgent's).
fn catches_up(input: &InstanceInput) -> bool {
    input.jobs.iter().flat_map(|j| &j.schedules).any(|s| super::dialect::catches_up(&s.schedule))
}

/// The instance's Agent starts, sorted.
fn sorted_agent_starts(input: &InstanceInput) -> Vec<DateTime<Utc>> {
    let mut agent_starts = input.agent_starts.clone();
    agent_starts.sort_unstable();
    agent_starts
}

/// The start of every run of every job (disabled jobs' too), sorted.
fn sorted_run_starts(input: &InstanceInput) -> Vec<DateTime<Utc>> {
    let mut all_run_starts: Vec<DateTime<Utc>> =
        input.jobs.iter().flat_map(|j| j.runs.iter().map(|r| r.start)).collect();
    // Each job's runs come sorted: a stable sort merges those runs (equal instants are equal).
    all_run_starts.sort();
    all_run_starts
}

/// Step 1 for one job: the schedules that count, their forecast, and the flags' diagnostics.
struct Prepared<'a> {
    job: &'a JobInput,
    enabled_schedules: Vec<(ScheduleId, Schedule)>,
    forecast: Forecast,
    /// Schedule flag diagnostics (disabled job, enabled flags that disagree).
    extra: Vec<Diagnostic>,
}

impl<'a> Prepared<'a> {
    /// Forecast `job` over `window` from its enabled schedules: each stretch of the window
    /// from the schedules that held then ([`JobInput::earlier`]), the rest from today's.
    fn new(job: &'a JobInput, tz: Zone, window: Window) -> Self {
        let (enabled_schedules, extra) = enabled_schedules(job.enabled, &job.schedules);
        if job.earlier.is_empty() {
            let forecast = super::forecast_job(&enabled_schedules, tz, window);
            return Prepared { job, enabled_schedules, forecast, extra };
        }
        let mut forecast = Forecast::default();
        let mut from = window.start;
        let eras = job.earlier.iter().map(|e| (Some(e.until), e.enabled, e.schedules.as_slice()));
        for (until, enabled, schedules) in eras.chain([(None, job.enabled, job.schedules.as_slice())]) {
            let end = until.map_or(window.end, |u| u.min(window.end));
            if end > from {
                let stretch = Window::new(from, end);
                let f = match until {
                    None => super::forecast_job(&enabled_schedules, tz, stretch),
                    Some(_) => super::forecast_job(&enabled_schedules_of(enabled, schedules), tz, stretch),
                };
                forecast.occurrences.extend(f.occurrences);
                for d in f.diagnostics {
                    if !forecast.diagnostics.contains(&d) {
                        forecast.diagnostics.push(d);
                    }
                }
            }
            from = from.max(end);
        }
        Prepared { job, enabled_schedules, forecast, extra }
    }

    /// The job's forecast reconciled with its runs under `ctx` by [`reconcile_reference`],
    /// misses in unobserved spans made unknown, misses in its maintenance windows maintenance.
    fn reconcile_reference(
        &self,
        window: Window,
        now: DateTime<Utc>,
        ctx: &InstanceContext,
        settings: &Settings,
        maintenance: &[Maintenance],
    ) -> Reconciliation {
        let occurrences = &self.forecast.occurrences;
        let job = self.job;
        let mut r = reconcile_reference(occurrences, &job.runs, window, now, job.history_horizon, ctx, settings);
        unobserved_unknown(&mut r, occurrences, &job.unobserved);
        in_maintenance(&mut r, occurrences, job, maintenance);
        r
    }

    /// Step 4 for one job: the summary of its final reconciliation.
    fn report(self, reconciliation: Reconciliation, tz: Zone, now: DateTime<Utc>) -> JobReport {
        let job = self.job;
        let counts = OutcomeCounts::of(&reconciliation);
        let last_run = job.runs.iter().filter(|r| r.start < now).max_by_key(|r| r.start).cloned();
        let next_expected = next_expected(&self.enabled_schedules, tz, now);
        let mut diagnostics = job.diagnostics.clone();
        diagnostics.extend(self.extra);
        // Where the source's cross-check of the scheduler's own next run spoke, a dialect's
        // warning on the same column says it again in other words: the reader is told once.
        let cross_checked: Vec<&str> = job
            .diagnostics
            .iter()
            .filter(|d| d.tells(crate::Finding::NextRunDisagrees))
            .filter_map(|d| d.field.as_deref())
            .collect();
        let said = |d: &&Diagnostic| d.field.as_deref().is_some_and(|f| cross_checked.contains(&f));
        diagnostics.extend(self.forecast.diagnostics.iter().filter(|d| !said(d)).cloned());
        diagnostics.extend(reconciliation.diagnostics.iter().cloned());
        JobReport {
            id: job.id.clone(),
            name: job.name.clone(),
            category: job.category.clone(),
            owner: job.owner.clone(),
            enabled: job.enabled,
            command: job.command.clone(),
            schedules: job.schedules.clone(),
            descriptions: job.schedules.iter().map(|s| super::describe(&s.schedule)).collect(),
            schedule_notes: job
                .schedules
                .iter()
                .map(|s| schedule_note(job.enabled, s, &self.enabled_schedules, &self.forecast, tz, now))
                .collect(),
            forecast: self.forecast,
            runs: job.runs.clone(),
            reconciliation,
            history_horizon: job.history_horizon,
            source_horizon: job.source_horizon,
            last_run,
            next_expected,
            missed: counts.missed,
            late: counts.late,
            skipped: counts.skipped,
            maintenance: counts.maintenance,
            diagnostics,
        }
    }
}

/// The schedules of `job` that count (the job and both enabled flags say so), with a
/// diagnostic for a disabled job and for each schedule whose flags disagree.
fn enabled_schedules(enabled: bool, schedules: &[JobSchedule]) -> (Vec<(ScheduleId, Schedule)>, Vec<Diagnostic>) {
    let mut extra = Vec::new();
    let mut enabled_schedules = Vec::new();
    if !enabled {
        extra.push(Diagnostic::info("the job is disabled: no runs are expected"));
        return (enabled_schedules, extra);
    }
    for js in schedules {
        let row_enabled = match &js.schedule {
            Schedule::Agent(a) => a.enabled != 0,
            // Other dialects carry no separate per-row flag here.
            _ => js.enabled,
        };
        if row_enabled != js.enabled {
            extra.push(Diagnostic::warning(
                "enabled",
                format!("{} / {}", js.enabled, row_enabled),
                format!(
                    "schedule {} ({}) is enabled in one place and disabled in another; taken as disabled",
                    js.id, js.name
                ),
            ));
        }
        if js.enabled && row_enabled {
            enabled_schedules.push((js.id, js.schedule.clone()));
        }
    }
    (enabled_schedules, extra)
}

/// The schedules of an earlier era that counted then.
fn enabled_schedules_of(enabled: bool, schedules: &[JobSchedule]) -> Vec<(ScheduleId, Schedule)> {
    enabled_schedules(enabled, schedules).0
}

/// Step 2: the instants at which the instance had something due (on time, late or missed in
/// each job's first reconciliation), sorted; one job's occurrences at one instant count once.
fn due_instants<'a>(jobs: impl Iterator<Item = (&'a [Occurrence], &'a Reconciliation)>) -> Vec<DateTime<Utc>> {
    let mut due: Vec<DateTime<Utc>> = Vec::new();
    for (occurrences, first) in jobs {
        let mut instants: Vec<DateTime<Utc>> = occurrences
            .iter()
            .zip(&first.outcomes)
            .filter(|(_, o)| matches!(o, Outcome::OnTime { .. } | Outcome::Late { .. } | Outcome::Missed { .. }))
            .map(|(occ, _)| occ.at)
            .collect();
        instants.sort_unstable();
        instants.dedup();
        due.extend(instants);
    }
    // Each job's instants are sorted: a stable sort merges those runs.
    due.sort();
    due
}

/// Step 3: [`zombie_periods`] over `due` and every run start, less the short silences an
/// Agent restart ends (the Agent being down, not a zombie).
fn instance_zombie_periods(
    due: &[DateTime<Utc>],
    ctx: &InstanceContext,
    window: Window,
    now: DateTime<Utc>,
    settings: &Settings,
    stopped_now: bool,
) -> Vec<Window> {
    let mut periods = zombie_periods(due, &ctx.all_run_starts, window, now, settings.zombie_min_due);
    periods.retain(|p| !ended_by_restart(p, &ctx.agent_starts));
    // A scheduler that says it is off is stopped, not a zombie: its silence still going is the
    // stop's ([`crate::gaps`]).
    let end = now.min(window.end);
    if stopped_now {
        periods.retain(|p| p.end < end);
    }
    periods
}

/// How many of a reconciliation's outcomes are missed, late and skipped.
struct OutcomeCounts {
    missed: usize,
    late: usize,
    skipped: usize,
    maintenance: usize,
}

impl OutcomeCounts {
    fn of(reconciliation: &Reconciliation) -> Self {
        let mut counts = OutcomeCounts { missed: 0, late: 0, skipped: 0, maintenance: 0 };
        for o in &reconciliation.outcomes {
            match o {
                Outcome::Missed { .. } => counts.missed += 1,
                Outcome::Late { .. } => counts.late += 1,
                Outcome::SkippedRunning { .. } => counts.skipped += 1,
                Outcome::Maintenance { .. } => counts.maintenance += 1,
                _ => {}
            }
        }
        counts
    }
}

/// The first occurrence strictly after `now` over `enabled` (ties: the lower schedule id).
fn next_expected(enabled: &[(ScheduleId, Schedule)], tz: Zone, now: DateTime<Utc>) -> Option<Occurrence> {
    enabled
        .iter()
        .filter_map(|(id, s)| super::next_after(*id, s, tz, now, 1).occurrences.into_iter().find(|o| o.at > now))
        .min_by(|a, b| a.at.cmp(&b.at).then(a.schedule.cmp(&b.schedule)))
}

/// Why `js` adds no occurrence to the window; `None` when it adds at least one.
fn schedule_note(
    job_enabled: bool,
    js: &JobSchedule,
    enabled: &[(ScheduleId, Schedule)],
    forecast: &Forecast,
    tz: Zone,
    now: DateTime<Utc>,
) -> Option<String> {
    if forecast.occurrences.iter().any(|o| o.schedule == js.id) {
        return None;
    }
    if !job_enabled {
        return Some("adds no run: the job is disabled".into());
    }
    if !enabled.iter().any(|(id, _)| *id == js.id) {
        return Some("adds no run: the schedule is disabled".into());
    }
    if let Schedule::Agent(a) = &js.schedule {
        let date = |v: i64| super::agent::date_from_int(v).map(|d| d.format("%Y-%m-%d").to_string());
        let today = super::tz::to_local(now, tz).date();
        match a.freq_type {
            64 => return Some("adds no run on the clock: it starts when SQL Agent starts".into()),
            128 => return Some("adds no run on the clock: it starts when the CPU is idle".into()),
            _ => {}
        }
        if let Some(end) = super::agent::date_from_int(a.active_end_date).filter(|d| *d < today) {
            return Some(format!(
                "adds no run: it expired on {}",
                date(a.active_end_date).unwrap_or_else(|| end.to_string())
            ));
        }
        if let Some(start) = super::agent::date_from_int(a.active_start_date).filter(|d| *d > today) {
            return Some(format!(
                "adds no run yet: it starts on {}",
                date(a.active_start_date).unwrap_or_else(|| start.to_string())
            ));
        }
    }
    let next = super::next_after(js.id, &js.schedule, tz, now, 1).occurrences.into_iter().find(|o| o.at > now);
    Some(match next {
        Some(o) => format!("adds no run in this window: next due {}", o.local.format("%Y-%m-%d %H:%M")),
        None => "adds no run: it fires no more (ended, expired or invalid)".into(),
    })
}

/// The longest silence ended by an Agent restart that still reads as "the Agent was down"
/// rather than "the Agent was a zombie": one hour.
pub const RESTART_SILENCE_MAX_SECS: i64 = 3600;

fn ended_by_restart(p: &Window, restarts: &[DateTime<Utc>]) -> bool {
    let slack = chrono::Duration::minutes(1);
    p.duration() <= chrono::Duration::seconds(RESTART_SILENCE_MAX_SECS)
        && restarts.iter().any(|&s| p.start <= s && s <= p.end + slack)
}

/// The instance's maintenance windows that overlap `window`.
fn overlapping(input: &InstanceInput, window: Window) -> Vec<Maintenance> {
    input.maintenance.iter().filter(|m| m.window.start < window.end && m.window.end > window.start).cloned().collect()
}

/// A miss inside a maintenance window that covers the job is [`Outcome::Maintenance`] (the
/// first such window): planned, not missed. It is not due either, so it never makes a zombie.
fn in_maintenance(r: &mut Reconciliation, occurrences: &[Occurrence], job: &JobInput, windows: &[Maintenance]) {
    let mine: Vec<Window> = windows.iter().filter(|m| m.covers(&job.id, &job.name)).map(|m| m.window).collect();
    if mine.is_empty() {
        return;
    }
    for (o, occ) in r.outcomes.iter_mut().zip(occurrences) {
        if matches!(o, Outcome::Missed { .. })
            && let Some(w) = mine.iter().find(|w| w.contains(occ.at))
        {
            *o = Outcome::Maintenance { window: *w };
        }
    }
}

/// A miss inside a span the source could not observe is unknown: absence there proves nothing.
fn unobserved_unknown(r: &mut Reconciliation, occurrences: &[Occurrence], unobserved: &[Window]) {
    if unobserved.is_empty() {
        return;
    }
    for (o, occ) in r.outcomes.iter_mut().zip(occurrences) {
        if matches!(o, Outcome::Missed { .. }) && unobserved.iter().any(|w| w.contains(occ.at)) {
            *o = Outcome::Unknown;
        }
    }
}
