//! One job's timeline (`/jobs/:job_id?days=7`): expected occurrences and actual runs on one
//! time axis, then the same as a table.
use crate::api::{self, ApiError, RunKind, TableLine, TimelineData, parse_days};
use crate::components::chart::{Legend, TimelineChart};
use crate::components::{
    CollapsedMisses, ErrorPanel, Header, MarkBadge, NotFound, OutcomeBadge, Time, WindowLinks, instance_query, job_href,
};
use crate::engine::Severity;
use crate::routes::jobs::state_badge;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn TimelinePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let job_id = Memo::new(move |_| params.with(|p| p.get("job_id").unwrap_or_default()));
    let days = Memo::new(move |_| query.with(|q| parse_days(q.get("days").as_deref())));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.is_empty())));
    let data = Resource::new(
        move || (instance.get(), job_id.get(), days.get()),
        |(instance, id, days)| async move {
            match days {
                Ok(d) => api::job_timeline(instance, id, d).await,
                Err(e) => Err(e),
            }
        },
    );
    let (pending, set_pending) = signal(false);

    view! {
        <Transition
            fallback=|| {
                view! {
                    <Header/>
                    <p class="loading">"Loading the timeline…"</p>
                }
            }
            set_pending=set_pending
        >
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => view! { <TimelineView data=d pending=pending/> }.into_any(),
                    Err(ApiError::NotFound { .. }) => {
                        let id = job_id.get_untracked();
                        view! {
                            <Title text="Job not found · Sundial"/>
                            <Header/>
                            <div class="page">
                                <NotFound what=format!("There is no job with id {id} on this instance.")/>
                            </div>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        let base = format!("/jobs/{}", crate::components::encode_segment(&job_id.get_untracked()));
                        view! {
                            <Title text="Sundial"/>
                            <Header/>
                            <div class="page">
                                <ErrorPanel err=e base=base/>
                            </div>
                        }
                            .into_any()
                    }
                }
            })}
        </Transition>
    }
}

fn table_row(l: TableLine) -> impl IntoView {
    let class = match l.expected {
        Some(m) => format!("line line-{}", m.key()),
        None => "line line-extra".to_string(),
    };
    let expected = match l.expected {
        Some(m) => view! { <MarkBadge mark=m/> }.into_any(),
        None => {
            let label = match l.run.as_ref().map(|r| r.kind) {
                Some(RunKind::Manual) => "Manual run",
                Some(RunKind::Unscheduled) => "Unscheduled run",
                _ => "Run",
            };
            view! { <span class="muted">{label}</span> }.into_any()
        }
    };
    let (outcome, started, duration, trigger, message) = match &l.run {
        Some(r) => (
            view! { <OutcomeBadge outcome=r.outcome/> }.into_any(),
            Some(r.start.clone()),
            r.duration.clone(),
            r.trigger.clone(),
            r.message.clone(),
        ),
        None => {
            (view! { <span class="muted">"—"</span> }.into_any(), None, String::new(), String::new(), String::new())
        }
    };
    let collapsed = l.collapsed.is_collapsed();
    // Consecutive misses with one cause: one row, expandable to each of them.
    let note = if collapsed {
        let cause = l.note.strip_prefix("Missed: ").unwrap_or(&l.note).to_string();
        view! { <CollapsedMisses c=l.collapsed.clone() last=l.at.clone() cause=cause more="the chart shows each"/> }
            .into_any()
    } else {
        (!l.note.is_empty()).then(|| view! { <div class="note">{l.note.clone()}</div> }).into_any()
    };
    view! {
        <tr class=class data-cause=l.cause.map(|c| c.key()) data-count=l.collapsed.count.max(1)>
            <td class="col-time" data-label="Due / started">
                {l.collapsed.first().cloned().filter(|_| collapsed).map(|t| view! { <Time t=t/> " – " })}
                <Time t=l.at.clone()/>
            </td>
            <td data-label="Expected">{expected}{collapsed.then(|| view! { " " <span class="count-pill">{format!("×{}", l.collapsed.count)}</span> })}</td>
            <td data-label="Run">{outcome}</td>
            <td class="col-time" data-label="Run started">{started.map(|t| view! { <Time t=t/> })}</td>
            <td class="col-num" data-label="Duration">{duration}</td>
            <td data-label="Trigger">{trigger}</td>
            <td class="col-message" data-label="Message">
                {note}
                {(!message.is_empty()).then(|| view! { <div class="message">{message}</div> })}
            </td>
        </tr>
    }
}

#[component]
fn TimelineView(data: TimelineData, pending: ReadSignal<bool>) -> AnyView {
    let job = data.job.clone();
    let days = data.instance.days;
    let id = job.id.clone();
    let instance =
        leptos_router::hooks::use_query_map().with_untracked(|q| q.get("instance").filter(|i| !i.is_empty()));
    let title = format!("{} · {} · Sundial", job.name, data.instance.name);
    let lines = data.lines.clone();
    let hidden = data.hidden_lines;
    let problems = job.failed + job.retries + job.missed + job.late + job.skipped;
    let diagnostics = job
        .diagnostics
        .iter()
        .map(|d| {
            let class = match d.severity {
                Severity::Error => "diag-line diag-error",
                Severity::Warning => "diag-line diag-warning",
                Severity::Info => "diag-line diag-info",
            };
            view! { <li class=class>{d.text.clone()}</li> }
        })
        .collect_view();
    let rows = lines.into_iter().map(|l| table_row(l).into_any()).collect_view();
    let oldest = data.instance.window_start.clone();

    view! {
        <Title text=title/>
        <Header instance=data.instance.clone()/>
        <div class="page" class:pending=move || pending.get()>
            <nav class="crumbs" aria-label="Breadcrumb">
                <a href=format!("/?days={days}{}", instance_query(instance.as_deref()))>"← All jobs"</a>
            </nav>
            {view! {
            <div class="job-head">
                <div>
                    <h1 data-testid="job-name">
                        {job.name.clone()}
                        {(!job.enabled).then(|| view! { " " <span class="tag tag-disabled">"disabled"</span> })}
                        " "
                        {state_badge(&job)}
                    </h1>
                    <p class="job-meta">
                        <span class="tag">{job.category.clone()}</span>
                        {job
                            .schedules
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                let note = job.schedule_notes.get(i).cloned().flatten();
                                view! {
                                    " "
                                    <span class="schedule">{s.clone()}</span>
                                    {note.map(|n| view! { " " <span class="schedule-note" data-testid="schedule-note">{format!("({n})")}</span> })}
                                }
                            })
                            .collect_view()}
                        {job.schedules.is_empty().then(|| view! { <span class="muted">" No schedule"</span> })}
                        {(!job.schedules.is_empty()).then(|| {
                            let href = format!("/simulate?instance={}&job={}", crate::components::encode_segment(&data.instance.name), crate::components::encode_segment(&job.id));
                            view! { " " <a href=href class="simulate-link" data-testid="simulate-link">"Simulate a change"</a> }
                        })}
                    </p>
                </div>
                <dl class="counters">
                    <div class={if job.failed > 0 { "counter failed hot" } else { "counter failed" }} data-testid="failed-tile">
                        <dt>"Failed"</dt>
                        <dd data-testid="failed-count">
                            {job.failed}
                            {(job.retries > 0).then(|| view! { <small>{format!("+{} retried", job.retries)}</small> })}
                        </dd>
                    </div>
                    <div class={if job.missed > 0 { "counter hot" } else if job.unknown > 0 { "counter unknown" } else { "counter" }} data-testid="missed-tile">
                        <dt>"Missed"</dt>
                        <dd data-testid="missed-count">
                            {if job.unknown > 0 && job.missed == 0 { "0 known".to_string() } else { job.missed.to_string() }}
                            {(job.unknown > 0).then(|| view! { <small data-testid="unknown-count">{format!("{} unknown", job.unknown)}</small> })}
                        </dd>
                    </div>
                    <div class={if job.late > 0 { "counter warm" } else { "counter" }}>
                        <dt>"Late"</dt>
                        <dd>{job.late}</dd>
                    </div>
                    <div class={if job.skipped > 0 { "counter skipped" } else { "counter" }}>
                        <dt>"Skipped"</dt>
                        <dd>{job.skipped}</dd>
                    </div>
                </dl>
            </div>
            }.into_any()}
            {(!job.diagnostics.is_empty()).then(|| view! { <ul class="diagnostics">{diagnostics}</ul> })}
            <div class="toolbar">
                <WindowLinks current=days href=move |d| job_href(instance.as_deref(), &id, d)/>
                <crate::components::JsonLink href=crate::components::api_href(
                    &format!("instances/{{i}}/jobs/{}/timeline", crate::components::encode_segment(&job.id)),
                    &data.instance,
                )/>
                <Legend scheduler=data.instance.scheduler.clone()/>
            </div>
            <TimelineChart data=data.clone()/>
            <h2>"Occurrences and runs"</h2>
            <p class="summary" data-testid="timeline-summary">
                {if problems == 0 && job.unknown == 0 {
                    "Nothing failed, missed, late or skipped in this window.".to_string()
                } else {
                    let mut t = format!(
                        "{} failed ({} retried), {} missed, {} late, {} skipped in this window",
                        job.failed, job.retries, job.missed, job.late, job.skipped
                    );
                    if job.unknown > 0 {
                        t.push_str(&format!("; {} due runs unknown (older than the history kept)", job.unknown));
                    }
                    t.push('.');
                    t
                }}
                {job.history_since.clone().map(|t| view! { " History kept since " <Time t=t/> "." })}
                {(hidden > 0)
                    .then(|| {
                        view! {
                            {format!(" {hidden} older routine rows (on time and succeeded, or unknown) since ")}
                            <Time t=oldest.clone()/>
                            " are not listed; every problem is."
                        }
                    })}
            </p>
            <table class="lines" data-testid="timeline-table">
                <thead>
                    <tr>
                        <th scope="col">"Due / started"</th>
                        <th scope="col">"Expected"</th>
                        <th scope="col">"Run"</th>
                        <th scope="col">"Run started"</th>
                        <th scope="col" class="col-num">"Duration"</th>
                        <th scope="col">"Trigger"</th>
                        <th scope="col">"Message"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
