//! The fleet overview (`/fleet`): every configured instance, whether Sundial can read it, and
//! since when it cannot. An unreachable instance shows its error and the time of its last good
//! read; the others keep serving.
use crate::api::duration_text;
use crate::api::{self, DiagnosticLine, FleetData, InstanceCondition, InstanceStatus};
use crate::components::{ErrorPanel, Header, Time, encode_segment};
use crate::engine::Severity;
use crate::routes::triage::TriagePanel;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// The risks ahead the landing page lists (the triage page lists them all).
const RISKS_LISTED: usize = 5;

#[component]
pub fn FleetPage() -> impl IntoView {
    // Every instance when the URL asks (`show=all`), else the first FLEET_ROWS, the
    // unreadable first; the worst PANEL_ROWS problems on top (the triage page has the rest).
    let all = use_query_map().with_untracked(|q| q.get("show").as_deref() == Some("all"));
    let data = Resource::new(|| (), move |_| api::fleet((!all).then_some(api::FLEET_ROWS)));
    let triage = Resource::new(|| (), |_| api::triage(None, Some(api::triage::PANEL_ROWS)));
    let risks = Resource::new(|| (), |_| api::risks(None, None, api::RISK_DAYS_SOON));
    view! {
        <Title text="Fleet · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <Transition fallback=|| view! { <p class="loading">"Judging the fleet…"</p> }>
                {move || Suspend::new(async move {
                    match triage.await {
                        Ok(d) => view! { <TriagePanel data=d back="/fleet".to_owned()/> }.into_any(),
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
            <Transition fallback=|| view! { <p class="loading">"Looking ahead…"</p> }>
                {move || Suspend::new(async move {
                    risks.await.ok().map(|d| view! { <crate::components::RisksSoon data=d limit=RISKS_LISTED/> })
                })}
            </Transition>
            <Transition fallback=|| view! { <p class="loading">"Loading the fleet…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(d) => fleet_view(d).into_any(),
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
        </main>
    }
}

/// The instance's condition, from its one judgment: reading, or what is wrong with it now.
fn state_badge(i: &InstanceStatus) -> impl IntoView + use<> {
    let c = i.condition;
    let class = match c {
        InstanceCondition::Reading => "badge m-ontime",
        InstanceCondition::Waiting => "badge m-upcoming",
        InstanceCondition::Maintenance => "badge m-maintenance",
        InstanceCondition::Zombie => "badge m-zombie",
        InstanceCondition::Unreachable | InstanceCondition::SchedulerStopped => "badge m-missed",
    };
    let label = c.label(&i.scheduler);
    // What the badge stands on: the stop or zombie still going, with its start.
    let since = i.incidents.iter().find(|x| x.ongoing && x.kind != api::IncidentKind::Unreachable).cloned();
    view! {
        <span class=class data-testid="instance-state" data-state=c.key()>{label}</span>
        {since.map(|x| view! { <div class="muted">"since " <Time t=x.start/></div> })}
    }
}

fn note_line(n: &DiagnosticLine) -> impl IntoView + use<> {
    let class = match n.severity {
        Severity::Error => "diag-line diag-error",
        Severity::Warning => "diag-line diag-warning",
        Severity::Info => "diag-line diag-info",
    };
    view! { <li class=class>{n.text.clone()}</li> }
}

fn instance_row(i: InstanceStatus) -> impl IntoView {
    let href = format!("/jobs?instance={}", encode_segment(&i.name));
    let unreachable = i.condition.is_problem();
    let row_id = api::links::fleet_row_id(&i.name);
    let notes = i.notes.iter().map(note_line).collect_view();
    let key = i.name.clone();
    view! {
        <tr id=row_id class:unreachable=unreachable data-testid="instance-row" data-instance=key>
            <th scope="row" data-label="Instance">
                <a href=href class="job-link">{i.name.clone()}</a>
                <div class="muted">{i.tags.join(" ")}</div>
            </th>
            <td data-label="Source">{i.kind.clone()}</td>
            <td data-label="Zone">{i.tz.clone().unwrap_or_default()}</td>
            <td data-label="State">{state_badge(&i)}</td>
            <td data-label="Last good read">
                {i.last_good.clone().map(|t| view! { <Time t=t/> }.into_any()).unwrap_or_else(|| view! { <span class="muted">"never"</span> }.into_any())}
                {i.age_secs.map(|a| view! { <div class="muted">{format!("{} ago", duration_text(a))}</div> })}
                {i.poll_secs.map(|p| view! { <div class="muted">{format!("read every {}", duration_text(p as i64))}</div> })}
            </td>
            <td class="col-num" data-label="Jobs">{i.jobs.map(|n| n.to_string()).unwrap_or_default()}</td>
            <td data-label="Findings">
                {i.error.clone().map(|e| view! { <p class="error-message" data-testid="instance-error">{e}</p> })}
                {(!i.notes.is_empty()).then(|| view! { <ul class="diagnostics">{notes}</ul> })}
            </td>
        </tr>
    }
}

fn fleet_view(d: FleetData) -> impl IntoView {
    let down = d.unreachable;
    let stopped = d
        .instances
        .iter()
        .filter(|i| i.condition.is_problem() && i.condition != InstanceCondition::Unreachable)
        .count();
    let total = d.total;
    let listed = d.instances.len();
    let rows = d.instances.into_iter().map(|i| instance_row(i).into_any()).collect_view();
    view! {
        <h1>"Fleet"</h1>
        <p class="summary" data-testid="fleet-summary">
            {format!("{total} instance{}", if total == 1 { "" } else { "s" })}
            {(down > 0).then(|| view! { " · " <span class="hot">{format!("{down} unreachable")}</span> })}
            {(stopped > 0).then(|| view! {
                " · "
                <span class="hot" data-testid="fleet-stopped">
                    {format!("{stopped} whose scheduler starts nothing")}
                </span>
            })}
            {(listed < total).then(|| view! {
                " · "
                <span data-testid="fleet-more" data-unlisted=total - listed>
                    {format!("{listed} listed (those that cannot be read first) ")}
                    <a href="/fleet?show=all">{format!("List all {total}")}</a>
                </span>
            })}
        </p>
        <table class="jobs" data-testid="fleet-table">
            <thead>
                <tr>
                    <th scope="col">"Instance"</th>
                    <th scope="col">"Source"</th>
                    <th scope="col">"Zone"</th>
                    <th scope="col">"State"</th>
                    <th scope="col">"Last good read"</th>
                    <th scope="col" class="col-num">"Jobs"</th>
                    <th scope="col">"Findings"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
