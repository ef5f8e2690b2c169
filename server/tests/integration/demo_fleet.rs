//! The built-in demo as a fleet, through the JSON API: `write_demo` writes every instance's
//! file for a fixed "now", the fleet file [`demo::fleet`] describes is served as of that "now"
//! (as `sundial serve` serves it), and every instance answers, the unreachable one as
//! unreachable, with each planted trouble where a user would look for it.
use crate::support::web::visible;
use crate::support::web::{self, api};
use crate::support::{enc, t};
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use server::demo::{self, eu, pgagent, tables};
use std::path::{Path, PathBuf};

const NOW: &str = "2026-11-22T12:00:00Z";

async fn written(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("demo.sqlite");
    let started = std::time::Instant::now();
    let summary = demo::write_demo(&path, t(NOW), 42).await.expect("the demo fleet is written");
    eprintln!("{summary} ({} ms)", started.elapsed().as_millis());
    path
}

fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("an instant: {v}"))).unwrap().to_utc()
}

/// The jobs of `instance` over the `days` before now, by name.
async fn jobs(state: &server::http::AppState, instance: &str, days: i64) -> Vec<Value> {
    let from = (t(NOW) - Duration::days(days)).format("%Y-%m-%dT%H:%M:%SZ");
    let v = api(state, &format!("/api/instances/{instance}/jobs?from={from}&to={NOW}")).await;
    v["jobs"].as_array().unwrap_or_else(|| panic!("{instance}: {v}")).clone()
}

fn named<'a>(jobs: &'a [Value], name: &str) -> &'a Value {
    jobs.iter().find(|j| j["name"] == name).unwrap_or_else(|| panic!("{name} in {jobs:?}"))
}

fn count(job: &Value, what: &str) -> u64 {
    job["counts"][what].as_u64().unwrap_or_else(|| panic!("counts.{what} of {job}"))
}

/// The timeline of one job over the day before now.
async fn timeline(state: &server::http::AppState, instance: &str, job: &Value) -> Value {
    let id = job["id"].as_str().unwrap();
    let from = (t(NOW) - Duration::days(1)).format("%Y-%m-%dT%H:%M:%SZ");
    api(state, &format!("/api/instances/{instance}/jobs/{}/timeline?from={from}", enc(id))).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_fleet_serves_every_instance_with_its_planted_trouble() {
    let dir = tempfile::tempdir().unwrap();
    let path = written(dir.path()).await;
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).expect("the fleet file is written beside");
    assert_eq!(demo::fleet(&path).expect("the demo's configuration").instances.len(), demo::FLEET.len());
    let state = web::fleet_as_of(&toml, t(NOW)).await;

    // Every instance, in order; the one whose file was never copied unreachable, saying why.
    let v = api(&state, "/api/instances").await;
    let instances = v["instances"].as_array().unwrap();
    let names: Vec<&str> = instances.iter().filter_map(|i| i["name"].as_str()).collect();
    assert_eq!(names, demo::FLEET, "{v}");
    for i in instances {
        let name = i["name"].as_str().unwrap();
        if name == demo::UNREACHABLE {
            assert_eq!(i["state"], "Unreachable", "{i}");
            assert!(i["error"].as_str().is_some_and(|e| e.contains("cannot open")), "{i}");
        } else {
            assert_eq!(i["state"], "Ok", "{i}");
            assert!(i["jobs"].as_u64().is_some_and(|n| n >= 3), "{i}");
            // Its data is as of the demo's "now", never of the machine's clock (days later).
            assert_eq!(at(&i["last_good"]), t(NOW), "{i}");
        }
    }
    // No page says the data is newer than "now", and nothing turns stale under a fixed now.
    let mut polled = 0;
    for name in demo::FLEET.iter().filter(|n| **n != demo::UNREACHABLE) {
        let html = web::get(&state, &format!("/jobs?instance={}", enc(name))).await.1;
        // A frozen file (SQLPROD01's msdb) says "demo data, fixed now"; the tables are polled.
        if html.contains("demo data, fixed now") {
            continue;
        }
        polled += 1;
        let as_of = html.split("data as of <time datetime=\"").nth(1).and_then(|r| r.split('"').next());
        let as_of = as_of.unwrap_or_else(|| panic!("{name}: no \"data as of\" in the header"));
        assert_eq!(DateTime::parse_from_rfc3339(as_of).unwrap(), t(NOW), "{name}");
    }
    assert!(polled >= 5, "the table-based instances are polled: {polled}");
    let triage = api(&state, "/api/triage").await;
    assert!(!triage.to_string().contains("\"stale\""), "{triage}");
    let zone = |name: &str| instances.iter().find(|i| i["name"] == name).unwrap()["time_zone"].clone();
    assert_eq!(zone(demo::INSTANCE), "America/New_York");
    assert_eq!(zone(eu::INSTANCE), "Europe/London");
    assert_eq!(zone(demo::PG_CRON_INSTANCE), tables::PG_CRON_ZONE);

    // SQLPROD01 as it always was.
    assert_eq!(jobs(&state, demo::INSTANCE, 7).await.len(), 41);

    // SQLEU01: the Agent started nothing since 05:40 UTC while runs were due (missed, by the
    // zombie), and nothing is in progress.
    let eu_jobs = jobs(&state, eu::INSTANCE, 1).await;
    let log_backups = named(&eu_jobs, "DatabaseBackup - USER_DATABASES - LOG");
    let since = eu::zombie_since(t(NOW));
    let tl = timeline(&state, eu::INSTANCE, log_backups).await;
    let zombie_misses: Vec<&Value> = tl["occurrences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| at(&o["expected_at"]) >= since && at(&o["expected_at"]) < t(NOW))
        .collect();
    assert_eq!(zombie_misses.len(), 25, "every quarter hour from 05:45 since {since}");
    assert!(zombie_misses.iter().all(|o| o["outcome"] == "missed"), "{zombie_misses:?}");
    assert!(
        zombie_misses.iter().all(|o| o["cause"] == "scheduler_zombie"),
        "missed because the Agent started nothing: {zombie_misses:?}"
    );
    // A job that has not succeeded in days: its last four runs failed, in its load step.
    let week = jobs(&state, eu::INSTANCE, 7).await;
    let ledger = named(&week, eu::NO_SUCCESS_JOB);
    assert_eq!((count(ledger, "failed"), count(ledger, "succeeded")), (4, 3), "{ledger}");
    // The failing job's last run failed in its named step.
    let crm = named(&week, eu::FAILED_STEP_JOB);
    let tl = timeline(&state, eu::INSTANCE, crm).await;
    let last = tl["runs"].as_array().unwrap().last().expect("a run").clone();
    assert_eq!(last["outcome"], "failed", "{last}");
    assert!(last["message"].as_str().unwrap().contains(eu::FAILED_STEP), "{last}");
    // A run that overran: the Agent skipped the two slots after it.
    assert_eq!(count(named(&week, eu::OVERRUN_JOB), "skipped"), 2);
    // The poller msdb purged: its older runs are unknown, never missed.
    let poller = named(&week, eu::TRIMMED_POLLER);
    assert!(count(poller, "unknown") > 1000, "{poller}");
    assert_eq!(count(poller, "runs"), 100, "{poller}");

    // pg_cron read from its file, a month of runs in its zone.
    let pg = jobs(&state, demo::PG_CRON_INSTANCE, 30).await;
    assert_eq!(pg.len(), 5);
    let refresh = named(&pg, "refresh-sales-mv");
    assert!(count(refresh, "runs") > 2800 && count(refresh, "missed") == 0, "{refresh}");
    assert_eq!(named(&pg, "nightly-vacuum")["next_run"], "2026-11-23T01:30:00Z", "02:30 in Berlin");

    // MariaDB's event scheduler is OFF: said on the instance, and its events missed since.
    let events = jobs(&state, demo::EVENTS_INSTANCE, 30).await;
    let carts = named(&events, "shop.purge_abandoned_carts");
    assert_eq!(count(carts, "missed"), tables::EVENTS_STOPPED_HOURS as u64, "{carts}");
    assert!(count(carts, "on_time") > 700 && count(carts, "unknown") == 0, "a month of samples: {carts}");
    let triage = api(&state, "/api/triage").await;
    let problems = triage["problems"].as_array().unwrap();
    let has = |kind: &str, instance: &str| problems.iter().any(|p| p["kind"] == kind && p["instance"] == instance);
    assert!(has("scheduler_stopped", demo::EVENTS_INSTANCE), "{triage}");
    assert!(has("zombie", eu::INSTANCE), "{triage}");
    assert!(has("unreachable", demo::UNREACHABLE), "{triage}");
    // pg_cron's stuck job: its last three runs missed in a row, nothing explaining them.
    let stuck = problems.iter().find(|p| p["kind"] == "missed" && p["job"] == tables::STUCK_PG_JOB).expect("missed");
    assert_eq!(stuck["count"], tables::STUCK_PG_HOURS, "{stuck}");
    assert!(stuck["evidence"].as_str().unwrap().contains("nothing started it"), "{stuck}");

    // The worker role's export runs now, three times as long as usual.
    let worker = jobs(&state, demo::JOBACTIVITY_INSTANCE, 30).await;
    let export = named(&worker, tables::RUNNING_LONG_JOB);
    assert_eq!(count(export, "in_progress"), 1, "{export}");
    let tl = timeline(&state, demo::JOBACTIVITY_INSTANCE, export).await;
    let runs = tl["runs"].as_array().unwrap();
    let now_run = runs.last().unwrap();
    assert_eq!(now_run["outcome"], "in_progress", "{now_run}");
    let elapsed = (t(NOW) - at(&now_run["started_at"])).num_seconds();
    let mut usual: Vec<i64> = runs.iter().filter_map(|r| r["duration_secs"].as_i64()).collect();
    usual.pop();
    usual.sort_unstable();
    let p50 = usual[usual.len() / 2];
    assert!((2.7..3.3).contains(&(elapsed as f64 / p50 as f64)), "{elapsed} s against a usual {p50} s");
    assert!(has("running_long", demo::JOBACTIVITY_INSTANCE), "{triage}");
    assert_eq!(count(named(&worker, "NightlyInvoiceRun"), "crashed"), 1);

    // The runner's sync was restarted 12 days ago: what came before is unknown.
    let runner = jobs(&state, demo::JOB_TABLE_INSTANCE, 30).await;
    let prices = named(&runner, "etl.sync_prices");
    assert!(count(prices, "unknown") > 0 && count(prices, "missed") == 0, "{prices}");
    assert!(count(named(&runner, "etl.load_orders"), "runs") > 2800);

    // Service Broker: the timer that disagrees with the schedule, and the purge that failed in
    // a named step (the scheduler stopped it).
    let broker = jobs(&state, demo::SERVICE_BROKER_INSTANCE, 7).await;
    let rates = timeline(&state, demo::SERVICE_BROKER_INSTANCE, named(&broker, tables::DISAGREEING_JOB)).await;
    // Said once: the cross-check's warning, not also the dialect's own about the same column.
    let on_next_run = rates["diagnostics"].as_array().unwrap().iter().filter(|d| d["field"] == "NextRunOn").count();
    assert_eq!(on_next_run, 1, "{}", rates["diagnostics"]);
    assert!(has("next_run_disagrees", demo::SERVICE_BROKER_INSTANCE), "{triage}");
    let purge = timeline(&state, demo::SERVICE_BROKER_INSTANCE, named(&broker, tables::FAILED_BROKER_JOB)).await;
    let failed = purge["runs"].as_array().unwrap().last().unwrap();
    assert_eq!(failed["outcome"], "failed", "{failed}");
    assert!(failed["message"].as_str().unwrap().contains(tables::FAILED_BROKER_STEP), "{failed}");

    // Primentra: a month of nightly batches, one failed.
    let primentra = jobs(&state, demo::PRIMENTRA_INSTANCE, 30).await;
    let orders = named(&primentra, "Orders");
    assert_eq!((count(orders, "runs"), count(orders, "failed")), (30, 1), "{orders}");

    // pgAgent: the night its agent died (the hourly roll's 02:00 run late at the restart, 03:00
    // to 06:00 missed), the roll's failing step every few days, in its server's zone.
    assert_eq!(zone(demo::PGAGENT_INSTANCE), pgagent::ZONE);
    let batch = jobs(&state, demo::PGAGENT_INSTANCE, 30).await;
    assert_eq!(batch.len(), 6);
    let roll = named(&batch, pgagent::FAILING_JOB);
    assert_eq!((count(roll, "late"), count(roll, "missed")), (1, 4), "{roll}");
    assert!((4..=20).contains(&count(roll, "failed")), "{roll}");
}

#[tokio::test]
async fn the_demo_fleet_is_reproducible_and_its_sources_only_read() {
    let dir = tempfile::tempdir().unwrap();
    let a = written(&dir.path().join("a")).await;
    let b = written(&dir.path().join("b")).await;
    for name in demo::FLEET.iter().filter(|n| **n != demo::INSTANCE && **n != demo::UNREACHABLE) {
        let (fa, fb) = (demo::file_of(&a, name), demo::file_of(&b, name));
        assert_eq!(dump(&fa).await, dump(&fb).await, "{name}: the same now and seed, the same file");
    }
    assert!(!demo::file_of(&a, demo::UNREACHABLE).exists(), "the unreachable instance has no file");
    // Another seed, another history.
    let c = dir.path().join("c").join("demo.sqlite");
    std::fs::create_dir_all(c.parent().unwrap()).unwrap();
    demo::write_demo(&c, t(NOW), 7).await.unwrap();
    assert_ne!(dump(&demo::file_of(&a, eu::INSTANCE)).await, dump(&demo::file_of(&c, eu::INSTANCE)).await);

    // The files are opened read-only by the sources: a write through such a pool fails.
    let pool = server::sources::connect::sqlite(&demo::file_of(&a, demo::PG_CRON_INSTANCE)).await.unwrap();
    let err = sqlx::query("DELETE FROM job_run_details").execute(&pool).await.expect_err("read-only");
    assert!(err.to_string().to_lowercase().contains("readonly"), "{err}");
}

/// Every row of every table of a SQLite file, in order, as text.
async fn dump(path: &Path) -> Vec<String> {
    use sqlx::Row;
    let pool = server::sources::connect::sqlite(path).await.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .fetch_all(&pool)
        .await
        .unwrap();
    let mut out = Vec::new();
    for name in names {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT * FROM \"{name}\" ORDER BY rowid")))
            .fetch_all(&pool)
            .await
            .unwrap();
        for r in rows {
            let cells: Vec<String> = (0..r.len())
                .map(|i| {
                    r.try_get::<Option<String>, _>(i)
                        .ok()
                        .flatten()
                        .or_else(|| r.try_get::<Option<i64>, _>(i).ok().flatten().map(|v| v.to_string()))
                        .unwrap_or_default()
                })
                .collect();
            out.push(format!("{name}: {}", cells.join("|")));
        }
    }
    pool.close().await;
    out
}

#[test]
fn sundial_demo_writes_a_fleet_into_a_directory_that_check_config_reads() {
    use crate::support::{stdout, sundial};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = sundial(&["demo", "--out", out, "--now", NOW]);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    let printed = stdout(&o);
    let fleet = dir.path().join("sundial-demo.fleet.toml");
    assert!(printed.contains(&format!("sundial serve --config {} --now {NOW}", fleet.display())), "{printed}");
    for name in demo::FLEET.iter().filter(|n| **n != demo::UNREACHABLE) {
        let file = demo::file_of(&dir.path().join("sundial-demo.sqlite"), name);
        assert!(file.exists(), "{name}: {}", file.display());
    }
    // Each instance read once, as serving would: all but the one whose file is missing.
    let o = sundial(&["check-config", "--config", fleet.to_str().unwrap()]);
    let printed = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{printed}");
    assert!(printed.contains(&format!("{}: FAILED", demo::UNREACHABLE)), "{printed}");
    assert!(printed.contains(&format!("9 of {} instance(s) readable", demo::FLEET.len())), "{printed}");
    assert!(printed.contains("event_scheduler") || printed.contains("event scheduler"), "{printed}");
}

/// SQL Agent's step rows, end to end: the demo's failed runs say why they failed in their
/// failed step's own words (not msdb's job-outcome line) in the JSON API, the job page, the
/// log, its CSV and triage (whose evidence is what alerts send), and a run lists its steps.
#[tokio::test(flavor = "multi_thread")]
async fn failed_runs_quote_their_failed_steps_own_message_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = written(dir.path()).await;
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;
    let week = jobs(&state, eu::INSTANCE, 7).await;
    let crm = named(&week, eu::FAILED_STEP_JOB);
    let id = crm["id"].as_str().unwrap().to_owned();
    const SAID: &str = "Invoke-RestMethod : 503 Service Unavailable";
    const OUTCOME_LINE: &str = "The job failed.";

    // The API: the run carries its steps, the failed one with msdb's numbers and its message.
    let tl = timeline(&state, eu::INSTANCE, crm).await;
    let last = tl["runs"].as_array().unwrap().last().expect("a run").clone();
    let steps = last["steps"].as_array().unwrap_or_else(|| panic!("steps: {last}"));
    let names: Vec<(&str, &str)> =
        steps.iter().map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap())).collect();
    assert_eq!(names, [("Collect changes", "succeeded"), (eu::FAILED_STEP, "failed")], "{last}");
    let failed = &steps[1];
    assert_eq!((failed["step_id"].as_i64(), failed["subsystem"].as_str()), (Some(2), Some("CmdExec")), "{failed}");
    assert!(failed["message"].as_str().unwrap().contains(SAID), "{failed}");
    assert!(failed["duration_secs"].as_i64().is_some_and(|d| d > 0) && failed["started_at"].is_string(), "{failed}");
    assert!(last["message"].as_str().unwrap().starts_with(OUTCOME_LINE), "the run's own message stays msdb's");

    // The job page: the run's message is the step's words; its steps expand from its row.
    let (status, html) = web::get(&state, &format!("/jobs/{}?instance={}&days=1", enc(&id), eu::INSTANCE)).await;
    assert_eq!(status, axum::http::StatusCode::OK);
    let doc = scraper::Html::parse_document(&html);
    let sel = |s: &str| scraper::Selector::parse(s).unwrap();
    let messages: Vec<String> =
        doc.select(&sel("td.col-message .message")).map(|e| e.text().collect::<String>()).collect();
    assert!(messages.iter().any(|m| m.contains(SAID) && m.contains("step 2 (Push to CRM)")), "{messages:?}");
    assert!(!messages.iter().any(|m| m.contains(OUTCOME_LINE)), "not the outcome line: {messages:?}");
    let details = doc
        .select(&sel(r#"details[data-testid="run-steps"]"#))
        .find(|d| d.text().collect::<String>().contains(SAID))
        .expect("the failed run's steps");
    let summary = details.select(&sel("summary")).next().unwrap().text().collect::<String>();
    assert_eq!(summary, "2 steps, failed in step 2 (Push to CRM)");
    let rows: Vec<String> =
        details.select(&sel(r#"li[data-testid="run-step"]"#)).map(|e| e.text().collect::<String>()).collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows[1].contains("Step 2 (Push to CRM)") && rows[1].contains("CmdExec") && rows[1].contains(SAID),
        "{rows:?}"
    );

    // The log and its CSV: the failure line says the step's words.
    let log = api(&state, &format!("/api/log?instance={}&kind=failed&limit=1000", eu::INSTANCE)).await;
    let line = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["job"] == eu::FAILED_STEP_JOB)
        .unwrap_or_else(|| panic!("the failure in the log: {log}"));
    let text = line["text"].as_str().unwrap();
    assert!(text.contains(SAID) && text.starts_with("step 2 (Push to CRM): "), "{text}");
    assert!(!text.contains(OUTCOME_LINE), "{text}");
    let (status, csv) = web::get(&state, &format!("/log.csv?instance={}&kind=failed", eu::INSTANCE)).await;
    assert_eq!(status, axum::http::StatusCode::OK);
    let row = csv.lines().find(|l| l.contains(eu::FAILED_STEP_JOB)).unwrap_or_else(|| panic!("{csv}"));
    assert!(row.contains(SAID) && !row.contains(OUTCOME_LINE), "{row}");

    // Triage (what alerts send): the step and its words, the outcome said once.
    let triage = api(&state, "/api/triage").await;
    let problems = triage["problems"].as_array().unwrap();
    let evidence = |job: &str| -> String {
        let p = problems.iter().find(|p| p["job"] == job).unwrap_or_else(|| panic!("{job}: {triage}"));
        p["evidence"].as_str().unwrap().to_owned()
    };
    let e = evidence(eu::FAILED_STEP_JOB);
    assert!(e.contains(&format!("failed in step 2 ({}): {SAID}", eu::FAILED_STEP)), "{e}");
    assert!(!e.contains("failed: failed") && !e.contains(OUTCOME_LINE), "{e}");
    let e = evidence(eu::NO_SUCCESS_JOB);
    assert!(e.contains("Cannot bulk load because the file"), "{e}");
    assert!(!e.contains(OUTCOME_LINE), "{e}");
}

/// An instance's own state is judged once and every view says it: the fleet table's badge
/// and the API's condition, a banner on every page of the instance, the log's line when the
/// scheduler stopped (at its last sign of life), the misses' cause, and evidence that opens the
/// instance timeline at the span's start.
#[tokio::test(flavor = "multi_thread")]
async fn every_view_says_the_one_judgment_of_each_instance() {
    let dir = tempfile::tempdir().unwrap();
    let path = written(dir.path()).await;
    let toml = std::fs::read_to_string(demo::fleet_file_of(&path)).unwrap();
    let state = web::fleet_as_of(&toml, t(NOW)).await;

    // The API and the fleet table say one condition per instance.
    let v = api(&state, "/api/instances").await;
    let instances = v["instances"].as_array().unwrap();
    let condition = |name: &str| instances.iter().find(|i| i["name"] == name).unwrap()["condition"].clone();
    assert_eq!(condition(eu::INSTANCE), "zombie", "{v}");
    assert_eq!(condition(demo::EVENTS_INSTANCE), "scheduler_stopped", "{v}");
    assert_eq!(condition(demo::UNREACHABLE), "unreachable", "{v}");
    assert_eq!(condition(demo::PGAGENT_INSTANCE), "reading", "pgAgent came back: {v}");
    let fleet = web::get(&state, "/fleet").await.1;
    for i in instances {
        let name = i["name"].as_str().unwrap();
        let row = fleet
            .split(&format!(r#"data-instance="{name}""#))
            .nth(1)
            .and_then(|r| r.split("</tr>").next())
            .unwrap_or_else(|| panic!("{name} has a row"));
        let key = i["condition"].as_str().unwrap();
        assert!(row.contains(&format!(r#"data-state="{key}""#)), "{name}'s badge says {key}: {row}");
    }
    // The stopped scheduler: since when at the latest, its last sign of life before.
    let gap = &instances.iter().find(|i| i["name"] == demo::EVENTS_INSTANCE).unwrap()["scheduler_gap"];
    assert_eq!(gap["kind"], "scheduler_stopped", "{gap}");
    let (since, seen) = (at(&gap["since"]), at(&gap["last_seen"]));
    assert!(seen <= since && since <= t(NOW), "{gap}");
    // Every run its events missed is the stop's.
    let missed: u64 = jobs(&state, demo::EVENTS_INSTANCE, 30).await.iter().map(|j| count(j, "missed")).sum();
    assert_eq!(gap["missed"].as_u64(), Some(missed), "{gap}");
    assert!(missed >= tables::EVENTS_STOPPED_HOURS as u64, "{gap}");

    // Every page of the instance carries the banner of the stop still going.
    let q = format!("instance={}", enc(demo::EVENTS_INSTANCE));
    let carts = named(&jobs(&state, demo::EVENTS_INSTANCE, 1).await, "shop.purge_abandoned_carts").clone();
    let job_page = format!("/jobs/{}?days=1&{q}", enc(carts["id"].as_str().unwrap()));
    for uri in [format!("/jobs?{q}"), job_page.clone(), format!("/log?days=1&{q}"), format!("/timeline?{q}")] {
        let html = web::get(&state, &uri).await.1;
        let banner = html
            .split(r#"data-testid="stopped-banner""#)
            .nth(1)
            .and_then(|r| r.split("</div>").next())
            .unwrap_or_else(|| panic!("{uri}: no banner of the stopped scheduler"));
        assert!(banner.contains(r#"data-ongoing="true""#) || html.contains(r#"data-ongoing="true" data-due"#), "{uri}");
        let text = visible(banner);
        assert!(text.contains("is stopped: down by") && text.contains("at the latest (last seen"), "{uri}: {text}");
    }
    // Its misses say why: the scheduler is stopped, not "no run started".
    let html = web::get(&state, &job_page).await.1;
    let text = visible(&html);
    assert!(text.contains("is stopped, down by"), "{text}");
    assert!(!text.contains("Missed: no run started"), "{text}");
    // The log has the line of the stop, at the last sign of life.
    let log = web::get(&state, &format!("/log?days=30&{q}&kind=scheduler-stop")).await.1;
    let stop_lines = |log: &str| log.matches(r#"data-testid="log-line" data-kind="scheduler-stop""#).count();
    assert_eq!(stop_lines(&log), 1, "{}", visible(&log));

    // pgAgent's night: down by the first run due at the latest; last seen before the agent
    // died (01:10), never "from 02:00" alone.
    let story = pgagent::story(t(NOW));
    let pq = format!("instance={}", enc(demo::PGAGENT_INSTANCE));
    let html = web::get(&state, &format!("/jobs?{pq}")).await.1;
    let banner = html.split(r#"data-testid="stopped-banner""#).nth(1).and_then(|r| r.split("</div>").next()).unwrap();
    assert!(banner.contains(r#"data-ongoing="false""#), "{banner}");
    let times: Vec<DateTime<Utc>> = banner
        .split("datetime=\"")
        .skip(1)
        .filter_map(|r| DateTime::parse_from_rfc3339(r.split('"').next()?).ok())
        .map(|t| t.to_utc())
        .collect();
    let (by, seen, back) = (times[0], times[1], times[2]);
    assert!(seen < story.down.start && story.down.start < by, "last seen {seen}, died {}, by {by}", story.down.start);
    assert_eq!(back, story.down.end, "{banner}");
    let text = visible(banner);
    assert!(text.contains("4 runs missed across 1 job;"), "{text}");
    let log = web::get(&state, &format!("/log?days=30&{pq}&kind=scheduler-stop")).await.1;
    assert_eq!(stop_lines(&log), 1, "the log marks the agent going down: {}", visible(&log));

    // Instance-wide evidence opens the instance timeline at the span's start, or, for an
    // instance that cannot be read, its row on the fleet page.
    let triage = api(&state, "/api/triage").await;
    let link_of = |instance: &str, kind: &str| -> String {
        let p = triage["problems"].as_array().unwrap().iter().find(|p| p["kind"] == kind && p["instance"] == instance);
        p.unwrap_or_else(|| panic!("a {kind} problem of {instance}: {triage}"))["link"].as_str().unwrap().to_owned()
    };
    let zombie = link_of(eu::INSTANCE, "zombie");
    assert!(zombie.starts_with("/timeline?from="), "{zombie}");
    let from = at(&Value::from(zombie.split("from=").nth(1).unwrap().split('&').next().unwrap()));
    let began = from + Duration::hours(1);
    let since = eu::zombie_since(t(NOW));
    assert!(since <= began && began <= since + Duration::minutes(15), "an hour before the zombie began: {zombie}");
    assert!(link_of(demo::EVENTS_INSTANCE, "scheduler_stopped").starts_with("/timeline?from="));
    assert!(link_of(demo::UNREACHABLE, "unreachable").starts_with("/fleet#instance-"));
}
