//! Risks ahead (`sundial_engine::risks`, judged once per read): the job page's own list and the
//! "next 7 days" of the landing page and triage. Each risk says what will happen in the
//! scheduler's words, with the instants it concerns in the reader's zone.
use crate::api::{RiskRow, RisksData};
use crate::components::{BriefTime, Time};
use crate::engine::Severity;
use leptos::prelude::*;

/// How many instants a row shows before "and N more".
const SHOWN_INSTANTS: usize = 3;

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "risk risk-error",
        Severity::Warning => "risk risk-warning",
        Severity::Info => "risk risk-info",
    }
}

/// One risk: its kind as a badge, what will happen, and when.
fn risk_item(r: RiskRow, with_job: bool) -> impl IntoView {
    let more = r.at.len().saturating_sub(SHOWN_INSTANTS);
    let times = r.at.into_iter().take(SHOWN_INSTANTS).map(|t| view! { <li><Time t=t/></li> }).collect_view();
    let job = with_job.then(|| {
        let href = r.href.clone();
        view! {
            <a class="job-link" href=href>{r.job.clone()}</a>
            <span class="muted">{format!(" on {}", r.instance)}</span>
            ": "
        }
    });
    view! {
        <li class=severity_class(r.severity) data-testid="risk" data-kind=r.kind.clone()>
            <span class="risk-kind badge">{r.label.clone()}</span>
            " "
            {job}
            <span class="risk-text">{r.explanation.clone()}</span>
            {(!times.is_empty() || more > 0).then(|| view! {
                <ul class="risk-times" aria-label="When">
                    {times}
                    {(more > 0).then(|| view! { <li class="muted">{format!("and {more} more")}</li> })}
                </ul>
            })}
        </li>
    }
}

/// A job's risks ahead (its page's section `#risks`): each one, or a line saying there is none.
#[component]
pub fn JobRisks(data: RisksData) -> impl IntoView {
    let days = data.days;
    let empty = data.risks.is_empty();
    let items = data.risks.into_iter().map(|r| risk_item(r, false)).collect_view();
    view! {
        <section id="risks" class="risks" aria-labelledby="risks-title" data-testid="job-risks">
            <h2 id="risks-title">{format!("Risks ahead (next {days} days)")}</h2>
            {if empty {
                view! {
                    <p class="empty" data-testid="risks-none">
                        "None: no run falls in a DST gap or fold, no run outlasts the gap to the next, no other job collides with it, and its schedules keep running."
                    </p>
                }
                    .into_any()
            } else {
                view! { <ul class="risk-list">{items}</ul> }.into_any()
            }}
        </section>
    }
}

/// The fleet's risks over the next days (the landing page and triage): how many of each kind,
/// then the first `limit` by time, each with its job; a link to the rest.
#[component]
pub fn RisksSoon(data: RisksData, limit: usize) -> impl IntoView {
    let days = data.days;
    let total = data.risks.len();
    let counts = crate::engine::risks::KINDS
        .iter()
        .filter_map(|k| {
            let n = data.risks.iter().filter(|r| r.kind == k.key).count();
            (n > 0).then(|| format!("{n} {}", k.label))
        })
        .collect::<Vec<_>>()
        .join(" · ");
    let first = data.risks.first().and_then(|r| r.at.first().cloned());
    let items = data.risks.into_iter().take(limit).map(|r| risk_item(r, true)).collect_view();
    let unlisted = total.saturating_sub(limit);
    view! {
        <section id="risks" class="risks risks-soon" aria-labelledby="risks-soon-title" data-testid="risks-soon">
            <h2 id="risks-soon-title">{format!("The next {days} days")}</h2>
            {if total == 0 {
                view! {
                    <p class="empty" data-testid="risks-none">
                        "Nothing ahead: no DST night, collision, schedule ending or job that never runs."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <p class="summary" data-testid="risks-summary">
                        {format!("{total} risk{} ahead: {counts}", if total == 1 { "" } else { "s" })}
                        {first.map(|t| view! { "; the first " <BriefTime t=t/> })}
                        "."
                    </p>
                    <ul class="risk-list">{items}</ul>
                    {(unlisted > 0).then(|| view! {
                        <p><a href="/triage#risks" data-testid="risks-more">{format!("{unlisted} more on the triage page")}</a></p>
                    })}
                }
                    .into_any()
            }}
        </section>
    }
}
