//! Find a job by name across the fleet (`/find?q=`): every instance read, each job whose name
//! holds the words (ignoring case), with its instance, its category and where it stands now
//! (the fleet's one judgment), linking its page. The header's search box asks it.
use crate::api::{self, FoundJobs};
use crate::components::{ErrorPanel, Header, job_href};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn FindPage() -> impl IntoView {
    let q = use_query_map().with_untracked(|m| m.get("q").unwrap_or_default());
    let asked = q.clone();
    let found = Resource::new(move || asked.clone(), api::find_jobs);
    view! {
        <Title text="Find a job · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <h1>"Find a job"</h1>
            <form method="get" action="/find" class="find-form" role="search">
                <label for="find-q">"Job name"</label>
                <input id="find-q" name="q" type="search" value=q maxlength="200" autocomplete="off"/>
                <button type="submit">"Find"</button>
            </form>
            <Transition fallback=|| view! { <p class="loading">"Searching the fleet…"</p> }>
                {move || Suspend::new(async move {
                    match found.await {
                        Ok(f) => results(f).into_any(),
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
        </main>
    }
}

fn results(f: FoundJobs) -> impl IntoView {
    if f.query.is_empty() {
        return view! { <p class="muted">"Type part of a job's name: every instance is searched."</p> }.into_any();
    }
    let missed = (!f.not_searched.is_empty())
        .then(|| view! { <p class="muted" data-testid="not-searched">{format!("Not searched (never read): {}", f.not_searched.join(", "))}</p> });
    if f.jobs.is_empty() {
        return view! {
            <p data-testid="found-none">{format!("No job's name holds \u{201c}{}\u{201d}.", f.query)}</p>
            {missed}
        }
        .into_any();
    }
    let n = f.jobs.len();
    let rows = f
        .jobs
        .into_iter()
        .map(|j| {
            let href = job_href(Some(&j.instance), &j.id, crate::api::DEFAULT_DAYS);
            let state = j.state;
            view! {
                <tr data-testid="found-job" data-instance=j.instance.clone() data-state=state.key()>
                    <td><a href=href>{j.name.clone()}</a>{(!j.enabled).then(|| view! { <span class="muted">" (disabled)"</span> })}</td>
                    <td>{j.instance.clone()}</td>
                    <td class="muted">{j.category.clone()}</td>
                    <td><span class=state.classes()>{state.label()}</span></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p data-testid="found-count">{format!("{n} job{} whose name holds \u{201c}{}\u{201d}", if n == 1 { "" } else { "s" }, f.query)}</p>
        <table class="jobs found">
            <thead><tr><th scope="col">"Job"</th><th scope="col">"Instance"</th><th scope="col">"Category"</th><th scope="col">"State"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {missed}
    }
    .into_any()
}
