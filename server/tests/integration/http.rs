//! The HTTP surface, request by request (`router(state).oneshot(request)`), over a hand-made
//! instance report (`support::fixture`), so pages are tested independently of the engine.
use crate::support::fixture::{self, FixtureBackend, INSTANCE, SECRET};
use crate::support::web::visible;
use crate::support::web::{self, Answer, send};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use server::http::AppState;
use std::sync::Arc;

fn state(fail: bool) -> AppState {
    web::state(Arc::new(FixtureBackend { fail, kind: "mssql" }))
}

async fn get(uri: &str) -> Answer {
    send(state(false), Request::get(uri).body(Body::empty()).unwrap()).await
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
    let a = get("/jobs").await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    let html = a.text();
    assert!(html.contains(INSTANCE), "the instance name is in the header");
    assert!(html.contains("Europe/London"), "the instance zone is in the header");
    assert!(html.contains("DatabaseBackup - USER_DATABASES - FULL"));
    assert!(html.contains(&format!("/jobs/{}?days=7", fixture::FULL_BACKUP_ID)), "job names link to their timeline");
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
    let html = get("/jobs?days=30").await.text();
    assert!(html.contains("zombie-banner"));
    let text = visible(&html);
    assert!(
        text.contains("SQL Agent started no job from 2026-11-13 12:00:00 UTC to 2026-11-15 12:00:00 UTC (2d 00h): "),
        "{text}"
    );
    assert!(text.contains("runs due: "));
    // Still announced when the window shown (7 days) ends before it: incidents of the last
    // 30 days are on every page.
    assert!(get("/jobs?days=7").await.text().contains("zombie-banner"));
}

#[tokio::test]
async fn jobs_page_sorts_by_query() {
    let order = |html: &str| {
        let names = ["CommandLog Cleanup", "DatabaseBackup - USER_DATABASES - FULL", "syspolicy_purge_history"];
        let mut at: Vec<(usize, &str)> = names.iter().map(|n| (html.find(&format!(">{n}<")).expect(n), *n)).collect();
        at.sort();
        at.into_iter().map(|(_, n)| n).collect::<Vec<_>>()
    };
    let asc = get("/jobs?sort=name&dir=asc").await.text();
    assert_eq!(
        order(&asc),
        ["CommandLog Cleanup", "DatabaseBackup - USER_DATABASES - FULL", "syspolicy_purge_history"]
    );
    let desc = get("/jobs?sort=name&dir=desc").await.text();
    assert_eq!(
        order(&desc),
        ["syspolicy_purge_history", "DatabaseBackup - USER_DATABASES - FULL", "CommandLog Cleanup"]
    );
    assert!(desc.contains(r#"aria-sort="descending""#));
}

#[tokio::test]
async fn timeline_marks_missed_runs_with_their_cause() {
    let a = get(&format!("/jobs/{}?days=7", fixture::FULL_BACKUP_ID)).await;
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

    let html = get(&format!("/jobs/{}?days=30", fixture::FULL_BACKUP_ID)).await.text();
    assert!(html.contains(r#"data-cause="zombie""#));
    assert!(
        html.contains("Missed: SQL Agent started no job between 2026-11-13 12:00:00 UTC and 2026-11-15 12:00:00 UTC")
    );
    assert!(html.contains(r#"data-testid="zombie-band""#));
}

#[tokio::test]
async fn timeline_shows_unknown_history_restarts_late_and_skipped() {
    let html = get(&format!("/jobs/{}?days=30", fixture::LOG_BACKUP_ID)).await.text();
    assert!(html.contains(r#"data-testid="unknown-band""#), "history before the horizon is unknown");
    assert!(html.contains(r#"data-testid="agent-restart""#));
    assert!(html.contains(r#"data-cause="down""#));
    assert!(html.contains("Missed: Agent was down, restarted at"));
    assert!(html.contains(r#"data-testid="late-marker""#));
    // 2880 expected runs in 30 days: routine ones are drawn as stretches, problems one by one.
    assert!(html.contains(r#"data-testid="run-span""#));
    assert!(html.contains("mkspan-unknown"));
    assert!(html.len() < 400_000, "a dense job's page stays small: {} bytes", html.len());
    let html = get(&format!("/jobs/{}?days=7", fixture::ORDERS_ID)).await.text();
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
    for uri in ["/jobs?days=5", "/jobs?days=abc", &format!("/jobs/{}?days=5", fixture::FULL_BACKUP_ID)] {
        let a = get(uri).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(a.text().contains("days must be 1, 7 or 30"), "{uri}");
    }
    let a = get("/api/jobs?days=5").await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["kind"], "bad_request");
    assert_eq!(v["error"], "bad request: days must be 1, 7 or 30");
}

#[tokio::test]
async fn an_unreadable_source_is_a_503_naming_the_instance_only() {
    for uri in ["/jobs", &format!("/jobs/{}?days=7", fixture::FULL_BACKUP_ID), "/api/jobs"] {
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
    let full = jobs.iter().find(|j| j["id"] == fixture::FULL_BACKUP_ID).unwrap();
    assert_eq!(full["missed"], 3, "one no-run and two zombie days");
    assert_eq!(full["missed_zombie"], 2);
    // The bands where the scheduler started nothing: the zombie days and the Agent's stop.
    let gaps: Vec<bool> = v["zombies"].as_array().unwrap().iter().map(|z| z["stopped"].as_bool().unwrap()).collect();
    assert_eq!(gaps, [false, true], "{}", v["zombies"]);
    // Default window.
    let v: serde_json::Value = serde_json::from_slice(&get("/api/jobs").await.body).unwrap();
    assert_eq!(v["instance"]["days"], 7);
}

#[tokio::test]
async fn server_functions_answer_with_the_backend_in_context() {
    let req = Request::post("/api/fn/job_timeline")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("job_id={}&days=30", fixture::FULL_BACKUP_ID)))
        .unwrap();
    let a = send(state(false), req).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(v["job"]["id"], fixture::FULL_BACKUP_ID);
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
    let req = Request::get("/jobs").header(header::ACCEPT_ENCODING, "gzip").body(Body::empty()).unwrap();
    let a = send(state(false), req).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.headers[header::CONTENT_ENCODING], "gzip");
    let mut html = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&a.body[..]), &mut html).expect("valid gzip");
    assert!(html.contains(INSTANCE));
    // And not when not asked.
    assert!(get("/jobs").await.headers.get(header::CONTENT_ENCODING).is_none());
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
    // 30 days of a 15-minute job are thousands of lines: pages of 200, newest first, each
    // linking the next by cursor; following them reaches every line, none twice.
    let html = get("/log?days=30").await.text();
    let total = attr_num(&html, "data-total");
    assert!(total > 200, "more lines than one page: {total}");
    assert!(
        visible(&html).contains(&format!("lines 1–200 of {}, newest first", sundial_model::count_text(total))),
        "{}",
        visible(&html)
    );
    let mut seen = 0;
    let mut url = "/log?days=30&limit=500".to_string();
    let mut pages = 0;
    loop {
        let html = get(&url).await.text();
        assert_eq!(attr_num(&html, "data-from"), seen + 1, "page {pages} starts where the last ended");
        seen += html.matches(r#"data-testid="log-line""#).count();
        pages += 1;
        match html
            .split(r#"rel="next""#)
            .next()
            .and_then(|before| before.rsplit("href=\"").next())
            .filter(|_| html.contains(r#"rel="next""#))
        {
            Some(href) => url = href.split('"').next().unwrap().replace("&amp;", "&"),
            None => break,
        }
        assert!(pages < 1000, "paging ends");
    }
    assert_eq!(seen, total, "every line on some page ({pages} pages)");
    let a = get("/log?days=30&cursor=garbage").await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert!(a.text().contains("cursor must look like"));
    let a = get("/log?days=30&kind=nonsense").await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
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
    let pg = web::state(Arc::new(FixtureBackend { fail: false, kind: "pg_cron" }));
    let html = send(pg.clone(), Request::get("/jobs?days=30").body(Body::empty()).unwrap()).await.text();
    let text = visible(&html);
    assert!(
        text.contains("Zombie scheduler.") && text.contains("pg_cron started no job from 2026-11-13 12:00:00"),
        "{text}"
    );
    assert!(!text.contains("SQL Agent"), "no SQL Agent wording on a pg_cron instance");
    let html =
        send(pg, Request::get(format!("/jobs/{}?days=30", fixture::FULL_BACKUP_ID)).body(Body::empty()).unwrap())
            .await
            .text();
    assert!(
        html.contains("Missed: pg_cron started no job between 2026-11-13 12:00:00 UTC and 2026-11-15 12:00:00 UTC")
    );
    assert!(!html.contains("SQL Agent"));
    // The Agent keeps its own words.
    let text = visible(&get("/jobs?days=30").await.text());
    assert!(text.contains("Zombie Agent.") && text.contains("SQL Agent started no job from"), "{text}");
    let events = server::config::SourceKind::parse("mysql_events").expect("a kind").scheduler();
    assert_eq!(sundial_model::scheduler_mid(events.label()), "the event scheduler");
}

/// The number in the first `name="…"` attribute of a page.
fn attr_num(html: &str, name: &str) -> usize {
    let at = html.find(&format!("{name}=\"")).unwrap_or_else(|| panic!("no {name} in the page"));
    html[at + name.len() + 2..].split('"').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn the_list_counts_failures_states_and_unknown_never_as_zero_missed() {
    let v: serde_json::Value = serde_json::from_slice(&get("/api/jobs?days=30").await.body).unwrap();
    let job = |id: &str| v["jobs"].as_array().unwrap().iter().find(|j| j["id"] == id).unwrap().clone();
    let full = job(fixture::FULL_BACKUP_ID);
    assert_eq!(full["failed"], 1, "the failed backup counts");
    assert_eq!(full["state"], "recovered", "it failed, then succeeded");
    let orders = job(fixture::ORDERS_ID);
    assert_eq!((orders["retries"].as_u64(), orders["canceled"].as_u64()), (Some(1), Some(1)));
    assert_eq!(orders["state"], "ok");
    assert_eq!(job(fixture::PURGE_ID)["state"], "disabled");
    // History trimmed 20 days ago: the 15-minute job's older due runs are unknown, with
    // since-when, and the list says so instead of "0".
    let log = job(fixture::LOG_BACKUP_ID);
    assert!(log["unknown"].as_u64().unwrap() > 900, "{log}");
    assert_eq!(log["history_since"], "2026-11-02T12:00:00+00:00", "RFC 3339 with the offset");
    assert!(log["due"].as_u64().unwrap() >= log["unknown"].as_u64().unwrap());
    let html = get("/jobs?days=30").await.text();
    let row = html
        .split(&format!(r#"data-job-id="{}""#, fixture::LOG_BACKUP_ID))
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap();
    let text = visible(row);
    let unknown = sundial_model::count_text(log["unknown"].as_u64().unwrap() as usize);
    assert!(
        text.contains(&format!("{unknown} unknown")) && text.contains("history since 2026-11-02 12:00:00"),
        "{text}"
    );
    // Failures: a column, a state pill, and the summary.
    assert!(visible(&html).contains("1 with failures (1 failed run)"), "{}", visible(&html));
    assert!(html.contains(r#"data-state="recovered""#));
    // Every instant in JSON is RFC 3339 with an offset.
    assert_eq!(v["instance"]["now"], "2026-11-22T12:00:00+00:00");
    // Sorted by attention by default: the job with missed runs first; a filter keeps failures.
    let order: Vec<String> = html
        .match_indices(r#"data-job-id=""#)
        .map(|(i, _)| html[i + 13..].split('"').next().unwrap().to_owned())
        .collect();
    assert_eq!(order[0], fixture::LOG_BACKUP_ID, "the most missed runs first");
    assert_eq!(order.last().map(String::as_str), Some(fixture::PURGE_ID), "the disabled job last");
    let html = get("/jobs?days=30&show=failures").await.text();
    assert_eq!(html.matches(r#"data-testid="job-row""#).count(), 1);
}

#[tokio::test]
async fn incidents_of_the_last_30_days_are_on_every_page_whatever_the_window() {
    for uri in ["/jobs", "/jobs?days=1", &format!("/jobs/{}?days=1", fixture::ORDERS_ID), "/log?days=1"] {
        let html = get(uri).await.text();
        let text = visible(&html);
        assert!(html.contains(r#"data-testid="zombie-banner""#), "{uri}: the zombie of 9..7 days ago is announced");
        assert!(text.contains("Zombie Agent. SQL Agent started no job from 2026-11-13 12:00:00 UTC to 2026-11-15 12:00:00 UTC (2d 00h)"), "{uri}: {text}");
        assert!(text.contains("Scheduler stopped."), "{uri}: the Agent's downtime is announced");
        assert!(
            html.contains("/log?days=30&problems=1&instance=FIXTURE-SQL01&from=2026-11-13T12:00:00Z&to=")
                || html.contains(
                    "/log?days=30&amp;problems=1&amp;instance=FIXTURE-SQL01&amp;from=2026-11-13T12:00:00Z&amp;to="
                ),
            "{uri}: a link to that moment"
        );
    }
    // What the zombie banner counts agrees with the list: its missed runs are the list's
    // zombie misses.
    let v: serde_json::Value = serde_json::from_slice(&get("/api/jobs?days=30").await.body).unwrap();
    let zombie_missed: u64 = v["jobs"].as_array().unwrap().iter().map(|j| j["missed_zombie"].as_u64().unwrap()).sum();
    let z = &v["zombies"][0];
    assert_eq!(z["missed"].as_u64().unwrap(), zombie_missed);
    assert!(z["due"].as_u64().unwrap() >= z["missed"].as_u64().unwrap() + z["unknown"].as_u64().unwrap(), "{z}");
}

#[tokio::test]
async fn consecutive_misses_with_one_cause_are_one_expandable_row() {
    let html = get(&format!("/jobs/{}?days=30", fixture::FULL_BACKUP_ID)).await.text();
    let table = html.split(r#"data-testid="timeline-table""#).nth(1).unwrap();
    assert_eq!(table.matches(r#"data-testid="collapsed-misses""#).count(), 1, "the two zombie days are one row");
    assert!(
        visible(table).contains(
            "2 runs missed from 2026-11-14 01:00:00 UTC to 2026-11-15 01:00:00 UTC: SQL Agent started no job"
        ),
        "{}",
        visible(table)
    );
    // The lone miss of another cause stays its own row.
    assert!(visible(table).contains("Missed: no run started"));
    // The log collapses them too, and counts each missed run.
    let html = get("/log?days=30&problems=1&kind=missed").await.text();
    assert!(visible(&html).contains("2 runs missed from"), "{}", visible(&html));
}

#[tokio::test]
async fn every_time_on_every_page_has_a_zoned_datetime() {
    for uri in ["/jobs?days=30", &format!("/jobs/{}?days=30", fixture::FULL_BACKUP_ID), "/log?days=7"] {
        let html = get(uri).await.text();
        let times: Vec<&str> = html.split("<time").skip(1).collect();
        assert!(!times.is_empty(), "{uri} shows times");
        for t in times {
            let dt = t.split("datetime=\"").nth(1).map(|r| r.split('"').next().unwrap()).unwrap_or("");
            assert!(chrono::DateTime::parse_from_rfc3339(dt).is_ok(), "{uri}: <time{}", &t[..t.len().min(120)]);
        }
    }
}

#[tokio::test]
async fn the_switches_remember_zone_and_theme_in_cookies_and_go_back_to_the_page() {
    let post = |body: &'static str| {
        Request::post("/prefs")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap()
    };
    let res = send(state(false), post("zone=utc&back=%2Flog%3Fdays%3D7")).await;
    assert_eq!(res.status, StatusCode::SEE_OTHER);
    assert_eq!(res.headers["location"], "/log?days=7");
    let set: Vec<_> = res.headers.get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_owned()).collect();
    assert_eq!(set.len(), 1, "{set:?}");
    assert!(set[0].starts_with("sundial-zone=utc;") && set[0].contains("Path=/"), "{set:?}");
    // Somewhere else than this site, or an unknown value: back to `/`, nothing stored.
    for body in ["zone=mars&back=%2F%2Fevil.example%2F", "theme=pink&back=https%3A%2F%2Fevil.example%2F"] {
        let res = send(state(false), post(body)).await;
        assert_eq!(res.headers["location"], "/", "{body}");
        assert!(res.headers.get("set-cookie").is_none(), "{body}");
    }
    // The pages read the cookies: UTC times, the dark theme, the pressed button.
    let with =
        |cookie: &'static str| Request::get("/jobs?days=7").header("cookie", cookie).body(Body::empty()).unwrap();
    let html = send(state(false), with("sundial-zone=utc; sundial-theme=dark")).await.text();
    assert!(html.contains(r#"<html lang="en" data-theme="dark""#), "dark theme on <html>");
    assert!(html.contains(r#"aria-pressed="true" data-zone="utc""#), "UTC is the pressed choice");
    let shown: Vec<&str> =
        html.split("<span class=\"tz-off\">").skip(1).map(|t| t.split('<').next().unwrap()).collect();
    assert!(
        !shown.is_empty() && shown.iter().all(|z| *z == "UTC"),
        "every time in UTC: {:?}",
        &shown[..shown.len().min(5)]
    );
    // The browser's zone, from the cookie the page's script keeps.
    let html = send(state(false), with("sundial-zone=browser; sundial-browser-tz=Asia%2FKolkata")).await.text();
    assert!(html.contains("<span class=\"tz-off\">UTC+5:30</span>"), "times in the browser's zone");
    let html = get("/jobs?days=7").await.text();
    assert!(
        !html.contains("data-theme=\"dark\"") && html.contains(r#"aria-pressed="true" data-zone="instance""#),
        "defaults without cookies"
    );
}

#[tokio::test]
async fn the_simulator_page_is_complete_html_before_any_script_runs() {
    let res = get("/simulate?dialect=agent&tz=America%2FNew_York&after=2026-11-22T07:00:00&count=3").await;
    assert_eq!(res.status, StatusCode::OK);
    let html = res.text();
    let runs = html.split(r#"id="next-runs""#).nth(1).and_then(|r| r.split("</ol>").next()).expect("#next-runs");
    let times: Vec<&str> = runs.split(r#"<time datetime=""#).skip(1).map(|t| &t[..19]).collect();
    assert_eq!(times, ["2026-11-23T02:00:00", "2026-11-24T02:00:00", "2026-11-25T02:00:00"]);
    assert!(html.contains(r#"id="schedule-json""#) && html.contains(r#"<label for="schedule-json">"#));
    assert!(visible(&html).contains("Occurs every day at 2:00:00 AM."), "SSMS's words");
    assert!(html.contains("EXEC msdb.dbo.sp_update_schedule"), "the statement");
    assert!(html.matches("<option value=\"").count() > 400, "every zone the server knows is offered");
    assert!(html.contains(r#"data-component="Simulator"#) || html.contains("leptos-island"), "an island");

    let bad = get("/simulate?dialect=quartz").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(
        visible(&bad.text())
            .contains("dialect must be one of agent, cron, mysql_event, job_table, service_broker, primentra")
    );

    let html = get("/simulate?tz=Mars%2FOlympus").await.text();
    assert!(
        visible(&html).contains("Unknown time zone \"Mars/Olympus\": showing UTC."),
        "an unknown zone is said, not fatal"
    );
}
