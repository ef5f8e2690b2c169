//! The simulator's page as the server renders it: every control, labelled, with its value
//! from the [`State`]; every part of SSMS's dialog present and hidden when it does not apply
//! (the browser shows and hides them as the row changes); the result regions filled with
//! [`State::outputs`]. The browser attaches to this markup (`live.rs`); it never re-renders it.
use super::model::{self, SimSetup};
use super::state::{Shown, State, WEEKDAYS};
use crate::engine::edit::Dialect;
use leptos::prelude::*;

/// The simulator, rendered once.
#[component]
pub fn SimulatorForm(setup: SimSetup) -> impl IntoView {
    let st = State::new(&setup);
    let controls = st.controls();
    let sections = st.sections();
    let outputs = st.outputs();
    let v = |id: &str| match controls.iter().find(|(i, _)| i == id).map(|(_, v)| v) {
        Some(Shown::Value(s)) => s.clone(),
        _ => String::new(),
    };
    let on = |id: &str| matches!(controls.iter().find(|(i, _)| i == id).map(|(_, v)| v), Some(Shown::Checked(true)));
    let hidden = |id: &str| !sections.iter().any(|(i, shown)| *i == id && *shown);
    let out = |id: &str| outputs.iter().find(|(i, _)| *i == id).map(|(_, h)| h.clone()).unwrap_or_default();
    let job = setup.job.is_some();

    let num = |id: &'static str, label: &'static str| {
        view! {
            <div class="field field-narrow">
                <label for=id>{label}</label>
                <input id=id type="number" value=v(id)/>
            </div>
        }
    };
    let date = |id: &'static str, label: &'static str| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input id=id type="date" value=v(id)/>
            </div>
        }
    };
    let time = |id: &'static str, label: &'static str| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input id=id type="time" step="1" value=v(id)/>
            </div>
        }
    };
    let select = |id: &'static str, label: &'static str, options: Vec<(String, String)>| {
        let current = v(id);
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <select id=id>
                    {options.into_iter().map(|(value, text)| {
                        let selected = value == current;
                        view! { <option value=value selected=selected>{text}</option> }
                    }).collect_view()}
                </select>
            </div>
        }
    };
    let opts = |list: &[(&str, &str)]| list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    let check = |id: String, label: String, checked: bool| {
        let for_id = id.clone();
        view! {
            <label class="check" for=for_id>
                <input type="checkbox" id=id checked=checked/>
                {label}
            </label>
        }
    };

    let agent_form = view! {
        <fieldset class="sim-dialog" id="sim-sec-agent" data-testid="agent-form" hidden=hidden("sim-sec-agent")>
            <legend>"New Job Schedule (msdb.dbo.sysschedules)"</legend>
            <div class="sim-row">
                {select("sim-type", "Schedule type", opts(&[("4", "Recurring"), ("1", "One time"), ("64", "Start automatically when SQL Server Agent starts"), ("128", "Start whenever the CPUs become idle")]))}
                {check("sim-enabled".into(), "Enabled".into(), on("sim-enabled"))}
            </div>
            <div class="sim-row" id="sim-sec-once" hidden=hidden("sim-sec-once")>
                {date("sim-once-date", "One-time occurrence: date")}
                {time("sim-once-time", "Time")}
            </div>
            <div id="sim-sec-recurring" hidden=hidden("sim-sec-recurring")>
                <fieldset class="sim-group">
                    <legend>"Frequency"</legend>
                    <div class="sim-row">
                        {select("sim-occurs", "Occurs", opts(&[("4", "Daily"), ("8", "Weekly"), ("16", "Monthly (day N)"), ("32", "Monthly (the first … day)")]))}
                        <div class="sim-row" id="sim-sec-daily" hidden=hidden("sim-sec-daily")>{num("sim-days", "Recurs every N day(s)")}</div>
                        <div class="sim-row" id="sim-sec-weekly" hidden=hidden("sim-sec-weekly")>{num("sim-weeks", "Recurs every N week(s)")}</div>
                        <div class="sim-row" id="sim-sec-monthly" hidden=hidden("sim-sec-monthly")>
                            {num("sim-dom", "Day")}
                            {num("sim-months", "of every N month(s)")}
                        </div>
                        <div class="sim-row" id="sim-sec-relative" hidden=hidden("sim-sec-relative")>
                            {select("sim-rel", "The", opts(&[("1", "first"), ("2", "second"), ("4", "third"), ("8", "fourth"), ("16", "last")]))}
                            {select("sim-relday", "Day", WEEKDAYS.iter().copied().chain(["day", "weekday", "weekend day"]).enumerate().map(|(i, l)| ((i + 1).to_string(), l.to_string())).collect())}
                            {num("sim-relmonths", "of every N month(s)")}
                        </div>
                    </div>
                    <div class="sim-row sim-weekdays" id="sim-sec-weekdays" role="group" aria-label="On" hidden=hidden("sim-sec-weekdays")>
                        {WEEKDAYS.iter().map(|d| {
                            let id = format!("sim-wd-{}", d.to_ascii_lowercase());
                            let checked = on(&id);
                            check(id, d.to_string(), checked)
                        }).collect_view()}
                    </div>
                </fieldset>
                <fieldset class="sim-group">
                    <legend>"Daily frequency"</legend>
                    <div class="sim-row">
                        <label class="check" for="sim-once">
                            <input type="radio" name="sim-subday" id="sim-once" checked=on("sim-once")/>
                            "Occurs once at"
                        </label>
                        <label class="check" for="sim-every">
                            <input type="radio" name="sim-subday" id="sim-every" checked=on("sim-every")/>
                            "Occurs every"
                        </label>
                    </div>
                    <div class="sim-row" id="sim-sec-at" hidden=hidden("sim-sec-at")>{time("sim-at", "At")}</div>
                    <div class="sim-row" id="sim-sec-every" hidden=hidden("sim-sec-every")>
                        {num("sim-every-n", "Every")}
                        {select("sim-unit", "Unit", opts(&[("8", "hour(s)"), ("4", "minute(s)"), ("2", "second(s)")]))}
                        {time("sim-start-time", "Starting at")}
                        {time("sim-end-time", "Ending at")}
                    </div>
                </fieldset>
                <fieldset class="sim-group">
                    <legend>"Duration"</legend>
                    <div class="sim-row">
                        {date("sim-start-date", "Start date")}
                        {check("sim-no-end".into(), "No end date".into(), on("sim-no-end"))}
                        <div class="sim-row" id="sim-sec-end" hidden=hidden("sim-sec-end")>{date("sim-end-date", "End date")}</div>
                    </div>
                </fieldset>
            </div>
        </fieldset>
    }
    .into_any();

    let pg = st.pg_cron;
    let pg_value = match pg {
        Some(v) if v < (1, 5) => "1.4",
        Some(v) if v < (1, 6) => "1.5",
        _ => "1.6",
    };
    view! {
        <div class="simulator" data-testid="simulator">
            {setup.notes.iter().map(|n| view! { <p class="banner banner-stale" role="alert">{n.clone()}</p> }).collect_view()}
            <div class="sim-grid">
                <section class="sim-edit" aria-labelledby="sim-edit-h">
                    <h2 id="sim-edit-h">"The schedule"</h2>
                    <div class="sim-row">
                        <div class="field">
                            <label for="sim-dialect">"Scheduler"</label>
                            <select id="sim-dialect" disabled=job>
                                {Dialect::ALL.into_iter().map(|d| view! { <option value=d.key() selected=d == st.dialect>{d.label()}</option> }).collect_view()}
                            </select>
                        </div>
                        <div class="field">
                            <label for="sim-tz">"Time zone"</label>
                            <input id="sim-tz" list="zones" autocomplete="off" spellcheck="false" value=st.tz.clone()/>
                        </div>
                        <div class="field">
                            <label for="sim-after">"Runs after (local time, "<span id="sim-after-zone" data-testid="after-zone" inner_html=out("sim-after-zone")></span>")"</label>
                            <input id="sim-after" type="datetime-local" step="1" value=st.after.clone()/>
                        </div>
                        <div class="field field-narrow">
                            <label for="sim-count">"How many"</label>
                            <input id="sim-count" type="number" min="1" max=model::MAX_COUNT value=st.count.clone()/>
                        </div>
                        <div class="field" id="sim-sec-pgcron" hidden=hidden("sim-sec-pgcron")>
                            <label for="sim-pgcron">"pg_cron version"</label>
                            <select id="sim-pgcron">
                                <option value="1.4" selected=pg_value == "1.4">"1.4 (UTC only, five fields)"</option>
                                <option value="1.5" selected=pg_value == "1.5">"1.5 (cron.timezone, seconds)"</option>
                                <option value="1.6" selected=pg_value == "1.6">"1.6 or later ($)"</option>
                            </select>
                        </div>
                    </div>
                    <p class="sim-zone-error" id="sim-zone-error" role="alert" inner_html=out("sim-zone-error")></p>
                    {agent_form}
                    <fieldset class="sim-columns" id="sim-sec-columns" hidden=hidden("sim-sec-columns")>
                        <legend>"Columns"</legend>
                        <div class="sim-columns-grid" id="sim-columns" inner_html=super::render::columns(st.dialect, &st.json)></div>
                    </fieldset>
                    <fieldset class="sim-group" id="sim-sec-dryrun" hidden=hidden("sim-sec-dryrun")>
                        <legend>"Triggered mode: the test button (usp_Scheduler_TestRun)"</legend>
                        <div class="sim-row">
                            <div class="field field-narrow">
                                <label for="sim-dry-pending">"Pending rows"</label>
                                <input id="sim-dry-pending" type="number" min="0" value=st.queue[0].clone()/>
                            </div>
                            <div class="field field-narrow">
                                <label for="sim-dry-age">"Oldest row's age (minutes)"</label>
                                <input id="sim-dry-age" type="number" min="0" value=st.queue[1].clone()/>
                            </div>
                            <div class="field">
                                <label for="sim-dry-check">"LastTriggerCheck (optional)"</label>
                                <input id="sim-dry-check" autocomplete="off" value=st.queue[2].clone()/>
                            </div>
                        </div>
                        <div id="sim-dryrun" inner_html=out("sim-dryrun")></div>
                    </fieldset>
                    <div class="field field-wide">
                        <label for="schedule-json">"The row as JSON (paste one row: SELECT … FOR JSON, row_to_json, JSON_OBJECT)"</label>
                        <textarea id="schedule-json" rows="12" spellcheck="false">{crate::components::raw_text_child(st.json.clone())}</textarea>
                    </div>
                </section>
                <section class="sim-result" aria-labelledby="sim-result-h">
                    <h2 id="sim-result-h">"What it does"</h2>
                    <div id="schedule-diagnostics" class="sim-diagnostics" role="alert" inner_html=out("schedule-diagnostics")></div>
                    <dl class="sim-describe" id="sim-describe" inner_html=out("sim-describe")></dl>
                    <h3 id="sim-risks-h">"Risks in the next " {model::RISK_DAYS} " days"</h3>
                    <div id="sim-risks" class="sim-risks" data-testid="sim-risks" inner_html=out("sim-risks")></div>
                    <h3>"Next runs"</h3>
                    <ol id="next-runs" class="next-runs" aria-live="polite" inner_html=out("next-runs")></ol>
                    <p class="muted" id="sim-never" inner_html=out("sim-never")></p>
                    <div class="sim-stale" id="sim-stale" inner_html=out("sim-stale")></div>
                    <div class="sim-warnings" id="sim-warnings" data-testid="schedule-warnings" inner_html=out("sim-warnings")></div>
                    <h3>"The statement that applies it"</h3>
                    <p class="muted">"Sundial never writes to a scheduler: run this yourself."</p>
                    <pre class="sim-statement" data-testid="statement"><code id="sim-statement" inner_html=out("sim-statement")></code></pre>
                    <p class="muted sim-no-statement" id="sim-no-statement" data-testid="no-statement" inner_html=out("sim-no-statement")></p>
                    <button type="button" class="button" id="sim-copy" data-testid="copy" aria-describedby="sim-no-statement" disabled=st.statement().is_empty()>"Copy"</button>
                </section>
            </div>
            {job.then(|| view! {
                <section class="sim-impact" aria-labelledby="sim-impact-h" data-testid="impact">
                    <h2 id="sim-impact-h">"What the change does to the instance"</h2>
                    <div class="sim-row">
                        <div class="field field-narrow">
                            <label for="sim-impact-days">"Days ahead"</label>
                            <input id="sim-impact-days" type="number" min="1" max=model::MAX_DAYS value=st.days.clone()/>
                        </div>
                    </div>
                    <div id="sim-impact-body" inner_html=out("sim-impact-body")></div>
                </section>
            })}
        </div>
    }
}
