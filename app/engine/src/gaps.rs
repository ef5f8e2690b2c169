//! When an instance's scheduler started nothing: *stopped* (its source says it is off now, or
//! it restarted after its runs went missing) or a *zombie* (alive, starting nothing). Found
//! once per analysis ([`crate::fleet::analyze`]) from the reconciliation, and kept in the
//! report: the banners, the charts' bands, the log's lines and the misses' cause all read
//! these, so no view works out on its own when a scheduler stopped.
//!
//! A scheduler rarely says when it stopped. What Sundial knows is bounded on both sides: the
//! last sign of life (the latest start or end of any run of the instance) and the first time
//! a run was due and did not start. A gap says both: "down by 02:00 at the latest; last seen
//! 01:00:19".
use crate::reconcile::{MissCause, Outcome};
use crate::{Occurrence, Run, RunOutcome, Window};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What kind of silence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GapKind {
    /// The scheduler was not running: it says it is off now, or it (re)started after missing
    /// its runs.
    Stopped,
    /// The scheduler was up and started no job at all although runs were due.
    Zombie,
}

/// One stretch in which the instance's scheduler started nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulerGap {
    pub kind: GapKind,
    /// Its last sign of life before the gap: the latest start or end of a run of any job of
    /// the instance at or before `by`; `None` when the window holds none.
    pub last_seen: Option<DateTime<Utc>>,
    /// When it had stopped at the latest: the first time a run was due and did not start
    /// (a zombie span's start; a restart with nothing due: the restart).
    pub by: DateTime<Utc>,
    /// When it started again (the restart, the zombie's next run); `None`: not yet.
    pub back: Option<DateTime<Utc>>,
}

impl SchedulerGap {
    /// Where a page draws the gap from: the last sign of life when there is one.
    pub fn from(&self) -> DateTime<Utc> {
        self.last_seen.unwrap_or(self.by)
    }
    /// The stretch drawn, ending at `back` or, still going, at `now`.
    pub fn span(&self, now: DateTime<Utc>) -> Window {
        let end = self.back.unwrap_or(now).max(self.from());
        Window::new(self.from(), end)
    }
    pub fn ongoing(&self) -> bool {
        self.back.is_none()
    }
}

/// One job as the gaps need it: its occurrences, what reconciliation said of each (a stop
/// still going rewrites its misses' cause), its runs. [`crate::fleet::analyze`] lends these.
pub struct JobSide<'a> {
    pub occurrences: &'a [Occurrence],
    pub outcomes: &'a mut [Outcome],
    pub runs: &'a [Run],
}

/// The last sign of life at or before `at`: the latest start, or end of a finished run.
pub fn last_seen(jobs: &[JobSide<'_>], at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    jobs.iter()
        .flat_map(|j| j.runs.iter())
        .flat_map(|r| [Some(r.start), (r.outcome != RunOutcome::InProgress).then(|| r.end())])
        .flatten()
        .filter(|t| *t <= at)
        .max()
}

/// The gaps of an analysed instance, oldest first: its zombie spans, the stops its restarts
/// ended, and, when its source says the scheduler is off now (`stopped_now`), the stop still
/// going. A stop still going takes the misses since its last sign of life: each becomes
/// [`MissCause::SchedulerStopped`] (the cause a missed row then says).
pub fn find(
    jobs: &mut [JobSide<'_>],
    zombie_periods: &[Window],
    agent_starts: &[DateTime<Utc>],
    window: Window,
    now: DateTime<Utc>,
    stopped_now: bool,
) -> Vec<SchedulerGap> {
    let mut out = Vec::new();
    let end = now.min(window.end);
    for p in zombie_periods {
        out.push(SchedulerGap {
            kind: GapKind::Zombie,
            last_seen: last_seen(jobs, p.start),
            by: p.start,
            back: (p.end < end).then_some(p.end),
        });
    }
    let mut starts: Vec<DateTime<Utc>> = agent_starts.iter().copied().filter(|s| window.contains(*s)).collect();
    starts.sort_unstable();
    for (k, s) in starts.iter().enumerate() {
        // The first time due that this stop cost: a miss it explains, or a run due before the
        // restart that started only after it (a catch-up run), before any later restart.
        let next = starts.get(k + 1).copied().unwrap_or(DateTime::<Utc>::MAX_UTC);
        let first = jobs
            .iter()
            .flat_map(|j| {
                j.occurrences.iter().zip(j.outcomes.iter()).filter_map(|(o, out)| match out {
                    Outcome::Missed { cause: MissCause::AgentDown { restarted_at } } if restarted_at == s => Some(o.at),
                    Outcome::Late { run, .. } => {
                        j.runs.get(*run).filter(|r| o.at < *s && *s <= r.start && r.start < next).map(|_| o.at)
                    }
                    _ => None,
                })
            })
            .min();
        let by = first.unwrap_or(*s);
        out.push(SchedulerGap { kind: GapKind::Stopped, last_seen: last_seen(jobs, by), by, back: Some(*s) });
    }
    if stopped_now {
        let seen = last_seen(jobs, end);
        let after = |at: DateTime<Utc>| seen.is_none_or(|s| at > s);
        let first = jobs
            .iter()
            .flat_map(|j| {
                j.occurrences
                    .iter()
                    .zip(j.outcomes.iter())
                    .filter(|(o, r)| after(o.at) && matches!(r, Outcome::Missed { cause: MissCause::NoRun }))
                    .map(|(o, _)| o.at)
            })
            .min();
        let by = first.unwrap_or(end);
        for j in jobs.iter_mut() {
            for (o, r) in j.occurrences.iter().zip(j.outcomes.iter_mut()) {
                if let Outcome::Missed { cause } = r
                    && *cause == MissCause::NoRun
                    && o.at >= by
                {
                    *cause = MissCause::SchedulerStopped { since: by };
                }
            }
        }
        out.push(SchedulerGap { kind: GapKind::Stopped, last_seen: seen, by, back: None });
    }
    out.sort_by_key(|g| g.from());
    out
}
