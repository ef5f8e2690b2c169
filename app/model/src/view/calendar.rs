//! The fleet calendar's mapping ([`build`]): each instance's timeline analysis (its read's 30
//! days and the week ahead, [`crate::instance_timeline::source`]) cut into the days and hours
//! of a span, each job's runs of an hour one entry, with the hours' concurrency, maintenance
//! windows, DST changes, the scheduler's own next runs and risks.
use super::*;
use crate::links::{job_at_href, outcome_key, outcome_label};
use crate::wire::{CalDay, CalDst, CalEntry, CalHour, CalMaintenance, CalNextRun, CalRisk, CalSpan, CalendarData};
use chrono::{Datelike, Duration, NaiveDate, Offset};

/// An hour lists at most this many entries (the worst kept); the rest are counted.
pub const MAX_PER_HOUR: usize = 12;
/// The scheduler's next run and Sundial's agree within this.
pub const AGREE_SECS: i64 = 60;
const HOUR_MS: i64 = 3_600_000;

/// One instance as the calendar reads it.
pub struct CalSource<'a> {
    pub report: &'a InstanceReport,
    pub reported_next: &'a [ReportedNext],
}

/// What the calendar shows: the span from `first`, in `zone`, for `instance` (`None`: the fleet).
pub struct CalAsk<'a> {
    pub span: CalSpan,
    pub first: NaiveDate,
    pub zone: Tz,
    pub now: DateTime<Utc>,
    pub instance: Option<&'a str>,
    pub instances: Vec<String>,
}

/// The span's first day holding `at`: the day itself, or the Monday of its week.
pub fn first_day(span: CalSpan, at: NaiveDate) -> NaiveDate {
    match span {
        CalSpan::Day => at,
        CalSpan::Week => at - Duration::days(i64::from(at.weekday().num_days_from_monday())),
    }
}

/// The zone the calendar is drawn in: the one all `zones` share, else UTC.
pub fn shared_zone(zones: &[Tz]) -> Tz {
    match zones.split_first() {
        Some((z, rest)) if rest.iter().all(|r| r == z) => *z,
        _ => Tz::UTC,
    }
}

/// The instant local midnight of `d` in `tz` (a midnight that does not exist: the first
/// instant of the day).
pub fn day_start(d: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let midnight = d.and_time(NaiveTime::MIN);
    for add in [0, 30, 60, 90, 120] {
        if let Some(t) = tz.from_local_datetime(&(midnight + Duration::minutes(add))).earliest() {
            return t.with_timezone(&Utc);
        }
    }
    Utc.from_utc_datetime(&midnight)
}

fn off_at(t: DateTime<Utc>, tz: Tz) -> i32 {
    t.with_timezone(&tz).offset().fix().local_minus_utc()
}

/// Every change of `tz`'s offset in `[from, to)`: its instant (to the minute) and the offsets
/// before and after.
pub fn offset_changes(tz: Tz, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<(DateTime<Utc>, i32, i32)> {
    let step = Duration::minutes(15);
    let mut out = Vec::new();
    let mut t = from;
    let mut off = off_at(t, tz);
    while t < to {
        let next = (t + step).min(to);
        let o = off_at(next, tz);
        if o != off {
            // The first minute with the new offset.
            let (mut lo, mut hi) = (t, next);
            while hi - lo > Duration::minutes(1) {
                let mid = lo + (hi - lo) / 2;
                if off_at(mid, tz) == off { lo = mid } else { hi = mid }
            }
            let at = if off_at(hi - Duration::minutes(1) + Duration::seconds(59), tz) != off {
                hi - Duration::minutes(1)
            } else {
                hi
            };
            let at = DateTime::from_timestamp(at.timestamp() - at.timestamp().rem_euclid(60), 0).unwrap_or(at);
            let at = if off_at(at, tz) == off { at + Duration::minutes(1) } else { at };
            out.push((at, off, o));
            off = o;
        }
        t = next;
    }
    out
}

fn hm(secs: i32) -> String {
    let a = secs.unsigned_abs();
    match (a / 3600, (a % 3600) / 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// What a change of offset does, in words.
pub fn dst_text(at: DateTime<Utc>, before: i32, after: i32, zone: &str) -> String {
    let wall = |off: i32| (at + Duration::seconds(i64::from(off))).format("%H:%M").to_string();
    let (from, to) = (wall(before), wall(after));
    if after > before {
        format!(
            "Clocks go forward {} at {from} ({zone}): they jump to {to}; the wall-clock times from {from} to before {to} do not exist that day",
            hm(after - before)
        )
    } else {
        format!(
            "Clocks go back {} at {from} ({zone}): they return to {to}; the wall-clock times from {to} to before {from} happen twice",
            hm(before - after)
        )
    }
}

/// How bad an entry is: the worst of an hour's runs of a job is the one shown and linked.
fn badness(class: &str) -> u8 {
    match class {
        "o-failed" | "o-crashed" | "o-abandoned" | "cal-mk-missed" => 5,
        "o-retry" | "o-canceled" | "cal-mk-late" | "cal-mk-skipped" | "reported" => 4,
        "o-in-progress" => 3,
        "cal-mk-maintenance" | "cal-mk-unknown" | "o-unknown" => 2,
        "o-succeeded" => 1,
        _ => 0,
    }
}

/// One thing to list before grouping by job and hour.
struct Item {
    ms: i64,
    kind: &'static str,
    class: String,
    label: String,
    extra: String,
}

/// The median length of a job's finished runs (at least a minute): how long an expected run
/// is counted as going.
fn usual_ms(job: &JobReport) -> i64 {
    let mut d: Vec<i64> =
        job.runs.iter().filter(|r| r.outcome != RunOutcome::InProgress).map(|r| r.duration_secs.max(0)).collect();
    d.sort_unstable();
    let mid = d.get(d.len() / 2).copied().unwrap_or(60);
    mid.max(60) * 1000
}

/// The calendar of `sources` for `ask`, with `risks` drawn in their hours.
pub fn build(sources: &[CalSource<'_>], ask: CalAsk<'_>, risks: Vec<CalRisk>) -> CalendarData {
    let tz = ask.zone;
    let days = ask.span.days();
    let first = ask.first;
    let start = day_start(first, tz);
    let end = day_start(first + Duration::days(days), tz);
    let (s_ms, e_ms) = (start.timestamp_millis(), end.timestamp_millis());
    let now_ms = ask.now.timestamp_millis();

    // The hours: from each local midnight, an hour at a time (23 or 25 on a DST day).
    let mut days_out: Vec<CalDay> = Vec::new();
    let mut bounds: Vec<(usize, i64, i64)> = Vec::new(); // (day, start, end) of each hour
    let today = ask.now.with_timezone(&tz).date_naive();
    for d in 0..days {
        let date = first + Duration::days(d);
        let (a, b) =
            (day_start(date, tz).timestamp_millis(), day_start(date + Duration::days(1), tz).timestamp_millis());
        let mut hours = Vec::new();
        let mut h = a;
        while h < b {
            let he = (h + HOUR_MS).min(b);
            let t = DateTime::from_timestamp_millis(h).unwrap_or_default();
            let p = point(t, tz);
            let repeated = bounds.iter().any(|(_, x, _)| {
                let o = DateTime::from_timestamp_millis(*x).unwrap_or_default();
                o.with_timezone(&tz).naive_local() == t.with_timezone(&tz).naive_local()
            });
            let mut label = t.with_timezone(&tz).format("%H:%M").to_string();
            if repeated {
                label.push_str(&format!(" ({})", offset_label(p.off)));
            }
            hours.push(CalHour { start: p, label, ahead: h >= now_ms, ..Default::default() });
            bounds.push((d as usize, h, he));
            h = he;
        }
        days_out.push(CalDay {
            date: date.format("%Y-%m-%d").to_string(),
            label: date.format("%a %-d %b").to_string(),
            today: date == today,
            hours,
            count: 0,
        });
    }
    let slot_of = |ms: i64| -> Option<usize> {
        if ms < s_ms || ms >= e_ms {
            return None;
        }
        let i = bounds.partition_point(|(_, a, _)| *a <= ms);
        i.checked_sub(1)
    };
    // Each hour's day and place in it.
    let mut places: Vec<(usize, usize)> = Vec::with_capacity(bounds.len());
    for (i, (d, _, _)) in bounds.iter().enumerate() {
        let n = if i > 0 && bounds[i - 1].0 == *d { places[i - 1].1 + 1 } else { 0 };
        places.push((*d, n));
    }

    let mut data = CalendarData {
        span: ask.span.key().into(),
        first: first.format("%Y-%m-%d").to_string(),
        instance: ask.instance.map(str::to_owned),
        instances: ask.instances,
        zone: tz.name().to_owned(),
        now: point(ask.now, tz),
        days: days_out,
        ..Default::default()
    };
    data.title = match ask.span {
        CalSpan::Day => first.format("%A %-d %B %Y").to_string(),
        CalSpan::Week => {
            let last = first + Duration::days(6);
            format!("Week of {} to {}", first.format("%a %-d %b"), last.format("%a %-d %b %Y"))
        }
    };
    let step = Duration::days(days);
    data.prev_href = calendar_href(ask.span, first - step, ask.instance);
    data.next_href = calendar_href(ask.span, first + step, ask.instance);
    data.today_href = calendar_href(ask.span, today, ask.instance);
    data.day_href = calendar_href(
        CalSpan::Day,
        if ask.span == CalSpan::Day { first } else { today.max(first).min(first + Duration::days(6)) },
        ask.instance,
    );
    data.week_href = calendar_href(CalSpan::Week, first, ask.instance);

    // (slot, instance, job, expected?) → items; concurrency intervals.
    let mut groups: std::collections::BTreeMap<(usize, usize, usize, bool), Vec<Item>> = Default::default();
    let mut intervals: Vec<(i64, i64)> = Vec::new();
    let mut zones: Vec<(Tz, Vec<String>)> = Vec::new();
    for (si, src) in sources.iter().enumerate() {
        let r = src.report;
        match zones.iter_mut().find(|(z, _)| *z == r.tz) {
            Some((_, names)) => names.push(r.name.clone()),
            None => zones.push((r.tz, vec![r.name.clone()])),
        }
        if r.window.start.timestamp_millis() > s_ms && r.window.start.timestamp_millis() < e_ms {
            data.notes.push(format!(
                "{}: Sundial's read starts at {}; nothing before it is shown.",
                r.name,
                point(r.window.start, tz).zoned()
            ));
        }
        if r.window.end.timestamp_millis() < e_ms {
            data.notes.push(format!(
                "{}: the forecast ends at {} (a week after now); nothing after it is shown.",
                r.name,
                point(r.window.end, tz).zoned()
            ));
        }
        for (ji, job) in r.jobs.iter().enumerate() {
            let usual = usual_ms(job);
            for run in &job.runs {
                let (a, b) = (
                    run.start.timestamp_millis(),
                    run.end().timestamp_millis().max(run.start.timestamp_millis() + 1000),
                );
                if b > s_ms && a < e_ms {
                    intervals.push((a, b));
                }
                let Some(slot) = slot_of(a) else { continue };
                let extra = if run.duration_secs > 0 {
                    format!(", ran {}", duration_text(run.duration_secs))
                } else {
                    String::new()
                };
                groups.entry((slot, si, ji, false)).or_default().push(Item {
                    ms: a,
                    kind: "run",
                    class: format!("o-{}", outcome_key(run.outcome)),
                    label: outcome_label(run.outcome).into(),
                    extra,
                });
            }
            for (o, outcome) in job
                .forecast
                .occurrences
                .iter()
                .zip(job.reconciliation.outcomes.iter().map(Some).chain(std::iter::repeat(None)))
            {
                let ms = o.at.timestamp_millis();
                let ahead = matches!(outcome, None | Some(Outcome::Upcoming)) && ms >= now_ms;
                if ahead && ms < e_ms && ms + usual > s_ms {
                    intervals.push((ms, ms + usual));
                }
                let Some(slot) = slot_of(ms) else { continue };
                let (class, label) = match outcome {
                    _ if ahead => ("expected", "Expected"),
                    Some(Outcome::Missed { .. }) => ("cal-mk-missed", "Missed"),
                    Some(Outcome::SkippedRunning { .. }) => ("cal-mk-skipped", "Skipped"),
                    Some(Outcome::Maintenance { .. }) => ("cal-mk-maintenance", "Maintenance"),
                    Some(Outcome::Unknown) => ("cal-mk-unknown", "Unknown"),
                    // Run (its run is listed) or due within the grace: nothing more to list.
                    _ => continue,
                };
                let extra = match o.dst {
                    Some(_) if o.local != o.nominal => {
                        format!(", due {} but that time does not exist that day (DST)", o.nominal.format("%H:%M"))
                    }
                    Some(_) => ", shaped by a DST change".into(),
                    None => String::new(),
                };
                groups.entry((slot, si, ji, ahead)).or_default().push(Item {
                    ms,
                    kind: if ahead { "expected" } else { "run" },
                    class: class.into(),
                    label: label.into(),
                    extra,
                });
            }
        }
        // Maintenance windows over the span.
        for m in &r.maintenance {
            let (a, b) = (m.window.start.timestamp_millis(), m.window.end.timestamp_millis());
            if b <= s_ms || a >= e_ms {
                continue;
            }
            let state = if b <= now_ms {
                "past"
            } else if a <= now_ms {
                "now"
            } else {
                "planned"
            };
            let name = format!("{} ({})", m.label, r.name);
            for (slot, (_, ha, he)) in bounds.iter().enumerate() {
                if *ha < b
                    && *he > a
                    && let Some(h) = hour_at(&mut data.days, &places, slot)
                {
                    h.maintenance.push(name.clone());
                }
            }
            data.maintenance.push(CalMaintenance {
                instance: r.name.clone(),
                label: m.label.clone(),
                start: point(m.window.start, tz),
                end: point(m.window.end, tz),
                state: state.into(),
                jobs: m.jobs.clone(),
            });
        }
    }
    let (s_t, e_t) = (start, end);
    for (z, names) in &zones {
        for (at, before, after) in offset_changes(*z, s_t, e_t) {
            let text = dst_text(at, before, after, z.name());
            if let Some(slot) = slot_of(at.timestamp_millis())
                && let Some(h) = hour_at(&mut data.days, &places, slot)
            {
                h.dst = Some(text.clone());
            }
            data.dst.push(CalDst { zone: z.name().to_owned(), instances: names.clone(), at: point(at, tz), text });
        }
    }

    // The scheduler's own next runs: agreeing, or differing (said, and drawn where it falls).
    let mut agreed: std::collections::HashMap<(usize, String), String> = Default::default();
    for (si, src) in sources.iter().enumerate() {
        let r = src.report;
        for n in src.reported_next.iter().filter(|n| n.at >= r.now) {
            let Some((ji, job)) = r.jobs.iter().enumerate().find(|(_, j)| j.id == n.job_id) else { continue };
            let ours = job
                .forecast
                .occurrences
                .iter()
                .zip(job.reconciliation.outcomes.iter().map(Some).chain(std::iter::repeat(None)))
                .filter(|(o, out)| o.at >= r.now && matches!(out, None | Some(Outcome::Upcoming)))
                .map(|(o, _)| o.at)
                .next();
            if ours.is_some_and(|o| (o - n.at).num_seconds().abs() <= AGREE_SECS) {
                data.agrees += 1;
                agreed.insert(
                    (si, job.id.clone()),
                    format!("{} says the same ({})", n.column, point(n.at, r.tz).zoned()),
                );
                continue;
            }
            let text = match ours {
                Some(o) => format!(
                    "{} says its next run is at {}; Sundial expects {} from its schedules. The scheduler may not have re-read a changed schedule, or it is stuck.",
                    n.column,
                    point(n.at, r.tz).zoned(),
                    point(o, r.tz).zoned()
                ),
                None => format!(
                    "{} says its next run is at {}; Sundial expects none from its schedules in the week ahead.",
                    n.column,
                    point(n.at, r.tz).zoned()
                ),
            };
            let href = job_at_href(Some(&r.name), &job.id, n.at);
            if let Some(slot) = slot_of(n.at.timestamp_millis()) {
                groups.entry((slot, si, ji, true)).or_default().push(Item {
                    ms: n.at.timestamp_millis(),
                    kind: "reported",
                    class: "reported".into(),
                    label: format!("{} expects it", n.column),
                    extra: String::new(),
                });
            }
            data.differs.push(CalNextRun {
                instance: r.name.clone(),
                job_id: job.id.clone(),
                job: job.name.clone(),
                column: n.column.clone(),
                reported: point(n.at, tz),
                ours: ours.map(|o| point(o, tz)),
                text,
                href,
            });
        }
    }

    // Entries: one per job, hour and side of now.
    let mut per_slot: Vec<Vec<CalEntry>> = vec![Vec::new(); bounds.len()];
    for ((slot, si, ji, ahead), mut items) in groups {
        let r = sources[si].report;
        let job = &r.jobs[ji];
        items.sort_by_key(|i| i.ms);
        let Some(worst) = items.iter().max_by_key(|i| (badness(&i.class), std::cmp::Reverse(i.ms))) else { continue };
        let at = DateTime::from_timestamp_millis(worst.ms).unwrap_or_default();
        let count = items.len();
        if ahead {
            data.expected += items.iter().filter(|i| i.kind == "expected").count();
        } else {
            data.runs += items.iter().filter(|i| i.class.starts_with("o-")).count();
            data.bad += items.iter().filter(|i| badness(&i.class) >= 4).count();
        }
        let reported = if ahead { agreed.get(&(si, job.id.clone())).cloned() } else { None };
        // Only the first expected run after now is the scheduler's next.
        let reported = reported.filter(|_| {
            job.forecast
                .occurrences
                .iter()
                .map(|o| o.at)
                .find(|a| *a >= r.now)
                .is_some_and(|a| items.iter().any(|i| i.ms == a.timestamp_millis()))
        });
        let mut title = if count == 1 {
            format!("{} · {} · {} at {}{}", job.name, r.name, worst.label, point(at, r.tz).zoned(), worst.extra)
        } else {
            let mut by: Vec<(String, usize)> = Vec::new();
            for i in &items {
                match by.iter_mut().find(|(l, _)| *l == i.label) {
                    Some((_, n)) => *n += 1,
                    None => by.push((i.label.clone(), 1)),
                }
            }
            let kinds: Vec<String> = by.iter().map(|(l, n)| format!("{n} {}", l.to_lowercase())).collect();
            format!(
                "{} · {} · {count} in this hour ({}); {} at {}{}",
                job.name,
                r.name,
                kinds.join(", "),
                worst.label,
                point(at, r.tz).zoned(),
                worst.extra
            )
        };
        if let Some(rep) = &reported {
            title.push_str(&format!("; {rep}"));
        }
        per_slot[slot].push(CalEntry {
            instance: r.name.clone(),
            job_id: job.id.clone(),
            job: job.name.clone(),
            at: point(at, tz),
            kind: worst.kind.into(),
            class: worst.class.clone(),
            label: worst.label.clone(),
            count,
            href: job_at_href(Some(&r.name), &job.id, at),
            title,
            reported,
        });
    }

    // Concurrency: the most intervals open at once in each hour.
    let mut events: Vec<(i64, i32)> = intervals.iter().flat_map(|(a, b)| [(*a, 1), (*b, -1)]).collect();
    events.sort_unstable();
    let mut level: i32 = 0;
    let mut ev = events.iter().peekable();
    for (slot, (_, a, b)) in bounds.iter().enumerate() {
        while let Some((t, d)) = ev.peek() {
            if *t > *a {
                break;
            }
            level += d;
            ev.next();
        }
        let mut most = level;
        while let Some((t, d)) = ev.peek() {
            if *t >= *b {
                break;
            }
            level += d;
            most = most.max(level);
            ev.next();
        }
        let most = most.max(0) as u32;
        data.peak = data.peak.max(most);
        if let Some(h) = hour_at(&mut data.days, &places, slot) {
            h.peak = most;
        }
    }

    // Each hour's entries, the worst kept when too many, in time order; "now" placed.
    for (slot, mut entries) in per_slot.into_iter().enumerate() {
        let (_, a, b) = bounds[slot];
        let more = entries.len().saturating_sub(MAX_PER_HOUR);
        if more > 0 {
            entries.sort_by_key(|e| (std::cmp::Reverse(badness(&e.class)), e.at.ms));
            entries.truncate(MAX_PER_HOUR);
        }
        entries.sort_by(|x, y| (x.at.ms, &x.job).cmp(&(y.at.ms, &y.job)));
        let Some(h) = hour_at(&mut data.days, &places, slot) else { continue };
        if (a..b).contains(&now_ms) {
            h.now = Some(entries.iter().filter(|e| e.at.ms < now_ms).count());
        }
        h.more = more;
        if more > 0 {
            h.more_href = ask.instance.map(|i| {
                crate::instance_timeline::timeline_href(
                    Some(i),
                    crate::instance_timeline::ViewWindow { start: a, end: b },
                )
            });
        }
        h.entries = entries;
    }
    for day in &mut data.days {
        day.count = day.hours.iter().map(|h| h.entries.iter().map(|e| e.count).sum::<usize>()).sum();
    }
    for risk in risks {
        if let Some(slot) = slot_of(risk.at.ms)
            && let Some(h) = hour_at(&mut data.days, &places, slot)
        {
            h.risks.push(risk.clone());
        }
        data.risks.push(risk);
    }
    data
}

/// What comes after `report`'s now: the next `n` expected runs (of `job` only, or of every
/// job), and the maintenance windows over them open now or planned ahead. The report must
/// reach past now (the timeline's analysis, [`crate::instance_timeline::source`]).
pub fn ahead(report: &InstanceReport, job: Option<&str>, n: usize) -> crate::wire::Ahead {
    let now = report.now;
    let mut runs: Vec<(DateTime<Utc>, &JobReport)> = Vec::new();
    for j in report.jobs.iter().filter(|j| job.is_none_or(|id| j.id == id)) {
        for (o, outcome) in
            j.forecast.occurrences.iter().zip(j.reconciliation.outcomes.iter().map(Some).chain(std::iter::repeat(None)))
        {
            if o.at >= now && matches!(outcome, None | Some(Outcome::Upcoming)) {
                runs.push((o.at, j));
            }
        }
    }
    runs.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    runs.truncate(n);
    let runs = runs
        .into_iter()
        .map(|(at, j)| crate::wire::AheadRun {
            job_id: j.id.clone(),
            job: j.name.clone(),
            at: point(at, report.tz),
            href: job_at_href(Some(&report.name), &j.id, at),
            after: after_text((at - now).num_seconds()),
        })
        .collect();
    let names: Option<(&str, &str)> =
        job.and_then(|id| report.jobs.iter().find(|j| j.id == id)).map(|j| (j.id.as_str(), j.name.as_str()));
    let windows = report
        .maintenance
        .iter()
        .filter(|m| m.window.end > now)
        .filter(|m| names.is_none_or(|(id, name)| m.covers(id, name)))
        .map(|m| CalMaintenance {
            instance: report.name.clone(),
            label: m.label.clone(),
            start: point(m.window.start, report.tz),
            end: point(m.window.end, report.tz),
            state: if m.window.start <= now { "now" } else { "planned" }.into(),
            jobs: m.jobs.clone(),
        })
        .collect();
    crate::wire::Ahead { runs, windows }
}

/// "in 50 min", "in 3 h 20 min", "in 2 d 4 h": how long until a run, to the minute.
fn after_text(secs: i64) -> String {
    let m = (secs.max(0) + 59) / 60;
    match (m / 1440, (m % 1440) / 60, m % 60) {
        (0, 0, m) => format!("in {m} min"),
        (0, h, 0) => format!("in {h} h"),
        (0, h, m) => format!("in {h} h {m} min"),
        (d, h, _) => format!("in {d} d {h} h"),
    }
}

fn hour_at<'a>(days: &'a mut [CalDay], places: &[(usize, usize)], slot: usize) -> Option<&'a mut CalHour> {
    let (d, h) = places.get(slot)?;
    days.get_mut(*d)?.hours.get_mut(*h)
}

/// The calendar page's data: `span` and `at` as the URL gives them (a day, today, when
/// absent), over `instance` (`None`: every instance). Instances that cannot be read now are
/// named in its notes; the risks ahead inside the span are drawn in their hours.
pub async fn load(
    backend: &dyn Backend,
    span: Option<&str>,
    at: Option<&str>,
    instance: Option<&str>,
) -> Result<CalendarData, ApiError> {
    let span = CalSpan::parse(span)?;
    let names: Vec<String> = backend.instances().await.into_iter().map(|i| i.name).collect();
    let instance = instance.map(str::trim).filter(|i| !i.is_empty());
    let chosen: Vec<String> = match instance {
        Some(i) if names.iter().any(|n| n == i) => vec![i.to_owned()],
        Some(_) => return Err(ApiError::NotFound { what: "instance".into() }),
        None => names.clone(),
    };
    let mut read = Vec::new();
    let mut notes = Vec::new();
    let mut first_error = None;
    for name in &chosen {
        match crate::instance_timeline::source(backend, Some(name)).await {
            Ok(r) => {
                let reported = backend.snapshot(name).await.map(|s| s.reported_next.clone()).unwrap_or_default();
                read.push((r, reported));
            }
            Err(e) => {
                notes.push(format!("{name} is not shown: {e}."));
                first_error.get_or_insert(e);
            }
        }
    }
    let Some(now) = read.iter().map(|(r, _)| r.now).max() else {
        return Err(first_error.unwrap_or(ApiError::NotFound { what: "instance".into() }));
    };
    let zone = shared_zone(&read.iter().map(|(r, _)| r.tz).collect::<Vec<_>>());
    let today = now.with_timezone(&zone).date_naive();
    let first = first_day(span, parse_date(at, today)?);
    let sources: Vec<CalSource<'_>> =
        read.iter().map(|(r, n)| CalSource { report: r.as_ref(), reported_next: n.as_slice() }).collect();
    // The risks ahead within the span (their one judgment, `Backend::risks`): a marker at each
    // of their instants. A risk without one (a job that never runs) has no hour to be drawn in.
    let (from, to) = (day_start(first, zone), day_start(first + chrono::Days::new(span.days() as u64), zone));
    let mut risks = Vec::new();
    if to > now {
        let days = u32::try_from((to - now).num_days() + 1).unwrap_or(u32::MAX).clamp(1, crate::wire::RISK_DAYS_MAX);
        for r in backend.risks(instance, days).await.risks {
            for t in r.at.iter().filter(|t| t.ms >= from.timestamp_millis() && t.ms < to.timestamp_millis()) {
                risks.push(CalRisk {
                    instance: r.instance.clone(),
                    job_id: r.job_id.clone(),
                    kind: r.kind.clone(),
                    at: t.clone(),
                    // A marker in an hour of many jobs names its job.
                    explanation: format!("{} on {}: {}", r.job, r.instance, r.explanation),
                });
            }
        }
    }
    let mut data = build(&sources, CalAsk { span, first, zone, now, instance, instances: names }, risks);
    data.notes.extend(notes);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Schedule;
    use crate::engine::cron::CronSchedule;
    use crate::engine::fleet::{InstanceInput, JobInput, JobSchedule, analyze};
    use crate::engine::maintenance::Maintenance;
    use crate::engine::reconcile::Settings;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
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

    fn job(id: &str, cron: &str, runs: Vec<Run>) -> JobInput {
        JobInput {
            id: id.into(),
            name: format!("Job {id}"),
            category: String::new(),
            owner: None,
            command: None,
            enabled: true,
            schedules: vec![JobSchedule {
                id: 1,
                name: "s".into(),
                enabled: true,
                schedule: Schedule::Cron(CronSchedule::new(cron)),
            }],
            runs,
            history_horizon: None,
            source_horizon: None,
            unobserved: vec![],
            diagnostics: vec![],
            earlier: Vec::new(),
            modified: None,
        }
    }

    /// An instance in `zone` analysed as the timeline does: 30 days back, 7 ahead of `now`.
    fn report(zone: &str, jobs: Vec<JobInput>, maintenance: Vec<Maintenance>, now: &str) -> InstanceReport {
        let mut input = InstanceInput::new("I", Tz::from_name(zone).unwrap(), jobs, vec![]);
        input.maintenance = maintenance;
        let now = t(now);
        analyze(&input, Window::new(now - Duration::days(30), now + Duration::days(7)), now, &Settings::default())
    }

    fn cal(r: &InstanceReport, reported: &[ReportedNext], span: CalSpan, first: &str) -> CalendarData {
        let ask = CalAsk {
            span,
            first: first_day(span, date(first)),
            zone: r.tz,
            now: r.now,
            instance: Some("I"),
            instances: vec!["I".into()],
        };
        build(&[CalSource { report: r, reported_next: reported }], ask, Vec::new())
    }

    fn hour<'a>(d: &'a CalendarData, local: &str) -> &'a CalHour {
        d.days
            .iter()
            .flat_map(|d| &d.hours)
            .find(|h| h.start.local.starts_with(local))
            .unwrap_or_else(|| panic!("no hour {local}"))
    }

    /// Hourly; ran on time but for a failure at 03:00 and nothing at 05:00; now is 12:30.
    fn hourly() -> InstanceReport {
        let mut runs = Vec::new();
        for h in 0..=12 {
            if h == 5 {
                continue;
            }
            let outcome = if h == 3 { RunOutcome::Failed } else { RunOutcome::Succeeded };
            runs.push(run(&format!("2026-11-22T{h:02}:00:02Z"), 30, outcome));
        }
        report("UTC", vec![job("a", "0 * * * *", runs)], vec![], "2026-11-22T12:30:00Z")
    }

    #[test]
    fn past_runs_keep_their_outcome_and_the_hours_ahead_hold_expected_runs() {
        let d = cal(&hourly(), &[], CalSpan::Day, "2026-11-22");
        assert_eq!(d.days.len(), 1);
        assert_eq!(d.days[0].hours.len(), 24);
        let one = |local: &str| {
            let h = hour(&d, local);
            assert_eq!(h.entries.len(), 1, "{local}: {:?}", h.entries);
            h.entries[0].clone()
        };
        let ok = one("2026-11-22 01:00");
        assert_eq!((ok.kind.as_str(), ok.class.as_str()), ("run", "o-succeeded"));
        assert_eq!(ok.href, "/jobs/a?at=2026-11-22T01:00:02Z&instance=I");
        assert_eq!(one("2026-11-22 03:00").class, "o-failed");
        let missed = one("2026-11-22 05:00");
        assert_eq!((missed.kind.as_str(), missed.class.as_str()), ("run", "cal-mk-missed"));
        let ahead = one("2026-11-22 14:00");
        assert_eq!(
            (ahead.kind.as_str(), ahead.class.as_str(), ahead.label.as_str()),
            ("expected", "expected", "Expected")
        );
        assert_eq!(ahead.href, "/jobs/a?at=2026-11-22T14:00:00Z&instance=I");
        assert!(hour(&d, "2026-11-22 14:00").ahead && !hour(&d, "2026-11-22 11:00").ahead);
        // Now is in the 12:00 hour, after its run.
        assert_eq!(hour(&d, "2026-11-22 12:00").now, Some(1));
        assert_eq!(d.days.iter().flat_map(|d| &d.hours).filter(|h| h.now.is_some()).count(), 1);
        assert_eq!((d.runs, d.bad, d.expected), (12, 2, 11));
        // Links: a day before and after, today.
        assert_eq!(d.prev_href, "/calendar?span=day&at=2026-11-21&instance=I");
        assert_eq!(d.next_href, "/calendar?span=day&at=2026-11-23&instance=I");
        assert_eq!(d.today_href, "/calendar?span=day&at=2026-11-22&instance=I");
    }

    #[test]
    fn a_week_starts_on_monday_and_a_job_s_runs_of_an_hour_are_one_entry() {
        let r = report(
            "UTC",
            vec![job(
                "a",
                "*/5 * * * *",
                (0..12).map(|i| run(&format!("2026-11-23T09:{:02}:00Z", i * 5), 10, RunOutcome::Succeeded)).collect(),
            )],
            vec![],
            "2026-11-23T10:00:00Z",
        );
        let d = cal(&r, &[], CalSpan::Week, "2026-11-26");
        assert_eq!(d.first, "2026-11-23");
        assert_eq!(d.days.len(), 7);
        assert_eq!(d.days[0].label, "Mon 23 Nov");
        let e = &hour(&d, "2026-11-23 09:00").entries;
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].count, 12);
        let ahead = &hour(&d, "2026-11-24 09:00").entries;
        assert_eq!((ahead.len(), ahead[0].count, ahead[0].kind.as_str()), (1, 12, "expected"));
        assert_eq!(d.next_href, "/calendar?span=week&at=2026-11-30&instance=I");
    }

    #[test]
    fn the_hours_where_runs_pile_up_say_how_many_run_at_once() {
        // Three jobs at 03:00 for 40 minutes, one at 05:00 alone; ahead, the same at their usual length.
        let long = |id: &str, at: &str| job(id, at, vec![run("2026-11-23T03:00:00Z", 2400, RunOutcome::Succeeded)]);
        let r = report(
            "UTC",
            vec![
                long("a", "0 3 * * *"),
                long("b", "0 3 * * *"),
                long("c", "10 3 * * *"),
                job("d", "0 5 * * *", vec![run("2026-11-23T05:00:00Z", 60, RunOutcome::Succeeded)]),
            ],
            vec![],
            "2026-11-23T12:00:00Z",
        );
        let d = cal(&r, &[], CalSpan::Week, "2026-11-23");
        assert_eq!(hour(&d, "2026-11-23 03:00").peak, 3);
        assert_eq!(hour(&d, "2026-11-23 05:00").peak, 1);
        assert_eq!(hour(&d, "2026-11-23 07:00").peak, 0);
        // Tomorrow's expected runs at the jobs' usual 40 minutes: three at once again.
        assert_eq!(hour(&d, "2026-11-24 03:00").peak, 3);
        assert_eq!(d.peak, 3);
    }

    #[test]
    fn a_dst_change_inside_the_span_is_drawn_in_its_hour_and_the_day_has_23_or_25_hours() {
        let r = report("Europe/Berlin", vec![job("a", "30 2 * * *", vec![])], vec![], "2026-03-27T12:00:00Z");
        let d = cal(&r, &[], CalSpan::Week, "2026-03-29");
        assert_eq!(d.dst.len(), 1, "{:?}", d.dst);
        assert_eq!(d.dst[0].at.ms, t("2026-03-29T01:00:00Z").timestamp_millis());
        assert!(
            d.dst[0].text.starts_with("Clocks go forward 1 h at 02:00 (Europe/Berlin): they jump to 03:00"),
            "{}",
            d.dst[0].text
        );
        let sunday = d.days.iter().find(|d| d.date == "2026-03-29").unwrap();
        assert_eq!(sunday.hours.len(), 23);
        assert!(sunday.hours.iter().any(|h| h.dst.is_some()));
        // The 02:30 run that day happens at 03:30, and says why.
        let e = &hour(&d, "2026-03-29 03:00").entries;
        assert!(e[0].title.contains("due 02:30 but that time does not exist"), "{}", e[0].title);
        // Autumn: 25 hours, the repeated hour labelled with its offset.
        let r = report("Europe/Berlin", vec![], vec![], "2026-10-23T12:00:00Z");
        let d = cal(&r, &[], CalSpan::Day, "2026-10-25");
        assert_eq!(d.days[0].hours.len(), 25);
        assert!(d.dst[0].text.starts_with("Clocks go back 1 h at 03:00"), "{}", d.dst[0].text);
        assert!(
            d.days[0].hours.iter().any(|h| h.label == "02:00 (UTC+1)"),
            "{:?}",
            d.days[0].hours.iter().map(|h| &h.label).collect::<Vec<_>>()
        );
        // Lord Howe Island moves half an hour; a week without a change has none.
        let r = report("Australia/Lord_Howe", vec![], vec![], "2026-10-01T00:00:00Z");
        let d = cal(&r, &[], CalSpan::Week, "2026-10-04");
        assert_eq!(d.dst.len(), 1, "{:?}", d.dst);
        assert!(d.dst[0].text.starts_with("Clocks go forward 30 min at 02:00"), "{}", d.dst[0].text);
        let d = cal(&r, &[], CalSpan::Week, "2026-10-07");
        assert!(d.dst.is_empty());
    }

    #[test]
    fn the_scheduler_s_next_run_agreeing_is_ticked_and_differing_is_said_and_drawn() {
        let r = hourly();
        let agree = [ReportedNext {
            job_id: "a".into(),
            at: t("2026-11-22T13:00:00Z"),
            column: "next_scheduled_run_date".into(),
        }];
        let d = cal(&r, &agree, CalSpan::Day, "2026-11-22");
        assert_eq!(d.agrees, 1);
        assert!(d.differs.is_empty());
        let next = &hour(&d, "2026-11-22 13:00").entries[0];
        assert!(
            next.reported.as_deref().is_some_and(|s| s.starts_with("next_scheduled_run_date says the same")),
            "{next:?}"
        );
        // Only the next one: the run after it has nothing reported.
        assert_eq!(hour(&d, "2026-11-22 14:00").entries[0].reported, None);

        let differ = [ReportedNext { job_id: "a".into(), at: t("2026-11-22T15:30:00Z"), column: "jobnextrun".into() }];
        let d = cal(&r, &differ, CalSpan::Day, "2026-11-22");
        assert_eq!(d.agrees, 0);
        assert_eq!(d.differs.len(), 1);
        let x = &d.differs[0];
        assert_eq!(x.ours.as_ref().map(|o| o.ms), Some(t("2026-11-22T13:00:00Z").timestamp_millis()));
        assert!(x.text.starts_with("jobnextrun says its next run is at 2026-11-22 15:30"), "{}", x.text);
        let drawn: Vec<&CalEntry> =
            hour(&d, "2026-11-22 15:00").entries.iter().filter(|e| e.kind == "reported").collect();
        assert_eq!(drawn.len(), 1);
        assert_eq!(drawn[0].at.ms, t("2026-11-22T15:30:00Z").timestamp_millis());
    }

    #[test]
    fn maintenance_windows_past_and_planned_mark_their_hours() {
        let w = |a: &str, b: &str, label: &str| Maintenance {
            window: Window::new(t(a), t(b)),
            jobs: vec![],
            label: label.into(),
        };
        let r = report(
            "UTC",
            vec![],
            vec![
                w("2026-11-23T02:00:00Z", "2026-11-23T04:00:00Z", "patch"),
                w("2026-11-24T01:00:00Z", "2026-11-24T02:00:00Z", "planned"),
            ],
            "2026-11-23T12:00:00Z",
        );
        let d = cal(&r, &[], CalSpan::Week, "2026-11-23");
        let states: Vec<&str> = d.maintenance.iter().map(|m| m.state.as_str()).collect();
        assert_eq!(states, ["past", "planned"]);
        assert_eq!(hour(&d, "2026-11-23 03:00").maintenance, ["patch (I)"]);
        assert!(hour(&d, "2026-11-23 04:00").maintenance.is_empty());
        assert_eq!(hour(&d, "2026-11-24 01:00").maintenance, ["planned (I)"]);
    }

    #[test]
    fn an_hour_with_too_many_jobs_lists_the_worst_and_counts_the_rest() {
        let jobs: Vec<JobInput> = (0..20)
            .map(|i| {
                let outcome = if i == 17 { RunOutcome::Failed } else { RunOutcome::Succeeded };
                job(&format!("j{i:02}"), "0 6 * * *", vec![run("2026-11-22T06:00:00Z", 10, outcome)])
            })
            .collect();
        let r = report("UTC", jobs, vec![], "2026-11-22T12:00:00Z");
        let d = cal(&r, &[], CalSpan::Day, "2026-11-22");
        let h = hour(&d, "2026-11-22 06:00");
        assert_eq!((h.entries.len(), h.more), (MAX_PER_HOUR, 20 - MAX_PER_HOUR));
        assert!(h.entries.iter().any(|e| e.job_id == "j17" && e.class == "o-failed"));
        assert!(h.more_href.as_deref().is_some_and(|x| x.starts_with("/timeline?from=2026-11-22T06:00:00Z")));
    }

    #[test]
    fn ahead_lists_the_next_runs_and_the_windows_planned_for_the_job() {
        let w = |a: &str, b: &str, jobs: Vec<String>| Maintenance {
            window: Window::new(t(a), t(b)),
            jobs,
            label: "patch".into(),
        };
        let r = report(
            "UTC",
            vec![job("a", "0 * * * *", vec![]), job("b", "30 */6 * * *", vec![])],
            vec![
                w("2026-11-21T01:00:00Z", "2026-11-21T02:00:00Z", vec![]),
                w("2026-11-23T01:00:00Z", "2026-11-23T02:00:00Z", vec!["b".into()]),
            ],
            "2026-11-22T12:10:00Z",
        );
        let a = ahead(&r, Some("a"), 5);
        let at: Vec<&str> = a.runs.iter().map(|r| &r.at.local[11..16]).collect();
        assert_eq!(at, ["13:00", "14:00", "15:00", "16:00", "17:00"]);
        assert_eq!(a.runs[0].after, "in 50 min");
        assert_eq!(a.runs[0].href, "/jobs/a?at=2026-11-22T13:00:00Z&instance=I");
        // The past window is not ahead; b's window is not a's.
        assert!(a.windows.is_empty(), "{:?}", a.windows);
        let all = ahead(&r, None, 5);
        let jobs: Vec<&str> = all.runs.iter().map(|r| r.job_id.as_str()).collect();
        assert_eq!(jobs, ["b", "a", "a", "a", "a"], "every job's, in time order");
        let b = ahead(&r, Some("b"), 2);
        assert_eq!(b.runs.iter().map(|r| &r.at.local[11..16]).collect::<Vec<_>>(), ["12:30", "18:30"]);
        assert_eq!(b.windows.len(), 1);
        assert_eq!(b.windows[0].state, "planned");
    }

    #[test]
    fn span_and_at_are_read_or_refused_by_name() {
        assert_eq!(CalSpan::parse(None), Ok(CalSpan::Day));
        assert_eq!(CalSpan::parse(Some("week")), Ok(CalSpan::Week));
        let e = CalSpan::parse(Some("month")).unwrap_err().to_string();
        assert!(e.contains("span") && e.contains("\"month\""), "{e}");
        let today = date("2026-11-22");
        assert_eq!(parse_date(None, today), Ok(today));
        let e = parse_date(Some("22/11/2026"), today).unwrap_err().to_string();
        assert!(e.contains("at must be a date") && e.contains("\"22/11/2026\""), "{e}");
    }
}
