//! Bad input, fuzzed: the fleet file and the users file, every URL query and form parameter
//! of every route (the demo served as a fleet, request by request through the router), and
//! every source's row mapping (msdb's cells; the seeds', pg_cron's and MySQL's tables, each
//! in SQLite with values of every type) get generated input and must never panic: a bad file
//! is refused naming its line, a bad request is answered below 500, and a bad row comes back
//! as a diagnostic rather than lost.
//!
//! `SUNDIAL_FUZZ_CASES` sets the inputs per harness (default 256, what `cargo test` runs);
//! `make fuzz` runs 100,000 in a release build. Each harness prints `fuzz <name>: <N> inputs,
//! no panic` to stderr. A failure is shrunk to a minimal input by proptest and becomes a plain
//! `#[test]` in `regressions` below.
use crate::support::t;
use crate::support::web;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, header};
use chrono::{DateTime, Duration, Utc};
use http_body_util::BodyExt;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use server::config;
use server::sources::msdb_rows::{
    self, Cell, HorizonRead, JobRead, JobStepRead, MsdbRows, OutcomeRead, RunningRead, ScheduleRead, SessionRead,
    StepHistoryRead,
};
use server::sources::snapshots::Store;
use server::sources::tables::{Col, TablesDb};
use server::sources::{SourceRead, job_table, jobactivity, mysql_events, pg_cron, pgagent, primentra, service_broker};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sundial_engine::{Diagnostic, RunOutcome, Severity, Window};
use tower::ServiceExt;

/// Inputs per harness: `SUNDIAL_FUZZ_CASES`, else 256.
#[path = "../../../app/engine/tests/fuzz_runner/mod.rs"]
mod fuzz_runner;
use fuzz_runner::fuzz;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

// ---------------------------------------------------------------------------------------------
// Generators

/// Values configurations, URLs and tables really hold, and their near misses.
const TOKENS: &[&str] = &[
    "",
    " ",
    "0",
    "1",
    "-1",
    "7",
    "30",
    "31",
    "62",
    "63",
    "100",
    "1000",
    "1001",
    "65535",
    "65536",
    "2147483647",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "1.5",
    "NaN",
    "inf",
    "1e999",
    "null",
    "NULL",
    "true",
    "false",
    "yes",
    "0s",
    "1s",
    "30s",
    "1m",
    "60m",
    "1h",
    "4h",
    "1d",
    "31d",
    "90d",
    "1y",
    "100000000000d",
    "18446744073709551615s",
    "-1h",
    "1 hour",
    "forever",
    "*",
    "* * * * *",
    "0 13 * * *",
    "*/0 * * * *",
    "@daily",
    "61 * * * *",
    "2026-11-22T12:00:00Z",
    "2026-11-22T12:00:00+14:00",
    "2026-11-22 12:00:00",
    "2026-11-22",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "+262143-12-31T23:59:59Z",
    "-262143-01-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2026-11-22T12:00:00",
    "UTC",
    "local",
    "Europe/Berlin",
    "America/New_York",
    "Mars/Base",
    "+05:30",
    "light",
    "dark",
    "auto",
    "mssql",
    "pg_cron",
    "pgagent",
    "mysql_events",
    "jobactivity",
    "mysql_job_table",
    "service_broker",
    "primentra",
    "sqlite_demo",
    "seed001",
    "seed004",
    "sqlserver",
    "postgres",
    "mysql",
    "sqlite",
    "slack",
    "json",
    "info",
    "warning",
    "error",
    "critical",
    "admin",
    "viewer",
    "agent",
    "cron",
    "mysql_event",
    "job_table",
    "failed",
    "missed",
    "late",
    "zombie",
    "agent-start",
    "name",
    "-name",
    "last",
    "asc",
    "desc",
    "all",
    "SQLPROD01",
    "SQLAPAC01",
    "SQLEU01",
    "pg-analytics",
    "shop-mariadb",
    "worker-jobs",
    "job-runner",
    "broker-sched",
    "/",
    "//evil.example",
    "/\\evil",
    "/jobs?days=7",
    "https://evil.example/",
    "http://",
    "http://127.0.0.1:3000/",
    "..",
    "../..",
    "%",
    "%zz",
    "%00",
    "\0",
    "\u{202e}",
    "é",
    "日本",
    "<script>",
    "'; DROP TABLE x; --",
    "\"",
    "\\",
    "10.0.0.0/8",
    "::1/128",
    "300.1.1.1/8",
    "X-Forwarded-User",
    "bad header",
    "sdl_0",
];

fn text() -> BoxedStrategy<String> {
    prop_oneof![
        6 => prop::sample::select(TOKENS).prop_map(str::to_owned),
        2 => (prop::sample::select(TOKENS), prop::sample::select(TOKENS)).prop_map(|(a, b)| format!("{a}{b}")),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        2 => "[0-9a-zA-Z :T.+\\-/,*%&=?#]{0,24}",
        2 => "\\PC{0,24}",
        1 => any::<String>(),
        1 => ("[0-9a-z]{1,3}", 300usize..3000).prop_map(|(s, n)| s.repeat(n)),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// The fleet file

/// A TOML value for a field: usually a string of something, sometimes another type.
fn toml_value() -> BoxedStrategy<String> {
    prop_oneof![
        6 => text().prop_map(|s| toml_string(&s)),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec!["0", "-1", "65535", "65536", "1.5", "-0.0", "nan", "inf", "1e308"]).prop_map(str::to_owned),
        1 => any::<bool>().prop_map(|b| b.to_string()),
        1 => Just("[]".to_owned()),
        1 => text().prop_map(|s| format!("[{}]", toml_string(&s))),
        1 => text().prop_map(|s| format!("{{ x = {} }}", toml_string(&s))),
        1 => Just("1979-05-27T07:32:00Z".to_owned()),
    ]
    .boxed()
}

/// `s` as a TOML basic string (every character escaped that must be).
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `key = value` lines: each of `keys` present or not, each with a random value; sometimes a
/// key no table has.
fn fields(keys: &'static [&'static str]) -> BoxedStrategy<String> {
    (
        prop::collection::vec((prop::sample::select(keys), toml_value()), 0..keys.len().min(8)),
        prop::option::of("[a-z_]{1,12}"),
    )
        .prop_map(|(kv, extra)| {
            let mut seen = std::collections::HashSet::new();
            let mut out = String::new();
            for (k, v) in kv {
                if seen.insert(k) {
                    out.push_str(&format!("{k} = {v}\n"));
                }
            }
            if let Some(e) = extra {
                out.push_str(&format!("{e} = 1\n"));
            }
            out
        })
        .boxed()
}

const TOP: &[&str] = &["public_url", "store", "history_retention"];
const DEFAULTS: &[&str] = &["poll_interval", "timeout"];
const TRIAGE: &[&str] = &["no_success_after", "long_factor", "short_factor", "stale_polls"];
const INSTANCE: &[&str] = &[
    "host",
    "port",
    "database",
    "user",
    "path",
    "password",
    "password_env",
    "password_file",
    "url_env",
    "time_zone",
    "poll_interval",
    "timeout",
    "engine",
    "schedule",
    "stuck_after",
    "encrypt",
    "trust_server_certificate",
];
const JOB: &[&str] = &["schedule", "enabled", "stuck_after"];
const ALERT: &[&str] = &["name", "url", "url_env", "format", "grace", "remind", "min_severity"];
const AUTH: &[&str] = &["users_file", "session", "proxy_header", "trusted_proxies", "admins"];

/// A fleet file shaped as Sundial's: its tables and arrays of tables, every field with any
/// value; instances mostly with a name and a kind, so validation goes past them.
fn fleet_file() -> BoxedStrategy<String> {
    let instance = (
        prop_oneof![4 => (0u8..6).prop_map(|i| toml_string(&format!("i{i}"))), 1 => toml_value()],
        prop_oneof![4 => prop::sample::select(vec!["mssql", "pg_cron", "pgagent", "mysql_events", "jobactivity", "mysql_job_table", "service_broker", "primentra", "sqlite_demo", "seed002", "oracle"]).prop_map(toml_string), 1 => toml_value()],
        fields(INSTANCE),
        prop::collection::vec((toml_value(), fields(JOB)), 0..3),
        prop::option::of(fields(&["env", "team", "x"])),
    )
        .prop_map(|(name, kind, f, jobs, tags)| {
            let mut s = format!("\n[[instance]]\nname = {name}\nkind = {kind}\n{f}");
            if let Some(tags) = tags {
                s.push_str(&format!("[instance.tags]\n{tags}"));
            }
            for (n, j) in jobs {
                s.push_str(&format!("[[instance.job]]\nname = {n}\n{j}"));
            }
            s
        });
    (
        fields(TOP),
        prop::option::of(fields(DEFAULTS)),
        prop::option::of(fields(TRIAGE)),
        prop::option::of(fields(AUTH)),
        prop::collection::vec(fields(ALERT), 0..3),
        prop::collection::vec(instance, 0..4),
    )
        .prop_map(|(top, defaults, triage, auth, alerts, instances)| {
            let mut s = top;
            for (t, f) in [("defaults", defaults), ("triage", triage), ("auth", auth)] {
                if let Some(f) = f {
                    s.push_str(&format!("\n[{t}]\n{f}"));
                }
            }
            for a in alerts {
                s.push_str(&format!("\n[[alert]]\n{a}"));
            }
            s.extend(instances);
            s
        })
        .boxed()
}

/// The fleet file: refused with the file, the line and what is wrong, or accepted whole.
#[test]
fn fuzz_fleet_files() {
    let doc = prop_oneof![8 => fleet_file(), 1 => text(), 1 => (fleet_file(), any::<prop::sample::Index>(), text()).prop_map(|(f, i, t)| {
        // A valid file with text spliced in anywhere.
        let at = i.index(f.len() + 1);
        let at = (0..=at).rev().find(|&a| f.is_char_boundary(a)).unwrap_or(0);
        format!("{}{t}{}", &f[..at], &f[at..])
    })];
    fuzz("fleet_file", doc, |text| {
        match config::parse(&text, "fuzz.toml") {
            Ok(c) => {
                let _ = config::summary(&c);
                for i in &c.instances {
                    prop_assert!(!i.name.trim().is_empty(), "an instance without a name was accepted: {text}");
                    let _ = config::resolve_secret(i);
                }
            }
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(
                    shown.starts_with("fuzz.toml:") || shown.starts_with("instance \""),
                    "an error that names no file or instance: {shown}"
                );
                prop_assert!(shown.len() < 20_000 + text.len(), "an error message of {} bytes", shown.len());
            }
        }
        Ok(())
    });
}

/// The users file: refused naming its line, or read; never a panic.
#[test]
fn fuzz_users_files() {
    // One real hash and one real token digest, made once (hashing is slow on purpose).
    let hash = server::auth::hash_password("fuzz").expect("a hash");
    let (_, digest) = server::auth::new_token().expect("a token");
    let hash_value = prop_oneof![
        3 => Just(toml_string(&hash)),
        1 => Just(toml_string(&hash.replace("argon2id", "argon2i"))),
        1 => Just(toml_string(&hash.replace("argon2id", "scrypt"))),
        1 => (any::<prop::sample::Index>()).prop_map({
            let hash = hash.clone();
            move |i| toml_string(&hash[..i.index(hash.len())])
        }),
        2 => toml_value(),
    ];
    let digest_value = prop_oneof![
        3 => Just(toml_string(&digest)),
        1 => Just(toml_string(&digest[..63])),
        1 => Just(toml_string(&format!("{digest}00"))),
        1 => Just(toml_string(&digest.to_uppercase())),
        2 => toml_value(),
    ];
    let role = prop_oneof![
        Just(None),
        prop::sample::select(vec!["\"admin\"", "\"viewer\"", "\"root\"", "1"]).prop_map(|r| Some(r.to_owned())),
        toml_value().prop_map(Some)
    ];
    let name = prop_oneof![3 => (0u8..3).prop_map(|i| toml_string(&format!("u{i}"))), 1 => toml_value()];
    let user = (name.clone(), hash_value, role.clone(), any::<bool>()).prop_map(|(n, h, r, junk)| {
        let mut s = format!("\n[[user]]\nname = {n}\npassword_hash = {h}\n");
        if let Some(r) = r {
            s.push_str(&format!("role = {r}\n"));
        }
        if junk {
            s.push_str("shell = \"/bin/sh\"\n");
        }
        s
    });
    let token = (name, digest_value, role).prop_map(|(n, d, r)| {
        let mut s = format!("\n[[token]]\nname = {n}\nsha256 = {d}\n");
        if let Some(r) = r {
            s.push_str(&format!("role = {r}\n"));
        }
        s
    });
    let doc = prop_oneof![
        6 => (prop::collection::vec(user, 0..3), prop::collection::vec(token, 0..3)).prop_map(|(u, t)| u.concat() + &t.concat()),
        1 => text(),
    ];
    fuzz("users_file", doc, |text| {
        match server::auth::Accounts::parse(&text, "users.toml") {
            Ok(a) => {
                let (users, tokens) = a.counts();
                prop_assert!(users + tokens > 0, "a users file with nobody was accepted");
                prop_assert!(a.token("sdl_0").is_none());
            }
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(shown.contains("users.toml"), "an error that names no file: {shown}");
                prop_assert!(!shown.contains(&hash), "the error shows a password hash: {shown}");
            }
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Every route, with any query and form

/// A URL's component, percent-encoded byte by byte (what a browser sends for any text).
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

const QUERY_KEYS: &[&str] = &[
    "instance",
    "days",
    "job",
    "job_id",
    "out",
    "next",
    "error",
    "tz",
    "to",
    "from",
    "as_of",
    "sort",
    "show",
    "schedule",
    "row",
    "problems",
    "pg_cron",
    "limit",
    "kind",
    "dir",
    "dialect",
    "cursor",
    "count",
    "at",
    "after",
    "ack_error",
    "zone",
    "theme",
    "back",
    "key",
    "episode_ms",
    "by",
    "note",
    "silence",
    "reason",
    "instance",
    "jobs",
    "start",
    "duration",
    "time_zone",
    "why",
    "id",
    "start_ms",
    "maint_error",
    "name",
    "password",
    "query[kind]",
    "query[job]",
    "query[problems]",
    "query[cursor]",
    "query[limit]",
    "query[instance]",
    "query[dialect]",
    "query[row]",
    "query[tz]",
    "query[after]",
    "query[count]",
    "query[days]",
    "query[schedule]",
    "query[pg_cron]",
    "query",
    "[",
    "]",
    "",
];

/// A query or form body: known keys (and some not) with any values, percent-encoded, and now
/// and then raw bytes that are no valid encoding.
fn query() -> BoxedStrategy<String> {
    let pair = prop_oneof![
        8 => (prop::sample::select(QUERY_KEYS), text()).prop_map(|(k, v)| format!("{}={}", encode(k), encode(&v))),
        1 => prop::sample::select(QUERY_KEYS).prop_map(encode),
        1 => prop::sample::select(vec!["%", "%zz", "%FF%FE", "days=%", "=", "&", "days=1&days=2", "days=%F0%9F%98", "+=+", "a[b][c]=1"]).prop_map(str::to_owned),
    ];
    prop::collection::vec(pair, 0..6).prop_map(|v| v.join("&")).boxed()
}

/// A path segment: a demo instance or job, or any text.
fn segment() -> BoxedStrategy<String> {
    prop_oneof![
        2 => prop::sample::select(server::demo::FLEET.to_vec()).prop_map(str::to_owned),
        1 => prop::sample::select(vec![server::demo::RERUN_JOB, server::demo::TRIMMED_JOB, server::demo::DISABLED_JOB, "etl.hourly"]).prop_map(str::to_owned),
        2 => text(),
    ]
    .prop_map(|s| encode(&s))
    .boxed()
}

const GET_PATHS: &[&str] = &[
    "/",
    "/jobs",
    "/fleet",
    "/triage",
    "/maintenance",
    "/log",
    "/jobs/{s}",
    "/simulate",
    "/timeline",
    "/signin",
    "/api/health",
    "/api/jobs",
    "/api/instances",
    "/api/instances/{s}/jobs",
    "/api/instances/{s}/jobs/{s}/timeline",
    "/api/log",
    "/api/triage",
    "/api/maintenance",
    "/api/risks",
    "/log.csv",
    "/metrics",
    "/{s}",
    "/pkg/{s}",
];
const POST_PATHS: &[&str] = &[
    "/prefs",
    "/triage/ack",
    "/triage/unack",
    "/triage/maintenance",
    "/triage/maintenance/end",
    "/signin",
    "/signout",
    "/api/fn/fleet",
    "/api/fn/triage",
    "/api/fn/maintenance",
    "/api/fn/jobs",
    "/api/fn/instance_log",
    "/api/fn/job_timeline",
    "/api/fn/instance_timeline",
    "/api/fn/instance_timeline_chart",
    "/api/fn/simulate_setup",
    "/api/fn/fetch_zone_rules",
    "/jobs",
];

#[derive(Debug)]
struct Req {
    method: Method,
    uri: String,
    body: String,
    signed_in: bool,
}

fn request() -> BoxedStrategy<Req> {
    let get = (prop::sample::select(GET_PATHS), segment(), segment(), query())
        .prop_map(|(p, a, b, q)| (Method::GET, fill(p, &a, &b), q, String::new()));
    let post = (prop::sample::select(POST_PATHS), query(), query())
        .prop_map(|(p, q, body)| (Method::POST, p.to_owned(), q, body));
    (prop_oneof![3 => get, 2 => post], prop_oneof![4 => Just(false), 1 => Just(true)])
        .prop_map(|((method, path, q, body), signed_in)| Req {
            method,
            uri: if q.is_empty() { path } else { format!("{path}?{q}") },
            body,
            signed_in,
        })
        .boxed()
}

fn fill(path: &str, a: &str, b: &str) -> String {
    path.replacen("{s}", a, 1).replacen("{s}", b, 1)
}

/// Every route of the demo served as a fleet, with any query and form: answered below 500
/// (the one instance the demo plants as unreachable may say 503 for itself), and an error
/// answer says what was wrong. Half the requests go to a server with sign-in, as a user
/// who is not signed in.
#[test]
fn fuzz_requests() {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (router, auth_router, _rendering) = rt.block_on(async {
        let path = dir.path().join("demo.sqlite");
        server::demo::write_demo(&path, t("2026-11-22T12:00:00Z"), 42).await.expect("the demo is written");
        let fleet = server::demo::fleet(&path).expect("the demo's configuration");
        let backend = server::fleet::FleetBackend::start(&fleet).await.expect("the demo starts");
        for i in &fleet.instances {
            let _ = sundial_model::ssr::Backend::snapshot(backend.as_ref(), &i.name).await;
        }
        let state = web::state(backend);
        let hash = server::auth::hash_password("fuzz").expect("a hash");
        let users = format!("[[user]]\nname = \"u0\"\nrole = \"admin\"\npassword_hash = \"{hash}\"\n");
        let accounts = server::auth::Accounts::parse(&users, "users.toml").expect("the users file");
        let auth = server::auth::Auth::new(accounts, std::time::Duration::from_secs(3600), None);
        let auth_state = state.clone().with_auth(Some(std::sync::Arc::new(auth)));
        let router = web::router(state).await;
        let auth_router = web::router(auth_state).await;
        (router, auth_router, web::rendering().await)
    });
    fuzz("requests", request(), |r| {
        let status_and_body = rt.block_on(async {
            let mut req = Request::builder()
                .method(r.method.clone())
                .uri(&r.uri)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header(header::HOST, "127.0.0.1:3000")
                .header(header::ORIGIN, "http://127.0.0.1:3000")
                .header("sec-fetch-site", "same-origin")
                .body(Body::from(r.body.clone()))
                .expect("an encoded URI is valid");
            req.extensions_mut().insert(ConnectInfo(std::net::SocketAddr::from(([127, 0, 0, 1], 40000))));
            let router = if r.signed_in { auth_router.clone() } else { router.clone() };
            let res = router.oneshot(req).await.expect("the router answers");
            let status = res.status();
            let body = res.into_body().collect().await.map(|b| b.to_bytes().to_vec()).unwrap_or_default();
            (status, String::from_utf8_lossy(&body).into_owned())
        });
        let (status, body) = status_and_body;
        // The demo's unreachable instance is a 503 wherever it is named: the query or the form.
        let names_unreachable = r.uri.contains(server::demo::UNREACHABLE) || r.body.contains(server::demo::UNREACHABLE);
        let planted = status.as_u16() == 503 && names_unreachable;
        prop_assert!(
            !status.is_server_error() || planted,
            "{} {} ({}) answered {status}: {}",
            r.method,
            r.uri,
            r.body,
            body.chars().take(600).collect::<String>()
        );
        if status.is_client_error() && r.uri.starts_with("/api/") && !r.uri.starts_with("/api/fn/") {
            prop_assert!(!body.trim().is_empty(), "{} {} answered {status} with no reason", r.method, r.uri);
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// msdb's rows

fn msdb_cell() -> BoxedStrategy<Cell> {
    prop_oneof![
        2 => Just(Cell::Null),
        4 => prop_oneof![any::<i64>(), 0i64..5, 19_000_101i64..100_000_000, 0i64..240_000, prop::sample::select(vec![i64::MIN, i64::MAX, -1, 0, 20240229, 20231345, 99991231, 235959, 240000])].prop_map(Cell::Int),
        1 => any::<f64>().prop_map(Cell::Real),
        3 => prop_oneof![text(), prop::sample::select(vec!["2026-11-22 09:00:00.000", "2026-11-22T09:00:00", "2026-11-22 09:00", "1", "4", "20261122", "9999-12-31 23:59:59.997"]).prop_map(str::to_owned)].prop_map(Cell::Text),
        1 => (0usize..100).prop_map(Cell::Blob),
    ]
    .boxed()
}

/// A job id: one of three (so rows join), or any cell.
fn job_id() -> BoxedStrategy<Cell> {
    prop_oneof![4 => (0u8..3).prop_map(|i| Cell::Text(format!("J{i}"))), 1 => msdb_cell()].boxed()
}

/// msdb's rows as cells, column by column in the order of the row structs (which have no
/// `Debug`, which proptest needs to show a failing input): jobs, schedules (job_id,
/// schedule_id, name and the 11 columns), horizons, outcomes, running runs, sessions.
#[derive(Clone, Debug)]
struct Cells {
    jobs: Vec<[Cell; 5]>,
    schedules: Vec<Vec<Cell>>,
    horizons: Vec<[Cell; 5]>,
    outcomes: Vec<[Cell; 7]>,
    running: Vec<[Cell; 4]>,
    sessions: Vec<Cell>,
    /// Step rows: job_id and the 11 other columns of `StepHistoryRead`.
    steps: Vec<Vec<Cell>>,
    /// sysjobsteps rows: job_id and the 8 other columns of `JobStepRead`.
    job_steps: Vec<Vec<Cell>>,
}

impl Cells {
    fn rows(&self) -> MsdbRows {
        MsdbRows {
            job_rows: self
                .jobs
                .iter()
                .map(|[job_id, name, enabled, category, owner]| JobRead {
                    job_id: job_id.clone(),
                    name: name.clone(),
                    enabled: enabled.clone(),
                    category: category.clone(),
                    owner: owner.clone(),
                    modified: Cell::Null,
                })
                .collect(),
            schedule_rows: self
                .schedules
                .iter()
                .map(|c| {
                    let n = |i: usize| c[i].clone();
                    ScheduleRead {
                        job_id: n(0),
                        schedule_id: n(1),
                        name: n(2),
                        enabled: n(3),
                        freq_type: n(4),
                        freq_interval: n(5),
                        freq_subday_type: n(6),
                        freq_subday_interval: n(7),
                        freq_relative_interval: n(8),
                        freq_recurrence_factor: n(9),
                        active_start_date: n(10),
                        active_end_date: n(11),
                        active_start_time: n(12),
                        active_end_time: n(13),
                    }
                })
                .collect(),
            horizon_rows: self
                .horizons
                .iter()
                .map(|[job_id, oldest_id, oldest_date, oldest_time, at_cap]| HorizonRead {
                    job_id: job_id.clone(),
                    oldest_id: oldest_id.clone(),
                    oldest_date: oldest_date.clone(),
                    oldest_time: oldest_time.clone(),
                    at_cap: at_cap.clone(),
                })
                .collect(),
            outcome_rows: self
                .outcomes
                .iter()
                .map(|[job_id, instance_id, run_status, run_date, run_time, run_duration, message]| OutcomeRead {
                    instance_id: instance_id.clone(),
                    job_id: job_id.clone(),
                    run_status: run_status.clone(),
                    run_date: run_date.clone(),
                    run_time: run_time.clone(),
                    run_duration: run_duration.clone(),
                    message: message.clone(),
                })
                .collect(),
            running_rows: self
                .running
                .iter()
                .map(|[job_id, start, source, last]| RunningRead {
                    job_id: job_id.clone(),
                    start_execution_date: start.clone(),
                    run_requested_source: source.clone(),
                    last_executed_step_id: last.clone(),
                    // When the last step began: any start cell serves.
                    last_executed_step_date: start.clone(),
                })
                .collect(),
            session_rows: self.sessions.iter().map(|c| SessionRead { agent_start_date: c.clone() }).collect(),
            step_rows: self
                .steps
                .iter()
                .map(|c| {
                    let n = |i: usize| c[i].clone();
                    StepHistoryRead {
                        job_id: n(0),
                        instance_id: n(1),
                        step_id: n(2),
                        step_name: n(3),
                        run_status: n(4),
                        run_date: n(5),
                        run_time: n(6),
                        run_duration: n(7),
                        retries_attempted: n(8),
                        sql_message_id: n(9),
                        sql_severity: n(10),
                        message: n(11),
                    }
                })
                .collect(),
            job_steps: self
                .job_steps
                .iter()
                .map(|c| {
                    let n = |i: usize| c[i].clone();
                    JobStepRead {
                        job_id: n(0),
                        step_id: n(1),
                        step_name: n(2),
                        subsystem: n(3),
                        on_success_action: n(4),
                        on_success_step_id: n(5),
                        on_fail_action: n(6),
                        on_fail_step_id: n(7),
                        start_step_id: n(8),
                    }
                })
                .collect(),
        }
    }
}

fn msdb_rows() -> BoxedStrategy<Cells> {
    let job =
        (job_id(), msdb_cell(), msdb_cell(), msdb_cell(), msdb_cell()).prop_map(|(a, b, c, d, e)| [a, b, c, d, e]);
    let schedule = (job_id(), prop::collection::vec(msdb_cell(), 13)).prop_map(|(id, mut c)| {
        c.insert(0, id);
        c
    });
    let horizon = (job_id(), prop::array::uniform4(msdb_cell())).prop_map(|(id, [a, b, c, d])| [id, a, b, c, d]);
    let outcome =
        (job_id(), prop::array::uniform6(msdb_cell())).prop_map(|(id, [a, b, c, d, e, f])| [id, a, b, c, d, e, f]);
    let running = (job_id(), msdb_cell(), msdb_cell(), msdb_cell()).prop_map(|(a, b, c, d)| [a, b, c, d]);
    let with_job = |n: usize| {
        (job_id(), prop::collection::vec(msdb_cell(), n)).prop_map(|(id, mut c)| {
            c.insert(0, id);
            c
        })
    };
    let step = with_job(11);
    let job_step = with_job(8);
    (
        prop::collection::vec(job, 0..4),
        prop::collection::vec(schedule, 0..4),
        prop::collection::vec(horizon, 0..3),
        prop::collection::vec(outcome, 0..8),
        prop::collection::vec(running, 0..3),
        prop::collection::vec(msdb_cell(), 0..3),
        prop::collection::vec(step, 0..8),
        prop::collection::vec(job_step, 0..4),
    )
        .prop_map(|(jobs, schedules, horizons, outcomes, running, sessions, steps, job_steps)| Cells {
            jobs,
            schedules,
            horizons,
            outcomes,
            running,
            sessions,
            steps,
            job_steps,
        })
        .boxed()
}

/// msdb's cells of every type through the mapping both msdb readers share: every job row with
/// a job_id is a job, and every schedule, outcome and running row of a job comes back as a
/// schedule, a run or a diagnostic saying it was left out (the window is all of time, so no row
/// falls outside it).
#[test]
fn fuzz_msdb_rows() {
    let zones =
        vec![chrono_tz::UTC, chrono_tz::America::New_York, chrono_tz::Australia::Lord_Howe, chrono_tz::Pacific::Apia];
    fuzz("msdb_rows", (msdb_rows(), prop::sample::select(zones)), |(cells, tz)| {
        let rows = cells.rows();
        let all = Window::new(DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC);
        let input = msdb_rows::assemble("fuzz", tz, all, &rows);
        let ids: Vec<String> = rows.job_rows.iter().filter_map(|r| r.job_id.text()).collect();
        prop_assert_eq!(input.jobs.len(), ids.len(), "a job row was lost");
        for job in &input.jobs {
            let mine = |c: &Cell| c.text().as_deref() == Some(job.id.as_str());
            // A job id listed twice gets the rows once, on the later job.
            if ids.iter().filter(|i| **i == job.id).count() > 1 {
                continue;
            }
            let expected = rows.schedule_rows.iter().filter(|r| mine(&r.job_id)).count()
                + rows.outcome_rows.iter().filter(|r| mine(&r.job_id)).count()
                + rows.running_rows.iter().filter(|r| mine(&r.job_id)).count();
            let left_out = job
                .diagnostics
                .iter()
                .filter(|d| d.message.contains("left out") && !d.message.contains("step row"))
                .count();
            // Step rows join runs, never more than there are, never before their run started.
            let step_rows = rows.step_rows.iter().filter(|r| mine(&r.job_id)).count();
            let attached =
                job.runs.iter().flat_map(|r| &r.steps).filter(|s| s.outcome != Some(RunOutcome::InProgress)).count();
            prop_assert!(attached <= step_rows, "job {}: {attached} steps from {step_rows} step rows", job.id);
            for run in &job.runs {
                prop_assert!(run.steps.iter().all(|s| s.start.is_none_or(|t| t >= run.start)), "a step before its run");
            }
            prop_assert_eq!(
                job.schedules.len() + job.runs.len() + left_out,
                expected,
                "job {}: rows lost silently; diagnostics {:?}",
                job.id,
                job.diagnostics
            );
            check_named(&job.diagnostics)?;
            prop_assert!(job.runs.windows(2).all(|p| p[0].start <= p[1].start));
        }
        Ok(())
    });
}

/// Warnings that are about a schedule as a whole, not one of its fields.
const WHOLE_SCHEDULE: [&str; 2] = ["the forecast is cut off", "Never fires"];

/// Errors and warnings name their field (but the few about a whole schedule).
fn check_named(diags: &[Diagnostic]) -> Result<(), TestCaseError> {
    for d in diags {
        let whole = d.severity == Severity::Warning && WHOLE_SCHEDULE.iter().any(|m| d.message.contains(m));
        if d.severity != Severity::Info && !whole {
            prop_assert!(d.field.as_deref().is_some_and(|f| !f.is_empty()), "a diagnostic naming no field: {d:?}");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The tables of the seeds' schedulers, pg_cron's and MySQL's, in SQLite

/// One SQLite value of any type.
#[derive(Clone, Debug)]
enum Sql {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A table: its name and columns (`true`: a time column).
struct Table {
    name: &'static str,
    columns: Vec<(&'static str, bool)>,
}

fn table(name: &'static str, cols: &[Col]) -> Table {
    Table { name, columns: cols.iter().map(|c| (c.name(), matches!(c, Col::Time(_)))).collect() }
}

fn plain(name: &'static str, cols: &[&'static str]) -> Table {
    Table { name, columns: cols.iter().map(|c| (*c, false)).collect() }
}

/// Around the poll's "now" (2026-11-22 12:00), as tables write times, or any text.
fn time_text() -> BoxedStrategy<Sql> {
    prop_oneof![
        6 => (-10 * 86_400i64..86_400, prop::sample::select(vec!["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S%.3f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]))
            .prop_map(|(s, f)| Sql::Text((t("2026-11-22T12:00:00Z") + Duration::seconds(s)).format(f).to_string())),
        3 => plain_value(),
    ]
    .boxed()
}

fn plain_value() -> BoxedStrategy<Sql> {
    prop_oneof![
        2 => Just(Sql::Null),
        3 => prop_oneof![any::<i64>(), -2i64..10, Just(i64::MAX), Just(i64::MIN)].prop_map(Sql::Int),
        1 => any::<f64>().prop_map(Sql::Real),
        5 => text().prop_map(Sql::Text),
        1 => prop::collection::vec(any::<u8>(), 0..8).prop_map(Sql::Blob),
    ]
    .boxed()
}

/// A value for `column`: keys that join tables are mostly 1 to 3, names that select a
/// setting mostly the settings read.
fn value_for(column: &str, time: bool) -> BoxedStrategy<Sql> {
    let ids = [
        "ID",
        "Id",
        "EntityId",
        "JobScheduleId",
        "ScheduledJobId",
        "ScheduledJobStepId",
        "jobid",
        "job_id",
        // pgAgent's keys and the columns that join on them.
        "jobjclid",
        "jclid",
        "jscid",
        "jscjobid",
        "jexscid",
        "jlgid",
        "jlgjobid",
        "jsljlgid",
        "jsljstid",
        "jstid",
    ];
    if time {
        time_text().boxed()
    } else if ids.contains(&column) {
        prop_oneof![4 => (1i64..4).prop_map(Sql::Int), 1 => plain_value()].boxed()
    } else if column == "name" || column == "VARIABLE_NAME" {
        let names =
            ["cron.timezone", "cron.log_run", "TimeZone", "time_zone", "system_time_zone", "event_scheduler", "other"];
        prop_oneof![4 => prop::sample::select(names.to_vec()).prop_map(|n| Sql::Text(n.to_owned())), 1 => plain_value()]
            .boxed()
    } else {
        plain_value().boxed()
    }
}

/// Rows for each table: 0 to 4, every column of any type.
fn rows_for(tables: &[Table]) -> BoxedStrategy<Vec<Vec<Vec<Sql>>>> {
    let per_table: Vec<BoxedStrategy<Vec<Vec<Sql>>>> = tables
        .iter()
        .map(|t| {
            let row: Vec<BoxedStrategy<Sql>> = t.columns.iter().map(|(c, time)| value_for(c, *time)).collect();
            prop::collection::vec(row, 0..5).boxed()
        })
        .collect();
    per_table.boxed()
}

/// An in-memory SQLite database with `tables` (untyped columns: any value stays as written),
/// kept on one connection.
async fn memory_db(tables: &[Table]) -> sqlx::SqlitePool {
    let options: SqliteConnectOptions = "sqlite::memory:".parse().expect("options");
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options)
        .await
        .expect("an in-memory database");
    for t in tables {
        let cols: Vec<String> = t.columns.iter().map(|(c, _)| format!("\"{c}\"")).collect();
        let sql = format!("CREATE TABLE \"{}\" ({})", t.name, cols.join(", "));
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&pool).await.expect("a table");
    }
    pool
}

/// Replace every table's rows by `rows`.
async fn fill_tables(pool: &sqlx::SqlitePool, tables: &[Table], rows: &[Vec<Vec<Sql>>]) {
    for (t, rows) in tables.iter().zip(rows) {
        sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM \"{}\"", t.name))).execute(pool).await.expect("emptied");
        let marks = vec!["?"; t.columns.len()].join(", ");
        let sql = format!("INSERT INTO \"{}\" VALUES ({marks})", t.name);
        for row in rows {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
            for v in row {
                q = match v.clone() {
                    Sql::Null => q.bind(None::<String>),
                    Sql::Int(i) => q.bind(i),
                    Sql::Real(f) => q.bind(f),
                    Sql::Text(s) => q.bind(s),
                    Sql::Blob(b) => q.bind(b),
                };
            }
            q.execute(pool).await.expect("a row");
        }
    }
}

/// Sundial's store, on a memory file system where there is one (it is written at every poll).
fn store_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.expect("a temporary directory")
}

/// The window a poll at "now" reads.
fn poll() -> (Window, DateTime<Utc>) {
    let now = t("2026-11-22T12:00:00Z");
    (Window::new(now - Duration::days(7), now), now)
}

/// The read went through (bad values are data, not a failed read), every job's diagnostics
/// name their field, and each row of the main table became a job or an instance-level note.
fn check_read(read: Result<SourceRead, server::sources::SourceError>, main_rows: usize) -> Result<(), TestCaseError> {
    let read = match read {
        Ok(r) => r,
        Err(e) => return Err(TestCaseError::fail(format!("bad values failed the whole read: {e}"))),
    };
    for j in &read.input.jobs {
        check_named(&j.diagnostics)?;
    }
    prop_assert!(
        read.input.jobs.len() + read.notes.len() >= main_rows,
        "{} rows, {} jobs and {} notes: rows lost silently",
        main_rows,
        read.input.jobs.len(),
        read.notes.len()
    );
    Ok(())
}

/// Runs a kind's read over its tables filled with generated rows; `main` is the index of the
/// table whose every row must come back as a job or a note.
fn fuzz_tables<F>(name: &str, tables: Vec<Table>, main: Option<usize>, read: F)
where
    F: for<'a> Fn(
        &'a mut TablesDb,
        &'a Store,
    )
        -> std::pin::Pin<Box<dyn Future<Output = Result<SourceRead, server::sources::SourceError>> + 'a>>,
{
    let rt = runtime();
    let dir = store_dir();
    let (mut db, store) = rt.block_on(async {
        let db = TablesDb::Sqlite(memory_db(&tables).await);
        let store = Store::open(&dir.path().join("store.sqlite")).await.expect("the store");
        (db, store)
    });
    let db = std::cell::RefCell::new(&mut db);
    fuzz(name, rows_for(&tables), |rows| {
        let mut db = db.borrow_mut();
        let result = rt.block_on(async {
            if let TablesDb::Sqlite(pool) = &**db {
                fill_tables(pool, &tables, &rows).await;
            }
            read(&mut db, &store).await
        });
        check_read(result, main.map_or(0, |m| rows[m].len()))
    });
}

#[test]
fn fuzz_job_table_rows() {
    fuzz_tables("job_table_rows", vec![table("job", job_table::COLUMNS)], Some(0), |db, store| {
        let (w, now) = poll();
        Box::pin(job_table::read_instance(
            db,
            store,
            "fuzz",
            chrono_tz::Europe::Berlin,
            w,
            now,
            job_table::DEFAULT_STUCK_AFTER,
        ))
    });
}

#[test]
fn fuzz_jobactivity_rows() {
    let plan = jobactivity::Plan::every_job("*/15 * * * *", chrono::TimeDelta::hours(1));
    fuzz_tables("jobactivity_rows", vec![table("jobactivity", jobactivity::COLUMNS)], None, move |db, _| {
        let (w, now) = poll();
        let plan = plan.clone();
        Box::pin(
            async move { jobactivity::read_instance(db, "fuzz", chrono_tz::America::New_York, &plan, w, now).await },
        )
    });
}

#[test]
fn fuzz_service_broker_rows() {
    let tables = vec![
        table("ScheduledJobs", service_broker::JOB_COLUMNS),
        table("JobSchedules", service_broker::SCHEDULE_COLUMNS),
        table("ScheduledJobSteps", service_broker::STEP_COLUMNS),
        table("SchedulingErrors", service_broker::ERROR_COLUMNS),
    ];
    fuzz_tables("service_broker_rows", tables, Some(0), |db, _| {
        let (w, now) = poll();
        Box::pin(service_broker::read_instance(db, "fuzz", chrono_tz::UTC, w, now))
    });
}

#[test]
fn fuzz_primentra_rows() {
    let tables = vec![
        table("Entities", primentra::ENTITY_COLUMNS),
        table("SchedulerConfigurations", primentra::CONFIG_COLUMNS),
        table("SchedulerLog", primentra::LOG_COLUMNS),
    ];
    fuzz_tables("primentra_rows", tables, Some(1), |db, _| {
        let (w, now) = poll();
        Box::pin(primentra::read_instance(db, "fuzz", chrono_tz::Australia::Lord_Howe, w, now))
    });
}

#[test]
fn fuzz_pg_cron_rows() {
    let tables = vec![
        plain("job", &["jobid", "schedule", "database", "username", "active", "jobname", "command"]),
        Table {
            name: "job_run_details",
            columns: vec![
                ("runid", false),
                ("jobid", false),
                ("status", false),
                ("return_message", false),
                ("start_time", true),
                ("end_time", true),
            ],
        },
        plain("pg_settings", &["name", "setting"]),
    ];
    fuzz_tables("pg_cron_rows", tables, Some(0), |db, _| {
        let (w, _) = poll();
        Box::pin(async move {
            let (input, notes) = pg_cron::read_file(db, "fuzz", w).await?;
            Ok::<_, server::sources::SourceError>(SourceRead::new(input, notes, w.end))
        })
    });
}

#[test]
fn fuzz_pgagent_rows() {
    let times = |name: &'static str, cols: &[(&'static str, bool)]| Table { name, columns: cols.to_vec() };
    let tables = vec![
        times(
            "pga_job",
            &[
                ("jobid", false),
                ("jobjclid", false),
                ("jobname", false),
                ("jobhostagent", false),
                ("jobenabled", false),
                ("jobcreated", true),
                ("jobagentid", false),
                ("jobnextrun", true),
            ],
        ),
        plain("pga_jobclass", &["jclid", "jclname"]),
        plain("pga_jobstep", &["jstid", "jstname", "jstkind"]),
        times(
            "pga_schedule",
            &[
                ("jscid", false),
                ("jscjobid", false),
                ("jscname", false),
                ("jscenabled", false),
                ("jscstart", true),
                ("jscend", true),
                ("jscminutes", false),
                ("jschours", false),
                ("jscweekdays", false),
                ("jscmonthdays", false),
                ("jscmonths", false),
            ],
        ),
        plain("pga_exception", &["jexid", "jexscid", "jexdate", "jextime"]),
        times(
            "pga_joblog",
            &[("jlgid", false), ("jlgjobid", false), ("jlgstatus", false), ("jlgstart", true), ("jlgduration", false)],
        ),
        times(
            "pga_jobsteplog",
            &[
                ("jslid", false),
                ("jsljlgid", false),
                ("jsljstid", false),
                ("jslstatus", false),
                ("jslresult", false),
                ("jslstart", true),
                ("jslduration", false),
                ("jsloutput", false),
            ],
        ),
        times("pga_jobagent", &[("jagpid", false), ("jaglogintime", true), ("jagstation", false)]),
        plain("pg_settings", &["name", "setting"]),
    ];
    fuzz_tables("pgagent_rows", tables, Some(0), |db, _| {
        let (w, now) = poll();
        Box::pin(async move {
            let (input, notes, _) = pgagent::read_file(db, "fuzz", w, None).await?;
            Ok::<_, server::sources::SourceError>(SourceRead::new(input, notes, now))
        })
    });
}

#[test]
fn fuzz_mysql_event_rows() {
    let tables = vec![
        plain(
            "EVENTS",
            &[
                "EVENT_SCHEMA",
                "EVENT_NAME",
                "DEFINER",
                "TIME_ZONE",
                "EVENT_TYPE",
                "EXECUTE_AT",
                "INTERVAL_VALUE",
                "INTERVAL_FIELD",
                "STARTS",
                "ENDS",
                "STATUS",
                "ON_COMPLETION",
                "LAST_EXECUTED",
            ],
        ),
        plain("GLOBAL_VARIABLES", &["VARIABLE_NAME", "VARIABLE_VALUE"]),
    ];
    fuzz_tables("mysql_event_rows", tables, Some(0), |db, store| {
        let (w, now) = poll();
        Box::pin(async move {
            let (input, notes) = mysql_events::read_file(db, store, "fuzz", None, w, now).await?;
            Ok::<_, server::sources::SourceError>(SourceRead::new(input, notes, now))
        })
    });
}

/// Failures the harnesses found, each with its exact input.
mod regressions {
    use crate::support::fixture::FixtureBackend;
    use crate::support::web::{self, send};
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use std::sync::Arc;

    async fn post(uri: &str, form: &str) -> web::Answer {
        let state = web::state(Arc::new(FixtureBackend { fail: false, kind: "mssql" }));
        let req = Request::post(uri)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(form.to_owned()))
            .expect("a request");
        send(state, req).await
    }

    /// `POST /api/fn/jobs` with no arguments was answered 500: server functions answered
    /// every error so, a bad request included. It is a 400 that says what was wrong.
    #[tokio::test]
    async fn a_server_function_without_its_arguments_is_a_bad_request() {
        let a = post("/api/fn/jobs", "").await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.text());
        assert!(a.text().contains("the request's arguments are not valid"), "{}", a.text());
    }

    /// A Primentra `SchedulerLog` row ending a run that started before the rows read, with a
    /// `DurationMs` no run can have: its start (the end less the duration) overflowed. It is a
    /// diagnostic on the job naming the column; the rest reads.
    #[tokio::test]
    async fn a_primentra_duration_no_run_can_have_is_a_diagnostic() {
        use super::{Sql, fill_tables, memory_db, poll, table};
        use server::sources::primentra::{self, CONFIG_COLUMNS, ENTITY_COLUMNS, LOG_COLUMNS};
        use server::sources::tables::TablesDb;
        let tables = vec![
            table("Entities", ENTITY_COLUMNS),
            table("SchedulerConfigurations", CONFIG_COLUMNS),
            table("SchedulerLog", LOG_COLUMNS),
        ];
        let row = |t: usize, cells: &[(&str, Sql)]| -> Vec<Sql> {
            tables[t]
                .columns
                .iter()
                .map(|(c, _)| cells.iter().find(|(n, _)| n == c).map_or(Sql::Null, |(_, v)| v.clone()))
                .collect()
        };
        let text = |s: &str| Sql::Text(s.to_owned());
        for ms in ["-9223372036854775808", "9223372036854775807", "100000000000000000"] {
            let rows = vec![
                vec![row(0, &[("Id", Sql::Int(1)), ("Name", text("Orders"))])],
                vec![row(1, &[("Id", Sql::Int(1)), ("EntityId", Sql::Int(1)), ("ProcessingMode", text("triggered"))])],
                vec![
                    row(
                        2,
                        &[
                            ("Id", Sql::Int(1)),
                            ("EntityId", Sql::Int(1)),
                            ("EventTime", text("2026-11-22 10:00:00")),
                            ("EventType", text("completed")),
                            ("DurationMs", text(ms)),
                        ],
                    ),
                    row(
                        2,
                        &[
                            ("Id", Sql::Int(2)),
                            ("EntityId", Sql::Int(1)),
                            ("EventTime", text("2026-11-22 11:00:00")),
                            ("EventType", text("fired")),
                        ],
                    ),
                ],
            ];
            let pool = memory_db(&tables).await;
            fill_tables(&pool, &tables, &rows).await;
            let (w, now) = poll();
            let read = primentra::read_instance(&mut TablesDb::Sqlite(pool), "fuzz", chrono_tz::UTC, w, now)
                .await
                .expect("bad values are no failed read");
            let job = &read.input.jobs[0];
            assert!(
                job.diagnostics
                    .iter()
                    .any(|d| d.field.as_deref() == Some("DurationMs") && d.value.as_deref() == Some(ms)),
                "{ms}: {:?}",
                job.diagnostics
            );
            // The run fired at 11:00 is there, still going.
            assert_eq!(job.runs.len(), 1, "{ms}: {:?}", job.runs);
        }
    }

    /// The same for an argument the function itself refuses.
    #[tokio::test]
    async fn a_server_function_refusing_an_argument_is_a_bad_request() {
        let a = post("/api/fn/jobs", "days=5").await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.text());
        assert!(a.text().contains("days must be 1, 7 or 30"), "{}", a.text());
        // A good request still answers.
        assert_eq!(post("/api/fn/jobs", "days=7").await.status, StatusCode::OK);
    }
    /// A Service Broker step with `RetryOnFail` and a `RetryOnFailTimes` of i64::MAX (the row
    /// proptest shrank to at 100,000 inputs): counting its attempts overflowed. The read goes
    /// on (the step belongs to no job here, as in the shrunk row).
    #[tokio::test]
    async fn a_service_broker_step_retried_i64_max_times_reads() {
        use super::{Sql, fill_tables, memory_db, poll, table};
        use server::sources::service_broker::{self, ERROR_COLUMNS, JOB_COLUMNS, SCHEDULE_COLUMNS, STEP_COLUMNS};
        use server::sources::tables::TablesDb;
        let tables = vec![
            table("ScheduledJobs", JOB_COLUMNS),
            table("JobSchedules", SCHEDULE_COLUMNS),
            table("ScheduledJobSteps", STEP_COLUMNS),
            table("SchedulingErrors", ERROR_COLUMNS),
        ];
        let step = vec![
            Sql::Int(1),
            Sql::Int(1),
            Sql::Null,
            Sql::Text("1".into()),
            Sql::Int(i64::MAX),
            Sql::Null,
            Sql::Text("2026-11-22 12:00:00".into()),
        ];
        assert_eq!(step.len(), tables[2].columns.len());
        let rows = vec![Vec::new(), Vec::new(), vec![step], Vec::new()];
        let pool = memory_db(&tables).await;
        fill_tables(&pool, &tables, &rows).await;
        let (w, now) = poll();
        let read = service_broker::read_instance(&mut TablesDb::Sqlite(pool), "fuzz", chrono_tz::UTC, w, now).await;
        assert!(read.is_ok(), "{:?}", read.err());
    }
}
