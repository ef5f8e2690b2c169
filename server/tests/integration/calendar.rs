//! The fleet calendar (`/calendar`) on the demo fleet, through the router: the day's runs with
//! their outcome, the runs expected ahead, now, the maintenance planned ahead, the scheduler's
//! own next runs; a bad `span` or `at` is a 400 page that names it.
use crate::support::t;
use crate::support::web::{self, get};
use axum::http::StatusCode;
use scraper::{Html, Selector};

const NOW: &str = "2026-11-22T12:00:00Z";

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

async fn page(state: &server::http::AppState, uri: &str) -> Html {
    let (status, body) = get(state, uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {}", web::visible(&body));
    Html::parse_document(&body)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_calendar_shows_the_demo_s_runs_and_the_runs_expected_ahead() {
    let (_dir, state) = web::demo_fleet(t(NOW)).await;
    let html = page(&state, "/calendar?span=day&at=2026-11-22&instance=SQLPROD01").await;
    let kinds = |k: &str| html.select(&sel(&format!("a[data-testid=cal-entry][data-kind={k}]"))).count();
    assert!(kinds("run") > 10, "the day's runs are listed: {}", kinds("run"));
    assert!(kinds("expected") > 5, "the runs ahead are listed: {}", kinds("expected"));
    // Past entries carry their outcome's class; every entry opens its job at its moment.
    let entries: Vec<_> = html.select(&sel("a[data-testid=cal-entry]")).collect();
    assert!(entries.iter().any(|e| e.value().classes().any(|c| c == "o-succeeded")));
    for e in &entries {
        let href = e.value().attr("href").unwrap();
        assert!(
            href.starts_with("/jobs/") && href.contains("?at=2026-11-2") && href.ends_with("&instance=SQLPROD01"),
            "{href}"
        );
    }
    // Now is marked once, before the expected runs and after the runs.
    assert_eq!(html.select(&sel("[data-testid=cal-now]")).count(), 1);
    let text = web::visible(&html.html());
    assert!(text.contains("Sunday 22 November 2026 · SQLPROD01"), "{text}");
    assert!(text.contains("Times in America/New_York"), "{text}");
    // The header links the calendar, as the current page.
    let nav = html.select(&sel("a[data-testid=nav-calendar]")).next().expect("a Calendar link");
    assert_eq!(nav.value().attr("aria-current"), Some("page"));
    // Service Broker's NextRunOn is compared with the forecast: the job moved from 07:00 to
    // 06:00 whose dialog timer still says 07:00 is named, with both times; the others agree.
    let html = page(&state, "/calendar?span=day&at=2026-11-23&instance=broker-sched").await;
    let differs: Vec<String> =
        html.select(&sel("[data-testid=cal-differs-row]")).map(|r| r.text().collect::<String>()).collect();
    assert_eq!(differs.len(), 1, "{differs:?}");
    assert!(
        differs[0].contains("Refresh exchange rates")
            && differs[0].contains("NextRunOn says its next run is at 2026-11-23 07:00"),
        "{differs:?}"
    );
    assert!(differs[0].contains("Sundial expects 2026-11-23 06:00"), "{differs:?}");
    let reported: Vec<_> = html.select(&sel("a[data-testid=cal-entry][data-kind=reported]")).collect();
    assert_eq!(reported.len(), 1, "the scheduler's 07:00 is drawn where it falls");
    assert!(html.html().contains("NextRunOn says the same"), "the agreeing jobs' next runs are ticked");
    // The week before: the demo's planted failures among its runs, in their colour.
    let html = page(&state, "/calendar?span=week&at=2026-11-20&instance=SQLPROD01").await;
    let bad = |class: &str| html.select(&sel(&format!("a[data-testid=cal-entry].{class}"))).count();
    assert!(bad("o-failed") > 0, "failed {}", bad("o-failed"));
    assert_eq!(html.select(&sel("[data-testid=cal-day]")).count(), 7);
    // pg_cron's stuck job: its last runs missed, today, before now.
    let html = page(&state, "/calendar?span=day&at=2026-11-22&instance=pg-analytics").await;
    let missed = html.select(&sel("a[data-testid=cal-entry].cal-mk-missed")).count();
    assert!(missed >= 1, "{}", web::visible(&html.html()));
    // The week ahead of pg-analytics holds its Sunday maintenance, planned.
    let html = page(&state, "/calendar?span=week&at=2026-11-23&instance=pg-analytics").await;
    let planned = html.select(&sel("[data-testid=cal-maint-list] li[data-state=planned]")).count();
    assert_eq!(planned, 1, "{}", web::visible(&html.html()));
    assert!(html.select(&sel("[data-testid=cal-maint]")).count() >= 2, "its hours are marked");
    // The whole fleet: every readable instance's entries, the unreachable one named.
    let html = page(&state, "/calendar?span=day&at=2026-11-22").await;
    let instances: std::collections::BTreeSet<String> = html
        .select(&sel("a[data-testid=cal-entry]"))
        .filter_map(|e| e.value().attr("href").and_then(|h| h.split("&instance=").nth(1)).map(str::to_owned))
        .collect();
    assert!(instances.len() >= 5, "{instances:?}");
    let text = web::visible(&html.html());
    assert!(text.contains("SQLAPAC01 is not shown"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_span_or_date_is_a_400_page_that_names_it() {
    let (_dir, state) = web::demo_fleet(t(NOW)).await;
    for (uri, status, words) in [
        ("/calendar?span=month", StatusCode::BAD_REQUEST, &["span must be \"day\" or \"week\"", "\"month\""][..]),
        ("/calendar?at=tomorrow", StatusCode::BAD_REQUEST, &["at must be a date such as 2026-11-22", "\"tomorrow\""]),
        ("/calendar?at=2026-13-01&span=week", StatusCode::BAD_REQUEST, &["\"2026-13-01\""]),
        ("/calendar?instance=NOPE", StatusCode::NOT_FOUND, &["There is no instance named \"NOPE\""]),
    ] {
        let (got, body) = get(&state, uri).await;
        let text = web::visible(&body).replace("&quot;", "\"").replace("&#x27;", "'");
        assert_eq!(got, status, "{uri}: {text}");
        for w in words {
            assert!(text.contains(w), "{uri}: {w:?} in {text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_job_page_and_the_instance_timeline_list_what_comes_after_now() {
    let (_dir, state) = web::demo_fleet(t(NOW)).await;
    let html = page(&state, "/timeline?instance=pg-analytics").await;
    let runs: Vec<String> = html
        .select(&sel("[data-testid=next-runs] [data-testid=next-run] a"))
        .map(|a| a.value().attr("href").unwrap().to_owned())
        .collect();
    assert_eq!(runs.len(), 5, "{runs:?}");
    assert!(runs.iter().all(|h| h.starts_with("/jobs/") && h.contains("?at=2026-11-2")), "{runs:?}");
    // The Sunday maintenance of pg-analytics is planned ahead, listed and shaded.
    let planned = html.select(&sel("[data-testid=next-window][data-state=planned]")).count();
    assert_eq!(planned, 1, "{}", web::visible(&html.html()));
    // A job's page: its own next runs.
    let job = &runs[0];
    let path = job.split("?at=").next().unwrap();
    let (status, body) = get(&state, &format!("{path}?instance=pg-analytics")).await;
    let job_page = Html::parse_document(&body);
    assert_eq!(status, StatusCode::OK);
    let own: Vec<String> = job_page
        .select(&sel("[data-testid=next-runs] [data-testid=next-run] a"))
        .map(|a| a.value().attr("href").unwrap().split("?at=").next().unwrap().to_owned())
        .collect();
    assert_eq!(own.len(), 5, "{}", web::visible(&body));
    assert!(own.iter().all(|h| job.starts_with(h.as_str())), "{own:?} of {job}");
}
