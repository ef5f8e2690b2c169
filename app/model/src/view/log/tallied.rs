//! The fleet-wide log of a large fleet, read from each instance's tally ([`LogTally`]: how many
//! lines of each kind each job has on each day, kept with each judgment) and from a few days of
//! lines at a time ([`InstanceLog::lines`]), never from every instance's whole log at once.
//!
//! The counts of a filter are the tallies' for the days the time range covers whole, and the
//! lines' for the days it cuts. A page takes the day of the cursor of every instance that has
//! lines there under the filter, then the day before, then two more, four more…, until the page
//! is full of lines newer than any day not yet taken: what it lists, and in which order, is what
//! the whole log would list ([`super::FleetLog`]), and at most a page and the lines of one
//! instance's days are held at once.
use super::*;
use crate::engine::log::LogTally;
use futures_util::StreamExt;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One instance's log of one read, as the fleet-wide log of a large fleet reads it.
pub trait InstanceLog: Send + Sync {
    /// How many lines of each kind each job has on each day of the read's log (its window
    /// ends at the read's "now"; it holds at least the days asked for).
    fn tally(&self) -> &LogTally;
    /// The instance's zone.
    fn tz(&self) -> Tz;
    /// Job id → name, for every job of the read.
    fn names(&self) -> &HashMap<String, String>;
    /// The lines on the tally's days that `span` covers (whole days), as the instance's log
    /// lists them, in its order. Without `words`, a line may lack words the store keeps (a
    /// succeeded run's message): which lines there are, and their order, are the same.
    fn lines(&self, span: Window, words: bool) -> BoxFuture<'_, Vec<LogEvent>>;
}

/// An [`InstanceLog`] over a report already made: its whole log, derived once.
pub struct ReportLog {
    tally: LogTally,
    tz: Tz,
    names: HashMap<String, String>,
    lines: Arc<Vec<LogEvent>>,
}

impl ReportLog {
    pub fn new(report: &Arc<InstanceReport>, events: &[LogEvent]) -> ReportLog {
        ReportLog {
            tally: crate::engine::log::tally(report, events),
            tz: report.tz,
            names: report.jobs.iter().map(|j| (j.id.clone(), j.name.clone())).collect(),
            lines: derived_log(report, events),
        }
    }
}

impl InstanceLog for ReportLog {
    fn tally(&self) -> &LogTally {
        &self.tally
    }
    fn tz(&self) -> Tz {
        self.tz
    }
    fn names(&self) -> &HashMap<String, String> {
        &self.names
    }
    fn lines(&self, span: Window, _words: bool) -> BoxFuture<'_, Vec<LogEvent>> {
        Box::pin(async move { self.lines.iter().filter(|e| span.contains(e.at)).cloned().collect() })
    }
}

/// What lines a filter keeps, the kind aside (the counts are of every kind).
pub(super) struct Filter {
    pub problems_only: bool,
    pub job: Option<String>,
    pub kind: Option<LogKind>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

/// One instance of the fleet-wide log.
struct Listed {
    name: String,
    log: Arc<dyn InstanceLog>,
    /// The stretch of its lines under the filter's time range (its window's start on; a line
    /// after its window's end, of a run that ended then, is still in it).
    range: Window,
    /// Each day's lines and events under the filter (its kind aside), by kind, from the tally:
    /// summed once, asked for on every round of a page.
    by_day: Vec<Vec<(LogKind, u32, u32)>>,
    /// Each day's lines the filter lists (its kind too).
    listed: Vec<u64>,
    /// The tally's days in the log's window.
    days: u32,
}

impl Listed {
    /// Whether day `k` is whole in the range (`Some(true)`), cut by it (`Some(false)`) or
    /// out of it.
    fn day_in_range(&self, k: u32) -> Option<bool> {
        let d = self.log.tally().day(k);
        if k >= self.days || d.end <= self.range.start || d.start >= self.range.end {
            return None;
        }
        Some(self.range.start <= d.start && d.end <= self.range.end)
    }

    /// The tally's lines and events on day `k` under the filter, by kind.
    fn tallied(&self, k: u32) -> &[(LogKind, u32, u32)] {
        self.by_day.get(k as usize).map_or(&[], Vec::as_slice)
    }

    /// How many lines on day `k` the filter lists (its kind too), by the tally.
    fn listed_on(&self, k: u32) -> u64 {
        self.listed.get(k as usize).copied().unwrap_or_default()
    }

    fn passes(&self, e: &LogEvent, f: &Filter) -> bool {
        (!f.problems_only || e.kind.is_problem())
            && f.job.as_deref().is_none_or(|j| {
                job_matches(j, &e.job_id, self.log.names().get(&e.job_id).map(String::as_str).unwrap_or_default())
            })
            && self.range.contains(e.at)
    }

    /// The lines of days `first..=last` (the tally's numbers: `last` the oldest), with their
    /// `words` or not ([`InstanceLog::lines`]).
    async fn lines_of(&self, first: u32, last: u32, words: bool) -> Vec<LogEvent> {
        let t = self.log.tally();
        self.log.lines(Window { start: t.day(last).start, end: t.day(first).end }, words).await
    }
}

/// A line that may be on the page, ordered as the log lists them: newest first, then by
/// instance name, then the instance's own order.
struct Candidate {
    at: DateTime<Utc>,
    instance: usize,
    /// How many lines of its instance before it have its time, job and kind (to find it again
    /// among the same day's lines with their words).
    twin: u32,
    /// Which derivation, and where in it (ties of one instance are all of one day, so of one
    /// derivation).
    seq: (u32, u32),
    line: LogEvent,
}

impl Candidate {
    fn key(&self) -> (Reverse<DateTime<Utc>>, usize, (u32, u32)) {
        (Reverse(self.at), self.instance, self.seq)
    }
}
impl PartialEq for Candidate {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Candidate {
    /// Later in the log is greater: the heap's top is the line that would leave first.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key().cmp(&o.key())
    }
}

/// For each line, how many lines before it have its time, job and kind: with those, the line
/// is found again among the same days' lines analysed another time.
fn twins(lines: &[LogEvent]) -> Vec<u32> {
    let mut seen: HashMap<(DateTime<Utc>, &str, LogKind), u32> = HashMap::new();
    lines
        .iter()
        .map(|e| {
            let n = seen.entry((e.at, e.job_id.as_str(), e.kind)).or_default();
            *n += 1;
            *n - 1
        })
        .collect()
}

/// How many instances' days are analysed at once.
const AT_ONCE: usize = 4;

/// The most days one analysis covers (consecutive days with lines on them).
const DAYS_AT_ONCE: u32 = 3;

/// A cursor's `skip` beyond this many lines at one millisecond is taken as this many.
const SKIP_MOST: usize = 100_000;

/// The fleet-wide log under a filter, as tallies and days of lines.
pub(super) struct Tallied {
    listed: Vec<Listed>,
    filter: Filter,
}

/// A page of [`Tallied`]: its lines, where the next starts, and how many lines come before it.
pub(super) struct TalliedPage {
    pub lines: Vec<(usize, LogEvent)>,
    pub next_cursor: Option<(i64, usize)>,
    pub offset: usize,
}

impl Tallied {
    /// `logs`, sorted by name, each with its log's window of `days` days.
    pub fn new(logs: Vec<(String, Arc<dyn InstanceLog>)>, days: u32, filter: Filter) -> Tallied {
        let listed = logs
            .into_iter()
            .map(|(name, log)| {
                let t = log.tally();
                let start = t.last_days(days).start;
                let range = Window {
                    start: filter.from.map_or(start, |f| f.max(start)),
                    end: filter.to.unwrap_or(DateTime::<Utc>::MAX_UTC),
                };
                let job_ok: Vec<bool> = t
                    .jobs
                    .iter()
                    .map(|id| {
                        let name = log.names().get(id).map(String::as_str).unwrap_or_default();
                        filter.job.as_deref().is_none_or(|j| job_matches(j, id, name))
                    })
                    .collect();
                let days = days.min(t.days());
                let mut by_day: Vec<BTreeMap<LogKind, (u32, u32)>> = vec![BTreeMap::new(); days as usize];
                for c in t.cells.iter().filter(|c| {
                    c.day < days && job_ok[c.job as usize] && (!filter.problems_only || c.kind.is_problem())
                }) {
                    let sum = by_day[c.day as usize].entry(c.kind).or_default();
                    sum.0 += c.lines;
                    sum.1 += c.events;
                }
                let by_day: Vec<Vec<(LogKind, u32, u32)>> =
                    by_day.into_iter().map(|d| d.into_iter().map(|(k, (l, e))| (k, l, e)).collect()).collect();
                let listed = by_day
                    .iter()
                    .map(|d| {
                        d.iter()
                            .filter(|(k, ..)| filter.kind.is_none_or(|x| x == *k))
                            .map(|(_, l, _)| u64::from(*l))
                            .sum()
                    })
                    .collect();
                Listed { name, log, range, by_day, listed, days }
            })
            .collect();
        Tallied { listed, filter }
    }

    pub fn instance_name(&self, i: usize) -> &str {
        &self.listed[i].name
    }

    pub fn job_name(&self, i: usize, id: &str) -> &str {
        self.listed[i].log.names().get(id).map(String::as_str).unwrap_or_default()
    }

    /// Lines and events of each kind under the filter (every kind), and how many lines it
    /// lists (its kind too).
    pub async fn counts(&self) -> (BTreeMap<LogKind, (usize, usize)>, usize) {
        let f = &self.filter;
        let mut counts: BTreeMap<LogKind, (usize, usize)> = BTreeMap::new();
        // Days the range cuts, with a line under the filter: their lines counted one by one.
        let mut cut = Vec::new();
        for (i, l) in self.listed.iter().enumerate() {
            for k in 0..l.days {
                match l.day_in_range(k) {
                    None => {}
                    Some(true) => {
                        for &(kind, lines, events) in l.tallied(k) {
                            let c = counts.entry(kind).or_default();
                            c.0 += lines as usize;
                            c.1 += events as usize;
                        }
                    }
                    Some(false) if !l.tallied(k).is_empty() => cut.push((i, k)),
                    Some(false) => {}
                }
            }
        }
        let mut analysed = futures_util::stream::iter(cut)
            .map(|(i, k)| async move { (i, self.listed[i].lines_of(k, k, false).await) })
            .buffer_unordered(AT_ONCE);
        while let Some((i, lines)) = analysed.next().await {
            let l = &self.listed[i];
            for e in lines.iter().filter(|e| l.passes(e, f)) {
                let c = counts.entry(e.kind).or_default();
                c.0 += 1;
                c.1 += e.count();
            }
        }
        let listed = match f.kind {
            Some(k) => counts.get(&k).map_or(0, |c| c.0),
            None => counts.values().map(|c| c.0).sum(),
        };
        (counts, listed)
    }

    /// The page's lines with their words: each instance on it analysed again, with the words
    /// the store keeps, over the days of its lines there.
    async fn put_words(&self, shown: &mut [Candidate]) {
        let mut spans: BTreeMap<usize, (u32, u32)> = BTreeMap::new();
        for c in shown.iter() {
            let t = self.listed[c.instance].log.tally();
            let Some(day) = t.day_of(c.at) else { continue };
            let s = spans.entry(c.instance).or_insert((day, day));
            *s = (s.0.min(day), s.1.max(day));
        }
        let mut analysed = futures_util::stream::iter(spans)
            .map(|(i, (newest, oldest))| async move { (i, self.listed[i].lines_of(newest, oldest, true).await) })
            .buffer_unordered(AT_ONCE);
        while let Some((i, lines)) = analysed.next().await {
            let worded: HashMap<(DateTime<Utc>, &str, LogKind, u32), &LogEvent> =
                lines.iter().zip(twins(&lines)).map(|(e, n)| ((e.at, e.job_id.as_str(), e.kind, n), e)).collect();
            for c in shown.iter_mut().filter(|c| c.instance == i) {
                if let Some(e) = worded.get(&(c.at, c.line.job_id.as_str(), c.line.kind, c.twin)) {
                    c.line.text.clone_from(&e.text);
                }
            }
        }
    }

    /// The page of at most `limit` lines from `cursor` (lines at or before its millisecond,
    /// after skipping that many at it; the newest without one).
    pub async fn page(&self, cursor: Option<(i64, usize)>, limit: usize) -> TalliedPage {
        let f = &self.filter;
        let ms = cursor.map(|c| c.0);
        let listed_kind = |e: &LogEvent| f.kind.is_none_or(|k| e.kind == k);
        // The last instant whose millisecond is the cursor's: lines at or before the cursor are before it.
        let edge =
            ms.and_then(DateTime::<Utc>::from_timestamp_millis).map(|t| t + chrono::TimeDelta::nanoseconds(999_999));
        let at_or_before = |e: &LogEvent| ms.is_none_or(|ms| e.at.timestamp_millis() <= ms);
        let need = cursor.map_or(0, |c| c.1.min(SKIP_MOST)) + limit + 1;
        let mut heap: BinaryHeap<Candidate> = BinaryHeap::new();
        // Lines listed after the cursor's millisecond, and at it.
        let (mut above, mut same) = (0usize, 0usize);
        let mut derivations = 0u32;
        // Per instance: its cursor day, and the oldest day taken so far (none: `cursor day - 1`).
        let mut next_day: Vec<Option<u32>> = Vec::with_capacity(self.listed.len());
        // Days after the cursor's that the range cuts: their lines counted one by one.
        let mut cut = Vec::new();
        for (i, l) in self.listed.iter().enumerate() {
            let t = l.log.tally();
            // The cursor's day; before the window, every line is after the cursor.
            let first = match edge {
                None => Some(0),
                Some(edge) => match t.day_of(edge) {
                    Some(k) => Some(k),
                    None if edge < t.window.start => None,
                    None => Some(0),
                },
            };
            let first = first.filter(|k| *k < l.days);
            // Days after the cursor's: counted, by the tally where whole in the range.
            let newer = first.unwrap_or(l.days);
            for k in 0..newer {
                match l.day_in_range(k) {
                    None => {}
                    Some(true) => above += l.listed_on(k) as usize,
                    Some(false) if !l.tallied(k).is_empty() => cut.push((i, k)),
                    Some(false) => {}
                }
            }
            next_day.push(first);
        }
        let mut analysed = futures_util::stream::iter(cut)
            .map(|(i, k)| async move { (i, self.listed[i].lines_of(k, k, false).await) })
            .buffer_unordered(AT_ONCE);
        while let Some((i, lines)) = analysed.next().await {
            let l = &self.listed[i];
            above += lines.iter().filter(|e| l.passes(e, f) && listed_kind(e)).count();
        }
        // Rounds: take the next 1, 1, 2, 4… days of every instance.
        let mut depth = 1u32;
        loop {
            let mut taken = Vec::new();
            for (i, l) in self.listed.iter().enumerate() {
                let Some(from) = next_day[i] else { continue };
                let to = (from + depth - 1).min(l.days - 1);
                next_day[i] = (to + 1 < l.days).then_some(to + 1);
                // Only days with a line listed in range.
                let wanted: Vec<u32> =
                    (from..=to).filter(|&k| l.day_in_range(k).is_some() && l.listed_on(k) > 0).collect();
                // Runs of consecutive days, a few at most each: an analysis holds a few days.
                for k in wanted {
                    match taken.last_mut() {
                        Some((j, newest, oldest)) if *j == i && *oldest + 1 == k && k - *newest < DAYS_AT_ONCE => {
                            *oldest = k
                        }
                        _ => taken.push((i, k, k)),
                    }
                }
            }
            // A few instances' days at once (their analyses run on the blocking pool), taken
            // in as they come: a line's place is its key, not its arrival.
            let mut analysed = futures_util::stream::iter(taken)
                .map(|(i, newest, oldest)| async move { (i, self.listed[i].lines_of(newest, oldest, false).await) })
                .buffer_unordered(AT_ONCE);
            while let Some((i, lines)) = analysed.next().await {
                let l = &self.listed[i];
                derivations += 1;
                let twin_of = twins(&lines);
                for (j, e) in lines.into_iter().enumerate() {
                    if !(l.passes(&e, f) && listed_kind(&e)) {
                        continue;
                    }
                    if !at_or_before(&e) {
                        above += 1;
                        continue;
                    }
                    if ms == Some(e.at.timestamp_millis()) {
                        same += 1;
                    }
                    heap.push(Candidate {
                        at: e.at,
                        instance: i,
                        twin: twin_of[j],
                        seq: (derivations, j as u32),
                        line: e,
                    });
                    if heap.len() > need {
                        heap.pop();
                    }
                }
            }
            // Every line not taken yet is before the newest end of a day not taken.
            let untaken = self
                .listed
                .iter()
                .zip(&next_day)
                .filter_map(|(l, k)| {
                    let k = (*k)?;
                    (k..l.days)
                        .find(|&k| l.day_in_range(k).is_some() && l.listed_on(k) > 0)
                        .map(|k| l.log.tally().day(k).end)
                })
                .max();
            let Some(untaken) = untaken else { break };
            if heap.len() >= need && heap.peek().is_some_and(|worst| worst.at >= untaken) {
                break;
            }
            depth = depth.saturating_mul(2);
        }
        let lines: Vec<Candidate> = heap.into_sorted_vec();
        let start = cursor.map_or(0, |c| c.1.min(same));
        let end = (start + limit).min(lines.len());
        let next_cursor = lines.get(end).map(|c| {
            let ms = c.at.timestamp_millis();
            (ms, lines[..end].iter().rev().take_while(|c| c.at.timestamp_millis() == ms).count())
        });
        let mut shown: Vec<Candidate> = lines.into_iter().skip(start).take(end - start).collect();
        self.put_words(&mut shown).await;
        TalliedPage {
            lines: shown.into_iter().map(|c| (c.instance, c.line)).collect(),
            next_cursor,
            offset: above + start,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::log::TallyCell;

    /// An instance whose lines have words only when asked for them.
    struct Fake {
        tally: LogTally,
        names: HashMap<String, String>,
        bare: Vec<LogEvent>,
        worded: Vec<LogEvent>,
    }

    impl InstanceLog for Fake {
        fn tally(&self) -> &LogTally {
            &self.tally
        }
        fn tz(&self) -> Tz {
            Tz::UTC
        }
        fn names(&self) -> &HashMap<String, String> {
            &self.names
        }
        fn lines(&self, span: Window, words: bool) -> BoxFuture<'_, Vec<LogEvent>> {
            let lines = if words { &self.worded } else { &self.bare };
            Box::pin(async move { lines.iter().filter(|e| span.contains(e.at)).cloned().collect() })
        }
    }

    /// Lines every `step` minutes over two days ending at `end`, two at each time (twins: the
    /// same time, job and kind), the worded ones saying which.
    fn fake(end: DateTime<Utc>, step: i64, who: &str) -> Fake {
        let window = Window::ending_at(end, chrono::TimeDelta::days(2));
        let mut worded = Vec::new();
        let mut at = window.start;
        while at < end {
            for twin in ["first", "second"] {
                worded.push(LogEvent {
                    at,
                    job_id: "j".into(),
                    kind: LogKind::Succeeded,
                    text: format!("{who} {} {twin}", at.format("%d %H:%M")),
                    members: Vec::new(),
                });
            }
            at += chrono::TimeDelta::minutes(step);
        }
        let bare: Vec<LogEvent> = worded.iter().map(|e| LogEvent { text: String::new(), ..e.clone() }).collect();
        let mut tally = LogTally { window, jobs: vec!["j".into()], cells: Vec::new() };
        for day in 0..2 {
            let n = bare.iter().filter(|e| tally.day_of(e.at) == Some(day)).count() as u32;
            tally.cells.push(TallyCell { day, job: 0, kind: LogKind::Succeeded, lines: n, events: n });
        }
        Fake { tally, names: HashMap::from([("j".into(), "Job".into())]), bare, worded }
    }

    /// `f`'s answer: nothing here waits.
    fn now<F: std::future::Future>(f: F) -> F::Output {
        use futures_util::FutureExt;
        f.now_or_never().expect("nothing waits")
    }

    #[test]
    fn a_page_from_tallies_has_every_lines_own_words_twins_apart() {
        let end: DateTime<Utc> = "2026-11-27T09:00:00Z".parse().unwrap();
        let logs: Vec<(String, Arc<dyn InstanceLog>)> = vec![
            ("A".into(), Arc::new(fake(end, 7, "A"))),
            ("B".into(), Arc::new(fake(end - chrono::TimeDelta::minutes(30), 11, "B"))),
        ];
        // The whole log, as it lists: newest first, then by instance, then its own order.
        let mut all: Vec<(DateTime<Utc>, usize, usize, String)> = Vec::new();
        for (i, (_, log)) in logs.iter().enumerate() {
            let span = Window { start: log.tally().window.start, end: DateTime::<Utc>::MAX_UTC };
            for (j, e) in now(log.lines(span, true)).into_iter().enumerate() {
                all.push((e.at, i, j, e.text));
            }
        }
        all.sort_by_key(|(at, i, j, _)| (std::cmp::Reverse(*at), *i, *j));
        let filter = Filter { problems_only: false, job: None, kind: None, from: None, to: None };
        let log = Tallied::new(logs, 2, filter);
        assert_eq!(now(log.counts()).1, all.len());
        let mut cursor = None;
        let mut seen = Vec::new();
        for _ in 0..all.len() {
            let page = now(log.page(cursor, 97));
            assert_eq!(page.offset, seen.len(), "a page starts where the last ended");
            seen.extend(page.lines.iter().map(|(i, e)| (e.at, *i, e.text.clone())));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let expected: Vec<(DateTime<Utc>, usize, String)> = all.into_iter().map(|(at, i, _, t)| (at, i, t)).collect();
        assert_eq!(seen.len(), expected.len());
        assert_eq!(seen, expected, "every line, in order, with its own words");
    }
}
