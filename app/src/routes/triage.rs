//! Triage (`/triage`, and the top panel of the fleet page): every problem now across the
//! fleet, worst first, each with an icon and a word, since when, the evidence and a link to it
//! (the job's timeline at that moment); acknowledged and silenced problems below, with who,
//! when and their note, for the next person. Acknowledging is a plain form: the page works
//! without JavaScript.
use crate::api::forms::Field;
use crate::api::triage::ProblemSeverity;
use crate::api::triage::{MaintenanceData, PAGE_ROWS, SILENCES, WINDOW_LENGTHS, WindowRow};
use crate::api::{self, ProblemRow, TriageData};
use crate::components::{BriefTime, ErrorPanel, Header, Sentence, Time};
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
    let risks = Resource::new(|| (), |_| api::risks(None, None, api::RISK_DAYS_SOON));
    // A code, shown as Sundial's own sentence: text in a URL is never echoed as a message.
    let ack_error =
        query.with_untracked(|q| q.get("ack_error").filter(|e| !e.is_empty())).map(|c| api::triage::ack_error_text(&c));
    view! {
        <Title text="Triage · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <h1>"Triage"</h1>
            {ack_error.map(|e| view! { <p class="error-message" role="alert" data-testid="ack-error">{e}</p> })}
            <MaintenanceError/>
            <Transition fallback=|| view! { <p class="loading">"Judging the fleet…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(d) => {
                            let windows = d.maintenance.clone();
                            view! {
                                <TriagePanel data=d back="/triage".to_owned()/>
                                <MaintenanceSection data=windows back="/triage".to_owned()/>
                            }
                                .into_any()
                        }
                        Err(e) => view! { <ErrorPanel err=e/> }.into_any(),
                    }
                })}
            </Transition>
            <Transition fallback=|| view! { <p class="loading">"Looking ahead…"</p> }>
                {move || Suspend::new(async move {
                    risks.await.ok().map(|d| view! { <crate::components::RisksSoon data=d limit=usize::MAX/> })
                })}
            </Transition>
        </main>
    }
}

/// The ranked list, its summary and the acknowledged problems; `back` is the page the
/// acknowledgement forms return to.
#[component]
pub fn TriagePanel(data: TriageData, back: String) -> impl IntoView {
    let summary = summary(&data);
    let empty = data.problems.is_empty();
    let acked = data.held_total();
    let held_words = data.held_words();
    // Rows past the list's limit: counted in the summary, listed on the page that lists all.
    let unlisted = data.open_unlisted() + acked.saturating_sub(data.acknowledged.len());
    let done = done_line(&data, &back);
    let listed = data.problems.len();
    let total = data.open_total();
    let open_rows = data.problems.into_iter().map(|p| problem_row(p, &back)).collect_view();
    let acked_rows = data.acknowledged.into_iter().map(|p| problem_row(p, &back)).collect_view();
    view! {
        <section class="triage" aria-labelledby="triage-title" data-testid="triage">
            <h2 id="triage-title" class="triage-title">"What is wrong now"</h2>
            {done}
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
                    <summary>{held_words}</summary>
                    <ol class="problems">{acked_rows}</ol>
                </details>
            })}
            <p class="legend-line muted">
                {format!(
                    "Severity: {} critical (an instance or its scheduler), {} error (a job missed or failed), {} warning, {} info. ",
                    ProblemSeverity::Critical.mark(),
                    ProblemSeverity::Error.mark(),
                    ProblemSeverity::Warning.mark(),
                    ProblemSeverity::Info.mark(),
                )}
                <a href="/api/triage">"JSON"</a>
            </p>
        </section>
    }
}

/// What the last acknowledgement form did (`acked=<key>` or `unacked=<key>` in the URL), said
/// where the problem's card was, with an undo: the problem named from the page's own data,
/// never from the URL.
fn done_line(data: &TriageData, back: &str) -> Option<impl IntoView + use<>> {
    let (acked, unacked) = use_query_map().with_untracked(|q| (q.get("acked"), q.get("unacked")));
    let find = |list: &[ProblemRow], key: &Option<String>| {
        key.as_ref().and_then(|k| list.iter().find(|p| &p.key == k)).cloned()
    };
    let where_ = |p: &ProblemRow| match &p.job_name {
        Some(job) => format!("{} / {job}", p.instance),
        None => p.instance.clone(),
    };
    if let Some(p) = find(&data.acknowledged, &acked) {
        let a = p.ack.clone()?;
        let undo = crate::api::may_acknowledge().then(|| undo_form(&p, back));
        return Some(
            view! {
                <div class="ack-done" role="status" data-testid="ack-done">
                    <p>
                        {if a.until.is_some() { "Silenced " } else { "Acknowledged " }}
                        <strong>{where_(&p)}</strong>
                        {a.until.clone().map(|u| view! { " until " <Time t=u/> })}
                        ": " <q>{a.note.clone()}</q>
                        " · it is listed under "
                        <a href=format!("#{}", card_id(&p.key))>{data.held_words()}</a>
                        " below."
                    </p>
                    {undo}
                </div>
            }
            .into_any(),
        );
    }
    let p = find(&data.problems, &unacked)?;
    Some(
        view! {
            <div class="ack-done" role="status" data-testid="ack-done">
                <p>"Undone: " <strong>{where_(&p)}</strong> " is open again."</p>
            </div>
        }
        .into_any(),
    )
}

/// A problem's card's id (its key made safe for an id).
fn card_id(key: &str) -> String {
    format!("problem-{}", key.replace(|c: char| !c.is_ascii_alphanumeric(), "-"))
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

fn problem_row(p: ProblemRow, back: &str) -> impl IntoView + use<> {
    let kind = p.kind.key();
    let sev = p.severity.key();
    let label = p.kind.label();
    let where_ = match &p.job_name {
        Some(job) => format!("{} / {job}", p.instance),
        None => p.instance.clone(),
    };
    let count = (p.count > 1).then(|| {
        view! { <span class="problem-count">{format!("{} {}", p.count, p.kind.info().row_count)}</span> }
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
    let held = p.maintenance.clone().map(|m| {
        view! {
            <p class="maint-note" data-testid="maint-note">
                {format!("In maintenance ({}) until ", m.name)}
                <Time t=m.until/>
                ": no alert unless it is still open when the window ends."
            </p>
        }
    });
    let run_now = p.run_now.clone().map(|r| {
        let summary = if r.statement.is_some() { "Run it now: the statement" } else { "Run it now: what to do" };
        view! { <crate::components::RunNowBlock r=r summary=summary.to_string()/> }
    });
    let holds = p.ack.as_ref().is_some_and(|a| a.lapsed.is_none());
    let form = (!holds && crate::api::may_acknowledge()).then(|| ack_form(&p, back));
    let undo = (holds && crate::api::may_acknowledge()).then(|| undo_form(&p, back));
    view! {
        <li class=format!("problem sev-{sev}") id=card_id(&p.key) data-testid="problem" data-kind=kind data-severity=sev data-key=p.key.clone()>
            <div class="problem-head">
                <span class=format!("problem-kind sev-{sev}") title=format!("{sev}: {label}")>
                    <span aria-hidden="true">{p.severity.mark()} " " {p.kind.icon()}</span>
                    <span class="problem-sev">{format!("{sev}: ")}</span>
                    " " {label}
                </span>
                <span class="problem-where">{where_}</span>
                {count}
                <span class="problem-since muted" data-testid="problem-since">
                    "since " <BriefTime t=p.since.clone()/>
                    {(!p.since_ago.is_empty()).then(|| format!(" ({})", p.since_ago))}
                </span>
            </div>
            <p class="problem-evidence" data-testid="evidence">
                {if p.sentence.is_empty() { p.evidence.clone().into_any() } else { view! { <Sentence s=p.sentence.clone()/> }.into_any() }}
            </p>
            <p class="problem-links">
                <a href=p.link.clone() data-testid="evidence-link">"See the evidence →"</a>
            </p>
            {run_now}
            {held}
            {ack}
            {undo}
            {form}
        </li>
    }
}

/// Who holds these problems and why, as the triage card says it: "Acknowledged by Ana · 12:05:
/// “host retired”" (or "Silenced by … until …"), one line a problem someone holds; `where_`
/// names the instance and job (for a list of an instance's problems). Every view of a job or
/// an instance shows it, so a colleague arriving from an alert reads the note there.
pub fn held_notes(problems: &[ProblemRow], where_: bool) -> Option<impl IntoView + use<>> {
    let lines: Vec<_> = problems
        .iter()
        .filter_map(|p| p.ack.clone().filter(|a| a.lapsed.is_none()).map(|a| (p.clone(), a)))
        .map(|(p, a)| {
            let whom = where_.then(|| match &p.job_name {
                Some(job) => format!("{} / {job}: ", p.instance),
                None => format!("{}: ", p.instance),
            });
            let verb = if a.until.is_some() { "Silenced by " } else { "Acknowledged by " };
            view! {
                <p class="ack-note" data-testid="held-note" data-key=p.key.clone()>
                    {whom}
                    {format!("{verb}{} · ", a.by)}
                    <Time t=a.at.clone()/>
                    {a.until.clone().map(|u| view! { " · until " <Time t=u/> })}
                    ": " <q>{a.note.clone()}</q>
                    {format!(" ({})", p.kind.label().to_lowercase())}
                </p>
            }
        })
        .collect();
    (!lines.is_empty()).then(|| lines.collect_view())
}

/// Why a maintenance form was refused (`maint_error`, a code: Sundial's own sentence for it,
/// never the URL's text), on every page whose forms go back there.
#[component]
pub fn MaintenanceError() -> impl IntoView {
    let error = use_query_map()
        .with_untracked(|q| q.get("maint_error").filter(|e| !e.is_empty()))
        .map(|c| api::triage::maintenance_error_text(&c));
    error.map(|e| view! { <p class="error-message" role="alert" data-testid="maint-error">{e}</p> })
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
    let who = who_field(by_id);
    view! {
        <details class="ack">
            <summary>"Acknowledge or silence…"</summary>
            <form method="post" action="/triage/ack" class="ack-form" data-testid="ack-form">
                <input type="hidden" name="key" value=p.key.clone()/>
                <input type="hidden" name="episode_ms" value=p.episode_ms.to_string()/>
                <input type="hidden" name="back" value=back.to_owned()/>
                {who}
                <label for=note_id.clone()>"Note for the next person"</label>
                <textarea id=note_id name="note" rows="3" maxlength=Field::Note.max() required></textarea>
                <label for=silence_id.clone()>"Hold"</label>
                <select id=silence_id name="silence">{options}</select>
                <button type="submit">"Acknowledge"</button>
            </form>
        </details>
    }
}

/// The maintenance windows open now, to come and just ended, with who added or ended them and
/// why; an admin adds one or ends one here (plain forms: the page works without JavaScript).
#[component]
pub fn MaintenanceSection(data: MaintenanceData, back: String) -> impl IntoView {
    let admin = crate::api::may_acknowledge();
    let empty = data.windows.is_empty();
    let rows = data.windows.into_iter().map(|w| window_row(w, admin, &back)).collect_view();
    let add = admin.then(|| add_form(&data.instances, &data.start_example, &back));
    view! {
        <section class="maintenance" aria-labelledby="maint-title" data-testid="maintenance">
            <h2 id="maint-title">"Maintenance windows"</h2>
            <p class="muted">
                "Inside a window, a due run that did not happen counts as maintenance, not missed; a problem that opens there alerts only if it is still open when the window ends."
            </p>
            {if empty {
                view! { <p class="empty" data-testid="maint-empty">"No window is open, none is planned for the next 7 days, none ended in the last day."</p> }.into_any()
            } else {
                view! { <ol class="windows" data-testid="windows">{rows}</ol> }.into_any()
            }}
            <p class="more-rows"><a href="/maintenance" data-testid="all-windows">"Every window, and what each changed →"</a></p>
            {add}
        </section>
    }
}

/// One occurrence of a window, with its end form for an admin while it is open or planned (the
/// triage page and the maintenance page list them alike).
pub fn window_row(w: WindowRow, admin: bool, back: &str) -> impl IntoView + use<> {
    let state = w.state.clone();
    let source = match (&w.added, w.line) {
        (Some((by, at)), _) => {
            view! { "Added by " <strong>{by.clone()}</strong> " · " <Time t=at.clone()/> }.into_any()
        }
        (None, Some(line)) => format!("Declared in the fleet file (line {line})").into_any(),
        (None, None) => ().into_any(),
    };
    let ended = w.ended.clone().map(|(by, at, why)| {
        view! {
            <p class="window-ended" data-testid="window-ended">
                "Ended by " <strong>{by}</strong> " · " <Time t=at/> ": " <q>{why}</q>
            </p>
        }
    });
    let end_form = (admin && matches!(state.as_str(), "open" | "planned")).then(|| {
        let label = if state == "open" { "End now" } else { "Cancel it" };
        let why_id = format!("why-{}-{}", w.id.replace(|c: char| !c.is_ascii_alphanumeric(), "-"), w.start_ms);
        let by_id = format!("by-{why_id}");
        let who = who_field(by_id);
        view! {
            <details class="window-end">
                <summary>{format!("{label}…")}</summary>
                <form method="post" action="/triage/maintenance/end" data-testid="window-end-form">
                    <input type="hidden" name="id" value=w.id.clone()/>
                    <input type="hidden" name="start_ms" value=w.start_ms.to_string()/>
                    <input type="hidden" name="back" value=back.to_owned()/>
                    {who}
                    <label for=why_id.clone()>"Why"</label>
                    <input id=why_id name="why" type="text" maxlength=Field::Why.max() required/>
                    <button type="submit">{label}</button>
                </form>
            </details>
        }
    });
    view! {
        <li class=format!("window window-{state}") data-testid="window" data-state=state.clone() data-id=w.id.clone()>
            <div class="window-head">
                <span class=format!("window-state window-state-{state}")>{state.clone()}</span>
                " " <strong class="window-name">{w.name.clone()}</strong>
                " · " <span class="window-scope">{w.scope.clone()}</span>
                " · " <span class="muted">{w.recurs.clone()}</span>
            </div>
            <p class="window-when"><Time t=w.start.clone()/> " → " <Time t=w.end.clone()/></p>
            {(!w.reason.is_empty()).then(|| view! { <p class="window-reason">"Why: " <q>{w.reason.clone()}</q></p> })}
            <p class="window-source muted">{source}</p>
            {w.runs.map(|n| view! {
                <p class="window-runs" data-testid="window-runs" data-runs=n>
                    {match n {
                        0 => "It changed no run: no due run was missed inside it.".to_owned(),
                        1 => "It made 1 due run maintenance (not missed).".to_owned(),
                        n => format!("It made {n} due runs maintenance (not missed)."),
                    }}
                </p>
            })}
            {ended}
            {end_form}
        </li>
    }
}

fn add_form(instances: &[String], example: &str, back: &str) -> impl IntoView + use<> {
    // A refused form comes back with what was typed (`mw_name`, …) and why (`maint_error`): shown
    // again, open, the field at fault marked and the reason under it.
    let (typed, error) = use_query_map().with_untracked(|q| {
        let typed = |k: &str| q.get(k).unwrap_or_default();
        let keys = ["mw_name", "mw_reason", "mw_instance", "mw_jobs", "mw_start", "mw_zone", "mw_duration"];
        (keys.map(typed), q.get("maint_error").filter(|e| !e.is_empty()))
    });
    let [name, reason, instance, jobs, start, zone, duration] = typed;
    let refused = error.is_some() && !(name.is_empty() && reason.is_empty());
    let at_fault = error.as_deref().and_then(crate::api::forms::Refusal::from_code).and_then(|r| r.field());
    let message = error.filter(|_| refused).map(|c| api::triage::maintenance_error_text(&c));
    let invalid = move |f: Field| (at_fault == Some(f)).then_some("true");
    let described = move |f: Field| (at_fault == Some(f)).then_some("mw-error");
    // The reason under the field at fault (else under the form's first field).
    let error_under = move |f: Option<Field>| {
        (at_fault == f).then(|| message.clone()).flatten().map(|m| {
            view! { <p class="field-error" id="mw-error" data-testid="mw-error">{m}</p> }
        })
    };
    let duration = if duration.is_empty() { "2h".to_owned() } else { duration };
    let options = instances
        .iter()
        .map(|i| view! { <option value=i.clone() selected=*i == instance>{i.clone()}</option> })
        .collect_view();
    let lengths = WINDOW_LENGTHS
        .iter()
        .map(|(v, w)| view! { <option value=*v selected=*v == duration>{*w}</option> })
        .collect_view();
    let who = who_field("mw-by".to_owned());
    let zone = if zone.is_empty() { "UTC".to_owned() } else { zone };
    view! {
        <details class="window-add" open=refused>
            <summary>"Add a maintenance window…"</summary>
            <form method="post" action="/triage/maintenance" class="window-form" data-testid="window-add-form">
                <input type="hidden" name="back" value=back.to_owned()/>
                {error_under(None)}
                {who}
                <label for="mw-name">"Name"</label>
                <input id="mw-name" name="name" type="text" maxlength=Field::Name.max() required value=name
                    aria-invalid=invalid(Field::Name) aria-describedby=described(Field::Name)/>
                {error_under(Some(Field::Name))}
                <label for="mw-reason">"Why"</label>
                <input id="mw-reason" name="reason" type="text" maxlength=Field::Reason.max() required value=reason
                    aria-invalid=invalid(Field::Reason) aria-describedby=described(Field::Reason)/>
                {error_under(Some(Field::Reason))}
                <label for="mw-instance">"Over"</label>
                <select id="mw-instance" name="instance" aria-invalid=invalid(Field::Instance) aria-describedby=described(Field::Instance)>
                    <option value="">"the whole fleet"</option>
                    {options}
                </select>
                {error_under(Some(Field::Instance))}
                <label for="mw-jobs">"Only these jobs (names, comma-separated; empty: all)"</label>
                <input id="mw-jobs" name="jobs" type="text" maxlength=Field::Jobs.max() value=jobs
                    aria-invalid=invalid(Field::Jobs) aria-describedby=described(Field::Jobs)/>
                {error_under(Some(Field::Jobs))}
                <label for="mw-start">
                    {format!(
                        "From (empty: now; else like {example}, within 7 days; a past window goes in the fleet file)"
                    )}
                </label>
                <input id="mw-start" name="start" type="text" maxlength=Field::Start.max() placeholder="now" value=start
                    aria-invalid=invalid(Field::Start) aria-describedby=described(Field::Start)/>
                {error_under(Some(Field::Start))}
                <label for="mw-zone">"In the zone"</label>
                <input id="mw-zone" name="time_zone" type="text" maxlength=Field::Zone.max() value=zone
                    aria-invalid=invalid(Field::Zone) aria-describedby=described(Field::Zone)/>
                {error_under(Some(Field::Zone))}
                <label for="mw-duration">"For"</label>
                <select id="mw-duration" name="duration">{lengths}</select>
                <button type="submit">"Add the window"</button>
            </form>
        </details>
    }
}

/// Who acts, in a triage form: signed in, the principal's name (the server takes it from the
/// session); else a field the reader fills (`id`).
fn who_field(id: String) -> AnyView {
    match crate::api::principal() {
        Some(p) => view! { <p class="ack-as">"As " <strong>{p.name}</strong></p> }.into_any(),
        None => view! {
            <label for=id.clone()>"Who"</label>
            <input id=id name="by" type="text" maxlength=Field::By.max() autocomplete="name"/>
        }
        .into_any(),
    }
}
