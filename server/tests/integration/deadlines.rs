//! Deadlines (`[[deadline]]`) over the worker of `metrics.rs` as of 13:40 UTC: `ETL - Nightly
//! Load` has not run today (due 13:00) and `Backup` is still going since 13:00:30, so neither
//! succeeded by 13:30. Each is a `deadline_missed` problem on `/api/triage`, in the jobs list,
//! `/metrics` and the alerts routed by kind; a maintenance window holds it; a success closes it.
use crate::alerts::{QUICK, at, reads_after_now, receiver, start, subjects};
use crate::metrics::{NIGHTLY, instances, nightly_ran, write_worker};
use crate::support::web::{self, api, get};
use serde_json::Value;
use server::alerts::Alerter;
use std::path::Path;

/// Both jobs must have succeeded by 13:30 UTC, every day.
const BY_1330: &str = "[[deadline]]\nname = \"Loaded by 13:30\"\ninstances = [\"worker\"]\n\
    jobs = [\"ETL - Nightly Load\", \"Backup\"]\nby = \"13:30\"\ndays = \"daily\"\ntime_zone = \"UTC\"\n";

fn fleet(dir: &Path, extra: &str) -> server::config::FleetConfig {
    let text = format!(
        "store = {:?}\npublic_url = \"https://sundial.example/\"\n{}\n{extra}",
        dir.join("store.sqlite").to_string_lossy(),
        instances(&dir.join("worker.sqlite"), dir)
    );
    server::config::parse(&text, "fleet.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn missed_deadlines(triage: &Value) -> Vec<&Value> {
    let mut v: Vec<&Value> =
        triage["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == "deadline_missed").collect();
    v.sort_by_key(|p| p["job"].as_str().unwrap_or_default().to_owned());
    v
}

#[tokio::test]
async fn a_missed_deadline_is_one_problem_on_triage_the_jobs_list_metrics_and_alerts_until_a_success() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;

    // Without the deadline: no such problem (the control).
    let bare = web::state(start(&fleet(dir.path(), "")).await);
    assert!(missed_deadlines(&api(&bare, "/api/triage").await).is_empty());

    let (url, _rx) = receiver(0).await;
    let alerts = format!(
        "[[alert]]\nname = \"finance\"\nurl = \"{url}/finance\"\nformat = \"json\"\ngrace = \"0s\"\nkinds = [\"deadline_missed\"]\n"
    );
    let config = fleet(dir.path(), &format!("{BY_1330}{alerts}"));
    let backend = start(&config).await;
    let state = web::state(backend.clone());
    let triage = api(&state, "/api/triage").await;
    let missed = missed_deadlines(&triage);
    assert_eq!(missed.len(), 2, "{triage}");
    let (backup, nightly) = (missed[0], missed[1]);
    assert_eq!((backup["job"].as_str(), nightly["job"].as_str()), (Some("Backup"), Some(NIGHTLY)));
    assert_eq!(nightly["severity"], "error");
    assert_eq!(nightly["since"], "2026-03-07T13:30:00Z", "since the deadline instant");
    let evidence = nightly["evidence"].as_str().unwrap();
    for want in [
        "\u{201c}Loaded by 13:30\u{201d} (daily by 13:30 UTC) was due by 2026-03-07 13:30 UTC",
        "no success ended after 2026-03-06 13:30 UTC and by then",
        "the last run, 2026-03-06 13:00 UTC to 2026-03-06 13:05 UTC, succeeded",
        "next run due 2026-03-08 13:00 UTC",
    ] {
        assert!(evidence.contains(want), "{want:?} in {evidence}");
    }
    let evidence = backup["evidence"].as_str().unwrap();
    assert!(evidence.contains("the last run started 2026-03-07 13:00 UTC and is still running"), "{evidence}");

    // The jobs list: Backup's worst problem is the deadline; the nightly load's is its miss,
    // with the deadline among its problems.
    let jobs = api(&state, "/api/instances/worker/jobs?days=1").await;
    let job = |name: &str| jobs["jobs"].as_array().unwrap().iter().find(|j| j["name"] == name).cloned().unwrap();
    assert_eq!(job("Backup")["state"], "deadline_missed", "{jobs}");
    let n = job(NIGHTLY);
    assert_eq!(n["state"], "missed", "{n}");
    assert!(n["problems"].as_array().unwrap().iter().any(|p| p["kind"] == "deadline_missed"), "{n}");
    let (_, html) = get(&state, "/jobs?instance=worker&days=1").await;
    assert!(html.contains("data-state=\"deadline_missed\""), "the jobs page's row says it");

    // The job page says the deadline and its verdict near the top, and draws today's instant.
    let id = job("Backup")["id"].as_str().unwrap().to_owned();
    let (_, page) = get(&state, &format!("/jobs/{}?instance=worker&days=1", id.replace(' ', "%20"))).await;
    assert!(page.contains("Deadline: Loaded by 13:30, daily by 13:30 UTC"), "{page}");
    let note = &page[page.find("data-testid=\"deadline-note\"").expect("the deadline's line")..];
    assert!(note[..note.find("</p>").unwrap()].contains("missed"), "{note}");
    assert_eq!(page.matches("data-testid=\"deadline-line\"").count(), 1, "today's 13:30 on a 1-day chart");
    assert!(page.contains("data-at=\"2026-03-07 13:30:00\""), "at the deadline instant");

    // /metrics counts them.
    let (_, metrics) = get(&state, "/metrics").await;
    assert!(metrics.contains("sundial_problems{kind=\"deadline_missed\",severity=\"error\"} 2"), "{metrics}");

    // Routed by kind: the finance target takes both, and nothing else of the fleet.
    let alerter = Alerter::start(backend.clone(), &config, "https://sundial.example", QUICK)
        .await
        .expect("the alerts start")
        .expect("alerts are configured");
    let queued = alerter.tick(at(1)).await;
    let mut got = subjects(&queued);
    got.sort();
    assert_eq!(
        got,
        [("finance", "[DEADLINE] worker / Backup"), ("finance", &*format!("[DEADLINE] worker / {NIGHTLY}"))]
    );

    // The nightly load runs (13:00:40 to 13:05, before 13:30): its deadline is met, the
    // problem closes and the target hears it recovered; Backup's stays.
    nightly_ran(&dir.path().join("worker.sqlite")).await;
    reads_after_now(&backend, "worker").await;
    let triage = api(&state, "/api/triage").await;
    let missed = missed_deadlines(&triage);
    assert_eq!(missed.iter().map(|p| p["job"].as_str().unwrap()).collect::<Vec<_>>(), ["Backup"], "{triage}");
    let queued = alerter.tick(at(2)).await;
    assert_eq!(subjects(&queued), [("finance", &*format!("[RESOLVED DEADLINE] worker / {NIGHTLY}"))]);
}

#[tokio::test]
async fn a_deadline_missed_inside_a_maintenance_window_is_held_by_it() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let patching = "[[maintenance]]\nname = \"patching\"\nreason = \"OS updates\"\n\
        start = \"2026-03-07 12:30\"\nend = \"2026-03-07 14:00\"\ninstances = [\"worker\"]\n";
    let state = web::state(start(&fleet(dir.path(), &format!("{BY_1330}{patching}"))).await);
    let triage = api(&state, "/api/triage").await;
    let missed = missed_deadlines(&triage);
    assert_eq!(missed.len(), 2, "{triage}");
    for p in missed {
        assert_eq!(p["maintenance"]["window"], "patching", "{p}");
        assert_eq!(p["maintenance"]["until"], "2026-03-07T14:00:00Z", "{p}");
    }
}

#[tokio::test]
async fn check_config_names_a_bad_deadline_by_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    write_worker(&dir.path().join("worker.sqlite")).await;
    let bad = BY_1330.replace("by = \"13:30\"", "by = \"half past one\"");
    let text = format!(
        "store = {:?}\n{}\n{bad}",
        dir.path().join("store.sqlite").to_string_lossy(),
        instances(&dir.path().join("worker.sqlite"), dir.path())
    );
    let file = dir.path().join("fleet.toml");
    std::fs::write(&file, &text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sundial"))
        .args(["check-config", "--config"])
        .arg(&file)
        .output()
        .expect("sundial runs");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{said}");
    let line = text.lines().position(|l| l.starts_with("by = \"half")).unwrap() + 1;
    assert!(
        said.contains(&format!("fleet.toml:{line}: deadline[0].by = \"half past one\": not a time like \"06:00\"")),
        "{said}"
    );
}
