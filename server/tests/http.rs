//! The HTTP surface, request by request (`router(state).oneshot(request)`), over a hand-made
//! instance report (see `support`), so pages are tested independently of the engine.
mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use server::http::{AppState, router};
use std::sync::Arc;
use support::{FixtureBackend, INSTANCE, SECRET};
use tower::ServiceExt;

fn state(fail: bool) -> AppState {
    AppState {
        leptos_options: LeptosOptions::builder().output_name("sundial").site_root("target/site").build(),
        backend: Arc::new(FixtureBackend { fail, kind: "mssql" }),
    }
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

async fn send(state: AppState, req: Request<Body>) -> Answer {
    let res = router(state).oneshot(req).await.expect("the router answers");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.expect("a body").to_bytes().to_vec();
    Answer { status, headers, body }
}

async fn get(uri: &str) -> Answer {
    send(state(false), Request::get(uri).body(Body::empty()).unwrap()).await
}

/// Page text with tags removed, for assertions on what a reader sees.
fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn health_is_ok() {
    let a = get("/api/health").await;
    assert_eq!(a.status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["status"], "ok");
}

#[tokio::test]
async fn jobs_page_shows_the_instance_and_its_jobs() {
    let a = get("/").await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    let html = a.text();
    assert!(html.contains(INSTANCE), "the instance name is in the header");
    assert!(html.contains("Europe/London"), "the instance zone is in the header");
    assert!(html.contains("DatabaseBackup - USER_DATABASES - FULL"));
    assert!(html.contains(&format!("/jobs/{}?days=7", support::FULL_BACKUP_ID)), "job names link to their timeline");
    assert!(html.contains("tag-disabled"), "the disabled job is marked");
    assert!(html.contains("ignored: the schedule runs once a day"), "diagnostics are shown");
    assert!(html.contains("/pkg/sundial.css"), "the stylesheet is linked");
    assert!(html.contains("/pkg/sundial.js"), "the hydration script is linked");
    // `/jobs` is the same page.
    let b = get("/jobs").await;
    assert_eq!(b.status, StatusCode::OK);
    assert!(b.text().contains("DatabaseBackup - USER_DATABASES - LOG"));
}

#[tokio::test]
async fn jobs_page_warns_of_a_zombie_agent_in_the_window() {
    let html = get("/?days=30").await.text();
    assert!(html.contains("zombie-banner"));
    let text = visible(&html);
    assert!(text.contains("SQL Agent started no job from 2026-11-13 12:00:00 to 2026-11-15 12:00:00 while"), "{text}");
    assert!(text.contains("runs were due"));
    // Not in the last 7 days.
    assert!(!get("/?days=7").await.text().contains("zombie-banner"));
}

#[tokio::test]
async fn jobs_page_sorts_by_query() {
    let order = |html: &str| {
        let names = ["CommandLog Cleanup", "DatabaseBackup - USER_DATABASES - FULL", "syspolicy_purge_history"];
        let mut at: Vec<(usize, &str)> = names.iter().map(|n| (html.find(&format!(">{n}<")).expect(n), *n)).collect();
        at.sort();
        at.into_iter().map(|(_, n)| n).collect::<Vec<_>>()
    };
    let asc = get("/?sort=name&dir=asc").await.text();
    assert_eq!(order(&asc), ["CommandLog Cleanup", "DatabaseBackup - USER_DATABASES - FULL", "syspolicy_purge_history"]);
    let desc = get("/?sort=name&dir=desc").await.text();
    assert_eq!(order(&desc), ["syspolicy_purge_history", "DatabaseBackup - USER_DATABASES - FULL", "CommandLog Cleanup"]);
    assert!(desc.contains(r#"aria-sort="descending""#));
}

#[tokio::test]
async fn timeline_marks_missed_runs_with_their_cause() {
    let a = get(&format!("/jobs/{}?days=7", support::FULL_BACKUP_ID)).await;
    assert_eq!(a.status, StatusCode::OK);
    let html = a.text();
    assert!(html.contains(r#"data-testid="timeline-chart""#));
    assert!(html.contains(r#"data-days="7""#));
    assert!(html.contains(r#"data-testid="missed-marker""#));
    assert!(html.contains(r#"data-cause="no-run""#));
    assert!(html.contains("Missed: no run started"));
    assert!(html.contains(r#"tabindex="0""#), "missed markers take focus");
    assert!(html.contains("BACKUP DATABASE is terminating abnormally"), "the failed run's message is listed");
    assert!(html.contains(r#"data-outcome="failed""#));

    let html = get(&format!("/jobs/{}?days=30", support::FULL_BACKUP_ID)).await.text();
    assert!(html.contains(r#"data-cause="zombie""#));
    assert!(html.contains("Missed: SQL Agent started no job between 2026-11-13 12:00:00 and 2026-11-15 12:00:00"));
    assert!(html.contains(r#"data-testid="zombie-band""#));
}

#[tokio::test]
async fn timeline_shows_unknown_history_restarts_late_and_skipped() {
    let html = get(&format!("/jobs/{}?days=30", support::LOG_BACKUP_ID)).await.text();
    assert!(html.contains(r#"data-testid="unknown-band""#), "history before the horizon is unknown");
    assert!(html.contains(r#"data-testid="agent-restart""#));
    assert!(html.contains(r#"data-cause="down""#));
    assert!(html.contains("Missed: Agent was down, restarted at"));
    assert!(html.contains(r#"data-testid="late-marker""#));
    // 2880 expected runs in 30 days: routine ones are drawn as stretches, problems one by one.
    assert!(html.contains(r#"data-testid="run-span""#));
    assert!(html.contains("mkspan-unknown"));
    assert!(html.len() < 400_000, "a dense job's page stays small: {} bytes", html.len());
    let html = get(&format!("/jobs/{}?days=7", support::ORDERS_ID)).await.text();
    assert!(html.contains(r#"data-testid="skipped-marker""#));
    assert!(html.contains(r#"data-outcome="retry""#));
    assert!(html.contains(r#"data-outcome="canceled""#));
}

#[tokio::test]
async fn unknown_job_is_not_found() {
    let a = get("/jobs/no-such-job?days=7").await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert!(visible(&a.text()).contains("There is no job with id no-such-job"));
    let b = get("/no/such/page").await;
    assert_eq!(b.status, StatusCode::NOT_FOUND);
    assert!(b.text().contains(r#"data-testid="not-found""#));
}

#[tokio::test]
async fn other_windows_are_a_bad_request() {
    for uri in ["/?days=5", "/jobs?days=abc", &format!("/jobs/{}?days=5", support::FULL_BACKUP_ID)] {
        let a = get(uri).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(a.text().contains("days must be 1, 7 or 30"), "{uri}");
    }
    let a = get("/api/jobs?days=5").await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["error"], "bad_request");
    assert_eq!(v["message"], "bad request: days must be 1, 7 or 30");
}

#[tokio::test]
async fn an_unreadable_source_is_a_503_naming_the_instance_only() {
    for uri in ["/", &format!("/jobs/{}?days=7", support::FULL_BACKUP_ID), "/api/jobs"] {
        let a = send(state(true), Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE, "{uri}");
        let text = a.text();
        assert!(text.contains(INSTANCE), "{uri}: names the instance");
        for secret in [SECRET, "/var/lib", "hunter2", "SELECT", "sqlite"] {
            assert!(!text.contains(secret), "{uri}: leaks {secret}");
        }
    }
}

#[tokio::test]
async fn api_jobs_is_the_list_as_json() {
    let a = get("/api/jobs?days=30").await;
    assert_eq!(a.status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["instance"]["name"], INSTANCE);
    assert_eq!(v["instance"]["days"], 30);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 5);
    let full = jobs.iter().find(|j| j["id"] == support::FULL_BACKUP_ID).unwrap();
    assert_eq!(full["missed"], 3, "one no-run and two zombie days");
    assert_eq!(full["missed_zombie"], 2);
    assert_eq!(v["zombies"].as_array().unwrap().len(), 1);
    // Default window.
    let v: serde_json::Value = serde_json::from_slice(&get("/api/jobs").await.body).unwrap();
    assert_eq!(v["instance"]["days"], 7);
}

#[tokio::test]
async fn server_functions_answer_with_the_backend_in_context() {
    let req = Request::post("/api/fn/job_timeline")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("job_id={}&days=30", support::FULL_BACKUP_ID)))
        .unwrap();
    let a = send(state(false), req).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["job"]["id"], support::FULL_BACKUP_ID);
    assert_eq!(v["instance"]["days"], 30);

    let req = Request::post("/api/fn/jobs")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("days=5"))
        .unwrap();
    let a = send(state(false), req).await;
    assert!(a.status.is_client_error() || a.status.is_server_error(), "{}", a.status);
    assert!(a.text().contains("days must be 1, 7 or 30"), "{}", a.text());
}

#[tokio::test]
async fn pages_are_gzipped_when_asked() {
    let req = Request::get("/").header(header::ACCEPT_ENCODING, "gzip").body(Body::empty()).unwrap();
    let a = send(state(false), req).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.headers[header::CONTENT_ENCODING], "gzip");
    let mut html = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&a.body[..]), &mut html).expect("valid gzip");
    assert!(html.contains(INSTANCE));
    // And not when not asked.
    assert!(get("/").await.headers.get(header::CONTENT_ENCODING).is_none());
}

#[tokio::test]
async fn the_log_page_lists_runs_and_findings_colour_coded_and_filters_problems() {
    let a = get("/log?days=1").await;
    assert_eq!(a.status, StatusCode::OK);
    let html = a.text();
    assert!(html.contains(r#"data-testid="log-table""#));
    for kind in ["started", "succeeded"] {
        assert!(html.contains(&format!(r#"data-kind="{kind}""#)), "a {kind} line");
    }
    // 30 days of a 15-minute job are thousands of lines: the page lists the newest 500 and
    // says so; "problems only" keeps what a DBA looks for.
    let html = get("/log?days=30").await.text();
    assert!(visible(&html).contains("older lines not shown"), "the cap is said");
    let html = get("/log?days=30&problems=1").await.text();
    for kind in ["failed", "missed", "zombie", "agent-start"] {
        assert!(html.contains(&format!(r#"data-kind="{kind}""#)), "a {kind} line");
        assert!(html.contains(&format!("log-badge log-{kind}")), "{kind} has its colour class");
    }
    assert!(html.contains("BACKUP DATABASE is terminating abnormally"), "a failed run's message");
    assert!(visible(&html).contains("the scheduler started no job until 2026-11-15 12:00:00 UTC"), "the zombie span");
    assert!(!html.contains(r#"data-kind="succeeded""#) && !html.contains(r#"data-kind="started""#), "problems only");

    let a = get("/log?days=30&instance=NOPE").await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    let a = get("/log?days=5").await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn zombie_wording_names_the_instances_own_scheduler() {
    let pg = AppState {
        leptos_options: LeptosOptions::builder().output_name("sundial").site_root("target/site").build(),
        backend: Arc::new(FixtureBackend { fail: false, kind: "pg_cron" }),
    };
    let html = send(pg.clone(), Request::get("/?days=30").body(Body::empty()).unwrap()).await.text();
    let text = visible(&html);
    assert!(text.contains("Zombie scheduler.") && text.contains("pg_cron started no job from 2026-11-13 12:00:00"), "{text}");
    assert!(!text.contains("SQL Agent"), "no SQL Agent wording on a pg_cron instance");
    let html = send(pg, Request::get(format!("/jobs/{}?days=30", support::FULL_BACKUP_ID)).body(Body::empty()).unwrap()).await.text();
    assert!(html.contains("Missed: pg_cron started no job between 2026-11-13 12:00:00 and 2026-11-15 12:00:00"));
    assert!(!html.contains("SQL Agent"));
    // The Agent keeps its own words.
    let text = visible(&get("/?days=30").await.text());
    assert!(text.contains("Zombie Agent.") && text.contains("SQL Agent started no job from"), "{text}");
    assert_eq!(app::api::scheduler_mid(app::api::scheduler_label("mysql_events")), "the event scheduler");
}
