//! The jobs page (`/jobs`): every job of the instance with its last and next run and
//! what went wrong in the window.
//!
//! Sorting and filtering are driven by the query (`?sort=status|name|owner|category|last|next
//! |failed|missed&dir=asc|desc&show=all|problems|failing|failures|missed`): the column headers
//! and filters are links the router takes, so after hydration a click re-sorts in the browser
//! without a request, and without JavaScript the same links ask the server. By default the jobs
//! that need attention come first: failing now, then missed runs, then recovered failures.
//!
//! As SSMS's Job Activity Monitor, each job shows its owner, category and whether it is
//! enabled, and the list filters on them (`&owner=&category=&enabled=yes|no`, [`Attrs`]) with a
//! plain GET form; every link of the page keeps them.
use crate::api::triage::ProblemKind;
use crate::api::{self, JobRow, JobState, JobsData, parse_days};
use crate::components::{ErrorPanel, Header, OutcomeBadge, Time, WindowLinks, instance_query, job_href};
use crate::engine::Severity;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_location, use_query_map};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// What needs attention first: failing now, then missed, then the rest.
    Status,
    Name,
    Owner,
    Category,
    Last,
    Next,
    Failed,
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
            "status" => SortKey::Status,
            "name" => SortKey::Name,
            "owner" => SortKey::Owner,
            "category" => SortKey::Category,
            "last" => SortKey::Last,
            "next" => SortKey::Next,
            "failed" => SortKey::Failed,
            "missed" => SortKey::Missed,
            _ => return None,
        })
    }
    fn key(self) -> &'static str {
        match self {
            SortKey::Status => "status",
            SortKey::Name => "name",
            SortKey::Owner => "owner",
            SortKey::Category => "category",
            SortKey::Last => "last",
            SortKey::Next => "next",
            SortKey::Failed => "failed",
            SortKey::Missed => "missed",
        }
    }
    /// The direction a first click sorts in: the interesting end first.
    fn default_dir(self) -> Dir {
        match self {
            SortKey::Name | SortKey::Owner | SortKey::Category | SortKey::Next | SortKey::Status => Dir::Asc,
            SortKey::Last | SortKey::Missed | SortKey::Failed => Dir::Desc,
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

/// Which jobs the list shows (`?show=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    All,
    /// An open problem now, or any failure, miss, late or skipped run in the window
    /// ([`JobRow::has_problem`]): every job another chip counts.
    Problems,
    /// The last run failed.
    Failing,
    /// At least one failed run in the window.
    Failures,
    /// At least one missed run in the window.
    Missed,
}

impl Show {
    pub const ALL: [Show; 5] = [Show::All, Show::Problems, Show::Failing, Show::Failures, Show::Missed];
    pub fn parse(s: Option<&str>) -> Show {
        match s {
            Some("problems") => Show::Problems,
            Some("failing") => Show::Failing,
            Some("failures") => Show::Failures,
            Some("missed") => Show::Missed,
            _ => Show::All,
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            Show::All => "all",
            Show::Problems => "problems",
            Show::Failing => "failing",
            Show::Failures => "failures",
            Show::Missed => "missed",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Show::All => "All",
            Show::Problems => "Any problem",
            Show::Failing => "Failing now",
            Show::Failures => "With failures",
            Show::Missed => "With missed runs",
        }
    }
    pub fn keeps(self, r: &JobRow) -> bool {
        match self {
            Show::All => true,
            Show::Problems => r.has_problem(),
            // Failing now, as triage judges it, even under a worse state (a zombie scheduler).
            Show::Failing => r.problems.iter().any(|p| {
                matches!(
                    p.kind,
                    crate::engine::triage::ProblemKind::Failed | crate::engine::triage::ProblemKind::NoSuccess
                )
            }),
            Show::Failures => r.failed > 0,
            Show::Missed => r.missed > 0,
        }
    }
}

/// The owner, category and enabled filters (`?owner=&category=&enabled=yes|no`): each, when
/// given, keeps the jobs whose value is exactly it. An empty value filters nothing (what the
/// form's "any" sends).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs {
    pub owner: Option<String>,
    pub category: Option<String>,
    pub enabled: Option<bool>,
}

impl Attrs {
    pub fn from_query(owner: Option<&str>, category: Option<&str>, enabled: Option<&str>) -> Attrs {
        let given = |v: Option<&str>| v.filter(|v| !v.is_empty()).map(str::to_owned);
        Attrs {
            owner: given(owner),
            category: given(category),
            enabled: match enabled {
                Some("yes") => Some(true),
                Some("no") => Some(false),
                _ => None,
            },
        }
    }
    pub fn is_active(&self) -> bool {
        self.owner.is_some() || self.category.is_some() || self.enabled.is_some()
    }
    pub fn keeps(&self, r: &JobRow) -> bool {
        self.owner.as_ref().is_none_or(|o| r.owner.as_ref() == Some(o))
            && self.category.as_ref().is_none_or(|c| *c == r.category)
            && self.enabled.is_none_or(|e| e == r.enabled)
    }
    /// The filters as the tail of a query (`&owner=…`), for every link of the page.
    pub fn query(&self) -> String {
        let enc = crate::components::encode_segment;
        let mut q = String::new();
        if let Some(o) = &self.owner {
            q.push_str(&format!("&owner={}", enc(o)));
        }
        if let Some(c) = &self.category {
            q.push_str(&format!("&category={}", enc(c)));
        }
        if let Some(e) = self.enabled {
            q.push_str(if e { "&enabled=yes" } else { "&enabled=no" });
        }
        q
    }
}

/// The sort a query asks for; by default, what needs attention first.
pub fn sort_from_query(sort: Option<&str>, dir: Option<&str>) -> (SortKey, Dir) {
    let key = sort.and_then(SortKey::parse).unwrap_or(SortKey::Status);
    let dir = match dir {
        Some("asc") => Dir::Asc,
        Some("desc") => Dir::Desc,
        _ => key.default_dir(),
    };
    (key, dir)
}

/// How much a job needs attention; lower first.
fn attention(r: &JobRow) -> (u8, std::cmp::Reverse<usize>, std::cmp::Reverse<usize>, std::cmp::Reverse<usize>) {
    // The judgment's order first (the worst problem), then what the window's runs say.
    let rank = match r.state {
        s if s.is_problem() => s.rank(),
        _ if r.missed > 0 => 20,
        JobState::Recovered => 21,
        _ if r.late + r.skipped > 0 => 22,
        JobState::Running => 23,
        JobState::Ok => 24,
        JobState::NoRun => 25,
        _ => 26,
    };
    let first = if r.state == JobState::Problem(ProblemKind::Failed) { r.streak } else { r.missed };
    (rank, std::cmp::Reverse(first), std::cmp::Reverse(r.failed), std::cmp::Reverse(r.late + r.skipped))
}

/// Sort rows in place; ties (and absent times, always last) by name.
pub fn sort_rows(rows: &mut [JobRow], key: SortKey, dir: Dir) {
    let name = |r: &JobRow| r.name.to_lowercase();
    let owner = |r: &JobRow| r.owner.as_ref().map(|o| o.to_lowercase());
    rows.sort_by(|a, b| {
        use std::cmp::Ordering;
        let directed = |o: Ordering| if dir == Dir::Desc { o.reverse() } else { o };
        let by_opt = |x: Option<i64>, y: Option<i64>| match (x, y) {
            (Some(x), Some(y)) => directed(x.cmp(&y)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        let o = match key {
            SortKey::Status => directed(attention(a).cmp(&attention(b))),
            SortKey::Name => directed(name(a).cmp(&name(b))),
            // Jobs without an owner last, whichever way.
            SortKey::Owner => match (owner(a), owner(b)) {
                (Some(x), Some(y)) => directed(x.cmp(&y)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            SortKey::Category => directed(a.category.to_lowercase().cmp(&b.category.to_lowercase())),
            SortKey::Last => by_opt(a.last_run.as_ref().map(|r| r.start.ms), b.last_run.as_ref().map(|r| r.start.ms)),
            SortKey::Next => by_opt(a.next_expected.as_ref().map(|t| t.ms), b.next_expected.as_ref().map(|t| t.ms)),
            SortKey::Failed => {
                directed(a.failed.cmp(&b.failed).then(a.streak.cmp(&b.streak)).then(a.retries.cmp(&b.retries)))
            }
            SortKey::Missed => {
                directed(a.missed.cmp(&b.missed).then(a.late.cmp(&b.late)).then(a.skipped.cmp(&b.skipped)))
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
    let show = Memo::new(move |_| query.with(|q| Show::parse(q.get("show").as_deref())));
    let attrs = Memo::new(move |_| {
        query.with(|q| {
            Attrs::from_query(q.get("owner").as_deref(), q.get("category").as_deref(), q.get("enabled").as_deref())
        })
    });
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
                    Ok(d) => view! { <JobsView data=d sort=sort show=show attrs=attrs/> }.into_any(),
                    Err(e) => {
                        let base = path.get_untracked();
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

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{} {many}", crate::api::count_text(n)) }
}

#[component]
fn JobsView(data: JobsData, sort: Memo<(SortKey, Dir)>, show: Memo<Show>, attrs: Memo<Attrs>) -> AnyView {
    let days = data.instance.days;
    let total = data.jobs.len();
    let chosen = attrs.get_untracked();
    let aq = move || attrs.get().query();
    let failing = data.jobs.iter().filter(|j| Show::Failing.keeps(j)).count();
    let with_failures = data.jobs.iter().filter(|j| j.failed > 0).count();
    let failed_total: usize = data.jobs.iter().map(|j| j.failed).sum();
    let with_missed = data.jobs.iter().filter(|j| j.missed > 0).count();
    let missed_total: usize = data.jobs.iter().map(|j| j.missed).sum();
    let unknown_total: usize = data.jobs.iter().map(|j| j.unknown).sum();
    let with_unknown = data.jobs.iter().filter(|j| j.unknown > 0).count();
    let disabled = data.jobs.iter().filter(|j| !j.enabled).count();
    // The chips count within the owner, category and enabled filters.
    let counts: Vec<(Show, usize)> =
        Show::ALL.iter().map(|s| (*s, data.jobs.iter().filter(|j| chosen.keeps(j) && s.keeps(j)).count())).collect();
    let shown = data.jobs.iter().filter(|j| chosen.keeps(j) && show.get_untracked().keeps(j)).count();
    let path = use_location().pathname;
    let base = move || {
        let p = path.get();
        if p.is_empty() { "/".to_string() } else { p }
    };
    let title = format!("{} · jobs · Sundial", data.instance.name);
    let scheduler_mid = crate::api::scheduler_mid(&data.instance.scheduler);
    let jobs = StoredValue::new(data.jobs);
    let instance = use_query_map().with_untracked(|q| q.get("instance").filter(|i| !i.is_empty()));
    let iq = instance_query(instance.as_deref());
    let iq2 = iq.clone();
    let iq3 = iq.clone();
    let iq4 = iq.clone();
    let form_instance = instance.clone();
    let show_q = move || match show.get() {
        Show::All => String::new(),
        s => format!("&show={}", s.key()),
    };

    let header_cell = move |key: SortKey, label: &'static str, class: &'static str| {
        let iq = iq.clone();
        let href = move || {
            let (cur, dir) = sort.get();
            let next = if cur == key { dir.flip() } else { key.default_dir() };
            format!("{}?days={days}&sort={}&dir={}{}{}{}", base(), key.key(), next.key(), show_q(), aq(), iq)
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
                <a href=href class="sort" data-sort=key.key()>
                    {label}
                    <span class="arrow" aria-hidden="true">{arrow}</span>
                </a>
            </th>
        }
    };

    let rows = move || {
        let (key, dir) = sort.get();
        let show = show.get();
        let attrs = attrs.get();
        let mut rows: Vec<JobRow> = jobs.get_value().into_iter().filter(|r| attrs.keeps(r) && show.keeps(r)).collect();
        sort_rows(&mut rows, key, dir);
        if rows.is_empty() {
            return view! { <tr><td colspan="11" class="empty-row">"No job matches this filter in this window."</td></tr> }.into_any();
        }
        rows.into_iter()
            .map(|r| job_row(r, days, instance.as_deref(), &scheduler_mid).into_any())
            .collect_view()
            .into_any()
    };
    let filters = counts
        .into_iter()
        .map(|(s, n)| {
            let iq = iq3.clone();
            let href = move || {
                let (key, dir) = sort.get();
                let sq = if s == Show::All { String::new() } else { format!("&show={}", s.key()) };
                format!("{}?days={days}&sort={}&dir={}{sq}{}{iq}", base(), key.key(), dir.key(), aq())
            };
            let current = move || (show.get() == s).then_some("page");
            let class = move || if show.get() == s { "filter active" } else { "filter" };
            view! {
                <a href=href class=class aria-current=current data-show=s.key() data-testid="job-filter">
                    {s.label()} " " <span class="filter-count">{n}</span>
                </a>
            }
        })
        .collect_view();
    let window_text = if days == 1 { "day".to_string() } else { format!("{days} days") };
    let base_now = {
        let p = path.get_untracked();
        if p.is_empty() { "/".to_string() } else { p }
    };
    let clear_href = {
        let (key, dir) = sort.get_untracked();
        let sq = match show.get_untracked() {
            Show::All => String::new(),
            s => format!("&show={}", s.key()),
        };
        format!("{base_now}?days={days}&sort={}&dir={}{sq}{iq4}", key.key(), dir.key())
    };
    let attr_form = attr_form(
        &jobs.get_value(),
        &chosen,
        AttrFormKeep {
            action: base_now.clone(),
            days,
            sort: sort.get_untracked(),
            show: show.get_untracked(),
            instance: form_instance,
        },
    );

    view! {
        <Title text=title/>
        <Header instance=data.instance.clone()/>
        <main id="content" tabindex="-1" class="page">
            <div class="toolbar">
                <h1>"Jobs"</h1>
                <WindowLinks
                    current=days
                    href=move |d| {
                        let (key, dir) = sort.get();
                        format!("{}?days={d}&sort={}&dir={}{}{}{}", base(), key.key(), dir.key(), show_q(), aq(), iq2)
                    }
                />
                <crate::components::JsonLink href=crate::components::api_href("instances/{i}/jobs", &data.instance)/>
                <a href=format!("/timeline?instance={}", crate::components::encode_segment(&data.instance.name)) data-testid="instance-timeline-link">"All jobs on one time axis"</a>
            </div>
            <p class="summary" data-testid="jobs-summary">
                {plural(total, "job", "jobs")}
                {(failing > 0).then(|| view! { " · " <span class="hot" data-testid="failing-count">{format!("{failing} failing now")}</span> })}
                {(with_failures > 0)
                    .then(|| view! { " · " <span class="hot">{format!("{} with failures ({})", with_failures, plural(failed_total, "failed run", "failed runs"))}</span> })}
                {(with_missed > 0).then(|| view! { " · " <span class="hot">{format!("{with_missed} with missed runs ({} missed)", crate::api::count_text(missed_total))}</span> })}
                {(unknown_total > 0)
                    .then(|| view! { " · " <span class="muted" title="Due runs older than the history the scheduler keeps: they cannot be judged, so they are not counted as missed">{format!("{} unknown in {} (history not kept)", crate::api::count_text(unknown_total), plural(with_unknown, "job", "jobs"))}</span> })}
                {(disabled > 0).then(|| format!(" · {disabled} disabled"))}
                " · last " {window_text} " from " <Time t=data.instance.window_start.clone()/>
            </p>
            <crate::components::CannotTellNote scheduler=data.instance.scheduler.clone()/>
            <nav class="filters" aria-label="Show jobs" data-testid="job-filters">{filters}</nav>
            {attr_form}
            {chosen.is_active().then(|| view! {
                <p class="filtered" data-testid="jobs-filtered" data-shown=shown data-total=total>
                    {format!("filtered: {shown} of {}", plural(total, "job", "jobs"))}
                    " · "
                    <a href=clear_href data-testid="jobs-filter-clear">"clear"</a>
                </p>
            })}
            {if total == 0 {
                view! { <p class="empty">"No jobs on this instance."</p> }.into_any()
            } else {
                view! {
                    <table class="jobs" data-testid="jobs-table">
                        <thead>
                            <tr>
                                {header_cell(SortKey::Name, "Job", "col-name")}
                                {header_cell(SortKey::Status, "State", "col-state")}
                                {header_cell(SortKey::Owner, "Owner", "col-owner")}
                                {header_cell(SortKey::Category, "Category", "col-category")}
                                <th scope="col" class="col-enabled">"Enabled"</th>
                                <th scope="col" class="col-schedule">"Schedule"</th>
                                {header_cell(SortKey::Last, "Last run", "col-last")}
                                {header_cell(SortKey::Next, "Next expected", "col-next")}
                                {header_cell(SortKey::Failed, "Failed", "col-num")}
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
        </main>
    }
    .into_any()
}

/// What the filter form keeps of the page's query as hidden fields.
struct AttrFormKeep {
    action: String,
    days: u32,
    sort: (SortKey, Dir),
    show: Show,
    instance: Option<String>,
}

/// The owner, category and enabled filters as a plain GET form (it works without JavaScript):
/// selects listing the values the instance's jobs have, the chosen one selected (also one no
/// job has, from an old link: it shows, and matches nothing).
fn attr_form(jobs: &[JobRow], chosen: &Attrs, keep: AttrFormKeep) -> impl IntoView + use<> {
    let values = |of: &dyn Fn(&JobRow) -> Option<String>, chosen: &Option<String>| {
        let mut v: Vec<String> = jobs.iter().filter_map(of).chain(chosen.clone()).collect();
        v.sort_by_key(|s| s.to_lowercase());
        v.dedup();
        v
    };
    let owners = values(&|j| j.owner.clone(), &chosen.owner);
    let categories = values(&|j| Some(j.category.clone()).filter(|c| !c.is_empty()), &chosen.category);
    let options = |values: Vec<String>, chosen: &Option<String>| {
        values
            .into_iter()
            .map(|v| {
                let selected = chosen.as_ref() == Some(&v);
                view! { <option value=v.clone() selected=selected>{v.clone()}</option> }
            })
            .collect_view()
    };
    let (key, dir) = keep.sort;
    let enabled = chosen.enabled;
    let no_owners = owners.is_empty();
    view! {
        <form method="get" action=keep.action class="log-filter jobs-filter" role="search" aria-label="Filter the jobs" data-testid="jobs-filter">
            <input type="hidden" name="days" value=keep.days/>
            <input type="hidden" name="sort" value=key.key()/>
            <input type="hidden" name="dir" value=dir.key()/>
            {(keep.show != Show::All).then(|| view! { <input type="hidden" name="show" value=keep.show.key()/> })}
            {keep.instance.map(|i| view! { <input type="hidden" name="instance" value=i/> })}
            <div class="log-filter-row">
                <div class="field">
                    <label for="jobs-owner">"Owner"</label>
                    <select id="jobs-owner" name="owner" data-testid="filter-owner" disabled=no_owners>
                        <option value="" selected=chosen.owner.is_none()>
                            {if no_owners { "none recorded" } else { "any owner" }}
                        </option>
                        {options(owners, &chosen.owner)}
                    </select>
                </div>
                <div class="field">
                    <label for="jobs-category">"Category"</label>
                    <select id="jobs-category" name="category" data-testid="filter-category">
                        <option value="" selected=chosen.category.is_none()>"any category"</option>
                        {options(categories, &chosen.category)}
                    </select>
                </div>
                <div class="field">
                    <label for="jobs-enabled">"Enabled"</label>
                    <select id="jobs-enabled" name="enabled" data-testid="filter-enabled">
                        <option value="" selected=enabled.is_none()>"any"</option>
                        <option value="yes" selected=enabled == Some(true)>"Yes"</option>
                        <option value="no" selected=enabled == Some(false)>"No"</option>
                    </select>
                </div>
                <div class="log-filter-actions">
                    <button type="submit" class="button" data-testid="jobs-filter-apply">"Filter"</button>
                </div>
            </div>
        </form>
    }
}

/// A job's state as a pill: a word, never colour alone.
pub fn state_badge(r: &JobRow) -> impl IntoView + use<> {
    let text = match r.state {
        JobState::Problem(ProblemKind::Failed) if r.streak > 1 => format!("Failing ×{}", r.streak),
        JobState::Recovered => format!("Recovered ({} failed)", r.failed),
        s => s.label().to_string(),
    };
    // A problem's state says what triage says of it: its evidence.
    let title = match r.problems.iter().find(|p| JobState::of_problem(p.kind) == r.state) {
        Some(p) if !p.sentence.is_empty() => crate::components::sentence_text(&p.sentence, &crate::components::prefs()),
        Some(p) => p.evidence.clone(),
        None => match r.state {
            JobState::Recovered => "A run failed in this window; the last run succeeded".to_string(),
            JobState::Running => "A run is going now".to_string(),
            JobState::Ok => match &r.failed_unknown {
                Some(why) => format!("No problem now; runs started in this window, their outcome unknown ({why})"),
                None => "No problem now; the window's runs succeeded".to_string(),
            },
            JobState::NoRun => "No problem now; no run in this window".to_string(),
            JobState::Disabled => "The job is disabled".to_string(),
            s => s.label().to_string(),
        },
    };
    view! {
        <span class=r.state.classes() title=title data-testid="job-state" data-state=r.state.key() data-streak=r.streak>
            {text}
        </span>
    }
}

fn job_row(r: JobRow, days: u32, instance: Option<&str>, scheduler: &str) -> impl IntoView {
    let href = job_href(instance, &r.id, days);
    let row_class = if r.enabled { "job" } else { "job disabled" };
    let missed_title = if r.missed_zombie > 0 {
        format!("{} missed, {} of them while {scheduler} started nothing", r.missed, r.missed_zombie)
    } else {
        format!("{} missed of {} due", r.missed, r.due)
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
    let state = state_badge(&r);
    let held = crate::routes::triage::held_notes(&r.problems, false);
    let schedules = if r.schedules.is_empty() {
        view! { <span class="muted">"No schedule"</span> }.into_any()
    } else {
        let notes = r.schedule_notes.clone();
        r.schedules
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let note = notes.get(i).cloned().flatten();
                view! {
                    <div class="schedule">
                        {s}
                        {note.map(|n| view! { " " <span class="schedule-note" data-testid="schedule-note">{format!("({n})")}</span> })}
                    </div>
                }
            })
            .collect_view()
            .into_any()
    };
    let last = match r.last_run.clone() {
        Some(l) => view! {
            <OutcomeBadge outcome=l.outcome/>
            " "
            <Time t=l.start/>
            <span class="muted">
                {if l.duration == "unknown" { " · duration unknown".to_owned() } else { format!(" · took {}", l.duration) }}
            </span>
        }
        .into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    };
    // Under a stopped, zombie or unreachable scheduler the next run will not happen.
    let next = match r.next_expected.clone() {
        Some(t) if r.state.stops_runs() => view! {
            <s class="wont-run" data-testid="next-wont-run" title=format!("Will not run while the instance's state holds: {}", r.state.label().to_lowercase())>
                <Time t=t/>
            </s>
            <span class="wont-run-note">" won't run"</span>
        }
        .into_any(),
        Some(t) => view! { <Time t=t/> }.into_any(),
        None => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let failed_class = if r.failed > 0 { "col-num failures hot" } else { "col-num failures" };
    let failed_title = format!(
        "{} in this window: {} failed, {} retried, {} canceled",
        plural(r.failed + r.retries + r.canceled, "run with trouble", "runs with trouble"),
        r.failed,
        r.retries,
        r.canceled
    );
    let missed_class = if r.missed > 0 { "col-num missed hot" } else { "col-num missed" };
    let ls_class = if r.late + r.skipped > 0 { "col-num warm" } else { "col-num" };
    // Where history was trimmed the count cannot be 0: say what is unknown, and since when.
    let unknown = (r.unknown > 0).then(|| {
        let since = r.history_since.clone();
        view! {
            <span class="unknown-count" data-testid="unknown-count" data-unknown=r.unknown>
                {format!("{} unknown", crate::api::count_text(r.unknown))}
                {since.map(|t| view! { <span class="unknown-since">" (history since " <Time t=t/> ")"</span> })}
            </span>
        }
    });
    let missed_text = if r.unknown > 0 && r.missed == 0 { "0 known".to_string() } else { r.missed.to_string() };
    view! {
        <tr
            class=row_class
            data-testid="job-row"
            data-job-id=r.id.clone()
            data-state=r.state.key()
            data-failed=r.failed
            data-missed=r.missed
            data-missed-zombie=r.missed_zombie
            data-unknown=r.unknown
            data-late=r.late
            data-skipped=r.skipped
        >
            <td class="col-name" data-label="Job">
                <a href=href class="job-link">{r.name.clone()}</a>
                {(!r.enabled).then(|| view! { " " <span class="tag tag-disabled">"disabled"</span> })}
                {diagnostics.map(|d| view! { " " {d} })}
                // Where the Owner and Category columns do not fit (laptops), under the name.
                <div class="job-meta" data-testid="job-meta">
                    {(!r.category.is_empty()).then(|| view! { <span title="Category">{r.category.clone()}</span> })}
                    {(!r.category.is_empty() && r.owner.is_some()).then_some(" · ")}
                    {r.owner.clone().map(|o| view! { <span title="Owner">{o}</span> })}
                </div>
            </td>
            <td class="col-state" data-label="State">{state} {held}</td>
            <td class="col-owner" data-label="Owner" data-testid="job-owner">
                {match r.owner.clone() {
                    Some(o) => o.into_any(),
                    None => view! { <span class="muted" title="The scheduler records no owner">"—"</span> }.into_any(),
                }}
            </td>
            <td class="col-category" data-label="Category" data-testid="job-category">
                {if r.category.is_empty() { view! { <span class="muted">"—"</span> }.into_any() } else { r.category.clone().into_any() }}
            </td>
            <td class="col-enabled" data-label="Enabled" data-testid="job-enabled" data-enabled=if r.enabled { "yes" } else { "no" }>
                {if r.enabled { "Yes" } else { "No" }}
            </td>
            <td class="col-schedule" data-label="Schedule">{schedules}</td>
            <td class="col-last" data-label="Last run">{last}</td>
            <td class="col-next" data-label="Next expected">{next}</td>
            <td class=failed_class data-label="Failed" title=r.failed_unknown.clone().unwrap_or(failed_title) data-testid="failed-count">
                {match &r.failed_unknown {
                    Some(_) => view! { <span class="muted" data-testid="failed-unknown">"unknown"</span> }.into_any(),
                    None => r.failed.to_string().into_any(),
                }}
                {(r.retries > 0).then(|| view! { <span class="sub">{format!(" +{} retried", r.retries)}</span> })}
            </td>
            <td class=missed_class data-label="Missed" title=missed_title data-testid="missed-count">
                {missed_text}
                {unknown}
            </td>
            <td class=ls_class data-label="Late / skipped">{format!("{} / {}", r.late, r.skipped)}</td>
        </tr>
    }
}
