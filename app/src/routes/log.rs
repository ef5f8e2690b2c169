//! The scheduler log (`/log?instance=…&days=7[&problems=1][&kind=failed][&cursor=…][&limit=N]`):
//! every start, end, failure, skip, miss and zombie span on the instance, newest first,
//! colour-coded by kind. Sources with a log of their own (Primentra's SchedulerLog) show
//! theirs; for the others it is derived from the runs; Sundial's findings (missed, late,
//! skipped) are always there, consecutive misses of one job with one cause as one line.
//!
//! Paged on the server by cursor: no cap hides a line; the counts are over the whole filter.
use crate::api::{self, KindCount, LogData, LogLine, LogQuery, count_text, parse_days};
use crate::components::{CollapsedMisses, ErrorPanel, Header, Time, WindowLinks, instance_query, job_href};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn LogPage() -> impl IntoView {
    let query = use_query_map();
    let days = Memo::new(move |_| query.with(|q| parse_days(q.get("days").as_deref())));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.is_empty())));
    let log_query = Memo::new(move |_| {
        query.with(|q| {
            let limit = q.get("limit").filter(|l| !l.is_empty()).map(|l| l.trim().parse::<usize>().map_err(|_| l));
            (
                LogQuery {
                    problems_only: q.get("problems").is_some_and(|v| v == "1"),
                    kind: q.get("kind").filter(|k| !k.is_empty()),
                    cursor: q.get("cursor").filter(|c| !c.is_empty()),
                    limit: limit.as_ref().and_then(|l| l.as_ref().ok().copied()),
                },
                limit.and_then(|l| l.err()),
            )
        })
    });
    let data = Resource::new(
        move || (instance.get(), days.get(), log_query.get()),
        |(instance, days, (q, bad_limit))| async move {
            if let Some(l) = bad_limit {
                return Err(api::ApiError::BadRequest(format!("limit must be a number of lines, not {l:?}")));
            }
            match days {
                Ok(d) => api::instance_log(instance, d, q).await,
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

/// A kind's badge, in the words of the instance's own scheduler ("Agent start", "pg_cron start").
fn kind_label(scheduler: &api::Scheduler, key: &str) -> String {
    match crate::engine::log::LogKind::from_key(key) {
        Some(k) => scheduler.log_label(k),
        None => key.replace('-', " "),
    }
}

fn line_row(l: LogLine, days: u32, instance: Option<&str>, scheduler: &api::Scheduler) -> impl IntoView {
    let key = l.kind.key();
    let job = (!l.job_id.is_empty()).then(|| {
        let href = job_href(instance, &l.job_id, days);
        view! { <a href=href class="job-link">{l.job_name.clone()}</a> }
    });
    let count = l.collapsed.count.max(1);
    let what = if l.collapsed.is_collapsed() {
        let cause = l.text.strip_prefix("no run started: ").unwrap_or(&l.text).to_string();
        view! { <CollapsedMisses c=l.collapsed.clone() last=l.at.clone() cause=cause more="the job's timeline shows each"/> }.into_any()
    } else {
        view! { {l.text.clone()} }.into_any()
    };
    view! {
        <tr class=format!("log-line log-{key}") data-testid="log-line" data-kind=key data-count=count>
            <td class="col-time" data-label="Time"><Time t=l.at.clone()/></td>
            <td data-label="Job">{job.map(|j| j.into_any()).unwrap_or_else(|| view! { <span class="muted">"instance"</span> }.into_any())}</td>
            <td data-label="Event"><span class=format!("badge log-badge log-{key}")>{kind_label(scheduler, key)}</span></td>
            <td class="log-text" data-label="What happened">{what}</td>
        </tr>
    }
}

fn log_view(d: LogData, instance: Option<String>) -> impl IntoView {
    let days = d.instance.days;
    let links = LogLinks::new(&d, instance.as_deref());
    let pager = Pager::new(&d, &links);
    let title = format!("{} · log · Sundial", d.instance.name);
    let summary = summary(&d);
    let problems_filter = problems_filter(d.problems_only, &links);
    let kind_filters = kind_filters(&d, &links);
    let scheduler = d.instance.scheduler.clone();
    let table = lines_table(d.lines, days, instance.as_deref(), &scheduler);
    view! {
        <Title text=title/>
        <Header instance=d.instance.clone()/>
        <div class="page">
            <div class="toolbar">
                <h1>"Scheduler log"</h1>
                <WindowLinks current=days href=links.window_href()/>
                <crate::components::JsonLink href=crate::components::api_href("log?instance={i}", &d.instance)/>
            </div>
            {summary}
            {problems_filter}
            {kind_filters}
            {pager.view()}
            {table}
            {pager.view()}
        </div>
    }
}

/// The query every log link carries, part by part (each empty when at its default), and the
/// links built from it: each link sets one part and keeps the others.
struct LogLinks {
    days: u32,
    problems_q: &'static str,
    kind_q: String,
    limit_q: String,
    iq: String,
}

impl LogLinks {
    fn new(d: &LogData, instance: Option<&str>) -> Self {
        LogLinks {
            days: d.instance.days,
            problems_q: if d.problems_only { "&problems=1" } else { "" },
            kind_q: d.kind.as_ref().map(|k| format!("&kind={k}")).unwrap_or_default(),
            limit_q: if d.limit == api::LOG_LINES { String::new() } else { format!("&limit={}", d.limit) },
            iq: instance_query(instance),
        }
    }

    /// Every kind, under the problems filter.
    fn all_kinds(&self) -> String {
        let LogLinks { days, problems_q, limit_q, iq, .. } = self;
        format!("/log?days={days}{problems_q}{limit_q}{iq}")
    }

    /// One kind, under the problems filter.
    fn kind(&self, kind: &str) -> String {
        let LogLinks { days, problems_q, limit_q, iq, .. } = self;
        format!("/log?days={days}{problems_q}&kind={kind}{limit_q}{iq}")
    }

    /// Every line, of the kind chosen.
    fn everything(&self) -> String {
        let LogLinks { days, kind_q, limit_q, iq, .. } = self;
        format!("/log?days={days}{kind_q}{limit_q}{iq}")
    }

    /// Problems only, of the kind chosen.
    fn problems_only(&self) -> String {
        let LogLinks { days, kind_q, limit_q, iq, .. } = self;
        format!("/log?days={days}&problems=1{kind_q}{limit_q}{iq}")
    }

    /// The newest page under this filter.
    fn newest(&self) -> String {
        let LogLinks { days, problems_q, kind_q, limit_q, iq } = self;
        format!("/log?days={days}{problems_q}{kind_q}{limit_q}{iq}")
    }

    /// The page under this filter that starts at `cursor`.
    fn at_cursor(&self, cursor: &str) -> String {
        format!("{}&cursor={cursor}", self.newest())
    }

    /// Another window, under the problems filter (the kind and the page size are dropped).
    fn window_href(&self) -> impl Fn(u32) -> String + Clone + Send + Sync + use<> {
        let (problems_q, iq) = (self.problems_q, self.iq.clone());
        move |n| format!("/log?days={n}{problems_q}{iq}")
    }
}

/// The line under the toolbar: how many events (in how many lines) in which window.
fn summary(d: &LogData) -> impl IntoView + use<> {
    let days = d.instance.days;
    let lines_total: usize = d.counts.iter().map(|c| c.lines).sum();
    let events_total: usize = d.counts.iter().map(|c| c.events).sum();
    let window_text = if days == 1 { "day".to_string() } else { format!("{days} days") };
    view! {
        <p class="summary" data-testid="log-summary" data-lines=lines_total data-events=events_total>
            {if events_total == lines_total {
                format!("{} events in the last {window_text}", count_text(events_total))
            } else {
                format!("{} events in {} lines in the last {window_text}", count_text(events_total), count_text(lines_total))
            }}
            {(d.problems_only).then_some(" (problems only)")}
            " · "
            <Time t=d.instance.window_start.clone()/>
            " to "
            <Time t=d.instance.window_end.clone()/>
        </p>
    }
}

/// Everything or problems only, each keeping the kind chosen.
fn problems_filter(problems_only: bool, links: &LogLinks) -> impl IntoView + use<> {
    let all_href = links.everything();
    let problems_href = links.problems_only();
    view! {
        <nav class="filters" aria-label="Log filter">
            <a href=all_href class=if problems_only { "filter" } else { "filter active" } aria-current=(!problems_only).then_some("page") data-testid="everything">"Everything"</a>
            <a href=problems_href class=if problems_only { "filter active" } else { "filter" } aria-current=problems_only.then_some("page") data-testid="problems-only">"Problems only"</a>
        </nav>
    }
}

/// Filter chips: every kind, then each kind under the problems filter, with its lines (and
/// events when a line stands for several).
fn kind_filters(d: &LogData, links: &LogLinks) -> impl IntoView + use<> {
    let all_kinds_href = links.all_kinds();
    let chips = d
        .counts
        .iter()
        .map(|c| kind_chip(c, d.kind.as_deref() == Some(c.kind.as_str()), &d.instance.scheduler, links))
        .collect_view();
    view! {
        <nav class="kind-filters" aria-label="Event kinds">
            <a href=all_kinds_href class=if d.kind.is_none() { "kind-filter active" } else { "kind-filter" } aria-current=d.kind.is_none().then_some("page") data-testid="kind-all">"every kind"</a>
            " "
            {chips}
        </nav>
    }
}

/// One kind's chip, `active` when it is the kind chosen.
fn kind_chip(c: &KindCount, active: bool, scheduler: &api::Scheduler, links: &LogLinks) -> impl IntoView + use<> {
    let href = links.kind(&c.kind);
    let text = if c.events == c.lines {
        format!("{} {}", kind_label(scheduler, &c.kind), count_text(c.lines))
    } else {
        format!("{} {} ({} lines)", kind_label(scheduler, &c.kind), count_text(c.events), count_text(c.lines))
    };
    view! {
        <a
            href=href
            class=format!("kind-filter badge log-badge log-{}{}", c.kind, if active { " active" } else { "" })
            aria-current=active.then_some("page")
            data-kind=c.kind.clone()
            data-lines=c.lines
            data-events=c.events
            data-testid="kind-filter"
        >
            {text}
        </a>
        " "
    }
}

/// The pager above and below the lines: which lines these are, with links to the newest page
/// and the next older one.
struct Pager {
    from: usize,
    to: usize,
    total: usize,
    newest_href: Option<String>,
    older_href: Option<String>,
}

impl Pager {
    fn new(d: &LogData, links: &LogLinks) -> Self {
        Pager {
            from: d.offset + 1,
            to: d.offset + d.lines.len(),
            total: d.total,
            newest_href: d.cursor.is_some().then(|| links.newest()),
            older_href: d.next_cursor.as_ref().map(|c| links.at_cursor(c)),
        }
    }

    fn view(&self) -> impl IntoView + use<> {
        let Pager { from, to, total, .. } = *self;
        view! {
            <nav class="pager" aria-label="Log pages" data-testid="pager">
                <span class="pager-range" data-testid="pager-range" data-from=from data-to=to data-total=total>
                    {if to == 0 { "no lines".to_string() } else { format!("lines {from}–{to} of {}, newest first", count_text(total)) }}
                </span>
                {self.newest_href.clone().map(|h| view! { " · " <a href=h class="pager-link" data-testid="pager-newest">"Newest"</a> })}
                {self.older_href.clone().map(|h| view! { " · " <a href=h class="pager-link" rel="next" data-testid="pager-older">"Older →"</a> })}
            </nav>
        }
    }
}

/// The page's lines as a table, or a note when none matches.
fn lines_table(lines: Vec<LogLine>, days: u32, instance: Option<&str>, scheduler: &api::Scheduler) -> AnyView {
    if lines.is_empty() {
        return view! { <p class="empty">"No line matches this filter in this window. Choose a longer window or another kind."</p> }.into_any();
    }
    let rows = lines.into_iter().map(|l| line_row(l, days, instance, scheduler).into_any()).collect_view();
    view! {
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
    }
    .into_any()
}
