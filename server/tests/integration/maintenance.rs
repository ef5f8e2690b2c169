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
    // Then a window over the worker is added from the triage page, from now for 2 hours: the
    // worker's reminders wait, GONE's does not. (A window from the page starts now or later: the
    // nightly's 13:00 stays missed, and its reminder waits with the rest.)
    let state = web::state(backend.clone());
    let form = "name=hotfix&reason=restarting%20the%20agent&instance=worker&start=\
                &time_zone=UTC&duration=2h&by=alice&back=%2Ftriage";
    assert_eq!(post_form(&state, "/triage/maintenance", form).await, (StatusCode::SEE_OTHER, "/triage".to_owned()));
    let queued = alerter.tick(at(17)).await;
    assert_eq!(subjects(&queued), [("oncall", "[STILL OPEN] [DOWN] GONE")]);
    let triage = api(&state, "/api/triage").await;
    let missed = by_kind(&triage, "missed");
    assert_eq!(missed[0]["maintenance"]["window"], "hotfix", "held now, though it began before: {triage}");
    let _ = NIGHTLY;
}

#[tokio::test]
async fn an_admin_adds_and_ends_a_window_from_triage_and_the_store_keeps_who_when_and_why() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let config = fleet(dir.path(), "");
    let state = state_of(&config).await;
    assert_eq!(by_kind(&api(&state, "/api/triage").await, "missed").len(), 1);

    // A form without a reason, a length not offered, an unknown instance or zone, a start
    // that cannot be read: refused, named by a code (never the request's text), nothing added.
    for (bad, code) in [
        ("name=x&reason=&instance=worker&duration=2h&back=%2Ftriage", "missing-reason"),
        ("name=x&reason=y&instance=worker&duration=3h&back=%2Ftriage", "length"),
        ("name=x&reason=y&instance=nowhere&duration=2h&back=%2Ftriage", "instance"),
        ("name=x&reason=y&instance=worker&duration=2h&time_zone=Mars%2FOlympus&back=%2Ftriage", "zone"),
        ("name=x&reason=y&instance=worker&duration=2h&start=yesterday&back=%2Ftriage", "start"),
    ] {
        let (status, to) = post_form(&state, "/triage/maintenance", bad).await;
        let (back, typed) = to.split_once('&').unwrap_or((&to, ""));
        assert_eq!((status, back), (StatusCode::SEE_OTHER, format!("/triage?maint_error={code}").as_str()), "{bad}");
        assert!(typed.contains("mw_name=x"), "what was typed goes back with it: {to}");
    }
    assert!(api(&state, "/api/triage").await["maintenance"].as_array().unwrap().is_empty());
    let (_, page) = get(&state, "/triage?maint_error=missing-reason").await;
    assert!(page.contains("Nothing was changed. The reason is required."), "the page says why");

    // Alice adds one over the worker from now (13:40, UTC) for 2 hours.
    let form = "name=DB%20upgrade&reason=CU%2014%20%3Cb%3Enow%3C%2Fb%3E&instance=worker&jobs=&start=\
                &time_zone=UTC&duration=2h&by=alice&back=%2Ftriage";
    assert_eq!(post_form(&state, "/triage/maintenance", form).await, (StatusCode::SEE_OTHER, "/triage".to_owned()));
    let triage = api(&state, "/api/triage").await;
    let missed = by_kind(&triage, "missed");
    assert_eq!(missed.len(), 1, "the 13:00 run stays missed: the window starts now: {triage}");
    assert_eq!(missed[0]["maintenance"]["window"], "DB upgrade", "and the window holds it: {triage}");
    let w = &triage["maintenance"][0];
    assert_eq!((w["state"].as_str(), w["added_by"].as_str()), (Some("open"), Some("alice")), "{w}");
    assert_eq!((w["start"].as_str(), w["end"].as_str()), (Some(NOW), Some("2026-03-07T15:40:00Z")));
    // Its reason is text on the page, never markup.
    let (_, page) = get(&state, "/triage").await;
    assert!(page.contains("CU 14 &lt;b&gt;now&lt;/b&gt;") && !page.contains("<b>now</b>"), "escaped");

    // Ending needs a reason; a window that does not exist is gone.
    let id = w["id"].as_str().unwrap().to_owned();
    let start_ms = t(NOW).timestamp_millis();
    let end = |why: &str| format!("id={id}&start_ms={start_ms}&why={why}&by=bob&back=%2Ftriage");
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("")).await.1, "/triage?maint_error=missing-why");
    let nowhere = format!("id=added%3A1&start_ms={start_ms}&why=x&back=%2Ftriage");
    assert_eq!(post_form(&state, "/triage/maintenance/end", &nowhere).await.1, "/triage?maint_error=gone");
    // Bob ends it now (13:40), as it began: cut to nothing, it holds nothing.
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("done%20early")).await.1, "/triage");
    let triage = api(&state, "/api/triage").await;
    assert!(triage["maintenance"].as_array().unwrap().is_empty(), "ended as it began: nothing to list: {triage}");
    assert!(by_kind(&triage, "missed")[0]["maintenance"].is_null(), "{triage}");
    let all = api(&state, "/api/maintenance").await;
    let w = &all["windows"][0];
    assert_eq!(
        (w["added_by"].as_str(), w["ended_by"].as_str(), w["ended_why"].as_str()),
        (Some("alice"), Some("bob"), Some("done early")),
        "{all}"
    );
    // Ended twice: gone.
    assert_eq!(post_form(&state, "/triage/maintenance/end", &end("again")).await.1, "/triage?maint_error=gone");

    // Restarted over the same store: the same window, who added it, who ended it and why.
    let again = state_of(&config).await;
    let triage = api(&again, "/api/triage").await;
    assert_eq!(triage["maintenance"], api(&state, "/api/triage").await["maintenance"]);
    assert_eq!(api(&again, "/api/maintenance").await, all, "the same history after a restart");
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
    let night = sundial_engine::Window::new(t("2026-10-24T12:00:00Z"), t("2026-10-25T12:00:00Z"));
    let (w, _) = sundial_engine::maintenance::windows(&c.maintenance[0].when, c.maintenance[0].zone, night);
    assert_eq!(w.iter().map(|w| w.duration().num_hours()).collect::<Vec<_>>(), [5], "London's autumn night");
    let month = sundial_engine::Window::new(t("2026-11-01T00:00:00Z"), t("2026-12-01T00:00:00Z"));
    let (w, d) = sundial_engine::maintenance::windows(&c.maintenance[1].when, c.maintenance[1].zone, month);
    assert!(d.is_empty(), "{d:?}");
    // October's lasts into November's first hours: it overlaps the range too.
    let starts: Vec<_> = w.iter().map(|w| w.start).collect();
    assert_eq!(starts, [t("2026-10-31T20:00:00Z"), t("2026-11-30T20:00:00Z")], "each month's last day");
}

/// The review's first finding: a window added "from now" (a start with microseconds) could not
/// be ended from the page that offered to end it. Every start a window can have round-trips
/// through the end form: now with nanoseconds, fractional seconds, a leap second, a DST fold;
/// and a restart reads back the same windows, ended.
#[tokio::test]
async fn the_occurrence_a_page_offers_to_end_ends_whatever_its_start() {
    use server::maintenance::Book;
    use sundial_model::triage::{MaintenanceEndForm, MaintenanceForm};
    let dir = tempfile::tempdir().unwrap();
    let store = server::store::Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let fleet =
        server::config::parse("[[instance]]\nname = \"SQL1\"\nkind = \"sqlite_demo\"\npath = \"/x\"\n", "fleet.toml")
            .unwrap();
    // (now, the form's start, its zone, the instant it must start at)
    let cases = [
        ("2026-03-07T13:40:00.987654321Z", "", "UTC", "2026-03-07T13:40:00.987Z"),
        ("2026-03-07T13:40:00Z", "2026-03-07T13:45:00.5+00:00", "UTC", "2026-03-07T13:45:00.5Z"),
        ("2026-03-07T13:40:00Z", "2026-03-07 13:45:07.123456", "UTC", "2026-03-07T13:45:07.123Z"),
        ("2016-12-31T22:00:00Z", "2016-12-31T23:59:60Z", "UTC", "2017-01-01T00:00:00Z"),
        ("2016-12-31T22:00:00Z", "2016-12-31 23:59:60", "UTC", "2017-01-01T00:00:00Z"),
        // New York's repeated 01:30: the earlier (EDT) one.
        ("2026-10-31T12:00:00Z", "2026-11-01 01:30", "America/New_York", "2026-11-01T05:30:00Z"),
    ];
    for (n, (now, start, zone, starts)) in cases.into_iter().enumerate() {
        let now = t(now);
        let book = Book::open(&[], &fleet.instances, Some(store.clone())).await;
        let name = format!("window {n}");
        let form = MaintenanceForm {
            name: name.clone(),
            reason: "patching".into(),
            instance: "SQL1".into(),
            start: start.into(),
            time_zone: zone.into(),
            duration: "1h".into(),
            ..Default::default()
        };
        book.add(&form, "alice", now).await.unwrap_or_else(|e| panic!("{name} ({start:?}): {e}"));
        let row = book.listing(now).into_iter().find(|r| r.name == name).expect("listed");
        assert_eq!(row.start_ms, t(starts).timestamp_millis(), "{name} starts at {starts}");
        let end =
            MaintenanceEndForm { id: row.id.clone(), start_ms: row.start_ms, why: "done".into(), ..Default::default() };
        book.end(&end, "bob", now).await.unwrap_or_else(|e| panic!("{name}: the offered end failed: {e}"));
        assert!(book.holding("SQL1", None, now, now).is_none_or(|h| h.name != name), "{name} holds nothing any more");
        // Read back by another book over the same store (a restart): the same, ended.
        let again = Book::open(&[], &fleet.instances, Some(store.clone())).await;
        let kept = again.history(sundial_engine::Window::new(now, now), now);
        let kept = kept.iter().find(|o| o.entry.name == name).expect("kept");
        assert_eq!(kept.whole.start, t(starts), "{name}: the store keeps the exact start");
        assert_eq!(kept.ended.as_ref().map(|e| e.by.as_str()), Some("bob"), "{name}");
        assert_eq!(
            again.end(&end, "carol", now).await,
            Err(sundial_model::ApiError::NotFound { what: "open or planned maintenance window".into() }),
            "{name}: ended once"
        );
    }
}

/// The review's fifth finding: under a fixed clock, a second window added at the same instant
/// failed (`UNIQUE constraint failed`). Both are kept; both end from the page's own forms, read
/// from its HTML as a browser posts them.
#[tokio::test]
async fn windows_added_at_the_same_instant_are_both_kept_and_each_ends_from_its_form() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let config = fleet(dir.path(), "");
    // A clock with nanoseconds, as a real one: the page's start_ms must still name the window.
    let backend =
        server::fleet::FleetBackend::start_at(&config, Some(t("2026-03-07T13:40:00.123456789Z"))).await.unwrap();
    let state = web::state(backend);
    for name in ["one", "two"] {
        let form = format!("name={name}&reason=r&instance=&start=&duration=1h&by=alice&back=%2Ftriage");
        assert_eq!(
            post_form(&state, "/triage/maintenance", &form).await,
            (StatusCode::SEE_OTHER, "/triage".to_owned())
        );
    }
    let (_, page) = get(&state, "/triage").await;
    let forms: Vec<String> = {
        let doc = scraper::Html::parse_document(&page);
        let form = scraper::Selector::parse("form[data-testid=\"window-end-form\"]").unwrap();
        let input = scraper::Selector::parse("input[type=\"hidden\"]").unwrap();
        doc.select(&form)
            .map(|f| {
                let hidden: Vec<String> = f
                    .select(&input)
                    .map(|i| {
                        format!(
                            "{}={}",
                            i.attr("name").unwrap(),
                            i.attr("value").unwrap().replace(':', "%3A").replace('/', "%2F")
                        )
                    })
                    .collect();
                hidden.join("&")
            })
            .collect()
    };
    assert_eq!(forms.len(), 2, "an end form for each: {forms:?}");
    for f in &forms {
        let (_, to) = post_form(&state, "/triage/maintenance/end", &format!("{f}&why=done&by=bob")).await;
        assert_eq!(to, "/triage", "the page's own end form ends its window: {f}");
    }
    let all = api(&state, "/api/maintenance").await;
    let states: Vec<&str> = all["windows"].as_array().unwrap().iter().map(|w| w["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["cancelled", "cancelled"], "{all}");
}

/// The review: a refused form lost what was typed. It goes back to the page with every field
/// (cut to what each holds), shown again open, the field at fault marked and named under it;
/// text from the URL is a field's value (escaped), never the message.
#[tokio::test]
async fn a_refused_window_is_shown_again_with_what_was_typed_and_the_field_named() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let state = state_of(&fleet(dir.path(), "")).await;
    let form = "name=Patch%20%3Cb%3ETuesday%3C%2Fb%3E&reason=CU%2014&instance=worker&jobs=nightly&start=2026-03-01%2000%3A00&time_zone=Europe%2FLondon&duration=4h&by=alice&back=%2Ftriage";
    let (status, to) = post_form(&state, "/triage/maintenance", form).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert!(to.starts_with("/triage?maint_error=past&"), "{to}");
    let (status, page) = get(&state, &to).await;
    assert_eq!(status, StatusCode::OK, "a page, styled as every page");
    let doc = scraper::Html::parse_document(&page);
    let one = |css: &str| {
        let sel = scraper::Selector::parse(css).unwrap();
        doc.select(&sel).next().unwrap_or_else(|| panic!("{css} on the page"))
    };
    assert!(one("details.window-add").value().attr("open").is_some(), "the form is open again");
    assert_eq!(one("#mw-name").value().attr("value"), Some("Patch <b>Tuesday</b>"), "as typed, as text");
    assert!(!page.contains("<b>Tuesday</b>"), "escaped");
    assert_eq!(one("#mw-reason").value().attr("value"), Some("CU 14"));
    assert_eq!(one("#mw-jobs").value().attr("value"), Some("nightly"));
    assert_eq!(one("#mw-zone").value().attr("value"), Some("Europe/London"));
    assert_eq!(one("#mw-start").value().attr("value"), Some("2026-03-01 00:00"));
    assert!(one("#mw-instance option[value=\"worker\"]").value().attr("selected").is_some());
    assert!(one("#mw-duration option[value=\"4h\"]").value().attr("selected").is_some());
    let start = one("#mw-start");
    assert_eq!(start.value().attr("aria-invalid"), Some("true"), "the field at fault is marked");
    assert_eq!(start.value().attr("aria-describedby"), Some("mw-error"));
    let why: String = one("#mw-error").text().collect();
    assert!(why.contains("A window added here starts now or later"), "the reason, under the field: {why}");
    assert!(one("#mw-name").value().attr("aria-invalid").is_none(), "only the field at fault");
    // Nothing was added.
    assert_eq!(api(&state, "/api/maintenance").await["windows"], serde_json::json!([]));
}

/// The review (issue 41): under the demo's still clock a second window failed with `UNIQUE
/// constraint failed: maintenance_added.id`. Windows added at one instant, before and after a
/// restart over the same store, are all kept, each with its own id.
#[tokio::test]
async fn windows_added_at_the_same_instant_across_a_restart_are_all_kept() {
    use server::maintenance::Book;
    use sundial_model::triage::MaintenanceForm;
    let dir = tempfile::tempdir().unwrap();
    let store = server::store::Store::open(&dir.path().join("store.sqlite")).await.unwrap();
    let fleet =
        server::config::parse("[[instance]]\nname = \"SQL1\"\nkind = \"sqlite_demo\"\npath = \"/x\"\n", "fleet.toml")
            .unwrap();
    let now = t("2026-03-07T13:40:00Z");
    let form = |name: &str| MaintenanceForm {
        name: name.into(),
        reason: "patching".into(),
        duration: "1h".into(),
        ..Default::default()
    };
    for run in 0..2 {
        let book = Book::open(&[], &fleet.instances, Some(store.clone())).await;
        for n in 0..2 {
            book.add(&form(&format!("w{run}{n}")), "alice", now).await.unwrap_or_else(|e| panic!("w{run}{n}: {e}"));
        }
    }
    let book = Book::open(&[], &fleet.instances, Some(store.clone())).await;
    let rows = book.listing(now);
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((rows.len(), ids.len()), (4, 4), "four windows, four ids: {ids:?}");
}

/// The review's second and fourth findings: a window from the page could start in 1970 or
/// 9999 and rewrite a month's missed runs unseen, and its fields took megabytes. It starts now
/// or later (a few minutes' grace, started now), within a week, for a length offered; every
/// field is bounded and the page says which one was refused.
#[tokio::test]
async fn a_window_from_the_page_starts_now_or_within_a_week_and_every_field_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let state = state_of(&fleet(dir.path(), "")).await;
    // The form with the fields `extra` gives ("k=v&k2=v2") in place of the defaults.
    let add = |extra: &str| {
        let mut fields: Vec<(String, String)> = [
            ("name", "w"),
            ("reason", "r"),
            ("instance", "worker"),
            ("duration", "1d"),
            ("time_zone", "UTC"),
            ("back", "%2Ftriage"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for pair in extra.split('&') {
            let (k, v) = pair.split_once('=').unwrap();
            fields.retain(|(f, _)| f != k);
            fields.push((k.to_owned(), v.to_owned()));
        }
        fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
    };
    let cases: Vec<(String, &str)> = vec![
        ("start=2026-03-01%2000%3A00".into(), "past"),
        ("start=1970-01-01%2000%3A00".into(), "past"),
        ("start=-0001-01-01%2000%3A00".into(), "past"),
        ("start=2026-03-07%2013%3A34".into(), "past"),
        ("start=9999-12-31%2023%3A00".into(), "far"),
        ("start=2026-03-14%2013%3A41".into(), "far"),
        ("start=tomorrow".into(), "start"),
        (format!("jobs={}", "a,".repeat(800_000)), "long-jobs"),
        (format!("jobs={}", (0..51).map(|n| format!("j{n}")).collect::<Vec<_>>().join(",")), "many-jobs"),
        ("name=".into(), "missing-name"),
        (format!("name={}", "n".repeat(81)), "long-name"),
        (format!("reason={}", "r".repeat(501)), "long-reason"),
        (format!("by={}", "b".repeat(81)), "long-by"),
        (format!("time_zone={}", "z".repeat(61)), "long-zone"),
    ];
    for (extra, code) in cases {
        let (status, to) = post_form(&state, "/triage/maintenance", &add(&extra)).await;
        let to = to.split('&').next().unwrap_or_default().to_owned();
        assert!(to.len() < 8_000, "what was typed goes back cut to what each field holds");
        assert_eq!(
            (status, to),
            (StatusCode::SEE_OTHER, format!("/triage?maint_error={code}")),
            "{}",
            &extra[..extra.len().min(60)]
        );
    }
    let all = api(&state, "/api/maintenance").await;
    assert_eq!(all["windows"], serde_json::json!([]), "nothing was added");
    let (_, page) = get(&state, "/triage?maint_error=long-jobs").await;
    assert!(page.contains("The list of jobs is longer than 1000 characters."), "the page names the field");
    let (_, page) = get(&state, "/triage?maint_error=past").await;
    assert!(page.contains("a past one is declared in the fleet file"), "and says where a past window goes");
    // The form's example start is tomorrow as of the backend's now (fixed: 2026-03-07), a start
    // it takes; never a date of the real clock's.
    let (_, page) = get(&state, "/triage").await;
    assert!(page.contains("else like 2026-03-08 22:00, within 7 days"), "the example follows the fixed now");
    let (_, page) = get(&state, "/triage?maint_error=start").await;
    assert!(page.contains("The start must be a date and a time, YYYY-MM-DD HH:MM"), "the refusal names the form");
    assert!(!page.contains("2026-11-28"), "no date from elsewhere");

    // Filled in a few minutes late (13:37 at 13:40): it starts now, and ends when it said.
    let (_, to) = post_form(&state, "/triage/maintenance", &add("start=2026-03-07%2013%3A37&duration=1h")).await;
    assert_eq!(to, "/triage");
    // A week ahead, to the minute, is the last start offered.
    let (_, to) = post_form(&state, "/triage/maintenance", &add("name=later&start=2026-03-14%2013%3A40")).await;
    assert_eq!(to, "/triage");
    let all = api(&state, "/api/maintenance").await;
    let w = &all["windows"][0];
    assert_eq!(
        (w["state"].as_str(), w["start"].as_str(), w["end"].as_str()),
        (Some("open"), Some(NOW), Some("2026-03-07T14:37:00Z")),
        "{all}"
    );
    assert_eq!(all["windows"][1]["state"], "planned");
    // The 13:00 missed run stays missed: nothing before now changed.
    assert_eq!(by_kind(&api(&state, "/api/triage").await, "missed").len(), 1);
    assert_eq!(all["maintenance_runs"], 0);
}

/// The review's second finding, the other half: every window that changes a period a page can
/// show is listed, the fleet file's back-dated ones too, with what it changed.
#[tokio::test]
async fn every_window_that_changes_a_page_is_listed_with_the_runs_it_made_maintenance() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let month_ago = "[[maintenance]]\nname = \"old freeze\"\nreason = \"audit\"\nstart = \"2026-02-10 00:00\"\nend = \"2026-02-11 00:00\"\n";
    let config = fleet(dir.path(), &format!("{PATCHING}{month_ago}"));
    let state = state_of(&config).await;
    let all = api(&state, "/api/maintenance").await;
    let names: Vec<&str> = all["windows"].as_array().unwrap().iter().map(|w| w["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["patching", "old freeze"], "open first, then the rest newest first: {all}");
    let patching = &all["windows"][0];
    assert_eq!(patching["maintenance_runs"], 1, "the nightly's 13:00: {patching}");
    assert!(patching["line"].as_u64().is_some() && patching["added_by"].is_null(), "the fleet file's: {patching}");
    // A month ago, over the whole fleet for a day: the worker's three daily runs of that day.
    assert_eq!(
        (all["windows"][1]["state"].as_str(), all["windows"][1]["maintenance_runs"].as_u64()),
        (Some("past"), Some(3))
    );
    assert_eq!(all["maintenance_runs"], 4);
    // The same runs the jobs list counts as maintenance over those 30 days.
    let jobs = api(&state, "/api/instances/worker/jobs?from=2026-02-05T13:40:00Z&to=2026-03-07T13:40:00Z").await;
    let counted: u64 =
        jobs["jobs"].as_array().unwrap().iter().map(|j| j["counts"]["maintenance"].as_u64().unwrap()).sum();
    assert_eq!(counted, 4, "{jobs}");
    // The OpenAPI document describes it.
    let doc = api(&state, "/api/openapi.json").await;
    assert!(doc["paths"]["/api/maintenance"]["get"].is_object(), "in the OpenAPI document");
    // The page lists both, says what each changed, and the triage page links to it.
    let (status, page) = get(&state, "/maintenance").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("It made 1 due run maintenance (not missed)."), "what the window changed");
    assert!(
        page.contains("old freeze") && page.contains("It made 3 due runs maintenance"),
        "the back-dated window too"
    );
    assert!(page.contains("4 due runs counted as maintenance over the last 30 days"), "{}", &page[..0]);
    let (_, triage) = get(&state, "/triage").await;
    assert!(triage.contains("href=\"/maintenance\""), "triage links to every window");
}
