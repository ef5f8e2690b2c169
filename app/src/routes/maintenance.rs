//! Maintenance (`/maintenance`): every window that changes what a page or the API can show,
//! open first, then to come, then the rest newest first: the fleet file's over the days
//! Sundial reads (and the week ahead), and every one added from the triage page, whenever it
//! was. Each says who declared or added it, when and why, who ended it early and why, and what
//! it changed: the due runs not made inside it that count as maintenance, not missed. An admin
//! ends or cancels one here as on the triage page (whose section lists only the last day to
//! the next week, and adds windows).
use crate::api;
use crate::components::{ErrorPanel, Header};
use crate::routes::triage::{MaintenanceError, window_row};
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn MaintenancePage() -> impl IntoView {
    let data = Resource::new(|| (), |_| api::maintenance());
    let admin = api::may_acknowledge();
    view! {
        <Title text="Maintenance · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <h1>"Maintenance windows"</h1>
            <MaintenanceError/>
            <p class="muted">
                "Every window that changes what Sundial shows: the fleet file's over the last 30 days and the next 7, and every window ever added from "
                <a href="/triage">"the triage page"</a>
                " (where windows are added). Inside a window, a due run that did not happen counts as maintenance, not missed. "
                <a href="/api/maintenance">"JSON"</a>
            </p>
            <Transition fallback=|| view! { <p class="loading">"Reading the windows…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(d) if d.windows.is_empty() => {
                            view! { <p class="empty" data-testid="maint-empty">"No maintenance window changes anything Sundial shows."</p> }.into_any()
                        }
                        Ok(d) => {
                            let changed: usize = d.windows.iter().filter_map(|w| w.runs).sum();
                            let rows = d.windows.into_iter().map(|w| window_row(w, admin, "/maintenance")).collect_view();
                            view! {
                                <section class="maintenance" data-testid="maintenance">
                                    <p class="summary" data-testid="maint-summary">
                                        {format!("{changed} due runs counted as maintenance over the last 30 days")}
                                    </p>
                                    <ol class="windows" data-testid="windows">{rows}</ol>
                                </section>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
        </main>
    }
}
