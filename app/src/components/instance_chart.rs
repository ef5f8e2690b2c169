//! The instance timeline's chart: the markup (written on the server as one string, like the
//! simulator's result regions) and the island that zooms and pans it in the browser.
//!
//! The chart is two SVGs sharing one time axis: the concurrency strip and the plot, a row per
//! job. Their user unit on x is the second, counted from the start of what is drawn; a zoom or
//! a pan in the browser changes only their `viewBox` (`preserveAspectRatio="none"`, strokes
//! `non-scaling-stroke`) and the position of a few dozen labels: no element is rebuilt while
//! the reader zooms. Once the reader pauses, the island writes the view into the URL
//! (`history.replaceState`) and, when the view differs from the one drawn, fetches the chart
//! for it (a server function answering this same markup) and swaps it in. Without JavaScript
//! the zoom and pan controls are links to the page at another view.
//!
//! Routine items (on-time and upcoming occurrences, succeeded scheduled runs, underlined
//! (dashed) where they overlap another job's run) are drawn as one `<path>` per kind and row; every other
//! item is its own `<a>` to the job at that moment, with a `<title>`. A click on a routine
//! path opens the job at the moment under the pointer.
#[cfg(feature = "ssr")]
pub use markup::chart_html;

/// The instance timeline's chart at another view, as the markup the page shows: what the
/// timeline's island fetches after a zoom or a pan.
#[leptos::server(prefix = "/api/fn", endpoint = "instance_timeline_chart")]
pub async fn instance_timeline_chart(
    instance: Option<String>,
    from: Option<String>,
    to: Option<String>,
) -> Result<String, crate::api::ApiError> {
    let data = crate::api::context::timeline(instance.as_deref(), from.as_deref(), to.as_deref(), false).await?;
    Ok(chart_html(&data, instance.as_deref()))
}

#[cfg(feature = "ssr")]
mod markup {
    use crate::api::instance_timeline::{
        ChartItem, ChartRow, InstanceTimelineData, ItemKind, PRESETS, ViewWindow, distinct_labels, timeline_href,
    };
    use crate::api::{Mark, RunKind, TimePoint, count_text};
    use crate::components::{Time, job_at_href, job_href, outcome_key};
    use leptos::prelude::*;
    use std::fmt::Write;

    /// Row height, CSS pixels (the names list uses the same, in the stylesheet).
    pub const ROW_H: i64 = 24;
    /// The concurrency strip's height.
    pub const STRIP_H: i64 = 30;
    /// Rows per block (even: the rows' stripes alternate across blocks as within one).
    pub const BLOCK_ROWS: usize = 12;
    /// The room for a job's name (the names column less its padding, in the stylesheet) and
    /// its font size: on a phone, and wider.
    const NAME_PX_PHONE: (f64, f64) = (96.0, 11.0);
    const NAME_PX_DESK: (f64, f64) = (204.0, 12.0);
    /// The axis widths at which a tick's label appears without JavaScript (container
    /// queries in the stylesheet, one per width: `.itl-tick.wN` is hidden below N px).
    const TICK_WIDTHS: [u32; 15] = [200, 240, 280, 320, 400, 480, 560, 640, 800, 960, 1120, 1280, 1600, 2000, 2400];

    /// Escape text for HTML text and attribute values: the model's one escape.
    use sundial_model::html::escape as esc;

    /// A `<time>` as [`Time`] renders it, under the page's zone choice.
    fn time(t: &TimePoint) -> String {
        let t = t.clone();
        Owner::new().with(|| {
            if use_context::<crate::components::time::Prefs>().is_none() {
                crate::components::time::provide_prefs();
            }
            view! { <Time t=t/> }.to_html()
        })
    }

    /// Where `ms` falls in the view, in percent.
    fn pct(ms: i64, v: ViewWindow) -> f64 {
        (ms - v.start) as f64 / v.span().max(1) as f64 * 100.0
    }

    /// The chart for `d`: what the page shows inside `#itl-root`, and what the island fetches
    /// after a zoom or a pan. `instance` is the page's `?instance=` (links keep it).
    pub fn chart_html(d: &InstanceTimelineData, instance: Option<&str>) -> String {
        let v = d.view;
        let origin = d.drawn.start;
        let x = |ms: i64| (ms - origin).div_euclid(1000);
        let name = d.instance.name.as_str();
        let mut h = String::with_capacity(64 * 1024);
        let _ = write!(
            h,
            r#"<div id="itl-chart" class="itl-chart" data-testid="itl-chart" data-view0="{}" data-view1="{}" data-origin="{origin}" data-min="{}" data-max="{}" data-now="{}" data-instance="{}">"#,
            v.start,
            v.end,
            d.bounds.min,
            d.bounds.max,
            d.now_ms,
            esc(name)
        );
        controls(&mut h, d, instance);
        let _ = write!(
            h,
            r#"<p class="itl-caption" data-testid="itl-caption">{} – {} <span class="muted">· ticks in {}</span></p>"#,
            time(&d.instance.window_start),
            time(&d.instance.window_end),
            esc(&d.tick_zone)
        );

        // The sticky head: the concurrency strip and the axis.
        let _ = write!(
            h,
            r#"<div class="itl-head"><div class="itl-corner" title="How many runs of any jobs went at once">Runs at once<br><small data-testid="itl-peak">up to {}</small></div><div class="itl-top"><div class="itl-axis" aria-hidden="true">"#,
            d.peak
        );
        for (i, t) in d.ticks.iter().enumerate() {
            let px = d.tick_px.get(i).copied().unwrap_or(u32::MAX);
            let class = format!(
                "itl-tick{}{}",
                if t.major { " major" } else { "" },
                match TICK_WIDTHS.iter().find(|w| **w >= px) {
                    _ if px <= 160 => String::new(),
                    Some(w) => format!(" w{w}"),
                    None => " w-none".to_owned(),
                }
            );
            pin(&mut h, &class, Some(px), t.ms, None, v, &esc(&t.label), "");
        }
        let scheduler = &d.instance.scheduler;
        for (k, label, z) in bands(d) {
            pin(&mut h, &format!("itl-flag itl-flag-{k}"), None, z.start.ms, Some(z.end.ms), v, label, &esc(&z.title));
        }
        for r in &d.restarts {
            let title = format!("{} started {}", scheduler.label(), r.zoned());
            pin(
                &mut h,
                "itl-flag itl-flag-restart",
                None,
                r.ms,
                None,
                v,
                &format!("↻ {}", scheduler.restart_word()),
                &esc(&title),
            );
        }
        pin(&mut h, "itl-flag itl-flag-now", None, d.now_ms, None, v, "now", "");
        h.push_str("</div>");
        let _ = write!(
            h,
            r#"<svg class="itl-strip" data-h="{STRIP_H}" viewBox="{} 0 {} {STRIP_H}" preserveAspectRatio="none" role="img" aria-label="Runs going at once across the instance, up to {}" data-testid="itl-strip">"#,
            x(v.start),
            v.span() / 1000,
            d.peak
        );
        strip(&mut h, d, &x);
        h.push_str("</svg></div></div>");

        // The rows, a block of names and plot per BLOCK_ROWS jobs (see [`block`]); each name
        // cut to fit, in the middle, never into another job's label.
        let names: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
        let labels: Vec<(String, String)> = distinct_labels(&names, NAME_PX_PHONE.0, NAME_PX_PHONE.1)
            .into_iter()
            .zip(distinct_labels(&names, NAME_PX_DESK.0, NAME_PX_DESK.1))
            .collect();
        h.push_str(r#"<div class="itl-body">"#);
        if d.rows.is_empty() {
            block(&mut h, d, &[], &[], 0, instance, &x);
        }
        for (i, (rows, labels)) in d.rows.chunks(BLOCK_ROWS).zip(labels.chunks(BLOCK_ROWS)).enumerate() {
            block(&mut h, d, rows, labels, i * BLOCK_ROWS, instance, &x);
        }
        h.push_str("</div>");
        // What a tap, a click or Enter on an item shows (the island fills it).
        h.push_str(concat!(
            r#"<div class="itl-detail" role="dialog" aria-labelledby="itl-detail-job" hidden data-testid="itl-detail">"#,
            r#"<button type="button" class="itl-detail-close" aria-label="Close the details">×</button>"#,
            r#"<p class="itl-detail-job" id="itl-detail-job"></p><p class="itl-detail-text" data-testid="itl-detail-text"></p>"#,
            r#"<a class="itl-detail-link" href="/" data-testid="itl-detail-link">Open the job at this moment</a></div></div>"#
        ));
        h
    }

    /// The rows `first..first + rows.len()`: their names and their plot, drawn by the browser
    /// only when on screen or near it (`content-visibility: auto`, its height known ahead). A
    /// chart of 200 jobs is laid out a few blocks at a time, not 200 rows at once. The things
    /// drawn across every row (zombie spans, restarts, the now line) are drawn in each block;
    /// the first block's carry their test ids.
    fn block(
        h: &mut String,
        d: &InstanceTimelineData,
        rows: &[ChartRow],
        labels: &[(String, String)],
        first: usize,
        instance: Option<&str>,
        x: &impl Fn(i64) -> i64,
    ) {
        let v = d.view;
        let name = d.instance.name.as_str();
        let lead = first == 0;
        let testid = |id: &str| if lead { format!(r#" data-testid="{id}""#) } else { String::new() };
        let rows_h = (rows.len() as i64).max(1) * ROW_H;
        let _ = write!(
            h,
            r#"<div class="itl-block" style="contain-intrinsic-size:auto calc({n} * var(--itl-row))"><ol class="itl-names">"#,
            n = rows.len().max(1)
        );
        for (row, (phone, desk)) in rows.iter().zip(labels) {
            // The label of its width (the stylesheet shows one); the whole name read aloud is the
            // link's text (so its accessible name holds what is read, not a cut of it).
            let label = format!(
                r#"<span class="itl-nm" aria-hidden="true">{}</span><span class="itl-nd" aria-hidden="true">{}</span><span class="visually-hidden">{}</span>"#,
                esc(phone),
                esc(desk),
                esc(&row.name)
            );
            let _ = write!(
                h,
                r#"<li data-job="{}"><a href="{}" title="{}" data-name="{}" data-testid="itl-job">{label}</a>{}</li>"#,
                esc(&row.id),
                esc(&job_href(instance, &row.id, d.instance.days)),
                esc(&row_title(row)),
                esc(&row.name),
                if row.enabled { "" } else { r#" <span class="tag tag-disabled">disabled</span>"# }
            );
        }
        if rows.is_empty() {
            h.push_str(r#"<li class="muted">No jobs on this instance.</li>"#);
        }
        h.push_str("</ol>");
        let label = if rows.len() == d.rows.len() {
            format!("{} jobs of {} on one time axis", d.rows.len(), esc(name))
        } else {
            format!(
                "Jobs {} to {} of {} of {} on one time axis",
                first + 1,
                first + rows.len(),
                d.rows.len(),
                esc(name)
            )
        };
        let _ = write!(
            h,
            r#"<svg class="itl-plot" data-h="{rows_h}" viewBox="{} 0 {} {rows_h}" preserveAspectRatio="none" style="height:calc({n} * var(--itl-row))" aria-label="{label}" data-testid="itl-plot">"#,
            x(v.start),
            v.span() / 1000,
            n = rows.len().max(1),
        );
        let (x0, x1) = (x(d.drawn.start), x(d.drawn.end));
        // Background: every other row (of the whole chart: blocks have an even number of rows),
        // what lies ahead of now, the ticks' lines, zombie spans.
        let mut zebra = String::new();
        for i in (1..rows.len()).step_by(2) {
            let _ = write!(zebra, "M{x0} {}H{x1}v{ROW_H}H{x0}z", i as i64 * ROW_H);
        }
        let _ = write!(h, r#"<path class="itl-zebra" d="{zebra}"/>"#);
        if d.now_ms < d.drawn.end {
            let n = x(d.now_ms.max(d.drawn.start));
            let _ = write!(h, r#"<rect class="itl-future" x="{n}" y="0" width="{}" height="{rows_h}"/>"#, x1 - n);
        }
        let (mut minor, mut major) = (String::new(), String::new());
        for t in &d.ticks {
            let _ = write!(if t.major { &mut major } else { &mut minor }, "M{} 0V{rows_h}", x(t.ms));
        }
        let _ = write!(h, r#"<path class="itl-grid" d="{minor}"/><path class="itl-grid major" d="{major}"/>"#);
        for (k, _, z) in bands(d) {
            let (a, b) = (x(z.start.ms.max(d.drawn.start)), x(z.end.ms.min(d.drawn.end)));
            let _ = write!(
                h,
                r#"<rect class="itl-{k}" x="{a}" y="0" width="{}" height="{rows_h}"{} data-start="{}" data-end="{}"><title>{}</title></rect>"#,
                b - a,
                testid(&format!("{k}-band")),
                z.start.ms,
                z.end.ms,
                esc(&z.title)
            );
        }
        // A pixel of the nominal width, in seconds: the narrowest bar.
        let min_w = (v.span() / 1000 / crate::api::instance_timeline::NOMINAL_PX).max(1);
        for (i, row) in rows.iter().enumerate() {
            draw_row(h, row, i as i64 * ROW_H, name, min_w, x);
        }
        let mut restarts = String::new();
        for r in &d.restarts {
            let _ = write!(restarts, "M{} 0V{rows_h}", x(r.ms));
        }
        let _ = write!(h, r#"<path class="itl-restart" d="{restarts}"{}/>"#, testid("agent-restart"));
        if (d.drawn.start..d.drawn.end).contains(&d.now_ms) {
            let _ = write!(h, r#"<path class="itl-now" d="M{} 0V{rows_h}"{}/>"#, x(d.now_ms), testid("now-line"));
        }
        h.push_str("</svg></div>");
    }

    fn row_title(row: &ChartRow) -> String {
        let mut t = format!("{}: {} expected, {} runs", row.name, count_text(row.expected), count_text(row.runs));
        if row.missed > 0 {
            let _ = write!(t, ", {} missed", count_text(row.missed));
        }
        if row.failed > 0 {
            let _ = write!(t, ", {} failed", count_text(row.failed));
        }
        t.push_str(" (drawn here)");
        t
    }

    /// A label over the axis at `ms` (a band's from `ms` to `end`), placed for the view `v`;
    /// the island moves it as the view changes. `px`: a tick's axis width from which its label
    /// shows (`data-px`, read by the island while zooming). `label` and `title` come escaped.
    #[allow(clippy::too_many_arguments)]
    fn pin(
        h: &mut String,
        class: &str,
        px: Option<u32>,
        ms: i64,
        end: Option<i64>,
        v: ViewWindow,
        label: &str,
        title: &str,
    ) {
        let p = pct(ms, v);
        let shown = match end {
            Some(e) => e > v.start && ms < v.end,
            None => (0.0..=100.0).contains(&p),
        };
        let _ = write!(
            h,
            r#"<span class="{class}" data-ms="{ms}"{}{} style="left:{:.2}%"{}{}>{label}</span>"#,
            px.map(|px| format!(r#" data-px="{px}""#)).unwrap_or_default(),
            end.map(|e| format!(r#" data-end="{e}""#)).unwrap_or_default(),
            p.max(0.0),
            if shown { "" } else { " hidden" },
            if title.is_empty() { String::new() } else { format!(r#" title="{title}""#) }
        );
    }

    /// The no-JavaScript zoom and pan: links to the page at other views; the island handles
    /// them in place (`data-act`, `data-span`).
    fn controls(h: &mut String, d: &InstanceTimelineData, instance: Option<&str>) {
        let (v, b) = (d.view, d.bounds);
        let link = |h: &mut String, act: &str, to: ViewWindow, label: &str, title: &str| {
            let _ = write!(
                h,
                r#"<a class="itl-btn" href="{}" data-act="{act}" title="{title}" data-testid="itl-{act}">{label}</a>"#,
                esc(&timeline_href(instance, to)),
            );
        };
        h.push_str(r#"<nav class="itl-controls" aria-label="Zoom and pan">"#);
        link(h, "earlier", v.pan(-0.5, b), "← Earlier", "Half a view earlier (key ←)");
        let now = d.now_ms;
        link(h, "out", v.zoom_at(2.0, now, b), "− Zoom out", "Twice as long (key −)");
        link(h, "in", v.zoom_at(0.5, now, b), "+ Zoom in", "Half as long (key +)");
        link(h, "later", v.pan(0.5, b), "Later →", "Half a view later (key →)");
        link(h, "now", ViewWindow::around(d.now_ms, b), "Now", "The last 24 hours and the next 6 (key Home)");
        h.push_str(r#"<span class="itl-presets" role="group" aria-label="Show">"#);
        for (span, label) in PRESETS {
            let current = if v.span() == span { r#" aria-current="true""# } else { "" };
            let _ = write!(
                h,
                r#"<a class="itl-btn" href="{}" data-span="{span}"{current}>{label}</a>"#,
                esc(&timeline_href(instance, v.with_span_at(span, now, b))),
            );
        }
        h.push_str("</span></nav>");
    }

    /// The concurrency strip: the runs going at once, and above one (overlaps) in its own
    /// color.
    fn strip(h: &mut String, d: &InstanceTimelineData, x: &impl Fn(i64) -> i64) {
        let peak = d.peak.max(1) as f64;
        let y = |level: u32| STRIP_H as f64 - (level as f64 / peak) * (STRIP_H as f64 - 2.0);
        let area = |only_overlap: bool| {
            let mut p = format!("M{} {STRIP_H}", x(d.drawn.start));
            for s in &d.concurrency {
                let level = if only_overlap && s.level < 2 { 0 } else { s.level };
                let _ = write!(p, "H{}V{:.1}", x(s.start_ms), y(level));
            }
            let _ = write!(p, "H{}V{STRIP_H}Z", x(d.drawn.end));
            p
        };
        let _ = write!(
            h,
            r#"<path class="itl-conc" d="{}"/><path class="itl-conc-over" d="{}"/>"#,
            area(false),
            area(true)
        );
        for (k, _, z) in bands(d) {
            let (a, b) = (x(z.start.ms.max(d.drawn.start)), x(z.end.ms.min(d.drawn.end)));
            let _ = write!(h, r#"<rect class="itl-{k}" x="{a}" y="0" width="{}" height="{STRIP_H}"/>"#, b - a);
        }
        if (d.drawn.start..d.drawn.end).contains(&d.now_ms) {
            let _ = write!(h, r#"<path class="itl-now" d="M{} 0V{STRIP_H}"/>"#, x(d.now_ms));
        }
    }

    /// The bands drawn behind the rows: zombie spans, then planned maintenance windows (class
    /// suffix, flag label, band).
    fn bands(
        d: &InstanceTimelineData,
    ) -> impl Iterator<Item = (&'static str, &'static str, &crate::api::instance_timeline::ChartBand)> {
        let gap = |z| if crate::api::instance_timeline::ChartBand::is_stop(z) { "Stopped" } else { "Zombie" };
        d.zombies
            .iter()
            .map(move |z| ("zombie", gap(z), z))
            .chain(d.planned.iter().map(|m| ("maint", "Maintenance", m)))
    }

    /// CSS class suffix of an item.
    fn key(kind: ItemKind) -> &'static str {
        match kind {
            ItemKind::Occurrence { mark } => mark.key(),
            ItemKind::Run { outcome, .. } => outcome_key(outcome),
        }
    }

    /// One job's row at `y`: routine items as one path per kind, the others one by one.
    fn draw_row(h: &mut String, row: &ChartRow, y: i64, instance: &str, min_w: i64, x: &impl Fn(i64) -> i64) {
        let _ = write!(
            h,
            r#"<g class="itl-row" data-job="{}" data-name="{}" transform="translate(0 {y})"><title>{}</title>"#,
            esc(&row.id),
            esc(&row.name),
            esc(&row_title(row))
        );
        // Routine paths: ticks and stretches of on-time and upcoming occurrences, bars of
        // succeeded scheduled runs (lines as wide as the bar: a pixel at least), a dashed line
        // under stretches where they overlap another job's run.
        let mut paths: Vec<Path> = Vec::new();
        let mut add = |class: String, x0: i64, y0: i64, rest: String, end: (i64, i64)| {
            let p = match paths.iter_mut().position(|p| p.class == class) {
                Some(i) => &mut paths[i],
                None => {
                    paths.push(Path { class, d: String::new(), pen: None });
                    paths.last_mut().expect("just pushed")
                }
            };
            p.sub(x0, y0, &rest, end);
        };
        for it in row.items.iter().filter(|i| i.kind.routine()) {
            let (a, w) = (x(it.start_ms), (x(it.end_ms) - x(it.start_ms)).max(0));
            match it.kind {
                ItemKind::Occurrence { mark } if it.count == 1 => {
                    add(format!("itl-k {}", mark.key()), a, 2, "v8".into(), (a, 10))
                }
                ItemKind::Occurrence { mark } => {
                    add(format!("itl-s {}", mark.key()), a, 3, format!("h{w}v6h-{w}z"), (a, 3))
                }
                ItemKind::Run { .. } if it.overlap => {
                    add("itl-ovh".into(), a, 23, format!("h{w}"), (a + w, 23));
                    add(format!("itl-b {} itl-ov", key(it.kind)), a, 12, format!("h{w}v8h-{w}z"), (a, 12))
                }
                ItemKind::Run { .. } => {
                    let w = w.max(min_w);
                    add("itl-bl".into(), a, 16, format!("h{w}"), (a + w, 16))
                }
            }
        }
        // Overlap marks first: under the runs, whose colours stay whole on top.
        paths.sort_by_key(|p| p.class != "itl-ovh");
        for p in paths {
            let _ = write!(h, r#"<path class="{} itl-r" d="{}"/>"#, p.class, p.d);
        }
        for it in row.items.iter().filter(|i| !i.kind.routine()) {
            item(h, row, it, instance, x);
        }
        h.push_str("</g>");
    }

    /// One `<path>` of many subpaths, written relative to the last (shorter numbers).
    struct Path {
        class: String,
        d: String,
        /// Where the pen is after the last subpath.
        pen: Option<(i64, i64)>,
    }

    impl Path {
        /// A subpath starting at `(x0, y0)`, drawn by `rest` (relative commands), leaving
        /// the pen at `end`.
        fn sub(&mut self, x0: i64, y0: i64, rest: &str, end: (i64, i64)) {
            let _ = match self.pen {
                None => write!(self.d, "M{x0} {y0}{rest}"),
                Some((px, py)) => write!(self.d, "m{} {}{rest}", x0 - px, y0 - py),
            };
            self.pen = Some(end);
        }
    }

    /// `data-count` for a stretch of several; nothing for one.
    fn count_attr(n: usize) -> String {
        if n > 1 { format!(r#" data-count="{n}""#) } else { String::new() }
    }

    /// An item of its own: a link to the job at its (first) moment, with its tooltip.
    fn item(h: &mut String, row: &ChartRow, it: &ChartItem, instance: &str, x: &impl Fn(i64) -> i64) {
        let at = chrono::DateTime::from_timestamp_millis(it.first.ms).unwrap_or_default();
        let href = job_at_href(Some(instance), &row.id, at);
        let (a, w) = (x(it.start_ms), (x(it.end_ms) - x(it.start_ms)).max(0));
        let k = key(it.kind);
        let _ = write!(h, r#"<a href="{}"><title>{}</title>"#, esc(&href), esc(&it.title));
        let testid = match it.kind {
            ItemKind::Occurrence { .. } => format!("{k}-marker"),
            ItemKind::Run { .. } => "run-bar".to_owned(),
        };
        let ov = if it.overlap { " itl-ov" } else { "" };
        match it.kind {
            ItemKind::Occurrence { mark: Mark::Unknown } if it.count == 1 => {
                let _ = write!(h, r#"<path class="itl-k unknown" d="M{a} 3v6" data-testid="{testid}"/>"#);
            }
            ItemKind::Occurrence { mark } if it.count == 1 => {
                let _ = write!(h, r#"<path class="itl-m {k}" d="M{a} 6h0" data-testid="{testid}"/>"#);
                if mark == Mark::Missed {
                    let _ = write!(h, r#"<path class="itl-m missed-in" d="M{a} 6h0"/>"#);
                }
            }
            ItemKind::Occurrence { .. } => {
                let _ = write!(
                    h,
                    r#"<rect class="itl-ms {k}" x="{a}" y="1" width="{w}" height="10" data-testid="{testid}"{}/>"#,
                    count_attr(it.count)
                );
            }
            ItemKind::Run { kind, .. } => {
                if it.overlap {
                    // The overlap's mark: a dashed line under the bar, apart from outcome colours.
                    let _ = write!(h, r#"<path class="itl-ovh" d="M{a} 23h{w}"/>"#);
                }
                let extra = if kind == RunKind::Scheduled { "" } else { " itl-extra" };
                let _ = write!(
                    h,
                    r#"<rect class="itl-b {k}{ov}{extra}" x="{a}" y="12" width="{w}" height="8" data-testid="{testid}"{}{}/>"#,
                    count_attr(it.count),
                    if it.overlap { r#" data-overlap="true""# } else { "" }
                );
                // However short, at least 8 px wide on screen at any zoom (a line at its middle,
                // as tall as the bar, with a non-scaling stroke): seen, and wide enough to tap.
                let _ = write!(h, r#"<path class="itl-bm {k}" d="M{} 12v8"/>"#, a + w / 2);
            }
        }
        h.push_str("</a>");
    }
}

use leptos::prelude::*;

/// The island: renders nothing; in the browser it attaches to `#itl-root` (the chart the
/// server rendered) and zooms and pans it.
#[island]
pub fn InstanceChartLive() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    live::attach();
}

#[cfg(feature = "hydrate")]
mod live {
    use crate::api::instance_timeline::{Bounds, PAN_STEP, ViewWindow, ZOOM_STEP, timeline_href, url_instant};
    use leptos::prelude::{document, window};
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{
        DocumentFragment, Element, Event, HtmlElement, HtmlTemplateElement, KeyboardEvent, MouseEvent, PointerEvent,
        WheelEvent,
    };

    /// What the island knows: the view now, the view and origin of the markup drawn, the
    /// bounds, and the elements it moves.
    struct Live {
        root: Element,
        view: ViewWindow,
        drawn_for: ViewWindow,
        origin: i64,
        bounds: Bounds,
        now: i64,
        instance: String,
        /// SVGs (their height) and labels (`data-ms`, `data-end`, a tick's `data-px`).
        boxes: Vec<(Element, String)>,
        pins: Vec<(Element, i64, Option<i64>, Option<i64>)>,
        /// The item whose details are shown (the keyboard goes back to it), and the fetch
        /// of a routine item's details under way.
        opener: Option<Element>,
        asked: u32,
        drag: Option<Drag>,
        eat_click: bool,
        frame: bool,
        settle: Option<leptos::prelude::TimeoutHandle>,
        seq: u32,
    }

    struct Drag {
        x0: f64,
        view0: ViewWindow,
        width: f64,
        id: i32,
        moved: bool,
    }

    type Shared = Rc<RefCell<Live>>;

    fn num(el: &Element, name: &str) -> Option<i64> {
        el.get_attribute(name)?.parse().ok()
    }

    /// Read what the markup says (after the first render and after each swap).
    fn read(st: &mut Live) {
        let Ok(Some(chart)) = st.root.query_selector("#itl-chart") else { return };
        let (Some(v0), Some(v1), Some(origin), Some(min), Some(max), Some(now)) = (
            num(&chart, "data-view0"),
            num(&chart, "data-view1"),
            num(&chart, "data-origin"),
            num(&chart, "data-min"),
            num(&chart, "data-max"),
            num(&chart, "data-now"),
        ) else {
            return;
        };
        st.view = ViewWindow { start: v0, end: v1 };
        st.drawn_for = st.view;
        st.origin = origin;
        st.bounds = Bounds { min, max };
        st.now = now;
        st.instance = chart.get_attribute("data-instance").unwrap_or_default();
        st.boxes.clear();
        st.pins.clear();
        if let Ok(list) = chart.query_selector_all("svg[data-h]") {
            for i in 0..list.length() {
                if let Some(el) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    let h = el.get_attribute("data-h").unwrap_or_default();
                    st.boxes.push((el, h));
                }
            }
        }
        if let Ok(list) = chart.query_selector_all("[data-ms]") {
            for i in 0..list.length() {
                if let Some(el) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok())
                    && let Some(ms) = num(&el, "data-ms")
                {
                    let end = num(&el, "data-end");
                    let px = num(&el, "data-px");
                    st.pins.push((el, ms, end, px));
                }
            }
        }
    }

    /// Attach to `#itl-root`.
    pub fn attach() {
        let Some(root) = document().get_element_by_id("itl-root") else { return };
        let empty = ViewWindow { start: 0, end: 1 };
        let mut live = Live {
            root: root.clone(),
            view: empty,
            drawn_for: empty,
            origin: 0,
            bounds: Bounds { min: 0, max: 1 },
            now: 0,
            instance: String::new(),
            boxes: Vec::new(),
            pins: Vec::new(),
            opener: None,
            asked: 0,
            drag: None,
            eat_click: false,
            frame: false,
            settle: None,
            seq: 0,
        };
        read(&mut live);
        let st: Shared = Rc::new(RefCell::new(live));
        listen(&root, &st, "pointerdown", false, |st, ev| on_down(st, ev.unchecked_ref()));
        listen(&root, &st, "pointermove", false, |st, ev| on_move(st, ev.unchecked_ref()));
        listen(&root, &st, "pointerup", false, on_up);
        listen(&root, &st, "pointercancel", false, on_up);
        listen(&root, &st, "click", true, |st, ev| on_click(st, ev.unchecked_ref()));
        listen(&root, &st, "wheel", false, |st, ev| on_wheel(st, ev.unchecked_ref()));
        listen(&root, &st, "keydown", false, |st, ev| on_key(st, ev.unchecked_ref()));
        draw(&st);
        let _ = root.set_attribute("data-ready", "true");
    }

    fn listen(root: &Element, st: &Shared, kind: &str, capture: bool, f: fn(&Shared, &Event)) {
        let st = st.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |ev: Event| f(&st, &ev));
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_capture(capture);
        // The wheel zooms over the axis: it must be able to cancel the page's scroll.
        opts.set_passive(false);
        let _ = root.add_event_listener_with_callback_and_add_event_listener_options(
            kind,
            cb.as_ref().unchecked_ref(),
            &opts,
        );
        cb.forget();
    }

    fn closest(ev: &Event, selector: &str) -> Option<Element> {
        ev.target()?.dyn_into::<Element>().ok()?.closest(selector).ok()?
    }

    /// The plot's left edge and width on screen.
    fn plot_box(st: &Live) -> (f64, f64) {
        match st.root.query_selector(".itl-plot") {
            Ok(Some(p)) => {
                let r = p.get_bounding_client_rect();
                (r.left(), r.width().max(1.0))
            }
            _ => (0.0, 1.0),
        }
    }

    /// Show `v`: on the next frame, and in the URL (and the chart fetched) once the reader
    /// pauses.
    fn set_view(shared: &Shared, v: ViewWindow) {
        let mut st = shared.borrow_mut();
        if v == st.view {
            return;
        }
        st.view = v;
        st.seq = st.seq.wrapping_add(1);
        if !st.frame {
            st.frame = true;
            let s = shared.clone();
            leptos::prelude::request_animation_frame(move || draw(&s));
        }
        if let Some(h) = st.settle.take() {
            h.clear();
        }
        let s = shared.clone();
        st.settle =
            leptos::prelude::set_timeout_with_handle(move || settle(&s), std::time::Duration::from_millis(350)).ok();
    }

    /// Move the drawing to the view: the SVGs' viewBox and the labels.
    fn draw(shared: &Shared) {
        let mut st = shared.borrow_mut();
        st.frame = false;
        let v = st.view;
        let span = v.span().max(1);
        // Whole seconds and hundredths of a percent: integer formatting only (float
        // formatting would weigh kilobytes of WASM).
        let x = (v.start - st.origin) / 1000;
        for (el, h) in &st.boxes {
            let _ = el.set_attribute("viewBox", &format!("{x} 0 {} {h}", span / 1000));
        }
        // A tick's label shows where the axis is wide enough for it at this zoom: as wide as
        // it needs at the zoom drawn, times how much closer the ticks are now.
        let axis = match st.root.query_selector(".itl-axis") {
            Ok(Some(a)) => a.get_bounding_client_rect().width(),
            _ => 0.0,
        };
        let room = axis * st.drawn_for.span() as f64 / span as f64;
        for (el, ms, end, px) in &st.pins {
            let p = (*ms - v.start).saturating_mul(10_000) / span;
            let shown = match end {
                Some(e) => *e > v.start && *ms < v.end,
                None => (0..=10_000).contains(&p) && px.is_none_or(|px| px as f64 <= room),
            };
            if shown {
                let p = p.max(0);
                let _ = el.set_attribute("style", &format!("left:{}.{:02}%", p / 100, p % 100));
                let _ = el.remove_attribute("hidden");
            } else {
                let _ = el.set_attribute("hidden", "");
            }
        }
    }

    /// The reader paused: the URL, the zone and theme forms' way back, and the chart drawn
    /// for this view.
    fn settle(shared: &Shared) {
        let (href, view, seq, instance) = {
            let mut st = shared.borrow_mut();
            st.settle = None;
            let instance = Some(st.instance.clone()).filter(|i| !i.is_empty());
            (timeline_href(instance.as_deref(), st.view), st.view, st.seq, instance)
        };
        if let Ok(h) = window().history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href));
        }
        if let Ok(list) = document().query_selector_all("input[name=back]") {
            for i in 0..list.length() {
                if let Some(el) = list.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                    el.set_value(&href);
                }
            }
        }
        if shared.borrow().drawn_for == view {
            return;
        }
        let shared = shared.clone();
        leptos::task::spawn_local(async move {
            let got =
                super::instance_timeline_chart(instance, Some(url_instant(view.start)), Some(url_instant(view.end)))
                    .await;
            let parsed = got.ok().and_then(|html| {
                // Parsed off the page (a template's content is inert: nothing styled or laid
                // out), then swapped in on the next frame: parsing and the new chart's layout
                // are two pieces of work, neither long enough to miss a frame.
                let template = document().create_element("template").ok()?;
                template.set_inner_html(&html);
                Some(template.dyn_into::<HtmlTemplateElement>().ok()?.content())
            });
            match parsed {
                Some(chart) => {
                    if shared.borrow().seq == seq {
                        leptos::prelude::request_animation_frame(move || swap(&shared, seq, &chart));
                    }
                }
                // The page itself at that view, then.
                None => {
                    let _ = window().location().replace(&href);
                }
            }
        });
    }

    /// Put the chart fetched for view `seq` in place of the one shown, unless the reader moved
    /// on since.
    fn swap(shared: &Shared, seq: u32, chart: &DocumentFragment) {
        let mut st = shared.borrow_mut();
        if st.seq != seq {
            return;
        }
        // Keep the keyboard where it was: the same control, else the chart.
        let active = document().active_element();
        let inside = active.as_ref().is_some_and(|a| st.root.contains(Some(a)));
        let act = active.as_ref().and_then(|a| a.get_attribute("data-act"));
        st.root.replace_children_with_node_1(chart);
        read(&mut st);
        if inside {
            let again = act.and_then(|a| st.root.query_selector(&format!("[data-act=\"{a}\"]")).ok().flatten());
            let target = again.unwrap_or_else(|| st.root.clone());
            if let Some(el) = target.dyn_ref::<HtmlElement>() {
                let _ = el.focus();
            }
        }
        drop(st);
        draw(shared);
    }

    fn on_down(shared: &Shared, ev: &PointerEvent) {
        let mut st = shared.borrow_mut();
        st.eat_click = false;
        if ev.button() != 0 || closest(ev, ".itl-plot, .itl-top").is_none() {
            return;
        }
        let (_, width) = plot_box(&st);
        let view0 = st.view;
        st.drag = Some(Drag { x0: ev.client_x() as f64, view0, width, id: ev.pointer_id(), moved: false });
    }

    fn on_move(shared: &Shared, ev: &PointerEvent) {
        let v = {
            let mut st = shared.borrow_mut();
            let root = st.root.clone();
            let bounds = st.bounds;
            let Some(d) = st.drag.as_mut() else { return };
            let dx = ev.client_x() as f64 - d.x0;
            if !d.moved && dx.abs() > 4.0 {
                d.moved = true;
                let _ = root.set_pointer_capture(d.id);
                let _ = root.set_attribute("data-dragging", "true");
            }
            if !d.moved {
                return;
            }
            d.view0.shift(-(dx / d.width * d.view0.span() as f64).round() as i64, bounds)
        };
        set_view(shared, v);
    }

    fn on_up(shared: &Shared, _: &Event) {
        let mut st = shared.borrow_mut();
        if let Some(d) = st.drag.take()
            && d.moved
        {
            st.eat_click = true;
            let _ = st.root.release_pointer_capture(d.id);
            let _ = st.root.remove_attribute("data-dragging");
        }
    }

    fn on_click(shared: &Shared, ev: &MouseEvent) {
        if std::mem::take(&mut shared.borrow_mut().eat_click) {
            // The end of a drag, not a click.
            ev.prevent_default();
            ev.stop_propagation();
            return;
        }
        let (v, b, now) = {
            let st = shared.borrow();
            (st.view, st.bounds, st.now)
        };
        let to = if let Some(a) = closest(ev, "[data-act]") {
            match a.get_attribute("data-act").as_deref() {
                Some("earlier") => v.pan(-0.5, b),
                Some("later") => v.pan(0.5, b),
                Some("in") => v.zoom_at(0.5, now, b),
                Some("out") => v.zoom_at(2.0, now, b),
                _ => ViewWindow::around(now, b),
            }
        } else if let Some(span) = closest(ev, "[data-span]").and_then(|a| num(&a, "data-span")) {
            v.with_span_at(span, now, b)
        } else if closest(ev, ".itl-detail-close").is_some() {
            close(shared);
            return;
        } else if let Some(a) = closest(ev, ".itl-plot a") {
            // An item of its own: what its tooltip says.
            ev.prevent_default();
            let name = closest(ev, "[data-name]").and_then(|g| g.get_attribute("data-name")).unwrap_or_default();
            let text = a.query_selector("title").ok().flatten().and_then(|t| t.text_content());
            show(shared, &a, &name, &text.unwrap_or_default(), &a.get_attribute("href").unwrap_or_default());
            return;
        } else if let Some(svg) = closest(ev, ".itl-plot") {
            // Elsewhere on a row (a routine run or occurrence, drawn together; or near one: a
            // finger is wide): the one nearest, by the row and lane under the pointer, asked
            // of the server. Rows are 24 units (taller on a touch screen); runs from 10 down.
            let r = svg.get_bounding_client_rect();
            let units = svg.get_attribute("data-h").and_then(|h| h.parse::<f64>().ok()).unwrap_or(r.height());
            let y = (ev.client_y() as f64 - r.top()) * units / r.height().max(1.0);
            let Some(g) = svg
                .query_selector_all("g.itl-row")
                .ok()
                .and_then(|rows| rows.item((y / 24.0) as u32))
                .and_then(|n| n.dyn_into::<Element>().ok())
            else {
                return;
            };
            ev.prevent_default();
            let run = y % 24.0 >= 10.0;
            let job = g.get_attribute("data-job").unwrap_or_default();
            let name = g.get_attribute("data-name").unwrap_or_default();
            let instance = shared.borrow().instance.clone();
            let at = v.start + ((ev.client_x() as f64 - r.left()) / r.width().max(1.0) * v.span() as f64) as i64;
            let href = crate::components::job_at_href(
                Some(instance.as_str()).filter(|i| !i.is_empty()),
                &job,
                chrono::DateTime::from_timestamp_millis(at / 1000 * 1000).unwrap_or_default(),
            );
            show(shared, &g, &name, "…", &href);
            let seq = {
                let mut st = shared.borrow_mut();
                st.asked = st.asked.wrapping_add(1);
                st.asked
            };
            // Eight pixels either side.
            let tol = (8.0 / r.width().max(1.0) * v.span() as f64) as i64;
            let shared = shared.clone();
            leptos::task::spawn_local(async move {
                let instance = Some(instance).filter(|i| !i.is_empty());
                let got = crate::api::instance_timeline::instance_timeline_detail(instance, job, at, tol, run).await;
                if shared.borrow().asked == seq {
                    match got.ok().filter(|t| !t.is_empty()) {
                        Some(text) => {
                            set_text(&shared, ".itl-detail-text", &text);
                        }
                        // Nothing there: no details.
                        None => close(&shared),
                    }
                }
            });
            return;
        } else {
            return;
        };
        ev.prevent_default();
        set_view(shared, to);
    }

    /// The details panel's part `sel`, its text set to `text` (text, never markup).
    fn set_text(shared: &Shared, sel: &str, text: &str) -> Option<Element> {
        let el = shared.borrow().root.query_selector(sel).ok().flatten()?;
        el.set_text_content(Some(text));
        Some(el)
    }

    /// Show the details of `opener`: its job `name`, what it was (`text`), a link to `href`.
    fn show(shared: &Shared, opener: &Element, name: &str, text: &str, href: &str) {
        set_text(shared, ".itl-detail-job", name);
        set_text(shared, ".itl-detail-text", text);
        let link = shared.borrow().root.query_selector(".itl-detail-link").ok().flatten();
        let panel = shared.borrow().root.query_selector(".itl-detail").ok().flatten();
        if let (Some(link), Some(panel)) = (link, panel) {
            let _ = link.set_attribute("href", href);
            let _ = panel.remove_attribute("hidden");
            if let Some(l) = link.dyn_ref::<HtmlElement>() {
                let _ = l.focus();
            }
        }
        shared.borrow_mut().opener = Some(opener.clone());
    }

    /// Hide the details; the keyboard goes back to what opened them.
    fn close(shared: &Shared) {
        let mut st = shared.borrow_mut();
        if let Ok(Some(panel)) = st.root.query_selector(".itl-detail") {
            let _ = panel.set_attribute("hidden", "");
        }
        st.asked = st.asked.wrapping_add(1);
        if let Some(el) = st.opener.take() {
            // An SVG link: `focus` is looked up on the element itself.
            let _ = el.unchecked_ref::<HtmlElement>().focus();
        }
    }

    fn on_wheel(shared: &Shared, ev: &WheelEvent) {
        let (v, b, left, width) = {
            let st = shared.borrow();
            let (left, width) = plot_box(&st);
            (st.view, st.bounds, left, width)
        };
        let unit = if ev.delta_mode() == 0 { 1.0 } else { 16.0 };
        let (dx, dy) = (ev.delta_x() * unit, ev.delta_y() * unit);
        let to = if dx.abs() > dy.abs() {
            v.shift((dx / width * v.span() as f64).round() as i64, b)
        } else if closest(ev, ".itl-top").is_some() || ev.ctrl_key() || ev.meta_key() {
            let anchor = (ev.client_x() as f64 - left) / width;
            v.zoom((dy * 0.002).exp(), anchor, b)
        } else {
            return;
        };
        ev.prevent_default();
        set_view(shared, to);
    }

    fn on_key(shared: &Shared, ev: &KeyboardEvent) {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let (v, b, now) = {
            let st = shared.borrow();
            (st.view, st.bounds, st.now)
        };
        let far = if ev.shift_key() { 4.0 } else { 1.0 };
        let to = match ev.key().as_str() {
            "Escape" => {
                close(shared);
                return;
            }
            "+" | "=" => v.zoom(1.0 / ZOOM_STEP, 0.5, b),
            "-" | "_" => v.zoom(ZOOM_STEP, 0.5, b),
            "ArrowLeft" => v.pan(-PAN_STEP * far, b),
            "ArrowRight" => v.pan(PAN_STEP * far, b),
            "Home" => ViewWindow::around(now, b),
            _ => return,
        };
        ev.prevent_default();
        set_view(shared, to);
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::chart_html;
    use crate::api::instance_timeline::{Bounds, ChartItem, ChartRow, InstanceTimelineData, ItemKind, ViewWindow};
    use crate::api::{InstanceHead, RunKind, Scheduler, TimePoint};
    use crate::components::simulator::render::parsed::hostile;
    use crate::engine::RunOutcome;

    const T0: i64 = 1_763_812_800_000; // 2025-11-22T12:00:00Z
    const H: i64 = 3_600_000;

    fn at(ms: i64) -> TimePoint {
        TimePoint::new(chrono::DateTime::from_timestamp_millis(ms).unwrap(), 0)
    }

    fn run(start: i64, secs: i64, outcome: RunOutcome, overlap: bool) -> ChartItem {
        ChartItem {
            kind: ItemKind::Run { outcome, kind: RunKind::Scheduled },
            start_ms: start,
            end_ms: start + secs * 1000,
            count: 1,
            overlap,
            first: at(start),
            title: if outcome == RunOutcome::Succeeded { String::new() } else { "failed <b>".into() },
        }
    }

    fn data(rows: Vec<ChartRow>) -> InstanceTimelineData {
        let view = ViewWindow { start: T0, end: T0 + 2 * H };
        InstanceTimelineData {
            instance: InstanceHead {
                name: "SQL & CO".into(),
                tz: "UTC".into(),
                now: at(T0 + H),
                days: 1,
                window_start: at(view.start),
                window_end: at(view.end),
                stale: None,
                scheduler: Scheduler::SqlAgent,
                incidents: vec![],
                condition: Default::default(),
                as_of: None,
                age_secs: None,
                poll_secs: None,
            },
            view,
            drawn: ViewWindow { start: T0 - H, end: T0 + 3 * H },
            bounds: Bounds { min: T0 - 30 * 24 * H, max: T0 + 7 * 24 * H },
            now_ms: T0 + H,
            rows,
            zombies: vec![],
            planned: vec![],
            restarts: vec![],
            concurrency: vec![],
            peak: 0,
            overlapping: 0,
            ticks: vec![],
            tick_px: vec![],
            tick_zone: "UTC".into(),
            ahead: Default::default(),
        }
    }

    #[test]
    fn rows_are_escaped_routine_runs_share_a_path_and_problems_are_links() {
        let row = ChartRow {
            id: "j<1>".into(),
            name: "Nightly <ETL> & \"more\"".into(),
            enabled: true,
            expected: 3,
            runs: 3,
            missed: 0,
            failed: 1,
            items: vec![
                run(T0, 60, RunOutcome::Succeeded, false),
                run(T0 + H, 60, RunOutcome::Succeeded, false),
                run(T0 + H / 2, 120, RunOutcome::Failed, true),
            ],
        };
        let html = chart_html(&data(vec![row]), Some("SQL & CO"));
        assert!(html.contains("Nightly &lt;ETL&gt; &amp; &quot;more&quot;"), "{html}");
        assert!(!html.contains("<ETL>") && !html.contains("<b>"));
        // Seconds from the start of what is drawn (an hour before the view): 3600, then +3600.
        assert!(html.contains(r#"<path class="itl-bl itl-r" d="M3600 16h60m3540 0h60"/>"#), "{html}");
        // The failed run: a link to the job at its start, over the dashed line that says it
        // overlaps (drawn first, under it: the bar keeps its failed colour), with its square.
        assert!(html.contains(r#"<a href="/jobs/j%3C1%3E?at=2025-11-22T12:30:00Z&amp;instance=SQL%20%26%20CO"><title>failed &lt;b&gt;</title><path class="itl-ovh" d="M5400 23h120"/><rect class="itl-b failed itl-ov""#), "{html}");
        assert!(html.contains(r#"<path class="itl-bm failed" d="M5460 12v8"/></a>"#), "{html}");
        assert!(html.contains(r#"viewBox="3600 0 7200 24""#), "the view: 2 hours from an hour in");
        assert!(html.contains(r#"data-testid="now-line""#));
    }

    /// The chart over `rows` (name, id, a failed run's tooltip), its instance `instance`, a
    /// zombie span and a tick with text of their own.
    fn hostile_chart(rows: &[(String, String, String)], instance: &str, zombie: &str, tick: &str) -> String {
        let rows = rows
            .iter()
            .map(|(name, id, title)| ChartRow {
                id: id.clone(),
                name: name.clone(),
                enabled: true,
                expected: 2,
                runs: 2,
                missed: 0,
                failed: 1,
                items: vec![
                    run(T0, 60, RunOutcome::Succeeded, false),
                    ChartItem { title: title.clone(), ..run(T0 + H, 60, RunOutcome::Failed, false) },
                ],
            })
            .collect();
        let mut d = data(rows);
        d.instance.name = instance.to_owned();
        d.tick_zone = tick.to_owned();
        d.ticks = vec![crate::api::Tick { ms: T0 + H / 2, label: tick.to_owned(), major: true }];
        d.tick_px = vec![300];
        d.zombies =
            vec![crate::api::instance_timeline::ChartBand { start: at(T0), end: at(T0 + H), title: zombie.to_owned() }];
        chart_html(&d, Some(instance))
    }

    proptest::proptest! {
        /// Whatever the names, ids, tooltips and the instance's name hold, the chart has the
        /// shape it has with plain text, and shows each whole: a row's link and its tooltip,
        /// its `data-job`, its href, a run's `<title>`, the zombie's, the tick's label.
        #[test]
        fn hostile_text_in_the_chart_stays_text(
            rows in proptest::collection::vec((hostile(), hostile(), hostile()), 1..4),
            instance in hostile(),
            zombie in hostile(),
            tick in hostile(),
        ) {
            use crate::components::simulator::render::parsed::{all, attr, norm, parse, shape, text, within};
            let html = hostile_chart(&rows, &instance, &zombie, &tick);
            let plain: Vec<(String, String, String)> = (0..rows.len()).map(|i| (format!("job {i}"), format!("j{i}"), "x".into())).collect();
            proptest::prop_assert_eq!(shape(&html), shape(&hostile_chart(&plain, "x", if zombie.is_empty() { "" } else { "x" }, "x")), "{}", html);
            let doc = parse(&html);
            let chart = all(&doc, "#itl-chart");
            proptest::prop_assert_eq!(chart.len(), 1);
            proptest::prop_assert_eq!(attr(chart[0], "data-instance"), Some(norm(&instance)));
            let names = all(&doc, "li[data-job]");
            let plots = all(&doc, "g.itl-row");
            proptest::prop_assert_eq!((names.len(), plots.len()), (rows.len(), rows.len()));
            for (((name, id, title), li), g) in rows.iter().zip(names).zip(plots) {
                proptest::prop_assert_eq!(attr(li, "data-job"), Some(norm(id)));
                let a = within(li, "a");
                proptest::prop_assert_eq!(attr(a[0], "data-name"), Some(norm(name)));
                for label in within(li, "a > span[aria-hidden]") {
                    let label = text(label);
                    proptest::prop_assert!(crate::api::instance_timeline::fits(&label, &norm(name)), "{:?} of {:?}", label, name);
                }
                proptest::prop_assert_eq!(attr(a[0], "href"), Some(norm(&crate::components::job_href(Some(&instance), id, 1))));
                let tooltip = attr(a[0], "title").unwrap_or_default();
                proptest::prop_assert!(tooltip.starts_with(&norm(&(name.clone() + ": "))), "{:?}", tooltip);
                proptest::prop_assert_eq!(attr(g, "data-job"), Some(norm(id)));
                let tips: Vec<String> = within(g, "a > title").into_iter().map(text).collect();
                proptest::prop_assert_eq!(tips, vec![norm(title)]);
            }
            let zombies: Vec<String> = all(&doc, "rect.itl-zombie > title").into_iter().map(text).collect();
            proptest::prop_assert_eq!(zombies, vec![norm(&zombie)]);
            let ticks: Vec<String> = all(&doc, ".itl-tick").into_iter().map(text).collect();
            proptest::prop_assert_eq!(ticks, vec![norm(&tick)]);
            let caption = all(&doc, "[data-testid=itl-caption] span.muted").into_iter().map(text).collect::<String>();
            proptest::prop_assert_eq!(caption, norm(&format!("· ticks in {tick}")));
        }
    }

    /// Rows come in blocks of twelve, each laid out only when on screen; the lines across
    /// every row are drawn in each block, and found (by test id) once.
    #[test]
    fn rows_come_in_blocks_each_with_the_lines_across_them() {
        let row = |i: usize| ChartRow {
            id: format!("j{i}"),
            name: format!("job {i}"),
            enabled: true,
            expected: 1,
            runs: 1,
            missed: 0,
            failed: 0,
            items: vec![run(T0, 60, RunOutcome::Succeeded, false)],
        };
        let html = chart_html(&data((0..30).map(row).collect()), None);
        let blocks: Vec<&str> = html.split(r#"<div class="itl-block""#).skip(1).collect();
        assert_eq!(blocks.len(), 3);
        let heights: Vec<usize> = blocks.iter().map(|b| b.matches("<li data-job=").count()).collect();
        assert_eq!(heights, [12, 12, 6]);
        for (b, rows) in blocks.iter().zip(heights) {
            assert_eq!(b.matches(r#"<g class="itl-row""#).count(), rows, "names and rows side by side");
            let h = rows * 24;
            let style = format!(r#" style="contain-intrinsic-size:auto calc({rows} * var(--itl-row))">"#);
            assert!(b.starts_with(&style), "{b}");
            assert!(b.contains(&format!(r#"style="height:calc({rows} * var(--itl-row))""#)), "{b}");
            assert!(b.contains(&format!(r#"viewBox="3600 0 7200 {h}""#)), "one time axis: {b}");
            assert!(b.contains(r#"<path class="itl-now" d="M7200 0V"#), "the now line in every block");
        }
        assert!(blocks[1].contains(r#"aria-label="Jobs 13 to 24 of 30 of SQL &amp; CO on one time axis""#));
        assert_eq!(html.matches(r#"data-testid="now-line""#).count(), 1);
        assert_eq!(html.matches(r#"data-testid="itl-job""#).count(), 30);
    }
}
