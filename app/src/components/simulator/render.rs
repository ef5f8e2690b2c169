//! The simulator's result regions as HTML text, the same on the server (the first page) and in
//! the browser (every edit). Every value is escaped.
use super::model::{NextRun, Preview};
use crate::engine::edit::Dialect;
use crate::engine::replay::{Impact, Overlap, ReplayedRun};
use crate::engine::{Diagnostic, Dst, Window, Zone, tz};
use chrono::{DateTime, Utc};
use std::fmt::Write;

/// Text made safe inside HTML elements and attribute values (the model's, one for every writer).
pub use sundial_model::html::escape;

pub fn diagnostics(list: &[Diagnostic], class: &str) -> String {
    list.iter().fold(String::new(), |mut s, d| {
        let _ = write!(s, r#"<p class="sim-diag {class}">{}</p>"#, escape(&d.to_string()));
        s
    })
}

/// SSMS's wording (or the dialect's), and msdb's for an Agent row.
pub fn describe(p: &Preview, stale: Option<&Preview>) -> String {
    let (text, msdb) = match (p.description.is_empty(), stale) {
        (true, Some(s)) => (&s.description, &s.msdb),
        _ => (&p.description, &p.msdb),
    };
    let mut s = format!(r#"<dt>Summary</dt><dd data-testid="describe">{}</dd>"#, escape(text));
    if let Some(m) = msdb {
        let _ = write!(
            s,
            r#"<dt>msdb (sp_help_jobschedule)</dt><dd data-testid="describe-msdb"><code>{}</code></dd>"#,
            escape(m)
        );
    }
    s
}

fn run(r: &NextRun) -> String {
    let dst = match r.dst {
        Some(Dst::Gap) => format!(
            r#"<span class="dst-note">DST gap: {} does not exist that day; it runs when the gap ends</span>"#,
            escape(r.nominal.as_deref().unwrap_or(""))
        ),
        Some(Dst::Fold) => {
            r#"<span class="dst-note">DST fold: this time happens twice; it runs once, the first time</span>"#
                .to_owned()
        }
        None => String::new(),
    };
    format!(
        r#"<li><time datetime="{}">{}</time><span class="utc">{}</span>{dst}</li>"#,
        escape(&r.local),
        escape(&r.text),
        escape(&r.utc)
    )
}

/// The next runs, as `<li>`s of `#next-runs`.
pub fn runs(list: &[NextRun]) -> String {
    list.iter().map(run).collect()
}

/// The edited schedule's risks ahead, one `<li>` each: its kind's words, then its sentence (a
/// collision found on the neighbour's side names that neighbour first).
pub fn risks(list: &[crate::engine::risks::Risk], until: Option<DateTime<Utc>>, zone: Zone) -> String {
    let cut = match until {
        Some(t) => format!(
            r#"<p class="muted">Looked at its first {} runs, up to {}.</p>"#,
            super::model::RISK_MAX_RUNS,
            escape(&local(t, zone))
        ),
        None => String::new(),
    };
    if list.is_empty() {
        return format!(
            r#"<p class="muted" data-testid="sim-no-risk">None in the {} days from the first run asked.</p>{cut}"#,
            super::model::RISK_DAYS
        );
    }
    let mut s = String::from(r#"<ul class="sim-risk-list">"#);
    for r in list {
        let info = r.kind.info();
        let who = match &r.with {
            Some(w) if w.job_id != r.job_id && !r.job_id.starts_with('\u{1}') => format!("{}: ", r.job),
            _ => String::new(),
        };
        let class = match info.severity {
            crate::engine::Severity::Error => "sim-diag-error",
            crate::engine::Severity::Warning => "sim-diag-warning",
            crate::engine::Severity::Info => "sim-diag-info",
        };
        let _ = write!(
            s,
            r#"<li class="sim-diag {class}" data-kind="{}"><strong>{}:</strong> {}{}</li>"#,
            info.key,
            escape(info.label),
            escape(&who),
            escape(&r.explanation)
        );
    }
    s.push_str("</ul>");
    s.push_str(&cut);
    s
}

/// "No run" when a valid schedule fires no more.
pub fn never(p: &Preview) -> String {
    if p.is_valid() && p.runs.is_empty() {
        "No run: the schedule never fires after this time.".into()
    } else {
        String::new()
    }
}

/// The last valid version's runs, while the row is invalid.
pub fn stale(last: Option<&Preview>) -> String {
    match last {
        Some(p) if !p.runs.is_empty() => format!(
            r#"<div data-testid="stale-runs"><p>The schedule as edited is not valid. The runs of the last valid version:</p><ol class="next-runs stale">{}</ol></div>"#,
            runs(&p.runs)
        ),
        _ => String::new(),
    }
}

fn local(at: DateTime<Utc>, zone: Zone) -> String {
    tz::to_local(at, zone).format("%a %Y-%m-%d %H:%M").to_string()
}

fn overlap_line(o: &Overlap, zone: Zone) -> String {
    let mins = (o.span.end - o.span.start).num_minutes().max(1);
    format!(
        "{} at {} overlaps {}{} (its run at {}) for {mins} min",
        o.job,
        local(o.run, zone),
        o.other,
        if o.other_moved { ", moved too" } else { "" },
        local(o.other_run, zone),
    )
}

fn list(items: impl IntoIterator<Item = String>, testid: &str) -> String {
    let mut s = format!(r#"<ul class="imp-list" data-testid="{testid}">"#);
    let mut any = false;
    for i in items {
        any = true;
        let _ = write!(s, "<li>{}</li>", escape(&i));
    }
    if !any {
        s.push_str(r#"<li class="muted">None.</li>"#);
    }
    s.push_str("</ul>");
    s
}

/// The least distance, in the axis's units (10,000 across), between two runs' starts for both
/// to be drawn apart: about 5 px on a desk's screen. Closer ones are drawn as one band.
const MIN_STEP: i64 = 60;
/// The gap kept between two runs drawn apart (their bars shortened if need be).
const MIN_GAP: i64 = 20;

/// One lane of the axis (integer coordinates: tenths of its 1,000 units): each run a bar, at
/// least [`MIN_GAP`] from the next; runs less than [`MIN_STEP`] apart one paler band saying how
/// many it holds. Returns the runs drawn in bands and the bands.
fn lane(out: &mut String, label: &str, runs: &[ReplayedRun], window: Window, y: i64, class: &str) -> (usize, usize) {
    let span = (window.end - window.start).num_seconds().max(1);
    let x = |t: DateTime<Utc>| ((t - window.start).num_seconds() * 10_000 / span).clamp(0, 10_000);
    let _ =
        write!(out, r#"<text x="-60" y="{}" text-anchor="end" class="imp-label">{}</text>"#, y + 130, escape(label));
    let (mut merged, mut bands) = (0, 0);
    let mut i = 0;
    while i < runs.len() {
        // The runs from i on, each starting less than MIN_STEP after the one before.
        let mut j = i + 1;
        while j < runs.len() && x(runs[j].likely.start) - x(runs[j - 1].likely.start) < MIN_STEP {
            j += 1;
        }
        let x0 = x(runs[i].likely.start);
        let next = runs.get(j).map_or(i64::MAX, |r| x(r.likely.start));
        let end = runs[i..j].iter().map(|r| x(r.likely.end)).max().unwrap_or(x0);
        let width = (end - x0).max(15).min((next - x0 - MIN_GAP).max(15));
        let (c, title) = if j - i > 1 {
            merged += j - i;
            bands += 1;
            let refused = runs[i..j].iter().filter(|r| r.refused.is_some()).count();
            let title = match refused {
                0 => format!("{} runs, too close together to draw apart at this scale", j - i),
                n => format!("{} runs ({n} refused), too close together to draw apart at this scale", j - i),
            };
            (class, title)
        } else if runs[i].refused.is_some() {
            ("imp-refused", "refused: the job would still be running".to_owned())
        } else {
            (class, "run (p50 duration)".to_owned())
        };
        let band = if j - i > 1 { format!(r#" fill-opacity=".45" data-runs="{}""#, j - i) } else { String::new() };
        let _ = write!(
            out,
            r#"<rect x="{x0}" y="{}" width="{width}" height="120" class="{c}"{band}><title>{title}</title></rect>"#,
            y + 30
        );
        i = j;
    }
    (merged, bands)
}

/// A list whose items each stand for `n` runs (`data-runs`): what a summary's count adds up.
fn counted_list(items: impl IntoIterator<Item = (String, usize)>, testid: &str) -> String {
    let mut s = format!(r#"<ul class="imp-list" data-testid="{testid}">"#);
    let mut any = false;
    for (i, n) in items {
        any = true;
        let _ = write!(s, r#"<li data-runs="{n}">{}</li>"#, escape(&i));
    }
    if !any {
        s.push_str(r#"<li class="muted">None.</li>"#);
    }
    s.push_str("</ul>");
    s
}

/// `a`, or `a`–`b` when they differ.
fn span_words(a: &str, b: &str) -> String {
    if a == b { a.to_owned() } else { format!("{a}–{b}") }
}

/// The runs the scheduler would refuse as proposed, grouped: per moved job, the times of day
/// refused on the same days make one line ("refused every day from Sat 11-22 to Fri 12-19 at
/// 02:00–02:40 (5 times a day): 140 runs"), each with how many runs it stands for.
fn refusal_lines(i: &Impact, zone: Zone) -> Vec<(String, usize)> {
    use chrono::{NaiveDate, NaiveTime};
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    for m in &i.moved {
        let mut by_time: BTreeMap<NaiveTime, Vec<NaiveDate>> = BTreeMap::new();
        for r in m.proposed.iter().filter(|r| r.refused.is_some()) {
            let l = tz::to_local(r.at, zone);
            by_time.entry(l.time()).or_default().push(l.date());
        }
        let mut by_days: BTreeMap<Vec<NaiveDate>, Vec<NaiveTime>> = BTreeMap::new();
        for (time, mut dates) in by_time {
            dates.sort();
            dates.dedup();
            by_days.entry(dates).or_default().push(time);
        }
        let mut groups: Vec<(Vec<NaiveDate>, Vec<NaiveTime>)> = by_days.into_iter().collect();
        groups.sort_by_key(|(d, t)| (d.first().copied(), t.first().copied()));
        for (dates, times) in groups {
            let (Some(first), Some(last)) = (dates.first(), dates.last()) else { continue };
            let day = |d: &NaiveDate| d.format("%a %Y-%m-%d").to_string();
            let consecutive = (*last - *first).num_days() + 1 == dates.len() as i64;
            let days = match dates.len() {
                1 => format!("on {}", day(first)),
                n if consecutive => format!("every day from {} to {} ({n} days)", day(first), day(last)),
                n => format!("on {n} days from {} to {}", day(first), day(last)),
            };
            let hm = |t: &NaiveTime| t.format("%H:%M").to_string();
            let at = match times.len() {
                1 => format!("at {}", hm(&times[0])),
                n => format!("at {} ({n} times a day)", span_words(&hm(&times[0]), &hm(&times[n - 1]))),
            };
            let runs = dates.len() * times.len();
            let word = if runs == 1 { "run" } else { "runs" };
            out.push((
                format!("{}: refused {days} {at}: {runs} {word}, the previous run would still be running", m.name),
                runs,
            ));
        }
    }
    out
}

/// The jobs not moved that the change's overlaps (created or removed, likely or possible)
/// collide with, each with its runs there (from its start to the end of the overlap), in
/// the order first met.
fn neighbours(i: &Impact) -> Vec<(String, Vec<ReplayedRun>)> {
    let mut out: Vec<(String, Vec<ReplayedRun>)> = Vec::new();
    let all = [&i.created.likely, &i.created.possible, &i.removed.likely, &i.removed.possible];
    for o in all.into_iter().flatten().filter(|o| !o.other_moved) {
        let run = ReplayedRun {
            at: o.other_run,
            likely: Window::new(o.other_run, o.span.end.max(o.other_run)),
            possible: Window::new(o.other_run, o.span.end.max(o.other_run)),
            refused: None,
            refused_p95: None,
        };
        match out.iter_mut().find(|(n, _)| *n == o.other) {
            Some((_, runs)) => {
                if let Some(r) = runs.iter_mut().find(|r| r.at == run.at) {
                    r.likely.end = r.likely.end.max(run.likely.end);
                    r.possible = r.likely;
                } else {
                    runs.push(run);
                }
            }
            None => out.push((o.other.clone(), vec![run])),
        }
    }
    for (_, runs) in &mut out {
        runs.sort_by_key(|r| r.at);
    }
    out
}

/// The most neighbours drawn on the axis, each in a lane of its own.
const NEIGHBOUR_LANES: usize = 4;

/// What the change does to the instance.
pub fn impact(i: &Impact, zone: Zone) -> String {
    let s = i.summary;
    let days = ((i.window.end - i.window.start).num_hours() + 23) / 24;
    let day = |t: DateTime<Utc>| tz::to_local(t, zone).format("%a %Y-%m-%d").to_string();
    let last = i.window.end - chrono::TimeDelta::seconds(1);
    let moved: Vec<&str> = i.moved.iter().map(|m| m.name.as_str()).collect();
    let mut out = format!(
        r#"<p data-testid="impact-summary">Over {days} day(s), {}, the change moves {}: it creates <span data-count="created">{}</span> overlap(s) and <span data-count="created-possible">{}</span> more possible at p95 durations; it removes <span data-count="removed">{}</span> and <span data-count="removed-possible">{}</span> possible; the scheduler would refuse <span data-count="refused">{}</span> run(s) as proposed, against {} as scheduled now.</p>"#,
        span_words(&day(i.window.start), &day(last)),
        escape(&moved.join(", ")),
        s.created_likely,
        s.created_possible,
        s.removed_likely,
        s.removed_possible,
        s.refused_proposed,
        s.refused_current
    );
    let near = neighbours(i);
    let drawn = near.len().min(NEIGHBOUR_LANES);
    let lanes = i.moved.len() as i64 * 2 + drawn as i64;
    let h = lanes * 200 + 260;
    let _ = write!(
        out,
        r#"<svg class="imp-axis" viewBox="-1300 0 11400 {h}" preserveAspectRatio="xMinYMin meet" role="img" aria-label="The job's runs now and as proposed, and the runs of the jobs they would overlap, day by day">"#
    );
    // A tick at each local midnight, labelled with the day.
    let span = (i.window.end - i.window.start).num_seconds().max(1);
    let mut day = tz::to_local(i.window.start, zone).date();
    for _ in 0..=crate::components::simulator::model::MAX_DAYS {
        let Some(next) = day.succ_opt() else { break };
        day = next;
        let at = tz::local_to_instant(day.and_hms_opt(0, 0, 0).unwrap_or_default(), zone);
        if at >= i.window.end {
            break;
        }
        let x = (at - i.window.start).num_seconds() * 10_000 / span;
        let _ = write!(
            out,
            r#"<line x1="{x}" x2="{x}" y1="0" y2="{}" class="imp-tick"/><text x="{}" y="{}" class="imp-label">{}</text>"#,
            h - 80,
            x + 20,
            h - 10,
            day.format("%a %d")
        );
    }
    let many = i.moved.len() > 1;
    let (mut merged, mut bands) = (0, 0);
    for (k, m) in i.moved.iter().enumerate() {
        let name = |what: &str| if many { format!("{} {what}", m.name) } else { what.to_owned() };
        for (runs, what, y, class) in
            [(&m.current, "now", 0, "imp-current"), (&m.proposed, "proposed", 200, "imp-proposed")]
        {
            let (n, b) = lane(&mut out, &name(what), runs, i.window, k as i64 * 400 + y, class);
            merged += n;
            bands += b;
        }
    }
    // The neighbours the overlaps name, a lane each, under the moved jobs' lanes.
    for (k, (name, runs)) in near.iter().take(drawn).enumerate() {
        let y = i.moved.len() as i64 * 400 + k as i64 * 200;
        let short: String =
            if name.chars().count() > 14 { name.chars().take(13).chain(['…']).collect() } else { name.clone() };
        out.push_str("<g class=\"imp-neighbour\" data-testid=\"impact-neighbour\">");
        let _ = write!(out, "<title>{}</title>", escape(name));
        let (n, b) = lane(&mut out, &short, runs, i.window, y, "imp-other");
        out.push_str("</g>");
        merged += n;
        bands += b;
    }
    out.push_str("</svg>");
    if near.len() > drawn {
        let _ = write!(
            out,
            r#"<p class="muted" data-testid="impact-more-neighbours">{} more job(s) it would overlap are in the lists below, not drawn.</p>"#,
            near.len() - drawn
        );
    }
    if bands > 0 {
        let minutes = (MIN_STEP * span / 10_000 / 60).max(1);
        let _ = write!(
            out,
            r#"<p class="muted" data-testid="impact-merged">Runs less than {minutes} min apart are drawn as one paler band at this scale: {merged} runs in {bands} band(s). Fewer days draw them apart.</p>"#
        );
    }
    out.push_str("<h3>Overlaps the change creates</h3>");
    out.push_str(&list(i.created.likely.iter().map(|o| overlap_line(o, zone)), "created"));
    out.push_str("<h3>Possible overlaps it creates (p95 durations)</h3>");
    out.push_str(&list(i.created.possible.iter().map(|o| overlap_line(o, zone)), "created-possible"));
    out.push_str("<h3>Overlaps it removes</h3>");
    out.push_str(&list(i.removed.likely.iter().map(|o| overlap_line(o, zone)), "removed"));
    out.push_str("<h3>Possible overlaps it removes (p95 durations)</h3>");
    out.push_str(&list(i.removed.possible.iter().map(|o| overlap_line(o, zone)), "removed-possible"));
    out.push_str("<h3>Runs the scheduler would refuse (the job still running)</h3>");
    out.push_str(&counted_list(refusal_lines(i, zone), "refused"));
    out.push_str("<h3>Very frequent jobs (bands, not counted as conflicts)</h3>");
    out.push_str(&list(i.bands.iter().map(|b| format!("{}: {}", b.job, b.pattern)), "bands"));
    if !i.no_history.is_empty() {
        let _ = write!(
            out,
            r#"<p class="muted">No run history (taken as zero-length): {}</p>"#,
            escape(&i.no_history.join(", "))
        );
    }
    out
}

/// Primentra's test button: would fire, and why.
pub fn dry_run(d: Option<&Result<crate::engine::primentra::DryRun, Diagnostic>>) -> String {
    match d {
        None => String::new(),
        Some(Err(e)) => format!(r#"<p class="sim-diag sim-diag-error">{}</p>"#, escape(&e.to_string())),
        Some(Ok(d)) => format!(
            r#"<p data-testid="dry-run" data-fire="{}"><strong>{}</strong> {}{}</p>"#,
            d.would_fire,
            if d.would_fire { "Would fire." } else { "Would not fire." },
            escape(&d.reason),
            d.trigger_source.as_deref().map(|t| format!(" ({})", escape(t))).unwrap_or_default()
        ),
    }
}

/// The values a column of fixed values takes, as its source allows them (`value` or
/// `value=label`); `None` for a free column.
pub fn choices(dialect: Dialect, column: &str) -> Option<&'static [&'static str]> {
    const ENABLED: &[&str] = &["1=1 (enabled)", "0=0 (disabled)"];
    let c = column.to_ascii_lowercase();
    Some(match (dialect, c.as_str()) {
        (Dialect::Cron, "active") => &["true", "false"],
        (Dialect::MysqlEvent, "event_type") => &["RECURRING", "ONE TIME"],
        (Dialect::MysqlEvent, "interval_field") => crate::engine::edit::MYSQL_INTERVAL_FIELDS,
        (Dialect::MysqlEvent, "status") => &["ENABLED", "DISABLED", "SLAVESIDE_DISABLED"],
        (Dialect::MysqlEvent, "on_completion") => &["NOT PRESERVE", "PRESERVE"],
        (Dialect::JobTable, "job_status") => {
            &["ENABLED", "DISABLED", "ABORTED", "ERROR", "FINISHED", "PAUSED", "RESUMED", "RUNNING", "SLEEPING"]
        }
        (Dialect::ServiceBroker, "frequencytype") => &["1=1 (daily)", "2=2 (weekly)", "3=3 (monthly)"],
        (Dialect::ServiceBroker | Dialect::Primentra, "isenabled") => ENABLED,
        (Dialect::Primentra, "processingmode") => &["scheduled", "triggered", "manual"],
        (Dialect::Primentra, "scheduletype") => &["interval", "daily", "weekly", "monthly"],
        _ => return None,
    })
}

/// A slot's label in a pgAgent array's boxes.
pub type SlotLabel = fn(usize) -> String;

/// pgAgent's `bool[]` columns: how many slots, and each slot's label.
pub fn slots(dialect: Dialect, column: &str) -> Option<(usize, SlotLabel)> {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    if dialect != Dialect::PgAgent {
        return None;
    }
    Some(match column.to_ascii_lowercase().as_str() {
        "jscminutes" => (60, |i| format!(":{i:02}")),
        "jschours" => (24, |i| format!("{i:02}")),
        "jscweekdays" => (7, |i| super::model::WEEKDAYS[i][..3].to_owned()),
        "jscmonthdays" => (32, |i| if i == 31 { "Last".to_owned() } else { (i + 1).to_string() }),
        "jscmonths" => (12, |i| MONTHS[i].to_owned()),
        _ => return None,
    })
}

/// A `bool[]` column's value as `n` slots (`None`: not an array of `n` booleans, absent or
/// empty is all false, as pgAgent's default).
pub fn slot_values(v: &str, n: usize) -> Option<Vec<bool>> {
    let t = v.trim();
    if t.is_empty() {
        return Some(vec![false; n]);
    }
    // `[true,false,…]` (JSON) or `{t,f,…}` (PostgreSQL's text).
    let mut out = Vec::with_capacity(n);
    for p in t.get(1..t.len() - 1)?.split(',') {
        out.push(match p.trim() {
            "true" | "t" => true,
            "false" | "f" => false,
            _ => return None,
        });
    }
    (out.len() == n).then_some(out)
}

/// One labelled field per column of the row (the column editor; redrawn by the browser when
/// the row's columns change): a `<select>` for a column of fixed values, its current value
/// kept as an option even when the source would refuse it (the page says why); a box per
/// slot for pgAgent's arrays (`col-{column}.{slot}`), when the column holds one.
pub fn columns(dialect: Dialect, json: &str) -> String {
    let cols = super::model::columns(json);
    if cols.is_empty() {
        return r#"<p class="muted">Fix the JSON below to edit its columns here.</p>"#.into();
    }
    cols.iter()
        .map(|(k, v)| {
            if let Some((n, label)) = slots(dialect, k)
                && let Some(set) = slot_values(v, n)
            {
                let mut s = format!(r#"<fieldset class="field picks"><legend>{}</legend>"#, escape(k));
                for (i, on) in set.iter().enumerate() {
                    let _ = write!(
                        s,
                        r#"<label><input type="checkbox" id="col-{}.{i}"{}>{}</label>"#,
                        escape(k),
                        if *on { " checked" } else { "" },
                        label(i)
                    );
                }
                return s + "</fieldset>";
            }
            let field = match choices(dialect, k) {
                None => format!(
                    r#"<input id="col-{}" autocomplete="off" spellcheck="false" value="{}">"#,
                    escape(k),
                    escape(v)
                ),
                Some(list) => {
                    let mut opts: Vec<(&str, &str)> =
                        list.iter().map(|o| o.split_once('=').unwrap_or((o, o))).collect();
                    if !opts.iter().any(|(o, _)| o == v) {
                        opts.insert(0, (v, if v.is_empty() { "(NULL)" } else { v }));
                    }
                    let mut s = format!(r#"<select id="col-{}">"#, escape(k));
                    for (o, label) in opts {
                        let sel = if o == v { " selected" } else { "" };
                        let _ = write!(s, r#"<option value="{}"{sel}>{}</option>"#, escape(o), escape(label));
                    }
                    s + "</select>"
                }
            };
            format!(r#"<div class="field"><label for="col-{k}">{k}</label>{field}</div>"#, k = escape(k))
        })
        .collect()
}

/// What the markup renderers' tests share: hostile text, and their output parsed by an HTML5
/// parser (html5ever, through `scraper`) as a browser parses it.
#[cfg(test)]
pub(crate) mod parsed {
    use proptest::prelude::*;
    use scraper::{ElementRef, Html, Node, Selector};

    /// Pieces of markup a name or a message read from a source may hold.
    const PIECES: &[&str] = &[
        "<",
        ">",
        "&",
        "\"",
        "'",
        "=",
        "/",
        " ",
        "<b id=pwned>",
        "</b>",
        "<p>",
        "</p>",
        "<li>",
        "</li>",
        "</ol>",
        "</ul>",
        "<table>",
        "<td>",
        "</td>",
        "</tr>",
        "<dd>",
        "</dl>",
        "</code>",
        "</pre>",
        "</textarea>",
        "</title>",
        "<title>",
        "<script>",
        "</script>",
        "</style>",
        "<noscript>",
        "<plaintext>",
        "<xmp>",
        "<template>",
        "<svg>",
        "</svg>",
        "</text>",
        "<math>",
        "<foreignObject>",
        "<desc>",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<!DOCTYPE html>",
        "&amp;",
        "&lt;",
        "&gt;",
        "&quot;",
        "&#60;",
        "&#x3C;",
        "\"><img src=x onerror=alert(1)>",
        "' onmouseover='alert(1)",
        "javascript:alert(1)",
        "\r\n",
        "\r",
        "\n",
        "\t",
        "\0",
        "\u{7}",
        "\u{1B}[31m",
        "\u{7F}",
        "\u{202E}",
        "\u{200F}",
        "\u{FEFF}",
        "\u{FFFD}",
        "\u{1F600}",
    ];

    /// Arbitrary text, mostly made of [`PIECES`].
    pub fn hostile() -> BoxedStrategy<String> {
        let piece = prop_oneof![
            6 => prop::sample::select(PIECES).prop_map(str::to_owned),
            2 => any::<String>(),
            1 => "[a-zA-Z0-9 ]{1,8}",
        ];
        prop::collection::vec(piece, 0..8).prop_map(|v| v.concat()).boxed()
    }

    /// Text as the parser gives it back: line breaks normalised (CR LF and CR to LF), NUL
    /// dropped or replaced (by context: both are dropped here).
    pub fn norm(s: &str) -> String {
        s.replace("\r\n", "\n").replace('\r', "\n").replace(['\0', '\u{FFFD}'], "")
    }

    pub fn parse(html: &str) -> Html {
        Html::parse_fragment(html)
    }

    /// Every element's name and attribute names, in document order: the markup's shape,
    /// whatever the text in it.
    pub fn shape(html: &str) -> Vec<String> {
        let doc = parse(html);
        doc.root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .map(|e| {
                let mut attrs: Vec<&str> = e.value().attrs().map(|(n, _)| n).collect();
                attrs.sort_unstable();
                format!("{}[{}]", e.value().name(), attrs.join(","))
            })
            .collect()
    }

    pub fn all<'a>(doc: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
        doc.select(&Selector::parse(css).expect("a selector")).collect()
    }

    /// The elements under `el` that `css` selects.
    pub fn within<'a>(el: ElementRef<'a>, css: &str) -> Vec<ElementRef<'a>> {
        el.select(&Selector::parse(css).expect("a selector")).collect()
    }

    /// Every text node under `el`, in order, normalised.
    pub fn text(el: ElementRef) -> String {
        let t: String = el
            .descendants()
            .filter_map(|n| match n.value() {
                Node::Text(t) => Some(&**t),
                _ => None,
            })
            .collect();
        norm(&t)
    }

    /// An attribute's value, normalised.
    pub fn attr(el: ElementRef, name: &str) -> Option<String> {
        el.value().attr(name).map(norm)
    }
}

#[cfg(test)]
mod tests {
    use super::parsed::{all, attr, hostile, norm, parse, shape, text, within};
    use super::*;
    use crate::engine::primentra::DryRun;
    use crate::engine::replay::{Band, MovedJob, Overlaps, RefusalReason, Refused, Summary};
    use proptest::prelude::*;

    #[test]
    fn everything_shown_is_escaped() {
        assert_eq!(escape(r#"<b a="x">'&'"#), "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;");
        let d = Diagnostic::error("name", "<script>", "bad");
        assert!(!diagnostics(&[d], "x").contains("<script>"));
    }

    fn at(h: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_795_000_000 + h * 3600, 0).expect("an instant")
    }

    fn w(a: i64, b: i64) -> Window {
        Window::new(at(a), at(b))
    }

    fn next_run((local, text, utc, nominal): &(String, String, String, String)) -> NextRun {
        NextRun {
            local: local.clone(),
            text: text.clone(),
            utc: utc.clone(),
            dst: Some(Dst::Gap),
            nominal: Some(nominal.clone()),
        }
    }

    fn benign<T>(list: &[T]) -> Vec<(String, String, String, String)> {
        list.iter().map(|_| ("x".into(), "x".into(), "x".into(), "x".into())).collect()
    }

    /// The review: over 7 days a 30-minute job's runs ran together into solid bars. Each bar
    /// drawn keeps a gap to the next; runs too close to draw apart are one band that says so.
    #[test]
    fn the_chart_keeps_runs_apart_or_says_how_many_it_merged() {
        let every_30 = |hours: i64| -> Vec<ReplayedRun> {
            (0..hours * 2)
                .map(|k| {
                    let t = at(0) + chrono::TimeDelta::minutes(30 * k);
                    let likely = Window::new(t, t + chrono::TimeDelta::minutes(25));
                    ReplayedRun { at: t, likely, possible: likely, refused: None, refused_p95: None }
                })
                .collect()
        };
        let of = |hours: i64| {
            let mut i = impact_of(&["job".into()], "other", "band", "every minute");
            i.window = w(0, hours);
            i.moved[0].current = every_30(hours);
            i.moved[0].proposed = every_30(hours);
            parse(&impact(&i, Zone::UTC))
        };
        // One day: 48 bars a lane, each ending at least MIN_GAP before the next starts.
        let day = of(24);
        let bars: Vec<(i64, i64)> = all(&day, "rect.imp-current")
            .into_iter()
            .map(|r| (attr(r, "x").unwrap().parse().unwrap(), attr(r, "width").unwrap().parse().unwrap()))
            .collect();
        assert_eq!(bars.len(), 48);
        assert!(bars.windows(2).all(|p| p[0].0 + p[0].1 + MIN_GAP <= p[1].0), "{bars:?}");
        assert!(all(&day, "[data-testid=impact-merged]").is_empty());
        // Seven days: one band a lane holding all 336 runs, and a sentence counting them.
        let week = of(24 * 7);
        let bands = all(&week, "rect.imp-current[data-runs]");
        assert_eq!(bands.len(), 1);
        assert_eq!(attr(bands[0], "data-runs").as_deref(), Some("336"));
        let note = text(all(&week, "[data-testid=impact-merged]")[0]);
        assert!(note.contains("672 runs in 2 band(s)"), "{note}");
    }

    /// A month of a nightly job moved from 01:00 into five runs from 02:00 to 02:40 that its
    /// own 45 minutes refuse, beside three neighbours: the summary's every count is what its
    /// list shows (refusals grouped, each line counting its runs), and the axis draws the
    /// neighbours the overlaps name.
    #[test]
    fn the_summary_counts_what_its_lists_show_with_refusals_grouped_and_neighbours_drawn() {
        use crate::engine::replay::{EditedJob, Estimate, OtherJob, Settings, replay};
        let day0 = DateTime::parse_from_rfc3339("2026-11-23T00:00:00Z").unwrap().to_utc();
        let daily = |h: i64, m: i64| -> Vec<DateTime<Utc>> {
            (0..30).map(|d| day0 + chrono::TimeDelta::minutes(d * 1440 + h * 60 + m)).collect()
        };
        let est = |p50: i64, p95: i64| Some(Estimate { p50_secs: p50 * 60, p95_secs: p95 * 60 });
        let mut proposed: Vec<DateTime<Utc>> = (0..5).flat_map(|k| daily(2, k * 10)).collect();
        proposed.sort();
        let edit = EditedJob { name: "Nightly load".into(), current: daily(1, 0), proposed, estimate: est(45, 50) };
        let other = |name: &str, h, m, e| OtherJob {
            name: name.into(),
            occurrences: daily(h, m),
            estimate: e,
            shared_schedules: vec![],
            proposed: None,
        };
        let others =
            [other("Backup", 2, 30, est(20, 60)), other("Index", 1, 40, est(5, 30)), other("Stats", 1, 47, est(5, 10))];
        let window = Window::new(day0, day0 + chrono::TimeDelta::days(30));
        let i = replay(&edit, &others, window, &Settings { band_gap_secs: 60 });
        let doc = parse(&impact(&i, Zone::UTC));
        let count = |what: &str| -> usize {
            text(all(&doc, &format!("[data-testid=impact-summary] [data-count={what}]"))[0]).parse().unwrap()
        };
        let items = |id: &str| all(&doc, &format!("ul[data-testid={id}] li:not(.muted)"));
        for id in ["created", "created-possible", "removed", "removed-possible"] {
            assert_eq!(count(id), items(id).len(), "{id}");
        }
        assert!(count("removed") > 0 && count("removed-possible") > 0 && count("created") > 0, "{:?}", i.summary);
        // 4 refusals a night for 30 nights: one line, counting them.
        let refused = items("refused");
        assert_eq!(refused.len(), 1, "grouped: {:?}", refused.iter().map(|r| text(*r)).collect::<Vec<_>>());
        let runs: usize = refused.iter().map(|r| attr(*r, "data-runs").unwrap().parse::<usize>().unwrap()).sum();
        assert_eq!((count("refused"), runs), (120, 120));
        let line = text(refused[0]);
        assert!(
            line.contains(
                "every day from Mon 2026-11-23 to Tue 2026-12-22 (30 days) at 02:10–02:40 (4 times a day): 120 runs"
            ),
            "{line}"
        );
        // The summary names the days the lists cover, and the count as scheduled now.
        let summary = text(all(&doc, "[data-testid=impact-summary]")[0]);
        assert!(summary.contains("Over 30 day(s), Mon 2026-11-23–Tue 2026-12-22,"), "{summary}");
        assert!(summary.contains("against 0 as scheduled now"), "{summary}");
        // The neighbours the overlaps name are drawn, each in its lane.
        let mut drawn: Vec<String> = all(&doc, "g.imp-neighbour > title").into_iter().map(text).collect();
        drawn.sort();
        assert_eq!(drawn, ["Backup", "Index", "Stats"]);
        assert!(all(&doc, "g.imp-neighbour rect.imp-other").len() >= 60, "each neighbour's runs drawn");
    }

    /// What the simulator shows of an impact: `names` moved (the first the edited job),
    /// overlapping `other`, `band` a band with `pattern`, every job without history.
    fn impact_of(names: &[String], other: &str, band: &str, pattern: &str) -> Impact {
        let refused = ReplayedRun {
            at: at(2),
            likely: w(2, 3),
            possible: w(2, 4),
            refused: Some(Refused { reason: RefusalReason::StillRunning, running: w(1, 3) }),
            refused_p95: None,
        };
        let ran = ReplayedRun { at: at(1), likely: w(1, 3), possible: w(1, 4), refused: None, refused_p95: None };
        let overlap = |job: &String| Overlap {
            job: job.clone(),
            run: at(1),
            other: other.to_owned(),
            other_run: at(1),
            other_moved: false,
            span: w(1, 2),
        };
        let overlaps =
            Overlaps { likely: names.iter().map(overlap).collect(), possible: names.iter().map(overlap).collect() };
        Impact {
            window: w(0, 48),
            moved: names
                .iter()
                .map(|n| MovedJob {
                    name: n.clone(),
                    estimate: None,
                    shared_schedules: vec![],
                    current: vec![ran],
                    proposed: vec![ran, refused],
                })
                .collect(),
            current: Overlaps::default(),
            proposed: overlaps.clone(),
            created: overlaps.clone(),
            removed: overlaps,
            bands: vec![Band {
                job: band.to_owned(),
                moved: false,
                median_gap_secs: 60,
                in_current: true,
                in_proposed: true,
                occurrences: 100,
                estimate: None,
                pattern: pattern.to_owned(),
            }],
            no_history: names.to_vec(),
            summary: Summary::default(),
            diagnostics: vec![],
        }
    }

    #[test]
    fn columns_of_fixed_values_are_selects_keeping_an_odd_value() {
        let json = r#"{"EVENT_NAME":"e","EVENT_TYPE":"RECURRING","INTERVAL_FIELD":"FORTNIGHT","STATUS":"ENABLED","ON_COMPLETION":null}"#;
        let doc = parse(&columns(Dialect::MysqlEvent, json));
        let options = |id: &str| -> Vec<(String, bool)> {
            all(&doc, &format!("select#{id} option"))
                .into_iter()
                .map(|o| (attr(o, "value").unwrap_or_default(), o.value().attr("selected").is_some()))
                .collect()
        };
        assert_eq!(all(&doc, "input#col-EVENT_NAME").len(), 1, "a free column stays a text field");
        assert_eq!(options("col-EVENT_TYPE"), [("RECURRING".into(), true), ("ONE TIME".into(), false)]);
        assert_eq!(
            options("col-STATUS").into_iter().map(|(v, _)| v).collect::<Vec<_>>(),
            ["ENABLED", "DISABLED", "SLAVESIDE_DISABLED"]
        );
        let field = options("col-INTERVAL_FIELD");
        assert_eq!(
            field[0],
            ("FORTNIGHT".into(), true),
            "the row's value stays, selected, for the page to call invalid"
        );
        assert_eq!(field.len(), 16);
        assert!(field.contains(&("YEAR_MONTH".into(), false)));
        assert_eq!(options("col-ON_COMPLETION")[0], ("".into(), true), "NULL kept");
        assert_eq!(text(all(&doc, "select#col-ON_COMPLETION option")[0]), "(NULL)");
        // Other dialects' fixed columns, matched whatever their case.
        let doc = parse(&columns(Dialect::Primentra, r#"{"processingmode":"scheduled","IsEnabled":1}"#));
        assert_eq!(all(&doc, "select").len(), 2);
        assert_eq!(all(&parse(&columns(Dialect::JobTable, r#"{"job_status":"ENABLED"}"#)), "select option").len(), 9);
        assert_eq!(all(&parse(&columns(Dialect::Cron, r#"{"active":true}"#)), "select#col-active option").len(), 2);
        assert_eq!(all(&parse(&columns(Dialect::ServiceBroker, r#"{"FrequencyType":1}"#)), "select option").len(), 3);
    }

    proptest! {
        /// Diagnostics (a value read from the row, a message naming it): one paragraph each,
        /// its text the diagnostic's whole.
        #[test]
        fn diagnostics_show_hostile_text_as_text(list in prop::collection::vec((hostile(), hostile(), hostile()), 0..4)) {
            let ds: Vec<Diagnostic> = list.iter().map(|(f, v, m)| Diagnostic::error(f, v, m.clone())).collect();
            let plain: Vec<Diagnostic> = list.iter().map(|_| Diagnostic::error("x", "x", "x")).collect();
            let html = diagnostics(&ds, "sim-diag-error");
            prop_assert_eq!(shape(&html), shape(&diagnostics(&plain, "sim-diag-error")), "{}", html);
            let doc = parse(&html);
            let ps: Vec<String> = all(&doc, "p.sim-diag").into_iter().map(text).collect();
            let want: Vec<String> = ds.iter().map(|d| norm(&d.to_string())).collect();
            prop_assert_eq!(ps, want, "{}", html);
        }

        /// The descriptions, the next runs (a DST note naming the wall-clock time), the stale
        /// runs: their text whole, the `<time>`'s `datetime` the value given.
        #[test]
        fn descriptions_and_runs_show_hostile_text_as_text(
            summary in hostile(),
            msdb in hostile(),
            list in prop::collection::vec((hostile(), hostile(), hostile(), hostile()), 1..4),
        ) {
            let p = Preview { runs: list.iter().map(next_run).collect(), description: summary.clone(), msdb: Some(msdb.clone()), ..Preview::default() };
            let plain = Preview { runs: benign(&list).iter().map(next_run).collect(), description: "x".into(), msdb: Some("x".into()), ..Preview::default() };
            for (html, model) in [
                (describe(&p, None), describe(&plain, None)),
                (runs(&p.runs), runs(&plain.runs)),
                (stale(Some(&p)), stale(Some(&plain))),
            ] {
                prop_assert_eq!(shape(&html), shape(&model), "{}", html);
            }
            let doc = parse(&describe(&p, None));
            prop_assert_eq!(all(&doc, "[data-testid=describe]").into_iter().map(text).collect::<Vec<_>>(), vec![norm(&summary)]);
            prop_assert_eq!(all(&doc, "[data-testid=describe-msdb] code").into_iter().map(text).collect::<Vec<_>>(), vec![norm(&msdb)]);
            let doc = parse(&runs(&p.runs));
            let items = all(&doc, "li");
            prop_assert_eq!(items.len(), list.len());
            for (li, (local, shown, utc, nominal)) in items.into_iter().zip(&list) {
                let times = within(li, "time");
                prop_assert_eq!(times.len(), 1);
                prop_assert_eq!(attr(times[0], "datetime"), Some(norm(local)));
                prop_assert_eq!(text(times[0]), norm(shown));
                prop_assert_eq!(within(li, "span.utc").into_iter().map(text).collect::<Vec<_>>(), vec![norm(utc)]);
                prop_assert!(text(li).contains(&norm(nominal)), "{}", li.html());
            }
        }

        /// The impact of an edit: the jobs' names (moved, overlapping, frequent, without
        /// history) in its summary, its lanes' labels and its lists, whole.
        #[test]
        fn the_impact_shows_hostile_names_as_text(
            names in prop::collection::vec(hostile(), 1..4),
            other in hostile(),
            band in hostile(),
            pattern in hostile(),
        ) {
            let i = impact_of(&names, &other, &band, &pattern);
            let xs: Vec<String> = names.iter().map(|_| "x".to_owned()).collect();
            let html = impact(&i, Zone::UTC);
            prop_assert_eq!(shape(&html), shape(&impact(&impact_of(&xs, "x", "x", "x"), Zone::UTC)), "{}", html);
            let doc = parse(&html);
            let summary = all(&doc, "[data-testid=impact-summary]").into_iter().map(text).collect::<String>();
            prop_assert!(summary.contains(&norm(&names.join(", "))), "{}", summary);
            let labels: Vec<String> = all(&doc, "svg text.imp-label").into_iter().map(text).collect();
            let lanes: Vec<String> = if names.len() > 1 {
                names.iter().flat_map(|n| [norm(&format!("{n} now")), norm(&format!("{n} proposed"))]).collect()
            } else {
                vec!["now".into(), "proposed".into()]
            };
            // The moved jobs' lanes, then the neighbour they overlap (its label cut to 14
            // characters; its whole name in the lane's title).
            prop_assert_eq!(&labels[labels.len() - lanes.len() - 1..labels.len() - 1], &lanes[..]);
            let neighbour = all(&doc, "g.imp-neighbour > title").into_iter().map(text).collect::<Vec<_>>();
            prop_assert_eq!(neighbour, vec![norm(&other)]);
            let items = |id: &str| all(&doc, &format!("ul[data-testid={id}] li")).into_iter().map(text).collect::<Vec<_>>();
            let lines: Vec<String> = i.created.likely.iter().map(|o| norm(&overlap_line(o, Zone::UTC))).collect();
            prop_assert_eq!(items("created"), lines.clone());
            prop_assert_eq!(items("removed"), lines);
            let on = at(2).format("on %a %Y-%m-%d at %H:%M");
            let refused: Vec<String> = names
                .iter()
                .map(|n| norm(&format!("{n}: refused {on}: 1 run, the previous run would still be running")))
                .collect();
            prop_assert_eq!(items("refused"), refused);
            prop_assert_eq!(items("bands"), vec![norm(&format!("{band}: {pattern}"))]);
            let none = all(&doc, "p.muted").into_iter().map(text).collect::<String>();
            prop_assert_eq!(none, norm(&format!("No run history (taken as zero-length): {}", names.join(", "))));
        }

        /// Primentra's test button: its reason and what fired, or the error, whole.
        #[test]
        fn the_dry_run_shows_hostile_text_as_text(reason in hostile(), source in hostile(), error in hostile()) {
            let ok = |reason: &str, source: &str| -> Result<DryRun, Diagnostic> {
                Ok(DryRun { would_fire: true, reason: reason.to_owned(), trigger_source: Some(source.to_owned()), pending_rows: 1, oldest_row_age: 1, zombie_released: false })
            };
            let html = dry_run(Some(&ok(&reason, &source)));
            prop_assert_eq!(shape(&html), shape(&dry_run(Some(&ok("x", "x")))), "{}", html);
            let doc = parse(&html);
            let p = all(&doc, "[data-testid=dry-run]");
            prop_assert_eq!(p.len(), 1);
            prop_assert_eq!(text(p[0]), norm(&format!("Would fire. {reason} ({source})")));
            let e = Diagnostic::error("RunTimes", &error, error.clone());
            let html = dry_run(Some(&Err(e.clone())));
            prop_assert_eq!(shape(&html), shape(&dry_run(Some(&Err(Diagnostic::error("x", "x", "x"))))), "{}", html);
            prop_assert_eq!(all(&parse(&html), "p").into_iter().map(text).collect::<Vec<_>>(), vec![norm(&e.to_string())]);
        }

        /// The column editor: a label and a field per column, the column's name and value
        /// whole in the label, the field's `id` and its `value`.
        #[test]
        fn the_column_editor_shows_hostile_columns_as_text(cols in prop::collection::vec((hostile(), hostile()), 0..5)) {
            let row: serde_json::Map<String, serde_json::Value> = cols.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
            let json = serde_json::Value::Object(row.clone()).to_string();
            let plain: serde_json::Map<String, serde_json::Value> = (0..row.len()).map(|i| (format!("k{i}"), "x".into())).collect();
            let html = columns(Dialect::Agent, &json);
            prop_assert_eq!(shape(&html), shape(&columns(Dialect::Agent, &serde_json::Value::Object(plain).to_string())), "{}", html);
            let doc = parse(&html);
            let fields = all(&doc, "div.field");
            let want = super::super::model::columns(&json);
            prop_assert_eq!(fields.len(), want.len());
            for (field, (k, v)) in fields.into_iter().zip(&want) {
                let (label, input) = (within(field, "label"), within(field, "input"));
                prop_assert_eq!((label.len(), input.len()), (1, 1), "{}", field.html());
                let (label, input) = (label[0], input[0]);
                prop_assert_eq!(text(label), norm(k));
                prop_assert_eq!(attr(label, "for"), Some(norm(&format!("col-{k}"))));
                prop_assert_eq!(attr(input, "id"), Some(norm(&format!("col-{k}"))));
                prop_assert_eq!(attr(input, "value"), Some(norm(v)));
            }
        }
    }
}
