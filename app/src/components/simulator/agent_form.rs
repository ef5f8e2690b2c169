//! SSMS's New Job Schedule dialog, mapped to and from one `msdb.dbo.sysschedules` row.
//!
//! Each control reads the row's columns and writes them back through the row's JSON, so the
//! dialog, the JSON box and the URL never disagree. A value the dialog cannot show (a date
//! msdb would reject, say) stays in the JSON, and its diagnostic names the column.
use super::Sim;
use crate::engine::{AgentSchedule, Schedule};
use leptos::prelude::*;

const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// Apply `f` to the row's schedule (when it is an Agent row).
fn update(sim: Sim, f: impl FnOnce(&mut AgentSchedule)) {
    if let Some(Schedule::Agent(mut a)) = sim.schedule() {
        f(&mut a);
        sim.set_schedule(&Schedule::Agent(a));
    }
}

/// yyyymmdd → `YYYY-MM-DD` (empty when it is no date).
fn date_text(v: i64) -> String {
    crate::engine::agent::date_from_int(v).map(|d| d.format("%Y-%m-%d").to_string()).unwrap_or_default()
}
fn date_int(s: &str) -> Option<i64> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().map(|d| d.format("%Y%m%d").to_string().parse().unwrap_or(0))
}
/// hhmmss → `HH:MM:SS`.
fn time_text(v: i64) -> String {
    crate::engine::agent::time_from_int(v).map(|t| t.format("%H:%M:%S").to_string()).unwrap_or_default()
}
fn time_int(s: &str) -> Option<i64> {
    let t = chrono::NaiveTime::parse_from_str(s, "%H:%M:%S").or_else(|_| chrono::NaiveTime::parse_from_str(s, "%H:%M")).ok()?;
    use chrono::Timelike;
    Some(i64::from(t.hour() * 10000 + t.minute() * 100 + t.second()))
}
fn int(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// The dialog.
#[component]
pub fn AgentForm(sim: Sim) -> impl IntoView {
    let a = Memo::new(move |_| match sim.schedule() {
        Some(Schedule::Agent(a)) => Some(a),
        _ => None,
    });
    let get = move |f: fn(&AgentSchedule) -> i64| a.with(|a| a.as_ref().map(f).unwrap_or(0));
    let ft = move || get(|a| a.freq_type);
    let recurring = move || matches!(ft(), 4 | 8 | 16 | 32);
    let subday = move || get(|a| a.freq_subday_type);
    let no_end = move || get(|a| a.active_end_date) >= 99991231;
    // Which parts of the dialog show: memos, so a part is rebuilt only when it appears or
    // goes (never on an edit inside it, which would lose the caret).
    let when = move |f: fn(i64, i64, bool) -> bool| Memo::new(move |_| f(ft(), subday(), no_end()));
    let once = when(|ft, _, _| ft == 1);
    let is_recurring = when(|ft, _, _| matches!(ft, 4 | 8 | 16 | 32));
    let daily = when(|ft, _, _| ft == 4);
    let weekly = when(|ft, _, _| ft == 8);
    let monthly = when(|ft, _, _| ft == 16);
    let relative = when(|ft, _, _| ft == 32);
    let once_a_day = when(|_, sd, _| sd == 1);
    let has_end = when(|_, _, none| !none);

    let schedule_type = move |ev: leptos::ev::Event| {
        let v = int(&event_target_value(&ev)).unwrap_or(4);
        update(sim, |a| {
            a.freq_type = v;
            if v == 4 && a.freq_interval < 1 {
                a.freq_interval = 1;
            }
            if matches!(v, 4 | 8 | 16 | 32) && a.freq_subday_type == 0 {
                a.freq_subday_type = 1;
            }
        });
    };
    let occurs = move |ev: leptos::ev::Event| {
        let v = int(&event_target_value(&ev)).unwrap_or(4);
        update(sim, |a| {
            a.freq_type = v;
            match v {
                4 => a.freq_interval = a.freq_interval.clamp(1, 365),
                8 => {
                    a.freq_interval = if (1..=127).contains(&a.freq_interval) { a.freq_interval } else { 2 };
                    a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                }
                16 => {
                    a.freq_interval = a.freq_interval.clamp(1, 31);
                    a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                }
                _ => {
                    a.freq_interval = if (1..=10).contains(&a.freq_interval) { a.freq_interval } else { 2 };
                    a.freq_relative_interval = if [1, 2, 4, 8, 16].contains(&a.freq_relative_interval) { a.freq_relative_interval } else { 1 };
                    a.freq_recurrence_factor = a.freq_recurrence_factor.max(1);
                }
            }
        });
    };
    let num = move |id: &'static str, label: &'static str, read: fn(&AgentSchedule) -> i64, write: fn(&mut AgentSchedule, i64)| {
        view! {
            <div class="field field-narrow">
                <label for=id>{label}</label>
                <input
                    id=id
                    type="number"
                    prop:value=move || get(read).to_string()
                    on:input=move |ev| {
                        if let Some(v) = int(&event_target_value(&ev)) {
                            update(sim, |a| write(a, v));
                        }
                    }
                />
            </div>
        }
    };
    let date = move |id: &'static str, label: &'static str, read: fn(&AgentSchedule) -> i64, write: fn(&mut AgentSchedule, i64)| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input
                    id=id
                    type="date"
                    prop:value=move || date_text(get(read))
                    on:change=move |ev| {
                        if let Some(v) = date_int(&event_target_value(&ev)) {
                            update(sim, |a| write(a, v));
                        }
                    }
                />
            </div>
        }
    };
    let time = move |id: &'static str, label: &'static str, read: fn(&AgentSchedule) -> i64, write: fn(&mut AgentSchedule, i64)| {
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input
                    id=id
                    type="time"
                    step="1"
                    prop:value=move || time_text(get(read))
                    on:change=move |ev| {
                        if let Some(v) = time_int(&event_target_value(&ev)) {
                            update(sim, |a| write(a, v));
                        }
                    }
                />
            </div>
        }
    };

    let weekdays = move || {
        WEEKDAYS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let bit = 1i64 << i;
                let id = format!("sim-wd-{}", name.to_ascii_lowercase());
                view! {
                    <label class="check" for=id.clone()>
                        <input
                            type="checkbox"
                            id=id.clone()
                            prop:checked=move || get(|a| a.freq_interval) & bit != 0
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                update(sim, |a| a.freq_interval = if on { a.freq_interval | bit } else { a.freq_interval & !bit });
                            }
                        />
                        {*name}
                    </label>
                }
            })
            .collect_view()
    };

    view! {
        <fieldset class="sim-dialog" data-testid="agent-form">
            <legend>"New Job Schedule (msdb.dbo.sysschedules)"</legend>
            <div class="sim-row">
                <div class="field">
                    <label for="sim-type">"Schedule type"</label>
                    <select id="sim-type" on:change=schedule_type>
                        <option value="4" selected=recurring>"Recurring"</option>
                        <option value="1" selected=move || ft() == 1>"One time"</option>
                        <option value="64" selected=move || ft() == 64>"Start automatically when SQL Server Agent starts"</option>
                        <option value="128" selected=move || ft() == 128>"Start whenever the CPUs become idle"</option>
                    </select>
                </div>
                <label class="check" for="sim-enabled">
                    <input type="checkbox" id="sim-enabled" prop:checked=move || get(|a| a.enabled) != 0 on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        update(sim, |a| a.enabled = i64::from(on));
                    }/>
                    "Enabled"
                </label>
            </div>
            {move || once.get().then(|| view! {
                <div class="sim-row">
                    {date("sim-once-date", "One-time occurrence: date", |a| a.active_start_date, |a, v| a.active_start_date = v)}
                    {time("sim-once-time", "Time", |a| a.active_start_time, |a, v| a.active_start_time = v)}
                </div>
            })}
            {move || is_recurring.get().then(|| view! {
                <fieldset class="sim-group">
                    <legend>"Frequency"</legend>
                    <div class="sim-row">
                        <div class="field">
                            <label for="sim-occurs">"Occurs"</label>
                            <select id="sim-occurs" on:change=occurs>
                                <option value="4" selected=move || ft() == 4>"Daily"</option>
                                <option value="8" selected=move || ft() == 8>"Weekly"</option>
                                <option value="16" selected=move || ft() == 16>"Monthly (day N)"</option>
                                <option value="32" selected=move || ft() == 32>"Monthly (the first … day)"</option>
                            </select>
                        </div>
                        {move || daily.get().then(|| view! {{num("sim-days", "Recurs every N day(s)", |a| a.freq_interval, |a, v| a.freq_interval = v)}})}
                        {move || weekly.get().then(|| view! {{num("sim-weeks", "Recurs every N week(s)", |a| a.freq_recurrence_factor, |a, v| a.freq_recurrence_factor = v)}})}
                        {move || monthly.get().then(|| view! {
                            {num("sim-dom", "Day", |a| a.freq_interval, |a, v| a.freq_interval = v)}
                            {num("sim-months", "of every N month(s)", |a| a.freq_recurrence_factor, |a, v| a.freq_recurrence_factor = v)}
                        })}
                        {move || relative.get().then(|| view! {
                            <div class="field">
                                <label for="sim-rel">"The"</label>
                                <select id="sim-rel" on:change=move |ev| {
                                    if let Some(v) = int(&event_target_value(&ev)) {
                                        update(sim, |a| a.freq_relative_interval = v);
                                    }
                                }>
                                    {[(1, "first"), (2, "second"), (4, "third"), (8, "fourth"), (16, "last")]
                                        .into_iter()
                                        .map(|(v, l)| view! { <option value=v selected=move || get(|a| a.freq_relative_interval) == v>{l}</option> })
                                        .collect_view()}
                                </select>
                            </div>
                            <div class="field">
                                <label for="sim-relday">"Day"</label>
                                <select id="sim-relday" on:change=move |ev| {
                                    if let Some(v) = int(&event_target_value(&ev)) {
                                        update(sim, |a| a.freq_interval = v);
                                    }
                                }>
                                    {WEEKDAYS
                                        .iter()
                                        .copied()
                                        .chain(["day", "weekday", "weekend day"])
                                        .enumerate()
                                        .map(|(i, l)| {
                                            let v = i as i64 + 1;
                                            view! { <option value=v selected=move || get(|a| a.freq_interval) == v>{l}</option> }
                                        })
                                        .collect_view()}
                                </select>
                            </div>
                            {num("sim-relmonths", "of every N month(s)", |a| a.freq_recurrence_factor, |a, v| a.freq_recurrence_factor = v)}
                        })}
                    </div>
                    {move || weekly.get().then(|| view! {
                        <div class="sim-row sim-weekdays" role="group" aria-label="On">
                            {weekdays}
                        </div>
                    })}
                </fieldset>
                <fieldset class="sim-group">
                    <legend>"Daily frequency"</legend>
                    <div class="sim-row">
                        <label class="check" for="sim-once">
                            <input type="radio" name="sim-subday" id="sim-once" prop:checked=move || subday() == 1 on:change=move |_| update(sim, |a| a.freq_subday_type = 1)/>
                            "Occurs once at"
                        </label>
                        <label class="check" for="sim-every">
                            <input type="radio" name="sim-subday" id="sim-every" prop:checked=move || subday() != 1 on:change=move |_| update(sim, |a| {
                                a.freq_subday_type = 4;
                                a.freq_subday_interval = a.freq_subday_interval.max(1);
                            })/>
                            "Occurs every"
                        </label>
                    </div>
                    {move || once_a_day.get().then(|| view! {
                        <div class="sim-row">{time("sim-at", "At", |a| a.active_start_time, |a, v| a.active_start_time = v)}</div>
                    })}
                    {move || (!once_a_day.get()).then(|| view! {
                        <div class="sim-row">
                            {num("sim-every-n", "Every", |a| a.freq_subday_interval, |a, v| a.freq_subday_interval = v)}
                            <div class="field">
                                <label for="sim-unit">"Unit"</label>
                                <select id="sim-unit" on:change=move |ev| {
                                    if let Some(v) = int(&event_target_value(&ev)) {
                                        update(sim, |a| a.freq_subday_type = v);
                                    }
                                }>
                                    <option value="8" selected=move || subday() == 8>"hour(s)"</option>
                                    <option value="4" selected=move || subday() == 4>"minute(s)"</option>
                                    <option value="2" selected=move || subday() == 2>"second(s)"</option>
                                </select>
                            </div>
                            {time("sim-start-time", "Starting at", |a| a.active_start_time, |a, v| a.active_start_time = v)}
                            {time("sim-end-time", "Ending at", |a| a.active_end_time, |a, v| a.active_end_time = v)}
                        </div>
                    })}
                </fieldset>
                <fieldset class="sim-group">
                    <legend>"Duration"</legend>
                    <div class="sim-row">
                        {date("sim-start-date", "Start date", |a| a.active_start_date, |a, v| a.active_start_date = v)}
                        <label class="check" for="sim-no-end">
                            <input type="checkbox" id="sim-no-end" prop:checked=no_end on:change=move |ev| {
                                let none = event_target_checked(&ev);
                                update(sim, |a| {
                                    a.active_end_date = if none { 99991231 } else { a.active_start_date.max(20000101) + 10000 };
                                });
                            }/>
                            "No end date"
                        </label>
                        {move || has_end.get().then(|| view! {
                            {date("sim-end-date", "End date", |a| a.active_end_date, |a, v| a.active_end_date = v)}
                        })}
                    </div>
                </fieldset>
            })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_round_trip_through_the_controls() {
        assert_eq!(date_text(20240229), "2024-02-29");
        assert_eq!(date_int("2024-02-29"), Some(20240229));
        assert_eq!(date_text(20230229), "", "no such date: the field is empty, the JSON keeps it");
        assert_eq!(time_text(20000), "02:00:00");
        assert_eq!(time_int("02:30"), Some(23000));
        assert_eq!(time_int("23:59:59"), Some(235959));
    }
}
