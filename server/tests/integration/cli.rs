//! The CLI contract: acceptance checks and scripts call these commands, so their output and
//! exit statuses are pinned here.
use crate::support::{stderr, stdout, sundial};

const EVERY_OTHER_MONDAY: &str = r#"{"freq_type":8,"freq_interval":2,"freq_recurrence_factor":2,"freq_subday_type":1,"active_start_date":20080303,"active_start_time":80000}"#;

#[test]
fn forecast_prints_microsofts_documented_example() {
    let o = sundial(&["forecast", "--agent", EVERY_OTHER_MONDAY, "--after", "2008-03-03T10:00:00", "--count", "3"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2008-03-17T08:00:00\n2008-03-31T08:00:00\n2008-04-14T08:00:00\n");
}

#[test]
fn forecast_start_on_tuesday_runs_the_next_monday() {
    let agent = EVERY_OTHER_MONDAY.replace("20080303", "20080304");
    let o = sundial(&["forecast", "--agent", &agent, "--after", "2008-03-03T10:00:00", "--count", "2"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2008-03-10T08:00:00\n2008-03-24T08:00:00\n");
}

#[test]
fn forecast_json_prints_an_array_of_the_same_strings() {
    let o = sundial(&[
        "forecast",
        "--agent",
        EVERY_OTHER_MONDAY,
        "--after",
        "2008-03-03T10:00:00",
        "--count",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    let v: Vec<String> = serde_json::from_str(&stdout(&o)).expect("a JSON array of strings");
    assert_eq!(v, ["2008-03-17T08:00:00", "2008-03-31T08:00:00"]);
}

#[test]
fn forecast_is_strictly_after() {
    let agent = r#"{"freq_type":4,"freq_interval":1,"active_start_date":20240101,"active_start_time":20000}"#;
    let o = sundial(&["forecast", "--agent", agent, "--after", "2024-01-05T02:00:00", "--count", "1"]);
    assert_eq!(stdout(&o), "2024-01-06T02:00:00\n");
}

#[test]
fn forecast_in_a_zone_prints_local_wall_clock_and_skips_the_gap_once() {
    // Every 30 minutes; Europe/London springs forward at 01:00 on 2024-03-31.
    let agent = r#"{"freq_type":4,"freq_interval":1,"freq_subday_type":4,"freq_subday_interval":30,"active_start_date":20240101}"#;
    let o = sundial(&[
        "forecast",
        "--agent",
        agent,
        "--after",
        "2024-03-31T00:15:00",
        "--count",
        "3",
        "--tz",
        "Europe/London",
    ]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2024-03-31T00:30:00\n2024-03-31T02:00:00\n2024-03-31T02:30:00\n");
}

#[test]
fn invalid_schedule_exits_2_with_one_line_naming_field_and_value() {
    let agent = r#"{"freq_type":4,"freq_interval":1,"freq_subday_type":2,"freq_subday_interval":5,"active_start_date":20240101}"#;
    let o = sundial(&["forecast", "--agent", agent, "--after", "2024-01-01T00:00:00", "--count", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("freq_subday_interval") && err.contains('5'), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn malformed_json_and_unknown_columns_exit_2_naming_them() {
    let o = sundial(&["forecast", "--agent", "{not json", "--after", "2024-01-01T00:00:00"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--agent"));
    let o = sundial(&["forecast", "--agent", r#"{"freq_typo":4}"#, "--after", "2024-01-01T00:00:00"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("freq_typo"));
    let o = sundial(&["forecast", "--agent", r#"{"freq_type":"daily"}"#, "--after", "2024-01-01T00:00:00"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("freq_type"));
}

#[test]
fn bad_flag_values_exit_2() {
    let o = sundial(&["forecast", "--agent", EVERY_OTHER_MONDAY, "--after", "yesterday"]);
    assert_eq!(o.status.code(), Some(2));
    let o =
        sundial(&["forecast", "--agent", EVERY_OTHER_MONDAY, "--after", "2008-03-03T10:00:00", "--tz", "Mars/Olympus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Mars/Olympus"));
}

#[test]
fn describe_speaks_ssms() {
    let o = sundial(&["describe", "--agent", EVERY_OTHER_MONDAY]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    assert_eq!(
        stdout(&o).trim_end(),
        "Occurs every 2 week(s) on Monday at 8:00:00 AM. Schedule will be used starting on 3/3/2008."
    );
}

#[test]
fn agent_start_schedules_have_no_forecast_and_say_so() {
    let o = sundial(&["forecast", "--agent", r#"{"freq_type":64}"#, "--after", "2024-01-01T00:00:00", "--count", "3"]);
    assert!(o.status.success());
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).to_lowercase().contains("agent starts"), "{}", stderr(&o));
}

#[test]
fn check_config_exits_2_naming_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("sundial-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("fleet.toml");
    std::fs::write(&bad, "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\ntimeout = \"soon\"\n").unwrap();
    let o = sundial(&["check-config", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("fleet.toml:5:") && stderr(&o).contains("timeout"), "{}", stderr(&o));

    // A readable instance: check-config reads it as serving would and says what it sees.
    let db = dir.join("demo.sqlite");
    let o = sundial(&["demo", "--out", db.to_str().unwrap(), "--now", "2026-01-15T12:00:00Z"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let good = dir.join("good.toml");
    std::fs::write(
        &good,
        format!("[[instance]]\nname = \"demo\"\nkind = \"sqlite_demo\"\npath = \"{}\"\n", db.display()),
    )
    .unwrap();
    let o = sundial(&["check-config", "--config", good.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(&format!("demo (sqlite_demo): {}", db.display())), "{}", stdout(&o));
    assert!(stdout(&o).contains("demo: ok: 41 jobs"), "{}", stdout(&o));

    // An unreachable one: named, with why, and the exit status says so.
    let mixed = dir.join("mixed.toml");
    std::fs::write(
        &mixed,
        format!("[[instance]]\nname = \"demo\"\nkind = \"sqlite_demo\"\npath = \"{}\"\n\n[[instance]]\nname = \"gone\"\nkind = \"mssql\"\nhost = \"127.0.0.1\"\nport = 1\ntimeout = \"2s\"\n", db.display()),
    )
    .unwrap();
    let o = sundial(&["check-config", "--config", mixed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("gone: FAILED: cannot connect to SQL Server"), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 of 2 instance(s) readable"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
