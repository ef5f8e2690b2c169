//! The row editor for every dialect but SQL Agent's: one labelled field per column of the row,
//! named as the table names it (a DBA knows `job_schedule_interval` or `INTERVAL_FIELD` by
//! sight), and pg_cron's expression with its fields spelled out.
use super::Sim;
use crate::engine::edit::Dialect;
use leptos::prelude::*;
use serde_json::Value;

/// A plausible row for each dialect, for a fresh start or a dialect switch.
pub fn example_row(d: Dialect) -> &'static str {
    match d {
        Dialect::Agent => {
            r#"{"enabled":1,"freq_type":4,"freq_interval":1,"freq_subday_type":1,"freq_subday_interval":0,"freq_relative_interval":0,"freq_recurrence_factor":0,"active_start_date":20260101,"active_end_date":99991231,"active_start_time":20000,"active_end_time":235959}"#
        }
        Dialect::Cron => r#"{"jobid":1,"jobname":"nightly-vacuum","schedule":"0 2 * * *","active":true}"#,
        Dialect::MysqlEvent => {
            r#"{"EVENT_SCHEMA":"ops","EVENT_NAME":"purge_sessions","EVENT_TYPE":"RECURRING","EXECUTE_AT":null,"INTERVAL_VALUE":"1","INTERVAL_FIELD":"DAY","STARTS":"2026-01-01 02:00:00","ENDS":null,"STATUS":"ENABLED","ON_COMPLETION":"NOT PRESERVE","TIME_ZONE":"SYSTEM"}"#
        }
        Dialect::Seed002 => {
            r#"{"job_id":1,"job_owner":"etl","job_name":"nightly_load","job_schedule_start":"2026-01-01 02:00:00","job_schedule_finish":null,"job_schedule_interval":3600,"job_status":"ENABLED"}"#
        }
        Dialect::Seed003 => {
            r#"{"ID":1,"JobName":"Refresh statistics","JobScheduleId":1,"ValidFrom":"2026-01-01 00:00:00","IsEnabled":1,"FrequencyType":1,"Frequency":1,"RunAtInSecondsFromMidnight":7200}"#
        }
        Dialect::Seed004 => {
            r#"{"Id":1,"EntityId":10,"ProcessingMode":"scheduled","ScheduleType":"interval","IntervalMinutes":60,"IsEnabled":1,"LastCompletedAt":"2026-01-01 00:00:00"}"#
        }
    }
}

/// The value as a text field shows it.
fn text_of(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The text typed into a column's field, as JSON: empty is NULL, a number stays a number when
/// the column held one (or nothing), anything else is text.
fn value_of(text: &str, was: &Value) -> Value {
    let t = text.trim();
    if t.is_empty() {
        return Value::Null;
    }
    match was {
        Value::Number(_) | Value::Null | Value::Bool(_) => match serde_json::from_str::<Value>(t) {
            Ok(v @ (Value::Number(_) | Value::Bool(_))) => v,
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

/// Set one column of the row's JSON (the row must be an object; otherwise nothing changes).
fn set_column(json: &str, column: &str, text: &str) -> Option<String> {
    let Value::Object(mut row) = serde_json::from_str::<Value>(json).ok()? else { return None };
    let was = row.get(column).cloned().unwrap_or(Value::Null);
    row.insert(column.to_owned(), value_of(text, &was));
    serde_json::to_string_pretty(&Value::Object(row)).ok()
}

/// One field per column of the row (when the JSON is an object).
#[component]
pub fn RowForm(sim: Sim) -> impl IntoView {
    let columns = Memo::new(move |_| match sim.json.with(|j| serde_json::from_str::<Value>(j)) {
        Ok(Value::Object(row)) => row.into_iter().map(|(k, v)| (k, text_of(&v))).collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    let names = Memo::new(move |_| columns.with(|c| c.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()));
    view! {
        <fieldset class="sim-columns">
            <legend>{move || format!("{} columns", sim.dialect.get().table())}</legend>
            <p class="muted" hidden=move || !names.with(Vec::is_empty)>"Fix the JSON below to edit its columns here."</p>
            <For each=move || names.get() key=|k| k.clone() let:name>
                {
                    let id = format!("col-{}", name.to_ascii_lowercase());
                    let col = name.clone();
                    let value = move || columns.with(|c| c.iter().find(|(k, _)| *k == col).map(|(_, v)| v.clone()).unwrap_or_default());
                    let col = name.clone();
                    view! {
                        <div class="field">
                            <label for=id.clone()>{name.clone()}</label>
                            <input
                                id=id
                                autocomplete="off"
                                spellcheck="false"
                                prop:value=value
                                on:change=move |ev| {
                                    let text = event_target_value(&ev);
                                    if let Some(j) = sim.json.with_untracked(|j| set_column(j, &col, &text)) {
                                        sim.json.set(j);
                                    }
                                }
                            />
                        </div>
                    }
                }
            </For>
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::edit;

    #[test]
    fn every_example_row_parses() {
        for d in Dialect::ALL {
            assert!(edit::parse_row(d, example_row(d)).is_ok(), "{d:?}: {:?}", edit::parse_row(d, example_row(d)).err());
        }
    }

    #[test]
    fn a_column_keeps_its_type_and_empty_is_null() {
        let j = set_column(r#"{"a":1,"b":"x"}"#, "a", "5").unwrap();
        assert!(j.contains(r#""a": 5"#), "{j}");
        let j = set_column(&j, "b", "").unwrap();
        assert!(j.contains(r#""b": null"#), "{j}");
        let j = set_column(&j, "a", "ten").unwrap();
        assert!(j.contains(r#""a": "ten""#), "{j}");
    }
}
