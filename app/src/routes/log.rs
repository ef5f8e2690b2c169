//! The scheduler log (`/log?instance=…&days=7[&problems=1]`): every start, end, failure, skip,
//! miss and zombie span on the instance, newest first, colour-coded by kind. Sources with a
//! log of their own (Primentra's SchedulerLog) show theirs; for the others it is derived from
//! the runs; Sundial's findings (missed, late, skipped) are always there.
use crate::api::{self, LogData, LogLine, parse_days};
use crate::components::{ErrorPanel, Header, WindowLinks, instance_query, job_href};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;

#[component]
pub fn LogPage() -> impl IntoView {
    let query = use_query_map();
    let days = Memo::new(move |_| query.with(|q| parse_days(q.get("days").as_deref())));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.is_empty())));
    let problems = Memo::new(move |_| query.with(|q| q.get("problems").is_some_and(|v| v == "1")));
    let data = Resource::new(
        move || (instance.get(), days.get(), problems.get()),
        |(instance, days, problems)| async move {
            match days {
                Ok(d) => api::instance_log(instance, d, problems).await,
                Err(e) => Err(e),
            }
        },
    );
    view! {
        <Transition fallback=|| view! { <Header/> <p class="loading">"Loading the log…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => log_view(d, instance.get_untracked()).into_any(),
                    Err(e) => view! { <Title text="Sundial"/> <Header/> <div class="page"><ErrorPanel err=e base="/log"/></div> }.into_any(),
                }
            })}
        </Transition>
    }
}

fn line_row(l: LogLine, days: u32, instance: Option<&str>) -> impl IntoView {
    let key = l.kind.key();
    let job = (!l.job_id.is_empty()).then(|| {
        let href = job_href(instance, &l.job_id, days);
        view! { <A href=href attr:class="job-link">{l.job_name.clone()}</A> }
    });
    view! {
        <tr class=format!("log-line log-{key}") data-testid="log-line" data-kind=key>
            <td class="col-time"><time>{l.at.local.clone()}</time></td>
            <td>{job.map(|j| j.into_any()).unwrap_or_else(|| view! { <span class="muted">"instance"</span> }.into_any())}</td>
            <td><span class=format!("badge log-badge log-{key}")>{key.replace('-', " ")}</span></td>
            <td class="log-text">{l.text.clone()}</td>
        </tr>
    }
}

fn log_view(d: LogData, instance: Option<String>) -> impl IntoView {
    let days = d.instance.days;
    let iq = instance_query(instance.as_deref());
    let problems_q = if d.problems_only { "&problems=1" } else { "" };
    let title = format!("{} · log · Sundial", d.instance.name);
    let total: usize = d.counts.iter().map(|(_, n)| n).sum();
    let counts = d
        .counts
        .iter()
        .map(|(k, n)| view! { <span class=format!("badge log-badge log-{k}")>{format!("{} {n}", k.replace('-', " "))}</span> " " })
        .collect_view();
    let all_href = format!("/log?days={days}{iq}");
    let problems_href = format!("/log?days={days}&problems=1{iq}");
    let iq2 = iq.clone();
    let rows = d.lines.into_iter().map(|l| line_row(l, days, instance.as_deref()).into_any()).collect_view();
    view! {
        <Title text=title/>
        <Header instance=d.instance.clone()/>
        <div class="page">
            <nav class="crumbs">
                <A href=format!("/?days={days}{iq}")>"← All jobs"</A>
            </nav>
            <h1>"Scheduler log"</h1>
            <div class="toolbar">
                <p class="summary" data-testid="log-summary">{format!("{total} events in the last {}", if days == 1 { "day".to_string() } else { format!("{days} days") })} " · " {counts}</p>
                <WindowLinks current=days href=move |n| format!("/log?days={n}{problems_q}{iq2}")/>
            </div>
            <p class="filters">
                <A href=all_href attr:class=if d.problems_only { "filter" } else { "filter active" }>"Everything"</A>
                " · "
                <A href=problems_href attr:class=if d.problems_only { "filter active" } else { "filter" } attr:data-testid="problems-only">"Problems only"</A>
            </p>
            <table class="jobs log" data-testid="log-table">
                <thead>
                    <tr>
                        <th scope="col" class="col-time">"Time"</th>
                        <th scope="col">"Job"</th>
                        <th scope="col">"Event"</th>
                        <th scope="col">"What happened"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            {(d.hidden > 0).then(|| view! { <p class="muted">{format!("{} older lines not shown: choose a shorter window or problems only.", d.hidden)}</p> })}
        </div>
    }
}
