//! The simulator's result regions as HTML text, the same on the server (the first page) and in
//! the browser (every edit). Every value is escaped.
use super::model::{NextRun, Preview};
use crate::engine::replay::{Impact, Overlap, ReplayedRun};
use crate::engine::{Diagnostic, Dst, Window, Zone, tz};
use chrono::{DateTime, Utc};
use std::fmt::Write;

/// Text made safe inside HTML elements and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

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

/// One lane of the axis (integer coordinates: tenths of its 1,000 units).
fn lane(out: &mut String, label: &str, runs: &[ReplayedRun], window: Window, y: i64, class: &str) {
    let span = (window.end - window.start).num_seconds().max(1);
    let x = |t: DateTime<Utc>| ((t - window.start).num_seconds() * 10_000 / span).clamp(0, 10_000);
    let _ =
        write!(out, r#"<text x="-60" y="{}" text-anchor="end" class="imp-label">{}</text>"#, y + 130, escape(label));
    for r in runs {
        let (x0, x1) = (x(r.likely.start), x(r.likely.end));
        let (c, title) = if r.refused.is_some() {
            ("imp-refused", "refused: the job would still be running")
        } else {
            (class, "run (p50 duration)")
        };
        let _ = write!(
            out,
            r#"<rect x="{x0}" y="{}" width="{}" height="120" class="{c}"><title>{title}</title></rect>"#,
            y + 30,
            (x1 - x0).max(15)
        );
    }
}

/// What the change does to the instance.
pub fn impact(i: &Impact, zone: Zone) -> String {
    let s = i.summary;
    let days = ((i.window.end - i.window.start).num_hours() + 23) / 24;
    let moved: Vec<&str> = i.moved.iter().map(|m| m.name.as_str()).collect();
    let mut out = format!(
        r#"<p data-testid="impact-summary">Over {days} day(s) the change moves {}: it creates {} overlap(s) ({} more possible at p95 durations) and removes {} ({} possible); the scheduler would refuse {} run(s) as proposed ({} today).</p>"#,
        escape(&moved.join(", ")),
        s.created_likely,
        s.created_possible,
        s.removed_likely,
        s.removed_possible,
        s.refused_proposed,
        s.refused_current
    );
    let lanes = i.moved.len() as i64 * 2;
    let h = lanes * 200 + 260;
    let _ = write!(
        out,
        r#"<svg class="imp-axis" viewBox="-1300 0 11400 {h}" preserveAspectRatio="xMinYMin meet" role="img" aria-label="The job's runs now and as proposed, day by day">"#
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
    for (k, m) in i.moved.iter().enumerate() {
        let name = |what: &str| if many { format!("{} {what}", m.name) } else { what.to_owned() };
        lane(&mut out, &name("now"), &m.current, i.window, k as i64 * 400, "imp-current");
        lane(&mut out, &name("proposed"), &m.proposed, i.window, k as i64 * 400 + 200, "imp-proposed");
    }
    out.push_str("</svg>");
    out.push_str("<h3>Overlaps the change creates</h3>");
    out.push_str(&list(i.created.likely.iter().map(|o| overlap_line(o, zone)), "created"));
    out.push_str("<h3>Overlaps it removes</h3>");
    out.push_str(&list(i.removed.likely.iter().map(|o| overlap_line(o, zone)), "removed"));
    out.push_str("<h3>Possible overlaps (p95 durations)</h3>");
    out.push_str(&list(i.created.possible.iter().map(|o| overlap_line(o, zone)), "created-possible"));
    out.push_str("<h3>Runs the scheduler would refuse (the job still running)</h3>");
    out.push_str(&list(
        i.moved.iter().flat_map(|m| {
            m.proposed.iter().filter(|r| r.refused.is_some()).map(move |r| {
                format!("{} at {}: refused, the previous run would still be running", m.name, local(r.at, zone))
            })
        }),
        "refused",
    ));
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

/// One labelled field per column of the row (the column editor; redrawn by the browser when
/// the row's columns change).
pub fn columns(json: &str) -> String {
    let cols = super::state::columns(json);
    if cols.is_empty() {
        return r#"<p class="muted">Fix the JSON below to edit its columns here.</p>"#.into();
    }
    cols.iter()
        .map(|(k, v)| {
            let (k, v) = (escape(k), escape(v));
            format!(r#"<div class="field"><label for="col-{k}">{k}</label><input id="col-{k}" autocomplete="off" spellcheck="false" value="{v}"></div>"#)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_shown_is_escaped() {
        assert_eq!(escape(r#"<b a="x">'&'"#), "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;");
        let d = Diagnostic::error("name", "<script>", "bad");
        assert!(!diagnostics(&[d], "x").contains("<script>"));
    }
}
