//! The scheduler log across the fleet: each instance's lines ([`crate::engine::log::derive`],
//! cached per report), filtered by instance, job, kind and time range, merged newest first,
//! counted over the whole filter, and paged by cursor ([`FleetLog::page`]) or taken a piece
//! at a time for the CSV export ([`FleetLog::piece`]).
//!
//! A fleet of more than [`FLEET_LOG_WHOLE`] instances is not read whole: its log is counted
//! from each instance's tally of lines and a page is made from a few days of lines at a time
//! ([`tallied`]), listing the same lines in the same order.
//!
//! The merged order is total and stable: newest first, then by instance name, then each
//! instance's own order (instance lines, then by job, then kind). A cursor `ms~skip` means
//! "the lines at or before `ms`, after skipping `skip` lines at exactly `ms`", so the same
//! cursor works for one instance and for the fleet, and new lines arriving above a page do
//! not move it.
use super::*;
use crate::engine::log::LogKind;
use chrono::{LocalResult, NaiveDate, NaiveDateTime};
use std::collections::{BTreeMap, HashMap};

mod tallied;
pub use tallied::{InstanceLog, ReportLog};

/// Above this many instances, the fleet-wide log is read from tallies ([`tallied`]).
pub const FLEET_LOG_WHOLE: usize = 50;

/// Lines per piece of a large fleet's CSV export, at least.
const TALLIED_PIECE: usize = 4_096;

/// The derived log of a report (and the source's own events), once per report.
fn derived_log(report: &Arc<InstanceReport>, events: &[LogEvent]) -> Arc<Vec<LogEvent>> {
    static CACHE: std::sync::OnceLock<ReportCache<Vec<LogEvent>>> = std::sync::OnceLock::new();
    per_report(&CACHE, report, events.len(), || crate::engine::log::derive(report, events))
}

/// Whether a line of the job `id` named `name` passes the job filter `filter`: its id, or a
/// part of its name in any case. An instance-wide line (no job) never does.
pub fn job_matches(filter: &str, id: &str, name: &str) -> bool {
    let filter = filter.trim();
    !id.is_empty() && (id == filter || name.to_lowercase().contains(&filter.to_lowercase()))
}

/// A log cursor: lines at or before `ms`, after skipping `skip` lines at exactly `ms`.
fn parse_cursor(raw: &str) -> Result<(i64, usize), String> {
    let bad = || format!("cursor must look like 1763812800000~0 (from a page's next link), not {raw:?}");
    let (ms, skip) = raw.split_once('~').ok_or_else(bad)?;
    Ok((ms.trim().parse().map_err(|_| bad())?, skip.trim().parse().map_err(|_| bad())?))
}

/// The lines per page `raw` asks for.
fn parse_limit(raw: Option<&str>) -> Result<usize, String> {
    let Some(raw) = raw.filter(|l| !l.trim().is_empty()) else { return Ok(LOG_LINES) };
    raw.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=LOG_LIMIT_MAX).contains(n))
        .ok_or_else(|| format!("limit must be a number of lines from 1 to {}, not {raw:?}", count_text(LOG_LIMIT_MAX)))
}

/// An instant of the time range: RFC 3339 with its offset, or a wall-clock time (`T` or a
/// space between date and time, minutes or seconds; a date alone is its midnight) in `zone`.
/// A wall-clock time the clocks skipped is an error; one they repeated is the earlier.
pub fn parse_moment(field: &str, raw: &str, zone: Tz) -> Result<DateTime<Utc>, String> {
    let s = raw.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.to_utc());
    }
    let naive = ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().map(|d| d.and_time(NaiveTime::MIN)));
    let Some(naive) = naive else {
        return Err(format!(
            "{field} must be a date and time such as 2026-11-20T03:00 (in {}) or an instant such as 2026-11-20T03:00:00Z, not {raw:?}",
            zone.name()
        ));
    };
    match zone.from_local_datetime(&naive) {
        LocalResult::Single(t) => Ok(t.to_utc()),
        LocalResult::Ambiguous(earlier, _) => Ok(earlier.to_utc()),
        LocalResult::None => Err(format!(
            "{field}: {s} does not exist in {}, the clocks moved forward over it; choose a time after the change",
            zone.name()
        )),
    }
}

/// The wall-clock text of `t` in `zone`, as a `datetime-local` field shows it.
fn field_text(t: DateTime<Utc>, zone: Tz) -> String {
    let local = t.with_timezone(&zone);
    if local.format("%S").to_string() == "00" {
        local.format("%Y-%m-%dT%H:%M").to_string()
    } else {
        local.format("%Y-%m-%dT%H:%M:%S").to_string()
    }
}

/// `r`'s value, or `None` with its message noted as `field`'s.
fn checked<T>(invalid: &mut Vec<LogFieldError>, field: &str, r: Result<T, String>) -> Option<T> {
    r.map_err(|message| invalid.push(LogFieldError { field: field.to_owned(), message })).ok()
}

/// One instance's lines.
struct Read {
    name: String,
    report: Arc<InstanceReport>,
    log: Arc<Vec<LogEvent>>,
    /// Job id → name.
    names: HashMap<String, String>,
}

impl Read {
    fn job_name(&self, id: &str) -> &str {
        self.names.get(id).map(String::as_str).unwrap_or_default()
    }
}

/// The log under a filter, before paging: everything a page, the CSV export and their
/// counts are made from.
pub struct FleetLog {
    /// The page's data but its lines and paging.
    data: LogData,
    /// Where the page starts, when the cursor is valid.
    cursor: Option<(i64, usize)>,
    /// The zone of every line's time: the instances' own when those listed share one, else
    /// UTC (lines sorted by instant read in one zone; the CSV export writes the same).
    lines_zone: Tz,
    lines: Lines,
}

/// Where a [`FleetLog`]'s lines come from.
enum Lines {
    /// Every instance's whole log.
    Whole {
        /// The instances whose lines are listed, by name.
        reads: Vec<Read>,
        /// The lines under the whole filter, newest first: (read, line) indices.
        kept: Vec<(usize, usize)>,
    },
    /// Tallies and days of lines ([`tallied`]), the page made already.
    Tallied { log: tallied::Tallied, page: Option<tallied::TalliedPage> },
}

/// Where the next piece of a [`FleetLog`]'s CSV export starts.
#[derive(Clone, Copy, Debug)]
pub enum PieceAt {
    Index(usize),
    Cursor(i64, usize),
}

/// The log of `instance` (`None`: every instance of the fleet; a fleet of one has that
/// instance's header, as if chosen) over the `days`-long window
/// (30 days when a time range is asked: all Sundial keeps), under the filters of `q`. An
/// unknown instance, or one chosen by name that was never read, is an error; across the
/// fleet, an instance that cannot be read now gives its last good read's lines and is named
/// in [`LogInstance::unreachable`]. A filter the URL got wrong is named in
/// [`LogData::invalid`], and then no line is listed.
pub async fn fleet_log(
    backend: &dyn Backend,
    instance: Option<&str>,
    days: u32,
    q: &LogQuery,
) -> Result<FleetLog, ApiError> {
    fleet_log_scaled(backend, instance, days, q, FLEET_LOG_WHOLE).await
}

/// [`fleet_log`], read from tallies when the fleet-wide log has more than `whole_up_to`
/// instances (tests compare both ways on one fleet).
#[doc(hidden)]
pub async fn fleet_log_scaled(
    backend: &dyn Backend,
    instance: Option<&str>,
    days: u32,
    q: &LogQuery,
    whole_up_to: usize,
) -> Result<FleetLog, ApiError> {
    let nonempty = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    let (from_raw, to_raw) = (nonempty(&q.from), nonempty(&q.to));
    let days = if from_raw.is_some() || to_raw.is_some() { 30 } else { days };
    let statuses = backend.instances().await;
    let instance = instance.map(str::trim).filter(|i| !i.is_empty());
    let mut instances: Vec<LogInstance> = statuses
        .iter()
        .map(|s| LogInstance {
            name: s.name.clone(),
            tz: s.tz.clone(),
            scheduler: s.scheduler.clone(),
            listed: false,
            unreachable: None,
        })
        .collect();
    let scope: Vec<&str> = match instance {
        Some(i) => vec![i],
        None => statuses.iter().map(|s| s.name.as_str()).collect(),
    };
    // A fleet of one is that instance's log, with its header (zone, incidents).
    let headed = instance.is_some() || scope.len() == 1;
    let by_tally = instance.is_none() && scope.len() > whole_up_to;
    let mut reads = Vec::new();
    let mut logs: Vec<(String, Arc<dyn InstanceLog>)> = Vec::new();
    let mut head_of_chosen = None;
    for name in scope {
        let got = if by_tally {
            backend.instance_log(name, days).await.map(|log| (log.tz(), Err(log)))
        } else {
            backend.report(Some(name), days).await.map(|report| (report.tz, Ok(report)))
        };
        let (tz, got) = match got {
            Ok(r) => r,
            Err(e) if instance.is_some() => return Err(e.into()),
            Err(ReportError::UnknownInstance) => continue,
            Err(ReportError::Unavailable { reason, .. }) => {
                if let Some(i) = instances.iter_mut().find(|i| i.name == name) {
                    i.unreachable = Some(format!(
                        "{name} cannot be read ({reason}), and Sundial has no earlier read of it: none of its lines is listed"
                    ));
                }
                continue;
            }
        };
        let status = statuses.iter().find(|s| s.name == name);
        match instances.iter_mut().find(|i| i.name == name) {
            Some(i) => {
                i.listed = true;
                i.tz = Some(tz.name().to_owned());
                i.unreachable = status.and_then(stale_note);
            }
            // A backend that lists no such instance but reports it (a single fixed report).
            None => instances.push(LogInstance {
                name: name.to_owned(),
                tz: Some(tz.name().to_owned()),
                scheduler: Scheduler::default(),
                listed: true,
                unreachable: None,
            }),
        }
        let report = match got {
            Ok(report) => report,
            Err(log) => {
                logs.push((name.to_owned(), log));
                continue;
            }
        };
        let events = backend.source_log(Some(name)).await;
        if headed {
            let mut head = head(&report, days);
            decorate(backend, &mut head).await;
            head_of_chosen = Some(head);
        }
        reads.push(Read {
            name: name.to_owned(),
            log: derived_log(&report, &events),
            names: report.jobs.iter().map(|j| (j.id.clone(), j.name.clone())).collect(),
            report,
        });
    }
    reads.sort_by(|a, b| a.name.cmp(&b.name));
    logs.sort_by(|a, b| a.0.cmp(&b.0));

    // The zone of the time range's fields: the page's, else the instance's, else the
    // fleet's when all its instances share one, else UTC.
    let zones: Vec<Tz> = reads.iter().map(|r| r.report.tz).chain(logs.iter().map(|l| l.1.tz())).collect();
    let lines_zone = match zones.first() {
        Some(z) if zones.iter().all(|o| o.name() == z.name()) => *z,
        _ => Tz::UTC,
    };
    let range_zone = match nonempty(&q.zone) {
        Some(z) => Tz::from_name(&z).unwrap_or(Tz::UTC),
        None => lines_zone,
    };

    let mut invalid = Vec::new();
    let limit = checked(&mut invalid, "limit", parse_limit(q.limit.as_deref())).unwrap_or(LOG_LINES);
    let kind = nonempty(&q.kind).and_then(|k| {
        let known = LogKind::from_key(&k)
            .ok_or_else(|| format!("kind must be one of {}, not {k:?}", LogKind::ALL.map(|x| x.key()).join(", ")));
        checked(&mut invalid, "kind", known)
    });
    let cursor = nonempty(&q.cursor).and_then(|c| checked(&mut invalid, "cursor", parse_cursor(&c)));
    let from = from_raw.as_deref().and_then(|f| checked(&mut invalid, "from", parse_moment("from", f, range_zone)));
    let to = to_raw.as_deref().and_then(|t| checked(&mut invalid, "to", parse_moment("to", t, range_zone)));
    if let (Some(f), Some(t)) = (from, to)
        && f >= t
    {
        let shown = |t: DateTime<Utc>| field_text(t, range_zone);
        invalid.push(LogFieldError {
            field: "to".into(),
            message: format!("to ({}) must be after from ({}) in {}", shown(t), shown(f), range_zone.name()),
        });
    }
    let job = nonempty(&q.job);

    // Each listed instance's window, and its jobs' names.
    let windows: Vec<Window> =
        reads.iter().map(|r| r.report.window).chain(logs.iter().map(|(_, l)| l.tally().last_days(days))).collect();
    let mut job_names: Vec<String> = reads
        .iter()
        .flat_map(|r| r.names.values().cloned())
        .chain(logs.iter().flat_map(|(_, l)| l.names().values().cloned().collect::<Vec<_>>()))
        .collect();
    job_names.sort_by_key(|n| n.to_lowercase());
    job_names.dedup();

    let mut counts: BTreeMap<LogKind, (usize, usize)> = BTreeMap::new();
    let mut total = 0;
    let lines = if by_tally {
        let filter = tallied::Filter { problems_only: q.problems_only, job: job.clone(), kind, from, to };
        let log = tallied::Tallied::new(logs, days, filter);
        let page = if invalid.is_empty() {
            (counts, total) = log.counts().await;
            Some(log.page(cursor, limit).await)
        } else {
            None
        };
        Lines::Tallied { log, page }
    } else {
        let mut kept = Vec::new();
        if invalid.is_empty() {
            for (ri, r) in reads.iter().enumerate() {
                for (ei, e) in r.log.iter().enumerate() {
                    if (q.problems_only && !e.kind.is_problem())
                        || job.as_deref().is_some_and(|j| !job_matches(j, &e.job_id, r.job_name(&e.job_id)))
                        || from.is_some_and(|f| e.at < f)
                        || to.is_some_and(|t| e.at >= t)
                    {
                        continue;
                    }
                    let c = counts.entry(e.kind).or_default();
                    c.0 += 1;
                    c.1 += e.count();
                    if kind.is_none_or(|k| e.kind == k) {
                        kept.push((ri, ei));
                    }
                }
            }
            // Stable: ties keep the instances' name order and each instance's own order.
            kept.sort_by_key(|&(ri, ei)| std::cmp::Reverse(reads[ri].log[ei].at));
        }
        total = kept.len();
        Lines::Whole { reads, kept }
    };

    let window_start = windows.iter().map(|w| w.start).min().map(|t| point(t, lines_zone));
    let window_end = windows.iter().map(|w| w.end).max().map(|t| point(t, lines_zone));
    let text = |raw: &Option<String>, t: Option<DateTime<Utc>>| match t {
        Some(t) => field_text(t, range_zone),
        None => raw.clone().unwrap_or_default(),
    };
    let data = LogData {
        instance: head_of_chosen,
        instances,
        days,
        window_start,
        window_end,
        problems_only: q.problems_only,
        kind: kind.map(|k| k.key().to_owned()),
        job,
        from_text: text(&from_raw, from),
        to_text: text(&to_raw, to),
        from: from.map(|t| point(t, range_zone)),
        to: to.map(|t| point(t, range_zone)),
        range_zone: range_zone.name().to_owned(),
        invalid,
        job_names,
        lines: Vec::new(),
        cursor: None,
        next_cursor: None,
        total,
        offset: 0,
        counts: counts
            .into_iter()
            .map(|(k, (lines, events))| KindCount { kind: k.key().to_owned(), lines, events })
            .collect(),
        limit,
    };
    Ok(FleetLog { data, cursor, lines_zone, lines })
}

/// A line of the log as the page and the export show it.
fn log_line(instance: &str, job_name: &str, e: &LogEvent, tz: Tz) -> LogLine {
    LogLine {
        at: point(e.at, tz),
        instance: instance.to_owned(),
        job_id: e.job_id.clone(),
        job_name: job_name.to_owned(),
        kind: e.kind,
        text: e.text.clone(),
        said: crate::SentenceView::of(&crate::engine::sentence::Sentence::told(&e.text), |t| point(t, tz)),
        collapsed: Collapsed {
            count: e.count(),
            members: e.members.iter().take(MEMBERS_SHOWN).map(|t| point(*t, tz)).collect(),
        },
    }
}

/// The lines `kept` names ((read, line) indices) of `reads`, as the page shows them.
fn whole_lines(reads: &[Read], kept: &[(usize, usize)], tz: Tz) -> Vec<LogLine> {
    kept.iter()
        .map(|&(ri, ei)| {
            let r = &reads[ri];
            let e = &r.log[ei];
            log_line(&r.name, r.job_name(&e.job_id), e, tz)
        })
        .collect()
}

/// A page of a log read from tallies ((instance, line) pairs), as the page shows it.
fn tallied_lines(log: &tallied::Tallied, lines: &[(usize, LogEvent)], tz: Tz) -> Vec<LogLine> {
    lines.iter().map(|(i, e)| log_line(log.instance_name(*i), log.job_name(*i, &e.job_id), e, tz)).collect()
}

/// The `cursor` text of a page starting `skip` lines into millisecond `ms`.
fn cursor_text((ms, skip): (i64, usize)) -> String {
    format!("{ms}~{skip}")
}

impl FleetLog {
    /// The filter's page: the lines from the cursor on (the newest without one), at most
    /// `limit` of them, and where the next, older page starts.
    pub fn page(self) -> LogData {
        let cursor = self.cursor.map(cursor_text);
        let tz = self.lines_zone;
        match self.lines {
            Lines::Whole { reads, kept } => {
                let at = |i: usize| reads[kept[i].0].log[kept[i].1].at.timestamp_millis();
                let start = match self.cursor {
                    None => 0,
                    Some((ms, skip)) => {
                        let first = kept.partition_point(|&(ri, ei)| reads[ri].log[ei].at.timestamp_millis() > ms);
                        let same = (first..kept.len()).take_while(|&i| at(i) == ms).count();
                        first + skip.min(same)
                    }
                };
                let end = (start + self.data.limit).min(kept.len());
                let next_cursor = (end < kept.len()).then(|| {
                    let ms = at(end);
                    let skip = (0..end).rev().take_while(|&i| at(i) == ms).count();
                    cursor_text((ms, skip))
                });
                let lines = whole_lines(&reads, &kept[start..end], tz);
                LogData { lines, cursor, next_cursor, offset: start, ..self.data }
            }
            Lines::Tallied { log, page } => {
                let Some(page) = page else { return LogData { cursor, ..self.data } };
                let lines = tallied_lines(&log, &page.lines, tz);
                LogData {
                    lines,
                    cursor,
                    next_cursor: page.next_cursor.map(cursor_text),
                    offset: page.offset,
                    ..self.data
                }
            }
        }
    }

    /// How many lines are under the filter (every page).
    pub fn len(&self) -> usize {
        self.data.total
    }

    /// Whether no line is under the filter.
    pub fn is_empty(&self) -> bool {
        self.data.total == 0
    }

    /// The lines under the filter from `at` (the newest: `PieceAt::Index(0)`), at most `n`
    /// of them, newest first, and where the next piece starts: the CSV export writes them a
    /// piece at a time, never all at once.
    pub async fn piece(&self, at: PieceAt, n: usize) -> (Vec<LogLine>, Option<PieceAt>) {
        let tz = self.lines_zone;
        if !self.data.invalid.is_empty() {
            return (Vec::new(), None);
        }
        match (&self.lines, at) {
            (Lines::Whole { reads, kept }, PieceAt::Index(from)) => {
                let to = (from + n).min(kept.len());
                let lines = whole_lines(reads, &kept[from.min(to)..to], tz);
                (lines, (to < kept.len()).then_some(PieceAt::Index(to)))
            }
            (Lines::Tallied { log, .. }, at) => {
                let cursor = match at {
                    PieceAt::Cursor(ms, skip) => Some((ms, skip)),
                    PieceAt::Index(_) => None,
                };
                // A piece of a large fleet's log analyses the fleet's days again: large pieces.
                let page = log.page(cursor, n.max(TALLIED_PIECE)).await;
                let lines = tallied_lines(log, &page.lines, tz);
                (lines, page.next_cursor.map(|(ms, skip)| PieceAt::Cursor(ms, skip)))
            }
            (Lines::Whole { .. }, PieceAt::Cursor(..)) => (Vec::new(), None),
        }
    }

    /// What the URL got wrong (empty when nothing).
    pub fn invalid(&self) -> &[LogFieldError] {
        &self.data.invalid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_filter_is_an_id_or_part_of_a_name_in_any_case() {
        assert!(job_matches("backup", "7a1f", "DatabaseBackup - FULL"));
        assert!(job_matches(" 7a1f ", "7a1f", "Other"));
        assert!(!job_matches("7a1", "7a1f", "Other"), "an id matches whole");
        assert!(!job_matches("backup", "", ""), "an instance-wide line is no job's");
    }

    #[test]
    fn a_moment_is_wall_clock_in_the_zone_or_an_instant_and_a_bad_one_names_its_field() {
        let ny = Tz::from_name("America/New_York").expect("the tz database");
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        assert_eq!(parse_moment("from", "2026-11-20T03:00", ny), Ok(t("2026-11-20T08:00:00Z")));
        assert_eq!(parse_moment("from", "2026-11-20 03:00:30", ny), Ok(t("2026-11-20T08:00:30Z")));
        assert_eq!(parse_moment("from", "2026-11-20", ny), Ok(t("2026-11-20T05:00:00Z")));
        assert_eq!(parse_moment("from", "2026-11-20T03:00:00+01:00", ny), Ok(t("2026-11-20T02:00:00Z")));
        // The fold: the earlier 01:30; the gap: said, with the zone.
        assert_eq!(parse_moment("to", "2026-11-01T01:30", ny), Ok(t("2026-11-01T05:30:00Z")));
        let gap = parse_moment("to", "2026-03-08T02:30", ny).unwrap_err();
        assert!(gap.starts_with("to:") && gap.contains("America/New_York"), "{gap}");
        let bad = parse_moment("from", "yesterday", ny).unwrap_err();
        assert!(bad.starts_with("from must be") && bad.contains("\"yesterday\""), "{bad}");
        assert_eq!(field_text(t("2026-11-20T08:00:00Z"), ny), "2026-11-20T03:00");
        assert_eq!(field_text(t("2026-11-20T08:00:07Z"), ny), "2026-11-20T03:00:07");
    }

    #[test]
    fn limits_and_cursors_say_what_they_must_be() {
        assert_eq!(parse_limit(None), Ok(LOG_LINES));
        assert_eq!(parse_limit(Some(" 50 ")), Ok(50));
        for bad in ["0", "10001", "lots"] {
            let e = parse_limit(Some(bad)).unwrap_err();
            assert!(e.starts_with("limit must be") && e.contains(&format!("{bad:?}")), "{e}");
        }
        assert_eq!(parse_cursor("1763812800000~2"), Ok((1_763_812_800_000, 2)));
        assert!(parse_cursor("garbage").unwrap_err().starts_with("cursor must look like"));
    }
}
