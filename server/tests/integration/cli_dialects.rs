//! The CLI contract for the dialects of issue 3: `forecast` / `describe` with `--cron`,
//! `--mysql-event`, `--seed002`, `--seed003`, `--seed004`, and `dry-run --seed004`.
use crate::support::{stderr, stdout, sundial};
use std::process::Output;

fn assert_invalid(o: &Output, needles: &[&str]) {
    assert_eq!(o.status.code(), Some(2), "stdout: {} stderr: {}", stdout(o), stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} should contain {n:?}");
    }
}

#[test]
fn cron_forecast_prints_local_times() {
    let o = sundial(&["forecast", "--cron", "30 2 * * 0", "--after", "2026-11-21T00:00:00", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T02:30:00\n2026-11-29T02:30:00\n");
}

#[test]
fn cron_forecast_in_a_zone_applies_the_gap_rule() {
    let o = sundial(&[
        "forecast",
        "--cron",
        "30 2 * * *",
        "--tz",
        "Europe/Berlin",
        "--after",
        "2026-03-28T12:00:00",
        "--count",
        "2",
    ]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-03-29T03:00:00\n2026-03-30T02:30:00\n");
}

#[test]
fn cron_forecast_json() {
    let o = sundial(&["forecast", "--cron", "@hourly", "--after", "2026-11-22T09:10:00", "--count", "2", "--json"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    let v: Vec<String> = serde_json::from_str(&stdout(&o)).expect("a JSON array");
    assert_eq!(v, ["2026-11-22T10:00:00", "2026-11-22T11:00:00"]);
}

#[test]
fn cron_seconds_schedule() {
    let o = sundial(&["forecast", "--cron", "5 seconds", "--after", "2026-11-22T09:00:58", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T09:01:00\n2026-11-22T09:01:05\n");
}

#[test]
fn cron_out_of_range_exits_2_naming_field_and_value() {
    let o = sundial(&["forecast", "--cron", "0 0 * * 8", "--after", "2026-11-22T00:00:00"]);
    assert_invalid(&o, &["cron: day-of-week '8' out of range 0-7"]);
    assert!(stdout(&o).is_empty());
}

#[test]
fn cron_six_fields_exit_2() {
    let o = sundial(&["forecast", "--cron", "0 0 0 * * *", "--after", "2026-11-22T00:00:00"]);
    assert_invalid(&o, &["expected 5 fields"]);
}

#[test]
fn cron_describe_names_the_zone() {
    let o = sundial(&["describe", "--cron", "30 2 * * 0"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), "At 02:30 on Sunday (UTC)");
    let o = sundial(&["describe", "--cron", "*/5 * * * *", "--tz", "Europe/Berlin"]);
    assert_eq!(stdout(&o).trim_end(), "Every 5 minutes (Europe/Berlin)");
    let o = sundial(&["describe", "--cron", "5 seconds"]);
    assert_eq!(stdout(&o).trim_end(), "Every 5 seconds");
}

#[test]
fn cron_describe_of_an_invalid_expression_exits_2() {
    let o = sundial(&["describe", "--cron", "61 * * * *"]);
    assert_invalid(&o, &["minute", "61"]);
}

const BERLIN_DAILY: &str = r#"{"EVENT_NAME":"nightly","EVENT_TYPE":"RECURRING","INTERVAL_VALUE":"1","INTERVAL_FIELD":"DAY","STARTS":"2026-01-01 00:00:00","ENDS":null,"STATUS":"ENABLED","ON_COMPLETION":"PRESERVE","TIME_ZONE":"Europe/Berlin","EVENT_SCHEMA":"shop","DEFINER":"root@localhost"}"#;

#[test]
fn mysql_event_forecast_and_describe() {
    let o = sundial(&["forecast", "--mysql-event", BERLIN_DAILY, "--after", "2026-01-01T12:00:00", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    // --after is read in --tz (UTC); the times print in the event's zone.
    assert_eq!(stdout(&o), "2026-01-02T00:00:00\n2026-01-03T00:00:00\n");
    let o = sundial(&["describe", "--mysql-event", BERLIN_DAILY]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), "Every 1 day starting 2026-01-01 00:00:00 (Europe/Berlin)");
}

#[test]
fn mysql_event_errors_name_the_column() {
    let bad = BERLIN_DAILY.replace(r#""INTERVAL_FIELD":"DAY""#, r#""INTERVAL_FIELD":"FORTNIGHT""#);
    let o = sundial(&["forecast", "--mysql-event", &bad, "--after", "2026-01-01T00:00:00"]);
    assert_invalid(&o, &["INTERVAL_FIELD", "FORTNIGHT"]);
    let o = sundial(&["forecast", "--mysql-event", r#"{"EVENT_TYPE":["x"]}"#, "--after", "2026-01-01T00:00:00"]);
    assert_invalid(&o, &["EVENT_TYPE"]);
    let o = sundial(&["forecast", "--mysql-event", "[1]", "--after", "2026-01-01T00:00:00"]);
    assert_invalid(&o, &["--mysql-event"]);
}

#[test]
fn disabled_event_has_no_forecast_and_says_so() {
    let d = BERLIN_DAILY.replace(r#""STATUS":"ENABLED""#, r#""STATUS":"DISABLED""#);
    let o = sundial(&["forecast", "--mysql-event", &d, "--after", "2026-01-01T00:00:00", "--count", "3"]);
    assert!(o.status.success());
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("disabled"), "{}", stderr(&o));
}

#[test]
fn seed002_forecast() {
    let j = r#"{"job_name":"stats","job_schedule_start":"2026-11-22 09:00:00","job_schedule_interval":300,"job_status":"ENABLED"}"#;
    let o = sundial(&["forecast", "--seed002", j, "--after", "2026-11-22T09:01:00", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T09:05:00\n2026-11-22T09:10:00\n");
    let o = sundial(&[
        "forecast",
        "--seed002",
        r#"{"job_schedule_start":"2026-11-22 09:00:00","job_schedule_interval":0}"#,
        "--after",
        "2026-11-22T09:01:00",
    ]);
    assert_invalid(&o, &["job_schedule_interval", "0"]);
}

#[test]
fn seed003_forecast_and_describe() {
    let j = r#"{"ValidFrom":"2026-11-18 09:00:00","FrequencyType":2,"Frequency":2,"AbsoluteSubFrequency":"2,3,5,7","RunAtInSecondsFromMidnight":28800}"#;
    let o = sundial(&["forecast", "--seed003", j, "--after", "2026-11-18T00:00:00", "--count", "3"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-20T08:00:00\n2026-11-22T08:00:00\n2026-12-01T08:00:00\n");
    let o = sundial(&["describe", "--seed003", j]);
    assert_eq!(
        stdout(&o).trim_end(),
        "Every 2 weeks on Tuesday, Wednesday, Friday, Sunday at 08:00:00 from 2026-11-18 09:00:00"
    );
    let bad = j.replace("2,3,5,7", "2,8");
    let o = sundial(&["forecast", "--seed003", &bad, "--after", "2026-11-18T00:00:00"]);
    assert_invalid(&o, &["AbsoluteSubFrequency", "8"]);
}

#[test]
fn seed004_forecast_interval_counts_from_after_when_never_run() {
    let c = r#"{"ProcessingMode":"scheduled","ScheduleType":"interval","IntervalMinutes":30}"#;
    let o = sundial(&["forecast", "--seed004", c, "--after", "2026-11-22T09:00:00", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T09:30:00\n2026-11-22T10:00:00\n");
    let c = r#"{"ProcessingMode":"scheduled","ScheduleType":"weekly","RunDays":"Mon,Fri","RunTimes":"06:00"}"#;
    let o = sundial(&["forecast", "--seed004", c, "--after", "2026-11-22T00:00:00", "--count", "2"]);
    assert_eq!(stdout(&o), "2026-11-23T06:00:00\n2026-11-27T06:00:00\n");
    let o = sundial(&["describe", "--seed004", c]);
    assert_eq!(stdout(&o).trim_end(), "Weekly on Mon,Fri at 06:00");
}

#[test]
fn dry_run_prints_would_fire_and_reason() {
    let c = r#"{"ProcessingMode":"triggered","TriggerRowThreshold":1000,"TriggerIdleMinutes":30}"#;
    let o =
        sundial(&["dry-run", "--seed004", c, "--state", r#"{"pending_rows":1200}"#, "--now", "2026-03-02T06:00:00"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "would_fire: true\nreason: Row threshold met: 1,200 rows >= threshold 1,000\n");
    let o = sundial(&[
        "dry-run",
        "--seed004",
        c,
        "--state",
        r#"{"pending_rows":5,"oldest_row_age_minutes":3}"#,
        "--now",
        "2026-03-02T06:00:00Z",
    ]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert!(stdout(&o).starts_with("would_fire: false\nreason: No trigger condition met"), "{}", stdout(&o));
}

#[test]
fn dry_run_overlap_guard_and_bad_input() {
    let c =
        r#"{"ProcessingMode":"triggered","TriggerRowThreshold":10,"IsRunning":1,"RunStartedAt":"2026-03-02 05:45:00"}"#;
    let o =
        sundial(&["dry-run", "--seed004", c, "--state", r#"{"pending_rows":5000}"#, "--now", "2026-03-02T06:00:00"]);
    assert!(stdout(&o).contains("would_fire: false") && stdout(&o).contains("overlap guard"), "{}", stdout(&o));
    let o =
        sundial(&["dry-run", "--seed004", c, "--state", r#"{"pending_rows":"lots"}"#, "--now", "2026-03-02T06:00:00"]);
    assert_invalid(&o, &["pending_rows", "lots"]);
    let o = sundial(&["dry-run", "--seed004", c, "--now", "noon"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn exactly_one_schedule_flag() {
    let o = sundial(&["forecast", "--cron", "* * * * *", "--seed002", "{}", "--after", "2026-11-22T00:00:00"]);
    assert_eq!(o.status.code(), Some(2));
    let o = sundial(&["forecast", "--after", "2026-11-22T00:00:00"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `{…}` of `n` JSON booleans, true at `set`.
fn bools(n: usize, set: &[usize]) -> String {
    let v: Vec<&str> = (0..n).map(|i| if set.contains(&i) { "true" } else { "false" }).collect();
    format!("[{}]", v.join(","))
}

/// Every quarter hour from 2026-11-22, but not at 10:30 that day (a pga_exception row).
fn quarter_hours() -> String {
    format!(
        r#"{{"jscname": "quarter", "jscstart": "2026-11-22 00:00:00+00", "jscminutes": {}, "jscweekdays": {},
            "exceptions": [{{"jexdate": "2026-11-22", "jextime": "10:30:00"}}]}}"#,
        bools(60, &[0, 15, 30, 45]),
        bools(7, &[])
    )
}

#[test]
fn pgagent_forecast_chains_the_function_and_skips_the_exception() {
    let s = quarter_hours();
    let o = sundial(&["forecast", "--pgagent", &s, "--after", "2026-11-22T10:00:00", "--count", "4"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T10:15:00\n2026-11-22T10:45:00\n2026-11-22T11:00:00\n2026-11-22T11:15:00\n");
}

#[test]
fn pgagent_count_1_is_what_pga_next_schedule_answers_at_after() {
    // pgagent.pga_next_schedule called at 10:14:30 searches from the next whole minute,
    // 10:15:30 cut to 10:15, inclusive: 10:15 itself (checked against the real function).
    let s = quarter_hours();
    let o = sundial(&["forecast", "--pgagent", &s, "--after", "2026-11-22T10:14:30", "--count", "1", "--json"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "[\"2026-11-22T10:15:00\"]\n");
    // Called inside 10:15 the function never answers the minute it is in.
    let o = sundial(&["forecast", "--pgagent", &s, "--after", "2026-11-22T10:15:00", "--count", "1"]);
    assert_eq!(stdout(&o), "2026-11-22T10:45:00\n", "stderr: {}", stderr(&o));
}

#[test]
fn pgagent_with_nothing_set_runs_every_two_minutes_and_says_why() {
    let o = sundial(&["forecast", "--pgagent", "{}", "--after", "2026-11-22T10:00:30", "--count", "3"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T10:02:00\n2026-11-22T10:04:00\n2026-11-22T10:06:00\n");
    assert!(stderr(&o).contains("every 2 minutes"), "{}", stderr(&o));
}

#[test]
fn pgagent_in_the_agents_zone() {
    // 09:00 every day in the session zone Europe/Berlin; times print in that zone.
    let s = format!(
        r#"{{"jscstart": "2026-11-01 00:00:00+00", "jscminutes": {}, "jschours": {}}}"#,
        bools(60, &[0]),
        bools(24, &[9])
    );
    let o = sundial(&[
        "forecast",
        "--pgagent",
        &s,
        "--tz",
        "Europe/Berlin",
        "--after",
        "2026-11-22T09:00:00",
        "--count",
        "2",
    ]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-23T09:00:00\n2026-11-24T09:00:00\n");
}

#[test]
fn pgagent_past_jscend_ends_the_list() {
    let s = format!(
        r#"{{"jscstart": "2026-11-22 00:00:00+00", "jscend": "2026-11-22 10:20:00+00", "jscminutes": {}}}"#,
        bools(60, &[0, 15, 30, 45])
    );
    let o = sundial(&["forecast", "--pgagent", &s, "--after", "2026-11-22T10:00:00", "--count", "5"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2026-11-22T10:15:00\n");
}

#[test]
fn pgagent_bad_rows_exit_2_naming_the_column() {
    let after = ["--after", "2026-11-22T10:00:00"];
    let o = sundial(&["forecast", "--pgagent", r#"{"jscminutes": [true, false]}"#, after[0], after[1]]);
    assert_invalid(&o, &["jscminutes", "has 2 elements; the column holds 60"]);
    let o = sundial(&["forecast", "--pgagent", r#"{"jscweekday": [true]}"#, after[0], after[1]]);
    assert_invalid(&o, &["--pgagent: unknown column 'jscweekday'"]);
    let o = sundial(&["forecast", "--pgagent", r#"{"exceptions": [{"jexdate": "2026-13-01"}]}"#, after[0], after[1]]);
    assert_invalid(&o, &["jexdate", "2026-13-01", "exception 1"]);
    let o = sundial(&["forecast", "--pgagent", r#"{"exceptions": [{"jexday": "x"}]}"#, after[0], after[1]]);
    assert_invalid(&o, &["exceptions[0]: unknown column 'jexday'"]);
    let o = sundial(&["forecast", "--pgagent", "[1]", after[0], after[1]]);
    assert_invalid(&o, &["--pgagent: expected a JSON object"]);
    assert!(stdout(&o).is_empty());
}
