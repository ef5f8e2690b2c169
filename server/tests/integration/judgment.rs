//! One judgment of each job, read by every view (issue 26): over the whole demo fleet (every
//! job of every instance), the jobs API's `problems` and `state`, the jobs page's row in every
//! window, the job page's header, `/api/triage` and `/metrics` agree. A view that judged a job
//! on its own (from its window's runs, say) would disagree with triage somewhere in the demo:
//! a zombie Agent, an event scheduler that is off, an unreachable instance, failing and
//! running-long jobs are all planted there, and the test checks each is seen.
use crate::support::web::{self, api, get};
use crate::support::{enc, t};
use serde_json::Value;
use server::demo;
use std::collections::{BTreeMap, BTreeSet};

const NOW: &str = "2026-11-22T12:00:00Z";

/// The state word a problem kind puts a job in (the API's and the page's `data-state`).
fn state_of(kind: &str) -> &str {
    if kind == "failed" { "failing" } else { kind }
}

/// How bad a state is: the order of severity the judgment ranks by.
const PROBLEM_STATES: [&str; 11] = [
    "unreachable",
    "scheduler_stopped",
    "zombie",
    "missed",
    "failing",
    "no_success",
    "deadline_missed",
    "running_long",
    "next_run_disagrees",
    "stale",
    "too_short",
];

/// `data-state` of each job row of a jobs page, by job id.
fn page_states(html: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for row in html.split("data-testid=\"job-row\"").skip(1) {
        let head = &row[..row.find('>').unwrap_or(row.len())];
        let attr =
            |name: &str| head.split(&format!("{name}=\"")).nth(1).and_then(|r| r.split('"').next()).map(str::to_owned);
        if let (Some(id), Some(state)) = (attr("data-job-id"), attr("data-state")) {
            out.insert(html_unescape(&id), state);
        }
    }
    out
}

fn html_unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_view_reads_the_one_judgment_of_each_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;

    let triage = api(&state, "/api/triage").await;
    let problems = triage["problems"].as_array().unwrap().clone();
    let metrics = get(&state, "/metrics").await.1;
    // /metrics counts the same problems, per kind.
    let mut counted: BTreeMap<String, i64> = BTreeMap::new();
    for p in &problems {
        *counted.entry(p["kind"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    for (kind, n) in &counted {
        let line = metrics
            .lines()
            .find(|l| l.starts_with("sundial_problems{") && l.contains(&format!("kind=\"{kind}\"")))
            .unwrap_or_else(|| panic!("/metrics has no sundial_problems for {kind}"));
        assert_eq!(line.rsplit(' ').next().unwrap().parse::<i64>().unwrap(), *n, "{line}");
    }

    // Every problem's evidence link opens a page that shows it: never at a moment still to come.
    for p in &problems {
        let link = p["link"].as_str().unwrap();
        if let Some(at) = link.split("at=").nth(1) {
            let at = at.split('&').next().unwrap().replace("%3A", ":").replace("%2B", "+");
            let at = chrono::DateTime::parse_from_rfc3339(&at).unwrap_or_else(|e| panic!("{link}: {e}"));
            assert!(at.to_utc() < t(NOW), "{}: {link} points at now or later", p["kind"]);
        }
        let html = get(&state, link).await.1;
        assert!(!html.contains("is after the instance's now"), "{link}");
    }
    assert!(problems.iter().any(|p| p["kind"] == "next_run_disagrees"), "the demo has a disagreeing next run");

    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut states: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut week: BTreeMap<(String, String), String> = BTreeMap::new();
    let instances = api(&state, "/api/instances").await;
    let mut jobs_checked = 0;
    for inst in instances["instances"].as_array().unwrap() {
        let name = inst["name"].as_str().unwrap();
        let (status, body) = get(&state, &format!("/api/instances/{}/jobs", enc(name))).await;
        if status != axum::http::StatusCode::OK {
            // Never read (the unreachable instance): triage says so, and no page shows a job OK.
            assert!(problems.iter().any(|p| p["instance"] == name && p["kind"] == "unreachable"), "{name}: {body}");
            continue;
        }
        let jobs: Value = serde_json::from_str(&body).unwrap();
        let pages: Vec<BTreeMap<String, String>> = {
            let mut v = Vec::new();
            for days in [1, 7, 30] {
                let html = get(&state, &format!("/jobs?instance={}&days={days}", enc(name))).await.1;
                v.push(page_states(&html));
            }
            v
        };
        for job in jobs["jobs"].as_array().unwrap() {
            let id = job["id"].as_str().unwrap();
            let own: Vec<&Value> = problems
                .iter()
                .filter(|p| p["instance"] == name && (p["job_id"].is_null() || p["job_id"] == id))
                .collect();
            // The API's problems are triage's, the same objects.
            let listed: Vec<&Value> = job["problems"].as_array().unwrap().iter().collect();
            let key = |p: &Value| format!("{}|{}|{}", p["kind"], p["job_id"], p["since"]);
            let want: BTreeSet<String> = own.iter().map(|p| key(p)).collect();
            let got: BTreeSet<String> = listed.iter().map(|p| key(p)).collect();
            assert_eq!(got, want, "{name} / {id}: the jobs API's problems are triage's");
            for p in &listed {
                let same = own.iter().find(|o| key(o) == key(p)).unwrap();
                assert_eq!(p, same, "{name} / {id}: the same object as /api/triage");
            }
            let api_state = job["state"].as_str().unwrap();
            // With a problem, the state is the worst one's; without, never a problem's word.
            let worst = own
                .iter()
                .map(|p| state_of(p["kind"].as_str().unwrap()))
                .min_by_key(|s| PROBLEM_STATES.iter().position(|w| w == s));
            match worst {
                Some(w) => assert_eq!(api_state, w, "{name} / {id}: {own:?}"),
                None => assert!(!PROBLEM_STATES.contains(&api_state), "{name} / {id}: {api_state} with no problem"),
            }
            // Every window of the jobs page shows the same judgment (a problem is now, not a
            // window's); without a problem, the window's runs may say recovered, ok or no run.
            for (days, page) in [1, 7, 30].iter().zip(&pages) {
                let shown = page.get(id).unwrap_or_else(|| panic!("{name} / {id}: no row in the {days}-day list"));
                if *days == 7 {
                    week.insert((name.to_owned(), id.to_owned()), shown.clone());
                }
                match worst {
                    Some(w) => assert_eq!(shown, w, "{name} / {id}: the {days}-day list"),
                    None => assert!(!PROBLEM_STATES.contains(&shown.as_str()), "{name} / {id}: {shown} in {days} days"),
                }
            }
            // The job page's header.
            let html = get(&state, &format!("/jobs/{}?instance={}", enc(id), enc(name))).await.1;
            let header = html
                .split("data-testid=\"job-state\"")
                .nth(1)
                .and_then(|r| r.split("data-state=\"").nth(1))
                .and_then(|r| r.split('"').next())
                .unwrap_or_else(|| panic!("{name} / {id}: no state on the job page"));
            if let Some(w) = worst {
                assert_eq!(header, w, "{name} / {id}: the job page's header");
            }
            seen.insert(api_state.to_owned());
            states.insert((name.to_owned(), id.to_owned()), api_state.to_owned());
            jobs_checked += 1;
        }
    }
    assert!(jobs_checked > 60, "{jobs_checked} jobs");
    // Finding a job by name across the fleet shows the same judgment.
    let html = get(&state, "/find?q=backup").await.1;
    let found: Vec<&str> = html.split("data-testid=\"found-job\"").skip(1).collect();
    let instances_found: BTreeSet<String> = found
        .iter()
        .map(|r| r.split("data-instance=\"").nth(1).unwrap().split('"').next().unwrap().to_owned())
        .collect();
    assert!(instances_found.len() >= 2, "backups on several instances: {instances_found:?}");
    for r in &found {
        let attr = |n: &str| r.split(&format!("{n}=\"")).nth(1).unwrap().split('"').next().unwrap().to_owned();
        let id = r.split("/jobs/").nth(1).unwrap().split('?').next().unwrap();
        let id = id.replace("%2D", "-").replace("%20", " ");
        // The find page's state is the jobs list's (its default 7 days), problem or not.
        let listed = week.get(&(attr("data-instance"), id.clone()));
        assert_eq!(Some(&attr("data-state")), listed, "{id} found, as the 7-day list says");
        if let Some(s) = states.get(&(attr("data-instance"), id.clone())) {
            let shown = attr("data-state");
            if PROBLEM_STATES.contains(&s.as_str()) {
                assert_eq!(&shown, s, "{id} found");
            } else {
                assert!(!PROBLEM_STATES.contains(&shown.as_str()), "{id} found: {shown}");
            }
        }
    }
    // Not vacuous: the demo's planted troubles are each some job's state.
    for planted in ["zombie", "scheduler_stopped", "failing", "missed"] {
        assert!(seen.contains(planted), "no job is {planted}: {seen:?}");
    }
}

/// What a source cannot know is said, never 0: MariaDB's events seen by their LAST_EXECUTED
/// keep no outcome and no duration.
#[tokio::test(flavor = "multi_thread")]
async fn what_a_source_cannot_tell_is_unknown_never_zero() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let jobs = api(&state, &format!("/api/instances/{}/jobs", demo::EVENTS_INSTANCE)).await;
    let carts = jobs["jobs"].as_array().unwrap().iter().find(|j| j["name"] == "shop.purge_abandoned_carts").unwrap();
    let counts = &carts["counts"];
    assert!(counts["runs"].as_u64().unwrap() > 0, "{counts}");
    assert!(counts["failed"].is_null() && counts["succeeded"].is_null(), "unknown, not 0: {counts}");
    assert!(counts["unknown_because"].as_str().unwrap().contains("LAST_EXECUTED"), "{counts}");
    let html = get(&state, &format!("/jobs?instance={}&days=7", demo::EVENTS_INSTANCE)).await.1;
    assert!(html.contains("data-testid=\"failed-unknown\""), "the list says unknown");
    assert!(html.contains("duration unknown") && !html.contains("took 0s"), "no 0-second runs");
    // The job page: unknown with its reason on hover, never "Nothing failed".
    let page = get(&state, &format!("/jobs/{}?instance={}", enc(carts["id"].as_str().unwrap()), demo::EVENTS_INSTANCE))
        .await
        .1;
    let tile = page.split("data-testid=\"failed-count\"").nth(1).unwrap_or_default();
    assert!(tile.starts_with(" title=\"") && tile.contains(">unknown"), "{}", &tile[..tile.len().min(300)]);
    assert!(!page.contains("Nothing failed"), "the summary claims what the source cannot know");
    // What each scheduler cannot tell is said, on both pages and in the API.
    assert!(html.contains("data-testid=\"cannot-tell\"") && page.contains("data-testid=\"cannot-tell\""));
    let says = |v: &Value, what: &str| {
        v["cannot_tell"].as_array().unwrap().iter().any(|c| c["what"].as_str().unwrap().contains(what))
    };
    assert!(says(&jobs, "outcome and duration"), "{}", jobs["cannot_tell"]);
    // A source that keeps outcomes still counts them; pg_cron's "succeeded" is qualified.
    let pg = api(&state, &format!("/api/instances/{}/jobs", demo::PG_CRON_INSTANCE)).await;
    assert!(pg["jobs"].as_array().unwrap().iter().all(|j| j["counts"]["failed"].is_u64()));
    assert!(says(&pg, "succeeded"), "{}", pg["cannot_tell"]);
}

/// The "usual" durations a reader is quoted are one statistic: triage's running-long evidence,
/// the job page's "Running now … usually" line and its durations table, in any window the page
/// shows, are the judged window's p50 and p95 of the run's season (a view that measured its own
/// window would quote the 7-day numbers beside triage's 30-day ones).
#[tokio::test(flavor = "multi_thread")]
async fn p50_and_p95_are_one_statistic_wherever_they_appear() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.sqlite");
    demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let triage = api(&state, "/api/triage").await;
    let long = triage["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "running_long")
        .unwrap_or_else(|| panic!("the demo has a run running long: {triage}"))
        .clone();
    let (instance, job) = (long["instance"].as_str().unwrap(), long["job_id"].as_str().unwrap());
    let mut seen = Vec::new();
    for days in [1, 7, 30] {
        let form = format!("instance={}&job_id={}&days={days}", enc(instance), enc(job));
        let req = axum::http::Request::post("/api/fn/job_timeline")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(axum::body::Body::from(form))
            .unwrap();
        let a = web::send(state.clone(), req).await;
        let v: Value = serde_json::from_slice(&a.body).expect("JSON");
        assert_eq!(v["durations"]["days"], 30, "{}", v["durations"]);
        // The window's, and what the latest run (the one running long) is judged against.
        seen.push((v["durations"]["window"].clone(), v["durations"]["latest"].clone()));
    }
    assert!(seen.iter().all(|s| *s == seen[0]), "the same in every window: {seen:?}");
    let latest = &seen[0].1;
    let (p50, p95) = (latest["stats"]["p50"].as_i64().unwrap(), latest["stats"]["p95"].as_i64().unwrap());
    // Triage says them in words ("9 min 58 s"), the page in figures ("9m 58s"): the same seconds.
    let words = |s: i64| format!("{} min {} s", s / 60, s % 60);
    let evidence = long["evidence"].as_str().unwrap();
    assert!(
        evidence.contains(&format!(
            "usually {} (p50), {} at p95 over {};",
            words(p50),
            words(p95),
            latest["words"].as_str().unwrap()
        )),
        "{evidence} vs {latest}"
    );
    let html = get(&state, &format!("/jobs/{}?instance={}", enc(job), enc(instance))).await.1;
    let figures = |s: i64| format!("{}m {:02}s", s / 60, s % 60);
    let usual = format!("usually {} (p50), {} (p95)", figures(p50), figures(p95));
    assert!(html_unescape(&html).contains(&usual), "the job page says {usual}");
}

/// A backend whose judgment changes every time it is asked for one (reads landing while a
/// page renders).
struct EverNewer(std::sync::atomic::AtomicUsize);

impl sundial_model::ssr::Backend for EverNewer {
    fn report(
        &self,
        _: Option<&str>,
        _: u32,
    ) -> futures_util::future::BoxFuture<
        '_,
        Result<std::sync::Arc<sundial_engine::fleet::InstanceReport>, sundial_model::ssr::ReportError>,
    > {
        Box::pin(async { Err(sundial_model::ssr::ReportError::UnknownInstance) })
    }
    fn instances(&self) -> futures_util::future::BoxFuture<'_, Vec<sundial_model::InstanceStatus>> {
        Box::pin(async { Vec::new() })
    }
    fn judgment(&self) -> futures_util::future::BoxFuture<'_, sundial_model::ssr::Judgment> {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move {
            // Another view asks meanwhile.
            tokio::task::yield_now().await;
            std::sync::Arc::new(sundial_model::ssr::FleetJudgment { counts: (0, 0, n), ..Default::default() })
        })
    }
    fn triage_of(
        &self,
        judgment: &sundial_model::ssr::FleetJudgment,
        _: sundial_model::TriageScope,
    ) -> sundial_model::TriageData {
        sundial_model::TriageData { jobs: judgment.counts.2, ..Default::default() }
    }
}

#[tokio::test]
async fn every_view_of_one_request_reads_the_same_judgment_however_often_it_asks() {
    let backend = EverNewer(std::sync::atomic::AtomicUsize::new(0));
    let request = sundial_model::ssr::RequestJudgment::default();
    // The header's count and the page's list, asked at once, then a job's state.
    let (header, list) = tokio::join!(request.get(&backend), request.get(&backend));
    let job = request.get(&backend).await;
    use sundial_model::ssr::Backend;
    let of = |j: &sundial_model::ssr::Judgment| backend.triage_of(j, sundial_model::TriageScope::all()).jobs;
    assert_eq!((of(&list), of(&job)), (of(&header), of(&header)), "one judgment for the request");
    // Not vacuous: the two views asking at once each had one made, and the next request
    // reads a newer one.
    let next = sundial_model::ssr::RequestJudgment::default().get(&backend).await;
    assert_eq!((of(&header) < 2, of(&next)), (true, 2));
}
