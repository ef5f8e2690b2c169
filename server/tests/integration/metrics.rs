//! `GET /metrics` over a fleet file: a worker's `jobactivity` table in SQLite with a missed run,
//! a crashed run and a run going long, and an instance that cannot be read. The exposition
//! parses (every sample under a HELP and a TYPE, `# EOF` last) and holds the fixture's values.
use crate::support::t;
use crate::support::web::{self, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use chrono::{DateTime, Utc};
use sqlx::Connection;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The fixture's "now": 13:40 on Saturday the 7th.
pub const NOW: &str = "2026-03-07T13:40:00Z";

pub const NIGHTLY: &str = "ETL - Nightly Load";

/// The worker's table, a week of it: `ETL - Nightly Load` ran daily at 13:00 (270 s) until
/// today's, which is missing; `Backup` too (600 s), today's still going (since 13:00:30);
/// `Report "daily"` at 01:30 (120 s), today's never stopped (no stop, past the hour): crashed.
pub async fn write_worker(path: &Path) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path).create_if_missing(true);
    let mut c = sqlx::SqliteConnection::connect_with(&options).await.expect("the worker's file");
    let mut sql = vec![
        "CREATE TABLE jobactivity (job_id CHAR(36) NOT NULL, job_name VARCHAR(100) NOT NULL, \
         start_execution_date DATETIME NOT NULL, stop_execution_date DATETIME NULL)"
            .to_owned(),
    ];
    let mut row = |job: &str, start: String, stop: Option<String>| {
        let n = sql.len();
        let stop = stop.map_or("NULL".to_owned(), |s| format!("'{s}'"));
        sql.push(format!(
            "INSERT INTO jobactivity VALUES ('{n:08}-0000-0000-0000-000000000000', '{job}', '{start}', {stop})"
        ));
    };
    for d in 1..=6 {
        row(NIGHTLY, format!("2026-03-0{d} 13:00:30"), Some(format!("2026-03-0{d} 13:05:00")));
        row("Backup", format!("2026-03-0{d} 13:00:30"), Some(format!("2026-03-0{d} 13:10:30")));
        row("Report \"daily\"", format!("2026-03-0{d} 01:30:30"), Some(format!("2026-03-0{d} 01:32:30")));
    }
    row("Backup", "2026-03-07 13:00:30".into(), None);
    row("Report \"daily\"", "2026-03-07 01:30:30".into(), None);
    for s in sql {
        sqlx::query(sqlx::AssertSqlSafe(s.clone())).execute(&mut c).await.unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// Today's run of `ETL - Nightly Load`, late but done: the missed run resolves.
pub async fn nightly_ran(path: &Path) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    let mut c = sqlx::SqliteConnection::connect_with(&options).await.expect("the worker's file");
    sqlx::query(
        "INSERT INTO jobactivity VALUES ('99999999-0000-0000-0000-000000000000', 'ETL - Nightly Load', \
         '2026-03-07 13:00:40', '2026-03-07 13:05:00')",
    )
    .execute(&mut c)
    .await
    .expect("the run is written");
}

/// The fleet file's instances: the worker (read every second) and one whose file is gone.
pub fn instances(worker: &Path, dir: &Path) -> String {
    format!(
        "[triage]\nstale_polls = 1000\n\n\
         [[instance]]\nname = \"worker\"\nkind = \"jobactivity\"\npath = {:?}\ntime_zone = \"UTC\"\npoll_interval = \"1s\"\n\
         [[instance.job]]\nname = \"{NIGHTLY}\"\nschedule = \"0 13 * * *\"\n\
         [[instance.job]]\nname = \"Backup\"\nschedule = \"0 13 * * *\"\n\
         [[instance.job]]\nname = 'Report \"daily\"'\nschedule = \"30 1 * * *\"\n\n\
         [[instance]]\nname = \"GONE\"\nkind = \"sqlite_demo\"\npath = {:?}\n",
        worker.to_string_lossy(),
        dir.join("missing.sqlite").to_string_lossy(),
    )
}

/// One sample: its labels and value.
type Samples = BTreeMap<String, Vec<(BTreeMap<String, String>, f64)>>;

/// A line check of the text format: `# HELP` and `# TYPE` before each family's samples, every
/// sample `name{label="value",…} number` of a declared family, label values escaped, `# EOF`
/// last. Returns the samples by family.
fn parse(text: &str) -> Samples {
    let mut helped = HashSet::new();
    let mut typed = HashSet::new();
    let mut out = Samples::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "{text}");
    for line in &lines[..lines.len() - 1] {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or_else(|| panic!("{line}"));
            assert!(!help.trim().is_empty(), "{line}");
            assert!(helped.insert(name.to_owned()), "one HELP per family: {line}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or_else(|| panic!("{line}"));
            assert!(helped.contains(name), "HELP before TYPE: {line}");
            match kind {
                "gauge" => typed.insert(name.to_owned()),
                // A counter's sample is `<name>_total`.
                "counter" => typed.insert(format!("{name}_total")),
                _ => panic!("gauges and counters only: {line}"),
            };
            continue;
        }
        assert!(!line.starts_with('#'), "{line}");
        let (name, rest) = line.split_at(line.find(['{', ' ']).unwrap_or_else(|| panic!("{line}")));
        assert!(typed.contains(name), "a sample of a declared family: {line}");
        let mut labels = BTreeMap::new();
        let value = if let Some(body) = rest.strip_prefix('{') {
            // label="value" pairs; values may hold escaped quotes.
            let mut chars = body.chars().peekable();
            loop {
                let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
                assert_eq!(chars.next(), Some('"'), "{line}");
                let mut value = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => match chars.next() {
                            Some('n') => value.push('\n'),
                            Some(e @ ('\\' | '"')) => value.push(e),
                            other => panic!("bad escape {other:?}: {line}"),
                        },
                        '"' => break,
                        c => value.push(c),
                    }
                }
                labels.insert(key, value);
                match chars.next() {
                    Some(',') => continue,
                    Some('}') => break,
                    other => panic!("{other:?}: {line}"),
                }
            }
            chars.collect::<String>()
        } else {
            rest.to_owned()
        };
        let value: f64 = value.trim().parse().unwrap_or_else(|e| panic!("{e}: {line}"));
        out.entry(name.to_owned()).or_default().push((labels, value));
    }
    out
}

fn value(samples: &Samples, family: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples.get(family)?.iter().find_map(|(l, v)| {
        let all = labels.iter().all(|(k, want)| l.get(*k).map(String::as_str) == Some(*want));
        (all && l.len() == labels.len()).then_some(*v)
    })
}

fn epoch(s: &str) -> f64 {
    t(s).timestamp() as f64
}

#[tokio::test]
async fn metrics_parse_and_hold_the_fleets_values() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.sqlite");
    write_worker(&worker).await;
    let now: DateTime<Utc> = t(NOW);
    let state = web::fleet_as_of(&instances(&worker, dir.path()), now).await;
    let answer = send(state.clone(), Request::get("/metrics").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::OK);
    let content_type = answer.headers.get(header::CONTENT_TYPE).unwrap().to_str().unwrap();
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    let text = answer.text();
    let m = parse(&text);

    assert_eq!(value(&m, "sundial_instance_up", &[("instance", "worker")]), Some(1.0), "{text}");
    assert_eq!(value(&m, "sundial_instance_up", &[("instance", "GONE")]), Some(0.0), "{text}");
    assert!(value(&m, "sundial_instance_last_read_age_seconds", &[("instance", "worker")]).is_some_and(|a| a >= 0.0));
    assert_eq!(value(&m, "sundial_instance_last_read_age_seconds", &[("instance", "GONE")]), None, "never read");
    for instance in ["worker", "GONE"] {
        let reads = value(&m, "sundial_instance_reads_total", &[("instance", instance)]);
        assert!(reads.is_some_and(|n| n >= 1.0), "{instance} was read (or tried) at least once: {text}");
    }

    let job = |family: &str, job: &str| value(&m, family, &[("instance", "worker"), ("job", job)]);
    let last = "sundial_job_last_success_timestamp_seconds";
    assert_eq!(job(last, NIGHTLY), Some(epoch("2026-03-06T13:05:00Z")), "{text}");
    assert_eq!(job(last, "Report \"daily\""), Some(epoch("2026-03-06T01:32:30Z")), "escaped and read back");
    let missed = |job: &str, cause: &str| {
        value(&m, "sundial_job_missed_runs", &[("instance", "worker"), ("job", job), ("cause", cause)])
    };
    assert_eq!(missed(NIGHTLY, "no_run"), Some(1.0), "{text}");
    for cause in ["scheduler_zombie", "scheduler_down", "skipped_running"] {
        assert_eq!(missed(NIGHTLY, cause), Some(0.0), "every cause has its series: {cause}");
    }
    assert_eq!(missed("Backup", "no_run"), Some(0.0));
    assert_eq!(job("sundial_job_failed_runs", "Report \"daily\""), Some(1.0), "the crashed run of 01:30");
    assert_eq!(job("sundial_job_failed_runs", NIGHTLY), Some(0.0));
    assert_eq!(job("sundial_job_running_seconds", "Backup"), Some(2370.0), "13:00:30 to 13:40");
    assert_eq!(job("sundial_job_running_seconds", NIGHTLY), Some(0.0));
    assert_eq!(job("sundial_job_duration_p95_seconds", "Backup"), Some(600.0));
    assert_eq!(job("sundial_job_duration_p95_seconds", NIGHTLY), Some(270.0));

    let problems = |kind: &str, severity: &str| {
        value(&m, "sundial_problems", &[("kind", kind), ("severity", severity)]).unwrap_or_else(|| panic!("{text}"))
    };
    assert_eq!(problems("unreachable", "critical"), 1.0);
    assert_eq!(problems("missed", "error"), 1.0);
    assert_eq!(problems("failed", "error"), 1.0);
    assert_eq!(problems("running_long", "warning"), 1.0);
    assert_eq!(problems("zombie", "critical"), 0.0, "every kind has its series");
    assert_eq!(m["sundial_problems"].len(), 11);

    // Bounded: 3 per instance, at most 8 per job, 11 problems.
    let series: usize = m.values().map(Vec::len).sum();
    assert!(series <= 3 * 2 + 8 * 3 + 11, "{series} series: {text}");
    // No error text of the unreachable instance, no path.
    assert!(!text.contains("missing.sqlite") && !text.contains(&*dir.path().to_string_lossy()), "{text}");
}
