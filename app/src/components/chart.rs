//! One job's timeline: expected occurrences and actual runs on one time axis.
//!
//! Plain absolutely-positioned elements, placed in percent of the window, so the chart
//! stretches with the page and every marker can carry a tooltip and take keyboard focus.
use super::{Time, outcome_key, outcome_label};
use crate::api::{Mark, MarkSpan, OccurrenceView, RunKind, RunSpan, RunView, Scheduler, TimelineData};
use leptos::prelude::*;

/// Where an instant falls in the window, in percent, clamped to the chart.
fn pct(ms: i64, start: i64, end: i64) -> f64 {
    if end <= start {
        return 0.0;
    }
    ((ms - start) as f64 / (end - start) as f64 * 100.0).clamp(0.0, 100.0)
}

fn left(ms: i64, start: i64, end: i64) -> String {
    format!("left:{:.3}%", pct(ms, start, end))
}

fn span(from: i64, to: i64, start: i64, end: i64) -> String {
    let a = pct(from, start, end);
    let b = pct(to, start, end);
    format!("left:{a:.3}%;width:{:.3}%", (b - a).max(0.0))
}

fn marker(o: &OccurrenceView, start: i64, end: i64) -> AnyView {
    let style = left(o.at.ms, start, end);
    let class = format!("mk mk-{}", o.mark.key());
    match o.mark {
        // Routine marks: many, quiet, not tab stops.
        Mark::OnTime | Mark::Upcoming | Mark::Unknown | Mark::Maintenance => {
            let title = if o.note.is_empty() {
                format!("{} · {}", o.at.zoned(), o.mark.label())
            } else {
                format!("{} · {}", o.at.zoned(), o.note)
            };
            view! { <span class=class style=style title=title></span> }.into_any()
        }
        Mark::Missed | Mark::Late | Mark::Skipped => {
            let label = format!("{} — {}", o.at.zoned(), o.note);
            let testid = format!("{}-marker", o.mark.key());
            let cause = o.cause.map(|c| c.key());
            view! {
                <span
                    class=class
                    style=style
                    tabindex="0"
                    role="img"
                    aria-label=label.clone()
                    title=label
                    data-testid=testid
                    data-cause=cause
                    data-at=o.at.local.clone()
                ></span>
            }
            .into_any()
        }
    }
}

fn run_bar(r: &RunView, start: i64, end: i64) -> impl IntoView + use<> {
    let kind = match r.kind {
        RunKind::Scheduled => "",
        RunKind::Manual => " · manual",
        RunKind::Unscheduled => " · unscheduled",
    };
    let mut title =
        format!("{} · {} · {} · {}{kind}", r.start.zoned(), outcome_label(r.outcome), r.duration, r.trigger);
    match r.flag {
        Some(crate::engine::durations::DurationFlag::Long { p95 }) => {
            title.push_str(&format!(" · long (p95 {})", crate::api::duration_text(p95)))
        }
        Some(crate::engine::durations::DurationFlag::Short { p50 }) => {
            title.push_str(&format!(" · short (p50 {})", crate::api::duration_text(p50)))
        }
        None => {}
    }
    if !r.message.is_empty() {
        title.push('\n');
        title.push_str(&r.message);
    }
    let class =
        format!("bar o-{}{}", outcome_key(r.outcome), if r.kind == RunKind::Scheduled { "" } else { " bar-extra" });
    view! {
        <span
            class=class
            style=span(r.start.ms, r.end_ms.max(r.start.ms), start, end)
            title=title
            data-testid="run-bar"
            data-outcome=outcome_key(r.outcome)
        ></span>
    }
}

fn mark_span(m: &MarkSpan, start: i64, end: i64) -> impl IntoView + use<> {
    let title = format!(
        "{} expected runs ({}), {} – {}",
        m.count,
        m.mark.label().to_lowercase(),
        m.start.zoned(),
        m.end.zoned()
    );
    view! {
        <span class=format!("mkspan mkspan-{}", m.mark.key()) style=span(m.start.ms, m.end.ms, start, end) title=title></span>
    }
}

fn run_span(r: &RunSpan, start: i64, end: i64) -> impl IntoView + use<> {
    let title = format!("{} runs succeeded, {} – {}", r.count, r.start.zoned(), r.end_local);
    view! {
        <span class="bar o-succeeded bar-span" style=span(r.start.ms, r.end_ms, start, end) title=title data-testid="run-span"></span>
    }
}

/// The chart; `data-days` and the markers' `data-testid`s are what the browser test reads.
#[component]
pub fn TimelineChart(data: TimelineData) -> AnyView {
    let start = data.instance.window_start.ms;
    let end = data.instance.window_end.ms;
    let days = data.instance.days;

    let unknown = data.history_horizon.as_ref().map(|h| {
        let label = format!("Unknown: no history kept before {}", h.zoned());
        view! {
            <div class="band band-unknown" style=span(start, h.ms, start, end) title=label.clone() data-testid="unknown-band">
                <span class="band-label">"Unknown: history not kept"</span>
            </div>
        }
    });
    // Runs the scheduler purged, from Sundial's store: from where its coverage starts (or the
    // window's start) to where the scheduler's own history starts.
    let kept = data.source_since.as_ref().map(|h| {
        let from = data.history_horizon.as_ref().map_or(start, |u| u.ms.max(start));
        let label = format!(
            "Kept by Sundial: the scheduler's own history starts at {}; the runs before it come from Sundial's store",
            h.zoned()
        );
        view! {
            <div class="band band-kept" style=span(from, h.ms, start, end) title=label data-testid="kept-band">
                <span class="band-label">"Sundial's history"</span>
            </div>
        }
    });
    let scheduler = &data.instance.scheduler;
    let zombies = data
        .zombies
        .iter()
        .filter(|z| z.end.ms > start && z.start.ms < end)
        .map(|z| {
            let (label, word, testid) = if z.stopped {
                let label = format!(
                    "{} stopped: last seen {}, back {} ({} runs missed)",
                    scheduler.label(),
                    z.start.zoned(),
                    z.end.zoned(),
                    z.missed
                );
                (label, "Stopped", "stopped-band")
            } else {
                let label = format!(
                    "{} started no job from {} to {} while {} runs were due",
                    scheduler.label(),
                    z.start.zoned(),
                    z.end.zoned(),
                    z.due
                );
                (label, "Zombie: started nothing", "zombie-band")
            };
            view! {
                <div class="band band-zombie" class:band-stopped=z.stopped style=span(z.start.ms, z.end.ms, start, end) title=label data-testid=testid>
                    <span class="band-label">{word}</span>
                </div>
            }
        })
        .collect_view();
    let planned = data
        .maintenance
        .iter()
        .filter(|m| m.end.ms > start && m.start.ms < end)
        .map(|m| {
            let label = format!("Maintenance ({}) from {} to {}: runs not made here are not missed", m.label, m.start.zoned(), m.end.zoned());
            view! {
                <div class="band band-maint" style=span(m.start.ms, m.end.ms, start, end) title=label data-testid="maintenance-band">
                    <span class="band-label">"Maintenance"</span>
                </div>
            }
        })
        .collect_view();
    let restarts = data
        .agent_starts
        .iter()
        .map(|t| {
            let label = format!("{} started {}", scheduler.label(), t.zoned());
            view! {
                <div class="restart" style=left(t.ms, start, end) title=label.clone() data-testid="agent-restart">
                    <span class="restart-label" aria-label=label.clone()>"↻"</span>
                </div>
            }
        })
        .collect_view();
    // Each change Sundial saw of the job's definition, at the read that saw it.
    let changes = data
        .changes
        .iter()
        .filter(|c| c.seen.ms >= start && c.seen.ms <= end)
        .map(|c| {
            let label = format!("{} (seen {})", c.words, c.seen.zoned());
            let title = label.clone();
            view! {
                <div class="change-mark" style=left(c.seen.ms, start, end) title=title data-testid="change-mark">
                    <span class="change-mark-label" role="img" aria-label=label>"✎"</span>
                </div>
            }
        })
        .collect_view();
    let ticks = data
        .ticks
        .iter()
        .map(|t| {
            let class = if t.major { "tick major" } else { "tick" };
            view! {
                <div class=class style=left(t.ms, start, end)>
                    {(!t.label.is_empty()).then(|| view! { <span class="tick-label">{t.label.clone()}</span> })}
                </div>
            }
        })
        .collect_view();
    let gridlines = data
        .ticks
        .iter()
        .filter(|t| t.major)
        .map(|t| view! { <div class="gridline" style=left(t.ms, start, end)></div> })
        .collect_view();
    // Routine marks first so problems paint on top.
    let mut occurrences: Vec<&OccurrenceView> = data.occurrences.iter().collect();
    occurrences.sort_by_key(|o| matches!(o.mark, Mark::Missed | Mark::Late | Mark::Skipped));
    let markers = occurrences.into_iter().map(|o| marker(o, start, end)).collect_view();
    let mark_spans = data.occurrence_spans.iter().map(|m| mark_span(m, start, end)).collect_view();
    let bars = data.runs.iter().map(|r| run_bar(r, start, end)).collect_view();
    // A deep link's moment (`?at=`), when the window holds it.
    let moment = data.at.as_ref().filter(|a| a.inside).and_then(|a| a.at.clone()).map(|t| {
        let label = format!("Shown at {}", t.zoned());
        let title = label.clone();
        view! {
            <div class="at-marker" style=left(t.ms, start, end) title=title data-testid="at-marker" data-at=t.ms>
                <span class="at-marker-label" role="img" aria-label=label>"◆"</span>
            </div>
        }
    });
    let run_spans = data.run_spans.iter().map(|r| run_span(r, start, end)).collect_view();
    let deadlines = deadline_lines(&data, start, end);

    let mut summary = format!(
        "{} expected runs, {} runs: {} failed ({} retried), {} missed, {} late, {} skipped",
        data.expected_count,
        data.run_count,
        data.job.failed,
        data.job.retries,
        data.job.missed,
        data.job.late,
        data.job.skipped
    );
    if data.job.unknown > 0 {
        summary.push_str(&format!(", {} unknown (history not kept)", data.job.unknown));
    }
    if data.job.maintenance > 0 {
        summary.push_str(&format!(", {} not run in maintenance", data.job.maintenance));
    }

    let aria = format!("Timeline over {days} days: {summary}");
    view! {
        <figure class="chart" data-testid="timeline-chart" data-days=days aria-label=aria>
            <div class="chart-grid">
                <div class="lane-label lane-label-expected">"Expected"</div>
                <div class="lane-label lane-label-runs">"Runs"</div>
                <div class="plot">
                    {gridlines}
                    {unknown}
                    {kept}
                    {zombies}
                    {planned}
                    {restarts}
                    {deadlines}
                    {changes}
                    {moment}
                    <div class="lane lane-expected">{mark_spans} {markers}</div>
                    <div class="lane lane-runs">{run_spans} {bars}</div>
                </div>
                <div class="axis" aria-hidden="true">{ticks}</div>
            </div>
            <figcaption class="chart-caption">
                <span><Time t=data.instance.window_start.clone()/></span>
                <span class="chart-summary" data-testid="chart-summary">{summary}</span>
                <span><Time t=data.instance.window_end.clone()/> " (now)"</span>
            </figcaption>
        </figure>
    }
    .into_any()
}

/// Each deadline instant of the window (`[[deadline]]`): a dashed vertical line, its tooltip
/// naming the deadline and when it was due; the latest is labelled with the deadline's name
/// (labels at each would overlap: daily instants are a seventh of a week's chart apart).
fn deadline_lines(data: &TimelineData, start: i64, end: i64) -> impl IntoView + use<> {
    data.deadlines
        .iter()
        .flat_map(|d| {
            let n = d.instants.len();
            d.instants.iter().enumerate().filter(|(_, t)| t.ms >= start && t.ms <= end).map(move |(i, t)| {
                let title = format!("Deadline: {} ({}), due {}", d.name, d.words, t.zoned());
                let label = (i + 1 == n).then(|| d.name.clone());
                view! {
                    <div class="deadline-line" style=left(t.ms, start, end) title=title data-testid="deadline-line" data-at=t.local.clone()>
                        <svg class="deadline-svg" aria-hidden="true" width="2" height="100%">
                            <line x1="1" y1="0" x2="1" y2="100%" stroke-dasharray="4 3"></line>
                        </svg>
                        {label.map(|l| view! { <span class="deadline-label">{l}</span> })}
                    </div>
                }
            })
        })
        .collect_view()
}

/// What the colors and shapes mean; the restart mark is worded by the instance's scheduler
/// ("Agent restart", "pg_cron restart", …).
#[component]
pub fn Legend(#[prop(into)] scheduler: Scheduler) -> AnyView {
    let restart = scheduler.restart_word();
    view! {
        <ul class="legend" aria-label="Legend">
            <li><span class="sw bar o-succeeded"></span>"Succeeded"</li>
            <li><span class="sw bar o-failed"></span>"Failed"</li>
            <li><span class="sw bar o-retry"></span>"Retry"</li>
            <li><span class="sw bar o-canceled"></span>"Canceled"</li>
            <li><span class="sw bar o-in-progress"></span>"In progress"</li>
            <li><span class="sw bar o-crashed"></span>"Crashed (never finished)"</li>
            <li><span class="sw bar o-abandoned"></span>"Abandoned (released by the scheduler)"</li>
            <li><span class="sw bar o-unknown"></span>"Outcome unknown"</li>
            <li><span class="sw mk mk-ontime"></span>"Expected"</li>
            <li><span class="sw mk mk-missed"></span>"Missed"</li>
            <li><span class="sw mk mk-late"></span>"Late"</li>
            <li><span class="sw mk mk-skipped"></span>"Skipped (still running)"</li>
            <li><span class="sw band-unknown"></span>"Unknown (history not kept)"</li>
            <li><span class="sw band-kept"></span>"Sundial's history (the scheduler purged it)"</li>
            <li><span class="sw band-zombie"></span>"Scheduler started nothing"</li>
            <li><span class="sw band-maint"></span>"Maintenance window (not missed)"</li>
            <li><span class="sw restart-sw"></span>{restart}</li>
            <li><span class="sw change-sw"></span>"Definition changed"</li>
        </ul>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Scheduler;

    fn legend_html(scheduler: Scheduler) -> String {
        Owner::new().with(|| view! { <Legend scheduler=scheduler/> }.to_html())
    }

    #[test]
    fn the_legend_words_restarts_by_the_instances_scheduler() {
        let pg = legend_html(Scheduler::PgCron);
        assert!(pg.contains("pg_cron restart"), "{pg}");
        assert!(!pg.contains("Agent"), "no Agent on a pg_cron instance: {pg}");
        assert!(legend_html(Scheduler::SqlAgent).contains("Agent restart"));
        for s in Scheduler::ALL.into_iter().filter(|s| *s != Scheduler::SqlAgent) {
            let html = legend_html(s.clone());
            // SQL Agent's word, not pgAgent's name.
            let agent = html.split(|c: char| !c.is_alphanumeric()).any(|w| w == "Agent");
            assert!(html.contains(s.restart_word()) && !agent, "{s:?}: {html}");
        }
    }

    #[test]
    fn every_run_outcome_has_its_own_legend_entry_and_color() {
        use crate::components::{outcome_key, outcome_label};
        use crate::engine::RunOutcome::*;
        let html = legend_html(Scheduler::JobActivity);
        let css = include_str!("../../../style/main.css");
        for o in [Succeeded, Failed, Retry, Canceled, InProgress, Crashed, Abandoned, Unknown] {
            let class = format!("o-{}", outcome_key(o));
            assert!(html.contains(&format!("sw bar {class}")), "{o:?} is in the legend: {html}");
            assert!(css.contains(&format!(".bar.{class} ")), "{o:?} has a bar color");
            assert!(css.contains(&format!(".badge.{class} ")), "{o:?} has a badge color");
            assert!(!outcome_label(o).is_empty());
        }
    }
}
