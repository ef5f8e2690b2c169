//! Reconciliation: what should have happened against what did.
//!
//! [`reconcile`] classifies each expected [`Occurrence`] of one job ([`Outcome`]) and each
//! observed [`Run`] ([`RunClass`]); [`zombie_periods`] finds the spans in which an instance's
//! Agent was alive but started nothing. Every rule below is pinned by a data case in
//! `app/engine/tests/cases/reconcile/`.
//!
//! # Matching a run to an occurrence
//!
//! - **Slots.** Occurrences at the same instant form one *instant*. The slot of an instant runs
//!   from it up to the next instant: `[at, next)`. A run belongs to the slot it starts in, so a
//!   run starting at or after the next instant belongs to that one (the earlier occurrence is
//!   then missed or skipped, never "very late"). The slot of the last instant ends at
//!   `window.end`; a run starting later belongs to an occurrence the window does not hold and is
//!   [`RunClass::Unscheduled`]. A run before the first instant is unscheduled too.
//! - **Early starts.** A run starting up to `EARLY_SECS` (5 s) *before* an instant belongs to
//!   it (clock skew between the Agent and msdb's rounding), provided it is nearer to that
//!   instant than to the previous one. The tolerance is a fixed 5 s, not the grace: a grace of a
//!   minute would blur the slots of an every-minute job.
//! - **First come.** A slot takes the earliest eligible run starting in it; later runs in an
//!   already-claimed slot are unscheduled. Runs triggered by a schedule
//!   ([`Trigger::Schedule`]) claim slots before runs triggered by something else
//!   ([`Trigger::Other`]: an alert, the Agent starting), so an alert-started run never hides
//!   the schedule's own run in the same slot.
//! - **Catching up** (a scheduler that runs a missed time once, late, when it can:
//!   [`InstanceContext::catches_up`], pgAgent). Such a scheduler computes the job's next time
//!   when a run ends, and starts the job at that time or, if it was down or busy, as soon as it
//!   can. So a schedule-triggered run belongs to the earliest time due at or after the end of
//!   the job's previous run (any run of the job, the one ending last) that no run has claimed,
//!   if that time comes before the run's own slot: it is that time's run, late. The times
//!   between are not run (missed, with their cause). A run with no earlier run in the history
//!   given belongs to its own slot, as do runs triggered by something else.
//! - **Never matched.** [`Trigger::Manual`] runs are always [`RunClass::Manual`]; runs whose
//!   outcome is [`RunOutcome::Retry`] and runs no slot claims are [`RunClass::Unscheduled`].
//! - **Schedule ids.** `Trigger::Schedule(Some(id))` is a preference, not a requirement: it only
//!   picks which occurrence of a same-instant group the run is recorded against (schedules get
//!   edited and renumbered; the instant is the evidence).
//! - **Same instant, several occurrences (merge).** When two schedules of a job fire at the same
//!   instant the Agent starts the job once. All occurrences at that instant share one outcome:
//!   the run's [`Outcome::OnTime`]/[`Outcome::Late`] (same `run` index) or the same unmatched
//!   outcome. The run's [`RunClass::Expected`] names the occurrence of the schedule the run
//!   names, else the first given. Nothing is reported missed or skipped for the duplicate: a DBA
//!   expects one run there. (Two occurrences of the *same* schedule at one instant are merged
//!   the same way, with a warning.)
//! - **Grace.** `delay = run.start - at` in whole seconds; `delay <= grace_secs` is on time
//!   (early starts included), more is [`Outcome::Late`]. A negative grace is taken as 0.
//! - **Matched wins.** A matched occurrence is on time or late even when it lies after `now`
//!   (the run proves it started: clock skew between Sundial and the server).
//!
//! # An occurrence without a run, first rule that applies
//!
//! 1. `at > now`: [`Outcome::Upcoming`].
//! 2. A run of this job (any trigger, any outcome) was in progress, `start < at < end`:
//!    [`Outcome::SkippedRunning`] (the Agent skips, it does not queue). A run that is
//!    [`RunOutcome::InProgress`] is taken to last at least until `now`. Both ends are excluded:
//!    a run ending exactly at `at` freed the job in time.
//! 3. `at < history_horizon`: [`Outcome::Unknown`] (msdb purged rows; absence proves nothing).
//! 4. `now - at <= grace_secs`: [`Outcome::Upcoming`] (due, not missed yet).
//! 5. `at` in one of `ctx.zombie_periods` (half-open, [`Window::contains`]):
//!    [`MissCause::AgentZombie`]. A zombie period wins over a restart that ends it: a dead
//!    Agent and a zombie one look alike in msdb, and a zombie cured by a restart is the classic
//!    story; one cause for the whole span reads better than two.
//! 6. The first Agent start `s >= at` is at most `AGENT_DOWN_MAX_SECS` (24 h) after `at`, and
//!    no job on the instance (`ctx.all_run_starts`, plus this job's own runs) started in
//!    `[at, s)`: [`MissCause::AgentDown`] `{ restarted_at: s }`.
//! 7. Otherwise [`MissCause::NoRun`].
//!
//! # Odd input
//!
//! Nothing panics. Unsorted occurrences or runs are sorted (the result stays parallel to the
//! input); negative durations count as 0; absurd durations saturate; occurrences outside the
//! window, runs starting after `now`, overlapping runs of one job (the Agent never runs a job
//! twice at once) and duplicate occurrences are classified as usual and reported once each as a
//! [`Diagnostic`] with a count and the first example.
use super::{Diagnostic, Occurrence, ScheduleId, Window};
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How a run ended, in the schedulers' own words: msdb `sysjobhistory.run_status` 0..4, and
/// what the home-grown schedulers can say besides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunOutcome {
    Failed,
    Succeeded,
    Retry,
    Canceled,
    InProgress,
    /// Started and never finished: no end was ever written, and the run is past the point
    /// where it could still be going (the worker role's 60 minutes, a Service Broker step that
    /// never ended, a `job` table cycle a later cycle overtook).
    Crashed,
    /// A run the scheduler itself gave up on and released (Primentra's `zombie`: a batch still
    /// marked running past its limit, reset so the next one may start).
    Abandoned,
    /// It started; how it ended, the history cannot tell.
    Unknown,
}

impl RunOutcome {
    /// msdb `run_status`; `None` for a value msdb never writes.
    pub fn from_run_status(status: i64) -> Option<Self> {
        Some(match status {
            0 => RunOutcome::Failed,
            1 => RunOutcome::Succeeded,
            2 => RunOutcome::Retry,
            3 => RunOutcome::Canceled,
            4 => RunOutcome::InProgress,
            _ => return None,
        })
    }

    /// A run that ended badly: failed, crashed or abandoned (what failure counts count).
    pub fn is_failure(self) -> bool {
        matches!(self, RunOutcome::Failed | RunOutcome::Crashed | RunOutcome::Abandoned)
    }
}

/// Who started a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trigger {
    /// Started by a schedule (which one, when the source says).
    Schedule(Option<ScheduleId>),
    /// Started by hand (a user, `sp_start_job`).
    Manual,
    /// Started by something else (an alert, a retry, the Agent starting, …); the text says what.
    Other(String),
}

/// One observed execution of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub start: DateTime<Utc>,
    /// Seconds; a run still going has the seconds so far.
    pub duration_secs: i64,
    pub outcome: RunOutcome,
    pub trigger: Trigger,
    /// The source's own message (sysjobhistory.message), possibly empty.
    pub message: String,
    /// The run's steps as the scheduler recorded them, in order (msdb: its step rows, retries
    /// included; for a run still going, the steps done and the one executing), or the lines it
    /// says of them; empty where the source keeps no steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<super::Step>,
}

impl Run {
    /// The step that failed the run: the last failed or canceled step attempt (a retried
    /// attempt that later succeeded does not count).
    pub fn failed_step(&self) -> Option<&super::Step> {
        self.steps.iter().rev().find(|s| s.is_failure() && s.id != 0)
    }

    /// What a reader is told of the run: for a run that ended badly with a failed step, that
    /// step and its own message quoted ("step 2 (Push to CRM): Invoke-RestMethod : 503 …"),
    /// not the outcome line; otherwise the source's message, trimmed.
    pub fn why(&self) -> String {
        if self.outcome != RunOutcome::Succeeded
            && let Some(step) = self.failed_step()
        {
            let quote = step.quote();
            return if quote.is_empty() { step.label() } else { format!("{}: {quote}", step.label()) };
        }
        self.message.trim().to_owned()
    }

    /// When it ended (or now, for a run in progress); saturates instead of overflowing on an
    /// absurd duration.
    pub fn end(&self) -> DateTime<Utc> {
        chrono::Duration::try_seconds(self.duration_secs.max(0))
            .and_then(|d| self.start.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

/// Why an expected occurrence has no run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MissCause {
    /// Nothing started it, and nothing on the instance explains why.
    NoRun,
    /// The Agent was alive but started no job at all on the instance during `period`.
    AgentZombie { period: Window },
    /// The Agent was (probably) down: it started again at `restarted_at`, and no job ran in
    /// between.
    AgentDown { restarted_at: DateTime<Utc> },
    /// The scheduler says it is off now (MySQL's `event_scheduler`, pgAgent's agents gone),
    /// and nothing ran since: down `since` then at the latest ([`crate::gaps`]).
    SchedulerStopped { since: DateTime<Utc> },
}

/// What reconciliation concluded about one expected occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Started within the grace of its time; `run` indexes the runs given.
    OnTime { run: usize },
    /// Started, but later than the grace.
    Late { run: usize, delay_secs: i64 },
    /// No run, and history would show one if it had happened.
    Missed { cause: MissCause },
    /// The job was still running its previous run (`run`): the Agent skips, it does not queue.
    SkippedRunning { run: usize },
    /// Older than the oldest history row kept for the job: absence proves nothing.
    Unknown,
    /// Not yet due (in the future, or within the grace of `now`).
    Upcoming,
    /// No run, inside a planned maintenance window (`window`) that covers the job: not
    /// missed. Given by [`crate::fleet::analyze`] to what would be missed otherwise.
    Maintenance { window: Window },
}

/// What reconciliation concluded about one observed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunClass {
    /// It is the run of the occurrence at this index.
    Expected { occurrence: usize },
    /// Started by hand.
    Manual,
    /// A retry or other run no schedule asked for.
    Unscheduled,
}

/// Knobs, all with defaults a DBA would pick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// A run starting more than this many seconds after its occurrence is late. Default 60.
    pub grace_secs: i64,
    /// An instance where no job started while at least this many runs were due is a zombie
    /// Agent. Default 10.
    pub zombie_min_due: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { grace_secs: 60, zombie_min_due: 10 }
    }
}

/// Instance-wide facts reconciliation of one job needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceContext {
    /// Spans in which the Agent was alive and started nothing (see [`zombie_periods`]).
    pub zombie_periods: Vec<Window>,
    /// When the Agent (re)started (msdb `syssessions.agent_start_date`).
    pub agent_starts: Vec<DateTime<Utc>>,
    /// Start instants of every run of every job on the instance, sorted.
    pub all_run_starts: Vec<DateTime<Utc>>,
    /// The instance's scheduler runs a missed time once, late (pgAgent; see "Catching up" in
    /// the [module docs](self)).
    #[serde(default)]
    pub catches_up: bool,
}

/// One job's occurrences and runs, classified.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconciliation {
    /// Parallel to the occurrences given.
    pub outcomes: Vec<Outcome>,
    /// Parallel to the runs given.
    pub runs: Vec<RunClass>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How long before an occurrence a run may start and still be its run (clock skew).
const EARLY_SECS: i64 = 5;
/// How long after an occurrence an Agent restart may come and still explain a missed run.
const AGENT_DOWN_MAX_SECS: i64 = 24 * 3600;

/// Classify every occurrence (sorted by `at`) and every run (sorted by `start`) of one job.
/// `history_horizon` is the start of the oldest history row kept for the job (`None`: the
/// history is complete for the window).
///
/// The rules, and what happens to unsorted or odd input, are in the [module docs](self).
/// Reconciling many jobs of one instance, [`Reconciler`] prepares `ctx` once instead.
pub fn reconcile(
    occurrences: &[Occurrence],
    runs: &[Run],
    window: Window,
    now: DateTime<Utc>,
    history_horizon: Option<DateTime<Utc>>,
    ctx: &InstanceContext,
    settings: &Settings,
) -> Reconciliation {
    Reconciler::new(ctx, window, now, settings).reconcile(occurrences, runs, history_horizon)
}

#[doc(hidden)]
pub use reference::{reconcile_reference, zombie_periods_reference};
mod reference;

/// [`reconcile`] for many jobs of one instance: the instance's context (its Agent starts and
/// every run start, sorted) is prepared once, not once per job. Gives exactly what
/// [`reconcile`] gives.
pub struct Reconciler<'a> {
    ctx: &'a InstanceContext,
    agent_starts: Cow<'a, [DateTime<Utc>]>,
    all_starts: Cow<'a, [DateTime<Utc>]>,
    window: Window,
    now: DateTime<Utc>,
    settings: &'a Settings,
}

/// No run claims the slot (in [`Reconciler::reconcile`]'s claims).
const UNCLAIMED: usize = usize::MAX;

impl<'a> Reconciler<'a> {
    pub fn new(ctx: &'a InstanceContext, window: Window, now: DateTime<Utc>, settings: &'a Settings) -> Self {
        Reconciler {
            ctx,
            agent_starts: sorted(&ctx.agent_starts),
            all_starts: sorted(&ctx.all_run_starts),
            window,
            now,
            settings,
        }
    }

    /// One job: what [`reconcile`] gives for it under this instance's context.
    pub fn reconcile(
        &self,
        occurrences: &[Occurrence],
        runs: &[Run],
        history_horizon: Option<DateTime<Utc>>,
    ) -> Reconciliation {
        let (window, now) = (self.window, self.now);
        let mut diagnostics = Vec::new();
        let grace = if self.settings.grace_secs < 0 {
            diagnostics.push(Diagnostic::warning(
                "grace_secs",
                self.settings.grace_secs,
                "a negative grace makes no sense; taken as 0",
            ));
            0
        } else {
            self.settings.grace_secs
        };
        if window.is_empty() {
            diagnostics.push(Diagnostic::warning(
                "window",
                format!("{} .. {}", ts(window.start), ts(window.end)),
                "the window is empty or inverted",
            ));
        }

        let groups = Groups::new(occurrences, window, &mut diagnostics);
        let view = RunView::new(runs, now, &mut diagnostics);

        // Claim slots: schedule-triggered runs first, then runs triggered by something else.
        // One walk of the runs in start order against the instants in time order (a merge);
        // the other-triggered runs wait until every schedule-triggered run has claimed.
        let mut claim: Vec<usize> = vec![UNCLAIMED; groups.len()];
        let mut classes: Vec<RunClass> = runs
            .iter()
            .map(|r| if r.trigger == Trigger::Manual { RunClass::Manual } else { RunClass::Unscheduled })
            .collect();
        let mut others: Vec<(usize, usize)> = Vec::new();
        let mut slots = SlotWalker { at: &groups.at, k: 0, window };
        // The latest group a schedule-triggered run claimed: every claim so far is at or before it.
        let mut last_claim: Option<usize> = None;
        for k in 0..runs.len() {
            let r = view.index(k);
            let run = &runs[r];
            if run.trigger == Trigger::Manual || run.outcome == RunOutcome::Retry {
                continue;
            }
            let Some(mut g) = slots.slot_of(run.start) else { continue };
            if let Trigger::Other(_) = run.trigger {
                others.push((g, r));
                continue;
            }
            if self.ctx.catches_up
                && let Some(previous) = k.checked_sub(1)
            {
                // The earliest time at or after the previous run's end, past every claim.
                let free_from = view.ends[view.latest_end[previous]];
                let first = groups.at.partition_point(|at| *at < free_from);
                let first = last_claim.map_or(first, |c| first.max(c + 1));
                g = g.min(first);
            }
            if claim[g] == UNCLAIMED {
                claim[g] = r;
                last_claim = Some(g);
            }
        }
        for (g, r) in others {
            if claim[g] == UNCLAIMED {
                claim[g] = r;
            }
        }

        // Occurrences in time order (the usual case) are each group's members in turn: their
        // outcomes are pushed, not written over a first value.
        let in_order = groups.order.is_none();
        let mut outcomes =
            if in_order { Vec::with_capacity(occurrences.len()) } else { vec![Outcome::Upcoming; occurrences.len()] };
        for (g, &at) in groups.at.iter().enumerate() {
            let members = groups.members(g);
            let outcome = match claim[g] {
                UNCLAIMED => self.unmatched(at, grace, history_horizon, &view),
                r => {
                    let run = &runs[r];
                    let wanted = match run.trigger {
                        Trigger::Schedule(Some(id)) => Some(id),
                        _ => None,
                    };
                    let primary = members
                        .clone()
                        .find(|&i| Some(occurrences[i].schedule) == wanted)
                        .unwrap_or(groups.index(groups.bounds[g]));
                    classes[r] = RunClass::Expected { occurrence: primary };
                    let delay = (run.start - at).num_seconds();
                    if delay <= grace {
                        Outcome::OnTime { run: r }
                    } else {
                        Outcome::Late { run: r, delay_secs: delay }
                    }
                }
            };
            if in_order {
                for _ in 1..members.len() {
                    outcomes.push(outcome.clone());
                }
                outcomes.push(outcome);
            } else {
                for i in members {
                    outcomes[i] = outcome.clone();
                }
            }
        }

        Reconciliation { outcomes, runs: classes, diagnostics }
    }

    fn unmatched(
        &self,
        at: DateTime<Utc>,
        grace: i64,
        history_horizon: Option<DateTime<Utc>>,
        view: &RunView,
    ) -> Outcome {
        let now = self.now;
        if at > now {
            return Outcome::Upcoming;
        }
        if let Some(run) = view.running_at(at) {
            return Outcome::SkippedRunning { run };
        }
        if history_horizon.is_some_and(|h| at < h) {
            return Outcome::Unknown;
        }
        if (now - at).num_seconds() <= grace {
            return Outcome::Upcoming;
        }
        if let Some(period) = self.ctx.zombie_periods.iter().find(|p| p.contains(at)) {
            return Outcome::Missed { cause: MissCause::AgentZombie { period: *period } };
        }
        let agent_starts = &self.agent_starts;
        let i = agent_starts.partition_point(|s| *s < at);
        if let Some(&restarted_at) = agent_starts.get(i)
            && (restarted_at - at).num_seconds() <= AGENT_DOWN_MAX_SECS
            && !started_in(&self.all_starts, at, restarted_at)
            && !started_in(&view.starts, at, restarted_at)
        {
            return Outcome::Missed { cause: MissCause::AgentDown { restarted_at } };
        }
        Outcome::Missed { cause: MissCause::NoRun }
    }
}

/// Occurrences grouped by instant, without a vector per group: group `g` is the instant
/// `at[g]`, its members `order[bounds[g]..bounds[g + 1]]` (indices into the caller's slice, in
/// the caller's order).
struct Groups {
    at: Vec<DateTime<Utc>>,
    bounds: Vec<usize>,
    /// `None`: the occurrences came in time order, `order[k]` is `k`.
    order: Option<Vec<usize>>,
}

impl Groups {
    fn new(occurrences: &[Occurrence], window: Window, diagnostics: &mut Vec<Diagnostic>) -> Self {
        let in_order = occurrences.is_sorted_by_key(|o| o.at);
        if !in_order {
            diagnostics.push(Diagnostic::info("occurrences were not in time order; sorted"));
        }
        let order: Option<Vec<usize>> = (!in_order).then(|| {
            let mut order: Vec<usize> = (0..occurrences.len()).collect();
            order.sort_by_key(|&i| (occurrences[i].at, i));
            order
        });
        let index = |k: usize| order.as_ref().map_or(k, |o| o[k]);

        let mut at: Vec<DateTime<Utc>> = Vec::with_capacity(occurrences.len());
        let mut bounds: Vec<usize> = Vec::with_capacity(occurrences.len() + 1);
        let mut duplicates: Option<(usize, ScheduleId, DateTime<Utc>)> = None;
        for k in 0..occurrences.len() {
            let o = &occurrences[index(k)];
            if at.last() == Some(&o.at) {
                let first = *bounds.last().expect("a group has a start");
                if (first..k).any(|j| occurrences[index(j)].schedule == o.schedule) {
                    let d = duplicates.get_or_insert((0, o.schedule, o.at));
                    d.0 += 1;
                }
            } else {
                at.push(o.at);
                bounds.push(k);
            }
        }
        bounds.push(occurrences.len());
        if let Some((count, schedule, at)) = duplicates {
            diagnostics.push(Diagnostic::warning(
                "schedule",
                schedule,
                format!("{count} duplicate occurrence(s) of one schedule at one instant, first at {}; merged", ts(at)),
            ));
        }
        if !window.is_empty() {
            let mut outside = occurrences.iter().filter(|o| !window.contains(o.at));
            if let Some(first) = outside.next() {
                diagnostics.push(Diagnostic::warning(
                    "occurrence",
                    ts(first.at),
                    format!(
                        "{} occurrence(s) outside the window {} .. {}",
                        1 + outside.count(),
                        ts(window.start),
                        ts(window.end)
                    ),
                ));
            }
        }
        Groups { at, bounds, order }
    }

    fn len(&self) -> usize {
        self.at.len()
    }

    /// The caller's index of the `k`-th occurrence in time order.
    fn index(&self, k: usize) -> usize {
        self.order.as_ref().map_or(k, |o| o[k])
    }

    /// The members of group `g`, in the caller's order.
    fn members(&self, g: usize) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        (self.bounds[g]..self.bounds[g + 1]).map(|k| self.index(k))
    }
}

/// The job's runs in start order, with what [`Reconciler::unmatched`] needs to answer quickly.
struct RunView {
    /// Run indices sorted by start (ties: given order); `None`: the runs came in start order,
    /// `order[k]` is `k`.
    order: Option<Vec<usize>>,
    /// Starts, in `order`.
    starts: Vec<DateTime<Utc>>,
    /// `latest_end[k]`: among `order[..=k]`, the run that ends last.
    latest_end: Vec<usize>,
    /// Effective ends, parallel to the runs given.
    ends: Vec<DateTime<Utc>>,
}

impl RunView {
    fn new(runs: &[Run], now: DateTime<Utc>, diagnostics: &mut Vec<Diagnostic>) -> Self {
        let in_order = runs.is_sorted_by_key(|r| r.start);
        if !in_order {
            diagnostics.push(Diagnostic::info("runs were not in start order; sorted"));
        }
        let order: Option<Vec<usize>> = (!in_order).then(|| {
            let mut order: Vec<usize> = (0..runs.len()).collect();
            order.sort_by_key(|&i| (runs[i].start, i));
            order
        });
        let ends: Vec<DateTime<Utc>> = runs.iter().map(|r| effective_end(r, now)).collect();

        let mut negative = runs.iter().filter(|r| r.duration_secs < 0);
        if let Some(first) = negative.next() {
            diagnostics.push(Diagnostic::warning(
                "duration_secs",
                first.duration_secs,
                format!(
                    "{} run(s) with a negative duration, first starting {}; taken as 0",
                    1 + negative.count(),
                    ts(first.start)
                ),
            ));
        }
        let mut future = runs.iter().filter(|r| r.start > now);
        if let Some(first) = future.next() {
            diagnostics.push(Diagnostic::warning(
                "start",
                ts(first.start),
                format!("{} run(s) start after now ({}): clocks disagree?", 1 + future.count(), ts(now)),
            ));
        }

        let mut starts = Vec::with_capacity(runs.len());
        let mut latest_end: Vec<usize> = Vec::with_capacity(runs.len());
        let mut overlaps: Option<(usize, DateTime<Utc>)> = None;
        for k in 0..runs.len() {
            let r = order.as_ref().map_or(k, |o| o[k]);
            let start = runs[r].start;
            let best = match latest_end.last() {
                Some(&b) => {
                    if start < ends[b] {
                        overlaps.get_or_insert((0, start)).0 += 1;
                    }
                    if ends[r] > ends[b] { r } else { b }
                }
                None => r,
            };
            starts.push(start);
            latest_end.push(best);
        }
        if let Some((count, first)) = overlaps {
            diagnostics.push(Diagnostic::warning(
                "start",
                ts(first),
                format!(
                    "{count} run(s) start before an earlier run of the same job ended (the Agent never overlaps a job)"
                ),
            ));
        }
        RunView { order, starts, latest_end, ends }
    }

    /// The index of the `k`-th run in start order.
    fn index(&self, k: usize) -> usize {
        self.order.as_ref().map_or(k, |o| o[k])
    }

    /// A run in progress at `at` (`start < at < end`): the one ending last.
    fn running_at(&self, at: DateTime<Utc>) -> Option<usize> {
        let k = self.starts.partition_point(|s| *s < at);
        let r = *self.latest_end.get(k.checked_sub(1)?)?;
        (self.ends[r] > at).then_some(r)
    }
}

/// The slot (see the module docs) of instants `t` asked in non-decreasing order, over the
/// groups' instants `at` (sorted): `k` only moves forward, so a walk of all runs costs
/// O(runs + instants), a merge of the two sorted lists.
struct SlotWalker<'g> {
    at: &'g [DateTime<Utc>],
    /// How many instants are `<= t` of the last question.
    k: usize,
    window: Window,
}

impl SlotWalker<'_> {
    fn slot_of(&mut self, t: DateTime<Utc>) -> Option<usize> {
        let at = self.at;
        while self.k < at.len() && at[self.k] <= t {
            self.k += 1;
        }
        let k = self.k;
        if let Some(&next) = at.get(k) {
            let ahead = next - t;
            // Nearer to the next instant than to the previous one, asked only when early enough.
            if ahead <= TimeDelta::seconds(EARLY_SECS) && (k == 0 || ahead < t - at[k - 1]) {
                return Some(k);
            }
        }
        let current = k.checked_sub(1)?;
        let last = at[current];
        if current + 1 == at.len() && self.window.end > last && t >= self.window.end {
            return None;
        }
        Some(current)
    }
}

/// When a run stops holding the job: start + duration (negative: 0, absurd: saturated);
/// a run still in progress holds it at least until `now`.
fn effective_end(run: &Run, now: DateTime<Utc>) -> DateTime<Utc> {
    let end = TimeDelta::try_seconds(run.duration_secs.max(0))
        .and_then(|d| run.start.checked_add_signed(d))
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    if run.outcome == RunOutcome::InProgress { end.max(now) } else { end }
}

/// Whether some instant of `sorted` lies in `[from, to)`.
fn started_in(sorted: &[DateTime<Utc>], from: DateTime<Utc>, to: DateTime<Utc>) -> bool {
    let i = sorted.partition_point(|s| *s < from);
    sorted.get(i).is_some_and(|s| *s < to)
}

/// `instants` sorted: borrowed when it already is (the usual case), else a sorted copy.
fn sorted(instants: &[DateTime<Utc>]) -> Cow<'_, [DateTime<Utc>]> {
    if instants.is_sorted() {
        Cow::Borrowed(instants)
    } else {
        let mut v = instants.to_vec();
        v.sort_unstable();
        Cow::Owned(v)
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Spans in which no job on the instance started while at least `min_due` runs were due.
/// `due` and `starts` are sorted instants of all jobs; only spans before `now` count.
///
/// - The instance's starts cut time into gaps. A due instant equal to a start does not count
///   (that start is most likely its run); the others count in the gap they fall in, so each
///   gap is maximal: it runs from one start to the next.
/// - Only due instants in `[window.start, min(window.end, now))` count. Each occurrence counts
///   (two jobs due at one instant are two), so callers pass one instant per job and instant.
/// - A gap with at least `min_due` due instants yields the period `[first due, end)`: the first
///   due instant is **included**, `end` is **excluded**; `end` is the next start, or `now` (and
///   never past `window.end`) when nothing has started since.
/// - `min_due` 0 is taken as 1 (a gap with nothing due proves nothing).
/// - Unsorted input is sorted; starts after `now` are ignored.
pub fn zombie_periods(
    due: &[DateTime<Utc>],
    starts: &[DateTime<Utc>],
    window: Window,
    now: DateTime<Utc>,
    min_due: usize,
) -> Vec<Window> {
    let min_due = min_due.max(1);
    let end = window.end.min(now);
    if end <= window.start {
        return Vec::new();
    }
    // Sorted input (the usual case) is borrowed: the due instants in range are one run of it,
    // the starts up to `now` a prefix; duplicate starts need no removal (below).
    let due: Cow<'_, [DateTime<Utc>]> = if due.is_sorted() {
        let from = due.partition_point(|d| *d < window.start);
        let to = due.partition_point(|d| *d < end);
        Cow::Borrowed(&due[from..to.max(from)])
    } else {
        let mut v: Vec<DateTime<Utc>> = due.iter().copied().filter(|d| window.start <= *d && *d < end).collect();
        v.sort_unstable();
        Cow::Owned(v)
    };
    let starts: Cow<'_, [DateTime<Utc>]> = if starts.is_sorted() {
        Cow::Borrowed(&starts[..starts.partition_point(|s| *s <= now)])
    } else {
        let mut v: Vec<DateTime<Utc>> = starts.iter().copied().filter(|s| *s <= now).collect();
        v.sort_unstable();
        Cow::Owned(v)
    };

    let mut periods = Vec::new();
    // (gap index, first due, count)
    let mut current: Option<(usize, DateTime<Utc>, usize)> = None;
    let close = |c: Option<(usize, DateTime<Utc>, usize)>, periods: &mut Vec<Window>| {
        if let Some((gap, first, count)) = c
            && count >= min_due
        {
            let stop = starts.get(gap).copied().unwrap_or(end).min(end);
            periods.push(Window::new(first, stop));
        }
    };
    // The gap of a due instant is the index of the first start at or after it (of the first
    // copy, when a start repeats: one index per gap all the same); due instants come in order,
    // so it only moves forward: a merge of the two sorted lists.
    let mut gap = 0;
    for &d in due.iter() {
        while gap < starts.len() && starts[gap] < d {
            gap += 1;
        }
        if starts.get(gap) == Some(&d) {
            continue;
        }
        match &mut current {
            Some((g, _, count)) if *g == gap => *count += 1,
            _ => {
                close(current.take(), &mut periods);
                current = Some((gap, d, 1));
            }
        }
    }
    close(current, &mut periods);
    periods
}
