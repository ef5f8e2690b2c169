//! Maintenance windows over a fleet (the worker of `metrics.rs`: `ETL - Nightly Load` missed
//! today's 13:00 run, `Report "daily"` crashed; `GONE` cannot be read), as of 13:40 UTC: a
//! window declared in the fleet file or added from the triage page makes the missed run
//! "maintenance" on every view, marks the problems it holds, and keeps their alerts until it
//! ends; restarts neither repeat nor lose them; the store keeps who added or ended a window,
//! when and why.
use crate::alerts::{QUICK, at, next, receiver, start, subjects};
use crate::metrics::{NIGHTLY, NOW, instances, write_worker};
use crate::support::t;
use crate::support::web::{self, api, get, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use server::alerts::Alerter;
use std::path::Path;

/// The fleet file: the worker, the gone instance, Sundial's store, and `extra`.
fn fleet(dir: &Path, extra: &str) -> server::config::FleetConfig {
    let text = format!(
        "store = {:?}\npublic_url = \"https://sundial.example/\"\n{}\n{extra}",
        dir.join("store.sqlite").to_string_lossy(),
        instances(&dir.join("worker.sqlite"), dir)
    );
    server::config::parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Patching the worker from 12:30 to 14:00 UTC today.
const PATCHING: &str = "[[maintenance]]\nname = \"patching\"\nreason = \"OS updates\"\n\
    start = \"2026-03-07 12:30\"\nend = \"2026-03-07 14:00\"\ninstances = [\"worker\"]\n";

async fn state_of(config: &server::config::FleetConfig) -> server::http::AppState {
    web::state(start(config).await)
}

fn by_kind<'a>(triage: &'a Value, kind: &str) -> Vec<&'a Value> {
    triage["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == kind).collect()
}

async fn post_form(state: &server::http::AppState, path: &str, form: &str) -> (StatusCode, String) {
    let req = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form.to_owned()))
        .unwrap();
    let a = send(state.clone(), req).await;
    let to = a.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    (a.status, to)
}

#[tokio::test]
async fn a_planned_window_makes_the_missed_run_maintenance_on_every_view() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;

    // Without the window: the nightly run is missed (the control).
    let bare = state_of(&fleet(dir.path(), "")).await;
    let triage = api(&bare, "/api/triage").await;
    assert_eq!(by_kind(&triage, "missed").len(), 1, "{triage}");

    // And a window that ran its course this morning: listed as past, holding nothing.
    let earlier =
        "[[maintenance]]\nname = \"backups moved\"\nstart = \"2026-03-07 10:00\"\nend = \"2026-03-07 11:00\"\n";
    let state = state_of(&fleet(dir.path(), &format!("{PATCHING}{earlier}"))).await;
    let triage = api(&state, "/api/triage").await;
    // Triage: nothing missed; the crashed report, first seen inside the window, is held.
    assert!(by_kind(&triage, "missed").is_empty(), "{triage}");
    let failed = by_kind(&triage, "failed");
    assert_eq!(failed.len(), 1, "{triage}");
    assert_eq!(failed[0]["maintenance"]["window"], "patching", "{triage}");
    assert_eq!(failed[0]["maintenance"]["until"], "2026-03-07T14:00:00Z");
    // GONE is not in the window: its problem is not held.
    let gone = by_kind(&triage, "unreachable");
    assert!(gone[0]["maintenance"].is_null(), "{triage}");
    // The window is listed, open.
    let windows = triage["maintenance"].as_array().expect("windows");
    assert_eq!(windows.len(), 2, "{triage}");
    assert_eq!((windows[1]["name"].as_str(), windows[1]["state"].as_str()), (Some("backups moved"), Some("past")));
    assert!(windows[1]["ended_by"].is_null(), "nobody ended it");
    assert_eq!(
        (windows[0]["name"].as_str(), windows[0]["state"].as_str(), windows[0]["scope"].as_str()),
        (Some("patching"), Some("open"), Some("worker"))
    );
    assert_eq!(windows[0]["start"], "2026-03-07T12:30:00Z");

    // The JSON API's jobs: the nightly's 13:00 is counted maintenance, not missed.
    let jobs = api(&state, "/api/instances/worker/jobs?days=1").await;
    let nightly = jobs["jobs"].as_array().unwrap().iter().find(|j| j["name"] == NIGHTLY).expect("the nightly");
    assert_eq!((nightly["counts"]["missed"].as_u64(), nightly["counts"]["maintenance"].as_u64()), (Some(0), Some(1)));
    let id = nightly["id"].as_str().unwrap().replace(' ', "%20");
    let timeline = api(&state, &format!("/api/instances/worker/jobs/{id}/timeline?days=1")).await;
    let due = timeline["occurrences"].as_array().unwrap().iter().find(|o| o["expected_at"] == "2026-03-07T13:00:00Z");
    let due = due.expect("13:00 expected");
    assert_eq!(due["outcome"], "maintenance", "{due}");
    assert!(due["explanation"].as_str().unwrap().contains("\"patching: OS updates\""), "{due}");

    // The job's page shades the window and names it; the triage page says what it holds.
    let (status, page) = get(&state, &format!("/jobs/{id}?instance=worker&days=1")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("data-testid=\"maintenance-band\""), "no maintenance band");
    assert!(page.contains("Maintenance (patching: OS updates) from"), "the band's title names it");
    assert!(page.contains("0 missed, 0 late, 0 skipped, 1 not run in maintenance"), "the chart's summary counts it");
    let (_, page) = get(&state, "/triage").await;
    assert!(page.contains("In maintenance (patching) until"), "the held problem is marked");
    assert!(page.contains("data-testid=\"window\""), "the window is listed");
}

#[tokio::test]
async fn problems_opened_inside_a_window_alert_once_when_it_ends_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, mut rx) = receiver(0).await;
    // The whole fleet is in the window (GONE too).
    let extra = format!(
        "[[maintenance]]\nname = \"patching\"\nstart = \"2026-03-07 12:30\"\nend = \"2026-03-07 14:00\"\n\
         [[alert]]\nname = \"oncall\"\nurl = \"{url}/oncall\"\nformat = \"json\"\ngrace = \"5m\"\nremind = \"10m\"\n"
    );
    let config = fleet(dir.path(), &extra);
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    // Inside the window (13:46): nothing, though the grace has passed.
    assert_eq!(alerter.tick(at(6)).await, []);
    // Sundial restarts inside the window: still nothing.
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    assert_eq!(alerter.tick(at(10)).await, []);
    // 14:01: the window ended a minute ago; the grace counts from its end.
    assert_eq!(alerter.tick(at(21)).await, []);
    // 14:06: what is still open alerts, once; the missed run never (it was maintenance).
    let queued = alerter.tick(at(26)).await;
    let mut got = subjects(&queued);
    got.sort();
    assert_eq!(got, [("oncall", "[DOWN] GONE"), ("oncall", "[FAILED] worker / Report \"daily\"")]);
    let mut delivered: Vec<String> = Vec::new();
    for _ in 0..2 {
        delivered.push(next(&mut rx).await.body["subject"].as_str().unwrap().to_owned());
    }
    delivered.sort();
    assert_eq!(delivered, ["[DOWN] GONE", "[FAILED] worker / Report \"daily\""]);
    // Restarted again: nothing is sent twice.
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    assert_eq!(alerter.tick(at(27)).await, []);
    assert!(rx.try_recv().is_err(), "no other request");
}

#[tokio::test]
async fn reminders_wait_while_a_window_holds_what_was_alerted() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let (url, _rx) = receiver(0).await;
    // No window: the problems alert at 13:46.
    let alert = format!(
        "[[alert]]\nname = \"oncall\"\nurl = \"{url}/oncall\"\nformat = \"json\"\ngrace = \"5m\"\nremind = \"10m\"\n"
    );
    let config = fleet(dir.path(), &alert);
    let backend = start(&config).await;
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK).await.unwrap().unwrap();
    assert_eq!(alerter.tick(at(6)).await.len(), 3);
    // Then a window over the worker is added from the triage page, until 15:00: the worker's
    // reminders wait, GONE's does not.
    let state = web::state(backend.clone());
    let form = "name=hotfix&reason=restarting%20the%20agent&instance=worker&start=2026-03-07%2013%3A00\
                &time_zone=UTC&duration=2h&by=alice&back=%2Ftriage";
    assert_eq!(post_form(&state, "/triage/maintenance", form).await, (StatusCode::SEE_OTHER, "/triage".to_owned()));
    // The nightly's 13:00 is maintenance now: its missed episode ends (a recovery).
    let queued = alerter.tick(at(17)).await;
    let mut got = subjects(&queued);
    got.sort();
    let resolved = format!("[RESOLVED MISSED] worker / {NIGHTLY}");
    assert_eq!(got, [("oncall", resolved.as_str()), ("oncall", "[STILL OPEN] [DOWN] GONE")]);
}

#[tokio::test]
async fn an_admin_adds_and_ends_a_window_from_triage_and_the_store_keeps_who_when_and_why() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let config = fleet(dir.path(), "");
    let state = state_of(&config).await;
    assert_eq!(by_kind(&api(&state, "/api/triage").await, "missed").len(), 1);

    // A form without a reason, a length not offered, an unknown instance or zone: refused,
    // named by a code (never the request's text), nothing added.
    for bad in [
        "name=x&reason=&instance=worker&duration=2h&back=%2Ftriage",
        "name=x&reason=y&instance=worker&duration=3h&back=%2Ftriage",
        "name=x&reason=y&instance=nowhere&duration=2h&back=%2Ftriage",
        "name=x&reason=y&instance=worker&duration=2h&time_zone=Mars%2FOlympus&back=%2Ftriage",
        "name=x&reason=y&instance=worker&duration=2h&start=yesterday&back=%2Ftriage",
    ] {
        let (status, to) = post_form(&state, "/triage/maintenance", bad).await;
        assert_eq!((status, to.as_str()), (StatusCode::SEE_OTHER, "/triage?maint_error=invalid"), "{bad}");
    }
    assert!(api(&state, "/api/triage").await["maintenance"].as_array().unwrap().is_empty());
    let (_, page) = get(&state, "/triage?maint_error=invalid").await;
    assert!(page.contains("The window was not added"), "the page says why");

    // Alice adds one over the worker from 12:30 (UTC) for 2 hours.
    let form = "name=DB%20upgrade&reason=CU%2014%20%3Cb%3Enow%3C%2Fb%3E&instance=worker&jobs=&start=2026-03-07%2012%3A30\
                &time_zone=UTC&duration=2h&by=alice&back=%2Ftriage";
    assert_eq!(post_form(&state, "/triage/maintenance", form).await, (StatusCode::SEE_OTHER, "/triage".to_owned()));
    let triage = api(&state, "/api/triage").await;
    assert!(by_kind(&triage, "missed").is_empty(), "the 13:00 run is maintenance now: {triage}");
    let w = &triage["maintenance"][0];
    assert_eq!((w["state"].as_str(), w["added_by"].as_str()), (Some("open"), Some("alice")), "{w}");
    assert_eq!((w["start"].as_str(), w["end"].as_str()), (Some("2026-03-07T12:30:00Z"), Some("2026-03-07T14:30:00Z")));
    // Its reason is text on the page, never markup.
    let (_, page) = get(&state, "/triage").await;
    assert!(page.contains("CU 14 &lt;b&gt;now&lt;/b&gt;") && !page.contains("<b>now</b>"), "escaped");

    // Ending needs a reason; a window that does not exist is gone.
    let id = w["id"].as_str().unwrap().to_owned();
    let start_ms = t("2026-03-07T12:30:00Z").timestamp_millis();
    let end = |why: &str| format!("id={id}&start_ms={start_ms}&why={why}&by=bob&back=%2Ftriage");
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("")).await.1, "/triage?maint_error=why");
    let nowhere = format!("id=added%3A1&start_ms={start_ms}&why=x&back=%2Ftriage");
    assert_eq!(post_form(&state, "/triage/maintenance/end", &nowhere).await.1, "/triage?maint_error=gone");
    // Bob ends it now (13:40): what it covered stays maintenance.
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("done%20early")).await.1, "/triage");
    let triage = api(&state, "/api/triage").await;
    let w = &triage["maintenance"][0];
    assert_eq!(
        (w["state"].as_str(), w["end"].as_str(), w["ended_by"].as_str(), w["ended_why"].as_str()),
        (Some("ended"), Some(NOW), Some("bob"), Some("done early")),
        "{w}"
    );
    assert!(by_kind(&triage, "missed").is_empty(), "{triage}");
    // Ended twice: gone.
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("again")).await.1, "/triage?maint_error=gone");

    // Restarted over the same store: the same window, who added it, who ended it and why.
    let again = state_of(&config).await;
    let triage = api(&again, "/api/triage").await;
    assert_eq!(triage["maintenance"], api(&state, "/api/triage").await["maintenance"]);
    assert!(by_kind(&triage, "missed").is_empty());
}

/// The README's example windows parse as it says (docs kept true), and its London night is as
/// long as it says.
#[test]
fn the_readmes_maintenance_examples_parse() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let start = readme.find("[[maintenance]]\nname = \"Saturday patching\"").expect("the windows' example");
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let text = format!(
        "[[instance]]\nname = \"SQLPROD01\"\nkind = \"sqlite_demo\"\npath = \"/x\"\ntags = {{ env = \"prod\" }}\n\n{block}"
    );
    let c = server::config::parse(&text, "README.md").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = c.maintenance.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Saturday patching", "Month-end freeze", "SQL Server CU 14"]);
    let night = app::engine::Window::new(t("2026-10-24T12:00:00Z"), t("2026-10-25T12:00:00Z"));
    let (w, _) = app::engine::maintenance::windows(&c.maintenance[0].when, c.maintenance[0].zone, night);
    assert_eq!(w.iter().map(|w| w.duration().num_hours()).collect::<Vec<_>>(), [5], "London's autumn night");
    let month = app::engine::Window::new(t("2026-11-01T00:00:00Z"), t("2026-12-01T00:00:00Z"));
    let (w, d) = app::engine::maintenance::windows(&c.maintenance[1].when, c.maintenance[1].zone, month);
    assert!(d.is_empty(), "{d:?}");
    // October's lasts into November's first hours: it overlaps the range too.
    let starts: Vec<_> = w.iter().map(|w| w.start).collect();
    assert_eq!(starts, [t("2026-10-31T20:00:00Z"), t("2026-11-30T20:00:00Z")], "each month's last day");
}
