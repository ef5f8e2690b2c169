//! Risks ahead: what a job's schedules *will* do over a horizon that a DBA would want to know
//! before it happens — a due time in a DST gap or fold, a schedule that never runs or ends, runs
//! that take longer than the gap to the next, two jobs that will collide.
//!
//! Pure like the rest: the caller passes `now` and the horizon ([`Window`]), each job's
//! schedules as the source stores them and its durations ([`DurationStats`] of its own runs).
//! The forecast is the dialects' own ([`crate::forecast`]), so what a risk says a scheduler does
//! on a DST night is what the forecast does.
//!
//! # How each kind is found
//!
//! - **`dst_gap` / `dst_fold`**: the zone's offset changes within the horizon ([`changes`]) in
//!   the schedule's zone (the instance's, or a MySQL event's own `TIME_ZONE`); a zone without
//!   DST (pg_cron on GMT, the default) has none. For a gap, the due times the schedule asks for
//!   inside the skipped wall-clock hour (its forecast on the same wall clock without DST, for
//!   the dialects that keep wall-clock times) are set against the forecast's own occurrences
//!   marked [`Dst::Gap`]: run at the gap's end, at a shifted time (pgAgent), once for several,
//!   or skipped. For a fold, the forecast's occurrences in the repeated hour are counted per
//!   pass: once in the first (SQL Server Agent, pg_cron, events), once in the second (pgAgent),
//!   or in both (a fixed cadence of absolute seconds: the `job` table, Primentra's interval,
//!   pg_cron's `'N seconds'`). Every sentence is made from those instants.
//! - **`never_runs`**: an enabled job with no enabled schedule, or whose every schedule has no
//!   occurrence in the horizon and none after it (`next_after` from the horizon's start, as far
//!   as each dialect searches), with the forecast's own reason where it gives one.
//! - **`schedule_ends`**: a schedule with occurrences in the horizon and none after its last.
//! - **`overlaps_itself`**: consecutive due times of the job closer than its p95; the sentence
//!   says what the scheduler then does ([`dialect::overlap_policy`]).
//! - **`collides`**: one sweep over the runs (at p50) of the jobs that run at least
//!   [`COLLIDE_MIN_SECS`] and are not background (median gap under
//!   [`replay::DEFAULT_BAND_GAP_SECS`], as the simulator's replay treats them): one risk per
//!   pair, on the first job by name, `with` the other, `at` the overlaps' starts.
//!
//! Every list of instants is capped at [`MAX_AT`]; sentences give the full count. The cost is
//! the forecasts of the horizon, a merge of each job's schedules and one sweep for collisions:
//! a job every minute over 90 days (129,600 due times) took about 40 ms in a release build
//! (the forecast itself 10–30 ms of it; `cargo bench -p sundial-engine --bench engine -- risks`).
//!
//! Sentences are made in one place, [`words`].
//!
//! One description of each kind: [`KINDS`] (its key, words and severity); views, the API and
//! the stylesheet read it.
use crate::dialect::{self, Clock, Overlap};
use crate::durations::DurationStats;
use crate::fleet::JobSchedule;
use crate::{Dst, Forecast, Occurrence, Schedule, Severity, Window, Zone, order, replay};
use chrono::{DateTime, NaiveDateTime, Offset, TimeDelta, TimeZone, Utc};
use serde::{Deserialize, Serialize};

/// What will happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RiskKind {
    /// A due time inside a skipped hour (spring forward).
    DstGap,
    /// A due time inside a repeated hour (fall back).
    DstFold,
    /// An enabled job that no schedule will ever start.
    NeverRuns,
    /// A schedule that stops within the horizon (its last run).
    ScheduleEnds,
    /// Runs that take longer (p95) than the gap to the next due time.
    OverlapsItself,
    /// Two jobs of one instance whose runs will overlap (p50), each running a while.
    Collides,
}

/// One kind's description: the word of the API, URLs and CSS classes, and its words for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiskKindInfo {
    pub kind: RiskKind,
    /// `dst_gap`, `dst_fold`, `never_runs`, `schedule_ends`, `overlaps_itself`, `collides`.
    pub key: &'static str,
    /// A few words for people ("DST gap").
    pub label: &'static str,
    pub severity: Severity,
}

/// Every risk kind, in the order views list them.
pub const KINDS: [RiskKindInfo; 6] = [
    RiskKindInfo { kind: RiskKind::NeverRuns, key: "never_runs", label: "never runs", severity: Severity::Error },
    RiskKindInfo { kind: RiskKind::DstGap, key: "dst_gap", label: "DST gap", severity: Severity::Warning },
    RiskKindInfo { kind: RiskKind::DstFold, key: "dst_fold", label: "DST fold", severity: Severity::Warning },
    RiskKindInfo {
        kind: RiskKind::OverlapsItself,
        key: "overlaps_itself",
        label: "overlaps itself",
        severity: Severity::Warning,
    },
    RiskKindInfo { kind: RiskKind::Collides, key: "collides", label: "collides", severity: Severity::Warning },
    RiskKindInfo {
        kind: RiskKind::ScheduleEnds,
        key: "schedule_ends",
        label: "schedule ends",
        severity: Severity::Info,
    },
];

impl RiskKind {
    /// Its description in [`KINDS`].
    pub fn info(self) -> &'static RiskKindInfo {
        KINDS.iter().find(|k| k.kind == self).unwrap_or(&KINDS[0])
    }
    pub fn key(self) -> &'static str {
        self.info().key
    }
    pub fn parse(key: &str) -> Option<RiskKind> {
        KINDS.iter().find(|k| k.key == key).map(|k| k.kind)
    }
}

/// The other job of a collision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskPeer {
    pub job_id: String,
    pub job: String,
}

/// One risk of one job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Risk {
    /// The job's source key and its name as the source names it.
    pub job_id: String,
    pub job: String,
    pub kind: RiskKind,
    pub severity: Severity,
    /// The instants it concerns, ascending (the due times in the gap or fold, the last run, the
    /// starts of the overlapping runs…); empty for `never_runs`.
    pub at: Vec<DateTime<Utc>>,
    /// A sentence of what will happen, in the scheduler's terms ("SQL Server Agent runs it at
    /// 03:00, when the gap ends").
    pub explanation: String,
    /// The other job of a collision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<RiskPeer>,
}

/// One job as risks ahead need it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobAhead<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// A job switched off has no risk.
    pub enabled: bool,
    pub schedules: &'a [JobSchedule],
    /// Its completed runs' durations; `None`: no history (no overlap can be judged).
    pub durations: Option<DurationStats>,
}

/// The most instants one risk lists (its sentence gives the full count).
pub const MAX_AT: usize = 50;

/// How far back a schedule that will never run again is searched for its last run.
const LOOK_BACK_DAYS: i64 = 92;

/// How long two runs must overlap, and each job run (p50), to collide: 10 minutes.
pub const COLLIDE_MIN_SECS: i64 = 600;

/// Every risk of `jobs` (one instance, schedules read in `tz`) within `horizon` (from now to
/// now + N days), ordered by first instant, then job name, then kind.
pub fn ahead(jobs: &[JobAhead<'_>], tz: Zone, horizon: Window) -> Vec<Risk> {
    let mut out = Vec::new();
    if horizon.is_empty() {
        return out;
    }
    let mut zones = Changes::default();
    let mut runs: Vec<JobRuns> = Vec::new();
    for (index, job) in jobs.iter().enumerate().filter(|(_, j)| j.enabled) {
        let live: Vec<&JobSchedule> = job.schedules.iter().filter(|s| s.enabled).collect();
        if live.is_empty() {
            out.push(risk(job, RiskKind::NeverRuns, Vec::new(), words::no_enabled_schedule(job.schedules.len())));
            continue;
        }
        let mut due: Vec<DateTime<Utc>> = Vec::new();
        let mut silent: Vec<String> = Vec::new();
        for s in &live {
            let f = crate::forecast(s.id, &s.schedule, tz, horizon);
            if f.occurrences.is_empty() {
                if on_event(&s.schedule) {
                    continue;
                }
                let next = crate::next_after(s.id, &s.schedule, tz, horizon.start, 1);
                if next.occurrences.is_empty() {
                    let past = Window::new(horizon.start - TimeDelta::days(LOOK_BACK_DAYS), horizon.start);
                    let last = crate::forecast(s.id, &s.schedule, tz, past).occurrences.pop();
                    silent.push(words::why_silent(s, &f, &next, last.map(|o| o.at), tz));
                }
                continue;
            }
            if let Some(last) = f.occurrences.last() {
                let next = crate::next_after(s.id, &s.schedule, tz, last.at, 1);
                if next.occurrences.is_empty() && !next.has_errors() {
                    let text = words::ends(s, last, zone_name(&s.schedule, tz), f.occurrences.len());
                    out.push(risk(job, RiskKind::ScheduleEnds, vec![last.at], text));
                }
            }
            dst(job, s, &f, tz, horizon, &mut zones, &mut out);
            due.extend(f.occurrences.iter().map(|o| o.at));
        }
        if !silent.is_empty() && silent.len() == live.len() {
            out.push(risk(job, RiskKind::NeverRuns, Vec::new(), words::never_runs(&silent)));
            continue;
        }
        // Each forecast is in order: several schedules need a merge.
        if live.len() > 1 {
            order::sort_by_key(&mut due, |t| order::by_instant(*t));
            due.dedup();
        }
        if let Some(d) = job.durations {
            overlaps_itself(job, &live[0].schedule, &due, d, tz, &mut out);
        }
        runs.push(JobRuns { index, due, durations: job.durations });
    }
    collisions(jobs, &runs, tz, &mut out);
    // By first instant (none first), job name, kind, the other job's name: names by rank, so
    // that the one sort of `order` does it.
    let mut names: Vec<&str> =
        out.iter().flat_map(|r| [r.job.as_str()].into_iter().chain(r.with.as_ref().map(|w| w.job.as_str()))).collect();
    names.sort_unstable();
    names.dedup();
    let rank = |n: &str| names.partition_point(|x| *x < n) as i64;
    let keys: Vec<order::Key> = out
        .iter()
        .map(|r| {
            let [s, n] = r.at.first().map_or([i64::MIN, 0], |t| order::instant(*t));
            let with = r.with.as_ref().map_or(-1, |w| rank(&w.job));
            [s, n, rank(&r.job), r.kind as i64, with, 0, 0, 0]
        })
        .collect();
    let order = order::order_of(&keys);
    let mut slots: Vec<Option<Risk>> = std::mem::take(&mut out).into_iter().map(Some).collect();
    out.extend(order.into_iter().filter_map(|i| slots[i].take()));
    out
}

fn risk(job: &JobAhead<'_>, kind: RiskKind, mut at: Vec<DateTime<Utc>>, explanation: String) -> Risk {
    at.truncate(MAX_AT);
    Risk {
        job_id: job.id.to_owned(),
        job: job.name.to_owned(),
        kind,
        severity: kind.info().severity,
        at,
        explanation,
        with: None,
    }
}

/// The zone a schedule's wall-clock times are read in: the instance's, or a MySQL event's own
/// `TIME_ZONE` (`None`: a fixed offset, which has no DST).
fn schedule_zone(s: &Schedule, tz: Zone) -> Option<Zone> {
    match s {
        Schedule::MysqlEvent(e) => match crate::mysql_event::zone_of(e, tz, &mut Vec::new()) {
            Some(Clock::Zone(z)) => Some(z),
            _ => None,
        },
        _ => Some(tz),
    }
}

fn zone_name(s: &Schedule, tz: Zone) -> String {
    match schedule_zone(s, tz) {
        Some(z) => z.name().to_owned(),
        None => match s {
            Schedule::MysqlEvent(e) => e.time_zone.clone().unwrap_or_default().trim().to_owned(),
            _ => tz.name().to_owned(),
        },
    }
}

/// True for a schedule that starts its job on an event, not a clock (SQL Server Agent's start or
/// idle CPU, pg_cron's `@reboot`, Primentra's triggered mode): no forecast, and no "never runs".
fn on_event(s: &Schedule) -> bool {
    match s {
        Schedule::Agent(a) => matches!(a.freq_type, 64 | 128),
        Schedule::Cron(c) => {
            let e = c.expr.trim().to_ascii_lowercase();
            e.starts_with("@reboot") || e.starts_with("@restart")
        }
        Schedule::Primentra(p) => {
            p.processing_mode.as_deref().is_some_and(|m| m.trim().eq_ignore_ascii_case("triggered"))
        }
        _ => false,
    }
}

/// True when the schedule's due times are wall-clock times (resolved through the zone, so a
/// DST change can put one in a gap); false for a cadence of absolute seconds.
fn wall_clock(s: &Schedule) -> bool {
    match s {
        Schedule::Cron(c) => !c.expr.to_ascii_lowercase().contains("second"),
        Schedule::JobTable(_) => false,
        Schedule::Primentra(p) => {
            !p.schedule_type.as_deref().is_some_and(|t| t.trim().eq_ignore_ascii_case("interval"))
        }
        _ => true,
    }
}

/// One change of a zone's offset: the instant, the offsets before and after (seconds east).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub at: DateTime<Utc>,
    pub before: i32,
    pub after: i32,
}

fn offset_at(tz: Zone, at: DateTime<Utc>) -> i32 {
    tz.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc()
}

/// Every change of `tz`'s offset within `window` (sampled every 6 hours, bisected to the
/// second: no offset of the tz database since 1970 lasted less than six days).
pub fn changes(tz: Zone, window: Window) -> Vec<Change> {
    let mut out = Vec::new();
    if window.is_empty() {
        return out;
    }
    const STEP: i64 = 6 * 3600;
    let at = |t: i64| DateTime::<Utc>::from_timestamp(t, 0).unwrap_or(window.start);
    let (start, end) = (window.start.timestamp(), window.end.timestamp());
    let mut lo = start;
    let mut off = offset_at(tz, at(lo));
    while lo < end {
        let hi = lo.saturating_add(STEP).min(end);
        let next = offset_at(tz, at(hi));
        if next != off {
            let (mut a, mut b) = (lo, hi);
            while b - a > 1 {
                let mid = a + (b - a) / 2;
                if offset_at(tz, at(mid)) == off { a = mid } else { b = mid }
            }
            if window.contains(at(b)) {
                out.push(Change { at: at(b), before: off, after: offset_at(tz, at(b)) });
            }
            off = next;
        }
        lo = hi;
    }
    out
}

/// Each zone's changes within the horizon, computed once.
#[derive(Default)]
struct Changes(Vec<(Zone, Vec<Change>)>);

impl Changes {
    fn of(&mut self, tz: Zone, horizon: Window) -> Vec<Change> {
        if let Some((_, c)) = self.0.iter().find(|(z, _)| *z == tz) {
            return c.clone();
        }
        let c = changes(tz, horizon);
        self.0.push((tz, c.clone()));
        c
    }
}

fn wall(at: DateTime<Utc>, offset: i32) -> NaiveDateTime {
    at.naive_utc() + TimeDelta::seconds(i64::from(offset))
}

/// The DST risks of one schedule: one per change of its zone that concerns a due time.
fn dst(
    job: &JobAhead<'_>,
    s: &JobSchedule,
    f: &Forecast,
    tz: Zone,
    horizon: Window,
    zones: &mut Changes,
    out: &mut Vec<Risk>,
) {
    let Some(zone) = schedule_zone(&s.schedule, tz) else { return };
    for c in zones.of(zone, horizon) {
        let shift = i64::from(c.after) - i64::from(c.before);
        if shift > 0 {
            // Wall-clock times [from, to) do not exist.
            let (from, to) = (wall(c.at, c.before), wall(c.at, c.after));
            let hits: Vec<&Occurrence> = f
                .occurrences
                .iter()
                .filter(|o| o.dst == Some(Dst::Gap) && from <= o.nominal && o.nominal < to)
                .collect();
            let wanted = if wall_clock(&s.schedule) { asked(&s.schedule, s.id, from, to) } else { Vec::new() };
            let mut wanted: Vec<NaiveDateTime> =
                if wanted.is_empty() { hits.iter().map(|o| o.nominal).collect() } else { wanted };
            wanted.dedup();
            if wanted.is_empty() {
                continue;
            }
            let at: Vec<DateTime<Utc>> = if hits.is_empty() { vec![c.at] } else { hits.iter().map(|o| o.at).collect() };
            let text = words::gap(&s.schedule, zone, &c, &wanted, &hits, to);
            out.push(risk(job, RiskKind::DstGap, at, text));
        } else if shift < 0 {
            let span = TimeDelta::seconds(-shift);
            let (first, second): (Vec<&Occurrence>, Vec<&Occurrence>) =
                f.occurrences.iter().filter(|o| c.at - span <= o.at && o.at < c.at + span).partition(|o| o.at < c.at);
            if first.is_empty() && second.is_empty() {
                continue;
            }
            let at: Vec<DateTime<Utc>> = first.iter().chain(&second).map(|o| o.at).collect();
            let text = words::fold(&s.schedule, zone, &c, &first, &second);
            out.push(risk(job, RiskKind::DstFold, at, text));
        }
    }
}

/// The wall-clock times in `[from, to)` a wall-clock schedule asks for, as if its zone had no
/// DST: its forecast on that wall clock read as UTC (an event's own zone set aside).
fn asked(s: &Schedule, id: i64, from: NaiveDateTime, to: NaiveDateTime) -> Vec<NaiveDateTime> {
    let plain = match s {
        Schedule::MysqlEvent(e) => {
            Schedule::MysqlEvent(crate::mysql_event::MysqlEvent { time_zone: None, ..e.clone() })
        }
        other => other.clone(),
    };
    let f = crate::forecast(id, &plain, Zone::UTC, Window::new(from.and_utc(), to.and_utc()));
    f.occurrences.iter().map(|o| o.local).collect()
}

fn overlaps_itself(
    job: &JobAhead<'_>,
    schedule: &Schedule,
    due: &[DateTime<Utc>],
    d: DurationStats,
    tz: Zone,
    out: &mut Vec<Risk>,
) {
    if d.p95 <= 0 {
        return;
    }
    let p95 = TimeDelta::seconds(d.p95);
    let mut at = Vec::new();
    let (mut count, mut shortest) = (0usize, i64::MAX);
    for w in due.windows(2) {
        let gap = w[1] - w[0];
        if gap < p95 {
            count += 1;
            shortest = shortest.min(gap.num_seconds());
            if at.len() < MAX_AT {
                at.push(w[1]);
            }
        }
    }
    if count > 0 {
        let text = words::overlaps_itself(schedule, d.p95, shortest, count, due.len(), at[0], tz);
        out.push(risk(job, RiskKind::OverlapsItself, at, text));
    }
}

/// One job's due times in the horizon and durations, for collisions.
struct JobRuns {
    index: usize,
    due: Vec<DateTime<Utc>>,
    durations: Option<DurationStats>,
}

/// The starts of a pair's overlaps (at most [`MAX_AT`]) and how many there are.
type Overlaps = (Vec<DateTime<Utc>>, usize);

fn collisions(jobs: &[JobAhead<'_>], runs: &[JobRuns], tz: Zone, out: &mut Vec<Risk>) {
    // (start, end, which of `runs`) of every job that runs a while and is not background.
    // `k` counts those jobs only: `runs` may hold thousands that never collide.
    let mut spans: Vec<(DateTime<Utc>, DateTime<Utc>, usize)> = Vec::new();
    let mut eligible: Vec<&JobRuns> = Vec::new();
    for r in runs {
        let Some(d) = r.durations.filter(|d| d.p50 >= COLLIDE_MIN_SECS) else { continue };
        if r.due.is_empty() || replay::median_gap(&r.due).is_some_and(|g| g < replay::DEFAULT_BAND_GAP_SECS) {
            continue;
        }
        let (p50, k) = (TimeDelta::seconds(d.p50), eligible.len());
        spans.extend(r.due.iter().map(|&t| (t, t + p50, k)));
        eligible.push(r);
    }
    order::sort_by_key(&mut spans, |(t, e, k)| {
        let ([a, b], [c, d]) = (order::instant(*t), order::instant(*e));
        [a, b, c, d, *k as i64, 0, 0, 0]
    });
    let min = TimeDelta::seconds(COLLIDE_MIN_SECS);
    // Per pair (lower first): where its overlaps are in `pairs`.
    let n = eligible.len();
    let mut slot: Vec<u32> = vec![u32::MAX; n * n];
    let mut pairs: Vec<((usize, usize), Overlaps)> = Vec::new();
    let mut going: Vec<(DateTime<Utc>, usize)> = Vec::new();
    for &(start, end, k) in &spans {
        going.retain(|(e, _)| *e > start);
        for &(e, other) in &going {
            if other == k || e.min(end) - start < min {
                continue;
            }
            let key = (other.min(k), other.max(k));
            let i = &mut slot[key.0 * n + key.1];
            if *i == u32::MAX {
                *i = pairs.len() as u32;
                pairs.push((key, (Vec::new(), 0)));
            }
            let (_, (at, count)) = &mut pairs[*i as usize];
            *count += 1;
            if at.len() < MAX_AT && at.last() != Some(&start) {
                at.push(start);
            }
        }
        going.push((end, k));
    }
    for ((a, b), (at, count)) in pairs {
        let (ra, rb) = (eligible[a], eligible[b]);
        let (ja, jb) = (&jobs[ra.index], &jobs[rb.index]);
        let (first, second, fa, fb) =
            if (ja.name, ja.id) <= (jb.name, jb.id) { (ja, jb, ra, rb) } else { (jb, ja, rb, ra) };
        let p50 = |r: &JobRuns| r.durations.map_or(0, |d| d.p50);
        let text = words::collides(second.name, p50(fa), p50(fb), count, at[0], tz);
        let mut r = risk(first, RiskKind::Collides, at, text);
        r.with = Some(RiskPeer { job_id: second.id.to_owned(), job: second.name.to_owned() });
        out.push(r);
    }
}

/// Every sentence a risk says, in one place.
pub mod words {
    use super::*;

    /// The scheduler, as a sentence names it.
    pub fn scheduler(s: &Schedule) -> &'static str {
        match s {
            Schedule::Agent(_) => "SQL Server Agent",
            Schedule::Cron(_) => "pg_cron",
            Schedule::MysqlEvent(_) => "the event scheduler",
            Schedule::PgAgent(_) => "pgAgent",
            Schedule::JobTable(_) => "the job runner",
            Schedule::ServiceBroker(_) => "the Service Broker scheduler",
            Schedule::Primentra(_) => "Primentra's dispatcher",
        }
    }

    /// The scheduler with the zone it reads the schedule in, where that is a choice (pg_cron's
    /// `cron.timezone`, an event's `TIME_ZONE`).
    fn scheduler_in(s: &Schedule, zone: Zone) -> String {
        match s {
            Schedule::Cron(_) => format!("pg_cron, following cron.timezone {},", zone.name()),
            other => scheduler(other).to_owned(),
        }
    }

    fn date(t: NaiveDateTime) -> String {
        t.format("%Y-%m-%d").to_string()
    }

    fn hm(t: NaiveDateTime) -> String {
        t.format("%H:%M").to_string()
    }

    /// `UTC+11:00`, `UTC−05:00`.
    pub fn offset(secs: i32) -> String {
        let sign = if secs < 0 { '−' } else { '+' };
        let s = secs.unsigned_abs();
        format!("UTC{sign}{:02}:{:02}", s / 3600, s % 3600 / 60)
    }

    /// "02:30", "02:00 and 02:30", "02:00, 02:15 and 02:30", "the 60 times from 02:00 to 02:59".
    fn times(ts: &[NaiveDateTime]) -> String {
        match ts {
            [] => String::new(),
            [t] => hm(*t),
            [a, b] => format!("{} and {}", hm(*a), hm(*b)),
            [a, b, c] => format!("{}, {} and {}", hm(*a), hm(*b), hm(*c)),
            [a, .., z] => format!("the {} times from {} to {}", ts.len(), hm(*a), hm(*z)),
        }
    }

    fn local_at(t: DateTime<Utc>, tz: Zone) -> String {
        crate::tz::to_local(t, tz).format("%Y-%m-%d %H:%M").to_string()
    }

    pub fn no_enabled_schedule(schedules: usize) -> String {
        if schedules == 0 {
            "The job is enabled but has no schedule: nothing will start it.".into()
        } else {
            let them = if schedules == 1 { "its one schedule is not" } else { "none of its schedules is" };
            format!("The job is enabled but {them} enabled: nothing will start it.")
        }
    }

    /// Why one schedule will never start the job: the forecast's own reason where it gives one.
    pub fn why_silent(s: &JobSchedule, f: &Forecast, next: &Forecast, last: Option<DateTime<Utc>>, tz: Zone) -> String {
        // The strongest diagnostic, not a note of which zone the times are read in.
        let reason = f
            .diagnostics
            .iter()
            .chain(&next.diagnostics)
            .filter(|d| d.field.as_deref() != Some("TIME_ZONE") && !d.message.starts_with("TIME_ZONE is"))
            .max_by_key(|d| d.severity)
            .map(|d| d.message.trim_end_matches('.').to_owned());
        let name = if s.name.is_empty() { "its schedule".to_owned() } else { format!("schedule “{}”", s.name) };
        let last = match last {
            Some(t) => format!(" (its last run was at {})", local_at(t, tz)),
            None => String::new(),
        };
        match reason {
            Some(r) => format!("{name}: {r}{last}"),
            None => format!("{name} has no run ahead{last}"),
        }
    }

    pub fn never_runs(reasons: &[String]) -> String {
        format!("The job is enabled but no schedule will start it again: {}.", reasons.join("; "))
    }

    pub fn ends(s: &JobSchedule, last: &Occurrence, zone: String, count: usize) -> String {
        let name = if s.name.is_empty() { "Its schedule".to_owned() } else { format!("Schedule “{}”", s.name) };
        format!(
            "{name} starts the job for the last time on {} at {} ({zone}), after {count} {} in the horizon: {} starts it no more after that.",
            date(last.local),
            hm(last.local),
            if count == 1 { "run" } else { "runs" },
            scheduler(&s.schedule),
        )
    }

    /// A gap: `wanted` the wall-clock times asked for in it, `hits` the forecast's occurrences
    /// of them, `to` the gap's end on the wall clock.
    pub fn gap(
        s: &Schedule,
        zone: Zone,
        c: &Change,
        wanted: &[NaiveDateTime],
        hits: &[&Occurrence],
        to: NaiveDateTime,
    ) -> String {
        let head = format!(
            "On {}, {} {} not exist in {} (the clock jumps from {} to {})",
            date(wanted[0]),
            times(wanted),
            if wanted.len() == 1 { "does" } else { "do" },
            zone.name(),
            hm(wall(c.at, c.before)),
            hm(to),
        );
        let who = scheduler_in(s, zone);
        let it = if wanted.len() == 1 { "it" } else { "them" };
        let mut runs: Vec<NaiveDateTime> = hits.iter().map(|o| o.local).collect();
        runs.dedup();
        let tail = if hits.is_empty() {
            format!("{who} skips {it} that day")
        } else if runs.iter().all(|t| *t == to) {
            let once = if wanted.len() > 1 && hits.len() == 1 { "once, " } else { "" };
            format!("{who} runs {it} {once}at {}, when the gap ends", hm(to))
        } else if hits.len() == wanted.len() {
            format!("{who} reads {it} with the offset before the gap and runs {it} at {}", times(&runs))
        } else {
            format!(
                "{who} runs {} of {it} at {} and skips the other {}",
                hits.len(),
                times(&runs),
                wanted.len() - hits.len()
            )
        };
        format!("{head}: {tail}.")
    }

    /// A fold: the forecast's occurrences in its first and second pass.
    pub fn fold(s: &Schedule, zone: Zone, c: &Change, first: &[&Occurrence], second: &[&Occurrence]) -> String {
        let span = TimeDelta::seconds(i64::from(c.before) - i64::from(c.after));
        let (from, to) = (wall(c.at, c.after), wall(c.at, c.before));
        let head = format!(
            "On {}, {}–{} happens twice in {} (first at {}, then at {})",
            date(from),
            hm(from),
            hm(to),
            zone.name(),
            offset(c.before),
            offset(c.after)
        );
        let _ = span;
        let who = scheduler_in(s, zone);
        let mut locals: Vec<NaiveDateTime> = first.iter().chain(second).map(|o| o.local).collect();
        order::sort_by_key(&mut locals, |t| order::by_instant(t.and_utc()));
        locals.dedup();
        let tail = match (first.len(), second.len()) {
            (0, _) => format!("{who} runs {} once, in the second pass only", times(&locals)),
            (_, 0) => format!("{who} runs {} once, in the first pass only", times(&locals)),
            (a, b) => format!(
                "{who} keeps its cadence and runs {} in both passes ({} runs: {a} in the first, {b} in the second)",
                times(&locals),
                a + b
            ),
        };
        format!("{head}: {tail}.")
    }

    /// What the scheduler does with a due time that comes while the job still runs.
    pub fn overlap_policy(s: &Schedule) -> &'static str {
        match (s, dialect::overlap_policy(s)) {
            (Schedule::PgAgent(_), _) => {
                "pgAgent computes the next run when a run ends, so the times a run covers are skipped"
            }
            (Schedule::Agent(_), _) => {
                "SQL Server Agent does not start a job still running: those due times are skipped"
            }
            (Schedule::Cron(_), _) => "pg_cron starts the next run when the running one ends, late",
            (Schedule::JobTable(_), _) => {
                "the job runner starts the next cycle as soon as the long one ends and counts on from there"
            }
            (Schedule::ServiceBroker(_), _) => {
                "the Service Broker scheduler computes the next run from the last one, so a late run is followed at once by the next due one"
            }
            (Schedule::Primentra(_), _) => {
                "Primentra's overlap guard skips the dispatch but keeps NextScheduledRun, so it runs at the first cycle after the batch ends, late"
            }
            (_, Overlap::Concurrent) => "the event scheduler starts another run beside the one still going",
            (_, Overlap::Skip) => "the scheduler skips those due times",
            (_, Overlap::Queue) => "the scheduler starts the next run when the running one ends, late",
        }
    }

    pub fn overlaps_itself(
        s: &Schedule,
        p95: i64,
        shortest: i64,
        count: usize,
        due: usize,
        first: DateTime<Utc>,
        tz: Zone,
    ) -> String {
        format!(
            "Its runs take {} (p95), longer than the {} before the next due time: {count} of its {due} due times come while the previous run still goes, the first at {} ({}); {}.",
            replay::human(p95),
            replay::human(shortest),
            local_at(first, tz),
            tz.name(),
            overlap_policy(s),
        )
    }

    pub fn collides(other: &str, p50: i64, other_p50: i64, count: usize, first: DateTime<Utc>, tz: Zone) -> String {
        format!(
            "Its runs (about {} each, p50) and those of “{other}” (about {}) overlap by 10 minutes or more {}, the first at {} ({}).",
            replay::human(p50),
            replay::human(other_p50),
            if count == 1 { "once".to_owned() } else { format!("{count} times") },
            local_at(first, tz),
            tz.name(),
        )
    }
}
