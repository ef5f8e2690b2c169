//! The instance timeline's *layout* half (server only): an engine report laid out as rows of
//! items to draw, the time axis' ticks, labels cut to fit, a tap's detail, and the analysis
//! the timeline draws from (once per read).
use super::*;
use crate::engine::Zone as Tz;
use crate::engine::fleet::{InstanceReport, JobReport};
use crate::engine::reconcile::{MissCause, Outcome, RunClass, Trigger};
use crate::engine::{Run, Window};
use crate::view::point;
use crate::{ApiError, Scheduler, duration_text};
use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// How many runs ahead the page lists ("Next runs").
pub const NEXT_RUNS: usize = 5;

fn utc(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// The bounds a report allows: its window.
pub fn bounds_of(report: &InstanceReport) -> Bounds {
    Bounds { min: report.window.start.timestamp_millis(), max: report.window.end.timestamp_millis() }
}

/// The timeline of `report` for the view `view` (inside `bounds_of(report)`); `head` is
/// the page head (its window is set to the view here).
pub fn layout(
    report: &InstanceReport,
    view: ViewWindow,
    scheduler: &Scheduler,
    head: InstanceHead,
) -> InstanceTimelineData {
    let tz = report.tz;
    let bounds = bounds_of(report);
    let view = view.clamp(bounds);
    let drawn = view.drawn(bounds);
    let merge = view.merge_ms();
    let runs: Vec<Vec<(usize, &Run)>> = report.jobs.iter().map(|j| runs_in(j, drawn)).collect();
    let overlaps = overlaps(&runs);
    let names: Vec<&str> = report.jobs.iter().map(|j| j.name.as_str()).collect();
    let rows: Vec<ChartRow> = report
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| row(j, &runs[i], &overlaps[i], &names, drawn, merge, tz, scheduler))
        .collect();
    let overlapping = overlaps.iter().map(|o| o.iter().filter(|s| !s.is_empty()).count()).sum();
    let (concurrency, peak) = concurrency(&runs, drawn, (view.span() / NOMINAL_PX).max(1));
    // The scheduler's gaps, as the report found them once: zombie spans and stops (from the
    // last sign of life to the return, or now).
    let zombies = report
        .gaps
        .iter()
        .map(|g| (g, g.span(report.now.min(report.window.end))))
        .filter(|(_, z)| z.end.timestamp_millis() > drawn.start && z.start.timestamp_millis() < drawn.end)
        .map(|(g, z)| {
            let due: usize =
                report.jobs.iter().map(|j| j.forecast.occurrences.iter().filter(|o| z.contains(o.at)).count()).sum();
            let title = match g.kind {
                crate::engine::gaps::GapKind::Zombie => format!(
                    "Zombie: {} started no job from {} to {} while {due} runs were due",
                    scheduler.label(),
                    point(z.start, tz).zoned(),
                    point(z.end, tz).zoned()
                ),
                crate::engine::gaps::GapKind::Stopped => format!(
                    "{}{} down by {} at the latest (last seen {}), {} ({due} runs were due)",
                    super::STOPPED,
                    scheduler.label(),
                    point(g.by, tz).zoned(),
                    point(z.start, tz).zoned(),
                    match g.back {
                        Some(b) => format!("back at {}", point(b, tz).zoned()),
                        None => "still stopped".to_owned(),
                    }
                ),
            };
            ChartBand { start: point(z.start, tz), end: point(z.end, tz), title }
        })
        .collect();
    let planned = report
        .maintenance
        .iter()
        .filter(|m| m.window.end.timestamp_millis() > drawn.start && m.window.start.timestamp_millis() < drawn.end)
        .map(|m| ChartBand {
            start: point(m.window.start, tz),
            end: point(m.window.end, tz),
            title: format!(
                "Maintenance ({}) from {} to {}{}: runs not made here are not missed",
                m.label,
                point(m.window.start, tz).zoned(),
                point(m.window.end, tz).zoned(),
                if m.jobs.is_empty() { String::new() } else { format!(", for {}", m.jobs.join(", ")) }
            ),
        })
        .collect();
    let restarts = report
        .context
        .agent_starts
        .iter()
        .filter(|t| (drawn.start..drawn.end).contains(&t.timestamp_millis()))
        .map(|t| point(*t, tz))
        .collect();
    let ticks = ticks(drawn, view.span(), tz);
    let mut head = head;
    head.window_start = point(utc(view.start), tz);
    head.window_end = point(utc(view.end), tz);
    InstanceTimelineData {
        instance: head,
        view,
        drawn,
        bounds,
        now_ms: report.now.timestamp_millis(),
        rows,
        zombies,
        planned,
        restarts,
        concurrency,
        peak,
        overlapping,
        tick_px: tick_widths(&ticks, view, tz),
        ticks,
        tick_zone: tz.name().to_owned(),
        ahead: crate::view::calendar::ahead(report, None, NEXT_RUNS),
    }
}

/// The runs of `job` that touch `drawn`, with their index in `job.runs`, by start.
fn runs_in(job: &JobReport, drawn: ViewWindow) -> Vec<(usize, &Run)> {
    let mut out: Vec<(usize, &Run)> = job
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let (s, e) = (r.start.timestamp_millis(), r.end().timestamp_millis());
            s < drawn.end && (e > drawn.start || s >= drawn.start)
        })
        .collect();
    out.sort_by_key(|(_, r)| r.start);
    out
}

/// For each job and each of its runs (parallel to `runs`), the other jobs whose runs it
/// overlaps: intervals `[start, end)` that share at least [`OVERLAP_MIN_MS`] (runs that
/// merely start in the same minute are the concurrency strip's, not outlined). One sweep
/// in start order over every run of the instance.
pub fn overlaps(runs: &[Vec<(usize, &Run)>]) -> Vec<Vec<BTreeSet<usize>>> {
    let mut out: Vec<Vec<BTreeSet<usize>>> = runs.iter().map(|r| vec![BTreeSet::new(); r.len()]).collect();
    let mut all: Vec<(i64, i64, usize, usize)> = runs
        .iter()
        .enumerate()
        .flat_map(|(j, rs)| {
            rs.iter().enumerate().map(move |(k, (_, r))| (r.start.timestamp_millis(), r.end().timestamp_millis(), j, k))
        })
        .filter(|(s, e, _, _)| e > s)
        .collect();
    all.sort_unstable();
    let mut going: Vec<(i64, usize, usize)> = Vec::new();
    for (start, end, j, k) in all {
        going.retain(|(e, _, _)| *e > start);
        for &(other_end, oj, ok) in &going {
            if oj != j && other_end.min(end) - start >= OVERLAP_MIN_MS {
                out[j][k].insert(oj);
                out[oj][ok].insert(j);
            }
        }
        going.push((end, j, k));
    }
    out
}

/// The instance's concurrency over `drawn` in buckets of `bucket` ms: the most runs going
/// at once in each, consecutive equal buckets joined; and the peak.
pub fn concurrency(runs: &[Vec<(usize, &Run)>], drawn: ViewWindow, bucket: i64) -> (Vec<Step>, u32) {
    let mut events: Vec<(i64, i32)> = runs
        .iter()
        .flatten()
        .map(|(_, r)| (r.start.timestamp_millis(), r.end().timestamp_millis()))
        .filter(|(s, e)| e > s)
        .flat_map(|(s, e)| [(s, 1), (e, -1)])
        .collect();
    // Ends before starts at the same instant: back-to-back runs do not overlap.
    events.sort_unstable();
    let bucket = bucket.max(1);
    let mut steps: Vec<Step> = Vec::new();
    let mut level: i32 = 0;
    let mut i = 0;
    let mut peak = 0;
    let mut at = drawn.start;
    while i < events.len() && events[i].0 <= at {
        level += events[i].1;
        i += 1;
    }
    while at < drawn.end {
        let next = (at + bucket).min(drawn.end);
        let mut most = level;
        while i < events.len() && events[i].0 < next {
            level += events[i].1;
            most = most.max(level);
            i += 1;
        }
        let most = most.max(0) as u32;
        peak = peak.max(most);
        if steps.last().is_none_or(|s| s.level != most) {
            steps.push(Step { start_ms: at, level: most });
        }
        at = next;
    }
    (steps, peak)
}

fn mark_of(o: Option<&Outcome>) -> Mark {
    match o {
        Some(Outcome::OnTime { .. }) => Mark::OnTime,
        Some(Outcome::Late { .. }) => Mark::Late,
        Some(Outcome::Missed { .. }) => Mark::Missed,
        Some(Outcome::SkippedRunning { .. }) => Mark::Skipped,
        Some(Outcome::Unknown) => Mark::Unknown,
        Some(Outcome::Maintenance { .. }) => Mark::Maintenance,
        Some(Outcome::Upcoming) | None => Mark::Upcoming,
    }
}

/// Why, in words, after the mark's label.
fn why(o: Option<&Outcome>, scheduler: &Scheduler, tz: Tz) -> String {
    match o {
        Some(Outcome::Late { delay_secs, .. }) => {
            format!("started {} after it was due", duration_text(*delay_secs))
        }
        Some(Outcome::Missed { cause: MissCause::AgentZombie { .. } }) => {
            format!("{} started no job (zombie)", scheduler.label())
        }
        Some(Outcome::Missed { cause: MissCause::AgentDown { restarted_at } }) => {
            format!("{} was down, restarted at {}", scheduler.down_who(), point(*restarted_at, tz).zoned())
        }
        Some(Outcome::Missed { cause: MissCause::SchedulerStopped { since } }) => {
            format!("{} is stopped, down by {} at the latest", scheduler.down_who(), point(*since, tz).zoned())
        }
        Some(Outcome::Missed { cause: MissCause::NoRun }) => "no run started".into(),
        Some(Outcome::SkippedRunning { .. }) => "the previous run was still running".into(),
        Some(Outcome::Unknown) => "older than the history kept".into(),
        Some(Outcome::Maintenance { .. }) => "inside a planned maintenance window".into(),
        _ => String::new(),
    }
}

fn run_kind(r: &Run, class: Option<&RunClass>) -> RunKind {
    match (class, &r.trigger) {
        (Some(RunClass::Expected { .. }), _) => RunKind::Scheduled,
        (Some(RunClass::Manual), _) | (None, Trigger::Manual) => RunKind::Manual,
        (Some(RunClass::Unscheduled), _) | (None, Trigger::Other(_)) => RunKind::Unscheduled,
        (None, Trigger::Schedule(_)) => RunKind::Scheduled,
    }
}

/// "A, B and 3 more"
fn jobs_text(others: &BTreeSet<usize>, names: &[&str]) -> String {
    let shown: Vec<&str> = others.iter().take(3).filter_map(|i| names.get(*i).copied()).collect();
    let more = others.len().saturating_sub(shown.len());
    let mut t = shown.join(", ");
    if more > 0 {
        t.push_str(&format!(" and {more} more"));
    }
    t
}

/// One drawn item before merging.
pub(super) struct Raw {
    kind: ItemKind,
    start: i64,
    end: i64,
    overlap: bool,
    first: TimePoint,
    why: String,
}

#[allow(clippy::too_many_arguments)]
fn row(
    job: &JobReport,
    runs: &[(usize, &Run)],
    overlaps: &[BTreeSet<usize>],
    names: &[&str],
    drawn: ViewWindow,
    merge: i64,
    tz: Tz,
    scheduler: &Scheduler,
) -> ChartRow {
    let (occ, run_items, missed, failed) = raws(job, runs, overlaps, names, drawn, tz, scheduler);
    let expected = occ.len();
    let run_count = run_items.len();
    let mut items = merge_items(occ, merge, tz);
    items.extend(merge_items(run_items, merge, tz));
    ChartRow {
        id: job.id.clone(),
        name: job.name.clone(),
        enabled: job.enabled,
        expected,
        runs: run_count,
        missed,
        failed,
        items,
    }
}

/// A job's occurrences in `drawn` and its `runs`, each with what its tooltip says after
/// its label; and how many were missed and failed.
#[allow(clippy::too_many_arguments)]
fn raws(
    job: &JobReport,
    runs: &[(usize, &Run)],
    overlaps: &[BTreeSet<usize>],
    names: &[&str],
    drawn: ViewWindow,
    tz: Tz,
    scheduler: &Scheduler,
) -> (Vec<Raw>, Vec<Raw>, usize, usize) {
    let mut occ: Vec<Raw> = Vec::new();
    let (mut missed, mut failed) = (0, 0);
    for (o, outcome) in
        job.forecast.occurrences.iter().zip(job.reconciliation.outcomes.iter().map(Some).chain(std::iter::repeat(None)))
    {
        let ms = o.at.timestamp_millis();
        if ms < drawn.start || ms >= drawn.end {
            continue;
        }
        let mark = mark_of(outcome);
        missed += usize::from(mark == Mark::Missed);
        occ.push(Raw {
            kind: ItemKind::Occurrence { mark },
            start: ms,
            end: ms,
            overlap: false,
            first: point(o.at, tz),
            why: why(outcome, scheduler, tz),
        });
    }
    let mut run_items: Vec<Raw> = Vec::new();
    for ((i, r), others) in runs.iter().zip(overlaps) {
        let kind = run_kind(r, job.reconciliation.runs.get(*i));
        failed += usize::from(matches!(r.outcome, RunOutcome::Failed | RunOutcome::Crashed));
        let mut why = format!("{} · {}", duration_text(r.duration_secs), trigger_text(&r.trigger));
        let message = r.message.trim();
        if r.outcome != RunOutcome::Succeeded && !message.is_empty() {
            let short: String = message.chars().take(200).collect();
            why.push_str(&format!("\n{short}{}", if message.chars().count() > 200 { "…" } else { "" }));
        }
        if !others.is_empty() {
            why.push_str(&format!("\nOverlaps runs of {}", jobs_text(others, names)));
        }
        run_items.push(Raw {
            kind: ItemKind::Run { outcome: r.outcome, kind },
            start: r.start.timestamp_millis(),
            end: r.end().timestamp_millis(),
            overlap: !others.is_empty(),
            first: point(r.start, tz),
            why,
        });
    }
    (occ, run_items, missed, failed)
}

/// What the details of one item say (as its tooltip would): the run (`run`) or the
/// expected run of job `job` nearest `at`, if one is within `tol` ms of it. For the
/// routine items, drawn together without tooltips of their own: what a tap on one shows.
pub fn detail(report: &InstanceReport, job: &str, at: i64, tol: i64, run: bool) -> Option<String> {
    let tz = report.tz;
    let scheduler = Scheduler::default();
    let j = report.jobs.iter().position(|x| x.id == job)?;
    let near = ViewWindow { start: at - tol, end: at + tol + 1 };
    let distance = |r: &Raw| if r.start > at { r.start - at } else { (at - r.end).max(0) };
    let nearest = |raws: Vec<Raw>| raws.into_iter().filter(|r| distance(r) <= tol).min_by_key(distance);
    let raw = if run {
        // The run, then every job's runs over its span: with whom it overlaps.
        let mine = runs_in(&report.jobs[j], near);
        let found =
            nearest(raws(&report.jobs[j], &mine, &vec![BTreeSet::new(); mine.len()], &[], near, tz, &scheduler).1)?;
        let span = ViewWindow { start: found.start, end: found.end.max(found.start + 1) };
        let runs: Vec<Vec<(usize, &Run)>> = report.jobs.iter().map(|x| runs_in(x, span)).collect();
        let overlaps = overlaps(&runs);
        let names: Vec<&str> = report.jobs.iter().map(|x| x.name.as_str()).collect();
        let all = raws(&report.jobs[j], &runs[j], &overlaps[j], &names, span, tz, &scheduler).1;
        all.into_iter().find(|r| r.start == found.start)?
    } else {
        nearest(raws(&report.jobs[j], &[], &[], &[], near, tz, &scheduler).0)?
    };
    let item = ChartItem {
        kind: raw.kind,
        start_ms: raw.start,
        end_ms: raw.end,
        count: 1,
        overlap: raw.overlap,
        first: raw.first,
        title: String::new(),
    };
    Some(title(&item, &raw.why, tz))
}

fn trigger_text(t: &Trigger) -> String {
    match t {
        Trigger::Schedule(_) => "schedule".into(),
        Trigger::Manual => "manual".into(),
        Trigger::Other(s) if s.is_empty() => "other".into(),
        Trigger::Other(s) => s.clone(),
    }
}

fn label(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Occurrence { mark } => mark.label(),
        ItemKind::Run { outcome, .. } => crate::links::outcome_label(outcome),
    }
}

/// Consecutive items (in time order) of one kind and overlap flag, closer than `merge`
/// ms (from the end of one to the start of the next; markers twice that), become one
/// stretch. Items of other
/// kinds in between do not break a stretch: each kind is merged on its own.
pub(super) fn merge_items(raw: Vec<Raw>, merge: i64, tz: Tz) -> Vec<ChartItem> {
    let mut out: Vec<ChartItem> = Vec::new();
    // The open stretch of each (kind, overlap), by index into `out`.
    let mut open: Vec<((ItemKind, bool), usize)> = Vec::new();
    let mut whys: Vec<String> = Vec::new();
    for r in raw {
        let key = (r.kind, r.overlap);
        // Markers (missed, late, skipped, unknown) are wider than ticks and bars: they
        // merge from twice as far.
        let gap = if matches!(r.kind, ItemKind::Occurrence { mark } if !matches!(mark, Mark::OnTime | Mark::Upcoming)) {
            2 * merge
        } else {
            merge
        };
        if let Some(&(_, idx)) = open.iter().find(|(k, i)| *k == key && r.start - out[*i].end_ms <= gap) {
            let item = &mut out[idx];
            item.count += 1;
            item.end_ms = item.end_ms.max(r.end);
            continue;
        }
        open.retain(|(k, _)| *k != key);
        open.push((key, out.len()));
        whys.push(r.why);
        out.push(ChartItem {
            kind: r.kind,
            start_ms: r.start,
            end_ms: r.end,
            count: 1,
            overlap: r.overlap,
            first: r.first,
            title: String::new(),
        });
    }
    for (item, why) in out.iter_mut().zip(whys) {
        if !item.kind.routine() {
            item.title = title(item, &why, tz);
        }
    }
    out
}

/// `a – b` in the instance's zone, the second date and the zone said once when shared.
fn span_text(a: &TimePoint, b: &TimePoint) -> String {
    if a.local.get(..10) == b.local.get(..10) && a.off == b.off {
        format!("{} – {}", a.local, b.zoned().get(11..).unwrap_or_default())
    } else {
        format!("{} – {}", a.zoned(), b.zoned())
    }
}

/// What an item's tooltip and details say: when (a run from its start to its end), what,
/// how long, why; a stretch its count and span.
fn title(item: &ChartItem, why: &str, tz: Tz) -> String {
    let what = label(item.kind);
    let end = point(utc(item.end_ms), tz);
    match item.kind {
        ItemKind::Run { .. } if item.count == 1 => {
            format!("{} · {what} · took {why}", span_text(&item.first, &end))
        }
        ItemKind::Occurrence { .. } if item.count == 1 => {
            let sep = if why.is_empty() || why.starts_with('\n') { "" } else { ": " };
            format!("{} · {what}{sep}{why}", item.first.zoned())
        }
        _ => {
            let first_line = why.lines().next().filter(|_| matches!(item.kind, ItemKind::Occurrence { .. }));
            let unit = if matches!(item.kind, ItemKind::Occurrence { .. }) { "expected runs" } else { "runs" };
            let mut t = format!("{} {unit} {}, {}", item.count, what.to_lowercase(), span_text(&item.first, &end));
            if let Some(w) = first_line.filter(|w| !w.is_empty()) {
                t.push_str(&format!(" ({w})"));
            }
            if item.overlap {
                t.push_str("; they overlap runs of other jobs");
            }
            t
        }
    }
}

/// The step of the axis' ticks for a view of `span` ms, in minutes: about eight in view.
pub fn tick_step_minutes(span: i64) -> i64 {
    const STEPS: [i64; 12] = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080];
    STEPS.into_iter().find(|s| span / (s * MINUTE_MS) <= 8).unwrap_or(10080)
}

/// Ticks over `drawn` for a view of `span` ms, in the zone `tz`: at local times that are
/// multiples of the step (local midnights are major and labelled with the date; the others
/// with the time); steps of days fall on local midnights.
pub fn ticks(drawn: ViewWindow, span: i64, tz: Tz) -> Vec<Tick> {
    let step = tick_step_minutes(span);
    let mut out = Vec::new();
    let window = Window::new(utc(drawn.start), utc(drawn.end));
    if window.is_empty() {
        return out;
    }
    let mut date = window.start.with_timezone(&tz).date_naive();
    let last = window.end.with_timezone(&tz).date_naive();
    let per_day: i64 = if step < 1440 { 1440 / step } else { 1 };
    let day_step = (step / 1440).max(1);
    let mut guard = 0;
    while date <= last && guard < 5000 {
        guard += 1;
        let aligned = step < 1440 || chrono::Datelike::num_days_from_ce(&date) as i64 % day_step == 0;
        if aligned {
            for k in 0..per_day {
                let minutes = k * step.min(1440);
                let time = NaiveTime::from_num_seconds_from_midnight_opt((minutes * 60) as u32, 0).unwrap_or_default();
                let Some(t) = tz.from_local_datetime(&date.and_time(time)).earliest() else { continue };
                let t = t.with_timezone(&Utc);
                if !window.contains(t) {
                    continue;
                }
                let major = minutes == 0;
                let local = t.with_timezone(&tz);
                let label =
                    if major { local.format("%a %d %b").to_string() } else { local.format("%H:%M").to_string() };
                out.push(Tick { ms: t.timestamp_millis(), label, major });
            }
        }
        date = match date.succ_opt() {
            Some(d) => d,
            None => break,
        };
    }
    out
}

/// At least the width of `s` in CSS pixels at `font_px`: DejaVu Sans' advances (wider
/// than most system fonts) rounded up, bold an eighth wider.
pub fn text_px(s: &str, font_px: f64, bold: bool) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            ' ' | 'i' | 'j' | 'l' | 'I' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 0.36,
            '(' | ')' | '[' | ']' | '-' | 'f' | 't' | 'r' | '/' => 0.45,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '…' => 1.0,
            '0'..='9' => 0.66,
            'a'..='z' => 0.64,
            'A'..='Z' | '_' => 0.8,
            _ => 1.0,
        })
        .sum();
    em * font_px * if bold { 1.125 } else { 1.0 }
}

/// A tick label's box at 11 px (its padding and border) and the room after it.
fn tick_label_px(t: &Tick) -> f64 {
    text_px(&t.label, 11.0, t.major) + 7.0 + 4.0
}

/// For each tick of an axis showing `span` ms, the axis width (CSS pixels) from which its
/// label is shown. Ticks are ranked by how round they are (a time's longest step of the
/// axis dividing it; a local midnight above every time, midnights by their day number);
/// those in view first, each needs the width where it clears every rounder label shown
/// there. So at any width the labels shown never overlap, a label shown stays shown wider,
/// and the roundest in view win.
pub fn tick_widths(ticks: &[Tick], view: ViewWindow, tz: Tz) -> Vec<u32> {
    let span = view.span();
    const STEPS: [i64; 10] = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];
    let step = tick_step_minutes(span).min(1440);
    // The steps each dividing the next, from the axis' own.
    let mut chain = vec![step];
    for s in STEPS.into_iter().filter(|s| *s > step && 1440 % s == 0) {
        if chain.last().is_some_and(|l| s % l == 0) {
            chain.push(s);
        }
    }
    let rank: Vec<i64> = ticks
        .iter()
        .map(|t| {
            let local = utc(t.ms).with_timezone(&tz);
            let minute = i64::from(chrono::Timelike::hour(&local) * 60 + chrono::Timelike::minute(&local));
            if minute == 0 {
                let day = i64::from(chrono::Datelike::num_days_from_ce(&local.date_naive()));
                1440 * (0..6).rev().map(|k| 1 << k).find(|d| day % d == 0).unwrap_or(1)
            } else {
                chain.iter().rev().copied().find(|s| minute % s == 0).unwrap_or(1)
            }
        })
        .collect();
    // Those in view first (those either side show once panned to, some perhaps only
    // once the chart is drawn for there), then in order of roundness and time: each tick
    // needs the width at which it clears every one before it that would be shown beside
    // it (one already shown at a width where the two would meet).
    let mut order: Vec<usize> = (0..ticks.len()).collect();
    let outside = |i: usize| !(view.start..view.end).contains(&ticks[i].ms);
    order.sort_by_key(|i| (outside(*i), std::cmp::Reverse(rank[*i]), ticks[*i].ms));
    let mut need = vec![f64::INFINITY; ticks.len()];
    for (k, &i) in order.iter().enumerate() {
        let mut n = tick_label_px(&ticks[i]);
        for &j in &order[..k] {
            let (left, right) = if ticks[j].ms < ticks[i].ms { (j, i) } else { (i, j) };
            let gap = (ticks[right].ms - ticks[left].ms).max(1) as f64;
            let meet = tick_label_px(&ticks[left]) * span as f64 / gap;
            if need[j] < meet {
                n = n.max(meet);
            }
        }
        need[i] = n;
    }
    need.into_iter().map(|n| n.ceil().min(1e9) as u32).collect()
}

/// `name` cut to fit `max_px` at `font_px`: whole when it fits, else its head and its
/// tail around an ellipsis, the tail given `tail` of the room (separators next to the
/// ellipsis dropped).
pub fn middle_cut(name: &str, max_px: f64, font_px: f64, tail: f64) -> String {
    if text_px(name, font_px, false) <= max_px {
        return name.to_owned();
    }
    let chars: Vec<char> = name.chars().collect();
    let w = |c: &char| text_px(c.encode_utf8(&mut [0; 4]), font_px, false);
    let sep = |c: &char| [' ', '-', '_', ':', '.', ',', '/'].contains(c);
    let room = max_px - text_px("…", font_px, false);
    // The tail: whole words from the end when the last fits in its share (a word cut
    // only when it does not), separators before it dropped.
    let mut t = chars.len();
    let mut used = 0.0;
    while t > 0 && used + w(&chars[t - 1]) <= room * tail {
        used += w(&chars[t - 1]);
        t -= 1;
    }
    let word_at = |i: usize| i > 0 && i < chars.len() && sep(&chars[i - 1]) && !sep(&chars[i]);
    if !word_at(t)
        && let Some(start) = (t + 1..chars.len()).find(|i| word_at(*i))
    {
        t = start;
    }
    while t < chars.len() && sep(&chars[t]) {
        t += 1;
    }
    let mut used: f64 = chars[t..].iter().map(w).sum();
    let mut h = 0;
    while h < t && used + w(&chars[h]) <= room {
        used += w(&chars[h]);
        h += 1;
    }
    while h > 0 && sep(&chars[h - 1]) {
        h -= 1;
    }
    let head: String = chars[..h].iter().collect();
    let tail: String = chars[t..].iter().collect();
    format!("{head}…{tail}")
}

/// Whether `label` (pieces of a name around ellipses) could be a cut of `name`.
pub fn fits(label: &str, name: &str) -> bool {
    let parts: Vec<&str> = label.split('…').collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else { return false };
    if parts.len() == 1 {
        return label == name;
    }
    if first.len() + last.len() > name.len() || !name.starts_with(first) || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(k) => rest = &rest[k + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Labels for `names` that fit `max_px` at `font_px`, each one a cut of its own name that
/// could not be a cut of any other (so no two different names show the same label): a
/// middle cut, the ellipsis moved if need be, else the part from the word where the name
/// parts from those it could be taken for ("…SYSTEM…FULL").
pub fn distinct_labels(names: &[&str], max_px: f64, font_px: f64) -> Vec<String> {
    const SHARES: [f64; 5] = [0.5, 0.35, 0.65, 0.2, 0.8];
    names
        .iter()
        .map(|name| {
            let others: Vec<&str> = names.iter().copied().filter(|o| o != name).collect();
            let alone = |c: &String| !others.iter().any(|o| fits(c, o));
            let cut = middle_cut(name, max_px, font_px, 0.5);
            if alone(&cut) {
                return cut;
            }
            if let Some(c) = SHARES[1..].iter().map(|s| middle_cut(name, max_px, font_px, *s)).find(|c| alone(c)) {
                return c;
            }
            // Where the name parts from the names its cut could be: from that word on.
            let parted = others
                .iter()
                .filter(|o| fits(&cut, o))
                .map(|o| {
                    name.char_indices().zip(o.chars()).find(|((_, a), b)| a != b).map_or(name.len(), |((i, _), _)| i)
                })
                .max()
                .unwrap_or(0);
            let from = name[..parted].rfind([' ', '-', '_', '.', ':']).map_or(0, |i| i + 1);
            let rest = &name[from..];
            // That part alone, then after the name's first letters ("Data…USER…ASES" when
            // "…USER…ASES" could be another's too).
            let heads = [0, 4, 2, 1].map(|k| name.chars().take(k).collect::<String>());
            heads
                .iter()
                .flat_map(|head| {
                    let room = max_px - text_px(&format!("{head}…"), font_px, false);
                    SHARES.iter().map(move |s| format!("{head}…{}", middle_cut(rest, room, font_px, *s)))
                })
                .find(|c| from > 0 && alone(c))
                .unwrap_or(cut)
        })
        .collect()
}

/// The most instances whose timeline analysis is kept.
const TIMELINE_CACHE: usize = 64;

/// The full analysis the timeline draws from, once per read: every job over the read's
/// 30 days and the [`FUTURE_MS`] after its now.
type Cache = Mutex<Vec<(Weak<crate::view::Snapshot>, Arc<InstanceReport>)>>;

fn analysis(snapshot: &Arc<crate::view::Snapshot>) -> Arc<InstanceReport> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|(w, _)| w.strong_count() > 0);
    let me = Arc::downgrade(snapshot);
    if let Some((_, r)) = cache.iter().find(|(w, _)| w.ptr_eq(&me)) {
        return r.clone();
    }
    let s = snapshot.as_ref();
    let end = s.now + chrono::Duration::milliseconds(FUTURE_MS);
    let window = Window::new(s.covers.start, end);
    let report = Arc::new(crate::engine::fleet::analyze(
        &s.input,
        window,
        s.now,
        &crate::engine::reconcile::Settings::default(),
    ));
    cache.push((me, report.clone()));
    // Entries go when their read is replaced (above); the cap only bounds a fleet of many
    // instances whose timelines are all visited (it was 8, which re-analysed every visit
    // once more than 8 instances were browsed).
    if cache.len() > TIMELINE_CACHE {
        cache.remove(0);
    }
    report
}

/// The report the timeline draws from for `instance` (`None`: the first configured):
/// the full analysis of its last read, or where the backend keeps no read, its 30-day
/// report (no forecast ahead of now then).
pub async fn source(
    backend: &dyn crate::view::Backend,
    instance: Option<&str>,
) -> Result<Arc<InstanceReport>, ApiError> {
    let name = match instance.filter(|i| !i.is_empty()) {
        Some(n) => n.to_owned(),
        None => match backend.instances().await.into_iter().next() {
            Some(i) => i.name,
            None => return Err(ApiError::NotFound { what: "instance".into() }),
        },
    };
    match backend.snapshot(&name).await {
        Ok(s) => Ok(analysis(&s)),
        Err(_) => backend.report(Some(&name), 30).await.map_err(ApiError::from),
    }
}

/// The whole page's data: the view parsed from the URL (`from`, `to`) and laid out.
/// `decorate`: fill the page head (scheduler, incidents, staleness) too.
pub async fn load(
    backend: &dyn crate::view::Backend,
    instance: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    decorate: bool,
) -> Result<InstanceTimelineData, ApiError> {
    let report = source(backend, instance).await?;
    let bounds = bounds_of(&report);
    let view = parse_view(from, to, report.now.timestamp_millis(), bounds)?;
    let days = crate::WINDOW_DAYS.into_iter().find(|d| i64::from(*d) * DAY_MS >= view.span()).unwrap_or(30);
    let mut head = crate::view::head(&report, days);
    if decorate {
        crate::view::decorate(backend, &mut head).await;
    } else {
        // Only the scheduler's words: one look at the fleet.
        let scheduler = backend.instances().await.into_iter().find(|i| i.name == report.name).map(|i| i.scheduler);
        head.scheduler = scheduler.unwrap_or_default();
    }
    let scheduler = head.scheduler.clone();
    Ok(layout(&report, view, &scheduler, head))
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::Scheduler;
    use crate::engine::Zone;
    use crate::engine::fleet::{InstanceInput, JobInput, JobSchedule, analyze};
    use crate::engine::reconcile::{Settings, Trigger};
    use crate::engine::{Run, Window};
    use chrono::{DateTime, Duration, Utc};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn run(start: &str, secs: i64, outcome: RunOutcome) -> Run {
        Run {
            start: t(start),
            duration_secs: secs,
            outcome,
            trigger: Trigger::Schedule(None),
            message: String::new(),
            steps: vec![],
        }
    }

    fn schedule(json: &str) -> JobSchedule {
        let row: crate::engine::agent::AgentSchedule = serde_json::from_str(json).unwrap();
        JobSchedule { id: 1, name: "s".into(), enabled: true, schedule: crate::engine::Schedule::Agent(row) }
    }

    fn job(id: &str, runs: Vec<Run>, schedules: Vec<JobSchedule>) -> JobInput {
        JobInput {
            id: id.into(),
            name: format!("Job {id}"),
            category: String::new(),
            owner: None,
            enabled: true,
            command: None,
            schedules,
            runs,
            history_horizon: None,
            source_horizon: None,
            unobserved: vec![],
            diagnostics: vec![],
            earlier: Vec::new(),
            modified: None,
        }
    }

    fn report(jobs: Vec<JobInput>, now: &str) -> crate::engine::fleet::InstanceReport {
        let input = InstanceInput {
            name: "I".into(),
            tz: Zone::UTC,
            jobs,
            agent_starts: vec![t("2025-11-21T03:00:00Z")],
            maintenance: Vec::new(),
            scheduler_stopped: false,
        };
        let now = t(now);
        analyze(&input, Window::new(now - Duration::days(30), now + Duration::days(7)), now, &Settings::default())
    }

    fn head(r: &crate::engine::fleet::InstanceReport) -> InstanceHead {
        crate::view::head(r, 1)
    }

    fn view(from: &str, to: &str) -> ViewWindow {
        ViewWindow { start: t(from).timestamp_millis(), end: t(to).timestamp_millis() }
    }

    #[test]
    fn a_row_per_job_with_its_occurrences_and_runs() {
        // Daily at 02:00; ran on time on the 21st, missed on the 22nd; the 23rd is ahead.
        let daily =
            schedule(r#"{"freq_type":4,"freq_interval":1,"active_start_date":20250101,"active_start_time":20000}"#);
        let r = report(
            vec![
                job(
                    "a",
                    vec![
                        run("2025-11-20T02:00:00Z", 60, RunOutcome::Succeeded),
                        run("2025-11-21T02:00:05Z", 600, RunOutcome::Succeeded),
                    ],
                    vec![daily.clone()],
                ),
                job("b", vec![run("2025-11-21T02:05:00Z", 60, RunOutcome::Failed)], vec![]),
            ],
            "2025-11-22T12:00:00Z",
        );
        let d = layout(&r, view("2025-11-21T00:00:00Z", "2025-11-23T12:00:00Z"), &Scheduler::SqlAgent, head(&r));
        assert_eq!(d.rows.len(), 2);
        let a = &d.rows[0];
        assert_eq!((a.name.as_str(), a.expected, a.runs, a.missed, a.failed), ("Job a", 5, 2, 1, 0));
        let marks: Vec<Mark> = a
            .items
            .iter()
            .filter_map(|i| match i.kind {
                ItemKind::Occurrence { mark } => Some(mark),
                _ => None,
            })
            .collect();
        // Drawn: the view and half a view either side, from the 19th 18:00 to the 24th 18:00.
        assert_eq!(marks, [Mark::OnTime, Mark::OnTime, Mark::Missed, Mark::Upcoming, Mark::Upcoming]);
        let missed = a.items.iter().find(|i| i.kind == ItemKind::Occurrence { mark: Mark::Missed }).unwrap();
        assert!(missed.title.contains("Missed: no run started"), "{}", missed.title);
        assert_eq!(missed.first.local, "2025-11-22 02:00:00");
        let b = &d.rows[1];
        assert_eq!(b.failed, 1);
        let failed = &b.items[0];
        assert_eq!(failed.kind, ItemKind::Run { outcome: RunOutcome::Failed, kind: RunKind::Unscheduled });
        // The two runs share 02:05–02:06: each is flagged, and the tooltip names the other job.
        assert!(failed.overlap && failed.title.contains("Overlaps runs of Job a"), "{}", failed.title);
        assert_eq!(d.overlapping, 2);
        assert_eq!(d.peak, 2);
        assert_eq!(d.restarts.len(), 1);
        assert_eq!(d.now_ms, t("2025-11-22T12:00:00Z").timestamp_millis());
    }

    /// What a tap on a routine item shows: the run under it from start to end, its outcome,
    /// how long, with whom it overlaps; an expected run by its instant; nothing far from both.
    #[test]
    fn a_tap_on_a_routine_item_finds_its_run_or_expected_run() {
        let daily =
            schedule(r#"{"freq_type":4,"freq_interval":1,"active_start_date":20250101,"active_start_time":20000}"#);
        let r = report(
            vec![
                job("a", vec![run("2025-11-21T02:00:05Z", 600, RunOutcome::Succeeded)], vec![daily]),
                job("b", vec![run("2025-11-21T02:05:00Z", 60, RunOutcome::Failed)], vec![]),
            ],
            "2025-11-22T12:00:00Z",
        );
        let ms = |s: &str| t(s).timestamp_millis();
        let text = detail(&r, "a", ms("2025-11-21T02:03:00Z"), 60_000, true).unwrap();
        assert!(text.starts_with("2025-11-21 02:00:05 – 02:10:05 UTC · Succeeded · took 10"), "{text}");
        assert!(text.ends_with("Overlaps runs of Job b"), "{text}");
        // Just after its end, within the tolerance: the same run.
        assert_eq!(detail(&r, "a", ms("2025-11-21T02:10:30Z"), 60_000, true), Some(text));
        let upcoming = detail(&r, "a", ms("2025-11-23T02:00:20Z"), 60_000, false).unwrap();
        assert!(upcoming.starts_with("2025-11-23 02:00:00 UTC · "), "{upcoming}");
        assert_eq!(detail(&r, "a", ms("2025-11-21T12:00:00Z"), 60_000, true), None);
        assert_eq!(detail(&r, "nobody", ms("2025-11-21T02:03:00Z"), 60_000, true), None);
    }

    #[test]
    fn back_to_back_and_same_job_runs_do_not_overlap() {
        let r = report(
            vec![
                job(
                    "a",
                    vec![
                        run("2025-11-22T01:00:00Z", 3600, RunOutcome::Succeeded),
                        run("2025-11-22T01:30:00Z", 60, RunOutcome::Succeeded),
                    ],
                    vec![],
                ),
                job(
                    "b",
                    vec![
                        run("2025-11-22T02:00:00Z", 600, RunOutcome::Succeeded),
                        run("2025-11-22T03:00:00Z", 0, RunOutcome::Succeeded),
                    ],
                    vec![],
                ),
            ],
            "2025-11-22T12:00:00Z",
        );
        let d = layout(&r, view("2025-11-22T00:00:00Z", "2025-11-22T06:00:00Z"), &Scheduler::SqlAgent, head(&r));
        assert_eq!(d.overlapping, 0, "{:?}", d.rows);
        assert!(d.rows.iter().flat_map(|r| &r.items).all(|i| !i.overlap));
        assert_eq!(d.peak, 2, "a's two runs overlap each other (one job: not an overlap between jobs)");
        // Sharing 30 seconds: the strip counts them, no outline.
        let r = report(
            vec![
                job("a", vec![run("2025-11-22T01:00:00Z", 60, RunOutcome::Succeeded)], vec![]),
                job("b", vec![run("2025-11-22T01:00:30Z", 60, RunOutcome::Succeeded)], vec![]),
            ],
            "2025-11-22T12:00:00Z",
        );
        let d = layout(&r, view("2025-11-22T00:00:00Z", "2025-11-22T06:00:00Z"), &Scheduler::SqlAgent, head(&r));
        assert_eq!((d.overlapping, d.peak), (0, 2));
    }

    #[test]
    fn frequent_jobs_are_bands_at_wide_zooms_and_ticks_up_close() {
        // Every 5 minutes, each run 30 s.
        let every5 = schedule(
            r#"{"freq_type":4,"freq_interval":1,"freq_subday_type":4,"freq_subday_interval":5,"active_start_date":20250101}"#,
        );
        let now = t("2025-11-22T12:00:00Z");
        let runs: Vec<Run> = (0..(7 * 288))
            .map(|k| {
                let start = now - Duration::days(7) + Duration::minutes(5 * k);
                Run {
                    start,
                    duration_secs: 30,
                    outcome: RunOutcome::Succeeded,
                    trigger: Trigger::Schedule(None),
                    message: String::new(),
                    steps: vec![],
                }
            })
            .collect();
        let r = report(vec![job("f", runs, vec![every5])], "2025-11-22T12:00:00Z");
        let week = layout(&r, view("2025-11-15T12:00:00Z", "2025-11-22T12:00:00Z"), &Scheduler::SqlAgent, head(&r));
        let row = &week.rows[0];
        assert!(row.expected > 2000 && row.runs > 2000);
        assert!(row.items.len() < 12, "a week of 5-minute runs is a few stretches: {}", row.items.len());
        assert!(row.items.iter().any(|i| i.count > 1000));
        let hour = layout(&r, view("2025-11-21T12:00:00Z", "2025-11-21T13:00:00Z"), &Scheduler::SqlAgent, head(&r));
        let row = &hour.rows[0];
        assert!(row.items.iter().all(|i| i.count == 1), "up close each run is its own");
        assert_eq!(row.runs, 24, "an hour and half an hour either side");
    }

    #[test]
    fn missed_runs_in_a_zombie_span_merge_into_one_titled_stretch() {
        let hourly = schedule(
            r#"{"freq_type":4,"freq_interval":1,"freq_subday_type":8,"freq_subday_interval":1,"active_start_date":20250101}"#,
        );
        let now = t("2025-11-22T12:00:00Z");
        // Ran hourly except between the 12th and the 14th.
        let runs: Vec<Run> = (0..(30 * 24))
            .map(|k| now - Duration::days(30) + Duration::hours(k))
            .filter(|s| *s < t("2025-11-12T00:00:00Z") || *s >= t("2025-11-14T00:00:00Z"))
            .map(|start| Run {
                start,
                duration_secs: 60,
                outcome: RunOutcome::Succeeded,
                trigger: Trigger::Schedule(None),
                message: String::new(),
                steps: vec![],
            })
            .collect();
        let jobs: Vec<JobInput> =
            (0..12).map(|i| job(&format!("{i:02}"), runs.clone(), vec![hourly.clone()])).collect();
        let r = report(jobs, "2025-11-22T12:00:00Z");
        assert!(!r.context.zombie_periods.is_empty(), "twelve jobs starting nothing for two days is a zombie span");
        let d = layout(&r, view("2025-11-10T00:00:00Z", "2025-11-17T00:00:00Z"), &Scheduler::SqlAgent, head(&r));
        assert_eq!(d.zombies.len(), 1);
        assert!(d.zombies[0].title.starts_with("Zombie: SQL Agent started no job from"), "{}", d.zombies[0].title);
        let missed: Vec<&ChartItem> =
            d.rows[0].items.iter().filter(|i| i.kind == ItemKind::Occurrence { mark: Mark::Missed }).collect();
        assert_eq!(missed.len(), 1, "one stretch of misses");
        assert_eq!(missed[0].count, 48);
        assert!(missed[0].title.starts_with("48 expected runs missed,"), "{}", missed[0].title);
        assert!(missed[0].title.contains("started no job (zombie)"), "{}", missed[0].title);
        // The concurrency strip is empty in the span.
        let z = (d.zombies[0].start.ms, d.zombies[0].end.ms);
        let mid = (z.0 + z.1) / 2;
        assert_eq!(d.concurrency.iter().rev().find(|s| s.start_ms <= mid).map(|s| s.level), Some(0));
        assert_eq!(d.peak, 12);
    }

    #[test]
    fn ticks_follow_the_zoom_in_the_instances_zone() {
        let tz = Zone::from_name("America/New_York").unwrap();
        let hour = ViewWindow {
            start: t("2025-11-22T12:00:00Z").timestamp_millis(),
            end: t("2025-11-22T13:00:00Z").timestamp_millis(),
        };
        let ticks = super::ticks(hour, hour.span(), tz);
        assert_eq!(
            ticks.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(),
            ["07:00", "07:10", "07:20", "07:30", "07:40", "07:50"]
        );
        let week = ViewWindow {
            start: t("2025-11-15T05:00:00Z").timestamp_millis(),
            end: t("2025-11-22T05:00:00Z").timestamp_millis(),
        };
        let ticks = super::ticks(week, week.span(), tz);
        assert!(ticks.iter().all(|t| t.major), "a week: one tick a day, at local midnight");
        assert_eq!(ticks.len(), 7);
        assert_eq!(ticks[0].label, "Sat 15 Nov");
        // Across the fall-back night, the 3-hourly ticks keep to the wall clock.
        let fold = ViewWindow {
            start: t("2025-11-02T04:00:00Z").timestamp_millis(),
            end: t("2025-11-03T04:00:00Z").timestamp_millis(),
        };
        let labels: Vec<String> = super::ticks(fold, fold.span(), tz).into_iter().map(|t| t.label).collect();
        assert_eq!(labels[..3], ["Sun 02 Nov", "03:00", "06:00"]);
    }
}

#[cfg(test)]
mod label_tests {
    use super::*;
    use crate::engine::Zone;

    const T: i64 = 1_795_323_600_000; // 2026-11-22T05:00:00Z, midnight in New York

    /// The ticks shown on an axis `width` px wide (each label's box and the room after it,
    /// from its left edge): pairwise apart.
    fn shown(ticks: &[Tick], need: &[u32], span: i64, width: f64) -> Vec<(f64, f64, String)> {
        ticks
            .iter()
            .zip(need)
            .filter(|(_, n)| f64::from(**n) <= width)
            .map(|(t, _)| {
                let x = (t.ms - ticks[0].ms) as f64 / span as f64 * width;
                (x, x + text_px(&t.label, 11.0, t.major) + 7.0, t.label.clone())
            })
            .collect()
    }

    #[test]
    fn tick_labels_never_overlap_at_any_width_and_the_roundest_stay() {
        let tz = Zone::from_name("America/New_York").unwrap();
        for span in [HOUR_MS, 6 * HOUR_MS, 30 * HOUR_MS, 3 * DAY_MS, 7 * DAY_MS, 30 * DAY_MS] {
            let view = ViewWindow { start: T - span / 3, end: T - span / 3 + span };
            let ticks = ticks(view.drawn(Bounds { min: 0, max: i64::MAX / 2 }), span, tz);
            let need = tick_widths(&ticks, view, tz);
            assert_eq!(need.len(), ticks.len());
            for width in (200..=2000).step_by(40).map(f64::from) {
                let s = shown(&ticks, &need, span, width);
                for w in s.windows(2) {
                    assert!(w[0].1 <= w[1].0, "{span} ms at {width} px: {:?} runs into {:?}", w[0], w[1]);
                }
                // The labels shown at a width stay shown wider.
                let wider = shown(&ticks, &need, span, width + 40.0);
                assert!(s.iter().all(|a| wider.iter().any(|b| b.2 == a.2 && b.0 >= a.0)), "{span} at {width}");
            }
            // The narrowest phone's axis (about 200 px) shows one in view at least, a phone's
            // (about 260) two, a desk's (about 1000) more.
            let in_view = |width: f64| {
                let x = (view.start - ticks[0].ms) as f64 / span as f64 * width;
                shown(&ticks, &need, span, width).iter().filter(|s| s.0 >= x && s.0 < x + width).count()
            };
            let (narrow, phone, desk) = (in_view(200.0), in_view(260.0), in_view(1000.0));
            assert!(
                narrow >= 1 && phone >= 2 && desk >= phone,
                "{span}: {narrow}, {phone} on phones, {desk} on a desk"
            );
        }
        // 30 hours on a phone: the midnights, noon and 18:00 (the 06:00 after a date drops out).
        let span = 30 * HOUR_MS;
        let view = ViewWindow { start: T - DAY_MS, end: T + 6 * HOUR_MS };
        let ticks = ticks(view, span, tz);
        let need = tick_widths(&ticks, view, tz);
        let labels: Vec<String> = shown(&ticks, &need, span, 270.0).into_iter().map(|s| s.2).collect();
        assert_eq!(labels, ["Sat 21 Nov", "12:00", "18:00", "Sun 22 Nov"]);
        let labels: Vec<String> = shown(&ticks, &need, span, 1000.0).into_iter().map(|s| s.2).collect();
        assert_eq!(labels, ["Sat 21 Nov", "06:00", "12:00", "18:00", "Sun 22 Nov"]);
        // The last 30 hours (01:00 to 07:00 the next day) on a 320 px phone: the date beyond the
        // left edge gives way to those in view.
        let view = ViewWindow { start: T + 7 * HOUR_MS - span, end: T + 7 * HOUR_MS };
        let drawn = view.drawn(Bounds { min: 0, max: i64::MAX / 2 });
        let ticks = super::ticks(drawn, span, tz);
        let need = tick_widths(&ticks, view, tz);
        let labels: Vec<&str> = ticks
            .iter()
            .zip(&need)
            .filter(|(t, n)| **n <= 198 && (view.start..view.end).contains(&t.ms))
            .map(|(t, _)| t.label.as_str())
            .collect();
        assert_eq!(labels, ["12:00", "Sun 22 Nov"]);
    }

    #[test]
    fn names_are_cut_in_the_middle_to_fit() {
        let name = "DatabaseBackup - USER_DATABASES - FULL";
        assert_eq!(middle_cut("CommandLog Cleanup", 204.0, 12.0, 0.5), "CommandLog Cleanup", "it fits: whole");
        let cut = middle_cut(name, 88.0, 11.0, 0.5);
        assert!(cut.starts_with("Data") && cut.ends_with("…FULL"), "{cut}");
        assert!(text_px(&cut, 11.0, false) <= 88.0, "{cut}");
        assert!(fits(&cut, name) && !fits(&cut, "DatabaseBackup - USER_DATABASES - LOG"));
        // Separators next to the ellipsis go; a cut is a cut of its own name.
        assert_eq!(middle_cut("ab - cd - ef - gh - ij - kl", 60.0, 11.0, 0.5), "ab - c…kl");
        // The tail keeps whole words when the last one fits: a phone's column.
        assert_eq!(middle_cut(name, 96.0, 11.0, 0.5), "Databas…FULL");
        assert_eq!(middle_cut("Report - Fortnightly Payroll Reconciliation", 96.0, 11.0, 0.5), "Report…iliation");
        assert!(fits("…SYSTEM…FULL", "DatabaseBackup - SYSTEM_DATABASES - FULL"));
        assert!(!fits("…SYSTEM…FULL", "DatabaseBackup - USER_DATABASES - FULL"));
        assert!(!fits("Data…FULL", "Data"), "head and tail may not share characters");
    }

    #[test]
    fn different_jobs_never_show_the_same_label() {
        let names = [
            "DatabaseBackup - SYSTEM_DATABASES - FULL",
            "DatabaseBackup - USER_DATABASES - DIFF",
            "DatabaseBackup - USER_DATABASES - FULL",
            "DatabaseBackup - USER_DATABASES - LOG",
            "DatabaseIntegrityCheck - SYSTEM_DATABASES",
            "DatabaseIntegrityCheck - USER_DATABASES",
            "Report - Month-End Close",
            "ETL - Month-End GL Extract",
            "IndexOptimize - USER_DATABASES",
            "Nightly load 1",
            "Nightly load 2",
            "A very long job name that only differs right here: X and then goes on and on",
            "A very long job name that only differs right here: Y and then goes on and on",
        ];
        for (px, font) in [(96.0, 11.0), (88.0, 11.0), (204.0, 12.0), (70.0, 11.0)] {
            let labels = distinct_labels(&names, px, font);
            for (i, (label, name)) in labels.iter().zip(names).enumerate() {
                assert!(fits(label, name), "{label:?} is a cut of {name:?}");
                assert!(text_px(label, font, false) <= px + 0.01, "{label:?} fits {px} px");
                for (j, other) in names.iter().enumerate() {
                    assert!(i == j || !fits(label, other), "{label:?} could be {other:?} too ({px} px)");
                }
            }
            let mut unique = labels.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), labels.len(), "{labels:?}");
        }
        let phone = distinct_labels(&names, 96.0, 11.0);
        assert!(phone[2].contains("USER") && phone[0].contains("SYST"), "{phone:?}");
        assert_eq!(phone[9], "Nightly load 1", "short names stay whole");
    }
}
