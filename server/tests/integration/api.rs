//! The JSON API over the demo served as a fleet (its file written for a fixed "now", read by
//! the same poller a configured instance has), request by request: the OpenAPI document, any
//! window and any moment, the log's pages, and errors that name what was wrong.
use crate::support::t;
use crate::support::web::{self, get};
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use server::demo;
use server::fleet::FleetBackend;
use server::http::AppState;
use std::collections::HashSet;

const NOW: &str = "2026-11-22T12:00:00Z";

async fn demo_state(dir: &tempfile::TempDir) -> AppState {
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo is written");
    let backend = FleetBackend::start(&demo::fleet(&path).expect("the demo's configuration")).await.unwrap();
    // The first read settles before any request (a request may also come first: it waits).
    sundial_model::ssr::Backend::snapshot(backend.as_ref(), "SQLPROD01").await.expect("the demo is read");
    web::state(backend)
}

async fn json(state: &AppState, uri: &str) -> (StatusCode, Value) {
    let (status, body) = get(state, uri).await;
    let v = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {body}"));
    (status, v)
}

async fn ok(state: &AppState, uri: &str) -> Value {
    let (status, v) = json(state, uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {v}");
    v
}

fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("an instant: {v}"))).unwrap().to_utc()
}

fn path(job: &str) -> String {
    job.replace(' ', "%20")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_answers_for_any_window_and_any_moment() {
    let dir = tempfile::tempdir().unwrap();
    let state = demo_state(&dir).await;

    // The OpenAPI document is generated from the handlers: every path and its types.
    let doc = ok(&state, "/api/openapi.json").await;
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")), "{}", doc["openapi"]);
    for p in [
        "/api/instances",
        "/api/instances/{instance}/jobs",
        "/api/instances/{instance}/jobs/{job}/timeline",
        "/api/log",
    ] {
        assert!(doc["paths"][p]["get"].is_object(), "{p} is documented");
    }
    for s in ["Timeline", "Occurrence", "Run", "Job", "Counts", "Event", "ErrorBody"] {
        assert!(doc["components"]["schemas"][s].is_object(), "{s} is documented");
    }
    let params: Vec<&str> = doc["paths"]["/api/instances/{instance}/jobs/{job}/timeline"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(params, ["instance", "job", "from", "to", "as_of"]);

    // Instances: the demo, read, in its zone; a fixed snapshot has no poll interval.
    let v = ok(&state, "/api/instances").await;
    let i = &v["instances"][0];
    assert_eq!(
        (i["name"].as_str(), i["kind"].as_str(), i["state"].as_str()),
        (Some("SQLPROD01"), Some("sqlite_demo"), Some("Ok"))
    );
    assert_eq!(i["time_zone"], "America/New_York");
    assert!(i["poll_secs"].is_null() && i["last_good"].is_string(), "{i}");

    // Jobs over the default window (the 7 days before now): counts by outcome, next run.
    let v = ok(&state, "/api/instances/SQLPROD01/jobs").await;
    assert_eq!(at(&v["to"]), t(NOW));
    assert_eq!(at(&v["from"]), t(NOW) - Duration::days(7));
    assert_eq!(at(&v["as_of"]), t(NOW));
    let jobs = v["jobs"].as_array().unwrap();
    assert!(jobs.len() > 30, "{}", jobs.len());
    let job = |name: &str| jobs.iter().find(|j| j["name"] == name).unwrap_or_else(|| panic!("{name}")).clone();
    let hourly = job(demo::LONG_RUN_JOB);
    assert!(hourly["counts"]["skipped"].as_u64().unwrap() > 0, "the long runs skip slots: {hourly}");
    assert!(at(&hourly["next_run"]) > t(NOW), "{hourly}");
    assert!(hourly["schedules"][0]["description"].as_str().is_some_and(|d| d.contains("hour")), "{hourly}");
    let manual = job(demo::MANUAL_JOB);
    assert!(manual["schedules"].as_array().unwrap().is_empty() && manual["next_run"].is_null(), "{manual}");

    // Any window: the zombie days (9 to 7 days before now). Every occurrence of an hourly job
    // there is missed, and the cause says the scheduler started nothing.
    let id = hourly["id"].as_str().unwrap();
    let (from, to) = (t(NOW) - Duration::days(9), t(NOW) - Duration::days(7));
    let q = format!("from={}&to={}", from.to_rfc3339(), to.to_rfc3339()).replace('+', "%2B");
    let tl = ok(&state, &format!("/api/instances/SQLPROD01/jobs/{}/timeline?{q}", path(id))).await;
    let occ = tl["occurrences"].as_array().unwrap();
    assert_eq!(occ.len(), 48, "hourly for two days");
    assert!(occ.iter().all(|o| o["outcome"] == "missed" && o["cause"] == "scheduler_zombie"), "{occ:?}");
    assert!(occ.iter().all(|o| {
        let t = at(&o["expected_at"]);
        t >= from && t < to
    }));
    let started: Vec<&Value> = tl["runs"].as_array().unwrap().iter().filter(|r| at(&r["started_at"]) >= from).collect();
    assert!(started.is_empty(), "the scheduler started nothing: {} runs", started.len());
    assert!(tl["runs"].as_array().unwrap().iter().all(|r| at(&r["started_at"]) < to), "no run after the window");

    // Any moment: as of 06:00 two days ago, the later runs had not happened and the later
    // occurrences were upcoming.
    let as_of = t(NOW) - Duration::days(2) - Duration::hours(6);
    let q = format!(
        "from={}&to={}&as_of={}",
        (as_of - Duration::hours(6)).to_rfc3339(),
        (as_of + Duration::hours(6)).to_rfc3339(),
        as_of.to_rfc3339()
    )
    .replace('+', "%2B");
    let tl = ok(&state, &format!("/api/instances/SQLPROD01/jobs/{}/timeline?{q}", path(id))).await;
    assert_eq!(at(&tl["as_of"]), as_of);
    for o in tl["occurrences"].as_array().unwrap() {
        let due = at(&o["expected_at"]);
        if due != as_of {
            assert_eq!(o["outcome"] == "upcoming", due > as_of, "{o}");
        }
    }
    for r in tl["runs"].as_array().unwrap() {
        assert!(at(&r["started_at"]) <= as_of, "{r}");
        assert!(r["ended_at"].is_null() == (r["outcome"] == "in_progress"), "{r}");
        if r["outcome"] == "in_progress" {
            assert_eq!(r["message"], "", "a run going on then had no end message yet: {r}");
        }
    }

    // The log: pages of 1000 reach every line once (no cap hides one), and smaller pages are
    // the same lines in the same order.
    let mut all: Vec<Value> = Vec::new();
    let mut cursor = String::new();
    loop {
        let v = ok(&state, &format!("/api/log?instance=SQLPROD01&limit=1000{cursor}")).await;
        all.extend(v["events"].as_array().unwrap().iter().cloned());
        match v["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => break,
        }
    }
    assert!(all.len() > 1000, "more lines than one page: {}", all.len());
    let last = ok(&state, &format!("/api/log?instance=SQLPROD01&limit=1000&cursor={}", all.len() - 1)).await;
    assert!(last.get("next_cursor").is_none(), "no next_cursor on the last page: {last}");
    let distinct: HashSet<String> = all.iter().map(|e| e.to_string()).collect();
    assert_eq!(distinct.len(), all.len(), "no line twice");
    assert!(all.windows(2).all(|w| at(&w[0]["at"]) >= at(&w[1]["at"])), "newest first");
    let mut small: Vec<Value> = Vec::new();
    let mut cursor = String::new();
    for _ in 0..3 {
        let v = ok(&state, &format!("/api/log?instance=SQLPROD01&limit=50{cursor}")).await;
        small.extend(v["events"].as_array().unwrap().iter().cloned());
        cursor = format!("&cursor={}", v["next_cursor"].as_str().expect("more pages"));
    }
    assert_eq!(small, all[..150], "pages of 50 are the same lines");
    // The pages link to the JSON they are built from: the same jobs over the same window.
    for (page, key) in [("/jobs?days=7", "jobs"), ("/log?days=7", "events")] {
        let (status, html) = get(&state, page).await;
        assert_eq!(status, StatusCode::OK);
        let tag = html.split("data-testid=\"json-link\"").next().unwrap_or_default();
        let href = tag.rsplit("href=\"").next().and_then(|h| h.split('"').next()).unwrap_or_default();
        let href = href.replace("&amp;", "&");
        assert!(href.starts_with("/api/"), "{page} links its JSON: {href:?}");
        let v = ok(&state, &href).await;
        assert!(!v[key].as_array().unwrap().is_empty(), "{href}");
        if key == "jobs" {
            assert_eq!(at(&v["from"]), t(NOW) - Duration::days(7), "{href}");
            assert_eq!(v["jobs"].as_array().unwrap().len(), jobs.len(), "{href}");
        }
    }
    let failed = ok(&state, "/api/log?kind=failed&limit=1000").await;
    let failed = failed["events"].as_array().unwrap();
    assert!(!failed.is_empty() && failed.iter().all(|e| e["kind"] == "failed"), "{failed:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn api_errors_name_the_parameter_and_what_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let state = demo_state(&dir).await;
    let cases = [
        ("/api/instances/SQLPROD01/jobs?from=yesterday", StatusCode::BAD_REQUEST, &["from", "\"yesterday\""][..]),
        (
            "/api/instances/SQLPROD01/jobs?as_of=2027-01-01T00:00:00Z",
            StatusCode::BAD_REQUEST,
            &["as_of=2027-01-01T00:00:00Z", "after the last read"],
        ),
        (
            "/api/instances/SQLPROD01/jobs?from=2026-11-20T00:00:00Z&to=2026-11-19T00:00:00Z",
            StatusCode::BAD_REQUEST,
            &["must be before"],
        ),
        (
            "/api/instances/SQLPROD01/jobs?from=2026-10-01T00:00:00Z",
            StatusCode::BAD_REQUEST,
            &["from=2026-10-01T00:00:00Z", "oldest run"],
        ),
        ("/api/instances/SQLPROD01/jobs?from=2026-01-01T00:00:00Z", StatusCode::BAD_REQUEST, &["longer than 62 days"]),
        ("/api/log?limit=0", StatusCode::BAD_REQUEST, &["limit", "\"0\""]),
        ("/api/log?kind=explosion", StatusCode::BAD_REQUEST, &["kind", "missed", "\"explosion\""]),
        ("/api/log?cursor=abc", StatusCode::BAD_REQUEST, &["cursor", "\"abc\""]),
        ("/api/instances/NOPE/jobs", StatusCode::NOT_FOUND, &["instance \"NOPE\" not found"]),
        ("/api/instances/SQLPROD01/jobs/no-such-job/timeline", StatusCode::NOT_FOUND, &["job \"no-such-job\""]),
    ];
    for (uri, want, words) in cases {
        let (status, v) = json(&state, uri).await;
        assert_eq!(status, want, "{uri}: {v}");
        let e = v["error"].as_str().unwrap_or_else(|| panic!("{uri}: {v}"));
        for w in words {
            assert!(e.contains(w), "{uri}: {e:?} names {w}");
        }
        assert!(!e.contains("sqlite") && !e.contains("/tmp"), "{uri}: no internals: {e}");
    }
}

/// Clients asking for the same read, window and moment share one analysis: a dashboard polling
/// `/jobs` (and the timeline and log built from the same report) costs one per read, and every
/// copy of the answer is the same. Another window is another analysis; a job of the same
/// report is not.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_window_is_analysed_once_for_every_client() {
    let dir = tempfile::tempdir().unwrap();
    let state = demo_state(&dir).await;
    assert!(state.api_memo.is_empty());
    let jobs = "/api/instances/SQLPROD01/jobs";
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let state = state.clone();
            tokio::spawn(async move { json(&state, jobs).await })
        })
        .collect();
    let mut answers = Vec::new();
    for c in clients {
        answers.push(c.await.expect("a client"));
    }
    assert!(answers.iter().all(|(s, v)| *s == StatusCode::OK && *v == answers[0].1), "eight equal answers");
    assert_eq!(state.api_memo.len(), 1, "eight clients, one analysis");
    let first = answers[0].1["jobs"][0]["id"].as_str().expect("a job id").to_owned();
    ok(&state, &format!("{jobs}/{}/timeline", path(&first))).await;
    ok(&state, "/api/log?instance=SQLPROD01").await;
    assert_eq!(state.api_memo.len(), 1, "the timeline and the log use the same report");
    let day = ok(&state, &format!("{jobs}?from=2026-11-21T12:00:00Z")).await;
    assert_eq!(state.api_memo.len(), 2, "another window, another analysis");
    assert_eq!(at(&day["from"]), t("2026-11-21T12:00:00Z"));
    assert_ne!(day, answers[0].1, "a day's counts are not a week's");
}
