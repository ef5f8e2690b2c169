//! The instance timeline (`/timeline?instance=…&from=…&to=…`): every job of an instance on
//! one time axis, a row per job, with the scheduler's restarts and zombie spans across all
//! rows, the runs going at once on top, and a now line with the forecast ahead of it. Zoom
//! from an hour to 30 days and pan: with the mouse, the keyboard or the links (which work
//! without JavaScript). The URL is the state.
use crate::api::{self, ApiError};
use crate::components::chart::Legend;
use crate::components::instance_chart::InstanceChartLive;
use crate::components::{ErrorPanel, Header, NotFound, instance_query};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn InstanceTimelinePage() -> impl IntoView {
    let query = use_query_map();
    let args = Memo::new(move |_| {
        query.with(|q| {
            let get = |k: &str| q.get(k).filter(|v| !v.is_empty());
            (get("instance"), get("from"), get("to"))
        })
    });
    let data = Resource::new(
        move || args.get(),
        |(instance, from, to)| async move { api::instance_timeline(instance, from, to).await },
    );
    view! {
        <Suspense fallback=|| view! { <Header/> <p class="loading">"Loading the instance timeline…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => view! { <InstanceTimelineView data=d/> }.into_any(),
                    Err(ApiError::NotFound { .. }) => {
                        let name = args.get_untracked().0.unwrap_or_default();
                        view! {
                            <Title text="Instance not found · Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <NotFound what=format!("There is no instance named {name:?}.")/>
                            </main>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        view! {
                            <Title text="Instance timeline · Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <ErrorPanel err=e base="/timeline".to_string()/>
                            </main>
                        }
                            .into_any()
                    }
                }
            })}
        </Suspense>
    }
}

#[component]
fn InstanceTimelineView(data: api::instance_timeline::InstanceTimelineData) -> AnyView {
    let instance = use_query_map().with_untracked(|q| q.get("instance").filter(|i| !i.is_empty()));
    #[cfg(feature = "ssr")]
    let chart = crate::components::instance_chart::chart_html(&data, instance.as_deref());
    #[cfg(not(feature = "ssr"))]
    let chart = String::new();
    let head = data.instance.clone();
    let title = format!("Timeline · {} · Sundial", head.name);
    let jobs = data.rows.len();
    let label = format!("Instance timeline of {}: {jobs} jobs", head.name);
    let days = head.days;
    let summary = format!(
        "{jobs} jobs. Runs sharing a minute or more with a run of another job: {}; up to {} runs at once.",
        api::count_text(data.overlapping),
        data.peak
    );
    view! {
        <Title text=title/>
        <Header instance=head.clone()/>
        <main id="content" tabindex="-1" class="page page-wide">
            <nav class="crumbs" aria-label="Breadcrumb">
                <a href=format!("/jobs?days={days}{}", instance_query(instance.as_deref()))>"← All jobs"</a>
            </nav>
            <div class="toolbar">
                <h1>"Instance timeline"</h1>
                <crate::components::JsonLink href=crate::components::api_href("instances/{i}/jobs", &head)/>
            </div>
            <p class="summary" data-testid="itl-summary">{summary}</p>
            <HeldHere instance=head.name.clone()/>
            <p class="itl-hint" id="itl-hint">
                <span class="itl-hint-desk">
                    "Keys (with the chart focused): " <kbd>"+"</kbd> " " <kbd>"−"</kbd> " zoom, " <kbd>"←"</kbd> " "
                    <kbd>"→"</kbd> " pan (" <kbd>"Shift"</kbd> ": further), " <kbd>"Home"</kbd>
                    " back to now. Mouse: drag to pan; the wheel over the time axis (or " <kbd>"Ctrl"</kbd>
                    " + wheel) zooms. A tap or a click on a run or an expected run (" <kbd>"Enter"</kbd>
                    " on a focused one) shows its details, with a link to its job at that moment."
                </span>
                // On a touch screen (the stylesheet shows one of the two).
                <span class="itl-hint-touch">
                    "Drag the chart sideways to go back or ahead in time; the buttons above zoom, and "
                    "Now comes back. Tap a run or an expected run for its details, with a link to its job at that moment."
                </span>
            </p>
            <div
                id="itl-root"
                class="itl"
                tabindex="0"
                role="group"
                aria-label=label
                aria-describedby="itl-hint"
                data-testid="itl-root"
                inner_html=chart
            ></div>
            <InstanceChartLive/>
            {(!data.ahead.runs.is_empty() || !data.ahead.windows.is_empty()).then(|| {
                crate::routes::calendar::next_runs(data.ahead.clone(), true, format!("/calendar?span=week&instance={}", crate::components::encode_segment(&head.name)))
            })}
            <Legend scheduler=head.scheduler.clone()/>
            <ul class="legend itl-legend" aria-label="Legend of the instance timeline">
                <li><span class="sw itl-sw-ov"></span>"Shares a minute or more with a run of another job (a dashed line under it)"</li>
                <li><span class="sw itl-sw-conc"></span>"Runs at once"</li>
                <li><span class="sw itl-sw-over"></span>"Two or more at once"</li>
                <li><span class="sw itl-sw-band"></span>"Many close together: one stretch (hover for how many)"</li>
                <li><span class="sw itl-sw-now"></span>"Now; ahead of it, the forecast"</li>
            </ul>
        </main>
    }
    .into_any()
}

/// The instance's problems someone acknowledged or silenced, with who, when and their note: a
/// colleague arriving here from an alert reads them before acting again.
#[component]
fn HeldHere(instance: String) -> impl IntoView {
    let held = Resource::new(move || instance.clone(), |i| api::triage(Some(i), None));
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                held.await.ok().and_then(|t| crate::routes::triage::held_notes(&t.acknowledged, true)).map(|notes| {
                    view! { <div class="held-here" data-testid="itl-held">{notes}</div> }
                })
            })}
        </Suspense>
    }
}
