//! The words and zones a reader sees on the demo fleet (issue 41), checked on the rendered
//! pages: a count of jobs says jobs; a streak's evidence opens on a window holding all of it;
//! a problem's "since" is brief and says how long ago; the triage page and a log line each give
//! their times in one zone; an incident's log link lands with its newest line on top.
use crate::support::web::{self, send};
use crate::support::{enc, t};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use scraper::{Html, Selector};
use server::http::AppState;

const NOW: &str = "2026-11-22T12:00:00Z";

async fn demo_fleet() -> (tempfile::TempDir, AppState) {
    web::demo_fleet(t(NOW)).await
}

/// The page at `uri` under the zone cookie `zone` (`instance`, `utc`).
async fn page(state: &AppState, uri: &str, zone: &str) -> Html {
    let req = Request::get(uri).header(header::COOKIE, format!("sundial-zone={zone}")).body(Body::empty()).unwrap();
    let a = send(state.clone(), req).await;
    assert_eq!(a.status, StatusCode::OK, "{uri}");
    Html::parse_document(&a.text())
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

fn text(e: scraper::ElementRef) -> String {
    e.text().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The zone labels of every `<time>` under `within`, each once, sorted.
fn zones(html: &Html, within: &str) -> Vec<String> {
    let mut z: Vec<String> = html.select(&sel(&format!("{within} time .tz-off"))).map(text).collect();
    z.sort();
    z.dedup();
    z
}

/// A problem row of the triage page by its kind and where (`instance` or `instance / job`).
fn problem<'a>(html: &'a Html, kind: &str, at: &str) -> scraper::ElementRef<'a> {
    html.select(&sel(&format!("[data-testid=\"problem\"][data-kind=\"{kind}\"]")))
        .find(|p| p.select(&sel(".problem-where")).next().map(text).as_deref() == Some(at))
        .unwrap_or_else(|| panic!("a {kind} problem of {at}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_triage_page_says_what_it_counts_since_when_and_in_one_zone() {
    let (_dir, state) = demo_fleet().await;
    let html = page(&state, "/triage", "instance").await;

    // A scheduler that is off counts jobs, and says jobs (it said "2 in a row").
    let stopped = problem(&html, "scheduler_stopped", "shop-mariadb");
    let count = stopped.select(&sel(".problem-count")).next().map(text);
    assert_eq!(count.as_deref(), Some("2 jobs missing runs"));
    // A zombie's count says jobs too; a streak's says runs in a row.
    let zombie = problem(&html, "zombie", "SQLEU01");
    assert_eq!(zombie.select(&sel(".problem-count")).next().map(text).as_deref(), Some("4 jobs starved"));

    // "since": brief (no year, no ":00" seconds), in the page's zone, and how long ago.
    let ledger = problem(&html, "no_success", "SQLEU01 / ETL - Load GL Ledger");
    let since = ledger.select(&sel("[data-testid=\"problem-since\"]")).next().map(text);
    assert_eq!(since.as_deref(), Some("since 11-19 02:30 UTC (3 days ago)"));
    let long = problem(&html, "running_long", "worker-jobs / ExportOrdersToErp");
    let since = long.select(&sel("[data-testid=\"problem-since\"]")).next().map(text);
    assert_eq!(since.as_deref(), Some("since 11-22 11:30:04 UTC (29 min ago)"), "seconds that mean something stay");

    // 4 failures in a row since 11-19: the evidence opens on the week, which holds them all.
    let link = ledger.select(&sel("[data-testid=\"evidence-link\"]")).next().unwrap().value().attr("href").unwrap();
    assert!(link.contains("days=7&") && link.contains("at=2026-11-22T02:30:00Z"), "{link}");
    let (status, _) = web::get(&state, link.split('#').next().unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{link}");

    // Instances in London, Berlin, New York…: in the "Instance" choice, one zone for the
    // whole page (problems and maintenance windows alike): UTC, never UTC beside UTC+1.
    assert_eq!(zones(&html, "main"), vec!["UTC"], "one zone on the triage page");
    // Under UTC the same; the JSON says the same instants.
    assert_eq!(zones(&page(&state, "/triage", "utc").await, "main"), vec!["UTC"]);
    // The fleet page's panel: the same one zone.
    let fleet = page(&state, "/fleet", "instance").await;
    assert_eq!(zones(&fleet, "[data-testid=\"triage\"]"), vec!["UTC"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_log_line_gives_its_times_in_one_zone_and_an_incidents_link_lands_on_its_newest_line() {
    let (_dir, state) = demo_fleet().await;
    // pgAgent down a night in New York: the missed runs' line said "…from 03:00 UTC−5 to 06:00
    // UTC−5: the scheduler was down until 11:40:02 UTC". Every time of a line: one zone.
    let jobs = page(&state, "/jobs?instance=pg-batch&days=7", "instance").await;
    let href = jobs.select(&sel("[data-testid=\"incident-link\"]")).next().expect("the incident's link");
    let href = href.value().attr("href").unwrap().to_owned();
    for zone in ["instance", "utc"] {
        let log = page(&state, &href, zone).await;
        let lines: Vec<_> = log.select(&sel("[data-testid=\"log-line\"]")).collect();
        assert!(!lines.is_empty(), "{href}");
        for l in &lines {
            let z = {
                let mut z: Vec<String> = l.select(&sel("time .tz-off")).map(text).collect();
                z.dedup();
                z
            };
            let want = if zone == "utc" { "UTC" } else { "UTC\u{2212}5" };
            assert_eq!(z, vec![want.to_owned()], "one zone in {:?}", text(*l));
        }
        // The down line's cause: its restart an instant in the line's zone, not text in UTC.
        let missed = lines.iter().find(|l| l.value().attr("data-kind") == Some("missed")).expect("the missed line");
        let said = text(*missed);
        assert!(said.contains("the scheduler was down until"), "{said}");
        if zone == "instance" {
            assert!(said.contains("until 2026-11-19 06:40:02 UTC\u{2212}5"), "{said}");
        }
        // The link lands on the incident's newest line, on top, nothing above it hidden.
        assert_eq!(lines[0].value().attr("data-kind"), Some("agent-start"), "{href}");
        let summary = log.select(&sel("main")).next().map(text).unwrap_or_default();
        let n = lines.len();
        assert!(summary.contains(&format!("lines 1–{n} of {n}")), "{href}: {summary}");
    }
    assert!(!href.contains("cursor="), "{href}");
    assert!(href.contains(&format!("instance={}", enc("pg-batch"))), "{href}");
}
