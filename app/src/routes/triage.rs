//! Triage (`/triage`, and the top panel of the fleet page): every problem now across the
//! fleet, worst first, each with an icon and a word, since when, the evidence and a link to it
//! (the job's timeline at that moment); acknowledged and silenced problems below, with who,
//! when and their note, for the next person. Acknowledging is a plain form: the page works
//! without JavaScript.
use crate::api::triage::{PAGE_ROWS, SILENCES, kind_icon};
use crate::api::{self, ProblemRow, TriageData};
use crate::components::{ErrorPanel, Header, Sentence, Time};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn TriagePage() -> impl IntoView {
    let query = use_query_map();
    // The worst PAGE_ROWS unless the URL asks for all (`show=all`) or another number.
    let limit = query.with_untracked(|q| match q.get("show").as_deref() {
        Some("all") => None,
        Some(n) => Some(n.parse::<usize>().map_or(PAGE_ROWS, |n| n.max(1))),
        None => Some(PAGE_ROWS),
    });
    let data = Resource::new(|| (), move |_| api::triage(None, limit));
    // A code, shown as Sundial's own sentence: text in a URL is never echoed as a message.
    let ack_error =
        query.with_untracked(|q| q.get("ack_error").filter(|e| !e.is_empty())).map(|c| api::triage::ack_error_text(&c));
    view! {
        <Title text="Triage · Sundial"/>
        <Header/>
        <div class="page">
            <h1>"Triage"</h1>
            {ack_error.map(|e| view! { <p class="error-message" role="alert" data-testid="ack-error">{e}</p> })}
            <Transition fallback=|| view! { <p class="loading">"Judging the fleet…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(d) => view! { <TriagePanel data=d back="/triage".to_owned()/> }.into_any(),
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
        </div>
    }
}

/// The ranked list, its summary and the acknowledged problems; `back` is the page the
/// acknowledgement forms return to.
#[component]
pub fn TriagePanel(data: TriageData, back: String) -> impl IntoView {
    let summary = summary(&data);
    let empty = data.problems.is_empty();
    let acked = data.acknowledged_total;
    // Rows past the list's limit: counted in the summary, listed on the page that lists all.
    let unlisted = data.open_unlisted() + acked.saturating_sub(data.acknowledged.len());
    let listed = data.problems.len();
    let total = data.open_total();
    let open_rows = data.problems.into_iter().map(|p| problem_row(p, &back)).collect_view();
    let acked_rows = data.acknowledged.into_iter().map(|p| problem_row(p, &back)).collect_view();
    view! {
        <section class="triage" aria-labelledby="triage-title" data-testid="triage">
            <h2 id="triage-title" class="triage-title">"What is wrong now"</h2>
            <p class="summary" data-testid="triage-summary">{summary}</p>
            {data.store_note.map(|n| view! { <p class="muted">{n}</p> })}
            {if empty {
                view! {
                    <p class="empty" data-testid="triage-empty">
                        "Nothing needs attention: every judged instance read, every due run ran, no run failed or is running long."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <ol class="problems" data-testid="problems">{open_rows}</ol>
                }
                    .into_any()
            }}
            {(unlisted > 0).then(|| view! {
                <p class="more-rows" data-testid="triage-more" data-unlisted=unlisted>
                    {format!("The worst {listed} of {total} open problems are listed. ")}
                    <a href="/triage?show=all">{format!("List all {}", total + acked)}</a>
                </p>
            })}
            {(acked > 0).then(|| view! {
                <details class="acknowledged" data-testid="acknowledged">
                    <summary>{format!("{acked} acknowledged or silenced")}</summary>
                    <ol class="problems">{acked_rows}</ol>
                </details>
            })}
            <p class="legend-line muted">
                "Severity: ⬤ critical (an instance or its scheduler), ● error (a job missed or failed), ◐ warning, ○ info. "
                <a href="/api/triage">"JSON"</a>
            </p>
        </section>
    }
}

fn summary(d: &TriageData) -> String {
    use crate::api::triage::ProblemSeverity as S;
    let n = |s: S| d.open_by_severity[s as usize];
    let mut parts: Vec<String> =
        [(S::Critical, "critical"), (S::Error, "error"), (S::Warning, "warning"), (S::Info, "info")]
            .into_iter()
            .filter(|(s, _)| n(*s) > 0)
            .map(|(s, w)| format!("{} {w}", n(s)))
            .collect();
    if parts.is_empty() {
        parts.push("no open problem".into());
    }
    let unjudged = d.instances.saturating_sub(d.judged);
    format!(
        "{} · {} of {} instances judged ({} jobs){}",
        parts.join(", "),
        d.judged,
        d.instances,
        d.jobs,
        if unjudged > 0 { format!("; {unjudged} not judged (unreachable or stale)") } else { String::new() }
    )
}

fn severity_mark(s: api::triage::ProblemSeverity) -> &'static str {
    use crate::api::triage::ProblemSeverity as S;
    match s {
        S::Critical => "⬤",
        S::Error => "●",
        S::Warning => "◐",
        S::Info => "○",
    }
}

fn problem_row(p: ProblemRow, back: &str) -> impl IntoView + use<> {
    let kind = p.kind.key();
    let sev = p.severity.key();
    let label = p.kind.label();
    let where_ = match &p.job_name {
        Some(job) => format!("{} / {job}", p.instance),
        None => p.instance.clone(),
    };
    let count = (p.count > 1).then(|| {
        let what = match p.kind {
            api::triage::ProblemKind::Missed => "missed in a row",
            api::triage::ProblemKind::Zombie => "jobs starved",
            _ => "in a row",
        };
        view! { <span class="problem-count">{format!("{} {what}", p.count)}</span> }
    });
    let ack = p.ack.clone().map(|a| {
        view! {
            <p class="ack-note" data-testid="ack-note">
                {match &a.lapsed {
                    Some(why) => format!("Acknowledged by {}, but {why}: ", a.by),
                    None => format!("Acknowledged by {}: ", a.by),
                }}
                <q>{a.note.clone()}</q>
                " · " <Time t=a.at.clone()/>
                {a.until.clone().map(|u| view! { " · silenced until " <Time t=u/> })}
            </p>
        }
    });
    let holds = p.ack.as_ref().is_some_and(|a| a.lapsed.is_none());
    let form = (!holds && crate::api::may_acknowledge()).then(|| ack_form(&p, back));
    let undo = (holds && crate::api::may_acknowledge()).then(|| undo_form(&p, back));
    view! {
        <li class=format!("problem sev-{sev}") data-testid="problem" data-kind=kind data-severity=sev data-key=p.key.clone()>
            <div class="problem-head">
                <span class=format!("problem-kind sev-{sev}") title=format!("{sev}: {label}")>
                    <span aria-hidden="true">{severity_mark(p.severity)} " " {kind_icon(p.kind)}</span>
                    <span class="problem-sev">{format!("{sev}: ")}</span>
                    " " {label}
                </span>
                <span class="problem-where">{where_}</span>
                {count}
                <span class="problem-since muted">"since " <Time t=p.since.clone()/></span>
            </div>
            <p class="problem-evidence" data-testid="evidence">
                {if p.sentence.is_empty() { p.evidence.clone().into_any() } else { view! { <Sentence s=p.sentence.clone()/> }.into_any() }}
            </p>
            <p class="problem-links">
                <a href=p.link.clone() data-testid="evidence-link">"See the evidence →"</a>
            </p>
            {ack}
            {undo}
            {form}
        </li>
    }
}

/// Undo an acknowledgement or silence that holds: the problem is open again for everyone.
fn undo_form(p: &ProblemRow, back: &str) -> impl IntoView + use<> {
    view! {
        <form method="post" action="/triage/unack" class="unack-form" data-testid="unack-form">
            <input type="hidden" name="key" value=p.key.clone()/>
            <input type="hidden" name="episode_ms" value=p.episode_ms.to_string()/>
            <input type="hidden" name="back" value=back.to_owned()/>
            <button type="submit" data-testid="unack">"Undo acknowledgement"</button>
        </form>
    }
}

fn ack_form(p: &ProblemRow, back: &str) -> impl IntoView + use<> {
    let id = |what: &str| format!("{what}-{}", p.key.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
    let (by_id, note_id, silence_id) = (id("by"), id("note"), id("silence"));
    let options = SILENCES.iter().map(|(v, w)| view! { <option value=*v>{*w}</option> }).collect_view();
    // Signed in, the acknowledgement is in the principal's name; else the reader says who.
    let who = match crate::api::principal() {
        Some(p) => view! { <p class="ack-as">"As " <strong>{p.name}</strong></p> }.into_any(),
        None => view! {
            <label for=by_id.clone()>"Who"</label>
            <input id=by_id name="by" type="text" maxlength="80" autocomplete="name"/>
        }
        .into_any(),
    };
    view! {
        <details class="ack">
            <summary>"Acknowledge or silence…"</summary>
            <form method="post" action="/triage/ack" class="ack-form" data-testid="ack-form">
                <input type="hidden" name="key" value=p.key.clone()/>
                <input type="hidden" name="episode_ms" value=p.episode_ms.to_string()/>
                <input type="hidden" name="back" value=back.to_owned()/>
                {who}
                <label for=note_id.clone()>"Note for the next person"</label>
                <textarea id=note_id name="note" rows="3" maxlength="500" required></textarea>
                <label for=silence_id.clone()>"Hold"</label>
                <select id=silence_id name="silence">{options}</select>
                <button type="submit">"Acknowledge"</button>
            </form>
        </details>
    }
}
