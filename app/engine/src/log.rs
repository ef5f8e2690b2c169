//! The scheduler log: what happened on an instance, one line per event, newest first.
//!
//! Two kinds of line meet here. A source that keeps a log of its own (Primentra's
//! `SchedulerLog`) gives its events, mapped onto [`LogKind`]; for every other source the log
//! is derived from the runs ([`derive`]). Sundial's own findings (missed, late, skipped
//! occurrences; zombie spans; Agent restarts) are always derived, whatever the source.
use super::fleet::InstanceReport;
use super::reconcile::{MissCause, Outcome};
use super::{RunOutcome, Window};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The kinds of line, each with its own colour on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LogKind {
    /// A run started (Primentra: `fired`).
    Started,
    /// A run ended well (`completed`).
    Succeeded,
    /// A run failed (`error`).
    Failed,
    /// A step failed and was retried.
    Retry,
    /// A run was canceled.
    Canceled,
    /// A run is still going.
    Running,
    /// A run started and never finished (crashed).
    Crashed,
    /// A tick was skipped: the previous run was still going (`skipped`: the overlap guard).
    Skipped,
    /// An expected run that never started (Sundial's finding).
    Missed,
    /// A run that started after its grace (Sundial's finding).
    Late,
    /// A stuck run force-released (`zombie`), or a span in which the scheduler started
    /// nothing although runs were due (Sundial's finding).
    Zombie,
    /// The scheduler stopped (Sundial's finding, [`crate::gaps`]): dated at its last sign of
    /// life, saying by when it was down at the latest.
    SchedulerStop,
    /// The scheduler started (SQL Server Agent: a new session in msdb). Its key stays
    /// `agent-start` (URLs, CSS classes); its words name the instance's own scheduler.
    AgentStart,
    /// The job's definition changed (Sundial's finding, [`crate::changes`]): added, removed,
    /// re-scheduled, enabled or disabled, its command, steps or owner; dated when Sundial saw it.
    Changed,
}

impl LogKind {
    /// Every kind, in display order.
    pub const ALL: [LogKind; 14] = [
        LogKind::Started,
        LogKind::Succeeded,
        LogKind::Failed,
        LogKind::Retry,
        LogKind::Canceled,
        LogKind::Running,
        LogKind::Crashed,
        LogKind::Skipped,
        LogKind::Missed,
        LogKind::Late,
        LogKind::Zombie,
        LogKind::SchedulerStop,
        LogKind::AgentStart,
        LogKind::Changed,
    ];
    /// Lower-case key (CSS class, filters).
    pub fn key(self) -> &'static str {
        match self {
            LogKind::Started => "started",
            LogKind::Succeeded => "succeeded",
            LogKind::Failed => "failed",
            LogKind::Retry => "retry",
            LogKind::Canceled => "canceled",
            LogKind::Running => "running",
            LogKind::Crashed => "crashed",
            LogKind::Skipped => "skipped",
            LogKind::Missed => "missed",
            LogKind::Late => "late",
            LogKind::Zombie => "zombie",
            LogKind::SchedulerStop => "scheduler-stop",
            LogKind::AgentStart => "agent-start",
            LogKind::Changed => "changed",
        }
    }
    /// The kind of a [`key`](LogKind::key) (a filter in a URL); `None` for anything else.
    pub fn from_key(key: &str) -> Option<LogKind> {
        LogKind::ALL.into_iter().find(|k| k.key() == key)
    }
    /// What the log's badge says: the key in words, except that a scheduler's start is
    /// "scheduler start", not a key; a page that knows the instance's scheduler names it
    /// instead ("Agent start", "pg_cron start": the app's `Scheduler::log_label`).
    pub fn label(self) -> &'static str {
        match self {
            LogKind::AgentStart => "scheduler start",
            LogKind::SchedulerStop => "scheduler stop",
            other => other.key(),
        }
    }
    /// Whether a DBA should look at it: problems, and the scheduler's restarts that often
    /// explain them.
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            LogKind::Failed
                | LogKind::Crashed
                | LogKind::Canceled
                | LogKind::Skipped
                | LogKind::Missed
                | LogKind::Late
                | LogKind::Zombie
                | LogKind::SchedulerStop
                | LogKind::AgentStart
        )
    }
    /// Primentra's `SchedulerLog.EventType` onto Sundial's kinds; `None` for a type Primentra
    /// does not write.
    pub fn from_primentra(event_type: &str) -> Option<LogKind> {
        Some(match event_type.trim().to_ascii_lowercase().as_str() {
            "fired" => LogKind::Started,
            "completed" => LogKind::Succeeded,
            "error" => LogKind::Failed,
            "skipped" => LogKind::Skipped,
            "zombie" => LogKind::Zombie,
            _ => return None,
        })
    }
}

/// One line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEvent {
    pub at: DateTime<Utc>,
    /// The job's id; empty for an instance-wide line.
    pub job_id: String,
    pub kind: LogKind,
    pub text: String,
    /// For a line that stands for several consecutive missed occurrences of one job with one
    /// cause: each of them, oldest first (`at` is the newest). Empty for a single event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<DateTime<Utc>>,
}

impl LogEvent {
    /// How many events the line stands for (a collapsed run of misses counts each).
    pub fn count(&self) -> usize {
        self.members.len().max(1)
    }
}

/// The words of a line, made only when a line is kept ([`derive`]); a [`tally`] never makes them.
enum Text<'a> {
    Empty,
    Static(&'static str),
    /// A run's outcome line: its running step, else its failed step's message, else `what`
    /// after its seconds.
    Run(&'a crate::Run, &'static str),
    Miss(&'a MissCause),
    Late(i64),
    ZombieUntil(DateTime<Utc>),
    Stopped(&'a crate::gaps::SchedulerGap),
    Source(&'a str),
}

impl Text<'_> {
    fn render(&self) -> String {
        match self {
            Text::Empty => String::new(),
            Text::Static(s) => (*s).to_owned(),
            Text::Run(run, what) => match running_text(run) {
                Some(going) => going,
                None => {
                    let why = run.why();
                    if why.is_empty() { words_number_words(what, " after ", run.duration_secs, " s") } else { why }
                }
            },
            Text::Miss(cause) => miss_text(cause),
            Text::Late(delay) => late_text(*delay),
            Text::ZombieUntil(end) => format!(
                "the scheduler started no job until {} although runs were due",
                end.format("%Y-%m-%d %H:%M:%S UTC")
            ),
            Text::Stopped(gap) => stop_text(gap),
            Text::Source(s) => (*s).to_owned(),
        }
    }
}

/// One line of the log as [`each_line`] visits it.
struct Line<'a> {
    at: DateTime<Utc>,
    job_id: &'a str,
    kind: LogKind,
    members: Vec<DateTime<Utc>>,
    text: Text<'a>,
}

/// Every line of `report`'s log, in the order [`derive`] then sorts (the source's events, each
/// job's run lines then its findings, instance-wide lines): the one place that says which lines
/// there are, for [`derive`] (the lines) and [`tally`] (their counts).
fn each_line<'a>(report: &'a InstanceReport, source_events: &'a [LogEvent], mut line: impl FnMut(Line<'a>)) {
    let window: Window = report.window;
    for e in source_events.iter().filter(|e| window.contains(e.at)) {
        line(Line {
            at: e.at,
            job_id: &e.job_id,
            kind: e.kind,
            members: e.members.clone(),
            text: Text::Source(&e.text),
        });
    }
    let logged: std::collections::HashSet<&str> = source_events.iter().map(|e| e.job_id.as_str()).collect();
    for job in &report.jobs {
        let id = job.id.as_str();
        if !logged.contains(id) {
            for run in &job.runs {
                if !window.contains(run.start) {
                    continue;
                }
                let unknown = run.outcome == RunOutcome::Unknown;
                line(Line {
                    at: run.start,
                    job_id: id,
                    kind: LogKind::Started,
                    // How it ended, the history cannot tell: the start is the one line.
                    text: if unknown { Text::Static("how it ended is not known") } else { Text::Empty },
                    members: Vec::new(),
                });
                let end = run.end().min(report.now);
                let (kind, what) = match run.outcome {
                    RunOutcome::Succeeded => (LogKind::Succeeded, "succeeded"),
                    RunOutcome::Failed => (LogKind::Failed, "failed"),
                    RunOutcome::Retry => (LogKind::Retry, "retry"),
                    RunOutcome::Canceled => (LogKind::Canceled, "canceled"),
                    RunOutcome::InProgress => (LogKind::Running, "still running"),
                    RunOutcome::Crashed => (LogKind::Crashed, "crashed: started and never finished"),
                    RunOutcome::Abandoned => (LogKind::Zombie, "abandoned: released by the scheduler"),
                    RunOutcome::Unknown => continue,
                };
                let at = if run.outcome == RunOutcome::InProgress { run.start } else { end };
                // A failed run says its failed step's own message, not the outcome line.
                line(Line { at, job_id: id, kind, text: Text::Run(run, what), members: Vec::new() });
            }
        }
        // Consecutive misses with one cause become one line (a zombie day of an every-minute
        // job is one line of 1,440, not 1,440 lines); anything else between them ends it.
        let mut group: Option<(&MissCause, Vec<DateTime<Utc>>)> = None;
        let flush = |group: &mut Option<(&'a MissCause, Vec<DateTime<Utc>>)>, line: &mut dyn FnMut(Line<'a>)| {
            if let Some((cause, members)) = group.take() {
                let at = *members.last().expect("a group has a member");
                let members = if members.len() > 1 { members } else { Vec::new() };
                line(Line { at, job_id: id, kind: LogKind::Missed, text: Text::Miss(cause), members });
            }
        };
        for (occ, outcome) in job.forecast.occurrences.iter().zip(&job.reconciliation.outcomes) {
            if !window.contains(occ.at) {
                continue;
            }
            if let Outcome::Missed { cause } = outcome {
                match &mut group {
                    Some((c, members)) if *c == cause => members.push(occ.at),
                    _ => {
                        flush(&mut group, &mut line);
                        group = Some((cause, vec![occ.at]));
                    }
                }
                continue;
            }
            flush(&mut group, &mut line);
            let (kind, text) = match outcome {
                Outcome::Late { delay_secs, .. } => (LogKind::Late, Text::Late(*delay_secs)),
                Outcome::SkippedRunning { .. } => {
                    (LogKind::Skipped, Text::Static("skipped: the previous run was still going"))
                }
                _ => continue,
            };
            line(Line { at: occ.at, job_id: id, kind, text, members: Vec::new() });
        }
        flush(&mut group, &mut line);
    }
    for p in &report.context.zombie_periods {
        if window.contains(p.start) {
            line(Line {
                at: p.start,
                job_id: "",
                kind: LogKind::Zombie,
                text: Text::ZombieUntil(p.end),
                members: Vec::new(),
            });
        }
    }
    for g in report.gaps.iter().filter(|g| g.kind == crate::gaps::GapKind::Stopped) {
        if window.contains(g.from()) {
            line(Line {
                at: g.from(),
                job_id: "",
                kind: LogKind::SchedulerStop,
                text: Text::Stopped(g),
                members: Vec::new(),
            });
        }
    }
    for s in &report.context.agent_starts {
        if window.contains(*s) {
            line(Line {
                at: *s,
                job_id: "",
                kind: LogKind::AgentStart,
                text: Text::Static("the scheduler started"),
                members: Vec::new(),
            });
        }
    }
}

/// The log of `report`: Sundial's findings for every job, the runs of jobs for which the source
/// gave no events, the source's events, and instance-wide lines; inside the report's window,
/// newest first (ties: instance lines, then by job, then kind).
pub fn derive(report: &InstanceReport, source_events: &[LogEvent]) -> Vec<LogEvent> {
    // Every job id ranked once, so that the sort compares numbers, not strings: an id's rank
    // orders as the id does ("" for instance lines ranks first).
    let mut ids: Vec<&str> = report
        .jobs
        .iter()
        .map(|j| j.id.as_str())
        .chain(source_events.iter().map(|e| e.job_id.as_str()))
        .chain([""])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let rank_of = |id: &str| ids.binary_search(&id).unwrap_or_default() as u32;
    // Lines come job by job: the last job's rank is asked again for each of its lines.
    let mut last: Option<(&str, u32)> = None;
    // Parallel to `out`: the rank of each line's job id.
    let mut ranks: Vec<u32> = Vec::new();
    let mut out: Vec<LogEvent> = Vec::new();
    // At most two lines per run and one per occurrence: one allocation, not a doubling per growth.
    let most = source_events.len()
        + report.jobs.iter().map(|j| 2 * j.runs.len() + j.reconciliation.outcomes.len()).sum::<usize>();
    out.reserve(most);
    ranks.reserve(most);
    each_line(report, source_events, |l| {
        let rank = match last {
            Some((id, rank)) if id == l.job_id => rank,
            _ => {
                let rank = rank_of(l.job_id);
                last = Some((l.job_id, rank));
                rank
            }
        };
        ranks.push(rank);
        out.push(LogEvent {
            at: l.at,
            job_id: l.job_id.to_owned(),
            kind: l.kind,
            text: l.text.render(),
            members: l.members,
        });
    });
    sort_lines(out, &ranks)
}

/// How many lines (and events: a collapsed line counts each) of each kind each job has on each
/// day of a log, without their words: what the fleet-wide log of a large fleet counts and pages
/// by, kept with each judgment of an instance ([`tally`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogTally {
    /// The log's window; day `k` is the 24 hours ending `k` days before its end, within it.
    /// Day 0 also has the window's end and after: a run that started in the window and ended at
    /// or after its end has its line there (at the read's moment, for a window ending then).
    pub window: Window,
    /// The job ids the cells name, sorted ("" for instance-wide lines).
    pub jobs: Vec<String>,
    /// By day, job, kind.
    pub cells: Vec<TallyCell>,
}

/// One day's lines of one kind of one job ([`LogTally`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TallyCell {
    pub day: u32,
    /// Index into [`LogTally::jobs`].
    pub job: u32,
    pub kind: LogKind,
    pub lines: u32,
    pub events: u32,
}

const DAY_SECS: i64 = 86_400;

impl LogTally {
    /// The day of the window `at` falls on (`None`: outside the window).
    pub fn day_of(&self, at: DateTime<Utc>) -> Option<u32> {
        let before_end = (self.window.end - at).num_nanoseconds().unwrap_or(i64::MAX);
        (self.window.start <= at).then(|| ((before_end - 1).max(0) / (DAY_SECS * 1_000_000_000)) as u32)
    }

    /// The stretch of day `k`, within the window (day 0's without an end).
    pub fn day(&self, k: u32) -> Window {
        let end = self.window.end - chrono::TimeDelta::days(i64::from(k));
        let start = (end - chrono::TimeDelta::days(1)).max(self.window.start);
        let end = if k == 0 { DateTime::<Utc>::MAX_UTC } else { end };
        Window { start, end: end.max(start) }
    }

    /// The last `days` days of the window (the window of a log over `days` days ending where
    /// this one ends).
    pub fn last_days(&self, days: u32) -> Window {
        let start = (self.window.end - chrono::TimeDelta::days(i64::from(days))).max(self.window.start);
        Window { start, end: self.window.end }
    }

    /// Lines and events by day, job id and kind, on the days `keep` says.
    pub fn counts(&self, keep: impl Fn(u32) -> bool) -> BTreeMap<(u32, &str, LogKind), (u32, u32)> {
        self.cells
            .iter()
            .filter(|c| keep(c.day))
            .map(|c| ((c.day, self.jobs[c.job as usize].as_str(), c.kind), (c.lines, c.events)))
            .collect()
    }

    /// How many days the window has.
    pub fn days(&self) -> u32 {
        let ms = (self.window.end - self.window.start).num_milliseconds().max(0) as u64;
        ms.div_ceil(DAY_SECS as u64 * 1000) as u32
    }
}

/// The [`LogTally`] of `report`'s log (the lines [`derive`] lists, without making their words).
pub fn tally(report: &InstanceReport, source_events: &[LogEvent]) -> LogTally {
    let mut counter = Counter::new(report.window);
    each_line(report, source_events, |l| counter.add(l.at, l.job_id, l.kind, l.members.len()));
    counter.finish()
}

/// The [`LogTally`] over `window` of lines already made (say, a few days of a log, to check
/// against the whole log's tally).
pub fn tally_lines(window: Window, lines: &[LogEvent]) -> LogTally {
    let mut counter = Counter::new(window);
    for e in lines {
        counter.add(e.at, &e.job_id, e.kind, e.members.len());
    }
    counter.finish()
}

/// Lines counted into a [`LogTally`], by day, job and kind.
struct Counter<'a> {
    tally: LogTally,
    counts: BTreeMap<(u32, &'a str, LogKind), (u32, u32)>,
}

impl<'a> Counter<'a> {
    fn new(window: Window) -> Self {
        Counter { tally: LogTally { window, jobs: Vec::new(), cells: Vec::new() }, counts: BTreeMap::new() }
    }

    /// A line (standing for `members` events, at least one); one before the window is left out.
    fn add(&mut self, at: DateTime<Utc>, job: &'a str, kind: LogKind, members: usize) {
        let Some(day) = self.tally.day_of(at) else { return };
        let c = self.counts.entry((day, job, kind)).or_default();
        c.0 += 1;
        c.1 += members.max(1) as u32;
    }

    fn finish(self) -> LogTally {
        let mut t = self.tally;
        let mut jobs: Vec<&str> = self.counts.keys().map(|k| k.1).collect();
        jobs.sort_unstable();
        jobs.dedup();
        t.cells = self
            .counts
            .into_iter()
            .map(|((day, job, kind), (lines, events))| TallyCell {
                day,
                job: jobs.binary_search(&job).unwrap_or_default() as u32,
                kind,
                lines,
                events,
            })
            .collect();
        t.jobs = jobs.into_iter().map(str::to_owned).collect();
        t
    }
}

fn sort_lines(mut out: Vec<LogEvent>, ranks: &[u32]) -> Vec<LogEvent> {
    let order: Vec<usize> = match compact_keys(&out, ranks) {
        Some((mut keys, index_bits)) => {
            // In index order already: a stable sort on the bits above the index keeps equal
            // keys in it.
            radix_sort(&mut keys, index_bits);
            let mask = (1u64 << index_bits) - 1;
            keys.into_iter().map(|k| (k & mask) as usize).collect()
        }
        None => {
            let mut keys: Vec<(u128, u32)> = out
                .iter()
                .zip(ranks)
                .enumerate()
                .map(|(i, (e, &rank))| (sort_key(e.at, rank, e.kind), i as u32))
                .collect();
            // The index makes every pair distinct: equal keys keep the lines' order.
            keys.sort_unstable();
            keys.into_iter().map(|(_, i)| i as usize).collect()
        }
    };
    let moved = || LogEvent {
        at: DateTime::<Utc>::MIN_UTC,
        job_id: String::new(),
        kind: LogKind::Started,
        text: String::new(),
        members: Vec::new(),
    };
    order.into_iter().map(|i| std::mem::replace(&mut out[i], moved())).collect()
}

/// Bits to hold every value up to `max`.
fn bits_for(max: u64) -> u32 {
    u64::BITS - max.leading_zeros()
}

/// `(Reverse(at), rank, kind)` of each line packed above its index into one `u64` that orders
/// the same: seconds before the newest line, nanoseconds short of the most (only when some line
/// has nanoseconds), the rank and the kind, each in the bits it needs here; with the number of
/// low bits the index takes. `None` when they need more than 64 bits.
fn compact_keys(out: &[LogEvent], ranks: &[u32]) -> Option<(Vec<u64>, u32)> {
    // One pass over the lines: the newest and oldest second, and whether any has nanoseconds.
    let (oldest, newest, nanos) = out.iter().fold((i64::MAX, i64::MIN, false), |(lo, hi, nanos), e| {
        let t = e.at.timestamp();
        (lo.min(t), hi.max(t), nanos || e.at.timestamp_subsec_nanos() != 0)
    });
    if out.is_empty() {
        return None;
    }
    let span = u64::try_from(newest.checked_sub(oldest)?).ok()?;
    let (second_bits, nano_bits) = (bits_for(span), if nanos { 31 } else { 0 });
    let rank_bits = bits_for(u64::from(ranks.iter().copied().max().unwrap_or(0)));
    let index_bits = bits_for(out.len() as u64 - 1).max(1);
    if second_bits + nano_bits + rank_bits + 4 + index_bits > 64 {
        return None;
    }
    let keys = out
        .iter()
        .zip(ranks)
        .enumerate()
        .map(|(i, (e, &rank))| {
            let mut k = (newest - e.at.timestamp()) as u64;
            if nanos {
                k = (k << 31) | u64::from((1u32 << 31) - 1 - e.at.timestamp_subsec_nanos());
            }
            k = (k << rank_bits) | u64::from(rank);
            k = (k << 4) | e.kind as u64;
            (k << index_bits) | i as u64
        })
        .collect();
    Some((keys, index_bits))
}

/// Sort `keys` by their bits from `from_bit` up, stably: a least-significant-digit radix sort,
/// 11 bits a pass, a pass skipped when every key has the same digit.
fn radix_sort(keys: &mut Vec<u64>, from_bit: u32) {
    const DIGIT: u32 = 11;
    let top = keys.iter().fold(0, |acc, k| acc | k);
    let mut buffer = vec![0u64; keys.len()];
    let mut counts = vec![0usize; 1 << DIGIT];
    let mut shift = from_bit;
    while shift < u64::BITS && (top >> shift) != 0 {
        let mask = (1u64 << DIGIT) - 1;
        counts.fill(0);
        for &k in keys.iter() {
            counts[((k >> shift) & mask) as usize] += 1;
        }
        if counts.contains(&keys.len()) {
            shift += DIGIT;
            continue;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &k in keys.iter() {
            let digit = ((k >> shift) & mask) as usize;
            buffer[counts[digit]] = k;
            counts[digit] += 1;
        }
        std::mem::swap(keys, &mut buffer);
        shift += DIGIT;
    }
}

/// `(Reverse(at), rank, kind)` as one number that orders the same: `at` as seconds since
/// the epoch (chrono's range fits 44 bits once offset) and nanoseconds (31 bits, a leap
/// second included), inverted for newest first; then the rank (32 bits), then the kind
/// (4 bits, in declaration order). 111 bits in all.
fn sort_key(at: DateTime<Utc>, rank: u32, kind: LogKind) -> u128 {
    const AT_BITS: u32 = 44 + 31;
    let secs = (at.timestamp() + (1 << 43)) as u128;
    let at = (secs << 31) | u128::from(at.timestamp_subsec_nanos());
    let newest_first = ((1u128 << AT_BITS) - 1) - at;
    (newest_first << 36) | (u128::from(rank) << 4) | kind as u128
}

/// `format!("{before}{between}{n}{after}")`, allocated once at its size (a line per run: the
/// formatting machinery and its reallocations showed in profiles).
/// How late a run started, in words: `started 42 s late`, `started 1 h 0 min late` (never
/// `started 3600 s late`).
fn late_text(delay_secs: i64) -> String {
    if delay_secs < 60 {
        words_number_words("started", " ", delay_secs, " s late")
    } else {
        format!("started {} late", crate::triage::span(delay_secs))
    }
}

fn words_number_words(before: &str, between: &str, n: i64, after: &str) -> String {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut m = n.unsigned_abs();
    loop {
        k -= 1;
        digits[k] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    let number = std::str::from_utf8(&digits[k..]).expect("ASCII digits");
    let sign = if n < 0 { "-" } else { "" };
    let mut s = String::with_capacity(before.len() + between.len() + sign.len() + number.len() + after.len());
    for part in [before, between, sign, number, after] {
        s.push_str(part);
    }
    s
}

/// [`derive`] as it was (its lines sorted as they are, ids compared as strings); kept for the
/// property tests that check [`derive`] against it, not for use elsewhere.
///
/// The log of `report`: Sundial's findings for every job, the runs of jobs for which the source
/// gave no events, the source's events, and instance-wide lines; inside the report's window,
/// newest first (ties: instance lines, then by job, then kind).
#[doc(hidden)]
pub fn derive_reference(report: &InstanceReport, source_events: &[LogEvent]) -> Vec<LogEvent> {
    let window: Window = report.window;
    let mut out: Vec<LogEvent> = source_events.iter().filter(|e| window.contains(e.at)).cloned().collect();
    let logged: std::collections::HashSet<&str> = source_events.iter().map(|e| e.job_id.as_str()).collect();
    for job in &report.jobs {
        if !logged.contains(job.id.as_str()) {
            for run in &job.runs {
                if !window.contains(run.start) {
                    continue;
                }
                let unknown = run.outcome == RunOutcome::Unknown;
                out.push(LogEvent {
                    at: run.start,
                    job_id: job.id.clone(),
                    kind: LogKind::Started,
                    // How it ended, the history cannot tell: the start is the one line.
                    text: if unknown { "how it ended is not known".to_owned() } else { String::new() },
                    members: Vec::new(),
                });
                let end = run.end().min(report.now);
                let (kind, what) = match run.outcome {
                    RunOutcome::Succeeded => (LogKind::Succeeded, "succeeded"),
                    RunOutcome::Failed => (LogKind::Failed, "failed"),
                    RunOutcome::Retry => (LogKind::Retry, "retry"),
                    RunOutcome::Canceled => (LogKind::Canceled, "canceled"),
                    RunOutcome::InProgress => (LogKind::Running, "still running"),
                    RunOutcome::Crashed => (LogKind::Crashed, "crashed: started and never finished"),
                    RunOutcome::Abandoned => (LogKind::Zombie, "abandoned: released by the scheduler"),
                    RunOutcome::Unknown => continue,
                };
                let at = if run.outcome == RunOutcome::InProgress { run.start } else { end };
                // A failed run says its failed step's own message, not the outcome line.
                let text = match running_text(run) {
                    Some(going) => going,
                    None => {
                        let why = run.why();
                        if why.is_empty() { format!("{what} after {} s", run.duration_secs) } else { why }
                    }
                };
                out.push(LogEvent { at, job_id: job.id.clone(), kind, text, members: Vec::new() });
            }
        }
        // Consecutive misses with one cause become one line (a zombie day of an every-minute
        // job is one line of 1,440, not 1,440 lines); anything else between them ends it.
        let mut group: Option<(&MissCause, Vec<DateTime<Utc>>)> = None;
        let flush = |group: &mut Option<(&MissCause, Vec<DateTime<Utc>>)>, out: &mut Vec<LogEvent>| {
            if let Some((cause, members)) = group.take() {
                let text = miss_text(cause);
                let at = *members.last().expect("a group has a member");
                let members = if members.len() > 1 { members } else { Vec::new() };
                out.push(LogEvent { at, job_id: job.id.clone(), kind: LogKind::Missed, text, members });
            }
        };
        for (occ, outcome) in job.forecast.occurrences.iter().zip(&job.reconciliation.outcomes) {
            if !window.contains(occ.at) {
                continue;
            }
            if let Outcome::Missed { cause } = outcome {
                match &mut group {
                    Some((c, members)) if *c == cause => members.push(occ.at),
                    _ => {
                        flush(&mut group, &mut out);
                        group = Some((cause, vec![occ.at]));
                    }
                }
                continue;
            }
            flush(&mut group, &mut out);
            let (kind, text) = match outcome {
                Outcome::Late { delay_secs, .. } => (LogKind::Late, late_text(*delay_secs)),
                Outcome::SkippedRunning { .. } => {
                    (LogKind::Skipped, "skipped: the previous run was still going".to_owned())
                }
                _ => continue,
            };
            out.push(LogEvent { at: occ.at, job_id: job.id.clone(), kind, text, members: Vec::new() });
        }
        flush(&mut group, &mut out);
    }
    for p in &report.context.zombie_periods {
        if window.contains(p.start) {
            out.push(LogEvent {
                at: p.start,
                job_id: String::new(),
                kind: LogKind::Zombie,
                text: format!(
                    "the scheduler started no job until {} although runs were due",
                    p.end.format("%Y-%m-%d %H:%M:%S UTC")
                ),
                members: Vec::new(),
            });
        }
    }
    for g in report.gaps.iter().filter(|g| g.kind == crate::gaps::GapKind::Stopped) {
        if window.contains(g.from()) {
            out.push(LogEvent {
                at: g.from(),
                job_id: String::new(),
                kind: LogKind::SchedulerStop,
                text: stop_text(g),
                members: Vec::new(),
            });
        }
    }
    for s in &report.context.agent_starts {
        if window.contains(*s) {
            out.push(LogEvent {
                at: *s,
                job_id: String::new(),
                kind: LogKind::AgentStart,
                text: "the scheduler started".into(),
                members: Vec::new(),
            });
        }
    }
    out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.job_id.cmp(&b.job_id)).then_with(|| a.kind.cmp(&b.kind)));
    out
}

/// What the log says of a run still going whose scheduler names the step it executes now:
/// "running step 3 (Load staging) since 2026-11-22 11:50:00 UTC" (when that step began, else
/// the run), and the step that failed before it, if one did (", after step 2 (Load): …").
/// `None` for a finished run or one without such a step.
fn running_text(run: &crate::Run) -> Option<String> {
    if run.outcome != RunOutcome::InProgress {
        return None;
    }
    let step = crate::vocab::executing(&run.steps)?;
    let label = step.label();
    let since = step.start.unwrap_or(run.start).format("%Y-%m-%d %H:%M:%S UTC");
    let mut text = format!("running {label} since {since}");
    if run.failed_step().is_some() {
        text.push_str(", after ");
        text.push_str(&run.why());
    }
    Some(text)
}

/// Why a run was missed, as the log says it.
fn miss_text(cause: &MissCause) -> String {
    match cause {
        MissCause::NoRun => "no run started".to_owned(),
        MissCause::AgentZombie { .. } => "no run started: the scheduler started nothing at all then".to_owned(),
        MissCause::AgentDown { restarted_at } => {
            format!("no run started: the scheduler was down until {}", restarted_at.format("%Y-%m-%d %H:%M:%S UTC"))
        }
        MissCause::SchedulerStopped { since } => {
            format!("no run started: the scheduler is stopped (down by {} at the latest)", since.format(UTC_TEXT))
        }
    }
}

const UTC_TEXT: &str = "%Y-%m-%d %H:%M:%S UTC";

/// What the log says when a scheduler stopped: by when at the latest, and its last sign of life.
fn stop_text(gap: &crate::gaps::SchedulerGap) -> String {
    let mut t = format!("the scheduler stopped: down by {} at the latest", gap.by.format(UTC_TEXT));
    match gap.last_seen {
        Some(seen) => t.push_str(&format!("; last seen {}", seen.format(UTC_TEXT))),
        None => t.push_str("; no run in the window before"),
    }
    if gap.back.is_none() {
        t.push_str("; still stopped");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::{LogKind, LogTally, late_text, sort_key, words_number_words};
    use crate::Window;
    use chrono::{DateTime, TimeDelta, Utc};

    #[test]
    fn a_tallys_days_are_the_24_hours_ending_a_whole_number_of_days_before_its_end() {
        let end: DateTime<Utc> = "2026-11-27T09:30:00Z".parse().expect("a time");
        let t = LogTally { window: Window::ending_at(end, TimeDelta::hours(60)), jobs: Vec::new(), cells: Vec::new() };
        assert_eq!(t.days(), 3, "60 hours are 2 days and a half");
        let ns = TimeDelta::nanoseconds(1);
        assert_eq!(t.day_of(end), Some(0), "a line at the window's end (a run that ended then) is day 0's");
        assert_eq!(t.day_of(end + TimeDelta::days(3)), Some(0), "and one after it");
        assert_eq!(t.day_of(end - ns), Some(0));
        assert_eq!(t.day_of(end - TimeDelta::days(1)), Some(0), "a day includes its start");
        assert_eq!(t.day_of(end - TimeDelta::days(1) - ns), Some(1));
        assert_eq!(t.day_of(end - TimeDelta::hours(60)), Some(2), "the window's start");
        assert_eq!(t.day_of(end - TimeDelta::hours(60) - ns), None);
        assert_eq!(t.day(0), Window { start: end - TimeDelta::days(1), end: DateTime::<Utc>::MAX_UTC });
        assert_eq!(
            t.day(2),
            Window { start: end - TimeDelta::hours(60), end: end - TimeDelta::days(2) },
            "the last day is cut at the window's start"
        );
        for k in 0..3 {
            assert_eq!(t.day_of(t.day(k).start), Some(k));
            assert_eq!(t.day_of(t.day(k).start - ns), (k < 2).then_some(k + 1));
            if k > 0 {
                assert_eq!(t.day_of(t.day(k).end - ns), Some(k));
                assert_eq!(t.day_of(t.day(k).end), Some(k - 1));
            }
        }
    }

    #[test]
    fn a_running_run_names_its_step_executing_now() {
        use super::running_text;
        use crate::{Run, RunOutcome, Step, Trigger};
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let step = |id: i64, name: &str, outcome: RunOutcome, start: &str, message: &str| Step {
            id,
            name: name.into(),
            outcome: Some(outcome),
            start: Some(t(start)),
            message: message.into(),
            ..Step::default()
        };
        let mut run = Run {
            start: t("2026-11-22T11:40:00Z"),
            duration_secs: 1200,
            outcome: RunOutcome::InProgress,
            trigger: Trigger::Schedule(None),
            message: String::new(),
            steps: vec![
                step(1, "Extract", RunOutcome::Succeeded, "2026-11-22T11:40:00Z", ""),
                step(3, "Load staging", RunOutcome::InProgress, "2026-11-22T11:50:00Z", ""),
            ],
        };
        assert_eq!(running_text(&run).as_deref(), Some("running step 3 (Load staging) since 2026-11-22 11:50:00 UTC"));
        // A step that failed before it (and went to this one) is said after it.
        run.steps[0] = step(1, "Extract", RunOutcome::Failed, "2026-11-22T11:40:00Z", "Login failed for user 'etl'.");
        assert_eq!(
            running_text(&run).as_deref(),
            Some(
                "running step 3 (Load staging) since 2026-11-22 11:50:00 UTC, after step 1 (Extract): Login failed for user 'etl'."
            )
        );
        // Without a step executing now, or once it ended, the line is as it was.
        run.steps.pop();
        assert_eq!(running_text(&run), None);
        run.outcome = RunOutcome::Succeeded;
        assert_eq!(running_text(&run), None);
    }

    #[test]
    fn lateness_is_said_in_the_largest_units() {
        assert_eq!(late_text(42), "started 42 s late");
        assert_eq!(late_text(125), "started 2 min 5 s late");
        assert_eq!(late_text(3600), "started 1 h 0 min late");
        assert_eq!(late_text(90_000), "started 1 d 1 h late");
    }

    #[test]
    fn numbers_in_words_are_formats() {
        for n in [0, 1, -1, 9, 10, 59, -60, 86_400, 1_234_567_890, i64::MAX, i64::MIN, i64::MIN + 1] {
            assert_eq!(words_number_words("succeeded", " after ", n, " s"), format!("succeeded after {n} s"));
            assert_eq!(words_number_words("started", " ", n, " s late"), format!("started {n} s late"));
        }
    }

    /// Lines sorted by packed keys come in the stable sort's order (nanoseconds, the ends of
    /// time and the largest ranks included).
    #[test]
    fn lines_sort_as_the_stable_sort_does() {
        use super::{LogEvent, sort_lines};
        let base = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z").unwrap().to_utc();
        let mut seed: u64 = 7;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for case in 0..40 {
            let n = 1 + next(300) as usize;
            let mut lines = Vec::new();
            let mut ranks = Vec::new();
            for i in 0..n {
                let mut at = base + TimeDelta::seconds(next(50) as i64 * 60 + next(3) as i64);
                // Nanoseconds (case 1); with the ends of time too, more than 64 bits (case 2).
                if case % 4 == 1 || case % 4 == 2 {
                    at += TimeDelta::nanoseconds(next(3) as i64 * 400_000_000);
                }
                if case % 4 == 2 && i % 17 == 0 {
                    at = if i % 2 == 0 { DateTime::<Utc>::MIN_UTC } else { DateTime::<Utc>::MAX_UTC };
                }
                let kind = LogKind::ALL[next(12) as usize];
                lines.push(LogEvent { at, job_id: String::new(), kind, text: format!("{i}"), members: Vec::new() });
                ranks.push(if case % 4 == 3 { u32::MAX - next(3) as u32 } else { next(5) as u32 });
            }
            let mut want: Vec<(LogEvent, u32)> = lines.iter().cloned().zip(ranks.iter().copied()).collect();
            want.sort_by(|(a, ra), (b, rb)| b.at.cmp(&a.at).then(ra.cmp(rb)).then(a.kind.cmp(&b.kind)));
            let want: Vec<LogEvent> = want.into_iter().map(|(e, _)| e).collect();
            assert_eq!(sort_lines(lines, &ranks), want, "case {case}");
        }
        assert!(sort_lines(Vec::new(), &[]).is_empty());
    }

    #[test]
    fn packed_sort_keys_order_as_the_tuples() {
        let base = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z").unwrap().to_utc();
        let mut ats = vec![DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC, DateTime::<Utc>::UNIX_EPOCH];
        for s in [-86_400i64, -1, 0, 1, 59, 3_600] {
            ats.push(base + TimeDelta::seconds(s));
            ats.push(base + TimeDelta::seconds(s) + TimeDelta::nanoseconds(1));
            ats.push(base + TimeDelta::seconds(s) + TimeDelta::nanoseconds(999_999_999));
        }
        let mut keys = Vec::new();
        for &at in &ats {
            for rank in [0, 1, 7, u32::MAX] {
                for kind in LogKind::ALL {
                    keys.push((std::cmp::Reverse(at), rank, kind));
                }
            }
        }
        for a in &keys {
            for b in &keys {
                assert_eq!(sort_key(a.0.0, a.1, a.2).cmp(&sort_key(b.0.0, b.1, b.2)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn keys_round_trip_and_labels_are_words() {
        for k in LogKind::ALL {
            assert_eq!(LogKind::from_key(k.key()), Some(k));
            assert!(!k.label().contains('-') && !k.label().contains("agent"), "{k:?}: {}", k.label());
        }
        assert_eq!(LogKind::AgentStart.key(), "agent-start", "the stable machine key");
        assert_eq!(LogKind::AgentStart.label(), "scheduler start");
        assert_eq!(LogKind::from_key("agent start"), None);
    }
}
