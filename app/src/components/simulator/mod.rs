//! The schedule simulator: an island, computed in the browser by the engine on every edit,
//! with no request to the server (a zone chosen for the first time fetches that zone's rules,
//! once).
//!
//! - [`model`]: the state as data and what it computes (next runs, descriptions, diagnostics,
//!   the instance replay); testable natively.
//! - [`agent_form`]: SSMS's New Job Schedule dialog for `msdb.dbo.sysschedules` rows.
//! - [`row_form`]: one labelled field per column for the other dialects' rows.
//!
//! The whole state lives in the URL (`history.replaceState` on every edit), so a link
//! reproduces the view. The row's JSON (`#schedule-json`) is the source of truth: the controls
//! rewrite it, and typing in it updates the controls.
pub mod agent_form;
pub mod impact;
pub mod model;
pub mod row_form;

use crate::engine::edit::{self, Dialect, Row, Target};
use crate::engine::{Diagnostic, Dst, Schedule, Zone};
use leptos::either::Either;
use leptos::prelude::*;
use model::{NextRun, Preview, SimSetup};

/// The state every control reads and writes.
#[derive(Clone, Copy)]
pub struct Sim {
    pub dialect: RwSignal<Dialect>,
    /// The row as JSON, as the DBA sees and pastes it.
    pub json: RwSignal<String>,
    /// `json` parsed (errors name the column).
    pub parsed: Memo<Result<Row, Vec<Diagnostic>>>,
}

impl Sim {
    /// The schedule as parsed now (`None` while the JSON does not parse).
    pub fn schedule(&self) -> Option<Schedule> {
        self.parsed.with(|p| p.as_ref().ok().map(|r| r.schedule.clone()))
    }
    /// Replace the row's schedule columns with `s`'s, keeping every other column of the
    /// pasted row (keys, names, …).
    pub fn set_schedule(&self, s: &Schedule) {
        let fresh = edit::to_row(s);
        self.json.update(|j| *j = merge_row(j, &fresh));
    }
}

/// `fresh`'s columns written over `old`'s (matched case-insensitively), other columns kept.
pub fn merge_row(old: &str, fresh: &str) -> String {
    use serde_json::Value;
    let (Ok(Value::Object(mut old)), Ok(Value::Object(fresh))) = (serde_json::from_str::<Value>(old), serde_json::from_str::<Value>(fresh)) else {
        return fresh.to_owned();
    };
    for (k, v) in fresh {
        let key = old.keys().find(|o| o.eq_ignore_ascii_case(&k)).cloned().unwrap_or(k);
        old.insert(key, v);
    }
    serde_json::to_string_pretty(&Value::Object(old)).unwrap_or_default()
}

/// The simulator island. The server renders the whole simulator (so the page reads complete
/// without JavaScript); in the browser the island replaces it with a live one, built rather
/// than hydrated (hydrating a view this size would double its WASM), and marks the root
/// `data-ready` once it is live.
#[island]
pub fn Simulator(setup: SimSetup) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    {
        let setup = StoredValue::new(Some(setup));
        Effect::new(move |_| {
            use wasm_bindgen::JsCast;
            let (Some(setup), Some(root)) = (setup.try_update_value(Option::take).flatten(), document().get_element_by_id("sim-root")) else { return };
            root.set_inner_html("");
            let Ok(root) = root.dyn_into::<web_sys::HtmlElement>() else { return };
            std::mem::forget(leptos::mount::mount_to(root.clone(), move || view! { <SimulatorView setup=setup/> }));
            let _ = root.set_attribute("data-ready", "true");
        });
        view! { <div id="sim-root"></div> }
    }
    // On the server, type-erased: the view's type is deeper than the compiler's default limit.
    #[cfg(not(feature = "hydrate"))]
    view! { <div id="sim-root">{view! { <SimulatorView setup=setup/> }.into_any()}</div> }
}

/// The simulator itself.
#[component]
fn SimulatorView(setup: SimSetup) -> impl IntoView {
    let now = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(setup.job.as_ref().map(|j| j.now_ms).unwrap_or(setup.now_ms)).unwrap_or_default();
    let job = StoredValue::new(setup.job.clone());
    let inst = StoredValue::new(setup.job.as_ref().map(model::read_job));
    let dialect = RwSignal::new(Dialect::parse(&setup.dialect).unwrap_or(Dialect::Agent));
    let json = RwSignal::new(setup.row.clone());
    let parsed = Memo::new(move |_| json.with(|j| edit::parse_row_full(dialect.get(), j)));
    let sim = Sim { dialect, json, parsed };
    let after = RwSignal::new(setup.after.clone());
    let count = RwSignal::new(setup.count.to_string());
    let days = RwSignal::new(setup.days.to_string());
    let tz_name = RwSignal::new(setup.rules.name().to_owned());
    let zone = RwSignal::new(Zone::Rules(setup.rules.clone().leak()));
    let zone_error = RwSignal::new(None::<String>);
    let pg_cron = RwSignal::new(setup.pg_cron);
    // The statement's target: from the job's row, else from key columns in the pasted row.
    let target = Memo::new(move |_| {
        let from_job = inst.with_value(|i| i.as_ref().and_then(|i| i.original.as_ref().map(|r| r.target.clone())));
        let from_row = parsed.with(|p| p.as_ref().ok().map(|r| r.target.clone()));
        from_job.or(from_row).unwrap_or_else(|| Target::none(dialect.get()))
    });

    // Form-level problems (after, count), named like the engine's.
    let form_errors = Memo::new(move |_| {
        let mut e = Vec::new();
        if after.with(|a| model::parse_local(a).is_none()) {
            e.push(Diagnostic::error("after", after.get(), "must be a date and time, YYYY-MM-DDTHH:MM:SS"));
        }
        if count.with(|c| !matches!(c.trim().parse::<usize>(), Ok(1..=model::MAX_COUNT))) {
            e.push(Diagnostic::error("count", count.get(), format!("must be a number from 1 to {}", model::MAX_COUNT)));
        }
        e
    });
    let current = Memo::new(move |_| {
        let mut p = match parsed.get() {
            Err(errors) => Preview { errors, ..Default::default() },
            Ok(row) => {
                let after_at = after.with(|a| model::parse_local(a));
                let n = count.with(|c| c.trim().parse::<usize>().unwrap_or(model::DEFAULT_COUNT));
                let mut p = match after_at {
                    Some(a) => model::preview(&row.schedule, zone.get(), a, n, pg_cron.get(), now),
                    None => Preview { description: crate::engine::describe(&row.schedule), ..Default::default() },
                };
                if matches!(row.schedule, Schedule::Cron(_)) && row.active == Some(false) {
                    p.warnings.push(Diagnostic::warning("active", "false", "the job is inactive: pg_cron does not run it until active is true again"));
                }
                p
            }
        };
        p.errors.extend(form_errors.get());
        if p.errors.iter().any(|d| d.field.as_deref() == Some("after")) {
            p.runs.clear();
        }
        p
    });
    // An invalid edit keeps the last valid preview (shown apart, marked stale): `#next-runs`
    // always holds the runs of the row as it is, none while it is invalid.
    let last_valid = Memo::new(move |prev: Option<&Option<Preview>>| {
        let p = current.get();
        if p.is_valid() { Some(p) } else { prev.cloned().flatten() }
    });
    // (Memos are lazy: read `last_valid` on every change so it sees every valid version.)
    let stale = Memo::new(move |_| {
        let last = last_valid.get();
        if current.with(Preview::is_valid) { None } else { last }
    });
    let impact = Memo::new(move |_| {
        let s = sim.schedule()?;
        if !current.with(Preview::is_valid) {
            return None;
        }
        let d = days.with(|d| d.trim().parse::<u32>().ok()).unwrap_or(model::DEFAULT_DAYS).clamp(1, model::MAX_DAYS);
        inst.with_value(|i| i.as_ref().map(|i| model::impact(i, &s, zone.get(), d)))
    });
    let statement = Memo::new(move |_| {
        let original = inst.with_value(|i| i.as_ref().and_then(|i| i.original.as_ref().map(|r| r.schedule.clone())));
        sim.schedule().map(|s| edit::apply_statement(original.as_ref(), &s, &target.get()))
    });

    // Keep the URL in step with the state (no request: `history.replaceState`).
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let mut q = vec![
            ("dialect", dialect.get().key().to_owned()),
            ("after", after.get()),
            ("count", count.get()),
            ("tz", tz_name.get()),
        ];
        if let Some(j) = job.get_value() {
            q.push(("instance", j.instance));
            q.push(("job", j.id));
            q.push(("schedule", j.schedule_id.to_string()));
            q.push(("days", days.get()));
        }
        if let Some((a, b)) = pg_cron.get() {
            q.push(("pg_cron", format!("{a}.{b}")));
        }
        let row = json.with(|j| serde_json::from_str::<serde_json::Value>(j).map(|v| v.to_string()).unwrap_or_else(|_| j.clone()));
        q.push(("row", row));
        let query: Vec<String> = q.iter().map(|(k, v)| format!("{k}={}", String::from(js_sys::encode_uri_component(v)))).collect();
        if let Ok(h) = window().history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("/simulate?{}", query.join("&"))));
        }
    });

    let choose_zone = move |name: String| {
        let name = name.trim().to_owned();
        tz_name.set(name.clone());
        if let Some(z) = Zone::from_name(&name) {
            zone.set(z);
            zone_error.set(None);
            return;
        }
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::api::fetch_zone_rules(name.clone()).await {
                Ok(rules) if tz_name.get_untracked() == name => {
                    zone.set(Zone::Rules(rules.leak()));
                    zone_error.set(None);
                }
                Ok(_) => {}
                Err(e) => zone_error.set(Some(e.to_string())),
            }
        });
    };

    let is_cron = Memo::new(move |_| dialect.get() == Dialect::Cron);
    let is_agent = Memo::new(move |_| dialect.get() == Dialect::Agent);
    let dialect_select = move || {
        view! {
            <div class="field">
                <label for="sim-dialect">"Scheduler"</label>
                <select
                    id="sim-dialect"
                    on:change=move |ev| {
                        if let Some(d) = Dialect::parse(&event_target_value(&ev)) {
                            dialect.set(d);
                            json.set(merge_row("{}", row_form::example_row(d)));
                        }
                    }
                    disabled=job.with_value(Option::is_some)
                >
                    {Dialect::ALL
                        .into_iter()
                        .map(|d| view! { <option value=d.key() selected=move || dialect.get() == d>{d.label()}</option> })
                        .collect_view()}
                </select>
            </div>
        }
    };

    view! {
        <div class="simulator" data-testid="simulator">
            {setup.notes.iter().map(|n| view! { <p class="banner banner-stale" role="alert">{n.clone()}</p> }).collect_view()}
            <div class="sim-grid">
                <section class="sim-edit" aria-labelledby="sim-edit-h">
                    <h2 id="sim-edit-h">"The schedule"</h2>
                    <div class="sim-row">
                        {dialect_select}
                        <div class="field">
                            <label for="sim-tz">"Time zone"</label>
                            <input id="sim-tz" list="zones" autocomplete="off" spellcheck="false" prop:value=move || tz_name.get() on:change=move |ev| choose_zone(event_target_value(&ev))/>
                        </div>
                        <div class="field">
                            <label for="sim-after">"Runs after (local time)"</label>
                            <input id="sim-after" type="datetime-local" step="1" prop:value=move || after.get() on:input=move |ev| after.set(event_target_value(&ev))/>
                        </div>
                        <div class="field field-narrow">
                            <label for="sim-count">"How many"</label>
                            <input id="sim-count" type="number" min="1" max=model::MAX_COUNT prop:value=move || count.get() on:input=move |ev| count.set(event_target_value(&ev))/>
                        </div>
                        {move || is_cron.get().then(|| view! {
                            <div class="field">
                                <label for="sim-pgcron">"pg_cron version"</label>
                                <select id="sim-pgcron" on:change=move |ev| pg_cron.set(parse_version(&event_target_value(&ev)))>
                                    <option value="1.4" selected=move || pg_cron.get() == Some((1, 4))>"1.4 (UTC only, five fields)"</option>
                                    <option value="1.5" selected=move || pg_cron.get() == Some((1, 5))>"1.5 (cron.timezone, seconds)"</option>
                                    <option value="1.6" selected=move || matches!(pg_cron.get(), None | Some((1, 6..)))>"1.6 or later ($)"</option>
                                </select>
                            </div>
                        })}
                    </div>
                    <p class="sim-zone-error" role="alert">{move || zone_error.get()}</p>
                    {move || match is_agent.get() {
                        true => Either::Left(view! { <agent_form::AgentForm sim=sim/> }),
                        false => Either::Right(view! { <row_form::RowForm sim=sim/> }),
                    }}
                    <div class="field field-wide">
                        <label for="schedule-json">"The row as JSON (paste a " {move || dialect.get().table()} " row: SELECT … FOR JSON, row_to_json, JSON_OBJECT)"</label>
                        <textarea id="schedule-json" rows="12" spellcheck="false" prop:value=move || json.get() on:input=move |ev| json.set(event_target_value(&ev))></textarea>
                    </div>
                </section>
                <section class="sim-result" aria-labelledby="sim-result-h">
                    <h2 id="sim-result-h">"What it does"</h2>
                    <div id="schedule-diagnostics" class="sim-diagnostics" role="alert">
                        {move || current.with(|p| p.errors.iter().map(|d| view! { <p class="sim-diag sim-diag-error">{d.to_string()}</p> }).collect_view())}
                    </div>
                    <Description preview=current stale=stale/>
                    <NextRuns preview=current stale=stale/>
                    <div class="sim-warnings" data-testid="schedule-warnings">
                        {move || current.with(|p| p.warnings.iter().map(|d| view! { <p class="sim-diag sim-diag-warning">{d.to_string()}</p> }).collect_view())}
                    </div>
                    <Statement statement=statement/>
                </section>
            </div>
            {job.with_value(Option::is_some).then(|| view! { <impact::ImpactView impact=impact zone=zone days=days/> })}
        </div>
    }
}

fn parse_version(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

#[component]
fn Description(preview: Memo<Preview>, stale: Memo<Option<Preview>>) -> impl IntoView {
    // The row's own description when it reads at all, else the last valid one's.
    let text = move || match preview.with(|p| p.description.clone()) {
        d if d.is_empty() => stale.with(|s| s.as_ref().map(|s| s.description.clone()).unwrap_or_default()),
        d => d,
    };
    view! {
        <dl class="sim-describe">
            <dt>"Summary"</dt>
            <dd data-testid="describe">{text}</dd>
            {move || {
                preview
                    .with(|p| p.msdb.clone())
                    .map(|m| view! { <dt>"msdb (sp_help_jobschedule)"</dt> <dd data-testid="describe-msdb"><code>{m}</code></dd> })
            }}
        </dl>
    }
}

/// One run as a list item: the local time (`<time datetime>` in the zone), UTC beside it,
/// and what DST did to it.
fn run_item(r: NextRun) -> impl IntoView {
    let dst = match r.dst {
        Some(Dst::Gap) => Some(format!("DST gap: {} does not exist that day, it runs when the gap ends", r.nominal.clone().unwrap_or_default())),
        Some(Dst::Fold) => Some("DST fold: this time happens twice; it runs once, the first time".to_owned()),
        None => None,
    };
    view! {
        <li>
            <time datetime=r.local>{r.text}</time>
            <span class="utc">{r.utc}</span>
            {dst.map(|d| view! { <span class="dst-note">{d}</span> })}
        </li>
    }
}

#[component]
fn NextRuns(preview: Memo<Preview>, stale: Memo<Option<Preview>>) -> impl IntoView {
    view! {
        <h3>"Next runs"</h3>
        <ol id="next-runs" class="next-runs" aria-live="polite">
            {move || preview.with(|p| p.runs.clone()).into_iter().map(run_item).collect_view()}
        </ol>
        <p class="muted" hidden=move || preview.with(|p| !p.runs.is_empty() || !p.is_valid())>"No run: the schedule never fires after this time."</p>
        {move || {
            stale.get().filter(|s| !s.runs.is_empty()).map(|s| view! {
                <div class="sim-stale" data-testid="stale-runs">
                    <p>"The schedule as edited is not valid. The runs of the last valid version:"</p>
                    <ol class="next-runs stale">{s.runs.into_iter().map(run_item).collect_view()}</ol>
                </div>
            })
        }}
    }
}

#[component]
fn Statement(statement: Memo<Option<String>>) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(s) = statement.get_untracked() {
            let _ = window().navigator().clipboard().write_text(&s);
            copied.set(true);
        }
    };
    view! {
        <h3>"The statement that applies it"</h3>
        <p class="muted">"Sundial never writes to a scheduler: run this yourself."</p>
        <pre class="sim-statement" data-testid="statement"><code>{move || statement.get().unwrap_or_default()}</code></pre>
        <button type="button" class="button" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
    }
}
