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
use super::{Diagnostic, ScheduleId, Window, order};
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
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
    order::sort_by_key(&mut occ, |&t| order::by_instant(t));
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
pub(crate) fn median_gap(occ: &[DateTime<Utc>]) -> Option<i64> {
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
pub(crate) fn human(secs: i64) -> String {
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
    order::sort_by_key(&mut v, |&t| order::by_instant(t));
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
    /// Its lane, its partner, and for a job not moved the partner run's start.
    fn key(&self) -> order::Key {
        let ([s, n], (kind, index)) = match self.partner {
            Partner::Other(i) => (order::instant(self.partner_at), (1, i)),
            Partner::Moved(i) => ([0, 0], (0, i)),
        };
        [self.lane as i64, kind, index as i64, s, n, 0, 0, 0]
    }
    /// Unique per pair of runs (its start, lane, partner's start, partner); also the order
    /// overlaps are listed in.
    fn order(&self) -> order::Key {
        let ([a, an], [p, pn]) = (order::instant(self.at), order::instant(self.partner_at));
        let (kind, index) = match self.partner {
            Partner::Moved(i) => (0, i),
            Partner::Other(i) => (1, i),
        };
        [a, an, self.lane as i64, p, pn, kind, index as i64, 0]
    }
}

/// A run taking part in the sweep: its interval and whose it is.
#[derive(Clone, Copy, Debug)]
struct Span {
    w: Window,
    owner: usize,
}

impl Span {
    /// By start, then owner.
    fn order(&self) -> order::Key {
        let [s, n] = order::instant(self.w.start);
        [s, n, self.owner as i64, 0, 0, 0, 0, 0]
    }
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
        order::sort_by_key(&mut m, Span::order);
        sweep(&m, &others[level], out);
        order::sort_by_key(out, Raw::order);
    }
    let likely = order::set_of(found[0].iter().map(Raw::order).collect());
    found[1].retain(|r| !order::contains(&likely, &r.order()));
    found
}

/// `(created, removed)`: proposed overlaps no current one matches, and the reverse.
/// Equal keys pair up in the order given: the first current with the first proposed, and so on.
fn diff(current: &[Raw], proposed: &[Raw]) -> (Vec<Raw>, Vec<Raw>) {
    let ck: Vec<order::Key> = current.iter().map(Raw::key).collect();
    let pk: Vec<order::Key> = proposed.iter().map(Raw::key).collect();
    // Both in key order, equal keys in the order given: a merge pairs them.
    let (co, po) = (order::order_of(&ck), order::order_of(&pk));
    let (mut c_paired, mut p_paired) = (vec![false; current.len()], vec![false; proposed.len()]);
    let (mut i, mut j) = (0, 0);
    while i < co.len() && j < po.len() {
        match ck[co[i]].cmp(&pk[po[j]]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                (c_paired[co[i]], p_paired[po[j]]) = (true, true);
                (i, j) = (i + 1, j + 1);
            }
        }
    }
    let unpaired = |rs: &[Raw], paired: &[bool]| -> Vec<Raw> {
        rs.iter().zip(paired).filter(|(_, p)| !**p).map(|(r, _)| *r).collect()
    };
    let created = unpaired(proposed, &p_paired);
    let mut removed = unpaired(current, &c_paired);
    order::sort_by_key(&mut removed, Raw::order);
    (created, removed)
}

/// What changing `edit`'s schedule does to the instance of `others`, over `window`. See the
/// module docs for the model.
pub fn replay(edit: &EditedJob, others: &[OtherJob], window: Window, settings: &Settings) -> Impact {
    let threshold = settings.band_gap_secs;
    let Jobs { moved, still, mut bands, no_history, diagnostics } = Jobs::read(edit, others, window, threshold);
    let lanes: Vec<Lane> = moved.into_iter().map(|m| Lane::replay(m, threshold, &mut bands)).collect();
    let other_spans = other_spans(&still);
    let cur = scenario(&lane_runs(&lanes, false), &other_spans);
    let prop = scenario(&lane_runs(&lanes, true), &other_spans);
    let (created_likely, removed_likely) = diff(&cur[0], &prop[0]);
    let (created_possible, removed_possible) = diff(&cur[1], &prop[1]);
    let summary = Summary {
        created_likely: created_likely.len(),
        created_possible: created_possible.len(),
        removed_likely: removed_likely.len(),
        removed_possible: removed_possible.len(),
        refused_current: refused(&lanes, false, false),
        refused_proposed: refused(&lanes, true, false),
        refused_current_p95: refused(&lanes, false, true),
        refused_proposed_p95: refused(&lanes, true, true),
    };
    let names = Names { lanes: &lanes, others };
    let current = names.pair(&cur[0], &cur[1]);
    let proposed = names.pair(&prop[0], &prop[1]);
    let created = names.pair(&created_likely, &created_possible);
    let removed = names.pair(&removed_likely, &removed_possible);
    let moved = lanes.into_iter().map(Lane::into_moved).collect();
    Impact { window, moved, current, proposed, created, removed, bands, no_history, summary, diagnostics }
}

/// The median gap of `occ` when it is under `threshold` seconds: the job is a [`Band`].
fn frequent(occ: &[DateTime<Utc>], threshold: i64) -> Option<i64> {
    median_gap(occ).filter(|g| *g < threshold)
}

/// A moved job's input: its occurrences in the window, cleaned, as scheduled now and under the
/// change.
struct MovedInput<'a> {
    name: &'a str,
    estimate: Option<Estimate>,
    shared: &'a [ScheduleId],
    current: Vec<DateTime<Utc>>,
    proposed: Vec<DateTime<Utc>>,
}

/// A job not moved, replayed: its index in `others`, its runs, whether it is a band.
struct Still {
    k: usize,
    runs: Vec<ReplayedRun>,
    band: bool,
}

/// The jobs as read: the moved ones (the edited job first) still to replay, the others
/// replayed, their bands, and what was found along the way.
struct Jobs<'a> {
    moved: Vec<MovedInput<'a>>,
    still: Vec<Still>,
    bands: Vec<Band>,
    no_history: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Jobs<'a> {
    /// Reads the edited job, then every other job in the order given.
    fn read(edit: &'a EditedJob, others: &'a [OtherJob], window: Window, threshold: i64) -> Self {
        let mut jobs = Jobs {
            moved: Vec::new(),
            still: Vec::new(),
            bands: Vec::new(),
            no_history: Vec::new(),
            diagnostics: Vec::new(),
        };
        let edit_proposed = clean(&edit.name, "proposed ", &edit.proposed, window, &mut jobs.diagnostics);
        check_estimate(&edit.name, edit.estimate, &mut jobs.no_history, &mut jobs.diagnostics);
        let current = clean(&edit.name, "current ", &edit.current, window, &mut jobs.diagnostics);
        jobs.moved.push(MovedInput {
            name: &edit.name,
            estimate: edit.estimate,
            shared: &[],
            current,
            proposed: edit_proposed.clone(),
        });
        for (k, job) in others.iter().enumerate() {
            if job.name == edit.name {
                jobs.diagnostics.push(Diagnostic::warning(
                    "others",
                    &job.name,
                    "the edited job is also listed among the other jobs; that entry is ignored",
                ));
                continue;
            }
            check_estimate(&job.name, job.estimate, &mut jobs.no_history, &mut jobs.diagnostics);
            if job.shared_schedules.is_empty() {
                jobs.add_still(k, job, window, threshold);
            } else {
                jobs.add_moved(job, &edit_proposed, window);
            }
        }
        jobs
    }

    /// A job sharing no schedule with the edited one: replayed as scheduled now.
    fn add_still(&mut self, k: usize, job: &OtherJob, window: Window, threshold: i64) {
        if job.proposed.is_some() {
            self.diagnostics.push(Diagnostic::warning(
                "proposed",
                &job.name,
                "proposed occurrences given for a job that shares no schedule with the edited job; ignored",
            ));
        }
        let occ = clean(&job.name, "", &job.occurrences, window, &mut self.diagnostics);
        let (p50, p95) = lengths(job.estimate);
        let band = frequent(&occ, threshold);
        if let Some(gap) = band {
            self.bands.push(Band {
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
        self.still.push(Still { k, runs: walk(&occ, p50, p95), band: band.is_some() });
    }

    /// A job sharing a schedule with the edited one: it moves too, to its own proposed
    /// occurrences if given, else to the edited job's.
    fn add_moved(&mut self, job: &'a OtherJob, edit_proposed: &[DateTime<Utc>], window: Window) {
        let current = clean(&job.name, "current ", &job.occurrences, window, &mut self.diagnostics);
        let proposed = match &job.proposed {
            Some(p) => clean(&job.name, "proposed ", p, window, &mut self.diagnostics),
            None => edit_proposed.to_vec(),
        };
        self.moved.push(MovedInput {
            name: &job.name,
            estimate: job.estimate,
            shared: &job.shared_schedules,
            current,
            proposed,
        });
    }
}

/// A moved job replayed ("lane"): the edited job, then every job sharing a schedule with it.
struct Lane<'a> {
    name: &'a str,
    estimate: Option<Estimate>,
    shared: &'a [ScheduleId],
    current: Vec<ReplayedRun>,
    proposed: Vec<ReplayedRun>,
    /// Frequent in current or proposed: it takes part in no overlap.
    band: bool,
}

impl<'a> Lane<'a> {
    /// Walks both scenarios; a job frequent in either is also listed in `bands`.
    fn replay(m: MovedInput<'a>, threshold: i64, bands: &mut Vec<Band>) -> Self {
        let (p50, p95) = lengths(m.estimate);
        let gaps = [frequent(&m.current, threshold), frequent(&m.proposed, threshold)];
        let band = gaps.iter().flatten().min().copied();
        if let Some(gap) = band {
            bands.push(Band {
                job: m.name.to_owned(),
                moved: true,
                median_gap_secs: gap,
                in_current: gaps[0].is_some(),
                in_proposed: gaps[1].is_some(),
                occurrences: if gaps[0] == Some(gap) { m.current.len() } else { m.proposed.len() },
                estimate: m.estimate,
                pattern: pattern(gap, m.estimate),
            });
        }
        Lane {
            name: m.name,
            estimate: m.estimate,
            shared: m.shared,
            current: walk(&m.current, p50, p95),
            proposed: walk(&m.proposed, p50, p95),
            band: band.is_some(),
        }
    }

    /// As reported: the lane without its band mark.
    fn into_moved(self) -> MovedJob {
        MovedJob {
            name: self.name.to_owned(),
            estimate: self.estimate,
            shared_schedules: self.shared.to_vec(),
            current: self.current,
            proposed: self.proposed,
        }
    }
}

/// Other jobs' runs at p50 and at p95, bands left out, sorted by start: computed once for
/// both scenarios.
fn other_spans(still: &[Still]) -> [Vec<Span>; 2] {
    let mut out: [Vec<Span>; 2] = [Vec::new(), Vec::new()];
    for s in still.iter().filter(|s| !s.band) {
        spans(&s.runs, s.k, false, &mut out[0]);
        spans(&s.runs, s.k, true, &mut out[1]);
    }
    for s in &mut out {
        order::sort_by_key(s, Span::order);
    }
    out
}

/// The runs of the lanes that are not bands, current or proposed, by lane.
fn lane_runs<'l>(lanes: &'l [Lane], proposed: bool) -> Vec<(usize, &'l [ReplayedRun])> {
    (0..lanes.len())
        .filter(|l| !lanes[*l].band)
        .map(|l| (l, if proposed { lanes[l].proposed.as_slice() } else { lanes[l].current.as_slice() }))
        .collect()
}

/// Occurrences of the moved jobs refused, current or proposed, at p50 or at p95.
fn refused(lanes: &[Lane], proposed: bool, p95: bool) -> usize {
    lanes
        .iter()
        .flat_map(|l| if proposed { l.proposed.iter() } else { l.current.iter() })
        .filter(|r| if p95 { r.refused_p95.is_some() } else { r.refused.is_some() })
        .count()
}

/// Attaches the jobs' names to raw overlaps.
struct Names<'n> {
    lanes: &'n [Lane<'n>],
    others: &'n [OtherJob],
}

impl Names<'_> {
    /// Each raw overlap with the moved job's and its partner's names.
    fn overlaps(&self, raws: &[Raw]) -> Vec<Overlap> {
        raws.iter()
            .map(|r| {
                let (other, other_moved) = match r.partner {
                    Partner::Moved(l) => (self.lanes[l].name, true),
                    Partner::Other(k) => (self.others[k].name.as_str(), false),
                };
                Overlap {
                    job: self.lanes[r.lane].name.to_owned(),
                    run: r.at,
                    other: other.to_owned(),
                    other_run: r.partner_at,
                    other_moved,
                    span: r.span,
                }
            })
            .collect()
    }

    /// Likely and possible overlaps, named.
    fn pair(&self, likely: &[Raw], possible: &[Raw]) -> Overlaps {
        Overlaps { likely: self.overlaps(likely), possible: self.overlaps(possible) }
    }
}
