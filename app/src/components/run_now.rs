//! What to do about a miss: the statement that runs a job now ([`sundial_model::run_now`]),
//! shown on the job page and triage's cards. Server-rendered only (no island): the statement is
//! selectable text, one click selecting all of it; Sundial never runs it.
use leptos::prelude::*;
use sundial_model::run_now::RunNow;

/// The statement with what it does and does not do. With `summary`, folded under it (a
/// table row, a triage card); without, open under `title` as a heading.
#[component]
pub fn RunNowBlock(
    r: RunNow,
    #[prop(optional)] summary: Option<String>,
    #[prop(optional)] title: Option<String>,
) -> impl IntoView {
    let RunNow { statement, does, does_not } = r;
    let body = view! {
        <p class="run-now-does">{does}</p>
        {statement.map(|s| view! { <pre class="run-now-statement" data-testid="run-now-statement" tabindex="0"><code>{s}</code></pre> })}
        <p class="run-now-not muted">"Sundial never runs it: copy it and run it yourself. " {does_not}</p>
    };
    match summary {
        Some(summary) => view! {
            <details class="run-now" data-testid="run-now">
                <summary>{summary}</summary>
                {body}
            </details>
        }
        .into_any(),
        None => view! {
            <section class="run-now" data-testid="run-now" aria-labelledby="run-now-h">
                <h2 id="run-now-h">{title.unwrap_or_else(|| "What to do about a miss".into())}</h2>
                {body}
            </section>
        }
        .into_any(),
    }
}
