//! One job's timeline (`/jobs/:job_id?days=7`): expected occurrences and actual runs on one
//! time axis, the job's durations (p50, p95, max, per weekday), then the runs as a table with
//! long and short runs flagged and each run's steps.
//!
//! `?at=<RFC 3339>` (a deep link, [`crate::components::job_at_href`]) marks a moment: without
//! `days`, the page answers with a redirect to the smallest window holding it and the fragment
//! of the line nearest to it (`#moment`), so the browser scrolls there without script.
use crate::api::{
    self, ApiError, AtView, DurationsView, MOMENT_ID, Progress, RunKind, RunView, TableLine, TimelineData, WEEKDAYS,
    duration_text, parse_days,
};
use crate::components::chart::{Legend, TimelineChart};
use crate::components::{
    CollapsedMisses, ErrorPanel, Header, MarkBadge, NotFound, OutcomeBadge, Sentence, Time, WindowLinks,
    instance_query, job_href,
};
use crate::engine::Severity;
use crate::engine::durations::{DurationFlag, DurationStats};
use crate::routes::jobs::state_badge;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn TimelinePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let job_id = Memo::new(move |_| params.with(|p| p.get("job_id").unwrap_or_default()));
    // Absent `days`: the server function picks (the default, or the window holding `at`).
    let days = Memo::new(move |_| query.with(|q| q.get("days").map(|d| parse_days(Some(&d))).transpose()));
    let at = Memo::new(move |_| query.with(|q| q.get("at")));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.is_empty())));
    let data = Resource::new(
        move || (instance.get(), job_id.get(), days.get(), at.get()),
        |(instance, id, days, at)| async move {
            let data = api::job_timeline(instance.clone(), id.clone(), days?, at).await?;
            // The risks ahead of the same job (none shown when they cannot be had).
            let risks = api::risks(instance, Some(id), api::RISK_DAYS).await.unwrap_or_default();
            Ok::<_, ApiError>((data, risks))
        },
    );
    view! {
        <Transition
            fallback=|| {
                view! {
                    <Header/>
                    <p class="loading">"Loading the timeline…"</p>
                }
            }
        >
            {move || Suspend::new(async move {
                match data.await {
                    Ok((d, r)) => view! { <TimelineView data=d risks=r/> }.into_any(),
                    Err(ApiError::NotFound { .. }) => {
                        let id = job_id.get_untracked();
                        view! {
                            <Title text="Job not found · Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <NotFound what=format!("There is no job with id {id} on this instance.")/>
                            </main>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        let base = format!("/jobs/{}", crate::components::encode_segment(&job_id.get_untracked()));
                        view! {
                            <Title text="Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <ErrorPanel err=e base=base/>
                            </main>
                        }
                            .into_any()
                    }
                }
            })}
        </Transition>
    }
}

/// The word and icon of a duration flag, and what it means.
fn flag_badge(flag: DurationFlag, factors: &crate::engine::durations::DurationFlags) -> impl IntoView + use<> {
    let (key, icon, word, title) = match flag {
        DurationFlag::Long { p95 } => {
            ("long", "▲", "Long", format!("Longer than p95 ({}) × {}", duration_text(p95), factors.long_factor))
        }
        DurationFlag::Short { p50 } => (
            "short",
            "▼",
            "Short",
            format!("Succeeded in under p50 ({}) × {}: suspiciously short", duration_text(p50), factors.short_factor),
        ),
    };
    view! {
        <span class=format!("dflag dflag-{key}") data-testid="duration-flag" data-flag=key title=title.clone()>
            <span aria-hidden="true">{icon}</span>
            " "
            {word}
            <span class="dur-sr">{format!(": {title}")}</span>
        </span>
    }
}

/// A run still going against the usual durations, in words.
fn progress_text(p: &Progress) -> impl IntoView + use<> {
    let usual = format!("usually {} (p50), {} (p95)", duration_text(p.p50), duration_text(p.p95));
    view! {
        <span class="progress" data-testid="run-progress">
            {format!("{} so far; {usual}. ", duration_text(p.elapsed_secs))}
            {match p.finish.clone() {
                Some(t) => view! { "Expected to finish about " <Time t=t/> " (start + p50)." }.into_any(),
                None => view! { <strong>"Past its usual time."</strong> }.into_any(),
            }}
        </span>
    }
}

/// A step's label in the middle of a sentence: "step 3 (Load)".
fn step_mid(s: &crate::api::StepView) -> String {
    s.label().replacen("Step ", "step ", 1)
}

/// The step executing now of a run still going ("step 3 (Load)"), if the scheduler says.
fn current_step(r: &RunView) -> Option<String> {
    let s = r.steps.iter().rev().find(|s| s.outcome == Some(crate::engine::RunOutcome::InProgress))?;
    Some(step_mid(s))
}

/// A run's steps, expandable without script as SSMS's Log File Viewer expands a run: one row
/// per step attempt (retries included) with its outcome, duration and own message.
fn steps_view(r: &RunView) -> Option<impl IntoView + use<>> {
    if r.steps.is_empty() {
        return None;
    }
    let n = r.steps.len();
    let going = r.outcome == crate::engine::RunOutcome::InProgress;
    let numbered = r.steps.iter().any(|s| s.id != 0 || s.outcome.is_some());
    let noun = match (numbered, n) {
        (true, 1) => "step",
        (true, _) => "steps",
        (false, 1) => "step line",
        (false, _) => "step lines",
    };
    let mut summary = format!("{n} {noun}{}", if going { " so far" } else { "" });
    if let Some(now) = current_step(r) {
        summary.push_str(&format!(", executing {now}"));
    } else if let Some(failed) = r.steps.iter().rev().find(|s| {
        s.id != 0 && matches!(s.outcome, Some(crate::engine::RunOutcome::Failed | crate::engine::RunOutcome::Canceled))
    }) {
        summary.push_str(&format!(", failed in {}", step_mid(failed)));
    }
    let items = r
        .steps
        .iter()
        .map(|s| {
            let label = s.label();
            let badge = s.outcome.map(|o| view! { <OutcomeBadge outcome=o/> " " });
            let subsystem =
                (!s.subsystem.is_empty()).then(|| view! { " " <span class="tag step-subsystem">{s.subsystem.clone()}</span> });
            let duration = (!s.duration.is_empty()).then(|| view! { " " <span class="step-duration">{s.duration.clone()}</span> });
            let retries = (s.retries > 0).then(|| {
                view! { " " <span class="step-retries">{format!("retry {}", s.retries)}</span> }
            });
            let sql = (s.sql_message_id != 0).then(|| {
                view! { " " <span class="step-sql muted">{format!("Error {}, severity {}", s.sql_message_id, s.sql_severity)}</span> }
            });
            let outcome_key = s.outcome.map(|o| format!("{o:?}").to_ascii_lowercase()).unwrap_or_default();
            view! {
                <li class="step" data-testid="run-step" data-step=s.id data-outcome=outcome_key>
                    <div class="step-head">
                        {badge}
                        {(!label.is_empty()).then(|| view! { <span class="step-name">{label.clone()}</span> })}
                        {subsystem}
                        {duration}
                        {retries}
                        {sql}
                    </div>
                    {(!s.message.is_empty()).then(|| view! { <div class="step-message">{s.message.clone()}</div> })}
                </li>
            }
        })
        .collect_view();
    Some(view! {
        <details class="steps" data-testid="run-steps">
            <summary>{summary}</summary>
            <ol class="step-list">{items}</ol>
        </details>
    })
}

fn table_row(l: TableLine, moment: bool, factors: &crate::engine::durations::DurationFlags) -> impl IntoView + use<> {
    let mut class = match l.expected {
        Some(m) => format!("line line-{}", m.key()),
        None => "line line-extra".to_string(),
    };
    if moment {
        class.push_str(" line-at");
    }
    let flag = l.run.as_ref().and_then(|r| r.flag).map(|f| flag_badge(f, factors));
    let progress = l.run.as_ref().and_then(|r| r.progress.as_ref()).map(progress_text);
    let steps = l.run.as_ref().and_then(steps_view);
    let run_now = l.run_now.clone().map(|r| {
        view! { <crate::components::RunNowBlock r=r summary="Start it again at the failed step".to_string()/> }
    });
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
        let cause = l.note.strip_prefix("Missed: ");
        view! { <CollapsedMisses c=l.collapsed.clone() last=l.at.clone() cause=cause more="the chart shows each"/> }
            .into_any()
    } else {
        (!l.note.is_empty())
            .then(|| view! { <div class="note" data-testid="note"><Sentence s=l.note.clone()/></div> })
            .into_any()
    };
    view! {
        <tr
            class=class
            id=moment.then_some(MOMENT_ID)
            data-cause=l.cause.map(|c| c.key())
            data-count=l.collapsed.count.max(1)
            data-testid=moment.then_some("moment-line")
        >
            <td class="col-time" data-label="Due / started">
                {moment.then(|| view! { <span class="at-tag"><span aria-hidden="true">"◆"</span>" Nearest to the moment"</span> " " })}
                {l.collapsed.first().cloned().filter(|_| collapsed).map(|t| view! { <Time t=t/> " – " })}
                <Time t=l.at.clone()/>
            </td>
            <td data-label="Expected">{expected}{collapsed.then(|| view! { " " <span class="count-pill">{format!("×{}", l.collapsed.count)}</span> })}</td>
            <td data-label="Run">{outcome}</td>
            <td class="col-time" data-label="Run started">{started.map(|t| view! { <Time t=t/> })}</td>
            <td class="col-num" data-label="Duration">{duration} {flag} {progress}</td>
            <td data-label="Trigger">{trigger}</td>
            <td class="col-message" data-label="Message">
                {note}
                {(!message.is_empty()).then(|| view! { <div class="message">{message}</div> })}
                {steps}
                {run_now}
            </td>
        </tr>
    }
}

#[component]
fn TimelineView(data: TimelineData, risks: crate::api::RisksData) -> AnyView {
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
    let moment_line = data.at.as_ref().and_then(|a| a.line);
    let factors = data.durations.flags.clone();
    let rows = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| table_row(l, moment_line == Some(i), &factors).into_any())
        .collect_view();
    let oldest = data.instance.window_start.clone();
    if let Some(url) = data.at.as_ref().and_then(|a| moment_redirect(a, &id, days, instance.as_deref())) {
        redirect(&url);
    }
    let window_end = data.instance.window_end.ms;
    let at_note = data.at.clone().map(|a| at_note(a, days, window_end, &id, instance.as_deref()));
    let durations = durations_section(&data.durations);
    let run_now = data.run_now.clone().map(|r| view! { <crate::components::RunNowBlock r=r/> });
    let running = data
        .runs
        .iter()
        .filter_map(|r| {
            // The chart's runs carry no steps; the table's line of the same run does.
            let step = data
                .lines
                .iter()
                .filter_map(|l| l.run.as_ref())
                .find(|l| l.start.ms == r.start.ms)
                .and_then(current_step);
            r.progress.clone().map(|p| (r.start.clone(), p, step))
        })
        .map(|(start, p, step)| {
            view! {
                <p class="running-note" data-testid="running-note">
                    <span aria-hidden="true">"▶"</span>
                    " Running now, since "
                    <Time t=start/>
                    {step.map(|s| view! { ", executing " <span data-testid="current-step">{s}</span> })}
                    ": "
                    {progress_text(&p)}
                </p>
            }
        })
        .collect_view();

    view! {
        <Title text=title/>
        <Header instance=data.instance.clone()/>
        // No "pending" fade: pages are islands, their server-rendered HTML is final, and a class
        // rendered while the server's transition was still settling stayed on forever.
        <main id="content" tabindex="-1" class="page">
            <nav class="crumbs" aria-label="Breadcrumb">
                <a href=format!("/jobs?days={days}{}", instance_query(instance.as_deref()))>"← All jobs"</a>
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
                    {crate::routes::triage::held_notes(&job.problems, false)}
                    {deadline_notes(&data.deadlines)}
                </div>
                <dl class="counters">
                    <div class={if job.failed > 0 { "counter failed hot" } else if job.failed_unknown.is_some() { "counter unknown" } else { "counter failed" }} data-testid="failed-tile">
                        <dt>"Failed"</dt>
                        // What the source cannot know is said, never 0: the reason on hover.
                        <dd data-testid="failed-count" title=job.failed_unknown.clone()>
                            {match &job.failed_unknown {
                                Some(_) => "unknown".to_string(),
                                None => job.failed.to_string(),
                            }}
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
            <crate::components::CannotTellNote scheduler=data.instance.scheduler.clone()/>
            <div class="toolbar">
                <WindowLinks current=days href=move |d| job_href(instance.as_deref(), &id, d)/>
                <crate::components::JsonLink href=crate::components::api_href(
                    &format!("instances/{{i}}/jobs/{}/timeline", crate::components::encode_segment(&job.id)),
                    &data.instance,
                )/>
                <Legend scheduler=data.instance.scheduler.clone()/>
            </div>
            {at_note}
            {running}
            {run_now}
            <TimelineChart data=data.clone()/>
            {(!data.ahead.runs.is_empty() || !data.ahead.windows.is_empty()).then(|| {
                let calendar = format!("/calendar?span=week&instance={}", crate::components::encode_segment(&data.instance.name));
                crate::routes::calendar::next_runs(data.ahead.clone(), false, calendar)
            })}
            {durations}
            {changes_section(&data.changes, days)}
            <crate::components::JobRisks data=risks/>
            <h2>"Occurrences and runs"</h2>
            <p class="summary" data-testid="timeline-summary">
                {if let Some(why) = job.failed_unknown.as_ref().filter(|_| problems == 0 && job.unknown == 0) {
                    format!("Nothing missed, late or skipped in this window; whether a run failed is unknown: {why}.")
                } else if problems == 0 && job.unknown == 0 {
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
                {data.source_since.clone().map(|t| view! {
                    " The scheduler's own history starts at " <Time t=t/>
                    "; the runs before it are Sundial's (the scheduler purged them)."
                })}
                {(hidden > 0)
                    .then(|| {
                        view! {
                            {format!(" {hidden} older routine rows (on time and succeeded in a usual time, or unknown) since ")}
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
        </main>
    }
    .into_any()
}

/// "Deadline: Ledger ready for finance, weekdays by 06:00 Europe/London · met at … / missed …",
/// one line per deadline the job must meet (`[[deadline]]`).
fn deadline_notes(deadlines: &[crate::api::DeadlineView]) -> impl IntoView + use<> {
    deadlines
        .iter()
        .map(|d| {
            let verdict = match d.last.clone() {
                Some((_, Some(met))) => {
                    view! { " · " <span class="deadline-met">"met"</span> ": the success ended " <Time t=met/> }
                        .into_any()
                }
                Some((at, None)) => {
                    view! { " · " <strong class="deadline-missed">"missed"</strong> " at " <Time t=at/> }.into_any()
                }
                None => ().into_any(),
            };
            let state = match &d.last {
                Some((_, Some(_))) => "met",
                Some((_, None)) => "missed",
                None => "none",
            };
            view! {
                <p class="deadline-note" data-testid="deadline-note" data-verdict=state>
                    <span aria-hidden="true">"◷ "</span>
                    {format!("Deadline: {}, {}", d.name, d.words)}
                    {verdict}
                </p>
            }
        })
        .collect_view()
}

/// A window in words: "day" or "7 days" (after "the last").
fn window_words(days: u32) -> String {
    if days == 1 { "day".to_string() } else { format!("{days} days") }
}

/// Where a deep link without `days` goes: the window chosen for its moment, the fragment of the
/// line nearest to it. `None` when the page stays as it is.
fn moment_redirect(a: &AtView, job_id: &str, days: u32, instance: Option<&str>) -> Option<String> {
    if !a.chosen {
        return None;
    }
    let at = a.at.as_ref()?;
    let t = chrono::DateTime::from_timestamp_millis(at.ms)?;
    let fragment = if a.line.is_some() { format!("#{MOMENT_ID}") } else { String::new() };
    Some(format!(
        "/jobs/{}?days={days}&at={}{}{fragment}",
        crate::components::encode_segment(job_id),
        t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        instance_query(instance)
    ))
}

/// Answer the page being rendered with a redirect to `url` (a no-op in the browser).
fn redirect(url: &str) {
    #[cfg(feature = "ssr")]
    if let (Some(opts), Ok(v)) = (use_context::<leptos_axum::ResponseOptions>(), http::HeaderValue::from_str(url)) {
        opts.set_status(http::StatusCode::FOUND);
        opts.insert_header(http::header::LOCATION, v);
    }
    #[cfg(not(feature = "ssr"))]
    let _ = url;
}

/// What the page says of a deep link's moment: shown (and where), outside the window, or
/// unreadable (the page's status is then 400).
fn at_note(a: AtView, days: u32, window_end: i64, job_id: &str, instance: Option<&str>) -> AnyView {
    if let Some(e) = a.error {
        crate::components::set_status(400);
        return view! {
            <p class="at-note at-note-bad" role="alert" data-testid="at-note" data-state="invalid">
                <span aria-hidden="true">"⚠"</span>
                " "
                {e}
                {format!(" Showing the last {} instead.", window_words(days))}
            </p>
        }
        .into_any();
    }
    let Some(at) = a.at else { return ().into_any() };
    if a.inside {
        let go = a.line.is_some().then(|| {
            view! {
                " The nearest row is highlighted: "
                <a href=format!("#{MOMENT_ID}")>"go to it"</a>
                "."
            }
        });
        return view! {
            <p class="at-note" data-testid="at-note" data-state="shown">
                <span aria-hidden="true">"◆"</span>
                " Shown at "
                <Time t=at/>
                ", marked on the chart."
                {go}
            </p>
        }
        .into_any();
    }
    let largest = api::WINDOW_DAYS.last().copied().unwrap_or(days);
    let text = if at.ms >= window_end {
        format!(
            " is after the instance's now, the end of every window: nothing happened there yet. Showing the last {}.",
            window_words(days)
        )
    } else if days >= largest {
        format!(
            " is outside the last {largest} days, the longest window this page shows; showing the last {days} days."
        )
    } else if days == 1 {
        " is outside the window shown, the last day.".to_string()
    } else {
        format!(" is outside the window shown, the last {days} days.")
    };
    let wider = (days < largest && at.ms < window_end).then(|| {
        let href = chrono::DateTime::from_timestamp_millis(at.ms)
            .map(|t| crate::components::job_at_href(instance, job_id, t))
            .unwrap_or_default();
        view! { " " <a href=href>"Open the window that holds it"</a> "." }
    });
    view! {
        <p class="at-note at-note-outside" data-testid="at-note" data-state="outside">
            <span aria-hidden="true">"⚠"</span>
            " "
            <Time t=at/>
            {text}
            {wider}
        </p>
    }
    .into_any()
}

fn stats_cells(s: Option<DurationStats>) -> impl IntoView + use<> {
    match s {
        Some(s) => view! {
            <td class="col-num" data-label="Runs">{s.count}</td>
            <td class="col-num" data-label="p50" data-secs=s.p50>{duration_text(s.p50)}</td>
            <td class="col-num" data-label="p95" data-secs=s.p95>{duration_text(s.p95)}</td>
            <td class="col-num" data-label="Max" data-secs=s.max>{duration_text(s.max)}</td>
        }
        .into_any(),
        None => view! {
            <td class="col-num" data-label="Runs">"0"</td>
            <td class="col-num muted" data-label="p50">"—"</td>
            <td class="col-num muted" data-label="p95">"—"</td>
            <td class="col-num muted" data-label="Max">"—"</td>
        }
        .into_any(),
    }
}

/// The job's durations over the window and per weekday, and what flags a run.
fn durations_section(d: &DurationsView) -> impl IntoView + use<> {
    let f = &d.flags;
    let rule = format!(
        "Each run is judged against the runs of its weekday, or a run on a month's last day against month-end runs, \
         when there are at least {} of them; else against every run. \
         Flagged ▲ long: longer than p95 × {}; ▼ short: a success in under p50 × {} (for jobs whose p50 is at least {}). \
         Nothing is flagged with fewer than {} completed runs.",
        crate::engine::durations::SEASON_MIN_RUNS,
        f.long_factor,
        f.short_factor,
        duration_text(f.short_min_secs),
        f.min_samples
    );
    let counted = match d.window {
        Some(s) if s.count < f.min_samples => {
            format!(" Only {} completed runs in the last {}: nothing is flagged.", s.count, window_words(d.days))
        }
        Some(_) => format!(" In this window: {} long, {} short.", d.long, d.short),
        None => String::new(),
    };
    let table = d.window.map(|all| {
        let rows = WEEKDAYS
            .iter()
            .zip(d.weekdays.iter().copied().chain(std::iter::repeat(None)))
            .map(|(name, s)| {
                view! {
                    <tr data-testid="durations-day">
                        <th scope="row">{*name}</th>
                        {stats_cells(s)}
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="durations-table" data-testid="durations-table">
                <caption>{format!("Durations of completed runs in the last {}, by the day they started (a month's last day apart): the baselines triage judges against, whatever window is shown", window_words(d.days))}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Started"</th>
                        <th scope="col" class="col-num">"Runs"</th>
                        <th scope="col" class="col-num"><abbr title="median: half the runs took at most this">"p50"</abbr></th>
                        <th scope="col" class="col-num"><abbr title="95th percentile: 95 runs in 100 took at most this">"p95"</abbr></th>
                        <th scope="col" class="col-num">"Max"</th>
                    </tr>
                </thead>
                <tbody>
                    <tr class="durations-all" data-testid="durations-all">
                        <th scope="row">"Any day"</th>
                        {stats_cells(Some(all))}
                    </tr>
                    {rows}
                    <tr data-testid="durations-month-end">
                        <th scope="row"><abbr title="runs on the last day of a month">"Month-end"</abbr></th>
                        {stats_cells(d.month_end)}
                    </tr>
                </tbody>
            </table>
        }
    });
    let latest = d.latest.as_ref().map(|b| {
        let words = format!(
            "The latest run is judged against {}: p50 {}, p95 {}.",
            b.words,
            duration_text(b.stats.p50),
            duration_text(b.stats.p95)
        );
        view! { <p class="durations-baseline" data-testid="durations-baseline">{words}</p> }
    });
    view! {
        <section class="durations" aria-labelledby="durations-h" data-testid="durations">
            <h2 id="durations-h">"Durations"</h2>
            {table.is_none().then(|| view! {
                <p class="muted" data-testid="durations-empty">
                    {format!("No run completed in the last {}: no durations to show yet.", window_words(d.days))}
                </p>
            })}
            {table}
            {latest}
            <p class="durations-rule" data-testid="durations-rule">
                "Completed runs only (not in progress, crashed, abandoned or of unknown end); nearest-rank percentiles, each a duration that happened. "
                {rule}
                {counted}
            </p>
        </section>
    }
}

/// "Changes": each change Sundial saw of the job's definition in the window, newest first,
/// before → after, when Sundial saw it and the scheduler's own modification time.
fn changes_section(changes: &[crate::api::ChangeView], days: u32) -> impl IntoView + use<> {
    let rows = changes
        .iter()
        .rev()
        .map(|c| {
            let value = |v: &Option<String>| match v {
                Some(t) => view! { <code class="change-value">{t.clone()}</code> }.into_any(),
                None => view! { <span class="muted">"—"</span> }.into_any(),
            };
            view! {
                <tr data-testid="change-row" data-kind=c.kind.clone()>
                    <td><Time t=c.seen.clone()/></td>
                    <td>{c.words.clone()}</td>
                    <td>{value(&c.before)}</td>
                    <td>{value(&c.after)}</td>
                    <td>{match c.modified.clone() {
                        Some(t) => view! { <Time t=t/> }.into_any(),
                        None => view! { <span class="muted">"not kept"</span> }.into_any(),
                    }}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="changes" id="changes" aria-labelledby="changes-h" data-testid="changes">
            <h2 id="changes-h">"Changes"</h2>
            {if changes.is_empty() {
                view! {
                    <p class="muted" data-testid="changes-empty">
                        {format!("Sundial saw no change of this job's definition in the last {}.", window_words(days))}
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <div class="changes-scroll">
                        <table class="changes-table" data-testid="changes-table">
                            <thead>
                                <tr>
                                    <th scope="col">"Seen"</th>
                                    <th scope="col">"Change"</th>
                                    <th scope="col">"Before"</th>
                                    <th scope="col">"After"</th>
                                    <th scope="col">"Modified (scheduler)"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                }
                    .into_any()
            }}
        </section>
    }
}
