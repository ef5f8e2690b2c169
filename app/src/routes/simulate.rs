//! The schedule simulator (`/simulate`): edit a schedule in its own dialect and see, as you
//! type, its next runs, its descriptions, what is wrong with it, what it does to the
//! instance's other jobs, and the statement that applies it. Computed in the browser by the
//! engine (the [`Simulator`](crate::components::simulator::Simulator) island); this page only
//! resolves the URL's state on the server.
//!
//! The URL carries the whole state: `dialect`, `after` (local wall-clock in `tz`,
//! `YYYY-MM-DDTHH:MM:SS`), `count`, `tz` (an IANA zone), `row` (the row as JSON), and for an
//! existing job `instance`, `job`, `schedule` and `days` (the impact window).
use crate::components::simulator::Simulator;
use crate::components::simulator::server::{self, SimQuery};
use crate::components::{ErrorPanel, Header};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn SimulatePage() -> impl IntoView {
    let query = use_query_map().with_untracked(|q| SimQuery {
        dialect: q.get("dialect"),
        after: q.get("after"),
        count: q.get("count"),
        tz: q.get("tz"),
        row: q.get("row"),
        instance: q.get("instance"),
        job: q.get("job"),
        schedule: q.get("schedule"),
        days: q.get("days"),
        pg_cron: q.get("pg_cron"),
    });
    let data = Resource::new(move || query.clone(), server::simulate_setup);
    view! {
        <Title text="Simulate · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <h1>"Simulate a schedule"</h1>
            <p class="muted">
                "Edit a schedule as its scheduler stores it: the next runs, the descriptions and the diagnostics follow as you type, computed in your browser by the engine Sundial forecasts with. Nothing is written anywhere."
            </p>
            <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(setup) => {
                            let title = setup.job.as_ref().map(|j| {
                                let back = format!("/jobs/{}?instance={}", crate::components::encode_segment(&j.id), crate::components::encode_segment(&j.instance));
                                let choices = (j.schedules.len() > 1).then(|| {
                                    let links = j
                                        .schedules
                                        .iter()
                                        .map(|(id, name, _)| {
                                            let href = format!("/simulate?instance={}&job={}&schedule={id}", crate::components::encode_segment(&j.instance), crate::components::encode_segment(&j.id));
                                            // Each schedule a chip of its own; the one edited marked, in words too.
                                            let editing = *id == j.schedule_id;
                                            let name = if name.trim().is_empty() { format!("schedule {id}") } else { name.clone() };
                                            view! {
                                                <a href=href class="filter" data-testid="sim-schedule" aria-current=editing.then_some("page")>
                                                    {editing.then_some("Editing: ")} {name}
                                                </a>
                                            }
                                        })
                                        .collect_view();
                                    let n = j.schedules.len();
                                    view! {
                                        <nav class="filters" aria-label="The job's schedules" data-testid="sim-schedules">
                                            {format!("{n} schedules:")} {links}
                                        </nav>
                                    }
                                });
                                view! {
                                    <p class="sim-job" data-testid="sim-job">"Job " <a href=back class="job-link">{j.name.clone()}</a> " on " {j.instance.clone()}</p>
                                    {choices}
                                }
                            });
                            view! {
                                {title}
                                <Simulator setup=setup/>
                                <ZoneList/>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Suspense>
        </main>
    }
}

/// Every IANA zone the server knows, as suggestions for the zone field.
#[component]
fn ZoneList() -> impl IntoView {
    #[cfg(feature = "ssr")]
    let names = server::ssr::zone_names();
    #[cfg(not(feature = "ssr"))]
    let names: Vec<&'static str> = Vec::new();
    view! { <datalist id="zones">{names.into_iter().map(|n| view! { <option value=n></option> }).collect_view()}</datalist> }
}
