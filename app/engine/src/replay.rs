//! Replay: what a schedule edit does to an instance.
//!
//! A what-if editor asks "if I change job X's schedule, what does it do to the instance?".
//! [`replay`] answers from instants alone (no time zone, no clock): the caller forecasts the
//! edited job's current and proposed occurrences and every other job's occurrences over one
//! [`Window`], passes each job's duration estimate ([`duration_stats`] of its history), and gets
//! an [`Impact`] back.
//!
//! # Model
//!
//! - **Runs.** A job's run at occurrence `at` is the half-open interval `[at, at + p50)` (the
//!   *likely* run) and `[at, at + p95)` (the *possible* run). A job without history has no
//!   [`Estimate`]: it is taken as zero-length, so it overlaps nothing and is never refused; its
//!   name is listed in [`Impact::no_history`] and a diagnostic says so.
//! - **Refused runs.** SQL Server Agent starts no new run of a job while that job is still
//!   executing: it skips the occurrence, it does not queue it. Walking a job's occurrences in
//!   time order, an occurrence at `at` is refused ([`RefusalReason::StillRunning`]) when the last
//!   run it started ends strictly after `at` (a run ending exactly at `at` freed the job in
//!   time, as in reconciliation). A refused occurrence starts nothing: it neither blocks later
//!   occurrences nor overlaps anything. The walk is done twice, with p50 (the likely call,
//!   [`ReplayedRun::refused`]) and with p95 ([`ReplayedRun::refused_p95`]). The two calls are
//!   independent: a long p95 run can refuse an occurrence whose refusal would otherwise have
//!   refused the next one, so p95 refusing is not implied by p50 refusing.
//!   The walk is done for every job, not only the moved ones: another job's refused
//!   occurrences do not run, so they cannot overlap.
//! - **Moved jobs.** The edited job moves. So does every [`OtherJob`] that shares a schedule
//!   with it ([`OtherJob::shared_schedules`] not empty): it is replayed with its own occurrences
//!   for *current* and, for *proposed*, with [`OtherJob::proposed`] if given, else with the
//!   edited job's proposed occurrences.
//! - **Overlaps.** Every pair (moved job run, other job run) whose intervals intersect, with the
//!   span of the intersection; two moved jobs' runs count too (each pair once, the job listed
//!   first in [`Impact::moved`] first). *Likely* overlaps intersect p50 runs of occurrences the
//!   p50 walk accepted; *possible* overlaps intersect p95 runs of occurrences the p95 walk
//!   accepted and are not also likely overlaps (the same two runs at p50).
//! - **Diff.** An overlap is matched between current and proposed by the moved job, the other
//!   job and the other job's run (its start); the moved job's own run is free to move. For two
//!   moved jobs the pair of jobs is the match. Matching is one to one, earliest first. Proposed
//!   overlaps left unmatched are [`Impact::created`], current ones left unmatched are
//!   [`Impact::removed`]; likely and possible are diffed separately (an overlap that goes from
//!   likely to possible-only is removed as likely and created as possible).
//! - **Bands.** A job whose median gap between consecutive occurrences (nearest-rank, see
//!   [`duration_stats`]) is under [`Settings::band_gap_secs`] (default 15 minutes) runs all the
//!   time; overlapping it is background, not a conflict. Such a job is reported as a [`Band`]
//!   and takes part in no overlap. A moved job is a band when it is frequent in current *or*
//!   proposed (so turning a job into a band does not read as "removes all its conflicts"); its
//!   runs and refusals are still replayed.
//! - **Window.** Occurrences outside `[start, end)` are ignored (with a diagnostic); runs may
//!   extend past `end`. Runs of occurrences before `start` are not known and not modelled.
//!   Unsorted occurrences are sorted; duplicate instants start one run (with a diagnostic).
//!
//! # Cost
//!
//! Each job's occurrences are sorted once and walked once. Overlaps are found by one sweep over
//! the runs sorted by start, keeping the moved runs and the other runs that are still going:
//! `O(n log n + overlaps)` for `n` runs, never all pairs, and other jobs' runs never meet each
//! other. Other jobs' runs are computed once and shared by both scenarios.
use super::{Diagnostic, ScheduleId, Window};
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

/// The default [`Settings::band_gap_secs`]: 15 minutes.
pub const DEFAULT_BAND_GAP_SECS: i64 = 15 * 60;

/// Summary of a job's run durations (seconds). Percentiles are *nearest-rank*: the `p`-th
/// percentile of `n` sorted values is the value at 1-based rank `ceil(p/100 * n)`, always one of
/// the values (no interpolation). So `p50` of `[10, 20, 30, 40]` is 20 and `p95` of 20 values is
/// the 19th.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DurationStats {
    pub p50: i64,
    pub p95: i64,
    pub max: i64,
    /// How many durations were summarised.
    pub n: usize,
}

/// Nearest-rank p50 and p95, the maximum and the count of `durations_secs`; `None` when there
/// are none. Negative durations count as 0.
pub fn duration_stats(durations_secs: &[i64]) -> Option<DurationStats> {
    if durations_secs.is_empty() {
        return None;
    }
    let mut v: Vec<i64> = durations_secs.iter().map(|&d| d.max(0)).collect();
    v.sort_unstable();
    let n = v.len();
    Some(DurationStats { p50: v[nearest_rank(n, 50) - 1], p95: v[nearest_rank(n, 95) - 1], max: v[n - 1], n })
}

/// 1-based nearest rank of the `p`-th percentile among `n > 0` values.
fn nearest_rank(n: usize, p: u64) -> usize {
    let rank = (p * n as u64).div_ceil(100);
    (rank as usize).clamp(1, n)
}

/// How long a job's runs take (seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Estimate {
    pub p50_secs: i64,
    pub p95_secs: i64,
}

impl From<DurationStats> for Estimate {
    fn from(s: DurationStats) -> Self {
        Estimate { p50_secs: s.p50, p95_secs: s.p95 }
    }
}

/// The job being edited.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditedJob {
    pub name: String,
    /// Its occurrences in the window as scheduled now.
    pub current: Vec<DateTime<Utc>>,
    /// Its occurrences in the window under the proposed schedule.
    pub proposed: Vec<DateTime<Utc>>,
    /// `None`: no history.
    #[serde(default)]
    pub estimate: Option<Estimate>,
}

/// Another job of the instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OtherJob {
    pub name: String,
    /// Its occurrences in the window (as scheduled now).
    pub occurrences: Vec<DateTime<Utc>>,
    /// `None`: no history.
    #[serde(default)]
    pub estimate: Option<Estimate>,
    /// Schedules it shares with the edited job. Not empty: the change moves this job too.
    #[serde(default)]
    pub shared_schedules: Vec<ScheduleId>,
    /// For a moved job with schedules of its own besides the shared one: its occurrences under
    /// the change (the caller merges). `None`: the edited job's proposed occurrences. Ignored
    /// (with a diagnostic) for a job that shares no schedule.
    #[serde(default)]
    pub proposed: Option<Vec<DateTime<Utc>>>,
}

/// Knobs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// A job whose median gap between occurrences is under this many seconds is a [`Band`].
    /// Default [`DEFAULT_BAND_GAP_SECS`] (15 minutes).
    pub band_gap_secs: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { band_gap_secs: DEFAULT_BAND_GAP_SECS }
    }
}

/// Why the Agent would not start a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalReason {
    /// The job was still executing its previous run.
    StillRunning,
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusalReason::StillRunning => f.write_str("still running"),
        }
    }
}

/// An occurrence the Agent would refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    pub reason: RefusalReason,
    /// The run still going at the occurrence.
    pub running: Window,
}

/// One occurrence of a job, replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayedRun {
    pub at: DateTime<Utc>,
    /// `[at, at + p50)`.
    pub likely: Window,
    /// `[at, at + p95)`.
    pub possible: Window,
    /// The likely call (p50): `Some` when the Agent would refuse this occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refused>,
    /// The same call with p95 durations. Both `Some`: p95 would also refuse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_p95: Option<Refused>,
}

impl ReplayedRun {
    /// Refused at p50 and at p95.
    pub fn p95_also_refuses(&self) -> bool {
        self.refused.is_some() && self.refused_p95.is_some()
    }
}

/// A job the change moves (the edited job, or one sharing a schedule with it), replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedJob {
    pub name: String,
    /// As given; `None`: no history (runs are zero-length).
    pub estimate: Option<Estimate>,
    /// The schedules it shares with the edited job; empty for the edited job itself.
    pub shared_schedules: Vec<ScheduleId>,
    pub current: Vec<ReplayedRun>,
    pub proposed: Vec<ReplayedRun>,
}

/// Two runs that would execute at the same time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    /// The moved job.
    pub job: String,
    /// Its run's start.
    pub run: DateTime<Utc>,
    /// The job it overlaps.
    pub other: String,
    /// That job's run's start.
    pub other_run: DateTime<Utc>,
    /// True when the other job is moved by the change too.
    pub other_moved: bool,
    /// The intersection of the two runs.
    pub span: Window,
}

/// Overlaps at p50 (likely) and at p95 only (possible).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlaps {
    pub likely: Vec<Overlap>,
    pub possible: Vec<Overlap>,
}

/// A job that runs so often that overlapping it is background: it takes part in no overlap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Band {
    pub job: String,
    /// Moved by the change.
    pub moved: bool,
    /// The median gap between its occurrences (nearest-rank), seconds; for a moved job the
    /// smaller of its current and proposed gaps.
    pub median_gap_secs: i64,
    /// Frequent as scheduled now / under the change (always both for a job not moved).
    pub in_current: bool,
    pub in_proposed: bool,
    /// Its occurrences in the window (for a moved job, in the scenario of `median_gap_secs`).
    pub occurrences: usize,
    /// Its run length; `None`: no history.
    pub estimate: Option<Estimate>,
    /// In words: "every 5 min, about 40 s each (p95 1 min)".
    pub pattern: String,
}

/// Counts across all moved jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub created_likely: usize,
    pub created_possible: usize,
    pub removed_likely: usize,
    pub removed_possible: usize,
    /// Occurrences refused at p50 (the likely call).
    pub refused_current: usize,
    pub refused_proposed: usize,
    /// Occurrences refused at p95 (whether or not p50 refuses them).
    pub refused_current_p95: usize,
    pub refused_proposed_p95: usize,
}

/// What the change does to the instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Impact {
    pub window: Window,
    /// The edited job first, then the jobs moved with it, in the order given.
    pub moved: Vec<MovedJob>,
    /// Overlaps as scheduled now.
    pub current: Overlaps,
    /// Overlaps under the change.
    pub proposed: Overlaps,
    /// In proposed, not in current.
    pub created: Overlaps,
    /// In current, not in proposed.
    pub removed: Overlaps,
    pub bands: Vec<Band>,
    /// Jobs without history (taken as zero-length: they overlap nothing).
    pub no_history: Vec<String>,
    pub summary: Summary,
    pub diagnostics: Vec<Diagnostic>,
}

/// Replays one job's occurrences the way the Agent would run them: sorted, duplicates merged,
/// each occurrence refused while the previous run it started is still going (see the module
/// docs). The result is in time order.
pub fn replay_runs(occurrences: &[DateTime<Utc>], estimate: Option<Estimate>) -> Vec<ReplayedRun> {
    let mut occ = occurrences.to_vec();
    occ.sort_unstable();
    occ.dedup();
    let (p50, p95) = lengths(estimate);
    walk(&occ, p50, p95)
}

/// p50 and p95 as used: negative taken as 0, p95 at least p50.
fn lengths(estimate: Option<Estimate>) -> (i64, i64) {
    match estimate {
        None => (0, 0),
        Some(e) => {
            let p50 = e.p50_secs.max(0);
            (p50, e.p95_secs.max(p50))
        }
    }
}

fn span(at: DateTime<Utc>, secs: i64) -> Window {
    let end = TimeDelta::try_seconds(secs).and_then(|d| at.checked_add_signed(d)).unwrap_or(DateTime::<Utc>::MAX_UTC);
    Window::new(at, end)
}

/// The Agent's walk over sorted, distinct occurrences, at p50 and at p95.
fn walk(occ: &[DateTime<Utc>], p50: i64, p95: i64) -> Vec<ReplayedRun> {
    fn step(busy: &mut Option<Window>, at: DateTime<Utc>, run: Window) -> Option<Refused> {
        match busy {
            Some(b) if b.end > at => Some(Refused { reason: RefusalReason::StillRunning, running: *b }),
            _ => {
                *busy = Some(run);
                None
            }
        }
    }
    let (mut busy50, mut busy95) = (None, None);
    occ.iter()
        .map(|&at| {
            let likely = span(at, p50);
            let possible = span(at, p95);
            let refused = step(&mut busy50, at, likely);
            let refused_p95 = step(&mut busy95, at, possible);
            ReplayedRun { at, likely, possible, refused, refused_p95 }
        })
        .collect()
}

/// Nearest-rank median of the gaps between consecutive sorted occurrences (seconds).
fn median_gap(occ: &[DateTime<Utc>]) -> Option<i64> {
    if occ.len() < 2 {
        return None;
    }
    let mut gaps: Vec<i64> = occ.windows(2).map(|w| (w[1] - w[0]).num_seconds()).collect();
    let k = nearest_rank(gaps.len(), 50) - 1;
    Some(*gaps.select_nth_unstable(k).1)
}

fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// "40 s", "5 min", "1 h 30 min", "2 d 3 h".
fn human(secs: i64) -> String {
    let s = secs.max(0);
    let (d, h, m, r) = (s / 86_400, s % 86_400 / 3_600, s % 3_600 / 60, s % 60);
    let parts: Vec<String> = [(d, "d"), (h, "h"), (m, "min"), (r, "s")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .take(2)
        .map(|(n, u)| format!("{n} {u}"))
        .collect();
    if parts.is_empty() { "0 s".into() } else { parts.join(" ") }
}

fn pattern(gap: i64, estimate: Option<Estimate>) -> String {
    match estimate {
        None => format!("every {}, no run history", human(gap)),
        Some(_) => {
            let (p50, p95) = lengths(estimate);
            format!("every {}, about {} each (p95 {})", human(gap), human(p50), human(p95))
        }
    }
}

/// Occurrences inside the window, sorted and distinct; says what it dropped.
fn clean(
    job: &str,
    what: &str,
    occ: &[DateTime<Utc>],
    window: Window,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<DateTime<Utc>> {
    let mut v: Vec<DateTime<Utc>> = occ.iter().copied().filter(|t| window.contains(*t)).collect();
    if let Some(first) = occ.iter().find(|t| !window.contains(**t)) {
        diagnostics.push(Diagnostic::warning(
            "occurrences",
            ts(*first),
            format!(
                "{job}: {} {what}occurrence(s) outside the window [{}, {}) ignored",
                occ.len() - v.len(),
                ts(window.start),
                ts(window.end)
            ),
        ));
    }
    v.sort_unstable();
    let before = v.len();
    v.dedup();
    if v.len() < before {
        diagnostics.push(Diagnostic::warning(
            "occurrences",
            before - v.len(),
            format!("{job}: duplicate {what}occurrences start one run each; merged"),
        ));
    }
    v
}

fn check_estimate(
    job: &str,
    estimate: Option<Estimate>,
    no_history: &mut Vec<String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match estimate {
        None => {
            no_history.push(job.to_owned());
            diagnostics.push(Diagnostic::info(format!(
                "{job}: no run history, so no duration estimate; taken as zero-length (it overlaps nothing and is never refused)"
            )));
        }
        Some(e) if e.p50_secs < 0 || e.p95_secs < 0 => diagnostics.push(Diagnostic::warning(
            "estimate",
            format!("p50 {} s, p95 {} s", e.p50_secs, e.p95_secs),
            format!("{job}: negative duration taken as 0"),
        )),
        Some(e) if e.p95_secs < e.p50_secs => diagnostics.push(Diagnostic::warning(
            "estimate",
            format!("p50 {} s, p95 {} s", e.p50_secs, e.p95_secs),
            format!("{job}: p95 below p50; p95 taken as p50"),
        )),
        Some(_) => {}
    }
}

/// Who a moved run overlaps. Ordered so overlaps sort deterministically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Partner {
    /// Another moved job (its index in `moved`, always greater than the run's own).
    Moved(usize),
    /// A job not moved (its index in `others`).
    Other(usize),
}

/// One overlap before names are attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Raw {
    at: DateTime<Utc>,
    lane: usize,
    partner_at: DateTime<Utc>,
    partner: Partner,
    span: Window,
}

impl Raw {
    /// The diff matches on this (the moved run itself may move).
    fn key(&self) -> (usize, Partner, Option<DateTime<Utc>>) {
        match self.partner {
            Partner::Other(_) => (self.lane, self.partner, Some(self.partner_at)),
            Partner::Moved(_) => (self.lane, self.partner, None),
        }
    }
    /// Unique per pair of runs; also the order overlaps are listed in.
    fn identity(&self) -> (DateTime<Utc>, usize, DateTime<Utc>, Partner) {
        (self.at, self.lane, self.partner_at, self.partner)
    }
}

/// A run taking part in the sweep: its interval and whose it is.
#[derive(Clone, Copy, Debug)]
struct Span {
    w: Window,
    owner: usize,
}

/// Intersecting pairs between moved runs (and among them, across jobs) and other runs. Both
/// inputs sorted by start, intervals non-empty. One pass in start order keeps the runs still
/// going on each side; a run that starts meets exactly those still going on the other side (and,
/// for a moved run, the moved runs of other jobs still going).
fn sweep(moved: &[Span], others: &[Span], out: &mut Vec<Raw>) {
    let mut live_moved: Vec<Span> = Vec::new();
    let mut live_others: Vec<Span> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < moved.len() || j < others.len() {
        let take_moved = j >= others.len() || (i < moved.len() && moved[i].w.start <= others[j].w.start);
        if take_moved {
            let m = moved[i];
            i += 1;
            let t = m.w.start;
            live_others.retain(|o| o.w.end > t);
            for o in &live_others {
                out.push(Raw {
                    at: t,
                    lane: m.owner,
                    partner_at: o.w.start,
                    partner: Partner::Other(o.owner),
                    span: Window::new(t, m.w.end.min(o.w.end)),
                });
            }
            live_moved.retain(|p| p.w.end > t);
            for p in live_moved.iter().filter(|p| p.owner != m.owner) {
                let (a, b) = if p.owner < m.owner { (p, &m) } else { (&m, p) };
                out.push(Raw {
                    at: a.w.start,
                    lane: a.owner,
                    partner_at: b.w.start,
                    partner: Partner::Moved(b.owner),
                    span: Window::new(t, m.w.end.min(p.w.end)),
                });
            }
            live_moved.push(m);
        } else {
            let o = others[j];
            j += 1;
            let t = o.w.start;
            live_moved.retain(|m| m.w.end > t);
            for m in &live_moved {
                out.push(Raw {
                    at: m.w.start,
                    lane: m.owner,
                    partner_at: t,
                    partner: Partner::Other(o.owner),
                    span: Window::new(t, m.w.end.min(o.w.end)),
                });
            }
            live_others.push(o);
        }
    }
}

/// The accepted, non-empty runs of `runs` at p50 (`possible == false`) or p95.
fn spans(runs: &[ReplayedRun], owner: usize, possible: bool, out: &mut Vec<Span>) {
    for r in runs {
        let (w, refused) = if possible { (r.possible, r.refused_p95) } else { (r.likely, r.refused) };
        if refused.is_none() && !w.is_empty() {
            out.push(Span { w, owner });
        }
    }
}

/// Likely and possible-only overlaps of one scenario.
fn scenario(moved_runs: &[(usize, &[ReplayedRun])], others: &[Vec<Span>; 2]) -> [Vec<Raw>; 2] {
    let mut found: [Vec<Raw>; 2] = [Vec::new(), Vec::new()];
    for (level, out) in found.iter_mut().enumerate() {
        let mut m = Vec::new();
        for (lane, runs) in moved_runs {
            spans(runs, *lane, level == 1, &mut m);
        }
        m.sort_by_key(|s| (s.w.start, s.owner));
        sweep(&m, &others[level], out);
        out.sort_by_key(Raw::identity);
    }
    let likely: BTreeSet<_> = found[0].iter().map(Raw::identity).collect();
    found[1].retain(|r| !likely.contains(&r.identity()));
    found
}

/// `(created, removed)`: proposed overlaps no current one matches, and the reverse.
fn diff(current: &[Raw], proposed: &[Raw]) -> (Vec<Raw>, Vec<Raw>) {
    let mut pending: BTreeMap<_, VecDeque<&Raw>> = BTreeMap::new();
    for r in current {
        pending.entry(r.key()).or_default().push_back(r);
    }
    let mut created = Vec::new();
    for r in proposed {
        match pending.get_mut(&r.key()).and_then(VecDeque::pop_front) {
            Some(_) => {}
            None => created.push(*r),
        }
    }
    let mut removed: Vec<Raw> = pending.into_values().flatten().copied().collect();
    removed.sort_by_key(Raw::identity);
    (created, removed)
}

/// What changing `edit`'s schedule does to the instance of `others`, over `window`. See the
/// module docs for the model.
pub fn replay(edit: &EditedJob, others: &[OtherJob], window: Window, settings: &Settings) -> Impact {
    let mut diagnostics = Vec::new();
    let mut no_history = Vec::new();
    let threshold = settings.band_gap_secs;
    let frequent = |occ: &[DateTime<Utc>]| median_gap(occ).filter(|g| *g < threshold);

    // Moved jobs ("lanes"): the edited job, then every job sharing a schedule with it.
    struct Lane<'a> {
        name: &'a str,
        estimate: Option<Estimate>,
        shared: &'a [ScheduleId],
        current: Vec<ReplayedRun>,
        proposed: Vec<ReplayedRun>,
    }
    let mut lanes: Vec<Lane> = Vec::new();
    // Jobs not moved: index into `others`, runs, whether a band.
    let mut still: Vec<(usize, Vec<ReplayedRun>, bool)> = Vec::new();
    let mut bands: Vec<Band> = Vec::new();
    let mut lane_band: Vec<bool> = Vec::new();

    let edit_proposed = clean(&edit.name, "proposed ", &edit.proposed, window, &mut diagnostics);
    /// A moved job's input: name, estimate, shared schedules, current and proposed occurrences.
    type MovedInput<'a> = (&'a str, Option<Estimate>, &'a [ScheduleId], Vec<DateTime<Utc>>, Vec<DateTime<Utc>>);
    let mut moved_inputs: Vec<MovedInput> = Vec::new();
    check_estimate(&edit.name, edit.estimate, &mut no_history, &mut diagnostics);
    moved_inputs.push((
        &edit.name,
        edit.estimate,
        &[],
        clean(&edit.name, "current ", &edit.current, window, &mut diagnostics),
        edit_proposed.clone(),
    ));
    for (k, job) in others.iter().enumerate() {
        if job.name == edit.name {
            diagnostics.push(Diagnostic::warning(
                "others",
                &job.name,
                "the edited job is also listed among the other jobs; that entry is ignored",
            ));
            continue;
        }
        check_estimate(&job.name, job.estimate, &mut no_history, &mut diagnostics);
        if job.shared_schedules.is_empty() {
            if job.proposed.is_some() {
                diagnostics.push(Diagnostic::warning(
                    "proposed",
                    &job.name,
                    "proposed occurrences given for a job that shares no schedule with the edited job; ignored",
                ));
            }
            let occ = clean(&job.name, "", &job.occurrences, window, &mut diagnostics);
            let (p50, p95) = lengths(job.estimate);
            let band = frequent(&occ);
            if let Some(gap) = band {
                bands.push(Band {
                    job: job.name.clone(),
                    moved: false,
                    median_gap_secs: gap,
                    in_current: true,
                    in_proposed: true,
                    occurrences: occ.len(),
                    estimate: job.estimate,
                    pattern: pattern(gap, job.estimate),
                });
            }
            still.push((k, walk(&occ, p50, p95), band.is_some()));
        } else {
            let current = clean(&job.name, "current ", &job.occurrences, window, &mut diagnostics);
            let proposed = match &job.proposed {
                Some(p) => clean(&job.name, "proposed ", p, window, &mut diagnostics),
                None => edit_proposed.clone(),
            };
            moved_inputs.push((&job.name, job.estimate, &job.shared_schedules, current, proposed));
        }
    }
    for (name, estimate, shared, current, proposed) in moved_inputs {
        let (p50, p95) = lengths(estimate);
        let gaps = [frequent(&current), frequent(&proposed)];
        let band = gaps.iter().flatten().min().copied();
        if let Some(gap) = band {
            bands.push(Band {
                job: name.to_owned(),
                moved: true,
                median_gap_secs: gap,
                in_current: gaps[0].is_some(),
                in_proposed: gaps[1].is_some(),
                occurrences: if gaps[0] == Some(gap) { current.len() } else { proposed.len() },
                estimate,
                pattern: pattern(gap, estimate),
            });
        }
        lane_band.push(band.is_some());
        lanes.push(Lane {
            name,
            estimate,
            shared,
            current: walk(&current, p50, p95),
            proposed: walk(&proposed, p50, p95),
        });
    }

    // Other jobs' runs, once for both scenarios, bands left out.
    let mut other_spans: [Vec<Span>; 2] = [Vec::new(), Vec::new()];
    for (k, runs, _) in still.iter().filter(|s| !s.2) {
        spans(runs, *k, false, &mut other_spans[0]);
        spans(runs, *k, true, &mut other_spans[1]);
    }
    for s in &mut other_spans {
        s.sort_by_key(|s| (s.w.start, s.owner));
    }

    let counted: Vec<usize> = (0..lanes.len()).filter(|l| !lane_band[*l]).collect();
    let current_runs: Vec<(usize, &[ReplayedRun])> =
        counted.iter().map(|&l| (l, lanes[l].current.as_slice())).collect();
    let proposed_runs: Vec<(usize, &[ReplayedRun])> =
        counted.iter().map(|&l| (l, lanes[l].proposed.as_slice())).collect();
    let cur = scenario(&current_runs, &other_spans);
    let prop = scenario(&proposed_runs, &other_spans);
    let (created_likely, removed_likely) = diff(&cur[0], &prop[0]);
    let (created_possible, removed_possible) = diff(&cur[1], &prop[1]);

    let named = |raws: &[Raw]| -> Vec<Overlap> {
        raws.iter()
            .map(|r| {
                let (other, other_moved) = match r.partner {
                    Partner::Moved(l) => (lanes[l].name, true),
                    Partner::Other(k) => (others[k].name.as_str(), false),
                };
                Overlap {
                    job: lanes[r.lane].name.to_owned(),
                    run: r.at,
                    other: other.to_owned(),
                    other_run: r.partner_at,
                    other_moved,
                    span: r.span,
                }
            })
            .collect()
    };
    let pair = |likely: &[Raw], possible: &[Raw]| Overlaps { likely: named(likely), possible: named(possible) };

    let refused = |proposed: bool, p95: bool| -> usize {
        lanes
            .iter()
            .flat_map(|l| if proposed { l.proposed.iter() } else { l.current.iter() })
            .filter(|r| if p95 { r.refused_p95.is_some() } else { r.refused.is_some() })
            .count()
    };
    let summary = Summary {
        created_likely: created_likely.len(),
        created_possible: created_possible.len(),
        removed_likely: removed_likely.len(),
        removed_possible: removed_possible.len(),
        refused_current: refused(false, false),
        refused_proposed: refused(true, false),
        refused_current_p95: refused(false, true),
        refused_proposed_p95: refused(true, true),
    };
    let current = pair(&cur[0], &cur[1]);
    let proposed = pair(&prop[0], &prop[1]);
    let created = pair(&created_likely, &created_possible);
    let removed = pair(&removed_likely, &removed_possible);
    let moved = lanes
        .into_iter()
        .map(|l| MovedJob {
            name: l.name.to_owned(),
            estimate: l.estimate,
            shared_schedules: l.shared.to_vec(),
            current: l.current,
            proposed: l.proposed,
        })
        .collect();
    Impact { window, moved, current, proposed, created, removed, bands, no_history, summary, diagnostics }
}
