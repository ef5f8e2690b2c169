//! The scheduler log (`/log?days=7[&instance=…][&job=…][&kind=failed][&from=…][&to=…]
//! [&problems=1][&cursor=…][&limit=N]`): every start, end, failure, skip, miss and zombie span
//! of every instance, merged newest first (or of the instance chosen), colour-coded by kind
//! with the kind's word on each badge. Sources with a log of their own (Primentra's
//! SchedulerLog) show theirs; for the others it is derived from the runs; Sundial's findings
//! (missed, late, skipped) are always there, consecutive misses of one job with one cause as
//! one line. Each line links to its job's timeline at that moment.
//!
//! The filters are a plain GET form (the URL is the state); `from` and `to` are wall-clock
//! times in the page's zone. A value the page cannot use is named beside its field (status
//! 400), never a failed page. Paged on the server by cursor: no cap hides a line; the counts
//! are over the whole filter, and the CSV export (`/log.csv`, same query) holds every line of
//! it. An instance that cannot be read now is named in a banner; its last good read's lines
//! are still listed.
use crate::api::{self, KindCount, LogData, LogFieldError, LogLine, LogQuery, Scheduler, count_text, parse_days};
use crate::components::time::ZoneMode;
use crate::components::{
    CollapsedMisses, ErrorPanel, Header, Sentence, Time, WindowLinks, encode_segment, instance_query, job_at_href,
    prefs, set_status,
};
use crate::engine::log::LogKind;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

#[component]
pub fn LogPage() -> impl IntoView {
    let query = use_query_map();
    let days = Memo::new(move |_| query.with(|q| parse_days(q.get("days").as_deref())));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.trim().is_empty())));
    // `from` and `to` are read in the zone the page shows times in.
    let zone = {
        let p = prefs();
        match p.zone {
            ZoneMode::Instance => None,
            ZoneMode::Utc => Some("UTC".to_owned()),
            ZoneMode::Browser => Some(p.browser_tz.unwrap_or_else(|| "UTC".to_owned())),
        }
    };
    let log_query = Memo::new(move |_| {
        query.with(|q| LogQuery {
            problems_only: q.get("problems").is_some_and(|v| v == "1"),
            kind: q.get("kind"),
            job: q.get("job"),
            from: q.get("from"),
            to: q.get("to"),
            zone: zone.clone(),
            cursor: q.get("cursor"),
            limit: q.get("limit"),
        })
    });
    let data = Resource::new(
        move || (instance.get(), days.get(), log_query.get()),
        |(instance, days, q)| async move {
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
                    Ok(d) => log_view(d).into_any(),
                    Err(e) => view! { <Title text="Sundial"/> <Header/> <main id="content" tabindex="-1" class="page"><ErrorPanel err=e base="/log"/></main> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// What each kind means, for the legend.
fn kind_meaning(k: LogKind) -> &'static str {
    match k {
        LogKind::Started => "a run started",
        LogKind::Succeeded => "a run ended well",
        LogKind::Failed => "a run failed",
        LogKind::Retry => "a step failed and was retried",
        LogKind::Canceled => "a run was canceled",
        LogKind::Running => "a run is still going",
        LogKind::Crashed => "a run started and never finished",
        LogKind::Skipped => "a due run was skipped: the previous one still ran",
        LogKind::Missed => "a due run never started (Sundial's finding)",
        LogKind::Late => "a run started after its grace (Sundial's finding)",
        LogKind::Zombie => "the scheduler started nothing although runs were due, or a stuck run was released",
        LogKind::SchedulerStop => "the scheduler stopped: at its last sign of life, down by the first run it missed",
        LogKind::AgentStart => "the scheduler (re)started",
        LogKind::Changed => {
            "the job's definition changed: added, removed, its schedule, enabled, command, steps or owner (Sundial saw it)"
        }
    }
}

/// The words of the instances' schedulers for the page's kinds: the instance's own
/// ("Agent start", "pg_cron start") when every instance listed has one scheduler, else the
/// kind's general words ("scheduler start").
struct Words {
    common: Option<Scheduler>,
    by_instance: Vec<(String, Scheduler)>,
}

impl Words {
    fn new(d: &LogData) -> Self {
        let listed: Vec<&api::LogInstance> = d.instances.iter().filter(|i| i.listed).collect();
        let common = listed.first().map(|i| i.scheduler.clone()).filter(|s| listed.iter().all(|i| &i.scheduler == s));
        Words { common, by_instance: listed.iter().map(|i| (i.name.clone(), i.scheduler.clone())).collect() }
    }

    /// A kind's badge on the page's filters and legend.
    fn kind(&self, k: LogKind) -> String {
        match &self.common {
            Some(s) => s.log_label(k),
            None => k.label().to_owned(),
        }
    }

    /// A kind's badge on a line of `instance`.
    fn line(&self, instance: &str, k: LogKind) -> String {
        match self.by_instance.iter().find(|(n, _)| n == instance) {
            Some((_, s)) => s.log_label(k),
            None => self.kind(k),
        }
    }
}

fn line_row(l: LogLine, words: &Words) -> impl IntoView + use<> {
    let key = l.kind.key();
    let job = (!l.job_id.is_empty()).then(|| {
        let at = chrono::DateTime::from_timestamp_millis(l.at.ms).unwrap_or_default();
        let href = job_at_href(Some(&l.instance), &l.job_id, at);
        let name = if l.job_name.is_empty() { l.job_id.clone() } else { l.job_name.clone() };
        view! { <a href=href class="job-link" data-testid="log-job-link" title="The job's timeline at this moment">{name}</a> }
    });
    let count = l.collapsed.count.max(1);
    // The words with their times as instants; a line sent without them, its plain words.
    let said = if l.said.is_empty() { api::SentenceView::from(l.text.clone()) } else { l.said.clone() };
    let what = if l.collapsed.is_collapsed() {
        let cause = said.strip_prefix("no run started: ");
        view! { <CollapsedMisses c=l.collapsed.clone() last=l.at.clone() cause=cause more="the job's timeline shows each"/> }.into_any()
    } else {
        view! { <Sentence s=said/> }.into_any()
    };
    let label = words.line(&l.instance, l.kind);
    view! {
        <tr class=format!("log-line log-{key}") data-testid="log-line" data-kind=key data-count=count data-instance=l.instance.clone() data-job-id=l.job_id.clone()>
            <td class="col-time" data-label="Time"><Time t=l.at.clone()/></td>
            <td class="log-instance" data-label="Instance">{l.instance.clone()}</td>
            <td data-label="Job">{job.map(|j| j.into_any()).unwrap_or_else(|| view! { <span class="muted">"instance-wide"</span> }.into_any())}</td>
            <td data-label="Event"><span class=format!("badge log-badge log-{key}")>{label}</span></td>
            <td class="log-text" data-label="What happened">{what}</td>
        </tr>
    }
}

fn log_view(d: LogData) -> impl IntoView {
    if !d.invalid.is_empty() {
        set_status(400);
    }
    let days = d.days;
    let words = Words::new(&d);
    let links = LogLinks::new(&d);
    let pager = Pager::new(&d, &links);
    let title = match &d.instance {
        Some(h) => format!("{} · log · Sundial", h.name),
        None => "Log · Sundial".to_owned(),
    };
    let header = match d.instance.clone() {
        Some(h) => view! { <Header instance=h/> }.into_any(),
        None => view! { <Header/> }.into_any(),
    };
    // The chosen instance's header has its own banner; across the fleet, each is named here.
    let banners = d.instance.is_none().then(|| unreachable_banners(&d));
    let heading = match &d.instance {
        Some(h) => format!("Scheduler log · {}", h.name),
        None => "Scheduler log · every instance".to_owned(),
    };
    let summary = summary(&d);
    let form = filter_form(&d, &words, &links);
    let problems_filter = problems_filter(d.problems_only, &links);
    let kind_filters = kind_filters(&d, &words, &links);
    let legend = legend(&words);
    let csv_href = links.csv(&d);
    let json_href = links.json(&d);
    // Until a bad field is fixed, nothing but the form and what to do.
    let results = if d.invalid.is_empty() {
        let (top, bottom) = (pager.view(), pager.view());
        let table = lines_table(d.lines, &words, links.cleared());
        view! { {summary} {problems_filter} {kind_filters} {legend} {top} {table} {bottom} }.into_any()
    } else {
        view! { <p class="empty" data-testid="log-fix">"No line is listed until the fields marked above are fixed."</p> }
            .into_any()
    };
    view! {
        <Title text=title/>
        {header}
        {banners}
        <main id="content" tabindex="-1" class="page">
            <div class="toolbar">
                <h1>{heading}</h1>
                <WindowLinks current=days href=links.window_href()/>
                <a class="json-link" href=csv_href download="sundial-log.csv" type="text/csv" data-testid="csv-link" title="Every line under this filter (all pages), as CSV; times in RFC 3339 with their offset, in the instances' zone when they share one, else in UTC">"CSV"</a>
                <crate::components::JsonLink href=json_href/>
            </div>
            {form}
            {results}
        </main>
    }
}

/// Instances that cannot be read now: named, with whether their last good read still shows.
fn unreachable_banners(d: &LogData) -> impl IntoView + use<> {
    d.instances
        .iter()
        .filter_map(|i| i.unreachable.clone().map(|note| (i.name.clone(), note)))
        .map(|(name, note)| {
            view! {
                <div class="banner banner-stale" role="alert" data-testid="unreachable-banner" data-instance=name>
                    <strong>"Unreachable. "</strong>
                    {note}
                </div>
            }
        })
        .collect_view()
}

/// The query every log link carries, and the links built from it: each sets one part and
/// keeps the others.
#[derive(Clone)]
struct LogLinks {
    days: u32,
    problems: bool,
    kind: Option<String>,
    job: Option<String>,
    /// The time range as the fields show it (read again in the page's zone).
    from: String,
    to: String,
    limit: Option<usize>,
    instance: Option<String>,
}

impl LogLinks {
    fn new(d: &LogData) -> Self {
        LogLinks {
            days: d.days,
            problems: d.problems_only,
            kind: d.kind.clone(),
            job: d.job.clone(),
            from: if d.from.is_some() { d.from_text.clone() } else { String::new() },
            to: if d.to.is_some() { d.to_text.clone() } else { String::new() },
            limit: (d.limit != api::LOG_LINES).then_some(d.limit),
            instance: d.instance.as_ref().map(|h| h.name.clone()),
        }
    }

    /// Every filter but the window, as query parameters (`from` and `to` as given).
    fn params(&self) -> Vec<String> {
        let mut q = Vec::new();
        if self.problems {
            q.push("problems=1".to_owned());
        }
        for (name, v) in [("kind", &self.kind), ("job", &self.job)] {
            if let Some(v) = v {
                q.push(format!("{name}={}", encode_segment(v)));
            }
        }
        for (name, v) in [("from", &self.from), ("to", &self.to)] {
            if !v.is_empty() {
                q.push(format!("{name}={}", encode_segment(v)));
            }
        }
        if let Some(l) = self.limit {
            q.push(format!("limit={l}"));
        }
        if let Some(i) = &self.instance {
            q.push(format!("instance={}", encode_segment(i)));
        }
        q
    }

    /// `path` with the window and every filter.
    fn href(&self, path: &str) -> String {
        let mut q = vec![format!("days={}", self.days)];
        q.extend(self.params());
        format!("{path}?{}", q.join("&"))
    }

    /// The newest page under this filter.
    fn newest(&self) -> String {
        self.href("/log")
    }

    /// The page under this filter that starts at `cursor`.
    fn at_cursor(&self, cursor: &str) -> String {
        format!("{}&cursor={}", self.newest(), encode_segment(cursor))
    }

    /// One kind (`None`: every kind).
    fn kind(&self, kind: Option<&str>) -> String {
        LogLinks { kind: kind.map(str::to_owned), ..self.clone() }.newest()
    }

    /// Everything, or problems only.
    fn problems(&self, problems: bool) -> String {
        LogLinks { problems, ..self.clone() }.newest()
    }

    /// No filter but the window and the instance.
    fn cleared(&self) -> String {
        format!("/log?days={}{}", self.days, instance_query(self.instance.as_deref()))
    }

    /// Another window: the filters stay, the time range goes.
    fn window_href(&self) -> impl Fn(u32) -> String + Clone + Send + Sync + use<> {
        let me = LogLinks { from: String::new(), to: String::new(), ..self.clone() };
        move |n| LogLinks { days: n, ..me.clone() }.newest()
    }

    /// The CSV export of exactly this filter: the time range as instants (no zone to
    /// guess), every page (no cursor, no limit).
    fn csv(&self, d: &LogData) -> String {
        LogLinks { from: rfc3339(&d.from), to: rfc3339(&d.to), limit: None, ..self.clone() }.href("/log.csv")
    }

    /// The JSON API for this filter. Its window is its `from` and `to`: the time range, else
    /// the page's window (its default is the page's default, 7 days); at most 1000 events a
    /// page.
    fn json(&self, d: &LogData) -> String {
        let (from, to) = match (&d.from, &d.to) {
            (None, None) if d.days != api::DEFAULT_DAYS => (rfc3339(&d.window_start), rfc3339(&d.window_end)),
            _ => (rfc3339(&d.from), rfc3339(&d.to)),
        };
        let me = LogLinks { from, to, limit: Some(1000), ..self.clone() };
        format!("/api/log?{}", me.params().join("&"))
    }
}

fn rfc3339(t: &Option<api::TimePoint>) -> String {
    t.as_ref().map(|t| t.rfc3339()).unwrap_or_default()
}

/// The filter form: instance, job, kind and time range, as plain GET fields.
fn filter_form(d: &LogData, words: &Words, links: &LogLinks) -> impl IntoView + use<> {
    let error_of = |field: &str| d.invalid.iter().find(|e| e.field == field).cloned();
    let instances = d
        .instances
        .iter()
        .map(|i| {
            let selected = d.instance.as_ref().is_some_and(|h| h.name == i.name);
            view! { <option value=i.name.clone() selected=selected>{i.name.clone()}</option> }
        })
        .collect_view();
    let kinds = LogKind::ALL
        .into_iter()
        .map(|k| {
            let selected = d.kind.as_deref() == Some(k.key());
            view! { <option value=k.key() selected=selected>{words.kind(k)}</option> }
        })
        .collect_view();
    let jobs = d.job_names.iter().map(|n| view! { <option value=n.clone()></option> }).collect_view();
    let other_errors: Vec<LogFieldError> =
        d.invalid.iter().filter(|e| !matches!(e.field.as_str(), "kind" | "from" | "to")).cloned().collect();
    let zone = d.range_zone.clone();
    view! {
        <form method="get" action="/log" class="log-filter" role="search" aria-label="Filter the log" data-testid="log-filter">
            <input type="hidden" name="days" value=d.days/>
            {d.problems_only.then(|| view! { <input type="hidden" name="problems" value="1"/> })}
            {(d.limit != api::LOG_LINES).then(|| view! { <input type="hidden" name="limit" value=d.limit/> })}
            {field_errors(other_errors)}
            <div class="log-filter-row">
                <div class="field">
                    <label for="log-instance">"Instance"</label>
                    <select id="log-instance" name="instance" data-testid="filter-instance">
                        <option value="" selected=d.instance.is_none()>"every instance"</option>
                        {instances}
                    </select>
                </div>
                <div class="field">
                    <label for="log-job">"Job (its name or part of it)"</label>
                    <input id="log-job" name="job" type="search" list="log-jobs" value=d.job.clone().unwrap_or_default() autocomplete="off" data-testid="filter-job"/>
                    <datalist id="log-jobs">{jobs}</datalist>
                </div>
                <div class="field">
                    <label for="log-kind">"Event"</label>
                    <select id="log-kind" name="kind" data-testid="filter-kind" aria-invalid=error_of("kind").map(|_| "true") aria-describedby=error_of("kind").map(|_| "log-kind-error")>
                        <option value="" selected=d.kind.is_none()>"every kind"</option>
                        {kinds}
                    </select>
                    {error_of("kind").map(|e| field_error(e, "log-kind-error"))}
                </div>
                <div class="field">
                    <label for="log-from">{format!("From ({zone})")}</label>
                    <input id="log-from" name="from" type="datetime-local" step="1" value=d.from_text.clone() data-testid="filter-from" aria-invalid=error_of("from").map(|_| "true") aria-describedby=error_of("from").map(|_| "log-from-error")/>
                    {error_of("from").map(|e| field_error(e, "log-from-error"))}
                </div>
                <div class="field">
                    <label for="log-to">{format!("To, not included ({zone})")}</label>
                    <input id="log-to" name="to" type="datetime-local" step="1" value=d.to_text.clone() data-testid="filter-to" aria-invalid=error_of("to").map(|_| "true") aria-describedby=error_of("to").map(|_| "log-to-error")/>
                    {error_of("to").map(|e| field_error(e, "log-to-error"))}
                </div>
                <div class="log-filter-actions">
                    <button type="submit" class="button" data-testid="filter-apply">"Apply"</button>
                    <a href=links.cleared() class="pager-link" data-testid="filter-clear">"Clear filters"</a>
                </div>
            </div>
        </form>
    }
}

/// The message under a field the URL got wrong.
fn field_error(e: LogFieldError, id: &'static str) -> impl IntoView + use<> {
    view! { <p class="field-error" id=id role="alert" data-testid="field-error" data-field=e.field>{e.message}</p> }
}

/// What the URL got wrong that has no field of its own (`limit`, `cursor`).
fn field_errors(errors: Vec<LogFieldError>) -> impl IntoView + use<> {
    errors
        .into_iter()
        .map(|e| view! { <p class="field-error" role="alert" data-testid="field-error" data-field=e.field>{e.message}</p> })
        .collect_view()
}

/// The line under the filters: how many events (in how many lines), from how many
/// instances, over which stretch.
fn summary(d: &LogData) -> impl IntoView + use<> {
    let lines_total: usize = d.counts.iter().map(|c| c.lines).sum();
    let events_total: usize = d.counts.iter().map(|c| c.events).sum();
    let listed = d.instances.iter().filter(|i| i.listed).count();
    let events = if events_total == lines_total {
        format!("{} events", count_text(events_total))
    } else {
        format!("{} events in {} lines", count_text(events_total), count_text(lines_total))
    };
    let across = match (&d.instance, listed) {
        (Some(_), _) => String::new(),
        (None, 1) => " from 1 instance".to_owned(),
        (None, n) => format!(" from {n} instances"),
    };
    let stretch = match (d.from.clone(), d.to.clone()) {
        (None, None) => {
            let window = if d.days == 1 { "day".to_string() } else { format!("{} days", d.days) };
            let span = d.window_start.clone().zip(d.window_end.clone()).map(|(s, e)| {
                view! { " · " <Time t=s/> " to " <Time t=e/> }
            });
            view! { {format!(" in the last {window}")} {span} }.into_any()
        }
        (from, to) => view! {
            {from.map(|f| view! { " from " <Time t=f/> })}
            {to.map(|t| view! { " before " <Time t=t/> })}
            " (of the 30 days Sundial keeps)"
        }
        .into_any(),
    };
    view! {
        <p class="summary" data-testid="log-summary" data-lines=lines_total data-events=events_total data-instances=listed>
            {events}
            {across}
            {stretch}
            {d.problems_only.then_some(" (problems only)")}
        </p>
        {zone_note(d)}
    }
}

/// Lines sorted by instant read in one zone: where the instances listed are in different
/// zones and the page shows instance zones, every time is in UTC (the server gives them so),
/// and the page says so.
fn zone_note(d: &LogData) -> Option<impl IntoView + use<>> {
    let mut zones: Vec<&str> = d.instances.iter().filter(|i| i.listed).filter_map(|i| i.tz.as_deref()).collect();
    zones.sort_unstable();
    zones.dedup();
    (zones.len() > 1 && prefs().zone == ZoneMode::Instance).then(|| {
        view! {
            <p class="zone-note muted" data-testid="log-zone-note">
                {format!("The instances listed are in different zones ({}): every time here is in UTC.", zones.join(", "))}
            </p>
        }
    })
}

/// Everything or problems only, each keeping the other filters.
fn problems_filter(problems_only: bool, links: &LogLinks) -> impl IntoView + use<> {
    let all_href = links.problems(false);
    let problems_href = links.problems(true);
    view! {
        <nav class="filters" aria-label="Log filter">
            <a href=all_href class=if problems_only { "filter" } else { "filter active" } aria-current=(!problems_only).then_some("page") data-testid="everything">"Everything"</a>
            <a href=problems_href class=if problems_only { "filter active" } else { "filter" } aria-current=problems_only.then_some("page") data-testid="problems-only">"Problems only"</a>
        </nav>
    }
}

/// Filter chips: every kind, then each kind under the other filters, with its lines (and
/// events when a line stands for several).
fn kind_filters(d: &LogData, words: &Words, links: &LogLinks) -> impl IntoView + use<> {
    let all_kinds_href = links.kind(None);
    let chips =
        d.counts.iter().map(|c| kind_chip(c, d.kind.as_deref() == Some(c.kind.as_str()), words, links)).collect_view();
    view! {
        <nav class="kind-filters" aria-label="Event kinds">
            <a href=all_kinds_href class=if d.kind.is_none() { "kind-filter active" } else { "kind-filter" } aria-current=d.kind.is_none().then_some("page") data-testid="kind-all">"every kind"</a>
            " "
            {chips}
        </nav>
    }
}

/// One kind's chip, `active` when it is the kind chosen.
fn kind_chip(c: &KindCount, active: bool, words: &Words, links: &LogLinks) -> impl IntoView + use<> {
    let href = links.kind(Some(&c.kind));
    let label = LogKind::from_key(&c.kind).map(|k| words.kind(k)).unwrap_or_else(|| c.kind.replace('-', " "));
    let text = if c.events == c.lines {
        format!("{label} {}", count_text(c.lines))
    } else {
        format!("{label} {} ({} lines)", count_text(c.events), count_text(c.lines))
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

/// Every kind's colour with its word and what it means.
fn legend(words: &Words) -> impl IntoView + use<> {
    let items = LogKind::ALL
        .into_iter()
        .map(|k| {
            view! {
                <li>
                    <span class=format!("badge log-badge log-{}", k.key())>{words.kind(k)}</span>
                    " " {kind_meaning(k)}
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="log-legend" data-testid="log-legend">
            <summary>"Legend: what each kind of event means"</summary>
            <ul class="legend">{items}</ul>
        </details>
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
fn lines_table(lines: Vec<LogLine>, words: &Words, cleared: String) -> AnyView {
    if lines.is_empty() {
        return view! {
            <p class="empty" data-testid="log-empty">
                "No line matches this filter in this window. Choose a longer window, another kind or instance, or "
                <a href=cleared>"clear the filters"</a>
                "."
            </p>
        }
        .into_any();
    }
    let rows = lines.into_iter().map(|l| line_row(l, words).into_any()).collect_view();
    view! {
        <table class="jobs log" data-testid="log-table">
            <thead>
                <tr>
                    <th scope="col" class="col-time">"Time"</th>
                    <th scope="col">"Instance"</th>
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
