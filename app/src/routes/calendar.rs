//! The fleet calendar (`/calendar?span=day|week&at=DATE&instance=…`): a day or a week of
//! every job's past runs (with their outcome) and the runs expected ahead (hollow), hour by
//! hour, "now" marked; how many run at once; maintenance windows, DST changes, where the
//! scheduler's own next run differs, and risks. Each entry links to its job at that moment.
//! Server-rendered, no island: the links are the navigation.
use crate::api::{self, ApiError, CalDay, CalEntry, CalHour, CalendarData};
use crate::components::{ErrorPanel, Header, NotFound};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn CalendarPage() -> impl IntoView {
    let query = use_query_map();
    let args = Memo::new(move |_| {
        query.with(|q| {
            let get = |k: &str| q.get(k).filter(|v| !v.is_empty());
            (get("span"), get("at"), get("instance"))
        })
    });
    let data = Resource::new(
        move || args.get(),
        |(span, at, instance)| async move { api::calendar(span, at, instance).await },
    );
    view! {
        <Suspense fallback=|| view! { <Header/> <p class="loading">"Loading the calendar…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => view! { <CalendarView data=d/> }.into_any(),
                    Err(ApiError::NotFound { .. }) => {
                        let name = args.get_untracked().2.unwrap_or_default();
                        view! {
                            <Title text="Instance not found · Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <NotFound what=format!("There is no instance named {name:?}.")/>
                            </main>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        view! {
                            <Title text="Calendar · Sundial"/>
                            <Header/>
                            <main id="content" tabindex="-1" class="page">
                                <h1>"Calendar"</h1>
                                <ErrorPanel err=e base="/calendar".to_string()/>
                            </main>
                        }
                            .into_any()
                    }
                }
            })}
        </Suspense>
    }
}

fn entry_view(e: CalEntry, fleet: bool) -> impl IntoView {
    let time = e.at.local.get(11..16).unwrap_or_default().to_owned();
    let class = format!("cal-e cal-k-{} {}", e.kind, e.class);
    let count = (e.count > 1).then(|| view! { <span class="cal-n">{format!("×{}", e.count)}</span> });
    let agrees = e.reported.is_some().then(|| view! { <span class="cal-ok" aria-hidden="true">"✓"</span> });
    let who = if fleet { format!("{} · {}", e.instance, e.job) } else { e.job.clone() };
    view! {
        <li>
            <a class=class href=e.href title=e.title data-testid="cal-entry" data-kind=e.kind data-job=e.job_id>
                <span class="cal-dot" aria-hidden="true"></span>
                <span class="visually-hidden">{format!("{}: ", e.label)}</span>
                <span class="cal-t">{time}</span>
                <span class="cal-j">{who}</span>
                {count}
                {agrees}
            </a>
        </li>
    }
}

fn hour_view(h: CalHour, now_text: String, fleet: bool) -> impl IntoView {
    let empty =
        h.entries.is_empty() && h.maintenance.is_empty() && h.dst.is_none() && h.now.is_none() && h.risks.is_empty();
    let mut class = String::from("cal-hour");
    for (on, c) in [
        (h.ahead, " cal-ahead"),
        (!h.maintenance.is_empty(), " cal-maint"),
        (h.dst.is_some(), " cal-dsth"),
        (h.now.is_some(), " cal-nowh"),
        (empty, " cal-empty"),
    ] {
        if on {
            class.push_str(c);
        }
    }
    let peak = h.peak;
    let conc = (peak >= 2).then(|| {
        let t = format!("Up to {peak} runs at once in this hour");
        let class = if peak >= 4 { "cal-conc cal-conc-hi" } else { "cal-conc" };
        view! { <span class=class title=t.clone() aria-label=t data-testid="cal-conc">{format!("{peak} at once")}</span> }
    });
    let dst = h.dst.map(|t| view! { <p class="cal-dst-note" data-testid="cal-dst">"⇅ " {t}</p> });
    let maint = (!h.maintenance.is_empty()).then(
        || view! { <p class="cal-maint-note" data-testid="cal-maint">"Maintenance: " {h.maintenance.join("; ")}</p> },
    );
    let risks = h
        .risks
        .into_iter()
        .map(|r| view! { <p class="cal-risk" data-testid="cal-risk" data-kind=r.kind>"⚠ " {r.explanation}</p> })
        .collect_view();
    let now_at = h.now;
    let mut items: Vec<AnyView> = Vec::new();
    for (i, e) in h.entries.into_iter().enumerate() {
        if now_at == Some(i) {
            items.push(view! { <li class="cal-now" data-testid="cal-now">{now_text.clone()}</li> }.into_any());
        }
        items.push(entry_view(e, fleet).into_any());
    }
    if let Some(i) = now_at
        && i >= items.len()
    {
        items.push(view! { <li class="cal-now" data-testid="cal-now">{now_text.clone()}</li> }.into_any());
    }
    let more = (h.more > 0).then(|| {
        let text = format!("and {} more", h.more);
        match h.more_href {
            Some(href) => view! { <a class="cal-more" href=href>{text}" (the instance timeline)"</a> }.into_any(),
            None => view! { <span class="cal-more">{text}</span> }.into_any(),
        }
    });
    let list = (!items.is_empty()).then(|| view! { <ul class="cal-entries">{items}</ul> });
    view! {
        <li class=class data-testid="cal-hour" data-ms=h.start.ms>
            <div class="cal-hour-head">
                <span class="cal-hl">{h.label}</span>
                {conc}
            </div>
            {dst}
            {maint}
            {risks}
            {list}
            {more}
        </li>
    }
}

fn day_view(d: CalDay, now_text: String, fleet: bool) -> impl IntoView {
    let id = format!("cal-day-{}", d.date);
    let labelled = id.clone();
    let class = if d.today { "cal-col cal-today" } else { "cal-col" };
    let heading = if d.today { format!("{} (today)", d.label) } else { d.label.clone() };
    let count = if d.count == 0 { "nothing".to_owned() } else { format!("{} entries", d.count) };
    let hours = d.hours.into_iter().map(|h| hour_view(h, now_text.clone(), fleet)).collect_view();
    view! {
        <section class=class aria-labelledby=labelled data-testid="cal-day" data-date=d.date>
            <h2 class="cal-day-h" id=id>{heading} <span class="cal-day-n">{count}</span></h2>
            <ol class="cal-hours">{hours}</ol>
        </section>
    }
}

#[component]
fn CalendarView(data: CalendarData) -> AnyView {
    let fleet = data.instance.is_none();
    let week = data.span == "week";
    let scope = data.instance.clone().unwrap_or_else(|| "every instance".into());
    let title = format!("Calendar · {} · Sundial", data.title);
    let summary = format!(
        "{} · {}: {} runs, {} of them not as planned, and {} expected ahead. Up to {} at once. Times in {}.",
        data.title, scope, data.runs, data.bad, data.expected, data.peak, data.zone
    );
    let now_text = format!("Now · {}", data.now.local.get(11..16).unwrap_or_default());
    let span_link = |href: String, label: &'static str, on: bool| {
        view! { <a class="button cal-span" href=href aria-current=on.then_some("page")>{label}</a> }
    };
    let (prev, next) = if week { ("← Previous week", "Next week →") } else { ("← Previous day", "Next day →") };
    let options = data
        .instances
        .iter()
        .map(|i| {
            let selected = data.instance.as_deref() == Some(i.as_str());
            view! { <option value=i.clone() selected=selected>{i.clone()}</option> }
        })
        .collect_view();
    let notes = data.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view();
    let notes = (!data.notes.is_empty()).then(|| view! { <ul class="cal-notes" data-testid="cal-notes">{notes}</ul> });
    let differs = (!data.differs.is_empty()).then(|| {
        let rows = data
            .differs
            .iter()
            .map(|d| {
                view! {
                    <li data-testid="cal-differs-row">
                        <a href=d.href.clone()>{format!("{} · {}", d.instance, d.job)}</a>": " {d.text.clone()}
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="cal-panel cal-differs" data-testid="cal-differs" aria-labelledby="cal-differs-h">
                <h2 id="cal-differs-h">"Where the scheduler's own next run differs"</h2>
                <ul>{rows}</ul>
            </section>
        }
    });
    let agrees = (data.agrees > 0).then(|| {
        format!(
            " The scheduler's own next-run column agrees with Sundial's next expected run for {} jobs (✓).",
            data.agrees
        )
    });
    let dst = (!data.dst.is_empty()).then(|| {
        let rows = data
            .dst
            .iter()
            .map(|d| view! { <li>{format!("{} — {}: {}", d.at.zoned(), d.instances.join(", "), d.text)}</li> })
            .collect_view();
        view! {
            <section class="cal-panel cal-dst" data-testid="cal-dst-list" aria-labelledby="cal-dst-h">
                <h2 id="cal-dst-h">"DST changes in this span"</h2>
                <ul>{rows}</ul>
            </section>
        }
    });
    let maint = (!data.maintenance.is_empty()).then(|| {
        let rows = data
            .maintenance
            .iter()
            .map(|m| {
                let word = match m.state.as_str() {
                    "planned" => "Planned",
                    "now" => "Now",
                    _ => "Past",
                };
                let jobs = if m.jobs.is_empty() { "every job".to_owned() } else { m.jobs.join(", ") };
                view! {
                    <li data-state=m.state.clone()>
                        <span class=format!("cal-state cal-state-{}", m.state)>{word}</span>
                        {format!(" {} · {} · {} to {} · {jobs}", m.instance, m.label, m.start.zoned(), m.end.zoned())}
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="cal-panel cal-mlist" data-testid="cal-maint-list" aria-labelledby="cal-maint-h">
                <h2 id="cal-maint-h">"Maintenance windows"</h2>
                <ul>{rows}</ul>
            </section>
        }
    });
    let days = data.days.into_iter().map(|d| day_view(d, now_text.clone(), fleet)).collect_view();
    let grid = if week { "cal-days cal-week" } else { "cal-days cal-oneday" };
    view! {
        <Title text=title/>
        <Header/>
        <main id="content" tabindex="-1" class="page page-wide cal">
            <div class="toolbar">
                <h1>"Calendar"</h1>
            </div>
            <p class="summary" data-testid="cal-summary">{summary}{agrees}</p>
            <nav class="cal-nav" aria-label="Calendar dates">
                <a class="button" href=data.prev_href data-testid="cal-prev">{prev}</a>
                <a class="button" href=data.today_href data-testid="cal-today">"Today"</a>
                <a class="button" href=data.next_href data-testid="cal-next">{next}</a>
                <span class="cal-spans">
                    {span_link(data.day_href, "Day", !week)}
                    {span_link(data.week_href, "Week", week)}
                </span>
            </nav>
            <form class="cal-pick" method="get" action="/calendar">
                <input type="hidden" name="span" value=data.span.clone()/>
                <input type="hidden" name="at" value=data.first.clone()/>
                <label for="cal-instance">"Instance"</label>
                <select id="cal-instance" name="instance" data-testid="cal-instance">
                    <option value="" selected=fleet>"every instance"</option>
                    {options}
                </select>
                <button type="submit" class="button">"Show"</button>
            </form>
            {notes}
            {differs}
            {dst}
            {maint}
            <div class=grid data-testid="cal-days">{days}</div>
            <ul class="legend cal-legend" aria-label="Legend of the calendar">
                <li><span class="cal-e o-succeeded cal-sw"><span class="cal-dot"></span></span>"Ran: its outcome's colour, as on the job's chart"</li>
                <li><span class="cal-e cal-mk-missed cal-sw"><span class="cal-dot"></span></span>"Due, no run (missed; skipped; maintenance)"</li>
                <li><span class="cal-e cal-k-expected expected cal-sw"><span class="cal-dot"></span></span>"Expected ahead (hollow, dashed)"</li>
                <li><span class="cal-ok">"✓"</span>" The scheduler's own next run says the same"</li>
                <li><span class="cal-conc">"3 at once"</span>" The most runs going at once in the hour"</li>
                <li><span class="cal-sw cal-sw-maint"></span>"Maintenance window"</li>
                <li>"⇅ A DST change; ⚠ a risk ahead"</li>
            </ul>
        </main>
    }
    .into_any()
}

/// "Next runs": what comes after now on a job's page (`job_names`: false) or an instance's
/// timeline: the next runs expected, each a link to its job at that moment, and the
/// maintenance windows open now or planned ahead; a link to the calendar of the days ahead.
pub fn next_runs(ahead: api::Ahead, job_names: bool, calendar: String) -> impl IntoView {
    let runs = ahead
        .runs
        .into_iter()
        .map(|r| {
            let what = if job_names { format!("{} · ", r.job) } else { String::new() };
            view! {
                <li data-testid="next-run">
                    <a href=r.href>{what}{r.at.zoned()}</a>
                    <span class="muted">{format!(" ({})", r.after)}</span>
                </li>
            }
        })
        .collect_view();
    let windows = ahead
        .windows
        .into_iter()
        .map(|m| {
            let word = if m.state == "now" { "Open now" } else { "Planned" };
            view! {
                <li data-testid="next-window" data-state=m.state>
                    <span class=format!("cal-state cal-state-{}", m.state)>{word}</span>
                    {format!(" maintenance: {} · {} to {}", m.label, m.start.zoned(), m.end.zoned())}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="next-runs" data-testid="next-runs" aria-labelledby="next-runs-h">
            <h2 id="next-runs-h">"Next runs"</h2>
            <ul>{runs}</ul>
            <ul class="next-windows">{windows}</ul>
            <p class="muted"><a href=calendar>"The calendar of the days ahead"</a></p>
        </section>
    }
}
