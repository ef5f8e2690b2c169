//! The straightforward reconciliation, kept as it was before the fast path in the parent
//! module: property tests (`tests/integration/speed_reconcile.rs`) check that
//! [`super::reconcile`] gives exactly what this gives. Not for use elsewhere.
use super::{
    AGENT_DOWN_MAX_SECS, EARLY_SECS, InstanceContext, MissCause, Outcome, Reconciliation, Run, RunClass, RunOutcome,
    Settings, Trigger, effective_end, sorted, started_in, ts,
};
use crate::{Diagnostic, Occurrence, ScheduleId, Window};
use chrono::{DateTime, TimeDelta, Utc};

/// Classify every occurrence (sorted by `at`) and every run (sorted by `start`) of one job.
/// `history_horizon` is the start of the oldest history row kept for the job (`None`: the
/// history is complete for the window).
///
/// The rules, and what happens to unsorted or odd input, are in the [module docs](self).
pub fn reconcile_reference(
    occurrences: &[Occurrence],
    runs: &[Run],
    window: Window,
    now: DateTime<Utc>,
    history_horizon: Option<DateTime<Utc>>,
    ctx: &InstanceContext,
    settings: &Settings,
) -> Reconciliation {
    let mut diagnostics = Vec::new();
    let grace = if settings.grace_secs < 0 {
        diagnostics.push(Diagnostic::warning(
            "grace_secs",
            settings.grace_secs,
            "a negative grace makes no sense; taken as 0",
        ));
        0
    } else {
        settings.grace_secs
    };
    if window.is_empty() {
        diagnostics.push(Diagnostic::warning(
            "window",
            format!("{} .. {}", ts(window.start), ts(window.end)),
            "the window is empty or inverted",
        ));
    }

    let groups = group_occurrences(occurrences, window, &mut diagnostics);
    let view = RunView::new(runs, now, &mut diagnostics);

    // Claim slots: schedule-triggered runs first, then runs triggered by something else.
    let mut claim: Vec<Option<usize>> = vec![None; groups.len()];
    let mut classes: Vec<RunClass> = runs
        .iter()
        .map(|r| if r.trigger == Trigger::Manual { RunClass::Manual } else { RunClass::Unscheduled })
        .collect();
    for schedule_pass in [true, false] {
        for (k, &r) in view.order.iter().enumerate() {
            let run = &runs[r];
            let eligible = match run.trigger {
                Trigger::Schedule(_) => schedule_pass,
                Trigger::Other(_) => !schedule_pass,
                Trigger::Manual => false,
            };
            if !eligible || run.outcome == RunOutcome::Retry {
                continue;
            }
            let Some(mut g) = slot_of(&groups, run.start, window) else { continue };
            if ctx.catches_up
                && schedule_pass
                && let Some(free_from) = view.order[..k].iter().map(|&j| view.ends[j]).max()
            {
                // Catching up: the earliest time at or after the end of the runs before this
                // one such that it and every time up to the run's own slot is unclaimed.
                if let Some(h) = (0..=g).find(|&h| groups[h].at >= free_from && (h..=g).all(|i| claim[i].is_none())) {
                    g = h;
                }
            }
            if claim[g].is_none() {
                claim[g] = Some(r);
            }
        }
    }

    let agent_starts = sorted(&ctx.agent_starts);
    let all_starts = sorted(&ctx.all_run_starts);
    let mut outcomes = vec![Outcome::Upcoming; occurrences.len()];
    for (g, group) in groups.iter().enumerate() {
        let outcome = match claim[g] {
            Some(r) => {
                let run = &runs[r];
                let wanted = match run.trigger {
                    Trigger::Schedule(Some(id)) => Some(id),
                    _ => None,
                };
                let primary = group
                    .members
                    .iter()
                    .copied()
                    .find(|&i| Some(occurrences[i].schedule) == wanted)
                    .unwrap_or(group.members[0]);
                classes[r] = RunClass::Expected { occurrence: primary };
                let delay = (run.start - group.at).num_seconds();
                if delay <= grace { Outcome::OnTime { run: r } } else { Outcome::Late { run: r, delay_secs: delay } }
            }
            None => unmatched(group.at, now, grace, history_horizon, &view, ctx, &agent_starts, &all_starts),
        };
        for &i in &group.members {
            outcomes[i] = outcome.clone();
        }
    }

    Reconciliation { outcomes, runs: classes, diagnostics }
}

/// Occurrences at one instant, indices into the caller's slice in the caller's order.
struct Group {
    at: DateTime<Utc>,
    members: Vec<usize>,
}

fn group_occurrences(occurrences: &[Occurrence], window: Window, diagnostics: &mut Vec<Diagnostic>) -> Vec<Group> {
    if occurrences.windows(2).any(|w| w[1].at < w[0].at) {
        diagnostics.push(Diagnostic::info("occurrences were not in time order; sorted"));
    }
    let mut order: Vec<usize> = (0..occurrences.len()).collect();
    order.sort_by_key(|&i| (occurrences[i].at, i));

    let mut groups: Vec<Group> = Vec::new();
    let mut duplicates: Option<(usize, ScheduleId, DateTime<Utc>)> = None;
    for i in order {
        let o = &occurrences[i];
        if let Some(g) = groups.last_mut()
            && g.at == o.at
        {
            if g.members.iter().any(|&j| occurrences[j].schedule == o.schedule) {
                let d = duplicates.get_or_insert((0, o.schedule, o.at));
                d.0 += 1;
            }
            g.members.push(i);
        } else {
            groups.push(Group { at: o.at, members: vec![i] });
        }
    }
    if let Some((count, schedule, at)) = duplicates {
        diagnostics.push(Diagnostic::warning(
            "schedule",
            schedule,
            format!("{count} duplicate occurrence(s) of one schedule at one instant, first at {}; merged", ts(at)),
        ));
    }
    if !window.is_empty() {
        let outside: Vec<&Occurrence> = occurrences.iter().filter(|o| !window.contains(o.at)).collect();
        if let Some(first) = outside.first() {
            diagnostics.push(Diagnostic::warning(
                "occurrence",
                ts(first.at),
                format!(
                    "{} occurrence(s) outside the window {} .. {}",
                    outside.len(),
                    ts(window.start),
                    ts(window.end)
                ),
            ));
        }
    }
    groups
}

/// The job's runs in start order, with what [`unmatched`] needs to answer quickly.
struct RunView {
    /// Run indices sorted by start (ties: given order).
    order: Vec<usize>,
    /// Starts, in `order`.
    starts: Vec<DateTime<Utc>>,
    /// `latest_end[k]`: among `order[..=k]`, the run that ends last.
    latest_end: Vec<usize>,
    /// Effective ends, parallel to the runs given.
    ends: Vec<DateTime<Utc>>,
}

impl RunView {
    fn new(runs: &[Run], now: DateTime<Utc>, diagnostics: &mut Vec<Diagnostic>) -> Self {
        if runs.windows(2).any(|w| w[1].start < w[0].start) {
            diagnostics.push(Diagnostic::info("runs were not in start order; sorted"));
        }
        let mut order: Vec<usize> = (0..runs.len()).collect();
        order.sort_by_key(|&i| (runs[i].start, i));
        let ends: Vec<DateTime<Utc>> = runs.iter().map(|r| effective_end(r, now)).collect();

        let negative: Vec<&Run> = runs.iter().filter(|r| r.duration_secs < 0).collect();
        if let Some(first) = negative.first() {
            diagnostics.push(Diagnostic::warning(
                "duration_secs",
                first.duration_secs,
                format!(
                    "{} run(s) with a negative duration, first starting {}; taken as 0",
                    negative.len(),
                    ts(first.start)
                ),
            ));
        }
        let future: Vec<&Run> = runs.iter().filter(|r| r.start > now).collect();
        if let Some(first) = future.first() {
            diagnostics.push(Diagnostic::warning(
                "start",
                ts(first.start),
                format!("{} run(s) start after now ({}): clocks disagree?", future.len(), ts(now)),
            ));
        }

        let mut starts = Vec::with_capacity(order.len());
        let mut latest_end: Vec<usize> = Vec::with_capacity(order.len());
        let mut overlaps: Option<(usize, DateTime<Utc>)> = None;
        for &r in &order {
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

    /// A run in progress at `at` (`start < at < end`): the one ending last.
    fn running_at(&self, at: DateTime<Utc>) -> Option<usize> {
        let k = self.starts.partition_point(|s| *s < at);
        let r = *self.latest_end.get(k.checked_sub(1)?)?;
        (self.ends[r] > at).then_some(r)
    }
}

/// The instant group whose slot `t` falls in (see the module docs).
fn slot_of(groups: &[Group], t: DateTime<Utc>, window: Window) -> Option<usize> {
    let k = groups.partition_point(|g| g.at <= t);
    if let Some(next) = groups.get(k) {
        let ahead = next.at - t;
        let nearer = k == 0 || ahead < t - groups[k - 1].at;
        if ahead <= TimeDelta::seconds(EARLY_SECS) && nearer {
            return Some(k);
        }
    }
    let current = k.checked_sub(1)?;
    let at = groups[current].at;
    if current + 1 == groups.len() && window.end > at && t >= window.end {
        return None;
    }
    Some(current)
}

#[allow(clippy::too_many_arguments)]
fn unmatched(
    at: DateTime<Utc>,
    now: DateTime<Utc>,
    grace: i64,
    history_horizon: Option<DateTime<Utc>>,
    view: &RunView,
    ctx: &InstanceContext,
    agent_starts: &[DateTime<Utc>],
    all_starts: &[DateTime<Utc>],
) -> Outcome {
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
    if let Some(period) = ctx.zombie_periods.iter().find(|p| p.contains(at)) {
        return Outcome::Missed { cause: MissCause::AgentZombie { period: *period } };
    }
    let i = agent_starts.partition_point(|s| *s < at);
    if let Some(&restarted_at) = agent_starts.get(i)
        && (restarted_at - at).num_seconds() <= AGENT_DOWN_MAX_SECS
        && !started_in(all_starts, at, restarted_at)
        && !started_in(&view.starts, at, restarted_at)
    {
        return Outcome::Missed { cause: MissCause::AgentDown { restarted_at } };
    }
    Outcome::Missed { cause: MissCause::NoRun }
}

/// [`super::zombie_periods`] as it was (a copy and a sort of both lists, a binary search per due
/// instant).
pub fn zombie_periods_reference(
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
    let mut due: Vec<DateTime<Utc>> = due.iter().copied().filter(|d| window.start <= *d && *d < end).collect();
    due.sort_unstable();
    let mut starts: Vec<DateTime<Utc>> = starts.iter().copied().filter(|s| *s <= now).collect();
    starts.sort_unstable();
    starts.dedup();

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
    for d in due {
        let gap = starts.partition_point(|s| *s < d);
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
