//! The job page's durations, flags, steps and deep link (`?at=`), request by request over the
//! hand-made report (`support::fixture`): `ETL - Hourly Orders Sync` runs 200 s an hour, with
//! one run of 9,000 s 30 hours before now; `Log backup` runs every 15 minutes.
use crate::support::fixture::{self, FixtureBackend, INSTANCE, LOG_BACKUP_ID, ORDERS_ID};
use crate::support::web::visible;
use crate::support::web::{self, Answer, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use chrono::{Duration, SecondsFormat};
use std::sync::Arc;

async fn get(uri: &str) -> Answer {
    let state = web::state(Arc::new(FixtureBackend { fail: false, kind: "mssql" }));
    send(state, Request::get(uri).header(header::ACCEPT, "text/html").body(Body::empty()).unwrap()).await
}

async fn timeline(form: &str) -> serde_json::Value {
    let state = web::state(Arc::new(FixtureBackend { fail: false, kind: "mssql" }));
    let req = Request::post("/api/fn/job_timeline")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form.to_owned()))
        .unwrap();
    let a = send(state, req).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    serde_json::from_slice(&a.body).expect("JSON")
}

fn rfc(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn location(a: &Answer) -> String {
    a.headers.get(header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_timeline_carries_the_durations_and_flags_the_long_run() {
    let v = timeline(&format!("job_id={ORDERS_ID}&days=7")).await;
    let d = &v["durations"];
    assert_eq!(d["window"]["p50"], 200, "{d}");
    assert_eq!(d["window"]["p95"], 200);
    assert_eq!(d["window"]["max"], 9000);
    assert_eq!(d["weekdays"].as_array().map(Vec::len), Some(7), "Monday to Sunday");
    assert_eq!(d["flags"]["long_factor"], 1.5);
    assert_eq!(d["flags"]["short_factor"], 0.25);
    assert_eq!((d["long"].as_u64(), d["short"].as_u64()), (Some(1), Some(0)));
    let flagged: Vec<&serde_json::Value> =
        v["lines"].as_array().unwrap().iter().filter(|l| !l["run"]["flag"].is_null()).collect();
    assert_eq!(flagged.len(), 1, "one flagged line");
    assert_eq!(flagged[0]["run"]["duration_secs"], 9000);
    assert_eq!(flagged[0]["run"]["flag"]["Long"]["p95"], 200);
    // The per-weekday counts and the month-end runs' add up to the window's.
    let per_day: u64 = d["weekdays"].as_array().unwrap().iter().filter_map(|s| s["count"].as_u64()).sum();
    let month_end = d["month_end"]["count"].as_u64().unwrap_or(0);
    assert_eq!(Some(per_day + month_end), d["window"]["count"].as_u64());
    // What the latest run is judged against, named.
    let words = d["latest"]["words"].as_str().unwrap_or_default();
    assert!(words.ends_with(" runs") || words.contains("runs of the last 30 days (only"), "{d}");
}

#[tokio::test]
async fn the_page_shows_the_durations_table_and_the_flag_with_a_word() {
    let a = get(&format!("/jobs/{ORDERS_ID}?days=7")).await;
    assert_eq!(a.status, StatusCode::OK);
    let html = a.text();
    assert!(html.contains(r#"data-testid="durations-table""#), "the durations table");
    let text = visible(&html);
    assert!(text.contains("Any day"), "{text}");
    assert!(text.contains("longer than p95 × 1.5") && text.contains("p50 × 0.25"), "the factors are named");
    assert!(text.contains("In this window: 1 long, 0 short."), "{text}");
    assert!(text.contains("Month-end") && text.contains("The latest run is judged against "), "{text}");
    assert!(text.contains("against the runs of its weekday"), "the rule names the seasons: {text}");
    assert!(html.contains(r#"data-flag="long""#) && text.contains("▲ Long"), "an icon and a word");
    assert!(!html.contains(r#"id="moment""#), "no moment without ?at=");
}

#[tokio::test]
async fn a_deep_link_redirects_to_the_smallest_window_holding_it_and_its_row() {
    let at = fixture::now() - Duration::hours(30) + Duration::minutes(3);
    let a = get(&format!("/jobs/{ORDERS_ID}?at={}&instance={INSTANCE}", rfc(at))).await;
    assert_eq!(a.status, StatusCode::FOUND, "{}", visible(&a.text()));
    let to = location(&a);
    assert_eq!(to, format!("/jobs/{ORDERS_ID}?days=7&at={}&instance={INSTANCE}#moment", rfc(at)));
    // What the browser then opens (without the fragment, which stays in the browser).
    let page = get(to.trim_end_matches("#moment")).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = page.text();
    assert_eq!(html.matches(r#"id="moment""#).count(), 1, "one row is the moment's");
    assert!(html.contains(r#"data-testid="at-marker""#), "the chart marks it");
    let text = visible(&html);
    assert!(text.contains("Shown at 2026-11-21"), "{text}");
    // The highlighted row is the long run's (it started at 06:05 UTC and ran 2.5 h).
    let row = &html[html.find(r#"id="moment""#).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("Nearest to the moment") && row.contains(r#"data-flag="long""#), "{row}");
}

#[tokio::test]
async fn the_moments_row_is_listed_even_among_old_routine_rows() {
    let at = fixture::now() - Duration::days(5) - Duration::minutes(7);
    let a = get(&format!("/jobs/{LOG_BACKUP_ID}?days=7&at={}", rfc(at))).await;
    assert_eq!(a.status, StatusCode::OK);
    let html = a.text();
    let row = &html[html.find(r#"id="moment""#).expect("the moment's row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    // Every 15 minutes: 7 minutes before a quarter is nearest to that quarter.
    let due = rfc(at + Duration::minutes(7)).replace('Z', "");
    assert!(row.contains(&due[..16]), "the row due at {due}: {row}");
}

#[tokio::test]
async fn a_malformed_moment_is_named_and_the_page_still_shows() {
    let a = get(&format!("/jobs/{ORDERS_ID}?at=yesterday")).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let text = visible(&a.text());
    assert!(text.contains("The link's moment cannot be read: at must be"), "{text}");
    assert!(text.contains("\"yesterday\""), "{text}");
    assert!(text.contains("ETL - Hourly Orders Sync"), "the job is shown all the same");
    assert!(text.contains("Showing the last 7 days instead."), "{text}");
}

#[tokio::test]
async fn a_moment_outside_thirty_days_says_so() {
    let at = fixture::now() - Duration::days(45);
    let a = get(&format!("/jobs/{ORDERS_ID}?at={}", rfc(at))).await;
    assert_eq!(a.status, StatusCode::FOUND);
    let to = location(&a);
    assert!(to.contains("days=30") && !to.contains('#'), "the largest window, no row: {to}");
    let text = visible(&get(&to).await.text());
    assert!(text.contains("is outside the last 30 days"), "{text}");
    // After now: the nearest window, saying nothing happened there yet.
    let ahead = fixture::now() + Duration::hours(3);
    let a = get(&format!("/jobs/{ORDERS_ID}?at={}", rfc(ahead))).await;
    assert_eq!(a.status, StatusCode::FOUND);
    let to = location(&a);
    assert!(to.contains("days=1") && !to.contains('#'), "{to}");
    let text = visible(&get(&to).await.text());
    assert!(text.contains("is after the instance's now, the end of every window"), "{text}");
    // A window named in the link is kept; a moment outside it is said to be.
    let at = fixture::now() - Duration::hours(30);
    let a = get(&format!("/jobs/{ORDERS_ID}?days=1&at={}", rfc(at))).await;
    assert_eq!(a.status, StatusCode::OK);
    let html = a.text();
    assert!(visible(&html).contains("is outside the window shown, the last day."));
    assert!(html.contains(&format!("/jobs/{ORDERS_ID}?at={}", rfc(at))), "a link to the window holding it");
    assert!(!html.contains(r#"data-testid="at-marker""#));
}
