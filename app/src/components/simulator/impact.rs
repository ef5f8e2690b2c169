//! "What the change does to the instance": the job's runs today and as proposed on one time
//! axis with the jobs they meet, the overlaps the change creates and removes (naming the other
//! job and the time), runs the Agent would refuse because the job still runs, and very
//! frequent jobs as bands rather than conflicts.
use crate::engine::replay::{Impact, Overlap, ReplayedRun};
use crate::engine::{Window, Zone, tz};
use chrono::{DateTime, Utc};
use leptos::prelude::*;

fn local(at: DateTime<Utc>, zone: Zone) -> String {
    tz::to_local(at, zone).format("%a %Y-%m-%d %H:%M").to_string()
}

fn overlap_line(o: &Overlap, zone: Zone) -> String {
    let mins = (o.span.end - o.span.start).num_minutes();
    format!(
        "{} at {} overlaps {}{} (its run at {}) for {} min",
        o.job,
        local(o.run, zone),
        o.other,
        if o.other_moved { ", moved too" } else { "" },
        local(o.other_run, zone),
        mins.max(1)
    )
}

/// One lane of the axis: runs as bars, refused runs as outlines. Coordinates are whole
/// tenths of the axis's 1,000 units (integers: no float formatting in the WASM).
fn lane(label: String, runs: &[ReplayedRun], window: Window, y: i64, class: &'static str) -> impl IntoView + use<> {
    let span = (window.end - window.start).num_seconds().max(1);
    let x = move |t: DateTime<Utc>| ((t - window.start).num_seconds() * 10_000 / span).clamp(0, 10_000);
    let bars = runs
        .iter()
        .map(|r| {
            let (x0, x1) = (x(r.likely.start), x(r.likely.end));
            let w = (x1 - x0).max(15);
            let refused = r.refused.is_some();
            view! {
                <rect x=x0.to_string() y=(y + 30).to_string() width=w.to_string() height="120" class=if refused { "imp-refused" } else { class }>
                    <title>{if refused { "refused: the job would still be running" } else { "run (p50 duration)" }}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <text x="-60" y=(y + 130).to_string() text-anchor="end" class="imp-label">{label}</text>
        {bars}
    }
}

#[component]
pub fn ImpactView(impact: Memo<Option<Impact>>, zone: RwSignal<Zone>, days: RwSignal<String>) -> impl IntoView {
    view! {
        <section class="sim-impact" aria-labelledby="sim-impact-h" data-testid="impact">
            <h2 id="sim-impact-h">"What the change does to the instance"</h2>
            <div class="sim-row">
                <div class="field field-narrow">
                    <label for="sim-impact-days">"Days ahead"</label>
                    <input id="sim-impact-days" type="number" min="1" max=super::model::MAX_DAYS prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev))/>
                </div>
            </div>
            {move || {
                let z = zone.get();
                impact
                    .get()
                    .map(|i| {
                        let s = i.summary;
                        let lanes: Vec<_> = i
                            .moved
                            .iter()
                            .flat_map(|m| [(format!("{} now", m.name), m.current.clone(), "imp-current"), (format!("{} proposed", m.name), m.proposed.clone(), "imp-proposed")])
                            .collect();
                        let h = lanes.len() as i64 * 200 + 240;
                        let window = i.window;
                        let svg_lanes = lanes.into_iter().enumerate().map(|(k, (l, runs, c))| lane(l, &runs, window, k as i64 * 200, c)).collect_view();
                        let list = |items: &[Overlap], testid: &'static str, empty: &'static str| {
                            let lines: Vec<String> = items.iter().map(|o| overlap_line(o, z)).collect();
                            view! {
                                <ul class="imp-list" data-testid=testid>
                                    {if lines.is_empty() { Some(view! { <li class="muted">{empty}</li> }) } else { None }}
                                    {lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                                </ul>
                            }
                        };
                        let refused: Vec<String> = i
                            .moved
                            .iter()
                            .flat_map(|m| m.proposed.iter().filter(|r| r.refused.is_some()).map(move |r| format!("{} at {}: refused, the previous run would still be running", m.name, local(r.at, z))))
                            .collect();
                        view! {
                            <p data-testid="impact-summary">
                                {format!(
                                    "Over {} day(s): the change creates {} overlap(s) ({} more possible at p95) and removes {} ({} possible); the Agent would refuse {} run(s) as proposed ({} today).",
                                    ((window.end - window.start).num_hours() + 23) / 24,
                                    s.created_likely,
                                    s.created_possible,
                                    s.removed_likely,
                                    s.removed_possible,
                                    s.refused_proposed,
                                    s.refused_current,
                                )}
                            </p>
                            <svg class="imp-axis" viewBox=format!("-1900 0 12000 {h}") preserveAspectRatio="xMinYMin meet" role="img" aria-label="The job's runs now and as proposed">
                                {svg_lanes}
                            </svg>
                            <h3>"Overlaps the change creates"</h3>
                            {list(&i.created.likely, "created", "None.")}
                            <h3>"Overlaps it removes"</h3>
                            {list(&i.removed.likely, "removed", "None.")}
                            <h3>"Possible overlaps (p95 durations)"</h3>
                            {list(&i.created.possible, "created-possible", "None.")}
                            <h3>"Runs the scheduler would refuse"</h3>
                            <ul class="imp-list" data-testid="refused">
                                {refused.is_empty().then(|| view! { <li class="muted">"None."</li> })}
                                {refused.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                            </ul>
                            <h3>"Very frequent jobs (shown as bands, not counted as conflicts)"</h3>
                            <ul class="imp-list" data-testid="bands">
                                {i.bands.is_empty().then(|| view! { <li class="muted">"None."</li> })}
                                {i.bands.iter().map(|b| view! { <li>{format!("{}: {}", b.job, b.pattern)}</li> }).collect_view()}
                            </ul>
                            {(!i.no_history.is_empty()).then(|| view! { <p class="muted">"No run history (taken as zero-length): " {i.no_history.join(", ")}</p> })}
                        }
                    })
            }}
        </section>
    }
}
