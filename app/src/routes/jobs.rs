//! The jobs page (`/`, `/jobs`): every job of the instance with its last and next run and
//! what went wrong in the window.
//!
//! Sorting is driven by the query (`?sort=name|last|next|missed&dir=asc|desc`): the column
//! headers are router links, so after hydration a click re-sorts in the browser without a
//! request, and without JavaScript the same links ask the server.
use crate::api::{self, JobRow, JobsData, ZombieSpan, parse_days};
use crate::components::{ErrorPanel, Header, OutcomeBadge, WindowLinks, instance_query, job_href};
use crate::engine::Severity;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;
use leptos_router::hooks::{use_location, use_query_map};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Name,
    Last,
    Next,
    Missed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Asc,
    Desc,
}

impl SortKey {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "name" => SortKey::Name,
            "last" => SortKey::Last,
            "next" => SortKey::Next,
            "missed" => SortKey::Missed,
            _ => return None,
        })
    }
    fn key(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Last => "last",
            SortKey::Next => "next",
            SortKey::Missed => "missed",
        }
    }
    /// The direction a first click sorts in: the interesting end first.
    fn default_dir(self) -> Dir {
        match self {
            SortKey::Name | SortKey::Next => Dir::Asc,
            SortKey::Last | SortKey::Missed => Dir::Desc,
        }
    }
}

impl Dir {
    fn key(self) -> &'static str {
        match self {
            Dir::Asc => "asc",
            Dir::Desc => "desc",
        }
    }
    fn flip(self) -> Self {
        match self {
            Dir::Asc => Dir::Desc,
            Dir::Desc => Dir::Asc,
        }
    }
}

/// The sort a query asks for; by default, jobs with missed runs first.
pub fn sort_from_query(sort: Option<&str>, dir: Option<&str>) -> (SortKey, Dir) {
    let key = sort.and_then(SortKey::parse).unwrap_or(SortKey::Missed);
    let dir = match dir {
        Some("asc") => Dir::Asc,
        Some("desc") => Dir::Desc,
        _ => key.default_dir(),
    };
    (key, dir)
}

/// Sort rows in place; ties (and absent times, always last) by name.
pub fn sort_rows(rows: &mut [JobRow], key: SortKey, dir: Dir) {
    let name = |r: &JobRow| r.name.to_lowercase();
    rows.sort_by(|a, b| {
        use std::cmp::Ordering;
        let by_opt = |x: Option<i64>, y: Option<i64>| match (x, y) {
            (Some(x), Some(y)) => {
                let o = x.cmp(&y);
                if dir == Dir::Desc { o.reverse() } else { o }
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        let o = match key {
            SortKey::Name => {
                let o = name(a).cmp(&name(b));
                if dir == Dir::Desc { o.reverse() } else { o }
            }
            SortKey::Last => by_opt(a.last_run.as_ref().map(|r| r.start.ms), b.last_run.as_ref().map(|r| r.start.ms)),
            SortKey::Next => by_opt(a.next_expected.as_ref().map(|t| t.ms), b.next_expected.as_ref().map(|t| t.ms)),
            SortKey::Missed => {
                let o = a.missed.cmp(&b.missed).then(a.late.cmp(&b.late)).then(a.skipped.cmp(&b.skipped));
                if dir == Dir::Desc { o.reverse() } else { o }
            }
        };
        o.then_with(|| name(a).cmp(&name(b)))
    });
}

#[component]
pub fn JobsPage() -> impl IntoView {
    let query = use_query_map();
    let days = Memo::new(move |_| query.with(|q| parse_days(q.get("days").as_deref())));
    let sort = Memo::new(move |_| query.with(|q| sort_from_query(q.get("sort").as_deref(), q.get("dir").as_deref())));
    let instance = Memo::new(move |_| query.with(|q| q.get("instance").filter(|i| !i.is_empty())));
    let data = Resource::new(
        move || (instance.get(), days.get()),
        |(instance, days)| async move {
            match days {
                Ok(d) => api::jobs(instance, d).await,
                Err(e) => Err(e),
            }
        },
    );
    let path = use_location().pathname;

    view! {
        <Transition fallback=|| {
            view! {
                <Header/>
                <p class="loading">"Loading jobs…"</p>
            }
        }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(d) => view! { <JobsView data=d sort=sort/> }.into_any(),
                    Err(e) => {
                        let base = path.get_untracked();
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

fn zombie_banner(z: &ZombieSpan, scheduler: &str) -> impl IntoView + use<> {
    let title = if scheduler == "SQL Agent" { "Zombie Agent. " } else { "Zombie scheduler. " };
    let who = format!("{scheduler} started no job from ");
    view! {
        <div class="banner banner-zombie" role="alert" data-testid="zombie-banner">
            <strong>{title}</strong>
            {who}
            <time>{z.start.local.clone()}</time>
            " to "
            <time>{z.end.local.clone()}</time>
            " while "
            <strong>{z.due}</strong>
            {if z.due == 1 { " run was due." } else { " runs were due." }}
        </div>
    }
}

#[component]
fn JobsView(data: JobsData, sort: Memo<(SortKey, Dir)>) -> AnyView {
    let days = data.instance.days;
    let total = data.jobs.len();
    let with_missed = data.jobs.iter().filter(|j| j.missed > 0).count();
    let disabled = data.jobs.iter().filter(|j| !j.enabled).count();
    let missed_total: usize = data.jobs.iter().map(|j| j.missed).sum();
    let path = use_location().pathname;
    let base = move || {
        let p = path.get();
        if p.is_empty() { "/".to_string() } else { p }
    };
    let title = format!("{} · jobs · Sundial", data.instance.name);
    let scheduler = data.instance.scheduler.clone();
    let banners = data.zombies.iter().map(|z| zombie_banner(z, &scheduler)).collect_view();
    let scheduler_mid = crate::api::scheduler_mid(&data.instance.scheduler);
    let jobs = StoredValue::new(data.jobs);
    let instance = use_query_map().with_untracked(|q| q.get("instance").filter(|i| !i.is_empty()));
    let iq = instance_query(instance.as_deref());
    let iq2 = iq.clone();

    let header_cell = move |key: SortKey, label: &'static str, class: &'static str| {
        let iq = iq.clone();
        let href = move || {
            let (cur, dir) = sort.get();
            let next = if cur == key { dir.flip() } else { key.default_dir() };
            format!("{}?days={days}&sort={}&dir={}{}", base(), key.key(), next.key(), iq)
        };
        let aria = move || {
            let (cur, dir) = sort.get();
            (cur == key).then_some(if dir == Dir::Asc { "ascending" } else { "descending" })
        };
        let arrow = move || {
            let (cur, dir) = sort.get();
            if cur != key {
                ""
            } else if dir == Dir::Asc {
                " ▲"
            } else {
                " ▼"
            }
        };
        view! {
            <th class=class aria-sort=aria scope="col">
                <A href=href attr:class="sort" attr:data-sort=key.key()>
                    {label}
                    <span class="arrow" aria-hidden="true">{arrow}</span>
                </A>
            </th>
        }
    };

    let rows = move || {
        let (key, dir) = sort.get();
        let mut rows = jobs.get_value();
        sort_rows(&mut rows, key, dir);
        rows.into_iter().map(|r| job_row(r, days, instance.as_deref(), &scheduler_mid).into_any()).collect_view()
    };

    view! {
        <Title text=title/>
        <Header instance=data.instance.clone()/>
        <div class="page">
            <div class="toolbar">
                <h1>"Jobs"</h1>
                <p class="summary">
                    {format!("{total} jobs")}
                    {(with_missed > 0)
                        .then(|| {
                            view! {
                                " · "
                                <span class="hot">
                                    {format!("{with_missed} with missed runs ({missed_total} missed)")}
                                </span>
                            }
                        })}
                    {(disabled > 0).then(|| format!(" · {disabled} disabled"))}
                    " · last "
                    {if days == 1 { "day".to_string() } else { format!("{days} days") }}
                    " from "
                    <time>{data.instance.window_start.local.clone()}</time>
                </p>
                <WindowLinks
                    current=days
                    href=move |d| {
                        let (key, dir) = sort.get();
                        format!("{}?days={d}&sort={}&dir={}{}", base(), key.key(), dir.key(), iq2)
                    }
                />
            </div>
            {banners}
            {if total == 0 {
                view! { <p class="empty">"No jobs on this instance."</p> }.into_any()
            } else {
                view! {
                    <table class="jobs" data-testid="jobs-table">
                        <thead>
                            <tr>
                                {header_cell(SortKey::Name, "Job", "col-name")}
                                <th scope="col" class="col-category">"Category"</th>
                                <th scope="col" class="col-schedule">"Schedule"</th>
                                {header_cell(SortKey::Last, "Last run", "col-last")}
                                {header_cell(SortKey::Next, "Next expected", "col-next")}
                                {header_cell(SortKey::Missed, "Missed", "col-num")}
                                <th scope="col" class="col-num" title="Late / skipped because the previous run was still going">
                                    "Late / skipped"
                                </th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                }
                    .into_any()
            }}
        </div>
    }
    .into_any()
}

fn job_row(r: JobRow, days: u32, instance: Option<&str>, scheduler: &str) -> impl IntoView {
    let href = job_href(instance, &r.id, days);
    let row_class = if r.enabled { "job" } else { "job disabled" };
    let missed_title = if r.missed_zombie > 0 {
        format!("{} missed, {} of them while {scheduler} started nothing", r.missed, r.missed_zombie)
    } else {
        format!("{} missed", r.missed)
    };
    let diagnostics = (!r.diagnostics.is_empty()).then(|| {
        let worst = r.diagnostics.iter().map(|d| d.severity).max().unwrap_or(Severity::Info);
        let text = r.diagnostics.iter().map(|d| d.text.clone()).collect::<Vec<_>>().join("\n");
        let class = match worst {
            Severity::Error => "diag diag-error",
            Severity::Warning => "diag diag-warning",
            Severity::Info => "diag diag-info",
        };
        view! {
            <span class=class tabindex="0" role="img" aria-label=text.clone() title=text data-testid="diagnostic">
                {if worst == Severity::Info { "i" } else { "!" }}
            </span>
        }
    });
    let schedules = if r.schedules.is_empty() {
        view! { <span class="muted">"No schedule"</span> }.into_any()
    } else {
        r.schedules.into_iter().map(|s| view! { <div class="schedule">{s}</div> }).collect_view().into_any()
    };
    let last = match r.last_run {
        Some(l) => view! {
            <OutcomeBadge outcome=l.outcome/>
            " "
            <time title=format!("Took {}", l.duration)>{l.start.local}</time>
        }
        .into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let next = match r.next_expected {
        Some(t) => view! { <time>{t.local}</time> }.into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let missed_class = if r.missed > 0 { "col-num missed hot" } else { "col-num missed" };
    let ls_class = if r.late + r.skipped > 0 { "col-num warm" } else { "col-num" };
    view! {
        <tr class=row_class data-testid="job-row" data-job-id=r.id.clone() data-missed=r.missed data-missed-zombie=r.missed_zombie data-late=r.late data-skipped=r.skipped>
            <td class="col-name">
                <A href=href attr:class="job-link">{r.name.clone()}</A>
                {(!r.enabled).then(|| view! { " " <span class="tag tag-disabled">"disabled"</span> })}
                {diagnostics.map(|d| view! { " " {d} })}
            </td>
            <td class="col-category">{r.category}</td>
            <td class="col-schedule">{schedules}</td>
            <td class="col-last">{last}</td>
            <td class="col-next">{next}</td>
            <td class=missed_class title=missed_title>{r.missed}</td>
            <td class=ls_class>{format!("{} / {}", r.late, r.skipped)}</td>
        </tr>
    }
}
