//! Risks ahead over the demo fleet: `GET /api/risks` (its horizon, its errors, its OpenAPI),
//! and the one judgment of each instance's risks read by every view: the API, the job page's
//! section, the landing page's and triage's next 7 days.
use crate::support::t;
use crate::support::web::{api, demo_fleet, get, visible};
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

const NOW: &str = "2026-11-22T12:00:00Z";

fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("an instant: {v}"))).unwrap().to_utc()
}

/// How many `data-testid="risk"` rows a page shows.
fn rows(html: &str) -> usize {
    html.matches(r#"data-testid="risk""#).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_view_reads_the_one_judgment_of_the_risks_ahead() {
    let now = t(NOW);
    let (_dir, state) = demo_fleet(now).await;

    // The horizon is 30 days from the fleet's now; every instant inside it, ascending.
    let v = api(&state, "/api/risks").await;
    assert_eq!((at(&v["from"]), at(&v["to"])), (now, now + Duration::days(30)), "{v}");
    let risks = v["risks"].as_array().expect("a list of risks");
    assert!(!risks.is_empty(), "the demo fleet has risks ahead: {v}");
    let kinds: Vec<&str> = sundial_engine::risks::KINDS.iter().map(|k| k.key).collect();
    for r in risks {
        assert!(kinds.contains(&r["kind"].as_str().unwrap()), "a kind the engine describes: {r}");
        let times: Vec<DateTime<Utc>> = r["at"].as_array().unwrap().iter().map(at).collect();
        assert!(times.iter().all(|t| *t >= now && *t < now + Duration::days(30)), "within the horizon: {r}");
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "ascending: {r}");
        assert!(r["link"].as_str().unwrap().ends_with("#risks"), "{r}");
        assert!(!r["explanation"].as_str().unwrap().is_empty(), "{r}");
    }
    // The instance never read is named, not silently left out.
    assert!(v["unjudged"].as_array().unwrap().iter().any(|i| i == "SQLAPAC01"), "{v}");

    // A week is a part of the month: each of its risks is one of the month's.
    let week = api(&state, "/api/risks?days=7").await;
    let week = week["risks"].as_array().unwrap();
    for r in week {
        let same = |m: &&Value| m["instance"] == r["instance"] && m["job_id"] == r["job_id"] && m["kind"] == r["kind"];
        assert!(risks.iter().any(|m| same(&m)), "a risk of the week is one of the month's: {r}");
    }

    // The landing page and triage list the week's risks: the landing page the first five and
    // how many, triage every one.
    let (status, landing) = get(&state, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(rows(&landing), week.len().min(5), "the landing page lists the first five");
    if !week.is_empty() {
        let summary = visible(&landing);
        assert!(summary.contains(&format!("{} risk", week.len())), "the landing page counts them: {summary}");
    }
    let (_, triage) = get(&state, "/triage").await;
    assert_eq!(rows(&triage), week.len(), "triage lists every risk of the week");

    // A job's page shows its own risks, each in the API's words.
    let r = &risks[0];
    let uri = r["link"].as_str().unwrap().trim_end_matches("#risks").to_owned();
    let (status, page) = get(&state, &uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}");
    let theirs = risks.iter().filter(|m| m["instance"] == r["instance"] && m["job_id"] == r["job_id"]).count();
    assert_eq!(rows(&page), theirs, "{uri} shows the job's risks");
    let text = visible(&page);
    let words = r["explanation"].as_str().unwrap();
    assert!(text.contains(&leptos_escape(words)), "{uri} says {words:?}");

    // One instance's are the fleet's of that instance.
    let name = r["instance"].as_str().unwrap();
    let one = api(&state, &format!("/api/risks?instance={}", name.replace(' ', "%20"))).await;
    let expected = risks.iter().filter(|m| m["instance"] == name).count();
    assert_eq!(one["risks"].as_array().unwrap().len(), expected, "{name}'s risks");
}

/// Text as a page writes it (quotes and ampersands escaped).
fn leptos_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_horizon_or_instance_is_named_and_the_api_is_documented() {
    let (_dir, state) = demo_fleet(t(NOW)).await;
    for q in ["days=0", "days=91", "days=week", "days=-3"] {
        let (status, body) = get(&state, &format!("/api/risks?{q}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{q}: {body}");
        assert!(body.contains("days must be a whole number from 1 to 90"), "{q}: {body}");
    }
    let (status, body) = get(&state, "/api/risks?instance=NOPE").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("instance not found"), "{body}");

    let doc = api(&state, "/api/openapi.json").await;
    let params: Vec<&str> = doc["paths"]["/api/risks"]["get"]["parameters"]
        .as_array()
        .expect("GET /api/risks is documented")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(params, ["days", "instance"]);
    for s in ["Risks", "Risk"] {
        assert!(doc["components"]["schemas"][s].is_object(), "{s} is documented");
    }
}
