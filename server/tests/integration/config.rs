//! The fleet configuration: good files read as written; every bad one is refused with the
//! file, the line and the field named; secrets never print.
use server::config::{self, ConfigError, Kind, SecretSource};
use std::time::Duration;

const GOOD: &str = r#"[defaults]
poll_interval = "2m"
timeout = "5s"

[[instance]]
name = "SQLPROD01"
kind = "mssql"
host = "sqlprod01.corp"
port = 1433
user = "sundial_reader"
password_env = "SUNDIAL_TEST_SQLPROD01_PASSWORD"
time_zone = "America/New_York"
tags = { environment = "prod", team = "dba" }

[[instance]]
name = "pg-main"
kind = "pg_cron"
url_env = "SUNDIAL_TEST_PG_URL"
poll_interval = "30s"

[[instance]]
name = "demo"
kind = "sqlite_demo"
path = "/var/lib/sundial/demo.sqlite"
"#;

fn err(text: &str) -> String {
    config::parse(text, "fleet.toml").expect_err("must be refused").to_string()
}

#[test]
fn a_good_file_reads_as_written() {
    let c = config::parse(GOOD, "fleet.toml").expect("valid");
    assert_eq!(c.instances.len(), 3);
    let sql = &c.instances[0];
    assert_eq!((sql.name.as_str(), sql.kind, sql.port), ("SQLPROD01", Kind::Mssql, Some(1433)));
    assert_eq!(sql.secret, SecretSource::Env("SUNDIAL_TEST_SQLPROD01_PASSWORD".into()));
    assert_eq!(sql.time_zone, Some(chrono_tz::America::New_York));
    assert_eq!((sql.poll_interval, sql.timeout), (Duration::from_secs(120), Duration::from_secs(5)));
    assert_eq!(sql.tags.get("environment").map(String::as_str), Some("prod"));
    assert_eq!(sql.line, 5);
    let pg = &c.instances[1];
    assert_eq!((pg.kind, pg.poll_interval), (Kind::PgCron, Duration::from_secs(30)));
    assert_eq!(c.instances[2].kind, Kind::SqliteDemo);
    let summary = config::summary(&c);
    assert!(
        summary.contains(
            "SQLPROD01 (mssql): sqlprod01.corp:1433, America/New_York, poll 2m, timeout 5s, environment=prod team=dba"
        ),
        "{summary}"
    );
    assert_eq!(summary.lines().count(), 3);
}

#[test]
fn triage_knobs_read_as_written_and_default_when_absent() {
    let c = config::parse(
        "[triage]\nno_success_after = \"3d\"\nlong_factor = 2.5\nshort_factor = 0.1\nstale_polls = 5\n",
        "fleet.toml",
    )
    .unwrap();
    assert_eq!(c.triage.no_success_days, 3);
    assert_eq!((c.triage.durations.long_factor, c.triage.durations.short_factor), (2.5, 0.1));
    assert_eq!(c.triage.stale_polls, 5);
    let d = config::parse("", "fleet.toml").unwrap();
    assert_eq!(d.triage, sundial_engine::triage::TriageSettings::default());
}

#[test]
fn http_limits_read_as_written_and_default_when_absent() {
    let c = config::parse(
        "[http]\nmax_connections = 200\nmax_connections_per_client = 200\nheader_timeout = \"2s\"\nsend_timeout = \"1m\"\n",
        "fleet.toml",
    )
    .unwrap();
    let want = server::http::serve::Limits {
        max_connections: 200,
        max_connections_per_client: 200,
        header_timeout: Duration::from_secs(2),
        send_timeout: Duration::from_secs(60),
    };
    assert_eq!(c.http, want);
    assert_eq!(config::parse("", "fleet.toml").unwrap().http, server::http::serve::Limits::default());
    // A total under the default per-client cap lowers it too.
    let small = config::parse("[http]\nmax_connections = 10\n", "fleet.toml").unwrap().http;
    assert_eq!((small.max_connections, small.max_connections_per_client), (10, 10));
}

#[test]
fn bad_files_name_file_line_and_field() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("syntax", "[[instance]]\nname = \"x\nkind = \"mssql\"\n", &["fleet.toml:2:"]),
        (
            "unknown kind",
            "[[instance]]\nname = \"a\"\nkind = \"oracle\"\nhost = \"h\"\n",
            &["fleet.toml:3:", "kind", "oracle", "mssql"],
        ),
        (
            "bad duration",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\n\ntimeout = \"soon\"\n",
            &["fleet.toml:6:", "timeout", "soon"],
        ),
        (
            "bad zone",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\ntime_zone = \"Mars/Base\"\n",
            &["fleet.toml:5:", "instance \"a\"", "time_zone", "Mars/Base", "IANA"],
        ),
        (
            "duplicate name",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\n[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\n",
            &["fleet.toml:6:", "name", "already"],
        ),
        (
            "inline password",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\npassword = \"hunter2\"\n",
            &["fleet.toml:5:", "password", "password_env"],
        ),
        (
            "two secret sources",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\npassword_env = \"A\"\npassword_file = \"/f\"\n",
            &["fleet.toml:6:", "password_file", "only one"],
        ),
        (
            "port out of range",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\nport = 70000\n",
            &["fleet.toml:5:", "port", "70000"],
        ),
        (
            "unknown field",
            "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\nhots = \"x\"\n",
            &["fleet.toml:5:", "hots"],
        ),
        ("no host", "[[instance]]\nname = \"a\"\nkind = \"mssql\"\n", &["fleet.toml:1:", "host"]),
        ("demo without path", "[[instance]]\nname = \"d\"\nkind = \"sqlite_demo\"\n", &["fleet.toml:1:", "path"]),
        (
            "triage: long factor under 1",
            "[triage]\nlong_factor = 0.5\n",
            &["fleet.toml:2:", "triage.long_factor", "0.5", "at least 1"],
        ),
        (
            "triage: short factor of 2",
            "[triage]\nshort_factor = 2.0\n",
            &["fleet.toml:2:", "triage.short_factor", "between 0 and 1"],
        ),
        (
            "triage: days in hours",
            "[triage]\n\nno_success_after = \"36h\"\n",
            &["fleet.toml:3:", "no_success_after", "whole days"],
        ),
        ("triage: stale polls 0", "[triage]\nstale_polls = 0\n", &["fleet.toml:2:", "stale_polls", "1 to 1000"]),
        ("triage: unknown knob", "[triage]\nlong_factr = 2.0\n", &["fleet.toml:2:", "long_factr"]),
        ("http: no connections", "[http]\nmax_connections = 0\n", &["fleet.toml:2:", "http.max_connections", "0"]),
        (
            "http: more per client than in all",
            "[http]\nmax_connections = 10\nmax_connections_per_client = 11\n",
            &["fleet.toml:3:", "http.max_connections_per_client", "11", "max_connections (10)"],
        ),
        (
            "http: a timeout that is no duration",
            "[http]\n\nheader_timeout = \"soon\"\n",
            &["fleet.toml:3:", "http.header_timeout", "soon"],
        ),
        (
            "http: a day's stall",
            "[http]\nsend_timeout = \"1d\"\n",
            &["fleet.toml:2:", "http.send_timeout", "at most an hour"],
        ),
        ("http: unknown field", "[http]\nmax_conections = 5\n", &["fleet.toml:2:", "max_conections"]),
    ];
    let mut failures = Vec::new();
    for (name, text, wants) in cases {
        let e = err(text);
        for w in *wants {
            if !e.contains(w) {
                failures.push(format!("{name}: {e:?} lacks {w:?}"));
            }
        }
        if e.contains("hunter2") {
            failures.push(format!("{name}: the message leaks the secret: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn secrets_resolve_from_env_or_file_and_never_print() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pw");
    std::fs::write(&file, "s3cr3t-from-file\n").unwrap();
    let text = format!(
        "[[instance]]\nname = \"a\"\nkind = \"mssql\"\nhost = \"h\"\npassword_file = \"{}\"\n\n[[instance]]\nname = \"b\"\nkind = \"mssql\"\nhost = \"h\"\npassword_env = \"SUNDIAL_TEST_SURELY_UNSET_VAR\"\n",
        file.display()
    );
    let path = dir.path().join("fleet.toml");
    std::fs::write(&path, &text).unwrap();
    let c = config::load(&path).expect("valid");
    let secret = config::resolve_secret(&c.instances[0]).unwrap().expect("a secret");
    assert_eq!(secret.expose(), "s3cr3t-from-file");
    assert_eq!(format!("{secret:?} {secret}"), "*** ***");
    assert!(!format!("{c:?}").contains("s3cr3t"));
    assert!(!config::summary(&c).contains("s3cr3t"));
    let e = config::resolve_secret(&c.instances[1]).expect_err("unset variable");
    assert!(matches!(e, ConfigError::MissingSecret { .. }));
    assert!(e.to_string().contains("SUNDIAL_TEST_SURELY_UNSET_VAR") && e.to_string().contains("\"b\""), "{e}");
}

#[test]
fn an_unreadable_file_names_itself() {
    let e = config::load(std::path::Path::new("/nonexistent/fleet.toml")).expect_err("missing");
    assert!(e.to_string().starts_with("/nonexistent/fleet.toml: cannot read"), "{e}");
}
