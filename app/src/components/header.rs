//! The header every page shares: Sundial, the navigation, the instance with its zone and
//! "now", how fresh the data is, the zone and theme switches; under it, the instance's
//! incidents of the last 30 days and a banner when its source cannot be read now.
use super::time::{ThemeToggle, Time, ZoneSwitch};
use crate::api::{Incident, IncidentKind, InstanceHead, Scheduler, count_text, duration_text, offset_label};
use crate::components::encode_segment;
use leptos::prelude::*;
use leptos_router::hooks::use_location;

/// Which view a navigation link stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Jobs,
    Fleet,
    Triage,
    Log,
    Timeline,
    Calendar,
    Simulate,
    Other,
}

fn current_view(path: &str) -> View {
    if path.starts_with("/jobs") {
        View::Jobs
    } else if path == "/" || path.starts_with("/fleet") {
        View::Fleet
    } else if path.starts_with("/triage") {
        View::Triage
    } else if path.starts_with("/log") {
        View::Log
    } else if path.starts_with("/timeline") {
        View::Timeline
    } else if path.starts_with("/calendar") {
        View::Calendar
    } else if path.starts_with("/simulate") {
        View::Simulate
    } else {
        View::Other
    }
}

#[component]
pub fn Header(#[prop(optional)] instance: Option<InstanceHead>) -> AnyView {
    let stale = instance.as_ref().and_then(|i| i.stale.clone());
    let view_now = current_view(&use_location().pathname.get_untracked());
    let iq = instance.as_ref().map(|i| format!("&instance={}", encode_segment(&i.name))).unwrap_or_default();
    let days = instance.as_ref().map(|i| i.days).unwrap_or(crate::api::DEFAULT_DAYS);
    let link = move |v: View, href: String, label: &'static str| {
        let current = (v == view_now).then_some("page");
        view! { <a href=href class="nav-link" aria-current=current data-testid=format!("nav-{}", label.to_lowercase())>{label}</a> }
    };
    let incidents =
        instance.as_ref().map(incidents_view).filter(|_| instance.as_ref().is_some_and(|i| !i.incidents.is_empty()));
    view! {
        <header class="topbar">
            <a href="/" class="brand-link">
                <span class="brand">
                    <span class="brand-mark" aria-hidden="true">"◴"</span>
                    <span class="brand-word">" Sundial"</span>
                </span>
            </a>
            <nav class="primary-nav" aria-label="Views">
                {link(View::Jobs, format!("/jobs?days={days}{iq}"), "Jobs")}
                {link(View::Triage, "/triage".to_string(), "Triage")}
                {link(View::Fleet, "/fleet".to_string(), "Fleet")}
                {link(View::Log, format!("/log?days={days}{iq}"), "Log")}
                {link(View::Timeline, format!("/timeline{}", iq.replacen('&', "?", 1)), "Timeline")}
                {link(View::Calendar, format!("/calendar{}", iq.replacen('&', "?", 1)), "Calendar")}
                {link(View::Simulate, "/simulate".to_string(), "Simulate")}
            </nav>
            {open_count()}
            // The rest: in a row at a desk; behind "Menu" on a phone (a disclosure: no script).
            <details class="topbar-more">
                <summary class="topbar-menu-toggle" data-testid="menu">
                    "Menu"
                    // On a phone the header keeps the instance and its now (its offset) in sight.
                    {instance.as_ref().map(|i| {
                        view! {
                            <span class="menu-instance">
                                <span class="menu-instance-name">{i.name.clone()}</span>
                                " "
                                <span class="menu-now">"now " <Time t=i.now.clone()/></span>
                            </span>
                        }
                    })}
                </summary>
                <div class="topbar-menu">
                    {instance
                        .clone()
                        .map(|i| {
                            let zone_title = format!("The instance's time zone ({}): times are shown in it unless you switch", i.tz);
                            view! {
                                <div class="instance" data-testid="instance">
                                    {instance_switch(i.name.clone(), i.days)}
                                    <span class="instance-meta instance-zone" title=zone_title data-testid="instance-zone">
                                        {i.tz.clone()} " (" {offset_label(i.now.off)} ")"
                                    </span>
                                    <span class="instance-meta" title="The instance's current time">
                                        "now " <Time t=i.now.clone()/>
                                    </span>
                                    {as_of(&i)}
                                </div>
                            }
                        })}
                    <form method="get" action="/find" class="find-box" role="search" data-testid="find-box">
                        <label class="visually-hidden" for="find-box-q">"Find a job by name"</label>
                        <input id="find-box-q" name="q" type="search" placeholder="Find a job…" maxlength="200" autocomplete="off"/>
                    </form>
                    <div class="prefs">
                        <ZoneSwitch/>
                        <ThemeToggle/>
                        {account()}
                    </div>
                </div>
            </details>
        </header>
        {stale.map(|s| view! { <div class="banner banner-stale" role="alert" data-testid="stale-banner"><strong>"Unreachable. "</strong>{s}</div> })}
        {incidents}
    }
    .into_any()
}

/// The instance a page is about, and a switch to another (a plain form: it works without
/// JavaScript). From a job's page it goes to the other instance's jobs list (job ids are an
/// instance's own); elsewhere to the same page of the other instance.
fn instance_switch(name: String, days: u32) -> impl IntoView {
    let fleet = Resource::new(|| (), |_| crate::api::fleet(None));
    let path = use_location().pathname.get_untracked();
    let action = if path.starts_with("/jobs/") || path.is_empty() { "/jobs".to_owned() } else { path };
    let shown = name.clone();
    view! {
        <Suspense fallback=move || view! { <span class="instance-name" title="The instance">{shown.clone()}</span> }>
            {move || {
                let (name, action) = (name.clone(), action.clone());
                Suspend::new(async move {
                    let names: Vec<String> =
                        fleet.await.map(|f| f.instances.into_iter().map(|i| i.name).collect()).unwrap_or_default();
                    if names.len() < 2 {
                        return view! { <span class="instance-name" title="The instance">{name}</span> }.into_any();
                    }
                    view! {
                        <form method="get" action=action class="instance-switch" data-testid="instance-switch">
                            <label class="visually-hidden" for="instance-switch">"Instance"</label>
                            <select id="instance-switch" name="instance" class="instance-name">
                                {names
                                    .into_iter()
                                    .map(|n| {
                                        let selected = n == name;
                                        view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
                                    })
                                    .collect_view()}
                            </select>
                            <input type="hidden" name="days" value=days/>
                            <button type="submit" class="instance-go">"Show"</button>
                        </form>
                    }
                        .into_any()
                })
            }}
        </Suspense>
    }
}

/// How many problems are open now across the fleet, and how many of them someone
/// acknowledged or silenced: "6 open · 1 acknowledged · 1 silenced", on every page, from the fleet's one judgment.
fn open_count() -> impl IntoView {
    // Counted, no row listed: every page carries this.
    let judged = Resource::new(|| (), |_| crate::api::triage(None, Some(0)));
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                judged.await.ok().map(|t| {
                    let (open, acked, silenced) = (t.open_total(), t.acknowledged_total, t.silenced_total);
                    let class = if open > 0 { "nav-count nav-count-open" } else { "nav-count" };
                    let held = t.held_words().replace(", ", " · ");
                    let text = if held.is_empty() { format!("{open} open") } else { format!("{open} open · {held}") };
                    view! {
                        <a href="/triage" class=class data-testid="open-count" data-open=open data-acknowledged=acked data-silenced=silenced
                            title="Problems open now across the fleet (triage), and those someone acknowledged or silenced">
                            {text}
                        </a>
                    }
                })
            })}
        </Suspense>
    }
}

/// Who is signed in, and a way to sign out (a session's only: a token or a proxy's user
/// cannot); nothing when Sundial asks for no sign-in.
fn account() -> Option<impl IntoView + use<>> {
    let p = crate::api::principal()?;
    let out = (p.via == crate::api::SignedInVia::Session).then(|| {
        view! {
            <form method="post" action="/signout" class="signout-form">
                <button type="submit" data-testid="sign-out">"Sign out"</button>
            </form>
        }
    });
    Some(view! {
        <span class="account" data-testid="account" title=format!("Signed in as {} ({})", p.name, p.role.key())>
            <span class="account-name">{p.name.clone()}</span>
            <span class="account-role muted">{p.role.key()}</span>
            {out}
        </span>
    })
}

/// "data as of …": how fresh the page is, and a way to refresh it.
fn as_of(i: &InstanceHead) -> impl IntoView + use<> {
    match (i.poll_secs, i.as_of.clone()) {
        (None, _) => view! {
            <span class="as-of" data-testid="as-of" title="The demo's data is fixed at its own \"now\"">"demo data, fixed now"</span>
        }
        .into_any(),
        (Some(poll), at) => {
            let age = i.age_secs.unwrap_or(0);
            let old = age > 2 * poll as i64;
            let age_text = if old { format!(" ({} old)", duration_text(age)) } else { String::new() };
            view! {
                <span class="as-of" class:as-of-old=old data-testid="as-of" title=format!("Read every {}; the page refreshes itself", duration_text(poll as i64))>
                    "data as of " {at.map(|t| view! { <Time t=t/> })} {age_text} " · "
                    <a href="" rel="external" class="refresh">"Refresh"</a>
                    <super::refresh::AutoRefresh secs=poll/>
                </span>
            }
            .into_any()
        }
    }
}

fn incident_view(inc: &Incident, scheduler: &Scheduler, log_href: String) -> impl IntoView + use<> {
    let span = duration_text((inc.end.ms - inc.start.ms) / 1000);
    let runs = |n: usize| if n == 1 { "1 run".to_string() } else { format!("{} runs", count_text(n)) };
    let jobs = |n: usize| if n == 1 { "1 job".to_string() } else { format!("{} jobs", count_text(n)) };
    let (kind, title, what) = match inc.kind {
        IncidentKind::Zombie => {
            ("zombie", scheduler.zombie_title(), format!("{} started no job from ", scheduler.label()))
        }
        IncidentKind::SchedulerDown if inc.ongoing => {
            ("down", "Scheduler stopped.", format!("{} is stopped: down by ", scheduler.down_who()))
        }
        IncidentKind::SchedulerDown => {
            ("down", "Scheduler stopped.", format!("{} was down (it restarted): down by ", scheduler.down_who()))
        }
        IncidentKind::Unreachable => {
            ("unreachable", "Unreachable.", "Sundial could not read this instance from ".to_string())
        }
    };
    let cost = match inc.kind {
        IncidentKind::Zombie => {
            let mut t = format!("{} due: {} missed", runs(inc.due), count_text(inc.missed));
            if inc.unknown > 0 {
                t.push_str(&format!(", {} unknown (history not kept)", count_text(inc.unknown)));
            }
            if inc.due > inc.missed + inc.unknown {
                t.push_str(&format!(", {} not missed", count_text(inc.due - inc.missed - inc.unknown)));
            }
            t.push_str(&format!("; {} affected.", jobs(inc.jobs)));
            t
        }
        IncidentKind::SchedulerDown if inc.due == 0 => "no run was due while it was down.".to_string(),
        IncidentKind::SchedulerDown => {
            let late = inc.due.saturating_sub(inc.missed);
            let mut t = if inc.missed == 0 {
                "no run was missed".to_string()
            } else {
                format!("{} missed across {}", runs(inc.missed), jobs(inc.jobs))
            };
            if late > 0 {
                t.push_str(&format!("; {} late, when it came back", runs(late)));
            }
            t + "."
        }
        IncidentKind::Unreachable if inc.ongoing => {
            format!(
                "it still cannot be read ({}); pages show its last good read.",
                inc.reason.clone().unwrap_or_default()
            )
        }
        IncidentKind::Unreachable => format!(
            "{}. Its runs of that time were read once it answered again, unless its history was trimmed meanwhile.",
            inc.reason.clone().unwrap_or_default()
        ),
    };
    let testid = match inc.kind {
        IncidentKind::Zombie => "zombie-banner",
        IncidentKind::SchedulerDown => "stopped-banner",
        IncidentKind::Unreachable => "incident",
    };
    // A stop: when it was down at the latest, and its last sign of life before.
    let down = inc.kind == IncidentKind::SchedulerDown;
    let by = down.then(|| {
        view! {
            " at the latest"
            {match inc.last_seen.clone() {
                Some(t) => view! { " (last seen " <Time t=t/> ")" }.into_any(),
                None => view! { " (no run seen before)" }.into_any(),
            }}
        }
    });
    let ongoing = inc.ongoing;
    let until = if ongoing {
        view! { {if down { ", still stopped now (" } else { " to now (" }} <Time t=inc.end.clone()/> ")" }.into_any()
    } else {
        view! { {if down { ", back at " } else { " to " }} <Time t=inc.end.clone()/> }.into_any()
    };
    let role = ongoing.then_some("alert");
    view! {
        <div class=format!("incident incident-{kind}") class:incident-ongoing=ongoing role=role data-testid=testid data-kind=kind
            data-ongoing=ongoing.to_string() data-due=inc.due data-missed=inc.missed data-unknown=inc.unknown>
            <strong>{title}</strong>
            " "
            {what}
            <Time t=inc.start.clone()/>
            {by}
            {until}
            {(!ongoing).then(|| format!(" ({span})"))}
            ": "
            {cost}
            " "
            <a class="incident-link" href=log_href data-testid="incident-link">"See it in the log"</a>
        </div>
    }
}

fn incidents_view(i: &InstanceHead) -> impl IntoView + use<> {
    let scheduler = &i.scheduler;
    let instance = Some(i.name.as_str());
    let items = i
        .incidents
        .iter()
        .map(|inc| {
            let href = inc.log_href(instance);
            incident_view(inc, scheduler, href)
        })
        .collect_view();
    view! {
        <section class="incidents" aria-label="Incidents in the last 30 days" data-testid="incidents">
            {items}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TimePoint;

    fn zombie() -> Incident {
        let at = |ms: i64| TimePoint { ms, local: String::new(), off: 0 };
        Incident {
            kind: IncidentKind::Zombie,
            start: at(1_763_000_000_000),
            end: at(1_763_100_000_000),
            due: 4,
            missed: 4,
            unknown: 0,
            jobs: 2,
            ongoing: false,
            reason: None,
            last_seen: None,
        }
    }

    fn banner(scheduler: Scheduler, kind: IncidentKind) -> String {
        let inc = Incident { kind, ..zombie() };
        Owner::new().with(|| incident_view(&inc, &scheduler, "/log".into()).to_html())
    }

    #[test]
    fn incidents_name_the_instances_scheduler() {
        let agent = banner(Scheduler::SqlAgent, IncidentKind::Zombie);
        assert!(agent.contains("Zombie Agent.") && agent.contains("SQL Agent started no job from"), "{agent}");
        let pg = banner(Scheduler::PgCron, IncidentKind::Zombie);
        assert!(pg.contains("Zombie scheduler.") && pg.contains("pg_cron started no job from"), "{pg}");
        assert!(!pg.contains("Agent"), "{pg}");
        let down = banner(Scheduler::Primentra, IncidentKind::SchedulerDown);
        assert!(down.contains("The Primentra dispatcher was down"), "{down}");
        // pgAgent back from a night down: what it missed, and what it ran late on its return.
        let inc = Incident { kind: IncidentKind::SchedulerDown, due: 7, missed: 4, jobs: 1, ..zombie() };
        let back = Owner::new().with(|| incident_view(&inc, &Scheduler::PgAgent, "/log".into()).to_html());
        assert!(back.contains("4 runs missed across 1 job; 3 runs late, when it came back."), "{back}");
    }
}
