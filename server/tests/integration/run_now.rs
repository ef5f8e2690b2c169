//! What to do about a miss (issue 42): the demo's job page and triage show, for a missed and a
//! failed run, the statement that runs the job now in its scheduler's words, escaped.
use crate::support::t;
use crate::support::web::{self, send};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use scraper::{Html, Selector};
use server::http::AppState;

const NOW: &str = "2026-11-22T12:00:00Z";

async fn page(state: &AppState, uri: &str) -> (String, Html) {
    let a = send(state.clone(), Request::get(uri).body(Body::empty()).unwrap()).await;
    assert_eq!(a.status, StatusCode::OK, "{uri}");
    let text = a.text();
    let html = Html::parse_document(&text);
    (text, html)
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

fn text(e: scraper::ElementRef) -> String {
    e.text().collect::<String>()
}

/// A triage card by its kind and where (`instance / job`).
fn card<'a>(html: &'a Html, kind: &str, at: &str) -> scraper::ElementRef<'a> {
    html.select(&sel(&format!("[data-testid=\"problem\"][data-kind=\"{kind}\"]")))
        .find(|p| p.select(&sel(".problem-where")).next().map(text).as_deref() == Some(at))
        .unwrap_or_else(|| panic!("a {kind} problem of {at}"))
}

/// The statements of the run-now blocks under `e`, in order.
fn statements(e: scraper::ElementRef) -> Vec<String> {
    e.select(&sel("[data-testid=\"run-now\"] [data-testid=\"run-now-statement\"]")).map(text).collect()
}

const FAILED_JOB: &str = "5F3CD19E-4E36-417C-AD78-F76445A4BC0B";
const AT_STEP: &str = "EXEC msdb.dbo.sp_start_job @job_name = N'Sync - Customers to CRM', @step_name = N'Push to CRM';";
const WHOLE: &str = "EXEC msdb.dbo.sp_start_job @job_name = N'Sync - Customers to CRM';";
const PG_CRON: &str =
    "-- In database \"analytics\":\nSET ROLE \"etl\";\nCALL analytics.rollup_events_hourly();\nRESET ROLE;";

#[tokio::test(flavor = "multi_thread")]
async fn triage_and_the_job_page_show_the_statement_that_runs_a_missed_or_failed_job_now() {
    let (_dir, state) = web::demo_fleet(t(NOW)).await;
    let (_, triage) = page(&state, "/triage").await;

    // A failed SQL Agent run whose failed step is known: start at that step.
    let failed = card(&triage, "failed", "SQLEU01 / Sync - Customers to CRM");
    assert_eq!(statements(failed), vec![AT_STEP.to_owned()]);
    let said = text(failed);
    assert!(said.contains("never runs it") && said.contains("not the missed run"), "{said}");
    // A missed pg_cron run: the job's own command, in its database, as its role.
    let missed = card(&triage, "missed", "pg-analytics / rollup-events-hourly");
    assert_eq!(statements(missed), vec![PG_CRON.to_owned()]);
    // Other problems offer none: a run running long needs no run-now.
    let long = card(&triage, "running_long", "worker-jobs / ExportOrdersToErp");
    assert!(long.select(&sel("[data-testid=\"run-now\"]")).next().is_none());

    // The failed job's page: the whole job's statement above, the failed line's step below.
    let (_, job) = page(&state, &format!("/jobs/{FAILED_JOB}?instance=SQLEU01&days=7")).await;
    let main = job.select(&sel("main")).next().unwrap();
    let section = main.select(&sel("section[data-testid=\"run-now\"]")).next().expect("the run-now section");
    assert_eq!(statements(main)[0], WHOLE, "the section's statement first");
    let section_text = text(section);
    assert!(
        section_text.contains("What to do about a miss") && section_text.contains("copy it and run it yourself"),
        "{section_text}"
    );
    let line = main
        .select(&sel("[data-testid=\"timeline-table\"] tr"))
        .find(|tr| tr.select(&sel("[data-testid=\"run-now-statement\"]")).next().is_some())
        .expect("a failed line with its step's statement");
    assert_eq!(statements(line), vec![AT_STEP.to_owned()]);

    // The missed pg_cron job's page.
    let (_, job) = page(&state, "/jobs/2?instance=pg-analytics&days=1").await;
    let main = job.select(&sel("main")).next().unwrap();
    assert_eq!(statements(main).first().map(String::as_str), Some(PG_CRON));

    // A job with nothing missed or failed in the window has none.
    let jobs = web::api(&state, "/api/instances/pg-analytics/jobs?days=7").await;
    let fine = jobs["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["counts"]["missed"] == 0 && j["counts"]["failed"] == 0)
        .unwrap_or_else(|| panic!("a job with nothing missed or failed: {jobs}"));
    let uri = format!("/jobs/{}?instance=pg-analytics&days=7", crate::support::enc(fine["id"].as_str().unwrap()));
    let (_, job) = page(&state, &uri).await;
    assert!(job.select(&sel("[data-testid=\"run-now\"]")).next().is_none(), "{uri}");
}
