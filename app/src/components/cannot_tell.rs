//! What a scheduler's own tables cannot tell ([`crate::api::Scheduler::cannot_tell`]), said
//! where its counts are read: the jobs list and the job page.
use crate::api::Scheduler;
use leptos::prelude::*;

/// A closed disclosure, "What SQL Server Agent cannot tell (2)", each item with its reason.
#[component]
pub fn CannotTellNote(scheduler: Scheduler) -> impl IntoView {
    let items = scheduler.cannot_tell();
    (!items.is_empty()).then(|| {
        let list = items.iter().map(|c| view! { <li><strong>{c.what}</strong>": "{c.why}</li> }).collect_view();
        view! {
            <details class="cannot-tell" data-testid="cannot-tell">
                <summary>{format!("What {} cannot tell ({})", scheduler.mid(), items.len())}</summary>
                <ul>{list}</ul>
            </details>
        }
    })
}
